// `denpex check`: the failures a training script will meet, found in its source before the run.
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <map>

#include "cli/common.h"
#include "core/check/source_checks.h"
#include "core/fix/planner.h"
#include "core/render/report.h"
#include "io/apply_edits.h"
#include "io/files.h"
#include "io/machine_probe.h"
#include "io/workspace_sources.h"

namespace denpex::cli {

namespace fs = std::filesystem;

namespace {

constexpr const char* kUsage = R"(usage: denpex check [options] [PATH ...]

Checks training scripts and DeepSpeed configs before the run: the failures denpex diagnoses
from logs afterwards, where the source alone shows them (float16 parameters with AdamW's
default eps, DDP around an unused layer, a DeepSpeed config that disagrees with the script's
TrainingArguments, ...). Each finding is that runtime failure's rule, with its explanation and
its fix. A PATH is a Python file, a JSON config, or a folder (its *.py and *.json files, virtual
environments and build folders left out); with no PATH, the current folder. A config a script
names (TrainingArguments(deepspeed="ds_config.json")) is read beside the script, or in the
current folder.

options:
  --probe WHERE     also check the scripts against a machine: 'local' (probe this one now) or a
                    probe file made on the target by 'denpex probe --output FILE' (bfloat16 on
                    GPUs older than Ampere, DataLoader workers and a small /dev/shm, a driver
                    too old for the installed torch)
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

bool checkedFile(const fs::path& p) {
  return p.extension() == ".py" || p.extension() == ".json" || p.extension() == ".yaml" || p.extension() == ".yml";
}

// The Python files and JSON and YAML configs of a folder, sorted; a folder that holds none is an
// error for the caller.
std::vector<fs::path> checkedFiles(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, fs::directory_options::skip_permission_denied, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_directory(ec) && skippedFolder(it->path())) {
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file(ec) && checkedFile(it->path())) out.push_back(it->path().lexically_normal());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

int runCheck(const std::vector<std::string>& args) {
  std::string format = "text", color = "auto", probeFrom;
  bool fix = false, apply = false;
  std::vector<std::string> ruleDirs, paths;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "-h" || a == "--help") {
      std::cout << kUsage;
      return kExitClean;
    } else if (a == "--format" || a == "--rules" || a == "--color" || a == "--probe") {
      if (i + 1 >= args.size()) return usageError(a + " needs a value");
      const std::string& v = args[++i];
      if (a == "--format") format = v;
      else if (a == "--rules") ruleDirs.push_back(v);
      else if (a == "--probe") probeFrom = v;
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
      auto found = checkedFiles(p);
      if (found.empty()) return usageError(p + ": a folder with no Python files or JSON or YAML configs");
      files.insert(files.end(), found.begin(), found.end());
    } else {
      files.push_back(fs::path(p).lexically_normal());
    }
  }

  std::optional<core::MachineProbe> probe;
  if (probeFrom == "local") {
    probe = io::probeThisMachine();
  } else if (!probeFrom.empty()) {
    std::string error;
    auto text = io::readFile(probeFrom, error);
    if (!text) return usageError("--probe " + error);
    auto read = core::probeFromJson(*text, probeFrom);
    if (!read) return usageError(read.error());
    probe = std::move(*read);
  }

  io::LoadedRules load = loadRules(ruleDirs);
  for (const auto& e : load.errors) std::cerr << "denpex: rule error: " << e.format() << "\n";
  reportRuleFolders(load, ruleDirs);

