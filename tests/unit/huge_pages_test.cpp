// io/huge_pages.h: big buffers and the start-up heap advised into huge pages.
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "io/huge_pages.h"
#include "support/vm_flags.h"

#if defined(__SANITIZE_ADDRESS__)
#define DENPEX_OWN_ALLOCATOR 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer) || __has_feature(thread_sanitizer)
#define DENPEX_OWN_ALLOCATOR 1
#endif
#endif

namespace denpex::io {
namespace {

bool kernelHasHugePages() { return access("/sys/kernel/mm/transparent_hugepage/enabled", F_OK) == 0; }

bool advised(const void* p) { return test::vmFlagsAt(p).find(" hg ") != std::string::npos; }

TEST(HugePages, AdvisesTheWholePagesInsideABigBuffer) {
  if (!kernelHasHugePages()) GTEST_SKIP() << "this kernel has no huge pages";
  const size_t size = size_t{8} << 20;
  void* map = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(map, MAP_FAILED);
  char* p = static_cast<char*>(map);
  adviseHugePages(p + 100, size - 200);
  EXPECT_TRUE(advised(p + size / 2));
  // The pages the buffer only shares with others (its first and last) are left as they were.
  EXPECT_FALSE(advised(p));
  EXPECT_FALSE(advised(p + size - 1));
  munmap(map, size);

  // A buffer under the size that pays is left alone.
  void* small = mmap(nullptr, size_t{1} << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(small, MAP_FAILED);
  adviseHugePages(small, size_t{1} << 20);
  EXPECT_FALSE(advised(static_cast<char*>(small) + (size_t{1} << 19)));
  munmap(small, size_t{1} << 20);
}

// A command's start allocates a few megabytes (rules, the prefilter's database, compiled
// patterns): they land in room advised at once, and blocks under 1 MiB come from that heap
// rather than from mappings of their own.
TEST(HugePages, TheHeapGrowsIntoAdvisedRoomAtOnce) {
#ifdef DENPEX_OWN_ALLOCATOR
  GTEST_SKIP() << "a sanitizer's allocator has no heap of glibc's to prepare";
#else
  if (!kernelHasHugePages()) GTEST_SKIP() << "this kernel has no huge pages";
  // A process that ran other tests first has free blocks all over its heap, which a start has
  // not: then the test runs again alone, in a process of its own.
  if (mallinfo2().fordblks >= (size_t{1} << 20) && std::getenv("DENPEX_HEAP_TEST_ALONE") == nullptr) {
    char self[4096] = {};
    ASSERT_GT(readlink("/proc/self/exe", self, sizeof self - 1), 0);
    const std::string command = std::string("DENPEX_HEAP_TEST_ALONE=1 '") + self +
                                "' --gtest_filter=HugePages.TheHeapGrowsIntoAdvisedRoomAtOnce >/dev/null 2>&1";
    int rc = std::system(command.c_str());
    EXPECT_EQ(rc, 0) << "the test failed in a process of its own";
    return;
  }
  char* before = static_cast<char*>(sbrk(0));
  prepareHugePageHeap();
  char* after = static_cast<char*>(sbrk(0));
  ASSERT_GE(static_cast<size_t>(after - before), kHeapReserve / 2);  // what the top had left counts
  EXPECT_TRUE(advised(before + kHeapReserve / 2));
  void* block = std::malloc(size_t{600} << 10);
  ASSERT_NE(block, nullptr);
  EXPECT_EQ(test::mappingNameAt(block), "[heap]") << "a 600 KiB block was mapped on its own";
  std::free(block);
#endif
}

}  // namespace
}  // namespace denpex::io
