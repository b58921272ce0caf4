// The big string of a message that still arrives (see arriving_string.h).
#include "lsp/protocol/arriving_string.h"

#include <algorithm>
#include <cstring>

namespace denpex::lsp {

namespace {

// The first `c` in s[from, s.size()), or npos.
size_t find(std::string_view s, size_t from, char c) {
  if (from >= s.size()) return std::string_view::npos;
  const void* hit = std::memchr(s.data() + from, c, s.size() - from);
  return hit ? static_cast<size_t>(static_cast<const char*>(hit) - s.data()) : std::string_view::npos;
}

// How many bytes the escape at s[i] (a backslash) takes, as far as the bytes that have arrived
// tell: 0 when its end has not arrived yet. "\u" takes 6 (a surrogate pair is two of them, and
// no piece ends between them: pieces end after "\n" only).
size_t escapeSpan(std::string_view s, size_t i) {
  if (i + 1 >= s.size()) return 0;
  size_t len = s[i + 1] == 'u' ? 6 : 2;
  return i + len <= s.size() ? len : 0;
}

}  // namespace

size_t ArrivingString::nextOf(char c, size_t& pos, size_t& scanned, std::string_view s) {
  if (pos != std::string_view::npos && pos >= at_) return pos;
  pos = find(s, std::max(at_, scanned), c);
  scanned = pos == std::string_view::npos ? s.size() : pos;
  return pos;
}

ArrivingString::Piece ArrivingString::next(std::string_view s) {
  while (!ended_ && at_ < s.size()) {
    if (!inString_) {
      size_t q = nextOf('"', quote_, quoteScanned_, s);
      if (q == std::string_view::npos) {
        at_ = s.size();
        break;
      }
      inString_ = true;
      start_ = at_ = q + 1;
      continue;
    }
    // Inside a string: on to its next quote or backslash.
    size_t q = nextOf('"', quote_, quoteScanned_, s);
    size_t b = nextOf('\\', slash_, slashScanned_, s);
    if (b != std::string_view::npos && (q == std::string_view::npos || b < q)) {
      size_t len = escapeSpan(s, b);
      if (len == 0) {
        at_ = b;  // the escape's end has not arrived
        break;
      }
      if (s[b + 1] == 'n') lineEnd_ = b + 2;
      at_ = b + len;
    } else if (q != std::string_view::npos) {
      at_ = q + 1;
      inString_ = false;
      if (big_) {
        ended_ = true;
        break;
      }
      continue;
    } else {
      at_ = s.size();  // no quote or backslash in what has arrived
    }
    if (inString_ && !big_ && at_ - start_ >= bigFrom_) {
      big_ = true;
      cut_ = start_;
    }
    if (big_ && lineEnd_ > cut_ && lineEnd_ - cut_ >= maxPiece_) break;  // a piece is ready
  }
  if (!big_ || lineEnd_ <= cut_) return {};
  Piece piece{cut_, lineEnd_};
  cut_ = lineEnd_;
  return piece;
}

}  // namespace denpex::lsp
