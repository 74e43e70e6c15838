// Tests of sub-byte packing (raw_data and int32_data layouts of 4-bit and 2-bit tensors).
#include <doctest/doctest.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "oxir/core/packing.hpp"

namespace oxir_unit_test_packing {

namespace {

constexpr std::uint8_t first_nibble() {
  std::array<std::byte, 2> b{};
  oxir::set_packed(b, 0, 4, 0x3);
  oxir::set_packed(b, 1, 4, 0xA);
  oxir::set_packed(b, 2, 4, 0x5);
  return static_cast<std::uint8_t>(std::to_integer<unsigned>(b[0]) == 0xA3 && std::to_integer<unsigned>(b[1]) == 0x05
                                       ? oxir::get_packed(b, 1, 4)
                                       : 0xFF);
}
static_assert(first_nibble() == 0xA);
static_assert(oxir::packed_size(5, 4) == 3 && oxir::packed_size(5, 2) == 2 && oxir::packed_size(0, 4) == 0);
static_assert(oxir::packed_size(8, 2) == 2 && oxir::packed_size(3, 8) == 3);

/// A deterministic pseudo-random sequence of `bits`-bit values.
std::vector<std::uint8_t> values(std::size_t n, int bits) {
  std::vector<std::uint8_t> v(n);
  std::uint32_t s = 12345;
  for (auto& x : v) {
    s = s * 1103515245u + 12345u;
    x = static_cast<std::uint8_t>((s >> 16) & ((1u << bits) - 1));
  }
  return v;
}

}  // namespace

TEST_CASE("int4: packing follows onnx.proto (element 0 in the low nibble)") {
  const std::vector<std::uint8_t> v{0x1, 0x2, 0x3, 0xF, 0x7};
  std::array<std::byte, 3> out{std::byte{0xEE}, std::byte{0xEE}, std::byte{0xEE}};
  CHECK(oxir::pack_bits(v, 4, out) == 3);
  CHECK(std::to_integer<unsigned>(out[0]) == 0x21);
  CHECK(std::to_integer<unsigned>(out[1]) == 0xF3);
  CHECK(std::to_integer<unsigned>(out[2]) == 0x07);  // padding nibble is zero
  for (std::size_t i = 0; i < v.size(); ++i) CHECK(oxir::get_packed(out, i, 4) == v[i]);
}

TEST_CASE("int2: packing follows onnx.proto (x0 | x1<<2 | x2<<4 | x3<<6)") {
  const std::vector<std::uint8_t> v{0x1, 0x2, 0x3, 0x0, 0x3, 0x1};
  std::array<std::byte, 2> out{std::byte{0xFF}, std::byte{0xFF}};
  CHECK(oxir::pack_bits(v, 2, out) == 2);
  CHECK(std::to_integer<unsigned>(out[0]) == (1u | 2u << 2 | 3u << 4 | 0u << 6));
  CHECK(std::to_integer<unsigned>(out[1]) == (3u | 1u << 2));  // the two spare bit pairs are zero
}

TEST_CASE("uint4: pack/unpack round-trips odd counts with zero padding") {
  for (const int bits : {4, 2}) {
    for (std::size_t n = 0; n <= 37; ++n) {
      CAPTURE(bits);
      CAPTURE(n);
      const auto v = values(n, bits);
      std::vector<std::byte> raw(oxir::packed_size(n, bits) + 2, std::byte{0xAB});
      const std::size_t written = oxir::pack_bits(v, bits, raw);
      CHECK(written == oxir::packed_size(n, bits));
      CHECK(std::to_integer<unsigned>(raw[written]) == 0xAB);  // nothing written past the end
      // padding: the bits after the last element are zero
      const std::size_t per_byte = static_cast<std::size_t>(8 / bits);
      if (n % per_byte != 0) {
        const unsigned used = static_cast<unsigned>((n % per_byte) * static_cast<std::size_t>(bits));
        CHECK((std::to_integer<unsigned>(raw[written - 1]) >> used) == 0);
      }
      std::vector<std::uint8_t> back(n, 0xFF);
      oxir::unpack_bits(std::span<const std::byte>(raw.data(), written), bits, back);
      CHECK(back == v);

      // int32_data form: one packed byte per int32 entry; readers keep the low 8 bits.
      std::vector<std::int32_t> int32_data;
      for (std::size_t i = 0; i < written; ++i) int32_data.push_back(std::to_integer<std::int32_t>(raw[i]));
      CHECK(int32_data.size() == (n + per_byte - 1) / per_byte);  // ceil(n/2) or ceil(n/4) entries
      std::vector<std::byte> from_int32;
      for (const std::int32_t i : int32_data) from_int32.push_back(static_cast<std::byte>(i & 0xFF));
      std::vector<std::uint8_t> back32(n);
      oxir::unpack_bits(from_int32, bits, back32);
      CHECK(back32 == v);
    }
  }
}

TEST_CASE("int4: set_packed leaves neighbours alone and drops high bits of the value") {
  std::array<std::byte, 2> b{std::byte{0xFF}, std::byte{0xFF}};
  oxir::set_packed(b, 1, 4, 0x30);  // only the low nibble (0) is stored
  CHECK(std::to_integer<unsigned>(b[0]) == 0x0F);
  oxir::set_packed(b, 5, 2, 0x1);  // 2-bit element 5: byte 1, bits 2..3
  CHECK(std::to_integer<unsigned>(b[1]) == 0xF7);
  CHECK(oxir::get_packed(b, 5, 2) == 0x1);
  CHECK(oxir::get_packed(b, 7, 2) == 0x3);
  CHECK(oxir::get_packed(b, 1, 8) == 0xF7);
  CHECK(oxir::get_packed(b, 0, 4) == 0xF);
  CHECK(oxir::get_packed(b, 1, 4) == 0x0);
}

TEST_CASE("int4: typed pack/unpack of value types") {
  const std::vector<oxir::int4> v{oxir::int4(-8), oxir::int4(7), oxir::int4(-1)};
  std::array<std::byte, 2> raw{};
  CHECK(oxir::pack(std::span<const oxir::int4>(v), std::span<std::byte>(raw)) == 2);
  CHECK(std::to_integer<unsigned>(raw[0]) == 0x78);
  CHECK(std::to_integer<unsigned>(raw[1]) == 0x0F);
  std::vector<oxir::int4> back(3);
  oxir::unpack(std::span<const std::byte>(raw), std::span<oxir::int4>(back));
  CHECK(back == v);
}

TEST_CASE("float4e2m1: typed pack/unpack of value types") {
  std::vector<oxir::float4e2m1> v;
  for (unsigned b = 0; b < 16; ++b) v.push_back(oxir::float4e2m1::from_bits(static_cast<std::uint8_t>(b)));
  v.push_back(oxir::float4e2m1(6.0f));
  std::vector<std::byte> raw(oxir::packed_size(v.size(), 4));
  CHECK(oxir::pack(std::span<const oxir::float4e2m1>(v), std::span<std::byte>(raw)) == 9);
  CHECK(std::to_integer<unsigned>(raw[0]) == 0x10);
  CHECK(std::to_integer<unsigned>(raw[8]) == 0x07);
  std::vector<oxir::float4e2m1> back(v.size());
  oxir::unpack(std::span<const std::byte>(raw), std::span<oxir::float4e2m1>(back));
  for (std::size_t i = 0; i < v.size(); ++i) CHECK(back[i].bits() == v[i].bits());
}

TEST_CASE("uint2: typed pack/unpack of value types") {
  const std::vector<oxir::uint2> v{oxir::uint2(3), oxir::uint2(0), oxir::uint2(1), oxir::uint2(2), oxir::uint2(3)};
  std::array<std::byte, 2> raw{};
  CHECK(oxir::pack(std::span<const oxir::uint2>(v), std::span<std::byte>(raw)) == 2);
  CHECK(std::to_integer<unsigned>(raw[0]) == (3u | 0u << 2 | 1u << 4 | 2u << 6));
  CHECK(std::to_integer<unsigned>(raw[1]) == 3u);
  std::vector<oxir::uint2> back(v.size());
  oxir::unpack(std::span<const std::byte>(raw), std::span<oxir::uint2>(back));
  CHECK(back == v);
  std::vector<oxir::int2> signed_back(v.size());
  oxir::unpack(std::span<const std::byte>(raw), std::span<oxir::int2>(signed_back));
  CHECK(static_cast<int>(signed_back[0]) == -1);
  CHECK(static_cast<int>(signed_back[3]) == -2);
}

}  // namespace oxir_unit_test_packing
