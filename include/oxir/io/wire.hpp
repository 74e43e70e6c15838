#pragma once
// Protocol buffers wire format primitives: varints, tags, length-delimited fields, bounds checks.
// Everything here is about bytes; message structure lives in decode.hpp / encode.hpp.

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>

#include "../core/error.hpp"

// Hot paths inline, error paths out of line (the decoder's inner loop is tag, varint, bytes).
#if defined(__GNUC__) || defined(__clang__)
#define OXIR_ALWAYS_INLINE [[gnu::always_inline]] inline
#define OXIR_NOINLINE [[gnu::noinline]]
#define OXIR_COLD [[gnu::noinline, gnu::cold]]
#else
#define OXIR_ALWAYS_INLINE inline
#define OXIR_NOINLINE
#define OXIR_COLD
#endif

namespace oxir::wire {

static_assert(std::endian::native == std::endian::little, "oxir's codec assumes a little-endian host");

/// The four wire types ONNX uses (groups, types 3 and 4, are rejected as invalid).
enum class WireType : std::uint8_t { varint = 0, fixed64 = 1, length_delimited = 2, fixed32 = 5 };

/// A field key: field number and wire type.
struct Tag {
  std::uint32_t field = 0;
  WireType type = WireType::varint;
};

/// Reads wire-format values from a byte range, checking every bound. Errors name `what` (a
/// short description), the caller adds the field path.
class Reader {
 public:
  Reader(const std::byte* begin, const std::byte* end) noexcept : p_(begin), end_(end) {}
  explicit Reader(std::span<const std::byte> s) noexcept : p_(s.data()), end_(s.data() + s.size()) {}

  [[nodiscard]] bool done() const noexcept { return p_ >= end_; }
  [[nodiscard]] const std::byte* position() const noexcept { return p_; }
  [[nodiscard]] std::size_t remaining() const noexcept { return static_cast<std::size_t>(end_ - p_); }

  /// A varint of at most 10 bytes; the 10th byte may only carry the top bit of a 64-bit value.
  [[nodiscard]] OXIR_ALWAYS_INLINE std::uint64_t varint() {
    // Fast paths: one or two bytes (tags, lengths and most values); the rest out of line.
    if (p_ < end_) [[likely]] {
      const auto b0 = std::to_integer<std::uint64_t>(p_[0]);
      if (b0 < 0x80) {
        ++p_;
        return b0;
      }
      if (end_ - p_ < 2) return varint_slow();
      const auto b1 = std::to_integer<std::uint64_t>(p_[1]);
      if (b1 < 0x80) {
        p_ += 2;
        return (b0 & 0x7F) | (b1 << 7);
      }
    }
    return varint_slow();
  }
  /// A field key; throws on field number 0 or an invalid wire type.
  [[nodiscard]] OXIR_ALWAYS_INLINE Tag tag() {
    if (p_ < end_) [[likely]] {
      const auto key = std::to_integer<unsigned>(*p_);
      // One-byte key (fields 1-15) with a valid wire type (0, 1, 2 or 5: mask 0b100111).
      if (key < 0x80 && key >= 8 && ((0x27U >> (key & 7)) & 1U) != 0) {
        ++p_;
        return {key >> 3, static_cast<WireType>(key & 7)};
      }
    }
    return tag_slow();
  }
  [[nodiscard]] std::uint32_t fixed32() {
    need(4);
    std::uint32_t v;
    std::memcpy(&v, p_, 4);
    p_ += 4;
    return v;
  }
  [[nodiscard]] std::uint64_t fixed64() {
    need(8);
    std::uint64_t v;
    std::memcpy(&v, p_, 8);
    p_ += 8;
    return v;
  }
  /// The payload of a length-delimited field (length prefix read and checked against the end).
  [[nodiscard]] OXIR_ALWAYS_INLINE std::span<const std::byte> bytes() {
    const auto n = varint();
    if (n > remaining()) [[unlikely]]
      past_end(n);
    std::span<const std::byte> s(p_, static_cast<std::size_t>(n));
    p_ += n;
    return s;
  }
  /// Skips a field's value of wire type `t`.
  void skip(WireType t) {
    switch (t) {
      case WireType::varint: (void)varint(); return;
      case WireType::fixed64: need(8); p_ += 8; return;
      case WireType::fixed32: need(4); p_ += 4; return;
      case WireType::length_delimited: (void)bytes(); return;
    }
  }

