//===- ReferenceModel.cpp - The package's reference model, weights once ---===//
//
// A package carries the lowered model for `dlc run --check` (the reference
// interpreter's input). Its weights would double a weight-heavy package, so
// the model is written as MLIR bytecode without its dense_resource data,
// and each resource is stored once beside it (rt::ReferenceBlob): as a range
// of the package's constants when the compiled model keeps the same bytes
// (found by hashing the first bytes of every constant slot, then compared
// in full), else as its own bytes. Inline weights the package holds become
// resources first, and under a low precision an f32 weight the package
// holds rounded to bf16 or f16 becomes that rounded weight widened by a
// dlc.cast: the interpreter evaluates in f32 the weights the package
// computes with, and a bf16 package is half an f32 one (docs/precision.md).
// Reading gives the parsed model's resources their data back.
//
// A package is untrusted input, and MLIR's bytecode reader crashes on
// hostile bytes, or corrupts its heap without crashing: after checks of its
// size and its weights' alignment here, the reference model's bytecode is
// read in a child process, which sends it back as MLIR text
// (readBytecodeAsText, ir/Parse.h), and that text is parsed and evaluated
// in another child, under limits (runtime/Sandbox.h). Its location chains
// are written cut to kReferenceLocationDepth levels (MLIR's reader
// recurses once per level).
//
//===----------------------------------------------------------------------===//

#include "api/Compiler.h"
#include "ir/Dialect.h"
#include "ir/Limits.h"
#include "ir/Parse.h"
#include "ir/Reference.h"
#include "runtime/Sandbox.h"
#include "runtime/Support.h"

#include "mlir/Bytecode/BytecodeReader.h"
#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <cstring>
#include <mutex>
#include <unordered_map>

using namespace mlir;

namespace dlc {

namespace {

/// Weights shorter than this are stored as they are (and not looked up).
constexpr size_t kProbe = 64;

/// The package's constants, found by their bytes: the hash of the first
/// kProbe bytes at every constant slot, then a full comparison.
class ConstantIndex {
public:
  explicit ConstantIndex(const std::vector<uint8_t> &constants)
      : constants(constants) {
    for (uint64_t offset = 0; offset + kProbe <= constants.size();
         offset += rt::kConstantAlignment)
      slots.emplace(probe(constants.data() + offset), offset);
  }

