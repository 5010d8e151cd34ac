//===- ApplyOptimizer.cpp - One optimizer step from gradients -------------===//
//
// dlc-apply-optimizer (Passes.td): SGD (momentum, Nesterov, L2 weight decay)
// and AdamW (decoupled weight decay, bias correction) as PyTorch computes
// them, and global-norm gradient clipping, written in dlc ops so that the
// update fuses into a few elementwise kernels. docs/training.md.
//
//===----------------------------------------------------------------------===//
#include "ir/Attributes.h"
#include "ir/ElementType.h"
#include "ir/OpBuild.h"
#include "passes/Backpropagate.h"
#include "passes/Passes.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseSet.h"

#include <cmath>

namespace mlir::dlc {
#define GEN_PASS_DEF_APPLYOPTIMIZER
#include "passes/Passes.h.inc"
} // namespace mlir::dlc

using namespace mlir;
using namespace mlir::dlc;

namespace {

RankedTensorType tensorType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

/// [1, ..., 1] of `rank` dimensions.
RankedTensorType onesType(int64_t rank, Type element) {
  return RankedTensorType::get(SmallVector<int64_t>(rank, 1), element);
}

/// `v` (one element) reshaped to broadcast against `like`.
Value asRankOf(OpBuilder &b, Location loc, Value v, Value like) {
  RankedTensorType t = tensorType(like);
  auto type = onesType(t.getRank(), tensorType(v).getElementType());
  if (tensorType(v) == type)
    return v;
  return b.create<ReshapeOp>(loc, type, v);
}

struct ApplyOptimizerPass
    : public mlir::dlc::impl::ApplyOptimizerBase<ApplyOptimizerPass> {
  using ApplyOptimizerBase::ApplyOptimizerBase;

  /// A new state argument (zeros) after the last parameter or state
  /// argument; its new value is returned marked dlc.updates.
  struct State {
    BlockArgument arg;
    Value next;
  };

  LogicalResult checkOptions(func::FuncOp func) {
    auto bad = [&](StringRef what) {
      return func.emitError() << "dlc-apply-optimizer: " << what;
    };
    if (optimizer != "sgd" && optimizer != "adamw")
      return bad("unknown optimizer '" + optimizer +
                 "'; expected sgd or adamw");
    if (!(std::isfinite(lr) && lr >= 0))
      return bad("the learning rate must be a finite number >= 0");
    if (!(std::isfinite(momentum) && momentum >= 0))
      return bad("momentum must be a finite number >= 0");
    if (nesterov && (optimizer != "sgd" || momentum <= 0))
      return bad("Nesterov momentum needs sgd with a momentum > 0");
    if (!(std::isfinite(weightDecay) && weightDecay >= 0))
      return bad("weight decay must be a finite number >= 0");
    if (!(beta1 >= 0 && beta1 < 1 && beta2 >= 0 && beta2 < 1))
      return bad("betas must lie in [0, 1)");
    if (!(std::isfinite(eps) && eps >= 0))
      return bad("eps must be a finite number >= 0");
    if (!(std::isfinite(gradClip) && gradClip >= 0))
      return bad("the gradient clipping norm must be a finite number >= 0");
    if (accumulate < 1 || accumulate > 65536)
      return bad("accumulate takes 1 to 65536 micro-batches");
    if (optimizer == "sgd" && (beta1 != 0.9 || beta2 != 0.999 || eps != 1e-8))
      return bad("betas and eps are adamw's; sgd takes none");
    if (optimizer == "adamw" && momentum != 0)
      return bad("momentum is sgd's; adamw takes betas");
    return success();
  }

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    if (failed(checkOptions(func)))
      return signalPassFailure();
    Block &block = func.getBody().front();
    auto ret = cast<func::ReturnOp>(block.getTerminator());
    // The update is computed in f32 whatever the precision (master weights
    // and optimizer state are f32; in a low type small updates and squared
    // gradients would round to nothing): what this pass adds is pinned.
    llvm::DenseSet<Operation *> before;
    block.walk([&](Operation *op) { before.insert(op); });
    // (result index, parameter argument) of each gradient.
    SmallVector<std::pair<unsigned, BlockArgument>> gradients;
    for (unsigned i = 0; i < ret.getNumOperands(); ++i)
      if (auto of = func.getResultAttrOfType<IntegerAttr>(i, attr::kGradientOf))
        gradients.push_back({i, func.getArgument(unsigned(of.getInt()))});
    if (gradients.empty()) {
      func.emitError() << "has no gradients to apply (dlc-autodiff makes them)";
      return signalPassFailure();
    }
    // New state goes after the last parameter or state argument.
    unsigned stateAt = 0;
    for (unsigned i = 0; i < func.getNumArguments(); ++i)
      if (!persistentName(func, i).empty())
        stateAt = i + 1;

    OpBuilder b(ret);
    Location loc = ret.getLoc();
    SmallVector<State> states;
    auto addState = [&](Type type, std::string name) -> BlockArgument {
      OpBuilder ab(func);
      NamedAttribute attrs[] = {
          ab.getNamedAttr(attr::kState, ab.getStringAttr(name)),
          ab.getNamedAttr(attr::kInitial,
                          splatElements(cast<RankedTensorType>(type), 0.0))};
      func.insertArgument(stateAt, type, ab.getDictionaryAttr(attrs), loc);
      return func.getArgument(stateAt++);
    };

    SmallVector<Value> grads;
    for (auto [i, param] : gradients)
      grads.push_back(ret.getOperand(i));
    // Dynamic loss scaling (dlc-autodiff's loss-scale): gradients unscaled
    // first, as GradScaler.unscale_ does.
    BlockArgument scale;
    for (BlockArgument arg : func.getArguments())
      if (persistentName(func, arg.getArgNumber()) == attr::kLossScaleState)
        scale = arg;
    if (scale) {
      Value inverse = b.create<ReciprocalOp>(loc, scale);
      for (Value &g : grads)
        g = broadcastBinary<MulOp>(b, loc, g, asRankOf(b, loc, inverse, g));
    }
    // With micro-batches, `last` (a boolean scalar) says whether this one
    // applies the optimizer to the accumulated gradients.
    Value last;
    if (accumulate > 1)
      last = accumulateGradients(b, loc, gradients, grads, addState, states);
    // `apply`: whether this run updates parameters and optimizer state (the
    // last micro-batch, and with loss scaling finite gradients); null when
    // every run does.
    Value apply = last, skipped;
    if (scale) {
      Value found = nonFinite(b, loc, grads);
      Value finite = b.create<NotOp>(loc, found.getType(), found);
      apply =
          last ? b.create<AndOp>(loc, found.getType(), last, finite).getResult()
               : finite;
      skipped =
          last ? b.create<AndOp>(loc, found.getType(), last, found).getResult()
               : found;
      updateScale(b, loc, scale, found, last, addState, states);
    }
    // The optimizer's state, which only applying runs update.
    size_t optimizerStates = states.size();
    if (gradClip > 0)
      clip(b, loc, grads);

    // AdamW's step count: one for all parameters, as PyTorch's (each of its
    // per-parameter counts advances together), and from it the bias
    // corrections, scalars computed once for all parameters (each reads
    // them through a free reshape): lr / (1 - beta1^t) and
    // sqrt(1 - beta2^t).
    Value stepSize, root2;
    if (optimizer == "adamw") {
      auto scalar = RankedTensorType::get({}, b.getF32Type());
      auto constant = [&](double v) {
        return splatConstant(b, loc, scalar, v);
      };
      BlockArgument arg = addState(scalar, "adamw.step");
      Value nextStep = b.create<AddOp>(loc, scalar, arg, constant(1.0));
      states.push_back({arg, nextStep});
      auto correction = [&](double beta) {
        Value power = b.create<PowOp>(loc, scalar, constant(beta), nextStep);
        return b.create<SubOp>(loc, scalar, constant(1.0), power);
      };
      stepSize = b.create<DivOp>(loc, scalar, constant(lr), correction(beta1));
      root2 = b.create<SqrtOp>(loc, correction(beta2));
    }

    SmallVector<Value> results(ret.getOperands());
    SmallVector<DictionaryAttr> resultAttrs;
    func.getAllResultAttrs(resultAttrs);
    for (auto [k, entry] : llvm::enumerate(gradients)) {
      auto [index, param] = entry;
      Value g = grads[k];
      std::string name = persistentName(func, param.getArgNumber()).str();
      Value next;
      if (optimizer == "sgd") {
        if (weightDecay != 0)
          g = broadcastBinary<AddOp>(
              b, loc, g,
              broadcastBinary<MulOp>(b, loc, param,
                                     unitSplat(b, loc, param, weightDecay)));
        if (momentum != 0) {
          BlockArgument buf =
              addState(param.getType(), name + ".momentum_buffer");
          Value m = unitSplat(b, loc, param, momentum);
          Value nextBuf = broadcastBinary<AddOp>(
              b, loc, broadcastBinary<MulOp>(b, loc, buf, m), g);
          states.push_back({buf, nextBuf});
          g = nesterov
                  ? broadcastBinary<AddOp>(
                        b, loc, g, broadcastBinary<MulOp>(b, loc, nextBuf, m))
                  : nextBuf;
        }
        next = broadcastBinary<SubOp>(
            b, loc, param,
            broadcastBinary<MulOp>(b, loc, g, unitSplat(b, loc, param, lr)));
      } else {
        BlockArgument m = addState(param.getType(), name + ".exp_avg");
        BlockArgument v = addState(param.getType(), name + ".exp_avg_sq");
        Value p = param;
        if (weightDecay != 0)
          p = broadcastBinary<MulOp>(
              b, loc, p, unitSplat(b, loc, p, 1.0 - lr * weightDecay));
        // exp_avg.lerp_(grad, 1 - beta1)
        Value nextM = broadcastBinary<AddOp>(
            b, loc, m,
            broadcastBinary<MulOp>(b, loc, broadcastBinary<SubOp>(b, loc, g, m),
                                   unitSplat(b, loc, m, 1.0 - beta1)));
        // exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        Value nextV = broadcastBinary<AddOp>(
            b, loc,
            broadcastBinary<MulOp>(b, loc, v, unitSplat(b, loc, v, beta2)),
            broadcastBinary<MulOp>(b, loc, broadcastBinary<MulOp>(b, loc, g, g),
                                   unitSplat(b, loc, v, 1.0 - beta2)));
        states.push_back({m, nextM});
        states.push_back({v, nextV});
        Value denom = broadcastBinary<AddOp>(
            b, loc,
            broadcastBinary<DivOp>(b, loc, b.create<SqrtOp>(loc, nextV),
                                   asRankOf(b, loc, root2, p)),
            unitSplat(b, loc, p, eps));
        next = broadcastBinary<SubOp>(
            b, loc, p,
            broadcastBinary<MulOp>(b, loc,
                                   broadcastBinary<DivOp>(b, loc, nextM, denom),
                                   asRankOf(b, loc, stepSize, p)));
      }
      if (apply)
        next = choose(b, loc, asRankOf(b, loc, apply, param), next, param);
      results[index] = next;
      resultAttrs[index] = b.getDictionaryAttr(b.getNamedAttr(
          attr::kUpdates, b.getI64IntegerAttr(param.getArgNumber())));
    }
    if (apply)
      for (size_t k = optimizerStates; k < states.size(); ++k)
        states[k].next = choose(b, loc, asRankOf(b, loc, apply, states[k].arg),
                                states[k].next, states[k].arg);
    // Dropout: every run (applying or not) draws new masks.
    if (State rng = advanceDropouts(b, loc, addState); rng.arg)
      states.push_back(rng);
    if (last)
      func->setAttr(attr::kMicroBatches,
                    b.getI64IntegerAttr(int64_t(accumulate)));
    for (const State &s : states) {
      results.push_back(s.next);
      resultAttrs.push_back(b.getDictionaryAttr(b.getNamedAttr(
          attr::kUpdates, b.getI64IntegerAttr(s.arg.getArgNumber()))));
    }
    if (skipped) {
      auto scalar = RankedTensorType::get({}, b.getF32Type());
      results.push_back(choose(b, loc, skipped,
                               splatConstant(b, loc, scalar, 1.0),
                               splatConstant(b, loc, scalar, 0.0)));
      resultAttrs.push_back(b.getDictionaryAttr(
          b.getNamedAttr(attr::kStepSkipped, b.getUnitAttr())));
    }
    auto f32 = b.getStringAttr("f32");
    block.walk([&](Operation *op) {
      // (Not the dropout offset's integer ops.)
      if (!before.count(op) && !isa<ConstantOp>(op) &&
          (llvm::any_of(op->getResultTypes(), isFloatElement) ||
           llvm::any_of(op->getOperandTypes(), isFloatElement)))
        op->setAttr(attr::kPrecision, f32);
    });
    b.create<func::ReturnOp>(loc, results);
    ret.erase();
    func.setFunctionType(FunctionType::get(&getContext(),
                                           func.getArgumentTypes(),
                                           ValueRange(results).getTypes()));
    func.setAllResultAttrs(resultAttrs);
  }

  /// The dropouts whose offset is a constant (dlc-autodiff gave the
  /// backward's the forward's) read one `rng.offset` state instead, which
  /// this run advances by one; each seed gets dropout-seed. Nothing (a null
  /// state) without such dropouts.
  template <typename AddState>
  State advanceDropouts(OpBuilder &b, Location loc, AddState &addState) {
    SmallVector<DropoutOp> dropouts;
    getOperation().walk([&](DropoutOp op) {
      if (op.getOffset().getDefiningOp<ConstantOp>())
        dropouts.push_back(op);
    });
    if (dropouts.empty())
      return {};
    auto scalar = RankedTensorType::get({}, b.getI64Type());
    BlockArgument offset = addState(scalar, "rng.offset");
    for (DropoutOp op : dropouts) {
      OpBuilder ob(op);
      op.getOffsetMutable().assign(
          ob.create<ReshapeOp>(op.getLoc(), op.getOffset().getType(), offset));
      op.setSeed(int64_t(uint64_t(op.getSeed()) ^ uint64_t(dropoutSeed)));
    }
    Value next =
        b.create<AddOp>(loc, scalar, offset, splatConstant(b, loc, scalar, 1));
    return {offset, next};
  }

  /// Accumulation over `accumulate` micro-batches: a step count
  /// (`accumulate.count`) and per parameter a sum of its gradients
  /// (`<name>.grad_sum`), both reset by the last micro-batch. Replaces each
  /// gradient by the mean of the sums so far (what the last micro-batch
  /// applies) and returns whether this micro-batch is the last.
  template <typename AddState>
  Value
  accumulateGradients(OpBuilder &b, Location loc,
                      ArrayRef<std::pair<unsigned, BlockArgument>> gradients,
                      SmallVectorImpl<Value> &grads, AddState &addState,
                      SmallVectorImpl<State> &states) {
    func::FuncOp func = getOperation();
    auto scalar = RankedTensorType::get({}, b.getF32Type());
    BlockArgument count = addState(scalar, "accumulate.count");
    Value nextCount =
        b.create<AddOp>(loc, scalar, count, splatConstant(b, loc, scalar, 1.0));
    Value last = comparison(b, loc, CmpPredicate::ge, nextCount,
                            splatConstant(b, loc, scalar, double(accumulate)));
    states.push_back(
        {count,
         choose(b, loc, last, splatConstant(b, loc, scalar, 0.0), nextCount)});
    for (auto [k, entry] : llvm::enumerate(gradients)) {
      BlockArgument param = entry.second;
      std::string name = persistentName(func, param.getArgNumber()).str();
      BlockArgument sum = addState(param.getType(), name + ".grad_sum");
      Value nextSum = b.create<AddOp>(loc, sum.getType(), sum, grads[k]);
      states.push_back({sum, choose(b, loc, asRankOf(b, loc, last, sum),
                                    unitSplat(b, loc, sum, 0.0), nextSum)});
      grads[k] = broadcastBinary<MulOp>(
          b, loc, nextSum, unitSplat(b, loc, sum, 1.0 / double(accumulate)));
    }
    return last;
  }

  /// Whether any element of `grads` is infinite or NaN, a boolean scalar:
  /// not all |g| < inf (false for both).
  Value nonFinite(OpBuilder &b, Location loc, ArrayRef<Value> grads) {
    auto one = RankedTensorType::get({1}, b.getF32Type());
    Value worst;
    for (Value g : grads) {
      RankedTensorType t = tensorType(g);
      Value finite =
          comparison(b, loc, CmpPredicate::lt, b.create<AbsOp>(loc, g),
                     unitSplat(b, loc, g, INFINITY));
      auto f32 = RankedTensorType::get(t.getShape(), b.getF32Type());
      Value bad = b.create<SelectOp>(
          loc, f32, finite,
          splatConstant(b, loc, onesType(t.getRank(), b.getF32Type()), 0.0),
          splatConstant(b, loc, onesType(t.getRank(), b.getF32Type()), 1.0));
      SmallVector<int64_t> axes;
      for (int64_t d = 0; d < t.getRank(); ++d)
        axes.push_back(d);
      Value any = b.create<ReduceOp>(loc, onesType(t.getRank(), b.getF32Type()),
                                     ReduceKind::max, bad, axes);
      any = b.create<ReshapeOp>(loc, one, any);
      worst = worst ? b.create<MaxOp>(loc, one, worst, any).getResult() : any;
    }
    Value found = comparison(b, loc, CmpPredicate::gt, worst,
                             splatConstant(b, loc, one, 0.0));
    return b.create<ReshapeOp>(loc, RankedTensorType::get({}, b.getI1Type()),
                               found);
  }

  /// GradScaler.update: after a step with non-finite gradients the scale
  /// halves and the growth tracker restarts; after 2000 steps in a row
  /// without, it doubles. With micro-batches, only the last one updates.
  template <typename AddState>
  void updateScale(OpBuilder &b, Location loc, BlockArgument scale, Value found,
                   Value last, AddState &addState,
                   SmallVectorImpl<State> &states) {
    auto scalar = RankedTensorType::get({}, b.getF32Type());
    BlockArgument tracker = addState(scalar, attr::kGrowthTrackerState.str());
    auto constant = [&](double v) { return splatConstant(b, loc, scalar, v); };
    Value counted = b.create<AddOp>(loc, scalar, tracker, constant(1.0));
    Value grow = comparison(b, loc, CmpPredicate::ge, counted,
                            constant(kGrowthInterval));
    Value nextScale = choose(
        b, loc, found, b.create<MulOp>(loc, scalar, scale, constant(0.5)),
        choose(b, loc, grow, b.create<MulOp>(loc, scalar, scale, constant(2.0)),
               scale));
    Value nextTracker = choose(b, loc, found, constant(0.0),
                               choose(b, loc, grow, constant(0.0), counted));
    if (last) {
      nextScale = choose(b, loc, last, nextScale, scale);
      nextTracker = choose(b, loc, last, nextTracker, tracker);
    }
    states.push_back({scale, nextScale});
    states.push_back({tracker, nextTracker});
  }

  /// GradScaler's growth_interval.
  static constexpr double kGrowthInterval = 2000;

  /// Scales every gradient by min(1, gradClip / (norm + 1e-6)), norm the
  /// 2-norm of all of them (torch.nn.utils.clip_grad_norm_).
  void clip(OpBuilder &b, Location loc, SmallVectorImpl<Value> &grads) {
    auto scalar = RankedTensorType::get({1}, b.getF32Type());
    Value total;
    for (Value g : grads) {
      RankedTensorType t = tensorType(g);
      SmallVector<int64_t> axes;
      for (int64_t d = 0; d < t.getRank(); ++d)
        axes.push_back(d);
      Value square = broadcastBinary<MulOp>(b, loc, g, g);
      Value sum =
          b.create<ReduceOp>(loc, onesType(t.getRank(), t.getElementType()),
                             ReduceKind::sum, square, axes);
      if (t.getElementType() != b.getF32Type())
        sum = b.create<CastOp>(loc, onesType(t.getRank(), b.getF32Type()), sum);
      sum = b.create<ReshapeOp>(loc, scalar, sum);
      total =
          total ? b.create<AddOp>(loc, scalar, total, sum).getResult() : sum;
    }
    Value norm = b.create<SqrtOp>(loc, total);
    Value coef = broadcastBinary<DivOp>(
        b, loc, splatConstant(b, loc, scalar, gradClip),
        broadcastBinary<AddOp>(b, loc, norm,
                               splatConstant(b, loc, scalar, 1e-6)));
    coef = broadcastBinary<MinOp>(b, loc, coef,
                                  splatConstant(b, loc, scalar, 1.0));
    for (Value &g : grads) {
      Value c = asRankOf(b, loc, coef, g);
      if (tensorType(g).getElementType() != b.getF32Type())
        c = b.create<CastOp>(
            loc,
            onesType(tensorType(g).getRank(), tensorType(g).getElementType()),
            c);
      g = broadcastBinary<MulOp>(b, loc, g, c);
    }
  }
};

} // namespace
