//===- FuzzCommon.h - Shared setup of the libFuzzer targets -------*- C++
//-*-===//
//
// Each input gets a fresh MLIRContext with every dialect dlc reads, no
// threads and no diagnostic output: the targets look for crashes and
// sanitizer reports, not for diagnostics, which are the expected answer to
// most inputs.
//
//===----------------------------------------------------------------------===//
#ifndef DLC_TEST_FUZZ_FUZZCOMMON_H
#define DLC_TEST_FUZZ_FUZZCOMMON_H

#include "api/Compiler.h"
#include "ir/Parse.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace dlc::fuzz {

/// A context for one input, with diagnostics swallowed.
struct FuzzContext {
  FuzzContext()
      : context(makeRegistry(), mlir::MLIRContext::Threading::DISABLED),
        handler(&context, [this](mlir::Diagnostic &diag) {
          // Kept for the report of a broken invariant; bounded because a
          // fuzzed input can produce many.
          if (diagnostics.size() < 4096) {
            llvm::raw_string_ostream os(diagnostics);
            os << diag.getLocation() << ": " << diag << "\n";
          }
          return mlir::success();
        }) {
    context.allowUnregisteredDialects(false);
    context.printOpOnDiagnostic(false);
    context.printStackTraceOnDiagnostic(false);
  }

  /// Parses `text` as a module without verifying it (the caller verifies).
  /// MLIR's lexer reads the byte after the buffer (MemoryBuffer's NUL), so
  /// `text` must be NUL-terminated, as a std::string is.
  mlir::OwningOpRef<mlir::ModuleOp> parse(const std::string &text) {
    mlir::ParserConfig config(&context, /*verifyAfterParse=*/false);
    llvm::SourceMgr sourceMgr;
    sourceMgr.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBuffer(text, "fuzz-input"), llvm::SMLoc());
    return mlir::dlc::parseSourceChecked(sourceMgr, config);
  }

  mlir::MLIRContext context;
  std::string diagnostics;
  mlir::ScopedDiagnosticHandler handler;

private:
  static mlir::DialectRegistry makeRegistry() {
    mlir::DialectRegistry registry;
    registerDlcDialects(registry);
    return registry;
  }
};

/// Reports a broken invariant (not a diagnostic: a bug) and crashes, so
/// libFuzzer saves the input.
[[noreturn]] inline void fail(const std::string &what,
                              llvm::StringRef detail = {}) {
  std::fprintf(stderr, "dlc fuzz invariant broken: %s\n", what.c_str());
  if (!detail.empty())
    std::fprintf(stderr, "%.*s\n", int(detail.size()), detail.data());
  std::abort();
}

/// Whether a crash of the reference check's child (dlc::runReference's
/// message) happened in the interpreter: a bug, where a crash of MLIR's
/// reader is the expected answer to a hostile model.
inline bool interpreterCrashed(const std::string &message) {
  return message.rfind("the reference interpreter crashed", 0) == 0 ||
         message.rfind("the reference interpreter exited", 0) == 0;
}

/// Whether the reference interpreter evaluates `module` quickly: no value
/// above 2^20 elements and 2^22 in all, so that no op does more than about
/// 2^30 steps (a hostile model could otherwise keep it busy for minutes
/// within its limits, which a fuzzer's timeout would report).
inline bool cheapToEvaluate(mlir::ModuleOp module) {
  int64_t total = 0;
  bool cheap = true;
  module->walk([&](mlir::Operation *op) {
    for (mlir::Type t : op->getResultTypes()) {
      auto tensor = mlir::dyn_cast<mlir::RankedTensorType>(t);
      if (!tensor || !tensor.hasStaticShape())
        continue;
      int64_t n = tensor.getNumElements();
      if (n > (int64_t(1) << 20) || (total += n) > (int64_t(1) << 22))
        cheap = false;
    }
    return cheap ? mlir::WalkResult::advance() : mlir::WalkResult::interrupt();
  });
  return cheap;
}

/// The printed form of `op` in MLIR's custom syntax.
inline std::string print(mlir::Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  op->print(os);
  return text;
}

} // namespace dlc::fuzz

#endif // DLC_TEST_FUZZ_FUZZCOMMON_H
