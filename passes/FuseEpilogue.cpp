//===- FuseEpilogue.cpp - Bias, residual and activation into GEMMs --------===//
//
// A matrix product followed by a bias add, a residual add and an activation
// would otherwise write the product to memory and read it back in a fused
// elementwise kernel. cuBLASLt applies all three in the GEMM's epilogue, so
// this pass folds them into the dlc.matmul (its `bias`, `addend` and
// `epilogue`), matching the forms the TOSA lowering and the ONNX importer
// produce:
//
//   %p = dlc.matmul %a, %w            (f32, f16 or bf16, f32 accumulation)
//   %q = dlc.add %p, %b               bias: [1, ..., 1, N], any operand order
//   %r = dlc.add %q, %res             addend: the product's type
//   %y = relu(%r)                     dlc.max(x, 0), or dlc.clamp with min 0
//                                     and max >= the type's largest value
//      | gelu_tanh(%r)                0.5 x (1 + tanh(sqrt(2/pi) (x +
//                                     0.044715 x^3))) as products (any
//                                     grouping and order), x^3 as x*x*x or
//                                     pow(x, 3), constants as splats
//
// The adds come in either order, each at most once, and any of the three
// parts may be missing. Views that keep the rows' width may stand between
// the product and the chain, or between the bias add and the rest (then
// they move before the bias add). Every intermediate value must have no other
// user. erf-GELU is not cuBLASLt's GELU: it stays for the fused elementwise
// kernel.
//
//===----------------------------------------------------------------------===//
#include "ir/Attributes.h"
#include "passes/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/Debug.h"

#include <cmath>

#define DEBUG_TYPE "dlc-fuse-epilogue"

namespace mlir::dlc {
#define GEN_PASS_DEF_FUSEEPILOGUE
#include "passes/Passes.h.inc"
} // namespace mlir::dlc

using namespace mlir;
using namespace mlir::dlc;

namespace {

/// The value of a splat float constant, if `v` is one.
std::optional<double> splatValue(Value v) {
  DenseElementsAttr attr;
  if (!matchPattern(v, m_Constant(&attr)) || !attr.isSplat() ||
      !isa<FloatType>(attr.getElementType()))
    return std::nullopt;
  return attr.getSplatValue<APFloat>().convertToDouble();
}

/// Whether a constant of element type `type` stands for `expected`: the
/// producer may have rounded it to the type in another way (through f32,
/// say), so a few units in the last place are allowed.
bool isConstant(Value v, double expected, Type type) {
  std::optional<double> c = splatValue(v);
  if (!c)
    return false;
  double tolerance = type.isF16() ? 2e-3 : type.isBF16() ? 1e-2 : 1e-6;
  return std::fabs(*c - expected) <= tolerance * std::fabs(expected);
}

/// A chain of ops ending a matrix product, and what it folds into.
struct Epilogue {
  Value bias, addend;
  EpilogueKind act = EpilogueKind::none;
  /// The value the new product replaces.
  Value result;
  /// The ops folded (not the product), in no particular order.
  llvm::SetVector<Operation *> ops;
};

/// Whether `v` is a splat dlc.constant.
bool isSplat(Value v) {
  auto constant = v.getDefiningOp<ConstantOp>();
  auto dense =
      constant ? dyn_cast<DenseElementsAttr>(constant.getValue()) : nullptr;
  return dense && dense.isSplat();
}

class Matcher {
public:
  /// Matches ops on values of `type`: the product's, or its view's.
  explicit Matcher(RankedTensorType type)
      : type(type), element(type.getElementType()) {}

  /// Extends `e` with a bias and a residual add of `e.result`, in any order.
  void matchAdds(Epilogue &e) {
    while (e.result.hasOneUse()) {
      auto add = dyn_cast<AddOp>(*e.result.getUsers().begin());
      if (!add || add.getType() != type || add.getLhs() == add.getRhs())
        return;
      Value other = add.getLhs() == e.result ? add.getRhs() : add.getLhs();
      if (!e.bias && isBiasShaped(other))
        e.bias = other;
      else if (!e.addend && other.getType() == type && !isSplat(other))
        // (A splat addend stays a literal in an elementwise kernel: as the
        // GEMM's C it would be a full-size constant in the package.)
        e.addend = other;
      else
        return;
      e.ops.insert(add);
      e.result = add.getResult();
    }
  }

