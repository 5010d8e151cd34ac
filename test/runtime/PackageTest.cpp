//===- PackageTest.cpp - The .dlcpkg format and validatePackage -----------===//

#include "runtime/Package.h"
#include "TestUtil.h"
#include "runtime/SafeFile.h"
#include "runtime/Support.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <optional>

using namespace dlc::rt;
using dlc::rt::test::TempDir;
using ::testing::HasSubstr;

namespace {

BufferRef ref(BufferRef::Kind kind, uint32_t index, uint64_t offset,
              uint64_t bytes) {
  BufferRef r;
  r.kind = kind;
  r.index = index;
  r.offset = offset;
  r.bytes = bytes;
  return r;
}

KernelSignature signature(std::vector<uint32_t> block,
                          std::vector<uint32_t> grid,
                          std::vector<KernelParam> params) {
  KernelSignature s;
  for (int d = 0; d < 3; ++d) {
    s.block[d] = block[size_t(d)];
    s.grid[d] = grid[size_t(d)];
  }
  s.params = std::move(params);
  return s;
}

/// A package using every field and step kind, valid for validatePackage.
Package samplePackage() {
  Package p;
  p.entry = "forward";
  p.inputs = {{DType::F32, {4, 8}}, {DType::BF16, {8}}};
  p.outputs = {{DType::F32, {4, 8}}, {DType::I1, {}}};
  p.cudaSource = "extern \"C\" __global__ void k0(float *a) {}\n";
  // k0 as step 0 launches it; k1, taking C and a bias of the epilogue
  // GEMM (step 3), as an epilogue kernel does.
  p.kernels = {
      {"k0", false,
       signature({128, 2, 1}, {2, 1, 1},
                 {{128, false}, {4, false}, {512, true}})},
      {"k1", true,
       signature({256, 1, 1}, {65535, 1, 1}, {{128, true}, {32, false}})}};
  p.cubins = {{"sm_80", {0x7f, 'E', 'L', 'F', 1, 2, 3}, {}},
              {"sm_90a", std::vector<uint8_t>(1000, 0xab), {}}};
  p.cubins[1].resources = {{"k0", 40, 0, 0, 0}, {"k1", 255, 272, 272, 328}};
  p.arenaBytes = 1024;
  p.constants = {1, 2, 3, 4, 5, 6, 7, 8};
  p.referenceIR = "func.func @forward() { return }";
  // One weight kept in the constants, one stored on its own.
  p.referenceBlobs.resize(2);
  p.referenceBlobs[0].key = "w";
  p.referenceBlobs[0].alignment = 4;
  p.referenceBlobs[0].inConstants = true;
  p.referenceBlobs[0].offset = 4;
  p.referenceBlobs[0].size = 4;
  p.referenceBlobs[1].key = "b";
  p.referenceBlobs[1].alignment = 8;
  p.referenceBlobs[1].data = {9, 10, 11};
  p.intermediateBytes = 4096;
  p.sourceOpCount = 17;

  Step k;
  k.kind = Step::Kind::Kernel;
  k.label = "k0: add+exp";
  k.kernel.kernel = 0;
  k.kernel.grid[0] = 2;
  k.kernel.block[0] = 128;
  k.kernel.block[1] = 2;
  k.kernel.sharedBytes = 64;
  k.kernel.args = {ref(BufferRef::Kind::Input, 0, 0, 128),
                   ref(BufferRef::Kind::Constant, 0, 4, 4),
                   ref(BufferRef::Kind::Arena, 0, 256, 512)};
  k.kernel.flops = 6.875e10;
  p.steps.push_back(k);

  Step g;
  g.kind = Step::Kind::Gemm;
  g.label = "matmul";
  g.gemm.dtype = DType::F32;
  g.gemm.transB = true;
  g.gemm.m = 4;
  g.gemm.n = 8;
  g.gemm.k = 8;
  g.gemm.batch = 1;
  g.gemm.lda = 8;
  g.gemm.ldb = 8;
  g.gemm.ldc = 8;
  g.gemm.alpha = 0.5;
  g.gemm.beta = -1.25;
  g.gemm.a = ref(BufferRef::Kind::Input, 0, 0, 128);
  g.gemm.b = ref(BufferRef::Kind::Arena, 0, 0, 256);
  g.gemm.c = ref(BufferRef::Kind::Output, 0, 0, 128);
  p.steps.push_back(g);

  Step c;
  c.kind = Step::Kind::Copy;
  c.label = "copy";
  c.copy.src = ref(BufferRef::Kind::Arena, 0, 512, 1);
  c.copy.dst = ref(BufferRef::Kind::Output, 1, 0, 1);
  p.steps.push_back(c);

  // A GEMM with an epilogue: act(A x B + addend + bias) into the arena.
  Step e = g;
  e.label = "gemm bias+addend+gelu_tanh";
  e.gemm.alpha = 1.0;
  e.gemm.beta = 1.0;
  e.gemm.c = ref(BufferRef::Kind::Arena, 0, 640, 128);
  e.gemm.bias = ref(BufferRef::Kind::Arena, 0, 768, 32);
  e.gemm.addend = ref(BufferRef::Kind::Input, 0, 0, 128);
  e.gemm.epilogue = GemmEpilogue::GeluTanh;
  p.steps.push_back(e);
  return p;
}

/// The STEP section of version `version` holding one GEMM step `g`, with
/// its epilogue (version 2 on) and TF32 flag (version 3, then the epilogue
/// kernel) written as the given raw bytes.
std::vector<uint8_t> gemmStepSection(const GemmStep &g, uint32_t version,
                                     uint8_t epilogue, uint8_t biasFlag,
                                     uint8_t addendFlag, uint8_t tf32Flag = 0) {
  std::vector<uint8_t> body;
  ByteWriter w(body);
  auto writeRef = [&](const BufferRef &r) {
    w.u8(uint8_t(r.kind));
    w.u32(r.index);
    w.u64(r.offset);
    w.u64(r.bytes);
  };
  w.u32(1);
  w.u8(uint8_t(Step::Kind::Gemm));
  w.string("gemm");
  w.u8(uint8_t(g.dtype));
  w.u8(uint8_t(g.accType));
  w.u8(g.transA);
  w.u8(g.transB);
  for (int64_t v : {g.m, g.n, g.k, g.batch, g.lda, g.ldb, g.ldc, g.strideA,
                    g.strideB, g.strideC})
    w.i64(v);
  w.f64(g.alpha);
  w.f64(g.beta);
  writeRef(g.a);
  writeRef(g.b);
  writeRef(g.c);
  if (version >= 2) {
    w.u8(epilogue);
    w.u8(biasFlag);
    if (biasFlag == 1)
      writeRef(*g.bias);
    w.u8(addendFlag);
    if (addendFlag == 1)
      writeRef(*g.addend);
  }
  if (version >= 3) {
    w.u8(tf32Flag);
    w.u32(uint32_t(g.epilogueKernel));
  }
  if (version >= kFp8Version) {
    w.u8(uint8_t(g.outType()));
    w.f64(g.scaleA);
    w.f64(g.scaleB);
  }
  std::vector<uint8_t> section;
  ByteWriter h(section);
  h.u32(0x50455453); // "STEP"
  h.u32(0);
  h.u64(body.size());
  h.bytes(body.data(), body.size());
  return section;
}

/// `payload` with each section that `rewrite(tag, body, length)` returns a
/// replacement for (a whole section, header included) replaced by it.
std::vector<uint8_t>
mapSections(const std::vector<uint8_t> &payload,
            const std::function<std::optional<std::vector<uint8_t>>(
                uint32_t, const uint8_t *, uint64_t)> &rewrite) {
  std::vector<uint8_t> out;
  size_t pos = 0;
  while (pos + 16 <= payload.size()) {
    ByteReader h(payload.data() + pos, 16);
    uint32_t tag, flags;
    uint64_t len;
    h.u32(tag);
    h.u32(flags);
    h.u64(len);
    if (auto section = rewrite(tag, payload.data() + pos + 16, len))
      out.insert(out.end(), section->begin(), section->end());
    else
      out.insert(out.end(), payload.begin() + long(pos),
                 payload.begin() + long(pos + 16 + len));
    pos += 16 + len;
  }
  return out;
}

/// `payload` with its STEP section replaced by `section`.
std::vector<uint8_t> replaceSteps(const std::vector<uint8_t> &payload,
                                  const std::vector<uint8_t> &section) {
  return mapSections(payload,
                     [&](uint32_t tag, const uint8_t *,
                         uint64_t) -> std::optional<std::vector<uint8_t>> {
                       if (tag != 0x50455453) // "STEP"
                         return std::nullopt;
                       return section;
                     });
}

/// A section: its header (tag, no flags, length), then `body`.
std::vector<uint8_t> sectionOf(uint32_t tag, const std::vector<uint8_t> &body) {
  std::vector<uint8_t> section;
  ByteWriter w(section);
  w.u32(tag);
  w.u32(0);
  w.u64(body.size());
  w.bytes(body.data(), body.size());
  return section;
}

/// `payload` (version 6) with its STEP section in the layout of versions
/// 3-5: GEMM steps without C's type and the FP8 scales.
std::vector<uint8_t> olderSteps(const std::vector<uint8_t> &payload) {
  return mapSections(
      payload,
      [](uint32_t tag, const uint8_t *body,
         uint64_t len) -> std::optional<std::vector<uint8_t>> {
        if (tag != 0x50455453) // "STEP"
          return std::nullopt;
        // Copies the body but the last 17 bytes (u8 cType, f64 scaleA,
        // f64 scaleB) of each GEMM step.
        std::vector<uint8_t> out;
        size_t pos = 0;
        auto copy = [&](size_t n) {
          out.insert(out.end(), body + pos, body + pos + n);
          pos += n;
        };
        auto u32At = [&](size_t at) {
          uint32_t v;
          std::memcpy(&v, body + at, 4);
          return v;
        };
        const size_t ref = 21; // u8 kind, u32 index, u64 offset, u64 bytes
        uint32_t n = u32At(0);
        copy(4);
        for (uint32_t i = 0; i < n; ++i) {
          uint8_t kind = body[pos];
          copy(1);
          copy(8 + u32At(pos)); // the label (u64 length on the wire)
          if (kind == uint8_t(Step::Kind::Kernel)) {
            copy(4 * 8);
            uint32_t args = u32At(pos);
            copy(4 + args * ref);
          } else if (kind == uint8_t(Step::Kind::Gemm)) {
            copy(4 + 10 * 8 + 2 * 8 + 3 * ref + 1);
            for (int optional = 0; optional < 2; ++optional) {
              bool has = body[pos] == 1;
              copy(1 + (has ? ref : 0));
            }
            copy(1 + 4);
            pos += 17;
          } else {
            copy(2 * ref);
          }
        }
        (void)len;
        return sectionOf(tag, out);
      });
}

/// `payload` (version 5) with its KERN section in the layout of versions
/// 1-4: names and barrier flags, no signatures.
std::vector<uint8_t> olderKernels(const std::vector<uint8_t> &payload) {
  return mapSections(payload,
                     [](uint32_t tag, const uint8_t *body,
                        uint64_t len) -> std::optional<std::vector<uint8_t>> {
                       if (tag != 0x4e52454b) // "KERN"
                         return std::nullopt;
                       ByteReader b(body, len);
                       std::vector<uint8_t> out;
                       ByteWriter o(out);
                       uint32_t n = 0;
                       b.u32(n);
                       o.u32(n);
                       for (uint32_t i = 0; i < n; ++i) {
                         std::string name;
                         uint8_t barriers = 0;
                         uint32_t params = 0;
                         b.string(name);
                         b.u8(barriers);
                         b.skip(24); // block and grid
                         b.u32(params);
                         b.skip(uint64_t(params) * 9);
                         o.string(name);
                         o.u8(barriers);
                       }
                       return sectionOf(tag, out);
                     });
}

/// `p` as read from format version `version`, which has no kernel
/// signatures before version 5.
Package asVersion(Package p, uint32_t version) {
  p.formatVersion = version;
  if (version < kSignatureVersion)
    for (KernelInfo &k : p.kernels)
      k.signature.reset();
  return p;
}

/// `payload` (version 4) with its RFIR section in the layout of versions
/// 1-3: the reference model only, no blobs.
std::vector<uint8_t> olderReference(const std::vector<uint8_t> &payload) {
  return mapSections(payload,
                     [](uint32_t tag, const uint8_t *body,
                        uint64_t len) -> std::optional<std::vector<uint8_t>> {
                       if (tag != 0x52494652) // "RFIR"
                         return std::nullopt;
                       ByteReader b(body, len);
                       std::string ir;
                       b.string(ir);
                       std::vector<uint8_t> section;
                       ByteWriter w(section);
                       w.u32(tag);
                       w.u32(0);
                       w.u64(8 + ir.size());
                       w.string(ir);
                       return section;
                     });
}

bool sameRef(const BufferRef &a, const BufferRef &b) {
  return a.kind == b.kind && a.index == b.index && a.offset == b.offset &&
         a.bytes == b.bytes;
}

void expectEqual(const Package &a, const Package &b) {
  EXPECT_EQ(a.entry, b.entry);
  ASSERT_EQ(a.inputs.size(), b.inputs.size());
  for (size_t i = 0; i < a.inputs.size(); ++i) {
    EXPECT_EQ(a.inputs[i].dtype, b.inputs[i].dtype);
    EXPECT_EQ(a.inputs[i].shape, b.inputs[i].shape);
  }
  ASSERT_EQ(a.outputs.size(), b.outputs.size());
  for (size_t i = 0; i < a.outputs.size(); ++i) {
    EXPECT_EQ(a.outputs[i].dtype, b.outputs[i].dtype);
    EXPECT_EQ(a.outputs[i].shape, b.outputs[i].shape);
  }
  EXPECT_EQ(a.cudaSource, b.cudaSource);
  ASSERT_EQ(a.kernels.size(), b.kernels.size());
  for (size_t i = 0; i < a.kernels.size(); ++i) {
    EXPECT_EQ(a.kernels[i].name, b.kernels[i].name);
    EXPECT_EQ(a.kernels[i].usesBarriers, b.kernels[i].usesBarriers);
    EXPECT_EQ(a.kernels[i].signature.has_value(),
              b.kernels[i].signature.has_value())
        << i;
    if (a.kernels[i].signature && b.kernels[i].signature) {
      EXPECT_TRUE(*a.kernels[i].signature == *b.kernels[i].signature) << i;
    }
  }
  EXPECT_EQ(a.formatVersion, b.formatVersion);
  ASSERT_EQ(a.cubins.size(), b.cubins.size());
  for (size_t i = 0; i < a.cubins.size(); ++i) {
    EXPECT_EQ(a.cubins[i].arch, b.cubins[i].arch);
    EXPECT_EQ(a.cubins[i].image, b.cubins[i].image);
    ASSERT_EQ(a.cubins[i].resources.size(), b.cubins[i].resources.size());
    for (size_t k = 0; k < a.cubins[i].resources.size(); ++k) {
      const KernelResources &x = a.cubins[i].resources[k],
                            &y = b.cubins[i].resources[k];
      EXPECT_EQ(x.kernel, y.kernel);
      EXPECT_EQ(x.registers, y.registers);
      EXPECT_EQ(x.stackBytes, y.stackBytes);
      EXPECT_EQ(x.spillStoreBytes, y.spillStoreBytes);
      EXPECT_EQ(x.spillLoadBytes, y.spillLoadBytes);
    }
  }
  ASSERT_EQ(a.steps.size(), b.steps.size());
  for (size_t i = 0; i < a.steps.size(); ++i) {
    const Step &x = a.steps[i], &y = b.steps[i];
    EXPECT_EQ(x.kind, y.kind);
    EXPECT_EQ(x.label, y.label);
    switch (x.kind) {
    case Step::Kind::Kernel:
      EXPECT_EQ(x.kernel.kernel, y.kernel.kernel);
      for (int d = 0; d < 3; ++d) {
        EXPECT_EQ(x.kernel.grid[d], y.kernel.grid[d]);
        EXPECT_EQ(x.kernel.block[d], y.kernel.block[d]);
      }
      EXPECT_EQ(x.kernel.sharedBytes, y.kernel.sharedBytes);
      EXPECT_EQ(x.kernel.flops, y.kernel.flops);
      EXPECT_EQ(x.kernel.bytes, y.kernel.bytes);
      ASSERT_EQ(x.kernel.args.size(), y.kernel.args.size());
      for (size_t j = 0; j < x.kernel.args.size(); ++j)
        EXPECT_TRUE(sameRef(x.kernel.args[j], y.kernel.args[j]));
      break;
    case Step::Kind::Gemm: {
      const GemmStep &g = x.gemm, &h = y.gemm;
      EXPECT_EQ(g.dtype, h.dtype);
      EXPECT_EQ(g.accType, h.accType);
      EXPECT_EQ(g.transA, h.transA);
      EXPECT_EQ(g.transB, h.transB);
      EXPECT_EQ(g.m, h.m);
      EXPECT_EQ(g.n, h.n);
      EXPECT_EQ(g.k, h.k);
      EXPECT_EQ(g.batch, h.batch);
      EXPECT_EQ(g.lda, h.lda);
      EXPECT_EQ(g.ldb, h.ldb);
      EXPECT_EQ(g.ldc, h.ldc);
      EXPECT_EQ(g.strideA, h.strideA);
      EXPECT_EQ(g.strideB, h.strideB);
      EXPECT_EQ(g.strideC, h.strideC);
      EXPECT_EQ(g.alpha, h.alpha);
      EXPECT_EQ(g.beta, h.beta);
      EXPECT_TRUE(sameRef(g.a, h.a));
      EXPECT_TRUE(sameRef(g.b, h.b));
      EXPECT_TRUE(sameRef(g.c, h.c));
      EXPECT_EQ(g.epilogue, h.epilogue);
      ASSERT_EQ(g.bias.has_value(), h.bias.has_value());
      if (g.bias) {
        EXPECT_TRUE(sameRef(*g.bias, *h.bias));
      }
      ASSERT_EQ(g.addend.has_value(), h.addend.has_value());
      if (g.addend) {
        EXPECT_TRUE(sameRef(*g.addend, *h.addend));
      }
      EXPECT_EQ(g.tf32, h.tf32);
      EXPECT_EQ(g.epilogueKernel, h.epilogueKernel);
      break;
    }
    case Step::Kind::Copy:
      EXPECT_TRUE(sameRef(x.copy.src, y.copy.src));
      EXPECT_TRUE(sameRef(x.copy.dst, y.copy.dst));
      break;
    case Step::Kind::Conv: {
      const ConvStep &c = x.conv, &d = y.conv;
      EXPECT_EQ(c.dtype, d.dtype);
      const int64_t *cs[] = {&c.n,    &c.h,      &c.w,       &c.c,
                             &c.k,    &c.r,      &c.s,       &c.p,
                             &c.q,    &c.groups, &c.strideH, &c.strideW,
                             &c.padH, &c.padW,   &c.dilH,    &c.dilW};
      const int64_t *ds[] = {&d.n,    &d.h,      &d.w,       &d.c,
                             &d.k,    &d.r,      &d.s,       &d.p,
                             &d.q,    &d.groups, &d.strideH, &d.strideW,
                             &d.padH, &d.padW,   &d.dilH,    &d.dilW};
      for (size_t f = 0; f < std::size(cs); ++f)
        EXPECT_EQ(*cs[f], *ds[f]) << "conv field " << f;
      EXPECT_TRUE(sameRef(c.x, d.x));
      EXPECT_TRUE(sameRef(c.filter, d.filter));
      EXPECT_TRUE(sameRef(c.y, d.y));
      ASSERT_EQ(c.bias.has_value(), d.bias.has_value());
      if (c.bias) {
        EXPECT_TRUE(sameRef(*c.bias, *d.bias));
      }
      ASSERT_EQ(c.addend.has_value(), d.addend.has_value());
      if (c.addend) {
        EXPECT_TRUE(sameRef(*c.addend, *d.addend));
      }
      EXPECT_EQ(c.epilogue, d.epilogue);
      EXPECT_EQ(c.tf32, d.tf32);
      break;
    }
    }
  }
  EXPECT_EQ(a.arenaBytes, b.arenaBytes);
  EXPECT_EQ(a.constants, b.constants);
  EXPECT_EQ(a.referenceIR, b.referenceIR);
  ASSERT_EQ(a.referenceBlobs.size(), b.referenceBlobs.size());
  for (size_t i = 0; i < a.referenceBlobs.size(); ++i) {
    const ReferenceBlob &x = a.referenceBlobs[i], &y = b.referenceBlobs[i];
    EXPECT_EQ(x.key, y.key);
    EXPECT_EQ(x.alignment, y.alignment);
    EXPECT_EQ(x.inConstants, y.inConstants);
    EXPECT_EQ(x.offset, y.offset);
    EXPECT_EQ(x.size, y.size);
    EXPECT_EQ(x.data, y.data);
  }
  EXPECT_EQ(a.intermediateBytes, b.intermediateBytes);
  EXPECT_EQ(a.sourceOpCount, b.sourceOpCount);
}

TEST(Package, SerializationRoundTrips) {
  Package p = samplePackage();
  ASSERT_TRUE(validatePackage(p).isOk()) << validatePackage(p).message();
  std::vector<uint8_t> bytes = serializePackage(p);
  EXPECT_EQ(std::memcmp(bytes.data(), "DLCPKG\0\0", 8), 0);
  Result<Package> q = deserializePackage(bytes);
  ASSERT_TRUE(q.isOk()) << q.message();
  expectEqual(p, *q);
  // Deterministic: the same package gives the same bytes.
  EXPECT_EQ(serializePackage(*q), bytes);

  Package empty;
  Result<Package> e = deserializePackage(serializePackage(empty));
  ASSERT_TRUE(e.isOk()) << e.message();
  expectEqual(empty, *e);
}

TEST(Package, FileRoundTrip) {
  TempDir dir;
  Package p = samplePackage();
  std::string path = dir.file("model.dlcpkg");
  ASSERT_TRUE(writePackageFile(path, p).isOk());
  Result<Package> q = readPackageFile(path);
  ASSERT_TRUE(q.isOk()) << q.message();
  expectEqual(p, *q);
  Result<Package> missing = readPackageFile(dir.file("none.dlcpkg"));
  ASSERT_FALSE(missing.isOk());
  EXPECT_THAT(missing.message(),
              HasSubstr("none.dlcpkg': No such file or directory"));
}

std::string readError(const TempDir &dir, const std::vector<uint8_t> &bytes) {
  std::string path = dir.file("model.dlcpkg");
  EXPECT_TRUE(test::writeBytes(path, bytes));
  Result<Package> r = readPackageFile(path);
  EXPECT_FALSE(r.isOk());
  return r.isOk() ? "" : r.message();
}

TEST(Package, RejectsOtherVersions) {
  TempDir dir;
  std::vector<uint8_t> bytes = serializePackage(samplePackage());
  bytes[8] = 8;
  EXPECT_EQ(readError(dir, bytes),
            dir.file("model.dlcpkg") +
                ": package format version 8, this dlc reads versions 1 to 7 "
                "(recompile the model)");
}

TEST(Package, RejectsTruncatedFiles) {
  TempDir dir;
  std::vector<uint8_t> bytes = serializePackage(samplePackage());
  for (size_t size : {size_t(0), size_t(5), size_t(31), size_t(32), size_t(100),
                      bytes.size() / 2, bytes.size() - 1}) {
    std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + long(size));
    std::string msg = readError(dir, cut);
    EXPECT_EQ(msg.rfind(dir.file("model.dlcpkg") + " is truncated", 0), 0u)
        << size << ": " << msg;
  }
}

