//===- Limits.h - How deep dlc lets IR nest ---------------------*- C++ -*-===//
//
// MLIR recurses once per level of nesting in its text parser (brackets),
// its bytecode reader and writer (attributes and locations inside each
// other) and its printer: a model with a 100,000-deep call-site location,
// array attribute or tuple type overflows the stack. dlc reads no model
// nested deeper than kMaxNestingDepth (the text is scanned before MLIR
// parses it, the parsed IR is walked without recursion before anything else
// runs on it), and writes the package's reference model with its location
// chains cut to kReferenceLocationDepth levels.
//
//===----------------------------------------------------------------------===//
#ifndef DLC_IR_LIMITS_H
#define DLC_IR_LIMITS_H

#include "mlir/IR/Location.h"
#include "mlir/IR/Operation.h"

namespace mlir::dlc {

/// The deepest nesting dlc reads: brackets of MLIR text, regions inside
/// ops, attributes, types and locations inside each other (a call-site
/// location is one level deeper than its callee and its caller).
constexpr unsigned kMaxNestingDepth = 256;

/// The package's reference model keeps location chains to this depth.
constexpr unsigned kReferenceLocationDepth = 64;

/// How deep `loc` nests, counting every attribute and type inside it (a
/// file:line:col location is 3 deep: it, its file name, the name's type),
/// up to `limit + 1`: walked level by level, without recursion.
unsigned locationDepth(Location loc, unsigned limit);

/// The first file:line:col location inside `loc` (callees first), or an
/// unknown location: what a diagnostic about a deeply nested location shows
/// instead of printing it.
Location firstFileLocation(Location loc);

/// An error at the first op under `root` (`root` included) that is nested,
/// or whose location, attributes or types are nested, deeper than
/// `maxDepth`.
LogicalResult checkNestingDepth(Operation *root,
                                unsigned maxDepth = kMaxNestingDepth);

/// Whether a location of an op or block argument under `root` nests deeper
/// than `maxDepth`.
bool hasDeepLocations(Operation *root, unsigned maxDepth);

/// Cuts every location under `root` (ops and block arguments) deeper than
/// `maxDepth` (at least 4) to `maxDepth`: its outer levels are kept, and
/// each part below them becomes its first file:line:col location.
void truncateLocations(Operation *root, unsigned maxDepth);

} // namespace mlir::dlc

#endif // DLC_IR_LIMITS_H
