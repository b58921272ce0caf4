// Prefilter: which of a Matcher's patterns may match each of many texts, found in one
// Vectorscan pass over all of them (a whole block of log lines at once) instead of one RE2::Set
// pass per line. Its answer is a superset: each pattern it names is then confirmed, with its
// span and captures, by the pattern's own RE2 (Matcher::matchCandidates), so results are the
// same as Matcher::match's, byte for byte.
//
// Patterns are compiled with HS_FLAG_PREFILTER (Vectorscan approximates what it cannot match
// exactly, never dropping a match). A pattern it cannot take at all is "residual": named as a
// candidate for every text. Texts with bytes outside ASCII are not scanned (Vectorscan's byte
// semantics differ from RE2's UTF-8 ones there): every pattern is a candidate for them.
//
// Compiling costs hundreds of milliseconds, so build one only for big inputs. Immutable after
// construction; scan with one Scratch per thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <string_view>
#include <vector>

#include "core/rules/matcher.h"

struct hs_database;
struct hs_scratch;

namespace denpex::core {

// A string (not a pattern) to look for besides the patterns, with or without case.
struct PrefilterLiteral {
  std::string_view text;
  bool caseless = false;
};

// What Vectorscan scans for in place of `pattern`: a superset of its matches that ends where each
// of them ends. Each top-level alternative loses the items before its longest run of plain
// literal characters (at least three): ": \d+ Killed\s" becomes " Killed\s". Vectorscan then
// starts from the rare word rather than from a common prefix (": " and a digit are on most log
// lines), which was most of the scan's cost. A run that is only a word most lines of a big log
// carry (rank, loss, step, info, epoch, iter) gives way to any other run of three or more:
// "^rank\s+\d+ = -?\d" becomes " = -?\d". A pattern it cannot read safely (mid-pattern flags,
// \Q...\E, escapes it does not know) is returned whole.
std::string prefilterExpression(std::string_view pattern);

class Prefilter {
 public:
  // `literals`: up to 64 more strings (not patterns), each reported like a pattern whose index is
  // patternCount() + its position: a caller learns from the same pass which texts contain them.
  // `portable`: compiled for any x86-64 (to be saved at build time and loaded elsewhere) rather
  // than tuned for this machine's CPU.
  explicit Prefilter(const Matcher& matcher, const std::vector<PrefilterLiteral>& literals = {}, bool portable = false);

  // The compiled database with what it was compiled from (a fingerprint of the patterns and
  // literals), for load(). Empty when there is no database.
  std::string save() const;
  // A prefilter saved for exactly these patterns and literals; null when `saved` is of others,
  // damaged, or for a CPU this one is not.
  static std::unique_ptr<Prefilter> load(const Matcher& matcher, const std::vector<PrefilterLiteral>& literals,
                                         std::string_view saved);
  ~Prefilter();
  Prefilter(const Prefilter&) = delete;
  Prefilter& operator=(const Prefilter&) = delete;

  // Whether a database was built (false: every pattern is residual).
  bool ok() const { return db_ != nullptr; }
  size_t residualCount() const { return residual_.size(); }

  // Per-thread scanning space.
  class Scratch {
   public:
    Scratch() = default;
    ~Scratch();
    Scratch(Scratch&& o) noexcept : s_(o.s_) { o.s_ = nullptr; }
    Scratch& operator=(Scratch&& o) noexcept;

   private:
    friend class Prefilter;
    hs_scratch* s_ = nullptr;
  };
  Scratch newScratch() const;

  struct Candidates {
    std::vector<std::pair<uint32_t, int>> hits;  // (text, pattern or literal index), ascending, no repeats
    std::vector<uint8_t> all;                    // per text: every pattern must be tried
  };
  // Which patterns may match each text. The residual patterns are not listed: they may match
  // any text. A text with bytes outside ASCII is scanned with each character (each invalid byte)
  // in place of one byte that only what RE2 lets match any non-ASCII character matches (`.`, a
  // negated class, \W, \S, \D). Patterns and literals are compiled for that image: a character
  // outside ASCII they name is the same byte (dropped from a negated class); the few a pattern
  // names in a way that is not rewritten (\x{...}, Unicode classes) are listed for every such
  // text without a scan. Only a text holding the two characters that RE2's case folding joins to
  // ASCII letters (KELVIN SIGN, LONG S) is marked `all`.
  void candidates(const std::vector<std::string_view>& texts, Scratch& scratch, Candidates& out) const;
  const std::vector<int>& residual() const { return residual_; }
  // Literals it could not compile, as bits (bit k: literal k): reported for no text, so a caller
  // must treat them as present in every text.
  uint64_t residualLiterals() const { return residualLiterals_; }
  size_t literalCount() const { return literals_; }

  // A 64-bit hash of the patterns and literals (FNV-1a): what a saved prefilter was made from.
  static uint64_t fingerprint(const Matcher& matcher, const std::vector<PrefilterLiteral>& literals);

 private:
  Prefilter() = default;

  hs_database* db_ = nullptr;
  uint64_t fingerprint_ = 0;
  std::vector<int> residual_;  // patterns Vectorscan could not compile
  std::vector<int> wide_;      // patterns with no ASCII-image form, compiled as they are
  uint64_t residualLiterals_ = 0;
  size_t literals_ = 0;
};

}  // namespace denpex::core
