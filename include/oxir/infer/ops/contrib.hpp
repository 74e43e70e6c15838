#pragma once
// Inference rules: the ONNX Runtime contrib operators (domain com.microsoft, and the
// SimplifiedLayerNormalization ONNX Runtime defines in the default domain) that its exporters,
// transformer optimizer and quantizer put into real models: the Gelu family, the fused
// normalizations, FusedMatMul/FusedConv, MatMulNBits, GatherBlockQuantized, the QOperator
// quantized ops (element-wise, pools, concat, QGemm, softmax), NhwcMaxPool, DynamicQuantizeLSTM,
// the com.microsoft Quantize/DequantizeLinear, RotaryEmbedding, MRotaryEmbedding, Attention,
// QAttention, MultiHeadAttention, GroupQueryAttention, DecoderMaskedMultiHeadAttention,
// SparseAttention, EmbedLayerNormalization and QEmbedLayerNormalization, MoE/QMoE, FusedGemm and
// ONNX Runtime's own versions of standard operators (ExpandDims, Pad, Unique, GridSample, ...),
// operators of the newest model families (the gates of Gated DeltaNet and Engram layers,
// NGramHashMapping, GatedDeltaNet and the packed causal convolution, the fused MatMulNBits of the
// WebGPU kernels), the generation loops (BeamSearch, WhisperBeamSearch, GreedySearch, Sampling)
// and the fusions ONNX Runtime has only CUDA kernels for (the diffusion ones, NhwcConv,
// GemmFastGelu, the packed attentions, ...; see docs/inference.md).
//
// These operators have no ONNX schema: their semantics are ONNX Runtime's (its contrib operator
// documentation and kernels). Only what those kernels require is claimed: outputs whose shape
// the kernels leave open (the normalizations' mean and inv_std_var) stay unknown, and any other
// com.microsoft operator stays an unknown operator. tests/infer/newops compares every rule here
// with ONNX Runtime runs, or, for the operators without a CPU kernel, with ONNX Runtime's own
// shape inference through its loader; except SparseAttention, whose CPU kernel needs its caches
// to alias the pasts, and WhisperBeamSearch, which needs Whisper's subgraphs (unit tests in
// tests/unit/test_infer_contrib.cpp).

#include <algorithm>
#include <limits>
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

