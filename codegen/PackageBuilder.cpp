//===- PackageBuilder.cpp - Schedule, buffers and constants ---------------===//
//
// Walks the top level of a planned function in order and turns it into the
// package's steps: a kernel launch per dlc.kernel, one or more GEMMs per
// dlc.matmul and copies for returned values that are not produced directly
// into their output buffer. Every tensor is resolved to a buffer: an input,
// an output, the arena (at the offset chosen by dlc-plan-memory) or the
// constant blob; reshapes are views of their operand's buffer.
//
//===----------------------------------------------------------------------===//
#include "codegen/AttentionEmitter.h"
#include "codegen/CudaEmitter.h"
#include "codegen/GemmEpilogue.h"
#include "ir/Attributes.h"
#include "ir/ElementType.h"
#include "runtime/Runtime.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"

#include <fmt/format.h>

#include <optional>

using namespace mlir;
using namespace mlir::dlc;
namespace rt = ::dlc::rt;

namespace {

using rt::kConstantAlignment;

class PackageBuilder {
public:
  PackageBuilder(func::FuncOp func, const CodegenOptions &options)
      : func(func), options(options) {}

  FailureOr<rt::Package> build();

private:
  /// The package description of a tensor type, or an error at `loc`.
  FailureOr<rt::TensorDesc> describe(Type type, Location loc);
  uint64_t byteSize(Value v) {
    return tensorBytes(cast<RankedTensorType>(v.getType()));
  }
  LogicalResult addConstant(ConstantOp op);
  /// `value` (dense or dense_resource elements of `type`) appended to the
  /// constants; errors at `op`.
  FailureOr<rt::BufferRef> storeElements(Operation *op, RankedTensorType type,
                                         Attribute value);
  /// Reserves the constants' bytes once: growing them a value at a time
  /// copied a model's weights several times over.
  void reserveConstants();
  /// A training step's parameters and state (rt::Package::state).
  LogicalResult addTrainingState();
  LogicalResult resultStorage(Operation *op);
  rt::BufferRef storageOf(Value v);
  /// A kernel launch step for `op` (a dlc.kernel or dlc.attention): its
  /// operands (or `inputs` where given), then its results, are the kernel's
  /// parameters.
  LogicalResult addLaunch(Operation *op, const rt::KernelInfo &info,
                          const uint32_t (&grid)[3], const uint32_t (&block)[3],
                          uint32_t sharedBytes, const std::string &label,
                          std::optional<ValueRange> inputs = std::nullopt);
  LogicalResult addMatmul(MatmulOp op);
  LogicalResult addConv(ConvOp op);
  /// The package's figures (rt::PackageStats), once its steps are built.
  rt::PackageStats stats();

  func::FuncOp func;
  const CodegenOptions &options;
  rt::Package pkg;
  GemmEpilogueKernels epilogueKernels;
  DenseMap<Value, rt::BufferRef> storage;
  /// Producer results written straight into an output: the first return
  /// index whose view chain roots at them.
  DenseMap<Value, unsigned> firstReturn;
};

FailureOr<rt::TensorDesc> PackageBuilder::describe(Type type, Location loc) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  std::optional<rt::DType> dtype = dtypeOf(type);
  if (!tensor || !tensor.hasStaticShape() || !dtype)
    return emitError(loc) << "cannot pass a value of type " << type
                          << " to or from a compiled model (expected a "
                             "static tensor of f32, f16, bf16, f8E4M3FN, "
                             "i32, i64 or i1)";
  rt::TensorDesc desc;
  desc.dtype = *dtype;
  desc.shape.assign(tensor.getShape().begin(), tensor.getShape().end());
  return desc;
}

/// The largest splat constant stored expanded in a package.
constexpr uint64_t kMaxExpandedSplatBytes = uint64_t(1) << 30;

LogicalResult PackageBuilder::addConstant(ConstantOp op) {
  FailureOr<rt::BufferRef> ref =
      storeElements(op, cast<RankedTensorType>(op.getType()), op.getValue());
  if (failed(ref))
    return failure();
  storage[op.getResult()] = *ref;
  return success();
}

