// `denpex run -- CMD...`: run a training command, pass its output through unchanged, keep a
// copy, and diagnose it when the command fails. The exit status is the command's.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <boost/process.hpp>
#include <boost/process/extend.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <thread>

#include "cli/common.h"

namespace denpex::cli {

namespace bp = boost::process;
namespace fs = std::filesystem;

namespace {

constexpr const char* kUsage = R"(usage: denpex run [options] -- COMMAND [ARGS...]

Runs COMMAND (for example `torchrun --nproc_per_node 8 train.py`), passes its standard output and
error through unchanged, keeps a copy, and when COMMAND fails prints the diagnosis after its
output. The exit status is COMMAND's (128+N when a signal N ended it).

options:
  --log FILE      keep the copy in FILE (default: a file in the temp folder, removed on success)
  --source PATH   your project folder, or a file to fix (as for diagnose; repeatable)
  --rules DIR     also load the rules in DIR (repeatable; rules are code: only folders you trust)
  --color WHEN    for the diagnosis: auto (default), always or never
  --grace SECONDS after passing on a SIGINT, SIGTERM or SIGHUP, wait this long (default 10)
                  before killing the command's process group

COMMAND runs in its own process group. SIGINT, SIGTERM and SIGHUP sent to denpex (Ctrl-C
included) go to that whole group; if it has not exited after the grace period it is killed.
Once COMMAND has exited, denpex waits at most 2 seconds for processes it left behind to close
its output.
)";

// The command's process group, once it exists, and the last signal passed on to it (0: none).
std::atomic<pid_t> gGroup{0};
std::atomic<int> gSignal{0};

void forwardSignal(int sig) {
  gSignal = sig;
  pid_t group = gGroup.load();
  if (group > 0) ::kill(-group, sig);
}

// In the child, between fork and exec: its own process group (so that a signal reaches its
// workers too), and the signal mask and dispositions of a fresh process.
struct OwnGroup : bp::extend::handler {
  template <class Executor>
  void on_exec_setup(Executor&) const {
    ::setpgid(0, 0);
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) ::signal(sig, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
  }
};

// Copies one of the child's streams to ours as bytes, as they come, and to the log a whole
// line at a time, so that stdout and stderr lines never break into each other in the copy. Stops
// at the end of the stream, or once `stopAt` (set when the command exits) has passed: processes
// the command left behind may hold the stream open for ever.
void pump(int from, int to, std::ofstream& log, std::mutex& logMutex, const std::atomic<int64_t>& stopAt) {
  char buf[65536];
  std::string partial;
  auto toLog = [&](bool all) {
    size_t end = all ? partial.size() : partial.rfind('\n');
    if (end == std::string::npos) return;
    if (!all) ++end;
    std::lock_guard<std::mutex> lock(logMutex);
    log.write(partial.data(), static_cast<std::streamsize>(end));
    log.flush();
    partial.erase(0, end);
  };
  auto now = [] {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
  };
  while (true) {
    pollfd p{from, POLLIN, 0};
    int ready = ::poll(&p, 1, 100);
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) {
      int64_t stop = stopAt.load();
      if (stop > 0 && now() >= stop) break;
      continue;
    }
    ssize_t n = ::read(from, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    for (ssize_t off = 0; off < n;) {
      ssize_t w = ::write(to, buf + off, static_cast<size_t>(n - off));
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) break;
      off += w;
    }
    partial.append(buf, static_cast<size_t>(n));
    toLog(partial.size() > (1 << 20));  // a progress bar redrawn with '\r' for ever still reaches the log
  }
  toLog(true);
}

}  // namespace

