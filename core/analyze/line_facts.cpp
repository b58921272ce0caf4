// The pure half of reading a line (see line_facts.h).
#include "core/analyze/line_facts.h"

#include <algorithm>
#include <cstdint>
#include <optional>

#include "core/base/text.h"
#include "core/parse/launcher.h"
#include "core/parse/secrets.h"
#include "core/parse/traceback.h"

namespace denpex::core {

// What a line stating the world size holds, without case (statedWorldSize reads the number).
constexpr std::string_view kWorldSizeWords[] = {"world_size", "world size"};

const std::vector<PrefilterLiteral>& lineLiterals() {
  // Never destroyed, like every function-local static in the project: a diagnosis thread may
  // still read it while exit() runs the destructors of statics.
  static const std::vector<PrefilterLiteral>& kLiterals = *new std::vector<PrefilterLiteral>([] {
    std::vector<PrefilterLiteral> out;
    for (auto p : LauncherTracker::phrases()) out.push_back({p, false});
    for (auto t : secretTriggers()) out.push_back({t, true});
    for (auto n : TracebackTracker::loggedExceptionNotices()) out.push_back({n, false});
    for (auto w : kWorldSizeWords) out.push_back({w, true});
    return out;
  }());
  return kLiterals;
}

std::unique_ptr<Prefilter> makeLinePrefilter(const Matcher& matcher, std::string_view saved, bool portable) {
  if (!saved.empty()) {
    if (auto loaded = Prefilter::load(matcher, lineLiterals(), saved)) return loaded;
  }
  return std::make_unique<Prefilter>(matcher, lineLiterals(), portable);
}

// `prev` is long, and `next` starts no record of its own (no timestamp, no other rank's prefix,
// no traceback line, no progress bar, not the same kind of record as `prev`: "step 12 | loss ..."
// twice).
bool continuesLine(const ParsedLine& prev, const ParsedLine& next) {
  std::string_view p = prev.message(), n = next.message();
  if (p.size() < 50 || next.source != prev.source || !next.timestamp.empty()) return false;
  if (next.messageBegin > 0 && next.rank != prev.rank) return false;
  std::string_view t = text::trim(n);
  if (t.empty() || text::startsWith(t, "File \"") || text::startsWith(t, "Traceback (most recent call last)")) return false;
  if (isProgressBar(t)) return false;  // tqdm wrote it whole
  auto firstWord = [](std::string_view s) { return s.substr(0, std::min(s.find(' '), size_t{16})); };
  return firstWord(text::trim(p)) != firstWord(t);
}

namespace {

// Keeps the hits in `joined` (the line before's message, then this one's) that cross the break.
void keepWrapped(std::vector<Matcher::Hit>& hits, const ParsedLine& prev, const ParsedLine& line, LineFacts& out) {
  size_t p = prev.message().size();
  for (auto& hit : hits) {
    if (hit.begin >= p || hit.end <= p) continue;  // found in one line alone
    LineFacts::Wrapped w;
    w.begin = prev.clean.toRaw(prev.messageBegin + hit.begin);
    w.end = prev.clean.toRawEnd(prev.messageBegin + p);
    w.shown = std::string(prev.clean.text) + std::string(line.message());
    w.hit = std::move(hit);
    out.wrapped.push_back(std::move(w));
  }
}

// Resets `out` to the parse of `raw`, reusing its memory.
void parseFacts(std::string_view raw, uint32_t source, uint64_t lineNo, int defaultRank, LineFacts& out) {
  parseLineInto(raw.substr(0, kMaxLineBytes), source, lineNo, out.line);
  if (out.line.rank < 0) out.line.rank = defaultRank;
  out.hits.clear();
  out.wrapped.clear();
  out.metrics = MetricSample{};
  out.launcher = false;
  out.worldSize = 0;
  out.traceback = TracebackTracker::startsRecord(out.line.body());
}

void completeFacts(const Matcher& matcher, std::vector<LineFacts>& out, const ParsedLine* before,
                   const Prefilter* prefilter, Prefilter::Scratch* scratch);

}  // namespace

LineFacts analyzeLine(const Matcher& matcher, std::string_view raw, uint32_t source, uint64_t lineNo,
                      int defaultRank, const ParsedLine* previous) {
  thread_local std::vector<LineFacts> one(1);
  parseFacts(raw, source, lineNo, defaultRank, one[0]);
  completeFacts(matcher, one, previous, nullptr, nullptr);
  return std::move(one[0]);  // parseFacts resets every field of the moved-from element
}

void analyzeLines(const Matcher& matcher, std::string_view text, uint32_t source, uint64_t firstLineNo, int defaultRank,
                  const ParsedLine* before, std::vector<LineFacts>& out, const Prefilter* prefilter,
                  Prefilter::Scratch* scratch) {
  // Parse every line first, so that one prefilter pass can cover the whole block.
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
  completeFacts(matcher, out, before, prefilter, scratch);
}

namespace {

// The world size a message states: "WORLD_SIZE=8", "world_size: 8", "world size 8", "'world_size': 8".
int statedWorldSize(std::string_view m) {
  for (std::string_view needle : {std::string_view("orld"), std::string_view("ORLD")})
    for (size_t at = m.find(needle); at != std::string_view::npos; at = m.find(needle, at + 4)) {
      if (at == 0 || (m[at - 1] != 'w' && m[at - 1] != 'W')) continue;
      size_t i = at + 4;
      if (i >= m.size() || (m[i] != '_' && m[i] != ' ')) continue;
      ++i;
      if (m.substr(i, 4) != "size" && m.substr(i, 4) != "SIZE") continue;
      i += 4;
      size_t seps = 0;
      while (i < m.size() && seps < 4 && (m[i] == '=' || m[i] == ':' || m[i] == ' ' || m[i] == '\'' || m[i] == '"')) ++i, ++seps;
      long long n = 0;
      size_t d = text::readInt(m, i, n, 7);
      if (d > 0 && seps > 0 && n > 0 && n <= (1 << 20) && (i + d == m.size() || !text::isDigit(m[i + d])))
        return static_cast<int>(n);
    }
  return 0;
}

// Masks the secrets of the lines, and of the joined texts of wrapped lines (in the arena, in
// place: masking keeps lengths). With `found` (a prefilter pass that looked for
// secretTriggers()), only the texts it flagged are looked at closely; without, every one is.
// `before` is the line before the first (already masked when it was analysed).
void maskSecretsOf(std::vector<LineFacts>& out, const ParsedLine* before, std::vector<std::string_view>& texts,
                   const std::vector<size_t>& ownAt, const std::vector<size_t>& joinedAt, const Prefilter::Candidates* found,
                   int patternCount) {
  thread_local std::vector<uint8_t> flagged;
  flagged.assign(texts.size(), found ? 0 : 1);
  if (found) {
    const int firstTrigger = patternCount + static_cast<int>(LauncherTracker::phrases().size());
    const int firstNotice = firstTrigger + static_cast<int>(secretTriggers().size());
    for (const auto& [t, id] : found->hits)
      if (id >= firstTrigger && id < firstNotice) flagged[t] = 1;
    for (size_t t = 0; t < texts.size(); ++t) flagged[t] |= found->all[t];
  }
  std::vector<bool> masked(out.size(), false);
  for (size_t i = 0; i < out.size(); ++i) {
    if (!flagged[ownAt[i]] || !maskLineSecrets(out[i].line)) continue;
    masked[i] = true;
    texts[ownAt[i]] = out[i].line.message();
  }
  for (size_t i = 0; i < out.size(); ++i) {
    size_t j = joinedAt[i];
    if (j == SIZE_MAX) continue;
    bool prevMasked = i > 0 && masked[i - 1];
    if (!flagged[j] && !masked[i] && !prevMasked) continue;
    // The joined text is the line before's message then this one's: the masked bytes of both,
    // then whatever crosses the break.
    char* at = const_cast<char*>(texts[j].data());  // the thread's own arena
    std::string_view prev = i > 0 ? out[i - 1].line.message() : (before ? before->message() : std::string_view());
    std::string_view self = out[i].line.message();
    if (prev.size() + self.size() != texts[j].size()) continue;  // cannot happen: the arena holds exactly these
    std::copy(prev.begin(), prev.end(), at);
    std::copy(self.begin(), self.end(), at + prev.size());
    std::string joined(texts[j]);
    if (maskSecrets(joined)) std::copy(joined.begin(), joined.end(), at);
  }
}

// Everything after the parse, for parsed lines whose first one follows `before`: pattern hits
// (candidates from one prefilter pass over all of them, when there is a prefilter), hits across
// a wrapped line, the launcher's interest, metrics. The serial path and the parallel one share it.
void completeFacts(const Matcher& matcher, std::vector<LineFacts>& out, const ParsedLine* before,
                   const Prefilter* prefilter, Prefilter::Scratch* scratch) {
  // The line before each line, when it had a message, and whether this line continues it.
  auto previousOf = [&](size_t i) -> const ParsedLine* {
    const ParsedLine* p = i > 0 ? &out[i - 1].line : before;
    return p && !p->message().empty() ? p : nullptr;
  };
  // The texts to match, in the order they are visited: each line's message, then (when the line
  // continues the one before) the two messages joined, all kept in one buffer.
  thread_local std::string arena;
  thread_local std::vector<std::pair<size_t, size_t>> joinedSpan;  // per line: [begin, end) in arena
  arena.clear();
  joinedSpan.assign(out.size(), {0, 0});
  for (size_t i = 0; i < out.size(); ++i) {
    const ParsedLine* prev = previousOf(i);
    if (out[i].line.message().empty() || !prev || !continuesLine(*prev, out[i].line)) continue;
    size_t begin = arena.size();
    arena.append(prev->message());
    arena.append(out[i].line.message());
    joinedSpan[i] = {begin, arena.size()};
  }
  thread_local std::vector<std::string_view> texts;
  thread_local std::vector<size_t> ownAt, joinedAt;
  texts.clear();
  ownAt.assign(out.size(), 0);
  joinedAt.assign(out.size(), SIZE_MAX);
  for (size_t i = 0; i < out.size(); ++i) {
    ownAt[i] = texts.size();
    texts.push_back(out[i].line.message());
    if (joinedSpan[i].second > joinedSpan[i].first) {
      joinedAt[i] = texts.size();
      texts.push_back(std::string_view(arena).substr(joinedSpan[i].first, joinedSpan[i].second - joinedSpan[i].first));
    }
  }
  thread_local Prefilter::Candidates found;
  bool filtered = prefilter && scratch;
  if (filtered) prefilter->candidates(texts, *scratch, found);
  const int patternCount = static_cast<int>(matcher.patternCount());
  // The launcher's phrases and the secrets' words come from the same pass when the prefilter was
  // made for them.
  const bool literalsScanned = filtered && prefilter->literalCount() == lineLiterals().size() && prefilter->residualLiterals() == 0;
  const bool phrasesScanned = literalsScanned;
  const int firstTrigger = patternCount + static_cast<int>(LauncherTracker::phrases().size());
  const int firstNotice = firstTrigger + static_cast<int>(secretTriggers().size());
  const int firstWorld = firstNotice + static_cast<int>(TracebackTracker::loggedExceptionNotices().size());
  maskSecretsOf(out, before, texts, ownAt, joinedAt, literalsScanned ? &found : nullptr, patternCount);
  size_t cursor = 0;  // into found.hits, which is sorted by text; texts are visited in order
  bool phraseSeen = false;  // in the text last matched
  bool noticeSeen = false;  // a library's notice of a logged exception, in the text last matched
  bool worldSeen = false;   // words of a stated world size, in the text last matched
  auto match = [&](size_t t, std::string_view s, std::vector<Matcher::Hit>& hits) {
    phraseSeen = noticeSeen = worldSeen = !phrasesScanned;
    if (!filtered || found.all[t]) {
      phraseSeen = noticeSeen = worldSeen = true;
      matcher.match(s, hits);
      return;
    }
    thread_local std::vector<int> patterns;
    patterns.clear();
    while (cursor < found.hits.size() && found.hits[cursor].first < t) ++cursor;
    for (; cursor < found.hits.size() && found.hits[cursor].first == t; ++cursor) {
      int id = found.hits[cursor].second;
      if (id < patternCount) patterns.push_back(id);
      else if (id < firstTrigger) phraseSeen = true;
      else if (id >= firstWorld) worldSeen = true;
      else if (id >= firstNotice) noticeSeen = true;
    }
    if (!prefilter->residual().empty()) {
      patterns.insert(patterns.end(), prefilter->residual().begin(), prefilter->residual().end());
      std::sort(patterns.begin(), patterns.end());
      patterns.erase(std::unique(patterns.begin(), patterns.end()), patterns.end());
    }
    if (!patterns.empty()) matcher.matchCandidates(s, patterns, hits);
  };
  thread_local std::vector<Matcher::Hit> hits;
  for (size_t i = 0; i < out.size(); ++i) {
    LineFacts& f = out[i];
    std::string_view message = f.line.message();
    if (message.empty()) continue;
    match(ownAt[i], message, f.hits);
    f.launcher = phraseSeen && LauncherTracker::concerns(message);
    if (noticeSeen && !f.traceback) f.traceback = TracebackTracker::announcesLoggedException(f.line.body());
    // The run's world size is stated by the launcher or rank 0: other ranks' lines are not read for it.
    if (worldSeen && f.line.rank < 1) f.worldSize = statedWorldSize(message);
    if (joinedAt[i] != SIZE_MAX) {
      hits.clear();
      match(joinedAt[i], texts[joinedAt[i]], hits);
      keepWrapped(hits, *previousOf(i), f.line, f);
      for (auto& w : f.wrapped) maskSecrets(w.shown);  // a secret cut in two by the wrap
    }
    f.metrics = extractMetrics(message);
  }
}

}  // namespace

}  // namespace denpex::core
