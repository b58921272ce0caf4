// Exception groups: every Python exception the log shows, grouped by type and masked message
// across ranks and repeats, so that 64 ranks raising the same error are one failure. At the end
// the groups a finding explains are claimed, and each one left becomes a finding of the
// fallback rule (the exception, its masked template, how often and on which ranks).
//
// A plain value: copyable (a diagnoser's snapshot copies it), not thread-safe. Its size does
// not grow with the log: at most `maxGroups` groups, each keeping its first traceback, each
// rank's first occurrence and at most 64 line ranges.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "core/analyze/finding.h"
#include "core/parse/traceback.h"
#include "core/rules/matcher.h"
#include "core/rules/rule.h"

namespace denpex::core {

class ExceptionGroups {
 public:
  explicit ExceptionGroups(size_t maxGroups) : maxGroups_(maxGroups) {}

  void add(Traceback&& tb);

  // Claims the groups `findings` explain: a finding's evidence lies in the group's lines, or a
  // signal that counts for a finding's rule matches the group's exception line. A finding that
  // claims a group and names no exception yet takes the group's exception and user frame. Then
  // appends one `fallback` finding per group left (none when `fallback` is null).
  void explain(std::vector<Finding>& findings, const RuleSet& rules, const Matcher& matcher,
               const std::shared_ptr<const Rule>& fallback) const;

  // The exception line of a traceback as evidence ("exception").
  static Evidence exceptionEvidence(const Traceback& tb);

 private:
  struct Group {
    Traceback first;
    std::map<int, Evidence> rankFirst;  // each rank's first occurrence
    int count = 0;
    std::set<int> ranks;
    std::vector<std::tuple<uint32_t, uint64_t, uint64_t>> ranges;  // (source, first, last)
    std::string templ;
  };

  size_t maxGroups_;
  std::vector<Group> groups_;
  std::map<std::string, size_t> index_;
  uint64_t dropped_ = 0;  // distinct exceptions beyond maxGroups: counted, not kept
};

}  // namespace denpex::core
