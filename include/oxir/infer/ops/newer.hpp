#pragma once
// Inference rules: newer operators (see docs/inference.md).
//
// Operators added after opset 23 that no other family covers:
//   TensorScatter-24: KV-cache update; present_cache has past_cache's shape; update differs from
//     past_cache only on the sequence axis (`axis`, default -2, never the batch axis 0);
//     write_indices (optional, int64) is [batch_size].
//   BitCast-26: reinterprets the bits as element type `to` (same bit width); same shape.
//   CumProd-26: cumulative product along the axis given by a 0-D input; same type and shape.
//   LinearAttention-27 and CausalConvWithState-27 (and ONNX Runtime's com.microsoft forms of
//     both): recurrent-state operators of hybrid linear-attention models (see their rules).
// The other operators of opsets 18–25 are handled (version by version) by their families' rules;
// tests/unit/test_infer_newer.cpp checks them at the newer versions. This family is registered
// last, so a rule here may replace another family's rule for newer versions by delegating older
// versions to the rule found with r.find(domain, op): RotaryEmbedding gains the checks of its
// caches and position ids; operators introduced in opsets 18–24 and attribute values introduced
// by newer versions are rejected under older opset imports (version gates); then the original
// rule runs.

#include <algorithm>
#include <cstdint>
#include <initializer_list>
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

// ---- LinearAttention (27; com.microsoft) ------------------------------------------------------
//
// query [B, T, Hq*dk], key [B, T, Hkv*dk], value [B, T, Hkv*dv] (3-D, heads packed into the last
// axis; Hq = q_num_heads, Hkv = kv_num_heads, both required), optional past_state
// [B, Hkv, dk, dv], decay [B, T, Hkv] or [B, T, Hkv*dk] (update rules 'gated', 'gated_delta'),
// beta [B, T, Hkv] or [B, T, 1] ('delta', 'gated_delta'). Outputs: output [B, T, Hq*dv] in the
// query's type, present_state [B, Hkv, dk, dv] in past_state's type (the query's without one).
// ONNX's version needs Hq a multiple of Hkv, and a key of Hkv heads. ONNX Runtime's contrib
// version also takes fewer key heads (a divisor of Hkv, so the key's last axis says nothing about
// dk) and Hq < Hkv (then the output has Hkv*dv); with state_window > 0 its states carry one
// more leading axis, left unknown here.

