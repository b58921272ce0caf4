// Snapshots of a document's text that share one buffer while it only grows (see doc_text.h).
#include "lsp/server/doc_text.h"

#include <algorithm>
#include <cstring>

namespace denpex::lsp {

std::shared_ptr<const DocText> DocText::fresh(std::string_view head, std::string_view tail) {
  std::shared_ptr<DocText> text(new DocText);
  size_t size = head.size() + tail.size();
  text->buffer_ = std::make_shared<Buffer>();
  // Room to grow by half again: pages not yet written are not resident, so the room is free
  // until a log grows into it.
  size_t capacity = size + size / 2 + 4096;
  text->buffer_->data.reset(new char[capacity]);
  text->buffer_->capacity = capacity;
  if (!head.empty()) std::memcpy(text->buffer_->data.get(), head.data(), head.size());
  if (!tail.empty()) std::memcpy(text->buffer_->data.get() + head.size(), tail.data(), tail.size());
  text->buffer_->used.store(size, std::memory_order_release);
  text->size_ = size;
  return text;
}

std::shared_ptr<const DocText> DocText::make(std::string_view text) { return fresh(text, {}); }

std::shared_ptr<const DocText> DocText::appendTo(const std::shared_ptr<const DocText>& base, std::string_view tail) {
  Buffer& buffer = *base->buffer_;
  size_t size = base->size_;
  size_t expected = size;
  // Only the newest text may grow in place, and only into room no text shows yet.
  if (tail.size() <= buffer.capacity - size &&
      buffer.used.compare_exchange_strong(expected, size + tail.size(), std::memory_order_acq_rel)) {
    std::memcpy(buffer.data.get() + size, tail.data(), tail.size());
    std::shared_ptr<DocText> text(new DocText);
    text->buffer_ = base->buffer_;
    text->size_ = size + tail.size();
    return text;
  }
  return fresh(base->view(), tail);
}

}  // namespace denpex::lsp
