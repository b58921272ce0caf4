// Candidate patterns for many texts in one Vectorscan pass (see prefilter.h).
#include "core/rules/prefilter.h"

#include <hs/hs.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>

#include "core/base/text.h"

namespace denpex::core {

namespace {

// The bytes of the UTF-8 character that starts at s[i]: a lead byte and its continuation bytes,
// read more loosely than RE2 does. What RE2 counts as one character is one here, and what it
// counts as invalid matches nothing in RE2 at all, so an image built from it may only match more.
size_t charLength(std::string_view s, size_t i) {
  unsigned char c = static_cast<unsigned char>(s[i]);
  size_t n = c >= 0xF0 && c <= 0xF7 ? 4 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xC0 && c <= 0xDF ? 2 : 1;
  if (i + n > s.size()) return 1;
  for (size_t k = 1; k < n; ++k)
    if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return 1;
  return n;
}

// A literal as a pattern for the ASCII image (see asciiImage): every ASCII character outside
// [A-Za-z0-9 _] escaped, each other character as the byte 0x80 that stands for it.
std::string quote(std::string_view literal) {
  std::string out;
  for (size_t i = 0; i < literal.size();) {
    char c = literal[i];
    bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == ' ' || c == '_';
    if (static_cast<unsigned char>(c) >= 0x80) {
      out += "\\x80";
      i += charLength(literal, i);
      continue;
    }
    if (plain) {
      out.push_back(c);
    } else {
      char hex[5];
      std::snprintf(hex, sizeof hex, "\\x%02x", static_cast<unsigned char>(c));
      out += hex;
    }
    ++i;
  }
  return out;
}

// A pattern for the ASCII image: each character outside ASCII it names becomes the byte 0x80
// that stands for it, in a positive class too; a negated class drops such members (so it only
// matches more). Null where it names one in a way this does not rewrite (\x{...}, \x80 to
// \xff, octal, Unicode classes, \C, a range with such an end): that pattern is then tried on
// every text outside ASCII.
std::optional<std::string> imageExpression(std::string_view p) {
  auto wideEscape = [&](size_t i) {  // p[i] == '\\'
    if (i + 1 >= p.size()) return false;
    char e = p[i + 1];
    if (e == 'p' || e == 'P' || e == 'C' || (e >= '0' && e <= '7')) return true;
    if (e == 'x' && i + 2 < p.size()) {
      char h = p[i + 2];
      return h == '{' || (h >= '8' && h <= '9') || (h >= 'a' && h <= 'f') || (h >= 'A' && h <= 'F');
    }
    return false;
  };
  std::string out;
  for (size_t i = 0; i < p.size();) {
    unsigned char c = static_cast<unsigned char>(p[i]);
    if (c >= 0x80) {
      out += "\\x80";
      i += charLength(p, i);
      continue;
    }
    if (c == '\\') {
      if (wideEscape(i)) return std::nullopt;
      out.append(p.substr(i, std::min<size_t>(2, p.size() - i)));
      i += 2;
      continue;
    }
    if (c != '[') {
      out.push_back(static_cast<char>(c));
      ++i;
      continue;
    }
    // A class: copied member by member up to its closing ']'.
    size_t j = i + 1;
    bool negated = j < p.size() && p[j] == '^';
    if (negated) ++j;
    std::string members;
    bool wide = false, first = true, closed = false;
    while (j < p.size()) {
      unsigned char m = static_cast<unsigned char>(p[j]);
      if (m == ']' && !first) {
        closed = true;
        break;
      }
      first = false;
      if (m == '[' && j + 1 < p.size() && p[j + 1] == ':') {  // [:alpha:]
        size_t end = p.find(":]", j + 2);
        if (end == std::string_view::npos) return std::nullopt;
        members.append(p.substr(j, end + 2 - j));
        j = end + 2;
        continue;
      }
      size_t len = m == '\\' ? 2 : m >= 0x80 ? charLength(p, j) : 1;
      if (m == '\\' && wideEscape(j)) return std::nullopt;
      if (j + len > p.size()) return std::nullopt;
      bool rangeFollows = j + len + 1 < p.size() && p[j + len] == '-' && p[j + len + 1] != ']';
      bool rangeEnds = !members.empty() && members.back() == '-' && members.size() >= 2;
      if (m >= 0x80) {
        if (rangeFollows || rangeEnds) return std::nullopt;
        wide = true;  // dropped here, added back below for a positive class
      } else {
        if (rangeFollows && static_cast<unsigned char>(p[j + len + 1]) >= 0x80) return std::nullopt;
        members.append(p.substr(j, len));
      }
      j += len;
    }
    if (!closed) return std::nullopt;
    if (wide && !negated) members += "\\x80";
    if (members.empty()) out += negated ? "[\\x00-\\xff]" : "[^\\x00-\\xff]";
    else out += (negated ? "[^" : "[") + members + "]";
    i = j + 1;
  }
  return out;
}

}  // namespace

Prefilter::Prefilter(const Matcher& matcher, const std::vector<PrefilterLiteral>& literals, bool portable) {
  hs_platform_info_t generic{};
  generic.tune = HS_TUNE_FAMILY_GENERIC;
  generic.cpu_features = 0;
  fingerprint_ = fingerprint(matcher, literals);
  std::vector<std::string> expressions;
  std::vector<unsigned> ids;
  std::vector<bool> caseless;  // per literal
  const unsigned patterns = static_cast<unsigned>(matcher.patternCount());
  // Each pattern is compiled in the form its ASCII image takes; one that has none stays as it is
  // and is listed for every text outside ASCII.
  std::vector<bool> wide(patterns, false);
  auto scanForm = [&](unsigned id, std::string expression) {
    if (auto image = imageExpression(expression)) return *image;
    wide[id] = true;
    return expression;
  };
  for (unsigned i = 0; i < patterns; ++i) {
    expressions.push_back(scanForm(i, prefilterExpression(matcher.patternText(i))));
    ids.push_back(i);
  }
  literals_ = std::min<size_t>(literals.size(), 64);
  for (size_t k = 0; k < literals_; ++k) {
    expressions.push_back(quote(literals[k].text));
    ids.push_back(patterns + static_cast<unsigned>(k));
    caseless.push_back(literals[k].caseless);
  }
  auto giveUp = [&](unsigned id) {
    if (id < patterns) residual_.push_back(static_cast<int>(id));
    else residualLiterals_ |= uint64_t{1} << (id - patterns);
  };
  // Compile; a pattern Vectorscan refuses becomes residual and the rest are compiled again.
  while (!expressions.empty()) {
    std::vector<const char*> exprs;
    std::vector<unsigned> flags;
    for (size_t e = 0; e < expressions.size(); ++e) {
      exprs.push_back(expressions[e].c_str());
      // MULTILINE: texts are scanned joined by '\n', and ^ and $ must hold at each text's ends.
      unsigned f = HS_FLAG_PREFILTER | HS_FLAG_MULTILINE | HS_FLAG_ALLOWEMPTY;
      if (ids[e] >= patterns && caseless[ids[e] - patterns]) f |= HS_FLAG_CASELESS;
      flags.push_back(f);
    }
    hs_database_t* db = nullptr;
    hs_compile_error_t* error = nullptr;
    hs_error_t rc = hs_compile_multi(exprs.data(), flags.data(), ids.data(), static_cast<unsigned>(exprs.size()),
                                     HS_MODE_BLOCK, portable ? &generic : nullptr, &db, &error);
    if (rc == HS_SUCCESS) {
      db_ = db;
      for (size_t e = 0; e < expressions.size(); ++e)
        if (ids[e] < patterns && wide[ids[e]]) wide_.push_back(static_cast<int>(ids[e]));
      std::sort(wide_.begin(), wide_.end());
      break;
    }
    int bad = error ? error->expression : -1;
    hs_free_compile_error(error);
    if (bad < 0 || static_cast<size_t>(bad) >= expressions.size()) {
      // Not one pattern's fault (out of memory, say): everything stays with RE2.
      for (unsigned id : ids) giveUp(id);
      expressions.clear();
      break;
    }
    const unsigned badId = ids[static_cast<size_t>(bad)];
    if (badId < patterns) {
      // Its shortened form was refused: try the pattern whole before giving it up.
      wide[badId] = false;
      std::string whole = scanForm(badId, matcher.patternText(badId));
      if (expressions[static_cast<size_t>(bad)] != whole) {
        expressions[static_cast<size_t>(bad)] = whole;
        continue;
      }
    }
    giveUp(badId);
    expressions.erase(expressions.begin() + bad);
    ids.erase(ids.begin() + bad);
  }
  std::sort(residual_.begin(), residual_.end());
}

namespace {

constexpr std::string_view kSavedMagic = "denpex-prefilter-5\n";

void put(std::string& out, uint64_t v) { out.append(reinterpret_cast<const char*>(&v), sizeof v); }

bool get(std::string_view& in, uint64_t& v) {
  if (in.size() < sizeof v) return false;
  std::memcpy(&v, in.data(), sizeof v);
  in.remove_prefix(sizeof v);
  return true;
}

}  // namespace

uint64_t Prefilter::fingerprint(const Matcher& matcher, const std::vector<PrefilterLiteral>& literals) {
  // FNV-1a over every pattern and literal, each ended by a NUL (which none contains).
  uint64_t h = text::kFnvOffset;
  auto add = [&](std::string_view s) { h = text::fnv1a(std::string_view("\0", 1), text::fnv1a(s, h)); };
  for (size_t i = 0; i < matcher.patternCount(); ++i) add(matcher.patternText(i));
  add("--literals--");
  for (const auto& l : literals) {
    add(l.text);
    add(l.caseless ? "i" : "");
  }
  return h;
}

std::string Prefilter::save() const {
  if (!db_) return {};
  char* bytes = nullptr;
  size_t length = 0;
  if (hs_serialize_database(db_, &bytes, &length) != HS_SUCCESS) return {};
  std::string out(kSavedMagic);
  put(out, fingerprint_);
  put(out, literals_);
  put(out, residualLiterals_);
  put(out, residual_.size());
  for (int r : residual_) put(out, static_cast<uint64_t>(r));
  put(out, wide_.size());
  for (int w : wide_) put(out, static_cast<uint64_t>(w));
  out.append(bytes, length);
  std::free(bytes);
  return out;
}

std::unique_ptr<Prefilter> Prefilter::load(const Matcher& matcher, const std::vector<PrefilterLiteral>& literals,
                                           std::string_view saved) {
  if (saved.substr(0, kSavedMagic.size()) != kSavedMagic) return nullptr;
  saved.remove_prefix(kSavedMagic.size());
  std::unique_ptr<Prefilter> p(new Prefilter);
  uint64_t fp = 0, lits = 0, residualLits = 0, residuals = 0;
  if (!get(saved, fp) || fp != fingerprint(matcher, literals)) return nullptr;
  if (!get(saved, lits) || !get(saved, residualLits) || !get(saved, residuals) || residuals > matcher.patternCount())
    return nullptr;
  for (uint64_t i = 0; i < residuals; ++i) {
    uint64_t r = 0;
    if (!get(saved, r) || r >= matcher.patternCount()) return nullptr;
    p->residual_.push_back(static_cast<int>(r));
  }
  uint64_t wides = 0;
  if (!get(saved, wides) || wides > matcher.patternCount() + literals.size()) return nullptr;
  for (uint64_t i = 0; i < wides; ++i) {
    uint64_t w = 0;
    if (!get(saved, w) || w >= matcher.patternCount() + literals.size()) return nullptr;
    p->wide_.push_back(static_cast<int>(w));
  }
  hs_database_t* db = nullptr;
  // Fails for a database compiled for a CPU feature this machine lacks, among others.
  if (hs_deserialize_database(saved.data(), saved.size(), &db) != HS_SUCCESS) return nullptr;
  p->db_ = db;
  p->fingerprint_ = fp;
  p->literals_ = static_cast<size_t>(lits);
  p->residualLiterals_ = residualLits;
  return p;
}

Prefilter::~Prefilter() {
  if (db_) hs_free_database(db_);
}

Prefilter::Scratch::~Scratch() {
  if (s_) hs_free_scratch(s_);
}

Prefilter::Scratch& Prefilter::Scratch::operator=(Scratch&& o) noexcept {
  if (this != &o) {
    if (s_) hs_free_scratch(s_);
    s_ = o.s_;
    o.s_ = nullptr;
  }
  return *this;
}

Prefilter::Scratch Prefilter::newScratch() const {
  Scratch s;
  if (db_) hs_alloc_scratch(db_, &s.s_);
  return s;
}

namespace {

struct ScanState {
  const std::vector<size_t>* ends;  // offset just past each text in the joined buffer
  std::vector<std::pair<uint32_t, int>>* hits;
};

int onMatch(unsigned id, unsigned long long /*from*/, unsigned long long to, unsigned /*flags*/, void* context) {
  auto* st = static_cast<ScanState*>(context);
  // The text the match ends in (a match ending on a separator belongs to the text before it).
  auto it = std::lower_bound(st->ends->begin(), st->ends->end(), static_cast<size_t>(to));
  if (it != st->ends->end()) st->hits->emplace_back(static_cast<uint32_t>(it - st->ends->begin()), static_cast<int>(id));
  return 0;
}

// Whether every byte is ASCII, eight at a time.
bool ascii(std::string_view s) {
  uint64_t any = 0;
  size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, s.data() + i, 8);
    any |= w;
  }
  for (; i < s.size(); ++i) any |= static_cast<unsigned char>(s[i]);
  return (any & 0x8080808080808080ull) == 0;
}

