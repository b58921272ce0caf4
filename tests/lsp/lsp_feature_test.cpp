// The language server's features, in-process (tests/support/in_process_client.h): diagnostics,
// hover, code actions applied to a real train.py, commands, links, lenses, positions, growing
// logs, settings. Each test fails when the server sent a message it never read.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <boost/process.hpp>
#include <algorithm>
#include <filesystem>
#include <chrono>
#include <fstream>
#include <future>
#include <thread>

#include "support/files.h"
#include "support/in_process_client.h"
#include "core/render/report.h"
#include "core/rules/rule.h"
#include "lsp/server/worker.h"

namespace denpex::test {
namespace {

namespace bp = boost::process;

// This process's peak resident memory (VmHWM), in MiB.
double peakRssMib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::atof(line.c_str() + 6) / 1024;
  return 0;
}

class Workspace : public ScratchDir {
 protected:
  void openLog(InProcessClient& c, const fs::path& p, const std::string& languageId = "log") {
    c.notify("textDocument/didOpen",
             {{"textDocument", {{"uri", uriOf(p)}, {"languageId", languageId}, {"version", 1}, {"text", readAll(p)}}}});
  }
  json diagnosticsFor(InProcessClient& c, const fs::path& p, bool nonEmpty = true) {
    std::string uri = uriOf(p);
    return c.notification("textDocument/publishDiagnostics", [&](const json& params) {
      return params["uri"] == uri && (!nonEmpty || !params["diagnostics"].empty());
    });
  }
};

TEST_F(Workspace, DiagnosticHoverAndQuickFixOnTheSeedLog) {
  InProcessClient c;
  c.initialize(uriOf(dir_), {{"workspace", {{"workspaceEdit", {{"documentChanges", true}}}}},
                             {"textDocument", {{"codeAction", {{"disabledSupport", true}}}}}});
  openLog(c, dir_ / "train.log");
  json published = diagnosticsFor(c, dir_ / "train.log");
  ASSERT_EQ(published["diagnostics"].size(), 2u);
  EXPECT_EQ(published["version"], 1);
  json d = published["diagnostics"][0];  // the root cause comes first, then its NaN-loss symptom
  EXPECT_EQ(published["diagnostics"][1]["code"], "nan-loss");
  EXPECT_EQ(published["diagnostics"][1]["severity"], 3) << "only the root cause is an error";
  EXPECT_EQ(d["code"], "adamw-eps-fp16-underflow");
  EXPECT_EQ(d["source"], "denpex");
  EXPECT_EQ(d["severity"], 1);
  EXPECT_EQ(d["range"]["start"]["line"], 16);
  EXPECT_NE(d["message"].get<std::string>().find("AdamW epsilon underflow in FP16"), std::string::npos);
  // The rule's page, beside the server (here: the source tree's docs/), not a web address.
  EXPECT_EQ(d["codeDescription"]["href"], uriOf(kSource / "docs/rules/optimizer/adamw-eps-fp16-underflow.md"));
  EXPECT_TRUE(fs::is_regular_file(kSource / "docs/rules/optimizer/adamw-eps-fp16-underflow.md"));
  bool pointsAtSource = false;
  for (const auto& r : d["relatedInformation"])
    pointsAtSource |= r["location"]["uri"] == uriOf(dir_ / "train.py") && r["location"]["range"]["start"]["line"] == 50;
  EXPECT_TRUE(pointsAtSource) << d.dump(2);

  json hover = c.call("textDocument/hover", {{"textDocument", {{"uri", uriOf(dir_ / "train.log")}}},
                                             {"position", {{"line", 16}, {"character", 3}}}});
  std::string md = hover["result"]["contents"]["value"];
  for (const char* s : {"AdamW epsilon underflow in FP16", "Root cause", "Mechanism", "How to confirm", "Fix", "Verify", "Related"})
    EXPECT_NE(md.find(s), std::string::npos) << s;
  json none = c.call("textDocument/hover", {{"textDocument", {{"uri", uriOf(dir_ / "train.log")}}},
                                            {"position", {{"line", 2}, {"character", 0}}}});
  EXPECT_TRUE(none["result"].is_null());

  // Neovim 0.7 sends ranges back in bytes: the action must be found through `data` alone.
  json sentBack = d;
  sentBack["range"] = {{"start", {{"line", 0}, {"character", 0}}}, {"end", {{"line", 0}, {"character", 0}}}};
  json actions = c.call("textDocument/codeAction", {{"textDocument", {{"uri", uriOf(dir_ / "train.log")}}},
                                                    {"range", d["range"]},
                                                    {"context", {{"diagnostics", {sentBack}}}}})["result"];
  ASSERT_EQ(actions.size(), 1u) << actions.dump(2);
  EXPECT_EQ(actions[0]["title"], "Set eps=1e-5 in torch.optim.AdamW(...) (train.py:40)");
  EXPECT_EQ(actions[0]["kind"], "quickfix");
  EXPECT_EQ(actions[0]["isPreferred"], true);
  const json& change = actions[0]["edit"]["documentChanges"][0];
  EXPECT_EQ(change["textDocument"]["uri"], uriOf(dir_ / "train.py"));
  EXPECT_TRUE(change["textDocument"]["version"].is_null());  // not open in the editor
  std::string fixed = applyLspEdits(readAll(dir_ / "train.py"), change["edits"]);
  std::ofstream(dir_ / "train.py") << fixed;
  EXPECT_NE(fixed.find("optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, eps=1e-5)\n"), std::string::npos);
  EXPECT_EQ(bp::system(bp::search_path("python3"), "-m", "py_compile", (dir_ / "train.py").string()), 0);

  // Now the call is safe: the action is offered disabled, with the reason.
  json after = c.call("textDocument/codeAction", {{"textDocument", {{"uri", uriOf(dir_ / "train.log")}}},
                                                  {"range", d["range"]},
                                                  {"context", {{"diagnostics", {d}}}}})["result"];
  ASSERT_EQ(after.size(), 1u);
  EXPECT_NE(after[0]["disabled"]["reason"].get<std::string>().find("already has eps=1e-5"), std::string::npos);
  EXPECT_EQ(c.call("codeAction/resolve", after[0])["result"], after[0]);
}

// A fix offered on a log edits another file: a client that supports change annotations gets the
// edit marked for confirmation (VS Code shows it for review first); one that does not, a plain edit.
TEST_F(Workspace, AFixInAnotherFileAsksForConfirmationWhereTheClientCan) {
  for (bool annotations : {true, false}) {
    InProcessClient c;
    json edit = {{"documentChanges", true}};
    if (annotations) edit["changeAnnotationSupport"] = {{"groupsOnLabel", true}};
    c.initialize(uriOf(dir_), {{"workspace", {{"workspaceEdit", edit}}}});
    openLog(c, dir_ / "train.log");
    json d = diagnosticsFor(c, dir_ / "train.log")["diagnostics"][0];
    json actions = c.call("textDocument/codeAction", {{"textDocument", {{"uri", uriOf(dir_ / "train.log")}}},
                                                      {"range", d["range"]},
                                                      {"context", {{"diagnostics", {d}}}}})["result"];
    ASSERT_EQ(actions.size(), 1u) << actions.dump(2);
    const json& workspaceEdit = actions[0]["edit"];
    const json& edits = workspaceEdit["documentChanges"][0]["edits"];
    ASSERT_EQ(edits.size(), 1u);
    if (annotations) {
      EXPECT_EQ(edits[0]["annotationId"], "denpex.fix");
      const json& a = workspaceEdit["changeAnnotations"]["denpex.fix"];
      EXPECT_EQ(a["label"], "Edit train.py");
      EXPECT_EQ(a["needsConfirmation"], true);
      EXPECT_EQ(a["description"], "a denpex fix: Set eps=1e-5 in torch.optim.AdamW(...) (train.py:40)");
    } else {
      EXPECT_FALSE(edits[0].contains("annotationId")) << workspaceEdit.dump(2);
      EXPECT_FALSE(workspaceEdit.contains("changeAnnotations")) << workspaceEdit.dump(2);
    }
  }
}

TEST_F(Workspace, OpenSourceFilesGetVersionedEditsFromTheirBuffer) {
  InProcessClient c;
  c.initialize(uriOf(dir_), {{"workspace", {{"workspaceEdit", {{"documentChanges", true}}}}}});
  // The buffer differs from the disk: the edit must be computed from the buffer.
  std::string buffer = "# unsaved comment\n" + readAll(dir_ / "train.py");
  c.notify("textDocument/didOpen", {{"textDocument", {{"uri", uriOf(dir_ / "train.py")}, {"languageId", "python"}, {"version", 7}, {"text", buffer}}}});
  // The script itself is checked before the run (the seed configuration is in it).
  EXPECT_EQ(diagnosticsFor(c, dir_ / "train.py")["diagnostics"][0]["code"], "adamw-eps-fp16-underflow");
  openLog(c, dir_ / "train.log");
  json d = diagnosticsFor(c, dir_ / "train.log")["diagnostics"][0];
  json actions = c.call("textDocument/codeAction", {{"textDocument", {{"uri", uriOf(dir_ / "train.log")}}},
                                                    {"range", d["range"]}, {"context", {{"diagnostics", {d}}}}})["result"];
  ASSERT_EQ(actions.size(), 1u);
  EXPECT_EQ(actions[0]["title"], "Set eps=1e-5 in torch.optim.AdamW(...) (train.py:41)");
  const json& change = actions[0]["edit"]["documentChanges"][0];
  EXPECT_EQ(change["textDocument"]["version"], 7);
  EXPECT_NE(applyLspEdits(buffer, change["edits"]).find("lr=1e-3, eps=1e-5)"), std::string::npos);
}

TEST_F(Workspace, NoCallFoundGivesADisabledActionWithItsReason) {
  std::ofstream(dir_ / "train.py") << "import torch\nopt = torch.optim.SGD(params, lr=0.1)\n";
  fs::remove(dir_ / "fp16_adamw_cpu.py");
  InProcessClient c;
  c.initialize(uriOf(dir_), {{"textDocument", {{"codeAction", {{"disabledSupport", true}}}}}});
  openLog(c, dir_ / "train.log");
  json d = diagnosticsFor(c, dir_ / "train.log")["diagnostics"][0];
  json actions = c.call("textDocument/codeAction", {{"textDocument", {{"uri", uriOf(dir_ / "train.log")}}},
                                                    {"range", d["range"]}, {"context", {{"diagnostics", {d}}}}})["result"];
  ASSERT_EQ(actions.size(), 1u) << actions.dump(2);
  EXPECT_EQ(actions[0]["disabled"]["reason"], "no torch.optim.AdamW(...) or transformers.TrainingArguments(...) call in train.py");
  EXPECT_FALSE(actions[0].contains("edit"));
}

TEST_F(Workspace, DiagnoseCommandOnTextAndOnADocumentRange) {
  InProcessClient c;
  c.initialize(uriOf(dir_));
  json fromText = c.call("workspace/executeCommand",
                         {{"command", "denpex.diagnose"}, {"arguments", {{{"text", readAll(dir_ / "train.log")}}}}})["result"];
  ASSERT_EQ(fromText["findings"].size(), 2u);
  EXPECT_EQ(fromText["findings"][0]["rule"], "adamw-eps-fp16-underflow");
  EXPECT_EQ(fromText["findings"][0]["edits"][0]["applicable"], true);

  // A traceback pasted into notes.md, lines 3-6; only the selection is diagnosed.
  std::string notes = "# notes\n\nTraceback (most recent call last):\n  File \"train.py\", line 9, in <module>\n"
                      "RuntimeError: CUDA out of memory. Tried to allocate 2.00 MiB\nmore notes\n";
  std::string uri = uriOf(dir_ / "notes.md");
  c.notify("textDocument/didOpen", {{"textDocument", {{"uri", uri}, {"languageId", "markdown"}, {"version", 1}, {"text", notes}}}});
  json range = {{"start", {{"line", 2}, {"character", 0}}}, {"end", {{"line", 5}, {"character", 0}}}};
  json result = c.call("workspace/executeCommand", {{"command", "denpex.diagnose"}, {"arguments", {{{"uri", uri}, {"range", range}}}}})["result"];
  ASSERT_EQ(result["findings"].size(), 1u);
  EXPECT_EQ(result["findings"][0]["rule"], "cuda-out-of-memory");
  json published = c.notification("textDocument/publishDiagnostics", [&](const json& p) { return p["uri"] == uri; });
  ASSERT_EQ(published["diagnostics"].size(), 1u);
  EXPECT_EQ(published["diagnostics"][0]["range"]["start"]["line"], 4);
  EXPECT_EQ(published["diagnostics"][0]["range"]["start"]["character"], 14);

  json bad = c.call("workspace/executeCommand", {{"command", "denpex.diagnose"}, {"arguments", {42}}});
  EXPECT_EQ(bad["error"]["code"], -32602);
  json unknownRule = c.call("workspace/executeCommand", {{"command", "denpex.explain"}, {"arguments", {"nope"}}});
  EXPECT_EQ(unknownRule["error"]["code"], -32602);
}

TEST_F(Workspace, DiagnoseCommandOnAFolderOfPerRankLogs) {
  InProcessClient c;
  c.allowUnread("textDocument/publishDiagnostics");  // one publication per rank file; the test reads rank 2's
  c.initialize(uriOf(dir_));
  fs::path logs = kSource / "tests/distributed/raise-logdir/logs";
  json result = c.call("workspace/executeCommand", {{"command", "denpex.diagnose"}, {"arguments", {{{"folder", logs.string()}}}}})["result"];
  EXPECT_EQ(result["incident"]["initiating_rank"], 2) << result["incident"].dump(2);
  // The initiating failure is published on rank 2's stderr.log.
  json published = c.notification("textDocument/publishDiagnostics", [](const json& p) {
    return p["uri"].get<std::string>().find("/attempt_0/2/stderr.log") != std::string::npos && !p["diagnostics"].empty();
  });
  EXPECT_NE(published["diagnostics"][0]["message"].get<std::string>().find("[rank 2 failed first]"), std::string::npos)
      << published.dump(2);
  json bad = c.call("workspace/executeCommand", {{"command", "denpex.diagnose"}, {"arguments", {{{"folder", "/no/such/folder"}}}}});
  EXPECT_EQ(bad["error"]["code"], -32602);
}

// A log the editor does not hand over (VS Code keeps files over 50 MB from extensions) is
// diagnosed by its URI, from disk, off the main thread: a hover sent after it is answered first,
// progress comes on the client's workDoneToken, the findings are published on the file, and a
// request cancelled while it runs is answered with RequestCancelled.
TEST_F(Workspace, ABigLogOnDiskIsDiagnosedOffTheMainThreadWithProgressAndCanBeCancelled) {
  InProcessClient c;
  c.initialize(uriOf(dir_));
  fs::path big = dir_ / "big.log";
  int fillerLines = 0;
  {
    std::ofstream out(big, std::ios::binary);
    std::string filler;
    for (int i = 0; i < 1000; ++i) filler += "INFO data - prefetched shard " + std::to_string(i) + " of 4096 (1024 samples, 3.2 s)\n";
    while (static_cast<size_t>(out.tellp()) < (60u << 20)) {
      out << filler;
      fillerLines += 1000;
    }
    out << readAll(kSource / "examples/fp16-adamw/train.log");
  }
  std::string uri = uriOf(big);
  std::string notes = uriOf(dir_ / "notes.md");
  c.notify("textDocument/didOpen", {{"textDocument", {{"uri", notes}, {"languageId", "markdown"}, {"version", 1}, {"text", "# notes\n"}}}});

  int diagnose = c.request("workspace/executeCommand",
                           {{"command", "denpex.diagnose"}, {"arguments", {{{"uri", uri}}}}, {"workDoneToken", "big-1"}});
  int hover = c.request("textDocument/hover", {{"textDocument", {{"uri", notes}}}, {"position", {{"line", 0}, {"character", 2}}}});
  c.response(hover);
  auto isReply = [&](int id) { return [id](const json& m) { return m.contains("id") && m["id"] == id && !m.contains("method"); }; };
  EXPECT_FALSE(c.arrived(isReply(diagnose))) << "the hover waited for the diagnosis";

  json result = c.response(diagnose, std::chrono::seconds(120));
  ASSERT_TRUE(result.contains("result")) << result.dump().substr(0, 300);
  EXPECT_EQ(result["result"]["findings"][0]["rule"], "adamw-eps-fp16-underflow");
  json published = diagnosticsFor(c, big);
  EXPECT_EQ(published["diagnostics"][0]["code"], "adamw-eps-fp16-underflow");
  EXPECT_EQ(published["diagnostics"][0]["range"]["start"]["line"], fillerLines + 16);  // train.log's NaN line
  // Progress on the token: begin, reports that only grow, end.
  auto progress = [&] {
    return c.notification("$/progress", [](const json& p) { return p["token"] == "big-1"; })["value"];
  };
  json begin = progress();
  EXPECT_EQ(begin["kind"], "begin");
  EXPECT_EQ(begin["title"], "denpex: diagnosing big.log");
  EXPECT_EQ(begin["cancellable"], true);
  int last = 0, reports = 0;
  json value = progress();
  for (; value["kind"] == "report"; value = progress(), ++reports) {
    EXPECT_GT(value["percentage"].get<int>(), last);
    last = value["percentage"].get<int>();
  }
  EXPECT_GE(reports, 10);
  EXPECT_EQ(value["kind"], "end");
  EXPECT_EQ(value["message"], "AdamW epsilon underflow in FP16 (+1 more)");

  // Cancelled: a RequestCancelled answer, whether the cancel found it queued or running.
  int cancelled = c.request("workspace/executeCommand", {{"command", "denpex.diagnose"}, {"arguments", {{{"uri", uri}}}}});
  c.notify("$/cancelRequest", {{"id", cancelled}});
  EXPECT_EQ(c.response(cancelled)["error"]["code"], -32800);
  c.allowUnread("$/progress");
  c.allowUnread("textDocument/publishDiagnostics");
}

// A log diagnosed from disk is streamed, never held whole, and its evidence lines are read again
// for their positions: its diagnostics are those of the same log open in the editor, to the
// character (UTF-16 code units past text outside ASCII, CRLF line ends, links to other ranks).
TEST_F(Workspace, ALogDiagnosedFromDiskHasTheRangesItHasWhenOpen) {
  writeAll(dir_ / "crlf.log",
           "Epoch 3 \xF0\x9F\x98\x80 \xC3\xA9tape 12\r\nTraceback (most recent call last):\r\n"
           "  File \"train.py\", line 9, in <module>\r\n"
           "\xE2\x9C\x97 RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB\r\n");
  fs::copy_file(kSource / "tests/distributed/raise-tee/torchrun.log", dir_ / "torchrun.log");
  for (const char* name : {"train.log", "torchrun.log", "crlf.log"}) {
    SCOPED_TRACE(name);
    InProcessClient c;
    c.initialize(uriOf(dir_));
    const fs::path log = dir_ / name;
    json result = c.response(
        c.request("workspace/executeCommand", {{"command", "denpex.diagnose"}, {"arguments", {{{"uri", uriOf(log)}}}}}),
        std::chrono::seconds(60));
    ASSERT_TRUE(result.contains("result")) << result.dump().substr(0, 300);
    json fromDisk = diagnosticsFor(c, log)["diagnostics"];
    openLog(c, log);
    json open = diagnosticsFor(c, log)["diagnostics"];
    ASSERT_EQ(fromDisk.size(), open.size()) << fromDisk.dump(1) << open.dump(1);
    for (size_t i = 0; i < open.size(); ++i) {
      EXPECT_EQ(fromDisk[i]["code"], open[i]["code"]);
      EXPECT_EQ(fromDisk[i]["range"], open[i]["range"]) << open[i]["code"];
      EXPECT_EQ(fromDisk[i]["message"], open[i]["message"]);
      EXPECT_EQ(fromDisk[i].value("relatedInformation", json()), open[i].value("relatedInformation", json()));
    }
    if (std::string(name) == "crlf.log") {
      // After "✗ " (two UTF-16 code units, four bytes) on the fourth line.
      ASSERT_FALSE(open.empty());
      EXPECT_EQ(open[0]["range"]["start"]["line"], 3);
      EXPECT_EQ(open[0]["range"]["start"]["character"], 2 + std::string("RuntimeError: ").size()) << open[0].dump();
    }
  }
}

// A diagnosis begun elsewhere (what the server read of a log while its didOpen arrived) is
// where the worker goes on from: the result is the diagnosis of the whole text, byte for byte,
// with findings before the hand-over point and after it.
TEST(DiagnosisWorkerSeed, GoesOnFromASeedToTheWholeTextsDiagnosis) {
  using lsp::DiagnosisWorker;
  using lsp::DocumentStore;
  auto rules = std::make_shared<const io::LoadedRules>(io::loadRules({}));
  std::string filler;
  for (int i = 0; i < 3000; ++i) filler += "[rank" + std::to_string(i % 4) + "]:step " + std::to_string(i) + " | loss 0.69 | grad_norm 0.12\n";
  const std::string text = readAll(kSource / "examples/fp16-adamw/train.log") + filler +
                           readAll(kSource / "tests/distributed/raise-tee/torchrun.log") + filler +
                           readAll(kSource / "examples/fp16-adamw/train.log");
  const size_t cut = text.find('\n', text.size() / 2) + 1;  // a line's end, between the failures
  const std::string uri = "file:///tmp/denpex-seed/seed.log";
  DocumentStore documents;
  documents.open(uri, "log", 1, text);
  std::promise<void> done;
  DiagnosisWorker worker(documents, [&] { return rules; }, [&](const std::string&) { done.set_value(); });
  auto seed = std::make_unique<core::Diagnoser>(rules->rules, *rules->matcher);
  seed->beginSource("");
  seed->addText(std::string_view(text).substr(0, cut));
  worker.schedule(uri, {std::move(seed), rules, documents.view(uri)->text, cut});
  worker.start();
  ASSERT_EQ(done.get_future().wait_for(std::chrono::seconds(60)), std::future_status::ready);
  auto got = documents.view(uri)->diagnosis;
  ASSERT_TRUE(got);
  const core::Diagnosis want = core::diagnoseText(rules->rules, *rules->matcher, text, "seed.log");
  auto json = [](const core::Diagnosis& d) {
    return core::renderJson({d, std::vector<std::vector<core::FixPlan>>(d.findings.size())});
  };
  EXPECT_EQ(json(*got), json(want));
  EXPECT_GE(want.findings.size(), 3u);
  worker.stop();
}

TEST_F(Workspace, DistributedLogNamesTheInitiatingRankAndLinksTheCollateral) {
  InProcessClient c;
  c.initialize(uriOf(dir_));
  fs::copy_file(kSource / "tests/distributed/raise-tee/torchrun.log", dir_ / "torchrun.log");
  openLog(c, dir_ / "torchrun.log");
  json diags = diagnosticsFor(c, dir_ / "torchrun.log")["diagnostics"];
  ASSERT_EQ(diags.size(), 3u);  // rank 2's IndexError, the others' gloo errors, torchrun's summary
  const json& first = diags[0];
  EXPECT_EQ(first["severity"], 1);
  EXPECT_NE(first["message"].get<std::string>().find("IndexError"), std::string::npos) << first.dump(2);
  bool linksCollateral = false;
  for (const auto& r : first["relatedInformation"]) linksCollateral |= r["message"].get<std::string>().rfind("collateral: ", 0) == 0;
  EXPECT_TRUE(linksCollateral) << first.dump(2);
  bool sawCollateral = false;
  for (const auto& d : diags) {
    if (d["code"] != "gloo-connection-closed") continue;
    sawCollateral = true;
    EXPECT_EQ(d["severity"], 3);
    bool linksInitiator = false;
    for (const auto& r : d["relatedInformation"]) linksInitiator |= r["message"].get<std::string>().rfind("initiating failure: ", 0) == 0;
    EXPECT_TRUE(linksInitiator) << d.dump(2);
  }
  EXPECT_TRUE(sawCollateral);
  json hover = c.call("textDocument/hover", {{"textDocument", {{"uri", uriOf(dir_ / "torchrun.log")}}}, {"position", first["range"]["start"]}});
  std::string md = hover["result"]["contents"]["value"];
  EXPECT_NE(md.find("**Rank 2 failed first**"), std::string::npos) << md;
  EXPECT_NE(md.find("| 0 | localhost | collateral |"), std::string::npos) << md;
}

// The seed failure recorded on 4 ranks (tests/distributed/seed-tee): rank 0 printed the dtype and
// the optimizer, rank 2's loss turned NaN at step 301. In the editor the epsilon finding comes
// first, names rank 2, and its quick fix edits the AdamW call of the script the traceback names.
TEST_F(Workspace, TheRecordedMultiRankSeedFailureGetsTheEpsFixInTheEditor) {
  InProcessClient c;
  c.initialize(uriOf(dir_), {{"workspace", {{"workspaceEdit", {{"documentChanges", true}}}}}});
  fs::create_directories(dir_ / "examples/distributed");
  fs::copy_file(kSource / "examples/distributed/seed_worker.py", dir_ / "examples/distributed/seed_worker.py");
  fs::copy_file(kSource / "tests/distributed/seed-tee/torchrun.log", dir_ / "torchrun.log");
  openLog(c, dir_ / "torchrun.log");
  json diags = diagnosticsFor(c, dir_ / "torchrun.log")["diagnostics"];
  ASSERT_EQ(diags.size(), 4u);  // the cause, its NaN symptom, the others' gloo errors, torchrun's summary
  const json& d = diags[0];
  EXPECT_EQ(d["code"], "adamw-eps-fp16-underflow");
  EXPECT_EQ(d["severity"], 1);
  EXPECT_NE(d["message"].get<std::string>().find("[rank 2 failed first]"), std::string::npos) << d["message"];
  EXPECT_EQ(diags[1]["code"], "nan-loss");
  json hover = c.call("textDocument/hover", {{"textDocument", {{"uri", uriOf(dir_ / "torchrun.log")}}}, {"position", d["range"]["start"]}});
  std::string md = hover["result"]["contents"]["value"];
  EXPECT_LT(md.find("AdamW epsilon underflow in FP16"), md.find("Training loss became NaN")) << md;
  EXPECT_NE(md.find("**Rank 2 failed first**"), std::string::npos) << md;
  json actions = c.call("textDocument/codeAction", {{"textDocument", {{"uri", uriOf(dir_ / "torchrun.log")}}},
                                                    {"range", d["range"]},
                                                    {"context", {{"diagnostics", {d}}}}})["result"];
  ASSERT_EQ(actions.size(), 1u) << actions.dump(2);
  const json& change = actions[0]["edit"]["documentChanges"][0];
  EXPECT_EQ(change["textDocument"]["uri"], uriOf(dir_ / "examples/distributed/seed_worker.py"));
  std::string fixed = applyLspEdits(readAll(dir_ / "examples/distributed/seed_worker.py"), change["edits"]);
  EXPECT_NE(fixed.find("optimizer = torch.optim.AdamW(params, lr=1e-2, eps=1e-5)\n"), std::string::npos) << fixed;
}

// Before the run: train.py opened in the editor (the seed configuration: MLP().half() and
// AdamW's default eps) gets the runtime rule's diagnostic on the optimizer, saying it fails at run
// time and linking the rule's page; its quick fix sets eps=1e-5 in the open buffer, after which
// the script is clean.
TEST_F(Workspace, ATrainingScriptIsCheckedBeforeTheRunWithTheRulesFix) {
  InProcessClient c;
  c.initialize(uriOf(dir_), {{"workspace", {{"workspaceEdit", {{"documentChanges", true}}}}}});
  std::string uri = uriOf(dir_ / "train.py");
  std::string text = readAll(dir_ / "train.py");
  c.notify("textDocument/didOpen", {{"textDocument", {{"uri", uri}, {"languageId", "python"}, {"version", 1}, {"text", text}}}});
  json published = diagnosticsFor(c, dir_ / "train.py");
  ASSERT_EQ(published["diagnostics"].size(), 1u) << published.dump(2);
  const json& d = published["diagnostics"][0];
  EXPECT_EQ(d["code"], "adamw-eps-fp16-underflow");
  EXPECT_EQ(d["severity"], 1);
  EXPECT_EQ(d["range"]["start"]["line"], 39);  // optimizer = torch.optim.AdamW(...)
  EXPECT_EQ(d["message"], "AdamW epsilon underflow in FP16: this configuration fails with adamw-eps-fp16-underflow at run time");
  EXPECT_EQ(d["codeDescription"]["href"], uriOf(kSource / "docs/rules/optimizer/adamw-eps-fp16-underflow.md"));
  bool pointsAtCast = false;
  for (const auto& r : d["relatedInformation"])
    pointsAtCast |= r["location"]["uri"] == uri && r["location"]["range"]["start"]["line"] == 37;
  EXPECT_TRUE(pointsAtCast) << d.dump(2);  // model = MLP().half()
  json actions = c.call("textDocument/codeAction", {{"textDocument", {{"uri", uri}}}, {"range", d["range"]},
                                                    {"context", {{"diagnostics", {d}}}}})["result"];
  ASSERT_EQ(actions.size(), 1u) << actions.dump(2);
  EXPECT_EQ(actions[0]["title"], "Set eps=1e-5 in torch.optim.AdamW(...) (train.py:40)");
  const json& change = actions[0]["edit"]["documentChanges"][0];
  EXPECT_EQ(change["textDocument"]["uri"], uri);
  EXPECT_EQ(change["textDocument"]["version"], 1);  // the open buffer
  std::string fixed = applyLspEdits(text, change["edits"]);
  EXPECT_NE(fixed.find("optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, eps=1e-5)\n"), std::string::npos);
  c.notify("textDocument/didChange", {{"textDocument", {{"uri", uri}, {"version", 2}}}, {"contentChanges", {{{"text", fixed}}}}});
  json after = c.notification("textDocument/publishDiagnostics", [&](const json& p) { return p["uri"] == uri && p["version"] == 2; });
  EXPECT_TRUE(after["diagnostics"].empty()) << after.dump(2);
}

// Check 3 in the editor: a DeepSpeed config that cannot start is flagged in its own buffer, and a
// script whose TrainingArguments disagree with the config it names is flagged on the arguments,
// pointing into the config, whose quick fix edits the config (not the script).
TEST_F(Workspace, DeepSpeedConfigsAreCheckedAloneAndAgainstTheScriptThatNamesThem) {
  writeAll(dir_ / "both.json", "{\n  \"zero_optimization\": {\"stage\": 2},\n  \"fp16\": {\"enabled\": true},\n"
                               "  \"bf16\": {\"enabled\": true}\n}\n");
  writeAll(dir_ / "ds.json", "{\n  \"zero_optimization\": {\"stage\": 3},\n  \"fp16\": {\n    \"enabled\": true\n  }\n}\n");
  writeAll(dir_ / "sft.py", "from transformers import Trainer, TrainingArguments\n"
                            "args = TrainingArguments(output_dir='o', bf16=True, deepspeed='ds.json')\n"
                            "Trainer(model=model, args=args).train()\n");
  InProcessClient c;
  c.initialize(uriOf(dir_), {{"workspace", {{"workspaceEdit", {{"documentChanges", true}}}}}});
  std::string both = uriOf(dir_ / "both.json");
  c.notify("textDocument/didOpen", {{"textDocument", {{"uri", both}, {"languageId", "json"}, {"version", 1}, {"text", readAll(dir_ / "both.json")}}}});
  json alone = diagnosticsFor(c, dir_ / "both.json");
  ASSERT_EQ(alone["diagnostics"].size(), 1u) << alone.dump(2);
  EXPECT_EQ(alone["diagnostics"][0]["code"], "deepspeed-fp16-bf16-both-enabled");
  EXPECT_EQ(alone["diagnostics"][0]["range"]["start"]["line"], 3);  // "bf16": {"enabled": true}

  std::string script = uriOf(dir_ / "sft.py");
  c.notify("textDocument/didOpen", {{"textDocument", {{"uri", script}, {"languageId", "python"}, {"version", 1}, {"text", readAll(dir_ / "sft.py")}}}});
  json published = diagnosticsFor(c, dir_ / "sft.py");
  ASSERT_EQ(published["diagnostics"].size(), 1u) << published.dump(2);
  const json& d = published["diagnostics"][0];
  EXPECT_EQ(d["code"], "deepspeed-config-mismatch-training-arguments");
  EXPECT_EQ(d["range"]["start"]["line"], 1);  // TrainingArguments(...)
  bool pointsAtConfig = false;
  for (const auto& r : d["relatedInformation"])
    pointsAtConfig |= r["location"]["uri"] == uriOf(dir_ / "ds.json") && r["location"]["range"]["start"]["line"] == 3;
  EXPECT_TRUE(pointsAtConfig) << d.dump(2);
  json actions = c.call("textDocument/codeAction", {{"textDocument", {{"uri", script}}}, {"range", d["range"]},
                                                    {"context", {{"diagnostics", {d}}}}})["result"];
  ASSERT_EQ(actions.size(), 1u) << actions.dump(2);
  EXPECT_EQ(actions[0]["title"], "Set fp16.enabled=\"auto\", was true (ds.json:4)");
  json edit = actions[0].contains("edit") ? actions[0]["edit"]
                                          : c.call("codeAction/resolve", actions[0])["result"]["edit"];
  const json& change = edit["documentChanges"][0];
  EXPECT_EQ(change["textDocument"]["uri"], uriOf(dir_ / "ds.json"));
  std::string fixed = applyLspEdits(readAll(dir_ / "ds.json"), change["edits"]);
  EXPECT_NE(fixed.find("\"enabled\": \"auto\""), std::string::npos) << fixed;

  // An Accelerate config naming the same DeepSpeed file, with bf16: flagged on mixed_precision.
  writeAll(dir_ / "accelerate.yaml", "deepspeed_config:\n  deepspeed_config_file: ds.json\ndistributed_type: DEEPSPEED\n"
                                     "mixed_precision: bf16\nnum_processes: 2\n");
  std::string yaml = uriOf(dir_ / "accelerate.yaml");
  c.notify("textDocument/didOpen", {{"textDocument", {{"uri", yaml}, {"languageId", "yaml"}, {"version", 1}, {"text", readAll(dir_ / "accelerate.yaml")}}}});
  json onYaml = diagnosticsFor(c, dir_ / "accelerate.yaml");
  ASSERT_EQ(onYaml["diagnostics"].size(), 1u) << onYaml.dump(2);
  EXPECT_EQ(onYaml["diagnostics"][0]["code"], "deepspeed-config-mismatch-training-arguments");
  EXPECT_EQ(onYaml["diagnostics"][0]["range"]["start"]["line"], 3);
}

// Check 6 in the editor: the `probe` setting names a probe file (made on the machine the jobs
// run on); open scripts are checked against it, and again when it changes. A file that is not a
// probe is said, not used. The server itself never probes.
TEST_F(Workspace, ScriptsAreCheckedAgainstTheProbeFileTheSettingsName) {
  fs::copy_file(kSource / "tests/check_corpus/probes/v100-docker-driver-470.json", dir_ / "node.json");
  fs::copy_file(kSource / "tests/check_corpus/positives/bf16_dataloader_workers.py", dir_ / "job.py");
  InProcessClient c;
  c.initialize(uriOf(dir_), json::object(), {{"probe", "node.json"}});
  std::string uri = uriOf(dir_ / "job.py");
  c.notify("textDocument/didOpen", {{"textDocument", {{"uri", uri}, {"languageId", "python"}, {"version", 1}, {"text", readAll(dir_ / "job.py")}}}});
  json published = diagnosticsFor(c, dir_ / "job.py");
  std::vector<std::string> codes;
  for (const auto& d : published["diagnostics"]) codes.push_back(d["code"].get<std::string>());
  std::sort(codes.begin(), codes.end());
  EXPECT_EQ(codes, (std::vector<std::string>{"bf16-unsupported-gpu", "cuda-driver-too-old", "dataloader-shm-exhausted"})) << published.dump(2);
  c.notify("workspace/didChangeConfiguration", {{"settings", {{"denpex", {{"probe", ""}}}}}});
  json cleared = c.notification("textDocument/publishDiagnostics", [&](const json& p) { return p["uri"] == uri && p["diagnostics"].empty(); });
  EXPECT_TRUE(cleared["diagnostics"].empty());
  c.notify("workspace/didChangeConfiguration", {{"settings", {{"denpex", {{"probe", "job.py"}}}}}});
  json warning = c.notification("window/showMessage", [](const json& p) { return p.value("message", "").find("probe file") != std::string::npos; });
  EXPECT_NE(warning["message"].get<std::string>().find("job.py: not a probe file"), std::string::npos) << warning.dump();
  json again = c.notification("textDocument/publishDiagnostics", [&](const json& p) { return p["uri"] == uri; });
  EXPECT_TRUE(again["diagnostics"].empty()) << again.dump(2);  // checked with no machine
}

// Every positive of the check corpus, opened in the editor, shows its finding: the server checks
// what `denpex check` checks, the configs a document names included.
TEST_F(Workspace, EveryPositiveOfTheCheckCorpusIsFlaggedInTheEditor) {
  const fs::path positives = kSource / "tests/check_corpus/positives";
  fs::copy(positives, dir_ / "positives", fs::copy_options::recursive);
  // The JSON configs first: a config opened later re-checks the scripts already open.
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"ds_batch_sizes.json", "deepspeed-batch-size-mismatch"},
      {"ds_fp16_and_bf16.json", "deepspeed-fp16-bf16-both-enabled"},
      {"ds_bf16_loss_scaling.json", "deepspeed-config-unknown-key"},
      {"ds_zero3_nvme_aio_in_zero.json", "deepspeed-config-unknown-key"},
      {"accelerate_bf16_vs_ds_fp16/default_config.yaml", "deepspeed-config-mismatch-training-arguments"},
      {"ddp_unused_head.py", "ddp-unused-parameters"},
      {"ds_trainer_mismatch/finetune.py", "deepspeed-config-mismatch-training-arguments"},
      {"flash_attention_float32_generate.py", "flash-attention-dtype"},
      {"flash_attention_trainer_without_mixed_precision.py", "flash-attention-dtype"},
      {"fp16_load_trainer_fp16.py", "grad-scaler-fp16-params"},
      {"fp16_reward_model_trainer.py", "adamw-eps-fp16-underflow"},
      {"half_model_adamw_default_eps.py", "adamw-eps-fp16-underflow"},
      {"half_model_grad_scaler.py", "grad-scaler-fp16-params"},
      {"half_model_trainer_default_eps.py", "adamw-eps-fp16-underflow"},
      {"lightning_unused_head.py", "ddp-unused-parameters"},
      {"recipe_fp16_load_default_eps.yaml", "adamw-eps-fp16-underflow"},
      {"recipe_fp16_load_fp16_true.yaml", "grad-scaler-fp16-params"},
  };
  InProcessClient c;
  c.initialize(uriOf(dir_));
  for (const auto& [file, rule] : expected) {
    fs::path path = dir_ / "positives" / file;
    std::string ext = path.extension().string();
    std::string language = ext == ".py" ? "python" : ext == ".json" ? "json" : "yaml";
    c.notify("textDocument/didOpen", {{"textDocument", {{"uri", uriOf(path)}, {"languageId", language}, {"version", 1}, {"text", readAll(path)}}}});
    json published = diagnosticsFor(c, path);
    ASSERT_EQ(published["diagnostics"].size(), 1u) << file << "\n" << published.dump(2);
    EXPECT_EQ(published["diagnostics"][0]["code"], rule) << file;
    EXPECT_NE(published["diagnostics"][0]["message"].get<std::string>().find("this configuration fails with " + rule + " at run time"),
              std::string::npos) << file;
  }
}

