//===- Package.cpp - The .dlcpkg format and package validation ------------===//
//
// Layout (docs/package-format.md has the full description): a 32-byte
// header (magic, version, flags, payload size, XXH64 checksum of the
// payload; FNV-1a before version 4), then the payload: a sequence of tagged,
// length-prefixed sections. Everything is little-endian.
//
//===----------------------------------------------------------------------===//

#include "runtime/Package.h"
#include "runtime/FaultInjection.h"
#include "runtime/Support.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <random>
#include <set>
#include <type_traits>

namespace dlc::rt {

Checked TensorDesc::elementCount() const { return checkedProduct(shape); }

Checked TensorDesc::checkedByteSize() const {
  return elementCount() * uint64_t(dtypeSize(dtype));
}

int64_t TensorDesc::numElements() const {
  return int64_t(std::min<uint64_t>(elementCount().valueOr(INT64_MAX),
                                    uint64_t(INT64_MAX)));
}

uint64_t TensorDesc::byteSize() const {
  return checkedByteSize().valueOr(UINT64_MAX);
}

std::string MemoryNeeds::describe() const {
  auto show = [](Checked c) {
    return c.ok() ? formatBytes(*c.value()) : std::string("over 2^64 bytes");
  };
  return "arena " + show(arena) + ", inputs " + show(inputs) + ", outputs " +
         show(outputs) + ", constants " + show(constants);
}

MemoryNeeds memoryNeeds(const Package &package) {
  MemoryNeeds needs;
  needs.arena = package.arenaBytes;
  for (const TensorDesc &d : package.inputs)
    needs.inputs += d.checkedByteSize();
  for (const TensorDesc &d : package.outputs)
    needs.outputs += d.checkedByteSize();
  needs.constants = uint64_t(package.constants.size());
  return needs;
}

const char *gemmEpilogueName(GemmEpilogue epilogue) {
  switch (epilogue) {
  case GemmEpilogue::None:
    return "none";
  case GemmEpilogue::Relu:
    return "relu";
  case GemmEpilogue::GeluTanh:
    return "gelu_tanh";
  }
  return "?";
}

void writeKernelResources(ByteWriter &w,
                          const std::vector<KernelResources> &list) {
  w.u32(uint32_t(list.size()));
  for (const KernelResources &k : list) {
    w.string(k.kernel);
    w.u32(k.registers);
    w.u32(k.stackBytes);
    w.u32(k.spillStoreBytes);
    w.u32(k.spillLoadBytes);
  }
}

bool readKernelResources(ByteReader &r, std::vector<KernelResources> &list) {
  uint32_t n = 0;
  // A record is at least a name's length (8) and four counts (16).
  if (!r.u32(n) || uint64_t(n) * 24 > r.remaining())
    return false;
  list.resize(n);
  for (KernelResources &k : list)
    if (!(r.string(k.kernel) && r.u32(k.registers) && r.u32(k.stackBytes) &&
          r.u32(k.spillStoreBytes) && r.u32(k.spillLoadBytes)))
      return false;
  return true;
}

namespace {

constexpr char kMagic[8] = {'D', 'L', 'C', 'P', 'K', 'G', 0, 0};
constexpr size_t kHeaderBytes = 32;

constexpr uint32_t tag(const char (&s)[5]) {
  return uint32_t(uint8_t(s[0])) | uint32_t(uint8_t(s[1])) << 8 |
         uint32_t(uint8_t(s[2])) << 16 | uint32_t(uint8_t(s[3])) << 24;
}

constexpr uint32_t kMeta = tag("META");
constexpr uint32_t kInputs = tag("INPT");
constexpr uint32_t kOutputs = tag("OUTP");
constexpr uint32_t kSource = tag("SRCE");
constexpr uint32_t kKernels = tag("KERN");
constexpr uint32_t kCubins = tag("CUBN");
constexpr uint32_t kSteps = tag("STEP");
constexpr uint32_t kConstants = tag("CNST");
constexpr uint32_t kReference = tag("RFIR");
/// Optional: the input and output names.
constexpr uint32_t kNames = tag("NAME");
/// Optional: ptxas's report per kernel of each cubin (Cubin::resources).
constexpr uint32_t kResources = tag("KRES");
/// Optional: the FLOPs of kernel steps with matrix products
/// (KernelStep::flops).
constexpr uint32_t kKernelFlops = tag("KFLP");
/// Optional: a training step's parameters and state (Package::state).
constexpr uint32_t kTrainingState = tag("TRST");
/// Optional: a training step's micro-batches and skipped-update output
/// (Package::microBatches, skippedOutput).
constexpr uint32_t kTrainingStep = tag("TSTP");
/// Optional: the bytes kernel steps move where less than their buffers
/// (KernelStep::bytes).
constexpr uint32_t kKernelBytes = tag("KBYT");
/// Optional: the precision the model was compiled for (Package::precision).
constexpr uint32_t kPrecision = tag("PREC");
constexpr uint32_t kStats = tag("STAT");

std::string tagName(uint32_t t) {
  std::string s;
  for (int i = 0; i < 4; ++i) {
    char c = char(t >> (8 * i));
    s += std::isprint(static_cast<unsigned char>(c)) ? c : '?';
  }
  return s;
}

//===--------------------------------------------------------------------===//
// Writing
//===--------------------------------------------------------------------===//

/// A section written in place, in `out`: beginSection reserves its
/// header (tag, flags, body size) and endSection fills it in once the body
/// follows, so that no body (the constants among them) is copied twice.
size_t beginSection(std::vector<uint8_t> &out) {
  size_t at = out.size();
  out.resize(at + 16);
  return at;
}

void endSection(std::vector<uint8_t> &out, size_t at, uint32_t sectionTag) {
  std::vector<uint8_t> header;
  ByteWriter w(header);
  w.u32(sectionTag);
  w.u32(0); // flags, reserved
  w.u64(out.size() - at - 16);
  std::memcpy(out.data() + at, header.data(), header.size());
}

void writeDescs(ByteWriter &w, const std::vector<TensorDesc> &descs) {
  w.u32(uint32_t(descs.size()));
  for (const TensorDesc &d : descs) {
    w.u8(uint8_t(d.dtype));
    w.u32(uint32_t(d.shape.size()));
    for (int64_t dim : d.shape)
      w.i64(dim);
  }
}

void writeRef(ByteWriter &w, const BufferRef &r) {
  w.u8(uint8_t(r.kind));
  w.u32(r.index);
  w.u64(r.offset);
  w.u64(r.bytes);
}

//===--------------------------------------------------------------------===//
// Reading
//===--------------------------------------------------------------------===//

/// Parses one section body; every read is bounds-checked, and counts are
/// checked against the bytes left so that a corrupt count cannot make us
/// allocate gigabytes.
class SectionParser {
public:
  SectionParser(uint32_t sectionTag, const uint8_t *data, size_t size)
      : tag_(sectionTag), r_(data, size) {}

  Status finish() {
    if (!r_.ok())
      return corrupt("ends early");
    if (r_.remaining() != 0)
      return corrupt("has " + std::to_string(r_.remaining()) +
                     " unexpected trailing bytes");
    return Status::ok();
  }
  Status corrupt(const std::string &what) {
    return Status::error("corrupt package: section '" + tagName(tag_) + "' " +
                         what);
  }

  bool count(uint32_t &n, size_t minElementBytes) {
    if (!r_.u32(n))
      return false;
    if (uint64_t(n) * minElementBytes > r_.remaining()) {
      badCount_ = true;
      return false;
    }
    return true;
  }
  bool badCount() const { return badCount_; }

  bool dtype(DType &t) {
    uint8_t v;
    if (!r_.u8(v))
      return false;
    if (v > uint8_t(kLastDType)) {
      badEnum_ = "element type " + std::to_string(v);
      return false;
    }
    t = DType(v);
    return true;
  }
  bool descs(std::vector<TensorDesc> &out) {
    uint32_t n;
    if (!count(n, 5))
      return false;
    out.resize(n);
    for (TensorDesc &d : out) {
      uint32_t rank;
      if (!dtype(d.dtype) || !count(rank, 8))
        return false;
      d.shape.resize(rank);
      for (int64_t &dim : d.shape)
        if (!r_.i64(dim))
          return false;
    }
    return true;
  }
  bool ref(BufferRef &out) {
    uint8_t kind;
    if (!r_.u8(kind))
      return false;
    if (kind > uint8_t(BufferRef::Kind::Constant)) {
      badEnum_ = "buffer kind " + std::to_string(kind);
      return false;
    }
    out.kind = BufferRef::Kind(kind);
    return r_.u32(out.index) && r_.u64(out.offset) && r_.u64(out.bytes);
  }
  bool epilogue(GemmEpilogue &e) {
    uint8_t v;
    if (!r_.u8(v))
      return false;
    if (v > uint8_t(GemmEpilogue::GeluTanh)) {
      badEnum_ = "GEMM epilogue " + std::to_string(v);
      return false;
    }
    e = GemmEpilogue(v);
    return true;
  }
  /// A presence flag, then the reference when present.
  bool optionalRef(std::optional<BufferRef> &out) {
    bool present = false;
    if (!flag(present))
      return false;
    out.reset();
    if (!present)
      return true;
    out.emplace();
    return ref(*out);
  }
  bool flag(bool &b) {
    uint8_t v;
    if (!r_.u8(v))
      return false;
    if (v > 1) {
      badEnum_ = "flag value " + std::to_string(v);
      return false;
    }
    b = v != 0;
    return true;
  }

