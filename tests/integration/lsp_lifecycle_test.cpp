// The built `denpex lsp` over its real pipes: the lifecycle, framing and robustness a client
// meets before any feature (the feature tests run the server in-process: tests/lsp/).
#include <gtest/gtest.h>

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
