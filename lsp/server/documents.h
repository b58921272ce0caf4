// The document store: the text of every open document, its version, and the diagnoses made
// of it. Thread-safe: the main thread opens, changes and closes documents; the diagnosis
// worker stores its results; any thread takes immutable snapshots (DocumentView).
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/analyze/diagnoser.h"
#include "core/parse/log_text.h"
#include "io/rule_dirs.h"
#include "lsp/protocol/types.h"
#include "lsp/server/doc_text.h"

namespace denpex::lsp {

// A text with its line index (which points into the text it keeps alive).
struct IndexedText {
  DocTextPtr text;
  core::LineIndex index;
};

// What handlers see of a document: an immutable snapshot.
struct DocumentView {
  std::string uri;
  std::string path;  // empty for non-file URIs (untitled documents)
  std::string languageId;
  int version = 0;
  DocTextPtr text;
  bool isLog = false;
  std::shared_ptr<const core::Diagnosis> diagnosis;  // whole-document diagnosis, if any
  DocTextPtr diagnosedText;  // the text `diagnosis` was made from
  int diagnosedVersion = 0;                          // and its version
  std::shared_ptr<const core::Diagnosis> selection;  // from denpex.diagnose on a range, if any (of `text`)
};

// A finding of a document together with the diagnosis that owns it (kept alive while in use).
struct FindingRef {
  std::shared_ptr<const core::Diagnosis> owner;
  size_t index = 0;
  const char* set = "document";  // "document" or "selection", as in the diagnostic's data

  const core::Finding& finding() const { return owner->findings[index]; }
};

// Every finding of the document, whole-document ones first.
std::vector<FindingRef> allFindings(const DocumentView& doc);
// Findings with an evidence line of the document inside [firstLine, lastLine].
std::vector<FindingRef> findingsOnLines(const DocumentView& doc, uint64_t firstLine, uint64_t lastLine);

// What publishing a document's diagnostics sends: the whole-document diagnosis, published with
// the version it was made from (the worker may be behind the editor), and the diagnosed
// selection, which is always of the current text and so is sent only when both agree.
struct Publication {
  int version = 0;
  bool document = false;
  bool selection = false;
};
Publication publication(const DocumentView& doc);

// True for documents diagnosed automatically: log languages and *.log, *.out, *.err files.
bool isLogDocument(const std::string& uri, const std::string& path, const std::string& languageId);
// True for training scripts checked before the run: Python documents and *.py files.
bool isPythonDocument(const std::string& path, const std::string& languageId);
// True for JSON documents (DeepSpeed configs are checked; other JSON gets no finding).
bool isJsonDocument(const std::string& path, const std::string& languageId);
// True for a YAML document (languageId yaml, *.yaml, *.yml) that is checked: an Accelerate
// config (a top-level `distributed_type:` or `mixed_precision:`) or a training recipe
// (core::looksLikeTrainerRecipe). Other YAML (rule files above all, whose diagnostics are the
// rule loader's) is not checked.
bool isCheckedYamlDocument(const std::string& path, const std::string& languageId, std::string_view text);
// Documents checked before the run: Python scripts, JSON configs, Accelerate configs, recipes.
inline bool isCheckedDocument(const std::string& path, const std::string& languageId, std::string_view text) {
  return isPythonDocument(path, languageId) || isJsonDocument(path, languageId) || isCheckedYamlDocument(path, languageId, text);
}

class DocumentStore {
 public:
  // The worker's own state for one document: the diagnoser fed with a prefix of the text, so
  // that text appended to a growing log is all that needs scanning. Touched by the worker
  // thread only.
  struct Incremental {
    std::unique_ptr<core::Diagnoser> diagnoser;
    std::shared_ptr<const io::LoadedRules> rules;
    DocTextPtr fedText;
    size_t fedSize = 0;
  };

  void open(const std::string& uri, const std::string& languageId, int version, std::string text);
  // Applies LSP content changes (incremental ranges or full text) in order. Throws
  // LspError(InvalidParams) for a document that is not open or malformed changes.
  void change(const std::string& uri, int version, const json& changes, core::PositionEncoding enc);
  void close(const std::string& uri);
  // The line index of `text` (the document's text or one it had), made once per text: a 100 MB
  // log is not scanned for line starts by every request. Any thread.
  std::shared_ptr<const IndexedText> lineIndex(const std::string& uri, const DocTextPtr& text);

  std::optional<DocumentView> view(const std::string& uri) const;
  std::vector<DocumentView> views() const;

  void setSelection(const std::string& uri, std::shared_ptr<const core::Diagnosis> d);
  // Stores the whole-document diagnosis of `text` at `version`; ignored when the document was
  // closed meanwhile.
  void setDiagnosis(const std::string& uri, std::shared_ptr<const core::Diagnosis> d,
                    DocTextPtr text, int version);
  void clearDiagnosis(const std::string& uri);

  // For the worker: the document's current text and version, and its incremental state.
  // nullopt when it is not open.
  struct Work {
    DocTextPtr text;
    int version = 0;
    std::string name;  // the source name diagnoses give it
    std::shared_ptr<Incremental> incremental;
    // The first byte changed since the worker's last work() (SIZE_MAX: none): what the worker
    // fed before it is still the text's own, and need not be compared.
    size_t editedFrom = 0;
  };
  std::optional<Work> work(const std::string& uri);

 private:
  struct Doc;
  DocumentView viewOf(const Doc& d) const;

  mutable std::mutex mutex_;
  std::map<std::string, std::shared_ptr<Doc>> docs_;
};

}  // namespace denpex::lsp
