#pragma once
// Size facts that a model's validity implies beyond its operators' output shapes.
//
// An index into a Gather must lie inside the gathered axis ("it is an error if any of the index
// values are out of bounds"). When the indices are a Range over sizes (position ids
// `Range(past, past + new)` into a table of 1024 positions), every execution that succeeds has
// `past + new <= 1024`, or no index at all (new = 0). Such a fact settles the min/max that
// clamped slices leave behind: a causal mask `bias[past : past + new]` of a 1024-row buffer has
// `max(0, min(past+new, 1024) - min(past, 1024))` rows, which is `new` in every execution that
// gets past the position embedding.
//
// The sizes of main-graph tensors are facts too (>= 0), which a size expression such as a
// convolution's floor(S/5)-1 does not show: max(0, floor(S/5)-1) is then floor(S/5)-1.
//
// Facts are collected only from nodes of the main graph (which always run; a node in a branch or
// a loop body may not) and hold for the whole model once found. They only ever remove operands of
// min/max, and only when the result is proven equal in every execution: a fact guarded by a
// tensor's element count (`new >= 1` above) is used only when the rewritten size and the
// original agree with each guard symbol set to 0.

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <vector>

#include "ops/common.hpp"

namespace oxir::infer {

/// When guard >= 1: lhs <= rhs. `guard` is a number or a product of symbols (an element count).
struct SizeFact {
  DimExpr guard, lhs, rhs;
};

/// Facts kept per model of each kind, index bounds and sizes (hostile models could otherwise
/// make every node pay for thousands).
inline constexpr std::size_t kMaxSizeFacts = 32;
/// Work spent applying facts, per model: a unit per subexpression visited, kFactComparisonWork
/// per comparison of two sizes plus the work of its proof (ops::nonneg's units, each proof at
/// most ops::kProofWork, including the terms the arithmetic of the proof puts through
/// DimExpr::from_terms). The real models of the tests use at most 12,131 (a circular pad); a
/// random 58-node program with a Range bounded by a Gather needed 65,617 to apply its one fact to
/// every size it bounds (the old budget, 65,536, left one output unsimplified, and reading the
/// inferred model back then gave a simpler size than the first pass); a hostile model that asked for thousands of
/// comparisons of large sizes took seconds before proofs and their arithmetic were charged here
/// (now about 0.1 s at most per model). Past the budget, sizes are left as they are.
inline constexpr std::int64_t kMaxFactWork = std::int64_t{1} << 18;
inline constexpr std::int64_t kFactComparisonWork = 16;

namespace facts_detail {

inline bool has_minmax(const DimExpr& e) {
  if (e.is_const() || e.as_symbol()) return false;
  for (const auto& t : e.terms())
    for (const auto& a : t.factors) {
      if (a.op == Atom::Op::Min || a.op == Atom::Op::Max) return true;
      if (a.op != Atom::Op::Symbol && a.args)
        for (const auto& x : *a.args)
          if (has_minmax(x)) return true;
    }
  return false;
}

/// a <= b, proven within `budget` (shared by every comparison of one model: a proof may take
/// thousands of units, and a hostile model can ask for thousands of comparisons).
inline bool proven_le(const DimExpr& a, const DimExpr& b, std::int64_t& budget) {
  if (budget <= 0) return false;
  std::int64_t mine = std::min(budget, ops::kProofWork);
  const std::int64_t had = mine;
  const auto le = ops::provably_le(a, b, mine);
  budget -= had - mine;
  return le && *le;
}
inline bool proven_le(const DimExpr& a, const DimExpr& b) {
  const auto le = ops::provably_le(a, b);
  return le && *le;
}

/// x <= y, directly or through the fact (gap g = rhs - lhs >= 0): y - x >= g, that is
/// x - lhs <= y - rhs; or, sizes being integers, 2(y - x) >= g - 1 (then y - x >= -1/2, so
/// >= 0), which is what the fact 2a-3 >= 0 needs to give a-1 <= 2a-3.
/// Each of the three is tried only when it holds at every sample size (ops::nonneg_detail::
/// at_sample), checked on the numbers before any sum is built: the sums' canonical forms (floor
/// halves merged) cost far more than the proofs that then fail.
inline bool le_under(const DimExpr& x, const DimExpr& y, const SizeFact& f, std::int64_t& budget) {
  const auto sub = [](std::int64_t a, std::int64_t b) {
    if (b == std::numeric_limits<std::int64_t>::min()) throw Error("dimension expression", "integer overflow");
    return detail::checked_add(a, -b);
  };
  bool plain = true, shifted = true, doubled = true;
  for (int point = 0; point < ops::nonneg_detail::kSamplePoints; ++point) {
    const auto vx = ops::nonneg_detail::at_sample(x, point), vy = ops::nonneg_detail::at_sample(y, point);
    if (!vx || !vy) continue;
    if (*vx > *vy) plain = false;
    const auto vl = ops::nonneg_detail::at_sample(f.lhs, point), vr = ops::nonneg_detail::at_sample(f.rhs, point);
    if (!vl || !vr) continue;
    try {
      const std::int64_t dyx = sub(*vy, *vx), gap = sub(*vr, *vl);
      if (sub(dyx, gap) < 0) shifted = false;
      if (sub(detail::checked_mul(2, dyx), sub(gap, 1)) < 0) doubled = false;
    } catch (const Error&) {  // overflow: not refuted there
    }
  }
  if (plain && proven_le(x, y, budget)) return true;
  if (shifted && proven_le(x - f.lhs, y - f.rhs, budget)) return true;
  if (!doubled) return false;
  const DimExpr gap = f.rhs - f.lhs;
  return proven_le(gap - DimExpr(1), DimExpr(2) * (y - x), budget);
}

inline DimExpr refine(const DimExpr& e, const SizeFact& f, std::int64_t& budget);

inline DimExpr refine_atom(const Atom& a, const SizeFact& f, std::int64_t& budget) {
  std::vector<DimExpr> args;
  args.reserve(a.args->size());
  for (const auto& x : *a.args) args.push_back(refine(x, f, budget));
  if (a.op != Atom::Op::Min && a.op != Atom::Op::Max) return detail::rebuild_atom(a, std::move(args));
  const bool is_max = a.op == Atom::Op::Max;
  // An operand goes when another one (kept, or still to come) bounds it: at least the last of a
  // group of equal operands stays.
  std::vector<DimExpr> kept;
  for (std::size_t i = 0; i < args.size(); ++i) {
    bool dominated = false;
    auto beats = [&](const DimExpr& other) {
      budget -= kFactComparisonWork;
      if (budget <= 0) return false;
      return is_max ? le_under(args[i], other, f, budget) : le_under(other, args[i], f, budget);
    };
    for (const auto& k : kept)
      if (!dominated && beats(k)) dominated = true;
    for (std::size_t j = i + 1; j < args.size() && !dominated; ++j)
      if (beats(args[j])) dominated = true;
    if (!dominated) kept.push_back(std::move(args[i]));
  }
  DimExpr r = kept[0];
  for (std::size_t i = 1; i < kept.size(); ++i) r = is_max ? ops::max_of(r, kept[i]) : ops::min_of(r, kept[i]);
  return r;
}

inline DimExpr refine(const DimExpr& e, const SizeFact& f, std::int64_t& budget) {
  if (--budget <= 0 || !has_minmax(e)) return e;
  DimExpr sum;
  for (const auto& t : e.terms()) {
    DimExpr prod(t.coeff);
    for (const auto& a : t.factors)
      prod = prod * (a.op == Atom::Op::Symbol ? DimExpr::symbol(a.id) : refine_atom(a, f, budget));
    sum = sum + prod;
  }
  return sum;
}

/// Symbols one of which is 0 whenever `guard` (an element count, so >= 0) is below 1: empty
/// when the guard is provably >= 1; for a product of sizes, the symbols of its factors, where a
/// factor is a symbol or a min of such factors (0 only when one of them is). nullopt otherwise.
inline std::optional<std::vector<std::int64_t>> guard_symbols(const DimExpr& guard) {
  if (auto c = guard.const_value()) {
    if (*c >= 1) return std::vector<std::int64_t>{};
    return std::nullopt;
  }
  if (proven_le(DimExpr(1), guard)) return std::vector<std::int64_t>{};
  std::vector<std::int64_t> ids;
  auto add_factor = [&](const auto& self, const Atom& a) -> bool {
    if (a.op == Atom::Op::Symbol) {
      if (std::find(ids.begin(), ids.end(), a.id) == ids.end()) ids.push_back(a.id);
      return true;
    }
    if (a.op != Atom::Op::Min || !a.args) return false;
    for (const auto& x : *a.args) {
      const auto& t = x.terms();
      if (t.size() != 1 || t[0].coeff < 1) return false;
      for (const auto& f : t[0].factors)
        if (!self(self, f)) return false;
    }
    return true;
  };
  const auto& t = guard.terms();
  if (t.size() != 1 || t[0].coeff < 1) return std::nullopt;
  for (const auto& a : t[0].factors)
    if (!add_factor(add_factor, a)) return std::nullopt;
  return ids;
}

}  // namespace facts_detail

/// Whether a fact can carry `guard`: provably >= 1, or a product of sizes (see guard_symbols).
inline bool usable_guard(const DimExpr& guard) { return facts_detail::guard_symbols(guard).has_value(); }

/// `e` with the min/max operands that `facts` (resolved, like `e`) prove redundant removed. A
/// fact whose guard is a product of symbols is applied only when the result and `e` agree with
/// each of those symbols set to 0 (the executions the fact says nothing about). `budget` (work
/// units, see kMaxFactWork) is shared by the calls of one model.
inline DimExpr apply_size_facts(const DimExpr& e, std::span<const SizeFact> facts, std::int64_t& budget) {
  DimExpr cur = e;
  for (const auto& f : facts) {
    if (budget <= 0 || !facts_detail::has_minmax(cur)) break;
    try {
      DimExpr r = facts_detail::refine(cur, f, budget);
      if (budget <= 0) break;  // cut short: r may not be complete
      if (r == cur) continue;
      const auto ids = facts_detail::guard_symbols(f.guard);
      if (!ids) continue;
      bool agree = true;
      for (const std::int64_t g : *ids) {
        auto zero = [g](std::int64_t id) { return id == g ? DimExpr(0) : DimExpr::symbol(id); };
        if (!(cur.substitute(zero) == r.substitute(zero))) {
          agree = false;
          break;
        }
      }
      if (agree) cur = std::move(r);
    } catch (const Error&) {  // overflow or too large an expression: left as it is
    }
  }
  return cur;
}

}  // namespace oxir::infer
