// What Vectorscan scans for in place of a rule pattern (see prefilterExpression in prefilter.h):
// a reading of RE2's syntax just deep enough to cut a pattern into its top-level alternatives and
// each alternative into the items of its concatenation.
#include <string>
#include <string_view>
#include <vector>

#include "core/base/text.h"
#include "core/rules/prefilter.h"

namespace denpex::core {

namespace {

// One item of a pattern's concatenation: [begin, end) of the pattern, and whether it is one plain
// literal character that is required (no quantifier after it).
struct Item {
  size_t begin = 0, end = 0;
  bool literal = false;
};

using text::isAlnum;

// The end of the escape that starts at p[i] == '\\'; npos for one this reading does not know.
// `literal`: whether it stands for one character (an escaped punctuation mark).
size_t escapeEnd(std::string_view p, size_t i, bool& literal) {
  literal = false;
  if (i + 1 >= p.size()) return std::string_view::npos;
  char c = p[i + 1];
  if (!isAlnum(c)) {
    // Escaped punctuation is that character; a byte outside ASCII is left to the general case.
    if (static_cast<unsigned char>(c) >= 0x80) return std::string_view::npos;
    literal = true;
    return i + 2;
  }
  if (std::string_view("dDsSwWbBAzfnrtv").find(c) != std::string_view::npos) return i + 2;
  if (c == 'x') {
    if (i + 2 < p.size() && p[i + 2] == '{') {
      size_t close = p.find('}', i + 3);
      return close == std::string_view::npos ? close : close + 1;
    }
    if (i + 3 < p.size() && text::isXDigit(p[i + 2]) && text::isXDigit(p[i + 3])) return i + 4;
    return std::string_view::npos;
  }
  if (c == 'p' || c == 'P') {
    if (i + 2 < p.size() && p[i + 2] == '{') {
      size_t close = p.find('}', i + 3);
      return close == std::string_view::npos ? close : close + 1;
    }
    return i + 2 < p.size() && isAlnum(p[i + 2]) ? i + 3 : std::string_view::npos;
  }
  return std::string_view::npos;  // \Q...\E, \C, octal and the rest: not read here
}

// The end of the class that starts at p[i] == '['; npos when unclosed or unreadable.
size_t classEnd(std::string_view p, size_t i) {
  size_t j = i + 1;
  if (j < p.size() && p[j] == '^') ++j;
  if (j < p.size() && p[j] == ']') ++j;  // a ']' first is a member
  while (j < p.size()) {
    if (p[j] == ']') return j + 1;
    if (p[j] == '\\') {
      bool lit = false;
      size_t e = escapeEnd(p, j, lit);
      if (e == std::string_view::npos) return e;
      j = e;
    } else if (p[j] == '[' && j + 1 < p.size() && p[j + 1] == ':') {
      size_t close = p.find(":]", j + 2);
      if (close == std::string_view::npos) return close;
      j = close + 2;
    } else {
      ++j;
    }
  }
  return std::string_view::npos;
}

// The end of the group that starts at p[i] == '('; npos when unbalanced or unreadable.
size_t groupEnd(std::string_view p, size_t i) {
  int depth = 0;
  for (size_t j = i; j < p.size();) {
    char c = p[j];
    if (c == '\\') {
      bool lit = false;
      size_t e = escapeEnd(p, j, lit);
      if (e == std::string_view::npos) return e;
      j = e;
    } else if (c == '[') {
      j = classEnd(p, j);
      if (j == std::string_view::npos) return j;
    } else {
      if (c == '(') ++depth;
      if (c == ')' && --depth == 0) return j + 1;
      ++j;
    }
  }
  return std::string_view::npos;
}

// The end of a quantifier at p[i] (none: i itself), with a lazy '?' after it.
size_t quantifierEnd(std::string_view p, size_t i) {
  if (i >= p.size()) return i;
  size_t j = i;
  if (p[j] == '*' || p[j] == '+' || p[j] == '?') {
    ++j;
  } else if (p[j] == '{') {
    // {n}, {n,} or {n,m}; anything else is a literal '{' to RE2.
    size_t k = j + 1, digits = 0;
    while (k < p.size() && p[k] >= '0' && p[k] <= '9') ++k, ++digits;
    if (digits == 0) return i;
    if (k < p.size() && p[k] == ',') {
      ++k;
      while (k < p.size() && p[k] >= '0' && p[k] <= '9') ++k;
    }
    if (k >= p.size() || p[k] != '}') return i;
    j = k + 1;
  } else {
    return i;
  }
  if (j < p.size() && p[j] == '?') ++j;
  return j;
}

// The items of one top-level alternative; false when it holds something not read here.
bool readItems(std::string_view alt, std::vector<Item>& items) {
  items.clear();
  for (size_t i = 0; i < alt.size();) {
    Item item;
    item.begin = i;
    char c = alt[i];
    size_t end = 0;
    if (c == '\\') {
      end = escapeEnd(alt, i, item.literal);
    } else if (c == '[') {
      end = classEnd(alt, i);
    } else if (c == '(') {
      // A flag setter mid-pattern, "(?i)", changes what follows it: not read here.
      if (alt.substr(i, 2) == "(?") {
        size_t k = i + 2;
        while (k < alt.size() && (isAlnum(alt[k]) || alt[k] == '-')) ++k;
        if (k < alt.size() && alt[k] == ')') return false;
      }
      end = groupEnd(alt, i);
    } else if (c == ')' || c == '*' || c == '+' || c == '?' || c == '|') {
      return false;  // unbalanced or a quantifier with nothing before it
    } else {
      end = i + 1;
      item.literal = c != '.' && c != '^' && c != '$' && static_cast<unsigned char>(c) < 0x80;
    }
    if (end == std::string_view::npos) return false;
    size_t q = quantifierEnd(alt, end);
    if (q != end) item.literal = false;
    item.end = q;
    items.push_back(item);
    i = q;
  }
  return true;
}

// Whether a literal run is, but for punctuation and spaces around it, one of the words that
// most lines of a big training log carry: every metric line has "loss" and "step", NCCL's INFO
// chatter has "rank" and "INFO", progress lines have "epoch" and "iter". Vectorscan started from
// such a word wakes on most lines, and a pattern that begins "rank\s+\d+ = " cost the whole scan
// more than a hundred that start from rare words did; started from " = " it costs nothing
// measurable.
bool chatterWord(std::string_view run) {
  size_t b = 0, e = run.size();
  while (b < e && !isAlnum(run[b])) ++b;
  while (e > b && !isAlnum(run[e - 1])) --e;
  std::string word(run.substr(b, e - b));
  for (char& c : word) c = text::toLower(c);
  for (std::string_view w : {"rank", "loss", "step", "info", "epoch", "iter"})
    if (word == w) return true;
  return false;
}

}  // namespace

std::string prefilterExpression(std::string_view pattern) {
  const std::string whole(pattern);
  // Flags at the very start, "(?i)", hold for every alternative: kept in front.
  size_t start = 0;
  if (pattern.substr(0, 2) == "(?") {
    size_t k = 2;
    while (k < pattern.size() && (isAlnum(pattern[k]) || pattern[k] == '-')) ++k;
    if (k < pattern.size() && pattern[k] == ')') start = k + 1;
  }
  // Cut the rest at its top-level '|'.
  std::vector<std::string_view> alternatives;
  size_t from = start;
  for (size_t j = start; j <= pattern.size();) {
    if (j == pattern.size() || pattern[j] == '|') {
      alternatives.push_back(pattern.substr(from, j - from));
      from = ++j;
      continue;
    }
    size_t next = j + 1;
    bool lit = false;
    if (pattern[j] == '\\') next = escapeEnd(pattern, j, lit);
    else if (pattern[j] == '[') next = classEnd(pattern, j);
    else if (pattern[j] == '(') next = groupEnd(pattern, j);
    if (next == std::string_view::npos) return whole;
    j = next;
  }
  std::string out(pattern.substr(0, start));
  std::vector<Item> items;
  for (size_t a = 0; a < alternatives.size(); ++a) {
    std::string_view alt = alternatives[a];
    if (a > 0) out.push_back('|');
    if (!readItems(alt, items)) return whole;
    // The longest run of required literal characters, the first of equals; a run that is only a
    // word most lines of a big log carry counts as shorter than any other of three or more.
    size_t bestAt = 0, bestLength = 0;
    bool bestRare = false;  // three or more characters and no such word
    for (size_t i = 0; i < items.size();) {
      if (!items[i].literal) {
        ++i;
        continue;
      }
      size_t j = i;
      while (j < items.size() && items[j].literal) ++j;
      const size_t length = j - i;
      const bool rare = length >= 3 && !chatterWord(alt.substr(items[i].begin, items[j - 1].end - items[i].begin));
      if (rare > bestRare || (rare == bestRare && length > bestLength)) bestAt = i, bestLength = length, bestRare = rare;
      i = j;
    }
    if (bestLength >= 3 && bestAt > 0) out.append(alt.substr(items[bestAt].begin));
    else out.append(alt);
  }
  return out;
}

}  // namespace denpex::core
