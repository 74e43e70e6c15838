#pragma once
// Checks and size facts shared by the operator families' rules.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "../context.hpp"

namespace oxir::infer::ops {

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

// ---- facts about sizes shared by the rules ----

namespace nonneg_detail {
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
inline bool nonneg_within(const DimExpr& e, std::int64_t& budget) {
  const Term* negative = nullptr;  // the one term of the form -c*floor(x/k) allowed below
  for (const auto& t : e.terms()) {
    if (--budget < 0) return false;
    if (t.coeff < 0) {
      if (negative) return false;
      negative = &t;
      continue;
    }
    for (const auto& f : t.factors)
      if (!nonneg_atom_within(f, budget)) return false;
  }
  if (!negative) return true;
  // One term -c*floor(x/k) (c, k > 0): since floor(x/k) <= x/k, e = rest - c*floor(x/k) is at
  // least rest - c*x/k, which is >= 0 when k*rest - c*x is. That covers remainders
  // x - k*floor(x/k) (what Mod canonicalises to, e.g. torch's (7 - W % 7) % 7 window padding)
  // and ceilings h - floor(h/2) = ceil(h/2). The recursion ends: the new negative terms come
  // from x, nested inside the floor removed.
  const auto& t = *negative;
  if (t.factors.size() != 1 || t.factors[0].op != Atom::Op::FloorDivConst) return false;
  const Atom& f = t.factors[0];
  if (!f.args || f.args->empty() || f.id <= 0) return false;
  const DimExpr& x = (*f.args)[0];
  budget -= static_cast<std::int64_t>(e.tree_size() + x.tree_size());
  if (budget < 0) return false;
  try {
    std::vector<Term> others;  // e without the negative term
    for (const auto& u : e.terms())
      if (&u != negative) others.push_back(u);
    const DimExpr rest = DimExpr::from_terms(std::move(others));
    return nonneg_within(DimExpr(f.id) * rest - DimExpr(-t.coeff) * x, budget);
  } catch (const Error&) {
    return false;
  }
}
}  // namespace nonneg_detail

/// Provably non-negative when every symbol is (symbols are sizes): a polynomial with
/// non-negative coefficients through floor and min of such, max with one such operand, and
/// terms -c*floor(x/k) that the rest outweighs (remainders, ceilings; see nonneg_within).
inline bool nonneg(const DimExpr& e) {
  std::int64_t budget = 4096;
  return nonneg_detail::nonneg_within(e, budget);
}

/// a <= b when provable (a constant difference, or b - a provably non-negative); false when a
/// constant difference proves a > b; nullopt otherwise.
inline std::optional<bool> provably_le(const DimExpr& a, const DimExpr& b) {
  if (a == b) return true;
  try {
    const DimExpr d = b - a;
    if (auto k = d.const_value()) return *k >= 0;
    if (nonneg(d)) return true;
  } catch (const Error&) {  // overflow, or too large a difference: unproven
  }
  return std::nullopt;
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

}  // namespace oxir::infer::ops
