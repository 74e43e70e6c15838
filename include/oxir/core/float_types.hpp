#pragma once
// Exact value types for ONNX's narrow floating-point element types (float16 ... float4e2m1).
//
// Each type stores nothing but its encoding. Conversions are constexpr and exact: decoding yields
// the float32 that has the same value (every format here is a subset of float32), and encoding
// rounds to nearest, ties to even, handling overflow/Inf/NaN as ONNX Cast-25 specifies for
// its `saturate` attribute. See docs/element-types.md for the rules and the choices made where
// the ONNX spec is silent.

#include <bit>
#include <compare>
#include <cstdint>
#include <iosfwd>
#include <limits>
#include <type_traits>

namespace oxir {

namespace detail {

/// How a format spends its top exponent field and its sign on specials; drives encode/decode.
enum class float_kind : std::uint8_t {
  ieee,    ///< IEEE-like: top exponent is Inf (M=0) / NaN (M!=0)    (float16, bfloat16, e5m2)
  fn,      ///< finite + one NaN per sign: S.1111.111                 (e4m3fn)
  fnuz,    ///< finite, unsigned zero, the "negative zero" 0x80 is NaN (e4m3fnuz, e5m2fnuz)
  finite,  ///< no Inf, no NaN                                        (float4e2m1)
};

/// Describes one sign/exponent/mantissa format; a tag for `basic_float`.
template <int ExpBits, int ManBits, int Bias, float_kind Kind, std::uint16_t MaxBits, bool Saturates,
          class Bits>
struct float_format {
  using bits_type = Bits;
  static constexpr int exp_bits = ExpBits;
  static constexpr int man_bits = ManBits;
  static constexpr int bias = Bias;
  static constexpr float_kind kind = Kind;
  /// Encoding of the largest finite magnitude; anything rounding above it overflows.
  static constexpr std::uint16_t max_bits = MaxBits;
  /// Whether Cast's `saturate` attribute applies (float8 only; float16/bfloat16 always go to Inf).
  static constexpr bool saturates = Saturates;
  static constexpr int total_bits = 1 + ExpBits + ManBits;
  static constexpr std::uint16_t sign_mask = static_cast<std::uint16_t>(1u << (ExpBits + ManBits));
  static constexpr std::uint16_t all_mask = static_cast<std::uint16_t>((1u << total_bits) - 1u);
  static constexpr std::uint16_t exp_max = static_cast<std::uint16_t>((1u << ExpBits) - 1u);
  static constexpr std::uint16_t man_mask = static_cast<std::uint16_t>((1u << ManBits) - 1u);
  /// Unbiased exponent of the smallest normal number (subnormals share it).
  static constexpr int emin = 1 - Bias;
};

using float16_format = float_format<5, 10, 15, float_kind::ieee, 0x7BFF, false, std::uint16_t>;
using bfloat16_format = float_format<8, 7, 127, float_kind::ieee, 0x7F7F, false, std::uint16_t>;
using float8e4m3fn_format = float_format<4, 3, 7, float_kind::fn, 0x7E, true, std::uint8_t>;
using float8e4m3fnuz_format = float_format<4, 3, 8, float_kind::fnuz, 0x7F, true, std::uint8_t>;
using float8e5m2_format = float_format<5, 2, 15, float_kind::ieee, 0x7B, true, std::uint8_t>;
using float8e5m2fnuz_format = float_format<5, 2, 16, float_kind::fnuz, 0x7F, true, std::uint8_t>;
using float4e2m1_format = float_format<2, 1, 1, float_kind::finite, 0x7, false, std::uint8_t>;

/// 2^e as a float for -149 <= e <= 127, built from bits so it is exact and constexpr.
[[nodiscard]] constexpr float pow2f(int e) noexcept {
  if (e >= -126) return std::bit_cast<float>(static_cast<std::uint32_t>(e + 127) << 23);
  return std::bit_cast<float>(std::uint32_t{1} << (e + 149));
}

/// 2^e as a double for -1022 <= e <= 1023.
[[nodiscard]] constexpr double pow2d(int e) noexcept {
  return std::bit_cast<double>(static_cast<std::uint64_t>(e + 1023) << 52);
}

/// A finite nonzero double split as value = sig * 2^(exp - 52) with sig's top bit at bit 52.
struct unpacked_double {
  bool negative;
  bool is_nan;
  bool is_inf;
  bool is_zero;
  std::uint64_t sig;  ///< normalised significand, 2^52 <= sig < 2^53 (finite nonzero only)
  int exp;            ///< unbiased exponent of sig's leading bit
};

/// Splits `x` into sign, class and a normalised (subnormals too) significand/exponent.
[[nodiscard]] constexpr unpacked_double unpack_double(double x) noexcept {
  const auto b = std::bit_cast<std::uint64_t>(x);
  const bool neg = (b >> 63) != 0;
  const auto ed = static_cast<int>((b >> 52) & 0x7FF);
  const std::uint64_t md = b & ((std::uint64_t{1} << 52) - 1);
  if (ed == 0x7FF) return {neg, md != 0, md == 0, false, 0, 0};
  if (ed == 0) {
    if (md == 0) return {neg, false, false, true, 0, 0};
    const int lz = std::countl_zero(md) - 11;  // shift that brings the leading bit to bit 52
    return {neg, false, false, false, md << lz, -1022 - lz};
  }
  return {neg, false, false, false, md | (std::uint64_t{1} << 52), ed - 1023};
}

/// sig / 2^shift rounded to nearest, ties to even (shift >= 0; large shifts give 0).
[[nodiscard]] constexpr std::uint64_t shift_right_rne(std::uint64_t sig, int shift) noexcept {
  if (shift <= 0) return sig;
  if (shift >= 64) return 0;  // sig < 2^53, so the quotient is < 2^-11: rounds to 0
  const std::uint64_t q = sig >> shift;
  const std::uint64_t rem = sig & ((std::uint64_t{1} << shift) - 1);
  const std::uint64_t half = std::uint64_t{1} << (shift - 1);
  return (rem > half || (rem == half && (q & 1) != 0)) ? q + 1 : q;
}

/// Encodes `x` into format F following Cast-25 (RNE with unbounded exponent, then the overflow rules).
template <class F>
[[nodiscard]] constexpr std::uint16_t encode_float(double x, bool saturate) noexcept {
  const auto u = unpack_double(x);
  const std::uint16_t sign = u.negative ? F::sign_mask : std::uint16_t{0};
  const auto with_sign = [sign](unsigned mag) { return static_cast<std::uint16_t>(sign | mag); };
  const std::uint16_t inf_bits = static_cast<std::uint16_t>(F::exp_max << F::man_bits);
  // What an out-of-range magnitude (or Inf) becomes when it is not clamped to max.
  const auto overflow = [&]() -> std::uint16_t {
    if constexpr (F::kind == float_kind::ieee) {
      return with_sign(saturate && F::saturates ? F::max_bits : inf_bits);
    } else if constexpr (F::kind == float_kind::fn) {
      return with_sign(saturate ? F::max_bits : F::all_mask >> 1);
    } else if constexpr (F::kind == float_kind::fnuz) {
      return saturate ? with_sign(F::max_bits) : F::sign_mask;
    } else {
      return with_sign(F::max_bits);  // float4: always clamps (float4.md)
    }
  };
  if (u.is_nan) {
    if constexpr (F::kind == float_kind::ieee) {
      // Quiet NaN, sign and the top payload bits kept, like hardware float->half conversions.
      const auto payload = static_cast<unsigned>(
          (std::bit_cast<std::uint64_t>(x) >> (52 - F::man_bits)) & F::man_mask);
      return with_sign(inf_bits | (1u << (F::man_bits - 1)) | payload);
    } else if constexpr (F::kind == float_kind::fn) {
      return with_sign(F::all_mask >> 1);
    } else if constexpr (F::kind == float_kind::fnuz) {
      return F::sign_mask;
    } else {
      return F::max_bits;  // float4.md: NaN -> +6, whatever the sign
    }
  }
  if (u.is_inf) return overflow();
  if (u.is_zero) return F::kind == float_kind::fnuz ? std::uint16_t{0} : sign;
  // Exponent of the target's ulp at this magnitude; below emin the ulp stays at the subnormal one.
  const int q = (u.exp >= F::emin ? u.exp : F::emin) - F::man_bits;
  const std::uint64_t r = shift_right_rne(u.sig, q - (u.exp - 52));
  // Magnitude encoding, extended past the format's top so overflow is a plain comparison.
  // In the normal range a carry out of the mantissa correctly bumps the exponent field.
  std::uint64_t mag = r;
  if (u.exp >= F::emin) {
    mag = (static_cast<std::uint64_t>(u.exp + F::bias) << F::man_bits) + r - (std::uint64_t{1} << F::man_bits);
  }
  if (mag > F::max_bits) return overflow();
  if (mag == 0 && F::kind == float_kind::fnuz) return 0;  // FNUZ has no -0: underflow is +0
  return with_sign(static_cast<unsigned>(mag));
}

/// Decodes format F's `bits` into the float32 with the same value (NaN: quiet, sign kept if the format has one).
template <class F>
[[nodiscard]] constexpr float decode_float(std::uint16_t bits) noexcept {
  const std::uint32_t sign = (bits & F::sign_mask) != 0 ? 0x80000000u : 0u;
  const unsigned exp = (bits >> F::man_bits) & F::exp_max;
  const unsigned man = bits & F::man_mask;
  constexpr std::uint32_t f32_qnan = 0x7FC00000u;
  if constexpr (F::kind == float_kind::ieee) {
    if (exp == F::exp_max) {
      const std::uint32_t payload = static_cast<std::uint32_t>(man) << (23 - F::man_bits);
      return std::bit_cast<float>(sign | (man == 0 ? 0x7F800000u : (f32_qnan | payload)));
    }
  } else if constexpr (F::kind == float_kind::fn) {
    if (exp == F::exp_max && man == F::man_mask) return std::bit_cast<float>(sign | f32_qnan);
  } else if constexpr (F::kind == float_kind::fnuz) {
    if (bits == F::sign_mask) return std::bit_cast<float>(f32_qnan);
  }
  if constexpr (F::exp_bits == 8) {
    // bfloat16 is the top half of a float32, subnormals included.
    return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16);
  } else {
    if (exp == 0) {
      if (man == 0) return std::bit_cast<float>(sign);
      // Subnormal: man * 2^(emin - M); every such value is a normal float32 for these formats.
      const int lead = static_cast<int>(std::bit_width(man)) - 1;
      const auto fexp = static_cast<std::uint32_t>(F::emin - F::man_bits + lead + 127);
      const std::uint32_t fman = (static_cast<std::uint32_t>(man) << (23 - lead)) & 0x7FFFFFu;
      return std::bit_cast<float>(sign | (fexp << 23) | fman);
    }
    const auto fexp = static_cast<std::uint32_t>(static_cast<int>(exp) - F::bias + 127);
    return std::bit_cast<float>(sign | (fexp << 23) | (static_cast<std::uint32_t>(man) << (23 - F::man_bits)));
  }
}

}  // namespace detail