  /// The error for a failed read: a bad enum, a bad count, or early end.
  Status failure() {
    if (!badEnum_.empty())
      return corrupt("holds an invalid " + badEnum_);
    if (badCount_)
      return corrupt("holds a count larger than its contents");
    return corrupt("ends early");
  }

  ByteReader &reader() { return r_; }

private:
  uint32_t tag_;
  ByteReader r_;
  bool badCount_ = false;
  std::string badEnum_;
};

Status parseMeta(SectionParser &p, Package &pkg) {
  ByteReader &r = p.reader();
  if (!(r.string(pkg.entry) && r.u64(pkg.arenaBytes) &&
        r.u64(pkg.intermediateBytes) && r.u32(pkg.sourceOpCount)))
    return p.failure();
  return p.finish();
}

/// The kernels; since version 5 each with its signature.
Status parseKernels(SectionParser &p, Package &pkg, uint32_t version) {
  const bool signatures = version >= kSignatureVersion;
  uint32_t n;
  // A name's length (8) and the barrier flag (1), then block and grid (24)
  // and the parameter count (4).
  if (!p.count(n, signatures ? 37 : 9))
    return p.failure();
  pkg.kernels.resize(n);
  for (KernelInfo &k : pkg.kernels) {
    ByteReader &r = p.reader();
    if (!r.string(k.name) || !p.flag(k.usesBarriers))
      return p.failure();
    if (!signatures)
      continue;
    KernelSignature &sig = k.signature.emplace();
    uint32_t params = 0;
    if (!(r.u32(sig.block[0]) && r.u32(sig.block[1]) && r.u32(sig.block[2]) &&
          r.u32(sig.grid[0]) && r.u32(sig.grid[1]) && r.u32(sig.grid[2]) &&
          p.count(params, 9)))
      return p.failure();
    sig.params.resize(params);
    for (KernelParam &param : sig.params)
      if (!r.u64(param.bytes) || !p.flag(param.writes))
        return p.failure();
  }
  return p.finish();
}

Status parseCubins(SectionParser &p, Package &pkg) {
  uint32_t n;
  if (!p.count(n, 16))
    return p.failure();
  pkg.cubins.resize(n);
  for (Cubin &c : pkg.cubins)
    if (!p.reader().string(c.arch) || !p.reader().blob(c.image))
      return p.failure();
  return p.finish();
}

/// (step index, FLOPs) of the kernel steps with matrix products.
Status parseKernelFlops(SectionParser &p,
                        std::vector<std::pair<uint32_t, double>> &out) {
  uint32_t n;
  if (!p.count(n, 12))
    return p.failure();
  out.resize(n);
  for (auto &[step, flops] : out)
    if (!(p.reader().u32(step) && p.reader().f64(flops)))
      return p.failure();
  return p.finish();
}

/// (step index, bytes) of the kernel steps that move less than their
/// buffers.
Status parseKernelBytes(SectionParser &p,
                        std::vector<std::pair<uint32_t, uint64_t>> &out) {
  uint32_t n;
  if (!p.count(n, 12))
    return p.failure();
  out.resize(n);
  for (auto &[step, bytes] : out)
    if (!(p.reader().u32(step) && p.reader().u64(bytes)))
      return p.failure();
  return p.finish();
}

Status parseTrainingState(SectionParser &p, std::vector<StateTensor> &out) {
  uint32_t n;
  // name (>= 8), flag, input, output, offset, bytes.
  if (!p.count(n, 8 + 1 + 4 + 4 + 8 + 8))
    return p.failure();
  out.resize(n);
  for (StateTensor &t : out) {
    // 0: optimizer state, 1: parameter, 2: buffer.
    uint8_t kind = 0;
    if (!(p.reader().string(t.name) && p.reader().u8(kind) &&
          p.reader().u32(t.input) && p.reader().u32(t.output) &&
          p.reader().u64(t.initialOffset) && p.reader().u64(t.initialBytes)) ||
        kind > 2)
      return p.failure();
    t.trainable = kind == 1;
    t.buffer = kind == 2;
  }
  return p.finish();
}

/// Why `pkg.state` is inconsistent with the rest of `pkg`, or "".
std::string trainingStateError(const Package &pkg) {
  std::set<uint32_t> inputs, outputs;
  std::set<std::string> names;
  if (!pkg.state.empty() &&
      (pkg.outputs.empty() || pkg.outputs[0].dtype != DType::F32 ||
       pkg.outputs[0].numElements() != 1))
    return "a training step's first output, its loss, must be one f32 value";
  if (pkg.microBatches < 1 || pkg.microBatches > kMaxMicroBatches ||
      (pkg.state.empty() && pkg.microBatches != 1))
    return "a training step takes 1 to " + std::to_string(kMaxMicroBatches) +
           " micro-batches (an inference package 1), not " +
           std::to_string(pkg.microBatches);
  if (pkg.skippedOutput != 0) {
    if (pkg.state.empty() || pkg.skippedOutput >= pkg.outputs.size() ||
        pkg.outputs[pkg.skippedOutput].dtype != DType::F32 ||
        !pkg.outputs[pkg.skippedOutput].shape.empty())
      return "the skipped-update output of a training step must be one of its "
             "f32 scalar outputs after the loss";
    for (const StateTensor &t : pkg.state)
      if (t.output == pkg.skippedOutput)
        return "the skipped-update output of a training step is training "
               "state '" +
               t.name + "'s output";
  }
  // A step's batch tensors hold every micro-batch.
  for (const TensorDesc &in : pkg.inputs)
    if (!(in.checkedByteSize() * Checked(pkg.microBatches)).ok())
      return "the micro-batches of an input do not fit in 64 bits";
  for (const StateTensor &t : pkg.state) {
    std::string what = "training state '" + t.name + "'";
    if (t.name.empty() || t.name.size() > 4096 || !names.insert(t.name).second)
      return "training state names must be distinct, non-empty and short";
    if (t.input >= pkg.inputs.size() || t.output >= pkg.outputs.size())
      return what + " names input " + std::to_string(t.input) + " and output " +
             std::to_string(t.output) + ", beyond the package's " +
             std::to_string(pkg.inputs.size()) + " inputs and " +
             std::to_string(pkg.outputs.size()) + " outputs";
    if (t.output == 0)
      return what + " is written to output 0, the step's loss";
    if (!inputs.insert(t.input).second || !outputs.insert(t.output).second)
      return what + " shares its input or output with another state tensor";
    const TensorDesc &in = pkg.inputs[t.input], &out = pkg.outputs[t.output];
    if (in.dtype != out.dtype || in.shape != out.shape)
      return what + " has an input and an output of different types";
    if (t.initialBytes != in.byteSize() ||
        t.initialOffset > pkg.constants.size() ||
        t.initialBytes > pkg.constants.size() - t.initialOffset)
      return what + "'s initial value is not " + std::to_string(in.byteSize()) +
             " bytes within the constants";
  }
  return "";
}

/// The figures of section STAT: name and value pairs; a name this reader
/// does not know is skipped, a known one must hold a finite value >= 0
/// (a whole number below 2^53 for a count).
Status parseStats(SectionParser &p, Package &pkg) {
  uint32_t n;
  // A pair takes at least 16 bytes (an empty name and a value).
  if (!p.count(n, 16))
    return p.failure();
  PackageStats stats;
  for (uint32_t i = 0; i < n; ++i) {
    std::string name;
    double value;
    if (!p.reader().string(name) || !p.reader().f64(value))
      return p.failure();
    if (!(value >= 0 && value < 1e300))
      return Status::error("corrupt package: section 'STAT' gives '" + name +
                           "' an invalid value");
#define DLC_READ_STAT(type, member, statName)                                  \
  if (name == statName) {                                                      \
    if (std::is_integral<type>::value &&                                       \
        !(value < 9007199254740992.0 && value == std::floor(value)))           \
      return Status::error("corrupt package: section 'STAT' gives '" + name +  \
                           "' a value that is not a count");                   \
    stats.member = type(value);                                                \
  }
    DLC_PACKAGE_STATS(DLC_READ_STAT)
#undef DLC_READ_STAT
  }
  pkg.stats = stats;
  return p.finish();
}

/// One list of kernel resources per cubin, in the cubins' order.
Status parseResources(SectionParser &p,
                      std::vector<std::vector<KernelResources>> &out) {
  uint32_t n;
  if (!p.count(n, 4))
    return p.failure();
  out.resize(n);
  for (std::vector<KernelResources> &list : out)
    if (!readKernelResources(p.reader(), list))
      return p.failure();
  return p.finish();
}

/// The reference model; since version 4 followed by its blobs.
Status parseReference(SectionParser &p, Package &pkg, uint32_t version) {
  if (!p.reader().string(pkg.referenceIR))
    return p.failure();
  if (version < 4)
    return p.finish();
  uint32_t n = 0;
  // Smallest blob entry: empty key (8), alignment (8), flag (1), empty data
  // (8).
  if (!p.count(n, 25))
    return p.failure();
  pkg.referenceBlobs.resize(n);
  for (ReferenceBlob &b : pkg.referenceBlobs) {
    ByteReader &r = p.reader();
    if (!(r.string(b.key) && r.u64(b.alignment) && p.flag(b.inConstants)))
      return p.failure();
    if (b.inConstants ? !(r.u64(b.offset) && r.u64(b.size)) : !r.blob(b.data))
      return p.failure();
    if (b.alignment == 0 || (b.alignment & (b.alignment - 1)) != 0)
      return p.corrupt("holds a reference blob with alignment " +
                       std::to_string(b.alignment));
  }
  return p.finish();
}

Status parseSteps(SectionParser &p, Package &pkg, uint32_t version) {
  ByteReader &r = p.reader();
  uint32_t n;
  if (!p.count(n, 9))
    return p.failure();
  pkg.steps.resize(n);
  for (Step &s : pkg.steps) {
    uint8_t kind;
    if (!r.u8(kind) || !r.string(s.label))
      return p.failure();
    if (kind > uint8_t(Step::Kind::Conv) ||
        (kind == uint8_t(Step::Kind::Conv) && version < kConvVersion))
      return p.corrupt("holds an invalid step kind " + std::to_string(kind));
    s.kind = Step::Kind(kind);
    switch (s.kind) {
    case Step::Kind::Kernel: {
      KernelStep &k = s.kernel;
      uint32_t nargs;
      if (!(r.u32(k.kernel) && r.u32(k.grid[0]) && r.u32(k.grid[1]) &&
            r.u32(k.grid[2]) && r.u32(k.block[0]) && r.u32(k.block[1]) &&
            r.u32(k.block[2]) && r.u32(k.sharedBytes) && p.count(nargs, 21)))
        return p.failure();
      k.args.resize(nargs);
      for (BufferRef &a : k.args)
        if (!p.ref(a))
          return p.failure();
      break;
    }
    case Step::Kind::Gemm: {
      GemmStep &g = s.gemm;
      if (!(p.dtype(g.dtype) && p.dtype(g.accType) && p.flag(g.transA) &&
            p.flag(g.transB) && r.i64(g.m) && r.i64(g.n) && r.i64(g.k) &&
            r.i64(g.batch) && r.i64(g.lda) && r.i64(g.ldb) && r.i64(g.ldc) &&
            r.i64(g.strideA) && r.i64(g.strideB) && r.i64(g.strideC) &&
            r.f64(g.alpha) && r.f64(g.beta) && p.ref(g.a) && p.ref(g.b) &&
            p.ref(g.c)))
        return p.failure();
      // Version 1 has no epilogues, version 2 no TF32 flag.
      if (version >= 2 && !(p.epilogue(g.epilogue) && p.optionalRef(g.bias) &&
                            p.optionalRef(g.addend)))
        return p.failure();
      if (version >= 3 && !(p.flag(g.tf32) && r.i32(g.epilogueKernel)))
        return p.failure();
      g.cType = g.dtype;
      if (version >= kFp8Version &&
          !(p.dtype(g.cType) && r.f64(g.scaleA) && r.f64(g.scaleB)))
        return p.failure();
      break;
    }
    case Step::Kind::Copy:
      if (!(p.ref(s.copy.src) && p.ref(s.copy.dst)))
        return p.failure();
      break;
    case Step::Kind::Conv: {
      ConvStep &c = s.conv;
      if (!(p.dtype(c.dtype) && r.i64(c.n) && r.i64(c.h) && r.i64(c.w) &&
            r.i64(c.c) && r.i64(c.k) && r.i64(c.r) && r.i64(c.s) &&
            r.i64(c.p) && r.i64(c.q) && r.i64(c.groups) && r.i64(c.strideH) &&
            r.i64(c.strideW) && r.i64(c.padH) && r.i64(c.padW) &&
            r.i64(c.dilH) && r.i64(c.dilW) && p.ref(c.x) && p.ref(c.filter) &&
            p.ref(c.y) && p.optionalRef(c.bias) && p.optionalRef(c.addend) &&
            p.epilogue(c.epilogue) && p.flag(c.tf32)))
        return p.failure();
      break;
    }
    }
  }
  return p.finish();
}

} // namespace

std::vector<uint8_t> serializePackage(const Package &pkg) {
  // The header, then the payload's sections, in one buffer reserved for
  // all of them (the small sections' share estimated from above: a buffer
  // that grew after the constants would copy them all again).
  uint64_t reserve = kHeaderBytes + 65536 + pkg.cudaSource.size() +
                     pkg.constants.size() + pkg.referenceIR.size() +
                     pkg.entry.size() + pkg.precision.size();
  for (const Cubin &c : pkg.cubins)
    reserve += c.image.size() + c.arch.size() + 64 * c.resources.size() + 64;
  for (const ReferenceBlob &b : pkg.referenceBlobs)
    reserve += b.data.size() + b.key.size() + 64;
  for (const KernelInfo &k : pkg.kernels)
    reserve += k.name.size() + 64 +
               16 * (k.signature ? k.signature->params.size() : 0);
  for (const Step &step : pkg.steps)
    reserve += step.label.size() + 512 + 32 * step.kernel.args.size();
  for (const StateTensor &t : pkg.state)
    reserve += t.name.size() + 64;
  for (const std::vector<TensorDesc> *descs : {&pkg.inputs, &pkg.outputs})
    for (const TensorDesc &d : *descs)
      reserve += 16 + 8 * d.shape.size();
  for (const std::vector<std::string> *names :
       {&pkg.inputNames, &pkg.outputNames})
    for (const std::string &n : *names)
      reserve += n.size() + 8;
  std::vector<uint8_t> out;
  out.reserve(reserve);
  out.resize(kHeaderBytes);
  ByteWriter w(out);

  size_t at = beginSection(out);
  w.string(pkg.entry);
  w.u64(pkg.arenaBytes);
  w.u64(pkg.intermediateBytes);
  w.u32(pkg.sourceOpCount);
  endSection(out, at, kMeta);

  at = beginSection(out);
  writeDescs(w, pkg.inputs);
  endSection(out, at, kInputs);

  at = beginSection(out);
  writeDescs(w, pkg.outputs);
  endSection(out, at, kOutputs);

  at = beginSection(out);
  w.string(pkg.cudaSource);
  endSection(out, at, kSource);

  at = beginSection(out);
  w.u32(uint32_t(pkg.kernels.size()));
  for (const KernelInfo &k : pkg.kernels) {
    w.string(k.name);
    w.u8(k.usesBarriers ? 1 : 0);
    const KernelSignature sig = k.signature.value_or(KernelSignature());
    for (uint32_t v : sig.block)
      w.u32(v);
    for (uint32_t v : sig.grid)
      w.u32(v);
    w.u32(uint32_t(sig.params.size()));
    for (const KernelParam &param : sig.params) {
      w.u64(param.bytes);
      w.u8(param.writes ? 1 : 0);
    }
  }
  endSection(out, at, kKernels);

  at = beginSection(out);
  w.u32(uint32_t(pkg.cubins.size()));
  for (const Cubin &c : pkg.cubins) {
    w.string(c.arch);
    w.blob(c.image.data(), c.image.size());
  }
  endSection(out, at, kCubins);

  if (std::any_of(pkg.cubins.begin(), pkg.cubins.end(),
                  [](const Cubin &c) { return !c.resources.empty(); })) {
    at = beginSection(out);
    w.u32(uint32_t(pkg.cubins.size()));
    for (const Cubin &c : pkg.cubins)
      writeKernelResources(w, c.resources);
    endSection(out, at, kResources);
  }

  std::vector<std::pair<uint32_t, double>> kernelFlops;
  for (size_t i = 0; i < pkg.steps.size(); ++i)
    if (pkg.steps[i].kind == Step::Kind::Kernel &&
        pkg.steps[i].kernel.flops != 0)
      kernelFlops.push_back({uint32_t(i), pkg.steps[i].kernel.flops});
  if (!kernelFlops.empty()) {
    at = beginSection(out);
    w.u32(uint32_t(kernelFlops.size()));
    for (auto [step, flops] : kernelFlops) {
      w.u32(step);
      w.f64(flops);
    }
    endSection(out, at, kKernelFlops);
  }

  if (!pkg.state.empty()) {
    at = beginSection(out);
    w.u32(uint32_t(pkg.state.size()));
    for (const StateTensor &t : pkg.state) {
      w.string(t.name);
      w.u8(t.trainable ? 1 : t.buffer ? 2 : 0);
      w.u32(t.input);
      w.u32(t.output);
      w.u64(t.initialOffset);
      w.u64(t.initialBytes);
    }
    endSection(out, at, kTrainingState);
  }
  if (pkg.microBatches != 1 || pkg.skippedOutput != 0) {
    at = beginSection(out);
    w.u32(pkg.microBatches);
    w.u32(pkg.skippedOutput);
    endSection(out, at, kTrainingStep);
  }

  std::vector<std::pair<uint32_t, uint64_t>> kernelBytes;
  for (size_t i = 0; i < pkg.steps.size(); ++i)
    if (pkg.steps[i].kind == Step::Kind::Kernel &&
        pkg.steps[i].kernel.bytes != 0)
      kernelBytes.push_back({uint32_t(i), pkg.steps[i].kernel.bytes});
  if (!kernelBytes.empty()) {
    at = beginSection(out);
    w.u32(uint32_t(kernelBytes.size()));
    for (auto [step, bytes] : kernelBytes) {
      w.u32(step);
      w.u64(bytes);
    }
    endSection(out, at, kKernelBytes);
  }

  if (pkg.stats) {
    at = beginSection(out);
    uint32_t count = 0;
#define DLC_COUNT_STAT(type, member, name) ++count;
    DLC_PACKAGE_STATS(DLC_COUNT_STAT)
#undef DLC_COUNT_STAT
    w.u32(count);
#define DLC_WRITE_STAT(type, member, name)                                     \
  w.string(name);                                                              \
  w.f64(double(pkg.stats->member));
    DLC_PACKAGE_STATS(DLC_WRITE_STAT)
#undef DLC_WRITE_STAT
    endSection(out, at, kStats);
  }

  at = beginSection(out);
  w.u32(uint32_t(pkg.steps.size()));
  for (const Step &s : pkg.steps) {
    w.u8(uint8_t(s.kind));
    w.string(s.label);
    switch (s.kind) {
    case Step::Kind::Kernel: {
      const KernelStep &k = s.kernel;
      w.u32(k.kernel);
      for (uint32_t g : k.grid)
        w.u32(g);
      for (uint32_t b : k.block)
        w.u32(b);
      w.u32(k.sharedBytes);
      w.u32(uint32_t(k.args.size()));
      for (const BufferRef &a : k.args)
        writeRef(w, a);
      break;
    }
    case Step::Kind::Gemm: {
      const GemmStep &g = s.gemm;
      w.u8(uint8_t(g.dtype));
      w.u8(uint8_t(g.accType));
      w.u8(g.transA ? 1 : 0);
      w.u8(g.transB ? 1 : 0);
      for (int64_t v : {g.m, g.n, g.k, g.batch, g.lda, g.ldb, g.ldc, g.strideA,
                        g.strideB, g.strideC})
        w.i64(v);
      w.f64(g.alpha);
      w.f64(g.beta);
      writeRef(w, g.a);
      writeRef(w, g.b);
      writeRef(w, g.c);
      w.u8(uint8_t(g.epilogue));
      for (const std::optional<BufferRef> *r : {&g.bias, &g.addend}) {
        w.u8(r->has_value() ? 1 : 0);
        if (r->has_value())
          writeRef(w, **r);
      }
      w.u8(g.tf32 ? 1 : 0);
      w.i32(g.epilogueKernel);
      w.u8(uint8_t(g.outType()));
      w.f64(g.scaleA);
      w.f64(g.scaleB);
      break;
    }
    case Step::Kind::Copy:
      writeRef(w, s.copy.src);
      writeRef(w, s.copy.dst);
      break;
    case Step::Kind::Conv: {
      const ConvStep &c = s.conv;
      w.u8(uint8_t(c.dtype));
      for (int64_t v : {c.n, c.h, c.w, c.c, c.k, c.r, c.s, c.p, c.q, c.groups,
                        c.strideH, c.strideW, c.padH, c.padW, c.dilH, c.dilW})
        w.i64(v);
      writeRef(w, c.x);
      writeRef(w, c.filter);
      writeRef(w, c.y);
      for (const std::optional<BufferRef> *r : {&c.bias, &c.addend}) {
        w.u8(r->has_value() ? 1 : 0);
        if (r->has_value())
          writeRef(w, **r);
      }
      w.u8(uint8_t(c.epilogue));
      w.u8(c.tf32 ? 1 : 0);
      break;
    }
    }
  }
  endSection(out, at, kSteps);

  at = beginSection(out);
  w.blob(pkg.constants.data(), pkg.constants.size());
  endSection(out, at, kConstants);

  at = beginSection(out);
  w.string(pkg.referenceIR);
  w.u32(uint32_t(pkg.referenceBlobs.size()));
  for (const ReferenceBlob &b : pkg.referenceBlobs) {
    w.string(b.key);
    w.u64(b.alignment);
    w.u8(b.inConstants ? 1 : 0);
    if (b.inConstants) {
      w.u64(b.offset);
      w.u64(b.size);
    } else {
      w.blob(b.data.data(), b.data.size());
    }
  }
  endSection(out, at, kReference);

  if (!pkg.inputNames.empty() || !pkg.outputNames.empty()) {
    at = beginSection(out);
    for (const std::vector<std::string> *names :
         {&pkg.inputNames, &pkg.outputNames}) {
      w.u32(uint32_t(names->size()));
      for (const std::string &n : *names)
        w.string(n);
    }
    endSection(out, at, kNames);
  }

  if (!pkg.precision.empty()) {
    at = beginSection(out);
    w.string(pkg.precision);
    endSection(out, at, kPrecision);
  }

  const uint8_t *payload = out.data() + kHeaderBytes;
  size_t payloadBytes = out.size() - kHeaderBytes;
  std::vector<uint8_t> header;
  ByteWriter h(header);
  h.bytes(kMagic, sizeof(kMagic));
  h.u32(kPackageVersion);
  h.u32(0); // flags, reserved
  h.u64(payloadBytes);
  h.u64(packageChecksum(kPackageVersion, payload, payloadBytes));
  assert(header.size() == kHeaderBytes && "the header's layout changed");
  std::memcpy(out.data(), header.data(), header.size());
  return out;
}

uint64_t packageChecksum(uint32_t version, const uint8_t *payload,
                         size_t size) {
  return version >= 4 ? xxh64(payload, size) : fnv1a64(payload, size);
}

Result<Package> deserializePackage(const std::vector<uint8_t> &bytes) {
  return deserializePackage(bytes.data(), bytes.size());
}

Result<Package> deserializePackage(const uint8_t *data, size_t size) {
  if (size != 0 &&
      std::memcmp(data, kMagic, std::min(size, sizeof(kMagic))) != 0)
    return Status::error("not a dlc package (bad magic)");
  if (size < kHeaderBytes)
    return Status::error("package is truncated (" + std::to_string(size) +
                         " bytes, the header alone has 32)");
  ByteReader hr(data + sizeof(kMagic), kHeaderBytes - sizeof(kMagic));
  uint32_t version = 0, flags = 0;
  uint64_t payloadBytes = 0, checksum = 0;
  (void)(hr.u32(version) && hr.u32(flags) && hr.u64(payloadBytes) &&
         hr.u64(checksum));
  // The version comes before everything else: a package from another dlc
  // should say so rather than look corrupt.
  if (version < kOldestPackageVersion || version > kPackageVersion)
    return Status::error(
        "package format version " + std::to_string(version) +
        ", this dlc reads versions " + std::to_string(kOldestPackageVersion) +
        " to " + std::to_string(kPackageVersion) + " (recompile the model)");
  if (flags != 0)
    return Status::error("corrupt package: unknown header flags");
  uint64_t present = size - kHeaderBytes;
  if (payloadBytes > present)
    return Status::error("package is truncated (" + std::to_string(present) +
                         " of " + std::to_string(payloadBytes) +
                         " payload bytes present)");
  if (payloadBytes < present)
    return Status::error(
        "corrupt package: " + std::to_string(present - payloadBytes) +
        " unexpected bytes after the payload");
  const uint8_t *payload = data + kHeaderBytes;
  if (packageChecksum(version, payload, payloadBytes) != checksum)
    return Status::error("checksum mismatch: the file is corrupt");

  Package pkg;
  pkg.formatVersion = version;
  std::set<uint32_t> seen;
  std::vector<std::vector<KernelResources>> resources;
  std::vector<std::pair<uint32_t, double>> kernelFlops;
  std::vector<std::pair<uint32_t, uint64_t>> kernelBytes;
  ByteReader r(payload, payloadBytes);
  while (r.remaining() > 0) {
    uint32_t sectionTag = 0, sectionFlags = 0;
    uint64_t length = 0;
    if (!(r.u32(sectionTag) && r.u32(sectionFlags) && r.u64(length)) ||
        length > r.remaining())
      return Status::error("corrupt package: a section header runs past the "
                           "end of the payload");
    const uint8_t *body = r.position();
    r.skip(length);
    if (!seen.insert(sectionTag).second)
      return Status::error("corrupt package: section '" + tagName(sectionTag) +
                           "' appears twice");
    SectionParser p(sectionTag, body, length);
    Status st;
    if (sectionTag == kMeta) {
      st = parseMeta(p, pkg);
    } else if (sectionTag == kInputs) {
      st = p.descs(pkg.inputs) ? p.finish() : p.failure();
    } else if (sectionTag == kOutputs) {
      st = p.descs(pkg.outputs) ? p.finish() : p.failure();
    } else if (sectionTag == kSource) {
      st = p.reader().string(pkg.cudaSource) ? p.finish() : p.failure();
    } else if (sectionTag == kKernels) {
      st = parseKernels(p, pkg, version);
    } else if (sectionTag == kCubins) {
      st = parseCubins(p, pkg);
    } else if (sectionTag == kSteps) {
      st = parseSteps(p, pkg, version);
    } else if (sectionTag == kConstants) {
      st = p.reader().blob(pkg.constants) ? p.finish() : p.failure();
    } else if (sectionTag == kReference) {
      st = parseReference(p, pkg, version);
    } else if (sectionTag == kResources) {
      st = parseResources(p, resources);
    } else if (sectionTag == kKernelFlops) {
      st = parseKernelFlops(p, kernelFlops);
    } else if (sectionTag == kKernelBytes) {
      st = parseKernelBytes(p, kernelBytes);
    } else if (sectionTag == kTrainingState) {
      st = parseTrainingState(p, pkg.state);
    } else if (sectionTag == kTrainingStep) {
      st = p.reader().u32(pkg.microBatches) && p.reader().u32(pkg.skippedOutput)
               ? p.finish()
               : p.failure();
    } else if (sectionTag == kStats) {
      st = parseStats(p, pkg);
    } else if (sectionTag == kNames) {
      bool ok = true;
      for (std::vector<std::string> *names :
           {&pkg.inputNames, &pkg.outputNames}) {
        uint32_t n = 0;
        ok = ok && p.count(n, 8);
        if (ok)
          names->resize(n);
        for (uint32_t i = 0; ok && i < n; ++i)
          ok = p.reader().string((*names)[i]);
      }
      st = ok ? p.finish() : p.failure();
    } else if (sectionTag == kPrecision) {
      st = p.reader().string(pkg.precision) ? p.finish() : p.failure();
      if (st.isOk() && !isKnownPrecision(pkg.precision))
        st = Status::error("corrupt package: section 'PREC' names an unknown "
                           "precision");
    } else {
      // Unknown sections are optional additions that keep the version; a
      // reader that does not know them skips them.
      continue;
    }
    DLC_RT_RETURN_IF_ERROR(st);
  }
  for (uint32_t required : {kMeta, kInputs, kOutputs, kSource, kKernels,
                            kCubins, kSteps, kConstants, kReference})
    if (!seen.count(required))
      return Status::error("corrupt package: section '" + tagName(required) +
                           "' is missing");
  if (seen.count(kResources)) {
    if (resources.size() != pkg.cubins.size())
      return Status::error("corrupt package: section 'KRES' describes " +
                           std::to_string(resources.size()) +
                           " cubins, the "
                           "package has " +
                           std::to_string(pkg.cubins.size()));
    for (size_t i = 0; i < resources.size(); ++i)
      pkg.cubins[i].resources = std::move(resources[i]);
  }
  for (auto [step, flops] : kernelFlops) {
    if (step >= pkg.steps.size() || pkg.steps[step].kind != Step::Kind::Kernel)
      return Status::error("corrupt package: section 'KFLP' gives FLOPs to "
                           "step " +
                           std::to_string(step) + ", which is not a kernel");
    if (!(flops >= 0 && flops < 1e30))
      return Status::error("corrupt package: section 'KFLP' gives step " +
                           std::to_string(step) + " an invalid FLOP count");
    pkg.steps[step].kernel.flops = flops;
  }
  if (std::string wrong = trainingStateError(pkg); !wrong.empty())
    return Status::error("corrupt package: " + wrong);
  for (auto [step, bytes] : kernelBytes) {
    if (step >= pkg.steps.size() || pkg.steps[step].kind != Step::Kind::Kernel)
      return Status::error("corrupt package: section 'KBYT' gives bytes to "
                           "step " +
                           std::to_string(step) + ", which is not a kernel");
    // At most the kernel's buffers in full (the sum saturates: buffer sizes
    // are checked against the arena and constants by validatePackage).
    uint64_t buffers = 0;
    for (const BufferRef &ref : pkg.steps[step].kernel.args)
      buffers =
          ref.bytes > UINT64_MAX - buffers ? UINT64_MAX : buffers + ref.bytes;
    if (bytes > buffers)
      return Status::error("corrupt package: section 'KBYT' gives step " +
                           std::to_string(step) + " " + std::to_string(bytes) +
                           " bytes, more than its buffers hold (" +
                           std::to_string(buffers) + ")");
    pkg.steps[step].kernel.bytes = bytes;
  }
  // Reference blobs kept in the constants must lie inside them (the
  // sections may come in any order, so this is checked at the end).
  for (const ReferenceBlob &b : pkg.referenceBlobs)
    if (b.inConstants && (b.offset > pkg.constants.size() ||
                          b.size > pkg.constants.size() - b.offset))
      return Status::error(
          "corrupt package: reference blob '" + b.key + "' refers to bytes [" +
          std::to_string(b.offset) + ", " + std::to_string(b.offset) + " + " +
          std::to_string(b.size) + ") of " +
          std::to_string(pkg.constants.size()) + " constant bytes");
  return pkg;
}

Status writePackageFile(const std::string &path, const Package &package) {
  std::vector<uint8_t> bytes = serializePackage(package);
  return writeFileAtomic(path, bytes.data(), bytes.size());
}

Status copyPackageFile(const std::string &from, const std::string &path,
                       uint64_t size) {
  return copyFileAtomic(from, path, size);
}

Status writePackageBytes(const std::string &path, const uint8_t *data,
                         size_t size) {
  return writeFileAtomic(path, data, size);
}

Result<Package> readPackageFile(const std::string &path) {
  // Mapped: the weights are copied once, into the package.
  Result<MappedFile> file = MappedFile::open(path);
  if (!file)
    return file.status();
  const uint8_t *data = file->data();
  size_t size = file->size();
  // Fault sites: the file reads back damaged, as after an interrupted copy
  // or a bad disk; deserializePackage must say so.
  if (fault::shouldFail("package-truncated"))
    size /= 2;
  std::vector<uint8_t> damaged;
  if (fault::shouldFail("package-corrupt") && size > 64) {
    damaged.assign(data, data + size);
    damaged[32 + (size - 32) / 2] ^= 0x5a;
    data = damaged.data();
  }
  Result<Package> pkg = deserializePackage(data, size);
  if (!pkg) {
    // "package is truncated" reads better as "model.dlcpkg is truncated".
    std::string msg = pkg.message();
    const std::string prefix = "package is ";
    if (msg.compare(0, prefix.size(), prefix) == 0)
      return Status::error(path + " is " + msg.substr(prefix.size()));
    return Status::error(path + ": " + msg);
  }
  return pkg;
}

//===----------------------------------------------------------------------===//
// Validation
//===----------------------------------------------------------------------===//

namespace {

std::string stepName(const Package &pkg, size_t i) {
  const Step &s = pkg.steps[i];
  std::string name = "step " + std::to_string(i);
  if (!s.label.empty())
    name += " (" + s.label + ")";
  return name;
}

const char *refKindName(BufferRef::Kind kind) {
  switch (kind) {
  case BufferRef::Kind::Input:
    return "input";
  case BufferRef::Kind::Output:
    return "output";
  case BufferRef::Kind::Arena:
    return "arena";
  case BufferRef::Kind::Constant:
    return "constants";
  }
  return "?";
}

/// "2^64 or more" for an overflowed value.
std::string show(Checked c) {
  return c.ok() ? std::to_string(*c.value()) : std::string("2^64 or more");
}

/// The most elements a tensor description may have: 2^56 (a 512 PiB
/// tensor of i64), so that its byte size and every sum of a few of them
/// fits in 64 bits.
constexpr uint64_t kMaxElements = uint64_t(1) << 56;

Status checkDesc(const TensorDesc &d, const std::string &what) {
  if (uint8_t(d.dtype) > uint8_t(kLastDType))
    return Status::error(what + " has an invalid element type");
  for (int64_t dim : d.shape)
    if (dim < 0)
      return Status::error(
          what + " has a negative dimension: " + describe(d.dtype, d.shape));
  if (!d.elementCount().fitsIn(kMaxElements) || !d.checkedByteSize().ok())
    return Status::error(what + " is too large: " + describe(d.dtype, d.shape) +
                         " has more than 2^56 elements");
  return Status::ok();
}

/// The size of the buffer `ref` points into, or an error if it names no
/// buffer.
Result<uint64_t> bufferSize(const Package &pkg, const BufferRef &ref,
                            const std::string &where) {
  switch (ref.kind) {
  case BufferRef::Kind::Input:
    if (ref.index >= pkg.inputs.size())
      return Status::error(where + " refers to input #" +
                           std::to_string(ref.index) + " but there are " +
                           std::to_string(pkg.inputs.size()) + " inputs");
    return pkg.inputs[ref.index].byteSize();
  case BufferRef::Kind::Output:
    if (ref.index >= pkg.outputs.size())
      return Status::error(where + " refers to output #" +
                           std::to_string(ref.index) + " but there are " +
                           std::to_string(pkg.outputs.size()) + " outputs");
    return pkg.outputs[ref.index].byteSize();
  case BufferRef::Kind::Arena:
    return pkg.arenaBytes;
  case BufferRef::Kind::Constant:
    return uint64_t(pkg.constants.size());
  }
  return Status::error(where + " has an invalid buffer kind");
}

Status checkRef(const Package &pkg, const BufferRef &ref,
                const std::string &where) {
  Result<uint64_t> size = bufferSize(pkg, ref, where);
  if (!size)
    return size.status();
  Checked end = Checked(ref.offset) + ref.bytes;
  if (!end.fitsIn(*size)) {
    std::string buffer = refKindName(ref.kind);
    if (ref.kind == BufferRef::Kind::Input ||
        ref.kind == BufferRef::Kind::Output)
      buffer += " #" + std::to_string(ref.index);
    return Status::error(where + " refers to " + buffer + " bytes [" +
                         std::to_string(ref.offset) + ", " + show(end) +
                         ") but " + buffer + " has " + std::to_string(*size) +
                         " bytes");
  }
  return Status::ok();
}

Status checkWritable(const BufferRef &ref, const std::string &where) {
  if (ref.kind == BufferRef::Kind::Input ||
      ref.kind == BufferRef::Kind::Constant)
    return Status::error(where + " writes to " + refKindName(ref.kind) +
                         " memory, which is read-only");
  return Status::ok();
}

bool isIdentifier(const std::string &s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0])))
    return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_')
      return false;
  return true;
}

