// Content-Length framing (see stream_transport.h).
#include "lsp/transport/stream_transport.h"

#include <cctype>
#include <cstdlib>
#include <string_view>

namespace denpex::lsp {
namespace {

// Reads one header line without its "\r\n" (or "\n"); false at end of input.
bool readLine(std::FILE* in, std::string& line) {
  line.clear();
  int c;
  while ((c = std::fgetc(in)) != EOF) {
    if (c == '\n') {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      return true;
    }
    line.push_back(static_cast<char>(c));
    if (line.size() > 65536) return true;  // not a header; let the caller reject it
  }
  return !line.empty();
}

bool startsWithNoCase(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(s[i])) != std::tolower(static_cast<unsigned char>(prefix[i])))
      return false;
  return true;
}

}  // namespace

Transport::ReadStatus StreamTransport::read(std::string& body) {
  std::string line;
  long long length = -1;
  bool sawHeader = false;
  while (true) {
    if (!readLine(in_, line)) return ReadStatus::kEof;
    if (line.empty()) {
      if (!sawHeader) continue;  // stray blank lines between messages
      break;
    }
    sawHeader = true;
    if (startsWithNoCase(line, "Content-Length:")) {
      char* end = nullptr;
      long long n = std::strtoll(line.c_str() + 15, &end, 10);
      length = (end && end != line.c_str() + 15 && n >= 0) ? n : -2;
    }
  }
  if (length < 0 || length > (1LL << 31)) return ReadStatus::kBadFrame;
  // Room past the end for a parser that reads a few bytes beyond it (simdjson), and in a big
  // message (a log opened in the editor, which becomes the document's buffer) room for the log
  // to grow by half: pages not written cost no memory.
  size_t n = static_cast<size_t>(length);
  body.reserve(n + 64 + (n >= (1u << 20) ? n / 2 : 0));
  body.resize(static_cast<size_t>(length));
  size_t got = length == 0 ? 0 : std::fread(body.data(), 1, body.size(), in_);
  if (got != body.size()) return ReadStatus::kEof;
  return ReadStatus::kMessage;
}

void StreamTransport::write(const std::string& body) {
  std::lock_guard<std::mutex> lock(writeMutex_);
  std::fprintf(out_, "Content-Length: %zu\r\n\r\n", body.size());
  std::fwrite(body.data(), 1, body.size(), out_);
  std::fflush(out_);
}

}  // namespace denpex::lsp
