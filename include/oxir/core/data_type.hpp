#pragma once
// The ONNX element types (TensorProto.DataType) and their constexpr properties.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace oxir {

/// Element type of a tensor, numbered exactly as TensorProto.DataType in onnx.proto.
enum class DataType : std::int32_t {
  UNDEFINED = 0,
  FLOAT = 1,
  UINT8 = 2,
  INT8 = 3,
  UINT16 = 4,
  INT16 = 5,
  INT32 = 6,
  INT64 = 7,
  STRING = 8,
  BOOL = 9,
  FLOAT16 = 10,
  DOUBLE = 11,
  UINT32 = 12,
  UINT64 = 13,
  COMPLEX64 = 14,
  COMPLEX128 = 15,
  BFLOAT16 = 16,
  FLOAT8E4M3FN = 17,
  FLOAT8E4M3FNUZ = 18,
  FLOAT8E5M2 = 19,
  FLOAT8E5M2FNUZ = 20,
  UINT4 = 21,
  INT4 = 22,
  FLOAT4E2M1 = 23,
  FLOAT8E8M0 = 24,
  UINT2 = 25,
  INT2 = 26,
};

/// Allows `DataType::FLOAT8E4M3FN == 17` as the ONNX documentation writes it.
constexpr bool operator==(DataType a, std::int32_t b) noexcept { return static_cast<std::int32_t>(a) == b; }

/// Static facts about one DataType; `bit_width` is 0 for STRING and UNDEFINED (no fixed width).
struct DataTypeInfo {
  DataType type;
  std::string_view name;  ///< ONNX spelling, e.g. "FLOAT8E4M3FN"
  int bit_width;          ///< bits per element as stored in raw_data (complex: both parts)
  bool is_floating;       ///< real floating point (float16 ... float4); not complex
  bool is_integer;        ///< integral, including sub-byte ints; not bool
  bool is_signed;         ///< can represent negative values
  bool is_complex;
  int ir_version;         ///< first IR version that defines the type (1 = always existed)
};

namespace detail {
inline constexpr std::array<DataTypeInfo, 27> data_type_table{{
    {DataType::UNDEFINED, "UNDEFINED", 0, false, false, false, false, 1},
    {DataType::FLOAT, "FLOAT", 32, true, false, true, false, 1},
    {DataType::UINT8, "UINT8", 8, false, true, false, false, 1},
    {DataType::INT8, "INT8", 8, false, true, true, false, 1},
    {DataType::UINT16, "UINT16", 16, false, true, false, false, 1},
    {DataType::INT16, "INT16", 16, false, true, true, false, 1},
    {DataType::INT32, "INT32", 32, false, true, true, false, 1},
    {DataType::INT64, "INT64", 64, false, true, true, false, 1},
    {DataType::STRING, "STRING", 0, false, false, false, false, 1},
    {DataType::BOOL, "BOOL", 8, false, false, false, false, 1},
    {DataType::FLOAT16, "FLOAT16", 16, true, false, true, false, 1},
    {DataType::DOUBLE, "DOUBLE", 64, true, false, true, false, 1},
    {DataType::UINT32, "UINT32", 32, false, true, false, false, 1},
    {DataType::UINT64, "UINT64", 64, false, true, false, false, 1},
    {DataType::COMPLEX64, "COMPLEX64", 64, false, false, true, true, 1},
    {DataType::COMPLEX128, "COMPLEX128", 128, false, false, true, true, 1},
    {DataType::BFLOAT16, "BFLOAT16", 16, true, false, true, false, 4},
    {DataType::FLOAT8E4M3FN, "FLOAT8E4M3FN", 8, true, false, true, false, 9},
    {DataType::FLOAT8E4M3FNUZ, "FLOAT8E4M3FNUZ", 8, true, false, true, false, 9},
    {DataType::FLOAT8E5M2, "FLOAT8E5M2", 8, true, false, true, false, 9},
    {DataType::FLOAT8E5M2FNUZ, "FLOAT8E5M2FNUZ", 8, true, false, true, false, 9},
    {DataType::UINT4, "UINT4", 4, false, true, false, false, 10},
    {DataType::INT4, "INT4", 4, false, true, true, false, 10},
    {DataType::FLOAT4E2M1, "FLOAT4E2M1", 4, true, false, true, false, 11},
    {DataType::FLOAT8E8M0, "FLOAT8E8M0", 8, true, false, false, false, 12},
    {DataType::UINT2, "UINT2", 2, false, true, false, false, 13},
    {DataType::INT2, "INT2", 2, false, true, true, false, 13},
}};
}  // namespace detail

