// textDocument/documentLink: `File "train.py", line 42` frames open the file at that line.
#include <filesystem>
#include <map>

#include "cli/disk_sources.h"
#include "core/log_parser.h"
#include "lsp/server.h"

namespace denpex::lsp {

namespace fs = std::filesystem;

void registerDocumentLinks(Server& server) {
  server.onRequest("textDocument/documentLink", [&server](const json& params) -> json {
    std::string uri = member(member(params, "textDocument"), "uri").get<std::string>();
    auto doc = server.document(uri);
    json links = json::array();
    if (!doc) return links;
    std::vector<cli::DiskSources> roots;
    for (const auto& r : server.workspaceRoots()) roots.emplace_back(r);
    const std::string& text = *doc->text;
    core::LineIndex index(text);
    std::error_code ec;
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
      int line = std::atoi(text.c_str() + close + 8);
      std::string path = text.substr(pathBegin, close - pathBegin);
      if (!core::isUserFile(path)) continue;  // library frames: not the user's to open and edit
      auto cached = resolved.find(path);
      if (cached == resolved.end()) {
        std::optional<fs::path> found;
        if (fs::path(path).is_absolute() && fs::is_regular_file(path, ec)) found = fs::path(path);
        for (auto& root : roots) {
          if (found) break;
          found = root.resolve(path);
        }
        cached = resolved.emplace(path, found).first;
      }
      const std::optional<fs::path>& target = cached->second;
      if (!target) continue;
      std::string targetUri = pathToUri(fs::absolute(*target, ec).lexically_normal().string());
      if (line > 0) targetUri += "#L" + std::to_string(line);
      links.push_back({{"range", {{"start", toJson(index.toPosition(pathBegin, server.encoding()))},
                                  {"end", toJson(index.toPosition(close, server.encoding()))}}},
                       {"target", targetUri},
                       {"tooltip", "Open " + fs::path(path).filename().string() + " at line " + std::to_string(line)}});
    }
    return links;
  });
}

}  // namespace denpex::lsp
