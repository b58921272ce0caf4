// Launcher prefixes, timestamps, metrics and tracebacks.
#include "core/parse/log_line.h"
#include "core/parse/metrics.h"
#include "core/parse/traceback.h"

#include <gtest/gtest.h>

#include <charconv>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>
#include <sstream>

namespace denpex::core {
namespace {

TEST(LogParser, TorchrunPrefixes) {
  ParsedLine a = parseLine("[rank3]: RuntimeError: boom", 0, 0);
  EXPECT_EQ(a.rank, 3);
  EXPECT_EQ(a.message(), "RuntimeError: boom");
  ParsedLine b = parseLine("[default12]:step 1 | loss 0.5", 0, 0);
  EXPECT_EQ(b.rank, 12);
  EXPECT_EQ(b.message(), "step 1 | loss 0.5");
  // The older launcher's tag is the local rank; torch 2.x's own "[rankN]:" inside it, the global one.
  ParsedLine c = parseLine("[default0]:[rank12]:[E817 17:40:34.227531918 ProcessGroupNCCL.cpp:1515] watchdog", 0, 0);
  EXPECT_EQ(c.rank, 12);
  EXPECT_EQ(c.message(), "[E817 17:40:34.227531918 ProcessGroupNCCL.cpp:1515] watchdog");
  ParsedLine d = parseLine("[rank1]:[rank12]: text", 0, 0);  // only the older tag is a local rank
  EXPECT_EQ(d.rank, 1);
}

TEST(LogParser, MpirunAndSrunPrefixes) {
  ParsedLine m = parseLine("[1,5]<stderr>:Traceback (most recent call last):", 0, 0);
  EXPECT_EQ(m.rank, 5);
  EXPECT_EQ(m.message(), "Traceback (most recent call last):");
  ParsedLine s = parseLine(" 7: loss=0.1", 0, 0);
  EXPECT_EQ(s.rank, 7);
  EXPECT_EQ(s.message(), "loss=0.1");
  ParsedLine none = parseLine("Epoch 1: 100%", 0, 0);
  EXPECT_EQ(none.rank, -1);
}

TEST(LogParser, HostPrefixesAndRanksNamedInTheText) {
  ParsedLine pdsh = parseLine("worker-3: [2024-03-02 10:11:05,101] [INFO] [logging.py:96:log_dist] [Rank 12] step=10", 0, 0);
  EXPECT_EQ(pdsh.host, "worker-3");
  EXPECT_EQ(pdsh.rank, 12);
  EXPECT_EQ(parseLine("gpu-node07: RuntimeError: boom", 0, 0).host, "gpu-node07");
  EXPECT_EQ(parseLine("RuntimeError: boom", 0, 0).host, "");
  EXPECT_EQ(parseLine("Rank 5: loss=nan", 0, 0).rank, 5);
  EXPECT_EQ(parseLine("[rank 3] step 1 | loss 0.5", 0, 0).rank, 3);
  // The rank a message talks about is not the rank that printed it.
  EXPECT_EQ(parseLine("Received a dump signal from rank 5", 0, 0).rank, -1);
}

TEST(LogParser, Timestamps) {
  EXPECT_EQ(parseLine("[2024-03-02 10:11:05,101] [INFO] x", 0, 0).timestamp, "2024-03-02 10:11:05,101");
  EXPECT_EQ(parseLine("2024-03-02T10:11:05.5Z msg", 0, 0).timestamp, "2024-03-02T10:11:05.5Z");
  EXPECT_EQ(parseLine("[rank0]:I0302 10:11:05.123456 123 ProcessGroupNCCL.cpp:1]", 0, 0).timestamp,
            "I0302 10:11:05.123456");
  EXPECT_EQ(parseLine("no time here", 0, 0).timestamp, "");
}

TEST(LogParser, PasteNoiseAndPlatformPrefixes) {
  ParsedLine md = parseLine("> **RuntimeError: CUDA out of memory.** Tried", 0, 0);
  EXPECT_EQ(md.message(), "RuntimeError: CUDA out of memory. Tried");
  EXPECT_EQ(md.clean.toRaw(0), 4u);  // still mapped to the raw line
  ParsedLine ray = parseLine("(RayTrainWorker pid=1234, ip=10.0.0.1) RuntimeError: x", 0, 0);
  EXPECT_EQ(ray.message(), "RuntimeError: x");
  ParsedLine pod = parseLine("[job-master-0] Traceback (most recent call last):", 0, 0);
  EXPECT_EQ(pod.host, "job-master-0");
  EXPECT_EQ(pod.message(), "Traceback (most recent call last):");
  EXPECT_EQ(parseLine("[INFO] x", 0, 0).host, "");
  ParsedLine bar = parseLine(" 14%|#   | 378/2724 [13:58<86:18, 132.44s/it][2023-06-07 22:16:00,018] [INFO] x", 0, 0);
  EXPECT_EQ(bar.timestamp, "2023-06-07 22:16:00,018");
  EXPECT_EQ(bar.body(), "[INFO] x");
  ParsedLine syslog = parseLine("Oct 16 02:07:00 Traceback (most recent call last):", 0, 0);
  EXPECT_EQ(syslog.timestamp, "Oct 16 02:07:00");
  EXPECT_EQ(syslog.body(), "Traceback (most recent call last):");
}

TEST(LogParser, MetricsPipeFormat) {
  MetricSample s = extractMetrics("step 12 | loss 0.6931 | grad_norm 0.0018 | lr 1.0e-03");
  ASSERT_TRUE(s.step && s.loss && s.gradNorm && s.lr);
  EXPECT_EQ(*s.step, 12);
  EXPECT_DOUBLE_EQ(*s.loss, 0.6931);
  EXPECT_DOUBLE_EQ(*s.gradNorm, 0.0018);
  EXPECT_DOUBLE_EQ(*s.lr, 1e-3);
}

// A step no long long holds (the fuzzer's 1e63, or inf) is no step; the rest of the line counts.
TEST(LogParser, MetricsStepBeyondAnIntegerIsIgnored) {
  for (const char* line : {"step 1e63 | loss 0.5", "step inf | loss 0.5", "step 9.3e18 | loss 0.5"}) {
    MetricSample s = extractMetrics(line);
    EXPECT_FALSE(s.step) << line;
    ASSERT_TRUE(s.loss) << line;
    EXPECT_DOUBLE_EQ(*s.loss, 0.5);
  }
  EXPECT_EQ(extractMetrics("step 8.9e18 | loss 0.5").step, 8900000000000000000LL);
}

TEST(LogParser, MetricsHuggingFaceDict) {
  MetricSample s = extractMetrics("{'loss': nan, 'grad_norm': 0.41, 'learning_rate': 4.9e-05, 'epoch': 0.1}");
  ASSERT_TRUE(s.loss && s.gradNorm && s.lr);
  EXPECT_TRUE(std::isnan(*s.loss));
  EXPECT_DOUBLE_EQ(*s.gradNorm, 0.41);
}

TEST(LogParser, MetricsOtherFormats) {
  MetricSample lightning = extractMetrics("Epoch 0:  45%|####5     | 45/100 [00:02<00:02, 20.1it/s, loss=inf, v_num=0]");
  ASSERT_TRUE(lightning.loss);
  EXPECT_TRUE(std::isinf(*lightning.loss));
  MetricSample megatron = extractMetrics(
      " iteration       10/     100 | lm loss: 2.305E+00 | loss scale: 1024.0 | grad norm: 1.234 |");
  ASSERT_TRUE(megatron.step && megatron.loss && megatron.lossScale && megatron.gradNorm);
  EXPECT_EQ(*megatron.step, 10);
  EXPECT_DOUBLE_EQ(*megatron.lossScale, 1024.0);
  MetricSample tensor = extractMetrics("loss=tensor(nan, device='cuda:0')");
  ASSERT_TRUE(tensor.loss);
  EXPECT_TRUE(std::isnan(*tensor.loss));
  MetricSample ds = extractMetrics("[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 65536, reducing to 32768");
  ASSERT_TRUE(ds.lossScale);
  EXPECT_DOUBLE_EQ(*ds.lossScale, 65536);
}

// OpenAI's logger (baselines, guided- and improved-diffusion) prints one key and value per row of
// a table: "| loss | nan |". A key with no value in its cell reads as nothing.
TEST(LogParser, MetricsTableRows) {
  MetricSample loss = extractMetrics("| loss          | nan       |");
  ASSERT_TRUE(loss.loss);
  EXPECT_TRUE(std::isnan(*loss.loss));
  MetricSample step = extractMetrics("| step          | 1.53e+05  |");
  ASSERT_TRUE(step.step);
  EXPECT_EQ(*step.step, 153000);
  EXPECT_TRUE(extractMetrics("| loss | |").empty());
  EXPECT_FALSE(extractMetrics("| loss_q0       | nan       |").loss) << "a component loss is not the loss";
}

// Keys match without case, whether sixteen bytes follow them (compared at once) or fewer (the end
// of the line, compared byte by byte); a key that goes on as a longer word is no key.
TEST(LogParser, MetricKeysWithoutCaseNearAndFarFromTheLineEnd) {
  MetricSample wide = extractMetrics("Train_Loss: 0.25 | Grad Norm: 1.5 | Learning_Rate: 3e-4 | Loss Scale: 1024 | Step: 7 of 9");
  ASSERT_TRUE(wide.loss && wide.gradNorm && wide.lr && wide.lossScale && wide.step);
  EXPECT_DOUBLE_EQ(*wide.loss, 0.25);
  EXPECT_DOUBLE_EQ(*wide.gradNorm, 1.5);
  EXPECT_DOUBLE_EQ(*wide.lr, 3e-4);
  EXPECT_DOUBLE_EQ(*wide.lossScale, 1024);
  EXPECT_EQ(*wide.step, 7);
  MetricSample tail = extractMetrics("LOSS=nan");
  ASSERT_TRUE(tail.loss);
  EXPECT_TRUE(std::isnan(*tail.loss));
  MetricSample vocoder = extractMetrics("Steps : 40, Gen Loss Total :  nan, Mel-Spec. Error : 2.021, s/b : 0.443");
  ASSERT_TRUE(vocoder.loss) << "HiFi-GAN's generator loss";
  EXPECT_TRUE(std::isnan(*vocoder.loss));
  MetricSample lr = extractMetrics("epoch 3 LR 0.1");
  ASSERT_TRUE(lr.lr);
  EXPECT_DOUBLE_EQ(*lr.lr, 0.1);
  EXPECT_FALSE(extractMetrics("lossy_compression 0.5 and losses later").loss);
  EXPECT_FALSE(extractMetrics("LRScheduler 0.5").lr);
  EXPECT_FALSE(extractMetrics("loss").loss);
}

// A metric's value is the double from_chars reads, bit for bit, whichever way it was read: the
// short decimals training loops print, and the long, tiny and huge ones that need the slow path.
TEST(LogParser, MetricValuesAreExactlyTheDecimalsPrinted) {
  std::vector<std::string> numbers = {"0", "-0.0", "+0.5", ".5", "5.", "0.6931", "1e-05", "1.0e-03", "65536.0", "3E+02",
                                      "123456789012345", "1234567890123456", "0.1234567890123456789", "9007199254740993",
                                      "1e22", "1e23", "4.5e-22", "4.5e-23", "2.2250738585072014e-308", "1e-400", "1e999",
                                      "0000012.5000", "7e0", "1e", "2.5e+", "12e1000"};
  uint64_t state = 42;
  auto next = [&] { return state = state * 6364136223846793005ull + 1442695040888963407ull; };
  for (int i = 0; i < 20000; ++i) {
    uint64_t r = next();
    std::string digits = std::to_string(r % 1000000000000000000ull);
    digits.resize(1 + next() % digits.size());
    size_t point = next() % (digits.size() + 1);
    std::string n = (next() % 4 == 0 ? "-" : "") + digits.substr(0, point) + "." + digits.substr(point);
    if (n.back() == '.' && point == 0) n += "0";
    if (next() % 3 == 0) n += "e" + std::string(next() % 2 ? "-" : "+") + std::to_string(next() % 40);
    numbers.push_back(n);
  }
  for (const auto& n : numbers) {
    MetricSample s = extractMetrics("loss " + n + " | x");
    std::string_view v(n);
    if (!v.empty() && v[0] == '+') v.remove_prefix(1);
    double want = 0;
    auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), want);
    if (ec != std::errc() || end != v.data() + v.size()) continue;  // what from_chars does not read whole is strtod's
    ASSERT_TRUE(s.loss) << n;
    EXPECT_EQ(std::signbit(*s.loss), std::signbit(want)) << n;
    EXPECT_EQ(std::memcmp(&*s.loss, &want, sizeof want), 0) << n << ": " << *s.loss << " against " << want;
  }
}

