//===- OpEmitters.cpp - The values of a fused kernel's ops ----------------===//
//
// The expression emitter's ops: elementwise, casts, data movement (as index
// arithmetic), serial reductions, gather and resize. The window ops are in
// WindowEmitters.cpp.
//
//===----------------------------------------------------------------------===//
#include "codegen/KernelEmitter.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <fmt/format.h>

#include <cmath>

using namespace mlir;
using namespace mlir::dlc;

void KernelEmitter::fail(Operation *op, const Twine &message) {
  if (!hadError)
    op->emitOpError() << message;
  hadError = true;
}

std::string KernelEmitter::def(rt::DType e, const std::string &expr) {
  std::string name = fresh("v");
  line(cur, fmt::format("const {} {} = {};", cudaComputeType(e), name, expr));
  declare(cur, name);
  return name;
}

std::string KernelEmitter::cacheKey(Value v, ArrayRef<std::string> idx) {
  std::string key = fmt::format("{}", v.getAsOpaquePointer());
  for (const std::string &s : idx) {
    key += ',';
    key += s;
  }
  return key;
}

std::optional<std::string> KernelEmitter::splatLiteral(Value v) {
  auto c = v.getDefiningOp<ConstantOp>();
  if (!c)
    return std::nullopt;
  auto dense = dyn_cast<DenseElementsAttr>(c.getValue());
  if (!dense || !(dense.isSplat() || dense.getNumElements() == 1))
    return std::nullopt;
  return denseLiteral(dense, dtypeOfValue(v), 0);
}

std::string KernelEmitter::guarded(rt::DType e, ArrayRef<std::string> conds,
                                   const std::string &init,
                                   llvm::function_ref<std::string()> read) {
  std::string result = fresh("p");
  line(cur, fmt::format("{} {} = {};", cudaComputeType(e), result, init));
  declare(cur, result);
  Scope *parent = cur;
  Scope *branch =
      openScope(parent, fmt::format("if ({}) {{", llvm::join(conds, " && ")),
                /*barrier=*/true);
  cur = branch;
  std::string x = read();
  line(branch, fmt::format("{} = {};", result, x));
  cur = parent;
  closeScope(branch);
  return result;
}

std::string KernelEmitter::val(Value v, ArrayRef<std::string> idx) {
  if (hadError)
    return "0";
  if (auto literal = splatLiteral(v))
    return *literal;
  if (auto known = precomputed(v, idx))
    return *known;
  std::string key = cacheKey(v, idx);
  if (auto hit = lookup(key))
    return *hit;
  Scope *target = targetFor(idx, /*respectBarriers=*/true);
  Scope *saved = cur;
  cur = target;
  std::string result = compute(v, idx);
  cur = saved;
  target->cache[key] = result;
  return result;
}

