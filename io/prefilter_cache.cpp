// Compiled prefilters cached on disk (see prefilter_cache.h).
#include "io/prefilter_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <system_error>

namespace denpex::io {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kMagic = "denpex-prefilter-cache-1\n";
constexpr size_t kMaxFileBytes = 256u << 20;
constexpr size_t kMaxFiles = 16;

// What the database was compiled from, in full: compared byte for byte before it is used.
std::string keyOf(const core::Matcher& matcher, const std::vector<core::PrefilterLiteral>& literals) {
  std::string key;
  auto add = [&](std::string_view s) {
    key += std::to_string(s.size());
    key += ':';
    key += s;
  };
  for (size_t i = 0; i < matcher.patternCount(); ++i) add(matcher.patternText(i));
  key += "|literals|";
  for (const auto& l : literals) {
    add(l.text);
    key += l.caseless ? 'i' : '-';
  }
  return key;
}

fs::path fileFor(const fs::path& dir, const core::Matcher& matcher, const std::vector<core::PrefilterLiteral>& literals) {
  char name[64];
  std::snprintf(name, sizeof name, "prefilter-%016llx.bin",
                static_cast<unsigned long long>(core::Prefilter::fingerprint(matcher, literals)));
  return dir / name;
}

// Owned by this user and writable by no one else.
bool ownedAndPrivate(const struct stat& st) { return st.st_uid == ::geteuid() && (st.st_mode & (S_IWGRP | S_IWOTH)) == 0; }

}  // namespace

std::optional<fs::path> prefilterCacheDir() {
  if (const char* d = std::getenv("DENPEX_CACHE_DIR"); d && *d) {
    if (std::string_view(d) == "off") return std::nullopt;
    return fs::path(d);
  }
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x == '/') return fs::path(x) / "denpex";
  if (const char* h = std::getenv("HOME"); h && *h == '/') return fs::path(h) / ".cache" / "denpex";
  return std::nullopt;
}

std::unique_ptr<core::Prefilter> loadCachedPrefilter(const core::Matcher& matcher,
                                                     const std::vector<core::PrefilterLiteral>& literals) {
  auto dir = prefilterCacheDir();
  if (!dir) return nullptr;
  struct stat st {};
  if (::lstat(dir->c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || !ownedAndPrivate(st)) return nullptr;
  fs::path file = fileFor(*dir, matcher, literals);
  int fd = ::open(file.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return nullptr;
  std::string bytes;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && ownedAndPrivate(st) && static_cast<size_t>(st.st_size) <= kMaxFileBytes) {
    bytes.resize(static_cast<size_t>(st.st_size));
    size_t got = 0;
    while (got < bytes.size()) {
      ssize_t n = ::read(fd, bytes.data() + got, bytes.size() - got);
      if (n <= 0) break;
      got += static_cast<size_t>(n);
    }
    bytes.resize(got);
  }
  ::close(fd);
  std::string_view in(bytes);
  if (in.substr(0, kMagic.size()) != kMagic) return nullptr;
  in.remove_prefix(kMagic.size());
  std::string key = keyOf(matcher, literals);
  size_t nl = in.find('\n');
  if (nl == std::string_view::npos || in.substr(0, nl) != std::to_string(key.size())) return nullptr;
  in.remove_prefix(nl + 1);
  if (in.substr(0, key.size()) != key) return nullptr;  // other patterns under the same hash
  in.remove_prefix(key.size());
  return core::Prefilter::load(matcher, literals, in);
}

bool storeCachedPrefilter(const core::Matcher& matcher, const std::vector<core::PrefilterLiteral>& literals,
                          const core::Prefilter& prefilter) {
  auto dir = prefilterCacheDir();
  if (!dir) return false;
  std::string saved = prefilter.save();
  if (saved.empty()) return false;
  std::error_code ec;
  fs::create_directories(*dir, ec);
  struct stat st {};
  if (::lstat(dir->c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || !ownedAndPrivate(st)) return false;
  std::string key = keyOf(matcher, literals);
  std::string out(kMagic);
  out += std::to_string(key.size());
  out += '\n';
  out += key;
  out += saved;
  if (out.size() > kMaxFileBytes) return false;
  fs::path file = fileFor(*dir, matcher, literals);
  fs::path tmp = file;
  tmp += "." + std::to_string(::getpid()) + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  size_t done = 0;
  while (done < out.size()) {
    ssize_t n = ::write(fd, out.data() + done, out.size() - done);
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  bool ok = done == out.size() && ::close(fd) == 0;
  if (!ok || ::rename(tmp.c_str(), file.c_str()) != 0) {
    ::unlink(tmp.c_str());
    return false;
  }
  // Keep the newest kMaxFiles.
  std::vector<std::pair<fs::file_time_type, fs::path>> files;
  for (const auto& e : fs::directory_iterator(*dir, ec)) {
    std::string name = e.path().filename().string();
    if (name.rfind("prefilter-", 0) == 0 && e.path().extension() == ".bin") files.emplace_back(e.last_write_time(ec), e.path());
  }
  if (files.size() > kMaxFiles) {
    std::sort(files.begin(), files.end());
    for (size_t i = 0; i + kMaxFiles < files.size(); ++i) fs::remove(files[i].second, ec);
  }
  return true;
}

}  // namespace denpex::io