TEST(LogParser, EvaluationLossesAreNotTrainingLosses) {
  EXPECT_FALSE(extractMetrics("{'eval_loss': nan, 'epoch': 1.0}").loss);
  EXPECT_FALSE(extractMetrics("| end of epoch 1 | valid loss   nan |").loss);
  EXPECT_FALSE(extractMetrics("val_loss=0.3").loss);
  EXPECT_FALSE(extractMetrics("logging info about the loss function").loss);
}

TEST(LogParser, UserFiles) {
  EXPECT_TRUE(isUserFile("train.py"));
  EXPECT_TRUE(isUserFile("/home/me/proj/train.py"));
  EXPECT_FALSE(isUserFile("/usr/lib/python3/dist-packages/torch/optim/adamw.py"));
  EXPECT_FALSE(isUserFile("/opt/venv/lib/python3.10/site-packages/torch/nn/modules/module.py"));
  EXPECT_FALSE(isUserFile("/usr/lib/python3.11/runpy.py"));
  EXPECT_FALSE(isUserFile("<frozen runpy>"));
}

std::vector<Traceback> track(const std::string& text) {
  std::vector<Traceback> out;
  TracebackTracker t;
  std::istringstream in(text);
  std::string line;
  uint64_t n = 0;
  while (std::getline(in, line)) t.add(parseLine(line, 0, n++), out);
  t.flush(out);
  return out;
}

