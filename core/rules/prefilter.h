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

#include <memory>
#include <string_view>
#include <vector>

#include "core/rules/matcher.h"

struct hs_database;
struct hs_scratch;

namespace denpex::core {

class Prefilter {
 public:
  explicit Prefilter(const Matcher& matcher);
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

  // For each text, the pattern indices (Matcher's) that may match it, ascending, or `all[i]`
  // set when every pattern must be tried.
  void candidates(const std::vector<std::string_view>& texts, Scratch& scratch, std::vector<std::vector<int>>& out,
                  std::vector<bool>& all) const;

 private:
  hs_database* db_ = nullptr;
  std::vector<int> residual_;  // patterns Vectorscan could not compile
};

}  // namespace denpex::core
