#pragma once
// The inference engine's view of a value's type: like oxir::Type, with sizes as DimExprs.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "../core/data_type.hpp"
#include "../ir/box.hpp"
#include "expr.hpp"

namespace oxir::infer {

using Dims = std::vector<DimExpr>;
/// Contents of which only some elements are known; nullopt marks an element nothing determines.
using PartialDims = std::vector<std::optional<DimExpr>>;

struct ValueType {
  enum class Kind : std::uint8_t { Unknown, Tensor, SparseTensor, Sequence, Optional, Map, Opaque };
  Kind kind = Kind::Unknown;
  DataType elem = DataType::UNDEFINED;       ///< tensor/sparse element type; map key type
  std::optional<Dims> shape;                 ///< tensor/sparse shape; nullopt = unknown rank
  std::shared_ptr<const ValueType> inner;    ///< sequence/optional element type, map value type
  /// Domain and name of an opaque type (held apart: types are moved often, opaque ones are rare).
  std::shared_ptr<const std::pair<std::string, std::string>> opaque;
  /// Sequence: every element has exactly the element type's sizes (SplitToSequence into equal
  /// chunks). Otherwise a fresh symbol in the element type may stand for sizes that differ
  /// between elements, and an element taken out gets new symbols for them.
  bool uniform = false;

  // ---- constructors ----
  [[nodiscard]] static ValueType unknown() { return {}; }
  /// A tensor of element type `e` (UNDEFINED = unknown) and unknown rank.
  [[nodiscard]] static ValueType tensor(DataType e) {
    ValueType t;
    t.kind = Kind::Tensor;
    t.elem = e;
    return t;
  }
  /// A tensor of element type `e` and shape `d`.
  [[nodiscard]] static ValueType tensor(DataType e, Dims d) {
    ValueType t = tensor(e);
    t.shape = std::move(d);
    return t;
  }
  [[nodiscard]] static ValueType sparse_tensor(DataType e, std::optional<Dims> d = std::nullopt) {
    ValueType t;
    t.kind = Kind::SparseTensor;
    t.elem = e;
    t.shape = std::move(d);
    return t;
  }
  [[nodiscard]] static ValueType sequence(ValueType elem) {
    ValueType t;
    t.kind = Kind::Sequence;
    t.inner = std::make_shared<const ValueType>(std::move(elem));
    return t;
  }
  [[nodiscard]] static ValueType optional(ValueType elem) {
    ValueType t;
    t.kind = Kind::Optional;
    t.inner = std::make_shared<const ValueType>(std::move(elem));
    return t;
  }
  [[nodiscard]] static ValueType map(DataType key, ValueType value) {
    ValueType t;
    t.kind = Kind::Map;
    t.elem = key;
    t.inner = std::make_shared<const ValueType>(std::move(value));
    return t;
  }

  // ---- queries ----
  [[nodiscard]] bool is_unknown() const noexcept { return kind == Kind::Unknown; }
  [[nodiscard]] bool is_tensor() const noexcept { return kind == Kind::Tensor; }
  [[nodiscard]] bool has_shape() const noexcept { return (kind == Kind::Tensor || kind == Kind::SparseTensor) && shape.has_value(); }
  /// Rank if known.
  [[nodiscard]] std::optional<std::int64_t> rank() const noexcept {
    if (!has_shape()) return std::nullopt;
    return static_cast<std::int64_t>(shape->size());
  }
  /// Element type of a sequence/optional, or unknown.
  [[nodiscard]] const ValueType& element() const {
    static const ValueType none;
    return inner ? *inner : none;
  }

  friend bool operator==(const ValueType& a, const ValueType& b) {
    if (a.kind != b.kind || a.elem != b.elem || a.shape != b.shape || a.uniform != b.uniform) return false;
    if (a.opaque != b.opaque && (!a.opaque || !b.opaque || *a.opaque != *b.opaque)) return false;
    if (!a.inner || !b.inner) return !a.inner && !b.inner;
    return *a.inner == *b.inner;
  }
};

/// What the engine knows of a value: its type and, for small integer tensors of rank 0 or 1
/// (shape tensors), each element as a symbolic size.
struct ValueInfoState {
  ValueType type;
  std::optional<Dims> sym_value;  ///< elements in row-major order (rank 0: one element)
  /// Every element is nonzero, whatever the tensor's size: ConstantOfShape of a nonzero value,
  /// which torch (opsets 9 and 10, before Range) feeds to NonZero for arange(n).
  bool all_nonzero = false;
  /// Contents of an integer tensor of which only some elements are known (row-major, like
  /// sym_value): a Concat of a shape slice and a size computed from data
  /// (`Concat(Shape(x)[:2], Cast(Floor(H * 0.5)))`), and what Reshape/Slice/Transpose make of it.
  /// Set only when sym_value is not. Only rules that ask for it (InferContext::input_elements,
  /// input_partial_value) see it; every other rule sees no contents. Not carried into or out of
  /// subgraphs. Boxed: states are copied and moved for every value, and these contents are rare.
  Box<PartialDims> partial_value;
};

}  // namespace oxir::infer
