//===- dlc-opt.cpp - mlir-opt with the dlc dialect and passes -------------===//
#include "ir/Dialect.h"
#include "ir/Limits.h"
#include "ir/Parse.h"
#include "passes/Passes.h"

#include "mlir/Bytecode/BytecodeReader.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

namespace {
/// Refuses IR nested deeper than dlc reads (ir/Limits.h) before any pass or
/// the printer recurses over it: text within the bracket limit can still
/// nest locations and attributes without bound through aliases.
struct CheckNestingPass
    : mlir::PassWrapper<CheckNestingPass, mlir::OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(CheckNestingPass)
  llvm::StringRef getArgument() const override { return "dlc-check-nesting"; }
  void runOnOperation() override {
    if (mlir::failed(mlir::dlc::checkNestingDepth(getOperation())))
      signalPassFailure();
  }
};
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  mlir::registerTransformsPasses();
  mlir::dlc::registerDlcPassesAndPipelines();
  mlir::DialectRegistry registry;
  mlir::dlc::registerModelDialects(registry);
  auto [inputFilename, outputFilename] = mlir::registerAndParseCLIOptions(
      argc, argv, "dlc optimizer driver\n", registry);
  mlir::MlirOptMainConfig config =
      mlir::MlirOptMainConfig::createFromCLOptions();
  if (config.shouldShowDialects())
    return mlir::asMainReturnCode(
        mlir::MlirOptMain(argc, argv, inputFilename, outputFilename, registry));

  // Every pipeline starts with the nesting check.
  mlir::MlirOptMainConfig base = config;
  config.setPassPipelineSetupFn([base](mlir::PassManager &pm) {
    pm.addPass(std::make_unique<CheckNestingPass>());
    return base.setupPassPipeline(pm);
  });

  // The input is read once (it may be stdin) and checked for what MLIR's
  // own parser would crash on (see ir/Parse.h) before MlirOptMain parses it.
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input =
      mlir::openInputFile(inputFilename, &error);
  if (!input) {
    llvm::errs() << error << "\n";
    return 1;
  }
  {
    mlir::MLIRContext context(registry);
    context.allowUnregisteredDialects(config.shouldAllowUnregisteredDialects());
    // Bytecode is read in a child process, which sends it back as text:
    // MlirOptMain parses that (ir/Parse.h, readBytecodeAsText).
    if (mlir::isBytecode(input->getMemBufferRef())) {
      llvm::SourceMgr sourceMgr;
      mlir::SourceMgrDiagnosticHandler handler(sourceMgr, &context);
      mlir::FailureOr<std::string> text =
          mlir::dlc::readBytecodeAsText(*input, &context);
      if (mlir::failed(text))
        return 1;
      input = llvm::MemoryBuffer::getMemBufferCopy(
          *text, input->getBufferIdentifier());
    }
    llvm::SourceMgr sourceMgr;
    sourceMgr.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBuffer(input->getMemBufferRef(),
                                         /*RequiresNullTerminator=*/false),
        llvm::SMLoc());
    mlir::SourceMgrDiagnosticHandler handler(sourceMgr, &context);
    if (mlir::failed(mlir::dlc::checkParsableSource(sourceMgr, &context)))
      return 1;
  }
  std::unique_ptr<llvm::ToolOutputFile> output =
      mlir::openOutputFile(outputFilename, &error);
  if (!output) {
    llvm::errs() << error << "\n";
    return 1;
  }
  if (mlir::failed(
          mlir::MlirOptMain(output->os(), std::move(input), registry, config)))
    return 1;
  output->keep();
  return 0;
}