/// Elements from the first to the last of one `rows` x `cols` matrix with
/// row stride `ld`: (rows-1)*ld + cols, 0 for an empty one.
Checked matrixExtent(int64_t rows, int64_t cols, int64_t ld) {
  if (rows <= 0 || cols <= 0)
    return 0;
  return Checked::fromSigned(rows - 1) * Checked::fromSigned(ld) +
         Checked::fromSigned(cols);
}

/// Checks that one GEMM operand's elements lie inside its BufferRef: the last
/// element touched is at (batch-1)*stride + (rows-1)*ld + cols-1, computed
/// with overflow-checked arithmetic (an overflow is an error). The matrices
/// of a batch may not overlap (stride 0, one matrix for all, or at least
/// one matrix's extent), which bounds a GEMM's work by its operands' sizes.
Status checkGemmOperand(const char *name, const BufferRef &ref, int64_t rows,
                        int64_t cols, int64_t ld, int64_t stride, int64_t batch,
                        size_t elemSize, const std::string &where) {
  std::string what = where + ": operand " + name;
  if (ld < std::max<int64_t>(1, cols))
    return Status::error(what + " has leading dimension " + std::to_string(ld) +
                         " but rows of " + std::to_string(cols) + " elements");
  if (stride < 0)
    return Status::error(what + " has a negative batch stride");
  if (rows == 0 || cols == 0)
    return Status::ok();
  Checked extent = matrixExtent(rows, cols, ld);
  if (batch > 1 && stride != 0 && !(extent.fitsIn(uint64_t(stride))))
    return Status::error(what + " has batch stride " + std::to_string(stride) +
                         " but each of its matrices spans " + show(extent) +
                         " elements: the batch's matrices overlap");
  Checked needed =
      (Checked::fromSigned(batch - 1) * Checked::fromSigned(stride) + extent) *
      uint64_t(elemSize);
  if (!needed.fitsIn(ref.bytes))
    return Status::error(what + " needs " + show(needed) +
                         " bytes but its buffer reference covers " +
                         std::to_string(ref.bytes));
  return Status::ok();
}

