//===- CacheDir.cpp - The private on-disk cache directory -----------------===//
//
// See CacheDir.h. Directories are created one component at a time with
// mkdir(0700) (which fails rather than follow or reuse what another user
// made) and then checked with lstat(), so a directory someone else created
// first, a symbolic link planted in its place, or one left writable by
// others (mode 0777) is refused instead of trusted.
//
//===----------------------------------------------------------------------===//

#include "runtime/CacheDir.h"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ftw.h>
#include <mutex>
#include <pwd.h>
#include <unistd.h>

namespace dlc::rt {

namespace {

std::string octal(mode_t mode) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%04o", unsigned(mode & 07777));
  return buf;
}

} // namespace

std::string privateDirectoryProblem(const std::string &path,
                                    const struct stat &st, uid_t uid) {
  if (S_ISLNK(st.st_mode))
    return path + " is a symbolic link";
  if (!S_ISDIR(st.st_mode))
    return path + " is not a directory";
  if (st.st_uid != uid)
    return path + " is owned by uid " + std::to_string(st.st_uid) +
           ", not by uid " + std::to_string(uid);
  if (st.st_mode & (S_IWGRP | S_IWOTH))
    return path + " is writable by group or others (mode " + octal(st.st_mode) +
           ")";
  return "";
}

Status ensurePrivateDirectory(const std::string &path) {
  if (path.empty())
    return Status::error("no cache directory");
  const uid_t uid = ::getuid();
  // Each prefix ending before a '/', then the whole path.
  size_t pos = path[0] == '/' ? 1 : 0;
  while (true) {
    size_t slash = path.find('/', pos);
    const bool last = slash == std::string::npos;
    std::string prefix = last ? path : path.substr(0, slash);
    pos = last ? path.size() : slash + 1;
    if (!prefix.empty() && prefix.back() != '/') {
      bool created = false;
      struct stat st;
      if (::lstat(prefix.c_str(), &st) != 0) {
        if (errno != ENOENT)
          return Status::error("cannot inspect " + prefix + ": " +
                               std::strerror(errno));
        if (::mkdir(prefix.c_str(), 0700) == 0)
          created = true;
        else if (errno != EEXIST)
          return Status::error("cannot create " + prefix + ": " +
                               std::strerror(errno));
        if (::lstat(prefix.c_str(), &st) != 0)
          return Status::error("cannot inspect " + prefix + ": " +
                               std::strerror(errno));
      }
      if (last || created) {
        std::string why = privateDirectoryProblem(prefix, st, uid);
        if (!why.empty())
          return Status::error(why);
      } else {
        // An existing parent may be a symbolic link (~/.cache on another
        // disk) or a shared sticky directory (/tmp), but one that others
        // may rename things in would let them swap the cache.
        struct stat target;
        if (::stat(prefix.c_str(), &target) != 0)
          return Status::error("cannot inspect " + prefix + ": " +
                               std::strerror(errno));
        if (!S_ISDIR(target.st_mode))
          return Status::error(prefix + " is not a directory");
        if ((target.st_mode & S_IWOTH) && !(target.st_mode & S_ISVTX))
          return Status::error(prefix + " is writable by others (mode " +
                               octal(target.st_mode) + ")");
      }
    }
    if (last)
      return Status::ok();
  }
}

std::string cacheRootCandidate() {
  if (const char *dir = std::getenv("DLC_CACHE_DIR"))
    if (*dir)
      return dir;
  // The XDG base directory specification: a relative path is invalid and
  // must be ignored.
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"))
    if (xdg[0] == '/')
      return std::string(xdg) + "/dlc";
  if (const char *home = std::getenv("HOME"))
    if (home[0] == '/')
      return std::string(home) + "/.cache/dlc";
  // HOME unset (cron, systemd units, containers): the user's home directory
  // from the password database, never a shared path such as /tmp.
  if (const struct passwd *pw = ::getpwuid(::getuid()))
    if (pw->pw_dir && pw->pw_dir[0] == '/')
      return std::string(pw->pw_dir) + "/.cache/dlc";
  return "";
}

Result<std::string> privateCacheDirectory(const std::string &sub) {
  std::string root = cacheRootCandidate();
  if (root.empty())
    return Status::error("no cache directory (set DLC_CACHE_DIR, or HOME to "
                         "an absolute path)");
  while (root.size() > 1 && root.back() == '/')
    root.pop_back();
  Status st = ensurePrivateDirectory(root);
  if (!st)
    return st;
  if (sub.empty())
    return root;
  std::string dir = root + "/" + sub;
  st = ensurePrivateDirectory(dir);
  if (!st)
    return st;
  return dir;
}

std::string privateCacheDirectoryOrNote(const std::string &sub) {
  Result<std::string> dir = privateCacheDirectory(sub);
  if (dir)
    return *dir;
  static std::atomic<bool> noted{false};
  if (!noted.exchange(true))
    std::fprintf(stderr,
                 "dlc: note: not using the kernel cache: %s; compiling "
                 "without it\n",
                 dir.message().c_str());
  return "";
}

namespace {

std::mutex scratchMutex;
std::string scratchDir;

int removeEntry(const char *path, const struct stat *, int, struct FTW *) {
  (void)::remove(path);
  return 0;
}

void removeScratch() {
  std::lock_guard<std::mutex> lock(scratchMutex);
  if (!scratchDir.empty())
    ::nftw(scratchDir.c_str(), removeEntry, 16, FTW_DEPTH | FTW_PHYS);
}

} // namespace

Result<std::string> processScratchDirectory() {
  std::lock_guard<std::mutex> lock(scratchMutex);
  if (!scratchDir.empty())
    return scratchDir;
  std::string base = "/tmp";
  if (const char *tmp = std::getenv("TMPDIR"))
    if (tmp[0] == '/')
      base = tmp;
  std::string templ = base + "/dlc-XXXXXX";
  if (!::mkdtemp(&templ[0]))
    return Status::error("cannot create a private directory in " + base + ": " +
                         std::strerror(errno));
  scratchDir = templ;
  std::atexit(removeScratch);
  return scratchDir;
}

} // namespace dlc::rt
