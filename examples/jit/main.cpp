//===- main.cpp - Using dlc as a JIT from C++ -----------------------------===//
//
// Compiles a model in-process, opens a session on a device and runs it
// several times on host buffers, checking the result against the reference
// interpreter:
//
//   dlc-jit-example model.mlir [cuda|sim]
//
//===----------------------------------------------------------------------===//
#include "dlc/dlc.h"

#include <cstdio>
#include <cstring>

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s model.mlir [cuda|sim]\n", argv[0]);
    return 2;
  }
  dlc::rt::SessionOptions sessionOptions;
  sessionOptions.device = dlc::rt::defaultDeviceKind();
  if (argc > 2) {
    auto kind = dlc::rt::parseDeviceKind(argv[2]);
    if (!kind) {
      std::fprintf(stderr, "%s\n", kind.message().c_str());
      return 2;
    }
    sessionOptions.device = *kind;
  }

  dlc::CompileOptions options;
  // The sim device compiles the CUDA source itself; cubins are for GPUs.
  options.compileCubins = sessionOptions.device == dlc::rt::DeviceKind::Cuda;
  auto package = dlc::compileFile(argv[1], options);
  if (!package) {
    std::fprintf(stderr, "%s", package.message().c_str());
    return 1;
  }

  auto session = dlc::rt::Session::create(*package, sessionOptions);
  if (!session) {
    std::fprintf(stderr, "%s\n", session.message().c_str());
    return 1;
  }
  std::printf("model %s on %s\n", argv[1],
              (*session)->deviceDescription().c_str());

  for (uint64_t seed = 1; seed <= 3; ++seed) {
    std::vector<dlc::rt::HostTensor> inputs = dlc::randomInputs(*package, seed);
    auto outputs = (*session)->run(inputs);
    if (!outputs) {
      std::fprintf(stderr, "%s\n", outputs.message().c_str());
      return 1;
    }
    auto reference = dlc::runReference(*package, inputs);
    if (!reference) {
      std::fprintf(stderr, "%s\n", reference.message().c_str());
      return 1;
    }
    for (size_t i = 0; i < outputs->size(); ++i) {
      double err = dlc::rt::relativeError((*outputs)[i], (*reference)[i]);
      double tol = dlc::defaultTolerance((*outputs)[i].dtype);
      std::printf(
          "run %llu output %zu %s: relative error %.3g\n",
          (unsigned long long)seed, i,
          dlc::rt::describe((*outputs)[i].dtype, (*outputs)[i].shape).c_str(),
          err);
      if (!(err <= tol)) {
        std::fprintf(stderr, "error above tolerance %.3g\n", tol);
        return 1;
      }
    }
  }
  return 0;
}
