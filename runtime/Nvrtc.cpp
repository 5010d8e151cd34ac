//===- Nvrtc.cpp - NVRTC compilation through the on-disk kernel cache -----===//
//
// compileCudaToCubin compiles with NVRTC for a real architecture (cubin, no
// PTX JIT at load time) and caches the result under kernelCacheDir()/cubin.
// The key hashes everything that affects the output: the source, the
// architecture, the options and the NVRTC version. An entry carries a header
// (magic, key, length, checksum) so a truncated or corrupt entry is
// detected, ignored and rewritten; entries are written to a temporary file
// and renamed into place, so concurrent writers never expose a partial file.
//
//===----------------------------------------------------------------------===//

#include "runtime/Nvrtc.h"
#include "runtime/CacheDir.h"
#include "runtime/CudaLibs.h"
#include "runtime/FaultInjection.h"
#include "runtime/RuntimeImpl.h"
#include "runtime/SafeFile.h"
#include "runtime/Support.h"

#include <cctype>
#include <cstdlib>

namespace dlc::rt {

Result<std::string> nvrtcVersion() {
  std::string why;
  const Nvrtc *nv = loadNvrtc(&why);
  if (!nv)
    return Status::error("NVRTC is not available: " + why);
  return std::to_string(nv->major) + "." + std::to_string(nv->minor);
}

namespace {

constexpr char kEntryMagic[8] = {'D', 'L', 'C', 'K', 'C', 'H', '0', '1'};
constexpr size_t kEntryHeaderBytes = 8 + 8 + 8 + 8 + 8;

bool isValidArch(const std::string &arch) {
  if (arch.size() < 5 || arch.compare(0, 3, "sm_") != 0)
    return false;
  size_t i = 3;
  while (i < arch.size() && std::isdigit(static_cast<unsigned char>(arch[i])))
    ++i;
  if (i < 5)
    return false;
  // An optional feature suffix: sm_90a, sm_100f.
  return i == arch.size() ||
         (i + 1 == arch.size() &&
          std::islower(static_cast<unsigned char>(arch[i])));
}

struct CacheKey {
  uint64_t lo = 0, hi = 0;
  std::string hex() const { return hex64(hi) + hex64(lo); }
};

CacheKey cubinKey(const std::string &source, const std::string &arch,
                  const std::vector<std::string> &options,
                  const std::string &version) {
  // Two FNV-1a streams with different seeds give a 128-bit key.
  Fnv1a64 a, b(0x84222325cbf29ce4ull);
  for (Fnv1a64 *h : {&a, &b}) {
    h->updateString("dlc-cubin-v2");
    h->updateString(source);
    h->updateString(arch);
    for (const std::string &o : options)
      h->updateString(o);
    h->updateString(version);
  }
  return {a.digest(), b.digest()};
}

} // namespace

/// Reads a cache entry; returns false (and counts a corrupt entry when the
/// file exists) unless it is complete and matches `key`.
static bool readCacheEntry(const std::string &path, uint64_t keyLo,
                           uint64_t keyHi, std::vector<uint8_t> &payload) {
  if (!fileExists(path))
    return false;
  Result<std::vector<uint8_t>> bytes = readRegularFile(path);
  // Fault site: the entry reads back with a byte flipped, which the checks
  // below must catch.
  if (bytes.isOk() && !bytes->empty() && fault::shouldFail("cache-corrupt"))
    (*bytes)[bytes->size() / 2] ^= 0x5a;
  bool ok = bytes.isOk() && bytes->size() >= kEntryHeaderBytes &&
            std::memcmp(bytes->data(), kEntryMagic, 8) == 0;
  if (ok) {
    ByteReader r(bytes->data() + 8, kEntryHeaderBytes - 8);
    uint64_t lo = 0, hi = 0, length = 0, checksum = 0;
    (void)(r.u64(lo) && r.u64(hi) && r.u64(length) && r.u64(checksum));
    const uint8_t *data = bytes->data() + kEntryHeaderBytes;
    ok = lo == keyLo && hi == keyHi &&
         length == bytes->size() - kEntryHeaderBytes &&
         fnv1a64(data, length) == checksum;
    if (ok)
      payload.assign(data, data + length);
  }
  if (!ok)
    ++kernelCacheCounters().corruptEntries;
  return ok;
}

/// Best effort: a cache that cannot be written only costs recompilation.
static void writeCacheEntry(const std::string &dir, const std::string &path,
                            uint64_t keyLo, uint64_t keyHi,
                            const std::vector<uint8_t> &payload) {
  if (!makeDirectories(dir).isOk())
    return;
  std::vector<uint8_t> out;
  ByteWriter w(out);
  w.bytes(kEntryMagic, 8);
  w.u64(keyLo);
  w.u64(keyHi);
  w.u64(payload.size());
  w.u64(fnv1a64(payload.data(), payload.size()));
  w.bytes(payload.data(), payload.size());
  (void)writeFileAtomic(path, out.data(), out.size());
}

/// The lines of `text`, without their newlines.
static std::vector<std::string> splitLines(const std::string &text) {
  std::vector<std::string> lines;
  for (size_t pos = 0; pos < text.size();) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string::npos)
      eol = text.size();
    lines.push_back(text.substr(pos, eol - pos));
    pos = eol + 1;
  }
  return lines;
}

