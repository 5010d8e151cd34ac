//===- Support.cpp - Internal helpers of the dlc runtime ------------------===//

#include "runtime/Support.h"
#include "runtime/SafeFile.h"

#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fcntl.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace dlc::rt {

uint64_t fnv1a64(const void *data, size_t size) {
  Fnv1a64 h;
  h.update(data, size);
  return h.digest();
}

namespace {
constexpr uint64_t kXxPrime1 = 0x9E3779B185EBCA87ull;
constexpr uint64_t kXxPrime2 = 0xC2B2AE3D27D4EB4Full;
constexpr uint64_t kXxPrime3 = 0x165667B19E3779F9ull;
constexpr uint64_t kXxPrime4 = 0x85EBCA77C2B2AE63ull;
constexpr uint64_t kXxPrime5 = 0x27D4EB2F165667C5ull;

inline uint64_t rotl64(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }
// Little-endian loads (the package format is little-endian; so is every
// host dlc builds for).
inline uint64_t load64(const uint8_t *p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
inline uint32_t load32(const uint8_t *p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
inline uint64_t xxRound(uint64_t acc, uint64_t input) {
  acc += input * kXxPrime2;
  return rotl64(acc, 31) * kXxPrime1;
}
inline uint64_t xxMerge(uint64_t acc, uint64_t lane) {
  acc ^= xxRound(0, lane);
  return acc * kXxPrime1 + kXxPrime4;
}
} // namespace

uint64_t xxh64(const void *data, size_t size, uint64_t seed) {
  const auto *p = static_cast<const uint8_t *>(data);
  const uint8_t *const end = p + size;
  uint64_t h;
  if (size >= 32) {
    uint64_t v1 = seed + kXxPrime1 + kXxPrime2, v2 = seed + kXxPrime2,
             v3 = seed, v4 = seed - kXxPrime1;
    const uint8_t *const limit = end - 32;
    do {
      v1 = xxRound(v1, load64(p));
      v2 = xxRound(v2, load64(p + 8));
      v3 = xxRound(v3, load64(p + 16));
      v4 = xxRound(v4, load64(p + 24));
      p += 32;
    } while (p <= limit);
    h = rotl64(v1, 1) + rotl64(v2, 7) + rotl64(v3, 12) + rotl64(v4, 18);
    h = xxMerge(h, v1);
    h = xxMerge(h, v2);
    h = xxMerge(h, v3);
    h = xxMerge(h, v4);
  } else {
    h = seed + kXxPrime5;
  }
  h += uint64_t(size);
  for (; end - p >= 8; p += 8) {
    h ^= xxRound(0, load64(p));
    h = rotl64(h, 27) * kXxPrime1 + kXxPrime4;
  }
  if (end - p >= 4) {
    h ^= uint64_t(load32(p)) * kXxPrime1;
    h = rotl64(h, 23) * kXxPrime2 + kXxPrime3;
    p += 4;
  }
  for (; p < end; ++p) {
    h ^= uint64_t(*p) * kXxPrime5;
    h = rotl64(h, 11) * kXxPrime1;
  }
  h ^= h >> 33;
  h *= kXxPrime2;
  h ^= h >> 29;
  h *= kXxPrime3;
  h ^= h >> 32;
  return h;
}

std::string hex64(uint64_t value) {
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%016llx", (unsigned long long)value);
  return buf;
}

std::string formatBytes(uint64_t bytes) {
  if (bytes < 1024)
    return std::to_string(bytes) + (bytes == 1 ? " byte" : " bytes");
  static const char *const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB"};
  double v = double(bytes) / 1024;
  size_t u = 0;
  // Round first, so that 1048575 bytes reads "1 MiB", not "1024 KiB".
  while (u + 1 < sizeof(units) / sizeof(units[0]) &&
         std::round(v * 10) / 10 >= 1024) {
    v /= 1024;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1f", v);
  std::string s = buf;
  if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0)
    s.resize(s.size() - 2);
  return s + " " + units[u];
}

Result<uint64_t> parseByteSize(const std::string &text) {
  auto bad = [&](const std::string &why) -> Result<uint64_t> {
    return Status::error("'" + text + "' " + why);
  };
  size_t digits = 0;
  while (digits < text.size() &&
         std::isdigit(static_cast<unsigned char>(text[digits])))
    ++digits;
  if (digits == 0)
    return bad("is not a byte count (digits, then optionally K, M, G, T or "
               "KiB, MiB, GiB, TiB)");
  static const std::pair<const char *, unsigned> kSuffixes[] = {
      {"", 0},     {"B", 0},  {"K", 10},   {"KiB", 10}, {"M", 20},
      {"MiB", 20}, {"G", 30}, {"GiB", 30}, {"T", 40},   {"TiB", 40}};
  const std::string suffix = text.substr(digits);
  const unsigned *shift = nullptr;
  for (const auto &[name, bits] : kSuffixes)
    if (suffix == name)
      shift = &bits;
  if (!shift)
    return bad("has an unknown unit '" + suffix +
               "' (K, M, G, T or KiB, MiB, GiB, TiB)");
  Checked value = 0;
  for (size_t i = 0; i < digits; ++i)
    value = value * 10 + uint64_t(text[i] - '0');
  value *= uint64_t(1) << *shift;
  if (!value.ok())
    return bad("is 2^64 bytes or more");
  if (*value.value() == 0)
    return bad("is no memory at all (give a positive size)");
  return *value.value();
}

MemoryLimit hostMemoryLimit() {
  MemoryLimit limit;
  long pages = ::sysconf(_SC_PHYS_PAGES), pageSize = ::sysconf(_SC_PAGESIZE);
  limit.bytes = pages > 0 && pageSize > 0
                    ? (Checked(uint64_t(pages)) * uint64_t(pageSize))
                          .valueOr(~uint64_t(0))
                    : ~uint64_t(0);
  limit.what = "the host has";
  struct rlimit as;
  if (::getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY &&
      uint64_t(as.rlim_cur) < limit.bytes) {
    limit.bytes = uint64_t(as.rlim_cur);
    limit.what = "the address-space limit (RLIMIT_AS) is";
  }
  return limit;
}

Status checkHostAllocation(Checked bytes, const std::string &what) {
  if (!bytes.ok())
    return Status::error(what + " needs 2^64 bytes or more of host memory");
  // Small allocations are not worth the system calls.
  if (*bytes.value() < (uint64_t(1) << 20))
    return Status::ok();
  MemoryLimit limit = hostMemoryLimit();
  if (*bytes.value() > limit.bytes)
    return Status::error(what + " needs " + formatBytes(*bytes.value()) +
                         " of host memory but " + limit.what + " " +
                         formatBytes(limit.bytes));
  return Status::ok();
}

Result<MappedFile> MappedFile::open(const std::string &path) {
  // A regular file only (RegularFile): a FIFO neither blocks the open nor
  // maps, and the size mapped is the size fstat gave.
  Result<RegularFile> file = RegularFile::open(path);
  if (!file)
    return file.status();
  if (file->size() > uint64_t(SIZE_MAX))
    return Status::error(file->error("the file is too large to map"));
  size_t size = size_t(file->size());
  void *p = nullptr;
  if (size > 0) {
    p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, file->fd(), 0);
    if (p == MAP_FAILED)
      return Status::error(
          file->error(std::string("cannot map: ") + std::strerror(errno)));
  }
  return MappedFile(static_cast<const uint8_t *>(p), size);
}

MappedFile::MappedFile(MappedFile &&other) noexcept
    : data_(other.data_), size_(other.size_) {
  other.data_ = nullptr;
  other.size_ = 0;
}

MappedFile::~MappedFile() {
  if (data_)
    ::munmap(const_cast<uint8_t *>(data_), size_);
}

std::string uniqueSuffix() {
  static std::atomic<uint64_t> counter{0};
  uint64_t n = counter.fetch_add(1);
  uint64_t t =
      uint64_t(std::chrono::steady_clock::now().time_since_epoch().count());
  return std::to_string(::getpid()) + "." + std::to_string(n) + "." +
         hex64(t).substr(8);
}

static Status writeAll(int fd, const void *data, size_t size,
                       const std::string &path) {
  const auto *p = static_cast<const uint8_t *>(data);
  while (size > 0) {
    ssize_t n = ::write(fd, p, size);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return Status::error(path + ": write failed: " + std::strerror(errno));
    }
    p += n;
    size -= size_t(n);
  }
  return Status::ok();
}

