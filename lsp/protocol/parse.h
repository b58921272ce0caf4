// Reading a message body into JSON. A big body (a 100 MB log opened in the editor) is parsed with
// simdjson, several times faster than nlohmann's parser, and converted; a small one, or one
// simdjson refuses, goes to nlohmann's parser, so errors read the same as ever.
#pragma once

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

// Throws json::exception (nlohmann's) for malformed text, MessageTooDeep for one nested too
// deep. `body` may gain capacity (padding).
json parseMessage(std::string& body);

// How deep arrays and objects nest in JSON text (strings skipped); no more than a scan.
size_t jsonDepth(std::string_view text);

}  // namespace denpex::lsp
