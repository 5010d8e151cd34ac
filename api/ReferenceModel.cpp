//===- ReferenceModel.cpp - The package's reference model, weights once ---===//
//
// A package carries the lowered model for `dlc run --check` (the reference
// interpreter's input). Its weights would double a weight-heavy package, so
// the model is written as MLIR bytecode without its dense_resource data,
// and each resource is stored once beside it (rt::ReferenceBlob): as a range
// of the package's constants when the compiled model keeps the same bytes
// (found by hashing the first bytes of every constant slot, then compared
// in full), else as its own bytes. Reading gives the parsed model's
// resources their data back.
//
//===----------------------------------------------------------------------===//

#include "api/Compiler.h"

#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <cstring>
#include <unordered_map>

using namespace mlir;

namespace dlc {

LogicalResult writeReferenceModel(ModuleOp module, std::string &bytecode,
                                  std::vector<ReferenceResource> &resources) {
  llvm::StringSet<> seen;
  module->walk([&](Operation *op) {
    op->getAttrDictionary().walk([&](DenseResourceElementsAttr attr) {
      DenseResourceElementsHandle handle = attr.getRawHandle();
      AsmResourceBlob *blob = handle.getBlob();
      if (!blob || !seen.insert(handle.getKey()).second)
        return;
      resources.push_back({handle.getKey().str(), blob->getData(),
                           uint64_t(blob->getDataAlignment())});
    });
  });
  // Bytecode keeps locations (what the reference interpreter reports, dlc
  // run --check, then points into the user's model).
  BytecodeWriterConfig config;
  config.setElideResourceDataFlag();
  llvm::raw_string_ostream os(bytecode);
  if (failed(writeBytecodeToFile(module, os, config)))
    return module.emitError("cannot write the reference model as bytecode");
  return success();
}

void placeReferenceBlobs(const std::vector<ReferenceResource> &resources,
                         rt::Package &package) {
  // Weights shorter than the probe are stored as they are.
  constexpr size_t kProbe = 64;
  // Candidates compared in full per weight (zero-filled weights match the
  // probe of every zero run).
  constexpr int kMaxCompares = 64;
  const std::vector<uint8_t> &constants = package.constants;
  auto probe = [](const void *data) {
    return llvm::xxh3_64bits(
        llvm::ArrayRef<uint8_t>(static_cast<const uint8_t *>(data), kProbe));
  };
  std::unordered_multimap<uint64_t, uint64_t> slots;
  for (uint64_t offset = 0; offset + kProbe <= constants.size();
       offset += rt::kConstantAlignment)
    slots.emplace(probe(constants.data() + offset), offset);

  package.referenceBlobs.clear();
  for (const ReferenceResource &resource : resources) {
    rt::ReferenceBlob blob;
    blob.key = resource.key;
    blob.alignment = std::max<uint64_t>(resource.alignment, 1);
    const uint64_t size = resource.data.size();
    if (size >= kProbe) {
      auto [begin, end] = slots.equal_range(probe(resource.data.data()));
      int compares = 0;
      for (auto it = begin; it != end && compares < kMaxCompares;
           ++it, ++compares) {
        uint64_t offset = it->second;
        if (size <= constants.size() - offset &&
            std::memcmp(constants.data() + offset, resource.data.data(),
                        size) == 0) {
          blob.inConstants = true;
          blob.offset = offset;
          blob.size = size;
          break;
        }
      }
    }
    if (!blob.inConstants)
      blob.data.assign(resource.data.begin(), resource.data.end());
    package.referenceBlobs.push_back(std::move(blob));
  }
}

OwningOpRef<ModuleOp> parseReferenceModel(const rt::Package &package,
                                          llvm::SourceMgr &sourceMgr,
                                          MLIRContext &context) {
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(package.referenceIR, "reference"),
      llvm::SMLoc());
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

} // namespace dlc
