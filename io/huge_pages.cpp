// Huge-page advice for big buffers and the heap (see huge_pages.h).
#include "io/huge_pages.h"

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>

namespace denpex::io {

namespace {
constexpr uintptr_t kHugePageBytes = uintptr_t{2} << 20;
}  // namespace

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

void prepareHugePageHeap() {
#if defined(__GLIBC__) && defined(M_TOP_PAD) && defined(M_MMAP_THRESHOLD)
  // Blocks under 1 MiB from the heap; a 100 MB document is still mapped on its own (and advised
  // by its owner), and given back whole when it goes.
  ::mallopt(M_MMAP_THRESHOLD, 1 << 20);
  // Each time the heap grows, by this much more than asked; a free keeps this much at its top.
  ::mallopt(M_TOP_PAD, static_cast<int>(kHeapReserve));
  // A block bigger than what is left at the heap's top makes it grow now (the block's own pages
  // are not touched, but for its header): the new room is advised before anything is written in
  // it. Huge pages fill the 2 MiB-aligned spans inside it; the first blocks of the start-up, cut
  // where the top was up to the first such line, still take 4 KiB pages. (Moving the break to a
  // 2 MiB line first was slower: glibc took the gap into its heap, unadvised.)
  const size_t top = ::mallinfo2().keepcost;  // what is left at the top
  const size_t ask = top + (size_t{64} << 10);
  if (ask >= (size_t{1} << 20)) return;  // the heap has room already: this is no start
  void* const before = ::sbrk(0);
  void* volatile grow = std::malloc(ask);  // volatile: not elided with its free
  void* const after = ::sbrk(0);
  if (before != reinterpret_cast<void*>(-1) && after > before) {
    adviseHugePages(before, static_cast<size_t>(static_cast<char*>(after) - static_cast<char*>(before)));
#ifdef MADV_POPULATE_WRITE
    // The room below the first 2 MiB line keeps 4 KiB pages, and the start's first allocations
    // land there: populated with one call (Linux 5.14 on) instead of a fault per page, which cost
    // more than the rest of a short diagnosis. Where the kernel lacks the call, the pages fault in
    // as before.
    const auto from = reinterpret_cast<uintptr_t>(before);
    const uintptr_t line = (from + kHugePageBytes - 1) & ~(kHugePageBytes - 1);
    const uintptr_t to = std::min(line, reinterpret_cast<uintptr_t>(after));
    const auto page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
    const uintptr_t start = page > 0 ? (from + page - 1) & ~(page - 1) : to;
    if (to > start) ::madvise(reinterpret_cast<void*>(start), to - start, MADV_POPULATE_WRITE);
#endif
  }
  std::free(grow);
#endif
}

}  // namespace denpex::io
