//===- ShapeFolding.cpp - Shape computations folded at import -------------===//
//
// Since dlc shapes are static, the shape arithmetic of an ONNX graph (Shape
// → Gather → Concat → Reshape, ConstantOfShape, Range, ...) is evaluated
// here, on literals, and vanishes from the imported module. The folders run
// when every input of a node is a literal; ops that only produce literals
// (Constant, Shape, Size, ConstantOfShape, Range) are handlers. Reshape,
// Flatten, Squeeze and Unsqueeze keep literals literal in their ordinary
// conversion (DataMovement.cpp).
//
//===----------------------------------------------------------------------===//
#include "frontend/onnx/Importer.h"

#include <cmath>
#include <cstring>

using namespace mlir;

namespace dlc::onnximport {
namespace {

using AI = ArrayRef<int64_t>;
using AD = ArrayRef<double>;
using Literals = ArrayRef<const rt::HostTensor *>;

/// Elementwise evaluation with numpy broadcasting among `args` only.
Lit map(Literals args, rt::DType out,
        std::function<int64_t(ArrayRef<int64_t>)> fi,
        std::function<double(ArrayRef<double>)> fd) {
  return foldMap(args, out, {}, fi, fd);
}

//===----------------------------------------------------------------------===//
// Elementwise folders
//===----------------------------------------------------------------------===//

Lit foldCast(Importer &im, Literals L) {
  const rt::HostTensor &x = *L[0];
  auto to = dtypeOfOnnx(im.attrInt("to", 0));
  if (!to)
    return nullptr;
  return map(
      {&x}, *to, [](AI v) { return v[0]; }, [](AD v) { return v[0]; });
}

Lit foldNeg(Importer &, Literals L) {
  const rt::HostTensor &x = *L[0];
  return map(
      {&x}, x.dtype, [](AI v) { return wrapSub(0, v[0]); },
      [](AD v) { return -v[0]; });
}

Lit foldAbs(Importer &, Literals L) {
  const rt::HostTensor &x = *L[0];
  return map(
      {&x}, x.dtype, [](AI v) { return v[0] < 0 ? wrapSub(0, v[0]) : v[0]; },
      [](AD v) { return std::fabs(v[0]); });
}

Lit foldNot(Importer &, Literals L) {
  const rt::HostTensor &x = *L[0];
  return map(
      {&x}, rt::DType::I1, [](AI v) { return (int64_t)!v[0]; },
      [](AD v) { return (double)(v[0] == 0); });
}

/// Sqrt, Floor and Ceil: float literals only.
OpFolder floatUnary(double (*f)(double)) {
  return [f](Importer &, Literals L) -> Lit {
    const rt::HostTensor &x = *L[0];
    if (!dlcir::isFloat(x.dtype))
      return nullptr;
    return map(
        {&x}, x.dtype, [](AI v) { return v[0]; },
        [f](AD v) { return f(v[0]); });
  };
}

enum class Arith { add, sub, mul, div, min, max };

/// Add, Sub, Mul, Div, Min and Max of two literals of one type.
OpFolder arithmetic(Arith k) {
  return [k](Importer &, Literals L) -> Lit {
    const rt::HostTensor &x = *L[0];
    if (L.size() != 2 || !L[1] || L[1]->dtype != x.dtype)
      return nullptr;
    return map(
        {&x, L[1]}, x.dtype,
        [k](AI v) -> int64_t {
          switch (k) {
          case Arith::add:
            return wrapAdd(v[0], v[1]);
          case Arith::sub:
            return wrapSub(v[0], v[1]);
          case Arith::mul:
            return wrapMul(v[0], v[1]);
          case Arith::div:
            // INT64_MIN / -1 wraps to INT64_MIN.
            if (v[1] == -1)
              return wrapSub(0, v[0]);
            return v[1] ? v[0] / v[1] : 0;
          case Arith::min:
            return std::min(v[0], v[1]);
          case Arith::max:
            return std::max(v[0], v[1]);
          }
          return 0;
        },
        [k](AD v) -> double {
          switch (k) {
          case Arith::add:
            return v[0] + v[1];
          case Arith::sub:
            return v[0] - v[1];
          case Arith::mul:
            return v[0] * v[1];
          case Arith::div:
            return v[0] / v[1];
          case Arith::min:
            return std::min(v[0], v[1]);
          case Arith::max:
            return std::max(v[0], v[1]);
          }
          return 0;
        });
  };
}

/// Mod of two literals of one type. fmod=0 (integers only) gives the
/// divisor's sign, as Python's %; fmod=1 the dividend's, as C's fmod. An
/// integer remainder by 0 is 0, as the integer Div's quotient is.
Lit foldMod(Importer &im, Literals L) {
  const rt::HostTensor &x = *L[0];
  if (L.size() != 2 || !L[1] || L[1]->dtype != x.dtype)
    return nullptr;
  bool cStyle = im.attrInt("fmod", 0) != 0;
  if (dlcir::isFloat(x.dtype) && !cStyle)
    return nullptr;
  return map(
      {&x, L[1]}, x.dtype,
      [cStyle](AI v) -> int64_t {
        // INT64_MIN % -1 overflows in C++; its remainder is 0.
        if (v[1] == 0 || v[1] == -1)
          return 0;
        int64_t r = v[0] % v[1];
        if (!cStyle && r != 0 && ((r < 0) != (v[1] < 0)))
          r += v[1];
        return r;
      },
      [](AD v) -> double { return std::fmod(v[0], v[1]); });
}

enum class Predicate { eq, lt, gt, le, ge, logicalAnd, logicalOr };

/// Comparisons and logical And/Or of two literals of one type: a bool
/// literal.
OpFolder predicate(Predicate k) {
  return [k](Importer &, Literals L) -> Lit {
    const rt::HostTensor &x = *L[0];
    if (L.size() != 2 || !L[1] || L[1]->dtype != x.dtype)
      return nullptr;
    // One predicate for integer and floating-point operands.
    auto holds = [k](auto a, auto b) -> bool {
      switch (k) {
      case Predicate::eq:
        return a == b;
      case Predicate::lt:
        return a < b;
      case Predicate::gt:
        return a > b;
      case Predicate::le:
        return a <= b;
      case Predicate::ge:
        return a >= b;
      case Predicate::logicalAnd:
        return a != 0 && b != 0;
      case Predicate::logicalOr:
        return a != 0 || b != 0;
      }
      return false;
    };
    auto cmpI = [&](AI v) -> int64_t { return holds(v[0], v[1]); };
    auto cmpD = [&](AD v) -> double { return holds(v[0], v[1]); };
    return map({&x, L[1]}, rt::DType::I1, cmpI, cmpD);
  };
}

Lit foldWhere(Importer &, Literals L) {
  const rt::HostTensor &x = *L[0];
  if (L.size() != 3 || !L[1] || !L[2] || L[1]->dtype != L[2]->dtype)
    return nullptr;
  return map(
      {&x, L[1], L[2]}, L[1]->dtype, [](AI v) { return v[0] ? v[1] : v[2]; },
      [](AD v) { return v[0] != 0 ? v[1] : v[2]; });
}

//===----------------------------------------------------------------------===//
// Data movement folders
//===----------------------------------------------------------------------===//

Lit foldExpand(Importer &, Literals L) {
  const rt::HostTensor &x = *L[0];
  if (L.size() != 2 || !L[1] || dlcir::isFloat(L[1]->dtype))
    return nullptr;
  std::vector<int64_t> shape = litInts(*L[1]);
  // (foldMap checks the broadcast shape.)
  auto n = checkedProduct(shape);
  if (!n || *n > (1 << 16))
    return nullptr;
  return foldMap(
      {&x}, x.dtype, shape, [](AI v) { return v[0]; },
      [](AD v) { return v[0]; });
}

Lit foldConcat(Importer &im, Literals L) {
  const rt::HostTensor &x = *L[0];
  int64_t rank = x.shape.size();
  int64_t a = im.attrInt("axis", 0);
  if (a < 0)
    a += rank;
  if (a < 0 || a >= rank)
    return nullptr;
  std::vector<int64_t> shape = x.shape;
  shape[a] = 0;
  for (const rt::HostTensor *t : L) {
    if (!t || t->dtype != x.dtype || t->shape.size() != x.shape.size())
      return nullptr;
    for (int64_t d = 0; d < rank; ++d)
      if (d != a && t->shape[d] != x.shape[d])
        return nullptr;
    auto sum = checkedAdd(shape[a], t->shape[a]);
    if (!sum)
      return nullptr;
    shape[a] = *sum;
  }
  if (!checkShape(shape, rt::dtypeSize(x.dtype), kMaxFoldElements).empty())
    return nullptr;
  rt::HostTensor out(x.dtype, shape);
  int64_t outer = product(ArrayRef<int64_t>(shape).take_front(a));
  int64_t inner = product(ArrayRef<int64_t>(shape).drop_front(a + 1)) *
                  rt::dtypeSize(x.dtype);
  size_t pos = 0;
  for (int64_t o = 0; o < outer; ++o)
    for (const rt::HostTensor *t : L) {
      size_t chunk = t->shape[a] * inner;
      if (chunk)
        std::memcpy(out.data.data() + pos, t->data.data() + o * chunk, chunk);
      pos += chunk;
    }
  return makeLit(std::move(out));
}

/// A transposed literal. A stored weight (an initializer of its own) stays
/// as it is and is transposed by the IR: a copy here would store it twice
/// when the model also reads it untransposed (tied embeddings).
Lit foldTranspose(Importer &im, Literals L) {
  const rt::HostTensor &x = *L[0];
  if (dlcir::isFloat(x.dtype) && !im.ins[0]->name.empty())
    return nullptr;
  int64_t rank = x.shape.size();
  std::optional<SmallVector<int64_t>> given = im.transposePerm(rank);
  if (!given)
    return nullptr;
  ArrayRef<int64_t> perm = *given;
  std::vector<int64_t> shape(rank), stride(rank, 1);
  for (int64_t d = rank - 1; d > 0; --d)
    stride[d - 1] = stride[d] * x.shape[d];
  for (int64_t d = 0; d < rank; ++d)
    shape[d] = x.shape[perm[d]];
  rt::HostTensor out(x.dtype, shape);
  size_t elem = rt::dtypeSize(x.dtype);
  size_t count = elem ? out.data.size() / elem : 0;
  // Walks the result in order, the source's offset following the
  // permuted strides.
  std::vector<int64_t> at(rank, 0);
  for (size_t i = 0; i < count; ++i) {
    int64_t from = 0;
    for (int64_t d = 0; d < rank; ++d)
      from += at[d] * stride[perm[d]];
    std::memcpy(out.data.data() + i * elem, x.data.data() + from * elem, elem);
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++at[d] < shape[d])
        break;
      at[d] = 0;
    }
  }
  return makeLit(std::move(out));
}

