//===- dlc-opt.cpp - mlir-opt with the dlc dialect and passes -------------===//
#include "ir/Dialect.h"
#include "ir/Parse.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

/// Rejects input that MLIR's own parser would crash on (see ir/Parse.h).
static bool inputIsParsable(llvm::StringRef inputFilename) {
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> buffer =
      mlir::openInputFile(inputFilename, &error);
  if (!buffer)
    return true; // MlirOptMain reports it.
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
  mlir::MLIRContext context;
  mlir::SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  return mlir::succeeded(mlir::dlc::checkParsableSource(sourceMgr, &context));
}

int main(int argc, char **argv) {
  mlir::registerTransformsPasses();
  mlir::dlc::registerDlcPassesAndPipelines();
  mlir::DialectRegistry registry;
  registry.insert<mlir::dlc::DlcDialect, mlir::func::FuncDialect,
                  mlir::tosa::TosaDialect, mlir::arith::ArithDialect,
                  mlir::tensor::TensorDialect>();
  auto [inputFilename, outputFilename] = mlir::registerAndParseCLIOptions(
      argc, argv, "dlc optimizer driver\n", registry);
  if (!inputIsParsable(inputFilename))
    return 1;
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, inputFilename, outputFilename, registry));
}
