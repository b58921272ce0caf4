// The pure half of reading a line (see line_facts.h).
#include "core/analyze/line_facts.h"

#include <algorithm>
#include <cstdint>
#include <optional>

#include "core/base/text.h"
#include "core/parse/launcher.h"

namespace denpex::core {

// `prev` is long, and `next` starts no record of its own (no timestamp, no other rank's prefix,
// no traceback line, not the same kind of record as `prev`: "step 12 | loss ..." twice).
bool continuesLine(const ParsedLine& prev, const ParsedLine& next) {
  std::string_view p = prev.message(), n = next.message();
  if (p.size() < 50 || next.source != prev.source || !next.timestamp.empty()) return false;
  if (next.messageBegin > 0 && next.rank != prev.rank) return false;
  std::string_view t = text::trim(n);
  if (t.empty() || text::startsWith(t, "File \"") || text::startsWith(t, "Traceback (most recent call last)")) return false;
  auto firstWord = [](std::string_view s) { return s.substr(0, std::min(s.find(' '), size_t{16})); };
  return firstWord(text::trim(p)) != firstWord(t);
}

namespace {

// Keeps the hits in `joined` (the line before's message, then this one's) that cross the break.
void keepWrapped(std::vector<Matcher::Hit>& hits, std::string_view joined, const ParsedLine& prev, const ParsedLine& line,
                 LineFacts& out) {
  size_t p = prev.message().size();
  for (auto& hit : hits) {
    if (hit.begin >= p || hit.end <= p) continue;  // found in one line alone
    LineFacts::Wrapped w;
    w.begin = prev.clean.toRaw(prev.messageBegin + hit.begin);
    w.end = prev.clean.toRawEnd(prev.messageBegin + p);
    w.shown = prev.clean.text + std::string(line.message());
    w.hit = std::move(hit);
    out.wrapped.push_back(std::move(w));
  }
  (void)joined;
}

// Resets `out` to the parse of `raw`, reusing its memory.
void parseFacts(std::string_view raw, uint32_t source, uint64_t lineNo, int defaultRank, LineFacts& out) {
  parseLineInto(raw, source, lineNo, out.line);
  if (out.line.rank < 0) out.line.rank = defaultRank;
  out.hits.clear();
  out.wrapped.clear();
  out.metrics = MetricSample{};
  out.launcher = false;
}

}  // namespace

LineFacts analyzeLine(const Matcher& matcher, std::string_view raw, uint32_t source, uint64_t lineNo,
                      int defaultRank, const ParsedLine* previous) {
  LineFacts out;
  parseFacts(raw, source, lineNo, defaultRank, out);
  std::string_view message = out.line.message();
  if (message.empty()) return out;
  out.launcher = LauncherTracker::concerns(message);
  matcher.match(message, out.hits);
  if (previous && continuesLine(*previous, out.line)) {
    thread_local std::string joined;
    thread_local std::vector<Matcher::Hit> hits;
    joined.assign(previous->message());
    joined.append(message);
    hits.clear();
    matcher.match(joined, hits);
    keepWrapped(hits, joined, *previous, out.line, out);
  }
  out.metrics = extractMetrics(message);
  return out;
}

void analyzeLines(const Matcher& matcher, std::string_view text, uint32_t source, uint64_t firstLineNo, int defaultRank,
                  const std::string_view* before, std::vector<LineFacts>& out, const Prefilter* prefilter,
                  Prefilter::Scratch* scratch) {
  // Parse every line first, so that one prefilter pass can cover the whole block.
  std::optional<LineFacts> head;  // the line before the block
  if (before) {
    head.emplace();
    parseFacts(*before, source, firstLineNo - 1, defaultRank, *head);
  }
  uint64_t lineNo = firstLineNo;
  size_t count = 0;
  for (size_t start = 0; start < text.size(); ++count) {
    size_t nl = text.find('\n', start);
    size_t end = nl == std::string_view::npos ? text.size() : nl;
    if (count == out.size()) out.emplace_back();
    parseFacts(text.substr(start, end - start), source, lineNo++, defaultRank, out[count]);
    start = end + 1;
  }
  out.resize(count);
  // The line before each line, when it had a message, and whether this line continues it.
  auto previousOf = [&](size_t i) -> const ParsedLine* {
    const ParsedLine* p = i > 0 ? &out[i - 1].line : head ? &head->line : nullptr;
    return p && !p->message().empty() ? p : nullptr;
  };
  std::vector<std::string> joined(out.size());
  std::vector<std::string_view> texts;  // each line's message, then each joined pair
  std::vector<size_t> joinedAt(out.size(), SIZE_MAX);
  texts.reserve(out.size() * 2);
  for (auto& f : out) texts.push_back(f.line.message());
  for (size_t i = 0; i < out.size(); ++i) {
    const ParsedLine* prev = previousOf(i);
    if (out[i].line.message().empty() || !prev || !continuesLine(*prev, out[i].line)) continue;
    joined[i].assign(prev->message());
    joined[i].append(out[i].line.message());
    joinedAt[i] = texts.size();
    texts.push_back(joined[i]);
  }
  std::vector<std::vector<int>> candidates;
  std::vector<bool> all;
  if (prefilter && scratch) {
    prefilter->candidates(texts, *scratch, candidates, all);
  } else {
    all.assign(texts.size(), true);
    candidates.resize(texts.size());
  }
  auto match = [&](size_t t, std::string_view s, std::vector<Matcher::Hit>& hits) {
    if (all[t]) matcher.match(s, hits);
    else if (!candidates[t].empty()) matcher.matchCandidates(s, candidates[t], hits);
  };
  std::vector<Matcher::Hit> hits;
  for (size_t i = 0; i < out.size(); ++i) {
    LineFacts& f = out[i];
    std::string_view message = f.line.message();
    if (message.empty()) continue;
    f.launcher = LauncherTracker::concerns(message);
    match(i, message, f.hits);
    if (joinedAt[i] != SIZE_MAX) {
      hits.clear();
      match(joinedAt[i], joined[i], hits);
      keepWrapped(hits, joined[i], *previousOf(i), f.line, f);
    }
    f.metrics = extractMetrics(message);
  }
}

}  // namespace denpex::core
