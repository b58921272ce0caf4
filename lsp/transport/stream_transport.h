// StreamTransport: JSON-RPC messages framed by `Content-Length` headers over byte streams (LSP's
// base protocol), normally stdin and stdout.
//
// Framing recovers: a frame whose header has no usable Content-Length (missing, not a number,
// negative, over the limit) is skipped with the reason, and reading goes on at the next
// `Content-Length:` header, wherever it is (after a body that was longer than its header said,
// the next header follows its tail on the same line). Bodies are read as they arrive: the claim
// in a header reserves address space, never memory.
#pragma once

#include <cstdint>
#include <cstdio>
#include <mutex>
#include <optional>
#include <string>

#include "lsp/transport/transport.h"

namespace denpex::lsp {

class StreamTransport : public Transport {
 public:
  // The largest body accepted (a log opened in the editor is one body).
  static constexpr size_t kMaxMessage = size_t{256} << 20;
  // The largest header block: past it, the bytes are not a header and are skipped.
  static constexpr size_t kMaxHeader = size_t{64} << 10;

  // What a pipe the input comes through is asked to hold (Linux, F_SETPIPE_SZ).
  static constexpr int kPipeBytes = 1 << 20;

  // Reads from `in`, writes to `out` (normally stdin and stdout). Does not own them. Reads `in`
  // through its file descriptor (what is available, never waiting for a full buffer); a pipe
  // there is enlarged to kPipeBytes where the system allows.
  StreamTransport(std::FILE* in, std::FILE* out);
  // Reads one message body. kBadFrame: a frame was skipped (takeProblem() says why) and reading
  // can go on.
  ReadStatus read(std::string& body) override;
  std::string takeProblem() override;
  // Writes one framed message; safe to call from several threads.
  void write(const std::string& body) override;
  void observeBigBodies(BodyObserver* observer, size_t from) override {
    observer_ = observer;
    observeFrom_ = from;
  }

 private:
  // Reads more bytes into buf_; false at the end of input.
  bool fill();
  std::FILE* in_;
  std::FILE* out_;
  std::mutex writeMutex_;
  std::string buf_;  // bytes read and not yet consumed, from pos_
  size_t pos_ = 0;
  std::string problem_;
  BodyObserver* observer_ = nullptr;
  size_t observeFrom_ = SIZE_MAX;
};

}  // namespace denpex::lsp