/// ScatterND (no reduction) of literals: a copy of the data with the
/// slices the index tuples name replaced by the updates, in order (a later
/// update of one slice wins, as the reference implementation's loop does).
Lit foldScatterND(Importer &im, Literals L) {
  if (L.size() != 3 || !L[1] || !L[2] || dlcir::isFloat(L[1]->dtype) ||
      L[2]->dtype != L[0]->dtype)
    return nullptr;
  if (im.attrStr("reduction", "none") != "none")
    return nullptr;
  const rt::HostTensor &x = *L[0], &ix = *L[1], &up = *L[2];
  int64_t rank = x.shape.size(), ir = ix.shape.size();
  if (ir < 1)
    return nullptr;
  int64_t depth = ix.shape.back();
  if (depth < 1 || depth > rank)
    return nullptr;
  // updates: indices.shape[:-1] + data.shape[depth:].
  std::vector<int64_t> want(ix.shape.begin(), ix.shape.end() - 1);
  want.insert(want.end(), x.shape.begin() + depth, x.shape.end());
  if (up.shape != want)
    return nullptr;
  int64_t slice = product(ArrayRef<int64_t>(x.shape).drop_front(depth));
  size_t elem = rt::dtypeSize(x.dtype);
  std::vector<int64_t> idx = litInts(ix);
  int64_t tuples = depth ? int64_t(idx.size()) / depth : 0;
  rt::HostTensor out(x.dtype, x.shape);
  out.data = x.data;
  for (int64_t t = 0; t < tuples; ++t) {
    int64_t at = 0;
    for (int64_t d = 0; d < depth; ++d) {
      int64_t i = idx[t * depth + d], size = x.shape[d];
      if (i < 0)
        i += size;
      if (i < 0 || i >= size)
        return nullptr;
      at = at * size + i;
    }
    if (slice)
      std::memcpy(out.data.data() + at * slice * elem,
                  up.data.data() + t * slice * elem, slice * elem);
  }
  return makeLit(std::move(out));
}