TEST(Package, DetectsCorruption) {
  TempDir dir;
  std::vector<uint8_t> bytes = serializePackage(samplePackage());
  for (size_t pos : {size_t(40), bytes.size() / 2, bytes.size() - 1}) {
    std::vector<uint8_t> bad = bytes;
    bad[pos] ^= 0x10;
    EXPECT_EQ(readError(dir, bad), dir.file("model.dlcpkg") +
                                       ": checksum mismatch: the file is "
                                       "corrupt");
  }
  std::vector<uint8_t> magic = bytes;
  magic[2] = 'X';
  EXPECT_THAT(readError(dir, magic),
              HasSubstr("not a dlc package (bad magic)"));
  std::vector<uint8_t> longer = bytes;
  longer.push_back(0);
  EXPECT_THAT(readError(dir, longer),
              HasSubstr("1 unexpected bytes after the payload"));
}

/// Rewrites the payload (after the 32-byte header) and fixes the header's
/// size and checksum, to reach the section parser with bad contents.
std::vector<uint8_t> withPayload(const std::vector<uint8_t> &payload,
                                 uint32_t version = kPackageVersion) {
  std::vector<uint8_t> out(32);
  std::memcpy(out.data(), "DLCPKG\0\0", 8);
  out[8] = uint8_t(version);
  uint64_t size = payload.size(),
           sum = packageChecksum(version, payload.data(), payload.size());
  for (int i = 0; i < 8; ++i) {
    out[16 + i] = uint8_t(size >> (8 * i));
    out[24 + i] = uint8_t(sum >> (8 * i));
  }
  out.insert(out.end(), payload.begin(), payload.end());
  return out;
}

