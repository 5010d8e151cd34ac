//===- RowEmitter.cpp - One warp or block per row -------------------------===//
//
// The Row template: the iteration space is rows of the plan's row shape; a
// warp (rows up to 1024 elements) or a block handles one row at a time, and
// each row reduction is computed once per row cooperatively (warp shuffles,
// then shared memory across warps) and read by everything after it at the
// row's own index. Inputs read by several passes over a short row are kept
// in registers; a softmax over a long row computes its maximum and sum in
// one pass (online softmax).
//
//===----------------------------------------------------------------------===//
#include "codegen/KernelEmitter.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <fmt/format.h>

using namespace mlir;
using namespace mlir::dlc;

namespace {

constexpr int64_t kWarpRowBlock = 128;
/// The most elements of cached rows each thread keeps in registers (all
/// cached inputs together).
constexpr int64_t kMaxRowCacheItems = 32;

class RowEmitter : public KernelEmitter {
public:
  RowEmitter(KernelOp kernel, const KernelPlan &plan, unsigned number)
      : KernelEmitter(kernel, plan, number) {}

private:
  void emitTemplate(EmittedKernel &out) override;
  std::string describeTemplate() const override {
    return fmt::format("row, {} rows of {}", plan.numRows(), plan.rowLength());
  }
  bool usesBarriers() const override { return true; }
  std::optional<std::string> precomputed(Value v,
                                         ArrayRef<std::string> idx) override;
  std::optional<std::string> readArgument(BlockArgument arg,
                                          ArrayRef<std::string> idx) override;

  /// Chooses the inputs whose rows are cached in registers (rowCache).
  void planRowCache();
  bool onlyReadAtRowIndex(Value v, DenseMap<Value, bool> &memo);
  /// A loop over the row: with cached rows, over the thread's items
  /// (unrolled, so the caches stay in registers); otherwise a strided loop.
  /// Returns the scope that holds the body and the inner index variables
  /// through `inner`; close it with closeRowLoop.
  Scope *openRowLoop(int64_t length, ArrayRef<int64_t> shape,
                     SmallVector<std::string> &inner,
                     std::string *position = nullptr);
  void closeRowLoop(Scope *body);
  /// Opens a loop over the row (its body: `loop`) and reads `input` there,
  /// at the row's position `inner`.
  std::string readRowItem(Value input, Scope *&loop,
                          SmallVector<std::string> &inner);
  /// The softmax statistics `max` and `sum` of the row in one pass.
  void emitOnlineSoftmax(Value input, Operation *max, Operation *sum);
  void emitReduce(ReduceOp reduce);
  LogicalResult emitArgMax(ArgMaxOp argmax);
  void emitWarpCombine(Scope *s, ReduceKind kind, rt::DType e,
                       const std::string &acc);
  void emitOutputs();

  // The layout: rows of `space` = [outer..., inner...], each handled by a
  // warp (warpPerRow) or a block of blockDim threads stepping by `stride`.
  ArrayRef<int64_t> space, outerShape, innerShape;
  size_t numOuter = 0;
  int64_t rows = 0, rowLength = 0, blockDim = 0, numWarps = 0, stride = 0;
  bool warpPerRow = true;
  /// The thread's position in the row: "lane" or "tid".
  std::string laneVar;
  Scope *top = nullptr, *rowScope = nullptr;
  /// The row's elements per thread, and whether some inputs' rows are
  /// cached in registers.
  int64_t items = 0;
  bool cacheRows = false;

  /// The outer index of the row and the per-row reduction results.
  SmallVector<std::string> outerIdx;
  DenseMap<Operation *, std::string> rowVars;
  /// Kernel inputs whose row is loaded into registers once (argument
  /// number -> per-thread array), and, inside a loop over the row's items,
  /// the item variable and the loop's inner index.
  DenseMap<unsigned, std::string> rowCache;
  std::string rowItem;
  SmallVector<std::string> rowItemInner;
};

} // namespace