/// Checks a convolution step: positive sizes whose output size follows
/// from the input, filter, stride, padding and dilation; groups dividing the
/// channels; each operand's bytes (checked arithmetic) inside its buffer
/// reference; the output in writable memory.
Status checkConvStep(const Package &pkg, const ConvStep &c,
                     const std::string &where) {
  if (c.dtype != DType::F32 && c.dtype != DType::F16 && c.dtype != DType::BF16)
    return Status::error(where + ": convolution on " + dtypeName(c.dtype) +
                         " is not supported (f32, f16 and bf16 are)");
  for (int64_t v : {c.n, c.h, c.w, c.c, c.k, c.r, c.s, c.p, c.q, c.groups,
                    c.strideH, c.strideW, c.dilH, c.dilW})
    if (v <= 0)
      return Status::error(where +
                           ": convolution with a size, stride, "
                           "dilation or group count of " +
                           std::to_string(v) + " (each must be positive)");
  if (c.padH < 0 || c.padW < 0)
    return Status::error(where + ": convolution with negative padding");
  if (c.c % c.groups != 0 || c.k % c.groups != 0)
    return Status::error(where + ": " + std::to_string(c.groups) +
                         " groups do not divide " + std::to_string(c.c) +
                         " input and " + std::to_string(c.k) +
                         " output channels");
  // The output size: (H + 2 pad - dil (R - 1) - 1) / stride + 1, each term
  // checked (a window larger than the padded input is refused).
  auto outSize = [](int64_t in, int64_t pad, int64_t k, int64_t dil,
                    int64_t stride) -> std::optional<int64_t> {
    Checked padded = Checked::fromSigned(in) + Checked::fromSigned(pad) * 2;
    Checked span = Checked::fromSigned(dil) * Checked::fromSigned(k - 1) + 1;
    if (!padded.ok() || !span.ok() || *span.value() > *padded.value())
      return std::nullopt;
    return int64_t((*padded.value() - *span.value()) / uint64_t(stride) + 1);
  };
  std::optional<int64_t> p = outSize(c.h, c.padH, c.r, c.dilH, c.strideH),
                         q = outSize(c.w, c.padW, c.s, c.dilW, c.strideW);
  if (!p || !q || *p != c.p || *q != c.q)
    return Status::error(where + ": convolution output of " +
                         std::to_string(c.p) + " x " + std::to_string(c.q) +
                         " does not follow from its input, filter, stride, "
                         "padding and dilation");
  if (uint8_t(c.epilogue) > uint8_t(GemmEpilogue::Relu))
    return Status::error(where + ": convolution with the epilogue " +
                         std::string(gemmEpilogueName(c.epilogue)) +
                         " (none or relu are supported)");
  const uint64_t es = dtypeSize(c.dtype);
  auto check = [&](const BufferRef &ref, const char *name,
                   std::vector<int64_t> shape) -> Status {
    std::string what = where + ": " + name;
    DLC_RT_RETURN_IF_ERROR(checkRef(pkg, ref, what));
    Checked needed = checkedProduct(shape) * es;
    if (!needed.fitsIn(ref.bytes))
      return Status::error(what + " needs " + show(needed) +
                           " bytes but its buffer reference covers " +
                           std::to_string(ref.bytes));
    return Status::ok();
  };
  DLC_RT_RETURN_IF_ERROR(check(c.x, "input", {c.n, c.h, c.w, c.c}));
  DLC_RT_RETURN_IF_ERROR(
      check(c.filter, "filter", {c.k, c.r, c.s, c.c / c.groups}));
  DLC_RT_RETURN_IF_ERROR(check(c.y, "output", {c.n, c.p, c.q, c.k}));
  DLC_RT_RETURN_IF_ERROR(checkWritable(c.y, where + ": output"));
  if (c.bias)
    DLC_RT_RETURN_IF_ERROR(check(*c.bias, "bias", {c.k}));
  if (c.addend)
    DLC_RT_RETURN_IF_ERROR(check(*c.addend, "addend", {c.n, c.p, c.q, c.k}));
  return Status::ok();
}

