//===- ReferenceTest.cpp - Tests of the reference interpreter -------------===//
//
// Every dlc op is checked against values computed by hand, then every example
// model is lowered from TOSA and evaluated.
//
//===----------------------------------------------------------------------===//
#include "ir/Reference.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

using namespace mlir;
namespace rt = ::dlc::rt;

namespace {

const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();

//===----------------------------------------------------------------------===//
// Host tensors, built and read here without the runtime's helpers
//===----------------------------------------------------------------------===//

size_t elementBytes(rt::DType t) {
  switch (t) {
  case rt::DType::F32:
  case rt::DType::I32:
    return 4;
  case rt::DType::F16:
  case rt::DType::BF16:
    return 2;
  case rt::DType::I64:
    return 8;
  case rt::DType::I1:
  case rt::DType::F8E4M3:
    return 1;
  }
  return 0;
}

const llvm::fltSemantics &semantics(rt::DType t) {
  return t == rt::DType::F16      ? llvm::APFloat::IEEEhalf()
         : t == rt::DType::F8E4M3 ? llvm::APFloat::Float8E4M3FN()
                                  : llvm::APFloat::BFloat();
}

rt::HostTensor make(rt::DType dtype, std::vector<int64_t> shape,
                    const std::vector<double> &values) {
  rt::HostTensor t;
  t.dtype = dtype;
  t.shape = std::move(shape);
  size_t n = elementBytes(dtype);
  t.data.resize(values.size() * n);
  for (size_t i = 0; i < values.size(); ++i) {
    uint8_t *p = t.data.data() + i * n;
    double v = values[i];
    switch (dtype) {
    case rt::DType::F32: {
      float f = static_cast<float>(v);
      std::memcpy(p, &f, 4);
      break;
    }
    case rt::DType::F16:
    case rt::DType::BF16:
    case rt::DType::F8E4M3: {
      llvm::APFloat f(v);
      bool losesInfo;
      f.convert(semantics(dtype), llvm::APFloat::rmNearestTiesToEven,
                &losesInfo);
      uint16_t bits = f.bitcastToAPInt().getZExtValue();
      std::memcpy(p, &bits, n); // little-endian: the low bytes
      break;
    }
    case rt::DType::I32: {
      int32_t x = static_cast<int32_t>(v);
      std::memcpy(p, &x, 4);
      break;
    }
    case rt::DType::I64: {
      int64_t x = static_cast<int64_t>(v);
      std::memcpy(p, &x, 8);
      break;
    }
    case rt::DType::I1:
      *p = v != 0;
      break;
    }
  }
  return t;
}

rt::HostTensor f32(std::vector<int64_t> shape, std::vector<double> v) {
  return make(rt::DType::F32, std::move(shape), v);
}
rt::HostTensor i32(std::vector<int64_t> shape, std::vector<double> v) {
  return make(rt::DType::I32, std::move(shape), v);
}
rt::HostTensor i64(std::vector<int64_t> shape, std::vector<double> v) {
  return make(rt::DType::I64, std::move(shape), v);
}
rt::HostTensor i1(std::vector<int64_t> shape, std::vector<double> v) {
  return make(rt::DType::I1, std::move(shape), v);
}

/// `n` values in [-2, 2) from a fixed linear congruential sequence.
std::vector<double> pseudoRandom(size_t n, uint64_t seed) {
  std::vector<double> out(n);
  uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;
  for (double &v : out) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    v = double(x >> 11) / double(1ull << 53) * 4.0 - 2.0;
  }
  return out;
}

std::vector<double> valuesOf(const rt::HostTensor &t) {
  size_t n = elementBytes(t.dtype);
  std::vector<double> out(t.data.size() / n);
  for (size_t i = 0; i < out.size(); ++i) {
    const uint8_t *p = t.data.data() + i * n;
    switch (t.dtype) {
    case rt::DType::F32: {
      float f;
      std::memcpy(&f, p, 4);
      out[i] = f;
      break;
    }
    case rt::DType::F16:
    case rt::DType::BF16:
    case rt::DType::F8E4M3: {
      uint16_t bits = 0;
      std::memcpy(&bits, p, n); // little-endian: the low bytes
      out[i] =
          llvm::APFloat(semantics(t.dtype), llvm::APInt(unsigned(8 * n), bits))
              .convertToDouble();
      break;
    }
    case rt::DType::I32: {
      int32_t x;
      std::memcpy(&x, p, 4);
      out[i] = x;
      break;
    }
    case rt::DType::I64: {
      int64_t x;
      std::memcpy(&x, p, 8);
      out[i] = static_cast<double>(x);
      break;
    }
    case rt::DType::I1:
      out[i] = *p;
      break;
    }
  }
  return out;
}

/// Checks dtype, shape and exact values (NaN matches NaN).
void expectTensor(const rt::HostTensor &t, rt::DType dtype,
                  std::vector<int64_t> shape, std::vector<double> expected,
                  const char *what = "") {
  SCOPED_TRACE(what);
  EXPECT_EQ(static_cast<int>(t.dtype), static_cast<int>(dtype));
  EXPECT_EQ(t.shape, shape);
  std::vector<double> got = valuesOf(t);
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(expected[i]))
      EXPECT_TRUE(std::isnan(got[i])) << "element " << i << " is " << got[i];
    else
      EXPECT_EQ(got[i], expected[i]) << "element " << i;
  }
}

/// Checks f32 values to within 4 float ULPs (for transcendental functions).
void expectNear(const rt::HostTensor &t, std::vector<double> expected,
                const char *what) {
  SCOPED_TRACE(what);
  std::vector<double> got = valuesOf(t);
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_FLOAT_EQ(static_cast<float>(got[i]), static_cast<float>(expected[i]))
        << "element " << i;
}

//===----------------------------------------------------------------------===//
// Fixture
//===----------------------------------------------------------------------===//

class ReferenceTest : public ::testing::Test {
protected:
  ReferenceTest() {
    DialectRegistry registry;
    registry.insert<mlir::dlc::DlcDialect, func::FuncDialect, tosa::TosaDialect,
                    arith::ArithDialect, tensor::TensorDialect>();
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  OwningOpRef<ModuleOp> parse(llvm::StringRef source) {
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
      diagnostics += d.str() + "\n";
      return success();
    });
    return parseSourceString<ModuleOp>(source, &context);
  }

  /// Evaluates @main of `module`; diagnostics land in `diagnostics`.
  std::optional<std::vector<rt::HostTensor>>
  evalModule(ModuleOp module, const std::vector<rt::HostTensor> &inputs) {
    diagnostics.clear();
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
      diagnostics += d.str() + "\n";
      return success();
    });
    auto func = module.lookupSymbol<func::FuncOp>("main");
    if (!func) {
      diagnostics += "no @main\n";
      return std::nullopt;
    }
    FailureOr<std::vector<rt::HostTensor>> out =
        mlir::dlc::evaluateReference(func, inputs);
    if (failed(out))
      return std::nullopt;
    return std::move(*out);
  }

  /// Parses `source` and evaluates its @main, which must succeed.
  std::vector<rt::HostTensor> eval(llvm::StringRef source,
                                   const std::vector<rt::HostTensor> &inputs) {
    OwningOpRef<ModuleOp> module = parse(source);
    EXPECT_TRUE(module) << diagnostics;
    if (!module)
      return {};
    auto out = evalModule(*module, inputs);
    EXPECT_TRUE(out.has_value()) << diagnostics;
    return out ? *out : std::vector<rt::HostTensor>{};
  }

  /// Parses and evaluates `source`, which must fail; returns the diagnostics.
  std::string evalError(llvm::StringRef source,
                        const std::vector<rt::HostTensor> &inputs) {
    OwningOpRef<ModuleOp> module = parse(source);
    EXPECT_TRUE(module) << diagnostics;
    if (!module)
      return "";
    auto out = evalModule(*module, inputs);
    EXPECT_FALSE(out.has_value());
    return diagnostics;
  }

  MLIRContext context;
  std::string diagnostics;
};

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

TEST_F(ReferenceTest, UnaryFloat) {
  auto out = eval(R"mlir(
    func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>)
        -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>,
            tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>,
            tensor<4xf32>, tensor<4xf32>) {
      %0 = dlc.exp %x : tensor<4xf32>
      %1 = dlc.log %y : tensor<4xf32>
      %2 = dlc.tanh %x : tensor<4xf32>
      %3 = dlc.sigmoid %x : tensor<4xf32>
      %4 = dlc.erf %x : tensor<4xf32>
      %5 = dlc.rsqrt %y : tensor<4xf32>
      %6 = dlc.sqrt %y : tensor<4xf32>
      %7 = dlc.reciprocal %y : tensor<4xf32>
      %8 = dlc.abs %x : tensor<4xf32>
      %9 = dlc.neg %x : tensor<4xf32>
      return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9
          : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>,
            tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>,
            tensor<4xf32>, tensor<4xf32>
    })mlir",
                  {f32({4}, {0, 1, -1, 4}), f32({4}, {1, 4, 0.25, 2})});
  ASSERT_EQ(out.size(), 10u);
  expectNear(out[0], {1, 2.718281828, 0.3678794412, 54.59815003}, "exp");
  expectNear(out[1], {0, 1.386294361, -1.386294361, 0.6931471806}, "log");
  expectNear(out[2], {0, 0.7615941560, -0.7615941560, 0.9993292997}, "tanh");
  expectNear(out[3], {0.5, 0.7310585786, 0.2689414214, 0.9820137900},
             "sigmoid");
  expectNear(out[4], {0, 0.8427007929, -0.8427007929, 0.9999999846}, "erf");
  expectNear(out[5], {1, 0.5, 2, 0.7071067812}, "rsqrt");
  expectNear(out[6], {1, 2, 0.5, 1.414213562}, "sqrt");
  expectTensor(out[7], rt::DType::F32, {4}, {1, 0.25, 4, 0.5}, "reciprocal");
  expectTensor(out[8], rt::DType::F32, {4}, {0, 1, 1, 4}, "abs");
  expectTensor(out[9], rt::DType::F32, {4}, {0, -1, 1, -4}, "neg");
}

TEST_F(ReferenceTest, SigmoidOfLargeMagnitudes) {
  auto out = eval(R"mlir(
    func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
      %0 = dlc.sigmoid %x : tensor<2xf32>
      return %0 : tensor<2xf32>
    })mlir",
                  {f32({2}, {-1000, 1000})});
  ASSERT_EQ(out.size(), 1u);
  expectTensor(out[0], rt::DType::F32, {2}, {0, 1});
}

TEST_F(ReferenceTest, BinaryFloatBroadcasting) {
  auto out = eval(R"mlir(
    func.func @main(%a: tensor<2x3xf32>, %b: tensor<1x3xf32>,
                    %c: tensor<2x1xf32>, %d: tensor<1x3xf32>)
        -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>,
            tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
      %0 = dlc.add %a, %b : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
      %1 = dlc.sub %a, %c : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
      %2 = dlc.mul %c, %b : (tensor<2x1xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
      %3 = dlc.div %a, %c : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
      %4 = dlc.max %a, %d : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
      %5 = dlc.min %d, %a : (tensor<1x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
      %6 = dlc.pow %a, %c : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
      return %0, %1, %2, %3, %4, %5, %6
          : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>,
            tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
    })mlir",
                  {f32({2, 3}, {1, 2, 3, 4, 5, 6}), f32({1, 3}, {10, 20, 30}),
                   f32({2, 1}, {2, 4}), f32({1, 3}, {3, 1, 5})});
  ASSERT_EQ(out.size(), 7u);
  rt::DType f = rt::DType::F32;
  expectTensor(out[0], f, {2, 3}, {11, 22, 33, 14, 25, 36}, "add");
  expectTensor(out[1], f, {2, 3}, {-1, 0, 1, 0, 1, 2}, "sub");
  expectTensor(out[2], f, {2, 3}, {20, 40, 60, 40, 80, 120}, "mul outer");
  expectTensor(out[3], f, {2, 3}, {0.5, 1, 1.5, 1, 1.25, 1.5}, "div");
  expectTensor(out[4], f, {2, 3}, {3, 2, 5, 4, 5, 6}, "max");
  expectTensor(out[5], f, {2, 3}, {1, 1, 3, 3, 1, 5}, "min");
  expectTensor(out[6], f, {2, 3}, {1, 4, 9, 256, 625, 1296}, "pow");
}