template <bool Contrib>
void linear_attention_rule(InferContext& c) {
  if constexpr (!Contrib) require_opset(c, 27, "LinearAttention");
  require_tensor_inputs(c, 3, 6);
  if (c.output_count() != 2) c.fail("LinearAttention has 2 outputs (output, present_state), got " + std::to_string(c.output_count()));
  const std::int64_t hq = c.require_int("q_num_heads"), hkv = c.require_int("kv_num_heads");
  if (hq <= 0 || hkv <= 0) c.fail("q_num_heads and kv_num_heads must be positive");
  if (Contrib ? (hq % hkv != 0 && hkv % hq != 0) : hq % hkv != 0)
    c.fail("q_num_heads (" + std::to_string(hq) + ") must be a multiple of kv_num_heads (" + std::to_string(hkv) + ")" +
           (Contrib ? " or divide it" : ""));
  const std::string rule = c.attr_string("update_rule", "gated_delta");
  if (rule != "linear" && rule != "gated" && rule != "delta" && rule != "gated_delta")
    c.fail("update_rule must be 'linear', 'gated', 'delta' or 'gated_delta', got '" + rule + "'");
  const bool gated = rule == "gated" || rule == "gated_delta", delta = rule == "delta" || rule == "gated_delta";
  const bool has_decay = c.has_input(4), has_beta = c.has_input(5);
  if (gated && !has_decay) c.fail("update_rule '" + rule + "' needs the decay input");
  if (delta && !has_beta) c.fail("update_rule '" + rule + "' needs the beta input");
  if constexpr (!Contrib) {
    if (!gated && has_decay) c.fail("update_rule '" + rule + "' takes no decay input");
    if (!delta && has_beta) c.fail("update_rule '" + rule + "' takes no beta input");
  }
  const std::int64_t window = Contrib ? c.attr_int("state_window", 0) : 0;
  if (window < 0) c.fail("state_window must be >= 0");

  // Types: T for query, key, value, decay and beta; S for the states (the type table checks both
  // forms: LinearAttention-27 and ONNX Runtime's com.microsoft schema).
  const DataType t = c.input_elem(0);
  const DataType s = c.has_input(3) ? c.input_elem(3) : t;

  const Dims* q = c.input_shape(0);
  const Dims* k = c.input_shape(1);
  const Dims* v = c.input_shape(2);
  for (std::size_t i : {0u, 1u, 2u, 4u, 5u})
    if (c.has_input(i))
      if (const Dims* d = c.input_shape(i); d && d->size() != 3)
        c.fail("input " + std::to_string(i) + " must be 3-D [batch, sequence, packed heads], got rank " +
               std::to_string(d->size()));
  DimExpr B = q ? (*q)[0] : k ? (*k)[0] : v ? (*v)[0] : c.fresh();
  DimExpr T = q ? (*q)[1] : k ? (*k)[1] : v ? (*v)[1] : c.fresh();
  for (const Dims* d : {q, k, v})
    if (d) {
      c.unify((*d)[0], B, "batch size of query, key and value");
      c.unify((*d)[1], T, "sequence length of query, key and value");
    }
  B = c.resolve(B);
  T = c.resolve(T);
  DimExpr dk = q ? div_exact_or_fresh(c, (*q)[2], hq, "query last dim") : c.fresh();
  if constexpr (!Contrib) {
    if (k) {
      const DimExpr kdk = div_exact_or_fresh(c, (*k)[2], hkv, "key last dim");
      if (q) c.unify(kdk, dk, "key head size vs query head size");
      else dk = kdk;
    }
  }
  dk = c.resolve(dk);
  const DimExpr dv = v ? c.resolve(div_exact_or_fresh(c, (*v)[2], hkv, "value last dim")) : c.fresh();
  const DimExpr HKV(hkv);
  if (gated && has_decay)
    if (const Dims* d = c.input_shape(4)) {
      c.unify((*d)[0], B, "decay batch size");
      c.unify((*d)[1], T, "decay sequence length");
      const auto last = c.resolve((*d)[2]).const_value(), dkv = dk.const_value();
      // last == hkv * dk, tested without the product (hostile head counts would overflow it)
      if (last && dkv && *last != hkv && !(*last % hkv == 0 && *last / hkv == *dkv))
        c.fail("decay last dim " + std::to_string(*last) + " must be kv_num_heads (" + std::to_string(hkv) +
               ") or kv_num_heads * d_k (d_k = " + std::to_string(*dkv) + ")");
    }
  if (delta && has_beta)
    if (const Dims* d = c.input_shape(5)) {
      c.unify((*d)[0], B, "beta batch size");
      c.unify((*d)[1], T, "beta sequence length");
      if (const auto last = c.resolve((*d)[2]).const_value(); last && *last != 1 && *last != hkv)
        c.fail("beta last dim " + std::to_string(*last) + " must be 1 or kv_num_heads (" + std::to_string(hkv) + ")");
    }
  const bool state_known = window == 0;
  if (state_known && c.has_input(3))
    if (const Dims* p = c.input_shape(3)) {
      if (p->size() != 4) c.fail("past_state must be 4-D [batch, kv_num_heads, d_k, d_v], got rank " + std::to_string(p->size()));
      c.unify((*p)[0], B, "past_state batch size");
      c.unify((*p)[1], HKV, "past_state heads vs kv_num_heads");
      c.unify((*p)[2], dk, "past_state d_k");
      c.unify((*p)[3], dv, "past_state d_v");
    }
  const std::int64_t out_heads = Contrib ? std::max(hq, hkv) : hq;
  c.set_output(0, t, Dims{c.resolve(B), c.resolve(T), c.resolve(DimExpr(out_heads) * dv)});
  if (state_known)
    c.set_output(1, s, Dims{c.resolve(B), HKV, c.resolve(dk), c.resolve(dv)});
  else
    c.set_output(1, ValueType::tensor(s));
}

// ---- CausalConvWithState (27; com.microsoft) --------------------------------------------------
//
// input [B, C, L], weight [C, 1, K] (depthwise), optional bias [C] and past_state [B, C, K-1].
// Outputs: output with the input's shape, present_state [B, C, K-1]; one element type T
// throughout. ONNX Runtime's contrib version adds attributes: dilation d (the states hold
// (K-1)*d positions), channels_last (input and output [B, L, C], states [B, (K-1)*d, C]), ndim
// (spatial rank; only 1 is shaped here) and state_window (> 0: states with one more leading
// axis, left unknown here).

