// Rules: one failure each, loaded from YAML (see docs/rule-format.md for the file format).
//
// A rule is data: how to recognise the failure in a log (signals and a condition over them),
// what to tell the engineer (the encyclopedia entry), and how to fix their source (edits).
// Loading a rule can fail; the loader reports each error with file and line and goes on with
// the other rules.
#pragma once

#include <map>
#include <memory>

namespace re2 {
class RE2;
}
#include <optional>
#include <string>
#include <vector>

#include "core/base/expected.h"

namespace denpex::core {

enum class Severity { kError, kWarning, kInfo };
// root: the failure that started it; symptom: what a root cause looks like downstream (a NaN
// loss); collateral: what other ranks print because one rank died. Findings sort in this order.
enum class Role { kRoot, kSymptom, kCollateral };

const char* toString(Severity s);
const char* toString(Role r);

enum class MetricTest {
  kNonfinite,              // the metric becomes NaN or inf
  kStableBeforeNonfinite,  // finite and not growing in the steps before the loss turned non-finite
  kGrowsBeforeNonfinite,   // grows by an order of magnitude (or overflows) before the loss turns
  kFallsToMinimum,         // loss scale halves repeatedly down to a small value
};

const char* toString(MetricTest t);

struct Signal {
  std::string name;
  int line = 0;  // line of the signal in the rule file
  // Exactly one of pattern / metric is set.
  std::string pattern;  // RE2 syntax, searched in each log message
  std::string metric;   // loss | grad_norm | lr | loss_scale
  MetricTest test = MetricTest::kNonfinite;
  int minCount = 1;  // pattern signals: true only after this many matching lines
  // The pattern compiled once by the loader (which must compile it to check it anyway), with
  // patternOptions(); immutable and shared by every Matcher made from the rule.
  std::shared_ptr<const re2::RE2> regex;
};

// A boolean expression over signal names: `a and not (b or c)`.
struct Condition {
  enum class Op { kSignal, kNot, kAnd, kOr };
  Op op = Op::kSignal;
  int signal = -1;  // index into Rule::signals for kSignal
  std::vector<Condition> args;
};

struct Symptom {
  std::string symptom;
  std::string why;
};

struct Reference {
  std::string title;
  std::string url;
};

// A source fix as data. Each kind is idempotent: it produces no edit when the value already
// present is safe.
struct EditSpec {
  enum class Kind { kPythonKeyword, kJsonKey };
  Kind kind = Kind::kPythonKeyword;
  int line = 0;
  // kPythonKeyword: calls whose dotted name ends with one of `callees` get `keyword=value`.
  std::vector<std::string> callees;
  std::string keyword;
  std::optional<int> position;  // 0-based positional index of the same parameter, if it has one
  // kJsonKey: in JSON files holding `path` (dotted, e.g. optimizer.params.eps), where the
  // object at `when_path` has a string value matching `when_match` (RE2), set the key.
  std::string path;
  std::string whenPath;
  std::string whenMatch;
  std::string value;                 // the text to write, e.g. 1e-5
  std::optional<double> minSafe;     // a present literal >= this is left alone
  std::string title;                 // e.g. "Set eps=1e-5 in {callee}(...)"
};

struct Example {
  std::string name;  // file name, or "inline #N"
  std::string text;
};

struct Rule {
  std::string id;
  std::string file;  // where it was loaded from ("<builtin>/..." for embedded rules)
  std::string title;
  std::string category;
  std::vector<std::string> tags;
  Severity severity = Severity::kError;
  Role role = Role::kRoot;
  int priority = 50;  // among findings of one role, higher sorts first
  std::vector<std::string> systems;

  std::vector<Signal> signals;
  Condition condition;
  std::string conditionText;
  // positiveSignals[i]: signal i appears in the condition outside any `not`, so seeing it counts
  // for the failure (a signal that only rules the failure out does not).
  std::vector<bool> positiveSignals;
  std::vector<int> evidence;  // signals whose lines are shown as evidence, in order
  bool fallback = false;      // the rule for exceptions no other rule explains

  // The encyclopedia entry.
  std::string summary;
  std::string whatItIs;
  std::vector<std::string> observe;
  std::vector<Symptom> symptoms;
  std::string fingerprint;
  std::string rootCause;
  std::string mechanism;
  std::vector<std::string> confirm;
  std::string fix;
  std::vector<std::string> prevention;
  std::string verify;
  std::vector<std::string> related;
  std::vector<Reference> references;

  std::vector<EditSpec> edits;

  std::vector<Example> matchExamples;
  std::vector<Example> noMatchExamples;

  int signalIndex(const std::string& name) const;
};

// Where a rule file came from and what it holds.
struct RuleSource {
  std::string path;  // shown in errors
  std::string text;
};

struct RuleError {
  std::string file;
  int line = 0;  // 1-based; 0 when the error concerns the whole file
  std::string message;
  std::string format() const;
};

class RuleSet {
 public:
  // Adds rules, replacing any rule with the same id from an earlier call (user folders override
  // the shipped rules). Within one call an id may appear once: a second file with the same id
  // is an error and is skipped. Returns the errors; rules that failed are skipped, the others
  // are added. Not thread-safe; a RuleSet that is no longer changed may be read from any thread.
  std::vector<RuleError> add(const std::vector<RuleSource>& sources);
  // Rules already parsed (the built-in bundle); a rule replaces one with its id, as in add().
  void addParsed(std::vector<Rule> rules);

  const std::vector<std::shared_ptr<const Rule>>& rules() const { return rules_; }
  const Rule* find(const std::string& id) const;

 private:
  // Adds a rule, replacing the one with its id in place (so the order stays the first one's).
  void put(Rule rule);

  std::vector<std::shared_ptr<const Rule>> rules_;
};

// Parses one rule file. On failure returns an error and appends every problem found (with its
// line) to `errors`; warnings that do not stop the rule from loading are appended too. Pure:
// reads only `source`; safe from any thread.
Expected<Rule> parseRule(const RuleSource& source, std::vector<RuleError>& errors);

// The rules compiled into the binary, sorted by path. The texts are static; never fails.
std::vector<RuleSource> builtinRuleSources();

}  // namespace denpex::core
