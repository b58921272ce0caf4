// Reading files (see files.h).
#include "io/files.h"

#include "core/base/text.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace denpex::io {

namespace fs = std::filesystem;

std::optional<ReadLimits> namedConfigLimits(const fs::path& path) {
  if (path.extension() != ".json") return std::nullopt;
  ReadLimits limits;
  limits.regularOnly = true;
  limits.maxBytes = 1u << 20;
  return limits;
}

namespace {

// Opens a file to read, or says why not: what readFile and openLogStream share. `size` is the
// size of a regular file (0 for anything else).
std::optional<std::ifstream> openChecked(const fs::path& path, std::string& error, ReadLimits limits, uintmax_t& size) {
  size = 0;
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
  if (limits.regularOnly && !fs::is_regular_file(status)) {
    error = path.string() + ": not a regular file (a FIFO, a socket or a device is not read)";
    return std::nullopt;
  }
  if (fs::is_regular_file(status)) {
    size = fs::file_size(path, ec);
    if (ec) size = 0;
    if (!ec && size > limits.maxBytes) {
      error = path.string() + ": " + std::to_string(size >> 20) + " MiB, over the limit of " + std::to_string(limits.maxBytes >> 20) + " MiB";
      return std::nullopt;
    }
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = path.string() + ": cannot be read (permission denied?)";
    return std::nullopt;
  }
  return in;
}

}  // namespace

std::optional<std::string> readFile(const fs::path& path, std::string& error, ReadLimits limits) {
  uintmax_t size = 0;
  auto in = openChecked(path, error, limits, size);
  if (!in) return std::nullopt;
  std::ostringstream buf;
  buf << in->rdbuf();
  if (in->bad()) {
    error = path.string() + ": read error";
    return std::nullopt;
  }
  return buf.str();
}

std::optional<std::ifstream> openLogStream(const fs::path& path, std::string& error, uintmax_t* size) {
  ReadLimits limits;
  limits.regularOnly = true;
  uintmax_t bytes = 0;
  auto in = openChecked(path, error, limits, bytes);
  if (in && size) *size = bytes;
  return in;
}

std::optional<std::map<uint64_t, std::string>> readLinesAt(const fs::path& path, std::vector<uint64_t> lines,
                                                          std::string& error, size_t maxLineBytes) {
  std::sort(lines.begin(), lines.end());
  lines.erase(std::unique(lines.begin(), lines.end()), lines.end());
  std::map<uint64_t, std::string> out;
  if (lines.empty()) return out;
  auto in = openLogStream(path, error);
  if (!in) return std::nullopt;
  std::string buffer(size_t{1} << 20, '\0');
  uint64_t line = 0;       // the line the next byte belongs to
  size_t want = 0;         // lines[want]: the next line asked for
  std::string* taking = lines[0] == 0 ? &out[0] : nullptr;  // the line being copied
  while (want < lines.size() && *in) {
    in->read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    const size_t got = static_cast<size_t>(in->gcount());
    if (got == 0) break;
    // A read that ends before the next line asked for, and is in no such line: its lines are
    // only counted (a call per line cost more than the reading).
    if (!taking) {
      const uint64_t ends = core::text::countByte(std::string_view(buffer.data(), got), '\n');
      if (line + ends < lines[want]) {
        line += ends;
        continue;
      }
    }
    for (size_t at = 0; at < got && want < lines.size();) {
      const void* nl = std::memchr(buffer.data() + at, '\n', got - at);
      const size_t end = nl ? static_cast<size_t>(static_cast<const char*>(nl) - buffer.data()) : got;
      if (taking && taking->size() < maxLineBytes)
        taking->append(buffer.data() + at, std::min(end - at, maxLineBytes - taking->size()));
      if (!nl) break;  // the line goes on in the next read
      if (taking) {
        if (!taking->empty() && taking->back() == '\r') taking->pop_back();
        taking = nullptr;
        ++want;
      }
      ++line;
      if (want < lines.size() && lines[want] == line) taking = &out[line];
      at = end + 1;
    }
  }
  if (in->bad()) {
    error = path.string() + ": read error";
    return std::nullopt;
  }
  // The last line, when the file ends without a '\n'.
  if (taking && !taking->empty() && taking->back() == '\r') taking->pop_back();
  return out;
}

