//===- ElementType.h - dlc's element types across the stack -----*- C++ -*-===//
//
// The one place that knows how an MLIR element type maps to the runtime's
// dtype (rt::DType), its stored size, whether it is a float, its
// floating-point semantics and the CUDA C types it is stored and computed in.
// A new element type (fp8, say) is a new row of the table in
// ElementType.cpp, a new rt::DType, and its conversions in the CUDA prelude.
//
//===----------------------------------------------------------------------===//
#ifndef DLC_IR_ELEMENTTYPE_H
#define DLC_IR_ELEMENTTYPE_H

#include "runtime/Tensor.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/APFloat.h"

#include <optional>
#include <string>

namespace mlir::dlc {
namespace rt = ::dlc::rt;

/// The runtime dtype of `type`, or of a shaped type's elements; nullopt for a
/// type dlc does not compile.
std::optional<rt::DType> dtypeOf(Type type);
/// The MLIR element type of `dtype`.
Type elementTypeOf(MLIRContext *context, rt::DType dtype);

/// Whether `dtype` is a floating-point type.
bool isFloat(rt::DType dtype);
/// Whether `type` (or a shaped type's elements) is one of dlc's float types.
bool isFloatElement(Type type);
/// The APFloat semantics of a float dtype (IEEEsingle for the others).
const llvm::fltSemantics &floatSemantics(rt::DType dtype);

/// `v` rounded to nearest even in the float type `dtype` (overflow gives
/// inf; f8E4M3FN, which has none, saturates to +-448), as a double.
double roundToFloat(rt::DType dtype, double v);
/// The value of `f` (any float semantics) as a double.
double toDouble(llvm::APFloat f);

/// Bytes one stored element of `type` (or of a shaped type's elements)
/// takes: the runtime's size for dlc's types (i1 is one byte), else the bit
/// width rounded up to bytes, at least 1; 8 for non-scalar types.
int64_t elementBytes(Type type);
/// Bytes of a statically shaped tensor: elements times elementBytes.
int64_t tensorBytes(ShapedType type);
/// The bytes of `v`'s type when it is a static ranked tensor, else 0.
int64_t valueBytes(Value v);

/// Why a dense_resource blob `key` of `bytes` bytes cannot be the data of a
/// constant of `type` (a statically shaped tensor of a dlc element type),
/// or "" when its size is right: one stored element after another, i1 one
/// byte per element as MLIR's DenseBoolResourceElementsAttr stores it. The
/// message names the blob, the type, and the size it needs.
std::string resourceSizeError(ShapedType type, uint64_t bytes,
                              llvm::StringRef key);

/// The CUDA C type an element is stored as in device memory ("float",
/// "unsigned short" for f16 and bf16, "unsigned char" for i1 and
/// f8E4M3FN, ...).
const char *cudaStorageType(rt::DType dtype);
/// The CUDA C type a value is computed in (f16, bf16 and f8E4M3FN compute
/// in float, i1 in bool).
const char *cudaComputeType(rt::DType dtype);

} // namespace mlir::dlc

#endif // DLC_IR_ELEMENTTYPE_H
