// Checks on training scripts before the run: the seed configuration is flagged where the source
// shows it, and nothing else is (precision over recall).
#include "core/check/source_checks.h"

#include <gtest/gtest.h>

#include "core/fix/planner.h"

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

// Check 2's quick fix: the cast the check found goes, where autocast (or a Trainer's fp16=True)
// keeps the compute in float16; without either, the plan says why nothing is removed.
class OneScript : public SourceProvider {
 public:
  std::string text;
  OpenedSource open(const std::string& path) override { return {SourceFile{path, text, std::nullopt}, {}}; }
};

TEST_F(SourceChecks, TheGradScalerFixRemovesTheFloat16CastWhereAutocastComputesInFloat16) {
  auto fixedText = [&](const std::string& text, std::string* title = nullptr, std::string* reason = nullptr) {
    auto found = check(text);
    EXPECT_EQ(found.size(), 1u) << text;
    if (found.empty()) return text;
    EXPECT_EQ(found[0].rule->id, "grad-scaler-fp16-params");
    OneScript src;
    src.text = text;
    auto plans = planFixes(found[0], src);
    EXPECT_EQ(plans.size(), 1u) << text;
    if (plans.empty()) return text;
    if (title) *title = plans[0].title;
    if (reason) *reason = plans[0].reason;
    return plans[0].applicable ? applyEdits(text, plans[0].edits) : text;
  };
  const std::string opt = "opt = torch.optim.AdamW(model.parameters(), lr=1e-3)\nscaler = torch.cuda.amp.GradScaler()\n";
  const std::string loop = "with torch.autocast('cuda', dtype=torch.float16):\n    loss = model(x).sum()\n";
  std::string title;
  EXPECT_EQ(fixedText(kImports + "model = nn.Linear(4, 4).cuda().half()\n" + opt + loop, &title),
            kImports + "model = nn.Linear(4, 4).cuda()\n" + opt + loop);
  EXPECT_EQ(title, "Keep float32 weights and let autocast compute in float16: remove the float16 cast (train.py:3)");
  EXPECT_EQ(fixedText(kImports + "model = Net().half().cuda()\n" + opt + loop), kImports + "model = Net().cuda()\n" + opt + loop);
  EXPECT_EQ(fixedText(kImports + "model = Net().to(torch.float16)  # fp16\n" + opt + loop),
            kImports + "model = Net()  # fp16\n" + opt + loop);
  // A cast alone on its line goes with its line.
  EXPECT_EQ(fixedText(kImports + "model = Net()\nmodel.half()\n" + opt + loop), kImports + "model = Net()\n" + opt + loop);
  EXPECT_EQ(fixedText(kImports + "model = Net()\nmodel = model.half()\n" + opt + loop), kImports + "model = Net()\n" + opt + loop);
  // Without autocast the run would train in float32: said, not done.
  std::string reason;
  const std::string noAutocast = kImports + "model = Net().half()\n" + opt + "loss = model(x).sum()\n";
  EXPECT_EQ(fixedText(noAutocast, nullptr, &reason), noAutocast);
  EXPECT_EQ(reason, "no autocast in train.py: without the cast it would train in float32; run the forward pass under "
                    "torch.autocast(\"cuda\", dtype=torch.float16) and remove the cast, or train in bfloat16");
  // A cast that also moves the model is left to the user.
  const std::string both = kImports + "model = Net()\nmodel.to(device, dtype=torch.float16)\n" + opt + loop;
  EXPECT_EQ(fixedText(both, nullptr, &reason), both);
  EXPECT_EQ(reason, "the float16 cast at train.py:4 is not a plain .half() or .to(torch.float16): remove float16 from it by hand");
  // A Trainer with fp16=True over a model loaded in float16: the torch_dtype keyword edit, not this one.
  std::string trainer = "import torch\nfrom transformers import AutoModelForCausalLM, Trainer, TrainingArguments\n"
                        "model = AutoModelForCausalLM.from_pretrained('gpt2', torch_dtype=torch.float16)\n"
                        "args = TrainingArguments(output_dir='out', fp16=True)\n"
                        "trainer = Trainer(model=model, args=args, train_dataset=ds)\n";
  std::string fixedTrainer = trainer;
  fixedTrainer.replace(fixedTrainer.find("torch.float16"), 13, "\"float32\"");
  EXPECT_EQ(fixedText(trainer), fixedTrainer);
  // The same Trainer over a model cast with .half(): fp16=True is autocast, so the cast goes.
  std::string halfTrainer = "import torch\nfrom transformers import AutoModelForCausalLM, Trainer, TrainingArguments\n"
                            "model = AutoModelForCausalLM.from_pretrained('gpt2').half()\n"
                            "args = TrainingArguments(output_dir='out', fp16=True)\n"
                            "trainer = Trainer(model=model, args=args, train_dataset=ds)\n";
  std::string fixedHalf = halfTrainer;
  fixedHalf.erase(fixedHalf.find(".half()"), 7);
  EXPECT_EQ(fixedText(halfTrainer), fixedHalf);
  // The fixed scripts are checked clean.
  EXPECT_TRUE(check(kImports + "model = nn.Linear(4, 4).cuda()\n" + opt + loop).empty());
}

