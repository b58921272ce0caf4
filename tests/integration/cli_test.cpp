// The built `denpex` binary, run over real pipes the way a user runs it.
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <boost/asio.hpp>
#include <boost/process.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

#include "support/files.h"

namespace {

namespace bp = boost::process;
namespace fs = std::filesystem;

using denpex::test::contains;
using denpex::test::kSource;
using denpex::test::readAll;
using denpex::test::writeAll;

// A scratch copy of the seed example: train.py, its helper and the recorded log. Its own
// temp folder (TMPDIR, inherited by every denpex started here) keeps the logs `denpex run`
// keeps for the user out of the machine's /tmp; it goes with the scratch folder.
class ScratchProject : public denpex::test::ScratchDir {
 protected:
  void SetUp() override {
    ScratchDir::SetUp();
    const char* old = std::getenv("TMPDIR");
    savedTmp_ = old ? std::optional<std::string>(old) : std::nullopt;
    fs::create_directories(dir_ / "tmp");
    ::setenv("TMPDIR", (dir_ / "tmp").c_str(), 1);
  }
  void TearDown() override {
    if (savedTmp_)
      ::setenv("TMPDIR", savedTmp_->c_str(), 1);
    else
      ::unsetenv("TMPDIR");
    ScratchDir::TearDown();
  }

 private:
  std::optional<std::string> savedTmp_;
};

struct Result {
  int code = -1;
  std::string out;
  std::string err;
};

Result denpex(const std::vector<std::string>& args, const fs::path& cwd = kSource, const std::string& input = "") {
  boost::asio::io_context io;
  std::future<std::string> out, err;
  bp::child child(DENPEX_BINARY, bp::args(args), bp::std_in < boost::asio::buffer(input), bp::std_out > out,
                  bp::std_err > err, bp::start_dir(cwd.string()), io);
  io.run();
  child.wait();
  return {child.exit_code(), out.get(), err.get()};
}

// denpex in `cwd` with the environment `env` (a PATH with fake tools on it, a cache folder).
Result denpexWithEnv(const bp::environment& env, const std::vector<std::string>& args, const fs::path& cwd) {
  boost::asio::io_context io;
  std::future<std::string> out, err;
  bp::child child(DENPEX_BINARY, bp::args(args), env, bp::std_in < bp::null, bp::std_out > out, bp::std_err > err,
                  bp::start_dir(cwd.string()), io);
  io.run();
  child.wait();
  return {child.exit_code(), out.get(), err.get()};
}

// An executable shell script standing in for a tool of the machine (nvidia-smi, python3).
void writeScript(const fs::path& path, const std::string& body) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << "#!/bin/sh\n" << body;
  fs::permissions(path, fs::perms::owner_all);
}

// A machine made of fakes in `dir`: a torch of `version` and CUDA `cuda` installed under
// `prefix`/lib/python3.11/site-packages (found by a python3 script), an nvidia-smi script that
// prints `gpu`, and a train.py that imports torch. The environment puts both scripts on PATH,
// turns the cache off and leaves no virtual environment active.
bp::environment fakeMachine(const fs::path& dir, const fs::path& prefix, const std::string& version, const std::string& cuda,
                            const std::string& gpu) {
  const fs::path torch = prefix / "lib/python3.11/site-packages/torch";
  fs::create_directories(torch);
  writeAll(torch / "__init__.py", "");
  writeAll(torch / "version.py", "__version__ = '" + version + "'\ndebug = False\ncuda = '" + cuda + "'\n");
  writeScript(dir / "bin/python3", "printf '%s\\n\\n' '" + (torch / "__init__.py").string() + "'\n");
  writeScript(dir / "bin/nvidia-smi", "echo '" + gpu + "'\n");
  writeAll(dir / "train.py", "import torch\nmodel = torch.nn.Linear(4, 4).cuda()\n");
  auto env = boost::this_process::environment();
  env["PATH"] = (dir / "bin").string() + ":" + env["PATH"].to_string();
  env["DENPEX_CACHE_DIR"] = "off";
  env.erase("VIRTUAL_ENV");
  return env;
}

TEST(Cli, DiagnosesTheSeedFailure) {
  Result r = denpex({"diagnose", "examples/fp16-adamw/train.log"});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_TRUE(contains(r.out, "error[adamw-eps-fp16-underflow] AdamW epsilon underflow in FP16")) << r.out;
  EXPECT_TRUE(contains(r.out, "examples/fp16-adamw/train.log:17")) << r.out;
  EXPECT_TRUE(contains(r.out, "eps: 1e-08"));
  EXPECT_TRUE(contains(r.out, "grad_norm stayed small and stable"));
  EXPECT_TRUE(contains(r.out, "loss turned nan at step 2"));
  EXPECT_TRUE(contains(r.out, "Root cause"));
  EXPECT_TRUE(contains(r.out, "Mechanism"));
  EXPECT_TRUE(contains(r.out, "param_groups[0]['eps']"));
  EXPECT_TRUE(contains(r.out, "Disable AMP"));
  EXPECT_TRUE(contains(r.out, "eps=1e-5"));
  EXPECT_TRUE(contains(r.out, "Verify"));
  EXPECT_TRUE(contains(r.out, "Related: gradient-explosion"));
  EXPECT_FALSE(contains(r.out, "\x1b[")) << "no colour when stdout is a pipe";
}

TEST(Cli, RecognisesTheLateUnfreezeShape) {
  Result r = denpex({"diagnose", "tests/rules/adamw-eps-fp16-underflow/match/late-unfreeze.log"});
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(contains(r.out, "adamw-eps-fp16-underflow"));
  EXPECT_TRUE(contains(r.out, "then the loss turned nan at step 31")) << r.out;
}

TEST(Cli, ContrastsDoNotGetTheEpsVerdict) {
  Result explosion = denpex({"diagnose", "tests/rules/gradient-explosion/match/sgd-high-lr.log"});
  EXPECT_EQ(explosion.code, 1);
  EXPECT_TRUE(contains(explosion.out, "gradient-explosion"));
  EXPECT_FALSE(contains(explosion.out, "adamw-eps-fp16-underflow]"));
  for (const char* log : {"tests/rules/adamw-eps-fp16-underflow/no_match/fp16-eps1e-5-healthy.log",
                          "tests/rules/adamw-eps-fp16-underflow/no_match/bf16-eps1e-8.log"}) {
    Result r = denpex({"diagnose", log});
    EXPECT_EQ(r.code, 0) << log << "\n" << r.out;
    EXPECT_TRUE(contains(r.out, "No known failure found")) << r.out;
  }
}

// A 64-rank log (bench/gen_log.py, 1 MiB): rank 0 prints the run's configuration once (fp16
// parameters, AdamW with eps 1e-08); thousands of lines later rank 17's loss turns NaN after a
// steady gradient norm and it raises; the others time out. The configuration is a run-wide fact,
// so rank 17's evaluation sees it: the epsilon rule fires for rank 17, leads, carries the
// initiating label, and points at the lines rank 0 printed; the NaN symptom comes after it. A
// rank's TIME is its failure line's own time, or none.
TEST_F(ScratchProject, TheVerdictLeadsWithTheCauseNotTheSymptom) {
  fs::path log = dir_ / "run.log";
  ASSERT_EQ(bp::system(bp::search_path("python3"), (kSource / "bench/gen_log.py").string(), "1", bp::std_out > log.string()), 0);
  Result r = denpex({"diagnose", "--format", "json", log.string()});
  ASSERT_EQ(r.code, 1) << r.err;
  auto j = nlohmann::json::parse(r.out);
  std::vector<std::string> rules;
  for (const auto& f : j["findings"]) rules.push_back(f["rule"]);
  EXPECT_EQ(rules, (std::vector<std::string>{"adamw-eps-fp16-underflow", "nan-loss", "collective-timeout", "torchrun-child-failed"}));
  ASSERT_EQ(j["findings"].size(), 4u);
  const auto& cause = j["findings"][0];
  EXPECT_EQ(cause["rule"], "adamw-eps-fp16-underflow");
  EXPECT_EQ(cause["role"], "root");
  EXPECT_EQ(cause["ranks"], nlohmann::json::array({17}));
  EXPECT_EQ(j["findings"][1]["rule"], "nan-loss");
  EXPECT_EQ(j["findings"][1]["role"], "symptom");
  EXPECT_EQ(j["incident"]["initiating_rank"], 17);
  // The evidence, in the rule's order: rank 17's NaN and steady gradient norm, then the eps and
  // the dtype on rank 0's lines (where they were printed), then rank 17's exception.
  std::vector<int> evidenceRanks;
  for (const auto& e : cause["evidence"]) evidenceRanks.push_back(e["rank"].get<int>());
  EXPECT_EQ(evidenceRanks, (std::vector<int>{17, 17, 0, 0, 17})) << cause["evidence"].dump(1);
  EXPECT_TRUE(contains(cause["evidence"][2]["text"].get<std::string>(), "eps: 1e-08"));
  EXPECT_TRUE(contains(cause["evidence"][3]["text"].get<std::string>(), "param dtype: torch.float16"));
  // Rank 17's NaN line prints no time: its TIME is none, not the time of an earlier line.
  const auto& ranks = j["incident"]["ranks"];
  ASSERT_EQ(ranks.size(), 64u);
  EXPECT_EQ(ranks[17]["rank"], 17);
  EXPECT_EQ(ranks[17]["role"], "initiator");
  EXPECT_EQ(ranks[17]["rule"], "nan-loss");
  EXPECT_TRUE(ranks[17]["time"].is_null()) << ranks[17].dump();
  EXPECT_EQ(ranks[0]["role"], "collateral");
  EXPECT_EQ(ranks[0]["time"], "E1130 09:00:00.000000");  // a line with its own time keeps it
  Result text = denpex({"diagnose", log.string()});
  size_t causeAt = text.out.find("[adamw-eps-fp16-underflow]"), symptomAt = text.out.find("[nan-loss]");
  ASSERT_NE(causeAt, std::string::npos) << text.out;
  EXPECT_LT(causeAt, symptomAt) << text.out;
}

TEST(Cli, ReadsStdinAndSeveralFiles) {
  Result in = denpex({"diagnose", "-"}, kSource, readAll(kSource / "examples/fp16-adamw/train.log"));
  EXPECT_EQ(in.code, 1);
  EXPECT_TRUE(contains(in.out, "<stdin>:17: error[adamw-eps-fp16-underflow]")) << in.out;
  Result two = denpex({"diagnose", "--format", "json", "tests/rules/gradient-explosion/match/sgd-high-lr.log",
                       "tests/rules/cpu-half-op-unsupported/match/addmm.log"});
  EXPECT_EQ(two.code, 1);
  auto j = nlohmann::json::parse(two.out);
  EXPECT_EQ(j["sources"].size(), 2u);
  ASSERT_EQ(j["findings"].size(), 3u);
  EXPECT_EQ(j["findings"][0]["evidence"][0]["source"], "tests/rules/gradient-explosion/match/sgd-high-lr.log");
}

