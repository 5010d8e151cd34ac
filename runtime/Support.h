//===- Support.h - Internal helpers of the dlc runtime ------------*- C++
//-*-===//
//
// Hashing, files, processes and little-endian byte streams shared by the
// runtime's implementation files. Not part of the public API.
//
//===----------------------------------------------------------------------===//
#ifndef DLC_RUNTIME_SUPPORT_H
#define DLC_RUNTIME_SUPPORT_H

#include "runtime/Checked.h"
#include "runtime/Status.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace dlc::rt {

/// 64-bit FNV-1a: a simple, stable hash; used for file checksums and cache
/// keys (never for security).
class Fnv1a64 {
public:
  static constexpr uint64_t kOffset = 0xcbf29ce484222325ull;
  static constexpr uint64_t kPrime = 0x100000001b3ull;

  explicit Fnv1a64(uint64_t seed = kOffset) : state_(seed) {}
  void update(const void *data, size_t size) {
    const auto *p = static_cast<const uint8_t *>(data);
    uint64_t h = state_;
    for (size_t i = 0; i < size; ++i) {
      h ^= p[i];
      h *= kPrime;
    }
    state_ = h;
  }
  /// Hashes the length first so that ("ab", "c") and ("a", "bc") differ.
  void updateString(const std::string &s) {
    uint64_t n = s.size();
    update(&n, sizeof(n));
    update(s.data(), s.size());
  }
  uint64_t digest() const { return state_; }

private:
  uint64_t state_;
};

uint64_t fnv1a64(const void *data, size_t size);
/// XXH64 (Yann Collet's xxHash, 64-bit): the same values as the reference
/// implementation, eight bytes at a time in four lanes, about twenty times
/// FNV-1a's speed. The package checksum since format version 4.
uint64_t xxh64(const void *data, size_t size, uint64_t seed = 0);
/// 16 lowercase hex digits.
std::string hex64(uint64_t value);
/// "100 bytes", "1.5 KiB", "32 MiB" (one decimal, dropped when zero).
std::string formatBytes(uint64_t bytes);

/// Parses a byte count such as `--max-memory` takes: decimal digits, then
/// optionally B, K, KiB, M, MiB, G, GiB, T or TiB (powers of 1024). Refuses
/// anything else, signs, 0, and counts of 2^64 bytes or more, saying why.
Result<uint64_t> parseByteSize(const std::string &text);

/// How much memory this process may use on the host.
struct MemoryLimit {
  uint64_t bytes = 0;
  /// What sets it: "the host has" (its physical memory) or "the
  /// address-space limit (RLIMIT_AS) is".
  std::string what;
};
/// The host's physical memory (sysconf), or RLIMIT_AS when that is set and
/// lower.
MemoryLimit hostMemoryLimit();
/// An error when `bytes` of host memory for `what` ("output #0 f32[...]")
/// exceed hostMemoryLimit(), or do not fit in 64 bits (overflowed); checked
/// before allocating, so that a size from a package or a file header
/// becomes an error naming it instead of std::bad_alloc.
Status checkHostAllocation(Checked bytes, const std::string &what);

/// A file mapped read-only into memory (none for an empty file): reading a
/// large package this way copies its bytes once, into the package, instead
/// of through a read buffer and a vector first.
class MappedFile {
public:
  static Result<MappedFile> open(const std::string &path);
  MappedFile(MappedFile &&other) noexcept;
  MappedFile &operator=(MappedFile &&other) = delete;
  MappedFile(const MappedFile &) = delete;
  ~MappedFile();
  const uint8_t *data() const { return data_; }
  size_t size() const { return size_; }

private:
  MappedFile(const uint8_t *data, size_t size) : data_(data), size_(size) {}
  const uint8_t *data_ = nullptr;
  size_t size_ = 0;
};
/// Whether `path` may receive a tool's output: "-" (stdout) and a path
/// that does not exist yet may; an existing path must be a regular file
/// (after symbolic links) and must not be the same file, by device and
/// inode, as any of `inputs` (so a hard or symbolic link to an input is
/// caught too). The error names the path and says why.
Status checkOutputPath(const std::string &path,
                       const std::vector<std::string> &inputs = {});
/// Writes `path` atomically: a temporary file in the same directory, then
/// rename(), so readers never see a partial file and concurrent writers of
/// the same content are harmless. Refuses a `path` that exists and is not a
/// regular file (a device, a directory, a FIFO): rename() would replace it.
Status writeFileAtomic(const std::string &path, const void *data, size_t size);
/// Copies file `from` to `path` the way writeFileAtomic writes, through
/// copy_file_range (the kernel copies, or shares the blocks where the file
/// system can), else read and write. Fails when `from` is not
/// `expectedSize` bytes.
Status copyFileAtomic(const std::string &from, const std::string &path,
                      uint64_t expectedSize);