// The seed failure through the Trainer: a float16 model, no mixed precision, AdamW with the
// default adam_epsilon; the evidence is TrainingArguments (where the fix goes) and the cast.
TEST_F(SourceChecks, TheTrainersDefaultEpsilonOverAFloat16ModelIsFlaggedOnTrainingArguments) {
  const std::string head = "import torch\nfrom transformers import AutoModelForCausalLM, Trainer, TrainingArguments\n"
                           "model = AutoModelForCausalLM.from_pretrained('gpt2')\nmodel = model.half()\n";
  auto found = check(head + "args = TrainingArguments(output_dir='out', learning_rate=2e-5)\n"
                            "Trainer(model=model, args=args).train()\n");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].rule->id, "adamw-eps-fp16-underflow");
  ASSERT_EQ(found[0].evidence.size(), 2u);
  EXPECT_EQ(found[0].evidence[0].line, 4u);  // TrainingArguments(...)
  EXPECT_EQ(found[0].evidence[1].line, 3u);  // model.half()
  EXPECT_EQ(found[0].observed[1], "Trainer(...) trains them with AdamW and the default adam_epsilon 1e-8, which is 0 in float16: the first steps divide by zero");
  ASSERT_TRUE(found[0].userFrame);
  EXPECT_EQ(found[0].userFrame->line, 5);
  EXPECT_EQ(check(head + "args = TrainingArguments(output_dir='out', adam_epsilon=1e-8)\nTrainer(model=model, args=args)\n").size(), 1u);
  // Not when the source does not show it: a safe epsilon, mixed precision (bf16; fp16 is the
  // scaler's check), another optimizer, the script's own optimizer, arguments from elsewhere, two
  // TrainingArguments (which one the Trainer gets is not known), a float32 model.
  for (std::string args : {"adam_epsilon=1e-5", "bf16=True", "bf16=use_bf16", "optim='adafactor'", "**config"}) {
    std::string script = head + "args = TrainingArguments(output_dir='out', " + args + ")\nTrainer(model=model, args=args)\n";
    EXPECT_TRUE(check(script).empty()) << args;
  }
  EXPECT_TRUE(check(head + "args = TrainingArguments(output_dir='out')\nTrainer(model=model, args=args, optimizers=(opt, None))\n").empty());
  EXPECT_TRUE(check(head + "a = TrainingArguments(output_dir='a')\nb = TrainingArguments(output_dir='b')\nTrainer(model=model, args=a)\n").empty());
  EXPECT_TRUE(check("from transformers import AutoModelForCausalLM, Trainer, TrainingArguments\n"
                    "model = AutoModelForCausalLM.from_pretrained('gpt2')\n"
                    "Trainer(model=model, args=TrainingArguments(output_dir='out'))\n").empty());
}

// What trains is not the float16 base model: a quantized load (8-bit, 4-bit) or a model handed
// to peft, whose adapters are float32. alpaca-lora's finetune.py does both and works.
TEST_F(SourceChecks, QuantizedOrPeftWrappedModelsTrainFloat32Adapters) {
  const std::string head = "import torch\nfrom transformers import AutoModelForCausalLM, Trainer, TrainingArguments\n"
                           "from peft import LoraConfig, get_peft_model, prepare_model_for_kbit_training\n";
  const std::string tail = "args = TrainingArguments(output_dir='out', fp16=True)\nTrainer(model=model, args=args).train()\n";
  EXPECT_TRUE(check(head + "model = AutoModelForCausalLM.from_pretrained(\n    'llama',\n    load_in_8bit=True,\n"
                           "    torch_dtype=torch.float16,\n)\n" + tail).empty());
  EXPECT_TRUE(check(head + "model = AutoModelForCausalLM.from_pretrained('llama', quantization_config=bnb, torch_dtype=torch.float16)\n" +
                    tail).empty());
  EXPECT_TRUE(check(head + "model = AutoModelForCausalLM.from_pretrained('llama', torch_dtype=torch.float16)\n"
                           "model = get_peft_model(model, LoraConfig(r=8))\n" + tail).empty());
  // Without them the same script fails.
  EXPECT_EQ(check(head + "model = AutoModelForCausalLM.from_pretrained('llama', torch_dtype=torch.float16)\n" + tail).size(), 1u);
}

// Check 5: FlashAttention-2 over float32 weights, in a script where nothing runs the model in
// 16 bits; the finding is on the from_pretrained call, whose attn_implementation the fix edits.
TEST_F(SourceChecks, FlashAttentionOverFloat32WeightsIsFlaggedOnTheLoad) {
  const std::string head = "import torch\nfrom transformers import AutoModelForCausalLM\n";
  const std::string load = "model = AutoModelForCausalLM.from_pretrained('m', attn_implementation=\"flash_attention_2\"";
  auto found = check(head + load + ")\nout = model.generate(**batch)\n");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].rule->id, "flash-attention-dtype");
  EXPECT_EQ(found[0].evidence[0].line, 2u);
  EXPECT_EQ(found[0].observed[0], "AutoModelForCausalLM.from_pretrained(...) loads float32 weights (no torch_dtype) and asks for "
                                  "attn_implementation=\"flash_attention_2\"");
  EXPECT_EQ(check(head + load + ", torch_dtype=torch.float32)\n").size(), 1u);
  // Not where the weights or the run are in 16 bits, or where that is decided outside the source.
  for (std::string rest : {", torch_dtype=torch.bfloat16)\n", ", torch_dtype='auto')\n", ", dtype=torch.float16)\n",
                           ", **kwargs)\n", ")\nwith torch.autocast('cuda', dtype=torch.bfloat16):\n    model(x)\n",
                           ")\nmodel = model.to(dtype=torch.bfloat16)\n", ")\nmodel.half()\n",
                           ")\nfrom accelerate import Accelerator\nacc = Accelerator()\n"}) {
    EXPECT_TRUE(check(head + load + rest).empty()) << rest;
  }
  EXPECT_TRUE(check(head + "model = AutoModelForCausalLM.from_pretrained('m', attn_implementation='sdpa')\n").empty());
  // A comment above the load (left out of the code the check reads) does not shift where it
  // looks: the autocast right after the call still counts.
  EXPECT_TRUE(check(head + "# load in full precision first; the autocast region below computes in bfloat16\n" + load +
                    ")\nwith torch.autocast('cuda', dtype=torch.bfloat16):\n    out = model(x)\n")
                  .empty());
  // With the Trainer: flagged when its one TrainingArguments asks for no mixed precision, not
  // when it asks for bf16 or when the arguments come from the command line.
  const std::string trainer = "from transformers import Trainer, TrainingArguments\n";
  EXPECT_EQ(check(head + trainer + load + ")\nTrainer(model=model, args=TrainingArguments(output_dir='o')).train()\n").size(), 1u);
  EXPECT_TRUE(check(head + trainer + load + ")\nTrainer(model=model, args=TrainingArguments(output_dir='o', bf16=True)).train()\n").empty());
  EXPECT_TRUE(check(head + trainer + "from transformers import HfArgumentParser\n" + load + ")\n(args,) = HfArgumentParser(TrainingArguments).parse_args_into_dataclasses()\n"
                                            "Trainer(model=model, args=args).train()\n").empty());
}

