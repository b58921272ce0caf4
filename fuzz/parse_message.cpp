// Fuzz target: the fast path of message parsing (lsp/protocol/parse.cpp) against nlohmann's
// parser, on the same bytes. With big strings counted from 8 bytes on, small inputs take the
// fast path; it must give exactly nlohmann's value, and fail where nlohmann fails.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "lsp/protocol/parse.h"

using denpex::lsp::json;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  if (denpex::lsp::jsonDepth(text) > denpex::lsp::kMaxMessageDepth) return 0;  // refused before either parser
  json expected = json::parse(text, nullptr, false);
  std::string body = text;
  bool threw = false;
  json got;
  try {
    got = denpex::lsp::parseMessage(body, 8);
  } catch (const json::exception&) {
    threw = true;
  }
  if (expected.is_discarded() != threw || (!threw && got != expected)) std::abort();
  return 0;
}
