// Tests of the DataType <-> C++ element type mapping.
#include <doctest/doctest.h>

#include <complex>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include "oxir/core/element_types.hpp"

namespace oxir_unit_test_dtype_traits {

namespace {

using oxir::DataType;
using oxir::dtype_traits;
using oxir::dtype_value_t;

static_assert(std::is_same_v<dtype_value_t<DataType::FLOAT>, float>);
static_assert(std::is_same_v<dtype_value_t<DataType::UINT8>, std::uint8_t>);
static_assert(std::is_same_v<dtype_value_t<DataType::INT8>, std::int8_t>);
static_assert(std::is_same_v<dtype_value_t<DataType::UINT16>, std::uint16_t>);
static_assert(std::is_same_v<dtype_value_t<DataType::INT16>, std::int16_t>);
static_assert(std::is_same_v<dtype_value_t<DataType::INT32>, std::int32_t>);
static_assert(std::is_same_v<dtype_value_t<DataType::INT64>, std::int64_t>);
static_assert(std::is_same_v<dtype_value_t<DataType::STRING>, std::string>);
static_assert(std::is_same_v<dtype_value_t<DataType::BOOL>, bool>);
static_assert(std::is_same_v<dtype_value_t<DataType::FLOAT16>, oxir::float16>);
static_assert(std::is_same_v<dtype_value_t<DataType::DOUBLE>, double>);
static_assert(std::is_same_v<dtype_value_t<DataType::UINT32>, std::uint32_t>);
static_assert(std::is_same_v<dtype_value_t<DataType::UINT64>, std::uint64_t>);
static_assert(std::is_same_v<dtype_value_t<DataType::COMPLEX64>, std::complex<float>>);
static_assert(std::is_same_v<dtype_value_t<DataType::COMPLEX128>, std::complex<double>>);
static_assert(std::is_same_v<dtype_value_t<DataType::BFLOAT16>, oxir::bfloat16>);
static_assert(std::is_same_v<dtype_value_t<DataType::FLOAT8E4M3FN>, oxir::float8e4m3fn>);
static_assert(std::is_same_v<dtype_value_t<DataType::FLOAT8E4M3FNUZ>, oxir::float8e4m3fnuz>);
static_assert(std::is_same_v<dtype_value_t<DataType::FLOAT8E5M2>, oxir::float8e5m2>);
static_assert(std::is_same_v<dtype_value_t<DataType::FLOAT8E5M2FNUZ>, oxir::float8e5m2fnuz>);
static_assert(std::is_same_v<dtype_value_t<DataType::UINT4>, oxir::uint4>);
static_assert(std::is_same_v<dtype_value_t<DataType::INT4>, oxir::int4>);
static_assert(std::is_same_v<dtype_value_t<DataType::FLOAT4E2M1>, oxir::float4e2m1>);
static_assert(std::is_same_v<dtype_value_t<DataType::FLOAT8E8M0>, oxir::float8e8m0>);
static_assert(std::is_same_v<dtype_value_t<DataType::UINT2>, oxir::uint2>);
static_assert(std::is_same_v<dtype_value_t<DataType::INT2>, oxir::int2>);

static_assert(oxir::ElementType<float> && oxir::ElementType<oxir::int4> && oxir::ElementType<std::string>);
static_assert(!oxir::ElementType<char> && !oxir::ElementType<const float> && !oxir::ElementType<long double>);
static_assert(!oxir::ElementType<int*> && !oxir::ElementType<void>);
static_assert(oxir::SubByteElementType<oxir::float4e2m1> && !oxir::SubByteElementType<oxir::float8e4m3fn>);
static_assert(oxir::FixedWidthElementType<bool> && !oxir::FixedWidthElementType<std::string>);
static_assert(oxir::data_type_of<oxir::float8e5m2fnuz> == DataType::FLOAT8E5M2FNUZ);
static_assert(oxir::data_type_of<long double> == DataType::UNDEFINED);

static_assert(dtype_traits<DataType::FLOAT8E4M3FN>::name == "FLOAT8E4M3FN");
static_assert(dtype_traits<DataType::INT2>::bit_width == 2 && dtype_traits<DataType::INT2>::is_sub_byte);
static_assert(dtype_traits<DataType::FLOAT8E8M0>::ir_version == 12 && !dtype_traits<DataType::FLOAT8E8M0>::is_signed);

/// Per DataType: the inverse maps back, the forwarded facts equal data_type.hpp's, and the value
/// type's size agrees with the bit width (sub-byte types use one byte per unpacked value).
template <DataType T>
constexpr bool consistent() {
  using Tr = dtype_traits<T>;
  using V = typename Tr::value_type;
  bool ok = oxir::data_type_of<V> == T && Tr::type == T;
  ok = ok && Tr::name == oxir::data_type_name(T) && Tr::bit_width == oxir::bit_width(T);
  ok = ok && Tr::is_floating == oxir::is_floating(T) && Tr::is_integer == oxir::is_integer(T);
  ok = ok && Tr::is_signed == oxir::is_signed(T) && Tr::is_complex == oxir::is_complex(T);
  ok = ok && Tr::is_sub_byte == oxir::is_sub_byte(T);
  if constexpr (!std::is_same_v<V, std::string>) {
    ok = ok && std::is_trivially_copyable_v<V>;
    ok = ok && (Tr::is_sub_byte ? sizeof(V) == 1 : sizeof(V) * 8 == static_cast<std::size_t>(Tr::bit_width));
    if constexpr (std::numeric_limits<V>::is_specialized) {
      ok = ok && std::numeric_limits<V>::is_signed == Tr::is_signed;
      ok = ok && std::numeric_limits<V>::is_integer == (Tr::is_integer || T == DataType::BOOL);
    }
  }
  return ok;
}

template <std::size_t... I>
constexpr bool all_consistent(std::index_sequence<I...>) {
  return (consistent<static_cast<DataType>(I + 1)>() && ...);  // 1..26: every type but UNDEFINED
}
static_assert(all_consistent(std::make_index_sequence<26>{}));

}  // namespace

TEST_CASE("dtype_traits: every DataType maps to a value type and back") {
  CHECK(all_consistent(std::make_index_sequence<26>{}));
  CHECK(dtype_traits<DataType::FLOAT16>::name == "FLOAT16");
  CHECK(dtype_traits<DataType::COMPLEX64>::bit_width == 64);
  CHECK(dtype_traits<DataType::COMPLEX64>::is_complex);
  CHECK(dtype_traits<DataType::UINT4>::is_integer);
  CHECK_FALSE(dtype_traits<DataType::UINT4>::is_signed);
  CHECK(dtype_traits<DataType::BFLOAT16>::is_floating);
}

TEST_CASE("dtype_traits: value types can be used generically through the traits") {
  // A generic "cast 1.5 to each float type" loop, as a Cast kernel would do it.
  CHECK(static_cast<float>(dtype_value_t<DataType::FLOAT8E4M3FN>::from_float(1.5f)) == 1.5f);
  CHECK(static_cast<float>(dtype_value_t<DataType::FLOAT4E2M1>::from_float(1.5f)) == 1.5f);
  CHECK(static_cast<int>(dtype_value_t<DataType::INT4>::from_float(1.5f)) == 2);
  CHECK(static_cast<float>(dtype_value_t<DataType::FLOAT8E8M0>::from_float(1.5f)) == 2.0f);
}

}  // namespace oxir_unit_test_dtype_traits
