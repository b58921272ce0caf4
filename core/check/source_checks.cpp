// Checks on training scripts before the run (see source_checks.h).
#include "core/check/source_checks.h"

#include <re2/re2.h>

#include <algorithm>
#include <cstdlib>
#include <optional>

#include "core/base/text.h"
#include "core/check/python_script.h"

namespace denpex::core {
namespace {

using namespace check_detail;

// The seed failure through the Hugging Face Trainer: a model cast to float16, trained by a
// Trainer whose one TrainingArguments asks for neither fp16 nor bf16 mixed precision (either
// would keep float32 master weights, or fail otherwise) and leaves the optimizer AdamW with an
// adam_epsilon that is 0 in float16. The fix goes into TrainingArguments.
void trainerEpsUnderflow(const Script& script, const std::shared_ptr<const Rule>& rule, std::vector<Finding>& out) {
  std::string_view text = script.text;
  if (script.trainingArgs.size() != 1) return;  // which one the Trainer gets is not in the source
  const PythonCall& args = script.trainingArgs.front();
  for (const auto& a : args.args)
    if (a.star) return;  // **kwargs: what they hold is not known
  for (const char* mixed : {"fp16", "bf16"}) {
    std::string_view v = keywordValue(text, args, mixed);
    if (!v.empty() && v != "False") return;
  }
  std::string_view optim = keywordValue(text, args, "optim");
  if (!optim.empty() && optim != "\"adamw_torch\"" && optim != "'adamw_torch'" && optim != "\"adamw_hf\"" && optim != "'adamw_hf'")
    return;
  std::string_view epsText = keywordValue(text, args, "adam_epsilon");
  double eps = kTorchAdamDefaultEps;
  if (!epsText.empty()) {
    auto v = floatLiteral(epsText);
    if (!v) return;
    eps = *v;
  }
  if (eps >= kZeroInFloat16) return;
  for (const auto& trainer : script.trainers) {
    if (!keywordValue(text, trainer, "optimizers").empty()) continue;  // an optimizer of the script's own
    auto model = trainedModel(text, trainer);
    if (!model) continue;
    auto cast = script.float16Trained(*model);
    if (!cast) continue;
    Finding f;
    f.rule = rule;
    f.evidence.push_back(callEvidence(text, script.lines, script.source, args, "optimizer"));
    f.evidence.push_back(evidenceAt(text, script.lines, script.source, cast->line, cast->begin, cast->end, "fp16"));
    f.observed.push_back(*model + "'s parameters are float16 (line " + std::to_string(cast->line + 1) + ")");
    f.observed.push_back(trainer.name + "(...) trains them with AdamW and " +
                         (epsText.empty() ? std::string("the default adam_epsilon 1e-8") : "adam_epsilon=" + std::string(epsText)) +
                         ", which is 0 in float16: the first steps divide by zero");
    f.observed.push_back(foreseenFailure(*rule));
    f.captures["eps"] = epsText.empty() ? "1e-08" : std::string(epsText);
    f.confidence = 1.0;
    f.userFrame = frameAt(script.path, script.source, f.evidence.front().line);
    out.push_back(std::move(f));
    return;
  }
}

// The seed failure: an Adam-family optimizer over parameters the script casts to float16, with
// an eps that is 0 in float16 (the default 1e-8 included).
void adamwEpsUnderflow(const Script& script, const RuleSet& rules, std::vector<Finding>& out) {
  auto rule = ruleById(rules, "adamw-eps-fp16-underflow");
  if (!rule) return;
  std::string_view text = script.text;
  const uint32_t source = script.source;
  const std::string& path = script.path;
  const PythonImports& imports = script.imports;
  const Lines& lines = script.lines;
  // With GradScaler the run stops earlier, at its first step ("Attempting to unscale FP16
  // gradients"): that is another failure, not this one.
  if (!script.scalers.empty()) return;
  for (const PythonCall* found : script.callsTo({"AdamW", "Adam"})) {
    const PythonCall& call = *found;
    auto q = resolvePythonName(imports, call.name);
    if (!q || (*q != "torch.optim.AdamW" && *q != "torch.optim.Adam")) continue;
    const CallArgument* params = nullptr;
    const CallArgument* eps = nullptr;
    bool spread = false;  // *args or **kwargs: what they hold is not known
    size_t positional = 0;
    for (const auto& a : call.args) {
      if (a.star) {
        spread = true;
        continue;
      }
      if (a.keyword.empty()) {
        if (positional == 0) params = &a;
        if (positional == 3) eps = &a;  // Adam(params, lr, betas, eps)
        ++positional;
      } else if (a.keyword == "params") {
        params = &a;
      } else if (a.keyword == "eps") {
        eps = &a;
      }
    }
    if (!params || (!eps && spread)) continue;
    double value = kTorchAdamDefaultEps;
    std::string epsText = "the default 1e-8";
    if (eps) {
      auto v = floatLiteral(text.substr(eps->valueBegin, eps->valueEnd - eps->valueBegin));
      if (!v) continue;  // a name or an expression: its value is not in the source
      value = *v;
      epsText = "eps=" + std::string(text::trim(text.substr(eps->valueBegin, eps->valueEnd - eps->valueBegin)));
    }
    if (value >= kZeroInFloat16) continue;
    auto receiver = parametersOf(text, *params);
    if (!receiver) continue;
    auto cast = script.float16Trained(*receiver);
    if (!cast) continue;

    Finding f;
    f.rule = rule;
    f.evidence.push_back(callEvidence(text, lines, source, call, "optimizer"));
    f.evidence.push_back(evidenceAt(text, lines, source, cast->line, cast->begin, cast->end, "fp16"));
    f.observed.push_back(*receiver + "'s parameters are float16 (line " + std::to_string(cast->line + 1) + ")");
    f.observed.push_back(call.name + "(...) has " + epsText + ", which is 0 in float16: the first steps divide by zero");
    f.observed.push_back(foreseenFailure(*rule));  // last: the editor's message ends with it
    f.captures["eps"] = eps ? std::string(text::trim(text.substr(eps->valueBegin, eps->valueEnd - eps->valueBegin))) : "1e-08";
    f.confidence = 1.0;
    f.userFrame = frameAt(path, source, f.evidence.front().line);
    out.push_back(std::move(f));
  }
  trainerEpsUnderflow(script, rule, out);
}

// GradScaler over float16 parameters: `scaler.step()` (or the Trainer with fp16=True, which
// makes one) refuses to unscale float16 gradients at the first optimizer step.
void gradScalerOverFloat16(const Script& script, const RuleSet& rules, std::vector<Finding>& out) {
  auto rule = ruleById(rules, "grad-scaler-fp16-params");
  if (!rule) return;
  std::string_view text = script.text;
  const uint32_t source = script.source;
  const std::string& path = script.path;
  const PythonImports& imports = script.imports;
  const Lines& lines = script.lines;
  auto add = [&](const PythonCall& at, const std::string& receiver, const Cast& cast, const std::string& how) {
    Finding f;
    f.rule = rule;
    f.evidence.push_back(callEvidence(text, lines, source, at, "scaler"));
    f.evidence.push_back(evidenceAt(text, lines, source, cast.line, cast.begin, cast.end, "fp16"));
    f.observed.push_back(receiver + "'s parameters are float16 (line " + std::to_string(cast.line + 1) + ")");
    f.observed.push_back(how);
    f.observed.push_back(foreseenFailure(*rule));
    f.userFrame = frameAt(path, source, f.evidence.front().line);
    f.float16Cast = SourceSpan{cast.line, static_cast<uint32_t>(cast.begin), static_cast<uint32_t>(cast.end)};
    out.push_back(std::move(f));
  };
  // torch's GradScaler, with an optimizer over X.parameters() where X is cast to float16.
  const PythonCall* scaler = nullptr;
  for (const auto& call : script.scalers) {
    std::string_view enabled = keywordValue(text, call, "enabled");
    if (!enabled.empty() && enabled != "True") continue;  // off, or decided at run time
    scaler = &call;
    break;
  }
  if (scaler) {
    for (const PythonCall* found : script.callsTo({"AdamW", "Adam", "SGD", "RMSprop", "Adagrad", "Adamax", "NAdam", "RAdam"})) {
      const PythonCall& call = *found;
      auto q = resolvePythonName(imports, call.name);
      if (!q || q->rfind("torch.optim.", 0) != 0 || call.args.empty() || call.args[0].star || !call.args[0].keyword.empty()) continue;
      auto receiver = parametersOf(text, call.args[0]);
      if (!receiver) continue;
      auto cast = script.float16Trained(*receiver);
      if (!cast) continue;
      add(*scaler, *receiver, *cast,
          scaler->name + "() unscales their float16 gradients at the first step, which it refuses");
      return;
    }
  }
  // The Hugging Face Trainer with TrainingArguments(fp16=True) over a model loaded in float16.
  bool fp16Args = std::any_of(script.trainingArgs.begin(), script.trainingArgs.end(),
                              [&](const PythonCall& call) { return keywordValue(text, call, "fp16") == "True"; });
  if (!fp16Args) return;
  for (const auto& call : script.trainers) {
    auto model = trainedModel(text, call);
    if (!model) continue;
    auto cast = script.float16Trained(*model);
    if (!cast) continue;
    add(call, *model, *cast,
        call.name + "(...) with fp16=True trains it with a GradScaler, which refuses float16 gradients at the first step");
    return;
  }
}

// FlashAttention-2 over float32 weights: a Transformers model loaded without a 16-bit dtype
// and with attn_implementation="flash_attention_2", in a script where nothing runs it in 16 bits
// (no autocast, no mixed precision of a Trainer, Accelerator or Lightning, no later cast). The
// kernel refuses float32 at the first forward pass. The fix: "sdpa", which takes any dtype.
void flashAttentionFloat32(const Script& script, const RuleSet& rules, std::vector<Finding>& out) {
  auto rule = ruleById(rules, "flash-attention-dtype");
  if (!rule) return;
  std::string_view text = script.text;
  // Anything that may run the model in 16 bits, or set its precision from outside the source.
  static const RE2& sixteenBits = *new RE2(
      R"(\b(?:autocast|Accelerator|accelerate|mixed_precision|bf16|fp16|bfloat16|float16|half|deepspeed|lightning|Fabric|)"
      R"(HfArgumentParser|TrlParser|amp)\b|\.\s*to\s*\([^)]*dtype)");
  bool literalArgs = script.trainingArgs.size() == 1 &&
                     std::none_of(script.trainingArgs[0].args.begin(), script.trainingArgs[0].args.end(),
                                  [](const CallArgument& a) { return a.star; });
  if (!script.trainers.empty() && !literalArgs) return;  // the Trainer's precision is not in the source
  for (const PythonCall* found : script.callsTo({"from_pretrained"})) {
    const PythonCall& call = *found;
    auto q = resolvePythonName(script.imports, call.name);
    if (!q || q->rfind("transformers.", 0) != 0) continue;
    std::string_view impl = keywordValue(text, call, "attn_implementation");
    if (impl != "\"flash_attention_2\"" && impl != "'flash_attention_2'") continue;
    if (std::any_of(call.args.begin(), call.args.end(), [](const CallArgument& a) { return a.star; })) continue;
    std::string_view dtype = keywordValue(text, call, "torch_dtype");
    if (dtype.empty()) dtype = keywordValue(text, call, "dtype");
    if (!dtype.empty() && dtype != "torch.float32" && dtype != "\"float32\"" && dtype != "'float32'") continue;
    // Outside the call's own lines, no sign of 16-bit precision anywhere in the script.
    const size_t first = script.lines.lineOf(call.nameBegin);
    const size_t last = call.closed ? script.lines.lineOf(call.closeParen) : script.code.size() - 1;
    bool sixteen = false;
    for (size_t line = 0; line < script.code.size() && !sixteen; ++line)
      sixteen = (line < first || line > last) && RE2::PartialMatch(script.code[line], sixteenBits);
    if (sixteen) continue;
    Finding f;
    f.rule = rule;
    f.evidence.push_back(callEvidence(text, script.lines, script.source, call, "fa_dtype"));
    f.observed.push_back(call.name + "(...) loads float32 weights (" +
                         (dtype.empty() ? std::string("no torch_dtype") : "torch_dtype=" + std::string(dtype)) +
                         ") and asks for attn_implementation=" + std::string(impl));
    f.observed.push_back("nothing in the script runs the model in float16 or bfloat16 (no autocast, no mixed precision): "
                         "FlashAttention-2 refuses float32 at the first forward pass");
    f.observed.push_back(foreseenFailure(*rule));
    f.confidence = 1.0;
    f.userFrame = frameAt(script.path, script.source, f.evidence.front().line);
    out.push_back(std::move(f));
  }
}

}  // namespace

std::string foreseenFailure(const Rule& rule) { return "this configuration fails with " + rule.id + " at run time"; }

std::vector<Finding> checkPythonSource(std::string_view text, const RuleSet& rules, uint32_t source,
                                       const std::string& path, const std::vector<NamedConfig>& configs,
                                       const MachineProbe* probe) {
  std::vector<Finding> out;
  const Script script(text, source, path);
  adamwEpsUnderflow(script, rules, out);
  gradScalerOverFloat16(script, rules, out);
  flashAttentionFloat32(script, rules, out);
  ddpUnusedLayers(script, rules, out);
  trainerVsDeepSpeed(script, configs, rules, out);
  if (probe) machineChecks(script, *probe, rules, out);
  return out;
}

}  // namespace denpex::core