// --stats tells what was read and where the time went, on standard error, and changes nothing
// on standard output: a log of several blocks (so that the workers run), read on two threads.
TEST_F(ScratchProject, StatsTellWhatWasReadAndWhereTheTimeWent) {
  std::string log;
  for (int i = 0; i < 12000; ++i)
    log += "[rank" + std::to_string(i % 4) + "]:step " + std::to_string(i) + " | loss 0.69 | grad_norm 0.12 | lr 1e-05\n";
  log += readAll(dir_ / "train.log");
  writeAll(dir_ / "big.log", log);
  const auto lines = static_cast<size_t>(std::count(log.begin(), log.end(), '\n'));
  Result plain = denpex({"diagnose", "--format", "json", "--threads", "2", "big.log"}, dir_);
  Result stats = denpex({"diagnose", "--format", "json", "--threads", "2", "--stats", "big.log"}, dir_);
  EXPECT_EQ(stats.code, 1) << stats.err;
  EXPECT_EQ(stats.out, plain.out);
  EXPECT_TRUE(plain.err.find("stats:") == std::string::npos) << plain.err;
  std::map<std::string, double> figures;
  std::istringstream err(stats.err);
  for (std::string line; std::getline(err, line);) {
    std::istringstream words(line);
    std::string tag, name;
    double value = -1;
    if (words >> tag >> name >> value && tag == "stats:") figures[name] = value;
  }
  EXPECT_EQ(figures["bytes"], static_cast<double>(log.size())) << stats.err;
  EXPECT_EQ(figures["lines"], static_cast<double>(lines)) << stats.err;
  EXPECT_EQ(figures["threads"], 2) << stats.err;
  for (const char* stage : {"seconds", "reading", "analysing", "applying"}) {
    ASSERT_TRUE(figures.count(stage)) << stage << " missing in:\n" << stats.err;
    EXPECT_GE(figures[stage], 0) << stage;
  }
  EXPECT_GT(figures["analysing"], 0) << stats.err;
  // A log of one block is read on the calling thread.
  Result small = denpex({"diagnose", "--stats", "train.log"}, dir_);
  EXPECT_TRUE(contains(small.err, "stats: threads 1\n")) << small.err;
  EXPECT_TRUE(contains(small.err, "stats: lines 17\n")) << small.err;
}

TEST(Cli, MachineReadableFormats) {
  Result json = denpex({"diagnose", "--format", "json", "examples/fp16-adamw/train.log"});
  auto j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["version"], 1);
  const auto& f = j["findings"][0];
  EXPECT_EQ(f["rule"], "adamw-eps-fp16-underflow");
  EXPECT_EQ(f["severity"], "error");
  EXPECT_EQ(f["category"], "optimizer");
  EXPECT_EQ(f["step"], 2);
  EXPECT_EQ(f["user_frame"]["line"], 51);
  ASSERT_FALSE(f["edits"].empty());
  EXPECT_EQ(f["edits"][0]["applicable"], true);
  EXPECT_EQ(f["edits"][0]["changes"][0]["new_text"], ", eps=1e-5");

  Result sarif = denpex({"diagnose", "--format", "sarif", "examples/fp16-adamw/train.log"});
  auto s = nlohmann::json::parse(sarif.out);
  EXPECT_EQ(s["version"], "2.1.0");
  EXPECT_EQ(s["runs"][0]["results"][0]["ruleId"], "adamw-eps-fp16-underflow");
  EXPECT_EQ(s["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"], 17);

  Result md = denpex({"diagnose", "--format", "markdown", "examples/fp16-adamw/train.log"});
  EXPECT_TRUE(contains(md.out, "## 1. AdamW epsilon underflow in FP16"));
  EXPECT_TRUE(contains(md.out, "```diff"));
}

TEST(Cli, UsageAndInputErrorsExitTwo) {
  Result missing = denpex({"diagnose", "no/such.log"});
  EXPECT_EQ(missing.code, 2);
  EXPECT_TRUE(contains(missing.err, "no/such.log: no such file")) << missing.err;
  Result dir = denpex({"diagnose", "rules"});
  EXPECT_EQ(dir.code, 2);
  EXPECT_TRUE(contains(dir.err, "a folder with no log files")) << dir.err;
  Result option = denpex({"diagnose", "--frobnicate", "x.log"});
  EXPECT_EQ(option.code, 2);
  EXPECT_TRUE(contains(option.err, "unknown option '--frobnicate'"));
  Result format = denpex({"diagnose", "--format", "xml", "examples/fp16-adamw/train.log"});
  EXPECT_EQ(format.code, 2);
  Result command = denpex({"frobnicate"});
  EXPECT_EQ(command.code, 2);
  EXPECT_TRUE(contains(command.err, "unknown command"));
}

// A corpus label with a key the scorer does not know (a misspelt initiating_rank) is an error,
// not a label whose rank goes unchecked.
TEST_F(ScratchProject, CorpusScoreRefusesALabelKeyItDoesNotKnow) {
  fs::create_directories(dir_ / "corpus");
  fs::copy_file(dir_ / "train.log", dir_ / "corpus/a.log");
  const std::string label = "source: https://example.org/issue/1\nclass: adamw-eps-fp16-underflow\nconfirmed: true\nnote: the seed\n";
  writeAll(dir_ / "corpus/a.label.yaml", label + "initiating_rank: 0\n");
  Result good = denpex({"rules", "score", (dir_ / "corpus").string()});
  EXPECT_EQ(good.code, 0) << good.out << good.err;
  EXPECT_TRUE(contains(good.out, "Initiating rank: 0/1")) << good.out;  // read and checked (the seed log has no ranks)
  writeAll(dir_ / "corpus/a.label.yaml", label + "rank: 0\n");
  Result misspelt = denpex({"rules", "score", (dir_ / "corpus").string()});
  EXPECT_NE(misspelt.code, 0);
  EXPECT_TRUE(contains(misspelt.out + misspelt.err, "unknown key 'rank'")) << misspelt.out << misspelt.err;
  writeAll(dir_ / "corpus/a.label.yaml", label + "initiating_rank: first\n");
  Result word = denpex({"rules", "score", (dir_ / "corpus").string()});
  EXPECT_NE(word.code, 0);
  EXPECT_TRUE(contains(word.out + word.err, "initiating_rank 'first' is not a rank number")) << word.out << word.err;
}

TEST_F(ScratchProject, FixPrintsADiffOfTheTracebackFile) {
  Result r = denpex({"diagnose", "--fix", "train.log"}, dir_);
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_TRUE(contains(r.out, "fix: Set eps=1e-5 in torch.optim.AdamW(...) (train.py:40)")) << r.out;
  EXPECT_TRUE(contains(r.out, "--- a/train.py"));
  EXPECT_TRUE(contains(r.out, "-optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)\n"));
  EXPECT_TRUE(contains(r.out, "+optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, eps=1e-5)\n"));
  EXPECT_EQ(readAll(dir_ / "train.py"), readAll(kSource / "examples/fp16-adamw/train.py")) << "--fix must not write";
}

TEST_F(ScratchProject, ApplyWritesCompilablePythonAndIsIdempotent) {
  Result r = denpex({"diagnose", "--apply", "train.log"}, dir_);
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "applied 1 edit to train.py")) << r.err;
  std::string edited = readAll(dir_ / "train.py");
  EXPECT_TRUE(contains(edited, "optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, eps=1e-5)\n"));
  int compiled = bp::system(bp::search_path("python3"), "-m", "py_compile", (dir_ / "train.py").string());
  EXPECT_EQ(compiled, 0);
  Result again = denpex({"diagnose", "--apply", "train.log"}, dir_);
  EXPECT_FALSE(contains(again.err, "applied")) << again.err;
  EXPECT_TRUE(contains(again.out, "already has eps=1e-5, which is safe")) << again.out;
  EXPECT_EQ(readAll(dir_ / "train.py"), edited);
}

// The shipped DDP rule's fix on the script it was recorded from (tests/rules/ddp-unused-parameters/
// fix/recorded-script: fail.py under torch.multiprocessing.spawn, gloo, a head forward never
// reaches): --apply writes find_unused_parameters=True into its DDP(...) call, the result is the
// reviewed .fixed file and compiles, and a second run leaves it alone.
TEST_F(ScratchProject, TheShippedDdpRuleFixesTheRecordedScript) {
  fs::path recorded = kSource / "tests/rules/ddp-unused-parameters/fix/recorded-script";
  for (const char* f : {"fail.py", "run.log"}) fs::copy_file(recorded / f, dir_ / f);
  Result r = denpex({"diagnose", "--apply", "--source", "fail.py", "run.log"}, dir_);
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_TRUE(contains(r.out, "error[ddp-unused-parameters]")) << r.out;
  EXPECT_TRUE(contains(r.err, "applied 1 edit to fail.py")) << r.err;
  EXPECT_EQ(readAll(dir_ / "fail.py"), readAll(recorded / "fail.py.fixed"));
  EXPECT_TRUE(contains(readAll(dir_ / "fail.py"), "    model = DDP(Net(), find_unused_parameters=True)\n"));
  EXPECT_EQ(bp::system(bp::search_path("python3"), "-m", "py_compile", (dir_ / "fail.py").string()), 0);
  Result again = denpex({"diagnose", "--apply", "--source", "fail.py", "run.log"}, dir_);
  EXPECT_FALSE(contains(again.err, "applied")) << again.err;
  EXPECT_EQ(readAll(dir_ / "fail.py"), readAll(recorded / "fail.py.fixed"));
}

