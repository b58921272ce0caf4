// Check 3, keys: DeepSpeed reads some sections of its config with models that refuse a key they
// do not define (DeepSpeedConfigModel: pydantic, extra fields forbidden), and the whole config is
// refused at start-up, on every rank. Checked here:
//   - zero_optimization, with offload_param and offload_optimizer (strict since 0.7.0): a key
//     no release defines there, under its name or its alias;
//   - bf16 (strict since 0.17.1): fp16's loss-scaling keys, which templates shared between the
//     two precisions carry and bf16 never had.
//
// Precision over recall: without a probe of the machine, a key counts as known when any release
// from 0.7.0 to 0.19.5 defines it; with one that names the installed DeepSpeed, a key that
// release does not define yet (ZeRO++'s keys before 0.10.0) is flagged too, and a section that
// release still reads leniently is not checked. A key set to "auto" is left alone (DeepSpeed drops those before validating),
// and other sections, read key by key and silently ignoring what they do not know, are not
// checked.
#include <algorithm>
#include <string>
#include <string_view>

#include "core/base/text.h"
#include "core/check/python_script.h"

namespace denpex::core::check_detail {

namespace {

// The keys each strict section accepts, the union over DeepSpeed 0.7.0 to 0.19.5 (the models'
// fields and aliases, deprecated names included), each with the release that added it ("" for
// 0.7.0, where the section became strict).
struct Key {
  std::string_view name, since;
};
constexpr Key kZeroKeys[] = {
    {"stage", ""}, {"contiguous_gradients", ""}, {"reduce_scatter", ""}, {"reduce_bucket_size", ""},
    {"allgather_partitions", ""}, {"allgather_bucket_size", ""}, {"overlap_comm", ""}, {"load_from_fp32_weights", ""},
    {"elastic_checkpoint", ""}, {"offload_param", ""}, {"offload_optimizer", ""}, {"sub_group_size", ""},
    {"ignore_unused_parameters", ""}, {"legacy_stage1", ""}, {"round_robin_gradients", ""}, {"prefetch_bucket_size", ""},
    {"stage3_prefetch_bucket_size", ""}, {"param_persistence_threshold", ""}, {"stage3_param_persistence_threshold", ""},
    {"model_persistence_threshold", ""}, {"stage3_model_persistence_threshold", ""}, {"max_live_parameters", ""},
    {"stage3_max_live_parameters", ""}, {"max_reuse_distance", ""}, {"stage3_max_reuse_distance", ""},
    {"gather_16bit_weights_on_model_save", ""}, {"stage3_gather_16bit_weights_on_model_save", ""}, {"cpu_offload", ""},
    {"cpu_offload_param", ""}, {"cpu_offload_use_pin_memory", ""}, {"stage3_gather_fp16_weights_on_model_save", ""},
    {"memory_efficient_linear", "0.9.0"}, {"mics_shard_size", "0.9.2"}, {"mics_hierarchical_params_gather", "0.9.2"},
    {"zero_hpz_partition_size", "0.10.0"}, {"zero_quantized_weights", "0.10.0"}, {"zero_quantized_gradients", "0.10.0"},
    {"pipeline_loading_checkpoint", "0.10.1"}, {"override_module_apply", "0.10.1"},
    {"zero_quantized_nontrainable_weights", "0.10.2"}, {"use_multi_rank_bucket_allreduce", "0.12.4"},
    {"use_all_reduce_for_fetch_params", "0.14.3"}, {"stage3_use_all_reduce_for_fetch_params", "0.14.3"},
    {"module_granularity_threshold", "0.16.0"}, {"stage3_module_granularity_threshold", "0.16.0"},
    {"zeropp_loco_param", "0.16.2"}, {"log_trace_cache_warnings", "0.16.4"}, {"zenflow", "0.17.5"},
    {"enable_sanity_checks", "0.17.6"}, {"leaf_module", "0.18.0"}, {"allgather_sequential", "0.18.5"},
    {"stage3_allgather_sequential", "0.18.5"}, {"save_muon_momentum_buffer_in_memory", "0.18.9"},
};
constexpr Key kOffloadParamKeys[] = {{"device", ""},      {"nvme_path", ""},  {"buffer_count", ""},
                                     {"buffer_size", ""}, {"max_in_cpu", ""}, {"pin_memory", ""}};
// "pipeline" is derived from the two pipeline_* keys; accepted here, as it is not certain that no
// release took it.
constexpr Key kOffloadOptimizerKeys[] = {
    {"device", ""},         {"nvme_path", ""},       {"buffer_count", ""}, {"pin_memory", ""},
    {"pipeline_read", ""},  {"pipeline_write", ""},  {"fast_init", ""},    {"pipeline", ""},
    {"ratio", "0.12.3"},    {"super_offload", "0.18.0"}, {"cpuadam_cores_perc", "0.18.0"},
};
constexpr std::string_view kStrictZeroSince = "0.7.0";
constexpr std::string_view kStrictBf16Since = "0.17.1";
// fp16's dynamic loss scaling: meaningless for bfloat16, refused in bf16 from 0.17.1.
constexpr std::string_view kLossScalingKeys[] = {"loss_scale", "loss_scale_window", "initial_scale_power",
                                                 "hysteresis", "consecutive_hysteresis", "min_loss_scale"};
// Top-level sections, for a key written inside zero_optimization that belongs at the top.
constexpr std::string_view kTopLevelSections[] = {"aio", "fp16", "bf16", "optimizer", "scheduler", "activation_checkpointing",
                                                  "flops_profiler", "tensorboard", "wandb", "comms_logger",
                                                  "gradient_clipping", "train_batch_size", "train_micro_batch_size_per_gpu",
                                                  "gradient_accumulation_steps", "steps_per_print", "wall_clock_breakdown"};

template <size_t N>
bool known(const std::string_view (&keys)[N], std::string_view key) {
  return std::find(std::begin(keys), std::end(keys), key) != std::end(keys);
}
template <size_t N>
const Key* find(const Key (&keys)[N], std::string_view key) {
  for (const Key& k : keys)
    if (k.name == key) return &k;
  return nullptr;
}

// A version's release part, "0.14.4" of "0.14.4+d5b4b2a".
std::string_view releaseOf(std::string_view version) {
  size_t n = 0;
  while (n < version.size() && (text::isDigit(version[n]) || version[n] == '.')) ++n;
  return version.substr(0, n);
}

// Levenshtein distance, stopping early past `limit`.
size_t distance(std::string_view a, std::string_view b, size_t limit) {
  if (a.size() > b.size() + limit || b.size() > a.size() + limit) return limit + 1;
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0], best = row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
      best = std::min(best, row[j]);
    }
    if (best > limit) return limit + 1;
  }
  return row[b.size()];
}