std::vector<KernelResources> parsePtxasInfo(const std::string &log) {
  // ptxas -v, per entry function:
  //   ptxas info    : Compiling entry function 'k0' for 'sm_90'
  //   ptxas info    : Function properties for k0
  //   ptxas         .     0 bytes stack frame, 0 bytes spill stores, ...
  //   ptxas info    : Used 38 registers, used 0 barriers, ...
  // Device functions that were not inlined get "Function properties" of
  // their own; only entry functions are reported.
  std::vector<KernelResources> out;
  std::string properties; // the function the next stack line describes
  auto number = [](const std::string &line, const char *suffix,
                   uint32_t &value) {
    size_t at = line.find(suffix);
    if (at == std::string::npos)
      return;
    size_t end = at;
    while (end > 0 && line[end - 1] == ' ')
      --end;
    size_t begin = end;
    while (begin > 0 &&
           std::isdigit(static_cast<unsigned char>(line[begin - 1])))
      --begin;
    if (begin < end && end - begin <= 9)
      value = uint32_t(std::stoul(line.substr(begin, end - begin)));
  };
  for (const std::string &line : splitLines(log)) {
    // The entry function the lines describe now: the last one begun.
    KernelResources *entry = out.empty() ? nullptr : &out.back();
    const std::string compiling = "Compiling entry function '";
    const std::string props = "Function properties for ";
    if (size_t at = line.find(compiling); at != std::string::npos) {
      size_t begin = at + compiling.size();
      size_t end = line.find('\'', begin);
      if (end == std::string::npos)
        continue;
      out.push_back({});
      out.back().kernel = line.substr(begin, end - begin);
    } else if (size_t at = line.find(props); at != std::string::npos) {
      properties = line.substr(at + props.size());
      while (!properties.empty() &&
             std::isspace(static_cast<unsigned char>(properties.back())))
        properties.pop_back();
    } else if (line.find("bytes stack frame") != std::string::npos) {
      if (entry && properties == entry->kernel) {
        number(line, "bytes stack frame", entry->stackBytes);
        number(line, "bytes spill stores", entry->spillStoreBytes);
        number(line, "bytes spill loads", entry->spillLoadBytes);
      }
    } else if (line.find(" registers") != std::string::npos &&
               line.find("Used ") != std::string::npos) {
      if (entry)
        number(line, " registers", entry->registers);
    }
  }
  return out;
}

namespace {

/// A cached cubin entry's payload: the resources, then the image.
std::vector<uint8_t> encodeCubin(const CompiledCubin &c) {
  std::vector<uint8_t> out;
  ByteWriter w(out);
  writeKernelResources(w, c.resources);
  w.blob(c.image.data(), c.image.size());
  return out;
}

bool decodeCubin(const std::vector<uint8_t> &payload, CompiledCubin &c) {
  ByteReader r(payload.data(), payload.size());
  return readKernelResources(r, c.resources) && r.blob(c.image) &&
         r.remaining() == 0 && !c.image.empty();
}

} // namespace

