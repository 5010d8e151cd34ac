//===- FaultInjectionTest.cpp - Every failure surfaces cleanly ------------===//
//
// For each fault site (runtime/FaultInjection.h): the failure surfaces as an
// error naming the call and what it was for, nothing leaks (objects counted
// through the CUDA entry points, and by the fake driver itself), and the
// session is still usable once the fault clears, or, after a sticky CUDA
// error, refuses further runs with a message saying why.
//
//   FaultInjection.*, SimFault.*  the mechanism, NVRTC, the sim device,
//                                 packages and caches (runtime.fault)
//   CudaFault.*                   every CUDA driver and cuBLAS call of a
//                                 CUDA session, on the fake driver
//                                 (runtime.fake-cuda-faults)
//   CudaFaultProbe.*              device discovery, in a fresh process
//                                 (runtime.fake-cuda-probe)
//
//===----------------------------------------------------------------------===//

#include "runtime/FaultInjection.h"
#include "FaultSweep.h"
#include "runtime/CudaLibs.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <dlfcn.h>
#include <set>

using namespace dlc::rt;
using namespace dlc::rt::test;
using ::testing::HasSubstr;
using ::testing::StartsWith;

namespace {

bool hasPrefix(const std::string &s, const std::string &prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

const fault::SiteInfo *findSite(const std::string &name) {
  for (const fault::SiteInfo &s : fault::sites())
    if (s.name == name)
      return &s;
  return nullptr;
}

std::string readText(const std::string &path) {
  std::vector<uint8_t> bytes = readBytes(path);
  return std::string(bytes.begin(), bytes.end());
}

//===----------------------------------------------------------------------===//
// The mechanism
//===----------------------------------------------------------------------===//

using FaultInjection = FaultTest;

TEST_F(FaultInjection, NthCallAndRepeats) {
  ASSERT_TRUE(fault::inject("sim-alloc", 3).isOk());
  std::vector<bool> got;
  for (int i = 0; i < 5; ++i)
    got.push_back(fault::shouldFail("sim-alloc"));
  EXPECT_EQ(got, std::vector<bool>({false, false, true, false, false}));
  EXPECT_EQ(fault::calls("sim-alloc"), 5u);
  EXPECT_EQ(fault::fired("sim-alloc"), 1u);
  // Unarmed sites are neither failed nor counted.
  EXPECT_FALSE(fault::shouldFail("sim-load"));
  EXPECT_EQ(fault::calls("sim-load"), 0u);

  ASSERT_TRUE(fault::inject("sim-alloc", 2, 0).isOk()); // 2nd call onwards
  got.clear();
  for (int i = 0; i < 4; ++i)
    got.push_back(fault::shouldFail("sim-alloc"));
  EXPECT_EQ(got, std::vector<bool>({false, true, true, true}));
  uint64_t total = fault::firedTotal();
  fault::clear();
  EXPECT_FALSE(fault::shouldFail("sim-alloc"));
  EXPECT_EQ(fault::fired("sim-alloc"), 0u);
  EXPECT_EQ(fault::firedTotal(), total);
}

TEST_F(FaultInjection, Specifications) {
  ASSERT_TRUE(
      fault::injectSpec("cuMemAlloc:2,sim-compile,kernel-fault:3+").isOk());
  EXPECT_FALSE(fault::shouldFail("cuMemAlloc"));
  EXPECT_TRUE(fault::shouldFail("cuMemAlloc"));
  EXPECT_TRUE(fault::shouldFail("sim-compile"));
  EXPECT_FALSE(fault::shouldFail("sim-compile"));
  for (bool want : {false, false, true, true, true})
    EXPECT_EQ(fault::shouldFail("kernel-fault"), want);
  fault::clear();

  Status unknown = fault::injectSpec("cuMemAllocc");
  ASSERT_FALSE(unknown.isOk());
  EXPECT_EQ(
      unknown.message(),
      "unknown fault site 'cuMemAllocc' (docs/reliability.md lists them)");
  for (const char *bad :
       {"cuMemAlloc:0", "cuMemAlloc:x", "cuMemAlloc:", "cuMemAlloc:+"}) {
    Status st = fault::injectSpec(bad);
    ASSERT_FALSE(st.isOk()) << bad;
    EXPECT_EQ(st.message(), "'" + std::string(bad) +
                                "': expected <site>[:<nth>[+]] with nth >= 1");
  }
  EXPECT_FALSE(fault::inject("nowhere").isOk());
}

TEST_F(FaultInjection, EveryEntryPointIsASiteAndEverySiteIsDocumented) {
  std::set<std::string> names;
  for (const fault::SiteInfo &s : fault::sites()) {
    EXPECT_TRUE(names.insert(s.name).second) << "duplicate " << s.name;
    EXPECT_FALSE(s.effect.empty()) << s.name;
  }
  // 37 driver, 9 NVRTC, 7 cuBLAS, 14 cuBLASLt and 23 cuDNN entry points,
  // and 12 other sites.
  EXPECT_EQ(names.size(), 37u + 9u + 7u + 14u + 23u + 12u);
  for (const char *n :
       {"cuMemAlloc", "cuGraphInstantiate", "cuStreamEndCapture",
        "nvrtcCompileProgram", "cublasGemmStridedBatchedEx", "cublasLtMatmul",
        "libcublaslt-missing", "libcuda-missing", "kernel-fault",
        "cache-corrupt"})
    EXPECT_TRUE(names.count(n)) << n;
  EXPECT_EQ(findSite("cuMemAlloc")->error, "CUDA_ERROR_OUT_OF_MEMORY");
  EXPECT_EQ(findSite("nvrtcCompileProgram")->error, "NVRTC_ERROR_COMPILATION");
  EXPECT_EQ(findSite("cublasGemmStridedBatchedEx")->error,
            "CUBLAS_STATUS_EXECUTION_FAILED");

  std::string doc =
      readText(std::string(DLC_SOURCE_DIR) + "/docs/reliability.md");
  ASSERT_FALSE(doc.empty()) << "docs/reliability.md is missing";
  for (const std::string &n : names)
    EXPECT_THAT(doc, HasSubstr("`" + n + "`")) << "docs/reliability.md";
}

TEST_F(FaultInjection, DriverEntryPointsReturnTheInjectedError) {
  // Through the toolkit's stub libcuda (every call of which fails): an
  // armed site returns its own error without
  // calling the library, an unarmed one calls it.
  const std::string stub = "/usr/local/cuda/lib64/stubs/libcuda.so";
  if (!fileExistsForTest(stub))
    GTEST_SKIP() << stub << " is not installed";
  (void)cudaAvailable();
  CudaDriver driver;
  std::string error;
  void *handle = nullptr;
  ASSERT_TRUE(openCudaDriverLibrary(stub, driver, error, &handle)) << error;
  LiveCudaObjects live = liveCudaObjects();
  CUdeviceptr p = 0;
  CUresult stubResult = driver.cuMemAlloc(&p, 16);
  EXPECT_NE(stubResult, CUDA_SUCCESS);
  EXPECT_NE(stubResult, CUDA_ERROR_OUT_OF_MEMORY);
  ASSERT_TRUE(fault::inject("cuMemAlloc").isOk());
  EXPECT_EQ(driver.cuMemAlloc(&p, 16), CUDA_ERROR_OUT_OF_MEMORY);
  EXPECT_EQ(driver.cuMemAlloc(&p, 16), stubResult);
  ASSERT_TRUE(fault::inject("cuDriverGetVersion").isOk());
  int version = 0;
  EXPECT_EQ(driver.cuDriverGetVersion(&version), CUDA_ERROR_INVALID_VALUE);
  ASSERT_TRUE(fault::inject("cuGetErrorString").isOk());
  const char *text = nullptr;
  EXPECT_EQ(driver.cuGetErrorString(CUDA_ERROR_OUT_OF_MEMORY, &text),
            CUDA_ERROR_INVALID_VALUE);
  ASSERT_TRUE(fault::inject("cuInit").isOk());
  EXPECT_EQ(driver.cuInit(0), CUDA_ERROR_NO_DEVICE);
  // Error names survive a failing cuGetErrorName.
  ASSERT_TRUE(fault::inject("cuGetErrorName", 1, 0).isOk());
  EXPECT_EQ(driver.errorName(CUDA_ERROR_OUT_OF_MEMORY),
            "CUDA_ERROR_OUT_OF_MEMORY");
  EXPECT_EQ(driver.errorName(CUresult(12345)), "CUDA error 12345");
  EXPECT_EQ(driver.cuMemAlloc.site(), std::string("cuMemAlloc"));
  EXPECT_EQ(liveCudaObjects(), live);
  ::dlclose(handle);
}

//===----------------------------------------------------------------------===//
// NVRTC
//===----------------------------------------------------------------------===//

const char *kSmallKernel = R"cuda(
extern "C" __global__ void k_inc(const float *__restrict__ a,
                                 float *__restrict__ out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < 256)
    out[i] = a[i] + 1.0f;
}
#ifdef DLC_SIM
extern "C" void dlc_sim_entry_k_inc(void *const *a) {
  k_inc((const float *)a[0], (float *)a[1]);
}
#endif
)cuda";

