#include "tessera/jit/disk_cache.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>

namespace tessera::detail {
namespace {

constexpr char kMagic[4] = {'T', 'S', 'K', 'C'};
constexpr std::uint32_t kFormat = 1;
constexpr std::uint64_t kMaxPayload = std::uint64_t(1) << 30;

struct Header {
  char magic[4];
  std::uint32_t format;
  std::uint64_t size;
  std::uint64_t hash;
};

void warn(const std::string& message) { std::fprintf(stderr, "[tessera] kernel cache: %s\n", message.c_str()); }

// Reads exactly n bytes (false on a short read or an error).
bool read_all(int fd, char* data, std::size_t n) {
  while (n > 0) {
    const ssize_t got = ::read(fd, data, n);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    data += got, n -= static_cast<std::size_t>(got);
  }
  return true;
}

bool write_all(int fd, const char* data, std::size_t n) {
  while (n > 0) {
    const ssize_t put = ::write(fd, data, n);
    if (put < 0 && errno == EINTR) continue;
    if (put <= 0) return false;
    data += put, n -= static_cast<std::size_t>(put);
  }
  return true;
}

}  // namespace

std::uint64_t fnv1a(const void* data, std::size_t n, std::uint64_t h) {
  const unsigned char* p = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

DiskCache::DiskCache(std::string dir, std::string extension) : dir_(std::move(dir)), extension_(std::move(extension)) {}

std::string DiskCache::default_directory() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/tessera";
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/tessera";
  return "";
}

std::string DiskCache::path_for(std::uint64_t key) const {
  char name[32];
  std::snprintf(name, sizeof name, "%016llx", static_cast<unsigned long long>(key));
  return dir_ + "/" + name + extension_;
}

bool DiskCache::usable_directory() {
  std::call_once(checked_, [this] { usable_ = check_directory(); });
  return usable_;
}

bool DiskCache::check_directory() {
  if (dir_.empty()) return false;
  std::error_code ec;
  const std::filesystem::path parent = std::filesystem::path(dir_).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  if (::mkdir(dir_.c_str(), 0700) != 0 && errno != EEXIST) {
    warn("cannot create " + dir_ + " (" + std::strerror(errno) + "): kernels are cached in memory only");
    return false;
  }
  struct stat st {};
  if (::stat(dir_.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    warn(dir_ + " is not a folder: kernels are cached in memory only");
    return false;
  }
  if (st.st_uid != ::geteuid()) {
    warn(dir_ + " belongs to another user (uid " + std::to_string(st.st_uid) + "): kernels are cached in memory only");
    return false;
  }
  if ((st.st_mode & 077) != 0 && ::chmod(dir_.c_str(), 0700) != 0) {
    warn("cannot make " + dir_ + " private (" + std::strerror(errno) + "): kernels are cached in memory only");
    return false;
  }
  return true;
}

bool DiskCache::read(std::uint64_t key, std::vector<char>& out) {
  out.clear();
  if (!usable_directory()) return false;
  const std::string path = path_for(key);
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    if (errno != ENOENT) warn(path + " cannot be opened (" + std::strerror(errno) + "): compiling the kernel again");
    return false;  // not cached yet: not worth a message
  }
  std::string problem;
  struct stat st {};
  Header h{};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    problem = "not a regular file";
  } else if (st.st_uid != ::geteuid()) {
    problem = "owned by uid " + std::to_string(st.st_uid) + ", not by this user";
  } else if ((st.st_mode & 022) != 0) {
    problem = "writable by other users";
  } else if (!read_all(fd, reinterpret_cast<char*>(&h), sizeof h) || std::memcmp(h.magic, kMagic, 4) != 0 ||
             h.format != kFormat) {
    problem = "not a tessera kernel cache entry of format " + std::to_string(kFormat);
  } else if (h.size > kMaxPayload) {
    problem = "implausible size " + std::to_string(h.size);
  } else {
    out.resize(h.size);
    char extra = 0;
    if (!read_all(fd, out.data(), out.size()) || ::read(fd, &extra, 1) != 0)
      problem = "truncated or of the wrong size";
    else if (fnv1a(out.data(), out.size()) != h.hash)
      problem = "checksum mismatch";
  }
  ::close(fd);
  if (problem.empty()) return true;
  warn(path + " is unusable (" + problem + "): compiling the kernel again and replacing it");
  out.clear();
  return false;
}

void write_generated_source(const std::string& dir, std::uint64_t hash, const std::string& extension,
                            const std::string& source) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  char name[32];
  std::snprintf(name, sizeof name, "%016llx", static_cast<unsigned long long>(hash));
  const std::string path = dir + "/" + name + extension;
  std::random_device entropy;
  const std::string tmp = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(entropy());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  const bool ok = fd >= 0 && write_all(fd, source.data(), source.size());
  if (fd >= 0 && ::close(fd) == 0 && ok && ::rename(tmp.c_str(), path.c_str()) == 0) return;
  std::fprintf(stderr, "[tessera] TESSERA_JIT_SOURCES: cannot write %s (%s)\n", path.c_str(), std::strerror(errno));
  ::unlink(tmp.c_str());
}

void DiskCache::write(std::uint64_t key, const std::vector<char>& payload) {
  if (!usable_directory()) return;
  const std::string path = path_for(key);
  std::random_device entropy;
  const std::string tmp = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(entropy());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) {
    warn("cannot create " + tmp + " (" + std::strerror(errno) + "): this kernel is cached in memory only");
    return;
  }
  Header h{};
  std::memcpy(h.magic, kMagic, 4);
  h.format = kFormat;
  h.size = payload.size();
  h.hash = fnv1a(payload.data(), payload.size());
  const bool ok =
      write_all(fd, reinterpret_cast<const char*>(&h), sizeof h) && write_all(fd, payload.data(), payload.size());
  if (::close(fd) != 0 || !ok) {
    warn("cannot write " + tmp + ": this kernel is cached in memory only");
    ::unlink(tmp.c_str());
    return;
  }
  // rename() replaces atomically: a reader sees the old entry or the new one, never a mix.
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    warn("cannot rename " + tmp + " to " + path + ": " + std::strerror(errno));
    ::unlink(tmp.c_str());
  }
}

}  // namespace tessera::detail
