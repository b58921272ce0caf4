// Reading a message body into JSON. In a big body (a 100 MB log opened in the editor) the big
// strings are found by their quotes, checked and unescaped in place, many times faster than
// nlohmann's parser reads them, and nlohmann's parser reads the rest; a small body, or a big one
// that is malformed or unusual, goes to nlohmann's parser whole, so errors read the same as ever.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "lsp/protocol/types.h"

namespace denpex::lsp {

// Arrays and objects nest at most this deep in a message (LSP's own messages nest less than 10).
constexpr size_t kMaxMessageDepth = 128;

// A well-formed message that nests deeper than kMaxMessageDepth.
struct MessageTooDeep : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Strings from this size on are read in place: nlohmann's parser would read them a byte at a
// time into a buffer of its own, and a 100 MB text would then be held twice over.
constexpr size_t kBigStringFrom = 256 * 1024;

// Throws json::exception (nlohmann's) for malformed text, MessageTooDeep for one nested too
// deep. A big `body` may be taken over by the result (its biggest string). `bigFrom` is for
// the tests and the fuzzer, which try the fast path on small messages.
// With `takenFrom`: where in the body the contents of the string that took over its buffer began
// (SIZE_MAX when none did).
json parseMessage(std::string& body, size_t bigFrom = kBigStringFrom, size_t* takenFrom = nullptr);

// Unescapes the contents of a JSON string token (between its quotes), to `dst`, which may be the
// token's own bytes or any place before them (the output is never longer than the input, and
// each byte is written only after the bytes it came from were read). Returns the length. Pieces
// cut after an escape, unescaped one by one, give what the whole gives. Any bytes are safe to
// give; for contents the parse refuses (an escape JSON does not allow) the output means nothing.
size_t unescapeTo(char* dst, std::string_view in);

// How deep arrays and objects nest in JSON text (strings skipped); no more than a scan.
size_t jsonDepth(std::string_view text);

}  // namespace denpex::lsp
