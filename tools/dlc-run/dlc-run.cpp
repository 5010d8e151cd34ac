//===- dlc-run.cpp - Run and benchmark compiled packages ------------------===//
//
// The runtime alone: dlc-run loads a package that `dlc compile` wrote and
// runs, checks, profiles or benchmarks it. It links only dlcrt (no MLIR,
// LLVM, ONNX or protobuf), so it builds and runs on a GPU machine that has
// none of them (scripts/gpu-bundle.sh carries it there; configure with
// -DDLC_BUILD_COMPILER=OFF to build it there instead).
//
//   dlc-run model.dlcpkg [--device=cuda|sim] [--input a.npy ...] [--seed N]
//           [--output-dir DIR] [--check-against out0.npy ...] [--rtol X]
//           [--benchmark N [--warmup W] [--benchmark-json FILE]]
//           [--profile N] [--no-graph] [--max-memory BYTES] [--quiet]
//   dlc-run --info
//
// Without --check-against there is no reference check: the reference
// interpreter needs MLIR (use `dlc run --check` where the compiler is).
//
//===----------------------------------------------------------------------===//

#include "runtime/Runtime.h"
#include "runtime/Support.h"
#include "tools/dlc-run/BenchmarkReport.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <random>
#include <string>
#include <sys/stat.h>
#include <vector>

namespace rt = ::dlc::rt;

