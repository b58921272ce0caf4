// MemoryTransport: two in-process queues of message bodies, one each way, for running the
// server in the same process as its test client (no pipes, no framing). Thread-safe.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <string>

#include "lsp/transport/transport.h"

namespace denpex::lsp {

class MemoryTransport : public Transport {
 public:
  // --- the server's side ----------------------------------------------------------------------
  // Blocks until the client sends a message or closes its side (then kEof).
  ReadStatus read(std::string& body) override;
  void write(const std::string& body) override;

  // --- the client's side ----------------------------------------------------------------------
  void send(std::string body);
  // Ends the server's input: its next read, once the queue is empty, is kEof.
  void close();
  // The next message the server wrote, waiting up to `timeout`; nullopt on time-out.
  std::optional<std::string> receive(std::chrono::milliseconds timeout);

 private:
  std::mutex mutex_;
  std::condition_variable toServerCv_, toClientCv_;
  std::deque<std::string> toServer_, toClient_;
  bool closed_ = false;
};

}  // namespace denpex::lsp
