// A small LSP client for tests: spawns the built `denpex lsp` with Boost.Process and talks to it
// over its real stdin/stdout pipes. Messages the server sends are queued by a reader thread;
// tests wait for the response to a request or for a notification, with a timeout.
#pragma once

#include <boost/process.hpp>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace denpex::test {

using json = nlohmann::json;
namespace bp = boost::process;

class LspClient {
 public:
  explicit LspClient(std::vector<std::string> args = {"lsp", "--log-level", "debug"}) {
    child_ = bp::child(DENPEX_BINARY, bp::args(args), bp::std_in < in_, bp::std_out > out_, bp::std_err > err_);
    reader_ = std::thread([this] { readLoop(); });
    errReader_ = std::thread([this] {
      std::string line;
      while (std::getline(err_, line)) {
        std::lock_guard<std::mutex> lock(mutex_);
        stderr_ += line + "\n";
      }
    });
  }

  ~LspClient() {
    closeInput();
    if (child_.running()) {
      if (!waitExit(std::chrono::seconds(5))) child_.terminate();
    }
    if (reader_.joinable()) reader_.join();
    if (errReader_.joinable()) errReader_.join();
  }

  void sendRaw(const std::string& body) {
    in_ << "Content-Length: " << body.size() << "\r\n\r\n" << body;
    in_.flush();
  }
  void send(const json& msg) { sendRaw(msg.dump()); }

  int request(const std::string& method, const json& params) {
    int id = nextId_++;
    send({{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}});
    return id;
  }
  void notify(const std::string& method, const json& params) {
    send({{"jsonrpc", "2.0"}, {"method", method}, {"params", params}});
  }

  // Waits for the response with this id.
  json response(int id, std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
    auto msg = waitFor([&](const json& m) { return m.contains("id") && m["id"] == id && !m.contains("method"); }, timeout);
    if (!msg) throw std::runtime_error("no response to request " + std::to_string(id) + "; stderr:\n" + stderrText());
    return *msg;
  }
  json call(const std::string& method, const json& params) { return response(request(method, params)); }

  // Waits for a notification of `method` that satisfies `pred`.
  json notification(const std::string& method, const std::function<bool(const json&)>& pred = [](const json&) { return true; },
                    std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
    auto msg = waitFor([&](const json& m) { return m.value("method", "") == method && pred(m["params"]); }, timeout);
    if (!msg) throw std::runtime_error("no " + method + " notification; stderr:\n" + stderrText());
    return (*msg)["params"];
  }

  json initialize(const std::string& rootUri, json capabilities = json::object(), json options = nullptr) {
    json params = {{"processId", nullptr}, {"rootUri", rootUri}, {"capabilities", capabilities}};
    if (!rootUri.empty()) params["workspaceFolders"] = json::array({{{"uri", rootUri}, {"name", "ws"}}});
    if (!options.is_null()) params["initializationOptions"] = options;
    json r = call("initialize", params);
    notify("initialized", json::object());
    return r;
  }

  void closeInput() {
    if (inputOpen_) {
      in_.flush();
      in_.pipe().close();
      inputOpen_ = false;
    }
  }

  bool waitExit(std::chrono::milliseconds timeout) { return child_.wait_for(timeout); }
  int exitCode() { return child_.exit_code(); }

  std::string stderrText() {
    std::lock_guard<std::mutex> lock(mutex_);
    return stderr_;
  }

  // Waits until the server's stderr contains `text` (it is read by another thread).
  bool stderrContains(const std::string& text, std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      if (stderrText().find(text) != std::string::npos) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }

 // Waits for any message that satisfies `match`.
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

 private:
  void readLoop() {
    while (true) {
      std::string line;
      size_t length = 0;
      bool any = false;
      while (std::getline(out_, line)) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.empty()) break;
        any = true;
        if (line.rfind("Content-Length:", 0) == 0) length = std::stoul(line.substr(15));
      }
      if (!any || !out_) break;
      std::string body(length, '\0');
      out_.read(body.data(), static_cast<std::streamsize>(length));
      if (!out_) break;
      std::lock_guard<std::mutex> lock(mutex_);
      received_.push_back(json::parse(body));
      cv_.notify_all();
    }
    std::lock_guard<std::mutex> lock(mutex_);
    closed_ = true;
    cv_.notify_all();
  }

  bp::opstream in_;
  bp::ipstream out_;
  bp::ipstream err_;
  bp::child child_;
  std::thread reader_;
  std::thread errReader_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<json> received_;
  bool closed_ = false;
  bool inputOpen_ = true;
  std::string stderr_;
  int nextId_ = 1;
};

}  // namespace denpex::test
