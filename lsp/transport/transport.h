// Transport: whole JSON-RPC message bodies in and out. Knows bytes and framing only; what a
// message means is the server's business. Two implementations: StreamTransport (LSP's
// Content-Length framing over stdin/stdout) and MemoryTransport (in-process, for tests).
#pragma once

#include <cstddef>
#include <string>

namespace denpex::lsp {

// Told of a big message body while it arrives, on the thread that reads it: a body of at least
// the transport's threshold begins (its buffer is at `data` and does not move until the next
// read), its first `filled` bytes are final, it ended (whole, or cut short by the end of input).
class BodyObserver {
 public:
  virtual ~BodyObserver() = default;
  virtual void begin(const char* data, size_t size) = 0;
  virtual void filled(size_t bytes) = 0;
  virtual void end(bool whole) = 0;
};

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

  // Bodies of `from` bytes or more are shown to `observer` as they arrive (null: none). Set
  // before the first read(); transports that receive whole messages at once ignore it.
  virtual void observeBigBodies(BodyObserver* observer, size_t from) {
    (void)observer;
    (void)from;
  }
};

}  // namespace denpex::lsp
