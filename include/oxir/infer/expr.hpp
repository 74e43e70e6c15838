#pragma once
// Symbolic dimension sizes: canonical integer expressions over symbols.
//
// A DimExpr is a polynomial with integer coefficients whose variables ("atoms") are symbols
// (numbered; names live in a SymbolTable) or compound atoms: floor(a/k), floor(a/b), min(a,…),
// max(a,…). Every operation returns the canonical form (terms and factors sorted, like terms
// combined, constants folded, floor division by a constant normalised so that the remainder part
// of its numerator lies in [0,k)), so two expressions that are equal by these rules compare equal
// and print equal. See docs/inference.md for the printed syntax.

#include <algorithm>
#include <compare>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <numeric>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "../core/error.hpp"

namespace oxir::infer {

class DimExpr;

/// Largest size expression built, counted as a tree: one per term, per factor, and per factor
/// of the expressions inside floor/min/max (shared subexpressions count every time they occur,
/// as they do when printed). Real models stay far below (the deepest in the test corpora is
/// under 100); a model whose size arithmetic would grow past it (N*N squared over and over,
/// floors nested in their own operands) gets ExprTooLarge instead of expressions that double at
/// every node, so time, memory and printed dim_params stay bounded.
inline constexpr std::uint32_t kMaxExprSize = 1000;

/// Thrown by DimExpr arithmetic whose result would exceed kMaxExprSize. The inference engine
/// leaves the sizes concerned unknown.
class ExprTooLarge : public Error {
 public:
  ExprTooLarge()
      : Error("dimension expression", "size expression larger than " + std::to_string(kMaxExprSize) +
                                          " terms and factors") {}

 protected:
  ExprTooLarge(std::string what, std::string message) : Error(std::move(what), std::move(message)) {}
};

/// Thrown when a coefficient of a term with symbols leaves int64 (2584*A + 4181*B doubling along
/// a chain of Concats). Unlike a number that overflows, such an expression is not proof of an
/// invalid model (it is a size whenever its symbols are 0; as shape-tensor contents it is what
/// int64 arithmetic wraps around at run time), so like ExprTooLarge the sizes concerned are
/// only left unknown.
class CoefficientOverflow : public ExprTooLarge {
 public:
  CoefficientOverflow()
      : ExprTooLarge("dimension expression", "a coefficient of a symbolic size outside the int64 range") {}
};

/// A variable of the polynomial: a symbol or a compound expression the polynomial cannot absorb.
struct Atom {
  enum class Op : std::uint8_t { Symbol = 0, FloorDivConst = 1, FloorDiv = 2, Min = 3, Max = 4 };
  Op op = Op::Symbol;
  std::int64_t id = 0;                              ///< symbol id (Symbol) or divisor (FloorDivConst)
  std::shared_ptr<const std::vector<DimExpr>> args;  ///< operands of compound atoms
};

/// coeff × (product of factors); factors sorted, repeated for powers. No factors = a constant.
struct Term {
  std::int64_t coeff = 0;
  std::vector<Atom> factors;
};

namespace detail {
std::strong_ordering compare_atoms(const Atom& a, const Atom& b);
std::strong_ordering compare_factor_lists(const std::vector<Atom>& a, const std::vector<Atom>& b);
}  // namespace detail

/// An integer size expression in canonical form. Constants and single symbols are stored inline
/// (no allocation); larger expressions share one immutable term list.
class DimExpr {
 public:
  DimExpr() = default;  ///< the constant 0
  DimExpr(std::int64_t v) : v_(v) {}  // NOLINT(google-explicit-constructor)
  DimExpr(int v) : v_(v) {}           // NOLINT(google-explicit-constructor)

  /// The symbol with this id.
  [[nodiscard]] static DimExpr symbol(std::int64_t id) {
    DimExpr e;
    e.rep_ = Rep::Symbol;
    e.v_ = id;
    return e;
  }

  [[nodiscard]] bool is_const() const noexcept { return rep_ == Rep::Const; }
  /// The value if constant.
  [[nodiscard]] std::optional<std::int64_t> const_value() const noexcept {
    if (rep_ == Rep::Const) return v_;
    return std::nullopt;
  }
  [[nodiscard]] bool is(std::int64_t v) const noexcept { return rep_ == Rep::Const && v_ == v; }
  /// The symbol id if this is exactly one symbol.
  [[nodiscard]] std::optional<std::int64_t> as_symbol() const noexcept {
    if (rep_ == Rep::Symbol) return v_;
    return std::nullopt;
  }
  /// The constant part (the term without factors).
  [[nodiscard]] std::int64_t constant_term() const noexcept {
    if (rep_ == Rep::Const) return v_;
    if (rep_ == Rep::Symbol) return 0;
    return (!p_->empty() && p_->back().factors.empty()) ? p_->back().coeff : 0;
  }
  /// The canonical terms: sorted by factor list (higher degree first, the constant last), no
  /// zero coefficients. (Materialised on first use for inline forms; not thread-safe then.)
  [[nodiscard]] const std::vector<Term>& terms() const {
    if (rep_ != Rep::General && !p_) {
      auto t = std::make_shared<std::vector<Term>>();
      if (rep_ == Rep::Symbol)
        t->push_back(Term{1, {Atom{Atom::Op::Symbol, v_, nullptr}}});
      else if (v_ != 0)
        t->push_back(Term{v_, {}});
      p_ = std::move(t);
    }
    return *p_;
  }

  /// Builds the canonical form of a sum of terms.
  [[nodiscard]] static DimExpr from_terms(std::vector<Term> terms);
  /// The rest of from_terms for terms already sorted and combined (no zero coefficients).
  [[nodiscard]] static DimExpr from_combined_terms(std::vector<Term> out);

  friend DimExpr operator+(const DimExpr& a, const DimExpr& b);
  friend DimExpr operator-(const DimExpr& a, const DimExpr& b);
  friend DimExpr operator-(const DimExpr& a);
  friend DimExpr operator*(const DimExpr& a, const DimExpr& b);
  DimExpr& operator+=(const DimExpr& b) { return *this = *this + b; }
  DimExpr& operator-=(const DimExpr& b) { return *this = *this - b; }
  DimExpr& operator*=(const DimExpr& b) { return *this = *this * b; }

  friend bool operator==(const DimExpr& a, const DimExpr& b) {
    if (a.rep_ != b.rep_) return false;  // canonical: a form has one representation
    if (a.rep_ != Rep::General) return a.v_ == b.v_;
    return a.p_ == b.p_ || compare(a, b) == 0;
  }
  friend std::strong_ordering compare(const DimExpr& a, const DimExpr& b) {
    if (a.rep_ == Rep::Const && b.rep_ == Rep::Const) {
      // Same order as the term lists: 0 (no terms) after any other constant.
      if (a.v_ == 0 || b.v_ == 0) return (a.v_ != 0) <=> (b.v_ != 0);
      return a.v_ <=> b.v_;
    }
    if (a.rep_ == Rep::Symbol && b.rep_ == Rep::Symbol) return a.v_ <=> b.v_;
    const auto& x = a.terms();
    const auto& y = b.terms();
    const auto n = std::min(x.size(), y.size());
    for (std::size_t i = 0; i < n; ++i) {
      if (auto c = detail::compare_factor_lists(x[i].factors, y[i].factors); c != 0) return c;
      if (auto c = x[i].coeff <=> y[i].coeff; c != 0) return c;
    }
    return x.size() <=> y.size();
  }

