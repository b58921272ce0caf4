// The document store (see documents.h).
#include "lsp/server/documents.h"

#include <cstdint>
#include <filesystem>
#include <optional>

#include "core/base/text.h"
#include "core/check/source_checks.h"
#include "lsp/protocol/from_proto.h"
#include "lsp/protocol/uri.h"

namespace denpex::lsp {

namespace fs = std::filesystem;

struct DocumentStore::Doc {
  std::string uri;
  std::string path;
  std::string languageId;
  int version = 0;
  DocTextPtr text;
  std::shared_ptr<const core::Diagnosis> diagnosis;
  DocTextPtr diagnosedText;
  int diagnosedVersion = 0;
  std::shared_ptr<const core::Diagnosis> selection;
  std::shared_ptr<Incremental> incremental = std::make_shared<Incremental>();
  std::shared_ptr<const IndexedText> indexed;  // the line index of `text` or of an earlier text
  size_t editedFrom = 0;  // the first byte any change touched since the worker last took the text
};

std::vector<FindingRef> allFindings(const DocumentView& doc) {
  std::vector<FindingRef> out;
  auto add = [&](const std::shared_ptr<const core::Diagnosis>& d, const char* set) {
    if (!d) return;
    for (size_t i = 0; i < d->findings.size(); ++i) out.push_back({d, i, set});
  };
  add(doc.diagnosis, "document");
  add(doc.selection, "selection");
  return out;
}

std::vector<FindingRef> findingsOnLines(const DocumentView& doc, uint64_t firstLine, uint64_t lastLine) {
  std::vector<FindingRef> out;
  for (auto& ref : allFindings(doc)) {
    for (const auto& e : ref.finding().evidence) {
      if (e.source == 0 && e.line >= firstLine && e.line <= lastLine) {
        out.push_back(ref);
        break;
      }
    }
  }
  return out;
}

Publication publication(const DocumentView& doc) {
  Publication p;
  p.document = doc.diagnosis && doc.diagnosedText;
  p.version = p.document ? doc.diagnosedVersion : doc.version;
  p.selection = doc.selection && (!p.document || doc.diagnosedVersion == doc.version);
  return p;
}

bool isLogDocument(const std::string& uri, const std::string& path, const std::string& languageId) {
  if (languageId == "denpex-log" || languageId == "log") return true;
  const std::string& p = path.empty() ? uri : path;
  for (const char* ext : {".log", ".out", ".err"})
    if (core::text::endsWith(p, ext)) return true;
  return false;
}

bool isPythonDocument(const std::string& path, const std::string& languageId) {
  return languageId == "python" || core::text::endsWith(path, ".py");
}

bool isJsonDocument(const std::string& path, const std::string& languageId) {
  return languageId == "json" || languageId == "jsonc" || core::text::endsWith(path, ".json");
}

bool isCheckedYamlDocument(const std::string& path, const std::string& languageId, std::string_view text) {
  if (languageId != "yaml" && !core::text::endsWith(path, ".yaml") && !core::text::endsWith(path, ".yml")) return false;
  for (std::string_view key : {"distributed_type:", "mixed_precision:"})
    if (text.substr(0, key.size()) == key || text.find("\n" + std::string(key)) != std::string_view::npos) return true;
  return core::looksLikeTrainerRecipe(text);
}

DocumentView DocumentStore::viewOf(const Doc& d) const {
  return DocumentView{d.uri,          d.path,          d.languageId,      d.version,  d.text,
                      isLogDocument(d.uri, d.path, d.languageId), d.diagnosis, d.diagnosedText,
                      d.diagnosedVersion, d.selection};
}

void DocumentStore::open(const std::string& uri, const std::string& languageId, int version, std::string text) {
  auto d = std::make_shared<Doc>();
  d->uri = uri;
  d->path = uriToPath(uri);
  d->languageId = languageId;
  d->version = version;
  d->text = DocText::adopt(std::move(text));
  std::lock_guard<std::mutex> lock(mutex_);
  docs_[uri] = d;
}

void DocumentStore::change(const std::string& uri, int version, const json& changes, core::PositionEncoding enc) {
  DocTextPtr current;
  std::shared_ptr<const IndexedText> indexed;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = docs_.find(uri);
    if (it == docs_.end()) throw LspError(error::kInvalidParams, "didChange for a document that is not open: " + uri);
    current = it->second->text;
    indexed = it->second->indexed;
  }
  if (!changes.is_array()) throw LspError(error::kInvalidParams, "contentChanges must be a list");
  // Positions are read with the line index of the text they refer to; after each edit the index
  // is updated from the edit alone. Text added at the end (a log that grows) is appended to the
  // shared buffer: the cost is the new lines, not the document.
  // `index` is the index of the text as edited so far: the cached one (of `current`) to start
  // with, then one made from each edit.
  const core::LineIndex* index = indexed && indexed->text == current ? &indexed->index : nullptr;
  std::unique_ptr<core::LineIndex> owned;
  DocTextPtr appended = current;  // while every change is an append
  std::optional<std::string> text;  // once one is not
  size_t editedFrom = SIZE_MAX;
  for (const auto& change : changes) {
    const json& newText = member(change, "text");
    if (!newText.is_string()) throw LspError(error::kInvalidParams, "a content change's 'text' must be a string");
    const std::string& inserted = newText.get_ref<const std::string&>();
    if (!change.contains("range")) {
      text = inserted;
      appended.reset();
      index = nullptr;
      owned.reset();
      editedFrom = 0;
      continue;
    }
    std::string_view now = text ? std::string_view(*text) : appended->view();
    if (!index) {
      owned = std::make_unique<core::LineIndex>(now);
      index = owned.get();
    }
    Range range = rangeFromJson(change["range"]);
    size_t begin = index->toOffset(range.start, enc);
    size_t end = index->toOffset(range.end, enc);
    if (end < begin) std::swap(begin, end);
    if (!text && begin == end && end == now.size()) {
      appended = DocText::appendTo(appended, inserted);
      now = appended->view();
    } else {
      if (!text) text = std::string(now);
      appended.reset();
      text->replace(begin, end - begin, inserted);
      now = *text;
    }
    owned = std::make_unique<core::LineIndex>(now, *index, begin, end - begin, inserted.size());
    index = owned.get();
    editedFrom = std::min(editedFrom, begin);
  }
  DocTextPtr next = text ? DocText::adopt(std::move(*text)) : appended;
  std::shared_ptr<const IndexedText> nextIndexed;
  if (owned && next) {
    // The index points into the text it was made over: the same bytes when the text was only
    // appended to (and an adopted string keeps its bytes); made over the final bytes otherwise.
    bool same = owned->text().data() == next->view().data() && owned->text().size() == next->view().size();
    nextIndexed = std::make_shared<const IndexedText>(
        IndexedText{next, same ? std::move(*owned) : core::LineIndex(next->view(), *owned, 0, 0, 0)});
  }
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = docs_.find(uri);
  if (it == docs_.end()) return;
  it->second->text = std::move(next);
  it->second->indexed = std::move(nextIndexed);
  it->second->editedFrom = std::min(it->second->editedFrom, editedFrom);
  it->second->version = version;
  it->second->selection.reset();  // its lines may have moved
}