std::optional<std::string> RowEmitter::precomputed(Value v,
                                                   ArrayRef<std::string> idx) {
  Operation *def = v.getDefiningOp();
  if (!def)
    return std::nullopt;
  auto it = rowVars.find(def);
  if (it != rowVars.end() &&
      llvm::equal(idx.take_front(outerIdx.size()), outerIdx))
    return it->second;
  return std::nullopt;
}

std::optional<std::string> RowEmitter::readArgument(BlockArgument arg,
                                                    ArrayRef<std::string> idx) {
  // An input whose row sits in registers.
  if (rowItem.empty() || shapeOf(arg) != space)
    return std::nullopt;
  auto cached = rowCache.find(arg.getArgNumber());
  if (cached != rowCache.end() &&
      idx.take_front(outerIdx.size()) == ArrayRef<std::string>(outerIdx) &&
      idx.drop_front(outerIdx.size()) == ArrayRef<std::string>(rowItemInner))
    return fmt::format("{}[{}]", cached->second, rowItem);
  return std::nullopt;
}

void RowEmitter::emitTemplate(EmittedKernel &out) {
  space = plan.space;
  numOuter = space.size() - plan.numInnerDims;
  outerShape = space.take_front(numOuter);
  innerShape = space.drop_front(numOuter);
  rows = plan.numRows();
  rowLength = plan.rowLength();
  warpPerRow = rowLength <= 1024;
  blockDim = warpPerRow ? kWarpRowBlock : rowLength <= 4096 ? 256 : 512;
  numWarps = blockDim / 32;
  stride = warpPerRow ? 32 : blockDim;
  laneVar = warpPerRow ? "lane" : "tid";

  // The row loop's increment may take a row index to about twice the row
  // count: past 2^30 rows that needs 64 bits.
  if (rows >= (int64_t(1) << 30))
    idxType = "long long";

  top = root.get();
  line(top, "const int lane = threadIdx.x & 31;");
  declare(top, "lane", 32);
  if (warpPerRow) {
    int64_t rowsPerBlock = blockDim / 32;
    int64_t blocks = (rows + rowsPerBlock - 1) / rowsPerBlock;
    // At most rt::kMaxLaunchThreads threads a launch; the loop takes the
    // rest.
    out.grid[0] = std::max<int64_t>(
        1, std::min(blocks, int64_t(rt::kMaxLaunchThreads) / blockDim));
    rowScope = openScope(
        top,
        fmt::format("for ({0} row = ({0})blockIdx.x * {1} + ({0})(threadIdx.x "
                    ">> 5); row < {2}; row += ({0})gridDim.x * {1}) {{",
                    idxType, rowsPerBlock, rows),
        /*barrier=*/true);
  } else {
    // A block per row, at most rt::kMaxLaunchThreads threads a launch.
    if (rows > int64_t(rt::kMaxLaunchThreads) / blockDim) {
      fail(kernel, "has " + Twine(rows) + " rows of " + Twine(rowLength) +
                       " elements, a block of " + Twine(blockDim) +
                       " threads each; a launch may have at most 2^31 - 1 "
                       "threads");
      return;
    }
    out.grid[0] = std::max<int64_t>(1, rows);
    line(top, "const int tid = threadIdx.x;");
    line(top, "const int warp = threadIdx.x >> 5;");
    declare(top, "tid", blockDim);
    declare(top, "warp", numWarps);
    rowScope = openScope(top, "{", /*barrier=*/true);
    line(rowScope, fmt::format("const {} row = blockIdx.x;", idxType));
  }
  out.block[0] = blockDim;
  declare(rowScope, "row", rows);
  cur = rowScope;
  outerIdx = declareIndex(rowScope, "row", outerShape, "o");

  planRowCache();
  // The loads into the caches: the only reads of those rows from memory.
  for (auto &[argNumber, cacheName] : rowCache) {
    BlockArgument arg = kernel.getBodyBlock().getArgument(argNumber);
    line(rowScope, fmt::format("{} {}[{}];", cudaComputeType(dtypeOfValue(arg)),
                               cacheName, items));
  }
  if (cacheRows) {
    SmallVector<std::string> inner;
    Scope *loop = openRowLoop(rowLength, innerShape, inner);
    std::string t = rowItem;
    rowItem.clear(); // these are the loads themselves
    cur = loop;
    SmallVector<std::string> idx(outerIdx);
    idx.append(inner);
    SmallVector<unsigned> order;
    for (auto &entry : rowCache)
      order.push_back(entry.first);
    llvm::sort(order);
    for (unsigned argNumber : order) {
      BlockArgument arg = kernel.getBodyBlock().getArgument(argNumber);
      line(loop, fmt::format("{}[{}] = {};", rowCache[argNumber], t,
                             loadArgument(arg, idx)));
    }
    cur = rowScope;
    closeRowLoop(loop);
  }

  // Rows too long for the register cache: a softmax's max and sum of
  // exp(x - max) are computed in one pass (online softmax: the running sum
  // is rescaled whenever the running maximum grows), so the row is read
  // twice (statistics, outputs) instead of three times.
  DenseMap<Operation *, Operation *> onlinePairs; // max -> sum
  llvm::SmallPtrSet<Operation *, 4> onlineSums;
  if (!cacheRows) {
    for (Operation *red : plan.rowReductions) {
      auto sum = dyn_cast<ReduceOp>(red);
      if (!sum || sum.getKind() != ReduceKind::sum)
        continue;
      auto exp = sum.getInput().getDefiningOp<ExpOp>();
      auto sub = exp ? exp.getOperand().getDefiningOp<SubOp>() : SubOp();
      auto max = sub ? sub.getRhs().getDefiningOp<ReduceOp>() : ReduceOp();
      if (!max || max.getKind() != ReduceKind::max ||
          max.getInput() != sub.getLhs() ||
          !llvm::is_contained(plan.rowReductions, max.getOperation()) ||
          onlinePairs.count(max) ||
          dtypeOfValue(sum.getResult()) != rt::DType::F32 ||
          dtypeOfValue(max.getResult()) != rt::DType::F32 ||
          dtypeOfValue(exp.getResult()) != rt::DType::F32 ||
          shapeOf(sub.getResult()) != space)
        continue;
      onlinePairs[max] = sum;
      onlineSums.insert(sum);
    }
  }

  for (Operation *red : plan.rowReductions) {
    Value input = red->getOperand(0);
    if (shapeOf(input) != space) {
      fail(red, "is planned as a row reduction but its input does not have "
                "the row shape");
      return;
    }
    if (onlineSums.contains(red))
      continue; // computed with its maximum
    if (auto pair = onlinePairs.find(red); pair != onlinePairs.end())
      emitOnlineSoftmax(input, red, pair->second);
    else if (auto reduce = dyn_cast<ReduceOp>(red))
      emitReduce(reduce);
    else if (failed(emitArgMax(cast<ArgMaxOp>(red))))
      return;
  }
  emitOutputs();
}