  /// The offset of a constant slot that holds `bytes`.
  std::optional<uint64_t> find(llvm::ArrayRef<char> bytes) const {
    if (bytes.size() < kProbe)
      return std::nullopt;
    // Candidates compared in full per weight (zero-filled weights match
    // the probe of every zero run).
    constexpr int kMaxCompares = 64;
    auto [begin, end] = slots.equal_range(probe(bytes.data()));
    int compares = 0;
    for (auto it = begin; it != end && compares < kMaxCompares;
         ++it, ++compares) {
      uint64_t offset = it->second;
      if (bytes.size() <= constants.size() - offset &&
          std::memcmp(constants.data() + offset, bytes.data(), bytes.size()) ==
              0)
        return offset;
    }
    return std::nullopt;
  }

private:
  static uint64_t probe(const void *data) {
    return llvm::xxh3_64bits(
        llvm::ArrayRef<uint8_t>(static_cast<const uint8_t *>(data), kProbe));
  }
  const std::vector<uint8_t> &constants;
  std::unordered_multimap<uint64_t, uint64_t> slots;
};

/// The stored bytes of a float constant that is not a splat: its dense
/// storage or its dense_resource blob; empty for another form.
llvm::ArrayRef<char> storedBytes(ElementsAttr value) {
  auto type = cast<RankedTensorType>(value.getType());
  if (!isa<FloatType>(type.getElementType()))
    return {};
  if (auto dense = dyn_cast<DenseElementsAttr>(value))
    return dense.isSplat() ? llvm::ArrayRef<char>() : dense.getRawData();
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(value))
    if (AsmResourceBlob *blob = resource.getRawHandle().getBlob())
      return blob->getData();
  return {};
}

/// f32 `bytes` rounded to `to` (bf16 or f16) as dlc-assign-precision
/// converts a constant (round to nearest even).
std::vector<char> roundedTo(llvm::ArrayRef<char> bytes, FloatType to) {
  std::vector<char> out;
  out.reserve(bytes.size() / 2);
  for (size_t i = 0; i + 4 <= bytes.size(); i += 4) {
    uint32_t bits;
    std::memcpy(&bits, bytes.data() + i, 4);
    APFloat v(llvm::APFloat::IEEEsingle(), llvm::APInt(32, bits));
    bool lost = false;
    v.convert(to.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
    uint16_t half = uint16_t(v.bitcastToAPInt().getZExtValue());
    out.push_back(char(half & 0xff));
    out.push_back(char(half >> 8));
  }
  return out;
}

/// A dense_resource constant of `type` holding `bytes`.
ElementsAttr resourceConstant(RankedTensorType type,
                              llvm::ArrayRef<char> bytes) {
  AsmResourceBlob blob =
      HeapAsmResourceBlob::allocateAndCopyWithAlign(bytes, alignof(uint64_t));
  return DenseResourceElementsAttr::get(type, "dlc_reference_weight",
                                        std::move(blob));
}

/// Makes the reference model's weights the package's where it can: an
/// inline weight whose bytes a constant of the package holds becomes a
/// dense_resource (stored as that range), and under a low precision an f32
/// weight the package holds rounded to bf16 or f16 (dlc-assign-precision
/// converted it at compile time) becomes that rounded weight and a
/// dlc.cast to f32. The interpreter then evaluates in f32 the weights the
/// package computes with, and the package stores them once.
void shareWeights(ModuleOp module, const ConstantIndex &index,
                  llvm::ArrayRef<FloatType> lowTypes) {
  SmallVector<mlir::dlc::ConstantOp> constants;
  module.walk([&](mlir::dlc::ConstantOp op) { constants.push_back(op); });
  for (mlir::dlc::ConstantOp op : constants) {
    ElementsAttr value = op.getValue();
    llvm::ArrayRef<char> bytes = storedBytes(value);
    if (bytes.size() < kProbe)
      continue;
    auto type = cast<RankedTensorType>(value.getType());
    if (index.find(bytes)) {
      if (isa<DenseElementsAttr>(value))
        op.setValueAttr(resourceConstant(type, bytes));
      continue;
    }
    if (!type.getElementType().isF32())
      continue;
    for (FloatType low : lowTypes) {
      std::vector<char> rounded = roundedTo(bytes, low);
      if (!index.find(rounded))
        continue;
      OpBuilder b(op);
      auto lowType =
          RankedTensorType::get(type.getShape(), low, type.getEncoding());
      Value weight = b.create<mlir::dlc::ConstantOp>(
          op.getLoc(), resourceConstant(lowType, rounded));
      Value widened = b.create<mlir::dlc::CastOp>(op.getLoc(), type, weight);
      op.getResult().replaceAllUsesWith(widened);
      op.erase();
      break;
    }
  }
}

} // namespace

LogicalResult writeReferenceModel(ModuleOp module, rt::Package &package) {
  MLIRContext *context = module.getContext();
  ConstantIndex index(package.constants);
  SmallVector<FloatType, 2> lowTypes;
  if (package.precision == "bf16" || package.precision == "fp8")
    lowTypes.push_back(BFloat16Type::get(context));
  else if (package.precision == "fp16")
    lowTypes.push_back(Float16Type::get(context));
  shareWeights(module, index, lowTypes);

  package.referenceBlobs.clear();
  llvm::StringSet<> seen;
  module->walk([&](Operation *op) {
    op->getAttrDictionary().walk([&](DenseResourceElementsAttr attr) {
      DenseResourceElementsHandle handle = attr.getRawHandle();
      AsmResourceBlob *blob = handle.getBlob();
      if (!blob || !seen.insert(handle.getKey()).second)
        return;
      llvm::ArrayRef<char> data = blob->getData();
      rt::ReferenceBlob stored;
      stored.key = handle.getKey().str();
      // The interpreter reads weights byte by byte: a larger alignment
      // (a bytecode model's blob can have any) is not kept.
      stored.alignment = std::max<uint64_t>(
          std::min<uint64_t>(blob->getDataAlignment(),
                             mlir::dlc::kMaxResourceAlignment),
          1);
      // A weight the package's constants hold is stored as that range.
      if (std::optional<uint64_t> offset = index.find(data)) {
        stored.inConstants = true;
        stored.offset = *offset;
        stored.size = data.size();
      } else {
        stored.data.assign(data.begin(), data.end());
      }
      package.referenceBlobs.push_back(std::move(stored));
    });
  });
  // Bytecode keeps locations (what the reference interpreter reports, dlc
  // run --check, then points into the user's model), cut to
  // kReferenceLocationDepth levels when some are deeper.
  if (mlir::dlc::hasDeepLocations(module, mlir::dlc::kReferenceLocationDepth))
    mlir::dlc::truncateLocations(module, mlir::dlc::kReferenceLocationDepth);
  BytecodeWriterConfig config;
  config.setElideResourceDataFlag();
  package.referenceIR.clear();
  llvm::raw_string_ostream os(package.referenceIR);
  if (failed(writeBytecodeToFile(module, os, config)))
    return module.emitError("cannot write the reference model as bytecode");
  return success();
}

namespace {

/// How far the child got (rt::setChildStage).
enum ReferenceStage { kReading = 1, kEvaluating = 2 };

/// What the reference model may take beyond the package's compiled
/// contents: its bytecode holds the lowered ops (tens of bytes each) and
/// their inline constants, which the compiled model holds too.
constexpr uint64_t kReferenceSlackBytes = uint64_t(1) << 20;

/// A child that uses no CPU for this long waits for a lock held when it
/// was forked (runtime/Sandbox.h): it is forked again.
constexpr uint32_t kReferenceIdleSeconds = 5;

/// The limits of the child that evaluates a reference model.
rt::ChildLimits referenceLimits(const rt::Package &package) {
  uint64_t blobBytes = 0;
  for (const rt::ReferenceBlob &blob : package.referenceBlobs)
    blobBytes += blob.inConstants ? blob.size : blob.data.size();
  rt::ChildLimits limits;
  // The interpreter's values (kReferenceElementBudget doubles) and as much
  // again for an op's temporaries, the parsed model, its weights.
  limits.memoryBytes = uint64_t(mlir::dlc::kReferenceElementBudget) * 16 +
                       (uint64_t(2) << 30) + 16 * package.referenceIR.size() +
                       2 * blobBytes;
  limits.cpuSeconds = 600;
  limits.wallSeconds = 1800;
  limits.idleSeconds = kReferenceIdleSeconds;
  // A known stack, whatever thread calls (the text it parses nests at most
  // kMaxNestingDepth levels).
  limits.stackBytes = uint64_t(64) << 20;
  return limits;
}

/// The size and blob checks that come before MLIR sees the model.
rt::Status checkReferenceBounds(const rt::Package &package) {
  const uint64_t allowed = kReferenceSlackBytes +
                           2 * uint64_t(package.constants.size()) +
                           2 * uint64_t(package.cudaSource.size());
  if (package.referenceIR.size() > allowed)
    return rt::Status::error(
        "the package's reference model is " +
        std::to_string(package.referenceIR.size()) + " bytes; a package of " +
        std::to_string(package.constants.size()) + " constant bytes and " +
        std::to_string(package.cudaSource.size()) +
        " bytes of CUDA source has one of at most " + std::to_string(allowed) +
        " bytes");
  for (const rt::ReferenceBlob &blob : package.referenceBlobs)
    if (blob.alignment > mlir::dlc::kMaxResourceAlignment)
      return rt::Status::error(
          "the package's reference weight '" + blob.key + "' has alignment " +
          std::to_string(blob.alignment) + "; dlc reads weights aligned to " +
          "at most " + std::to_string(mlir::dlc::kMaxResourceAlignment));
  return rt::Status::ok();
}

/// The reference model as MLIR text: the text it is, or its bytecode read
/// in a child process and printed there (ir/Parse.h, readBytecodeAsText).
/// On failure, an error message.
rt::Result<std::string> referenceText(const rt::Package &package) {
  if (!isBytecode(llvm::MemoryBufferRef(package.referenceIR, "reference")))
    return package.referenceIR;
  DialectRegistry registry;
  registerDlcDialects(registry);
  MLIRContext context(registry, MLIRContext::Threading::DISABLED);
  DiagnosticCollector diagnostics(context);
  auto buffer =
      llvm::MemoryBuffer::getMemBufferCopy(package.referenceIR, "reference");
  std::string crash;
  FailureOr<std::string> text =
      mlir::dlc::readBytecodeAsText(*buffer, &context, &crash);
  if (succeeded(text))
    return std::move(*text);
  if (!crash.empty())
    return rt::Status::error("the package's reference model is corrupt (" +
                             crash + ")");
  return rt::Status::error("the package's reference model does not parse:\n" +
                           diagnostics.text);
}

/// The reference model from its text (referenceText) in `sourceMgr`,
/// given its weights; errors go to the context's diagnostic handler.
OwningOpRef<ModuleOp> parseReferenceText(const rt::Package &package,
                                         const std::string &text,
                                         llvm::SourceMgr &sourceMgr,
                                         MLIRContext &context) {
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(text, "reference"), llvm::SMLoc());
  OwningOpRef<ModuleOp> module = parseModule(sourceMgr, context);
  if (!module)
    return nullptr;
  auto &manager = DenseResourceElementsHandle::getManagerInterface(&context);
  for (const rt::ReferenceBlob &blob : package.referenceBlobs) {
    if (!manager.getBlobManager().lookup(blob.key)) {
      emitError(UnknownLoc::get(&context))
          << "the package's reference model has no weight named '" << blob.key
          << "'";
      return nullptr;
    }
    // Validated when the package was read: the range lies in the constants.
    llvm::ArrayRef<char> data =
        blob.inConstants
            ? llvm::ArrayRef<char>(reinterpret_cast<const char *>(
                                       package.constants.data() + blob.offset),
                                   blob.size)
            : llvm::ArrayRef<char>(
                  reinterpret_cast<const char *>(blob.data.data()),
                  blob.data.size());
    manager.update(blob.key, HeapAsmResourceBlob::allocateAndCopyWithAlign(
                                 data, blob.alignment));
  }
  return module;
}

/// Why the child that evaluates the reference model (from its text) did
/// not finish.
std::string childFailure(const rt::ChildResult &child) {
  if (child.end == rt::ChildResult::End::NoChild)
    return "cannot check against the reference model: its child process " +
           child.describe();
  if (child.stage == kEvaluating)
    return "the reference interpreter " + child.describe() +
           " evaluating the package's reference model";
  return "the package's reference model is corrupt (MLIR's parser " +
         child.describe() + ")";
}

/// Runs what the child runs once in this process, so that lazily
/// initialized statics of MLIR and dlc (dialects, type IDs, the bytecode
/// reader) are initialized before the first fork: a child then needs no
/// lock that another thread of the parent could hold.
void prepareForFork() {
  static std::once_flag once;
  std::call_once(once, [] {
    DialectRegistry registry;
    registerDlcDialects(registry);
    MLIRContext context(registry, MLIRContext::Threading::DISABLED);
    context.loadAllAvailableDialects();
    ScopedDiagnosticHandler quiet(&context,
                                  [](Diagnostic &) { return success(); });
    llvm::SourceMgr sourceMgr;
    sourceMgr.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBufferCopy(
            "func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {\n"
            "  %0 = dlc.exp %x : tensor<2xf32>\n"
            "  return %0 : tensor<2xf32>\n"
            "}\n",
            "warm-up"),
        llvm::SMLoc());
    OwningOpRef<ModuleOp> module = parseModule(sourceMgr, context);
    if (!module)
      return;
    std::string bytecode;
    llvm::raw_string_ostream os(bytecode);
    if (failed(writeBytecodeToFile(*module, os)))
      return;
    llvm::SourceMgr bytecodeMgr;
    bytecodeMgr.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBufferCopy(bytecode, "warm-up"),
        llvm::SMLoc());
    OwningOpRef<ModuleOp> again = parseSourceFile<ModuleOp>(
        bytecodeMgr, ParserConfig(&context, /*verifyAfterParse=*/true));
    if (!again)
      return;
    std::string text;
    llvm::raw_string_ostream textOs(text);
    OpPrintingFlags flags;
    flags.enableDebugInfo(/*enable=*/true, /*prettyForm=*/false);
    flags.printGenericOpForm();
    again->print(textOs, flags);
    if (auto func = again->lookupSymbol<func::FuncOp>("main"))
      (void)mlir::dlc::evaluateReference(func,
                                         {rt::HostTensor(rt::DType::F32, {2})});
  });
}

