// Writing fix plans to the user's files.
#pragma once

#include <iosfwd>
#include <vector>

#include "core/fix/planner.h"

namespace denpex::io {

// Writes the applicable plans (edits of one file merged), refusing any file whose text changed
// since it was planned; each file is replaced through a temporary file and a rename. Says what
// it did, file by file, on `log`. Returns true when every file with an edit was written.
bool applyPlans(const std::vector<std::vector<core::FixPlan>>& plans, std::ostream& log);

}  // namespace denpex::io