std::shared_ptr<const IndexedText> DocumentStore::lineIndex(const std::string& uri, const DocTextPtr& text) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = docs_.find(uri);
    if (it != docs_.end() && it->second->indexed && it->second->indexed->text == text) return it->second->indexed;
  }
  auto made = std::make_shared<const IndexedText>(IndexedText{text, core::LineIndex(text->view())});
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = docs_.find(uri);
  if (it != docs_.end() && it->second->text == text) it->second->indexed = made;
  return made;
}

void DocumentStore::close(const std::string& uri) {
  std::lock_guard<std::mutex> lock(mutex_);
  docs_.erase(uri);
}

std::optional<DocumentView> DocumentStore::view(const std::string& uri) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = docs_.find(uri);
  if (it == docs_.end()) return std::nullopt;
  return viewOf(*it->second);
}

std::vector<DocumentView> DocumentStore::views() const {
  std::vector<DocumentView> out;
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& [uri, d] : docs_) out.push_back(viewOf(*d));
  return out;
}

void DocumentStore::setSelection(const std::string& uri, std::shared_ptr<const core::Diagnosis> d) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = docs_.find(uri);
  if (it != docs_.end()) it->second->selection = std::move(d);
}

void DocumentStore::setDiagnosis(const std::string& uri, std::shared_ptr<const core::Diagnosis> d,
                                 DocTextPtr text, int version) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = docs_.find(uri);
  if (it == docs_.end()) return;
  it->second->diagnosis = std::move(d);
  it->second->diagnosedText = std::move(text);
  it->second->diagnosedVersion = version;
}

void DocumentStore::clearDiagnosis(const std::string& uri) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = docs_.find(uri);
  if (it != docs_.end()) it->second->diagnosis.reset();
}

std::optional<DocumentStore::Work> DocumentStore::work(const std::string& uri) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = docs_.find(uri);
  if (it == docs_.end()) return std::nullopt;
  Doc& d = *it->second;
  Work w{d.text, d.version, d.path.empty() ? uri : fs::path(d.path).filename().string(), d.incremental, d.editedFrom};
  d.editedFrom = SIZE_MAX;
  return w;
}

}  // namespace denpex::lsp
