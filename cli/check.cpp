// `denpex check`: the failures a training script will meet, found in its source before the run.
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "cli/common.h"
#include "core/check/source_checks.h"
#include "core/fix/planner.h"
#include "core/render/report.h"
#include "io/apply_edits.h"
#include "io/files.h"
#include "io/workspace_sources.h"

namespace denpex::cli {

namespace fs = std::filesystem;

namespace {

constexpr const char* kUsage = R"(usage: denpex check [options] [PATH ...]

Checks training scripts before the run: the failures denpex diagnoses from logs afterwards,
where the source alone shows them (float16 parameters with AdamW's default eps, ...). Each
finding is that runtime failure's rule, with its explanation and its fix. A PATH is a Python
file or a folder (its *.py files, virtual environments and build folders left out); with no
PATH, the current folder.

options:
  --format FORMAT   text (default), json, markdown or sarif
  --fix             show the fixes as a unified diff
  --apply           write the fixes (never over a file that changed meanwhile)
  --rules DIR       also load the rules in DIR (repeatable; rules are code)
  --color WHEN      auto (default), always or never
  -h, --help        show this help

exit status: 0 nothing found, 1 a failure foreseen, 2 usage or input error
)";

int usageError(const std::string& message) {
  std::cerr << "denpex check: " << message << "\n(see 'denpex check --help')\n";
  return kExitUsage;
}

bool skippedFolder(const fs::path& p) {
  std::string name = p.filename().string();
  return (name.size() > 1 && name[0] == '.') || name == "venv" || name == "env" || name == "site-packages" ||
         name == "node_modules" || name == "build" || name == "dist" || name == "__pycache__";
}

// The Python files of a folder, sorted; a folder that holds none is an error for the caller.
std::vector<fs::path> pythonFiles(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, fs::directory_options::skip_permission_denied, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_directory(ec) && skippedFolder(it->path())) {
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file(ec) && it->path().extension() == ".py") out.push_back(it->path().lexically_normal());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

int runCheck(const std::vector<std::string>& args) {
  std::string format = "text", color = "auto";
  bool fix = false, apply = false;
  std::vector<std::string> ruleDirs, paths;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "-h" || a == "--help") {
      std::cout << kUsage;
      return kExitClean;
    } else if (a == "--format" || a == "--rules" || a == "--color") {
      if (i + 1 >= args.size()) return usageError(a + " needs a value");
      const std::string& v = args[++i];
      if (a == "--format") format = v;
      else if (a == "--rules") ruleDirs.push_back(v);
      else color = v;
    } else if (a.rfind("--format=", 0) == 0) {
      format = a.substr(9);
    } else if (a == "--fix") {
      fix = true;
    } else if (a == "--apply") {
      apply = fix = true;
    } else if (a.size() > 1 && a[0] == '-') {
      return usageError("unknown option '" + a + "'");
    } else {
      paths.push_back(a);
    }
  }
  if (!knownFormat(format))
    return usageError("unknown format '" + format + "' (expected text, json, markdown or sarif)");
  if (color != "auto" && color != "always" && color != "never") return usageError("--color takes auto, always or never");
  if (paths.empty()) paths.push_back(".");

  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& p : paths) {
    auto status = fs::status(p, ec);
    if (ec || !fs::exists(status)) return usageError(p + ": no such file or folder");
    if (fs::is_directory(status)) {
      auto found = pythonFiles(p);
      if (found.empty()) return usageError(p + ": a folder with no Python files");
      files.insert(files.end(), found.begin(), found.end());
    } else {
      files.push_back(fs::path(p).lexically_normal());
    }
  }

  io::LoadedRules load = loadRules(ruleDirs);
  for (const auto& e : load.errors) std::cerr << "denpex: rule error: " << e.format() << "\n";
  reportRuleFolders(load, ruleDirs);

  core::Diagnosis diagnosis;
  std::vector<std::vector<core::FixPlan>> plans;
  for (const auto& file : files) {
    std::string error;
    auto text = io::readFile(file, error);
    if (!text) return usageError(error);
    uint32_t source = static_cast<uint32_t>(diagnosis.sources.size());
    diagnosis.sources.push_back(file.string());
    diagnosis.lines += static_cast<uint64_t>(std::count(text->begin(), text->end(), '\n'));
    for (auto& f : core::checkPythonSource(*text, load.rules, source, file.string())) {
      // The fix goes into the script itself (the finding's frame): the user named it by checking it.
      io::WorkspaceSources::Options where;
      where.relativeToCurrentFolder = true;
      where.roots.push_back(file.has_parent_path() ? file.parent_path() : fs::path("."));
      io::WorkspaceSources sources(std::move(where));
      plans.push_back(core::planFixes(f, sources));
      diagnosis.findings.push_back(std::move(f));
    }
  }

  printReport(core::ReportInput{diagnosis, plans}, format, color, fix);
  if (apply && !io::applyPlans(plans, std::cerr, false)) return kExitUsage;
  return diagnosis.findings.empty() ? kExitClean : kExitFound;
}

}  // namespace denpex::cli
