#pragma once
// onnx.proto's assignment of element types to TensorProto's typed value fields.

#include <cstdint>

#include "../core/data_type.hpp"

namespace oxir::io {

/// The TensorProto field number holding values of type `t` when they are not in raw_data:
/// float_data (4), int32_data (5: also every narrower integer, bool, float16/bfloat16, the float8,
/// 4-bit and 2-bit types), int64_data (7), double_data (10), uint64_data (11: also uint32);
/// 0 for strings (string_data) and unknown types.
constexpr std::uint32_t typed_field_for(DataType t) noexcept {
  switch (t) {
    case DataType::FLOAT:
    case DataType::COMPLEX64: return 4;
    case DataType::INT64: return 7;
    case DataType::DOUBLE:
    case DataType::COMPLEX128: return 10;
    case DataType::UINT32:
    case DataType::UINT64: return 11;
    case DataType::STRING:
    case DataType::UNDEFINED: return 0;
    default: return is_known(t) ? 5 : 0;
  }
}

}  // namespace oxir::io
