//===- FuzzPipeline.cpp - libFuzzer target: the compiler up to CUDA -------===//
//
// Input: MLIR text. Runs what `dlc compile --no-cubin` runs on a model that
// verifies: lowering, fusion and memory planning (compileModule up to
// Stage::Fused), then CUDA code generation (generateCudaSource) and the
// package builder without NVRTC. Beyond crashes and sanitizer reports it
// checks invariants the rest of dlc relies on:
//   - every pass that succeeds leaves IR that verifies;
//   - the package builder diagnoses what it cannot build instead of failing
//     its own validatePackage self-check ("generated an invalid package");
//   - a package it builds holds the source generateCudaSource emitted,
//     then one epilogue kernel per distinct GEMM epilogue, passes
//     rt::validatePackage and survives a serialization round trip.
//
//===----------------------------------------------------------------------===//

#include "test/fuzz/FuzzCommon.h"
#include "test/fuzz/TextMutator.h"

#include "codegen/Codegen.h"
#include "runtime/Package.h"

#include "mlir/IR/Verifier.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"

#include <set>

using namespace dlc::fuzz;

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size,
                                          size_t maxSize, unsigned seed) {
  return mutateMlirText(data, size, maxSize, seed);
}

namespace {

/// Aborts when a pass reports success but leaves IR that does not verify.
class VerifyAfterEachPass : public mlir::PassInstrumentation {
public:
  explicit VerifyAfterEachPass(FuzzContext &fc) : fc_(fc) {}
  void runAfterPass(mlir::Pass *pass, mlir::Operation *op) override {
    if (mlir::succeeded(mlir::verify(op)))
      return;
    fail("pass '" + pass->getArgument().str() +
             "' succeeded but left IR that does not verify",
         fc_.diagnostics + print(op));
  }

private:
  FuzzContext &fc_;
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string text(reinterpret_cast<const char *>(data), size);
  FuzzContext fc;
  mlir::OwningOpRef<mlir::ModuleOp> module = fc.parse(text);
  if (!module || mlir::failed(mlir::verify(*module)))
    return 0;

  dlc::CompileOptions options;
  options.compileCubins = false;
  options.archs = {"sm_90"};
  dlc::CompileResult result;
  auto configure = [&](mlir::PassManager &pm) {
    // The instrumentation verifies instead, naming the pass at fault.
    pm.enableVerifier(false);
    pm.addInstrumentation(std::make_unique<VerifyAfterEachPass>(fc));
    return mlir::success();
  };
  if (mlir::failed(dlc::compileModule(*module, options, dlc::Stage::Fused,
                                      result, configure)))
    return 0;

  mlir::func::FuncOp func = *dlc::findEntry(*module, options.entry);
  std::string source;
  std::vector<dlc::rt::KernelInfo> kernels;
  if (mlir::failed(mlir::dlc::generateCudaSource(func, source, &kernels)))
    return 0;

  mlir::dlc::CodegenOptions codegen;
  codegen.archs = options.archs;
  codegen.compileCubins = false;
  mlir::FailureOr<dlc::rt::Package> package =
      mlir::dlc::generatePackage(func, codegen);
  if (mlir::failed(package)) {
    // The builder may reject what the kernels do not show (GEMM limits), but
    // its final validatePackage self-check must never be what fails.
    if (llvm::StringRef(fc.diagnostics)
            .contains("generated an invalid package"))
      fail("generatePackage built an invalid package", fc.diagnostics);
    return 0;
  }
  // The package's source is the kernels' source followed by the epilogue
  // kernels of its GEMM steps (GemmStep::epilogueKernel), one per distinct
  // kernel: steps that need the same epilogue share it.
  if (llvm::StringRef(package->cudaSource).take_front(source.size()) != source)
    fail("generatePackage emitted other CUDA source than generateCudaSource");
  std::set<int32_t> epilogues;
  for (const dlc::rt::Step &s : package->steps)
    if (s.kind == dlc::rt::Step::Kind::Gemm && s.gemm.epilogueKernel >= 0) {
      if (!epilogues.insert(s.gemm.epilogueKernel).second)
        continue;
      const std::string &name =
          package->kernels[size_t(s.gemm.epilogueKernel)].name;
      if (package->cudaSource.find(" " + name + "(", source.size()) ==
          std::string::npos)
        fail("epilogue kernel " + name + " is not in the package's source");
    }
  if (package->kernels.size() != kernels.size() + epilogues.size())
    fail("the package has " + std::to_string(package->kernels.size()) +
         " kernels; the source has " + std::to_string(kernels.size()) +
         " and the GEMM steps " + std::to_string(epilogues.size()) +
         " distinct epilogue kernels");
  if (dlc::rt::Status st = dlc::rt::validatePackage(*package); !st)
    fail("the compiled package does not validate: " + st.message());
  const std::vector<uint8_t> bytes = dlc::rt::serializePackage(*package);
  dlc::rt::Result<dlc::rt::Package> back = dlc::rt::deserializePackage(bytes);
  if (!back)
    fail("the compiled package does not deserialize: " + back.message());
  if (dlc::rt::serializePackage(*back) != bytes)
    fail("the compiled package changes in a serialization round trip");
  return 0;
}
