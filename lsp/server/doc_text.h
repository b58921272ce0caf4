// DocText: an immutable snapshot of an open document's text. A snapshot's bytes never change.
// Texts made by appending share one buffer: the new bytes are written past the end of every
// snapshot that exists, where no reader looks, so following a growing log costs the appended
// bytes, not a copy of the whole text (a 100 MB log gains 100 lines in microseconds).
// Snapshots may be read from any thread; appendTo() is called by one thread at a time (the
// document store, under its lock).
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace denpex::lsp {

class DocText {
 public:
  static std::shared_ptr<const DocText> make(std::string_view text);
  // Takes the string's memory as the buffer (no copy): an opened 100 MB log is held once.
  static std::shared_ptr<const DocText> adopt(std::string text);

  std::string_view view() const { return std::string_view(data_, size_); }
  size_t size() const { return size_; }

  // `base` followed by `tail`: shares base's buffer when base is its newest text and the buffer
  // has room; otherwise a copy into a new buffer with room to grow.
  static std::shared_ptr<const DocText> appendTo(const std::shared_ptr<const DocText>& base, std::string_view tail);

 private:
  DocText() = default;
  struct Buffer {
    // One or the other holds the bytes. An adopted string is only ever appended to within its
    // capacity, so its bytes never move; readers use `data_`, never the string object.
    std::unique_ptr<char[]> block;
    std::string adopted;
    char* data = nullptr;
    size_t capacity = 0;
    std::atomic<size_t> used{0};  // the size of the newest text in it
  };
  static std::shared_ptr<const DocText> fresh(std::string_view head, std::string_view tail);

  std::shared_ptr<Buffer> buffer_;
  const char* data_ = nullptr;
  size_t size_ = 0;
};

using DocTextPtr = std::shared_ptr<const DocText>;

}  // namespace denpex::lsp
