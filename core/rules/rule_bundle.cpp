// Rules to bytes and back (see rule_bundle.h). A rule's fields are listed once, in fields(),
// and walked by a Writer or a Reader.
#include "core/rules/rule_bundle.h"

#include <cstdint>
#include <cstring>
#include <optional>
#include <type_traits>

namespace denpex::core {
namespace {

constexpr std::string_view kMagic = "denpex-rules-5\n";
constexpr std::string_view kParsedMagic = "denpex-parsed-rule-files-1\n";

// A tripwire for the one place that lists the fields: a field added to one of these structs
// changes its size, and must be added to fields() below (and kMagic's version raised).
#if defined(__x86_64__) && defined(__GLIBCXX__)
static_assert(sizeof(Rule) == 824 && sizeof(Signal) == 136 && sizeof(Condition) == 32 && sizeof(EditSpec) == 240 &&
                  sizeof(Example) == 64 && sizeof(Symptom) == 64 && sizeof(Reference) == 64 && sizeof(RuleError) == 72 &&
                  sizeof(ParsedRuleFile) == 888,
              "a rule struct changed: list its new field in fields() in rule_bundle.cpp");
#endif

// Every field of a rule, in bundle order. `R` is Rule or const Rule (and the same for the parts).
template <class A, class S>
void fields(A& a, S& s) requires std::is_same_v<std::remove_const_t<S>, Signal> {
  a(s.name), a(s.line), a(s.pattern), a(s.metric), a(s.test), a(s.minCount), a(s.runWide);
}
template <class A, class C>
void fields(A& a, C& c) requires std::is_same_v<std::remove_const_t<C>, Condition> {
  a(c.op), a(c.signal), a(c.args);
}
template <class A, class S>
void fields(A& a, S& s) requires std::is_same_v<std::remove_const_t<S>, Symptom> {
  a(s.symptom), a(s.why);
}
template <class A, class R>
void fields(A& a, R& r) requires std::is_same_v<std::remove_const_t<R>, Reference> {
  a(r.title), a(r.url);
}
template <class A, class E>
void fields(A& a, E& e) requires std::is_same_v<std::remove_const_t<E>, EditSpec> {
  a(e.kind), a(e.line), a(e.callees), a(e.keyword), a(e.position), a(e.path), a(e.whenPath), a(e.whenMatch), a(e.type),
      a(e.onlyIfPresent), a(e.value), a(e.rangeMin), a(e.rangeMax), a(e.minSafe);
}
template <class A, class E>
void fields(A& a, E& e) requires std::is_same_v<std::remove_const_t<E>, Example> {
  a(e.name), a(e.text);
}
template <class A, class E>
void fields(A& a, E& e) requires std::is_same_v<std::remove_const_t<E>, RuleError> {
  a(e.file), a(e.line), a(e.message);
}
template <class A, class F>
void fields(A& a, F& f) requires std::is_same_v<std::remove_const_t<F>, ParsedRuleFile> {
  a(f.path), a(f.rule), a(f.errors);
}
template <class A, class R>
void fields(A& a, R& r) requires std::is_same_v<std::remove_const_t<R>, Rule> {
  a(r.id), a(r.file), a(r.title), a(r.category), a(r.tags), a(r.severity), a(r.role), a(r.priority), a(r.systems);
  a(r.signals), a(r.condition), a(r.conditionText), a(r.positiveSignals), a(r.evidence), a(r.fallback), a(r.wraps), a(r.overrides);
  a(r.summary), a(r.whatItIs), a(r.observe), a(r.symptoms), a(r.fingerprint), a(r.rootCause), a(r.mechanism);
  a(r.confirm), a(r.fix), a(r.prevention), a(r.verify), a(r.related), a(r.references), a(r.edits);
  a(r.matchExamples), a(r.noMatchExamples);
}

class Writer {
 public:
  std::string out;

  void raw(const void* p, size_t n) { out.append(static_cast<const char*>(p), n); }
  void number(uint64_t v) { raw(&v, sizeof v); }