/// "kernel #3 (k3)".
std::string kernelName(const Package &pkg, size_t kernel) {
  return "kernel #" + std::to_string(kernel) + " (" + pkg.kernels[kernel].name +
         ")";
}

/// "4 x 1 x 1".
std::string dims(const uint32_t (&d)[3]) {
  return std::to_string(d[0]) + " x " + std::to_string(d[1]) + " x " +
         std::to_string(d[2]);
}

/// Checks a kernel step against its kernel's signature: the block it was
/// compiled for, at most its grid, and its parameters.
Status checkSignature(const Package &pkg, const KernelStep &k,
                      const std::string &where) {
  const KernelSignature &sig = *pkg.kernels[k.kernel].signature;
  const std::vector<KernelParam> &params = sig.params;
  for (int d = 0; d < 3; ++d) {
    if (k.block[d] != sig.block[d])
      return Status::error(where + " launches blocks of " + dims(k.block) +
                           " threads but " + kernelName(pkg, k.kernel) +
                           " was compiled for " + dims(sig.block));
    if (k.grid[d] > sig.grid[d])
      return Status::error(where + " launches a grid of " + dims(k.grid) +
                           " blocks but " + kernelName(pkg, k.kernel) +
                           " handles at most " + dims(sig.grid));
  }
  if (k.args.size() != params.size())
    return Status::error(where + " passes " + std::to_string(k.args.size()) +
                         " arguments but " + kernelName(pkg, k.kernel) +
                         " takes " + std::to_string(params.size()));
  for (size_t a = 0; a < params.size(); ++a) {
    std::string arg = where + ": argument " + std::to_string(a);
    if (k.args[a].bytes < params[a].bytes)
      return Status::error(arg + " covers " + std::to_string(k.args[a].bytes) +
                           " bytes but " + kernelName(pkg, k.kernel) +
                           " accesses " + std::to_string(params[a].bytes) +
                           " through parameter " + std::to_string(a));
    if (params[a].writes)
      DLC_RT_RETURN_IF_ERROR(checkWritable(k.args[a], arg));
  }
  return Status::ok();
}