// Before the run: `denpex check` on the examples finds the seed configuration in the two scripts
// that have it (float16 parameters, AdamW's default eps) and in no other; --apply writes the
// rule's fix into the script, which then compiles and checks clean.
TEST_F(ScratchProject, CheckFindsTheSeedConfigurationBeforeTheRunAndFixesIt) {
  Result all = denpex({"check", "--format", "json", "examples"});
  EXPECT_EQ(all.code, 1) << all.err;
  auto j = nlohmann::json::parse(all.out);
  std::vector<std::string> where;
  for (const auto& f : j["findings"])
    where.push_back(f["evidence"][0]["source"].get<std::string>() + ":" +
                    std::to_string(f["evidence"][0]["line"].get<int>()) + " " + f["rule"].get<std::string>());
  // fail.py's DDP case is made to fail that way (its recording: cpu-gloo-spawn-unused-head.log).
  EXPECT_EQ(where, (std::vector<std::string>{"examples/fp16-adamw/train.py:40 adamw-eps-fp16-underflow",
                                             "examples/recording/cpu_failures/fail.py:131 ddp-unused-parameters",
                                             "examples/recording/half_adamw_step_cpu.py:11 adamw-eps-fp16-underflow"}))
      << all.out;
  EXPECT_EQ(j["findings"][0]["observed"].back(), "this configuration fails with adamw-eps-fp16-underflow at run time");

  Result fixed = denpex({"check", "--apply", "train.py"}, dir_);
  EXPECT_EQ(fixed.code, 1) << fixed.err;
  EXPECT_TRUE(contains(fixed.out, "train.py:40: error[adamw-eps-fp16-underflow]")) << fixed.out;
  EXPECT_TRUE(contains(fixed.err, "applied 1 edit to train.py")) << fixed.err;
  EXPECT_TRUE(contains(readAll(dir_ / "train.py"), "optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, eps=1e-5)\n"));
  EXPECT_EQ(bp::system(bp::search_path("python3"), "-m", "py_compile", (dir_ / "train.py").string()), 0);
  Result again = denpex({"check", "train.py"}, dir_);
  EXPECT_EQ(again.code, 0) << again.out;

  // The earlier failure of a float16 model under the Trainer's fp16=True: the scaler's rule,
  // whose fix loads the weights in float32 (the Trainer's autocast still computes in float16).
  writeAll(dir_ / "sft.py", "import torch\nfrom transformers import AutoModelForCausalLM, Trainer, TrainingArguments\n"
                            "model = AutoModelForCausalLM.from_pretrained(\n    'gpt2',\n    torch_dtype=torch.float16,\n)\n"
                            "args = TrainingArguments(output_dir='out', fp16=True)\nTrainer(model=model, args=args).train()\n");
  Result scaler = denpex({"check", "--format", "json", "sft.py"}, dir_);
  EXPECT_EQ(scaler.code, 1) << scaler.err;
  auto sj = nlohmann::json::parse(scaler.out);
  ASSERT_EQ(sj["findings"].size(), 1u) << scaler.out;
  EXPECT_EQ(sj["findings"][0]["rule"], "grad-scaler-fp16-params");
  EXPECT_EQ(sj["findings"][0]["evidence"][0]["line"], 8);  // Trainer(...)
  Result loaded = denpex({"check", "--apply", "sft.py"}, dir_);
  EXPECT_TRUE(contains(loaded.err, "applied 1 edit to sft.py")) << loaded.err;
  EXPECT_TRUE(contains(readAll(dir_ / "sft.py"), "    torch_dtype=\"float32\",\n")) << readAll(dir_ / "sft.py");
  EXPECT_EQ(bp::system(bp::search_path("python3"), "-m", "py_compile", (dir_ / "sft.py").string()), 0);
  EXPECT_EQ(denpex({"check", "sft.py"}, dir_).code, 0);
  // A model cast with .half(): the fix drops the cast, the same float32 weights the dtype edit
  // gives (fp16=True is autocast).
  writeAll(dir_ / "half.py", "import torch\nfrom transformers import AutoModelForCausalLM, Trainer, TrainingArguments\n"
                             "model = AutoModelForCausalLM.from_pretrained('gpt2').half()\n"
                             "args = TrainingArguments(output_dir='out', fp16=True)\nTrainer(model=model, args=args).train()\n");
  auto hj = nlohmann::json::parse(denpex({"check", "--format", "json", "half.py"}, dir_).out);
  ASSERT_EQ(hj["findings"].size(), 1u);
  ASSERT_EQ(hj["findings"][0]["edits"].size(), 1u) << hj.dump(2);
  EXPECT_TRUE(hj["findings"][0]["edits"][0]["applicable"]);
  EXPECT_EQ(hj["findings"][0]["edits"][0]["title"],
            "Keep float32 weights and let autocast compute in float16: remove the float16 cast (half.py:3)");
  Result halfFixed = denpex({"check", "--apply", "half.py"}, dir_);
  EXPECT_TRUE(contains(halfFixed.err, "applied 1 edit to half.py")) << halfFixed.err;
  EXPECT_TRUE(contains(readAll(dir_ / "half.py"), "model = AutoModelForCausalLM.from_pretrained('gpt2')\n")) << readAll(dir_ / "half.py");
  EXPECT_EQ(denpex({"check", "half.py"}, dir_).code, 0);

  Result none = denpex({"check", "no/such.py"});
  EXPECT_EQ(none.code, 2);
  EXPECT_TRUE(contains(none.err, "no/such.py: no such file or folder")) << none.err;
  fs::create_directories(dir_ / "notes");
  writeAll(dir_ / "notes/readme.md", "# notes\n");
  Result empty = denpex({"check", "notes"}, dir_);
  EXPECT_EQ(empty.code, 2);
  EXPECT_TRUE(contains(empty.err, "notes: a folder with no Python files or JSON or YAML configs")) << empty.err;
  // Rule files are YAML but not Accelerate configs: read, nothing found.
  EXPECT_EQ(denpex({"check", "rules"}).code, 0);
}

// A driver without nvidia-smi's compute_cap field (470) answers the query as the real one does
// (candle 733: 'Field "compute_cap" is not a valid field to query.', exit status 2); the probe asks
// for the names and takes the capability from them, and the bf16 check still runs.
TEST_F(ScratchProject, AnOldDriverWithoutComputeCapIsAskedForTheGpuNames) {
  writeScript(dir_ / "bin/nvidia-smi",
              "case \"$*\" in\n  *compute_cap*) echo 'Field \"compute_cap\" is not a valid field to query.'; exit 2 ;;\n"
              "esac\nprintf 'Tesla V100-SXM2-32GB, 470.182.03\\nTesla V100-SXM2-32GB, 470.182.03\\n'\n");
  writeAll(dir_ / "amp.py", "import torch\nwith torch.autocast('cuda', dtype=torch.bfloat16):\n    pass\n");
  auto env = boost::this_process::environment();
  env["PATH"] = (dir_ / "bin").string() + ":" + env["PATH"].to_string();
  env["DENPEX_CACHE_DIR"] = "off";
  auto run = [&](const std::vector<std::string>& args) { return denpexWithEnv(env, args, dir_); };
  Result probe = run({"probe"});
  EXPECT_EQ(probe.code, 0) << probe.err;
  auto j = nlohmann::json::parse(probe.out);
  ASSERT_EQ(j["gpus"].size(), 2u) << probe.out;
  EXPECT_EQ(j["gpus"][0]["compute_capability"], "7.0") << probe.out;
  EXPECT_TRUE(contains(probe.out, "compute capability 7.0 from the GPU's name")) << probe.out;
  Result r = run({"check", "--probe", "local", "amp.py"});
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "bf16-unsupported-gpu")) << r.out;
}

// A torch that conda installed may carry PTX (conda-forge builds their newest architecture with
// it), which a newer GPU compiles at run time: the probe finds the conda record of the
// environment torch is imported from and the architecture check stays quiet; the same torch
// without that record (a pip wheel) is flagged. python3 and nvidia-smi here are scripts.
TEST_F(ScratchProject, ATorchInstalledByCondaIsNotTakenForAReleaseWheel) {
  const fs::path env = dir_ / "env";
  auto machine = fakeMachine(dir_, env, "2.5.1", "12.4", "NVIDIA GeForce RTX 5090, 12.0, 570.133.07");
  fs::create_directories(env / "conda-meta");
  writeAll(env / "conda-meta/pytorch-2.5.1-cuda124_py311h0123456_300.json", "{}\n");
  writeAll(env / "conda-meta/pytorch-cuda-12.4-hc786d27_7.json", "{}\n");
  auto run = [&](const std::vector<std::string>& args) { return denpexWithEnv(machine, args, dir_); };
  Result probe = run({"probe"});
  EXPECT_EQ(probe.code, 0) << probe.err;
  EXPECT_TRUE(contains(probe.out, "\"conda\": true")) << probe.out;
  EXPECT_TRUE(contains(probe.out, "\"version\": \"2.5.1\"")) << probe.out;
  Result quiet = run({"check", "--probe", "local", "train.py"});
  EXPECT_EQ(quiet.code, 0) << quiet.out << quiet.err;
  fs::remove(env / "conda-meta/pytorch-2.5.1-cuda124_py311h0123456_300.json");
  Result flagged = run({"check", "--probe", "local", "train.py"});
  EXPECT_EQ(flagged.code, 1) << flagged.out << flagged.err;
  EXPECT_TRUE(contains(flagged.out, "no-kernel-image")) << flagged.out;
}

// An old driver with a forward-compatibility library on the loader's path (an NGC image on a
// data center GPU, or the cuda-compat package) runs a newer CUDA: the probe finds
// libcuda.so.VERSION in a compat folder of LD_LIBRARY_PATH and the driver check stays quiet;
// without it, the same machine is flagged. python3 and nvidia-smi here are scripts.
TEST_F(ScratchProject, AForwardCompatibilityLibraryLetsAnOldDriverRunANewerCuda) {
  auto env = fakeMachine(dir_, dir_ / "venv", "2.5.1+cu124", "12.4", "NVIDIA A100-SXM4-80GB, 8.0, 470.182.03");
  fs::create_directories(dir_ / "cuda-12.4/compat");
  writeAll(dir_ / "cuda-12.4/compat/libcuda.so.550.54.15", "");
  auto run = [&](const std::vector<std::string>& args) { return denpexWithEnv(env, args, dir_); };
  env.erase("LD_LIBRARY_PATH");
  Result flagged = run({"check", "--probe", "local", "train.py"});
  if (!fs::exists("/proc/driver/nvidia/version") && !fs::exists("/usr/local/cuda/compat")) {
    // On a machine with a driver or a compat folder of its own, the probe sees those instead.
    EXPECT_EQ(flagged.code, 1) << flagged.out << flagged.err;
    EXPECT_TRUE(contains(flagged.out, "cuda-driver-too-old")) << flagged.out;
  }
  env["LD_LIBRARY_PATH"] = (dir_ / "cuda-12.4/compat").string() + ":/nowhere";
  Result probe = run({"probe"});
  EXPECT_TRUE(contains(probe.out, "\"cuda_compat_driver\": \"550.54.15\"")) << probe.out;
  Result quiet = run({"check", "--probe", "local", "train.py"});
  EXPECT_EQ(quiet.code, 0) << quiet.out << quiet.err;
}

// `check --probe local` asks nvidia-smi once per boot and driver (its answer kept in the cache
// folder); `denpex probe` always asks anew. nvidia-smi here is a script that says it was asked.
TEST_F(ScratchProject, NvidiaSmiIsAskedOncePerBootAndProbeAsksAgain) {
  writeScript(dir_ / "bin/nvidia-smi",
              "echo asked >> '" + (dir_ / "asked").string() + "'\necho 'Tesla V100-SXM2-32GB, 7.0, 535.104.05'\n");
  writeAll(dir_ / "amp.py", "import torch\nwith torch.autocast('cuda', dtype=torch.bfloat16):\n    pass\n");
  auto env = boost::this_process::environment();
  env["PATH"] = (dir_ / "bin").string() + ":" + env["PATH"].to_string();
  env["DENPEX_CACHE_DIR"] = (dir_ / "cache").string();
  auto run = [&](const std::vector<std::string>& args) { return denpexWithEnv(env, args, dir_); };
  auto asked = [&] {
    std::string said = fs::exists(dir_ / "asked") ? readAll(dir_ / "asked") : "";
    return std::count(said.begin(), said.end(), '\n');
  };
  for (int i = 0; i < 2; ++i) {
    Result r = run({"check", "--probe", "local", "amp.py"});
    EXPECT_EQ(r.code, 1) << r.out << r.err;
    EXPECT_TRUE(contains(r.out, "bf16-unsupported-gpu")) << r.out;
    EXPECT_TRUE(contains(r.out, "Tesla V100-SXM2-32GB (compute capability 7.0, this machine (probed now))")) << r.out;
  }
  EXPECT_EQ(asked(), 1);
  Result probe = run({"probe"});
  EXPECT_EQ(probe.code, 0) << probe.err;
  EXPECT_TRUE(contains(probe.out, "Tesla V100-SXM2-32GB")) << probe.out;
  EXPECT_EQ(asked(), 2);
  EXPECT_EQ(run({"check", "--probe", "local", "amp.py"}).code, 1);
  EXPECT_EQ(asked(), 2);
  // With the cache turned off, every probe asks.
  env["DENPEX_CACHE_DIR"] = "off";
  EXPECT_EQ(run({"check", "--probe", "local", "amp.py"}).code, 1);
  EXPECT_EQ(asked(), 3);
}