Status checkOutputPath(const std::string &path,
                       const std::vector<std::string> &inputs) {
  if (path == "-")
    return Status::ok();
  struct stat out;
  if (::stat(path.c_str(), &out) != 0) {
    if (errno == ENOENT)
      return Status::ok();
    return Status::error(path + ": cannot write: " + std::strerror(errno));
  }
  if (!S_ISREG(out.st_mode))
    return Status::error(path +
                         ": not a regular file; refusing to replace it with "
                         "an output");
  for (const std::string &input : inputs) {
    struct stat in;
    if (input.empty() || input == "-" || ::stat(input.c_str(), &in) != 0)
      continue;
    if (in.st_dev == out.st_dev && in.st_ino == out.st_ino)
      return Status::error(path + ": the same file as the input '" + input +
                           "'; refusing to overwrite an input with an output");
  }
  return Status::ok();
}

static Status checkReplaceable(const std::string &path) {
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
    return Status::error(path +
                         ": not a regular file; refusing to replace it with "
                         "an output");
  return Status::ok();
}

Status writeFileAtomic(const std::string &path, const void *data, size_t size) {
  if (Status st = checkReplaceable(path); !st)
    return st;
  std::string tmp = path + ".tmp." + uniqueSuffix();
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0)
    return Status::error(path + ": cannot create: " + std::strerror(errno));
  Status st = writeAll(fd, data, size, path);
  if (::close(fd) != 0 && st.isOk())
    st = Status::error(path + ": write failed: " + std::strerror(errno));
  if (!st.isOk()) {
    ::unlink(tmp.c_str());
    return st;
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return Status::error(path +
                         ": cannot rename into place: " + std::strerror(err));
  }
  return Status::ok();
}

