// Cutting an input into blocks of whole lines for the parallel feed (see parallel_feed.h): from a
// stream, carrying a line a read cut to the next block, or from text already in memory. Either
// way a line past core::kMaxLineBytes keeps its first kMaxLineBytes only, as a line fed whole would.
#pragma once

#include <cstddef>
#include <istream>
#include <string>
#include <string_view>

namespace denpex::io {

class StreamBlocks {
 public:
  explicit StreamBlocks(std::istream& in) : in_(in) {}
  // The next block into `text` (empty at the end; its capacity is reused); false once a read failed.
  bool next(std::string& text, size_t blockBytes);
  bool failed() const { return failed_; }

 private:
  std::istream& in_;
  std::string carry_;      // the start of a line the last read cut
  bool skipping_ = false;  // in a line past kMaxLineBytes: its bytes are dropped up to its '\n'
  bool failed_ = false;
};

class TextBlocks {
 public:
  // `text` must outlive the reader.
  explicit TextBlocks(std::string_view text) : text_(text) {}
  // The next block into `block` (empty at the end).
  void next(std::string& block, size_t blockBytes);

 private:
  std::string_view text_;
  size_t at_ = 0;
};

}  // namespace denpex::io
