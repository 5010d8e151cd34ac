//===- HostileMutants.h - Packages edited by an attacker ----------*- C++
//-*-===//
//
// A package is untrusted input: an attacker may edit any field and
// recompute the checksum. hostileMutants(base) takes a valid package and
// makes many edited copies of it, class by class (argument counts, buffer
// references moved or resized to the edge of their buffers or near 2^64,
// grids and blocks at and past every limit, GEMM sizes and strides whose
// products overflow, arena and tensor sizes far beyond any memory, kernel
// signatures that disagree with their launches), each with what must
// happen to it: validatePackage refuses it naming the step or field, or
// the session refuses it because it does not fit the device (before
// allocating), or either validation refuses it or it runs without
// crashing. HostilePackageTest.cpp (hand-written packages) and the API
// tests (a compiled one) run them.
//
//===----------------------------------------------------------------------===//
#ifndef DLC_TEST_RUNTIME_HOSTILEMUTANTS_H
#define DLC_TEST_RUNTIME_HOSTILEMUTANTS_H

#include "runtime/Package.h"
#include "runtime/Runtime.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <functional>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

namespace dlc::rt::test {

/// What must happen to a mutant.
enum class Expect {
  /// validatePackage refuses it, naming `Mutant::error`.
  Refused,
  /// validatePackage accepts it (a larger buffer than any step uses is
  /// consistent), and creating a session refuses it: it needs more memory
  /// than any device has, checked before anything is allocated.
  TooLarge,
  /// Refused by validatePackage (naming a step, input, output or kernel),
  /// or it runs on sim without crashing (any result, any error).
  RefusedOrRuns,
};

struct Mutant {
  /// What was edited ("step 0 argument 1: offset 2^64 - 1").
  std::string name;
  Package package;
  Expect expect = Expect::Refused;
  /// For Refused: a part of the error (the step or field it names, and
  /// what is wrong).
  std::string error;
};

namespace detail {

constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();

inline std::string stepPrefix(size_t i) { return "step " + std::to_string(i); }

/// The bytes of the buffer `ref` names (0 when it names none).
inline uint64_t bufferBytes(const Package &p, const BufferRef &ref) {
  switch (ref.kind) {
  case BufferRef::Kind::Input:
    return ref.index < p.inputs.size() ? p.inputs[ref.index].byteSize() : 0;
  case BufferRef::Kind::Output:
    return ref.index < p.outputs.size() ? p.outputs[ref.index].byteSize() : 0;
  case BufferRef::Kind::Arena:
    return p.arenaBytes;
  case BufferRef::Kind::Constant:
    return p.constants.size();
  }
  return 0;
}

/// Edits of one buffer reference that take it out of its buffer or past
/// 2^64; `where` names it in the expected error.
inline void
refMutants(const Package &base, const std::string &name,
           const std::string &where,
           const std::function<BufferRef &(Package &)> &ref,
           const std::function<void(std::string, std::function<void(Package &)>,
                                    Expect, std::string)> &add) {
  Package copy = base;
  const BufferRef r = ref(copy);
  const uint64_t size = bufferBytes(base, r);
  auto set = [&](const std::string &what, uint64_t offset, uint64_t bytes) {
    add(
        name + ": " + what,
        [=](Package &p) {
          BufferRef &x = ref(p);
          x.offset = offset;
          x.bytes = bytes;
        },
        Expect::Refused, where);
  };
  set("offset 2^64 - 1", kMax, r.bytes == 0 ? 1 : r.bytes);
  set("offset 2^64 - bytes", kMax - (r.bytes == 0 ? 0 : r.bytes - 1),
      r.bytes == 0 ? 1 : r.bytes);
  set("bytes 2^64 - 1", r.offset, kMax);
  set("bytes 2^64 - offset", r.offset,
      r.offset == 0 ? kMax : kMax - r.offset + 1);
  set("offset and bytes 2^63", uint64_t(1) << 63, uint64_t(1) << 63);
  set("past the end by one", size - (r.bytes == 0 ? 0 : r.bytes - 1),
      r.bytes == 0 ? 1 : r.bytes);
  set("at the end", size, r.bytes == 0 ? 1 : r.bytes);
  set("offset 2^32 past the end", size + (uint64_t(1) << 32), 1);
  if (r.kind == BufferRef::Kind::Input || r.kind == BufferRef::Kind::Output)
    for (uint32_t index : {uint32_t(1000), ~uint32_t(0)})
      add(
          name + ": index " + std::to_string(index),
          [=](Package &p) { ref(p).index = index; }, Expect::Refused, where);
}

} // namespace detail

/// The mutants of `base` (a package validatePackage accepts, with kernel
/// signatures).
inline std::vector<Mutant> hostileMutants(const Package &base) {
  using detail::kMax;
  using detail::stepPrefix;
  std::vector<Mutant> out;
  auto add = [&](std::string name, std::function<void(Package &)> edit,
                 Expect expect, std::string error) {
    Mutant m;
    m.name = std::move(name);
    m.package = base;
    edit(m.package);
    m.expect = expect;
    m.error = std::move(error);
    out.push_back(std::move(m));
  };

  for (size_t i = 0; i < base.steps.size(); ++i) {
    const Step &step = base.steps[i];
    const std::string where = stepPrefix(i);
    const std::string label = where + " (" + step.label + ")";
    switch (step.kind) {
    case Step::Kind::Kernel: {
      const KernelStep &k = step.kernel;
      // Argument counts: one fewer, one more, none, twice as many.
      if (!k.args.empty()) {
        add(
            label + ": one argument fewer",
            [=](Package &p) { p.steps[i].kernel.args.pop_back(); },
            Expect::Refused, where);
        add(
            label + ": no arguments",
            [=](Package &p) { p.steps[i].kernel.args.clear(); },
            Expect::Refused, where);
        add(
            label + ": one argument more",
            [=](Package &p) {
              auto &args = p.steps[i].kernel.args;
              args.push_back(args.front());
            },
            Expect::Refused, where);
        add(
            label + ": twice the arguments",
            [=](Package &p) {
              auto &args = p.steps[i].kernel.args;
              std::vector<BufferRef> twice = args;
              twice.insert(twice.end(), args.begin(), args.end());
              args = twice;
            },
            Expect::Refused, where);
      }
      add(
          label + ": 513 arguments",
          [=](Package &p) {
            auto &args = p.steps[i].kernel.args;
            BufferRef a;
            a.kind = BufferRef::Kind::Arena;
            args.assign(513, a);
          },
          Expect::Refused, where);
      const KernelSignature *sig =
          k.kernel < base.kernels.size() && base.kernels[k.kernel].signature
              ? &*base.kernels[k.kernel].signature
              : nullptr;
      for (size_t a = 0; a < k.args.size(); ++a) {
        const std::string arg = label + ": argument " + std::to_string(a);
        auto ref = [i, a](Package &p) -> BufferRef & {
          return p.steps[i].kernel.args[a];
        };
        detail::refMutants(base, arg, where, ref, add);
        const BufferRef r = k.args[a];
        const uint64_t size = detail::bufferBytes(base, r);
        // Moved to the end of its buffer with its bytes cut so that the
        // reference is in bounds but covers less than the kernel accesses.
        if (r.bytes >= 2) {
          add(
              arg + ": moved to its buffer's end, half its bytes",
              [=](Package &p) {
                ref(p).offset = size - r.bytes / 2;
                ref(p).bytes = r.bytes / 2;
              },
              Expect::Refused, where);
          add(
              arg + ": at its buffer's last byte",
              [=](Package &p) {
                ref(p).offset = size - 1;
                ref(p).bytes = 1;
              },
              Expect::Refused, where);
        }
        if (r.bytes >= 1)
          add(
              arg + ": one byte less", [=](Package &p) { ref(p).bytes -= 1; },
              Expect::Refused, where);
        // A written parameter pointed at read-only memory.
        if (sig && a < sig->params.size() && sig->params[a].writes) {
          for (auto kind : {BufferRef::Kind::Input, BufferRef::Kind::Constant})
            add(
                arg + (kind == BufferRef::Kind::Input ? ": written into input 0"
                                                      : ": written into the "
                                                        "constants"),
                [=](Package &p) {
                  ref(p).kind = kind;
                  ref(p).index = 0;
                  ref(p).offset = 0;
                },
                Expect::Refused, where);
        }
      }
      // Grids at and past CUDA's limits, at 2^31 - 1 blocks, and past the
      // compiled grid, the 2^31 threads and the bytes of the arguments.
      uint64_t blockThreads = uint64_t(k.block[0]) * k.block[1] * k.block[2];
      uint64_t argBytes = 0;
      for (const BufferRef &r : k.args)
        argBytes += r.bytes;
      for (int d = 0; d < 3; ++d) {
        for (uint64_t v : {uint64_t(0), uint64_t(65535), uint64_t(65536),
                           uint64_t(0x7fffffff), uint64_t(0x80000000),
                           uint64_t(0xffffffff)}) {
          if (v == k.grid[d] || (v <= k.grid[d] && v != 0))
            continue;
          add(
              label + ": grid[" + std::to_string(d) +
                  "] = " + std::to_string(v),
              [=](Package &p) { p.steps[i].kernel.grid[d] = uint32_t(v); },
              Expect::Refused, where);
        }
        for (uint64_t v : {uint64_t(0), uint64_t(65), uint64_t(1024),
                           uint64_t(1025), uint64_t(k.block[d]) + 1,
                           uint64_t(k.block[d]) * 2, uint64_t(0xffffffff)}) {
          if (v == k.block[d])
            continue;
          add(
              label + ": block[" + std::to_string(d) +
                  "] = " + std::to_string(v),
              [=](Package &p) { p.steps[i].kernel.block[d] = uint32_t(v); },
              Expect::Refused, where);
        }
      }
      add(
          label + ": grid one past the compiled one",
          [=](Package &p) { p.steps[i].kernel.grid[0] += 1; }, Expect::Refused,
          where);
      add(
          label + ": 2^31 threads",
          [=](Package &p) {
            p.steps[i].kernel.grid[0] = uint32_t(std::min<uint64_t>(
                (uint64_t(1) << 31) / blockThreads, 0x7fffffff));
            p.steps[i].kernel.grid[1] = p.steps[i].kernel.grid[2] = 1;
          },
          Expect::Refused, where);
      add(
          label + ": more blocks than bytes of arguments",
          [=](Package &p) {
            p.steps[i].kernel.grid[0] =
                uint32_t(std::min<uint64_t>(argBytes + 1, 0x7fffffff));
          },
          Expect::Refused, where);
      add(
          label + ": 16M blocks",
          [=](Package &p) {
            p.steps[i].kernel.grid[0] = 1u << 24;
            p.steps[i].kernel.block[0] = 1;
            p.steps[i].kernel.block[1] = p.steps[i].kernel.block[2] = 1;
          },
          Expect::Refused, where);
      if (k.grid[0] > 1)
        add(
            label + ": half the grid",
            [=](Package &p) { p.steps[i].kernel.grid[0] /= 2; },
            Expect::RefusedOrRuns, "");
      add(
          label + ": one block",
          [=](Package &p) {
            for (uint32_t &g : p.steps[i].kernel.grid)
              g = 1;
          },
          Expect::RefusedOrRuns, "");
      add(
          label + ": too much shared memory",
          [=](Package &p) { p.steps[i].kernel.sharedBytes = 227 * 1024 + 1; },
          Expect::Refused, where);
      for (uint32_t kernel :
           {uint32_t(base.kernels.size()), ~uint32_t(0), uint32_t(1) << 31})
        add(
            label + ": kernel #" + std::to_string(kernel),
            [=](Package &p) { p.steps[i].kernel.kernel = kernel; },
            Expect::Refused, where);
      for (size_t other = 0; other < base.kernels.size(); ++other)
        if (other != k.kernel)
          add(
              label + ": launches kernel #" + std::to_string(other),
              [=](Package &p) { p.steps[i].kernel.kernel = uint32_t(other); },
              Expect::RefusedOrRuns, "");
      break;
    }
    case Step::Kind::Gemm: {
      const GemmStep &g = step.gemm;
      auto field = [&](const char *name, int64_t GemmStep::*member,
                       std::vector<int64_t> values) {
        for (int64_t v : values)
          if (v != g.*member)
            add(
                label + ": " + name + " = " + std::to_string(v),
                [=](Package &p) { p.steps[i].gemm.*member = v; },
                Expect::Refused, where);
      };
      const int64_t i62 = int64_t(1) << 62, imax = INT64_MAX,
                    i31 = int64_t(1) << 31;
      for (auto [name, member] :
           {std::pair<const char *, int64_t GemmStep::*>{"m", &GemmStep::m},
            {"n", &GemmStep::n},
            {"k", &GemmStep::k}})
        field(name, member, {i62, imax, -1, i31, i31 - 1, INT64_MIN});
      field("batch", &GemmStep::batch, {0, -1, i31, i31 - 1, i62, imax});
      // Leading dimensions; 2^40 - 1 overflows an operand with more than
      // one row only.
      const int64_t rowsA = g.transA ? g.k : g.m, rowsB = g.transB ? g.n : g.k;
      for (auto [name, member, rows] :
           {std::tuple<const char *, int64_t GemmStep::*, int64_t>{
                "lda", &GemmStep::lda, rowsA},
            {"ldb", &GemmStep::ldb, rowsB},
            {"ldc", &GemmStep::ldc, g.m}}) {
        field(name, member, {0, -1, int64_t(1) << 40, i62, imax});
        add(
            label + ": " + name + " = 2^40 - 1",
            [=, member = member](Package &p) {
              p.steps[i].gemm.*member = (int64_t(1) << 40) - 1;
            },
            rows > 1 ? Expect::Refused : Expect::RefusedOrRuns,
            rows > 1 ? where : "");
      }
      for (auto [name, member] : {std::pair<const char *, int64_t GemmStep::*>{
                                      "strideA", &GemmStep::strideA},
                                  {"strideB", &GemmStep::strideB},
                                  {"strideC", &GemmStep::strideC}}) {
        field(name, member, {-1, int64_t(1) << 40, i62, imax});
        add(
            label + ": batch 2^31 - 1, " + name + " 2^40 - 1",
            [=, member = member](Package &p) {
              p.steps[i].gemm.batch = i31 - 1;
              p.steps[i].gemm.*member = (int64_t(1) << 40) - 1;
            },
            Expect::Refused, where);
      }
      if (g.m * g.n > 1)
        add(
            label + ": batch 2 with overlapping outputs (strideC 1)",
            [=](Package &p) {
              p.steps[i].gemm.batch = 2;
              p.steps[i].gemm.strideC = 1;
            },
            Expect::Refused, where);
      add(
          label + ": batch 2^31 - 1 with every stride 1",
          [=](Package &p) {
            GemmStep &h = p.steps[i].gemm;
            h.batch = i31 - 1;
            h.strideA = h.strideB = h.strideC = 1;
          },
          Expect::Refused, where);
      auto refOf = [](BufferRef GemmStep::*member) {
        return [member](size_t i) {
          return [i, member](Package &p) -> BufferRef & {
            return p.steps[i].gemm.*member;
          };
        };
      };
      for (auto [name, member] :
           {std::pair<const char *, BufferRef GemmStep::*>{"A", &GemmStep::a},
            {"B", &GemmStep::b},
            {"C", &GemmStep::c}}) {
        auto ref = refOf(member)(i);
        detail::refMutants(base, label + ": operand " + name, where, ref, add);
        if ((g.*member).bytes > 0)
          add(
              label + ": operand " + name + " one byte less",
              [=](Package &p) { ref(p).bytes -= 1; }, Expect::Refused, where);
      }
      for (auto kind : {BufferRef::Kind::Input, BufferRef::Kind::Constant})
        add(
            label + ": C in read-only memory",
            [=](Package &p) {
              p.steps[i].gemm.c.kind = kind;
              p.steps[i].gemm.c.index = 0;
              p.steps[i].gemm.c.offset = 0;
            },
            Expect::Refused, where);
      if (g.bias) {
        add(
            label + ": bias one byte less",
            [=](Package &p) { p.steps[i].gemm.bias->bytes -= 1; },
            Expect::Refused, where);
        add(
            label + ": bias at offset 2^64 - 1",
            [=](Package &p) { p.steps[i].gemm.bias->offset = kMax; },
            Expect::Refused, where);
      }
      if (g.addend) {
        add(
            label + ": addend one byte less",
            [=](Package &p) { p.steps[i].gemm.addend->bytes -= 1; },
            Expect::Refused, where);
        add(
            label + ": addend of 2^64 - 1 bytes",
            [=](Package &p) { p.steps[i].gemm.addend->bytes = kMax; },
            Expect::Refused, where);
      }
      for (int32_t e : {-2, int32_t(base.kernels.size()), INT32_MAX})
        add(
            label + ": epilogue kernel " + std::to_string(e),
            [=](Package &p) { p.steps[i].gemm.epilogueKernel = e; },
            Expect::Refused, where);
      for (size_t e = 0; e < base.kernels.size(); ++e)
        add(
            label + ": epilogue kernel " + std::to_string(e),
            [=](Package &p) { p.steps[i].gemm.epilogueKernel = int32_t(e); },
            Expect::RefusedOrRuns, "");
      add(
          label + ": epilogue 7",
          [=](Package &p) { p.steps[i].gemm.epilogue = GemmEpilogue(7); },
          Expect::Refused, where);
      add(
          label + ": i32 GEMM",
          [=](Package &p) { p.steps[i].gemm.dtype = DType::I32; },
          Expect::Refused, where);
      add(
          label + ": transposed A",
          [=](Package &p) { p.steps[i].gemm.transA = !p.steps[i].gemm.transA; },
          Expect::RefusedOrRuns, "");
      add(
          label + ": transposed B",
          [=](Package &p) { p.steps[i].gemm.transB = !p.steps[i].gemm.transB; },
          Expect::RefusedOrRuns, "");
      add(
          label + ": alpha NaN",
          [=](Package &p) {
            p.steps[i].gemm.alpha = std::numeric_limits<double>::quiet_NaN();
          },
          Expect::RefusedOrRuns, "");
      break;
    }
    case Step::Kind::Conv: {
      for (auto [name, member] :
           {std::pair<const char *, BufferRef ConvStep::*>{"input",
                                                           &ConvStep::x},
            {"filter", &ConvStep::filter},
            {"output", &ConvStep::y}}) {
        auto ref = [i, member = member](Package &p) -> BufferRef & {
          return p.steps[i].conv.*member;
        };
        detail::refMutants(base, label + ": " + name, where, ref, add);
      }
      using Size = int64_t ConvStep::*;
      for (auto [name, member] :
           {std::pair<const char *, Size>{"batch", &ConvStep::n},
            {"channels", &ConvStep::c},
            {"output channels", &ConvStep::k},
            {"output height", &ConvStep::p},
            {"groups", &ConvStep::groups},
            {"stride", &ConvStep::strideH},
            {"dilation", &ConvStep::dilW}})
        for (int64_t v : {int64_t(0), int64_t(-1), int64_t(1) << 62})
          add(
              label + ": " + name + " " + std::to_string(v),
              [=, member = member](Package &p) { p.steps[i].conv.*member = v; },
              Expect::Refused, where);
      add(
          label + ": negative padding",
          [=](Package &p) { p.steps[i].conv.padW = -1; }, Expect::Refused,
          where);
      break;
    }
    case Step::Kind::Copy: {
      const CopyStep &c = step.copy;
      for (auto [name, member] :
           {std::pair<const char *, BufferRef CopyStep::*>{"source",
                                                           &CopyStep::src},
            {"destination", &CopyStep::dst}}) {
        auto ref = [i, member = member](Package &p) -> BufferRef & {
          return p.steps[i].copy.*member;
        };
        detail::refMutants(base, label + ": " + name, where, ref, add);
      }
      add(
          label + ": one byte more than the destination",
          [=](Package &p) { p.steps[i].copy.src.bytes = c.dst.bytes + 1; },
          Expect::Refused, where);
      for (auto kind : {BufferRef::Kind::Input, BufferRef::Kind::Constant})
        add(
            label + ": into read-only memory",
            [=](Package &p) {
              p.steps[i].copy.dst.kind = kind;
              p.steps[i].copy.dst.index = 0;
              p.steps[i].copy.dst.offset = 0;
            },
            Expect::Refused, where);
      break;
    }
    }
  }

  // Kernel signatures edited without their launches.
  for (size_t k = 0; k < base.kernels.size(); ++k) {
    if (!base.kernels[k].signature)
      continue;
    const KernelSignature &sig = *base.kernels[k].signature;
    const std::string name = "kernel #" + std::to_string(k);
    add(
        name + ": no signature",
        [=](Package &p) { p.kernels[k].signature.reset(); }, Expect::Refused,
        name);
    add(
        name + ": 513 parameters",
        [=](Package &p) { p.kernels[k].signature->params.resize(513); },
        Expect::Refused, name);
    bool launched = false;
    for (const Step &s : base.steps)
      launched |= (s.kind == Step::Kind::Kernel && s.kernel.kernel == k) ||
                  (s.kind == Step::Kind::Gemm && s.gemm.epilogueKernel >= 0 &&
                   size_t(s.gemm.epilogueKernel) == k);
    if (!launched)
      continue;
    add(
        name + ": one parameter more",
        [=](Package &p) {
          p.kernels[k].signature->params.push_back({4, true});
        },
        Expect::Refused, "step ");
    if (!sig.params.empty())
      add(
          name + ": one parameter fewer",
          [=](Package &p) { p.kernels[k].signature->params.pop_back(); },
          Expect::Refused, "step ");
    for (size_t a = 0; a < sig.params.size(); ++a) {
      const std::string param = name + ": parameter " + std::to_string(a);
      add(
          param + ": one byte more",
          [=](Package &p) { p.kernels[k].signature->params[a].bytes += 1; },
          Expect::Refused, "step ");
      add(
          param + ": 2^64 - 1 bytes",
          [=](Package &p) { p.kernels[k].signature->params[a].bytes = kMax; },
          Expect::Refused, "step ");
      if (!sig.params[a].writes)
        add(
            param + ": written",
            [=](Package &p) {
              p.kernels[k].signature->params[a].writes = true;
            },
            Expect::RefusedOrRuns, "");
    }
    for (int d = 0; d < 3; ++d) {
      add(
          name + ": block[" + std::to_string(d) + "] doubled",
          [=](Package &p) { p.kernels[k].signature->block[d] *= 2; },
          Expect::Refused, "step ");
      // Refused when a step launches the whole compiled grid (an epilogue
      // kernel's launches are the runtime's, usually far fewer blocks).
      bool fullGrid = false;
      for (const Step &s : base.steps)
        fullGrid |= s.kind == Step::Kind::Kernel && s.kernel.kernel == k &&
                    s.kernel.grid[d] == sig.grid[d];
      if (sig.grid[d] > 1)
        add(
            name + ": grid[" + std::to_string(d) + "] one less",
            [=](Package &p) { p.kernels[k].signature->grid[d] -= 1; },
            fullGrid ? Expect::Refused : Expect::RefusedOrRuns,
            fullGrid ? "step " : "");
    }
  }

  // Sizes of the whole package: arenas and tensors far beyond any memory
  // (consistent, so validation accepts them: the session must refuse them
  // before it allocates), and descriptions whose size overflows.
  for (uint64_t arena :
       {kMax, kMax - 255, uint64_t(1) << 63, uint64_t(1) << 50})
    add(
        "arena of " + std::to_string(arena) + " bytes",
        [=](Package &p) { p.arenaBytes = arena; }, Expect::TooLarge, "");
  if (base.arenaBytes > 0) {
    add(
        "arena of 0 bytes", [](Package &p) { p.arenaBytes = 0; },
        Expect::RefusedOrRuns, "");
    add(
        "arena one byte smaller", [](Package &p) { p.arenaBytes -= 1; },
        Expect::RefusedOrRuns, "");
  }
  if (!base.constants.empty())
    add(
        "constants one byte shorter",
        [](Package &p) { p.constants.pop_back(); }, Expect::RefusedOrRuns, "");
  auto descMutants = [&](bool inputs) {
    const std::vector<TensorDesc> &descs = inputs ? base.inputs : base.outputs;
    for (size_t d = 0; d < descs.size(); ++d) {
      const std::string name =
          (inputs ? "input #" : "output #") + std::to_string(d);
      auto edit = [=](std::vector<int64_t> shape) {
        return [=](Package &p) {
          (inputs ? p.inputs : p.outputs)[d].shape = shape;
        };
      };
      const int64_t e40 = int64_t(1) << 40;
      // 2^40 elements, 2^56 (the largest description), and more: too large
      // for any device, but consistent.
      add(name + ": 2^40 elements", edit({e40}), Expect::TooLarge, "");
      add(name + ": 2^40 x 16 elements", edit({e40, 16}), Expect::TooLarge, "");
      add(name + ": 2^56 elements", edit({int64_t(1) << 28, int64_t(1) << 28}),
          Expect::TooLarge, "");
      // Descriptions whose element or byte count does not fit.
      add(name + ": 2^57 elements", edit({int64_t(1) << 57}), Expect::Refused,
          name);
      add(name + ": 2^32 x 2^32 elements",
          edit({int64_t(1) << 32, int64_t(1) << 32}), Expect::Refused, name);
      add(name + ": 2^62 x 4 elements", edit({int64_t(1) << 62, 4}),
          Expect::Refused, name);
      add(name + ": INT64_MAX elements", edit({INT64_MAX}), Expect::Refused,
          name);
      add(name + ": 2^21 cubed elements",
          edit({int64_t(1) << 21, int64_t(1) << 21, int64_t(1) << 21}),
          Expect::Refused, name);
      add(name + ": a negative dimension", edit({-1}), Expect::Refused, name);
      add(name + ": INT64_MIN", edit({INT64_MIN, 2}), Expect::Refused, name);
      add(name + ": empty", edit({0}), Expect::RefusedOrRuns, "");
      add(
          name + ": an invalid element type",
          [=](Package &p) {
            (inputs ? p.inputs : p.outputs)[d].dtype = DType(9);
          },
          Expect::Refused, name);
    }
  };
  descMutants(true);
  descMutants(false);
  add(
      "one input name too many",
      [](Package &p) { p.inputNames.assign(p.inputs.size() + 1, "x"); },
      Expect::Refused, "names");
  return out;
}

//===----------------------------------------------------------------------===//
// Checking them
//===----------------------------------------------------------------------===//

/// Whether a refusal names where the package is wrong.
inline bool namesAPlace(const std::string &message) {
  for (const char *place :
       {"step ", "input #", "output #", "kernel #", "arena", "names"})
    if (message.find(place) != std::string::npos)
      return true;
  return false;
}

struct Tally {
  size_t mutants = 0, refused = 0, tooLarge = 0, ran = 0;
};

/// Checks every mutant of `base` as Expect says (a GoogleTest failure for
/// each that does not do what it must), on the sim device.
inline Tally checkMutants(const Package &base) {
  using ::testing::HasSubstr;
  using ::testing::StartsWith;
  Tally t;
  Status valid = validatePackage(base);
  EXPECT_TRUE(valid.isOk()) << valid.message();
  SessionOptions sim;
  sim.device = DeviceKind::Sim;
  for (const Mutant &m : hostileMutants(base)) {
    SCOPED_TRACE(m.name);
    ++t.mutants;
    Status v = validatePackage(m.package);
    switch (m.expect) {
    case Expect::Refused:
      EXPECT_FALSE(v.isOk()) << "validatePackage accepted it";
      if (!v.isOk()) {
        EXPECT_THAT(v.message(), HasSubstr(m.error));
        ++t.refused;
      }
      break;
    case Expect::TooLarge: {
      EXPECT_TRUE(v.isOk()) << v.message();
      Result<std::unique_ptr<Session>> s = Session::create(m.package, sim);
      EXPECT_FALSE(s.isOk()) << "the session accepted it";
      if (!s.isOk()) {
        EXPECT_THAT(s.message(), StartsWith("the package needs "));
        EXPECT_THAT(s.message(), HasSubstr(" of device memory (arena "));
        ++t.tooLarge;
      }
      break;
    }
    case Expect::RefusedOrRuns: {
      if (!v.isOk()) {
        EXPECT_TRUE(namesAPlace(v.message())) << v.message();
        ++t.refused;
        break;
      }
      Result<std::unique_ptr<Session>> s = Session::create(m.package, sim);
      if (!s.isOk())
        break; // an error, not a crash
      Result<std::vector<HostTensor>> out =
          (*s)->run(randomInputs(m.package, 5));
      (void)out; // any result or error: it did not crash
      ++t.ran;
      break;
    }
    }
  }
  std::printf("%zu mutants: %zu refused by validation, %zu as too large for "
              "the device, %zu ran\n",
              t.mutants, t.refused, t.tooLarge, t.ran);
  return t;
}

} // namespace dlc::rt::test

#endif // DLC_TEST_RUNTIME_HOSTILEMUTANTS_H
