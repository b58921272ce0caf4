// Memory backed by 2 MiB pages where the kernel offers them (transparent huge pages in "madvise"
// mode, Debian's default). On this project's virtual machines the first touch of fresh memory
// costs a page fault per 4 KiB, about 10 microseconds each: 270 ms for 100 MiB, where the same
// memory in 2 MiB pages took 10 to 20 ms. Two places pay it: a log opened in the editor, which
// arrives as one message of up to hundreds of megabytes and becomes the document's buffer; and
// every command's start, whose few megabytes of heap (the rules, the prefilter's database, the
// compiled patterns) took a third of a short diagnosis.
#pragma once

#include <cstddef>

namespace denpex::io {

// Buffers from this size on are worth the advice (two huge pages).
constexpr size_t kHugePagesFrom = size_t{4} << 20;

// Advises the kernel to back the whole 4 KiB pages inside [data, data + bytes) with huge pages
// (madvise MADV_HUGEPAGE). Call it before the buffer is first written. Only advice: where the
// kernel has no such pages, or `bytes` is under kHugePagesFrom, nothing changes.
void adviseHugePages(const void* data, size_t bytes);

// Grows the process's heap by kHeapReserve now and advises that room into huge pages, so the
// allocations of a command's start land in pages already advised; blocks under 1 MiB come from
// the heap too (glibc would map each block from 128 KiB on by itself, in 4 KiB pages). For
// main(), before anything big is allocated. The room below its first 2 MiB line, where no huge
// page fits and the first allocations land, is populated at once (one call, not a fault per
// page). With an allocator other than glibc's (a sanitizer's), nothing changes. Pages of the
// rest of the room that are never touched cost nothing.
constexpr size_t kHeapReserve = size_t{16} << 20;
void prepareHugePageHeap();

}  // namespace denpex::io
