//===- TestCodegen.cpp - Test pass: package builder and reference ---------===//
//
// Runs code generation (without cubins) and the reference interpreter on a
// function as written, so that lit tests can check what these later stages
// report on IR they do not accept: the same diagnostics `dlc compile` and
// `dlc run --check` give, reached with hand-written IR through
// `dlc-opt --dlc-test-codegen -verify-diagnostics`; with print-source, the
// CUDA source of hand-written kernels, for codegen tests that do not depend
// on fusion. Registered in dlc-opt only (see passes/Registration.cpp), since
// it links code generation.
//
//===----------------------------------------------------------------------===//
#include "codegen/Codegen.h"
#include "ir/ElementType.h"
#include "ir/Reference.h"
#include "passes/Passes.h"

#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "dlc-test-codegen"

namespace mlir::dlc {
#define GEN_PASS_DEF_TESTCODEGEN
#include "passes/Passes.h.inc"
} // namespace mlir::dlc

using namespace mlir;
using namespace mlir::dlc;

namespace {

/// A host tensor of `type` whose elements are all 1, or an empty f32 tensor
/// for a type the reference interpreter rejects (it says so before it looks
/// at the input) or one too large to allocate here (the reference reports
/// the mismatch).
rt::HostTensor onesLike(Type type) {
  constexpr int64_t kMaxElements = int64_t(1) << 28;
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape() || !isWithinTensorSizeLimit(tensor) ||
      tensor.getNumElements() > kMaxElements)
    return rt::HostTensor();
  std::optional<rt::DType> dtype = dtypeOf(tensor);
  if (!dtype || !tensor.getElementType().isSignlessIntOrFloat())
    return rt::HostTensor();
  std::vector<int64_t> shape(tensor.getShape().begin(),
                             tensor.getShape().end());
  rt::HostTensor host(*dtype, shape);
  for (int64_t i = 0, e = host.numElements(); i < e; ++i)
    host.setFromDouble(i, 1.0);
  return host;
}

struct TestCodegenPass
    : public mlir::dlc::impl::TestCodegenBase<TestCodegenPass> {
  using TestCodegenBase::TestCodegenBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    markAllAnalysesPreserved();
    bool ok = true;
    if (package && (sourceOnly || printSource)) {
      std::string source;
      bool generated = succeeded(generateCudaSource(func, source));
      if (generated && printSource)
        llvm::outs() << source;
      ok &= generated;
    } else if (package) {
      CodegenOptions options;
      options.compileCubins = false;
      ok &= succeeded(generatePackage(func, options));
    }
    if (reference) {
      std::vector<rt::HostTensor> inputs;
      for (Type type : func.getArgumentTypes())
        inputs.push_back(onesLike(type));
      ok &= succeeded(evaluateReference(func, inputs));
    }
    if (!ok)
      signalPassFailure();
  }
};

} // namespace