// Check 4: DDP around a module with a layer nothing uses, without find_unused_parameters; the
// finding is on the DDP call (where the fix goes) with the layer as evidence.
TEST_F(SourceChecks, DdpAroundAModuleWithAnUnusedLayerIsFlaggedOnTheWrap) {
  auto script = [](const std::string& init, const std::string& forward, const std::string& after) {
    return "import torch.nn as nn\nfrom torch.nn.parallel import DistributedDataParallel as DDP\n"
           "class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
           "        self.body = nn.Linear(4, 4)\n" + init +
           "    def forward(self, x):\n        return self.body(x)" + forward + "\n" + after;
  };
  const std::string aux = "        self.aux = nn.Linear(4, 2)\n";
  auto found = check(script(aux, "", "model = Net().to(rank)\nmodel = DDP(model, device_ids=[rank])\n"));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].rule->id, "ddp-unused-parameters");
  EXPECT_EQ(found[0].evidence[0].line, 10u);  // DDP(...)
  EXPECT_EQ(found[0].evidence[1].line, 6u);   // self.aux = nn.Linear(4, 2)
  EXPECT_EQ(found[0].observed[0], "Net.aux (line 7) has parameters that no code of Net uses: forward never reaches it");
  EXPECT_EQ(check(script(aux, "", "ddp = DDP(Net())\n")).size(), 1u);
  // Not when the layer is used, frozen, reached by name, parameter-free, or DDP is told.
  const std::string wrap = "ddp = DDP(Net())\n";
  EXPECT_TRUE(check(script(aux, " + self.aux(x).sum()", wrap)).empty());
  EXPECT_TRUE(check(script(aux + "        self.aux.requires_grad_(False)\n", "", wrap)).empty());
  EXPECT_TRUE(check(script(aux, "\n    def extra(self, x):\n        return getattr(self, 'aux')(x)", wrap)).empty());
  EXPECT_TRUE(check(script(aux, "", "model = Net()\nprint(model.aux)\n" + wrap)).empty());
  EXPECT_TRUE(check(script("        self.drop = nn.Dropout(0.1)\n", "", wrap)).empty());
  EXPECT_TRUE(check(script(aux, "", "ddp = DDP(Net(), find_unused_parameters=True)\n")).empty());
  EXPECT_TRUE(check(script(aux, "", "ddp = DDP(Net(), static_graph=True)\n")).empty());
  EXPECT_TRUE(check(script(aux, "", "class Big(Net):\n    pass\n" + wrap)).empty());
  EXPECT_TRUE(check(script(aux, "", "model = Net()\nmodel = Other()\nddp = DDP(model)\n")).empty());
  EXPECT_TRUE(check(script(aux + "        for m in self.children():\n            pass\n", "", wrap)).empty());
}

// Check 4 through Lightning: a LightningModule with an unused layer, fitted by a Trainer whose
// strategy is "ddp"; the fix is Lightning's own strategy name.
TEST_F(SourceChecks, LightningDdpAroundAModuleWithAnUnusedLayerIsFlaggedOnTheTrainer) {
  auto script = [](const std::string& strategy, const std::string& forward) {
    return "import lightning as L\nimport torch.nn as nn\nclass Net(L.LightningModule):\n    def __init__(self):\n"
           "        super().__init__()\n        self.body = nn.Linear(4, 4)\n        self.aux = nn.Linear(4, 2)\n"
           "    def training_step(self, batch, i):\n        return self.body(batch).sum()" + forward + "\n"
           "model = Net()\ntrainer = L.Trainer(devices=2, strategy=" + strategy + ")\ntrainer.fit(model, loader)\n";
  };
  auto found = check(script("\"ddp\"", ""));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].rule->id, "ddp-unused-parameters");
  EXPECT_EQ(found[0].evidence[0].line, 10u);  // L.Trainer(...)
  EXPECT_EQ(found[0].evidence[1].line, 6u);   // self.aux = nn.Linear(4, 2)
  EXPECT_TRUE(check(script("\"ddp\"", " + self.aux(batch).sum()")).empty());
  EXPECT_TRUE(check(script("\"ddp_find_unused_parameters_true\"", "")).empty());
  EXPECT_TRUE(check(script("\"fsdp\"", "")).empty());
  EXPECT_TRUE(check(script("DDPStrategy(static_graph=True)", "")).empty());
}

// Check 3: a DeepSpeed config on its own, and against the TrainingArguments of a script that
// names it. Only JSON literals count: "auto" and quoted values are decided at run time.
TEST_F(SourceChecks, DeepSpeedConfigsThatCannotStartAreFlagged) {
  auto ds = [&](const std::string& body) { return checkDeepSpeedConfig("{\n  \"zero_optimization\": {\"stage\": 2},\n" + body + "\n}\n", rules_, 0, "ds.json"); };
  auto both = ds("  \"fp16\": {\"enabled\": true},\n  \"bf16\": {\"enabled\": true}");
  ASSERT_EQ(both.size(), 1u);
  EXPECT_EQ(both[0].rule->id, "deepspeed-fp16-bf16-both-enabled");
  EXPECT_EQ(both[0].evidence[0].line, 3u);  // bf16.enabled
  EXPECT_EQ(both[0].evidence[1].line, 2u);  // fp16.enabled
  EXPECT_EQ(ds("  \"fp16\": {\"enabled\": true},\n  \"bfloat16\": {\"enabled\": true}").size(), 1u);
  EXPECT_TRUE(ds("  \"fp16\": {\"enabled\": \"auto\"},\n  \"bf16\": {\"enabled\": \"auto\"}").empty());
  EXPECT_TRUE(ds("  \"fp16\": {\"enabled\": true},\n  \"bf16\": {\"enabled\": false}").empty());
  auto batch = ds("  \"train_batch_size\": 256,\n  \"train_micro_batch_size_per_gpu\": 8,\n  \"gradient_accumulation_steps\": 3");
  ASSERT_EQ(batch.size(), 1u);
  EXPECT_EQ(batch[0].rule->id, "deepspeed-batch-size-mismatch");
  EXPECT_EQ(batch[0].captures.at("train_batch_size"), "256");
  // 256 = 8 x 4 x 8 processes; two of the three given; "auto": DeepSpeed or the Trainer decide.
  EXPECT_TRUE(ds("  \"train_batch_size\": 256,\n  \"train_micro_batch_size_per_gpu\": 8,\n  \"gradient_accumulation_steps\": 4").empty());
  EXPECT_TRUE(ds("  \"train_batch_size\": 256,\n  \"train_micro_batch_size_per_gpu\": 7").empty());
  EXPECT_TRUE(ds("  \"train_batch_size\": \"auto\",\n  \"train_micro_batch_size_per_gpu\": 8,\n  \"gradient_accumulation_steps\": 3").empty());
  // Not a DeepSpeed config, or not JSON at all.
  EXPECT_TRUE(checkDeepSpeedConfig("{\"fp16\": {\"enabled\": true}, \"bf16\": {\"enabled\": true}}", rules_).empty());
  EXPECT_TRUE(checkDeepSpeedConfig("not json {", rules_).empty());
}