TEST(Package, EpiloguesRoundTripAndVersion1StillReads) {
  Package p = samplePackage();
  ASSERT_TRUE(p.steps[3].gemm.hasEpilogue());
  EXPECT_FALSE(p.steps[1].gemm.hasEpilogue());
  Result<Package> q = deserializePackage(serializePackage(p));
  ASSERT_TRUE(q.isOk()) << q.message();
  expectEqual(p, *q);
  // Every epilogue, and a bias without an addend.
  for (GemmEpilogue e :
       {GemmEpilogue::None, GemmEpilogue::Relu, GemmEpilogue::GeluTanh}) {
    p.steps[3].gemm.epilogue = e;
    p.steps[3].gemm.addend.reset();
    q = deserializePackage(serializePackage(p));
    ASSERT_TRUE(q.isOk()) << q.message();
    expectEqual(p, *q);
  }

  // A version-1 package: GEMM steps end after C.
  Package v1 = samplePackage();
  v1.steps = {v1.steps[1]};
  std::vector<uint8_t> bytes = serializePackage(v1);
  std::vector<uint8_t> payload(bytes.begin() + 32, bytes.end());
  std::vector<uint8_t> old =
      withPayload(olderKernels(olderReference(replaceSteps(
                      payload, gemmStepSection(v1.steps[0].gemm, 1, 0, 0, 0)))),
                  1);
  Result<Package> r = deserializePackage(old);
  ASSERT_TRUE(r.isOk()) << r.message();
  v1.steps[0].label = "gemm";
  v1.referenceBlobs.clear();
  expectEqual(asVersion(v1, 1), *r);
  EXPECT_FALSE(r->steps[0].gemm.hasEpilogue());
  // The same bytes as version 2 lack the epilogue.
  old[8] = 2;
  r = deserializePackage(old);
  ASSERT_FALSE(r.isOk());
  EXPECT_EQ(r.message(), "corrupt package: section 'STEP' ends early");
}