TEST_F(ReferenceTest, FloatDivisionByZeroIsIeee) {
  auto out = eval(R"mlir(
    func.func @main(%a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<3xf32> {
      %0 = dlc.div %a, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
      return %0 : tensor<3xf32>
    })mlir",
                  {f32({3}, {1, -1, 0}), f32({3}, {0, 0, 0})});
  ASSERT_EQ(out.size(), 1u);
  expectTensor(out[0], rt::DType::F32, {3}, {kInf, -kInf, kNaN});
}

TEST_F(ReferenceTest, IntegerOpsWrapAndTruncate) {
  const double mn = -2147483648.0, mx = 2147483647.0;
  auto out = eval(R"mlir(
    func.func @main(%a: tensor<4xi32>, %b: tensor<4xi32>)
        -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>,
            tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>,
            tensor<4xi32>, tensor<4xi32>, tensor<4xi32>) {
      %0 = dlc.add %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
      %1 = dlc.sub %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
      %2 = dlc.mul %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
      %3 = dlc.div %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
      %4 = dlc.max %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
      %5 = dlc.min %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
      %6 = dlc.and %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
      %7 = dlc.or %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
      %8 = dlc.neg %a : tensor<4xi32>
      %9 = dlc.abs %a : tensor<4xi32>
      %10 = dlc.pow %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
      return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10
          : tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>,
            tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>,
            tensor<4xi32>, tensor<4xi32>, tensor<4xi32>
    })mlir",
                  {i32({4}, {7, -7, mx, mn}), i32({4}, {2, 2, 1, -1})});
  ASSERT_EQ(out.size(), 11u);
  rt::DType t = rt::DType::I32;
  expectTensor(out[0], t, {4}, {9, -5, mn, mx}, "add wraps");
  expectTensor(out[1], t, {4}, {5, -9, mx - 1, mn + 1}, "sub");
  expectTensor(out[2], t, {4}, {14, -14, mx, mn}, "mul wraps");
  expectTensor(out[3], t, {4}, {3, -3, mx, mn}, "div truncates");
  expectTensor(out[4], t, {4}, {7, 2, mx, -1}, "max");
  expectTensor(out[5], t, {4}, {2, -7, 1, mn}, "min");
  expectTensor(out[6], t, {4}, {2, 0, 1, mn}, "bitwise and");
  expectTensor(out[7], t, {4}, {7, -5, mx, -1}, "bitwise or");
  expectTensor(out[8], t, {4}, {-7, 7, -mx, mn}, "neg wraps");
  expectTensor(out[9], t, {4}, {7, 7, mx, mn}, "abs wraps");
  expectTensor(out[10], t, {4}, {49, 49, mx, 0}, "pow");
}

TEST_F(ReferenceTest, I64Arithmetic) {
  // 3 * 2^40 + 2^41 and (3 * 2^40) * 4: exact in i64, beyond i32.
  auto out = eval(R"mlir(
    func.func @main(%a: tensor<2xi64>, %b: tensor<2xi64>)
        -> (tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) {
      %0 = dlc.add %a, %b : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
      %1 = dlc.mul %a, %b : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
      %2 = dlc.div %a, %b : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
      return %0, %1, %2 : tensor<2xi64>, tensor<2xi64>, tensor<2xi64>
    })mlir",
                  {i64({2}, {3298534883328.0, -9}), i64({2}, {4, 4})});
  ASSERT_EQ(out.size(), 3u);
  expectTensor(out[0], rt::DType::I64, {2}, {3298534883332.0, -5}, "add");
  expectTensor(out[1], rt::DType::I64, {2}, {13194139533312.0, -36}, "mul");
  expectTensor(out[2], rt::DType::I64, {2}, {824633720832.0, -2}, "div");
}

// Random123's known-answer vectors for Philox4x32-10 (kat_vectors).
TEST(Philox, KnownAnswers) {
  using A4 = std::array<uint32_t, 4>;
  EXPECT_EQ(mlir::dlc::philox4x32({0, 0, 0, 0}, {0, 0}),
            (A4{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}));
  EXPECT_EQ(mlir::dlc::philox4x32(
                {0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu},
                {0xffffffffu, 0xffffffffu}),
            (A4{0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu}));
  EXPECT_EQ(mlir::dlc::philox4x32(
                {0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u},
                {0xa4093822u, 0x299f31d0u}),
            (A4{0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u}));
}

TEST_F(ReferenceTest, DropoutMaskScaleAndOffsets) {
  // 4096 ones, ratio 0.25: kept elements are 4/3, the kept fraction within
  // five standard deviations of 0.75; another offset draws another mask,
  // the same offset the same one; a dropped NaN stays NaN.
  const char *source = R"mlir(
    func.func @main(%x: tensor<64x64xf32>, %o: tensor<1x1xi64>, %p: tensor<1x1xi64>)
        -> (tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>) {
      %0 = dlc.dropout %x, %o {ratio = 0.25 : f64, seed = 3 : i64, stream = 0 : i64} : (tensor<64x64xf32>, tensor<1x1xi64>) -> tensor<64x64xf32>
      %1 = dlc.dropout %x, %p {ratio = 0.25 : f64, seed = 3 : i64, stream = 0 : i64} : (tensor<64x64xf32>, tensor<1x1xi64>) -> tensor<64x64xf32>
      %2 = dlc.dropout %x, %o {ratio = 0.25 : f64, seed = 3 : i64, stream = 0 : i64} : (tensor<64x64xf32>, tensor<1x1xi64>) -> tensor<64x64xf32>
      return %0, %1, %2 : tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>
    })mlir";
  std::vector<double> ones(4096, 1.0);
  ones[17] = kNaN;
  auto out =
      eval(source, {f32({64, 64}, ones), i64({1, 1}, {0}), i64({1, 1}, {1})});
  ASSERT_EQ(out.size(), 3u);
  std::vector<double> a = valuesOf(out[0]), b = valuesOf(out[1]),
                      c = valuesOf(out[2]);
  EXPECT_TRUE(std::isnan(a[17]));
  int kept = 0, differ = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    if (i == 17)
      continue;
    EXPECT_TRUE(a[i] == 0.0 || a[i] == double(float(4.0 / 3.0))) << a[i];
    kept += a[i] != 0;
    differ += (a[i] != 0) != (b[i] != 0);
    EXPECT_EQ(a[i], c[i]);
  }
  // Binomial(4095, 0.75): sd 27.7. Two independent masks differ at
  // 2 * 0.25 * 0.75 of the positions: 1535.6, sd 29.3.
  EXPECT_NEAR(kept, 0.75 * 4095, 5 * 27.7);
  EXPECT_NEAR(differ, 0.375 * 4095, 5 * 29.3);
}

TEST_F(ReferenceTest, BooleansCompareSelect) {
  auto out =
      eval(R"mlir(
    func.func @main(%p: tensor<4xi1>, %q: tensor<4xi1>, %a: tensor<3xf32>,
                    %b: tensor<1xf32>, %c: tensor<2x1xi1>, %t: tensor<2x3xf32>,
                    %f: tensor<1x1xf32>, %i: tensor<3xi32>, %j: tensor<3xi32>)
        -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<3xi1>,
            tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>,
            tensor<3xi1>, tensor<2x3xf32>, tensor<3xi1>) {
      %0 = dlc.and %p, %q : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
      %1 = dlc.or %p, %q : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
      %2 = dlc.not %p : tensor<4xi1>
      %3 = dlc.cmp eq, %a, %b : (tensor<3xf32>, tensor<1xf32>) -> tensor<3xi1>
      %4 = dlc.cmp ne, %a, %b : (tensor<3xf32>, tensor<1xf32>) -> tensor<3xi1>
      %5 = dlc.cmp lt, %a, %b : (tensor<3xf32>, tensor<1xf32>) -> tensor<3xi1>
      %6 = dlc.cmp le, %a, %b : (tensor<3xf32>, tensor<1xf32>) -> tensor<3xi1>
      %7 = dlc.cmp gt, %a, %b : (tensor<3xf32>, tensor<1xf32>) -> tensor<3xi1>
      %8 = dlc.cmp ge, %a, %b : (tensor<3xf32>, tensor<1xf32>) -> tensor<3xi1>
      %9 = dlc.select %c, %t, %f
          : (tensor<2x1xi1>, tensor<2x3xf32>, tensor<1x1xf32>) -> tensor<2x3xf32>
      %10 = dlc.cmp lt, %i, %j : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
      return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10
          : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<3xi1>,
            tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>,
            tensor<3xi1>, tensor<2x3xf32>, tensor<3xi1>
    })mlir",
           {i1({4}, {1, 1, 0, 0}), i1({4}, {1, 0, 1, 0}), f32({3}, {1, 2, 3}),
            f32({1}, {2}), i1({2, 1}, {1, 0}), f32({2, 3}, {1, 2, 3, 4, 5, 6}),
            f32({1, 1}, {-1}), i32({3}, {-5, 4, 7}), i32({3}, {-4, 4, -7})});
  ASSERT_EQ(out.size(), 11u);
  rt::DType b = rt::DType::I1;
  expectTensor(out[0], b, {4}, {1, 0, 0, 0}, "and");
  expectTensor(out[1], b, {4}, {1, 1, 1, 0}, "or");
  expectTensor(out[2], b, {4}, {0, 0, 1, 1}, "not");
  expectTensor(out[3], b, {3}, {0, 1, 0}, "eq");
  expectTensor(out[4], b, {3}, {1, 0, 1}, "ne");
  expectTensor(out[5], b, {3}, {1, 0, 0}, "lt");
  expectTensor(out[6], b, {3}, {1, 1, 0}, "le");
  expectTensor(out[7], b, {3}, {0, 0, 1}, "gt");
  expectTensor(out[8], b, {3}, {0, 1, 1}, "ge");
  expectTensor(out[9], rt::DType::F32, {2, 3}, {1, 2, 3, -1, -1, -1}, "select");
  expectTensor(out[10], b, {3}, {1, 0, 0}, "cmp i32");
}

TEST_F(ReferenceTest, Clamp) {
  auto out = eval(R"mlir(
    func.func @main(%x: tensor<5xf32>, %i: tensor<3xi32>)
        -> (tensor<5xf32>, tensor<3xi32>) {
      %0 = dlc.clamp %x {min = 0.0 : f64, max = 6.0 : f64} : tensor<5xf32>
      %1 = dlc.clamp %i {min = -1.5 : f64, max = 6.5 : f64} : tensor<3xi32>
      return %0, %1 : tensor<5xf32>, tensor<3xi32>
    })mlir",
                  {f32({5}, {-2, 0.5, 3, 7, kNaN}), i32({3}, {-5, 3, 10})});
  ASSERT_EQ(out.size(), 2u);
  expectTensor(out[0], rt::DType::F32, {5}, {0, 0.5, 3, 6, 0}, "f32");
  // Bounds convert like dlc.cast: -1.5 -> -2, 6.5 -> 6 (half to even).
  expectTensor(out[1], rt::DType::I32, {3}, {-2, 3, 6}, "i32");
}

//===----------------------------------------------------------------------===//
// Casts and low-precision rounding
//===----------------------------------------------------------------------===//

