//===- ElementType.cpp - dlc's element types across the stack -------------===//
#include "ir/ElementType.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace mlir;
using namespace mlir::dlc;

namespace {

/// One element type dlc compiles.
struct ElementTypeRow {
  rt::DType dtype;
  bool isFloat;
  const char *storage;
  const char *compute;
  bool (*matches)(Type);
  Type (*get)(MLIRContext *);
};

const ElementTypeRow kRows[] = {
    {rt::DType::F32, true, "float", "float", [](Type t) { return t.isF32(); },
     [](MLIRContext *c) -> Type { return Float32Type::get(c); }},
    {rt::DType::F16, true, "unsigned short", "float",
     [](Type t) { return t.isF16(); },
     [](MLIRContext *c) -> Type { return Float16Type::get(c); }},
    {rt::DType::BF16, true, "unsigned short", "float",
     [](Type t) { return t.isBF16(); },
     [](MLIRContext *c) -> Type { return BFloat16Type::get(c); }},
    {rt::DType::I32, false, "int", "int",
     [](Type t) { return t.isSignlessInteger(32); },
     [](MLIRContext *c) -> Type { return IntegerType::get(c, 32); }},
    {rt::DType::I64, false, "long long", "long long",
     [](Type t) { return t.isSignlessInteger(64); },
     [](MLIRContext *c) -> Type { return IntegerType::get(c, 64); }},
    {rt::DType::I1, false, "unsigned char", "bool",
     [](Type t) { return t.isSignlessInteger(1); },
     [](MLIRContext *c) -> Type { return IntegerType::get(c, 1); }},
    {rt::DType::F8E4M3, true, "unsigned char", "float",
     [](Type t) { return t.isFloat8E4M3FN(); },
     [](MLIRContext *c) -> Type { return Float8E4M3FNType::get(c); }},
};

const ElementTypeRow &rowOf(rt::DType dtype) {
  for (const ElementTypeRow &row : kRows)
    if (row.dtype == dtype)
      return row;
  return kRows[0];
}

Type elementOf(Type type) {
  if (auto shaped = dyn_cast<ShapedType>(type))
    return shaped.getElementType();
  return type;
}

} // namespace

std::optional<rt::DType> mlir::dlc::dtypeOf(Type type) {
  type = elementOf(type);
  for (const ElementTypeRow &row : kRows)
    if (row.matches(type))
      return row.dtype;
  return std::nullopt;
}

Type mlir::dlc::elementTypeOf(MLIRContext *context, rt::DType dtype) {
  return rowOf(dtype).get(context);
}

bool mlir::dlc::isFloat(rt::DType dtype) { return rowOf(dtype).isFloat; }

bool mlir::dlc::isFloatElement(Type type) {
  std::optional<rt::DType> dtype = dtypeOf(type);
  return dtype && isFloat(*dtype);
}

const llvm::fltSemantics &mlir::dlc::floatSemantics(rt::DType dtype) {
  switch (dtype) {
  case rt::DType::F16:
    return llvm::APFloat::IEEEhalf();
  case rt::DType::BF16:
    return llvm::APFloat::BFloat();
  case rt::DType::F8E4M3:
    return llvm::APFloat::Float8E4M3FN();
  default:
    return llvm::APFloat::IEEEsingle();
  }
}

double mlir::dlc::roundToFloat(rt::DType dtype, double v) {
  // E4M3 has no infinity: beyond its largest value (448) it saturates,
  // where APFloat's conversion would give NaN.
  if (dtype == rt::DType::F8E4M3 && !std::isnan(v) && std::fabs(v) >= 448.0)
    return std::copysign(448.0, v);
  llvm::APFloat f(v);
  bool losesInfo = false;
  f.convert(floatSemantics(dtype), llvm::APFloat::rmNearestTiesToEven,
            &losesInfo);
  return f.convertToDouble();
}

double mlir::dlc::toDouble(llvm::APFloat f) {
  bool losesInfo = false;
  f.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven,
            &losesInfo);
  return f.convertToDouble();
}

int64_t mlir::dlc::elementBytes(Type type) {
  type = elementOf(type);
  if (std::optional<rt::DType> dtype = dtypeOf(type))
    return int64_t(rt::dtypeSize(*dtype));
  if (type.isIntOrFloat())
    return std::max<int64_t>(1, (type.getIntOrFloatBitWidth() + 7) / 8);
  return 8;
}

int64_t mlir::dlc::tensorBytes(ShapedType type) {
  return type.getNumElements() * elementBytes(type.getElementType());
}

std::string mlir::dlc::resourceSizeError(ShapedType type, uint64_t bytes,
                                         llvm::StringRef key) {
  int64_t n = type.getNumElements();
  int64_t size = elementBytes(type.getElementType());
  // n * size fits: dlc's verifiers bound tensor sizes.
  uint64_t needed = uint64_t(n) * uint64_t(size);
  if (bytes == needed)
    return "";
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "the resource '" << key << "' holds " << bytes << " bytes, but " << type
     << " needs " << needed << " (" << n
     << (n == 1 ? " element of " : " elements of ") << size
     << (size == 1 ? " byte" : " bytes");
  if (type.getElementType().isInteger(1))
    os << ": a dense_resource stores i1 one byte per element";
  os << ")";
  return s;
}

const char *mlir::dlc::cudaStorageType(rt::DType dtype) {
  return rowOf(dtype).storage;
}

const char *mlir::dlc::cudaComputeType(rt::DType dtype) {
  return rowOf(dtype).compute;
}

int64_t mlir::dlc::valueBytes(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type || !type.hasStaticShape())
    return 0;
  return tensorBytes(type);
}
