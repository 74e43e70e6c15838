#pragma once
// Inference rules: shape operators (see docs/inference.md).
//
// Shape manipulation (Reshape, Squeeze, Concat, Slice, Gather, Pad, …), reductions, and the
// propagation of symbolic shape-tensor contents (Shape → Gather → Unsqueeze → Concat → Reshape
// chains keep exact sizes).

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "../engine.hpp"
#include "common.hpp"

namespace oxir::infer::ops {

namespace shape_detail {

using I64 = std::int64_t;
/// Sizes never reach this; constants beyond it mean "to the end" (INT64_MAX/MIN sentinels).
inline constexpr I64 kHuge = I64{1} << 62;

inline I64 clamp_huge(I64 v) { return std::clamp(v, -kHuge, kHuge); }

/// Product of dims[from, to).
inline DimExpr product(const InferContext& c, const Dims& d, std::size_t from, std::size_t to) {
  DimExpr p(1);
  for (std::size_t i = from; i < to && i < d.size(); ++i) p = p * c.resolve(d[i]);
  return p;
}

inline Dims resolved(const InferContext& c, const Dims& d) {
  Dims out;
  out.reserve(d.size());
  for (const auto& e : d) out.push_back(c.resolve(e));
  return out;
}

/// An axes list given as an attribute (opset < since) or as input `input` (opset >= since).
struct AxesArg {
  bool given = false;              ///< axes were specified
  bool known = false;              ///< and their values are known
  std::vector<I64> values;
  std::optional<I64> count;        ///< number of axes if known
};

inline std::optional<I64> vector_length(const InferContext& c, std::size_t input) {
  const Dims* s = c.input_shape(input);
  if (!s) return std::nullopt;
  if (s->empty()) return 1;
  if (s->size() != 1) return std::nullopt;
  auto n = c.resolve((*s)[0]).const_value();
  if (n && (*n < 0 || *n > kMaxRank)) c.fail("a shape or axes vector of length " + std::to_string(*n));
  return n;
}

inline AxesArg axes_arg(const InferContext& c, std::string_view attr, std::size_t input, I64 since) {
  AxesArg a;
  if (c.opset() < since) {
    if (auto v = c.attr_ints(attr)) {
      a.given = a.known = true;
      a.values = *v;
      a.count = static_cast<I64>(v->size());
    }
    return a;
  }
  if (!c.has_input(input)) return a;
  a.given = true;
  if (auto v = c.input_ints(input)) {
    a.known = true;
    a.values = *v;
    a.count = static_cast<I64>(v->size());
    return a;
  }
  a.count = vector_length(c, input);
  return a;
}

/// Normalises every axis against `rank`; fails on out-of-range or repeated axes.
inline std::vector<I64> norm_axes(const InferContext& c, const std::vector<I64>& axes, I64 rank,
                                  std::string_view what = "axes") {
  std::vector<I64> out;
  out.reserve(axes.size());
  for (auto a : axes) {
    const I64 n = c.normalize_axis(a, rank, what);
    if (std::find(out.begin(), out.end(), n) != out.end()) c.fail("repeated axis in '" + std::string(what) + "'");
    out.push_back(n);
  }
  return out;
}

/// Squeeze and the reductions take an axis named twice as once (onnx's inference and ONNX Runtime
/// alike): the distinct normalised axes, in order of first mention.
inline std::vector<I64> distinct_axes(const InferContext& c, const std::vector<I64>& axes, I64 rank) {
  std::vector<I64> out;
  out.reserve(axes.size());
  for (auto a : axes) {
    const I64 n = c.normalize_axis(a, rank, "axes");
    if (std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
  }
  return out;
}

/// The dims left when exactly one axis of `d` is removed, which one unknown; only the axes
/// `removable` allows can be. An output dim is d[j] when the axis removed comes after j and
/// d[j + 1] otherwise: known when every possible removal leaves the same size there, fresh
/// otherwise. nullopt when no axis is removable.
inline std::optional<Dims> without_one_axis(const InferContext& c, const Dims& d, const std::vector<bool>& removable) {
  const std::size_t r = d.size();
  std::size_t first = r, last = 0;
  for (std::size_t i = 0; i < r; ++i)
    if (removable[i]) {
      first = std::min(first, i);
      last = i;
    }
  if (first == r) return std::nullopt;
  Dims out;
  out.reserve(r - 1);
  for (std::size_t j = 0; j + 1 < r; ++j) {
    // d[j] is left there when some removable axis is after j, d[j + 1] when one is at or before j.
    const bool keeps_own = last > j;
    const bool takes_next = first <= j;
    if (keeps_own && takes_next) {
      const DimExpr a = c.resolve(d[j]), b = c.resolve(d[j + 1]);
      out.push_back(a == b ? a : c.fresh());
    } else {
      out.push_back(c.resolve(keeps_own ? d[j] : d[j + 1]));
    }
  }
  return out;
}

inline Dims fresh_dims(const InferContext& c, I64 n) {
  if (n < 0 || n > kMaxRank) c.fail("rank " + std::to_string(n) + " is out of range");
  Dims d;
  d.reserve(static_cast<std::size_t>(n));
  for (I64 i = 0; i < n; ++i) d.push_back(c.fresh());
  return d;
}

/// Sets output `i` to elem with the given dims or unknown rank.
inline void set_tensor(InferContext& c, std::size_t i, DataType elem, std::optional<Dims> d) {
  if (d)
    c.set_output(i, elem, std::move(*d));
  else
    c.set_output(i, ValueType::tensor(elem));
}

/// A single element of a (scalar or one-element) symbolic value.
inline std::optional<DimExpr> scalar_value(const InferContext& c, std::size_t i) {
  const Dims* v = c.input_value(i);
  if (!v || v->size() != 1) return std::nullopt;
  return c.resolve((*v)[0]);
}

/// Input i's symbolic contents together with its dims when every dim is a number and their
/// product is the number of elements. Contents of tensors of rank 2 and more are carried flat
/// in row-major order (the exporters' pad tensors: Reshape to [-1, 2], Slice, Transpose, back
/// to 1-D); only Reshape, Transpose and Slice produce them.
/// Contents known only in part (ValueInfoState::partial_value) are carried the same way.
struct FlatValue {
  const Dims* value = nullptr;        ///< every element known
  const PartialDims* part = nullptr;  ///< or only some
  std::vector<I64> dims;
  [[nodiscard]] std::size_t size() const { return value ? value->size() : part->size(); }
  /// Element k, resolved, if known.
  [[nodiscard]] std::optional<DimExpr> at(const InferContext& c, std::size_t k) const {
    if (value) return c.resolve((*value)[k]);
    const auto& e = (*part)[k];
    return e ? std::optional<DimExpr>(c.resolve(*e)) : std::nullopt;
  }
};
inline std::optional<FlatValue> flat_value(const InferContext& c, std::size_t i) {
  const Dims* v = c.input_value_flat(i);
  const PartialDims* p = v ? nullptr : c.input_partial_value_flat(i);
  const Dims* s = c.input_shape(i);
  if ((!v && !p) || !s) return std::nullopt;
  FlatValue f{v, p, {}};
  I64 n = 1;
  for (const auto& d : *s) {
    auto k = c.resolve(d).const_value();
    if (!k || *k < 0 || *k > static_cast<I64>(kMaxSymbolicElements)) return std::nullopt;
    f.dims.push_back(*k);
    n *= *k;
    if (n > static_cast<I64>(kMaxSymbolicElements)) return std::nullopt;
  }
  if (n != static_cast<I64>(f.size())) return std::nullopt;
  return f;
}

// ---------------------------------------------------------------------------------------------
// Constant, Shape, Size, Identity

inline void rule_constant(InferContext& c) {
  const auto& attrs = c.node().attributes;
  if (attrs.size() != 1) c.fail("Constant needs exactly one value attribute");
  const Attribute& a = attrs[0];
  if (a.name == "value") {
    const Tensor& t = a.as_tensor();
    Dims d;
    for (auto x : t.dims) {
      if (x < 0) c.fail("negative dimension in 'value'");
      d.emplace_back(x);
    }
    c.set_output(0, t.data_type, std::move(d));
    if (auto v = Engine::tensor_sym_value(t)) c.set_output_value(0, std::move(*v));
  } else if (a.name == "sparse_value") {
    const SparseTensor& s = a.as_sparse_tensor();
    Dims d;
    for (auto x : s.dims) {
      if (x < 0) c.fail("negative dimension in 'sparse_value'");
      d.emplace_back(x);
    }
    c.set_output(0, s.values.data_type, std::move(d));
  } else if (a.name == "value_int") {
    c.set_output(0, DataType::INT64, {});
    c.set_output_value(0, {DimExpr(c.attr_int("value_int", 0))});
  } else if (a.name == "value_ints") {
    const auto v = *c.attr_ints("value_ints");
    c.set_output(0, DataType::INT64, {DimExpr(static_cast<I64>(v.size()))});
    Dims val;
    for (auto x : v) val.emplace_back(x);
    c.set_output_value(0, std::move(val));
  } else if (a.name == "value_float") {
    (void)c.attr_float("value_float", 0);
    c.set_output(0, DataType::FLOAT, {});
  } else if (a.name == "value_floats") {
    const auto v = *c.attr_floats("value_floats");
    c.set_output(0, DataType::FLOAT, {DimExpr(static_cast<I64>(v.size()))});
  } else if (a.name == "value_string") {
    (void)c.attr_string("value_string", "");
    c.set_output(0, DataType::STRING, {});
  } else if (a.name == "value_strings") {
    if (a.kind() != AttributeType::STRINGS) c.fail("attribute 'value_strings' should be a list of strings");
    c.set_output(0, DataType::STRING, {DimExpr(static_cast<I64>(a.as_strings().size()))});
  } else {
    c.fail("unexpected attribute '" + a.name + "'");
  }
}

inline void rule_shape(InferContext& c) {
  require_inputs(c, 1, 1);
  const Dims* s = c.input_shape(0);
  I64 start = 0;
  std::optional<I64> end;
  if (c.opset() >= 15) {
    start = c.attr_int("start", 0);
    if (c.has_attr("end")) end = c.attr_int("end", 0);
  }
  if (!s) {
    // Length is the (unknown) rank, or a slice of it.
    c.set_output(0, DataType::INT64, {c.fresh()});
    return;
  }
  const I64 r = static_cast<I64>(s->size());
  auto clampi = [r](I64 v) {
    if (v < 0) v = v < -r ? 0 : v + r;
    return std::min(v, r);
  };
  const I64 b = clampi(start), e = end ? clampi(*end) : r;
  Dims val;
  for (I64 i = b; i < e; ++i) val.push_back(c.resolve((*s)[static_cast<std::size_t>(i)]));
  c.set_output(0, DataType::INT64, {DimExpr(static_cast<I64>(val.size()))});
  c.set_output_value(0, std::move(val));
}

inline void rule_size(InferContext& c) {
  require_inputs(c, 1, 1);
  c.set_output(0, DataType::INT64, {});
  if (const Dims* s = c.input_shape(0)) c.set_output_value(0, {product(c, *s, 0, s->size())});
}

inline void rule_identity(InferContext& c) {
  require_inputs(c, 1, 1);
  c.set_output(0, c.input_type(0));
  if (const Dims* v = c.input_value_flat(0)) c.set_output_value(0, *v);
  else if (const PartialDims* p = c.input_partial_value(0)) c.set_output_elements(0, *p);
}

// ---------------------------------------------------------------------------------------------
// Reshape, Flatten, Squeeze, Unsqueeze, Transpose

inline void rule_reshape(InferContext& c) {
  const DataType elem = c.input_elem(0);
  std::optional<Dims> target;
  std::optional<I64> target_len;
  if (c.opset() < 5) {
    require_inputs(c, 1, 1);
    auto v = c.attr_ints("shape");
    if (!v) c.fail("missing required attribute 'shape'");
    target.emplace();
    for (auto x : *v) target->emplace_back(x);
  } else {
    require_inputs(c, 2, 2);
    if (const Dims* v = c.input_value(1)) target = resolved(c, *v);
    if (auto r = c.input_rank(1); r && *r != 1) c.fail("'shape' input must be 1-D");
    target_len = vector_length(c, 1);
  }
  const bool allowzero = c.opset() >= 14 && c.attr_int("allowzero", 0) != 0;
  // Without the whole target, some entries may still be known: a positive entry is its size and
  // a 0 copies the input's size (allowzero off) whatever the others are; the -1 entry's size
  // depends on the unknown ones, as does an unknown entry's (it may be -1 or 0 itself).
  std::optional<PartialDims> part;
  if (!target) {
    if (!target_len || *target_len < 0) return c.set_output(0, ValueType::tensor(elem));
    part = c.input_elements(1);
    if (!part || static_cast<I64>(part->size()) != *target_len) {
      // A target of one entry, whatever it holds, puts every element of the input in one row.
      if (const Dims* in = c.input_shape(0); in && *target_len == 1)
        return c.set_output(0, elem, {product(c, *in, 0, in->size())});
      return c.set_output(0, elem, fresh_dims(c, *target_len));
    }
  }
  const std::size_t entries = target ? target->size() : part->size();
  const Dims* in = c.input_shape(0);
  Dims out;
  std::optional<std::size_t> infer_at;
  bool has_zero_allow = false;
  for (std::size_t i = 0; i < entries; ++i) {
    const DimExpr* t = target ? &(*target)[i] : ((*part)[i] ? &*(*part)[i] : nullptr);
    const auto k = t ? t->const_value() : std::nullopt;
    if (k && *k == -1) {
      if (infer_at) c.fail("more than one -1 in the target shape");
      infer_at = i;
      out.push_back(target ? DimExpr(0) : c.fresh());  // a placeholder when it can be solved below
    } else if (k && *k < -1) {
      c.fail("invalid target dimension " + std::to_string(*k));
    } else if (k && *k == 0 && !allowzero) {
      if (in && i >= in->size()) c.fail("target dimension 0 copies a dimension the input does not have");
      out.push_back(in ? c.resolve((*in)[i]) : c.fresh());
    } else {
      if (k && *k == 0) has_zero_allow = true;
      out.push_back(t ? *t : c.fresh());
    }
  }
  if (infer_at && has_zero_allow) c.fail("allowzero with both 0 and -1 in the target shape");
  if (!target) {
    // One unknown entry and no -1: whether it is -1, 0 or a size, the output keeps the input's
    // element count, so its size is that count over the other sizes when those are a known
    // nonzero number (a zero or symbolic product could leave an explicit size unconstrained).
    std::optional<std::size_t> unknown_at;
    std::size_t unknowns = 0;
    for (std::size_t i = 0; i < entries; ++i)
      if (!(*part)[i]) ++unknowns, unknown_at = i;
    if (in && unknowns == 1 && !infer_at) {
      DimExpr others(1);
      for (std::size_t i = 0; i < out.size(); ++i)
        if (i != *unknown_at) others = others * c.resolve(out[i]);
      if (const auto k = others.const_value(); k && *k != 0)
        if (auto q = exact_div(product(c, *in, 0, in->size()), others)) out[*unknown_at] = *q;
    }
    return c.set_output(0, elem, std::move(out));
  }
  if (in) {
    const DimExpr total = product(c, *in, 0, in->size());
    DimExpr known(1);
    for (std::size_t i = 0; i < out.size(); ++i)
      if (!infer_at || i != *infer_at) known = known * out[i];
    if (infer_at) {
      DimExpr inferred;
      if (known.is(0)) {
        inferred = c.fresh();
      } else if (auto q = exact_div(total, known)) {
        inferred = *q;
      } else if (total.is_const() && known.is_const()) {
        c.fail("cannot reshape " + std::to_string(*total.const_value()) + " elements into a multiple of " +
               std::to_string(*known.const_value()));
      } else {
        inferred = c.fresh();
      }
      out[*infer_at] = inferred;
    } else if (total.is_const() && known.is_const()) {
      if (*total.const_value() != *known.const_value())
        c.fail("cannot reshape " + std::to_string(*total.const_value()) + " elements into " +
               std::to_string(*known.const_value()));
    } else {
      // The element count is preserved (solves e.g. 3*N == 12).
      c.unify(total, known, "element counts of Reshape's input and output");
    }
  } else if (infer_at) {
    out[*infer_at] = c.fresh();
  }
  c.set_output(0, elem, out);
  // Contents survive reshapes (their row-major order is unchanged) when the output's element
  // count is a known number equal to theirs.
  const Dims* v = c.input_value_flat(0);
  const PartialDims* p = v ? nullptr : c.input_partial_value_flat(0);
  if (!v && !p) return;
  I64 n = 1;
  for (const auto& d : out) {
    auto k = c.resolve(d).const_value();
    if (!k || *k < 0 || *k > static_cast<I64>(kMaxSymbolicElements)) return;
    n *= *k;
    if (n > static_cast<I64>(kMaxSymbolicElements)) return;
  }
  if (v && n == static_cast<I64>(v->size())) c.set_output_value(0, *v);
  if (p && n == static_cast<I64>(p->size())) c.set_output_elements(0, *p);
}

inline void rule_flatten(InferContext& c) {
  require_inputs(c, 1, 1);
  const DataType elem = c.input_elem(0);
  I64 axis = c.attr_int("axis", 1);
  const Dims* s = c.input_shape(0);
  if (!s) {
    c.set_output(0, elem, {c.fresh(), c.fresh()});
    return;
  }
  const I64 r = static_cast<I64>(s->size());
  if (axis < -r || axis > r) c.fail("axis " + std::to_string(axis) + " out of range");
  if (axis < 0) axis += r;
  const auto a = static_cast<std::size_t>(axis);
  c.set_output(0, elem, {product(c, *s, 0, a), product(c, *s, a, s->size())});
}

inline void rule_squeeze(InferContext& c) {
  const bool from_input = c.opset() >= 13;
  require_inputs(c, 1, from_input ? 2 : 1);
  const DataType elem = c.input_elem(0);
  const AxesArg ax = axes_arg(c, "axes", 1, 13);
  const Dims* s = c.input_shape(0);
  if (!s) {
    c.set_output(0, ValueType::tensor(elem));
    return;
  }
  const I64 r = static_cast<I64>(s->size());
  Dims out;
  if (!ax.given) {
    for (const auto& d : *s) {
      const DimExpr e = c.resolve(d);
      if (!e.is_const()) {
        c.set_output(0, ValueType::tensor(elem));
        return;
      }
      if (!e.is(1)) out.push_back(e);
    }
  } else if (!ax.known || ax.values.empty()) {
    // Axes given, their values unknown: an axis may be named twice, so k of them remove between
    // 1 and k axes, each of a dim that can be 1. Only when a single such dim exists, or k is 1,
    // is exactly one removed. Empty axes squeeze every dim of 1 in ONNX Runtime and none in onnx's
    // own inference and reference: the same only when no dim can be 1.
    std::vector<bool> can_be_one(static_cast<std::size_t>(r));
    std::size_t ones = 0;
    for (std::size_t i = 0; i < can_be_one.size(); ++i)
      if ((can_be_one[i] = !never_one(c.resolve((*s)[i])))) ++ones;
    if (ax.count == 0) {
      if (ones == 0) return c.set_output(0, elem, resolved(c, *s));
      return c.set_output(0, ValueType::tensor(elem));
    }
    if (ax.count && ones == 0) c.fail("no dimension can be squeezed: none is 1");
    if (ax.count && (*ax.count == 1 || ones == 1))
      if (auto d = without_one_axis(c, *s, can_be_one)) return c.set_output(0, elem, std::move(*d));
    return c.set_output(0, ValueType::tensor(elem));
  } else {
    const auto axes = distinct_axes(c, ax.values, r);
    for (I64 i = 0; i < r; ++i) {
      const DimExpr& d = (*s)[static_cast<std::size_t>(i)];
      if (std::find(axes.begin(), axes.end(), i) != axes.end())
        c.unify(d, DimExpr(1), "squeezed dimension");
      else
        out.push_back(c.resolve(d));
    }
  }
  const std::size_t n = out.size();
  c.set_output(0, elem, std::move(out));
  // Same elements in the same order: contents of any rank (NonZero's [1, n]) become a vector.
  if (const Dims* v = c.input_value_flat(0); v && n <= 1) c.set_output_value(0, *v);
}

inline void rule_unsqueeze(InferContext& c) {
  const bool from_input = c.opset() >= 13;
  require_inputs(c, from_input ? 2 : 1, from_input ? 2 : 1);
  const DataType elem = c.input_elem(0);
  AxesArg ax = axes_arg(c, "axes", 1, 13);
  if (!from_input && !ax.given) c.fail("missing required attribute 'axes'");
  const Dims* s = c.input_shape(0);
  if (!s || !ax.known) {
    if (s && ax.count) c.set_output(0, elem, fresh_dims(c, static_cast<I64>(s->size()) + *ax.count));
    else c.set_output(0, ValueType::tensor(elem));
    return;
  }
  const I64 r = static_cast<I64>(s->size()) + static_cast<I64>(ax.values.size());
  const auto axes = norm_axes(c, ax.values, r);
  Dims out;
  std::size_t k = 0;
  for (I64 i = 0; i < r; ++i) {
    if (std::find(axes.begin(), axes.end(), i) != axes.end())
      out.push_back(DimExpr(1));
    else
      out.push_back(c.resolve((*s)[k++]));
  }
  c.set_output(0, elem, out);
  if (const Dims* v = c.input_value(0); v && out.size() <= 1) c.set_output_value(0, *v);
}

inline void rule_transpose(InferContext& c) {
  require_inputs(c, 1, 1);
  const DataType elem = c.input_elem(0);
  const auto perm = c.attr_ints("perm");
  const Dims* s = c.input_shape(0);
  if (!s) {
    if (perm) c.set_output(0, elem, fresh_dims(c, static_cast<I64>(perm->size())));
    else c.set_output(0, ValueType::tensor(elem));
    return;
  }
  const I64 r = static_cast<I64>(s->size());
  std::vector<I64> p;
  if (perm) {
    if (static_cast<I64>(perm->size()) != r) c.fail("'perm' has " + std::to_string(perm->size()) + " entries for rank " + std::to_string(r));
    p = norm_axes(c, *perm, r, "perm");
  } else {
    for (I64 i = r - 1; i >= 0; --i) p.push_back(i);
  }
  Dims out;
  for (auto i : p) out.push_back(c.resolve((*s)[static_cast<std::size_t>(i)]));
  c.set_output(0, elem, std::move(out));
  if (const Dims* v = c.input_value(0); v && r <= 1) return c.set_output_value(0, *v);
  // Contents of a tensor with known dims (carried flat, row-major): permute them.
  auto f = flat_value(c, 0);
  if (!f) return;
  std::vector<I64> stride(static_cast<std::size_t>(r), 1);
  for (I64 k = r - 2; k >= 0; --k)
    stride[static_cast<std::size_t>(k)] = stride[static_cast<std::size_t>(k + 1)] * f->dims[static_cast<std::size_t>(k + 1)];
  std::vector<I64> od, os;  // output dims and the input stride of each output axis
  for (auto i : p) {
    od.push_back(f->dims[static_cast<std::size_t>(i)]);
    os.push_back(stride[static_cast<std::size_t>(i)]);
  }
  Collect val(f->part != nullptr, f->size());
  std::vector<I64> idx(static_cast<std::size_t>(r), 0);
  for (std::size_t n = 0; n < f->size(); ++n) {
    I64 off = 0;
    for (std::size_t k = 0; k < idx.size(); ++k) off += idx[k] * os[k];
    (void)val.push(f->at(c, static_cast<std::size_t>(off)));
    for (std::size_t k = idx.size(); k-- > 0;) {
      if (++idx[k] < od[k]) break;
      idx[k] = 0;
    }
  }
  val.set(c);
}

// ---------------------------------------------------------------------------------------------
// Concat, Split, Slice

/// What concat_shape found out about the concatenated inputs.
struct ConcatShape {
  std::optional<I64> rank;  ///< nullopt when no input's rank is known
  bool all_known = true;    ///< every input's rank is known
};

/// Output 0 of a concatenation along `axis_attr` of inputs first, first + step, ... (Concat: 0, 1;
/// com.microsoft QLinearConcat, whose inputs come in triples with their scales: 2, 3): `elem` and
/// the inputs' shape with the off-axis dims unified and the axis dims summed.
inline ConcatShape concat_shape(InferContext& c, std::size_t first_input, std::size_t step, I64 axis_attr,
                                DataType elem) {
  ConcatShape r;
  for (std::size_t i = first_input; i < c.input_count(); i += step) {
    if (auto k = c.input_rank(i)) {
      if (r.rank && *r.rank != *k) c.fail("inputs have different ranks");
      r.rank = k;
    } else {
      r.all_known = false;
    }
  }
  if (!r.rank) {
    c.set_output(0, ValueType::tensor(elem));
    return r;
  }
  if (*r.rank == 0) c.fail("cannot concatenate scalars");
  const auto axis = static_cast<std::size_t>(c.normalize_axis(axis_attr, *r.rank));
  Dims out;
  const Dims* first = nullptr;
  std::vector<DimExpr> parts;  // the inputs' sizes along the axis
  for (std::size_t i = first_input; i < c.input_count(); i += step) {
    const Dims* s = c.input_shape(i);
    if (!s) continue;
    if (!first) {
      first = s;
      out = resolved(c, *s);
    } else {
      for (std::size_t k = 0; k < s->size(); ++k)
        if (k != axis) c.unify(out[k], (*s)[k], "concatenated inputs' dimension " + std::to_string(k));
    }
    if (r.all_known) parts.push_back(c.resolve((*s)[axis]));
  }
  // A sum too large to track (thousands of symbolic inputs, coefficients past int64) leaves
  // only the concatenated size unknown: the rank and the other dims are still known.
  std::optional<DimExpr> sum;
  if (r.all_known) try {
      sum = sum_of(std::move(parts));
    } catch (const ExprTooLarge& e) {
      c.warn(std::string(e.message()) + ": the concatenated size is left unknown");
    }
  for (auto& d : out) d = c.resolve(d);
  out[axis] = sum ? std::move(*sum) : c.fresh();
  c.set_output(0, elem, out);
  return r;
}

inline void rule_concat(InferContext& c) {
  if (c.input_count() < 1) c.fail("expects at least one input");
  for (std::size_t i = 0; i < c.input_count(); ++i)
    if (!c.has_input(i)) c.fail("input " + std::to_string(i) + " is missing");
  // Concat-1: axis defaults to 1; required from 4.
  const I64 axis_attr = c.opset() < 4 ? c.attr_int("axis", 1) : c.require_int("axis");
  DataType elem = DataType::UNDEFINED;
  for (std::size_t i = 0; i < c.input_count() && elem == DataType::UNDEFINED; ++i) elem = c.input_elem(i);
  const ConcatShape shape = concat_shape(c, 0, 1, axis_attr, elem);
  const bool all_known = shape.all_known;
  const std::optional<I64> rank = shape.rank;
  if (!rank) return;
  if (all_known && *rank == 1) {
    // The contents, as far as they are known: an input without contents but of known length
    // (a size computed from data, say) leaves that many elements undetermined.
    bool partial = false;
    for (std::size_t i = 0; i < c.input_count() && !partial; ++i) partial = !c.input_value(i);
    Collect val(partial, 0);
    for (std::size_t i = 0; i < c.input_count(); ++i) {
      // Sizes are checked before copying: many inputs (or one input repeated) could otherwise
      // build a value far larger than the model (5,000 inputs of 1,000 elements from an 8 KB file).
      if (const Dims* v = c.input_value(i)) {
        if (val.size() + v->size() > kMaxSymbolicElements) return;
        for (const auto& e : *v) (void)val.push(c.resolve(e));
      } else if (const PartialDims* p = c.input_partial_value(i)) {
        if (val.size() + p->size() > kMaxSymbolicElements) return;
        for (const auto& e : *p) (void)val.push(e ? std::optional<DimExpr>(c.resolve(*e)) : std::nullopt);
      } else {
        const auto len = c.resolve((*c.input_shape(i))[0]).const_value();
        if (!len || *len < 0 || val.size() + static_cast<std::size_t>(*len) > kMaxSymbolicElements) return;
        for (I64 k = 0; k < *len; ++k) (void)val.push(std::nullopt);
      }
    }
    val.set(c);
  }
}

inline void rule_split(InferContext& c) {
  const bool split_input = c.opset() >= 13;
  require_inputs(c, 1, split_input ? 2 : (c.opset() >= 2 ? 1 : 2));
  const DataType elem = c.input_elem(0);
  const std::size_t n = c.output_count();
  if (n == 0) c.fail("Split needs at least one output");
  const I64 axis_attr = c.attr_int("axis", 0);
  // Split sizes: attribute (< 13; opset 1 also allowed a second input), input (>= 13).
  // Sizes may be symbolic when computed from shapes.
  std::optional<Dims> split;
  bool split_given = false;
  std::optional<PartialDims> split_part;  // sizes from the input of which only some are known
  auto from_input = [&] {
    split_given = true;
    if (const Dims* v = c.input_value(1))
      split = resolved(c, *v);
    else if ((split_part = c.input_elements(1)) &&
             std::all_of(split_part->begin(), split_part->end(), [](const auto& e) { return e.has_value(); })) {
      split.emplace();
      for (auto& e : *split_part) split->push_back(std::move(*e));
      split_part.reset();
    }
  };
  if (!split_input) {
    if (auto v = c.attr_ints("split")) {
      split.emplace();
      for (auto x : *v) split->emplace_back(x);
      split_given = true;
    } else if (c.opset() < 2 && c.has_input(1)) {
      from_input();
    }
  } else if (c.has_input(1)) {
    from_input();
  }
  std::optional<I64> num_outputs;
  if (c.opset() >= 18 && c.has_attr("num_outputs")) {
    num_outputs = c.attr_int("num_outputs", 0);
    if (split_given) c.fail("both 'split' and 'num_outputs' given");
    if (*num_outputs < 1) c.fail("'num_outputs' must be positive");
    if (static_cast<std::size_t>(*num_outputs) != n) c.fail("'num_outputs' differs from the number of outputs");
  }
  // From 18 the number of equal parts must be said (onnx's checker and ONNX Runtime reject a
  // Split-18 with neither).
  if (c.opset() >= 18 && !split_given && !num_outputs) c.fail("neither 'split' nor 'num_outputs' given (required from opset 18)");
  if (split) {
    if (split->size() != n) c.fail("'split' has " + std::to_string(split->size()) + " entries for " + std::to_string(n) + " outputs");
    for (const auto& x : *split)
      if (auto k = x.const_value(); k && *k < 0) c.fail("negative entry in 'split'");
  }
  const Dims* s = c.input_shape(0);
  if (!s) {
    for (std::size_t i = 0; i < n; ++i) c.set_output(i, ValueType::tensor(elem));
    return;
  }
  const auto axis = static_cast<std::size_t>(c.normalize_axis(axis_attr, static_cast<I64>(s->size())));
  const DimExpr d = c.resolve((*s)[axis]);
  std::vector<DimExpr> sizes;
  if (split) {
    sizes.assign(split->begin(), split->end());
    c.unify(d, sum_of(sizes), "sum of 'split' and the split dimension");
  } else if (split_given) {
    // Sizes not all known: the known ones stand, the others are fresh except the last unknown
    // one, which is what the rest leave of the dimension (a valid Split's sizes add up to it).
    if (split_part && split_part->size() != n)
      c.fail("'split' has " + std::to_string(split_part->size()) + " entries for " + std::to_string(n) + " outputs");
    if (const Dims* ss = c.input_shape(1); ss && ss->size() == 1)
      if (auto k = c.resolve((*ss)[0]).const_value(); k && *k != static_cast<I64>(n))
        c.fail("'split' has " + std::to_string(*k) + " entries for " + std::to_string(n) + " outputs");
    std::size_t last_unknown = n - 1;
    if (split_part) {
      for (std::size_t i = 0; i < n; ++i) {
        if (!(*split_part)[i]) last_unknown = i;
        else if (auto k = (*split_part)[i]->const_value(); k && *k < 0) c.fail("negative entry in 'split'");
      }
    }
    DimExpr others(0);
    for (std::size_t i = 0; i < n; ++i) {
      if (split_part && (*split_part)[i])
        sizes.push_back(*(*split_part)[i]);
      else
        sizes.push_back(i == last_unknown ? DimExpr(0) : c.fresh());
      if (i != last_unknown) others = others + sizes.back();
    }
    sizes[last_unknown] = d - others;
    if (auto k = sizes[last_unknown].const_value(); k && *k < 0) c.fail("'split' entries add up to more than the split dimension");
  } else {
    const DimExpr k(static_cast<I64>(n));
    if (num_outputs) {
      const DimExpr chunk = ceil_div(d, k);
      for (std::size_t i = 0; i + 1 < n; ++i) sizes.push_back(chunk);
      sizes.push_back(d - chunk * DimExpr(static_cast<I64>(n - 1)));
      if (auto dv = d.const_value(); dv && *sizes.back().const_value() < 0) c.fail("dimension too small for 'num_outputs'");
    } else {
      if (auto dv = d.const_value(); dv && *dv % static_cast<I64>(n) != 0)
        c.fail("dimension " + std::to_string(*dv) + " does not split evenly into " + std::to_string(n) + " outputs");
      const DimExpr chunk = floor_div(d, k);  // exact: the dimension must divide evenly
      for (std::size_t i = 0; i < n; ++i) sizes.push_back(chunk);
    }
  }
  const Dims* v = c.input_value(0);
  I64 offset = 0;
  for (std::size_t i = 0; i < n; ++i) {
    Dims out = resolved(c, *s);
    out[axis] = c.resolve(sizes[i]);
    c.set_output(i, elem, out);
    if (v && s->size() == 1) {
      auto len = out[0].const_value();
      if (!len || offset < 0) {
        offset = -1;
        continue;
      }
      if (*len >= 0 && *len <= static_cast<I64>(v->size()) - offset)
        c.set_output_value(i, Dims(v->begin() + offset, v->begin() + offset + *len));
      offset = *len <= static_cast<I64>(v->size()) - offset ? offset + *len : -1;
    }
  }
}

/// Length of a slice of a dimension `d` by constant-or-symbolic start/end and constant step.
inline DimExpr slice_length(const InferContext& c, const DimExpr& d, const DimExpr& start, const DimExpr& end, I64 step) {
  step = clamp_huge(step);  // same result for any real size; avoids overflow below
  const auto dc = d.const_value();
  if (dc && *dc <= 0) return DimExpr(0);
  auto sc = start.const_value(), ec = end.const_value();
  if (sc) sc = clamp_huge(*sc);
  if (ec) ec = clamp_huge(*ec);
  if (dc && sc && ec) {
    const I64 dim = *dc;
    I64 s = *sc, e = *ec;
    if (step > 0) {
      if (s < 0) s += dim;
      if (e < 0) e += dim;
      s = std::clamp<I64>(s, 0, dim);
      e = std::clamp<I64>(e, 0, dim);
      return DimExpr(e > s ? (e - s - 1) / step + 1 : 0);
    }
    if (s < 0) s += dim;
    if (e < 0) e += dim;
    s = std::clamp<I64>(s, 0, dim - 1);
    e = std::clamp<I64>(e, -1, dim - 1);
    return DimExpr(s > e ? (s - e - 1) / (-step) + 1 : 0);
  }
  // Symbolic: follow the clamping definition with min/max. A non-constant start/end must be
  // provably >= 0 (a size: when negative it would count from the end).
  if (step > 0) {
    // Common exporter forms first.
    if (sc && ec && *ec >= kHuge / 2) {
      if (*sc == 0 || *sc <= -kHuge / 2) return ceil_div(d, DimExpr(step));
      if (*sc > 0) {
        // x[s:] has max(d-s, 0) elements: d-s alone would claim a negative size when d < s.
        const DimExpr rest = d - DimExpr(*sc);
        return c.provably_nonneg(rest) ? ceil_div(rest, DimExpr(step)) : max_of(DimExpr(0), ceil_div(rest, DimExpr(step)));
      }
      return ceil_div(min_of(d, DimExpr(-*sc)), DimExpr(step));
    }
    // x = d-1 or d-2 (x[1:n-1] with n = x.shape[k], torch's narrow): when negative it counts
    // from the end, x+d, which is still at most 0 for those two, so the clamped bound is
    // max(0, x) for every d (not so from d-3 on: d = 2 gives x+d = 1).
    auto just_below = [&](const DimExpr& x) -> std::optional<I64> {
      auto k = (x - d).const_value();
      if (k && *k < 0 && *k >= -2) return *k;
      return std::nullopt;
    };
    auto clamp_pos = [&](const DimExpr& x, std::optional<I64> xc) -> DimExpr {
      if (xc) {
        if (*xc >= kHuge / 2) return d;
        if (*xc <= -kHuge / 2 || *xc == 0) return DimExpr(0);
        if (*xc < 0) return max_of(DimExpr(0), d + DimExpr(*xc));
        return min_of(DimExpr(*xc), d);
      }
      if (auto k = just_below(x)) return max_of(DimExpr(0), d + DimExpr(*k));
      if (!c.provably_nonneg(x)) return DimExpr();  // marker handled below
      return min_of(x, d);
    };
    if ((!sc && !c.provably_nonneg(start) && !just_below(start)) || (!ec && !c.provably_nonneg(end) && !just_below(end)))
      return c.fresh();
    const DimExpr s = clamp_pos(start, sc), e = clamp_pos(end, ec);
    const DimExpr diff = e - s;
    const DimExpr len = ceil_div(diff, DimExpr(step));
    if (c.provably_nonneg(diff)) return len;
    if (c.provably_nonneg(-diff)) return DimExpr(0);
    return max_of(DimExpr(0), len);
  }
  // Negative step.
  const I64 k = -step;
  if (sc && ec && *ec <= -kHuge / 2 && (*sc == -1 || *sc >= kHuge / 2)) return ceil_div(d, DimExpr(k));
  if (!sc || !ec) return c.fresh();
  DimExpr s, e;
  if (*sc >= kHuge / 2) s = d - DimExpr(1);
  else if (*sc <= -kHuge / 2) s = DimExpr(0);
  else if (*sc < 0) s = max_of(DimExpr(0), d + DimExpr(*sc));
  else s = min_of(DimExpr(*sc), d - DimExpr(1));
  if (*ec <= -kHuge / 2) e = DimExpr(-1);
  else if (*ec >= kHuge / 2) e = d - DimExpr(1);
  else if (*ec < 0) e = max_of(DimExpr(-1), d + DimExpr(*ec));
  else e = min_of(DimExpr(*ec), d - DimExpr(1));
  return max_of(DimExpr(0), ceil_div(s - e, DimExpr(k)));
}

/// Slice. `inputs`: starts, ends, axes and steps are inputs (Slice-10 and later; DynamicSlice,
/// which has no steps, passes `max_inputs` 4), else attributes (Slice-1).
inline void slice_rule(InferContext& c, bool inputs, std::size_t max_inputs) {
  require_inputs(c, inputs ? 3 : 1, inputs ? max_inputs : 1);
  const DataType elem = c.input_elem(0);
  std::optional<Dims> starts, ends;
  std::optional<std::vector<I64>> axes, steps;
  bool axes_unknown = false, steps_unknown = false;
  if (!inputs) {
    auto s = c.attr_ints("starts"), e = c.attr_ints("ends");
    if (!s || !e) c.fail("missing required attribute 'starts' or 'ends'");
    starts.emplace();
    ends.emplace();
    for (auto x : *s) starts->emplace_back(x);
    for (auto x : *e) ends->emplace_back(x);
    axes = c.attr_ints("axes");
  } else {
    if (const Dims* v = c.input_value(1)) starts = resolved(c, *v);
    if (const Dims* v = c.input_value(2)) ends = resolved(c, *v);
    if (c.has_input(3)) {
      axes = c.input_ints(3);
      axes_unknown = !axes;
    }
    if (c.has_input(4)) {
      steps = c.input_ints(4);
      steps_unknown = !steps;
    }
  }
  const Dims* s = c.input_shape(0);
  if (!s) {
    c.set_output(0, ValueType::tensor(elem));
    return;
  }
  const I64 r = static_cast<I64>(s->size());
  Dims out = resolved(c, *s);
  if (!starts || !ends || axes_unknown) {
    // Which axes and by how much is unknown: every sliced axis gets a new size.
    if (axes && !axes_unknown) {
      for (auto a : norm_axes(c, *axes, r)) out[static_cast<std::size_t>(a)] = c.fresh();
    } else {
      out = fresh_dims(c, r);
    }
    c.set_output(0, elem, out);
    return;
  }
  if (starts->size() != ends->size()) c.fail("'starts' and 'ends' differ in length");
  std::vector<I64> ax;
  if (axes) {
    if (axes->size() != starts->size()) c.fail("'axes' and 'starts' differ in length");
    ax = norm_axes(c, *axes, r);
  } else {
    if (static_cast<I64>(starts->size()) > r) c.fail("more 'starts' than dimensions");
    for (I64 i = 0; i < static_cast<I64>(starts->size()); ++i) ax.push_back(i);
  }
  if (steps && steps->size() != starts->size()) c.fail("'steps' and 'starts' differ in length");
  for (std::size_t i = 0; i < ax.size(); ++i) {
    const auto a = static_cast<std::size_t>(ax[i]);
    if (steps_unknown) {
      out[a] = c.fresh();
      continue;
    }
    const I64 step = steps ? (*steps)[i] : 1;
    if (step == 0) c.fail("slice step 0");
    out[a] = slice_length(c, out[a], (*starts)[i], (*ends)[i], step);
  }
  c.set_output(0, elem, out);
  // Contents: slicing a symbolic tensor of known dims (a vector, or one carried flat) with
  // constant bounds.
  if (steps_unknown) return;
  auto f = flat_value(c, 0);
  if (!f) return;
  // The input indices kept along each axis.
  std::vector<std::vector<I64>> keep(static_cast<std::size_t>(r));
  for (I64 a = 0; a < r; ++a)
    for (I64 i = 0; i < f->dims[static_cast<std::size_t>(a)]; ++i) keep[static_cast<std::size_t>(a)].push_back(i);
  for (std::size_t i = 0; i < ax.size(); ++i) {
    const auto sc = (*starts)[i].const_value(), ec = (*ends)[i].const_value();
    if (!sc || !ec) return;
    const I64 step = clamp_huge(steps ? (*steps)[i] : 1);
    const I64 dim = f->dims[static_cast<std::size_t>(ax[i])];
    auto& kept = keep[static_cast<std::size_t>(ax[i])];
    kept.clear();
    if (dim == 0) continue;
    I64 b = clamp_huge(*sc), e = clamp_huge(*ec);
    if (b < 0) b += dim;
    if (e < 0) e += dim;
    if (step > 0) {
      b = std::clamp<I64>(b, 0, dim);
      e = std::clamp<I64>(e, 0, dim);
      for (I64 k = b; k < e; k += step) kept.push_back(k);
    } else {
      b = std::clamp<I64>(b, 0, dim - 1);
      e = std::clamp<I64>(e, -1, dim - 1);
      for (I64 k = b; k > e; k += step) kept.push_back(k);
    }
  }
  std::size_t total = 1;
  for (const auto& k : keep) total *= k.size();
  Collect val(f->part != nullptr, total);
  if (total > 0) {
    std::vector<std::size_t> idx(keep.size(), 0);
    for (std::size_t n = 0; n < total; ++n) {
      I64 off = 0;
      for (std::size_t a = 0; a < keep.size(); ++a) off = off * f->dims[a] + keep[a][idx[a]];
      (void)val.push(f->at(c, static_cast<std::size_t>(off)));
      for (std::size_t a = keep.size(); a-- > 0;) {
        if (++idx[a] < keep[a].size()) break;
        idx[a] = 0;
      }
    }
  }
  val.set(c);
}

inline void rule_slice(InferContext& c) { slice_rule(c, c.opset() >= 10, 5); }

/// DynamicSlice (an experimental operator removed from ONNX in opset 10; ONNX Runtime still runs
/// it under opsets 1-9): Slice-10 without steps.
inline void rule_dynamic_slice(InferContext& c) { slice_rule(c, true, 4); }

// ---------------------------------------------------------------------------------------------
// Gather family, Scatter family

inline void rule_gather(InferContext& c) {
  require_inputs(c, 2, 2);
  const DataType elem = c.input_elem(0);
  const I64 axis_attr = c.attr_int("axis", 0);
  const Dims* d = c.input_shape(0);
  const Dims* idx = c.input_shape(1);
  if (!d || !idx) {
    c.set_output(0, ValueType::tensor(elem));
    return;
  }
  const I64 r = static_cast<I64>(d->size());
  if (r < 1) c.fail("data must have rank >= 1");
  const auto axis = static_cast<std::size_t>(c.normalize_axis(axis_attr, r));
  Dims out;
  for (std::size_t i = 0; i < axis; ++i) out.push_back(c.resolve((*d)[i]));
  for (const auto& e : *idx) out.push_back(c.resolve(e));
  for (std::size_t i = axis + 1; i < d->size(); ++i) out.push_back(c.resolve((*d)[i]));
  c.set_output(0, elem, out);
  if (r != 1 || idx->size() > 1) return;
  const Dims* v = c.input_value(0);
  const PartialDims* p = v ? nullptr : c.input_partial_value(0);
  if (!v && !p) return;
  auto ind = c.input_ints(1);
  if (!ind || ind->size() > kMaxSymbolicElements) return;
  const I64 n = static_cast<I64>(v ? v->size() : p->size());
  Collect val(p != nullptr, ind->size());
  for (auto k : *ind) {
    if (k < -n || k >= n) c.fail("index " + std::to_string(k) + " out of range");
    if (k < 0) k += n;
    const auto j = static_cast<std::size_t>(k);
    (void)val.push(v ? std::optional<DimExpr>(c.resolve((*v)[j]))
                     : (*p)[j] ? std::optional<DimExpr>(c.resolve(*(*p)[j])) : std::nullopt);
  }
  val.set(c);
}

inline void rule_gather_elements(InferContext& c) {
  require_inputs(c, 2, 2);
  const DataType elem = c.input_elem(0);
  const Dims* d = c.input_shape(0);
  const Dims* idx = c.input_shape(1);
  if (d && idx) {
    if (d->size() != idx->size()) c.fail("data and indices must have the same rank");
    (void)c.normalize_axis(c.attr_int("axis", 0), static_cast<I64>(d->size()));
  }
  if (idx) c.set_output(0, elem, resolved(c, *idx));
  else if (d) c.set_output(0, elem, fresh_dims(c, static_cast<I64>(d->size())));
  else c.set_output(0, ValueType::tensor(elem));
}

inline void rule_gather_nd(InferContext& c) {
  require_inputs(c, 2, 2);
  const DataType elem = c.input_elem(0);
  const I64 b = c.opset() >= 12 ? c.attr_int("batch_dims", 0) : 0;
  const Dims* d = c.input_shape(0);
  const Dims* idx = c.input_shape(1);
  if (!d || !idx) {
    c.set_output(0, ValueType::tensor(elem));
    return;
  }
  const I64 r = static_cast<I64>(d->size()), q = static_cast<I64>(idx->size());
  if (r < 1 || q < 1) c.fail("data and indices must have rank >= 1");
  if (b < 0 || b >= std::min(r, q)) c.fail("'batch_dims' out of range");
  for (I64 i = 0; i < b; ++i)
    c.unify((*d)[static_cast<std::size_t>(i)], (*idx)[static_cast<std::size_t>(i)], "batch dimension");
  const auto m = c.resolve(idx->back()).const_value();
  if (!m) {
    c.set_output(0, ValueType::tensor(elem));
    return;
  }
  if (*m < 1 || *m > r - b) c.fail("last dimension of indices out of range");
  Dims out;
  for (I64 i = 0; i + 1 < q; ++i) out.push_back(c.resolve((*idx)[static_cast<std::size_t>(i)]));
  for (I64 i = b + *m; i < r; ++i) out.push_back(c.resolve((*d)[static_cast<std::size_t>(i)]));
  c.set_output(0, elem, out);
}

inline void rule_like_data(InferContext& c) {
  // Output 0 has the type and shape of input 0 (Scatter*, Trilu, CumSum, ReverseSequence…).
  if (c.input_count() < 1 || !c.has_input(0)) c.fail("missing input 0");
  const ValueType& t = c.input_type(0);
  if (t.is_unknown()) c.set_output(0, ValueType::tensor(DataType::UNDEFINED));
  else c.set_output(0, t);
}

inline void rule_scatter(InferContext& c) {
  require_inputs(c, 3, 3);
  const Dims* d = c.input_shape(0);
  const Dims* i = c.input_shape(1);
  const Dims* u = c.input_shape(2);
  const std::string op = c.node().op_type;
  if (op != "ScatterND" && i && u) {
    if (i->size() != u->size()) c.fail("indices and updates must have the same rank");
    for (std::size_t k = 0; k < i->size(); ++k) c.unify((*i)[k], (*u)[k], "indices and updates dimension");
  }
  if (op != "ScatterND" && d && i && d->size() != i->size()) c.fail("data and indices must have the same rank");
  if (d && op != "ScatterND") (void)c.normalize_axis(c.attr_int("axis", 0), static_cast<I64>(d->size()));
  rule_like_data(c);
}

// ---------------------------------------------------------------------------------------------
// Expand, Tile, Pad, ConstantOfShape, Range

inline void rule_expand(InferContext& c) {
  require_inputs(c, 2, 2);
  const DataType elem = c.input_elem(0);
  const Dims* s = c.input_shape(0);
  const Dims* v = c.input_value(1);
  if (auto r = c.input_rank(1); r && *r != 1) c.fail("'shape' input must be 1-D");
  if (!v) {
    auto len = vector_length(c, 1);
    if (!s || !len) return c.set_output(0, ValueType::tensor(elem));
    // Target values unknown, its length known: a dim of the input other than 1 survives (the
    // target there is 1 or equal to it); where the input has no dim or a 1 or a symbol, the size
    // is not determined. Input dims left of the target's reach are kept as they are.
    // Known entries of a target of which only some are known are sized as broadcasting says.
    auto part = c.input_elements(1);
    if (part && static_cast<I64>(part->size()) != *len) part.reset();
    const auto rank = static_cast<std::size_t>(std::max<I64>(static_cast<I64>(s->size()), *len));
    Dims out(rank);
    for (std::size_t k = 0; k < rank; ++k) {
      const std::size_t from_right = rank - 1 - k;
      const bool has_in = from_right < s->size();
      const bool has_target = static_cast<I64>(from_right) < *len;
      const DimExpr d = has_in ? c.resolve((*s)[s->size() - 1 - from_right]) : DimExpr(1);
      const std::optional<DimExpr>* t =
          has_target && part ? &(*part)[static_cast<std::size_t>(*len) - 1 - from_right] : nullptr;
      if (t && *t) {
        if (auto n = (*t)->const_value(); n && *n < 0) c.fail("negative size in 'shape'");
        out[k] = c.broadcast(Dims{d}, Dims{**t})[0];
      } else if (has_in && !has_target) {
        out[k] = d;
      } else if (has_in && d.is_const() && !d.is(1)) {
        out[k] = d;
      } else {
        out[k] = c.fresh();
      }
    }
    c.set_output(0, elem, std::move(out));
    return;
  }
  const Dims target = resolved(c, *v);
  for (const auto& t : target)
    if (auto k = t.const_value(); k && *k < 0) c.fail("negative size in 'shape'");
  if (!s) {
    // The output has at least the target's rank; each target entry other than 1 is its size.
    c.set_output(0, ValueType::tensor(elem));
    return;
  }
  const Dims out = c.broadcast(*s, target);
  c.set_output(0, elem, out);
  if (const Dims* iv = c.input_value(0); iv && out.size() == 1) {
    auto n = c.resolve(out[0]).const_value();
    if (n && static_cast<I64>(iv->size()) == 1 && *n >= 0 && static_cast<std::size_t>(*n) <= kMaxSymbolicElements)
      c.set_output_value(0, Dims(static_cast<std::size_t>(*n), (*iv)[0]));
    else if (n && static_cast<I64>(iv->size()) == *n)
      c.set_output_value(0, *iv);
  }
}

inline void rule_tile(InferContext& c) {
  require_inputs(c, 2, c.opset() < 6 ? 3 : 2);
  const DataType elem = c.input_elem(0);
  const Dims* s = c.input_shape(0);
  if (c.opset() < 6) {
    // Tile-1: inputs (input, tiles, axis): repeat along one axis.
    if (!s) return c.set_output(0, ValueType::tensor(elem));
    Dims out = resolved(c, *s);
    auto t = scalar_value(c, 1);
    auto a = c.input_ints(2);
    if (a && a->size() == 1) {
      const auto axis = static_cast<std::size_t>(c.normalize_axis((*a)[0], static_cast<I64>(s->size())));
      out[axis] = t ? out[axis] * *t : c.fresh();
    } else {
      out = fresh_dims(c, static_cast<I64>(s->size()));
    }
    return c.set_output(0, elem, out);
  }
  const Dims* rep = c.input_value(1);
  if (!s) return c.set_output(0, ValueType::tensor(elem));
  if (!rep) {
    // Repeats of which only some are known size their axes.
    auto part = c.input_elements(1);
    if (!part || part->size() != s->size()) return c.set_output(0, elem, fresh_dims(c, static_cast<I64>(s->size())));
    Dims out;
    for (std::size_t i = 0; i < s->size(); ++i) {
      const auto& r = (*part)[i];
      if (!r) {
        out.push_back(c.fresh());
        continue;
      }
      if (auto k = r->const_value(); k && *k < 0) c.fail("negative repeat");
      out.push_back(c.resolve((*s)[i]) * *r);
    }
    return c.set_output(0, elem, std::move(out));
  }
  if (rep->size() != s->size()) c.fail("'repeats' has " + std::to_string(rep->size()) + " entries for rank " + std::to_string(s->size()));
  Dims out;
  for (std::size_t i = 0; i < s->size(); ++i) {
    const DimExpr r = c.resolve((*rep)[i]);
    if (auto k = r.const_value(); k && *k < 0) c.fail("negative repeat");
    out.push_back(c.resolve((*s)[i]) * r);
  }
  c.set_output(0, elem, out);
  if (const Dims* iv = c.input_value(0); iv && s->size() == 1) {
    auto k = c.resolve((*rep)[0]).const_value();
    if (k && *k >= 0 && static_cast<std::size_t>(*k) <= kMaxSymbolicElements &&
        static_cast<std::size_t>(*k) * iv->size() <= kMaxSymbolicElements) {
      Dims val;
      for (I64 j = 0; j < *k; ++j) val.insert(val.end(), iv->begin(), iv->end());
      c.set_output_value(0, std::move(val));
    }
  }
}

inline void rule_pad(InferContext& c) {
  const bool from_input = c.opset() >= 11;
  require_inputs(c, 1, from_input ? 4 : 1);
  const DataType elem = c.input_elem(0);
  const Dims* s = c.input_shape(0);
  std::optional<Dims> pads;
  bool pads_given = true;
  if (!from_input) {
    auto p = c.attr_ints(c.opset() < 2 ? "paddings" : "pads");
    if (!p) c.fail("missing required attribute 'pads'");
    pads.emplace();
    for (auto x : *p) pads->emplace_back(x);
  } else {
    if (!c.has_input(1)) c.fail("missing input 'pads'");
    if (const Dims* v = c.input_value(1)) pads = resolved(c, *v);
    pads_given = true;
  }
  (void)pads_given;
  const std::string mode = c.attr_string("mode", "constant");
  if (mode != "constant" && mode != "reflect" && mode != "edge" && mode != "wrap") c.fail("unknown mode '" + mode + "'");
  if (!s) return c.set_output(0, ValueType::tensor(elem));
  const I64 r = static_cast<I64>(s->size());
  std::vector<I64> axes;
  bool axes_unknown = false;
  if (from_input && c.opset() >= 18 && c.has_input(3)) {
    if (auto a = c.input_ints(3)) axes = norm_axes(c, *a, r);
    else axes_unknown = true;
  } else {
    for (I64 i = 0; i < r; ++i) axes.push_back(i);
  }
  if (axes_unknown) return c.set_output(0, elem, fresh_dims(c, r));
  if (!pads) {
    // Pads known in part (torch's F.pad to a length computed from data): an axis whose two
    // pads are known is sized; the others are not determined.
    auto part = from_input ? c.input_elements(1) : std::nullopt;
    if (!part || part->size() != 2 * axes.size()) return c.set_output(0, elem, fresh_dims(c, r));
    Dims out = resolved(c, *s);
    for (std::size_t i = 0; i < axes.size(); ++i) {
      const auto a = static_cast<std::size_t>(axes[i]);
      const auto& b = (*part)[i];
      const auto& e = (*part)[i + axes.size()];
      out[a] = b && e ? c.resolve(out[a] + *b + *e) : c.fresh();
      if (auto k = out[a].const_value(); k && *k < 0) c.fail("padding makes a dimension negative");
    }
    return c.set_output(0, elem, std::move(out));
  }
  if (pads->size() != 2 * axes.size())
    c.fail("'pads' has " + std::to_string(pads->size()) + " entries, expected " + std::to_string(2 * axes.size()));
  Dims out = resolved(c, *s);
  for (std::size_t i = 0; i < axes.size(); ++i) {
    const auto a = static_cast<std::size_t>(axes[i]);
    out[a] = out[a] + (*pads)[i] + (*pads)[i + axes.size()];
    if (auto k = out[a].const_value(); k && *k < 0) c.fail("padding makes a dimension negative");
  }
  c.set_output(0, elem, out);
}

inline void rule_constant_of_shape(InferContext& c) {
  require_inputs(c, 1, 1);
  DataType elem = DataType::FLOAT;
  std::optional<DimExpr> fill = DimExpr(0);
  bool nonzero = false;  // the fill value is not 0 (NaN is not 0 either)
  if (const Attribute* a = c.attr("value")) {
    if (a->kind() != AttributeType::TENSOR) c.fail("attribute 'value' should be a tensor");
    const Tensor& t = a->as_tensor();
    auto count = t.element_count();
    if (!count || *count != 1) c.fail("'value' must hold one element");
    elem = t.data_type;
    fill.reset();
    if (auto v = Engine::tensor_sym_value(t); v && v->size() == 1) fill = (*v)[0];
    if (fill) {
      nonzero = !fill->is(0);
    } else {
      try {
        const auto x = Engine::float_element(t, 0);
        nonzero = x && *x != 0.0;  // -0.0 is 0; NaN is not
      } catch (const Error&) {  // a payload without its element: not known
      }
    }
  }
  if (auto r = c.input_rank(0); r && *r != 1) c.fail("input must be 1-D");
  const Dims* v = c.input_value(0);
  if (!v) {
    auto len = vector_length(c, 0);
    auto part = c.input_elements(0);
    if (len && part && static_cast<I64>(part->size()) == *len) {
      // Some sizes known (a Concat of a shape slice and a size computed from data).
      Dims out;
      for (const auto& d : *part) {
        if (auto k = d ? d->const_value() : std::nullopt; k && *k < 0) c.fail("negative size in shape");
        out.push_back(d ? *d : c.fresh());
      }
      c.set_output(0, elem, std::move(out));
    } else if (len) {
      c.set_output(0, elem, fresh_dims(c, *len));
    } else {
      c.set_output(0, ValueType::tensor(elem));
    }
    if (nonzero) c.set_output_all_nonzero(0);
    return;
  }
  Dims out = resolved(c, *v);
  for (const auto& d : out)
    if (auto k = d.const_value(); k && *k < 0) c.fail("negative size in shape");
  c.set_output(0, elem, out);
  if (nonzero) c.set_output_all_nonzero(0);
  if (fill && is_integer(elem) && out.size() <= 1) {
    const DimExpr n = out.empty() ? DimExpr(1) : out[0];
    if (auto k = n.const_value(); k && static_cast<std::size_t>(*k) <= kMaxSymbolicElements)
      c.set_output_value(0, Dims(static_cast<std::size_t>(*k), *fill));
  }
}

/// ConstantFill and GivenTensorFill, experimental operators removed from ONNX in opset 10 that
/// Caffe2-era exporters wrote: the output's shape is the `shape` attribute; else, with
/// `input_as_shape`, the contents of the 1-D input; else the input's shape; `extra_shape` is
/// appended to the last two. ConstantFill's element type is `dtype` (default FLOAT);
/// GivenTensorFill's is its input's.
inline void fill_rule(InferContext& c, bool given_values) {
  require_inputs(c, 0, 1);
  DataType elem = DataType::UNDEFINED;
  if (given_values) {
    elem = c.has_input(0) ? c.input_elem(0) : DataType::UNDEFINED;
  } else {
    const std::int64_t dt = c.attr_int("dtype", 1);
    if (dt != 1 && dt != 6 && dt != 7 && dt != 9) c.fail("'dtype' must be FLOAT, INT32, INT64 or BOOL, got " + std::to_string(dt));
    elem = static_cast<DataType>(dt);
  }
  auto sizes = [&](const std::vector<std::int64_t>& v, std::string_view what) {
    Dims d;
    for (auto x : v) {
      if (x < 0) c.fail(std::string(what) + " holds a negative size");
      d.emplace_back(x);
    }
    return d;
  };
  if (auto shape = c.attr_ints("shape")) {
    c.set_output(0, elem, sizes(*shape, "'shape'"));
    return;
  }
  if (!c.has_input(0)) {  // neither a shape nor an input: nothing says the rank
    c.set_output(0, ValueType::tensor(elem));
    return;
  }
  const Dims extra = sizes(c.attr_ints("extra_shape").value_or(std::vector<std::int64_t>{}), "'extra_shape'");
  Dims out;
  if (c.attr_int("input_as_shape", 0) != 0) {
    if (auto r = c.input_rank(0); r && *r != 1) c.fail("with input_as_shape the input must be 1-D");
    const Dims* v = c.input_value(0);
    if (!v) {
      if (auto len = vector_length(c, 0)) {
        out = fresh_dims(c, *len);
      } else {
        c.set_output(0, ValueType::tensor(elem));
        return;
      }
    } else {
      out = resolved(c, *v);
      for (const auto& d : out)
        if (auto k = d.const_value(); k && *k < 0) c.fail("negative size in shape");
    }
  } else if (const Dims* s = c.input_shape(0)) {
    out = resolved(c, *s);
  } else {
    c.set_output(0, ValueType::tensor(elem));
    return;
  }
  out.insert(out.end(), extra.begin(), extra.end());
  c.set_output(0, elem, std::move(out));
}
inline void rule_constant_fill(InferContext& c) { fill_rule(c, false); }
inline void rule_given_tensor_fill(InferContext& c) { fill_rule(c, true); }

/// Range (start, limit, delta); ONNX Runtime's com.microsoft Range (`optional_delta`) makes delta
/// optional, 1 by default.
inline void range_rule(InferContext& c, bool optional_delta) {
  require_inputs(c, optional_delta ? 2 : 3, 3);
  const bool has_delta = c.has_input(2);
  DataType elem = DataType::UNDEFINED;
  for (std::size_t i = 0; i < (has_delta ? 3u : 2u); ++i) {
    if (auto r = c.input_rank(i); r && *r != 0 && !(*r == 1 && vector_length(c, i) == I64{1}))
      c.fail("Range inputs must be scalars");
    if (elem == DataType::UNDEFINED) elem = c.input_elem(i);
  }
  auto start = scalar_value(c, 0), limit = scalar_value(c, 1);
  auto delta = has_delta ? scalar_value(c, 2) : std::optional<DimExpr>(DimExpr(1));
  if (!is_floating(elem) && start && limit && delta) {
    if (auto dk = delta->const_value(); dk && *dk != std::numeric_limits<I64>::min()) {
      if (*dk == 0) c.fail("delta is 0");
      const DimExpr diff = *dk > 0 ? *limit - *start : *start - *limit;
      const DimExpr step(*dk > 0 ? *dk : -*dk);
      DimExpr len = ceil_div(diff, step);
      if (auto k = len.const_value()) len = DimExpr(std::max<I64>(0, *k));
      else if (c.provably_nonneg(-diff)) len = DimExpr(0);  // limit is provably not past start
      else if (!c.provably_nonneg(diff)) len = max(DimExpr(0), len);
      c.set_output(0, elem, {len});
      if (auto k = len.const_value(); k && static_cast<std::size_t>(*k) <= kMaxSymbolicElements) {
        Dims val;
        for (I64 i = 0; i < *k; ++i) {
          I64 off = 0;
          if (__builtin_mul_overflow(i, *dk, &off)) return;
          val.push_back(*start + DimExpr(off));
        }
        c.set_output_value(0, std::move(val));
      }
      return;
    }
  }
  auto fs = c.input_floats(0), fl = c.input_floats(1);
  auto fd = has_delta ? c.input_floats(2) : std::optional<std::vector<double>>(std::vector<double>{1.0});
  if (fs && fl && fd && fs->size() == 1 && fl->size() == 1 && fd->size() == 1) {
    if ((*fd)[0] == 0) c.fail("delta is 0");
    const double n = std::ceil(((*fl)[0] - (*fs)[0]) / (*fd)[0]);
    if (std::isfinite(n) && n < 9.0e15) {
      c.set_output(0, elem, {DimExpr(static_cast<I64>(std::max(0.0, n)))});
      return;
    }
  }
  c.set_output(0, elem, {c.fresh()});
}
inline void rule_range(InferContext& c) { range_rule(c, false); }

// ---------------------------------------------------------------------------------------------
// DepthToSpace, SpaceToDepth, Compress, NonZero, Unique, TopK

inline void rule_depth_to_space(InferContext& c) {
  require_inputs(c, 1, 1);
  const DataType elem = c.input_elem(0);
  const I64 b = c.require_int("blocksize");
  if (b <= 0) c.fail("'blocksize' must be positive");
  if (c.opset() >= 11) {
    const auto mode = c.attr_string("mode", "DCR");
    if (mode != "DCR" && mode != "CRD") c.fail("unknown mode '" + mode + "'");
  }
  const Dims* s = c.input_shape(0);
  if (!s) return c.set_output(0, elem, fresh_dims(c, 4));
  if (s->size() != 4) c.fail("input must be 4-D");
  const Dims d = resolved(c, *s);
  const DimExpr bb = DimExpr(b) * DimExpr(b);
  if (auto k = d[1].const_value(); k && *k % *bb.const_value() != 0) c.fail("channels not divisible by blocksize^2");
  c.set_output(0, elem, {d[0], floor_div(d[1], bb), d[2] * DimExpr(b), d[3] * DimExpr(b)});
}

inline void rule_space_to_depth(InferContext& c) {
  require_inputs(c, 1, 1);
  const DataType elem = c.input_elem(0);
  const I64 b = c.require_int("blocksize");
  if (b <= 0) c.fail("'blocksize' must be positive");
  const Dims* s = c.input_shape(0);
  if (!s) return c.set_output(0, elem, fresh_dims(c, 4));
  if (s->size() != 4) c.fail("input must be 4-D");
  const Dims d = resolved(c, *s);
  for (std::size_t i = 2; i < 4; ++i)
    if (auto k = d[i].const_value(); k && *k % b != 0) c.fail("spatial size not divisible by blocksize");
  c.set_output(0, elem, {d[0], d[1] * DimExpr(b) * DimExpr(b), floor_div(d[2], DimExpr(b)), floor_div(d[3], DimExpr(b))});
}

inline void rule_compress(InferContext& c) {
  require_inputs(c, 2, 2);
  const DataType elem = c.input_elem(0);
  const Dims* s = c.input_shape(0);
  if (auto r = c.input_rank(1); r && *r != 1) c.fail("condition must be 1-D");
  // The output length is the number of true entries of the condition among the first
  // min(len(condition), D) (D: the axis size, or the input's element count without an axis):
  // runtimes (ONNX Runtime) discard condition entries past D. Known only when D is, or when no
  // entry is true; a symbolic D may be smaller than the condition.
  const bool has_axis = c.has_attr("axis");
  std::optional<std::size_t> axis;
  if (has_axis && s)
    axis = static_cast<std::size_t>(c.normalize_axis(c.attr_int("axis", 0), static_cast<I64>(s->size())));
  std::optional<I64> d;
  if (s) d = (axis ? c.resolve((*s)[*axis]) : product(c, *s, 0, s->size())).const_value();
  DimExpr n = c.fresh();
  if (auto cond = c.input_ints(1)) {
    I64 cnt = 0, seen = 0;
    for (auto x : *cond) {
      if (d && seen++ >= *d) break;
      cnt += x != 0;
    }
    if (d || cnt == 0) n = DimExpr(cnt);
  }
  if (!has_axis) return c.set_output(0, elem, {n});
  if (!s) return c.set_output(0, ValueType::tensor(elem));
  Dims out = resolved(c, *s);
  out[*axis] = n;
  c.set_output(0, elem, out);
}

inline void rule_nonzero(InferContext& c) {
  require_inputs(c, 1, 1);
  const auto r = c.input_rank(0);
  const Dims* s = c.input_shape(0);
  if (s && !s->empty() && c.input_all_nonzero(0)) {
    // Every element is nonzero (torch's arange(n) before opset 11: NonZero(ConstantOfShape(n, 1))):
    // every index, in row-major order.
    const DimExpr n = product(c, *s, 0, s->size());
    c.set_output(0, DataType::INT64, {DimExpr(*r), n});
    if (auto k = n.const_value(); s->size() == 1 && k && static_cast<std::size_t>(*k) <= kMaxSymbolicElements) {
      Dims idx;
      for (I64 i = 0; i < *k; ++i) idx.emplace_back(i);
      c.set_output_value(0, std::move(idx));
    }
    return;
  }
  c.set_output(0, DataType::INT64, {r ? DimExpr(*r) : c.fresh(), c.fresh()});
}

inline void rule_unique(InferContext& c) {
  require_inputs(c, 1, 1);
  const DataType elem = c.input_elem(0);
  const Dims* s = c.input_shape(0);
  const DimExpr u = c.fresh();
  if (!c.has_attr("axis")) {
    c.set_output(0, elem, {u});
    c.set_output(1, DataType::INT64, {u});
    c.set_output(2, DataType::INT64, {s ? product(c, *s, 0, s->size()) : c.fresh()});
    c.set_output(3, DataType::INT64, {u});
    return;
  }
  if (!s) {
    c.set_output(0, ValueType::tensor(elem));
    c.set_output(1, DataType::INT64, {u});
    c.set_output(2, DataType::INT64, {c.fresh()});
    c.set_output(3, DataType::INT64, {u});
    return;
  }
  const auto axis = static_cast<std::size_t>(c.normalize_axis(c.attr_int("axis", 0), static_cast<I64>(s->size())));
  Dims out = resolved(c, *s);
  const DimExpr along = out[axis];
  out[axis] = u;
  c.set_output(0, elem, out);
  c.set_output(1, DataType::INT64, {u});
  c.set_output(2, DataType::INT64, {along});
  c.set_output(3, DataType::INT64, {u});
}

inline void rule_topk(InferContext& c) {
  const bool k_input = c.opset() >= 10;
  require_inputs(c, k_input ? 2 : 1, k_input ? 2 : 1);
  const DataType elem = c.input_elem(0);
  std::optional<DimExpr> k;
  if (!k_input) {
    k = DimExpr(c.require_int("k"));
  } else {
    if (auto r = c.input_rank(1); r && *r != 1) c.fail("'K' must be a 1-D tensor of one element");
    k = scalar_value(c, 1);
  }
  if (k) {
    if (auto kk = k->const_value(); kk && *kk < 0) c.fail("'K' must be non-negative");
  }
  const Dims* s = c.input_shape(0);
  if (!s) {
    c.set_output(0, ValueType::tensor(elem));
    c.set_output(1, ValueType::tensor(DataType::INT64));
    return;
  }
  const auto axis = static_cast<std::size_t>(c.normalize_axis(c.attr_int("axis", -1), static_cast<I64>(s->size())));
  Dims out = resolved(c, *s);
  if (k) {
    if (auto kk = k->const_value(), dk = out[axis].const_value(); kk && dk && *kk > *dk)
      c.fail("'K' larger than the dimension");
    out[axis] = *k;
  } else {
    out[axis] = c.fresh();
  }
  c.set_output(0, elem, out);
  c.set_output(1, DataType::INT64, out);
}

// ---------------------------------------------------------------------------------------------
// Reductions, ArgMax/ArgMin

inline void rule_reduce(InferContext& c) {
  const std::string& op = c.node().op_type;
  const I64 since = op == "ReduceSum" ? 13 : 18;
  const bool from_input = c.opset() >= since;
  require_inputs(c, 1, from_input ? 2 : 1);
  const DataType elem = c.input_elem(0);
  const bool keep = c.attr_int("keepdims", 1) != 0;
  const bool noop = from_input && c.attr_int("noop_with_empty_axes", 0) != 0;
  const AxesArg ax = axes_arg(c, "axes", 1, since);
  const Dims* s = c.input_shape(0);
  if (!s) return c.set_output(0, ValueType::tensor(elem));
  const I64 r = static_cast<I64>(s->size());
  if (ax.given && !ax.known && ax.count != 0) {
    // Axes given, their values unknown. Kept dims are 1 or what they were: 1 when they were 1.
    // Without keepdims an axis may be named twice, so k axes remove between 1 and k dims: the
    // rank is known only for k = 1 (an empty axes vector is known: it is handled below).
    if (keep) {
      Dims out;
      for (const auto& d : *s) {
        const DimExpr e = c.resolve(d);
        out.push_back(e.is(1) ? e : c.fresh());
      }
      return c.set_output(0, elem, std::move(out));
    }
    if (ax.count == 1 && r >= 1)
      if (auto d = without_one_axis(c, *s, std::vector<bool>(static_cast<std::size_t>(r), true)))
        return c.set_output(0, elem, std::move(*d));
    return c.set_output(0, ValueType::tensor(elem));
  }
  std::vector<I64> axes;
  if (ax.known && !ax.values.empty()) {
    axes = distinct_axes(c, ax.values, r);
  } else if (noop) {
    c.set_output(0, elem, resolved(c, *s));
    if (const Dims* v = c.input_value_flat(0)) c.set_output_value(0, *v);
    return;
  } else {
    for (I64 i = 0; i < r; ++i) axes.push_back(i);
  }
  Dims out;
  for (I64 i = 0; i < r; ++i) {
    const bool red = std::find(axes.begin(), axes.end(), i) != axes.end();
    if (!red) out.push_back(c.resolve((*s)[static_cast<std::size_t>(i)]));
    else if (keep) out.push_back(DimExpr(1));
  }
  const std::size_t rank_out = out.size();
  c.set_output(0, elem, std::move(out));
  // Contents: a product or sum of a symbolic vector (e.g. the element count from a shape).
  const Dims* v = c.input_value(0);
  if (v && r == 1 && rank_out <= 1 && (op == "ReduceProd" || op == "ReduceSum")) {
    DimExpr acc(op == "ReduceProd" ? 1 : 0);
    for (const auto& e : *v) acc = op == "ReduceProd" ? acc * c.resolve(e) : acc + c.resolve(e);
    c.set_output_value(0, {acc});
  }
}

inline void rule_argminmax(InferContext& c) {
  require_inputs(c, 1, 1);
  const bool keep = c.attr_int("keepdims", 1) != 0;
  const Dims* s = c.input_shape(0);
  if (!s) return c.set_output(0, ValueType::tensor(DataType::INT64));
  const I64 r = static_cast<I64>(s->size());
  const I64 axis = c.normalize_axis(c.attr_int("axis", 0), r);
  (void)c.attr_int("select_last_index", 0);
  Dims out;
  for (I64 i = 0; i < r; ++i) {
    if (i != axis) out.push_back(c.resolve((*s)[static_cast<std::size_t>(i)]));
    else if (keep) out.push_back(DimExpr(1));
  }
  c.set_output(0, DataType::INT64, std::move(out));
}

// ---------------------------------------------------------------------------------------------
// OneHot, Trilu, CumSum, EyeLike, ReverseSequence, CenterCropPad

inline void rule_onehot(InferContext& c) {
  require_inputs(c, 3, 3);
  const DataType elem = c.input_elem(2);
  if (auto r = c.input_rank(2); r && *r != 1) c.fail("'values' must be 1-D");
  if (auto r = c.input_rank(1); r && *r > 1) c.fail("'depth' must be a scalar");
  const Dims* s = c.input_shape(0);
  if (!s) return c.set_output(0, ValueType::tensor(elem));
  const I64 r = static_cast<I64>(s->size()) + 1;
  const auto axis = static_cast<std::size_t>(c.normalize_axis(c.attr_int("axis", -1), r));
  DimExpr depth = c.fresh();
  if (auto d = scalar_value(c, 1)) {
    if (auto k = d->const_value(); k && *k < 1) c.fail("'depth' must be positive");
    depth = *d;
  } else if (auto f = c.input_floats(1); f && f->size() == 1 && std::isfinite((*f)[0]) && (*f)[0] >= 1 && (*f)[0] < 9.0e15) {
    depth = DimExpr(static_cast<I64>((*f)[0]));
  }
  Dims out = resolved(c, *s);
  out.insert(out.begin() + static_cast<std::ptrdiff_t>(axis), depth);
  c.set_output(0, elem, std::move(out));
}

inline void rule_trilu(InferContext& c) {
  require_inputs(c, 1, 2);
  if (auto r = c.input_rank(0); r && *r < 2) c.fail("input must have rank >= 2");
  rule_like_data(c);
}

inline void rule_cumsum(InferContext& c) {
  require_inputs(c, 2, 2);
  if (auto r = c.input_rank(1); r && *r > 1) c.fail("'axis' must be a scalar");
  if (auto a = c.input_ints(1); a && a->size() == 1)
    if (auto r = c.input_rank(0)) (void)c.normalize_axis((*a)[0], *r);
  rule_like_data(c);
}

inline void rule_eyelike(InferContext& c) {
  require_inputs(c, 1, 1);
  DataType elem = c.input_elem(0);
  if (c.has_attr("dtype")) {
    const I64 dt = c.attr_int("dtype", 1);
    if (dt < 1 || dt > 64 || !is_known(static_cast<DataType>(dt))) c.fail("invalid 'dtype' " + std::to_string(dt));
    elem = static_cast<DataType>(dt);
  }
  const Dims* s = c.input_shape(0);
  if (!s) return c.set_output(0, elem, fresh_dims(c, 2));
  if (s->size() != 2) c.fail("input must be 2-D");
  c.set_output(0, elem, resolved(c, *s));
}

inline void rule_reverse_sequence(InferContext& c) {
  require_inputs(c, 2, 2);
  const I64 ba = c.attr_int("batch_axis", 1), ta = c.attr_int("time_axis", 0);
  if (ba < 0 || ba > 1 || ta < 0 || ta > 1 || ba == ta) c.fail("'batch_axis' and 'time_axis' must be 0 and 1");
  const Dims* s = c.input_shape(0);
  if (s) {
    if (s->size() < 2) c.fail("input must have rank >= 2");
    if (const Dims* l = c.input_shape(1)) {
      if (l->size() != 1) c.fail("'sequence_lens' must be 1-D");
      c.unify((*s)[static_cast<std::size_t>(ba)], (*l)[0], "batch size and sequence_lens length");
    }
  }
  rule_like_data(c);
}

inline void rule_center_crop_pad(InferContext& c) {
  require_inputs(c, 2, 2);
  const DataType elem = c.input_elem(0);
  const Dims* s = c.input_shape(0);
  if (!s) return c.set_output(0, ValueType::tensor(elem));
  const I64 r = static_cast<I64>(s->size());
  std::vector<I64> axes;
  if (auto a = c.attr_ints("axes")) axes = norm_axes(c, *a, r);
  else
    for (I64 i = 0; i < r; ++i) axes.push_back(i);
  Dims out = resolved(c, *s);
  const Dims* v = c.input_value(1);
  if (!v) {
    for (auto a : axes) out[static_cast<std::size_t>(a)] = c.fresh();
    return c.set_output(0, elem, out);
  }
  if (v->size() != axes.size()) c.fail("'shape' has " + std::to_string(v->size()) + " entries for " + std::to_string(axes.size()) + " axes");
  for (std::size_t i = 0; i < axes.size(); ++i) out[static_cast<std::size_t>(axes[i])] = c.resolve((*v)[i]);
  c.set_output(0, elem, out);
}

}  // namespace shape_detail

inline void register_shape_ops(OpRegistry& r) {
  using namespace shape_detail;
  r.add("", "Constant", &rule_constant);
  r.add("", "Shape", &rule_shape);
  r.add("", "Size", &rule_size);
  r.add("", "Identity", &rule_identity);
  r.add("", "Reshape", &rule_reshape);
  r.add("", "Flatten", &rule_flatten);
  r.add("", "Squeeze", &rule_squeeze);
  r.add("", "Unsqueeze", &rule_unsqueeze);
  r.add("", "Transpose", &rule_transpose);
  r.add("", "Concat", &rule_concat);
  r.add("", "Split", &rule_split);
  r.add("", "Slice", &rule_slice);
  r.add("", "DynamicSlice", &rule_dynamic_slice);
  r.add("", "Gather", &rule_gather);
  r.add("", "GatherElements", &rule_gather_elements);
  r.add("", "GatherND", &rule_gather_nd);
  r.add("", "Scatter", &rule_scatter);
  r.add("", "ScatterElements", &rule_scatter);
  r.add("", "ScatterND", &rule_scatter);
  r.add("", "Expand", &rule_expand);
  r.add("", "Tile", &rule_tile);
  r.add("", "Pad", &rule_pad);
  r.add("", "ConstantOfShape", &rule_constant_of_shape);
  r.add("", "ConstantFill", &rule_constant_fill);
  r.add("", "GivenTensorFill", &rule_given_tensor_fill);
  r.add("", "Range", &rule_range);
  r.add("", "DepthToSpace", &rule_depth_to_space);
  r.add("", "SpaceToDepth", &rule_space_to_depth);
  r.add("", "Compress", &rule_compress);
  r.add("", "NonZero", &rule_nonzero);
  r.add("", "Unique", &rule_unique);
  r.add("", "TopK", &rule_topk);
  for (const char* op : {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
                         "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare"})
    r.add("", op, &rule_reduce);
  r.add("", "ArgMax", &rule_argminmax);
  r.add("", "ArgMin", &rule_argminmax);
  r.add("", "OneHot", &rule_onehot);
  r.add("", "Trilu", &rule_trilu);
  r.add("", "CumSum", &rule_cumsum);
  r.add("", "EyeLike", &rule_eyelike);
  r.add("", "ReverseSequence", &rule_reverse_sequence);
  r.add("", "CenterCropPad", &rule_center_crop_pad);
}

}  // namespace oxir::infer::ops
