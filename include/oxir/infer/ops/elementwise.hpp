#pragma once
// Inference rules: elementwise operators (see docs/inference.md).
//
// Unary math and activations keep the input's type and shape; binary and variadic operators
// broadcast (numpy rules, or the limited `broadcast`/`axis` form of opsets 1–6); comparisons
// and logical operators yield BOOL; Cast/CastLike change the element type. Operators that are
// commonly applied to shape tensors (Add, Sub, Mul, Div, Mod, Min, Max, Sum, Neg, Abs, Sign,
// Relu, Equal, Less…, Where, Not, And/Or/Xor, Clip, Cast, CastLike, Floor/Ceil/Round) also
// propagate the symbolic contents of their inputs, element by element, when every output element
// is determined.

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "../engine.hpp"
#include "common.hpp"

namespace oxir::infer::ops {

namespace elementwise_detail {

// ---- generic checks ----

/// Fails unless the node has between `lo` and `hi` inputs and the first `lo` are given.
inline void check_inputs(InferContext& c, std::size_t lo, std::size_t hi) {
  // Trailing empty names are absent optional inputs.
  std::size_t n = c.input_count();
  while (n > 0 && !c.has_input(n - 1)) --n;
  if (n < lo || n > hi) {
    std::string want = lo == hi ? std::to_string(lo)
                       : hi == SIZE_MAX ? "at least " + std::to_string(lo)
                                        : std::to_string(lo) + " to " + std::to_string(hi);
    c.fail("expects " + want + " inputs, got " + std::to_string(n));
  }
  for (std::size_t i = 0; i < lo; ++i)
    if (!c.has_input(i)) c.fail("required input " + std::to_string(i) + " is missing");
  for (std::size_t i = 0; i < n; ++i) {
    const auto& t = c.input_type(i);
    if (!t.is_unknown() && !t.is_tensor()) c.fail("input " + std::to_string(i) + " must be a tensor");
  }
}

/// A tensor of `elem` with input i's shape (unknown rank if unknown).
inline ValueType like_input(const InferContext& c, std::size_t i, DataType elem) {
  ValueType t = ValueType::tensor(elem);
  if (const Dims* s = c.input_shape(i)) t.shape = *s;
  return t;
}

/// Element types of inputs `idx` must agree where known; returns the known one (or UNDEFINED).
inline DataType common_elem(InferContext& c, std::initializer_list<std::size_t> idx) {
  DataType e = DataType::UNDEFINED;
  for (auto i : idx) {
    const DataType x = c.input_elem(i);
    if (x == DataType::UNDEFINED) continue;
    if (e == DataType::UNDEFINED)
      e = x;
    else if (e != x)
      c.fail(std::string("input element types differ: ") + std::string(data_type_name(e)) + " vs " +
             std::string(data_type_name(x)));
  }
  return e;
}

// ---- symbolic values ----

/// Input i's symbolic contents, each element resolved.
inline std::optional<Dims> values(const InferContext& c, std::size_t i) {
  const Dims* d = c.input_value(i);
  if (!d) return std::nullopt;
  Dims r;
  r.reserve(d->size());
  for (const auto& e : *d) r.push_back(c.resolve(e));
  return r;
}

/// Number of elements of a tensor of rank 0 or 1 with a known size (at most kMaxSymbolicElements).
inline std::optional<std::size_t> vector_count(const InferContext& c, const ValueType& t) {
  if (!t.has_shape()) return std::nullopt;
  if (t.shape->empty()) return 1;
  if (t.shape->size() != 1) return std::nullopt;
  auto v = c.resolve((*t.shape)[0]).const_value();
  if (!v || *v < 0 || *v > static_cast<std::int64_t>(kMaxSymbolicElements)) return std::nullopt;
  return static_cast<std::size_t>(*v);
}
/// Number of elements of output 0 when it is a tensor of rank 0 or 1 with a known size.
inline std::optional<std::size_t> output_count(const InferContext& c) { return vector_count(c, c.output_type(0)); }

/// Sets output 0's contents when their count matches its shape.
inline void set_values(InferContext& c, Dims v) {
  auto n = output_count(c);
  if (!n || *n != v.size()) return;
  c.set_output_value(0, std::move(v));
}

inline bool is_int_like(DataType e) { return is_integer(e) || e == DataType::BOOL; }

using BinFn = std::optional<DimExpr> (*)(const DimExpr&, const DimExpr&, InferContext&);

/// An input's contents as far as they are known, read in place: all of them (input_value) or
/// some (input_partial_value).
/// With neither `all` nor `some`, `none` elements of which nothing is known (sized_elems).
struct Elems {
  const Dims* all = nullptr;
  const PartialDims* some = nullptr;
  std::size_t none = 0;
  [[nodiscard]] std::size_t size() const { return all ? all->size() : some ? some->size() : none; }
  [[nodiscard]] bool known_in_part() const { return all || some; }
  /// Element k of the broadcast contents (a single element broadcasts), nullptr if unknown.
  [[nodiscard]] const DimExpr* get(std::size_t k) const {
    const std::size_t j = size() == 1 ? 0 : k;
    if (all) return &(*all)[j];
    if (!some) return nullptr;
    const auto& e = (*some)[j];
    return e ? &*e : nullptr;
  }
};
inline std::optional<Elems> elems(const InferContext& c, std::size_t i) {
  if (const Dims* v = c.input_value(i)) return Elems{v, nullptr};
  if (const PartialDims* p = c.input_partial_value(i)) return Elems{nullptr, p};
  return std::nullopt;
}
/// Like elems, and for an integer or bool input of rank 0 or 1 whose contents are not tracked but
/// whose element count is a number (a ReduceMax, an ArgMax, a graph input), that many unknown
/// elements: for operators whose result some operands decide alone (`Mul` by 0, `And` with
/// false, `Where` with a known condition).
inline std::optional<Elems> sized_elems(const InferContext& c, std::size_t i) {
  if (auto e = elems(c, i)) return e;
  const auto& t = c.input_type(i);
  if (!t.is_tensor() || !(is_integer(t.elem) || t.elem == DataType::BOOL)) return std::nullopt;
  if (auto n = vector_count(c, t)) return Elems{nullptr, nullptr, *n};
  return std::nullopt;
}
/// Broadcast length of element vectors (each of size 1 or n), or nullopt.
inline std::optional<std::size_t> broadcast_len(std::span<const Elems> vs) {
  std::size_t n = 1;
  for (const auto& v : vs) {
    if (v.size() == 1) continue;
    if (n == 1)
      n = v.size();
    else if (v.size() != n)
      return std::nullopt;
  }
  for (const auto& v : vs)
    if (v.size() == 0 && n != 0) return std::nullopt;
  return n;
}
/// Sets output 0's contents when their count is the output's.
inline void set_collected(InferContext& c, Collect& out) {
  if (auto n = output_count(c); n && *n == out.size()) out.set(c);
}

/// The warning for shape-tensor contents dropped because an element grew past what is tracked.
inline void warn_untracked(const InferContext& c, const ExprTooLarge& e) {
  c.warn(std::string(e.message()) + ": the computed shape-tensor contents are left unknown");
}

/// Work allowed for folding a variadic operator's operands into one element of its contents:
/// the sum of the running result's size (DimExpr::tree_size) over the steps. Each step costs
/// about that size, so a Min of 20,000 shape tensors whose running min holds hundreds of sizes
/// would otherwise take seconds for one node of a small file. Real models fold a few operands
/// of a few terms each.
inline constexpr std::uint64_t kFoldWork = 4 * std::uint64_t{kMaxExprSize};

/// Applies f element by element (left fold) to the broadcast contents of inputs `idx` (two or
/// more); sets output 0's contents when every element is determined. When an input is known
/// only in part, so is the result: an element is known where every operand's is and f
/// determines it.
///
/// `absorbing`, when given, is a value z with f(x, z) = f(z, x) = z for every x the operands can
/// hold (0 for an integer Mul, false for And, true for Or): an element is z wherever one operand's
/// is, whatever the others are, and operands whose contents are not tracked at all take part as
/// unknown elements (sized_elems).
inline void propagate(InferContext& c, std::span<const std::size_t> idx, BinFn f,
                      std::optional<std::int64_t> absorbing = std::nullopt) {
  if (idx.size() < 2) return;
  try {
    // The inputs' contents are read in place (a variadic Sum of thousands of inputs must not
    // copy them all) and each element resolved where it is used.
    std::vector<Elems> ps;
    bool partial = false, any_known = false;
    for (auto i : idx) {
      auto e = absorbing ? sized_elems(c, i) : elems(c, i);
      if (!e) return;
      partial = partial || !e->all;
      any_known = any_known || e->known_in_part();
      ps.push_back(*e);
    }
    if (!any_known) return;
    auto n = broadcast_len(ps);
    if (!n) return;
    Collect out(partial, *n);
    for (std::size_t k = 0; k < *n; ++k) {
      std::uint64_t work = 0;  // see kFoldWork
      if (absorbing) {
        const bool absorbed = std::any_of(ps.begin(), ps.end(), [&](const Elems& p) {
          const DimExpr* e = p.get(k);
          return e && c.resolve(*e).is(*absorbing);
        });
        if (absorbed) {
          if (!out.push(DimExpr(*absorbing))) return;
          continue;
        }
      }
      const DimExpr* first = ps[0].get(k);
      std::optional<DimExpr> acc;
      if (first) acc = c.resolve(*first);
      for (std::size_t j = 1; j < ps.size() && acc; ++j) {
        const DimExpr* b = ps[j].get(k);
        auto r = b ? f(*acc, c.resolve(*b), c) : std::nullopt;
        acc = r ? std::optional<DimExpr>(c.resolve(*r)) : std::nullopt;
        if (acc && (work += acc->tree_size()) > kFoldWork) {
          c.warn("the contents of " + std::to_string(ps.size()) +
                 " inputs folded into one element grow past what inference tracks (" +
                 std::to_string(kFoldWork) + " terms and factors over the steps): the computed shape-tensor "
                 "contents are left unknown");
          return;
        }
      }
      if (!out.push(std::move(acc))) return;
    }
    set_collected(c, out);
  } catch (const FreshSymbolsExhausted&) {  // the engine says that once, for the model
  } catch (const ExprTooLarge& e) {  // an element grew past what is tracked: said, left unknown
    warn_untracked(c, e);
  } catch (const Error&) {
    // overflow of a number (it wraps at run time), a division by zero: contents unknown
  }
}

using UnFn = std::optional<DimExpr> (*)(const DimExpr&, InferContext&);
inline void propagate_unary(InferContext& c, UnFn f) {
  try {
    auto v = elems(c, 0);
    if (!v) return;
    Collect out(v->some != nullptr, v->size());
    for (std::size_t k = 0; k < v->size(); ++k) {
      const DimExpr* e = v->get(k);
      auto r = e ? f(c.resolve(*e), c) : std::nullopt;
      if (!out.push(r ? std::optional<DimExpr>(c.resolve(*r)) : std::nullopt)) return;
    }
    set_collected(c, out);
  } catch (const FreshSymbolsExhausted&) {
  } catch (const ExprTooLarge& e) {
    warn_untracked(c, e);
  } catch (const Error&) {
  }
}

// ---- element functions ----

inline std::optional<DimExpr> v_add(const DimExpr& a, const DimExpr& b, InferContext&) { return a + b; }
inline std::optional<DimExpr> v_sub(const DimExpr& a, const DimExpr& b, InferContext&) { return a - b; }
inline std::optional<DimExpr> v_mul(const DimExpr& a, const DimExpr& b, InferContext&) { return a * b; }
inline std::optional<DimExpr> v_min(const DimExpr& a, const DimExpr& b, InferContext&) { return min_of(a, b); }
inline std::optional<DimExpr> v_max(const DimExpr& a, const DimExpr& b, InferContext&) { return max_of(a, b); }

/// ONNX Div: integer division truncates toward zero; float division is exact (only integral
/// results are representable as contents).
inline std::optional<DimExpr> v_div(const DimExpr& a, const DimExpr& b, InferContext& c) {
  if (b.is(0)) return std::nullopt;
  const bool integral = is_int_like(c.input_elem(0));
  auto ca = a.const_value(), cb = b.const_value();
  if (ca && cb) {
    if (*ca == std::numeric_limits<std::int64_t>::min() && *cb == -1) return std::nullopt;
    if (!integral && *ca % *cb != 0) return std::nullopt;
    return DimExpr(*ca / *cb);  // C++ division truncates, like ONNX integer Div
  }
  if (auto q = exact_div(a, b)) return *q;
  if (!integral) return std::nullopt;
  // Truncation equals floor division for a non-negative numerator and a positive divisor.
  if (c.provably_nonneg(a) && c.provably_nonneg(b) && (!cb || *cb > 0)) return floor_div(a, b);
  // A numerator that is at least -(k-1) for a divisor k > 1 (torch's (S-1)/2 before opset 11):
  // truncation gives 0 where floor gives -1, so the quotient is max(0, floor(a/k)).
  if (cb && *cb > 1 && c.provably_nonneg(a + DimExpr(*cb - 1))) return max_of(DimExpr(0), floor_div(a, b));
  // A numerator of unknown sign over a constant k: truncation is floor division of the positive
  // part minus that of the negative part, floor(max(0,a)/|k|) - floor(max(0,-a)/|k|), negated
  // for k < 0 ((W-2)/2 is 0 at W = 1, where floor gives -1).
  if (cb && *cb != std::numeric_limits<std::int64_t>::min()) {
    try {
      const DimExpr k(*cb < 0 ? -*cb : *cb);
      const DimExpr q = floor_div(max_of(DimExpr(0), a), k) - floor_div(max_of(DimExpr(0), -a), k);
      return *cb < 0 ? -q : q;
    } catch (const Error&) {
      return std::nullopt;  // too large to track: this element stays unknown
    }
  }
  return std::nullopt;
}

/// Mod with fmod = 0: the result has the divisor's sign (floor semantics, as DimExpr's mod).
inline std::optional<DimExpr> v_mod_floor(const DimExpr& a, const DimExpr& b, InferContext& c) {
  if (b.is(0)) return std::nullopt;
  auto ca = a.const_value(), cb = b.const_value();
  if (ca && cb) {
    if (*cb == -1) return DimExpr(0);
    std::int64_t r = *ca % *cb;
    if (r != 0 && ((r < 0) != (*cb < 0))) r += *cb;
    return DimExpr(r);
  }
  if (cb || (c.provably_nonneg(a) && c.provably_nonneg(b))) return mod(a, b);
  return std::nullopt;
}
/// Mod with fmod = 1: the result has the dividend's sign (C fmod).
inline std::optional<DimExpr> v_mod_trunc(const DimExpr& a, const DimExpr& b, InferContext& c) {
  if (b.is(0)) return std::nullopt;
  auto ca = a.const_value(), cb = b.const_value();
  if (ca && cb) {
    if (*cb == -1) return DimExpr(0);
    return DimExpr(*ca % *cb);
  }
  const bool a_nonneg = c.provably_nonneg(a);  // one proof, used twice
  if (a_nonneg && c.provably_nonneg(b) && (!cb || *cb > 0)) return mod(a, b);
  // A constant divisor k: the remainder's magnitude is |a| mod |k| and its sign a's, so it is
  // mod(max(0,a), |k|) - mod(max(0,-a), |k|) whatever the signs (fmod(S-5, 3) is -2 at S = 0).
  if (cb && *cb != std::numeric_limits<std::int64_t>::min()) {
    try {
      const DimExpr k(*cb < 0 ? -*cb : *cb);
      if (a_nonneg) return mod(a, k);
      return mod(max_of(DimExpr(0), a), k) - mod(max_of(DimExpr(0), -a), k);
    } catch (const Error&) {
      return std::nullopt;  // too large to track: this element stays unknown
    }
  }
  return std::nullopt;
}

/// Sign of a - b when known: -1, 0, 1. Symbols in contents are sizes (non-negative), so a
/// difference whose non-constant part cannot be negative (positive) and whose constant is
/// positive (negative) has a known sign: Equal(size, -1) is false, as in the exporters'
/// Where(Equal(shape, -1), 1, shape) before an Expand.
inline std::optional<int> compare_values(const DimExpr& a, const DimExpr& b, const InferContext& c) {
  if (a == b) return 0;
  const DimExpr d = a - b;
  if (auto v = d.const_value()) return *v < 0 ? -1 : (*v > 0 ? 1 : 0);
  const std::int64_t k = d.constant_term();
  const DimExpr rest = d - DimExpr(k);
  if (k > 0 && c.provably_nonneg(rest)) return 1;
  if (k < 0 && c.provably_nonneg(-rest)) return -1;
  return std::nullopt;
}
inline std::optional<DimExpr> v_eq(const DimExpr& a, const DimExpr& b, InferContext& c) {
  auto s = compare_values(a, b, c);
  if (!s) return std::nullopt;
  return DimExpr(*s == 0 ? 1 : 0);
}
inline std::optional<DimExpr> v_lt(const DimExpr& a, const DimExpr& b, InferContext& c) {
  auto s = compare_values(a, b, c);
  if (!s) return std::nullopt;
  return DimExpr(*s < 0 ? 1 : 0);
}
inline std::optional<DimExpr> v_le(const DimExpr& a, const DimExpr& b, InferContext& c) {
  auto s = compare_values(a, b, c);
  if (!s) return std::nullopt;
  return DimExpr(*s <= 0 ? 1 : 0);
}
inline std::optional<DimExpr> v_gt(const DimExpr& a, const DimExpr& b, InferContext& c) {
  auto s = compare_values(a, b, c);
  if (!s) return std::nullopt;
  return DimExpr(*s > 0 ? 1 : 0);
}
inline std::optional<DimExpr> v_ge(const DimExpr& a, const DimExpr& b, InferContext& c) {
  auto s = compare_values(a, b, c);
  if (!s) return std::nullopt;
  return DimExpr(*s >= 0 ? 1 : 0);
}
inline std::optional<bool> as_bool(const DimExpr& a) {
  auto v = a.const_value();
  if (!v) return std::nullopt;
  return *v != 0;
}
inline std::optional<DimExpr> v_and(const DimExpr& a, const DimExpr& b, InferContext&) {
  auto x = as_bool(a), y = as_bool(b);
  if (x && y) return DimExpr(*x && *y ? 1 : 0);
  if ((x && !*x) || (y && !*y)) return DimExpr(0);
  return std::nullopt;
}
inline std::optional<DimExpr> v_or(const DimExpr& a, const DimExpr& b, InferContext&) {
  auto x = as_bool(a), y = as_bool(b);
  if (x && y) return DimExpr(*x || *y ? 1 : 0);
  if ((x && *x) || (y && *y)) return DimExpr(1);
  return std::nullopt;
}
inline std::optional<DimExpr> v_xor(const DimExpr& a, const DimExpr& b, InferContext&) {
  auto x = as_bool(a), y = as_bool(b);
  if (x && y) return DimExpr(*x != *y ? 1 : 0);
  return std::nullopt;
}

inline std::optional<DimExpr> u_neg(const DimExpr& a, InferContext&) { return -a; }
inline std::optional<DimExpr> u_abs(const DimExpr& a, InferContext& c) {
  if (auto v = a.const_value()) {
    if (*v == std::numeric_limits<std::int64_t>::min()) return std::nullopt;
    return DimExpr(*v < 0 ? -*v : *v);
  }
  if (c.provably_nonneg(a)) return a;
  if (DimExpr n = -a; c.provably_nonneg(n)) return n;
  return std::nullopt;
}
inline std::optional<DimExpr> u_sign(const DimExpr& a, InferContext&) {
  if (auto v = a.const_value()) return DimExpr(*v < 0 ? -1 : (*v > 0 ? 1 : 0));
  return std::nullopt;
}
inline std::optional<DimExpr> u_not(const DimExpr& a, InferContext&) {
  auto x = as_bool(a);
  if (!x) return std::nullopt;
  return DimExpr(*x ? 0 : 1);
}
inline std::optional<DimExpr> u_same(const DimExpr& a, InferContext&) { return a; }
inline std::optional<DimExpr> u_relu(const DimExpr& a, InferContext& c) {
  if (auto v = a.const_value()) return DimExpr(*v < 0 ? 0 : *v);
  if (c.provably_nonneg(a)) return a;
  return std::nullopt;
}

// ---- unary operators ----

enum class Un { Plain, Neg, Abs, Sign, Relu, IntegralSame, Not, IsNaN, IsInf, BitwiseNot };

template <Un K>
void unary_rule(InferContext& c) {
  check_inputs(c, 1, 1);
  DataType e = c.input_elem(0);
  if constexpr (K == Un::IsNaN || K == Un::IsInf || K == Un::Not) {
    if (K == Un::Not && e != DataType::UNDEFINED && e != DataType::BOOL) c.fail("Not expects a BOOL input");
    if (K != Un::Not && e != DataType::UNDEFINED && !is_floating(e)) c.fail("input must be a floating-point tensor");
    e = DataType::BOOL;
  }
  if constexpr (K == Un::BitwiseNot)
    if (e != DataType::UNDEFINED && !is_integer(e)) c.fail("BitwiseNot expects an integer input");
  c.set_output(0, like_input(c, 0, e));
  if constexpr (K == Un::Neg) propagate_unary(c, &u_neg);
  if constexpr (K == Un::Abs) propagate_unary(c, &u_abs);
  if constexpr (K == Un::Sign) propagate_unary(c, &u_sign);
  if constexpr (K == Un::Relu) propagate_unary(c, &u_relu);
  if constexpr (K == Un::IntegralSame) propagate_unary(c, &u_same);  // contents are integers
  if constexpr (K == Un::Not) propagate_unary(c, &u_not);
}

/// Gelu: `approximate` is "none" or "tanh".
inline void gelu_rule(InferContext& c) {
  const auto a = c.attr_string("approximate", "none");
  if (a != "none" && a != "tanh") c.fail("Gelu approximate must be 'none' or 'tanh', got '" + a + "'");
  unary_rule<Un::Plain>(c);
}

/// Softmax, LogSoftmax, Hardmax: the axis must be in range; before opset 13 it defaults to 1.
inline void softmax_rule(InferContext& c) {
  check_inputs(c, 1, 1);
  const std::int64_t axis = c.attr_int("axis", c.opset() < 13 ? 1 : -1);
  if (auto r = c.input_rank(0)) {
    // Before opset 13 the input is coerced to 2D at `axis`; opsets 1–10 also accept axis = rank
    // (a [prod, 1] matrix), from 11 on the axis is in [-r, r-1].
    if (!(c.opset() < 11 && axis >= 0 && axis == *r)) (void)c.normalize_axis(axis, *r);
  }
  c.set_output(0, like_input(c, 0, c.input_elem(0)));
}

/// PRelu: slope broadcasts to X (unidirectionally, from version 7); the output has X's shape.
/// Versions 1 and 6 have no broadcasting rule: their slope is one value per channel (a [C] slope
/// against [N, C, L], as PyTorch 0.3 exported it), so no relation between the shapes is claimed.
inline void prelu_rule(InferContext& c) {
  check_inputs(c, 2, 2);
  const DataType e = common_elem(c, {0, 1});
  const Dims* x = c.input_shape(0);
  const Dims* s = c.input_shape(1);
  if (x && s && c.opset() >= 7) {
    if (s->size() > x->size()) c.fail("slope has a higher rank than X");
    const std::size_t off = x->size() - s->size();
    for (std::size_t k = 0; k < s->size(); ++k) {
      const DimExpr sd = c.resolve((*s)[k]);
      const DimExpr xd = c.resolve((*x)[off + k]);
      if (sd.is(1)) continue;
      if (sd.is_const())
        c.unify(xd, sd, "PRelu slope dim " + std::to_string(k));
      else if (xd.is(1))
        c.unify(sd, DimExpr(1), "PRelu slope dim " + std::to_string(k));
    }
  }
  c.set_output(0, like_input(c, 0, e));
}

// ---- binary operators ----

enum class Bin {
  Add, Sub, Mul, Div, Mod, Pow, And, Or, Xor, BitShift, BitwiseAnd, BitwiseOr, BitwiseXor,
  Equal, Less, LessOrEqual, Greater, GreaterOrEqual
};

constexpr bool legacy_broadcast(Bin k) {
  switch (k) {
    case Bin::Add: case Bin::Sub: case Bin::Mul: case Bin::Div: case Bin::Pow:
    case Bin::And: case Bin::Or: case Bin::Xor: case Bin::Equal: case Bin::Less: case Bin::Greater:
      return true;
    default: return false;
  }
}
constexpr bool bool_output(Bin k) {
  switch (k) {
    case Bin::And: case Bin::Or: case Bin::Xor: case Bin::Equal: case Bin::Less: case Bin::LessOrEqual:
    case Bin::Greater: case Bin::GreaterOrEqual:
      return true;
    default: return false;
  }
}

/// Output shape of a binary operator (nullopt = unknown rank).
inline std::optional<Dims> binary_shape(InferContext& c, bool legacy) {
  const Dims* a = c.input_shape(0);
  const Dims* b = c.input_shape(1);
  if (legacy) {
    // Opsets 1–6: without `broadcast` the shapes are equal; with broadcast = 1, B matches a
    // contiguous run of A's dims starting at `axis` (default: its suffix), dims of 1 in B
    // stretch. The output has A's shape.
    const std::int64_t bc = c.attr_int("broadcast", 0);
    if (bc == 0) {
      if (a && b) {
        if (a->size() != b->size()) c.fail("inputs have different ranks and broadcast is not set");
        for (std::size_t k = 0; k < a->size(); ++k) c.unify((*a)[k], (*b)[k], "input dim " + std::to_string(k));
      }
      if (a) return *a;
      if (b) return *b;
      return std::nullopt;
    }
    if (!a) return std::nullopt;
    if (b) {
      const auto ra = static_cast<std::int64_t>(a->size());
      const auto rb = static_cast<std::int64_t>(b->size());
      if (rb > ra) c.fail("B has a higher rank than A (legacy broadcasting)");
      std::int64_t axis = ra - rb;
      if (c.has_attr("axis")) {
        const std::int64_t given = c.attr_int("axis", 0);
        axis = given < 0 ? given + ra : given;
        if (axis < 0 || axis > ra - rb) c.fail("axis " + std::to_string(given) + " is out of range");
      }
      for (std::int64_t j = 0; j < rb; ++j) {
        const DimExpr bd = c.resolve((*b)[static_cast<std::size_t>(j)]);
        if (bd.is(1) || !bd.is_const()) continue;  // a symbolic dim of B may be 1
        c.unify((*a)[static_cast<std::size_t>(axis + j)], bd, "broadcast dim " + std::to_string(j));
      }
    }
    return *a;
  }
  if (a && b) return c.broadcast(*a, *b);
  return std::nullopt;
}

template <Bin K>
void binary_rule(InferContext& c) {
  check_inputs(c, 2, 2);
  DataType e;
  if constexpr (K == Bin::Pow) {
    e = c.input_elem(0);  // base and exponent may differ from opset 12 on
    if (c.opset() < 12) e = common_elem(c, {0, 1});
  } else {
    e = common_elem(c, {0, 1});
  }
  if constexpr (K == Bin::And || K == Bin::Or || K == Bin::Xor)
    if (e != DataType::UNDEFINED && e != DataType::BOOL) c.fail("logical operators expect BOOL inputs");
  if constexpr (K == Bin::BitShift) {
    if (!c.has_attr("direction")) c.fail("missing required attribute 'direction'");
    const auto d = c.attr_string("direction", "");
    if (d != "LEFT" && d != "RIGHT") c.fail("direction must be LEFT or RIGHT, got '" + d + "'");
  }
  if constexpr (K == Bin::BitShift || K == Bin::BitwiseAnd || K == Bin::BitwiseOr || K == Bin::BitwiseXor)
    if (e != DataType::UNDEFINED && !is_integer(e)) c.fail("bitwise operators expect integer inputs");
  std::int64_t fmod = 0;
  if constexpr (K == Bin::Mod) {
    fmod = c.attr_int("fmod", 0);
    if (fmod != 0 && fmod != 1) c.fail("fmod must be 0 or 1");
    if (fmod == 0 && e != DataType::UNDEFINED && is_floating(e))
      c.fail("Mod of floating-point inputs requires fmod = 1");
  }
  const DataType out_elem = bool_output(K) ? DataType::BOOL : e;
  auto shape = binary_shape(c, legacy_broadcast(K) && c.opset() < 7);
  c.set_output(0, shape ? ValueType::tensor(out_elem, std::move(*shape)) : ValueType::tensor(out_elem));
  static constexpr std::size_t ab[] = {0, 1};
  if constexpr (K == Bin::Add) propagate(c, ab, &v_add);
  if constexpr (K == Bin::Sub) propagate(c, ab, &v_sub);
  // An integer times 0 is 0 (a float times 0 is NaN for an infinity or a NaN).
  if constexpr (K == Bin::Mul) propagate(c, ab, &v_mul, is_integer(e) ? std::optional<std::int64_t>(0) : std::nullopt);
  if constexpr (K == Bin::Div) propagate(c, ab, &v_div);
  if constexpr (K == Bin::Mod) propagate(c, ab, fmod == 0 ? &v_mod_floor : &v_mod_trunc);
  if constexpr (K == Bin::Equal) propagate(c, ab, &v_eq);
  if constexpr (K == Bin::Less) propagate(c, ab, &v_lt);
  if constexpr (K == Bin::LessOrEqual) propagate(c, ab, &v_le);
  if constexpr (K == Bin::Greater) propagate(c, ab, &v_gt);
  if constexpr (K == Bin::GreaterOrEqual) propagate(c, ab, &v_ge);
  if constexpr (K == Bin::And) propagate(c, ab, &v_and, 0);
  if constexpr (K == Bin::Or) propagate(c, ab, &v_or, 1);
  if constexpr (K == Bin::Xor) propagate(c, ab, &v_xor);
}

// ---- variadic operators ----

enum class Var { Sum, Mean, Max, Min };

template <Var K>
void variadic_rule(InferContext& c) {
  check_inputs(c, 1, SIZE_MAX);
  const std::size_t n = c.input_count();
  for (std::size_t i = 0; i < n; ++i)
    if (!c.has_input(i)) c.fail("input " + std::to_string(i) + " is missing");
  DataType e = DataType::UNDEFINED;
  for (std::size_t i = 0; i < n; ++i) {
    const DataType x = c.input_elem(i);
    if (x == DataType::UNDEFINED) continue;
    if (e == DataType::UNDEFINED)
      e = x;
    else if (e != x)
      c.fail("input element types differ");
  }
  std::vector<const Dims*> shapes;
  bool all_known = true;
  for (std::size_t i = 0; i < n; ++i) {
    if (const Dims* s = c.input_shape(i))
      shapes.push_back(s);
    else
      all_known = false;
  }
  std::optional<Dims> out;
  if (c.opset() < 8) {
    // Before opset 8 every input has the same shape.
    for (std::size_t j = 1; j < shapes.size(); ++j) {
      if (shapes[j]->size() != shapes[0]->size()) c.fail("inputs have different ranks (no broadcasting before opset 8)");
      for (std::size_t k = 0; k < shapes[0]->size(); ++k)
        c.unify((*shapes[0])[k], (*shapes[j])[k], "input dim " + std::to_string(k));
    }
    if (!shapes.empty()) out = *shapes[0];
  } else if (all_known) {
    out = c.broadcast(std::span<const Dims* const>(shapes));
  }
  c.set_output(0, out ? ValueType::tensor(e, std::move(*out)) : ValueType::tensor(e));
  if (n == 1) {
    propagate_unary(c, &u_same);  // a single input is passed through
    return;
  }
  std::vector<std::size_t> idx;
  for (std::size_t i = 0; i < n; ++i) idx.push_back(i);
  if constexpr (K == Var::Sum) propagate(c, idx, &v_add);
  if constexpr (K == Var::Max) propagate(c, idx, &v_max);
  if constexpr (K == Var::Min) propagate(c, idx, &v_min);
}

// ---- Where, Clip ----

inline void where_rule(InferContext& c) {
  check_inputs(c, 3, 3);
  const DataType ce = c.input_elem(0);
  if (ce != DataType::UNDEFINED && ce != DataType::BOOL) c.fail("Where condition must be BOOL");
  const DataType e = common_elem(c, {1, 2});
  const Dims* s0 = c.input_shape(0);
  const Dims* s1 = c.input_shape(1);
  const Dims* s2 = c.input_shape(2);
  if (s0 && s1 && s2) {
    const Dims* ss[] = {s0, s1, s2};
    c.set_output(0, e, c.broadcast(std::span<const Dims* const>(ss)));
  } else {
    c.set_output(0, ValueType::tensor(e));
  }
  try {
    // A known condition picks its branch's element whether or not the other's are tracked.
    auto cv = sized_elems(c, 0), xv = sized_elems(c, 1), yv = sized_elems(c, 2);
    if (!cv || !xv || !yv || !cv->known_in_part() || !(xv->known_in_part() || yv->known_in_part())) return;
    const Elems all[] = {*cv, *xv, *yv};
    auto n = broadcast_len(all);
    if (!n) return;
    Collect out(!cv->all || !xv->all || !yv->all, *n);
    for (std::size_t k = 0; k < *n; ++k) {
      const DimExpr* cond = cv->get(k);
      const DimExpr* x = xv->get(k);
      const DimExpr* y = yv->get(k);
      auto b = cond ? as_bool(c.resolve(*cond)) : std::nullopt;
      std::optional<DimExpr> pick;
      if (b) {
        if (const DimExpr* chosen = *b ? x : y) pick = c.resolve(*chosen);
      } else if (x && y && c.resolve(*x) == c.resolve(*y)) {
        pick = c.resolve(*x);  // either way the same
      }
      if (!out.push(std::move(pick))) return;
    }
    set_collected(c, out);
  } catch (const Error&) {
  }
}

inline void clip_rule(InferContext& c) {
  std::optional<std::int64_t> lo, hi;
  if (c.opset() < 11) {
    check_inputs(c, 1, 1);
  } else {
    check_inputs(c, 1, 3);
    (void)common_elem(c, {0, 1, 2});
    for (std::size_t i = 1; i <= 2; ++i) {
      auto r = c.input_rank(i);
      if (c.has_input(i) && r && *r > 1) c.fail("Clip min/max must be scalars");
    }
  }
  const DataType e = c.input_elem(0);
  c.set_output(0, like_input(c, 0, e));
  if (c.opset() < 11 || !is_int_like(e)) return;
  // Integer clipping of shape contents with constant bounds.
  auto bound = [&](std::size_t i, std::optional<std::int64_t>& out) -> bool {
    if (!c.has_input(i)) return true;
    auto v = c.input_ints(i);
    if (!v || v->size() != 1) return false;
    out = (*v)[0];
    return true;
  };
  if (!bound(1, lo) || !bound(2, hi)) return;
  try {
    auto v = values(c, 0);
    if (!v) return;
    Dims out;
    for (const auto& x : *v) {
      DimExpr r = x;
      if (lo) r = max_of(r, DimExpr(*lo));
      if (hi) r = min_of(r, DimExpr(*hi));
      out.push_back(c.resolve(r));
    }
    set_values(c, std::move(out));
  } catch (const Error&) {
  }
}

// ---- Cast, CastLike ----

/// Output 0's contents for a cast of input 0 to `to`.
inline void cast_values(InferContext& c, DataType to) {
  const DataType from = c.input_elem(0);
  if (from == DataType::UNDEFINED || to == DataType::UNDEFINED) return;
  if (!is_int_like(to) && to != DataType::FLOAT && to != DataType::DOUBLE) return;
  // Contents known in part pass a cast that keeps every value of the input's type.
  if (const PartialDims* p = c.input_partial_value(0)) {
    if (to != DataType::BOOL && is_int_like(from) &&
        (to == from || (to == DataType::INT64 && (is_signed(from) || bit_width(from) < 64))))
      if (auto n = output_count(c); n && *n == p->size()) c.set_output_elements(0, *p);
    return;
  }
  try {
    std::optional<Dims> v;
    if (auto iv = values(c, 0)) {
      v = std::move(iv);
    } else if (is_floating(from)) {
      // A float constant: only integral values convert exactly.
      auto r = c.input_rank(0);
      if (!r || *r > 1) return;
      auto f = c.input_floats(0);
      if (!f || f->size() > kMaxSymbolicElements) return;
      Dims d;
      for (double x : *f) {
        if (!std::isfinite(x) || std::trunc(x) != x || std::fabs(x) > 9.0e15) return;
        d.emplace_back(static_cast<std::int64_t>(x));
      }
      v = std::move(d);
    }
    if (!v) return;
    Dims out;
    for (const auto& x : *v) {
      auto cx = x.const_value();
      if (is_int_like(to)) {
        if (cx) {
          if (to == DataType::BOOL) {
            out.emplace_back(*cx != 0 ? 1 : 0);
            continue;
          }
          if (!fits(*cx, to)) return;  // wraps or saturates: not tracked
          out.push_back(x);
        } else {
          if (to == DataType::BOOL || !is_int_like(from)) return;
          // Every value survives a cast to its own type, and to int64 from a signed type or a
          // narrower unsigned one.
          const bool preserved =
              to == from || (to == DataType::INT64 && (is_signed(from) || bit_width(from) < 64));
          // Otherwise a symbolic size keeps its value in a wide enough integer type.
          if (!preserved && (!c.provably_nonneg(x) || bit_width(to) < 32)) return;
          out.push_back(x);
        }
      } else {
        // To FLOAT/DOUBLE: only constants that convert exactly.
        if (!cx) return;
        const std::int64_t lim = to == DataType::FLOAT ? (std::int64_t{1} << 24) : (std::int64_t{1} << 53);
        if (*cx > lim || *cx < -lim) return;
        out.push_back(x);
      }
    }
    set_values(c, std::move(out));
  } catch (const Error&) {
  }
}

/// `saturate` (opset 19) is 0 or 1; `round_mode` (opset 25) is "up", "down" or "nearest".
inline void check_cast_attrs(InferContext& c) {
  if (c.opset() >= 19 && c.has_attr("saturate")) {
    const auto s = c.attr_int("saturate", 1);
    if (s != 0 && s != 1) c.fail("saturate must be 0 or 1");
  }
  if (c.opset() >= 25 && c.has_attr("round_mode")) {
    const auto m = c.attr_string("round_mode", "up");
    if (m != "up" && m != "down" && m != "nearest") c.fail("round_mode must be up, down or nearest, got '" + m + "'");
  }
}

inline void cast_rule(InferContext& c) {
  check_inputs(c, 1, 1);
  const Attribute* a = c.attr("to");
  if (!a) c.fail("missing required attribute 'to'");
  DataType to = DataType::UNDEFINED;
  if (a->kind() == AttributeType::STRING) {  // opset 1 spelled the type as a string
    auto t = data_type_from_name(a->as_string());
    if (!t) c.fail("unknown element type '" + a->as_string() + "' in 'to'");
    to = *t;
  } else {
    const std::int64_t v = c.attr_int("to", 0);
    if (v < 0 || v > 1000 || !is_known(static_cast<DataType>(v)))
      c.fail("'to' is not a known element type: " + std::to_string(v));
    to = static_cast<DataType>(v);
  }
  if (to == DataType::UNDEFINED) c.fail("'to' is UNDEFINED");
  check_cast_attrs(c);
  c.set_output(0, like_input(c, 0, to));
  cast_values(c, to);
}

inline void castlike_rule(InferContext& c) {
  check_inputs(c, 2, 2);
  const DataType to = c.input_elem(1);
  check_cast_attrs(c);
  c.set_output(0, like_input(c, 0, to));
  cast_values(c, to);
}

}  // namespace elementwise_detail

inline void register_elementwise_ops(OpRegistry& r) {
  using namespace elementwise_detail;
  // Unary math and activations: same type, same shape.
  for (const char* op :
       {"Sqrt", "Reciprocal", "Exp", "Log", "Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh",
        "Acosh", "Atanh", "Erf", "LeakyRelu", "Elu", "Selu", "Celu", "Sigmoid", "HardSigmoid", "HardSwish", "Softplus",
        "Softsign", "Tanh", "ThresholdedRelu", "Mish", "Shrink", "Swish",
        // Experimental operators removed from ONNX in opset 10, still in opset 1-9 models.
        "Affine", "ScaledTanh", "ParametricSoftplus", "Scale"})
    r.add("", op, &unary_rule<Un::Plain>);
  for (const char* op : {"Floor", "Ceil", "Round"}) r.add("", op, &unary_rule<Un::IntegralSame>);
  r.add("", "Neg", &unary_rule<Un::Neg>);
  r.add("", "Abs", &unary_rule<Un::Abs>);
  r.add("", "Sign", &unary_rule<Un::Sign>);
  r.add("", "Relu", &unary_rule<Un::Relu>);
  r.add("", "Not", &unary_rule<Un::Not>);
  r.add("", "IsNaN", &unary_rule<Un::IsNaN>);
  r.add("", "IsInf", &unary_rule<Un::IsInf>);
  r.add("", "BitwiseNot", &unary_rule<Un::BitwiseNot>);
  r.add("", "Gelu", &gelu_rule);
  r.add("", "PRelu", &prelu_rule);
  for (const char* op : {"Softmax", "LogSoftmax", "Hardmax"}) r.add("", op, &softmax_rule);
  // Binary.
  r.add("", "Add", &binary_rule<Bin::Add>);
  r.add("", "Sub", &binary_rule<Bin::Sub>);
  r.add("", "Mul", &binary_rule<Bin::Mul>);
  r.add("", "Div", &binary_rule<Bin::Div>);
  r.add("", "Mod", &binary_rule<Bin::Mod>);
  r.add("", "Pow", &binary_rule<Bin::Pow>);
  r.add("", "And", &binary_rule<Bin::And>);
  r.add("", "Or", &binary_rule<Bin::Or>);
  r.add("", "Xor", &binary_rule<Bin::Xor>);
  r.add("", "BitShift", &binary_rule<Bin::BitShift>);
  r.add("", "BitwiseAnd", &binary_rule<Bin::BitwiseAnd>);
  r.add("", "BitwiseOr", &binary_rule<Bin::BitwiseOr>);
  r.add("", "BitwiseXor", &binary_rule<Bin::BitwiseXor>);
  r.add("", "Equal", &binary_rule<Bin::Equal>);
  r.add("", "Less", &binary_rule<Bin::Less>);
  r.add("", "LessOrEqual", &binary_rule<Bin::LessOrEqual>);
  r.add("", "Greater", &binary_rule<Bin::Greater>);
  r.add("", "GreaterOrEqual", &binary_rule<Bin::GreaterOrEqual>);
  // Variadic.
  r.add("", "Sum", &variadic_rule<Var::Sum>);
  r.add("", "Mean", &variadic_rule<Var::Mean>);
  r.add("", "Max", &variadic_rule<Var::Max>);
  r.add("", "Min", &variadic_rule<Var::Min>);
  r.add("", "Where", &where_rule);
  r.add("", "Clip", &clip_rule);
  r.add("", "Cast", &cast_rule);
  r.add("", "CastLike", &castlike_rule);
}

}  // namespace oxir::infer::ops
