#pragma once
// Checks and size facts shared by the operator families' rules.

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <optional>
#include <string>
#include <string_view>

#include "../context.hpp"

namespace oxir::infer::ops {

/// A size divided by k where the division is provably exact (exact_div); a failure for a number
/// k does not divide; otherwise a fresh symbol.
inline DimExpr div_exact_or_fresh(InferContext& c, const DimExpr& d, std::int64_t k, std::string_view what) {
  const DimExpr r = c.resolve(d);
  if (auto q = exact_div(r, DimExpr(k))) return *q;
  if (const auto v = r.const_value())
    c.fail(std::string(what) + " " + std::to_string(*v) + " is not divisible by " + std::to_string(k));
  return c.fresh();
}

/// Fails unless the node has between `min` and `max` inputs with inputs 0..min-1 given.
inline void require_inputs(const InferContext& c, std::size_t min, std::size_t max) {
  if (c.input_count() < min || c.input_count() > max)
    c.fail("expects " + (min == max ? std::to_string(min) : std::to_string(min) + " to " + std::to_string(max)) +
           " inputs, got " + std::to_string(c.input_count()));
  for (std::size_t i = 0; i < min; ++i)
    if (!c.has_input(i)) c.fail("required input " + std::to_string(i) + " is missing");
}

/// Fails when the node's domain is imported at an opset older than `since`, where `op` appeared.
inline void require_opset(const InferContext& c, std::int64_t since, std::string_view op) {
  if (c.opset() < since)
    c.fail(std::string(op) + " needs opset " + std::to_string(since) + " of its domain (model imports " +
           std::to_string(c.opset()) + ")");
}

/// Whether a constant v fits in integer type `t` (or BOOL as 0/1).
inline bool fits(std::int64_t v, DataType t) {
  if (t == DataType::BOOL) return v == 0 || v == 1;
  if (!is_integer(t)) return false;
  const int bits = bit_width(t);
  if (bits <= 0) return false;
  if (is_signed(t)) {
    if (bits >= 64) return true;
    const std::int64_t lim = std::int64_t{1} << (bits - 1);
    return v >= -lim && v < lim;
  }
  if (v < 0) return false;
  if (bits >= 64) return true;
  return v < (std::int64_t{1} << bits);
}

// ---- facts about sizes shared by the rules ----

namespace nonneg_detail {
/// Sample sizes for refuting proofs: symbols are sizes, free to take any value >= 0 each, and a
/// proof (nonneg, provably_le) holds at every such choice. So where a claim fails at a sample,
/// no proof of it needs to be tried; being sound, the search would fail there too, and the
/// samples only ever save its work. The points: every size 0 (floor((T+1)/4) - 1), every size
/// large (3 - floor((T+1)/4) - floor((T+1)/2), which holds at 0), and large sizes alternating
/// with 0 by symbol id, either way round (a - b).
inline constexpr int kSamplePoints = 4;
inline constexpr std::int64_t kLargeSample = std::int64_t{1} << 20;
inline std::optional<std::int64_t> at_sample(const DimExpr& e, int point) {
  if (auto c = e.const_value()) return c;
  return e.evaluate([point](std::int64_t id) -> std::optional<std::int64_t> {
    const bool even = id % 2 == 0;
    switch (point) {
      case 0: return 0;
      case 1: return kLargeSample;
      case 2: return even ? kLargeSample : 0;
      default: return even ? 0 : kLargeSample;
    }
  });
}
/// nonneg with a work budget (terms visited, sizes built): every proof a real model needs takes a
/// few dozen units; a hostile expression runs out and is left unproven instead of costing
/// quadratic time at every element of every shape tensor.
inline bool nonneg_within(const DimExpr& e, std::int64_t& budget);
inline bool nonneg_atom_within(const Atom& a, std::int64_t& budget) {
  switch (a.op) {
    case Atom::Op::Symbol: return true;
    case Atom::Op::FloorDivConst:
      return a.id > 0 && a.args && !a.args->empty() && nonneg_within((*a.args)[0], budget);
    case Atom::Op::FloorDiv:
    case Atom::Op::Min:
      if (!a.args) return false;
      for (const auto& x : *a.args)
        if (!nonneg_within(x, budget)) return false;
      return true;
    case Atom::Op::Max:  // at least each operand: one non-negative operand is enough
      if (!a.args) return false;
      for (const auto& x : *a.args)
        if (nonneg_within(x, budget)) return true;
      return false;
  }
  return false;
}
// A term c*floor(x/k) (c != 0, k > 0) of e, replaced by a bound: floor(x/k) <= x/k when c < 0,
// floor(x/k) >= (x-k+1)/k when c > 0, so k*e is at least k*rest + c*x, resp.
// k*rest + c*(x-k+1), and e >= 0 follows when that bound is >= -(k-1) (e is an integer: e > -1).
// So L - floor((L+2)/3) >= 0 (3L - (L+2) = 2L - 2 >= -2). Floors merged by the canonical form
// are bounded more tightly through the floor they came from: with d dividing k, x = x1 + d*x2
// (x2 holds the terms whose coefficients d divides), floor(x/k) = floor((floor(x1/d) + x2)/(k/d)), and the bounds apply to that with
// y = floor(x1/d) + x2 over k/d. The divisors d tried are those of the other floors in e (where
// such a merged floor meets the one it came from). The recursion ends: each step removes a floor
// whose divisor is larger than any it introduces.
inline bool bound_term_within(const DimExpr& e, const Term& t, std::int64_t& budget) {
  const Atom& f = t.factors[0];
  if (!f.args || f.args->empty() || f.id <= 0) return false;
  const DimExpr& x = (*f.args)[0];
  const std::int64_t k = f.id;
  std::int64_t divisors[4] = {1, 0, 0, 0};
  std::size_t nd = 1;
  for (const auto& u : e.terms())
    for (const auto& g : u.factors)
      if (g.op == Atom::Op::FloorDivConst && g.id > 1 && g.id < k && k % g.id == 0 && nd < 4 &&
          std::find(divisors, divisors + nd, g.id) == divisors + nd)
        divisors[nd++] = g.id;
  // The arithmetic below is charged too: canonical forms of sums of floors can cost many times
  // their size, and a hostile expression must not make one proof cost seconds.
  std::uint64_t seen = detail::expr_work;
  auto charge = [&] {
    const auto used = static_cast<std::int64_t>(std::min<std::uint64_t>(detail::expr_work - seen, std::uint64_t{1} << 40));
    budget -= used;
    detail::proof_allowance -= used;
    seen = detail::expr_work;
    return budget >= 0 && detail::proof_allowance >= 0;
  };
  try {
    std::vector<Term> others;  // e without t
    for (const auto& u : e.terms())
      if (&u != &t) others.push_back(u);
    const DimExpr rest = DimExpr::from_terms(std::move(others));
    for (std::size_t i = nd; i-- > 0;) {  // the tighter views first
      const std::int64_t d = divisors[i], kd = k / d;
      budget -= static_cast<std::int64_t>(e.tree_size() + x.tree_size());
      if (!charge()) return false;
      DimExpr y = x;
      if (d > 1) {
        std::vector<Term> x1, x2;
        for (const auto& u : x.terms()) {
          if (u.factors.empty()) {
            const std::int64_t q = detail::floordiv_int(u.coeff, d);
            if (q) x2.push_back(Term{q, {}});
            if (const std::int64_t r = detail::floormod_int(u.coeff, d)) x1.push_back(Term{r, {}});
          } else if (u.coeff % d == 0) {
            x2.push_back(Term{u.coeff / d, u.factors});
          } else {
            x1.push_back(u);
          }
        }
        y = floor_div(DimExpr::from_terms(std::move(x1)), DimExpr(d)) + DimExpr::from_terms(std::move(x2));
      }
      // kd*e >= bound; e is an integer, so bound >= -(kd-1) is enough (then e > -1).
      const DimExpr bound = t.coeff < 0 ? DimExpr(kd) * rest + DimExpr(t.coeff) * y
                                        : DimExpr(kd) * rest + DimExpr(t.coeff) * (y - DimExpr(kd - 1));
      const DimExpr shifted = bound + DimExpr(kd - 1);
      if (!charge()) return false;
      const bool proven = nonneg_within(shifted, budget);
      seen = detail::expr_work;  // the nested proof charged its own
      if (proven) return true;
      if (budget < 0) return false;
    }
  } catch (const Error&) {  // overflow, or too large an expression: unproven
  }
  return false;
}

inline bool nonneg_within(const DimExpr& e, std::int64_t& budget) {
  // Terms with a non-negative coefficient and non-negative factors need nothing; a negative term,
  // or a positive floor of something not provably non-negative, needs a floor term bounded (see
  // bound_term_within): a negative floor first (remainders x - k*floor(x/k), what Mod
  // canonicalises to, e.g. torch's (7 - W % 7) % 7 window padding; ceilings h - floor(h/2)),
  // else a positive one (k*floor((x+k-1)/k) - x, a size rounded up to a multiple of k).
  bool needs_bound = false;
  const Term* floors[4] = {nullptr, nullptr, nullptr, nullptr};
  std::size_t nf = 0, negative_floors = 0;
  for (const auto& t : e.terms()) {
    if (--budget < 0) return false;
    const bool is_floor = t.factors.size() == 1 && t.factors[0].op == Atom::Op::FloorDivConst;
    if (is_floor && nf < 4) {
      // negative floors first
      if (t.coeff < 0) {
        for (std::size_t i = nf; i > negative_floors; --i) floors[i] = floors[i - 1];
        floors[negative_floors++] = &t;
      } else {
        floors[nf] = &t;
      }
      ++nf;
    }
    if (t.coeff < 0) {
      needs_bound = true;
      continue;
    }
    bool ok = true;
    for (const auto& f : t.factors)
      if (!nonneg_atom_within(f, budget)) {
        ok = false;
        break;
      }
    if (!ok) {
      if (!is_floor) return false;  // nothing bounds it
      needs_bound = true;
    }
  }
  if (!needs_bound) return true;
  // A proof holds at every choice of sizes, so no bound needs to be tried where e is negative at
  // one of the sample sizes (floor((T+1)/4) - 1 at T = 0, before a fact says T >= 3).
  for (int point = 0; point < kSamplePoints; ++point)
    if (auto v = at_sample(e, point); v && *v < 0) return false;
  for (std::size_t i = 0; i < nf; ++i)
    if (bound_term_within(e, *floors[i], budget)) return true;
  return false;
}
}  // namespace nonneg_detail

/// Provably non-negative when every symbol is (symbols are sizes): a polynomial with
/// non-negative coefficients through floor and min of such, max with one such operand, and
/// terms -c*floor(x/k) that the rest outweighs (remainders, ceilings; see nonneg_within).
inline constexpr std::int64_t kProofWork = 4096;  ///< work units one proof (nonneg, provably_le) may take
/// Work units every proof of one inference may take together (detail::proof_allowance). The real
/// models of the tests take at most 7,979 (torchvision's Swin); a hostile model of 6,000 nodes
/// whose every Slice asks for proofs over large sums of floors spent over 1.1 s in them. Past it,
/// the proofs that remain fail (sizes stay unproven, never wrong): about 0.4 s at most.
inline constexpr std::int64_t kModelProofWork = std::int64_t{1} << 22;
inline bool nonneg(const DimExpr& e) {
  std::int64_t budget = kProofWork;
  return nonneg_detail::nonneg_within(e, budget);
}
/// nonneg, at most kProofWork units of it taken from `budget` (shared by many proofs).
inline bool nonneg(const DimExpr& e, std::int64_t& budget) {
  if (budget <= 0) return false;
  std::int64_t mine = std::min(budget, kProofWork);
  const std::int64_t had = mine;
  const bool ok = nonneg_detail::nonneg_within(e, mine);
  budget -= had - std::max<std::int64_t>(mine, 0);
  return ok;
}

/// a <= b when provable (a constant difference, or b - a provably non-negative); false when a
/// constant difference proves a > b; nullopt otherwise. The proof costs at most `budget` work
/// units (see nonneg), taken from it: callers that compare many sizes share one budget.
inline std::optional<bool> provably_le(const DimExpr& a, const DimExpr& b, std::int64_t& budget) {
  if (a == b) return true;
  try {
    const DimExpr d = b - a;
    budget -= static_cast<std::int64_t>(d.tree_size());
    if (auto k = d.const_value()) return *k >= 0;
    if (budget > 0 && nonneg_detail::nonneg_within(d, budget)) return true;
  } catch (const Error&) {  // overflow, or too large a difference: unproven
  }
  return std::nullopt;
}
inline std::optional<bool> provably_le(const DimExpr& a, const DimExpr& b) {
  std::int64_t budget = kProofWork;
  return provably_le(a, b, budget);
}
/// A size that is never 1 whatever the symbols: a number other than 1, a multiple of some g >= 2
/// (every coefficient, the constant included, shares the factor), provably >= 2, or provably <= 0.
inline bool never_one(const DimExpr& e) {
  if (auto c = e.const_value()) return *c != 1;
  if (e.as_symbol()) return false;
  // The gcd of the coefficients' magnitudes, taken unsigned: std::gcd of a coefficient of -2^63
  // negates it, which int64 cannot hold.
  std::uint64_t g = 0;
  for (const auto& t : e.terms())
    g = std::gcd(g, t.coeff < 0 ? 0 - static_cast<std::uint64_t>(t.coeff) : static_cast<std::uint64_t>(t.coeff));
  if (g >= 2) return true;
  try {
    return nonneg(e - DimExpr(2)) || nonneg(-e);
  } catch (const Error&) {  // overflow: unproven
    return false;
  }
}

/// The sum of `xs`, added pairwise in a balanced tree. Adding n operands one after another
/// costs the running sum's size at every step, which is quadratic when thousands of inputs
/// bring hundreds of different symbols (a Concat of 20,000 tensors of a 300 KB file took over
/// a second); pairwise, each level of the tree costs the operands' total size once. Throws
/// ExprTooLarge (and CoefficientOverflow) as `+` does.
inline DimExpr sum_of(std::vector<DimExpr> xs) {
  if (xs.empty()) return DimExpr(0);
  while (xs.size() > 1) {
    std::size_t w = 0;
    for (std::size_t i = 0; i + 1 < xs.size(); i += 2) xs[w++] = xs[i] + xs[i + 1];
    if (xs.size() % 2 != 0) xs[w++] = std::move(xs.back());
    xs.resize(w);
  }
  return std::move(xs.front());
}

inline DimExpr min_of(const DimExpr& a, const DimExpr& b) {
  if (auto le = provably_le(a, b)) return *le ? a : b;
  if (auto le = provably_le(b, a)) return *le ? b : a;
  return min(a, b);
}
inline DimExpr max_of(const DimExpr& a, const DimExpr& b) {
  if (auto le = provably_le(a, b)) return *le ? b : a;
  if (auto le = provably_le(b, a)) return *le ? a : b;
  return max(a, b);
}

/// Output contents collected element by element: a plain vector when the sources are known whole,
/// elements known in part (PartialDims) when some source is known only in part, so the common
/// path converts nothing.
class Collect {
 public:
  Collect(bool partial, std::size_t n) : partial_(partial) {
    if (partial_) some_.reserve(n);
    else all_.reserve(n);
  }
  /// Adds an element; false (adding nothing) when it is not known and the contents must be whole.
  [[nodiscard]] bool push(std::optional<DimExpr> e) {
    if (partial_) {
      some_.push_back(std::move(e));
      return true;
    }
    if (!e) return false;
    all_.push_back(std::move(*e));
    return true;
  }
  [[nodiscard]] std::size_t size() const { return partial_ ? some_.size() : all_.size(); }
  /// Sets them as output i's contents (InferContext::set_output_value / set_output_elements).
  void set(InferContext& c, std::size_t i = 0) {
    if (partial_) c.set_output_elements(i, std::move(some_));
    else c.set_output_value(i, std::move(all_));
  }

 private:
  bool partial_;
  Dims all_;
  PartialDims some_;
};

}  // namespace oxir::infer::ops
