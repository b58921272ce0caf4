// Launcher summaries, timestamps, and the cross-rank incident (see incident.h).
#include "core/incident.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <set>
#include <tuple>

#include "core/diagnoser.h"
#include "core/incident_builder.h"
#include "core/report.h"

namespace denpex::core {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

bool digits(std::string_view s, size_t at, size_t n) {
  if (at + n > s.size()) return false;
  for (size_t i = 0; i < n; ++i)
    if (!std::isdigit(static_cast<unsigned char>(s[at + i]))) return false;
  return true;
}

int num(std::string_view s, size_t at, size_t n) { return std::atoi(std::string(s.substr(at, n)).c_str()); }

constexpr int kDaysBefore[12] = {0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334};

double clock(std::string_view s, size_t at, int month, int day) {
  // HH:MM:SS[.,frac]
  double t = (kDaysBefore[std::clamp(month, 1, 12) - 1] + day) * 86400.0 + num(s, at, 2) * 3600.0 +
             num(s, at + 3, 2) * 60.0 + num(s, at + 6, 2);
  size_t f = at + 8;
  if (f < s.size() && (s[f] == '.' || s[f] == ',')) {
    double scale = 0.1;
    for (size_t i = f + 1; i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])); ++i, scale /= 10)
      t += (s[i] - '0') * scale;
  }
  return t;
}

}  // namespace

std::optional<double> timestampSeconds(std::string_view s) {
  s = trim(s);
  if (!s.empty() && s.front() == '[') s.remove_prefix(1);
  // 2024-05-01 12:00:00,123 | 2024-05-01T12:00:00.5Z | 2024-05-01_12:00:00
  if (digits(s, 0, 4) && s.size() >= 19 && s[4] == '-' && digits(s, 5, 2) && s[7] == '-' && digits(s, 8, 2) &&
      (s[10] == ' ' || s[10] == 'T' || s[10] == '_') && digits(s, 11, 2) && s[13] == ':' && digits(s, 14, 2) &&
      s[16] == ':' && digits(s, 17, 2))
    return clock(s, 11, num(s, 5, 2), num(s, 8, 2));
  // glog: I0501 12:00:00.123456
  if (s.size() >= 14 && std::string_view("IWEF").find(s[0]) != std::string_view::npos && digits(s, 1, 4) && s[5] == ' ' &&
      digits(s, 6, 2) && s[8] == ':')
    return clock(s, 6, num(s, 1, 2), num(s, 3, 2));
  return std::nullopt;
}

namespace {

std::optional<long long> numberAfter(std::string_view m, std::string_view key) {
  size_t at = m.find(key);
  if (at == std::string_view::npos) return std::nullopt;
  size_t i = at + key.size();
  bool neg = i < m.size() && m[i] == '-';
  if (neg) ++i;
  if (i >= m.size() || !std::isdigit(static_cast<unsigned char>(m[i]))) return std::nullopt;
  long long v = 0;
  while (i < m.size() && std::isdigit(static_cast<unsigned char>(m[i]))) v = v * 10 + (m[i++] - '0');
  return neg ? -v : v;
}

}  // namespace

namespace {

// "[2, 3]" at `at` (after optional tabs, dashes and spaces) -> {2, 3}
std::vector<int> rankList(std::string_view m, size_t open) {
  std::vector<int> out;
  size_t close = m.find(']', open);
  if (open == std::string_view::npos || close == std::string_view::npos) return out;
  std::string inner(m.substr(open + 1, close - open - 1));
  size_t i = 0;
  while (i < inner.size()) {
    while (i < inner.size() && !std::isdigit(static_cast<unsigned char>(inner[i]))) ++i;
    if (i >= inner.size()) break;
    out.push_back(std::atoi(inner.c_str() + i));
    while (i < inner.size() && std::isdigit(static_cast<unsigned char>(inner[i]))) ++i;
  }
  return out;
}

void addAll(std::vector<int>& to, const std::vector<int>& from) {
  for (int r : from)
    if (std::find(to.begin(), to.end(), r) == to.end()) to.push_back(r);
}

}  // namespace

std::vector<int> LauncherTracker::desyncLagging() const {
  if (!desyncDidNotJoin_.empty()) return desyncDidNotJoin_;
  if (!desyncDidNotFinish_.empty()) return desyncDidNotFinish_;
  return desyncNeverJoined_;
}

