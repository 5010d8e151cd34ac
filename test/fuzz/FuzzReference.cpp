//===- FuzzReference.cpp - libFuzzer target: a package's reference model --===//
//
// Input: the bytes of a package's reference model (Package::referenceIR):
// MLIR bytecode as dlc writes it, or MLIR text. Runs both safe paths of
// api/ReferenceModel.cpp on a small valid package holding it:
// parseReferenceModel (bytecode read in a child process, which sends it
// back as text, parsed here) and, for a model whose entry function takes
// and returns small static tensors, dlc::runReference (the text parsed and
// evaluated in another child) with inputs of its types. The children's
// coverage joins this process's (ChildCoverage.h). Beyond crashes and
// sanitizer reports in this process it checks that the reference
// interpreter never crashes: the child that evaluates parses only text
// (MLIR's bytecode reader, whose crashes and heap corruption are expected
// answers to hostile bytes, never ran there), so a crash there is a bug.
//
//===----------------------------------------------------------------------===//

#include "test/fuzz/ChildCoverage.h"
#include "test/fuzz/FuzzCommon.h"

#include "ir/ElementType.h"
#include "runtime/Package.h"

using namespace dlc::fuzz;

namespace {

/// The most elements the target gives a model's inputs and outputs.
constexpr int64_t kMaxElements = int64_t(1) << 20;

/// A package of a small model without weights beside its reference model
/// (its constants and source give the reference model room: up to 1 MiB).
const dlc::rt::Package &basePackage() {
  static const dlc::rt::Package package = [] {
    dlc::CompileOptions options;
    options.compileCubins = false;
    auto p = dlc::compile(R"(
func.func @main(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %y = tosa.exp %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
)",
                          options, "base.mlir");
    if (!p)
      fail("the base package does not compile", p.message());
    dlc::rt::Package base = p.take();
    base.referenceBlobs.clear();
    return base;
  }();
  return package;
}

/// The tensor type `t` as a package's descriptor, if the interpreter takes
/// it and it is small.
std::optional<dlc::rt::TensorDesc> descOf(mlir::Type t) {
  auto tensor = mlir::dyn_cast<mlir::RankedTensorType>(t);
  if (!tensor || !tensor.hasStaticShape())
    return std::nullopt;
  std::optional<dlc::rt::DType> dtype =
      mlir::dlc::dtypeOf(tensor.getElementType());
  if (!dtype || tensor.getNumElements() > kMaxElements)
    return std::nullopt;
  dlc::rt::TensorDesc desc;
  desc.dtype = *dtype;
  desc.shape.assign(tensor.getShape().begin(), tensor.getShape().end());
  return desc;
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  childcoverage::install();
  (void)basePackage();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  dlc::rt::Package package = basePackage();
  package.referenceIR.assign(reinterpret_cast<const char *>(data), size);

  // Read the way tools that edit the reference model read it.
  FuzzContext fc;
  llvm::SourceMgr sourceMgr;
  childcoverage::begin();
  mlir::OwningOpRef<mlir::ModuleOp> module =
      dlc::parseReferenceModel(package, sourceMgr, fc.context);
  childcoverage::merge();
  if (!module)
    return 0;
  auto func = module->lookupSymbol<mlir::func::FuncOp>("main");
  if (!func || func.isExternal() || !cheapToEvaluate(*module))
    return 0;
  int64_t elements = 0;
  package.inputs.clear();
  package.outputs.clear();
  for (mlir::Type t : func.getArgumentTypes()) {
    std::optional<dlc::rt::TensorDesc> desc = descOf(t);
    if (!desc || (elements += desc->numElements()) > kMaxElements)
      return 0;
    package.inputs.push_back(*desc);
  }
  for (mlir::Type t : func.getResultTypes()) {
    std::optional<dlc::rt::TensorDesc> desc = descOf(t);
    if (!desc)
      return 0;
    package.outputs.push_back(*desc);
  }
  package.inputNames.clear();
  package.outputNames.clear();

  childcoverage::begin();
  auto outputs = dlc::runReference(package, dlc::randomInputs(package, 1));
  childcoverage::merge();
  if (!outputs) {
    if (interpreterCrashed(outputs.message()))
      fail("the reference interpreter crashed", outputs.message());
    return 0;
  }
  if (outputs->size() != package.outputs.size())
    fail("runReference returned another number of outputs");
  return 0;
}
