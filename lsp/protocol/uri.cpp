// file:// URIs (see uri.h).
#include "lsp/protocol/uri.h"

#include <cctype>

namespace denpex::lsp {

std::string uriToPath(const std::string& uri) {
  const std::string scheme = "file://";
  if (uri.compare(0, scheme.size(), scheme) != 0) return "";
  std::string rest = uri.substr(scheme.size());
  // file://host/path: only local files (empty host or localhost) are paths here.
  size_t slash = rest.find('/');
  if (slash == std::string::npos) return "";
  std::string host = rest.substr(0, slash);
  if (!host.empty() && host != "localhost") return "";
  std::string out;
  for (size_t i = slash; i < rest.size(); ++i) {
    char c = rest[i];
    if (c == '%' && i + 2 < rest.size() && std::isxdigit(static_cast<unsigned char>(rest[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(rest[i + 2]))) {
      out.push_back(static_cast<char>(std::stoi(rest.substr(i + 1, 2), nullptr, 16)));
      i += 2;
    } else if (c == '#' || c == '?') {
      break;
    } else {
      out.push_back(c);
    }
  }
  return out;
}

std::string pathToUri(const std::string& path) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out = "file://";
  for (unsigned char c : path) {
    if (std::isalnum(c) || c == '/' || c == '-' || c == '.' || c == '_' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

}  // namespace denpex::lsp