TEST(Package, Tf32FlagRoundTripsAndVersion2StillReads) {
  Package p = samplePackage();
  p.steps[1].gemm.tf32 = true;
  Result<Package> q = deserializePackage(serializePackage(p));
  ASSERT_TRUE(q.isOk()) << q.message();
  expectEqual(p, *q);
  EXPECT_TRUE(q->steps[1].gemm.tf32);

  // A version-2 package: GEMM steps end after the epilogue, full f32.
  Package v2 = samplePackage();
  v2.steps = {v2.steps[3]};
  std::vector<uint8_t> bytes = serializePackage(v2);
  std::vector<uint8_t> payload(bytes.begin() + 32, bytes.end());
  std::vector<uint8_t> old =
      withPayload(olderKernels(olderReference(replaceSteps(
                      payload, gemmStepSection(v2.steps[0].gemm, 2, 2, 1, 1)))),
                  2);
  Result<Package> r = deserializePackage(old);
  ASSERT_TRUE(r.isOk()) << r.message();
  v2.steps[0].label = "gemm";
  v2.referenceBlobs.clear();
  expectEqual(asVersion(v2, 2), *r);
  EXPECT_FALSE(r->steps[0].gemm.tf32);

  // In version 3 the flag is a bool.
  std::vector<uint8_t> bad = withPayload(replaceSteps(
      payload, gemmStepSection(v2.steps[0].gemm, 3, 2, 1, 1, /*tf32=*/2)));
  r = deserializePackage(bad);
  ASSERT_FALSE(r.isOk());
  EXPECT_EQ(r.message(),
            "corrupt package: section 'STEP' holds an invalid flag value 2");
}

TEST(Package, Version3ChecksumIsFnv1a) {
  std::vector<uint8_t> bytes = serializePackage(samplePackage());
  std::vector<uint8_t> payload(bytes.begin() + 32, bytes.end());
  // A version-3 package (FNV-1a checksum, the weights inside the reference
  // model, no blobs) still reads.
  Result<Package> r = deserializePackage(
      withPayload(olderKernels(olderReference(olderSteps(payload))), 3));
  ASSERT_TRUE(r.isOk()) << r.message();
  Package v3 = samplePackage();
  v3.referenceBlobs.clear();
  expectEqual(asVersion(v3, 3), *r);
  // A version-4 reference section read as version 3 has trailing bytes.
  r = deserializePackage(withPayload(olderKernels(olderSteps(payload)), 3));
  ASSERT_FALSE(r.isOk());
  EXPECT_EQ(r.message(),
            "corrupt package: section 'RFIR' has 67 unexpected trailing bytes");
  // Version 4 checks XXH64: the same bytes labelled 3 or 4 with the other
  // version's checksum are corrupt.
  std::vector<uint8_t> swapped = withPayload(payload, 3);
  swapped[8] = 4;
  r = deserializePackage(swapped);
  ASSERT_FALSE(r.isOk());
  EXPECT_EQ(r.message(), "checksum mismatch: the file is corrupt");
  swapped = bytes;
  swapped[8] = 3;
  r = deserializePackage(swapped);
  ASSERT_FALSE(r.isOk());
  EXPECT_EQ(r.message(), "checksum mismatch: the file is corrupt");
}

std::string invalid(const Package &p);

TEST(Package, SignaturesRoundTripAndVersion4StillReads) {
  Package p = samplePackage();
  std::vector<uint8_t> bytes = serializePackage(p);
  Result<Package> q = deserializePackage(bytes);
  ASSERT_TRUE(q.isOk()) << q.message();
  ASSERT_TRUE(q->kernels[0].signature.has_value());
  EXPECT_EQ(q->kernels[0].signature->block[1], 2u);
  EXPECT_EQ(q->kernels[0].signature->params.size(), 3u);
  EXPECT_TRUE(q->kernels[0].signature->params[2].writes);
  EXPECT_EQ(q->kernels[1].signature->grid[0], 65535u);
  EXPECT_EQ(q->formatVersion, kPackageVersion);

  // A version-4 package: kernels without signatures, still read, but not
  // run (nothing would bound what its kernels touch).
  std::vector<uint8_t> payload(bytes.begin() + 32, bytes.end());
  Result<Package> r =
      deserializePackage(withPayload(olderKernels(olderSteps(payload)), 4));
  ASSERT_TRUE(r.isOk()) << r.message();
  expectEqual(asVersion(p, 4), *r);
  EXPECT_FALSE(r->kernels[0].signature.has_value());
  EXPECT_THAT(validatePackage(*r).message(),
              HasSubstr("has no signature: packages of format 4 record none"));
  // Version 5's kernel section is corrupt as version 4's.
  r = deserializePackage(withPayload(payload, 4));
  ASSERT_FALSE(r.isOk());
  EXPECT_THAT(r.message(), HasSubstr("corrupt package: section 'KERN'"));
  // A signature's flag is a bool, and its count cannot exceed the section.
  size_t at = std::string::npos;
  {
    size_t pos = 0;
    while (pos + 16 <= payload.size()) {
      ByteReader h(payload.data() + pos, 16);
      uint32_t tag = 0, flags = 0;
      uint64_t len = 0;
      h.u32(tag);
      h.u32(flags);
      h.u64(len);
      if (tag == 0x4e52454b) // "KERN"
        at = pos;
      pos += 16 + len;
    }
  }
  ASSERT_NE(at, std::string::npos);
  // count (4), name "k0" (8 + 2), barriers (1), block and grid (24).
  const size_t paramCount = at + 16 + 4 + 10 + 1 + 24;
  std::vector<uint8_t> bad = payload;
  bad[paramCount + 3] = 0x7f;
  r = deserializePackage(withPayload(bad));
  ASSERT_FALSE(r.isOk());
  EXPECT_THAT(r.message(), HasSubstr("section 'KERN' holds a count larger"));
  bad = payload;
  bad[paramCount + 4 + 8] = 2; // the first parameter's writes flag
  r = deserializePackage(withPayload(bad));
  ASSERT_FALSE(r.isOk());
  EXPECT_EQ(r.message(),
            "corrupt package: section 'KERN' holds an invalid flag value 2");

  // A kernel made in memory without a signature is written with an empty
  // one, which its launches do not match.
  Package unsignedKernel = samplePackage();
  unsignedKernel.kernels[0].signature.reset();
  EXPECT_THAT(invalid(unsignedKernel),
              HasSubstr("kernel #0 (k0) has no signature"));
  r = deserializePackage(serializePackage(unsignedKernel));
  ASSERT_TRUE(r.isOk()) << r.message();
  EXPECT_THAT(invalid(*r), HasSubstr("step 0 (k0: add+exp) launches blocks "
                                     "of 128 x 2 x 1 threads but kernel #0 "
                                     "(k0) was compiled for 1 x 1 x 1"));
}

TEST(Package, RejectsReferenceBlobsOutsideTheConstants) {
  Package p = samplePackage();
  p.referenceBlobs[0].offset = 6; // 6 + 4 > 8 constant bytes
  Result<Package> r = deserializePackage(serializePackage(p));
  ASSERT_FALSE(r.isOk());
  EXPECT_EQ(r.message(), "corrupt package: reference blob 'w' refers to "
                         "bytes [6, 6 + 4) of 8 constant bytes");
  p.referenceBlobs[0].offset = ~uint64_t(0) - 1; // the sum wraps
  r = deserializePackage(serializePackage(p));
  ASSERT_FALSE(r.isOk());
  EXPECT_THAT(r.message(), HasSubstr("reference blob 'w' refers to bytes"));
  p = samplePackage();
  p.referenceBlobs[1].alignment = 3;
  r = deserializePackage(serializePackage(p));
  ASSERT_FALSE(r.isOk());
  EXPECT_EQ(r.message(), "corrupt package: section 'RFIR' holds a reference "
                         "blob with alignment 3");
  p.referenceBlobs[1].alignment = 0;
  r = deserializePackage(serializePackage(p));
  ASSERT_FALSE(r.isOk());
  EXPECT_THAT(r.message(), HasSubstr("with alignment 0"));
}

/// The offset of section `tag`'s header in `payload`, or npos.
size_t findSection(const std::vector<uint8_t> &payload, uint32_t tag) {
  size_t pos = 0;
  while (pos + 16 <= payload.size()) {
    ByteReader h(payload.data() + pos, 16);
    uint32_t t = 0, flags = 0;
    uint64_t len = 0;
    h.u32(t);
    h.u32(flags);
    h.u64(len);
    if (t == tag)
      return pos;
    pos += 16 + len;
  }
  return std::string::npos;
}

TEST(Package, KernelResourcesAreAnOptionalSection) {
  constexpr uint32_t kKres = 0x5345524b; // "KRES"
  // Without any report (packages of --no-cubin, or written before the
  // section existed) there is no section, and none is needed.
  Package plain = samplePackage();
  plain.cubins[1].resources.clear();
  std::vector<uint8_t> bytes = serializePackage(plain);
  std::vector<uint8_t> payload(bytes.begin() + 32, bytes.end());
  EXPECT_EQ(findSection(payload, kKres), std::string::npos);
  Result<Package> r = deserializePackage(bytes);
  ASSERT_TRUE(r.isOk()) << r.message();
  expectEqual(plain, *r);

  bytes = serializePackage(samplePackage());
  payload.assign(bytes.begin() + 32, bytes.end());
  size_t at = findSection(payload, kKres);
  ASSERT_NE(at, std::string::npos);
  // A well-formed report for another number of cubins: the section
  // replaced by one describing a single cubin without kernels.
  ByteReader h(payload.data() + at, 16);
  uint32_t tag = 0, flags = 0;
  uint64_t len = 0;
  ASSERT_TRUE(h.u32(tag) && h.u32(flags) && h.u64(len));
  std::vector<uint8_t> other(payload.begin(), payload.begin() + long(at));
  other.insert(other.end(), payload.begin() + long(at + 16 + len),
               payload.end());
  ByteWriter w(other);
  w.u32(kKres);
  w.u32(0);
  w.u64(8);
  w.u32(1);
  w.u32(0);
  r = deserializePackage(withPayload(other));
  ASSERT_FALSE(r.isOk());
  EXPECT_EQ(r.message(), "corrupt package: section 'KRES' describes 1 "
                         "cubins, the package has 2");
  // A count larger than the section can hold.
  other = payload;
  other[at + 16 + 4 + 3] = 0x7f; // first cubin's record count
  r = deserializePackage(withPayload(other));
  ASSERT_FALSE(r.isOk());
  EXPECT_THAT(r.message(), HasSubstr("section 'KRES'"));
}

