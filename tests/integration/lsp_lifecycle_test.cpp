// The built `denpex lsp` over its real pipes: the lifecycle, framing and robustness a client
// meets before any feature (the feature tests run the server in-process: tests/lsp/).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "support/pipe_client.h"

namespace denpex::test {
namespace {

TEST(LspLifecycle, RequestsBeforeInitializeAndAfterShutdown) {
  PipeClient c;
  json early = c.call("textDocument/hover", {{"textDocument", {{"uri", "file:///x.log"}}}, {"position", {{"line", 0}, {"character", 0}}}});
  EXPECT_EQ(early["error"]["code"], -32002);
  json init = c.initialize("");
  EXPECT_EQ(init["result"]["capabilities"]["positionEncoding"], "utf-16");
  EXPECT_EQ(init["result"]["serverInfo"]["name"], "denpex");
  EXPECT_EQ(init["result"]["capabilities"]["codeActionProvider"]["codeActionKinds"][0], "quickfix");
  EXPECT_EQ(c.call("denpex/unknown", json::object())["error"]["code"], -32601);
  EXPECT_TRUE(c.call("shutdown", nullptr)["result"].is_null());
  EXPECT_EQ(c.call("textDocument/codeLens", {{"textDocument", {{"uri", "file:///x.log"}}}})["error"]["code"], -32600);
  c.notify("exit", nullptr);
  ASSERT_TRUE(c.waitExit(std::chrono::seconds(10)));
  EXPECT_EQ(c.exitCode(), 0);
}

TEST(LspLifecycle, ExitWithoutShutdownIsOne) {
  PipeClient c;
  c.initialize("");
  c.notify("exit", nullptr);
  ASSERT_TRUE(c.waitExit(std::chrono::seconds(10)));
  EXPECT_EQ(c.exitCode(), 1);
}

TEST(LspLifecycle, EndsWhenInputCloses) {
  PipeClient c;
  c.initialize("");
  c.closeInput();
  ASSERT_TRUE(c.waitExit(std::chrono::seconds(10)));
  EXPECT_EQ(c.exitCode(), 1);
}

TEST(LspLifecycle, Utf8WhenTheClientOffersIt) {
  PipeClient c;
  json init = c.initialize("", {{"general", {{"positionEncodings", {"utf-8", "utf-16"}}}}});
  EXPECT_EQ(init["result"]["capabilities"]["positionEncoding"], "utf-8");
}

std::string readSource(const std::string& relative) {
  std::ifstream in(std::string(DENPEX_SOURCE_DIR) + "/" + relative, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The diagnostics of a publication, without what differs between two versions of a document.
json withoutVersions(json diagnostics) {
  for (auto& d : diagnostics) d["data"].erase("version");
  return diagnostics;
}

// A big log opened in the editor is diagnosed while its didOpen still arrives (here half of it
// arrives, then the client pauses): the worker goes on from there, and the diagnostics are those
// of the same text diagnosed from its start (the text given again by a didChange, which is not
// read early). Failures on several ranks before and after the pause, and text JSON escapes.
TEST(LspBigMessages, ALogDiagnosedWhileItsDidOpenArrivesGetsTheSameDiagnostics) {
  std::string filler;
  for (int i = 0; i < 2000; ++i)
    filler += "[rank" + std::to_string(i % 4) + "]:step " + std::to_string(i) +
              " | loss 0.69 | \"quoted\" back\\slash\ttab caf\xc3\xa9 \xf0\x9f\x98\x80 | grad_norm 0.12\n";
  std::string text = readSource("examples/fp16-adamw/train.log");
  while (text.size() < (12u << 20)) text += filler;
  text += readSource("tests/distributed/raise-tee/torchrun.log");
  while (text.size() < (24u << 20)) text += filler;
  text += readSource("examples/fp16-adamw/train.log");
  const std::string uri = "file:///tmp/denpex-big-early.log";
  auto isPublish = [&](int version) {
    return [&, version](const json& p) { return p["uri"] == uri && p.value("version", 0) == version; };
  };
  PipeClient c;
  c.initialize("");
  const std::string open = json{{"jsonrpc", "2.0"}, {"method", "textDocument/didOpen"},
                                {"params", {{"textDocument", {{"uri", uri}, {"languageId", "log"}, {"version", 1}, {"text", text}}}}}}.dump();
  c.sendRawInParts(open, open.size() / 2, std::chrono::milliseconds(1500));
  json early = c.notification("textDocument/publishDiagnostics", isPublish(1), std::chrono::minutes(2));
  // The worker went on from what was read early instead of starting over.
  EXPECT_TRUE(c.stderrContains("bytes diagnosed while it arrived")) << c.stderrText();
  EXPECT_TRUE(c.stderrContains(uri + " v1: ")) << c.stderrText();
  EXPECT_NE(c.stderrText().find("bytes scanned (appended)"), std::string::npos) << c.stderrText();
  c.notify("textDocument/didChange", {{"textDocument", {{"uri", uri}, {"version", 2}}}, {"contentChanges", {{{"text", text}}}}});
  json whole = c.notification("textDocument/publishDiagnostics", isPublish(2), std::chrono::minutes(2));
  ASSERT_GE(early["diagnostics"].size(), 3u) << early.dump(1);
  EXPECT_EQ(withoutVersions(early["diagnostics"]), withoutVersions(whole["diagnostics"]));
  std::string codes;
  for (const auto& d : early["diagnostics"]) codes += d["code"].get<std::string>() + " ";
  EXPECT_NE(codes.find("adamw-eps-fp16-underflow"), std::string::npos) << codes;
  EXPECT_NE(codes.find("gloo-connection-closed"), std::string::npos) << codes;
}

// A big message read as it arrives that turns out malformed (an escape JSON refuses, deep in its
// text) is dropped with its early reading; the server goes on.
TEST(LspBigMessages, AMalformedBigMessageIsDroppedAndTheServerGoesOn) {
  std::string lines;
  while (lines.size() < (9u << 20)) lines += "[rank0]:step 1 | loss 0.69\\n";
  const std::string bad = R"({"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///tmp/bad.log","languageId":"log","version":1,"text":")" +
                          lines + R"(\ud83\u12 RuntimeError: CUDA out of memory\n"}}})";
  PipeClient c;
  c.initialize("");
  c.sendRaw(bad);
  json hover = c.call("textDocument/hover", {{"textDocument", {{"uri", "file:///tmp/bad.log"}}}, {"position", {{"line", 0}, {"character", 0}}}});
  EXPECT_TRUE(hover.contains("result") || hover.contains("error")) << hover.dump();
  EXPECT_TRUE(c.stderrContains("malformed message skipped")) << c.stderrText();
  EXPECT_EQ(c.call("shutdown", nullptr)["result"], nullptr);
}