void LauncherTracker::add(const ParsedLine& line) {
  std::string_view m = trim(line.message());
  if (m.empty()) return;
  // TORCH_NCCL_DESYNC_DEBUG (c10d's desync report), one line per claim.
  if (m.find("are the lagging ranks that caused this timeout") != std::string_view::npos)
    addAll(desyncNeverJoined_, rankList(m, m.find("ranks [") + 6));
  else if (m.find("] finished collective #") != std::string_view::npos && m.find("didn't join collective #") != std::string_view::npos)
    addAll(desyncDidNotJoin_, rankList(m, m.find('[')));
  else if (m.find("] joined but didn't finish collective #") != std::string_view::npos)
    addAll(desyncDidNotFinish_, rankList(m, m.find('[')));
  if (line.rank >= 0 && m.find("NCCL work") != std::string_view::npos) {
    NcclState& st = nccl_[line.rank];
    if (auto e = numberAfter(m, "ast enqueued NCCL work: ")) st.lastEnqueued = std::max(st.lastEnqueued.value_or(*e), *e);
    if (auto c = numberAfter(m, "ast completed NCCL work: ")) st.lastCompleted = std::max(st.lastCompleted.value_or(*c), *c);
    else if (auto c2 = numberAfter(m, "last completed: ")) st.lastCompleted = std::max(st.lastCompleted.value_or(*c2), *c2);
  }
  if (line.rank >= 0 && m.find("First PG on this rank to signal dumping") != std::string_view::npos) nccl_[line.rank].firstToDump = true;
  if (line.rank >= 0) {
    if (auto from = numberAfter(m, "Received a dump signal due to a collective timeout from rank "))
      nccl_[line.rank].dumpFrom = static_cast<int>(*from);
    else if (auto from2 = numberAfter(m, "dump signal from rank ")) nccl_[line.rank].dumpFrom = static_cast<int>(*from2);
  }
  if (m == "Root Cause (first observed failure):") {
    section_ = Section::kRootCause;
    current_ = nullptr;
    return;
  }
  if (m == "Failures:") {
    section_ = Section::kFailures;
    current_ = nullptr;
    return;
  }
  if (m.find("Sending process ") != std::string_view::npos && m.find("closing signal SIGTERM") != std::string_view::npos) {
    size_t at = m.find("Sending process ") + 16;
    sigterm_.push_back(std::atoll(std::string(m.substr(at, 20)).c_str()));
    return;
  }
  if (m.rfind("====", 0) == 0) {
    if (section_ == Section::kRootCause) section_ = Section::kNone;
    current_ = nullptr;
    return;
  }
  if (section_ == Section::kNone) return;
  if (m.rfind("----", 0) == 0) {
    current_ = nullptr;
    return;
  }
  // "[2]:" opens a record; "<N/A>" and "[0]:" alike.
  if (m.size() >= 4 && m.front() == '[' && m.back() == ':' && m[m.size() - 2] == ']') {
    LauncherFailure f;
    f.rank = std::atoi(std::string(m.substr(1, m.size() - 3)).c_str());
    f.rootCause = section_ == Section::kRootCause;
    f.source = line.source;
    f.line = line.lineNo;
    failures_.push_back(f);
    current_ = &failures_.back();
    return;
  }
  if (!current_) return;
  size_t colon = m.find(':');
  if (colon == std::string_view::npos) {
    // "traceback : Signal 9 (SIGKILL) received by PID 123" may wrap; look for the signal anywhere.
  }
  std::string key(trim(m.substr(0, colon == std::string_view::npos ? 0 : colon)));
  std::string_view value = colon == std::string_view::npos ? m : trim(m.substr(colon + 1));
  if (key == "time") current_->time = std::string(value);
  else if (key == "host") current_->host = std::string(value);
  else if (key == "rank") {
    current_->rank = std::atoi(std::string(value).c_str());
    size_t lr = value.find("local_rank: ");
    if (lr != std::string_view::npos) current_->localRank = std::atoi(std::string(value.substr(lr + 12)).c_str());
  } else if (key == "exitcode") {
    current_->exitCode = std::atoi(std::string(value).c_str());
    size_t pid = value.find("pid: ");
    if (pid != std::string_view::npos) current_->pid = std::atoll(std::string(value.substr(pid + 5)).c_str());
  } else if (key == "error_file") {
    current_->errorFile = std::string(value);
  }
  size_t sig = m.find("Signal ");
  if (sig != std::string_view::npos && m.find("received by PID", sig) != std::string_view::npos) {
    size_t open = m.find('(', sig), close = m.find(')', sig);
    if (open != std::string_view::npos && close != std::string_view::npos && close > open)
      current_->signal = std::string(m.substr(open + 1, close - open - 1));
  }
}

