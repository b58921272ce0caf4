// Log parser: what each line of a training log says, independent of any rule.
//
// Per line: the launcher prefix (which rank printed it), a timestamp, and the message that
// follows. Across lines: Python tracebacks (chained ones included) per rank, and metric
// samples (step, loss, grad norm, learning rate, loss scale) in the formats training loops
// commonly print. Parsing never fails: a line that fits no format is a plain message.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/log_text.h"

namespace denpex::core {

// One line after cleaning. Offsets in `message*` are into `clean.text`.
struct ParsedLine {
  uint32_t source = 0;    // which input (file) the line came from
  uint64_t lineNo = 0;    // 0-based line number in that input
  CleanLine clean;
  int rank = -1;          // -1: the line carries no rank
  std::string host;       // set by launchers that prefix a host name
  std::string timestamp;  // as printed, empty when none
  size_t messageBegin = 0;

  std::string_view message() const {
    return std::string_view(clean.text).substr(std::min(messageBegin, clean.text.size()));
  }
};

// Parses the launcher prefix and timestamp of one raw line.
ParsedLine parseLine(std::string_view raw, uint32_t source, uint64_t lineNo);

// A metric sample printed on one line. Fields the line did not print stay empty.
struct MetricSample {
  uint32_t source = 0;
  uint64_t lineNo = 0;
  std::optional<long long> step;
  std::optional<double> loss;
  std::optional<double> gradNorm;
  std::optional<double> lr;
  std::optional<double> lossScale;

  bool empty() const { return !loss && !gradNorm && !lr && !lossScale; }
};

// Recognises `step 3 | loss 2.1 | grad_norm 0.5`, `loss=nan`, `{'loss': nan, 'grad_norm': ...}`
// (Hugging Face Trainer), Lightning progress bars (`..., loss=2.31, v_num=0]`), Megatron's
// `lm loss: 2.3E+00 | grad norm: 1.2 | loss scale: 1024.0` and DeepSpeed's loss-scale lines.
// Evaluation losses (`eval_loss`, `val_loss`) are not training losses and are skipped.
MetricSample extractMetrics(std::string_view message);

struct Frame {
  std::string file;
  int line = 0;
  std::string function;
  uint32_t source = 0;
  uint64_t logLine = 0;
  bool user = false;  // not the standard library, site-packages or dist-packages
};

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
  // Finishes blocks still open (a log cut off mid-traceback).
  void flush(std::vector<Traceback>& done);

 private:
  struct Open {
    int rank = -1;
    uint32_t source = 0;
    Traceback tb;
    bool awaitingChain = false;  // saw "During handling..." and waits for the next Traceback
  };
  Open* find(uint32_t source, int rank);
  void emit(Open& open, std::vector<Traceback>& done);

  std::vector<Open> open_;
};

}  // namespace denpex::core
