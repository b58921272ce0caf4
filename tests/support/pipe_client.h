// PipeClient: spawns the built `denpex lsp` with Boost.Process and talks to it over its real
// stdin/stdout pipes, for the tests of lifecycle and framing, which must see the real binary.
#pragma once

#include <boost/process.hpp>

#include <algorithm>
#include <string>
#include <thread>
#include <vector>

#include "lsp_client.h"

namespace denpex::test {

namespace bp = boost::process;

class PipeClient : public LspClientBase {
 public:
  explicit PipeClient(std::vector<std::string> args = {"lsp", "--log-level", "debug"}) {
    child_ = bp::child(DENPEX_BINARY, bp::args(args), bp::std_in < in_, bp::std_out > out_, bp::std_err > err_);
    reader_ = std::thread([this] { readLoop(); });
    errReader_ = std::thread([this] {
      std::string line;
      while (std::getline(err_, line)) logged(line + "\n");
    });
  }

  ~PipeClient() override {
    closeInput();
    if (child_.running()) {
      if (!waitExit(std::chrono::seconds(5))) child_.terminate();
    }
    if (reader_.joinable()) reader_.join();
    if (errReader_.joinable()) errReader_.join();
  }

  void sendRaw(const std::string& body) override { sendRawInParts(body, body.size(), std::chrono::milliseconds(0)); }

  // The same, its first `first` bytes, then a pause, then the rest: a message the server has
  // begun to read and not finished.
  void sendRawInParts(const std::string& body, size_t first, std::chrono::milliseconds pause) {
    in_ << "Content-Length: " << body.size() << "\r\n\r\n";
    in_.flush();
    // The body in writes as big as the pipe takes, as an editor's client writes it (Node's
    // streams hand libuv the whole buffer): the stream's own 1 KiB buffer would cut a 100 MB
    // log into 100,000 writes, which timed this client, not the server.
    for (size_t at = 0; at < body.size();) {
      size_t upTo = at < first ? std::min(first, body.size()) : body.size();
      int n = in_.pipe().write(body.data() + at, static_cast<int>(std::min<size_t>(upTo - at, size_t{1} << 30)));
      if (n <= 0) break;
      at += static_cast<size_t>(n);
      if (at == first && at < body.size()) std::this_thread::sleep_for(pause);
    }
  }

  void closeInput() {
    if (inputOpen_) {
      in_.flush();
      in_.pipe().close();
      inputOpen_ = false;
    }
  }

  bool waitExit(std::chrono::milliseconds timeout) { return child_.wait_for(timeout); }
  int pid() { return child_.id(); }
  int exitCode() { return child_.exit_code(); }

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
      received(json::parse(body));
    }
    closed();
  }

  bp::opstream in_;
  bp::ipstream out_;
  bp::ipstream err_;
  bp::child child_;
  std::thread reader_;
  std::thread errReader_;
  bool inputOpen_ = true;
};

}  // namespace denpex::test
