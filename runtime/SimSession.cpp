//===- SimSession.cpp - The sim device: CUDA source run on the CPU --------===//
//
// The sim device compiles Package::cudaSource with the host C++ compiler
// against the embedded shim (runtime/sim/SimShim.h) into a shared object,
// cached under kernelCacheDir()/sim, opens it with dlopen and runs each
// kernel step through its dlc_sim_entry_<name> trampoline on the executor
// (SimExecutor.h). GEMM steps use the CPU reference GEMM, copies memmove.
// The arena and the constants live in host memory. docs/sim.md describes the
// model and its limits.
//
//===----------------------------------------------------------------------===//

#include "runtime/CpuGemm.h"
#include "runtime/FaultInjection.h"
#include "runtime/RuntimeImpl.h"
#include "runtime/SimExecutor.h"
#include "runtime/Support.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
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
  static const std::vector<std::string> flags = {
      "-std=c++17", simOptimizationFlag(), "-fPIC",           "-shared",
      "-DDLC_SIM",  "-ffp-contract=off",   "-fno-math-errno", "-pipe"};
  return flags;
}

/// Link flags, after the source: the kernels need only the math library
/// (and libgcc's helpers); the C library's symbols (memcpy) and the dynamic
/// linker's (__tls_get_addr) are in every process's global scope. Not
/// linking the C++ runtime and the C library is a quarter of a small
/// compilation's CPU time (reading libstdc++'s symbol tables).
const std::vector<std::string> &simLinkFlags() {
  static const std::vector<std::string> flags = {"-nodefaultlibs", "-lm",
                                                 "-lgcc"};
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
  if (Result<std::vector<uint8_t>> bytes = readFileBytes(logPath))
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
  Result<std::vector<uint8_t>> existing = readFileBytes(header);
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
  Result<std::vector<uint8_t>> so = readFileBytes(soPath);
  Result<std::vector<uint8_t>> sum = readFileBytes(sumPath);
  // Fault site: the object reads back with a byte flipped.
  if (so.isOk() && !so->empty() && fault::shouldFail("cache-corrupt"))
    (*so)[so->size() / 2] ^= 0x5a;
  return so.isOk() && sum.isOk() && *sum == makeSum(*so);
}

