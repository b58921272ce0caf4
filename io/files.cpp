// Reading files (see files.h).
#include "io/files.h"

#include <fstream>
#include <sstream>

namespace denpex::io {

namespace fs = std::filesystem;

std::optional<std::string> readFile(const fs::path& path, std::string& error) {
  std::error_code ec;
  auto status = fs::status(path, ec);
  if (ec || !fs::exists(status)) {
    error = path.string() + ": no such file";
    return std::nullopt;
  }
  if (fs::is_directory(status)) {
    error = path.string() + ": is a directory";
    return std::nullopt;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = path.string() + ": cannot be read (permission denied?)";
    return std::nullopt;
  }
  std::ostringstream buf;
  buf << in.rdbuf();
  if (in.bad()) {
    error = path.string() + ": read error";
    return std::nullopt;
  }
  return buf.str();
}

}  // namespace denpex::io