std::string KernelEmitter::compute(Value v, ArrayRef<std::string> idx) {
  if (auto arg = dyn_cast<BlockArgument>(v))
    return computeBlockArg(arg, idx);
  Operation *op = v.getDefiningOp();
  if (auto c = dyn_cast<ConstantOp>(op))
    return computeConstant(c, idx);
  if (isa<ExpOp, LogOp, TanhOp, SigmoidOp, ErfOp, RsqrtOp, SqrtOp, ReciprocalOp,
          AbsOp, NegOp, NotOp, ClampOp>(op))
    return computeUnary(op, idx);
  if (isa<AddOp, SubOp, MulOp, DivOp, MaxOp, MinOp, PowOp, AndOp, OrOp, CmpOp,
          SelectOp>(op))
    return computeBinary(op, idx);
  if (auto cast = dyn_cast<CastOp>(op))
    return computeCast(cast, idx);
  if (auto dropout = dyn_cast<DropoutOp>(op))
    return computeDropout(dropout, idx);
  if (auto reduce = dyn_cast<ReduceOp>(op))
    return computeReduce(reduce, idx);
  if (auto argmax = dyn_cast<ArgMaxOp>(op))
    return computeArgMax(argmax, idx);
  if (auto pad = dyn_cast<PadOp>(op))
    return computePad(pad, idx);
  if (auto concat = dyn_cast<ConcatOp>(op))
    return computeConcat(concat, idx);
  if (auto t = dyn_cast<TransposeOp>(op)) {
    SmallVector<std::string> in(idx.size());
    for (auto [k, p] : llvm::enumerate(t.getPerm()))
      in[p] = idx[k];
    return val(t.getInput(), in);
  }
  if (auto r = dyn_cast<ReshapeOp>(op))
    return val(r.getInput(), reshapeIndex(idx, shapeOf(r.getResult()),
                                          shapeOf(r.getInput())));
  if (auto s = dyn_cast<SliceOp>(op)) {
    SmallVector<std::string> in;
    std::optional<ArrayRef<int64_t>> strides = s.getStrides();
    for (auto [k, start] : llvm::enumerate(s.getStart())) {
      int64_t stride = strides ? (*strides)[k] : 1;
      in.push_back(stride == 1 ? ixAdd(idx[k], start)
                               : ixAffine({{idx[k], stride}}, start));
    }
    return val(s.getInput(), in);
  }
  if (auto im2col = dyn_cast<Im2ColOp>(op))
    return computeIm2Col(im2col, idx);
  if (auto conv = dyn_cast<Conv2DOp>(op))
    return computeConv2D(conv, idx);
  if (auto convT = dyn_cast<ConvTranspose2DOp>(op))
    return computeConvTranspose2D(convT, idx);
  if (auto pool = dyn_cast<Pool2DOp>(op))
    return computePool2D(pool, idx);
  if (auto gather = dyn_cast<GatherOp>(op))
    return computeGather(gather, idx);
  if (auto resize = dyn_cast<ResizeOp>(op))
    return computeResize(resize, idx);
  if (auto t = dyn_cast<TileOp>(op)) {
    ArrayRef<int64_t> inShape = shapeOf(t.getInput());
    SmallVector<std::string> in;
    for (size_t d = 0; d < inShape.size(); ++d)
      in.push_back(inShape[d] == 1 ? "0" : ixMod(idx[d], inShape[d]));
    return val(t.getInput(), in);
  }
  fail(op, "cannot be emitted as CUDA code inside a fused kernel");
  return "0";
}

std::string KernelEmitter::computeBlockArg(BlockArgument arg,
                                           ArrayRef<std::string> idx) {
  if (auto served = readArgument(arg, idx))
    return *served;
  return loadArgument(arg, idx);
}

std::string KernelEmitter::loadArgument(BlockArgument arg,
                                        ArrayRef<std::string> idx) {
  rt::DType e = dtypeOfValue(arg);
  std::string lin = ixLinear(idx, shapeOf(arg));
  return def(e, loadExpr(e, fmt::format("in{}[{}]", arg.getArgNumber(), lin)));
}

std::string KernelEmitter::computeConstant(ConstantOp op,
                                           ArrayRef<std::string> idx) {
  auto dense = dyn_cast<DenseElementsAttr>(op.getValue());
  if (!dense) {
    fail(op, "has a constant value the CUDA emitter cannot read inside a "
             "kernel (expected dense elements)");
    return "0";
  }
  rt::DType e = dtypeOfValue(op.getResult());
  std::string table = fmt::format("{}_c{}", name, numConstTables++);
  std::string values;
  for (int64_t i = 0, n = dense.getNumElements(); i < n; ++i) {
    if (i)
      values += i % 8 == 0 ? ",\n    " : ", ";
    values += denseLiteral(dense, e, i);
  }
  globals +=
      fmt::format("static __device__ const {} {}[{}] = {{\n    {}}};\n",
                  cudaComputeType(e), table, dense.getNumElements(), values);
  std::string lin = ixLinear(idx, shapeOf(op.getResult()));
  return def(e, fmt::format("{}[{}]", table, lin));
}