// Precision over recall, on real scripts: the working training scripts and configs of public
// projects (tests/check_corpus/working, with their sources) get no finding; complete scripts
// with the configurations of public issue threads (tests/check_corpus/positives) get exactly
// theirs, and the Trainer's fix is applied where the eps goes.
TEST_F(ScratchProject, CheckCorpusWorkingScriptsAreQuietAndThreadConfigurationsAreFlagged) {
  Result working = denpex({"check", "tests/check_corpus/working"}, kSource);
  EXPECT_EQ(working.code, 0) << working.out << working.err;
  EXPECT_TRUE(contains(working.out, "No known failure found")) << working.out;
  Result positives = denpex({"check", "--format", "json", "tests/check_corpus/positives"}, kSource);
  EXPECT_EQ(positives.code, 1) << positives.err;
  auto j = nlohmann::json::parse(positives.out);
  std::vector<std::string> where;
  for (const auto& f : j["findings"])
    where.push_back(f["evidence"][0]["source"].get<std::string>() + ":" + std::to_string(f["evidence"][0]["line"].get<int>()) +
                    " " + f["rule"].get<std::string>());
  EXPECT_EQ(where, (std::vector<std::string>{
                       "tests/check_corpus/positives/accelerate_bf16_vs_ds_fp16/default_config.yaml:13 deepspeed-config-mismatch-training-arguments",
                       "tests/check_corpus/positives/ddp_unused_head.py:31 ddp-unused-parameters",
                       "tests/check_corpus/positives/ds_batch_sizes.json:2 deepspeed-batch-size-mismatch",
                       "tests/check_corpus/positives/ds_bf16_loss_scaling.json:7 deepspeed-config-unknown-key",
                       "tests/check_corpus/positives/ds_fp16_and_bf16.json:10 deepspeed-fp16-bf16-both-enabled",
                       "tests/check_corpus/positives/ds_trainer_mismatch/finetune.py:12 deepspeed-config-mismatch-training-arguments",
                       "tests/check_corpus/positives/ds_zero3_nvme_aio_in_zero.json:36 deepspeed-config-unknown-key",
                       "tests/check_corpus/positives/flash_attention_float32_generate.py:9 flash-attention-dtype",
                       "tests/check_corpus/positives/flash_attention_trainer_without_mixed_precision.py:7 flash-attention-dtype",
                       "tests/check_corpus/positives/fp16_load_trainer_fp16.py:9 grad-scaler-fp16-params",
                       "tests/check_corpus/positives/fp16_reward_model_trainer.py:8 adamw-eps-fp16-underflow",
                       "tests/check_corpus/positives/half_model_adamw_default_eps.py:34 adamw-eps-fp16-underflow",
                       "tests/check_corpus/positives/half_model_grad_scaler.py:9 grad-scaler-fp16-params",
                       "tests/check_corpus/positives/half_model_trainer_default_eps.py:18 adamw-eps-fp16-underflow",
                       "tests/check_corpus/positives/lightning_unused_head.py:32 ddp-unused-parameters",
                       "tests/check_corpus/positives/recipe_fp16_load_default_eps.yaml:6 adamw-eps-fp16-underflow",
                       "tests/check_corpus/positives/recipe_fp16_load_fp16_true.yaml:5 grad-scaler-fp16-params",
                   }))
      << positives.out;

  fs::copy_file(kSource / "tests/check_corpus/positives/half_model_trainer_default_eps.py", dir_ / "train.py",
                fs::copy_options::overwrite_existing);  // the fixture project has a train.py of its own
  Result fixed = denpex({"check", "--apply", "train.py"}, dir_);
  EXPECT_EQ(fixed.code, 1) << fixed.err;
  EXPECT_TRUE(contains(fixed.err, "applied 1 edit to train.py")) << fixed.err;
  EXPECT_TRUE(contains(readAll(dir_ / "train.py"), "    num_train_epochs=1,\n    adam_epsilon=1e-5,\n)\n")) << readAll(dir_ / "train.py");
  EXPECT_EQ(bp::system(bp::search_path("python3"), "-m", "py_compile", (dir_ / "train.py").string()), 0);
  EXPECT_EQ(denpex({"check", "train.py"}, dir_).code, 0);

  // FlashAttention-2 over float32: the load switches to PyTorch's own attention, which compiles
  // and is checked clean.
  fs::copy_file(kSource / "tests/check_corpus/positives/flash_attention_float32_generate.py", dir_ / "generate.py");
  Result sdpa = denpex({"check", "--apply", "generate.py"}, dir_);
  EXPECT_TRUE(contains(sdpa.err, "applied 1 edit to generate.py")) << sdpa.err;
  EXPECT_TRUE(contains(readAll(dir_ / "generate.py"), "    attn_implementation=\"sdpa\",\n")) << readAll(dir_ / "generate.py");
  EXPECT_EQ(bp::system(bp::search_path("python3"), "-m", "py_compile", (dir_ / "generate.py").string()), 0);
  EXPECT_EQ(denpex({"check", "generate.py"}, dir_).code, 0);

  // The config the script names gets "auto" where it disagrees with TrainingArguments.
  fs::create_directories(dir_ / "belle");
  for (const char* f : {"finetune.py", "deepspeed_config.json"})
    fs::copy_file(kSource / "tests/check_corpus/positives/ds_trainer_mismatch" / f, dir_ / "belle" / f);
  Result ds = denpex({"check", "--apply", "belle/finetune.py"}, dir_);
  EXPECT_EQ(ds.code, 1) << ds.err;
  EXPECT_TRUE(contains(ds.err, "applied 1 edit to belle/deepspeed_config.json")) << ds.err;
  EXPECT_TRUE(contains(readAll(dir_ / "belle/deepspeed_config.json"), "  \"fp16\": {\n    \"enabled\": \"auto\"\n  },"));
  EXPECT_EQ(denpex({"check", "belle"}, dir_).code, 0);

  // Against a machine: a probe file captured elsewhere (a V100 container with an old driver), and
  // this machine probed now (whatever it has, the probe is JSON that check reads back).
  const std::string mixed = "tests/check_corpus/positives/bf16_dataloader_workers.py";
  Result v100 = denpex({"check", "--format", "json", "--probe", "tests/check_corpus/probes/v100-docker-driver-470.json", mixed}, kSource);
  EXPECT_EQ(v100.code, 1) << v100.err;
  std::vector<std::string> onV100;
  const auto v100Json = nlohmann::json::parse(v100.out);
  for (const auto& f : v100Json["findings"]) onV100.push_back(f["rule"].get<std::string>());
  EXPECT_EQ(onV100, (std::vector<std::string>{"bf16-unsupported-gpu", "dataloader-shm-exhausted", "cuda-driver-too-old"})) << v100.out;
  EXPECT_EQ(denpex({"check", "--probe", "tests/check_corpus/probes/a100-node.json", mixed}, kSource).code, 0);
  // A recipe asks for bf16 (alignment-handbook's zephyr SFT): fine on the A100 node, not on V100s.
  const std::string zephyr = "tests/check_corpus/working/alignment-handbook/recipes/zephyr-7b-beta/sft/config_full.yaml";
  Result recipeOnV100 = denpex({"check", "--probe", "tests/check_corpus/probes/v100-docker-driver-470.json", zephyr}, kSource);
  EXPECT_EQ(recipeOnV100.code, 1) << recipeOnV100.err;
  EXPECT_TRUE(contains(recipeOnV100.out, "config_full.yaml:4: error[bf16-unsupported-gpu]")) << recipeOnV100.out;
  EXPECT_EQ(denpex({"check", "--probe", "tests/check_corpus/probes/a100-node.json", zephyr}, kSource).code, 0);
  // An RTX 5090 under a torch wheel built with CUDA 11.8: no kernels for it, said at the import.
  Result blackwell = denpex({"check", "--probe", "tests/check_corpus/probes/rtx5090-torch-2.0.1-cu118.json", mixed}, kSource);
  EXPECT_EQ(blackwell.code, 1) << blackwell.err;
  EXPECT_TRUE(contains(blackwell.out, "no-kernel-image")) << blackwell.out;
  EXPECT_TRUE(contains(blackwell.out, "compute capability 12.0 needs CUDA 12.8 or newer")) << blackwell.out;
  // ZeRO++ keys against a node whose DeepSpeed predates them; nothing without the probe.
  const std::string zeropp = "tests/check_corpus/probes/zeropp_ds_config.json";
  Result ds095 = denpex({"check", "--probe", "tests/check_corpus/probes/a100-deepspeed-0.9.5.json", zeropp}, kSource);
  EXPECT_EQ(ds095.code, 1) << ds095.err;
  EXPECT_TRUE(contains(ds095.out, "zero_hpz_partition_size came with DeepSpeed 0.10.0; the machine's is 0.9.5")) << ds095.out;
  EXPECT_EQ(denpex({"check", zeropp}, kSource).code, 0);
  // A real machine's probe (recorded on an H200 node by examples/recording/gpu/record.py): bf16,
  // the workers' /dev/shm, the driver and torch's kernels all fit, and so does the working corpus.
  const std::string h200 = "tests/check_corpus/probes/h200-node-recorded.json";
  EXPECT_EQ(denpex({"check", "--probe", h200, mixed}, kSource).code, 0);
  EXPECT_EQ(denpex({"check", "--probe", h200, "tests/check_corpus/working"}, kSource).code, 0);
  // The working corpus fits an A100 node: nothing, with the probe as without.
  Result onA100 = denpex({"check", "--probe", "tests/check_corpus/probes/a100-node.json", "tests/check_corpus/working"}, kSource);
  EXPECT_EQ(onA100.code, 0) << onA100.out;
  Result probed = denpex({"probe", "--output", (dir_ / "here.json").string()});
  EXPECT_EQ(probed.code, 0) << probed.err;
  auto here = nlohmann::json::parse(readAll(dir_ / "here.json"));
  EXPECT_EQ(here["denpex_probe"], 1);
  EXPECT_TRUE(here["shm_bytes"].is_number_unsigned()) << here.dump();
  EXPECT_TRUE(here["container"].is_boolean());
  EXPECT_LE(denpex({"check", "--probe", (dir_ / "here.json").string(), mixed}, kSource).code, 1);
  Result bad = denpex({"check", "--probe", "tests/check_corpus/working/SOURCES.md", mixed}, kSource);
  EXPECT_EQ(bad.code, 2);
  EXPECT_TRUE(contains(bad.err, "tests/check_corpus/working/SOURCES.md: not a probe file (JSON object expected)")) << bad.err;

  // The DDP positive, recorded with real PyTorch on CPU (positives/recorded/record.sh): before
  // the fix the run fails with the very rule the check named; after it, it trains.
  Result before = denpex({"diagnose", "--format", "json", "tests/check_corpus/positives/recorded/ddp_unused_head.before.log"}, kSource);
  EXPECT_EQ(before.code, 1) << before.err;
  EXPECT_EQ(nlohmann::json::parse(before.out)["findings"][0]["rule"], "ddp-unused-parameters") << before.out;
  Result after = denpex({"diagnose", "tests/check_corpus/positives/recorded/ddp_unused_head.after.log"}, kSource);
  EXPECT_EQ(after.code, 0) << after.out;
  EXPECT_TRUE(contains(readAll(kSource / "tests/check_corpus/positives/recorded/ddp_unused_head.after.log"), "step 5 | loss"));

  // The seed positive, run on a GPU (examples/recording/gpu/record.py, an H200 with torch 2.11):
  // the loss is NaN at step 2; the script as `check --apply` writes it today is the one that
  // trained its 20 steps there.
  const fs::path gpu = kSource / "examples/recording/gpu/recorded";
  fs::copy_file(kSource / "tests/check_corpus/positives/half_model_adamw_default_eps.py", dir_ / "seed.py");
  Result seed = denpex({"check", "--apply", "seed.py"}, dir_);
  EXPECT_EQ(seed.code, 1) << seed.err;
  EXPECT_EQ(readAll(dir_ / "seed.py"), readAll(gpu / "half_model_adamw_default_eps.fixed.py"));
  EXPECT_EQ(denpex({"check", "seed.py"}, dir_).code, 0);
  EXPECT_TRUE(contains(readAll(gpu / "half_model_adamw_default_eps.before.log"), "FloatingPointError: loss is nan at step 2"));
  EXPECT_EQ(denpex({"diagnose", (gpu / "half_model_adamw_default_eps.after.log").string()}).code, 0);
  EXPECT_TRUE(contains(readAll(gpu / "half_model_adamw_default_eps.after.log"), "step 20 | loss"));
  // GradScaler over a .half() model: the failure as the GPU printed it is the rule the check
  // names; the fix drops the cast (autocast already computes in float16), and the script
  // compiles and is checked clean.
  Result scaled = denpex({"diagnose", "--format", "json", (gpu / "half_model_grad_scaler.before.log").string()});
  EXPECT_EQ(nlohmann::json::parse(scaled.out)["findings"][0]["rule"], "grad-scaler-fp16-params") << scaled.out;
  fs::copy_file(kSource / "tests/check_corpus/positives/half_model_grad_scaler.py", dir_ / "scaled.py");
  Result dropped = denpex({"check", "--apply", "scaled.py"}, dir_);
  EXPECT_TRUE(contains(dropped.err, "applied 1 edit to scaled.py")) << dropped.err;
  EXPECT_TRUE(contains(readAll(dir_ / "scaled.py"), "nn.Linear(64, 1)).cuda()\noptimizer")) << readAll(dir_ / "scaled.py");
  EXPECT_EQ(bp::system(bp::search_path("python3"), "-m", "py_compile", (dir_ / "scaled.py").string()), 0);
  EXPECT_EQ(denpex({"check", "scaled.py"}, dir_).code, 0);
}

