// LSP JSON -> values: reading what a client sent, with an InvalidParams LspError that names
// what is wrong. Every handler reads its params through these.
#pragma once

#include <string>

#include "core/parse/log_text.h"
#include "lsp/protocol/types.h"

namespace denpex::lsp {

// A required member of `params`; throws InvalidParams ("missing 'uri' in params").
const json& member(const json& params, const char* name);
// A required string member.
std::string stringMember(const json& params, const char* name);
// The same, moved out of `params` (a 100 MB text is not copied).
std::string takeStringMember(json& params, const char* name);
// params.textDocument.uri
std::string documentUri(const json& params);

core::TextPosition positionFromJson(const json& j);

struct Range {
  core::TextPosition start, end;
};
Range rangeFromJson(const json& j);

}  // namespace denpex::lsp