class NvrtcFault : public FaultTest {
protected:
  void SetUp() override {
    Result<std::string> v = nvrtcVersion();
    if (!v.isOk())
      GTEST_SKIP() << v.message();
  }
};

TEST_F(NvrtcFault, EveryNvrtcCallFailsCleanlyAndIsNotCached) {
  // Sites reached by a compilation (nvrtcVersion and nvrtcGetErrorString are
  // covered below).
  const std::vector<std::string> sites = {
      "nvrtcCreateProgram", "nvrtcCompileProgram", "nvrtcGetProgramLogSize",
      "nvrtcGetProgramLog", "nvrtcGetCUBINSize",   "nvrtcGetCUBIN",
      "nvrtcDestroyProgram"};
  // Failing to fetch the log of a successful compilation only loses the
  // (empty) log; a failed release is not the caller's concern.
  const std::set<std::string> harmless = {
      "nvrtcGetProgramLogSize", "nvrtcGetProgramLog", "nvrtcDestroyProgram"};
  // An unused variable makes NVRTC log a warning, so that the log is
  // fetched.
  const std::string source = std::string(kSmallKernel) +
                             "__device__ int f() { int unused; return 1; }\n";
  for (const std::string &site : sites) {
    SCOPED_TRACE(site);
    TempDir dir("dlc-nvrtc-fault");
    ScopedEnv env("DLC_CACHE_DIR", dir.path());
    int64_t programs = liveCudaObjects().nvrtcPrograms;
    ASSERT_TRUE(fault::inject(site).isOk());
    Result<std::vector<uint8_t>> r = compileCudaToCubin(source, "sm_90");
    EXPECT_EQ(fault::fired(site), 1u);
    fault::clear();
    EXPECT_EQ(liveCudaObjects().nvrtcPrograms, programs);
    if (harmless.count(site)) {
      EXPECT_TRUE(r.isOk()) << r.message();
      continue;
    }
    ASSERT_FALSE(r.isOk());
    EXPECT_THAT(r.message(), HasSubstr(findSite(site)->error));
    if (site == "nvrtcCompileProgram")
      EXPECT_EQ(r.message(), "NVRTC failed to compile the kernels for sm_90 "
                             "(NVRTC_ERROR_COMPILATION)");
    else
      EXPECT_THAT(r.message(), StartsWith(site + " failed"));
    // Nothing was cached, and the next compilation works.
    EXPECT_TRUE(TempDir::list(dir.path() + "/cubin").empty());
    Result<std::vector<uint8_t>> again = compileCudaToCubin(source, "sm_90");
    ASSERT_TRUE(again.isOk()) << again.message();
    EXPECT_EQ(TempDir::list(dir.path() + "/cubin").size(), 1u);
  }
}

TEST_F(NvrtcFault, ErrorStringsAndMissingLibrary) {
  TempDir dir("dlc-nvrtc-fault");
  ScopedEnv env("DLC_CACHE_DIR", dir.path());
  ASSERT_TRUE(fault::inject("nvrtcCompileProgram").isOk());
  ASSERT_TRUE(fault::inject("nvrtcGetErrorString", 1, 0).isOk());
  Result<std::vector<uint8_t>> r = compileCudaToCubin(kSmallKernel, "sm_90");
  ASSERT_FALSE(r.isOk());
  EXPECT_EQ(r.message(), "NVRTC failed to compile the kernels for sm_90 "
                         "(NVRTC_ERROR_COMPILATION)");
  fault::clear();

  // A failing compilation whose program cannot be destroyed either: the
  // error is the compilation's, and the program is not counted as leaked
  // (the fault releases it).
  int64_t programs = liveCudaObjects().nvrtcPrograms;
  ASSERT_TRUE(fault::inject("nvrtcDestroyProgram").isOk());
  Result<std::vector<uint8_t>> bad = compileCudaToCubin(
      "extern \"C\" __global__ void k(float *p) { p[0] = nope; }", "sm_90");
  ASSERT_FALSE(bad.isOk());
  EXPECT_THAT(bad.message(), HasSubstr("NVRTC_ERROR_COMPILATION"));
  EXPECT_THAT(bad.message(), HasSubstr("nope"));
  EXPECT_EQ(fault::fired("nvrtcDestroyProgram"), 1u);
  EXPECT_EQ(liveCudaObjects().nvrtcPrograms, programs);
  fault::clear();

  ASSERT_TRUE(fault::inject("libnvrtc-missing").isOk());
  Result<std::vector<uint8_t>> m = compileCudaToCubin(kSmallKernel, "sm_90");
  ASSERT_FALSE(m.isOk());
  EXPECT_EQ(m.message(), "cannot compile CUDA kernels: NVRTC is not "
                         "available: libnvrtc.so.13 not found");
  EXPECT_TRUE(compileCudaToCubin(kSmallKernel, "sm_90").isOk());
}

