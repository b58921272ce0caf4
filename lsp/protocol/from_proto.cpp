// Reading client JSON (see from_proto.h).
#include "lsp/protocol/from_proto.h"

namespace denpex::lsp {

const json& member(const json& params, const char* name) {
  if (!params.is_object() || !params.contains(name))
    throw LspError(error::kInvalidParams, std::string("missing '") + name + "' in params");
  return params.at(name);
}

std::string stringMember(const json& params, const char* name) {
  const json& v = member(params, name);
  if (!v.is_string()) throw LspError(error::kInvalidParams, std::string("'") + name + "' must be a string");
  return v.get<std::string>();
}

std::string takeStringMember(json& params, const char* name) {
  member(params, name);
  json& v = params[name];
  if (!v.is_string()) throw LspError(error::kInvalidParams, std::string("'") + name + "' must be a string");
  return std::move(v.get_ref<std::string&>());
}

std::string documentUri(const json& params) { return stringMember(member(params, "textDocument"), "uri"); }

core::TextPosition positionFromJson(const json& j) {
  if (!j.is_object() || !j.contains("line") || !j.contains("character") || !j["line"].is_number_integer() ||
      !j["character"].is_number_integer() || j["line"].get<long long>() < 0 || j["character"].get<long long>() < 0)
    throw LspError(error::kInvalidParams, "a position needs non-negative integer 'line' and 'character'");
  return {j["line"].get<uint32_t>(), j["character"].get<uint32_t>()};
}

Range rangeFromJson(const json& j) { return {positionFromJson(member(j, "start")), positionFromJson(member(j, "end"))}; }

}  // namespace denpex::lsp
