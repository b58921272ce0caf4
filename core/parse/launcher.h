// What the launcher and PyTorch's distributed runtime say about a run as a whole: torchrun's
// failure summary (ranks, exit codes, pids, signals, its "Root Cause"), the SIGTERMs it sent,
// the NCCL watchdog's sequence numbers and TORCH_NCCL_DESYNC_DEBUG's report. A LauncherTracker
// is a plain value fed line by line: copyable, not thread-safe.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/parse/log_line.h"

namespace denpex::core {

// One rank's entry in torchrun's failure summary (torch.distributed.elastic).
struct LauncherFailure {
  int rank = -1;
  int localRank = -1;
  std::string host;
  std::optional<int> exitCode;
  std::optional<long long> pid;
  std::string time;    // as printed
  std::string signal;  // "SIGKILL" when "Signal 9 (SIGKILL) received by PID ..."
  std::string errorFile;
  std::string exception;   // the last exception line of the traceback the summary printed (@record)
  bool rootCause = false;  // listed under "Root Cause (first observed failure)"
  uint32_t source = 0;
  uint64_t line = 0;
};

// POSIX signal names and numbers as launchers print them ("SIGSEGV", 11; exit code -11): one table
// for reading a name (mp.spawn's "terminated with signal SIGSEGV") and for naming a negative
// exit code (torchrun's "exitcode: -11").
std::optional<int> signalNumber(std::string_view name);
std::string signalName(int number);  // "SIGSEGV" for 11; "signal 42" for a number not in the table

// Reads the launcher's own lines: torchrun's summary block, "Sending process N closing signal
// SIGTERM", the agent's "failed (exitcode: -9) local_rank: 2 (pid: 1236) of binary: ...".
class LauncherTracker {
 public:
  void add(const ParsedLine& line);
  // Whether add() may take anything from a line with this message while no summary section is
  // open (isReading() false). Pure: a caller may test lines ahead, on other threads, and give
  // add() only those, and every line while isReading().
  static bool concerns(std::string_view message);
  // Literal phrases, one of which every line that concerns() the launcher contains: a caller
  // that scans many lines at once for them (Prefilter) needs to call concerns() only on those.
  static const std::vector<std::string_view>& phrases();
  bool isReading() const { return section_ != Section::kNone; }
  const std::vector<LauncherFailure>& failures() const { return failures_; }
  const std::vector<long long>& sigtermPids() const { return sigterm_; }
  // The summary's "Failures:" section said "<NO_OTHER_FAILURES>": the worker under "Root Cause"
  // is the only one that failed; the others were stopped or finished.
  bool noOtherFailures() const { return noOtherFailures_; }
  std::optional<int> rankOfPid(long long pid) const;

  // What the NCCL watchdog said per rank: "last enqueued NCCL work: N, last completed NCCL
  // work: M", "First PG on this rank to signal dumping", "Received a dump signal due to a
  // collective timeout from rank K".
  struct NcclState {
    std::optional<long long> lastEnqueued;
    std::optional<long long> lastCompleted;
    bool firstToDump = false;
    std::optional<int> dumpFrom;
  };
  const std::map<int, NcclState>& nccl() const { return nccl_; }

  // TORCH_NCCL_DESYNC_DEBUG's report: the ranks it names as lagging, strongest claim first
  // ("finished collective #N, but didn't join collective #N+1", then "joined but didn't finish",
  // then "are the lagging ranks that caused this timeout. They never joined any collectives").
  std::vector<int> desyncLagging() const;

 private:
  std::vector<int> desyncDidNotJoin_, desyncDidNotFinish_, desyncNeverJoined_;
  std::map<int, NcclState> nccl_;
  enum class Section { kNone, kFailures, kRootCause } section_ = Section::kNone;
  std::vector<LauncherFailure> failures_;
  std::vector<long long> sigterm_;
  bool noOtherFailures_ = false;
  LauncherFailure* current_ = nullptr;
};

}  // namespace denpex::core