TEST_F(Workspace, DocumentLinksAndCodeLens) {
  InProcessClient c;
  json init = c.initialize(uriOf(dir_));
  openLog(c, dir_ / "train.log");
  diagnosticsFor(c, dir_ / "train.log");
  json links = c.call("textDocument/documentLink", {{"textDocument", {{"uri", uriOf(dir_ / "train.log")}}}})["result"];
  ASSERT_EQ(links.size(), 1u) << links.dump(2);
  EXPECT_EQ(links[0]["target"], uriOf(dir_ / "train.py") + "#L51");
  EXPECT_EQ(links[0]["range"]["start"]["line"], 14);
  json lenses = c.call("textDocument/codeLens", {{"textDocument", {{"uri", uriOf(dir_ / "train.log")}}}})["result"];
  ASSERT_EQ(lenses.size(), 1u);
  EXPECT_EQ(lenses[0]["command"]["title"], "denpex: AdamW epsilon underflow in FP16");
  EXPECT_EQ(lenses[0]["range"]["start"]["line"], 5);  // the first evidence line (eps: 1e-08)
  // The lens names a command the server advertises, so any client can run it.
  EXPECT_EQ(lenses[0]["command"]["command"], "denpex.explain");
  const json& advertised = init["result"]["capabilities"]["executeCommandProvider"]["commands"];
  EXPECT_NE(std::find(advertised.begin(), advertised.end(), lenses[0]["command"]["command"]), advertised.end()) << advertised.dump();
  json lensRun = c.call("workspace/executeCommand", lenses[0]["command"]);
  EXPECT_NE(lensRun["result"].get<std::string>().find("## Root cause"), std::string::npos);
  json rules = c.call("workspace/executeCommand", {{"command", "denpex.rules"}})["result"];
  EXPECT_EQ(rules.size(), core::builtinRuleSources().size());
  for (const auto& r : rules) EXPECT_TRUE(r.contains("id") && r.contains("title") && r.contains("category")) << r.dump();
}

