#pragma once
// Inference rules: newer operators (see docs/inference.md).
//
// Operators added after opset 23 that no other family covers:
//   TensorScatter-24: KV-cache update; present_cache has past_cache's shape; update differs from
//     past_cache only on the sequence axis (`axis`, default -2, never the batch axis 0);
//     write_indices (optional, int64) is [batch_size].
//   BitCast-26: reinterprets the bits as element type `to` (same bit width); same shape.
//   CumProd-26: cumulative product along the axis given by a 0-D input; same type and shape.
// The other operators of opsets 18–25 are handled (version by version) by their families' rules;
// tests/unit/test_infer_newer.cpp checks them at the newer versions. This family is registered
// last, so a rule here may replace another family's rule for newer versions by delegating older
// versions to the rule found with r.find(domain, op): RotaryEmbedding gains the checks of its
// caches and position ids; operators introduced in opsets 18–24 and attribute values introduced
// by newer versions are rejected under older opset imports (version gates); then the original
// rule runs.

#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <utility>

#include "../engine.hpp"
#include "common.hpp"

namespace oxir::infer::ops {

namespace newer_detail {

/// require_inputs, and every given input of known type is a tensor.
inline void require_tensor_inputs(InferContext& c, std::size_t min, std::size_t max) {
  ops::require_inputs(c, min, max);
  for (std::size_t i = 0; i < c.input_count(); ++i) {
    const auto& t = c.input_type(i);
    if (c.has_input(i) && !t.is_unknown() && !t.is_tensor()) c.fail("input " + std::to_string(i) + " must be a tensor");
  }
}

/// The input's type with the same shape (or unknown rank), element type `elem`.
inline ValueType same_shape(InferContext& c, std::size_t i, DataType elem) {
  if (const Dims* s = c.input_shape(i)) return ValueType::tensor(elem, *s);
  return ValueType::tensor(elem);
}

// ---- TensorScatter (24) ------------------------------------------------------------------------

inline void tensor_scatter_rule(InferContext& c) {
  require_opset(c, 24, "TensorScatter");
  require_tensor_inputs(c, 2, 3);
  const std::string mode = c.attr_string("mode", "linear");
  if (mode != "linear" && mode != "circular") c.fail("mode must be 'linear' or 'circular', got '" + mode + "'");

  const DataType elem = c.input_elem(0), uelem = c.input_elem(1);
  if (elem != DataType::UNDEFINED && uelem != DataType::UNDEFINED && elem != uelem)
    c.fail("past_cache and update must share one element type (" + std::string(data_type_name(elem)) + " vs " +
           std::string(data_type_name(uelem)) + ")");
  const DataType out_elem = elem != DataType::UNDEFINED ? elem : uelem;
  const bool has_wi = c.has_input(2);
  if (has_wi) {
    const DataType ie = c.input_elem(2);
    if (ie != DataType::UNDEFINED && ie != DataType::INT64) c.fail("write_indices must be int64");
  }

  const Dims* past = c.input_shape(0);
  const Dims* upd = c.input_shape(1);
  if (past && upd && past->size() != upd->size())
    c.fail("past_cache (rank " + std::to_string(past->size()) + ") and update (rank " + std::to_string(upd->size()) +
           ") must have the same rank");
  const Dims* any = past ? past : upd;
  std::optional<std::size_t> axis;
  if (any) {
    const auto rank = static_cast<std::int64_t>(any->size());
    if (rank < 2) c.fail("past_cache must have rank >= 2 (batch and sequence axes), got " + std::to_string(rank));
    axis = static_cast<std::size_t>(c.normalize_axis(c.attr_int("axis", -2), rank));
    if (*axis == 0) c.fail("axis must not be the batch axis 0");
  }
  if (past && upd) {
    for (std::size_t i = 0; i < past->size(); ++i) {
      if (i == *axis) continue;
      c.unify((*past)[i], (*upd)[i], "non-sequence dims of past_cache and update");
    }
    // sequence_length <= max_sequence_length
    const auto ms = c.resolve((*past)[*axis]).const_value(), sl = c.resolve((*upd)[*axis]).const_value();
    if (ms && sl && *sl > *ms)
      c.fail("update's sequence length " + std::to_string(*sl) + " exceeds max_sequence_length " + std::to_string(*ms));
  }
  if (has_wi) {
    if (const Dims* w = c.input_shape(2)) {
      if (w->size() != 1) c.fail("write_indices must have rank 1 ([batch_size]), got rank " + std::to_string(w->size()));
      if (any) c.unify((*w)[0], (*any)[0], "write_indices length and batch size");
    }
  }

  if (past) {
    Dims out;
    for (const auto& d : *past) out.push_back(c.resolve(d));
    c.set_output(0, out_elem, std::move(out));
  } else if (upd) {
    Dims out;
    for (std::size_t i = 0; i < upd->size(); ++i) out.push_back(i == *axis ? c.fresh() : c.resolve((*upd)[i]));
    c.set_output(0, out_elem, std::move(out));
  } else {
    c.set_output(0, ValueType::tensor(out_elem));
  }
}

// ---- BitCast (26) ------------------------------------------------------------------------------

inline void bitcast_rule(InferContext& c) {
  require_opset(c, 26, "BitCast");
  require_tensor_inputs(c, 1, 1);
  const std::int64_t v = c.require_int("to");
  if (v <= 0 || v > 1000 || !is_known(static_cast<DataType>(v)))
    c.fail("attribute 'to' is not a valid element type: " + std::to_string(v));
  const auto to = static_cast<DataType>(v);
  if (to == DataType::STRING) c.fail("BitCast cannot produce strings");
  const DataType from = c.input_elem(0);
  if (from == DataType::STRING) c.fail("BitCast cannot reinterpret strings");
  if (from != DataType::UNDEFINED && bit_width(from) != bit_width(to))
    c.fail("BitCast needs equal bit widths: " + std::string(data_type_name(from)) + " has " +
           std::to_string(bit_width(from)) + " bits, " + std::string(data_type_name(to)) + " has " +
           std::to_string(bit_width(to)));
  c.set_output(0, same_shape(c, 0, to));
}

// ---- CumProd (26) ------------------------------------------------------------------------------

inline void cumprod_rule(InferContext& c) {
  require_opset(c, 26, "CumProd");
  require_tensor_inputs(c, 2, 2);
  const DataType ae = c.input_elem(1);
  if (ae != DataType::UNDEFINED && ae != DataType::INT32 && ae != DataType::INT64) c.fail("axis must be int32 or int64");
  if (const auto ar = c.input_rank(1); ar && *ar != 0) c.fail("axis must be a 0-D tensor, got rank " + std::to_string(*ar));
  const DataType xe = c.input_elem(0);
  if (xe == DataType::STRING || xe == DataType::BOOL) c.fail("CumProd needs numeric input");
  if (const auto r = c.input_rank(0)) {
    if (const auto a = c.input_ints(1); a && a->size() == 1) (void)c.normalize_axis((*a)[0], *r);
  }
  c.set_output(0, same_shape(c, 0, xe));
}

// ---- RotaryEmbedding (23): refinement ----------------------------------------------------------
//
// X is [B, num_heads, S, head_size] (4-D) or [B, S, hidden] (3-D, hidden = num_heads * head_size
// with attribute num_heads). With position_ids [B, S], cos_cache and sin_cache are
// [max_position_id + 1, rotary_dim / 2]; without, they are [B, S, rotary_dim / 2]. rotary_dim is
// rotary_embedding_dim, or head_size when that is 0. The output has X's type: the original rule
// (spatial family) sets it after these checks.

inline Rule& rotary_base() {
  static Rule base = nullptr;
  return base;
}

inline void rotary_embedding_rule(InferContext& c) {
  require_opset(c, 23, "RotaryEmbedding");
  if (c.input_count() >= 3 && c.input_count() <= 4 && c.has_input(0) && c.has_input(1) && c.has_input(2)) {
    const Dims* x = c.input_shape(0);
    const std::int64_t heads = c.attr_int("num_heads", 0);
    const std::int64_t rd = c.attr_int("rotary_embedding_dim", 0);
    if (heads < 0) c.fail("num_heads must be positive");
    if (rd < 0) c.fail("rotary_embedding_dim must be >= 0");
    if (rd % 2 != 0) c.fail("rotary_embedding_dim must be even");
    std::optional<DimExpr> B, S, head;
    if (x && (x->size() == 3 || x->size() == 4)) {
      B = (*x)[0];
      if (x->size() == 4) {
        S = (*x)[2];
        head = c.resolve((*x)[3]);
        if (heads > 0) c.unify((*x)[1], DimExpr(heads), "num_heads vs X's head dim");
      } else {
        S = (*x)[1];
        // The head size of a 3-D X follows from num_heads (without it, it is left undetermined).
        const DimExpr hidden = c.resolve((*x)[2]);
        if (heads > 0) {
          if (auto h = exact_div(hidden, DimExpr(heads)))
            head = *h;
          else if (hidden.is_const())
            c.fail("hidden size " + std::to_string(*hidden.const_value()) + " is not a multiple of num_heads " +
                   std::to_string(heads));
        }
      }
      if (head) {
        if (auto hv = head->const_value(); hv && *hv % 2 != 0) c.fail("head_size must be even");
        if (auto hv = head->const_value(); hv && rd > *hv) c.fail("rotary_embedding_dim exceeds head_size");
      }
    }
    std::optional<DimExpr> half;
    if (rd > 0)
      half = DimExpr(rd / 2);
    else if (head)
      if (auto h = exact_div(*head, DimExpr(2))) half = *h;
    const bool has_pos = c.has_input(3);
    const std::size_t cache_rank = has_pos ? 2 : 3;
    const Dims* cs = c.input_shape(1);
    const Dims* ss = c.input_shape(2);
    for (const Dims* d : {cs, ss}) {
      if (!d) continue;
      if (d->size() != cache_rank)
        c.fail(std::string("cos_cache/sin_cache must have rank ") + std::to_string(cache_rank) +
               (has_pos ? " with position_ids" : " without position_ids") + ", got " + std::to_string(d->size()));
      if (half) c.unify(d->back(), *half, "cache last dim vs rotary_dim / 2");
      if (!has_pos) {
        if (B) c.unify((*d)[0], *B, "cache batch vs X batch");
        if (S) c.unify((*d)[1], *S, "cache sequence vs X sequence");
      }
    }
    if (cs && ss && cs->size() == ss->size())
      for (std::size_t i = 0; i < cs->size(); ++i) c.unify((*cs)[i], (*ss)[i], "cos_cache vs sin_cache");
    if (has_pos) {
      const DataType pe = c.input_elem(3);
      if (pe != DataType::UNDEFINED && pe != DataType::INT64) c.fail("position_ids must be int64");
      if (const Dims* p = c.input_shape(3)) {
        if (p->size() != 2) c.fail("position_ids must be [batch_size, sequence_length]");
        if (B) c.unify((*p)[0], *B, "position_ids batch vs X batch");
        if (S) c.unify((*p)[1], *S, "position_ids sequence vs X sequence");
      }
    }
  }
  if (Rule base = rotary_base()) return base(c);
  // No other rule: the output has X's type.
  if (const Dims* x = c.input_shape(0)) {
    Dims out;
    for (const auto& d : *x) out.push_back(c.resolve(d));
    c.set_output(0, c.input_elem(0), std::move(out));
  } else {
    c.set_output(0, ValueType::tensor(c.input_elem(0)));
  }
}

// ---- version gates ------------------------------------------------------------------------------
//
// Operators introduced in opsets 18–24 whose rules (other families) accept any opset, and
// attribute values that newer versions introduced: a node that uses them under an older opset
// import is malformed. The gate checks, then runs the original rule.

inline void check_pad_mode(InferContext& c) {
  if (c.opset() < 19 && c.attr_string("mode", "constant") == "wrap") c.fail("Pad mode 'wrap' needs opset 19");
}
inline void check_resize_ctm(InferContext& c) {
  if (c.opset() < 19 && c.attr_string("coordinate_transformation_mode", "half_pixel") == "half_pixel_symmetric")
    c.fail("coordinate_transformation_mode 'half_pixel_symmetric' needs opset 19");
}
inline void check_scatter_reduction(InferContext& c) {
  const std::string red = c.attr_string("reduction", "none");
  if (c.opset() < 18 && (red == "max" || red == "min")) c.fail("reduction '" + red + "' needs opset 18");
}

inline void no_check(InferContext&) {}

struct Gate {
  const char* op;
  std::int64_t since;           ///< first opset of the operator (0: any)
  void (*check)(InferContext&);  ///< extra version check (no_check: none)
};
inline constexpr Gate kGates[] = {
    {"CenterCropPad", 18, &no_check},  {"Col2Im", 18, &no_check},          {"GroupNormalization", 18, &no_check},
    {"BitwiseAnd", 18, &no_check},     {"BitwiseOr", 18, &no_check},       {"BitwiseXor", 18, &no_check},
    {"BitwiseNot", 18, &no_check},     {"Mish", 18, &no_check},            {"DeformConv", 19, &no_check},
    {"AffineGrid", 20, &no_check},     {"Gelu", 20, &no_check},            {"ImageDecoder", 20, &no_check},
    {"RegexFullMatch", 20, &no_check}, {"StringConcat", 20, &no_check},    {"StringSplit", 20, &no_check},
    {"Attention", 23, &no_check},      {"RMSNormalization", 23, &no_check}, {"Swish", 24, &no_check},
    {"Pad", 0, &check_pad_mode},     {"Resize", 0, &check_resize_ctm}, {"ScatterElements", 0, &check_scatter_reduction},
    {"ScatterND", 0, &check_scatter_reduction},
};

template <std::size_t I>
Rule& gate_base() {
  static Rule base = nullptr;
  return base;
}

template <std::size_t I>
void gate_rule(InferContext& c) {
  constexpr Gate g = kGates[I];
  if (g.since > 0) require_opset(c, g.since, g.op);
  g.check(c);
  if (Rule base = gate_base<I>()) base(c);
}

template <std::size_t I>
void install_gate(OpRegistry& r) {
  const Rule base = r.find("", kGates[I].op);
  if (!base || base == &gate_rule<I>) return;  // no rule to refine, or installed already
  gate_base<I>() = base;
  r.add("", kGates[I].op, &gate_rule<I>);
}

template <std::size_t... I>
void install_gates(OpRegistry& r, std::index_sequence<I...>) {
  (install_gate<I>(r), ...);
}

}  // namespace newer_detail

inline void register_newer_ops(OpRegistry& r) {
  r.add("", "TensorScatter", &newer_detail::tensor_scatter_rule);
  r.add("", "BitCast", &newer_detail::bitcast_rule);
  r.add("", "CumProd", &newer_detail::cumprod_rule);
  // Refinement: shape checks of RotaryEmbedding's caches and position ids, then the original rule.
  if (Rule base = r.find("", "RotaryEmbedding"); base != &newer_detail::rotary_embedding_rule) {
    newer_detail::rotary_base() = base;
    r.add("", "RotaryEmbedding", &newer_detail::rotary_embedding_rule);
  }
  newer_detail::install_gates(r, std::make_index_sequence<std::size(newer_detail::kGates)>{});
}

}  // namespace oxir::infer::ops
