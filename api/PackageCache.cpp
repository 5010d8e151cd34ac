//===- PackageCache.cpp - Compiled packages cached by model and options ---===//
//
// A compile whose model text, options, environment and compiler are the same
// as an earlier one's gives the same package, so `dlc compile` keeps the
// packages it writes under kernelCacheDir()/packages and reuses them
// (torch.compile's FX graph cache and JAX's persistent compilation cache do
// the same). The key is a 128-bit XXH3 hash of:
//   - the model's bytes and its buffer name (the reference model's locations
//     name the file);
//   - every CompileOptions field, the architectures resolved as the compile
//     resolves them, and NVRTC's version when cubins are compiled;
//   - every DLC_* environment variable (some change the generated source);
//   - the compiler itself: the path, size and modification time of the
//     executable (and of the shared library holding this code, if any), so
//     a rebuilt dlc never reuses an older dlc's packages;
//   - the package format version.
// Failed compiles are not cached. An entry is <key>.dlcpkg, the package as
// written, and <key>.deps, its record: "dlc-entry-v2 KEY CHECKSUM" (the
// key it was stored under and the package's checksum), then a line per file
// the compile read besides the model (an ONNX model's external data) with
// its size, XXH3 hash and path. A lookup is a hit only when the record
// names the key and the package, every listed file still has that size and
// hash (ccache's manifests do the same for headers), and the package reads
// back whole and passes validatePackage(). Those files are read as the
// importer reads them (runtime/SafeFile.h): the real path inside the model's
// folder, a regular file, reads within its size; one the import would
// refuse now (a link out of the folder, to /dev/zero, a FIFO, a directory)
// is a miss, and the compile that follows gives the import's error. An entry
// recorded for another key (swapped for another entry), or one that does not
// read back or validate, is removed with a note and compiled again; a record of
// another package (a store racing the lookup) is a miss. The cache lives only
// in a verified private directory (runtime/CacheDir.h); without one nothing is
// cached. Entries are used least-recently-first: a hit refreshes the file's
// time, and a store trims the directory to DLC_PACKAGE_CACHE_MAX_MB (default
// 2048) by removing the oldest.
//
//===----------------------------------------------------------------------===//

#include "api/PackageCache.h"
#include "runtime/CacheDir.h"
#include "runtime/SafeFile.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Chrono.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"
#include <cstdio>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>

extern char **environ;

