//===- Npz.h - NumPy .npz archives ------------------------------*- C++ -*-===//
//
// numpy's .npz format: a zip archive of .npy members, one per named array,
// read and written through libzip (Debian's libzip-dev). Kept out of dlcrt
// (library dlcnpz) so that the runtime links nothing but the C++ standard
// library; `dlc train` saves and loads weights with it.
//
//===----------------------------------------------------------------------===//
#ifndef DLC_RUNTIME_NPZ_H
#define DLC_RUNTIME_NPZ_H

#include "runtime/Tensor.h"

#include <string>
#include <utility>
#include <vector>

namespace dlc::rt {

using NamedTensors = std::vector<std::pair<std::string, HostTensor>>;

/// Writes `tensors` as `path` (members NAME.npy, stored uncompressed as
/// numpy.savez does), atomically: the file is whole or not there.
Status writeNpz(const std::string &path, const NamedTensors &tensors);

/// Reads the .npz file `path`, an untrusted file: at most `maxFileBytes`
/// bytes and `maxMembers` members, each a .npy of at most `maxMemberBytes`
/// (its recorded size, which libzip holds the data to, CRC included),
/// names unique. Errors name the file and the member.
Result<NamedTensors> readNpz(const std::string &path, uint64_t maxFileBytes,
                             uint64_t maxMemberBytes,
                             uint64_t maxMembers = 65536);

} // namespace dlc::rt

#endif // DLC_RUNTIME_NPZ_H