TEST(Package, KernelFlopsAreAnOptionalSection) {
  constexpr uint32_t kKflp = 0x504c464b; // "KFLP"
  Package plain = samplePackage();
  plain.steps[0].kernel.flops = 0;
  std::vector<uint8_t> bytes = serializePackage(plain);
  std::vector<uint8_t> payload(bytes.begin() + 32, bytes.end());
  EXPECT_EQ(findSection(payload, kKflp), std::string::npos);

  bytes = serializePackage(samplePackage());
  payload.assign(bytes.begin() + 32, bytes.end());
  size_t at = findSection(payload, kKflp);
  ASSERT_NE(at, std::string::npos);
  // The record names step 0; point it at the GEMM (step 1), then past the
  // steps.
  for (uint8_t step : {1, 9}) {
    std::vector<uint8_t> other = payload;
    other[at + 16 + 4] = step;
    Result<Package> r = deserializePackage(withPayload(other));
    ASSERT_FALSE(r.isOk());
    EXPECT_EQ(r.message(), "corrupt package: section 'KFLP' gives FLOPs to "
                           "step " +
                               std::to_string(step) +
                               ", which is not a kernel");
  }
  // A negative count.
  std::vector<uint8_t> negative = payload;
  negative[at + 16 + 4 + 4 + 7] |= 0x80; // the f64's sign bit
  Result<Package> r = deserializePackage(withPayload(negative));
  ASSERT_FALSE(r.isOk());
  EXPECT_EQ(r.message(), "corrupt package: section 'KFLP' gives step 0 an "
                         "invalid FLOP count");
}

TEST(Package, KernelBytesAreAnOptionalSection) {
  constexpr uint32_t kKbyt = 0x5459424b; // "KBYT"
  Package plain = samplePackage();
  std::vector<uint8_t> bytes = serializePackage(plain);
  std::vector<uint8_t> payload(bytes.begin() + 32, bytes.end());
  EXPECT_EQ(findSection(payload, kKbyt), std::string::npos);
  uint64_t whole = stepBytes(plain.steps[0]);
  ASSERT_GT(whole, 8u);

  // A kernel that moves less than its buffers: kept, and what stepBytes
  // counts.
  Package partial = samplePackage();
  partial.steps[0].kernel.bytes = 8;
  bytes = serializePackage(partial);
  Result<Package> back = deserializePackage(bytes);
  ASSERT_TRUE(back.isOk()) << back.message();
  EXPECT_EQ(back->steps[0].kernel.bytes, 8u);
  EXPECT_EQ(stepBytes(back->steps[0]), 8u);

  payload.assign(bytes.begin() + 32, bytes.end());
  size_t at = findSection(payload, kKbyt);
  ASSERT_NE(at, std::string::npos);
  // The record names step 0; point it at the GEMM (step 1), then past the
  // steps.
  for (uint8_t step : {1, 9}) {
    std::vector<uint8_t> other = payload;
    other[at + 16 + 4] = step;
    Result<Package> r = deserializePackage(withPayload(other));
    ASSERT_FALSE(r.isOk());
    EXPECT_EQ(r.message(), "corrupt package: section 'KBYT' gives bytes to "
                           "step " +
                               std::to_string(step) +
                               ", which is not a kernel");
  }
  // More than the kernel's buffers hold.
  std::vector<uint8_t> more = payload;
  more[at + 16 + 4 + 4 + 7] = 0x01; // the u64's top byte
  Result<Package> r = deserializePackage(withPayload(more));
  ASSERT_FALSE(r.isOk());
  EXPECT_THAT(r.message(),
              HasSubstr("corrupt package: section 'KBYT' gives step 0 "));
  EXPECT_THAT(r.message(), HasSubstr("more than its buffers hold (" +
                                     std::to_string(whole) + ")"));
}

TEST(Package, TrainingStateRoundTripsAndIsChecked) {
  Package p = samplePackage();
  p.outputs.push_back({DType::F32, {4, 8}});
  if (!p.outputNames.empty())
    p.outputNames.push_back("w");
  // Output 0 is the loss.
  p.outputs[0] = {DType::F32, {}};
  p.constants.resize(256, 0x3c);
  p.state = {{"w", true, 0, 2, 128, 128}};
  Result<Package> back = deserializePackage(serializePackage(p));
  ASSERT_TRUE(back.isOk()) << back.message();
  ASSERT_EQ(back->state.size(), 1u);
  const StateTensor &t = back->state[0];
  EXPECT_EQ(t.name, "w");
  EXPECT_TRUE(t.trainable);
  EXPECT_EQ(t.input, 0u);
  EXPECT_EQ(t.output, 2u);
  EXPECT_EQ(t.initialOffset, 128u);
  EXPECT_EQ(t.initialBytes, 128u);
  EXPECT_EQ(back->microBatches, 1u);
  // A buffer (kind 2) reads back as one.
  {
    Package q = p;
    q.state[0].trainable = false;
    q.state[0].buffer = true;
    Result<Package> b = deserializePackage(serializePackage(q));
    ASSERT_TRUE(b.isOk()) << b.message();
    EXPECT_FALSE(b->state[0].trainable);
    EXPECT_TRUE(b->state[0].buffer);
  }
  p.microBatches = 4;
  back = deserializePackage(serializePackage(p));
  ASSERT_TRUE(back.isOk()) << back.message();
  EXPECT_EQ(back->microBatches, 4u);
  p.microBatches = 1;
  p.outputs.push_back({DType::F32, {}});
  if (!p.outputNames.empty())
    p.outputNames.push_back("skipped");
  p.skippedOutput = 3;
  back = deserializePackage(serializePackage(p));
  ASSERT_TRUE(back.isOk()) << back.message();
  EXPECT_EQ(back->skippedOutput, 3u);
  EXPECT_EQ(back->microBatches, 1u);

  struct Case {
    const char *what;
    std::function<void(Package &)> change;
    const char *message;
  };
  const Case cases[] = {
      {"the loss", [](Package &q) { q.state[0].output = 0; },
       "training state 'w' is written to output 0, the step's loss"},
      {"past the inputs", [](Package &q) { q.state[0].input = 7; },
       "training state 'w' names input 7 and output 2, beyond the "
       "package's 2 inputs and 4 outputs"},
      {"another type", [](Package &q) { q.state[0].input = 1; },
       "training state 'w' has an input and an output of different types"},
      {"short initial value", [](Package &q) { q.state[0].initialBytes = 64; },
       "training state 'w''s initial value is not 128 bytes within the "
       "constants"},
      {"past the constants",
       [](Package &q) { q.state[0].initialOffset = ~uint64_t(0) - 8; },
       "training state 'w''s initial value is not 128 bytes within the "
       "constants"},
      {"twice",
       [](Package &q) {
         q.state.push_back(q.state[0]);
         q.state[1].name = "v";
       },
       "training state 'v' shares its input or output with another state "
       "tensor"},
      {"unnamed", [](Package &q) { q.state[0].name.clear(); },
       "training state names must be distinct, non-empty and short"},
      {"no micro-batches", [](Package &q) { q.microBatches = 0; },
       "a training step takes 1 to 65536 micro-batches (an inference package "
       "1), not 0"},
      {"too many micro-batches", [](Package &q) { q.microBatches = 65537; },
       "a training step takes 1 to 65536 micro-batches (an inference package "
       "1), not 65537"},
      {"micro-batches without state",
       [](Package &q) {
         q.state.clear();
         q.microBatches = 2;
       },
       "a training step takes 1 to 65536 micro-batches (an inference package "
       "1), not 2"},
      {"skipped beyond the outputs", [](Package &q) { q.skippedOutput = 4; },
       "the skipped-update output of a training step must be one of its f32 "
       "scalar outputs after the loss"},
      {"skipped not a scalar", [](Package &q) { q.skippedOutput = 1; },
       "the skipped-update output of a training step must be one of its f32 "
       "scalar outputs after the loss"},
      {"skipped is state",
       [](Package &q) {
         q.outputs[2] = {DType::F32, {}};
         q.inputs[0] = {DType::F32, {}};
         q.state[0].initialBytes = 4;
         q.skippedOutput = 2;
       },
       "the skipped-update output of a training step is training state 'w's "
       "output"},
      {"no loss",
       [](Package &q) {
         q.outputs[0] = {DType::F32, {2}};
       },
       "a training step's first output, its loss, must be one f32 value"},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.what);
    Package q = p;
    c.change(q);
    Result<Package> r = deserializePackage(serializePackage(q));
    ASSERT_FALSE(r.isOk());
    EXPECT_EQ(r.message(), std::string("corrupt package: ") + c.message);
    EXPECT_EQ(validatePackage(q).message(), c.message);
  }
}