// Appends `text`'s ASCII image to `out`: ASCII bytes as they are, each other UTF-8 character
// (or invalid byte) as the one byte 0x80, which in Vectorscan's byte mode matches `.`, negated
// classes, \W, \S and \D as the character does in RE2, and no ASCII literal or class. False
// (and nothing appended) for a text holding KELVIN SIGN or LONG S, which RE2's case folding
// matches with (?i)k and (?i)s.
bool asciiImage(std::string_view text, std::string& out) {
  const size_t start = out.size();
  for (size_t i = 0; i < text.size();) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      out.push_back(static_cast<char>(c));
      ++i;
      continue;
    }
    const size_t n = charLength(text, i);
    std::string_view ch = text.substr(i, n);
    if (ch == "\xE2\x84\xAA" || ch == "\xC5\xBF") {
      out.resize(start);
      return false;
    }
    out.push_back('\x80');
    i += n;
  }
  return true;
}

}  // namespace

void Prefilter::candidates(const std::vector<std::string_view>& texts, Scratch& scratch, Candidates& out) const {
  out.hits.clear();
  out.all.assign(texts.size(), 0);
  if (!db_ || !scratch.s_) {
    out.all.assign(texts.size(), 1);
    return;
  }
  thread_local std::string joined;
  thread_local std::vector<size_t> ends;
  joined.clear();
  ends.clear();
  // A text with bytes outside ASCII is scanned as its ASCII image (see the header).
  bool anyWide = false;
  for (size_t i = 0; i < texts.size(); ++i) {
    if (ascii(texts[i])) {
      joined.append(texts[i]);
    } else if (!asciiImage(texts[i], joined)) {
      out.all[i] = 1;
    } else {
      out.all[i] = 2;  // scanned as an image; marked back to 0 below
      anyWide = true;
    }
    ends.push_back(joined.size());
    joined.push_back('\n');
  }
  ScanState st{&ends, &out.hits};
  // Vectorscan takes at most 4 GiB per call; callers pass blocks far smaller.
  hs_error_t rc = hs_scan(db_, joined.data(), static_cast<unsigned>(std::min<size_t>(joined.size(), 0xffffffffu)), 0,
                          scratch.s_, onMatch, &st);
  if (rc != HS_SUCCESS) {
    out.hits.clear();
    out.all.assign(texts.size(), 1);
    return;
  }
  if (anyWide) {
    for (size_t i = 0; i < texts.size(); ++i) {
      if (out.all[i] != 2) continue;
      out.all[i] = 0;
      for (int id : wide_) out.hits.emplace_back(static_cast<uint32_t>(i), id);
    }
  }
  std::sort(out.hits.begin(), out.hits.end());
  out.hits.erase(std::unique(out.hits.begin(), out.hits.end()), out.hits.end());
}

}  // namespace denpex::core
