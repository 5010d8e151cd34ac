//===- PackageCache.h - Compiled packages cached by model and options -*- C++
//-*-===//
//
// The compile cache of `dlc compile` and of CompileOptions::packageCache:
// a package is reused when the model file, its name, the options, the DLC_*
// environment, the compiler binary and the files the compile read besides
// the model (an ONNX model's external data) are the same. Entries live in
// kernelCacheDir()/packages. See PackageCache.cpp for the key.
//
//===----------------------------------------------------------------------===//
#ifndef DLC_API_PACKAGECACHE_H
#define DLC_API_PACKAGECACHE_H

#include "dlc/dlc.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>
#include <optional>
#include <string>

namespace dlc {

/// The cache key (32 hex digits) of compiling `model` (the MLIR text) named
/// `name` with `options`; none when the compiler's own file cannot be
/// identified (then nothing is cached).
std::optional<std::string> packageCacheKey(llvm::StringRef model,
                                           llvm::StringRef name,
                                           const CompileOptions &options);

struct CachedPackage {
  rt::Package package;
  /// The entry's file, mapped: the serialized package, to copy as is.
  std::unique_ptr<llvm::MemoryBuffer> bytes;
  /// Where the entry is (its bytes may be copied from there instead).
  std::string path;
};

/// The cached package of `key`, if there is an intact one. A damaged entry
/// is removed and counted. `modelPath` is the model file's path: the files
/// the entry's record lists (external data) are read as the importer reads
/// them, real paths inside the model's folder and regular files only, and
/// one that the import would refuse now is a miss (the compile then gives
/// the import's error).
std::optional<CachedPackage>
lookupCachedPackage(const std::string &key, const std::string &modelPath = "");

/// Stores a serialized package as the entry of `key` (best effort: a cache
/// that cannot be written is skipped silently), then trims the cache to its
/// limit. `dependencies` are the files the compile read besides the model
/// (an ONNX model's external data): a later lookup is a hit only while each
/// still has the same contents (read as lookupCachedPackage reads them,
/// inside the folder of `modelPath`).
void storeCachedPackage(const std::string &key,
                        const std::vector<uint8_t> &bytes,
                        const std::vector<std::string> &dependencies = {},
                        const std::string &modelPath = "");

} // namespace dlc

#endif // DLC_API_PACKAGECACHE_H