TEST_F(SourceChecks, ADeepSpeedConfigThatDisagreesWithTheScriptsTrainingArgumentsIsFlagged) {
  const std::string config = "{\n  \"train_micro_batch_size_per_gpu\": 16,\n  \"fp16\": {\"enabled\": true}\n}\n";
  auto script = [](const std::string& args) {
    return "from transformers import Trainer, TrainingArguments\nargs = TrainingArguments(output_dir='o', " + args +
           "deepspeed='ds.json')\nTrainer(model=m, args=args).train()\n";
  };
  std::vector<NamedConfig> configs{{"ds.json", config, 1, "ds.json"}};
  auto found = checkPythonSource(script(""), rules_, 0, "train.py", configs);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].rule->id, "deepspeed-config-mismatch-training-arguments");
  ASSERT_EQ(found[0].evidence.size(), 3u);
  EXPECT_EQ(found[0].evidence[0].source, 0u);  // TrainingArguments(...)
  EXPECT_EQ(found[0].evidence[1].source, 1u);  // the config's lines
  EXPECT_EQ(found[0].observed[0], "ds.json: fp16.enabled=true vs fp16=False in TrainingArguments(...)");
  EXPECT_EQ(found[0].observed[1], "ds.json: train_micro_batch_size_per_gpu=16 vs per_device_train_batch_size=(default) 8 in TrainingArguments(...)");
  ASSERT_TRUE(found[0].userFrame);
  EXPECT_EQ(found[0].userFrame->file, "ds.json");  // the fix ("auto") goes into the config
  EXPECT_TRUE(checkPythonSource(script("fp16=True, per_device_train_batch_size=16, "), rules_, 0, "train.py", configs).empty());
  EXPECT_TRUE(checkPythonSource(script("fp16=use_fp16, per_device_train_batch_size=bs, "), rules_, 0, "train.py", configs).empty());
  EXPECT_TRUE(checkPythonSource(script("**extra, "), rules_, 0, "train.py", configs).empty());
  EXPECT_TRUE(checkPythonSource(script(""), rules_, 0, "train.py", {}).empty());  // the config was not found
  EXPECT_EQ(deepSpeedConfigsNamed(script("")), (std::vector<std::string>{"ds.json"}));
}

// Accelerate configs, read line by line: mixed precision against the DeepSpeed file they name,
// and bf16 against the machine.
TEST_F(SourceChecks, AnAccelerateConfigIsCheckedAgainstItsDeepSpeedFileAndTheMachine) {
  const std::string yaml = "compute_environment: LOCAL_MACHINE\ndeepspeed_config:\n  deepspeed_config_file: 'ds.json'\n"
                           "  zero3_init_flag: false\ndistributed_type: DEEPSPEED\nmixed_precision: bf16  # fast\nnum_processes: 8\n";
  EXPECT_EQ(deepSpeedConfigsNamedByAccelerate(yaml), (std::vector<std::string>{"ds.json"}));
  const std::string fp16 = "{\n  \"fp16\": {\"enabled\": true},\n  \"zero_optimization\": {\"stage\": 2}\n}\n";
  std::vector<NamedConfig> configs{{"ds.json", fp16, 1, "ds.json"}};
  auto found = checkAccelerateConfig(yaml, rules_, 0, "accelerate.yaml", configs);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].rule->id, "deepspeed-config-mismatch-training-arguments");
  EXPECT_EQ(found[0].evidence[0].line, 5u);  // mixed_precision: bf16
  EXPECT_EQ(found[0].evidence[1].source, 1u);
  EXPECT_EQ(found[0].captures.at("ds_precision"), "fp16");
  ASSERT_TRUE(found[0].userFrame);
  EXPECT_EQ(found[0].userFrame->file, "ds.json");
  // "auto", the same mode, no DeepSpeed, or a config not found: nothing.
  std::vector<NamedConfig> autoConfig{{"ds.json", "{\"fp16\": {\"enabled\": \"auto\"}}", 1, "ds.json"}};
  EXPECT_TRUE(checkAccelerateConfig(yaml, rules_, 0, "a.yaml", autoConfig).empty());
  std::string sameMode = yaml;
  sameMode.replace(sameMode.find("bf16"), 4, "fp16");
  EXPECT_TRUE(checkAccelerateConfig(sameMode, rules_, 0, "a.yaml", configs).empty());
  std::string ddp = yaml;
  ddp.replace(ddp.find("DEEPSPEED"), 9, "MULTI_GPU");
  EXPECT_TRUE(checkAccelerateConfig(ddp, rules_, 0, "a.yaml", configs).empty());
  EXPECT_TRUE(checkAccelerateConfig(yaml, rules_, 0, "a.yaml").empty());
  // With a probe of GPUs older than Ampere, bf16 is flagged on the mixed_precision line.
  MachineProbe t4;
  t4.origin = "node.json";
  t4.gpus = {{"Tesla T4", 7, 5}};
  auto onT4 = checkAccelerateConfig(ddp, rules_, 0, "a.yaml", {}, &t4);
  ASSERT_EQ(onT4.size(), 1u);
  EXPECT_EQ(onT4[0].rule->id, "bf16-unsupported-gpu");
  EXPECT_EQ(onT4[0].evidence[0].line, 5u);
}

