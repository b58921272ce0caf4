// Accelerate config files (the YAML `accelerate config` writes): its mixed precision against the
// DeepSpeed config file it names (Accelerate refuses "--mixed_precision arg cannot be set to bf16
// when fp16 is set in the DeepSpeed config file"), and against a probe of the machine (bf16 on
// GPUs older than Ampere).
//
// These files are flat `key: value` lines that `accelerate config` writes; they are read line by
// line for the three keys that matter (distributed_type, mixed_precision and, under
// deepspeed_config, deepspeed_config_file), never through a YAML parser: nothing in a hostile
// file can make the read cost more than one pass, and a file written another way (flow style,
// anchors) gets no finding rather than a guess.
#include <re2/re2.h>

#include "core/base/text.h"
#include "core/check/python_script.h"
#include "core/check/source_checks.h"
#include "core/fix/json_spans.h"

namespace denpex::core {

namespace {

using namespace check_detail;

struct AccelerateConfig {
  bool deepspeed = false;
  std::optional<std::string> mixedPrecision;  // no, fp16, bf16, fp8
  size_t mixedPrecisionLine = 0;
  std::optional<std::string> deepspeedConfigFile;
};

AccelerateConfig readAccelerate(std::string_view text) {
  static const RE2& distributed = *new RE2(R"(distributed_type:\s*['"]?DEEPSPEED['"]?\s*(?:#.*)?)");
  static const RE2& precision =
      *new RE2(R"(mixed_precision:\s*['"]?([A-Za-z0-9]+)['"]?\s*(?:#.*)?)");
  static const RE2& configFile =
      *new RE2(R"re(\s+deepspeed_config_file:\s*(?:'([^']+)'|"([^"]+)"|([^\s#'"]+))\s*(?:#.*)?)re");
  AccelerateConfig c;
  Lines lines(text);
  for (size_t line = 0; line < lines.starts.size(); ++line) {
    std::string_view l = text::trimRight(lineText(text, lines, line));
    std::string v, a, b, d;
    if (RE2::FullMatch(l, distributed)) c.deepspeed = true;
    else if (RE2::FullMatch(l, precision, &v)) c.mixedPrecision = v, c.mixedPrecisionLine = line;
    else if (RE2::FullMatch(l, configFile, &a, &b, &d)) c.deepspeedConfigFile = !a.empty() ? a : !b.empty() ? b : d;
  }
  return c;
}

}  // namespace

std::vector<std::string> deepSpeedConfigsNamedByAccelerate(std::string_view yaml) {
  auto c = readAccelerate(yaml);
  if (c.deepspeed && c.deepspeedConfigFile) return {*c.deepspeedConfigFile};
  return {};
}

std::vector<Finding> checkAccelerateConfig(std::string_view text, const RuleSet& rules, uint32_t source,
                                           const std::string& path, const std::vector<NamedConfig>& configs,
                                           const MachineProbe* probe) {
  std::vector<Finding> out;
  const AccelerateConfig c = readAccelerate(text);
  if (!c.mixedPrecision) return out;
  const Lines lines(text);
  std::string_view precisionLine = lineText(text, lines, c.mixedPrecisionLine);
  auto precisionEvidence = [&](const char* signal) {
    return evidenceAt(text, lines, source, c.mixedPrecisionLine, 0, text::trimRight(precisionLine).size(), signal);
  };
  // The DeepSpeed file it names, with the other half-precision mode enabled.
  auto rule = ruleById(rules, "deepspeed-config-mismatch-training-arguments");
  const NamedConfig* config = nullptr;
  for (const auto& n : configs)
    if (c.deepspeedConfigFile && n.name == *c.deepspeedConfigFile) config = &n;
  if (rule && c.deepspeed && config && (*c.mixedPrecision == "fp16" || *c.mixedPrecision == "bf16")) {
    auto root = parseJsonSpans(config->text);
    const std::string other = *c.mixedPrecision == "fp16" ? "bf16" : "fp16";
    const JsonNode* enabled = root ? jsonAt(root.get(), other + ".enabled") : nullptr;
    if (!enabled && root && other == "bf16") enabled = jsonAt(root.get(), "bfloat16.enabled");
    if (enabled && enabled->kind == JsonNode::Kind::kOther && enabled->text == "true") {
      const Lines configLines(config->text);
      size_t line = configLines.lineOf(enabled->begin);
      Finding f;
      f.rule = rule;
      f.confidence = 1.0;
      f.evidence.push_back(precisionEvidence("mixed_precision"));
      f.evidence.push_back(evidenceAt(config->text, configLines, config->source, line, enabled->begin - configLines.starts[line],
                                      enabled->end - configLines.starts[line], "ds_value"));
      f.observed.push_back("mixed_precision is " + *c.mixedPrecision + " (line " + std::to_string(c.mixedPrecisionLine + 1) +
                           ") and " + config->path + " enables " + other);
      f.observed.push_back("Accelerate refuses a mixed precision that differs from the DeepSpeed config file's");
      f.observed.push_back(foreseenFailure(*rule));
      f.captures["mixed_precision"] = *c.mixedPrecision;
      f.captures["ds_precision"] = other;
      // The fix ("auto", which Accelerate fills from mixed_precision) goes into the config.
      f.userFrame = frameAt(config->path, config->source, line);
      out.push_back(std::move(f));
    }
  }
  // bf16 on a machine whose GPUs all predate Ampere.
  auto bf16Rule = ruleById(rules, "bf16-unsupported-gpu");
  if (bf16Rule && probe && gpusLackBf16(*probe) && *c.mixedPrecision == "bf16") {
    Finding f;
    f.rule = bf16Rule;
    f.confidence = 1.0;
    f.evidence.push_back(precisionEvidence("bf16"));
    f.observed.push_back("mixed_precision is bf16 (line " + std::to_string(c.mixedPrecisionLine + 1) + ")");
    f.observed.push_back(noBf16(*probe));
    f.observed.push_back(foreseenFailure(*bf16Rule));
    f.userFrame = frameAt(path, source, c.mixedPrecisionLine);
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace denpex::core