// A log that names none of the user's files gets no edit, wherever look-alike calls are; the
// user names the files to fix with --source FILE.
TEST_F(ScratchProject, WithoutATracebackOnlyTheFilesTheUserNamesAreFixed) {
  fs::create_directories(dir_ / "src/pkg");
  const std::string setup = "from torch.optim import AdamW\n\n\ndef build(model):\n    return AdamW(\n        model.parameters(),\n"
                            "        lr=3e-4,  # peak\n        eps=1e-8,\n    )\n";
  const std::string ds = "{\n  \"fp16\": {\"enabled\": true},\n  \"optimizer\": {\n    \"type\": \"AdamW\",\n"
                         "    \"params\": {\"lr\": 3e-4}\n  }\n}\n";
  writeAll(dir_ / "src/pkg/optim_setup.py", setup);
  writeAll(dir_ / "src/ds_config.json", ds);
  fs::copy_file(kSource / "tests/rules/adamw-eps-fp16-underflow/match/pure-fp16-step2.log", dir_ / "run.log");
  Result searched = denpex({"diagnose", "--apply", "--source", "src", "run.log"}, dir_);
  EXPECT_EQ(searched.code, 1) << searched.err;
  EXPECT_FALSE(contains(searched.err, "applied")) << searched.err;
  EXPECT_EQ(readAll(dir_ / "src/pkg/optim_setup.py"), setup);
  EXPECT_EQ(readAll(dir_ / "src/ds_config.json"), ds);
  Result named = denpex({"diagnose", "--apply", "--source", "src/pkg/optim_setup.py", "--source", "src/ds_config.json", "run.log"}, dir_);
  EXPECT_EQ(named.code, 1) << named.err;
  EXPECT_TRUE(contains(readAll(dir_ / "src/pkg/optim_setup.py"), "        eps=1e-5,\n")) << named.out;
  auto config = nlohmann::json::parse(readAll(dir_ / "src/ds_config.json"));
  EXPECT_DOUBLE_EQ(config["optimizer"]["params"]["eps"].get<double>(), 1e-5);
  EXPECT_EQ(bp::system(bp::search_path("python3"), "-m", "py_compile", (dir_ / "src/pkg/optim_setup.py").string()), 0);
  EXPECT_TRUE(contains(named.out, "fix: Set eps=1e-5 in AdamW(...), was 1e-8 (optim_setup.py:5)")) << named.out;
}

// The repros of "untrusted logs and repositories never make denpex write where the user did not
// ask", each failing safely with a clear message.
class Untrusted : public denpex::test::ScratchDir {
 protected:
  // A repository whose .denpex/rules holds the AdamW rule with its value turned into code.
  void plantEvilRule(const std::string& extra = "") {
    std::string rule = readAll(kSource / "rules/optimizer/adamw-eps-fp16-underflow.yaml");
    size_t value = rule.find("    value: 1e-5\n");
    ASSERT_NE(value, std::string::npos);
    rule.replace(value, 16, "    value: '(__import__(\"os\").system(\"touch PWNED\") and 1e-5) or 1e-5'\n");
    writeAll(dir_ / ".denpex/rules/adamw-eps-fp16-underflow.yaml", rule + extra);
  }
};

TEST_F(Untrusted, ARepositorysRulesAreNotLoadedUnlessNamed) {
  plantEvilRule();
  Result r = denpex({"diagnose", "--apply", "train.log"}, dir_);
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "denpex: .denpex/rules was not loaded: rules from a repository are code; once you trust it, "
                              "pass --rules .denpex/rules")) << r.err;
  std::string edited = readAll(dir_ / "train.py");
  EXPECT_TRUE(contains(edited, "optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, eps=1e-5)\n")) << edited;
  EXPECT_FALSE(contains(edited, "__import__"));
  EXPECT_FALSE(fs::exists(dir_ / "PWNED"));
}

TEST_F(Untrusted, ANamedRuleFolderCannotTakeAShippedIdOrWriteCode) {
  // Named, but it takes a shipped rule's id without saying so: refused, the shipped rule runs.
  std::string copy = readAll(kSource / "rules/optimizer/adamw-eps-fp16-underflow.yaml");
  copy.replace(copy.find("title: AdamW epsilon underflow in FP16"), 38, "title: A look-alike");
  writeAll(dir_ / "team/adamw.yaml", copy);
  Result r = denpex({"diagnose", "--fix", "--rules", "team", "train.log"}, dir_);
  EXPECT_TRUE(contains(r.err, "rule id 'adamw-eps-fp16-underflow' is a shipped rule's: a user rule replaces it only when it "
                              "says so with 'overrides: adamw-eps-fp16-underflow'")) << r.err;
  EXPECT_FALSE(contains(r.out, "A look-alike")) << r.out;
  EXPECT_TRUE(contains(r.out, "fix: Set eps=1e-5 in torch.optim.AdamW(...) (train.py:40)")) << r.out;
  // Saying so does not let a value that is code through: the loader rejects it, lint reports it.
  plantEvilRule("overrides: adamw-eps-fp16-underflow\n");
  r = denpex({"diagnose", "--apply", "--rules", ".denpex/rules", "train.log"}, dir_);
  EXPECT_TRUE(contains(r.err, "is not a float literal (e.g. 1e-5)")) << r.err;
  EXPECT_FALSE(contains(readAll(dir_ / "train.py"), "__import__"));
  EXPECT_FALSE(fs::exists(dir_ / "PWNED"));
  Result lint = denpex({"rules", "lint", ".denpex/rules"}, dir_);
  EXPECT_EQ(lint.code, 1);
  EXPECT_TRUE(contains(lint.out, "is not a float literal (e.g. 1e-5)")) << lint.out;
}

TEST_F(Untrusted, AnOverrideIsSaidAndItsTitleIsWrittenFromItsEdit) {
  std::string rule = readAll(kSource / "rules/optimizer/adamw-eps-fp16-underflow.yaml");
  size_t value = rule.find("    value: 1e-5\n");
  rule.replace(value, 16, "    value: 1e-4\n");
  writeAll(dir_ / "team/adamw.yaml", rule + "overrides: adamw-eps-fp16-underflow\n");
  Result r = denpex({"diagnose", "--fix", "--rules", "team", "train.log"}, dir_);
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "denpex: using 1 rule from team\n")) << r.err;
  EXPECT_TRUE(contains(r.err, "denpex: shipped rule adamw-eps-fp16-underflow (by team/adamw.yaml) is overridden\n")) << r.err;
  EXPECT_TRUE(contains(r.out, "fix: Set eps=1e-4 in torch.optim.AdamW(...) (train.py:40)")) << r.out;
  EXPECT_TRUE(contains(r.out, "+optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, eps=1e-4)\n")) << r.out;
}

TEST_F(Untrusted, AFileOutsideTheProjectIsShownButNotWritten) {
  fs::path outside = fs::absolute(dir_.string() + "-outside");
  fs::create_directories(outside);
  fs::copy_file(dir_ / "train.py", outside / "train.py");
  const std::string original = readAll(outside / "train.py");
  // The traceback names the copy outside by its absolute path, and by a ../ path.
  std::string log = readAll(dir_ / "train.log");
  std::string absolute = log, relative = log;
  const std::string frame = "/home/user/project/examples/fp16-adamw/train.py";
  absolute.replace(absolute.find(frame), frame.size(), (outside / "train.py").string());
  relative.replace(relative.find(frame), frame.size(), "../" + outside.filename().string() + "/train.py");
  writeAll(dir_ / "abs.log", absolute);
  writeAll(dir_ / "rel.log", relative);
  for (const char* name : {"abs.log", "rel.log"}) {
    Result r = denpex({"diagnose", "--apply", name}, dir_);
    EXPECT_EQ(r.code, 2) << name << r.err;
    EXPECT_TRUE(contains(r.err, "is outside the project; not written (review the diff above, then pass --allow-outside to write it)"))
        << r.err;
    EXPECT_EQ(readAll(outside / "train.py"), original) << name;
    EXPECT_EQ(readAll(dir_ / "train.py"), readAll(kSource / "examples/fp16-adamw/train.py")) << name;
  }
  Result allowed = denpex({"diagnose", "--apply", "--allow-outside", "abs.log"}, dir_);
  EXPECT_EQ(allowed.code, 1) << allowed.err;
  EXPECT_TRUE(contains(readAll(outside / "train.py"), "lr=1e-3, eps=1e-5)")) << allowed.err;
  fs::remove_all(outside);
}

