// What an LSP test client does, whatever carries its messages: send requests and
// notifications, wait for a response or a notification (with a time-out), read what the server
// logged. PipeClient (the built binary over real pipes) and InProcessClient (the server in this
// process, over a MemoryTransport) fill in how messages travel.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>

namespace denpex::test {

using json = nlohmann::json;

class LspClientBase {
 public:
  virtual ~LspClientBase() = default;

  virtual void sendRaw(const std::string& body) = 0;
  void send(const json& msg) { sendRaw(msg.dump()); }

  int request(const std::string& method, const json& params) {
    int id = nextId_++;
    send({{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}});
    return id;
  }
  void notify(const std::string& method, const json& params) { send({{"jsonrpc", "2.0"}, {"method", method}, {"params", params}}); }

  // Waits for the response with this id.
  json response(int id, std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
    auto msg = waitFor([&](const json& m) { return m.contains("id") && m["id"] == id && !m.contains("method"); }, timeout);
    if (!msg) throw std::runtime_error("no response to request " + std::to_string(id) + "; server log:\n" + stderrText());
    return *msg;
  }
  json call(const std::string& method, const json& params) { return response(request(method, params)); }

  // Waits for a notification of `method` that satisfies `pred`.
  json notification(const std::string& method, const std::function<bool(const json&)>& pred = [](const json&) { return true; },
                    std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
    auto msg = waitFor([&](const json& m) { return m.value("method", "") == method && pred(m["params"]); }, timeout);
    if (!msg) throw std::runtime_error("no " + method + " notification; server log:\n" + stderrText());
    return (*msg)["params"];
  }

  json initialize(const std::string& rootUri, json capabilities = json::object(), json options = nullptr) {
    json params = {{"processId", nullptr}, {"rootUri", rootUri}, {"capabilities", capabilities}};
    if (!rootUri.empty()) params["workspaceFolders"] = json::array({{{"uri", rootUri}, {"name", "ws"}}});
    if (!options.is_null()) params["initializationOptions"] = options;
    json r = call("initialize", params);
    notify("initialized", json::object());
    // The server says which rule folders are in use once the client is ready.
    rulesInUse = notification("window/logMessage", [](const json& p) {
      return p.value("message", "").rfind("denpex: rules in use:", 0) == 0;
    })["message"];
    return r;
  }

  // What the server said about its rule folders after `initialized`.
  std::string rulesInUse;

  // What the server logged so far.
  std::string stderrText() {
    std::lock_guard<std::mutex> lock(mutex_);
    return log_;
  }
  // Waits until the server's log contains `text` (it is written by another thread).
  bool stderrContains(const std::string& text, std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      if (stderrText().find(text) != std::string::npos) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }

  // Waits for any message that satisfies `match` and takes it out of the queue.
  // Whether a message that satisfies `match` has arrived and is unread (it stays unread).
  bool arrived(const std::function<bool(const json&)>& match) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& m : received_)
      if (match(m)) return true;
    return false;
  }

  std::optional<json> waitFor(const std::function<bool(const json&)>& match, std::chrono::milliseconds timeout) {
    std::unique_lock<std::mutex> lock(mutex_);
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (true) {
      for (auto it = received_.begin(); it != received_.end(); ++it) {
        if (match(*it)) {
          json m = *it;
          received_.erase(it);
          return m;
        }
      }
      if (closed_) return std::nullopt;
      if (cv_.wait_until(lock, deadline) == std::cv_status::timeout) return std::nullopt;
    }
  }

 protected:
  // For the subclasses' reader threads.
  void received(json message) {
    std::lock_guard<std::mutex> lock(mutex_);
    received_.push_back(std::move(message));
    cv_.notify_all();
  }
  void closed() {
    std::lock_guard<std::mutex> lock(mutex_);
    closed_ = true;
    cv_.notify_all();
  }
  void logged(const std::string& text) {
    std::lock_guard<std::mutex> lock(mutex_);
    log_ += text;
  }
  // The messages nobody waited for, taken out of the queue.
  std::deque<json> takeUnread() {
    std::lock_guard<std::mutex> lock(mutex_);
    return std::exchange(received_, {});
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<json> received_;
  bool closed_ = false;
  std::string log_;
  int nextId_ = 1;
};

}  // namespace denpex::test