TEST_F(ReferenceTest, Casts) {
  auto out =
      eval(R"mlir(
    func.func @main(%x: tensor<10xf32>, %z: tensor<4xf32>, %i: tensor<2xi32>,
                    %j: tensor<3xi32>, %b: tensor<2xi1>, %l: tensor<3xi64>)
        -> (tensor<10xi32>, tensor<4xi1>, tensor<2xf32>, tensor<3xi1>,
            tensor<2xf32>, tensor<3xi32>, tensor<2xi32>, tensor<10xi64>) {
      %0 = dlc.cast %x : tensor<10xf32> -> tensor<10xi32>
      %1 = dlc.cast %z : tensor<4xf32> -> tensor<4xi1>
      %2 = dlc.cast %i : tensor<2xi32> -> tensor<2xf32>
      %3 = dlc.cast %j : tensor<3xi32> -> tensor<3xi1>
      %4 = dlc.cast %b : tensor<2xi1> -> tensor<2xf32>
      %5 = dlc.cast %l : tensor<3xi64> -> tensor<3xi32>
      %6 = dlc.cast %b : tensor<2xi1> -> tensor<2xi32>
      %7 = dlc.cast %x : tensor<10xf32> -> tensor<10xi64>
      return %0, %1, %2, %3, %4, %5, %6, %7
          : tensor<10xi32>, tensor<4xi1>, tensor<2xf32>, tensor<3xi1>,
            tensor<2xf32>, tensor<3xi32>, tensor<2xi32>, tensor<10xi64>
    })mlir",
           {f32({10}, {0.5, 1.5, 2.5, -0.5, -1.5, 3e9, -3e9, 2.7, -2.7, kNaN}),
            f32({4}, {0.0, -0.0, 0.1, kNaN}), i32({2}, {16777217, -3}),
            i32({3}, {0, 5, -1}), i1({2}, {1, 0}),
            i64({3}, {4294967297.0, 2147483648.0, -1})});
  ASSERT_EQ(out.size(), 8u);
  expectTensor(out[0], rt::DType::I32, {10},
               {0, 2, 2, 0, -2, 2147483647, -2147483648.0, 3, -3, 0},
               "f32->i32 rounds half to even and saturates");
  expectTensor(out[1], rt::DType::I1, {4}, {0, 0, 1, 1}, "f32->i1 is x != 0");
  expectTensor(out[2], rt::DType::F32, {2}, {16777216, -3}, "i32->f32 rounds");
  expectTensor(out[3], rt::DType::I1, {3}, {0, 1, 1}, "i32->i1");
  expectTensor(out[4], rt::DType::F32, {2}, {1, 0}, "i1->f32");
  expectTensor(out[5], rt::DType::I32, {3}, {1, -2147483648.0, -1},
               "i64->i32 wraps");
  expectTensor(out[6], rt::DType::I32, {2}, {1, 0}, "i1->i32");
  expectTensor(out[7], rt::DType::I64, {10},
               {0, 2, 2, 0, -2, 3e9, -3e9, 3, -3, 0}, "f32->i64");
}

TEST_F(ReferenceTest, CastsToHalfAndBFloat16Round) {
  const double halfTiny = 5.9604644775390625e-08; // smallest f16 subnormal
  auto out = eval(R"mlir(
    func.func @main(%x: tensor<7xf32>, %y: tensor<3xf32>, %h: tensor<2xf16>)
        -> (tensor<7xf16>, tensor<3xbf16>, tensor<2xf32>) {
      %0 = dlc.cast %x : tensor<7xf32> -> tensor<7xf16>
      %1 = dlc.cast %y : tensor<3xf32> -> tensor<3xbf16>
      %2 = dlc.cast %h : tensor<2xf16> -> tensor<2xf32>
      return %0, %1, %2 : tensor<7xf16>, tensor<3xbf16>, tensor<2xf32>
    })mlir",
                  {f32({7}, {1.00048828125, 1.00146484375, 70000, 65519, 65520,
                             1e-8, 3e-8}),
                   f32({3}, {1.00390625, 1.01171875, 3}),
                   make(rt::DType::F16, {2}, {0.333251953125, -2})});
  ASSERT_EQ(out.size(), 3u);
  // Ties go to the even neighbour: 1 + 2^-11 -> 1, 1 + 3 * 2^-11 -> 1 + 2^-9.
  expectTensor(out[0], rt::DType::F16, {7},
               {1.0, 1.001953125, kInf, 65504, kInf, 0, halfTiny}, "f16");
  expectTensor(out[1], rt::DType::BF16, {3}, {1.0, 1.015625, 3}, "bf16");
  expectTensor(out[2], rt::DType::F32, {2}, {0.333251953125, -2}, "f16->f32");
}

TEST_F(ReferenceTest, HalfIntermediatesRoundAfterEveryOp) {
  // 2048 + 1 = 2049 is a tie between the f16 values 2048 and 2050 and goes to
  // 2048; a second + 1 again gives 2048 (in double it would be 2050).
  // 2048 + 3 = 2051 -> 2052, + 3 = 2055 -> 2056 (double: 2054).
  auto out = eval(R"mlir(
    func.func @main(%a: tensor<2xf16>, %b: tensor<2xf16>, %c: tensor<2xbf16>,
                    %d: tensor<2xbf16>, %e: tensor<1xf16>)
        -> (tensor<2xf16>, tensor<2xbf16>, tensor<1xf16>) {
      %0 = dlc.add %a, %b : (tensor<2xf16>, tensor<2xf16>) -> tensor<2xf16>
      %1 = dlc.add %0, %b : (tensor<2xf16>, tensor<2xf16>) -> tensor<2xf16>
      %2 = dlc.add %c, %d : (tensor<2xbf16>, tensor<2xbf16>) -> tensor<2xbf16>
      %3 = dlc.add %2, %d : (tensor<2xbf16>, tensor<2xbf16>) -> tensor<2xbf16>
      %4 = dlc.exp %e : tensor<1xf16>
      return %1, %3, %4 : tensor<2xf16>, tensor<2xbf16>, tensor<1xf16>
    })mlir",
                  {make(rt::DType::F16, {2}, {2048, 2048}),
                   make(rt::DType::F16, {2}, {1, 3}),
                   make(rt::DType::BF16, {2}, {256, 256}),
                   make(rt::DType::BF16, {2}, {1, 3}),
                   make(rt::DType::F16, {1}, {1})});
  ASSERT_EQ(out.size(), 3u);
  expectTensor(out[0], rt::DType::F16, {2}, {2048, 2056}, "f16 chain");
  // bf16 spacing at 256 is 2: 257 -> 256 twice; 259 -> 260, 263 -> 264.
  expectTensor(out[1], rt::DType::BF16, {2}, {256, 264}, "bf16 chain");
  // e = 2.71828... rounds to 1392 * 2^-9 in f16.
  expectTensor(out[2], rt::DType::F16, {1}, {2.71875}, "f16 exp");
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

TEST_F(ReferenceTest, Reductions) {
  std::vector<double> iota24;
  for (int i = 0; i < 24; ++i)
    iota24.push_back(i);
  auto out = eval(R"mlir(
    func.func @main(%x: tensor<2x3xf32>, %y: tensor<2x3x4xf32>)
        -> (tensor<2x1xf32>, tensor<1x3xf32>, tensor<1x1xf32>, tensor<2x1xf32>,
            tensor<1x3xf32>, tensor<2x1xf32>, tensor<1x3x1xf32>,
            tensor<2x3x1xf32>, tensor<2x1x4xf32>) {
      %0 = dlc.reduce sum %x {axes = array<i64: 1>} : (tensor<2x3xf32>) -> tensor<2x1xf32>
      %1 = dlc.reduce sum %x {axes = array<i64: 0>} : (tensor<2x3xf32>) -> tensor<1x3xf32>
      %2 = dlc.reduce sum %x {axes = array<i64: 0, 1>} : (tensor<2x3xf32>) -> tensor<1x1xf32>
      %3 = dlc.reduce max %x {axes = array<i64: 1>} : (tensor<2x3xf32>) -> tensor<2x1xf32>
      %4 = dlc.reduce min %x {axes = array<i64: 0>} : (tensor<2x3xf32>) -> tensor<1x3xf32>
      %5 = dlc.reduce prod %x {axes = array<i64: 1>} : (tensor<2x3xf32>) -> tensor<2x1xf32>
      %6 = dlc.reduce sum %y {axes = array<i64: 2, 0>} : (tensor<2x3x4xf32>) -> tensor<1x3x1xf32>
      %7 = dlc.reduce max %y {axes = array<i64: 2>} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
      %8 = dlc.reduce sum %y {axes = array<i64: 1>} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
      return %0, %1, %2, %3, %4, %5, %6, %7, %8
          : tensor<2x1xf32>, tensor<1x3xf32>, tensor<1x1xf32>, tensor<2x1xf32>,
            tensor<1x3xf32>, tensor<2x1xf32>, tensor<1x3x1xf32>,
            tensor<2x3x1xf32>, tensor<2x1x4xf32>
    })mlir",
                  {f32({2, 3}, {1, 2, -3, 4, 5, 6}), f32({2, 3, 4}, iota24)});
  ASSERT_EQ(out.size(), 9u);
  rt::DType f = rt::DType::F32;
  expectTensor(out[0], f, {2, 1}, {0, 15}, "sum axis 1");
  expectTensor(out[1], f, {1, 3}, {5, 7, 3}, "sum axis 0");
  expectTensor(out[2], f, {1, 1}, {15}, "sum all");
  expectTensor(out[3], f, {2, 1}, {2, 6}, "max axis 1");
  expectTensor(out[4], f, {1, 3}, {1, 2, -3}, "min axis 0");
  expectTensor(out[5], f, {2, 1}, {-6, 120}, "prod axis 1");
  expectTensor(out[6], f, {1, 3, 1}, {60, 92, 124}, "sum axes 0,2");
  expectTensor(out[7], f, {2, 3, 1}, {3, 7, 11, 15, 19, 23}, "max axis 2");
  expectTensor(out[8], f, {2, 1, 4}, {12, 15, 18, 21, 48, 51, 54, 57},
               "sum axis 1 of 3");
}

TEST_F(ReferenceTest, IntegerReductionsWrap) {
  auto out = eval(R"mlir(
    func.func @main(%x: tensor<2x2xi32>)
        -> (tensor<1x2xi32>, tensor<2x1xi32>, tensor<2x1xi32>) {
      %0 = dlc.reduce sum %x {axes = array<i64: 0>} : (tensor<2x2xi32>) -> tensor<1x2xi32>
      %1 = dlc.reduce max %x {axes = array<i64: 1>} : (tensor<2x2xi32>) -> tensor<2x1xi32>
      %2 = dlc.reduce min %x {axes = array<i64: 1>} : (tensor<2x2xi32>) -> tensor<2x1xi32>
      return %0, %1, %2 : tensor<1x2xi32>, tensor<2x1xi32>, tensor<2x1xi32>
    })mlir",
                  {i32({2, 2}, {2147483647, -4, 1, -5})});
  ASSERT_EQ(out.size(), 3u);
  expectTensor(out[0], rt::DType::I32, {1, 2}, {-2147483648.0, -9}, "sum");
  expectTensor(out[1], rt::DType::I32, {2, 1}, {2147483647, 1}, "max");
  expectTensor(out[2], rt::DType::I32, {2, 1}, {-4, -5}, "min");
}

TEST_F(ReferenceTest, ArgMaxTakesFirstMaximum) {
  auto out = eval(R"mlir(
    func.func @main(%x: tensor<2x4xf32>) -> (tensor<2x1xi32>, tensor<1x4xi64>) {
      %0 = dlc.argmax %x {axis = 1 : i64} : (tensor<2x4xf32>) -> tensor<2x1xi32>
      %1 = dlc.argmax %x {axis = 0 : i64} : (tensor<2x4xf32>) -> tensor<1x4xi64>
      return %0, %1 : tensor<2x1xi32>, tensor<1x4xi64>
    })mlir",
                  {f32({2, 4}, {1, 3, 3, 2, 5, -1, 5, 0})});
  ASSERT_EQ(out.size(), 2u);
  expectTensor(out[0], rt::DType::I32, {2, 1}, {1, 0}, "axis 1");
  expectTensor(out[1], rt::DType::I64, {1, 4}, {1, 0, 1, 0}, "axis 0");
}

//===----------------------------------------------------------------------===//
// Matmul
//===----------------------------------------------------------------------===//