  /// Calls f(symbol id) for every symbol occurring in the expression (with repetitions).
  template <class F>
  void for_each_symbol(F&& f) const {
    if (rep_ == Rep::Symbol) return (void)f(v_);
    if (rep_ == Rep::Const) return;
    for (const auto& t : *p_) for_each_symbol_of(t, f);
  }
  /// The same for one term of an expression.
  template <class F>
  static void for_each_symbol_of(const Term& t, F&& f) {
    for (const auto& a : t.factors) {
      if (a.op == Atom::Op::Symbol)
        f(a.id);
      else
        for (const auto& e : *a.args) e.for_each_symbol(f);
    }
  }
  /// Replaces every symbol by subst(id) and re-canonicalises.
  [[nodiscard]] DimExpr substitute(const std::function<DimExpr(std::int64_t)>& subst) const;
  /// The value with every symbol replaced by value(id); nullopt if a division by zero or an
  /// unknown symbol (value returns nullopt) occurs.
  [[nodiscard]] std::optional<std::int64_t> evaluate(
      const std::function<std::optional<std::int64_t>(std::int64_t)>& value) const;
  /// Prints with `name(id)` for symbols; see docs/inference.md for the syntax.
  [[nodiscard]] std::string to_string(const std::function<std::string(std::int64_t)>& name) const;
  /// Appends the printed form to `out`; `name(id)` gives a symbol's name as anything a
  /// std::string can append (a const std::string&, a string_view): no temporaries per symbol.
  template <class Name>
  void print(std::string& out, Name&& name) const;
  /// The shared term list of a general expression (nullptr for constants and single symbols):
  /// equal pointers mean equal expressions.
  [[nodiscard]] const void* shared_terms() const noexcept { return rep_ == Rep::General ? p_.get() : nullptr; }
  /// Number of atoms (a measure of size, used to cap expression growth).
  [[nodiscard]] std::size_t complexity() const noexcept;
  /// Size as a tree (see kMaxExprSize): 1 for a constant or a symbol.
  [[nodiscard]] std::uint32_t tree_size() const noexcept { return size_; }

