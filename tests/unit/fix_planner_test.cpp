// Source edits: keyword insertion and replacement, idempotence, JSON configs, diffs.
#include "core/fix/planner.h"

#include <gtest/gtest.h>

#include <map>

namespace denpex::core {
namespace {

class MemorySources : public SourceProvider {
 public:
  std::map<std::string, std::string> files;
  std::optional<SourceFile> open(const std::string& path) override {
    auto it = files.find(path);
    if (it == files.end()) return std::nullopt;
    return SourceFile{path, it->second, std::nullopt};
  }
  std::vector<std::string> candidates() override {
    std::vector<std::string> out;
    for (const auto& [k, v] : files) out.push_back(k);
    return out;
  }
};

class FixPlannerTest : public ::testing::Test {
 protected:
  FixPlannerTest() {
    rules_.add(builtinRuleSources());
    finding_.rule = nullptr;
    for (const auto& r : rules_.rules())
      if (r->id == "adamw-eps-fp16-underflow") finding_.rule = r;
  }
  // Plans for one file and returns the edited text (or the original when nothing applies).
  std::string fixed(const std::string& path, const std::string& text, std::vector<FixPlan>* plansOut = nullptr) {
    MemorySources src;
    src.files[path] = text;
    auto plans = planFixes(finding_, src);
    if (plansOut) *plansOut = plans;
    std::vector<TextEdit> edits;
    for (const auto& p : plans)
      if (p.applicable) edits.insert(edits.end(), p.edits.begin(), p.edits.end());
    std::sort(edits.begin(), edits.end(), [](const auto& a, const auto& b) { return a.begin < b.begin; });
    return applyEdits(text, edits);
  }
  RuleSet rules_;
  Finding finding_;
};

TEST_F(FixPlannerTest, InsertsEpsIntoASingleLineCall) {
  std::vector<FixPlan> plans;
  EXPECT_EQ(fixed("train.py", "opt = torch.optim.AdamW(model.parameters(), lr=1e-3)\n", &plans),
            "opt = torch.optim.AdamW(model.parameters(), lr=1e-3, eps=1e-5)\n");
  ASSERT_EQ(plans.size(), 1u);
  EXPECT_EQ(plans[0].title, "Set eps=1e-5 in torch.optim.AdamW(...) (train.py:1)");
  EXPECT_EQ(plans[0].line, 1);
}

TEST_F(FixPlannerTest, ReplacesAnUnsafeEps) {
  EXPECT_EQ(fixed("t.py", "opt = AdamW(params, lr=1e-3, eps=1e-8)\n"), "opt = AdamW(params, lr=1e-3, eps=1e-5)\n");
  EXPECT_EQ(fixed("t.py", "opt = optim.Adam(params, 1e-3, (0.9, 0.999), 1e-08)\n"),
            "opt = optim.Adam(params, 1e-3, (0.9, 0.999), 1e-5)\n");
}

TEST_F(FixPlannerTest, LeavesASafeEpsAlone) {
  std::vector<FixPlan> plans;
  std::string src = "opt = AdamW(params, eps=1e-4)\n";
  EXPECT_EQ(fixed("t.py", src, &plans), src);
  ASSERT_EQ(plans.size(), 1u);
  EXPECT_FALSE(plans[0].applicable);
  EXPECT_TRUE(plans[0].alreadySafe);
  // Running the fix on its own output changes nothing (idempotent).
  std::string once = fixed("t.py", "opt = AdamW(params)\n");
  EXPECT_EQ(fixed("t.py", once), once);
}

TEST_F(FixPlannerTest, MultilineCallsKeepTheirStyle) {
  EXPECT_EQ(fixed("t.py",
                  "opt = torch.optim.AdamW(\n"
                  "    model.parameters(),\n"
                  "    lr=1e-3,  # peak learning rate\n"
                  ")\n"),
            "opt = torch.optim.AdamW(\n"
            "    model.parameters(),\n"
            "    lr=1e-3,  # peak learning rate\n"
            "    eps=1e-5,\n"
            ")\n");
  EXPECT_EQ(fixed("t.py",
                  "opt = AdamW(\n"
                  "    params,\n"
                  "    lr=1e-3  # no trailing comma\n"
                  ")\n"),
            "opt = AdamW(\n"
            "    params,\n"
            "    lr=1e-3,  # no trailing comma\n"
            "    eps=1e-5\n"
            ")\n");
}

TEST_F(FixPlannerTest, NonLiteralAndKwargsGetAReasonNotAnEdit) {
  std::vector<FixPlan> plans;
  fixed("t.py", "opt = AdamW(params, eps=args.eps)\nopt2 = AdamW(params, **cfg)\n", &plans);
  ASSERT_EQ(plans.size(), 2u);
  EXPECT_FALSE(plans[0].applicable);
  EXPECT_NE(plans[0].reason.find("args.eps"), std::string::npos);
  EXPECT_FALSE(plans[1].applicable);
  EXPECT_NE(plans[1].reason.find("**kwargs"), std::string::npos);
}

TEST_F(FixPlannerTest, TrainingArguments) {
  EXPECT_EQ(fixed("hf.py", "args = TrainingArguments(output_dir='out', fp16=True)\n"),
            "args = TrainingArguments(output_dir='out', fp16=True, adam_epsilon=1e-5)\n");
  EXPECT_EQ(fixed("hf.py", "args = transformers.TrainingArguments(fp16=True, adam_epsilon=1e-8)\n"),
            "args = transformers.TrainingArguments(fp16=True, adam_epsilon=1e-5)\n");
}

TEST_F(FixPlannerTest, DeepSpeedJsonConfig) {
  EXPECT_EQ(fixed("ds.json",
                  "{\n  \"optimizer\": {\n    \"type\": \"AdamW\",\n    \"params\": {\n      \"lr\": 1e-4,\n"
                  "      \"eps\": 1e-8\n    }\n  }\n}\n"),
            "{\n  \"optimizer\": {\n    \"type\": \"AdamW\",\n    \"params\": {\n      \"lr\": 1e-4,\n"
            "      \"eps\": 1e-5\n    }\n  }\n}\n");
  EXPECT_EQ(fixed("ds.json",
                  "{\n  \"optimizer\": {\n    \"type\": \"Adam\",\n    \"params\": {\n      \"lr\": 1e-4\n    }\n  }\n}\n"),
            "{\n  \"optimizer\": {\n    \"type\": \"Adam\",\n    \"params\": {\n      \"lr\": 1e-4,\n"
            "      \"eps\": 1e-5\n    }\n  }\n}\n");
  // Not an Adam optimizer, or no optimizer section: nothing to do.
  std::string sgd = "{\"optimizer\": {\"type\": \"SGD\", \"params\": {\"lr\": 0.1}}}";
  EXPECT_EQ(fixed("ds.json", sgd), sgd);
}

TEST_F(FixPlannerTest, TheTracebackFileComesFirst) {
  MemorySources src;
  src.files["/w/other.py"] = "o = AdamW(p)\n";
  src.files["/w/train.py"] = "import torch\n\n\nopt = torch.optim.AdamW(p)\n";
  finding_.userFrame = Frame{"/w/train.py", 50, "<module>", 0, 0, true};
  auto plans = planFixes(finding_, src);
  ASSERT_EQ(plans.size(), 1u);
  EXPECT_EQ(plans[0].path, "/w/train.py");
  EXPECT_EQ(plans[0].line, 4);
}

TEST(FixPlanner, BooleanSettingsAreReplacedOrLeftAlone) {
  RuleSet rules;
  rules.add({{"r.yaml", R"(id: r
title: R
category: t
summary: s
signals:
  s: 'x'
condition: s
edits:
  - kind: python-keyword
    callees: [DistributedDataParallel, DDP]
    keyword: find_unused_parameters
    value: "True"
)"}});
  Finding f;
  f.rule = rules.rules().front();
  class One : public SourceProvider {
   public:
    std::string text;
    std::optional<SourceFile> open(const std::string& p) override { return SourceFile{p, text, std::nullopt}; }
    std::vector<std::string> candidates() override { return {"m.py"}; }
  } src;
  src.text = "m = DDP(model, find_unused_parameters=False)\n";
  auto plans = planFixes(f, src);
  ASSERT_EQ(plans.size(), 1u);
  EXPECT_EQ(applyEdits(src.text, plans[0].edits), "m = DDP(model, find_unused_parameters=True)\n");
  src.text = "m = DDP(model, find_unused_parameters=True)\n";
  plans = planFixes(f, src);
  ASSERT_EQ(plans.size(), 1u);
  EXPECT_TRUE(plans[0].alreadySafe);
  EXPECT_FALSE(plans[0].applicable);
}

TEST(UnifiedDiff, OneHunkWithContext) {
  std::string text = "a\nb\nc\nopt = AdamW(p)\nd\ne\nf\ng\n";
  size_t at = text.find("(p)") + 2;
  std::string diff = unifiedDiff("train.py", text, {{at, at, ", eps=1e-5"}});
  EXPECT_EQ(diff,
            "--- a/train.py\n+++ b/train.py\n@@ -1,7 +1,7 @@\n a\n b\n c\n-opt = AdamW(p)\n+opt = AdamW(p, eps=1e-5)\n d\n e\n f\n");
}

TEST(UnifiedDiff, InsertedLinesCountInTheHeader) {
  std::string text = "f(\n    x,\n)\n";
  size_t eol = text.find("x,") + 2;
  std::string diff = unifiedDiff("t.py", text, {{eol, eol, "\n    eps=1e-5,"}});
  EXPECT_EQ(diff, "--- a/t.py\n+++ b/t.py\n@@ -1,3 +1,4 @@\n f(\n-    x,\n+    x,\n+    eps=1e-5,\n )\n");
}

}  // namespace
}  // namespace denpex::core
