// Checks on training scripts before the run: the seed configuration is flagged where the source
// shows it, and nothing else is (precision over recall).
#include "core/check/source_checks.h"

#include <gtest/gtest.h>

namespace denpex::core {
namespace {

class SourceChecks : public ::testing::Test {
 protected:
  SourceChecks() { EXPECT_TRUE(rules_.add(builtinRuleSources(), RuleOrigin::kShipped).empty()); }
  std::vector<Finding> check(const std::string& text) { return checkPythonSource(text, rules_, 0, "train.py"); }
  // "line:signal" of each evidence line of the only finding; empty when there is none.
  std::vector<std::string> flagged(const std::string& text) {
    auto found = check(text);
    std::vector<std::string> out;
    if (found.empty()) return out;
    EXPECT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].rule->id, "adamw-eps-fp16-underflow");
    for (const auto& e : found[0].evidence) out.push_back(std::to_string(e.line + 1) + ":" + e.signal);
    return out;
  }
  RuleSet rules_;
};

const std::string kImports = "import torch\nimport torch.nn as nn\n";

TEST_F(SourceChecks, TheSeedConfigurationIsFlaggedOnTheOptimizerWithTheCastAsEvidence) {
  auto found = check(kImports + "model = nn.Linear(4, 4).half()\noptimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)\n");
  ASSERT_EQ(found.size(), 1u);
  const Finding& f = found[0];
  EXPECT_EQ(f.rule->id, "adamw-eps-fp16-underflow");
  ASSERT_EQ(f.evidence.size(), 2u);
  EXPECT_EQ(f.evidence[0].line, 3u);
  EXPECT_EQ(f.evidence[0].begin, 12u);  // torch.optim.AdamW(...)
  EXPECT_EQ(f.evidence[0].end, 58u);
  EXPECT_EQ(f.evidence[1].line, 2u);
  ASSERT_EQ(f.observed.size(), 3u);
  EXPECT_EQ(f.observed[0], "model's parameters are float16 (line 3)");
  EXPECT_EQ(f.observed[1], "torch.optim.AdamW(...) has the default 1e-8, which is 0 in float16: the first steps divide by zero");
  EXPECT_EQ(f.observed[2], "this configuration fails with adamw-eps-fp16-underflow at run time");
  ASSERT_TRUE(f.userFrame);
  EXPECT_EQ(f.userFrame->file, "train.py");
  EXPECT_EQ(f.userFrame->line, 4);
}

TEST_F(SourceChecks, EveryWayOfCastingTheParametersToFloat16) {
  const std::string opt = "opt = torch.optim.Adam(model.parameters())\n";
  EXPECT_EQ(flagged(kImports + "model = Net()\nmodel.half()\n" + opt), (std::vector<std::string>{"5:optimizer", "4:fp16"}));
  EXPECT_EQ(flagged(kImports + "model = Net()\nmodel.to(device, dtype=torch.float16)\n" + opt),
            (std::vector<std::string>{"5:optimizer", "4:fp16"}));
  EXPECT_EQ(flagged(kImports + "model = Net().to(torch.half)\n" + opt), (std::vector<std::string>{"4:optimizer", "3:fp16"}));
  EXPECT_EQ(flagged(kImports + "model = Net().half().cuda()\n" + opt), (std::vector<std::string>{"4:optimizer", "3:fp16"}));
  EXPECT_EQ(flagged(kImports + "from transformers import AutoModelForCausalLM\nmodel = AutoModelForCausalLM.from_pretrained(\n"
                               "    'gpt2',\n    torch_dtype=torch.float16,\n)\n" + opt),
            (std::vector<std::string>{"8:optimizer", "6:fp16"}));
  EXPECT_EQ(flagged(kImports + "self_model = X.from_pretrained('m', torch_dtype='float16')\n" +
                    "opt = torch.optim.AdamW(self_model.parameters(), lr=3e-4)\n"),
            (std::vector<std::string>{"4:optimizer", "3:fp16"}));
  // from torch.optim import AdamW; eps given as 1e-10, and positionally (the fourth argument).
  EXPECT_EQ(flagged("from torch.optim import AdamW\nmodel = Net().half()\nopt = AdamW(model.parameters(), eps=1e-10)\n").size(), 2u);
  EXPECT_EQ(flagged(kImports + "model = Net().half()\nopt = torch.optim.Adam(model.parameters(), 1e-3, (0.9, 0.999), 1e-8)\n").size(), 2u);
}

