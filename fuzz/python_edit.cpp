// Fuzz target: Python source of arbitrary bytes through the call finder, the import reader and
// the fix planner, with the shipped rules' edits; every planned edit must apply inside the text.
#include <cstdint>
#include <string>

#include "core/fix/planner.h"
#include "core/fix/python_calls.h"
#include "core/fix/text_edit.h"
#include "io/rule_dirs.h"

namespace {

class Named : public denpex::core::SourceProvider {
 public:
  denpex::core::SourceFile file;
  denpex::core::OpenedSource open(const std::string&) override { return {file, {}}; }
  std::vector<denpex::core::SourceFile> namedFiles() override { return {}; }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const denpex::io::LoadedRules rules = denpex::io::loadRules({});
  std::string text(reinterpret_cast<const char*>(data), size);
  denpex::core::findPythonCalls(text, {"AdamW", "Adam", "DDP"});
  auto imports = denpex::core::findPythonImports(text);
  for (const auto& [name, targets] : imports.bindings) denpex::core::resolvePythonName(imports, name + ".x");
  Named src;
  src.file = {"train.py", text, std::nullopt};
  for (const auto& rule : rules.rules.rules()) {
    if (rule->edits.empty()) continue;
    denpex::core::Finding f;
    f.rule = rule;
    f.userFrame = denpex::core::Frame{"train.py", 1, "<module>", 0, 0, true};
    for (const auto& plan : denpex::core::planFixes(f, src)) {
      for (const auto& e : plan.edits)
        if (e.begin > e.end || e.end > text.size()) __builtin_trap();
      if (plan.applicable) denpex::core::applyEdits(text, plan.edits);
    }
  }
  return 0;
}