 private:
  enum class Rep : std::uint8_t { Const, Symbol, General };
  Rep rep_ = Rep::Const;
  std::uint32_t size_ = 1;                           // tree size (General: computed in from_terms)
  std::int64_t v_ = 0;                               // Const: the value; Symbol: the id
  mutable std::shared_ptr<const std::vector<Term>> p_;  // General: the terms; inline forms: a cache
};

// ---- operations beyond the ring ----

/// floor(a / b). b must not be the constant 0 (throws oxir::Error).
[[nodiscard]] DimExpr floor_div(const DimExpr& a, const DimExpr& b);
/// ceil(a / b), written as floor((a + b - 1) / b) for constant b > 0.
[[nodiscard]] DimExpr ceil_div(const DimExpr& a, const DimExpr& b);
/// a mod b (floor semantics: the result has b's sign), for constant b != 0; else a - b*floor(a/b).
[[nodiscard]] DimExpr mod(const DimExpr& a, const DimExpr& b);
[[nodiscard]] DimExpr min(const DimExpr& a, const DimExpr& b);
[[nodiscard]] DimExpr max(const DimExpr& a, const DimExpr& b);
/// a / b when b divides a exactly as polynomials (e.g. N*S*H / (N*S) = H); nullopt otherwise.
[[nodiscard]] std::optional<DimExpr> exact_div(const DimExpr& a, const DimExpr& b);

// ============================================================================================
// implementation
// ============================================================================================

namespace detail {

inline std::int64_t checked_add(std::int64_t a, std::int64_t b) {
  std::int64_t r;
  if (__builtin_add_overflow(a, b, &r)) throw Error("dimension expression", "integer overflow");
  return r;
}
inline std::int64_t checked_mul(std::int64_t a, std::int64_t b) {
  std::int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) throw Error("dimension expression", "integer overflow");
  return r;
}
/// checked_add / checked_mul for the coefficient of a term with factors (CoefficientOverflow).
inline std::int64_t coeff_add(std::int64_t a, std::int64_t b) {
  std::int64_t r;
  if (__builtin_add_overflow(a, b, &r)) throw CoefficientOverflow();
  return r;
}
inline std::int64_t coeff_mul(std::int64_t a, std::int64_t b) {
  std::int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) throw CoefficientOverflow();
  return r;
}
inline std::int64_t floordiv_int(std::int64_t a, std::int64_t b) {
  if (a == std::numeric_limits<std::int64_t>::min() && b == -1) throw Error("dimension expression", "integer overflow");
  std::int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
/// a - b*floordiv_int(a, b), the remainder with b's sign, computed without forming b*q (which
/// overflows when a is near the int64 limits: floor(-(2^63-1)/3)*3 < -2^63).
inline std::int64_t floormod_int(std::int64_t a, std::int64_t b) {
  if (b == -1) return 0;
  std::int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

inline std::strong_ordering compare_atoms(const Atom& a, const Atom& b) {
  if (auto c = a.op <=> b.op; c != 0) return c;
  if (auto c = a.id <=> b.id; c != 0) return c;
  if (a.op == Atom::Op::Symbol) return std::strong_ordering::equal;
  const auto& x = *a.args;
  const auto& y = *b.args;
  const auto n = std::min(x.size(), y.size());
  for (std::size_t i = 0; i < n; ++i)
    if (auto c = compare(x[i], y[i]); c != 0) return c;
  return x.size() <=> y.size();
}

// Orders factor lists so that the constant term (empty list) comes last, then by degree
// (higher first), then lexicographically.
inline std::strong_ordering compare_factor_lists(const std::vector<Atom>& a, const std::vector<Atom>& b) {
  if (a.empty() || b.empty()) return b.size() <=> a.size();
  if (a.size() != b.size()) return b.size() <=> a.size();
  for (std::size_t i = 0; i < a.size(); ++i)
    if (auto c = compare_atoms(a[i], b[i]); c != 0) return c;
  return std::strong_ordering::equal;
}

inline Atom make_compound(Atom::Op op, std::int64_t id, std::vector<DimExpr> args) {
  return Atom{op, id, std::make_shared<const std::vector<DimExpr>>(std::move(args))};
}

/// Tree size of an atom (its operands' sizes are cached in them). Saturates far above
/// kMaxExprSize instead of wrapping.
inline std::uint64_t atom_size(const Atom& a) noexcept {
  std::uint64_t n = 1;
  if (a.op != Atom::Op::Symbol)
    for (const auto& e : *a.args) n += e.tree_size();
  return n;
}
/// Tree size of a term: the term itself and its factors.
inline std::uint64_t term_size(const Term& t) noexcept {
  std::uint64_t n = 1;
  for (const auto& a : t.factors) n += atom_size(a);
  return n;
}

/// The one operand of a single-factor term c*op(x, y) with two operands, or nullptr.
inline const Atom* binary_atom(const Term& t, Atom::Op op) {
  if (t.factors.size() != 1) return nullptr;
  const Atom& a = t.factors[0];
  return a.op == op && a.args && a.args->size() == 2 ? &a : nullptr;
}

/// Sums that torch.roll and cyclic shifts produce (Concat of x[-k:] and x[:-k]) hold for every
/// value of the operands: min(u,v) + max(0,u-v) = u, min(u,v) + max(0,v-u) = v,
/// min(u,v) + max(u,v) = u+v. `terms` is canonical; the sum with one such pair (of equal
/// coefficients) replaced, or nullopt.
inline std::optional<DimExpr> merge_min_max_pair(const std::vector<Term>& terms);

/// Halves of a floor: floor(x/2m) + floor((x+m)/2m) = floor(x/m) for integers x (so
/// floor(x/2) + floor((x+1)/2) = x, and after nested floors merge, floor(H/4) - floor(H/8) =
/// floor((H+4)/8): ceil(c/2) for c = floor(H/4)). A sum holding one of the halves has, besides
/// its own form, the two forms that hold only one half; of the three the one with fewest terms is
/// kept (on a tie, the form without the upper half, then the sum as it is), so sizes written as
/// c - floor(c/2) and as ceil(c/2) print equal. `terms` is canonical; the other form, or nullopt.
inline std::optional<DimExpr> merge_floor_halves(const std::vector<Term>& terms);
/// merge_floor_halves through floor_halves_memo when one is set, after the quick exit for sums
/// with no half that could merge (the only way to it).
inline std::optional<DimExpr> merge_floor_halves_memoised(const std::vector<Term>& terms);
inline bool floor_half_candidate(const Term& t);
inline bool floor_half_may_merge(const std::vector<Term>& terms, const Term& t);
/// The relation lower + upper - whole = 0 (merge_floor_halves) cannot give `terms` a better form:
/// at most one term of the sum is lower, upper or a term of `whole`, and the relation's own
/// terms are distinct, so subtracting a multiple of it removes one term and adds the others.
inline bool relation_cannot_shorten(const std::vector<Term>& terms, const Atom& lower, const Atom& upper,
                                    const DimExpr& whole);
/// A hash of a term list's structure (equal lists hash equal).
inline std::uint64_t hash_terms(const std::vector<Term>& terms);
/// Set while merge_floor_halves builds its candidates (they are not merged again).
inline thread_local bool in_floor_halves = false;
/// merge_floor_halves' answers for the sums it was given, kept by an inference (Engine::run) for
/// its own duration: the proofs of one model rebuild the same sums many times, and each answer
/// costs dozens of canonical forms. An answer stands with the work it cost, which a repeat is
/// charged again (expr_work), so proofs end where they would without the memo.
struct FloorHalvesMemo {
  struct Entry {
    std::vector<Term> sum;
    std::optional<DimExpr> merged;
    std::uint64_t work = 0;
  };
  std::unordered_multimap<std::uint64_t, Entry> entries;
  static constexpr std::size_t kMaxEntries = std::size_t{1} << 14;
};
/// The memo merge_floor_halves uses, nullptr for none.
inline thread_local FloorHalvesMemo* floor_halves_memo = nullptr;
/// Terms DimExpr::from_terms has been given on this thread: the arithmetic a bounded proof does
/// is charged to its work budget from this (a sum's canonical form may cost many times its size).
inline thread_local std::uint64_t expr_work = 0;
/// What the proofs of the running inference may still spend in all (the same units as their
/// budgets); unlimited outside one. Set by infer::Engine::run.
inline thread_local std::int64_t proof_allowance = std::numeric_limits<std::int64_t>::max();

}  // namespace detail

inline DimExpr DimExpr::from_terms(std::vector<Term> terms) {
  detail::expr_work += terms.size() + 1;
  for (auto& t : terms)
    std::sort(t.factors.begin(), t.factors.end(),
              [](const Atom& x, const Atom& y) { return detail::compare_atoms(x, y) < 0; });
  std::sort(terms.begin(), terms.end(), [](const Term& x, const Term& y) {
    return detail::compare_factor_lists(x.factors, y.factors) < 0;
  });
  std::vector<Term> out;
  out.reserve(terms.size());
  for (auto& t : terms) {
    if (t.coeff == 0) continue;
    if (!out.empty() && detail::compare_factor_lists(out.back().factors, t.factors) == 0) {
      out.back().coeff = t.factors.empty() ? detail::checked_add(out.back().coeff, t.coeff)
                                           : detail::coeff_add(out.back().coeff, t.coeff);
      if (out.back().coeff == 0) out.pop_back();
    } else {
      out.push_back(std::move(t));
    }
  }
  return from_combined_terms(std::move(out));
}

inline DimExpr DimExpr::from_combined_terms(std::vector<Term> out) {
  if (auto merged = detail::merge_min_max_pair(out)) return *merged;
  if (out.size() >= 2 && !detail::in_floor_halves)
    if (auto merged = detail::merge_floor_halves_memoised(out)) return *merged;
  // Constants and single symbols take their inline form.
  if (out.empty()) return DimExpr(0);
  if (out.size() == 1 && out[0].factors.empty()) return DimExpr(out[0].coeff);
  if (out.size() == 1 && out[0].coeff == 1 && out[0].factors.size() == 1 && out[0].factors[0].op == Atom::Op::Symbol)
    return DimExpr::symbol(out[0].factors[0].id);
  std::uint64_t size = 0;
  for (const auto& t : out) size += detail::term_size(t);
  if (size > kMaxExprSize) throw ExprTooLarge();
  DimExpr e;
  e.rep_ = Rep::General;
  e.size_ = static_cast<std::uint32_t>(size);
  e.p_ = std::make_shared<const std::vector<Term>>(std::move(out));
  return e;
}

inline DimExpr operator+(const DimExpr& a, const DimExpr& b) {
  if (b.is(0)) return a;
  if (a.is(0)) return b;
  if (a.is_const() && b.is_const()) return DimExpr(detail::checked_add(a.v_, b.v_));
  if (a.is_const() || b.is_const()) {
    // A sum and a constant: the sum's terms stay sorted, only its constant (the last term)
    // changes; what from_terms would do, without sorting and combining again.
    const DimExpr& e = a.is_const() ? b : a;
    const std::int64_t c = a.is_const() ? a.v_ : b.v_;
    std::vector<Term> t = e.terms();
    detail::expr_work += t.size() + 2;
    if (!t.empty() && t.back().factors.empty()) {
      t.back().coeff = detail::checked_add(t.back().coeff, c);
      if (t.back().coeff == 0) t.pop_back();
    } else {
      t.push_back(Term{c, {}});
    }
    return DimExpr::from_combined_terms(std::move(t));
  }
  std::vector<Term> t = a.terms();
  const auto& bt = b.terms();
  t.insert(t.end(), bt.begin(), bt.end());
  return DimExpr::from_terms(std::move(t));
}

inline DimExpr operator-(const DimExpr& a) {
  if (a.is_const()) return DimExpr(detail::checked_mul(a.v_, -1));
  std::vector<Term> t = a.terms();
  for (auto& x : t) x.coeff = x.factors.empty() ? detail::checked_mul(x.coeff, -1) : detail::coeff_mul(x.coeff, -1);
  detail::expr_work += t.size() + 1;
  return DimExpr::from_combined_terms(std::move(t));  // the order of the factor lists stands
}

inline DimExpr operator-(const DimExpr& a, const DimExpr& b) { return a + (-b); }

inline DimExpr operator*(const DimExpr& a, const DimExpr& b) {
  if (a.is(0) || b.is(0)) return DimExpr{};
  if (a.is(1)) return b;
  if (b.is(1)) return a;
  if (a.is_const() && b.is_const()) return DimExpr(detail::checked_mul(a.v_, b.v_));
  if (a.is_const() || b.is_const()) {
    // A sum times a constant (not 0): the same factor lists in the same order, scaled.
    const DimExpr& e = a.is_const() ? b : a;
    const std::int64_t c = a.is_const() ? a.v_ : b.v_;
    std::vector<Term> t = e.terms();
    for (auto& x : t) x.coeff = x.factors.empty() ? detail::checked_mul(x.coeff, c) : detail::coeff_mul(x.coeff, c);
    detail::expr_work += t.size() + 1;
    return DimExpr::from_combined_terms(std::move(t));
  }
  std::vector<Term> t;
  const auto& at = a.terms();
  const auto& bt = b.terms();
  // The expanded product before like terms combine: refused early when far too large, so that
  // a product of two big sums never allocates its |a|*|b| terms.
  {
    std::uint64_t fa = 0, fb = 0;  // factor sizes summed over the terms of a, of b
    for (const auto& x : at) fa += detail::term_size(x) - 1;
    for (const auto& y : bt) fb += detail::term_size(y) - 1;
    const std::uint64_t expanded = std::uint64_t{at.size()} * bt.size() + fa * bt.size() + fb * at.size();
    if (expanded > 4 * std::uint64_t{kMaxExprSize}) throw ExprTooLarge();
  }
  t.reserve(at.size() * bt.size());
  for (const auto& x : at)
    for (const auto& y : bt) {
      Term p{x.factors.empty() && y.factors.empty() ? detail::checked_mul(x.coeff, y.coeff)
                                                    : detail::coeff_mul(x.coeff, y.coeff),
             x.factors};
      p.factors.insert(p.factors.end(), y.factors.begin(), y.factors.end());
      t.push_back(std::move(p));
    }
  return DimExpr::from_terms(std::move(t));
}

namespace detail {
inline DimExpr rebuild_atom(const Atom& a, std::vector<DimExpr> args) {
  switch (a.op) {
    case Atom::Op::FloorDivConst: return floor_div(args[0], DimExpr(a.id));
    case Atom::Op::FloorDiv: return floor_div(args[0], args[1]);
    case Atom::Op::Min: {
      DimExpr r = args[0];
      for (std::size_t i = 1; i < args.size(); ++i) r = min(r, args[i]);
      return r;
    }
    case Atom::Op::Max: {
      DimExpr r = args[0];
      for (std::size_t i = 1; i < args.size(); ++i) r = max(r, args[i]);
      return r;
    }
    case Atom::Op::Symbol: break;
  }
  return DimExpr::symbol(a.id);
}
}  // namespace detail

inline DimExpr DimExpr::substitute(const std::function<DimExpr(std::int64_t)>& subst) const {
  if (rep_ == Rep::Const) return *this;
  if (rep_ == Rep::Symbol) return subst(v_);
  DimExpr sum;
  bool changed = false;
  std::vector<Term> unchanged;
  for (const auto& t : *p_) {
    DimExpr prod(t.coeff);
    bool term_changed = false;
    std::vector<DimExpr> parts;
    for (const auto& a : t.factors) {
      DimExpr f;
      if (a.op == Atom::Op::Symbol) {
        f = subst(a.id);
        if (f.as_symbol() != a.id) term_changed = true;
      } else {
        std::vector<DimExpr> args;
        args.reserve(a.args->size());
        bool arg_changed = false;
        for (const auto& e : *a.args) {
          args.push_back(e.substitute(subst));
          if (!(args.back() == e)) arg_changed = true;
        }
        if (arg_changed) {
          f = detail::rebuild_atom(a, std::move(args));
          term_changed = true;
        } else {
          f = DimExpr::from_terms({Term{1, {a}}});
        }
      }
      parts.push_back(std::move(f));
    }
    if (!term_changed) {
      unchanged.push_back(t);
      continue;
    }
    changed = true;
    for (auto& p : parts) prod = prod * p;
    sum = sum + prod;
  }
  if (!changed) return *this;
  return sum + DimExpr::from_terms(std::move(unchanged));
}

inline std::optional<std::int64_t> DimExpr::evaluate(
    const std::function<std::optional<std::int64_t>(std::int64_t)>& value) const {
  if (rep_ == Rep::Const) return v_;
  if (rep_ == Rep::Symbol) return value(v_);
  std::int64_t sum = 0;
  try {
    for (const auto& t : *p_) {
      std::int64_t p = t.coeff;
      for (const auto& a : t.factors) {
        std::optional<std::int64_t> v;
        if (a.op == Atom::Op::Symbol) {
          v = value(a.id);
        } else {
          std::vector<std::int64_t> args;
          for (const auto& e : *a.args) {
            auto x = e.evaluate(value);
            if (!x) return std::nullopt;
            args.push_back(*x);
          }
          switch (a.op) {
            case Atom::Op::FloorDivConst: v = detail::floordiv_int(args[0], a.id); break;
            case Atom::Op::FloorDiv:
              if (args[1] == 0) return std::nullopt;
              v = detail::floordiv_int(args[0], args[1]);
              break;
            case Atom::Op::Min: v = *std::min_element(args.begin(), args.end()); break;
            case Atom::Op::Max: v = *std::max_element(args.begin(), args.end()); break;
            case Atom::Op::Symbol: break;
          }
        }
        if (!v) return std::nullopt;
        p = detail::checked_mul(p, *v);
      }
      sum = detail::checked_add(sum, p);
    }
  } catch (const Error&) {
    return std::nullopt;
  }
  return sum;
}

inline std::size_t DimExpr::complexity() const noexcept {
  if (rep_ != Rep::General) return rep_ == Rep::Symbol ? 1 : 0;
  std::size_t n = 0;
  for (const auto& t : *p_)
    for (const auto& a : t.factors) {
      ++n;
      if (a.op != Atom::Op::Symbol)
        for (const auto& e : *a.args) n += e.complexity();
    }
  return n;
}

/// A character of the expression syntax (an operator, a delimiter or white space): names are
/// the runs of other characters.
inline constexpr bool expr_syntax_char(char c) noexcept {
  switch (c) {
    case '+': case '-': case '*': case '/': case '%': case '(': case ')': case ',':
    case ' ': case '\t': case '\n': case '\r': case '\v': case '\f':
      return true;
    default:
      return false;
  }
}
/// Whether a dim_param can stand in a printed expression as it is: not empty, not starting with
/// a digit, and free of the characters the expression syntax uses (`+-*/%(),` and white space).
/// Other names ("S+1", "batch size") are printed in parentheses inside expressions, so that
/// twice a size named "S+1" reads "2*(S+1)", never "2*S+1".
inline bool plain_name(std::string_view s) noexcept {
  if (s.empty() || (s[0] >= '0' && s[0] <= '9')) return false;
  for (const char c : s)
    if (expr_syntax_char(c)) return false;
  return true;
}
/// The functions a dim_param expression may call: floor(a/b), ceil(a/b) (or ceiling), min and
/// max (or Min, Max) of any number of operands.
enum class SizeFunction : std::uint8_t { None, Floor, Ceil, Min, Max };
inline SizeFunction size_function(std::string_view name) noexcept {
  if (name == "floor") return SizeFunction::Floor;
  if (name == "ceil" || name == "ceiling") return SizeFunction::Ceil;
  if (name == "min" || name == "Min") return SizeFunction::Min;
  if (name == "max" || name == "Max") return SizeFunction::Max;
  return SizeFunction::None;
}
/// The name parse_dim_expr(s, symbol_of) asks symbol_of about first, when only numbers and
/// floor/ceil/min/max calls come before it in s; nullopt otherwise. If symbol_of cannot resolve
/// that name, the parse fails having asked about nothing else, so a caller can stop there
/// (exporters name sizes "Squeeze/Squeeze_output_0_dim_2", which is no expression).
inline std::optional<std::string_view> first_size_name(std::string_view s) noexcept {
  std::size_t i = 0;
  while (i < s.size()) {
    if (expr_syntax_char(s[i])) {
      ++i;
      continue;
    }
    const std::size_t start = i;
    while (i < s.size() && !expr_syntax_char(s[i])) ++i;
    const std::string_view tok = s.substr(start, i - start);
    if (tok[0] >= '0' && tok[0] <= '9') {
      for (const char c : tok)
        if (c < '0' || c > '9') return std::nullopt;
      continue;
    }
    std::size_t j = i;
    while (j < s.size() && (s[j] == ' ' || (s[j] >= '\t' && s[j] <= '\r'))) ++j;  // white space
    if (j < s.size() && s[j] == '(') {
      if (size_function(tok) != SizeFunction::None) continue;
      return std::nullopt;
    }
    return tok;
  }
  return std::nullopt;
}

namespace detail {
template <class Name>
void print_name(std::string& out, std::int64_t id, Name& name) {
  const auto& n = name(id);
  if (plain_name(n)) {
    out += n;
    return;
  }
  out += '(';
  out += n;
  out += ')';
}
/// An operand of floor/min/max: a bare symbol by print_name, anything else as an expression.
template <class Name>
void print_operand(std::string& out, const DimExpr& e, Name& name) {
  if (auto id = e.as_symbol())
    print_name(out, *id, name);
  else
    e.print(out, name);
}

template <class Name>
void print_atom(std::string& out, const Atom& a, Name& name) {
  switch (a.op) {
    case Atom::Op::Symbol: print_name(out, a.id, name); return;
    case Atom::Op::FloorDivConst: {
      const auto& num = (*a.args)[0];
      const bool paren = num.terms().size() > 1 || (num.terms().size() == 1 && num.terms()[0].coeff != 1);
      out += paren ? "floor((" : "floor(";
      print_operand(out, num, name);
      out += paren ? ")/" : "/";
      out += std::to_string(a.id);
      out += ')';
      return;
    }
    case Atom::Op::FloorDiv: {
      auto operand = [&](const DimExpr& e) {
        const bool p = e.terms().size() > 1 ||
                       (e.terms().size() == 1 && (e.terms()[0].coeff != 1 || e.terms()[0].factors.size() > 1));
        if (p) out += '(';
        print_operand(out, e, name);
        if (p) out += ')';
      };
      out += "floor(";
      operand((*a.args)[0]);
      out += '/';
      operand((*a.args)[1]);
      out += ')';
      return;
    }
    case Atom::Op::Min:
    case Atom::Op::Max: {
      out += a.op == Atom::Op::Min ? "min(" : "max(";
      for (std::size_t i = 0; i < a.args->size(); ++i) {
        if (i) out += ',';
        print_operand(out, (*a.args)[i], name);
      }
      out += ')';
      return;
    }
  }
  out += '?';
}
}  // namespace detail

template <class Name>
void DimExpr::print(std::string& out, Name&& name) const {
  if (rep_ == Rep::Const) {
    out += std::to_string(v_);
    return;
  }
  if (rep_ == Rep::Symbol) {
    out += name(v_);
    return;
  }
  // Positive terms first so that "N-1" prints rather than "-1+N".
  bool first = true;
  for (const bool positive : {true, false})
    for (const Term& t : *p_) {
      if ((t.coeff > 0) != positive || t.coeff == 0) continue;
      // The magnitude as unsigned: a sum may reach INT64_MIN, whose negation is not an int64.
      std::uint64_t c = static_cast<std::uint64_t>(t.coeff);
      if (t.coeff < 0) {
        out += '-';
        c = 0 - c;
      } else if (!first) {
        out += '+';
      }
      first = false;
      if (t.factors.empty()) {
        out += std::to_string(c);
        continue;
      }
      if (c != 1) {
        out += std::to_string(c);
        out += '*';
      }
      for (std::size_t i = 0; i < t.factors.size(); ++i) {
        if (i) out += '*';
        detail::print_atom(out, t.factors[i], name);
      }
    }
}

inline std::string DimExpr::to_string(const std::function<std::string(std::int64_t)>& name) const {
  std::string s;
  print(s, name);
  return s;
}

inline std::optional<DimExpr> exact_div(const DimExpr& a, const DimExpr& b) {
  if (b.is(0)) return std::nullopt;
  if (a.is_const() && b.is_const()) {
    const auto x = *a.const_value(), y = *b.const_value();
    if (y == -1 && x == std::numeric_limits<std::int64_t>::min()) return std::nullopt;
    if (x % y != 0) return std::nullopt;
    return DimExpr(x / y);
  }
  if (a == b) return DimExpr(1);
  if (b.terms().size() > 1) {
    // A divisor of several terms ((H-p)*(W-q) windows dividing N*(H-p)*(W-q)): long division on
    // leading terms. Each step keeps a == q*b + rem exactly, so rem == 0 proves the quotient
    // (an order in which the steps cannot reach 0 only gives up).
    try {
      const DimExpr lead_b = DimExpr::from_terms({b.terms()[0]});
      DimExpr q, rem = a;
      for (int step = 0; step < 64 && !rem.is(0); ++step) {
        if (rem.is_const()) return std::nullopt;
        auto t = exact_div(DimExpr::from_terms({rem.terms()[0]}), lead_b);
        if (!t) return std::nullopt;
        q = q + *t;
        rem = rem - *t * b;
      }
      if (!rem.is(0)) return std::nullopt;
      return q;
    } catch (const Error&) {
      return std::nullopt;
    }
  }
  const Term& d = b.terms()[0];
  std::vector<Term> out;
  for (const auto& t : a.terms()) {
    if (t.coeff % d.coeff != 0) return std::nullopt;
    // Remove d's factors (a sorted multiset) from t's.
    std::vector<Atom> rest;
    std::size_t j = 0;
    for (const auto& f : t.factors) {
      if (j < d.factors.size() && detail::compare_atoms(f, d.factors[j]) == 0)
        ++j;
      else
        rest.push_back(f);
    }
    if (j != d.factors.size()) return std::nullopt;
    out.push_back(Term{t.coeff / d.coeff, std::move(rest)});
  }
  return DimExpr::from_terms(std::move(out));
}

inline DimExpr floor_div(const DimExpr& a, const DimExpr& b) {
  if (b.is(0)) throw Error("dimension expression", "division by zero");
  if (b.is(1)) return a;
  if (auto q = exact_div(a, b)) return *q;
  if (auto k = b.const_value()) {
    if (a.is_const()) return DimExpr(detail::floordiv_int(*a.const_value(), *k));
    if (*k == std::numeric_limits<std::int64_t>::min()) throw Error("dimension expression", "integer overflow");
    if (*k < 0) return floor_div(-a, DimExpr(-*k));
    // a = k*q + r with every coefficient of r in [0,k): floor(a/k) = q + floor(r/k).
    // (Every coefficient already in [0,k), as in most sizes divided: a is its own rest.)
    const bool reduced =
        std::all_of(a.terms().begin(), a.terms().end(), [&](const Term& t) { return t.coeff >= 0 && t.coeff < *k; });
    DimExpr quotient(0), rest = a;
    if (!reduced) {
      std::vector<Term> q, r;
      for (const auto& t : a.terms()) {
        const auto qq = detail::floordiv_int(t.coeff, *k);
        const auto rr = detail::floormod_int(t.coeff, *k);
        if (qq) q.push_back(Term{qq, t.factors});
        if (rr) r.push_back(Term{rr, t.factors});
      }
      quotient = DimExpr::from_terms(std::move(q));
      rest = DimExpr::from_terms(std::move(r));
    }
    if (rest.is_const()) return quotient + DimExpr(detail::floordiv_int(*rest.const_value(), *k));
    // Now rest = sum of a_i*m_i + b with every a_i and b in [0,k). Three identities (m_i are
    // integers) bring equal floors to one form:
    // 1. A factor g of k and of every a_i (not necessarily of b) comes out:
    //    floor((g*y + b)/k) = floor((y + floor(b/g))/(k/g)), so floor((2x+3)/4) = floor((x+1)/2).
    std::int64_t g = *k;
    for (const auto& t : rest.terms())
      if (!t.factors.empty()) g = std::gcd(g, t.coeff);
    if (g > 1) {
      std::vector<Term> rt;
      rt.reserve(rest.terms().size());
      for (const auto& t : rest.terms())
        if (!t.factors.empty()) rt.push_back(Term{t.coeff / g, t.factors});
      DimExpr y = DimExpr::from_terms(std::move(rt)) + DimExpr(rest.constant_term() / g);
      return quotient + floor_div(y, DimExpr(*k / g));
    }
    // 2. A nested floor with coefficient 1 merges: floor((floor(r/m) + P)/k) = floor((r + m*P)/(m*k))
    //    (floor(r/m) + P = floor((r + m*P)/m)), so floor((floor((H+1)/2)+1)/2) = floor((H+3)/4).
    //    Only when that floor is the one floor by a constant among the terms (P has none), so the
    //    result does not depend on a choice, and sizes computed from a floor keep being written in
    //    it (merging floor((floor(H/8)+6*floor(H/4))/7) would spread H through the expression and
    //    hide that it is a function of floor(H/4)).
    const Term* nested = nullptr;
    int candidates = 0;
    for (const auto& t : rest.terms()) {
      const bool has_floor = std::any_of(t.factors.begin(), t.factors.end(),
                                         [](const Atom& f) { return f.op == Atom::Op::FloorDivConst; });
      if (!has_floor) continue;
      ++candidates;
      if (t.coeff == 1 && t.factors.size() == 1) nested = &t;
    }
    if (candidates != 1) nested = nullptr;
    std::int64_t mk = 0;
    if (nested && !__builtin_mul_overflow(nested->factors[0].id, *k, &mk)) {
      const Atom& inner = nested->factors[0];
      std::vector<Term> others;
      others.reserve(rest.terms().size());
      for (const auto& t : rest.terms())
        if (&t != nested) others.push_back(t);
      const DimExpr m(inner.id);
      return quotient + floor_div((*inner.args)[0] + m * DimExpr::from_terms(std::move(others)), DimExpr(mk));
    }
    // 3. With S = sum of m_i: floor((sum a_i*m_i + b)/k) = S - floor((sum (k-a_i)*m_i + k-1-b)/k).
    //    Of the two floors the one whose coefficients sum less is kept (floor(6H/7) becomes
    //    H - floor((H+6)/7), the form 7*ceil(H/7) takes); on a tie (floor(H/2) against
    //    floor((H+1)/2)) both stay as they are written.
    std::int64_t sum = 0, complement_sum = 0;
    bool overflow = false;
    for (const auto& t : rest.terms())
      if (!t.factors.empty()) {
        overflow |= __builtin_add_overflow(sum, t.coeff, &sum);
        overflow |= __builtin_add_overflow(complement_sum, *k - t.coeff, &complement_sum);
      }
    if (!overflow && complement_sum < sum) {
      std::vector<Term> s, c;
      s.reserve(rest.terms().size());
      c.reserve(rest.terms().size());
      for (const auto& t : rest.terms())
        if (!t.factors.empty()) {
          s.push_back(Term{1, t.factors});
          c.push_back(Term{*k - t.coeff, t.factors});
        }
      c.push_back(Term{*k - 1 - rest.constant_term(), {}});
      return quotient + DimExpr::from_terms(std::move(s)) - floor_div(DimExpr::from_terms(std::move(c)), *k);
    }
    DimExpr atom;
    atom = DimExpr::from_terms({Term{1, {detail::make_compound(Atom::Op::FloorDivConst, *k, {rest})}}});
    return quotient + atom;
  }
  return DimExpr::from_terms({Term{1, {detail::make_compound(Atom::Op::FloorDiv, 0, {a, b})}}});
}

inline DimExpr ceil_div(const DimExpr& a, const DimExpr& b) {
  if (auto k = b.const_value(); k && *k > 0) return floor_div(a + DimExpr(*k - 1), b);
  if (auto q = exact_div(a, b)) return *q;
  return -floor_div(-a, b);
}

inline DimExpr mod(const DimExpr& a, const DimExpr& b) { return a - b * floor_div(a, b); }

namespace detail {
inline DimExpr minmax(const DimExpr& a, const DimExpr& b, bool is_max) {
  if (a == b) return a;
  const DimExpr d = a - b;
  if (auto c = d.const_value()) return ((*c > 0) == is_max) ? a : b;
  // Flatten nested min/min (max/max) and keep operands sorted and unique.
  const auto op = is_max ? Atom::Op::Max : Atom::Op::Min;
  // A constant offset moves inside: max(0, max(0, S-1) - 1) = max(0, max(-1, S-2)) = max(0, S-2),
  // so repeated clamped steps (a slice applied in every iteration of a loop) stay flat.
  std::vector<DimExpr> args;
  auto add = [&](const DimExpr& e) {
    const auto& t = e.terms();
    const bool offset = t.size() == 2 && t[1].factors.empty();
    if ((t.size() == 1 || offset) && t[0].coeff == 1 && t[0].factors.size() == 1 && t[0].factors[0].op == op) {
      const std::size_t mark = args.size();
      try {
        for (const auto& x : *t[0].factors[0].args) args.push_back(offset ? x + DimExpr(t[1].coeff) : x);
        return;
      } catch (const Error&) {
        args.resize(mark);  // an operand plus the offset overflows: kept as it is
      }
    }
    args.push_back(e);
  };
  add(a);
  add(b);
  std::uint64_t size = 2;  // the term and the atom
  for (const auto& e : args) size += e.tree_size();
  // Past the cap even after the dominance check below could drop operands: refused up front.
  if (size > 2 * std::uint64_t{kMaxExprSize}) throw ExprTooLarge();
  std::sort(args.begin(), args.end(), [](const DimExpr& x, const DimExpr& y) { return compare(x, y) < 0; });
  args.erase(std::unique(args.begin(), args.end()), args.end());
  // Drop operands dominated by a constant offset of another (max(N, N+1) = N+1). The check is
  // quadratic: made only for the few operands real models have (kept as they are beyond).
  constexpr std::size_t kMaxDominanceCheck = 32;
  const bool check = args.size() <= kMaxDominanceCheck;
  std::vector<DimExpr> kept;
  for (std::size_t i = 0; i < args.size(); ++i) {
    bool dominated = false;
    for (std::size_t j = 0; check && j < args.size() && !dominated; ++j) {
      if (i == j) continue;
      if (auto c = (args[j] - args[i]).const_value()) dominated = is_max ? *c > 0 : *c < 0;
    }
    if (!dominated) kept.push_back(args[i]);
  }
  if (kept.size() == 1) return kept[0];
  return DimExpr::from_terms({Term{1, {make_compound(op, 0, std::move(kept))}}});
}
}  // namespace detail

inline DimExpr min(const DimExpr& a, const DimExpr& b) { return detail::minmax(a, b, false); }
inline DimExpr max(const DimExpr& a, const DimExpr& b) { return detail::minmax(a, b, true); }

/// A single floor by an even constant: a term merge_floor_halves may split or merge.
inline bool detail::floor_half_candidate(const Term& t) {
  return t.factors.size() == 1 && t.factors[0].op == Atom::Op::FloorDivConst && t.factors[0].id >= 2 &&
         t.factors[0].id % 2 == 0 && t.factors[0].args && !t.factors[0].args->empty();
}

inline std::uint64_t detail::hash_terms(const std::vector<Term>& terms) {
  auto mix = [](std::uint64_t h, std::uint64_t v) { return (h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2))); };
  std::uint64_t h = terms.size();
  for (const auto& t : terms) {
    h = mix(h, static_cast<std::uint64_t>(t.coeff));
    for (const auto& a : t.factors) {
      h = mix(h, static_cast<std::uint64_t>(a.op) * 31 + static_cast<std::uint64_t>(a.id));
      if (a.args)
        for (const auto& e : *a.args) {
          if (auto c = e.const_value()) h = mix(h, static_cast<std::uint64_t>(*c) * 3 + 1);
          else if (auto y = e.as_symbol()) h = mix(h, static_cast<std::uint64_t>(*y) * 3 + 2);
          else h = mix(h, hash_terms(e.terms()));
        }
    }
  }
  return h;
}

