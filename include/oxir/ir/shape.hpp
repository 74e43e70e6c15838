#pragma once
// Dim and Shape: TensorShapeProto and its Dimension.

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "wire_info.hpp"

namespace oxir {

/// One dimension of a shape: a number (dim_value), a symbol (dim_param), or unknown (neither).
struct Dim {
  /// monostate = unknown, int64 = dim_value, string = dim_param (the oneof of TensorShapeProto.Dimension).
  std::variant<std::monostate, std::int64_t, std::string> value;
  std::string denotation;          ///< optional semantic label, e.g. "DATA_BATCH"
  UnknownFields unknown_fields;    ///< fields from a newer schema, kept verbatim
  FieldPresence presence;          ///< wire detail, see FieldPresence

  /// An unknown dimension.
  Dim() = default;
  /// A fixed size.
  Dim(std::int64_t size) : value(size) {}  // NOLINT(google-explicit-constructor)
  Dim(int size) : value(std::int64_t{size}) {}  // NOLINT(google-explicit-constructor)
  /// A symbolic size such as "N".
  Dim(std::string symbol) : value(std::move(symbol)) {}  // NOLINT(google-explicit-constructor)
  Dim(const char* symbol) : value(std::string(symbol)) {}  // NOLINT(google-explicit-constructor)

  /// Has a dim_value.
  [[nodiscard]] bool is_value() const noexcept { return std::holds_alternative<std::int64_t>(value); }
  /// Has a dim_param.
  [[nodiscard]] bool is_param() const noexcept { return std::holds_alternative<std::string>(value); }
  /// Has neither.
  [[nodiscard]] bool is_unknown() const noexcept { return std::holds_alternative<std::monostate>(value); }
  /// The dim_value; precondition is_value().
  [[nodiscard]] std::int64_t dim_value() const { return std::get<std::int64_t>(value); }
  /// The dim_param; precondition is_param().
  [[nodiscard]] const std::string& dim_param() const { return std::get<std::string>(value); }
  /// The dim_value if there is one.
  [[nodiscard]] std::optional<std::int64_t> value_if() const {
    if (auto p = std::get_if<std::int64_t>(&value)) return *p;
    return std::nullopt;
  }

  friend bool operator==(const Dim&, const Dim&) = default;
};

/// The dimensions of a tensor of known rank (rank 0 = scalar). "Unknown rank" is the absence of a
/// Shape (std::optional<Shape> in TensorType).
struct Shape {
  std::vector<Dim> dims;
  UnknownFields unknown_fields;

  Shape() = default;
  /// A shape from its dimensions, e.g. Shape{"N", 3, 224, 224}.
  Shape(std::initializer_list<Dim> d) : dims(d) {}
  explicit Shape(std::vector<Dim> d) : dims(std::move(d)) {}

  /// Number of dimensions.
  [[nodiscard]] std::size_t rank() const noexcept { return dims.size(); }
  [[nodiscard]] const Dim& operator[](std::size_t i) const { return dims[i]; }
  [[nodiscard]] Dim& operator[](std::size_t i) { return dims[i]; }
  /// True when every dim has a dim_value.
  [[nodiscard]] bool is_static() const noexcept {
    for (const auto& d : dims)
      if (!d.is_value()) return false;
    return true;
  }
  /// Product of the dims when all are known and it fits in int64 (1 for a scalar).
  [[nodiscard]] std::optional<std::int64_t> element_count() const noexcept {
    std::int64_t n = 1;
    for (const auto& d : dims) {
      auto v = d.value_if();
      if (!v || *v < 0) return std::nullopt;
      if (*v != 0 && n > INT64_MAX / *v) return std::nullopt;
      n *= *v;
    }
    return n;
  }

  friend bool operator==(const Shape&, const Shape&) = default;
};

}  // namespace oxir
