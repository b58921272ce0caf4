// Loads rule files (YAML) into Rule values, with errors that name file and line.
// yaml-cpp exceptions are caught here and nowhere else.
#include <re2/re2.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include "core/rules/matcher.h"
#include "core/rules/rule.h"
#include "core/rules/yaml_fields.h"

namespace denpex::core {

namespace {

using namespace rules_detail;

// The numbers a rule file may give, checked before they become ints.
constexpr double kMaxPriority = 1000;
constexpr double kMaxMinCount = 1000000;

// --- the condition language: `a and not (b or c)` -------------------------------------------

class ConditionParser {
 public:
  ConditionParser(const std::string& text, const Rule& rule, int line)
      : text_(text), rule_(rule), line_(line) {}

  static constexpr int kMaxConditionDepth = 64;

  Condition parse() {
    if (text_.size() > 4096) fail("is longer than 4096 characters");
    Condition c = parseOr();
    skipSpace();
    if (pos_ < text_.size()) fail("unexpected '" + text_.substr(pos_) + "'");
    return c;
  }

 private:
  void skipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  std::string peekWord() {
    skipSpace();
    size_t end = pos_;
    while (end < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[end])) || text_[end] == '_' || text_[end] == '-'))
      ++end;
    return text_.substr(pos_, end - pos_);
  }
  [[noreturn]] void fail(const std::string& why) {
    throw LoadError{line_, "condition '" + text_ + "': " + why};
  }
  Condition parseOr() {
    Condition left = parseAnd();
    while (peekWord() == "or") {
      pos_ += 2;
      Condition node{Condition::Op::kOr, -1, {std::move(left), parseAnd()}};
      left = std::move(node);
    }
    return left;
  }
  Condition parseAnd() {
    Condition left = parseNot();
    while (peekWord() == "and") {
      pos_ += 3;
      Condition node{Condition::Op::kAnd, -1, {std::move(left), parseNot()}};
      left = std::move(node);
    }
    return left;
  }
  Condition parseNot() {
    // Each level of `not` and parentheses is a call: a bound keeps a hostile rule from
    // overflowing the stack.
    if (++level_ > kMaxConditionDepth) fail("nests deeper than " + std::to_string(kMaxConditionDepth) + " levels");
    struct Leave {
      int& l;
      ~Leave() { --l; }
    } leave{level_};
    if (peekWord() == "not") {
      pos_ += 3;
      return Condition{Condition::Op::kNot, -1, {parseNot()}};
    }
    skipSpace();
    if (pos_ < text_.size() && text_[pos_] == '(') {
      ++pos_;
      Condition inner = parseOr();
      skipSpace();
      if (pos_ >= text_.size() || text_[pos_] != ')') fail("missing ')'");
      ++pos_;
      return inner;
    }
    std::string word = peekWord();
    if (word.empty()) fail(pos_ < text_.size() ? "unexpected '" + text_.substr(pos_, 1) + "'" : "ends too early");
    int index = rule_.signalIndex(word);
    if (index < 0) fail("unknown signal '" + word + "'");
    pos_ += word.size();
    return Condition{Condition::Op::kSignal, index, {}};
  }

  const std::string& text_;
  const Rule& rule_;
  int line_;
  size_t pos_ = 0;
  int level_ = 0;  // how deep parseNot is nested now
};

// Marks the signals that appear in the condition outside any `not`.
void markPositive(const Condition& c, bool polarity, std::vector<bool>& out) {
  if (c.op == Condition::Op::kSignal) {
    if (polarity && c.signal >= 0 && static_cast<size_t>(c.signal) < out.size()) out[static_cast<size_t>(c.signal)] = true;
    return;
  }
  for (const auto& a : c.args) markPositive(a, c.op == Condition::Op::kNot ? !polarity : polarity, out);
}