inline std::optional<DimExpr> detail::merge_floor_halves_memoised(const std::vector<Term>& terms) {
  // Quick exit, before any hashing: no single floor by an even constant among the terms that
  // could merge.
  if (std::none_of(terms.begin(), terms.end(),
                   [&](const Term& t) { return floor_half_candidate(t) && floor_half_may_merge(terms, t); }))
    return std::nullopt;
  FloorHalvesMemo* memo = floor_halves_memo;
  if (!memo) return merge_floor_halves(terms);
  const std::uint64_t h = hash_terms(terms);
  auto same = [&](const std::vector<Term>& other) {
    if (other.size() != terms.size()) return false;
    for (std::size_t i = 0; i < terms.size(); ++i)
      if (other[i].coeff != terms[i].coeff || compare_factor_lists(other[i].factors, terms[i].factors) != 0) return false;
    return true;
  };
  for (auto [it, end] = memo->entries.equal_range(h); it != end; ++it)
    if (same(it->second.sum)) {
      expr_work += it->second.work;
      return it->second.merged;
    }
  const std::uint64_t before = expr_work;
  auto merged = merge_floor_halves(terms);
  if (memo->entries.size() < FloorHalvesMemo::kMaxEntries)
    memo->entries.emplace(h, FloorHalvesMemo::Entry{terms, merged, expr_work - before});
  return merged;
}

