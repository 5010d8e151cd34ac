//===- TestUtil.h - Helpers of the runtime unit tests -------------*- C++
//-*-===//
#ifndef DLC_TEST_RUNTIME_TESTUTIL_H
#define DLC_TEST_RUNTIME_TESTUTIL_H

#include "runtime/Status.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <dirent.h>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace dlc::rt::test {

/// A fresh directory under $TMPDIR (or /tmp), removed with its files (one
/// level of subdirectories) at destruction.
class TempDir {
public:
  explicit TempDir(const std::string &tag = "dlc-rt-test") {
    const char *tmp = std::getenv("TMPDIR");
    std::string pattern =
        std::string(tmp && *tmp ? tmp : "/tmp") + "/" + tag + "-XXXXXX";
    std::vector<char> buf(pattern.begin(), pattern.end());
    buf.push_back('\0');
    if (::mkdtemp(buf.data()))
      path_ = buf.data();
  }
  ~TempDir() { removeTree(path_, 0); }
  const std::string &path() const { return path_; }
  std::string file(const std::string &name) const { return path_ + "/" + name; }

  static std::vector<std::string> list(const std::string &dir) {
    std::vector<std::string> names;
    if (DIR *d = ::opendir(dir.c_str())) {
      while (dirent *e = ::readdir(d)) {
        std::string n = e->d_name;
        if (n != "." && n != "..")
          names.push_back(n);
      }
      ::closedir(d);
    }
    return names;
  }

private:
  static void removeTree(const std::string &dir, int depth) {
    if (dir.empty() || depth > 3)
      return;
    for (const std::string &n : list(dir)) {
      std::string p = dir + "/" + n;
      struct stat st;
      if (::lstat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
        removeTree(p, depth + 1);
      else
        ::unlink(p.c_str());
    }
    ::rmdir(dir.c_str());
  }
  std::string path_;
};

/// Sets an environment variable for a scope.
class ScopedEnv {
public:
  ScopedEnv(const char *name, const std::string &value) : name_(name) {
    if (const char *old = std::getenv(name)) {
      hadOld_ = true;
      old_ = old;
    }
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (hadOld_)
      ::setenv(name_.c_str(), old_.c_str(), 1);
    else
      ::unsetenv(name_.c_str());
  }

private:
  std::string name_, old_;
  bool hadOld_ = false;
};

inline bool fileExistsForTest(const std::string &path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

inline bool writeBytes(const std::string &path, const std::vector<uint8_t> &b) {
  FILE *f = std::fopen(path.c_str(), "wb");
  if (!f)
    return false;
  // fwrite's buffer must not be null, even for zero bytes (an empty
  // vector's data() may be).
  bool ok = b.empty() || std::fwrite(b.data(), 1, b.size(), f) == b.size();
  return std::fclose(f) == 0 && ok;
}

inline std::vector<uint8_t> readBytes(const std::string &path) {
  std::vector<uint8_t> out;
  FILE *f = std::fopen(path.c_str(), "rb");
  if (!f)
    return out;
  uint8_t buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0)
    out.insert(out.end(), buf, buf + n);
  std::fclose(f);
  return out;
}

/// A small deterministic generator (xorshift), so tests do not depend on
/// the standard library's distributions.
class Rng {
public:
  explicit Rng(uint64_t seed) : s_(seed * 0x9e3779b97f4a7c15ull + 1) {}
  uint64_t next() {
    s_ ^= s_ << 13;
    s_ ^= s_ >> 7;
    s_ ^= s_ << 17;
    return s_;
  }
  uint32_t bits32() { return uint32_t(next() >> 32); }
  /// Uniform in [lo, hi).
  float uniform(float lo, float hi) {
    return lo + (hi - lo) * float(next() >> 40) / float(1 << 24);
  }

private:
  uint64_t s_;
};

} // namespace dlc::rt::test

#endif // DLC_TEST_RUNTIME_TESTUTIL_H
