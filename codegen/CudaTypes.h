//===- CudaTypes.h - dlc element types as CUDA C expressions ----*- C++ -*-===//
//
// Internal to codegen/: how a value of each element type is loaded, stored,
// rounded, written as a literal and reduced in the generated CUDA source.
// Which C types an element is stored and computed in is ir/ElementType.h's
// (cudaStorageType, cudaComputeType); the conversions named here are the
// prelude's (Prelude.cuh).
//
//===----------------------------------------------------------------------===//
#ifndef DLC_CODEGEN_CUDATYPES_H
#define DLC_CODEGEN_CUDATYPES_H

#include "ir/Dialect.h"
#include "ir/ElementType.h"

#include "mlir/IR/BuiltinAttributes.h"

#include <string>

namespace mlir::dlc {

/// The dtype of `v`'s elements (a verified dlc.kernel holds only dlc's
/// element types), f32 for any other.
rt::DType dtypeOfValue(Value v);

/// A stored element converted to its compute type.
std::string loadExpr(rt::DType e, const std::string &ref);
/// A computed value converted to its storage type.
std::string storeExpr(rt::DType e, const std::string &value);
/// A float computed in f32 rounded to the precision of `e`: every f16/bf16
/// op result is a value of its type (the reference interpreter's semantics).
std::string roundTo(rt::DType e, const std::string &value);

/// `f` as a CUDA float literal (NaN and infinities as bit patterns).
std::string floatLiteral(float f);
/// `v` as a literal of the integer (or i1) compute type of `e`.
std::string intLiteral(rt::DType e, int64_t v);
/// An f64 attribute (clamp bound, pad value) as a literal of type `e`.
std::string scalarLiteral(rt::DType e, double v);
/// Element `i` of a dense constant as a literal of its compute type.
std::string denseLiteral(DenseElementsAttr dense, rt::DType e, int64_t i);
/// Zero of the compute type of `e`.
std::string zeroLiteral(rt::DType e);

/// The identity of reduction `kind` in the compute type of `e`.
std::string reduceInit(ReduceKind kind, rt::DType e);
/// `a (+) b` for a reduction combiner.
std::string reduceCombine(ReduceKind kind, rt::DType e, const std::string &a,
                          const std::string &b);

} // namespace mlir::dlc

#endif // DLC_CODEGEN_CUDATYPES_H
