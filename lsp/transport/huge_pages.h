// Big buffers backed by 2 MiB pages where the kernel offers them (transparent huge pages in
// "madvise" mode, Debian's default). A log opened in the editor arrives as one message of up to
// hundreds of megabytes, and that buffer becomes the document: with 4 KiB pages its first touch
// costs one page fault per 4 KiB, which on a virtual machine here took 270 ms for 100 MiB, more
// than the pipe that carried it (90 ms); with 2 MiB pages it took 10 to 20 ms.
#pragma once

#include <cstddef>

namespace denpex::lsp {

// Buffers from this size on are worth the advice (two huge pages).
constexpr size_t kHugePagesFrom = size_t{4} << 20;

// Advises the kernel to back the whole 4 KiB pages inside [data, data + bytes) with huge pages
// (madvise MADV_HUGEPAGE). Call it before the buffer is first written. Only advice: where the
// kernel has no such pages, or `bytes` is under kHugePagesFrom, nothing changes.
void adviseHugePages(const void* data, size_t bytes);

}  // namespace denpex::lsp