/// A floating-point value stored in format F's encoding; use the aliases (`float16`, ...) below.
template <class F>
class basic_float {
 public:
  /// The unsigned integer holding the encoding (sub-byte formats use its low bits).
  using bits_type = typename F::bits_type;
  /// The format description (exponent/mantissa widths, bias, special-value kind).
  using format = F;

  /// Trivial, so arrays of values can be left uninitialised; `basic_float{}` is +0.
  basic_float() = default;
  /// Same as `from_float(x, true)`; explicit because the conversion rounds.
  explicit constexpr basic_float(float x) noexcept : bits_(from_float(x).bits_) {}
  /// Same as `from_double(x, true)`: rounds once, straight from double.
  explicit constexpr basic_float(double x) noexcept : bits_(from_double(x).bits_) {}
  /// Converts an integer with a single rounding (no detour through a rounded double).
  template <class I>
    requires std::is_integral_v<I>
  explicit constexpr basic_float(I v) noexcept : bits_(from_double(integer_to_double(v)).bits_) {}

  /// The value whose encoding is `bits` (bits above the format's width are ignored).
  [[nodiscard]] static constexpr basic_float from_bits(bits_type bits) noexcept {
    basic_float r;
    r.bits_ = static_cast<bits_type>(bits & F::all_mask);
    return r;
  }
  /// The encoding; sub-byte formats occupy the low bits, the rest is zero.
  [[nodiscard]] constexpr bits_type bits() const noexcept { return bits_; }