std::string KernelEmitter::computeUnary(Operation *op,
                                        ArrayRef<std::string> idx) {
  rt::DType e = dtypeOfValue(op->getResult(0));
  std::string x = val(op->getOperand(0), idx);
  bool f = isFloat(e);
  std::string expr;
  bool exact = false; // the result is already a value of type `e`
  if (isa<ExpOp>(op))
    expr = fmt::format("expf({})", x);
  else if (isa<LogOp>(op))
    expr = fmt::format("logf({})", x);
  else if (isa<TanhOp>(op))
    expr = fmt::format("tanhf({})", x);
  else if (isa<SigmoidOp>(op))
    expr = fmt::format("dlc_sigmoid({})", x);
  else if (isa<ErfOp>(op))
    expr = fmt::format("erff({})", x);
  else if (isa<RsqrtOp>(op))
    expr = fmt::format("rsqrtf({})", x);
  else if (isa<SqrtOp>(op))
    expr = fmt::format("sqrtf({})", x);
  else if (isa<ReciprocalOp>(op))
    expr = fmt::format("1.0f / {}", x);
  else if (isa<AbsOp>(op)) {
    exact = true;
    if (e == rt::DType::I1)
      expr = x;
    else
      expr = f ? fmt::format("fabsf({})", x) : fmt::format("dlc_abs({})", x);
  } else if (isa<NegOp>(op)) {
    exact = true;
    if (e == rt::DType::I1)
      expr = x; // -x wraps to x in one bit
    else
      expr = f ? fmt::format("-{}", x) : fmt::format("dlc_neg({})", x);
  } else if (isa<NotOp>(op)) {
    exact = true;
    expr = fmt::format("!{}", x);
  } else if (auto clamp = dyn_cast<ClampOp>(op)) {
    exact = true;
    std::string lo = scalarLiteral(e, clamp.getMin().convertToDouble());
    std::string hi = scalarLiteral(e, clamp.getMax().convertToDouble());
    if (f)
      expr = fmt::format("fminf(fmaxf({}, {}), {})", x, lo, hi);
    else if (e == rt::DType::I1)
      expr =
          fmt::format("({0} < {1} ? {1} : {0} > {2} ? {2} : {0})", x, lo, hi);
    else
      expr =
          fmt::format("({0} < {1} ? {1} : {0} > {2} ? {2} : {0})", x, lo, hi);
  }
  if (!exact)
    expr = roundTo(e, expr);
  return def(e, expr);
}

/// The mask of element `idx` regenerated from its row-major index, the
/// offset and the key (dlc_dropout in Prelude.cuh; the reference's
/// evalDropout computes the same bits).
std::string KernelEmitter::computeDropout(DropoutOp op,
                                          ArrayRef<std::string> idx) {
  rt::DType e = dtypeOfValue(op.getResult());
  std::string x = val(op.getInput(), idx);
  std::string offset =
      val(op.getOffset(), broadcastIndex(idx, shapeOf(op.getOffset())));
  std::string index = ixLinear(idx, shapeOf(op.getResult()));
  auto [k0, k1] = op.getKey();
  return def(
      e, roundTo(
             e, fmt::format("{} * dlc_dropout_factor((unsigned long "
                            "long)({}), (unsigned long long)({}), {}u, "
                            "{}u, {}u, {})",
                            x, index, offset, k0, k1, op.getKeepThreshold(),
                            scalarLiteral(rt::DType::F32, op.getKeptScale()))));
}