/// Compiles `source` into a shared object in the cache (or finds it there)
/// and returns its path.
Result<std::string> buildSimLibrary(const std::string &source,
                                    bool forceRebuild) {
  std::string dir = kernelCacheDir() + "/sim";
  Status st = makeDirectories(dir);
  if (!st)
    return Status::error("sim: cannot create the kernel cache: " +
                         st.message());

  const std::string shim(kSimShimSource, kSimShimSourceSize);
  const uint64_t shimHash = fnv1a64(shim.data(), shim.size());
  const std::string shimPath = dir + "/SimShim-" + hex64(shimHash) + ".h";
  Result<std::vector<uint8_t>> existing = readFileBytes(shimPath);
  if (!existing || std::string(existing->begin(), existing->end()) != shim)
    DLC_RT_RETURN_IF_ERROR(writeFileAtomic(shimPath, shim.data(), shim.size()));

  const std::vector<std::string> compiler = simCompilerCommand();
  Fnv1a64 ha, hb(0x84222325cbf29ce4ull);
  for (Fnv1a64 *h : {&ha, &hb}) {
    h->updateString("dlc-sim-v1");
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
  if (Result<std::vector<uint8_t>> bytes = readFileBytes(logPath))
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
  Result<std::vector<uint8_t>> so = readFileBytes(tmpSo);
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

/// Host memory for the arena and the constants, aligned like cudaMalloc's.
class AlignedBuffer {
public:
  AlignedBuffer() = default;
  AlignedBuffer(const AlignedBuffer &) = delete;
  AlignedBuffer &operator=(const AlignedBuffer &) = delete;
  ~AlignedBuffer() { std::free(data_); }
  bool allocate(size_t bytes) {
    std::free(data_);
    data_ = nullptr;
    if (fault::shouldFail("sim-alloc"))
      return false;
    size_t rounded = (std::max<size_t>(bytes, 1) + 255) / 256 * 256;
    data_ = static_cast<uint8_t *>(std::aligned_alloc(256, rounded));
    if (data_)
      std::memset(data_, 0, rounded);
    return data_ != nullptr;
  }
  uint8_t *data() const { return data_; }

private:
  uint8_t *data_ = nullptr;
};

class SimSession final : public Session {
public:
  explicit SimSession(const Package &pkg) : pkg_(pkg) {}
  ~SimSession() override {
    executor_.reset();
    if (library_)
      ::dlclose(library_);
  }

  Status init();

  Result<std::vector<HostTensor>>
  run(const std::vector<HostTensor> &inputs) override;
  Status runOnDevice(const std::vector<const void *> &inputs,
                     const std::vector<void *> &outputs) override;
  Result<std::vector<StepProfile>>
  profile(const std::vector<HostTensor> &inputs, unsigned iterations) override;
  Result<std::vector<double>> benchmark(const std::vector<HostTensor> &inputs,
                                        unsigned warmup,
                                        unsigned iterations) override;
  bool usesCudaGraph() const override { return false; }
  const Package &package() const override { return pkg_; }
  std::string deviceDescription() const override {
    return "sim (CPU emulation)";
  }

private:
  Status openLibrary(const std::string &path);
  /// Runs every step; with `times`, appends each step's wall-clock time
  /// (milliseconds) to times[step].
  Status runSteps(const std::vector<uint8_t *> &in,
                  const std::vector<uint8_t *> &out,
                  std::vector<std::vector<double>> *times = nullptr);
  /// Host tensors as the input pointers of runSteps (realigned copies
  /// where needed), and freshly allocated outputs.
  void prepareBuffers(const std::vector<HostTensor> &inputs,
                      std::vector<std::vector<uint8_t>> &realigned,
                      std::vector<uint8_t *> &in,
                      std::vector<HostTensor> &outputs,
                      std::vector<uint8_t *> &out);

  Package pkg_;
  void *library_ = nullptr;
  sim::StateFn stateFn_ = nullptr;
  std::vector<sim::EntryFn> entries_;
  std::unique_ptr<sim::Executor> executor_;
  /// Host threads for kernels and GEMMs ($DLC_SIM_THREADS, default 2).
  int threads_ = 2;
  /// DLC_GEMM_EPILOGUE_FALLBACK at creation (forceEpilogueFallback).
  const bool forceFallback_ = forceEpilogueFallback();
  AlignedBuffer arena_, constants_;

  /// Runs kernel `kernel` of the package for step `step` with `args`.
  Status launchKernel(size_t step, size_t kernel, void *const *args,
                      const uint32_t (&grid)[3], const uint32_t (&block)[3]) {
    sim::Launch launch;
    launch.entry = entries_[kernel];
    launch.args = args;
    for (int d = 0; d < 3; ++d) {
      launch.grid[d] = grid[d];
      launch.block[d] = block[d];
    }
    launch.usesBarriers = pkg_.kernels[kernel].usesBarriers;
    // Fault site: the kernel faults (the sim cannot catch a real one).
    Status st = fault::shouldFail("kernel-fault")
                    ? Status::error("illegal memory access (fault injected "
                                    "at site kernel-fault)")
                    : executor_->launch(launch);
    if (!st)
      return Status::error(describeStep(pkg_, step) + ": kernel " +
                           pkg_.kernels[kernel].name + ": " + st.message());
    return Status::ok();
  }
};

Status SimSession::openLibrary(const std::string &path) {
  if (fault::shouldFail("sim-load"))
    return Status::error("sim: cannot load " + path +
                         ": fault injected at site sim-load");
  library_ = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library_) {
    const char *e = ::dlerror();
    return Status::error("sim: cannot load " + path + ": " +
                         (e ? e : "unknown error"));
  }
  auto abi = reinterpret_cast<unsigned (*)()>(
      ::dlsym(library_, "dlc_sim_abi_version"));
  stateFn_ =
      reinterpret_cast<sim::StateFn>(::dlsym(library_, "dlc_sim_thread_state"));
  if (!abi || !stateFn_)
    return Status::error("sim: " + path +
                         " was not built against the sim shim (it lacks "
                         "dlc_sim_thread_state)");
  if (abi() != dlc_sim::kAbiVersion)
    return Status::error("sim: " + path + " uses sim ABI version " +
                         std::to_string(abi()) + ", this runtime uses " +
                         std::to_string(dlc_sim::kAbiVersion));
  entries_.assign(pkg_.kernels.size(), nullptr);
  for (size_t i = 0; i < pkg_.kernels.size(); ++i) {
    const std::string symbol = "dlc_sim_entry_" + pkg_.kernels[i].name;
    entries_[i] =
        reinterpret_cast<sim::EntryFn>(::dlsym(library_, symbol.c_str()));
    if (!entries_[i])
      return Status::error("sim: the CUDA source has no trampoline " + symbol +
                           " for kernel " + pkg_.kernels[i].name +
                           " (expected under #ifdef DLC_SIM)");
  }
  return Status::ok();
}

Status SimSession::init() {
  for (size_t i = 0; i < pkg_.steps.size(); ++i) {
    const Step &s = pkg_.steps[i];
    if (s.kind == Step::Kind::Kernel && s.kernel.sharedBytes > 0)
      return Status::error(
          describeStep(pkg_, i) + " uses " +
          std::to_string(s.kernel.sharedBytes) +
          " bytes of dynamic shared memory (extern __shared__), which the "
          "sim device does not support; use static __shared__ arrays");
  }
  if (!pkg_.kernels.empty()) {
    Result<std::string> path = buildSimLibrary(pkg_.cudaSource, false);
    if (!path)
      return path.status();
    Status opened = openLibrary(*path);
    if (!opened) {
      // A damaged cache entry that passed the checksum is unlikely, but a
      // rebuild costs only time.
      if (library_)
        ::dlclose(library_);
      library_ = nullptr;
      ++kernelCacheCounters().corruptEntries;
      path = buildSimLibrary(pkg_.cudaSource, true);
      if (!path)
        return path.status();
      DLC_RT_RETURN_IF_ERROR(openLibrary(*path));
    }
  }
  if (const char *env = std::getenv("DLC_SIM_THREADS")) {
    int v = std::atoi(env);
    if (v >= 1)
      threads_ = std::min(v, 64);
  }
  executor_ = std::make_unique<sim::Executor>(stateFn_, threads_,
                                              sim::defaultFiberBackend());
  if (!arena_.allocate(pkg_.arenaBytes))
    return Status::error("sim: cannot allocate the arena (" +
                         formatBytes(pkg_.arenaBytes) + ") in host memory");
  if (!constants_.allocate(pkg_.constants.size()))
    return Status::error("sim: cannot allocate the constants (" +
                         formatBytes(pkg_.constants.size()) +
                         ") in host memory");
  if (!pkg_.constants.empty())
    std::memcpy(constants_.data(), pkg_.constants.data(),
                pkg_.constants.size());
  return Status::ok();
}

Status SimSession::runSteps(const std::vector<uint8_t *> &in,
                            const std::vector<uint8_t *> &out,
                            std::vector<std::vector<double>> *times) {
  auto resolve = [&](const BufferRef &ref) -> uint8_t * {
    switch (ref.kind) {
    case BufferRef::Kind::Input:
      return in[ref.index] + ref.offset;
    case BufferRef::Kind::Output:
      return out[ref.index] + ref.offset;
    case BufferRef::Kind::Arena:
      return arena_.data() + ref.offset;
    case BufferRef::Kind::Constant:
      return constants_.data() + ref.offset;
    }
    return nullptr;
  };
  std::vector<void *> args;
  for (size_t i = 0; i < pkg_.steps.size(); ++i) {
    const Step &step = pkg_.steps[i];
    auto start = std::chrono::steady_clock::now();
    switch (step.kind) {
    case Step::Kind::Kernel: {
      const KernelStep &k = step.kernel;
      args.resize(k.args.size());
      for (size_t a = 0; a < k.args.size(); ++a)
        args[a] = resolve(k.args[a]);
      DLC_RT_RETURN_IF_ERROR(
          launchKernel(i, k.kernel, args.data(), k.grid, k.block));
      break;
    }
    case Step::Kind::Gemm: {
      const GemmStep &g = step.gemm;
      if (g.epilogueKernel >= 0 && forceFallback_ && g.m > 0 && g.n > 0) {
        // As a GPU without a cuBLASLt algorithm for the epilogue: the
        // addend into C, the plain product, then the epilogue kernel.
        uint8_t *c = resolve(g.c);
        if (g.addend && resolve(*g.addend) != c)
          std::memmove(c, resolve(*g.addend), epilogueResultBytes(g));
        cpuGemm(plainGemmOf(g), resolve(g.a), resolve(g.b), c, threads_);
        void *epilogueArgs[2] = {c, g.bias ? resolve(*g.bias) : nullptr};
        const uint32_t grid[3] = {epilogueGrid(g), 1, 1};
        const uint32_t block[3] = {kEpilogueThreads, 1, 1};
        DLC_RT_RETURN_IF_ERROR(launchKernel(i, size_t(g.epilogueKernel),
                                            epilogueArgs, grid, block));
        break;
      }
      cpuGemm(g, resolve(g.a), resolve(g.b), resolve(g.c), threads_,
              g.bias ? resolve(*g.bias) : nullptr,
              g.addend ? resolve(*g.addend) : nullptr);
      break;
    }
    case Step::Kind::Copy:
      if (step.copy.src.bytes)
        std::memmove(resolve(step.copy.dst), resolve(step.copy.src),
                     step.copy.src.bytes);
      break;
    }
    if (times)
      (*times)[i].push_back(std::chrono::duration<double, std::milli>(
                                std::chrono::steady_clock::now() - start)
                                .count());
  }
  return Status::ok();
}

void SimSession::prepareBuffers(const std::vector<HostTensor> &inputs,
                                std::vector<std::vector<uint8_t>> &realigned,
                                std::vector<uint8_t *> &in,
                                std::vector<HostTensor> &outputs,
                                std::vector<uint8_t *> &out) {
  // Kernels may load inputs as float4; vectors are 16-byte aligned in
  // practice, but copy any that is not.
  realigned.reserve(inputs.size());
  for (const HostTensor &t : inputs) {
    const uint8_t *p = t.data.data();
    if (uintptr_t(p) % 16 != 0) {
      realigned.emplace_back(t.data);
      p = realigned.back().data();
    }
    in.push_back(const_cast<uint8_t *>(p));
  }
  outputs.reserve(pkg_.outputs.size());
  for (const TensorDesc &d : pkg_.outputs) {
    outputs.emplace_back(d.dtype, d.shape);
    out.push_back(outputs.back().data.data());
  }
}

Result<std::vector<StepProfile>>
SimSession::profile(const std::vector<HostTensor> &inputs,
                    unsigned iterations) {
  DLC_RT_RETURN_IF_ERROR(checkRunInputs(pkg_, inputs));
  std::vector<std::vector<uint8_t>> realigned;
  std::vector<uint8_t *> in, out;
  std::vector<HostTensor> outputs;
  prepareBuffers(inputs, realigned, in, outputs, out);
  // The warm-up run faults in the arena's pages and the kernels' code.
  DLC_RT_RETURN_IF_ERROR(runSteps(in, out));
  std::vector<std::vector<double>> times(pkg_.steps.size());
  for (unsigned r = 0; r < std::max(1u, iterations); ++r)
    DLC_RT_RETURN_IF_ERROR(runSteps(in, out, &times));
  return summarizeProfile(pkg_, std::move(times));
}

Result<std::vector<double>>
SimSession::benchmark(const std::vector<HostTensor> &inputs, unsigned warmup,
                      unsigned iterations) {
  if (iterations == 0)
    return Status::error("benchmark: at least one timed run is needed");
  DLC_RT_RETURN_IF_ERROR(checkRunInputs(pkg_, inputs));
  // The "device" buffers are prepared once, like a GPU session's uploads.
  std::vector<std::vector<uint8_t>> realigned;
  std::vector<uint8_t *> in, out;
  std::vector<HostTensor> outputs;
  prepareBuffers(inputs, realigned, in, outputs, out);
  for (unsigned i = 0; i < warmup; ++i)
    DLC_RT_RETURN_IF_ERROR(runSteps(in, out));
  std::vector<double> times;
  times.reserve(iterations);
  for (unsigned r = 0; r < iterations; ++r) {
    auto start = std::chrono::steady_clock::now();
    DLC_RT_RETURN_IF_ERROR(runSteps(in, out));
    times.push_back(std::chrono::duration<double, std::milli>(
                        std::chrono::steady_clock::now() - start)
                        .count());
  }
  return times;
}

Result<std::vector<HostTensor>>
SimSession::run(const std::vector<HostTensor> &inputs) {
  DLC_RT_RETURN_IF_ERROR(checkRunInputs(pkg_, inputs));
  std::vector<std::vector<uint8_t>> realigned;
  std::vector<uint8_t *> in, out;
  std::vector<HostTensor> outputs;
  prepareBuffers(inputs, realigned, in, outputs, out);
  DLC_RT_RETURN_IF_ERROR(runSteps(in, out));
  return outputs;
}

Status SimSession::runOnDevice(const std::vector<const void *> &inputs,
                               const std::vector<void *> &outputs) {
  if (inputs.size() != pkg_.inputs.size() ||
      outputs.size() != pkg_.outputs.size())
    return Status::error("runOnDevice: expected " +
                         std::to_string(pkg_.inputs.size()) + " inputs and " +
                         std::to_string(pkg_.outputs.size()) +
                         " outputs, got " + std::to_string(inputs.size()) +
                         " and " + std::to_string(outputs.size()));
  std::vector<uint8_t *> in, out;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i] && pkg_.inputs[i].byteSize() > 0)
      return Status::error("runOnDevice: input #" + std::to_string(i) +
                           " is a null pointer");
    in.push_back(static_cast<uint8_t *>(const_cast<void *>(inputs[i])));
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (!outputs[i] && pkg_.outputs[i].byteSize() > 0)
      return Status::error("runOnDevice: output #" + std::to_string(i) +
                           " is a null pointer");
    out.push_back(static_cast<uint8_t *>(outputs[i]));
  }
  return runSteps(in, out);
}

} // namespace

Result<std::string> buildSimKernelLibrary(const std::string &source) {
  return buildSimLibrary(source, false);
}

Result<std::unique_ptr<Session>>
createSimSession(const Package &package, const SessionOptions &options) {
  (void)options;
  auto session = std::make_unique<SimSession>(package);
  DLC_RT_RETURN_IF_ERROR(session->init());
  return std::unique_ptr<Session>(std::move(session));
}

} // namespace dlc::rt
