// Candidate patterns for many texts in one Vectorscan pass (see prefilter.h).
#include "core/rules/prefilter.h"

#include <hs/hs.h>

#include <algorithm>
#include <string>

namespace denpex::core {

Prefilter::Prefilter(const Matcher& matcher) {
  std::vector<std::string> expressions;
  std::vector<unsigned> ids;
  for (size_t i = 0; i < matcher.patternCount(); ++i) {
    expressions.push_back(matcher.patternText(i));
    ids.push_back(static_cast<unsigned>(i));
  }
  auto giveUp = [&](unsigned id) { residual_.push_back(static_cast<int>(id)); };
  // Compile; a pattern Vectorscan refuses becomes residual and the rest are compiled again.
  while (!expressions.empty()) {
    std::vector<const char*> exprs;
    std::vector<unsigned> flags;
    for (const auto& e : expressions) {
      exprs.push_back(e.c_str());
      // MULTILINE: texts are scanned joined by '\n', and ^ and $ must hold at each text's ends.
      flags.push_back(HS_FLAG_PREFILTER | HS_FLAG_MULTILINE | HS_FLAG_ALLOWEMPTY);
    }
    hs_database_t* db = nullptr;
    hs_compile_error_t* error = nullptr;
    hs_error_t rc = hs_compile_multi(exprs.data(), flags.data(), ids.data(), static_cast<unsigned>(exprs.size()),
                                     HS_MODE_BLOCK, nullptr, &db, &error);
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
    giveUp(ids[static_cast<size_t>(bad)]);
    expressions.erase(expressions.begin() + bad);
    ids.erase(ids.begin() + bad);
  }
  std::sort(residual_.begin(), residual_.end());
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
  std::vector<std::vector<int>>* out;
};

int onMatch(unsigned id, unsigned long long /*from*/, unsigned long long to, unsigned /*flags*/, void* context) {
  auto* st = static_cast<ScanState*>(context);
  // The text the match ends in (a match ending on a separator belongs to the text before it).
  size_t at = static_cast<size_t>(to);
  auto it = std::lower_bound(st->ends->begin(), st->ends->end(), at);
  if (it != st->ends->end()) (*st->out)[static_cast<size_t>(it - st->ends->begin())].push_back(static_cast<int>(id));
  return 0;
}

bool ascii(std::string_view s) {
  unsigned char any = 0;
  for (char c : s) any |= static_cast<unsigned char>(c);
  return any < 0x80;
}

}  // namespace

void Prefilter::candidates(const std::vector<std::string_view>& texts, Scratch& scratch, std::vector<std::vector<int>>& out,
                           std::vector<bool>& all) const {
  out.assign(texts.size(), {});
  all.assign(texts.size(), false);
  if (!db_ || !scratch.s_) {
    all.assign(texts.size(), true);
    return;
  }
  thread_local std::string joined;
  thread_local std::vector<size_t> ends;
  joined.clear();
  ends.clear();
  for (size_t i = 0; i < texts.size(); ++i) {
    if (!ascii(texts[i])) all[i] = true;
    else joined.append(texts[i]);  // a text scanned elsewhere is an empty one here  // a text scanned elsewhere is an empty one here
    ends.push_back(joined.size());
    joined.push_back('\n');
  }
  ScanState st{&ends, &out};
  // Vectorscan takes at most 4 GiB per call; callers pass blocks far smaller.
  hs_error_t rc = hs_scan(db_, joined.data(), static_cast<unsigned>(std::min<size_t>(joined.size(), 0xffffffffu)), 0,
                          scratch.s_, onMatch, &st);
  if (rc != HS_SUCCESS) {
    all.assign(texts.size(), true);
    return;
  }
  for (size_t i = 0; i < out.size(); ++i) {
    auto& c = out[i];
    if (!residual_.empty()) c.insert(c.end(), residual_.begin(), residual_.end());
    std::sort(c.begin(), c.end());
    c.erase(std::unique(c.begin(), c.end()), c.end());
  }
}

}  // namespace denpex::core