Lit foldGather(Importer &im, Literals L) {
  const rt::HostTensor &x = *L[0];
  if (L.size() != 2 || !L[1] || dlcir::isFloat(L[1]->dtype))
    return nullptr;
  int64_t rank = x.shape.size();
  int64_t a = im.attrInt("axis", 0);
  if (a < 0)
    a += rank;
  if (a < 0 || a >= rank)
    return nullptr;
  std::vector<int64_t> idx = litInts(*L[1]);
  std::vector<int64_t> shape(x.shape.begin(), x.shape.begin() + a);
  shape.insert(shape.end(), L[1]->shape.begin(), L[1]->shape.end());
  shape.insert(shape.end(), x.shape.begin() + a + 1, x.shape.end());
  if (!checkShape(shape, rt::dtypeSize(x.dtype), kMaxFoldElements).empty())
    return nullptr;
  rt::HostTensor out(x.dtype, shape);
  int64_t outer = product(ArrayRef<int64_t>(x.shape).take_front(a));
  int64_t inner = product(ArrayRef<int64_t>(x.shape).drop_front(a + 1)) *
                  rt::dtypeSize(x.dtype);
  int64_t d = x.shape[a];
  size_t pos = 0;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i : idx) {
      if (i < 0)
        i += d;
      if (i < 0 || i >= d)
        return nullptr;
      if (inner)
        std::memcpy(out.data.data() + pos, x.data.data() + (o * d + i) * inner,
                    inner);
      pos += inner;
    }
  return makeLit(std::move(out));
}