  /// Extends `e` with a relu applied to `e.result`; whether it did.
  bool matchRelu(Epilogue &e) {
    Value x = e.result;
    if (!x.hasOneUse())
      return false;
    Operation *user = *x.getUsers().begin();
    if (!isRelu(user, x))
      return false;
    e.act = EpilogueKind::relu;
    e.ops.insert(user);
    e.result = user->getResult(0);
    return true;
  }

  /// Extends `e` with the activation applied to `e.result`.
  void matchActivation(Epilogue &e) {
    Value x = e.result;
    if (matchRelu(e))
      return;
    // GELU reads x several times: try every product x feeds, directly or
    // through single-use products, as the last op of the pattern.
    llvm::SmallPtrSet<Operation *, 8> tried;
    SmallVector<Operation *> worklist(x.getUsers().begin(), x.getUsers().end());
    while (!worklist.empty()) {
      Operation *op = worklist.pop_back_val();
      if (!tried.insert(op).second || op->getNumResults() != 1 ||
          op->getResult(0).getType() != type)
        continue;
      if (auto mul = dyn_cast<MulOp>(op)) {
        llvm::SetVector<Operation *> ops;
        if (matchGelu(mul, x, ops) && isClosed(ops, mul, x)) {
          e.act = EpilogueKind::gelu_tanh;
          e.ops.insert(ops.begin(), ops.end());
          e.result = mul.getResult();
          return;
        }
      }
      // Look further along the pattern (it has at most six ops after x).
      if (tried.size() < 32 && isa<MulOp, AddOp, TanhOp, PowOp>(op))
        for (Operation *next : op->getResult(0).getUsers())
          worklist.push_back(next);
    }
  }

private:
  /// [1, ..., 1, N] of the result's rank (dlc binary ops take equal ranks).
  bool isBiasShaped(Value v) const {
    auto t = cast<RankedTensorType>(v.getType());
    if (t.getElementType() != element || t.getRank() != type.getRank() ||
        t.getShape().back() != type.getShape().back())
      return false;
    return llvm::all_of(t.getShape().drop_back(),
                        [](int64_t d) { return d == 1; });
  }

  /// max(x, 0), max(0, x), or clamp(x) to [0, >= the largest finite value]
  /// (the TOSA form of relu; it only differs for an infinite product).
  bool isRelu(Operation *op, Value x) const {
    if (op->getNumResults() != 1 || op->getResult(0).getType() != type)
      return false;
    if (auto max = dyn_cast<MaxOp>(op)) {
      Value other = max.getLhs() == x ? max.getRhs() : max.getLhs();
      return other != x && isConstant(other, 0.0, element);
    }
    if (auto clamp = dyn_cast<ClampOp>(op)) {
      double largest =
          APFloat::getLargest(cast<FloatType>(element).getFloatSemantics())
              .convertToDouble();
      return clamp.getMin().convertToDouble() == 0.0 &&
             clamp.getMax().convertToDouble() >= largest;
    }
    return false;
  }

  /// The leaves of the product tree rooted at `v`: products of the
  /// result's type are looked through (the root always, others when they
  /// have one use), pow(y, 3) counts as y three times.
  void factors(Value v, bool root, SmallVectorImpl<Value> &leaves,
               llvm::SetVector<Operation *> &ops) const {
    if (auto mul = v.getDefiningOp<MulOp>();
        mul && mul.getType() == type && (root || v.hasOneUse())) {
      ops.insert(mul);
      factors(mul.getLhs(), false, leaves, ops);
      factors(mul.getRhs(), false, leaves, ops);
      return;
    }
    if (auto pow = v.getDefiningOp<PowOp>();
        pow && pow.getType() == type && v.hasOneUse() &&
        isConstant(pow.getRhs(), 3.0, element)) {
      ops.insert(pow);
      leaves.append(3, pow.getLhs());
      return;
    }
    leaves.push_back(v);
  }

  /// Splits the leaves of a product into constants matching `constant`
  /// (exactly one) and the rest.
  bool takeConstant(SmallVectorImpl<Value> &leaves, double constant) const {
    auto it = llvm::find_if(
        leaves, [&](Value v) { return isConstant(v, constant, element); });
    if (it == leaves.end())
      return false;
    leaves.erase(it);
    return llvm::none_of(leaves, [](Value v) { return splatValue(v); });
  }

  /// The single-use add of `v` and a splat `constant`, in either order;
  /// returns the other operand.
  Value addOfConstant(Value v, double constant,
                      llvm::SetVector<Operation *> &ops) const {
    auto add = v.getDefiningOp<AddOp>();
    if (!add || add.getType() != type || !v.hasOneUse())
      return {};
    Value other;
    if (isConstant(add.getRhs(), constant, element))
      other = add.getLhs();
    else if (isConstant(add.getLhs(), constant, element))
      other = add.getRhs();
    if (other)
      ops.insert(add);
    return other;
  }

