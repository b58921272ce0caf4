// The language server's layers alone: framing, dispatch (in-process, no pipes), conversions.
#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "core/render/report.h"
#include "core/analyze/diagnoser.h"
#include "core/rules/matcher.h"
#include "lsp/protocol/parse.h"
#include "lsp/protocol/to_proto.h"
#include "lsp/server/documents.h"
#include "lsp/server/server.h"
#include "lsp/server/settings.h"
#include "lsp/server/doc_text.h"
#include "io/huge_pages.h"
#include "lsp/transport/stream_transport.h"
#include "support/vm_flags.h"

namespace denpex::lsp {
namespace {

std::FILE* input(const std::string& bytes) {
  std::FILE* f = std::tmpfile();
  std::fwrite(bytes.data(), 1, bytes.size(), f);
  std::rewind(f);
  return f;
}

std::string frame(const std::string& body) { return "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body; }

std::string contents(std::FILE* f) {
  std::rewind(f);
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  return out;
}

// Splits framed output back into JSON messages.
std::vector<json> messages(const std::string& out) {
  std::vector<json> result;
  size_t at = 0;
  while ((at = out.find("Content-Length: ", at)) != std::string::npos) {
    size_t n = std::stoul(out.substr(at + 16));
    size_t body = out.find("\r\n\r\n", at) + 4;
    result.push_back(json::parse(out.substr(body, n)));
    at = body + n;
  }
  return result;
}

TEST(Transport, ReadsFramesWithOtherHeadersAndStrayBlankLines) {
  std::FILE* in = input("\r\n" + frame("{\"a\":1}") + "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\ncontent-length: 7\r\n\r\n{\"b\":2}");
  StreamTransport t(in, std::tmpfile());
  std::string body;
  ASSERT_EQ(t.read(body), Transport::ReadStatus::kMessage);
  EXPECT_EQ(body, "{\"a\":1}");
  ASSERT_EQ(t.read(body), Transport::ReadStatus::kMessage);
  EXPECT_EQ(body, "{\"b\":2}");
  EXPECT_EQ(t.read(body), Transport::ReadStatus::kEof);
}

// A log opened in the editor arrives as one big message that becomes the document's buffer: it
// is asked to be backed by huge pages before the first byte lands in it (a page fault per 4 KiB
// cost more than the pipe), and so is a document's copy when it outgrows its buffer.
TEST(Transport, AdvisesHugePagesForABigMessage) {
  if (access("/sys/kernel/mm/transparent_hugepage/enabled", F_OK) != 0) GTEST_SKIP() << "this kernel has no huge pages";
  const std::string text(io::kHugePagesFrom + (1u << 20), 'x');
  std::FILE* in = input(frame("{\"t\":\"" + text + "\"}"));
  StreamTransport t(in, std::tmpfile());
  std::string body;
  ASSERT_EQ(t.read(body), Transport::ReadStatus::kMessage);
  ASSERT_EQ(body.size(), text.size() + 8);
  EXPECT_NE(test::vmFlagsAt(body.data() + body.size() / 2).find(" hg "), std::string::npos) << test::vmFlagsAt(body.data());
  auto doc = DocText::make(text);
  EXPECT_NE(test::vmFlagsAt(doc->view().data() + text.size() / 2).find(" hg "), std::string::npos);
  // A small message is left as it is.
  std::FILE* small = input(frame("{\"t\":1}"));
  StreamTransport s(small, std::tmpfile());
  ASSERT_EQ(s.read(body), Transport::ReadStatus::kMessage);
  EXPECT_EQ(body, "{\"t\":1}");
}

// A big log crosses a pipe in far fewer rounds when the pipe holds 1 MiB instead of 64 KiB.
TEST(Transport, EnlargesTheInputPipe) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  std::FILE* in = fdopen(fds[0], "r");
  ASSERT_NE(in, nullptr);
  EXPECT_LT(fcntl(fds[0], F_GETPIPE_SZ), StreamTransport::kPipeBytes);
  {
    StreamTransport t(in, std::tmpfile());
    // The system's limit for processes without privileges (root may go past it).
    int limit = StreamTransport::kPipeBytes;
    if (std::FILE* f = std::fopen("/proc/sys/fs/pipe-max-size", "r")) {
      if (std::fscanf(f, "%d", &limit) != 1) limit = StreamTransport::kPipeBytes;
      std::fclose(f);
    }
    EXPECT_GE(fcntl(fds[0], F_GETPIPE_SZ), std::min(limit, StreamTransport::kPipeBytes));
    // And it still reads what comes through it.
    const std::string msg = frame("{\"a\":1}");
    ASSERT_EQ(write(fds[1], msg.data(), msg.size()), static_cast<ssize_t>(msg.size()));
    close(fds[1]);
    std::string body;
    ASSERT_EQ(t.read(body), Transport::ReadStatus::kMessage);
    EXPECT_EQ(body, "{\"a\":1}");
  }
  std::fclose(in);
}

TEST(Transport, BadHeaderIsReportedAndReadingGoesOn) {
  std::FILE* in = input("Content-Length: nope\r\n\r\n" + frame("{}"));
  StreamTransport t(in, std::tmpfile());
  std::string body;
  EXPECT_EQ(t.read(body), Transport::ReadStatus::kBadFrame);
  EXPECT_EQ(t.takeProblem(), "Content-Length 'nope' is not a length; skipped the frame");
  EXPECT_EQ(t.read(body), Transport::ReadStatus::kMessage);
  EXPECT_EQ(body, "{}");
  EXPECT_EQ(t.takeProblem(), "");
}

// After any bad Content-Length the next message is still read: the server never goes deaf.
TEST(Transport, EveryBadLengthResynchronisesOnTheNextHeader) {
  const std::string next = frame("{\"next\":1}");
  struct Case {
    std::string bytes, problem;
  } cases[] = {
      {"Content-Length: -5\r\n\r\n{\"a\":1}" + next, "Content-Length '-5' is not a length; skipped the frame"},
      {"Content-Length: 12abc\r\n\r\n{\"a\":1}" + next, "Content-Length '12abc' is not a length; skipped the frame"},
      {"Content-Length: 1000000000000\r\n\r\n{\"a\":1}" + next,
       "Content-Length 1000000000000 is over the limit of 256 MiB; skipped the frame"},
      // Too small: the body's tail is followed by the next header on the same line.
      {"Content-Length: 3\r\n\r\n{\"a\":1}" + next, ""},
      {"X-Other: 1\r\n\r\n{\"a\":1}" + next, "skipped 14 bytes that were not a message; a header without Content-Length"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.bytes);
    StreamTransport t(input(c.bytes), std::tmpfile());
    std::string body;
    std::vector<std::string> bodies, problems;
    for (int i = 0; i < 4; ++i) {
      auto status = t.read(body);
      if (std::string p = t.takeProblem(); !p.empty()) problems.push_back(p);
      if (status == Transport::ReadStatus::kEof) break;
      if (status == Transport::ReadStatus::kMessage) bodies.push_back(body);
    }
    ASSERT_FALSE(bodies.empty());
    EXPECT_EQ(bodies.back(), "{\"next\":1}");
    ASSERT_FALSE(problems.empty());
    if (!c.problem.empty()) {
      EXPECT_EQ(problems.front(), c.problem);
    }
  }
}

TEST(Transport, AnOversizedMessageIsSkippedWithoutBeingHeld) {
  std::string big(StreamTransport::kMaxMessage + 10, 'x');
  std::FILE* in = input("Content-Length: " + std::to_string(big.size()) + "\r\n\r\n" + big + frame("{}"));
  StreamTransport t(in, std::tmpfile());
  std::string body;
  EXPECT_EQ(t.read(body), Transport::ReadStatus::kBadFrame);
  EXPECT_EQ(t.takeProblem(), "a message of 268435466 bytes is over the limit of 256 MiB; skipped it");
  EXPECT_EQ(t.read(body), Transport::ReadStatus::kMessage);
  EXPECT_EQ(body, "{}");
}

TEST(Transport, TruncatedBodyIsEndOfInput) {
  std::FILE* in = input("Content-Length: 50\r\n\r\n{\"short\":");
  StreamTransport t(in, std::tmpfile());
  std::string body;
  EXPECT_EQ(t.read(body), Transport::ReadStatus::kEof);
}

TEST(Transport, WritesFramedUtf8ByteLengths) {
  std::FILE* out = std::tmpfile();
  StreamTransport t(input(""), out);
  t.write("{\"x\":\"\xE8\xAE\xAD\"}");
  EXPECT_EQ(contents(out), "Content-Length: 11\r\n\r\n{\"x\":\"\xE8\xAE\xAD\"}");
}

// Runs a whole session in-process: the listed messages, then end of input.
std::vector<json> session(const std::vector<json>& in, int* exitCode = nullptr) {
  std::string bytes;
  for (const auto& m : in) bytes += frame(m.dump());
  std::FILE* out = std::tmpfile();
  StreamTransport t(input(bytes), out);
  int code;
  {
    Server server(t);
    code = server.run();
  }
  if (exitCode) *exitCode = code;
  return messages(contents(out));
}

json req(int id, const std::string& method, json params = json::object()) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}};
}