Lit foldSlice(Importer &, Literals L) {
  const rt::HostTensor &x = *L[0];
  if (L.size() < 3 || !L[1] || !L[2])
    return nullptr;
  std::vector<int64_t> axes, steps;
  if (L.size() > 3 && L[3])
    axes = litInts(*L[3]);
  if (L.size() > 4 && L[4])
    steps = litInts(*L[4]);
  std::string err;
  auto s = sliceDims(x.shape, litInts(*L[1]), litInts(*L[2]), axes, steps, err);
  if (!s)
    return nullptr;
  rt::HostTensor out(x.dtype, s->size);
  int64_t rank = x.shape.size(), n = out.numElements();
  size_t es = rt::dtypeSize(x.dtype);
  std::vector<int64_t> strides(rank, 1);
  for (int64_t d = rank - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * x.shape[d + 1];
  std::vector<int64_t> idx(rank, 0);
  for (int64_t e = 0; e < n; ++e) {
    int64_t off = 0;
    for (int64_t d = 0; d < rank; ++d)
      off += (s->start[d] + idx[d] * s->step[d]) * strides[d];
    std::memcpy(out.data.data() + e * es, x.data.data() + off * es, es);
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++idx[d] < s->size[d])
        break;
      idx[d] = 0;
    }
  }
  return makeLit(std::move(out));
}

//===----------------------------------------------------------------------===//
// Ops whose result is always a literal
//===----------------------------------------------------------------------===//

LogicalResult convertConstant(Importer &im) {
  if (const auto *a = im.attr("value")) {
    auto t = im.decode(a->t());
    if (!t)
      return im.unsupported(t.message());
    im.setOutLit(0, makeLit(t.take()));
  } else if (const auto *a = im.attr("value_float")) {
    rt::HostTensor t(rt::DType::F32, {});
    t.setFromDouble(0, a->f());
    im.setOutLit(0, makeLit(std::move(t)));
  } else if (const auto *a = im.attr("value_floats")) {
    rt::HostTensor t(rt::DType::F32, {(int64_t)a->floats_size()});
    for (int i = 0; i < a->floats_size(); ++i)
      t.setFromDouble(i, a->floats(i));
    im.setOutLit(0, makeLit(std::move(t)));
  } else if (const auto *a = im.attr("value_int")) {
    im.setOutLit(0, intLit({a->i()}, {}));
  } else if (const auto *a = im.attr("value_ints")) {
    std::vector<int64_t> v(a->ints().begin(), a->ints().end());
    im.setOutLit(0, intLit(v, {(int64_t)v.size()}));
  } else {
    return im.unsupported("only tensor, float(s) and int(s) constants are "
                          "supported");
  }
  return success();
}

LogicalResult convertConstantOfShape(Importer &im) {
  auto shape = im.constInts(0, "shape");
  if (failed(shape))
    return failure();
  rt::HostTensor value(rt::DType::F32, {1});
  if (const auto *a = im.attr("value")) {
    auto t = im.decode(a->t());
    if (!t)
      return im.unsupported(t.message());
    if (t->numElements() != 1)
      return im.unsupported("the value must have one element");
    value = t.take();
  }
  Type elem = dlcir::elementTypeOf(im.ctx, value.dtype);
  if (failed(im.checkType(*shape, elem, "the output")))
    return failure();
  if (*checkedProduct(*shape) > kMaxFoldElements) {
    // Too big for a literal: a splat constant, never materialized.
    im.setOut(0, im.splatConstant(*shape, elem, litDouble(value, 0)));
    return success();
  }
  rt::HostTensor out(value.dtype, *shape);
  size_t es = rt::dtypeSize(value.dtype);
  for (int64_t i = 0; i < out.numElements(); ++i)
    std::memcpy(out.data.data() + i * es, value.data.data(), es);
  im.setOutLit(0, makeLit(std::move(out)));
  return success();
}

