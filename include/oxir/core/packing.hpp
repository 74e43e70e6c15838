#pragma once
// Packing of sub-byte elements (4-bit and 2-bit types) as onnx.proto lays them out in raw_data:
// element i lives in byte i / (8/bits), at bit offset (i % (8/bits)) * bits, lowest bits first
// ("x0 | (x1 << 2) | (x2 << 4) | (x3 << 6)"; for 4-bit, element 0 in the low nibble). Bits past the
// last element are zero. The same bytes, one per int32 entry, form the int32_data representation.

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <span>

#include "oxir/core/dtype_traits.hpp"

namespace oxir {

/// Bytes needed for `count` elements of `bits` bits each (bits = 1, 2, 4 or 8), last byte padded.
[[nodiscard]] constexpr std::size_t packed_size(std::size_t count, int bits) noexcept {
  const auto per_byte = static_cast<std::size_t>(8 / bits);
  return count / per_byte + (count % per_byte != 0 ? 1 : 0);
}

/// The low `bits` bits of element `index` of a packed array. Requires bits in {1,2,4,8} and the
/// element to lie inside `bytes`.
[[nodiscard]] constexpr std::uint8_t get_packed(std::span<const std::byte> bytes, std::size_t index,
                                                int bits) noexcept {
  assert(bits == 1 || bits == 2 || bits == 4 || bits == 8);
  const auto per_byte = static_cast<std::size_t>(8 / bits);
  const auto shift = static_cast<unsigned>((index % per_byte) * static_cast<std::size_t>(bits));
  const unsigned mask = (1u << bits) - 1u;
  return static_cast<std::uint8_t>((std::to_integer<unsigned>(bytes[index / per_byte]) >> shift) & mask);
}

/// Stores the low `bits` bits of `value` as element `index`, leaving the other elements untouched.
constexpr void set_packed(std::span<std::byte> bytes, std::size_t index, int bits, std::uint8_t value) noexcept {
  assert(bits == 1 || bits == 2 || bits == 4 || bits == 8);
  const auto per_byte = static_cast<std::size_t>(8 / bits);
  const auto shift = static_cast<unsigned>((index % per_byte) * static_cast<std::size_t>(bits));
  const unsigned mask = ((1u << bits) - 1u) << shift;
  std::byte& b = bytes[index / per_byte];
  const unsigned old = std::to_integer<unsigned>(b);
  b = static_cast<std::byte>((old & ~mask) | ((static_cast<unsigned>(value) << shift) & mask));
}

/// Packs the low `bits` bits of each value into `out` (at least packed_size(values.size(), bits)
/// bytes); writes exactly that many bytes, padding bits zero. Returns the number of bytes written.
constexpr std::size_t pack_bits(std::span<const std::uint8_t> values, int bits, std::span<std::byte> out) noexcept {
  const std::size_t n = packed_size(values.size(), bits);
  assert(out.size() >= n);
  for (std::size_t i = 0; i < n; ++i) out[i] = std::byte{0};  // padding must be zero, so start clean
  for (std::size_t i = 0; i < values.size(); ++i) set_packed(out, i, bits, values[i]);
  return n;
}

/// Unpacks `out.size()` elements of `bits` bits from `bytes` (which must hold that many), each into
/// the low bits of a byte. Padding bits are ignored.
constexpr void unpack_bits(std::span<const std::byte> bytes, int bits, std::span<std::uint8_t> out) noexcept {
  assert(bytes.size() >= packed_size(out.size(), bits));
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = get_packed(bytes, i, bits);
}

/// Packs sub-byte values (int4, uint4, float4e2m1, int2, uint2) into raw_data layout; returns bytes written.
template <SubByteElementType T>
constexpr std::size_t pack(std::span<const T> values, std::span<std::byte> out) noexcept {
  constexpr int bits = bit_width(data_type_of<T>);
  const std::size_t n = packed_size(values.size(), bits);
  assert(out.size() >= n);
  for (std::size_t i = 0; i < n; ++i) out[i] = std::byte{0};
  for (std::size_t i = 0; i < values.size(); ++i) set_packed(out, i, bits, values[i].bits());
  return n;
}

/// Unpacks `out.size()` sub-byte values from raw_data layout `bytes`.
template <SubByteElementType T>
constexpr void unpack(std::span<const std::byte> bytes, std::span<T> out) noexcept {
  constexpr int bits = bit_width(data_type_of<T>);
  assert(bytes.size() >= packed_size(out.size(), bits));
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = T::from_bits(get_packed(bytes, i, bits));
}

}  // namespace oxir
