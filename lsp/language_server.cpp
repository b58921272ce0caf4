// `denpex lsp` (see language_server.h).
#include "lsp/language_server.h"

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <cstdlib>

#include "lsp/server/server.h"
#include "lsp/transport/stream_transport.h"

namespace denpex::lsp {

int runLanguageServer(const std::vector<std::string>& args) {
  std::string level = "info";
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--stdio") continue;  // what VS Code's client passes; stdio is the only transport
    if (args[i] == "--log-level" && i + 1 < args.size()) {
      level = args[++i];
    } else if (args[i] == "-h" || args[i] == "--help") {
      std::printf("usage: denpex lsp [--stdio] [--log-level trace|debug|info|warn|error|off]\n\n"
                  "Runs the language server on standard input and output (LSP 3.17). Logs go to stderr.\n");
      return 0;
    } else {
      std::fprintf(stderr, "denpex lsp: unexpected argument '%s'\n", args[i].c_str());
      return 2;
    }
  }
  auto logger = spdlog::stderr_logger_mt("denpex");
  logger->set_pattern("[%Y-%m-%d %H:%M:%S.%e] [%l] %v");
  spdlog::set_default_logger(logger);
  spdlog::set_level(spdlog::level::from_str(level));
  spdlog::flush_on(spdlog::level::trace);
  StreamTransport transport(stdin, stdout);
  Server server(transport);
  int code = server.run();
  std::fflush(stdout);
  // The reader thread may still block in a read of stdin; leave without waiting for it.
  std::_Exit(code);
}

}  // namespace denpex::lsp
