// Writing fix plans to disk (see apply_edits.h).
#include "io/apply_edits.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <ostream>

#include "io/files.h"

namespace denpex::io {

namespace fs = std::filesystem;

std::map<std::string, FileEdits> editsByFile(const std::vector<std::vector<core::FixPlan>>& plans) {
  std::map<std::string, FileEdits> byFile;
  for (const auto& list : plans) {
    for (const auto& plan : list) {
      if (!plan.applicable) continue;
      auto& entry = byFile[plan.path];
      entry.originalText = plan.originalText;
      entry.outside = entry.outside || plan.outside;
      entry.edits.insert(entry.edits.end(), plan.edits.begin(), plan.edits.end());
    }
  }
  for (auto& [path, entry] : byFile) {
    auto& edits = entry.edits;
    std::sort(edits.begin(), edits.end(), [](const auto& a, const auto& b) { return a.begin < b.begin; });
    edits.erase(std::unique(edits.begin(), edits.end(),
                            [](const auto& a, const auto& b) { return a.begin == b.begin && a.end == b.end && a.newText == b.newText; }),
                edits.end());
  }
  return byFile;
}

namespace {

// The edits with their line breaks written as the file writes its own: a file whose lines all
// end in CRLF gets CRLF in what is inserted, never a bare LF.
std::vector<core::TextEdit> withLineEnds(const std::string& text, std::vector<core::TextEdit> edits) {
  size_t lf = std::count(text.begin(), text.end(), '\n');
  size_t crlf = 0;
  for (size_t at = text.find("\r\n"); at != std::string::npos; at = text.find("\r\n", at + 2)) ++crlf;
  if (lf == 0 || crlf != lf) return edits;
  for (auto& e : edits) {
    std::string out;
    for (size_t i = 0; i < e.newText.size(); ++i) {
      if (e.newText[i] == '\n' && (i == 0 || e.newText[i - 1] != '\r')) out += '\r';
      out += e.newText[i];
    }
    e.newText = std::move(out);
  }
  return edits;
}

}  // namespace

bool applyPlans(const std::vector<std::vector<core::FixPlan>>& plans, std::ostream& log, bool allowOutside) {
  auto byFile = editsByFile(plans);
  bool ok = true;
  for (auto& [path, entry] : byFile) {
    const auto& edits = entry.edits;
    if (entry.outside && !allowOutside) {
      log << "denpex: " << path << " is outside the project; not written (review the diff above, then pass --allow-outside to write it)\n";
      ok = false;
      continue;
    }
    std::string error;
    auto now = readFile(path, error);
    if (!now || *now != entry.originalText) {
      log << "denpex: " << path << " changed since it was read; not written\n";
      ok = false;
      continue;
    }
    std::string updated = core::applyEdits(entry.originalText, withLineEnds(entry.originalText, edits));
    if (!replaceFile(path, entry.originalText, updated, error)) {
      log << "denpex: " << error << "\n";
      ok = false;
      continue;
    }
    log << "denpex: applied " << edits.size() << " edit" << (edits.size() == 1 ? "" : "s") << " to " << path << "\n";
  }
  return ok;
}

}  // namespace denpex::io