std::string KernelEmitter::computeBinary(Operation *op,
                                         ArrayRef<std::string> idx) {
  rt::DType e = dtypeOfValue(op->getResult(0));
  if (auto sel = dyn_cast<SelectOp>(op)) {
    std::string c =
        val(sel.getCond(), broadcastIndex(idx, shapeOf(sel.getCond())));
    std::string a =
        val(sel.getOnTrue(), broadcastIndex(idx, shapeOf(sel.getOnTrue())));
    std::string b =
        val(sel.getOnFalse(), broadcastIndex(idx, shapeOf(sel.getOnFalse())));
    return def(e, fmt::format("{} ? {} : {}", c, a, b));
  }
  Value lhs = op->getOperand(0), rhs = op->getOperand(1);
  std::string a = val(lhs, broadcastIndex(idx, shapeOf(lhs)));
  std::string b = val(rhs, broadcastIndex(idx, shapeOf(rhs)));
  if (auto cmp = dyn_cast<CmpOp>(op)) {
    const char *sym = "==";
    switch (cmp.getPredicate()) {
    case CmpPredicate::eq:
      sym = "==";
      break;
    case CmpPredicate::ne:
      sym = "!=";
      break;
    case CmpPredicate::lt:
      sym = "<";
      break;
    case CmpPredicate::le:
      sym = "<=";
      break;
    case CmpPredicate::gt:
      sym = ">";
      break;
    case CmpPredicate::ge:
      sym = ">=";
      break;
    }
    return def(rt::DType::I1, fmt::format("{} {} {}", a, sym, b));
  }
  std::string expr;
  if (isFloat(e)) {
    bool exact = false;
    if (isa<AddOp>(op))
      expr = fmt::format("{} + {}", a, b);
    else if (isa<SubOp>(op))
      expr = fmt::format("{} - {}", a, b);
    else if (isa<MulOp>(op))
      expr = fmt::format("{} * {}", a, b);
    else if (isa<DivOp>(op))
      expr = fmt::format("{} / {}", a, b);
    else if (isa<PowOp>(op))
      expr = fmt::format("powf({}, {})", a, b);
    else if (isa<MaxOp>(op)) {
      expr = fmt::format("fmaxf({}, {})", a, b);
      exact = true;
    } else if (isa<MinOp>(op)) {
      expr = fmt::format("fminf({}, {})", a, b);
      exact = true;
    } else {
      fail(op, "is not defined on floating-point tensors (it needs i1 or "
               "integer operands)");
      return "0";
    }
    return def(e, exact ? expr : roundTo(e, expr));
  }
  if (e == rt::DType::I1) {
    // Booleans hold 0 or 1; arithmetic wraps in one bit like the reference.
    if (isa<AndOp, MinOp, MulOp>(op))
      expr = fmt::format("{} && {}", a, b);
    else if (isa<OrOp, MaxOp>(op))
      expr = fmt::format("{} || {}", a, b);
    else if (isa<AddOp, SubOp>(op))
      expr = fmt::format("{} != {}", a, b);
    else if (isa<DivOp>(op)) // a / 1 = a; a / 0 gives 0 rather than a trap
      expr = fmt::format("{} && {}", b, a);
    else if (isa<PowOp>(op)) // a^0 = 1, a^1 = a
      expr = fmt::format("!{} || {}", b, a);
    else {
      fail(op, "is not supported on i1 tensors by the CUDA emitter");
      return "0";
    }
    return def(e, expr);
  }
  if (isa<AddOp>(op))
    expr = fmt::format("dlc_add({}, {})", a, b);
  else if (isa<SubOp>(op))
    expr = fmt::format("dlc_sub({}, {})", a, b);
  else if (isa<MulOp>(op))
    expr = fmt::format("dlc_mul({}, {})", a, b);
  else if (isa<DivOp>(op))
    expr = fmt::format("dlc_div({}, {})", a, b);
  else if (isa<PowOp>(op))
    expr = fmt::format("dlc_pow({}, {})", a, b);
  else if (isa<MaxOp>(op))
    expr = fmt::format("{0} > {1} ? {0} : {1}", a, b);
  else if (isa<MinOp>(op))
    expr = fmt::format("{0} < {1} ? {0} : {1}", a, b);
  else if (isa<AndOp>(op))
    expr = fmt::format("{} & {}", a, b);
  else if (isa<OrOp>(op))
    expr = fmt::format("{} | {}", a, b);
  return def(e, expr);
}

std::string KernelEmitter::computeCast(CastOp op, ArrayRef<std::string> idx) {
  rt::DType from = dtypeOfValue(op.getInput()),
            to = dtypeOfValue(op.getResult());
  std::string x = val(op.getInput(), idx);
  if (from == to)
    return x;
  // A quantizing cast (to f8E4M3FN) scales in f32 first.
  if (FloatAttr scale = op.getScaleAttr())
    x = fmt::format("({} * {})", x,
                    floatLiteral(float(scale.getValueAsDouble())));
  std::string expr;
  if (to == rt::DType::I1) {
    expr = isFloat(from) ? fmt::format("{} != 0.0f", x)
                         : fmt::format("{} != 0", x);
  } else if (from == rt::DType::I1) {
    expr = isFloat(to) ? fmt::format("{} ? 1.0f : 0.0f", x)
                       : fmt::format("({}){}", cudaComputeType(to), x);
  } else if (isFloat(to)) {
    // f16/bf16 values are exact in float; an int rounds to nearest on its
    // way to float.
    if (isFloat(from) && to == rt::DType::F32)
      return x;
    if (isFloat(from))
      expr = roundTo(to, x);
    else if (to == rt::DType::F32)
      expr = fmt::format("(float){}", x); // one rounding to nearest even
    else
      expr = roundTo(to, fmt::format("dlc_i2f_odd((long long){})", x));
  } else if (isFloat(from)) {
    expr = to == rt::DType::I32 ? fmt::format("dlc_f2i32({})", x)
                                : fmt::format("dlc_f2i64({})", x);
  } else {
    // Integer to integer wraps (two's complement truncation).
    expr = fmt::format("({}){}", cudaComputeType(to), x);
  }
  return def(to, expr);
}