FailureOr<rt::BufferRef> PackageBuilder::storeElements(Operation *op,
                                                       RankedTensorType type,
                                                       Attribute value) {
  // A dlc.constant's result is a dlc tensor (ODS), and so is an argument
  // with an initial value (described as an input first): its element type
  // has a package dtype.
  std::optional<rt::DType> dtype = dtypeOf(type);
  assert(dtype && "stored elements of a type without a dtype");
  size_t elementSize = rt::dtypeSize(*dtype);
  int64_t n = type.getNumElements();
  uint64_t bytes = n * elementSize;
  // A splat is stored expanded: a tiny attribute must not become gigabytes
  // of package (kernels read splats as literals; only a splat used by a
  // GEMM or returned gets here).
  if (auto dense = dyn_cast<DenseElementsAttr>(value);
      dense && dense.isSplat() && bytes > kMaxExpandedSplatBytes)
    return op->emitOpError()
           << "is a splat constant of " << bytes
           << " bytes that the package would store expanded (at most "
           << kMaxExpandedSplatBytes << " bytes); compute it in the model "
           << "instead (for example a broadcast of a smaller constant)";
  // A resource's data is checked against the type before the package
  // grows by the type's size: a 4-byte blob declared as 2^32 elements is an
  // error, not a 16 GiB allocation.
  ArrayRef<char> resourceData;
  auto resource = dyn_cast<DenseResourceElementsAttr>(value);
  if (resource) {
    AsmResourceBlob *data = resource.getRawHandle().getBlob();
    if (!data)
      return op->emitOpError()
             << "refers to the resource '" << resource.getRawHandle().getKey()
             << "', whose data is not loaded";
    resourceData = data->getData();
    if (std::string wrong = resourceSizeError(type, resourceData.size(),
                                              resource.getRawHandle().getKey());
        !wrong.empty())
      return op->emitOpError() << wrong;
  } else if (!isa<DenseElementsAttr>(value)) {
    return op->emitOpError() << "has a value the package cannot store "
                                "(expected dense or dense_resource elements)";
  }
  std::vector<uint8_t> &blob = pkg.constants;
  blob.resize((blob.size() + kConstantAlignment - 1) / kConstantAlignment *
              kConstantAlignment);
  uint64_t offset = blob.size();
  blob.resize(offset + bytes);
  uint8_t *dst = blob.data() + offset;

  if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
    if (*dtype == rt::DType::I1) {
      int64_t i = 0;
      for (bool b : dense.getValues<bool>())
        dst[i++] = b ? 1 : 0;
    } else if (dense.isSplat()) {
      // The value's type is the result type (verifier), so the raw data of
      // a non-i1 dense attribute is one element, or all of them.
      ArrayRef<char> raw = dense.getRawData();
      assert(raw.size() == elementSize && "splat of another element type");
      for (int64_t i = 0; i < n; ++i)
        std::memcpy(dst + i * elementSize, raw.data(), elementSize);
    } else {
      ArrayRef<char> raw = dense.getRawData();
      assert(raw.size() == bytes && "dense data of another type");
      // An empty tensor's data pointer may be null: memcpy needs a valid one.
      if (bytes != 0)
        std::memcpy(dst, raw.data(), bytes);
    }
  } else if (*dtype == rt::DType::I1) {
    // A resource (checked above). One byte per element; any non-zero byte
    // is true, as the reference interpreter reads it, and is stored as 1.
    for (uint64_t i = 0; i < bytes; ++i)
      dst[i] = resourceData[i] != 0 ? 1 : 0;
  } else if (bytes != 0) {
    std::memcpy(dst, resourceData.data(), bytes);
  }
  rt::BufferRef ref;
  ref.kind = rt::BufferRef::Kind::Constant;
  ref.offset = offset;
  ref.bytes = bytes;
  return ref;
}

void PackageBuilder::reserveConstants() {
  // What storeElements will store: the elements the model holds, and
  // splats expanded (an optimizer's zero state), each within the limit
  // storeElements enforces; a larger splat is its error, not reserved.
  uint64_t total = 0;
  auto count = [&](Attribute value) {
    uint64_t bytes = 0;
    if (auto dense = dyn_cast_or_null<DenseElementsAttr>(value)) {
      bytes = dense.getRawData().size();
      if (dense.isSplat()) {
        // Verified types: at most 2^40 bytes, so no overflow.
        uint64_t expanded = bytes * uint64_t(dense.getNumElements());
        bytes = expanded <= kMaxExpandedSplatBytes ? expanded : 0;
      }
    } else if (auto resource =
                   dyn_cast_or_null<DenseResourceElementsAttr>(value)) {
      if (AsmResourceBlob *data = resource.getRawHandle().getBlob())
        bytes = data->getData().size();
    }
    // i1 elements are stored one byte each; a dense attribute packs them.
    if (auto type = dyn_cast_or_null<TypedAttr>(value))
      if (auto tensor = dyn_cast<RankedTensorType>(type.getType());
          tensor && tensor.getElementType().isInteger(1) && bytes)
        bytes = std::max<uint64_t>(bytes, tensor.getNumElements());
    total += bytes + rt::kConstantAlignment;
  };
  for (unsigned i = 0; i < func.getNumArguments(); ++i)
    count(func.getArgAttr(i, attr::kInitial));
  for (Operation &op : func.getBody().front())
    if (auto c = dyn_cast<ConstantOp>(op))
      count(c.getValue());
  // Beyond any real model's weights (64 GiB), growing as before: storing
  // fails where the memory ends, not the reservation.
  if (total <= (uint64_t(1) << 36))
    pkg.constants.reserve(total);
}