TEST_F(ReferenceTest, MatmulTransposes) {
  // All four forms compute [[1,2,3],[4,5,6]] x [[7,8],[9,10],[11,12]].
  auto out = eval(
      R"mlir(
    func.func @main(%a: tensor<2x3xf32>, %at: tensor<3x2xf32>,
                    %b: tensor<3x2xf32>, %bt: tensor<2x3xf32>)
        -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>) {
      %0 = dlc.matmul %a, %b : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
      %1 = dlc.matmul %at, %b {transpose_a} : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
      %2 = dlc.matmul %a, %bt {transpose_b} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x2xf32>
      %3 = dlc.matmul %at, %bt {transpose_a, transpose_b} : (tensor<3x2xf32>, tensor<2x3xf32>) -> tensor<2x2xf32>
      return %0, %1, %2, %3 : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>
    })mlir",
      {f32({2, 3}, {1, 2, 3, 4, 5, 6}), f32({3, 2}, {1, 4, 2, 5, 3, 6}),
       f32({3, 2}, {7, 8, 9, 10, 11, 12}), f32({2, 3}, {7, 9, 11, 8, 10, 12})});
  ASSERT_EQ(out.size(), 4u);
  for (int i = 0; i < 4; ++i)
    expectTensor(out[i], rt::DType::F32, {2, 2}, {58, 64, 139, 154},
                 ("form " + std::to_string(i)).c_str());
}

TEST_F(ReferenceTest, MatmulBatchBroadcasting) {
  auto out = eval(R"mlir(
    func.func @main(%a: tensor<2x2x3xf32>, %b: tensor<1x3x2xf32>,
                    %c: tensor<1x2x3xf32>, %d: tensor<2x3x2xf32>,
                    %e: tensor<2x3xi32>, %f: tensor<3x2xi32>)
        -> (tensor<2x2x2xf32>, tensor<2x2x2xf32>, tensor<2x2xi32>) {
      %0 = dlc.matmul %a, %b : (tensor<2x2x3xf32>, tensor<1x3x2xf32>) -> tensor<2x2x2xf32>
      %1 = dlc.matmul %c, %d : (tensor<1x2x3xf32>, tensor<2x3x2xf32>) -> tensor<2x2x2xf32>
      %2 = dlc.matmul %e, %f : (tensor<2x3xi32>, tensor<3x2xi32>) -> tensor<2x2xi32>
      return %0, %1, %2 : tensor<2x2x2xf32>, tensor<2x2x2xf32>, tensor<2x2xi32>
    })mlir",
                  {f32({2, 2, 3}, {1, 2, 3, 4, 5, 6, 2, 4, 6, 8, 10, 12}),
                   f32({1, 3, 2}, {7, 8, 9, 10, 11, 12}),
                   f32({1, 2, 3}, {1, 2, 3, 4, 5, 6}),
                   f32({2, 3, 2}, {7, 8, 9, 10, 11, 12, 1, 0, 0, 1, 0, 0}),
                   i32({2, 3}, {1, 2, 3, 4, 5, 6}),
                   i32({3, 2}, {7, 8, 9, 10, 11, 12})});
  ASSERT_EQ(out.size(), 3u);
  expectTensor(out[0], rt::DType::F32, {2, 2, 2},
               {58, 64, 139, 154, 116, 128, 278, 308}, "rhs batch 1");
  expectTensor(out[1], rt::DType::F32, {2, 2, 2},
               {58, 64, 139, 154, 1, 2, 4, 5}, "lhs batch 1");
  expectTensor(out[2], rt::DType::I32, {2, 2}, {58, 64, 139, 154}, "i32");
}

/// Outputs 2i and 2i + 1 are equal element for element, and not all zero.
void expectPairsEqual(const std::vector<rt::HostTensor> &out) {
  for (size_t pair = 0; pair < out.size() / 2; ++pair) {
    std::vector<double> heads = valuesOf(out[2 * pair]);
    std::vector<double> split = valuesOf(out[2 * pair + 1]);
    ASSERT_EQ(heads.size(), split.size());
    double maxAbs = 0;
    for (size_t i = 0; i < heads.size(); ++i) {
      EXPECT_EQ(heads[i], split[i]) << "pair " << pair << " element " << i;
      maxAbs = std::max(maxAbs, std::abs(heads[i]));
    }
    EXPECT_GT(maxAbs, 0.1) << "pair " << pair << " is not all zeros";
  }
}

TEST_F(ReferenceTest, AttentionHeadsLayoutMatchesSplitHeads) {
  // dlc.attention with head_offsets against the same attention on heads
  // split out by slices and transposes: a packed QKV [2, 5, 6, 3] (two
  // heads each of q, k and v) with a per-key mask; and q separate from a
  // packed KV whose batch of 1 broadcasts, causal with fewer queries than
  // keys.
  auto out = eval(R"mlir(
    func.func @main(%qkv: tensor<2x5x6x3xf32>, %mask: tensor<2x1x1x5xf32>,
                    %q: tensor<2x3x2x3xf32>, %kv: tensor<1x5x4x3xf32>)
        -> (tensor<2x5x2x3xf32>, tensor<2x5x2x3xf32>,
            tensor<2x3x2x3xf32>, tensor<2x3x2x3xf32>) {
      %0 = dlc.attention %qkv, %qkv, %qkv, %mask {head_offsets = array<i64: 0, 2, 4>, scale = 0.5 : f64} : (tensor<2x5x6x3xf32>, tensor<2x5x6x3xf32>, tensor<2x5x6x3xf32>, tensor<2x1x1x5xf32>) -> tensor<2x5x2x3xf32>
      %qs = dlc.slice %qkv {start = array<i64: 0, 0, 0, 0>} : (tensor<2x5x6x3xf32>) -> tensor<2x5x2x3xf32>
      %ks = dlc.slice %qkv {start = array<i64: 0, 0, 2, 0>} : (tensor<2x5x6x3xf32>) -> tensor<2x5x2x3xf32>
      %vs = dlc.slice %qkv {start = array<i64: 0, 0, 4, 0>} : (tensor<2x5x6x3xf32>) -> tensor<2x5x2x3xf32>
      %qt = dlc.transpose %qs {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x5x2x3xf32>) -> tensor<2x2x5x3xf32>
      %kt = dlc.transpose %ks {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x5x2x3xf32>) -> tensor<2x2x5x3xf32>
      %vt = dlc.transpose %vs {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x5x2x3xf32>) -> tensor<2x2x5x3xf32>
      %a = dlc.attention %qt, %kt, %vt, %mask {scale = 0.5 : f64} : (tensor<2x2x5x3xf32>, tensor<2x2x5x3xf32>, tensor<2x2x5x3xf32>, tensor<2x1x1x5xf32>) -> tensor<2x2x5x3xf32>
      %1 = dlc.transpose %a {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x2x5x3xf32>) -> tensor<2x5x2x3xf32>
      %2 = dlc.attention %q, %kv, %kv {causal, head_offsets = array<i64: 0, 0, 2>, scale = 0.7 : f64} : (tensor<2x3x2x3xf32>, tensor<1x5x4x3xf32>, tensor<1x5x4x3xf32>) -> tensor<2x3x2x3xf32>
      %q2 = dlc.transpose %q {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x3x2x3xf32>) -> tensor<2x2x3x3xf32>
      %k2s = dlc.slice %kv {start = array<i64: 0, 0, 0, 0>} : (tensor<1x5x4x3xf32>) -> tensor<1x5x2x3xf32>
      %v2s = dlc.slice %kv {start = array<i64: 0, 0, 2, 0>} : (tensor<1x5x4x3xf32>) -> tensor<1x5x2x3xf32>
      %k2 = dlc.transpose %k2s {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x5x2x3xf32>) -> tensor<1x2x5x3xf32>
      %v2 = dlc.transpose %v2s {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x5x2x3xf32>) -> tensor<1x2x5x3xf32>
      %b = dlc.attention %q2, %k2, %v2 {causal, scale = 0.7 : f64} : (tensor<2x2x3x3xf32>, tensor<1x2x5x3xf32>, tensor<1x2x5x3xf32>) -> tensor<2x2x3x3xf32>
      %3 = dlc.transpose %b {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x2x3x3xf32>) -> tensor<2x3x2x3xf32>
      return %0, %1, %2, %3 : tensor<2x5x2x3xf32>, tensor<2x5x2x3xf32>, tensor<2x3x2x3xf32>, tensor<2x3x2x3xf32>
    })mlir",
                  {f32({2, 5, 6, 3}, pseudoRandom(180, 1)),
                   f32({2, 1, 1, 5}, {0, -1, 0.5, -1e30, 0, 0, 0, 0, 2, 0}),
                   f32({2, 3, 2, 3}, pseudoRandom(36, 2)),
                   f32({1, 5, 4, 3}, pseudoRandom(60, 3))});
  ASSERT_EQ(out.size(), 4u);
  expectPairsEqual(out);
}

TEST_F(ReferenceTest, AttentionSequenceFirstMatchesSplitHeads) {
  // seq_first: q, k, v [S, B, N, D] (a packed QKV, as nn.MultiheadAttention
  // lays it out) against heads split out by slices and transposes, with a
  // [B, H, Sq, Sk] mask; and causal with keys of batch 1.
  auto out = eval(R"mlir(
    func.func @main(%qkv: tensor<5x2x6x3xf32>, %mask: tensor<2x2x5x5xf32>,
                    %q: tensor<3x2x2x3xf32>, %kv: tensor<5x1x4x3xf32>)
        -> (tensor<5x2x2x3xf32>, tensor<5x2x2x3xf32>,
            tensor<3x2x2x3xf32>, tensor<3x2x2x3xf32>) {
      %0 = dlc.attention %qkv, %qkv, %qkv, %mask {head_offsets = array<i64: 0, 2, 4>, scale = 0.5 : f64, seq_first} : (tensor<5x2x6x3xf32>, tensor<5x2x6x3xf32>, tensor<5x2x6x3xf32>, tensor<2x2x5x5xf32>) -> tensor<5x2x2x3xf32>
      %qs = dlc.slice %qkv {start = array<i64: 0, 0, 0, 0>} : (tensor<5x2x6x3xf32>) -> tensor<5x2x2x3xf32>
      %ks = dlc.slice %qkv {start = array<i64: 0, 0, 2, 0>} : (tensor<5x2x6x3xf32>) -> tensor<5x2x2x3xf32>
      %vs = dlc.slice %qkv {start = array<i64: 0, 0, 4, 0>} : (tensor<5x2x6x3xf32>) -> tensor<5x2x2x3xf32>
      %qt = dlc.transpose %qs {perm = array<i64: 1, 2, 0, 3>} : (tensor<5x2x2x3xf32>) -> tensor<2x2x5x3xf32>
      %kt = dlc.transpose %ks {perm = array<i64: 1, 2, 0, 3>} : (tensor<5x2x2x3xf32>) -> tensor<2x2x5x3xf32>
      %vt = dlc.transpose %vs {perm = array<i64: 1, 2, 0, 3>} : (tensor<5x2x2x3xf32>) -> tensor<2x2x5x3xf32>
      %a = dlc.attention %qt, %kt, %vt, %mask {scale = 0.5 : f64} : (tensor<2x2x5x3xf32>, tensor<2x2x5x3xf32>, tensor<2x2x5x3xf32>, tensor<2x2x5x5xf32>) -> tensor<2x2x5x3xf32>
      %1 = dlc.transpose %a {perm = array<i64: 2, 0, 1, 3>} : (tensor<2x2x5x3xf32>) -> tensor<5x2x2x3xf32>
      %2 = dlc.attention %q, %kv, %kv {causal, head_offsets = array<i64: 0, 0, 2>, scale = 0.7 : f64, seq_first} : (tensor<3x2x2x3xf32>, tensor<5x1x4x3xf32>, tensor<5x1x4x3xf32>) -> tensor<3x2x2x3xf32>
      %q2 = dlc.transpose %q {perm = array<i64: 1, 2, 0, 3>} : (tensor<3x2x2x3xf32>) -> tensor<2x2x3x3xf32>
      %k2s = dlc.slice %kv {start = array<i64: 0, 0, 0, 0>} : (tensor<5x1x4x3xf32>) -> tensor<5x1x2x3xf32>
      %v2s = dlc.slice %kv {start = array<i64: 0, 0, 2, 0>} : (tensor<5x1x4x3xf32>) -> tensor<5x1x2x3xf32>
      %k2 = dlc.transpose %k2s {perm = array<i64: 1, 2, 0, 3>} : (tensor<5x1x2x3xf32>) -> tensor<1x2x5x3xf32>
      %v2 = dlc.transpose %v2s {perm = array<i64: 1, 2, 0, 3>} : (tensor<5x1x2x3xf32>) -> tensor<1x2x5x3xf32>
      %b = dlc.attention %q2, %k2, %v2 {causal, scale = 0.7 : f64} : (tensor<2x2x3x3xf32>, tensor<1x2x5x3xf32>, tensor<1x2x5x3xf32>) -> tensor<2x2x3x3xf32>
      %3 = dlc.transpose %b {perm = array<i64: 2, 0, 1, 3>} : (tensor<2x2x3x3xf32>) -> tensor<3x2x2x3xf32>
      return %0, %1, %2, %3 : tensor<5x2x2x3xf32>, tensor<5x2x2x3xf32>, tensor<3x2x2x3xf32>, tensor<3x2x2x3xf32>
    })mlir",
                  {f32({5, 2, 6, 3}, pseudoRandom(180, 4)),
                   f32({2, 2, 5, 5}, pseudoRandom(100, 5)),
                   f32({3, 2, 2, 3}, pseudoRandom(36, 6)),
                   f32({5, 1, 4, 3}, pseudoRandom(60, 7))});
  ASSERT_EQ(out.size(), 4u);
  expectPairsEqual(out);
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