/// Whether replacing the half `t` of `terms` can give fewer terms. The relation used,
/// floor(x/2m) + floor((x+m)/2m) - floor(x/m) = 0, has besides t only terms that are single
/// floors by constants or carry a term of x (floor_div makes nothing else, and x's constant is
/// below 2m, so the floors have no constant part): with no such other term in the sum, each
/// form the relation gives adds terms.
inline bool detail::floor_half_may_merge(const std::vector<Term>& terms, const Term& t) {
  const auto& x_terms = (*t.factors[0].args)[0].terms();
  for (const auto& u : terms) {
    if (&u == &t || u.factors.empty()) continue;
    if (u.factors.size() == 1 && u.factors[0].op == Atom::Op::FloorDivConst) return true;
    for (const auto& v : x_terms)
      if (!v.factors.empty() && compare_factor_lists(u.factors, v.factors) == 0) return true;
  }
  return false;
}

inline bool detail::relation_cannot_shorten(const std::vector<Term>& terms, const Atom& lower, const Atom& upper,
                                            const DimExpr& whole) {
  // Each form merge_floor_halves weighs is the sum minus c times the relation, c the coefficient
  // of lower or of upper in the sum. When the relation's terms are distinct (lower, upper and
  // whole's terms; no min or max that merge_min_max_pair could pair) and the sum holds at most
  // one of them, that form is the sum itself (c = 0) or the sum with that one term replaced by
  // the relation's others: at least as many terms, never a better rank.
  const auto& w = whole.terms();
  if (w.empty() || compare_atoms(lower, upper) == 0) return false;
  for (const auto& u : w) {
    for (const auto& a : u.factors)
      if (a.op == Atom::Op::Min || a.op == Atom::Op::Max) return false;
    if (u.factors.size() == 1 && (compare_atoms(u.factors[0], lower) == 0 || compare_atoms(u.factors[0], upper) == 0))
      return false;
  }
  int shared = 0;
  for (const auto& t : terms) {
    bool hit = t.factors.size() == 1 &&
               (compare_atoms(t.factors[0], lower) == 0 || compare_atoms(t.factors[0], upper) == 0);
    for (std::size_t i = 0; i < w.size() && !hit; ++i) hit = compare_factor_lists(t.factors, w[i].factors) == 0;
    if (hit && ++shared > 1) return false;
  }
  return true;
}

