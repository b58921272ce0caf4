// What the subcommands share (see common.h).
#include "cli/common.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>

namespace denpex::cli {

bool isTerminal(int fd) { return ::isatty(fd) == 1; }

bool knownFormat(const std::string& format) {
  return format == "text" || format == "json" || format == "markdown" || format == "sarif";
}

void printReport(const core::ReportInput& report, const std::string& format, const std::string& color, bool showDiff) {
  if (format == "json") std::cout << core::renderJson(report);
  else if (format == "sarif") std::cout << core::renderSarif(report);
  else if (format == "markdown") std::cout << core::renderMarkdown(report);
  else {
    core::TextOptions text;
    text.color = color == "always" || (color == "auto" && isTerminal(STDOUT_FILENO) && !std::getenv("NO_COLOR"));
    text.showDiff = showDiff;
    std::cout << core::renderText(report, text);
  }
  std::cout.flush();
}

io::LoadedRules loadRules(const std::vector<std::string>& extraDirs, bool builtin) {
  io::RuleLoadOptions options;
  options.builtin = builtin;
  options.extraDirs = extraDirs;
  return io::loadRules(options);
}

void reportRuleFolders(const io::LoadedRules& load, const std::vector<std::string>& extraDirs) {
  namespace fs = std::filesystem;
  for (const auto& [folder, count] : load.folders)
    std::cerr << "denpex: using " << count << " rule" << (count == 1 ? "" : "s") << " from " << folder << "\n";
  for (const auto& o : load.rules.overridden()) std::cerr << "denpex: shipped rule " << o << " is overridden\n";
  std::error_code ec;
  if (!fs::is_directory(".denpex/rules", ec)) return;
  for (const auto& d : extraDirs)
    if (fs::equivalent(d, ".denpex/rules", ec)) return;
  std::cerr << "denpex: .denpex/rules was not loaded: rules from a repository are code; once you trust it, "
               "pass --rules .denpex/rules\n";
}

}  // namespace denpex::cli