const json* byId(const std::vector<json>& out, int id) {
  for (const auto& m : out)
    if (m.contains("id") && m["id"] == id) return &m;
  return nullptr;
}

TEST(Dispatch, EveryRequestGetsExactlyOneReply) {
  int code = -1;
  auto out = session({req(1, "textDocument/codeLens"), req(2, "initialize", {{"capabilities", json::object()}}),
                      req(3, "no/such/method"), req(4, "workspace/executeCommand", {{"command", "denpex.explain"}}),
                      req(5, "shutdown", nullptr), req(6, "textDocument/codeLens")},
                     &code);
  for (int id = 1; id <= 6; ++id) {
    int replies = 0;
    for (const auto& m : out) replies += m.contains("id") && m["id"] == id;
    EXPECT_EQ(replies, 1) << "id " << id;
  }
  EXPECT_EQ((*byId(out, 1))["error"]["code"], error::kServerNotInitialized);
  EXPECT_TRUE((*byId(out, 2))["result"].contains("capabilities"));
  EXPECT_EQ((*byId(out, 3))["error"]["code"], error::kMethodNotFound);
  EXPECT_EQ((*byId(out, 4))["error"]["code"], error::kInvalidParams);
  EXPECT_TRUE((*byId(out, 5))["result"].is_null());
  EXPECT_EQ((*byId(out, 6))["error"]["code"], error::kInvalidRequest);
  EXPECT_EQ(code, 0);  // input ended after shutdown
}

