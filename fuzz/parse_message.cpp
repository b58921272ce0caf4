// Fuzz target: the fast path of message parsing (lsp/protocol/parse.cpp) against nlohmann's
// parser, on the same bytes. With big strings counted from 8 bytes on, small inputs take the
// fast path; it must give exactly nlohmann's value, and fail where nlohmann fails.
// And the reading of a message as it arrives (lsp/protocol/arriving_string.cpp), in steps whose
// sizes come from the input: when the parse hands the body's buffer to the string the reader
// followed, the reader's pieces, unescaped one by one, are the start of that string.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "lsp/protocol/arriving_string.h"
#include "lsp/protocol/parse.h"

using denpex::lsp::json;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  if (denpex::lsp::jsonDepth(text) > denpex::lsp::kMaxMessageDepth) return 0;  // refused before either parser
  json expected = json::parse(text, nullptr, false);

  denpex::lsp::ArrivingString reader(8, 16);
  std::string pieces;
  const size_t step = 1 + (size > 0 ? data[0] % 13 : 0);
  for (size_t filled = 0; filled < size;) {
    filled = std::min(size, filled + step);
    for (auto p = reader.next(std::string_view(text).substr(0, filled)); !p.empty();
         p = reader.next(std::string_view(text).substr(0, filled))) {
      if (p.begin < reader.stringBegin() || p.end > filled) std::abort();
      std::string part(p.end - p.begin, '\0');
      part.resize(denpex::lsp::unescapeTo(part.data(), std::string_view(text).substr(p.begin, p.end - p.begin)));
      pieces += part;
    }
  }

  std::string body = text;
  const char* buffer = body.data();
  size_t takenFrom = SIZE_MAX;
  bool threw = false;
  json got;
  try {
    got = denpex::lsp::parseMessage(body, 8, &takenFrom);
  } catch (const json::exception&) {
    threw = true;
  }
  if (expected.is_discarded() != threw || (!threw && got != expected)) std::abort();
  // The string that took the buffer over, found where the reader began: the pieces are its start.
  if (!threw && takenFrom != SIZE_MAX && takenFrom == reader.stringBegin() && !pieces.empty()) {
    const std::string* taken = nullptr;
    auto find = [&](auto&& self, const json& v) -> void {
      if (v.is_string() && v.get_ref<const std::string&>().data() == buffer) taken = &v.get_ref<const std::string&>();
      if (v.is_object() || v.is_array())
        for (const auto& item : v) self(self, item);
    };
    find(find, got);
    // (A body short enough to live inside its string object moves elsewhere: then none is found.)
    if (taken && taken->compare(0, pieces.size(), pieces) != 0) std::abort();
  }
  return 0;
}
