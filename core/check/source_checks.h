// Checks on training scripts before the run: the failures a rule diagnoses from a log after the
// fact, recognised in the source that will cause them. Each check names the runtime rule of the
// failure it foresees, so the explanation, the fix and the docs are that rule's.
//
// Precision over recall: a check speaks only when the source alone shows the failure (the same
// object cast to float16 and handed to the optimizer), never on a look-alike. Pure; reads only
// the text it is given; safe from any thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/analyze/finding.h"
#include "core/check/machine.h"
#include "core/rules/rule.h"

namespace denpex::core {

// A DeepSpeed config a script names (TrainingArguments(deepspeed="ds_config.json")), read by
// the caller: `name` as the script writes it, its text, its source index and path.
struct NamedConfig {
  std::string name;
  std::string_view text;
  uint32_t source = 0;
  std::string path;
};

// Findings for one Python file, as log findings are: evidence lines in that file (source index
// `source`), `observed` saying what the source shows and, last, that it fails at run time (with
// `path`) the file and line to fix as the finding's user frame, so the rule's edits are planned
// there. Findings whose rule is not in `rules` are not made. `configs`: the DeepSpeed configs the
// script names (deepSpeedConfigsNamed), for the checks that compare them with the script.
// `probe`: the machine the script will run on (machine.h), for the checks that need one.
std::vector<Finding> checkPythonSource(std::string_view text, const RuleSet& rules, uint32_t source = 0,
                                       const std::string& path = {}, const std::vector<NamedConfig>& configs = {},
                                       const MachineProbe* probe = nullptr);

// The DeepSpeed config files a script's TrainingArguments name with a string literal, as written.
std::vector<std::string> deepSpeedConfigsNamed(std::string_view script);

// The DeepSpeed config file an Accelerate config (YAML, as `accelerate config` writes it) names
// under deepspeed_config, as written.
std::vector<std::string> deepSpeedConfigsNamedByAccelerate(std::string_view yaml);

// Findings for an Accelerate config: its mixed_precision against the DeepSpeed config it names
// (`configs`, read by the caller), and bf16 against a probe of the machine.
std::vector<Finding> checkAccelerateConfig(std::string_view text, const RuleSet& rules, uint32_t source,
                                           const std::string& path, const std::vector<NamedConfig>& configs = {},
                                           const MachineProbe* probe = nullptr);

// Whether a YAML file is a training recipe: the model and TrainingArguments of an
// HfArgumentParser script (TRL, alignment-handbook), top-level `model_name_or_path:` with
// training arguments beside it.
bool looksLikeTrainerRecipe(std::string_view yaml);

// Findings for a training recipe (recipe_checks.cpp): the script checks where the recipe alone
// shows the failure (FlashAttention-2 on float32, a float16 model under the Trainer), and bf16
// against a probe of the machine. None for YAML that is not a recipe.
std::vector<Finding> checkTrainerRecipe(std::string_view text, const RuleSet& rules, uint32_t source = 0,
                                        const std::string& path = {}, const MachineProbe* probe = nullptr);

// Findings for a DeepSpeed JSON config on its own (fp16 and bf16 both enabled, batch sizes no
// world size satisfies, keys DeepSpeed refuses: against the probe's DeepSpeed where `probe`
// names one); none for JSON that is not a DeepSpeed config.
std::vector<Finding> checkDeepSpeedConfig(std::string_view text, const RuleSet& rules, uint32_t source = 0,
                                          const std::string& path = {}, const MachineProbe* probe = nullptr);

// The last line of every check finding's `observed`: "this configuration fails with <rule id>
// at run time".
std::string foreseenFailure(const Rule& rule);

}  // namespace denpex::core
