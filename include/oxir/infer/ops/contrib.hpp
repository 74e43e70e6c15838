#pragma once
// Inference rules: the ONNX Runtime contrib operators (domain com.microsoft, and the
// SimplifiedLayerNormalization ONNX Runtime defines in the default domain) that its exporters,
// transformer optimizer and quantizer put into real models: the Gelu family, the fused
// normalizations, FusedMatMul/FusedConv, MatMulNBits, GatherBlockQuantized, the QOperator
// quantized ops (element-wise, pools, concat, QGemm, softmax), NhwcMaxPool, DynamicQuantizeLSTM,
// the com.microsoft Quantize/DequantizeLinear, RotaryEmbedding, Attention, QAttention,
// MultiHeadAttention, GroupQueryAttention and EmbedLayerNormalization (see docs/inference.md).
//
// These operators have no ONNX schema: their semantics are ONNX Runtime's (its contrib operator
// documentation and kernels). Only what those kernels require is claimed: outputs whose shape
// the kernels leave open (the normalizations' mean and inv_std_var) stay unknown, and any other
// com.microsoft operator stays an unknown operator. tests/infer/newops compares every rule here
// with ONNX Runtime runs.

#include <string>

#include "../engine.hpp"
#include "common.hpp"
#include "linalg.hpp"
#include "shape.hpp"
#include "spatial.hpp"