/// The bytes of `path`, or nothing.
std::vector<uint8_t> fileBytes(const std::string &path) {
  Result<std::vector<uint8_t>> r = readRegularFile(path);
  return r.isOk() ? *r : std::vector<uint8_t>();
}

TEST(Support, CopyFileAtomicCopiesWholeFilesOnly) {
  dlc::rt::test::TempDir dir("dlc-copy-test");
  std::vector<uint8_t> bytes(3 << 20);
  for (size_t i = 0; i < bytes.size(); ++i)
    bytes[i] = uint8_t(i * 2654435761u >> 13);
  const std::string from = dir.file("from.dlcpkg"), to = dir.file("to.dlcpkg");
  ASSERT_TRUE(writeFileAtomic(from, bytes.data(), bytes.size()).isOk());
  // Over an existing file, which it replaces whole.
  ASSERT_TRUE(writeFileAtomic(to, "old", 3).isOk());
  Status st = copyPackageFile(from, to, bytes.size());
  ASSERT_TRUE(st.isOk()) << st.message();
  EXPECT_EQ(fileBytes(to), bytes);
  // To another file system (tmpfs): copy_file_range refuses (EXDEV) and the
  // copy goes by hand.
  if (fileExists("/dev/shm")) {
    const std::string shm =
        "/dev/shm/dlc-copy-test-" + std::to_string(::getpid()) + ".dlcpkg";
    st = copyPackageFile(from, shm, bytes.size());
    ASSERT_TRUE(st.isOk()) << st.message();
    EXPECT_EQ(fileBytes(shm), bytes);
    ::unlink(shm.c_str());
  }
  // A source of another size, or none: an error, and nothing left behind.
  st = copyPackageFile(from, dir.file("x.dlcpkg"), bytes.size() + 1);
  ASSERT_FALSE(st.isOk());
  EXPECT_THAT(st.message(), HasSubstr("not the expected"));
  st = copyPackageFile(dir.file("missing"), dir.file("x.dlcpkg"), 1);
  ASSERT_FALSE(st.isOk());
  EXPECT_THAT(st.message(), HasSubstr("cannot open"));
  EXPECT_EQ(dlc::rt::test::TempDir::list(dir.path()).size(), 2u);
}

TEST(Support, ParseByteSize) {
  for (auto [text, want] : std::vector<std::pair<std::string, uint64_t>>{
           {"1", 1},
           {"4096", 4096},
           {"512B", 512},
           {"64K", 64ull << 10},
           {"64KiB", 64ull << 10},
           {"3M", 3ull << 20},
           {"3MiB", 3ull << 20},
           {"8G", 8ull << 30},
           {"8GiB", 8ull << 30},
           {"2T", 2ull << 40},
           {"16777215TiB", 16777215ull << 40},
           {"18446744073709551615", ~0ull}}) {
    Result<uint64_t> r = parseByteSize(text);
    ASSERT_TRUE(r.isOk()) << text << ": " << r.message();
    EXPECT_EQ(*r, want) << text;
  }
  auto error = [](const std::string &text) {
    Result<uint64_t> r = parseByteSize(text);
    EXPECT_FALSE(r.isOk()) << text;
    return r.isOk() ? "" : r.message();
  };
  EXPECT_EQ(error(""), "'' is not a byte count (digits, then optionally K, M, "
                       "G, T or KiB, MiB, GiB, TiB)");
  EXPECT_EQ(error("-1G"), "'-1G' is not a byte count (digits, then optionally "
                          "K, M, G, T or KiB, MiB, GiB, TiB)");
  for (const char *garbage : {"+5", "abc", "G", " 5", "0x10", "1.5G"})
    EXPECT_FALSE(parseByteSize(garbage).isOk()) << garbage;
  EXPECT_EQ(error("5 G"), "'5 G' has an unknown unit ' G' (K, M, G, T or KiB, "
                          "MiB, GiB, TiB)");
  EXPECT_EQ(error("5GB"), "'5GB' has an unknown unit 'GB' (K, M, G, T or "
                          "KiB, MiB, GiB, TiB)");
  EXPECT_EQ(error("0"), "'0' is no memory at all (give a positive size)");
  EXPECT_EQ(error("0G"), "'0G' is no memory at all (give a positive size)");
  EXPECT_EQ(error("18446744073709551616"),
            "'18446744073709551616' is 2^64 bytes or more");
  EXPECT_EQ(error("16777216T"), "'16777216T' is 2^64 bytes or more");
  EXPECT_EQ(error("99999999999999999999999K"),
            "'99999999999999999999999K' is 2^64 bytes or more");
}

TEST(Support, CheckedArithmetic) {
  EXPECT_EQ(checkedAdd(~0ull, 1), std::nullopt);
  EXPECT_EQ(checkedAdd(~0ull - 1, 1), ~0ull);
  EXPECT_EQ(checkedMul(1ull << 32, 1ull << 32), std::nullopt);
  EXPECT_EQ(checkedMul(1ull << 31, 1ull << 32), 1ull << 63);
  EXPECT_EQ(checkedAlignUp(~0ull - 254, 256), std::nullopt);
  EXPECT_EQ(checkedAlignUp(~0ull - 255, 256), ~0ull - 255);
  EXPECT_EQ(checkedAlignUp(257, 256), 512u);
  EXPECT_EQ(checkedAlignUp(0, 256), 0u);
  // An expression is checked once at its end.
  Checked last = Checked(1ull << 20) * ((1ull << 40) - 1) + 7;
  EXPECT_TRUE(last.ok());
  EXPECT_FALSE((last * 4 * 8).ok());
  EXPECT_FALSE((Checked::fromSigned(-1) + 1).ok());
  EXPECT_FALSE((Checked::overflowed() * 0).ok());
  EXPECT_EQ(checkedProduct({1 << 20, 1 << 20, 1 << 20}).value(),
            std::optional<uint64_t>(1ull << 60));
  EXPECT_FALSE(checkedProduct({1 << 30, 1 << 30, 1 << 30}).ok());
  EXPECT_FALSE(checkedProduct({4, -1}).ok());
  // A zero dimension makes the product 0, whatever the others.
  EXPECT_EQ(checkedProduct({int64_t(1) << 62, int64_t(1) << 62, 0}).value(),
            std::optional<uint64_t>(0));
  // Descriptions: saturated, never wrapped.
  TensorDesc d{DType::I64, {int64_t(1) << 61, 1}};
  EXPECT_FALSE(d.checkedByteSize().ok());
  EXPECT_EQ(d.byteSize(), ~0ull);
  EXPECT_EQ(d.numElements(), int64_t(1) << 61);
}

TEST(Support, Xxh64MatchesTheReferenceImplementation) {
  // Values of the reference xxHash (python3-xxhash 3.2.0): the empty input,
  // the tail paths (1, 3, 31 bytes), whole and partial 32-byte stripes.
  auto seq = [](size_t n) {
    std::vector<uint8_t> v(n);
    for (size_t i = 0; i < n; ++i)
      v[i] = uint8_t(i);
    return v;
  };
  EXPECT_EQ(xxh64("", 0), 0xef46db3751d8e999ull);
  EXPECT_EQ(xxh64("a", 1), 0xd24ec4f1a98c6e5bull);
  EXPECT_EQ(xxh64("abc", 3), 0x44bc2cf5ad770999ull);
  EXPECT_EQ(xxh64("abc", 3, 1), 0xbea9ca8199328908ull);
  EXPECT_EQ(xxh64("dlc package checksum", 20), 0x3fb5562c2f89b873ull);
  std::vector<uint8_t> v = seq(31);
  EXPECT_EQ(xxh64(v.data(), v.size()), 0xc346d2b59b4d8ee1ull);
  v = seq(45);
  EXPECT_EQ(xxh64(v.data(), v.size()), 0x10fdd84d6409abdfull);
  v = seq(100);
  EXPECT_EQ(xxh64(v.data(), v.size()), 0x6ac1e58032166597ull);
  v = seq(768);
  EXPECT_EQ(xxh64(v.data(), v.size()), 0x8e03c838c596036full);
}

