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

TEST(Matcher, EmptyRuleSet) {
  RuleSet set;
  Matcher m(set);
  std::vector<Matcher::Hit> hits;
  m.match("anything", hits);
  EXPECT_TRUE(hits.empty());
}

}  // namespace
}  // namespace denpex::core
