// Finding calls and their arguments in Python source.
#include "core/fix/python_calls.h"

#include <gtest/gtest.h>

namespace denpex::core {
namespace {

const std::vector<std::string> kAdam = {"torch.optim.AdamW", "AdamW", "Adam"};

std::string argText(const std::string& src, const CallArgument& a) { return src.substr(a.begin, a.end - a.begin); }

TEST(PythonCalls, FindsDottedAndBareCalls) {
  std::string src =
      "import torch\nfrom torch.optim import AdamW\n"
      "opt = torch.optim.AdamW(model.parameters(), lr=1e-3)\n"
      "opt2 = AdamW(params)\n"
      "opt3 = optim.Adam(params, 1e-3)\n"
      "x = MyAdamW(params)\n"
      "y = NotAdam(params)\n";
  auto calls = findPythonCalls(src, kAdam);
  ASSERT_EQ(calls.size(), 3u);
  EXPECT_EQ(calls[0].name, "torch.optim.AdamW");
  EXPECT_EQ(calls[1].name, "AdamW");
  EXPECT_EQ(calls[2].name, "optim.Adam");
  ASSERT_EQ(calls[0].args.size(), 2u);
  EXPECT_EQ(argText(src, calls[0].args[0]), "model.parameters()");
  EXPECT_EQ(calls[0].args[1].keyword, "lr");
  EXPECT_EQ(src.substr(calls[0].args[1].valueBegin, calls[0].args[1].valueEnd - calls[0].args[1].valueBegin), "1e-3");
}

TEST(PythonCalls, MultilineWithCommentsStringsAndNesting) {
  std::string src =
      "opt = torch.optim.AdamW(\n"
      "    [{'params': m.parameters(), 'name': 'a(b'}],  # groups, with a ) in a comment\n"
      "    lr=cfg.get(\"lr\", 1e-3),\n"
      "    betas=(0.9, 0.95),  # tuple\n"
      ")\n";
  auto calls = findPythonCalls(src, kAdam);
  ASSERT_EQ(calls.size(), 1u);
  const auto& c = calls[0];
  EXPECT_TRUE(c.closed);
  EXPECT_TRUE(c.trailingComma);
  ASSERT_EQ(c.args.size(), 3u);
  EXPECT_EQ(argText(src, c.args[0]), "[{'params': m.parameters(), 'name': 'a(b'}]");
  EXPECT_EQ(argText(src, c.args[1]), "lr=cfg.get(\"lr\", 1e-3)");
  EXPECT_EQ(argText(src, c.args[2]), "betas=(0.9, 0.95)");
  EXPECT_EQ(src[c.closeParen], ')');
}

TEST(PythonCalls, IgnoresStringsCommentsAndDefinitions) {
  std::string src =
      "# AdamW(params) in a comment\n"
      "s = 'AdamW(params)'\n"
      "t = \"\"\"docs: torch.optim.AdamW(x)\n more\"\"\"\n"
      "def AdamW(params):\n    pass\n"
      "class Adam(Base):\n    pass\n";
  EXPECT_TRUE(findPythonCalls(src, kAdam).empty());
}

TEST(PythonCalls, StarArgumentsAndComparisons) {
  std::string src = "AdamW(params, **kw)\nAdam(p, lr == 1)\n";
  auto calls = findPythonCalls(src, kAdam);
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_TRUE(calls[0].args[1].star);
  EXPECT_TRUE(calls[1].args[1].keyword.empty());
}

TEST(PythonCalls, UnclosedCall) {
  auto calls = findPythonCalls("opt = AdamW(params, lr=1e-3\n", kAdam);
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_FALSE(calls[0].closed);
}

}  // namespace
}  // namespace denpex::core
