// Source edits: keyword insertion and replacement, idempotence, JSON configs, diffs.
#include "core/fix/planner.h"
#include "core/fix/python_calls.h"

#include <gtest/gtest.h>

#include <map>

namespace denpex::core {
namespace {

// The user's files in memory: the frame's file by its path, and files named to be fixed.
class MemorySources : public SourceProvider {
 public:
  std::map<std::string, std::string> files;
  std::vector<std::string> named;
  OpenedSource open(const std::string& path) override {
    auto it = files.find(path);
    if (it == files.end()) return {std::nullopt, path + " was not found"};
    return {SourceFile{path, it->second, std::nullopt}, {}};
  }
  std::vector<SourceFile> namedFiles() override {
    std::vector<SourceFile> out;
    for (const auto& n : named) out.push_back({n, files.at(n), std::nullopt});
    return out;
  }
};

class FixPlannerTest : public ::testing::Test {
 protected:
  FixPlannerTest() {
    rules_.add(builtinRuleSources(), RuleOrigin::kShipped);
    finding_.rule = nullptr;
    for (const auto& r : rules_.rules())
      if (r->id == "adamw-eps-fp16-underflow") finding_.rule = r;
  }
  // Plans for one file and returns the edited text (or the original when nothing applies).
  std::string fixed(const std::string& path, const std::string& text, std::vector<FixPlan>* plansOut = nullptr) {
    MemorySources src;
    src.files[path] = text;
    src.named = {path};
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
  EXPECT_EQ(fixed("train.py", "import torch\nopt = torch.optim.AdamW(model.parameters(), lr=1e-3)\n", &plans),
            "import torch\nopt = torch.optim.AdamW(model.parameters(), lr=1e-3, eps=1e-5)\n");
  ASSERT_EQ(plans.size(), 1u);
  EXPECT_EQ(plans[0].title, "Set eps=1e-5 in torch.optim.AdamW(...) (train.py:2)");
  EXPECT_EQ(plans[0].line, 2);
}

TEST_F(FixPlannerTest, ReplacesAnUnsafeEps) {
  std::vector<FixPlan> plans;
  EXPECT_EQ(fixed("t.py", "from torch.optim import AdamW\nopt = AdamW(params, lr=1e-3, eps=1e-8)\n", &plans),
            "from torch.optim import AdamW\nopt = AdamW(params, lr=1e-3, eps=1e-5)\n");
  ASSERT_EQ(plans.size(), 1u);
  // The title is written from the edit, with the value it replaces.
  EXPECT_EQ(plans[0].title, "Set eps=1e-5 in AdamW(...), was 1e-8 (t.py:2)");
  EXPECT_EQ(fixed("t.py", "import torch.optim as optim\nopt = optim.Adam(params, 1e-3, (0.9, 0.999), 1e-08)\n"),
            "import torch.optim as optim\nopt = optim.Adam(params, 1e-3, (0.9, 0.999), 1e-5)\n");
}

TEST_F(FixPlannerTest, LeavesASafeEpsAlone) {
  std::vector<FixPlan> plans;
  std::string src = "from torch.optim import AdamW\nopt = AdamW(params, eps=1e-4)\n";
  EXPECT_EQ(fixed("t.py", src, &plans), src);
  ASSERT_EQ(plans.size(), 1u);
  EXPECT_FALSE(plans[0].applicable);
  EXPECT_TRUE(plans[0].alreadySafe);
  // Running the fix on its own output changes nothing (idempotent).
  std::string once = fixed("t.py", "from torch.optim import AdamW\nopt = AdamW(params)\n");
  EXPECT_NE(once.find("eps=1e-5"), std::string::npos);
  EXPECT_EQ(fixed("t.py", once), once);
}

TEST_F(FixPlannerTest, MultilineCallsKeepTheirStyle) {
  EXPECT_EQ(fixed("t.py",
                  "import torch\n"
                  "opt = torch.optim.AdamW(\n"
                  "    model.parameters(),\n"
                  "    lr=1e-3,  # peak learning rate\n"
                  ")\n"),
            "import torch\n"
            "opt = torch.optim.AdamW(\n"
            "    model.parameters(),\n"
            "    lr=1e-3,  # peak learning rate\n"
            "    eps=1e-5,\n"
            ")\n");
  EXPECT_EQ(fixed("t.py",
                  "from torch.optim import AdamW\n"
                  "opt = AdamW(\n"
                  "    params,\n"
                  "    lr=1e-3  # no trailing comma\n"
                  ")\n"),
            "from torch.optim import AdamW\n"
            "opt = AdamW(\n"
            "    params,\n"
            "    lr=1e-3,  # no trailing comma\n"
            "    eps=1e-5\n"
            ")\n");
}

TEST_F(FixPlannerTest, NonLiteralAndKwargsGetAReasonNotAnEdit) {
  std::vector<FixPlan> plans;
  fixed("t.py", "from torch.optim import AdamW\nopt = AdamW(params, eps=args.eps)\nopt2 = AdamW(params, **cfg)\n", &plans);
  ASSERT_EQ(plans.size(), 2u);
  EXPECT_FALSE(plans[0].applicable);
  EXPECT_NE(plans[0].reason.find("args.eps"), std::string::npos);
  EXPECT_FALSE(plans[1].applicable);
  EXPECT_NE(plans[1].reason.find("**kwargs"), std::string::npos);
}

TEST_F(FixPlannerTest, TrainingArguments) {
  EXPECT_EQ(fixed("hf.py", "from transformers import TrainingArguments\nargs = TrainingArguments(output_dir='out', fp16=True)\n"),
            "from transformers import TrainingArguments\nargs = TrainingArguments(output_dir='out', fp16=True, adam_epsilon=1e-5)\n");
  EXPECT_EQ(fixed("hf.py", "import transformers\nargs = transformers.TrainingArguments(fp16=True, adam_epsilon=1e-8)\n"),
            "import transformers\nargs = transformers.TrainingArguments(fp16=True, adam_epsilon=1e-5)\n");
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

TEST_F(FixPlannerTest, OnlyTheTracebackFileIsEdited) {
  MemorySources src;
  src.files["/w/other.py"] = "from torch.optim import AdamW\no = AdamW(p)\n";
  src.files["/w/train.py"] = "import torch\n\n\nopt = torch.optim.AdamW(p)\n";
  finding_.userFrame = Frame{"/w/train.py", 50, "<module>", 0, 0, true};
  auto plans = planFixes(finding_, src);
  ASSERT_EQ(plans.size(), 1u);
  EXPECT_EQ(plans[0].path, "/w/train.py");
  EXPECT_EQ(plans[0].line, 4);
}

TEST_F(FixPlannerTest, NoFrameAndNoNamedFileMeansNoEdit) {
  // The log names none of the user's files: the planner never looks for look-alike calls.
  MemorySources src;
  src.files["/w/train.py"] = "import torch\nopt = torch.optim.AdamW(p)\n";
  EXPECT_TRUE(planFixes(finding_, src).empty());
}

TEST_F(FixPlannerTest, AFrameFileThatCannotBeFoundIsSaid) {
  MemorySources src;
  finding_.userFrame = Frame{"/elsewhere/train.py", 5, "<module>", 0, 0, true};
  auto plans = planFixes(finding_, src);
  ASSERT_EQ(plans.size(), 1u);
  EXPECT_FALSE(plans[0].applicable);
  EXPECT_EQ(plans[0].reason, "/elsewhere/train.py was not found");
}

TEST_F(FixPlannerTest, CallsAreEditedOnlyWhenTheImportsMakeThemTorch) {
  std::vector<FixPlan> plans;
  // Keras' Adam takes `epsilon`, not `eps`: never edited.
  std::string keras = "import tensorflow as tf\nopt = tf.keras.optimizers.Adam(learning_rate=1e-3)\n";
  EXPECT_EQ(fixed("k.py", keras, &plans), keras);
  ASSERT_EQ(plans.size(), 1u);
  EXPECT_FALSE(plans[0].applicable);
  EXPECT_EQ(plans[0].reason, "tf.keras.optimizers.Adam(...) is tensorflow.keras.optimizers.Adam, not torch.optim.AdamW, torch.optim.Adam, torch.optim.adamw.AdamW, ...: not edited");
  // The project's own Adam.
  std::string own = "class Adam:\n    def __init__(self, n): pass\nopt = Adam(3)\n";
  EXPECT_EQ(fixed("own.py", own), own);
  std::string fromLib = "from mylib.optim import Adam\nopt = Adam(3)\n";
  EXPECT_EQ(fixed("lib.py", fromLib), fromLib);
  // A name with no import at all (a builtin, or defined elsewhere) is not torch's either.
  std::string bare = "opt = AdamW(params)\n";
  EXPECT_EQ(fixed("bare.py", bare), bare);
  // The forms torch's optimizers are imported under are all recognised.
  EXPECT_NE(fixed("a.py", "from torch import optim\no = optim.AdamW(p)\n").find("eps=1e-5"), std::string::npos);
  EXPECT_NE(fixed("b.py", "from torch.optim import AdamW as AW\no = AW(p)\n").find("eps=1e-5"), std::string::npos);
  EXPECT_NE(fixed("c.py", "import torch.optim\no = torch.optim.Adam(p)\n").find("eps=1e-5"), std::string::npos);
  EXPECT_NE(fixed("d.py", "from torch.optim import (\n    SGD,\n    AdamW,\n)\no = AdamW(p)\n").find("eps=1e-5"), std::string::npos);
  EXPECT_NE(fixed("e.py", "try:\n    from torch.optim import AdamW\nexcept ImportError:\n    raise\no = AdamW(p)\n").find("eps=1e-5"),
            std::string::npos);
  // Bound to two different things: not edited.
  std::string twice = "from torch.optim import AdamW\nfrom apex.optimizers import FusedAdam as AdamW\no = AdamW(p)\n";
  EXPECT_EQ(fixed("f.py", twice), twice);
}

TEST_F(FixPlannerTest, FilesOutsideTheProjectAreMarked) {
  MemorySources src;
  src.files["/far/train.py"] = "import torch\nopt = torch.optim.AdamW(p)\n";
  class Outside : public MemorySources {
   public:
    OpenedSource open(const std::string& path) override {
      auto o = MemorySources::open(path);
      if (o.file) o.file->outside = true;
      return o;
    }
  } outside;
  outside.files = src.files;
  finding_.userFrame = Frame{"/far/train.py", 2, "<module>", 0, 0, true};
  auto plans = planFixes(finding_, outside);
  ASSERT_EQ(plans.size(), 1u);
  EXPECT_TRUE(plans[0].applicable);
  EXPECT_TRUE(plans[0].outside);
}

// A finding of a one-signal rule with the edit given (the YAML of one list item).
struct EditRule {
  RuleSet rules;
  Finding finding;
  explicit EditRule(const std::string& edit) {
    rules.add({{"r.yaml", "id: r\ntitle: R\ncategory: t\nsummary: s\nsignals:\n  s: 'x'\ncondition: s\nedits:\n" + edit}});
    finding.rule = rules.rules().front();
  }
};

// One file the user named, m.py, with `text`.
struct OneNamedFile : public SourceProvider {
  std::string text;
  OpenedSource open(const std::string&) override { return {}; }
  std::vector<SourceFile> namedFiles() override { return {{"m.py", text, std::nullopt}}; }
};

TEST(FixPlanner, BooleanSettingsAreReplacedOrLeftAlone) {
  EditRule rule("  - kind: python-keyword\n    callees: [torch.nn.parallel.DistributedDataParallel]\n"
                "    keyword: find_unused_parameters\n    type: bool\n    value: true\n");
  const Finding& f = rule.finding;
  OneNamedFile src;
  const std::string imports = "from torch.nn.parallel import DistributedDataParallel as DDP\n";
  src.text = imports + "m = DDP(model, find_unused_parameters=False)\n";
  auto plans = planFixes(f, src);
  ASSERT_EQ(plans.size(), 1u);
  EXPECT_EQ(plans[0].title, "Set find_unused_parameters=True in DDP(...), was False (m.py:2)");
  EXPECT_EQ(applyEdits(src.text, plans[0].edits), imports + "m = DDP(model, find_unused_parameters=True)\n");
  src.text = imports + "m = DDP(model, find_unused_parameters=True)\n";
  plans = planFixes(f, src);
  ASSERT_EQ(plans.size(), 1u);
  EXPECT_TRUE(plans[0].alreadySafe);
  EXPECT_FALSE(plans[0].applicable);
}

TEST(FixPlanner, ThirdPartyOptimizersResolveThroughTheirImports) {
  EditRule rule("  - kind: python-keyword\n    callees: [bitsandbytes.optim.AdamW8bit]\n    keyword: eps\n"
                "    type: float\n    value: 1e-5\n    range: [1e-6, 1e-3]\n    min_safe: 1e-5\n");
  const Finding& f = rule.finding;
  OneNamedFile src;
  src.text = "import bitsandbytes as bnb\nopt = bnb.optim.AdamW8bit(model.parameters(), lr=1e-3)\n";
  auto plans = planFixes(f, src);
  ASSERT_EQ(plans.size(), 1u);
  EXPECT_EQ(applyEdits(src.text, plans[0].edits), "import bitsandbytes as bnb\nopt = bnb.optim.AdamW8bit(model.parameters(), lr=1e-3, eps=1e-5)\n");
  // torch's AdamW is not bitsandbytes' AdamW8bit, and an AdamW8bit from elsewhere is not either.
  src.text = "from mylib import AdamW8bit\nopt = AdamW8bit(p)\n";
  plans = planFixes(f, src);
  ASSERT_EQ(plans.size(), 1u);
  EXPECT_FALSE(plans[0].applicable);
}

TEST(PythonImports, BindingsAndResolution) {
  PythonImports imports = findPythonImports(
      "import torch\nimport torch.optim as optim\nfrom torch.optim import (\n    AdamW as AW,  # comment\n    SGD,\n)\n"
      "from . import local\nfrom transformers import *\nclass Adam:\n    pass\nAlias = torch.optim.Adam\n"
      "if x: from apex.optimizers import FusedAdam\ns = \"import os\"\n");
  auto r = [&](const std::string& n) { return resolvePythonName(imports, n).value_or("-"); };
  EXPECT_EQ(r("torch.optim.AdamW"), "torch.optim.AdamW");
  EXPECT_EQ(r("optim.Adam"), "torch.optim.Adam");
  EXPECT_EQ(r("AW"), "torch.optim.AdamW");
  EXPECT_EQ(r("SGD"), "torch.optim.SGD");
  EXPECT_EQ(r("Alias"), "torch.optim.Adam");
  EXPECT_EQ(r("FusedAdam"), "apex.optimizers.FusedAdam");
  EXPECT_EQ(r("TrainingArguments"), "transformers.TrainingArguments");  // the one star import
  EXPECT_EQ(r("Adam"), "-");   // the file's own class
  EXPECT_EQ(r("local"), "-");  // a relative import: the project's own
  EXPECT_EQ(r("os"), "transformers.os");  // a string is not an import (the star import answers)
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