TEST_F(Untrusted, AnAmbiguousBaseNameIsNoEditWithTheCandidatesListed) {
  fs::create_directories(dir_ / "old_experiment");
  fs::create_directories(dir_ / "src");
  fs::rename(dir_ / "train.py", dir_ / "src/train.py");
  fs::copy_file(dir_ / "src/train.py", dir_ / "old_experiment/train.py");
  std::string log = readAll(dir_ / "train.log");
  const std::string frame = "/home/user/project/examples/fp16-adamw/train.py";
  log.replace(log.find(frame), frame.size(), "/cluster/home/u/train.py");
  writeAll(dir_ / "cluster.log", log);
  Result r = denpex({"diagnose", "--apply", "cluster.log"}, dir_);
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_TRUE(contains(r.out, "train.py could be any of old_experiment/train.py, src/train.py: not edited (name the file with "
                              "--source FILE)")) << r.out;
  EXPECT_EQ(readAll(dir_ / "src/train.py"), readAll(kSource / "examples/fp16-adamw/train.py"));
  EXPECT_EQ(readAll(dir_ / "old_experiment/train.py"), readAll(kSource / "examples/fp16-adamw/train.py"));
  Result chosen = denpex({"diagnose", "--apply", "--source", "src/train.py", "cluster.log"}, dir_);
  EXPECT_TRUE(contains(readAll(dir_ / "src/train.py"), "lr=1e-3, eps=1e-5)")) << chosen.out << chosen.err;
}

// The traceback's file is nowhere to be found: nothing is edited, however many look-alike calls
// the folder holds, and the report says which file it looked for.
TEST_F(Untrusted, AFrameFileThatIsNotFoundIsNoEditAnywhere) {
  fs::rename(dir_ / "train.py", dir_ / "renamed.py");
  writeAll(dir_ / "other.py", "import torch\nopt = torch.optim.Adam(params)\n");
  std::string log = readAll(dir_ / "train.log");
  const std::string frame = "/home/user/project/examples/fp16-adamw/train.py";
  log.replace(log.find(frame), frame.size(), "/cluster/u/missing_script.py");
  writeAll(dir_ / "missing.log", log);
  Result r = denpex({"diagnose", "--apply", "missing.log"}, dir_);
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_FALSE(contains(r.err, "applied")) << r.err;
  EXPECT_TRUE(contains(r.out, "/cluster/u/missing_script.py was not found in")) << r.out;
  EXPECT_EQ(readAll(dir_ / "other.py"), "import torch\nopt = torch.optim.Adam(params)\n");
  EXPECT_EQ(readAll(dir_ / "renamed.py"), readAll(kSource / "examples/fp16-adamw/train.py"));
}

TEST_F(Untrusted, CallsThatAreNotTorchsOptimizersAreNotEdited) {
  const std::string keras = "import tensorflow as tf\n\nopt = tf.keras.optimizers.Adam(learning_rate=1e-3)\n";
  const std::string own = "from mytools import Adam\n\nopt = Adam(3)\n";
  writeAll(dir_ / "keras_train.py", keras);
  writeAll(dir_ / "own.py", own);
  fs::copy_file(kSource / "tests/rules/adamw-eps-fp16-underflow/match/pure-fp16-step2.log", dir_ / "run.log");
  Result r = denpex({"diagnose", "--apply", "--source", "keras_train.py", "--source", "own.py", "run.log"}, dir_);
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_EQ(readAll(dir_ / "keras_train.py"), keras);
  EXPECT_EQ(readAll(dir_ / "own.py"), own);
  EXPECT_TRUE(contains(r.out, "tf.keras.optimizers.Adam(...) is tensorflow.keras.optimizers.Adam, not torch.optim.AdamW")) << r.out;
  EXPECT_TRUE(contains(r.out, "Adam(...) is mytools.Adam, not torch.optim.AdamW")) << r.out;
}

TEST(Cli, ExplainPrintsTheFullEntry) {
  Result r = denpex({"explain", "adamw-eps-fp16-underflow"});
  EXPECT_EQ(r.code, 0);
  for (const char* s : {"## What it is", "## What you observe", "## Symptoms and why they happen", "## Fingerprint",
                        "## Systems affected", "## How to confirm", "## Root cause", "## Mechanism", "## Fix",
                        "## Prevention", "## How to verify the fix", "## Related failures", "## References"})
    EXPECT_TRUE(contains(r.out, s)) << s;
  Result typo = denpex({"explain", "adamw-eps"});
  EXPECT_EQ(typo.code, 2);
  EXPECT_TRUE(contains(typo.err, "did you mean 'adamw-eps-fp16-underflow'")) << typo.err;
}

TEST(Cli, RulesListLintAndTestTheShippedRules) {
  Result list = denpex({"rules", "list"});
  EXPECT_EQ(list.code, 0);
  EXPECT_TRUE(contains(list.out, "adamw-eps-fp16-underflow"));
  Result lint = denpex({"rules", "lint", "rules"});
  EXPECT_EQ(lint.code, 0) << lint.out;
  Result test = denpex({"rules", "test", "rules", "--examples", "tests/rules"});
  EXPECT_EQ(test.code, 0) << test.out;
  EXPECT_TRUE(contains(test.out, "Missing: 0  Noisy: 0")) << test.out;
}

TEST_F(ScratchProject, RunPassesOutputThroughAndDiagnosesAFailure) {
  writeAll(dir_ / "fail.py",
           "import sys\nprint('step 1 | loss 0.5', flush=True)\nprint('\\x1b[33mwarning\\x1b[0m', file=sys.stderr)\n"
           "raise RuntimeError('CUDA out of memory. Tried to allocate 2.00 MiB')\n");
  Result r = denpex({"run", "--log", (dir_ / "run.log").string(), "--", "python3", "fail.py"}, dir_);
  EXPECT_EQ(r.code, 1) << "the command's exit status";
  EXPECT_TRUE(contains(r.out, "step 1 | loss 0.5\n")) << r.out;
  EXPECT_TRUE(contains(r.err, "\x1b[33mwarning\x1b[0m")) << "colours pass through unchanged";
  EXPECT_TRUE(contains(r.err, "the command exited with status 1; the log is kept in")) << r.err;
  EXPECT_TRUE(contains(r.out, "error[cuda-out-of-memory]")) << r.out;
  std::string log = readAll(dir_ / "run.log");
  EXPECT_TRUE(contains(log, "step 1 | loss 0.5\n"));
  EXPECT_TRUE(contains(log, "RuntimeError: CUDA out of memory"));
}

TEST_F(ScratchProject, RunKeepsTheStatusAndRemovesItsLogOnSuccess) {
  Result ok = denpex({"run", "--", "python3", "-c", "print('fine')"}, dir_);
  EXPECT_EQ(ok.code, 0);
  EXPECT_EQ(ok.out, "fine\n");
  Result three = denpex({"run", "--", "sh", "-c", "exit 3"}, dir_);
  EXPECT_EQ(three.code, 3);
  Result killed = denpex({"run", "--", "sh", "-c", "kill -9 $$"}, dir_);
  EXPECT_EQ(killed.code, 137);
  Result interrupted = denpex({"run", "--log", (dir_ / "i.log").string(), "--", "sh", "-c", "echo started; kill -INT $$"}, dir_);
  EXPECT_EQ(interrupted.code, 130);
  EXPECT_TRUE(contains(interrupted.err, "the command was interrupted; the log is kept in")) << interrupted.err;
  EXPECT_FALSE(contains(interrupted.out, "finding")) << "no diagnosis after Ctrl-C";
  Result missing = denpex({"run", "--", "no-such-command-xyz"}, dir_);
  EXPECT_EQ(missing.code, 127);
  EXPECT_TRUE(contains(missing.err, "cannot start 'no-such-command-xyz': command not found"));
  Result none = denpex({"run"}, dir_);
  EXPECT_EQ(none.code, 2);
}

// `denpex run` and signals: what it is sent goes to the command's whole process group, a
// command that ignores it is killed after the grace period, processes the command left behind
// do not keep denpex waiting, and a signal in its first milliseconds orphans nothing.
namespace {

// Starts `denpex run ARGS` in the background; returns the child and its stderr.
struct Background {
  boost::asio::io_context io;
  std::future<std::string> err;
  std::unique_ptr<bp::child> child;
  Background(const std::vector<std::string>& args, const fs::path& cwd) {
    child = std::make_unique<bp::child>(DENPEX_BINARY, bp::args(args), bp::std_out > bp::null, bp::std_err > err,
                                        bp::start_dir(cwd.string()), io);
  }
  int finish() {
    io.run();
    child->wait();
    return child->exit_code();
  }
};

bool processAlive(const std::string& marker) {
  return bp::system(bp::search_path("pgrep"), "-f", marker, bp::std_out > bp::null) == 0;
}

// Waits until a process whose command line holds `marker` is running (`alive`) or gone, for at
// most `limit`: the test signals only once the command is really there, whatever the machine's
// load (a fixed sleep raced the shell's `trap` on a busy machine).
bool waitForProcess(const std::string& marker, bool alive, std::chrono::milliseconds limit = std::chrono::seconds(10)) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (processAlive(marker) != alive) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return true;
}

}  // namespace

