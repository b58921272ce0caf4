// Python tracebacks, followed line by line per input and rank (see traceback.h).
#include "core/parse/traceback.h"

#include <algorithm>
#include <cctype>
#include <cstddef>

#include "core/base/text.h"

namespace denpex::core {
namespace {
using text::isIdent;
using text::readInt;
using text::trimRight;
}  // namespace

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

// "Type: message" (or a bare "Type"), as views into `msg`; false when the line is not one.
bool exceptionHead(std::string_view msg, std::string_view& type, std::string_view& message) {
  msg = trimRight(msg);
  if (msg.empty() || msg[0] == ' ' || msg[0] == '\t') return false;
  size_t i = 0;
  while (i < msg.size() && (isIdent(msg[i]) || msg[i] == '.')) ++i;
  if (i == 0 || !(text::isAlpha(msg[0]) || msg[0] == '_')) return false;
  if (i < msg.size() && msg[i] != ':') return false;
  type = msg.substr(0, i);
  message = {};
  if (i < msg.size()) {
    size_t m = i + 1;
    while (m < msg.size() && msg[m] == ' ') ++m;
    message = msg.substr(m);
  }
  return true;
}

// An exception line whose message is on the lines below it: "RuntimeError: " (str(e) began with
// a newline; an exception with no message at all prints its bare type, without a colon), or a
// wrapper that names the exception it wraps on the next line: torch.compile's
// "BackendCompilerFailed: backend='inductor' raised:" then "AssertionError: Invalid match!",
// one failure. `msg` is trimmed on the right.
bool messageBelow(std::string_view msg, const ExceptionRecord& rec) {
  if (rec.type.empty() || msg.empty() || msg.back() != ':') return false;
  return rec.message.empty() || text::endsWith(rec.message, " raised:");
}

bool parseExceptionLine(std::string_view msg, ExceptionRecord& rec) {
  std::string_view type, message;
  if (!exceptionHead(msg, type, message)) return false;
  rec.type = std::string(type);
  rec.message = std::string(message);
  return true;
}

constexpr std::string_view kHeader = "Traceback (most recent call last):";

// A line that carries on an exception's message after its exception line: an indented one
// ("\tMissing key(s) in state_dict: ...", "    Solution: ..."), or one of the error lines that
// Ascend's torch_npu appends to its messages, where the failure is named: "[ERROR] 2024-05-21-
// 11:57:54 (PID:927000, Device:3, RankID:3) ERR02200 DIST call hccl api failed." and CANN's codes,
// "EI0006: ...", "EJ0001: ...". `msg` is trimmed on the right and not empty.
bool continuesMessage(std::string_view msg) {
  if (msg[0] == ' ' || msg[0] == '\t') return true;
  if (text::startsWith(msg, "[ERROR] ")) return true;
  return msg.size() > 7 && msg[0] == 'E' && msg[1] >= 'A' && msg[1] <= 'Z' && text::isDigit(msg[2]) && text::isDigit(msg[3]) &&
         text::isDigit(msg[4]) && text::isDigit(msg[5]) && msg[6] == ':';
}

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

namespace {

// An exception line with no traceback above it (an excerpt that starts late, a notebook or a
// rich box traceback, a library that prints only the error): the type must name an error, so
// that "UserWarning: ..." and "Note: ..." are not taken for failures. torch.compile's wrapper,
// BackendCompilerFailed, is named otherwise and is one.
bool isBareException(std::string_view type) {
  size_t dot = type.rfind('.');
  std::string_view last = dot == std::string_view::npos ? type : type.substr(dot + 1);
  return type.size() <= 80 &&
         (text::endsWith(last, "Error") || text::endsWith(last, "Exception") || last == "BackendCompilerFailed");
}

bool isBareException(const ExceptionRecord& rec) { return isBareException(std::string_view(rec.type)); }

}  // namespace

bool isExceptionLine(std::string_view line) {
  ExceptionRecord rec;
  return parseExceptionLine(trimRight(line), rec) && isBareException(rec) && line.find(':') != std::string_view::npos;
}

namespace {

// Python's report of an exception it goes on from: "Exception ignored in: <function
// _MultiProcessingDataLoaderIter.__del__ at 0x...>" (3.8 and later; a bound method before), and
// the "Exception ignored while ..." and "Exception ignored on ..." of newer releases.
bool isPythonIgnoredNotice(std::string_view msg) { return text::startsWith(text::trim(msg), "Exception ignored "); }

// Or a library's notice above a traceback it logs as a warning (TracebackTracker::
// loggedExceptionNotices()): a search, for the lines add() is given only.
bool isIgnoredNotice(std::string_view msg) {
  return isPythonIgnoredNotice(msg) || TracebackTracker::announcesLoggedException(msg);
}

// A frame of Python's exit machinery: weakref.finalize's handler, which prints what a finalizer
// raised at exit (tempfile's clean-up of a TemporaryDirectory, say) with no notice above it.
bool runsAtExit(const Frame& f) {
  return f.function == "_exitfunc" && (text::endsWith(f.file, "/weakref.py") || text::endsWith(f.file, "\\weakref.py"));
}

// How many log lines below its notice an ignored exception's record may start (a traceback
// header on the next line; a pasted excerpt may skip a few).
constexpr uint64_t kIgnoredReach = 8;
// Notices waiting for their record, at most (each rank of a big job may print one at once).
constexpr size_t kIgnoredKept = 64;

}  // namespace

bool TracebackTracker::takeIgnored(uint32_t source, int rank, uint64_t line) {
  bool found = false;
  for (auto it = ignored_.begin(); it != ignored_.end();) {
    if (it->source == source && it->rank == rank) {
      found |= line >= it->line && line - it->line <= kIgnoredReach;
      it = ignored_.erase(it);
    } else {
      ++it;
    }
  }
  return found;
}

const std::vector<std::string_view>& TracebackTracker::loggedExceptionNotices() {
  static const std::vector<std::string_view>& kNotices = *new std::vector<std::string_view>{
      "A matching Triton is not available, some optimizations will not be enabled",
      // Python 3.11 and earlier, above the traceback of an atexit callback that raised (3.12
      // says "Exception ignored in atexit callback", one of the "Exception ignored" notices).
      "Error in atexit._run_exitfuncs:",
  };
  return kNotices;
}

bool TracebackTracker::announcesLoggedException(std::string_view body) {
  for (std::string_view notice : loggedExceptionNotices())
    if (body.find(notice) != std::string_view::npos) return true;
  return false;
}

bool TracebackTracker::startsRecord(std::string_view body) {
  std::string_view msg = trimRight(body);
  if (msg == kHeader || isPythonIgnoredNotice(msg)) return true;  // a library's notice: see line_facts
  std::string_view type, message;
  return exceptionHead(msg, type, message) && isBareException(type);
}

bool TracebackTracker::hasOpen(uint32_t source, int rank) const {
  if (hasBare_) return true;  // the next line of any input and rank decides whether it goes on
  for (const auto& open : open_)
    if (open.source == source && open.rank == rank) return true;
  return false;
}

void TracebackTracker::add(const ParsedLine& line, std::vector<Traceback>& done) {
  std::string_view msg = trimRight(line.body());
  if (hasBare_) {
    if (line.source == bare_.source && line.rank == bare_.rank && !msg.empty() && continuesMessage(msg)) {
      bare_.lastLine = line.lineNo;
      return;
    }
    done.push_back(std::move(bare_));
    hasBare_ = false;
  }
  Open* open = find(line.source, line.rank);
  if (isIgnoredNotice(msg)) {
    if (open) emit(*open, done);  // a record of this rank ends here
    takeIgnored(line.source, line.rank, line.lineNo);  // an earlier notice with no record
    if (ignored_.size() >= kIgnoredKept) ignored_.erase(ignored_.begin());  // a flood of notices stays cheap
    ignored_.push_back({line.source, line.rank, line.lineNo});
    return;
  }
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
      open->tb.ignored = takeIgnored(line.source, line.rank, line.lineNo);
    }
    open->tb.chain.push_back({});
    open->awaitingChain = false;
    open->tb.lastLine = line.lineNo;
    return;
  }
  if (open) {
    ExceptionRecord& rec = open->tb.chain.back();
    if (!rec.type.empty()) {
      // The block ended with its exception line; only a chain marker or blank lines continue it,
      // and the message of a line that ended with its colon.
      if (msg.empty()) return;
      if (open->awaitingMessage && !isChainMarker(msg) && msg != kHeader) {
        // A rule of '=' or '-' above the text (torchrun's ChildFailedError) is part of it.
        open->tb.lastLine = line.lineNo;
        if (std::none_of(msg.begin(), msg.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)); })) return;
        open->awaitingMessage = false;
        if (!rec.message.empty()) {
          // After a wrapper's "raised:": the wrapped exception is the failure, at its own line,
          // under the wrapper's frames (and its message may again be on the line below).
          ExceptionRecord inner;
          if (parseExceptionLine(msg, inner)) {
            rec.type = std::move(inner.type);
            rec.message = std::move(inner.message);
            rec.line = line.lineNo;
            rec.begin = line.clean.toRaw(line.bodyBegin);
            rec.end = line.clean.toRawEnd(line.bodyBegin + msg.size());
            open->awaitingMessage = rec.message.empty() && msg.back() == ':';
            return;
          }
        }
        rec.message = std::string(text::trim(msg));
        return;
      }
      open->awaitingMessage = false;
      if (isChainMarker(msg)) {
        open->awaitingChain = true;
        open->tb.lastLine = line.lineNo;
        return;
      }
      if (open->awaitingChain) return;
      if (continuesMessage(msg)) {
        open->tb.lastLine = line.lineNo;  // its evidence explains the exception (ExceptionGroups)
        return;
      }
      emit(*open, done);  // and the line is read on its own below
    } else {
      Frame frame;
      if (parseFrame(msg, frame)) {
        frame.source = line.source;
        frame.logLine = line.lineNo;
        // The outermost frame of the first record says who called: an exit handler means the
        // program had finished when this was raised (and Python reports it, then exits as it
        // would have).
        if (rec.frames.empty() && open->tb.chain.size() == 1 && runsAtExit(frame)) open->tb.ignored = true;
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
        rec.begin = line.clean.toRaw(line.bodyBegin);
        rec.end = line.clean.toRawEnd(line.bodyBegin + msg.size());
        open->tb.lastLine = line.lineNo;
        open->awaitingMessage = messageBelow(msg, rec);
        return;
      }
      // Something else interrupted the block before its exception line: it cannot be diagnosed
      // as a traceback, and its lines stay plain messages.
      emit(*open, done);
    }
  }
  ExceptionRecord rec;
  if (!parseExceptionLine(msg, rec) || !isBareException(rec)) return;
  rec.line = line.lineNo;
  rec.begin = line.clean.toRaw(line.bodyBegin);
  rec.end = line.clean.toRawEnd(line.bodyBegin + msg.size());
  Traceback tb;
  tb.source = line.source;
  tb.rank = line.rank;
  tb.firstLine = tb.lastLine = line.lineNo;
  tb.timestamp = line.timestamp;
  tb.ignored = takeIgnored(line.source, line.rank, line.lineNo);
  bool below = messageBelow(msg, rec);
  tb.chain.push_back(std::move(rec));
  if (!below) {
    bare_ = std::move(tb);
    hasBare_ = true;
    return;
  }
  // Kept open for the line that holds its message.
  open_.push_back({});
  Open& waiting = open_.back();
  waiting.rank = line.rank;
  waiting.source = line.source;
  waiting.tb = std::move(tb);
  waiting.awaitingMessage = true;
}

void TracebackTracker::flush(std::vector<Traceback>& done) {
  if (hasBare_) {  // emitted at its own line before, ahead of the records still open
    done.push_back(std::move(bare_));
    hasBare_ = false;
  }
  // In the order they began, so that the first of two copies of one traceback (a rank's
  // stderr.log, then torchrun's error.json) is the one that stands for it.
  while (!open_.empty()) {
    Open& open = open_.front();
    if (!open.tb.chain.empty() && open.tb.chain.back().type.empty() && open.tb.chain.size() > 1)
      open.tb.chain.pop_back();
    emit(open, done);
  }
}

}  // namespace denpex::core