/// The launch limits of a kernel step: CUDA's grid and block dimensions,
/// at most kMaxLaunchThreads threads, and at most one block per byte of its
/// arguments (every block of a dlc kernel touches at least one byte of its
/// own, so more blocks only repeat work; at least one block).
Status checkLaunch(const KernelStep &k, const std::string &where) {
  static const uint64_t maxGrid[3] = {0x7fffffffull, 65535, 65535};
  static const uint64_t maxBlock[3] = {1024, 1024, 64};
  uint64_t blockThreads = 1;
  Checked blocks = 1;
  for (int d = 0; d < 3; ++d) {
    if (k.grid[d] == 0 || k.grid[d] > maxGrid[d])
      return Status::error(where + " has grid dimension " + std::to_string(d) +
                           " = " + std::to_string(k.grid[d]) +
                           ", outside [1, " + std::to_string(maxGrid[d]) + "]");
    if (k.block[d] == 0 || k.block[d] > maxBlock[d])
      return Status::error(where + " has block dimension " + std::to_string(d) +
                           " = " + std::to_string(k.block[d]) +
                           ", outside [1, " + std::to_string(maxBlock[d]) +
                           "]");
    blockThreads *= k.block[d];
    blocks *= uint64_t(k.grid[d]);
  }
  if (blockThreads > 1024)
    return Status::error(where + " has " + std::to_string(blockThreads) +
                         " threads per block; at most 1024 are allowed");
  Checked threads = blocks * blockThreads;
  if (!threads.fitsIn(kMaxLaunchThreads))
    return Status::error(where + " launches " + show(blocks) + " blocks of " +
                         std::to_string(blockThreads) + " threads, " +
                         show(threads) +
                         " threads in all; a launch may have at most 2^31 - 1 "
                         "(kernels index their threads in 32-bit arithmetic)");
  if (k.sharedBytes > 227 * 1024)
    return Status::error(where + " asks for " + std::to_string(k.sharedBytes) +
                         " bytes of dynamic shared memory; at most 227 "
                         "KiB are available");
  Checked argBytes = 0;
  for (const BufferRef &a : k.args)
    argBytes += a.bytes;
  const uint64_t blockBound = std::max<uint64_t>(1, argBytes.valueOr(~0ull));
  if (*blocks.value() > blockBound)
    return Status::error(where + " launches " + show(blocks) + " blocks over " +
                         show(argBytes) +
                         " bytes of arguments; a kernel launch may have at "
                         "most one block per byte it is passed");
  return Status::ok();
}