/// The child's answer: a tag byte ('E' an error message, 'T' tensors),
/// then the tensors as writeTensors writes them (rt::ByteWriter).
std::string encodeError(const std::string &message) { return "E" + message; }

void writeTensors(rt::ByteWriter &w,
                  const std::vector<rt::HostTensor> &tensors) {
  w.u64(tensors.size());
  for (const rt::HostTensor &t : tensors) {
    w.u8(uint8_t(t.dtype));
    w.u64(t.shape.size());
    for (int64_t d : t.shape)
      w.i64(d);
    w.blob(t.data.data(), t.data.size());
  }
}

std::string encodeTensors(const std::vector<rt::HostTensor> &tensors) {
  std::vector<uint8_t> out = {uint8_t('T')};
  rt::ByteWriter w(out);
  writeTensors(w, tensors);
  return std::string(out.begin(), out.end());
}

/// Tensors as writeTensors writes them.
bool readTensors(rt::ByteReader &r, std::vector<rt::HostTensor> &tensors) {
  uint64_t count = 0;
  // Each takes at least 17 bytes.
  if (!r.u64(count) || count > r.remaining() / 17)
    return false;
  tensors.assign(size_t(count), rt::HostTensor());
  for (rt::HostTensor &t : tensors) {
    uint8_t dtype = 0;
    uint64_t rank = 0;
    if (!r.u8(dtype) || !r.u64(rank) || rank > 64)
      return false;
    t.dtype = rt::DType(dtype);
    t.shape.resize(rank);
    for (int64_t &d : t.shape)
      if (!r.i64(d))
        return false;
    if (!r.blob(t.data))
      return false;
  }
  return true;
}

