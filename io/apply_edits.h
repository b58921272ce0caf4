// Writing fix plans to the user's files.
#pragma once

#include <iosfwd>
#include <map>
#include <string>
#include <vector>

#include "core/fix/planner.h"

namespace denpex::io {

// The applicable edits of some plans, merged per file: sorted, duplicates (two findings asking
// for the same edit) removed, with the text they apply to.
struct FileEdits {
  std::string originalText;
  bool outside = false;  // outside the project or workspace (see core::SourceFile)
  std::vector<core::TextEdit> edits;
};
std::map<std::string, FileEdits> editsByFile(const std::vector<std::vector<core::FixPlan>>& plans);

// Writes the applicable plans (edits of one file merged), refusing any file whose text changed
// since it was planned, and any file outside the project unless `allowOutside`; each file is
// replaced through a temporary file and a rename (replaceFile's checks). Says what it did, file
// by file, on `log`. Returns true when every file with an edit was written.
bool applyPlans(const std::vector<std::vector<core::FixPlan>>& plans, std::ostream& log, bool allowOutside = false);

}  // namespace denpex::io