LogicalResult PackageBuilder::addTrainingState() {
  for (BlockArgument arg : func.getArguments()) {
    unsigned i = arg.getArgNumber();
    StringRef name = persistentName(func, i);
    if (name.empty())
      continue;
    std::optional<unsigned> output;
    for (unsigned j = 0; j < func.getNumResults(); ++j)
      if (auto of = func.getResultAttrOfType<IntegerAttr>(j, attr::kUpdates);
          of && of.getInt() == int64_t(i)) {
        if (output)
          return func.emitOpError()
                 << "updates argument #" << i << " twice (results #" << *output
                 << " and #" << j << ")";
        output = j;
      }
    // A parameter or state nothing updates is an input like any other.
    if (!output)
      continue;
    if (*output == 0)
      return func.emitOpError() << "returns the new value of argument #" << i
                                << " first; a training step's first result "
                                   "is its loss";
    Attribute initial = func.getArgAttr(i, attr::kInitial);
    if (!initial)
      return func.emitOpError()
             << "has no '" << attr::kInitial << "' for argument #" << i << " ('"
             << name << "'), which it updates";
    FailureOr<rt::BufferRef> ref =
        storeElements(func, cast<RankedTensorType>(arg.getType()), initial);
    if (failed(ref))
      return failure();
    rt::StateTensor t;
    t.name = name.str();
    t.trainable = bool(func.getArgAttr(i, attr::kParam));
    t.buffer = bool(func.getArgAttr(i, attr::kBuffer));
    t.input = i;
    t.output = *output;
    t.initialOffset = ref->offset;
    t.initialBytes = ref->bytes;
    // The names `dlc run --input NAME=` and the outputs take.
    if (pkg.inputNames[i].empty())
      pkg.inputNames[i] = t.name;
    if (pkg.outputNames[*output].empty())
      pkg.outputNames[*output] = t.name;
    pkg.state.push_back(std::move(t));
  }
  if (!pkg.state.empty() && pkg.outputNames[0].empty())
    pkg.outputNames[0] = "loss";
  // The attribute's verifier bounds it.
  if (auto micro = func->getAttrOfType<IntegerAttr>(attr::kMicroBatches)) {
    if (pkg.state.empty())
      return func.emitOpError()
             << "has '" << attr::kMicroBatches << "' but no training state";
    pkg.microBatches = uint32_t(micro.getInt());
  }
  for (unsigned i = 0; i < func.getNumResults(); ++i)
    if (func.getResultAttr(i, attr::kStepSkipped)) {
      if (pkg.state.empty())
        return func.emitOpError()
               << "has '" << attr::kStepSkipped << "' but no training state";
      pkg.skippedOutput = i;
      if (pkg.outputNames[i].empty())
        pkg.outputNames[i] = "skipped";
    }
  return success();
}

/// Assigns the results of a kernel or matmul their planned buffers.
LogicalResult PackageBuilder::resultStorage(Operation *op) {
  // verifyOperationAttribute checked one offset per result, each -1 or more.
  std::optional<ArrayRef<int64_t>> offsets = getPlannedOffsets(op);
  if (!offsets)
    return op->emitOpError() << "has no '" << attr::kOffsets
                             << "' attribute; run dlc-plan-memory before code "
                                "generation";
  for (auto [result, offset] : llvm::zip(op->getResults(), *offsets)) {
    rt::BufferRef ref;
    ref.bytes = byteSize(result);
    if (offset >= 0) {
      if ((uint64_t)offset + ref.bytes > pkg.arenaBytes)
        return op->emitOpError()
               << "result #" << cast<OpResult>(result).getResultNumber()
               << " is planned at arena offset " << offset << " with "
               << ref.bytes << " bytes, past the arena's " << pkg.arenaBytes
               << " bytes";
      ref.kind = rt::BufferRef::Kind::Arena;
      ref.offset = offset;
    } else {
      // -1 (the verifier admits no other negative offset): a function
      // output.
      auto it = firstReturn.find(result);
      if (it == firstReturn.end())
        return op->emitOpError()
               << "result #" << cast<OpResult>(result).getResultNumber()
               << " is planned into an output buffer, but no returned value "
                  "is a view of it";
      ref.kind = rt::BufferRef::Kind::Output;
      ref.index = it->second;
    }
    storage[result] = ref;
  }
  return success();
}

rt::BufferRef PackageBuilder::storageOf(Value v) {
  // Every top-level value has a buffer by the time it is used: build()
  // visits the ops in order (SSA dominance) and rejects any op that is not
  // a constant, kernel, matmul, attention or reshape before its results are
  // used.
  auto it = storage.find(v);
  assert(it != storage.end() && "use of a value without a buffer");
  return it->second;
}

/// The bytes a kernel reads of its operand `arg` (a body argument of
/// `whole` bytes): all of them, unless every use selects part of it (a
/// gather reads the rows its indices pick, a slice its window), then the
/// parts (counted once per use, at most `whole`).
static uint64_t readBytes(BlockArgument arg, uint64_t whole) {
  uint64_t parts = 0;
  for (Operation *user : arg.getUsers()) {
    auto gather = dyn_cast<GatherOp>(user);
    bool selects = (gather && gather.getData() == arg) || isa<SliceOp>(user);
    if (!selects)
      return whole;
    parts += tensorBytes(cast<RankedTensorType>(user->getResult(0).getType()));
    if (parts >= whole)
      return whole;
  }
  return parts;
}