Result<CompiledCubin> compileCuda(const std::string &source,
                                  const std::string &arch) {
  if (!isValidArch(arch))
    return Status::error("invalid GPU architecture '" + arch +
                         "' (expected sm_XX, e.g. sm_90)");
  std::string why;
  const Nvrtc *nv = loadNvrtc(&why);
  if (!nv)
    return Status::error("cannot compile CUDA kernels: NVRTC is not "
                         "available: " +
                         why);
  std::string version =
      std::to_string(nv->major) + "." + std::to_string(nv->minor);
  // Exact math: no --use_fast_math. ptxas's verbose report gives each
  // kernel's registers and spills (the log holds nothing else on success).
  std::vector<std::string> options = {"--gpu-architecture=" + arch,
                                      "-std=c++17", "--ptxas-options=-v"};

  CacheKey key = cubinKey(source, arch, options, version);
  // Only a verified private directory ("" without one: no caching).
  std::string dir = privateCacheDirectoryOrNote("cubin");
  std::string path = dir.empty() ? "" : dir + "/" + key.hex() + ".cubin";
  CompiledCubin result;
  std::vector<uint8_t> payload;
  if (!dir.empty() && readCacheEntry(path, key.lo, key.hi, payload)) {
    if (decodeCubin(payload, result)) {
      ++kernelCacheCounters().hits;
      return result;
    }
    ++kernelCacheCounters().corruptEntries;
    result = CompiledCubin();
  }
  ++kernelCacheCounters().misses;

  nvrtcProgram prog = nullptr;
  nvrtcResult rc = nv->nvrtcCreateProgram(
      &prog, source.c_str(), "dlc_kernels.cu", 0, nullptr, nullptr);
  if (rc != NVRTC_SUCCESS)
    return Status::error("nvrtcCreateProgram failed: " + nv->errorString(rc));
  std::vector<const char *> argv;
  for (const std::string &o : options)
    argv.push_back(o.c_str());
  rc = nv->nvrtcCompileProgram(prog, int(argv.size()), argv.data());
  std::string log;
  size_t logSize = 0;
  if (nv->nvrtcGetProgramLogSize(prog, &logSize) == NVRTC_SUCCESS &&
      logSize > 1) {
    log.resize(logSize);
    if (nv->nvrtcGetProgramLog(prog, &log[0]) != NVRTC_SUCCESS)
      log.clear();
    while (!log.empty() && (log.back() == '\0' || log.back() == '\n'))
      log.pop_back();
  }
  if (rc != NVRTC_SUCCESS) {
    nv->nvrtcDestroyProgram(&prog);
    // The error log without ptxas's per-kernel report.
    std::string errors;
    for (const std::string &line : splitLines(log)) {
      if (line.compare(0, 5, "ptxas") == 0 &&
          line.find("error") == std::string::npos)
        continue;
      errors += (errors.empty() ? "" : "\n") + line;
    }
    return Status::error("NVRTC failed to compile the kernels for " + arch +
                         " (" + nv->errorString(rc) + ")" +
                         (errors.empty() ? "" : ":\n" + errors));
  }
  size_t size = 0;
  rc = nv->nvrtcGetCUBINSize(prog, &size);
  if (rc == NVRTC_SUCCESS && size == 0)
    rc = NVRTC_ERROR_INVALID_INPUT;
  if (rc == NVRTC_SUCCESS) {
    result.image.resize(size);
    rc = nv->nvrtcGetCUBIN(prog, reinterpret_cast<char *>(result.image.data()));
  }
  nv->nvrtcDestroyProgram(&prog);
  if (rc != NVRTC_SUCCESS)
    return Status::error(
        std::string(size == 0 ? "nvrtcGetCUBINSize" : "nvrtcGetCUBIN") +
        " failed for " + arch + ": " + nv->errorString(rc));
  result.resources = parsePtxasInfo(log);
  if (!dir.empty())
    writeCacheEntry(dir, path, key.lo, key.hi, encodeCubin(result));
  return result;
}

Result<std::vector<uint8_t>> compileCudaToCubin(const std::string &source,
                                                const std::string &arch) {
  Result<CompiledCubin> c = compileCuda(source, arch);
  if (!c)
    return Status::error(c.message());
  return std::move(c->image);
}

} // namespace dlc::rt
