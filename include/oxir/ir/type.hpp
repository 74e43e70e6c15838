#pragma once
// Type: TypeProto (tensor, sparse tensor, sequence, map, optional, opaque) with its denotation.

#include <optional>
#include <string>
#include <utility>
#include <variant>

#include "../core/data_type.hpp"
#include "box.hpp"
#include "shape.hpp"
#include "wire_info.hpp"

namespace oxir {

struct Type;

/// TypeProto.Tensor: element type and, if the rank is known, a shape.
struct TensorType {
  DataType elem_type = DataType::UNDEFINED;
  std::optional<Shape> shape;  ///< nullopt = unknown rank
  UnknownFields unknown_fields;
  FieldPresence presence;
  friend bool operator==(const TensorType&, const TensorType&) = default;
};

/// TypeProto.SparseTensor: same fields as a tensor type, different meaning.
struct SparseTensorType {
  DataType elem_type = DataType::UNDEFINED;
  std::optional<Shape> shape;
  UnknownFields unknown_fields;
  FieldPresence presence;
  friend bool operator==(const SparseTensorType&, const SparseTensorType&) = default;
};

/// TypeProto.Sequence: a sequence of values of one type (the element type may be absent).
struct SequenceType {
  Box<Type> elem_type;
  UnknownFields unknown_fields;
  friend bool operator==(const SequenceType&, const SequenceType&) = default;
};

/// TypeProto.Map: key element type (integral or string) to a value type.
struct MapType {
  DataType key_type = DataType::UNDEFINED;
  Box<Type> value_type;
  UnknownFields unknown_fields;
  FieldPresence presence;
  friend bool operator==(const MapType&, const MapType&) = default;
};

/// TypeProto.Optional: a value of `elem_type` or none.
struct OptionalType {
  Box<Type> elem_type;
  UnknownFields unknown_fields;
  friend bool operator==(const OptionalType&, const OptionalType&) = default;
};

/// TypeProto.Opaque (ONNX-ML): a type known only by domain and name.
struct OpaqueType {
  std::string domain;
  std::string name;
  UnknownFields unknown_fields;
  FieldPresence presence;
  friend bool operator==(const OpaqueType&, const OpaqueType&) = default;
};

/// The type of a value. `value` is empty (monostate) when the TypeProto sets none of the oneof.
struct Type {
  std::variant<std::monostate, TensorType, SequenceType, MapType, OptionalType, SparseTensorType, OpaqueType> value;
  std::string denotation;  ///< e.g. "TENSOR", "IMAGE"
  UnknownFields unknown_fields;
  FieldPresence presence;

  Type() = default;
  Type(TensorType t) : value(std::move(t)) {}              // NOLINT(google-explicit-constructor)
  Type(SequenceType t) : value(std::move(t)) {}            // NOLINT(google-explicit-constructor)
  Type(MapType t) : value(std::move(t)) {}                 // NOLINT(google-explicit-constructor)
  Type(OptionalType t) : value(std::move(t)) {}            // NOLINT(google-explicit-constructor)
  Type(SparseTensorType t) : value(std::move(t)) {}        // NOLINT(google-explicit-constructor)
  Type(OpaqueType t) : value(std::move(t)) {}              // NOLINT(google-explicit-constructor)

  /// A tensor type of known rank.
  [[nodiscard]] static Type tensor(DataType elem, Shape shape) {
    return TensorType{elem, std::move(shape), {}, {}};
  }
  /// A tensor type of unknown rank.
  [[nodiscard]] static Type tensor(DataType elem) { return TensorType{elem, std::nullopt, {}, {}}; }
  /// A sparse tensor type of known rank.
  [[nodiscard]] static Type sparse_tensor(DataType elem, Shape shape) {
    return SparseTensorType{elem, std::move(shape), {}, {}};
  }
  /// A sequence of `elem`.
  [[nodiscard]] static Type sequence(Type elem) { return SequenceType{Box<Type>(std::move(elem)), {}}; }
  /// A map from `key` to `value`.
  [[nodiscard]] static Type map(DataType key, Type value) {
    return MapType{key, Box<Type>(std::move(value)), {}, {}};
  }
  /// An optional `elem`.
  [[nodiscard]] static Type optional(Type elem) { return OptionalType{Box<Type>(std::move(elem)), {}}; }

  [[nodiscard]] bool is_tensor() const noexcept { return std::holds_alternative<TensorType>(value); }
  [[nodiscard]] bool is_sparse_tensor() const noexcept { return std::holds_alternative<SparseTensorType>(value); }
  [[nodiscard]] bool is_sequence() const noexcept { return std::holds_alternative<SequenceType>(value); }
  [[nodiscard]] bool is_map() const noexcept { return std::holds_alternative<MapType>(value); }
  [[nodiscard]] bool is_optional() const noexcept { return std::holds_alternative<OptionalType>(value); }
  [[nodiscard]] bool is_opaque() const noexcept { return std::holds_alternative<OpaqueType>(value); }
  [[nodiscard]] bool is_empty() const noexcept { return std::holds_alternative<std::monostate>(value); }

  /// The tensor type, or nullptr.
  [[nodiscard]] const TensorType* as_tensor() const noexcept { return std::get_if<TensorType>(&value); }
  [[nodiscard]] TensorType* as_tensor() noexcept { return std::get_if<TensorType>(&value); }
  /// Element type of a tensor or sparse tensor type; UNDEFINED otherwise.
  [[nodiscard]] DataType elem_type() const noexcept {
    if (auto t = std::get_if<TensorType>(&value)) return t->elem_type;
    if (auto s = std::get_if<SparseTensorType>(&value)) return s->elem_type;
    return DataType::UNDEFINED;
  }
  /// Shape of a tensor or sparse tensor type, or nullptr (other kinds, unknown rank).
  [[nodiscard]] const Shape* shape() const noexcept {
    if (auto t = std::get_if<TensorType>(&value)) return t->shape ? &*t->shape : nullptr;
    if (auto s = std::get_if<SparseTensorType>(&value)) return s->shape ? &*s->shape : nullptr;
    return nullptr;
  }

  friend bool operator==(const Type&, const Type&) = default;
};

}  // namespace oxir