bool replaceFile(const std::filesystem::path& path, const std::string& expected, const std::string& contents,
                 std::string& error) {
  const std::string shown = path.string();
  struct stat st {};
  if (::lstat(shown.c_str(), &st) != 0) {
    error = shown + ": " + std::strerror(errno) + "; not written";
    return false;
  }
  if (S_ISLNK(st.st_mode)) {
    error = shown + ": is a symbolic link; not written (fix the file it points to, by its own path)";
    return false;
  }
  if (!S_ISREG(st.st_mode)) {
    error = shown + ": not a regular file; not written";
    return false;
  }
  if (st.st_nlink > 1) {
    error = shown + ": has " + std::to_string(st.st_nlink) + " hard links, which would keep the old text; not written";
    return false;
  }
  // No write bit for anyone (which root's access() would not see), or none for this user.
  if ((st.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)) == 0 || ::access(shown.c_str(), W_OK) != 0) {
    error = shown + ": is read-only; not written";
    return false;
  }
  // The temporary file: created exclusively (mkstemp), in the same folder so that the rename
  // is atomic, hidden, with a random name.
  std::string tmp = (path.parent_path() / ("." + path.filename().string() + ".denpex-XXXXXX")).string();
  int fd = ::mkstemp(tmp.data());
  if (fd < 0) {
    error = shown + ": cannot create a temporary file beside it (" + std::strerror(errno) + "); not written";
    return false;
  }
  auto fail = [&](const std::string& why) {
    ::close(fd);
    ::unlink(tmp.c_str());
    error = shown + ": " + why + "; not written";
    return false;
  };
  for (size_t done = 0; done < contents.size();) {
    ssize_t n = ::write(fd, contents.data() + done, contents.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return fail(std::string("cannot write the temporary file (") + std::strerror(errno) + ")");
    done += static_cast<size_t>(n);
  }
  if (::fchmod(fd, st.st_mode & 07777) != 0) return fail(std::string("cannot keep its mode (") + std::strerror(errno) + ")");
  if ((st.st_uid != ::geteuid() || st.st_gid != ::getegid()) && ::fchown(fd, st.st_uid, st.st_gid) != 0)
    return fail(std::string("cannot keep its owner and group (") + std::strerror(errno) + ")");
  if (::fsync(fd) != 0) return fail(std::string("cannot write the temporary file (") + std::strerror(errno) + ")");
  if (::close(fd) != 0) {
    ::unlink(tmp.c_str());
    error = shown + ": cannot write the temporary file; not written";
    return false;
  }
  fd = -1;
  // The last look before the rename: the same file, with the same text.
  std::string readError;
  auto now = readFile(path, readError);
  struct stat again {};
  if (!now || *now != expected || ::lstat(shown.c_str(), &again) != 0 || again.st_ino != st.st_ino || again.st_dev != st.st_dev) {
    ::unlink(tmp.c_str());
    error = shown + ": changed since it was read; not written";
    return false;
  }
  if (::rename(tmp.c_str(), shown.c_str()) != 0) {
    int e = errno;
    ::unlink(tmp.c_str());
    error = shown + ": cannot replace it (" + std::strerror(e) + "); not written";
    return false;
  }
  return true;
}

fs::path projectRoot(const fs::path& folder) {
  std::error_code ec;
  fs::path start = fs::absolute(folder, ec).lexically_normal();
  if (ec) return folder;
  if (start.has_filename() == false && start.has_parent_path() && start != start.root_path()) start = start.parent_path();
  for (fs::path p = start;; p = p.parent_path()) {
    if (fs::exists(p / ".git", ec)) return p;
    if (p == p.root_path() || p.parent_path() == p) break;
  }
  return start;
}

std::optional<std::filesystem::path> installedDocs() {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec || exe.empty()) return std::nullopt;
  fs::path dir = exe.parent_path();
  for (const fs::path& candidate : {dir / "docs", dir.parent_path() / "docs", dir.parent_path().parent_path() / "docs",
                                    dir.parent_path() / "share" / "denpex" / "docs"}) {
    if (fs::is_regular_file(candidate / "rules" / "README.md", ec)) return fs::weakly_canonical(candidate, ec);
  }
  return std::nullopt;
}

}  // namespace denpex::io
