// Content-Length framing (see stream_transport.h).
#include "lsp/transport/stream_transport.h"

#include "io/huge_pages.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <string_view>

namespace denpex::lsp {
namespace {

constexpr std::string_view kLengthHeader = "content-length:";

char lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

// The last "Content-Length:" (any case) in `s`, npos when none.
size_t rfindLengthHeader(std::string_view s) {
  if (s.size() < kLengthHeader.size()) return std::string_view::npos;
  for (size_t i = s.size() - kLengthHeader.size() + 1; i-- > 0;) {
    size_t k = 0;
    while (k < kLengthHeader.size() && lower(s[i + k]) == kLengthHeader[k]) ++k;
    if (k == kLengthHeader.size()) return i;
  }
  return std::string_view::npos;
}

std::string printable(std::string_view s) {
  std::string out;
  for (char c : s.substr(0, 40)) out += (c >= ' ' && c < 127) ? c : '?';
  return out + (s.size() > 40 ? "..." : "");
}

}  // namespace

StreamTransport::StreamTransport(std::FILE* in, std::FILE* out) : in_(in), out_(out) {
#ifdef F_SETPIPE_SZ
  // A pipe holds 64 KiB by default: a 100 MiB log opened in the editor then crosses in 1,600
  // rounds of the client writing and this process waking to read, which took 0.5 s here. With
  // 1 MiB (Linux's limit for a process without privileges) it took 0.3 s. Not a pipe, or a
  // refusal: nothing changes.
  ::fcntl(::fileno(in_), F_SETPIPE_SZ, kPipeBytes);
#endif
}

bool StreamTransport::fill() {
  if (pos_ > 0 && pos_ == buf_.size()) {
    buf_.clear();
    pos_ = 0;
  }
  char chunk[65536];
  while (true) {
    ssize_t n = ::read(::fileno(in_), chunk, sizeof chunk);
    if (n > 0) {
      buf_.append(chunk, static_cast<size_t>(n));
      return true;
    }
    if (n < 0 && errno == EINTR) continue;
    return false;
  }
}

std::string StreamTransport::takeProblem() {
  std::string p;
  p.swap(problem_);
  return p;
}

Transport::ReadStatus StreamTransport::read(std::string& body) {
  size_t skipped = 0;
  auto note = [&](const std::string& what) {
    std::string s = skipped > 0 ? "skipped " + std::to_string(skipped) + " bytes that were not a message" : "";
    if (!what.empty()) s += (s.empty() ? "" : "; ") + what;
    problem_ += (problem_.empty() || s.empty() ? "" : "; ") + s;
    skipped = 0;
  };
  // 1. A header block: up to a blank line, holding a Content-Length.
  std::string_view header;
  size_t bodyAt = 0;
  while (true) {
    std::string_view rest = std::string_view(buf_).substr(pos_);
    // Blank lines between messages are allowed.
    size_t lead = 0;
    while (lead < rest.size() && (rest[lead] == '\r' || rest[lead] == '\n')) ++lead;
    pos_ += lead;
    rest.remove_prefix(lead);
    size_t end = rest.find("\r\n\r\n"), sep = 4;
    size_t lf = rest.find("\n\n");
    if (lf != std::string_view::npos && (end == std::string_view::npos || lf < end)) end = lf, sep = 2;
    if (end == std::string_view::npos) {
      if (rest.size() > kMaxHeader) {
        // Not a header: drop it, keeping a tail where a header may begin.
        size_t drop = rest.size() - kLengthHeader.size();
        skipped += drop;
        pos_ += drop;
        buf_.erase(0, pos_);
        pos_ = 0;
      }
      if (!fill()) {
        if (skipped > 0 || pos_ < buf_.size()) {
          skipped += buf_.size() - pos_;
          note("the input ended");
        }
        return ReadStatus::kEof;
      }
      continue;
    }
    std::string_view block = rest.substr(0, end);
    size_t at = rfindLengthHeader(block);
    if (at == std::string_view::npos) {
      skipped += end + sep;
      pos_ += end + sep;
      note("a header without Content-Length");
      return ReadStatus::kBadFrame;
    }
    // Bytes before the header that are not headers of this message (the tail of a body longer
    // than its frame said): skipped, and said.
    size_t lineStart = block.rfind('\n', at);
    lineStart = lineStart == std::string_view::npos ? 0 : lineStart + 1;
    if (at != lineStart) skipped += at;
    header = block.substr(at);
    bodyAt = pos_ + end + sep;
    break;
  }
  // 2. Its value: digits only, within the limit.
  std::string_view value = header.substr(kLengthHeader.size());
  value = value.substr(0, value.find_first_of("\r\n"));
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
  while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
  bool digits = !value.empty() && value.size() <= 19 &&
                std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (!digits) {
    pos_ = bodyAt;
    note("Content-Length '" + printable(value) + "' is not a length; skipped the frame");
    return ReadStatus::kBadFrame;
  }
  unsigned long long length = std::stoull(std::string(value));
  pos_ = bodyAt;
  if (length > kMaxMessage) {
    if (length > (1ull << 32)) {
      // Not a length anyone sends: what follows is read as the next frame's header.
      note("Content-Length " + std::string(value) + " is over the limit of " + std::to_string(kMaxMessage >> 20) +
           " MiB; skipped the frame");
      return ReadStatus::kBadFrame;
    }
    // Skip the body as it arrives, holding none of it.
    unsigned long long left = length;
    while (left > 0) {
      if (pos_ == buf_.size() && !fill()) return ReadStatus::kEof;
      size_t take = static_cast<size_t>(std::min<unsigned long long>(left, buf_.size() - pos_));
      pos_ += take;
      left -= take;
    }
    note("a message of " + std::to_string(length) + " bytes is over the limit of " + std::to_string(kMaxMessage >> 20) +
         " MiB; skipped it");
    return ReadStatus::kBadFrame;
  }
  // 3. The body, as it arrives. Room past the end for a parser that reads a few bytes beyond it
  // (simdjson), and in a big message (a log opened in the editor, which becomes the document's
  // buffer) room for the log to grow by half: address space only, until bytes arrive.
  size_t n = static_cast<size_t>(length);
  body.clear();
  body.reserve(n + 64 + (n >= (1u << 20) ? n / 2 : 0));
  io::adviseHugePages(body.data(), body.capacity());
  size_t have = std::min(n, buf_.size() - pos_);
  body.append(buf_, pos_, have);
  pos_ += have;
  // A big body is shown as it arrives (a log's diagnosis can start before its last byte).
  BodyObserver* const watch = n >= observeFrom_ ? observer_ : nullptr;
  if (watch) {
    watch->begin(body.data(), n);
    watch->filled(body.size());
  }
  while (body.size() < n) {
    // Straight into the body, a few megabytes at a time.
    size_t start = body.size();
    body.resize(std::min(n, start + (size_t{4} << 20)));
    size_t filled = start;
    while (filled < body.size()) {
      ssize_t got = ::read(::fileno(in_), body.data() + filled, body.size() - filled);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) {
        body.resize(filled);
        if (watch) watch->end(false);
        return ReadStatus::kEof;
      }
      filled += static_cast<size_t>(got);
      if (watch) watch->filled(filled);
    }
  }
  if (watch) watch->end(true);
  if (skipped > 0) note("");
  if (pos_ == buf_.size()) {
    buf_.clear();
    pos_ = 0;
  }
  return ReadStatus::kMessage;
}

void StreamTransport::write(const std::string& body) {
  std::lock_guard<std::mutex> lock(writeMutex_);
  std::fprintf(out_, "Content-Length: %zu\r\n\r\n", body.size());
  std::fwrite(body.data(), 1, body.size(), out_);
  std::fflush(out_);
}

}  // namespace denpex::lsp