inline std::optional<DimExpr> detail::merge_floor_halves(const std::vector<Term>& terms) {
  // (merge_floor_halves_memoised has left out the sums without a candidate that could merge.)
  struct Guard {
    Guard() { in_floor_halves = true; }
    ~Guard() { in_floor_halves = false; }
    Guard(const Guard&) = delete;
    Guard& operator=(const Guard&) = delete;
  } guard;
  // Forms are ranked by (number of terms, sum of |coefficients|, holds an upper half); a form is
  // replaced only by a better one, so the loop ends.
  struct Rank {
    std::size_t terms = 0;
    std::uint64_t weight = 0;
    bool upper = false;
    auto operator<=>(const Rank&) const = default;
  };
  auto rank = [](const DimExpr& e, bool upper) {
    Rank r{0, 0, upper};
    for (const auto& u : e.terms()) {
      ++r.terms;
      r.weight += u.coeff < 0 ? 0 - static_cast<std::uint64_t>(u.coeff) : static_cast<std::uint64_t>(u.coeff);
    }
    return r;
  };
  auto single = [](const DimExpr& e) -> const Atom* {
    if (e.shared_terms() == nullptr || e.terms().size() != 1) return nullptr;
    const Term& u = e.terms()[0];
    return u.coeff == 1 && u.factors.size() == 1 && u.factors[0].op == Atom::Op::FloorDivConst ? &u.factors[0]
                                                                                              : nullptr;
  };
  try {
    DimExpr p = DimExpr::from_terms(terms);
    bool changed = false;
    int examined = 0;  // halves examined in all rounds: a sum of many floors costs no more than 16
    for (int round = 0; round < 8; ++round) {
      bool improved = false;
      for (const auto& t : p.terms()) {
        if (!floor_half_candidate(t)) continue;
        if (++examined > 16) break;
        const DimExpr& x = (*t.factors[0].args)[0];
        // Every term of the relation holds a symbol of x: without another term that does, no
        // form has fewer terms (the cheap test that spares the sums sizes pass through).
        std::int64_t syms[8];
        std::size_t ns = 0;
        bool many = false;
        x.for_each_symbol([&](std::int64_t id) {
          if (std::find(syms, syms + ns, id) != syms + ns) return;
          if (ns < 8) syms[ns++] = id;
          else many = true;
        });
        bool shares = many;
        for (const auto& u : p.terms()) {
          if (shares) break;
          if (&u != &t)
            DimExpr::for_each_symbol_of(
                u, [&](std::int64_t id) { shares = shares || std::find(syms, syms + ns, id) != syms + ns; });
        }
        if (!shares || !floor_half_may_merge(p.terms(), t)) continue;
        const std::int64_t k = t.factors[0].id, m = k / 2;
        // x's constant lies in [0,k): t is the lower half (constant below m) or the upper one.
        // t is canonical (floor_div made it), so floor_div would give it back as it is.
        const bool t_lower = x.constant_term() < m;
        const DimExpr base = t_lower ? x : x - DimExpr(m);
        const DimExpr t_expr = DimExpr::from_terms({Term{1, t.factors}});
        const DimExpr lower = t_lower ? t_expr : floor_div(base, DimExpr(k));
        const DimExpr upper = t_lower ? floor_div(base + DimExpr(m), DimExpr(k)) : t_expr;
        const Atom* lo = single(lower);
        const Atom* up = single(upper);
        if (!lo || !up) continue;  // a half whose canonical form is a sum: left alone
        std::int64_t c_lo = 0, c_up = 0;
        for (const auto& u : p.terms())
          if (u.factors.size() == 1) {
            if (compare_atoms(u.factors[0], *lo) == 0) c_lo = u.coeff;
            if (compare_atoms(u.factors[0], *up) == 0) c_up = u.coeff;
          }
        const DimExpr whole = floor_div(base, DimExpr(m));
        if (relation_cannot_shorten(p.terms(), *lo, *up, whole)) continue;
        const DimExpr relation = lower + upper - whole;  // 0 for every integer
        const DimExpr without_lower = p - DimExpr(c_lo) * relation;
        const DimExpr without_upper = p - DimExpr(c_up) * relation;
        // without_lower keeps the upper half with coefficient c_up - c_lo; without_upper has none.
        const Rank r_lower = rank(without_lower, c_up != c_lo), r_upper = rank(without_upper, false);
        const DimExpr& best = r_lower < r_upper ? without_lower : without_upper;
        if (std::min(r_lower, r_upper) < rank(p, c_up != 0)) {
          p = best;
          changed = improved = true;
          break;  // p's terms changed: scan again
        }
      }
      if (!improved) break;
    }
    if (changed) return p;
  } catch (const Error&) {  // overflow or too large: the sum stays as it is
  }
  return std::nullopt;
}