LogicalResult convertRange(Importer &im) {
  const rt::HostTensor *s = im.lit(0), *l = im.lit(1), *d = im.lit(2);
  if (!s || !l || !d || s->numElements() != 1 || l->numElements() != 1 ||
      d->numElements() != 1)
    return im.unsupported("start, limit and delta must be constant scalars");
  rt::DType dt = s->dtype;
  double start = litDouble(*s, 0), limit = litDouble(*l, 0),
         delta = litDouble(*d, 0);
  if (!std::isfinite(start) || !std::isfinite(limit) || !std::isfinite(delta))
    return im.unsupported("start, limit and delta must be finite");
  if (delta == 0)
    return im.unsupported("delta must not be 0");
  double count = std::ceil((limit - start) / delta);
  if (!(count <= (double)kMaxLiteralElements))
    return im.unsupported("the range from " + Twine(std::to_string(start)) +
                          " to " + std::to_string(limit) + " by " +
                          std::to_string(delta) + " has more than the " +
                          Twine(kMaxLiteralElements) +
                          " elements the importer computes at import time");
  int64_t n = std::max<int64_t>(0, (int64_t)count);
  rt::HostTensor out(dt, {n});
  if (dlcir::isFloat(dt)) {
    for (int64_t i = 0; i < n; ++i)
      out.setFromDouble(i, start + i * delta);
  } else {
    int64_t s0 = litInt(*s, 0), d0 = litInt(*d, 0);
    for (int64_t i = 0; i < n; ++i)
      litSetInt(out, i, wrapAdd(s0, wrapMul(i, d0)));
  }
  im.setOutLit(0, makeLit(std::move(out)));
  return success();
}

LogicalResult convertShape(Importer &im) {
  auto tx = im.inType(0);
  ArrayRef<int64_t> xs = tx.getShape();
  int64_t rank = tx.getRank();
  int64_t start = im.attrInt("start", 0), end = im.attrInt("end", rank);
  if (start < 0)
    start += rank;
  if (end < 0)
    end += rank;
  start = std::clamp<int64_t>(start, 0, rank);
  end = std::clamp<int64_t>(end, start, rank);
  std::vector<int64_t> v(xs.begin() + start, xs.begin() + end);
  im.setOutLit(0, intLit(v, {(int64_t)v.size()}));
  return success();
}

LogicalResult convertSize(Importer &im) {
  im.setOutLit(0, intLit({im.inType(0).getNumElements()}, {}));
  return success();
}

} // namespace

void registerShapeFolding(OpRegistry &registry) {
  auto fold = [&](StringRef name, OpFolder folder) {
    registry.onFold(name, kMinOpset, std::move(folder));
  };
  // An Identity of a literal is that literal, shared.
  fold("Identity", [](Importer &im, Literals) { return im.ins[0]->lit; });
  fold("Cast", foldCast);
  fold("Neg", foldNeg);
  fold("Abs", foldAbs);
  fold("Not", foldNot);
  fold("Sqrt", floatUnary([](double v) { return std::sqrt(v); }));
  fold("Floor", floatUnary([](double v) { return std::floor(v); }));
  fold("Ceil", floatUnary([](double v) { return std::ceil(v); }));
  fold("Add", arithmetic(Arith::add));
  fold("Sub", arithmetic(Arith::sub));
  fold("Mul", arithmetic(Arith::mul));
  fold("Div", arithmetic(Arith::div));
  fold("Min", arithmetic(Arith::min));
  fold("Max", arithmetic(Arith::max));
  fold("Mod", foldMod);
  fold("Equal", predicate(Predicate::eq));
  fold("Less", predicate(Predicate::lt));
  fold("Greater", predicate(Predicate::gt));
  fold("LessOrEqual", predicate(Predicate::le));
  fold("GreaterOrEqual", predicate(Predicate::ge));
  fold("And", predicate(Predicate::logicalAnd));
  fold("Or", predicate(Predicate::logicalOr));
  fold("Where", foldWhere);
  fold("Expand", foldExpand);
  fold("Concat", foldConcat);
  fold("Gather", foldGather);
  fold("Slice", foldSlice);
  fold("Transpose", foldTranspose);
  fold("ScatterND", foldScatterND);

  registry.onOp("Constant", kMinOpset, convertConstant,
                /*requiredInputs=*/0);
  registry.onOp("ConstantOfShape", kMinOpset, convertConstantOfShape);
  registry.onOp("Range", kMinOpset, convertRange, /*requiredInputs=*/3);
  registry.onOp("Shape", kMinOpset, convertShape);
  registry.onOp("Size", kMinOpset, convertSize);
}

} // namespace dlc::onnximport
