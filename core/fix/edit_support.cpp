// Helpers shared by the edit kinds (see edit_support.h).
#include "core/fix/edit_support.h"

#include <cstdlib>

#include "core/base/text.h"

namespace denpex::core::fix_detail {

using text::lineBegin;

std::string baseName(const std::string& path) {
  size_t slash = path.find_last_of("/\\");
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string indentOf(std::string_view text, size_t offset) {
  size_t b = lineBegin(text, offset);
  size_t e = b;
  while (e < text.size() && (text[e] == ' ' || text[e] == '\t')) ++e;
  return std::string(text.substr(b, e - b));
}

// A Python or JSON numeric literal (underscores allowed, as Python does).
std::optional<double> numericLiteral(std::string_view text) {
  std::string clean;
  for (char c : text)
    if (c != '_') clean += c;
  if (clean.empty()) return std::nullopt;
  char* end = nullptr;
  double v = std::strtod(clean.c_str(), &end);
  if (end != clean.c_str() + clean.size()) return std::nullopt;
  return v;
}

std::string formatTitle(const EditSpec& spec, const std::string& target, std::string_view previous, const std::string& where) {
  std::string t = "Set " + editSetting(spec);
  if (!target.empty()) t += " in " + target;
  if (!previous.empty()) {
    // The value it replaces, as the file has it (shortened: it is only a reminder).
    std::string was(previous.substr(0, 40));
    for (char& c : was)
      if (c == '\n' || c == '\r' || c == '\t') c = ' ';
    t += ", was " + was + (previous.size() > 40 ? "..." : "");
  }
  return t + " (" + where + ")";
}

}  // namespace denpex::core::fix_detail
