// The diagnoser over whole logs: rule conditions, metric fingerprints, ordering, grouping.
#include "core/analyze/diagnoser.h"
#include "core/parse/launcher.h"
#include "core/parse/timestamp.h"

#include <gtest/gtest.h>

namespace denpex::core {
namespace {

class DiagnoserTest : public ::testing::Test {
 protected:
  DiagnoserTest() {
    auto errors = rules_.add(builtinRuleSources());
    EXPECT_TRUE(errors.empty());
    matcher_ = std::make_unique<Matcher>(rules_);
  }
  Diagnosis run(const std::string& text) { return diagnoseText(rules_, *matcher_, text, "t.log"); }
  // The findings that are not symptoms (a NaN loss is reported as a symptom after its cause).
  std::vector<std::string> ids(const Diagnosis& d) {
    std::vector<std::string> out;
    for (size_t i = 0; i < d.findings.size(); ++i)
      if (d.role(i) != Role::kSymptom) out.push_back(d.findings[i].rule->id);
    return out;
  }
  RuleSet rules_;
  std::unique_ptr<Matcher> matcher_;
};

const char* kFp16Header =
    "AdamW (\nParameter Group 0\n    eps: 1e-08\n    lr: 0.001\n)\nparam dtype: torch.float16\n";

TEST_F(DiagnoserTest, Fp16NanAtStepTwoIsEpsUnderflow) {
  auto d = run(std::string(kFp16Header) +
               "step 1 | loss 0.68 | grad_norm 1.98 | lr 1.0e-03\n"
               "step 2 | loss nan | grad_norm nan | lr 1.0e-03\n");
  ASSERT_EQ(ids(d), std::vector<std::string>{"adamw-eps-fp16-underflow"});
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.evidence.front().line, 7u);  // the NaN line anchors the finding
  ASSERT_TRUE(f.step);
  EXPECT_EQ(*f.step, 2);
  ASSERT_FALSE(f.observed.empty());
  EXPECT_NE(f.observed[0].find("loss became nan at step 2"), std::string::npos);
  EXPECT_EQ(f.captures.at("eps"), "1e-08");
}

// A DataLoader's clean-up assertion that Python printed under "Exception ignored in:" is no
// failure of the run (training went on); an exception that did end it is still reported.
TEST_F(DiagnoserTest, AnExceptionPythonIgnoredIsNoFailure) {
  const std::string ignored =
      "100%|##########| 999/1000 [6:35:47<00:21, 21.14s/it]\n"
      "Exception ignored in: <function _MultiProcessingDataLoaderIter.__del__ at 0x7f6d5cf914c0>\n"
      "Traceback (most recent call last):\n"
      "  File \"/usr/lib/python3/dist-packages/torch/utils/data/dataloader.py\", line 1101, in __del__\n"
      "    self._shutdown_workers()\n"
      "AssertionError: can only test a child process\n";
  EXPECT_TRUE(run(ignored).findings.empty());
  Diagnosis d = run(ignored +
                    "Traceback (most recent call last):\n  File \"train.py\", line 9, in <module>\n"
                    "KeyError: 'labels'\n");
  ASSERT_EQ(ids(d), std::vector<std::string>{"unrecognized-exception"});
  EXPECT_EQ(d.findings[0].exceptionType, "KeyError");
}

// xFormers logs the ImportError of its optional Triton kernels, traceback and all, under a
// warning, and goes on: no failure. A real failure further down still is one.
TEST_F(DiagnoserTest, ATracebackALibraryLogsUnderItsNoticeIsNoFailure) {
  const std::string logged =
      "WARNING  A matching Triton is not available, some optimizations will not be enabled   __init__.py:61\n"
      "Traceback (most recent call last):\n"
      "  File \"C:\\venv\\Lib\\site-packages\\xformers\\__init__.py\", line 57, in _is_triton_available\n"
      "    import triton  # noqa\n"
      "ModuleNotFoundError: No module named 'triton'\n";
  EXPECT_TRUE(run(logged).findings.empty());
  Diagnosis d = run(logged + "steps:   3%|3         | 30/1000 [00:41<22:10,  1.37s/it]\n"
                             "1\n2\n3\n4\n5\n6\n7\n8\n"
                             "Traceback (most recent call last):\n  File \"train.py\", line 9, in <module>\n"
                             "KeyError: 'labels'\n");
  ASSERT_EQ(ids(d), std::vector<std::string>{"unrecognized-exception"});
  EXPECT_EQ(d.findings[0].exceptionType, "KeyError");
}

// What an exit handler raised once the program had finished (a TemporaryDirectory's clean-up
// through weakref.finalize, an atexit callback) is reported by Python and changes nothing: no
// failure. An exception raised by the program before it still is one.
TEST_F(DiagnoserTest, ATracebackRaisedAtExitIsNoFailure) {
  const std::string atExit =
      "[INFO:swift] End time of running main: 2025-03-23 09:29:36.599759\n"
      "Traceback (most recent call last):\n"
      "  File \"/usr/local/lib/python3.10/weakref.py\", line 667, in _exitfunc\n"
      "    f()\n"
      "  File \"/usr/local/lib/python3.10/tempfile.py\", line 868, in _cleanup\n"
      "    cls._rmtree(name, ignore_errors=ignore_errors)\n"
      "OSError: [Errno 39] Directory not empty: '/tmp/hf_datasets-7bhpwpa5'\n";
  EXPECT_TRUE(run(atExit).findings.empty());
  const std::string callback =
      "Error in atexit._run_exitfuncs:\n"
      "Traceback (most recent call last):\n"
      "  File \"/home/user/proj/logger.py\", line 40, in close\n"
      "    self.sock.close()\n"
      "BrokenPipeError: [Errno 32] Broken pipe\n";
  EXPECT_TRUE(run(callback).findings.empty());
  Diagnosis d = run("Traceback (most recent call last):\n  File \"train.py\", line 9, in <module>\n"
                    "KeyError: 'labels'\n" + atExit);
  ASSERT_EQ(ids(d), std::vector<std::string>{"unrecognized-exception"});
  EXPECT_EQ(d.findings[0].exceptionType, "KeyError");
}

TEST_F(DiagnoserTest, SymptomsComeAfterTheirRootCause) {
  auto d = run(std::string(kFp16Header) + "step 1 | loss 0.68 | grad_norm 1.98\nstep 2 | loss nan | grad_norm nan\n");
  ASSERT_EQ(d.findings.size(), 2u);
  EXPECT_EQ(d.findings[0].rule->id, "adamw-eps-fp16-underflow");
  EXPECT_EQ(d.findings[1].rule->id, "nan-loss");
  bool sawSymptom = false;
  for (size_t i = 0; i < d.findings.size(); ++i) {
    if (d.role(i) == Role::kSymptom) sawSymptom = true;
    else EXPECT_FALSE(sawSymptom) << "a root cause after a symptom: " << d.findings[i].rule->id;
  }
}

TEST_F(DiagnoserTest, ManyStableStepsThenNan) {
  std::string log = kFp16Header;
  for (int s = 1; s <= 30; ++s) log += "step " + std::to_string(s) + " | loss 0.5 | grad_norm 0.1" + std::to_string(s % 3) + "\n";
  log += "unfreezing backbone at step 30\nstep 31 | loss nan | grad_norm nan\n";
  auto d = run(log);
  ASSERT_EQ(ids(d), std::vector<std::string>{"adamw-eps-fp16-underflow"});
  bool stable = false;
  for (const auto& o : d.findings[0].observed) stable |= o.find("stayed small and stable") != std::string::npos;
  EXPECT_TRUE(stable);
}

TEST_F(DiagnoserTest, GrowingGradientsAreAnExplosionNotEps) {
  auto d = run(std::string(kFp16Header) +
               "step 1 | loss 1.0 | grad_norm 1.0\nstep 2 | loss 2.0 | grad_norm 9.0\n"
               "step 3 | loss 9.0 | grad_norm 80.0\nstep 4 | loss 70.0 | grad_norm 900.0\n"
               "step 5 | loss inf | grad_norm inf\n");
  EXPECT_EQ(ids(d), std::vector<std::string>{"gradient-explosion"});
}

// A grad norm that is NaN the first time it is printed, with losses that come back to normal
// between NaNs, shows no growth: not an explosion (a half-precision overflow on some batches).
// From a finite norm printed before, the same overflow is one.
TEST_F(DiagnoserTest, AnOverflowIsAnExplosionOnlyFromAFiniteNorm) {
  auto first = run("{'loss': 5.63, 'lr': 0.0002}\n{'loss': 153318.95, 'grad_norm': nan, 'learning_rate': 0.0002}\n"
                   "{'loss': 5.75, 'lr': 0.0002}\n{'loss': nan, 'lr': 0.0002}\n{'loss': 5.09, 'lr': 0.0002}\n");
  for (const auto& id : ids(first)) EXPECT_NE(id, "gradient-explosion");
  auto fromFinite = run("{'loss': 5.63, 'grad_norm': 0.8}\n{'loss': 153318.95, 'grad_norm': nan}\n"
                        "{'loss': nan, 'grad_norm': nan}\n");
  ASSERT_FALSE(ids(fromFinite).empty());
  EXPECT_EQ(ids(fromFinite).front(), "gradient-explosion");
}

TEST_F(DiagnoserTest, Bf16AndSafeEpsAreNotEps) {
  auto bf16 = run("    eps: 1e-08\nparam dtype: torch.bfloat16\nstep 1 | loss 0.6 | grad_norm 0.2\nstep 2 | loss nan\n");
  EXPECT_TRUE(ids(bf16).empty());
  auto safe = run("    eps: 1e-05\nparam dtype: torch.float16\nstep 1 | loss 0.6 | grad_norm 0.2\nstep 2 | loss nan\n");
  EXPECT_TRUE(ids(safe).empty());
  auto healthy = run(std::string(kFp16Header) + "step 1 | loss 0.6 | grad_norm 0.2\nstep 2 | loss 0.5 | grad_norm 0.2\n");
  EXPECT_TRUE(ids(healthy).empty());
}

TEST_F(DiagnoserTest, ChunkedInputGivesTheSameResult) {
  std::string log = std::string(kFp16Header) + "step 1 | loss 0.68 | grad_norm 1.98\nstep 2 | loss nan | grad_norm nan\n";
  Diagnoser d(rules_, *matcher_);
  d.beginSource("t.log");
  for (char c : log) d.addText(std::string_view(&c, 1));
  auto chunked = d.finish();
  auto whole = run(log);
  ASSERT_EQ(ids(chunked), ids(whole));
  EXPECT_EQ(chunked.findings[0].evidence.front().line, whole.findings[0].evidence.front().line);
  EXPECT_EQ(chunked.lines, whole.lines);
}

TEST_F(DiagnoserTest, TracebackLinksTheUserFrame) {
  auto d = run(std::string(kFp16Header) +
               "step 1 | loss 0.68 | grad_norm 1.98\n"
               "Traceback (most recent call last):\n"
               "  File \"/home/u/proj/train.py\", line 51, in <module>\n"
               "    raise FloatingPointError(f\"loss is {loss.item()} at step {step}\")\n"
               "FloatingPointError: loss is nan at step 2\n");
  ASSERT_EQ(ids(d), std::vector<std::string>{"adamw-eps-fp16-underflow"});
  ASSERT_TRUE(d.findings[0].userFrame);
  EXPECT_EQ(d.findings[0].userFrame->file, "/home/u/proj/train.py");
  EXPECT_EQ(d.findings[0].userFrame->line, 51);
  EXPECT_EQ(d.findings[0].exceptionType, "FloatingPointError");
}

TEST_F(DiagnoserTest, UnknownExceptionsGroupWithMaskedTemplate) {
  std::string log;
  for (int r = 0; r < 4; ++r) {
    std::string p = "[rank" + std::to_string(r) + "]: ";
    log += p + "Traceback (most recent call last):\n" + p + "  File \"/w/train.py\", line 9, in <module>\n" + p +
           "KeyError: 'sample_" + std::to_string(100 + r) + "' at index " + std::to_string(r * 7) + "\n";
  }
  auto d = run(log);
  ASSERT_EQ(ids(d), std::vector<std::string>{"unrecognized-exception"});
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.count, 4);
  EXPECT_EQ(f.ranks, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(f.exceptionType, "KeyError");
  EXPECT_EQ(f.messageTemplate, "KeyError: 'sample_<N>' at index <N>");
  ASSERT_TRUE(f.userFrame);
  EXPECT_EQ(f.userFrame->line, 9);
}

TEST_F(DiagnoserTest, KnownFailuresComeBeforeUnrecognisedOnes) {
  auto d = run(
      "Traceback (most recent call last):\n  File \"a.py\", line 1, in f\nValueError: odd\n"
      "Traceback (most recent call last):\n  File \"b.py\", line 2, in g\n"
      "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 15.78 GiB total capacity; "
      "14.56 GiB already allocated; 3.44 MiB free; 14.71 GiB reserved in total by PyTorch)\n");
  ASSERT_EQ(ids(d), (std::vector<std::string>{"cuda-out-of-memory", "unrecognized-exception"}));
  EXPECT_EQ(d.findings[0].captures.at("requested"), "20.00 MiB");
  EXPECT_EQ(d.findings[0].captures.at("free"), "3.44 MiB");
}

TEST_F(DiagnoserTest, SameFailureOnManyRanksIsOneFinding) {
  std::string log;
  for (int r : {2, 0, 1}) {
    log += "[rank" + std::to_string(r) +
           "]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU " + std::to_string(r) +
           " has a total capacity of 79.15 GiB of which 1.75 GiB is free.\n";
  }
  auto d = run(log);
  ASSERT_EQ(ids(d), std::vector<std::string>{"cuda-out-of-memory"});
  EXPECT_EQ(d.findings[0].ranks, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(d.findings[0].evidence.front().rank, 2);  // the rank that printed it first
}

TEST_F(DiagnoserTest, NcclSequenceNumbersNameTheRankThatNeverJoined) {
  // The NCCL watchdog's own wording (torch 2.4+); rank 2 enqueued one collective less.
  std::string log;
  for (int r : {0, 1, 3}) {
    std::string p = "[rank" + std::to_string(r) + "]:[E1109 16:13:2" + std::to_string(r) + ".222705810 ProcessGroupNCCL.cpp:616] ";
    log += p + "[Rank " + std::to_string(r) +
           "] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=42, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, "
           "Timeout(ms)=600000) ran for 600046 milliseconds before timing out.\n";
    log += p + "[PG ID 0 PG GUID 0(default_pg) Rank " + std::to_string(r) +
           "] Timeout at NCCL work: 42, last enqueued NCCL work: 42, last completed NCCL work: 41.\n";
  }
  log += "[rank1]:[E1109 16:13:21.5 ProcessGroupNCCL.cpp:1858] [PG ID 0 PG GUID 0(default_pg) Rank 1] First PG on this rank to signal dumping.\n";
  log += "[rank2]:[E1109 16:13:25.1 ProcessGroupNCCL.cpp:1858] [PG ID 0 PG GUID 0(default_pg) Rank 2] Received a dump signal due to a "
         "collective timeout from rank 1 and we will try our best to dump the debug info. Last enqueued NCCL work: 41, last "
         "completed NCCL work: 41.\n";
  auto d = run(log);
  ASSERT_TRUE(d.incident.initiatingRank);
  EXPECT_EQ(*d.incident.initiatingRank, 2) << d.incident.initiatingReason;
  EXPECT_NE(d.incident.initiatingReason.find("last enqueued NCCL work (41)"), std::string::npos);
  ASSERT_EQ(d.incident.ranks.size(), 4u);
  for (const auto& rr : d.incident.ranks) {
    if (rr.rank == 2) continue;
    EXPECT_EQ(rr.role, "collateral") << rr.rank;
    if (rr.rank == 1) {
      EXPECT_NE(rr.reason.find("watchdog fired first"), std::string::npos) << rr.reason;
    }
  }
}

TEST_F(DiagnoserTest, DesyncReportNamesTheLaggingRank) {
  // c10d's TORCH_NCCL_DESYNC_DEBUG report (TraceUtils.h wording), printed by the timed-out ranks.
  std::string log;
  for (int r : {0, 1, 2}) {
    std::string p = "[rank" + std::to_string(r) + "]:";
    log += p + "[E ProcessGroupNCCL.cpp:475] [Rank " + std::to_string(r) +
           "] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=6, OpType=ALLREDUCE, Timeout(ms)=60000) ran for 60012 milliseconds before timing out.\n";
    log += p + "\t - [" + std::to_string(r) + "] Timeout at collective: ALLREDUCE, #6\n";
    log += p + "\t - To our best knowledge, the lagging/dead/mismatched ranks that caused the desync are:\n";
    log += p + "\t     [3] finished collective #5, but didn't join collective #6 (count from 1)\n";
  }
  auto d = run(log);
  ASSERT_TRUE(d.incident.initiatingRank);
  EXPECT_EQ(*d.incident.initiatingRank, 3) << d.incident.initiatingReason;
  EXPECT_NE(d.incident.initiatingReason.find("desync report"), std::string::npos);
  auto missing = run("[rank0]:\t - To our best knowledge, ranks [2] are the lagging ranks that caused this timeout. They never joined any collectives\n"
                     "[rank0]:RuntimeError: [./gloo/transport/tcp/unbound_buffer.cc:81] Timed out waiting 20000ms for recv operation to complete\n"
                     "[rank1]:RuntimeError: [./gloo/transport/tcp/unbound_buffer.cc:81] Timed out waiting 20000ms for recv operation to complete\n");
  ASSERT_TRUE(missing.incident.initiatingRank);
  EXPECT_EQ(*missing.incident.initiatingRank, 2);
  ASSERT_EQ(missing.incident.ranks.size(), 3u);
  EXPECT_EQ(missing.incident.ranks[2].role, "initiator");
}

TEST_F(DiagnoserTest, EvidenceColumnsPointIntoTheRawLine) {
  std::string line = "\x1b[31m[rank0]: RuntimeError: CUDA out of memory. Tried to allocate 1.00 GiB\x1b[0m";
  auto d = run(line + "\n");
  ASSERT_EQ(ids(d), std::vector<std::string>{"cuda-out-of-memory"});
  const Evidence& e = d.findings[0].evidence.front();
  EXPECT_EQ(line.substr(e.begin, e.end - e.begin), "CUDA out of memory. Tried to allocate 1.00 GiB");
}

TEST_F(DiagnoserTest, SnapshotsFollowAGrowingLog) {
  Diagnoser d(rules_, *matcher_);
  d.beginSource("t.log");
  d.addText(std::string(kFp16Header) + "step 1 | loss 0.68 | grad_norm 1.98\n");
  EXPECT_TRUE(ids(d.snapshot()).empty());
  d.addText("step 2 | loss nan | grad_n");  // a partial last line counts in a snapshot
  EXPECT_EQ(ids(d.snapshot()), std::vector<std::string>{"adamw-eps-fp16-underflow"});
  d.addText("orm nan\nstep 3 | loss nan\n");
  auto snap = d.snapshot();
  auto fin = d.finish();
  EXPECT_EQ(ids(snap), ids(fin));
  EXPECT_EQ(snap.lines, fin.lines);
}

// A message a terminal wrapped mid-word is still recognised, on the line where it starts.
TEST_F(DiagnoserTest, WrappedMessagesAreMatchedAcrossTheBreak) {
  auto d = run("[Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=4, OpType=BROADCAST, NumelIn=112, Timeout(ms)=1800000) ran for 1800011 millisecond\n"
               "s before timing out.\n");
  ASSERT_FALSE(d.findings.empty());
  EXPECT_EQ(d.findings[0].rule->id, "collective-timeout");
  EXPECT_EQ(d.findings[0].evidence.front().line, 0u);
}

// tqdm writes each progress bar whole: a bar after a long line (the Trainer's metrics dict, then
// its bar, as every Hugging Face run prints them) is no rest of that line.
// Confidence counts the evidence a log could show together: the other wording of an `or`
// (torch's debug check or gloo's enforce line for collective-mismatch) is not missing evidence,
// while a supporting line that is absent (NCCL's WARN with the reason) still is.
TEST_F(DiagnoserTest, AnAlternativeWordingDoesNotLowerConfidence) {
  auto confidenceOf = [&](const std::string& log, const std::string& id) {
    auto d = run(log);
    for (const auto& f : d.findings)
      if (f.rule->id == id) return f.confidence;
    ADD_FAILURE() << id << " not found in: " << log;
    return -1.0;
  };
  EXPECT_DOUBLE_EQ(confidenceOf("RuntimeError: Detected mismatch between collectives on ranks. Rank 0 is running collective: "
                                "CollectiveFingerPrint(OpType=ALLREDUCE), but Rank 1 is running collective: "
                                "CollectiveFingerPrint(OpType=BROADCAST).\n",
                                "collective-mismatch"),
                   1.0);
  EXPECT_DOUBLE_EQ(confidenceOf("  what():  [enforce fail at ./gloo/transport/tcp/pair.cc:510] op.preamble.length <= op.nbytes. "
                                "500 vs 252\n",
                                "collective-mismatch"),
                   1.0);
  const std::string bare =
      "RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1191, unhandled system error, "
      "NCCL version 2.14.3\n";
  double without = confidenceOf(bare, "nccl-system-error");
  double with = confidenceOf("node1:77:77 [0] NCCL WARN Call to ibv_reg_mr failed\n" + bare, "nccl-system-error");
  EXPECT_DOUBLE_EQ(without, 0.5);  // the error line, not the WARN line; no other wording counts
  EXPECT_DOUBLE_EQ(with, 1.0);
}

// Without rank prefixes, the launcher still tells which worker failed: the one it reports as
// failed with an exit code of its own, once it stopped the others with SIGTERM. Two workers
// reported failed leave the question open. An excerpt with one rank's lines beside the
// launcher's SIGTERMs is a multi-rank run too.
TEST_F(DiagnoserTest, TheLaunchersOneFailedWorkerIsTheRankThatFailedFirst) {
  const std::string error = "RuntimeError: CUDA error: invalid device ordinal\n";
  const std::string stopped = "WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 84709 closing signal SIGTERM\n";
  auto failed = [](int localRank, int pid) {
    return "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: " + std::to_string(localRank) +
           " (pid: " + std::to_string(pid) + ") of binary: /usr/bin/python3\n";
  };
  auto one = run(error + stopped + failed(1, 84710));
  ASSERT_TRUE(one.incident.initiatingRank) << one.incident.initiatingReason;
  EXPECT_EQ(*one.incident.initiatingRank, 1);
  auto two = run(error + failed(0, 84709) + failed(1, 84710));
  EXPECT_FALSE(two.incident.initiatingRank) << two.incident.initiatingReason;
  auto excerpt = run("[rank11]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 4.35 GiB.\n"
                     "W1026 03:51:31.222000 2521679 torch/distributed/elastic/multiprocessing/api.py:908] Sending process "
                     "2521733 closing signal SIGTERM\n");
  ASSERT_TRUE(excerpt.incident.initiatingRank);
  EXPECT_EQ(*excerpt.incident.initiatingRank, 11);
  // Without the SIGTERM lines (a paste that starts later), the summary's "<NO_OTHER_FAILURES>"
  // says the same: the worker under "Root Cause" is the only one that failed.
  const std::string summary = "============================================================\ntrain.py FAILED\n"
                              "------------------------------------------------------------\nFailures:\n  <NO_OTHER_FAILURES>\n"
                              "------------------------------------------------------------\nRoot Cause (first observed failure):\n"
                              "[1]:\n  time      : 2025-04-22_05:07:48\n  rank      : 1 (local_rank: 1)\n  exitcode  : 1 (pid: 240)\n";
  auto alone = run(error + summary);
  ASSERT_TRUE(alone.incident.initiatingRank) << alone.incident.initiatingReason;
  EXPECT_EQ(*alone.incident.initiatingRank, 1);
  EXPECT_NE(alone.incident.initiatingReason.find("its summary lists no other failure"), std::string::npos);
  // A summary that lists another failure leaves it open.
  std::string others = summary;
  others.replace(others.find("  <NO_OTHER_FAILURES>\n"), 22, "[0]:\n  rank      : 0 (local_rank: 0)\n  exitcode  : 1 (pid: 239)\n");
  EXPECT_FALSE(run(error + others).incident.initiatingRank);
}

TEST(ContinuedLines, AProgressBarIsNoContinuation) {
  ParsedLine dict = parseLine("[rank0]:{'loss': 0.6610, 'grad_norm': 0.1210, 'learning_rate': 1e-05, 'epoch': 0.18}", 0, 0);
  for (const char* bar : {"[rank0]: 91%|#####     | 5591/100000 [00:01<00:00, 20.1it/s]",
                          "[rank0]:Epoch 0:  12%|#2        | 12/100 [00:01<00:08, 10.5it/s, loss=2.31, v_num=0]",
                          "[rank0]:  3%|3         | 3/100 [01:02<33:10, 20.52s/it]"}) {
    EXPECT_TRUE(isProgressBar(parseLine(bar, 0, 1).message())) << bar;
    EXPECT_FALSE(continuesLine(dict, parseLine(bar, 0, 1))) << bar;
  }
  EXPECT_TRUE(continuesLine(dict, parseLine("[rank0]:s before timing out.", 0, 1)));
  for (const char* other : {"| 5/100 [00:01<00:08, 10.5it/s]", "50%|#####", "loss 0.5 [1.0it/s]", "a|b 100%|c| [x]"})
    EXPECT_FALSE(isProgressBar(other)) << other;
}

// torchrun without --tee: the agent's own line says which rank the OOM killer took.
TEST_F(DiagnoserTest, AnUnprefixedLogStillNamesTheKilledRank) {
  auto d = run("WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 101 closing signal SIGTERM\n"
               "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) local_rank: 3 (pid: 104) of binary: /usr/bin/python3\n");
  ASSERT_TRUE(d.incident.initiatingRank);
  EXPECT_EQ(*d.incident.initiatingRank, 3);
  ASSERT_FALSE(d.findings.empty());
  EXPECT_EQ(d.findings[0].rule->id, "host-oom-killed");
  EXPECT_TRUE(d.initiating(0));
}

// A signal that only rules a failure out (under `not`) says nothing about which rank showed it.
TEST_F(DiagnoserTest, NegatedSignalsDoNotMakeARanksFinding) {
  auto d = run("[rank0]: RuntimeError: [../gloo/transport/tcp/pair.cc:598] Connection closed by peer [127.0.0.1]:1\n"
               "  exitcode  : -9 (pid: 8787)\n");
  ASSERT_EQ(d.findings.size(), 2u);
  EXPECT_EQ(d.findings[0].rule->id, "host-oom-killed");
  EXPECT_TRUE(d.findings[0].ranks.empty()) << "rank 0 only printed an exception";
  EXPECT_EQ(d.findings[1].rule->id, "gloo-connection-closed");
  EXPECT_EQ(d.findings[1].ranks, std::vector<int>{0});
}

// Rank 0 prints the run's configuration; rank 2's loss turns NaN 100,000 lines later. The dtype
// and the optimizer are run-wide facts: rank 2's evaluation sees them, on rank 0's lines, however
// long ago they were printed, and the fingerprint's window is the steps just before the NaN.
TEST_F(DiagnoserTest, RunWideFactsPrintedByOneRankReachEveryRank) {
  std::string log = "[rank0]:param dtype: torch.float16\n[rank0]:AdamW (lr=0.001, eps: 1e-08)\n";
  for (int s = 1; s <= 50000; ++s)
    for (int r : {0, 2})
      log += "[rank" + std::to_string(r) + "]:step " + std::to_string(s) + " | loss 0.5 | grad_norm 0.1" + std::to_string(s % 7) + "\n";
  log += "[rank2]:step 50001 | loss nan | grad_norm nan\n";
  log += "[rank1]:RuntimeError: [../gloo/transport/tcp/pair.cc:598] Connection closed by peer [127.0.0.1]:1\n";
  auto d = run(log);
  ASSERT_FALSE(d.findings.empty());
  const Finding& f = d.findings[0];
  ASSERT_EQ(f.rule->id, "adamw-eps-fp16-underflow");
  EXPECT_EQ(f.ranks, std::vector<int>{2}) << "rank 0 printed the facts but its loss stayed finite";
  EXPECT_TRUE(d.initiating(0));
  std::vector<std::pair<std::string, int>> where;
  for (const auto& e : f.evidence) where.emplace_back(e.signal, e.rank);
  EXPECT_EQ(where, (std::vector<std::pair<std::string, int>>{{"loss_nan", 2}, {"grad_stable", 2}, {"eps_tiny", 0}, {"fp16", 0}}));
  EXPECT_EQ(f.evidence[2].line, 1u);
  EXPECT_EQ(f.evidence[3].line, 0u);
  EXPECT_EQ(f.captures.at("eps"), "1e-08");
  EXPECT_EQ(f.evidence[0].line, 100002u);
  ASSERT_EQ(f.observed.size(), 2u);
  EXPECT_NE(f.observed[1].find("over steps 49969-50000"), std::string::npos) << f.observed[1];
  ASSERT_TRUE(d.incident.initiatingRank);
  EXPECT_EQ(*d.incident.initiatingRank, 2);
}

// A rank's own statement of a run-wide fact wins over another rank's; a fact that rules the
// failure out (bf16) does so for every rank, wherever it was printed.
TEST_F(DiagnoserTest, ARanksOwnFactComesFirstAndNegativeFactsCrossRanksToo) {
  std::string tail = "[rank3]:step 1 | loss 0.5 | grad_norm 0.1\n[rank3]:step 2 | loss nan | grad_norm nan\n";
  auto own = run("[rank0]:eps: 1e-09\n[rank0]:dtype: float16\n[rank3]:eps: 1e-08\n" + tail);
  ASSERT_FALSE(own.findings.empty());
  ASSERT_EQ(own.findings[0].rule->id, "adamw-eps-fp16-underflow");
  EXPECT_EQ(own.findings[0].captures.at("eps"), "1e-08");
  auto bf16 = run("[rank0]:eps: 1e-08\n[rank0]:dtype: float16\n[rank1]:mixed_precision: bf16\n" + tail);
  ASSERT_EQ(bf16.findings.size(), 1u);
  EXPECT_EQ(bf16.findings[0].rule->id, "nan-loss") << "bf16 on rank 1's line rules the eps underflow out for rank 3";
}

// A signal of a rank about itself (the default scope) stays that rank's: rank 0's exception about
// an inf (the rule's `raised`) is no evidence for rank 3, while rank 0's dtype and eps are.
TEST_F(DiagnoserTest, RankScopedSignalsStayWithTheirRank) {
  auto d = run("[rank0]:dtype: float16\n[rank0]:eps: 1e-08\n[rank0]:ValueError: found inf in the gradients of layer 3\n"
               "[rank3]:step 1 | loss 0.5 | grad_norm 0.1\n[rank3]:step 2 | loss nan | grad_norm nan\n");
  ASSERT_EQ(d.findings.size(), 3u);
  EXPECT_EQ(d.findings[0].rule->id, "unrecognized-exception");  // rank 0's own exception
  const Finding& f = d.findings[1];
  ASSERT_EQ(f.rule->id, "adamw-eps-fp16-underflow");
  EXPECT_EQ(f.ranks, std::vector<int>{3});
  std::vector<std::pair<std::string, int>> where;
  for (const auto& e : f.evidence) where.emplace_back(e.signal, e.rank);
  EXPECT_EQ(where, (std::vector<std::pair<std::string, int>>{{"loss_nan", 3}, {"grad_stable", 3}, {"eps_tiny", 0}, {"fp16", 0}}));
}

TEST(MaskMessage, MasksNumbersAddressesAndPaths) {
  EXPECT_EQ(maskMessage("Tried 20.00 MiB at 0x7f00ab on rank 3"), "Tried <N> MiB at <ADDR> on rank <N>");
  EXPECT_EQ(maskMessage("cannot open '/data/shard_01.bin'"), "cannot open '<PATH>'");
  EXPECT_EQ(maskMessage("layer2 has 1e-08"), "layer2 has <N>");
}

}  // namespace
}  // namespace denpex::core

