// The cross-rank incident: the initiating rank and failure, every rank's role (see incident.h).
#include "core/analyze/incident.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <set>
#include <tuple>

#include "core/parse/timestamp.h"


namespace denpex::core {

namespace {

// True when every finding but `except` is collateral by its rule.
bool onlyCollateralBesides(const std::vector<Finding>& findings, const Finding* except) {
  return std::all_of(findings.begin(), findings.end(),
                     [&](const Finding& f) { return &f == except || f.rule->role == Role::kCollateral; });
}

struct Event {
  int rank;
  size_t finding;
  const Evidence* evidence;
  std::optional<double> time;
  bool rootClass;  // root or symptom by its rule (a failure of its own), not collateral
};

// Earlier in time where both have a time; otherwise earlier in the input.
bool earlier(const Event& a, const Event& b) {
  if (a.time && b.time && *a.time != *b.time) return *a.time < *b.time;
  return std::tie(a.evidence->source, a.evidence->line) < std::tie(b.evidence->source, b.evidence->line);
}

// The initiating failure is named by its cause. When the finding chosen is a symptom (a NaN
// loss) and a root cause was found for the same failure (its evidence includes the symptom's
// line, on a rank the symptom was seen on), the root cause takes the label; the symptom is
// listed after it.
std::optional<size_t> rootCauseOf(const std::vector<Finding>& findings, size_t symptom) {
  const Finding& s = findings[symptom];
  if (s.rule->role != Role::kSymptom) return std::nullopt;
  const Evidence& anchor = s.evidence.front();
  for (size_t i = 0; i < findings.size(); ++i) {
    const Finding& f = findings[i];
    if (f.rule->role != Role::kRoot || f.rule->fallback) continue;
    bool sameLine = std::any_of(f.evidence.begin(), f.evidence.end(),
                                [&](const Evidence& e) { return e.source == anchor.source && e.line == anchor.line; });
    bool sameRank = s.ranks.empty() || f.ranks.empty() ||
                    std::any_of(f.ranks.begin(), f.ranks.end(),
                                [&](int r) { return std::find(s.ranks.begin(), s.ranks.end(), r) != s.ranks.end(); });
    if (sameLine && sameRank) return i;
  }
  return std::nullopt;
}

// The note for a torchrun summary whose "Root Cause" is another rank than the one that failed
// first: that rank's failure followed the first one's, or (the same failure on each rank, such
// as two ranks on one GPU) was its own but came later in the log.
std::string launcherDisagreement(const Incident& inc) {
  const std::string named = std::to_string(*inc.launcherRootCause);
  const std::string first = std::to_string(*inc.initiatingRank);
  auto it = std::find_if(inc.ranks.begin(), inc.ranks.end(), [&](const RankRole& r) { return r.rank == *inc.launcherRootCause; });
  std::string note = "torchrun's summary names rank " + named + " as the first observed failure, but ";
  if (it != inc.ranks.end() && it->role == "independent")
    return note + "rank " + named + " failed on its own, and the log shows rank " + first +
           "'s failure first (torchrun orders failures by whole-second timestamps)";
  return note + "rank " + named + "'s failure followed from rank " + first +
         " (torchrun orders failures by whole-second timestamps and knows nothing of collateral failures)";
}

}  // namespace

Incident buildIncident(const std::vector<Finding>& findings, const LauncherTracker& launcher, const std::set<int>& ranksSeen) {
  Incident inc;
  std::vector<Event> events;
  for (size_t i = 0; i < findings.size(); ++i) {
    const Finding& f = findings[i];
    bool rootClass = f.rule->role != Role::kCollateral;
    for (const auto& [rank, ev] : f.rankEvidence) {
      if (rank < 0) continue;
      events.push_back({rank, i, &ev, timestampSeconds(ev.timestamp), rootClass});
    }
  }
  if (events.empty()) {
    // An unprefixed log: torchrun's summary can still say which rank raised which exception
    // (it prints each failed rank's traceback when the entry point has @record). A finding whose
    // exception reads the same, numbers and addresses masked, belongs to that rank.
    for (const auto& lf : launcher.failures()) {
      if (lf.rank < 0 || lf.exception.empty()) continue;
      std::string said = maskMessage(lf.exception);
      for (size_t i = 0; i < findings.size(); ++i) {
        const Finding& f = findings[i];
        if (f.exceptionType.empty() || maskMessage(f.exceptionType + ": " + f.exceptionMessage) != said) continue;
        events.push_back({lf.rank, i, &f.evidence.front(), timestampSeconds(lf.time), f.rule->role != Role::kCollateral});
      }
    }
  }
  std::map<size_t, std::set<int>> findingRanks;  // the ranks each finding was seen on
  for (const auto& e : events) findingRanks[e.finding].insert(e.rank);
  std::set<int> world = ranksSeen;
  world.erase(-1);
  for (const auto& lf : launcher.failures())
    if (lf.rank >= 0) world.insert(lf.rank);
  for (const auto& e : events) world.insert(e.rank);
  // Not a multi-rank run, unless the launcher says so: it reported a worker failed, or it
  // stopped workers with SIGTERM (an excerpt may keep one rank's lines and that alone).
  if (world.size() < 2 && launcher.failures().empty() && launcher.sigtermPids().empty()) return inc;

  if (events.empty()) {
    // No failure carries a rank (an unprefixed log): the initiating failure can still be told
    // from the collateral ones, but not which rank printed it.
    const Finding* earliest = nullptr;
    for (const auto& f : findings) {
      if (f.rule->role == Role::kCollateral) continue;
      if (!earliest || std::tie(f.evidence.front().source, f.evidence.front().line) <
                           std::tie(earliest->evidence.front().source, earliest->evidence.front().line))
        earliest = &f;
    }
    if (earliest) {
      inc.initiatingFinding = static_cast<size_t>(earliest - findings.data());
      if (auto root = rootCauseOf(findings, *inc.initiatingFinding)) {
        inc.initiatingFinding = *root;
        earliest = &findings[*root];
      }
      inc.initiatingReason = "the log's lines carry no rank, so the rank that failed first cannot be named; the first "
                             "failure that did not follow from another rank is \"" + verdict(*earliest) +
                             "\" (run torchrun with --tee 3 or --log_dir to see which rank printed it)";
    }
    // The launcher still says which rank was killed by a signal it did not send (the OOM
    // killer's SIGKILL): that rank failed first, and the ones it stopped with SIGTERM followed.
    std::set<long long> stopped(launcher.sigtermPids().begin(), launcher.sigtermPids().end());
    for (const auto& lf : launcher.failures()) {
      bool killed = lf.exitCode && *lf.exitCode < 0 && *lf.exitCode != -15 && !(lf.pid && stopped.count(*lf.pid));
      if (killed && !inc.initiatingRank) {
        inc.initiatingRank = lf.rank;
        inc.initiatingReason = "killed by " + (lf.signal.empty() ? signalName(-*lf.exitCode) : lf.signal) +
                               " (exit code " + std::to_string(*lf.exitCode) + "), which the launcher did not send";
      }
    }
    if (!inc.initiatingRank && earliest && (!stopped.empty() || launcher.noOtherFailures())) {
      // The launcher stops every other worker as soon as one fails: when it reports one worker
      // alone as failed, with an exit code of its own (it raised), and stopped others with
      // SIGTERM (or its summary says "<NO_OTHER_FAILURES>"), the one failure of the log that
      // followed from no other rank is that worker's.
      std::set<int> failedRanks;
      const LauncherFailure* raised = nullptr;
      for (const auto& lf : launcher.failures()) {
        if (lf.rank < 0) continue;
        failedRanks.insert(lf.rank);
        if (lf.exitCode && *lf.exitCode > 0 && !(lf.pid && stopped.count(*lf.pid))) raised = &lf;
      }
      if (failedRanks.size() == 1 && raised) {
        inc.initiatingRank = raised->rank;
        inc.initiatingReason = "it is the one worker the launcher reports as failed (exit code " +
                               std::to_string(*raised->exitCode) + "), and " +
                               (stopped.empty() ? std::string("its summary lists no other failure")
                                                : std::string("the launcher then stopped the others with SIGTERM")) +
                               "; the log's failure that followed from no other rank is \"" + verdict(*earliest) + "\"";
      }
    }
    if (!inc.initiatingRank && !earliest && !launcher.failures().empty()) {
      // Every failure printed was collateral (timeouts, closed connections). On one node the
      // summary lists the ranks that failed, and the launcher stopped the others with SIGTERM:
      // a single rank missing from the list, with one more process stopped, is the one that hung.
      std::set<int> failed;
      std::set<long long> failedPids;
      for (const auto& lf : launcher.failures()) {
        if (lf.rank >= 0) failed.insert(lf.rank);
        if (lf.pid) failedPids.insert(*lf.pid);
      }
      size_t others = 0;
      for (long long pid : stopped) others += failedPids.count(pid) ? 0 : 1;
      std::vector<int> missing;
      for (int r = 0; r < static_cast<int>(failed.size() + others); ++r)
        if (!failed.count(r)) missing.push_back(r);
      if (missing.size() == 1 && others == 1) {
        inc.initiatingRank = missing.front();
        inc.initiatingReason = "it is the one rank the launcher's summary does not list as failed: while the others timed "
                               "out or lost their connection to it, it reported nothing and was stopped with SIGTERM (a hang)";
        RankRole role;
        role.rank = missing.front();
        role.role = "initiator";
        role.reason = inc.initiatingReason;
        role.title = "no failure printed (hung)";
        inc.ranks.push_back(role);
      }
    }
    // A rank can be reported twice (the agent's "failed (exitcode ...)" line and the summary):
    // one entry per rank, with what either report said.
    std::map<int, LauncherFailure> merged;
    for (const auto& lf : launcher.failures()) {
      if (lf.rank < 0) continue;
      auto [it, fresh] = merged.emplace(lf.rank, lf);
      if (fresh) continue;
      LauncherFailure& m = it->second;
      if (m.host.empty()) m.host = lf.host;
      if (!m.exitCode) m.exitCode = lf.exitCode;
      if (!m.pid) m.pid = lf.pid;
      if (m.signal.empty()) m.signal = lf.signal;
    }
    for (const auto& [rank, lf] : merged) {
      RankRole role;
      role.rank = lf.rank;
      role.host = lf.host;
      role.exitCode = lf.exitCode;
      if (inc.initiatingRank && lf.rank == *inc.initiatingRank) {
        role.role = "initiator";
        role.reason = inc.initiatingReason;
        role.title = earliest ? verdict(*earliest) : "exit code " + std::to_string(lf.exitCode.value_or(0));
      } else if ((lf.pid && stopped.count(*lf.pid)) || (lf.exitCode && *lf.exitCode == -15)) {
        role.role = "collateral";
        role.reason = "stopped by the launcher (SIGTERM)" +
                      (inc.initiatingRank ? " after rank " + std::to_string(*inc.initiatingRank) + " failed" : std::string());
      } else if (inc.initiatingRank && onlyCollateralBesides(findings, earliest)) {
        // Every other failure the log shows follows from another rank (timeouts, closed
        // connections), so whichever rank printed it, this one's failure followed rank X's.
        role.role = "collateral";
        role.reason = "exit code " + std::to_string(lf.exitCode.value_or(0)) + " after rank " +
                      std::to_string(*inc.initiatingRank) + " failed; the log shows no failure of its own";
      } else {
        role.role = "unknown";
        role.reason = "its lines carry no rank";
      }
      inc.ranks.push_back(role);
    }
    std::sort(inc.ranks.begin(), inc.ranks.end(), [](const RankRole& a, const RankRole& b) { return a.rank < b.rank; });
    for (const auto& lf : launcher.failures())
      if (lf.rootCause && !inc.launcherRootCause) inc.launcherRootCause = lf.rank;
    if (inc.launcherRootCause && inc.initiatingRank && *inc.launcherRootCause != *inc.initiatingRank)
      inc.launcherNote = launcherDisagreement(inc);
    else if (inc.launcherRootCause && !inc.initiatingRank && earliest)
      inc.launcherNote = "torchrun's summary names rank " + std::to_string(*inc.launcherRootCause) +
                         " as the first observed failure; it picks by whole-second timestamps, so with an unprefixed log it cannot be confirmed";
    return inc;
  }

  std::map<int, const Event*> first, firstRoot;
  for (const auto& e : events) {
    if (!first.count(e.rank) || earlier(e, *first[e.rank])) first[e.rank] = &e;
    if (e.rootClass && (!firstRoot.count(e.rank) || earlier(e, *firstRoot[e.rank]))) firstRoot[e.rank] = &e;
  }
  std::map<int, const LauncherFailure*> launched;
  for (const auto& lf : launcher.failures()) {
    if (lf.rank < 0) continue;
    if (!launched.count(lf.rank) || lf.rootCause) launched[lf.rank] = &lf;
    if (lf.rootCause && !inc.launcherRootCause) inc.launcherRootCause = lf.rank;
  }
  std::set<long long> sigterm(launcher.sigtermPids().begin(), launcher.sigtermPids().end());

  // 1. The earliest failure of its own kind (not one that only follows from another rank).
  const Event* initiator = nullptr;
  for (const auto& [rank, e] : firstRoot)
    if (!initiator || earlier(*e, *initiator)) initiator = e;
  if (initiator) {
    inc.initiatingRank = initiator->rank;
    inc.initiatingReason = "the earliest failure that did not follow from another rank";
  } else {
    // 2. A rank killed by a signal it did not get from the launcher (the OOM killer's SIGKILL).
    for (const auto& [rank, lf] : launched) {
      if (lf->exitCode && *lf->exitCode < 0 && !(lf->pid && sigterm.count(*lf->pid)) && *lf->exitCode != -15) {
        inc.initiatingRank = rank;
        inc.initiatingReason = "killed by " + (lf->signal.empty() ? signalName(-*lf->exitCode) : lf->signal) +
                               ", which the launcher did not send";
        break;
      }
    }
  }
  if (!inc.initiatingRank && !launcher.desyncLagging().empty()) {
    // 3a. PyTorch's own desync report names the lagging ranks.
    auto lagging = launcher.desyncLagging();
    std::sort(lagging.begin(), lagging.end());
    inc.initiatingRank = lagging.front();
    std::string list;
    for (int r : lagging) list += (list.empty() ? "" : ", ") + std::to_string(r);
    inc.initiatingReason = "PyTorch's desync report (TORCH_NCCL_DESYNC_DEBUG) names rank" +
                           std::string(lagging.size() > 1 ? "s [" + list + "]" : " " + list) +
                           " as lagging behind the collective the others timed out in";
  }
  if (!inc.initiatingRank && !launcher.nccl().empty()) {
    // 3. The NCCL watchdog's sequence numbers: the rank whose last enqueued collective is
    // behind the others never joined the collective they are all waiting in.
    std::optional<long long> lo, hi;
    int laggard = -1;
    for (const auto& [rank, st] : launcher.nccl()) {
      if (!st.lastEnqueued) continue;
      if (!lo || *st.lastEnqueued < *lo) {
        lo = st.lastEnqueued;
        laggard = rank;
      }
      if (!hi || *st.lastEnqueued > *hi) hi = st.lastEnqueued;
    }
    int behind = 0;
    for (const auto& [rank, st] : launcher.nccl())
      if (st.lastEnqueued && lo && *st.lastEnqueued == *lo) ++behind;
    if (lo && hi && *lo < *hi && behind == 1) {
      inc.initiatingRank = laggard;
      inc.initiatingReason = "its last enqueued NCCL work (" + std::to_string(*lo) + ") is behind the other ranks' (" +
                             std::to_string(*hi) + "): it never joined the collective they timed out in";
    }
  }
  if (!inc.initiatingRank && !first.empty()) {
    // 4. Everyone else reported a collateral failure: the rank that reported nothing hung.
    std::vector<int> silent;
    for (int r : world)
      if (!first.count(r)) silent.push_back(r);
    if (silent.size() == 1 || (!silent.empty() && silent.size() < world.size() / 2 + 1)) {
      inc.initiatingRank = silent.front();
      inc.initiatingReason = "it reported no error while the other ranks timed out or lost their connection to it (a hang or a silent exit)";
    } else {
      const Event* e = nullptr;
      for (const auto& [rank, ev] : first)
        if (!e || earlier(*ev, *e)) e = ev;
      inc.initiatingRank = e->rank;
      inc.initiatingReason = "the earliest failure in the log";
    }
  }

  if (inc.initiatingRank) world.insert(*inc.initiatingRank);  // a silent rank named by the desync report
  const Finding* initiatingFinding = initiator ? &findings[initiator->finding] : nullptr;
  if (!initiatingFinding && inc.initiatingRank && launched.count(*inc.initiatingRank)) {
    // Chosen from the launcher's table (a kill): the finding on that table entry's lines.
    const LauncherFailure& lf = *launched[*inc.initiatingRank];
    for (size_t i = 0; i < findings.size(); ++i) {
      const Finding& f = findings[i];
      const Evidence& a = f.evidence.front();
      if (f.rule->role != Role::kCollateral && f.rankEvidence.empty() && a.source == lf.source && a.line >= lf.line &&
          a.line <= lf.line + 10) {
        inc.initiatingFinding = i;
        break;
      }
    }
  }
  std::string initTitle = initiatingFinding ? verdict(*initiatingFinding) : "";
  for (int r : world) {
    RankRole role;
    role.rank = r;
    if (launched.count(r)) {
      role.host = launched[r]->host;
      role.exitCode = launched[r]->exitCode;
    }
    const Event* e = first.count(r) ? first[r] : nullptr;
    if (e) {
      const Finding& f = findings[e->finding];
      role.failure = f.rule->id;
      role.title = verdict(f);
      // The time of the failure line itself; never one printed before it ("-" in the table).
      role.time = e->evidence->timeFromEarlierLine ? "" : e->evidence->timestamp;
      role.hasEvidence = true;
      role.source = e->evidence->source;
      role.line = e->evidence->line;
    }
    bool launcherKilled = launched.count(r) && launched[r]->pid && sigterm.count(*launched[r]->pid);
    if (inc.initiatingRank && r == *inc.initiatingRank) {
      role.role = "initiator";
      role.reason = inc.initiatingReason;
      if (!e && launched.count(r) && launched[r]->exitCode)
        role.title = "exit code " + std::to_string(*launched[r]->exitCode) +
                     (launched[r]->signal.empty() ? "" : " (" + launched[r]->signal + ")");
    } else if (!e) {
      role.role = launcherKilled || (role.exitCode && *role.exitCode == -15) ? "collateral" : "no-error";
      role.reason = role.role == "collateral" ? "stopped by the launcher (SIGTERM) after rank " +
                                                    std::to_string(inc.initiatingRank.value_or(-1)) + " failed"
                                              : "printed no failure";
    } else if (!e->rootClass || !firstRoot.count(r)) {
      role.role = "collateral";
      role.reason = role.title + ", after rank " + std::to_string(inc.initiatingRank.value_or(-1)) + " failed";
      auto nccl = launcher.nccl().find(r);
      if (nccl != launcher.nccl().end() && nccl->second.firstToDump)
        role.reason += " (its watchdog fired first: it noticed the hang, it did not cause it)";
    } else if (initiatingFinding && findings[firstRoot[r]->finding].rule->id == initiatingFinding->rule->id &&
               findings[firstRoot[r]->finding].messageTemplate == initiatingFinding->messageTemplate) {
      role.role = "independent";
      role.reason = "the same failure as rank " + std::to_string(*inc.initiatingRank) + ", on its own";
    } else if (initiator && earlier(*initiator, *firstRoot[r])) {
      role.role = "collateral";
      role.reason = role.title + ", after rank " + std::to_string(*inc.initiatingRank) + " failed with " + initTitle;
    } else {
      role.role = "independent";
      role.reason = "a failure of its own";
    }
    inc.ranks.push_back(role);
  }

  // Findings on collateral ranks only, that came after the initiator, are collateral too.
  if (initiatingFinding) inc.initiatingFinding = initiator->finding;
  if (inc.initiatingFinding)
    if (auto root = rootCauseOf(findings, *inc.initiatingFinding)) inc.initiatingFinding = *root;
  for (size_t i = 0; i < findings.size(); ++i) {
    const Finding& f = findings[i];
    if (inc.initiatingFinding == i || !findingRanks.count(i)) continue;
    bool allCollateral = true;
    for (int rank : findingRanks[i]) {
      auto it = std::find_if(inc.ranks.begin(), inc.ranks.end(), [&](const RankRole& rr) { return rr.rank == rank; });
      if (it == inc.ranks.end() || it->role != "collateral") allCollateral = false;
    }
    if (allCollateral && f.rule->role != Role::kCollateral && inc.initiatingRank)
      inc.collateralFindings[i] = "follows from rank " + std::to_string(*inc.initiatingRank) + "'s failure";
  }

  if (inc.launcherRootCause && inc.initiatingRank && *inc.launcherRootCause != *inc.initiatingRank)
    inc.launcherNote = launcherDisagreement(inc);
  return inc;
}

}  // namespace denpex::core
