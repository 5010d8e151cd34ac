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
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <functional>
#include <memory>
#include <optional>

namespace dlc {

/// How far compileModule goes.
enum class Stage {
  Lowered, ///< dlc IR after lowering and canonicalization
  Fused,   ///< after fusion and memory planning
  Package, ///< CUDA source, schedule and cubins
};

/// Registers every dialect dlc reads (dlc, TOSA, func, arith, tensor).
void registerDlcDialects(mlir::DialectRegistry &registry);

/// Collects a context's diagnostics as "name:line:col: error: message"
/// lines (the location when it is a file:line:col one).
class DiagnosticCollector {
public:
  explicit DiagnosticCollector(mlir::MLIRContext &context);
  std::string text;

private:
  mlir::ScopedDiagnosticHandler handler;
};

/// Parses MLIR from `sourceMgr`'s main buffer into a module, with errors
/// reported through the context's diagnostic handler.
mlir::OwningOpRef<mlir::ModuleOp> parseModule(llvm::SourceMgr &sourceMgr,
                                              mlir::MLIRContext &context);

/// Reads a model file (MLIR text or an ONNX model) the way every reader of
/// a user's files does (runtime/SafeFile.h): a regular file only, never a
/// FIFO or a device, its size known before its bytes are read. The buffer
/// is named `path` and ends with a null byte (as MLIR's parser needs).
rt::Result<std::unique_ptr<llvm::MemoryBuffer>>
readModelFile(const std::string &path);

struct CompileResult {
  /// Filled when the stage is Package.
  rt::Package package;
  /// With CompileOptions::precisionReport or precisionTolerance.
  std::optional<PrecisionReport> precisionReport;
};

/// Measures the precision report of the lowered `module` (PrecisionReport)
/// on `inputs`; with options.precisionTolerance, first keeps in f32
/// (dlc.precision) the ops that bring in more error than it, measuring
/// again after each round. `module` keeps those marks.
mlir::LogicalResult
assignPrecisionByAccuracy(mlir::ModuleOp module, const CompileOptions &options,
                          const std::vector<rt::HostTensor> &inputs,
                          PrecisionReport &report);

/// Runs the pipeline on `module` in place up to `stop`. `configure` is
/// called on each pass manager before it runs (the `dlc` tool applies MLIR's
/// command-line switches there: --mlir-print-ir-after-all and friends).
mlir::LogicalResult compileModule(
    mlir::ModuleOp module, const CompileOptions &options, Stage stop,
    CompileResult &result,
    const std::function<mlir::LogicalResult(mlir::PassManager &)> &configure =
        nullptr);

/// Writes `module` (the lowered model, before any precision assignment) as
/// `package`'s reference model (package.referenceIR and referenceBlobs):
/// MLIR bytecode without the data of its dense_resource weights, each
/// stored as a range of the package's constants when they hold its bytes,
/// else as its own bytes. Weights the package stores (inline ones, and f32
/// ones it stores rounded to its precision's bf16 or f16) are made the
/// package's first, which changes `module`: pass a copy.
mlir::LogicalResult writeReferenceModel(mlir::ModuleOp module,
                                        rt::Package &package);

/// Parses the package's reference model (in `sourceMgr`, which takes a copy
/// of referenceIR) and gives its weights their data back; errors go to the
/// context's diagnostic handler. The package is untrusted: its size and
/// weights are checked first, and a model in bytecode is read in a child
/// process (runtime/Sandbox.h), whose crash is an error, and parsed here
/// from the text the child prints (ir/Parse.h, readBytecodeAsText).
/// dlc::runReference also evaluates it in a child.
mlir::OwningOpRef<mlir::ModuleOp>
parseReferenceModel(const rt::Package &package, llvm::SourceMgr &sourceMgr,
                    mlir::MLIRContext &context);

/// The function compileModule compiles, or an error at the module.
mlir::FailureOr<mlir::func::FuncOp> findEntry(mlir::ModuleOp module,
                                              llvm::StringRef name);

} // namespace dlc

#endif // DLC_API_COMPILER_H
