//===- FuzzPackage.cpp - libFuzzer target: reading .dlcpkg bytes ----------===//
//
// Input: the bytes of a .dlcpkg file. Runs what the runtime runs on a package
// before it touches a device: rt::deserializePackage, then
// rt::validatePackage. Beyond crashes and sanitizer reports (including
// allocations sized by corrupt length fields) it checks that a package that
// deserializes serializes to bytes that deserialize to the same package, and
// that validation does not depend on that round trip.
//
//===----------------------------------------------------------------------===//

#include "runtime/Package.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

[[noreturn]] void fail(const char *what) {
  std::fprintf(stderr, "dlc fuzz invariant broken: %s\n", what);
  std::abort();
}

} // namespace

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
    fail("a package that deserialized does not deserialize after serializing");
  if (dlc::rt::serializePackage(*back) != again)
    fail("a package changes in a serialization round trip");
  if (dlc::rt::validatePackage(*back).isOk() != valid)
    fail("validation changes in a serialization round trip");
  return 0;
}
