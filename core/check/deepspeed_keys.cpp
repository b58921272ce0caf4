// Check 3, keys: DeepSpeed reads some sections of its config with models that refuse a key they
// do not define (DeepSpeedConfigModel: pydantic, extra fields forbidden), and the whole config is
// refused at start-up, on every rank. Checked here:
//   - zero_optimization, with offload_param and offload_optimizer (strict since 0.7.0): a key
//     no release defines there, under its name or its alias;
//   - bf16 (strict since 0.17.1): fp16's loss-scaling keys, which templates shared between the
//     two precisions carry and bf16 never had.
//
// Precision over recall: a key counts as known when any release from 0.7.0 to 0.19.5 defines it
// (so a key only newer releases have is not flagged: whether the installed DeepSpeed has it is
// not known here), a key set to "auto" is left alone (DeepSpeed drops those before validating),
// and other sections, read key by key and silently ignoring what they do not know, are not
// checked.
#include <algorithm>
#include <string>
#include <string_view>

#include "core/check/python_script.h"

namespace denpex::core::check_detail {

namespace {

// The keys each strict section accepts, the union over DeepSpeed 0.7.0 to 0.19.5 (the models'
// fields and aliases, deprecated names included).
constexpr std::string_view kZeroKeys[] = {
    "stage", "contiguous_gradients", "reduce_scatter", "reduce_bucket_size", "allgather_partitions",
    "allgather_bucket_size", "overlap_comm", "load_from_fp32_weights", "elastic_checkpoint", "offload_param",
    "offload_optimizer", "sub_group_size", "ignore_unused_parameters", "legacy_stage1", "round_robin_gradients",
    "prefetch_bucket_size", "stage3_prefetch_bucket_size", "param_persistence_threshold",
    "stage3_param_persistence_threshold", "model_persistence_threshold", "stage3_model_persistence_threshold",
    "max_live_parameters", "stage3_max_live_parameters", "max_reuse_distance", "stage3_max_reuse_distance",
    "gather_16bit_weights_on_model_save", "stage3_gather_16bit_weights_on_model_save", "cpu_offload",
    "cpu_offload_param", "cpu_offload_use_pin_memory", "stage3_gather_fp16_weights_on_model_save",
    "memory_efficient_linear", "mics_shard_size", "mics_hierarchical_params_gather", "zero_hpz_partition_size",
    "zero_quantized_weights", "zero_quantized_gradients", "pipeline_loading_checkpoint", "override_module_apply",
    "zero_quantized_nontrainable_weights", "use_multi_rank_bucket_allreduce", "use_all_reduce_for_fetch_params",
    "stage3_use_all_reduce_for_fetch_params", "module_granularity_threshold", "stage3_module_granularity_threshold",
    "zeropp_loco_param", "log_trace_cache_warnings", "zenflow", "enable_sanity_checks", "leaf_module",
    "allgather_sequential", "stage3_allgather_sequential", "save_muon_momentum_buffer_in_memory",
};
constexpr std::string_view kOffloadParamKeys[] = {"device", "nvme_path", "buffer_count", "buffer_size", "max_in_cpu", "pin_memory"};
// "pipeline" is derived from the two pipeline_* keys; accepted here, as it is not certain that no
// release took it.
constexpr std::string_view kOffloadOptimizerKeys[] = {
    "device", "nvme_path", "buffer_count", "pin_memory", "pipeline_read", "pipeline_write", "fast_init", "pipeline",
    "ratio", "super_offload", "cpuadam_cores_perc",
};
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
std::string hintFor(std::string_view key, const std::string_view (&keys)[N], std::string_view section) {
  if (section == "zero_optimization") {
    if (known(kTopLevelSections, key)) return ": it is a top-level section of the config, not a key of " + std::string(section);
  } else if (known(kZeroKeys, key)) {
    return ": it is a key of zero_optimization itself";
  }
  if (section == "zero_optimization.offload_optimizer" && known(kOffloadParamKeys, key))
    return ": it exists under offload_param only";
  if (section == "zero_optimization.offload_param" && known(kOffloadOptimizerKeys, key))
    return ": it exists under offload_optimizer only";
  const size_t limit = key.size() >= 12 ? 3 : 2;
  std::string_view closest;
  size_t best = limit + 1;
  for (std::string_view candidate : keys) {
    size_t d = distance(key, candidate, limit);
    if (d < best) best = d, closest = candidate;
  }
  if (!closest.empty()) return ": did you mean " + std::string(closest) + "?";
  return "";
}

struct Unknown {
  const JsonNode* value;
  std::string where;  // "zero_optimization.offload_optimizer.buffer_size"
  std::string note;
};

template <size_t N>
void unknownIn(const JsonNode* section, const std::string& name, const std::string_view (&keys)[N], std::vector<Unknown>& out) {
  if (!section || section->kind != JsonNode::Kind::kObject) return;
  for (const auto& [key, value] : section->members) {
    if (value->kind == JsonNode::Kind::kString && value->text == "auto") continue;
    if (known(keys, key)) continue;
    out.push_back({value.get(), name + "." + key, "no DeepSpeed release defines " + key + " in " + name + hintFor(key, keys, name)});
  }
}

}  // namespace

void unknownDeepSpeedKeys(const JsonNode& root, std::string_view text, const Lines& lines, uint32_t source,
                          const std::string& path, const RuleSet& rules, std::vector<Finding>& out) {
  auto rule = ruleById(rules, "deepspeed-config-unknown-key");
  if (!rule) return;
  std::vector<Unknown> zero, bf16;
  const JsonNode* zeroSection = jsonAt(&root, "zero_optimization");
  unknownIn(zeroSection, "zero_optimization", kZeroKeys, zero);
  unknownIn(jsonAt(&root, "zero_optimization.offload_param"), "zero_optimization.offload_param", kOffloadParamKeys, zero);
  unknownIn(jsonAt(&root, "zero_optimization.offload_optimizer"), "zero_optimization.offload_optimizer", kOffloadOptimizerKeys, zero);
  for (const char* name : {"bf16", "bfloat16"}) {
    const JsonNode* section = jsonAt(&root, name);
    if (!section || section->kind != JsonNode::Kind::kObject) continue;
    for (const auto& [key, value] : section->members)
      if (known(kLossScalingKeys, key) && !(value->kind == JsonNode::Kind::kString && value->text == "auto"))
        bf16.push_back({value.get(), std::string(name) + "." + key,
                        key + " is fp16's loss scaling, which " + name + " has no key for (it belongs in fp16)"});
  }
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
               "config at start-up");
  report(bf16, "DeepSpeed 0.17.1 and later read bf16 with a model that refuses them, and refuse the config at start-up "
               "(earlier releases ignore them)");
}

}  // namespace denpex::core::check_detail