namespace dlc {
namespace {

std::atomic<uint64_t> hits{0}, misses{0}, corrupt{0}, evicted{0};

std::string hex128(const llvm::XXH128_hash_t &h) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << llvm::format_hex_no_prefix(h.high64, 16)
     << llvm::format_hex_no_prefix(h.low64, 16);
  return s;
}

/// "path size mtime" of a file, or "" when it cannot be found.
std::string fileIdentity(const std::string &path) {
  llvm::SmallString<256> real;
  llvm::sys::fs::file_status status;
  if (llvm::sys::fs::real_path(path, real) ||
      llvm::sys::fs::status(real, status))
    return "";
  std::string s;
  llvm::raw_string_ostream os(s);
  os << real << '\0' << status.getSize() << '\0'
     << status.getLastModificationTime().time_since_epoch().count();
  return s;
}

/// The compiler's files: the running executable (found through
/// /proc/self/exe, whatever path started it) and, when this code is in a
/// shared library, that library (the path the dynamic linker opened, which
/// is absolute). What ccache checks of a compiler: path, size and
/// modification time. "" when the executable cannot be identified.
const std::string &compilerIdentity() {
  static const std::string identity = [] {
    std::string exe = fileIdentity("/proc/self/exe");
    if (exe.empty())
      return std::string();
    Dl_info info;
    if (::dladdr(reinterpret_cast<void *>(&compilerIdentity), &info) &&
        info.dli_fname && llvm::sys::path::is_absolute(info.dli_fname)) {
      // The executable itself appears under the path that started it.
      std::string library = fileIdentity(info.dli_fname);
      if (library != exe)
        exe += '\0' + library;
    }
    return exe;
  }();
  return identity;
}

/// Appends a length-prefixed field, so that fields cannot run together.
void field(std::string &key, llvm::StringRef value) {
  key += std::to_string(value.size());
  key += ':';
  key += value.str();
  key += ';';
}

/// The verified private packages/ directory of the cache, or "" (after a
/// note, once) when there is none: then nothing is cached.
std::string headerChecksum(llvm::StringRef package);

std::string cacheDirectory() {
  return rt::privateCacheDirectoryOrNote("packages");
}

/// The first line of an entry's record (<key>.deps): the key it was stored
/// under and the package's checksum.
std::string recordHeader(const std::string &key, llvm::StringRef package) {
  return "dlc-entry-v2 " + key + " " + headerChecksum(package);
}

/// Removes a damaged entry (its package and record) and says so.
void dropEntry(const std::string &dir, const std::string &key,
               const std::string &why) {
  llvm::sys::fs::remove(dir + "/" + key + ".dlcpkg");
  llvm::sys::fs::remove(dir + "/" + key + ".deps");
  ++corrupt;
  llvm::errs() << "dlc: note: dropped a damaged compile-cache entry " << dir
               << "/" << key << ".dlcpkg (" << why << "); compiling again\n";
}

uint64_t maxCacheBytes() {
  const char *env = std::getenv("DLC_PACKAGE_CACHE_MAX_MB");
  uint64_t mb = 2048;
  if (env && *env) {
    char *end = nullptr;
    unsigned long long v = std::strtoull(env, &end, 10);
    if (end && *end == '\0')
      mb = std::min<unsigned long long>(v, 1ull << 40); // no overflow below
  }
  return mb << 20;
}

/// Removes the oldest entries until the directory holds at most three
/// quarters of the limit (so that not every store trims again).
void trim(const std::string &dir) {
  const uint64_t limit = maxCacheBytes();
  struct Entry {
    std::string path;
    uint64_t size;
    llvm::sys::TimePoint<> time;
  };
  std::vector<Entry> entries;
  uint64_t total = 0;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec)) {
    if (llvm::sys::path::extension(it->path()) != ".dlcpkg")
      continue;
    llvm::sys::fs::file_status status;
    if (llvm::sys::fs::status(it->path(), status))
      continue;
    entries.push_back(
        {it->path(), status.getSize(), status.getLastModificationTime()});
    total += status.getSize();
  }
  if (total <= limit)
    return;
  std::sort(entries.begin(), entries.end(),
            [](const Entry &a, const Entry &b) { return a.time < b.time; });
  for (const Entry &e : entries) {
    if (total <= limit / 4 * 3)
      break;
    if (!llvm::sys::fs::remove(e.path)) {
      llvm::SmallString<256> deps(e.path);
      llvm::sys::path::replace_extension(deps, "deps");
      llvm::sys::fs::remove(deps);
      total -= e.size;
      ++evicted;
    }
  }
}

/// The package header's checksum field (bytes 24-31), as 16 hex digits.
std::string headerChecksum(llvm::StringRef package) {
  if (package.size() < 32)
    return "";
  uint64_t sum = 0;
  for (int i = 0; i < 8; ++i)
    sum |= uint64_t(uint8_t(package[24 + i])) << (8 * i);
  std::string s;
  llvm::raw_string_ostream os(s);
  os << llvm::format_hex_no_prefix(sum, 16);
  return s;
}

/// "size hash path" of a file the compile read besides the model (an ONNX
/// model's external data), or "" when the file is not one the import would
/// read now: it is read as the importer reads it (runtime/SafeFile.h), its
/// real path inside the real path of `folder` (the model's folder), a
/// regular file (no FIFO, device or link to /dev/zero: nothing hangs or
/// reads without end), read in ranges checked against its size. With
/// `size`, a file of another size is "" before anything is read. The hash
/// is XXH3 of the XXH3 hashes of the file's 1 MiB pieces (LLVM has no
/// streaming XXH3), so that no more than a piece is in memory.
std::string describeFile(const std::string &path, const std::string &folder,
                         std::optional<uint64_t> size = std::nullopt) {
  rt::Result<std::string> realFolder = rt::realPath(folder);
  rt::Result<std::string> real = rt::realPath(path);
  if (!realFolder || !real || !rt::isPathInside(*real, *realFolder))
    return "";
  rt::Result<rt::RegularFile> file = rt::RegularFile::open(*real);
  if (!file || (size && file->size() != *size))
    return "";
  constexpr uint64_t kPiece = uint64_t(1) << 20;
  std::vector<uint8_t> piece(std::min(file->size(), kPiece));
  std::vector<uint64_t> hashes;
  for (uint64_t at = 0; at < file->size(); at += kPiece) {
    uint64_t n = std::min(kPiece, file->size() - at);
    if (!file->read(at, piece.data(), n).isOk())
      return "";
    hashes.push_back(llvm::xxh3_64bits(llvm::ArrayRef(piece.data(), n)));
  }
  std::string s;
  llvm::raw_string_ostream os(s);
  os << file->size() << ' '
     << llvm::format_hex_no_prefix(
            llvm::xxh3_64bits(
                llvm::ArrayRef(reinterpret_cast<const uint8_t *>(hashes.data()),
                               hashes.size() * sizeof(uint64_t))),
            16)
     << ' ' << path;
  return s;
}

