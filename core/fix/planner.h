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
  // Outside the project folder (CLI) or the workspace (language server): its fixes are shown,
  // and written only when the user allows it explicitly.
  bool outside = false;
};

// A file a traceback frame names, or why there is none (not found; several files it could be).
struct OpenedSource {
  std::optional<SourceFile> file;
  std::string problem;
};

class SourceProvider {
 public:
  virtual ~SourceProvider() = default;
  // The file a traceback frame names, resolved the provider's way.
  virtual OpenedSource open(const std::string& framePath) = 0;
  // Files the user named to be fixed (`--source FILE`), considered besides the frame's file.
  // The log alone never makes the planner look for look-alike calls in other files.
  virtual std::vector<SourceFile> namedFiles() { return {}; }
};

struct FixPlan {
  std::string title;        // "Set eps=1e-5 in torch.optim.AdamW(...) (train.py:42)", from the edit itself
  std::string path;
  int line = 0;             // 1-based line of the call or key being edited; 0 when unknown
  bool applicable = false;  // false: `reason` says why there is no edit
  bool alreadySafe = false; // the source already has a safe value (no edit needed)
  bool outside = false;     // the file is outside the project or workspace (see SourceFile)
  std::string reason;
  std::string originalText; // the text the edits apply to (to refuse writing over a change)
  std::optional<int> version;
  std::vector<TextEdit> edits;  // sorted, non-overlapping
};

// Plans the rule's edits for a finding in the file its user frame names and in the files the
// user named. A Python call is edited only when it resolves, through the file's imports, to one
// of the edit's callees. No frame and no named file: no plan (never a search of other files).
std::vector<FixPlan> planFixes(const Finding& finding, SourceProvider& sources);

}  // namespace denpex::core
