// Candidate patterns for many texts in one Vectorscan pass (see prefilter.h).
#include "core/rules/prefilter.h"

#include <hs/hs.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "core/base/text.h"

namespace denpex::core {

namespace {

// A literal as a pattern: every character outside [A-Za-z0-9 _] escaped.
std::string quote(std::string_view literal) {
  std::string out;
  for (char c : literal) {
    bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == ' ' || c == '_';
    if (plain) {
      out.push_back(c);
    } else {
      char hex[5];
      std::snprintf(hex, sizeof hex, "\\x%02x", static_cast<unsigned char>(c));
      out += hex;
    }
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
  for (unsigned i = 0; i < patterns; ++i) {
    expressions.push_back(prefilterExpression(matcher.patternText(i)));
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
    if (badId < patterns && expressions[static_cast<size_t>(bad)] != matcher.patternText(badId)) {
      // Its shortened form was refused: try the pattern whole before giving it up.
      expressions[static_cast<size_t>(bad)] = matcher.patternText(badId);
      continue;
    }
    giveUp(badId);
    expressions.erase(expressions.begin() + bad);
    ids.erase(ids.begin() + bad);
  }
  std::sort(residual_.begin(), residual_.end());
  findWide(matcher, literals);
}

namespace {

// Whether a pattern may name a character outside ASCII: a byte of one, or an escape that can
// stand for one (\x{...}, \x80 to \xff, octal, Unicode classes, any byte). Conservative: a
// pattern listed here is only tried on more texts.
bool namesWideCharacters(std::string_view pattern) {
  for (size_t i = 0; i < pattern.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(pattern[i]);
    if (c >= 0x80) return true;
    if (c != '\\' || i + 1 >= pattern.size()) continue;
    char e = pattern[i + 1];
    if (e == 'p' || e == 'P' || e == 'C' || (e >= '0' && e <= '7')) return true;
    if (e == 'x' && i + 2 < pattern.size()) {
      char h = pattern[i + 2];
      if (h == '{' || (h >= '8' && h <= '9') || (h >= 'a' && h <= 'f') || (h >= 'A' && h <= 'F')) return true;
    }
    ++i;  // the escaped character is not an escape itself
  }
  return false;
}

}  // namespace

void Prefilter::findWide(const Matcher& matcher, const std::vector<PrefilterLiteral>& literals) {
  wide_.clear();
  for (size_t i = 0; i < matcher.patternCount(); ++i)
    if (namesWideCharacters(matcher.patternText(i))) wide_.push_back(static_cast<int>(i));
  for (size_t k = 0; k < literals_; ++k) {
    std::string_view t = literals[k].text;
    if (std::any_of(t.begin(), t.end(), [](char c) { return static_cast<unsigned char>(c) >= 0x80; }))
      wide_.push_back(static_cast<int>(matcher.patternCount() + k));
  }
}

namespace {

constexpr std::string_view kSavedMagic = "denpex-prefilter-3\n";

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
  hs_database_t* db = nullptr;
  // Fails for a database compiled for a CPU feature this machine lacks, among others.
  if (hs_deserialize_database(saved.data(), saved.size(), &db) != HS_SUCCESS) return nullptr;
  p->db_ = db;
  p->fingerprint_ = fp;
  p->literals_ = static_cast<size_t>(lits);
  p->residualLiterals_ = residualLits;
  p->findWide(matcher, literals);
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
    // One character per lead byte and its continuation bytes, read more loosely than RE2 does:
    // what RE2 counts as one character is one here, and what it counts as invalid matches
    // nothing in RE2 at all, so the image may only match more.
    size_t n = c >= 0xF0 && c <= 0xF7 ? 4 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xC0 && c <= 0xDF ? 2 : 1;
    if (i + n > text.size()) n = 1;
    for (size_t k = 1; k < n; ++k)
      if ((static_cast<unsigned char>(text[i + k]) & 0xC0) != 0x80) n = 1;
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
  for (const auto& t : texts) {
    joined.append(t);
    ends.push_back(joined.size());
    joined.push_back('\n');
  }
  bool anyWide = false;
  if (!ascii(joined)) {
    // A text with other bytes is scanned as its ASCII image (see the header).
    joined.clear();
    ends.clear();
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
