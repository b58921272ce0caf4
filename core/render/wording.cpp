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

std::string ruleUrl(const Rule& rule) {
  return "https://github.com/denpex/denpex/blob/main/docs/rules/" + rule.category + "/" + rule.id + ".md";
}

}  // namespace denpex::core