// Emoji and CJK before the match: columns differ by encoding.
const std::string kWideLine = "\xF0\x9F\x94\xA5 \xE8\xAE\xAD\xE7\xBB\x83\tRuntimeError: CUDA out of memory. Tried to allocate 2.00 MiB";

TEST_F(Workspace, PositionsInUtf16) {
  InProcessClient c;
  c.initialize(uriOf(dir_));
  std::ofstream(dir_ / "wide.log") << "ok\n" << kWideLine << "\n";
  openLog(c, dir_ / "wide.log");
  json d = diagnosticsFor(c, dir_ / "wide.log")["diagnostics"][0];
  EXPECT_EQ(d["range"]["start"]["line"], 1);
  EXPECT_EQ(d["range"]["start"]["character"], 20);  // 2 (emoji) + 1 + 2 (CJK) + 1 (tab) + 14
  EXPECT_EQ(d["range"]["end"]["character"], 20 + 46);
}

TEST_F(Workspace, PositionsInUtf8AndIncrementalEdits) {
  InProcessClient c;
  c.initialize(uriOf(dir_), {{"general", {{"positionEncodings", {"utf-8"}}}}});
  std::string uri = uriOf(dir_ / "wide.log");
  c.notify("textDocument/didOpen", {{"textDocument", {{"uri", uri}, {"languageId", "log"}, {"version", 1}, {"text", "ok\n" + kWideLine + "\n"}}}});
  json d = diagnosticsFor(c, dir_ / "wide.log")["diagnostics"][0];
  EXPECT_EQ(d["range"]["start"]["character"], 26);  // 4 + 1 + 6 + 1 + 14 bytes
  // Replace "2.00" (after the emoji, in UTF-8 columns) incrementally.
  uint32_t at = static_cast<uint32_t>(kWideLine.find("2.00"));
  c.notify("textDocument/didChange", {{"textDocument", {{"uri", uri}, {"version", 2}}},
                                      {"contentChanges", {{{"range", {{"start", {{"line", 1}, {"character", at}}}, {"end", {{"line", 1}, {"character", at + 4}}}}},
                                                           {"text", "512.00"}}}}});
  json again = c.notification("textDocument/publishDiagnostics", [&](const json& p) { return p["uri"] == uri && p["version"] == 2; });
  ASSERT_EQ(again["diagnostics"].size(), 1u);
  EXPECT_EQ(again["diagnostics"][0]["range"]["end"]["character"], 26 + 48);
}

