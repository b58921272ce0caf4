// In-process message queues (see memory_transport.h).
#include "lsp/transport/memory_transport.h"

namespace denpex::lsp {

Transport::ReadStatus MemoryTransport::read(std::string& body) {
  std::unique_lock<std::mutex> lock(mutex_);
  toServerCv_.wait(lock, [&] { return closed_ || !toServer_.empty(); });
  if (toServer_.empty()) return ReadStatus::kEof;
  body = std::move(toServer_.front());
  toServer_.pop_front();
  return ReadStatus::kMessage;
}

void MemoryTransport::write(const std::string& body) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    toClient_.push_back(body);
  }
  toClientCv_.notify_all();
}

void MemoryTransport::send(std::string body) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    toServer_.push_back(std::move(body));
  }
  toServerCv_.notify_all();
}

void MemoryTransport::close() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    closed_ = true;
  }
  toServerCv_.notify_all();
}

std::optional<std::string> MemoryTransport::receive(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (!toClientCv_.wait_for(lock, timeout, [&] { return !toClient_.empty(); })) return std::nullopt;
  std::string body = std::move(toClient_.front());
  toClient_.pop_front();
  return body;
}

}  // namespace denpex::lsp
