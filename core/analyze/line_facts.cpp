// The pure half of reading a line (see line_facts.h).
#include "core/analyze/line_facts.h"

#include <algorithm>

#include "core/base/text.h"

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

// Matches the two messages as one and keeps the hits that cross the line break.
void matchAcrossWrap(const Matcher& matcher, const ParsedLine& prev, const ParsedLine& line, LineFacts& out) {
  std::string_view p = prev.message();
  thread_local std::string joined;
  thread_local std::vector<Matcher::Hit> hits;
  joined.assign(p);
  joined.append(line.message());
  hits.clear();
  matcher.match(joined, hits);
  for (auto& hit : hits) {
    if (hit.begin >= p.size() || hit.end <= p.size()) continue;  // found in one line alone
    LineFacts::Wrapped w;
    w.begin = prev.clean.toRaw(prev.messageBegin + hit.begin);
    w.end = prev.clean.toRawEnd(prev.messageBegin + p.size());
    w.shown = prev.clean.text + std::string(line.message());
    w.hit = std::move(hit);
    out.wrapped.push_back(std::move(w));
  }
}

}  // namespace

LineFacts analyzeLine(const Matcher& matcher, std::string_view raw, uint32_t source, uint64_t lineNo,
                      int defaultRank, const ParsedLine* previous) {
  LineFacts out;
  out.line = parseLine(raw, source, lineNo);
  if (out.line.rank < 0) out.line.rank = defaultRank;
  std::string_view message = out.line.message();
  if (message.empty()) return out;
  matcher.match(message, out.hits);
  if (previous && continuesLine(*previous, out.line)) matchAcrossWrap(matcher, *previous, out.line, out);
  out.metrics = extractMetrics(message);
  return out;
}

std::vector<LineFacts> analyzeLines(const Matcher& matcher, std::string_view text, uint32_t source,
                                    uint64_t firstLineNo, int defaultRank, const std::string_view* before) {
  std::vector<LineFacts> out;
  ParsedLine previous;
  bool hasPrevious = false;
  if (before) {
    previous = parseLine(*before, source, firstLineNo - 1);
    if (previous.rank < 0) previous.rank = defaultRank;
    hasPrevious = !previous.message().empty();
  }
  uint64_t lineNo = firstLineNo;
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    size_t end = nl == std::string_view::npos ? text.size() : nl;
    out.push_back(analyzeLine(matcher, text.substr(start, end - start), source, lineNo++, defaultRank,
                              hasPrevious ? &previous : nullptr));
    const ParsedLine& line = out.back().line;
    hasPrevious = !line.message().empty();
    if (hasPrevious) previous = line;
    start = end + 1;
  }
  return out;
}

}  // namespace denpex::core
