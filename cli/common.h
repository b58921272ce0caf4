// What the CLI's subcommands share: rule loading (shipped, user folders), reading inputs, and
// the SourceProvider over files on disk.
#pragma once

#include <filesystem>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "cli/disk_sources.h"
#include "core/fix_planner.h"
#include "core/rule.h"

namespace denpex::cli {

// Exit codes, as linters use them.
constexpr int kExitClean = 0;
constexpr int kExitFound = 1;
constexpr int kExitUsage = 2;


// The shipped rules, then the workspace's `.denpex/rules/` (when present under `cwd`), then
// each `--rules DIR`, later ones overriding earlier ones by id.
struct RuleLoad {
  core::RuleSet rules;
  std::vector<core::RuleError> errors;
};
RuleLoad loadRules(const std::vector<std::string>& extraDirs, bool builtin = true);



// Writes the applicable plans (edits of one file merged), refusing any file whose text changed
// since it was planned; each file is replaced atomically. Says what it did on `log`. Returns
// kExitClean, or kExitUsage when some file was not written.
int applyPlans(const std::vector<std::vector<core::FixPlan>>& plans, std::ostream& log);

bool isTerminal(int fd);

int runDiagnose(const std::vector<std::string>& args);
int runExplain(const std::vector<std::string>& args);
int runRules(const std::vector<std::string>& args);
int runRun(const std::vector<std::string>& args);

}  // namespace denpex::cli