TEST_F(SourceChecks, NothingWhereTheSourceDoesNotShowTheFailure) {
  const std::string opt = "opt = torch.optim.AdamW(model.parameters(), lr=1e-3)\n";
  for (const std::string& text : std::vector<std::string>{
           // float32 parameters under autocast: mixed precision keeps eps in float32.
           kImports + "model = Net().cuda()\n" + opt + "with torch.autocast('cuda', dtype=torch.float16):\n    loss = model(x)\n",
           // bfloat16 represents 1e-8.
           kImports + "model = Net().to(torch.bfloat16)\n" + opt,
           // a safe eps, and one float16 can hold (1e-7 is a subnormal, not 0).
           kImports + "model = Net().half()\nopt = torch.optim.AdamW(model.parameters(), eps=1e-5)\n",
           kImports + "model = Net().half()\nopt = torch.optim.AdamW(model.parameters(), eps=1e-7)\n",
           // the data is float16, not the parameters.
           kImports + "model = Net()\n" + opt + "x = batch.half()\nmodel(x.to(torch.float16))\n",
           // an eps or parameters the source does not pin down.
           kImports + "model = Net().half()\nopt = torch.optim.AdamW(model.parameters(), eps=args.eps)\n",
           kImports + "model = Net().half()\nopt = torch.optim.AdamW(model.parameters(), **cfg)\n",
           kImports + "params = [p.half() for p in ps]\nopt = torch.optim.AdamW(params)\n",
           // a cast in a comment or a string.
           kImports + "model = Net()  # .half() later\n# model.half()\nprint('model.half()')\n" + opt,
           // not torch's Adam.
           "import tensorflow as tf\nmodel = Net().half()\nopt = tf.keras.optimizers.Adam(model.parameters())\n",
           "class AdamW:\n    pass\nmodel = Net().half()\nopt = AdamW(model.parameters())\n",
           // A scaler that is off, or float32 parameters under a scaler (mixed precision done right).
           kImports + "model = Net().half()\nopt = torch.optim.AdamW(model.parameters(), eps=1e-5)\n" +
               "scaler = torch.cuda.amp.GradScaler(enabled=False)\n",
           kImports + "model = Net().cuda()\n" + opt + "scaler = torch.cuda.amp.GradScaler()\n",
           // The Trainer in bf16, or over a model loaded in float32.
           "from transformers import Trainer, TrainingArguments, AutoModel\nimport torch\n"
           "model = AutoModel.from_pretrained('m', torch_dtype=torch.float16)\n"
           "args = TrainingArguments('out', bf16=True)\nTrainer(model=model, args=args).train()\n",
           "from transformers import Trainer, TrainingArguments, AutoModel\n"
           "model = AutoModel.from_pretrained('m')\nargs = TrainingArguments('out', fp16=True)\nTrainer(model=model, args=args).train()\n",
       }) {
    EXPECT_TRUE(check(text).empty()) << text;
  }
}

// Check 2: GradScaler over float16 parameters ("Attempting to unscale FP16 gradients" at the
// first step), with torch's scaler or with the Trainer's fp16=True; it takes the place of the eps
// finding, the earlier failure of the two.
TEST_F(SourceChecks, AGradScalerOverFloat16ParametersIsFlaggedOnTheScaler) {
  auto torchScaler = check(kImports + "model = Net().half()\nopt = torch.optim.AdamW(model.parameters(), lr=1e-3)\n" +
                           "scaler = torch.cuda.amp.GradScaler()\n");
  ASSERT_EQ(torchScaler.size(), 1u);
  EXPECT_EQ(torchScaler[0].rule->id, "grad-scaler-fp16-params");
  ASSERT_EQ(torchScaler[0].evidence.size(), 2u);
  EXPECT_EQ(torchScaler[0].evidence[0].line, 4u);  // the scaler
  EXPECT_EQ(torchScaler[0].evidence[1].line, 2u);  // the cast
  EXPECT_EQ(torchScaler[0].observed.back(), "this configuration fails with grad-scaler-fp16-params at run time");
  auto trainer = check("import torch\nfrom transformers import AutoModelForCausalLM, Trainer, TrainingArguments\n"
                       "model = AutoModelForCausalLM.from_pretrained('gpt2', torch_dtype=torch.float16)\n"
                       "args = TrainingArguments(output_dir='out', fp16=True)\n"
                       "trainer = Trainer(model=model, args=args, train_dataset=ds)\n");
  ASSERT_EQ(trainer.size(), 1u);
  EXPECT_EQ(trainer[0].rule->id, "grad-scaler-fp16-params");
  EXPECT_EQ(trainer[0].evidence[0].line, 4u);  // Trainer(...)
  EXPECT_EQ(trainer[0].evidence[1].line, 2u);  // from_pretrained(..., torch_dtype=torch.float16)
}

}  // namespace
}  // namespace denpex::core
