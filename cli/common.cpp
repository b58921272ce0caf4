// Rule loading, file reading and the on-disk SourceProvider for the CLI (see common.h).
#include "cli/common.h"

#include <unistd.h>

#include <algorithm>
#include <map>
#include <ostream>
#include <fstream>
#include <set>
#include <sstream>

namespace denpex::cli {

namespace fs = std::filesystem;

bool isTerminal(int fd) { return ::isatty(fd) == 1; }



RuleLoad loadRules(const std::vector<std::string>& extraDirs, bool builtin) {
  RuleLoad load;
  if (builtin) {
    auto errs = load.rules.add(core::builtinRuleSources());
    load.errors.insert(load.errors.end(), errs.begin(), errs.end());
  }
  std::vector<std::string> dirs;
  std::error_code ec;
  if (fs::is_directory(".denpex/rules", ec)) dirs.push_back(".denpex/rules");
  dirs.insert(dirs.end(), extraDirs.begin(), extraDirs.end());
  for (const auto& d : dirs) {
    auto sources = readRuleDir(d, load.errors);
    auto errs = load.rules.add(sources);
    load.errors.insert(load.errors.end(), errs.begin(), errs.end());
  }
  return load;
}




int applyPlans(const std::vector<std::vector<core::FixPlan>>& plans, std::ostream& log) {
  std::map<std::string, std::pair<std::string, std::vector<core::TextEdit>>> byFile;
  for (const auto& list : plans) {
    for (const auto& plan : list) {
      if (!plan.applicable) continue;
      auto& entry = byFile[plan.path];
      entry.first = plan.originalText;
      entry.second.insert(entry.second.end(), plan.edits.begin(), plan.edits.end());
    }
  }
  int status = 0;
  for (auto& [path, entry] : byFile) {
    auto& edits = entry.second;
    std::sort(edits.begin(), edits.end(), [](const auto& a, const auto& b) { return a.begin < b.begin; });
    edits.erase(std::unique(edits.begin(), edits.end(),
                            [](const auto& a, const auto& b) { return a.begin == b.begin && a.end == b.end && a.newText == b.newText; }),
                edits.end());
    std::string error;
    auto now = readFile(path, error);
    if (!now || *now != entry.first) {
      log << "denpex: " << path << " changed since it was read; not written\n";
      status = kExitUsage;
      continue;
    }
    std::string updated = core::applyEdits(entry.first, edits);
    fs::path tmp = fs::path(path).concat(".denpex-tmp");
    {
      std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
      out << updated;
      if (!out) {
        log << "denpex: cannot write " << tmp.string() << "\n";
        status = kExitUsage;
        continue;
      }
    }
    std::error_code ec;
    fs::permissions(tmp, fs::status(path, ec).permissions(), ec);
    fs::rename(tmp, path, ec);
    if (ec) {
      log << "denpex: cannot replace " << path << ": " << ec.message() << "\n";
      fs::remove(tmp, ec);
      status = kExitUsage;
      continue;
    }
    log << "denpex: applied " << edits.size() << " edit" << (edits.size() == 1 ? "" : "s") << " to " << path << "\n";
  }
  return status;
}

}  // namespace denpex::cli