/// The child's tensors, checked against the package's outputs.
rt::Result<std::vector<rt::HostTensor>>
decodeTensors(llvm::StringRef bytes, const rt::Package &package) {
  const rt::Status corrupt = rt::Status::error(
      "internal error: the reference check's child sent a malformed answer");
  if (bytes.empty())
    return corrupt;
  if (bytes.front() == 'E')
    return rt::Status::error(bytes.drop_front().str());
  if (bytes.front() != 'T')
    return corrupt;
  rt::ByteReader r(bytes.bytes_begin() + 1, bytes.size() - 1);
  std::vector<rt::HostTensor> tensors;
  if (!readTensors(r, tensors) || r.remaining() != 0)
    return corrupt;
  if (tensors.size() != package.outputs.size())
    return rt::Status::error("the package's reference model returns " +
                             std::to_string(tensors.size()) +
                             " values, but the package " +
                             std::to_string(package.outputs.size()));
  for (size_t i = 0; i < tensors.size(); ++i) {
    const rt::HostTensor &t = tensors[i];
    const rt::TensorDesc &desc = package.outputs[i];
    if (t.dtype != desc.dtype || t.shape != desc.shape ||
        t.data.size() != desc.byteSize())
      return rt::Status::error("the package's reference model returns " +
                               rt::describe(t.dtype, t.shape) + " as output " +
                               std::to_string(i) + ", but the package " +
                               rt::describe(desc.dtype, desc.shape));
  }
  return tensors;
}

