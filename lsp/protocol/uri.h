// file:// URIs <-> paths, with percent-encoding as VS Code writes it. Pure.
#pragma once

#include <string>

namespace denpex::lsp {

// The local path of a file:// URI (empty host or localhost); "" for another scheme or host.
std::string uriToPath(const std::string& uri);
// The file:// URI of an absolute path.
std::string pathToUri(const std::string& path);

}  // namespace denpex::lsp