// What the finding says of an unknown key: where it belongs, or the known key it misspells.
template <size_t N>
std::string hintFor(std::string_view key, const Key (&keys)[N], std::string_view section) {
  if (section == "zero_optimization") {
    if (known(kTopLevelSections, key)) return ": it is a top-level section of the config, not a key of " + std::string(section);
  } else if (find(kZeroKeys, key)) {
    return ": it is a key of zero_optimization itself";
  }
  if (section == "zero_optimization.offload_optimizer" && find(kOffloadParamKeys, key)) return ": it exists under offload_param only";
  if (section == "zero_optimization.offload_param" && find(kOffloadOptimizerKeys, key)) return ": it exists under offload_optimizer only";
  const size_t limit = key.size() >= 12 ? 3 : 2;
  std::string_view closest;
  size_t best = limit + 1;
  for (const Key& candidate : keys) {
    size_t d = distance(key, candidate.name, limit);
    if (d < best) best = d, closest = candidate.name;
  }
  if (!closest.empty()) return ": did you mean " + std::string(closest) + "?";
  return "";
}

// A finding lists at most this many keys: a config of thousands of unknown keys (a hostile file
// opened in the editor) costs no more than one of fifty.
constexpr size_t kMostListed = 50;

struct Unknown {
  const JsonNode* value;
  std::string where;  // "zero_optimization.offload_optimizer.buffer_size"
  std::string note;
};

