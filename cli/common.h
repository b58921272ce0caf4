// What the CLI's subcommands share: exit codes, rule loading as the CLI does it, terminals.
#pragma once

#include <string>
#include <vector>

#include "io/rule_dirs.h"

namespace denpex::cli {

// Exit codes, as linters use them.
constexpr int kExitClean = 0;
constexpr int kExitFound = 1;
constexpr int kExitUsage = 2;

// The shipped rules (unless `builtin` is false), then `.denpex/rules/` of the current folder
// when present, then each `--rules DIR`, later ones overriding earlier ones by id.
io::LoadedRules loadRules(const std::vector<std::string>& extraDirs, bool builtin = true);

bool isTerminal(int fd);

int runDiagnose(const std::vector<std::string>& args);
int runExplain(const std::vector<std::string>& args);
int runRules(const std::vector<std::string>& args);
int runRun(const std::vector<std::string>& args);

}  // namespace denpex::cli