// Drivers without nvidia-smi's compute_cap field (470.82.01 and 470.182.03 in the threads of
// TensorRT-LLM 735 and candle 733) are asked for name,driver_version: the name gives the capability.
TEST(MachineProbe, AnOldDriverGivesTheCapabilityByTheGpuName) {
  MachineProbe p;
  readNvidiaSmi("Tesla V100-SXM2-32GB, 470.182.03\nTesla V100-SXM2-32GB, 470.182.03\nNVIDIA Mystery GPU, 470.182.03\n"
                "Field \"compute_cap\" is not a valid field to query.\n",
                p);
  ASSERT_EQ(p.gpus.size(), 2u);
  EXPECT_EQ(p.gpus[0].major, 7);
  EXPECT_EQ(p.gpus[0].minor, 0);
  EXPECT_EQ(p.driver, "470.182.03");
  ASSERT_EQ(p.notes.size(), 2u);  // once per kind of GPU
  EXPECT_EQ(p.notes[0], "Tesla V100-SXM2-32GB: compute capability 7.0 from the GPU's name (this driver's nvidia-smi cannot report it)");
  EXPECT_NE(p.notes[1].find("NVIDIA Mystery GPU: compute capability unknown"), std::string::npos) << p.notes[1];
  using CC = std::pair<int, int>;
  const std::pair<const char*, CC> known[] = {
      {"A100-SXM4-40GB", {8, 0}},          {"NVIDIA A100-PCIE-40GB", {8, 0}}, {"NVIDIA A10G", {8, 6}},
      {"NVIDIA GeForce RTX 3090", {8, 6}}, {"NVIDIA RTX A6000", {8, 6}},      {"Tesla T4", {7, 5}},
      {"GeForce RTX 2080 Ti", {7, 5}},     {"Quadro RTX 8000", {7, 5}},       {"TITAN RTX", {7, 5}},
      {"Tesla V100S-PCIE-32GB", {7, 0}},   {"TITAN V", {7, 0}},               {"Tesla P100-PCIE-16GB", {6, 0}},
      {"Tesla P40", {6, 1}},               {"GeForce GTX 1080 Ti", {6, 1}},   {"Tesla M60", {5, 2}},
      {"Tesla K80", {3, 7}},               {"Tesla K40m", {3, 5}},
  };
  for (const auto& [name, cc] : known) EXPECT_EQ(computeCapabilityOfName(name), std::optional<CC>(cc)) << name;
  // Later generations, and names the table does not hold, are unknown rather than guessed.
  for (const char* name : {"NVIDIA RTX 6000 Ada Generation", "NVIDIA H100 80GB HBM3", "NVIDIA L4", "NVIDIA GeForce RTX 4090",
                           "NVIDIA A2000", "NVIDIA B200", "Quadro K620"})
    EXPECT_FALSE(computeCapabilityOfName(name)) << name;
}

// The readers of what the probes print, on the formats the tools print.
TEST(MachineProbe, ReadsWhatTheProbesPrint) {
  MachineProbe p;
  readNvidiaSmi("Tesla V100-SXM2-32GB, 7.0, 535.104.05\nNVIDIA A100-SXM4-80GB, 8.0, 535.104.05\nnot a gpu line\n", p);
  ASSERT_EQ(p.gpus.size(), 2u);
  EXPECT_EQ(p.gpus[0].name, "Tesla V100-SXM2-32GB");
  EXPECT_EQ(p.gpus[1].major, 8);
  EXPECT_EQ(p.driver, "535.104.05");
  EXPECT_TRUE(p.notes.empty());
  EXPECT_EQ(driverFromProcVersion("NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 01:15:15 UTC 2023\n"
                                  "GCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n"),
            "535.104.05");
  EXPECT_EQ(driverFromProcVersion("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  550.54.15  Release Build\n"), "550.54.15");
  MachineProbe debian, pip;
  readTorchVersionFile("__version__ = '1.13.0a0'\ndebug = False\ncuda = None\ngit_version = 'Unknown'\n", debian);
  EXPECT_EQ(debian.torchVersion, "1.13.0a0");
  EXPECT_FALSE(debian.torchCuda);
  readTorchVersionFile("from typing import Optional\n__version__ = '2.4.0+cu121'\ndebug = False\ncuda: Optional[str] = '12.1'\n", pip);
  EXPECT_EQ(pip.torchCuda, "12.1");
  EXPECT_EQ(minimumDriverFor("12.1"), "525.60.13");
  EXPECT_EQ(minimumDriverFor("11.8"), "450.80.02");
  EXPECT_FALSE(minimumDriverFor("9.0"));
  EXPECT_LT(compareVersions("470.182.03", "525.60.13"), 0);
  EXPECT_EQ(compareVersions("525.60.13", "525.60.13"), 0);
  EXPECT_GT(compareVersions("535.104.05", "525.60.13"), 0);
  // A probe file round-trips; a wrong one says what is wrong.
  p.shmBytes = 64u << 20;
  p.container = true;
  p.torchVersion = "2.1.2+cu121";
  p.torchCuda = "12.1";
  auto back = probeFromJson(probeToJson(p), "probe.json");
  ASSERT_TRUE(back) << back.error();
  EXPECT_EQ(back->gpus.size(), 2u);
  EXPECT_EQ(back->shmBytes, 64u << 20);
  EXPECT_EQ(back->torchCuda, "12.1");
  EXPECT_FALSE(back->torchFromConda);
  EXPECT_FALSE(back->cudaCompatDriver);
  p.cudaCompatDriver = "550.54.15";
  EXPECT_EQ(probeFromJson(probeToJson(p), "probe.json")->cudaCompatDriver, "550.54.15");
  p.torchFromConda = true;
  EXPECT_TRUE(probeFromJson(probeToJson(p), "probe.json")->torchFromConda);
  EXPECT_FALSE(probeFromJson(R"({"denpex_probe": 1, "torch": {"version": "2.5.1", "cuda": "12.4"}})", "p.json")->torchFromConda);
  EXPECT_EQ(probeFromJson(R"({"denpex_probe": 1, "torch": {"conda": "yes"}})", "p.json").error(),
            "p.json: 'torch.conda' must be true or false");
  EXPECT_EQ(probeFromJson("{}", "p.json").error(), "p.json: not a probe file of format 1 (made by 'denpex probe --output FILE')");
  EXPECT_EQ(probeFromJson(R"({"denpex_probe": 1, "gpus": [{"name": "x", "compute_capability": "eight"}]})", "p.json").error(),
            "p.json: compute_capability 'eight' is not like 8.0");
  EXPECT_EQ(probeFromJson(R"({"denpex_probe": 1, "shm_bytes": "64M"})", "p.json").error(),
            "p.json: 'shm_bytes' must be a number of bytes or null");
}

