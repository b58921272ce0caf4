// Fuzz target: a log of arbitrary bytes through the whole diagnosis and every report format,
// fed in pieces cut where the input says (so partial lines and resumptions are exercised too).
#include <cstdint>
#include <string>
#include <string_view>

#include "core/analyze/diagnoser.h"
#include "core/render/report.h"
#include "core/rules/rule_bundle.h"
#include "io/rule_dirs.h"

namespace {

const denpex::io::LoadedRules& rules() {
  static const denpex::io::LoadedRules loaded = denpex::io::loadRules({});
  return loaded;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto& r = rules();
  denpex::core::Diagnoser diagnoser(r.rules, *r.matcher);
  diagnoser.beginSource("fuzz.log");
  // The first byte says where to cut the rest.
  size_t step = size > 0 ? 1 + data[0] % 97 : 1;
  for (size_t at = size > 0 ? 1 : 0; at < size; at += step) diagnoser.addText(text.substr(at, step));
  denpex::core::Diagnosis mid = diagnoser.snapshot();
  denpex::core::Diagnosis d = diagnoser.finish();
  std::vector<std::vector<denpex::core::FixPlan>> plans(d.findings.size());
  denpex::core::ReportInput report{d, plans};
  denpex::core::renderJson(report);
  denpex::core::renderSarif(report);
  denpex::core::renderMarkdown(report);
  denpex::core::renderText(report, {});
  for (size_t i = 0; i < d.findings.size(); ++i) denpex::core::hoverMarkdown(d, i);
  (void)mid;
  return 0;
}