TEST_F(NvrtcFault, CorruptCubinCacheEntryIsRecompiled) {
  TempDir dir("dlc-nvrtc-fault");
  ScopedEnv env("DLC_CACHE_DIR", dir.path());
  Result<std::vector<uint8_t>> first =
      compileCudaToCubin(kSmallKernel, "sm_90");
  ASSERT_TRUE(first.isOk()) << first.message();
  KernelCacheStats s0 = kernelCacheStats();
  ASSERT_TRUE(fault::inject("cache-corrupt").isOk());
  Result<std::vector<uint8_t>> second =
      compileCudaToCubin(kSmallKernel, "sm_90");
  ASSERT_TRUE(second.isOk()) << second.message();
  EXPECT_EQ(*second, *first);
  KernelCacheStats s1 = kernelCacheStats();
  EXPECT_EQ(s1.corruptEntries, s0.corruptEntries + 1);
  EXPECT_EQ(s1.misses, s0.misses + 1);
  EXPECT_EQ(s1.hits, s0.hits);
  // Rewritten: the next lookup hits.
  ASSERT_TRUE(compileCudaToCubin(kSmallKernel, "sm_90").isOk());
  EXPECT_EQ(kernelCacheStats().hits, s1.hits + 1);
}

//===----------------------------------------------------------------------===//
// The sim device, packages and caches
//===----------------------------------------------------------------------===//

/// k_inc into the arena and again into output 0, and the constants copied
/// to output 1.
Package smallPackage(const std::string &tag = "") {
  Package p;
  p.cudaSource = std::string(kSmallKernel) + tag;
  p.kernels = {{"k_inc", false, std::nullopt}};
  p.inputs = {{DType::F32, {256}}};
  p.outputs = {{DType::F32, {256}}, {DType::F32, {4}}};
  p.arenaBytes = 1024;
  p.constants = std::vector<uint8_t>(16, 0x3f);
  Step a;
  a.kind = Step::Kind::Kernel;
  a.label = "k0: inc";
  a.kernel.grid[0] = 2;
  a.kernel.block[0] = 128;
  a.kernel.args = {inputRef(0, 1024), arenaRef(0, 1024)};
  Step b = a;
  b.label = "k1: inc";
  b.kernel.args = {arenaRef(0, 1024), outputRef(0, 1024)};
  Step c;
  c.kind = Step::Kind::Copy;
  c.label = "constants";
  c.copy.src = bufferRef(BufferRef::Kind::Constant, 0, 0, 16);
  c.copy.dst = outputRef(1, 16);
  p.steps = {a, b, c};
  signKernels(p);
  return p;
}

Result<std::unique_ptr<Session>> createSim(const Package &p) {
  SessionOptions opts;
  opts.device = DeviceKind::Sim;
  return Session::create(p, opts);
}

/// Runs the small package and checks its outputs.
void expectSmallRunWorks(Session &s) {
  HostTensor x = randomF32({256}, 31);
  Result<std::vector<HostTensor>> out = s.run({x});
  ASSERT_TRUE(out.isOk()) << out.message();
  for (int i = 0; i < 256; i += 51)
    EXPECT_EQ((*out)[0].getAsDouble(i),
              double(float(float(x.getAsDouble(i)) + 1.0f) + 1.0f));
  EXPECT_EQ((*out)[1].data, std::vector<uint8_t>(16, 0x3f));
}

/// Files a failed or interrupted build could leave in the sim cache.
std::vector<std::string> strayFiles(const std::string &dir) {
  std::vector<std::string> out;
  for (const std::string &n : TempDir::list(dir))
    if (n.find(".tmp.") != std::string::npos ||
        n.find(".log.") != std::string::npos)
      out.push_back(n);
  return out;
}

using SimFault = FaultTest;

TEST_F(SimFault, HostCompilerFailureIsReportedAndLeavesNoFiles) {
  TempDir dir("dlc-sim-fault");
  ScopedEnv env("DLC_CACHE_DIR", dir.path());
  Package p = smallPackage();
  ASSERT_TRUE(fault::inject("sim-compile").isOk());
  Result<std::unique_ptr<Session>> s = createSim(p);
  ASSERT_FALSE(s.isOk());
  EXPECT_THAT(s.message(), StartsWith("sim: compiling the CUDA source with '"));
  EXPECT_THAT(s.message(), HasSubstr("' failed (exit code 1); the source is " +
                                     dir.path() + "/sim/"));
  EXPECT_THAT(s.message(), HasSubstr("fault injected at site sim-compile"));
  EXPECT_TRUE(strayFiles(dir.path() + "/sim").empty());
  // No object was cached: the next session compiles and works.
  KernelCacheStats before = kernelCacheStats();
  Result<std::unique_ptr<Session>> t = createSim(p);
  ASSERT_TRUE(t.isOk()) << t.message();
  EXPECT_EQ(kernelCacheStats().misses, before.misses + 1);
  expectSmallRunWorks(**t);
  EXPECT_TRUE(strayFiles(dir.path() + "/sim").empty());
}

TEST_F(SimFault, LoadFailureRebuildsOnceThenReports) {
  Package p = smallPackage("// sim-load\n");
  {
    // Compile into the cache first.
    Result<std::unique_ptr<Session>> s = createSim(p);
    ASSERT_TRUE(s.isOk()) << s.message();
  }
  KernelCacheStats s0 = kernelCacheStats();
  ASSERT_TRUE(fault::inject("sim-load").isOk());
  Result<std::unique_ptr<Session>> once = createSim(p);
  ASSERT_TRUE(once.isOk()) << once.message();
  KernelCacheStats s1 = kernelCacheStats();
  EXPECT_EQ(s1.corruptEntries, s0.corruptEntries + 1);
  EXPECT_EQ(s1.misses, s0.misses + 1);
  expectSmallRunWorks(**once);

  ASSERT_TRUE(fault::inject("sim-load", 1, 0).isOk());
  Result<std::unique_ptr<Session>> always = createSim(p);
  ASSERT_FALSE(always.isOk());
  EXPECT_THAT(always.message(), StartsWith("sim: cannot load "));
  EXPECT_THAT(always.message(),
              HasSubstr(".so: fault injected at site sim-load"));
}

