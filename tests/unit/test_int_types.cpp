// Tests of the sub-byte integer types against the ONNX test vectors (tests/data/dtypes).
#include <doctest/doctest.h>

#include "dtype_csv.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "oxir/core/int_types.hpp"

namespace oxir_unit_test_int_types {

namespace {

using oxir::int2;
using oxir::int4;
using oxir::uint2;
using oxir::uint4;

// ---- compile-time checks ----
static_assert(static_cast<int>(int4::from_bits(0xF)) == -1);
static_assert(static_cast<int>(int4::from_bits(0x8)) == -8);
static_assert(static_cast<int>(uint4::from_bits(0xF)) == 15);
static_assert(static_cast<int>(int2::from_bits(0x2)) == -2);
static_assert(int4::from_float(2.5f).bits() == 0x2);  // ties to even
static_assert(int4::from_float(-2.5f).bits() == 0xE);
static_assert(int4::from_float(9.0f).bits() == 0x9);  // wraps: -7
static_assert(int4(-1).bits() == 0xF && uint2(7).bits() == 0x3);
static_assert(-int4(-8) == int4(-8));  // negation wraps
static_assert(std::numeric_limits<int4>::min() == int4(-8));
static_assert(std::is_trivial_v<int4> && std::is_standard_layout_v<uint4>);
static_assert(!std::is_convertible_v<int, int4>);

using oxir_test::Csv;
using oxir_test::hex;
Csv read_csv(const std::string& name) { return oxir_test::read_dtype_csv(name); }

template <class T>
constexpr int width = std::numeric_limits<T>::digits + (std::numeric_limits<T>::is_signed ? 1 : 0);

/// Every pattern decodes to the CSV's integer and float32 value.
template <class T>
void check_decode_csv(const std::string& file) {
  const Csv csv = read_csv(file);
  REQUIRE(csv.rows.size() == (std::size_t{1} << width<T>));
  const auto cb = csv.col("bits"), cf = csv.col("float32_hex"), ci = csv.col("int_value");
  for (const auto& row : csv.rows) {
    const auto v = T::from_bits(static_cast<std::uint8_t>(hex(row[cb])));
    CAPTURE(row[cb]);
    CHECK(static_cast<int>(v) == std::stoi(row[ci]));
    CHECK(std::bit_cast<std::uint32_t>(static_cast<float>(static_cast<int>(v))) == hex(row[cf]));
  }
}

/// Every defined encode row (RNE then wrap), from float and from double.
template <class T>
void check_encode_csv(const std::string& file) {
  const Csv csv = read_csv(file);
  const auto ci = csv.col("input_float32_hex"), ce = csv.col("expected_bits"), cm = csv.col("match");
  int checked = 0;
  for (const auto& row : csv.rows) {
    if (row[cm] == "undefined") continue;
    REQUIRE(row[cm] == "exact");
    const float x = std::bit_cast<float>(hex(row[ci]));
    CAPTURE(row[ci]);
    for (const bool sat : {true, false}) {
      CHECK(T::from_float(x, sat).bits() == hex(row[ce]));
      CHECK(T::from_double(static_cast<double>(x), sat).bits() == hex(row[ce]));
    }
    CHECK(T(x).bits() == hex(row[ce]));
    ++checked;
  }
  CHECK(checked > 150);
}

/// Round trip through int and float, monotonicity inside the range, and the wrap of integers.
template <class T>
void check_values() {
  using L = std::numeric_limits<T>;
  const int lo = static_cast<int>(L::lowest()), hi = static_cast<int>(L::max());
  CHECK(hi - lo + 1 == (1 << width<T>));
  for (unsigned b = 0; b < (1u << width<T>); ++b) {
    const auto v = T::from_bits(static_cast<std::uint8_t>(b));
    const int i = static_cast<int>(v);
    CAPTURE(b);
    CHECK(i >= lo);
    CHECK(i <= hi);
    CHECK(T(i) == v);
    CHECK(T::from_float(static_cast<float>(i)) == v);
    CHECK(T::from_double(static_cast<double>(i) + 0.25) == v);
    CHECK(T(i + (1 << width<T>)) == v);   // integers wrap mod 2^N
    CHECK(T(static_cast<long long>(i) - (1LL << 40)) == v);
  }
  int prev = lo;
  for (double x = lo - 0.5 + 1.0 / 64; x < hi + 0.5; x += 1.0 / 64) {  // the ties at the ends may wrap
    const int cur = static_cast<int>(T::from_double(x));
    CHECK(cur >= prev);
    prev = cur;
  }
  // NaN and Inf are undefined in the spec; oxir gives 0.
  CHECK(T::from_float(std::numeric_limits<float>::quiet_NaN()).bits() == 0);
  CHECK(T::from_float(std::numeric_limits<float>::infinity()).bits() == 0);
  CHECK(T::from_float(-std::numeric_limits<float>::infinity()).bits() == 0);
  CHECK(T::from_double(1e300).bits() == 0);  // a huge integer is 0 mod 2^N
  CHECK(T::from_double(0x1p52 + 3).bits() == (3 & T::mask));
  CHECK(T::from_double(-(0x1p53 + 2)).bits() == ((0u - 2u) & T::mask));
}

}  // namespace

TEST_CASE("int4: decode matches CSV") { check_decode_csv<int4>("int4.decode.csv"); }
TEST_CASE("uint4: decode matches CSV") { check_decode_csv<uint4>("uint4.decode.csv"); }
TEST_CASE("int2: decode matches CSV") { check_decode_csv<int2>("int2.decode.csv"); }
TEST_CASE("uint2: decode matches CSV") { check_decode_csv<uint2>("uint2.decode.csv"); }

TEST_CASE("int4: encode matches CSV") { check_encode_csv<int4>("int4.encode.csv"); }
TEST_CASE("uint4: encode matches CSV") { check_encode_csv<uint4>("uint4.encode.csv"); }
TEST_CASE("int2: encode matches CSV") { check_encode_csv<int2>("int2.encode.csv"); }
TEST_CASE("uint2: encode matches CSV") { check_encode_csv<uint2>("uint2.encode.csv"); }

TEST_CASE("int4: values, round trip, wrap, monotonicity") { check_values<int4>(); }
TEST_CASE("uint4: values, round trip, wrap, monotonicity") { check_values<uint4>(); }
TEST_CASE("int2: values, round trip, wrap, monotonicity") { check_values<int2>(); }
TEST_CASE("uint2: values, round trip, wrap, monotonicity") { check_values<uint2>(); }

TEST_CASE("int4: rounding examples from the README (ties to even, then wrap)") {
  CHECK(static_cast<int>(int4(1.5f)) == 2);
  CHECK(static_cast<int>(int4(3.5f)) == 4);
  CHECK(static_cast<int>(int4(-2.5f)) == -2);
  CHECK(static_cast<int>(int4(9.0f)) == -7);
  CHECK(static_cast<int>(int4(0.49999997f)) == 0);
  CHECK(static_cast<int>(int4(-0.5f)) == 0);
  CHECK(static_cast<int>(int4(-0.5000001f)) == -1);
  CHECK(static_cast<int>(uint4(-1.0f)) == 15);
}

TEST_CASE("int4: comparisons, negation, printing") {
  CHECK(int4(-8) < int4(7));
  CHECK(uint4(0) < uint4(15));
  CHECK(int4(3) == int4::from_bits(0x3));
  CHECK(int4(3) != int4(-3));
  CHECK((int4(-1) <=> int4(0)) == std::strong_ordering::less);
  CHECK(-int4(3) == int4(-3));
  CHECK(-int2(-2) == int2(-2));
  CHECK(+uint2(2) == uint2(2));
  CHECK(int4::from_bits(0xFF).bits() == 0xF);  // bits above the type are dropped
  std::ostringstream os;
  os << int4(-3) << ' ' << uint4(12) << ' ' << int2(1) << ' ' << uint2(3);
  CHECK(os.str() == "-3 12 1 3");
}

TEST_CASE("int4: numeric_limits") {
  using L = std::numeric_limits<int4>;
  static_assert(L::is_specialized && L::is_integer && L::is_exact && L::is_signed && L::digits == 3);
  static_assert(!L::has_infinity && !L::has_quiet_NaN);
  CHECK(static_cast<int>(L::min()) == -8);
  CHECK(static_cast<int>(L::lowest()) == -8);
  CHECK(static_cast<int>(L::max()) == 7);
  using U = std::numeric_limits<uint4>;
  static_assert(!U::is_signed && U::digits == 4 && U::digits10 == 1);
  CHECK(static_cast<int>(U::min()) == 0);
  CHECK(static_cast<int>(U::max()) == 15);
  static_assert(std::numeric_limits<int2>::digits == 1 && std::numeric_limits<uint2>::digits == 2);
  CHECK(static_cast<int>(std::numeric_limits<int2>::min()) == -2);
  CHECK(static_cast<int>(std::numeric_limits<int2>::max()) == 1);
  CHECK(static_cast<int>(std::numeric_limits<uint2>::max()) == 3);
}

}  // namespace oxir_unit_test_int_types
