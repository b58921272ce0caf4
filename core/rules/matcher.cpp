// One RE2::Set pass, then the hit patterns' own RE2s (see matcher.h).
#include "core/rules/matcher.h"

#include <algorithm>

namespace denpex::core {

RE2::Options Matcher::patternOptions() {
  RE2::Options opts;
  opts.set_log_errors(false);
  opts.set_max_mem(64 << 20);
  return opts;
}

Matcher::Matcher(const RuleSet& rules) {
  for (size_t r = 0; r < rules.rules().size(); ++r) {
    const Rule& rule = *rules.rules()[r];
    for (size_t s = 0; s < rule.signals.size(); ++s) {
      const Signal& sig = rule.signals[s];
      // A pattern RE2 cannot parse was rejected by the loader (or, for the shipped rules, at
      // build time): every one here parses.
      if (sig.pattern.empty()) continue;
      owners_.emplace_back(r, static_cast<int>(s));
      auto pattern = std::make_unique<Pattern>();
      pattern->text = sig.pattern;
      pattern->given = sig.regex;
      patterns_.push_back(std::move(pattern));
    }
  }
}

Matcher::~Matcher() {
  for (auto& p : patterns_) delete p->compiled.load();
  delete set_.load();
}

const RE2::Set* Matcher::set() const {
  const CompiledSet* compiled = set_.load(std::memory_order_acquire);
  if (compiled) return compiled->ok ? &compiled->set : nullptr;
  auto* fresh = new CompiledSet;
  fresh->ok = true;
  for (const auto& p : patterns_) {
    std::string error;
    // The set's indices are the patterns' own: one it could not take (the constructor says why
    // that cannot happen) holds its place with a class that matches nothing.
    if (fresh->set.Add(p->text, &error) < 0 && fresh->set.Add("[^\\x00-\\x{10FFFF}]", &error) < 0) fresh->ok = false;
  }
  fresh->ok = fresh->ok && fresh->set.Compile();
  // Two threads may compile it at once; one keeps its copy, the other's is dropped.
  const CompiledSet* expected = nullptr;
  if (!set_.compare_exchange_strong(expected, fresh, std::memory_order_acq_rel)) {
    delete fresh;
    fresh = const_cast<CompiledSet*>(expected);
  }
  return fresh->ok ? &fresh->set : nullptr;
}

const RE2& Matcher::regex(size_t pattern) const {
  const Pattern& p = *patterns_[pattern];
  if (p.given) return *p.given;
  const RE2* re = p.compiled.load(std::memory_order_acquire);
  if (re) return *re;
  // Two threads may compile it at once; one keeps its copy, the other's is dropped.
  auto* fresh = new RE2(p.text, patternOptions());
  const RE2* expected = nullptr;
  if (p.compiled.compare_exchange_strong(expected, fresh, std::memory_order_acq_rel)) return *fresh;
  delete fresh;
  return *expected;
}

void Matcher::addHit(size_t pattern, std::string_view message, std::vector<Hit>& out) const {
  const RE2& re = regex(pattern);
  int groups = re.NumberOfCapturingGroups();
  std::vector<re2::StringPiece> sub(static_cast<size_t>(groups) + 1);
  re2::StringPiece text(message.data(), message.size());
  if (!re.Match(text, 0, text.size(), RE2::UNANCHORED, sub.data(), groups + 1)) return;
  Hit hit;
  hit.rule = owners_[pattern].first;
  hit.signal = owners_[pattern].second;
  hit.begin = static_cast<size_t>(sub[0].data() - message.data());
  hit.end = hit.begin + sub[0].size();
  for (const auto& [name, index] : re.NamedCapturingGroups()) {
    if (sub[index].data() != nullptr) hit.captures.emplace_back(name, std::string(sub[index]));
  }
  std::sort(hit.captures.begin(), hit.captures.end());
  out.push_back(std::move(hit));
}

void Matcher::match(std::string_view message, std::vector<Hit>& out) const {
  if (owners_.empty()) return;
  thread_local std::vector<int> indices;  // no allocation per line; the Matcher stays shareable
  indices.clear();
  RE2::Set::ErrorInfo info{RE2::Set::kNoError};
  const RE2::Set* all = set();
  bool any = all && all->Match(re2::StringPiece(message.data(), message.size()), &indices, &info);
  if (!all || (!any && info.kind != RE2::Set::kNoError)) {
    // Out of memory (or an uncompiled set): a miss must not look like "no match".
    for (size_t p = 0; p < patterns_.size(); ++p) addHit(p, message, out);
    return;
  }
  std::sort(indices.begin(), indices.end());
  for (int index : indices) addHit(static_cast<size_t>(index), message, out);
}

void Matcher::matchCandidates(std::string_view message, const std::vector<int>& candidates, std::vector<Hit>& out) const {
  for (int index : candidates) addHit(static_cast<size_t>(index), message, out);
}

void Matcher::matchRules(std::string_view message, const std::vector<size_t>& rules, std::vector<Hit>& out) const {
  std::vector<size_t> wanted(rules);
  std::sort(wanted.begin(), wanted.end());
  wanted.erase(std::unique(wanted.begin(), wanted.end()), wanted.end());
  // owners_ is ordered by rule (the constructor walks the rules in order): each rule's patterns
  // are one run of it.
  for (size_t rule : wanted) {
    auto first = std::lower_bound(owners_.begin(), owners_.end(), std::make_pair(rule, 0));
    for (auto it = first; it != owners_.end() && it->first == rule; ++it)
      addHit(static_cast<size_t>(it - owners_.begin()), message, out);
  }
}

}  // namespace denpex::core
