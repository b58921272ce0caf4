// What the CLI's subcommands share: exit codes, rule loading as the CLI does it, terminals.
#pragma once

#include <string>
#include <vector>

#include "core/render/report.h"
#include "io/rule_dirs.h"

namespace denpex::cli {

// Exit codes, as linters use them.
constexpr int kExitClean = 0;
constexpr int kExitFound = 1;
constexpr int kExitUsage = 2;

// The shipped rules (unless `builtin` is false), then each `--rules DIR`. A repository's own
// `.denpex/rules` is never loaded unless named with --rules: rules are code.
io::LoadedRules loadRules(const std::vector<std::string>& extraDirs, bool builtin = true);

// Tells the user on stderr which rule folders are in use (and which shipped rules they
// override), and that the current folder's .denpex/rules was not loaded when it exists and was
// not named.
void reportRuleFolders(const io::LoadedRules& load, const std::vector<std::string>& extraDirs);

bool isTerminal(int fd);

// The report formats `diagnose` and `check` print, and whether `format` is one of them.
bool knownFormat(const std::string& format);
// Prints the report to stdout in `format` (text, json, markdown or sarif); the text report in
// colour when `color` says so (auto: a terminal without NO_COLOR), with the fixes' diffs when
// `showDiff`.
void printReport(const core::ReportInput& report, const std::string& format, const std::string& color, bool showDiff);

int runDiagnose(const std::vector<std::string>& args);
int runCheck(const std::vector<std::string>& args);
int runProbe(const std::vector<std::string>& args);
int runExplain(const std::vector<std::string>& args);
int runRules(const std::vector<std::string>& args);
int runRun(const std::vector<std::string>& args);

}  // namespace denpex::cli
