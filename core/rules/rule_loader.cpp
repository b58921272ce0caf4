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

namespace denpex::core {

namespace {

// Thrown inside the loader only, turned into a RuleError at its boundary.
struct LoadError {
  int line;
  std::string message;
};

int lineOf(const YAML::Node& node) { return node.Mark().line >= 0 ? node.Mark().line + 1 : 0; }

std::string scalar(const YAML::Node& node, const std::string& field) {
  if (!node.IsScalar()) throw LoadError{lineOf(node), "'" + field + "' must be a string"};
  return node.as<std::string>();
}

std::vector<std::string> stringList(const YAML::Node& node, const std::string& field) {
  std::vector<std::string> out;
  if (node.IsScalar()) {
    out.push_back(node.as<std::string>());
    return out;
  }
  if (!node.IsSequence()) throw LoadError{lineOf(node), "'" + field + "' must be a list of strings"};
  for (const auto& item : node) out.push_back(scalar(item, field));
  return out;
}

void checkKeys(const YAML::Node& map, const std::set<std::string>& allowed, const std::string& what) {
  for (const auto& kv : map) {
    std::string key = kv.first.as<std::string>();
    if (!allowed.count(key)) {
      std::string list;
      for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
      throw LoadError{lineOf(kv.first), "unknown field '" + key + "' in " + what + " (expected one of: " + list + ")"};
    }
  }
}

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

std::optional<double> parseDouble(const std::string& text) {
  try {
    size_t used = 0;
    double v = std::stod(text, &used);
    if (used == text.size()) return v;
  } catch (...) {
  }
  return std::nullopt;
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
      if (!n || *n < 1) throw LoadError{lineOf(node["min_count"]), "'min_count' must be a number >= 1"};
      s.minCount = static_cast<int>(*n);
    }
    if (node["metric"]) {
      s.metric = scalar(node["metric"], "metric");
      static const std::set<std::string> kMetrics{"loss", "grad_norm", "lr", "loss_scale"};
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

// The syntax an edit's names and values must have: whatever a rule file says ends up in the
// user's source, so only these shapes get through.
const RE2& identifierRe() {
  static const RE2 re("[A-Za-z_][A-Za-z0-9_]*");
  return re;
}
const RE2& qualifiedRe() {
  static const RE2 re("[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)+");
  return re;
}
const RE2& jsonPathRe() {
  static const RE2 re("[A-Za-z0-9_-]+(\\.[A-Za-z0-9_-]+)*");
  return re;
}
const RE2& floatRe() {
  static const RE2 re("-?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)([eE][-+]?[0-9]+)?");
  return re;
}
const RE2& intRe() {
  static const RE2 re("-?[0-9]{1,15}");
  return re;
}

bool pythonKeyword(const std::string& word) {
  static const std::set<std::string> kWords{"False", "None", "True", "and", "as", "assert", "async", "await",
                                            "break", "class", "continue", "def", "del", "elif", "else", "except",
                                            "finally", "for", "from", "global", "if", "import", "in", "is",
                                            "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try",
                                            "while", "with", "yield"};
  return kWords.count(word) > 0;
}

double numberField(const YAML::Node& node, const std::string& field) {
  auto v = node.IsScalar() ? parseDouble(node.as<std::string>()) : std::nullopt;
  if (!v || !std::isfinite(*v)) throw LoadError{lineOf(node), "'" + field + "' must be a number"};
  return *v;
}

// The edit's value: its declared type, the literal checked against it and its range.
void loadEditValue(const YAML::Node& node, EditSpec& e) {
  if (!node["type"]) throw LoadError{e.line, "an edit needs 'type' (float, int, bool or string): the kind of value it writes"};
  std::string type = scalar(node["type"], "type");
  if (!node["value"]) throw LoadError{e.line, "an edit needs 'value'"};
  int valueLine = lineOf(node["value"]);
  std::string value = scalar(node["value"], "value");
  if (type == "bool") {
    e.type = EditSpec::ValueType::kBool;
    if (value == "true" || value == "True") e.value = "true";
    else if (value == "false" || value == "False") e.value = "false";
    else throw LoadError{valueLine, "a bool edit's value must be true or false, not '" + value + "'"};
    if (node["range"] || node["min_safe"]) throw LoadError{e.line, "a bool edit takes no 'range' or 'min_safe'"};
    return;
  }
  if (type == "string") {
    static const RE2 word("[A-Za-z0-9_.:/-]{1,64}");
    e.type = EditSpec::ValueType::kString;
    if (!RE2::FullMatch(value, word))
      throw LoadError{valueLine, "a string edit's value must be 1 to 64 letters, digits or _.:/- (no quotes, no spaces), not '" +
                                     value + "'"};
    if (node["range"] || node["min_safe"]) throw LoadError{e.line, "a string edit takes no 'range' or 'min_safe'"};
    e.value = value;
    return;
  }
  if (type != "float" && type != "int")
    throw LoadError{lineOf(node["type"]), "edit type must be float, int, bool or string, not '" + type + "'"};
  e.type = type == "float" ? EditSpec::ValueType::kFloat : EditSpec::ValueType::kInt;
  if (!RE2::FullMatch(value, type == "float" ? floatRe() : intRe()))
    throw LoadError{valueLine, "value '" + value + "' is not " + (type == "float" ? "a float literal (e.g. 1e-5)" : "an integer literal")};
  const YAML::Node& range = node["range"];
  if (!range || !range.IsSequence() || range.size() != 2)
    throw LoadError{e.line, "a " + type + " edit needs 'range: [min, max]': the values it may write"};
  e.rangeMin = numberField(range[0], "range");
  e.rangeMax = numberField(range[1], "range");
  if (e.rangeMin > e.rangeMax) throw LoadError{lineOf(range), "'range' must be [min, max] with min <= max"};
  double v = *parseDouble(value);
  if (!std::isfinite(v) || v < e.rangeMin || v > e.rangeMax)
    throw LoadError{valueLine, "value " + value + " is outside the edit's range [" + range[0].as<std::string>() + ", " +
                                   range[1].as<std::string>() + "]"};
  e.value = value;
  if (node["min_safe"]) e.minSafe = numberField(node["min_safe"], "min_safe");
}

void loadOnlyIfPresent(const YAML::Node& node, EditSpec& e) {
  if (!node["only_if_present"]) return;
  std::string v = scalar(node["only_if_present"], "only_if_present");
  if (v != "true" && v != "false") throw LoadError{lineOf(node["only_if_present"]), "'only_if_present' must be true or false"};
  e.onlyIfPresent = v == "true";
}

EditSpec loadEdit(const YAML::Node& node, const std::string& file, std::vector<RuleError>& warnings) {
  if (!node.IsMap()) throw LoadError{lineOf(node), "each edit must be a map"};
  checkKeys(node, {"kind", "callees", "keyword", "position", "path", "when_path", "when_match", "type", "value", "range",
                   "min_safe", "only_if_present", "title"},
            "edit");
  EditSpec e;
  e.line = lineOf(node);
  std::string kind = node["kind"] ? scalar(node["kind"], "kind") : "";
  if (kind == "python-keyword") {
    e.kind = EditSpec::Kind::kPythonKeyword;
    if (!node["callees"] || !node["keyword"])
      throw LoadError{e.line, "a python-keyword edit needs 'callees' and 'keyword'"};
    e.callees = stringList(node["callees"], "callees");
    if (e.callees.empty()) throw LoadError{lineOf(node["callees"]), "'callees' is empty"};
    for (const auto& c : e.callees)
      if (!RE2::FullMatch(c, qualifiedRe()))
        throw LoadError{lineOf(node["callees"]), "callee '" + c + "' must be a fully qualified name (torch.optim.AdamW): calls are matched through the file's imports"};
    e.keyword = scalar(node["keyword"], "keyword");
    if (!RE2::FullMatch(e.keyword, identifierRe()) || pythonKeyword(e.keyword))
      throw LoadError{lineOf(node["keyword"]), "keyword '" + e.keyword + "' is not a Python parameter name"};
    if (node["position"]) {
      auto p = parseDouble(scalar(node["position"], "position"));
      if (!p || *p < 0 || *p > 255 || *p != static_cast<int>(*p))
        throw LoadError{lineOf(node["position"]), "'position' must be a whole number from 0 to 255"};
      e.position = static_cast<int>(*p);
    }
    if (node["path"] || node["when_path"] || node["when_match"])
      throw LoadError{e.line, "'path', 'when_path' and 'when_match' belong to json-key edits"};
    loadOnlyIfPresent(node, e);
  } else if (kind == "json-key") {
    e.kind = EditSpec::Kind::kJsonKey;
    if (!node["path"]) throw LoadError{e.line, "a json-key edit needs 'path'"};
    e.path = scalar(node["path"], "path");
    if (!RE2::FullMatch(e.path, jsonPathRe()))
      throw LoadError{lineOf(node["path"]), "path '" + e.path + "' must be dotted keys of letters, digits, '_' and '-'"};
    if (node["when_path"]) {
      e.whenPath = scalar(node["when_path"], "when_path");
      if (!RE2::FullMatch(e.whenPath, jsonPathRe()))
        throw LoadError{lineOf(node["when_path"]), "when_path '" + e.whenPath + "' must be dotted keys"};
    }
    if (node["when_match"]) {
      e.whenMatch = scalar(node["when_match"], "when_match");
      RE2 re(e.whenMatch, RE2::Quiet);
      if (!re.ok()) throw LoadError{lineOf(node["when_match"]), "when_match: invalid regex: " + re.error()};
    }
    loadOnlyIfPresent(node, e);
    if (node["callees"] || node["keyword"] || node["position"])
      throw LoadError{e.line, "'callees', 'keyword' and 'position' belong to python-keyword edits"};
  } else {
    throw LoadError{e.line, "edit kind must be 'python-keyword' or 'json-key', not '" + kind + "'"};
  }
  loadEditValue(node, e);
  if (node["title"])
    warnings.push_back({file, lineOf(node["title"]), "an edit's 'title' is ignored: a fix's title is written from what it sets"});
  return e;
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
    while (parser.HandleNextDocument(shape)) {
    }
    root = YAML::Load(source.text);
  } catch (const YAML::ParserException& e) {
    throw LoadError{e.mark.line + 1, "YAML syntax: " + e.msg};
  }
  if (!root.IsMap()) throw LoadError{0, "a rule file must be a YAML map"};
  checkKeys(root,
            {"id", "title", "category", "tags", "severity", "role", "priority", "systems",
             "signals", "condition", "evidence", "fallback", "summary", "what_it_is", "observe",
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
    if (!p) throw LoadError{lineOf(root["priority"]), "priority must be a number"};
    r.priority = static_cast<int>(*p);
  }
  if (root["fallback"]) r.fallback = root["fallback"].as<bool>();

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

}  // namespace denpex::core