LogicalResult
PackageBuilder::addLaunch(Operation *op, const rt::KernelInfo &info,
                          const uint32_t (&grid)[3], const uint32_t (&block)[3],
                          uint32_t sharedBytes, const std::string &label,
                          std::optional<ValueRange> inputs) {
  if (failed(resultStorage(op)))
    return failure();
  rt::Step step;
  step.kind = rt::Step::Kind::Kernel;
  step.label = label;
  rt::KernelStep &k = step.kernel;
  k.kernel = pkg.kernels.size();
  for (int d = 0; d < 3; ++d) {
    k.grid[d] = grid[d];
    k.block[d] = block[d];
  }
  k.sharedBytes = sharedBytes;
  // The kernel's signature, which validatePackage holds every launch to:
  // this launch shape, and its parameters: its operands (or the given
  // inputs), read, then its results, written; each the whole tensor.
  rt::KernelInfo signedInfo = info;
  rt::KernelSignature &sig = signedInfo.signature.emplace();
  for (int d = 0; d < 3; ++d) {
    sig.grid[d] = grid[d];
    sig.block[d] = block[d];
  }
  uint64_t buffers = 0, moved = 0;
  auto kernel = dyn_cast<KernelOp>(op);
  for (auto [i, v] :
       llvm::enumerate(inputs ? *inputs : ValueRange(op->getOperands()))) {
    k.args.push_back(storageOf(v));
    sig.params.push_back({byteSize(v), /*writes=*/false});
    buffers += byteSize(v);
    moved += kernel && !inputs
                 ? readBytes(kernel.getBody().getArgument(i), byteSize(v))
                 : byteSize(v);
  }
  for (Value v : op->getResults()) {
    k.args.push_back(storage[v]);
    sig.params.push_back({byteSize(v), /*writes=*/true});
    buffers += byteSize(v);
    moved += byteSize(v);
  }
  if (moved < buffers)
    k.bytes = moved;
  pkg.kernels.push_back(std::move(signedInfo));
  pkg.steps.push_back(std::move(step));
  return success();
}

LogicalResult PackageBuilder::addConv(ConvOp op) {
  if (failed(resultStorage(op)))
    return failure();
  auto in = cast<RankedTensorType>(op.getInput().getType()).getShape();
  auto w = cast<RankedTensorType>(op.getFilter().getType()).getShape();
  auto out = op.getType().getShape();
  if (ShapedType::getNumElements(out) == 0)
    return success(); // nothing to write
  // cuDNN takes int sizes: a larger convolution is reported at the op.
  for (int64_t d :
       {in[0], in[1], in[2], in[3], w[0], w[1], w[2], out[1], out[2]})
    if (d > INT32_MAX)
      return op.emitOpError() << "has a dimension of " << d
                              << "; library convolutions take sizes below 2^31";
  rt::ConvStep c;
  c.dtype = *dtypeOf(op.getType());
  c.n = in[0];
  c.h = in[1];
  c.w = in[2];
  c.c = in[3];
  c.k = w[0];
  c.r = w[1];
  c.s = w[2];
  c.p = out[1];
  c.q = out[2];
  c.groups = op.getGroups();
  ArrayRef<int64_t> st = op.getStrides(), pd = op.getPads(),
                    dl = op.getDilations();
  c.strideH = st[0];
  c.strideW = st[1];
  c.padH = pd[0];
  c.padW = pd[1];
  c.dilH = dl[0];
  c.dilW = dl[1];
  c.x = storageOf(op.getInput());
  c.filter = storageOf(op.getFilter());
  c.y = storage[op.getResult()];
  if (Value bias = op.getBias())
    c.bias = storageOf(bias);
  if (Value addend = op.getAddend())
    c.addend = storageOf(addend);
  c.epilogue = op.getEpilogue() == EpilogueKind::relu ? rt::GemmEpilogue::Relu
                                                      : rt::GemmEpilogue::None;
  c.tf32 = options.tf32 && c.dtype == rt::DType::F32;
  rt::Step step;
  step.kind = rt::Step::Kind::Conv;
  // "conv 3x3/2 56x56x64->28x28x128 bias+addend+relu".
  step.label = fmt::format("conv {}x{}", c.r, c.s);
  if (c.strideH != 1 || c.strideW != 1)
    step.label += fmt::format("/{}", c.strideH);
  step.label +=
      fmt::format(" {}x{}x{}->{}x{}x{}", c.h, c.w, c.c, c.p, c.q, c.k);
  SmallVector<std::string> parts;
  if (c.bias)
    parts.push_back("bias");
  if (c.addend)
    parts.push_back("addend");
  if (c.epilogue != rt::GemmEpilogue::None)
    parts.push_back(rt::gemmEpilogueName(c.epilogue));
  if (!parts.empty())
    step.label += " " + llvm::join(parts, "+");
  if (c.tf32)
    step.label += " tf32";
  else if (c.dtype != rt::DType::F32)
    step.label += std::string(" ") + rt::dtypeName(c.dtype);
  step.conv = c;
  pkg.steps.push_back(std::move(step));
  return success();
}

