//===- GradientTest.cpp - Gradient rules against finite differences -------===//
//
// Every differentiable op's rule (ir/Gradients.cpp, GradientOpInterface)
// against central finite differences of the reference interpreter
// (passes/GradientCheck.h): each case is a small function of float
// arguments; its result, weighted by fixed pseudo-random numbers and summed,
// is the loss, and every element's derivative must match
// (L(x + h) - L(x - h)) / (2h), computed in double precision (the
// interpreter's own) on the f32 inputs.
//
//===----------------------------------------------------------------------===//
#include "ir/Dialect.h"
#include "passes/GradientCheck.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

using namespace mlir;
namespace rt = ::dlc::rt;

namespace {

struct Case {
  const char *name;
  /// The function's arguments, all f32 tensors: "%a: tensor<2x3xf32>, ...".
  const char *args;
  /// Ops computing %y from the arguments.
  const char *body;
  /// %y's type.
  const char *type;
  /// The range the arguments are drawn from.
  double lo = -2, hi = 2;
};

void PrintTo(const Case &c, std::ostream *os) { *os << c.name; }

rt::HostTensor tensorOf(ArrayRef<int64_t> shape, const std::vector<float> &v) {
  rt::HostTensor t;
  t.dtype = rt::DType::F32;
  t.shape.assign(shape.begin(), shape.end());
  t.data.resize(v.size() * 4);
  std::memcpy(t.data.data(), v.data(), t.data.size());
  return t;
}

class GradientTest : public ::testing::TestWithParam<Case> {
protected:
  GradientTest() {
    DialectRegistry registry;
    registry.insert<mlir::dlc::DlcDialect, func::FuncDialect>();
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  MLIRContext context;
};

TEST_P(GradientTest, MatchesCentralDifferences) {
  const Case &c = GetParam();
  std::string diagnostics;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
    diagnostics += d.str() + "\n";
    return success();
  });
  std::string source = std::string("func.func @main(") + c.args + ") -> " +
                       c.type + " {\n" + c.body + "\n  return %y : " + c.type +
                       "\n}\n";
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(source, &context);
  ASSERT_TRUE(module) << diagnostics;
  auto func = module->lookupSymbol<func::FuncOp>("main");
  ASSERT_TRUE(succeeded(mlir::dlc::makeWeightedLoss(func))) << diagnostics;
  std::vector<rt::HostTensor> inputs;
  for (auto [i, type] : llvm::enumerate(func.getArgumentTypes())) {
    auto t = cast<RankedTensorType>(type);
    inputs.push_back(
        tensorOf(t.getShape(), mlir::dlc::pseudoRandom(t.getNumElements(),
                                                       i + 1, c.lo, c.hi)));
  }
  FailureOr<mlir::dlc::GradientCheckResult> r =
      mlir::dlc::checkGradients(func, inputs);
  ASSERT_TRUE(succeeded(r)) << diagnostics;
  EXPECT_EQ(r->mismatch, "");
  EXPECT_GT(r->checked, 0);
  EXPECT_LE(r->skipped, r->checked / 4) << "too many points near a kink";
}

