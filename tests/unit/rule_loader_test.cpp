// Rule files: what loads, and the errors (with lines) for what does not.
#include <gtest/gtest.h>

#include <filesystem>

#include "core/rules/lint.h"
#include "core/rules/rule.h"
#include "core/rules/rule_bundle.h"

namespace denpex::core {
namespace {

constexpr const char* kGood = R"(id: my-rule
title: My rule
category: test
summary: A rule for tests.
signals:
  boom: 'Boom: (?P<what>\w+)'
  quiet: 'quiet'
condition: boom and not quiet
examples:
  match: ["Boom: x", "Boom: y"]
  no_match: ["Bam", "Boom: x\nquiet"]
)";

TEST(RuleLoader, LoadsAGoodRule) {
  std::vector<RuleError> errors;
  auto rule = parseRule({"rules/test/my-rule.yaml", kGood}, errors);
  ASSERT_TRUE(rule.ok()) << (errors.empty() ? "" : errors[0].format());
  EXPECT_EQ(rule->id, "my-rule");
  ASSERT_EQ(rule->signals.size(), 2u);
  EXPECT_EQ(rule->condition.op, Condition::Op::kAnd);
  EXPECT_EQ(rule->matchExamples.size(), 2u);
  EXPECT_EQ(rule->noMatchExamples.size(), 2u);
}

std::vector<RuleError> errorsOf(const std::string& text) {
  std::vector<RuleError> errors;
  auto rule = parseRule({"r.yaml", text}, errors);
  EXPECT_FALSE(rule.ok());
  return errors;
}

TEST(RuleLoader, UnknownFieldNamesFileAndLine) {
  std::string text = kGood;
  text.insert(text.find("signals:"), "colour: red\n");
  auto errors = errorsOf(text);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].line, 5);
  EXPECT_NE(errors[0].message.find("unknown field 'colour'"), std::string::npos);
  EXPECT_EQ(errors[0].format().substr(0, 9), "r.yaml:5:");
}

TEST(RuleLoader, InvalidRegexIsReportedWithItsLine) {
  std::string text = kGood;
  text.replace(text.find("'quiet'"), 7, "'(unclosed'");
  auto errors = errorsOf(text);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].line, 7);
  EXPECT_NE(errors[0].message.find("invalid regex"), std::string::npos);
}

TEST(RuleLoader, YamlSyntaxError) {
  auto errors = errorsOf("id: x\ntitle: [unclosed\nsummary: y\n");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].line, 3) << errors[0].format();  // where the parser found the list unclosed
  EXPECT_NE(errors[0].message.find("YAML syntax"), std::string::npos);
}

TEST(RuleLoader, ASignalsScopeIsRunOrRankAndOnlyPatternsAreRunWide) {
  std::string text = kGood;
  text.replace(text.find("  quiet: 'quiet'"), 16, "  quiet:\n    pattern: 'quiet'\n    scope: run");
  std::vector<RuleError> errors;
  auto rule = parseRule({"r.yaml", text}, errors);
  ASSERT_TRUE(rule.ok()) << (errors.empty() ? "" : errors[0].format());
  EXPECT_FALSE(rule->signals[0].runWide);
  EXPECT_TRUE(rule->signals[1].runWide);

  std::string bad = text;
  bad.replace(bad.find("scope: run"), 10, "scope: node");
  auto e1 = errorsOf(bad);
  ASSERT_EQ(e1.size(), 1u);
  EXPECT_EQ(e1[0].line, 9);
  EXPECT_NE(e1[0].message.find("unknown scope 'node' (expected run or rank)"), std::string::npos) << e1[0].message;

  std::string metric = text;
  metric.replace(metric.find("pattern: 'quiet'"), 16, "metric: loss");
  auto e2 = errorsOf(metric);
  ASSERT_EQ(e2.size(), 1u);
  EXPECT_NE(e2[0].message.find("a metric signal is a rank's own"), std::string::npos) << e2[0].message;
}