TEST_F(SimFault, HostAllocationFailureNamesTheBuffer) {
  Package p = smallPackage();
  ASSERT_TRUE(fault::inject("sim-alloc").isOk());
  Result<std::unique_ptr<Session>> a = createSim(p);
  ASSERT_FALSE(a.isOk());
  EXPECT_EQ(a.message(),
            "sim: cannot allocate the arena (1 KiB) in host memory");
  ASSERT_TRUE(fault::inject("sim-alloc", 2).isOk());
  Result<std::unique_ptr<Session>> c = createSim(p);
  ASSERT_FALSE(c.isOk());
  EXPECT_EQ(c.message(),
            "sim: cannot allocate the constants (16 bytes) in host memory");
  fault::clear();
  Result<std::unique_ptr<Session>> ok = createSim(p);
  ASSERT_TRUE(ok.isOk()) << ok.message();
  expectSmallRunWorks(**ok);
}

TEST_F(SimFault, KernelFaultFailsTheStepAndTheSessionGoesOn) {
  Result<std::unique_ptr<Session>> s = createSim(smallPackage());
  ASSERT_TRUE(s.isOk()) << s.message();
  ASSERT_TRUE(fault::inject("kernel-fault", 2).isOk());
  HostTensor x = randomF32({256}, 32);
  Result<std::vector<HostTensor>> r = (*s)->run({x});
  ASSERT_FALSE(r.isOk());
  EXPECT_EQ(r.message(), "step 1 (k1: inc): kernel k_inc: illegal memory "
                         "access (fault injected at site kernel-fault)");
  // The sim device has no sticky errors: the next run works.
  expectSmallRunWorks(**s);
}

TEST_F(SimFault, BenchmarkReportsAKernelFaultAndTheSessionGoesOn) {
  Result<std::unique_ptr<Session>> s = createSim(smallPackage());
  ASSERT_TRUE(s.isOk()) << s.message();
  HostTensor x = randomF32({256}, 33);
  // The small package has two kernel steps: call 6 is the second step of
  // the first timed run, after two warm-up runs.
  ASSERT_TRUE(fault::inject("kernel-fault", 6).isOk());
  Result<std::vector<double>> t = (*s)->benchmark({x}, 2, 3);
  ASSERT_FALSE(t.isOk());
  EXPECT_EQ(t.message(), "step 1 (k1: inc): kernel k_inc: illegal memory "
                         "access (fault injected at site kernel-fault)");
  EXPECT_EQ(fault::calls("kernel-fault"), 6u);
  fault::clear();
  t = (*s)->benchmark({x}, 0, 2);
  ASSERT_TRUE(t.isOk()) << t.message();
  EXPECT_EQ(t->size(), 2u);
  expectSmallRunWorks(**s);
}

TEST_F(SimFault, CorruptCachedObjectIsRebuilt) {
  Package p = smallPackage("// cache-corrupt\n");
  {
    Result<std::unique_ptr<Session>> s = createSim(p);
    ASSERT_TRUE(s.isOk()) << s.message();
  }
  KernelCacheStats s0 = kernelCacheStats();
  ASSERT_TRUE(fault::inject("cache-corrupt").isOk());
  Result<std::unique_ptr<Session>> s = createSim(p);
  ASSERT_TRUE(s.isOk()) << s.message();
  KernelCacheStats s1 = kernelCacheStats();
  EXPECT_EQ(s1.corruptEntries, s0.corruptEntries + 1);
  EXPECT_EQ(s1.misses, s0.misses + 1);
  expectSmallRunWorks(**s);
  Result<std::unique_ptr<Session>> t = createSim(p);
  ASSERT_TRUE(t.isOk());
  EXPECT_EQ(kernelCacheStats().hits, s1.hits + 1);
}

TEST_F(SimFault, TruncatedAndCorruptPackageFiles) {
  TempDir dir("dlc-pkg-fault");
  const std::string path = dir.file("model.dlcpkg");
  ASSERT_TRUE(writePackageFile(path, smallPackage()).isOk());
  ASSERT_TRUE(fault::inject("package-truncated").isOk());
  Result<Package> t = readPackageFile(path);
  ASSERT_FALSE(t.isOk());
  EXPECT_THAT(t.message(), StartsWith(path + " is truncated ("));
  ASSERT_TRUE(fault::inject("package-corrupt").isOk());
  Result<Package> c = readPackageFile(path);
  ASSERT_FALSE(c.isOk());
  EXPECT_EQ(c.message(), path + ": checksum mismatch: the file is corrupt");
  // The file itself is intact.
  Result<Package> ok = readPackageFile(path);
  ASSERT_TRUE(ok.isOk()) << ok.message();
  Result<std::unique_ptr<Session>> s = createSim(*ok);
  ASSERT_TRUE(s.isOk()) << s.message();
  expectSmallRunWorks(**s);
}

//===----------------------------------------------------------------------===//
// CUDA sessions on the fake driver
//===----------------------------------------------------------------------===//