TEST(Dispatch, NotificationsBeforeInitializeAreDroppedAndIdsMustBeValid) {
  auto out = session({{{"jsonrpc", "2.0"}, {"method", "textDocument/didOpen"}, {"params", json::object()}},
                      {{"jsonrpc", "2.0"}, {"id", json::array()}, {"method", "initialize"}}});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0]["error"]["code"], error::kInvalidRequest);
  EXPECT_TRUE(out[0]["id"].is_null());
}

TEST(Protocol, FileUrisRoundTrip) {
  EXPECT_EQ(uriToPath("file:///home/me/my%20proj/train.py"), "/home/me/my proj/train.py");
  EXPECT_EQ(pathToUri("/home/me/my proj/#1.py"), "file:///home/me/my%20proj/%231.py");
  EXPECT_EQ(uriToPath(pathToUri("/tmp/\xE8\xAE\xAD.log")), "/tmp/\xE8\xAE\xAD.log");
  EXPECT_EQ(uriToPath("file://localhost/x.log"), "/x.log");
  EXPECT_EQ(uriToPath("untitled:Untitled-1"), "");
  EXPECT_EQ(uriToPath("file://otherhost/x.log"), "");
}

TEST(Protocol, EvidenceRangesInBothEncodings) {
  std::string text = "a\n\xF0\x9F\x94\xA5 Error: x\n";
  core::LineIndex index(text);
  core::Evidence e;
  e.line = 1;
  e.begin = 5;
  e.end = 10;
  json r16 = evidenceRange(index, e, core::PositionEncoding::kUtf16);
  EXPECT_EQ(r16["start"]["character"], 3);
  EXPECT_EQ(r16["end"]["character"], 8);
  json r8 = evidenceRange(index, e, core::PositionEncoding::kUtf8);
  EXPECT_EQ(r8["start"]["character"], 5);
  e.begin = e.end = 0;  // no span: the whole line
  EXPECT_EQ(evidenceRange(index, e, core::PositionEncoding::kUtf16)["end"]["character"], 11);
}

