// Transport: JSON-RPC messages framed by `Content-Length` headers over byte streams (LSP's
// base protocol). Knows bytes and framing only; what a message means is the dispatcher's
// business.
#pragma once

#include <cstdio>
#include <mutex>
#include <optional>
#include <string>

namespace denpex::lsp {

class Transport {
 public:
  // Reads from `in`, writes to `out` (normally stdin and stdout). Does not own them.
  Transport(std::FILE* in, std::FILE* out) : in_(in), out_(out) {}

  enum class ReadStatus { kMessage, kEof, kBadFrame };
  // Reads one message body. kBadFrame: the header was malformed (no or bad Content-Length);
  // the stream is resynchronised at the next header and reading can go on.
  ReadStatus read(std::string& body);

  // Writes one framed message; safe to call from several threads.
  void write(const std::string& body);

 private:
  std::FILE* in_;
  std::FILE* out_;
  std::mutex writeMutex_;
};

}  // namespace denpex::lsp