/// Fails unless `d` (when known) has `x`'s rank, and unifies the two dim by dim.
inline void unify_same_shape(InferContext& c, const Dims* d, const Dims* x, std::string_view what) {
  if (!d || !x) return;
  if (d->size() != x->size())
    c.fail(std::string(what) + " must have the shape of input 0: rank " + std::to_string(d->size()) + " vs " +
           std::to_string(x->size()));
  for (std::size_t i = 0; i < x->size(); ++i) c.unify((*d)[i], (*x)[i], std::string(what) + " vs input 0");
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
/// type and shape; mean and inv_std_var (outputs 1 and 2, type constraint U = float) hold one
/// value per row: float, the input's shape with its last dim 1.
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
  for (std::size_t k = 1; k <= 2; ++k) {
    if (!c.has_output(k)) continue;
    if (!x) {
      c.set_output(k, ValueType::tensor(DataType::FLOAT));
      continue;
    }
    Dims row;
    row.reserve(x->size());
    for (const auto& d : *x) row.push_back(c.resolve(d));
    row.back() = DimExpr(1);
    c.set_output(k, DataType::FLOAT, std::move(row));
  }
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

/// GatedRMSNorm (X, scale, gate), of Gated DeltaNet layers: RMS normalization in groups of the
/// scale's length (X's last dim must be a multiple of it), gated by `gate`, which has X's shape;
/// Y has X's type and shape.
inline void rule_gated_rms_norm(InferContext& c) {
  require_inputs(c, 3, 3);
  const Dims* x = c.input_shape(0);
  const Dims* scale = c.input_shape(1);
  const Dims* gate = c.input_shape(2);
  if (x && x->empty()) c.fail("X must have rank 1 or more");
  if (scale && scale->size() != 1) c.fail("scale must be 1-D, got rank " + std::to_string(scale->size()));
  if (x && gate) {
    if (gate->size() != x->size())
      c.fail("gate must have X's shape: rank " + std::to_string(gate->size()) + " vs " + std::to_string(x->size()));
    for (std::size_t i = 0; i < x->size(); ++i) c.unify((*gate)[i], (*x)[i], "gate vs X");
  }
  if (x && scale && !x->empty())
    if (const auto n = c.resolve(x->back()).const_value(), g = c.resolve((*scale)[0]).const_value(); n && g)
      if (*g <= 0 || *n % *g != 0)
        c.fail("X's last dim " + std::to_string(*n) + " is not a multiple of the scale's length " + std::to_string(*g));
  like_x(c);
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

/// A's dims with the last one (which must be K) replaced by `n`: MatMulNBits' output.
inline Dims nbits_out(InferContext& c, const Dims& a, std::int64_t k, std::int64_t n) {
  if (a.empty()) c.fail("A must have rank >= 1");
  c.unify(a.back(), DimExpr(k), "A's last dimension vs K");
  Dims out;
  for (std::size_t i = 0; i + 1 < a.size(); ++i) out.push_back(c.resolve(a[i]));
  out.emplace_back(n);
  return out;
}

/// The fused MatMulNBits of ONNX Runtime's WebGPU kernels (no CPU kernel; the shapes are those
/// its own shape inference gives, observed through the loader):
/// MatMulNBitsMlp (A, [skip], [norm_scale], gate_B, gate_scales, [gate_bias], up_B, up_scales,
/// [up_bias]): Y = act(A*gate) * (A*up) is [..., N]; input_skip_bias_sum (which needs skip) has
/// A's shape. MatMulNBitsQkv (A, [skip], norm_scale, q_B, q_scales, [q_bias], k_B, k_scales,
/// [k_bias], v_B, v_scales, [v_bias]): Q [..., Nq], K and V [..., Nkv], input_skip_bias_sum A's
/// shape. A's last dim is K; norm_scale is [K], the biases one value per output column.
inline void nbits_fused_common(InferContext& c, std::int64_t k) {
  if (k <= 0) c.fail("K must be positive");
  const Dims* a = c.input_shape(0);
  if (a && a->empty()) c.fail("A must have rank >= 1");
  // skip: A's shape or one that broadcasts to it (as for SkipSimplifiedLayerNormalization); its
  // last dim is K either way.
  if (c.has_input(1))
    if (const Dims* s = c.input_shape(1); s && !s->empty()) c.unify(s->back(), DimExpr(k), "skip's last dimension vs K");
  if (c.has_input(2))
    if (const Dims* ns = c.input_shape(2)) {
      if (ns->size() != 1) c.fail("norm_scale must be 1-D [K], got rank " + std::to_string(ns->size()));
      c.unify((*ns)[0], DimExpr(k), "norm_scale size vs K");
    }
}
inline void nbits_bias(InferContext& c, std::size_t i, std::int64_t n) {
  if (!c.has_input(i)) return;
  if (const Dims* b = c.input_shape(i)) {
    if (b->size() != 1) c.fail("input " + std::to_string(i) + " (a bias) must be 1-D, got rank " + std::to_string(b->size()));
    c.unify((*b)[0], DimExpr(n), "bias size vs output columns");
  }
}
inline void rule_matmul_nbits_mlp(InferContext& c) {
  require_inputs(c, 1, 9);  // optional inputs in the middle: the required ones are checked below
  if (c.input_count() < 8) c.fail("expects 8 or 9 inputs, got " + std::to_string(c.input_count()));
  for (const std::size_t i : {std::size_t{3}, std::size_t{4}, std::size_t{6}, std::size_t{7}})
    if (!c.has_input(i)) c.fail("required input " + std::to_string(i) + " is missing");
  const std::int64_t k = c.require_int("K"), n = c.require_int("N");
  (void)c.require_int("block_size");
  if (!c.has_attr("activation")) c.fail("missing required attribute 'activation'");
  if (n <= 0) c.fail("N must be positive");
  if (c.has_output(1) && !c.has_input(1)) c.fail("input_skip_bias_sum needs the skip input");
  nbits_fused_common(c, k);
  nbits_bias(c, 5, n);
  nbits_bias(c, 8, n);
  const DataType elem = c.input_elem(0);
  const Dims* a = c.input_shape(0);
  if (!a) {
    c.set_output(0, ValueType::tensor(elem));
  } else {
    c.set_output(0, elem, nbits_out(c, *a, k, n));
  }
  if (c.has_output(1)) like_x(c, 1);
}
inline void rule_matmul_nbits_qkv(InferContext& c) {
  require_inputs(c, 1, 12);
  if (c.input_count() < 11) c.fail("expects 11 or 12 inputs, got " + std::to_string(c.input_count()));
  for (const std::size_t i : {std::size_t{2}, std::size_t{3}, std::size_t{4}, std::size_t{6}, std::size_t{7},
                              std::size_t{9}, std::size_t{10}})
    if (!c.has_input(i)) c.fail("required input " + std::to_string(i) + " is missing");
  const std::int64_t k = c.require_int("K"), nq = c.require_int("Nq"), nkv = c.require_int("Nkv");
  (void)c.require_int("block_size");
  if (nq <= 0 || nkv <= 0) c.fail("Nq and Nkv must be positive");
  nbits_fused_common(c, k);
  nbits_bias(c, 5, nq);
  nbits_bias(c, 8, nkv);
  if (c.input_count() > 11) nbits_bias(c, 11, nkv);
  const DataType elem = c.input_elem(0);
  const Dims* a = c.input_shape(0);
  for (std::size_t o = 0; o < 3; ++o) {
    if (!c.has_output(o)) continue;
    if (!a) {
      c.set_output(o, ValueType::tensor(elem));
    } else {
      c.set_output(o, elem, nbits_out(c, *a, k, o == 0 ? nq : nkv));
    }
  }
  if (c.has_output(3) && c.has_input(1)) like_x(c, 3);
}

/// The batch size of a packed (token-major) state operator: the initial state's first dim, else
/// the length of the cumulative sequence lengths minus 1, else `fallback` (fresh if absent).
inline DimExpr packed_batch(InferContext& c, std::size_t state, std::size_t cu, std::optional<DimExpr> fallback) {
  if (c.has_input(state))
    if (const Dims* st = c.input_shape(state); st && !st->empty()) return c.resolve((*st)[0]);
  if (c.has_input(cu))
    if (const Dims* q = c.input_shape(cu); q && q->size() == 1) return c.resolve((*q)[0] - DimExpr(1));
  return fallback ? c.resolve(*fallback) : c.fresh();
}

/// GatedDeltaNet (query, key, value, [cu_seqlens], [decay], [beta], [initial_state], [a_log],
/// [dt_bias], [capture_count], [state_update_active]): the packed linear-attention recurrence of
/// Qwen3.5-style layers, CUDA and WebGPU kernels only (sized as ONNX Runtime's own shape inference
/// and its documentation size it). query and key are [T, Hq, Dk] or [B, S, Hq, Dk], value
/// [.., Hv, Dv]; output [.., max(Hq, Hv), Dv] in the query's type; final_state (float)
/// [B, Hv, Dv, Dk], B being the initial state's batch, the cu_seqlens length minus 1, or the
/// leading dim of the 4-D spelling; state_update (float) [B, C*(Hv + Hk*Dk + Hv*Dv)] for
/// state_update_capacity C > 0.
inline void rule_ms_gated_delta_net(InferContext& c) {
  require_inputs(c, 3, 11);
  const Dims* q = c.input_shape(0);
  const Dims* k = c.input_shape(1);
  const Dims* v = c.input_shape(2);
  const std::int64_t cap = c.attr_int("state_update_capacity", 0);
  if (cap < 0 || cap > 8) c.fail("state_update_capacity must be in [0, 8], got " + std::to_string(cap));
  const DataType t = c.input_elem(0);
  std::size_t rank = 0;
  for (const Dims* d : {q, k, v})
    if (d) {
      if (d->size() != 3 && d->size() != 4)
        c.fail("query, key and value must be [tokens, heads, head_size] or [batch, sequence, heads, head_size], got rank " +
               std::to_string(d->size()));
      if (rank && d->size() != rank) c.fail("query, key and value must have one rank");
      rank = d->size();
    }
  if (!q || !v) {
    c.set_output(0, ValueType::tensor(t));
    if (c.has_output(1)) c.set_output(1, ValueType::tensor(DataType::FLOAT));
    if (c.has_output(2)) c.set_output(2, ValueType::tensor(DataType::FLOAT));
    return;
  }
  const std::size_t ntok = rank - 2;  // leading token axes: [T] or [B, S]
  for (std::size_t i = 0; i < ntok; ++i) {
    c.unify((*v)[i], (*q)[i], "value tokens vs query tokens");
    if (k) c.unify((*k)[i], (*q)[i], "key tokens vs query tokens");
  }
  if (k) {
    c.unify((*k)[ntok], (*q)[ntok], "key heads vs query heads");
    c.unify((*k)[ntok + 1], (*q)[ntok + 1], "key head size vs query head size");
  }
  const DimExpr hq = c.resolve((*q)[ntok]), dk = c.resolve((*q)[ntok + 1]);
  const DimExpr hv = c.resolve((*v)[ntok]), dv = c.resolve((*v)[ntok + 1]);
  for (const std::size_t i : {std::size_t{4}, std::size_t{5}})  // decay, beta: [tokens.., Hv(, Dk)]
    if (c.has_input(i))
      if (const Dims* d = c.input_shape(i); d && d->size() > ntok) {
        for (std::size_t j = 0; j < ntok; ++j) c.unify((*d)[j], (*q)[j], "decay/beta tokens vs query tokens");
        c.unify((*d)[ntok], hv, "decay/beta heads vs value heads");
      }
  if (c.has_input(6))
    if (const Dims* st = c.input_shape(6)) {
      if (st->size() != 4) c.fail("initial_state must be 4-D [batch, Hv, Dv, Dk], got rank " + std::to_string(st->size()));
      c.unify((*st)[1], hv, "initial_state heads vs value heads");
      c.unify((*st)[2], dv, "initial_state Dv vs value head size");
      c.unify((*st)[3], dk, "initial_state Dk vs query head size");
    }
  Dims out;
  for (std::size_t i = 0; i < ntok; ++i) out.push_back(c.resolve((*q)[i]));
  out.push_back(c.resolve(max_of(hq, hv)));
  out.push_back(dv);
  c.set_output(0, t, std::move(out));
  const DimExpr b = packed_batch(c, 6, 3, rank == 4 ? std::optional<DimExpr>((*q)[0]) : std::nullopt);
  if (c.has_output(1)) c.set_output(1, DataType::FLOAT, Dims{b, c.resolve(hv), c.resolve(dv), c.resolve(dk)});
  if (c.has_output(2)) {
    if (cap > 0) {
      const DimExpr hk = k ? c.resolve((*k)[ntok]) : hq;
      c.set_output(2, DataType::FLOAT, Dims{c.resolve(b), c.resolve(DimExpr(cap) * (hv + hk * dk + hv * dv))});
    } else {
      c.set_output(2, ValueType::tensor(DataType::FLOAT));
    }
  }
}

/// VarlenCausalConvWithState (input [T, C], weight [C, 1, K], cumulative_sequence_length [B+1],
/// [bias [C]], initial_state [B, C, (K-1)*d], [capture_count [B]]): CUDA and WebGPU kernels only.
/// The output has the input's shape, final_state the initial state's ([B, C, (K-1)*d]),
/// state_update [B, state_update_capacity, C].
inline void rule_ms_varlen_causal_conv_with_state(InferContext& c) {
  require_inputs(c, 3, 6);
  if (c.input_count() < 5 || !c.has_input(4)) c.fail("the initial_state input (5th) is required");
  const std::int64_t dilation = c.attr_int("dilation", 1);
  const std::int64_t cap = c.attr_int("state_update_capacity", 0);
  if (dilation < 1) c.fail("dilation must be positive");
  if (cap < 0 || cap > 8) c.fail("state_update_capacity must be in [0, 8], got " + std::to_string(cap));
  const std::string act = c.attr_string("activation", "none");
  if (act != "none" && act != "silu" && act != "swish")
    c.fail("activation must be 'none', 'silu' or 'swish', got '" + act + "'");
  const DataType t = c.input_elem(0);
  const Dims* x = c.input_shape(0);
  const Dims* w = c.input_shape(1);
  if (x && x->size() != 2) c.fail("input must be 2-D [tokens, channels], got rank " + std::to_string(x->size()));
  if (w && w->size() != 3) c.fail("weight must be 3-D [channels, 1, kernel_size], got rank " + std::to_string(w->size()));
  DimExpr ch = x ? (*x)[1] : w ? (*w)[0] : c.fresh();
  if (w) {
    c.unify((*w)[0], ch, "weight channels vs input channels");
    c.unify((*w)[1], DimExpr(1), "weight's second dim (depthwise)");
  }
  if (c.has_input(3))
    if (const Dims* bias = c.input_shape(3)) {
      if (bias->size() != 1) c.fail("bias must be 1-D [channels], got rank " + std::to_string(bias->size()));
      c.unify((*bias)[0], ch, "bias size vs channels");
    }
  ch = c.resolve(ch);
  const DimExpr carry = w ? c.resolve(((*w)[2] - DimExpr(1)) * DimExpr(dilation)) : c.fresh();
  const DimExpr b = packed_batch(c, 4, 2, std::nullopt);
  if (const Dims* st = c.input_shape(4)) {
    if (st->size() != 3) c.fail("initial_state must be 3-D [batch, channels, (K-1)*dilation], got rank " + std::to_string(st->size()));
    c.unify((*st)[1], ch, "initial_state channels");
    c.unify((*st)[2], carry, "initial_state length vs (kernel_size - 1) * dilation");
  }
  if (c.has_input(5)) {
    if (const Dims* cc = c.input_shape(5); cc && cc->size() == 1) c.unify((*cc)[0], b, "capture_count length vs batch");
  }
  c.set_output(0, linalg_detail::like_input(c, 0, t));
  if (c.has_output(1)) c.set_output(1, t, Dims{c.resolve(b), c.resolve(ch), c.resolve(carry)});
  if (c.has_output(2)) {
    if (cap > 0)
      c.set_output(2, t, Dims{c.resolve(b), DimExpr(cap), c.resolve(ch)});
    else
      c.set_output(2, ValueType::tensor(t));
  }
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

/// com.microsoft MRotaryEmbedding (input, position_ids, cos_cache, sin_cache), the multimodal
/// rotary embedding of Qwen2-VL-style models: the input's shape, [B, S, hidden] or [B, N, S, H];
/// position_ids is [3, B, S], one row of positions per section (temporal, height, width), with
/// no broadcasting (ONNX Runtime 1.30's kernel refuses anything else).
inline void rule_ms_mrotary_embedding(InferContext& c) {
  require_inputs(c, 4, 4);
  const Dims* x = c.input_shape(0);
  const Dims* p = c.input_shape(1);
  if (x && x->size() != 3 && x->size() != 4) c.fail("input must be 3-D or 4-D, got rank " + std::to_string(x->size()));
  if (p) {
    if (p->size() != 3) c.fail("position_ids must be [3, batch, sequence], got rank " + std::to_string(p->size()));
    c.unify((*p)[0], DimExpr(3), "position_ids sections");
    if (x) {
      c.unify((*p)[1], (*x)[0], "position_ids batch vs input batch");
      c.unify((*p)[2], (*x)[x->size() == 3 ? 1 : 2], "position_ids sequence vs input sequence");
    }
  }
  like_x(c);
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
/// DecoderMaskedSelfAttention (input [B, 1, hidden], weights, bias, [mask_index], past,
/// [attention_bias], past_sequence_length, [beam_width], [cache_indirection]): one decoding step
/// of Attention; output [B, 1, v_hidden]; present is the past buffer itself when
/// past_present_share_buffer is set, else Attention's [2, B, heads, P + 1, head].
inline void rule_decoder_masked_self_attention(InferContext& c) {
  require_inputs(c, 3, 9);
  if (!c.has_input(4)) c.fail("past (input 4) is required");
  const bool share = c.attr_int("past_present_share_buffer", 0) != 0;
  attention_out(c, c.input_elem(0), 4, !share);
  if (share && c.has_output(1)) c.set_output(1, linalg_detail::like_input(c, 4, c.input_elem(0)));
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

/// QEmbedLayerNormalization (input_ids, [segment_ids], word_embedding, position_embedding,
/// [segment_embedding], gamma, beta, [mask], then the scales and zero points of the quantized
/// tables): EmbedLayerNormalization over int8/uint8 tables, layernorm_out [B, S, hidden] in the
/// scales' type (float) and mask_index_out [B] int32.
inline void rule_qembed_layer_norm(InferContext& c) {
  require_inputs(c, 1, 18);
  if (c.input_count() != 18) c.fail("expects 18 inputs (the last is beta_zero_point), got " + std::to_string(c.input_count()));
  for (const std::size_t i : std::initializer_list<std::size_t>{0, 2, 3, 5, 6, 8, 9, 11, 12, 13, 14, 16, 17})
    if (!c.has_input(i)) c.fail("required input " + std::to_string(i) + " is missing");
  const Dims* ids = c.input_shape(0);
  const Dims* we = c.input_shape(2);
  if (ids && ids->size() != 2) c.fail("input_ids must be 2-D, got rank " + std::to_string(ids->size()));
  if (we && we->size() != 2) c.fail("word_embedding_quant must be 2-D, got rank " + std::to_string(we->size()));
  const DataType elem = c.input_elem(8);
  const DimExpr hidden = we ? c.resolve((*we)[1]) : c.fresh();
  for (std::size_t i : {std::size_t{5}, std::size_t{6}})
    if (const Dims* p = c.input_shape(i)) {
      if (p->size() != 1) c.fail(std::string(i == 5 ? "gamma_quant" : "beta_quant") + " must be 1-D");
      c.unify((*p)[0], hidden, std::string(i == 5 ? "gamma_quant" : "beta_quant") + " size vs hidden size");
    }
  if (!ids) {
    c.set_output(0, ValueType::tensor(elem));
    if (c.has_output(1)) c.set_output(1, ValueType::tensor(DataType::INT32));
    return;
  }
  c.set_output(0, elem, Dims{c.resolve((*ids)[0]), c.resolve((*ids)[1]), hidden});
  if (c.has_output(1)) c.set_output(1, DataType::INT32, Dims{c.resolve((*ids)[0])});
}

/// SampleOp (X): ONNX Runtime's example operator; Y is X.
inline void rule_sample_op(InferContext& c) {
  require_inputs(c, 1, 1);
  like_x(c);
}


// ---- Operators ONNX Runtime has only CUDA kernels for (optimizer fusions of GPU models) ----
// Sized as ONNX Runtime's own shape inference sizes them: tests/infer/newops checks each through
// its loader (verify_newops.py's load probes), which runs that inference before it looks for a
// kernel.

/// GemmFastGelu (X, W, [bias]): FastGelu(X W + bias), MatMul's shape.
inline void rule_gemm_fast_gelu(InferContext& c) {
  require_inputs(c, 2, 3);
  linalg_detail::matmul_out(c, 0, 1, c.input_elem(0));
}

/// BiasSoftmax (data, bias) and the dropouts (BiasDropout: data, bias, [residual], [ratio],
/// [training_mode]; BitmaskDropout: data, [ratio], [training_mode]): the output has data's shape;
/// BiasDropout's mask is bool in data's shape, BitmaskDropout's bit-packed mask is left open.
inline void rule_bias_softmax(InferContext& c) {
  require_inputs(c, 2, 2);
  (void)c.require_int("is_inner_broadcast");
  like_x(c);
}
inline void rule_bias_dropout(InferContext& c) {
  require_inputs(c, 2, 5);
  like_x(c);
  if (c.has_output(1)) c.set_output(1, linalg_detail::like_input(c, 0, DataType::BOOL));
}
inline void rule_bitmask_dropout(InferContext& c) {
  require_inputs(c, 1, 3);
  like_x(c);
  if (c.has_output(1)) c.set_output(1, ValueType::tensor(DataType::UINT32));
}

/// TorchEmbedding (weight [N, M], indices, [padding_idx], [scale_grad_by_freq]): indices' shape
/// followed by M, in weight's type.
inline void rule_torch_embedding(InferContext& c) {
  require_inputs(c, 2, 4);
  const DataType elem = c.input_elem(0);
  const Dims* w = c.input_shape(0);
  const Dims* i = c.input_shape(1);
  if (w && w->size() != 2) c.fail("weight must be 2-D, got rank " + std::to_string(w->size()));
  if (!i) return c.set_output(0, ValueType::tensor(elem));
  Dims out = shape_detail::resolved(c, *i);
  out.push_back(w ? c.resolve((*w)[1]) : c.fresh());
  c.set_output(0, elem, std::move(out));
}

/// RelativePositionBias (bias_table [buckets, heads], query_length, key_length): T5's position
/// bias [1, heads, query_length, key_length], the lengths being the values of int64 scalars.
inline void rule_relative_position_bias(InferContext& c) {
  require_inputs(c, 3, 3);
  (void)c.require_int("max_distance");
  const DataType elem = c.input_elem(0);
  const Dims* t = c.input_shape(0);
  if (t && t->size() != 2) c.fail("bias_table must be 2-D, got rank " + std::to_string(t->size()));
  const auto q = shape_detail::scalar_value(c, 1), k = shape_detail::scalar_value(c, 2);
  for (const auto& v : {q, k})
    if (const auto n = v ? v->const_value() : std::nullopt; n && *n < 0)
      c.fail("query_length and key_length must not be negative, got " + std::to_string(*n));
  c.set_output(0, elem, Dims{DimExpr(1), t ? c.resolve((*t)[1]) : c.fresh(), q ? *q : c.fresh(), k ? *k : c.fresh()});
}

/// GatedRelativePositionBias (query_layer [B, S, H*D] or [tokens, H*D], query_bias, rel_pos
/// [1, H, S, S], weight, bias, eco_a, [token_offset [B, S]]): WavLM's gated bias [B, H, S, S].
inline void rule_gated_relative_position_bias(InferContext& c) {
  require_inputs(c, 6, 7);
  const std::int64_t heads = c.require_int("num_heads");
  if (heads <= 0) c.fail("num_heads must be positive");
  const DataType elem = c.input_elem(0);
  const Dims* q = c.input_shape(0);
  const Dims* off = c.has_input(6) ? c.input_shape(6) : nullptr;
  if (q && q->size() != 3 && q->size() != 2) c.fail("query_layer must be 3-D or 2-D, got rank " + std::to_string(q->size()));
  if (off && off->size() != 2) c.fail("token_offset must be 2-D, got rank " + std::to_string(off->size()));
  std::optional<DimExpr> B, S;
  if (q && q->size() == 3) B = c.resolve((*q)[0]), S = c.resolve((*q)[1]);
  else if (off) B = c.resolve((*off)[0]), S = c.resolve((*off)[1]);
  if (!B) return c.set_output(0, ValueType::tensor(elem));
  c.set_output(0, elem, Dims{*B, DimExpr(heads), *S, *S});
}

/// RemovePadding (input [B, S, H], sequence_token_count [B]): the packed tokens [T, H] with T
/// from the data, token_offset [B, S], cumulated_seq_len [B+1] and max_seq_len [1], int32.
inline void rule_remove_padding(InferContext& c) {
  require_inputs(c, 2, 2);
  const DataType elem = c.input_elem(0);
  const Dims* x = c.input_shape(0);
  if (x && x->size() != 3) c.fail("input must be 3-D, got rank " + std::to_string(x->size()));
  if (!x) {
    c.set_output(0, ValueType::tensor(elem));
    for (std::size_t o = 1; o < 4; ++o)
      if (c.has_output(o)) c.set_output(o, ValueType::tensor(DataType::INT32));
    return;
  }
  const DimExpr B = c.resolve((*x)[0]), S = c.resolve((*x)[1]);
  c.set_output(0, elem, Dims{c.fresh(), c.resolve((*x)[2])});
  if (c.has_output(1)) c.set_output(1, DataType::INT32, Dims{B, S});
  if (c.has_output(2)) c.set_output(2, DataType::INT32, Dims{c.resolve(B + DimExpr(1))});
  if (c.has_output(3)) c.set_output(3, DataType::INT32, Dims{DimExpr(1)});
}

/// RestorePadding (input [T, H], token_offset [B, S]): [B, S, H].
inline void rule_restore_padding(InferContext& c) {
  require_inputs(c, 2, 2);
  const DataType elem = c.input_elem(0);
  const Dims* x = c.input_shape(0);
  const Dims* off = c.input_shape(1);
  if (x && x->size() != 2) c.fail("input must be 2-D, got rank " + std::to_string(x->size()));
  if (off && off->size() != 2) c.fail("token_offset must be 2-D, got rank " + std::to_string(off->size()));
  if (!x || !off) return c.set_output(0, ValueType::tensor(elem));
  c.set_output(0, elem, Dims{c.resolve((*off)[0]), c.resolve((*off)[1]), c.resolve((*x)[1])});
}

/// NhwcConv (X [N, H, W, C] channels last, W [M, C/group, kH, kW], [B]): Conv's arithmetic on
/// the spatial axes, the output [N, H', W', M] channels last too.
inline void rule_nhwc_conv(InferContext& c) {
  require_inputs(c, 2, 3);
  const DataType elem = c.input_elem(0);
  auto xs = spatial_detail::shape_of(c, 0);
  if (xs && xs->size() < 3) c.fail("X must have rank 3 or more, got " + std::to_string(xs->size()));
  if (xs) std::rotate(xs->begin() + 1, xs->end() - 1, xs->end());  // to NCHW
  auto out = spatial_detail::conv_dims(c, xs, spatial_detail::shape_of(c, 1), 2, false);
  if (!out) return c.set_output(0, ValueType::tensor(elem));
  std::rotate(out->begin() + 1, out->begin() + 2, out->end());  // back to NHWC
  c.set_output(0, elem, std::move(*out));
}

/// LongformerAttention (input [B, S, hidden], weight, bias, mask, global_weight, global_bias,
/// global): the input's shape.
inline void rule_longformer_attention(InferContext& c) {
  require_inputs(c, 7, 7);
  (void)c.require_int("num_heads");
  (void)c.require_int("window");
  if (auto r = c.input_rank(0); r && *r != 3) c.fail("input must be 3-D, got rank " + std::to_string(*r));
  like_x(c);
}

/// PackedAttention (input [T, in_hidden], weights [in_hidden, h + h + v], bias, token_offset,
/// cumulative_sequence_length, [attention_bias]): [T, v], v from qkv_hidden_sizes or a third
/// of the weights' width.
inline void rule_packed_attention(InferContext& c) {
  require_inputs(c, 5, 6);
  (void)c.require_int("num_heads");
  const DataType elem = c.input_elem(0);
  const Dims* x = c.input_shape(0);
  const Dims* w = c.input_shape(1);
  if (x && x->size() != 2) c.fail("input must be 2-D, got rank " + std::to_string(x->size()));
  if (w && w->size() != 2) c.fail("weights must be 2-D, got rank " + std::to_string(w->size()));
  if (!x) return c.set_output(0, ValueType::tensor(elem));
  std::optional<DimExpr> v;
  if (const auto sizes = c.attr_ints("qkv_hidden_sizes"); sizes && !sizes->empty()) {
    if (sizes->size() != 3) c.fail("qkv_hidden_sizes must have 3 values");
    v = DimExpr((*sizes)[2]);
  } else if (w) {
    if (const auto k = c.resolve((*w)[1]).const_value(); k && *k % 3 == 0) v = DimExpr(*k / 3);
  }
  c.set_output(0, elem, Dims{c.resolve((*x)[0]), v ? *v : c.fresh()});
}

/// PackedMultiHeadAttention (query [T, hidden] or packed QKV [T, heads, 3, head], [key],
/// [value [T, v]], [bias], token_offset, cumulative_sequence_length, [attention_bias]): [T, v],
/// v = heads * head for packed QKV, else the value's width.
inline void rule_packed_multi_head_attention(InferContext& c) {
  require_inputs(c, 1, 7);
  if (c.input_count() < 6 || !c.has_input(4) || !c.has_input(5))
    c.fail("token_offset and cumulative_sequence_length (inputs 4 and 5) are required");
  const std::int64_t heads = c.require_int("num_heads");
  const DataType elem = c.input_elem(0);
  const Dims* q = c.input_shape(0);
  if (q && q->size() != 2 && q->size() != 4) c.fail("query must be 2-D or 4-D, got rank " + std::to_string(q->size()));
  if (!q) return c.set_output(0, ValueType::tensor(elem));
  DimExpr v = c.fresh();
  if (q->size() == 4) {
    c.unify((*q)[1], DimExpr(heads), "packed QKV heads vs num_heads");
    c.unify((*q)[2], DimExpr(3), "packed QKV's third dim");
    v = c.resolve(DimExpr(heads) * (*q)[3]);
  } else if (const Dims* val = c.has_input(2) ? c.input_shape(2) : nullptr; val && val->size() == 2) {
    v = c.resolve((*val)[1]);
  }
  c.set_output(0, elem, Dims{c.resolve((*q)[0]), v});
}

// ---- ONNX Runtime's own versions of standard operators, and small fused operators ----

/// ExpandDims (X, axis): X with a 1 inserted at `axis`, an int32 scalar (or one-element) input
/// in [-(r+1), r]. Unknown axis: rank r+1 with undetermined dims.
inline void rule_expand_dims(InferContext& c) {
  require_inputs(c, 2, 2);
  const DataType elem = c.input_elem(0);
  if (auto r = c.input_rank(1); r && *r > 1) c.fail("axis must be a scalar, got rank " + std::to_string(*r));
  const Dims* x = c.input_shape(0);
  if (!x) return c.set_output(0, ValueType::tensor(elem));
  const auto r = static_cast<std::int64_t>(x->size());
  const auto axis = shape_detail::scalar_value(c, 1);
  const auto k = axis ? axis->const_value() : std::nullopt;
  if (!k) return c.set_output(0, elem, shape_detail::fresh_dims(c, r + 1));
  const auto at = static_cast<std::size_t>(c.normalize_axis(*k, r + 1));
  Dims out = shape_detail::resolved(c, *x);
  out.insert(out.begin() + static_cast<std::ptrdiff_t>(at), DimExpr(1));
  c.set_output(0, elem, std::move(out));
}

/// Inverse (X [..., M, M]): X's type and shape.
inline void rule_inverse(InferContext& c) {
  require_inputs(c, 1, 1);
  if (const Dims* x = c.input_shape(0)) {
    if (x->size() < 2) c.fail("input must have rank >= 2, got " + std::to_string(x->size()));
    c.unify((*x)[x->size() - 2], x->back(), "rows vs columns of the matrices");
  }
  like_x(c);
}

/// CDist (A [M, K], B [N, K]): the pairwise distances [M, N].
inline void rule_cdist(InferContext& c) {
  require_inputs(c, 2, 2);
  const DataType elem = c.input_elem(0);
  const Dims* a = c.input_shape(0);
  const Dims* b = c.input_shape(1);
  for (const Dims* d : {a, b})
    if (d && d->size() != 2) c.fail("A and B must be 2-D, got rank " + std::to_string(d->size()));
  if (a && b) c.unify((*a)[1], (*b)[1], "columns of A vs columns of B");
  c.set_output(0, elem, Dims{a ? c.resolve((*a)[0]) : c.fresh(), b ? c.resolve((*b)[0]) : c.fresh()});
}

/// FusedGemm (A, B, [C]): Gemm with an activation; C optional as in Gemm-11.
inline void rule_fused_gemm(InferContext& c) {
  require_inputs(c, 2, 3);
  linalg_detail::gemm_out(c, false);
}

/// MatMulInteger16 (A, B): MatMul of int16 matrices into int32 (ONNX Runtime's type inference
/// gives int32 whatever the inputs; only int16 x int16 has a kernel, so only then is the type
/// claimed).
inline void rule_matmul_integer16(InferContext& c) {
  require_inputs(c, 2, 2);
  const bool int16 = c.input_elem(0) == DataType::INT16 || c.input_elem(1) == DataType::INT16;
  linalg_detail::matmul_out(c, 0, 1, int16 ? DataType::INT32 : DataType::UNDEFINED);
}

/// MatMulBnb4 (A, B, absmax): A [..., K] times the N x K matrix packed in B: [..., N]; with
/// transB = 0, A [..., N] gives [..., K].
inline void rule_matmul_bnb4(InferContext& c) {
  require_inputs(c, 3, 3);
  const std::int64_t K = c.require_int("K");
  const std::int64_t N = c.require_int("N");
  if (K <= 0 || N <= 0) c.fail("K and N must be positive");
  const bool tb = c.attr_int("transB", 1) != 0;
  const DataType elem = c.input_elem(0);
  const Dims* a = c.input_shape(0);
  if (!a) return c.set_output(0, ValueType::tensor(elem));
  if (a->empty()) c.fail("A must have rank >= 1");
  c.unify(a->back(), DimExpr(tb ? K : N), tb ? "A's last dimension vs K" : "A's last dimension vs N");
  Dims out = shape_detail::resolved(c, *a);
  out.back() = DimExpr(tb ? N : K);
  c.set_output(0, elem, std::move(out));
}

/// com.microsoft QLinearConv (x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp, [B]): Conv's
/// output in y_zp's type; with channels_last, x and y are NHWC (w stays [M, C/group, k...]).
inline void rule_ms_qlinear_conv(InferContext& c) {
  require_inputs(c, 8, 9);
  const DataType elem = c.input_elem(7);
  auto xs = spatial_detail::shape_of(c, 0);
  const bool last = c.attr_int("channels_last", 0) != 0;
  if (last && xs) {
    if (xs->size() < 3) c.fail("x must have rank >= 3, got " + std::to_string(xs->size()));
    std::rotate(xs->begin() + 1, xs->end() - 1, xs->end());  // NH..C -> NCH..
  }
  auto out = spatial_detail::conv_dims(c, xs, spatial_detail::shape_of(c, 3), 8, false);
  if (!out) return c.set_output(0, ValueType::tensor(elem));
  if (last) std::rotate(out->begin() + 1, out->begin() + 2, out->end());  // NCH.. -> NH..C
  c.set_output(0, elem, std::move(*out));
}

/// QLinearWhere (condition, X, x_scale, x_zp, Y, y_scale, y_zp, z_scale, z_zp): condition, X
/// and Y broadcast, in z_zp's type.
inline void rule_qlinear_where(InferContext& c) {
  require_inputs(c, 9, 9);
  const DataType elem = c.input_elem(8);
  const Dims* s[] = {c.input_shape(0), c.input_shape(1), c.input_shape(4)};
  if (!s[0] || !s[1] || !s[2]) return c.set_output(0, ValueType::tensor(elem));
  c.set_output(0, elem, c.broadcast(std::span<const Dims* const>(s)));
}

/// QLinearReduceMean (data, data_scale, [data_zp], reduced_scale, [reduced_zp]): ReduceMean
/// over the required `axes` (keepdims required), in data's type.
inline void rule_qlinear_reduce_mean(InferContext& c) {
  require_inputs(c, 4, 5);
  const DataType elem = c.input_elem(0);
  const auto axes = c.attr_ints("axes");
  if (!axes) c.fail("missing required attribute 'axes'");
  const bool keep = c.require_int("keepdims") != 0;
  const Dims* x = c.input_shape(0);
  if (!x) return c.set_output(0, ValueType::tensor(elem));
  const auto r = static_cast<std::int64_t>(x->size());
  std::vector<bool> reduced(x->size(), axes->empty());
  for (auto a : *axes) reduced[static_cast<std::size_t>(c.normalize_axis(a, r, "axes"))] = true;
  Dims out;
  for (std::size_t i = 0; i < x->size(); ++i)
    if (!reduced[i]) out.push_back(c.resolve((*x)[i]));
    else if (keep) out.emplace_back(1);
  c.set_output(0, elem, std::move(out));
}

/// MoE, QMoE (input, router_probs, expert weights...): the input's type and shape; the experts'
/// weight layouts differ between ONNX Runtime versions and are not checked.
inline void rule_moe(InferContext& c) {
  // The second expert weights are input 4 of MoE and 5 of QMoE (after fc1's scales and bias).
  const std::size_t fc2 = c.node().op_type == "QMoE" ? 5 : 4;
  if (c.input_count() <= fc2) c.fail("expects at least " + std::to_string(fc2 + 1) + " inputs");
  for (std::size_t i : {std::size_t{0}, std::size_t{1}, std::size_t{2}, fc2})
    if (!c.has_input(i)) c.fail("required input " + std::to_string(i) + " is missing");
  if (auto r = c.input_rank(0); r && *r != 2 && *r != 3) c.fail("input must be 2-D or 3-D, got rank " + std::to_string(*r));
  like_x(c);
}

/// com.microsoft Unique (x): x is 1-D; y and counts have the (data-dependent) number of unique
/// values, idx has x's length.
inline void rule_ms_unique(InferContext& c) {
  require_inputs(c, 1, 1);
  const Dims* x = c.input_shape(0);
  if (x && x->size() != 1) c.fail("x must be 1-D, got rank " + std::to_string(x->size()));
  const DimExpr u = c.fresh();
  c.set_output(0, c.input_elem(0), Dims{u});
  if (c.has_output(1)) c.set_output(1, DataType::INT64, Dims{x ? c.resolve((*x)[0]) : c.fresh()});
  if (c.has_output(2)) c.set_output(2, DataType::INT64, Dims{u});
}

/// com.microsoft GridSample (X [N, C, H, W], grid [N, Ho, Wo, 2]): [N, C, Ho, Wo] in X's type.
inline void rule_ms_grid_sample(InferContext& c) {
  require_inputs(c, 2, 2);
  for (std::size_t i = 0; i < 2; ++i)
    if (auto r = c.input_rank(i); r && *r != 4) c.fail("X and grid must be 4-D, got rank " + std::to_string(*r));
  spatial_detail::grid_sample(c);
}

/// CropAndResize (X [N, C, H, W], rois [R, 4], batch_indices [R], crop_size [2]):
/// [R, C, crop_h, crop_w], the crop size being crop_size's contents.
inline void rule_crop_and_resize(InferContext& c) {
  require_inputs(c, 4, 4);
  const DataType elem = c.input_elem(0);
  const Dims* x = c.input_shape(0);
  const Dims* rois = c.input_shape(1);
  const Dims* bi = c.input_shape(2);
  if (x && x->size() != 4) c.fail("X must be 4-D, got rank " + std::to_string(x->size()));
  if (rois && rois->size() != 2) c.fail("rois must be 2-D, got rank " + std::to_string(rois->size()));
  if (bi && bi->size() != 1) c.fail("batch_indices must be 1-D, got rank " + std::to_string(bi->size()));
  if (rois) c.unify((*rois)[1], DimExpr(4), "rois' second dimension");
  if (rois && bi) c.unify((*rois)[0], (*bi)[0], "rois vs batch_indices");
  const Dims* size = c.input_value(3);
  if (size && size->size() != 2) c.fail("crop_size must hold 2 values");
  DimExpr r = rois ? c.resolve((*rois)[0]) : bi ? c.resolve((*bi)[0]) : c.fresh();
  c.set_output(0, elem,
               Dims{r, x ? c.resolve((*x)[1]) : c.fresh(), size ? c.resolve((*size)[0]) : c.fresh(),
                    size ? c.resolve((*size)[1]) : c.fresh()});
}

/// MaxpoolWithMask (X, M): MaxPool of X (NCHW, no dilations).
inline void rule_maxpool_with_mask(InferContext& c) {
  require_inputs(c, 2, 2);
  pool_layout(c, false, false);
}

/// UnfoldTensor (input): the windows of `size` along `dim` (default -1) every `step` (default 1):
/// that dim becomes floor((d - size)/step) + 1 and a last dim of `size` is appended.
inline void rule_unfold_tensor(InferContext& c) {
  require_inputs(c, 1, 1);
  const std::int64_t size = c.require_int("size"), step = c.attr_int("step", 1);
  if (size <= 0 || step <= 0) c.fail("size and step must be positive");
  const DataType elem = c.input_elem(0);
  const Dims* x = c.input_shape(0);
  if (!x) return c.set_output(0, ValueType::tensor(elem));
  const auto d = static_cast<std::size_t>(c.normalize_axis(c.attr_int("dim", -1), static_cast<std::int64_t>(x->size()), "dim"));
  Dims out = shape_detail::resolved(c, *x);
  const DimExpr left = out[d] - DimExpr(size);
  if (auto k = left.const_value(); k && *k < 0) c.fail("size is larger than the unfolded dimension");
  out[d] = c.resolve(floor_div(left, DimExpr(step)) + DimExpr(1));
  out.emplace_back(size);
  c.set_output(0, elem, std::move(out));
}

/// WordConvEmbedding (Sequence [words, chars], W [filters, 1, window, char_emb], B, C): one
/// vector of W's filter count per word, [Sequence dim 0, filters], in C's type.
inline void rule_word_conv_embedding(InferContext& c) {
  require_inputs(c, 4, 4);
  const DataType elem = c.input_elem(3);
  const Dims* seq = c.input_shape(0);
  const Dims* w = c.input_shape(1);
  if (seq && seq->size() < 2) c.fail("Sequence must have rank >= 2, got " + std::to_string(seq->size()));
  if (w && w->size() != 4) c.fail("W must be 4-D, got rank " + std::to_string(w->size()));
  c.set_output(0, elem, Dims{seq ? c.resolve((*seq)[0]) : c.fresh(), w ? c.resolve((*w)[0]) : c.fresh()});
}

/// MurmurHash3 (X): X's shape, uint32 (int32 with positive = 0).
inline void rule_murmur_hash3(InferContext& c) {
  require_inputs(c, 1, 1);
  c.set_output(0, linalg_detail::like_input(c, 0, c.attr_int("positive", 1) != 0 ? DataType::UINT32 : DataType::INT32));
}

/// NGramRepeatBlock (input_ids [B, S], scores [B, V]): the scores' type and shape.
inline void rule_ngram_repeat_block(InferContext& c) {
  require_inputs(c, 2, 2);
  (void)c.require_int("ngram_size");
  const Dims* ids = c.input_shape(0);
  const Dims* sc = c.input_shape(1);
  if (ids && ids->size() != 2) c.fail("input_ids must be 2-D, got rank " + std::to_string(ids->size()));
  if (sc && sc->size() != 2) c.fail("scores must be 2-D, got rank " + std::to_string(sc->size()));
  if (ids && sc) c.unify((*ids)[0], (*sc)[0], "batch of input_ids vs scores");
  c.set_output(0, linalg_detail::like_input(c, 1, c.input_elem(1)));
}

/// com.microsoft Range (start, limit, [delta]): Range with delta 1 by default.
inline void rule_ms_range(InferContext& c) { shape_detail::range_rule(c, true); }

// ---- operators of ONNX Runtime 1.30's CPU kernels, checked with its runs -----------------------
//
// Each requirement below is one ONNX Runtime refuses a model or a run for (tests/infer/newops has
// a case per rule); where a kernel leaves a size to the data, it stays unknown.

/// LinearAttentionGate (a, dt_bias, decay_scale, [b]), the decay and beta gates of Gated DeltaNet
/// layers: decay, and beta (which needs b), have a's type and shape. a has rank 1 or more and H
/// heads in its last dim; the float dt_bias and decay_scale hold H values (a 1-D one is [H]); b
/// has a's shape.
inline void rule_ms_linear_attention_gate(InferContext& c) {
  require_inputs(c, 3, 4);
  const Dims* a = c.input_shape(0);
  if (a && a->empty()) c.fail("a must have rank 1 or more");
  for (const std::size_t i : {std::size_t{1}, std::size_t{2}})
    if (const Dims* p = c.input_shape(i); p && p->size() == 1 && a && !a->empty())
      c.unify((*p)[0], a->back(), i == 1 ? "dt_bias size vs heads (a's last dim)" : "decay_scale size vs heads (a's last dim)");
  if (c.has_input(3)) unify_same_shape(c, c.input_shape(3), a, "b");
  if (c.has_output(1) && !c.has_input(3)) c.fail("the beta output needs the b input");
  like_x(c, 0);
  if (c.has_output(1)) like_x(c, 1);
}

/// EngramGate (key, query, value, key_norm_scale, query_norm_scale, [conv_norm_scale]): key and
/// query [B, S, hc_mult, hidden], value [B, S, hidden], the scales [hc_mult, hidden]; output (and
/// gated_value_normed, which needs conv_norm_scale) [B, S, hc_mult, hidden] in the key's type.
/// ONNX Runtime 1.30 has the 5-input, 1-output form; the later documentation adds the sixth input
/// and second output.
inline void rule_ms_engram_gate(InferContext& c) {
  require_inputs(c, 5, 6);
  const Dims* k = c.input_shape(0);
  const Dims* q = c.input_shape(1);
  const Dims* v = c.input_shape(2);
  if (k && k->size() != 4) c.fail("key must be 4-D [batch, sequence, hc_mult, hidden], got rank " + std::to_string(k->size()));
  if (q && q->size() != 4) c.fail("query must be 4-D [batch, sequence, hc_mult, hidden], got rank " + std::to_string(q->size()));
  if (v && v->size() != 3) c.fail("value must be 3-D [batch, sequence, hidden], got rank " + std::to_string(v->size()));
  unify_same_shape(c, q, k, "query");
  if (k && v) {
    c.unify((*v)[0], (*k)[0], "value batch vs key batch");
    c.unify((*v)[1], (*k)[1], "value sequence vs key sequence");
    c.unify((*v)[2], (*k)[3], "value hidden size vs key hidden size");
  }
  for (std::size_t i = 3; i < 6; ++i) {
    if (!c.has_input(i)) continue;
    const Dims* s = c.input_shape(i);
    if (!s) continue;
    if (s->size() != 2)
      c.fail("input " + std::to_string(i) + " (a norm scale) must be 2-D [hc_mult, hidden], got rank " + std::to_string(s->size()));
    if (k) {
      c.unify((*s)[0], (*k)[2], "norm scale vs key hc_mult");
      c.unify((*s)[1], (*k)[3], "norm scale vs key hidden size");
    }
  }
  if (c.has_output(1) && !c.has_input(5)) c.fail("the gated_value_normed output needs the conv_norm_scale input");
  like_x(c, 0);
  if (c.has_output(1)) like_x(c, 1);
}

/// GatedAdd (X, Y, gate): X + Y * gate. Y has X's shape; gate has X's rank, X's dims and 1 last
/// (no broadcasting). The output has X's type and shape.
inline void rule_ms_gated_add(InferContext& c) {
  require_inputs(c, 3, 3);
  const Dims* x = c.input_shape(0);
  unify_same_shape(c, c.input_shape(1), x, "Y");
  if (const Dims* g = c.input_shape(2); g && x) {
    if (g->size() != x->size())
      c.fail("gate must have X's rank: " + std::to_string(g->size()) + " vs " + std::to_string(x->size()));
    for (std::size_t i = 0; i + 1 < x->size(); ++i) c.unify((*g)[i], (*x)[i], "gate vs X");
    if (!g->empty()) c.unify(g->back(), DimExpr(1), "gate's last dim");
  }
  like_x(c);
}

/// NGramHashMapping (input_ids [B, S], multipliers, vocab_sizes, [past_ids], [head_offsets],
/// [eos_token_id], [segment_ids]): hash_ids [B, S, (max_ngram_size - 1) * n_head_per_ngram] and
/// present_ids [B, max_ngram_size - 1], both in input_ids' type. vocab_sizes and head_offsets hold
/// one value per head, past_ids is [B, max_ngram_size - 1] and segment_ids [B, S]. (multipliers'
/// length is left alone: ONNX Runtime 1.30 wants exactly max_ngram_size values, its later
/// documentation at least that many.)
inline void rule_ms_ngram_hash_mapping(InferContext& c) {
  require_inputs(c, 3, 7);
  const std::int64_t n = c.require_int("max_ngram_size");
  const std::int64_t heads = c.require_int("n_head_per_ngram");
  (void)c.require_int("pad_id");
  if (n < 2) c.fail("max_ngram_size must be at least 2, got " + std::to_string(n));
  if (heads <= 0) c.fail("n_head_per_ngram must be positive, got " + std::to_string(heads));
  const DimExpr history(n - 1);
  const DimExpr all_heads = c.resolve(history * DimExpr(heads));  // overflow-checked
  const DataType t = c.input_elem(0);
  const Dims* ids = c.input_shape(0);
  if (ids && ids->size() != 2) c.fail("input_ids must be 2-D [batch, sequence], got rank " + std::to_string(ids->size()));
  for (const std::size_t i : {std::size_t{2}, std::size_t{4}})
    if (c.has_input(i))
      if (const Dims* d = c.input_shape(i)) {
        if (d->size() != 1)
          c.fail("input " + std::to_string(i) + " must be 1-D (one value per head), got rank " + std::to_string(d->size()));
        c.unify((*d)[0], all_heads, "values per head vs (max_ngram_size - 1) * n_head_per_ngram");
      }
  const DimExpr B = ids ? c.resolve((*ids)[0]) : c.fresh();
  if (c.has_input(3))
    if (const Dims* p = c.input_shape(3)) {
      if (p->size() != 2) c.fail("past_ids must be 2-D [batch, max_ngram_size - 1], got rank " + std::to_string(p->size()));
      c.unify((*p)[0], B, "past_ids batch vs input_ids batch");
      c.unify((*p)[1], history, "past_ids length vs max_ngram_size - 1");
    }
  if (c.has_input(6)) unify_same_shape(c, c.input_shape(6), ids, "segment_ids");
  if (ids)
    c.set_output(0, t, Dims{c.resolve((*ids)[0]), c.resolve((*ids)[1]), all_heads});
  else
    c.set_output(0, t, Dims{c.fresh(), c.fresh(), all_heads});
  if (c.has_output(1)) c.set_output(1, t, Dims{c.resolve(B), history});
}

/// DynamicTimeWarping (cost matrix [M, N] or [1, M, N]): the int32 path [2, x] with
/// max(M, N) <= x < M + N, so x is known when M or N is 1.
inline void rule_ms_dynamic_time_warping(InferContext& c) {
  require_inputs(c, 1, 1);
  const Dims* d = c.input_shape(0);
  DimExpr len = c.fresh();
  if (d) {
    if (d->size() != 2 && d->size() != 3) c.fail("input must be [M, N] or [1, M, N], got rank " + std::to_string(d->size()));
    if (d->size() == 3) c.unify((*d)[0], DimExpr(1), "the first dim of a 3-D cost matrix");
    const DimExpr m = c.resolve((*d)[d->size() - 2]), n = c.resolve((*d)[d->size() - 1]);
    if (m.const_value() == 1) len = n;
    else if (n.const_value() == 1) len = m;
  }
  c.set_output(0, DataType::INT32, Dims{DimExpr(2), len});
}

/// Tokenizer (X: strings [C] or [N, C]): [C, D] or [N, C, D] with D the most tokens of one string
/// (plus 2 with mark), a size of the data. An empty input keeps its own rank ([0] gives [0],
/// [N, 0] gives [N, 0]), so the rank is only claimed when every input dim is a known positive size.
inline void rule_ms_tokenizer(InferContext& c) {
  require_inputs(c, 1, 1);
  (void)c.require_int("mark");
  (void)c.require_int("mincharnum");
  if (!c.has_attr("pad_value")) c.fail("missing required attribute 'pad_value'");
  const Dims* x = c.input_shape(0);
  if (x && x->size() != 1 && x->size() != 2) c.fail("input must be [C] or [N, C], got rank " + std::to_string(x->size()));
  bool nonempty = x != nullptr;
  if (x)
    for (const auto& d : *x)
      if (const auto v = c.resolve(d).const_value(); !v || *v <= 0) nonempty = false;
  if (!nonempty) return c.set_output(0, ValueType::tensor(DataType::STRING));
  Dims out;
  for (const auto& d : *x) out.push_back(c.resolve(d));
  out.push_back(c.fresh());
  c.set_output(0, DataType::STRING, std::move(out));
}

/// BifurcationDetector (src_tokens [L], cur_tokens, prev_suffix_match_idx, [pred_tokens]) of
/// aggressive decoding: tokens, 1-D of a length the data decide, and suffix_match_idx in
/// prev_suffix_match_idx's shape; all int64.
inline void rule_ms_bifurcation_detector(InferContext& c) {
  require_inputs(c, 3, 4);
  if (const Dims* s = c.input_shape(0); s && s->size() != 1) c.fail("src_tokens must be 1-D, got rank " + std::to_string(s->size()));
  if (const Dims* t = c.input_shape(1); t && t->size() == 1)
    c.set_output(0, DataType::INT64, Dims{c.fresh()});
  else
    c.set_output(0, ValueType::tensor(DataType::INT64));
  if (c.has_output(1)) c.set_output(1, linalg_detail::like_input(c, 2, DataType::INT64));
}

/// ConvTransposeWithDynamicPads (X, W, Pads, [B]): ConvTranspose with the pads read from the Pads
/// input (see conv_transpose_common). ONNX Runtime's schema allows leaving Pads out, but its kernel
/// then reads past its inputs (it aborts): Pads is required here.
inline void rule_ms_conv_transpose_dynamic_pads(InferContext& c) {
  require_inputs(c, 3, 4);
  spatial_detail::conv_transpose_common(c, true);
}

/// com.microsoft Pad (data, pads, [value]): pads is [2r] or [1, 2r] (begins, then ends).
inline void rule_ms_pad(InferContext& c) {
  require_inputs(c, 2, 3);
  const DataType elem = c.input_elem(0);
  const std::string mode = c.attr_string("mode", "constant");
  if (mode != "constant" && mode != "reflect" && mode != "edge") c.fail("unknown mode '" + mode + "'");
  const Dims* x = c.input_shape(0);
  if (auto r = c.input_rank(1); r && *r != 1 && !(*r == 2 && c.input_shape(1) && c.resolve((*c.input_shape(1))[0]).is(1)))
    c.fail("pads must be [2*rank] or [1, 2*rank]");
  if (!x) return c.set_output(0, ValueType::tensor(elem));
  const std::size_t r = x->size();
  Dims consts;
  const Dims* p = c.input_value_flat(1);
  if (!p) {
    // A constant [1, 2r] (the engine tracks the contents of vectors only).
    const Tensor* t = c.input_constant(1);
    if (t && t->data_type == DataType::INT64 && t->element_count() == 2 * r && (!t->is_external() || t->data.is_loaded())) {
      try {
        for (std::size_t k = 0; k < 2 * r; ++k) consts.emplace_back(t->element<std::int64_t>(k));
        p = &consts;
      } catch (const Error&) {
      }
    }
  }
  if (!p) return c.set_output(0, elem, shape_detail::fresh_dims(c, static_cast<std::int64_t>(r)));
  if (p->size() != 2 * r)
    c.fail("pads has " + std::to_string(p->size()) + " values, expected " + std::to_string(2 * r));
  Dims out = shape_detail::resolved(c, *x);
  for (std::size_t i = 0; i < r; ++i) {
    out[i] = c.resolve(out[i] + (*p)[i] + (*p)[i + r]);
    if (auto k = out[i].const_value(); k && *k < 0) c.fail("padding makes a dimension negative");
  }
  c.set_output(0, elem, std::move(out));
}

// ---- CUDA-only operators (no CPU kernel in ONNX Runtime; shapes as its documentation states) ----

/// BiasAdd (X [N, S, C], bias [C], skip [N, S, C]): X's type and shape.
inline void rule_bias_add(InferContext& c) {
  require_inputs(c, 3, 3);
  if (auto r = c.input_rank(0); r && *r != 3) c.fail("X must be 3-D, got rank " + std::to_string(*r));
  unify_last_dim_param(c, 1, "bias");
  like_x(c);
}

/// BiasSplitGelu (X [N, S, D], bias [D]): [N, S, D/2].
inline void rule_bias_split_gelu(InferContext& c) {
  require_inputs(c, 2, 2);
  const DataType elem = c.input_elem(0);
  const Dims* x = c.input_shape(0);
  if (x && x->size() != 3) c.fail("X must be 3-D, got rank " + std::to_string(x->size()));
  unify_last_dim_param(c, 1, "bias");
  if (!x) return c.set_output(0, ValueType::tensor(elem));
  const DimExpr d = c.resolve((*x)[2]);
  if (auto k = d.const_value(); k && *k % 2 != 0) c.fail("the last dimension must be even");
  auto half = exact_div(d, DimExpr(2));
  c.set_output(0, elem, Dims{c.resolve((*x)[0]), c.resolve((*x)[1]), half ? *half : c.fresh()});
}

/// GroupNorm (X, gamma, beta), SkipGroupNorm (X, gamma, beta, skip, [bias]): Y (and SkipGroupNorm's
/// S) have X's type and shape; gamma and beta are [C], C last with channels_last (the default).
inline void rule_ms_group_norm(InferContext& c) {
  const bool skip = c.node().op_type == "SkipGroupNorm";
  require_inputs(c, skip ? 4 : 3, skip ? 5 : 3);
  const std::int64_t groups = c.require_int("groups");
  (void)c.require_int("activation");
  if (groups <= 0) c.fail("groups must be positive");
  const Dims* x = c.input_shape(0);
  if (x && x->size() != 4) c.fail("X must be 4-D, got rank " + std::to_string(x->size()));
  if (x) {
    const DimExpr ch = (*x)[c.attr_int("channels_last", 1) != 0 ? 3 : 1];
    for (std::size_t i : {std::size_t{1}, std::size_t{2}, std::size_t{4}})
      if (i < c.input_count() && c.has_input(i) && (i != 4 || skip))
        if (const Dims* p = c.input_shape(i)) {
          if (p->size() != 1) c.fail("gamma, beta and bias must be 1-D");
          c.unify((*p)[0], ch, "parameter size vs channels");
        }
  }
  like_x(c, 0);
  if (skip && c.has_output(1)) like_x(c, 1);
}

// ---- decoding attention ----

/// DecoderMaskedMultiHeadAttention (query, [key], [value], [mask_index], [attention_bias],
/// [past_key], [past_value], [past_sequence_length], [beam_width], [cache_indirection], [bias]):
/// one new token per sequence. output [B, 1, v_hidden]; present_key/value are the past buffers
/// (past_present_share_buffer); qk [B, heads, 1, total], total being the keys' length for cross
/// attention (4-D key) or past_sequence_length + 1, its element type not tied to the query's.
inline void rule_decoder_masked_mha(InferContext& c) {
  require_inputs(c, 1, 11);
  const std::int64_t heads = c.require_int("num_heads");
  if (heads <= 0 || heads > std::numeric_limits<std::int32_t>::max()) c.fail("num_heads must be positive");
  const DataType elem = c.input_elem(0);
  const Dims* q = c.input_shape(0);
  const Dims* k = c.has_input(1) ? c.input_shape(1) : nullptr;
  const Dims* v = c.input_count() > 2 && c.has_input(2) ? c.input_shape(2) : nullptr;
  if (q && q->size() != 3) c.fail("query must be 3-D, got rank " + std::to_string(q->size()));
  if (q) c.unify((*q)[1], DimExpr(1), "query's sequence length (one token)");
  const bool cross = k && k->size() == 4;
  if (k && k->size() != 3 && k->size() != 4) c.fail("key must be 3-D or 4-D, got rank " + std::to_string(k->size()));
  if (v && v->size() != 3 && v->size() != 4) c.fail("value must be 3-D or 4-D, got rank " + std::to_string(v->size()));
  if (k && v && k->size() != v->size()) c.fail("key and value must have the same rank");
  std::optional<DimExpr> v_hidden;
  if (v && v->size() == 3) v_hidden = c.resolve((*v)[2]);
  else if (v && v->size() == 4) v_hidden = c.resolve((*v)[1] * (*v)[3]);
  if (v && cross) c.unify((*v)[1], DimExpr(heads), "value's heads vs num_heads");
  if (k && cross) c.unify((*k)[1], DimExpr(heads), "key's heads vs num_heads");
  if (!q) c.set_output(0, ValueType::tensor(elem));
  else c.set_output(0, elem, Dims{c.resolve((*q)[0]), DimExpr(1), v_hidden ? *v_hidden : c.fresh()});
  const bool share = c.attr_int("past_present_share_buffer", 0) != 0;
  for (std::size_t o : {std::size_t{1}, std::size_t{2}}) {
    if (!c.has_output(o)) continue;
    const std::size_t past = o + 4;
    if (share && past < c.input_count() && c.has_input(past) && c.input_shape(past))
      c.set_output(o, elem, shape_detail::resolved(c, *c.input_shape(past)));
    else
      c.set_output(o, ValueType::tensor(elem));
  }
  if (c.has_output(3)) {
    std::optional<DimExpr> total;
    if (cross) {
      total = c.resolve((*k)[2]);
    } else if (c.input_count() > 7 && c.has_input(7)) {
      if (auto p = shape_detail::scalar_value(c, 7)) total = c.resolve(*p + DimExpr(1));
    }
    const DataType qk_elem = DataType::UNDEFINED;  // its own type parameter, float or float16
    if (!q) c.set_output(3, ValueType::tensor(qk_elem));
    else c.set_output(3, qk_elem, Dims{c.resolve((*q)[0]), DimExpr(heads), DimExpr(1), total ? *total : c.fresh()});
  }
}

/// SparseAttention (query, [key], [value], past_key, past_value, block_row_indices,
/// block_col_indices, total_sequence_length, key_total_sequence_lengths, [cos_cache],
/// [sin_cache]): output [B, S, num_heads*h], h being the caches' head size (or
/// query/num_heads when key and value are separate); present_key/value are the past buffers
/// (the CPU kernel requires them to be the same memory).
inline void rule_sparse_attention(InferContext& c) {
  if (c.input_count() < 9 || c.input_count() > 11)
    c.fail("expects 9 to 11 inputs, got " + std::to_string(c.input_count()));
  for (std::size_t i : {0u, 3u, 4u, 5u, 6u, 7u, 8u})
    if (!c.has_input(i)) c.fail("required input " + std::to_string(i) + " is missing");
  if (c.has_input(1) != c.has_input(2)) c.fail("key and value must be given together");
  const std::int64_t heads = c.require_int("num_heads"), kv_heads = c.require_int("kv_num_heads");
  (void)c.require_int("sparse_block_size");
  if (heads <= 0 || kv_heads <= 0 || heads > std::numeric_limits<std::int32_t>::max() ||
      kv_heads > std::numeric_limits<std::int32_t>::max())
    c.fail("num_heads and kv_num_heads must be positive");
  const DataType elem = c.input_elem(0);
  const Dims* q = c.input_shape(0);
  const Dims* pk = c.input_shape(3);
  const Dims* pv = c.input_shape(4);
  if (q && q->size() != 3) c.fail("query must be 3-D, got rank " + std::to_string(q->size()));
  for (const Dims* p : {pk, pv})
    if (p && p->size() != 4) c.fail("past_key and past_value must be 4-D, got rank " + std::to_string(p->size()));
  if (pk) c.unify((*pk)[1], DimExpr(kv_heads), "past_key's heads vs kv_num_heads");
  const bool packed = !c.has_input(1);
  std::optional<DimExpr> hidden;
  if (pk) hidden = c.resolve((*pk)[3] * DimExpr(heads));
  else if (q && !packed) hidden = c.resolve((*q)[2]);
  if (q && !packed && pk) c.unify((*q)[2], *hidden, "query's hidden size vs num_heads * head size");
  if (q && packed && pk)
    c.unify((*q)[2], (*pk)[3] * DimExpr(heads + 2 * kv_heads), "packed QKV size vs (num_heads + 2*kv_num_heads) * head size");
  if (!q) c.set_output(0, ValueType::tensor(elem));
  else c.set_output(0, elem, Dims{c.resolve((*q)[0]), c.resolve((*q)[1]), hidden ? *hidden : c.fresh()});
  for (std::size_t o : {std::size_t{1}, std::size_t{2}}) {
    if (!c.has_output(o)) continue;
    const Dims* p = o == 1 ? pk : pv;
    if (p) c.set_output(o, c.input_elem(o + 2), shape_detail::resolved(c, *p));
    else c.set_output(o, ValueType::tensor(c.input_elem(o + 2)));
  }
}

}  // namespace contrib_detail

/// The generation loops of ONNX Runtime's transformers tools: BeamSearch, WhisperBeamSearch,
/// GreedySearch and Sampling run a decoder subgraph (and an encoder one) until max_length. Their
/// outputs are sized by the batch (input_ids' first dim) and by the values of the scalar-like
/// inputs max_length, num_beams and num_return_sequences ([1] each), which exported models usually
/// leave to graph inputs: such a size is then a fresh symbol. The subgraphs are not inferred:
/// ONNX Runtime feeds them under its own calling convention, not from values of this graph.
namespace generation_detail {

/// The single value of input i ([1]-shaped int32) when known, else a fresh symbol.
inline DimExpr scalar_input(InferContext& c, std::size_t i, std::string_view what) {
  if (const Dims* d = c.input_shape(i)) {
    if (d->size() != 1) c.fail(std::string(what) + " must have shape [1], got rank " + std::to_string(d->size()));
    c.unify((*d)[0], DimExpr(1), std::string(what) + " must have shape [1]");
  }
  if (const auto e = c.input_elements(i); e && e->size() == 1 && (*e)[0]) {
    const DimExpr v = c.resolve(*(*e)[0]);
    if (const auto k = v.const_value(); k && *k <= 0)
      c.fail(std::string(what) + " must be positive, got " + std::to_string(*k));
    return v;
  }
  return c.fresh();
}

/// Checks input_ids (2-D token ids, or 3-D audio features for Whisper) and returns its shape.
inline const Dims* input_ids(InferContext& c, bool features) {
  const Dims* d = c.input_shape(0);
  if (d && features && d->size() != 3 && d->size() != 2)
    c.fail("input_ids must be 2-D token ids or 3-D [batch, feature_size, sequence], got rank " + std::to_string(d->size()));
  if (d && !features && d->size() != 2)
    c.fail("input_ids must be 2-D [batch, sequence], got rank " + std::to_string(d->size()));
  return d;
}

/// The tensor type the decoder subgraph declares for its first output (the logits), if any.
inline const TensorType* decoder_logits(const InferContext& c) {
  const Attribute* a = c.attr("decoder");
  if (!a || a->kind() != AttributeType::GRAPH) return nullptr;
  const Graph& g = a->as_graph();
  if (g.outputs.empty() || !g.outputs[0].type) return nullptr;
  return std::get_if<TensorType>(&g.outputs[0].type->value);
}

/// The element type T of the scores: the first given float input among `inputs` (the penalties,
/// the temperature), else the element type the decoder subgraph declares for its logits.
inline DataType score_type(const InferContext& c, std::initializer_list<std::size_t> inputs) {
  for (const std::size_t i : inputs)
    if (c.has_input(i) && c.input_elem(i) != DataType::UNDEFINED) return c.input_elem(i);
  const TensorType* t = decoder_logits(c);
  return t ? t->elem_type : DataType::UNDEFINED;
}

/// The vocabulary size: the vocab_size attribute when positive (ONNX Runtime refuses one wider
/// than the decoder's logits), else the last dim of the logits the decoder subgraph declares, if
/// a number; else a fresh symbol.
inline DimExpr vocab(InferContext& c) {
  std::optional<std::int64_t> logits;
  if (const TensorType* t = decoder_logits(c); t && t->shape && !t->shape->dims.empty())
    if (const auto* v = std::get_if<std::int64_t>(&t->shape->dims.back().value); v && *v > 0) logits = *v;
  const std::int64_t attr = c.attr_int("vocab_size", -1);
  if (attr > 0) {
    if (logits && attr > *logits)
      c.fail("vocab_size " + std::to_string(attr) + " exceeds the decoder's logits width " + std::to_string(*logits));
    return DimExpr(attr);
  }
  return logits ? DimExpr(*logits) : c.fresh();
}

inline void require_graph(const InferContext& c, std::string_view name) {
  const Attribute* a = c.attr(name);
  if (!a) c.fail("missing required attribute '" + std::string(name) + "'");
  if (a->kind() != AttributeType::GRAPH) c.fail("attribute '" + std::string(name) + "' must be a graph");
}

}  // namespace generation_detail

/// BeamSearch and WhisperBeamSearch (input_ids, max_length, [min_length], num_beams,
/// num_return_sequences, [length_penalty], [repetition_penalty], ...): sequences int32 [B, R, L]
/// with L = max_length and R = num_return_sequences; sequences_scores [B, R]; scores
/// [L - S, B, num_beams, vocab] for the decoder-only (GPT) models, S being input_ids' length
/// (other model types start the decoder from their own tokens: left open); Whisper's cross_qk
/// and non_speech_probs [B]. ONNX Runtime's CPU kernel sizes them so at any stop (EOS included).
template <bool Whisper>
inline void rule_ms_beam_search(InferContext& c) {
  using namespace generation_detail;
  require_inputs(c, 2, Whisper ? 15 : 12);
  if (c.input_count() < 5 || !c.has_input(3) || !c.has_input(4))
    c.fail("num_beams and num_return_sequences (inputs 3 and 4) are required");
  require_graph(c, "decoder");
  (void)c.require_int("eos_token_id");
  (void)c.require_int("pad_token_id");
  const Dims* ids = input_ids(c, Whisper);
  const DimExpr B = ids ? c.resolve((*ids)[0]) : c.fresh();
  const DimExpr L = scalar_input(c, 1, "max_length");
  const DimExpr beams = scalar_input(c, 3, "num_beams");
  const DimExpr R = scalar_input(c, 4, "num_return_sequences");
  c.set_output(0, DataType::INT32, Dims{B, R, L});
  const DataType t = score_type(c, Whisper ? std::initializer_list<std::size_t>{5, 6, 14}
                                           : std::initializer_list<std::size_t>{5, 6});
  if (c.has_output(1)) c.set_output(1, t, Dims{B, R});
  if (c.has_output(2)) {
    const bool gpt = !Whisper && c.attr_int("model_type", 0) == 0;
    const DimExpr steps = gpt && ids ? c.resolve(L - (*ids)[1]) : c.fresh();
    c.set_output(2, t, Dims{steps, B, beams, vocab(c)});
  }
  if (Whisper && c.has_output(3)) c.set_output(3, ValueType::tensor(DataType::FLOAT));
  if (Whisper && c.has_output(4)) c.set_output(4, t, Dims{B});
}

/// GreedySearch and Sampling (input_ids [B, S], max_length, [min_length], [repetition_penalty],
/// ...): sequences int32 [B, max_length], whatever step EOS stops at. Sampling's filtered_logits
/// is left open: ONNX Runtime 1.30's CPU kernel crashes when it is requested.
inline void rule_ms_greedy_search(InferContext& c) {
  using namespace generation_detail;
  require_inputs(c, 2, c.node().op_type == "Sampling" ? 9 : 7);
  require_graph(c, "decoder");
  (void)c.require_int("eos_token_id");
  (void)c.require_int("pad_token_id");
  const Dims* ids = input_ids(c, false);
  const DimExpr B = ids ? c.resolve((*ids)[0]) : c.fresh();
  c.set_output(0, DataType::INT32, Dims{B, scalar_input(c, 1, "max_length")});
  if (c.node().op_type == "Sampling" && c.has_output(1)) c.set_output(1, ValueType::tensor(score_type(c, {3})));
}

inline void register_contrib_ops(OpRegistry& r) {
  using namespace contrib_detail;
  r.add(kMs, "Gelu", &rule_gelu);
  r.add(kMs, "QuickGelu", &rule_gelu);
  r.add(kMs, "FastGelu", &rule_fast_gelu);
  r.add(kMs, "BiasGelu", &rule_bias_gelu);
  r.add(kMs, "SkipLayerNormalization", &rule_skip_layer_norm<false>);
  r.add(kMs, "SkipSimplifiedLayerNormalization", &rule_skip_layer_norm<true>);
  r.add("", "SimplifiedLayerNormalization", &rule_simplified_layer_norm);
  r.add(kMs, "GatedRMSNorm", &rule_gated_rms_norm);
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
  r.add(kMs, "MRotaryEmbedding", &rule_ms_mrotary_embedding);
  r.add(kMs, "Attention", &rule_attention);
  r.add(kMs, "QAttention", &rule_qattention);
  r.add(kMs, "DynamicQuantizeLSTM", &rule_dynamic_quantize_lstm);
  r.add(kMs, "MultiHeadAttention", &rule_multi_head_attention);
  r.add(kMs, "EmbedLayerNormalization", &rule_embed_layer_norm);
  r.add(kMs, "QEmbedLayerNormalization", &rule_qembed_layer_norm);
  r.add(kMs, "SampleOp", &rule_sample_op);
  r.add(kMs, "GroupQueryAttention", &rule_group_query_attention);
  r.add(kMs, "QLinearAveragePool", &rule_qlinear_average_pool);
  r.add(kMs, "NhwcMaxPool", &rule_nhwc_max_pool);
  r.add(kMs, "QLinearConcat", &rule_qlinear_concat);
  r.add(kMs, "QGemm", &rule_qgemm);
  r.add(kMs, "QLinearSoftmax", &rule_qlinear_unary);
  r.add(kMs, "GatherBlockQuantized", &rule_gather_block_quantized);
  r.add(kMs, "ExpandDims", &rule_expand_dims);
  r.add(kMs, "Inverse", &rule_inverse);
  r.add(kMs, "CDist", &rule_cdist);
  r.add(kMs, "FusedGemm", &rule_fused_gemm);
  r.add(kMs, "TransposeMatMul", &rule_fused_matmul);
  r.add(kMs, "MatMulInteger16", &rule_matmul_integer16);
  r.add(kMs, "MatMulBnb4", &rule_matmul_bnb4);
  r.add(kMs, "QLinearConv", &rule_ms_qlinear_conv);
  r.add(kMs, "QLinearWhere", &rule_qlinear_where);
  r.add(kMs, "QLinearReduceMean", &rule_qlinear_reduce_mean);
  r.add(kMs, "MoE", &rule_moe);
  r.add(kMs, "QMoE", &rule_moe);
  r.add(kMs, "Unique", &rule_ms_unique);
  r.add(kMs, "Trilu", &shape_detail::rule_trilu);
  r.add(kMs, "GridSample", &rule_ms_grid_sample);
  r.add(kMs, "GatherND", &shape_detail::rule_gather_nd);
  r.add(kMs, "Pad", &rule_ms_pad);
  r.add(kMs, "CropAndResize", &rule_crop_and_resize);
  r.add(kMs, "MaxpoolWithMask", &rule_maxpool_with_mask);
  r.add(kMs, "UnfoldTensor", &rule_unfold_tensor);
  r.add(kMs, "WordConvEmbedding", &rule_word_conv_embedding);
  r.add(kMs, "MurmurHash3", &rule_murmur_hash3);
  r.add(kMs, "NGramRepeatBlock", &rule_ngram_repeat_block);
  r.add(kMs, "BiasAdd", &rule_bias_add);
  r.add(kMs, "BiasSplitGelu", &rule_bias_split_gelu);
  r.add(kMs, "GroupNorm", &rule_ms_group_norm);
  r.add(kMs, "SkipGroupNorm", &rule_ms_group_norm);
  r.add(kMs, "DecoderMaskedMultiHeadAttention", &rule_decoder_masked_mha);
  r.add(kMs, "SparseAttention", &rule_sparse_attention);
  r.add(kMs, "Range", &rule_ms_range);
  r.add(kMs, "LinearAttentionGate", &rule_ms_linear_attention_gate);
  r.add(kMs, "EngramGate", &rule_ms_engram_gate);
  r.add(kMs, "GatedAdd", &rule_ms_gated_add);
  r.add(kMs, "NGramHashMapping", &rule_ms_ngram_hash_mapping);
  r.add(kMs, "DynamicTimeWarping", &rule_ms_dynamic_time_warping);
  r.add(kMs, "Tokenizer", &rule_ms_tokenizer);
  r.add(kMs, "BifurcationDetector", &rule_ms_bifurcation_detector);
  r.add(kMs, "ConvTransposeWithDynamicPads", &rule_ms_conv_transpose_dynamic_pads);
  r.add(kMs, "MatMulNBitsMlp", &rule_matmul_nbits_mlp);
  r.add(kMs, "MatMulNBitsQkv", &rule_matmul_nbits_qkv);
  r.add(kMs, "GatedDeltaNet", &rule_ms_gated_delta_net);
  r.add(kMs, "VarlenCausalConvWithState", &rule_ms_varlen_causal_conv_with_state);
  r.add(kMs, "BeamSearch", &rule_ms_beam_search<false>);
  r.add(kMs, "WhisperBeamSearch", &rule_ms_beam_search<true>);
  r.add(kMs, "GreedySearch", &rule_ms_greedy_search);
  r.add(kMs, "Sampling", &rule_ms_greedy_search);
  r.add(kMs, "GemmFastGelu", &rule_gemm_fast_gelu);
  r.add(kMs, "BiasSoftmax", &rule_bias_softmax);
  r.add(kMs, "BiasDropout", &rule_bias_dropout);
  r.add(kMs, "BitmaskDropout", &rule_bitmask_dropout);
  r.add(kMs, "TorchEmbedding", &rule_torch_embedding);
  r.add(kMs, "RelativePositionBias", &rule_relative_position_bias);
  r.add(kMs, "GatedRelativePositionBias", &rule_gated_relative_position_bias);
  r.add(kMs, "RemovePadding", &rule_remove_padding);
  r.add(kMs, "RestorePadding", &rule_restore_padding);
  r.add(kMs, "LongformerAttention", &rule_longformer_attention);
  r.add(kMs, "NhwcConv", &rule_nhwc_conv);
  r.add(kMs, "PackedAttention", &rule_packed_attention);
  r.add(kMs, "PackedMultiHeadAttention", &rule_packed_multi_head_attention);
  r.add(kMs, "DecoderMaskedSelfAttention", &rule_decoder_masked_self_attention);
}

}  // namespace oxir::infer::ops