TEST_F(CudaFault, EveryCudaAndCublasCallFailsCleanly) {
  // 64 KiB of dynamic shared memory makes the session call
  // cuFuncSetAttribute too.
  Package pkg = withFakeCubin(scenarioPackage(64 * 1024));
  ASSERT_EQ(pkg.cubins.size(), 1u);
  std::vector<HostTensor> in = scenarioInputs();
  std::vector<HostTensor> want = simOutputs(pkg, in);
  ASSERT_FALSE(want.empty());
  // When cuModuleLoadData fails, the session compiles the source with NVRTC
  // and loads that: let the fake run such a cubin.
  fake_->setCubinStandIn(
      reinterpret_cast<const char *>(pkg.cubins[0].image.data()));
  const bool haveNvrtc = nvrtcVersion().isOk();

  // Releases report errors nobody can act on; their failures must stay
  // silent and leak nothing.
  const std::set<std::string> releases = {"cuDevicePrimaryCtxRelease",
                                          "cuCtxPopCurrent",
                                          "cuModuleUnload",
                                          "cuMemFree",
                                          "cuStreamDestroy",
                                          "cuGraphExecDestroy",
                                          "cuGraphDestroy",
                                          "cuEventDestroy",
                                          "cublasDestroy"};
  // Reached only on other errors, at process start, or not at all; tested
  // elsewhere in this file.
  const std::set<std::string> notInALifecycle = {
      "cuInit", "cuDriverGetVersion", "cuGetErrorName", "cuGetErrorString",
      "cublasGetStatusName"};

  std::vector<Sweep> sweeps(4);
  for (Sweep &w : sweeps) {
    w.mode = Mode(&w - sweeps.data());
    w.package = pkg;
    w.inputs = in;
    w.want = want;
  }
  if (haveNvrtc)
    sweeps[int(Mode::NvrtcFallback)].package.cubins[0].arch = "sm_80";
  else
    sweeps.erase(sweeps.begin() + int(Mode::NvrtcFallback));

  std::set<std::string> tested;
  size_t lifecycles = 0;
  for (Sweep &w : sweeps) {
    if (w.mode == Mode::RunOnDevice) {
      // Made now: while the test holds them, the context outlives sessions.
      std::vector<uint64_t> inBytes, outBytes;
      for (const TensorDesc &d : pkg.inputs)
        inBytes.push_back(d.byteSize());
      for (const TensorDesc &d : pkg.outputs)
        outBytes.push_back(d.byteSize());
      w.buffers = std::make_unique<CallerBuffers>(inBytes, outBytes);
      w.buffers->write(in);
    }
    for (const fault::SiteInfo &site : fault::sites()) {
      const bool cudaSite =
          (hasPrefix(site.name, "cu") && !notInALifecycle.count(site.name)) ||
          site.name == "kernel-fault";
      if (!cudaSite)
        continue;
      // How often a clean lifecycle reaches the site.
      ASSERT_TRUE(fault::inject(site.name, ~uint64_t(0)).isOk());
      Lifecycle clean = runLifecycle(w, site.name);
      uint64_t calls = fault::calls(site.name);
      fault::clear();
      ASSERT_TRUE(clean.errors.empty())
          << modeName(w.mode) << ": " << clean.errors[0];

      for (uint64_t nth = 1; nth <= calls; ++nth) {
        SCOPED_TRACE(std::string(modeName(w.mode)) + ": " + site.name +
                     ", call " + std::to_string(nth) + " of " +
                     std::to_string(calls));
        LiveCudaObjects live = liveCudaObjects();
        FakeCudaStats start = fake_->snapshot();
        ASSERT_TRUE(fault::inject(site.name, nth).isOk());
        Lifecycle life = runLifecycle(w, site.name);
        EXPECT_EQ(fault::fired(site.name), 1u);
        fault::clear();
        ++lifecycles;
        tested.insert(site.name);
        expectNoLeaks(live, start, w.mode == Mode::RunOnDevice);

        if (releases.count(site.name) || !life.firedInUse) {
          // A failed release, or a fault in the destructor: nothing to
          // report, and the runs were right.
          EXPECT_TRUE(life.errors.empty()) << life.errors[0];
          continue;
        }
        if (site.name == "cuModuleLoadData" && w.mode != Mode::NvrtcFallback &&
            haveNvrtc && life.errors.empty())
          continue; // recompiled with NVRTC and loaded that instead
        ASSERT_FALSE(life.errors.empty()) << "the failure did not surface";
        const std::string &msg = life.errors[0];
        if (site.name == "kernel-fault") {
          EXPECT_THAT(msg, StartsWith("cuStreamSynchronize failed "));
          EXPECT_THAT(msg, HasSubstr(": CUDA_ERROR_ILLEGAL_ADDRESS"));
        } else {
          EXPECT_THAT(msg, HasSubstr(site.error));
          if (site.name != "cuModuleLoadData") {
            EXPECT_THAT(msg, HasSubstr(site.name + " "));
          }
        }
        bool sticky =
            msg.find("CUDA_ERROR_ILLEGAL_ADDRESS") != std::string::npos ||
            msg.find("CUDA_ERROR_LAUNCH_FAILED") != std::string::npos;
        if (sticky) {
          EXPECT_EQ(life.recovery,
                    "the CUDA context is unusable after an earlier error (" +
                        msg.substr(0, msg.find(" (set DLC_CUDA")) +
                        "); CUDA requires restarting the process");
        } else {
          EXPECT_TRUE(life.recovered) << life.recovery;
        }
      }
    }
  }
  // All 37 driver and 7 cuBLAS entry points but the five above, and the
  // kernel fault.
  EXPECT_EQ(tested.size(), 37u + 7u - 5u + 1u);
  std::printf("%zu sites, %zu session lifecycles with one failure each\n",
              tested.size(), lifecycles);
}

TEST_F(CudaFault, EveryCublasLtCallFailsCleanly) {
  // GEMMs with epilogues (cublasLtMatmul); the package has no kernels.
  Package pkg = epiloguePackage();
  std::vector<HostTensor> in = epilogueInputs();
  std::vector<HostTensor> want = simOutputs(pkg, in);
  ASSERT_FALSE(want.empty());
  const std::set<std::string> releases = {
      "cublasLtDestroy", "cublasLtMatmulDescDestroy",
      "cublasLtMatrixLayoutDestroy", "cublasLtMatmulPreferenceDestroy"};
  std::vector<Sweep> sweeps(3);
  const Mode modes[] = {Mode::Graph, Mode::SyncSteps, Mode::RunOnDevice};
  std::set<std::string> tested;
  size_t lifecycles = 0;
  for (size_t i = 0; i < sweeps.size(); ++i) {
    Sweep &w = sweeps[i];
    w.mode = modes[i];
    w.package = pkg;
    w.inputs = in;
    w.want = want;
    if (w.mode == Mode::RunOnDevice) {
      std::vector<uint64_t> inBytes, outBytes;
      for (const TensorDesc &d : pkg.inputs)
        inBytes.push_back(d.byteSize());
      for (const TensorDesc &d : pkg.outputs)
        outBytes.push_back(d.byteSize());
      w.buffers = std::make_unique<CallerBuffers>(inBytes, outBytes);
      w.buffers->write(in);
    }
    for (const fault::SiteInfo &site : fault::sites()) {
      if (!hasPrefix(site.name, "cublasLt") ||
          site.name == "cublasLtGetStatusName")
        continue;
      ASSERT_TRUE(fault::inject(site.name, ~uint64_t(0)).isOk());
      Lifecycle clean = runLifecycle(w, site.name);
      uint64_t calls = fault::calls(site.name);
      fault::clear();
      ASSERT_TRUE(clean.errors.empty())
          << modeName(w.mode) << ": " << clean.errors[0];
      for (uint64_t nth = 1; nth <= calls; ++nth) {
        SCOPED_TRACE(std::string(modeName(w.mode)) + ": " + site.name +
                     ", call " + std::to_string(nth) + " of " +
                     std::to_string(calls));
        LiveCudaObjects live = liveCudaObjects();
        FakeCudaStats start = fake_->snapshot();
        ASSERT_TRUE(fault::inject(site.name, nth).isOk());
        Lifecycle life = runLifecycle(w, site.name);
        EXPECT_EQ(fault::fired(site.name), 1u);
        fault::clear();
        ++lifecycles;
        tested.insert(site.name);
        expectNoLeaks(live, start, w.mode == Mode::RunOnDevice);
        FakeCudaStats now = fake_->snapshot();
        EXPECT_EQ(now.cublasLtHandles, 0);
        EXPECT_EQ(now.cublasLtDescriptors, 0);
        if (releases.count(site.name) || !life.firedInUse) {
          EXPECT_TRUE(life.errors.empty()) << life.errors[0];
          continue;
        }
        ASSERT_FALSE(life.errors.empty()) << "the failure did not surface";
        EXPECT_THAT(life.errors[0], HasSubstr(site.name + " failed"));
        EXPECT_THAT(life.errors[0], HasSubstr(": " + site.error));
        // Nothing cuBLASLt reports is sticky: the next run works.
        EXPECT_TRUE(life.recovered) << life.recovery;
      }
    }
  }
  // The 14 cuBLASLt entry points but cublasLtGetStatusName.
  EXPECT_EQ(tested.size(), 13u);
  std::printf("%zu cuBLASLt sites, %zu session lifecycles with one failure "
              "each\n",
              tested.size(), lifecycles);
}