/// The folder of the model file `path` as the importer takes it (the path
/// without its file name; "" is the current directory).
std::string folderOf(const std::string &path) {
  llvm::SmallString<256> dir(path);
  llvm::sys::path::remove_filename(dir);
  return std::string(dir);
}

enum class Record { Holds, Stale, OtherKey };

/// Whether the record beside `package` (`depsPath`) names `key` and the
/// package, and the dependencies it lists are unchanged. A missing record
/// (an older dlc's entry, an interrupted store) or one written with
/// another package (a store racing this lookup) is Stale: compile again
/// and store over it. One written for another key is OtherKey: the entry
/// was swapped for another one.
Record checkRecord(const std::string &depsPath, const std::string &key,
                   llvm::StringRef package, const std::string &folder) {
  // A record is a few lines per weights file.
  rt::Result<std::vector<uint8_t>> deps =
      rt::readRegularFile(depsPath, "", uint64_t(64) << 20);
  if (!deps)
    return Record::Stale;
  llvm::SmallVector<llvm::StringRef> lines;
  llvm::StringRef(reinterpret_cast<const char *>(deps->data()), deps->size())
      .split(lines, '\n', -1, /*KeepEmpty=*/false);
  if (lines.empty() || !lines[0].starts_with("dlc-entry-v2 "))
    return Record::Stale;
  if (!lines[0].starts_with("dlc-entry-v2 " + key + " "))
    return Record::OtherKey;
  if (lines[0] != recordHeader(key, package))
    return Record::Stale;
  for (llvm::StringRef line : llvm::ArrayRef(lines).drop_front()) {
    // "size hash path": the path is everything after the second space.
    auto [size, rest] = line.split(' ');
    auto [hash, path] = rest.split(' ');
    uint64_t bytes = 0;
    if (path.empty() || size.getAsInteger(10, bytes) ||
        describeFile(path.str(), folder, bytes) != line)
      return Record::Stale;
  }
  return Record::Holds;
}

} // namespace

std::optional<std::string> packageCacheKey(llvm::StringRef model,
                                           llvm::StringRef name,
                                           const CompileOptions &options) {
  const std::string &identity = compilerIdentity();
  if (identity.empty())
    return std::nullopt;
  std::string key = "dlc-package-cache-v1;";
  field(key, identity);
  field(key, std::to_string(rt::kPackageVersion));
  field(key, hex128(llvm::xxh3_128bits(llvm::arrayRefFromStringRef(model))));
  field(key, std::to_string(model.size()));
  field(key, name);

  std::vector<std::string> archs = options.archs;
  if (archs.empty())
    archs = {rt::defaultCudaArch("sm_90")};
  for (const std::string &arch : archs)
    field(key, arch);
  field(key, "cubins=" + std::to_string(options.compileCubins));
  if (options.compileCubins) {
    rt::Result<std::string> nvrtc = rt::nvrtcVersion();
    field(key, nvrtc ? *nvrtc : std::string("no nvrtc"));
  }
  options.forEach([&](const char *option, const auto &value) {
    using T = std::decay_t<decltype(value)>;
    if constexpr (std::is_same_v<T, std::string>) {
      field(key, std::string(option) + "=" + value);
    } else if constexpr (std::is_floating_point_v<T>) {
      // Every bit: std::to_string keeps six decimals (1e-7 = 2e-7).
      char text[40];
      std::snprintf(text, sizeof text, "%.17g", value);
      field(key, std::string(option) + "=" + text);
    } else {
      field(key, std::string(option) + "=" + std::to_string(value));
    }
  });
  for (bool flag : {options.tf32, options.referenceModel})
    field(key, flag ? "1" : "0");
  // The accuracy-guided assignment measures on seeded inputs.
  field(key,
        "precision-tolerance=" + std::to_string(options.precisionTolerance));
  field(key, "calibration-seed=" + std::to_string(options.calibrationSeed));
  field(key, options.entry);
  for (const auto &[input, shape] : options.onnxInputShapes) {
    field(key, input);
    for (int64_t d : shape)
      field(key, std::to_string(d));
  }

  std::vector<std::string> env;
  for (char **e = environ; e && *e; ++e)
    if (std::strncmp(*e, "DLC_", 4) == 0)
      env.emplace_back(*e);
  std::sort(env.begin(), env.end());
  for (const std::string &e : env)
    field(key, e);
  return hex128(llvm::xxh3_128bits(llvm::arrayRefFromStringRef(key)));
}

