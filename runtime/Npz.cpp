//===- Npz.cpp - NumPy .npz archives through libzip -----------------------===//
#include "runtime/Npz.h"
#include "runtime/SafeFile.h"
#include "runtime/Support.h"

#include <zip.h>

#include <memory>
#include <set>

namespace dlc::rt {

namespace {

/// libzip's message for `error`.
std::string zipMessage(zip_error_t *error) {
  const char *s = zip_error_strerror(error);
  return s ? s : "unknown libzip error";
}

struct ArchiveCloser {
  void operator()(zip_t *z) const { zip_discard(z); }
};
using Archive = std::unique_ptr<zip_t, ArchiveCloser>;

} // namespace

Status writeNpz(const std::string &path, const NamedTensors &tensors) {
  std::set<std::string> names;
  std::vector<std::vector<uint8_t>> members;
  for (const auto &[name, tensor] : tensors) {
    if (name.empty() || !names.insert(name).second)
      return Status::error(path +
                           ": array names must be distinct and "
                           "non-empty ('" +
                           name + "')");
    Result<std::vector<uint8_t>> bytes = encodeNpy(tensor, path + ":" + name);
    if (!bytes)
      return bytes.status();
    members.push_back(bytes.take());
  }
  // The archive is built in memory, then written atomically.
  zip_error_t error;
  zip_error_init(&error);
  zip_source_t *buffer = zip_source_buffer_create(nullptr, 0, 0, &error);
  if (!buffer)
    return Status::error(path + ": " + zipMessage(&error));
  zip_source_keep(buffer); // read back after zip_close
  std::unique_ptr<zip_source_t, decltype(&zip_source_free)> keep(
      buffer, zip_source_free);
  Archive archive(zip_open_from_source(buffer, ZIP_TRUNCATE, &error));
  if (!archive)
    return Status::error(path + ": " + zipMessage(&error));
  for (size_t i = 0; i < members.size(); ++i) {
    zip_source_t *member = zip_source_buffer(archive.get(), members[i].data(),
                                             members[i].size(), 0);
    std::string entry = tensors[i].first + ".npy";
    if (!member)
      return Status::error(path + ": " +
                           zipMessage(zip_get_error(archive.get())));
    zip_int64_t index =
        zip_file_add(archive.get(), entry.c_str(), member, ZIP_FL_ENC_UTF_8);
    if (index < 0) {
      zip_source_free(member);
      return Status::error(path + ": " +
                           zipMessage(zip_get_error(archive.get())));
    }
    zip_set_file_compression(archive.get(), zip_uint64_t(index), ZIP_CM_STORE,
                             0);
  }
  if (zip_close(archive.get()) != 0)
    return Status::error(path + ": " +
                         zipMessage(zip_get_error(archive.get())));
  archive.release(); // closed
  zip_stat_t stat;
  if (zip_source_stat(buffer, &stat) != 0 || zip_source_open(buffer) != 0)
    return Status::error(path + ": " + zipMessage(zip_source_error(buffer)));
  std::vector<uint8_t> bytes(size_t(stat.size));
  zip_int64_t got = zip_source_read(buffer, bytes.data(), bytes.size());
  zip_source_close(buffer);
  if (got < 0 || zip_uint64_t(got) != stat.size)
    return Status::error(path + ": cannot read the archive back");
  return writeFileAtomic(path, bytes.data(), bytes.size());
}

Result<NamedTensors> readNpz(const std::string &path, uint64_t maxFileBytes,
                             uint64_t maxMemberBytes, uint64_t maxMembers) {
  Result<std::vector<uint8_t>> file =
      readRegularFile(path, "the .npz archive", maxFileBytes);
  if (!file)
    return file.status();
  zip_error_t error;
  zip_error_init(&error);
  zip_source_t *source =
      zip_source_buffer_create(file->data(), file->size(), 0, &error);
  if (!source)
    return Status::error(path + ": " + zipMessage(&error));
  Archive archive(
      zip_open_from_source(source, ZIP_RDONLY | ZIP_CHECKCONS, &error));
  if (!archive) {
    zip_source_free(source);
    return Status::error(
        path + ": not a readable .npz (zip) archive: " + zipMessage(&error));
  }
  zip_int64_t count = zip_get_num_entries(archive.get(), 0);
  if (count < 0 || uint64_t(count) > maxMembers)
    return Status::error(path + ": " + std::to_string(count) +
                         " members, more than the " +
                         std::to_string(maxMembers) + " expected");
  NamedTensors out;
  std::set<std::string> names;
  for (zip_int64_t i = 0; i < count; ++i) {
    zip_stat_t stat;
    zip_stat_init(&stat);
    if (zip_stat_index(archive.get(), zip_uint64_t(i), 0, &stat) != 0 ||
        !(stat.valid & ZIP_STAT_NAME) || !(stat.valid & ZIP_STAT_SIZE))
      return Status::error(
          path + ": member " + std::to_string(i) +
          " cannot be read: " + zipMessage(zip_get_error(archive.get())));
    std::string name = stat.name;
    const std::string suffix = ".npy";
    if (name.size() <= suffix.size() ||
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
      return Status::error(path + ": member '" + name +
                           "' is not a .npy array");
    name.resize(name.size() - suffix.size());
    if (!names.insert(name).second)
      return Status::error(path + ": array '" + name + "' appears twice");
    if (stat.size > maxMemberBytes)
      return Status::error(path + ": array '" + name + "' holds " +
                           std::to_string(stat.size) + " bytes, more than " +
                           std::to_string(maxMemberBytes));
    std::unique_ptr<zip_file_t, decltype(&zip_fclose)> member(
        zip_fopen_index(archive.get(), zip_uint64_t(i), 0), zip_fclose);
    if (!member)
      return Status::error(path + ": array '" + name +
                           "': " + zipMessage(zip_get_error(archive.get())));
    // One byte more than recorded: a member longer than its record is an
    // error, not a silent truncation (libzip checks the CRC at the end).
    std::vector<uint8_t> bytes(size_t(stat.size) + 1);
    zip_int64_t got = zip_fread(member.get(), bytes.data(), bytes.size());
    if (got < 0 || zip_uint64_t(got) != stat.size)
      return Status::error(path + ": array '" + name + "' is corrupt: " +
                           zipMessage(zip_file_get_error(member.get())));
    Result<HostTensor> tensor =
        parseNpy(bytes.data(), stat.size, path + ": array '" + name + "'");
    if (!tensor)
      return tensor.status();
    out.push_back({name, tensor.take()});
  }
  return out;
}

} // namespace dlc::rt