void RowEmitter::planRowCache() {
  // Inputs read at the row index by more than one pass over the row
  // (reductions, then the outputs) are loaded into registers once, so the
  // kernel reads its row from memory once: every pass over the row then
  // runs as the same fully unrolled loop over the thread's items.
  items = (rowLength + stride - 1) / stride;
  // (Rows of one element have no inner index variable to keep the cached
  // reads inside the loops, and nothing to gain.)
  if (!plan.rowReductions.empty() && rowLength > 1 &&
      items <= kMaxRowCacheItems) {
    int64_t budget = kMaxRowCacheItems;
    DenseMap<Value, bool> memo;
    for (BlockArgument arg : kernel.getBodyBlock().getArguments()) {
      if (shapeOf(arg) != space || arg.use_empty() ||
          !onlyReadAtRowIndex(arg, memo) || items > budget)
        continue;
      budget -= items;
      rowCache[arg.getArgNumber()] = fresh("rc");
    }
    cacheRows = !rowCache.empty();
  }
}

RowEmitter::Scope *RowEmitter::openRowLoop(int64_t length,
                                           ArrayRef<int64_t> shape,
                                           SmallVector<std::string> &inner,
                                           std::string *position) {
  std::string j = fresh("j");
  if (position)
    *position = j;
  if (!cacheRows || length != rowLength) {
    Scope *loop =
        openScope(rowScope,
                  fmt::format("for ({0} {1} = {2}; {1} < {3}; {1} += {4}) {{",
                              idxType, j, laneVar, length, stride),
                  /*barrier=*/false);
    declare(loop, j, length);
    inner = declareIndex(loop, j, shape, "c");
    return loop;
  }
  std::string t = fresh("it");
  Scope *loop = openScope(
      rowScope,
      fmt::format("#pragma unroll\nfor (int {0} = 0; {0} < {1}; ++{0}) {{", t,
                  items),
      /*barrier=*/false);
  declare(loop, t, items);
  line(loop, fmt::format("const {} {} = {} + {} * {};", idxType, j, laneVar, t,
                         stride));
  declare(loop, j, length);
  Scope *body = loop;
  // The guard is the loop's bound, as in the strided loop: values that do
  // not depend on the position still move out of it (inner indices, and
  // so every read of the row, are declared inside).
  if (length % stride != 0)
    body = openScope(loop, fmt::format("if ({} < {}) {{", j, length),
                     /*barrier=*/false);
  inner = declareIndex(body, j, shape, "c");
  rowItem = t;
  rowItemInner = inner;
  return body;
}