// The keys of a strict section that no release defines, or, where the installed DeepSpeed is
// known (`installed`, a release "0.9.5"), that it does not define yet.
template <size_t N>
void unknownIn(const JsonNode* section, const std::string& name, const Key (&keys)[N], std::string_view installed,
               std::vector<Unknown>& out) {
  if (!section || section->kind != JsonNode::Kind::kObject) return;
  for (const auto& [key, value] : section->members) {
    if (out.size() >= kMostListed) return;
    if (value->kind == JsonNode::Kind::kString && value->text == "auto") continue;
    const Key* k = find(keys, key);
    if (!k) {
      out.push_back({value.get(), name + "." + key, "no DeepSpeed release defines " + key + " in " + name + hintFor(key, keys, name)});
    } else if (!installed.empty() && !k->since.empty() && compareVersions(installed, k->since) < 0) {
      out.push_back({value.get(), name + "." + key,
                     key + " came with DeepSpeed " + std::string(k->since) + "; the machine's is " + std::string(installed)});
    }
  }
}

}  // namespace

void unknownDeepSpeedKeys(const JsonNode& root, std::string_view text, const Lines& lines, uint32_t source,
                          const std::string& path, const RuleSet& rules, const MachineProbe* probe, std::vector<Finding>& out) {
  auto rule = ruleById(rules, "deepspeed-config-unknown-key");
  if (!rule) return;
  // The installed DeepSpeed, where a probe names it: releases before a section became strict
  // ignore what they do not know there.
  std::string_view installed = probe && probe->deepspeedVersion ? releaseOf(*probe->deepspeedVersion) : std::string_view();
  const bool zeroStrict = installed.empty() || compareVersions(installed, kStrictZeroSince) >= 0;
  const bool bf16Strict = installed.empty() || compareVersions(installed, kStrictBf16Since) >= 0;
  std::vector<Unknown> zero, bf16;
  if (zeroStrict) {
    unknownIn(jsonAt(&root, "zero_optimization"), "zero_optimization", kZeroKeys, installed, zero);
    unknownIn(jsonAt(&root, "zero_optimization.offload_param"), "zero_optimization.offload_param", kOffloadParamKeys, installed, zero);
    unknownIn(jsonAt(&root, "zero_optimization.offload_optimizer"), "zero_optimization.offload_optimizer", kOffloadOptimizerKeys,
              installed, zero);
  }
  for (const char* name : {"bf16", "bfloat16"}) {
    const JsonNode* section = bf16Strict ? jsonAt(&root, name) : nullptr;
    if (!section || section->kind != JsonNode::Kind::kObject) continue;
    for (const auto& [key, value] : section->members)
      if (bf16.size() < kMostListed && known(kLossScalingKeys, key) && !(value->kind == JsonNode::Kind::kString && value->text == "auto"))
        bf16.push_back({value.get(), std::string(name) + "." + key,
                        key + " is fp16's loss scaling, which " + name + " has no key for (it belongs in fp16)"});
  }
  const std::string machine = probe ? " (" + describeMachine(*probe) + " has DeepSpeed " +
                                          probe->deepspeedVersion.value_or("unknown") + ")"
                                    : std::string();
  auto report = [&](std::vector<Unknown>& found, const std::string& why) {
    if (found.empty()) return;
    std::sort(found.begin(), found.end(), [](const Unknown& a, const Unknown& b) { return a.value->begin < b.value->begin; });
    Finding f = configFinding(rule, path, source, nodeEvidence(text, lines, source, *found.front().value, "unknown_key"));
    for (size_t i = 1; i < found.size(); ++i) f.evidence.push_back(nodeEvidence(text, lines, source, *found[i].value, "unknown_key"));
    for (const auto& u : found) f.observed.push_back(u.where + " (line " + std::to_string(lines.lineOf(u.value->begin) + 1) + "): " + u.note);
    f.observed.push_back(why);
    f.observed.push_back(foreseenFailure(*rule));
    f.captures["key"] = found.front().where;
    out.push_back(std::move(f));
  };
  report(zero, "DeepSpeed 0.7.0 and later read zero_optimization with a model that refuses unknown keys, and refuse the "
               "config at start-up" + (installed.empty() ? std::string() : machine));
  report(bf16, "DeepSpeed 0.17.1 and later read bf16 with a model that refuses them, and refuse the config at start-up " +
                   (installed.empty() ? std::string("(earlier releases ignore them)") : machine.substr(1)));
}

}  // namespace denpex::core::check_detail