TEST(Package, Fp8GemmStepsRoundTripAndAreValidated) {
  Package p = samplePackage();
  size_t gemm = 0;
  while (p.steps[gemm].kind != Step::Kind::Gemm)
    ++gemm;
  GemmStep &g = p.steps[gemm].gemm;
  g.dtype = DType::F8E4M3;
  g.cType = DType::BF16;
  g.scaleA = 0.00223;
  g.scaleB = 2.5e-4;
  ASSERT_TRUE(validatePackage(p).isOk()) << validatePackage(p).message();
  Result<Package> r = deserializePackage(serializePackage(p));
  ASSERT_TRUE(r.isOk()) << r.message();
  const GemmStep &back = r->steps[gemm].gemm;
  EXPECT_TRUE(back.isFp8());
  EXPECT_EQ(back.outType(), DType::BF16);
  EXPECT_EQ(back.scaleA, 0.00223);
  EXPECT_EQ(back.scaleB, 2.5e-4);
  EXPECT_TRUE(back.usesLt());

  // A version-5 package's GEMM steps have no FP8 fields: C is of dtype.
  Package f32 = samplePackage();
  std::vector<uint8_t> bytes = serializePackage(f32);
  std::vector<uint8_t> payload(bytes.begin() + 32, bytes.end());
  r = deserializePackage(withPayload(olderSteps(payload), 5));
  ASSERT_TRUE(r.isOk()) << r.message();
  EXPECT_EQ(r->steps[gemm].gemm.outType(), DType::F32);
  EXPECT_EQ(r->steps[gemm].gemm.scaleA, 1.0);

  Package bad = p;
  bad.steps[gemm].gemm.scaleB = 0;
  EXPECT_THAT(validatePackage(bad).message(),
              HasSubstr("is not a positive finite number"));
  bad = p;
  bad.steps[gemm].gemm.cType = DType::I32;
  EXPECT_THAT(validatePackage(bad).message(),
              HasSubstr("an FP8 GEMM's result is bf16 or f16, not i32"));
  bad = f32;
  bad.steps[gemm].gemm.scaleA = 2;
  EXPECT_THAT(validatePackage(bad).message(),
              HasSubstr("on a GEMM that is not FP8"));
}

TEST(Package, RejectsCorruptEpilogues) {
  Package p = samplePackage();
  // The steps are replaced by one GEMM: no kernel step keeps FLOPs.
  p.steps[0].kernel.flops = 0;
  std::vector<uint8_t> bytes = serializePackage(p);
  std::vector<uint8_t> payload(bytes.begin() + 32, bytes.end());
  const GemmStep &g = p.steps[3].gemm;
  auto read = [&](uint8_t epilogue, uint8_t bias, uint8_t addend) {
    return deserializePackage(withPayload(replaceSteps(
        payload, gemmStepSection(g, kPackageVersion, epilogue, bias, addend))));
  };
  Result<Package> ok = read(2, 1, 1);
  ASSERT_TRUE(ok.isOk()) << ok.message();
  EXPECT_EQ(ok->steps[0].gemm.epilogue, GemmEpilogue::GeluTanh);
  Result<Package> r = read(3, 1, 1);
  ASSERT_FALSE(r.isOk());
  EXPECT_EQ(r.message(),
            "corrupt package: section 'STEP' holds an invalid GEMM epilogue 3");
  r = read(0, 2, 0);
  ASSERT_FALSE(r.isOk());
  EXPECT_EQ(r.message(),
            "corrupt package: section 'STEP' holds an invalid flag value 2");
  r = read(0, 0, 7);
  ASSERT_FALSE(r.isOk());
  EXPECT_EQ(r.message(),
            "corrupt package: section 'STEP' holds an invalid flag value 7");
}

TEST(Package, RejectsInvalidSectionContents) {
  std::vector<uint8_t> bytes = serializePackage(samplePackage());
  std::vector<uint8_t> payload(bytes.begin() + 32, bytes.end());

  // Unknown sections are skipped.
  std::vector<uint8_t> extra = payload;
  ByteWriter w(extra);
  w.u32(0x5a5a5a5a);
  w.u32(0);
  w.u64(3);
  w.bytes("abc", 3);
  Result<Package> ok = deserializePackage(withPayload(extra));
  ASSERT_TRUE(ok.isOk()) << ok.message();
  expectEqual(samplePackage(), *ok);

  // A section header that runs past the end.
  std::vector<uint8_t> overrun = payload;
  ByteWriter o(overrun);
  o.u32(0x5a5a5a5a);
  o.u32(0);
  o.u64(1000);
  Result<Package> r = deserializePackage(withPayload(overrun));
  ASSERT_FALSE(r.isOk());
  EXPECT_THAT(r.message(), HasSubstr("runs past the end"));

  // A duplicated section.
  std::vector<uint8_t> twice = payload;
  twice.insert(twice.end(), payload.begin(), payload.end());
  r = deserializePackage(withPayload(twice));
  ASSERT_FALSE(r.isOk());
  EXPECT_THAT(r.message(), HasSubstr("appears twice"));

  // A missing section: drop the first one (META).
  ByteReader rd(payload.data(), payload.size());
  uint32_t tag, flags;
  uint64_t len;
  ASSERT_TRUE(rd.u32(tag) && rd.u32(flags) && rd.u64(len));
  std::vector<uint8_t> noMeta(payload.begin() + 16 + long(len), payload.end());
  r = deserializePackage(withPayload(noMeta));
  ASSERT_FALSE(r.isOk());
  EXPECT_THAT(r.message(), HasSubstr("section 'META' is missing"));

  // An invalid enum: find the STEP section and corrupt the first step kind.
  std::vector<uint8_t> badKind = payload;
  size_t pos = 0;
  while (pos + 16 <= badKind.size()) {
    ByteReader h(badKind.data() + pos, 16);
    h.u32(tag);
    h.u32(flags);
    h.u64(len);
    if (tag == 0x50455453) {     // "STEP"
      badKind[pos + 16 + 4] = 9; // after the u32 count
      break;
    }
    pos += 16 + len;
  }
  r = deserializePackage(withPayload(badKind));
  ASSERT_FALSE(r.isOk());
  EXPECT_THAT(r.message(), HasSubstr("invalid step kind 9"));

  // A count larger than the section.
  std::vector<uint8_t> badCount = payload;
  pos = 0;
  while (pos + 16 <= badCount.size()) {
    ByteReader h(badCount.data() + pos, 16);
    h.u32(tag);
    h.u32(flags);
    h.u64(len);
    if (tag == 0x54504e49) { // "INPT"
      badCount[pos + 16 + 3] = 0x7f;
      break;
    }
    pos += 16 + len;
  }
  r = deserializePackage(withPayload(badCount));
  ASSERT_FALSE(r.isOk());
  EXPECT_THAT(r.message(), HasSubstr("section 'INPT' holds a count larger"));
}

//===----------------------------------------------------------------------===//
// validatePackage
//===----------------------------------------------------------------------===//

std::string invalid(const Package &p) {
  Status st = validatePackage(p);
  EXPECT_FALSE(st.isOk());
  return st.isOk() ? "" : st.message();
}

TEST(ValidatePackage, BufferReferencesMustLieInsideTheirBuffers) {
  Package p = samplePackage();
  p.steps[0].kernel.args[2] = ref(BufferRef::Kind::Arena, 0, 1024, 8);
  EXPECT_EQ(invalid(p), "step 0 (k0: add+exp): argument 2 refers to arena "
                        "bytes [1024, 1032) but arena has 1024 bytes");

  p = samplePackage();
  p.steps[0].kernel.args[0] = ref(BufferRef::Kind::Input, 0, 64, 72);
  EXPECT_THAT(invalid(p), HasSubstr("refers to input #0 bytes [64, 136) but "
                                    "input #0 has 128 bytes"));

  p = samplePackage();
  p.steps[0].kernel.args[0] = ref(BufferRef::Kind::Input, 2, 0, 4);
  EXPECT_THAT(invalid(p), HasSubstr("refers to input #2 but there are 2"));

  p = samplePackage();
  p.steps[2].copy.dst = ref(BufferRef::Kind::Output, 1, 0, 2);
  EXPECT_THAT(invalid(p), HasSubstr("output #1 has 1 bytes"));

  p = samplePackage();
  p.steps[0].kernel.args[1] = ref(BufferRef::Kind::Constant, 0, 6, 4);
  EXPECT_THAT(invalid(p), HasSubstr("constants has 8 bytes"));

  p = samplePackage();
  // Offsets near 2^64 must not wrap around.
  p.steps[0].kernel.args[2] = ref(BufferRef::Kind::Arena, 0, 16, ~uint64_t(0));
  EXPECT_THAT(invalid(p), HasSubstr("arena has 1024 bytes"));
}

TEST(ValidatePackage, KernelsAndLaunches) {
  Package p = samplePackage();
  p.steps[0].kernel.kernel = 5;
  EXPECT_THAT(invalid(p), HasSubstr("launches kernel #5 but there are 2"));

  p = samplePackage();
  p.steps[0].kernel.args.assign(513, ref(BufferRef::Kind::Arena, 0, 0, 4));
  EXPECT_THAT(invalid(p), HasSubstr("passes 513 arguments; at most 512"));

  p = samplePackage();
  p.steps[0].kernel.block[0] = 1024;
  EXPECT_THAT(invalid(p), HasSubstr("2048 threads per block"));

  p = samplePackage();
  p.steps[0].kernel.grid[1] = 0;
  EXPECT_THAT(invalid(p), HasSubstr("grid dimension 1 = 0"));

  p = samplePackage();
  p.kernels[1].name = "k0";
  EXPECT_THAT(invalid(p), HasSubstr("kernel name 'k0' appears twice"));

  p = samplePackage();
  p.kernels[1].name = "1k";
  EXPECT_THAT(invalid(p), HasSubstr("not a C identifier"));

  p = samplePackage();
  p.cubins[0].arch = "compute_80";
  EXPECT_THAT(invalid(p), HasSubstr("not of the form sm_XX"));

  p = samplePackage();
  p.cudaSource.clear();
  EXPECT_THAT(invalid(p), HasSubstr("no CUDA source"));

  p = samplePackage();
  p.inputs[0].shape = {4, -8};
  EXPECT_THAT(invalid(p), HasSubstr("input #0 has a negative dimension"));
}

