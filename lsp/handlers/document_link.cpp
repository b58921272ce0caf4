// textDocument/documentLink: `File "train.py", line 42` frames open the file at that line, the
// same file the quick fix edits (both ask the server's one frame resolver).
#include <filesystem>
#include <map>

#include "core/parse/traceback.h"
#include "lsp/handlers/handlers.h"
#include "lsp/protocol/from_proto.h"
#include "lsp/protocol/to_proto.h"
#include "lsp/server/server.h"

namespace denpex::lsp::handlers {

namespace fs = std::filesystem;

json documentLink(Server& server, const json& params) {
  auto doc = server.documents().view(documentUri(params));
  json links = json::array();
  if (!doc) return links;
  auto sources = server.sources();
  std::string_view text = doc->text->view();
  auto indexed = server.documents().lineIndex(doc->uri, doc->text);
  const core::LineIndex& index = indexed->index;
  std::map<std::string, std::optional<fs::path>> resolved;  // each frame path is looked up once
  const std::string marker = "File \"";
  size_t at = 0;
  while ((at = text.find(marker, at)) != std::string::npos) {
    size_t pathBegin = at + marker.size();
    at = pathBegin;
    size_t close = text.find('"', pathBegin);
    size_t eol = text.find('\n', pathBegin);
    if (close == std::string::npos || (eol != std::string::npos && close > eol)) continue;
    if (text.compare(close, 8, "\", line ") != 0) continue;
    int line = std::atoi(std::string(text.substr(close + 8, 12)).c_str());
    std::string path(text.substr(pathBegin, close - pathBegin));
    if (!core::isUserFile(path)) continue;  // library frames: not the user's to open and edit
    auto cached = resolved.find(path);
    if (cached == resolved.end()) cached = resolved.emplace(path, sources->resolver().resolve(path)).first;
    if (!cached->second) continue;
    std::string target = pathToUri(cached->second->string());
    if (line > 0) target += "#L" + std::to_string(line);
    json range = toRange(index.toPosition(pathBegin, server.encoding()), index.toPosition(close, server.encoding()));
    links.push_back(toDocumentLink(range, target, "Open " + fs::path(path).filename().string() + " at line " + std::to_string(line)));
  }
  return links;
}

}  // namespace denpex::lsp::handlers
