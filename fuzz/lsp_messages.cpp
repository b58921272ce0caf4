// Fuzz target: the language server's input. The bytes are framed (Content-Length headers, any
// damage included) and every body read goes to one server, initialized once, as run() would
// hand it over. Nothing may crash, hang or grow without bound; replies are discarded.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include <spdlog/spdlog.h>

#include "lsp/server/server.h"
#include "lsp/transport/stream_transport.h"

namespace {

using denpex::lsp::Server;
using denpex::lsp::Transport;

// The server writes here; nothing is kept.
class Discard : public Transport {
 public:
  ReadStatus read(std::string&) override { return ReadStatus::kEof; }
  void write(const std::string&) override {}
};

Discard gOut;
std::unique_ptr<Server> gServer;
int gUses = 0;

Server& server() {
  // A fresh server now and then, so that documents the inputs opened do not pile up.
  if (!gServer || ++gUses > 500) {
    spdlog::set_level(spdlog::level::off);
    // libFuzzer ends the run with exit(): the server's threads are stopped first, before the
    // statics they may be reading are destroyed.
    static const bool kStopsAtExit = std::atexit([] { gServer.reset(); }) == 0;
    (void)kStopsAtExit;
    gServer = std::make_unique<Server>(gOut);
    gUses = 0;
    std::string init = R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"capabilities":{},"rootUri":null}})";
    gServer->handleMessage(init);
    std::string ready = R"({"jsonrpc":"2.0","method":"initialized","params":{}})";
    gServer->handleMessage(ready);
  }
  return *gServer;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  int fd = ::memfd_create("fuzz-input", 0);
  if (fd < 0) return 0;
  if (size > 0 && ::write(fd, data, size) != static_cast<ssize_t>(size)) {
    ::close(fd);
    return 0;
  }
  ::lseek(fd, 0, SEEK_SET);
  std::FILE* in = ::fdopen(fd, "rb");
  denpex::lsp::StreamTransport transport(in, stdout);
  Server& s = server();
  std::string body;
  for (int messages = 0; messages < 64; ++messages) {
    auto status = transport.read(body);
    transport.takeProblem();
    if (status == Transport::ReadStatus::kEof) break;
    if (status == Transport::ReadStatus::kMessage) s.handleMessage(body);
  }
  std::fclose(in);
  return 0;
}