LogicalResult PackageBuilder::addMatmul(MatmulOp op) {
  if (failed(resultStorage(op)))
    return failure();
  std::optional<rt::DType> dtype = dtypeOf(op.getType());
  if (!dtype || (*dtype != rt::DType::F32 && *dtype != rt::DType::F16 &&
                 *dtype != rt::DType::BF16))
    return op.emitOpError() << "multiplies " << op.getType().getElementType()
                            << " matrices; GEMMs support f32, f16 and bf16";
  if (auto acc = op.getAccType(); acc && !acc->isF32())
    return op.emitOpError() << "asks for accumulation in " << *acc
                            << "; GEMMs accumulate in f32";
  // The operands' type: the result's, or FP8 (whose product the verifier
  // gives a bf16 or f16 result).
  rt::DType operandType = dtypeOf(op.getLhs().getType()).value_or(*dtype);
  const bool fp8 = operandType == rt::DType::F8E4M3;
  if (fp8) {
    // cuBLASLt's FP8 matmuls exist on Ada (sm_89) and Hopper (sm_90) and
    // later; the sim device runs them on any.
    for (const std::string &arch : options.archs) {
      unsigned number = 0;
      if (llvm::StringRef(arch).drop_front(3).consumeInteger(10, number) ||
          number < 89)
        return op.emitOpError()
               << "is an FP8 (f8E4M3FN) matrix product, which needs sm_89 or "
                  "newer (cuBLASLt's FP8 matmul), but the package is compiled "
                  "for "
               << arch
               << "; compile with --arch=sm_90 (or sm_89), or with "
                  "--precision=bf16";
    }
  }
  rt::BufferRef aRef = storageOf(op.getLhs());
  rt::BufferRef bRef = storageOf(op.getRhs());
  rt::BufferRef cRef = storage[op.getResult()];
  // The epilogue: the bias is one row shared by every GEMM of the product;
  // the addend is laid out like the result and split like it.
  std::optional<rt::BufferRef> biasRef, addendRef;
  if (Value bias = op.getBias())
    biasRef = storageOf(bias);
  if (Value addend = op.getAddend())
    addendRef = storageOf(addend);
  rt::GemmEpilogue epilogue = rt::GemmEpilogue::None;
  switch (op.getEpilogue()) {
  case EpilogueKind::none:
    break;
  case EpilogueKind::relu:
    epilogue = rt::GemmEpilogue::Relu;
    break;
  case EpilogueKind::gelu_tanh:
    epilogue = rt::GemmEpilogue::GeluTanh;
    break;
  }

  ArrayRef<int64_t> aShape =
      cast<RankedTensorType>(op.getLhs().getType()).getShape();
  ArrayRef<int64_t> bShape =
      cast<RankedTensorType>(op.getRhs().getType()).getShape();
  ArrayRef<int64_t> cShape = op.getType().getShape();
  size_t rank = cShape.size(), nb = rank - 2;
  bool ta = op.getTransposeA(), tb = op.getTransposeB();
  int64_t ra = aShape[rank - 2], ca = aShape[rank - 1];
  int64_t rb = bShape[rank - 2], cb = bShape[rank - 1];
  int64_t m = ta ? ca : ra, k = ta ? ra : ca, n = tb ? rb : cb;
  int64_t matA = ra * ca, matB = rb * cb, matC = m * n;
  ArrayRef<int64_t> bA = aShape.take_front(nb), bB = bShape.take_front(nb),
                    bC = cShape.take_front(nb);
  int64_t batches = 1;
  for (int64_t d : bC)
    batches *= d;
  if (batches == 0 || m == 0 || n == 0)
    return success(); // nothing to write
  // Bytes of an element of A and B (es) and of C, the bias and the addend.
  const uint64_t es = rt::dtypeSize(operandType), esC = rt::dtypeSize(*dtype);

  rt::GemmStep g;
  g.dtype = operandType;
  g.cType = *dtype;
  if (fp8) {
    if (FloatAttr scale = op.getLhsScaleAttr())
      g.scaleA = scale.getValueAsDouble();
    if (FloatAttr scale = op.getRhsScaleAttr())
      g.scaleB = scale.getValueAsDouble();
  }
  g.accType = rt::DType::F32;
  g.transA = ta;
  g.transB = tb;
  g.m = m;
  g.n = n;
  g.k = k;
  // With k = 0 (C is all zeros) a stored row can be empty; BLAS still wants
  // leading dimensions of at least 1.
  g.lda = std::max<int64_t>(ca, 1);
  g.ldb = std::max<int64_t>(cb, 1);
  g.ldc = n;
  g.epilogue = epilogue;
  g.bias = biasRef;
  g.tf32 = options.tf32 && g.dtype == rt::DType::F32;
  // cuBLASLt's C with beta = 1.
  if (addendRef)
    g.beta = 1.0;
  // cuBLAS takes 32-bit sizes and batch counts: a larger GEMM is reported
  // at the op instead of surfacing as an invalid package.
  const int64_t gemmLimit = int64_t(1) << 31;
  auto addStep = [&](const rt::GemmStep &gemm) -> LogicalResult {
    if (gemm.m >= gemmLimit || gemm.n >= gemmLimit || gemm.k >= gemmLimit ||
        gemm.batch >= gemmLimit)
      return op.emitOpError()
             << "needs a GEMM of m=" << gemm.m << " n=" << gemm.n
             << " k=" << gemm.k << " batch=" << gemm.batch
             << "; cuBLAS sizes and batch counts must be below 2^31";
    rt::Step step;
    step.kind = rt::Step::Kind::Gemm;
    step.gemm = gemm;
    // The kernel a device runs after a plain GEMM when cuBLASLt has no
    // algorithm for the epilogue (rt::GemmStep::epilogueKernel).
    if (gemm.hasEpilogue() && !gemm.isFp8() && gemm.ldc == gemm.n &&
        (gemm.batch == 1 || gemm.strideC == gemm.m * gemm.n))
      step.gemm.epilogueKernel = epilogueKernels.get(gemm, pkg);
    step.label = fmt::format("gemm {}x{}x{}", gemm.m, gemm.n, gemm.k);
    if (gemm.batch > 1)
      step.label += fmt::format(" batch {}", gemm.batch);
    // "gemm 8x128x64 bias+relu tf32", "gemm 8x128x64 bf16".
    SmallVector<std::string> parts;
    if (gemm.bias)
      parts.push_back("bias");
    if (gemm.addend)
      parts.push_back("addend");
    if (gemm.epilogue != rt::GemmEpilogue::None)
      parts.push_back(rt::gemmEpilogueName(gemm.epilogue));
    if (!parts.empty())
      step.label += " " + llvm::join(parts, "+");
    if (gemm.tf32)
      step.label += " tf32";
    else if (gemm.isFp8())
      step.label +=
          fmt::format(" fp8 scales {:.6g} {:.6g}", gemm.scaleA, gemm.scaleB);
    else if (gemm.dtype == rt::DType::BF16 || gemm.dtype == rt::DType::F16)
      step.label += std::string(" ") + rt::dtypeName(gemm.dtype);
    pkg.steps.push_back(std::move(step));
    return success();
  };
  auto extent = [&](int64_t stride, int64_t batch, int64_t mat,
                    uint64_t size) -> uint64_t {
    return ((batch - 1) * stride + mat) * size;
  };

  bool aFull = bA == bC,
       bAllOne = llvm::all_of(bB, [](int64_t d) { return d == 1; });
  if (batches == 1 || (bAllOne && aFull && !ta)) {
    // One GEMM: a single matrix product, or B shared by every batch and A's
    // rows stacked into one tall matrix.
    g.m = m * batches;
    g.batch = 1;
    g.a = aRef;
    g.b = bRef;
    g.c = cRef;
    g.a.bytes = matA * batches * es;
    g.b.bytes = matB * es;
    g.c.bytes = g.m * n * esC;
    if (addendRef) {
      g.addend = addendRef;
      g.addend->bytes = g.c.bytes;
    }
    return addStep(g);
  }

  // The longest run of trailing batch dimensions over which each operand is
  // either fully present or fully broadcast becomes the GEMM's batch; the
  // remaining outer batch indices get one GEMM each.
  auto uniform = [&](ArrayRef<int64_t> bx, size_t s) {
    bool full = true, broadcast = true;
    for (size_t d = s; d < nb; ++d) {
      full &= bx[d] == bC[d];
      broadcast &= bx[d] == 1;
    }
    return full || broadcast;
  };
  size_t split = nb;
  while (split > 0 && uniform(bA, split - 1) && uniform(bB, split - 1))
    --split;
  int64_t inner = 1;
  for (size_t d = split; d < nb; ++d)
    inner *= bC[d];
  auto innerStride = [&](ArrayRef<int64_t> bx, int64_t mat) -> int64_t {
    for (size_t d = split; d < nb; ++d)
      if (bx[d] != 1)
        return mat;
    return 0;
  };
  g.batch = inner;
  g.strideA = innerStride(bA, matA);
  g.strideB = innerStride(bB, matB);
  g.strideC = matC;
  // Element strides of every batch dimension of each operand.
  auto batchStrides = [&](ArrayRef<int64_t> bx, int64_t mat) {
    SmallVector<int64_t> strides(nb);
    int64_t s = mat;
    for (int64_t d = (int64_t)nb - 1; d >= 0; --d) {
      strides[d] = s;
      s *= bx[d];
    }
    return strides;
  };
  SmallVector<int64_t> sA = batchStrides(bA, matA), sB = batchStrides(bB, matB),
                       sC = batchStrides(bC, matC);
  int64_t outer = batches / inner;
  // One GEMM call per outer batch index: bound the schedule's length.
  constexpr int64_t kMaxGemmCalls = 65536;
  if (outer > kMaxGemmCalls)
    return op.emitOpError() << "needs " << outer
                            << " GEMM calls (its operands broadcast over "
                               "different batch dimensions); at most "
                            << kMaxGemmCalls << " are supported";
  for (int64_t o = 0; o < outer; ++o) {
    int64_t rest = o, offA = 0, offB = 0, offC = 0;
    for (int64_t d = (int64_t)split - 1; d >= 0; --d) {
      int64_t i = rest % bC[d];
      rest /= bC[d];
      offA += (bA[d] == 1 ? 0 : i) * sA[d];
      offB += (bB[d] == 1 ? 0 : i) * sB[d];
      offC += i * sC[d];
    }
    rt::GemmStep step = g;
    step.a = aRef;
    step.b = bRef;
    step.c = cRef;
    step.a.offset += offA * es;
    step.b.offset += offB * es;
    step.c.offset += offC * esC;
    step.a.bytes = extent(step.strideA, inner, matA, es);
    step.b.bytes = extent(step.strideB, inner, matB, es);
    step.c.bytes = extent(step.strideC, inner, matC, esC);
    if (addendRef) {
      step.addend = addendRef;
      step.addend->offset += offC * esC;
      step.addend->bytes = step.c.bytes;
    }
    if (failed(addStep(step)))
      return failure();
  }
  return success();
}