TEST(Protocol, FindingAsDiagnostic) {
  core::RuleSet rules;
  rules.add(core::builtinRuleSources());
  core::Matcher matcher(rules);
  std::string log = "[rank2]: RuntimeError: CUDA out of memory. Tried to allocate 2.00 MiB\n";
  auto d = core::diagnoseText(rules, matcher, log, "x.log");
  ASSERT_EQ(d.findings.size(), 1u);
  core::LineIndex index(log);
  ConvertOptions o;
  o.documentUri = "file:///x.log";
  o.version = 4;
  json diag = toDiagnostic(d, 0, index, o);
  EXPECT_EQ(diag["code"], "cuda-out-of-memory");
  EXPECT_EQ(diag["source"], "denpex");
  EXPECT_EQ(diag["severity"], 1);
  EXPECT_EQ(diag["range"]["start"]["character"], 23);
  EXPECT_EQ(diag["data"]["rule"], "cuda-out-of-memory");
  EXPECT_EQ(diag["data"]["version"], 4);
  EXPECT_NE(diag["message"].get<std::string>().find("(rank 2)"), std::string::npos);
}

TEST(Protocol, PlansAsTextEdits) {
  core::FixPlan plan;
  plan.originalText = "x = 1\nopt = AdamW(\xF0\x9F\x94\xA5, p)\n";
  size_t at = plan.originalText.find(", p)") + 3;
  plan.edits.push_back({at, at, ", eps=1e-5"});
  json edits = toTextEdits(plan, core::PositionEncoding::kUtf16);
  ASSERT_EQ(edits.size(), 1u);
  EXPECT_EQ(edits[0]["range"]["start"]["line"], 1);
  EXPECT_EQ(edits[0]["range"]["start"]["character"], 17);  // the emoji counts 2
  EXPECT_EQ(edits[0]["newText"], ", eps=1e-5");
}

// Texts that grow share one buffer, and no snapshot ever sees another's bytes change.
TEST(DocText, AppendsShareTheBufferAndSnapshotsStayAsTheyWere) {
  DocTextPtr a = DocText::make("line 1\n");
  DocTextPtr b = DocText::appendTo(a, "line 2\n");
  DocTextPtr c = DocText::appendTo(b, "line 3\n");
  EXPECT_EQ(a->view(), "line 1\n");
  EXPECT_EQ(b->view(), "line 1\nline 2\n");
  EXPECT_EQ(c->view(), "line 1\nline 2\nline 3\n");
  EXPECT_EQ(a->view().data(), c->view().data());  // one buffer, no copy
  // Appending to an older snapshot must not write over the newer one's bytes: it copies.
  DocTextPtr b2 = DocText::appendTo(b, "other\n");
  EXPECT_EQ(b2->view(), "line 1\nline 2\nother\n");
  EXPECT_EQ(c->view(), "line 1\nline 2\nline 3\n");
  EXPECT_NE(b2->view().data(), c->view().data());
  // Past the room it has, a text moves to a bigger buffer.
  DocTextPtr big = c;
  std::string expected(c->view());
  for (int i = 0; i < 2000; ++i) {
    big = DocText::appendTo(big, "more text on another line\n");
    expected += "more text on another line\n";
  }
  EXPECT_EQ(big->view(), expected);
  EXPECT_EQ(c->view(), "line 1\nline 2\nline 3\n");
}