void RowEmitter::closeRowLoop(Scope *body) {
  closeScope(body);
  if (body->parent != rowScope)
    closeScope(body->parent);
  rowItem.clear();
  rowItemInner.clear();
}

std::string RowEmitter::readRowItem(Value input, Scope *&loop,
                                    SmallVector<std::string> &inner) {
  loop = openRowLoop(rowLength, innerShape, inner);
  cur = loop;
  SmallVector<std::string> idx(outerIdx);
  idx.append(inner);
  return val(input, idx);
}

void RowEmitter::emitOnlineSoftmax(Value input, Operation *max,
                                   Operation *sumOp) {
  SmallVector<std::string> inner;
  std::string m = fresh("acc"), sum = fresh("acc");
  line(rowScope, fmt::format("float {} = __uint_as_float(0xff800000u); "
                             "float {} = 0.0f;",
                             m, sum));
  declare(rowScope, m);
  declare(rowScope, sum);
  Scope *loop;
  std::string x = readRowItem(input, loop, inner);
  // x == m covers -inf == -inf, where exp(x - m) would be NaN.
  line(loop, fmt::format("if ({0} > {1}) {{\n  {2} = {2} * expf({1} - "
                         "{0});\n  {1} = {0};\n}}\n{2} = {2} + ({0} == "
                         "{1} ? 1.0f : expf({0} - {1}));",
                         x, m, sum));
  cur = rowScope;
  closeRowLoop(loop);
  // Merges (om, os) into (m, sum).
  // (Lines after the first are indented for the loop body it goes in.)
  auto merge = [&](const std::string &om, const std::string &os) {
    return fmt::format(
        "const float nm = fmaxf({0}, {2});\n  {1} = ({0} == nm ? "
        "{1} : {1} * expf({0} - nm)) + ({2} == nm ? {3} : {3} * "
        "expf({2} - nm));\n  {0} = nm;",
        m, sum, om, os);
  };
  line(rowScope,
       fmt::format("#pragma unroll\nfor (int s = 16; s > 0; s >>= 1) {{\n"
                   "  const float om = __shfl_xor_sync(0xffffffffu, {0}, "
                   "s);\n  const float os = __shfl_xor_sync(0xffffffffu, "
                   "{1}, s);\n  {2}\n}}",
                   m, sum, merge("om", "os")));
  if (!warpPerRow) {
    std::string sm = fresh("red"), ss = fresh("red");
    line(top, fmt::format("__shared__ float {}[{}];", sm, numWarps));
    line(top, fmt::format("__shared__ float {}[{}];", ss, numWarps));
    line(rowScope, fmt::format("if (lane == 0) {{\n  {}[warp] = {};\n  "
                               "{}[warp] = {};\n}}",
                               sm, m, ss, sum));
    line(rowScope, "__syncthreads();");
    line(rowScope, fmt::format("{} = {}[0];\n{} = {}[0];", m, sm, sum, ss));
    line(rowScope,
         fmt::format("for (int w = 1; w < {}; ++w) {{\n  const float om "
                     "= {}[w];\n  const float os = {}[w];\n  {}\n}}",
                     numWarps, sm, ss, merge("om", "os")));
  }
  rowVars[max] = m;
  rowVars[sumOp] = sum;
}

