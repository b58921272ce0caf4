// What the subcommands share (see common.h).
#include "cli/common.h"

#include <unistd.h>

namespace denpex::cli {

bool isTerminal(int fd) { return ::isatty(fd) == 1; }

io::LoadedRules loadRules(const std::vector<std::string>& extraDirs, bool builtin) {
  io::RuleLoadOptions options;
  options.builtin = builtin;
  options.roots = {std::filesystem::path()};  // the current folder's .denpex/rules
  options.extraDirs = extraDirs;
  return io::loadRules(options);
}

}  // namespace denpex::cli