TEST(LogParser, ExceptionLinesWithoutATracebackAreTheirOwn) {
  auto tbs = track(
      "----> 127 loss.backward()\n"
      "RuntimeError: Found dtype Double but expected Float\n"
      "UserWarning: this is not a failure\n"
      "Note: neither is this\n"
      "OSError: [Errno 28] No space left on device\n");
  ASSERT_EQ(tbs.size(), 2u);
  EXPECT_EQ(tbs[0].final().type, "RuntimeError");
  EXPECT_TRUE(tbs[0].final().frames.empty());
  EXPECT_EQ(tbs[0].final().line, 1u);
  EXPECT_EQ(tbs[1].final().type, "OSError");
}

// Python reports an exception raised in a __del__ or a callback under "Exception ignored in:" and
// goes on: the record below the notice (within a few lines, of the same rank) is marked ignored;
// a later one, or another rank's, is not.
TEST(LogParser, ARecordUnderExceptionIgnoredInIsMarkedIgnored) {
  auto tbs = track(
      "Exception ignored in: <function _MultiProcessingDataLoaderIter.__del__ at 0x7f6d5cf914c0>\n"
      "Traceback (most recent call last):\n"
      "  File \"/usr/lib/python3/dist-packages/torch/utils/data/dataloader.py\", line 1101, in __del__\n"
      "    self._shutdown_workers()\n"
      "AssertionError: can only test a child process\n"
      "Exception ignored in: <bound method Foo.__del__ of <Foo object at 0x7f>>\n"
      "......\n"
      "AssertionError: can only join a child process\n"
      "[rank1]:Exception ignored in: <function Bar.__del__ at 0x7f>\n"
      "[rank0]:RuntimeError: CUDA error: an illegal memory access was encountered\n"
      "Exception ignored in: <function Baz.__del__ at 0x7f>\n"
      "1\n2\n3\n4\n5\n6\n7\n8\n9\n"
      "ValueError: far below the notice\n");
  ASSERT_EQ(tbs.size(), 4u);
  EXPECT_TRUE(tbs[0].ignored);
  EXPECT_EQ(tbs[0].final().frames.size(), 1u);
  EXPECT_TRUE(tbs[1].ignored);  // a paste that elided the traceback
  EXPECT_EQ(tbs[1].final().type, "AssertionError");
  EXPECT_FALSE(tbs[2].ignored);  // rank 0's, under rank 1's notice
  EXPECT_EQ(tbs[2].final().type, "RuntimeError");
  EXPECT_FALSE(tbs[3].ignored);  // ten lines below
  EXPECT_EQ(tbs[3].final().type, "ValueError");
}

