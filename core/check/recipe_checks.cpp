// Training recipes: the YAML files that TRL's, alignment-handbook's and other HfArgumentParser
// scripts read their model arguments and TrainingArguments from (`python sft.py --config
// recipe.yaml`), one top-level `key: value` per line. The checks of the scripts, where the recipe
// alone shows the failure:
//   - FlashAttention-2 over weights loaded in float32 (torch_dtype: float32 said outright; the
//     scripts' defaults differ), with neither bf16 nor fp16: flash-attention-dtype;
//   - the whole model loaded in float16 and trained by the Trainer's AdamW: under fp16 mixed
//     precision its GradScaler refuses the float16 gradients (grad-scaler-fp16-params); without
//     it, adam_epsilon at its default 1e-8 is 0 in float16 (adamw-eps-fp16-underflow);
//   - with a probe of the machine, bf16 where every GPU predates Ampere: bf16-unsupported-gpu.
//
// Read line by line like Accelerate configs, never through a YAML parser: only top-level keys
// written as `key: value` count, and a recipe written another way gets no finding. Precision
// over recall: a recipe that trains adapters (use_peft, lora_*), loads quantized, or hands the
// precision to DeepSpeed or FSDP is left alone.
#include <re2/re2.h>

#include <map>

#include "core/base/text.h"
#include "core/check/python_script.h"
#include "core/check/source_checks.h"