/// Checks a GEMM step's epilogue kernel (`g.epilogueKernel` >= 0) against
/// what the runtime passes it: C (covering `g.c.bytes`) and the bias (or
/// nothing without one).
Status checkEpilogueKernel(const Package &pkg, const GemmStep &g,
                           const std::string &where) {
  const size_t kernel = size_t(g.epilogueKernel);
  const KernelSignature &sig = *pkg.kernels[kernel].signature;
  const std::vector<KernelParam> &params = sig.params;
  std::string what = where + ": epilogue " + kernelName(pkg, kernel);
  // The runtime launches it with kEpilogueThreads threads a block and at
  // most kEpilogueMaxBlocks blocks (epilogueGrid).
  const uint32_t block[3] = {kEpilogueThreads, 1, 1};
  for (int d = 0; d < 3; ++d)
    if (sig.block[d] != block[d])
      return Status::error(what + " was compiled for blocks of " +
                           dims(sig.block) +
                           " threads; the runtime launches "
                           "epilogue kernels with " +
                           dims(block));
  const uint64_t total = (Checked::fromSigned(g.batch) *
                          Checked::fromSigned(g.m) * Checked::fromSigned(g.n))
                             .valueOr(~0ull);
  const uint64_t blocks = std::max<uint64_t>(
      1, std::min<uint64_t>((total + (kEpilogueThreads - 1)) / kEpilogueThreads,
                            kEpilogueMaxBlocks));
  if (blocks > sig.grid[0])
    return Status::error(what + " handles at most " + dims(sig.grid) +
                         " blocks; the runtime launches it with " +
                         std::to_string(blocks));
  if (params.size() != 2)
    return Status::error(what + " takes " + std::to_string(params.size()) +
                         " parameters; an epilogue kernel takes 2 (C and the "
                         "bias)");
  if (params[0].bytes > g.c.bytes)
    return Status::error(what + " accesses " + std::to_string(params[0].bytes) +
                         " bytes through C, whose buffer reference covers " +
                         std::to_string(g.c.bytes));
  const uint64_t biasBytes = g.bias ? g.bias->bytes : 0;
  if (params[1].bytes > biasBytes)
    return Status::error(
        what + " accesses " + std::to_string(params[1].bytes) +
        " bytes through the bias, " +
        (g.bias ? "whose buffer reference covers " + std::to_string(biasBytes)
                : std::string("but the step has none")));
  if (params[1].writes && g.bias)
    DLC_RT_RETURN_IF_ERROR(checkWritable(*g.bias, what + ": the bias"));
  return Status::ok();
}

} // namespace

Status validatePackage(const Package &pkg) {
  if (!pkg.inputNames.empty() && pkg.inputNames.size() != pkg.inputs.size())
    return Status::error(
        "the package names " + std::to_string(pkg.inputNames.size()) +
        " inputs but has " + std::to_string(pkg.inputs.size()));
  if (!pkg.outputNames.empty() && pkg.outputNames.size() != pkg.outputs.size())
    return Status::error(
        "the package names " + std::to_string(pkg.outputNames.size()) +
        " outputs but has " + std::to_string(pkg.outputs.size()));
  for (size_t i = 0; i < pkg.inputs.size(); ++i)
    DLC_RT_RETURN_IF_ERROR(
        checkDesc(pkg.inputs[i], "input #" + std::to_string(i)));
  if (std::string wrong = trainingStateError(pkg); !wrong.empty())
    return Status::error(wrong);
  for (size_t i = 0; i < pkg.outputs.size(); ++i)
    DLC_RT_RETURN_IF_ERROR(
        checkDesc(pkg.outputs[i], "output #" + std::to_string(i)));

  std::set<std::string> names;
  for (size_t i = 0; i < pkg.kernels.size(); ++i) {
    const KernelInfo &k = pkg.kernels[i];
    if (!isIdentifier(k.name))
      return Status::error("kernel #" + std::to_string(i) + " has name '" +
                           k.name + "', which is not a C identifier");
    if (!names.insert(k.name).second)
      return Status::error("kernel name '" + k.name + "' appears twice");
    // Without a signature nothing bounds what a launch of the kernel may
    // touch, so a package of format 1 to 4 (which recorded none) runs only
    // when it has no kernels: a version number is as easy to edit as any
    // field, and accepting the old form would let an edited package skip
    // every check below.
    if (!k.signature) {
      if (pkg.formatVersion >= kSignatureVersion)
        return Status::error(kernelName(pkg, i) +
                             " has no signature (its launch shape and "
                             "parameters)");
      return Status::error(
          kernelName(pkg, i) + " has no signature: packages of format " +
          std::to_string(pkg.formatVersion) +
          " record none, so their kernels cannot be checked before they run; "
          "compile the model again with this dlc");
    }
    // CUDA's traditional parameter space is 4 KiB: 512 pointers.
    if (k.signature->params.size() > 512)
      return Status::error(kernelName(pkg, i) + " takes " +
                           std::to_string(k.signature->params.size()) +
                           " parameters; at most 512 are allowed");
  }
  if (!pkg.kernels.empty() && pkg.cudaSource.empty())
    return Status::error("the package has kernels but no CUDA source");
  for (const Cubin &c : pkg.cubins) {
    bool ok = c.arch.size() > 3 && c.arch.compare(0, 3, "sm_") == 0;
    for (size_t j = 3; ok && j < c.arch.size(); ++j)
      ok = std::isalnum(static_cast<unsigned char>(c.arch[j]));
    if (!ok)
      return Status::error("cubin architecture '" + c.arch +
                           "' is not of the form sm_XX");
    if (c.image.empty())
      return Status::error("the cubin for " + c.arch + " is empty");
  }

  for (size_t i = 0; i < pkg.steps.size(); ++i) {
    const Step &s = pkg.steps[i];
    std::string where = stepName(pkg, i);
    switch (s.kind) {
    case Step::Kind::Kernel: {
      const KernelStep &k = s.kernel;
      if (k.kernel >= pkg.kernels.size())
        return Status::error(where + " launches kernel #" +
                             std::to_string(k.kernel) + " but there are " +
                             std::to_string(pkg.kernels.size()) + " kernels");
      // CUDA's traditional parameter space is 4 KiB: 512 pointers.
      if (k.args.size() > 512)
        return Status::error(where + " passes " +
                             std::to_string(k.args.size()) +
                             " arguments; at most 512 are allowed");
      for (size_t a = 0; a < k.args.size(); ++a)
        DLC_RT_RETURN_IF_ERROR(checkRef(
            pkg, k.args[a], where + ": argument " + std::to_string(a)));
      DLC_RT_RETURN_IF_ERROR(checkLaunch(k, where));
      DLC_RT_RETURN_IF_ERROR(checkSignature(pkg, k, where));
      break;
    }
    case Step::Kind::Gemm: {
      const GemmStep &g = s.gemm;
      auto isGemmType = [](DType t) {
        return t == DType::F32 || t == DType::F16 || t == DType::BF16;
      };
      if (!isGemmType(g.dtype) && !g.isFp8())
        return Status::error(where + ": GEMM on " + dtypeName(g.dtype) +
                             " is not supported (f32, f16, bf16 and "
                             "f8e4m3 are)");
      // cuBLASLt's FP8 products with a C of their D's 16-bit type (an f32
      // D would want a bf16 bias).
      if (g.isFp8() && g.cType != DType::BF16 && g.cType != DType::F16)
        return Status::error(where +
                             ": an FP8 GEMM's result is bf16 or f16, "
                             "not " +
                             std::string(dtypeName(g.cType)));
      // The scales multiply alpha: finite and positive, and 1 where they
      // do not apply.
      for (double scale : {g.scaleA, g.scaleB})
        if (!(std::isfinite(scale) && scale > 0) ||
            (!g.isFp8() && scale != 1.0))
          return Status::error(
              where + ": GEMM scale " + std::to_string(scale) +
              (g.isFp8() ? " is not a positive finite number"
                         : " on a GEMM that is not FP8 (only FP8 GEMMs "
                           "are scaled)"));
      if (g.accType != DType::F32)
        return Status::error(where + ": GEMM accumulation in " +
                             std::string(dtypeName(g.accType)) +
                             " is not supported (only f32)");
      if (g.tf32 && g.dtype != DType::F32)
        return Status::error(where + ": TF32 is for f32 GEMMs, not " +
                             std::string(dtypeName(g.dtype)));
      // An FP8 product runs on cuBLASLt only, its epilogue with it: there
      // is no plain FP8 cuBLAS GEMM for a fallback kernel to follow.
      if (g.epilogueKernel != -1 && g.isFp8())
        return Status::error(where + ": an FP8 GEMM has no epilogue kernel "
                                     "(its epilogue runs in cuBLASLt)");
      if (g.epilogueKernel != -1 &&
          (!g.hasEpilogue() || g.epilogueKernel < 0 ||
           size_t(g.epilogueKernel) >= pkg.kernels.size()))
        return Status::error(
            where + ": epilogue kernel " + std::to_string(g.epilogueKernel) +
            (g.hasEpilogue() ? " is not a kernel of the package"
                             : " on a GEMM without an epilogue"));
      const int64_t limit = int64_t(1) << 31;
      if (g.m < 0 || g.n < 0 || g.k < 0 || g.m >= limit || g.n >= limit ||
          g.k >= limit)
        return Status::error(where + ": GEMM sizes m=" + std::to_string(g.m) +
                             " n=" + std::to_string(g.n) + " k=" +
                             std::to_string(g.k) + " must lie in [0, 2^31)");
      if (g.batch < 1 || g.batch >= limit)
        return Status::error(where + ": GEMM batch " + std::to_string(g.batch) +
                             " must lie in [1, 2^31)");
      // After the size checks, so that sizes out of range say so; checked
      // all the same.
      if (g.epilogueKernel >= 0 &&
          (g.ldc != g.n ||
           (g.batch > 1 &&
            (Checked::fromSigned(g.m) * Checked::fromSigned(g.n)).value() !=
                Checked::fromSigned(g.strideC).value())))
        return Status::error(where + ": an epilogue kernel needs a "
                                     "contiguous result (ldc = n, strideC = "
                                     "m * n)");
      const int64_t bigLimit = int64_t(1) << 40;
      for (int64_t v : {g.lda, g.ldb, g.ldc, g.strideA, g.strideB, g.strideC})
        if (v >= bigLimit)
          return Status::error(where + ": GEMM stride " + std::to_string(v) +
                               " is too large");
      if (g.strideC == 0 && g.batch > 1 && g.m > 0 && g.n > 0)
        return Status::error(where + ": GEMM with batch " +
                             std::to_string(g.batch) +
                             " has output batch stride 0; every batch would "
                             "write the same matrix");
      DLC_RT_RETURN_IF_ERROR(checkRef(pkg, g.a, where + ": operand A"));
      DLC_RT_RETURN_IF_ERROR(checkRef(pkg, g.b, where + ": operand B"));
      DLC_RT_RETURN_IF_ERROR(checkRef(pkg, g.c, where + ": operand C"));
      DLC_RT_RETURN_IF_ERROR(checkWritable(g.c, where + ": operand C"));
      size_t es = dtypeSize(g.dtype), esC = dtypeSize(g.outType());
      DLC_RT_RETURN_IF_ERROR(checkGemmOperand("A", g.a, g.transA ? g.k : g.m,
                                              g.transA ? g.m : g.k, g.lda,
                                              g.strideA, g.batch, es, where));
      DLC_RT_RETURN_IF_ERROR(checkGemmOperand("B", g.b, g.transB ? g.n : g.k,
                                              g.transB ? g.k : g.n, g.ldb,
                                              g.strideB, g.batch, es, where));
      DLC_RT_RETURN_IF_ERROR(checkGemmOperand("C", g.c, g.m, g.n, g.ldc,
                                              g.strideC, g.batch, esC, where));
      if (uint8_t(g.epilogue) > uint8_t(GemmEpilogue::GeluTanh))
        return Status::error(where + ": GEMM epilogue " +
                             std::to_string(int(g.epilogue)) +
                             " is not one of none, relu and gelu_tanh");
      if (g.bias) {
        DLC_RT_RETURN_IF_ERROR(checkRef(pkg, *g.bias, where + ": bias"));
        // One row of N elements, shared by every row and batch.
        DLC_RT_RETURN_IF_ERROR(checkGemmOperand("bias", *g.bias, 1, g.n,
                                                std::max<int64_t>(g.n, 1), 0, 1,
                                                esC, where));
      }
      if (g.addend) {
        DLC_RT_RETURN_IF_ERROR(checkRef(pkg, *g.addend, where + ": addend"));
        DLC_RT_RETURN_IF_ERROR(checkGemmOperand("addend", *g.addend, g.m, g.n,
                                                g.ldc, g.strideC, g.batch, esC,
                                                where));
      }
      if (g.epilogueKernel >= 0)
        DLC_RT_RETURN_IF_ERROR(checkEpilogueKernel(pkg, g, where));
      break;
    }
    case Step::Kind::Copy: {
      const CopyStep &c = s.copy;
      DLC_RT_RETURN_IF_ERROR(checkRef(pkg, c.src, where + ": source"));
      DLC_RT_RETURN_IF_ERROR(checkRef(pkg, c.dst, where + ": destination"));
      DLC_RT_RETURN_IF_ERROR(checkWritable(c.dst, where + ": destination"));
      if (c.dst.bytes < c.src.bytes)
        return Status::error(where + " copies " + std::to_string(c.src.bytes) +
                             " bytes into a destination of " +
                             std::to_string(c.dst.bytes));
      break;
    }
    case Step::Kind::Conv:
      DLC_RT_RETURN_IF_ERROR(checkConvStep(pkg, s.conv, where));
      break;
    default:
      return Status::error(where + " has an invalid kind");
    }
  }
  return Status::ok();
}

