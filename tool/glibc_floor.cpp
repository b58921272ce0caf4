// Only in the portable build (DENPEX_PORTABLE), which links libstdc++ statically. GCC 12's
// libstdc++ archive carries std::random_device, which calls arc4random, a function glibc has only
// from 2.36 on; nothing in denpex uses random_device, but the archive member comes with the
// strings every program uses. This definition, on getrandom(2) (glibc 2.25), is the one the
// binary links to, so its oldest glibc stays 2.34, the one its start-up code needs.
#include <sys/random.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>

extern "C" uint32_t arc4random(void) {
  uint32_t value = 0;
  while (getrandom(&value, sizeof value, 0) != static_cast<ssize_t>(sizeof value)) {
    if (errno != EINTR) std::abort();  // no entropy source: nothing sensible to return
  }
  return value;
}
