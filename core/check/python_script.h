// What the checks on a Python training script share (core/check/source_checks.h): the script
// read once (its lines, imports and the calls the checks look at), the model casts and call
// arguments they read, and how their findings point into the script. Internal to core/check.
#pragma once

#include <re2/re2.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/analyze/finding.h"
#include "core/check/machine.h"
#include "core/check/source_checks.h"
#include "core/fix/json_spans.h"
#include "core/fix/python_calls.h"
#include "core/rules/rule.h"

namespace denpex::core::check_detail {

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

std::string_view lineText(std::string_view text, const Lines& lines, size_t line);
// The line as code: its comment dropped and the insides of its strings blanked (a string that
// only names a dtype is kept).
std::string codeOf(std::string_view line);
std::optional<double> floatLiteral(std::string_view s);

// Where the source casts a model's parameters to float16, or asks for something on a line: its
// line and the span.
struct Cast {
  size_t line = 0;
  size_t begin = 0, end = 0;  // byte columns
};

// A script read once for every check: its text, what its names are bound to, its line starts,
// each line as code (codeOf), the calls the checks look at (one pass over the text), its
// GradScalers (calls that resolve to torch's), and the models it hands to peft.
struct Script {
  std::string_view text;
  uint32_t source = 0;
  std::string path;
  PythonImports imports;
  Lines lines;
  std::vector<std::string> code;  // per line
  std::vector<PythonCall> calls;  // every call to a name some check looks at, in source order
  std::vector<PythonCall> scalers;
  // Models given to peft (get_peft_model, prepare_model_for_kbit_training...): what trains is
  // then their adapters, which peft keeps in float32 whatever the base model's dtype.
  std::vector<std::string> adapted;
  // Hugging Face's (or TRL's) TrainingArguments and Trainer calls.
  std::vector<PythonCall> trainingArgs, trainers;

  Script(std::string_view text, uint32_t source, std::string path);
  // The calls whose name is one of `names` or ends with "." + one (calleeMatches). `names` must be
  // among the names the script was read for (python_script.cpp).
  std::vector<const PythonCall*> callsTo(const std::vector<std::string>& names) const;
  // The first line of code where `re` matches, with the match's span; with `unconditional`, the
  // first such line that runs whatever happens (underCondition false).
  std::optional<Cast> firstLineMatching(const RE2& re, bool unconditional = false) const;
  // Where the source casts `receiver`'s parameters to float16.
  std::optional<Cast> float16CastOf(const std::string& receiver) const;
  bool trainsAdapters(const std::string& model) const {
    return std::find(adapted.begin(), adapted.end(), model) != adapted.end();
  }
  // Where `model`'s parameters are cast to float16, when they are the ones that train.
  std::optional<Cast> float16Trained(const std::string& model) const {
    if (trainsAdapters(model)) return std::nullopt;
    return float16CastOf(model);
  }
};

std::shared_ptr<const Rule> ruleById(const RuleSet& rules, std::string_view id);
Evidence evidenceAt(std::string_view text, const Lines& lines, uint32_t source, size_t line, size_t begin, size_t end,
                    const char* signal);
// The value of a call's keyword argument, trimmed; empty when it has none.
std::string_view keywordValue(std::string_view text, const PythonCall& call, std::string_view keyword);
// The dotted name a call's argument holds, when it is `X.parameters()` (or named_parameters()).
std::optional<std::string> parametersOf(std::string_view text, const CallArgument& a);
// The model a Trainer call trains: its `model=` argument, when that is a plain name.
std::optional<std::string> trainedModel(std::string_view text, const PythonCall& trainer);
// Whether a line runs only under a condition: inside an if/elif/else/except block, or an
// expression with `... if ... else ...` on the line itself.
bool underCondition(const Script& script, size_t line);
// The evidence of a call: its line, from its name to its ')' (or the line's end).
Evidence callEvidence(std::string_view text, const Lines& lines, uint32_t source, const PythonCall& call, const char* signal);
// The finding's frame: the line of the script to fix, so the rule's edits are planned there.
std::optional<Frame> frameAt(const std::string& path, uint32_t source, uint64_t line);

// Check 4 (ddp_checks.cpp): DDP around a module with a layer nothing uses.
void ddpUnusedLayers(const Script& script, const RuleSet& rules, std::vector<Finding>& out);
// Check 6 (machine_checks.cpp): the script against a probe of the machine it will run on.
void machineChecks(const Script& script, const MachineProbe& probe, const RuleSet& rules, std::vector<Finding>& out);
// Which machine a probe describes, as findings say it: "this machine (probed now)" or "the
// machine of the probe file F".
std::string describeMachine(const MachineProbe& probe);
// Whether the probe lists GPUs and every one predates Ampere (no native bfloat16), and the
// finding's line that says so.
bool gpusLackBf16(const MachineProbe& probe);
std::string noBf16(const MachineProbe& probe);
// Evidence on the line of a node of a JSON config, and a finding that starts with it, its frame
// on that line of the config.
Evidence nodeEvidence(std::string_view text, const Lines& lines, uint32_t source, const JsonNode& node, const char* signal);
Finding configFinding(const std::shared_ptr<const Rule>& rule, const std::string& path, uint32_t source, Evidence first);
// Check 3, keys (deepspeed_keys.cpp): keys of a DeepSpeed config's strictly read sections that no
// DeepSpeed release defines there, or that the probe's DeepSpeed does not define yet.
void unknownDeepSpeedKeys(const JsonNode& root, std::string_view text, const Lines& lines, uint32_t source,
                          const std::string& path, const RuleSet& rules, const MachineProbe* probe, std::vector<Finding>& out);
// Check 3, against the script (deepspeed_checks.cpp): the config its TrainingArguments name.
void trainerVsDeepSpeed(const Script& script, const std::vector<NamedConfig>& configs, const RuleSet& rules,
                        std::vector<Finding>& out);

}  // namespace denpex::core::check_detail