namespace denpex::core {

namespace {

using namespace check_detail;

struct RecipeValue {
  std::string value;  // unquoted, comment dropped
  size_t line = 0;
};

// The top-level `key: scalar` lines.
std::map<std::string, RecipeValue> readRecipe(std::string_view text, const Lines& lines) {
  static const RE2& entry = *new RE2(
      R"re(([A-Za-z_][A-Za-z0-9_]*):[ \t]*(?:"([^"]*)"|'([^']*)'|([^\s#'"][^#]*?))?[ \t]*(?:#.*)?)re");
  std::map<std::string, RecipeValue> out;
  for (size_t line = 0; line < lines.starts.size(); ++line) {
    std::string_view l = text::trimRight(lineText(text, lines, line));
    std::string key, a, b, c;
    if (!RE2::FullMatch(l, entry, &key, &a, &b, &c)) continue;
    out.try_emplace(key, RecipeValue{!a.empty() ? a : !b.empty() ? b : c, line});
  }
  return out;
}

bool isTrue(const std::map<std::string, RecipeValue>& r, const char* key) {
  auto it = r.find(key);
  return it != r.end() && (it->second.value == "true" || it->second.value == "True");
}

const RecipeValue* valueOf(const std::map<std::string, RecipeValue>& r, const char* key) {
  auto it = r.find(key);
  return it == r.end() ? nullptr : &it->second;
}

Finding recipeFinding(std::string_view text, const Lines& lines, uint32_t source, const std::string& path,
                      const std::shared_ptr<const Rule>& rule, const RecipeValue& at, const char* signal) {
  Finding f;
  f.rule = rule;
  f.confidence = 1.0;
  f.evidence.push_back(evidenceAt(text, lines, source, at.line, 0, text::trimRight(lineText(text, lines, at.line)).size(), signal));
  f.userFrame = frameAt(path, source, at.line);
  return f;
}

}  // namespace

bool looksLikeTrainerRecipe(std::string_view yaml) {
  // Asked on every edit of a YAML document: no line is read unless the key is there at all.
  constexpr std::string_view kKey = "model_name_or_path:";
  if (yaml.substr(0, kKey.size()) != kKey && yaml.find("\n" + std::string(kKey)) == std::string_view::npos) return false;
  const Lines lines(yaml);
  auto r = readRecipe(yaml, lines);
  return r.count("model_name_or_path") && (r.count("output_dir") || r.count("learning_rate") ||
                                           r.count("per_device_train_batch_size") || r.count("num_train_epochs"));
}

std::vector<Finding> checkTrainerRecipe(std::string_view text, const RuleSet& rules, uint32_t source, const std::string& path,
                                        const MachineProbe* probe) {
  std::vector<Finding> out;
  const Lines lines(text);
  const auto r = readRecipe(text, lines);
  if (!r.count("model_name_or_path")) return out;
  const RecipeValue* dtype = valueOf(r, "torch_dtype");
  if (!dtype) dtype = valueOf(r, "dtype");
  const bool bf16 = isTrue(r, "bf16"), fp16 = isTrue(r, "fp16");
  bool adapters = isTrue(r, "use_peft") || isTrue(r, "load_in_4bit") || isTrue(r, "load_in_8bit");
  for (const auto& [key, value] : r)
    if (key.rfind("lora_", 0) == 0 || key == "peft_config") adapters = true;
  const bool handedOver = (valueOf(r, "deepspeed") && !valueOf(r, "deepspeed")->value.empty()) ||
                          (valueOf(r, "fsdp") && !valueOf(r, "fsdp")->value.empty() && valueOf(r, "fsdp")->value != "false");

  auto faRule = ruleById(rules, "flash-attention-dtype");
  const RecipeValue* attn = valueOf(r, "attn_implementation");
  if (faRule && attn && attn->value == "flash_attention_2" && dtype && dtype->value == "float32" && !bf16 && !fp16 && !handedOver) {
    Finding f = recipeFinding(text, lines, source, path, faRule, *attn, "fa_dtype");
    f.observed.push_back("attn_implementation is flash_attention_2 (line " + std::to_string(attn->line + 1) +
                         ") on weights loaded in float32 (line " + std::to_string(dtype->line + 1) + ")");
    f.observed.push_back("neither bf16 nor fp16 is on: nothing runs the model in 16 bits, and FlashAttention-2 refuses "
                         "float32 at the first forward pass");
    f.observed.push_back(foreseenFailure(*faRule));
    out.push_back(std::move(f));
  }

  if (dtype && dtype->value == "float16" && !adapters && !handedOver && !bf16) {
    if (auto rule = ruleById(rules, "grad-scaler-fp16-params"); rule && fp16) {
      Finding f = recipeFinding(text, lines, source, path, rule, *dtype, "fp16_params");
      f.observed.push_back("torch_dtype is float16 (line " + std::to_string(dtype->line + 1) +
                           "): the whole model is loaded in float16 and trained");
      f.observed.push_back("fp16 is true (line " + std::to_string(valueOf(r, "fp16")->line + 1) +
                           "): the Trainer's GradScaler refuses float16 gradients at the first step");
      f.observed.push_back(foreseenFailure(*rule));
      out.push_back(std::move(f));
    }
    const RecipeValue* eps = valueOf(r, "adam_epsilon");
    const RecipeValue* optim = valueOf(r, "optim");
    const bool adam = !optim || optim->value == "adamw_torch" || optim->value == "adamw_hf" || optim->value == "adamw_torch_fused";
    auto epsValue = eps ? floatLiteral(eps->value) : std::optional<double>(kTorchAdamDefaultEps);
    if (auto rule = ruleById(rules, "adamw-eps-fp16-underflow"); rule && !fp16 && adam && epsValue && *epsValue < kZeroInFloat16) {
      Finding f = recipeFinding(text, lines, source, path, rule, *dtype, "fp16_params");
      f.observed.push_back("torch_dtype is float16 (line " + std::to_string(dtype->line + 1) +
                           "): the whole model is loaded in float16 and trained as it is (neither fp16 nor bf16 mixed precision)");
      f.observed.push_back("the Trainer's AdamW divides by sqrt(v) + adam_epsilon, and adam_epsilon " +
                           (eps ? eps->value + " (line " + std::to_string(eps->line + 1) + ")" : std::string("1e-8 (the default)")) +
                           " is 0 in float16");
      f.observed.push_back(foreseenFailure(*rule));
      out.push_back(std::move(f));
    }
  }

  auto bf16Rule = ruleById(rules, "bf16-unsupported-gpu");
  if (bf16Rule && probe && gpusLackBf16(*probe)) {
    // The first line that asks for it: bf16 mixed precision, or weights loaded in bfloat16.
    const RecipeValue* asks = bf16 ? valueOf(r, "bf16") : nullptr;
    if (dtype && dtype->value == "bfloat16" && (!asks || dtype->line < asks->line)) asks = dtype;
    if (asks) {
      Finding f = recipeFinding(text, lines, source, path, bf16Rule, *asks, "bf16");
      f.observed.push_back("line " + std::to_string(asks->line + 1) + " asks for bfloat16");
      f.observed.push_back(noBf16(*probe));
      f.observed.push_back(foreseenFailure(*bf16Rule));
      out.push_back(std::move(f));
    }
  }
  return out;
}

}  // namespace denpex::core
