//===- Checked.h - Overflow-checked size arithmetic ---------------*- C++
//-*-===//
//
// Every size, offset, extent, element count, alignment rounding and grid
// product the runtime computes from a package or an input goes through
// these: an attacker who edits a package (and recomputes its checksum)
// chooses the operands, so unchecked 64-bit arithmetic there can wrap to a
// small number that passes a bounds check. A result that does not fit in 64
// bits is reported as such (std::nullopt, or a Checked that stays
// overflowed), never wrapped.
//
//===----------------------------------------------------------------------===//
#ifndef DLC_RUNTIME_CHECKED_H
#define DLC_RUNTIME_CHECKED_H

#include <cstdint>
#include <optional>
#include <vector>

namespace dlc::rt {

/// a + b, or nothing when the sum does not fit in 64 bits.
inline std::optional<uint64_t> checkedAdd(uint64_t a, uint64_t b) {
  uint64_t r;
  if (__builtin_add_overflow(a, b, &r))
    return std::nullopt;
  return r;
}

/// a * b, or nothing when the product does not fit in 64 bits.
inline std::optional<uint64_t> checkedMul(uint64_t a, uint64_t b) {
  uint64_t r;
  if (__builtin_mul_overflow(a, b, &r))
    return std::nullopt;
  return r;
}

/// `v` rounded up to a multiple of `alignment` (a power of two; 0 and 1
/// leave `v` as it is), or nothing when that does not fit in 64 bits.
inline std::optional<uint64_t> checkedAlignUp(uint64_t v, uint64_t alignment) {
  if (alignment <= 1)
    return v;
  std::optional<uint64_t> sum = checkedAdd(v, alignment - 1);
  if (!sum)
    return std::nullopt;
  return *sum & ~(alignment - 1);
}

/// A uint64_t that remembers overflow: once an operation overflows (or a
/// negative value enters through fromSigned), every result computed from
/// it is overflowed too, so a whole expression is checked once at its end:
///
///   Checked last = Checked(batch - 1) * stride + Checked(rows - 1) * ld;
///   if (!last.ok()) ...
class Checked {
public:
  constexpr Checked(uint64_t v = 0) : value_(v) {}
  /// `v` if it is non-negative; overflowed otherwise.
  static constexpr Checked fromSigned(int64_t v) {
    return v < 0 ? overflowed() : Checked(uint64_t(v));
  }
  static constexpr Checked overflowed() {
    Checked c;
    c.ok_ = false;
    return c;
  }

  bool ok() const { return ok_; }
  /// The value, or nothing after an overflow.
  std::optional<uint64_t> value() const {
    return ok_ ? std::optional<uint64_t>(value_) : std::nullopt;
  }
  /// The value, or `fallback` after an overflow.
  uint64_t valueOr(uint64_t fallback) const { return ok_ ? value_ : fallback; }

  friend Checked operator+(Checked a, Checked b) {
    if (!a.ok_ || !b.ok_)
      return overflowed();
    std::optional<uint64_t> r = checkedAdd(a.value_, b.value_);
    return r ? Checked(*r) : overflowed();
  }
  friend Checked operator*(Checked a, Checked b) {
    if (!a.ok_ || !b.ok_)
      return overflowed();
    std::optional<uint64_t> r = checkedMul(a.value_, b.value_);
    return r ? Checked(*r) : overflowed();
  }
  Checked &operator+=(Checked b) { return *this = *this + b; }
  Checked &operator*=(Checked b) { return *this = *this * b; }
  /// Whether the value is known and at most `limit`.
  bool fitsIn(uint64_t limit) const { return ok_ && value_ <= limit; }

private:
  uint64_t value_ = 0;
  bool ok_ = true;
};

/// The product of `dims`: overflowed when one is negative or the product
/// does not fit in 64 bits (a zero dimension makes it 0, whatever the
/// others are).
inline Checked checkedProduct(const std::vector<int64_t> &dims) {
  bool zero = false;
  for (int64_t d : dims) {
    if (d < 0)
      return Checked::overflowed();
    zero |= d == 0;
  }
  if (zero)
    return 0;
  Checked n = 1;
  for (int64_t d : dims)
    n *= uint64_t(d);
  return n;
}

} // namespace dlc::rt

#endif // DLC_RUNTIME_CHECKED_H
