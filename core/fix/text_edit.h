// Text edits: byte ranges of a text and what replaces them; applying them and showing them as a
// unified diff. Pure.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace denpex::core {

struct TextEdit {
  size_t begin = 0;  // byte offsets into the file's text
  size_t end = 0;
  std::string newText;
};

// Applies sorted, non-overlapping edits.
std::string applyEdits(std::string_view text, const std::vector<TextEdit>& edits);

// A unified diff (3 lines of context) between a file's text and the same text with edits.
std::string unifiedDiff(const std::string& path, std::string_view text, const std::vector<TextEdit>& edits);

}  // namespace denpex::core
