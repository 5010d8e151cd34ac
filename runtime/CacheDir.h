//===- CacheDir.h - The private on-disk cache directory ---------*- C++ -*-===//
//
// dlc caches compiled code on disk (sim shared objects that it dlopens,
// cubins, whole packages), so whoever can write the cache directory can run
// code as the next user of dlc. The cache is therefore private, as ssh's
// files are: every directory of it must be a real directory (not a symbolic
// link) owned by the user and not writable by group or others, and the
// directories dlc creates are made 0700. A cache that fails the check is
// not used: dlc compiles without it and says so once on stderr.
//
//===----------------------------------------------------------------------===//

#ifndef DLC_RUNTIME_CACHEDIR_H
#define DLC_RUNTIME_CACHEDIR_H

#include "runtime/Status.h"

#include <string>
#include <sys/stat.h>
#include <sys/types.h>

namespace dlc::rt {

/// Why a directory whose lstat() is `st` is not private to `uid` ("" when it
/// is): a symbolic link, not a directory, owned by another user, or writable
/// by group or others. `path` only names it in the message.
std::string privateDirectoryProblem(const std::string &path,
                                    const struct stat &st, uid_t uid);

/// Makes `path` a private directory: missing directories (parents too) are
/// created 0700, then `path` is checked with lstat(). Existing parents only
/// must not be writable by others without the sticky bit.
Status ensurePrivateDirectory(const std::string &path);

/// The candidate cache root: $DLC_CACHE_DIR, else $XDG_CACHE_HOME/dlc when
/// that is an absolute path, else $HOME/.cache/dlc when HOME is absolute,
/// else the password database's home directory's .cache/dlc; "" when none.
std::string cacheRootCandidate();

/// The verified private directory `sub` of the cache root ("" for the root
/// itself), created if missing; an error saying why there is none.
Result<std::string> privateCacheDirectory(const std::string &sub);

/// privateCacheDirectory(sub), or "" after printing, the first time in this
/// process, "dlc: note: not using the kernel cache: WHY; compiling without
/// it" on stderr.
std::string privateCacheDirectoryOrNote(const std::string &sub);

/// A fresh directory (mkdtemp, 0700) private to this process, removed with
/// its files when the process exits: where the sim device compiles when
/// there is no cache. An error when none can be made.
Result<std::string> processScratchDirectory();

} // namespace dlc::rt

#endif // DLC_RUNTIME_CACHEDIR_H
