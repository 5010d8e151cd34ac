//===- SafeFile.cpp - Reading untrusted files safely ----------------------===//

#include "runtime/SafeFile.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace dlc::rt {

namespace {
std::string message(const std::string &what, const std::string &path,
                    const std::string &reason) {
  return "cannot read " + (what.empty() ? "" : what + " from ") + "'" + path +
         "': " + reason;
}

const char *kindOf(mode_t mode) {
  if (S_ISFIFO(mode))
    return "a FIFO";
  if (S_ISCHR(mode))
    return "a character device";
  if (S_ISBLK(mode))
    return "a block device";
  if (S_ISDIR(mode))
    return "a directory";
  if (S_ISSOCK(mode))
    return "a socket";
  return "not a plain file";
}
} // namespace

Result<RegularFile> RegularFile::open(const std::string &path,
                                      const std::string &what) {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a
  // writer. It changes nothing for the regular files read below.
  int fd;
  do
    fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  while (fd < 0 && errno == EINTR);
  if (fd < 0)
    return Status::error(message(what, path, std::strerror(errno)));
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    return Status::error(message(what, path, std::strerror(err)));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return Status::error(message(what, path,
                                 std::string("not a regular file (") +
                                     kindOf(st.st_mode) +
                                     "); dlc reads regular files only"));
  }
  return RegularFile(fd, uint64_t(st.st_size), path, what);
}

RegularFile::RegularFile(RegularFile &&other) noexcept
    : fd_(other.fd_), size_(other.size_), path_(std::move(other.path_)),
      what_(std::move(other.what_)) {
  other.fd_ = -1;
}

RegularFile &RegularFile::operator=(RegularFile &&other) noexcept {
  if (this != &other) {
    if (fd_ >= 0)
      ::close(fd_);
    fd_ = other.fd_;
    size_ = other.size_;
    path_ = std::move(other.path_);
    what_ = std::move(other.what_);
    other.fd_ = -1;
  }
  return *this;
}

RegularFile::~RegularFile() {
  if (fd_ >= 0)
    ::close(fd_);
}

std::string RegularFile::error(const std::string &reason) const {
  return message(what_, path_, reason);
}

Status RegularFile::checkRange(uint64_t offset, uint64_t length) const {
  // offset + length <= size, written so that it cannot overflow.
  if (offset > size_ || length > size_ - offset)
    return Status::error(error("the file holds " + std::to_string(size_) +
                               " bytes, too few for " + std::to_string(length) +
                               " bytes at offset " + std::to_string(offset) +
                               (offset > size_ ? " (past its end)" : "")));
  return Status::ok();
}

Status RegularFile::read(uint64_t offset, void *dst, uint64_t length) const {
  Status range = checkRange(offset, length);
  if (!range.isOk())
    return range;
  auto *p = static_cast<uint8_t *>(dst);
  uint64_t done = 0;
  while (done < length) {
    size_t chunk = size_t(std::min<uint64_t>(length - done, 1u << 30));
    ssize_t n = ::pread(fd_, p + done, chunk, off_t(offset + done));
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return Status::error(error(std::strerror(errno)));
    }
    if (n == 0)
      return Status::error(
          error("the file ended at byte " + std::to_string(offset + done) +
                " of the " + std::to_string(size_) +
                " it held when opened (it shrank while being read)"));
    done += uint64_t(n);
  }
  return Status::ok();
}

Result<std::vector<uint8_t>> RegularFile::readAll(uint64_t maxBytes) const {
  if (size_ > maxBytes)
    return Status::error(error("the file holds " + std::to_string(size_) +
                               " bytes, more than the " +
                               std::to_string(maxBytes) + " allowed"));
  if (size_ > uint64_t(SIZE_MAX))
    return Status::error(error("the file is too large"));
  std::vector<uint8_t> bytes(static_cast<size_t>(size_));
  Status st = read(0, bytes.data(), size_);
  if (!st.isOk())
    return st;
  return bytes;
}

Result<std::vector<uint8_t>> readRegularFile(const std::string &path,
                                             const std::string &what,
                                             uint64_t maxBytes) {
  Result<RegularFile> file = RegularFile::open(path, what);
  if (!file)
    return file.status();
  return file->readAll(maxBytes);
}

Result<std::vector<uint8_t>> readFileRange(const std::string &path,
                                           uint64_t offset, uint64_t length,
                                           const std::string &what) {
  Result<RegularFile> file = RegularFile::open(path, what);
  if (!file)
    return file.status();
  // The range is checked before anything is allocated for it.
  Status range = file->checkRange(offset, length);
  if (!range.isOk())
    return range;
  if (length > uint64_t(SIZE_MAX))
    return Status::error(file->error("the range is too large"));
  std::vector<uint8_t> bytes(static_cast<size_t>(length));
  Status st = file->read(offset, bytes.data(), length);
  if (!st.isOk())
    return st;
  return bytes;
}

Result<std::string> realPath(const std::string &path, const std::string &what) {
  const std::string p = path.empty() ? "." : path;
  char *resolved = ::realpath(p.c_str(), nullptr);
  if (!resolved)
    return Status::error(message(what, p, std::strerror(errno)));
  std::string out(resolved);
  std::free(resolved);
  return out;
}

bool isPathInside(const std::string &path, const std::string &dir) {
  if (path == dir)
    return true;
  if (dir == "/")
    return !path.empty() && path[0] == '/';
  return path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 &&
         path[dir.size()] == '/';
}

} // namespace dlc::rt
