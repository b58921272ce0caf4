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

bool applyPlans(const std::vector<std::vector<core::FixPlan>>& plans, std::ostream& log) {
  auto byFile = editsByFile(plans);
  bool ok = true;
  for (auto& [path, entry] : byFile) {
    const auto& edits = entry.edits;
    std::string error;
    auto now = readFile(path, error);
    if (!now || *now != entry.originalText) {
      log << "denpex: " << path << " changed since it was read; not written\n";
      ok = false;
      continue;
    }
    std::string updated = core::applyEdits(entry.originalText, edits);
    fs::path tmp = fs::path(path).concat(".denpex-tmp");
    {
      std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
      out << updated;
      if (!out) {
        log << "denpex: cannot write " << tmp.string() << "\n";
        ok = false;
        continue;
      }
    }
    std::error_code ec;
    fs::permissions(tmp, fs::status(path, ec).permissions(), ec);
    fs::rename(tmp, path, ec);
    if (ec) {
      log << "denpex: cannot replace " << path << ": " << ec.message() << "\n";
      fs::remove(tmp, ec);
      ok = false;
      continue;
    }
    log << "denpex: applied " << edits.size() << " edit" << (edits.size() == 1 ? "" : "s") << " to " << path << "\n";
  }
  return ok;
}

}  // namespace denpex::io