 private:
  void need(std::size_t n) const {
    if (remaining() < n) [[unlikely]]
      throw Error("truncated fixed-width value");
  }
  OXIR_COLD std::uint64_t varint_slow() {
    std::uint64_t v = 0;
    for (int i = 0; i < 10; ++i) {
      if (p_ >= end_) throw Error("truncated varint");
      const auto b = std::to_integer<std::uint64_t>(*p_++);
      if (i == 9 && b > 1) throw Error("varint longer than 64 bits");
      v |= (b & 0x7F) << (7 * i);
      if ((b & 0x80) == 0) return v;
    }
    throw Error("varint longer than 10 bytes");
  }
  OXIR_NOINLINE Tag tag_slow() {
    const auto key = varint();
    if (key > 0xFFFFFFFFULL) throw Error("field key out of range");
    const auto wt = static_cast<unsigned>(key & 7);
    const auto field = static_cast<std::uint32_t>(key >> 3);
    if (field == 0) throw Error("field number 0");
    if (wt != 0 && wt != 1 && wt != 2 && wt != 5)
      throw Error("field " + std::to_string(field) + ": invalid wire type " + std::to_string(wt));
    return {field, static_cast<WireType>(wt)};
  }
  [[noreturn]] OXIR_COLD void past_end(std::uint64_t n) const {
    throw Error("length " + std::to_string(n) + " runs past the end (" + std::to_string(remaining()) +
                " bytes left)");
  }
  const std::byte* p_;
  const std::byte* end_;
};

/// Bytes a varint encoding of `v` takes.
[[nodiscard]] constexpr std::size_t varint_size(std::uint64_t v) noexcept {
  if (v < 0x80) return 1;  // most lengths and values: no bit scan, no division
  return static_cast<std::size_t>((std::bit_width(v) + 6) / 7);
}
/// Bytes a field key takes.
[[nodiscard]] constexpr std::size_t tag_size(std::uint32_t field) noexcept {
  return varint_size(static_cast<std::uint64_t>(field) << 3);
}

/// Appends wire-format values to a preallocated byte array (the caller computed the size).
class Writer {
 public:
  explicit Writer(std::byte* out) noexcept : p_(out) {}
  [[nodiscard]] std::byte* position() const noexcept { return p_; }

  // (Stores go through a local copy of p_: a std::byte store may alias p_ itself.)
  OXIR_ALWAYS_INLINE void varint(std::uint64_t v) noexcept {
    std::byte* const p = p_;
    if (v < 0x80) {
      p[0] = static_cast<std::byte>(v);
      p_ = p + 1;
      return;
    }
    if (v < 0x4000) {
      p[0] = static_cast<std::byte>(v | 0x80);
      p[1] = static_cast<std::byte>(v >> 7);
      p_ = p + 2;
      return;
    }
    varint_long(v);
  }
  OXIR_ALWAYS_INLINE void tag(std::uint32_t field, WireType t) noexcept {
    varint((static_cast<std::uint64_t>(field) << 3) | static_cast<unsigned>(t));
  }
  void fixed32(std::uint32_t v) noexcept {
    std::memcpy(p_, &v, 4);
    p_ += 4;
  }
  void fixed64(std::uint64_t v) noexcept {
    std::memcpy(p_, &v, 8);
    p_ += 8;
  }
  OXIR_ALWAYS_INLINE void raw(std::span<const std::byte> b) noexcept {
    std::byte* const p = p_;
    if (!b.empty()) std::memcpy(p, b.data(), b.size());
    p_ = p + b.size();
  }
  void raw(std::string_view s) noexcept { raw(std::as_bytes(std::span<const char>(s.data(), s.size()))); }

 private:
  OXIR_NOINLINE void varint_long(std::uint64_t v) noexcept {
    std::byte* p = p_;
    while (v >= 0x80) {
      *p++ = static_cast<std::byte>(v | 0x80);
      v >>= 7;
    }
    *p++ = static_cast<std::byte>(v);
    p_ = p;
  }
  std::byte* p_;
};

}  // namespace oxir::wire
