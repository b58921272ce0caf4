// Renderers: JSON schema fields, SARIF shape, and the explain entry's sections.
#include "core/render/report.h"

#include "core/analyze/diagnoser.h"
#include "core/rules/matcher.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace denpex::core {
namespace {

class ReportTest : public ::testing::Test {
 protected:
  ReportTest() {
    rules_.add(builtinRuleSources());
    matcher_ = std::make_unique<Matcher>(rules_);
    diagnosis_ = diagnoseText(rules_, *matcher_,
                              "    eps: 1e-08\nparam dtype: torch.float16\n"
                              "step 1 | loss 0.68 | grad_norm 1.98\nstep 2 | loss nan | grad_norm nan\n",
                              "train.log");
    plans_.resize(diagnosis_.findings.size());
  }
  RuleSet rules_;
  std::unique_ptr<Matcher> matcher_;
  Diagnosis diagnosis_;
  std::vector<std::vector<FixPlan>> plans_;
};

TEST_F(ReportTest, JsonCarriesTheDocumentedFields) {
  auto j = nlohmann::json::parse(renderJson({diagnosis_, plans_}));
  EXPECT_EQ(j["version"], 1);
  EXPECT_EQ(j["sources"][0], "train.log");
  ASSERT_EQ(j["findings"].size(), 2u);  // the eps underflow, then its NaN-loss symptom
  const auto& f = j["findings"][0];
  for (const char* key : {"rule", "title", "severity", "category", "tags", "role", "confidence", "ranks", "count",
                          "step", "evidence", "timestamps", "captures", "observed", "exception", "user_frame",
                          "summary", "root_cause", "fix", "verify", "related", "doc", "edits"})
    EXPECT_TRUE(f.contains(key)) << key;
  EXPECT_EQ(f["rule"], "adamw-eps-fp16-underflow");
  EXPECT_EQ(f["step"], 2);
  EXPECT_EQ(f["evidence"][0]["line"], 4);
  EXPECT_EQ(f["captures"]["eps"], "1e-08");
}

TEST_F(ReportTest, SarifHasRulesResultsAndOneBasedRegions) {
  auto j = nlohmann::json::parse(renderSarif({diagnosis_, plans_}));
  EXPECT_EQ(j["version"], "2.1.0");
  const auto& run = j["runs"][0];
  EXPECT_EQ(run["tool"]["driver"]["name"], "denpex");
  EXPECT_EQ(run["tool"]["driver"]["rules"][0]["id"], "adamw-eps-fp16-underflow");
  const auto& result = run["results"][0];
  EXPECT_EQ(result["ruleId"], "adamw-eps-fp16-underflow");
  EXPECT_EQ(result["level"], "error");
  EXPECT_EQ(run["columnKind"], "utf16CodeUnits");
  const auto& location = result["locations"][0]["physicalLocation"];
  const auto& region = location["region"];
  EXPECT_EQ(region["startLine"], 4);
  const auto& evidence = diagnosis_.findings[0].evidence[0];
  EXPECT_EQ(region["startColumn"], evidence.begin + 1);
  EXPECT_EQ(region["endColumn"], evidence.end + 1);
  EXPECT_EQ(location["artifactLocation"]["uri"], "train.log");
  EXPECT_EQ(location["artifactLocation"]["uriBaseId"], "%SRCROOT%");
  // FNV-1a of "adamw-eps-fp16-underflow|": the same on every platform.
  EXPECT_EQ(result["partialFingerprints"]["denpexFailure/v2"], "1425b18c8d14c231");
}

TEST_F(ReportTest, ExplainHasEverySectionOfTheEntry) {
  std::string md = explainMarkdown(*rules_.find("adamw-eps-fp16-underflow"));
  for (const char* heading : {"# AdamW epsilon underflow in FP16", "## What it is", "## What you observe",
                              "## Symptoms and why they happen", "## Fingerprint", "## Systems affected",
                              "## How to confirm", "## Root cause", "## Mechanism", "## Fix", "## Prevention",
                              "## How to verify the fix", "## Related failures", "## References"})
    EXPECT_NE(md.find(heading), std::string::npos) << heading;
  EXPECT_NE(md.find("param_groups[0]['eps']"), std::string::npos);
  EXPECT_NE(md.find("eps=1e-5"), std::string::npos);
}

TEST_F(ReportTest, TextReportNamesVerdictEvidenceAndFingerprint) {
  std::string text = renderText({diagnosis_, plans_}, {});
  EXPECT_NE(text.find("train.log:4: error[adamw-eps-fp16-underflow] AdamW epsilon underflow in FP16"), std::string::npos);
  EXPECT_NE(text.find("train.log:1  "), std::string::npos);
  EXPECT_NE(text.find("Fingerprint seen"), std::string::npos);
  EXPECT_NE(text.find("loss became nan at step 2"), std::string::npos);
  EXPECT_EQ(text.find("\x1b["), std::string::npos);  // no colour unless asked
}

}  // namespace
}  // namespace denpex::core