std::string KernelEmitter::computeReduce(ReduceOp op,
                                         ArrayRef<std::string> idx) {
  rt::DType e = dtypeOfValue(op.getResult());
  ReduceKind kind = op.getKind();
  ArrayRef<int64_t> inShape = shapeOf(op.getInput());
  SmallVector<std::string> inIdx(idx.begin(), idx.end());
  SmallVector<int64_t> axes(op.getAxes());
  llvm::sort(axes);
  std::string header;
  SmallVector<std::pair<std::string, int64_t>> loopVars;
  for (int64_t axis : axes) {
    if (inShape[axis] == 1) {
      inIdx[axis] = "0";
      continue;
    }
    std::string k = fresh("k");
    header += fmt::format("for ({0} {1} = 0; {1} < {2}; ++{1}) ", idxType, k,
                          inShape[axis]);
    inIdx[axis] = k;
    loopVars.push_back({k, inShape[axis]});
  }
  if (loopVars.empty()) {
    std::string x = val(op.getInput(), inIdx);
    return x;
  }
  std::string acc = fresh("r");
  line(cur, fmt::format("{} {} = {};", cudaComputeType(e), acc,
                        reduceInit(kind, e)));
  declare(cur, acc);
  Scope *parent = cur;
  Scope *loop = openScope(parent, header + "{", /*barrier=*/false);
  for (auto &[k, n] : loopVars)
    declare(loop, k, n);
  cur = loop;
  std::string x = val(op.getInput(), inIdx);
  line(loop, fmt::format("{} = {};", acc, reduceCombine(kind, e, acc, x)));
  cur = parent;
  closeScope(loop);
  if (kind == ReduceKind::sum || kind == ReduceKind::prod)
    if (e == rt::DType::F16 || e == rt::DType::BF16)
      line(cur, fmt::format("{} = {};", acc, roundTo(e, acc)));
  return acc;
}

std::string KernelEmitter::computeArgMax(ArgMaxOp op,
                                         ArrayRef<std::string> idx) {
  rt::DType in = dtypeOfValue(op.getInput()), e = dtypeOfValue(op.getResult());
  int64_t axis = op.getAxis();
  int64_t size = shapeOf(op.getInput())[axis];
  if (size <= 1)
    return intLiteral(e, 0);
  std::string best = fresh("bv"), bestIdx = fresh("bi");
  line(cur, fmt::format("{} {} = 0; {} {} = -1;", cudaComputeType(in), best,
                        cudaComputeType(e), bestIdx));
  declare(cur, best);
  declare(cur, bestIdx);
  std::string k = fresh("k");
  Scope *parent = cur;
  Scope *loop = openScope(
      parent,
      fmt::format("for ({0} {1} = 0; {1} < {2}; ++{1}) {{", idxType, k, size),
      /*barrier=*/false);
  declare(loop, k, size);
  cur = loop;
  SmallVector<std::string> inIdx(idx.begin(), idx.end());
  inIdx[axis] = k;
  std::string x = val(op.getInput(), inIdx);
  // The first maximum wins: later equal values do not replace it.
  line(loop,
       fmt::format("if ({0} < 0 || {1} > {2}) {{ {2} = {1}; {0} = {3}; }}",
                   bestIdx, x, best, k));
  cur = parent;
  closeScope(loop);
  return bestIdx;
}

