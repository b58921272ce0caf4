// InProcessClient: the language server running in the test's own process, on its own thread,
// over a MemoryTransport. Feature tests use it: no process to start, no framing, and the
// server's log captured in memory.
//
// Like ruff's test server, it fails the test when the server sent something the test never
// read: every response and notification must be waited for, or its method explicitly
// allowed to go unread with allowUnread().
#pragma once

#include <gtest/gtest.h>
#include <spdlog/sinks/base_sink.h>
#include <spdlog/spdlog.h>

#include <memory>
#include <set>
#include <string>
#include <thread>

#include "lsp/server/server.h"
#include "lsp/transport/memory_transport.h"
#include "lsp_client.h"

namespace denpex::test {

class InProcessClient : public LspClientBase {
 public:
  InProcessClient() {
    // The server logs through spdlog's default logger: send it here.
    auto sink = std::make_shared<Sink>(*this);
    auto logger = std::make_shared<spdlog::logger>("denpex-test", sink);
    logger->set_level(spdlog::level::debug);
    logger->flush_on(spdlog::level::trace);
    spdlog::set_default_logger(logger);
    server_ = std::make_unique<lsp::Server>(transport_);
    thread_ = std::thread([this] { exitCode_ = server_->run(); });
    reader_ = std::thread([this] {
      while (!stopReading_) {
        if (auto body = transport_.receive(std::chrono::milliseconds(50))) received(json::parse(*body));
      }
      while (auto body = transport_.receive(std::chrono::milliseconds(0))) received(json::parse(*body));
      closed();
    });
  }

  ~InProcessClient() override {
    transport_.close();  // end of input: the server finishes what it has and returns
    if (thread_.joinable()) thread_.join();
    server_.reset();
    stopReading_ = true;
    if (reader_.joinable()) reader_.join();
    spdlog::set_default_logger(std::make_shared<spdlog::logger>("null"));
    for (const auto& m : takeUnread()) {
      std::string method = m.value("method", "");
      if (!method.empty() && allowed_.count(method)) continue;
      ADD_FAILURE() << "the server sent a message the test never read: " << m.dump().substr(0, 400);
    }
  }

  void sendRaw(const std::string& body) override { transport_.send(body); }

  // Messages of this method may go unread (a folder diagnosis publishes on every file).
  void allowUnread(const std::string& method) { allowed_.insert(method); }

 private:
  class Sink : public spdlog::sinks::base_sink<std::mutex> {
   public:
    explicit Sink(InProcessClient& client) : client_(client) {}

   protected:
    void sink_it_(const spdlog::details::log_msg& msg) override {
      spdlog::memory_buf_t out;
      formatter_->format(msg, out);
      client_.logged(fmt::to_string(out));
    }
    void flush_() override {}

   private:
    InProcessClient& client_;
  };

  lsp::MemoryTransport transport_;
  std::unique_ptr<lsp::Server> server_;
  std::thread thread_;
  std::thread reader_;
  std::atomic<bool> stopReading_{false};
  int exitCode_ = -1;
  std::set<std::string> allowed_;
};

}  // namespace denpex::test
