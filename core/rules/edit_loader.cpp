// Loading a rule's edits (see yaml_fields.h): only values of the declared type and names of the
// right shape get through.
#include <re2/re2.h>

#include <cmath>
#include <set>

#include "core/rules/yaml_fields.h"

namespace denpex::core::rules_detail {

namespace {

// The syntax an edit's names and values must have: whatever a rule file says ends up in the
// user's source, so only these shapes get through.
const RE2& identifierRe() {
  static const RE2& re = *new RE2("[A-Za-z_][A-Za-z0-9_]*");
  return re;
}
const RE2& qualifiedRe() {
  static const RE2& re = *new RE2("[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)+");
  return re;
}
const RE2& jsonPathRe() {
  static const RE2& re = *new RE2("[A-Za-z0-9_-]+(\\.[A-Za-z0-9_-]+)*");
  return re;
}
const RE2& floatRe() {
  static const RE2& re = *new RE2("-?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)([eE][-+]?[0-9]+)?");
  return re;
}
const RE2& intRe() {
  static const RE2& re = *new RE2("-?[0-9]{1,15}");
  return re;
}

bool pythonKeyword(const std::string& word) {
  static const std::set<std::string>& kWords = *new std::set<std::string>{
      "False", "None",     "True",  "and",    "as",   "assert", "async",  "await",    "break",
      "class", "continue", "def",   "del",    "elif", "else",   "except", "finally",  "for",
      "from",  "global",   "if",    "import", "in",   "is",     "lambda", "nonlocal", "not",
      "or",    "pass",     "raise", "return", "try",  "while",  "with",   "yield"};
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
    static const RE2& word = *new RE2("[A-Za-z0-9_.:/-]{1,64}");
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

}  // namespace

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
  } else if (kind == "python-drop-float16-cast") {
    e.kind = EditSpec::Kind::kPythonDropFloat16Cast;
    for (const char* key : {"callees", "keyword", "position", "path", "when_path", "when_match", "type", "value", "range",
                            "min_safe", "only_if_present"})
      if (node[key])
        throw LoadError{lineOf(node[key]), std::string("a python-drop-float16-cast edit takes no '") + key +
                                               "': it removes the float16 cast the check found"};
    if (node["title"])
      warnings.push_back({file, lineOf(node["title"]), "an edit's 'title' is ignored: a fix's title is written from what it sets"});
    return e;
  } else {
    throw LoadError{e.line, "edit kind must be 'python-keyword', 'json-key' or 'python-drop-float16-cast', not '" + kind + "'"};
  }
  loadEditValue(node, e);
  if (node["title"])
    warnings.push_back({file, lineOf(node["title"]), "an edit's 'title' is ignored: a fix's title is written from what it sets"});
  return e;
}

}  // namespace denpex::core::rules_detail
