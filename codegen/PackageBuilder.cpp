//===- PackageBuilder.cpp - Schedule, buffers and constants ---------------===//
#include "codegen/Codegen.h"

using namespace mlir;
using namespace mlir::dlc;

FailureOr<rt::Package> mlir::dlc::generatePackage(func::FuncOp func,
                                                  const CodegenOptions &) {
  return func.emitError("package generation is not available in this build");
}
