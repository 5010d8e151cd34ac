//===- CudaTypes.cpp - dlc element types as CUDA C expressions ------------===//
#include "codegen/CudaTypes.h"

#include "llvm/ADT/APFloat.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::dlc;

rt::DType mlir::dlc::dtypeOfValue(Value v) {
  return dtypeOf(v.getType()).value_or(rt::DType::F32);
}

std::string mlir::dlc::loadExpr(rt::DType e, const std::string &ref) {
  switch (e) {
  case rt::DType::F16:
    return fmt::format("dlc_h2f({})", ref);
  case rt::DType::BF16:
    return fmt::format("dlc_bf2f({})", ref);
  case rt::DType::F8E4M3:
    return fmt::format("dlc_e4m32f({})", ref);
  case rt::DType::I1:
    return fmt::format("({} != 0)", ref);
  default:
    return ref;
  }
}

std::string mlir::dlc::storeExpr(rt::DType e, const std::string &value) {
  switch (e) {
  case rt::DType::F16:
    return fmt::format("dlc_f2h({})", value);
  case rt::DType::BF16:
    return fmt::format("dlc_f2bf({})", value);
  case rt::DType::F8E4M3:
    return fmt::format("dlc_f2e4m3({})", value);
  case rt::DType::I1:
    return fmt::format("(unsigned char)({} ? 1 : 0)", value);
  default:
    return value;
  }
}

std::string mlir::dlc::roundTo(rt::DType e, const std::string &value) {
  if (e == rt::DType::F16)
    return fmt::format("dlc_round_f16({})", value);
  if (e == rt::DType::BF16)
    return fmt::format("dlc_round_bf16({})", value);
  if (e == rt::DType::F8E4M3)
    return fmt::format("dlc_round_e4m3({})", value);
  return value;
}

std::string mlir::dlc::floatLiteral(float f) {
  if (std::isnan(f))
    return "__uint_as_float(0x7fc00000u)";
  if (std::isinf(f))
    return f > 0 ? "__uint_as_float(0x7f800000u)"
                 : "__uint_as_float(0xff800000u)";
  std::string s = fmt::format("{}", f);
  if (s.find_first_of(".e") == std::string::npos)
    s += ".0";
  s += "f";
  if (f < 0 || (f == 0 && std::signbit(f)))
    return "(" + s + ")";
  return s;
}

std::string mlir::dlc::intLiteral(rt::DType e, int64_t v) {
  if (e == rt::DType::I1)
    return v ? "true" : "false";
  if (e == rt::DType::I64) {
    if (v == std::numeric_limits<int64_t>::min())
      return "(-9223372036854775807LL - 1)";
    return v < 0 ? fmt::format("({}LL)", v) : fmt::format("{}LL", v);
  }
  if (v == std::numeric_limits<int32_t>::min())
    return "(-2147483647 - 1)";
  return v < 0 ? fmt::format("({})", v) : fmt::format("{}", v);
}

/// Round half to even, saturating, NaN to 0 (dlc.cast of a float).
static int64_t floatToInt(rt::DType to, double v) {
  if (std::isnan(v))
    return 0;
  double lower = std::floor(v), diff = v - lower;
  double r = diff > 0.5   ? lower + 1
             : diff < 0.5 ? lower
                          : (std::fmod(lower, 2.0) == 0 ? lower : lower + 1);
  if (to == rt::DType::I32)
    return static_cast<int64_t>(
        std::min(std::max(r, -2147483648.0), 2147483647.0));
  if (r >= 9223372036854775807.0)
    return std::numeric_limits<int64_t>::max();
  if (r <= -9223372036854775808.0)
    return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(r);
}

std::string mlir::dlc::scalarLiteral(rt::DType e, double v) {
  if (isFloat(e))
    return floatLiteral(static_cast<float>(roundToFloat(e, v)));
  if (e == rt::DType::I1)
    return v != 0 ? "true" : "false";
  return intLiteral(e, floatToInt(e, v));
}

std::string mlir::dlc::denseLiteral(DenseElementsAttr dense, rt::DType e,
                                    int64_t i) {
  if (isFloat(e)) {
    APFloat f = dense.isSplat() ? dense.getSplatValue<APFloat>()
                                : dense.getValues<APFloat>()[i];
    return floatLiteral(static_cast<float>(toDouble(f)));
  }
  APInt v = dense.isSplat() ? dense.getSplatValue<APInt>()
                            : dense.getValues<APInt>()[i];
  if (e == rt::DType::I1)
    return v.isZero() ? "false" : "true";
  return intLiteral(e, v.getSExtValue());
}

std::string mlir::dlc::zeroLiteral(rt::DType e) {
  return isFloat(e) ? "0.0f" : intLiteral(e, 0);
}

std::string mlir::dlc::reduceInit(ReduceKind kind, rt::DType e) {
  switch (kind) {
  case ReduceKind::sum:
    return isFloat(e) ? "0.0f" : intLiteral(e, 0);
  case ReduceKind::prod:
    return isFloat(e) ? "1.0f" : intLiteral(e, 1);
  case ReduceKind::max:
    return isFloat(e) ? floatLiteral(-INFINITY)
           : e == rt::DType::I32
               ? intLiteral(e, std::numeric_limits<int32_t>::min())
               : intLiteral(e, std::numeric_limits<int64_t>::min());
  case ReduceKind::min:
    return isFloat(e) ? floatLiteral(INFINITY)
           : e == rt::DType::I32
               ? intLiteral(e, std::numeric_limits<int32_t>::max())
               : intLiteral(e, std::numeric_limits<int64_t>::max());
  }
  return "0";
}

std::string mlir::dlc::reduceCombine(ReduceKind kind, rt::DType e,
                                     const std::string &a,
                                     const std::string &b) {
  bool f = isFloat(e);
  switch (kind) {
  case ReduceKind::sum:
    return f ? fmt::format("{} + {}", a, b)
             : fmt::format("dlc_add({}, {})", a, b);
  case ReduceKind::prod:
    return f ? fmt::format("{} * {}", a, b)
             : fmt::format("dlc_mul({}, {})", a, b);
  case ReduceKind::max:
    return f ? fmt::format("fmaxf({}, {})", a, b)
             : fmt::format("({0} > {1} ? {0} : {1})", a, b);
  case ReduceKind::min:
    return f ? fmt::format("fminf({}, {})", a, b)
             : fmt::format("({0} < {1} ? {0} : {1})", a, b);
  }
  return a;
}