TEST(RuleLoader, ConditionWithUnknownSignal) {
  std::string text = kGood;
  text.replace(text.find("boom and not quiet"), 18, "boom and missing");
  auto errors = errorsOf(text);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].message.find("unknown signal 'missing'"), std::string::npos);
}

TEST(RuleLoader, ConditionPrecedenceAndParentheses) {
  std::string text = kGood;
  text.replace(text.find("boom and not quiet"), 18, "not (boom or quiet) and boom");
  std::vector<RuleError> errors;
  auto rule = parseRule({"r.yaml", text}, errors);
  ASSERT_TRUE(rule.ok());
  EXPECT_EQ(rule->condition.op, Condition::Op::kAnd);
  EXPECT_EQ(rule->condition.args[0].op, Condition::Op::kNot);
  EXPECT_EQ(rule->condition.args[0].args[0].op, Condition::Op::kOr);
}

TEST(RuleLoader, MissingRequiredField) {
  auto errors = errorsOf("id: x\ntitle: y\ncategory: z\n");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].message.find("'summary'"), std::string::npos);
}

TEST(RuleLoader, OneBadFileDoesNotStopTheOthers) {
  RuleSet set;
  auto errors = set.add({{"a.yaml", kGood}, {"b.yaml", "id: [\n"}});
  EXPECT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].file, "b.yaml");
  EXPECT_EQ(set.rules().size(), 1u);
}

TEST(RuleLoader, AUserRuleReplacesAShippedRuleOnlyWhenItSaysSo) {
  RuleSet set;
  ASSERT_TRUE(set.add({{"<builtin>/t/my-rule.yaml", kGood}}, RuleOrigin::kShipped).empty());
  std::string other = kGood;
  other.replace(other.find("My rule"), 7, "Override");
  // The shipped id taken silently: an error, and the shipped rule stays.
  auto errors = set.add({{"user/my-rule.yaml", other}}, RuleOrigin::kUser);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].message,
            "rule id 'my-rule' is a shipped rule's: a user rule replaces it only when it says so with 'overrides: my-rule'; "
            "this file is skipped");
  EXPECT_EQ(set.find("my-rule")->title, "My rule");
  // Said explicitly: it replaces the shipped rule, in place, and that is on record.
  std::string explicitOverride = other + "overrides: my-rule\n";
  EXPECT_TRUE(set.add({{"user/my-rule.yaml", explicitOverride}}, RuleOrigin::kUser).empty());
  ASSERT_EQ(set.rules().size(), 1u);
  EXPECT_EQ(set.find("my-rule")->title, "Override");
  ASSERT_EQ(set.overridden().size(), 1u);
  EXPECT_EQ(set.overridden()[0], "my-rule (by user/my-rule.yaml)");
  // A second override of the same rule, or an override of a rule that does not exist: errors.
  errors = set.add({{"more/my-rule.yaml", explicitOverride}}, RuleOrigin::kUser);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].message, "'my-rule' is already overridden by user/my-rule.yaml; this file is skipped");
  std::string nothing = kGood;
  nothing.replace(nothing.find("id: my-rule"), 11, "id: mine") ;
  errors = set.add({{"user/mine.yaml", nothing + "overrides: no-such-rule\n"}}, RuleOrigin::kUser);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].message, "'overrides: no-such-rule' names no shipped rule; this file is skipped");
}

// An override under an id of its own takes the shipped rule's place: the shipped one is gone.
TEST(RuleLoader, AnOverrideWithAnotherIdReplacesTheShippedRuleInPlace) {
  RuleSet set;
  ASSERT_TRUE(set.add({{"<builtin>/t/my-rule.yaml", kGood}}, RuleOrigin::kShipped).empty());
  std::string variant = kGood;
  variant.replace(variant.find("id: my-rule"), 11, "id: my-variant");
  EXPECT_TRUE(set.add({{"user/my-variant.yaml", variant + "overrides: my-rule\n"}}, RuleOrigin::kUser).empty());
  ASSERT_EQ(set.rules().size(), 1u);
  EXPECT_EQ(set.rules()[0]->id, "my-variant");
  EXPECT_EQ(set.find("my-rule"), nullptr);
  ASSERT_EQ(set.overridden().size(), 1u);
  EXPECT_EQ(set.overridden()[0], "my-rule (by user/my-variant.yaml)");
}

