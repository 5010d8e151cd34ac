//===- GradientCheck.cpp - Gradient rules against finite differences ------===//
#include "passes/GradientCheck.h"

#include "ir/Dialect.h"
#include "ir/ElementType.h"
#include "ir/Reference.h"
#include "passes/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Pass/PassManager.h"

#include <cmath>
#include <cstring>

using namespace mlir;
using namespace mlir::dlc;
namespace rt = ::dlc::rt;

std::vector<float> mlir::dlc::pseudoRandom(size_t n, uint64_t seed, double lo,
                                           double hi) {
  std::vector<float> out(n);
  uint64_t x = seed * 0x9e3779b97f4a7c15ull + 7;
  for (float &v : out) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    v = float(lo + double(x >> 11) / double(1ull << 53) * (hi - lo));
  }
  return out;
}

LogicalResult mlir::dlc::makeWeightedLoss(func::FuncOp func) {
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  OpBuilder b(ret);
  Location loc = ret.getLoc();
  Value loss;
  RankedTensorType lossType;
  for (auto [k, y] : llvm::enumerate(ret.getOperands())) {
    auto type = dyn_cast<RankedTensorType>(y.getType());
    if (!type || !type.getElementType().isF32())
      continue;
    std::vector<float> w =
        pseudoRandom(size_t(type.getNumElements()), 99 + k, -1.0, 1.0);
    Value weights = b.create<ConstantOp>(
        loc, type, DenseElementsAttr::get(type, ArrayRef<float>(w)));
    Value product = b.create<MulOp>(loc, type, y, weights);
    SmallVector<int64_t> axes;
    for (int64_t d = 0; d < type.getRank(); ++d)
      axes.push_back(d);
    Value sum = product;
    if (!axes.empty())
      sum = b.create<ReduceOp>(
          loc,
          RankedTensorType::get(SmallVector<int64_t>(type.getRank(), 1),
                                type.getElementType()),
          ReduceKind::sum, product, axes);
    auto one = RankedTensorType::get({1}, type.getElementType());
    sum = b.create<ReshapeOp>(loc, one, sum);
    loss = loss ? b.create<AddOp>(loc, one, loss, sum).getResult() : sum;
    lossType = one;
  }
  if (!loss)
    return func.emitError() << "has no f32 result to build a loss on";
  b.create<func::ReturnOp>(loc, loss);
  ret.erase();
  func.setFunctionType(FunctionType::get(func.getContext(),
                                         func.getArgumentTypes(), {lossType}));
  return success();
}

namespace {

rt::HostTensor withValues(const rt::HostTensor &like,
                          const std::vector<float> &v) {
  rt::HostTensor t = like;
  std::memcpy(t.data.data(), v.data(), t.data.size());
  return t;
}

std::vector<float> valuesOf(const rt::HostTensor &t) {
  std::vector<float> v(t.data.size() / 4);
  std::memcpy(v.data(), t.data.data(), t.data.size());
  return v;
}

} // namespace

FailureOr<GradientCheckResult>
mlir::dlc::checkGradients(func::FuncOp lossFunc,
                          const std::vector<rt::HostTensor> &inputs,
                          size_t maxElements, double tolerance) {
  // The gradient function: a copy of the loss's module, through
  // dlc-test-gradient.
  OwningOpRef<ModuleOp> copy = ModuleOp::create(lossFunc.getLoc());
  OpBuilder mb(copy->getBodyRegion());
  auto gradFunc = cast<func::FuncOp>(mb.clone(*lossFunc));
  PassManager pm(lossFunc.getContext());
  pm.addNestedPass<func::FuncOp>(createTestGradient());
  if (failed(pm.run(*copy)))
    return failure();
  FailureOr<std::vector<rt::HostTensor>> grads =
      evaluateReference(gradFunc, inputs);
  if (failed(grads))
    return failure();
  Value result =
      cast<func::ReturnOp>(lossFunc.getBody().front().getTerminator())
          .getOperand(0);
  auto loss = [&](const std::vector<rt::HostTensor> &at) {
    double value = NAN;
    FailureOr<std::vector<rt::HostTensor>> out =
        evaluateReference(lossFunc, at, [&](OpResult r, ArrayRef<double> v) {
          if (r == result)
            value = v[0];
        });
    return succeeded(out) ? value : NAN;
  };

  // Central differences with steps h and h/2, and one-sided ones with h/2:
  // where they disagree the loss has a kink within h of the point (relu at
  // 0, a tie of max, a clamp's bound), and that element is skipped; a wrong
  // rule disagrees with all of them.
  const double h = 1e-3;
  const double center = loss(inputs);
  GradientCheckResult res;
  size_t g = 1; // (*grads)[0] is the loss
  for (size_t i = 0; i < inputs.size(); ++i) {
    // dlc-test-gradient differentiates every float argument; f32 ones
    // are checked.
    if (!isFloat(inputs[i].dtype))
      continue;
    const rt::HostTensor &gradient = (*grads)[g++];
    if (inputs[i].dtype != rt::DType::F32)
      continue;
    std::vector<float> x = valuesOf(inputs[i]);
    std::vector<float> grad = valuesOf(gradient);
    size_t stride =
        std::max<size_t>(1, x.size() / std::max<size_t>(1, maxElements));
    for (size_t j = 0; j < x.size(); j += stride) {
      struct Differences {
        double central, forward, backward;
      };
      auto differences = [&](double step) {
        std::vector<rt::HostTensor> at = inputs;
        std::vector<float> v = x;
        v[j] = float(x[j] + step);
        double up = double(v[j]);
        at[i] = withValues(inputs[i], v);
        double lossUp = loss(at);
        v[j] = float(x[j] - step);
        double down = double(v[j]);
        at[i] = withValues(inputs[i], v);
        double lossDown = loss(at);
        return Differences{(lossUp - lossDown) / (up - down),
                           (lossUp - center) / (up - double(x[j])),
                           (center - lossDown) / (double(x[j]) - down)};
      };
      Differences coarse = differences(h), fine = differences(h / 2);
      double scale = 1 + std::fabs(fine.central);
      auto near = [&](double a, double b) {
        return std::fabs(a - b) <= tolerance * scale;
      };
      if (!std::isfinite(coarse.central) || !std::isfinite(fine.central) ||
          !near(coarse.central, fine.central) ||
          !near(fine.forward, fine.backward)) {
        ++res.skipped;
        continue;
      }
      ++res.checked;
      if (res.mismatch.empty() && !near(grad[j], fine.central))
        res.mismatch = "argument " + std::to_string(i) + ", element " +
                       std::to_string(j) + " (" + std::to_string(x[j]) +
                       "): the rule gives " + std::to_string(grad[j]) +
                       ", central differences " + std::to_string(fine.central);
    }
  }
  return res;
}
