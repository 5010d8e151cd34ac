//===- CacheDirTest.cpp - The private cache directory (runtime/CacheDir) --===//

#include "runtime/CacheDir.h"
#include "TestUtil.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

using dlc::rt::test::TempDir;

namespace {

struct stat dirStat(mode_t mode, uid_t uid) {
  struct stat st = {};
  st.st_mode = S_IFDIR | mode;
  st.st_uid = uid;
  return st;
}

TEST(CacheDir, PredicateRefusesOtherOwnersWritableDirsAndLinks) {
  const uid_t me = 1000;
  EXPECT_EQ(dlc::rt::privateDirectoryProblem("d", dirStat(0700, me), me), "");
  EXPECT_EQ(dlc::rt::privateDirectoryProblem("d", dirStat(0755, me), me), "");
  EXPECT_NE(dlc::rt::privateDirectoryProblem("d", dirStat(0700, 1001), me)
                .find("d is owned by uid 1001, not by uid 1000"),
            std::string::npos);
  EXPECT_NE(dlc::rt::privateDirectoryProblem("d", dirStat(0777, me), me)
                .find("d is writable by group or others (mode 0777)"),
            std::string::npos);
  EXPECT_NE(dlc::rt::privateDirectoryProblem("d", dirStat(0770, me), me)
                .find("writable by group or others"),
            std::string::npos);
  struct stat link = dirStat(0777, me);
  link.st_mode = S_IFLNK | 0777;
  EXPECT_NE(dlc::rt::privateDirectoryProblem("d", link, me)
                .find("d is a symbolic link"),
            std::string::npos);
  struct stat file = dirStat(0600, me);
  file.st_mode = S_IFREG | 0600;
  EXPECT_NE(dlc::rt::privateDirectoryProblem("d", file, me)
                .find("d is not a directory"),
            std::string::npos);
}

class CacheRoot : public ::testing::Test {
protected:
  void SetUp() override {
    for (const char *v : {"DLC_CACHE_DIR", "XDG_CACHE_HOME", "HOME"})
      if (const char *s = std::getenv(v))
        saved.emplace_back(v, s);
    ::unsetenv("DLC_CACHE_DIR");
    ::unsetenv("XDG_CACHE_HOME");
  }
  void TearDown() override {
    ::unsetenv("DLC_CACHE_DIR");
    ::unsetenv("XDG_CACHE_HOME");
    ::unsetenv("HOME");
    for (auto &[k, v] : saved)
      ::setenv(k.c_str(), v.c_str(), 1);
  }
  std::vector<std::pair<std::string, std::string>> saved;
  TempDir dir{"dlc-cachedir-test"};
};

TEST_F(CacheRoot, CreatesPrivateDirectories) {
  ::setenv("DLC_CACHE_DIR", (dir.path() + "/a/b").c_str(), 1);
  dlc::rt::Result<std::string> sim = dlc::rt::privateCacheDirectory("sim");
  ASSERT_TRUE(sim.isOk()) << sim.message();
  EXPECT_EQ(*sim, dir.path() + "/a/b/sim");
  for (const std::string &d : {dir.path() + "/a", dir.path() + "/a/b", *sim}) {
    struct stat st;
    ASSERT_EQ(::lstat(d.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0700u) << d;
  }
}

TEST_F(CacheRoot, RefusesAWorldWritableDirectory) {
  std::string root = dir.path() + "/open";
  ASSERT_EQ(::mkdir(root.c_str(), 0700), 0);
  ASSERT_EQ(::chmod(root.c_str(), 0777), 0);
  ::setenv("DLC_CACHE_DIR", root.c_str(), 1);
  dlc::rt::Result<std::string> r = dlc::rt::privateCacheDirectory("sim");
  ASSERT_FALSE(r.isOk());
  EXPECT_NE(r.message().find("is writable by group or others (mode 0777)"),
            std::string::npos)
      << r.message();
  // A subdirectory left writable by others is refused too.
  ASSERT_EQ(::chmod(root.c_str(), 0755), 0);
  ASSERT_EQ(::mkdir((root + "/cubin").c_str(), 0700), 0);
  ASSERT_EQ(::chmod((root + "/cubin").c_str(), 0777), 0);
  EXPECT_TRUE(dlc::rt::privateCacheDirectory("sim").isOk());
  EXPECT_FALSE(dlc::rt::privateCacheDirectory("cubin").isOk());
}

TEST_F(CacheRoot, RefusesASymbolicLink) {
  std::string real = dir.path() + "/real", link = dir.path() + "/link";
  ASSERT_EQ(::mkdir(real.c_str(), 0700), 0);
  ASSERT_EQ(::symlink(real.c_str(), link.c_str()), 0);
  ::setenv("DLC_CACHE_DIR", link.c_str(), 1);
  dlc::rt::Result<std::string> r = dlc::rt::privateCacheDirectory("");
  ASSERT_FALSE(r.isOk());
  EXPECT_NE(r.message().find("is a symbolic link"), std::string::npos)
      << r.message();
  // The same link as a parent of the cache is followed (~/.cache on
  // another disk).
  ::setenv("DLC_CACHE_DIR", (link + "/dlc").c_str(), 1);
  EXPECT_TRUE(dlc::rt::privateCacheDirectory("").isOk());
}

TEST_F(CacheRoot, RefusesAParentOthersCanRenameIn) {
  std::string open = dir.path() + "/open";
  ASSERT_EQ(::mkdir(open.c_str(), 0700), 0);
  ASSERT_EQ(::chmod(open.c_str(), 0777), 0);
  ::setenv("DLC_CACHE_DIR", (open + "/dlc").c_str(), 1);
  dlc::rt::Result<std::string> r = dlc::rt::privateCacheDirectory("");
  ASSERT_FALSE(r.isOk());
  EXPECT_NE(r.message().find("is writable by others (mode 0777)"),
            std::string::npos)
      << r.message();
  // With the sticky bit (as /tmp) others cannot rename it: fine.
  ASSERT_EQ(::chmod(open.c_str(), 01777), 0);
  EXPECT_TRUE(dlc::rt::privateCacheDirectory("").isOk());
}

TEST_F(CacheRoot, RelativeXdgCacheHomeIsIgnored) {
  ::setenv("XDG_CACHE_HOME", "relative/cache", 1);
  ::setenv("HOME", dir.path().c_str(), 1);
  EXPECT_EQ(dlc::rt::cacheRootCandidate(), dir.path() + "/.cache/dlc");
  ::setenv("XDG_CACHE_HOME", (dir.path() + "/xdg").c_str(), 1);
  EXPECT_EQ(dlc::rt::cacheRootCandidate(), dir.path() + "/xdg/dlc");
  // A relative HOME is no home either: never a path under /tmp.
  ::unsetenv("XDG_CACHE_HOME");
  ::setenv("HOME", "relative", 1);
  EXPECT_EQ(dlc::rt::cacheRootCandidate().find("relative"), std::string::npos);
  EXPECT_EQ(dlc::rt::cacheRootCandidate().find("/tmp/dlc-cache"),
            std::string::npos);
}

TEST_F(CacheRoot, ScratchDirectoryIsPrivate) {
  dlc::rt::Result<std::string> d = dlc::rt::processScratchDirectory();
  ASSERT_TRUE(d.isOk()) << d.message();
  struct stat st;
  ASSERT_EQ(::lstat(d->c_str(), &st), 0);
  EXPECT_EQ(dlc::rt::privateDirectoryProblem(*d, st, ::getuid()), "");
  EXPECT_EQ(st.st_mode & 0777, 0700u);
}

} // namespace