  /// Rounds `x` to nearest-even; `saturate` follows Cast-25 (ignored by formats it doesn't apply to).
  [[nodiscard]] static constexpr basic_float from_float(float x, bool saturate = true) noexcept {
    return from_double(static_cast<double>(x), saturate);  // float -> double is exact
  }
  /// Like from_float, but rounds the double directly, avoiding double rounding through float.
  [[nodiscard]] static constexpr basic_float from_double(double x, bool saturate = true) noexcept {
    return from_bits(static_cast<bits_type>(detail::encode_float<F>(x, saturate)));
  }

  /// The exact value as float32 (every value of these formats is a float32).
  [[nodiscard]] explicit constexpr operator float() const noexcept { return detail::decode_float<F>(bits_); }
  /// The exact value as double.
  [[nodiscard]] explicit constexpr operator double() const noexcept {
    return static_cast<double>(detail::decode_float<F>(bits_));
  }

  /// True for any NaN encoding of the format (never for float4e2m1).
  [[nodiscard]] constexpr bool is_nan() const noexcept {
    const unsigned mag = bits_ & (F::all_mask >> 1);
    if constexpr (F::kind == detail::float_kind::ieee) return mag > (F::exp_max << F::man_bits);
    else if constexpr (F::kind == detail::float_kind::fn) return mag == (F::all_mask >> 1u);
    else if constexpr (F::kind == detail::float_kind::fnuz) return bits_ == F::sign_mask;
    else return false;
  }
  /// True for ±Inf (only float16, bfloat16 and float8e5m2 have infinities).
  [[nodiscard]] constexpr bool is_inf() const noexcept {
    if constexpr (F::kind == detail::float_kind::ieee) {
      return (bits_ & (F::all_mask >> 1)) == (F::exp_max << F::man_bits);
    } else {
      return false;
    }
  }