void RowEmitter::emitReduce(ReduceOp reduce) {
  Value input = reduce.getInput();
  SmallVector<std::string> inner;
  rt::DType e = dtypeOfValue(reduce.getResult());
  ReduceKind kind = reduce.getKind();
  std::string acc = fresh("acc");
  line(rowScope, fmt::format("{} {} = {};", cudaComputeType(e), acc,
                             reduceInit(kind, e)));
  declare(rowScope, acc);
  Scope *loop;
  std::string x = readRowItem(input, loop, inner);
  line(loop, fmt::format("{} = {};", acc, reduceCombine(kind, e, acc, x)));
  cur = rowScope;
  closeRowLoop(loop);
  emitWarpCombine(rowScope, kind, e, acc);
  if (!warpPerRow) {
    std::string smem = fresh("red");
    line(top, fmt::format("__shared__ {} {}[{}];", cudaComputeType(e), smem,
                          numWarps));
    line(rowScope, fmt::format("if (lane == 0)\n  {}[warp] = {};", smem, acc));
    line(rowScope, "__syncthreads();");
    line(rowScope, fmt::format("{} = {}[0];", acc, smem));
    line(rowScope,
         fmt::format("for (int w = 1; w < {}; ++w)\n  {} = {};", numWarps, acc,
                     reduceCombine(kind, e, acc, smem + "[w]")));
  }
  if ((kind == ReduceKind::sum || kind == ReduceKind::prod) &&
      (e == rt::DType::F16 || e == rt::DType::BF16))
    line(rowScope, fmt::format("{} = {};", acc, roundTo(e, acc)));
  rowVars[reduce] = acc;
}

