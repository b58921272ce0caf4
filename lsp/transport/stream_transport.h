// StreamTransport: JSON-RPC messages framed by `Content-Length` headers over byte streams (LSP's
// base protocol), normally stdin and stdout.
#pragma once

#include <cstdio>
#include <mutex>
#include <optional>
#include <string>

#include "lsp/transport/transport.h"

namespace denpex::lsp {

class StreamTransport : public Transport {
 public:
  // Reads from `in`, writes to `out` (normally stdin and stdout). Does not own them.
  StreamTransport(std::FILE* in, std::FILE* out) : in_(in), out_(out) {}

  // Reads one message body. kBadFrame: the header was malformed (no or bad Content-Length);
  // the stream is resynchronised at the next header and reading can go on.
  ReadStatus read(std::string& body) override;

  // Writes one framed message; safe to call from several threads.
  void write(const std::string& body) override;

 private:
  std::FILE* in_;
  std::FILE* out_;
  std::mutex writeMutex_;
};

}  // namespace denpex::lsp