// clang-format off
const Case kCases[] = {
  {"add_broadcast", "%a: tensor<2x3xf32>, %b: tensor<1x3xf32>",
   "%y = dlc.add %a, %b : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>",
   "tensor<2x3xf32>"},
  {"sub_broadcast", "%a: tensor<2x3xf32>, %b: tensor<2x1xf32>",
   "%y = dlc.sub %a, %b : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>",
   "tensor<2x3xf32>"},
  {"mul_broadcast", "%a: tensor<2x3xf32>, %b: tensor<1x1xf32>",
   "%y = dlc.mul %a, %b : (tensor<2x3xf32>, tensor<1x1xf32>) -> tensor<2x3xf32>",
   "tensor<2x3xf32>"},
  {"div_broadcast", "%a: tensor<2x3xf32>, %b: tensor<1x3xf32>",
   "%y = dlc.div %a, %b : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>",
   "tensor<2x3xf32>", 0.5, 2},
  {"neg", "%a: tensor<2x3xf32>", "%y = dlc.neg %a : tensor<2x3xf32>",
   "tensor<2x3xf32>"},
  // The mask is a function of the offset and key: fixed for the
  // differences, and the rule must regenerate it (about 40% dropped).
  {"dropout_of_product", "%a: tensor<4x8xf32>, %b: tensor<1x8xf32>",
   "%o = dlc.constant dense<7> : tensor<1x1xi64>\n"
   "%p = dlc.mul %a, %b : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>\n"
   "%y = dlc.dropout %p, %o {ratio = 0.4 : f64, seed = 5 : i64, stream = 1 : i64} : (tensor<4x8xf32>, tensor<1x1xi64>) -> tensor<4x8xf32>",
   "tensor<4x8xf32>"},
  {"exp", "%a: tensor<2x3xf32>", "%y = dlc.exp %a : tensor<2x3xf32>",
   "tensor<2x3xf32>"},
  {"log", "%a: tensor<2x3xf32>", "%y = dlc.log %a : tensor<2x3xf32>",
   "tensor<2x3xf32>", 0.25, 3},
  {"tanh", "%a: tensor<2x3xf32>", "%y = dlc.tanh %a : tensor<2x3xf32>",
   "tensor<2x3xf32>"},
  {"sigmoid", "%a: tensor<2x3xf32>", "%y = dlc.sigmoid %a : tensor<2x3xf32>",
   "tensor<2x3xf32>"},
  {"erf", "%a: tensor<2x3xf32>", "%y = dlc.erf %a : tensor<2x3xf32>",
   "tensor<2x3xf32>"},
  {"rsqrt", "%a: tensor<2x3xf32>", "%y = dlc.rsqrt %a : tensor<2x3xf32>",
   "tensor<2x3xf32>", 0.25, 3},
  {"sqrt", "%a: tensor<2x3xf32>", "%y = dlc.sqrt %a : tensor<2x3xf32>",
   "tensor<2x3xf32>", 0.25, 3},
  {"reciprocal", "%a: tensor<2x3xf32>",
   "%y = dlc.reciprocal %a : tensor<2x3xf32>", "tensor<2x3xf32>", 0.25, 3},
  {"abs", "%a: tensor<2x3xf32>", "%y = dlc.abs %a : tensor<2x3xf32>",
   "tensor<2x3xf32>"},
  {"clamp", "%a: tensor<3x4xf32>",
   "%y = dlc.clamp %a {min = -0.5 : f64, max = 0.75 : f64} : tensor<3x4xf32>",
   "tensor<3x4xf32>"},
  {"max_broadcast", "%a: tensor<3x4xf32>, %b: tensor<1x4xf32>",
   "%y = dlc.max %a, %b : (tensor<3x4xf32>, tensor<1x4xf32>) -> tensor<3x4xf32>",
   "tensor<3x4xf32>"},
  {"min_broadcast", "%a: tensor<3x4xf32>, %b: tensor<3x1xf32>",
   "%y = dlc.min %a, %b : (tensor<3x4xf32>, tensor<3x1xf32>) -> tensor<3x4xf32>",
   "tensor<3x4xf32>"},
  {"pow", "%a: tensor<2x3xf32>, %b: tensor<1x3xf32>",
   "%y = dlc.pow %a, %b : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>",
   "tensor<2x3xf32>", 0.5, 2},
  {"select_broadcast", "%a: tensor<3x4xf32>, %b: tensor<1x4xf32>",
   "%m = dlc.cmp gt, %a, %b : (tensor<3x4xf32>, tensor<1x4xf32>) -> tensor<3x4xi1>\n"
   "%e = dlc.exp %b : tensor<1x4xf32>\n"
   "%y = dlc.select %m, %a, %e : (tensor<3x4xi1>, tensor<3x4xf32>, tensor<1x4xf32>) -> tensor<3x4xf32>",
   "tensor<3x4xf32>"},
  {"reduce_sum", "%a: tensor<3x4xf32>",
   "%y = dlc.reduce sum %a {axes = array<i64: 1>} : (tensor<3x4xf32>) -> tensor<3x1xf32>",
   "tensor<3x1xf32>"},
  {"reduce_max", "%a: tensor<3x4xf32>",
   "%y = dlc.reduce max %a {axes = array<i64: 0>} : (tensor<3x4xf32>) -> tensor<1x4xf32>",
   "tensor<1x4xf32>"},
  {"reduce_min", "%a: tensor<3x4xf32>",
   "%y = dlc.reduce min %a {axes = array<i64: 0, 1>} : (tensor<3x4xf32>) -> tensor<1x1xf32>",
   "tensor<1x1xf32>"},
  {"reshape", "%a: tensor<2x6xf32>",
   "%e = dlc.exp %a : tensor<2x6xf32>\n"
   "%y = dlc.reshape %e : tensor<2x6xf32> -> tensor<3x4xf32>",
   "tensor<3x4xf32>"},
  {"transpose", "%a: tensor<2x3x4xf32>",
   "%e = dlc.tanh %a : tensor<2x3x4xf32>\n"
   "%y = dlc.transpose %e {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>",
   "tensor<4x2x3xf32>"},
  {"slice", "%a: tensor<4x5xf32>",
   "%e = dlc.exp %a : tensor<4x5xf32>\n"
   "%y = dlc.slice %e {start = array<i64: 1, 2>} : (tensor<4x5xf32>) -> tensor<2x3xf32>",
   "tensor<2x3xf32>"},
  {"slice_strided", "%a: tensor<5x7xf32>",
   "%e = dlc.exp %a : tensor<5x7xf32>\n"
   "%y = dlc.slice %e {start = array<i64: 1, 0>, strides = array<i64: 2, 3>} : (tensor<5x7xf32>) -> tensor<2x3xf32>",
   "tensor<2x3xf32>"},
  {"concat", "%a: tensor<2x3xf32>, %b: tensor<2x2xf32>",
   "%e = dlc.exp %b : tensor<2x2xf32>\n"
   "%y = dlc.concat %a, %e {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x2xf32>) -> tensor<2x5xf32>",
   "tensor<2x5xf32>"},
  {"pad", "%a: tensor<2x3xf32>",
   "%e = dlc.exp %a : tensor<2x3xf32>\n"
   "%y = dlc.pad %e {low = array<i64: 1, 0>, high = array<i64: 0, 2>, value = 0.5 : f64} : (tensor<2x3xf32>) -> tensor<3x5xf32>",
   "tensor<3x5xf32>"},
  {"tile", "%a: tensor<2x3xf32>",
   "%e = dlc.exp %a : tensor<2x3xf32>\n"
   "%y = dlc.tile %e {multiples = array<i64: 2, 3>} : (tensor<2x3xf32>) -> tensor<4x9xf32>",
   "tensor<4x9xf32>"},
  {"matmul", "%a: tensor<2x3xf32>, %b: tensor<3x4xf32>",
   "%y = dlc.matmul %a, %b : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>",
   "tensor<2x4xf32>"},
  {"matmul_transposed", "%a: tensor<3x2xf32>, %b: tensor<4x3xf32>",
   "%y = dlc.matmul %a, %b {transpose_a, transpose_b} : (tensor<3x2xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>",
   "tensor<2x4xf32>"},
  {"matmul_batch_broadcast", "%a: tensor<2x2x3xf32>, %b: tensor<1x3x4xf32>",
   "%y = dlc.matmul %a, %b : (tensor<2x2x3xf32>, tensor<1x3x4xf32>) -> tensor<2x2x4xf32>",
   "tensor<2x2x4xf32>"},
  // Compositions as models write them.
  {"softmax", "%a: tensor<2x5xf32>",
   "%m = dlc.reduce max %a {axes = array<i64: 1>} : (tensor<2x5xf32>) -> tensor<2x1xf32>\n"
   "%s = dlc.sub %a, %m : (tensor<2x5xf32>, tensor<2x1xf32>) -> tensor<2x5xf32>\n"
   "%e = dlc.exp %s : tensor<2x5xf32>\n"
   "%z = dlc.reduce sum %e {axes = array<i64: 1>} : (tensor<2x5xf32>) -> tensor<2x1xf32>\n"
   "%y = dlc.div %e, %z : (tensor<2x5xf32>, tensor<2x1xf32>) -> tensor<2x5xf32>",
   "tensor<2x5xf32>"},
  {"layer_norm", "%a: tensor<2x6xf32>, %g: tensor<1x6xf32>",
   "%s = dlc.reduce sum %a {axes = array<i64: 1>} : (tensor<2x6xf32>) -> tensor<2x1xf32>\n"
   "%n = dlc.constant dense<0.16666667> : tensor<1x1xf32>\n"
   "%mu = dlc.mul %s, %n : (tensor<2x1xf32>, tensor<1x1xf32>) -> tensor<2x1xf32>\n"
   "%c = dlc.sub %a, %mu : (tensor<2x6xf32>, tensor<2x1xf32>) -> tensor<2x6xf32>\n"
   "%q = dlc.mul %c, %c : (tensor<2x6xf32>, tensor<2x6xf32>) -> tensor<2x6xf32>\n"
   "%v = dlc.reduce sum %q {axes = array<i64: 1>} : (tensor<2x6xf32>) -> tensor<2x1xf32>\n"
   "%vm = dlc.mul %v, %n : (tensor<2x1xf32>, tensor<1x1xf32>) -> tensor<2x1xf32>\n"
   "%eps = dlc.constant dense<1.0e-5> : tensor<1x1xf32>\n"
   "%ve = dlc.add %vm, %eps : (tensor<2x1xf32>, tensor<1x1xf32>) -> tensor<2x1xf32>\n"
   "%r = dlc.rsqrt %ve : tensor<2x1xf32>\n"
   "%x = dlc.mul %c, %r : (tensor<2x6xf32>, tensor<2x1xf32>) -> tensor<2x6xf32>\n"
   "%y = dlc.mul %x, %g : (tensor<2x6xf32>, tensor<1x6xf32>) -> tensor<2x6xf32>",
   "tensor<2x6xf32>"},
  {"conv2d", "%x: tensor<2x3x6x6xf32>, %w: tensor<4x3x3x3xf32>",
   "%y = dlc.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<2x3x6x6xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x6x6xf32>",
   "tensor<2x4x6x6xf32>"},
  {"conv2d_grouped_strided", "%x: tensor<1x4x7x7xf32>, %w: tensor<6x2x3x3xf32>",
   "%y = dlc.conv2d %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 1, 0, 0, 1>, dilations = array<i64: 1, 1>, groups = 2 : i64} : (tensor<1x4x7x7xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x3x3xf32>",
   "tensor<1x6x3x3xf32>"},
  {"conv2d_dilated", "%x: tensor<1x2x6x6xf32>, %w: tensor<2x2x2x2xf32>",
   "%y = dlc.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 2, 2>, groups = 1 : i64} : (tensor<1x2x6x6xf32>, tensor<2x2x2x2xf32>) -> tensor<1x2x4x4xf32>",
   "tensor<1x2x4x4xf32>"},
  {"max_pool", "%x: tensor<1x2x5x5xf32>",
   "%y = dlc.pool2d max %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32>",
   "tensor<1x2x3x3xf32>"},
  {"max_pool_ceil_mode", "%x: tensor<1x1x5x5xf32>",
   "%y = dlc.pool2d max %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>} : (tensor<1x1x5x5xf32>) -> tensor<1x1x3x3xf32>",
   "tensor<1x1x3x3xf32>"},
  {"max_pool_negative", "%x: tensor<1x2x4x4xf32>",
   "%y = dlc.pool2d max %x {kernel = array<i64: 2, 2>, strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 2, 2>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>",
   "tensor<1x2x4x4xf32>", -3, -1},
  {"avg_pool", "%x: tensor<1x2x5x5xf32>",
   "%y = dlc.pool2d avg %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32>",
   "tensor<1x2x3x3xf32>"},
  {"avg_pool_count_pad", "%x: tensor<1x2x5x5xf32>",
   "%y = dlc.pool2d avg %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, count_include_pad} : (tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32>",
   "tensor<1x2x3x3xf32>"},
  {"gather_rows", "%a: tensor<4x3xf32>",
   "%i = dlc.constant dense<[[2, 0], [2, -1]]> : tensor<2x2xi64>\n"
   "%y = dlc.gather %a, %i {axis = 0 : i64} : (tensor<4x3xf32>, tensor<2x2xi64>) -> tensor<2x2x3xf32>",
   "tensor<2x2x3xf32>"},
  {"gelu_erf", "%a: tensor<2x4xf32>",
   "%k = dlc.constant dense<0.70710678> : tensor<1x1xf32>\n"
   "%s = dlc.mul %a, %k : (tensor<2x4xf32>, tensor<1x1xf32>) -> tensor<2x4xf32>\n"
   "%e = dlc.erf %s : tensor<2x4xf32>\n"
   "%one = dlc.constant dense<1.0> : tensor<1x1xf32>\n"
   "%p = dlc.add %e, %one : (tensor<2x4xf32>, tensor<1x1xf32>) -> tensor<2x4xf32>\n"
   "%h = dlc.constant dense<0.5> : tensor<1x1xf32>\n"
   "%x = dlc.mul %a, %h : (tensor<2x4xf32>, tensor<1x1xf32>) -> tensor<2x4xf32>\n"
   "%y = dlc.mul %x, %p : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>",
   "tensor<2x4xf32>"},
  {"relu_mlp", "%x: tensor<3x4xf32>, %w: tensor<4x5xf32>, %b: tensor<1x5xf32>",
   "%p = dlc.matmul %x, %w : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>\n"
   "%s = dlc.add %p, %b : (tensor<3x5xf32>, tensor<1x5xf32>) -> tensor<3x5xf32>\n"
   "%z = dlc.constant dense<0.0> : tensor<1x1xf32>\n"
   "%y = dlc.max %s, %z : (tensor<3x5xf32>, tensor<1x1xf32>) -> tensor<3x5xf32>",
   "tensor<3x5xf32>"},
};
// clang-format on

INSTANTIATE_TEST_SUITE_P(Ops, GradientTest, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case> &info) {
                           return std::string(info.param.name);
                         });

} // namespace

TEST(GradientCheck, NeedsAnF32Result) {
  MLIRContext context;
  DialectRegistry registry;
  registry.insert<mlir::dlc::DlcDialect, func::FuncDialect>();
  context.appendDialectRegistry(registry);
  context.loadAllAvailableDialects();
  std::string diagnostics;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
    diagnostics += d.str() + "\n";
    return success();
  });
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(
      "func.func @main(%a: tensor<3xf32>) -> tensor<3xi1> {\n"
      "  %y = dlc.cmp gt, %a, %a : (tensor<3xf32>, tensor<3xf32>) -> "
      "tensor<3xi1>\n"
      "  return %y : tensor<3xi1>\n}\n",
      &context);
  ASSERT_TRUE(module) << diagnostics;
  auto func = module->lookupSymbol<func::FuncOp>("main");
  EXPECT_TRUE(failed(mlir::dlc::makeWeightedLoss(func)));
  EXPECT_NE(diagnostics.find("has no f32 result to build a loss on"),
            std::string::npos);
}