// Python prints a message that starts with a newline as "Type: " and the message below it.
TEST(LogParser, AMessageBelowItsExceptionLine) {
  auto bare = track(
      "RuntimeError: \n"
      "        CUDA Setup failed despite GPU being available. Please run the following\n"
      "command to get more information:\n");
  ASSERT_EQ(bare.size(), 1u);
  EXPECT_EQ(bare[0].final().message, "CUDA Setup failed despite GPU being available. Please run the following");
  EXPECT_EQ(bare[0].lastLine, 1u);
  EXPECT_EQ(bare[0].final().line, 0u);
  // In a traceback, after a rule of '=' (torchrun's ChildFailedError).
  auto child = track(
      "Traceback (most recent call last):\n"
      "  File \"run.py\", line 8, in <module>\n"
      "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n"
      "============================================================\n"
      "train.py FAILED\n"
      "------------------------------------------------------------\n");
  ASSERT_EQ(child.size(), 1u);
  EXPECT_EQ(child[0].final().message, "train.py FAILED");
  EXPECT_EQ(child[0].lastLine, 4u);
  // A bare type (no colon) has no message, and the line after it is its own.
  auto plain = track("StopIteration\nRuntimeError: next one\n");
  ASSERT_EQ(plain.size(), 1u);
  EXPECT_EQ(plain[0].final().type, "RuntimeError");
  EXPECT_EQ(plain[0].final().message, "next one");
}

