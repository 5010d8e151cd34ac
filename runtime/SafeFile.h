//===- SafeFile.h - Reading untrusted files safely ------------*- C++ -*-===//
//
// Every file dlc reads on a user's behalf (models, external weights, .npy
// and .pb inputs, packages) is opened here. Such a file must be a regular
// file: it is opened without blocking (a FIFO cannot hang the open) and
// refused unless fstat says it is regular, so a FIFO, a device or a link
// to /dev/zero is an error rather than a hang or an unbounded read. Its
// size is known before anything is read, every read is checked against it
// first (offset + length without overflow), and a file that ends early is
// an error: never zeros.
//
// Messages read "cannot read [WHAT from ]'PATH': REASON".
//
//===----------------------------------------------------------------------===//
#ifndef DLC_RUNTIME_SAFEFILE_H
#define DLC_RUNTIME_SAFEFILE_H

#include "runtime/Status.h"

#include <cstdint>
#include <string>
#include <vector>

namespace dlc::rt {

/// A regular file open for reading, and its size when it was opened.
class RegularFile {
public:
  /// Opens `path` with O_RDONLY | O_NONBLOCK | O_CLOEXEC and checks that it
  /// is a regular file. `what` names the file in messages ("the external
  /// data of tensor 'w'"); empty for the path alone.
  static Result<RegularFile> open(const std::string &path,
                                  const std::string &what = "");
  RegularFile(RegularFile &&other) noexcept;
  RegularFile &operator=(RegularFile &&other) noexcept;
  RegularFile(const RegularFile &) = delete;
  RegularFile &operator=(const RegularFile &) = delete;
  ~RegularFile();

  int fd() const { return fd_; }
  uint64_t size() const { return size_; }
  const std::string &path() const { return path_; }

  /// Ok when bytes [offset, offset + length) lie inside the file, else an
  /// error naming the file, its size and the range.
  Status checkRange(uint64_t offset, uint64_t length) const;
  /// Reads bytes [offset, offset + length) into `dst`: an error naming the
  /// file, its size and the range when the range is not inside the file,
  /// or when the file ends early (it shrank after it was opened).
  Status read(uint64_t offset, void *dst, uint64_t length) const;
  /// The whole file; an error, before anything is read, when it holds more
  /// than `maxBytes`.
  Result<std::vector<uint8_t>> readAll(uint64_t maxBytes = UINT64_MAX) const;
  /// An error message about this file: "cannot read [WHAT from ]'PATH':
  /// REASON".
  std::string error(const std::string &reason) const;

private:
  RegularFile(int fd, uint64_t size, std::string path, std::string what)
      : fd_(fd), size_(size), path_(std::move(path)), what_(std::move(what)) {}
  int fd_ = -1;
  uint64_t size_ = 0;
  std::string path_, what_;
};

/// RegularFile::open(path, what), then readAll(maxBytes).
Result<std::vector<uint8_t>> readRegularFile(const std::string &path,
                                             const std::string &what = "",
                                             uint64_t maxBytes = UINT64_MAX);
/// RegularFile::open(path, what), then bytes [offset, offset + length).
Result<std::vector<uint8_t>> readFileRange(const std::string &path,
                                           uint64_t offset, uint64_t length,
                                           const std::string &what = "");

/// The absolute path of `path` with every symbolic link, `.` and `..`
/// resolved (realpath(3)); an empty path is the current directory. An
/// error when some part is missing, with `what` as in RegularFile::open.
Result<std::string> realPath(const std::string &path,
                             const std::string &what = "");
/// Whether real path `path` is `dir` or lies below it (both as realPath
/// returns them: a prefix test on whole components).
bool isPathInside(const std::string &path, const std::string &dir);

} // namespace dlc::rt

#endif // DLC_RUNTIME_SAFEFILE_H