TEST_F(Workspace, AGrowingLogIsDiagnosedFromWhereItLeftOff) {
  InProcessClient c;
  c.initialize(uriOf(dir_));
  std::string log = readAll(dir_ / "train.log");
  size_t cut = log.find("Traceback");
  std::string uri = uriOf(dir_ / "run.log");
  c.notify("textDocument/didOpen", {{"textDocument", {{"uri", uri}, {"languageId", "log"}, {"version", 1}, {"text", log.substr(0, cut)}}}});
  json first = c.notification("textDocument/publishDiagnostics", [&](const json& p) { return p["uri"] == uri; });
  EXPECT_TRUE(first["diagnostics"].empty());
  uint32_t lines = static_cast<uint32_t>(std::count(log.begin(), log.begin() + static_cast<long>(cut), '\n'));
  c.notify("textDocument/didChange", {{"textDocument", {{"uri", uri}, {"version", 2}}},
                                      {"contentChanges", {{{"range", {{"start", {{"line", lines}, {"character", 0}}}, {"end", {{"line", lines}, {"character", 0}}}}},
                                                           {"text", log.substr(cut)}}}}});
  json second = c.notification("textDocument/publishDiagnostics", [&](const json& p) { return p["uri"] == uri && p["version"] == 2; });
  ASSERT_EQ(second["diagnostics"].size(), 2u);
  EXPECT_EQ(second["diagnostics"][0]["code"], "adamw-eps-fp16-underflow");
  EXPECT_TRUE(c.stderrContains("bytes scanned (appended)")) << c.stderrText();
  // Closing clears the document's diagnostics.
  c.notify("textDocument/didClose", {{"textDocument", {{"uri", uri}}}});
  json cleared = c.notification("textDocument/publishDiagnostics", [&](const json& p) { return p["uri"] == uri && p["diagnostics"].empty(); });
  EXPECT_TRUE(cleared["diagnostics"].empty());
}

