// FixPlanner: a finding plus the user's sources -> text edits, or the reason no edit applies.
//
// Pure apart from the SourceProvider it is handed: planFixes reads files only through it and
// keeps nothing. Thread-safe as far as the provider is.
//
// Core does no I/O: callers hand in a SourceProvider (files on disk for the CLI, the editor's
// open buffers for the language server). Every edit kind is idempotent: a value that is already
// safe produces a plan with no edit and says so.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/analyze/finding.h"
#include "core/fix/text_edit.h"

namespace denpex::core {

struct SourceFile {
  std::string path;              // as the provider names it (shown to the user)
  std::string text;
  std::optional<int> version;    // the editor's document version, when it is open there
};

class SourceProvider {
 public:
  virtual ~SourceProvider() = default;
  // A file named by a traceback frame, resolved the provider's way; nullopt when unreadable.
  virtual std::optional<SourceFile> open(const std::string& path) = 0;
  // Files to search when the log names none: the workspace's .py and .json files.
  virtual std::vector<std::string> candidates() = 0;
};

struct FixPlan {
  std::string title;        // "Set eps=1e-5 in torch.optim.AdamW(...) (train.py:42)"
  std::string path;
  int line = 0;             // 1-based line of the call or key being edited; 0 when unknown
  bool applicable = false;  // false: `reason` says why there is no edit
  bool alreadySafe = false; // the source already has a safe value (no edit needed)
  std::string reason;
  std::string originalText; // the text the edits apply to (to refuse writing over a change)
  std::optional<int> version;
  std::vector<TextEdit> edits;  // sorted, non-overlapping
};

// Plans the rule's edits for a finding. Files named by the finding's user frame come first;
// without one (or when it holds no matching call) the provider's candidates are searched.
std::vector<FixPlan> planFixes(const Finding& finding, SourceProvider& sources);

}  // namespace denpex::core
