//===- PointwiseEmitter.cpp - One thread per output element ---------------===//
//
// The Pointwise template: thread `tid` computes the outputs at one position
// of the iteration space, or at `vec` consecutive positions with 16-byte
// vector loads and stores where the pointers are aligned for them. A
// reduction inside is a serial loop per position (OpEmitters.cpp).
//
//===----------------------------------------------------------------------===//
#include "codegen/KernelEmitter.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <fmt/format.h>

#include <algorithm>

using namespace mlir;
using namespace mlir::dlc;

namespace {

constexpr int64_t kPointwiseBlock = 256;

class PointwiseEmitter : public KernelEmitter {
public:
  PointwiseEmitter(KernelOp kernel, const KernelPlan &plan, unsigned number)
      : KernelEmitter(kernel, plan, number) {}

private:
  void emitTemplate(EmittedKernel &out) override;
  std::string describeTemplate() const override {
    return fmt::format("pointwise, {} elements, {} per thread",
                       ShapedType::getNumElements(plan.space), vec);
  }
  bool usesBarriers() const override { return false; }
  std::optional<std::string> readArgument(BlockArgument arg,
                                          ArrayRef<std::string> idx) override;
  /// The per-thread array kernel input `argNumber` is loaded into on the
  /// vector path (loaded on first use).
  std::string vectorLoad(unsigned argNumber);

  /// The iteration index, the vector width and the per-thread scope that
  /// holds the vector loads.
  SmallVector<std::string> spaceIdx;
  int64_t vec = 1;
  Scope *threadScope = nullptr;
  DenseMap<unsigned, std::string> vectorLoads;
  /// With vec > 1 the body is emitted twice: for pointers that all allow
  /// vector accesses (loads into per-thread arrays in `vectorScope`, one
  /// test of every pointer, `alignTerms`, chooses it) and element by element
  /// (`scalarPath`).
  Scope *vectorScope = nullptr;
  bool scalarPath = false;
  SmallVector<std::string> alignTerms;
};

} // namespace

std::optional<std::string>
PointwiseEmitter::readArgument(BlockArgument arg, ArrayRef<std::string> idx) {
  if (vec <= 1 || !threadScope ||
      shapeOf(arg) != ArrayRef<int64_t>(plan.space) ||
      !llvm::equal(idx, spaceIdx))
    return std::nullopt;
  unsigned n = arg.getArgNumber();
  rt::DType e = dtypeOfValue(arg);
  return def(e, loadExpr(e, scalarPath ? fmt::format("in{}[base + v]", n)
                                       : vectorLoad(n) + "[v]"));
}

std::string PointwiseEmitter::vectorLoad(unsigned argNumber) {
  auto it = vectorLoads.find(argNumber);
  if (it != vectorLoads.end())
    return it->second;
  rt::DType e = dtypeOfValue(kernel.getBodyBlock().getArgument(argNumber));
  int64_t size = rt::dtypeSize(e), bytes = vec * size;
  int64_t chunk = std::min<int64_t>(16, bytes);
  std::string arr = fmt::format("x{}", argNumber);
  std::string ptr = fmt::format("in{}", argNumber);
  std::string text =
      fmt::format("alignas(16) {} {}[{}];\n", cudaStorageType(e), arr, vec);
  if (chunk >= 4) {
    // The path's condition tests the pointer's alignment once.
    alignTerms.push_back(fmt::format(
        "(reinterpret_cast<unsigned long long>({}) & {}ull)", ptr, chunk - 1));
    for (int64_t c = 0; c < bytes / chunk; ++c)
      text +=
          fmt::format("{}dlc_copy{}({} + {}, {} + base + {});", c ? "\n" : "",
                      chunk, arr, c * chunk / size, ptr, c * chunk / size);
  } else {
    text +=
        fmt::format("for (int q = 0; q < {0}; ++q)\n  {1}[q] = {2}[base + q];",
                    vec, arr, ptr);
  }
  line(vectorScope, text);
  vectorLoads[argNumber] = arr;
  return arr;
}

