// The big string of a JSON message read while the message still arrives: a log opened in the
// editor can be diagnosed as its bytes cross the pipe instead of after the last one.
#pragma once

#include <cstddef>
#include <string_view>

namespace denpex::lsp {

// Follows a JSON message body as it fills, finds its first string token whose contents reach
// `bigFrom` bytes, and hands out that string's raw (escaped) contents in pieces, each ending
// just after an escaped newline ("\n" in the JSON). A piece is whole lines, and unescaping the
// pieces one by one (unescapeTo) gives, byte for byte, the start of what unescaping the whole
// string gives: no piece ends inside an escape. The rest of the string after its last newline
// is never handed out. Nothing here checks that the message is well formed: its parse, once it
// has arrived, decides whether these pieces were the text of a document.
class ArrivingString {
 public:
  explicit ArrivingString(size_t bigFrom, size_t maxPiece = size_t{8} << 20) : bigFrom_(bigFrom), maxPiece_(maxPiece) {}

  struct Piece {
    size_t begin = 0, end = 0;  // offsets in the body
    bool empty() const { return end <= begin; }
  };
  // Reads on into `filled` (the body's bytes that have arrived: the same bytes, longer each
  // call). Returns the next piece ready, empty when none is yet.
  Piece next(std::string_view filled);
  // Where the big string's contents begin in the body (its opening quote + 1); 0 before one.
  size_t stringBegin() const { return big_ ? start_ : 0; }
  // The big string's closing quote was read: no piece will follow.
  bool ended() const { return ended_; }

 private:
  size_t bigFrom_, maxPiece_;
  size_t at_ = 0;           // the next byte to read
  bool inString_ = false;
  size_t start_ = 0;        // the contents' first byte of the string being read
  bool big_ = false;        // the string being read is the big one
  bool ended_ = false;
  size_t cut_ = 0;          // the big string's bytes before this were handed out
  size_t lineEnd_ = 0;      // just after its last escaped newline read so far
  // The next '"' and '\\' at or after at_, each looked for once and kept until passed (a log's
  // quotes are rare, its backslashes one a line); npos when none has arrived, and then none is
  // in the bytes before *Scanned_ either.
  size_t quote_ = std::string_view::npos, slash_ = std::string_view::npos;
  size_t quoteScanned_ = 0, slashScanned_ = 0;
  size_t nextOf(char c, size_t& pos, size_t& scanned, std::string_view s);
};

}  // namespace denpex::lsp