FailureOr<rt::Package> PackageBuilder::build() {
  if (func.getBody().empty())
    return func.emitOpError("cannot compile a function without a body");
  pkg.entry = func.getSymName().str();
  // verifyOperationAttribute checked that the sizes are non-negative i64s.
  std::optional<int64_t> arena = getArenaBytes(func);
  if (!arena)
    return func.emitOpError()
           << "has no '" << attr::kArenaBytes
           << "' attribute; run dlc-plan-memory before code generation";
  pkg.arenaBytes = *arena;
  pkg.intermediateBytes = getIntermediateBytes(func).value_or(0);
  pkg.sourceOpCount = getSourceOpCount(func).value_or(0);

  Block &body = func.getBody().front();
  for (BlockArgument arg : body.getArguments()) {
    FailureOr<rt::TensorDesc> desc = describe(arg.getType(), arg.getLoc());
    if (failed(desc))
      return failure();
    rt::BufferRef ref;
    ref.kind = rt::BufferRef::Kind::Input;
    ref.index = arg.getArgNumber();
    ref.bytes = desc->byteSize();
    storage[arg] = ref;
    pkg.inputs.push_back(std::move(*desc));
    auto name =
        func.getArgAttrOfType<StringAttr>(arg.getArgNumber(), attr::kOnnxName);
    pkg.inputNames.push_back(name ? name.str() : std::string());
  }
  // Only an unregistered op (dlc-opt --allow-unregistered-dialect) can end
  // a verified function body in something else.
  auto ret = dyn_cast<func::ReturnOp>(body.getTerminator());
  if (!ret)
    return func.emitOpError("does not end in func.return");
  for (auto [j, v] : llvm::enumerate(ret.getOperands())) {
    FailureOr<rt::TensorDesc> desc = describe(v.getType(), ret.getLoc());
    if (failed(desc))
      return failure();
    pkg.outputs.push_back(std::move(*desc));
    auto name = func.getResultAttrOfType<StringAttr>(j, attr::kOnnxName);
    pkg.outputNames.push_back(name ? name.str() : std::string());
    Value root = v;
    while (auto reshape = root.getDefiningOp<ReshapeOp>())
      root = reshape.getInput();
    firstReturn.try_emplace(root, j);
  }
  reserveConstants();
  if (failed(addTrainingState()))
    return failure();
  auto allEmpty = [](const std::vector<std::string> &names) {
    return llvm::all_of(names, [](const std::string &n) { return n.empty(); });
  };
  if (allEmpty(pkg.inputNames) && allEmpty(pkg.outputNames)) {
    pkg.inputNames.clear();
    pkg.outputNames.clear();
  }

  std::vector<EmittedKernel> kernels;
  if (failed(emitCudaKernels(func, pkg.cudaSource, kernels)))
    return failure();
  std::vector<EmittedAttention> attentions;
  if (failed(emitAttentionKernels(func, pkg.cudaSource, attentions)))
    return failure();
  size_t nextKernel = 0, nextAttention = 0;

  for (Operation &op : body) {
    if (auto c = dyn_cast<ConstantOp>(op)) {
      if (failed(addConstant(c)))
        return failure();
    } else if (auto reshape = dyn_cast<ReshapeOp>(op)) {
      storage[reshape.getResult()] = storageOf(reshape.getInput());
    } else if (auto slice = dyn_cast<SliceOp>(op);
               slice && slice->hasAttr(attr::kView)) {
      // A contiguous, aligned block of the operand's buffer (SliceOp's
      // verifier checks attr::kView).
      std::optional<int64_t> offset = slice.contiguousOffset();
      if (!offset)
        return slice.emitOpError()
               << "is marked a view (" << attr::kView
               << ") but does not select a contiguous block of its operand";
      rt::BufferRef ref = storageOf(slice.getInput());
      ref.offset += uint64_t(*offset) * uint64_t(elementBytes(slice.getType()));
      ref.bytes = tensorBytes(slice.getType());
      storage[slice.getResult()] = ref;
    } else if (auto kernel = dyn_cast<KernelOp>(op)) {
      // emitCudaKernels emitted every top-level kernel in this order.
      assert(nextKernel < kernels.size() && kernels[nextKernel].op == kernel &&
             "kernel not emitted as CUDA code");
      const EmittedKernel &emitted = kernels[nextKernel++];
      if (failed(addLaunch(kernel, emitted.info, emitted.grid, emitted.block,
                           emitted.sharedBytes, emitted.label)))
        return failure();
      pkg.steps.back().kernel.flops = emitted.flops;
    } else if (auto matmul = dyn_cast<MatmulOp>(op)) {
      if (failed(addMatmul(matmul)))
        return failure();
    } else if (auto conv = dyn_cast<ConvOp>(op)) {
      if (failed(addConv(conv)))
        return failure();
    } else if (auto attention = dyn_cast<AttentionOp>(op)) {
      assert(nextAttention < attentions.size() &&
             attentions[nextAttention].op == attention &&
             "attention not emitted as CUDA code");
      const EmittedAttention &emitted = attentions[nextAttention++];
      if (failed(addLaunch(attention, emitted.info, emitted.grid, emitted.block,
                           /*sharedBytes=*/0, emitted.label, emitted.inputs)))
        return failure();
      pkg.steps.back().kernel.flops = emitted.flops;
    } else if (isa<func::ReturnOp>(op)) {
      continue;
    } else if (auto call = dyn_cast<func::CallOp>(op)) {
      // dlc compile inlines calls first (dlc-inline-calls).
      return call.emitOpError()
             << "calls '@" << call.getCallee()
             << "'; code generation takes a function without calls (run "
                "dlc-inline-calls first)";
    } else {
      return op.emitOpError()
             << "cannot appear at the top level of a function given to code "
                "generation (run dlc-fuse and dlc-plan-memory first)";
    }
  }

  // Returned values not produced in place: inputs, constants, views of
  // arena buffers, and values returned more than once.
  for (auto [j, v] : llvm::enumerate(ret.getOperands())) {
    rt::BufferRef src = storageOf(v);
    if (src.kind == rt::BufferRef::Kind::Output && src.index == j)
      continue;
    rt::Step step;
    step.kind = rt::Step::Kind::Copy;
    step.copy.src = src;
    step.copy.src.bytes = byteSize(v);
    step.copy.dst.kind = rt::BufferRef::Kind::Output;
    step.copy.dst.index = j;
    step.copy.dst.bytes = byteSize(v);
    step.label = fmt::format("copy to output {}", j);
    pkg.steps.push_back(std::move(step));
  }

  if (rt::Status s = rt::validatePackage(pkg); !s)
    return func.emitOpError()
           << "generated an invalid package: " << s.message();

  if (options.compileCubins) {
    // The fused kernels, for ptxas's findings. A spilling fused kernel is
    // what the fusion limits can change, so it gets a warning at its ops.
    // The attention templates' register budget is ptxas's own occupancy
    // trade-off (a few bytes of spills at 128 registers for head dimension
    // 64 on the tensor-core path; docs/fusion.md): reported in the package
    // and the summary, not warned about.
    llvm::StringMap<Operation *> fused;
    for (const EmittedKernel &k : kernels)
      fused[k.info.name] = k.op;
    for (const std::string &arch : options.archs) {
      auto cubin = rt::compileCuda(pkg.cudaSource, arch);
      if (!cubin)
        return func.emitOpError()
               << "cannot compile the generated CUDA code for " << arch << ": "
               << cubin.message();
      for (const rt::KernelResources &r : cubin->resources) {
        Operation *op = fused.lookup(r.kernel);
        if (!op || !r.spills())
          continue;
        op->emitWarning() << "fused kernel '" << r.kernel
                          << "' spills registers on " << arch << " ("
                          << r.registers << " registers, " << r.spillStoreBytes
                          << " bytes of spill stores and " << r.spillLoadBytes
                          << " of spill loads per thread), which slows it "
                             "down; a smaller --max-ops-per-kernel or "
                             "--max-outputs-per-kernel splits it";
      }
      rt::CompiledCubin c = cubin.take();
      pkg.cubins.push_back({arch, std::move(c.image), std::move(c.resources)});
    }
  }
  pkg.stats = stats();
  return std::move(pkg);
}