TEST_F(ScratchProject, RunPassesSignalsToTheWholeGroupAndKillsAfterTheGrace) {
  // SIGTERM sent to denpex's own pid reaches the command and its worker (a background job of a
  // shell script, which ignores SIGINT by POSIX's rule).
  writeAll(dir_ / "workers.sh", "sleep 41.5 &\nwait\n");
  Background terminated({"run", "--", "sh", "workers.sh"}, dir_);
  ASSERT_TRUE(waitForProcess("sleep 41.5", true));
  ::kill(terminated.child->id(), SIGTERM);
  EXPECT_EQ(terminated.finish(), 143);
  EXPECT_TRUE(waitForProcess("sleep 41.5", false, std::chrono::seconds(5))) << "the worker got the signal too";
  // SIGINT sent to denpex's own pid (no terminal here) interrupts the command.
  Background interrupted({"run", "--", "python3", "-c", "import time; time.sleep(41.25)"}, dir_);
  ASSERT_TRUE(waitForProcess("^[^ ]*python[0-9.]* -c .*41\\.25", true));  // the interpreter (its argv[0]), not denpex
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // past the interpreter's start-up
  ::kill(interrupted.child->id(), SIGINT);
  EXPECT_EQ(interrupted.finish(), 130);
  EXPECT_TRUE(contains(interrupted.err.get(), "the command was interrupted"));
  // A command that ignores SIGTERM is killed once the grace is over.
  writeAll(dir_ / "stubborn.sh", "trap '' TERM\necho started\nsleep 42.5\n");
  Background stubborn({"run", "--grace", "0.5", "--", "sh", "stubborn.sh"}, dir_);
  ASSERT_TRUE(waitForProcess("sleep 42.5", true));  // started after the trap is set
  auto sent = std::chrono::steady_clock::now();
  ::kill(stubborn.child->id(), SIGTERM);
  EXPECT_EQ(stubborn.finish(), 137);
  EXPECT_LT(std::chrono::steady_clock::now() - sent, std::chrono::seconds(5));
  EXPECT_TRUE(contains(stubborn.err.get(), "the command did not stop within 0.5 s of the signal; killing it"));
  EXPECT_TRUE(waitForProcess("sleep 42.5", false, std::chrono::seconds(5))) << "the kill reached the whole group";
}

TEST_F(ScratchProject, RunDoesNotWaitForWhatTheCommandLeftBehind) {
  auto start = std::chrono::steady_clock::now();
  Result r = denpex({"run", "--", "sh", "-c", "sleep 43.5 & echo left; exit 3"}, dir_);
  EXPECT_EQ(r.code, 3);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  EXPECT_TRUE(contains(r.out, "left\n")) << r.out;
  bp::system(bp::search_path("pkill"), "-f", "sleep 43.5");
}

TEST_F(ScratchProject, ASignalInRunsFirstMillisecondsOrphansNothing) {
  // Signalled at once, again and again: the command never outlives denpex, and a temp log is
  // either removed or named.
  fs::path tmp = fs::temp_directory_path();
  std::set<std::string> before;
  for (const auto& e : fs::directory_iterator(tmp))
    if (e.path().filename().string().rfind("denpex-run-", 0) == 0) before.insert(e.path().string());
  for (int i = 0; i < 10; ++i) {
    Background early({"run", "--", "sleep", "44.5"}, dir_);
    ::kill(early.child->id(), SIGTERM);
    early.finish();
    std::string err = early.err.get();
    for (const auto& e : fs::directory_iterator(tmp)) {
      std::string p = e.path().string();
      if (e.path().filename().string().rfind("denpex-run-", 0) != 0 || before.count(p)) continue;
      EXPECT_TRUE(contains(err, p)) << "a temp log nobody was told of: " << p;
      before.insert(p);
    }
  }
  // A killed process leaves the process table when the kernel gets to it: waited for, not slept for.
  EXPECT_TRUE(waitForProcess("sleep 44.5", false, std::chrono::seconds(5))) << "a command outlived denpex";
}

TEST_F(ScratchProject, FoldersOfPerRankLogs) {
  // torchrun --log_dir layout: rank 2 raised; the others lost their peer.
  for (int r = 0; r < 4; ++r) {
    fs::path d = dir_ / "logs/run/attempt_0" / std::to_string(r);
    writeAll(d / "stdout.log", "step 1 | loss 0.5\n");
    std::string err = r == 2 ? "Traceback (most recent call last):\n  File \"/w/train.py\", line 9, in <module>\n"
                               "ValueError: bad batch at step 3\n"
                             : "Traceback (most recent call last):\n  File \"/w/train.py\", line 7, in <module>\n"
                               "RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:598] Connection closed by peer [127.0.0.1]:4242\n";
    writeAll(d / "stderr.log", err);
  }
  Result r = denpex({"diagnose", "--format", "json", "logs"}, dir_);
  EXPECT_EQ(r.code, 1) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["sources"].size(), 8u);
  EXPECT_EQ(j["incident"]["initiating_rank"], 2) << j["incident"].dump(2);
  ASSERT_EQ(j["incident"]["ranks"].size(), 4u);
  for (const auto& rr : j["incident"]["ranks"])
    EXPECT_EQ(rr["role"], rr["rank"] == 2 ? "initiator" : "collateral") << rr.dump();
  EXPECT_EQ(j["findings"][0]["initiating"], true);
  EXPECT_EQ(j["findings"][0]["exception"]["type"], "ValueError");
}

// The recorded torchrun runs (tests/distributed/*, made by examples/distributed/record.py):
// the initiating rank and every rank's role must match what the scripts did.
TEST(Cli, RecordedDistributedRuns) {
  int scenarios = 0, torchrunRight = 0;
  for (const auto& entry : fs::directory_iterator(kSource / "tests/distributed")) {
    if (!fs::exists(entry.path() / "expected.json")) continue;
    ++scenarios;
    SCOPED_TRACE(entry.path().filename().string());
    auto expected = nlohmann::json::parse(readAll(entry.path() / "expected.json"));
    fs::path input = fs::exists(entry.path() / "logs") ? entry.path() / "logs" : entry.path() / "torchrun.log";
    Result r = denpex({"diagnose", "--format", "json", fs::relative(input, kSource).string()});
    ASSERT_EQ(r.code, 1) << r.err;
    auto j = nlohmann::json::parse(r.out);
    const auto& inc = j["incident"];
    ASSERT_TRUE(inc.is_object());
    if (entry.path().filename() == "raise-plain") {
      // No rank prefixes: the rank cannot be named, but the initiating failure can.
      EXPECT_TRUE(inc["initiating_rank"].is_null());
      EXPECT_EQ(j["findings"][0]["initiating"], true);
      EXPECT_EQ(j["findings"][0]["exception"]["type"], "IndexError");
      continue;
    }
    EXPECT_EQ(inc["initiating_rank"], expected["initiating_rank"]) << inc.dump(2);
    for (const auto& rr : inc["ranks"]) {
      bool collateral = std::find(expected["collateral_ranks"].begin(), expected["collateral_ranks"].end(), rr["rank"]) !=
                        expected["collateral_ranks"].end();
      EXPECT_EQ(rr["role"], collateral ? "collateral" : "initiator") << rr.dump();
    }
    EXPECT_EQ(inc["ranks"].size(), expected["world_size"].get<size_t>());
    if (input.filename() == "torchrun.log") {
      EXPECT_EQ(inc["launcher_root_cause_rank"], expected["torchrun_root_cause_rank"]);
      if (expected["torchrun_root_cause_rank"] != expected["initiating_rank"]) {
        // torchrun named a collateral rank: denpex says so.
        std::string from = "followed from rank " + std::to_string(expected["initiating_rank"].get<int>());
        EXPECT_NE(inc["launcher_note"].get<std::string>().find(from), std::string::npos) << inc.dump(2);
      } else {
        // torchrun was right: nothing to correct.
        EXPECT_TRUE(inc["launcher_note"].is_null()) << inc.dump(2);
        ++torchrunRight;
      }
    }
  }
  EXPECT_EQ(scenarios, 14);
  EXPECT_EQ(torchrunRight, 1) << "one recording where torchrun names the right rank (raise-rank0-tee)";
  Result text = denpex({"diagnose", "tests/distributed/kill-tee/torchrun.log"});
  EXPECT_TRUE(contains(text.out, "Incident: rank 2 failed first")) << text.out;
  EXPECT_TRUE(contains(text.out, "error[host-oom-killed]")) << text.out;
}

// The seed failure recorded on 4 ranks (seed_worker.py): rank 0 printed the dtype and the
// optimizer once, rank 2's loss turned NaN at step 301, ranks 0, 1 and 3 lost their connection.
// In one stream (--tee) and in torchrun's per-rank files (--log_dir), the epsilon rule comes
// first, for rank 2, with rank 0's configuration lines as evidence.
TEST(Cli, TheRecordedMultiRankSeedFailureLeadsWithTheEpsilonRule) {
  for (const char* input : {"tests/distributed/seed-tee/torchrun.log", "tests/distributed/seed-logdir/logs"}) {
    SCOPED_TRACE(input);
    Result r = denpex({"diagnose", "--format", "json", input});
    ASSERT_EQ(r.code, 1) << r.err;
    auto j = nlohmann::json::parse(r.out);
    const auto& f = j["findings"][0];
    EXPECT_EQ(f["rule"], "adamw-eps-fp16-underflow");
    EXPECT_EQ(f["role"], "root");
    EXPECT_EQ(f["initiating"], true);
    EXPECT_EQ(f["ranks"], nlohmann::json::array({2}));
    EXPECT_EQ(f["step"], 301);
    EXPECT_EQ(j["findings"][1]["rule"], "nan-loss");
    EXPECT_EQ(j["incident"]["initiating_rank"], 2);
    // (In the one stream, rank 2's NaN step line comes after its traceback, torchrun copying
    // each rank's stdout and stderr apart: "loss is nan" in the exception is the first NaN, and
    // that line is shown once.)
    std::map<std::string, int> rankOf;
    for (const auto& e : f["evidence"]) rankOf[e["signal"]] = e["rank"];
    std::map<std::string, int> expected{{"loss_nan", 2}, {"grad_stable", 2}, {"eps_tiny", 0}, {"fp16", 0}};
    if (rankOf.count("raised")) expected["raised"] = 2;
    EXPECT_EQ(rankOf, expected) << f["evidence"].dump(1);
    EXPECT_EQ(f["user_frame"]["file"], "/home/user/project/examples/distributed/seed_worker.py");
    EXPECT_EQ(f["user_frame"]["line"], 107);
    // SARIF lists the results in the same order.
    auto sarif = nlohmann::json::parse(denpex({"diagnose", "--format", "sarif", input}).out);
    std::vector<std::string> ruleIds;
    for (const auto& result : sarif["runs"][0]["results"]) ruleIds.push_back(result["ruleId"]);
    std::vector<std::string> want{"adamw-eps-fp16-underflow", "nan-loss", "gloo-connection-closed"};
    if (contains(input, "torchrun.log")) want.push_back("torchrun-child-failed");  // its summary is on the console only
    EXPECT_EQ(ruleIds, want);
  }
}

class UserRules : public ScratchProject {};

// An examples folder named after no rule (a typo, a renamed rule) would never run: lint says so.
TEST_F(UserRules, LintFlagsExampleFoldersThatNameNoRule) {
  writeAll(dir_ / "rules/good-rule.yaml",
           "id: good-rule\ntitle: Good\ncategory: test\nsummary: s\nroot_cause: r\nfix: f\nverify: v\nconfirm: [c]\n"
           "signals:\n  s: 'disk quota exceeded'\ncondition: s\n"
           "examples:\n  match: ['OSError: disk quota exceeded', 'x disk quota exceeded']\n"
           "  no_match: ['disk ok', 'quota ok']\n");
  writeAll(dir_ / "examples/good-rule/match/a.log", "OSError: disk quota exceeded\n");
  Result clean = denpex({"rules", "lint", "rules", "--examples", "examples"}, dir_);
  EXPECT_EQ(clean.code, 0) << clean.out;
  writeAll(dir_ / "examples/good-rul/match/a.log", "OSError: disk quota exceeded\n");
  writeAll(dir_ / "examples/good-rule/matches/b.log", "OSError: disk quota exceeded\n");
  Result lint = denpex({"rules", "lint", "rules", "--examples", "examples"}, dir_);
  EXPECT_EQ(lint.code, 1) << lint.out;
  EXPECT_TRUE(contains(lint.out, "examples/good-rul: folder 'good-rul' matches no rule id")) << lint.out;
  EXPECT_TRUE(contains(lint.out, "examples/good-rule/matches: 'matches' is not part of a rule's examples")) << lint.out;
}

