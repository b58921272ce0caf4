// What the checks on a Python training script share (see python_script.h).
#include "core/check/python_script.h"

#include <re2/re2.h>

#include <cstdlib>

#include "core/base/text.h"

namespace denpex::core::check_detail {

std::string_view lineText(std::string_view text, const Lines& lines, size_t line) {
  size_t b = lines.starts[line];
  size_t e = text.find('\n', b);
  return text.substr(b, (e == std::string_view::npos ? text.size() : e) - b);
}

// The line as code: its comment (a '#' outside quotes) dropped and the insides of its strings
// blanked, so that `print("model.half()")` casts nothing. A string that only names a dtype
// ('float16', 'fp16', 'half', 'bfloat16', 'bf16', Lightning's 'bf16-mixed' and 'bf16-true')
// is kept: `torch_dtype="float16"` says what it says.
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
        if (inside != "float16" && inside != "fp16" && inside != "half" && inside != "bfloat16" && inside != "bf16" &&
            inside != "bf16-mixed" && inside != "bf16-true")
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

std::optional<Cast> Script::float16CastOf(const std::string& receiver) const {
  const std::string r = RE2::QuoteMeta(receiver);
  const std::string fp16 = R"(torch\s*\.\s*(?:float16|half)\b)";
  // receiver.half(), receiver.to(... torch.float16 ...)
  const RE2 onIt("(?:^|[^\\w.])(" + r + R"(\s*\.\s*(?:half\s*\(\s*\)|to\s*\([^)]*)" + fp16 + "))");
  // receiver = ....half() / .to(torch.float16) / from_pretrained(..., torch_dtype=torch.float16)
  const RE2 assigned("^\\s*" + r + R"(\s*=[^=].*?(\.\s*half\s*\(\s*\)\s*(?:\.|$)|\.\s*to\s*\([^)]*)" + fp16 +
                     R"(|\btorch_dtype\s*=\s*(?:)" + fp16 + R"(|['"](?:float16|fp16|half)['"])))");
  // A quantized load (8-bit, 4-bit) with float16 for the rest: trained through adapters, whose
  // weights peft keeps in float32, never as float16 parameters.
  static const RE2& quantized = *new RE2(R"(\b(?:load_in_8bit|load_in_4bit|quantization_config)\b)");
  for (size_t line = 0; line < code.size(); ++line) {
    const std::string& l = code[line];
    re2::StringPiece m;
    if (RE2::PartialMatch(l, onIt, &m) || (RE2::PartialMatch(l, assigned, &m) && !RE2::PartialMatch(l, quantized))) {
      Cast c;
      c.line = line;
      c.begin = static_cast<size_t>(m.data() - l.data());
      c.end = c.begin + m.size();
      return c;
    }
  }
  // receiver = X.from_pretrained(..., torch_dtype=torch.float16) over several lines.
  const RE2 target("^\\s*" + r + "\\s*=\\s*$");
  const RE2 dtype("^(?:" + fp16 + R"(|['"](?:float16|fp16|half)['"])$)");
  for (const PythonCall* found : callsTo({"from_pretrained"})) {
    const PythonCall& call = *found;
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
bool underCondition(const Script& script, size_t line) {
  static const RE2& ternary = *new RE2(R"(\bif\b.*\belse\b)");
  static const RE2& header = *new RE2(R"((?:if|elif|else|except|try)\b.*)");
  auto indentOf = [](std::string_view l) {
    size_t i = 0;
    while (i < l.size() && (l[i] == ' ' || l[i] == '\t')) ++i;
    return i;
  };
  const std::string& code = script.code[line];
  if (RE2::PartialMatch(code, ternary)) return true;
  size_t indent = indentOf(code);
  for (size_t l = line; l-- > 0 && indent > 0;) {
    std::string_view outer = script.code[l];
    if (text::trim(outer).empty()) continue;
    size_t outerIndent = indentOf(outer);
    if (outerIndent >= indent) continue;
    indent = outerIndent;
    if (RE2::FullMatch(outer.substr(outerIndent), header)) return true;
  }
  return false;
}

std::string_view keywordValue(std::string_view text, const PythonCall& call, std::string_view keyword) {
  for (const auto& a : call.args)
    if (a.keyword == keyword) return text::trim(text.substr(a.valueBegin, a.valueEnd - a.valueBegin));
  return {};
}

// The dotted name a call's argument holds, when it is `X.parameters()` (or named_parameters()).
std::optional<std::string> parametersOf(std::string_view text, const CallArgument& a) {
  static const RE2& paramsOf = *new RE2(R"(([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)\s*\.\s*(?:parameters|named_parameters)\s*\(\s*\))");
  std::string receiver;
  std::string value(text::trim(text.substr(a.valueBegin, a.valueEnd - a.valueBegin)));
  if (!RE2::FullMatch(value, paramsOf, &receiver)) return std::nullopt;
  return receiver;
}

// The model a Trainer call trains: its `model=` argument, when that is a plain name.
std::optional<std::string> trainedModel(std::string_view text, const PythonCall& trainer) {
  static const RE2& name = *new RE2(R"([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)");
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

namespace {

// Every name a check looks for a call to: the script's calls are found in one pass for all.
const std::vector<std::string>& checkedCallees() {
  static const std::vector<std::string>& kNames = *new std::vector<std::string>{
      "AdamW", "Adam", "SGD", "RMSprop", "Adagrad", "Adamax", "NAdam", "RAdam",  // torch.optim
      "GradScaler", "get_peft_model", "prepare_model_for_kbit_training", "prepare_model_for_int8_training",
      "from_pretrained", "TrainingArguments", "Seq2SeqTrainingArguments", "SFTConfig", "Trainer", "Seq2SeqTrainer",
      "SFTTrainer", "DistributedDataParallel", "DDP", "DataLoader", "fit"};
  return kNames;
}

}  // namespace

Script::Script(std::string_view t, uint32_t s, std::string p)
    : text(t), source(s), path(std::move(p)), imports(findPythonImports(t)), lines(t), calls(findPythonCalls(t, checkedCallees())) {
  code.reserve(lines.starts.size());
  for (size_t line = 0; line < lines.starts.size(); ++line) code.push_back(codeOf(lineText(text, lines, line)));
  for (const PythonCall* call : callsTo({"GradScaler"})) {
    auto q = resolvePythonName(imports, call->name);
    if (q && (*q == "torch.cuda.amp.GradScaler" || *q == "torch.amp.GradScaler" || *q == "torch.GradScaler" ||
              *q == "torch.cpu.amp.GradScaler"))
      scalers.push_back(*call);
  }
  for (const PythonCall* call : callsTo({"get_peft_model", "prepare_model_for_kbit_training", "prepare_model_for_int8_training",
                                         "from_pretrained"})) {
    auto q = resolvePythonName(imports, call->name);
    if (!q || q->rfind("peft.", 0) != 0 || call->args.empty() || !call->args[0].keyword.empty()) continue;
    adapted.emplace_back(text::trim(text.substr(call->args[0].valueBegin, call->args[0].valueEnd - call->args[0].valueBegin)));
  }
  auto fromHuggingFace = [&](const PythonCall& call) {
    auto q = resolvePythonName(imports, call.name);
    return q && (q->rfind("transformers.", 0) == 0 || q->rfind("trl.", 0) == 0);
  };
  for (const PythonCall* call : callsTo({"TrainingArguments", "Seq2SeqTrainingArguments", "SFTConfig"}))
    if (fromHuggingFace(*call)) trainingArgs.push_back(*call);
  for (const PythonCall* call : callsTo({"Trainer", "Seq2SeqTrainer", "SFTTrainer"}))
    if (fromHuggingFace(*call)) trainers.push_back(*call);
}

std::vector<const PythonCall*> Script::callsTo(const std::vector<std::string>& names) const {
  std::vector<const PythonCall*> out;
  for (const auto& call : calls)
    if (calleeMatches(call.name, names)) out.push_back(&call);
  return out;
}

std::optional<Cast> Script::firstLineMatching(const RE2& re, bool unconditional) const {
  for (size_t line = 0; line < code.size(); ++line) {
    re2::StringPiece m;
    if (RE2::PartialMatch(code[line], re, &m) && !(unconditional && underCondition(*this, line)))
      return Cast{line, static_cast<size_t>(m.data() - code[line].data()),
                  static_cast<size_t>(m.data() - code[line].data()) + m.size()};
  }
  return std::nullopt;
}

}  // namespace denpex::core::check_detail