/// What the evaluating child needs (it is made by a fork server that has
/// none of this process's data, runtime/Sandbox.h): the reference model's
/// text, its entry, its weights and the inputs.
std::vector<uint8_t>
encodeEvaluation(const rt::Package &package, const std::string &text,
                 const std::vector<rt::HostTensor> &inputs) {
  std::vector<uint8_t> out;
  rt::ByteWriter w(out);
  w.string(text);
  w.string(package.entry);
  w.u64(package.referenceBlobs.size());
  for (const rt::ReferenceBlob &blob : package.referenceBlobs) {
    w.string(blob.key);
    w.u64(blob.alignment);
    if (blob.inConstants)
      w.blob(package.constants.data() + blob.offset, blob.size);
    else
      w.blob(blob.data.data(), blob.data.size());
  }
  writeTensors(w, inputs);
  return out;
}

/// encodeEvaluation's bytes as a package of only the entry and the
/// weights (their bytes their own), the text and the inputs.
bool decodeEvaluation(rt::ByteReader &r, rt::Package &package,
                      std::string &text, std::vector<rt::HostTensor> &inputs) {
  uint64_t blobs = 0;
  // Each blob takes at least 24 bytes.
  if (!r.string(text) || !r.string(package.entry) || !r.u64(blobs) ||
      blobs > r.remaining() / 24)
    return false;
  package.referenceBlobs.resize(size_t(blobs));
  for (rt::ReferenceBlob &blob : package.referenceBlobs)
    if (!r.string(blob.key) || !r.u64(blob.alignment) || !r.blob(blob.data))
      return false;
  return readTensors(r, inputs) && r.remaining() == 0;
}