TEST_F(Workspace, SettingsTurnAutomaticDiagnosisOffAndAddRuleFolders) {
  fs::create_directories(dir_ / "team-rules");
  // A failure only the team's own rule knows (the lab's data mount going away).
  std::ofstream(dir_ / "team-rules/lab-mount-lost.yaml")
      << "id: lab-mount-lost\ntitle: Lab data mount lost\ncategory: storage\nsummary: s\nsignals:\n  q: 'LabMountError: /lab/data'\ncondition: q\n";
  std::ofstream(dir_ / "quota.log") << "LabMountError: /lab/data went away\n";
  InProcessClient c;
  c.initialize(uriOf(dir_), json::object(), {{"rules", {"team-rules"}}, {"trustedWorkspace", true}});
  EXPECT_EQ(c.rulesInUse, "denpex: rules in use: the shipped rules; 1 from " + (fs::absolute(dir_) / "team-rules").lexically_normal().string());
  openLog(c, dir_ / "quota.log");
  json d = diagnosticsFor(c, dir_ / "quota.log");
  EXPECT_EQ(d["diagnostics"][0]["code"], "lab-mount-lost");
  c.notify("workspace/didChangeConfiguration", {{"settings", {{"denpex", {{"autoDiagnose", false}}}}}});
  json cleared = c.notification("textDocument/publishDiagnostics", [&](const json& p) { return p["diagnostics"].empty(); });
  EXPECT_TRUE(cleared["diagnostics"].empty());
}