/// True for the values 0..26 that onnx.proto defines.
[[nodiscard]] constexpr bool is_known(DataType t) noexcept {
  auto v = static_cast<std::int32_t>(t);
  return v >= 0 && v < static_cast<std::int32_t>(detail::data_type_table.size());
}

/// Facts about `t`; an unknown value yields the UNDEFINED row.
[[nodiscard]] constexpr const DataTypeInfo& data_type_info(DataType t) noexcept {
  return detail::data_type_table[is_known(t) ? static_cast<std::size_t>(t) : 0];
}

/// ONNX spelling ("FLOAT", "INT4", ...); "UNDEFINED" for unknown values.
[[nodiscard]] constexpr std::string_view data_type_name(DataType t) noexcept { return data_type_info(t).name; }
/// Bits per element in raw_data; 0 for STRING/UNDEFINED.
[[nodiscard]] constexpr int bit_width(DataType t) noexcept { return data_type_info(t).bit_width; }
/// Real floating point (float16 ... float4, float8e8m0); not complex.
[[nodiscard]] constexpr bool is_floating(DataType t) noexcept { return data_type_info(t).is_floating; }
/// Integral, including the sub-byte integers; bool is not.
[[nodiscard]] constexpr bool is_integer(DataType t) noexcept { return data_type_info(t).is_integer; }
/// Can represent negative values.
[[nodiscard]] constexpr bool is_signed(DataType t) noexcept { return data_type_info(t).is_signed; }
/// COMPLEX64 or COMPLEX128.
[[nodiscard]] constexpr bool is_complex(DataType t) noexcept { return data_type_info(t).is_complex; }
/// Elements narrower than a byte (4- and 2-bit types), packed several to a byte, lowest bits first.
[[nodiscard]] constexpr bool is_sub_byte(DataType t) noexcept {
  return bit_width(t) > 0 && bit_width(t) < 8;
}

/// Bytes needed to store `count` elements in raw_data (sub-byte types packed, last byte padded);
/// nullopt for STRING/UNDEFINED or when the size does not fit in 64 bits.
[[nodiscard]] constexpr std::optional<std::uint64_t> storage_bytes(DataType t, std::uint64_t count) noexcept {
  const auto bits = static_cast<std::uint64_t>(bit_width(t));
  if (bits == 0) return std::nullopt;
  if (bits >= 8) {
    const auto per = bits / 8;
    if (count > UINT64_MAX / per) return std::nullopt;
    return count * per;
  }
  const auto per_byte = 8 / bits;
  return count / per_byte + (count % per_byte != 0 ? 1 : 0);
}

/// The DataType spelled `text` (ONNX upper-case names, also lower-case); nullopt if none.
[[nodiscard]] constexpr std::optional<DataType> data_type_from_name(std::string_view text) noexcept {
  for (const auto& row : detail::data_type_table) {
    if (row.name.size() != text.size()) continue;
    bool same = true;
    for (std::size_t i = 0; i < text.size() && same; ++i) {
      char c = text[i];
      if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
      same = c == row.name[i];
    }
    if (same) return row.type;
  }
  return std::nullopt;
}

}  // namespace oxir