LogicalResult RowEmitter::emitArgMax(ArgMaxOp argmax) {
  Value input = argmax.getInput();
  SmallVector<std::string> inner;
  rt::DType in = dtypeOfValue(argmax.getInput()),
            e = dtypeOfValue(argmax.getResult());
  int64_t axis = argmax.getAxis();
  if (axis < (int64_t)numOuter) {
    fail(argmax, "is planned as a row reduction over a non-row axis");
    return failure();
  }
  // Shuffles have no bool overload: booleans travel as int.
  const char *valueType = in == rt::DType::I1 ? "int" : cudaComputeType(in);
  std::string best = fresh("bv"), bestIdx = fresh("bi");
  line(rowScope, fmt::format("{} {} = 0; {} {} = -1;", valueType, best,
                             cudaComputeType(e), bestIdx));
  declare(rowScope, best);
  declare(rowScope, bestIdx);
  Scope *loop;
  std::string x = readRowItem(input, loop, inner);
  // Each thread visits increasing positions: the first maximum wins.
  line(loop,
       fmt::format("if ({0} < 0 || {1} > {2}) {{ {2} = {1}; {0} = {3}; }}",
                   bestIdx, x, best, inner[axis - numOuter]));
  cur = rowScope;
  closeRowLoop(loop);
  std::string ov = fresh("ov"), oi = fresh("oi");
  std::string better = fmt::format(
      "if ({0} >= 0 && ({1} < 0 || {2} > {3} || ({2} == {3} && {0} < {1}))) "
      "{{ {3} = {2}; {1} = {0}; }}",
      oi, bestIdx, ov, best);
  line(rowScope,
       fmt::format("#pragma unroll\nfor (int s = 16; s > 0; s >>= 1) {{\n"
                   "  const {0} {1} = __shfl_xor_sync(0xffffffffu, {2}, s);\n"
                   "  const {3} {4} = __shfl_xor_sync(0xffffffffu, {5}, s);\n"
                   "  {6}\n}}",
                   valueType, ov, best, cudaComputeType(e), oi, bestIdx,
                   better));
  if (!warpPerRow) {
    std::string sv = fresh("redv"), si = fresh("redi");
    line(top, fmt::format("__shared__ {} {}[{}];", valueType, sv, numWarps));
    line(top, fmt::format("__shared__ {} {}[{}];", cudaComputeType(e), si,
                          numWarps));
    line(rowScope, fmt::format("if (lane == 0) {{\n  {0}[warp] = {1};\n  "
                               "{2}[warp] = {3};\n}}",
                               sv, best, si, bestIdx));
    line(rowScope, "__syncthreads();");
    line(rowScope,
         fmt::format("for (int w = 0; w < {}; ++w) {{\n"
                     "  const {} {} = {}[w];\n  const {} {} = {}[w];\n  {}\n}}",
                     numWarps, valueType, ov, sv, cudaComputeType(e), oi, si,
                     better));
  }
  line(rowScope, fmt::format("if ({0} < 0)\n  {0} = 0;", bestIdx));
  rowVars[argmax] = bestIdx;
  return success();
}

void RowEmitter::emitOutputs() {
  auto yield = cast<YieldOp>(kernel.getBodyBlock().getTerminator());
  // Per row, an output holds numel / rows consecutive elements.
  SmallVector<int64_t> perRow;
  for (Value v : yield.getValues()) {
    int64_t n = ShapedType::getNumElements(shapeOf(v));
    if (rows == 0 || n % rows != 0) {
      fail(kernel, "has an output whose size is not a multiple of the number "
                   "of rows of its row template");
      return;
    }
    perRow.push_back(n / rows);
  }
  SmallVector<int64_t> groups;
  for (int64_t p : perRow)
    if (!llvm::is_contained(groups, p))
      groups.push_back(p);
  for (int64_t p : groups) {
    Scope *loop;
    std::string j;
    SmallVector<std::string> inner;
    if (p == 1) {
      loop = openScope(rowScope, fmt::format("if ({} == 0) {{", laneVar),
                       /*barrier=*/true);
      j = "0";
    } else if (p == rowLength) {
      loop = openRowLoop(p, innerShape, inner, &j);
    } else {
      j = fresh("j");
      loop =
          openScope(rowScope,
                    fmt::format("for ({0} {1} = {2}; {1} < {3}; {1} += {4}) {{",
                                idxType, j, laneVar, p, stride),
                    /*barrier=*/false);
      declare(loop, j, p);
    }
    cur = loop;
    for (auto [k, v] : llvm::enumerate(yield.getValues())) {
      if (perRow[k] != p)
        continue;
      ArrayRef<int64_t> shape = shapeOf(v);
      SmallVector<std::string> idx;
      if (std::optional<SmallVector<int64_t>> perm =
              rowOutputPerm(v, space, plan.numInnerDims);
          perm && p == rowLength) {
        // A transpose that moves whole rows: the row's values, written at
        // the row's place in the output.
        idx = outerIdx;
        if (inner.empty())
          idx.append(plan.numInnerDims, "0");
        else
          idx.append(inner);
        SmallVector<std::string> at;
        for (int64_t d : *perm)
          at.push_back(idx[d]);
        std::string x = val(v.getDefiningOp()->getOperand(0), idx);
        line(loop, fmt::format("out{}[{}] = {};", k, ixLinear(at, shape),
                               storeExpr(dtypeOfValue(v), x)));
        continue;
      }
      bool reducedShape = shape.size() == space.size() &&
                          shape.take_front(numOuter) == outerShape &&
                          llvm::all_of(shape.drop_front(numOuter),
                                       [](int64_t d) { return d == 1; });
      if (shape == space) {
        idx = outerIdx;
        if (inner.empty()) // rows of one element: written by lane 0
          idx.append(plan.numInnerDims, "0");
        else
          idx.append(inner);
      } else if (p == 1 && reducedShape) {
        idx = outerIdx;
        idx.append(plan.numInnerDims, "0");
      } else {
        std::string lin = p == 1 ? std::string("row")
                                 : ixTemp(fmt::format("row * {} + {}", p, j),
                                          {"row", j}, rows * p);
        idx = ixDelinearize(lin, shape);
      }
      std::string x = val(v, idx);
      std::string pos =
          p == 1 ? std::string("row") : fmt::format("row * {} + {}", p, j);
      line(loop, fmt::format("out{}[{}] = {};", k, pos,
                             storeExpr(dtypeOfValue(v), x)));
    }
    cur = rowScope;
    if (p == rowLength)
      closeRowLoop(loop);
    else
      closeScope(loop);
  }
  cur = top;
  closeScope(rowScope);
}

