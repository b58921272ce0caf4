// The floor under `denpex diagnose` on this machine, two ways. First, the one Vectorscan pass
// that names candidate patterns (the shipped rules' saved database, the same literals) over a
// log's bytes as they lie, in blocks of lines, on every core, and each line's end, with nothing
// else done: no parse, no RE2, no diagnosis. No design that looks at every line for every rule
// signal avoids it. Second, the same pass and each line's metrics read (core::extractMetrics),
// which a diagnosis with today's answers needs of every metric line: the first non-finite value,
// the grad-norm window before it, the loss-scale history, and the count of metric lines that
// numbers the steps of lines printing none. Whatever denpex costs beyond the second is the rest
// of its per-line work. Prints the best wall time in seconds of a few runs of each:
// "SCAN SCAN_AND_METRICS".
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
#include "core/parse/metrics.h"
#include "core/rules/prefilter.h"
#include "core/rules/rule_bundle.h"
#include "io/rule_dirs.h"

using namespace denpex;

namespace {

// Reads [begin, end) of the text, which starts and ends at line starts, in blocks of lines as
// denpex does (io/parallel_feed.cpp: 128 KiB): one Vectorscan pass over each block's bytes as
// they are, and each line's end; with `metrics`, also each line's metrics (core::extractMetrics).
// Returns a count of what it found, so the work cannot be optimised away.
size_t readRange(const core::Prefilter& prefilter, std::string_view text, bool metrics) {
  core::Prefilter::Scratch scratch = prefilter.newScratch();
  core::Prefilter::Candidates found;
  std::vector<std::string_view> block(1);
  size_t count = 0;
  size_t at = 0;
  while (at < text.size()) {
    size_t cut = std::min(text.size(), at + (128u << 10));
    const void* nl = std::memchr(text.data() + cut - 1, '\n', text.size() - cut + 1);
    size_t end = nl ? static_cast<const char*>(nl) - text.data() + 1 : text.size();
    block[0] = text.substr(at, end - at);
    prefilter.candidates(block, scratch, found);
    count += found.hits.size();
    for (size_t p = at; p < end;) {
      const void* lineEnd = std::memchr(text.data() + p, '\n', end - p);
      size_t e = lineEnd ? static_cast<const char*>(lineEnd) - text.data() : end;
      if (metrics) count += core::extractMetrics(text.substr(p, e - p)).loss.has_value();
      else count += (e - p) & 1;
      p = e + 1;
    }
    at = end;
  }
  return count;
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
  // Mapped with every page in place before the clock starts: denpex reads a log with read(), and
  // a page fault per 4 KiB of the mapping (on this project's virtual machines, as much as the
  // scan) would be the mapping's cost, not the scan's.
  void* map = mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
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

  // The best wall time of `runs` reads of every range at once, one thread per range.
  auto time = [&](bool metrics) {
    double best = 1e9;
    for (int r = 0; r < std::max(1, runs); ++r) {
      auto t0 = std::chrono::steady_clock::now();
      std::vector<size_t> counts(ranges.size());
      std::vector<std::thread> pool;
      for (size_t i = 0; i < ranges.size(); ++i)
        pool.emplace_back([&, i] { counts[i] = readRange(*prefilter, ranges[i], metrics); });
      for (auto& t : pool) t.join();
      best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    return best;
  };
  const double scan = time(false);
  const double withMetrics = time(true);
  std::printf("%.3f %.3f\n", scan, withMetrics);
  munmap(map, size);
  close(fd);
  return 0;
}
