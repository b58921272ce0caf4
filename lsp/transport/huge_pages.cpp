// Huge-page advice for big buffers (see huge_pages.h).
#include "lsp/transport/huge_pages.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>

namespace denpex::lsp {

void adviseHugePages(const void* data, size_t bytes) {
#ifdef MADV_HUGEPAGE
  if (bytes < kHugePagesFrom || data == nullptr) return;
  const auto page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  if (page == 0 || (page & (page - 1)) != 0) return;
  // Only whole pages may be advised: the first one that starts inside the buffer, up to the
  // last one that ends inside it.
  const auto begin = reinterpret_cast<uintptr_t>(data);
  const uintptr_t from = (begin + page - 1) & ~(page - 1);
  const uintptr_t to = (begin + bytes) & ~(page - 1);
  if (to > from) ::madvise(reinterpret_cast<void*>(from), to - from, MADV_HUGEPAGE);
#else
  (void)data;
  (void)bytes;
#endif
}

}  // namespace denpex::lsp