inline std::optional<DimExpr> detail::merge_min_max_pair(const std::vector<Term>& terms) {
  if (terms.size() < 2) return std::nullopt;
  // Candidates first; pairs are tried only while they are few (the sums real models make have
  // one or two), so that a sum of many mins and maxes costs no quadratic work.
  std::vector<std::pair<std::size_t, const Atom*>> mins, maxs;
  for (std::size_t i = 0; i < terms.size(); ++i) {
    if (const Atom* a = binary_atom(terms[i], Atom::Op::Min)) mins.emplace_back(i, a);
    else if (const Atom* b = binary_atom(terms[i], Atom::Op::Max)) maxs.emplace_back(i, b);
  }
  if (mins.empty() || maxs.empty() || mins.size() * maxs.size() > 64) return std::nullopt;
  for (const auto& [i, mn] : mins) {
    const DimExpr& u = (*mn->args)[0];
    const DimExpr& v = (*mn->args)[1];
    std::optional<DimExpr> u_minus_v;  // built once, when a max(0, d) asks for it
    for (const auto& [j, mx] : maxs) {
      if (terms[j].coeff != terms[i].coeff) continue;
      const DimExpr& p = (*mx->args)[0];
      const DimExpr& q = (*mx->args)[1];
      std::optional<DimExpr> pair;  // min(u,v) + max(p,q)
      if ((p == u && q == v) || (p == v && q == u)) {
        pair = u + v;
      } else if (p.is(0) || q.is(0)) {
        const DimExpr& d = p.is(0) ? q : p;
        if (!u_minus_v) u_minus_v = u - v;
        if (d == *u_minus_v)
          pair = u;
        else if (d == -*u_minus_v)
          pair = v;
      }
      if (!pair) continue;
      std::vector<Term> rest;
      rest.reserve(terms.size());
      for (std::size_t k = 0; k < terms.size(); ++k)
        if (k != i && k != j) rest.push_back(terms[k]);
      return DimExpr::from_terms(std::move(rest)) + DimExpr(terms[i].coeff) * *pair;
    }
  }
  return std::nullopt;
}

