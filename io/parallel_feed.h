// Feeding a diagnoser from a stream on several cores. The text is cut into blocks of whole lines;
// worker threads compute each block's line facts (core::analyzeLines, pure) while this thread
// hands finished blocks to the diagnoser strictly in order, so the diagnosis is the same as
// Diagnoser::addText's, byte for byte, whatever the number of threads. At most a few blocks are
// in memory at once: memory does not grow with the input.
#pragma once

#include <cstddef>
#include <istream>
#include <string_view>

#include "core/analyze/diagnoser.h"

namespace denpex::io {

struct FeedOptions {
  unsigned threads = 0;           // worker threads; 0: one per core
  size_t blockBytes = 1u << 20;   // a block ends at the first '\n' after this many bytes
  // Picks each block's candidate patterns in one Vectorscan pass; null: RE2::Set per line.
  const core::Prefilter* prefilter = nullptr;
};

// Reads `in` to its end into `diagnoser`, which must be at the start of an input (right after
// beginSource). Returns false on a read error.
bool feedStream(core::Diagnoser& diagnoser, const core::Matcher& matcher, std::istream& in, FeedOptions options = {});
// The same for text already in memory.
void feedText(core::Diagnoser& diagnoser, const core::Matcher& matcher, std::string_view text, FeedOptions options = {});

}  // namespace denpex::io