  /// Negation flips the sign; FNUZ zero and NaN have no negative counterpart and stay as they are.
  [[nodiscard]] constexpr basic_float operator-() const noexcept {
    if constexpr (F::kind == detail::float_kind::fnuz) {
      if ((bits_ & (F::all_mask >> 1)) == 0) return *this;
    }
    return from_bits(static_cast<bits_type>(bits_ ^ F::sign_mask));
  }
  /// Identity, for symmetry with unary minus.
  [[nodiscard]] constexpr basic_float operator+() const noexcept { return *this; }

  /// IEEE equality by value: NaN != NaN, -0 == +0.
  [[nodiscard]] friend constexpr bool operator==(basic_float a, basic_float b) noexcept {
    return static_cast<float>(a) == static_cast<float>(b);
  }
  /// IEEE ordering by value: NaN is unordered with everything.
  [[nodiscard]] friend constexpr std::partial_ordering operator<=>(basic_float a, basic_float b) noexcept {
    return static_cast<float>(a) <=> static_cast<float>(b);
  }

  /// Prints the value as float32 does (the stream header must be included by the caller).
  template <class CharT, class Traits>
  friend std::basic_ostream<CharT, Traits>& operator<<(std::basic_ostream<CharT, Traits>& os, basic_float v) {
    return os << static_cast<float>(v);
  }

