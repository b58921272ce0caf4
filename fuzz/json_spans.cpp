// Fuzz target: JSON config text of arbitrary bytes through the span parser, the DeepSpeed config
// checks (with no probe, and with one naming an old DeepSpeed), and the JSON-key fix (a
// DeepSpeed config's optimizer.params.eps); every edit must apply inside the text.
#include <cstdint>
#include <string>

#include "core/check/source_checks.h"
#include "core/fix/json_spans.h"
#include "core/fix/planner.h"
#include "core/fix/text_edit.h"
#include "io/rule_dirs.h"

namespace {

class Named : public denpex::core::SourceProvider {
 public:
  denpex::core::SourceFile file;
  denpex::core::OpenedSource open(const std::string&) override { return {}; }
  std::vector<denpex::core::SourceFile> namedFiles() override { return {file}; }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const denpex::io::LoadedRules rules = denpex::io::loadRules({});
  std::string text(reinterpret_cast<const char*>(data), size);
  if (auto root = denpex::core::parseJsonSpans(text)) denpex::core::jsonAt(root.get(), "optimizer.params.eps");
  static const denpex::core::MachineProbe oldDeepSpeed = [] {
    denpex::core::MachineProbe p;
    p.deepspeedVersion = "0.9.5";
    return p;
  }();
  for (const auto* probe : {static_cast<const denpex::core::MachineProbe*>(nullptr), &oldDeepSpeed})
    for (const auto& finding : denpex::core::checkDeepSpeedConfig(text, rules.rules, 0, "ds_config.json", probe))
      for (const auto& e : finding.evidence)
        if (e.line > static_cast<uint64_t>(text.size())) __builtin_trap();
  Named src;
  src.file = {"ds_config.json", text, std::nullopt};
  const denpex::core::Rule* rule = rules.rules.find("adamw-eps-fp16-underflow");
  if (!rule) return 0;
  denpex::core::Finding f;
  for (const auto& r : rules.rules.rules())
    if (r.get() == rule) f.rule = r;
  for (const auto& plan : denpex::core::planFixes(f, src)) {
    for (const auto& e : plan.edits)
      if (e.begin > e.end || e.end > text.size()) __builtin_trap();
    if (plan.applicable) denpex::core::applyEdits(text, plan.edits);
  }
  return 0;
}
