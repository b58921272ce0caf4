// Shared wording of the renderers (see wording.h and report.h).
#include "core/render/wording.h"

#include <algorithm>
#include <tuple>

#include "core/render/report.h"

namespace denpex::core {
namespace render_detail {

std::string trimEnd(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

std::string indent(const std::string& text, const std::string& pad) {
  std::string out;
  size_t start = 0;
  std::string t = trimEnd(text);
  while (start <= t.size()) {
    size_t nl = t.find('\n', start);
    std::string line = t.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
    out += line.empty() ? "\n" : pad + line + "\n";
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  return out;
}

std::string sourceName(const Diagnosis& d, uint32_t source) {
  return source < d.sources.size() ? d.sources[source] : "<input>";
}

std::vector<Evidence> sortedEvidence(const Finding& f) {
  std::vector<Evidence> ev = f.evidence;
  std::stable_sort(ev.begin(), ev.end(), [](const Evidence& a, const Evidence& b) {
    return std::tie(a.source, a.line) < std::tie(b.source, b.line);
  });
  return ev;
}

namespace {

size_t longestBacktickRun(std::string_view s) {
  size_t longest = 0, run = 0;
  for (char c : s) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  return longest;
}

}  // namespace

std::string mdText(std::string_view s) {
  std::string out;
  out.reserve(s.size() + s.size() / 4);
  for (char c : s) {
    if (c == '\n' || c == '\r') {
      out += ' ';
    } else if ((c >= '!' && c <= '/') || (c >= ':' && c <= '@') || (c >= '[' && c <= '`') || (c >= '{' && c <= '~')) {
      out += '\\';
      out += c;
    } else {
      out += c;
    }
  }
  return out;
}

std::string mdCode(std::string_view s) {
  std::string body(s);
  for (char& c : body)
    if (c == '\n' || c == '\r') c = ' ';
  std::string fence(longestBacktickRun(body) + 1, '`');
  // A space inside the fence when the text itself begins or ends with a backtick (CommonMark
  // strips one such space on each side).
  bool pad = !body.empty() && (body.front() == '`' || body.back() == '`');
  return fence + (pad ? " " : "") + body + (pad ? " " : "") + fence;
}

std::string mdFence(std::string_view s, std::string_view language) {
  std::string fence(std::max<size_t>(3, longestBacktickRun(s) + 1), '`');
  std::string out = fence + std::string(language) + "\n" + std::string(s);
  if (out.back() != '\n') out += '\n';
  return out + fence + "\n";
}

}  // namespace render_detail

std::string ranksText(const std::vector<int>& ranks) {
  std::string out;
  for (size_t i = 0; i < ranks.size(); ++i) {
    // Collapse runs: 0-3, 5
    size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    if (!out.empty()) out += ", ";
    out += std::to_string(ranks[i]);
    if (j > i) out += "-" + std::to_string(ranks[j]);
    i = j;
  }
  return out;
}

std::string ruleDocPath(const Rule& rule) { return "rules/" + rule.category + "/" + rule.id + ".md"; }

}  // namespace denpex::core