std::string KernelEmitter::computePad(PadOp op, ArrayRef<std::string> idx) {
  rt::DType e = dtypeOfValue(op.getResult());
  ArrayRef<int64_t> inShape = shapeOf(op.getInput());
  ArrayRef<int64_t> low = op.getLow();
  std::string padValue = scalarLiteral(e, op.getValue().convertToDouble());
  SmallVector<std::string> conds;
  SmallVector<int64_t> dynamicDims;
  SmallVector<std::string> inIdx(idx.begin(), idx.end());
  for (size_t d = 0; d < inShape.size(); ++d) {
    int64_t lo = low[d], n = inShape[d];
    if (isLit(idx[d])) {
      int64_t x = litVal(idx[d]) - lo;
      if (x < 0 || x >= n)
        return padValue;
      inIdx[d] = lit(x);
      continue;
    }
    if (lo > 0)
      conds.push_back(fmt::format("{} >= {}", idx[d], lo));
    if (boundOf(idx[d]) > lo + n)
      conds.push_back(fmt::format("{} < {}", idx[d], lo + n));
    dynamicDims.push_back(d);
  }
  if (conds.empty()) {
    for (int64_t d : dynamicDims)
      inIdx[d] = ixAdd(idx[d], -low[d]);
    return val(op.getInput(), inIdx);
  }
  return guarded(e, conds, padValue, [&] {
    for (int64_t d : dynamicDims)
      inIdx[d] = ixAdd(idx[d], -low[d]);
    return val(op.getInput(), inIdx);
  });
}

std::string KernelEmitter::computeConcat(ConcatOp op,
                                         ArrayRef<std::string> idx) {
  rt::DType e = dtypeOfValue(op.getResult());
  int64_t axis = op.getAxis();
  const std::string &i = idx[axis];
  // A known position picks its input at compile time.
  if (isLit(i)) {
    int64_t pos = litVal(i), offset = 0;
    for (Value input : op.getInputs()) {
      int64_t size = shapeOf(input)[axis];
      if (pos < offset + size) {
        SmallVector<std::string> in(idx.begin(), idx.end());
        in[axis] = lit(pos - offset);
        return val(input, in);
      }
      offset += size;
    }
  }
  // Not "c": declareIndex names inner row indices c0, c1, ...
  std::string result = fresh("cat");
  line(cur, fmt::format("{0} {1} = ({0})0;", cudaComputeType(e), result));
  declare(cur, result);
  Scope *parent = cur;
  int64_t offset = 0;
  size_t count = op.getInputs().size();
  int64_t bound = boundOf(i);
  for (auto [k, input] : llvm::enumerate(op.getInputs())) {
    int64_t size = shapeOf(input)[axis];
    int64_t begin = offset, end = offset + size;
    offset = end;
    if (size == 0 || begin >= bound)
      continue;
    // Independent conditions, not an else-chain: hoisted statements may be
    // placed between the branches.
    SmallVector<std::string> conds;
    if (k > 0 && begin > 0)
      conds.push_back(fmt::format("{} >= {}", i, begin));
    if (k + 1 < count && end < bound)
      conds.push_back(fmt::format("{} < {}", i, end));
    Scope *branch = openScope(
        parent,
        conds.empty() ? std::string("{")
                      : fmt::format("if ({}) {{", llvm::join(conds, " && ")),
        /*barrier=*/true);
    cur = branch;
    SmallVector<std::string> in(idx.begin(), idx.end());
    in[axis] = ixAdd(i, -begin);
    std::string x = val(input, in);
    line(branch, fmt::format("{} = {};", result, x));
    cur = parent;
    closeScope(branch);
  }
  return result;
}

std::string KernelEmitter::computeGather(GatherOp op,
                                         ArrayRef<std::string> idx) {
  ArrayRef<int64_t> data = shapeOf(op.getData());
  ArrayRef<int64_t> ind = shapeOf(op.getIndices());
  int64_t axis = op.getAxis(), r = ind.size(), size = data[axis];
  std::string i = val(op.getIndices(), idx.slice(axis, r));
  std::string pos;
  auto clampIndex = [&](int64_t x) {
    if (x < 0)
      x += size;
    return std::min(std::max<int64_t>(x, 0), size - 1);
  };
  if (isLit(i)) {
    pos = lit(clampIndex(litVal(i)));
  } else {
    // Negative indices count from the end; others are clamped (the
    // reference reports them).
    std::string fixed = fmt::format("({0} < 0 ? {0} + {1} : {0})", i, size);
    pos = ixTemp(fmt::format("({0})({1} < 0 ? 0 : {1} > {2} ? {2} : {1})",
                             idxType, fixed, size - 1),
                 {i}, size);
  }
  SmallVector<std::string> in(idx.take_front(axis));
  in.push_back(pos);
  llvm::append_range(in, idx.drop_front(axis + r));
  return val(op.getData(), in);
}

