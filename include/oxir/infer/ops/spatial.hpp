#pragma once
// Inference rules: spatial operators (convolution, pooling, resizing, sampling), recurrent
// operators, attention and signal processing (see docs/inference.md).
//
// Window arithmetic (per spatial axis, dk = dilation*(kernel-1)+1):
//   explicit pads:  floor((in + pad_begin + pad_end - dk) / stride) + 1   (ceil with ceil_mode)
//   SAME_UPPER/LOWER: ceil(in / stride) (unknown for pooling with a dilated kernel, where ONNX
//   Runtime differs);  VALID: the explicit formula with zero pads.
// Pooling with ceil_mode drops a last window that would start in the end padding:
//   out = min(ceil_out, ceil((in + pad_begin) / stride)).

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "../engine.hpp"

namespace oxir::infer::ops {

namespace spatial_detail {

inline DimExpr R(const InferContext& c, const DimExpr& e) { return c.resolve(e); }

inline std::optional<Dims> shape_of(const InferContext& c, std::size_t i) {
  if (const Dims* d = c.input_shape(i)) {
    Dims out;
    out.reserve(d->size());
    for (const auto& e : *d) out.push_back(c.resolve(e));
    return out;
  }
  return std::nullopt;
}

inline Dims fresh_dims(const InferContext& c, std::size_t n) {
  Dims d;
  for (std::size_t i = 0; i < n; ++i) d.push_back(c.fresh());
  return d;
}

/// An INTS attribute of exactly n entries (default `def` each when absent).
inline std::vector<std::int64_t> ints_n(const InferContext& c, std::string_view name, std::size_t n, std::int64_t def,
                                        bool positive = true) {
  auto v = c.attr_ints(name);
  if (!v) return std::vector<std::int64_t>(n, def);
  if (v->size() != n)
    c.fail("attribute '" + std::string(name) + "' has " + std::to_string(v->size()) + " entries, expected " +
           std::to_string(n));
  for (auto x : *v) {
    if (positive && x <= 0) c.fail("attribute '" + std::string(name) + "' must be positive");
    if (!positive && x < 0) c.fail("attribute '" + std::string(name) + "' must not be negative");
  }
  return *v;
}

enum class AutoPad { NotSet, SameUpper, SameLower, Valid };
inline AutoPad auto_pad(const InferContext& c) {
  const auto s = c.attr_string("auto_pad", "NOTSET");
  if (s == "NOTSET" || s.empty()) return AutoPad::NotSet;
  if (s == "SAME_UPPER") return AutoPad::SameUpper;
  if (s == "SAME_LOWER") return AutoPad::SameLower;
  if (s == "VALID") return AutoPad::Valid;
  c.fail("unknown auto_pad '" + s + "'");
}

struct Window {
  std::vector<std::optional<DimExpr>> kernel;  // per spatial axis; nullopt = unknown
  std::vector<std::int64_t> strides, dilations, pads;  // pads: begins then ends
  AutoPad pad = AutoPad::NotSet;
  bool ceil_mode = false;
  bool pooling = false;
};

inline Window read_window(const InferContext& c, std::size_t n, bool dilations_allowed, bool ceil_allowed) {
  Window w;
  w.strides = ints_n(c, "strides", n, 1);
  w.dilations = dilations_allowed ? ints_n(c, "dilations", n, 1) : std::vector<std::int64_t>(n, 1);
  w.pad = auto_pad(c);
  w.pads = ints_n(c, "pads", 2 * n, 0, false);
  if (w.pad == AutoPad::Valid) w.pads.assign(2 * n, 0);
  w.ceil_mode = ceil_allowed && c.attr_int("ceil_mode", 0) != 0;
  w.kernel.assign(n, std::nullopt);
  return w;
}

/// Output size of one spatial axis.
inline DimExpr window_out(const InferContext& c, const DimExpr& in0, const Window& w, std::size_t i) {
  const std::size_t n = w.strides.size();
  const DimExpr in = R(c, in0);
  const std::int64_t s = w.strides[i];
  if (w.pad == AutoPad::SameUpper || w.pad == AutoPad::SameLower) {
    // Pooling with a dilated kernel: the spec gives ceil(in / stride), but ONNX Runtime sizes the
    // padding from the undilated kernel and produces fewer windows; left unknown rather than
    // disagree with the runtime.
    if (w.pooling && w.dilations[i] > 1) {
      const auto kv = w.kernel[i] ? R(c, *w.kernel[i]).const_value() : std::nullopt;
      if (!kv || *kv > 1) return c.fresh();
    }
    return ceil_div(in, DimExpr(s));
  }
  if (!w.kernel[i]) return c.fresh();
  const DimExpr k = R(c, *w.kernel[i]);
  if (auto kv = k.const_value(); kv && *kv <= 0) c.fail("kernel size must be positive");
  const DimExpr dk = DimExpr(w.dilations[i]) * (k - 1) + 1;
  const std::int64_t pb = w.pads[i], pe = w.pads[i + n];
  const DimExpr span = in + pb + pe - dk;
  DimExpr out;
  if (!w.ceil_mode) {
    out = floor_div(span, DimExpr(s)) + 1;
  } else {
    out = ceil_div(span, DimExpr(s)) + 1;
    if (w.pooling) {
      // The last window must start inside the input or its begin padding.
      const DimExpr limit = ceil_div(in + pb, DimExpr(s));
      const auto dkv = dk.const_value();
      // (DimExpr arithmetic: overflow throws instead of wrapping.)
      const auto slack = (dk - DimExpr(pe) - DimExpr(s)).const_value();
      if (in.is_const() && out.is_const()) {
        if (auto past = ((out - 1) * DimExpr(s) - (in + pb)).const_value(); past && *past >= 0) out = out - 1;
      } else if (slack && *slack >= 0) {
        // pad_end + stride <= dk: ceil_out <= limit always holds, nothing to drop.
      } else if (dkv && pe <= *dkv) {
        out = min(out, limit);
      } else {
        out = c.fresh();
      }
    }
  }
  if (auto v = out.const_value(); v && *v < 0) c.fail("output spatial size is negative (" + std::to_string(*v) + ")");
  return out;
}

/// Number of spatial axes from X, W or kernel_shape; nullopt if nothing tells.
inline std::optional<std::size_t> spatial_rank(const InferContext& c, const std::optional<Dims>& xs,
                                               const std::optional<Dims>& ws) {
  if (xs) {
    if (xs->size() < 3) c.fail("input X must have rank >= 3 (N, C, spatial...), got " + std::to_string(xs->size()));
    if (ws && ws->size() != xs->size()) c.fail("X and W ranks differ");
    return xs->size() - 2;
  }
  if (ws) {
    if (ws->size() < 3) c.fail("weight W must have rank >= 3");
    return ws->size() - 2;
  }
  if (auto k = c.attr_ints("kernel_shape")) return k->size();
  return std::nullopt;
}

inline void kernel_from(const InferContext& c, Window& w, const std::optional<Dims>& ws, std::size_t n) {
  if (auto ks = c.attr_ints("kernel_shape")) {
    if (ks->size() != n) c.fail("kernel_shape has " + std::to_string(ks->size()) + " entries, expected " + std::to_string(n));
    for (std::size_t i = 0; i < n; ++i) {
      if ((*ks)[i] <= 0) c.fail("kernel_shape entries must be positive");
      w.kernel[i] = DimExpr((*ks)[i]);
      if (ws) c.unify((*ws)[i + 2], DimExpr((*ks)[i]), "kernel_shape vs W spatial dim");
    }
  } else if (ws) {
    for (std::size_t i = 0; i < n; ++i) w.kernel[i] = R(c, (*ws)[i + 2]);
  }
}

// ---- convolution ----

/// The output dims of a convolution of X (NCHW) by W; nullopt when no input or attribute tells
/// the number of spatial axes.
inline std::optional<Dims> conv_dims(InferContext& c, const std::optional<Dims>& xs, const std::optional<Dims>& ws,
                                     std::optional<std::size_t> bi, bool deform) {
  const auto n = spatial_rank(c, xs, ws);
  if (!n) return std::nullopt;
  const std::int64_t group = c.attr_int("group", 1);
  if (group <= 0) c.fail("group must be positive");
  Window w = read_window(c, *n, true, false);
  if (deform) {
    w.pad = AutoPad::NotSet;
    if (c.attr_int("offset_group", 1) <= 0) c.fail("offset_group must be positive");
  }
  kernel_from(c, w, ws, *n);
  if (xs && ws) c.unify((*xs)[1], (*ws)[1] * group, "input channels vs W dim 1 * group");
  const DimExpr m = ws ? (*ws)[0] : c.fresh();
  if (auto mv = R(c, m).const_value(); mv && *mv % group != 0) c.fail("output channels are not a multiple of group");
  if (bi && c.has_input(*bi)) {
    if (auto bs = shape_of(c, *bi)) {
      if (bs->size() != 1) c.fail("bias B must be 1-D");
      c.unify((*bs)[0], m, "bias size vs output channels");
    }
  }
  Dims out{xs ? (*xs)[0] : c.fresh(), R(c, m)};
  for (std::size_t i = 0; i < *n; ++i) out.push_back(xs ? window_out(c, (*xs)[i + 2], w, i) : c.fresh());
  return out;
}

inline void conv_common(InferContext& c, std::size_t xi, std::size_t wi, std::optional<std::size_t> bi, DataType elem,
                        bool deform) {
  if (auto out = conv_dims(c, shape_of(c, xi), shape_of(c, wi), bi, deform))
    c.set_output(0, elem, std::move(*out));
  else
    c.set_output(0, ValueType::tensor(elem));
}

inline void conv(InferContext& c) {
  if (c.input_count() < 2 || c.input_count() > 3) c.fail("Conv takes 2 or 3 inputs");
  conv_common(c, 0, 1, 2, c.input_elem(0), false);
}
inline void conv_integer(InferContext& c) {
  if (c.input_count() < 2 || c.input_count() > 4) c.fail("ConvInteger takes 2 to 4 inputs");
  conv_common(c, 0, 1, std::nullopt, DataType::INT32, false);
}
inline void qlinear_conv(InferContext& c) {
  if (c.input_count() < 8 || c.input_count() > 9) c.fail("QLinearConv takes 8 or 9 inputs");
  conv_common(c, 0, 3, 8, c.input_elem(7), false);
}
inline void deform_conv(InferContext& c) {
  if (c.input_count() < 3 || c.input_count() > 5) c.fail("DeformConv takes 3 to 5 inputs");
  conv_common(c, 0, 1, 3, c.input_elem(0), true);
}

/// ConvTranspose (X, W, [B]); with `dynamic_pads`, ONNX Runtime's ConvTransposeWithDynamicPads
/// (X, W, Pads, [B]): the pads come from the values of the 1-D int64 input Pads (begins then
/// ends, 2 per spatial axis; unknown values leave the spatial sizes unknown) instead of the pads
/// attribute, and auto_pad SAME_UPPER/SAME_LOWER still overrides them (checked with ONNX Runtime
/// runs; VALID does not).
inline void conv_transpose_common(InferContext& c, bool dynamic_pads) {
  const std::size_t bias = dynamic_pads ? 3 : 2;
  const auto xs = shape_of(c, 0), ws = shape_of(c, 1);
  const DataType elem = c.input_elem(0);
  if (dynamic_pads)
    if (const auto ps = shape_of(c, 2); ps && ps->size() != 1)
      c.fail("Pads must be 1-D, got rank " + std::to_string(ps->size()));
  const auto n = spatial_rank(c, xs, ws);
  if (!n) return c.set_output(0, ValueType::tensor(elem));
  const std::int64_t group = c.attr_int("group", 1);
  if (group <= 0) c.fail("group must be positive");
  Window w = read_window(c, *n, true, false);
  std::optional<PartialDims> dyn;  // the Pads input's elements, as far as they are known
  if (dynamic_pads) {
    if (const auto ps = shape_of(c, 2))
      c.unify((*ps)[0], DimExpr(static_cast<std::int64_t>(2 * *n)), "Pads length vs 2 * spatial rank");
    dyn = c.input_elements(2);
    if (dyn && dyn->size() != 2 * *n)
      c.fail("Pads has " + std::to_string(dyn->size()) + " values, expected " + std::to_string(2 * *n));
    if (dyn)
      for (const auto& p : *dyn)
        if (const auto v = p ? p->const_value() : std::nullopt; v && *v < 0)
          c.fail("Pads must not be negative, got " + std::to_string(*v));
  }
  kernel_from(c, w, ws, *n);
  const auto out_pad = ints_n(c, "output_padding", *n, 0, false);
  if (xs && ws) c.unify((*xs)[1], (*ws)[0], "input channels vs W dim 0");
  if (ws)
    if (auto cv = R(c, (*ws)[0]).const_value(); cv && *cv % group != 0) c.fail("input channels are not a multiple of group");
  const DimExpr m = ws ? R(c, (*ws)[1] * group) : c.fresh();
  if (c.has_input(bias))
    if (auto bs = shape_of(c, bias)) {
      if (bs->size() != 1) c.fail("bias B must be 1-D");
      c.unify((*bs)[0], m, "bias size vs output channels");
    }
  Dims out{xs ? (*xs)[0] : c.fresh(), m};
  if (auto os = dynamic_pads ? std::optional<std::vector<std::int64_t>>() : c.attr_ints("output_shape")) {
    std::size_t off = 0;
    if (os->size() == *n + 2)
      off = 2;
    else if (os->size() != *n)
      c.fail("output_shape has " + std::to_string(os->size()) + " entries, expected " + std::to_string(*n));
    for (std::size_t i = 0; i < *n; ++i) {
      if ((*os)[i + off] < 0) c.fail("output_shape entries must not be negative");
      out.push_back(DimExpr((*os)[i + off]));
    }
    return c.set_output(0, elem, std::move(out));
  }
  for (std::size_t i = 0; i < *n; ++i) {
    if (!xs) {
      out.push_back(c.fresh());
      continue;
    }
    const DimExpr in = R(c, (*xs)[i + 2]);
    const std::int64_t s = w.strides[i];
    if (!w.kernel[i]) {
      out.push_back(c.fresh());
      continue;
    }
    const DimExpr dk = DimExpr(w.dilations[i]) * (R(c, *w.kernel[i]) - 1) + 1;
    if (w.pad == AutoPad::SameUpper || w.pad == AutoPad::SameLower) {
      // in * stride needs the total padding stride*(in-1) + output_padding + dk - in*stride =
      // output_padding + dk - stride to be >= 0; below that (a kernel plus output padding smaller
      // than the stride) ONNX Runtime clamps the padding to 0 and yields
      // stride*(in-1) + output_padding + dk instead: left unknown.
      const auto dkv = dk.const_value();
      std::int64_t covered = 0;  // dk + output_padding; on overflow its sign is output_padding's
      const bool enough =
          dkv && (__builtin_add_overflow(*dkv, out_pad[i], &covered) ? out_pad[i] > 0 : covered >= s);
      out.push_back(enough ? in * s : c.fresh());
      continue;
    }
    DimExpr o;
    if (dynamic_pads) {
      if (!dyn || !(*dyn)[i] || !(*dyn)[i + *n]) {
        out.push_back(c.fresh());
        continue;
      }
      o = R(c, DimExpr(s) * (in - 1) + out_pad[i] + dk - *(*dyn)[i] - *(*dyn)[i + *n]);
    } else {
      o = DimExpr(s) * (in - 1) + out_pad[i] + dk - w.pads[i] - w.pads[i + *n];
    }
    if (auto v = o.const_value(); v && *v < 0) c.fail("output spatial size is negative");
    out.push_back(o);
  }
  c.set_output(0, elem, std::move(out));
}

inline void conv_transpose(InferContext& c) {
  if (c.input_count() < 2 || c.input_count() > 3) c.fail("ConvTranspose takes 2 or 3 inputs");
  conv_transpose_common(c, false);
}

// ---- pooling ----

enum class PoolKind { Max, Average, Lp };

inline void pool(InferContext& c, PoolKind kind) {
  if (c.input_count() != 1) c.fail("pooling takes 1 input");
  const auto xs = shape_of(c, 0);
  const DataType elem = c.input_elem(0);
  auto ks = c.attr_ints("kernel_shape");
  if (!ks) c.fail("missing required attribute 'kernel_shape'");
  const std::size_t n = ks->size();
  if (xs && xs->size() != n + 2)
    c.fail("kernel_shape has " + std::to_string(n) + " entries for an input of rank " + std::to_string(xs->size()));
  const std::int64_t v = c.opset();
  const bool dil = (kind == PoolKind::Max && v >= 10) || (kind == PoolKind::Average && v >= 19) ||
                   (kind == PoolKind::Lp && v >= 18);
  const bool ceil = ((kind == PoolKind::Max || kind == PoolKind::Average) && v >= 10) || (kind == PoolKind::Lp && v >= 18);
  Window w = read_window(c, n, dil, ceil);
  w.pooling = true;
  for (std::size_t i = 0; i < n; ++i) {
    if ((*ks)[i] <= 0) c.fail("kernel_shape entries must be positive");
    w.kernel[i] = DimExpr((*ks)[i]);
  }
  if (kind == PoolKind::Max) {
    const auto so = c.attr_int("storage_order", 0);
    if (so != 0 && so != 1) c.fail("storage_order must be 0 or 1");
  }
  Dims out;
  if (xs) {
    out = {(*xs)[0], (*xs)[1]};
    for (std::size_t i = 0; i < n; ++i) out.push_back(window_out(c, (*xs)[i + 2], w, i));
  } else {
    out = fresh_dims(c, n + 2);
  }
  c.set_output(0, elem, out);
  if (kind == PoolKind::Max && c.output_count() > 1) c.set_output(1, DataType::INT64, out);
}
inline void max_pool(InferContext& c) { pool(c, PoolKind::Max); }
inline void average_pool(InferContext& c) { pool(c, PoolKind::Average); }
inline void lp_pool(InferContext& c) { pool(c, PoolKind::Lp); }

inline void global_pool(InferContext& c) {
  if (c.input_count() != 1) c.fail("global pooling takes 1 input");
  const auto xs = shape_of(c, 0);
  if (!xs) return c.set_output(0, ValueType::tensor(c.input_elem(0)));
  if (xs->size() < 2) c.fail("input must have rank >= 2");
  Dims out{(*xs)[0], (*xs)[1]};
  for (std::size_t i = 2; i < xs->size(); ++i) out.push_back(DimExpr(1));
  c.set_output(0, c.input_elem(0), std::move(out));
}

inline void max_roi_pool(InferContext& c) {
  if (c.input_count() != 2) c.fail("MaxRoiPool takes 2 inputs");
  auto ps = c.attr_ints("pooled_shape");
  if (!ps) c.fail("missing required attribute 'pooled_shape'");
  if (ps->size() != 2) c.fail("pooled_shape must have 2 entries");
  for (auto p : *ps)
    if (p <= 0) c.fail("pooled_shape entries must be positive");
  const auto xs = shape_of(c, 0), rs = shape_of(c, 1);
  if (xs && xs->size() != 4) c.fail("X must be 4-D");
  if (rs && rs->size() != 2) c.fail("rois must be 2-D");
  if (rs) c.unify((*rs)[1], DimExpr(5), "rois dim 1");
  c.set_output(0, c.input_elem(0),
               Dims{rs ? (*rs)[0] : c.fresh(), xs ? (*xs)[1] : c.fresh(), DimExpr((*ps)[0]), DimExpr((*ps)[1])});
}

inline void roi_align(InferContext& c) {
  if (c.input_count() != 3) c.fail("RoiAlign takes 3 inputs");
  const auto oh = c.attr_int("output_height", 1), ow = c.attr_int("output_width", 1);
  if (oh <= 0 || ow <= 0) c.fail("output_height/output_width must be positive");
  const auto xs = shape_of(c, 0), rs = shape_of(c, 1), bs = shape_of(c, 2);
  if (xs && xs->size() != 4) c.fail("X must be 4-D");
  if (rs && rs->size() != 2) c.fail("rois must be 2-D");
  if (bs && bs->size() != 1) c.fail("batch_indices must be 1-D");
  if (rs) c.unify((*rs)[1], DimExpr(4), "rois dim 1");
  DimExpr num = rs ? (*rs)[0] : (bs ? (*bs)[0] : c.fresh());
  if (rs && bs) c.unify((*rs)[0], (*bs)[0], "number of rois");
  c.set_output(0, c.input_elem(0), Dims{R(c, num), xs ? (*xs)[1] : c.fresh(), DimExpr(oh), DimExpr(ow)});
}

inline void max_unpool(InferContext& c) {
  if (c.input_count() < 2 || c.input_count() > 3) c.fail("MaxUnpool takes 2 or 3 inputs");
  auto ks = c.attr_ints("kernel_shape");
  if (!ks) c.fail("missing required attribute 'kernel_shape'");
  const std::size_t n = ks->size();
  const auto xs = shape_of(c, 0), is = shape_of(c, 1);
  const DataType elem = c.input_elem(0);
  if (xs && xs->size() != n + 2) c.fail("kernel_shape does not match the rank of X");
  if (xs && is) {
    if (is->size() != xs->size()) c.fail("I must have the shape of X");
    for (std::size_t i = 0; i < xs->size(); ++i) c.unify((*xs)[i], (*is)[i], "I vs X");
  }
  const auto strides = ints_n(c, "strides", n, 1);
  const auto pads = ints_n(c, "pads", 2 * n, 0, false);
  if (c.has_input(2)) {
    if (const Dims* v = c.input_value(2)) {
      if (v->size() != n + 2) c.fail("output_shape must have rank(X) entries");
      Dims out;
      for (const auto& e : *v) out.push_back(R(c, e));
      return c.set_output(0, elem, std::move(out));
    }
    return c.set_output(0, ValueType::tensor(elem, fresh_dims(c, n + 2)));
  }
  if (!xs) return c.set_output(0, elem, fresh_dims(c, n + 2));
  Dims out{(*xs)[0], (*xs)[1]};
  for (std::size_t i = 0; i < n; ++i) {
    if ((*ks)[i] <= 0) c.fail("kernel_shape entries must be positive");
    DimExpr o = DimExpr(strides[i]) * ((*xs)[i + 2] - 1) + (*ks)[i] - pads[i] - pads[i + n];
    if (auto v = o.const_value(); v && *v < 0) c.fail("output size is negative");
    out.push_back(o);
  }
  c.set_output(0, elem, std::move(out));
}

// ---- resizing ----

/// floor(in * s), exactly when it can be written symbolically; else a fresh size.
inline DimExpr scaled(const InferContext& c, const DimExpr& in0, double s) {
  const DimExpr in = R(c, in0);
  if (!(s > 0) || !std::isfinite(s)) c.fail("scales must be positive");
  if (auto v = in.const_value()) {
    // Runtimes multiply in single precision (float scale times the size as float).
    const double prod = (*v >= 0 && *v < (std::int64_t{1} << 24))
                            ? static_cast<double>(static_cast<float>(*v) * static_cast<float>(s))
                            : static_cast<double>(*v) * s;
    const double r = std::floor(prod);
    if (!(std::fabs(r) <= 4.0e18)) c.fail("scaled size is out of range");  // NaN included
    return DimExpr(static_cast<std::int64_t>(r));
  }
  // s = p / q with q a power of two (exact binary fraction): floor(p*in/q) is exact.
  for (std::int64_t q = 1; q <= 1024; q *= 2) {
    const double p = s * static_cast<double>(q);
    if (p == std::floor(p) && p < 1.0e9) return floor_div(in * static_cast<std::int64_t>(p), DimExpr(q));
  }
  return c.fresh();
}

/// Whether an optional 1-D input is given with elements: No (absent or empty), Yes, or Maybe.
enum class Given { No, Yes, Maybe };
inline Given given(const InferContext& c, std::size_t i) {
  if (!c.has_input(i)) return Given::No;
  if (const Dims* v = c.input_value(i)) return v->empty() ? Given::No : Given::Yes;
  if (auto f = c.input_floats(i)) return f->empty() ? Given::No : Given::Yes;
  if (const Dims* s = c.input_shape(i))
    if (s->size() == 1)
      if (auto k = R(c, (*s)[0]).const_value()) return *k == 0 ? Given::No : Given::Yes;
  return Given::Maybe;
}

/// Length of a 1-D input if known.
inline std::optional<std::int64_t> len1(const InferContext& c, std::size_t i) {
  if (const Dims* v = c.input_value(i)) return static_cast<std::int64_t>(v->size());
  if (auto f = c.input_floats(i)) return static_cast<std::int64_t>(f->size());
  if (const Dims* s = c.input_shape(i)) {
    if (s->size() != 1) c.fail("input " + std::to_string(i) + " must be 1-D");
    auto n = R(c, (*s)[0]).const_value();
    if (n && (*n < 0 || *n > kMaxRank)) c.fail("input " + std::to_string(i) + " has length " + std::to_string(*n));
    return n;
  }
  return std::nullopt;
}

inline void resize_like(InferContext& c, std::size_t scales_i, std::optional<std::size_t> sizes_i,
                        std::optional<std::vector<float>> attr_scales) {
  const auto xs = shape_of(c, 0);
  const DataType elem = c.input_elem(0);
  std::optional<std::vector<std::int64_t>> axes;
  if (c.opset() >= 18 && sizes_i) axes = c.attr_ints("axes");
  const Given gs = attr_scales ? Given::Yes : given(c, scales_i);
  const Given gz = sizes_i ? given(c, *sizes_i) : Given::No;
  if (gs == Given::Yes && gz == Given::Yes) c.fail("only one of 'scales' and 'sizes' can be given");
  if (gs == Given::No && gz == Given::No) c.fail("one of 'scales' and 'sizes' must be given");
  const bool has_sizes = gz == Given::Yes || (gz == Given::Maybe && gs == Given::No);
  const bool has_scales = !has_sizes && (gs == Given::Yes || (gs == Given::Maybe && gz == Given::No));
  std::optional<std::int64_t> rank;
  if (xs) rank = static_cast<std::int64_t>(xs->size());
  std::optional<std::int64_t> n_given;
  if (attr_scales)
    n_given = static_cast<std::int64_t>(attr_scales->size());
  else if (has_sizes || has_scales)
    n_given = len1(c, has_sizes ? *sizes_i : scales_i);
  if (!rank && !axes && n_given) rank = n_given;
  if (!rank) return c.set_output(0, ValueType::tensor(elem));
  if (*rank < 0 || *rank > kMaxRank) c.fail("rank " + std::to_string(*rank) + " is out of range");
  std::vector<std::int64_t> ax;
  if (axes) {
    std::vector<bool> seen(static_cast<std::size_t>(*rank), false);
    for (auto a : *axes) {
      const auto k = c.normalize_axis(a, *rank, "axes entry");
      if (seen[static_cast<std::size_t>(k)]) c.fail("duplicate entry in axes");
      seen[static_cast<std::size_t>(k)] = true;
      ax.push_back(k);
    }
  } else {
    for (std::int64_t i = 0; i < *rank; ++i) ax.push_back(i);
  }
  if (n_given && *n_given != static_cast<std::int64_t>(ax.size()))
    c.fail(std::string(has_sizes ? "sizes" : "scales") + " has " + std::to_string(*n_given) + " entries, expected " +
           std::to_string(ax.size()));
  Dims in = xs ? *xs : fresh_dims(c, static_cast<std::size_t>(*rank));
  Dims out = in;
  if (!has_sizes && !has_scales) {
    // Both inputs are given and either may be the empty one: the resized sizes are unknown.
    for (auto a : ax) out[static_cast<std::size_t>(a)] = c.fresh();
  } else if (has_sizes) {
    const std::string policy = c.opset() >= 18 ? c.attr_string("keep_aspect_ratio_policy", "stretch") : "stretch";
    if (policy != "stretch" && policy != "not_larger" && policy != "not_smaller")
      c.fail("unknown keep_aspect_ratio_policy '" + policy + "'");
    const Dims* v = c.input_value(*sizes_i);
    if (!v || policy == "stretch") {
      // Stretching sets each axis to its size. Sizes of which only some are known (a Concat of
      // the batch and channel dims and sizes computed in floats) set the axes whose size is
      // known; the others, and every axis under another policy, get fresh symbols.
      std::optional<PartialDims> part;
      if (!v && policy == "stretch") part = c.input_elements(*sizes_i);
      if (part && part->size() != ax.size()) part.reset();
      for (std::size_t i = 0; i < ax.size(); ++i) {
        const std::optional<DimExpr> d = v ? std::optional<DimExpr>(R(c, (*v)[i])) : part ? (*part)[i] : std::nullopt;
        if (d)
          if (auto k = d->const_value(); k && *k < 0) c.fail("sizes must not be negative");
        out[static_cast<std::size_t>(ax[i])] = d ? *d : c.fresh();
      }
    } else {
      // ONNX Runtime ignores the policy when `axes` has negative entries (the input sizes come
      // out unchanged): with such axes only sizes that agree with that are kept.
      bool negative_axes = false;
      if (axes)  // absent: every axis, none negative
        for (auto a : *axes) negative_axes = negative_axes || a < 0;
      // The scale is the min (not_larger) or max (not_smaller) of sizes[i] / in[i]. A ratio is
      // known when both sizes are numbers, or 1 when sizes repeats the input's own size. Under
      // not_smaller a symbolic in[i] (at least 1 in a model that runs) gives a ratio of at most
      // sizes[i]: when no more than the known maximum, it cannot change the scale.
      const bool larger = policy == "not_larger";
      bool known = true;
      bool any_ratio = false;
      double scale = larger ? 1e300 : 0.0;
      std::int64_t cap = 0;  // not_smaller: the largest sizes[i] over symbolic in[i]
      for (std::size_t i = 0; i < ax.size() && known; ++i) {
        const DimExpr sd = R(c, (*v)[i]);
        const DimExpr dd = R(c, in[static_cast<std::size_t>(ax[i])]);
        auto s = sd.const_value();
        auto d = dd.const_value();
        if (s && *s < 0) c.fail("sizes must not be negative");
        double r = 1.0;
        if (s && d) {
          if (*d <= 0) {
            known = false;
            break;
          }
          r = static_cast<double>(*s) / static_cast<double>(*d);
        } else if (!d && sd == dd) {
          r = 1.0;
        } else if (!d && s && !larger) {
          cap = std::max(cap, *s);
          continue;
        } else {
          known = false;
          break;
        }
        any_ratio = true;
        scale = larger ? std::min(scale, r) : std::max(scale, r);
      }
      if (!any_ratio || static_cast<double>(cap) > scale) known = false;
      for (auto a : ax) {
        auto& o = out[static_cast<std::size_t>(a)];
        if (!known) {
          o = c.fresh();
          continue;
        }
        const auto d = R(c, in[static_cast<std::size_t>(a)]).const_value();
        if (!d) {
          // round(scale * d) over any d: d itself, or k*d for a whole scale k.
          if (scale == 1.0)
            continue;
          if (scale == std::floor(scale) && scale < 1.0e6 && !negative_axes)
            o = o * static_cast<std::int64_t>(scale);
          else
            o = c.fresh();
          continue;
        }
        const double r = std::floor(scale * static_cast<double>(*d) + 0.5);
        if (!(std::fabs(r) <= 4.0e18)) c.fail("scaled size is out of range");  // NaN included
        const auto ri = static_cast<std::int64_t>(r);
        o = negative_axes && ri != *d ? c.fresh() : DimExpr(ri);
      }
    }
  } else {
    std::optional<std::vector<double>> fs;
    if (attr_scales)
      fs = std::vector<double>(attr_scales->begin(), attr_scales->end());
    else
      fs = c.input_floats(scales_i);
    const bool crop = c.attr_string("coordinate_transformation_mode", "half_pixel") == "tf_crop_and_resize";
    std::optional<std::vector<double>> roi;
    if (crop && c.has_input(1) && !attr_scales) roi = c.input_floats(1);
    for (std::size_t i = 0; i < ax.size(); ++i) {
      auto& o = out[static_cast<std::size_t>(ax[i])];
      if (!fs) {
        o = c.fresh();
        continue;
      }
      const double s = (*fs)[i];
      if (crop) {
        auto d = R(c, o).const_value();
        if (!roi || roi->size() != 2 * ax.size() || !d) {
          o = c.fresh();
          continue;
        }
        if (!(s > 0)) c.fail("scales must be positive");
        const double r = std::floor(static_cast<double>(*d) * ((*roi)[i + ax.size()] - (*roi)[i]) * s);
        if (!(r >= 0) || r > 4.0e18) c.fail("cropped size is out of range");
        // The spec scales the cropped extent; ONNX Runtime sizes the output as floor(in * scale),
        // ignoring the roi: a size is kept only where the two agree.
        const DimExpr runtime = scaled(c, o, s);
        o = runtime == DimExpr(static_cast<std::int64_t>(r)) ? runtime : c.fresh();
        continue;
      }
      o = scaled(c, o, s);
    }
  }
  c.set_output(0, elem, std::move(out));
}

inline void resize(InferContext& c) {
  if (c.opset() < 11) {
    if (c.input_count() != 2) c.fail("Resize-10 takes 2 inputs");
    return resize_like(c, 1, std::nullopt, std::nullopt);
  }
  if (c.input_count() < 1 || c.input_count() > 4) c.fail("Resize takes 1 to 4 inputs");
  resize_like(c, 2, 3, std::nullopt);
}

inline void upsample(InferContext& c) {
  if (c.opset() < 7) {
    // Upsample-1 (experimental): an [N,C,H,W] input scaled by height_scale and width_scale.
    if (c.input_count() != 1) c.fail("Upsample-1 takes 1 input");
    if (!c.has_attr("height_scale") || !c.has_attr("width_scale"))
      c.fail("missing required attribute 'height_scale' or 'width_scale'");
    if (auto r = c.input_rank(0); r && *r != 4) c.fail("Upsample-1 expects a 4-D input [N,C,H,W]");
    const std::vector<float> scales{1.0f, 1.0f, c.attr_float("height_scale", 1.0f), c.attr_float("width_scale", 1.0f)};
    return resize_like(c, 1, std::nullopt, scales);
  }
  if (c.opset() < 9) {
    if (c.input_count() != 1) c.fail("Upsample-7 takes 1 input");
    auto s = c.attr_floats("scales");
    if (!s) c.fail("missing required attribute 'scales'");
    return resize_like(c, 1, std::nullopt, s);
  }
  if (c.input_count() != 2) c.fail("Upsample takes 2 inputs");
  resize_like(c, 1, std::nullopt, std::nullopt);
}

// ---- sampling ----

inline void grid_sample(InferContext& c) {
  if (c.input_count() != 2) c.fail("GridSample takes 2 inputs");
  const auto xs = shape_of(c, 0), gs = shape_of(c, 1);
  const DataType elem = c.input_elem(0);
  std::optional<std::size_t> r;  // spatial rank
  if (xs) {
    if (xs->size() < 3) c.fail("X must have rank >= 3");
    r = xs->size() - 2;
  }
  if (gs) {
    if (gs->size() < 3) c.fail("grid must have rank >= 3");
    if (r && gs->size() != *r + 2) c.fail("grid rank must equal X rank");
    r = gs->size() - 2;
  }
  if (r && c.opset() < 20 && *r != 2) c.fail("GridSample-16 supports 4-D inputs only");
  if (!r) return c.set_output(0, ValueType::tensor(elem));
  if (xs && gs) c.unify((*xs)[0], (*gs)[0], "batch of X vs grid");
  if (gs) c.unify((*gs)[gs->size() - 1], DimExpr(static_cast<std::int64_t>(*r)), "grid last dim");
  Dims out{xs ? (*xs)[0] : (*gs)[0], xs ? (*xs)[1] : c.fresh()};
  for (std::size_t i = 0; i < *r; ++i) out.push_back(gs ? R(c, (*gs)[i + 1]) : c.fresh());
  out[0] = R(c, out[0]);
  c.set_output(0, elem, std::move(out));
}

inline void affine_grid(InferContext& c) {
  if (c.input_count() != 2) c.fail("AffineGrid takes 2 inputs");
  const auto ts = shape_of(c, 0);
  const DataType elem = c.input_elem(0);
  std::optional<std::int64_t> n = len1(c, 1);
  if (ts) {
    if (ts->size() != 3) c.fail("theta must be 3-D");
    auto r = R(c, (*ts)[1]).const_value();
    if (r && *r != 2 && *r != 3) c.fail("theta must be [N,2,3] or [N,3,4]");
    if (r) {
      if (n && *n != *r + 2) c.fail("size does not match theta");
      n = *r + 2;
    }
  }
  if (!n) return c.set_output(0, ValueType::tensor(elem));
  if (*n != 4 && *n != 5) c.fail("size must have 4 or 5 entries");
  const std::int64_t sr = *n - 2;
  if (ts) {
    c.unify((*ts)[1], DimExpr(sr), "theta dim 1");
    c.unify((*ts)[2], DimExpr(sr + 1), "theta dim 2");
  }
  const Dims* v = c.input_value(1);
  Dims out;
  out.push_back(v ? R(c, (*v)[0]) : (ts ? (*ts)[0] : c.fresh()));
  if (v && ts) c.unify((*v)[0], (*ts)[0], "batch of size vs theta");
  for (std::int64_t i = 0; i < sr; ++i) out.push_back(v ? R(c, (*v)[static_cast<std::size_t>(i + 2)]) : c.fresh());
  out.push_back(DimExpr(sr));
  c.set_output(0, elem, std::move(out));
}

inline void col2im(InferContext& c) {
  if (c.input_count() != 3) c.fail("Col2Im takes 3 inputs");
  const auto xs = shape_of(c, 0);
  const DataType elem = c.input_elem(0);
  if (xs && xs->size() != 3) c.fail("input must be 3-D [N, C*prod(block_shape), L]");
  const Dims* img = c.input_value(1);
  const Dims* blk = c.input_value(2);
  std::optional<std::int64_t> n = len1(c, 1);
  if (auto m = len1(c, 2); m && n && *m != *n) c.fail("image_shape and block_shape lengths differ");
  if (!n) n = len1(c, 2);
  if (!n) return c.set_output(0, ValueType::tensor(elem));
  if (*n <= 0 || *n > 64) c.fail("image_shape must have between 1 and 64 entries");
  const auto dil = ints_n(c, "dilations", static_cast<std::size_t>(*n), 1);
  const auto str = ints_n(c, "strides", static_cast<std::size_t>(*n), 1);
  const auto pads = ints_n(c, "pads", static_cast<std::size_t>(2 * *n), 0, false);
  DimExpr ch = c.fresh();
  if (xs && blk) {
    DimExpr prod(1);
    for (const auto& b : *blk) prod = prod * R(c, b);
    if (prod.is(0)) c.fail("block_shape entries must be positive");
    if (auto q = exact_div(R(c, (*xs)[1]), prod))
      ch = *q;
    else if (prod.is_const() && R(c, (*xs)[1]).is_const())
      c.fail("input dim 1 is not a multiple of prod(block_shape)");
    if (img) {
      DimExpr blocks(1);
      bool ok = true;
      for (std::size_t i = 0; i < static_cast<std::size_t>(*n) && ok; ++i) {
        const DimExpr k = R(c, (*blk)[i]);
        const DimExpr span = R(c, (*img)[i]) + pads[i] + pads[i + static_cast<std::size_t>(*n)] - DimExpr(dil[i]) * (k - 1) - 1;
        blocks = blocks * (floor_div(span, DimExpr(str[i])) + 1);
        ok = blocks.complexity() < 64;
      }
      if (ok) c.unify((*xs)[2], blocks, "number of blocks L");
    }
  }
  Dims out{xs ? (*xs)[0] : c.fresh(), R(c, ch)};
  for (std::int64_t i = 0; i < *n; ++i) out.push_back(img ? R(c, (*img)[static_cast<std::size_t>(i)]) : c.fresh());
  c.set_output(0, elem, std::move(out));
}

inline void non_max_suppression(InferContext& c) {
  if (c.input_count() < 2 || c.input_count() > 5) c.fail("NonMaxSuppression takes 2 to 5 inputs");
  const auto bs = shape_of(c, 0), ss = shape_of(c, 1);
  if (bs && bs->size() != 3) c.fail("boxes must be 3-D");
  if (ss && ss->size() != 3) c.fail("scores must be 3-D");
  if (bs) c.unify((*bs)[2], DimExpr(4), "boxes dim 2");
  if (bs && ss) {
    c.unify((*bs)[0], (*ss)[0], "batch of boxes vs scores");
    c.unify((*bs)[1], (*ss)[2], "boxes vs scores spatial dim");
  }
  c.set_output(0, DataType::INT64, Dims{c.fresh(), DimExpr(3)});
}

// ---- recurrent ----

/// RNN/GRU/LSTM; `quantized`: ONNX Runtime's DynamicQuantizeLSTM, whose W [dirs, input, 4*H] and
/// R [dirs, H, 4*H] are stored transposed and followed by their scales and zero points.
inline void rnn_common(InferContext& c, std::int64_t gates, bool lstm, bool quantized = false) {
  const std::size_t max_in = quantized ? 12 : lstm ? 8 : 6;
  if (c.input_count() < 3 || c.input_count() > max_in) c.fail("wrong number of inputs");
  const std::string dir = c.attr_string("direction", "forward");
  std::int64_t nd;
  if (dir == "forward" || dir == "reverse")
    nd = 1;
  else if (dir == "bidirectional")
    nd = 2;
  else
    c.fail("unknown direction '" + dir + "'");
  const std::int64_t layout = c.opset() >= 14 ? c.attr_int("layout", 0) : 0;
  if (layout != 0 && layout != 1) c.fail("layout must be 0 or 1");
  const DataType elem = c.input_elem(0);
  const auto xs = shape_of(c, 0), ws = shape_of(c, 1), rs = shape_of(c, 2);
  if (xs && xs->size() != 3) c.fail("X must be 3-D");
  if (ws && ws->size() != 3) c.fail("W must be 3-D");
  if (rs && rs->size() != 3) c.fail("R must be 3-D");
  DimExpr seq = xs ? (*xs)[layout ? 1 : 0] : c.fresh();
  DimExpr batch = xs ? (*xs)[layout ? 0 : 1] : c.fresh();
  std::optional<DimExpr> hidden;
  if (c.has_attr("hidden_size")) {
    const auto h = c.attr_int("hidden_size", 0);
    if (h <= 0) c.fail("hidden_size must be positive");
    hidden = DimExpr(h);
  }
  // The axes of W and R holding the gates and the input (W) or hidden (R) size.
  const std::size_t w_gates = quantized ? 2 : 1, w_in = quantized ? 1 : 2;
  if (!hidden && rs) hidden = (*rs)[w_in];
  if (!hidden && ws) {
    if (auto q = exact_div(R(c, (*ws)[w_gates]), DimExpr(gates))) hidden = *q;
  }
  if (!hidden) hidden = c.fresh();
  const DimExpr H = *hidden;
  const DimExpr D(nd);
  if (ws) {
    c.unify((*ws)[0], D, "W dim 0 (num_directions)");
    c.unify((*ws)[w_gates], DimExpr(gates) * H, "W gates dimension");
    if (xs) c.unify((*ws)[w_in], (*xs)[2], "W input size dimension vs input size");
  }
  if (rs) {
    c.unify((*rs)[0], D, "R dim 0 (num_directions)");
    c.unify((*rs)[w_gates], DimExpr(gates) * H, "R gates dimension");
    c.unify((*rs)[w_in], H, "R hidden size dimension");
  }
  if (c.has_input(3))
    if (auto bs = shape_of(c, 3)) {
      if (bs->size() != 2) c.fail("B must be 2-D");
      c.unify((*bs)[0], D, "B dim 0");
      c.unify((*bs)[1], DimExpr(2 * gates) * H, "B dim 1");
    }
  if (c.has_input(4))
    if (auto ls = shape_of(c, 4)) {
      if (ls->size() != 1) c.fail("sequence_lens must be 1-D");
      c.unify((*ls)[0], batch, "sequence_lens vs batch");
    }
  auto state = [&](std::size_t i, const char* what) {
    if (!c.has_input(i)) return;
    if (auto s = shape_of(c, i)) {
      if (s->size() != 3) c.fail(std::string(what) + " must be 3-D");
      c.unify((*s)[layout ? 1 : 0], D, std::string(what) + " num_directions");
      c.unify((*s)[layout ? 0 : 1], batch, std::string(what) + " batch");
      c.unify((*s)[2], H, std::string(what) + " hidden");
    }
  };
  state(5, "initial_h");
  if (lstm) {
    state(6, "initial_c");
    if (c.has_input(7))
      if (auto ps = shape_of(c, 7)) {
        if (ps->size() != 2) c.fail("P must be 2-D");
        c.unify((*ps)[0], D, "P dim 0");
        c.unify((*ps)[1], DimExpr(3) * H, "P dim 1");
      }
  }
  seq = R(c, seq);
  batch = R(c, batch);
  const DimExpr h = R(c, H);
  if (layout == 0) {
    c.set_output(0, elem, Dims{seq, D, batch, h});
    c.set_output(1, elem, Dims{D, batch, h});
    if (lstm) c.set_output(2, elem, Dims{D, batch, h});
  } else {
    c.set_output(0, elem, Dims{batch, seq, D, h});
    c.set_output(1, elem, Dims{batch, D, h});
    if (lstm) c.set_output(2, elem, Dims{batch, D, h});
  }
}
inline void rnn(InferContext& c) { rnn_common(c, 1, false); }
inline void gru(InferContext& c) { rnn_common(c, 3, false); }
inline void lstm(InferContext& c) { rnn_common(c, 4, true); }

// ---- experimental operators removed from ONNX in opset 10 ----
// ONNX 1.5 dropped them from the standard; older converters (WinMLTools, onnxmltools, Caffe2)
// wrote them into opset 1-9 models, and ONNX Runtime still runs them there.

/// ImageScaler: scale and per-channel bias of an [N,C,H,W] image; `bias` has one value per
/// channel, so C is its length.
inline void image_scaler(InferContext& c) {
  require_inputs(c, 1, 1);
  auto s = shape_of(c, 0);
  if (s && s->size() != 4) c.fail("ImageScaler expects a 4-D input [N,C,H,W], got rank " + std::to_string(s->size()));
  if (auto bias = c.attr_floats("bias"); bias && s) {
    const DimExpr channels(static_cast<std::int64_t>(bias->size()));
    if (c.unify((*s)[1], channels, "channels (input dim 1) and the length of 'bias'")) (*s)[1] = channels;
  }
  ValueType t = ValueType::tensor(c.input_elem(0));
  if (s) t.shape = std::move(*s);
  c.set_output(0, std::move(t));
}

/// Crop of an [N,C,H,W] image: `border` = (left, top, right, bottom) is removed, or with
/// `scale` = (height, width) a window of that size is taken from (left, top).
inline void crop(InferContext& c) {
  require_inputs(c, 1, 1);
  const DataType elem = c.input_elem(0);
  const auto border = c.attr_ints("border");
  if (!border || border->size() != 4)
    c.fail("'border' must hold 4 values (left, top, right, bottom), got " + std::to_string(border ? border->size() : 0));
  // No tensor has a dim of 2^60; the bound keeps the sums below from overflowing.
  constexpr std::int64_t kMax = std::int64_t{1} << 60;
  for (auto b : *border)
    if (b < 0 || b > kMax) c.fail("'border' values must be sizes, got " + std::to_string(b));
  const auto scale = c.attr_ints("scale");
  if (scale && scale->size() != 2) c.fail("'scale' must hold 2 values (height, width)");
  if (scale)
    for (auto v : *scale)
      if (v < 0 || v > kMax) c.fail("'scale' values must be sizes, got " + std::to_string(v));
  auto s = shape_of(c, 0);
  if (!s) {
    c.set_output(0, ValueType::tensor(elem));
    return;
  }
  if (s->size() != 4) c.fail("Crop expects a 4-D input [N,C,H,W], got rank " + std::to_string(s->size()));
  const std::int64_t left = (*border)[0], top = (*border)[1], right = (*border)[2], bottom = (*border)[3];
  // The window's far edge (bottom/right limit) must lie within the image. With a window, ONNX
  // Runtime does not also require the bottom/right borders to fit (1x1x10x8, border 0,2,0,9 and
  // scale 5,6 gives 1x1x5x6), so neither does this.
  const std::int64_t need[2] = {top + (scale ? (*scale)[0] : bottom), left + (scale ? (*scale)[1] : right)};
  for (std::size_t i = 0; i < 2; ++i)
    if (const auto k = (*s)[2 + i].const_value(); k && *k < need[i])
      c.fail(std::string("the input's ") + (i == 0 ? "height " : "width ") + std::to_string(*k) +
             " is less than the crop needs (" + std::to_string(need[i]) + ")");
  Dims out = *s;
  out[2] = scale ? DimExpr((*scale)[0]) : (*s)[2] - DimExpr(top + bottom);
  out[3] = scale ? DimExpr((*scale)[1]) : (*s)[3] - DimExpr(left + right);
  c.set_output(0, elem, std::move(out));
}

/// GRUUnit (Caffe2's fused GRU step): the new hidden state has the previous one's shape.
inline void gru_unit(InferContext& c) {
  require_inputs(c, 4, 4);
  ValueType t = ValueType::tensor(c.input_elem(0));
  if (auto s = shape_of(c, 0)) t.shape = std::move(*s);
  c.set_output(0, std::move(t));
}

// ---- attention ----

inline void attention(InferContext& c) {
  const std::size_t max_in = c.opset() >= 24 ? 7 : 6;
  if (c.input_count() < 3 || c.input_count() > max_in) c.fail("Attention takes 3 to " + std::to_string(max_in) + " inputs");
  const auto qs = shape_of(c, 0), ks = shape_of(c, 1), vs = shape_of(c, 2);
  const DataType elem = c.input_elem(0);
  std::optional<std::size_t> rank;
  for (const auto* s : {&qs, &ks, &vs})
    if (*s) {
      if ((*s)->size() != 3 && (*s)->size() != 4) c.fail("Q, K and V must be 3-D or 4-D");
      if (rank && *rank != (*s)->size()) c.fail("Q, K and V must have the same rank");
      rank = (*s)->size();
    }
  const auto qh_attr = c.attr_int("q_num_heads", 0), kvh_attr = c.attr_int("kv_num_heads", 0);
  if (qh_attr < 0 || kvh_attr < 0) c.fail("head counts must be positive");
  if (!rank) {
    for (std::size_t i = 0; i < 4; ++i) c.set_output(i, ValueType::tensor(i == 3 ? elem : c.input_elem(i == 0 ? 0 : i)));
    return;
  }
  DimExpr B, qheads, kvheads, qseq, kvseq, head, vhead;
  auto get = [&](const std::optional<Dims>& s, std::size_t i) { return s ? R(c, (*s)[i]) : c.fresh(); };
  if (*rank == 4) {
    B = get(qs, 0);
    qheads = get(qs, 1);
    qseq = get(qs, 2);
    head = get(qs, 3);
    if (ks) {
      c.unify((*ks)[0], B, "K batch");
      c.unify((*ks)[3], head, "K head size");
    }
    kvheads = get(ks, 1);
    kvseq = get(ks, 2);
    if (vs) {
      c.unify((*vs)[0], B, "V batch");
      c.unify((*vs)[1], kvheads, "V heads");
      c.unify((*vs)[2], kvseq, "V sequence");
    }
    vhead = get(vs, 3);
    if (qh_attr) c.unify(qheads, DimExpr(qh_attr), "q_num_heads");
    if (kvh_attr) c.unify(kvheads, DimExpr(kvh_attr), "kv_num_heads");
  } else {
    if (!qh_attr || !kvh_attr) c.fail("3-D Attention needs q_num_heads and kv_num_heads");
    qheads = DimExpr(qh_attr);
    kvheads = DimExpr(kvh_attr);
    B = get(qs, 0);
    qseq = get(qs, 1);
    if (ks) c.unify((*ks)[0], B, "K batch");
    kvseq = get(ks, 1);
    if (vs) {
      c.unify((*vs)[0], B, "V batch");
      c.unify((*vs)[1], kvseq, "V sequence");
    }
    auto per_head = [&](const std::optional<Dims>& s, std::int64_t heads) -> DimExpr {
      if (!s) return c.fresh();
      const DimExpr d = R(c, (*s)[2]);
      if (auto q = exact_div(d, DimExpr(heads))) return *q;
      if (d.is_const()) c.fail("hidden size is not a multiple of the number of heads");
      return c.fresh();
    };
    head = per_head(qs, qh_attr);
    const DimExpr khead = per_head(ks, kvh_attr);
    c.unify(khead, head, "K head size vs Q head size");
    vhead = per_head(vs, kvh_attr);
  }
  B = R(c, B);
  head = R(c, head);
  // Past state: [B, kv_heads, past_seq, head].
  DimExpr total = R(c, kvseq);
  const bool has_past = c.has_input(4);
  if (has_past) {
    if (auto ps = shape_of(c, 4)) {
      if (ps->size() != 4) c.fail("past_key must be 4-D");
      c.unify((*ps)[0], B, "past_key batch");
      c.unify((*ps)[1], kvheads, "past_key heads");
      c.unify((*ps)[3], head, "past_key head size");
      total = R(c, (*ps)[2] + kvseq);
      if (c.has_input(5))
        if (auto pv = shape_of(c, 5)) {
          if (pv->size() != 4) c.fail("past_value must be 4-D");
          c.unify((*pv)[2], (*ps)[2], "past_value vs past_key sequence");
          c.unify((*pv)[3], vhead, "past_value head size");
        }
    } else {
      total = c.fresh();
    }
  }
  const DimExpr qh = R(c, qheads), kvh = R(c, kvheads), vh = R(c, vhead), qs_ = R(c, qseq);
  if (auto a = qh.const_value(), b = kvh.const_value(); a && b && (*b <= 0 || *a % *b != 0))
    c.fail("q_num_heads must be a multiple of kv_num_heads");
  if (*rank == 4)
    c.set_output(0, elem, Dims{B, qh, qs_, vh});
  else
    c.set_output(0, elem, Dims{B, qs_, R(c, qh * vh)});
  c.set_output(1, c.input_elem(1), Dims{B, kvh, total, head});
  c.set_output(2, c.input_elem(2), Dims{B, kvh, total, vh});
  c.set_output(3, elem, Dims{B, qh, qs_, total});
}

inline void rotary_embedding(InferContext& c) {
  if (c.input_count() < 3 || c.input_count() > 4) c.fail("RotaryEmbedding takes 3 or 4 inputs");
  const auto xs = shape_of(c, 0);
  if (xs && xs->size() != 3 && xs->size() != 4) c.fail("X must be 3-D or 4-D");
  c.set_output(0, c.input_type(0).is_unknown() ? ValueType::tensor(DataType::UNDEFINED) : c.input_type(0));
}

// ---- signal ----

inline void dft(InferContext& c) {
  const bool v20 = c.opset() >= 20;
  if (c.input_count() < 1 || c.input_count() > (v20 ? 3u : 2u)) c.fail("wrong number of inputs");
  const auto xs = shape_of(c, 0);
  const DataType elem = c.input_elem(0);
  const bool onesided = c.attr_int("onesided", 0) != 0;
  const bool inverse = c.attr_int("inverse", 0) != 0;
  (void)inverse;
  if (!xs) return c.set_output(0, ValueType::tensor(elem));
  const auto r = static_cast<std::int64_t>(xs->size());
  if (r < 2) c.fail("input must have rank >= 2");
  if (auto last = R(c, xs->back()).const_value(); last && *last != 1 && *last != 2)
    c.fail("last dim must be 1 (real) or 2 (complex)");
  std::int64_t axis;
  if (v20) {
    if (c.has_input(2)) {
      auto a = c.input_ints(2);
      if (!a) {
        Dims out = fresh_dims(c, static_cast<std::size_t>(r));
        out[0] = (*xs)[0];
        out.back() = DimExpr(2);
        return c.set_output(0, elem, std::move(out));
      }
      if (a->size() != 1) c.fail("axis must be a scalar");
      axis = (*a)[0];
    } else {
      axis = -2;
    }
    axis = c.normalize_axis(axis, r);
  } else {
    axis = c.attr_int("axis", 1);
    axis = c.normalize_axis(axis, r);
  }
  if (axis == 0 || axis == r - 1) c.fail("axis must be a signal axis (not batch nor the last dim)");
  Dims out = *xs;
  DimExpr len = out[static_cast<std::size_t>(axis)];
  if (c.has_input(1)) {
    if (const Dims* v = c.input_value(1)) {
      if (v->size() != 1) c.fail("dft_length must be a scalar");
      len = R(c, (*v)[0]);
      if (auto k = len.const_value(); k && *k <= 0) c.fail("dft_length must be positive");
    } else {
      len = c.fresh();
    }
  }
  out[static_cast<std::size_t>(axis)] = onesided ? floor_div(len, DimExpr(2)) + 1 : len;
  out.back() = DimExpr(2);
  c.set_output(0, elem, std::move(out));
}

inline std::optional<DimExpr> scalar_value(const InferContext& c, std::size_t i) {
  if (!c.has_input(i)) return std::nullopt;
  if (const Dims* v = c.input_value(i)) {
    if (v->size() != 1) c.fail("input " + std::to_string(i) + " must be a scalar");
    return R(c, (*v)[0]);
  }
  return std::nullopt;
}

inline void stft(InferContext& c) {
  if (c.input_count() < 2 || c.input_count() > 4) c.fail("STFT takes 2 to 4 inputs");
  const auto xs = shape_of(c, 0);
  const DataType elem = c.input_elem(0);
  const bool onesided = c.attr_int("onesided", 1) != 0;
  if (xs && xs->size() != 3) c.fail("signal must be 3-D [batch, length, 1 or 2]");
  if (xs)
    if (auto last = R(c, (*xs)[2]).const_value(); last && *last != 1 && *last != 2)
      c.fail("last dim of signal must be 1 or 2");
  std::optional<DimExpr> flen = scalar_value(c, 3);
  if (c.has_input(2))
    if (auto ws = shape_of(c, 2)) {
      if (ws->size() != 1) c.fail("window must be 1-D");
      if (flen)
        c.unify((*ws)[0], *flen, "window length vs frame_length");
      else
        flen = (*ws)[0];
    }
  const auto step = scalar_value(c, 1);
  if (step)
    if (auto k = step->const_value(); k && *k <= 0) c.fail("frame_step must be positive");
  DimExpr frames = c.fresh();
  if (xs && flen && step) {
    frames = floor_div(R(c, (*xs)[1]) - R(c, *flen), *step) + 1;
  }
  DimExpr bins = c.fresh();
  if (flen) {
    const DimExpr f = R(c, *flen);
    // A complex signal gives the full spectrum (onesided applies to real signals only).
    const bool real = xs && R(c, (*xs)[2]).is(1);
    const bool cplx = xs && R(c, (*xs)[2]).is(2);
    if (onesided && real)
      bins = floor_div(f, DimExpr(2)) + 1;
    else if (!onesided || cplx)
      bins = f;
  }
  c.set_output(0, elem, Dims{xs ? (*xs)[0] : c.fresh(), R(c, frames), bins, DimExpr(2)});
}

inline DataType output_datatype(const InferContext& c) {
  const auto t = c.attr_int("output_datatype", 1);
  if (t <= 0 || t > 255) c.fail("invalid output_datatype");
  return static_cast<DataType>(t);
}

inline void window_fn(InferContext& c) {
  if (c.input_count() != 1) c.fail("window functions take 1 input");
  const DataType elem = output_datatype(c);
  if (auto r = c.input_rank(0); r && *r > 1) c.fail("size must be a scalar");
  if (auto s = scalar_value(c, 0)) {
    if (auto k = s->const_value(); k && *k < 0) c.fail("size must not be negative");
    return c.set_output(0, elem, Dims{*s});
  }
  c.set_output(0, elem, Dims{c.fresh()});
}

inline void mel_weight_matrix(InferContext& c) {
  if (c.input_count() != 5) c.fail("MelWeightMatrix takes 5 inputs");
  const DataType elem = output_datatype(c);
  const auto bins = scalar_value(c, 0), len = scalar_value(c, 1);
  if (bins)
    if (auto k = bins->const_value(); k && *k <= 0) c.fail("num_mel_bins must be positive");
  if (len)
    if (auto k = len->const_value(); k && *k <= 0) c.fail("dft_length must be positive");
  c.set_output(0, elem, Dims{len ? floor_div(*len, DimExpr(2)) + 1 : c.fresh(), bins ? *bins : c.fresh()});
}

}  // namespace spatial_detail

inline void register_spatial_ops(OpRegistry& r) {
  using namespace spatial_detail;
  r.add("", "Conv", &conv);
  r.add("", "ConvInteger", &conv_integer);
  r.add("", "QLinearConv", &qlinear_conv);
  r.add("", "ConvTranspose", &conv_transpose);
  r.add("", "DeformConv", &deform_conv);
  r.add("", "MaxPool", &max_pool);
  r.add("", "AveragePool", &average_pool);
  r.add("", "LpPool", &lp_pool);
  r.add("", "GlobalAveragePool", &global_pool);
  r.add("", "GlobalMaxPool", &global_pool);
  r.add("", "GlobalLpPool", &global_pool);
  r.add("", "MaxRoiPool", &max_roi_pool);
  r.add("", "MaxUnpool", &max_unpool);
  r.add("", "RoiAlign", &roi_align);
  r.add("", "Resize", &resize);
  r.add("", "Upsample", &upsample);
  r.add("", "GridSample", &grid_sample);
  r.add("", "AffineGrid", &affine_grid);
  r.add("", "Col2Im", &col2im);
  r.add("", "NonMaxSuppression", &non_max_suppression);
  r.add("", "RNN", &rnn);
  r.add("", "GRU", &gru);
  r.add("", "LSTM", &lstm);
  r.add("", "GRUUnit", &gru_unit);
  r.add("", "ImageScaler", &image_scaler);
  r.add("", "Crop", &crop);
  r.add("", "Attention", &attention);
  r.add("", "RotaryEmbedding", &rotary_embedding);
  r.add("", "DFT", &dft);
  r.add("", "STFT", &stft);
  r.add("", "HannWindow", &window_fn);
  r.add("", "HammingWindow", &window_fn);
  r.add("", "BlackmanWindow", &window_fn);
  r.add("", "MelWeightMatrix", &mel_weight_matrix);
}

}  // namespace oxir::infer::ops
