// The floor under `denpex diagnose` on this machine: the one Vectorscan pass that names each
// line's candidate patterns (the shipped rules' saved database, the same literals), over every
// line of a log, on every core, with nothing else done: no parse, no RE2, no diagnosis. Whatever
// denpex costs beyond this is per-line work; this part no design that looks at every line for
// every rule signal avoids. Prints the best wall time in seconds of a few runs.
//   scan_floor LOG [RUNS]
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <thread>
#include <vector>

#include "core/analyze/line_facts.h"
#include "core/rules/prefilter.h"
#include "core/rules/rule_bundle.h"
#include "io/rule_dirs.h"

using namespace denpex;

namespace {

// Scans [begin, end) of the text, which starts and ends at line starts, in blocks of lines as
// denpex does (io/parallel_feed.cpp: 128 KiB). Returns how many candidates it found, so the work
// cannot be optimised away.
size_t scanRange(const core::Prefilter& prefilter, std::string_view text) {
  core::Prefilter::Scratch scratch = prefilter.newScratch();
  core::Prefilter::Candidates found;
  std::vector<std::string_view> lines;
  size_t candidates = 0;
  size_t at = 0;
  while (at < text.size()) {
    lines.clear();
    size_t blockEnd = std::min(text.size(), at + (128u << 10));
    while (at < blockEnd) {
      const void* nl = std::memchr(text.data() + at, '\n', text.size() - at);
      size_t end = nl ? static_cast<const char*>(nl) - text.data() : text.size();
      lines.push_back(text.substr(at, end - at));
      at = end + 1;
    }
    prefilter.candidates(lines, scratch, found);
    candidates += found.hits.size();
  }
  return candidates;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: scan_floor LOG [RUNS]\n");
    return 2;
  }
  int runs = argc > 2 ? std::atoi(argv[2]) : 3;
  int fd = open(argv[1], O_RDONLY);
  struct stat st{};
  if (fd < 0 || fstat(fd, &st) != 0 || st.st_size == 0) {
    std::fprintf(stderr, "scan_floor: cannot read %s\n", argv[1]);
    return 2;
  }
  size_t size = static_cast<size_t>(st.st_size);
  void* map = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  if (map == MAP_FAILED) return 2;
  std::string_view text(static_cast<const char*>(map), size);

  io::LoadedRules load = io::loadRules({});
  auto prefilter = core::Prefilter::load(*load.matcher, core::lineLiterals(), core::builtinPrefilter());
  if (!prefilter || !prefilter->ok()) {
    std::fprintf(stderr, "scan_floor: the shipped rules' prefilter did not load\n");
    return 2;
  }

  // One range per core, cut at line starts.
  unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::string_view> ranges;
  size_t from = 0;
  for (unsigned c = 1; c <= cores && from < size; ++c) {
    size_t to = c == cores ? size : std::max(from, size * c / cores);
    const void* nl = to < size ? std::memchr(text.data() + to, '\n', size - to) : nullptr;
    to = nl ? static_cast<const char*>(nl) - text.data() + 1 : size;
    ranges.push_back(text.substr(from, to - from));
    from = to;
  }

  double best = 1e9;
  size_t total = 0;
  for (int r = 0; r < std::max(1, runs); ++r) {
    auto t0 = std::chrono::steady_clock::now();
    std::vector<size_t> counts(ranges.size());
    std::vector<std::thread> pool;
    for (size_t i = 0; i < ranges.size(); ++i)
      pool.emplace_back([&, i] { counts[i] = scanRange(*prefilter, ranges[i]); });
    for (auto& t : pool) t.join();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    total = 0;
    for (size_t c : counts) total += c;
  }
  std::printf("%.3f %zu\n", best, total);
  munmap(map, size);
  close(fd);
  return 0;
}