namespace denpex::core {
namespace {

TEST(Incident, TimestampsCompareAcrossFormats) {
  auto iso = timestampSeconds("2024-05-01 12:00:00,250");
  auto glog = timestampSeconds("I0501 12:00:00.500000");
  auto torchrun = timestampSeconds("2024-05-01_12:00:01");
  ASSERT_TRUE(iso && glog && torchrun);
  EXPECT_LT(*iso, *glog);
  EXPECT_LT(*glog, *torchrun);
  EXPECT_FALSE(timestampSeconds("step 1"));
}

TEST(Incident, LauncherSummaryIsRead) {
  LauncherTracker t;
  const char* lines[] = {"Failures:", "[1]:", "  time      : 2026-11-29_20:33:10", "  host      : node0",
                         "  rank      : 2 (local_rank: 2)", "  exitcode  : -9 (pid: 8787)",
                         "  traceback : Signal 9 (SIGKILL) received by PID 8787", "----",
                         "Root Cause (first observed failure):", "[0]:", "  rank      : 0 (local_rank: 0)",
                         "  exitcode  : 1 (pid: 8785)", "====",
                         "WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 8790 closing signal SIGTERM"};
  uint64_t n = 0;
  for (const char* l : lines) t.add(parseLine(l, 0, n++));
  ASSERT_EQ(t.failures().size(), 2u);
  EXPECT_EQ(t.failures()[0].rank, 2);
  EXPECT_EQ(t.failures()[0].host, "node0");
  EXPECT_EQ(*t.failures()[0].exitCode, -9);
  EXPECT_EQ(t.failures()[0].signal, "SIGKILL");
  EXPECT_FALSE(t.failures()[0].rootCause);
  EXPECT_TRUE(t.failures()[1].rootCause);
  EXPECT_EQ(*t.rankOfPid(8787), 2);
  EXPECT_EQ(t.sigtermPids(), std::vector<long long>{8790});
}


TEST(Incident, SpawnsSignalNamesTheProcess) {
  // torch.multiprocessing.spawn names the child a signal killed: its index is the rank.
  LauncherTracker t;
  t.add(parseLine("torch.multiprocessing.spawn.ProcessExitedException: process 3 terminated with signal SIGFPE", 0, 0));
  t.add(parseLine("Exception: process 1 terminated with signal SIGSEGV", 0, 1));
  ASSERT_EQ(t.failures().size(), 2u);
  EXPECT_EQ(t.failures()[0].rank, 3);
  EXPECT_EQ(t.failures()[0].signal, "SIGFPE");
  EXPECT_EQ(*t.failures()[0].exitCode, -8);
  EXPECT_EQ(t.failures()[1].rank, 1);
  EXPECT_EQ(*t.failures()[1].exitCode, -11);
  // An exit code follows the child's own traceback, which says more; prose and other wordings are not read.
  LauncherTracker other;
  for (const char* l : {"torch.multiprocessing.spawn.ProcessExitedException: process 0 terminated with exit code 1",
                        "the process 2 terminated with signal SIGKILL, said the operator",
                        "-- Process 0 terminated with the following error:"})
    other.add(parseLine(l, 0, 0));
  EXPECT_TRUE(other.failures().empty());
  EXPECT_TRUE(LauncherTracker::concerns("ProcessExitedException: process 3 terminated with signal SIGFPE"));
  EXPECT_EQ(signalName(8), "SIGFPE");
  EXPECT_EQ(signalName(42), "signal 42");
  EXPECT_EQ(signalNumber("SIGSEGV"), 11);
  EXPECT_FALSE(signalNumber("SIGNOPE"));
}

}  // namespace
}  // namespace denpex::core