/// Reads a dim_param written as a size expression: the syntax the engine prints (`N+1`, `2*S`,
/// `floor((H-1)/2)+1`, `min(T,64)`) and the forms other tools write (spaces, `//` for floor
/// division as torch writes it, `ceil(a/b)` / `ceiling(a/b)`, `Min` / `Max`, parentheses).
/// `symbol_of(name)` gives the symbol of an identifier or nullopt. The result is nullopt when
/// the text is not such an expression, names no identifier, names one that symbol_of does not
/// know, is longer than kMaxParsedDimParam characters or nested deeper than 64, or would
/// overflow. `/` is read only as the division of floor/ceil, whose dividend is a product (or a
/// parenthesised expression) and whose divisor is a number, name or parenthesised expression,
/// so `floor(x+1/2)` and `floor(a/b*c)` are not guessed at.
inline constexpr std::size_t kMaxParsedDimParam = 1024;

template <class SymbolOf>
std::optional<DimExpr> parse_dim_expr(std::string_view s, SymbolOf&& symbol_of) {
  if (s.size() > kMaxParsedDimParam) return std::nullopt;
  struct Fail {};
  struct Parser {
    std::string_view s;
    SymbolOf& symbol_of;
    std::size_t i = 0;
    int depth = 0;
    bool named = false;

    static bool space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }
    static bool name_char(char c) { return !expr_syntax_char(c); }
    char peek() {
      while (i < s.size() && space(s[i])) ++i;
      return i < s.size() ? s[i] : '\0';
    }
    bool eat(char c) {
      if (peek() != c) return false;
      ++i;
      return true;
    }
    void expect(char c) {
      if (!eat(c)) throw Fail{};
    }
    bool at_floordiv() { return peek() == '/' && i + 1 < s.size() && s[i + 1] == '/'; }

    DimExpr expr() {  // ['+'|'-'] term (('+'|'-') term)*
      if (++depth > 64) throw Fail{};
      DimExpr acc = term();
      for (;;) {
        if (eat('+'))
          acc = acc + term();
        else if (eat('-'))
          acc = acc - term();
        else
          break;
      }
      --depth;
      return acc;
    }
    DimExpr term() {  // unary (('*' | '//') unary)*
      DimExpr acc = unary();
      for (;;) {
        if (at_floordiv()) {
          i += 2;
          acc = floor_div(acc, unary());
        } else if (peek() == '*') {
          if (i + 1 < s.size() && s[i + 1] == '*') throw Fail{};  // a power: not a size expression here
          ++i;
          acc = acc * unary();
        } else {
          return acc;
        }
      }
    }
    DimExpr unary() {
      if (++depth > 64) throw Fail{};
      DimExpr r = eat('-') ? -unary() : eat('+') ? unary() : primary();
      --depth;
      return r;
    }
    DimExpr primary() {
      const char c = peek();
      if (c >= '0' && c <= '9') {
        std::int64_t v = 0;
        while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
          if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, s[i] - '0', &v)) throw Fail{};
          ++i;
        }
        if (i < s.size() && name_char(s[i])) throw Fail{};  // "2x", "1.5"
        return DimExpr(v);
      }
      if (eat('(')) {
        DimExpr e = expr();
        expect(')');
        return e;
      }
      const std::size_t start = i;
      while (i < s.size() && name_char(s[i])) ++i;
      if (i == start) throw Fail{};
      const std::string_view name = s.substr(start, i - start);
      if (peek() == '(') {
        ++i;
        const SizeFunction fn = size_function(name);
        if (fn == SizeFunction::Floor || fn == SizeFunction::Ceil) {
          DimExpr a = term_operand();
          if (at_floordiv()) throw Fail{};
          expect('/');
          DimExpr b = unary();
          expect(')');
          return fn == SizeFunction::Floor ? floor_div(a, b) : ceil_div(a, b);
        }
        if (fn == SizeFunction::None) throw Fail{};
        const bool is_min = fn == SizeFunction::Min;
        DimExpr acc = expr();
        while (eat(',')) acc = is_min ? min(acc, expr()) : max(acc, expr());
        expect(')');
        return acc;
      }
      auto id = symbol_of(name);
      if (!id) throw Fail{};
      named = true;
      return DimExpr::symbol(*id);
    }
    DimExpr term_operand() {  // the dividend of floor/ceil: a product, stopping at its '/'
      DimExpr acc = unary();
      while (peek() == '*') {
        ++i;
        acc = acc * unary();
      }
      return acc;
    }
  };
  Parser p{s, symbol_of};
  try {
    DimExpr e = p.expr();
    if (p.peek() != '\0' || !p.named) return std::nullopt;
    return e;
  } catch (const Fail&) {
    return std::nullopt;
  } catch (const Error&) {  // overflow, a division by zero, an expression too large
    return std::nullopt;
  }
}

}  // namespace oxir::infer