  /// 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))) rooted at
  /// `root`, with the ops that compute it (constants aside) in `ops`.
  bool matchGelu(MulOp root, Value x, llvm::SetVector<Operation *> &ops) const {
    SmallVector<Value> outer;
    factors(root.getResult(), /*root=*/true, outer, ops);
    // x, 0.5 and (1 + tanh(...)).
    if (outer.size() != 3 || llvm::count(outer, x) != 1 ||
        !takeConstant(outer, 0.5))
      return false;
    Value onePlus = outer[0] == x ? outer[1] : outer[0];
    Value th = addOfConstant(onePlus, 1.0, ops);
    auto tanh = th ? th.getDefiningOp<TanhOp>() : TanhOp();
    if (!tanh || tanh.getType() != type || !th.hasOneUse())
      return false;
    ops.insert(tanh);
    // sqrt(2/pi) * (x + 0.044715 * x^3).
    SmallVector<Value> scaled;
    auto scaleMul = tanh.getInput().getDefiningOp<MulOp>();
    if (!scaleMul || !tanh.getInput().hasOneUse())
      return false;
    factors(tanh.getInput(), /*root=*/true, scaled, ops);
    if (scaled.size() != 2 || !takeConstant(scaled, std::sqrt(2.0 / M_PI)))
      return false;
    auto inner = scaled[0].getDefiningOp<AddOp>();
    if (!inner || inner.getType() != type || !scaled[0].hasOneUse())
      return false;
    ops.insert(inner);
    Value cube = inner.getLhs() == x ? inner.getRhs() : inner.getLhs();
    if (cube == x || (inner.getLhs() != x && inner.getRhs() != x))
      return false;
    SmallVector<Value> cubed;
    if (!cube.hasOneUse())
      return false;
    factors(cube, /*root=*/cube.getDefiningOp<MulOp>() != nullptr, cubed, ops);
    return cubed.size() == 4 && takeConstant(cubed, 0.044715) &&
           llvm::all_of(cubed, [&](Value v) { return v == x; });
  }

  /// Whether every value the pattern computes is used inside it only, but
  /// the last one, and every use of x is inside it.
  static bool isClosed(const llvm::SetVector<Operation *> &ops, Operation *last,
                       Value x) {
    for (Operation *op : ops)
      if (op != last)
        for (Operation *user : op->getResult(0).getUsers())
          if (!ops.contains(user))
            return false;
    return llvm::all_of(x.getUsers(),
                        [&](Operation *user) { return ops.contains(user); });
  }

