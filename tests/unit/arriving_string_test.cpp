// The big string of a message read while the message arrives (lsp/protocol/arriving_string):
// its pieces, unescaped one by one, are the start of what the parse makes of the whole string.
#include <gtest/gtest.h>

#include <random>

#include "lsp/protocol/arriving_string.h"
#include "lsp/protocol/parse.h"

namespace denpex::lsp {
namespace {

// A log with everything JSON escapes: quotes, backslashes, tabs, text outside ASCII (escaped as
// \uXXXX and surrogate pairs in the `ascii` dump), control characters.
std::string logText(size_t bytes) {
  std::string text;
  for (int i = 0; text.size() < bytes; ++i)
    text += "[rank" + std::to_string(i % 4) + "]:step " + std::to_string(i) +
            " | loss 0.69 \"quoted\" back\\slash\ttab caf\xc3\xa9 \xf0\x9f\x98\x80 ctrl\x01 /\n";
  return text + "a last line without its newline";
}

// Feeds `body` to a reader in steps of random sizes and returns the pieces unescaped.
std::string readInSteps(const std::string& body, ArrivingString& reader, std::mt19937& random, size_t maxStep) {
  std::string out;
  std::uniform_int_distribution<size_t> step(1, maxStep);
  for (size_t filled = 0; filled < body.size();) {
    filled = std::min(body.size(), filled + step(random));
    for (auto piece = reader.next(std::string_view(body).substr(0, filled)); !piece.empty();
         piece = reader.next(std::string_view(body).substr(0, filled))) {
      EXPECT_EQ(body.substr(piece.end - 2, 2), "\\n");  // a piece ends after an escaped newline
      std::string part(piece.end - piece.begin, '\0');
      part.resize(unescapeTo(part.data(), std::string_view(body).substr(piece.begin, piece.end - piece.begin)));
      out += part;
    }
  }
  return out;
}

TEST(ArrivingString, PiecesUnescapedAreTheWholeLinesOfTheText) {
  const std::string text = logText(300 * 1024);
  const std::string lines = text.substr(0, text.rfind('\n') + 1);
  json message = {{"jsonrpc", "2.0"},
                  {"method", "textDocument/didOpen"},
                  {"params", {{"textDocument", {{"uri", "file:///w/a \"b\".log"}, {"note", "a\nb\\c"}, {"languageId", "log"},
                                                {"version", 1}, {"text", text}}}}}};
  std::mt19937 random(7);
  for (bool ascii : {false, true}) {
    const std::string body = message.dump(-1, ' ', ascii);
    const size_t begin = body.find("\"text\":\"") + 8;
    for (size_t maxStep : {size_t{1}, size_t{97}, size_t{64} << 10}) {
      ArrivingString reader(64 * 1024, 16 * 1024);
      EXPECT_EQ(readInSteps(body, reader, random, maxStep), lines) << "ascii " << ascii << ", steps up to " << maxStep;
      EXPECT_TRUE(reader.ended());
      EXPECT_EQ(reader.stringBegin(), begin);
    }
  }
}

// Only the first string that grows big is followed; a message with none gives nothing.
TEST(ArrivingString, FollowsTheFirstBigStringOnly) {
  const std::string first = logText(100 * 1024), second = logText(200 * 1024);
  std::string body = json{{"a", "small\n"}, {"b", first}, {"c", second}}.dump();
  std::mt19937 random(11);
  ArrivingString reader(64 * 1024);
  EXPECT_EQ(readInSteps(body, reader, random, 4096), first.substr(0, first.rfind('\n') + 1));
  EXPECT_EQ(reader.stringBegin(), body.find("\"b\":\"") + 5);

  std::string none = json{{"a", std::string(10000, 'x') + "\n"}, {"b", 1}}.dump();
  ArrivingString small(64 * 1024);
  EXPECT_TRUE(readInSteps(none, small, random, 4096).empty());
  EXPECT_EQ(small.stringBegin(), 0u);
}

}  // namespace
}  // namespace denpex::lsp