/// Parses and evaluates the reference model (in the child): its outputs
/// as encodeTensors writes them, or an error.
std::string evaluate(const rt::Package &package, const std::string &text,
                     const std::vector<rt::HostTensor> &inputs) {
  rt::setChildStage(kReading);
  DialectRegistry registry;
  registerDlcDialects(registry);
  MLIRContext context(registry, MLIRContext::Threading::DISABLED);
  DiagnosticCollector diagnostics(context);
  llvm::SourceMgr sourceMgr;
  OwningOpRef<ModuleOp> module =
      parseReferenceText(package, text, sourceMgr, context);
  if (!module)
    return encodeError("the package's reference model does not parse:\n" +
                       diagnostics.text);
  FailureOr<func::FuncOp> func = findEntry(*module, package.entry);
  if (failed(func))
    return encodeError(diagnostics.text);
  rt::setChildStage(kEvaluating);
  auto outputs = mlir::dlc::evaluateReference(*func, inputs);
  if (failed(outputs))
    return encodeError(diagnostics.text.empty()
                           ? "the reference interpreter failed"
                           : StringRef(diagnostics.text).rtrim().str());
  return encodeTensors(*outputs);
}

/// The evaluating child's job (runtime/Sandbox.h).
std::string evaluationJob(std::string_view input) {
  rt::Package package;
  std::string text;
  std::vector<rt::HostTensor> inputs;
  rt::ByteReader r(reinterpret_cast<const uint8_t *>(input.data()),
                   input.size());
  if (!decodeEvaluation(r, package, text, inputs))
    return encodeError("internal error: the reference check's child got a "
                       "malformed request");
  return evaluate(package, text, inputs);
}

} // namespace

OwningOpRef<ModuleOp> parseReferenceModel(const rt::Package &package,
                                          llvm::SourceMgr &sourceMgr,
                                          MLIRContext &context) {
  if (rt::Status bounds = checkReferenceBounds(package); !bounds) {
    emitError(UnknownLoc::get(&context)) << bounds.message();
    return nullptr;
  }
  prepareForFork();
  rt::Result<std::string> text = referenceText(package);
  if (!text) {
    emitError(UnknownLoc::get(&context)) << text.message();
    return nullptr;
  }
  return parseReferenceText(package, *text, sourceMgr, context);
}

rt::Result<std::vector<rt::HostTensor>>
runReference(const rt::Package &package,
             const std::vector<rt::HostTensor> &inputs) {
  if (package.referenceIR.empty())
    return rt::Status::error("the package holds no reference model (it was "
                             "compiled with --no-reference-model)");
  if (rt::Status bounds = checkReferenceBounds(package); !bounds)
    return bounds;
  if (!rt::inChild())
    prepareForFork();
  // Bytecode is read in a child of its own: the child that evaluates the
  // model parses only text, on a heap MLIR's bytecode reader never touched.
  rt::Result<std::string> text = referenceText(package);
  if (!text)
    return text.status();
  if (rt::inChild())
    return decodeTensors(evaluate(package, *text, inputs), package);
  const std::vector<uint8_t> request = encodeEvaluation(package, *text, inputs);
  rt::ChildResult child = rt::runInChild(
      referenceLimits(package), evaluationJob,
      std::string_view(reinterpret_cast<const char *>(request.data()),
                       request.size()));
  if (!child.returned())
    return rt::Status::error(childFailure(child));
  return decodeTensors(child.output, package);
}

} // namespace dlc
