// Line index, column conversions and terminal-noise cleaning.
#include "core/parse/log_text.h"

#include <gtest/gtest.h>

namespace denpex::core {
namespace {

TEST(LogText, Utf16ColumnsCountSurrogatePairs) {
  std::string line = "a\xF0\x9F\x94\xA5" "b";  // a, U+1F525 (4 bytes, 2 UTF-16 units), b
  EXPECT_EQ(utf16Column(line, 0), 0u);
  EXPECT_EQ(utf16Column(line, 1), 1u);
  EXPECT_EQ(utf16Column(line, 5), 3u);
  EXPECT_EQ(utf16Column(line, 6), 4u);
  EXPECT_EQ(byteColumnFromUtf16(line, 3), 5u);
  EXPECT_EQ(byteColumnFromUtf16(line, 4), 6u);
}

TEST(LogText, CjkIsOneUnitPerCharacter) {
  std::string line = "\xE6\x90\x8D\xE5\xA4\xB1 loss";  // two CJK characters, 3 bytes each
  EXPECT_EQ(utf16Column(line, 6), 2u);
  EXPECT_EQ(byteColumnFromUtf16(line, 2), 6u);
  EXPECT_EQ(byteColumnFromUtf16(line, 100), line.size());
}

TEST(LogText, InvalidUtf8CountsOneUnitPerByte) {
  std::string line = "a\xFF\xFE" "b";
  EXPECT_EQ(utf16Column(line, 4), 4u);
}

TEST(LogText, LineIndexRoundTrips) {
  std::string text = "first\r\nsecond \xF0\x9F\x94\xA5 x\n\nlast";
  LineIndex index(text);
  ASSERT_EQ(index.lineCount(), 4u);
  EXPECT_EQ(index.lineText(0), "first");
  EXPECT_EQ(index.lineText(2), "");
  EXPECT_EQ(index.lineText(3), "last");
  size_t x = text.find(" x") + 1;
  TextPosition p16 = index.toPosition(x, PositionEncoding::kUtf16);
  EXPECT_EQ(p16, (TextPosition{1, 10}));
  TextPosition p8 = index.toPosition(x, PositionEncoding::kUtf8);
  EXPECT_EQ(p8, (TextPosition{1, 12}));
  EXPECT_EQ(index.toOffset(p16, PositionEncoding::kUtf16), x);
  EXPECT_EQ(index.toOffset(p8, PositionEncoding::kUtf8), x);
  // Clamping past the end of a line and past the end of the text.
  EXPECT_EQ(index.toOffset({0, 99}, PositionEncoding::kUtf16), 5u);
  EXPECT_EQ(index.toOffset({99, 0}, PositionEncoding::kUtf16), text.size());
}

TEST(LogText, CleanLineStripsAnsiAndMapsBack) {
  std::string raw = "\x1b[31mError\x1b[0m: boom";
  CleanLine c = cleanLine(raw);
  EXPECT_EQ(c.text, "Error: boom");
  EXPECT_EQ(raw.substr(c.toRaw(0), 5), "Error");
  EXPECT_EQ(raw.substr(c.toRaw(7), 4), "boom");
  EXPECT_EQ(c.toRaw(c.text.size()), raw.size());
}

TEST(LogText, CleanLineKeepsLastProgressBarRedraw) {
  std::string raw = " 10%|#    | 1/10\r 50%|#####| 5/10\r100%|#####| 10/10, loss=0.5\r\x1b[K";
  CleanLine c = cleanLine(raw);
  EXPECT_EQ(c.text, "100%|#####| 10/10, loss=0.5");
  EXPECT_EQ(raw.substr(c.toRaw(0), 4), "100%");
}

TEST(LogText, CleanLineDropsCrlfAndOsc) {
  CleanLine c = cleanLine("\x1b]0;title\x07hello\r");
  EXPECT_EQ(c.text, "hello");
}

}  // namespace
}  // namespace denpex::core

// The index made from an edit equals the index made from scratch, for edits anywhere.
TEST(LineIndexEdit, SameAsAFreshIndexAfterRandomEdits) {
  std::string text = "a\nbb\n\nccc\nd";
  denpex::core::LineIndex index(text);
  unsigned seed = 7;
  auto next = [&](unsigned n) {
    seed = seed * 1103515245u + 12345u;
    return n ? (seed >> 8) % n : 0;
  };
  const char* pieces[] = {"", "x", "\n", "yy\n", "\n\nz", "q\nr\ns"};
  for (int round = 0; round < 500; ++round) {
    size_t begin = next(static_cast<unsigned>(text.size() + 1));
    size_t removed = next(static_cast<unsigned>(text.size() - begin + 1));
    std::string inserted = pieces[next(6)];
    text.replace(begin, removed, inserted);
    denpex::core::LineIndex edited(text, index, begin, removed, inserted.size());
    denpex::core::LineIndex fresh(text);
    ASSERT_EQ(edited.lineCount(), fresh.lineCount()) << round;
    for (size_t l = 0; l < fresh.lineCount(); ++l) ASSERT_EQ(edited.lineStart(l), fresh.lineStart(l)) << round << " line " << l;
    index = denpex::core::LineIndex(text, edited, 0, 0, 0);
  }
}

// A growing log: each append writes its starts after the ones before, in the array the indexes
// share, and an older index still reads only its own lines. A second text grown from the same
// older one (no longer the newest) gets its own copy; each index matches one made from scratch.
TEST(LineIndexEdit, AppendsShareTheStartsAndOlderIndexesKeepTheirs) {
  auto same = [](const denpex::core::LineIndex& a, const std::string& text) {
    denpex::core::LineIndex fresh(text);
    if (a.lineCount() != fresh.lineCount()) return false;
    for (size_t l = 0; l < fresh.lineCount(); ++l)
      if (a.lineStart(l) != fresh.lineStart(l) || a.lineText(l) != fresh.lineText(l)) return false;
    return true;
  };
  std::string base = "one\ntwo\n";
  denpex::core::LineIndex b(base);
  std::string grown = base;
  denpex::core::LineIndex last = b;
  for (int i = 0; i < 3000; ++i) {  // past the room the first array has
    std::string add = "line " + std::to_string(i) + "\n";
    std::string before = grown;
    grown += add;
    denpex::core::LineIndex next(grown, last, before.size(), 0, add.size());
    ASSERT_TRUE(same(next, grown)) << i;
    last = next;
  }
  std::string other = base + "else\nmore";
  denpex::core::LineIndex branch(other, b, base.size(), 0, 9);
  EXPECT_TRUE(same(branch, other));
  EXPECT_TRUE(same(last, grown));
  EXPECT_EQ(b.lineCount(), 3u);
  EXPECT_EQ(b.lineStart(2), base.size());
  EXPECT_EQ(b.lineText(1), "two");
}
