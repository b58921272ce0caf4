// Blocks of whole lines from a stream or from memory (see feed_blocks.h).
#include "io/feed_blocks.h"

#include <algorithm>

#include "core/parse/log_line.h"

namespace denpex::io {

bool StreamBlocks::next(std::string& text, size_t blockBytes) {
  text.assign(carry_);  // keeps the capacity of a reused block
  carry_.clear();
  size_t want = std::max<size_t>(blockBytes, 1);
  size_t lineStart = 0;  // where the line that is not finished yet starts in `text`
  while (in_) {
    size_t at = text.size();
    text.resize(at + want);
    in_.read(text.data() + at, static_cast<std::streamsize>(want));
    text.resize(at + static_cast<size_t>(in_.gcount()));
    if (skipping_) {
      size_t nl = text.find('\n', at);
      if (nl == std::string::npos) {
        text.resize(at);
        continue;
      }
      text.erase(at, nl - at);  // the line keeps its first kMaxLineBytes and its '\n'
      skipping_ = false;
    }
    size_t nl = text.rfind('\n');
    if (nl != std::string::npos && nl >= at) {  // the block ends after its last whole line
      carry_.assign(text, nl + 1);
      text.resize(nl + 1);
      if (carry_.size() > core::kMaxLineBytes) {
        carry_.resize(core::kMaxLineBytes);
        skipping_ = true;
      }
      break;
    }
    if (nl != std::string::npos) lineStart = nl + 1;
    if (text.size() - lineStart > core::kMaxLineBytes) {
      // A line with no end in sight: keep its start, drop the rest up to its '\n'.
      text.resize(lineStart + core::kMaxLineBytes);
      skipping_ = true;
    }
  }
  if (in_.bad()) failed_ = true;
  return !failed_;
}

void TextBlocks::next(std::string& block, size_t blockBytes) {
  block.clear();
  if (at_ >= text_.size()) return;
  size_t want = std::max<size_t>(blockBytes, 1);
  size_t end = std::min(text_.size(), at_ + want);
  size_t nl = text_.find('\n', end - 1);
  end = nl == std::string_view::npos ? text_.size() : nl + 1;
  if (end - at_ <= core::kMaxLineBytes) {  // no line in it can be too long: one copy
    block.assign(text_.substr(at_, end - at_));
    at_ = end;
    return;
  }
  // Whole lines up to the block size; a line past kMaxLineBytes is copied only that far.
  while (at_ < text_.size() && block.size() < want) {
    size_t nl = text_.find('\n', at_);
    size_t end = nl == std::string_view::npos ? text_.size() : nl;
    block.append(text_.substr(at_, std::min(end - at_, core::kMaxLineBytes)));
    if (nl != std::string_view::npos) block.push_back('\n');
    at_ = nl == std::string_view::npos ? text_.size() : nl + 1;
  }
}

}  // namespace denpex::io