// torch.compile's wrapper names the backend's exception on the next line: one failure, the
// wrapped exception at its own line under the wrapper's frames, in a traceback or bare; only
// after its "raised:".
TEST(LogParser, DynamosWrapperStandsForTheExceptionItWraps) {
  auto full = track(
      "Traceback (most recent call last):\n"
      "  File \"train.py\", line 9, in <module>\n"
      "torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:\n"
      "AssertionError: Invalid match!\n"
      "\n"
      "Set TORCH_LOGS=\"+dynamo\" and TORCHDYNAMO_VERBOSE=1 for more information\n");
  ASSERT_EQ(full.size(), 1u);
  EXPECT_EQ(full[0].final().type, "AssertionError");
  EXPECT_EQ(full[0].final().message, "Invalid match!");
  EXPECT_EQ(full[0].final().line, 3u);
  EXPECT_EQ(full[0].final().frames.size(), 1u);
  EXPECT_EQ(full[0].firstLine, 0u);
  EXPECT_EQ(full[0].lastLine, 3u);
  auto bare = track(
      "BackendCompilerFailed: backend='inductor' raised:\n"
      "AssertionError: \n"
      "Invalid match!\n");
  ASSERT_EQ(bare.size(), 1u);
  EXPECT_EQ(bare[0].final().type, "AssertionError");
  EXPECT_EQ(bare[0].final().message, "Invalid match!");
  EXPECT_EQ(bare[0].firstLine, 0u);
  EXPECT_EQ(bare[0].lastLine, 2u);
  // Another message that ends with a colon keeps its own line, and the next one is its own.
  auto other = track("ValueError: expected one of:\nKeyError: 'x'\n");
  ASSERT_EQ(other.size(), 2u);
  EXPECT_EQ(other[0].final().message, "expected one of:");
  EXPECT_EQ(other[1].final().type, "KeyError");
}

// The lines that carry on an exception's message after its line belong to its traceback, so a
// finding whose evidence is there explains the exception: torch_npu names the failure in CANN's
// error lines below a generic one; an indented continuation; not the next line of the log.
TEST(LogParser, AMessageCarriedOnBelowItsExceptionLineIsInTheTraceback) {
  auto npu = track(
      "Traceback (most recent call last):\n"
      "  File \"train.py\", line 9, in <module>\n"
      "    dist.barrier()\n"
      "RuntimeError: [ERROR] HCCL error in: torch_npu/csrc/distributed/ProcessGroupHCCL.cpp:64\n"
      "[ERROR] 2024-05-21-11:57:54 (PID:927000, Device:3, RankID:3) ERR02200 DIST call hccl api failed.\n"
      "EJ0001: 2024-05-21-11:57:54.167.645 Failed to initialize the HCCP process.\n"
      "        Solution: Wait for 10s after killing the last training process and try again.\n"
      "after\n");
  ASSERT_EQ(npu.size(), 1u);
  EXPECT_EQ(npu[0].final().line, 3u);
  EXPECT_EQ(npu[0].lastLine, 6u);
  EXPECT_EQ(npu[0].final().message, "[ERROR] HCCL error in: torch_npu/csrc/distributed/ProcessGroupHCCL.cpp:64");
  auto plain = track(
      "Traceback (most recent call last):\n"
      "  File \"train.py\", line 9, in <module>\n"
      "ValueError: bad\n"
      "EXAMPLE: not a CANN code\n");
  ASSERT_EQ(plain.size(), 1u);
  EXPECT_EQ(plain[0].lastLine, 2u);
  // An exception line with no traceback above it (an excerpt that starts inside one) too, on its
  // own rank only; records still come out in the order of their lines.
  auto bare = track(
      "[rank1]: RuntimeError: npuSynchronizeDevice:torch_npu/csrc/core/npu/NPUStream.cpp:363 NPU error\n"
      "[rank0]: ValueError: first of rank 0\n"
      "[rank1]: EI9999: 2024-07-03-11:28:40.419.527 hccl fftsplus task timeout occurred\n"
      "[rank1]: KeyError: 'x'\n"
      "[rank1]: [ERROR] 2024-07-03-11:28:40 (PID:639, Device:0, RankID:16) ERR00100 PTA call acl api failed.\n");
  ASSERT_EQ(bare.size(), 3u);
  EXPECT_EQ(bare[0].final().type, "RuntimeError");
  EXPECT_EQ(bare[0].lastLine, 0u) << "rank 0's line came between";
  EXPECT_EQ(bare[1].final().type, "ValueError");
  EXPECT_EQ(bare[2].final().type, "KeyError");
  EXPECT_EQ(bare[2].lastLine, 4u);
}

