//===- Buffers.h - Values' memory, for the memory passes --------*- C++ -*-===//
//
// Shared by dlc-schedule-memory, dlc-rematerialize and dlc-plan-memory:
// a reshape is a view of its operand's buffer; arguments and constants
// take no intermediate memory.
//
//===----------------------------------------------------------------------===//
#ifndef DLC_PASSES_BUFFERS_H
#define DLC_PASSES_BUFFERS_H

#include "ir/Dialect.h"
#include "ir/ElementType.h"

namespace mlir::dlc {

/// The value whose buffer `v` shares: follows reshape views to their source.
inline Value viewRoot(Value v) {
  while (auto reshape = v.getDefiningOp<ReshapeOp>())
    v = reshape.getInput();
  return v;
}

/// Whether `v` costs no intermediate memory and is free to read anywhere:
/// a function argument or a constant (packaged, or a literal), or a view
/// of one.
inline bool isResident(Value v) {
  Value root = viewRoot(v);
  return isa<BlockArgument>(root) || root.getDefiningOp<ConstantOp>();
}

} // namespace mlir::dlc

#endif // DLC_PASSES_BUFFERS_H