TEST_F(ReferenceTest, Transposes) {
  std::vector<double> iota24;
  for (int i = 0; i < 24; ++i)
    iota24.push_back(i);
  auto out = eval(R"mlir(
    func.func @main(%x: tensor<2x3xf32>, %y: tensor<2x3x4xf32>)
        -> (tensor<3x2xf32>, tensor<4x2x3xf32>, tensor<3x4x2xf32>) {
      %0 = dlc.transpose %x {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
      %1 = dlc.transpose %y {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
      %2 = dlc.transpose %y {perm = array<i64: 1, 2, 0>} : (tensor<2x3x4xf32>) -> tensor<3x4x2xf32>
      return %0, %1, %2 : tensor<3x2xf32>, tensor<4x2x3xf32>, tensor<3x4x2xf32>
    })mlir",
                  {f32({2, 3}, {1, 2, 3, 4, 5, 6}), f32({2, 3, 4}, iota24)});
  ASSERT_EQ(out.size(), 3u);
  expectTensor(out[0], rt::DType::F32, {3, 2}, {1, 4, 2, 5, 3, 6}, "2-D");
  // out[a][b][c] = y[b][c][a] = 12b + 4c + a.
  expectTensor(out[1], rt::DType::F32, {4, 2, 3},
               {0, 4, 8,  12, 16, 20, 1, 5, 9,  13, 17, 21,
                2, 6, 10, 14, 18, 22, 3, 7, 11, 15, 19, 23},
               "perm 2,0,1");
  // out[a][b][c] = y[c][a][b] = 12c + 4a + b.
  expectTensor(out[2], rt::DType::F32, {3, 4, 2},
               {0, 12, 1, 13, 2, 14, 3, 15, 4,  16, 5,  17,
                6, 18, 7, 19, 8, 20, 9, 21, 10, 22, 11, 23},
               "perm 1,2,0");
}

TEST_F(ReferenceTest, ReshapeSliceConcatPadTile) {
  std::vector<double> iota12;
  for (int i = 0; i < 12; ++i)
    iota12.push_back(i);
  auto out = eval(R"mlir(
    func.func @main(%x: tensor<2x3xf32>, %s: tensor<3x4xf32>,
                    %a: tensor<2x1xf32>, %b: tensor<2x2xf32>,
                    %c: tensor<2x1xf32>, %r: tensor<1x2xf32>)
        -> (tensor<3x2xf32>, tensor<2x2xf32>, tensor<2x4xf32>, tensor<3x2xf32>,
            tensor<3x4xf32>, tensor<2x4xf32>, tensor<4x3xf32>) {
      %0 = dlc.reshape %x : tensor<2x3xf32> -> tensor<3x2xf32>
      %1 = dlc.slice %s {start = array<i64: 1, 1>} : (tensor<3x4xf32>) -> tensor<2x2xf32>
      %2 = dlc.concat %a, %b, %c {axis = 1 : i64}
          : (tensor<2x1xf32>, tensor<2x2xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
      %3 = dlc.concat %r, %b {axis = 0 : i64}
          : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
      %4 = dlc.pad %b {low = array<i64: 1, 0>, high = array<i64: 0, 2>, value = -1.0 : f64}
          : (tensor<2x2xf32>) -> tensor<3x4xf32>
      %5 = dlc.tile %r {multiples = array<i64: 2, 2>} : (tensor<1x2xf32>) -> tensor<2x4xf32>
      %6 = dlc.tile %a {multiples = array<i64: 2, 3>} : (tensor<2x1xf32>) -> tensor<4x3xf32>
      return %0, %1, %2, %3, %4, %5, %6
          : tensor<3x2xf32>, tensor<2x2xf32>, tensor<2x4xf32>, tensor<3x2xf32>,
            tensor<3x4xf32>, tensor<2x4xf32>, tensor<4x3xf32>
    })mlir",
                  {f32({2, 3}, {1, 2, 3, 4, 5, 6}), f32({3, 4}, iota12),
                   f32({2, 1}, {1, 2}), f32({2, 2}, {3, 4, 5, 6}),
                   f32({2, 1}, {7, 8}), f32({1, 2}, {1, 2})});
  ASSERT_EQ(out.size(), 7u);
  rt::DType f = rt::DType::F32;
  expectTensor(out[0], f, {3, 2}, {1, 2, 3, 4, 5, 6}, "reshape");
  expectTensor(out[1], f, {2, 2}, {5, 6, 9, 10}, "slice");
  expectTensor(out[2], f, {2, 4}, {1, 3, 4, 7, 2, 5, 6, 8}, "concat axis 1");
  expectTensor(out[3], f, {3, 2}, {1, 2, 3, 4, 5, 6}, "concat axis 0");
  expectTensor(out[4], f, {3, 4}, {-1, -1, -1, -1, 3, 4, -1, -1, 5, 6, -1, -1},
               "pad");
  expectTensor(out[5], f, {2, 4}, {1, 2, 1, 2, 1, 2, 1, 2}, "tile 2x2");
  expectTensor(out[6], f, {4, 3}, {1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2},
               "tile 2x3");
}

TEST_F(ReferenceTest, PadValueConvertsToElementType) {
  auto out = eval(R"mlir(
    func.func @main(%x: tensor<1xi32>) -> tensor<3xi32> {
      %0 = dlc.pad %x {low = array<i64: 1>, high = array<i64: 1>, value = 2.5 : f64}
          : (tensor<1xi32>) -> tensor<3xi32>
      return %0 : tensor<3xi32>
    })mlir",
                  {i32({1}, {9})});
  ASSERT_EQ(out.size(), 1u);
  expectTensor(out[0], rt::DType::I32, {3}, {2, 9, 2});
}

//===----------------------------------------------------------------------===//
// Constants and kernels
//===----------------------------------------------------------------------===//

TEST_F(ReferenceTest, Constants) {
  auto out = eval(R"mlir(
    func.func @main() -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2xi1>,
                          tensor<2xi32>, tensor<2xf16>, tensor<2xf32>,
                          tensor<3xi64>) {
      %0 = dlc.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
      %1 = dlc.constant dense<2.5> : tensor<2x2xf32>
      %2 = dlc.constant dense<[true, false]> : tensor<2xi1>
      %3 = dlc.constant dense<[-1, 5]> : tensor<2xi32>
      %4 = dlc.constant dense<[1.5, -2.0]> : tensor<2xf16>
      %5 = dlc.constant dense_resource<blob1> : tensor<2xf32>
      %6 = dlc.constant dense<-7> : tensor<3xi64>
      return %0, %1, %2, %3, %4, %5, %6
          : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2xi1>, tensor<2xi32>,
            tensor<2xf16>, tensor<2xf32>, tensor<3xi64>
    }
    {-#
      dialect_resources: {
        builtin: {
          blob1: "0x040000000000803F000000C0"
        }
      }
    #-})mlir",
                  {});
  ASSERT_EQ(out.size(), 7u);
  expectTensor(out[0], rt::DType::F32, {2, 2}, {1, 2, 3, 4}, "dense");
  expectTensor(out[1], rt::DType::F32, {2, 2}, {2.5, 2.5, 2.5, 2.5}, "splat");
  expectTensor(out[2], rt::DType::I1, {2}, {1, 0}, "i1");
  expectTensor(out[3], rt::DType::I32, {2}, {-1, 5}, "i32");
  expectTensor(out[4], rt::DType::F16, {2}, {1.5, -2}, "f16");
  expectTensor(out[5], rt::DType::F32, {2}, {1, -2}, "dense_resource");
  expectTensor(out[6], rt::DType::I64, {3}, {-7, -7, -7}, "i64 splat");
}

TEST_F(ReferenceTest, KernelsAndPlannedFunctions) {
  // The shape of IR after fusion and memory planning: kernels with several
  // results, a reshape view and a matmul at the top level.
  auto out = eval(R"mlir(
    func.func @main(%x: tensor<2x2xf32>, %b: tensor<1x2xf32>)
        -> (tensor<2x2xf32>, tensor<2x1xf32>, tensor<4xf32>, tensor<2x2xf32>)
        attributes {dlc.arena_bytes = 512 : i64, dlc.intermediate_bytes = 256 : i64} {
      %r:2 = dlc.kernel (%x, %b) {dlc.offsets = array<i64: 0, -1>}
          : (tensor<2x2xf32>, tensor<1x2xf32>) -> (tensor<2x2xf32>, tensor<2x1xf32>) {
      ^bb0(%a0: tensor<2x2xf32>, %a1: tensor<1x2xf32>):
        %c = dlc.constant dense<2.0> : tensor<1x1xf32>
        %0 = dlc.add %a0, %a1 : (tensor<2x2xf32>, tensor<1x2xf32>) -> tensor<2x2xf32>
        %1 = dlc.mul %0, %c : (tensor<2x2xf32>, tensor<1x1xf32>) -> tensor<2x2xf32>
        %2 = dlc.reduce sum %1 {axes = array<i64: 1>} : (tensor<2x2xf32>) -> tensor<2x1xf32>
        dlc.yield %1, %2 : tensor<2x2xf32>, tensor<2x1xf32>
      }
      %v = dlc.reshape %r#0 : tensor<2x2xf32> -> tensor<4xf32>
      %m = dlc.matmul %r#0, %x {transpose_b, dlc.offsets = array<i64: -1>}
          : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
      return %r#0, %r#1, %v, %m
          : tensor<2x2xf32>, tensor<2x1xf32>, tensor<4xf32>, tensor<2x2xf32>
    })mlir",
                  {f32({2, 2}, {1, 2, 3, 4}), f32({1, 2}, {10, 20})});
  ASSERT_EQ(out.size(), 4u);
  // (x + b) * 2 = [[22, 44], [26, 48]].
  expectTensor(out[0], rt::DType::F32, {2, 2}, {22, 44, 26, 48}, "kernel");
  expectTensor(out[1], rt::DType::F32, {2, 1}, {66, 74}, "kernel sum");
  expectTensor(out[2], rt::DType::F32, {4}, {22, 44, 26, 48}, "reshape");
  // [[22,44],[26,48]] x [[1,3],[2,4]] = [[110, 242], [122, 270]].
  expectTensor(out[3], rt::DType::F32, {2, 2}, {110, 242, 122, 270}, "matmul");
}

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

const char *kAddOne = R"mlir(
    func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
      %c = dlc.constant dense<1.0> : tensor<2xf32>
      %0 = dlc.add %x, %c : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
      return %0 : tensor<2xf32>
    })mlir";

TEST_F(ReferenceTest, WrongInputCount) {
  std::string d = evalError(kAddOne, {});
  EXPECT_NE(d.find("expects 1 inputs, but 0 were given"), std::string::npos)
      << d;
}

