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
  // A fact about the whole run (its dtypes, optimizer, configuration, versions), printed once by
  // one rank or the launcher: in a log of several ranks, every rank's evaluation sees it. A
  // signal about a rank itself (its device, its own error) is the rank's alone (the default).
  bool runWide = false;
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

// A source fix as data: what it sets (a keyword argument of a call the file's imports resolve
// to a named API, or a key of a JSON config) and a value of a declared type and range. The
// loader rejects anything else, and the fix's title is written from the edit itself, so a rule
// file cannot make a fix say one thing and write another. Each kind is idempotent: it produces
// no edit when the value already present is safe.
struct EditSpec {
  // kPythonDropFloat16Cast: remove the `.half()` (or `.to(torch.float16)`) with which a
  // `denpex check` finding saw the script cast its trained parameters, where the script runs its
  // forward pass under autocast (which then computes in float16 over float32 weights). It has no
  // value; only findings that know the cast's place get it (never a log's).
  enum class Kind { kPythonKeyword, kJsonKey, kPythonDropFloat16Cast };
  enum class ValueType { kFloat, kInt, kBool, kString };
  Kind kind = Kind::kPythonKeyword;
  int line = 0;
  // kPythonKeyword: calls that resolve, through the file's imports, to one of `callees` (fully
  // qualified: torch.optim.AdamW) get `keyword=value`.
  std::vector<std::string> callees;
  std::string keyword;
  std::optional<int> position;  // 0-based positional index of the same parameter, if it has one
  // kJsonKey: in JSON files holding `path` (dotted, e.g. optimizer.params.eps), where the
  // object at `when_path` has a string value matching `when_match` (RE2), set the key.
  std::string path;
  std::string whenPath;
  std::string whenMatch;
  ValueType type = ValueType::kFloat;
  // Change the key or keyword argument where it is there, never add it: "auto", which only some
  // readers of a config understand, or a dtype that is only the fix where one was given.
  bool onlyIfPresent = false;
  // The value as validated: a decimal literal within [rangeMin, rangeMax] for kFloat and kInt,
  // "true" or "false" for kBool (written True/False in Python), for kString a word of letters,
  // digits and `_.:/-` (written in double quotes, so nothing in it needs escaping).
  std::string value;
  double rangeMin = 0, rangeMax = 0;
  std::optional<double> minSafe;  // a present literal >= this is left alone
};

// The value of an edit as written into a file of the given kind ("True" in Python, "true" in
// JSON, the literal itself for numbers).
std::string editValueText(const EditSpec& spec, EditSpec::Kind in);
// What the edit sets, for titles: "eps=1e-5", "optimizer.params.eps=1e-5".
std::string editSetting(const EditSpec& spec);

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
  // The rule names an exception that only wraps another one (torch.compile's
  // BackendCompilerFailed), or is a general rule for it (a framework rejecting its config): its
  // finding is dropped when a finding of another rule explains the same exception, which says
  // what the wrapped one was, or what the general one meant.
  bool wraps = false;
  // A user rule that replaces a shipped one names it here; without it a user rule may not take
  // a shipped rule's id.
  std::string overrides;

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

// Where rules come from. Shipped rules are the product's own (embedded in the binary, or the
// rules/ folder of this repository when its rules are linted and tested). User rules come from
// folders the user named; they are code from wherever that folder came from.
enum class RuleOrigin { kShipped, kUser };

class RuleSet {
 public:
  // Adds rules. Shipped rules replace a shipped rule with their id (a development copy of it).
  // A user rule may not take an id already loaded: taking a shipped rule's id needs
  // `overrides: <id>` (it then replaces that rule in place), and two user rules with one id are
  // an error whichever folders they are in (which one won would depend on load order). Returns
  // the errors; rules that failed are skipped, the others are added. Not thread-safe; a RuleSet
  // that is no longer changed may be read from any thread.
  std::vector<RuleError> add(const std::vector<RuleSource>& sources, RuleOrigin origin = RuleOrigin::kUser);
  // The same for files parsed already (parseRuleFiles, or a cache of its results): their
  // problems come first in the errors, file by file, as add() reports them.
  std::vector<RuleError> add(std::vector<struct ParsedRuleFile> files, RuleOrigin origin = RuleOrigin::kUser);
  // Rules already parsed (the built-in bundle), shipped.
  void addParsed(std::vector<Rule> rules);

  const std::vector<std::shared_ptr<const Rule>>& rules() const { return rules_; }
  const Rule* find(const std::string& id) const;
  // Shipped rules replaced by user rules, as "id (by FILE)".
  const std::vector<std::string>& overridden() const { return overridden_; }

 private:
  // Adds a rule, replacing the one with `replaces` (its own id when empty) in place, so the
  // order stays the first one's.
  void put(Rule rule, RuleOrigin origin, const std::string& replaces = {});

  std::vector<std::shared_ptr<const Rule>> rules_;
  std::map<std::string, RuleOrigin> origin_;  // id -> where the rule with that id came from
  std::vector<std::string> overridden_;
};

// Parses one rule file. On failure returns an error and appends every problem found (with its
// line) to `errors`; warnings that do not stop the rule from loading are appended too. Pure:
// reads only `source`; safe from any thread.
Expected<Rule> parseRule(const RuleSource& source, std::vector<RuleError>& errors);

// One rule file as parsed: its rule, when it loads, and the problems found in it (why it failed,
// or warnings beside a rule that loads).
struct ParsedRuleFile {
  std::string path;
  std::optional<Rule> rule;
  std::vector<RuleError> errors;
};
// parseRule for each source, in order. Pure; safe from any thread.
std::vector<ParsedRuleFile> parseRuleFiles(const std::vector<RuleSource>& sources);

// The rules compiled into the binary, sorted by path. The texts are static; never fails.
std::vector<RuleSource> builtinRuleSources();

}  // namespace denpex::core
