// The `denpex` executable: one binary, subcommands.
#include <iostream>
#include <string>
#include <vector>

#include "cli/common.h"
#include "core/render/report.h"
#include "io/huge_pages.h"
#include "lsp/language_server.h"

namespace {

constexpr const char* kUsage = R"(denpex: diagnose ML training failures from their logs, locally

usage: denpex <command> [options]

commands:
  diagnose [PATH...]     diagnose log files or standard input ('-')
  check [PATH...]        check training scripts and configs before the run (float16 + AdamW's eps, ...)
  probe                  describe this machine for 'check --probe' (GPUs, driver, /dev/shm, torch)
  run -- CMD...          run a training command, keep its log, diagnose it if it fails
  explain RULE           print a rule's full entry as Markdown
  rules list|lint|test   list, check or test rules
  lsp                    run the language server on stdin/stdout (LSP 3.17)
  version                print the version

Run 'denpex <command> --help' for a command's options.
)";

}  // namespace

int main(int argc, char** argv) {
  denpex::io::prepareHugePageHeap();
  std::ios::sync_with_stdio(false);
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
    std::cout << kUsage;
    return args.empty() ? denpex::cli::kExitUsage : denpex::cli::kExitClean;
  }
  std::string command = args[0];
  std::vector<std::string> rest(args.begin() + 1, args.end());
  try {
    if (command == "diagnose") return denpex::cli::runDiagnose(rest);
    if (command == "check") return denpex::cli::runCheck(rest);
    if (command == "probe") return denpex::cli::runProbe(rest);
    if (command == "explain") return denpex::cli::runExplain(rest);
    if (command == "rules") return denpex::cli::runRules(rest);
    if (command == "lsp") return denpex::lsp::runLanguageServer(rest);
    if (command == "run") return denpex::cli::runRun(rest);
    if (command == "version" || command == "--version") {
      std::cout << "denpex " << denpex::core::kVersion << "\n";
      return 0;
    }
  } catch (const std::exception& e) {
    std::cerr << "denpex: internal error: " << e.what() << "\n";
    return denpex::cli::kExitUsage;
  }
  std::cerr << "denpex: unknown command '" << command << "'\n\n" << kUsage;
  return denpex::cli::kExitUsage;
}