TEST_F(CudaFault, EpilogueFallbackCallsFailCleanly) {
  // cuBLASLt offers no algorithm: the step runs as the addend copy, a plain
  // cuBLAS GEMM (its handle made then) and the epilogue kernel. Every call
  // of that path fails in turn, with no leak, and the session recovers.
  ScopedEnv none("DLC_FAKE_CUBLASLT_NO_ALGORITHM", "1");
  Package pkg = withFakeCubin(epilogueFallbackPackage());
  std::vector<HostTensor> in = epilogueInputs();
  in.resize(4);
  std::vector<HostTensor> want = simOutputs(pkg, in);
  ASSERT_FALSE(want.empty());
  const std::set<std::string> releases = {
      "cuMemFree",      "cuModuleUnload",     "cuStreamDestroy",
      "cuGraphDestroy", "cuGraphExecDestroy", "cublasDestroy",
      "cuEventDestroy"};
  const std::set<std::string> paths = {
      "cuMemcpyDtoDAsync",         "cuLaunchKernel",     "cublasCreate",
      "cublasSetStream",           "cublasSetWorkspace", "cublasSetMathMode",
      "cublasGemmStridedBatchedEx"};
  std::set<std::string> tested;
  for (Mode mode : {Mode::Graph, Mode::SyncSteps}) {
    Sweep w;
    w.mode = mode;
    w.package = pkg;
    w.inputs = in;
    w.want = want;
    for (const std::string &site : paths) {
      ASSERT_TRUE(fault::inject(site, ~uint64_t(0)).isOk()) << site;
      Lifecycle clean = runLifecycle(w, site);
      uint64_t calls = fault::calls(site);
      fault::clear();
      ASSERT_TRUE(clean.errors.empty()) << clean.errors[0];
      ASSERT_GT(calls, 0u) << site << " is not on the fallback path";
      for (uint64_t nth = 1; nth <= calls; ++nth) {
        SCOPED_TRACE(std::string(modeName(mode)) + ": " + site + ", call " +
                     std::to_string(nth) + " of " + std::to_string(calls));
        LiveCudaObjects live = liveCudaObjects();
        FakeCudaStats start = fake_->snapshot();
        ASSERT_TRUE(fault::inject(site, nth).isOk());
        Lifecycle life = runLifecycle(w, site);
        EXPECT_EQ(fault::fired(site), 1u);
        fault::clear();
        tested.insert(site);
        expectNoLeaks(live, start, false);
        if (releases.count(site) || !life.firedInUse) {
          EXPECT_TRUE(life.errors.empty()) << life.errors[0];
          continue;
        }
        ASSERT_FALSE(life.errors.empty()) << "the failure did not surface";
        EXPECT_THAT(life.errors[0], HasSubstr(site + " "));
        EXPECT_TRUE(life.recovered) << life.recovery;
      }
    }
  }
  EXPECT_EQ(tested.size(), paths.size());
}

TEST_F(CudaFault, CublasLtMessagesAndMissingLibrary) {
  LiveCudaObjects live = liveCudaObjects();
  FakeCudaStats start = fake_->snapshot();
  Package p = epiloguePackage();
  std::vector<HostTensor> in = epilogueInputs();
  {
    Result<std::unique_ptr<Session>> s = createCuda(p);
    ASSERT_TRUE(s.isOk()) << s.message();
    // Even when cuBLASLt cannot name its statuses.
    ASSERT_TRUE(fault::inject("cublasLtMatmul", 2).isOk());
    ASSERT_TRUE(fault::inject("cublasLtGetStatusName", 1, 0).isOk());
    Result<std::vector<HostTensor>> r = (*s)->run(in);
    ASSERT_FALSE(r.isOk());
    EXPECT_EQ(r.message(), "cublasLtMatmul failed for step 1 (gemm gelu): "
                           "CUBLAS_STATUS_EXECUTION_FAILED");
    fault::clear();
    // Steps 0 and 1 keep the algorithms of the first run; step 2 asks.
    ASSERT_TRUE(fault::inject("cublasLtMatmulAlgoGetHeuristic").isOk());
    r = (*s)->run(in);
    ASSERT_FALSE(r.isOk());
    EXPECT_EQ(r.message(),
              "cublasLtMatmulAlgoGetHeuristic failed for step 2 (gemm "
              "residual): CUBLAS_STATUS_NOT_SUPPORTED");
    fault::clear();
    r = (*s)->run(in);
    ASSERT_TRUE(r.isOk()) << r.message();
    EXPECT_TRUE(sameOutputs(*r, simOutputs(p, in)));
  }
  // cuBLASLt is loaded for packages with epilogues only.
  ASSERT_TRUE(fault::inject("libcublaslt-missing", 1, 0).isOk());
  Result<std::unique_ptr<Session>> g = createCuda(p);
  ASSERT_FALSE(g.isOk());
  EXPECT_EQ(g.message(), "the package has GEMM steps with epilogues but "
                         "cuBLASLt is not available: " +
                             std::string(std::getenv("DLC_CUBLASLT_LIB")) +
                             " not found");
  {
    Result<std::unique_ptr<Session>> plain =
        createCuda(withFakeCubin(scenarioPackage()));
    EXPECT_TRUE(plain.isOk()) << plain.message();
  }
  fault::clear();
  expectNoLeaks(live, start);
}