// Check 6: against a probe of the machine, each finding naming that machine; nothing without
// a probe, or on a machine that has what the script needs.
TEST_F(SourceChecks, AScriptIsCheckedAgainstTheMachineItWillRunOn) {
  MachineProbe old;
  old.origin = "node.json";
  old.gpus = {{"Tesla T4", 7, 5}};
  old.driver = "470.182.03";
  old.shmBytes = 64u << 20;
  old.container = true;
  old.torchVersion = "2.1.2+cu121";
  old.torchCuda = "12.1";
  const std::string script = "import torch\nfrom torch.utils.data import DataLoader\n"
                             "loader = DataLoader(ds, batch_size=64, num_workers=4)\n"
                             "with torch.autocast('cuda', dtype=torch.bfloat16):\n    out = model(x)\n";
  auto found = checkPythonSource(script, rules_, 0, "train.py", {}, &old);
  std::vector<std::string> rules;
  for (const auto& f : found) rules.push_back(f.rule->id + "@" + std::to_string(f.evidence[0].line + 1));
  EXPECT_EQ(rules, (std::vector<std::string>{"bf16-unsupported-gpu@4", "dataloader-shm-exhausted@3", "cuda-driver-too-old@1"}));
  EXPECT_EQ(found[0].observed[1], "Tesla T4 (compute capability 7.5, the machine of the probe file node.json) has no native "
                                  "bfloat16: that needs 8.0 (Ampere) or newer");
  EXPECT_TRUE(checkPythonSource(script, rules_, 0, "train.py").empty());
  // A forward-compatibility library (NGC images, cuda-compat) of a driver new enough for CUDA
  // 12.1 runs it on the old driver; one too old does not.
  MachineProbe compat = old;
  compat.cudaCompatDriver = "550.54.15";
  for (const auto& f : checkPythonSource(script, rules_, 0, "train.py", {}, &compat)) EXPECT_NE(f.rule->id, "cuda-driver-too-old");
  compat.cudaCompatDriver = "520.61.05";
  EXPECT_EQ(checkPythonSource(script, rules_, 0, "train.py", {}, &compat).back().rule->id, "cuda-driver-too-old");
  MachineProbe fine = old;
  fine.gpus = {{"NVIDIA A100-SXM4-80GB", 8, 0}, {"NVIDIA H100 80GB HBM3", 9, 0}};
  fine.driver = "535.104.05";
  fine.shmBytes = 16ull << 30;
  EXPECT_TRUE(checkPythonSource(script, rules_, 0, "train.py", {}, &fine).empty());
  // One old GPU among new ones: which one the job gets is not known.
  MachineProbe mixed = fine;
  mixed.gpus.push_back({"Tesla T4", 7, 5});
  EXPECT_TRUE(checkPythonSource(script, rules_, 0, "train.py", {}, &mixed).empty());
  // No workers, or a number decided at run time.
  const std::string noWorkers = "import torch\nfrom torch.utils.data import DataLoader\nDataLoader(ds, num_workers=0)\nDataLoader(ds, num_workers=args.workers)\n";
  MachineProbe smallShm = fine;
  smallShm.shmBytes = 64u << 20;
  EXPECT_TRUE(checkPythonSource(noWorkers, rules_, 0, "train.py", {}, &smallShm).empty());
}