// Rules are code: in a workspace the client has not vouched for, neither the workspace's
// .denpex/rules nor the `rules` folders are loaded, and a settings change cannot vouch for it.
TEST_F(Workspace, AnUntrustedWorkspacesRulesAreNotLoaded) {
  const std::string rule =
      "id: lab-mount-lost\ntitle: Lab data mount lost\ncategory: storage\nsummary: s\nsignals:\n  q: 'LabMountError: /lab/data'\ncondition: q\n";
  writeAll(dir_ / ".denpex/rules/lab-mount-lost.yaml", rule);
  writeAll(dir_ / "quota.log", "LabMountError: /lab/data went away\n");
  InProcessClient c;
  c.initialize(uriOf(dir_), json::object(), {{"rules", {"team-rules"}}});
  EXPECT_EQ(c.rulesInUse, "denpex: rules in use: the shipped rules; not loaded (workspace not trusted): " +
                              (fs::absolute(dir_) / ".denpex/rules").lexically_normal().string() + "; not loaded (workspace not trusted): team-rules");
  c.notify("workspace/didChangeConfiguration", {{"settings", {{"denpex", {{"trustedWorkspace", true}, {"rules", json::array()}}}}}});
  c.notification("window/logMessage", [](const json& p) { return p.value("message", "").rfind("denpex: rules in use:", 0) == 0; });
  openLog(c, dir_ / "quota.log");
  json d = diagnosticsFor(c, dir_ / "quota.log");
  for (const auto& diag : d["diagnostics"]) EXPECT_NE(diag["code"], "lab-mount-lost");

  InProcessClient trusted;
  trusted.initialize(uriOf(dir_), json::object(), {{"trustedWorkspace", true}});
  EXPECT_EQ(trusted.rulesInUse, "denpex: rules in use: the shipped rules; 1 from " +
                                    (fs::absolute(dir_) / ".denpex/rules").lexically_normal().string());
}

