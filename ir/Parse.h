//===- Parse.h - Parsing model sources safely -------------------*- C++ -*-===//
//
// MLIR 19 crashes on some malformed builtin attributes instead of reporting
// them: a `sparse<...>` literal whose indices or values do not parse as the
// expected element kind reaches SparseElementsAttr::verify with a null
// attribute, and an `array<i1: ...>` with integer elements parses into an
// attribute that crashes the printer. dlc does not support sparse constants
// and needs no integers in boolean arrays, so every source is scanned for
// both first and the user gets a diagnostic at the construct.
//
//===----------------------------------------------------------------------===//
#ifndef DLC_IR_PARSE_H
#define DLC_IR_PARSE_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/SourceMgr.h"

#include <optional>
#include <string>

namespace mlir::dlc {

/// A construct of MLIR text that MLIR 19's parser or printer crashes on.
struct UnparsableConstruct {
  size_t offset;
  std::string message;
};

/// The first `sparse<...>` literal, or `array<i1: ...>` element other than
/// true/false, in `text` (comments and string literals skipped), if any.
std::optional<UnparsableConstruct>
findUnparsableConstruct(llvm::StringRef text);

/// Reports an unsupported construct of the main buffer of `sourceMgr` that
/// MLIR's parser cannot be trusted with; failure after emitting an error.
LogicalResult checkParsableSource(const llvm::SourceMgr &sourceMgr,
                                  MLIRContext *context);

/// checkParsableSource, then MLIR's parser.
OwningOpRef<ModuleOp> parseSourceChecked(const llvm::SourceMgr &sourceMgr,
                                         const ParserConfig &config);

} // namespace mlir::dlc

#endif // DLC_IR_PARSE_H