/// mkdir -p.
Status makeDirectories(const std::string &path);
bool fileExists(const std::string &path);
/// A name unique to this process and call, for temporary files.
std::string uniqueSuffix();

/// Runs `argv` (argv[0] looked up in PATH) with stdout and stderr sent to
/// `logPath`, and waits. Returns the exit code, or an error if it could not
/// start or died from a signal.
Result<int> runProcess(const std::vector<std::string> &argv,
                       const std::string &logPath);

/// Appends little-endian values to a byte vector.
class ByteWriter {
public:
  explicit ByteWriter(std::vector<uint8_t> &out) : out_(out) {}
  void u8(uint8_t v) { out_.push_back(v); }
  void u32(uint32_t v) {
    for (int i = 0; i < 4; ++i)
      out_.push_back(uint8_t(v >> (8 * i)));
  }
  void u64(uint64_t v) {
    for (int i = 0; i < 8; ++i)
      out_.push_back(uint8_t(v >> (8 * i)));
  }
  void i64(int64_t v) { u64(uint64_t(v)); }
  void i32(int32_t v) { u32(uint32_t(v)); }
  void f64(double v) {
    uint64_t bits;
    std::memcpy(&bits, &v, 8);
    u64(bits);
  }
  void bytes(const void *data, size_t size) {
    if (size == 0)
      return;
    size_t old = out_.size();
    out_.resize(old + size);
    std::memcpy(out_.data() + old, data, size);
  }
  /// u64 length, then the bytes.
  void blob(const void *data, size_t size) {
    u64(size);
    bytes(data, size);
  }
  void string(const std::string &s) { blob(s.data(), s.size()); }

private:
  std::vector<uint8_t> &out_;
};

/// Reads little-endian values with bounds checks; after the first failure
/// every read fails and ok() is false.
class ByteReader {
public:
  ByteReader(const uint8_t *data, size_t size) : p_(data), end_(data + size) {}
  bool ok() const { return ok_; }
  size_t remaining() const { return size_t(end_ - p_); }
  const uint8_t *position() const { return p_; }

  bool u8(uint8_t &v) {
    if (!need(1))
      return false;
    v = *p_++;
    return true;
  }
  bool u32(uint32_t &v) {
    if (!need(4))
      return false;
    v = 0;
    for (int i = 0; i < 4; ++i)
      v |= uint32_t(p_[i]) << (8 * i);
    p_ += 4;
    return true;
  }
  bool u64(uint64_t &v) {
    if (!need(8))
      return false;
    v = 0;
    for (int i = 0; i < 8; ++i)
      v |= uint64_t(p_[i]) << (8 * i);
    p_ += 8;
    return true;
  }
  bool i64(int64_t &v) {
    uint64_t u;
    if (!u64(u))
      return false;
    v = int64_t(u);
    return true;
  }
  bool i32(int32_t &v) {
    uint32_t u;
    if (!u32(u))
      return false;
    v = int32_t(u);
    return true;
  }
  bool f64(double &v) {
    uint64_t u;
    if (!u64(u))
      return false;
    std::memcpy(&v, &u, 8);
    return true;
  }
  bool bytes(void *dst, size_t size) {
    if (!need(size))
      return false;
    std::memcpy(dst, p_, size);
    p_ += size;
    return true;
  }
  bool skip(size_t size) {
    if (!need(size))
      return false;
    p_ += size;
    return true;
  }
  bool blob(std::vector<uint8_t> &v) {
    uint64_t n;
    if (!u64(n) || !need(n))
      return false;
    v.assign(p_, p_ + n);
    p_ += n;
    return true;
  }
  bool string(std::string &s) {
    uint64_t n;
    if (!u64(n) || !need(n))
      return false;
    s.assign(reinterpret_cast<const char *>(p_), size_t(n));
    p_ += n;
    return true;
  }

private:
  bool need(uint64_t n) {
    if (!ok_ || n > uint64_t(end_ - p_))
      ok_ = false;
    return ok_;
  }
  const uint8_t *p_;
  const uint8_t *end_;
  bool ok_ = true;
};

struct KernelResources;
/// ptxas's report for the kernels of one cubin: `u32` count, then per
/// kernel `string` name and `u32` registers, stack, spill stores, spill
/// loads (the package's KRES section and the kernel cache's cubin entries;
/// defined in Package.cpp).
void writeKernelResources(ByteWriter &w,
                          const std::vector<KernelResources> &list);
/// False when the bytes end early or the count cannot fit in them.
bool readKernelResources(ByteReader &r, std::vector<KernelResources> &list);

} // namespace dlc::rt

#endif // DLC_RUNTIME_SUPPORT_H
