// Launcher prefixes, timestamps, metric samples and tracebacks (see log_parser.h).
#include "core/log_parser.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>

namespace denpex::core {
namespace {

bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isIdent(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Reads decimal digits at s[i...]; returns the count read.
size_t readInt(std::string_view s, size_t i, long long& value) {
  size_t j = i;
  value = 0;
  while (j < s.size() && isDigit(s[j]) && j - i < 9) value = value * 10 + (s[j++] - '0');
  return j - i;
}

// Launcher prefixes. Returns the length of the prefix consumed, 0 when there is none.
size_t parsePrefix(std::string_view s, int& rank) {
  long long n = 0;
  // torchrun --tee: "[rank3]:" (torch >= 2.2) or "[default3]:" (older)
  for (std::string_view tag : {std::string_view("[rank"), std::string_view("[default")}) {
    if (s.substr(0, tag.size()) == tag) {
      size_t d = readInt(s, tag.size(), n);
      size_t p = tag.size() + d;
      if (d > 0 && p + 1 < s.size() + 1 && s.substr(p, 2) == "]:") {
        rank = static_cast<int>(n);
        return p + 2;
      }
    }
  }
  // mpirun --tag-output: "[1,3]<stderr>:" or "[1,3]<stdout>:"
  if (s.size() > 1 && s[0] == '[') {
    long long job = 0;
    size_t d1 = readInt(s, 1, job);
    if (d1 > 0 && 1 + d1 < s.size() && s[1 + d1] == ',') {
      size_t d2 = readInt(s, 2 + d1, n);
      size_t p = 2 + d1 + d2;
      if (d2 > 0 && p < s.size() && s[p] == ']') {
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
  if (d > 0 && d <= 5 && i + d + 1 < s.size() && s[i + d] == ':' && s[i + d + 1] == ' ') {
    rank = static_cast<int>(n);
    return i + d + 1;
  }
  return 0;
}

// Timestamps at the start of a message: ISO 8601 / Python logging ("2024-05-01 12:00:00,123"),
// optionally in brackets, and glog ("I0501 12:00:00.123456"). Returns the text, or empty.
std::string parseTimestamp(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && s[i] == ' ') ++i;
  if (i < s.size() && s[i] == '[') ++i;
  auto digitsAt = [&](size_t at, size_t count) {
    if (at + count > s.size()) return false;
    for (size_t k = 0; k < count; ++k)
      if (!isDigit(s[at + k])) return false;
    return true;
  };
  size_t begin = i;
  size_t end = 0;
  if (digitsAt(i, 4) && i + 10 <= s.size() && s[i + 4] == '-' && digitsAt(i + 5, 2) &&
      s[i + 7] == '-' && digitsAt(i + 8, 2)) {
    end = i + 10;
    if (end + 9 <= s.size() && (s[end] == ' ' || s[end] == 'T') && digitsAt(end + 1, 2) &&
        s[end + 3] == ':' && digitsAt(end + 4, 2) && s[end + 6] == ':' && digitsAt(end + 7, 2)) {
      end += 9;
      if (end < s.size() && (s[end] == '.' || s[end] == ',')) {
        size_t j = end + 1;
        while (j < s.size() && isDigit(s[j])) ++j;
        if (j > end + 1) end = j;
      }
      if (end < s.size() && s[end] == 'Z') ++end;
    }
  } else if (i < s.size() && std::string_view("IWEF").find(s[i]) != std::string_view::npos &&
             digitsAt(i + 1, 4) && i + 14 <= s.size() && s[i + 5] == ' ' && digitsAt(i + 6, 2) &&
             s[i + 8] == ':' && digitsAt(i + 9, 2) && s[i + 11] == ':' && digitsAt(i + 12, 2)) {
    end = i + 14;
    if (end < s.size() && s[end] == '.') {
      size_t j = end + 1;
      while (j < s.size() && isDigit(s[j])) ++j;
      end = j;
    }
  }
  return end ? std::string(s.substr(begin, end - begin)) : std::string();
}

std::string_view trimRight(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
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
    if (!(std::islower(static_cast<unsigned char>(c)) || isDigit(c) || c == '-' || c == '.' || c == '_')) return 0;
    digit |= isDigit(c);
    ++i;
  }
  if (i == 0 || !digit || i + 1 >= s.size() || s[i] != ':' || s[i + 1] != ' ') return 0;
  if (!std::islower(static_cast<unsigned char>(s[0]))) return 0;
  host = std::string(s.substr(0, i));
  return i + 1;
}

// A rank named by the message itself: "[Rank 3]" (DeepSpeed's log_dist, NCCL's watchdog),
// "[rank3]", or "Rank 3:" / "rank 3:" at the start.
int rankFromText(std::string_view m) {
  long long n = 0;
  for (std::string_view tag : {std::string_view("[Rank "), std::string_view("[rank "), std::string_view("[Rank"),
                               std::string_view("[rank")}) {
    size_t at = m.find(tag);
    if (at == std::string_view::npos) continue;
    size_t d = readInt(m, at + tag.size(), n);
    if (d > 0 && at + tag.size() + d < m.size() && m[at + tag.size() + d] == ']') return static_cast<int>(n);
  }
  // The NCCL watchdog's prefix: "[PG ID 0 PG GUID 0(default_pg) Rank 2]" or "[PG 0 Rank 2]".
  if (m.rfind("[PG ", 0) == 0) {
    size_t close = m.find(']');
    size_t at = m.rfind(" Rank ", close);
    if (close != std::string_view::npos && at != std::string_view::npos) {
      size_t d = readInt(m, at + 6, n);
      if (d > 0 && at + 6 + d == close) return static_cast<int>(n);
    }
  }
  for (std::string_view tag : {std::string_view("Rank "), std::string_view("rank ")}) {
    if (m.substr(0, tag.size()) != tag) continue;
    size_t d = readInt(m, tag.size(), n);
    if (d > 0 && tag.size() + d < m.size() && m[tag.size() + d] == ':') return static_cast<int>(n);
  }
  return -1;
}

}  // namespace

ParsedLine parseLine(std::string_view raw, uint32_t source, uint64_t lineNo) {
  ParsedLine out;
  out.source = source;
  out.lineNo = lineNo;
  out.clean = cleanLine(raw);
  int rank = -1;
  size_t p = parsePrefix(out.clean.text, rank);
  if (p == 0) p = parseHostPrefix(out.clean.text, out.host);
  if (rank < 0) rank = rankFromText(std::string_view(out.clean.text).substr(p));
  out.rank = rank;
  std::string_view rest = std::string_view(out.clean.text).substr(p);
  // torchrun and srun leave one space between the prefix and the message.
  if (p > 0 && !rest.empty() && rest[0] == ' ') ++p;
  out.messageBegin = p;
  out.timestamp = parseTimestamp(std::string_view(out.clean.text).substr(p));
  return out;
}

namespace {

enum class Field { kStep, kLoss, kGradNorm, kLr, kLossScale };

struct Key {
  std::string_view text;  // lower case
  Field field;
};

constexpr std::array<Key, 17> kKeys{{
    {"loss scale", Field::kLossScale},
    {"loss_scale", Field::kLossScale},
    {"train/loss", Field::kLoss},
    {"train_loss", Field::kLoss},
    {"training_loss", Field::kLoss},
    {"loss", Field::kLoss},
    {"grad_norm", Field::kGradNorm},
    {"grad norm", Field::kGradNorm},
    {"grad-norm", Field::kGradNorm},
    {"gnorm", Field::kGradNorm},
    {"total_norm", Field::kGradNorm},
    {"learning_rate", Field::kLr},
    {"learning rate", Field::kLr},
    {"lr", Field::kLr},
    {"global_step", Field::kStep},
    {"iteration", Field::kStep},
    {"step", Field::kStep},
}};

// Parses a number (nan and inf included) at s[i...]; returns the bytes consumed or 0.
size_t readNumber(std::string_view s, size_t i, double& value) {
  size_t j = i;
  if (j < s.size() && (s[j] == '-' || s[j] == '+')) ++j;
  bool special = false;
  for (std::string_view word : {std::string_view("nan"), std::string_view("inf")}) {
    if (s.size() - j >= 3) {
      std::string lower(s.substr(j, 3));
      std::transform(lower.begin(), lower.end(), lower.begin(),
                     [](unsigned char c) { return std::tolower(c); });
      if (lower == word) special = true;
    }
  }
  if (!special && (j >= s.size() || !(isDigit(s[j]) || s[j] == '.'))) return 0;
  std::string copy(s.substr(i, std::min<size_t>(64, s.size() - i)));
  char* end = nullptr;
  value = std::strtod(copy.c_str(), &end);
  size_t used = static_cast<size_t>(end - copy.c_str());
  if (used == 0) return 0;
  if (special && i + used < s.size() && std::isalpha(static_cast<unsigned char>(s[i + used]))) {
    // "infinity" is a number, "info" is not.
    std::string tail(s.substr(i + used, 5));
    std::transform(tail.begin(), tail.end(), tail.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    if (tail.rfind("inity", 0) != 0) return 0;
    used += 5;
  }
  return used;
}

bool evalWordBefore(std::string_view lower, size_t keyPos) {
  // "val loss", "eval loss", "validation loss", "test loss" are not training losses.
  size_t end = keyPos;
  while (end > 0 && (lower[end - 1] == ' ' || lower[end - 1] == '_')) --end;
  size_t begin = end;
  while (begin > 0 && std::isalpha(static_cast<unsigned char>(lower[begin - 1]))) --begin;
  std::string_view word = lower.substr(begin, end - begin);
  return word == "val" || word == "eval" || word == "validation" || word == "valid" ||
         word == "test" || word == "dev";
}

}  // namespace

MetricSample extractMetrics(std::string_view message) {
  MetricSample sample;
  if (message.size() > 4096) message = message.substr(0, 4096);
  thread_local std::string lower;
  lower.assign(message);
  for (char& c : lower)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
  // One pass: at each word start that can begin a key, try the keys (longest first), read the
  // value after the first one that fits, and record it unless that field was already set.
  for (size_t at = 0; at < lower.size(); ++at) {
    char first = lower[at];
    if (first != 'l' && first != 't' && first != 'g' && first != 's' && first != 'i') continue;
    if (at > 0 && (isIdent(lower[at - 1]) || lower[at - 1] == '/' || lower[at - 1] == '-')) continue;
    for (const Key& key : kKeys) {
      if (key.text[0] != first || lower.compare(at, key.text.size(), key.text) != 0) continue;
      size_t after = at + key.text.size();
      if (after < lower.size() && (isIdent(lower[after]) || lower[after] == '/')) continue;
      if (key.field == Field::kLoss && evalWordBefore(lower, at)) continue;
      size_t i = after;
      auto skip = [&](std::string_view chars) {
        while (i < lower.size() && chars.find(lower[i]) != std::string_view::npos) ++i;
      };
      skip("'\" ");
      if (i < lower.size() && (lower[i] == ':' || lower[i] == '=')) ++i;
      else if (lower.compare(i, 3, "is ") == 0) i += 3;  // "loss is nan at step 2"
      skip("'\" ");
      if (lower.compare(i, 7, "tensor(") == 0) i += 7;
      double value = 0;
      size_t used = readNumber(message, i, value);
      if (used == 0) continue;
      switch (key.field) {
        case Field::kStep:
          if (!sample.step && value >= 0) sample.step = static_cast<long long>(value);
          break;
        case Field::kLoss:
          if (!sample.loss) sample.loss = value;
          break;
        case Field::kGradNorm:
          if (!sample.gradNorm) sample.gradNorm = value;
          break;
        case Field::kLr:
          if (!sample.lr) sample.lr = value;
          break;
        case Field::kLossScale:
          if (!sample.lossScale) sample.lossScale = value;
          break;
      }
      at = i + used - 1;
      break;
    }
  }
  return sample;
}

bool isUserFile(std::string_view path) {
  for (std::string_view marker :
       {std::string_view("site-packages"), std::string_view("dist-packages"),
        std::string_view("/lib/python"), std::string_view("\\lib\\python"),
        std::string_view("<frozen"), std::string_view("<string>"), std::string_view("<stdin>")}) {
    if (path.find(marker) != std::string_view::npos) return false;
  }
  return !path.empty();
}

const Frame* Traceback::userFrame() const {
  for (auto rec = chain.rbegin(); rec != chain.rend(); ++rec) {
    for (auto frame = rec->frames.rbegin(); frame != rec->frames.rend(); ++frame) {
      if (frame->user) return &*frame;
    }
  }
  return nullptr;
}

TracebackTracker::Open* TracebackTracker::find(uint32_t source, int rank) {
  for (auto& open : open_)
    if (open.source == source && open.rank == rank) return &open;
  return nullptr;
}

void TracebackTracker::emit(Open& open, std::vector<Traceback>& done) {
  if (!open.tb.chain.empty() && !open.tb.chain.back().type.empty()) done.push_back(std::move(open.tb));
  size_t index = static_cast<size_t>(&open - open_.data());
  open_.erase(open_.begin() + static_cast<std::ptrdiff_t>(index));
}

namespace {

bool parseFrame(std::string_view msg, Frame& frame) {
  // '  File "train.py", line 42, in main'
  size_t i = msg.find_first_not_of(' ');
  if (i == std::string_view::npos || msg.substr(i, 6) != "File \"") return false;
  size_t q = msg.find("\", line ", i + 6);
  if (q == std::string_view::npos) return false;
  frame.file = std::string(msg.substr(i + 6, q - (i + 6)));
  long long n = 0;
  size_t d = readInt(msg, q + 8, n);
  if (d == 0) return false;
  frame.line = static_cast<int>(n);
  size_t in = msg.find(", in ", q + 8 + d);
  if (in != std::string_view::npos) frame.function = std::string(trimRight(msg.substr(in + 5)));
  frame.user = isUserFile(frame.file);
  return true;
}

bool parseExceptionLine(std::string_view msg, ExceptionRecord& rec) {
  msg = trimRight(msg);
  if (msg.empty() || msg[0] == ' ' || msg[0] == '\t') return false;
  size_t i = 0;
  while (i < msg.size() && (isIdent(msg[i]) || msg[i] == '.')) ++i;
  if (i == 0 || !(std::isalpha(static_cast<unsigned char>(msg[0])) || msg[0] == '_')) return false;
  if (i < msg.size() && msg[i] != ':') return false;
  rec.type = std::string(msg.substr(0, i));
  if (i < msg.size()) {
    size_t m = i + 1;
    while (m < msg.size() && msg[m] == ' ') ++m;
    rec.message = std::string(msg.substr(m));
  }
  return true;
}

constexpr std::string_view kHeader = "Traceback (most recent call last):";

bool isChainMarker(std::string_view msg) {
  // torch.multiprocessing.spawn re-raises a child's error in the parent as
  // "ProcessRaisedException:" followed by "-- Process 1 terminated with the following error:"
  // and the child's traceback: one failure, the child's.
  if (msg.rfind("-- Process ", 0) == 0 && msg.find("terminated with the following error:") != std::string_view::npos)
    return true;
  return msg == "During handling of the above exception, another exception occurred:" ||
         msg == "The above exception was the direct cause of the following exception:";
}

}  // namespace

void TracebackTracker::add(const ParsedLine& line, std::vector<Traceback>& done) {
  std::string_view msg = trimRight(line.message());
  Open* open = find(line.source, line.rank);
  if (msg == kHeader) {
    if (open && !open->awaitingChain) {
      emit(*open, done);
      open = nullptr;
    }
    if (!open) {
      open_.push_back({});
      open = &open_.back();
      open->rank = line.rank;
      open->source = line.source;
      open->tb.source = line.source;
      open->tb.rank = line.rank;
      open->tb.firstLine = line.lineNo;
      open->tb.timestamp = line.timestamp;
    }
    open->tb.chain.push_back({});
    open->awaitingChain = false;
    open->tb.lastLine = line.lineNo;
    return;
  }
  if (!open) return;
  ExceptionRecord& rec = open->tb.chain.back();
  if (!rec.type.empty()) {
    // The block ended with its exception line; only a chain marker or blank lines continue it.
    if (msg.empty()) return;
    if (isChainMarker(msg)) {
      open->awaitingChain = true;
      open->tb.lastLine = line.lineNo;
      return;
    }
    if (open->awaitingChain) return;
    emit(*open, done);
    return;
  }
  Frame frame;
  if (parseFrame(msg, frame)) {
    frame.source = line.source;
    frame.logLine = line.lineNo;
    rec.frames.push_back(std::move(frame));
    open->tb.lastLine = line.lineNo;
    return;
  }
  if (msg.empty() || msg[0] == ' ' || msg[0] == '\t' || msg[0] == '[') {
    // Source lines, caret markers, "[Previous line repeated N more times]".
    open->tb.lastLine = line.lineNo;
    return;
  }
  if (parseExceptionLine(msg, rec)) {
    rec.line = line.lineNo;
    rec.begin = line.clean.toRaw(line.messageBegin);
    rec.end = line.clean.toRawEnd(line.messageBegin + msg.size());
    open->tb.lastLine = line.lineNo;
    return;
  }
  // Something else interrupted the block before its exception line: it cannot be diagnosed as
  // a traceback, and its lines stay plain messages.
  emit(*open, done);
}

void TracebackTracker::flush(std::vector<Traceback>& done) {
  while (!open_.empty()) {
    Open& open = open_.back();
    if (!open.tb.chain.empty() && open.tb.chain.back().type.empty() && open.tb.chain.size() > 1)
      open.tb.chain.pop_back();
    emit(open, done);
  }
}

}  // namespace denpex::core
