//===- FuzzPackage.cpp - libFuzzer target: reading .dlcpkg bytes ----------===//
//
// Input: the bytes of a .dlcpkg file. Runs what `dlc run --check` runs on a
// package before it touches a device: rt::deserializePackage, then
// rt::validatePackage, then, for a valid package with a reference model and
// small inputs, the reference check (dlc::runReference: the model read and
// evaluated in a child process; its coverage joins this process's,
// ChildCoverage.h). Beyond crashes and sanitizer reports (including
// allocations sized by corrupt length fields) it checks that a package
// that deserializes serializes to bytes that deserialize to the same
// package, that validation does not depend on that round trip, and that
// the reference interpreter never crashes on a model that was read. Each
// distinct reference model (with its package's signature and weights) is
// checked once per process: most mutants change other sections.
//
// A mutant with a stale checksum stops at the checksum test: the custom
// mutator writes the payload's size and checksum into the header of 15 of
// 16 mutants, so that they reach the sections, validation and the
// reference model (the rest keep the checksum test covered).
//
//===----------------------------------------------------------------------===//

#include "test/fuzz/ChildCoverage.h"
#include "test/fuzz/FuzzCommon.h"

#include "dlc/dlc.h"
#include "runtime/Package.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unordered_set>
#include <vector>

extern "C" size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t maxSize);

namespace {

/// The most input bytes the target gives a package's reference check.
constexpr uint64_t kMaxInputBytes = uint64_t(16) << 20;

/// Writes the payload's size and checksum into a package header (32
/// bytes: magic, version, flags, payload size, checksum) of a version this
/// dlc reads.
void fixHeader(uint8_t *data, size_t size) {
  if (size < 32)
    return;
  uint32_t version;
  std::memcpy(&version, data + 8, 4);
  if (version < dlc::rt::kOldestPackageVersion ||
      version > dlc::rt::kPackageVersion)
    return;
  uint64_t payload = size - 32;
  uint64_t checksum =
      dlc::rt::packageChecksum(version, data + 32, size_t(payload));
  std::memcpy(data + 16, &payload, 8);
  std::memcpy(data + 24, &checksum, 8);
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  dlc::fuzz::childcoverage::install();
  return 0;
}

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size,
                                          size_t maxSize, unsigned seed) {
  size = LLVMFuzzerMutate(data, size, maxSize);
  if (seed % 16 != 0)
    fixHeader(data, size);
  return size;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::vector<uint8_t> bytes(data, data + size);
  dlc::rt::Result<dlc::rt::Package> package =
      dlc::rt::deserializePackage(bytes);
  if (!package)
    return 0;
  const bool valid = dlc::rt::validatePackage(*package).isOk();

  const std::vector<uint8_t> again = dlc::rt::serializePackage(*package);
  dlc::rt::Result<dlc::rt::Package> back = dlc::rt::deserializePackage(again);
  if (!back)
    dlc::fuzz::fail(
        "a package that deserialized does not deserialize after serializing");
  if (dlc::rt::serializePackage(*back) != again)
    dlc::fuzz::fail("a package changes in a serialization round trip");
  if (dlc::rt::validatePackage(*back).isOk() != valid)
    dlc::fuzz::fail("validation changes in a serialization round trip");

  if (!valid || package->referenceIR.empty())
    return 0;
  // Most mutants change another section than the reference model: each
  // reference model (with the package's signature) is checked once per
  // process, so that the fuzzer spends its time on the sections rather
  // than on forks (its coverage was recorded the first time).
  std::string key = package->referenceIR;
  for (const std::vector<dlc::rt::TensorDesc> *descs :
       {&package->inputs, &package->outputs})
    for (const dlc::rt::TensorDesc &d : *descs)
      key += dlc::rt::describe(d.dtype, d.shape);
  for (const dlc::rt::ReferenceBlob &b : package->referenceBlobs)
    key += b.key + std::to_string(b.alignment) + std::to_string(b.offset) +
           std::to_string(b.size) + std::to_string(b.data.size());
  static std::unordered_set<size_t> checked;
  if (checked.size() > (size_t(1) << 20))
    checked.clear();
  if (!checked.insert(std::hash<std::string>()(key)).second)
    return 0;
  uint64_t inputBytes = 0;
  for (const dlc::rt::TensorDesc &d : package->inputs) {
    if (d.byteSize() > kMaxInputBytes - inputBytes)
      return 0;
    inputBytes += d.byteSize();
  }
  // Read once here (through its own child) to see what evaluating it
  // costs.
  dlc::fuzz::FuzzContext fc;
  llvm::SourceMgr sourceMgr;
  dlc::fuzz::childcoverage::begin();
  mlir::OwningOpRef<mlir::ModuleOp> module =
      dlc::parseReferenceModel(*package, sourceMgr, fc.context);
  dlc::fuzz::childcoverage::merge();
  if (!module || !dlc::fuzz::cheapToEvaluate(*module))
    return 0;
  dlc::fuzz::childcoverage::begin();
  auto outputs = dlc::runReference(*package, dlc::randomInputs(*package, 1));
  dlc::fuzz::childcoverage::merge();
  if (!outputs && dlc::fuzz::interpreterCrashed(outputs.message()))
    dlc::fuzz::fail("the reference interpreter crashed", outputs.message());
  return 0;
}
