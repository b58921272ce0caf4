// Matcher: every rule's patterns compiled once, matched in one pass per message.
//
// One RE2::Set over all pattern signals says which signals a message hits; only those signals'
// own RE2s then run to find the span and the named captures. A Matcher is immutable after
// construction (it compiles what it needs on first use, thread-safely) and may be shared between
// threads.
#pragma once

#include <re2/re2.h>
#include <re2/set.h>

#include <atomic>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/rules/rule.h"

namespace denpex::core {

class Matcher {
 public:
  struct Hit {
    size_t rule = 0;  // index into RuleSet::rules()
    int signal = 0;   // index into Rule::signals
    size_t begin = 0, end = 0;  // byte span in the message
    std::vector<std::pair<std::string, std::string>> captures;  // named groups that matched
  };

  explicit Matcher(const RuleSet& rules);

  // The options every signal pattern is compiled with (the loader uses them too): no logging,
  // 64 MiB of memory per pattern.
  static RE2::Options patternOptions();

  // Appends the hits of `message` to `out`, ordered by (rule, signal). Never fails: when the
  // set runs out of memory on a pathological line, each pattern is tried one by one instead.
  // The first call compiles the set (about ten milliseconds for the shipped rules): a caller with
  // a prefilter (prefilter.h) asks matchCandidates() instead and never pays for it.
  void match(std::string_view message, std::vector<Hit>& out) const;

  // Like match(), trying only the patterns in `candidates` (ascending indices below
  // patternCount()): the same hits when they include every pattern that matches.
  void matchCandidates(std::string_view message, const std::vector<int>& candidates, std::vector<Hit>& out) const;

  // Like match(), trying only the patterns of the rules in `rules` (indices into RuleSet::rules(),
  // any order): for a caller that asks about a few rules, without compiling the set.
  void matchRules(std::string_view message, const std::vector<size_t>& rules, std::vector<Hit>& out) const;

  size_t patternCount() const { return owners_.size(); }
  const std::string& patternText(size_t index) const { return patterns_[index]->text; }
  ~Matcher();
  Matcher(const Matcher&) = delete;
  Matcher& operator=(const Matcher&) = delete;

 private:
  void addHit(size_t pattern, std::string_view message, std::vector<Hit>& out) const;
  // A pattern's own RE2, compiled the first time a line needs its span and captures (most
  // patterns never match, and compiling all of them cost half of start-up). Thread-safe.
  const RE2& regex(size_t pattern) const;
  // The set of every pattern, compiled the first time a message is matched without candidates:
  // most diagnoses have a prefilter and never ask for it, and compiling it was most of start-up.
  // Null when it could not be compiled. Thread-safe.
  const RE2::Set* set() const;

  struct Pattern {
    std::string text;
    std::shared_ptr<const RE2> given;                // compiled by the loader, when it did
    mutable std::atomic<const RE2*> compiled{nullptr};  // else compiled here, once
  };
  struct CompiledSet {
    RE2::Set set{patternOptions(), RE2::UNANCHORED};
    bool ok = false;
  };
  mutable std::atomic<const CompiledSet*> set_{nullptr};
  std::vector<std::pair<size_t, int>> owners_;  // pattern index -> (rule, signal)
  std::vector<std::unique_ptr<Pattern>> patterns_;
};

}  // namespace denpex::core
