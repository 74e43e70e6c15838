#pragma once
// Value types for ONNX's sub-byte integers: INT4, UINT4, INT2, UINT2.
//
// Each holds its two's-complement bits in the low bits of a byte (the rest zero) and sign-extends
// on read, so packing into raw_data is just a shift. Conversions from floating point round to
// nearest, ties to even, then wrap modulo 2^N (int4.md/int2.md: "round ... and truncating"; the
// Cast text leaves out-of-range values undefined, and wrapping is what fixed->fixed casts do).

#include <bit>
#include <compare>
#include <cstdint>
#include <iosfwd>
#include <limits>
#include <type_traits>

namespace oxir {

namespace detail {

/// x rounded to nearest integer (ties to even) modulo 2^64; NaN/Inf give 0. Exact for every double.
[[nodiscard]] constexpr std::uint64_t round_to_int_mod64(double x) noexcept {
  const auto b = std::bit_cast<std::uint64_t>(x);
  const bool neg = (b >> 63) != 0;
  const auto ed = static_cast<int>((b >> 52) & 0x7FF);
  if (ed == 0x7FF || ed < 1022) return 0;  // NaN/Inf (undefined in the spec) and |x| < 0.5
  const std::uint64_t sig = (b & ((std::uint64_t{1} << 52) - 1)) | (std::uint64_t{1} << 52);
  const int exp = ed - 1075;  // |x| = sig * 2^exp
  std::uint64_t r = 0;
  if (exp >= 0) {
    r = exp >= 64 ? 0 : sig << exp;  // already an integer; bits shifted past 2^64 vanish mod 2^64
  } else {
    const int shift = -exp;  // 1..53 here, since |x| >= 0.5
    const std::uint64_t q = sig >> shift;
    const std::uint64_t rem = sig & ((std::uint64_t{1} << shift) - 1);
    const std::uint64_t half = std::uint64_t{1} << (shift - 1);
    r = (rem > half || (rem == half && (q & 1) != 0)) ? q + 1 : q;
  }
  return neg ? std::uint64_t{0} - r : r;
}

}  // namespace detail

/// An N-bit integer (N = 2 or 4), signed or not, stored in the low bits of a byte.
template <int N, bool Signed>
class basic_int {
  static_assert(N > 0 && N < 8);

 public:
  /// The byte holding the bits.
  using bits_type = std::uint8_t;
  /// Mask of the N value bits.
  static constexpr bits_type mask = static_cast<bits_type>((1u << N) - 1u);
  /// Smallest representable value (-2^(N-1) or 0).
  static constexpr int min_value = Signed ? -(1 << (N - 1)) : 0;
  /// Largest representable value (2^(N-1)-1 or 2^N-1).
  static constexpr int max_value = Signed ? (1 << (N - 1)) - 1 : (1 << N) - 1;

  /// Trivial, so arrays can be left uninitialised; `basic_int{}` is 0.
  basic_int() = default;
  /// Any integer, wrapped modulo 2^N (like a fixed->fixed Cast, which discards high bits).
  template <class I>
    requires std::is_integral_v<I>
  explicit constexpr basic_int(I v) noexcept : bits_(static_cast<bits_type>(static_cast<std::uint64_t>(v) & mask)) {}
  /// Same as `from_float(x)`.
  explicit constexpr basic_int(float x) noexcept : bits_(from_float(x).bits_) {}
  /// Same as `from_double(x)`.
  explicit constexpr basic_int(double x) noexcept : bits_(from_double(x).bits_) {}

  /// The value whose two's-complement bits are the low N bits of `bits`.
  [[nodiscard]] static constexpr basic_int from_bits(bits_type bits) noexcept {
    basic_int r;
    r.bits_ = static_cast<bits_type>(bits & mask);
    return r;
  }
  /// The N value bits, in the low bits; the high bits are zero.
  [[nodiscard]] constexpr bits_type bits() const noexcept { return bits_; }

  /// Rounds to nearest (ties to even) then wraps mod 2^N; NaN/Inf give 0. `saturate` is accepted for
  /// generic code and ignored: Cast's saturate does not apply to integers.
  [[nodiscard]] static constexpr basic_int from_float(float x, [[maybe_unused]] bool saturate = true) noexcept {
    return from_double(static_cast<double>(x));
  }
  /// As from_float, from a double directly.
  [[nodiscard]] static constexpr basic_int from_double(double x, [[maybe_unused]] bool saturate = true) noexcept {
    return from_bits(static_cast<bits_type>(detail::round_to_int_mod64(x) & mask));
  }

