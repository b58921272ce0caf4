// Python tracebacks (chained ones included) followed line by line, per input and rank: lines of
// different ranks may interleave. A TracebackTracker is a plain value: copyable, not
// thread-safe, owned by one diagnoser.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/parse/log_line.h"

namespace denpex::core {

struct Frame {
  std::string file;
  int line = 0;
  std::string function;
  uint32_t source = 0;
  uint64_t logLine = 0;
  bool user = false;  // not the standard library, site-packages or dist-packages
};

// True for a line that reads like a raised error: "IndexError: index 7 is out of bounds", a
// dotted type name ending in Error or Exception, a colon, the message ("UserWarning: ..." is not).
bool isExceptionLine(std::string_view line);

// True for a path that is the user's own code rather than an installed library.
bool isUserFile(std::string_view path);

struct ExceptionRecord {
  std::vector<Frame> frames;
  std::string type;     // e.g. "RuntimeError", "torch.cuda.OutOfMemoryError"
  std::string message;  // first line of the message
  uint64_t line = 0;    // log line of "Type: message"
  uint32_t begin = 0;   // byte columns of "Type: message" in the raw line
  uint32_t end = 0;
};

struct Traceback {
  uint32_t source = 0;
  int rank = -1;
  uint64_t firstLine = 0;
  uint64_t lastLine = 0;
  std::string timestamp;
  // Oldest first: with chained exceptions the last entry is the one that ended the program.
  std::vector<ExceptionRecord> chain;
  // Printed under Python's "Exception ignored in: <...>" (an exception raised in a __del__, a
  // callback or a thread's shutdown, which Python reports and then goes on from): it did not
  // stop the program.
  bool ignored = false;

  const ExceptionRecord& final() const { return chain.back(); }
  // The innermost user frame of the final exception, else of the exceptions before it.
  const Frame* userFrame() const;
};

// Follows traceback blocks line by line. One tracker serves all ranks; lines of different ranks
// may interleave. Finished tracebacks are appended to `done`. Copyable, so that a diagnosis can
// be taken from a snapshot while the log keeps growing.
class TracebackTracker {
 public:
  void add(const ParsedLine& line, std::vector<Traceback>& done);
  // Whether a line with this body (ParsedLine::body()) may start a record: a traceback header,
  // Python's "Exception ignored" notice, or an exception line with no traceback above it. Pure: a
  // caller may test lines ahead, on other threads, and give add() only those (and the lines
  // announcesLoggedException() is true of), and every line of an input and rank with hasOpen().
  static bool startsRecord(std::string_view body);
  // A library's notice that the traceback it logs next is only a warning, and the program goes
  // on: xFormers' "A matching Triton is not available, some optimizations will not be enabled"
  // above the ImportError of its optional kernels. Like Python's "Exception ignored in:", the
  // record below it is marked ignored. These are the phrases (a caller's scan may look for them
  // to know which lines to test); the test itself searches the body, so it is not for every line.
  static const std::vector<std::string_view>& loggedExceptionNotices();
  static bool announcesLoggedException(std::string_view body);
  bool hasOpen(uint32_t source, int rank) const;
  // Finishes blocks still open (a log cut off mid-traceback).
  void flush(std::vector<Traceback>& done);

 private:
  struct Open {
    int rank = -1;
    uint32_t source = 0;
    Traceback tb;
    bool awaitingChain = false;  // saw "During handling..." and waits for the next Traceback
    // The exception line ended with its colon ("RuntimeError: "): Python prints a message that
    // starts with a newline that way, so the message is on the next line that is not empty.
    bool awaitingMessage = false;
  };
  Open* find(uint32_t source, int rank);
  void emit(Open& open, std::vector<Traceback>& done);
  // An exception line with no traceback above it, kept for one line: the next one may carry on
  // its message (see continuesMessage in traceback.cpp). Any other line emits it first, so that
  // records are emitted in the order of their lines, as when it was emitted at once.
  Traceback bare_;
  bool hasBare_ = false;
  // "Exception ignored in: ..." seen on (source, rank) at a log line: the record that starts
  // there within kIgnoredReach lines is the ignored exception.
  struct Ignored {
    uint32_t source = 0;
    int rank = -1;
    uint64_t line = 0;
  };
  std::vector<Ignored> ignored_;
  bool takeIgnored(uint32_t source, int rank, uint64_t line);

  std::vector<Open> open_;
};

}  // namespace denpex::core