// Secrets on a log's evidence lines reach no diagnostic, hover or command result.
TEST_F(Workspace, SecretsAreMaskedInDiagnosticsHoversAndReports) {
  const std::string token = "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789", password = "s3cr3t-Pa55";
  writeAll(dir_ / "leaky.log", "Traceback (most recent call last):\n  File \"upload.py\", line 3, in <module>\n"
                               "RuntimeError: upload failed: hf_" + token + " via https://alice:" + password + "@hub.example.com/x\n");
  InProcessClient c;
  c.initialize(uriOf(dir_));
  openLog(c, dir_ / "leaky.log");
  json published = diagnosticsFor(c, dir_ / "leaky.log");
  json hover = c.call("textDocument/hover", {{"textDocument", {{"uri", uriOf(dir_ / "leaky.log")}}},
                                             {"position", published["diagnostics"][0]["range"]["start"]}});
  json report = c.call("workspace/executeCommand", {{"command", "denpex.diagnose"}, {"arguments", {{{"text", readAll(dir_ / "leaky.log")}}}}});
  for (const json* j : {&published, &hover, &report}) {
    std::string text = j->dump();
    EXPECT_FALSE(contains(text, token)) << text;
    EXPECT_FALSE(contains(text, password)) << text;
  }
  EXPECT_TRUE(contains(hover.dump(), "hf_****")) << hover.dump();
}

// Hostile files never block or exhaust the server: a FIFO is refused at once, a 300 MiB file in a
// folder of rank logs is streamed in bounded memory, and rule errors at start-up are shown.
TEST_F(Workspace, SpecialFilesAreRefusedBigOnesStreamedAndRuleErrorsShown) {
  fs::path fifo = dir_ / "pipe.log";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  fs::create_directories(dir_ / "run");
  fs::copy_file(dir_ / "train.log", dir_ / "run/rank0.log");
  { std::ofstream(dir_ / "run/rank1.log"); }
  fs::resize_file(dir_ / "run/rank1.log", uintmax_t{300} << 20);  // sparse: no disk, no time
  writeAll(dir_ / ".denpex/rules/broken.yaml", "id: broken\ntitle: [unclosed\n");
  InProcessClient c;
  c.initialize(uriOf(dir_), json::object(), {{"trustedWorkspace", true}});
  json shown = c.notification("window/showMessage", [](const json&) { return true; });
  EXPECT_NE(shown["message"].get<std::string>().find("1 rule file error(s), e.g. "), std::string::npos) << shown.dump();
  // ...and in the Problems panel, on the rule file itself.
  json onRule = c.notification("textDocument/publishDiagnostics",
                               [&](const json& p) { return p["uri"] == uriOf(dir_ / ".denpex/rules/broken.yaml"); });
  ASSERT_EQ(onRule["diagnostics"].size(), 1u);
  json fifoResult = c.call("workspace/executeCommand", {{"command", "denpex.diagnose"}, {"arguments", {{{"uri", uriOf(fifo)}}}}});
  EXPECT_EQ(fifoResult["error"]["code"], -32602);
  EXPECT_NE(fifoResult["error"]["message"].get<std::string>().find("not a regular file"), std::string::npos) << fifoResult.dump();
  const double peakBefore = peakRssMib();
  json folder = c.response(
      c.request("workspace/executeCommand", {{"command", "denpex.diagnose"}, {"arguments", {{{"folder", (dir_ / "run").string()}}}}}),
      std::chrono::seconds(120));
  EXPECT_FALSE(c.arrived([](const json& m) { return m.value("method", "") == "window/showMessage"; })) << "a warning about rank1.log";
  // The server is this process: its peak memory grew by far less than the file it read.
  EXPECT_LT(peakRssMib() - peakBefore, 100.0);
  ASSERT_TRUE(folder.contains("result")) << folder.dump();
  EXPECT_EQ(folder["result"]["findings"][0]["rule"], "adamw-eps-fp16-underflow");
  c.notification("textDocument/publishDiagnostics", [&](const json& p) { return p["uri"] == uriOf(dir_ / "run/rank0.log"); });
  json rank1 = c.notification("textDocument/publishDiagnostics", [&](const json& p) { return p["uri"] == uriOf(dir_ / "run/rank1.log"); });
  EXPECT_TRUE(rank1["diagnostics"].empty()) << rank1.dump();  // read to its end: nothing in it
}