/// The figures of the compiled model (rt::PackageStats, docs/fusion.md):
/// what each step moves and computes, from the package's steps; what kind
/// of work each kernel does, from the function's ops.
rt::PackageStats PackageBuilder::stats() {
  rt::PackageStats s;
  auto computesConv = [](Operation *op) {
    return isa<Conv2DOp, ConvTranspose2DOp>(op);
  };
  for (Operation &op : func.getBody().front()) {
    if (auto kernel = dyn_cast<KernelOp>(op)) {
      ++s.kernels;
      s.castKernels += kernel.isCastOnly();
      s.dataMovementKernels += kernel.isDataMovementOnly();
      kernel.getBodyBlock().walk([&](MatmulOp) { ++s.gemmKernels; });
      bool conv = false;
      kernel.getBodyBlock().walk(
          [&](Operation *inner) { conv |= computesConv(inner); });
      s.convolutions += conv;
    } else if (isa<AttentionOp>(op)) {
      ++s.attention;
    } else if (isa<MatmulOp>(op)) {
      ++s.gemms;
      s.convolutions += isFromConv(&op);
    } else if (isa<ConvOp>(op)) {
      ++s.convolutions;
    }
  }
  s.launches = pkg.steps.size();
  for (const rt::Step &step : pkg.steps) {
    s.bytesMoved += rt::stepBytes(step);
    s.flops += rt::stepFlops(step);
  }
  s.constantBytes = pkg.constants.size();
  s.minBytes = s.constantBytes;
  for (const rt::TensorDesc &d : pkg.inputs)
    s.minBytes += d.byteSize();
  for (const rt::TensorDesc &d : pkg.outputs)
    s.minBytes += d.byteSize();
  s.arenaBytes = pkg.arenaBytes;
  s.arenaLowerBound = getArenaLowerBound(func).value_or(0);
  s.intermediateBytes = pkg.intermediateBytes;
  s.peakBytes = pkg.arenaBytes + uint64_t(residentBytes(func));
  if (auto kept = func->getAttrOfType<IntegerAttr>(attr::kActivationBytes))
    s.activationBytesKept = uint64_t(kept.getInt());
  if (auto flops = func->getAttrOfType<FloatAttr>(attr::kRecomputeFlops))
    s.recomputeFlops = flops.getValueAsDouble();
  return s;
}

} // namespace

FailureOr<rt::Package>
mlir::dlc::generatePackage(func::FuncOp func, const CodegenOptions &options) {
  PackageBuilder builder(func, options);
  return builder.build();
}
