// A finding's name, and the masking that groups the same failure across ranks and steps.
#include "core/analyze/finding.h"

#include <cctype>

namespace denpex::core {

std::string verdict(const Finding& f) {
  if (f.rule->fallback) {
    std::string v = "Unrecognized failure: " + f.exceptionType;
    if (!f.exceptionMessage.empty()) v += ": " + f.exceptionMessage;
    return v;
  }
  return f.rule->title;
}

std::string maskMessage(std::string_view message) {
  std::string out;
  out.reserve(message.size());
  size_t i = 0;
  while (i < message.size()) {
    char c = message[i];
    // Digits count as a separate word after '_' too: "shard_01" varies, "layer2" does not.
    bool wordStart = i == 0 || !std::isalnum(static_cast<unsigned char>(message[i - 1]));
    if (wordStart && c == '0' && i + 2 < message.size() && (message[i + 1] == 'x' || message[i + 1] == 'X') &&
        std::isxdigit(static_cast<unsigned char>(message[i + 2]))) {
      size_t j = i + 2;
      while (j < message.size() && std::isxdigit(static_cast<unsigned char>(message[j]))) ++j;
      out += "<ADDR>";
      i = j;
      continue;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) && wordStart) {
      size_t j = i;
      while (j < message.size() && (std::isdigit(static_cast<unsigned char>(message[j])) || message[j] == '.' ||
                                    message[j] == 'e' || message[j] == 'E' ||
                                    ((message[j] == '-' || message[j] == '+') && j > i &&
                                     (message[j - 1] == 'e' || message[j - 1] == 'E'))))
        ++j;
      while (j > i + 1 && (message[j - 1] == '.' || message[j - 1] == 'e' || message[j - 1] == 'E')) --j;
      if (j < message.size() && std::isalpha(static_cast<unsigned char>(message[j])) &&
          message[j] != 'e' && message[j] != 'E') {
        // "16GiB", "2nd": keep the unit, mask the number
        out += "<N>";
        i = j;
        continue;
      }
      out += "<N>";
      i = j;
      continue;
    }
    if ((c == '\'' || c == '"') && i + 1 < message.size() && (message[i + 1] == '/' || message[i + 1] == '~')) {
      size_t close = message.find(c, i + 1);
      if (close != std::string_view::npos) {
        out += c;
        out += "<PATH>";
        out += c;
        i = close + 1;
        continue;
      }
    }
    out += c;
    ++i;
  }
  return out;
}

}  // namespace denpex::core