  RankedTensorType type;
  Type element;
};

/// Whether cuBLASLt computes this product's epilogue: float types with f32
/// accumulation, and a non-empty product over a non-empty contraction.
bool canTakeEpilogue(MatmulOp matmul) {
  auto type = cast<RankedTensorType>(matmul.getType());
  Type element = type.getElementType();
  if (!element.isF32() && !element.isF16() && !element.isBF16())
    return false;
  if (auto acc = matmul.getAccType(); acc && !acc->isF32())
    return false;
  if (matmul.getEpilogue() != EpilogueKind::none || type.getNumElements() == 0)
    return false;
  auto lhs = cast<RankedTensorType>(matmul.getLhs().getType());
  int64_t k = lhs.getDimSize(lhs.getRank() - (matmul.getTransposeA() ? 2 : 1));
  return k > 0;
}

/// The single view of a product without an epilogue (but perhaps an addend:
/// dlc-split-concat-product's partial sums) that keeps the rows' width (a
/// channels-last convolution's [N*OH*OW, OC] viewed as [N, OH, OW, OC]):
/// the epilogue is matched on the view. Null if there is none.
ReshapeOp rowPreservingView(MatmulOp matmul) {
  Value p = matmul.getResult();
  if (!p.hasOneUse() || matmul.getBias() ||
      matmul.getEpilogue() != EpilogueKind::none)
    return {};
  auto view = dyn_cast<ReshapeOp>(*p.getUsers().begin());
  if (!view || view->getBlock() != matmul->getBlock())
    return {};
  auto from = cast<RankedTensorType>(p.getType());
  auto to = cast<RankedTensorType>(view.getType());
  return to.getRank() > 0 && to.getShape().back() == from.getShape().back()
             ? view
             : ReshapeOp();
}

/// Moves views of a product with a bias added (nn.MultiheadAttention's
/// export adds the projection's bias, then views the rows as [S, B, E]: a
/// reshape, and a transpose that moves only a size-1 dimension) before the
/// bias add, the bias viewed alike, so that the chain reads product, view,
/// bias, residual, activation and the residual becomes the GEMM's addend.
/// The views keep the rows' width and the element order.
void hoistViewsAboveBias(MatmulOp matmul) {
  Value p = matmul.getResult();
  for (int step = 0; step < 4 && p.hasOneUse(); ++step) {
    auto firstView = dyn_cast<ReshapeOp>(*p.getUsers().begin());
    Value head = firstView ? firstView.getResult() : p;
    if (!head.hasOneUse())
      return;
    auto add = dyn_cast<AddOp>(*head.getUsers().begin());
    if (!add || !add->hasOneUse() || add.getType() != head.getType())
      return;
    Value bias = add.getLhs() == head ? add.getRhs() : add.getLhs();
    auto headType = cast<RankedTensorType>(head.getType());
    auto biasType = cast<RankedTensorType>(bias.getType());
    int64_t n = headType.getShape().back();
    if (bias == head || biasType.getRank() != headType.getRank() ||
        biasType.getShape().back() != n ||
        !llvm::all_of(biasType.getShape().drop_back(),
                      [](int64_t d) { return d == 1; }))
      return;
    Operation *view = *add->getUsers().begin();
    auto transpose = dyn_cast<TransposeOp>(view);
    if (!isa<ReshapeOp>(view) && !(transpose && transpose.movesOnlyUnitDims()))
      return;
    auto viewType = cast<RankedTensorType>(view->getResult(0).getType());
    if (viewType.getRank() == 0 || viewType.getShape().back() != n ||
        view->getBlock() != matmul->getBlock())
      return;
    OpBuilder b(view);
    Location loc = view->getLoc();
    // Views compose: one reshape of the product.
    Value viewed = b.create<ReshapeOp>(loc, viewType, p);
    SmallVector<int64_t> biasShape(viewType.getRank(), 1);
    biasShape.back() = n;
    Value viewedBias = b.createOrFold<ReshapeOp>(
        loc, RankedTensorType::get(biasShape, biasType.getElementType()), bias);
    Value sum = b.create<AddOp>(loc, viewType, viewed, viewedBias);
    view->getResult(0).replaceAllUsesWith(sum);
    view->erase();
    add->erase();
    if (firstView)
      firstView->erase();
    if (auto constant = bias.getDefiningOp<ConstantOp>();
        constant && constant->use_empty())
      constant->erase();
  }
}

/// The epilogue that follows `matmul` (directly or through its view), in
/// the product's block.
std::optional<Epilogue> matchEpilogue(MatmulOp matmul, ReshapeOp view) {
  Epilogue e;
  e.bias = matmul.getBias();
  e.addend = matmul.getAddend();
  e.result = view ? view.getResult() : matmul.getResult();
  Matcher matcher(cast<RankedTensorType>(e.result.getType()));
  matcher.matchAdds(e);
  matcher.matchActivation(e);
  // The chain is rewritten in the product's block; uses in other blocks
  // (none before fusion) are left alone.
  if (llvm::any_of(e.ops, [&](Operation *op) {
        return op->getBlock() != matmul->getBlock();
      }))
    return std::nullopt;
  return e;
}

} // namespace

Value mlir::dlc::epilogueEnd(MatmulOp matmul) {
  if (!canTakeEpilogue(matmul))
    return matmul.getResult();
  ReshapeOp view = rowPreservingView(matmul);
  std::optional<Epilogue> e = matchEpilogue(matmul, view);
  if (!e || e->ops.empty())
    return matmul.getResult();
  return e->result;
}

