//===- Compiler.h - MLIR-level compile driver used by tools -------*- C++
//-*-===//
//
// The staged compile used by the `dlc` tool and by the public API. Unlike
// dlc/dlc.h, this header exposes MLIR: tools that print intermediate IR or
// honour MLIR's debugging switches use it.
//
//===----------------------------------------------------------------------===//
#ifndef DLC_API_COMPILER_H
#define DLC_API_COMPILER_H

#include "dlc/dlc.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/SourceMgr.h"

#include <functional>

namespace dlc {

/// How far compileModule goes.
enum class Stage {
  Lowered, ///< dlc IR after lowering and canonicalization
  Fused,   ///< after fusion and memory planning
  Package, ///< CUDA source, schedule and cubins
};

/// Registers every dialect dlc reads (dlc, TOSA, func, arith, tensor).
void registerDlcDialects(mlir::DialectRegistry &registry);

/// Parses MLIR from `sourceMgr`'s main buffer into a module, with errors
/// reported through the context's diagnostic handler.
mlir::OwningOpRef<mlir::ModuleOp> parseModule(llvm::SourceMgr &sourceMgr,
                                              mlir::MLIRContext &context);

struct CompileResult {
  /// The model after lowering as MLIR bytecode: the reference check's
  /// input.
  std::string referenceIR;
  /// Filled when the stage is Package.
  rt::Package package;
};

/// Runs the pipeline on `module` in place up to `stop`. `configure` is
/// called on each pass manager before it runs (the `dlc` tool applies MLIR's
/// command-line switches there: --mlir-print-ir-after-all and friends).
mlir::LogicalResult compileModule(
    mlir::ModuleOp module, const CompileOptions &options, Stage stop,
    CompileResult &result,
    const std::function<mlir::LogicalResult(mlir::PassManager &)> &configure =
        nullptr);

/// The function compileModule compiles, or an error at the module.
mlir::FailureOr<mlir::func::FuncOp> findEntry(mlir::ModuleOp module,
                                              llvm::StringRef name);

} // namespace dlc

#endif // DLC_API_COMPILER_H