TEST_F(ReferenceTest, WrongInputShapeOrType) {
  std::string d = evalError(kAddOne, {f32({3}, {1, 2, 3})});
  EXPECT_NE(d.find("input #0 is f32[3], but the function expects f32[2]"),
            std::string::npos)
      << d;
  d = evalError(kAddOne, {i32({2}, {1, 2})});
  EXPECT_NE(d.find("input #0 is i32[2], but the function expects f32[2]"),
            std::string::npos)
      << d;
  rt::HostTensor shortData = f32({2}, {1, 2});
  shortData.data.resize(4);
  d = evalError(kAddOne, {shortData});
  EXPECT_NE(d.find("holds 4 bytes, but 8 are needed"), std::string::npos) << d;
}

TEST_F(ReferenceTest, ResourceOfTheWrongSizeSaysWhatItNeeds) {
  // One byte short of tensor<2xf16>; i1 is stored one byte per element, so
  // 2 bytes are right for tensor<2xi1> (and 2 and 0 read as true, false).
  std::string d = evalError(R"mlir(
    func.func @main() -> tensor<2xf16> {
      %0 = dlc.constant dense_resource<half> : tensor<2xf16>
      return %0 : tensor<2xf16>
    }
    {-#
      dialect_resources: {
        builtin: {
          half: "0x02000000003C00"
        }
      }
    #-})mlir",
                            {});
  EXPECT_NE(d.find("the resource 'half' holds 3 bytes, but tensor<2xf16> "
                   "needs 4 (2 elements of 2 bytes)"),
            std::string::npos)
      << d;
  auto out = eval(R"mlir(
    func.func @main() -> tensor<2xi1> {
      %0 = dlc.constant dense_resource<bits> : tensor<2xi1>
      return %0 : tensor<2xi1>
    }
    {-#
      dialect_resources: {
        builtin: {
          bits: "0x010000000200"
        }
      }
    #-})mlir",
                  {});
  ASSERT_EQ(out.size(), 1u);
  expectTensor(out[0], rt::DType::I1, {2}, {1, 0}, "i1 resource");
}

TEST_F(ReferenceTest, ElementBudget) {
  // Each value alone is within the interpreter's limit of 2^30 elements,
  // all of them together not: refused at the input or the op that would go
  // over the budget, before anything is allocated.
  rt::HostTensor huge;
  huge.dtype = rt::DType::F32;
  huge.shape = {int64_t(1) << 29};
  std::string d = evalError(R"mlir(
    func.func @main(%x: tensor<536870912xf32>) -> tensor<536870912xf32> {
      return %x : tensor<536870912xf32>
    })mlir",
                            {huge});
  EXPECT_NE(d.find("input #0 has 536870912 elements; the reference "
                   "interpreter evaluates models whose values hold at most "
                   "268435456 elements in all"),
            std::string::npos)
      << d;
  // The input's 2 elements count: a constant of 2^28 - 1 elements goes
  // over.
  d = evalError(R"mlir(
    func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
      %a = dlc.constant dense<1.0> : tensor<268435455xf32>
      %s = dlc.slice %a {start = array<i64: 0>, size = array<i64: 2>} : (tensor<268435455xf32>) -> tensor<2xf32>
      return %s : tensor<2xf32>
    })mlir",
                {f32({2}, {1, 2})});
  EXPECT_NE(d.find("'dlc.constant' op has a result of 268435455 elements, "
                   "which would bring the reference interpreter's tensors to "
                   "268435457 elements"),
            std::string::npos)
      << d;
}

TEST_F(ReferenceTest, NonDlcOpIsDiagnosed) {
  std::string d = evalError(R"mlir(
    func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
      %0 = tosa.exp %x : (tensor<2xf32>) -> tensor<2xf32>
      return %0 : tensor<2xf32>
    })mlir",
                            {f32({2}, {1, 2})});
  EXPECT_NE(d.find("'tosa.exp' op is not a dlc operation"), std::string::npos)
      << d;
}

TEST_F(ReferenceTest, IntegerDivisionByZeroIsDiagnosed) {
  std::string d = evalError(R"mlir(
    func.func @main(%x: tensor<2xi32>, %y: tensor<2xi32>) -> tensor<2xi32> {
      %0 = dlc.div %x, %y : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
      return %0 : tensor<2xi32>
    })mlir",
                            {i32({2}, {1, 2}), i32({2}, {1, 0})});
  EXPECT_NE(d.find("divides by zero (element 1 of the result)"),
            std::string::npos)
      << d;
}

TEST_F(ReferenceTest, BooleanOpsOnFloatsAreDiagnosed) {
  std::string d = evalError(R"mlir(
    func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
      %0 = dlc.and %x, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
      return %0 : tensor<2xf32>
    })mlir",
                            {f32({2}, {1, 2})});
  EXPECT_NE(d.find("is not defined on floating-point tensors"),
            std::string::npos)
      << d;
}

//===----------------------------------------------------------------------===//
// Example models: TOSA -> dlc-lower -> reference
//===----------------------------------------------------------------------===//

/// Uniform values in [-1, 1) from a fixed linear congruential generator.
std::vector<double> uniformInputs(int64_t n, uint32_t seed) {
  std::vector<double> v(n);
  uint32_t state = seed;
  for (int64_t i = 0; i < n; ++i) {
    state = state * 1664525u + 1013904223u;
    v[i] = (state >> 8) / 8388608.0 - 1.0;
  }
  return v;
}

/// One evaluation of an example model.
struct ExampleRun {
  std::vector<std::vector<double>> inputs;
  /// The tosa.const ops with a name location (loc("attn.q.weight")).
  std::map<std::string, std::vector<double>> weights;
  std::vector<rt::HostTensor> outputs;

  const std::vector<double> &weight(const std::string &name) const {
    static const std::vector<double> none;
    auto it = weights.find(name);
    EXPECT_NE(it, weights.end()) << "no weight named " << name;
    return it == weights.end() ? none : it->second;
  }
};

class ExampleTest : public ReferenceTest,
                    public ::testing::WithParamInterface<const char *> {
protected:
  /// Loads examples/<name>.mlir, lowers it (and, with `optimize`, fuses and
  /// plans it) and evaluates it on uniform inputs in [-1, 1). Fails the test
  /// (returning nullopt) on any error.
  std::optional<ExampleRun> runExample(const char *name,
                                       bool optimize = false) {
    std::string path = std::string(DLC_EXAMPLES_DIR) + "/" + name + ".mlir";
    auto buffer = llvm::MemoryBuffer::getFile(path);
    if (!buffer) {
      ADD_FAILURE() << "cannot read " << path;
      return std::nullopt;
    }
    OwningOpRef<ModuleOp> module = parse((*buffer)->getBuffer());
    if (!module) {
      ADD_FAILURE() << "cannot parse " << path << ":\n" << diagnostics;
      return std::nullopt;
    }
    ExampleRun run;
    module->walk([&](tosa::ConstOp op) {
      auto loc = dyn_cast<NameLoc>(op.getLoc());
      auto value = dyn_cast<DenseElementsAttr>(op.getValue());
      if (!loc || !value || !value.getElementType().isF32())
        return;
      std::vector<double> &w = run.weights[loc.getName().str()];
      for (const APFloat &f : value.getValues<APFloat>())
        w.push_back(f.convertToDouble());
    });
    {
      ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
        diagnostics += d.str() + "\n";
        return success();
      });
      PassManager pm(&context);
      if (optimize)
        mlir::dlc::buildDlcPipeline(pm, mlir::dlc::PipelineOptions());
      else
        mlir::dlc::buildLoweringPipeline(pm);
      if (failed(pm.run(*module))) {
        ADD_FAILURE() << "cannot compile " << path << ":\n" << diagnostics;
        return std::nullopt;
      }
    }
    auto func = module->lookupSymbol<func::FuncOp>("main");
    if (!func) {
      ADD_FAILURE() << path << " has no @main";
      return std::nullopt;
    }
    // Lowered IR holds only dlc ops and func.return.
    func.walk([&](Operation *op) {
      if (!isa<func::FuncOp, func::ReturnOp>(op) &&
          !isa<mlir::dlc::DlcDialect>(op->getDialect()))
        ADD_FAILURE() << "compiled " << name << " still holds "
                      << op->getName().getStringRef().str();
    });
    std::vector<rt::HostTensor> inputs;
    uint32_t seed = 1;
    for (Type t : func.getFunctionType().getInputs()) {
      auto type = cast<RankedTensorType>(t);
      EXPECT_TRUE(type.getElementType().isF32());
      run.inputs.push_back(uniformInputs(type.getNumElements(), seed++));
      inputs.push_back(f32(
          std::vector<int64_t>(type.getShape().begin(), type.getShape().end()),
          run.inputs.back()));
    }
    auto out = evalModule(*module, inputs);
    if (!out) {
      ADD_FAILURE() << "cannot evaluate " << name << ":\n" << diagnostics;
      return std::nullopt;
    }
    EXPECT_EQ(out->size(), func.getFunctionType().getNumResults());
    for (const rt::HostTensor &t : *out) {
      std::vector<double> v = valuesOf(t);
      EXPECT_FALSE(v.empty());
      double maxAbs = 0;
      for (double x : v) {
        EXPECT_TRUE(std::isfinite(x)) << name << " gives " << x;
        maxAbs = std::max(maxAbs, std::fabs(x));
      }
      // Not all zero and not blown up: the weights are about +-0.1.
      EXPECT_GT(maxAbs, 1e-3) << name;
      EXPECT_LT(maxAbs, 1e3) << name;
    }
    run.outputs = std::move(*out);
    return run;
  }
};

TEST_P(ExampleTest, LowersAndEvaluates) {
  auto run = runExample(GetParam());
  EXPECT_TRUE(run.has_value());
}

/// Fusion and memory planning must not change what the model computes: the
/// planned IR (kernels, views, matmuls) evaluates like the lowered IR.
TEST_P(ExampleTest, OptimizedEvaluatesLikeLowered) {
  auto lowered = runExample(GetParam());
  auto optimized = runExample(GetParam(), /*optimize=*/true);
  ASSERT_TRUE(lowered && optimized);
  ASSERT_EQ(lowered->outputs.size(), optimized->outputs.size());
  for (size_t i = 0; i < lowered->outputs.size(); ++i) {
    EXPECT_EQ(lowered->outputs[i].shape, optimized->outputs[i].shape);
    std::vector<double> a = valuesOf(lowered->outputs[i]);
    std::vector<double> b = valuesOf(optimized->outputs[i]);
    ASSERT_EQ(a.size(), b.size());
    for (size_t j = 0; j < a.size(); ++j)
      EXPECT_NEAR(a[j], b[j], 1e-6 * std::max(1.0, std::fabs(a[j])))
          << "output " << i << " element " << j;
  }
}

INSTANTIATE_TEST_SUITE_P(Examples, ExampleTest,
                         ::testing::Values("mlp", "layernorm_gelu", "attention",
                                           "encoder_layer",
                                           "reshape_transpose"));

//===----------------------------------------------------------------------===//
// The examples recomputed directly from their weights, in plain C++
//===----------------------------------------------------------------------===//

using Vec = std::vector<double>;

/// x [n, in] times weight^T ([out, in]) plus bias [out].
Vec linear(const Vec &x, int64_t n, int64_t in, const Vec &w, const Vec &b,
           int64_t out) {
  Vec y(n * out);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t o = 0; o < out; ++o) {
      double acc = b[o];
      for (int64_t k = 0; k < in; ++k)
        acc += x[i * in + k] * w[o * in + k];
      y[i * out + o] = acc;
    }
  return y;
}

/// Softmax of each row of [n, d].
void softmaxRows(Vec &x, int64_t n, int64_t d) {
  for (int64_t i = 0; i < n; ++i) {
    double mx = -kInf, sum = 0;
    for (int64_t j = 0; j < d; ++j)
      mx = std::max(mx, x[i * d + j]);
    for (int64_t j = 0; j < d; ++j)
      sum += (x[i * d + j] = std::exp(x[i * d + j] - mx));
    for (int64_t j = 0; j < d; ++j)
      x[i * d + j] /= sum;
  }
}