// The store keeps the line index across appends and other edits: the same positions as an
// index made from scratch.
TEST(DocumentStoreChanges, AppendsAndEditsKeepTextAndLineIndexRight) {
  DocumentStore store;
  store.open("file:///w/a.log", "log", 1, "one\ntwo\n");
  auto range = [](int l1, int c1, int l2, int c2) {
    return json{{"start", {{"line", l1}, {"character", c1}}}, {"end", {{"line", l2}, {"character", c2}}}};
  };
  store.change("file:///w/a.log", 2, json::array({{{"range", range(2, 0, 2, 0)}, {"text", "three\n"}}}), core::PositionEncoding::kUtf16);
  store.change("file:///w/a.log", 3,
               json::array({{{"range", range(3, 0, 3, 0)}, {"text", "four\nfi"}},
                            {{"range", range(4, 2, 4, 2)}, {"text", "ve\n"}},
                            {{"range", range(0, 1, 1, 1)}, {"text", "N"}}}),
               core::PositionEncoding::kUtf16);
  auto view = store.view("file:///w/a.log");
  ASSERT_TRUE(view);
  EXPECT_EQ(view->text->view(), "oNwo\nthree\nfour\nfive\n");
  auto indexed = store.lineIndex("file:///w/a.log", view->text);
  core::LineIndex fresh(view->text->view());
  ASSERT_EQ(indexed->index.lineCount(), fresh.lineCount());
  for (size_t l = 0; l < fresh.lineCount(); ++l) EXPECT_EQ(indexed->index.lineStart(l), fresh.lineStart(l)) << l;
}

// A diagnosis of version 3 is published as version 3, even when the editor is at version 5.
TEST(Publishing, CarriesTheVersionThatWasDiagnosed) {
  DocumentView doc;
  doc.version = 5;
  doc.text = DocText::make("new text\n");
  EXPECT_EQ(publication(doc).version, 5);  // nothing diagnosed yet: an empty publication of now
  EXPECT_FALSE(publication(doc).document);
  doc.diagnosis = std::make_shared<const core::Diagnosis>();
  doc.diagnosedText = DocText::make("old text\n");
  doc.diagnosedVersion = 3;
  doc.selection = std::make_shared<const core::Diagnosis>();
  Publication p = publication(doc);
  EXPECT_EQ(p.version, 3);
  EXPECT_TRUE(p.document);
  EXPECT_FALSE(p.selection);  // of version 5's text: its lines would not match version 3's
  doc.diagnosedVersion = 5;
  p = publication(doc);
  EXPECT_EQ(p.version, 5);
  EXPECT_TRUE(p.document && p.selection);
}

TEST(Settings, MergeAndValidation) {
  Settings s = Settings::merge({}, {{"rules", {"a", "b"}}, {"autoDiagnose", false}, {"unknown", 1}});
  EXPECT_EQ(s.ruleDirs, (std::vector<std::string>{"a", "b"}));
  EXPECT_FALSE(s.autoDiagnose);
  EXPECT_THROW(Settings::merge({}, {{"autoDiagnose", "yes"}}), LspError);
  EXPECT_THROW(Settings::merge({}, {{"rules", "a"}}), LspError);
}

}  // namespace
}  // namespace denpex::lsp