void RowEmitter::emitWarpCombine(Scope *s, ReduceKind kind, rt::DType e,
                                 const std::string &acc) {
  // The shuffle goes into a variable first: a combiner may name its
  // operand twice, and every lane must run each shuffle exactly once.
  line(s, fmt::format(
              "#pragma unroll\nfor (int s = 16; s > 0; s >>= 1) {{\n"
              "  const {0} other = __shfl_xor_sync(0xffffffffu, {1}, s);\n"
              "  {1} = {2};\n}}",
              cudaComputeType(e), acc, reduceCombine(kind, e, acc, "other")));
}

/// Whether every read of `v` (of the row shape) is at the row index: its
/// users are row reductions, elementwise ops of the row shape (recursively),
/// the kernel's outputs and transposes to outputs that move whole rows.
bool RowEmitter::onlyReadAtRowIndex(Value v, DenseMap<Value, bool> &memo) {
  auto known = memo.find(v);
  if (known != memo.end())
    return known->second;
  memo[v] = false; // no cycles in SSA, but stay safe
  ArrayRef<int64_t> space = plan.space;
  bool ok = llvm::all_of(v.getUsers(), [&](Operation *user) {
    if (isa<YieldOp>(user))
      return true;
    if (llvm::is_contained(plan.rowReductions, user))
      return true;
    if (user->hasTrait<trait::Elementwise>() && user->getNumResults() == 1 &&
        shapeOf(user->getResult(0)) == space)
      return onlyReadAtRowIndex(user->getResult(0), memo);
    // A transpose that moves whole rows reads each value at its row index.
    if (isa<TransposeOp>(user) &&
        rowOutputPerm(user->getResult(0), space, plan.numInnerDims))
      return llvm::all_of(user->getUsers(),
                          [](Operation *u) { return isa<YieldOp>(u); });
    return false;
  });
  memo[v] = ok;
  return ok;
}

std::unique_ptr<KernelEmitter>
mlir::dlc::createRowEmitter(KernelOp kernel, const KernelPlan &plan,
                            unsigned number) {
  return std::make_unique<RowEmitter>(kernel, plan, number);
}
