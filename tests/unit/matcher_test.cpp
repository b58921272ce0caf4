// One RE2::Set pass and the hit patterns' spans and captures.
#include "core/rules/matcher.h"

#include <gtest/gtest.h>

namespace denpex::core {
namespace {

RuleSet twoRules() {
  RuleSet set;
  auto errors = set.add({{"a.yaml", R"(id: a
title: A
category: t
summary: s
signals:
  oom: 'Tried to allocate (?P<size>[0-9.]+ [KMG]iB)'
  other: 'never'
condition: oom
)"},
                         {"b.yaml", R"(id: b
title: B
category: t
summary: s
signals:
  mem: 'out of memory'
condition: mem
)"}});
  EXPECT_TRUE(errors.empty());
  return set;
}

TEST(Matcher, ReportsOnlyHitPatternsWithSpansAndCaptures) {
  RuleSet set = twoRules();
  Matcher m(set);
  EXPECT_EQ(m.patternCount(), 3u);
  std::vector<Matcher::Hit> hits;
  std::string msg = "CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0)";
  m.match(msg, hits);
  ASSERT_EQ(hits.size(), 2u);
  EXPECT_EQ(hits[0].rule, 0u);
  EXPECT_EQ(hits[0].signal, 0);
  EXPECT_EQ(msg.substr(hits[0].begin, hits[0].end - hits[0].begin), "Tried to allocate 20.00 MiB");
  ASSERT_EQ(hits[0].captures.size(), 1u);
  EXPECT_EQ(hits[0].captures[0].first, "size");
  EXPECT_EQ(hits[0].captures[0].second, "20.00 MiB");
  EXPECT_EQ(hits[1].rule, 1u);
  EXPECT_EQ(msg.substr(hits[1].begin, hits[1].end - hits[1].begin), "out of memory");
}

TEST(Matcher, NoHitsOnUnrelatedLines) {
  RuleSet set = twoRules();
  Matcher m(set);
  std::vector<Matcher::Hit> hits;
  m.match("step 1 | loss 0.5", hits);
  EXPECT_TRUE(hits.empty());
}

TEST(Matcher, MatchRulesTriesOnlyTheNamedRules) {
  RuleSet set = twoRules();
  Matcher m(set);
  std::string msg = "CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0)";
  std::vector<Matcher::Hit> hits;
  m.matchRules(msg, {1}, hits);
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(hits[0].rule, 1u);
  hits.clear();
  // Any order, repeats allowed: the hits come as match() gives them, by (rule, signal).
  m.matchRules(msg, {1, 0, 1}, hits);
  std::vector<Matcher::Hit> all;
  m.match(msg, all);
  ASSERT_EQ(hits.size(), all.size());
  for (size_t i = 0; i < hits.size(); ++i) {
    EXPECT_EQ(hits[i].rule, all[i].rule);
    EXPECT_EQ(hits[i].signal, all[i].signal);
    EXPECT_EQ(hits[i].begin, all[i].begin);
  }
  hits.clear();
  m.matchRules(msg, {}, hits);
  EXPECT_TRUE(hits.empty());
}

TEST(Matcher, EmptyRuleSet) {
  RuleSet set;
  Matcher m(set);
  std::vector<Matcher::Hit> hits;
  m.match("anything", hits);
  EXPECT_TRUE(hits.empty());
}

}  // namespace
}  // namespace denpex::core