TEST(LspRobustness, MalformedMessagesAndBadParamsDoNotStopTheServer) {
  PipeClient c;
  c.initialize("");
  c.sendRaw("{this is not json");
  auto parseError = c.waitFor([](const json& m) { return m.contains("error") && m["id"].is_null(); }, std::chrono::seconds(20));
  ASSERT_TRUE(parseError);
  EXPECT_EQ((*parseError)["error"]["code"], -32700);
  c.sendRaw("[1, 2]");  // valid JSON, not a request
  auto invalid = c.waitFor([](const json& m) { return m.contains("error") && m["error"]["code"] == -32600; }, std::chrono::seconds(20));
  EXPECT_TRUE(invalid);
  json bad = c.call("textDocument/hover", {{"textDocument", {{"uri", "file:///x.log"}}}});
  EXPECT_EQ(bad["error"]["code"], -32602);
  json badPos = c.call("textDocument/hover", {{"textDocument", {{"uri", "file:///x.log"}}}, {"position", {{"line", -1}, {"character", 0}}}});
  EXPECT_EQ(badPos["error"]["code"], -32602);
  c.notify("textDocument/didChange", {{"textDocument", {{"uri", "file:///never-opened.log"}}}, {"contentChanges", json::array()}});
  json ok = c.call("workspace/executeCommand", {{"command", "denpex.explain"}, {"arguments", {"gradient-explosion"}}});
  EXPECT_NE(ok["result"].get<std::string>().find("# Gradient explosion"), std::string::npos);
  EXPECT_TRUE(c.stderrContains("malformed message skipped")) << c.stderrText();
  EXPECT_TRUE(c.stderrContains("not open")) << c.stderrText();
}

TEST(LspRobustness, CancelledRequestsGetRequestCancelled) {
  PipeClient c;
  c.initialize("");
  // Keep the server busy, then send a request and its cancellation together.
  std::string big;
  for (int i = 0; i < 400000; ++i) big += "step " + std::to_string(i) + " | loss 0.5 | grad_norm 0.1\n";
  int slow = c.request("workspace/executeCommand", {{"command", "denpex.diagnose"}, {"arguments", {{{"text", big}}}}});
  int id = c.request("textDocument/codeLens", {{"textDocument", {{"uri", "file:///x.log"}}}});
  c.notify("$/cancelRequest", {{"id", id}});
  EXPECT_EQ(c.response(id)["error"]["code"], -32800);
  EXPECT_TRUE(c.response(slow)["result"]["findings"].empty());
}

}  // namespace
}  // namespace denpex::test