/// LayerNorm of each row of [n, d] (biased variance, eps 1e-5).
Vec layerNorm(const Vec &x, int64_t n, int64_t d, const Vec &gamma,
              const Vec &beta) {
  Vec y(n * d);
  for (int64_t i = 0; i < n; ++i) {
    double mean = 0, var = 0;
    for (int64_t j = 0; j < d; ++j)
      mean += x[i * d + j];
    mean /= d;
    for (int64_t j = 0; j < d; ++j)
      var += (x[i * d + j] - mean) * (x[i * d + j] - mean);
    var /= d;
    for (int64_t j = 0; j < d; ++j)
      y[i * d + j] =
          (x[i * d + j] - mean) / std::sqrt(var + 1e-5) * gamma[j] + beta[j];
  }
  return y;
}

Vec gelu(Vec x) {
  for (double &v : x)
    v = 0.5 * v * (1 + std::erf(v / std::sqrt(2.0)));
  return x;
}

/// Multi-head self-attention of x [batch * seq, dModel].
Vec attention(const ExampleRun &run, const Vec &x, int64_t batch, int64_t seq,
              int64_t dModel, int64_t heads) {
  int64_t n = batch * seq, dh = dModel / heads;
  Vec q = linear(x, n, dModel, run.weight("attn.q.weight"),
                 run.weight("attn.q.bias"), dModel);
  Vec k = linear(x, n, dModel, run.weight("attn.k.weight"),
                 run.weight("attn.k.bias"), dModel);
  Vec v = linear(x, n, dModel, run.weight("attn.v.weight"),
                 run.weight("attn.v.bias"), dModel);
  Vec ctx(n * dModel, 0.0);
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t h = 0; h < heads; ++h) {
      Vec scores(seq * seq);
      for (int64_t i = 0; i < seq; ++i)
        for (int64_t j = 0; j < seq; ++j) {
          double acc = 0;
          for (int64_t d = 0; d < dh; ++d)
            acc += q[(b * seq + i) * dModel + h * dh + d] *
                   k[(b * seq + j) * dModel + h * dh + d];
          scores[i * seq + j] = acc / std::sqrt(double(dh));
        }
      softmaxRows(scores, seq, seq);
      for (int64_t i = 0; i < seq; ++i)
        for (int64_t d = 0; d < dh; ++d) {
          double acc = 0;
          for (int64_t j = 0; j < seq; ++j)
            acc += scores[i * seq + j] * v[(b * seq + j) * dModel + h * dh + d];
          ctx[(b * seq + i) * dModel + h * dh + d] = acc;
        }
    }
  return linear(ctx, n, dModel, run.weight("attn.out.weight"),
                run.weight("attn.out.bias"), dModel);
}

/// Outputs are f32: compare to a tolerance relative to the value's scale.
void expectClose(const rt::HostTensor &got, const Vec &expected,
                 const char *what) {
  SCOPED_TRACE(what);
  Vec v = valuesOf(got);
  ASSERT_EQ(v.size(), expected.size());
  for (size_t i = 0; i < v.size(); ++i)
    EXPECT_NEAR(v[i], expected[i], 1e-6 * std::max(1.0, std::fabs(expected[i])))
        << "element " << i;
}

TEST_F(ExampleTest, MlpMatchesDirectComputation) {
  auto run = runExample("mlp");
  ASSERT_TRUE(run.has_value());
  ASSERT_EQ(run->outputs.size(), 1u);
  ASSERT_EQ(run->outputs[0].shape, (std::vector<int64_t>{8, 10}));
  Vec h = linear(run->inputs[0], 8, 64, run->weight("fc1.weight"),
                 run->weight("fc1.bias"), 128);
  for (double &v : h)
    v = std::max(v, 0.0);
  // fc2.weight is [1, 128, 10] (a tosa.matmul operand): [in, out].
  const Vec &w2 = run->weight("fc2.weight");
  const Vec &b2 = run->weight("fc2.bias");
  Vec logits(8 * 10);
  for (int i = 0; i < 8; ++i)
    for (int o = 0; o < 10; ++o) {
      double acc = b2[o];
      for (int k = 0; k < 128; ++k)
        acc += h[i * 128 + k] * w2[k * 10 + o];
      logits[i * 10 + o] = acc;
    }
  softmaxRows(logits, 8, 10);
  expectClose(run->outputs[0], logits, "mlp");
  // Softmax rows sum to one.
  Vec p = valuesOf(run->outputs[0]);
  for (int i = 0; i < 8; ++i) {
    double sum = 0;
    for (int o = 0; o < 10; ++o) {
      EXPECT_GT(p[i * 10 + o], 0.0);
      sum += p[i * 10 + o];
    }
    EXPECT_NEAR(sum, 1.0, 1e-6) << "row " << i;
  }
}

TEST_F(ExampleTest, LayerNormGeluMatchesDirectComputation) {
  auto run = runExample("layernorm_gelu");
  ASSERT_TRUE(run.has_value());
  ASSERT_EQ(run->outputs.size(), 1u);
  ASSERT_EQ(run->outputs[0].shape, (std::vector<int64_t>{4, 32, 128}));
  Vec y = gelu(layerNorm(run->inputs[0], 4 * 32, 128, run->weight("ln.gamma"),
                         run->weight("ln.beta")));
  expectClose(run->outputs[0], y, "layernorm_gelu");
}

TEST_F(ExampleTest, AttentionMatchesDirectComputation) {
  auto run = runExample("attention");
  ASSERT_TRUE(run.has_value());
  ASSERT_EQ(run->outputs.size(), 1u);
  ASSERT_EQ(run->outputs[0].shape, (std::vector<int64_t>{2, 16, 64}));
  expectClose(run->outputs[0], attention(*run, run->inputs[0], 2, 16, 64, 4),
              "attention");
}

TEST_F(ExampleTest, EncoderLayerMatchesDirectComputation) {
  auto run = runExample("encoder_layer");
  ASSERT_TRUE(run.has_value());
  ASSERT_EQ(run->outputs.size(), 1u);
  ASSERT_EQ(run->outputs[0].shape, (std::vector<int64_t>{2, 16, 64}));
  const Vec &x = run->inputs[0];
  Vec a = attention(*run, x, 2, 16, 64, 4);
  for (size_t i = 0; i < a.size(); ++i)
    a[i] += x[i];
  Vec h =
      layerNorm(a, 32, 64, run->weight("ln1.gamma"), run->weight("ln1.beta"));
  Vec f =
      linear(gelu(linear(h, 32, 64, run->weight("ffn1.weight"),
                         run->weight("ffn1.bias"), 128)),
             32, 128, run->weight("ffn2.weight"), run->weight("ffn2.bias"), 64);
  for (size_t i = 0; i < f.size(); ++i)
    f[i] += h[i];
  expectClose(
      run->outputs[0],
      layerNorm(f, 32, 64, run->weight("ln2.gamma"), run->weight("ln2.beta")),
      "encoder_layer");
}

TEST_F(ExampleTest, ReshapeTransposeMatchesDirectComputation) {
  auto run = runExample("reshape_transpose");
  ASSERT_TRUE(run.has_value());
  ASSERT_EQ(run->outputs.size(), 2u);
  const Vec &x = run->inputs[0];           // [2, 3, 4, 5]
  const Vec &y = run->inputs[1];           // [4, 6]
  const Vec &scale = run->weight("scale"); // [1, 10]
  const Vec &bias = run->weight("bias");   // [1, 9, 1]
  // b = reshape(transpose(x, [0, 2, 1, 3]), [8, 15]): a[i0][i1][i2][i3] =
  // x[i0][i2][i1][i3] over the shape [2, 4, 3, 5], flattened row-major.
  Vec b(120);
  for (int i0 = 0; i0 < 2; ++i0)
    for (int i1 = 0; i1 < 4; ++i1)
      for (int i2 = 0; i2 < 3; ++i2)
        for (int i3 = 0; i3 < 5; ++i3)
          b[((i0 * 4 + i1) * 3 + i2) * 5 + i3] =
              x[((i0 * 3 + i2) * 4 + i1) * 5 + i3];
  // d = tanh(slice(b, [1, 2], [6, 10]) * scale); e = pad by rows (1, 1) and
  // columns (0, 2) with 0.25; g = tile(e, [1, 2]) is [8, 24].
  auto e = [&](int r, int c) {
    if (r < 1 || r > 6 || c >= 10)
      return 0.25;
    return std::tanh(b[r * 15 + c + 2] * scale[c]);
  };
  auto g = [&](int r, int c) { return e(r, c % 12); };
  // yt = tile(transpose(y), [1, 4]) is [6, 16]: yt[r][c] = y[c % 4][r].
  auto yt = [&](int r, int c) { return y[(c % 4) * 6 + r]; };
  // hc = concat(transpose(g) [24, 8], yt[0:6, 0:8], transpose(g)) is [54, 8].
  auto hc = [&](int r, int c) {
    if (r < 24)
      return g(c, r);
    if (r < 30)
      return yt(r - 24, c);
    return g(c, r - 30);
  };
  // j = sigmoid(reshape(hc, [6, 9, 8]) + bias[1, 9, 1]).
  auto j = [&](int p, int q, int s) {
    int flat = (p * 9 + q) * 8 + s;
    double v = hc(flat / 8, flat % 8) + bias[q];
    return 1 / (1 + std::exp(-v));
  };
  // k = transpose(j, [2, 0, 1]) is [8, 6, 9]: k[a][b][c] = j[b][c][a].
  Vec k(8 * 6 * 9), n(8 * 6);
  for (int a = 0; a < 8; ++a)
    for (int p = 0; p < 6; ++p)
      for (int c = 0; c < 9; ++c)
        k[(a * 6 + p) * 9 + c] = j(p, c, a);
  for (int a = 0; a < 8; ++a) {
    double mx = -kInf;
    for (int i = 0; i < 54; ++i)
      mx = std::max(mx, k[a * 54 + i]);
    for (int p = 0; p < 6; ++p) {
      double sum = 0;
      for (int c = 0; c < 9; ++c)
        sum += k[(a * 6 + p) * 9 + c];
      n[a * 6 + p] = sum - mx;
    }
  }
  expectClose(run->outputs[0], k, "k");
  expectClose(run->outputs[1], n, "n");
}

//===----------------------------------------------------------------------===//
// Convolution, pooling, gather, resize, strided slice. Expected values are
// PyTorch's (torch 1.13, float64): F.conv2d, F.conv_transpose2d (cropped for
// asymmetric pads), F.max_pool2d / F.avg_pool2d with ceil_mode, and
// F.interpolate (nearest = asymmetric + floor, nearest-exact = half_pixel +
// round_prefer_ceil, bilinear with and without align_corners).
//===----------------------------------------------------------------------===//

