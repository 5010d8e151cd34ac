//===- Parse.h - Parsing model sources safely -------------------*- C++ -*-===//
//
// MLIR 19's parser crashes on some malformed builtin attributes instead of
// reporting them (a `sparse<...>` literal whose indices or values do not parse
// as the expected element kind reaches SparseElementsAttr::verify with a null
// attribute). dlc does not support sparse constants, so every source is
// scanned for them first and the user gets a diagnostic at the literal.
//
//===----------------------------------------------------------------------===//
#ifndef DLC_IR_PARSE_H
#define DLC_IR_PARSE_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/SourceMgr.h"

#include <optional>

namespace mlir::dlc {

/// The byte offset of the first `sparse<` attribute literal in `text`
/// (comments and string literals skipped), if any.
std::optional<size_t> findSparseElementsLiteral(llvm::StringRef text);

/// Reports an unsupported construct of the main buffer of `sourceMgr` that
/// MLIR's parser cannot be trusted with; failure after emitting an error.
LogicalResult checkParsableSource(const llvm::SourceMgr &sourceMgr,
                                  MLIRContext *context);

/// checkParsableSource, then MLIR's parser.
OwningOpRef<ModuleOp> parseSourceChecked(const llvm::SourceMgr &sourceMgr,
                                         const ParserConfig &config);

} // namespace mlir::dlc

#endif // DLC_IR_PARSE_H