std::optional<int> LauncherTracker::rankOfPid(long long pid) const {
  for (const auto& f : failures_)
    if (f.pid && *f.pid == pid) return f.rank;
  return std::nullopt;
}

namespace {

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

}  // namespace

Incident buildIncident(std::vector<Finding>& findings, const LauncherTracker& launcher, const std::set<int>& ranksSeen) {
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
  std::set<int> world = ranksSeen;
  world.erase(-1);
  for (const auto& lf : launcher.failures())
    if (lf.rank >= 0) world.insert(lf.rank);
  for (const auto& e : events) world.insert(e.rank);
  if (world.size() < 2 && launcher.failures().empty()) return inc;  // not a multi-rank run

  if (events.empty()) {
    // No failure carries a rank (an unprefixed log): the initiating failure can still be told
    // from the collateral ones, but not which rank printed it.
    Finding* earliest = nullptr;
    for (auto& f : findings) {
      if (f.rule->role == Role::kCollateral) continue;
      if (!earliest || std::tie(f.evidence.front().source, f.evidence.front().line) <
                           std::tie(earliest->evidence.front().source, earliest->evidence.front().line))
        earliest = &f;
    }
    if (earliest) {
      earliest->initiating = true;
      inc.initiatingReason = "the log's lines carry no rank, so the rank that failed first cannot be named; the first "
                             "failure that did not follow from another rank is \"" + verdict(*earliest) +
                             "\" (run torchrun with --tee 3 or --log_dir to see which rank printed it)";
    }
    for (const auto& lf : launcher.failures()) {
      if (lf.rank < 0 || std::any_of(inc.ranks.begin(), inc.ranks.end(), [&](const RankRole& r) { return r.rank == lf.rank; }))
        continue;
      RankRole role;
      role.rank = lf.rank;
      role.host = lf.host;
      role.exitCode = lf.exitCode;
      role.role = "unknown";
      role.reason = "its lines carry no rank";
      inc.ranks.push_back(role);
    }
    std::sort(inc.ranks.begin(), inc.ranks.end(), [](const RankRole& a, const RankRole& b) { return a.rank < b.rank; });
    for (const auto& lf : launcher.failures())
      if (lf.rootCause && !inc.launcherRootCause) inc.launcherRootCause = lf.rank;
    if (inc.launcherRootCause && earliest)
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
        inc.initiatingReason = "killed by " + (lf->signal.empty() ? "signal " + std::to_string(-*lf->exitCode) : lf->signal) +
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
    for (auto& f : findings) {
      const Evidence& a = f.evidence.front();
      if (f.rule->role != Role::kCollateral && f.rankEvidence.empty() && a.source == lf.source && a.line >= lf.line &&
          a.line <= lf.line + 10) {
        f.initiating = true;
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
      role.time = e->evidence->timestamp;
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
  if (initiatingFinding) findings[initiator->finding].initiating = true;
  for (auto& f : findings) {
    if (f.initiating || f.rankEvidence.empty()) continue;
    bool allCollateral = true;
    for (const auto& [rank, ev] : f.rankEvidence) {
      auto it = std::find_if(inc.ranks.begin(), inc.ranks.end(), [&](const RankRole& rr) { return rr.rank == rank; });
      if (it == inc.ranks.end() || it->role != "collateral") allCollateral = false;
    }
    if (allCollateral && f.rule->role != Role::kCollateral && inc.initiatingRank)
      f.collateralReason = "follows from rank " + std::to_string(*inc.initiatingRank) + "'s failure";
  }

  if (inc.launcherRootCause && inc.initiatingRank && *inc.launcherRootCause != *inc.initiatingRank) {
    inc.launcherNote = "torchrun's summary names rank " + std::to_string(*inc.launcherRootCause) +
                       " as the first observed failure, but rank " + std::to_string(*inc.launcherRootCause) +
                       "'s failure followed from rank " + std::to_string(*inc.initiatingRank) +
                       " (torchrun orders failures by whole-second timestamps and knows nothing of collateral failures)";
  }
  return inc;
}

}  // namespace denpex::core
