//===- Status.h - Error handling of the dlc runtime ---------------*- C++
//-*-===//
//
// The runtime does not link LLVM, so it carries its own small error types: a
// Status is ok or an error message; Result<T> is a value or an error.
//
//===----------------------------------------------------------------------===//
#ifndef DLC_RUNTIME_STATUS_H
#define DLC_RUNTIME_STATUS_H

#include <cassert>
#include <optional>
#include <string>
#include <utility>

namespace dlc::rt {

/// Ok, or a plain-language error message.
class [[nodiscard]] Status {
public:
  Status() = default;
  static Status ok() { return Status(); }
  static Status error(std::string message) {
    Status s;
    s.message_ = std::move(message);
    s.failed_ = true;
    return s;
  }
  bool isOk() const { return !failed_; }
  explicit operator bool() const { return !failed_; }
  const std::string &message() const { return message_; }

private:
  std::string message_;
  bool failed_ = false;
};

/// A value or an error.
template <typename T> class [[nodiscard]] Result {
public:
  Result(T value) : value_(std::move(value)) {}
  Result(Status status) : status_(std::move(status)) {
    assert(!status_.isOk() && "Result built from an ok status");
  }
  bool isOk() const { return value_.has_value(); }
  explicit operator bool() const { return isOk(); }
  const Status &status() const { return status_; }
  const std::string &message() const { return status_.message(); }
  T &operator*() { return *value_; }
  const T &operator*() const { return *value_; }
  T *operator->() { return &*value_; }
  const T *operator->() const { return &*value_; }
  T take() { return std::move(*value_); }

private:
  std::optional<T> value_;
  Status status_;
};

} // namespace dlc::rt

#define DLC_RT_RETURN_IF_ERROR(expr)                                           \
  do {                                                                         \
    ::dlc::rt::Status _dlc_status = (expr);                                    \
    if (!_dlc_status.isOk())                                                   \
      return _dlc_status;                                                      \
  } while (0)

#endif // DLC_RUNTIME_STATUS_H
