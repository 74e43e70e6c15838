#pragma once
// Evaluating one default-domain node on constant tensors, for fold_constants: the operators that
// only move or select bytes (Reshape, Transpose, Slice, Split, Gather, Concat, Expand, Tile, Where,
// ReduceMax, ReduceMin, ...), Cast where its result is exactly defined, comparisons and logic,
// Abs, Floor and Ceil, and the element-wise arithmetic whose result IEEE arithmetic or
// two's-complement wrapping defines bit for bit. Anything else, and anything the operator's
// definition rejects, is left unevaluated: the caller keeps the node.

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "../core/data_type.hpp"
#include "../core/float_types.hpp"
#include "../ir/graph.hpp"
#include "../ir/tensor.hpp"

namespace oxir::eval {

/// Bytes per element of a type whose elements are whole bytes (not STRING, not 4- or 2-bit); 0 otherwise.
[[nodiscard]] inline std::size_t element_bytes(DataType t) noexcept {
  const int bits = bit_width(t);
  return t != DataType::STRING && bits >= 8 && bits % 8 == 0 ? static_cast<std::size_t>(bits / 8) : 0;
}

namespace detail {

/// A constant input whose payload matches its dims: dims, type, bytes.
struct Dense {
  DataType type = DataType::UNDEFINED;
  std::vector<std::int64_t> dims;
  std::span<const std::byte> bytes;
  std::uint64_t count = 0;
  std::size_t esize = 0;
  Buffer buffer;  ///< the input's payload, shared by outputs with the same bytes
};

inline std::optional<std::uint64_t> product(std::span<const std::int64_t> dims) {
  std::uint64_t n = 1;
  for (auto d : dims) {
    if (d < 0) return std::nullopt;
    const auto u = static_cast<std::uint64_t>(d);
    if (u != 0 && n > std::numeric_limits<std::uint64_t>::max() / u) return std::nullopt;
    n *= u;
  }
  return n;
}

/// The input as bytes of whole-byte elements, or nullopt (string, packed, segment, size mismatch).
inline std::optional<Dense> dense(const Tensor* t) {
  if (!t || t->segment || !t->strings.empty()) return std::nullopt;
  const std::size_t es = element_bytes(t->data_type);
  if (es == 0) return std::nullopt;
  const auto n = product(t->dims);
  if (!n || *n > std::numeric_limits<std::uint64_t>::max() / es) return std::nullopt;
  const std::span<const std::byte> b = t->bytes();  // loads external data; throws Error on failure
  if (b.size() != *n * es) return std::nullopt;
  return Dense{t->data_type, t->dims, b, *n, es, t->data};
}

/// The contents of an integer tensor (int64, or int32 where `int32_ok`), or nullopt.
inline std::optional<std::vector<std::int64_t>> ints(const Tensor* t, bool int32_ok) {
  auto d = dense(t);
  if (!d) return std::nullopt;
  std::vector<std::int64_t> v(static_cast<std::size_t>(d->count));
  if (d->type == DataType::INT64) {
    for (std::size_t i = 0; i < v.size(); ++i) std::memcpy(&v[i], d->bytes.data() + i * 8, 8);
  } else if (d->type == DataType::INT32 && int32_ok) {
    for (std::size_t i = 0; i < v.size(); ++i) {
      std::int32_t x;
      std::memcpy(&x, d->bytes.data() + i * 4, 4);
      v[i] = x;
    }
  } else {
    return std::nullopt;
  }
  return v;
}

/// A 1-D integer input (rank 1 exactly), or nullopt.
inline std::optional<std::vector<std::int64_t>> int_list(const Tensor* t, bool int32_ok) {
  if (!t || t->dims.size() != 1) return std::nullopt;
  return ints(t, int32_ok);
}

/// An INTS attribute, nullopt when absent; `bad` is set when it is present with another kind.
inline std::optional<std::vector<std::int64_t>> ints_attr(const Node& n, std::string_view name, bool& bad) {
  const Attribute* a = n.find_attribute(name);
  if (!a) return std::nullopt;
  if (!a->ref_attr_name.empty() || a->kind() != AttributeType::INTS) {
    bad = true;
    return std::nullopt;
  }
  return a->as_ints();
}

/// An INT attribute or `fallback` when absent; nullopt when present with another kind.
inline std::optional<std::int64_t> int_attr(const Node& n, std::string_view name, std::int64_t fallback) {
  const Attribute* a = n.find_attribute(name);
  if (!a) return fallback;
  if (!a->ref_attr_name.empty() || a->kind() != AttributeType::INT) return std::nullopt;
  return a->as_int();
}

/// Axis `a` of a rank-`r` tensor in [0, r); negative axes count from the end where the operator's
/// version allows them (`negative_ok`).
inline std::optional<std::size_t> axis(std::int64_t a, std::size_t r, bool negative_ok) {
  const auto rank = static_cast<std::int64_t>(r);
  if (a < 0) {
    if (!negative_ok) return std::nullopt;
    a += rank;
  }
  if (a < 0 || a >= rank) return std::nullopt;
  return static_cast<std::size_t>(a);
}

/// Row-major strides (in elements) of `dims`. Only meaningful for a tensor with elements (every
/// dim then at most the element count); callers return before building offsets for an empty one,
/// whose other dims may be anything.
inline std::vector<std::int64_t> strides(std::span<const std::int64_t> dims) {
  std::vector<std::int64_t> s(dims.size(), 1);
  for (std::size_t i = dims.size(); i-- > 1;)
    s[i - 1] = static_cast<std::int64_t>(static_cast<std::uint64_t>(s[i]) * static_cast<std::uint64_t>(dims[i]));
  return s;
}

/// The element offsets (first + k * step) * stride for k in [0, count): one axis's contribution
/// to an offset table for gather_elements.
inline std::vector<std::int64_t> axis_offsets(std::int64_t count, std::int64_t stride, std::int64_t first = 0,
                                              std::int64_t step = 1) {
  std::vector<std::int64_t> v(static_cast<std::size_t>(count));
  for (std::int64_t k = 0; k < count; ++k) v[static_cast<std::size_t>(k)] = (first + k * step) * stride;
  return v;
}

/// Calls visit(i, sum over axes a of contrib[a][i_a]) for every i of the row-major index space
/// whose axis sizes are contrib[a].size(), in order, until visit returns false; returns whether
/// every call returned true. The number of elements is the product of the sizes.
template <class Visit>
bool for_each_offset(const std::vector<std::vector<std::int64_t>>& contrib, Visit&& visit) {
  std::uint64_t n = 1;
  for (const auto& c : contrib) n *= c.size();
  if (n == 0) return true;
  const std::size_t r = contrib.size();
  std::vector<std::size_t> idx(r, 0);
  std::int64_t off = 0;
  for (const auto& c : contrib) off += c[0];
  for (std::uint64_t i = 0; i < n; ++i) {
    if (!visit(i, off)) return false;
    for (std::size_t a = r; a-- > 0;) {
      off -= contrib[a][idx[a]];
      if (++idx[a] < contrib[a].size()) {
        off += contrib[a][idx[a]];
        break;
      }
      idx[a] = 0;
      off += contrib[a][0];
    }
  }
  return true;
}

/// out[i] = src[sum over axes a of contrib[a][i_a]] for every i of the row-major index space whose
/// axis sizes are contrib[a].size(); offsets in elements of `esize` bytes. Every offset sum must
/// lie inside `src` (the callers build them so).
inline std::vector<std::byte> gather_elements(std::span<const std::byte> src, std::size_t esize,
                                              const std::vector<std::vector<std::int64_t>>& contrib) {
  std::uint64_t n = 1;
  for (const auto& c : contrib) n *= c.size();
  std::vector<std::byte> out(static_cast<std::size_t>(n) * esize);
  for_each_offset(contrib, [&](std::uint64_t i, std::int64_t off) {
    std::memcpy(out.data() + static_cast<std::size_t>(i) * esize, src.data() + static_cast<std::size_t>(off) * esize,
                esize);
    return true;
  });
  return out;
}

/// The offsets that read `in_dims` (right-aligned) broadcast to `out_dims`.
inline std::vector<std::vector<std::int64_t>> broadcast_contrib(std::span<const std::int64_t> in_dims,
                                                                std::span<const std::int64_t> out_dims) {
  const auto st = strides(in_dims);
  const std::size_t lead = out_dims.size() - in_dims.size();
  std::vector<std::vector<std::int64_t>> c(out_dims.size());
  for (std::size_t a = 0; a < out_dims.size(); ++a) {
    c[a].assign(static_cast<std::size_t>(out_dims[a]), 0);
    if (a < lead || in_dims[a - lead] == 1) continue;
    for (std::int64_t k = 0; k < out_dims[a]; ++k) c[a][static_cast<std::size_t>(k)] = k * st[a - lead];
  }
  return c;
}

/// Multidirectional broadcast of two shapes, nullopt when they do not broadcast.
inline std::optional<std::vector<std::int64_t>> broadcast(std::span<const std::int64_t> a,
                                                          std::span<const std::int64_t> b) {
  const std::size_t r = std::max(a.size(), b.size());
  std::vector<std::int64_t> out(r);
  for (std::size_t i = 0; i < r; ++i) {
    const std::int64_t x = i + a.size() >= r ? a[i + a.size() - r] : 1;
    const std::int64_t y = i + b.size() >= r ? b[i + b.size() - r] : 1;
    if (x == y || y == 1) out[i] = x;
    else if (x == 1) out[i] = y;
    else return std::nullopt;
  }
  return out;
}

/// One value read from a numeric element: integers exactly, floating-point ones as double.
struct Scalar {
  enum class Kind : std::uint8_t { Signed, Unsigned, Floating } kind = Kind::Signed;
  std::int64_t s = 0;
  std::uint64_t u = 0;
  double f = 0;
};

template <class T>
T load(const std::byte* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}
template <class T>
void store(std::byte* p, T v) {
  std::memcpy(p, &v, sizeof(T));
}

/// Reads element `p` of type `t` (one of the types Cast folds), or nullopt for other types.
inline std::optional<Scalar> read_scalar(DataType t, const std::byte* p) {
  using K = Scalar::Kind;
  switch (t) {
    case DataType::BOOL: return Scalar{K::Unsigned, 0, *p != std::byte{0} ? 1u : 0u, 0};
    case DataType::INT8: return Scalar{K::Signed, load<std::int8_t>(p), 0, 0};
    case DataType::INT16: return Scalar{K::Signed, load<std::int16_t>(p), 0, 0};
    case DataType::INT32: return Scalar{K::Signed, load<std::int32_t>(p), 0, 0};
    case DataType::INT64: return Scalar{K::Signed, load<std::int64_t>(p), 0, 0};
    case DataType::UINT8: return Scalar{K::Unsigned, 0, load<std::uint8_t>(p), 0};
    case DataType::UINT16: return Scalar{K::Unsigned, 0, load<std::uint16_t>(p), 0};
    case DataType::UINT32: return Scalar{K::Unsigned, 0, load<std::uint32_t>(p), 0};
    case DataType::UINT64: return Scalar{K::Unsigned, 0, load<std::uint64_t>(p), 0};
    case DataType::FLOAT: return Scalar{K::Floating, 0, 0, static_cast<double>(load<float>(p))};
    case DataType::DOUBLE: return Scalar{K::Floating, 0, 0, load<double>(p)};
    case DataType::FLOAT16:
      return Scalar{K::Floating, 0, 0, static_cast<double>(float16::from_bits(load<std::uint16_t>(p)))};
    case DataType::BFLOAT16:
      return Scalar{K::Floating, 0, 0, static_cast<double>(bfloat16::from_bits(load<std::uint16_t>(p)))};
    default: return std::nullopt;
  }
}

/// An integer of type T from a finite double that truncates into T's range; nullopt otherwise.
template <class T>
std::optional<T> float_to_int(double f) {
  if (!std::isfinite(f)) return std::nullopt;
  const double t = std::trunc(f);
  constexpr int bits = std::numeric_limits<T>::digits + (std::numeric_limits<T>::is_signed ? 1 : 0);
  const double lo = std::numeric_limits<T>::is_signed ? -std::ldexp(1.0, bits - 1) : 0.0;
  const double hi = std::numeric_limits<T>::is_signed ? std::ldexp(1.0, bits - 1) : std::ldexp(1.0, bits);
  if (!(t >= lo && t < hi)) return std::nullopt;
  return static_cast<T>(t);
}

/// Integer value of a non-floating scalar as T (modular, as C++ converts integers).
template <class T>
T int_as(const Scalar& v) {
  return v.kind == Scalar::Kind::Signed ? static_cast<T>(static_cast<std::uint64_t>(v.s)) : static_cast<T>(v.u);
}

/// Writes `v` (read from type `from`) as type `to` at `p`, when that conversion is exactly defined
/// the same way by every conforming runtime; false otherwise.
inline bool write_cast(DataType from, DataType to, const Scalar& v, std::byte* p) {
  using K = Scalar::Kind;
  const bool fl = v.kind == K::Floating;
  // NaN: kept only between float and double (the hardware conversion) and to bool.
  if (fl && std::isnan(v.f) && !((from == DataType::FLOAT || from == DataType::DOUBLE) &&
                                 (to == DataType::FLOAT || to == DataType::DOUBLE || to == DataType::BOOL)))
    return false;
  auto to_int = [&]<class T>() -> bool {
    if (!fl) {
      store<T>(p, int_as<T>(v));
      return true;
    }
    const auto x = float_to_int<T>(v.f);
    if (!x) return false;
    store<T>(p, *x);
    return true;
  };
  switch (to) {
    case DataType::BOOL: {
      const bool b = fl ? v.f != 0.0 : v.kind == K::Signed ? v.s != 0 : v.u != 0;
      *p = b ? std::byte{1} : std::byte{0};
      return true;
    }
    case DataType::INT8: return to_int.template operator()<std::int8_t>();
    case DataType::INT16: return to_int.template operator()<std::int16_t>();
    case DataType::INT32: return to_int.template operator()<std::int32_t>();
    case DataType::INT64: return to_int.template operator()<std::int64_t>();
    case DataType::UINT8: return to_int.template operator()<std::uint8_t>();
    case DataType::UINT16: return to_int.template operator()<std::uint16_t>();
    case DataType::UINT32: return to_int.template operator()<std::uint32_t>();
    case DataType::UINT64: return to_int.template operator()<std::uint64_t>();
    case DataType::FLOAT: {
      if (!fl) {
        store<float>(p, v.kind == K::Signed ? static_cast<float>(v.s) : static_cast<float>(v.u));
        return true;
      }
      if (std::isfinite(v.f) && std::fabs(v.f) > static_cast<double>(std::numeric_limits<float>::max())) {
        // Past float's range (where C++ leaves the conversion undefined), IEEE rounding to nearest
        // gives the largest float below the midpoint 2^128 - 2^103, infinity from it on.
        const float m = std::fabs(v.f) < std::ldexp(1.0, 128) - std::ldexp(1.0, 103) ? std::numeric_limits<float>::max()
                                                                                   : std::numeric_limits<float>::infinity();
        store<float>(p, v.f < 0 ? -m : m);
        return true;
      }
      store<float>(p, static_cast<float>(v.f));
      return true;
    }
    case DataType::DOUBLE:
      store<double>(p, !fl ? (v.kind == K::Signed ? static_cast<double>(v.s) : static_cast<double>(v.u)) : v.f);
      return true;
    case DataType::FLOAT16:
    case DataType::BFLOAT16: {
      // Runtimes may go through float first: only values float holds exactly round once.
      double x = 0;
      if (fl) {
        x = v.f;
        if (std::isfinite(x) && (std::fabs(x) > static_cast<double>(std::numeric_limits<float>::max()) ||
                                 static_cast<double>(static_cast<float>(x)) != x))
          return false;
      } else {
        // exactly a float: at most 24 significant bits between the highest and lowest set bit
        const std::uint64_t mag = v.kind == K::Signed ? (v.s < 0 ? std::uint64_t{0} - static_cast<std::uint64_t>(v.s)
                                                                 : static_cast<std::uint64_t>(v.s))
                                                      : v.u;
        if (mag != 0 && (mag >> std::countr_zero(mag)) >= (std::uint64_t{1} << 24)) return false;
        x = v.kind == K::Signed ? static_cast<double>(v.s) : static_cast<double>(v.u);
      }
      const auto f = static_cast<float>(x);
      store<std::uint16_t>(p, to == DataType::FLOAT16 ? float16::from_float(f).bits() : bfloat16::from_float(f).bits());
      return true;
    }
    default: return false;
  }
}

inline bool castable(DataType t) noexcept {
  switch (t) {
    case DataType::BOOL:
    case DataType::INT8:
    case DataType::INT16:
    case DataType::INT32:
    case DataType::INT64:
    case DataType::UINT8:
    case DataType::UINT16:
    case DataType::UINT32:
    case DataType::UINT64:
    case DataType::FLOAT:
    case DataType::DOUBLE:
    case DataType::FLOAT16:
    case DataType::BFLOAT16: return true;
    default: return false;
  }
}

/// a OP b for one element of type T; false where the result is not defined (integer division by
/// zero or overflow).
template <class T>
bool arith(char op, T a, T b, T& r) {
  if constexpr (std::is_floating_point_v<T>) {
    switch (op) {
      case '+': r = a + b; return true;
      case '-': r = a - b; return true;
      case '*': r = a * b; return true;
      case '/': r = a / b; return true;
      case 'n': r = -a; return true;
      default: return false;
    }
  } else {
    // in 64 bits, where unsigned arithmetic wraps (narrower types would be promoted to int, whose
    // overflow is undefined), then narrowed modulo 2^n
    using W = std::conditional_t<std::is_signed_v<T>, std::int64_t, std::uint64_t>;
    const auto ua = static_cast<std::uint64_t>(static_cast<W>(a)), ub = static_cast<std::uint64_t>(static_cast<W>(b));
    switch (op) {
      case '+': r = static_cast<T>(ua + ub); return true;
      case '-': r = static_cast<T>(ua - ub); return true;
      case '*': r = static_cast<T>(ua * ub); return true;
      case '/':
        if (b == 0) return false;
        if constexpr (std::is_signed_v<T>) {
          if (a == std::numeric_limits<T>::min() && b == -1) return false;
        }
        r = static_cast<T>(static_cast<W>(a) / static_cast<W>(b));
        return true;
      case 'n':
        if constexpr (std::is_signed_v<T>) {
          r = static_cast<T>(std::uint64_t{0} - ua);
          return true;
        }
        return false;
      default: return false;
    }
  }
}

template <class T>
bool arith_all(char op, std::span<const std::byte> a, std::span<const std::byte> b, std::vector<std::byte>& out) {
  const std::size_t n = out.size() / sizeof(T);
  for (std::size_t i = 0; i < n; ++i) {
    T r{};
    const T x = load<T>(a.data() + i * sizeof(T));
    const T y = op == 'n' ? T{} : load<T>(b.data() + i * sizeof(T));
    if (!arith<T>(op, x, y, r)) return false;
    store<T>(out.data() + i * sizeof(T), r);
  }
  return true;
}

/// Compares two numeric scalars of one type: -1, 0, 1, or 2 when unordered (a NaN).
inline int compare(const Scalar& a, const Scalar& b) {
  if (a.kind == Scalar::Kind::Floating) {
    if (std::isnan(a.f) || std::isnan(b.f)) return 2;
    return a.f < b.f ? -1 : a.f > b.f ? 1 : 0;  // -0 == +0
  }
  if (a.kind == Scalar::Kind::Signed) return a.s < b.s ? -1 : a.s > b.s ? 1 : 0;
  return a.u < b.u ? -1 : a.u > b.u ? 1 : 0;
}

/// The inputs broadcast to one shape (multidirectional), each materialised at that shape; nullopt
/// when they do not broadcast or the result would hold more than `max_elems` elements.
inline std::optional<std::pair<std::vector<std::int64_t>, std::vector<std::vector<std::byte>>>> broadcast_all(
    const std::vector<const Dense*>& in, std::uint64_t max_elems) {
  std::vector<std::int64_t> dims;
  for (const Dense* d : in) {
    auto b = broadcast(dims, d->dims);
    if (!b) return std::nullopt;
    dims = std::move(*b);
  }
  const auto count = product(dims);
  if (!count || *count > max_elems) return std::nullopt;
  std::vector<std::vector<std::byte>> out;
  for (const Dense* d : in)
    out.push_back(*count == 0 ? std::vector<std::byte>{}
                              : gather_elements(d->bytes, d->esize, broadcast_contrib(d->dims, dims)));
  return std::pair{std::move(dims), std::move(out)};
}

}  // namespace detail

/// The outputs of default-domain node `n` at default-domain opset `opset`, given its inputs (`in[i]`
/// the constant value of input i, nullptr where the input is omitted), named after the node's
/// outputs; nullopt when `n` is not an operator this evaluates, its inputs or attributes are not
/// what its definition at `opset` accepts, or an output would hold more than
/// max(`max_bytes`, the inputs' total bytes). Throws only what reading a lazily loaded input throws.
[[nodiscard]] inline std::optional<std::vector<Tensor>> evaluate(const Node& n, std::span<const Tensor* const> in,
                                                                 std::int64_t opset, std::uint64_t max_bytes) {
  using detail::Dense;
  const std::string_view op = n.op_type;
  if (n.outputs.empty() || (n.outputs.size() != 1 && op != "Split")) return std::nullopt;
  for (const auto& o : n.outputs)
    if (o.empty()) return std::nullopt;
  const std::string& out_name = n.outputs[0];
  auto input = [&](std::size_t i) -> const Tensor* { return i < in.size() ? in[i] : nullptr; };
  std::uint64_t in_bytes = 0;
  for (const Tensor* t : in)
    if (t) {
      const auto b = t->expected_bytes();
      if (!b) return std::nullopt;
      in_bytes += std::min<std::uint64_t>(*b, std::uint64_t{1} << 62);
    }
  const std::uint64_t limit = std::max(max_bytes, in_bytes);
  auto fits = [&](std::span<const std::int64_t> dims, std::size_t esize) {
    const auto c = detail::product(dims);
    return c && *c <= limit / std::max<std::size_t>(esize, 1);
  };
  auto one = [&](Tensor t) { return std::optional<std::vector<Tensor>>(std::vector<Tensor>{std::move(t)}); };
  auto same_bytes = [&](const Dense& d, std::vector<std::int64_t> dims) {
    const auto c = detail::product(dims);
    if (!c || *c != d.count) return std::optional<std::vector<Tensor>>{};
    return one(Tensor::from_bytes(out_name, d.type, std::move(dims), d.buffer));
  };
  auto fresh = [&](DataType t, std::vector<std::int64_t> dims, std::vector<std::byte> bytes) {
    return one(Tensor::from_bytes(out_name, t, std::move(dims), Buffer::owned(std::move(bytes))));
  };
  const bool neg_axes = opset >= 11;
  bool bad_attr = false;

  if (op == "Identity") {
    auto d = detail::dense(input(0));
    if (!d || in.size() != 1) return std::nullopt;
    return same_bytes(*d, d->dims);
  }

  if (op == "Reshape") {
    if (opset < 5 || in.size() != 2) return std::nullopt;
    auto d = detail::dense(input(0));
    auto shape = detail::int_list(input(1), false);
    const auto allowzero = detail::int_attr(n, "allowzero", 0);
    if (!d || !shape || !allowzero || (*allowzero != 0 && (opset < 14 || *allowzero != 1))) return std::nullopt;
    std::vector<std::int64_t> dims = *shape;
    std::optional<std::size_t> infer_at;
    std::uint64_t known = 1;
    bool has_zero = false;
    for (std::size_t i = 0; i < dims.size(); ++i) {
      if (dims[i] == -1) {
        if (infer_at) return std::nullopt;
        infer_at = i;
        continue;
      }
      if (dims[i] == 0) {
        has_zero = true;
        if (*allowzero == 0) {
          if (i >= d->dims.size()) return std::nullopt;
          dims[i] = d->dims[i];
        }
      }
      if (dims[i] < 0) return std::nullopt;
      const auto u = static_cast<std::uint64_t>(dims[i]);
      if (u != 0 && known > std::numeric_limits<std::uint64_t>::max() / u) return std::nullopt;
      known *= u;
    }
    if (infer_at) {
      if (known == 0 || d->count % known != 0 || (*allowzero == 1 && has_zero)) return std::nullopt;
      const std::uint64_t v = d->count / known;
      if (v > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) return std::nullopt;
      dims[*infer_at] = static_cast<std::int64_t>(v);
    }
    return same_bytes(*d, std::move(dims));
  }

  if (op == "Flatten") {
    auto d = detail::dense(input(0));
    const auto ax = detail::int_attr(n, "axis", 1);
    if (!d || in.size() != 1 || !ax) return std::nullopt;
    const auto r = static_cast<std::int64_t>(d->dims.size());
    std::int64_t a = *ax;
    if (a < 0 && neg_axes) a += r;
    if (a < 0 || a > r) return std::nullopt;
    const auto split = static_cast<std::size_t>(a);
    const auto outer = detail::product(std::span(d->dims).first(split));
    const auto inner = detail::product(std::span(d->dims).subspan(split));
    if (!outer || !inner) return std::nullopt;
    constexpr auto kMax = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
    if (*outer > kMax || *inner > kMax) return std::nullopt;
    return same_bytes(*d, {static_cast<std::int64_t>(*outer), static_cast<std::int64_t>(*inner)});
  }

  if (op == "Squeeze" || op == "Unsqueeze") {
    const bool squeeze = op == "Squeeze";
    auto d = detail::dense(input(0));
    if (!d) return std::nullopt;
    std::optional<std::vector<std::int64_t>> axes;
    if (opset >= 13) {
      if (in.size() > 2 || n.find_attribute("axes")) return std::nullopt;
      if (input(1)) {
        axes = detail::int_list(input(1), false);
        if (!axes) return std::nullopt;
      } else if (in.size() == 2 && !n.inputs[1].empty()) {
        return std::nullopt;
      }
    } else {
      if (in.size() != 1) return std::nullopt;
      axes = detail::ints_attr(n, "axes", bad_attr);
      if (bad_attr) return std::nullopt;
    }
    const std::size_t r = d->dims.size();
    if (squeeze) {
      std::vector<bool> drop(r, false);
      // Empty axes squeeze every dim of 1 in ONNX Runtime and none in onnx: not folded when they differ.
      if (axes && axes->empty() && std::find(d->dims.begin(), d->dims.end(), 1) != d->dims.end()) return std::nullopt;
      if (!axes) {
        for (std::size_t i = 0; i < r; ++i) drop[i] = d->dims[i] == 1;
      } else {
        for (auto a : *axes) {
          const auto k = detail::axis(a, r, neg_axes);
          if (!k || drop[*k] || d->dims[*k] != 1) return std::nullopt;
          drop[*k] = true;
        }
      }
      std::vector<std::int64_t> dims;
      for (std::size_t i = 0; i < r; ++i)
        if (!drop[i]) dims.push_back(d->dims[i]);
      return same_bytes(*d, std::move(dims));
    }
    if (!axes) return std::nullopt;
    const std::size_t out_r = r + axes->size();
    std::vector<bool> added(out_r, false);
    for (auto a : *axes) {
      const auto k = detail::axis(a, out_r, neg_axes);
      if (!k || added[*k]) return std::nullopt;
      added[*k] = true;
    }
    std::vector<std::int64_t> dims;
    std::size_t next = 0;
    for (std::size_t i = 0; i < out_r; ++i) dims.push_back(added[i] ? 1 : d->dims[next++]);
    return same_bytes(*d, std::move(dims));
  }

  if (op == "Transpose") {
    auto d = detail::dense(input(0));
    if (!d || in.size() != 1) return std::nullopt;
    const std::size_t r = d->dims.size();
    std::vector<std::int64_t> perm(r);
    if (auto p = detail::ints_attr(n, "perm", bad_attr)) perm = *p;
    else if (bad_attr) return std::nullopt;
    else
      for (std::size_t i = 0; i < r; ++i) perm[i] = static_cast<std::int64_t>(r - 1 - i);
    if (perm.size() != r) return std::nullopt;
    std::vector<bool> seen(r, false);
    for (auto p : perm) {
      if (p < 0 || static_cast<std::size_t>(p) >= r || seen[static_cast<std::size_t>(p)]) return std::nullopt;
      seen[static_cast<std::size_t>(p)] = true;
    }
    const auto st = detail::strides(d->dims);
    std::vector<std::int64_t> dims(r);
    for (std::size_t a = 0; a < r; ++a) dims[a] = d->dims[static_cast<std::size_t>(perm[a])];
    if (d->count == 0) return fresh(d->type, std::move(dims), {});
    std::vector<std::vector<std::int64_t>> c(r);
    for (std::size_t a = 0; a < r; ++a) c[a] = detail::axis_offsets(dims[a], st[static_cast<std::size_t>(perm[a])]);
    return fresh(d->type, std::move(dims), detail::gather_elements(d->bytes, d->esize, c));
  }

  if (op == "Concat") {
    if (opset < 4 || in.empty()) return std::nullopt;
    const auto ax = detail::int_attr(n, "axis", std::numeric_limits<std::int64_t>::min());
    std::vector<Dense> ds;
    for (std::size_t i = 0; i < in.size(); ++i) {
      auto d = detail::dense(input(i));
      if (!d || (!ds.empty() && (d->type != ds[0].type || d->dims.size() != ds[0].dims.size()))) return std::nullopt;
      ds.push_back(std::move(*d));
    }
    if (!ax || *ax == std::numeric_limits<std::int64_t>::min()) return std::nullopt;
    const std::size_t r = ds[0].dims.size();
    const auto k = detail::axis(*ax, r, neg_axes);
    if (!k) return std::nullopt;
    std::vector<std::int64_t> dims = ds[0].dims;
    dims[*k] = 0;
    for (const auto& d : ds) {
      for (std::size_t a = 0; a < r; ++a)
        if (a != *k && d.dims[a] != ds[0].dims[a]) return std::nullopt;
      if (d.dims[*k] > std::numeric_limits<std::int64_t>::max() - dims[*k]) return std::nullopt;
      dims[*k] += d.dims[*k];
    }
    const std::size_t es = ds[0].esize;
    if (!fits(dims, es)) return std::nullopt;
    if (*detail::product(dims) == 0) return fresh(ds[0].type, std::move(dims), {});
    const auto outer = *detail::product(std::span(dims).first(*k));
    std::vector<std::byte> out(static_cast<std::size_t>(*detail::product(dims)) * es);
    std::size_t w = 0;
    for (std::uint64_t o = 0; o < outer; ++o)
      for (const auto& d : ds) {
        const auto block = static_cast<std::size_t>(*detail::product(std::span(d.dims).subspan(*k))) * es;
        if (block) std::memcpy(out.data() + w, d.bytes.data() + static_cast<std::size_t>(o) * block, block);
        w += block;
      }
    return fresh(ds[0].type, std::move(dims), std::move(out));
  }

  if (op == "Slice") {
    auto d = detail::dense(input(0));
    if (!d) return std::nullopt;
    std::vector<std::int64_t> starts, ends, axes, steps;
    if (opset < 10) {
      if (in.size() != 1) return std::nullopt;
      auto s = detail::ints_attr(n, "starts", bad_attr);
      auto e = detail::ints_attr(n, "ends", bad_attr);
      auto a = detail::ints_attr(n, "axes", bad_attr);
      if (bad_attr || !s || !e) return std::nullopt;
      starts = *s;
      ends = *e;
      if (a) axes = *a;
    } else {
      if (in.size() < 3 || in.size() > 5 || !input(1) || !input(2) || !n.attributes.empty()) return std::nullopt;
      if (input(1)->data_type != input(2)->data_type) return std::nullopt;
      auto s = detail::int_list(input(1), true);
      auto e = detail::int_list(input(2), true);
      if (!s || !e) return std::nullopt;
      starts = *s;
      ends = *e;
      for (std::size_t i : {std::size_t{3}, std::size_t{4}}) {
        if (i >= in.size()) break;
        if (!input(i)) {
          if (!n.inputs[i].empty()) return std::nullopt;
          continue;
        }
        if (input(i)->data_type != input(1)->data_type) return std::nullopt;
        auto v = detail::int_list(input(i), true);
        if (!v) return std::nullopt;
        (i == 3 ? axes : steps) = *v;
      }
    }
    const std::size_t r = d->dims.size();
    if (starts.size() != ends.size()) return std::nullopt;
    if (axes.empty() && !(opset >= 10 && in.size() > 3 && input(3))) {
      if (starts.size() > r) return std::nullopt;
      for (std::size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<std::int64_t>(i));
    }
    if (steps.empty()) steps.assign(starts.size(), 1);
    if (axes.size() != starts.size() || steps.size() != starts.size()) return std::nullopt;
    // per axis: first index and step; untouched axes keep everything
    std::vector<std::int64_t> first(r, 0), step(r, 1), dims = d->dims;
    std::vector<bool> seen(r, false);
    for (std::size_t i = 0; i < axes.size(); ++i) {
      const auto k = detail::axis(axes[i], r, neg_axes);
      if (!k || seen[*k] || steps[i] == 0) return std::nullopt;
      seen[*k] = true;
      const std::int64_t dim = d->dims[*k];
      std::int64_t s = starts[i], e = ends[i], st = steps[i];
      if (s < 0) s += dim;
      if (e < 0) e += dim;
      std::int64_t count = 0;
      if (dim == 0) {
        s = 0;
      } else if (st > 0) {
        s = std::clamp<std::int64_t>(s, 0, dim);
        e = std::clamp<std::int64_t>(e, 0, dim);
        st = std::min<std::int64_t>(st, dim + 1);
        if (e > s) count = (e - s + st - 1) / st;
      } else {
        // An end of INT_MAX (the "to the end" sentinel) with a negative step clamps to the last
        // index (an empty slice); ONNX Runtime 1.30 reads it as "to the start": left to the runtime.
        if (ends[i] >= std::numeric_limits<std::int32_t>::max()) return std::nullopt;
        s = std::clamp<std::int64_t>(s, 0, dim - 1);
        e = std::clamp<std::int64_t>(e, -1, dim - 1);
        st = std::max<std::int64_t>(st, -(dim + 1));
        if (s > e) count = (s - e + (-st) - 1) / (-st);
      }
      first[*k] = s;
      step[*k] = st;
      dims[*k] = count;
    }
    if (!fits(dims, d->esize)) return std::nullopt;
    if (*detail::product(dims) == 0) return fresh(d->type, std::move(dims), {});
    const auto strd = detail::strides(d->dims);
    std::vector<std::vector<std::int64_t>> c(r);
    for (std::size_t a = 0; a < r; ++a) c[a] = detail::axis_offsets(dims[a], strd[a], first[a], step[a]);
    return fresh(d->type, std::move(dims), detail::gather_elements(d->bytes, d->esize, c));
  }

  if (op == "Gather") {
    auto d = detail::dense(input(0));
    auto idx = detail::ints(input(1), true);
    const auto ax = detail::int_attr(n, "axis", 0);
    if (!d || !idx || !ax || in.size() != 2) return std::nullopt;
    const std::size_t r = d->dims.size();
    const auto k = detail::axis(*ax, r, neg_axes);
    if (!k) return std::nullopt;
    const std::int64_t dim = d->dims[*k];
    std::vector<std::int64_t> dims(d->dims.begin(), d->dims.begin() + static_cast<std::ptrdiff_t>(*k));
    dims.insert(dims.end(), input(1)->dims.begin(), input(1)->dims.end());
    dims.insert(dims.end(), d->dims.begin() + static_cast<std::ptrdiff_t>(*k) + 1, d->dims.end());
    if (!fits(dims, d->esize)) return std::nullopt;
    for (std::int64_t i : *idx)
      if (i < -dim || i >= dim || (i < 0 && !neg_axes)) return std::nullopt;
    if (*detail::product(dims) == 0) return fresh(d->type, std::move(dims), {});
    const auto st = detail::strides(d->dims);
    // indices were range-checked above: only the negative ones need shifting
    std::vector<std::vector<std::int64_t>> c(r);
    for (std::size_t a = 0; a < r; ++a)
      if (a != *k) c[a] = detail::axis_offsets(d->dims[a], st[a]);
    for (std::int64_t i : *idx) c[*k].push_back((i < 0 ? i + dim : i) * st[*k]);
    return fresh(d->type, std::move(dims), detail::gather_elements(d->bytes, d->esize, c));
  }

  if (op == "Split") {
    // Split-1 took float types only (and its sizes as a second input); 2 and 11 an attribute, 13
    // an input; 18 added num_outputs (the last part smaller when the size does not divide).
    if (opset < 2) return std::nullopt;
    for (const auto& a : n.attributes)
      if (a.name != "axis" && !(a.name == "split" && opset < 13) && !(a.name == "num_outputs" && opset >= 18))
        return std::nullopt;
    auto d = detail::dense(input(0));
    const auto ax = detail::int_attr(n, "axis", 0);
    if (!d || !ax || in.size() > (opset >= 13 ? 2u : 1u)) return std::nullopt;
    const std::size_t r = d->dims.size();
    const auto k = detail::axis(*ax, r, neg_axes);
    if (!k) return std::nullopt;
    const std::size_t parts = n.outputs.size();
    const std::int64_t dim = d->dims[*k];
    std::optional<std::vector<std::int64_t>> sizes;
    if (opset < 13) {
      sizes = detail::ints_attr(n, "split", bad_attr);
      if (bad_attr) return std::nullopt;
    } else if (in.size() == 2) {
      if (!input(1)) return std::nullopt;  // an empty name: invalid (the input is not variadic)
      sizes = detail::int_list(input(1), false);
      if (!sizes) return std::nullopt;
    }
    const auto num = opset >= 18 && n.find_attribute("num_outputs") ? detail::int_attr(n, "num_outputs", 0)
                                                                    : std::optional<std::int64_t>{};
    if (opset >= 18 && n.find_attribute("num_outputs") && (!num || sizes)) return std::nullopt;
    if (sizes) {
      if (sizes->size() != parts) return std::nullopt;
      std::int64_t total = 0;
      for (auto v : *sizes) {
        if (v < 0 || v > dim - total) return std::nullopt;
        total += v;
      }
      if (total != dim) return std::nullopt;
    } else if (num) {
      // ceil(dim / n) each, the rest last; a last part of no elements or fewer is left to the runtime
      if (*num != static_cast<std::int64_t>(parts)) return std::nullopt;
      const std::int64_t chunk = dim / *num + (dim % *num != 0);
      if (*num > 1 && chunk > std::numeric_limits<std::int64_t>::max() / (*num - 1)) return std::nullopt;
      if (dim - chunk * (*num - 1) < 1) return std::nullopt;
      sizes.emplace(parts, chunk);
      sizes->back() = dim - chunk * (*num - 1);
    } else {
      if (opset >= 18 || dim % static_cast<std::int64_t>(parts) != 0) return std::nullopt;  // (18: invalid)
      sizes.emplace(parts, dim / static_cast<std::int64_t>(parts));
    }
    std::vector<Tensor> outs;
    if (d->count == 0) {  // (its other dims may be anything: no offsets computed)
      for (std::size_t p = 0; p < parts; ++p) {
        std::vector<std::int64_t> dims = d->dims;
        dims[*k] = (*sizes)[p];
        outs.push_back(Tensor::from_bytes(n.outputs[p], d->type, std::move(dims), Buffer::owned(std::vector<std::byte>{})));
      }
      return outs;
    }
    // every part is a slice of the input along axis k: outer blocks of inner * size elements
    const auto outer = *detail::product(std::span(d->dims).first(*k));
    const auto inner = static_cast<std::size_t>(*detail::product(std::span(d->dims).subspan(*k + 1))) * d->esize;
    std::int64_t at = 0;
    for (std::size_t p = 0; p < parts; ++p) {
      std::vector<std::int64_t> dims = d->dims;
      dims[*k] = (*sizes)[p];
      if (!fits(dims, d->esize)) return std::nullopt;
      std::vector<std::byte> bytes(static_cast<std::size_t>(*detail::product(dims)) * d->esize);
      const std::size_t block = inner * static_cast<std::size_t>((*sizes)[p]);
      if (block)
        for (std::uint64_t o = 0; o < outer; ++o)
          std::memcpy(bytes.data() + static_cast<std::size_t>(o) * block,
                      d->bytes.data() + (static_cast<std::size_t>(o) * static_cast<std::size_t>(dim) +
                                         static_cast<std::size_t>(at)) * inner,
                      block);
      at += (*sizes)[p];
      outs.push_back(Tensor::from_bytes(n.outputs[p], d->type, std::move(dims), Buffer::owned(std::move(bytes))));
    }
    return outs;
  }

  if (op == "Expand") {
    if (opset < 8 || in.size() != 2) return std::nullopt;
    auto d = detail::dense(input(0));
    auto shape = detail::int_list(input(1), false);
    if (!d || !shape) return std::nullopt;
    for (auto s : *shape)
      if (s < 0) return std::nullopt;
    auto dims = detail::broadcast(d->dims, *shape);
    if (!dims || !fits(*dims, d->esize)) return std::nullopt;
    if (*detail::product(*dims) == 0) return fresh(d->type, std::move(*dims), {});
    auto bytes = detail::gather_elements(d->bytes, d->esize, detail::broadcast_contrib(d->dims, *dims));
    return fresh(d->type, std::move(*dims), std::move(bytes));
  }

  if (op == "Tile") {
    if (opset < 6 || in.size() != 2) return std::nullopt;
    auto d = detail::dense(input(0));
    auto reps = detail::int_list(input(1), false);
    if (!d || !reps || reps->size() != d->dims.size()) return std::nullopt;
    std::vector<std::int64_t> dims(d->dims.size());
    for (std::size_t a = 0; a < dims.size(); ++a) {
      const std::int64_t rep = (*reps)[a];
      if (rep < 0 || (rep != 0 && d->dims[a] > std::numeric_limits<std::int64_t>::max() / rep)) return std::nullopt;
      dims[a] = d->dims[a] * rep;
    }
    if (!fits(dims, d->esize)) return std::nullopt;
    if (*detail::product(dims) == 0) return fresh(d->type, std::move(dims), {});
    const auto st = detail::strides(d->dims);
    std::vector<std::vector<std::int64_t>> c(dims.size());
    for (std::size_t a = 0; a < dims.size(); ++a)
      for (std::int64_t q = 0; q < dims[a]; ++q) c[a].push_back((q % d->dims[a]) * st[a]);
    return fresh(d->type, std::move(dims), detail::gather_elements(d->bytes, d->esize, c));
  }

  if (op == "ConstantOfShape") {
    if (opset < 9 || in.size() != 1) return std::nullopt;
    auto shape = detail::int_list(input(0), false);
    if (!shape) return std::nullopt;
    for (auto s : *shape)
      if (s < 0) return std::nullopt;
    DataType type = DataType::FLOAT;
    std::vector<std::byte> value(4, std::byte{0});
    if (const Attribute* a = n.find_attribute("value")) {
      if (!a->ref_attr_name.empty() || a->kind() != AttributeType::TENSOR) return std::nullopt;
      const Tensor& v = a->as_tensor();
      auto dv = detail::dense(&v);
      if (!dv || dv->count != 1 || v.dims.size() != 1) return std::nullopt;
      type = dv->type;
      if (!detail::castable(type) || (type == DataType::BFLOAT16 && opset < 20)) return std::nullopt;
      value.assign(dv->bytes.begin(), dv->bytes.end());
    }
    if (n.attributes.size() > (n.find_attribute("value") ? 1u : 0u)) return std::nullopt;
    if (!fits(*shape, value.size())) return std::nullopt;
    const auto count = static_cast<std::size_t>(*detail::product(*shape));
    std::vector<std::byte> out(count * value.size());
    for (std::size_t i = 0; i < count; ++i) std::memcpy(out.data() + i * value.size(), value.data(), value.size());
    return fresh(type, *shape, std::move(out));
  }

  if (op == "Cast") {
    if (opset < 6 || in.size() != 1) return std::nullopt;
    auto d = detail::dense(input(0));
    const auto to_attr = detail::int_attr(n, "to", -1);
    if (!d || !to_attr || *to_attr < 0 || *to_attr > std::numeric_limits<std::int32_t>::max()) return std::nullopt;
    for (const auto& a : n.attributes)
      if (a.name != "to" && !(a.name == "saturate" && opset >= 19)) return std::nullopt;
    const auto to = static_cast<DataType>(*to_attr);
    if (to == d->type && element_bytes(to) != 0) return same_bytes(*d, d->dims);
    if (!detail::castable(d->type) || !detail::castable(to)) return std::nullopt;
    if (opset < 13 && (d->type == DataType::BFLOAT16 || to == DataType::BFLOAT16)) return std::nullopt;
    const std::size_t es = element_bytes(to);
    if (!fits(d->dims, es)) return std::nullopt;
    std::vector<std::byte> out(static_cast<std::size_t>(d->count) * es);
    for (std::size_t i = 0; i < d->count; ++i) {
      const auto v = detail::read_scalar(d->type, d->bytes.data() + i * d->esize);
      if (!v || !detail::write_cast(d->type, to, *v, out.data() + i * es)) return std::nullopt;
    }
    return fresh(to, d->dims, std::move(out));
  }

  if (op == "Where") {
    if (opset < 9 || in.size() != 3) return std::nullopt;
    auto c = detail::dense(input(0));
    auto x = detail::dense(input(1));
    auto y = detail::dense(input(2));
    if (!c || !x || !y || c->type != DataType::BOOL || x->type != y->type) return std::nullopt;
    auto b = detail::broadcast_all({&*c, &*x, &*y}, limit / x->esize);
    if (!b) return std::nullopt;
    auto& [dims, v] = *b;
    const std::size_t es = x->esize;
    std::vector<std::byte> out(v[1].size());
    for (std::size_t i = 0; i < v[0].size(); ++i)
      std::memcpy(out.data() + i * es, (v[0][i] != std::byte{0} ? v[1] : v[2]).data() + i * es, es);
    return fresh(x->type, std::move(dims), std::move(out));
  }

  const int cmp_op = op == "Equal" ? 1 : op == "Less" ? 2 : op == "Greater" ? 3 : op == "LessOrEqual" ? 4
                   : op == "GreaterOrEqual" ? 5 : 0;
  if (cmp_op) {
    if (opset < (cmp_op >= 4 ? 12 : 7) || in.size() != 2 || !n.attributes.empty()) return std::nullopt;
    auto a = detail::dense(input(0));
    auto b = detail::dense(input(1));
    if (!a || !b || a->type != b->type || !detail::castable(a->type)) return std::nullopt;
    auto bc = detail::broadcast_all({&*a, &*b}, limit);
    if (!bc) return std::nullopt;
    auto& [dims, v] = *bc;
    const std::size_t es = a->esize, count = v[0].size() / es;
    std::vector<std::byte> out(count);
    for (std::size_t i = 0; i < count; ++i) {
      const int c = detail::compare(*detail::read_scalar(a->type, v[0].data() + i * es),
                                    *detail::read_scalar(a->type, v[1].data() + i * es));
      const bool r = cmp_op == 1 ? c == 0 : cmp_op == 2 ? c == -1 : cmp_op == 3 ? c == 1 : cmp_op == 4 ? (c == -1 || c == 0)
                                                                                                   : (c == 1 || c == 0);
      out[i] = r ? std::byte{1} : std::byte{0};
    }
    return fresh(DataType::BOOL, std::move(dims), std::move(out));
  }

  if (op == "Not" || op == "And" || op == "Or" || op == "Xor") {
    const bool unary = op == "Not";
    if ((!unary && opset < 7) || in.size() != (unary ? 1u : 2u) || !n.attributes.empty()) return std::nullopt;
    auto a = detail::dense(input(0));
    auto b = unary ? a : detail::dense(input(1));
    if (!a || !b || a->type != DataType::BOOL || b->type != DataType::BOOL) return std::nullopt;
    auto bc = detail::broadcast_all({&*a, &*b}, limit);
    if (!bc) return std::nullopt;
    auto& [dims, v] = *bc;
    std::vector<std::byte> out(v[0].size());
    for (std::size_t i = 0; i < out.size(); ++i) {
      const bool x = v[0][i] != std::byte{0}, y = v[1][i] != std::byte{0};
      const bool r = op == "Not" ? !x : op == "And" ? (x && y) : op == "Or" ? (x || y) : (x != y);
      out[i] = r ? std::byte{1} : std::byte{0};
    }
    return fresh(DataType::BOOL, std::move(dims), std::move(out));
  }

  if (op == "Abs") {
    if (opset < 6 || in.size() != 1 || !n.attributes.empty()) return std::nullopt;
    auto a = detail::dense(input(0));
    if (!a || !detail::castable(a->type) || a->type == DataType::BOOL) return std::nullopt;
    std::vector<std::byte> out(a->bytes.begin(), a->bytes.end());
    const std::size_t es = a->esize;
    for (std::size_t i = 0; i < a->count; ++i) {
      std::byte* p = out.data() + i * es;
      switch (a->type) {
        case DataType::FLOAT:
        case DataType::DOUBLE:
        case DataType::FLOAT16:
        case DataType::BFLOAT16: p[es - 1] &= std::byte{0x7F}; break;  // the sign bit (little-endian)
        case DataType::INT8:
        case DataType::INT16:
        case DataType::INT32:
        case DataType::INT64: {
          const auto v = detail::read_scalar(a->type, p);
          if (v->s < 0) {
            const std::int64_t lowest =
                es == 8 ? std::numeric_limits<std::int64_t>::min() : -(std::int64_t{1} << (es * 8 - 1));
            if (v->s == lowest) return std::nullopt;  // |INT_MIN| is not representable
            detail::write_cast(DataType::INT64, a->type, detail::Scalar{detail::Scalar::Kind::Signed, -v->s, 0, 0}, p);
          }
          break;
        }
        default: break;  // unsigned: unchanged
      }
    }
    return fresh(a->type, a->dims, std::move(out));
  }

  if (op == "ReduceMax" || op == "ReduceMin") {
    // A selection: the result is one of the inputs' elements, bytes unchanged. Left unevaluated:
    // NaN (whether it wins differs between runtimes), -0 (max(-0, +0) is either), and reductions
    // over an empty axis (their value changed between versions).
    const bool is_max = op == "ReduceMax";
    if (in.empty() || in.size() > (opset >= 18 ? 2u : 1u)) return std::nullopt;
    for (const auto& a : n.attributes)
      if (a.name != "keepdims" && !(a.name == "axes" && opset < 18) && !(a.name == "noop_with_empty_axes" && opset >= 18))
        return std::nullopt;
    auto d = detail::dense(input(0));
    if (!d) return std::nullopt;
    switch (d->type) {  // the types of ReduceMax/ReduceMin-1 (int8/uint8 from 12, bfloat16 13, bool 20)
      case DataType::FLOAT: case DataType::DOUBLE: case DataType::FLOAT16: case DataType::INT32:
      case DataType::INT64: case DataType::UINT32: case DataType::UINT64: break;
      case DataType::INT8: case DataType::UINT8: if (opset < 12) return std::nullopt; break;
      case DataType::BFLOAT16: if (opset < 13) return std::nullopt; break;
      case DataType::BOOL: if (opset < 20) return std::nullopt; break;
      default: return std::nullopt;
    }
    const auto keep = detail::int_attr(n, "keepdims", 1);
    const auto noop = detail::int_attr(n, "noop_with_empty_axes", 0);
    if (!keep || !noop || (*keep != 0 && *keep != 1) || (*noop != 0 && *noop != 1)) return std::nullopt;
    std::vector<std::int64_t> axes;
    if (opset < 18) {
      if (auto a = detail::ints_attr(n, "axes", bad_attr)) axes = *a;
      else if (bad_attr) return std::nullopt;
    } else if (in.size() == 2 && !n.inputs[1].empty()) {
      auto a = detail::int_list(input(1), false);
      if (!a) return std::nullopt;
      axes = *a;
    }
    const std::size_t r = d->dims.size();
    std::vector<bool> reduced(r, axes.empty());
    if (axes.empty() && *noop == 1) return same_bytes(*d, d->dims);  // (18: no axes, no reduction)
    for (auto ax : axes) {
      const auto k = detail::axis(ax, r, neg_axes);
      if (!k || reduced[*k]) return std::nullopt;
      reduced[*k] = true;
    }
    std::vector<std::int64_t> dims;
    for (std::size_t a = 0; a < r; ++a)
      if (!reduced[a] || *keep) dims.push_back(reduced[a] ? 1 : d->dims[a]);
    // A reduction over an axis of size 0, even one with no output elements, is left to the
    // runtime: ONNX Runtime 1.30 differs from the spec there.
    for (std::size_t a = 0; a < r; ++a)
      if (reduced[a] && d->dims[a] == 0) return std::nullopt;
    const auto oc = detail::product(dims);
    if (!oc || !fits(dims, d->esize)) return std::nullopt;
    if (*oc == 0) return fresh(d->type, std::move(dims), {});
    // the output element of each input element: per axis, its contribution to the output offset
    std::vector<std::vector<std::int64_t>> c(r);
    for (std::size_t a = r, s = 1; a-- > 0;) {
      c[a] = detail::axis_offsets(d->dims[a], reduced[a] ? 0 : static_cast<std::int64_t>(s));
      if (!reduced[a]) s *= static_cast<std::size_t>(d->dims[a]);
    }
    const std::size_t es = d->esize;
    const auto out_count = static_cast<std::size_t>(*oc);
    std::vector<std::byte> out(out_count * es);
    std::vector<bool> seen(out_count, false);
    const bool ok = detail::for_each_offset(c, [&](std::uint64_t i, std::int64_t at) {
      const std::byte* p = d->bytes.data() + static_cast<std::size_t>(i) * es;
      const auto v = *detail::read_scalar(d->type, p);
      if (v.kind == detail::Scalar::Kind::Floating && (std::isnan(v.f) || (v.f == 0 && std::signbit(v.f))))
        return false;
      std::byte* q = out.data() + static_cast<std::size_t>(at) * es;
      if (!seen[static_cast<std::size_t>(at)] || detail::compare(v, *detail::read_scalar(d->type, q)) == (is_max ? 1 : -1))
        std::memcpy(q, p, es);
      seen[static_cast<std::size_t>(at)] = true;
      return true;
    });
    if (!ok) return std::nullopt;
    return fresh(d->type, std::move(dims), std::move(out));
  }

  if (op == "Floor" || op == "Ceil") {
    // Exact: the result is an integer of the input's own format. NaN is left to the runtime
    // (whether a signalling NaN comes back quiet differs); -0 and infinities stay as they are.
    if (opset < 6 || in.size() != 1 || !n.attributes.empty()) return std::nullopt;
    auto a = detail::dense(input(0));
    if (!a || (a->type != DataType::FLOAT && a->type != DataType::DOUBLE && a->type != DataType::FLOAT16 &&
               !(a->type == DataType::BFLOAT16 && opset >= 13)))
      return std::nullopt;
    std::vector<std::byte> out(a->bytes.begin(), a->bytes.end());
    for (std::size_t i = 0; i < a->count; ++i) {
      std::byte* p = out.data() + i * a->esize;
      auto v = *detail::read_scalar(a->type, p);
      if (std::isnan(v.f)) return std::nullopt;
      v.f = op == "Floor" ? std::floor(v.f) : std::ceil(v.f);
      if (!detail::write_cast(DataType::DOUBLE, a->type, v, p)) return std::nullopt;  // (exact: never)
    }
    return fresh(a->type, a->dims, std::move(out));
  }

  const char arith_op = op == "Add" ? '+' : op == "Sub" ? '-' : op == "Mul" ? '*' : op == "Div" ? '/' : op == "Neg" ? 'n' : 0;
  if (arith_op) {
    const bool unary = arith_op == 'n';
    // Before opset 7, binary operators broadcast only with the `broadcast` attribute (and then
    // differently): without it the shapes must be equal. Before 6, `consumed_inputs`.
    if (opset < 6 || in.size() != (unary ? 1u : 2u) || !n.attributes.empty()) return std::nullopt;
    auto a = detail::dense(input(0));
    auto b = unary ? a : detail::dense(input(1));
    if (!a || !b || a->type != b->type || (opset < 7 && a->dims != b->dims)) return std::nullopt;
    const DataType t = a->type;
    // float16/bfloat16 are left out: runtimes compute them in float and round twice
    if (!detail::castable(t) || t == DataType::BOOL || t == DataType::FLOAT16 || t == DataType::BFLOAT16)
      return std::nullopt;
    auto bc = detail::broadcast_all({&*a, &*b}, limit / a->esize);
    if (!bc) return std::nullopt;
    auto& [dims, v] = *bc;
    const std::vector<std::byte>& xa = v[0];
    const std::vector<std::byte>& xb = v[1];
    std::vector<std::byte> out(xa.size());
    bool ok = false;
    switch (t) {
      case DataType::FLOAT: ok = detail::arith_all<float>(arith_op, xa, xb, out); break;
      case DataType::DOUBLE: ok = detail::arith_all<double>(arith_op, xa, xb, out); break;
      case DataType::INT8: ok = detail::arith_all<std::int8_t>(arith_op, xa, xb, out); break;
      case DataType::INT16: ok = detail::arith_all<std::int16_t>(arith_op, xa, xb, out); break;
      case DataType::INT32: ok = detail::arith_all<std::int32_t>(arith_op, xa, xb, out); break;
      case DataType::INT64: ok = detail::arith_all<std::int64_t>(arith_op, xa, xb, out); break;
      case DataType::UINT8: ok = detail::arith_all<std::uint8_t>(arith_op, xa, xb, out); break;
      case DataType::UINT16: ok = detail::arith_all<std::uint16_t>(arith_op, xa, xb, out); break;
      case DataType::UINT32: ok = detail::arith_all<std::uint32_t>(arith_op, xa, xb, out); break;
      default: ok = detail::arith_all<std::uint64_t>(arith_op, xa, xb, out); break;
    }
    if (!ok) return std::nullopt;
    return fresh(t, std::move(dims), std::move(out));
  }
  return std::nullopt;
}

}  // namespace oxir::eval
