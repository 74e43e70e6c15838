#pragma once
// Inference rules: linear algebra, normalization, quantization, random, string and misc tensor
// operators of the default domain (see docs/inference.md).
//
// Sizes the operators force equal are unified (MatMul/Gemm contraction dims, the channel dims of
// normalization parameters, Det's square matrices, Einsum's repeated labels); batch dims
// broadcast; sizes nothing determines get fresh symbols.

#include <algorithm>
#include <array>
#include <cctype>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "../engine.hpp"
#include "common.hpp"

namespace oxir::infer::ops {

namespace linalg_detail {

/// A tensor type of element `e` with the shape of input i (unknown rank if not known).
inline ValueType like_input(const InferContext& c, std::size_t i, DataType e) {
  if (const Dims* s = c.input_shape(i)) return ValueType::tensor(e, *s);
  return ValueType::tensor(e);
}

/// A valid tensor element type from a dtype-like attribute value.
inline DataType dtype_from(const InferContext& c, std::int64_t v, std::string_view what) {
  if (v <= 0 || v > 0x7fffffff || !is_known(static_cast<DataType>(v)))
    c.fail(std::string(what) + " " + std::to_string(v) + " is not a valid element type");
  return static_cast<DataType>(v);
}

/// Unifies a parameter's 1-D shape [C] with the channel dim `ch` (when its rank is known).
inline void unify_channel_param(InferContext& c, std::size_t i, const DimExpr& ch, std::string_view what) {
  const Dims* s = c.input_shape(i);
  if (!s) return;
  if (s->size() != 1) c.fail(std::string(what) + " must be 1-D, got rank " + std::to_string(s->size()));
  c.unify((*s)[0], ch, std::string(what) + " size vs channels");
}

// ---- MatMul family ----

/// numpy matmul shape of a and b; unifies the contraction dims.
inline Dims matmul_dims(InferContext& c, const Dims& a, const Dims& b) {
  if (a.empty() || b.empty()) c.fail("MatMul inputs must have rank >= 1");
  Dims A = a, B = b;
  const bool pa = A.size() == 1, pb = B.size() == 1;
  if (pa) A.insert(A.begin(), DimExpr(1));
  if (pb) B.push_back(DimExpr(1));
  c.unify(A.back(), B[B.size() - 2], "MatMul contraction dimension");
  const Dims ba(A.begin(), A.end() - 2), bb(B.begin(), B.end() - 2);
  Dims out = c.broadcast(ba, bb);
  if (!pa) out.push_back(A[A.size() - 2]);
  if (!pb) out.push_back(B.back());
  return out;
}

inline void matmul_out(InferContext& c, std::size_t ia, std::size_t ib, DataType elem) {
  const Dims* a = c.input_shape(ia);
  const Dims* b = c.input_shape(ib);
  if (a && a->empty()) c.fail("MatMul input A must have rank >= 1");
  if (b && b->empty()) c.fail("MatMul input B must have rank >= 1");
  if (!a || !b) return c.set_output(0, ValueType::tensor(elem));
  c.set_output(0, elem, matmul_dims(c, *a, *b));
}

inline void rule_matmul(InferContext& c) {
  require_inputs(c, 2, 2);
  matmul_out(c, 0, 1, c.input_elem(0));
}

/// A MatMulInteger zero point: a scalar, or 1-D with one entry per row of A (dim -2) or per
/// column of B (dim -1). A size other than 1 must be that count.
inline void check_matmul_zero_point(InferContext& c, std::size_t zp, std::size_t of, bool rows, std::string_view what) {
  const Dims* z = c.input_shape(zp);
  if (!z) return;
  if (z->size() > 1) {
    // Batched operands may carry per-row zero points of matching rank; leave those alone.
    if (const Dims* m = c.input_shape(of); m && z->size() > m->size())
      c.fail(std::string(what) + " has a larger rank than its operand");
    return;
  }
  if (z->empty()) return;
  const DimExpr d = c.resolve((*z)[0]);
  const Dims* m = c.input_shape(of);
  if (!m || m->size() < 2 || !d.is_const() || d.is(1)) return;
  c.unify(d, rows ? (*m)[m->size() - 2] : m->back(), std::string(what) + " size");
}

inline void rule_matmul_integer(InferContext& c) {
  require_inputs(c, 2, 4);
  if (c.has_input(2)) check_matmul_zero_point(c, 2, 0, true, "a_zero_point");
  if (c.has_input(3)) check_matmul_zero_point(c, 3, 1, false, "b_zero_point");
  matmul_out(c, 0, 1, DataType::INT32);
}

inline void rule_qlinear_matmul(InferContext& c) {
  require_inputs(c, 8, 8);
  matmul_out(c, 0, 3, c.input_elem(7));
}

/// Gemm's output [M, N] from A and B (after transA/transB) and the optional C (input 2),
/// unidirectionally broadcast to it; `legacy`: opset < 7, where C must be [M, N] unless
/// broadcast = 1. Also ONNX Runtime's FusedGemm.
inline void gemm_out(InferContext& c, bool legacy) {
  const bool ta = c.attr_int("transA", 0) != 0, tb = c.attr_int("transB", 0) != 0;
  const Dims* a = c.input_shape(0);
  const Dims* b = c.input_shape(1);
  if (a && a->size() != 2) c.fail("Gemm input A must be 2-D, got rank " + std::to_string(a->size()));
  if (b && b->size() != 2) c.fail("Gemm input B must be 2-D, got rank " + std::to_string(b->size()));
  const DataType elem = c.input_elem(0);
  DimExpr M = a ? (*a)[ta ? 1 : 0] : c.fresh();
  DimExpr N = b ? (*b)[tb ? 0 : 1] : c.fresh();
  if (a && b) c.unify((*a)[ta ? 0 : 1], (*b)[tb ? 1 : 0], "Gemm contraction dimension");
  if (c.has_input(2)) {
    if (const Dims* cs = c.input_shape(2)) {
      if (cs->size() > 2) c.fail("Gemm input C must have rank <= 2, got " + std::to_string(cs->size()));
      const bool exact = legacy && c.attr_int("broadcast", 0) == 0;
      if (exact && cs->size() != 2) c.fail("Gemm input C must be [M,N] when broadcast=0");
      // C is unidirectionally broadcast to [M, N]: each of its dims is 1 or the output's.
      const DimExpr* outd[2] = {&M, &N};
      for (std::size_t k = 0; k < cs->size(); ++k) {
        const DimExpr d = c.resolve((*cs)[k]);
        const DimExpr& o = *outd[2 - cs->size() + k];
        if (exact || (d.is_const() && !d.is(1))) c.unify(d, o, "Gemm input C vs output");
      }
    }
  }
  c.set_output(0, elem, Dims{M, N});
}

inline void rule_gemm(InferContext& c) {
  require_inputs(c, c.opset() >= 11 ? 2 : 3, 3);
  gemm_out(c, c.opset() < 7);
}

// ---- Einsum ----

struct EinsumTerm {
  std::vector<char> labels;       // in order; '.' marks the ellipsis position
  bool has_ellipsis = false;
};

inline EinsumTerm parse_einsum_term(InferContext& c, const std::string& t) {
  EinsumTerm r;
  for (std::size_t k = 0; k < t.size();) {
    const char ch = t[k];
    if (ch == '.') {
      if (t.compare(k, 3, "...") != 0) c.fail("Einsum: malformed ellipsis in '" + t + "'");
      if (r.has_ellipsis) c.fail("Einsum: more than one ellipsis in '" + t + "'");
      r.has_ellipsis = true;
      r.labels.push_back('.');
      k += 3;
    } else if (std::isalpha(static_cast<unsigned char>(ch))) {
      r.labels.push_back(ch);
      ++k;
    } else {
      c.fail(std::string("Einsum: invalid character '") + ch + "' in equation");
    }
  }
  return r;
}

inline void rule_einsum(InferContext& c) {
  if (c.input_count() == 0) c.fail("Einsum expects at least one input");
  for (std::size_t i = 0; i < c.input_count(); ++i)
    if (!c.has_input(i)) c.fail("Einsum input " + std::to_string(i) + " is missing");
  const auto* eqa = c.attr("equation");
  if (!eqa) c.fail("missing required attribute 'equation'");
  std::string eq;
  for (char ch : c.attr_string("equation", ""))
    if (!std::isspace(static_cast<unsigned char>(ch))) eq += ch;
  std::string lhs = eq, rhs;
  bool explicit_out = false;
  if (auto p = eq.find("->"); p != std::string::npos) {
    lhs = eq.substr(0, p);
    rhs = eq.substr(p + 2);
    explicit_out = true;
    if (rhs.find("->") != std::string::npos) c.fail("Einsum: equation has more than one '->'");
  }
  std::vector<EinsumTerm> terms;
  {
    std::size_t start = 0;
    while (true) {
      const auto p = lhs.find(',', start);
      terms.push_back(parse_einsum_term(c, lhs.substr(start, p == std::string::npos ? std::string::npos : p - start)));
      if (p == std::string::npos) break;
      start = p + 1;
    }
  }
  if (terms.size() != c.input_count())
    c.fail("Einsum: equation has " + std::to_string(terms.size()) + " operand(s) but the node has " +
           std::to_string(c.input_count()) + " input(s)");
  const DataType elem = c.input_elem(0);

  std::map<char, DimExpr> label_dim;   // known size of each label
  std::map<char, int> label_count;     // occurrences over all inputs
  std::vector<Dims> ell_shapes;        // ellipsis dims of each input with an ellipsis
  bool ell_rank_unknown = false;
  bool any_ellipsis = false;
  for (std::size_t i = 0; i < terms.size(); ++i) {
    const auto& t = terms[i];
    for (char l : t.labels)
      if (l != '.') ++label_count[l];
    any_ellipsis = any_ellipsis || t.has_ellipsis;
    const Dims* s = c.input_shape(i);
    if (!s) {
      if (t.has_ellipsis) ell_rank_unknown = true;
      continue;
    }
    const std::size_t nlab = t.labels.size() - (t.has_ellipsis ? 1 : 0);
    if (t.has_ellipsis ? s->size() < nlab : s->size() != nlab)
      c.fail("Einsum: operand " + std::to_string(i) + " has rank " + std::to_string(s->size()) + " but its term has " +
             std::to_string(nlab) + " label(s)");
    const std::size_t ell_len = s->size() - nlab;
    std::size_t d = 0;
    std::map<char, DimExpr> local;
    for (char l : t.labels) {
      if (l == '.') {
        ell_shapes.emplace_back(s->begin() + static_cast<std::ptrdiff_t>(d),
                                s->begin() + static_cast<std::ptrdiff_t>(d + ell_len));
        d += ell_len;
        continue;
      }
      const DimExpr dim = c.resolve((*s)[d++]);
      // Within one operand a repeated label (a diagonal) needs equal sizes.
      if (auto lt = local.find(l); lt != local.end()) {
        c.unify(lt->second, dim, std::string("Einsum repeated label '") + l + "'");
        continue;
      }
      local.emplace(l, dim);
      auto it = label_dim.find(l);
      if (it == label_dim.end()) {
        label_dim.emplace(l, dim);
      } else if (!(it->second == dim)) {
        // Across operands a size-1 dim broadcasts against the label's other size (as numpy
        // does); otherwise they are one size.
        if (it->second.is(1))
          it->second = dim;
        else if (!dim.is(1))
          c.unify(it->second, dim, std::string("Einsum label '") + l + "'");
      }
    }
  }
  auto dim_of = [&](char l) -> DimExpr {
    auto it = label_dim.find(l);
    if (it != label_dim.end()) return it->second;
    const DimExpr f = c.fresh();
    label_dim.emplace(l, f);
    return f;
  };
  std::optional<Dims> ell;
  if (!ell_rank_unknown) {
    std::vector<const Dims*> ps;
    for (const auto& e : ell_shapes) ps.push_back(&e);
    ell = ps.empty() ? Dims{} : c.broadcast(std::span<const Dims* const>(ps));
  }

  Dims out;
  if (explicit_out) {
    const EinsumTerm ot = parse_einsum_term(c, rhs);
    std::vector<char> seen;
    for (char l : ot.labels) {
      if (l == '.') {
        if (!ell) return c.set_output(0, ValueType::tensor(elem));
        out.insert(out.end(), ell->begin(), ell->end());
        continue;
      }
      if (std::find(seen.begin(), seen.end(), l) != seen.end())
        c.fail(std::string("Einsum: output label '") + l + "' repeated");
      seen.push_back(l);
      if (!label_count.count(l)) c.fail(std::string("Einsum: output label '") + l + "' does not occur in the inputs");
      out.push_back(dim_of(l));
    }
  } else {
    if (any_ellipsis) {
      if (!ell) return c.set_output(0, ValueType::tensor(elem));
      out = *ell;
    }
    for (const auto& [l, n] : label_count)  // std::map: ASCII (alphabetical) order
      if (n == 1) out.push_back(dim_of(l));
  }
  c.set_output(0, elem, std::move(out));
}

// ---- normalizations ----

inline void rule_batch_norm(InferContext& c) {
  require_inputs(c, 5, 5);
  const DataType elem = c.input_elem(0);
  const Dims* x = c.input_shape(0);
  if (x && x->empty()) c.fail("BatchNormalization input must have rank >= 1");
  const bool spatial = c.opset() >= 9 || c.attr_int("spatial", 1) != 0;
  std::optional<DimExpr> ch;  // C = dim 1 of X (N x C x D1 x ...)
  if (x && x->size() >= 2) ch = (*x)[1];
  if (spatial) {
    if (!ch) {
      // Channels from the first parameter of known shape.
      for (std::size_t i = 1; i < 5 && !ch; ++i)
        if (const Dims* s = c.input_shape(i); s && s->size() == 1) ch = (*s)[0];
    }
    if (ch) {
      static constexpr std::array<std::string_view, 4> names = {"scale", "B", "mean", "var"};
      for (std::size_t i = 1; i < 5; ++i) unify_channel_param(c, i, *ch, names[i - 1]);
    }
  }
  c.set_output(0, like_input(c, 0, elem));
  const DataType stat_elem = c.opset() >= 14 ? c.input_elem(3) : elem;
  const std::size_t nstats = c.opset() >= 14 ? 2 : 4;
  if (c.output_count() > nstats + 1) c.fail("BatchNormalization has too many outputs");
  if (c.opset() >= 14 && c.attr_int("training_mode", 0) == 0) {
    if (c.has_output(1) || c.has_output(2))
      c.warn("running_mean/running_var are produced only when training_mode = 1: they stay unknown");
    return;
  }
  for (std::size_t o = 1; o <= nstats && o < c.output_count(); ++o) {
    if (!c.has_output(o)) continue;
    if (spatial && ch)
      c.set_output(o, stat_elem, Dims{*ch});
    else if (!spatial)
      c.set_output(o, like_input(c, 1, stat_elem));
    else
      c.set_output(o, ValueType::tensor(stat_elem, Dims{c.fresh()}));
  }
}

inline void rule_instance_norm(InferContext& c) {
  require_inputs(c, 3, 3);
  const Dims* x = c.input_shape(0);
  if (x && x->size() < 2) c.fail("InstanceNormalization input must have rank >= 2");
  if (x) {
    unify_channel_param(c, 1, (*x)[1], "scale");
    unify_channel_param(c, 2, (*x)[1], "B");
  } else if (const Dims* s = c.input_shape(1); s && s->size() == 1) {
    unify_channel_param(c, 2, (*s)[0], "B");
  }
  c.set_output(0, like_input(c, 0, c.input_elem(0)));
}

/// Unifies a parameter that has the normalized shape x[axis:] (sizes 1 left alone).
inline void unify_normalized_param(InferContext& c, std::size_t i, const Dims& x, std::int64_t axis,
                                   std::string_view what) {
  const Dims* s = c.input_shape(i);
  if (!s) return;
  const std::size_t tail = x.size() - static_cast<std::size_t>(axis);
  if (s->size() > tail)
    c.fail(std::string(what) + " has rank " + std::to_string(s->size()) + ", more than the normalized rank " +
           std::to_string(tail));
  for (std::size_t k = 0; k < s->size(); ++k) {
    const DimExpr d = c.resolve((*s)[s->size() - 1 - k]);
    if (d.is(1)) continue;
    c.unify(d, x[x.size() - 1 - k], std::string(what) + " vs normalized dims");
  }
}

inline DataType stash_elem(const InferContext& c) {
  const auto st = c.attr_int("stash_type", 1);
  return dtype_from(c, st, "stash_type");
}

inline void rule_layer_norm(InferContext& c) {
  require_inputs(c, 2, 3);
  const DataType elem = c.input_elem(0);
  const DataType u = stash_elem(c);
  const auto axis_attr = c.attr_int("axis", -1);
  const Dims* x = c.input_shape(0);
  c.set_output(0, like_input(c, 0, elem));
  if (!x) {
    for (std::size_t o = 1; o < 3; ++o) c.set_output(o, ValueType::tensor(u));
    return;
  }
  const auto r = static_cast<std::int64_t>(x->size());
  const auto axis = c.normalize_axis(axis_attr, r);
  unify_normalized_param(c, 1, *x, axis, "Scale");
  if (c.has_input(2)) unify_normalized_param(c, 2, *x, axis, "B");
  Dims stat(x->begin(), x->begin() + axis);
  stat.resize(x->size(), DimExpr(1));
  c.set_output(1, u, stat);
  c.set_output(2, u, stat);
}

inline void rule_rms_norm(InferContext& c) {
  require_inputs(c, 2, 2);
  (void)stash_elem(c);
  const auto axis_attr = c.attr_int("axis", -1);
  const Dims* x = c.input_shape(0);
  if (x) {
    const auto axis = c.normalize_axis(axis_attr, static_cast<std::int64_t>(x->size()));
    // Scale broadcasts to the normalized shape: check the rank only.
    if (const Dims* s = c.input_shape(1); s && s->size() > x->size() - static_cast<std::size_t>(axis))
      c.fail("RMSNormalization scale has a rank larger than the normalized rank");
  }
  c.set_output(0, like_input(c, 0, c.input_elem(0)));
}

inline void rule_group_norm(InferContext& c) {
  require_inputs(c, 3, 3);
  const auto groups = c.require_int("num_groups");
  if (groups <= 0) c.fail("num_groups must be positive");
  const Dims* x = c.input_shape(0);
  if (x && x->size() < 2) c.fail("GroupNormalization input must have rank >= 2");
  if (x) {
    const DimExpr ch = c.resolve((*x)[1]);
    if (auto v = ch.const_value(); v && *v % groups != 0)
      c.fail("channels " + std::to_string(*v) + " are not divisible by num_groups " + std::to_string(groups));
  }
  if (c.opset() >= 21) {
    if (x) {
      unify_channel_param(c, 1, (*x)[1], "scale");
      unify_channel_param(c, 2, (*x)[1], "bias");
    }
  } else {
    unify_channel_param(c, 1, DimExpr(groups), "scale");
    unify_channel_param(c, 2, DimExpr(groups), "bias");
  }
  c.set_output(0, like_input(c, 0, c.input_elem(0)));
}

inline void rule_lp_norm(InferContext& c) {
  require_inputs(c, 1, 1);
  const auto p = c.attr_int("p", 2);
  if (p != 1 && p != 2) c.fail("LpNormalization p must be 1 or 2");
  const auto axis = c.attr_int("axis", -1);
  if (auto r = c.input_rank(0)) {
    if (*r == 0) c.fail("LpNormalization input must have rank >= 1");
    (void)c.normalize_axis(axis, *r);
  }
  c.set_output(0, like_input(c, 0, c.input_elem(0)));
}

inline void rule_lrn(InferContext& c) {
  require_inputs(c, 1, 1);
  if (c.require_int("size") <= 0) c.fail("LRN size must be positive");
  c.set_output(0, like_input(c, 0, c.input_elem(0)));
}

inline void rule_mvn(InferContext& c) {
  require_inputs(c, 1, 1);
  // Before opset 9 the experimental MeanVarianceNormalization-1: across_channels and
  // normalize_variance instead of axes, any rank.
  if (c.opset() < 9) {
    c.set_output(0, like_input(c, 0, c.input_elem(0)));
    return;
  }
  const auto axes = c.attr_ints("axes").value_or(std::vector<std::int64_t>{0, 2, 3});
  if (auto r = c.input_rank(0))
    for (auto a : axes) (void)c.normalize_axis(a, *r, "axes entry");
  c.set_output(0, like_input(c, 0, c.input_elem(0)));
}

inline void rule_dropout(InferContext& c) {
  require_inputs(c, 1, c.opset() >= 12 ? 3 : 1);
  if (c.opset() >= 12) {
    if (const Dims* r = c.input_shape(1); r && !r->empty()) c.fail("Dropout ratio must be a scalar");
    if (const Dims* t = c.input_shape(2); t && !t->empty()) c.fail("Dropout training_mode must be a scalar");
  }
  const DataType elem = c.input_elem(0);
  c.set_output(0, like_input(c, 0, elem));
  c.set_output(1, like_input(c, 0, c.opset() >= 10 ? DataType::BOOL : elem));
}

// ---- quantization ----

/// Checks a quantization scale/zero-point shape against x: scalar (per tensor), 1-D (per axis),
/// or x's rank (blocked).
inline void check_quant_param(InferContext& c, std::size_t i, const Dims* x, std::int64_t axis_attr,
                              std::int64_t block_size, std::string_view what) {
  const Dims* s = c.input_shape(i);
  if (!s || !x) return;
  const auto r = static_cast<std::int64_t>(x->size());
  if (s->empty()) {
    if (block_size > 0) c.fail(std::string(what) + " must have the input's rank for blocked quantization");
    return;
  }
  if (block_size > 0) {
    if (s->size() != x->size()) c.fail(std::string(what) + " must have the input's rank for blocked quantization");
    const auto axis = c.normalize_axis(axis_attr, r);
    for (std::size_t k = 0; k < x->size(); ++k) {
      const DimExpr want = static_cast<std::int64_t>(k) == axis ? ceil_div((*x)[k], DimExpr(block_size)) : (*x)[k];
      c.unify((*s)[k], want, std::string(what) + " vs blocked input dims");
    }
    return;
  }
  if (s->size() != 1) c.fail(std::string(what) + " must be a scalar or 1-D");
  if (c.opset() < 13) return;  // older versions: per-tensor only (a 1-element 1-D tensor)
  const DimExpr d = c.resolve((*s)[0]);
  if (d.is_const() && !d.is(1)) {
    const auto axis = c.normalize_axis(axis_attr, r);
    c.unify(d, (*x)[static_cast<std::size_t>(axis)], std::string(what) + " size vs input axis");
  }
}

inline void rule_quantize_linear(InferContext& c) {
  require_inputs(c, 2, 3);
  const auto axis = c.attr_int("axis", 1);
  const auto block = c.opset() >= 21 ? c.attr_int("block_size", 0) : 0;
  if (block < 0) c.fail("block_size must be >= 0");
  const Dims* x = c.input_shape(0);
  check_quant_param(c, 1, x, axis, block, "y_scale");
  if (c.has_input(2)) check_quant_param(c, 2, x, axis, block, "y_zero_point");
  DataType out = DataType::UINT8;
  const auto od = c.opset() >= 21 ? c.attr_int("output_dtype", 0) : 0;
  if (od != 0) out = dtype_from(c, od, "output_dtype");
  if (c.has_input(2)) {
    const DataType zp = c.input_elem(2);
    if (od != 0 && zp != DataType::UNDEFINED && zp != out)
      c.fail("output_dtype does not match the type of y_zero_point");
    if (od == 0) out = zp;
  }
  c.set_output(0, like_input(c, 0, out));
}

inline void rule_dequantize_linear(InferContext& c) {
  require_inputs(c, 2, 3);
  const auto axis = c.attr_int("axis", 1);
  const auto block = c.opset() >= 21 ? c.attr_int("block_size", 0) : 0;
  if (block < 0) c.fail("block_size must be >= 0");
  const Dims* x = c.input_shape(0);
  check_quant_param(c, 1, x, axis, block, "x_scale");
  if (c.has_input(2)) check_quant_param(c, 2, x, axis, block, "x_zero_point");
  DataType out = DataType::FLOAT;
  if (c.opset() >= 19) out = c.input_elem(1);
  if (c.opset() >= 23)
    if (const auto od = c.attr_int("output_dtype", 0); od != 0) out = dtype_from(c, od, "output_dtype");
  c.set_output(0, like_input(c, 0, out));
}

inline void rule_dynamic_quantize_linear(InferContext& c) {
  require_inputs(c, 1, 1);
  c.set_output(0, like_input(c, 0, DataType::UINT8));
  c.set_output(1, DataType::FLOAT, Dims{});
  c.set_output(2, DataType::UINT8, Dims{});
}

inline void rule_det(InferContext& c) {
  require_inputs(c, 1, 1);
  const DataType elem = c.input_elem(0);
  const Dims* x = c.input_shape(0);
  if (!x) return c.set_output(0, ValueType::tensor(elem));
  if (x->size() < 2) c.fail("Det input must have rank >= 2");
  c.unify((*x)[x->size() - 2], (*x)[x->size() - 1], "Det square matrix dims");
  c.set_output(0, elem, Dims(x->begin(), x->end() - 2));
}

// ---- random ----

inline std::optional<DataType> dtype_attr(const InferContext& c) {
  if (!c.has_attr("dtype")) return std::nullopt;
  return dtype_from(c, c.attr_int("dtype", 0), "dtype");
}

inline void rule_random(InferContext& c) {
  if (c.input_count() != 0) c.fail("expects no inputs");
  const auto shape = c.attr_ints("shape");
  if (!shape) c.fail("missing required attribute 'shape'");
  Dims d;
  for (auto v : *shape) {
    if (v < 0) c.fail("shape entries must be >= 0");
    d.emplace_back(v);
  }
  const DataType t = dtype_attr(c).value_or(DataType::FLOAT);
  if (!is_floating(t)) c.fail("dtype must be a floating-point type");
  c.set_output(0, t, std::move(d));
}

inline void rule_random_like(InferContext& c) {
  require_inputs(c, 1, 1);
  const DataType t = dtype_attr(c).value_or(c.input_elem(0));
  if (t != DataType::UNDEFINED && !is_floating(t)) c.fail("the output type must be a floating-point type");
  c.set_output(0, like_input(c, 0, t));
}

inline void rule_multinomial(InferContext& c) {
  require_inputs(c, 1, 1);
  const DataType t = dtype_from(c, c.attr_int("dtype", 6), "dtype");
  if (t != DataType::INT32 && t != DataType::INT64) c.fail("Multinomial dtype must be INT32 or INT64");
  const auto n = c.attr_int("sample_size", 1);
  if (n < 0) c.fail("sample_size must be >= 0");
  const Dims* x = c.input_shape(0);
  if (x && x->size() != 2) c.fail("Multinomial input must be 2-D [batch_size, class_size]");
  c.set_output(0, t, Dims{x ? (*x)[0] : c.fresh(), DimExpr(n)});
}

// ---- text / misc ----

inline void rule_tfidf(InferContext& c) {
  require_inputs(c, 1, 1);
  const auto idx = c.attr_ints("ngram_indexes");
  if (!idx || idx->empty()) c.fail("missing required attribute 'ngram_indexes'");
  std::int64_t mx = -1;
  for (auto v : *idx) {
    if (v < 0) c.fail("ngram_indexes entries must be >= 0");
    mx = std::max(mx, v);
  }
  const DimExpr width = DimExpr(mx) + DimExpr(1);
  const Dims* x = c.input_shape(0);
  if (!x) return c.set_output(0, ValueType::tensor(DataType::FLOAT));
  if (x->size() == 1) return c.set_output(0, DataType::FLOAT, Dims{width});
  if (x->size() == 2) return c.set_output(0, DataType::FLOAT, Dims{(*x)[0], width});
  c.fail("TfIdfVectorizer input must be 1-D or 2-D");
}

inline void rule_string_normalizer(InferContext& c) {
  require_inputs(c, 1, 1);
  const auto action = c.attr_string("case_change_action", "NONE");
  if (action != "NONE" && action != "LOWER" && action != "UPPER")
    c.fail("case_change_action must be NONE, LOWER or UPPER");
  const Dims* x = c.input_shape(0);
  if (!x) return c.set_output(0, ValueType::tensor(DataType::STRING));
  if (x->size() != 1 && x->size() != 2) c.fail("StringNormalizer input must be [C] or [1,C]");
  if (x->size() == 2) c.unify((*x)[0], DimExpr(1), "StringNormalizer input dim 0");
  bool filters = false;
  if (auto a = c.attr("stopwords"); a && a->kind() == AttributeType::STRINGS) filters = !a->as_strings().empty();
  Dims out = *x;
  // Stop words may be removed; when every element is dropped (an empty input too) the output
  // holds one empty string.
  if (filters || c.resolve(out.back()).is(0)) out.back() = c.fresh();
  c.set_output(0, DataType::STRING, std::move(out));
}

inline void rule_string_concat(InferContext& c) {
  require_inputs(c, 2, 2);
  const Dims* a = c.input_shape(0);
  const Dims* b = c.input_shape(1);
  if (!a || !b) return c.set_output(0, ValueType::tensor(DataType::STRING));
  c.set_output(0, DataType::STRING, c.broadcast(*a, *b));
}

inline void rule_regex_full_match(InferContext& c) {
  require_inputs(c, 1, 1);
  c.set_output(0, like_input(c, 0, DataType::BOOL));
}

inline void rule_string_split(InferContext& c) {
  require_inputs(c, 1, 1);
  const auto maxsplit = c.attr_int("maxsplit", 0);
  (void)maxsplit;
  const Dims* x = c.input_shape(0);
  if (!x) {
    c.set_output(0, ValueType::tensor(DataType::STRING));
    c.set_output(1, ValueType::tensor(DataType::INT64));
    return;
  }
  Dims y = *x;
  y.push_back(c.fresh());  // the largest number of substrings
  c.set_output(0, DataType::STRING, std::move(y));
  c.set_output(1, DataType::INT64, *x);
}

inline void rule_image_decoder(InferContext& c) {
  require_inputs(c, 1, 1);
  const auto fmt = c.attr_string("pixel_format", "RGB");
  std::int64_t ch = 0;
  if (fmt == "RGB" || fmt == "BGR")
    ch = 3;
  else if (fmt == "Grayscale")
    ch = 1;
  else
    c.fail("pixel_format must be RGB, BGR or Grayscale, got '" + fmt + "'");
  if (auto r = c.input_rank(0); r && *r != 1) c.fail("ImageDecoder input must be 1-D");
  c.set_output(0, DataType::UINT8, Dims{c.fresh(), c.fresh(), DimExpr(ch)});
}

inline void rule_bernoulli(InferContext& c) {
  require_inputs(c, 1, 1);
  c.set_output(0, like_input(c, 0, dtype_attr(c).value_or(c.input_elem(0))));
}

}  // namespace linalg_detail

inline void register_linalg_ops(OpRegistry& r) {
  using namespace linalg_detail;
  r.add("", "MatMul", &rule_matmul);
  r.add("", "MatMulInteger", &rule_matmul_integer);
  r.add("", "QLinearMatMul", &rule_qlinear_matmul);
  r.add("", "Gemm", &rule_gemm);
  r.add("", "Einsum", &rule_einsum);
  r.add("", "BatchNormalization", &rule_batch_norm);
  r.add("", "InstanceNormalization", &rule_instance_norm);
  r.add("", "LayerNormalization", &rule_layer_norm);
  r.add("", "GroupNormalization", &rule_group_norm);
  r.add("", "RMSNormalization", &rule_rms_norm);
  r.add("", "LpNormalization", &rule_lp_norm);
  r.add("", "LRN", &rule_lrn);
  r.add("", "MeanVarianceNormalization", &rule_mvn);
  r.add("", "Dropout", &rule_dropout);
  r.add("", "QuantizeLinear", &rule_quantize_linear);
  r.add("", "DequantizeLinear", &rule_dequantize_linear);
  r.add("", "DynamicQuantizeLinear", &rule_dynamic_quantize_linear);
  r.add("", "Det", &rule_det);
  r.add("", "TfIdfVectorizer", &rule_tfidf);
  r.add("", "Bernoulli", &rule_bernoulli);
  r.add("", "RandomNormal", &rule_random);
  r.add("", "RandomUniform", &rule_random);
  r.add("", "RandomNormalLike", &rule_random_like);
  r.add("", "RandomUniformLike", &rule_random_like);
  r.add("", "Multinomial", &rule_multinomial);
  r.add("", "StringNormalizer", &rule_string_normalizer);
  r.add("", "StringConcat", &rule_string_concat);
  r.add("", "RegexFullMatch", &rule_regex_full_match);
  r.add("", "StringSplit", &rule_string_split);
  r.add("", "ImageDecoder", &rule_image_decoder);
}

}  // namespace oxir::infer::ops