namespace {

/// Folds what follows `matmul` into it; false when nothing does.
bool fuse(MatmulOp matmul) {
  if (!canTakeEpilogue(matmul))
    return false;
  ReshapeOp view = rowPreservingView(matmul);
  std::optional<Epilogue> match = matchEpilogue(matmul, view);
  if (!match || match->ops.empty())
    return false;
  Epilogue &e = *match;

  // At the last op of the chain, every operand is defined (the bias and
  // addend before the adds reading them) and every use of the result is
  // still to come.
  Operation *last = e.result.getDefiningOp();
  OpBuilder b(last);
  auto type = cast<RankedTensorType>(matmul.getType());
  Value bias = e.bias, addend = e.addend;
  if (view) {
    // The bias as a vector and the addend in the product's shape (views;
    // a constant bias folds).
    int64_t n = type.getShape().back();
    if (bias)
      bias = b.createOrFold<ReshapeOp>(
          matmul.getLoc(), RankedTensorType::get({n}, type.getElementType()),
          bias);
    if (addend && addend.getType() != type)
      addend = b.create<ReshapeOp>(matmul.getLoc(), type, addend);
  }
  auto fused = b.create<MatmulOp>(
      matmul.getLoc(), type, matmul.getLhs(), matmul.getRhs(), bias, addend,
      matmul.getTransposeA(), matmul.getTransposeB(), matmul.getAccTypeAttr(),
      e.act, matmul.getLhsScaleAttr(), matmul.getRhsScaleAttr());
  if (isFromConv(matmul))
    setFromConv(fused);
  Value result = fused.getResult();
  if (view)
    result = b.create<ReshapeOp>(view.getLoc(), view.getType(), result);
  e.result.replaceAllUsesWith(result);

  // Erase users before producers; then constants nothing reads any more.
  SmallVector<Operation *> dead(e.ops.begin(), e.ops.end());
  if (view)
    dead.push_back(view);
  dead.push_back(matmul);
  llvm::sort(dead,
             [](Operation *a, Operation *b) { return b->isBeforeInBlock(a); });
  llvm::SetVector<Operation *> constants;
  for (Operation *op : dead) {
    for (Value operand : op->getOperands())
      if (auto c = operand.getDefiningOp<ConstantOp>())
        constants.insert(c);
    op->erase();
  }
  for (Operation *c : constants)
    if (c->use_empty())
      c->erase();
  return true;
}

/// Folds a bias add, a residual add and a relu after a library convolution
/// (cuDNN's fused convolution, bias and activation) into it; false when
/// nothing follows it.
bool fuseConv(ConvOp conv) {
  // An addend alone (dlc-split-concat-product's partial sum) takes the
  // bias and relu after it.
  if (conv.getBias() || conv.getEpilogue() != EpilogueKind::none)
    return false;
  Epilogue e;
  e.addend = conv.getAddend();
  e.result = conv.getResult();
  Matcher matcher(conv.getType());
  matcher.matchAdds(e);
  matcher.matchRelu(e);
  if (e.ops.empty() || llvm::any_of(e.ops, [&](Operation *op) {
        return op->getBlock() != conv->getBlock();
      }))
    return false;
  Operation *last = e.result.getDefiningOp();
  OpBuilder b(last);
  Value bias = e.bias;
  if (bias) {
    auto type = conv.getType();
    bias = b.createOrFold<ReshapeOp>(
        conv.getLoc(),
        RankedTensorType::get({type.getShape().back()}, type.getElementType()),
        bias);
  }
  auto fused = b.create<ConvOp>(
      conv.getLoc(), conv.getType(), conv.getInput(), conv.getFilter(), bias,
      e.addend, conv.getStridesAttr(), conv.getPadsAttr(),
      conv.getDilationsAttr(), conv.getGroupsAttr(),
      EpilogueKindAttr::get(conv.getContext(), e.act));
  e.result.replaceAllUsesWith(fused.getResult());
  SmallVector<Operation *> dead(e.ops.begin(), e.ops.end());
  dead.push_back(conv);
  llvm::sort(dead,
             [](Operation *a, Operation *b) { return b->isBeforeInBlock(a); });
  for (Operation *op : dead)
    op->erase();
  return true;
}

struct FuseEpiloguePass
    : public ::mlir::dlc::impl::FuseEpilogueBase<FuseEpiloguePass> {
  using FuseEpilogueBase::FuseEpilogueBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    if (failed(checkTensorSizes(func)))
      return signalPassFailure();
    SmallVector<MatmulOp> matmuls;
    func.walk([&](MatmulOp op) { matmuls.push_back(op); });
    for (MatmulOp op : matmuls) {
      LLVM_DEBUG(llvm::dbgs()
                 << DEBUG_TYPE ": product at " << op.getLoc() << "\n");
      if (canTakeEpilogue(op))
        hoistViewsAboveBias(op);
      fuse(op);
    }
    SmallVector<ConvOp> convs;
    func.walk([&](ConvOp op) { convs.push_back(op); });
    for (ConvOp op : convs) {
      LLVM_DEBUG(llvm::dbgs()
                 << DEBUG_TYPE ": convolution at " << op.getLoc() << "\n");
      fuseConv(op);
    }
  }
};

} // namespace