TEST_F(CudaFault, MessagesNameTheCallAndWhatItWasFor) {
  LiveCudaObjects live = liveCudaObjects();
  FakeCudaStats start = fake_->snapshot();
  Package p = elementwisePackage();
  p.arenaBytes = 1536 * 1024;
  p = withFakeCubin(p);
  ASSERT_TRUE(fault::inject("cuMemAlloc").isOk());
  // Even when the driver cannot name its errors.
  ASSERT_TRUE(fault::inject("cuGetErrorName", 1, 0).isOk());
  Result<std::unique_ptr<Session>> s = createCuda(p);
  ASSERT_FALSE(s.isOk());
  EXPECT_EQ(s.message(), "cuMemAlloc failed for the arena (1.5 MiB): "
                         "CUDA_ERROR_OUT_OF_MEMORY");
  fault::clear();

  Package g = withFakeCubin(scenarioPackage());
  Result<std::unique_ptr<Session>> t = createCuda(g);
  ASSERT_TRUE(t.isOk()) << t.message();
  ASSERT_TRUE(fault::inject("cublasGemmStridedBatchedEx", 2).isOk());
  ASSERT_TRUE(fault::inject("cublasGetStatusName", 1, 0).isOk());
  Result<std::vector<HostTensor>> r = (*t)->run(scenarioInputs());
  ASSERT_FALSE(r.isOk());
  EXPECT_EQ(r.message(), "cublasGemmStridedBatchedEx failed for step 2 "
                         "(matmul-transA): CUBLAS_STATUS_EXECUTION_FAILED");
  ASSERT_TRUE(fault::inject("cuMemcpyDtoHAsync", 3).isOk());
  r = (*t)->run(scenarioInputs());
  ASSERT_FALSE(r.isOk());
  EXPECT_EQ(r.message(), "cuMemcpyDtoHAsync failed for output #2: "
                         "CUDA_ERROR_INVALID_VALUE");
  ASSERT_TRUE(fault::inject("cuLaunchKernel").isOk());
  r = (*t)->run(scenarioInputs());
  ASSERT_FALSE(r.isOk());
  EXPECT_EQ(r.message(), "cuLaunchKernel failed for step 3 (k_ew): "
                         "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES");
  fault::clear();
  t->reset();
  expectNoLeaks(live, start);
}

TEST_F(CudaFault, BenchmarkMessagesNameTheRunAndTheSessionGoesOn) {
  LiveCudaObjects live = liveCudaObjects();
  FakeCudaStats start = fake_->snapshot();
  Package p = withFakeCubin(scenarioPackage());
  std::vector<HostTensor> in = scenarioInputs();
  std::vector<HostTensor> want = simOutputs(p, in);
  struct Case {
    const char *site;
    uint64_t nth;
    const char *message;
  };
  // On a fresh session, benchmark(in, 1, 3) runs once directly (the
  // warm-up), once more to capture the graph (graph launch 1), then three
  // timed replays (graph launches 2-4), each between two events.
  const Case cases[] = {
      {"cuEventCreate", 2,
       "cuEventCreate failed for the benchmark: CUDA_ERROR_OUT_OF_MEMORY"},
      {"cuEventRecord", 3,
       "cuEventRecord failed for benchmark run 2: CUDA_ERROR_INVALID_HANDLE"},
      {"cuEventElapsedTime", 3,
       "cuEventElapsedTime failed for benchmark run 3: "
       "CUDA_ERROR_INVALID_HANDLE"},
      {"cuGraphLaunch", 3, "cuGraphLaunch failed: CUDA_ERROR_INVALID_VALUE"},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.site);
    Result<std::unique_ptr<Session>> s = createCuda(p);
    ASSERT_TRUE(s.isOk()) << s.message();
    ASSERT_TRUE(fault::inject(c.site, c.nth).isOk());
    Result<std::vector<double>> t = (*s)->benchmark(in, 1, 3);
    ASSERT_FALSE(t.isOk());
    EXPECT_EQ(t.message(), c.message);
    EXPECT_EQ(fault::fired(c.site), 1u);
    fault::clear();
    EXPECT_EQ(liveCudaObjects().events, live.events);
    // Not sticky: the session benchmarks and runs as before.
    Result<std::vector<double>> ok = (*s)->benchmark(in, 0, 2);
    ASSERT_TRUE(ok.isOk()) << ok.message();
    EXPECT_EQ(ok->size(), 2u);
    Result<std::vector<HostTensor>> r = (*s)->run(in);
    ASSERT_TRUE(r.isOk()) << r.message();
    EXPECT_TRUE(sameOutputs(*r, want));
  }
  {
    Result<std::unique_ptr<Session>> s = createCuda(p);
    ASSERT_TRUE(s.isOk()) << s.message();
    Result<std::vector<double>> none = (*s)->benchmark(in, 1, 0);
    ASSERT_FALSE(none.isOk());
    EXPECT_EQ(none.message(), "benchmark: at least one timed run is needed");
  }
  expectNoLeaks(live, start);
}

TEST_F(CudaFault, CallSitesOutsideASessionsLifecycle) {
  LiveCudaObjects live = liveCudaObjects();
  FakeCudaStats start = fake_->snapshot();
  // defaultCudaArch falls back when the device cannot be queried.
  for (const char *site : {"cuDeviceGet", "cuDeviceGetAttribute"})
    for (uint64_t nth : {1, 2}) {
      ASSERT_TRUE(fault::inject(site, nth).isOk());
      std::string arch = defaultCudaArch("sm_75");
      EXPECT_EQ(arch, fault::fired(site) ? "sm_75" : "sm_90")
          << site << " " << nth;
      fault::clear();
    }
  EXPECT_EQ(defaultCudaArch("sm_75"), "sm_90");

  // A launch failing during graph capture: the capture ends, its partial
  // graph is destroyed (here, with a failing cuGraphDestroy too), and the
  // next run captures again.
  Package p = withFakeCubin(scenarioPackage());
  std::vector<HostTensor> in = scenarioInputs();
  std::vector<HostTensor> want = simOutputs(p, in);
  {
    Result<std::unique_ptr<Session>> s = createCuda(p);
    ASSERT_TRUE(s.isOk()) << s.message();
    ASSERT_TRUE(fault::inject("cuLaunchKernel", 2).isOk());
    ASSERT_TRUE(fault::inject("cuGraphDestroy").isOk());
    EXPECT_TRUE((*s)->run(in).isOk());
    Result<std::vector<HostTensor>> r = (*s)->run(in);
    ASSERT_FALSE(r.isOk());
    EXPECT_EQ(r.message(), "cuLaunchKernel failed for step 3 (k_ew): "
                           "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES");
    EXPECT_EQ(fault::fired("cuGraphDestroy"), 1u);
    EXPECT_EQ(liveCudaObjects().graphs, live.graphs);
    fault::clear();
    for (int rep = 0; rep < 2; ++rep) {
      Result<std::vector<HostTensor>> ok = (*s)->run(in);
      ASSERT_TRUE(ok.isOk()) << ok.message();
      EXPECT_TRUE(sameOutputs(*ok, want));
    }
  }
  expectNoLeaks(live, start);
}

