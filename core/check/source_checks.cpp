// Checks on training scripts before the run (see source_checks.h).
#include "core/check/source_checks.h"

#include <re2/re2.h>

#include <algorithm>
#include <cstdlib>
#include <optional>

#include "core/base/text.h"
#include "core/fix/python_calls.h"

namespace denpex::core {
namespace {

// Below half of float16's smallest subnormal (2^-24, about 5.96e-8) a value rounds to 0.
constexpr double kZeroInFloat16 = 2.98e-8;
constexpr double kTorchAdamDefaultEps = 1e-8;

struct Lines {
  std::vector<size_t> starts;
  explicit Lines(std::string_view t) {
    starts.push_back(0);
    for (size_t i = 0; i < t.size(); ++i)
      if (t[i] == '\n') starts.push_back(i + 1);
  }
  size_t lineOf(size_t offset) const {
    return static_cast<size_t>(std::upper_bound(starts.begin(), starts.end(), offset) - starts.begin()) - 1;
  }
};

std::string_view lineText(std::string_view text, const Lines& lines, size_t line) {
  size_t b = lines.starts[line];
  size_t e = text.find('\n', b);
  return text.substr(b, (e == std::string_view::npos ? text.size() : e) - b);
}

// The line as code: its comment (a '#' outside quotes) dropped and the insides of its strings
// blanked, so that `print("model.half()")` casts nothing. A string that only names a dtype
// ('float16', 'fp16', 'half') is kept: `torch_dtype="float16"` says what it says.
std::string codeOf(std::string_view line) {
  std::string out(line);
  char quote = 0;
  size_t open = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    char c = out[i];
    if (quote) {
      if (c == '\\') {
        ++i;
      } else if (c == quote) {
        std::string_view inside = std::string_view(out).substr(open + 1, i - open - 1);
        if (inside != "float16" && inside != "fp16" && inside != "half")
          for (size_t k = open + 1; k < i; ++k) out[k] = ' ';
        quote = 0;
      }
    } else if (c == '\'' || c == '"') {
      quote = c;
      open = i;
    } else if (c == '#') {
      out.resize(i);
      break;
    }
  }
  if (quote)  // a string that goes on past the line (a triple-quoted one): blank the rest
    for (size_t k = open + 1; k < out.size(); ++k) out[k] = ' ';
  return out;
}

std::optional<double> floatLiteral(std::string_view s) {
  s = text::trim(s);
  if (s.empty() || s.size() > 40) return std::nullopt;
  std::string t(s);
  t.erase(std::remove(t.begin(), t.end(), '_'), t.end());
  char* end = nullptr;
  double v = std::strtod(t.c_str(), &end);
  if (end != t.c_str() + t.size()) return std::nullopt;
  return v;
}

// Where the source casts `receiver`'s parameters to float16: its line and the cast's span.
struct Cast {
  size_t line = 0;
  size_t begin = 0, end = 0;  // byte columns
};

std::optional<Cast> float16CastOf(std::string_view text, const Lines& lines, const std::string& receiver) {
  const std::string r = RE2::QuoteMeta(receiver);
  const std::string fp16 = R"(torch\s*\.\s*(?:float16|half)\b)";
  // receiver.half(), receiver.to(... torch.float16 ...)
  const RE2 onIt("(?:^|[^\\w.])(" + r + R"(\s*\.\s*(?:half\s*\(\s*\)|to\s*\([^)]*)" + fp16 + "))");
  // receiver = ....half() / .to(torch.float16) / from_pretrained(..., torch_dtype=torch.float16)
  const RE2 assigned("^\\s*" + r + R"(\s*=[^=].*?(\.\s*half\s*\(\s*\)\s*(?:\.|$)|\.\s*to\s*\([^)]*)" + fp16 +
                     R"(|\btorch_dtype\s*=\s*(?:)" + fp16 + R"(|['"](?:float16|fp16|half)['"])))");
  // A quantized load (8-bit, 4-bit) with float16 for the rest: trained through adapters, whose
  // weights peft keeps in float32, never as float16 parameters.
  static const RE2 quantized(R"(\b(?:load_in_8bit|load_in_4bit|quantization_config)\b)");
  for (size_t line = 0; line < lines.starts.size(); ++line) {
    std::string code = codeOf(lineText(text, lines, line));
    re2::StringPiece m;
    if (RE2::PartialMatch(code, onIt, &m) || (RE2::PartialMatch(code, assigned, &m) && !RE2::PartialMatch(code, quantized))) {
      Cast c;
      c.line = line;
      c.begin = static_cast<size_t>(m.data() - code.data());
      c.end = c.begin + m.size();
      return c;
    }
  }
  // receiver = X.from_pretrained(..., torch_dtype=torch.float16) over several lines.
  const RE2 target("^\\s*" + r + "\\s*=\\s*$");
  const RE2 dtype("^(?:" + fp16 + R"(|['"](?:float16|fp16|half)['"])$)");
  for (const auto& call : findPythonCalls(text, {"from_pretrained"})) {
    size_t line = lines.lineOf(call.nameBegin);
    std::string_view before = lineText(text, lines, line).substr(0, call.nameBegin - lines.starts[line]);
    size_t dot = before.find_last_of("=");
    if (dot == std::string_view::npos || !RE2::FullMatch(before.substr(0, dot + 1), target)) continue;
    if (std::any_of(call.args.begin(), call.args.end(), [](const CallArgument& a) {
          return a.keyword == "load_in_8bit" || a.keyword == "load_in_4bit" || a.keyword == "quantization_config";
        }))
      continue;
    for (const auto& a : call.args) {
      if (a.keyword != "torch_dtype") continue;
      std::string_view v = text::trim(text.substr(a.valueBegin, a.valueEnd - a.valueBegin));
      if (!RE2::FullMatch(v, dtype)) continue;
      size_t vl = lines.lineOf(a.begin);
      return Cast{vl, a.begin - lines.starts[vl], a.end - lines.starts[vl]};
    }
  }
  return std::nullopt;
}

// A script read once for every check: its text, what its names are bound to, its line starts,
// its GradScalers (calls that resolve to torch's), and the models it hands to peft.
struct Script {
  std::string_view text;
  uint32_t source = 0;
  std::string path;
  PythonImports imports;
  Lines lines;
  std::vector<PythonCall> scalers;
  // Models given to peft (get_peft_model, prepare_model_for_kbit_training...): what trains is
  // then their adapters, which peft keeps in float32 whatever the base model's dtype.
  std::vector<std::string> adapted;
  // Hugging Face's (or TRL's) TrainingArguments and Trainer calls.
  std::vector<PythonCall> trainingArgs, trainers;

  Script(std::string_view t, uint32_t s, std::string p)
      : text(t), source(s), path(std::move(p)), imports(findPythonImports(t)), lines(t) {
    for (auto& call : findPythonCalls(text, {"GradScaler"})) {
      auto q = resolvePythonName(imports, call.name);
      if (q && (*q == "torch.cuda.amp.GradScaler" || *q == "torch.amp.GradScaler" || *q == "torch.GradScaler" ||
                *q == "torch.cpu.amp.GradScaler"))
        scalers.push_back(std::move(call));
    }
    for (const auto& call : findPythonCalls(text, {"get_peft_model", "prepare_model_for_kbit_training",
                                                   "prepare_model_for_int8_training", "from_pretrained"})) {
      auto q = resolvePythonName(imports, call.name);
      if (!q || q->rfind("peft.", 0) != 0 || call.args.empty() || !call.args[0].keyword.empty()) continue;
      adapted.emplace_back(text::trim(text.substr(call.args[0].valueBegin, call.args[0].valueEnd - call.args[0].valueBegin)));
    }
    auto fromHuggingFace = [&](const PythonCall& call) {
      auto q = resolvePythonName(imports, call.name);
      return q && (q->rfind("transformers.", 0) == 0 || q->rfind("trl.", 0) == 0);
    };
    for (auto& call : findPythonCalls(text, {"TrainingArguments", "Seq2SeqTrainingArguments", "SFTConfig"}))
      if (fromHuggingFace(call)) trainingArgs.push_back(std::move(call));
    for (auto& call : findPythonCalls(text, {"Trainer", "Seq2SeqTrainer", "SFTTrainer"}))
      if (fromHuggingFace(call)) trainers.push_back(std::move(call));
  }
  bool trainsAdapters(const std::string& model) const {
    return std::find(adapted.begin(), adapted.end(), model) != adapted.end();
  }
  // Where `model`'s parameters are cast to float16, when they are the ones that train.
  std::optional<Cast> float16Trained(const std::string& model) const {
    if (trainsAdapters(model)) return std::nullopt;
    return float16CastOf(text, lines, model);
  }
};

std::shared_ptr<const Rule> ruleById(const RuleSet& rules, std::string_view id) {
  for (const auto& r : rules.rules())
    if (r->id == id) return r;
  return nullptr;
}

Evidence evidenceAt(std::string_view text, const Lines& lines, uint32_t source, size_t line, size_t begin, size_t end,
                    const char* signal) {
  Evidence e;
  e.source = source;
  e.line = line;
  std::string_view l = lineText(text, lines, line);
  e.begin = static_cast<uint32_t>(std::min(begin, l.size()));
  e.end = static_cast<uint32_t>(std::min(std::max(end, begin), l.size()));
  e.signal = signal;
  e.text = std::string(l.substr(0, 400));
  return e;
}

// The value of a call's keyword argument, trimmed; empty when it has none.
std::string_view keywordValue(std::string_view text, const PythonCall& call, std::string_view keyword) {
  for (const auto& a : call.args)
    if (a.keyword == keyword) return text::trim(text.substr(a.valueBegin, a.valueEnd - a.valueBegin));
  return {};
}

// The dotted name a call's argument holds, when it is `X.parameters()` (or named_parameters()).
std::optional<std::string> parametersOf(std::string_view text, const CallArgument& a) {
  static const RE2 paramsOf(R"(([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)\s*\.\s*(?:parameters|named_parameters)\s*\(\s*\))");
  std::string receiver;
  std::string value(text::trim(text.substr(a.valueBegin, a.valueEnd - a.valueBegin)));
  if (!RE2::FullMatch(value, paramsOf, &receiver)) return std::nullopt;
  return receiver;
}

// The model a Trainer call trains: its `model=` argument, when that is a plain name.
std::optional<std::string> trainedModel(std::string_view text, const PythonCall& trainer) {
  static const RE2 name(R"([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)");
  std::string model(keywordValue(text, trainer, "model"));
  if (model.empty() || !RE2::FullMatch(model, name)) return std::nullopt;
  return model;
}

// The evidence of a call: its line, from its name to its ')' (or the line's end when the call
// goes on over more lines).
Evidence callEvidence(std::string_view text, const Lines& lines, uint32_t source, const PythonCall& call, const char* signal) {
  size_t line = lines.lineOf(call.nameBegin);
  size_t end = call.closed && lines.lineOf(call.closeParen) == line ? call.closeParen + 1 - lines.starts[line]
                                                                    : lineText(text, lines, line).size();
  return evidenceAt(text, lines, source, line, call.nameBegin - lines.starts[line], end, signal);
}

// The finding's frame: the line of the script to fix, so the rule's edits are planned there.
std::optional<Frame> frameAt(const std::string& path, uint32_t source, uint64_t line) {
  if (path.empty()) return std::nullopt;
  Frame frame;
  frame.file = path;
  frame.line = static_cast<int>(line + 1);
  frame.source = source;
  frame.logLine = line;
  frame.user = true;
  return frame;
}

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
  for (const auto& call : findPythonCalls(text, {"AdamW", "Adam"})) {
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
    for (const auto& call : findPythonCalls(text, {"AdamW", "Adam", "SGD", "RMSprop", "Adagrad", "Adamax", "NAdam", "RAdam"})) {
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
  static const RE2 sixteenBits(
      R"(\b(?:autocast|Accelerator|accelerate|mixed_precision|bf16|fp16|bfloat16|float16|half|deepspeed|lightning|Fabric|)"
      R"(HfArgumentParser|TrlParser|amp)\b|\.\s*to\s*\([^)]*dtype)");
  std::string code;
  for (size_t line = 0; line < script.lines.starts.size(); ++line) code += codeOf(lineText(text, script.lines, line)) + "\n";
  bool literalArgs = script.trainingArgs.size() == 1 &&
                     std::none_of(script.trainingArgs[0].args.begin(), script.trainingArgs[0].args.end(),
                                  [](const CallArgument& a) { return a.star; });
  if (!script.trainers.empty() && !literalArgs) return;  // the Trainer's precision is not in the source
  for (const auto& call : findPythonCalls(text, {"from_pretrained"})) {
    auto q = resolvePythonName(script.imports, call.name);
    if (!q || q->rfind("transformers.", 0) != 0) continue;
    std::string_view impl = keywordValue(text, call, "attn_implementation");
    if (impl != "\"flash_attention_2\"" && impl != "'flash_attention_2'") continue;
    if (std::any_of(call.args.begin(), call.args.end(), [](const CallArgument& a) { return a.star; })) continue;
    std::string_view dtype = keywordValue(text, call, "torch_dtype");
    if (dtype.empty()) dtype = keywordValue(text, call, "dtype");
    if (!dtype.empty() && dtype != "torch.float32" && dtype != "\"float32\"" && dtype != "'float32'") continue;
    // Outside the call itself, no sign of 16-bit precision anywhere in the script.
    std::string rest = code;
    size_t from = call.nameBegin, to = call.closed ? call.closeParen + 1 : text.size();
    for (size_t i = from; i < to && i < rest.size(); ++i)
      if (rest[i] != '\n') rest[i] = ' ';
    if (RE2::PartialMatch(rest, sixteenBits)) continue;
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
                                       const std::string& path) {
  std::vector<Finding> out;
  const Script script(text, source, path);
  adamwEpsUnderflow(script, rules, out);
  gradScalerOverFloat16(script, rules, out);
  flashAttentionFloat32(script, rules, out);
  return out;
}

}  // namespace denpex::core
