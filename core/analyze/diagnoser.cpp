// Streaming diagnosis: per-rank signal state, metric windows and exception groups, turned into
// ordered findings at the end (see diagnoser.h).
#include "core/analyze/diagnoser.h"

#include "core/analyze/diagnoser_state.h"
#include "core/base/text.h"
#include "core/analyze/order.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <deque>
#include <set>
#include <tuple>

namespace denpex::core {

Diagnoser::Diagnoser(const RuleSet& rules, const Matcher& matcher, Options options)
    : state_(std::make_unique<State>(rules, matcher, options)) {}

Diagnoser::~Diagnoser() = default;

void Diagnoser::beginSource(std::string name, int defaultRank) {
  if (state_->pendingOpen) {
    state_->processLine(state_->pending);
    state_->pending.clear();
    state_->pendingOpen = false;
  }
  state_->sources.push_back(std::move(name));
  state_->sourceRanks.resize(state_->sources.size() - 1, -1);
  state_->sourceRanks.push_back(defaultRank);
  state_->source = static_cast<uint32_t>(state_->sources.size() - 1);
  state_->lineNo = 0;
  state_->hasPrevious = false;
  state_->previousRef = nullptr;
}

void Diagnoser::renameSource(uint32_t index, std::string name) {
  if (index < state_->sources.size()) state_->sources[index] = std::move(name);
}

void Diagnoser::addText(std::string_view chunk) {
  State& st = *state_;
  if (st.sources.empty()) st.sources.push_back("<input>");
  size_t start = 0;
  // A partial line is kept up to kMaxLineBytes: the rest of a longer one is skipped.
  auto keep = [&](std::string_view part) {
    if (st.pending.size() < kMaxLineBytes) st.pending.append(part.substr(0, kMaxLineBytes - st.pending.size()));
  };
  while (start < chunk.size()) {
    size_t nl = chunk.find('\n', start);
    if (nl == std::string_view::npos) {
      keep(chunk.substr(start));
      st.pendingOpen = true;
      return;
    }
    if (!st.pendingOpen) {
      st.processLine(chunk.substr(start, nl - start));
    } else {
      keep(chunk.substr(start, nl - start));
      st.processLine(st.pending);
      st.pending.clear();
      st.pendingOpen = false;
    }
    start = nl + 1;
  }
}

void Diagnoser::addLine(std::string_view line) {
  if (state_->sources.empty()) state_->sources.push_back("<input>");
  state_->processLine(line);
}

void Diagnoser::addFacts(std::vector<LineFacts>& lines) {
  if (state_->sources.empty()) state_->sources.push_back("<input>");
  for (auto& facts : lines) state_->apply(facts);
  state_->keepPrevious();
}

uint32_t Diagnoser::currentSource() const { return state_->source; }

uint32_t Diagnoser::nextSource() const { return static_cast<uint32_t>(state_->sources.size()); }

int Diagnoser::currentDefaultRank() const {
  return state_->source < state_->sourceRanks.size() ? state_->sourceRanks[state_->source] : -1;
}

uint64_t Diagnoser::nextLineNo() const { return state_->lineNo; }

const ParsedLine* Diagnoser::previousLine() const { return state_->hasPrevious ? &state_->previousLine() : nullptr; }

bool Diagnoser::hasPartialLine() const { return state_->pendingOpen; }

Diagnosis Diagnoser::finish() { return state_->finish(); }

Diagnosis Diagnoser::snapshot() const {
  State copy(*state_);
  return copy.finish();
}

uint64_t Diagnoser::linesSeen() const { return state_->totalLines; }

Diagnosis diagnoseText(const RuleSet& rules, const Matcher& matcher, std::string_view text,
                       std::string sourceName) {
  Diagnoser d(rules, matcher);
  d.beginSource(std::move(sourceName));
  d.addText(text);
  return d.finish();
}

}  // namespace denpex::core