TEST_F(CudaFault, MissingLibraries) {
  LiveCudaObjects live = liveCudaObjects();
  FakeCudaStats start = fake_->snapshot();
  const std::string driver = std::getenv("DLC_CUDA_DRIVER_LIB");
  ASSERT_TRUE(fault::inject("libcuda-missing", 1, 0).isOk());
  std::string why;
  EXPECT_FALSE(cudaAvailable(&why));
  EXPECT_EQ(why, driver + " not found");
  EXPECT_EQ(defaultDeviceKind(), DeviceKind::Sim);
  Result<std::unique_ptr<Session>> s = createCuda(elementwisePackage());
  ASSERT_FALSE(s.isOk());
  EXPECT_EQ(s.message(),
            "no CUDA GPU: " + driver + " not found (use --device=sim)");
  fault::clear();
  EXPECT_TRUE(cudaAvailable());

  // cuBLAS is needed only for GEMM steps.
  ASSERT_TRUE(fault::inject("libcublas-missing", 1, 0).isOk());
  Result<std::unique_ptr<Session>> g =
      createCuda(withFakeCubin(scenarioPackage()));
  ASSERT_FALSE(g.isOk());
  EXPECT_EQ(g.message(), "the package has GEMM steps but cuBLAS is not "
                         "available: " +
                             std::string(std::getenv("DLC_CUBLAS_LIB")) +
                             " not found");
  {
    Result<std::unique_ptr<Session>> e =
        createCuda(withFakeCubin(elementwisePackage()));
    EXPECT_TRUE(e.isOk()) << e.message();
  }
  fault::clear();
  expectNoLeaks(live, start);
}

TEST_F(CudaFault, NvrtcFailureInsideASession) {
  Result<std::string> v = nvrtcVersion();
  if (!v.isOk())
    GTEST_SKIP() << v.message();
  LiveCudaObjects live = liveCudaObjects();
  FakeCudaStats start = fake_->snapshot();
  TempDir dir("dlc-nvrtc-fault");
  ScopedEnv env("DLC_CACHE_DIR", dir.path());
  ASSERT_TRUE(fault::inject("nvrtcCompileProgram").isOk());
  Result<std::unique_ptr<Session>> s = createCuda(elementwisePackage());
  ASSERT_FALSE(s.isOk());
  EXPECT_EQ(s.message(), "the package has no cubin for sm_90, and compiling "
                         "its CUDA source failed: NVRTC failed to compile the "
                         "kernels for sm_90 (NVRTC_ERROR_COMPILATION)");
  expectNoLeaks(live, start);
}

TEST_F(CudaFault, EnvironmentStyleSpecificationOnASession) {
  LiveCudaObjects live = liveCudaObjects();
  FakeCudaStats start = fake_->snapshot();
  Package p = withFakeCubin(scenarioPackage());
  // Every graph launch fails from the first: runs after the first keep
  // failing with a clear message and the session stays sound.
  ASSERT_TRUE(fault::injectSpec("cuGraphLaunch:1+").isOk());
  Result<std::unique_ptr<Session>> s = createCuda(p);
  ASSERT_TRUE(s.isOk()) << s.message();
  std::vector<HostTensor> in = scenarioInputs();
  EXPECT_TRUE((*s)->run(in).isOk());
  for (int rep = 0; rep < 3; ++rep) {
    Result<std::vector<HostTensor>> r = (*s)->run(in);
    ASSERT_FALSE(r.isOk());
    EXPECT_EQ(r.message(), "cuGraphLaunch failed: CUDA_ERROR_INVALID_VALUE");
  }
  fault::clear();
  Result<std::vector<HostTensor>> r = (*s)->run(in);
  ASSERT_TRUE(r.isOk()) << r.message();
  EXPECT_TRUE(sameOutputs(*r, simOutputs(p, in)));
  s->reset();
  expectNoLeaks(live, start);
}

//===----------------------------------------------------------------------===//
// Device discovery, in a process of its own (its outcome is cached once
// successful)
//===----------------------------------------------------------------------===//

TEST(CudaFaultProbe, FailedDiscoveryIsReportedAndNotCached) {
  if (!FakeCudaControl::get())
    GTEST_SKIP() << "needs $DLC_CUDA_DRIVER_LIB set to libdlc-fakecuda.so "
                    "(ctest -R runtime.fake-cuda-probe)";
  std::string why;
  ASSERT_TRUE(fault::inject("cuInit", 1, 0).isOk());
  EXPECT_FALSE(cudaAvailable(&why));
  EXPECT_EQ(why, "cuInit failed: CUDA_ERROR_NO_DEVICE");
  Result<std::unique_ptr<Session>> s = createCuda(elementwisePackage());
  ASSERT_FALSE(s.isOk());
  EXPECT_EQ(
      s.message(),
      "no CUDA GPU: cuInit failed: CUDA_ERROR_NO_DEVICE (use --device=sim)");
  fault::clear();
  ASSERT_TRUE(fault::inject("cuDeviceGetCount").isOk());
  EXPECT_FALSE(cudaAvailable(&why));
  EXPECT_EQ(why, "cuDeviceGetCount failed: CUDA_ERROR_NOT_INITIALIZED");
  fault::clear();
  EXPECT_TRUE(cudaAvailable(&why)) << why;

  // NVRTC's version is queried when it is first loaded; a failure there is
  // not remembered either.
  ASSERT_TRUE(fault::inject("nvrtcVersion").isOk());
  Result<std::string> v = nvrtcVersion();
  uint64_t fired = fault::fired("nvrtcVersion");
  fault::clear();
  Result<std::string> again = nvrtcVersion();
  if (!again.isOk())
    GTEST_SKIP() << again.message();
  ASSERT_EQ(fired, 1u);
  ASSERT_FALSE(v.isOk());
  EXPECT_EQ(v.message(), "NVRTC is not available: nvrtcVersion failed: "
                         "NVRTC_ERROR_INTERNAL_ERROR");
}

} // namespace