// Rules that change take effect without a restart: a rule file written, broken and repaired,
// and a workspace folder added later.
TEST_F(Workspace, RuleFilesThatChangeTakeEffectWithoutARestart) {
  writeAll(dir_ / "quota.log", "LabMountError: /lab/data went away\n");
  InProcessClient c;
  c.initialize(uriOf(dir_), {{"workspace", {{"didChangeWatchedFiles", {{"dynamicRegistration", true}}}}}},
               {{"trustedWorkspace", true}});
  // The server asks the client to watch rule files.
  json registration = c.notification("client/registerCapability", [](const json&) { return true; });
  EXPECT_EQ(registration["registrations"][0]["method"], "workspace/didChangeWatchedFiles");
  EXPECT_EQ(registration["registrations"][0]["registerOptions"]["watchers"][0]["globPattern"], "**/.denpex/rules/**/*.{yaml,yml}");
  openLog(c, dir_ / "quota.log");
  json before = diagnosticsFor(c, dir_ / "quota.log", false);
  ASSERT_EQ(before["diagnostics"].size(), 1u);
  EXPECT_EQ(before["diagnostics"][0]["code"], "unrecognized-exception");  // no rule knows it yet
  // A rule file appears.
  fs::path rule = dir_ / ".denpex/rules/lab-mount-lost.yaml";
  writeAll(rule, "id: lab-mount-lost\ntitle: Lab data mount lost\ncategory: storage\nsummary: s\nsignals:\n  q: 'LabMountError: /lab/data'\ncondition: q\n");
  c.notify("workspace/didChangeWatchedFiles", {{"changes", {{{"uri", uriOf(rule)}, {"type", 1}}}}});
  c.notification("window/logMessage", [](const json& p) { return p.value("message", "").find("1 from") != std::string::npos; });
  json after = diagnosticsFor(c, dir_ / "quota.log");
  EXPECT_EQ(after["diagnostics"][0]["code"], "lab-mount-lost");
  // Broken: reported on the rule file; the other rules keep working.
  writeAll(rule, "id: lab-mount-lost\ntitle: [unclosed\n");
  c.notify("workspace/didChangeWatchedFiles", {{"changes", {{{"uri", uriOf(rule)}, {"type", 2}}}}});
  c.notification("window/logMessage", [](const json&) { return true; });
  json problems = c.notification("textDocument/publishDiagnostics", [&](const json& p) { return p["uri"] == uriOf(rule); });
  ASSERT_EQ(problems["diagnostics"].size(), 1u);
  EXPECT_NE(problems["diagnostics"][0]["message"].get<std::string>().find("YAML syntax"), std::string::npos) << problems.dump();
  c.notification("window/showMessage", [](const json&) { return true; });
  diagnosticsFor(c, dir_ / "quota.log", false);
  // Repaired: the problem goes away.
  writeAll(rule, "id: lab-mount-lost\ntitle: Lab data mount lost\ncategory: storage\nsummary: s\nsignals:\n  q: 'LabMountError: /lab/data'\ncondition: q\n");
  c.notify("workspace/didChangeWatchedFiles", {{"changes", {{{"uri", uriOf(rule)}, {"type", 2}}}}});
  c.notification("window/logMessage", [](const json&) { return true; });
  json cleared = c.notification("textDocument/publishDiagnostics", [&](const json& p) { return p["uri"] == uriOf(rule); });
  EXPECT_TRUE(cleared["diagnostics"].empty());
  diagnosticsFor(c, dir_ / "quota.log");
  // A folder added to the workspace later: its rules load too.
  fs::path second = fs::absolute(dir_.string() + "-second");
  writeAll(second / ".denpex/rules/other.yaml", "id: other-failure\ntitle: Other\ncategory: t\nsummary: s\nsignals:\n  q: 'OtherError'\ncondition: q\n");
  c.notify("workspace/didChangeWorkspaceFolders", {{"event", {{"added", {{{"uri", uriOf(second)}, {"name", "second"}}}}, {"removed", json::array()}}}});
  json message = c.notification("window/logMessage", [](const json&) { return true; });
  EXPECT_NE(message["message"].get<std::string>().find((second / ".denpex/rules").string()), std::string::npos) << message.dump();
  diagnosticsFor(c, dir_ / "quota.log");
  fs::remove_all(second);
}

// A traceback that names a file outside the workspace gets no edit from the editor.
TEST_F(Workspace, AFileOutsideTheWorkspaceIsNotEdited) {
  fs::path outside = fs::absolute(dir_.string() + "-outside");
  writeAll(outside / "train.py", readAll(dir_ / "train.py"));
  std::string log = readAll(dir_ / "train.log");
  const std::string recorded = "/home/user/project/examples/fp16-adamw/train.py";
  log.replace(log.find(recorded), recorded.size(), (outside / "train.py").string());
  writeAll(dir_ / "far.log", log);
  InProcessClient c;
  c.initialize(uriOf(dir_), {{"textDocument", {{"codeAction", {{"disabledSupport", true}}}}}});
  openLog(c, dir_ / "far.log");
  json d = diagnosticsFor(c, dir_ / "far.log")["diagnostics"][0];
  json actions = c.call("textDocument/codeAction", {{"textDocument", {{"uri", uriOf(dir_ / "far.log")}}},
                                                    {"range", d["range"]}, {"context", {{"diagnostics", {d}}}}})["result"];
  ASSERT_EQ(actions.size(), 1u) << actions.dump(2);
  EXPECT_EQ(actions[0]["disabled"]["reason"], (outside / "train.py").string() + " is outside the workspace: not edited from the editor");
  EXPECT_FALSE(actions[0].contains("edit"));
  fs::remove_all(outside);
}

// With both train.py and src/train.py in the workspace, the "your code" link, the quick fix and
// the document link must name the same file: the one whose trailing path components match the
// traceback's frame best, the shallower one on a tie. (They once asked four resolvers.)
TEST_F(Workspace, QuickFixAndFrameLinksNameTheSameFileWhenTwoShareAName) {
  fs::create_directories(dir_ / "src");
  fs::copy_file(dir_ / "train.py", dir_ / "src/train.py");
  InProcessClient c;
  c.initialize(uriOf(dir_), {{"workspace", {{"workspaceEdit", {{"documentChanges", true}}}}}});
  const std::string recorded = "/home/user/project/examples/fp16-adamw/train.py";
  struct Case {
    std::string frame;    // the path the traceback prints
    fs::path expected;    // the file every feature must name
  };
  int n = 0;
  for (const Case& k : {Case{"/home/someone/proj/train.py", dir_ / "train.py"},
                        Case{"/home/someone/proj/src/train.py", dir_ / "src/train.py"},
                        Case{"src/train.py", dir_ / "src/train.py"}}) {
    SCOPED_TRACE(k.frame);
    std::string log = readAll(dir_ / "train.log");
    ASSERT_NE(log.find(recorded), std::string::npos);
    log.replace(log.find(recorded), recorded.size(), k.frame);
    fs::path logPath = dir_ / ("run" + std::to_string(++n) + ".log");
    writeAll(logPath, log);
    openLog(c, logPath);
    json d = diagnosticsFor(c, logPath)["diagnostics"][0];
    ASSERT_EQ(d["code"], "adamw-eps-fp16-underflow");
    std::string yourCode;
    for (const auto& r : d["relatedInformation"])
      if (r["message"].get<std::string>().rfind("your code: ", 0) == 0) yourCode = r["location"]["uri"];
    EXPECT_EQ(yourCode, uriOf(k.expected));
    json actions = c.call("textDocument/codeAction", {{"textDocument", {{"uri", uriOf(logPath)}}},
                                                      {"range", d["range"]}, {"context", {{"diagnostics", {d}}}}})["result"];
    ASSERT_EQ(actions.size(), 1u) << actions.dump(2);
    EXPECT_EQ(actions[0]["edit"]["documentChanges"][0]["textDocument"]["uri"], uriOf(k.expected)) << actions.dump(2);
    json links = c.call("textDocument/documentLink", {{"textDocument", {{"uri", uriOf(logPath)}}}})["result"];
    ASSERT_EQ(links.size(), 1u) << links.dump(2);
    EXPECT_EQ(links[0]["target"], uriOf(k.expected) + "#L51");
  }
}

// The workspace's file listing is kept a few seconds, then refreshed off the request path: a file
// created with no save and no watcher event is found once a request has started the refresh,
// and requests meanwhile answer from the listing they have.
TEST_F(Workspace, AFileCreatedSinceIsFoundOnceTheListingIsRefreshedInTheBackground) {
  const std::string source = readAll(dir_ / "train.py");
  fs::remove(dir_ / "train.py");
  InProcessClient c;
  c.initialize(uriOf(dir_), {{"workspace", {{"workspaceEdit", {{"documentChanges", true}}}}}});
  openLog(c, dir_ / "train.log");
  json d = diagnosticsFor(c, dir_ / "train.log")["diagnostics"][0];
  ASSERT_EQ(d["code"], "adamw-eps-fp16-underflow");
  auto actions = [&] {
    return c.call("textDocument/codeAction", {{"textDocument", {{"uri", uriOf(dir_ / "train.log")}}},
                                              {"range", d["range"]}, {"context", {{"diagnostics", {d}}}}})["result"];
  };
  EXPECT_TRUE(actions().empty()) << "no train.py in the workspace yet";
  writeAll(dir_ / "lib/train.py", source);
  EXPECT_TRUE(actions().empty()) << "the listing is a few seconds old at most: it is kept";
  std::this_thread::sleep_for(std::chrono::milliseconds(3200));
  json found;
  for (int i = 0; i < 100 && found.empty(); ++i) {
    found = actions();
    if (found.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_EQ(found.size(), 1u) << "the refreshed listing was never used";
  EXPECT_EQ(found[0]["edit"]["documentChanges"][0]["textDocument"]["uri"], uriOf(dir_ / "lib/train.py"));
}

}  // namespace
}  // namespace denpex::test
