//===- Policies.cpp - Precision and layout classes of dlc ops -------------===//
//
// The ops that override a default of PrecisionPolicyOpInterface or
// LayoutOpInterface (DlcInterfaces.td); the others take it from DlcOps.td.
//
//===----------------------------------------------------------------------===//
#include "ir/Dialect.h"

using namespace mlir;
using namespace mlir::dlc;

// Tensor-core products are where reduced precision pays.
PrecisionClass MatmulOp::getPrecisionClass() { return PrecisionClass::Prefer; }
PrecisionClass AttentionOp::getPrecisionClass() {
  return PrecisionClass::Prefer;
}
PrecisionClass Conv2DOp::getPrecisionClass() { return PrecisionClass::Prefer; }
PrecisionClass ConvTranspose2DOp::getPrecisionClass() {
  return PrecisionClass::Prefer;
}

// These name dimensions in attributes (axes, perm, start, low/high,
// multiples): a layout change permutes them.
LayoutClass ReduceOp::getLayoutClass() { return LayoutClass::Axes; }
LayoutClass ArgMaxOp::getLayoutClass() { return LayoutClass::Axes; }
LayoutClass TransposeOp::getLayoutClass() { return LayoutClass::Axes; }
LayoutClass SliceOp::getLayoutClass() { return LayoutClass::Axes; }
LayoutClass ConcatOp::getLayoutClass() { return LayoutClass::Axes; }
LayoutClass PadOp::getLayoutClass() { return LayoutClass::Axes; }
LayoutClass TileOp::getLayoutClass() { return LayoutClass::Axes; }