int runRun(const std::vector<std::string>& args) {
  std::string logPath, color = "auto";
  std::chrono::milliseconds grace(10000);
  std::vector<std::string> diagnoseArgs, command;
  size_t i = 0;
  for (; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") {
      ++i;
      break;
    }
    if (a == "-h" || a == "--help") {
      std::cout << kUsage;
      return kExitClean;
    }
    if ((a == "--log" || a == "--source" || a == "--rules" || a == "--color" || a == "--grace") && i + 1 < args.size()) {
      if (a == "--log") logPath = args[++i];
      else if (a == "--color") color = args[++i];
      else if (a == "--grace") {
        char* end = nullptr;
        const std::string& v = args[++i];
        double g = std::strtod(v.c_str(), &end);
        if (v.empty() || *end != '\0' || !(g >= 0 && g <= 3600)) {
          std::cerr << "denpex run: --grace takes a number of seconds from 0 to 3600\n";
          return kExitUsage;
        }
        grace = std::chrono::milliseconds(static_cast<int64_t>(g * 1000));
      }
      else {
        diagnoseArgs.push_back(a);
        diagnoseArgs.push_back(args[++i]);
      }
      continue;
    }
    if (!a.empty() && a[0] == '-') {
      std::cerr << "denpex run: unknown option '" << a << "'\n(see 'denpex run --help')\n";
      return kExitUsage;
    }
    break;  // the command starts here (without "--")
  }
  command.assign(args.begin() + static_cast<std::ptrdiff_t>(i), args.end());
  if (command.empty()) {
    std::cerr << "denpex run: which command? e.g. denpex run -- python train.py\n";
    return kExitUsage;
  }

  fs::path exe = command[0];
  if (command[0].find('/') == std::string::npos) exe = bp::search_path(command[0]).string();
  std::error_code ec;
  if (exe.empty() || !fs::exists(exe, ec)) {
    std::cerr << "denpex run: cannot start '" << command[0] << "': command not found\n";
    return 127;
  }
  if (::access(exe.c_str(), X_OK) != 0) {
    std::cerr << "denpex run: cannot start '" << command[0] << "': permission denied\n";
    return 126;
  }

  // Until the handlers below are in place a signal waits, so that none can end denpex between
  // making its temp log or its child and being ready to pass the signal on.
  sigset_t handled, previousMask;
  sigemptyset(&handled);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&handled, sig);
  ::sigprocmask(SIG_BLOCK, &handled, &previousMask);
  struct sigaction forward {}, oldInt{}, oldTerm{}, oldHup{}, ignore{}, oldTtou{};
  forward.sa_handler = forwardSignal;
  sigemptyset(&forward.sa_mask);
  ignore.sa_handler = SIG_IGN;
  gSignal = 0;
  ::sigaction(SIGINT, &forward, &oldInt);
  ::sigaction(SIGTERM, &forward, &oldTerm);
  ::sigaction(SIGHUP, &forward, &oldHup);
  ::sigaction(SIGTTOU, &ignore, &oldTtou);  // taking the terminal back must not stop us
  auto restoreSignals = [&] {
    ::sigaction(SIGINT, &oldInt, nullptr);
    ::sigaction(SIGTERM, &oldTerm, nullptr);
    ::sigaction(SIGHUP, &oldHup, nullptr);
    ::sigaction(SIGTTOU, &oldTtou, nullptr);
    ::sigprocmask(SIG_SETMASK, &previousMask, nullptr);
  };

  bool tempLog = logPath.empty();
  if (tempLog) {
    std::string templ = (fs::temp_directory_path() / "denpex-run-XXXXXX.log").string();
    int fd = ::mkstemps(templ.data(), 4);
    if (fd < 0) {
      restoreSignals();
      std::cerr << "denpex run: cannot create a log file in " << fs::temp_directory_path().string() << "\n";
      return kExitUsage;
    }
    ::close(fd);
    logPath = templ;
  }
  std::ofstream log(logPath, std::ios::binary | std::ios::trunc);
  if (!log) {
    restoreSignals();
    std::cerr << "denpex run: cannot write " << logPath << "\n";
    return kExitUsage;
  }

  auto nowMs = [] {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
  };
  int status = 0;
  {
    bp::pipe out, err;
    std::unique_ptr<bp::child> child;
    try {
      child = std::make_unique<bp::child>(exe.string(), bp::args(std::vector<std::string>(command.begin() + 1, command.end())),
                                          bp::std_out > out, bp::std_err > err, OwnGroup{});
    } catch (const bp::process_error& e) {
      restoreSignals();
      std::cerr << "denpex run: cannot start '" << command[0] << "': " << e.code().message() << "\n";
      if (tempLog) fs::remove(logPath, ec);
      return 127;
    }
    pid_t pid = child->id();
    ::setpgid(pid, pid);  // also from here, so that the group exists before any signal is passed on
    gGroup = pid;
    // At an interactive terminal the command's group gets the terminal (as a shell does), so
    // that Ctrl-C and reads from the terminal go to it; denpex takes it back afterwards.
    bool handedTerminal = ::isatty(STDIN_FILENO) && ::tcgetpgrp(STDIN_FILENO) == ::getpgrp() && ::tcsetpgrp(STDIN_FILENO, pid) == 0;
    ::sigprocmask(SIG_SETMASK, &previousMask, nullptr);  // a signal that came meanwhile is passed on now
    std::mutex logMutex;
    int outFd = out.native_source(), errFd = err.native_source();
    // Our copies of the write ends must close, or the reads below never see the end.
    ::close(out.native_sink());
    out.assign_sink(-1);
    ::close(err.native_sink());
    err.assign_sink(-1);
    std::atomic<int64_t> stopAt{0};
    std::thread a([&] { pump(outFd, STDOUT_FILENO, log, logMutex, stopAt); });
    std::thread b([&] { pump(errFd, STDERR_FILENO, log, logMutex, stopAt); });
    // Wait for the command; after a signal was passed on, kill its group once the grace is over.
    int64_t signalledAt = 0;
    bool killed = false;
    std::error_code waitError;
    while (child->running(waitError) && !waitError) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      if (gSignal.load() && !signalledAt) signalledAt = nowMs();
      if (signalledAt && !killed && nowMs() - signalledAt >= grace.count()) {
        std::cerr << "\ndenpex: the command did not stop within " << grace.count() / 1000.0 << " s of the signal; killing it\n";
        ::kill(-pid, SIGKILL);
        killed = true;
      }
    }
    status = child->native_exit_code();
    // Processes it left behind may hold its output open: read what they write for a short while.
    stopAt = nowMs() + 2000;
    a.join();
    b.join();
    gGroup = 0;
    if (handedTerminal) ::tcsetpgrp(STDIN_FILENO, ::getpgrp());
    restoreSignals();
  }
  log.close();
  int code = WIFEXITED(status) ? WEXITSTATUS(status) : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 1;
  if (code == 0) {
    if (tempLog) fs::remove(logPath, ec);
    return 0;
  }
  std::cout.flush();
  if (code == 128 + SIGINT) {
    // Stopped with Ctrl-C: the user knows why; keep the log, skip the diagnosis.
    std::cerr << "\ndenpex: the command was interrupted; the log is kept in " << logPath << "\n";
    return code;
  }
  std::cerr << "\ndenpex: the command exited with status " << code << "; the log is kept in " << logPath << "\n\n";
  std::vector<std::string> d = diagnoseArgs;
  d.insert(d.end(), {"--color", color, logPath});
  runDiagnose(d);
  return code;
}

}  // namespace denpex::cli