  /// The value, sign-extended for signed types.
  [[nodiscard]] explicit constexpr operator int() const noexcept {
    const int v = bits_;
    if constexpr (Signed) return (v & (1 << (N - 1))) != 0 ? v - (1 << N) : v;
    else return v;
  }

  /// Negation modulo 2^N (so -min_value == min_value), only for signed types.
  [[nodiscard]] constexpr basic_int operator-() const noexcept
    requires Signed
  {
    return from_bits(static_cast<bits_type>(0u - bits_));
  }
  /// Identity, for symmetry with unary minus.
  [[nodiscard]] constexpr basic_int operator+() const noexcept { return *this; }

  /// Equality by value (same as by bits).
  [[nodiscard]] friend constexpr bool operator==(basic_int a, basic_int b) noexcept { return a.bits_ == b.bits_; }
  /// Ordering by value.
  [[nodiscard]] friend constexpr std::strong_ordering operator<=>(basic_int a, basic_int b) noexcept {
    return static_cast<int>(a) <=> static_cast<int>(b);
  }

  /// Prints the value as an int (the stream header must be included by the caller).
  template <class CharT, class Traits>
  friend std::basic_ostream<CharT, Traits>& operator<<(std::basic_ostream<CharT, Traits>& os, basic_int v) {
    return os << static_cast<int>(v);
  }

 private:
  bits_type bits_;
};

/// ONNX INT4: -8 ... 7.
using int4 = basic_int<4, true>;
/// ONNX UINT4: 0 ... 15.
using uint4 = basic_int<4, false>;
/// ONNX INT2: -2 ... 1.
using int2 = basic_int<2, true>;
/// ONNX UINT2: 0 ... 3.
using uint2 = basic_int<2, false>;

static_assert(std::is_trivially_copyable_v<int4> && std::is_standard_layout_v<int4> && sizeof(int4) == 1);
static_assert(std::is_trivially_copyable_v<uint2> && std::is_standard_layout_v<uint2> && sizeof(uint2) == 1);

}  // namespace oxir

/// numeric_limits for the sub-byte integers, as for the built-in integer types.
template <int N, bool Signed>
struct std::numeric_limits<oxir::basic_int<N, Signed>> {
 private:
  using T = oxir::basic_int<N, Signed>;

 public:
  static constexpr bool is_specialized = true;
  static constexpr bool is_signed = Signed;
  static constexpr bool is_integer = true;
  static constexpr bool is_exact = true;
  static constexpr bool has_infinity = false;
  static constexpr bool has_quiet_NaN = false;
  static constexpr bool has_signaling_NaN = false;
  static constexpr std::float_denorm_style has_denorm = std::denorm_absent;
  static constexpr bool has_denorm_loss = false;
  static constexpr std::float_round_style round_style = std::round_toward_zero;
  static constexpr bool is_iec559 = false;
  static constexpr bool is_bounded = true;
  static constexpr bool is_modulo = false;  // no arithmetic is defined, so nothing wraps
  static constexpr int digits = Signed ? N - 1 : N;
  static constexpr int digits10 = digits * 30103 / 100000;  // floor(digits * log10 2)
  static constexpr int max_digits10 = 0;
  static constexpr int radix = 2;
  static constexpr int min_exponent = 0;
  static constexpr int min_exponent10 = 0;
  static constexpr int max_exponent = 0;
  static constexpr int max_exponent10 = 0;
  static constexpr bool traps = false;
  static constexpr bool tinyness_before = false;

  /// Smallest value (as for built-in integers, min() == lowest()).
  [[nodiscard]] static constexpr T min() noexcept { return T(T::min_value); }
  /// Largest value.
  [[nodiscard]] static constexpr T max() noexcept { return T(T::max_value); }
  /// Smallest value.
  [[nodiscard]] static constexpr T lowest() noexcept { return T(T::min_value); }
  /// 0, as for integers.
  [[nodiscard]] static constexpr T epsilon() noexcept { return T{}; }
  /// 0, as for integers.
  [[nodiscard]] static constexpr T round_error() noexcept { return T{}; }
  /// 0 (no infinity).
  [[nodiscard]] static constexpr T infinity() noexcept { return T{}; }
  /// 0 (no NaN).
  [[nodiscard]] static constexpr T quiet_NaN() noexcept { return T{}; }
  /// 0 (no NaN).
  [[nodiscard]] static constexpr T signaling_NaN() noexcept { return T{}; }
  /// 0, as for integers.
  [[nodiscard]] static constexpr T denorm_min() noexcept { return T{}; }
};