  core::Diagnosis diagnosis;
  std::vector<std::vector<core::FixPlan>> plans;
  // Every file read, once, by path: a config a script names may be checked on its own too.
  std::map<std::string, std::pair<uint32_t, std::string>> read;
  auto sourceOf = [&](const fs::path& file, std::string& error,
                      io::ReadLimits limits = {}) -> const std::pair<uint32_t, std::string>* {
    auto known = read.find(file.string());
    if (known != read.end()) return &known->second;
    auto text = io::readFile(file, error, limits);
    if (!text) return nullptr;
    auto source = static_cast<uint32_t>(diagnosis.sources.size());
    diagnosis.sources.push_back(file.string());
    diagnosis.lines += static_cast<uint64_t>(std::count(text->begin(), text->end(), '\n'));
    return &read.emplace(file.string(), std::make_pair(source, std::move(*text))).first->second;
  };
  for (const auto& file : files) {
    std::string error;
    const auto* src = sourceOf(file, error);
    if (!src) return usageError(error);
    const uint32_t source = src->first;
    const std::string& text = src->second;
    // The DeepSpeed configs a script or an Accelerate config names, beside it or in the current
    // folder (io::namedConfigLimits).
    auto namedConfigs = [&](const std::vector<std::string>& names) {
      std::vector<core::NamedConfig> configs;
      for (const auto& name : names) {
        for (const fs::path& dir : {file.parent_path(), fs::path()}) {
          fs::path candidate = (dir / name).lexically_normal();
          auto limits = io::namedConfigLimits(candidate);
          std::string ignored;
          if (!limits) break;
          if (const auto* config = sourceOf(candidate, ignored, *limits)) {
            configs.push_back({name, config->second, config->first, candidate.string()});
            break;
          }
        }
      }
      return configs;
    };
    const core::MachineProbe* machine = probe ? &*probe : nullptr;
    std::vector<core::Finding> found;
    if (file.extension() == ".json") {
      found = core::checkDeepSpeedConfig(text, load.rules, source, file.string(), machine);
    } else if (file.extension() != ".py") {
      found = core::checkAccelerateConfig(text, load.rules, source, file.string(),
                                          namedConfigs(core::deepSpeedConfigsNamedByAccelerate(text)), machine);
      for (auto& f : core::checkTrainerRecipe(text, load.rules, source, file.string(), machine)) found.push_back(std::move(f));
    } else {
      found = core::checkPythonSource(text, load.rules, source, file.string(), namedConfigs(core::deepSpeedConfigsNamed(text)),
                                      machine);
    }
    for (auto& f : found) {
      // The fix goes where the finding's frame is: the file checked, or the config it names.
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

int runProbe(const std::vector<std::string>& args) {
  std::string output;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "-h" || args[i] == "--help") {
      std::cout << "usage: denpex probe [--output FILE]\n\n"
                   "Describes this machine for 'denpex check --probe FILE': its GPUs and their compute capability\n"
                   "(nvidia-smi), the NVIDIA driver, the size of /dev/shm, whether it is a container, the version\n"
                   "and CUDA build of the torch that python3 (or the active virtual environment) would import, and\n"
                   "the version of its DeepSpeed, read from their files without importing them. Run it on the\n"
                   "machine the job will run on (a cluster node) and check the scripts anywhere. Prints the probe\n"
                   "as JSON, or writes FILE. It always asks nvidia-smi anew; 'denpex check --probe local' reuses\n"
                   "the answer of this boot and driver from the cache folder.\n";
      return kExitClean;
    }
    if (args[i] == "--output" && i + 1 < args.size()) {
      output = args[++i];
    } else {
      std::cerr << "denpex probe: unknown argument '" << args[i] << "'\n(see 'denpex probe --help')\n";
      return kExitUsage;
    }
  }
  std::string json = core::probeToJson(io::probeThisMachine(/*fresh=*/true));
  if (output.empty()) {
    std::cout << json;
    return kExitClean;
  }
  std::ofstream out(output, std::ios::binary | std::ios::trunc);
  if (!(out << json) || !out.flush()) {
    std::cerr << "denpex probe: cannot write " << output << "\n";
    return kExitUsage;
  }
  std::cerr << "denpex probe: wrote " << output << "\n";
  return kExitClean;
}

}  // namespace denpex::cli
