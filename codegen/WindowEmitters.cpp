//===- WindowEmitters.cpp - Convolution, pooling and im2col in kernels ----===//
//
// Each output element of a window op folds the input over the window
// positions around it: conv2d, conv_transpose2d and pool2d share one window
// loop (windowLoop) and differ in which input positions a window position
// reads and how they are combined. Positions outside the input (padding) are
// skipped by a guard, statically where the index is a literal.
//
//===----------------------------------------------------------------------===//
#include "codegen/KernelEmitter.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <fmt/format.h>

#include <cmath>

using namespace mlir;
using namespace mlir::dlc;

std::string KernelEmitter::windowLoop(
    const std::string &init, ArrayRef<int64_t> sizes,
    llvm::function_ref<
        std::optional<SmallVector<std::string>>(ArrayRef<std::string>)>
        guard,
    llvm::function_ref<std::string(ArrayRef<std::string>, const std::string &)>
        accumulate) {
  std::string acc = fresh("acc");
  line(cur, fmt::format("float {} = {};", acc, init));
  declare(cur, acc);
  Scope *parent = cur;
  SmallVector<std::string> vars;
  Scope *loop = openLoops(sizes, vars);
  cur = loop;
  if (auto conds = guard(vars)) {
    Scope *body = loop;
    if (!conds->empty())
      body =
          openScope(loop, fmt::format("if ({}) {{", llvm::join(*conds, " && ")),
                    /*barrier=*/true);
    cur = body;
    line(body, accumulate(vars, acc));
    if (body != loop)
      closeScope(body);
  }
  cur = parent;
  if (loop != parent)
    closeScope(loop);
  return acc;
}

/// `acc += x * f;`: a convolution's step.
static std::string multiplyAdd(const std::string &acc, const std::string &x,
                               const std::string &f) {
  return fmt::format("{} += {} * {};", acc, x, f);
}

/// A convolution's f32 accumulator rounded once to its result type.
std::string KernelEmitter::roundAccumulator(rt::DType e,
                                            const std::string &acc) {
  if (e != rt::DType::F32)
    line(cur, fmt::format("{} = {};", acc, roundTo(e, acc)));
  return acc;
}

std::string KernelEmitter::computeIm2Col(Im2ColOp op,
                                         ArrayRef<std::string> idx) {
  rt::DType e = dtypeOfValue(op.getResult());
  ArrayRef<int64_t> in = shapeOf(op.getInput());
  ArrayRef<int64_t> k = op.getKernel(), s = op.getStrides(), p = op.getPads(),
                    d = op.getDilations();
  int64_t cg = in[1] / op.getGroups();
  int64_t ow = (in[3] + p[1] + p[3] - d[1] * (k[1] - 1) - 1) / s[1] + 1;
  std::string c = ixDiv(idx[2], k[0] * k[1]);
  std::string a = ixMod(ixDiv(idx[2], k[1]), k[0]);
  std::string b = ixMod(idx[2], k[1]);
  std::string y = ixDiv(idx[3], ow), z = ixMod(idx[3], ow);
  std::string ch = ixAffine({{idx[1], cg}, {c, 1}}, 0);
  std::string h = ixAffine({{y, s[0]}, {a, d[0]}}, -p[0]);
  std::string w = ixAffine({{z, s[1]}, {b, d[1]}}, -p[1]);
  auto conds = inBounds({h, w}, {-p[0], -p[1]}, in.drop_front(2));
  if (!conds)
    return zeroLiteral(e);
  if (conds->empty())
    return val(op.getInput(), {idx[0], ch, h, w});
  return guarded(e, *conds, zeroLiteral(e), [&] {
    return val(op.getInput(), {idx[0], ch, h, w});
  });
}

std::string KernelEmitter::computeConv2D(Conv2DOp op,
                                         ArrayRef<std::string> idx) {
  rt::DType e = dtypeOfValue(op.getResult());
  ArrayRef<int64_t> in = shapeOf(op.getInput());
  ArrayRef<int64_t> wShape = shapeOf(op.getFilter());
  ArrayRef<int64_t> s = op.getStrides(), p = op.getPads(),
                    d = op.getDilations();
  int64_t ocg = wShape[0] / op.getGroups(), cg = wShape[1];
  std::string g = ixDiv(idx[1], ocg);
  std::string ch, h, w;
  std::string acc = windowLoop(
      "0.0f", {cg, wShape[2], wShape[3]},
      [&](ArrayRef<std::string> v) {
        ch = ixAffine({{g, cg}, {v[0], 1}}, 0);
        h = ixAffine({{idx[2], s[0]}, {v[1], d[0]}}, -p[0]);
        w = ixAffine({{idx[3], s[1]}, {v[2], d[1]}}, -p[1]);
        return inBounds({h, w}, {-p[0], -p[1]}, in.drop_front(2));
      },
      [&](ArrayRef<std::string> v, const std::string &acc) {
        std::string x = val(op.getInput(), {idx[0], ch, h, w});
        std::string f = val(op.getFilter(), {idx[1], v[0], v[1], v[2]});
        return multiplyAdd(acc, x, f);
      });
  return roundAccumulator(e, acc);
}