void PointwiseEmitter::emitTemplate(EmittedKernel &out) {
  auto yield = cast<YieldOp>(kernel.getBodyBlock().getTerminator());
  ArrayRef<int64_t> space = plan.space;
  int64_t numel = ShapedType::getNumElements(space);
  int64_t maxOutBytes = 1;
  for (Value v : yield.getValues())
    maxOutBytes =
        std::max(maxOutBytes, int64_t(rt::dtypeSize(dtypeOfValue(v))));
  vec = std::clamp<int64_t>(16 / maxOutBytes, 1, 8);
  if (numel < 4096 || numel % vec != 0)
    vec = 1;
  int64_t threads = numel / vec;
  int64_t blocks = (threads + kPointwiseBlock - 1) / kPointwiseBlock;
  int64_t blockDim = std::min<int64_t>(
      kPointwiseBlock, std::max<int64_t>(32, (threads + 31) / 32 * 32));
  // A launch has at most rt::kMaxLaunchThreads threads (validatePackage):
  // beyond, a grid-stride loop (only with 64-bit indices: fewer threads
  // than that fit in int).
  bool gridStride = blocks > int64_t(rt::kMaxLaunchThreads) / blockDim;
  out.block[0] = blockDim;
  out.grid[0] = gridStride ? 1 << 20 : std::max<int64_t>(blocks, 1);

  if (gridStride)
    threadScope = openScope(
        root.get(),
        fmt::format("for ({0} tid = ({0})blockIdx.x * {1} + threadIdx.x; tid "
                    "< {2}; tid += ({0})gridDim.x * {1}) {{",
                    idxType, blockDim, threads),
        /*barrier=*/true);
  else {
    line(
        root.get(),
        fmt::format("const {0} tid = ({0})blockIdx.x * {1} + ({0})threadIdx.x;",
                    idxType, blockDim));
    threadScope =
        openScope(root.get(), fmt::format("if (tid < {}) {{", threads),
                  /*barrier=*/true);
  }
  declare(threadScope, "tid", threads);
  cur = threadScope;

  if (vec == 1) {
    spaceIdx = declareIndex(threadScope, "tid", space, "i");
    for (auto [k, v] : llvm::enumerate(yield.getValues())) {
      std::string x = val(v, spaceIdx);
      line(threadScope,
           fmt::format("out{}[tid] = {};", k, storeExpr(dtypeOfValue(v), x)));
    }
    cur = root.get();
    closeScope(threadScope);
    return;
  }

  // Thread `tid` computes elements [base, base + vec).
  line(threadScope, fmt::format("const {} base = tid * {};", idxType, vec));
  declare(threadScope, "base", numel);
  int64_t last = space.empty() ? 1 : space.back();
  bool lastDivisible = space.size() >= 1 && last % vec == 0;
  SmallVector<std::string> outer;
  if (lastDivisible) {
    // The outer index is the same for the whole vector: compute it once.
    outer = declareIndex(threadScope, fmt::format("base / {}", last),
                         space.drop_back(), "i");
    line(threadScope, fmt::format("const {} il = base % {};", idxType, last));
    declare(threadScope, "il", last);
  }
  // Two versions of the body: vector loads and stores when every pointer
  // that has them is aligned for them, else element by element. One test
  // of all pointers keeps each version straight-line code: with a test per
  // pointer, ptxas kept every result of the thread's elements in registers
  // until the last test (f16 kernels with 16 inputs and results took 146
  // registers; docs/fusion.md has the measurements).
  alignTerms.clear();
  for (int version = 0; version < 2; ++version) {
    scalarPath = version == 1;
    Scope *path = openScope(threadScope, scalarPath ? "else {" : "if () {",
                            /*barrier=*/false);
    vectorScope = path;
    vectorLoads.clear();
    if (!scalarPath)
      for (auto [k, v] : llvm::enumerate(yield.getValues()))
        line(path, fmt::format("alignas(16) {} y{}[{}];",
                               cudaStorageType(dtypeOfValue(v)), k, vec));
    Scope *loop = openScope(
        path,
        // The element-by-element version is not unrolled: unrolled, ptxas
        // hoists all its loads and the kernel needs their registers on
        // either path (f32 with 24 inputs and results: 128 registers; not
        // unrolled, 32).
        fmt::format("#pragma unroll{}\nfor (int v = 0; v < {}; ++v) {{",
                    scalarPath ? " 1" : "", vec),
        /*barrier=*/false);
    declare(loop, "v", vec);
    cur = loop;
    if (lastDivisible) {
      std::string name = fmt::format("i{}", space.size() - 1);
      line(loop, fmt::format("const {} {} = il + v;", idxType, name));
      declare(loop, name, last);
      spaceIdx = outer;
      spaceIdx.push_back(name);
    } else {
      line(loop, fmt::format("const {} e = base + v;", idxType));
      declare(loop, "e", numel);
      spaceIdx = declareIndex(loop, "e", space, "i");
    }
    for (auto [k, v] : llvm::enumerate(yield.getValues())) {
      std::string x = val(v, spaceIdx);
      line(loop, scalarPath ? fmt::format("out{}[base + v] = {};", k,
                                          storeExpr(dtypeOfValue(v), x))
                            : fmt::format("y{}[v] = {};", k,
                                          storeExpr(dtypeOfValue(v), x)));
    }
    cur = path;
    closeScope(loop);
    if (!scalarPath) {
      for (auto [k, v] : llvm::enumerate(yield.getValues())) {
        int64_t size = int64_t(rt::dtypeSize(dtypeOfValue(v))),
                bytes = vec * size;
        int64_t chunk = std::min<int64_t>(16, bytes);
        if (chunk < 4) {
          line(path, fmt::format(
                         "for (int q = 0; q < {0}; ++q)\n  out{1}[base + q] = "
                         "y{1}[q];",
                         vec, k));
          continue;
        }
        alignTerms.push_back(
            fmt::format("(reinterpret_cast<unsigned long long>(out{}) & {}ull)",
                        k, chunk - 1));
        std::string text;
        for (int64_t c = 0; c < bytes / chunk; ++c)
          text += fmt::format("{}dlc_copy{}(out{} + base + {}, y{} + {});",
                              c ? "\n" : "", chunk, k, c * chunk / size, k,
                              c * chunk / size);
        line(path, text);
      }
      // The widest result's vector is 8 or 16 bytes, so the condition has a
      // term; without one the vector version would always be right.
      path->header =
          alignTerms.empty()
              ? std::string("if (true) {")
              : fmt::format("if (({}) == 0) {{", llvm::join(alignTerms, " | "));
    }
    cur = threadScope;
    closeScope(path);
  }
  scalarPath = false;
  cur = root.get();
  closeScope(threadScope);
}

std::unique_ptr<KernelEmitter>
mlir::dlc::createPointwiseEmitter(KernelOp kernel, const KernelPlan &plan,
                                  unsigned number) {
  return std::make_unique<PointwiseEmitter>(kernel, plan, number);
}
