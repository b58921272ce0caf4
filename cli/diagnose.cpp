// `denpex diagnose`: read logs (files or stdin), diagnose, print, and optionally fix sources.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>

#include "cli/common.h"
#include "core/analyze/diagnoser.h"
#include "core/fix/planner.h"
#include "core/render/report.h"
#include "io/apply_edits.h"
#include "io/files.h"
#include "io/log_folder.h"
#include "io/parallel_feed.h"
#include "io/workspace_sources.h"

namespace denpex::cli {

namespace fs = std::filesystem;

namespace {

constexpr const char* kUsage = R"(usage: denpex diagnose [options] [PATH ...]

Diagnoses training logs. With no PATH, or with '-', reads standard input. A PATH that is a
folder is read as per-rank logs (torchrun --log_dir, one file per rank or host).

options:
  --format FORMAT   text (default), json, markdown or sarif
  --fix             show the source fixes as a unified diff
  --apply           write the source fixes (never over a file that changed meanwhile)
  --source PATH     a folder: your project, where fixes may be written (default: the
                    repository holding the current folder, else the current folder);
                    a file: also fix this file (repeatable)
  --allow-outside   let --apply write files outside the project
  --rules DIR       also load the rules in DIR (repeatable; rules are code: load only
                    folders you trust; a repository's .denpex/rules is never loaded unless named)
  --color WHEN      auto (default), always or never
  --threads N       threads that read a big log (default: one per core)
  --stats           also print, on standard error, what was read and where the time went
  -h, --help        show this help

exit status: 0 nothing found, 1 a failure diagnosed, 2 usage or input error
)";

struct Options {
  std::string format = "text";
  bool fix = false;
  bool apply = false;
  bool allowOutside = false;
  std::vector<std::string> sources;
  std::vector<std::string> ruleDirs;
  std::string color = "auto";
  unsigned threads = 0;
  bool stats = false;
  std::vector<std::string> paths;
};

int usageError(const std::string& message) {
  std::cerr << "denpex diagnose: " << message << "\n(see 'denpex diagnose --help')\n";
  return kExitUsage;
}

// --stats: what was read and where the time went, one figure a line ("stats: NAME VALUE"), on
// standard error so that the report on standard output stays as it is.
void printStats(const io::FeedStats& stats, uint64_t lines, std::chrono::steady_clock::duration took) {
  auto seconds = [](double s) {
    char b[32];
    std::snprintf(b, sizeof b, "%.3f", s);
    return std::string(b);
  };
  auto ns = [&](const std::atomic<uint64_t>& v) { return seconds(static_cast<double>(v.load()) / 1e9); };
  const double wall = std::chrono::duration<double>(took).count();
  std::cerr << "stats: bytes " << stats.bytes.load() << "\n"
            << "stats: lines " << lines << "\n"
            << "stats: threads " << stats.threads.load() << "\n"
            << "stats: seconds " << seconds(wall) << "  (the diagnosis: reading, analysing, applying, the verdict)\n"
            << "stats: reading " << ns(stats.readNs) << "  (one block at a time)\n"
            << "stats: analysing " << ns(stats.analyzeNs) << "  (every thread's time, added up)\n"
            << "stats: applying " << ns(stats.applyNs) << "  (in the input's order, one block at a time)\n";
}

}  // namespace

int runDiagnose(const std::vector<std::string>& args) {
  Options opt;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> std::optional<std::string> {
      if (i + 1 >= args.size()) return std::nullopt;
      return args[++i];
    };
    if (a == "-h" || a == "--help") {
      std::cout << kUsage;
      return kExitClean;
    } else if (a == "--threads") {
      auto v = value();
      char* end = nullptr;
      unsigned long n = v ? std::strtoul(v->c_str(), &end, 10) : 0;
      if (!v || v->empty() || *end != '\0' || n == 0 || n > 256) return usageError("--threads takes a number from 1 to 256");
      opt.threads = static_cast<unsigned>(n);
    } else if (a == "--format" || a == "--source" || a == "--rules" || a == "--color") {
      auto v = value();
      if (!v) return usageError(a + " needs a value");
      if (a == "--format") opt.format = *v;
      else if (a == "--source") opt.sources.push_back(*v);
      else if (a == "--rules") opt.ruleDirs.push_back(*v);
      else opt.color = *v;
    } else if (a.rfind("--format=", 0) == 0) {
      opt.format = a.substr(9);
    } else if (a == "--stats") {
      opt.stats = true;
    } else if (a == "--fix") {
      opt.fix = true;
    } else if (a == "--allow-outside") {
      opt.allowOutside = true;
    } else if (a == "--apply") {
      opt.apply = true;
      opt.fix = true;
    } else if (a == "-") {
      opt.paths.push_back(a);
    } else if (a.size() > 1 && a[0] == '-') {
      return usageError("unknown option '" + a + "'");
    } else {
      opt.paths.push_back(a);
    }
  }
  if (!knownFormat(opt.format))
    return usageError("unknown format '" + opt.format + "' (expected text, json, markdown or sarif)");
  if (opt.color != "auto" && opt.color != "always" && opt.color != "never")
    return usageError("--color takes auto, always or never");
  std::error_code ec;
  // Where fixes may be written: the folders named with --source, else the project of the
  // current folder (frame paths relative to the current folder are found there first).
  io::WorkspaceSources::Options where;
  where.relativeToCurrentFolder = true;
  where.chooseHint = "name the file with --source FILE";
  for (const auto& s : opt.sources) {
    if (fs::is_directory(s, ec)) where.roots.emplace_back(s);
    else if (fs::is_regular_file(s, ec)) where.named.emplace_back(s);
    else return usageError("--source " + s + ": no such file or folder");
  }
  if (where.roots.empty()) {
    where.roots.emplace_back(".");
    fs::path project = io::projectRoot(".");
    if (!fs::equivalent(project, ".", ec)) where.roots.push_back(project);
  }
  if (opt.paths.empty()) {
    if (isTerminal(STDIN_FILENO)) return usageError("no log given (pass a file, or pipe a log into 'denpex diagnose -')");
    opt.paths.push_back("-");
  }

