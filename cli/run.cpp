// `denpex run -- CMD...`: run a training command, pass its output through unchanged, keep a
// copy, and diagnose it when the command fails. The exit status is the command's.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <boost/process.hpp>
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
)";

std::atomic<pid_t> gChild{0};

void forwardSignal(int sig) {
  pid_t pid = gChild.load();
  if (pid > 0) ::kill(pid, sig);
}

// Copies one of the child's streams to ours as bytes, as they come, and to the log a whole
// line at a time, so that stdout and stderr lines never break into each other in the copy.
void pump(int from, int to, std::ofstream& log, std::mutex& logMutex) {
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
  while (true) {
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
    if ((a == "--log" || a == "--source" || a == "--rules" || a == "--color") && i + 1 < args.size()) {
      if (a == "--log") logPath = args[++i];
      else if (a == "--color") color = args[++i];
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

  bool tempLog = logPath.empty();
  if (tempLog) {
    std::string templ = (fs::temp_directory_path() / "denpex-run-XXXXXX.log").string();
    int fd = ::mkstemps(templ.data(), 4);
    if (fd < 0) {
      std::cerr << "denpex run: cannot create a log file in " << fs::temp_directory_path().string() << "\n";
      return kExitUsage;
    }
    ::close(fd);
    logPath = templ;
  }
  std::ofstream log(logPath, std::ios::binary | std::ios::trunc);
  if (!log) {
    std::cerr << "denpex run: cannot write " << logPath << "\n";
    return kExitUsage;
  }

  int status = 0;
  {
    bp::pipe out, err;
    std::unique_ptr<bp::child> child;
    try {
      child = std::make_unique<bp::child>(exe.string(), bp::args(std::vector<std::string>(command.begin() + 1, command.end())),
                                          bp::std_out > out, bp::std_err > err);
    } catch (const bp::process_error& e) {
      std::cerr << "denpex run: cannot start '" << command[0] << "': " << e.code().message() << "\n";
      if (tempLog) fs::remove(logPath, ec);
      return 127;
    }
    gChild = child->id();
    // Ctrl-C goes to the whole foreground group, the child included: we stay to report. A
    // SIGTERM or SIGHUP sent to us alone is passed on.
    struct sigaction ignore {}, forward{}, oldInt{}, oldTerm{}, oldHup{};
    ignore.sa_handler = SIG_IGN;
    forward.sa_handler = forwardSignal;
    ::sigaction(SIGINT, &ignore, &oldInt);
    ::sigaction(SIGTERM, &forward, &oldTerm);
    ::sigaction(SIGHUP, &forward, &oldHup);
    std::mutex logMutex;
    int outFd = out.native_source(), errFd = err.native_source();
    // Our copies of the write ends must close, or the reads below never see the end.
    ::close(out.native_sink());
    out.assign_sink(-1);
    ::close(err.native_sink());
    err.assign_sink(-1);
    std::thread a([&] { pump(outFd, STDOUT_FILENO, log, logMutex); });
    std::thread b([&] { pump(errFd, STDERR_FILENO, log, logMutex); });
    a.join();
    b.join();
    child->wait();
    status = child->native_exit_code();
    gChild = 0;
    ::sigaction(SIGINT, &oldInt, nullptr);
    ::sigaction(SIGTERM, &oldTerm, nullptr);
    ::sigaction(SIGHUP, &oldHup, nullptr);
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
