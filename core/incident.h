// Incident: across ranks, which failure came first and which ones only followed from it.
//
// When a distributed job dies every rank prints an error, and the loudest one is usually not
// the cause. The incident names the initiating rank and its failure, and marks every other
// rank's failure as collateral (with the reason) or independent. It also reads what the
// launcher said (torchrun's failure summary: ranks, exit codes, pids, signals, and its own
// "Root Cause (first observed failure)") and says where that disagrees.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/log_parser.h"

namespace denpex::core {

// A timestamp as printed (ISO 8601 / Python logging, glog, torchrun's "2024-05-01_12:00:00")
// as seconds within its year, comparable across formats in one run. nullopt when unknown.
std::optional<double> timestampSeconds(std::string_view timestamp);

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
  bool rootCause = false;  // listed under "Root Cause (first observed failure)"
  uint32_t source = 0;
  uint64_t line = 0;
};

// Reads the launcher's own lines: torchrun's summary block, "Sending process N closing signal
// SIGTERM", "failed (exitcode: 1) local_rank: 2 (pid: 1236)".
class LauncherTracker {
 public:
  void add(const ParsedLine& line);
  const std::vector<LauncherFailure>& failures() const { return failures_; }
  const std::vector<long long>& sigtermPids() const { return sigterm_; }
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
  LauncherFailure* current_ = nullptr;
};

struct RankRole {
  int rank = -1;
  std::string host;
  std::string role;     // initiator | collateral | independent | no-error
  std::string reason;   // why this role
  std::string failure;  // the rule id of the rank's first failure ("" when none)
  std::string title;    // its verdict
  std::string time;     // the first failure's timestamp as printed, "" when none
  std::optional<int> exitCode;
  bool hasEvidence = false;
  uint32_t source = 0;
  uint64_t line = 0;    // the first failure's line (0-based)
};

struct Incident {
  std::optional<int> initiatingRank;
  std::string initiatingReason;            // how the initiator was chosen
  std::vector<RankRole> ranks;             // ascending by rank
  std::optional<int> launcherRootCause;    // torchrun's "first observed failure"
  std::string launcherNote;                // where denpex disagrees with it, and why
  bool empty() const { return ranks.empty(); }
};

}  // namespace denpex::core
