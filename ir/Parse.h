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
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/SourceMgr.h"

#include <optional>
#include <string>
#include <vector>

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

/// The largest alignment of a resource blob dlc reads (a blob's first 4
/// bytes). MLIR's parser accepts any power of two below 2^32 and aborts on
/// 0 (or, under a memory limit or a sanitizer, on an alignment too large
/// to allocate).
constexpr uint64_t kMaxResourceAlignment = uint64_t(1) << 16;

/// The first construct of `text` (comments and string literals skipped)
/// that MLIR's parser would crash on rather than report: brackets ((, [, {,
/// <) nested deeper than kMaxNestingDepth (ir/Limits.h), or a hex blob of
/// the file metadata (`{-# dialect_resources: { builtin: { key: "0x..." } }
/// #-}`) under 4 bytes or whose alignment word is not a power of two from 1
/// to kMaxResourceAlignment.
std::optional<UnparsableConstruct> findUnsafeStructure(llvm::StringRef text);

/// Reports a construct of the main buffer of `sourceMgr`, MLIR text, that
/// MLIR's parser cannot be trusted with (findUnsafeStructure,
/// findUnparsableConstruct); failure after emitting an error.
LogicalResult checkParsableSource(const llvm::SourceMgr &sourceMgr,
                                  MLIRContext *context);

/// The dialects a dlc model is written in: dlc, func, tosa, arith, tensor.
void registerModelDialects(DialectRegistry &registry);

/// MLIR bytecode read in a child process (runtime/Sandbox.h) with the
/// model's dialects (registerModelDialects; unregistered ones when
/// `context` allows them), its nesting checked, and printed there as MLIR
/// text (the generic op form, with locations and resources), for the
/// caller to parse: MLIR's bytecode reader, which crashes on hostile bytes
/// and can corrupt its heap without crashing, never runs in this process.
/// The reader's diagnostics are emitted in `context`. When the child does
/// not finish (a crash, a limit), failure: with `crash`, which then holds
/// how it ended ("MLIR's bytecode reader crashed with signal 11, ..."),
/// else after an error "the model's bytecode is corrupt (...)". Inside a
/// child the reader runs in place.
FailureOr<std::string> readBytecodeAsText(const llvm::MemoryBuffer &buffer,
                                          MLIRContext *context,
                                          std::string *crash = nullptr);

/// A hex blob of the builtin dialect's resources in MLIR text: the weights
/// of `dense_resource<key>` constants.
struct TextResourceBlob {
  std::string key;
  uint32_t alignment = 1;
  /// Offsets of the data's hex digits (after "0x" and the alignment's 8).
  size_t digits = 0, digitsEnd = 0;
};

/// The builtin resource blobs of `text`'s file metadata
/// (`{-# dialect_resources: { builtin: { key: "0x...", ... } } #-}`), in
/// text order; none when the text has no such metadata or it holds
/// something this scan does not read (a quoted key, a value other than a
/// well-formed hex blob): MLIR's parser then reads the text as it is.
std::optional<std::vector<TextResourceBlob>>
findResourceBlobs(llvm::StringRef text);

/// checkParsableSource, then MLIR's parser, then checkNestingDepth
/// (ir/Limits.h) before the module is verified (when `config` says so).
/// Weights in the builtin dialect's
/// resources are decoded here, not by MLIR's lexer: the parser reads the
/// text with each blob emptied (its lines and the ops' locations unchanged)
/// and the blobs get their data afterwards. MLIR's lexer and its line index
/// took 35% of compiling a BERT layer whose 28 MB of weights are 55 MB of
/// hex.
/// MLIR bytecode is read through readBytecodeAsText, then parsed as text.
OwningOpRef<ModuleOp> parseSourceChecked(const llvm::SourceMgr &sourceMgr,
                                         const ParserConfig &config);

} // namespace mlir::dlc

#endif // DLC_IR_PARSE_H