  io::LoadedRules load = loadRules(opt.ruleDirs);
  for (const auto& e : load.errors) std::cerr << "denpex: rule error: " << e.format() << "\n";
  reportRuleFolders(load, opt.ruleDirs);
  core::Diagnoser diagnoser(load.rules, *load.matcher);
  io::FeedOptions feedOptions;
  feedOptions.threads = opt.threads;
  io::FeedStats stats;
  if (opt.stats) feedOptions.stats = &stats;
  const auto started = std::chrono::steady_clock::now();
  // Every log is matched with the Vectorscan prefilter: the one saved for the shipped rules (it
  // loads in a millisecond, where the RE2::Set it spares compiles in ten), one cached for rules of
  // one's own, or, for a big log, one compiled meanwhile.
  uintmax_t totalBytes = 0;
  for (const auto& path : opt.paths) {
    if (path == "-") continue;
    if (fs::is_regular_file(path, ec)) totalBytes += fs::file_size(path, ec);
    else if (fs::is_directory(path, ec)) totalBytes += io::folderLogBytes(path);  // per-rank logs
  }
  io::LazyPrefilter prefilter(*load.matcher);
  prefilter.prepareFor(totalBytes);  // or, for less, other rules compiled for a bigger log before
  feedOptions.lazyPrefilter = &prefilter;

  for (const auto& path : opt.paths) {
    if (path == "-") {
      diagnoser.beginSource("<stdin>");
      if (!io::feedStream(diagnoser, *load.matcher, std::cin, feedOptions)) return usageError("error reading standard input");
      continue;
    }
    auto status = fs::status(path, ec);
    if (ec || !fs::exists(status)) return usageError(path + ": no such file");
    if (fs::is_directory(status)) {
      // A folder of per-rank logs (torchrun --log_dir, one file per rank or host).
      std::string error;
      std::vector<std::string> warnings;
      io::FolderFeed folderFeed;
      folderFeed.matcher = load.matcher.get();
      folderFeed.options = feedOptions;
      auto fed = io::feedFolder(path, diagnoser, error, nullptr, &warnings, UINTMAX_MAX, folderFeed);
      for (const auto& w : warnings) std::cerr << "denpex: warning: " << w << "\n";
      if (fed.empty())
        return usageError(!error.empty() ? error : path + ": a folder with no log files (*.log, *.txt, *.out, *.err, error.json)");
      continue;
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) return usageError(path + ": cannot be read (permission denied?)");
    diagnoser.beginSource(path);
    if (!io::feedStream(diagnoser, *load.matcher, in, feedOptions)) return usageError(path + ": read error");
  }
  core::Diagnosis diagnosis = diagnoser.finish();
  if (opt.stats) printStats(stats, diagnosis.lines, std::chrono::steady_clock::now() - started);

  // Fix plans are always made: the text report names them, JSON and SARIF carry them, and
  // --fix / --apply show or write them.
  std::vector<std::vector<core::FixPlan>> plans(diagnosis.findings.size());
  io::WorkspaceSources sources(std::move(where));
  for (size_t i = 0; i < diagnosis.findings.size(); ++i) plans[i] = core::planFixes(diagnosis.findings[i], sources);
  printReport(core::ReportInput{diagnosis, plans}, opt.format, opt.color, opt.fix);
  if (opt.apply) {
    if (!io::applyPlans(plans, std::cerr, opt.allowOutside)) return kExitUsage;
  }
  return diagnosis.findings.empty() ? kExitClean : kExitFound;
}

}  // namespace denpex::cli