 private:
  /// Integer -> double rounded to odd at 53 bits, so the later rounding to F is the only visible one.
  template <class I>
  static constexpr double integer_to_double(I v) noexcept {
    if constexpr (sizeof(I) < 4) {
      return static_cast<double>(v);
    } else {
      bool neg = false;
      if constexpr (std::is_signed_v<I>) neg = v < 0;
      std::uint64_t m = neg ? std::uint64_t{0} - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v);
      int shift = 0;
      if (const auto w = static_cast<int>(std::bit_width(m)); w > 53) {
        shift = w - 53;
        const bool sticky = (m & ((std::uint64_t{1} << shift) - 1)) != 0;
        m = (m >> shift) | (sticky ? 1u : 0u);
      }
      const double d = static_cast<double>(m) * detail::pow2d(shift);  // exact: m has <= 53 bits
      return neg ? -d : d;
    }
  }

  bits_type bits_;
};

/// IEEE 754 binary16: 1/5/10, bias 15, Inf and NaN; overflow gives ±Inf.
using float16 = basic_float<detail::float16_format>;
/// bfloat16: the top 16 bits of a float32 (1/8/7, bias 127), Inf and NaN; overflow gives ±Inf.
using bfloat16 = basic_float<detail::bfloat16_format>;
/// FLOAT8E4M3FN: 1/4/3, bias 7, no Inf, NaN only S.1111.111, max 448.
using float8e4m3fn = basic_float<detail::float8e4m3fn_format>;
/// FLOAT8E4M3FNUZ: 1/4/3, bias 8, no Inf, no -0, NaN only 0x80, max 240.
using float8e4m3fnuz = basic_float<detail::float8e4m3fnuz_format>;
/// FLOAT8E5M2: 1/5/2, bias 15, IEEE-like Inf/NaN, max 57344.
using float8e5m2 = basic_float<detail::float8e5m2_format>;
/// FLOAT8E5M2FNUZ: 1/5/2, bias 16, no Inf, no -0, NaN only 0x80, max 57344.
using float8e5m2fnuz = basic_float<detail::float8e5m2fnuz_format>;
/// FLOAT4E2M1: 1/2/1, bias 1, no Inf/NaN, values ±{0, 0.5, 1, 1.5, 2, 3, 4, 6}; out of range clamps.
using float4e2m1 = basic_float<detail::float4e2m1_format>;

/// FLOAT8E8M0: an unsigned power of two 2^(E-127), E = 0..254; 0xFF is NaN; no zero, no Inf.
class float8e8m0 {
 public:
  /// The unsigned integer holding the encoding (the biased exponent).
  using bits_type = std::uint8_t;
  /// Cast's `round_mode` for E8M0: up = toward +Inf (default), down = toward 0, nearest = ties up.
  enum class RoundMode : std::uint8_t { up, down, nearest };

  /// Trivial; `float8e8m0{}` is encoding 0x00, i.e. 2^-127 (the format has no zero).
  float8e8m0() = default;
  /// Same as `from_float(x, true, RoundMode::up)`.
  explicit constexpr float8e8m0(float x) noexcept : bits_(from_float(x).bits_) {}
  /// Same as `from_double(x, true, RoundMode::up)`.
  explicit constexpr float8e8m0(double x) noexcept : bits_(from_double(x).bits_) {}

  /// The value whose encoding is `bits`.
  [[nodiscard]] static constexpr float8e8m0 from_bits(bits_type bits) noexcept {
    float8e8m0 r;
    r.bits_ = bits;
    return r;
  }
  /// The encoding (biased exponent, 0xFF = NaN).
  [[nodiscard]] constexpr bits_type bits() const noexcept { return bits_; }

