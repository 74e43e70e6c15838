// Tests of the exact narrow floating-point types against the ONNX test vectors (tests/data/dtypes)
// and against independent computations.
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

#include "oxir/core/float_types.hpp"

namespace oxir_unit_test_float_types {

namespace {

using oxir::bfloat16;
using oxir::float16;
using oxir::float4e2m1;
using oxir::float8e4m3fn;
using oxir::float8e4m3fnuz;
using oxir::float8e5m2;
using oxir::float8e5m2fnuz;
using oxir::float8e8m0;
using Kind = oxir::detail::float_kind;

// ---- compile-time checks: everything is usable in constant expressions ----
static_assert(float8e4m3fn::from_float(448.0f).bits() == 0x7E);
static_assert(float8e4m3fn::from_float(464.0f, false).bits() == 0x7E);  // tie at the overflow edge -> even
static_assert(float8e4m3fn::from_float(464.1f, false).bits() == 0x7F);  // beyond it: NaN
static_assert(float8e5m2::from_float(61440.0f, false).bits() == 0x7C);  // tie rounds up to Inf (0x7B is odd)
static_assert(float8e5m2::from_float(61440.0f, true).bits() == 0x7B);
static_assert(float8e4m3fnuz::from_float(-1e-7f).bits() == 0x00);       // FNUZ underflow has no sign
static_assert(float8e5m2fnuz::from_float(std::numeric_limits<float>::infinity(), false).bits() == 0x80);
static_assert(static_cast<float>(float16::from_bits(0x3C00)) == 1.0f);
static_assert(static_cast<float>(bfloat16::from_bits(0x0001)) == 0x1p-133f);
static_assert(float16::from_float(65520.0f).bits() == 0x7C00);          // float16 ignores saturate
static_assert(float16(1.0f) == float16(1));
static_assert(float4e2m1::from_float(5.0f).bits() == 0x6);              // tie 4|6 -> 4 (even)
static_assert(float4e2m1::from_float(std::numeric_limits<float>::quiet_NaN()).bits() == 0x7);
static_assert(static_cast<float>(float8e8m0::from_bits(0x00)) == 0x1p-127f);
static_assert(float8e8m0::from_float(3.0f).bits() == 0x81);             // default round mode is up
static_assert(float8e8m0::from_float(3.0f, true, float8e8m0::RoundMode::down).bits() == 0x80);
static_assert(-float8e4m3fnuz::from_bits(0x00) == float8e4m3fnuz::from_bits(0x00));
static_assert(float16::from_bits(0x8000) == float16::from_bits(0x0000));  // -0 == +0
static_assert(std::numeric_limits<float8e4m3fn>::max().bits() == 0x7E);
static_assert(std::is_trivial_v<float16> && std::is_standard_layout_v<float8e5m2fnuz>);
static_assert(!std::is_convertible_v<float, float16>);  // explicit: conversions round

// ---- test vector files ----

using oxir_test::Csv;
using oxir_test::hex;
Csv read_csv(const std::string& name) { return oxir_test::read_dtype_csv(name); }
float f32(std::uint32_t u) { return std::bit_cast<float>(u); }
std::uint32_t u32(float f) { return std::bit_cast<std::uint32_t>(f); }

template <class T>
constexpr int width = T::format::total_bits;
template <>
constexpr int width<float8e8m0> = 8;

// ---- (a) decode: every bit pattern ----

/// Every encoding decodes to the CSV's float32 (bit-exact; NaN by isnan, plus sign where the format has one).
template <class T>
void check_decode_csv(const std::string& file, bool nan_has_sign) {
  const Csv csv = read_csv(file);
  REQUIRE(csv.rows.size() == (std::size_t{1} << width<T>));
  const auto cb = csv.col("bits"), cf = csv.col("float32_hex"), cc = csv.col("class");
  for (const auto& row : csv.rows) {
    const auto v = T::from_bits(static_cast<typename T::bits_type>(hex(row[cb])));
    const float f = static_cast<float>(v);
    const std::uint32_t want = hex(row[cf]);
    CAPTURE(row[cb]);
    CHECK(v.bits() == hex(row[cb]));
    if (row[cc] == "nan") {
      CHECK(std::isnan(f));
      CHECK(v.is_nan());
      if (nan_has_sign) CHECK(std::signbit(f) == std::signbit(f32(want)));
    } else {
      CHECK(u32(f) == want);
      CHECK(!v.is_nan());
      CHECK(v.is_inf() == (row[cc] == "inf"));
      CHECK(static_cast<double>(v) == static_cast<double>(f32(want)));
    }
  }
}

/// Value of a 16-bit IEEE-like encoding computed independently with std::ldexp.
float reference_decode16(unsigned bits, int exp_bits, int man_bits, int bias) {
  const unsigned man = bits & ((1u << man_bits) - 1);
  const unsigned exp = (bits >> man_bits) & ((1u << exp_bits) - 1);
  const bool neg = (bits >> (exp_bits + man_bits)) != 0;
  double mag = 0;
  if (exp == (1u << exp_bits) - 1) {
    mag = man == 0 ? std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
  } else if (exp == 0) {
    mag = std::ldexp(static_cast<double>(man), 1 - bias - man_bits);
  } else {
    mag = std::ldexp(static_cast<double>(man + (1u << man_bits)), static_cast<int>(exp) - bias - man_bits);
  }
  return static_cast<float>(neg ? -mag : mag);  // exact: every such value is a float32
}

/// All 65,536 patterns of a 16-bit format against reference_decode16.
template <class T>
void check_decode16_exhaustive() {
  using F = typename T::format;
  for (unsigned b = 0; b < 0x10000; ++b) {
    const auto v = T::from_bits(static_cast<std::uint16_t>(b));
    const float got = static_cast<float>(v);
    const float want = reference_decode16(b, F::exp_bits, F::man_bits, F::bias);
    CAPTURE(b);
    if (std::isnan(want)) {
      CHECK(std::isnan(got));
      CHECK(std::signbit(got) == std::signbit(want));
      CHECK(v.is_nan());
    } else {
      CHECK(u32(got) == u32(want));
      CHECK(!v.is_nan());
      CHECK(v.is_inf() == std::isinf(want));
    }
  }
}

// ---- (b) encode: CSV rows in both saturate modes ----

/// Every row of <type>.encode.csv: exact where match=exact, any NaN where any_nan, skip undefined.
/// Rows with saturate=NA must give the same result for saturate true and false.
template <class T>
void check_encode_csv(const std::string& file) {
  const Csv csv = read_csv(file);
  REQUIRE(!csv.rows.empty());
  const auto ci = csv.col("input_float32_hex"), cs = csv.col("saturate"), ce = csv.col("expected_bits"),
             cm = csv.col("match");
  int checked = 0;
  for (const auto& row : csv.rows) {
    if (row[cm] == "undefined") continue;
    const float x = f32(hex(row[ci]));
    std::vector<bool> modes;
    if (row[cs] == "NA") modes = {true, false};
    else modes = {row[cs] == "1"};
    for (const bool sat : modes) {
      CAPTURE(row[ci]);
      CAPTURE(sat);
      const T a = T::from_float(x, sat);
      const T b = T::from_double(static_cast<double>(x), sat);
      CHECK(a.bits() == b.bits());
      if (row[cm] == "any_nan") {
        CHECK(a.is_nan());
      } else {
        REQUIRE(row[cm] == "exact");
        CHECK(a.bits() == hex(row[ce]));
      }
      if (sat) CHECK(T(x).bits() == a.bits());
      ++checked;
    }
  }
  CHECK(checked > 100);
}

// ---- (c) round trip, (d) monotonicity, and exhaustive midpoints ----

/// decode -> encode gives back every non-NaN encoding, in both saturate modes and from float and double.
template <class T>
void check_round_trip() {
  for (unsigned b = 0; b < (1u << width<T>); ++b) {
    const auto v = T::from_bits(static_cast<typename T::bits_type>(b));
    if (v.is_nan()) continue;
    CAPTURE(b);
    for (const bool sat : {true, false}) {
      if (v.is_inf() && sat && T::format::saturates) continue;  // saturating Inf gives max by design
      CHECK(T::from_float(static_cast<float>(v), sat).bits() == b);
      CHECK(T::from_double(static_cast<double>(v), sat).bits() == b);
    }
  }
}

/// Encoding is non-decreasing over float32 inputs sorted by value (sampled with a prime stride,
/// plus ±Inf), in both saturate modes; saturating float8 encodes never produce NaN.
template <class T>
void check_monotonic() {
  std::vector<float> xs;
  constexpr std::uint32_t top = 0x7F800000u;
  for (std::uint32_t u = top;; u -= std::min<std::uint32_t>(u, 4093)) {
    xs.push_back(-f32(u));
    if (u == 0) break;
  }
  for (std::uint32_t u = 0; u < top; u += 4093) xs.push_back(f32(u));
  xs.push_back(f32(top));
  for (const bool sat : {true, false}) {
    float prev = -std::numeric_limits<float>::infinity();
    for (const float x : xs) {
      const T v = T::from_float(x, sat);
      if (sat && T::format::saturates) CHECK_FALSE(v.is_nan());
      if (v.is_nan()) continue;
      const float cur = static_cast<float>(v);
      if (!(prev <= cur)) {
        CAPTURE(x);
        CAPTURE(sat);
        CHECK(prev <= cur);
      }
      prev = cur;
    }
  }
}

/// For every pair of adjacent finite values a < b: the midpoint rounds to the even encoding, and one
/// ulp (of float and of double) either side of it rounds to a or b. Independent of the CSVs.
template <class T>
void check_midpoints() {
  std::vector<T> vals;
  for (unsigned b = 0; b < (1u << width<T>); ++b) {
    const auto v = T::from_bits(static_cast<typename T::bits_type>(b));
    if (!v.is_nan() && !v.is_inf() && !(static_cast<float>(v) == 0.0f && b != 0)) vals.push_back(v);
  }
  std::sort(vals.begin(), vals.end(), [](T a, T b) { return static_cast<float>(a) < static_cast<float>(b); });
  for (std::size_t i = 0; i + 1 < vals.size(); ++i) {
    const T a = vals[i], b = vals[i + 1];
    const double da = static_cast<double>(a), db = static_cast<double>(b);
    const double m = (da + db) / 2;  // exact
    const T even = (a.bits() & 1) == 0 ? a : b;
    CAPTURE(da);
    CAPTURE(db);
    REQUIRE(static_cast<double>(static_cast<float>(m)) == m);
    CHECK(T::from_double(m) == even);
    CHECK(T::from_float(static_cast<float>(m)) == even);
    CHECK(T::from_double(std::nextafter(m, da)) == a);
    CHECK(T::from_double(std::nextafter(m, db)) == b);
    CHECK(T::from_float(std::nextafter(static_cast<float>(m), static_cast<float>(da))) == a);
    CHECK(T::from_float(std::nextafter(static_cast<float>(m), static_cast<float>(db))) == b);
  }
}

/// The numeric_limits constants, checked by value.
template <class T>
void check_limits_consistency() {
  using L = std::numeric_limits<T>;
  static_assert(L::is_specialized && L::radix == 2 && !L::is_integer && L::is_bounded);
  CHECK(static_cast<float>(L::lowest()) == -static_cast<float>(L::max()));
  CHECK(static_cast<float>(L::min()) == std::ldexp(1.0f, L::min_exponent - 1));
  CHECK(static_cast<float>(L::epsilon()) == std::ldexp(1.0f, 1 - L::digits));
  CHECK(static_cast<float>(L::round_error()) == 0.5f);
  // max is just below 2^max_exponent and at least 2^(max_exponent-1)
  CHECK(static_cast<float>(L::max()) < std::ldexp(1.0f, L::max_exponent));
  CHECK(static_cast<float>(L::max()) >= std::ldexp(1.0f, L::max_exponent - 1));
  CHECK(std::pow(10.0, L::max_exponent10) <= static_cast<double>(L::max()));
  CHECK(std::pow(10.0, L::max_exponent10 + 1) > static_cast<double>(L::max()));
  CHECK(std::pow(10.0, L::min_exponent10) >= static_cast<double>(L::min()));
  CHECK(std::pow(10.0, L::min_exponent10 - 1) < static_cast<double>(L::min()));
  CHECK(static_cast<float>(L::denorm_min()) > 0.0f);
  CHECK(static_cast<float>(L::denorm_min()) < static_cast<float>(L::min()));
  CHECK(L::has_quiet_NaN == L::quiet_NaN().is_nan());
  if constexpr (L::has_infinity) CHECK(static_cast<float>(L::infinity()) == std::numeric_limits<float>::infinity());
  else CHECK(static_cast<float>(L::infinity()) == 0.0f);
  if constexpr (L::has_signaling_NaN) {
    CHECK(L::signaling_NaN().is_nan());
    CHECK(L::signaling_NaN().bits() != L::quiet_NaN().bits());
  }
  // nothing finite lies above max or below lowest
  for (unsigned b = 0; b < (1u << width<T>); ++b) {
    const auto v = T::from_bits(static_cast<typename T::bits_type>(b));
    if (v.is_nan() || v.is_inf()) continue;
    CHECK(v <= L::max());
    CHECK(v >= L::lowest());
  }
}

}  // namespace

// ---- per-type test cases ----

TEST_CASE("float16: decode of all 65536 patterns matches ldexp of the bit fields") {
  check_decode16_exhaustive<float16>();
}

TEST_CASE("float16: decode of all 65536 patterns matches _Float16") {
#ifdef __FLT16_MANT_DIG__
  for (unsigned b = 0; b < 0x10000; ++b) {
    const float want = static_cast<float>(std::bit_cast<_Float16>(static_cast<std::uint16_t>(b)));
    const float got = static_cast<float>(float16::from_bits(static_cast<std::uint16_t>(b)));
    CAPTURE(b);
    if (std::isnan(want)) CHECK(std::isnan(got));
    else CHECK(u32(got) == u32(want));
  }
#else
  MESSAGE("_Float16 not available; skipped");
#endif
}

TEST_CASE("float16: encode agrees with _Float16 over a float32 sweep") {
#ifdef __FLT16_MANT_DIG__
  const auto check = [](std::uint32_t u) {
    const float x = f32(u);
    const auto want = std::bit_cast<std::uint16_t>(static_cast<_Float16>(x));
    const auto got = float16::from_float(x);
    if (std::isnan(x)) {
      CHECK(got.is_nan());
    } else if (got.bits() != want) {
      CAPTURE(u);
      CHECK(got.bits() == want);
    }
  };
  for (std::uint64_t u = 0; u <= 0xFFFFFFFFu; u += 65521) check(static_cast<std::uint32_t>(u));
  // dense in the range where float16 rounding happens (2^-26 .. 2^17), both signs
  for (std::uint32_t u = 0x32800000u; u < 0x48000000u; u += 251) {
    check(u);
    check(u | 0x80000000u);
  }
#else
  MESSAGE("_Float16 not available; skipped");
#endif
}

TEST_CASE("bfloat16: decode of all 65536 patterns matches ldexp of the bit fields") {
  check_decode16_exhaustive<bfloat16>();
}

TEST_CASE("float8e4m3fn: decode matches CSV") { check_decode_csv<float8e4m3fn>("float8e4m3fn.decode.csv", true); }
TEST_CASE("float8e4m3fnuz: decode matches CSV") {
  check_decode_csv<float8e4m3fnuz>("float8e4m3fnuz.decode.csv", false);
}
TEST_CASE("float8e5m2: decode matches CSV") { check_decode_csv<float8e5m2>("float8e5m2.decode.csv", true); }
TEST_CASE("float8e5m2fnuz: decode matches CSV") {
  check_decode_csv<float8e5m2fnuz>("float8e5m2fnuz.decode.csv", false);
}
TEST_CASE("float4e2m1: decode matches CSV") { check_decode_csv<float4e2m1>("float4e2m1.decode.csv", true); }
TEST_CASE("float8e8m0: decode matches CSV") { check_decode_csv<float8e8m0>("float8e8m0.decode.csv", false); }

TEST_CASE("float16: encode matches CSV") { check_encode_csv<float16>("float16.encode.csv"); }
TEST_CASE("bfloat16: encode matches CSV") { check_encode_csv<bfloat16>("bfloat16.encode.csv"); }
TEST_CASE("float8e4m3fn: encode matches CSV") { check_encode_csv<float8e4m3fn>("float8e4m3fn.encode.csv"); }
TEST_CASE("float8e4m3fnuz: encode matches CSV") { check_encode_csv<float8e4m3fnuz>("float8e4m3fnuz.encode.csv"); }
TEST_CASE("float8e5m2: encode matches CSV") { check_encode_csv<float8e5m2>("float8e5m2.encode.csv"); }
TEST_CASE("float8e5m2fnuz: encode matches CSV") { check_encode_csv<float8e5m2fnuz>("float8e5m2fnuz.encode.csv"); }
TEST_CASE("float4e2m1: encode matches CSV") { check_encode_csv<float4e2m1>("float4e2m1.encode.csv"); }

TEST_CASE("float8e8m0: encode matches CSV in every round mode and saturate setting") {
  const Csv csv = read_csv("float8e8m0.encode.csv");
  const auto ci = csv.col("input_float32_hex"), cs = csv.col("saturate"), cr = csv.col("round_mode"),
             ce = csv.col("expected_bits"), cm = csv.col("match");
  int checked = 0;
  for (const auto& row : csv.rows) {
    if (row[cm] == "undefined") continue;
    REQUIRE(row[cm] == "exact");
    const float x = f32(hex(row[ci]));
    const bool sat = row[cs] == "1";
    const auto mode = row[cr] == "up"     ? float8e8m0::RoundMode::up
                      : row[cr] == "down" ? float8e8m0::RoundMode::down
                                          : float8e8m0::RoundMode::nearest;
    REQUIRE((row[cr] == "up" || row[cr] == "down" || row[cr] == "nearest"));
    CAPTURE(row[ci]);
    CAPTURE(row[cs]);
    CAPTURE(row[cr]);
    CHECK(float8e8m0::from_float(x, sat, mode).bits() == hex(row[ce]));
    CHECK(float8e8m0::from_double(static_cast<double>(x), sat, mode).bits() == hex(row[ce]));
    if (mode == float8e8m0::RoundMode::up) CHECK(float8e8m0::from_float(x, sat).bits() == hex(row[ce]));
    ++checked;
  }
  CHECK(checked > 9000);
}

TEST_CASE("float8e8m0: negative inputs (undefined in the spec) saturate to 0x00 or give NaN") {
  for (const float x : {-0.0f, -1e-45f, -1.0f, -3e38f, -std::numeric_limits<float>::infinity()}) {
    CAPTURE(x);
    CHECK(float8e8m0::from_float(x, true).bits() == 0x00);
    CHECK(float8e8m0::from_float(x, false).bits() == 0xFF);
  }
}

TEST_CASE("float8e8m0: round modes at every power of two") {
  using M = float8e8m0::RoundMode;
  for (int k = -127; k <= 126; ++k) {
    CAPTURE(k);
    const auto bits = static_cast<unsigned>(k + 127);
    const double p = std::ldexp(1.0, k);
    for (const bool sat : {true, false}) {
      for (const M m : {M::up, M::down, M::nearest}) CHECK(float8e8m0::from_double(p, sat, m).bits() == bits);
      CHECK(float8e8m0::from_double(std::nextafter(p, 1e300), sat, M::up).bits() == bits + 1);
      CHECK(float8e8m0::from_double(std::nextafter(2 * p, 0.0), sat, M::down).bits() == bits);
      CHECK(float8e8m0::from_double(1.5 * p, sat, M::nearest).bits() == bits + 1);  // ties up
      CHECK(float8e8m0::from_double(std::nextafter(1.5 * p, 0.0), sat, M::nearest).bits() == bits);
    }
  }
}

TEST_CASE("float16: decode -> encode round-trips every non-NaN pattern") { check_round_trip<float16>(); }
TEST_CASE("bfloat16: decode -> encode round-trips every non-NaN pattern") { check_round_trip<bfloat16>(); }
TEST_CASE("float8e4m3fn: decode -> encode round-trips every non-NaN pattern") { check_round_trip<float8e4m3fn>(); }
TEST_CASE("float8e4m3fnuz: decode -> encode round-trips every non-NaN pattern") {
  check_round_trip<float8e4m3fnuz>();
}
TEST_CASE("float8e5m2: decode -> encode round-trips every non-NaN pattern") { check_round_trip<float8e5m2>(); }
TEST_CASE("float8e5m2fnuz: decode -> encode round-trips every non-NaN pattern") {
  check_round_trip<float8e5m2fnuz>();
}
TEST_CASE("float4e2m1: decode -> encode round-trips every pattern") { check_round_trip<float4e2m1>(); }
TEST_CASE("float8e8m0: decode -> encode round-trips every non-NaN pattern in every mode") {
  using M = float8e8m0::RoundMode;
  for (unsigned b = 0; b < 0xFF; ++b) {
    const auto v = float8e8m0::from_bits(static_cast<std::uint8_t>(b));
    for (const bool sat : {true, false})
      for (const M m : {M::up, M::down, M::nearest}) CHECK(float8e8m0::from_float(static_cast<float>(v), sat, m) == v);
  }
}

TEST_CASE("float16: encode is monotonic") { check_monotonic<float16>(); }
TEST_CASE("bfloat16: encode is monotonic") { check_monotonic<bfloat16>(); }
TEST_CASE("float8e4m3fn: encode is monotonic") { check_monotonic<float8e4m3fn>(); }
TEST_CASE("float8e4m3fnuz: encode is monotonic") { check_monotonic<float8e4m3fnuz>(); }
TEST_CASE("float8e5m2: encode is monotonic") { check_monotonic<float8e5m2>(); }
TEST_CASE("float8e5m2fnuz: encode is monotonic") { check_monotonic<float8e5m2fnuz>(); }
TEST_CASE("float4e2m1: encode is monotonic") { check_monotonic<float4e2m1>(); }

TEST_CASE("float16: every midpoint rounds to even") { check_midpoints<float16>(); }
TEST_CASE("bfloat16: every midpoint rounds to even") { check_midpoints<bfloat16>(); }
TEST_CASE("float8e4m3fn: every midpoint rounds to even") { check_midpoints<float8e4m3fn>(); }
TEST_CASE("float8e4m3fnuz: every midpoint rounds to even") { check_midpoints<float8e4m3fnuz>(); }
TEST_CASE("float8e5m2: every midpoint rounds to even") { check_midpoints<float8e5m2>(); }
TEST_CASE("float8e5m2fnuz: every midpoint rounds to even") { check_midpoints<float8e5m2fnuz>(); }
TEST_CASE("float4e2m1: every midpoint rounds to even") { check_midpoints<float4e2m1>(); }

TEST_CASE("float8e4m3fn: from_double rounds once (no double rounding through float)") {
  // 1.0625 is the tie between 1.0 (0x38) and 1.125 (0x39); the double just above it is not a float.
  const double x = 1.0625 + 0x1p-40;
  CHECK(float8e4m3fn::from_double(x).bits() == 0x39);
  CHECK(float8e4m3fn::from_float(static_cast<float>(x)).bits() == 0x38);
  CHECK(float8e4m3fn(x).bits() == 0x39);
  CHECK(float16::from_double(1.0 + 0x1p-11 + 0x1p-40).bits() == 0x3C01);
  CHECK(float16::from_double(1e300).bits() == 0x7C00);
  CHECK(float8e5m2::from_double(-1e300, true).bits() == 0xFB);
  CHECK(float8e5m2::from_double(1e-300).bits() == 0x00);
  CHECK(float8e5m2::from_double(-1e-320).bits() == 0x80);  // double subnormal, sign kept
}

TEST_CASE("bfloat16: integer constructor rounds once, even for 64-bit values") {
  CHECK(bfloat16(3) == bfloat16(3.0f));
  CHECK(float16(-7) == float16(-7.0f));
  CHECK(float16(std::uint8_t{200}) == float16(200.0f));
  // 2^60 + 2^52 + 1 is just above the bfloat16 tie between 2^60 and 2^60 + 2^53; via double it
  // would first become the tie itself and then round to even (2^60).
  const std::int64_t v = (std::int64_t{1} << 60) + (std::int64_t{1} << 52) + 1;
  CHECK(static_cast<double>(bfloat16(v)) == std::ldexp(1.0, 60) + std::ldexp(1.0, 53));
  CHECK(static_cast<double>(bfloat16(-v)) == -(std::ldexp(1.0, 60) + std::ldexp(1.0, 53)));
  CHECK(static_cast<double>(bfloat16((std::int64_t{1} << 60) + (std::int64_t{1} << 52))) == std::ldexp(1.0, 60));
  CHECK(bfloat16(std::numeric_limits<std::uint64_t>::max()) == bfloat16(0x1p64f));
  CHECK(bfloat16(std::numeric_limits<std::int64_t>::min()) == bfloat16(-0x1p63f));
}

TEST_CASE("float16: NaN stays NaN with its sign and top payload bits") {
  const float qnan = std::numeric_limits<float>::quiet_NaN();
  CHECK(float16::from_float(qnan).bits() == 0x7E00);
  CHECK(float16::from_float(-qnan).bits() == 0xFE00);
  CHECK(float16::from_float(f32(0x7F800001u)).is_nan());  // signalling NaN with only low payload bits
  CHECK(u32(static_cast<float>(float16::from_bits(0x7E00))) == 0x7FC00000u);
  CHECK(bfloat16::from_float(qnan).bits() == 0x7FC0);
  CHECK(bfloat16::from_float(-qnan).bits() == 0xFFC0);
  CHECK(std::isnan(static_cast<float>(bfloat16::from_bits(0x7F81))));  // signalling bf16 NaN is quieted
}

TEST_CASE("float8e4m3fn: saturate and NaN behaviour (Cast-25 table)") {
  const float inf = std::numeric_limits<float>::infinity();
  CHECK(float8e4m3fn::from_float(inf, true).bits() == 0x7E);
  CHECK(float8e4m3fn::from_float(-inf, true).bits() == 0xFE);
  CHECK(float8e4m3fn::from_float(inf, false).bits() == 0x7F);
  CHECK(float8e4m3fn::from_float(-inf, false).bits() == 0xFF);
  CHECK(float8e4m3fn::from_float(-1000.0f, false).bits() == 0xFF);
  CHECK(float8e4m3fn::from_float(-0.0f).bits() == 0x80);
  CHECK(float8e4m3fn::from_float(-1e-9f).bits() == 0x80);
}

TEST_CASE("float8e5m2: saturate and NaN behaviour (Cast-25 table)") {
  const float inf = std::numeric_limits<float>::infinity();
  CHECK(float8e5m2::from_float(inf, true).bits() == 0x7B);
  CHECK(float8e5m2::from_float(inf, false).bits() == 0x7C);
  CHECK(float8e5m2::from_float(-inf, false).bits() == 0xFC);
  CHECK(float8e5m2::from_float(-61439.0f, false).bits() == 0xFB);
  CHECK(float8e5m2::from_float(-61440.0f, false).bits() == 0xFC);
  CHECK(float8e5m2::from_float(std::numeric_limits<float>::quiet_NaN()).bits() == 0x7E);
}

TEST_CASE("float8e4m3fnuz: saturate and NaN behaviour (Cast-25 table)") {
  const float inf = std::numeric_limits<float>::infinity();
  CHECK(float8e4m3fnuz::from_float(inf, true).bits() == 0x7F);
  CHECK(float8e4m3fnuz::from_float(-inf, true).bits() == 0xFF);
  CHECK(float8e4m3fnuz::from_float(-inf, false).bits() == 0x80);
  CHECK(float8e4m3fnuz::from_float(248.0f, false).bits() == 0x80);
  CHECK(float8e4m3fnuz::from_float(247.9f, false).bits() == 0x7F);
  CHECK(float8e4m3fnuz::from_float(-0.0f).bits() == 0x00);
  CHECK(float8e4m3fnuz::from_float(-std::numeric_limits<float>::quiet_NaN()).bits() == 0x80);
}

TEST_CASE("float8e5m2fnuz: saturate and NaN behaviour (Cast-25 table)") {
  CHECK(float8e5m2fnuz::from_float(-1e9f, true).bits() == 0xFF);
  CHECK(float8e5m2fnuz::from_float(-1e9f, false).bits() == 0x80);
  CHECK(float8e5m2fnuz::from_float(-0x1p-18f).bits() == 0x00);  // tie with 0 -> even -> unsigned 0
  CHECK(float8e5m2fnuz::from_float(-0x1.000002p-18f).bits() == 0x81);
}

TEST_CASE("float4e2m1: clamping, Inf and NaN (float4.md)") {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (const bool sat : {true, false}) {
    CHECK(float4e2m1::from_float(7.0f, sat).bits() == 0x7);
    CHECK(float4e2m1::from_float(-1e30f, sat).bits() == 0xF);
    CHECK(float4e2m1::from_float(inf, sat).bits() == 0x7);
    CHECK(float4e2m1::from_float(-inf, sat).bits() == 0xF);
    CHECK(float4e2m1::from_float(nan, sat).bits() == 0x7);
    CHECK(float4e2m1::from_float(-nan, sat).bits() == 0x7);
  }
  CHECK(float4e2m1::from_float(-0.0f).bits() == 0x8);
  CHECK(float4e2m1::from_bits(0xF7).bits() == 0x7);  // bits above the format are dropped
}

TEST_CASE("float8e4m3fn: comparisons follow IEEE") {
  const auto nan = float8e4m3fn::from_bits(0x7F);
  const auto one = float8e4m3fn(1.0f), two = float8e4m3fn(2.0f);
  CHECK(one < two);
  CHECK(two > one);
  CHECK(one != two);
  CHECK(-one < one);
  CHECK(float8e4m3fn::from_bits(0x00) == float8e4m3fn::from_bits(0x80));
  CHECK_FALSE(nan == nan);
  CHECK(nan != nan);
  CHECK_FALSE(nan < one);
  CHECK_FALSE(nan > one);
  CHECK((nan <=> one) == std::partial_ordering::unordered);
  CHECK((-nan).is_nan());
  CHECK((+one) == one);
}

TEST_CASE("float8e8m0: comparisons follow IEEE") {
  const auto nan = float8e8m0::from_bits(0xFF);
  CHECK(float8e8m0(1.0f) < float8e8m0(2.0f));
  CHECK(float8e8m0(4.0f) == float8e8m0::from_bits(0x81));
  CHECK_FALSE(nan == nan);
  CHECK((nan <=> float8e8m0(1.0f)) == std::partial_ordering::unordered);
}

TEST_CASE("float16: printing shows the value") {
  std::ostringstream os;
  os << float16(1.5f) << ' ' << float8e5m2(-2.0f) << ' ' << float8e8m0(0.25f) << ' ' << float4e2m1(6.0f);
  CHECK(os.str() == "1.5 -2 0.25 6");
}

TEST_CASE("float16: numeric_limits") {
  using L = std::numeric_limits<float16>;
  CHECK(L::max().bits() == 0x7BFF);
  CHECK(L::lowest().bits() == 0xFBFF);
  CHECK(L::min().bits() == 0x0400);
  CHECK(L::denorm_min().bits() == 0x0001);
  CHECK(L::epsilon().bits() == 0x1400);
  CHECK(L::infinity().bits() == 0x7C00);
  CHECK(L::quiet_NaN().bits() == 0x7E00);
  CHECK(L::signaling_NaN().bits() == 0x7C01);
  static_assert(L::digits == 11 && L::digits10 == 3 && L::max_digits10 == 5);
  static_assert(L::min_exponent == -13 && L::max_exponent == 16);
  static_assert(L::min_exponent10 == -4 && L::max_exponent10 == 4);
  static_assert(L::is_iec559 && L::has_infinity && L::has_quiet_NaN && L::has_signaling_NaN);
  check_limits_consistency<float16>();
}

TEST_CASE("bfloat16: numeric_limits") {
  using L = std::numeric_limits<bfloat16>;
  CHECK(L::max().bits() == 0x7F7F);
  CHECK(L::min().bits() == 0x0080);
  CHECK(L::epsilon().bits() == 0x3C00);
  CHECK(L::infinity().bits() == 0x7F80);
  CHECK(L::quiet_NaN().bits() == 0x7FC0);
  static_assert(L::digits == 8 && L::digits10 == 2 && L::max_digits10 == 4);
  static_assert(L::min_exponent == std::numeric_limits<float>::min_exponent);
  static_assert(L::max_exponent == std::numeric_limits<float>::max_exponent);
  static_assert(L::min_exponent10 == -37 && L::max_exponent10 == 38);
  static_assert(!L::is_iec559);
  check_limits_consistency<bfloat16>();
}

TEST_CASE("float8e4m3fn: numeric_limits") {
  using L = std::numeric_limits<float8e4m3fn>;
  CHECK(static_cast<float>(L::max()) == 448.0f);
  CHECK(L::lowest().bits() == 0xFE);
  CHECK(static_cast<float>(L::min()) == 0x1p-6f);
  CHECK(static_cast<float>(L::denorm_min()) == 0x1p-9f);
  CHECK(L::quiet_NaN().bits() == 0x7F);
  CHECK(L::infinity().bits() == 0x00);  // no infinity: not NaN, not max
  static_assert(!L::has_infinity && L::has_quiet_NaN && !L::has_signaling_NaN);
  static_assert(L::digits == 4 && L::max_exponent == 9 && L::min_exponent == -5);
  static_assert(L::max_exponent10 == 2 && L::min_exponent10 == -1);
  check_limits_consistency<float8e4m3fn>();
}

TEST_CASE("float8e4m3fnuz: numeric_limits") {
  using L = std::numeric_limits<float8e4m3fnuz>;
  CHECK(static_cast<float>(L::max()) == 240.0f);
  CHECK(static_cast<float>(L::min()) == 0x1p-7f);
  CHECK(static_cast<float>(L::denorm_min()) == 0x1p-10f);
  CHECK(L::quiet_NaN().bits() == 0x80);
  static_assert(!L::has_infinity && L::has_quiet_NaN && L::max_exponent == 8 && L::min_exponent == -6);
  check_limits_consistency<float8e4m3fnuz>();
}

TEST_CASE("float8e5m2: numeric_limits") {
  using L = std::numeric_limits<float8e5m2>;
  CHECK(static_cast<float>(L::max()) == 57344.0f);
  CHECK(static_cast<float>(L::min()) == 0x1p-14f);
  CHECK(static_cast<float>(L::denorm_min()) == 0x1p-16f);
  CHECK(L::infinity().bits() == 0x7C);
  CHECK(L::quiet_NaN().bits() == 0x7E);
  CHECK(L::signaling_NaN().bits() == 0x7D);
  static_assert(L::has_infinity && L::has_signaling_NaN && L::digits == 3 && L::max_exponent == 16);
  check_limits_consistency<float8e5m2>();
}

TEST_CASE("float8e5m2fnuz: numeric_limits") {
  using L = std::numeric_limits<float8e5m2fnuz>;
  CHECK(static_cast<float>(L::max()) == 57344.0f);
  CHECK(static_cast<float>(L::min()) == 0x1p-15f);
  CHECK(static_cast<float>(L::denorm_min()) == 0x1p-17f);
  CHECK(L::quiet_NaN().bits() == 0x80);
  static_assert(!L::has_infinity && L::min_exponent == -14 && L::max_exponent == 16);
  check_limits_consistency<float8e5m2fnuz>();
}

TEST_CASE("float4e2m1: numeric_limits") {
  using L = std::numeric_limits<float4e2m1>;
  CHECK(static_cast<float>(L::max()) == 6.0f);
  CHECK(L::lowest().bits() == 0xF);
  CHECK(static_cast<float>(L::min()) == 1.0f);
  CHECK(static_cast<float>(L::denorm_min()) == 0.5f);
  CHECK(static_cast<float>(L::epsilon()) == 0.5f);
  CHECK(L::quiet_NaN().bits() == 0x0);
  CHECK(L::infinity().bits() == 0x0);
  static_assert(!L::has_infinity && !L::has_quiet_NaN && !L::has_signaling_NaN);
  static_assert(L::digits == 2 && L::min_exponent == 1 && L::max_exponent == 3 && L::max_exponent10 == 0);
  check_limits_consistency<float4e2m1>();
}

TEST_CASE("float8e8m0: numeric_limits") {
  using L = std::numeric_limits<float8e8m0>;
  static_assert(!L::is_signed && !L::has_infinity && L::has_quiet_NaN && L::has_denorm == std::denorm_absent);
  CHECK(static_cast<float>(L::min()) == 0x1p-127f);
  CHECK(static_cast<float>(L::lowest()) == 0x1p-127f);
  CHECK(static_cast<float>(L::denorm_min()) == 0x1p-127f);
  CHECK(static_cast<float>(L::max()) == 0x1p127f);
  CHECK(static_cast<float>(L::epsilon()) == 1.0f);
  CHECK(L::quiet_NaN().is_nan());
  CHECK(std::pow(10.0, L::max_exponent10) <= 0x1p127);
  CHECK(std::pow(10.0, L::max_exponent10 + 1) > 0x1p127);
  CHECK(std::pow(10.0, L::min_exponent10) >= 0x1p-127);
  CHECK(std::pow(10.0, L::min_exponent10 - 1) < 0x1p-127);
  CHECK(static_cast<float>(L::min()) == std::ldexp(1.0f, L::min_exponent - 1));
  CHECK(static_cast<float>(L::max()) == std::ldexp(1.0f, L::max_exponent - 1));
}

TEST_CASE("float16: numeric_limits helper formulas reproduce float32's own limits") {
  using L = std::numeric_limits<float>;
  CHECK(oxir::detail::digits10_of(L::digits) == L::digits10);
  CHECK(oxir::detail::max_digits10_of(L::digits) == L::max_digits10);
  CHECK(oxir::detail::min_exponent10_of(L::min_exponent - 1) == L::min_exponent10);
  CHECK(oxir::detail::max_exponent10_of(static_cast<double>(L::max())) == L::max_exponent10);
  using D = std::numeric_limits<double>;
  CHECK(oxir::detail::digits10_of(D::digits) == D::digits10);
  CHECK(oxir::detail::max_digits10_of(D::digits) == D::max_digits10);
  CHECK(oxir::detail::min_exponent10_of(D::min_exponent - 1) == D::min_exponent10);
}

}  // namespace oxir_unit_test_float_types