TEST(RuleLoader, TwoUserRulesWithOneIdAreAnErrorAcrossFolders) {
  RuleSet set;
  std::string other = kGood;
  other.replace(other.find("My rule"), 7, "Second");
  EXPECT_TRUE(set.add({{"team/my-rule.yaml", kGood}}, RuleOrigin::kUser).empty());
  auto errors = set.add({{"mine/my-rule.yaml", other}}, RuleOrigin::kUser);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].message, "duplicate rule id 'my-rule' (also defined in team/my-rule.yaml); this file is skipped");
  EXPECT_EQ(set.find("my-rule")->title, "My rule");
}

// An edit as a rule file states it; `fields` is spliced into a python-keyword edit of kGood.
std::vector<RuleError> editErrors(const std::string& fields) {
  std::string text = std::string(kGood) + "edits:\n  - kind: python-keyword\n    callees: [torch.optim.AdamW]\n    keyword: eps\n" + fields;
  std::vector<RuleError> errors;
  parseRule({"r.yaml", text}, errors);
  return errors;
}

TEST(RuleLoader, AnEditsValueMustHaveItsDeclaredTypeAndRange) {
  EXPECT_TRUE(editErrors("    type: float\n    value: 1e-5\n    range: [1e-6, 1e-3]\n    min_safe: 1e-5\n").empty());
  EXPECT_TRUE(editErrors("    type: bool\n    value: true\n").empty());
  EXPECT_TRUE(editErrors("    type: int\n    value: 8\n    range: [1, 64]\n").empty());
  EXPECT_TRUE(editErrors("    type: string\n    value: sdpa\n").empty());
  struct Case {
    std::string fields, message;
  } cases[] = {
      // The planted-code repro: any text as the value.
      {"    type: float\n    value: '(__import__(\"os\").system(\"touch /tmp/PWNED\") and 1e-5) or 1e-5'\n    range: [1e-6, 1e-3]\n",
       "value '(__import__(\"os\").system(\"touch /tmp/PWNED\") and 1e-5) or 1e-5' is not a float literal (e.g. 1e-5)"},
      {"    value: 1e-5\n", "an edit needs 'type' (float, int, bool or string): the kind of value it writes"},
      {"    type: str\n    value: x\n", "edit type must be float, int, bool or string, not 'str'"},
      // A string is a plain word: nothing in it could close its quotes or start code.
      {"    type: string\n    value: 'sdpa\" + __import__(\"os\").system(\"id\") + \"'\n",
       "a string edit's value must be 1 to 64 letters, digits or _.:/- (no quotes, no spaces), not 'sdpa\" + "
       "__import__(\"os\").system(\"id\") + \"'"},
      {"    type: string\n    value: sdpa\n    range: [1, 2]\n", "a string edit takes no 'range' or 'min_safe'"},
      {"    only_if_present: yes\n    type: bool\n    value: true\n", "'only_if_present' must be true or false"},
      {"    type: float\n    value: 1e-5\n", "a float edit needs 'range: [min, max]': the values it may write"},
      {"    type: float\n    value: 1.0\n    range: [1e-6, 1e-3]\n", "value 1.0 is outside the edit's range [1e-6, 1e-3]"},
      {"    type: int\n    value: 1.5\n    range: [1, 9]\n", "value '1.5' is not an integer literal"},
      {"    type: bool\n    value: 'True or os.system(1)'\n", "a bool edit's value must be true or false, not 'True or os.system(1)'"},
      {"    type: float\n    value: 1e-5\n    range: [1e-3, 1e-6]\n", "'range' must be [min, max] with min <= max"},
  };
  for (const auto& c : cases) {
    auto errors = editErrors(c.fields);
    ASSERT_EQ(errors.size(), 1u) << c.fields;
    EXPECT_EQ(errors[0].message, c.message);
  }
}

