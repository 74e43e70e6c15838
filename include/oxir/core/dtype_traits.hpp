#pragma once
// Compile-time mapping between DataType and the C++ type that holds one element.
//
//   dtype_traits<DataType::FLOAT16>::value_type  -> oxir::float16
//   data_type_of<oxir::float16>                 -> DataType::FLOAT16
//
// The mapping is one-to-one: each DataType (except UNDEFINED) has exactly one value_type and
// data_type_of inverts it. Aliases of those types (std::int64_t == long on LP64) map too, but
// other spellings of the same width (long long, char) do not: they are not element types.

#include <complex>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

#include "oxir/core/data_type.hpp"
#include "oxir/core/float_types.hpp"
#include "oxir/core/int_types.hpp"

namespace oxir {

/// Static properties of element type `T`; specialised for every DataType except UNDEFINED.
template <DataType T>
struct dtype_traits;

namespace detail {
/// The facts from data_type.hpp, repeated as constants so they are usable as template arguments.
template <DataType T, class V>
struct dtype_traits_base {
  using value_type = V;  ///< C++ type of one (unpacked) element
  static constexpr DataType type = T;
  static constexpr std::string_view name = data_type_name(T);
  static constexpr int bit_width = oxir::bit_width(T);
  static constexpr bool is_floating = oxir::is_floating(T);
  static constexpr bool is_integer = oxir::is_integer(T);
  static constexpr bool is_signed = oxir::is_signed(T);
  static constexpr bool is_complex = oxir::is_complex(T);
  static constexpr bool is_sub_byte = oxir::is_sub_byte(T);
  static constexpr int ir_version = data_type_info(T).ir_version;
};
}  // namespace detail

/// float32.
template <> struct dtype_traits<DataType::FLOAT> : detail::dtype_traits_base<DataType::FLOAT, float> {};
/// uint8.
template <> struct dtype_traits<DataType::UINT8> : detail::dtype_traits_base<DataType::UINT8, std::uint8_t> {};
/// int8.
template <> struct dtype_traits<DataType::INT8> : detail::dtype_traits_base<DataType::INT8, std::int8_t> {};
/// uint16.
template <> struct dtype_traits<DataType::UINT16> : detail::dtype_traits_base<DataType::UINT16, std::uint16_t> {};
/// int16.
template <> struct dtype_traits<DataType::INT16> : detail::dtype_traits_base<DataType::INT16, std::int16_t> {};
/// int32.
template <> struct dtype_traits<DataType::INT32> : detail::dtype_traits_base<DataType::INT32, std::int32_t> {};
/// int64.
template <> struct dtype_traits<DataType::INT64> : detail::dtype_traits_base<DataType::INT64, std::int64_t> {};
/// UTF-8 string (no fixed width; never stored in raw_data).
template <> struct dtype_traits<DataType::STRING> : detail::dtype_traits_base<DataType::STRING, std::string> {};
/// bool, one byte per element in raw_data.
template <> struct dtype_traits<DataType::BOOL> : detail::dtype_traits_base<DataType::BOOL, bool> {};
/// IEEE binary16.
template <> struct dtype_traits<DataType::FLOAT16> : detail::dtype_traits_base<DataType::FLOAT16, float16> {};
/// float64.
template <> struct dtype_traits<DataType::DOUBLE> : detail::dtype_traits_base<DataType::DOUBLE, double> {};
/// uint32.
template <> struct dtype_traits<DataType::UINT32> : detail::dtype_traits_base<DataType::UINT32, std::uint32_t> {};
/// uint64.
template <> struct dtype_traits<DataType::UINT64> : detail::dtype_traits_base<DataType::UINT64, std::uint64_t> {};
/// Two float32 (real, imaginary).
template <>
struct dtype_traits<DataType::COMPLEX64> : detail::dtype_traits_base<DataType::COMPLEX64, std::complex<float>> {};
/// Two float64 (real, imaginary).
template <>
struct dtype_traits<DataType::COMPLEX128> : detail::dtype_traits_base<DataType::COMPLEX128, std::complex<double>> {};
/// bfloat16.
template <> struct dtype_traits<DataType::BFLOAT16> : detail::dtype_traits_base<DataType::BFLOAT16, bfloat16> {};
/// float8 E4M3FN.
template <>
struct dtype_traits<DataType::FLOAT8E4M3FN> : detail::dtype_traits_base<DataType::FLOAT8E4M3FN, float8e4m3fn> {};
/// float8 E4M3FNUZ.
template <>
struct dtype_traits<DataType::FLOAT8E4M3FNUZ>
    : detail::dtype_traits_base<DataType::FLOAT8E4M3FNUZ, float8e4m3fnuz> {};
/// float8 E5M2.
template <>
struct dtype_traits<DataType::FLOAT8E5M2> : detail::dtype_traits_base<DataType::FLOAT8E5M2, float8e5m2> {};
/// float8 E5M2FNUZ.
template <>
struct dtype_traits<DataType::FLOAT8E5M2FNUZ>
    : detail::dtype_traits_base<DataType::FLOAT8E5M2FNUZ, float8e5m2fnuz> {};
/// uint4, packed two per byte.
template <> struct dtype_traits<DataType::UINT4> : detail::dtype_traits_base<DataType::UINT4, uint4> {};
/// int4, packed two per byte.
template <> struct dtype_traits<DataType::INT4> : detail::dtype_traits_base<DataType::INT4, int4> {};
/// float4 E2M1, packed two per byte.
template <>
struct dtype_traits<DataType::FLOAT4E2M1> : detail::dtype_traits_base<DataType::FLOAT4E2M1, float4e2m1> {};
/// float8 E8M0 (unsigned power of two).
template <>
struct dtype_traits<DataType::FLOAT8E8M0> : detail::dtype_traits_base<DataType::FLOAT8E8M0, float8e8m0> {};
/// uint2, packed four per byte.
template <> struct dtype_traits<DataType::UINT2> : detail::dtype_traits_base<DataType::UINT2, uint2> {};
/// int2, packed four per byte.
template <> struct dtype_traits<DataType::INT2> : detail::dtype_traits_base<DataType::INT2, int2> {};

/// Shorthand for `dtype_traits<T>::value_type`.
template <DataType T>
using dtype_value_t = typename dtype_traits<T>::value_type;

/// The DataType whose value_type is exactly `T` (no cv/ref stripping); UNDEFINED if none.
template <class T>
inline constexpr DataType data_type_of = DataType::UNDEFINED;
/// FLOAT.
template <> inline constexpr DataType data_type_of<float> = DataType::FLOAT;
/// UINT8.
template <> inline constexpr DataType data_type_of<std::uint8_t> = DataType::UINT8;
/// INT8.
template <> inline constexpr DataType data_type_of<std::int8_t> = DataType::INT8;
/// UINT16.
template <> inline constexpr DataType data_type_of<std::uint16_t> = DataType::UINT16;
/// INT16.
template <> inline constexpr DataType data_type_of<std::int16_t> = DataType::INT16;
/// INT32.
template <> inline constexpr DataType data_type_of<std::int32_t> = DataType::INT32;
/// INT64.
template <> inline constexpr DataType data_type_of<std::int64_t> = DataType::INT64;
/// STRING.
template <> inline constexpr DataType data_type_of<std::string> = DataType::STRING;
/// BOOL.
template <> inline constexpr DataType data_type_of<bool> = DataType::BOOL;
/// FLOAT16.
template <> inline constexpr DataType data_type_of<float16> = DataType::FLOAT16;
/// DOUBLE.
template <> inline constexpr DataType data_type_of<double> = DataType::DOUBLE;
/// UINT32.
template <> inline constexpr DataType data_type_of<std::uint32_t> = DataType::UINT32;
/// UINT64.
template <> inline constexpr DataType data_type_of<std::uint64_t> = DataType::UINT64;
/// COMPLEX64.
template <> inline constexpr DataType data_type_of<std::complex<float>> = DataType::COMPLEX64;
/// COMPLEX128.
template <> inline constexpr DataType data_type_of<std::complex<double>> = DataType::COMPLEX128;
/// BFLOAT16.
template <> inline constexpr DataType data_type_of<bfloat16> = DataType::BFLOAT16;
/// FLOAT8E4M3FN.
template <> inline constexpr DataType data_type_of<float8e4m3fn> = DataType::FLOAT8E4M3FN;
/// FLOAT8E4M3FNUZ.
template <> inline constexpr DataType data_type_of<float8e4m3fnuz> = DataType::FLOAT8E4M3FNUZ;
/// FLOAT8E5M2.
template <> inline constexpr DataType data_type_of<float8e5m2> = DataType::FLOAT8E5M2;
/// FLOAT8E5M2FNUZ.
template <> inline constexpr DataType data_type_of<float8e5m2fnuz> = DataType::FLOAT8E5M2FNUZ;
/// UINT4.
template <> inline constexpr DataType data_type_of<uint4> = DataType::UINT4;
/// INT4.
template <> inline constexpr DataType data_type_of<int4> = DataType::INT4;
/// FLOAT4E2M1.
template <> inline constexpr DataType data_type_of<float4e2m1> = DataType::FLOAT4E2M1;
/// FLOAT8E8M0.
template <> inline constexpr DataType data_type_of<float8e8m0> = DataType::FLOAT8E8M0;
/// UINT2.
template <> inline constexpr DataType data_type_of<uint2> = DataType::UINT2;
/// INT2.
template <> inline constexpr DataType data_type_of<int2> = DataType::INT2;

/// A C++ type that is the value_type of some DataType (exact type: `const float` is not one).
template <class T>
concept ElementType = data_type_of<T> != DataType::UNDEFINED;

/// An element type stored with a fixed bit width in raw_data (everything except std::string).
template <class T>
concept FixedWidthElementType = ElementType<T> && oxir::bit_width(data_type_of<T>) > 0;

/// An element type narrower than a byte (int4, uint4, float4e2m1, int2, uint2), packed in tensors.
template <class T>
concept SubByteElementType = ElementType<T> && is_sub_byte(data_type_of<T>);

}  // namespace oxir