  /// Rounds with `mode` to a power of two; out-of-range/zero/negative clamp if `saturate`, else NaN.
  [[nodiscard]] static constexpr float8e8m0 from_float(float x, bool saturate, RoundMode mode) noexcept {
    return from_double(static_cast<double>(x), saturate, mode);
  }
  /// Cast-25 defaults: round_mode "up".
  [[nodiscard]] static constexpr float8e8m0 from_float(float x, bool saturate = true) noexcept {
    return from_double(static_cast<double>(x), saturate, RoundMode::up);
  }
  /// Cast-25 defaults: round_mode "up", from a double directly.
  [[nodiscard]] static constexpr float8e8m0 from_double(double x, bool saturate = true) noexcept {
    return from_double(x, saturate, RoundMode::up);
  }
  /// The general conversion; rounding is done before the range check, as Cast-25 specifies.
  [[nodiscard]] static constexpr float8e8m0 from_double(double x, bool saturate, RoundMode mode) noexcept {
    const auto u = detail::unpack_double(x);
    if (u.is_nan) return from_bits(0xFF);
    // Zero and negatives are below the range (negatives are undefined in the spec; we treat them as 0).
    const auto low = from_bits(saturate ? 0x00 : 0xFF);
    const auto high = from_bits(saturate ? 0xFE : 0xFF);
    if (u.is_zero || u.negative) return low;
    if (u.is_inf) return high;
    int e = u.exp;
    const std::uint64_t frac = u.sig & ((std::uint64_t{1} << 52) - 1);  // fraction bits below the leading one
    if (mode == RoundMode::up && frac != 0) ++e;
    if (mode == RoundMode::nearest && frac >= (std::uint64_t{1} << 51)) ++e;  // >= 1.5 * 2^e: ties go up
    if (e > 127) return high;
    if (e < -127) return low;
    return from_bits(static_cast<bits_type>(e + 127));
  }

  /// The exact value as float32 (0x00 = 2^-127 is a float32 subnormal); NaN for 0xFF.
  [[nodiscard]] explicit constexpr operator float() const noexcept {
    if (bits_ == 0xFF) return std::bit_cast<float>(0x7FC00000u);
    return detail::pow2f(static_cast<int>(bits_) - 127);
  }
  /// The exact value as double.
  [[nodiscard]] explicit constexpr operator double() const noexcept {
    return static_cast<double>(static_cast<float>(*this));
  }

  /// True only for 0xFF.
  [[nodiscard]] constexpr bool is_nan() const noexcept { return bits_ == 0xFF; }
  /// Always false: the format has no infinity.
  [[nodiscard]] constexpr bool is_inf() const noexcept { return false; }

  /// Equality by value; NaN != NaN.
  [[nodiscard]] friend constexpr bool operator==(float8e8m0 a, float8e8m0 b) noexcept {
    return !a.is_nan() && a.bits_ == b.bits_;
  }
  /// Ordering by value; NaN is unordered.
  [[nodiscard]] friend constexpr std::partial_ordering operator<=>(float8e8m0 a, float8e8m0 b) noexcept {
    if (a.is_nan() || b.is_nan()) return std::partial_ordering::unordered;
    return a.bits_ <=> b.bits_;
  }

  /// Prints the value as float32 does (the stream header must be included by the caller).
  template <class CharT, class Traits>
  friend std::basic_ostream<CharT, Traits>& operator<<(std::basic_ostream<CharT, Traits>& os, float8e8m0 v) {
    return os << static_cast<float>(v);
  }

 private:
  bits_type bits_;
};

static_assert(std::is_trivially_copyable_v<float16> && std::is_standard_layout_v<float16> &&
              sizeof(float16) == 2);
static_assert(std::is_trivially_copyable_v<bfloat16> && sizeof(bfloat16) == 2);
static_assert(std::is_trivially_copyable_v<float8e4m3fn> && sizeof(float8e4m3fn) == 1);
static_assert(std::is_trivially_copyable_v<float4e2m1> && sizeof(float4e2m1) == 1);
static_assert(std::is_trivially_copyable_v<float8e8m0> && std::is_standard_layout_v<float8e8m0> &&
              sizeof(float8e8m0) == 1);