namespace denpex::lsp {
namespace {

// Big messages take the fast path (big strings read and unescaped in place): the same JSON as
// nlohmann's parser gives, and its errors for malformed ones.
TEST(ParseMessage, BigMessagesReadTheSameAsWithNlohmann) {
  std::string text;
  while (text.size() < 600 * 1024)
    text += "[rank0]:step 1 | loss nan \"quoted\" back\\slash tab\t caf\xc3\xa9 \xf0\x9f\x98\x80 ctrl\x01 /\n";
  json small = {{"uri", "file:///w/a.log"}, {"n", -3}, {"u", 18446744073709551615ull}, {"d", 1.5}, {"b", true}, {"z", nullptr}};
  std::vector<json> messages = {
      {{"jsonrpc", "2.0"}, {"method", "textDocument/didOpen"},
       {"params", {{"textDocument", {{"uri", "file:///w/a.log"}, {"languageId", "log"}, {"version", 1}, {"text", text}}}}}},
      {{"jsonrpc", "2.0"}, {"method", "textDocument/didChange"},
       {"params", {{"textDocument", {{"uri", "file:///w/a.log"}, {"version", 2}}},
                   {"contentChanges", json::array({{{"text", text}}, {{"text", text + "more"}}, {{"text", "x"}}})},
                   {"extra", small}}}},
  };
  for (const auto& m : messages) {
    std::string body = m.dump();
    std::string ascii = m.dump(-1, ' ', true);  // with \uXXXX escapes and surrogate pairs
    for (std::string* b : {&body, &ascii}) {
      json expected = json::parse(*b);
      std::string copy = *b;
      EXPECT_EQ(parseMessage(copy), expected);
      EXPECT_TRUE(copy.empty());  // the fast path took the buffer over
    }
  }
  // Malformed: nlohmann's errors, never a half-read message.
  std::string bad = R"({"jsonrpc":"2.0","method":"x","params":{"text":")" + std::string(300 * 1024, 'a') + R"(\q"}})";
  EXPECT_THROW(parseMessage(bad), json::exception);
  std::string lone = R"({"jsonrpc":"2.0","method":"x","params":{"text":")" + std::string(300 * 1024, 'a') + R"(\ud800"}})";
  EXPECT_THROW(parseMessage(lone), json::exception);
  std::string cut = R"({"jsonrpc":"2.0","method":"x","params":{"text":")" + std::string(300 * 1024, 'a');
  EXPECT_THROW(parseMessage(cut), json::exception);
  // Bytes JSON does not allow in a string: a raw control character, bytes that are not UTF-8
  // (a stray continuation byte, an overlong form, an encoded surrogate, a sequence cut short).
  for (std::string raw : {"\x01", "\x80", "\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xe2\x82"}) {
    std::string body = R"({"jsonrpc":"2.0","method":"x","params":{"text":")" + std::string(300 * 1024, 'a') + raw + R"("}})";
    EXPECT_THROW(parseMessage(body), json::exception) << "raw bytes of length " << raw.size();
  }
  std::string unclosed = R"({"jsonrpc":"2.0","method":"x","params":{"text":")" + std::string(300 * 1024, 'a') + R"("})";
  EXPECT_THROW(parseMessage(unclosed), json::exception);
  // A lone low surrogate, a high one followed by no low one, and a bad byte in a small string
  // beside a big one.
  for (std::string bad : {std::string(R"(\udc00)"), std::string(R"(\ud800\u0041)"), std::string(R"(\ud800\)")}) {
    std::string body = R"({"jsonrpc":"2.0","method":"x","params":{"text":")" + std::string(300 * 1024, 'a') + bad + R"("}})";
    EXPECT_THROW(parseMessage(body), json::exception) << bad;
  }
  std::string smallBad = R"({"jsonrpc":"2.0","method":"x\x01","params":{"text":")" + std::string(300 * 1024, 'a') + R"("}})";
  smallBad.replace(smallBad.find("\\x01"), 4, "\x01");
  EXPECT_THROW(parseMessage(smallBad), json::exception);
}

// The fast path's own devices never show: a small string that looks like its marker, a big
// string as a key, a big string ending in escaped backslashes, several big strings.
TEST(ParseMessage, BigMessagesWithUnusualShapes) {
  std::string big(300 * 1024, 'b');
  std::vector<json> messages = {
      {{"a", std::string(1, '\0') + "0"}, {"text", big}},
      {{big, 1}, {"text", big + "x"}},
      {{"text", big + "\\\\"}, {"after", "\"quoted\\"}},
      {{"one", big}, {"two", json::array({big + "2", {{"three", big + "3"}}})}, {"n", 7}},
  };
  // The fast path hands the message's buffer to the biggest string (the body is left empty); the
  // first two go to nlohmann's parser whole.
  const bool fast[] = {false, false, true, true};
  for (size_t i = 0; i < messages.size(); ++i) {
    std::string body = messages[i].dump();
    EXPECT_EQ(parseMessage(body), messages[i]) << i;
    EXPECT_EQ(body.empty(), fast[i]) << i;
  }
}

}  // namespace
}  // namespace denpex::lsp
