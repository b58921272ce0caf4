// Finding lookups shared by the hover, code action and code lens handlers.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "lsp/server.h"

namespace denpex::lsp {

// A finding together with the diagnosis that owns it (kept alive while in use).
struct FindingRef {
  std::shared_ptr<const core::Diagnosis> owner;
  const core::Finding* finding = nullptr;
  size_t index = 0;
  const char* set = "document";  // "document" or "selection", as in the diagnostic's data
};

// Every finding of the document, whole-document ones first.
inline std::vector<FindingRef> allFindings(const DocumentView& doc) {
  std::vector<FindingRef> out;
  auto add = [&](const std::shared_ptr<const core::Diagnosis>& d, const char* set) {
    if (!d) return;
    for (size_t i = 0; i < d->findings.size(); ++i) out.push_back({d, &d->findings[i], i, set});
  };
  add(doc.diagnosis, "document");
  add(doc.selection, "selection");
  return out;
}

// Findings with an evidence line inside [firstLine, lastLine].
inline std::vector<FindingRef> findingsOnLines(const DocumentView& doc, uint64_t firstLine, uint64_t lastLine) {
  std::vector<FindingRef> out;
  for (auto& ref : allFindings(doc)) {
    for (const auto& e : ref.finding->evidence) {
      if (e.source == 0 && e.line >= firstLine && e.line <= lastLine) {
        out.push_back(ref);
        break;
      }
    }
  }
  return out;
}

}  // namespace denpex::lsp