namespace detail {
/// log10(2) ~ 30103/100000, good to the precision numeric_limits' decimal fields need.
inline constexpr int log10_2_num = 30103;
inline constexpr int log10_2_den = 100000;
/// numeric_limits::digits10 for `digits` binary digits: floor((digits-1) log10 2).
[[nodiscard]] constexpr int digits10_of(int digits) noexcept { return (digits - 1) * log10_2_num / log10_2_den; }
/// numeric_limits::max_digits10: ceil(digits log10 2 + 1), log10 2 being irrational.
[[nodiscard]] constexpr int max_digits10_of(int digits) noexcept { return digits * log10_2_num / log10_2_den + 2; }
/// ceil(log10(2^e)) for e <= 0 (integer division truncates toward zero = ceil for negatives).
[[nodiscard]] constexpr int min_exponent10_of(int e) noexcept { return e * log10_2_num / log10_2_den; }
/// floor(log10(max)) for max >= 1, counted exactly with doubles.
[[nodiscard]] constexpr int max_exponent10_of(double max) noexcept {
  int n = 0;
  for (double p = 10.0; p <= max; p *= 10.0) ++n;
  return n;
}
}  // namespace detail

}  // namespace oxir

/// numeric_limits for the narrow floats; infinity()/quiet_NaN() are only meaningful when has_* is true
/// (otherwise they return +0, like the primary template), unlike ml_dtypes which returns NaN/max.
template <class F>
struct std::numeric_limits<oxir::basic_float<F>> {
 private:
  using T = oxir::basic_float<F>;
  using bits = typename F::bits_type;
  static constexpr bool ieee = F::kind == oxir::detail::float_kind::ieee;

 public:
  static constexpr bool is_specialized = true;
  static constexpr bool is_signed = true;
  static constexpr bool is_integer = false;
  static constexpr bool is_exact = false;
  static constexpr bool has_infinity = ieee;
  static constexpr bool has_quiet_NaN = F::kind != oxir::detail::float_kind::finite;
  static constexpr bool has_signaling_NaN = ieee;
  static constexpr std::float_denorm_style has_denorm = std::denorm_present;
  static constexpr bool has_denorm_loss = false;
  static constexpr std::float_round_style round_style = std::round_to_nearest;
  static constexpr bool is_iec559 = std::is_same_v<F, oxir::detail::float16_format>;
  static constexpr bool is_bounded = true;
  static constexpr bool is_modulo = false;
  static constexpr int digits = F::man_bits + 1;
  static constexpr int digits10 = oxir::detail::digits10_of(digits);
  static constexpr int max_digits10 = oxir::detail::max_digits10_of(digits);
  static constexpr int radix = 2;
  static constexpr int min_exponent = F::emin + 1;
  static constexpr int min_exponent10 = oxir::detail::min_exponent10_of(F::emin);
  static constexpr int max_exponent = (F::max_bits >> F::man_bits) - F::bias + 1;
  static constexpr int max_exponent10 =
      oxir::detail::max_exponent10_of(static_cast<double>(oxir::detail::decode_float<F>(F::max_bits)));
  static constexpr bool traps = false;
  static constexpr bool tinyness_before = false;