// Check 3, keys: a key no DeepSpeed release defines in a section read strictly, with where it
// belongs or what it misspells; keys some release knows, "auto" values and lenient sections are
// left alone.
TEST_F(SourceChecks, DeepSpeedKeysNoReleaseDefinesAreFlaggedWithWhereTheyBelong) {
  auto observed = [&](const std::string& config) {
    std::vector<std::string> out;
    for (const auto& f : checkDeepSpeedConfig(config, rules_, 0, "ds.json")) {
      EXPECT_EQ(f.rule->id, "deepspeed-config-unknown-key");
      out.insert(out.end(), f.observed.begin(), f.observed.end() - 2);  // the last two say why and what fails
    }
    return out;
  };
  EXPECT_EQ(observed(R"({"zero_optimization": {"stage": 3,
  "stage3_max_live_parameter": 1e9,
  "offload_optimizer": {"device": "cpu", "buffer_size": 1e8},
  "offload_param": {"device": "cpu", "fast_init": false},
  "aio": {"block_size": 1048576},
  "cpu_offload_params": true,
  "reduce_buket_size": "auto",
  "zero_hpz_partition_size": 8, "stage3_gather_fp16_weights_on_model_save": true, "prefetch_bucket_size": 5e7}})"),
            (std::vector<std::string>{
                "zero_optimization.stage3_max_live_parameter (line 2): no DeepSpeed release defines stage3_max_live_parameter "
                "in zero_optimization: did you mean stage3_max_live_parameters?",
                "zero_optimization.offload_optimizer.buffer_size (line 3): no DeepSpeed release defines buffer_size in "
                "zero_optimization.offload_optimizer: it exists under offload_param only",
                "zero_optimization.offload_param.fast_init (line 4): no DeepSpeed release defines fast_init in "
                "zero_optimization.offload_param: it exists under offload_optimizer only",
                "zero_optimization.aio (line 5): no DeepSpeed release defines aio in zero_optimization: it is a top-level "
                "section of the config, not a key of zero_optimization",
                "zero_optimization.cpu_offload_params (line 6): no DeepSpeed release defines cpu_offload_params in "
                "zero_optimization: did you mean cpu_offload_param?",
            }));
  EXPECT_EQ(observed(R"({"train_batch_size": 32, "bf16": {"enabled": true, "loss_scale_window": 1000, "hysteresis": "auto"}})"),
            (std::vector<std::string>{"bf16.loss_scale_window (line 1): loss_scale_window is fp16's loss scaling, which bf16 has "
                                      "no key for (it belongs in fp16)"}));
  // fp16 keeps its loss scaling; unknown keys at the top level and in lenient sections are
  // ignored by DeepSpeed; a zero_optimization that is not an object is another failure.
  EXPECT_TRUE(observed(R"({"train_batch_size": 32, "fp16": {"enabled": true, "loss_scale": 0}, "my_note": 1,
  "activation_checkpointing": {"partition_activations": true, "whatever": 1}})").empty());
  EXPECT_TRUE(observed(R"({"train_batch_size": 32, "zero_optimization": true})").empty());
  EXPECT_TRUE(observed(R"({"train_batch_size": 32, "zero_optimization": {"stage": 2, "offload_optimizer": "cpu"}})").empty());
  // Ten thousand unknown keys (a hostile file): fifty are listed, and no more are looked at.
  std::string crowd = R"({"train_batch_size": 32, "zero_optimization": {)";
  for (int i = 0; i < 10000; ++i) crowd += (i ? ", \"stage3_max_live_parameter" : "\"stage3_max_live_parameter") + std::to_string(i) + "\": 1";
  EXPECT_EQ(observed(crowd + "}}").size(), 50u);

  // With a probe that names the installed DeepSpeed: keys it does not have yet (ZeRO++ on 0.9.5,
  // DeepSpeed issue 3827), and nothing in a section it still reads leniently.
  auto onRelease = [&](const std::string& config, const char* version) {
    MachineProbe probe;
    probe.origin = "node.json";
    probe.deepspeedVersion = version;
    return checkDeepSpeedConfig(config, rules_, 0, "ds.json", &probe);
  };
  const std::string zeroPlusPlus = R"({"train_batch_size": 32, "bf16": {"enabled": true, "hysteresis": 2},
  "zero_optimization": {"stage": 3, "zero_hpz_partition_size": 8, "zero_quantized_weights": true}})";
  auto found = onRelease(zeroPlusPlus, "0.9.5+0b4b2a1");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].observed[0], "zero_optimization.zero_hpz_partition_size (line 2): zero_hpz_partition_size came with "
                                  "DeepSpeed 0.10.0; the machine's is 0.9.5");
  EXPECT_EQ(found[0].observed[2], "DeepSpeed 0.7.0 and later read zero_optimization with a model that refuses unknown keys, and "
                                  "refuse the config at start-up (the machine of the probe file node.json has DeepSpeed 0.9.5+0b4b2a1)");
  EXPECT_TRUE(onRelease(zeroPlusPlus, "0.10.0").empty());  // bf16 is lenient until 0.17.1
  EXPECT_TRUE(onRelease(zeroPlusPlus, "0.6.5").empty());   // so is zero_optimization until 0.7.0
  found = onRelease(zeroPlusPlus, "0.17.2");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].observed[0], "bf16.hysteresis (line 1): hysteresis is fp16's loss scaling, which bf16 has no key for (it belongs in fp16)");
  // The version DeepSpeed's installer writes, read as text.
  MachineProbe read;
  readDeepSpeedVersionFile("version='0.14.4+d5b4b2a'\ngit_hash='d5b4b2a'\ngit_branch='HEAD'\ninstalled_ops={}\n", read);
  EXPECT_EQ(read.deepspeedVersion, "0.14.4+d5b4b2a");
  auto back = probeFromJson(probeToJson(read), "p.json");
  ASSERT_TRUE(back);
  EXPECT_EQ(back->deepspeedVersion, "0.14.4+d5b4b2a");
  EXPECT_EQ(probeFromJson(R"({"denpex_probe": 1})", "p.json")->deepspeedVersion, std::nullopt);
  EXPECT_EQ(probeFromJson(R"({"denpex_probe": 1, "deepspeed": {"version": 14}})", "p.json").error(),
            "p.json: 'deepspeed.version' must be a string or null");
}

// Training recipes (TRL / alignment-handbook YAML): the script checks where the recipe alone
// shows the failure, and nothing where adapters, quantization, DeepSpeed or FSDP take over or
// the recipe leaves the dtype to the script's default.
TEST_F(SourceChecks, TrainingRecipesGetTheScriptChecksWhereTheRecipeShowsTheFailure) {
  auto rulesOf = [&](const std::string& recipe, const MachineProbe* probe = nullptr) {
    std::vector<std::string> out;
    for (const auto& f : checkTrainerRecipe(recipe, rules_, 0, "recipe.yaml", probe))
      out.push_back(f.rule->id + "@" + std::to_string(f.evidence[0].line + 1));
    return out;
  };
  const std::string head = "model_name_or_path: org/model  # the base\noutput_dir: out\n";
  using V = std::vector<std::string>;
  EXPECT_TRUE(looksLikeTrainerRecipe(head));
  EXPECT_FALSE(looksLikeTrainerRecipe("model_name_or_path: org/model\n"));
  EXPECT_FALSE(looksLikeTrainerRecipe("compute_environment: LOCAL_MACHINE\nmixed_precision: bf16\n"));
  EXPECT_EQ(rulesOf(head + "torch_dtype: float32\nattn_implementation: \"flash_attention_2\"\n"), V{"flash-attention-dtype@4"});
  EXPECT_EQ(rulesOf(head + "torch_dtype: float16\nfp16: true\n"), V{"grad-scaler-fp16-params@3"});
  EXPECT_EQ(rulesOf(head + "torch_dtype: 'float16'\n"), V{"adamw-eps-fp16-underflow@3"});
  EXPECT_EQ(rulesOf(head + "torch_dtype: float16\nadam_epsilon: 1.0e-9\n"), V{"adamw-eps-fp16-underflow@3"});
  // Safe, or not shown by the recipe.
  for (const char* quiet : {"torch_dtype: float32\nattn_implementation: flash_attention_2\nbf16: true\n",
                            "attn_implementation: flash_attention_2\n",  // the script's default dtype
                            "torch_dtype: bfloat16\nattn_implementation: flash_attention_2\n",
                            "torch_dtype: float16\nadam_epsilon: 1.0e-5\n", "torch_dtype: float16\noptim: adafactor\n",
                            "torch_dtype: float16\nfp16: true\nuse_peft: true\nlora_r: 16\n",
                            "torch_dtype: float16\nlora_r: 16\n", "torch_dtype: float16\nload_in_4bit: true\n",
                            "torch_dtype: float16\nfp16: true\ndeepspeed: ds_zero2.json\n",
                            "torch_dtype: float16\nbf16: true\n", "  torch_dtype: float16\n"})
    EXPECT_TRUE(rulesOf(head + quiet).empty()) << quiet;
  EXPECT_TRUE(rulesOf("output_dir: out\ntorch_dtype: float16\n").empty());  // not a recipe
  // bf16 against a probe: the first line that asks for it.
  MachineProbe v100;
  v100.origin = "node.json";
  v100.gpus = {{"Tesla V100-SXM2-32GB", 7, 0}};
  EXPECT_EQ(rulesOf(head + "torch_dtype: bfloat16\nbf16: true\n", &v100), V{"bf16-unsupported-gpu@3"});
  EXPECT_EQ(rulesOf(head + "bf16: true\ntorch_dtype: bfloat16\n", &v100), V{"bf16-unsupported-gpu@3"});
  EXPECT_TRUE(rulesOf(head + "bf16: false\n", &v100).empty());
}