  void operator()(const std::string& s) {
    number(s.size());
    out.append(s);
  }
  void operator()(bool b) { number(b ? 1 : 0); }
  void operator()(int v) { number(static_cast<uint64_t>(static_cast<int64_t>(v))); }
  void operator()(double v) {
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    number(bits);
  }
  template <class E>
  void operator()(const E& e) requires std::is_enum_v<E> {
    number(static_cast<uint64_t>(e));
  }
  template <class T>
  void operator()(const std::optional<T>& o) {
    (*this)(o.has_value());
    if (o) (*this)(*o);
  }
  void operator()(const std::vector<bool>& v) {
    number(v.size());
    for (bool b : v) (*this)(b);
  }
  template <class T>
  void operator()(const std::vector<T>& v) {
    number(v.size());
    for (const auto& x : v) (*this)(x);
  }
  template <class T>
  void operator()(const T& t) requires std::is_class_v<T> {
    fields(*this, t);
  }
};

class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  bool failed = false;

  uint64_t number() {
    uint64_t v = 0;
    if (in_.size() - at_ < sizeof v) {
      failed = true;
      return 0;
    }
    std::memcpy(&v, in_.data() + at_, sizeof v);
    at_ += sizeof v;
    return v;
  }
  // A count of items, each at least one byte: more than the bytes left means a broken bundle.
  size_t count() {
    uint64_t n = number();
    if (n > in_.size() - at_) {
      failed = true;
      return 0;
    }
    return static_cast<size_t>(n);
  }

  void operator()(std::string& s) {
    size_t n = count();
    s.assign(in_.substr(at_, n));
    at_ += n;
  }
  void operator()(bool& b) { b = number() != 0; }
  void operator()(int& v) { v = static_cast<int>(static_cast<int64_t>(number())); }
  void operator()(double& v) {
    uint64_t bits = number();
    std::memcpy(&v, &bits, sizeof v);
  }
  template <class E>
  void operator()(E& e) requires std::is_enum_v<E> {
    e = static_cast<E>(number());
  }
  template <class T>
  void operator()(std::optional<T>& o) {
    bool has = false;
    (*this)(has);
    if (!has) {
      o.reset();
      return;
    }
    o.emplace();
    (*this)(*o);
  }
  void operator()(std::vector<bool>& v) {
    v.assign(count(), false);
    for (size_t i = 0; i < v.size() && !failed; ++i) v[i] = number() != 0;
  }
  template <class T>
  void operator()(std::vector<T>& v) {
    v.clear();
    v.resize(count());
    for (auto& x : v) {
      if (failed) return;
      (*this)(x);
    }
  }
  template <class T>
  void operator()(T& t) requires std::is_class_v<T> {
    fields(*this, t);
  }

  bool atEnd() const { return at_ == in_.size(); }

 private:
  std::string_view in_;
  size_t at_ = 0;
};

}  // namespace

std::string encodeRules(const std::vector<std::shared_ptr<const Rule>>& rules) {
  Writer w;
  w.out.append(kMagic);
  w.number(rules.size());
  for (const auto& r : rules) w(*r);
  return std::move(w.out);
}

Expected<std::vector<Rule>> decodeRules(std::string_view bytes) {
  if (bytes.substr(0, kMagic.size()) != kMagic) return Error{"not a rule bundle of this version"};
  Reader r(bytes.substr(kMagic.size()));
  std::vector<Rule> rules(r.count());
  for (auto& rule : rules) {
    if (r.failed) break;
    r(rule);
  }
  if (r.failed || !r.atEnd()) return Error{"the rule bundle is cut short or damaged"};
  return rules;
}

std::string encodeParsedRuleFiles(const std::vector<ParsedRuleFile>& files) {
  Writer w;
  w.out.append(kParsedMagic);
  w(files);
  return std::move(w.out);
}

Expected<std::vector<ParsedRuleFile>> decodeParsedRuleFiles(std::string_view bytes) {
  if (bytes.substr(0, kParsedMagic.size()) != kParsedMagic) return Error{"not a list of parsed rule files of this version"};
  Reader r(bytes.substr(kParsedMagic.size()));
  std::vector<ParsedRuleFile> files;
  r(files);
  if (r.failed || !r.atEnd()) return Error{"the parsed rule files are cut short or damaged"};
  return files;
}

}  // namespace denpex::core