TEST_F(UserRules, LintReportsEachBadFileWithItsLineAndKeepsTheRest) {
  writeAll(dir_ / "rules/good-rule.yaml",
           "id: good-rule\ntitle: Good\ncategory: test\nsummary: s\nroot_cause: r\nfix: f\nverify: v\nconfirm: [c]\n"
           "signals:\n  s: 'disk quota exceeded'\ncondition: s\n"
           "examples:\n  match: ['OSError: disk quota exceeded', 'x disk quota exceeded']\n"
           "  no_match: ['disk ok', 'quota ok']\n");
  writeAll(dir_ / "rules/bad-yaml.yaml", "id: bad-yaml\ntitle: [unclosed\n");
  writeAll(dir_ / "rules/bad-field.yaml", "id: bad-field\ntitle: t\ncategory: c\nsummary: s\nflavour: x\n");
  writeAll(dir_ / "rules/bad-regex.yaml",
           "id: bad-regex\ntitle: t\ncategory: c\nsummary: s\nsignals:\n  s: '(?<x'\ncondition: s\n");
  writeAll(dir_ / "rules/no-examples.yaml",
           "id: no-examples\ntitle: t\ncategory: c\nsummary: s\nroot_cause: r\nfix: f\nverify: v\nconfirm: [c]\n"
           "signals:\n  s: 'x'\ncondition: s\n");
  Result lint = denpex({"rules", "lint", "rules"}, dir_);
  EXPECT_EQ(lint.code, 1);
  EXPECT_TRUE(contains(lint.out, "bad-yaml.yaml:")) << lint.out;
  EXPECT_TRUE(contains(lint.out, "YAML syntax"));
  EXPECT_TRUE(contains(lint.out, "bad-field.yaml:5: unknown field 'flavour'")) << lint.out;
  EXPECT_TRUE(contains(lint.out, "bad-regex.yaml:6: signal 's': invalid regex")) << lint.out;
  EXPECT_TRUE(contains(lint.out, "no-examples.yaml: rule 'no-examples': needs at least 2 examples that must match"));
  Result list = denpex({"rules", "list", "rules"}, dir_);
  EXPECT_TRUE(contains(list.out, "good-rule"));
  EXPECT_TRUE(contains(list.out, "no-examples"));
  Result test = denpex({"rules", "test", "rules", "--rule", "good-rule"}, dir_);
  EXPECT_TRUE(contains(test.out, "ok    good-rule (2 match, 2 no_match)")) << test.out;
  EXPECT_TRUE(contains(test.out, "Validated: 4  Missing: 0  Noisy: 0")) << test.out;
}

TEST_F(UserRules, ExampleFilesBesideTheRulesAreTestedAndFailuresReported) {
  writeAll(dir_ / "rules/quota.yaml",
           "id: quota\ntitle: Quota\ncategory: test\nsummary: s\nsignals:\n  s: 'disk quota exceeded'\ncondition: s\n");
  writeAll(dir_ / "rules/quota/match/a.log", "OSError: [Errno 122] Disk quota exceeded\n");  // wrong case: Missing
  writeAll(dir_ / "rules/quota/match/b.log", "disk quota exceeded\n");
  writeAll(dir_ / "rules/quota/no_match/c.log", "disk quota exceeded, sadly\n");  // Noisy
  writeAll(dir_ / "rules/quota/no_match/d.log", "fine\n");
  Result test = denpex({"rules", "test", "rules"}, dir_);
  EXPECT_EQ(test.code, 1);
  EXPECT_TRUE(contains(test.out, "FAIL  quota")) << test.out;
  EXPECT_TRUE(contains(test.out, "Validated: 2  Missing: 1  Noisy: 1")) << test.out;
}

// A log with a secret of each kind on its evidence lines: no output format repeats one.
TEST_F(Untrusted, SecretsAreMaskedInEveryOutput) {
  const std::vector<std::string> secrets = {"AbCdEfGhIjKlMnOpQrStUvWxYz0123456789", "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKL",
                                            "IOSFODNN7EXAMPLE", "0123456789abcdef0123456789abcdef01234567",
                                            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig", "s3cr3t-Pa55"};
  writeAll(dir_ / "leaky.log",
           "Traceback (most recent call last):\n"
           "  File \"upload.py\", line 3, in <module>\n"
           "RuntimeError: upload failed: hf_" + secrets[0] + " sk-" + secrets[1] + " AKIA" + secrets[2] +
               " WANDB_API_KEY=" + secrets[3] + " Authorization: Bearer " + secrets[4] + " https://alice:" + secrets[5] +
               "@hub.example.com/x\n");
  for (const char* format : {"text", "json", "markdown", "sarif"}) {
    Result r = denpex({"diagnose", "--format", format, "leaky.log"}, dir_);
    EXPECT_EQ(r.code, 1) << format << r.err;
    EXPECT_TRUE(contains(r.out, "hf_****")) << format << "\n" << r.out;
    for (const auto& secret : secrets) EXPECT_FALSE(contains(r.out + r.err, secret)) << format << ": " << secret << "\n" << r.out;
  }
}

// Markdown output carries nothing from the log that a Markdown viewer would act on: no HTML, no
// link, no autolink, no break out of a code span.
TEST_F(Untrusted, MarkdownOutputEscapesWhatTheLogSays) {
  writeAll(dir_ / "html.log",
           "Traceback (most recent call last):\n"
           "  File \"x.py\", line 3, in <module>\n"
           "RuntimeError: <img src=x onerror=alert(1)> see [the fix](https://evil.example/a) or https://evil.example/b `` ` ``\n");
  Result r = denpex({"diagnose", "--format", "markdown", "html.log"}, dir_);
  EXPECT_EQ(r.code, 1) << r.err;
  // The heading's exception is a code span whose fence is longer than the backtick runs inside.
  EXPECT_TRUE(contains(r.out, "## 1. Unrecognized failure: ``` RuntimeError: <img src=x onerror=alert(1)> see [the fix](https://evil.example/a) "
                              "or https://evil.example/b `` ` `` ```\n")) << r.out;
  // Outside code spans, nothing of it is left bare.
  std::string outside;
  for (size_t i = 0; i < r.out.size();) {
    size_t run = 0;
    while (i + run < r.out.size() && r.out[i + run] == '`') ++run;
    if (run > 0) {
      // A code span or fence closes with a run of the same length.
      size_t close = r.out.find(std::string(run, '`'), i + run);
      while (close != std::string::npos && close + run < r.out.size() && r.out[close + run] == '`') close = r.out.find(std::string(run, '`'), close + run + 1);
      i = close == std::string::npos ? r.out.size() : close + run;
      continue;
    }
    outside += r.out[i++];
  }
  EXPECT_FALSE(contains(outside, "<img")) << outside;
  EXPECT_FALSE(contains(outside, "](https")) << outside;
  EXPECT_FALSE(contains(outside, "https://evil")) << outside;
}

TEST_F(UserRules, RulesOptionOverridesAShippedRuleOnlyWhenItSaysSo) {
  const std::string rule = "id: cuda-out-of-memory\ntitle: Our own OOM rule\ncategory: memory\nsummary: s\n"
                           "signals:\n  s: 'CUDA out of memory'\ncondition: s\n";
  writeAll(dir_ / "mine/cuda-out-of-memory.yaml", rule);
  writeAll(dir_ / "oom.log", "RuntimeError: CUDA out of memory. Tried to allocate 2.00 MiB\n");
  Result silent = denpex({"diagnose", "--rules", "mine", "oom.log"}, dir_);
  EXPECT_EQ(silent.code, 1);
  EXPECT_TRUE(contains(silent.err, "is a shipped rule's: a user rule replaces it only when it says so")) << silent.err;
  EXPECT_FALSE(contains(silent.out, "Our own OOM rule")) << silent.out;
  writeAll(dir_ / "mine/cuda-out-of-memory.yaml", rule + "overrides: cuda-out-of-memory\n");
  Result r = denpex({"diagnose", "--rules", "mine", "oom.log"}, dir_);
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(contains(r.out, "[cuda-out-of-memory] Our own OOM rule")) << r.out;
  EXPECT_TRUE(contains(r.err, "denpex: shipped rule cuda-out-of-memory (by mine/cuda-out-of-memory.yaml) is overridden")) << r.err;
}

// A pattern that makes RE2's DFA give up slows every diagnosis: lint names it, with figures.
TEST_F(UserRules, LintWarnsAboutAPatternThatScansSlowly) {
  writeAll(dir_ / "team/dfa-hostile.yaml", "id: dfa-hostile\ntitle: Hostile\ncategory: test\nsummary: s\n"
                                         "signals:\n  slow: '[ab]*a[ab]{20}z'\n  fine: 'CUDA error: (?P<what>.*)'\ncondition: slow or fine\n");
  Result lint = denpex({"rules", "lint", "team"}, dir_);
  EXPECT_TRUE(contains(lint.out, "team/dfa-hostile.yaml: warning: rule 'dfa-hostile': signal 'slow' scans slowly (")) << lint.out;
  EXPECT_FALSE(contains(lint.out, "signal 'fine' scans slowly")) << lint.out;
  EXPECT_TRUE(contains(lint.out, "1 warning")) << lint.out;
}

// Two files of one folder claiming one id: which one wins would depend on file order, so the
// second is an error for lint and for every command that loads the folder.
TEST_F(UserRules, DuplicateIdsAreLintErrorsAndLoadErrors) {
  const std::string rule = "title: Disk quota\ncategory: storage\nsummary: s\nsignals:\n  s: 'disk quota exceeded'\ncondition: s\n";
  writeAll(dir_ / "team/a/disk-quota.yaml", "id: disk-quota\n" + rule);
  writeAll(dir_ / "team/b/disk-quota.yaml", "id: disk-quota\n" + rule);
  Result lint = denpex({"rules", "lint", "team"}, dir_);
  EXPECT_EQ(lint.code, 1);
  EXPECT_TRUE(contains(lint.out, "team/b/disk-quota.yaml: duplicate rule id 'disk-quota' (also defined in team/a/disk-quota.yaml)"))
      << lint.out;
  writeAll(dir_ / "quota.log", "OSError: [Errno 122] disk quota exceeded\n");
  Result r = denpex({"diagnose", "--rules", "team", "quota.log"}, dir_);
  EXPECT_TRUE(contains(r.err, "rule error: team/b/disk-quota.yaml: duplicate rule id 'disk-quota'")) << r.err;
  EXPECT_TRUE(contains(r.out, "[disk-quota] Disk quota")) << r.out;  // the first file still loads
}

}  // namespace