// Check 6, the GPU architecture: a release wheel whose CUDA cannot build for the machine's GPUs.
TEST_F(SourceChecks, AGpuTheInstalledTorchHasNoKernelsForIsFlaggedAtTheImport) {
  EXPECT_EQ(cudaCannotBuildFor("12.4", 12, 0), "compute capability 12.0 needs CUDA 12.8 or newer");
  EXPECT_EQ(cudaCannotBuildFor("11.7", 9, 0), "compute capability 9.0 needs CUDA 11.8 or newer");
  EXPECT_EQ(cudaCannotBuildFor("13.0", 7, 0), "CUDA 13.0 and later no longer build for compute capability 7.0");
  EXPECT_EQ(cudaCannotBuildFor("12.1", 3, 7), "CUDA 12.0 and later no longer build for compute capability 3.7");
  EXPECT_EQ(cudaCannotBuildFor("12.8", 12, 0), std::nullopt);
  EXPECT_EQ(cudaCannotBuildFor("12.10", 12, 1), std::nullopt);  // numeric, not text, order
  EXPECT_EQ(cudaCannotBuildFor("12.9", 7, 0), std::nullopt);
  EXPECT_EQ(cudaCannotBuildFor("13.0", 7, 5), std::nullopt);
  EXPECT_EQ(cudaCannotBuildFor("12.4", 13, 0), std::nullopt);  // a capability the table does not know
  EXPECT_EQ(cudaCannotBuildFor("", 12, 0), std::nullopt);
  for (const char* wheel : {"2.5.1+cu124", "2.5.1", "1.13.1+cu117"}) EXPECT_TRUE(isReleaseWheel(wheel)) << wheel;
  for (const char* other : {"2.3.0a0+40ec155e58.nv24.03", "2.6.0.dev20241112+cu124", "2.5.1+cpu", "2.5+cu124", "2.5.1+cu", "2.5.1+cu12x", ""})
    EXPECT_FALSE(isReleaseWheel(other)) << other;

  MachineProbe blackwell;
  blackwell.origin = "node.json";
  blackwell.gpus = {{"NVIDIA GeForce RTX 5090", 12, 0}};
  blackwell.driver = "570.133.07";
  blackwell.torchVersion = "2.5.1+cu124";
  blackwell.torchCuda = "12.4";
  const std::string script = "import os\nimport torch\nmodel = torch.nn.Linear(4, 4).cuda()\n";
  auto found = checkPythonSource(script, rules_, 0, "train.py", {}, &blackwell);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].rule->id, "no-kernel-image");
  EXPECT_EQ(found[0].evidence[0].line, 1u);
  EXPECT_EQ(found[0].observed[0], "NVIDIA GeForce RTX 5090 (compute capability 12.0, the machine of the probe file node.json)");
  EXPECT_EQ(found[0].observed[1], "torch 2.5.1+cu124 is a release wheel built with CUDA 12.4, and compute capability 12.0 needs "
                                  "CUDA 12.8 or newer: the wheel has no kernels for this GPU, and no PTX it could compile at run time");
  // The wheel for it; a build that may carry PTX (NGC); a machine that also has a GPU the wheel
  // runs on; a file that does not import torch.
  MachineProbe fixed = blackwell;
  fixed.torchVersion = "2.7.0+cu128";
  fixed.torchCuda = "12.8";
  EXPECT_TRUE(checkPythonSource(script, rules_, 0, "train.py", {}, &fixed).empty());
  MachineProbe ngc = blackwell;
  ngc.torchVersion = "2.5.0a0+e000cf0ad9.nv24.10";
  EXPECT_TRUE(checkPythonSource(script, rules_, 0, "train.py", {}, &ngc).empty());
  // conda-forge's builds carry PTX for their newest architecture, which the GPU compiles at run time.
  MachineProbe conda = blackwell;
  conda.torchVersion = "2.5.1";
  conda.torchFromConda = true;
  EXPECT_TRUE(checkPythonSource(script, rules_, 0, "train.py", {}, &conda).empty());
  conda.torchFromConda = false;
  EXPECT_EQ(checkPythonSource(script, rules_, 0, "train.py", {}, &conda).size(), 1u);
  MachineProbe mixed = blackwell;
  mixed.gpus.push_back({"NVIDIA RTX A6000", 8, 6});
  EXPECT_TRUE(checkPythonSource(script, rules_, 0, "train.py", {}, &mixed).empty());
  EXPECT_TRUE(checkPythonSource("import os\nprint(1)\n", rules_, 0, "train.py", {}, &blackwell).empty());
  // The other way: a Volta GPU under a CUDA 13 wheel.
  MachineProbe volta = blackwell;
  volta.gpus = {{"Tesla V100-SXM2-32GB", 7, 0}};
  volta.driver = "580.65.06";
  volta.torchVersion = "2.9.0+cu130";
  volta.torchCuda = "13.0";
  found = checkPythonSource(script, rules_, 0, "train.py", {}, &volta);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].observed[1].find("CUDA 13.0 and later no longer build for compute capability 7.0"), std::string::npos);
}

}  // namespace
}  // namespace denpex::core
