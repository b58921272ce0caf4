// Reading a message body into JSON. A big body (a 100 MB log opened in the editor) is parsed with
// simdjson, several times faster than nlohmann's parser, and converted; a small one, or one
// simdjson refuses, goes to nlohmann's parser, so errors read the same as ever.
#pragma once

#include <string>

#include "lsp/protocol/types.h"

namespace denpex::lsp {

// Throws json::exception (nlohmann's) for malformed text. `body` may gain capacity (padding).
json parseMessage(std::string& body);

}  // namespace denpex::lsp
