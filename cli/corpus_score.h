// `denpex rules score CORPUS`: how often denpex names the failure a public thread concluded, on
// real logs people pasted (tests/corpus/). Each log `<name>.log` has a label
// `<name>.label.yaml` with `source`, `class` (a rule id, `new:<id>` for a failure no rule covers
// yet, or `none` for a log where nothing failed), `confirmed`, optionally `initiating_rank`, and
// `note`.
//
// Scores: top-1 (the first finding is the labelled class), top-3, and for negatives whether
// nothing was found. A floor file (`top1 0.80` lines) makes the command fail when a score drops
// below it, so the number only goes up.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/rules/matcher.h"
#include "core/rules/rule.h"

namespace denpex::cli {

struct CorpusLabel {
  std::string source;
  std::string expected;  // the class: a rule id, "new:<id>", or "none"
  bool confirmed = false;
  std::optional<int> initiatingRank;
  std::string note;
};

// Reads a label file; nullopt with `error` set when a required key is missing.
std::optional<CorpusLabel> readCorpusLabel(const std::string& text, std::string& error);

struct CorpusResult {
  std::string name;        // the log's file name
  CorpusLabel label;
  std::vector<std::string> found;  // rule ids of the findings, in order
  std::optional<int> initiatingRank;
  bool top1 = false, top3 = false;
};

struct CorpusScore {
  std::vector<CorpusResult> results;
  size_t positives = 0, top1 = 0, top3 = 0;
  size_t negatives = 0, negativesClean = 0;
  size_t rankLabels = 0, rankRight = 0;  // logs whose label names the initiating rank
  std::map<std::string, std::pair<size_t, size_t>> perClass;  // class -> (logs, top-1)
  double top1Rate() const { return positives ? double(top1) / positives : 1.0; }
  double top3Rate() const { return positives ? double(top3) / positives : 1.0; }
  double negativeRate() const { return negatives ? double(negativesClean) / negatives : 1.0; }
};

// Diagnoses every labelled log in `dir` (sorted by name). Logs without a label are errors.
CorpusScore scoreCorpus(const std::filesystem::path& dir, const core::RuleSet& rules, const core::Matcher& matcher,
                        std::vector<std::string>& errors);

int runScore(const std::vector<std::string>& args);

}  // namespace denpex::cli
