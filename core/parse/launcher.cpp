// torchrun's summary, its SIGTERMs, the NCCL watchdog and the desync report (see launcher.h).
#include "core/parse/launcher.h"

#include <algorithm>
#include <cstdlib>

#include "core/base/text.h"
#include "core/parse/traceback.h"

namespace denpex::core {

using text::trim;

namespace {

std::optional<long long> numberAfter(std::string_view m, std::string_view key) {
  size_t at = m.find(key);
  if (at == std::string_view::npos) return std::nullopt;
  size_t i = at + key.size();
  bool neg = i < m.size() && m[i] == '-';
  if (neg) ++i;
  if (i >= m.size() || !text::isDigit(m[i])) return std::nullopt;
  long long v = 0;
  while (i < m.size() && text::isDigit(m[i])) v = v * 10 + (m[i++] - '0');
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
    while (i < inner.size() && !text::isDigit(inner[i])) ++i;
    if (i >= inner.size()) break;
    out.push_back(std::atoi(inner.c_str() + i));
    while (i < inner.size() && text::isDigit(inner[i])) ++i;
  }
  return out;
}

void addAll(std::vector<int>& to, const std::vector<int>& from) {
  for (int r : from)
    if (std::find(to.begin(), to.end(), r) == to.end()) to.push_back(r);
}

}  // namespace

namespace {
constexpr std::pair<std::string_view, int> kSignals[] = {{"SIGHUP", 1},  {"SIGINT", 2},  {"SIGQUIT", 3}, {"SIGILL", 4},
                                                         {"SIGABRT", 6}, {"SIGBUS", 7},  {"SIGFPE", 8},  {"SIGKILL", 9},
                                                         {"SIGSEGV", 11}, {"SIGPIPE", 13}, {"SIGTERM", 15}};
}  // namespace

std::optional<int> signalNumber(std::string_view name) {
  for (const auto& [n, number] : kSignals)
    if (n == name) return number;
  return std::nullopt;
}

std::string signalName(int number) {
  for (const auto& [n, num] : kSignals)
    if (num == number) return std::string(n);
  return "signal " + std::to_string(number);
}

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
  // The elastic agent's own line when a worker ends: "failed (exitcode: -9) local_rank: 3 (pid: 180497)
  // of binary: ..." (torch >= 1.9; newer releases prefix it with glog's "E0613 07:54:22.195000 ...").
  // On one node the local rank is the rank.
  if (size_t at = m.find("failed (exitcode: "); at != std::string_view::npos && m.find("local_rank: ", at) != std::string_view::npos) {
    LauncherFailure f;
    f.exitCode = static_cast<int>(numberAfter(m.substr(at), "failed (exitcode: ").value_or(0));
    f.localRank = static_cast<int>(numberAfter(m.substr(at), "local_rank: ").value_or(-1));
    f.rank = f.localRank;
    f.pid = numberAfter(m.substr(at), "(pid: ");
    f.source = line.source;
    f.line = line.lineNo;
    if (f.rank >= 0) failures_.push_back(f);
    current_ = nullptr;
    return;
  }
  // torch.multiprocessing.spawn's join() when a child was killed: "ProcessExitedException: process
  // 1 terminated with signal SIGSEGV" (before torch 1.6 a plain "Exception: process 0 terminated
  // with signal SIGKILL"). The process index is the one spawn passed to the function, the local
  // rank in the usual pattern.
  if (size_t at = m.find("process "); at != std::string_view::npos && (at == 0 || m[at - 1] == ' ') &&
                                      m.find(" terminated with ", at) != std::string_view::npos &&
                                      (m.find("Exception: ") != std::string_view::npos)) {
    std::string_view rest = m.substr(at + 8);
    size_t digits = 0;
    while (digits < rest.size() && text::isDigit(rest[digits])) ++digits;
    std::string_view after = rest.substr(digits);
    if (digits > 0 && digits < 6 && after.rfind(" terminated with ", 0) == 0) {
      LauncherFailure f;
      f.rank = f.localRank = std::atoi(std::string(rest.substr(0, digits)).c_str());
      f.source = line.source;
      f.line = line.lineNo;
      after.remove_prefix(17);
      if (after.rfind("signal SIG", 0) == 0) {
        size_t end = 7;
        while (end < after.size() && text::isAlpha(after[end])) ++end;
        f.signal = std::string(after.substr(7, end - 7));
        if (auto number = signalNumber(f.signal)) f.exitCode = -*number;
      }
      // Only a signal says something the child's own lines cannot: an exit code follows the
      // child's traceback, which names the failure already.
      if (!f.signal.empty()) failures_.push_back(f);
      current_ = nullptr;
      return;
    }
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
  if (section_ == Section::kFailures && m == "<NO_OTHER_FAILURES>") {
    noOtherFailures_ = true;
    return;
  }
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
  } else if (isExceptionLine(m)) {
    // The last line of the rank's traceback (printed when the entry point has @record).
    current_->exception = std::string(m);
  }
  size_t sig = m.find("Signal ");
  if (sig != std::string_view::npos && m.find("received by PID", sig) != std::string_view::npos) {
    size_t open = m.find('(', sig), close = m.find(')', sig);
    if (open != std::string_view::npos && close != std::string_view::npos && close > open)
      current_->signal = std::string(m.substr(open + 1, close - open - 1));
  }
}

const std::vector<std::string_view>& LauncherTracker::phrases() {
  // Every phrase add() looks for outside a summary section.
  static const std::vector<std::string_view>& kPhrases = *new std::vector<std::string_view>{
      "are the lagging ranks", "finished collective #", "joined but didn't finish", "NCCL work",
      "First PG on this rank", "dump signal", "failed (exitcode: ", "Root Cause (first observed failure):",
      "Failures:", "Sending process ", " terminated with ", "===="};
  return kPhrases;
}

bool LauncherTracker::concerns(std::string_view message) {
  std::string_view m = trim(message);
  if (m.empty()) return false;
  if (m.rfind("====", 0) == 0) return true;
  for (std::string_view phrase : phrases())
    if (phrase != "====" && m.find(phrase) != std::string_view::npos) return true;
  return false;
}

std::optional<int> LauncherTracker::rankOfPid(long long pid) const {
  for (const auto& f : failures_)
    if (f.pid && *f.pid == pid) return f.rank;
  return std::nullopt;
}

}  // namespace denpex::core
