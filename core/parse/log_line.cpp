// One line of a log: its launcher prefix (which rank or host printed it), its timestamp and
// the message after them (see log_line.h).
#include "core/parse/log_line.h"

#include <string.h>  // memrchr

#include <cctype>
#include <cstring>

#include "core/base/text.h"
#include "core/parse/secrets.h"
#include "core/parse/timestamp.h"

namespace denpex::core {
namespace {

using text::isDigit;
using text::readInt;

// A rank number no launcher prints (the largest jobs have tens of thousands of ranks): the
// digits are not a rank.
constexpr long long kMaxRankNumber = 1 << 20;

// Launcher prefixes. Returns the length of the prefix consumed, 0 when there is none.
size_t parsePrefix(std::string_view s, int& rank) {
  long long n = 0;
  // torchrun --tee: "[rank3]:" (torch >= 2.2) or "[default3]:" (older). Compared with lengths
  // the compiler sees (a compare of runtime length is a call to memcmp, on every line).
  std::string_view tag;
  if (s.size() > 5 && s[0] == '[') {
    if (std::memcmp(s.data() + 1, "rank", 4) == 0) tag = "[rank";
    else if (s.size() > 8 && std::memcmp(s.data() + 1, "default", 7) == 0) tag = "[default";
  }
  if (!tag.empty()) {
    size_t d = readInt(s, tag.size(), n);
    size_t p = tag.size() + d;
    if (d > 0 && n < kMaxRankNumber && p + 1 < s.size() + 1 && s.substr(p, 2) == "]:") {
      rank = static_cast<int>(n);
      p += 2;
      // "[default0]:[rank12]:": the older launcher's tag is the local rank on its node; the
      // worker's own "[rank12]:" inside it (torch 2.x's c10d logs) is the global rank.
      long long global = 0;
      constexpr std::string_view kInner("[rank");
      if (tag[1] == 'd' && s.substr(p, kInner.size()) == kInner) {
        size_t gd = readInt(s, p + kInner.size(), global);
        size_t q = p + kInner.size() + gd;
        if (gd > 0 && global < kMaxRankNumber && s.substr(q, 2) == "]:") {
          rank = static_cast<int>(global);
          p = q + 2;
        }
      }
      return p;
    }
  }
  // mpirun --tag-output: "[1,3]<stderr>:" or "[1,3]<stdout>:"
  if (s.size() > 1 && s[0] == '[') {
    long long job = 0;
    size_t d1 = readInt(s, 1, job);
    if (d1 > 0 && 1 + d1 < s.size() && s[1 + d1] == ',') {
      size_t d2 = readInt(s, 2 + d1, n);
      size_t p = 2 + d1 + d2;
      if (d2 > 0 && n < kMaxRankNumber && p < s.size() && s[p] == ']') {
        ++p;
        for (std::string_view stream : {std::string_view("<stderr>:"), std::string_view("<stdout>:"),
                                        std::string_view("<stddiag>:")}) {
          if (s.substr(p, stream.size()) == stream) {
            rank = static_cast<int>(n);
            return p + stream.size();
          }
        }
      }
    }
  }
  // srun --label: "3: " with the task id right-aligned ("  3: ") when there are 10 or more.
  size_t i = 0;
  while (i < s.size() && s[i] == ' ') ++i;
  size_t d = readInt(s, i, n);
  if (d > 0 && d <= 5 && n < kMaxRankNumber && i + d + 1 < s.size() && s[i + d] == ':' && s[i + d + 1] == ' ') {
    rank = static_cast<int>(n);
    return i + d + 1;
  }
  return 0;
}

}  // namespace

namespace {

// pdsh and the DeepSpeed launcher prefix each line with the host: "worker-3: ", "gpu-node07: ".
// A host here is lower case with a digit, so exception names ("RuntimeError: ") never match.
size_t parseHostPrefix(std::string_view s, std::string& host) {
  size_t i = 0;
  bool digit = false;
  while (i < s.size() && i < 64) {
    char c = s[i];
    if (c == ':') break;
    if (!(text::isLower(c) || isDigit(c) || c == '-' || c == '.' || c == '_')) return 0;
    digit |= isDigit(c);
    ++i;
  }
  if (i == 0 || !digit || i + 1 >= s.size() || s[i] != ':' || s[i + 1] != ' ') return 0;
  if (!text::isLower(s[0])) return 0;
  host = std::string(s.substr(0, i));
  return i + 1;
}

// A rank named by the message itself: "[Rank 3]" (DeepSpeed's log_dist, NCCL's watchdog),
// "[rank3]", or "Rank 3:" / "rank 3:" at the start.
int rankFromText(std::string_view m) {
  long long n = 0;
  // "[Rank N]", "[rank N]", "[RankN]", "[rankN]", in that order of preference, each read at its
  // first occurrence only; found in one pass over the '[' characters.
  int found[4] = {-1, -1, -1, -1};
  bool seen[4] = {false, false, false, false};
  for (size_t at = m.find('['); at != std::string_view::npos; at = m.find('[', at + 1)) {
    std::string_view rest = m.substr(at + 1);
    if (rest.size() < 4 || (rest[0] != 'R' && rest[0] != 'r') || rest.substr(1, 3) != "ank") continue;
    int lower = rest[0] == 'r' ? 1 : 0;
    for (int spaced : {1, 0}) {
      int tag = lower + (spaced ? 0 : 2);
      if (seen[tag] || (spaced && (rest.size() < 5 || rest[4] != ' '))) continue;
      seen[tag] = true;
      size_t from = spaced ? 5 : 4;
      size_t d = readInt(rest, from, n);
      if (d > 0 && n < kMaxRankNumber && from + d < rest.size() && rest[from + d] == ']') found[tag] = static_cast<int>(n);
    }
    if (seen[0] && seen[1] && seen[2] && seen[3]) break;
  }
  for (int r : found)
    if (r >= 0) return r;
  // The NCCL watchdog's prefix: "[PG ID 0 PG GUID 0(default_pg) Rank 2]" or "[PG 0 Rank 2]".
  if (m.rfind("[PG ", 0) == 0) {
    size_t close = m.find(']');
    size_t at = m.rfind(" Rank ", close);
    if (close != std::string_view::npos && at != std::string_view::npos) {
      size_t d = readInt(m, at + 6, n);
      if (d > 0 && n < kMaxRankNumber && at + 6 + d == close) return static_cast<int>(n);
    }
  }
  for (std::string_view tag : {std::string_view("Rank "), std::string_view("rank ")}) {
    if (m.substr(0, tag.size()) != tag) continue;
    size_t d = readInt(m, tag.size(), n);
    if (d > 0 && n < kMaxRankNumber && tag.size() + d < m.size() && m[tag.size() + d] == ':') return static_cast<int>(n);
  }
  return -1;
}

}  // namespace

namespace {

// Ray's worker prefix: "(WorkerDict pid=1234) " or "(RayTrainWorker pid=1234, ip=10.0.0.1) ".
size_t parseRayPrefix(std::string_view s) {
  if (s.empty() || s[0] != '(') return 0;
  size_t close = s.find(") ");
  if (close == std::string_view::npos || close > 96) return 0;
  std::string_view inside = s.substr(1, close - 1);
  size_t pid = inside.find(" pid=");
  if (pid == 0 || pid == std::string_view::npos) return 0;
  for (size_t i = 0; i < pid; ++i)
    if (!text::isIdent(inside[i])) return 0;
  long long n = 0;
  if (readInt(inside, pid + 5, n) == 0) return 0;
  return close + 2;
}

// A progress bar that another line was glued onto: "  5%|▍   | 200/4443 [11:11<25:23, 2.1s/it]W0613 ..."
// Returns the bar's length (0: none, or nothing after it).
size_t gluedBar(std::string_view t) {
  // A bar has a '|' before its rate; most lines have none, and memchr says so at SIMD speed.
  const void* pipe = t.empty() ? nullptr : std::memchr(t.data(), '|', t.size());
  if (!pipe) return 0;
  size_t bar = static_cast<const char*>(pipe) - t.data();
  // tqdm's rate ends the bar: "...it/s]" or "...s/it]". Look only at the ']' characters, from
  // the last one back (memrchr: string_view::rfind compares one byte at a time).
  for (size_t end = t.size(); end > 4;) {
    const void* found = memrchr(t.data(), ']', end);
    if (!found) break;
    size_t close = static_cast<const char*>(found) - t.data();
    if (close < 4) break;
    end = close;
    std::string_view rate = t.substr(close - 4, 4);
    if (rate != "it/s" && rate != "s/it") continue;
    size_t at = close + 1;
    if (at >= t.size() || t.find_first_not_of(" \t", at) == std::string_view::npos) return 0;
    return bar < close ? at : 0;
  }
  return 0;
}

// A platform's pod or node prefix in brackets: "[job-master-0] ", "[worker-3]: " (Kubeflow and
// similar job runners that merge the logs of several pods). Lower case with a digit, so
// "[INFO]", "[E ProcessGroupNCCL.cpp:566]" and timestamps never match.
size_t parseBracketHost(std::string_view s, std::string& host) {
  if (s.size() < 4 || s[0] != '[' || !text::isLower(s[1])) return 0;
  size_t close = s.find(']');
  if (close == std::string_view::npos || close > 64) return 0;
  bool digit = false;
  for (size_t i = 1; i < close; ++i) {
    char c = s[i];
    if (!(text::isLower(c) || isDigit(c) || c == '-' || c == '_' || c == '.')) return 0;
    digit |= isDigit(c);
  }
  size_t end = close + 1;
  if (end < s.size() && s[end] == ':') ++end;
  if (!digit || end >= s.size() || s[end] != ' ') return 0;
  host = std::string(s.substr(1, close - 1));
  return end;
}

// Paste noise, removed before anything else reads the line.
void stripPasteNoise(CleanLine& line) {
  // Markdown: a quoted paste ("> Traceback ...") and bold markers ("**RuntimeError: ...**").
  std::string_view t = line.text;
  if (t.size() >= 2 && t[0] == '>' && t[1] == ' ') eraseClean(line, 0, 2);
  else if (t == ">") eraseClean(line, 0, 1);
  if (line.text.rfind("**", 0) == 0) {
    for (size_t at = line.text.find("**"); at != std::string::npos; at = line.text.find("**", at)) eraseClean(line, at, 2);
  }
}

}  // namespace

bool isProgressBar(std::string_view message) {
  std::string_view t = text::trim(message);
  if (t.size() < 12 || t.back() != ']') return false;
  // The bar: a percentage, then the bar between two '|'; then the counts and, in the brackets
  // that end the line, the rate.
  size_t bar = t.find("%|");
  if (bar == std::string_view::npos) return false;
  size_t barEnd = t.find('|', bar + 2);
  if (barEnd == std::string_view::npos) return false;
  size_t open = t.rfind('[');
  if (open == std::string_view::npos || open < barEnd) return false;
  std::string_view brackets = t.substr(open);
  return brackets.find("it/s") != std::string_view::npos || brackets.find("s/it") != std::string_view::npos;
}

ParsedLine parseLine(std::string_view raw, uint32_t source, uint64_t lineNo) {
  ParsedLine out;
  parseLineInto(raw, source, lineNo, out);
  out.clean.own();  // a value that outlives `raw`
  return out;
}

void parseLineInto(std::string_view raw, uint32_t source, uint64_t lineNo, ParsedLine& out) {
  out.source = source;
  out.lineNo = lineNo;
  out.host.clear();
  out.timestamp.clear();
  cleanLineInto(raw, out.clean);
  stripPasteNoise(out.clean);
  int rank = -1;
  size_t p = parsePrefix(out.clean.text, rank);
  if (p == 0) p = parseHostPrefix(out.clean.text, out.host);
  if (p == 0) p = parseRayPrefix(out.clean.text);
  if (p == 0) p = parseBracketHost(out.clean.text, out.host);
  if (rank < 0) rank = rankFromText(std::string_view(out.clean.text).substr(p));
  out.rank = rank;
  std::string_view rest = std::string_view(out.clean.text).substr(p);
  // torchrun and srun leave one space between the prefix and the message.
  if (p > 0 && !rest.empty() && rest[0] == ' ') ++p;
  out.messageBegin = p;
  // The bar stays in the message (rules may read it); the timestamp and the body come after it.
  size_t q = p + gluedBar(std::string_view(out.clean.text).substr(p));
  out.bodyBegin = q;
  std::string_view message = std::string_view(out.clean.text).substr(q);
  if (auto ts = matchTimestamp(message)) {
    out.timestamp.assign(message.substr(ts->begin, ts->end - ts->begin));
    // The body starts after the timestamp (and its closing bracket) and the spaces after it.
    size_t b = ts->end;
    if (ts->begin > 0 && b < message.size() && message[b] == ']') ++b;
    if (b < message.size() && message[b] == ' ') {
      while (b < message.size() && message[b] == ' ') ++b;
      out.bodyBegin = q + b;
    }
  }
}

bool maskLineSecrets(ParsedLine& line) {
  if (!mayHoldSecret(line.clean.text)) return false;
  std::string text(line.clean.text);
  if (!maskSecretsFound(text)) return false;
  line.clean.owned = std::move(text);
  line.clean.text = line.clean.owned;
  return true;
}

}  // namespace denpex::core
