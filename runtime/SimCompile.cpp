//===- SimCompile.cpp - Building the sim device's kernel library ----------===//
//
// The sim device (SimDevice.cpp) compiles Package::cudaSource with the host
// C++ compiler against the embedded shim (runtime/sim/SimShim.h) into a
// shared object, cached under kernelCacheDir()/sim with a checksum beside
// it, and with a precompiled shim header when the compiler is GCC. Only a
// source that SimSourceCheck.cpp accepted is compiled, as the checked text
// (directives resolved, comments blanked), with -nostdinc: the compiler
// reads the shim and that text and no other file. docs/sim.md describes
// the model and its limits.
//
//===----------------------------------------------------------------------===//

#include "runtime/CacheDir.h"
#include "runtime/FaultInjection.h"
#include "runtime/RuntimeImpl.h"
#include "runtime/SafeFile.h"
#include "runtime/SimSourceCheck.h"
#include "runtime/Support.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <sstream>

namespace dlc::rt {

// Generated at build time from runtime/sim/SimShim.h (SimShimEmbedded.cpp).
extern const char kSimShimSource[];
extern const size_t kSimShimSourceSize;

namespace {

constexpr char kSumMagic[8] = {'D', 'L', 'C', 'S', 'O', 'S', 'U', 'M'};

std::vector<std::string> simCompilerCommand() {
  const char *env = std::getenv("DLC_SIM_CXX");
  std::string cmd = env && *env ? env : "c++";
  std::vector<std::string> words;
  std::istringstream in(cmd);
  for (std::string w; in >> w;)
    words.push_back(w);
  if (words.empty())
    words.push_back("c++");
  return words;
}

/// The optimization flag: `-O1`, or `-O<n>` from DLC_SIM_OPT_LEVEL (0-3).
/// -O0 compiles a typical package's kernels in 60% of the time and runs them
/// several times slower: right for many small programs (dlc-fuzz), not for
/// big models. Floating-point results do not depend on it (no contraction,
/// no fast-math at any level).
std::string simOptimizationFlag() {
  const char *env = std::getenv("DLC_SIM_OPT_LEVEL");
  if (!env || !*env)
    return "-O1";
  if (env[0] >= '0' && env[0] <= '3' && env[1] == '\0')
    return std::string("-O") + env[0];
  std::fprintf(stderr,
               "dlc: warning: ignoring DLC_SIM_OPT_LEVEL=%s (expected 0, 1, "
               "2 or 3); compiling with -O1\n",
               env);
  return "-O1";
}

const std::vector<std::string> &simCompilerFlags() {
  // -ffp-contract=off: no FMA contraction, so results do not depend on the
  // host's instruction set. -fno-math-errno only lets sqrtf inline. -pipe
  // saves the compiler's temporary files (8% of a small compilation).
  // -nostdinc -nostdinc++: no include path at all; the shim includes
  // nothing and the checked source has no directive, so the compiler reads
  // no file but the two it is given (and the precompiled shim).
  static const std::vector<std::string> flags = {
      "-std=c++17", simOptimizationFlag(), "-fPIC",           "-shared",
      "-DDLC_SIM",  "-ffp-contract=off",   "-fno-math-errno", "-pipe",
      "-nostdinc",  "-nostdinc++"};
  return flags;
}

/// Link flags, after the source: the kernels need only the math library
/// (and libgcc's helpers); the C library's symbols (memcpy) and the dynamic
/// linker's (__tls_get_addr) are in every process's global scope. Not
/// linking the C++ runtime and the C library is a quarter of a small
/// compilation's CPU time (reading libstdc++'s symbol tables).
/// -Bsymbolic binds the object's calls of its own functions to them: a
/// kernel named like a function of the process (`system`) is called by its
/// trampoline, not the process's function of that name.
const std::vector<std::string> &simLinkFlags() {
  static const std::vector<std::string> flags = {"-nodefaultlibs", "-lm",
                                                 "-lgcc", "-Wl,-Bsymbolic"};
  return flags;
}

/// Whether `compiler` is GCC, which takes a precompiled header `X.h.gch`
/// placed beside `X.h` when a source is compiled with `-include X.h`. Asked
/// once per compiler command and process.
bool compilerIsGcc(const std::vector<std::string> &compiler,
                   const std::string &dir) {
  static std::mutex mutex;
  static std::map<std::vector<std::string>, bool> known;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = known.find(compiler);
  if (it != known.end())
    return it->second;
  std::vector<std::string> argv = compiler;
  argv.push_back("--version");
  const std::string logPath = dir + "/version.log." + uniqueSuffix();
  Result<int> rc = runProcess(argv, logPath);
  std::string text;
  if (Result<std::vector<uint8_t>> bytes = readRegularFile(logPath))
    text.assign(bytes->begin(), bytes->end());
  std::remove(logPath.c_str());
  bool gcc = rc.isOk() && *rc == 0 &&
             text.find("Free Software Foundation") != std::string::npos &&
             text.find("clang") == std::string::npos;
  known[compiler] = gcc;
  return gcc;
}

/// The shim to `-include`: with GCC, a copy of `shimPath` named for the
/// compiler and flags with its precompiled form beside it (built here once
/// per cache), which cuts a typical compilation to a third. Falls back to
/// `shimPath` when the compiler is not GCC or precompiling fails: the
/// precompiled header only saves time, so it never causes an error.
std::string precompiledShim(const std::string &dir, const std::string &shim,
                            const std::string &shimPath,
                            const std::vector<std::string> &compiler) {
  if (std::getenv("DLC_SIM_NO_PCH") || !compilerIsGcc(compiler, dir))
    return shimPath;
  Fnv1a64 h;
  h.updateString(shim);
  for (const std::string &w : compiler)
    h.updateString(w);
  for (const std::string &f : simCompilerFlags())
    h.updateString(f);
  const std::string header = dir + "/SimShimPch-" + hex64(h.digest()) + ".h";
  const std::string gch = header + ".gch";
  Result<std::vector<uint8_t>> existing = readRegularFile(header);
  if (!existing || std::string(existing->begin(), existing->end()) != shim)
    if (!writeFileAtomic(header, shim.data(), shim.size()))
      return shimPath;
  if (fileExists(gch))
    return header;
  const std::string suffix = uniqueSuffix();
  const std::string tmp = gch + ".tmp." + suffix;
  const std::string logPath = gch + ".log." + suffix;
  std::vector<std::string> argv = compiler;
  for (const std::string &f : simCompilerFlags())
    if (f != "-shared")
      argv.push_back(f);
  for (const char *a : {"-x", "c++-header"})
    argv.push_back(a);
  argv.push_back(header);
  argv.push_back("-o");
  argv.push_back(tmp);
  Result<int> rc = runProcess(argv, logPath);
  std::remove(logPath.c_str());
  // rename() is atomic: concurrent builders each install a complete file.
  if (!rc || *rc != 0 || std::rename(tmp.c_str(), gch.c_str()) != 0) {
    std::remove(tmp.c_str());
    return shimPath;
  }
  return header;
}

/// The checksum file next to a cached shared object: magic, length, FNV-1a.
std::vector<uint8_t> makeSum(const std::vector<uint8_t> &so) {
  std::vector<uint8_t> out;
  ByteWriter w(out);
  w.bytes(kSumMagic, 8);
  w.u64(so.size());
  w.u64(fnv1a64(so.data(), so.size()));
  return out;
}

/// Whether the cached shared object is complete: it matches its checksum.
bool cachedObjectIsIntact(const std::string &soPath,
                          const std::string &sumPath) {
  Result<std::vector<uint8_t>> so = readRegularFile(soPath);
  Result<std::vector<uint8_t>> sum = readRegularFile(sumPath);
  // Fault site: the object reads back with a byte flipped.
  if (so.isOk() && !so->empty() && fault::shouldFail("cache-corrupt"))
    (*so)[so->size() / 2] ^= 0x5a;
  return so.isOk() && sum.isOk() && *sum == makeSum(*so);
}

/// Compiles the checked `source` into a shared object in the cache (or
/// finds it there) and returns its path.
Result<std::string> buildSimLibrary(const std::string &source,
                                    bool forceRebuild) {
  // Only a verified private directory: the object is dlopen()ed, so whoever
  // could replace it would run code as this user. Without one, compile in a
  // private directory of this process.
  std::string dir = privateCacheDirectoryOrNote("sim");
  if (dir.empty()) {
    Result<std::string> scratch = processScratchDirectory();
    if (!scratch)
      return Status::error("sim: " + scratch.message());
    dir = *scratch;
  }

  const std::string shim(kSimShimSource, kSimShimSourceSize);
  const uint64_t shimHash = fnv1a64(shim.data(), shim.size());
  const std::string shimPath = dir + "/SimShim-" + hex64(shimHash) + ".h";
  Result<std::vector<uint8_t>> existing = readRegularFile(shimPath);
  if (!existing || std::string(existing->begin(), existing->end()) != shim)
    DLC_RT_RETURN_IF_ERROR(writeFileAtomic(shimPath, shim.data(), shim.size()));

  const std::vector<std::string> compiler = simCompilerCommand();
  Fnv1a64 ha, hb(0x84222325cbf29ce4ull);
  for (Fnv1a64 *h : {&ha, &hb}) {
    h->updateString("dlc-sim-v2");
    h->updateString(source);
    h->updateString(hex64(shimHash));
    for (const std::string &w : compiler)
      h->updateString(w);
    for (const std::string &f : simCompilerFlags())
      h->updateString(f);
    for (const std::string &f : simLinkFlags())
      h->updateString(f);
  }
  const std::string key = hex64(hb.digest()) + hex64(ha.digest());
  const std::string soPath = dir + "/" + key + ".so";
  const std::string sumPath = dir + "/" + key + ".sum";

  if (!forceRebuild && fileExists(soPath)) {
    if (cachedObjectIsIntact(soPath, sumPath)) {
      ++kernelCacheCounters().hits;
      return soPath;
    }
    ++kernelCacheCounters().corruptEntries;
  }
  ++kernelCacheCounters().misses;

  const std::string srcPath = dir + "/" + key + ".cpp";
  DLC_RT_RETURN_IF_ERROR(
      writeFileAtomic(srcPath, source.data(), source.size()));
  const std::string suffix = uniqueSuffix();
  const std::string tmpSo = soPath + ".tmp." + suffix;
  const std::string logPath = dir + "/" + key + ".log." + suffix;
  const std::string pchShim = precompiledShim(dir, shim, shimPath, compiler);
  auto command = [&](const std::string &include) {
    std::vector<std::string> argv = compiler;
    for (const std::string &f : simCompilerFlags())
      argv.push_back(f);
    argv.push_back("-include");
    argv.push_back(include);
    for (const char *a : {"-x", "c++"})
      argv.push_back(a);
    argv.push_back(srcPath);
    for (const char *a : {"-x", "none", "-o"})
      argv.push_back(a);
    argv.push_back(tmpSo);
    for (const std::string &f : simLinkFlags())
      argv.push_back(f);
    return argv;
  };

  Result<int> rc = 0;
  if (fault::shouldFail("sim-compile")) {
    // Fault site: the compiler "fails" without running.
    const std::string msg = "error: the host compiler failed (fault injected "
                            "at site sim-compile)\n";
    (void)writeFileAtomic(logPath, msg.data(), msg.size());
    rc = 1;
  } else {
    rc = runProcess(command(pchShim), logPath);
    // A precompiled header the compiler rejects (written by another version
    // of it, say) must not fail the build: once more with the plain shim.
    if (rc.isOk() && *rc != 0 && pchShim != shimPath)
      rc = runProcess(command(shimPath), logPath);
  }
  std::string log;
  if (Result<std::vector<uint8_t>> bytes = readRegularFile(logPath))
    log.assign(bytes->begin(), bytes->end());
  std::remove(logPath.c_str());
  if (!rc) {
    std::remove(tmpSo.c_str());
    return Status::error("sim: " + rc.message() +
                         " (set DLC_SIM_CXX to a C++17 compiler)");
  }
  if (*rc != 0) {
    std::remove(tmpSo.c_str());
    const size_t maxLog = 12000;
    if (log.size() > maxLog)
      log = log.substr(0, maxLog) + "\n... (log truncated)";
    return Status::error("sim: compiling the CUDA source with '" + compiler[0] +
                         "' failed (exit code " + std::to_string(*rc) +
                         "); the source is " + srcPath + ":\n" + log);
  }
  Result<std::vector<uint8_t>> so = readRegularFile(tmpSo);
  if (!so)
    return so.status();
  if (std::rename(tmpSo.c_str(), soPath.c_str()) != 0) {
    std::remove(tmpSo.c_str());
    return Status::error("sim: cannot move the compiled kernels to " + soPath +
                         ": " + std::strerror(errno));
  }
  std::vector<uint8_t> sum = makeSum(*so);
  (void)writeFileAtomic(sumPath, sum.data(), sum.size());
  return soPath;
}

} // namespace

Result<std::string> buildSimKernelLibrary(const CheckedSimSource &source,
                                          bool forceRebuild) {
  return buildSimLibrary(source.text(), forceRebuild);
}

Result<std::string> buildSimKernelLibrary(const std::string &source,
                                          bool forceRebuild) {
  Result<CheckedSimSource> checked = checkSimSource(source);
  if (!checked)
    return checked.status();
  return buildSimLibrary(checked->text(), forceRebuild);
}

} // namespace dlc::rt