Signal loadSignal(const std::string& name, const YAML::Node& node) {
  Signal s;
  s.name = name;
  s.line = lineOf(node);
  if (node.IsScalar()) {  // shorthand: `name: 'regex'`
    s.pattern = node.as<std::string>();
  } else if (node.IsMap()) {
    checkKeys(node, {"pattern", "metric", "test", "min_count", "scope"}, "signal '" + name + "'");
    if (node["pattern"]) s.pattern = scalar(node["pattern"], "pattern");
    if (node["min_count"]) {
      auto n = parseDouble(scalar(node["min_count"], "min_count"));
      // Checked before the conversion: a value out of int's range (or NaN) would be undefined there.
      if (!n || !(*n >= 1 && *n <= kMaxMinCount))
        throw LoadError{lineOf(node["min_count"]), "'min_count' must be a number from 1 to 1000000"};
      s.minCount = static_cast<int>(*n);
    }
    if (node["metric"]) {
      s.metric = scalar(node["metric"], "metric");
      static const std::set<std::string>& kMetrics =
          *new std::set<std::string>{"loss", "grad_norm", "lr", "loss_scale"};
      if (!kMetrics.count(s.metric))
        throw LoadError{lineOf(node["metric"]), "unknown metric '" + s.metric + "' (expected loss, grad_norm, lr or loss_scale)"};
      std::string test = node["test"] ? scalar(node["test"], "test") : "nonfinite";
      bool found = false;
      for (MetricTest t : {MetricTest::kNonfinite, MetricTest::kStableBeforeNonfinite,
                           MetricTest::kGrowsBeforeNonfinite, MetricTest::kFallsToMinimum}) {
        if (test == toString(t)) {
          s.test = t;
          found = true;
        }
      }
      if (!found)
        throw LoadError{lineOf(node["test"]), "unknown metric test '" + test +
                                                  "' (expected nonfinite, stable-before-nonfinite, grows-before-nonfinite or falls-to-minimum)"};
    }
    if (s.pattern.empty() == s.metric.empty())
      throw LoadError{s.line, "signal '" + name + "' needs exactly one of 'pattern' or 'metric'"};
    if (node["scope"]) {
      std::string scope = scalar(node["scope"], "scope");
      if (scope != "run" && scope != "rank")
        throw LoadError{lineOf(node["scope"]), "unknown scope '" + scope + "' (expected run or rank)"};
      // A metric is what one rank's training loop printed about itself.
      if (scope == "run" && !s.metric.empty())
        throw LoadError{lineOf(node["scope"]), "signal '" + name + "': a metric signal is a rank's own; 'scope: run' is for patterns"};
      s.runWide = scope == "run";
    }
  } else {
    throw LoadError{s.line, "signal '" + name + "' must be a regex string or a map"};
  }
  if (!s.pattern.empty()) {
    auto re = std::make_shared<const RE2>(s.pattern, Matcher::patternOptions());
    if (!re->ok()) throw LoadError{s.line, "signal '" + name + "': invalid regex: " + re->error()};
    s.regex = std::move(re);
  }
  return s;
}

// The limits a rule file is read within (docs/limits.md): no rule needs more, and a file past
// them is refused before it can cost time or memory.
constexpr size_t kMaxRuleFileBytes = 1 << 20;
constexpr int kMaxYamlDepth = 32;

// Walks a file's YAML events before any node is built: refuses aliases (a few kilobytes of them
// can stand for gigabytes once expanded, and no rule needs one) and deep nesting.
class YamlShape : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override {
    throw LoadError{mark.line + 1, "YAML aliases (*name) are not allowed in rule files"};
  }
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override { enter(mark); }
  void OnSequenceEnd() override { --depth_; }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override { enter(mark); }
  void OnMapEnd() override { --depth_; }

 private:
  void enter(const YAML::Mark& mark) {
    if (++depth_ > kMaxYamlDepth)
      throw LoadError{mark.line + 1, "YAML nests deeper than " + std::to_string(kMaxYamlDepth) + " levels"};
  }
  int depth_ = 0;
};

