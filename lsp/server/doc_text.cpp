// Snapshots of a document's text that share one buffer while it only grows (see doc_text.h).
#include "lsp/server/doc_text.h"

#include "io/huge_pages.h"

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
  text->buffer_->block.reset(new char[capacity]);
  io::adviseHugePages(text->buffer_->block.get(), capacity);  // before the copy touches its pages
  text->buffer_->data = text->buffer_->block.get();
  text->buffer_->capacity = capacity;
  if (!head.empty()) std::memcpy(text->buffer_->data, head.data(), head.size());
  if (!tail.empty()) std::memcpy(text->buffer_->data + head.size(), tail.data(), tail.size());
  text->buffer_->used.store(size, std::memory_order_release);
  text->data_ = text->buffer_->data;
  text->size_ = size;
  return text;
}

std::shared_ptr<const DocText> DocText::adopt(std::string s) {
  std::shared_ptr<DocText> text(new DocText);
  text->buffer_ = std::make_shared<Buffer>();
  Buffer& b = *text->buffer_;
  b.adopted = std::move(s);
  b.data = b.adopted.data();
  b.capacity = b.adopted.capacity();
  b.used.store(b.adopted.size(), std::memory_order_release);
  text->data_ = b.data;
  text->size_ = b.adopted.size();
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
    if (buffer.block) {
      std::memcpy(buffer.data + size, tail.data(), tail.size());
    } else {
      buffer.adopted.append(tail);  // within its capacity: the bytes stay where they are
    }
    std::shared_ptr<DocText> text(new DocText);
    text->buffer_ = base->buffer_;
    text->data_ = buffer.data;
    text->size_ = size + tail.size();
    return text;
  }
  return fresh(base->view(), tail);
}

}  // namespace denpex::lsp