TEST(ValidatePackage, GemmOperandsAndCopies) {
  Package p = samplePackage();
  p.steps[1].gemm.m = 5; // A and C now need 5 rows of 8
  EXPECT_THAT(invalid(p), HasSubstr("operand A needs 160 bytes but its buffer "
                                    "reference covers 128"));

  p = samplePackage();
  p.steps[1].gemm.ldb = 4;
  EXPECT_THAT(invalid(p), HasSubstr("operand B has leading dimension 4"));

  p = samplePackage();
  p.steps[1].gemm.batch = 2;
  p.steps[1].gemm.strideA = 0;
  p.steps[1].gemm.strideB = 0;
  p.steps[1].gemm.strideC = 0;
  EXPECT_THAT(invalid(p), HasSubstr("output batch stride 0"));

  p = samplePackage();
  p.steps[1].gemm.batch = 2;
  p.steps[1].gemm.strideC = 32; // the second C lies past the output
  EXPECT_THAT(invalid(p), HasSubstr("operand C needs 256 bytes"));

  p = samplePackage();
  p.steps[1].gemm.dtype = DType::I32;
  EXPECT_THAT(invalid(p), HasSubstr("GEMM on i32 is not supported"));

  p = samplePackage();
  p.steps[1].gemm.c = ref(BufferRef::Kind::Constant, 0, 0, 8);
  EXPECT_THAT(invalid(p), HasSubstr("writes to constants memory"));

  p = samplePackage();
  p.steps[2].copy.dst = ref(BufferRef::Kind::Input, 0, 0, 1);
  EXPECT_THAT(invalid(p), HasSubstr("destination writes to input memory"));

  p = samplePackage();
  p.steps[2].copy.src.bytes = 2;
  p.steps[2].copy.dst = ref(BufferRef::Kind::Arena, 0, 0, 1);
  EXPECT_THAT(invalid(p), HasSubstr("copies 2 bytes into a destination of 1"));
}

TEST(ValidatePackage, GemmEpilogues) {
  Package p = samplePackage();
  p.steps[3].gemm.bias->bytes = 16; // 8 floats needed
  EXPECT_EQ(invalid(p), "step 3 (gemm bias+addend+gelu_tanh): operand bias "
                        "needs 32 bytes but its buffer reference covers 16");

  p = samplePackage();
  p.steps[3].gemm.bias = ref(BufferRef::Kind::Arena, 0, 1000, 32);
  EXPECT_THAT(invalid(p), HasSubstr("bias refers to arena bytes [1000, 1032) "
                                    "but arena has 1024 bytes"));

  p = samplePackage();
  p.steps[3].gemm.addend = ref(BufferRef::Kind::Input, 1, 0, 16);
  EXPECT_THAT(invalid(p), HasSubstr("operand addend needs 128 bytes"));

  p = samplePackage();
  p.steps[3].gemm.batch = 2;
  p.steps[3].gemm.strideC = 0;
  EXPECT_THAT(invalid(p), HasSubstr("output batch stride 0"));

  p = samplePackage();
  p.steps[3].gemm.epilogue = GemmEpilogue(5);
  EXPECT_THAT(invalid(p), HasSubstr("GEMM epilogue 5 is not one of none, "
                                    "relu and gelu_tanh"));
}

TEST(ValidatePackage, EpilogueKernels) {
  Package p = samplePackage();
  ASSERT_TRUE(p.steps[3].gemm.hasEpilogue());
  ASSERT_FALSE(p.kernels.empty());
  p.steps[3].gemm.epilogueKernel = 1;
  EXPECT_TRUE(validatePackage(p).isOk()) << validatePackage(p).message();
  Result<Package> q = deserializePackage(serializePackage(p));
  ASSERT_TRUE(q.isOk()) << q.message();
  expectEqual(p, *q);

  p.steps[3].gemm.epilogueKernel = int32_t(p.kernels.size());
  EXPECT_THAT(invalid(p),
              HasSubstr("epilogue kernel " + std::to_string(p.kernels.size()) +
                        " is not a kernel of the package"));
  p.steps[3].gemm.epilogueKernel = -2;
  EXPECT_THAT(invalid(p), HasSubstr("epilogue kernel -2 is not a kernel"));

  p = samplePackage();
  ASSERT_FALSE(p.steps[1].gemm.hasEpilogue());
  p.steps[1].gemm.epilogueKernel = 0;
  EXPECT_THAT(invalid(p),
              HasSubstr("epilogue kernel 0 on a GEMM without an epilogue"));

  p = samplePackage();
  p.steps[3].gemm.epilogueKernel = 1;
  p.steps[3].gemm.ldc += 1;
  EXPECT_THAT(invalid(p), HasSubstr("an epilogue kernel needs a contiguous "
                                    "result"));

  // Sizes whose product overflows 64 bits are refused, without overflowing
  // a signed product on the way (UBSan; found by fuzz-package).
  p = samplePackage();
  GemmStep &g = p.steps[3].gemm;
  g.epilogueKernel = 0;
  g.batch = 2;
  g.m = int64_t(3530822107858468868);
  g.n = 3;
  g.ldc = g.n;
  g.strideC = int64_t(uint64_t(g.m) * uint64_t(g.n));
  EXPECT_THAT(invalid(p), HasSubstr("must lie in [0, 2^31)"));
}

TEST(ValidatePackage, Tf32OnlyForF32Gemms) {
  Package p = samplePackage();
  p.steps[1].gemm.tf32 = true;
  ASSERT_EQ(p.steps[1].gemm.dtype, DType::F32);
  EXPECT_TRUE(validatePackage(p).isOk());
  for (DType t : {DType::F16, DType::BF16}) {
    p.steps[1].gemm.dtype = t;
    EXPECT_THAT(invalid(p), HasSubstr(std::string("TF32 is for f32 GEMMs, "
                                                  "not ") +
                                      dtypeName(t)));
  }
}

TEST(DefaultTolerance, Tf32LoosensF32OutputsOnly) {
  Package p = samplePackage();
  EXPECT_EQ(defaultTolerance(p, DType::F32), defaultTolerance(DType::F32));
  p.steps[1].gemm.tf32 = true;
  EXPECT_EQ(defaultTolerance(p, DType::F32), kTf32Tolerance);
  EXPECT_EQ(defaultTolerance(p, DType::BF16), defaultTolerance(DType::BF16));
}

} // namespace

TEST(Package, StatsRoundTripAndAreChecked) {
  Package p = samplePackage();
  EXPECT_FALSE(deserializePackage(serializePackage(p))->stats.has_value());
  PackageStats s;
  s.kernels = 3;
  s.gemms = 2;
  s.bytesMoved = uint64_t(1) << 40;
  s.flops = 1.5e12;
  s.castKernels = 1;
  p.stats = s;
  Result<Package> r = deserializePackage(serializePackage(p));
  ASSERT_TRUE(r.isOk()) << r.message();
  ASSERT_TRUE(r->stats.has_value());
  EXPECT_EQ(r->stats->kernels, 3u);
  EXPECT_EQ(r->stats->gemms, 2u);
  EXPECT_EQ(r->stats->bytesMoved, uint64_t(1) << 40);
  EXPECT_EQ(r->stats->flops, 1.5e12);
  EXPECT_EQ(r->stats->castKernels, 1u);
  EXPECT_EQ(r->stats->attention, 0u);

  // The package with `body` as its STAT section.
  std::vector<uint8_t> bytes = serializePackage(p);
  std::vector<uint8_t> payload(bytes.begin() + 32, bytes.end());
  auto withStatSection = [&](const std::vector<uint8_t> &body) {
    return deserializePackage(withPayload(
        mapSections(payload,
                    [&](uint32_t tag, const uint8_t *,
                        uint64_t) -> std::optional<std::vector<uint8_t>> {
                      if (tag != 0x54415453) // "STAT"
                        return std::nullopt;
                      return sectionOf(tag, body);
                    })));
  };
  // A STAT section of the given name and value pairs.
  auto withStats =
      [&](const std::vector<std::pair<std::string, double>> &pairs) {
        std::vector<uint8_t> body;
        ByteWriter w(body);
        w.u32(uint32_t(pairs.size()));
        for (const auto &[name, value] : pairs) {
          w.string(name);
          w.f64(value);
        }
        return withStatSection(body);
      };
  // A figure this reader does not know is skipped.
  r = withStats({{"kernels", 7}, {"a_later_figure", 2.5}});
  ASSERT_TRUE(r.isOk()) << r.message();
  EXPECT_EQ(r->stats->kernels, 7u);
  EXPECT_EQ(r->stats->gemms, 0u);
  EXPECT_THAT(withStats({{"kernels", -1}}).message(),
              HasSubstr("section 'STAT' gives 'kernels' an invalid value"));
  EXPECT_THAT(withStats({{"flops", std::nan("")}}).message(),
              HasSubstr("an invalid value"));
  EXPECT_THAT(withStats({{"gemms", 2.5}}).message(),
              HasSubstr("gives 'gemms' a value that is not a count"));
  EXPECT_THAT(withStats({{"launches", 1e17}}).message(),
              HasSubstr("not a count"));
  // A count beyond the section's bytes.
  std::vector<uint8_t> body;
  ByteWriter w(body);
  w.u32(1000);
  Result<Package> huge = withStatSection(body);
  EXPECT_FALSE(huge.isOk());
}