Status copyFileAtomic(const std::string &from, const std::string &path,
                      uint64_t expectedSize) {
  if (Status st = checkReplaceable(path); !st)
    return st;
  int in = ::open(from.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0)
    return Status::error(from + ": cannot open: " + std::strerror(errno));
  struct stat st;
  if (::fstat(in, &st) != 0 || uint64_t(st.st_size) != expectedSize) {
    ::close(in);
    return Status::error(from + ": not the expected " +
                         std::to_string(expectedSize) + " bytes");
  }
  std::string tmp = path + ".tmp." + uniqueSuffix();
  int out = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (out < 0) {
    ::close(in);
    return Status::error(path + ": cannot create: " + std::strerror(errno));
  }
  Status result = Status::ok();
  uint64_t done = 0;
  bool kernelCopy = true;
  while (done < expectedSize && result.isOk()) {
    if (kernelCopy) {
      ssize_t n = ::copy_file_range(in, nullptr, out, nullptr,
                                    size_t(expectedSize - done), 0);
      if (n > 0) {
        done += uint64_t(n);
        continue;
      }
      // Not across these file systems, or not at all: copy by hand from
      // where it stopped.
      if (n < 0 && (errno == EXDEV || errno == ENOSYS || errno == EINVAL ||
                    errno == EOPNOTSUPP)) {
        kernelCopy = false;
        continue;
      }
      result = Status::error(path + ": copy failed: " +
                             (n == 0 ? std::string("the source ended early")
                                     : std::strerror(errno)));
      break;
    }
    std::vector<uint8_t> buffer(1 << 20);
    ssize_t n =
        ::pread(in, buffer.data(),
                size_t(std::min<uint64_t>(buffer.size(), expectedSize - done)),
                off_t(done));
    if (n <= 0) {
      result = Status::error(path + ": copy failed: " +
                             (n == 0 ? std::string("the source ended early")
                                     : std::strerror(errno)));
      break;
    }
    if (::lseek(out, off_t(done), SEEK_SET) < 0)
      result = Status::error(path + ": seek failed: " + std::strerror(errno));
    else
      result = writeAll(out, buffer.data(), size_t(n), path);
    done += uint64_t(n);
  }
  ::close(in);
  if (::close(out) != 0 && result.isOk())
    result = Status::error(path + ": write failed: " + std::strerror(errno));
  if (result.isOk() && ::rename(tmp.c_str(), path.c_str()) != 0)
    result = Status::error(
        path + ": cannot rename into place: " + std::strerror(errno));
  if (!result.isOk())
    ::unlink(tmp.c_str());
  return result;
}

Status makeDirectories(const std::string &path) {
  if (path.empty())
    return Status::ok();
  std::string partial;
  size_t pos = 0;
  while (pos != std::string::npos) {
    size_t next = path.find('/', pos + 1);
    partial = path.substr(0, next);
    pos = next;
    if (partial.empty() || partial == "/")
      continue;
    if (::mkdir(partial.c_str(), 0755) != 0 && errno != EEXIST)
      return Status::error(
          partial + ": cannot create directory: " + std::strerror(errno));
  }
  struct stat st;
  if (::stat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    return Status::error(path + ": not a directory");
  return Status::ok();
}

bool fileExists(const std::string &path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

Result<int> runProcess(const std::vector<std::string> &argv,
                       const std::string &logPath) {
  if (argv.empty())
    return Status::error("runProcess: empty command");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, logPath.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  std::vector<char *> args;
  for (const std::string &a : argv)
    args.push_back(const_cast<char *>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid;
  int rc =
      ::posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0)
    return Status::error("cannot run '" + argv[0] + "': " + std::strerror(rc));
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR)
      return Status::error("waiting for '" + argv[0] +
                           "' failed: " + std::strerror(errno));
  }
  if (WIFSIGNALED(status))
    return Status::error("'" + argv[0] + "' was killed by signal " +
                         std::to_string(WTERMSIG(status)));
  return WEXITSTATUS(status);
}

} // namespace dlc::rt