TEST(RuleLoader, AnEditsNamesAreNamesNotCode) {
  auto one = [](const std::string& edit) {
    std::vector<RuleError> errors;
    parseRule({"r.yaml", std::string(kGood) + "edits:\n" + edit}, errors);
    return errors.empty() ? std::string() : errors[0].message;
  };
  const std::string value = "    type: float\n    value: 1e-5\n    range: [1e-6, 1e-3]\n";
  EXPECT_EQ(one("  - kind: python-keyword\n    callees: [AdamW]\n    keyword: eps\n" + value),
            "callee 'AdamW' must be a fully qualified name (torch.optim.AdamW): calls are matched through the file's imports");
  EXPECT_EQ(one("  - kind: python-keyword\n    callees: [torch.optim.AdamW]\n    keyword: 'eps=os.system(1),x'\n" + value),
            "keyword 'eps=os.system(1),x' is not a Python parameter name");
  EXPECT_EQ(one("  - kind: python-keyword\n    callees: [torch.optim.AdamW]\n    keyword: lambda\n" + value),
            "keyword 'lambda' is not a Python parameter name");
  EXPECT_EQ(one("  - kind: json-key\n    path: 'a.\"b'\n" + value), "path 'a.\"b' must be dotted keys of letters, digits, '_' and '-'");
  EXPECT_EQ(one("  - kind: json-key\n    path: a.b\n    keyword: eps\n" + value),
            "'callees', 'keyword' and 'position' belong to python-keyword edits");
  EXPECT_EQ(one("  - kind: python-drop-float16-cast\n"), "");
  EXPECT_EQ(one("  - kind: python-drop-float16-cast\n    keyword: eps\n"),
            "a python-drop-float16-cast edit takes no 'keyword': it removes the float16 cast the check found");
  EXPECT_EQ(one("  - kind: python-code\n" + value), "edit kind must be 'python-keyword', 'json-key' or 'python-drop-float16-cast', not 'python-code'");
}

TEST(RuleLoader, AnEditTitleIsIgnoredWithAWarning) {
  std::vector<RuleError> errors;
  auto rule = parseRule({"r.yaml", std::string(kGood) + "edits:\n  - kind: python-keyword\n    callees: [torch.optim.AdamW]\n    keyword: eps\n"
                                           "    type: float\n    value: 1e-5\n    range: [1e-6, 1e-3]\n    title: Set eps=1e-5\n"},
                        errors);
  ASSERT_TRUE(rule.ok());
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].message, "an edit's 'title' is ignored: a fix's title is written from what it sets");
}

TEST(RuleLoader, DuplicateIdsInOneLoadAreErrors) {
  RuleSet set;
  std::string other = kGood;
  other.replace(other.find("My rule"), 7, "Second");
  auto errors = set.add({{"team/a.yaml", kGood}, {"team/b.yaml", other}});
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].file, "team/b.yaml");
  EXPECT_NE(errors[0].message.find("duplicate rule id 'my-rule' (also defined in team/a.yaml)"), std::string::npos);
  ASSERT_EQ(set.rules().size(), 1u);
  EXPECT_EQ(set.find("my-rule")->title, "My rule");  // the first one stays
}