TEST(LogParser, SimpleTraceback) {
  auto tbs = track(
      "before\n"
      "Traceback (most recent call last):\n"
      "  File \"train.py\", line 42, in <module>\n"
      "    main()\n"
      "  File \"train.py\", line 30, in main\n"
      "    raise FloatingPointError(\"loss is nan at step 2\")\n"
      "FloatingPointError: loss is nan at step 2\n"
      "after\n");
  ASSERT_EQ(tbs.size(), 1u);
  EXPECT_EQ(tbs[0].firstLine, 1u);
  EXPECT_EQ(tbs[0].final().type, "FloatingPointError");
  EXPECT_EQ(tbs[0].final().message, "loss is nan at step 2");
  EXPECT_EQ(tbs[0].final().line, 6u);
  ASSERT_NE(tbs[0].userFrame(), nullptr);
  EXPECT_EQ(tbs[0].userFrame()->line, 30);
  EXPECT_EQ(tbs[0].userFrame()->function, "main");
}

TEST(LogParser, ChainedTracebackKeepsBothExceptions) {
  auto tbs = track(
      "Traceback (most recent call last):\n"
      "  File \"/home/u/data.py\", line 5, in load\n"
      "    return d[k]\n"
      "KeyError: 'x'\n"
      "\n"
      "During handling of the above exception, another exception occurred:\n"
      "\n"
      "Traceback (most recent call last):\n"
      "  File \"/usr/lib/python3.11/site-packages/lib.py\", line 9, in get\n"
      "    raise ValueError('bad')\n"
      "ValueError: bad\n");
  ASSERT_EQ(tbs.size(), 1u);
  ASSERT_EQ(tbs[0].chain.size(), 2u);
  EXPECT_EQ(tbs[0].chain[0].type, "KeyError");
  EXPECT_EQ(tbs[0].final().type, "ValueError");
  // The final exception has no user frame; the one before it does.
  ASSERT_NE(tbs[0].userFrame(), nullptr);
  EXPECT_EQ(tbs[0].userFrame()->file, "/home/u/data.py");
}

TEST(LogParser, SpawnWrapperKeepsTheChildsError) {
  auto tbs = track(
      "Traceback (most recent call last):\n"
      "  File \"/w/run.py\", line 30, in <module>\n"
      "    mp.spawn(main, nprocs=2)\n"
      "torch.multiprocessing.spawn.ProcessRaisedException: \n"
      "\n"
      "-- Process 1 terminated with the following error:\n"
      "Traceback (most recent call last):\n"
      "  File \"/w/run.py\", line 12, in main\n"
      "RuntimeError: Expected to have finished reduction in the prior iteration before starting a new one.\n");
  ASSERT_EQ(tbs.size(), 1u);
  ASSERT_EQ(tbs[0].chain.size(), 2u);
  EXPECT_EQ(tbs[0].final().type, "RuntimeError");
  EXPECT_EQ(tbs[0].userFrame()->line, 12);
}

TEST(LogParser, InterleavedRanksKeepSeparateTracebacks) {
  auto tbs = track(
      "[rank0]: Traceback (most recent call last):\n"
      "[rank1]: Traceback (most recent call last):\n"
      "[rank0]:   File \"a.py\", line 1, in f\n"
      "[rank1]:   File \"b.py\", line 2, in g\n"
      "[rank1]: RuntimeError: one\n"
      "[rank0]: ValueError: zero\n");
  ASSERT_EQ(tbs.size(), 2u);
  for (const auto& tb : tbs) {
    if (tb.rank == 0) EXPECT_EQ(tb.final().type, "ValueError");
    else EXPECT_EQ(tb.final().type, "RuntimeError");
  }
}

}  // namespace
}  // namespace denpex::core