Rule load(const RuleSource& source, std::vector<RuleError>& warnings) {
  if (source.text.size() > kMaxRuleFileBytes)
    throw LoadError{0, "the file is " + std::to_string(source.text.size() >> 10) + " KiB; a rule file may be at most " +
                           std::to_string(kMaxRuleFileBytes >> 10) + " KiB"};
  YAML::Node root;
  try {
    std::istringstream in(source.text);
    YAML::Parser parser(in);
    YamlShape shape;
    // A rule file is one document. Asking for no more than two also keeps clear of a loop in
    // yaml-cpp 0.7, which answers "one more document" forever, consuming nothing, on a stream
    // that starts with a stray ',' (fixed upstream in 0.8).
    if (parser.HandleNextDocument(shape) && parser.HandleNextDocument(shape))
      throw LoadError{0, "a rule file holds one YAML document; this one holds more (or a stray ',' or '---')"};
    root = YAML::Load(source.text);
  } catch (const YAML::ParserException& e) {
    throw LoadError{e.mark.line + 1, "YAML syntax: " + e.msg};
  }
  if (!root.IsMap()) throw LoadError{0, "a rule file must be a YAML map"};
  checkKeys(root,
            {"id", "title", "category", "tags", "severity", "role", "priority", "systems",
             "signals", "condition", "evidence", "fallback", "wraps", "summary", "what_it_is", "observe",
             "symptoms", "fingerprint", "root_cause", "mechanism", "confirm", "fix",
             "prevention", "verify", "related", "references", "edits", "examples", "overrides"},
            "rule");
  Rule r;
  r.file = source.path;
  for (const char* required : {"id", "title", "category", "summary"}) {
    if (!root[required]) throw LoadError{0, std::string("missing required field '") + required + "'"};
  }
  r.id = scalar(root["id"], "id");
  for (char c : r.id) {
    if (!(std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '-'))
      throw LoadError{lineOf(root["id"]), "id '" + r.id + "' may hold only a-z, 0-9 and '-'"};
  }
  r.title = scalar(root["title"], "title");
  if (root["overrides"]) r.overrides = scalar(root["overrides"], "overrides");
  r.category = scalar(root["category"], "category");
  r.summary = scalar(root["summary"], "summary");
  if (root["tags"]) r.tags = stringList(root["tags"], "tags");
  if (root["systems"]) r.systems = stringList(root["systems"], "systems");
  if (root["severity"]) {
    std::string s = scalar(root["severity"], "severity");
    if (s == "error") r.severity = Severity::kError;
    else if (s == "warning") r.severity = Severity::kWarning;
    else if (s == "info") r.severity = Severity::kInfo;
    else throw LoadError{lineOf(root["severity"]), "severity must be error, warning or info"};
  }
  if (root["role"]) {
    std::string s = scalar(root["role"], "role");
    if (s == "root") r.role = Role::kRoot;
    else if (s == "symptom") r.role = Role::kSymptom;
    else if (s == "collateral") r.role = Role::kCollateral;
    else throw LoadError{lineOf(root["role"]), "role must be root, symptom or collateral"};
  }
  if (root["priority"]) {
    auto p = parseDouble(scalar(root["priority"], "priority"));
    // Range first: the fuzzer found a priority of 7e105, which no int holds.
    if (!p || !(*p >= -kMaxPriority && *p <= kMaxPriority))
      throw LoadError{lineOf(root["priority"]), "priority must be a number from -1000 to 1000"};
    r.priority = static_cast<int>(*p);
  }
  if (root["fallback"]) r.fallback = root["fallback"].as<bool>();
  if (root["wraps"]) r.wraps = root["wraps"].as<bool>();

  if (root["signals"]) {
    const YAML::Node& sigs = root["signals"];
    if (!sigs.IsMap()) throw LoadError{lineOf(sigs), "'signals' must be a map of name -> signal"};
    for (const auto& kv : sigs) r.signals.push_back(loadSignal(kv.first.as<std::string>(), kv.second));
  }
  if (!r.fallback) {
    if (r.signals.empty()) throw LoadError{0, "a rule needs 'signals' (or 'fallback: true')"};
    if (!root["condition"]) throw LoadError{0, "missing required field 'condition'"};
    r.conditionText = scalar(root["condition"], "condition");
    r.condition = ConditionParser(r.conditionText, r, lineOf(root["condition"])).parse();
    r.positiveSignals.assign(r.signals.size(), false);
    markPositive(r.condition, true, r.positiveSignals);
  }
  if (root["evidence"]) {
    for (const auto& name : stringList(root["evidence"], "evidence")) {
      int index = r.signalIndex(name);
      if (index < 0) throw LoadError{lineOf(root["evidence"]), "evidence names unknown signal '" + name + "'"};
      r.evidence.push_back(index);
    }
  } else {
    for (size_t i = 0; i < r.signals.size(); ++i) r.evidence.push_back(static_cast<int>(i));
  }

  auto text = [&](const char* field, std::string& out) {
    if (root[field]) out = scalar(root[field], field);
  };
  text("what_it_is", r.whatItIs);
  text("fingerprint", r.fingerprint);
  text("root_cause", r.rootCause);
  text("mechanism", r.mechanism);
  text("fix", r.fix);
  text("verify", r.verify);
  if (root["observe"]) r.observe = stringList(root["observe"], "observe");
  if (root["confirm"]) r.confirm = stringList(root["confirm"], "confirm");
  if (root["prevention"]) r.prevention = stringList(root["prevention"], "prevention");
  if (root["related"]) r.related = stringList(root["related"], "related");
  if (root["symptoms"]) {
    if (!root["symptoms"].IsSequence()) throw LoadError{lineOf(root["symptoms"]), "'symptoms' must be a list"};
    for (const auto& item : root["symptoms"]) {
      if (!item.IsMap()) throw LoadError{lineOf(item), "each symptom is a map with 'symptom' and 'why'"};
      checkKeys(item, {"symptom", "why"}, "symptom");
      Symptom s;
      if (item["symptom"]) s.symptom = scalar(item["symptom"], "symptom");
      if (item["why"]) s.why = scalar(item["why"], "why");
      r.symptoms.push_back(std::move(s));
    }
  }
  if (root["references"]) {
    if (!root["references"].IsSequence()) throw LoadError{lineOf(root["references"]), "'references' must be a list"};
    for (const auto& item : root["references"]) {
      Reference ref;
      if (item.IsScalar()) {
        ref.url = item.as<std::string>();
      } else {
        checkKeys(item, {"title", "url"}, "reference");
        if (item["title"]) ref.title = scalar(item["title"], "title");
        if (item["url"]) ref.url = scalar(item["url"], "url");
      }
      r.references.push_back(std::move(ref));
    }
  }
  if (root["edits"]) {
    if (!root["edits"].IsSequence()) throw LoadError{lineOf(root["edits"]), "'edits' must be a list"};
    for (const auto& item : root["edits"]) r.edits.push_back(loadEdit(item, source.path, warnings));
  }
  if (root["examples"]) {
    const YAML::Node& ex = root["examples"];
    if (!ex.IsMap()) throw LoadError{lineOf(ex), "'examples' must be a map with 'match' and 'no_match'"};
    checkKeys(ex, {"match", "no_match"}, "examples");
    auto list = [&](const char* field, std::vector<Example>& out) {
      if (!ex[field]) return;
      auto items = stringList(ex[field], field);
      for (size_t i = 0; i < items.size(); ++i)
        out.push_back({std::string(field) + " #" + std::to_string(i + 1) + " (line " +
                           std::to_string(lineOf(ex[field][i])) + ")",
                       items[i]});
    };
    list("match", r.matchExamples);
    list("no_match", r.noMatchExamples);
  }
  return r;
}

}  // namespace

Expected<Rule> parseRule(const RuleSource& source, std::vector<RuleError>& errors) {
  try {
    std::vector<RuleError> warnings;
    Rule rule = load(source, warnings);
    errors.insert(errors.end(), warnings.begin(), warnings.end());
    return rule;
  } catch (const LoadError& e) {
    errors.push_back({source.path, e.line, e.message});
    return Error{e.message};
  } catch (const YAML::Exception& e) {
    errors.push_back({source.path, e.mark.line >= 0 ? e.mark.line + 1 : 0, e.msg});
    return Error{e.msg};
  }
}

std::vector<ParsedRuleFile> parseRuleFiles(const std::vector<RuleSource>& sources) {
  std::vector<ParsedRuleFile> out(sources.size());
  for (size_t i = 0; i < sources.size(); ++i) {
    out[i].path = sources[i].path;
    auto rule = parseRule(sources[i], out[i].errors);
    if (rule) out[i].rule = std::move(rule.value());
  }
  return out;
}

}  // namespace denpex::core
