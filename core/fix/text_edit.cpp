// Applying text edits and showing them as a unified diff (see text_edit.h).
#include "core/fix/text_edit.h"

#include <algorithm>

#include "core/parse/log_text.h"

namespace denpex::core {

std::string applyEdits(std::string_view text, const std::vector<TextEdit>& edits) {
  std::string out;
  size_t at = 0;
  for (const auto& e : edits) {
    out.append(text.substr(at, e.begin - at));
    out += e.newText;
    at = e.end;
  }
  out.append(text.substr(std::min(at, text.size())));
  return out;
}

std::string unifiedDiff(const std::string& path, std::string_view text, const std::vector<TextEdit>& edits) {
  if (edits.empty()) return "";
  LineIndex index(text);
  // Regions of whole old lines touched by edits, merged when they share a line.
  struct Region {
    size_t first, last;  // old lines, 0-based inclusive
    std::vector<TextEdit> edits;
  };
  std::vector<Region> regions;
  for (const auto& e : edits) {
    size_t first = index.lineOf(e.begin);
    size_t last = index.lineOf(e.end > e.begin ? e.end - 1 : e.end);
    last = std::max(first, last);
    if (!regions.empty() && first <= regions.back().last) {
      regions.back().last = std::max(regions.back().last, last);
      regions.back().edits.push_back(e);
    } else {
      regions.push_back({first, last, {e}});
    }
  }
  auto lineWithEol = [&](size_t line) { return std::string(index.lineText(line)); };
  size_t total = index.lineCount();
  if (!text.empty() && text.back() == '\n') --total;  // the empty line after the final newline
  const size_t context = 3;
  std::string out = "--- a/" + path + "\n+++ b/" + path + "\n";
  size_t r = 0;
  while (r < regions.size()) {
    // Group regions whose context overlaps into one hunk.
    size_t r2 = r;
    while (r2 + 1 < regions.size() && regions[r2 + 1].first <= regions[r2].last + 2 * context + 1) ++r2;
    size_t hunkFirst = regions[r].first >= context ? regions[r].first - context : 0;
    size_t hunkLast = std::min(total == 0 ? 0 : total - 1, regions[r2].last + context);
    std::string body;
    size_t oldCount = 0, newCount = 0;
    size_t line = hunkFirst;
    for (size_t k = r; k <= r2; ++k) {
      for (; line < regions[k].first; ++line, ++oldCount, ++newCount) body += " " + lineWithEol(line) + "\n";
      size_t b = index.lineStart(regions[k].first);
      size_t e = index.lineStart(regions[k].last) + index.lineText(regions[k].last).size();
      std::vector<TextEdit> local;
      for (auto ed : regions[k].edits) {
        ed.begin -= b;
        ed.end -= b;
        local.push_back(ed);
      }
      std::string replaced = applyEdits(text.substr(b, e - b), local);
      for (; line <= regions[k].last; ++line, ++oldCount) body += "-" + lineWithEol(line) + "\n";
      size_t start = 0;
      while (true) {
        size_t nl = replaced.find('\n', start);
        body += "+" + replaced.substr(start, nl == std::string::npos ? std::string::npos : nl - start) + "\n";
        ++newCount;
        if (nl == std::string::npos) break;
        start = nl + 1;
      }
    }
    for (; line <= hunkLast; ++line, ++oldCount, ++newCount) body += " " + lineWithEol(line) + "\n";
    out += "@@ -" + std::to_string(hunkFirst + 1) + "," + std::to_string(oldCount) + " +" +
           std::to_string(hunkFirst + 1) + "," + std::to_string(newCount) + " @@\n" + body;
    r = r2 + 1;
  }
  return out;
}

}  // namespace denpex::core