std::string KernelEmitter::computeResize(ResizeOp op,
                                         ArrayRef<std::string> idx) {
  rt::DType e = dtypeOfValue(op.getResult());
  ArrayRef<int64_t> in = shapeOf(op.getInput());
  ArrayRef<int64_t> out = shapeOf(op.getResult());
  StringRef cm = op.getCoordinateMode(), nm = op.getNearestMode();
  bool linear = op.getMode() == "linear";
  SmallVector<std::string> lower(idx.begin(), idx.end()), upper = lower;
  // Resized dimensions read at two positions with these weights.
  SmallVector<std::pair<int64_t, std::string>> weights;
  for (size_t dim = 0; dim < in.size(); ++dim) {
    int64_t n = in[dim], m = out[dim];
    if (n == m)
      continue; // every coordinate mode maps x to x
    // Source coordinates, computed here in double precision exactly like
    // the reference interpreter, then stored as tables.
    SmallVector<int64_t> i0, i1;
    SmallVector<std::string> i0Text, i1Text, wText;
    SmallVector<float> w;
    double scale = double(m) / double(n);
    for (int64_t x = 0; x < m; ++x) {
      double c;
      if (cm == "align_corners")
        c = m == 1 ? 0.0 : x * double(n - 1) / double(m - 1);
      else if (cm == "asymmetric")
        c = x / scale;
      else if (cm == "pytorch_half_pixel" && m == 1)
        c = -0.5;
      else
        c = (x + 0.5) / scale - 0.5;
      auto clampIndex = [&](double y) {
        return static_cast<int64_t>(std::min(std::max(y, 0.0), double(n - 1)));
      };
      double f = std::floor(c);
      if (linear) {
        i0.push_back(clampIndex(f));
        i1.push_back(clampIndex(f + 1));
        w.push_back(static_cast<float>(c - f));
      } else {
        double rounded;
        if (nm == "floor")
          rounded = f;
        else if (nm == "ceil")
          rounded = std::ceil(c);
        else if (c - f == 0.5)
          rounded = nm == "round_prefer_floor" ? f : f + 1;
        else
          rounded = std::round(c);
        i0.push_back(clampIndex(rounded));
        i1.push_back(i0.back());
        w.push_back(0.0f);
      }
      i0Text.push_back(std::to_string(i0.back()));
      i1Text.push_back(std::to_string(i1.back()));
      wText.push_back(floatLiteral(w.back()));
    }
    lower[dim] = ixLookup(constTable("int", i0Text), i0, idx[dim], n);
    bool interpolates = llvm::any_of(w, [](float x) { return x != 0.0f; });
    if (!interpolates) {
      upper[dim] = lower[dim];
      continue;
    }
    upper[dim] = ixLookup(constTable("int", i1Text), i1, idx[dim], n);
    std::string table = constTable("float", wText);
    std::string weight =
        isLit(idx[dim])
            ? floatLiteral(w[litVal(idx[dim])])
            : def(rt::DType::F32, fmt::format("{}[{}]", table, idx[dim]));
    weights.push_back({(int64_t)dim, weight});
  }
  if (weights.empty())
    return val(op.getInput(), lower);
  // Sum over the corners of the interpolation cell.
  std::string sum;
  for (int64_t corner = 0; corner < (int64_t(1) << weights.size()); ++corner) {
    SmallVector<std::string> at = lower;
    std::string term;
    for (auto [j, dw] : llvm::enumerate(weights)) {
      bool up = (corner >> j) & 1;
      if (up)
        at[dw.first] = upper[dw.first];
      term += up ? fmt::format("{} * ", dw.second)
                 : fmt::format("(1.0f - {}) * ", dw.second);
    }
    std::string x = val(op.getInput(), at);
    if (!sum.empty())
      sum += " + ";
    sum += term + x;
  }
  return def(e, roundTo(e, sum));
}
