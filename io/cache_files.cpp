// Files in the cache folder (see cache_files.h).
#include "io/cache_files.h"

#include <fcntl.h>
#include <link.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <system_error>
#include <utility>
#include <vector>

namespace denpex::io {

namespace fs = std::filesystem;

namespace {

// Owned by this user and writable by no one else.
bool ownedAndPrivate(const struct stat& st) { return st.st_uid == ::geteuid() && (st.st_mode & (S_IWGRP | S_IWOTH)) == 0; }

// The cache folder, when it exists and is safe to use.
std::optional<fs::path> privateDir(bool create) {
  auto dir = cacheDir();
  if (!dir) return std::nullopt;
  std::error_code ec;
  if (create) fs::create_directories(*dir, ec);
  struct stat st {};
  if (::lstat(dir->c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || !ownedAndPrivate(st)) return std::nullopt;
  return dir;
}

}  // namespace

std::optional<fs::path> cacheDir() {
  if (const char* d = std::getenv("DENPEX_CACHE_DIR"); d && *d) {
    if (std::string_view(d) == "off") return std::nullopt;
    return fs::path(d);
  }
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x == '/') return fs::path(x) / "denpex";
  if (const char* h = std::getenv("HOME"); h && *h == '/') return fs::path(h) / ".cache" / "denpex";
  return std::nullopt;
}

std::optional<std::string> readCacheFile(const std::string& name, size_t maxBytes) {
  auto dir = privateDir(false);
  if (!dir) return std::nullopt;
  int fd = ::open((*dir / name).c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::optional<std::string> bytes;
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && ownedAndPrivate(st) && static_cast<size_t>(st.st_size) <= maxBytes) {
    bytes.emplace(static_cast<size_t>(st.st_size), '\0');
    size_t got = 0;
    while (got < bytes->size()) {
      ssize_t n = ::read(fd, bytes->data() + got, bytes->size() - got);
      if (n <= 0) break;
      got += static_cast<size_t>(n);
    }
    bytes->resize(got);
  }
  ::close(fd);
  return bytes;
}

bool writeCacheFile(const std::string& name, std::string_view bytes) {
  auto dir = privateDir(true);
  if (!dir) return false;
  fs::path file = *dir / name;
  fs::path tmp = file;
  tmp += "." + std::to_string(::getpid()) + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  const bool written = done == bytes.size();
  const bool closed = ::close(fd) == 0;
  if (!written || !closed || ::rename(tmp.c_str(), file.c_str()) != 0) {
    ::unlink(tmp.c_str());
    return false;
  }
  return true;
}

std::optional<std::string> readKeyedCacheFile(const std::string& name, std::string_view magic, std::string_view key,
                                              size_t maxBytes) {
  auto bytes = readCacheFile(name, maxBytes);
  if (!bytes) return std::nullopt;
  std::string_view in(*bytes);
  if (in.substr(0, magic.size()) != magic) return std::nullopt;
  in.remove_prefix(magic.size());
  size_t nl = in.find('\n');
  if (nl == std::string_view::npos || in.substr(0, nl) != std::to_string(key.size())) return std::nullopt;
  in.remove_prefix(nl + 1);
  if (in.substr(0, key.size()) != key) return std::nullopt;  // made from something else under the same hash
  return std::string(in.substr(key.size()));
}

bool writeKeyedCacheFile(const std::string& name, std::string_view magic, std::string_view key, std::string_view payload,
                         size_t maxBytes) {
  std::string out(magic);
  out += std::to_string(key.size());
  out += '\n';
  out += key;
  out += payload;
  return out.size() <= maxBytes && writeCacheFile(name, out);
}

void keepNewestCacheFiles(std::string_view prefix, size_t keep) {
  auto dir = privateDir(false);
  if (!dir) return;
  std::error_code ec;
  std::vector<std::pair<fs::file_time_type, fs::path>> files;
  for (const auto& e : fs::directory_iterator(*dir, ec)) {
    std::string name = e.path().filename().string();
    if (name.rfind(prefix, 0) == 0 && e.path().extension() == ".bin") files.emplace_back(e.last_write_time(ec), e.path());
  }
  if (files.size() <= keep) return;
  std::sort(files.begin(), files.end());
  for (size_t i = 0; i + keep < files.size(); ++i) fs::remove(files[i].second, ec);
}

std::string_view thisBuild() {
  static const std::string& id = *new std::string([] {
    std::string out;
    // The first object dl_iterate_phdr names is the executable itself (a static one too).
    dl_iterate_phdr(
        [](struct dl_phdr_info* info, size_t, void* data) -> int {
          auto& found = *static_cast<std::string*>(data);
          for (int i = 0; i < info->dlpi_phnum; ++i) {
            const ElfW(Phdr)& ph = info->dlpi_phdr[i];
            if (ph.p_type != PT_NOTE) continue;
            const char* at = reinterpret_cast<const char*>(info->dlpi_addr + ph.p_vaddr);
            const char* end = at + ph.p_memsz;
            while (static_cast<size_t>(end - at) >= sizeof(ElfW(Nhdr))) {
              ElfW(Nhdr) note;
              std::memcpy(&note, at, sizeof note);
              const char* name = at + sizeof note;
              const char* desc = name + ((note.n_namesz + 3) & ~3u);
              const char* next = desc + ((note.n_descsz + 3) & ~3u);
              if (next > end || next < desc) break;
              if (note.n_type == NT_GNU_BUILD_ID && note.n_namesz == 4 && std::memcmp(name, "GNU", 4) == 0) {
                found.assign(desc, note.n_descsz);
                return 1;
              }
              at = next;
            }
          }
          return 1;
        },
        &out);
    return out;
  }());
  return id;
}

}  // namespace denpex::io