// Hostile rule files are refused with a clear error, before they cost time or memory.
TEST(RuleLoader, HostileFilesAreRefusedWithinLimits) {
  auto firstError = [](const std::string& text) {
    std::vector<RuleError> errors;
    auto rule = parseRule({"r.yaml", text}, errors);
    EXPECT_FALSE(rule.ok());
    return errors.empty() ? std::string() : errors[0].message;
  };
  // A condition nested 100,000 deep once crashed the loader.
  std::string deep = "id: r\ntitle: R\ncategory: t\nsummary: s\nsignals:\n  a: 'x'\ncondition: " + std::string(100000, '(') + "a" +
                     std::string(100000, ')') + "\n";
  EXPECT_EQ(firstError(deep), "condition '" + std::string(100000, '(') + "a" + std::string(100000, ')') + "': is longer than 4096 characters");
  std::string nots = "id: r\ntitle: R\ncategory: t\nsummary: s\nsignals:\n  a: 'x'\ncondition: ";
  for (int i = 0; i < 100; ++i) nots += "not ";
  EXPECT_NE(firstError(nots + "a\n").find("nests deeper than 64 levels"), std::string::npos);
  // YAML aliases: a billion laughs in a few lines.
  std::string laughs = "id: r\ntitle: R\ncategory: t\nsummary: s\na: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n";
  EXPECT_EQ(firstError(laughs), "YAML aliases (*name) are not allowed in rule files");
  EXPECT_EQ(firstError("id: r\nx: " + std::string(200, '[') + std::string(200, ']') + "\n"), "YAML nests deeper than 32 levels");
  EXPECT_EQ(firstError(std::string(kGood) + "# " + std::string(2 << 20, 'x') + "\n"),
            "the file is 2048 KiB; a rule file may be at most 1024 KiB");
  // yaml-cpp 0.7 reports documents forever on a stream that opens with ',' (the fuzzer found
  // one in 45 bytes); the loader asks for two at most.
  const std::string more = "a rule file holds one YAML document; this one holds more (or a stray ',' or '---')";
  EXPECT_EQ(firstError(",,,,i<G"), more);
  EXPECT_EQ(firstError(",\n"), more);
  EXPECT_EQ(firstError(std::string(kGood) + "---\n" + kGood), more);
  std::vector<RuleError> errors;
  EXPECT_TRUE(parseRule({"r.yaml", std::string("---\n") + kGood + "...\n"}, errors).ok());
  // Numbers no int holds (the fuzzer found a priority of 7e105) are refused, not converted.
  std::string good = kGood;
  std::string withPriority = good;
  withPriority.insert(withPriority.find("signals:"), "priority: 7" + std::string(105, '1') + "\n");
  EXPECT_EQ(firstError(withPriority), "priority must be a number from -1000 to 1000");
  std::string nanPriority = good;
  nanPriority.insert(nanPriority.find("signals:"), "priority: .nan\n");
  EXPECT_EQ(firstError(nanPriority), "priority must be a number from -1000 to 1000");
  std::string bigCount = good;
  bigCount.replace(bigCount.find("quiet: 'quiet'"), 14, "quiet:\n    pattern: 'quiet'\n    min_count: 1e300");
  EXPECT_EQ(firstError(bigCount), "'min_count' must be a number from 1 to 1000000");
}

TEST(RuleLoader, LintWantsExamplesAndKnowledge) {
  std::vector<RuleError> errors;
  auto rule = parseRule({"rules/test/other-name.yaml", kGood}, errors);
  ASSERT_TRUE(rule.ok());
  auto problems = lintRule(*rule);
  bool nameProblem = false, fixProblem = false;
  for (const auto& p : problems) {
    nameProblem |= p.message.find("file name") != std::string::npos;
    fixProblem |= p.message.find("'fix'") != std::string::npos;
  }
  EXPECT_TRUE(nameProblem);
  EXPECT_TRUE(fixProblem);
}

TEST(RuleLoader, ShippedRulesLoadCleanly) {
  RuleSet set;
  auto sources = builtinRuleSources();
  auto errors = set.add(sources, RuleOrigin::kShipped);
  for (const auto& e : errors) ADD_FAILURE() << e.format();
  // Every file of the rules/ folder is embedded, and every one loads.
  size_t files = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(std::filesystem::path(DENPEX_SOURCE_DIR) / "rules"))
    files += e.path().extension() == ".yaml";
  EXPECT_EQ(sources.size(), files);
  EXPECT_EQ(set.rules().size(), sources.size());
  for (const char* id : {"adamw-eps-fp16-underflow", "gradient-explosion", "fp16-loss-scale-collapse",
                         "cuda-out-of-memory", "unrecognized-exception"})
    EXPECT_NE(set.find(id), nullptr) << id;
  for (const auto& r : set.rules()) {
    for (const auto& p : lintRule(*r)) ADD_FAILURE() << p.format();
  }
}

}  // namespace
}  // namespace denpex::core