namespace oxir::infer::ops {

namespace contrib_detail {

inline constexpr std::string_view kMs = "com.microsoft";

/// Output 0 with input 0's element type and shape.
inline void like_x(InferContext& c, std::size_t out = 0) {
  c.set_output(out, linalg_detail::like_input(c, 0, c.input_elem(0)));
}

/// A 1-D parameter of the last dim of input 0 (a bias, gamma, beta): unified with that dim when
/// both ranks are known and the parameter is 1-D (the kernels check exactly that).
inline void unify_last_dim_param(InferContext& c, std::size_t i, std::string_view what) {
  if (!c.has_input(i)) return;
  const Dims* x = c.input_shape(0);
  const Dims* p = c.input_shape(i);
  if (!x || !p || x->empty()) return;
  if (p->size() != 1) c.fail(std::string(what) + " must be 1-D, got rank " + std::to_string(p->size()));
  c.unify((*p)[0], x->back(), std::string(what) + " size vs the last dimension of the input");
}

/// Gelu, QuickGelu (X), FastGelu (X, optional bias), BiasGelu (A, bias): the input's shape.
inline void rule_gelu(InferContext& c) {
  require_inputs(c, 1, 1);
  like_x(c);
}
inline void rule_fast_gelu(InferContext& c) {
  require_inputs(c, 1, 2);
  unify_last_dim_param(c, 1, "bias");
  like_x(c);
}
inline void rule_bias_gelu(InferContext& c) {
  require_inputs(c, 2, 2);
  unify_last_dim_param(c, 1, "bias");
  like_x(c);
}

/// SkipLayerNormalization (input, skip, gamma, [beta], [bias]) and SkipSimplifiedLayerNormalization
/// (input, skip, gamma, [bias]): output 0 and input_skip_bias_sum (output 3) have the input's
/// type and shape; mean and inv_std_var are left unknown.
template <bool Simplified>
inline void rule_skip_layer_norm(InferContext& c) {
  require_inputs(c, 3, Simplified ? 4 : 5);
  const Dims* x = c.input_shape(0);
  if (x && x->size() < 2) c.fail("input must have rank 2 or 3, got " + std::to_string(x->size()));
  unify_last_dim_param(c, 2, "gamma");
  if constexpr (Simplified) {
    unify_last_dim_param(c, 3, "bias");
  } else {
    unify_last_dim_param(c, 3, "beta");
    unify_last_dim_param(c, 4, "bias");
  }
  // skip: the input's shape, or one that broadcasts to it ([1, S, H], [S, H]); its last dim
  // is the hidden size either way.
  if (const Dims* s = c.input_shape(1); x && s && !s->empty() && !x->empty())
    c.unify(s->back(), x->back(), "skip size vs hidden size");
  like_x(c, 0);
  if (c.has_output(3)) like_x(c, 3);
}

/// SimplifiedLayerNormalization (X, scale): Y has the scale's element type (mixed-precision models
/// normalize float16 activations with float scales and the other way round) and X's shape.
inline void rule_simplified_layer_norm(InferContext& c) {
  require_inputs(c, 2, 2);
  const Dims* x = c.input_shape(0);
  if (x) (void)c.normalize_axis(c.attr_int("axis", -1), static_cast<std::int64_t>(x->size()));
  c.set_output(0, linalg_detail::like_input(c, 0, c.input_elem(1)));
}

/// FusedMatMul: MatMul of A and B, each transposed in its last two dims when transA/transB.
/// transBatchA/transBatchB move the batch dims too: only the element type is claimed then.
inline void rule_fused_matmul(InferContext& c) {
  require_inputs(c, 2, 2);
  const DataType elem = c.input_elem(0);
  if (c.attr_int("transBatchA", 0) != 0 || c.attr_int("transBatchB", 0) != 0)
    return c.set_output(0, ValueType::tensor(elem));
  const Dims* a = c.input_shape(0);
  const Dims* b = c.input_shape(1);
  if (!a || !b) return c.set_output(0, ValueType::tensor(elem));
  Dims A = *a, B = *b;
  for (auto [d, t] : {std::pair{&A, c.attr_int("transA", 0)}, std::pair{&B, c.attr_int("transB", 0)}})
    if (t != 0) {
      if (d->size() < 2) return c.set_output(0, ValueType::tensor(elem));
      std::swap((*d)[d->size() - 2], (*d)[d->size() - 1]);
    }
  c.set_output(0, elem, linalg_detail::matmul_dims(c, A, B));
}

/// FusedConv (X, W, [B], [Z]): Conv's output (Z, when given, is added to it).
inline void rule_fused_conv(InferContext& c) {
  require_inputs(c, 2, 4);
  spatial_detail::conv_common(c, 0, 1, 2, c.input_elem(0), false);
}

/// MatMulNBits (A, B, scales, [zero_points], [g_idx], [bias]): A [..., K] times the N x K matrix
/// packed in B: [..., N], of A's element type.
inline void rule_matmul_nbits(InferContext& c) {
  require_inputs(c, 3, 6);
  const std::int64_t K = c.require_int("K");
  const std::int64_t N = c.require_int("N");
  if (K <= 0 || N <= 0) c.fail("K and N must be positive");
  const DataType elem = c.input_elem(0);
  const Dims* a = c.input_shape(0);
  if (!a) return c.set_output(0, ValueType::tensor(elem));
  if (a->empty()) c.fail("A must have rank >= 1");
  c.unify(a->back(), DimExpr(K), "A's last dimension vs K");
  Dims out(a->begin(), a->end() - 1);
  out.emplace_back(N);
  c.set_output(0, elem, std::move(out));
}

/// DynamicQuantizeMatMul (A, B, b_scale, [b_zero_point], [bias]): float MatMul of A and B.
/// MatMulIntegerToFloat (A, B, a_scale, b_scale, [a_zp], [b_zp], [bias]): MatMul of A and B in
/// a_scale's element type.
inline void rule_dynamic_quantize_matmul(InferContext& c) {
  require_inputs(c, 3, 5);
  linalg_detail::matmul_out(c, 0, 1, DataType::FLOAT);
}
inline void rule_matmul_integer_to_float(InferContext& c) {
  require_inputs(c, 4, 7);
  linalg_detail::matmul_out(c, 0, 1, c.input_elem(2));
}

/// QLinearAdd, QLinearMul (A, A_scale, [A_zp], B, B_scale, [B_zp], C_scale, [C_zp]): A and B
/// broadcast, in A's (quantized) element type.
inline void rule_qlinear_binary(InferContext& c) {
  require_inputs(c, 7, 8);
  const DataType elem = c.input_elem(0);
  const Dims* a = c.input_shape(0);
  const Dims* b = c.input_shape(3);
  if (!a || !b) return c.set_output(0, ValueType::tensor(elem));
  c.set_output(0, elem, c.broadcast(*a, *b));
}

/// QLinearSigmoid, QLinearLeakyRelu, QLinearSoftmax (X, X_scale, [X_zp], Y_scale, [Y_zp]): X's
/// type and shape.
inline void rule_qlinear_unary(InferContext& c) {
  require_inputs(c, 4, 5);
  like_x(c);
}

/// QLinearGlobalAveragePool (X, x_scale, x_zp, y_scale, y_zp): the spatial dims become 1; with
/// channels_last the channels are the last dim.
inline void rule_qlinear_global_average_pool(InferContext& c) {
  require_inputs(c, 5, 5);
  const DataType elem = c.input_elem(0);
  const Dims* x = c.input_shape(0);
  if (!x) return c.set_output(0, ValueType::tensor(elem));
  if (x->size() < 3) c.fail("input must have rank >= 3, got " + std::to_string(x->size()));
  const bool last = c.attr_int("channels_last", 0) != 0;
  Dims out(x->size(), DimExpr(1));
  out[0] = (*x)[0];
  if (last)
    out.back() = x->back();
  else
    out[1] = (*x)[1];
  c.set_output(0, elem, std::move(out));
}

/// com.microsoft QuantizeLinear (x, y_scale, [y_zero_point]): x's shape in the zero point's
/// element type (uint8 without one). DequantizeLinear (x, x_scale, [x_zero_point]): x's shape
/// in the scale's element type.
inline void rule_ms_quantize_linear(InferContext& c) {
  require_inputs(c, 2, 3);
  const DataType out = c.has_input(2) ? c.input_elem(2) : DataType::UINT8;
  c.set_output(0, linalg_detail::like_input(c, 0, out));
}
inline void rule_ms_dequantize_linear(InferContext& c) {
  require_inputs(c, 2, 3);
  c.set_output(0, linalg_detail::like_input(c, 0, c.input_elem(1)));
}

/// com.microsoft RotaryEmbedding (input, position_ids, cos_cache, sin_cache): the input's shape.
inline void rule_ms_rotary_embedding(InferContext& c) {
  require_inputs(c, 4, 4);
  like_x(c);
}

/// A size divided by k where the division is provably exact (exact_div); a failure for a number
/// k does not divide; otherwise a fresh symbol.
inline DimExpr div_exact_or_fresh(InferContext& c, const DimExpr& d, std::int64_t k, std::string_view what) {
  const DimExpr r = c.resolve(d);
  if (auto q = exact_div(r, DimExpr(k))) return *q;
  if (const auto v = r.const_value())
    c.fail(std::string(what) + " " + std::to_string(*v) + " is not divisible by " + std::to_string(k));
  return c.fresh();
}

/// The attention operators' required, positive num_heads.
inline std::int64_t require_heads(const InferContext& c) {
  const std::int64_t heads = c.require_int("num_heads");
  if (heads <= 0) c.fail("num_heads must be positive");
  return heads;
}

/// Attention (input, weights, [bias], [mask_index], [past], ...) and QAttention: output
/// [B, S, v_hidden] with v_hidden = qkv_hidden_sizes[2], or a third of the weights' columns;
/// present (below), read from input `past_index`, when `present_known` (no input selects another
/// length). The outputs of the newer versions are left unknown.
inline void attention_out(InferContext& c, DataType elem, std::size_t past_index, bool present_known) {
  const std::int64_t heads = require_heads(c);
  const Dims* x = c.input_shape(0);
  const Dims* w = c.input_shape(1);
  if (x && x->size() != 3) c.fail("input must be 3-D, got rank " + std::to_string(x->size()));
  if (w && w->size() != 2) c.fail("weights must be 2-D, got rank " + std::to_string(w->size()));
  if (x && w) c.unify((*x)[2], (*w)[0], "input hidden size vs weights");
  DimExpr v_hidden;
  if (const auto sizes = c.attr_ints("qkv_hidden_sizes"); sizes && !sizes->empty()) {
    if (sizes->size() != 3) c.fail("qkv_hidden_sizes must have 3 values");
    for (auto v : *sizes)
      if (v <= 0 || v % heads != 0) c.fail("qkv_hidden_sizes must be positive multiples of num_heads");
    v_hidden = DimExpr((*sizes)[2]);
    // DimExpr sums are overflow-checked (hostile sizes near 2^62 throw instead of wrapping).
    if (w)
      c.unify((*w)[1], DimExpr((*sizes)[0]) + DimExpr((*sizes)[1]) + DimExpr((*sizes)[2]),
              "weights columns vs qkv_hidden_sizes");
  } else {
    v_hidden = w ? div_exact_or_fresh(c, (*w)[1], 3, "weights columns") : c.fresh();
  }
  if (!x) return c.set_output(0, ValueType::tensor(elem));
  c.set_output(0, elem, Dims{(*x)[0], (*x)[1], v_hidden});
  // present [2, B, num_heads, P + S, head_size] after a past [2, B, num_heads, P, head_size] (P = 0
  // without one), for equal Q/K/V sizes and no buffer sharing or past_sequence_length input.
  const bool equal_sizes = !c.attr_ints("qkv_hidden_sizes") || c.attr_ints("qkv_hidden_sizes")->empty();
  if (!c.has_output(1) || !equal_sizes || c.attr_int("past_present_share_buffer", 0) != 0 || !present_known) return;
  const DimExpr head = div_exact_or_fresh(c, v_hidden, heads, "hidden size");
  DimExpr past_len(0);
  if (c.has_input(past_index)) {
    const Dims* past = c.input_shape(past_index);
    if (!past) return;
    if (past->size() != 5) c.fail("past must be 5-D, got rank " + std::to_string(past->size()));
    c.unify((*past)[0], DimExpr(2), "past dim 0");
    c.unify((*past)[1], (*x)[0], "past batch size vs input batch size");
    c.unify((*past)[2], DimExpr(heads), "past heads vs num_heads");
    c.unify((*past)[4], head, "past head size");
    past_len = (*past)[3];
  }
  c.set_output(1, elem, Dims{DimExpr(2), (*x)[0], DimExpr(heads), c.resolve(past_len + (*x)[1]), head});
}
inline void rule_attention(InferContext& c) {
  require_inputs(c, 2, 8);
  // attention_bias (input 5) and past_sequence_length (6) belong to the buffer-sharing paths.
  attention_out(c, c.input_elem(0), 4, c.input_count() <= 5 || (c.input_count() == 6 && !c.has_input(5)));
}
/// QAttention (input, weight, bias, input_scale, weight_scale, [mask_index], [input_zero_point],
/// [weight_zero_point], [past]): Attention on quantized input and weight, in the scales' type.
inline void rule_qattention(InferContext& c) {
  require_inputs(c, 5, 9);
  attention_out(c, c.input_elem(3), 8, true);
}

/// MultiHeadAttention (query, [key], [value], ...): output [B, S, v_hidden] for a 3-D query, with
/// v_hidden the value's last dim (3-D value [B, L, v_hidden]) or num_heads times it (4-D value
/// [B, num_heads, L, v_head_size]). Packed layouts (5-D query or key): only the type. present_key
/// and present_value below; the attention probabilities (output 3) are left unknown.
inline void rule_multi_head_attention(InferContext& c) {
  require_inputs(c, 1, 11);
  const std::int64_t heads = require_heads(c);
  const DataType elem = c.input_elem(0);
  const Dims* q = c.input_shape(0);
  const Dims* v = c.has_input(2) ? c.input_shape(2) : nullptr;
  if (!q || q->size() != 3 || !v) return c.set_output(0, ValueType::tensor(elem));
  DimExpr v_hidden;
  if (v->size() == 3)
    v_hidden = (*v)[2];
  else if (v->size() == 4)
    v_hidden = DimExpr(heads) * (*v)[3];
  else
    return c.set_output(0, ValueType::tensor(elem));
  c.set_output(0, elem, Dims{(*q)[0], (*q)[1], v_hidden});
  // present_key/present_value [B, num_heads, P + L, head size] for a 3-D key [B, L, k_hidden]
  // after a past [B, num_heads, P, head size] (P = 0 without one); not with the inputs past the
  // past_value (past_sequence_length, cache_indirection), which select a shared buffer.
  const Dims* k = c.has_input(1) ? c.input_shape(1) : nullptr;
  if ((!c.has_output(1) && !c.has_output(2)) || !k || k->size() != 3 || v->size() != 3 || c.input_count() > 8)
    return;
  const bool has_past = c.input_count() > 6 && c.has_input(6);
  if (has_past != (c.input_count() > 7 && c.has_input(7))) return;
  const DimExpr k_head = div_exact_or_fresh(c, (*k)[2], heads, "key hidden size");
  const DimExpr v_head = div_exact_or_fresh(c, (*v)[2], heads, "value hidden size");
  DimExpr past_len(0);
  if (has_past) {
    const Dims* pk = c.input_shape(6);
    const Dims* pv = c.input_shape(7);
    if (!pk || !pv || pk->size() != 4 || pv->size() != 4) return;
    c.unify((*pk)[2], (*pv)[2], "past_key vs past_value sequence length");
    for (const Dims* p : {pk, pv}) {
      c.unify((*p)[0], (*q)[0], "past batch size vs query batch size");
      c.unify((*p)[1], DimExpr(heads), "past heads vs num_heads");
    }
    c.unify((*pk)[3], k_head, "past_key head size");
    c.unify((*pv)[3], v_head, "past_value head size");
    past_len = (*pk)[2];
  }
  const DimExpr total = c.resolve(past_len + (*k)[1]);
  c.set_output(1, elem, Dims{(*q)[0], DimExpr(heads), total, k_head});
  c.set_output(2, elem, Dims{(*q)[0], DimExpr(heads), total, v_head});
}

/// GroupQueryAttention (query, [key], [value], [past_key], [past_value], seqlens_k,
/// total_sequence_length, [cos_cache], [sin_cache], ...). ONNX Runtime's kernel: head_size is
/// D / num_heads for a 3-D query [B, S, D] with separate key and value, D / (num_heads +
/// 2 kv_num_heads) for packed QKV (no key); integer division either way. Output [B, S, D], or
/// [B, S, head_size * num_heads] when packed. present_key/present_value are
/// [B, kv_num_heads, max(total_sequence_length, P), head_size], P the past's dim 2 (0 without a
/// past): the sequence dim is known only when total_sequence_length's value is (a Shape of the
/// attention mask, cast to int32, as exporters build it). Further outputs stay unknown.
inline void rule_group_query_attention(InferContext& c) {
  require_inputs(c, 1, 14);  // key, value and the past are optional
  for (std::size_t i : {std::size_t{5}, std::size_t{6}})
    if (!c.has_input(i)) c.fail("required input " + std::to_string(i) + " is missing");
  const std::int64_t heads = require_heads(c);
  const std::int64_t kv_heads = c.require_int("kv_num_heads");
  if (kv_heads <= 0) c.fail("kv_num_heads must be positive");
  // The kernel holds both in an int; bounding them keeps heads + 2 * kv_heads from overflowing.
  constexpr std::int64_t kIntMax = 2147483647;
  if (heads > kIntMax || kv_heads > kIntMax) c.fail("num_heads and kv_num_heads must fit in 32 bits");
  if (heads % kv_heads != 0) c.fail("num_heads must be a multiple of kv_num_heads");
  const DataType elem = c.input_elem(0);
  const bool packed = !c.has_input(1);
  if (packed == c.has_input(2)) c.fail("key and value must both be given, or both be absent (packed QKV)");
  const bool has_past = c.has_input(3) && c.has_input(4);
  if (!has_past && (c.has_input(3) || c.has_input(4)))
    c.fail("past_key and past_value must both be given or both be absent");
  const Dims* q = c.input_shape(0);
  if (q && q->size() != 3) c.fail("query must be 3-D, got rank " + std::to_string(q->size()));
  auto check_rank = [&](std::size_t i, std::size_t rank, const char* what) -> const Dims* {
    const Dims* d = c.has_input(i) ? c.input_shape(i) : nullptr;
    if (d && d->size() != rank)
      c.fail(std::string(what) + " must be " + std::to_string(rank) + "-D, got rank " + std::to_string(d->size()));
    return d;
  };
  const Dims* k = check_rank(1, 3, "key");
  const Dims* v = check_rank(2, 3, "value");
  const Dims* pk = check_rank(3, 4, "past_key");
  const Dims* pv = check_rank(4, 4, "past_value");
  if (k && v) c.unify((*k)[2], (*v)[2], "key hidden size vs value hidden size");
  if (pk && pv) c.unify((*pk)[2], (*pv)[2], "past_key vs past_value sequence length");
  std::optional<DimExpr> head;
  if (q) head = floor_div(c.resolve((*q)[2]), DimExpr(packed ? heads + 2 * kv_heads : heads));
  for (const Dims* p : {pk, pv}) {
    if (!p) continue;
    if (q) c.unify((*p)[0], (*q)[0], "past batch size vs query batch size");
    c.unify((*p)[1], DimExpr(kv_heads), "past heads vs kv_num_heads");
    if (head) c.unify((*p)[3], *head, "past head size vs head size");
  }
  for (const Dims* p : {k, v})
    if (p && q) c.unify((*p)[0], (*q)[0], "key/value batch size vs query batch size");
  if (!q) {
    c.set_output(0, ValueType::tensor(elem));
  } else {
    c.set_output(0, elem, Dims{(*q)[0], (*q)[1], packed ? *head * DimExpr(heads) : (*q)[2]});
  }
  // The caches' sequence length: max(total_sequence_length, the past's dim 2).
  std::optional<DimExpr> present_seq;
  const Dims* past = pk ? pk : pv;
  if (const Dims* total = c.input_value(6); total && total->size() == 1 && (past || !has_past))
    present_seq = max_of(c.resolve((*total)[0]), past ? c.resolve((*past)[2]) : DimExpr(0));
  // The caches' element type: the past's (a cache passes through in its own type); without a
  // past the query's, unless the node has attributes newer kernels use for quantized caches.
  DataType cache_elem = has_past ? c.input_elem(3) : elem;
  if (!has_past)
    for (const Attribute& a : c.node().attributes)
      if (a.name.find("quant") != std::string::npos || a.name.find("cache") != std::string::npos ||
          a.name.find("bit") != std::string::npos)
        cache_elem = DataType::UNDEFINED;
  if (!c.has_output(1) && !c.has_output(2)) return;
  if (!q || !head) {
    for (std::size_t o : {std::size_t{1}, std::size_t{2}}) c.set_output(o, ValueType::tensor(cache_elem));
    return;
  }
  if (!present_seq) present_seq = c.fresh();  // one size for both caches
  for (std::size_t o : {std::size_t{1}, std::size_t{2}})
    c.set_output(o, cache_elem, Dims{(*q)[0], DimExpr(kv_heads), *present_seq, *head});
}

/// Pooling over an NCHW input, or NHWC with `channels_last` (QLinearAveragePool, NhwcMaxPool):
/// the window arithmetic of the standard pools on the spatial axes.
inline void pool_layout(InferContext& c, bool channels_last, bool dilations) {
  const DataType elem = c.input_elem(0);
  const auto ks = c.attr_ints("kernel_shape");
  if (!ks || ks->empty()) c.fail("missing required attribute 'kernel_shape'");
  const std::size_t n = ks->size();
  const Dims* x = c.input_shape(0);
  if (x && x->size() != n + 2)
    c.fail("kernel_shape has " + std::to_string(n) + " entries for an input of rank " + std::to_string(x->size()));
  spatial_detail::Window w = spatial_detail::read_window(c, n, dilations, true);
  w.pooling = true;
  for (std::size_t i = 0; i < n; ++i) {
    if ((*ks)[i] <= 0) c.fail("kernel_shape entries must be positive");
    w.kernel[i] = DimExpr((*ks)[i]);
  }
  if (!x) return c.set_output(0, ValueType::tensor(elem));
  const std::size_t first = channels_last ? 1 : 2;  // the first spatial axis
  Dims out = *x;
  for (std::size_t i = 0; i < n; ++i) out[first + i] = spatial_detail::window_out(c, (*x)[first + i], w, i);
  c.set_output(0, elem, std::move(out));
}

/// QLinearAveragePool (X, x_scale, x_zero_point, y_scale, [y_zero_point]).
inline void rule_qlinear_average_pool(InferContext& c) {
  require_inputs(c, 4, 5);
  pool_layout(c, c.attr_int("channels_last", 0) != 0, false);
}
/// NhwcMaxPool (x): MaxPool on an NHWC input.
inline void rule_nhwc_max_pool(InferContext& c) {
  require_inputs(c, 1, 1);
  pool_layout(c, true, true);
}

/// QLinearConcat (Y_scale, Y_zero_point, then X, X_scale, X_zero_point per input): Concat of the
/// X along `axis`, in the output zero point's element type.
inline void rule_qlinear_concat(InferContext& c) {
  if (c.input_count() < 5 || (c.input_count() - 2) % 3 != 0)
    c.fail("expects Y_scale, Y_zero_point and triples (X, X_scale, X_zero_point), got " +
           std::to_string(c.input_count()) + " inputs");
  for (std::size_t i = 2; i < c.input_count(); i += 3)
    if (!c.has_input(i)) c.fail("input " + std::to_string(i) + " is missing");
  (void)shape_detail::concat_shape(c, 2, 3, c.require_int("axis"), c.input_elem(1));
}

/// QGemm (A, a_scale, a_zero_point, B, b_scale, b_zero_point, [C], [y_scale], [y_zero_point]):
/// [M, N] after transA/transB; float without y_scale, else the y zero point's type.
inline void rule_qgemm(InferContext& c) {
  require_inputs(c, 6, 9);
  const bool ta = c.attr_int("transA", 0) != 0, tb = c.attr_int("transB", 0) != 0;
  DataType elem = DataType::FLOAT;
  if (c.input_count() > 7 && c.has_input(7))
    elem = c.input_count() > 8 && c.has_input(8) ? c.input_elem(8) : DataType::UNDEFINED;
  const Dims* a = c.input_shape(0);
  const Dims* b = c.input_shape(3);
  if (a && a->size() != 2) c.fail("A must be 2-D, got rank " + std::to_string(a->size()));
  if (b && b->size() != 2) c.fail("B must be 2-D, got rank " + std::to_string(b->size()));
  if (!a || !b) return c.set_output(0, ValueType::tensor(elem));
  c.unify((*a)[ta ? 0 : 1], (*b)[tb ? 1 : 0], "contraction dimension");
  c.set_output(0, elem, Dims{c.resolve((*a)[ta ? 1 : 0]), c.resolve((*b)[tb ? 0 : 1])});
}

/// GatherBlockQuantized (data, indices, scales, [zero_points]): Gather along gather_axis of the
/// dequantized data, in the scales' element type. uint8 data packs 8/bits values per byte along
/// quantize_axis (bits 4 by default), which the output unpacks; int4/uint4 data is not packed.
inline void rule_gather_block_quantized(InferContext& c) {
  require_inputs(c, 3, 4);
  const DataType elem = c.input_elem(2);
  const std::int64_t bits = c.attr_int("bits", 4);
  if (bits != 2 && bits != 4 && bits != 8) c.fail("bits must be 2, 4 or 8, got " + std::to_string(bits));
  const Dims* d = c.input_shape(0);
  const Dims* idx = c.input_shape(1);
  const DataType data_elem = c.input_elem(0);
  if (!d || !idx || data_elem == DataType::UNDEFINED) return c.set_output(0, ValueType::tensor(elem));
  const auto rank = static_cast<std::int64_t>(d->size());
  if (rank == 0) c.fail("data must have rank >= 1");
  const auto g = static_cast<std::size_t>(c.normalize_axis(c.attr_int("gather_axis", 0), rank, "gather_axis"));
  const auto q = static_cast<std::size_t>(c.normalize_axis(c.attr_int("quantize_axis", 1), rank, "quantize_axis"));
  if (g == q) return c.set_output(0, ValueType::tensor(elem));
  const std::int64_t per_byte = data_elem == DataType::UINT8 ? 8 / bits : 1;
  Dims out;
  for (std::size_t a = 0; a < d->size(); ++a) {
    if (a == g)
      out.insert(out.end(), idx->begin(), idx->end());
    else
      out.push_back(a == q ? c.resolve((*d)[a] * DimExpr(per_byte)) : (*d)[a]);
  }
  c.set_output(0, elem, std::move(out));
}

/// DynamicQuantizeLSTM (X, W, R, [B], [sequence_lens], [initial_h], [initial_c], [P], W_scale,
/// W_zero_point, R_scale, R_zero_point): LSTM's outputs, with W and R stored transposed.
inline void rule_dynamic_quantize_lstm(InferContext& c) {
  require_inputs(c, 3, 12);
  for (std::size_t i = 8; i < 12; ++i)
    if (!c.has_input(i)) c.fail("required input " + std::to_string(i) + " (a scale or zero point) is missing");
  spatial_detail::rnn_common(c, 4, true, true);
}

/// EmbedLayerNormalization (input_ids, segment_ids, word_embedding, position_embedding,
/// segment_embedding, gamma, beta, [mask], [position_ids]): output and embedding_sum
/// [B, S, hidden] in the word embedding's type, mask_index [B] int32.
inline void rule_embed_layer_norm(InferContext& c) {
  require_inputs(c, 7, 9);
  const Dims* ids = c.input_shape(0);
  const Dims* we = c.input_shape(2);
  if (ids && ids->size() != 2) c.fail("input_ids must be 2-D, got rank " + std::to_string(ids->size()));
  if (we && we->size() != 2) c.fail("word_embedding must be 2-D, got rank " + std::to_string(we->size()));
  const DataType elem = c.input_elem(2);
  const DimExpr hidden = we ? (*we)[1] : c.fresh();
  for (std::size_t i : {std::size_t{5}, std::size_t{6}})
    if (const Dims* p = c.has_input(i) ? c.input_shape(i) : nullptr) {
      if (p->size() != 1) c.fail(std::string(i == 5 ? "gamma" : "beta") + " must be 1-D");
      if (we) c.unify((*p)[0], hidden, std::string(i == 5 ? "gamma" : "beta") + " size vs hidden size");
    }
  if (!ids) {
    c.set_output(0, ValueType::tensor(elem));
    c.set_output(1, ValueType::tensor(DataType::INT32));
    if (c.has_output(2)) c.set_output(2, ValueType::tensor(elem));
    return;
  }
  c.set_output(0, elem, Dims{(*ids)[0], (*ids)[1], hidden});
  c.set_output(1, DataType::INT32, Dims{(*ids)[0]});
  if (c.has_output(2)) c.set_output(2, elem, Dims{(*ids)[0], (*ids)[1], hidden});
}

}  // namespace contrib_detail

inline void register_contrib_ops(OpRegistry& r) {
  using namespace contrib_detail;
  r.add(kMs, "Gelu", &rule_gelu);
  r.add(kMs, "QuickGelu", &rule_gelu);
  r.add(kMs, "FastGelu", &rule_fast_gelu);
  r.add(kMs, "BiasGelu", &rule_bias_gelu);
  r.add(kMs, "SkipLayerNormalization", &rule_skip_layer_norm<false>);
  r.add(kMs, "SkipSimplifiedLayerNormalization", &rule_skip_layer_norm<true>);
  r.add("", "SimplifiedLayerNormalization", &rule_simplified_layer_norm);
  r.add(kMs, "FusedMatMul", &rule_fused_matmul);
  r.add(kMs, "FusedConv", &rule_fused_conv);
  r.add(kMs, "MatMulNBits", &rule_matmul_nbits);
  r.add(kMs, "DynamicQuantizeMatMul", &rule_dynamic_quantize_matmul);
  r.add(kMs, "MatMulIntegerToFloat", &rule_matmul_integer_to_float);
  r.add(kMs, "QLinearAdd", &rule_qlinear_binary);
  r.add(kMs, "QLinearMul", &rule_qlinear_binary);
  r.add(kMs, "QLinearSigmoid", &rule_qlinear_unary);
  r.add(kMs, "QLinearLeakyRelu", &rule_qlinear_unary);
  r.add(kMs, "QLinearGlobalAveragePool", &rule_qlinear_global_average_pool);
  r.add(kMs, "QuantizeLinear", &rule_ms_quantize_linear);
  r.add(kMs, "DequantizeLinear", &rule_ms_dequantize_linear);
  r.add(kMs, "RotaryEmbedding", &rule_ms_rotary_embedding);
  r.add(kMs, "Attention", &rule_attention);
  r.add(kMs, "QAttention", &rule_qattention);
  r.add(kMs, "DynamicQuantizeLSTM", &rule_dynamic_quantize_lstm);
  r.add(kMs, "MultiHeadAttention", &rule_multi_head_attention);
  r.add(kMs, "EmbedLayerNormalization", &rule_embed_layer_norm);
  r.add(kMs, "GroupQueryAttention", &rule_group_query_attention);
  r.add(kMs, "QLinearAveragePool", &rule_qlinear_average_pool);
  r.add(kMs, "NhwcMaxPool", &rule_nhwc_max_pool);
  r.add(kMs, "QLinearConcat", &rule_qlinear_concat);
  r.add(kMs, "QGemm", &rule_qgemm);
  r.add(kMs, "QLinearSoftmax", &rule_qlinear_unary);
  r.add(kMs, "GatherBlockQuantized", &rule_gather_block_quantized);
}

}  // namespace oxir::infer::ops