std::optional<CachedPackage> lookupCachedPackage(const std::string &key,
                                                 const std::string &modelPath) {
  const std::string folder = folderOf(modelPath);
  const std::string dir = cacheDirectory();
  const std::string path = dir + "/" + key + ".dlcpkg";
  if (dir.empty() || !llvm::sys::fs::exists(path)) {
    ++misses;
    return std::nullopt;
  }
  // A regular file (the directory is private; still no FIFO is opened
  // blocking), mapped with the size it had when opened, not read: a hit
  // then copies the weights once (into the package), not three times.
  rt::Result<rt::RegularFile> entry = rt::RegularFile::open(path);
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      std::make_error_code(std::errc::invalid_argument);
  if (entry)
    buffer = llvm::MemoryBuffer::getOpenFile(entry->fd(), path, entry->size(),
                                             /*RequiresNullTerminator=*/false);
  // Files the compile read have changed since: compile again (the store
  // replaces both files).
  if (buffer) {
    Record record = checkRecord(dir + "/" + key + ".deps", key,
                                (*buffer)->getBuffer(), folder);
    if (record == Record::OtherKey) {
      dropEntry(dir, key, "it was stored for another key");
      ++misses;
      return std::nullopt;
    }
    if (record == Record::Stale) {
      ++misses;
      return std::nullopt;
    }
  }
  rt::Result<rt::Package> package = rt::Status::error("unreadable");
  if (buffer)
    package = rt::deserializePackage(
        reinterpret_cast<const uint8_t *>((*buffer)->getBufferStart()),
        (*buffer)->getBufferSize());
  if (!package) {
    // Truncated or damaged (a full disk, an interrupted copy): compile again.
    dropEntry(dir, key, package.message());
    ++misses;
    return std::nullopt;
  }
  // Whole, but not a package the runtime accepts: would fail every run.
  if (rt::Status valid = rt::validatePackage(*package); !valid) {
    dropEntry(dir, key, valid.message());
    ++misses;
    return std::nullopt;
  }
  // Recently used: the last to be trimmed.
  int fd = -1;
  if (!llvm::sys::fs::openFileForWrite(path, fd, llvm::sys::fs::CD_OpenExisting,
                                       llvm::sys::fs::OF_Append)) {
    (void)llvm::sys::fs::setLastAccessAndModificationTime(
        fd, std::chrono::system_clock::now());
    llvm::sys::fs::closeFile(fd);
  }
  ++hits;
  return CachedPackage{std::move(*package), std::move(*buffer), path};
}

void storeCachedPackage(const std::string &key,
                        const std::vector<uint8_t> &bytes,
                        const std::vector<std::string> &dependencies,
                        const std::string &modelPath) {
  const std::string folder = folderOf(modelPath);
  const std::string dir = cacheDirectory();
  if (dir.empty())
    return;
  const std::string depsPath = dir + "/" + key + ".deps";
  {
    std::string deps =
        recordHeader(
            key, llvm::StringRef(reinterpret_cast<const char *>(bytes.data()),
                                 bytes.size())) +
        "\n";
    for (const std::string &file : dependencies) {
      std::string line = describeFile(file, folder);
      // A file that cannot be read now, or whose path would not survive
      // the line format, makes the entry unusable: store nothing.
      if (line.empty() || file.find('\n') != std::string::npos)
        return;
      deps += line + "\n";
    }
    // A temporary file renamed into place, as the package.
    if (llvm::Error error =
            llvm::writeToOutput(depsPath, [&](llvm::raw_ostream &os) {
              os << deps;
              return llvm::Error::success();
            })) {
      llvm::consumeError(std::move(error));
      return;
    }
  }
  // A temporary file renamed into place: a concurrent reader sees the old
  // entry, none, or the whole new one. A cache that cannot be written
  // (read-only, full) only costs the next compile.
  if (!rt::writePackageBytes(dir + "/" + key + ".dlcpkg", bytes.data(),
                             bytes.size()))
    return;
  trim(dir);
}

PackageCacheStats packageCacheStats() {
  return {hits.load(), misses.load(), corrupt.load(), evicted.load()};
}

} // namespace dlc