// The bundle the build made holds every shipped rule exactly as its YAML says: the rules parsed
// from YAML encode to the same bytes, and the decoded bundle encodes back to them.
TEST(RuleBundle, TheBuiltBundleIsTheShippedYaml) {
  denpex::core::RuleSet fromYaml;
  ASSERT_TRUE(fromYaml.add(denpex::core::builtinRuleSources()).empty());
  std::string bundle(denpex::core::builtinRuleBundle());
  EXPECT_EQ(denpex::core::encodeRules(fromYaml.rules()), bundle);
  auto decoded = denpex::core::decodeRules(bundle);
  ASSERT_TRUE(decoded) << decoded.error();
  denpex::core::RuleSet fromBundle;
  fromBundle.addParsed(std::move(*decoded));
  ASSERT_EQ(fromBundle.rules().size(), fromYaml.rules().size());
  EXPECT_EQ(denpex::core::encodeRules(fromBundle.rules()), bundle);
  EXPECT_EQ(fromBundle.rules()[0]->id, fromYaml.rules()[0]->id);
}

TEST(RuleBundle, DamagedBytesAreAnErrorNotACrash) {
  std::string bundle(denpex::core::builtinRuleBundle());
  EXPECT_FALSE(denpex::core::decodeRules(""));
  EXPECT_FALSE(denpex::core::decodeRules("not a bundle"));
  for (size_t cut : {size_t{20}, bundle.size() / 3, bundle.size() - 1}) EXPECT_FALSE(denpex::core::decodeRules(bundle.substr(0, cut))) << cut;
  std::string huge = bundle.substr(0, 15) + std::string(8, '\xff');  // a count far past the end
  EXPECT_FALSE(denpex::core::decodeRules(huge));
}

// Parsed rule files (what the rule cache holds) come back as they went: the rules, the files that
// failed with their errors, the warnings beside a rule that loaded.
TEST(RuleBundle, ParsedRuleFilesRoundTripWithTheirErrors) {
  std::vector<denpex::core::RuleSource> sources;
  for (const auto& s : denpex::core::builtinRuleSources()) {
    sources.push_back(s);
    if (sources.size() == 3) break;
  }
  sources.push_back({"broken.yaml", "id: [\n"});
  auto parsed = denpex::core::parseRuleFiles(sources);
  ASSERT_EQ(parsed.size(), 4u);
  ASSERT_TRUE(parsed[0].rule);
  ASSERT_FALSE(parsed[3].rule);
  ASSERT_FALSE(parsed[3].errors.empty());
  std::string bytes = denpex::core::encodeParsedRuleFiles(parsed);
  auto decoded = denpex::core::decodeParsedRuleFiles(bytes);
  ASSERT_TRUE(decoded) << decoded.error();
  EXPECT_EQ(denpex::core::encodeParsedRuleFiles(*decoded), bytes);
  ASSERT_EQ(decoded->size(), 4u);
  EXPECT_EQ((*decoded)[0].rule->id, parsed[0].rule->id);
  EXPECT_EQ((*decoded)[3].errors[0].format(), parsed[3].errors[0].format());
  denpex::core::RuleSet a, b;
  EXPECT_EQ(a.add(parsed).size(), 1u);
  EXPECT_EQ(b.add(std::move(*decoded)).size(), 1u);
  EXPECT_EQ(denpex::core::encodeRules(a.rules()), denpex::core::encodeRules(b.rules()));
  EXPECT_FALSE(denpex::core::decodeParsedRuleFiles(bytes.substr(0, bytes.size() - 1)));
  EXPECT_FALSE(denpex::core::decodeParsedRuleFiles(denpex::core::encodeRules(a.rules())));
}