  /// Smallest positive normal value.
  [[nodiscard]] static constexpr T min() noexcept { return T::from_bits(static_cast<bits>(1u << F::man_bits)); }
  /// Largest finite value.
  [[nodiscard]] static constexpr T max() noexcept { return T::from_bits(F::max_bits); }
  /// Most negative finite value.
  [[nodiscard]] static constexpr T lowest() noexcept { return T::from_bits(static_cast<bits>(F::sign_mask | F::max_bits)); }
  /// Distance from 1 to the next value: 2^-man_bits.
  [[nodiscard]] static constexpr T epsilon() noexcept { return T::from_float(oxir::detail::pow2f(-F::man_bits)); }
  /// Maximum rounding error of round-to-nearest, in ulps.
  [[nodiscard]] static constexpr T round_error() noexcept { return T::from_float(0.5f); }
  /// +Inf where the format has it, else +0.
  [[nodiscard]] static constexpr T infinity() noexcept {
    return ieee ? T::from_bits(static_cast<bits>(F::exp_max << F::man_bits)) : T{};
  }
  /// The canonical quiet NaN (0x7E00, 0x7FC0, 0x7F, 0x80, 0x7E), or +0 for float4e2m1.
  [[nodiscard]] static constexpr T quiet_NaN() noexcept {
    if constexpr (ieee) return T::from_bits(static_cast<bits>((F::exp_max << F::man_bits) | (1u << (F::man_bits - 1))));
    else if constexpr (F::kind == oxir::detail::float_kind::fn) return T::from_bits(static_cast<bits>(F::all_mask >> 1));
    else if constexpr (F::kind == oxir::detail::float_kind::fnuz) return T::from_bits(static_cast<bits>(F::sign_mask));
    else return T{};
  }
  /// A signalling NaN (quiet bit clear) for the IEEE-like formats, else +0.
  [[nodiscard]] static constexpr T signaling_NaN() noexcept {
    return ieee ? T::from_bits(static_cast<bits>((F::exp_max << F::man_bits) | 1u)) : T{};
  }
  /// Smallest positive subnormal value.
  [[nodiscard]] static constexpr T denorm_min() noexcept { return T::from_bits(1); }
};

/// numeric_limits for E8M0: unsigned powers of two 2^-127 ... 2^127, NaN, no Inf, no subnormals.
template <>
struct std::numeric_limits<oxir::float8e8m0> {
 private:
  using T = oxir::float8e8m0;

 public:
  static constexpr bool is_specialized = true;
  static constexpr bool is_signed = false;
  static constexpr bool is_integer = false;
  static constexpr bool is_exact = false;
  static constexpr bool has_infinity = false;
  static constexpr bool has_quiet_NaN = true;
  static constexpr bool has_signaling_NaN = false;
  static constexpr std::float_denorm_style has_denorm = std::denorm_absent;
  static constexpr bool has_denorm_loss = false;
  static constexpr std::float_round_style round_style = std::round_toward_infinity;  // Cast's default "up"
  static constexpr bool is_iec559 = false;
  static constexpr bool is_bounded = true;
  static constexpr bool is_modulo = false;
  static constexpr int digits = 1;
  static constexpr int digits10 = 0;
  static constexpr int max_digits10 = oxir::detail::max_digits10_of(1);
  static constexpr int radix = 2;
  static constexpr int min_exponent = -126;
  static constexpr int min_exponent10 = oxir::detail::min_exponent10_of(-127);
  static constexpr int max_exponent = 128;
  static constexpr int max_exponent10 = 38;
  static constexpr bool traps = false;
  static constexpr bool tinyness_before = false;

  /// 2^-127, the smallest value (there is no zero).
  [[nodiscard]] static constexpr T min() noexcept { return T::from_bits(0x00); }
  /// 2^127.
  [[nodiscard]] static constexpr T max() noexcept { return T::from_bits(0xFE); }
  /// 2^-127: the format is unsigned, so lowest() == min().
  [[nodiscard]] static constexpr T lowest() noexcept { return T::from_bits(0x00); }
  /// 1.0: the value after 1 is 2.
  [[nodiscard]] static constexpr T epsilon() noexcept { return T::from_bits(0x7F); }
  /// 1.0: with round-up the error can approach a whole ulp.
  [[nodiscard]] static constexpr T round_error() noexcept { return T::from_bits(0x7F); }
  /// Not meaningful (has_infinity is false); returns min() like a zero-initialised value.
  [[nodiscard]] static constexpr T infinity() noexcept { return T{}; }
  /// 0xFF.
  [[nodiscard]] static constexpr T quiet_NaN() noexcept { return T::from_bits(0xFF); }
  /// Not meaningful (has_signaling_NaN is false); returns the zero-initialised value.
  [[nodiscard]] static constexpr T signaling_NaN() noexcept { return T{}; }
  /// No subnormals: equals min(), as the standard asks when has_denorm is denorm_absent.
  [[nodiscard]] static constexpr T denorm_min() noexcept { return T::from_bits(0x00); }
};