std::vector<HostTensor> randomInputs(const Package &package, uint64_t seed) {
  return randomTensors(package.inputs, seed);
}

std::vector<HostTensor> randomTensors(const std::vector<TensorDesc> &descs,
                                      uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<HostTensor> inputs;
  for (const TensorDesc &desc : descs) {
    HostTensor t(desc.dtype, desc.shape);
    for (int64_t i = 0, e = t.numElements(); i < e; ++i) {
      switch (desc.dtype) {
      case DType::F32:
      case DType::F16:
      case DType::BF16:
      case DType::F8E4M3:
        t.setFromDouble(i,
                        std::uniform_real_distribution<double>(-1.0, 1.0)(rng));
        break;
      case DType::I32:
      case DType::I64:
        t.setFromDouble(i, double(rng() % 8));
        break;
      case DType::I1:
        t.setFromDouble(i, double(rng() & 1));
        break;
      }
    }
    inputs.push_back(std::move(t));
  }
  return inputs;
}

uint64_t stepBytes(const Step &step) {
  uint64_t total = 0;
  auto add = [&](const BufferRef &ref) { total += ref.bytes; };
  switch (step.kind) {
  case Step::Kind::Kernel:
    if (step.kernel.bytes != 0)
      return step.kernel.bytes;
    for (const BufferRef &ref : step.kernel.args)
      add(ref);
    break;
  case Step::Kind::Gemm:
    add(step.gemm.a);
    add(step.gemm.b);
    add(step.gemm.c);
    if (step.gemm.bias)
      add(*step.gemm.bias);
    if (step.gemm.addend)
      add(*step.gemm.addend);
    break;
  case Step::Kind::Copy:
    add(step.copy.src);
    add(step.copy.dst);
    break;
  case Step::Kind::Conv:
    add(step.conv.x);
    add(step.conv.filter);
    add(step.conv.y);
    if (step.conv.bias)
      add(*step.conv.bias);
    if (step.conv.addend)
      add(*step.conv.addend);
    break;
  }
  return total;
}

double stepFlops(const Step &step) {
  if (step.kind == Step::Kind::Gemm)
    return 2.0 * double(step.gemm.m) * double(step.gemm.n) *
           double(step.gemm.k) * double(step.gemm.batch);
  if (step.kind == Step::Kind::Conv) {
    const ConvStep &c = step.conv;
    return 2.0 * double(c.n) * double(c.p) * double(c.q) * double(c.k) *
           double(c.r) * double(c.s) *
           double(c.c / std::max<int64_t>(c.groups, 1));
  }
  if (step.kind == Step::Kind::Kernel)
    return step.kernel.flops;
  return 0;
}

double defaultTolerance(DType type) {
  switch (type) {
  case DType::F16:
    return 1e-2;
  case DType::BF16:
    return 2e-2;
  case DType::F8E4M3:
    return kFp8Tolerance;
  default:
    return 1e-5;
  }
}

bool isKnownPrecision(const std::string &precision) {
  for (const char *known : {"f32", "tf32", "bf16", "fp16", "fp8"})
    if (precision == known)
      return true;
  return false;
}

double defaultTolerance(const Package &package, DType type) {
  double tolerance = defaultTolerance(type);
  // A low-precision output of an f32 model (--io-precision=low) is judged
  // as its f32 outputs are.
  if (type != DType::F32 &&
      !((type == DType::BF16 || type == DType::F16) &&
        isKnownPrecision(package.precision) && package.precision != "f32" &&
        package.precision != "tf32"))
    return tolerance;
  // The precision the package records; a package written before it did
  // is judged by its GEMM steps' types.
  if (package.precision == "bf16")
    return std::max(tolerance, defaultTolerance(DType::BF16));
  if (package.precision == "fp16")
    return std::max(tolerance, defaultTolerance(DType::F16));
  if (package.precision == "tf32")
    return std::max(tolerance, kTf32Tolerance);
  if (package.precision == "fp8")
    return std::max(tolerance, kFp8Tolerance);
  for (const Step &s : package.steps) {
    if (s.kind != Step::Kind::Gemm)
      continue;
    if (s.gemm.dtype == DType::BF16 || s.gemm.dtype == DType::F16 ||
        s.gemm.isFp8())
      tolerance = std::max(tolerance, defaultTolerance(s.gemm.dtype));
    else if (s.gemm.tf32)
      tolerance = std::max(tolerance, kTf32Tolerance);
  }
  return tolerance;
}

const char *stepKindName(Step::Kind kind) {
  switch (kind) {
  case Step::Kind::Kernel:
    return "kernel";
  case Step::Kind::Gemm:
    return "gemm";
  case Step::Kind::Copy:
    return "copy";
  case Step::Kind::Conv:
    return "conv";
  }
  return "?";
}

} // namespace dlc::rt