std::string KernelEmitter::computeConvTranspose2D(ConvTranspose2DOp op,
                                                  ArrayRef<std::string> idx) {
  rt::DType e = dtypeOfValue(op.getResult());
  ArrayRef<int64_t> in = shapeOf(op.getInput());
  ArrayRef<int64_t> wShape = shapeOf(op.getFilter());
  ArrayRef<int64_t> s = op.getStrides(), p = op.getPads(),
                    d = op.getDilations();
  int64_t ocg = wShape[1], cg = in[1] / op.getGroups();
  std::string g = ixDiv(idx[1], ocg), o = ixMod(idx[1], ocg);
  SmallVector<std::string> src;
  std::string acc = windowLoop(
      "0.0f", {cg, wShape[2], wShape[3]},
      [&](ArrayRef<std::string> v) -> std::optional<SmallVector<std::string>> {
        // Output row y receives input row i from kernel row a when
        // y = i*s - top + a*d, i.e. i = (y + top - a*d) / s where that
        // divides.
        SmallVector<std::string> conds;
        bool never = false;
        for (int dim = 0; dim < 2; ++dim) {
          int64_t k = wShape[2 + dim], size = in[2 + dim];
          std::string t =
              ixAffine({{idx[2 + dim], 1}, {v[1 + dim], -d[dim]}}, p[dim]);
          if (isLit(t)) {
            int64_t tv = litVal(t);
            if (tv < 0 || tv % s[dim] != 0 || tv / s[dim] >= size)
              never = true;
            src.push_back(lit(tv < 0 ? 0 : tv / s[dim]));
            continue;
          }
          if (p[dim] - (k - 1) * d[dim] < 0)
            conds.push_back(fmt::format("{} >= 0", t));
          if (s[dim] > 1)
            conds.push_back(fmt::format("{} % {} == 0", t, s[dim]));
          std::string i = ixDiv(t, s[dim]);
          if (boundOf(i) > size)
            conds.push_back(fmt::format("{} < {}", i, size));
          src.push_back(i);
        }
        if (never)
          return std::nullopt;
        return conds;
      },
      [&](ArrayRef<std::string> v, const std::string &acc) {
        std::string ch = ixAffine({{g, cg}, {v[0], 1}}, 0);
        std::string x = val(op.getInput(), {idx[0], ch, src[0], src[1]});
        std::string f = val(op.getFilter(), {ch, o, v[1], v[2]});
        return multiplyAdd(acc, x, f);
      });
  return roundAccumulator(e, acc);
}

std::string KernelEmitter::computePool2D(Pool2DOp op,
                                         ArrayRef<std::string> idx) {
  rt::DType e = dtypeOfValue(op.getResult());
  ArrayRef<int64_t> in = shapeOf(op.getInput());
  ArrayRef<int64_t> out = shapeOf(op.getResult());
  ArrayRef<int64_t> k = op.getKernel(), s = op.getStrides(), p = op.getPads();
  SmallVector<int64_t, 2> d = op.getDilationValues();
  bool isMax = op.getKind() == PoolKind::max;
  std::string h, w;
  std::string acc = windowLoop(
      isMax ? floatLiteral(-INFINITY) : "0.0f", {k[0], k[1]},
      [&](ArrayRef<std::string> v) {
        h = ixAffine({{idx[2], s[0]}, {v[0], d[0]}}, -p[0]);
        w = ixAffine({{idx[3], s[1]}, {v[1], d[1]}}, -p[1]);
        return inBounds({h, w}, {-p[0], -p[1]}, in.drop_front(2));
      },
      [&](ArrayRef<std::string>, const std::string &acc) {
        std::string x = val(op.getInput(), {idx[0], idx[1], h, w});
        return isMax ? fmt::format("{0} = fmaxf({0}, {1});", acc, x)
                     : fmt::format("{} += {};", acc, x);
      });
  if (isMax)
    return acc;
  // The divisor of each output row and column, computed here once: the
  // window positions inside the input (or the padded input).
  bool includePad = op.getCountIncludePad();
  SmallVector<std::string> factors;
  for (int dim = 0; dim < 2; ++dim) {
    int64_t lo = includePad ? -p[dim] : 0;
    int64_t hi = in[2 + dim] + (includePad ? p[dim + 2] : 0);
    SmallVector<int64_t> counts;
    SmallVector<std::string> text;
    for (int64_t o = 0; o < out[2 + dim]; ++o) {
      int64_t n = 0;
      for (int64_t a = 0; a < k[dim]; ++a) {
        int64_t y = o * s[dim] - p[dim] + a * d[dim];
        n += y >= lo && y < hi;
      }
      counts.push_back(n);
      text.push_back(std::to_string(n));
    }
    if (llvm::all_equal(counts)) {
      factors.push_back(lit(counts.empty() ? 1 : counts.front()));
      continue;
    }
    std::string table = constTable("int", text);
    factors.push_back(ixLookup(table, counts, idx[2 + dim], k[dim] + 1));
  }
  std::string count =
      isLit(factors[0]) && isLit(factors[1])
          ? floatLiteral(float(litVal(factors[0]) * litVal(factors[1])))
          : fmt::format("(float)({} * {})", factors[0], factors[1]);
  return def(e, roundTo(e, fmt::format("{} / {}", acc, count)));
}
