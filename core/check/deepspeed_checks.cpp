// Check 3: DeepSpeed JSON configs. On their own: fp16 and bf16 both enabled (DeepSpeed asserts
// at start-up), batch sizes that no world size satisfies (train_batch_size must be
// micro batch x accumulation x world size), and keys no release knows (deepspeed_keys.cpp). Against the TrainingArguments of a script that names
// the config (deepspeed="ds_config.json"): a value the config sets, not "auto", that differs from
// the Trainer's, which the Hugging Face integration refuses before the first step.
//
// Precision over recall: only JSON literals are compared (a quoted "true" or "auto" is decided at
// run time); a Trainer side counts only from a literal TrainingArguments(...) without **kwargs,
// its defaults where it leaves a value out.
#include <re2/re2.h>

#include <cmath>
#include <cstdio>
#include <optional>

#include "core/base/text.h"
#include "core/check/python_script.h"
#include "core/check/source_checks.h"
#include "core/fix/json_spans.h"

namespace denpex::core {
namespace check_detail {
namespace {

// A DeepSpeed config: a JSON object with at least one key only DeepSpeed's configs have.
bool looksLikeDeepSpeed(const JsonNode* root) {
  if (!root || root->kind != JsonNode::Kind::kObject) return false;
  for (const char* key : {"zero_optimization", "train_micro_batch_size_per_gpu", "train_batch_size", "gradient_clipping",
                          "zero_allow_untested_optimizer", "steps_per_print", "wall_clock_breakdown"})
    if (jsonAt(root, key)) return true;
  return false;
}

// A JSON literal true/false, or nothing (absent, a string such as "auto", anything else).
std::optional<bool> literalBool(const JsonNode* node) {
  if (!node || node->kind != JsonNode::Kind::kOther) return std::nullopt;
  if (node->text == "true") return true;
  if (node->text == "false") return false;
  return std::nullopt;
}

std::optional<double> literalNumber(const JsonNode* node) {
  if (!node || node->kind != JsonNode::Kind::kOther) return std::nullopt;
  return floatLiteral(node->text);
}

// A precision section's `enabled`, with the legacy "bfloat16" name for bf16.
const JsonNode* enabledOf(const JsonNode* root, const std::string& section) {
  const JsonNode* n = jsonAt(root, section + ".enabled");
  if (!n && section == "bf16") n = jsonAt(root, "bfloat16.enabled");
  return n;
}

std::string shortNumber(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

}  // namespace

Evidence nodeEvidence(std::string_view text, const Lines& lines, uint32_t source, const JsonNode& node, const char* signal) {
  size_t line = lines.lineOf(node.begin);
  size_t lineEndAt = node.end;
  if (lines.lineOf(node.end) != line) lineEndAt = lines.starts[line] + lineText(text, lines, line).size();
  return evidenceAt(text, lines, source, line, node.begin - lines.starts[line], lineEndAt - lines.starts[line], signal);
}

Finding configFinding(const std::shared_ptr<const Rule>& rule, const std::string& path, uint32_t source, Evidence first) {
  Finding f;
  f.rule = rule;
  f.confidence = 1.0;
  f.userFrame = frameAt(path, source, first.line);
  f.evidence.push_back(std::move(first));
  return f;
}

}  // namespace check_detail

using namespace check_detail;

std::vector<Finding> checkDeepSpeedConfig(std::string_view text, const RuleSet& rules, uint32_t source,
                                          const std::string& path, const MachineProbe* probe) {
  std::vector<Finding> out;
  auto root = parseJsonSpans(text);
  if (!looksLikeDeepSpeed(root.get())) return out;
  const Lines lines(text);
  if (auto rule = ruleById(rules, "deepspeed-fp16-bf16-both-enabled")) {
    const JsonNode* fp16 = enabledOf(root.get(), "fp16");
    const JsonNode* bf16 = enabledOf(root.get(), "bf16");
    if (literalBool(fp16).value_or(false) && literalBool(bf16).value_or(false)) {
      Finding f = configFinding(rule, path, source, nodeEvidence(text, lines, source, *bf16, "bf16"));
      f.evidence.push_back(nodeEvidence(text, lines, source, *fp16, "fp16"));
      f.observed.push_back("fp16.enabled (line " + std::to_string(f.evidence[1].line + 1) + ") and bf16.enabled (line " +
                           std::to_string(f.evidence[0].line + 1) + ") are both true");
      f.observed.push_back("DeepSpeed runs one half-precision mode and refuses this config at start-up");
      f.observed.push_back(foreseenFailure(*rule));
      out.push_back(std::move(f));
    }
  }
  if (auto rule = ruleById(rules, "deepspeed-batch-size-mismatch")) {
    const JsonNode* total = jsonAt(root.get(), "train_batch_size");
    const JsonNode* micro = jsonAt(root.get(), "train_micro_batch_size_per_gpu");
    const JsonNode* steps = jsonAt(root.get(), "gradient_accumulation_steps");
    auto t = literalNumber(total), m = literalNumber(micro), g = literalNumber(steps);
    if (t && m && g && *m >= 1 && *g >= 1 && *t >= 1) {
      double world = *t / (*m * *g);
      if (std::floor(world) != world) {
        Finding f = configFinding(rule, path, source, nodeEvidence(text, lines, source, *total, "train_batch_size"));
        f.evidence.push_back(nodeEvidence(text, lines, source, *micro, "micro_batch"));
        f.evidence.push_back(nodeEvidence(text, lines, source, *steps, "gradient_accumulation_steps"));
        f.observed.push_back("train_batch_size " + total->text + " is not micro batch " + micro->text + " x accumulation " +
                             steps->text + " x any whole number of processes");
        f.observed.push_back("DeepSpeed's batch assertion fails at start-up whatever the world size");
        f.observed.push_back(foreseenFailure(*rule));
        f.captures["train_batch_size"] = total->text;
        f.captures["micro_batch_per_gpu"] = micro->text;
        f.captures["gradient_accumulation_steps"] = steps->text;
        out.push_back(std::move(f));
      }
    }
  }
  unknownDeepSpeedKeys(*root, text, lines, source, path, rules, probe, out);
  return out;
}

namespace check_detail {
namespace {

// The config file a TrainingArguments call names with a string literal (deepspeed="ds.json").
std::optional<std::string> configNamedBy(std::string_view script, const PythonCall& call) {
  static const RE2& literal = *new RE2(R"re(^(?:"([^"\\]+)"|'([^'\\]+)')$)re");
  std::string a, b;
  if (!RE2::FullMatch(keywordValue(script, call, "deepspeed"), literal, &a, &b)) return std::nullopt;
  return a.empty() ? b : a;
}

}  // namespace

// The config a script's one literal TrainingArguments names, against those arguments: the
// values Hugging Face's integration compares, where the config sets them (not "auto") and the
// arguments say otherwise (their defaults where they say nothing).
void trainerVsDeepSpeed(const Script& script, const std::vector<NamedConfig>& configs, const RuleSet& rules,
                        std::vector<Finding>& out) {
  auto rule = ruleById(rules, "deepspeed-config-mismatch-training-arguments");
  if (!rule || script.trainingArgs.size() != 1) return;
  std::string_view text = script.text;
  const PythonCall& args = script.trainingArgs.front();
  for (const auto& a : args.args)
    if (a.star) return;
  auto named = configNamedBy(text, args);
  if (!named) return;
  const NamedConfig* config = nullptr;
  for (const auto& c : configs)
    if (c.name == *named) config = &c;
  if (!config) return;
  auto root = parseJsonSpans(config->text);
  if (!looksLikeDeepSpeed(root.get())) return;
  const Lines configLines(config->text);

  // The Trainer's side: its literal, or its default; nullopt when it is an expression.
  auto trainerBool = [&](const char* keyword) -> std::optional<bool> {
    std::string_view v = keywordValue(text, args, keyword);
    if (v.empty() || v == "False") return false;
    if (v == "True") return true;
    return std::nullopt;
  };
  auto trainerNumber = [&](const char* keyword, double byDefault) -> std::optional<double> {
    std::string_view v = keywordValue(text, args, keyword);
    if (v.empty()) return byDefault;
    return floatLiteral(v);
  };
  struct Mismatch {
    const JsonNode* node;
    std::string key, ds, trainer;
  };
  std::vector<Mismatch> found;
  for (const char* section : {"fp16", "bf16"}) {
    const JsonNode* n = enabledOf(root.get(), section);
    auto ds = literalBool(n);
    auto hf = trainerBool(section);
    if (ds && hf && *ds != *hf)
      found.push_back({n, std::string(section) + ".enabled", *ds ? "true" : "false", std::string(section) + "=" + (*hf ? "True" : "False")});
  }
  struct NumberKey {
    const char* ds;
    const char* trainer;
    double byDefault;
  };
  for (const NumberKey& k : {NumberKey{"train_micro_batch_size_per_gpu", "per_device_train_batch_size", 8},
                             NumberKey{"gradient_accumulation_steps", "gradient_accumulation_steps", 1},
                             NumberKey{"gradient_clipping", "max_grad_norm", 1.0},
                             NumberKey{"optimizer.params.lr", "learning_rate", 5e-5}}) {
    const JsonNode* n = jsonAt(root.get(), k.ds);
    auto ds = literalNumber(n);
    auto hf = trainerNumber(k.trainer, k.byDefault);
    if (ds && hf && std::fabs(*ds - *hf) > 1e-12 * std::max(1.0, std::fabs(*hf))) {
      std::string shown(keywordValue(text, args, k.trainer));
      found.push_back({n, k.ds, n->text, std::string(k.trainer) + "=" + (shown.empty() ? "(default) " + shortNumber(*hf) : shown)});
    }
  }
  if (found.empty()) return;
  Finding f;
  f.rule = rule;
  f.confidence = 1.0;
  f.evidence.push_back(callEvidence(text, script.lines, script.source, args, "training_arguments"));
  for (const auto& m : found) {
    f.evidence.push_back(nodeEvidence(config->text, configLines, config->source, *m.node, "ds_value"));
    f.observed.push_back(config->path + ": " + m.key + "=" + m.ds + " vs " + m.trainer + " in " + args.name + "(...)");
  }
  f.observed.push_back("the Trainer's DeepSpeed integration refuses config values that disagree with its arguments "
                       "(\"auto\" takes the arguments' value)");
  f.observed.push_back(foreseenFailure(*rule));
  // The fix ("auto") goes into the config.
  f.userFrame = frameAt(config->path, config->source, f.evidence[1].line);
  out.push_back(std::move(f));
}

}  // namespace check_detail
std::vector<std::string> deepSpeedConfigsNamed(std::string_view script) {
  std::vector<std::string> out;
  for (const auto& call : findPythonCalls(script, {"TrainingArguments", "Seq2SeqTrainingArguments", "SFTConfig"}))
    if (auto name = check_detail::configNamedBy(script, call)) out.push_back(*name);
  return out;
}

}  // namespace denpex::core