template <bool Contrib>
void causal_conv_with_state_rule(InferContext& c) {
  if constexpr (!Contrib) require_opset(c, 27, "CausalConvWithState");
  require_tensor_inputs(c, 2, 4);
  if (c.output_count() != 2)
    c.fail("CausalConvWithState has 2 outputs (output, present_state), got " + std::to_string(c.output_count()));
  const std::string act = c.attr_string("activation", "none");
  if (act != "none" && act != "silu" && act != "swish")
    c.fail("activation must be 'none', 'silu' or 'swish', got '" + act + "'");
  const DataType t = c.input_elem(0);
  const std::int64_t ndim = Contrib ? c.attr_int("ndim", 1) : 1;
  const std::int64_t dilation = Contrib ? c.attr_int("dilation", 1) : 1;
  const bool last = Contrib && c.attr_int("channels_last", 0) != 0;
  const std::int64_t window = Contrib ? c.attr_int("state_window", 0) : 0;
  if (ndim < 1 || ndim > 3) c.fail("ndim must be 1, 2 or 3");
  if (dilation < 1) c.fail("dilation must be positive");
  if (window < 0) c.fail("state_window must be >= 0");
  const Dims* x = c.input_shape(0);
  if (ndim != 1 || window != 0) {  // contrib forms not shaped here: the output keeps the input's shape
    c.set_output(0, same_shape(c, 0, t));
    c.set_output(1, ValueType::tensor(t));
    return;
  }
  const Dims* w = c.input_shape(1);
  if (x && x->size() != 3) c.fail("input must be 3-D, got rank " + std::to_string(x->size()));
  if (w && w->size() != 3) c.fail("weight must be 3-D [channels, 1, kernel_size], got rank " + std::to_string(w->size()));
  const std::size_t ca = last ? 2 : 1;  // the channel axis of input and states
  DimExpr B = x ? (*x)[0] : c.fresh();
  DimExpr C = x ? (*x)[ca] : w ? (*w)[0] : c.fresh();
  if (w) {
    c.unify((*w)[0], C, "weight channels vs input channels");
    c.unify((*w)[1], DimExpr(1), "weight's second dim (depthwise)");
  }
  if (c.input_count() > 2 && c.has_input(2))
    if (const Dims* b = c.input_shape(2)) {
      if (b->size() != 1) c.fail("bias must be 1-D [channels], got rank " + std::to_string(b->size()));
      c.unify((*b)[0], C, "bias size vs channels");
    }
  B = c.resolve(B);
  C = c.resolve(C);
  if (w)
    if (const auto k = c.resolve((*w)[2]).const_value(); k && *k < 1) c.fail("kernel size must be positive");
  const DimExpr carry = w ? c.resolve(((*w)[2] - DimExpr(1)) * DimExpr(dilation)) : c.fresh();
  const Dims state = last ? Dims{B, carry, C} : Dims{B, C, carry};
  if (c.input_count() > 3 && c.has_input(3))
    if (const Dims* p = c.input_shape(3)) {
      if (p->size() != 3) c.fail("past_state must be 3-D, got rank " + std::to_string(p->size()));
      for (std::size_t i = 0; i < 3; ++i) c.unify((*p)[i], state[i], "past_state vs [batch, channels, carry]");
    }
  c.set_output(0, same_shape(c, 0, t));
  Dims present;
  for (const auto& d : state) present.push_back(c.resolve(d));
  c.set_output(1, t, std::move(present));
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
  r.add("", "LinearAttention", &newer_detail::linear_attention_rule<false>);
  r.add("com.microsoft", "LinearAttention", &newer_detail::linear_attention_rule<true>);
  r.add("", "CausalConvWithState", &newer_detail::causal_conv_with_state_rule<false>);
  r.add("com.microsoft", "CausalConvWithState", &newer_detail::causal_conv_with_state_rule<true>);
  // Refinement: shape checks of RotaryEmbedding's caches and position ids, then the original rule.
  if (Rule base = r.find("", "RotaryEmbedding"); base != &newer_detail::rotary_embedding_rule) {
    newer_detail::rotary_base() = base;
    r.add("", "RotaryEmbedding", &newer_detail::rotary_embedding_rule);
  }
  newer_detail::install_gates(r, std::make_index_sequence<std::size(newer_detail::kGates)>{});
}

}  // namespace oxir::infer::ops