TEST_F(ReferenceTest, Conv2DGroupsStridesDilationsPads) {
  std::vector<double> x, w;
  for (int i = 1; i <= 100; ++i)
    x.push_back(i / 8.0); // exact in f32, like every expected value
  for (int i = 0; i < 72; ++i)
    w.push_back((i % 7 - 3) / 4.0);
  auto out = eval(R"mlir(
    func.func @main(%x: tensor<1x4x5x5xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x4x2x3xf32> {
      %0 = dlc.conv2d %x, %w {strides = array<i64: 2, 1>, pads = array<i64: 1, 0, 0, 2>,
                              dilations = array<i64: 1, 2>, groups = 2 : i64}
          : (tensor<1x4x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x2x3xf32>
      return %0 : tensor<1x4x2x3xf32>
    })mlir",
                  {f32({1, 4, 5, 5}, x), f32({4, 2, 3, 3}, w)});
  ASSERT_EQ(out.size(), 1u);
  expectTensor(out[0], rt::DType::F32, {1, 4, 2, 3},
               {-1.9375, 1.28125,  1.375,   -3.1875,  0,        -0.09375,
                2.3125,  4.1875,   4.1875,  1.25,     4.78125,  4.875,
                -5.75,   -6.78125, -6.875,  -3.78125, -10.5,    -10.65625,
                8.09375, 2.8125,   2.84375, -2.78125, -0.71875, -0.6875},
               "grouped, strided, dilated, asymmetric pads");
}

TEST_F(ReferenceTest, DepthwiseConv2DWithMultiplier) {
  std::vector<double> x, w;
  for (int i = 1; i <= 32; ++i)
    x.push_back(i);
  const double scale[] = {1, 0.5, -1, 2};
  for (int oc = 0; oc < 4; ++oc)
    for (double v : {1, 0, -1, 2, 0, -2, 1, 0, -1})
      w.push_back(v * scale[oc]);
  auto out = eval(R"mlir(
    func.func @main(%x: tensor<1x2x4x4xf32>, %w: tensor<4x1x3x3xf32>) -> tensor<1x4x4x4xf32> {
      %0 = dlc.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>,
                              dilations = array<i64: 1, 1>, groups = 2 : i64}
          : (tensor<1x2x4x4xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x4x4xf32>
      return %0 : tensor<1x4x4x4xf32>
    })mlir",
                  {f32({1, 2, 4, 4}, x), f32({4, 1, 3, 3}, w)});
  ASSERT_EQ(out.size(), 1u);
  expectTensor(out[0], rt::DType::F32, {1, 4, 4, 4},
               {-10, -6,   -6,  13,  -24,  -8,   -8,  28,  -40,  -8,   -8,
                44,  -38,  -6,  -6,  41,   -5,   -3,  -3,  6.5,  -12,  -4,
                -4,  14,   -20, -4,  -4,   22,   -19, -3,  -3,   20.5, 58,
                6,   6,    -61, 88,  8,    8,    -92, 104, 8,    8,    -108,
                86,  6,    6,   -89, -116, -12,  -12, 122, -176, -16,  -16,
                184, -208, -16, -16, 216,  -172, -12, -12, 178},
               "depthwise, two outputs per channel");
}

TEST_F(ReferenceTest, ConvTranspose2DPadsAndOutputPadding) {
  std::vector<double> w;
  for (int i = 0; i < 36; ++i)
    w.push_back((i % 5 - 2) / 2.0);
  auto out = eval(
      R"mlir(
    func.func @main(%x: tensor<1x2x2x2xf32>, %w: tensor<2x2x3x3xf32>) -> tensor<1x2x5x5xf32> {
      %0 = dlc.conv_transpose2d %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 1, 0, 0, 1>,
                                        dilations = array<i64: 1, 1>, output_padding = array<i64: 1, 1>,
                                        groups = 1 : i64}
          : (tensor<1x2x2x2xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x5x5xf32>
      return %0 : tensor<1x2x5x5xf32>
    })mlir",
      {f32({1, 2, 2, 2}, {1, 2, 3, 4, 0.5, -1, 2, 1}), f32({2, 2, 3, 3}, w)});
  ASSERT_EQ(out.size(), 1u);
  expectTensor(out[0], rt::DType::F32, {1, 2, 5, 5},
               {0.25, 1,   0.75, 2,    -2.5, -2,   0,    -7.25, 0,   0.5,
                0.5,  3,   -0.5, 4,    -3.5, 0.5,  -2,   -0.5,  -1,  1.5,
                0,    0,   0,    0,    0,    -0.5, 0.25, 2,     1.5, 2,
                2.25, -2,  1.5,  -5.5, 0,    -2,   0.5,  2,     1.5, 4,
                -2,   0.5, -5.5, -1,   -1,   0,    0,    0,     0,   0},
               "stride 2, asymmetric pads, output_padding");
}

TEST_F(ReferenceTest, Pool2DMaxAvgCeilModeAndPadCounting) {
  std::vector<double> x = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9,
                           7, 9, 3, 2, 3, 8, 4, 6, 2, 6, 4, 3};
  auto out = eval(R"mlir(
    func.func @main(%x: tensor<1x1x5x5xf32>)
        -> (tensor<1x1x3x3xf32>, tensor<1x1x3x3xf32>, tensor<1x1x3x3xf32>, tensor<1x1x3x3xf32>) {
      %0 = dlc.pool2d max %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>}
          : (tensor<1x1x5x5xf32>) -> tensor<1x1x3x3xf32>
      %1 = dlc.pool2d avg %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, count_include_pad}
          : (tensor<1x1x5x5xf32>) -> tensor<1x1x3x3xf32>
      %2 = dlc.pool2d avg %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>}
          : (tensor<1x1x5x5xf32>) -> tensor<1x1x3x3xf32>
      %3 = dlc.pool2d avg %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, count_include_pad}
          : (tensor<1x1x5x5xf32>) -> tensor<1x1x3x3xf32>
      return %0, %1, %2, %3 : tensor<1x1x3x3xf32>, tensor<1x1x3x3xf32>, tensor<1x1x3x3xf32>, tensor<1x1x3x3xf32>
    })mlir",
                  {f32({1, 1, 5, 5}, x)});
  ASSERT_EQ(out.size(), 4u);
  expectTensor(out[0], rt::DType::F32, {1, 1, 3, 3},
               {3, 4, 5, 9, 9, 9, 6, 6, 8}, "max, padded, ceil mode");
  expectNear(out[1],
             {1.666666667, 2.111111111, 1.555555556, 3.222222222, 5.555555556,
              4, 1.444444444, 2.777777778, 2.111111111},
             "avg with count_include_pad");
  expectNear(out[2],
             {3.75, 3.166666667, 3.5, 4.833333333, 5.555555556, 6, 3.25,
              4.166666667, 4.75},
             "avg without count_include_pad");
  expectTensor(out[3], rt::DType::F32, {1, 1, 3, 3},
               {3.75, 4, 4, 4.5, 6.75, 6.5, 4, 5, 3},
               "avg ceil mode: the overhang never counts");
}

TEST_F(ReferenceTest, GatherNegativeIndicesAndAxis) {
  auto out = eval(R"mlir(
    func.func @main(%t: tensor<4x2xf32>, %i: tensor<3xi64>, %j: tensor<2x2xi32>)
        -> (tensor<3x2xf32>, tensor<4x2x2xf32>) {
      %0 = dlc.gather %t, %i {axis = 0 : i64} : (tensor<4x2xf32>, tensor<3xi64>) -> tensor<3x2xf32>
      %1 = dlc.gather %t, %j {axis = 1 : i64} : (tensor<4x2xf32>, tensor<2x2xi32>) -> tensor<4x2x2xf32>
      return %0, %1 : tensor<3x2xf32>, tensor<4x2x2xf32>
    })mlir",
                  {f32({4, 2}, {0, 1, 10, 11, 20, 21, 30, 31}),
                   i64({3}, {2, -1, -4}), i32({2, 2}, {1, 0, -2, -1})});
  ASSERT_EQ(out.size(), 2u);
  expectTensor(out[0], rt::DType::F32, {3, 2}, {20, 21, 30, 31, 0, 1},
               "embedding lookup");
  expectTensor(out[1], rt::DType::F32, {4, 2, 2},
               {1, 0, 0, 1, 11, 10, 10, 11, 21, 20, 20, 21, 31, 30, 30, 31},
               "axis 1 with a 2-D index tensor");
}

TEST_F(ReferenceTest, GatherOutOfRangeIsAnError) {
  std::string d =
      evalError(R"mlir(
    func.func @main(%t: tensor<4x2xf32>, %i: tensor<2xi32>) -> tensor<2x2xf32> {
      %0 = dlc.gather %t, %i {axis = 0 : i64} : (tensor<4x2xf32>, tensor<2xi32>) -> tensor<2x2xf32>
      return %0 : tensor<2x2xf32>
    })mlir",
                {f32({4, 2}, {0, 1, 2, 3, 4, 5, 6, 7}), i32({2}, {1, -5})});
  EXPECT_NE(d.find("index -5 is out of range for axis 0 of size 4"),
            std::string::npos)
      << d;
}

TEST_F(ReferenceTest, ResizeModes) {
  auto out = eval(R"mlir(
    func.func @main(%x: tensor<1x1x2x3xf32>)
        -> (tensor<1x1x3x5xf32>, tensor<1x1x3x5xf32>, tensor<1x1x3x5xf32>,
            tensor<1x1x3x5xf32>, tensor<1x1x1x2xf32>, tensor<1x1x3x5xf32>) {
      %0 = dlc.resize %x {mode = "nearest", coordinate_mode = "asymmetric", nearest_mode = "floor"}
          : (tensor<1x1x2x3xf32>) -> tensor<1x1x3x5xf32>
      %1 = dlc.resize %x {mode = "nearest", coordinate_mode = "half_pixel", nearest_mode = "round_prefer_ceil"}
          : (tensor<1x1x2x3xf32>) -> tensor<1x1x3x5xf32>
      %2 = dlc.resize %x {mode = "linear", coordinate_mode = "half_pixel"}
          : (tensor<1x1x2x3xf32>) -> tensor<1x1x3x5xf32>
      %3 = dlc.resize %x {mode = "linear", coordinate_mode = "align_corners"}
          : (tensor<1x1x2x3xf32>) -> tensor<1x1x3x5xf32>
      %4 = dlc.resize %x {mode = "linear", coordinate_mode = "pytorch_half_pixel"}
          : (tensor<1x1x2x3xf32>) -> tensor<1x1x1x2xf32>
      %5 = dlc.resize %x {mode = "linear", coordinate_mode = "asymmetric"}
          : (tensor<1x1x2x3xf32>) -> tensor<1x1x3x5xf32>
      return %0, %1, %2, %3, %4, %5 : tensor<1x1x3x5xf32>, tensor<1x1x3x5xf32>, tensor<1x1x3x5xf32>,
                                      tensor<1x1x3x5xf32>, tensor<1x1x1x2xf32>, tensor<1x1x3x5xf32>
    })mlir",
                  {f32({1, 1, 2, 3}, {1, 2, 4, 8, 16, 32})});
  ASSERT_EQ(out.size(), 6u);
  expectTensor(out[0], rt::DType::F32, {1, 1, 3, 5},
               {1, 1, 2, 2, 4, 1, 1, 2, 2, 4, 8, 8, 16, 16, 32},
               "nearest, asymmetric, floor (PyTorch 'nearest')");
  expectTensor(out[1], rt::DType::F32, {1, 1, 3, 5},
               {1, 1, 2, 4, 4, 8, 8, 16, 32, 32, 8, 8, 16, 32, 32},
               "nearest, half_pixel, round_prefer_ceil (PyTorch "
               "'nearest-exact')");
  expectNear(out[2],
             {1, 1.4, 2, 3.2, 4, 4.5, 6.3, 9, 14.4, 18, 8, 11.2, 16, 25.6, 32},
             "bilinear, half_pixel");
  expectNear(out[3],
             {1, 1.5, 2, 3, 4, 4.5, 6.75, 9, 13.5, 18, 8, 12, 16, 24, 32},
             "bilinear, align_corners");
  // One output row: pytorch_half_pixel reads row -0.5, i.e. row 0; half a
  // pixel differs from PyTorch's downscale only there.
  expectNear(out[4], {1.25, 3.5}, "bilinear, pytorch_half_pixel, 1 row");
  // asymmetric: rows 0, 2/3, 4/3 (clamped to 1); columns 0, 0.6, ..., 2.4.
  expectNear(out[5],
             {1, 1.6, 2.4, 3.6, 4, 5.666666666666666, 9.066666666666666, 13.6,
              20.4, 22.666666666666664, 8, 12.8, 19.2, 28.8, 32},
             "bilinear, asymmetric");
}

TEST_F(ReferenceTest, StridedSlice) {
  std::vector<double> iota;
  for (int i = 0; i < 24; ++i)
    iota.push_back(i);
  auto out = eval(R"mlir(
    func.func @main(%x: tensor<4x6xf32>) -> tensor<2x3xf32> {
      %0 = dlc.slice %x {start = array<i64: 1, 0>, strides = array<i64: 2, 2>}
          : (tensor<4x6xf32>) -> tensor<2x3xf32>
      return %0 : tensor<2x3xf32>
    })mlir",
                  {f32({4, 6}, iota)});
  ASSERT_EQ(out.size(), 1u);
  expectTensor(out[0], rt::DType::F32, {2, 3}, {6, 8, 10, 18, 20, 22},
               "rows 1, 3; columns 0, 2, 4");
}

} // namespace
