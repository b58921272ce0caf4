// Transport: whole JSON-RPC message bodies in and out. Knows bytes and framing only; what a
// message means is the server's business. Two implementations: StreamTransport (LSP's
// Content-Length framing over stdin/stdout) and MemoryTransport (in-process, for tests).
#pragma once

#include <string>

namespace denpex::lsp {

class Transport {
 public:
  virtual ~Transport() = default;

  enum class ReadStatus { kMessage, kEof, kBadFrame };
  // Blocks for the next message body. kBadFrame: a malformed frame was skipped and reading
  // can go on. Called from one thread only.
  virtual ReadStatus read(std::string& body) = 0;
  // What the last read() had to skip to find its message or frame (bytes that were not a
  // message, a frame with a bad header), to be logged; empty when nothing. Clears it.
  virtual std::string takeProblem() { return {}; }

  // Sends one message body. Safe to call from several threads at once.
  virtual void write(const std::string& body) = 0;
};

}  // namespace denpex::lsp