namespace {

const char *kUsage =
    "dlc-run - run, check and benchmark a compiled dlc package (runtime "
    "only)\n\n"
    "usage:\n"
    "  dlc-run <model.dlcpkg> [options]\n"
    "  dlc-run --info          the CUDA driver, GPU and NVRTC found\n\n"
    "options:\n"
    "  --device=cuda|sim       device (default: cuda with a GPU, else sim)\n"
    "  --input FILE.npy        an input, in the order of the model's "
    "arguments\n"
    "                          (repeat for each; without any, random inputs)\n"
    "  --seed N                seed of the random inputs (default 0; the same "
    "values\n"
    "                          as `dlc run --seed N`)\n"
    "  --output-dir DIR        write output_N.npy there\n"
    "  --check-against F.npy   compare output N with the Nth file (repeat "
    "for each\n"
    "                          output); exit 1 above the tolerance\n"
    "  --rtol X                relative error (by norm) allowed, 0 < X <= 1 "
    "(default:\n"
    "                          by type, f32 1e-5, f16 1e-2, bf16 2e-2)\n"
    "  --benchmark N           time N whole runs (after the warm-up) and "
    "print the\n"
    "                          median, min, p10 and p90\n"
    "  --warmup W              warm-up runs before the timed ones (default "
    "10)\n"
    "  --benchmark-json FILE   write the benchmark (and profile) as JSON\n"
    "  --profile N             time every step, median of N runs\n"
    "  --no-graph              launch steps directly instead of replaying a "
    "CUDA Graph\n"
    "  --max-memory BYTES      the most device memory the package may use "
    "(arena,\n"
    "                          inputs, outputs, constants; default: all the "
    "device\n"
    "                          has): 512M, 8GiB, ... (K, M, G, T are powers "
    "of 1024)\n"
    "  --quiet                 print errors only (and the check results)\n";

int fail(const std::string &message) {
  std::fprintf(stderr, "dlc-run: error: %s\n", message.c_str());
  return 1;
}

int usage(const std::string &message) {
  std::fprintf(stderr, "dlc-run: error: %s\n\n%s", message.c_str(), kUsage);
  return 2;
}

struct Options {
  std::string package;
  std::string device;
  std::vector<std::string> inputs;
  uint64_t seed = 0;
  std::string outputDir;
  std::vector<std::string> checkAgainst;
  double rtol = -1;
  unsigned benchmark = 0;
  unsigned warmup = 10;
  std::string benchmarkJson;
  unsigned profile = 0;
  bool noGraph = false;
  /// --max-memory (0: the device's own limit).
  uint64_t maxMemory = 0;
  bool quiet = false;
  bool info = false;
};

/// The files a run reads, which its outputs must not replace.
std::vector<std::string> readFiles(const Options &o) {
  std::vector<std::string> files{o.package};
  files.insert(files.end(), o.inputs.begin(), o.inputs.end());
  files.insert(files.end(), o.checkAgainst.begin(), o.checkAgainst.end());
  return files;
}

/// Parses a non-negative integer option value.
bool parseUnsigned(const std::string &text, uint64_t max, uint64_t &out) {
  if (text.empty() || text[0] == '-' || text[0] == '+')
    return false;
  errno = 0;
  char *end = nullptr;
  unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (errno || *end != '\0' || v > max)
    return false;
  out = v;
  return true;
}

/// Parses argv; returns 0, or the exit code of a usage error (-1: --help).
int parseOptions(int argc, char **argv, Options &o) {
  std::vector<std::string> args(argv + 1, argv + argc);
  for (size_t i = 0; i < args.size(); ++i) {
    std::string arg = args[i];
    if (arg == "--help" || arg == "-h")
      return -1;
    if (arg.size() < 2 || arg.compare(0, 2, "--") != 0 || arg == "--") {
      if (!o.package.empty())
        return usage("more than one package given ('" + o.package + "' and '" +
                     arg + "')");
      o.package = arg;
      continue;
    }
    std::string name = arg, value;
    bool hasValue = false;
    size_t eq = arg.find('=');
    if (eq != std::string::npos) {
      name = arg.substr(0, eq);
      value = arg.substr(eq + 1);
      hasValue = true;
    }
    auto flag = [&](bool &target) {
      if (hasValue)
        return usage(name + " takes no value");
      target = true;
      return 0;
    };
    if (name == "--no-graph") {
      if (int rc = flag(o.noGraph))
        return rc;
      continue;
    }
    if (name == "--quiet") {
      if (int rc = flag(o.quiet))
        return rc;
      continue;
    }
    if (name == "--info") {
      if (int rc = flag(o.info))
        return rc;
      continue;
    }
    static const char *valued[] = {
        "--device",  "--input",          "--seed",      "--output-dir",
        "--rtol",    "--check-against",  "--benchmark", "--warmup",
        "--profile", "--benchmark-json", "--max-memory"};
    bool known = false;
    for (const char *v : valued)
      known |= name == v;
    if (!known)
      return usage("unknown option '" + name + "'");
    if (!hasValue) {
      if (i + 1 >= args.size())
        return usage(name + " needs a value");
      value = args[++i];
    }
    uint64_t n = 0;
    if (name == "--device") {
      o.device = value;
    } else if (name == "--input") {
      o.inputs.push_back(value);
    } else if (name == "--check-against") {
      o.checkAgainst.push_back(value);
    } else if (name == "--output-dir") {
      o.outputDir = value;
    } else if (name == "--benchmark-json") {
      o.benchmarkJson = value;
    } else if (name == "--seed") {
      if (!parseUnsigned(value, ~uint64_t(0), n))
        return usage("--seed needs a non-negative integer, not '" + value +
                     "'");
      o.seed = n;
    } else if (name == "--max-memory") {
      rt::Result<uint64_t> bytes = rt::parseByteSize(value);
      if (!bytes)
        return usage("--max-memory: " + bytes.message());
      o.maxMemory = *bytes;
    } else if (name == "--rtol") {
      char *end = nullptr;
      double v = std::strtod(value.c_str(), &end);
      // A relative error in (0, 1]: NaN, a negative value, 0 or one above 1
      // (an output of the wrong sign passes) is a mistake, not a tolerance.
      if (value.empty() || *end != '\0' || !(v > 0 && v <= 1))
        return usage("--rtol needs a relative error greater than 0 and at "
                     "most 1 (1e-300 for an exact comparison), not '" +
                     value + "'");
      o.rtol = v;
    } else {
      // --benchmark, --warmup, --profile: run counts.
      if (!parseUnsigned(value, 1000000, n))
        return usage(name +
                     " needs a whole number of runs (0 to 1000000), "
                     "not '" +
                     value + "'");
      (name == "--benchmark" ? o.benchmark
       : name == "--warmup"  ? o.warmup
                             : o.profile) = unsigned(n);
    }
  }
  if (o.info)
    return 0;
  if (o.package.empty())
    return usage("no package given");
  if (!o.benchmarkJson.empty() && o.benchmark == 0)
    return usage("--benchmark-json needs --benchmark N");
  return 0;
}

/// Creates `dir` and its parents (like mkdir -p).
rt::Status makeDirectory(const std::string &dir) {
  std::string partial;
  size_t pos = 0;
  while (pos != std::string::npos) {
    pos = dir.find('/', pos + 1);
    partial = dir.substr(0, pos);
    if (partial.empty())
      continue;
    if (::mkdir(partial.c_str(), 0777) != 0 && errno != EEXIST)
      return rt::Status::error("cannot create '" + partial +
                               "': " + std::strerror(errno));
  }
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    return rt::Status::error("'" + dir + "' is not a directory");
  return rt::Status::ok();
}

rt::Status writeText(const std::string &path, const std::string &text,
                     const std::vector<std::string> &inputs) {
  if (rt::Status st = rt::checkOutputPath(path, inputs); !st)
    return st;
  FILE *f = std::fopen(path.c_str(), "w");
  if (!f)
    return rt::Status::error("cannot write '" + path +
                             "': " + std::strerror(errno));
  bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  ok &= std::fclose(f) == 0;
  if (!ok)
    return rt::Status::error("cannot write '" + path + "'");
  return rt::Status::ok();
}

/// The per-step table, in the format of `dlc run --profile`.
void printProfile(const std::vector<rt::StepProfile> &steps,
                  const std::string &device, unsigned runs) {
  std::printf("profile on %s, median of %u %s:\n", device.c_str(), runs,
              runs == 1 ? "run" : "runs");
  std::printf("step  kind     time(ms)   share       bytes      GB/s   "
              "GFLOP/s  label\n");
  double totalMs = 0, totalFlops = 0;
  uint64_t totalBytes = 0;
  for (const rt::StepProfile &s : steps) {
    char flops[32] = "-";
    if (s.flops > 0)
      std::snprintf(flops, sizeof flops, "%.2f", s.gigaflopsPerSecond());
    std::printf("%4zu  %-6s %10.4f %6.1f%% %11s %9.3f %9s  %s\n", s.step,
                rt::stepKindName(s.kind), s.milliseconds, 100.0 * s.share,
                ::dlc::tools::formatBytesForReport(s.bytes).c_str(),
                s.gigabytesPerSecond(), flops, s.label.c_str());
    totalMs += s.milliseconds;
    totalBytes += s.bytes;
    totalFlops += s.flops;
  }
  double gbps = totalMs > 0 ? double(totalBytes) / (totalMs * 1e6) : 0;
  std::printf("total: %.4f ms, %s moved, %.3f GB/s", totalMs,
              ::dlc::tools::formatBytesForReport(totalBytes).c_str(), gbps);
  if (totalFlops > 0)
    std::printf(", %.0f FLOPs of matrix products", totalFlops);
  std::printf(", %zu steps\n", steps.size());
}

int printInfo() {
  std::string why;
  if (rt::cudaAvailable(&why))
    std::printf("CUDA: available, GPU architecture %s\n",
                rt::defaultCudaArch("?").c_str());
  else
    std::printf("CUDA: not available (%s)\n", why.c_str());
  rt::Result<std::string> nvrtc = rt::nvrtcVersion();
  if (nvrtc)
    std::printf("NVRTC: %s\n", nvrtc->c_str());
  else
    std::printf("NVRTC: not available (%s)\n", nvrtc.message().c_str());
  rt::Result<std::string> cudnn = rt::cudnnVersion();
  if (cudnn)
    std::printf("cuDNN: %s\n", cudnn->c_str());
  else
    std::printf("cuDNN: not available (%s; convolution steps need it on "
                "cuda)\n",
                cudnn.message().c_str());
  std::printf("default device: %s\n",
              rt::deviceKindName(rt::defaultDeviceKind()));
  return 0;
}

int runMain(const Options &o) {
  rt::DeviceKind kind = rt::defaultDeviceKind();
  if (!o.device.empty()) {
    rt::Result<rt::DeviceKind> parsed = rt::parseDeviceKind(o.device);
    if (!parsed)
      return fail(parsed.message());
    kind = *parsed;
  }
  rt::Result<rt::Package> loaded = rt::readPackageFile(o.package);
  if (!loaded)
    return fail(loaded.message());
  rt::Package package = loaded.take();

  // Input files first (their errors come before the session's work);
  // random inputs once the session has checked that the package's memory
  // fits.
  std::vector<rt::HostTensor> args;
  if (!o.inputs.empty()) {
    if (o.inputs.size() != package.inputs.size())
      return fail("the model takes " + std::to_string(package.inputs.size()) +
                  " inputs, but " + std::to_string(o.inputs.size()) +
                  " --input files were given");
    for (const std::string &path : o.inputs) {
      rt::Result<rt::HostTensor> t = rt::readNpy(path);
      if (!t)
        return fail(t.message());
      args.push_back(t.take());
    }
  }
  std::vector<rt::HostTensor> expected;
  if (!o.checkAgainst.empty()) {
    if (o.checkAgainst.size() != package.outputs.size())
      return fail("the model has " + std::to_string(package.outputs.size()) +
                  " outputs, but " + std::to_string(o.checkAgainst.size()) +
                  " --check-against files were given");
    for (size_t i = 0; i < o.checkAgainst.size(); ++i) {
      rt::Result<rt::HostTensor> t = rt::readNpy(o.checkAgainst[i]);
      if (!t)
        return fail(t.message());
      const rt::TensorDesc &d = package.outputs[i];
      if (t->dtype != d.dtype || t->shape != d.shape)
        return fail(o.checkAgainst[i] + " holds " +
                    rt::describe(t->dtype, t->shape) + ", but output #" +
                    std::to_string(i) + " is " +
                    rt::describe(d.dtype, d.shape));
      expected.push_back(t.take());
    }
  }

  // Outputs that would overwrite an input are refused before anything runs
  // (and checked again when written).
  if (!o.benchmarkJson.empty())
    if (rt::Status st = rt::checkOutputPath(o.benchmarkJson, readFiles(o)); !st)
      return fail(st.message());
  if (!o.outputDir.empty())
    for (size_t i = 0; i < package.outputs.size(); ++i) {
      std::string path = o.outputDir + "/output_" + std::to_string(i) + ".npy";
      // A path that does not exist is no input (a directory that cannot
      // be made is reported when it is made).
      struct stat st;
      if (::lstat(path.c_str(), &st) != 0)
        continue;
      if (rt::Status s = rt::checkOutputPath(path, readFiles(o)); !s)
        return fail(s.message());
    }

  rt::SessionOptions sessionOptions;
  sessionOptions.device = kind;
  sessionOptions.useCudaGraph = !o.noGraph;
  sessionOptions.maxMemory = o.maxMemory;
  rt::Result<std::unique_ptr<rt::Session>> session =
      rt::Session::create(package, sessionOptions);
  if (!session)
    return fail(session.message());
  if (o.inputs.empty())
    args = rt::randomInputs(package, o.seed);
  rt::Session &s = **session;
  if (!o.quiet)
    std::fprintf(stderr, "running %s on %s: %zu steps\n", o.package.c_str(),
                 s.deviceDescription().c_str(), package.steps.size());

  rt::Result<std::vector<rt::HostTensor>> result = s.run(args);
  if (!result)
    return fail(result.message());
  std::vector<rt::HostTensor> outputs = result.take();

  if (!o.outputDir.empty()) {
    if (rt::Status st = makeDirectory(o.outputDir); !st)
      return fail(st.message());
    for (size_t i = 0; i < outputs.size(); ++i) {
      std::string path = o.outputDir + "/output_" + std::to_string(i) + ".npy";
      if (rt::Status st = rt::checkOutputPath(path, readFiles(o)); !st)
        return fail(st.message());
      if (rt::Status st = rt::writeNpy(path, outputs[i]); !st)
        return fail(st.message());
    }
  }
  if (!o.quiet)
    for (size_t i = 0; i < outputs.size(); ++i) {
      const rt::HostTensor &t = outputs[i];
      std::printf("output_%zu: %s [", i,
                  rt::describe(t.dtype, t.shape).c_str());
      for (int64_t j = 0, e = std::min<int64_t>(t.numElements(), 6); j < e; ++j)
        std::printf("%s%.6g", j ? ", " : "", t.getAsDouble(j));
      std::printf(t.numElements() > 6 ? ", ...]\n" : "]\n");
    }

  bool ok = true;
  for (size_t i = 0; i < expected.size(); ++i) {
    double tol =
        o.rtol >= 0 ? o.rtol : rt::defaultTolerance(package, outputs[i].dtype);
    double err = rt::relativeError(outputs[i], expected[i]);
    bool pass = err <= tol;
    ok &= pass;
    std::printf("check output_%zu against %s: relative error %.3g "
                "(tolerance %.3g) %s\n",
                i, o.checkAgainst[i].c_str(), err, tol, pass ? "ok" : "FAILED");
  }

  ::dlc::tools::BenchmarkReport report;
  report.tool = "dlc-run";
  report.packagePath = o.package;
  report.package = &package;
  report.device = s.deviceDescription();
  report.deviceKind = kind;
  report.cudaGraph = s.usesCudaGraph();
  report.warmup = o.warmup;
  if (o.profile > 0) {
    rt::Result<std::vector<rt::StepProfile>> steps = s.profile(args, o.profile);
    if (!steps)
      return fail(steps.message());
    report.profile = steps.take();
    report.profileRuns = o.profile;
    printProfile(report.profile, report.device, o.profile);
  }
  if (o.benchmark > 0) {
    rt::Result<std::vector<double>> times =
        s.benchmark(args, o.warmup, o.benchmark);
    if (!times)
      return fail(times.message());
    report.times = times.take();
    std::fputs(::dlc::tools::benchmarkText(report).c_str(), stdout);
    if (!o.benchmarkJson.empty())
      if (rt::Status st =
              writeText(o.benchmarkJson, ::dlc::tools::benchmarkJson(report),
                        readFiles(o));
          !st)
        return fail(st.message());
  }
  std::fflush(stdout);
  return ok ? 0 : 1;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fputs(kUsage, stdout);
    return 2;
  }
  if (std::string(argv[1]) == "--version") {
    std::printf("dlc-run 0.1.0 (package format %u)\n", rt::kPackageVersion);
    return 0;
  }
  Options o;
  int rc = parseOptions(argc, argv, o);
  if (rc == -1) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (rc)
    return rc;
  if (o.info)
    return printInfo();
  // The runtime checks sizes before it allocates; an allocation that
  // fails anyway is an error, not an abort.
  try {
    return runMain(o);
  } catch (const std::bad_alloc &e) {
    return fail(std::string("out of host memory: ") + e.what());
  }
}
