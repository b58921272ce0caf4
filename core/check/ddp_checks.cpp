// Check 4: DistributedDataParallel around a module with a layer that no code of the module ever
// uses, without find_unused_parameters=True. DDP waits for a gradient of every parameter before
// it reduces; the unused layer never gets one, so the first step's reduction never finishes and
// the second forward pass raises ("Expected to have finished reduction in the prior iteration").
//
// Precision over recall: the layer must be built in __init__ from a torch.nn layer that has
// parameters, and its name must appear nowhere else in the file (not in forward, not in a helper,
// not frozen, not reached by name through getattr); the class must not walk its own children,
// nor have subclasses that could use the layer.
#include <re2/re2.h>

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/base/text.h"
#include "core/check/python_script.h"
#include "core/check/source_checks.h"

namespace denpex::core::check_detail {
namespace {

// torch.nn layers that hold parameters by default (containers and parameter-free layers such as
// ReLU or Dropout are not: an unused one costs DDP nothing).
const std::set<std::string>& layersWithParameters() {
  static const std::set<std::string>& kLayers = *new std::set<std::string>{
      "Linear",      "Bilinear",         "Conv1d",          "Conv2d",          "Conv3d",       "ConvTranspose1d",
      "ConvTranspose2d", "ConvTranspose3d", "Embedding",     "EmbeddingBag",    "LayerNorm",    "GroupNorm",
      "BatchNorm1d", "BatchNorm2d",      "BatchNorm3d",     "RNN",             "LSTM",         "GRU",
      "MultiheadAttention", "TransformerEncoderLayer", "TransformerDecoderLayer", "PReLU", "RMSNorm"};
  return kLayers;
}

size_t indentOf(std::string_view line) {
  size_t i = 0;
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
  return i;
}

// A torch.nn.Module subclass of the script: its name, its lines [first, end), and the layers its
// __init__ builds: attribute name -> the line that builds it.
struct ModuleClass {
  std::string name;
  size_t first = 0, end = 0;
  std::vector<std::pair<std::string, size_t>> layers;
  bool dynamic = false;  // walks its own children or attributes: what it uses is not in the source
};

std::vector<ModuleClass> moduleClasses(const Script& script, const std::vector<std::string>& code) {
  static const RE2& classLine = *new RE2(R"(class\s+([A-Za-z_]\w*)\s*\(([^)]*)\)\s*:)");
  static const RE2& layerLine = *new RE2(R"(\s*self\s*\.\s*([A-Za-z_]\w*)\s*=\s*([A-Za-z_][\w.]*)\s*\()");
  static const RE2& walks = *new RE2(R"(\b(?:getattr|setattr|children|named_children|modules|named_modules|__dict__|vars)\b)");
  std::vector<ModuleClass> out;
  for (size_t line = 0; line < code.size(); ++line) {
    std::string name, bases;
    size_t indent = indentOf(code[line]);
    if (!RE2::FullMatch(std::string_view(code[line]).substr(indent), classLine, &name, &bases)) continue;
    bool module = false;
    for (size_t from = 0; from <= bases.size();) {
      size_t comma = std::min(bases.find(',', from), bases.size());
      auto q = resolvePythonName(script.imports, std::string(text::trim(std::string_view(bases).substr(from, comma - from))));
      if (q && (*q == "torch.nn.Module" || *q == "torch.nn.modules.module.Module" || *q == "lightning.LightningModule" ||
                *q == "lightning.pytorch.LightningModule" || *q == "pytorch_lightning.LightningModule"))
        module = true;
      from = comma + 1;
    }
    if (!module) continue;
    ModuleClass c;
    c.name = name;
    c.first = line;
    c.end = line + 1;
    bool inInit = false;
    size_t initIndent = 0;
    for (size_t l = line + 1; l < code.size(); ++l) {
      std::string_view body = code[l];
      if (text::trim(body).empty()) continue;
      size_t bodyIndent = indentOf(body);
      if (bodyIndent <= indent) break;
      c.end = l + 1;
      if (RE2::PartialMatch(body, walks)) c.dynamic = true;
      std::string_view stmt = body.substr(bodyIndent);
      if (stmt.rfind("def ", 0) == 0) {
        inInit = stmt.rfind("def __init__", 0) == 0;
        initIndent = bodyIndent;
        continue;
      }
      if (!inInit || bodyIndent <= initIndent) continue;
      std::string attr, callee;
      if (!RE2::PartialMatch(body, layerLine, &attr, &callee) || body.find(';') != std::string_view::npos) continue;
      auto q = resolvePythonName(script.imports, callee);
      if (q && q->rfind("torch.nn.", 0) == 0 && layersWithParameters().count(q->substr(9))) c.layers.emplace_back(attr, l);
    }
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace

namespace {

// The script's lines as code (Script::code), one by one and all together.
struct Code {
  const std::vector<std::string>& lines;
  std::string all;
};

// The class of the object a name or expression holds: `Net(...)` itself, or a variable built
// once from one (`model = Net(...)`, a device move after it is fine). Empty when not known.
std::string classOf(const Code& code, std::string_view expression, size_t skipLine) {
  static const RE2& classCall = *new RE2(R"(^([A-Za-z_]\w*)\s*\()");
  static const RE2& movedName = *new RE2(R"(([A-Za-z_]\w*)(?:\s*\.\s*(?:to|cuda)\s*\([^()]*\))*)");
  std::string className, variable;
  if (RE2::PartialMatch(expression, classCall, &className)) return className;
  if (!RE2::FullMatch(expression, movedName, &variable)) return {};
  const RE2 built("^\\s*" + RE2::QuoteMeta(variable) + R"(\s*=\s*([A-Za-z_]\w*)\s*\()");
  std::set<std::string> builders;
  for (size_t l = 0; l < code.lines.size(); ++l) {
    std::string c;
    if (l != skipLine && RE2::PartialMatch(code.lines[l], built, &c)) builders.insert(c);
  }
  return builders.size() == 1 ? *builders.begin() : std::string();  // built more than one way: not known
}

// The first layer of `className` that nothing in the file uses, with the class.
std::optional<std::pair<const ModuleClass*, std::pair<std::string, size_t>>> unusedLayer(
    std::string_view text, const std::vector<ModuleClass>& classes, const Code& code, const std::string& className) {
  const ModuleClass* cls = nullptr;
  for (const auto& c : classes)
    if (c.name == className) cls = &c;
  if (!cls || cls->dynamic) return std::nullopt;
  // A subclass could use the layer in a forward of its own.
  const RE2 subclass(R"(class\s+\w+\s*\([^)]*\b)" + RE2::QuoteMeta(className) + R"(\b)");
  if (RE2::PartialMatch(code.all, subclass)) return std::nullopt;
  for (const auto& layer : cls->layers) {
    // Used anywhere: `.attr` elsewhere in the file, or its name in a string (getattr(self, "attr")).
    const std::string& attr = layer.first;
    const RE2 use(R"(\.\s*)" + RE2::QuoteMeta(attr) + R"(\b)");
    size_t uses = 0;
    for (const auto& line : code.lines)
      if (RE2::PartialMatch(line, use)) ++uses;
    if (uses == 1 && text.find("'" + attr + "'") == std::string_view::npos && text.find("\"" + attr + "\"") == std::string_view::npos)
      return std::make_pair(cls, layer);
  }
  return std::nullopt;
}

}  // namespace

void ddpUnusedLayers(const Script& script, const RuleSet& rules, std::vector<Finding>& out) {
  auto rule = ruleById(rules, "ddp-unused-parameters");
  if (!rule) return;
  std::string_view text = script.text;
  auto resolvesTo = [&](const PythonCall& call, std::initializer_list<const char*> names) {
    auto q = resolvePythonName(script.imports, call.name);
    if (!q) return false;
    for (const char* n : names)
      if (*q == n) return true;
    return false;
  };
  std::vector<const PythonCall*> ddps, trainers;
  for (const PythonCall* call : script.callsTo({"DistributedDataParallel", "DDP"}))
    if (resolvesTo(*call, {"torch.nn.parallel.DistributedDataParallel", "torch.nn.parallel.distributed.DistributedDataParallel"}))
      ddps.push_back(call);
  // Lightning: a Trainer whose strategy is the string "ddp", and what its fit() trains.
  for (const PythonCall* call : script.callsTo({"Trainer"}))
    if (resolvesTo(*call, {"lightning.Trainer", "lightning.pytorch.Trainer", "pytorch_lightning.Trainer"}) &&
        (keywordValue(text, *call, "strategy") == "\"ddp\"" || keywordValue(text, *call, "strategy") == "'ddp'"))
      trainers.push_back(call);
  if (ddps.empty() && trainers.empty()) return;
  Code code{script.code, {}};
  for (const auto& line : code.lines) code.all += line + "\n";
  auto classes = moduleClasses(script, code.lines);
  auto report = [&](const PythonCall& at, const ModuleClass& cls, const std::pair<std::string, size_t>& layer, const std::string& how) {
    Finding f;
    f.rule = rule;
    f.evidence.push_back(callEvidence(text, script.lines, script.source, at, "ddp"));
    std::string_view layerLine = lineText(text, script.lines, layer.second);
    f.evidence.push_back(evidenceAt(text, script.lines, script.source, layer.second, indentOf(layerLine), layerLine.size(), "unused"));
    f.observed.push_back(cls.name + "." + layer.first + " (line " + std::to_string(layer.second + 1) +
                         ") has parameters that no code of " + cls.name + " uses: forward never reaches it");
    f.observed.push_back(how);
    f.observed.push_back(foreseenFailure(*rule));
    f.confidence = 1.0;
    f.userFrame = frameAt(script.path, script.source, f.evidence.front().line);
    out.push_back(std::move(f));  // one finding per wrap: its fix covers every unused layer
  };
  for (const PythonCall* wrap : ddps) {
    const PythonCall& call = *wrap;
    if (call.args.empty() || !call.args[0].keyword.empty() || call.args[0].star) continue;
    bool settled = false;  // find_unused_parameters or static_graph given, or **kwargs
    for (const auto& a : call.args)
      if (a.star || a.keyword == "find_unused_parameters" || a.keyword == "static_graph") settled = true;
    if (settled) continue;
    std::string wrapped(text::trim(text.substr(call.args[0].valueBegin, call.args[0].valueEnd - call.args[0].valueBegin)));
    auto found = unusedLayer(text, classes, code, classOf(code, wrapped, script.lines.lineOf(call.nameBegin)));
    if (found)
      report(call, *found->first, found->second,
             call.name + "(...) without find_unused_parameters=True waits for their gradients: the first step's "
                         "reduction never finishes and the second step raises");
  }
  if (trainers.size() != 1) return;  // which Trainer fits which module is not in the source
  for (const PythonCall* fitCall : script.callsTo({"fit"})) {
    const PythonCall& fit = *fitCall;
    if (fit.args.empty() || fit.args[0].star) continue;
    std::string_view model = fit.args[0].keyword.empty() || fit.args[0].keyword == "model"
                                 ? text::trim(text.substr(fit.args[0].valueBegin, fit.args[0].valueEnd - fit.args[0].valueBegin))
                                 : std::string_view();
    auto found = unusedLayer(text, classes, code, classOf(code, model, SIZE_MAX));
    if (!found) continue;
    report(*trainers.front(), *found->first, found->second,
           trainers.front()->name + "(strategy=\"ddp\") wraps it in DDP, which waits for their gradients: the second "
                                   "step raises (Lightning asks for strategy=\"ddp_find_unused_parameters_true\")");
    return;
  }
}

}  // namespace denpex::core::check_detail
