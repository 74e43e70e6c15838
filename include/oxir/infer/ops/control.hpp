#pragma once
// Inference rules: control flow (If, Loop, Scan, SequenceMap). Their subgraphs are inferred in
// scopes nested in the node's, so they see outer values; the sizes they imply join the model's
// symbol table like any other.

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "../engine.hpp"

namespace oxir::infer::ops {

namespace control_detail {

inline ValueType join(InferContext& ctx, const ValueType& a, const ValueType& b) {
  return join_types(ctx.symbols(), a, b);
}

/// Joins symbolic contents: kept only where both agree element by element.
inline std::optional<Dims> join_values(InferContext& ctx, const std::optional<Dims>& a, const std::optional<Dims>& b) {
  if (!a || !b || a->size() != b->size()) return std::nullopt;
  for (std::size_t i = 0; i < a->size(); ++i)
    if (!(ctx.resolve((*a)[i]) == ctx.resolve((*b)[i]))) return std::nullopt;
  return a;
}

/// The symbols one Loop's widening made up, each standing for a carried size that varies across
/// iterations (never a symbol from elsewhere: an upstream unk__3 is one size, not any size).
using Minted = std::vector<std::int64_t>;
/// In one pass, what the body's output has in place of each minted symbol: the outputs are an
/// instance of the inputs when each symbol has one image (cur [F, F] against next [G, H] must not
/// keep F twice, G may differ from H).
using Renaming = std::vector<std::pair<std::int64_t, DimExpr>>;

inline bool is_minted(InferContext& ctx, const Minted& minted, std::int64_t id) {
  const auto root = ctx.symbols().find(id);
  for (auto m : minted)
    if (ctx.symbols().find(m) == root) return true;
  return false;
}

/// Records that minted symbol `from` becomes `to` in this pass; false when it already became
/// something else.
inline bool maps_to(Renaming& renamed, std::int64_t from, const DimExpr& to) {
  for (const auto& [f, t] : renamed)
    if (f == from) return t == to;
  renamed.emplace_back(from, to);
  return true;
}

/// Where `next` differs from `cur`: a dim that varies across iterations becomes a symbol of its
/// own (kept once minted, so the iteration reaches a fixed point: F becoming F+1, W or 3 is still
/// "some size" F); a rank that varies is unknown.
inline ValueType widen(InferContext& ctx, const ValueType& cur, const ValueType& next, bool& changed,
                       Minted& minted, Renaming& renamed) {
  if (cur.is_unknown()) return cur;
  if (next.is_unknown() || next.kind != cur.kind) {
    changed = true;
    return ValueType{};
  }
  ValueType out = cur;
  if (cur.kind == ValueType::Kind::Tensor || cur.kind == ValueType::Kind::SparseTensor) {
    if (cur.elem == DataType::UNDEFINED && next.elem != DataType::UNDEFINED) {
      out.elem = next.elem;
      changed = true;
    }
    if (!cur.shape) return out;
    if (!next.shape || next.shape->size() != cur.shape->size()) {
      out.shape.reset();
      changed = true;
      return out;
    }
    for (std::size_t i = 0; i < cur.shape->size(); ++i) {
      const DimExpr x = ctx.resolve((*cur.shape)[i]), y = ctx.resolve((*next.shape)[i]);
      if (auto s = x.as_symbol(); s && is_minted(ctx, minted, *s)) {
        if (maps_to(renamed, ctx.symbols().find(*s), y)) continue;
      } else if (x == y) {
        continue;
      }
      const DimExpr f = ctx.fresh();
      if (auto id = f.as_symbol()) minted.push_back(*id);
      (*out.shape)[i] = f;
      changed = true;
    }
  } else if (cur.inner) {
    ValueType inner = widen(ctx, cur.element(), next.element(), changed, minted, renamed);
    out.inner = std::make_shared<const ValueType>(std::move(inner));
    if (cur.uniform && !next.uniform) {
      out.uniform = false;
      changed = true;
    }
  }
  return out;
}

/// `d` with each fresh symbol made since symbol `first` (minted by the widening, or made by the
/// body's rules) replaced by a new one, the same for all its occurrences (kept in `subst`): the
/// final value is one iteration's, and must not share the symbols the body's annotations use for
/// a size that may differ in every iteration.
inline DimExpr unmint(InferContext& ctx, std::size_t first, Renaming& subst, const DimExpr& d) {
  return ctx.resolve(d).substitute([&](std::int64_t id) {
    const auto root = ctx.symbols().find(id);
    if (static_cast<std::size_t>(root) < first || ctx.symbols().origin(root) != SymbolOrigin::Fresh)
      return DimExpr::symbol(id);
    for (const auto& [f, t] : subst)
      if (f == root) return t;
    subst.emplace_back(root, ctx.fresh());
    return subst.back().second;
  });
}
inline ValueType unmint(InferContext& ctx, std::size_t first, Renaming& subst, ValueType t) {
  if (t.shape)
    for (auto& d : *t.shape) d = unmint(ctx, first, subst, d);
  if (t.inner) t.inner = std::make_shared<const ValueType>(unmint(ctx, first, subst, *t.inner));
  return t;
}

/// A sequence known to be empty (length 0): its element type holds vacuously, so joining it
/// with another sequence gives the other one.
inline bool empty_sequence(InferContext& ctx, const ValueInfoState& s) {
  return s.type.kind == ValueType::Kind::Sequence && s.sym_value && s.sym_value->size() == 1 &&
         ctx.resolve((*s.sym_value)[0]).is(0);
}

/// Runs of Loop bodies beyond the first one of each Loop execution (fixed-point passes, the
/// final widened pass, sequence-length probes), shared by an outermost Loop and every Loop nested
/// in it (in its body, in functions its body calls, ...). Each such run re-infers the Loops
/// nested in the body, so without a shared budget a few dozen nested Loops whose carried values
/// change once cost 2^depth body runs (a 4 KB file that never finishes). A Loop that starts with
/// budget left reserves one run for its final widened pass, so it can always end soundly; one
/// that starts without runs its body once, on carried values widened to what holds in every
/// iteration (tensors of the initial element type, anything else unknown). Total work stays
/// within (1 + budget) runs of every nested body. Real models (two or three nested Loops that
/// settle in two or three passes each) stay below it.
inline constexpr int kLoopExtraBodyRuns = 32;
/// A Loop with a constant trip count up to this many has the sizes its body changes in other ways
/// than by a fixed step followed iteration by iteration (the body's size function applied M times).
inline constexpr std::int64_t kMaxUnrolledTrips = 64;
/// ... and at most this many probed sizes times iterations (each a substitution), per Loop.
inline constexpr std::int64_t kMaxUnrolledSteps = 4096;
/// A Loop that runs exactly M times has up to this many of its iterations followed one by one
/// (each a run of the body on what the previous one returned), until a fixed point or M.
inline constexpr std::int64_t kMaxFollowedTrips = 8;

struct LoopBudget {
  int active = 0;  ///< Loop rules running on this thread (nesting)
  int left = 0;    ///< extra body runs left to the outermost one and everything nested in it
  int starved = 0;  ///< Loop rules so far that started without budget (each ran its body once, widened)
};
inline LoopBudget& loop_budget() noexcept {
  thread_local LoopBudget b;
  return b;
}
/// Held by a running Loop rule: the outermost one refills the budget, nested ones share it.
class LoopBudgetScope {
 public:
  LoopBudgetScope() noexcept {
    auto& b = loop_budget();
    if (b.active++ == 0) b.left = kLoopExtraBodyRuns;
    reserved_ = b.left > 0;
    single_ = !reserved_;
    if (single_) ++b.starved;
    if (reserved_) --b.left;
  }
  ~LoopBudgetScope() {
    auto& b = loop_budget();
    if (reserved_) ++b.left;  // the final pass was not needed: back to the others
    --b.active;
  }
  LoopBudgetScope(const LoopBudgetScope&) = delete;
  LoopBudgetScope& operator=(const LoopBudgetScope&) = delete;
  /// Started without budget: one run on widened carried values, nothing more.
  [[nodiscard]] bool single_run() const noexcept { return single_; }
  /// Takes one extra body run from the budget; false when no more than `keep` are left (runs
  /// kept for something that needs them more).
  [[nodiscard]] bool take(int keep = 0) noexcept {
    auto& b = loop_budget();
    if (b.left <= keep) return false;
    --b.left;
    return true;
  }
  /// The run kept for the final widened pass (always there unless single_run()).
  void use_reserve() noexcept { reserved_ = false; }

 private:
  bool reserved_ = false;
  bool single_ = false;
};

/// The same type, size for size (after the symbol table's merges): no renaming of symbols.
inline bool same_type(InferContext& ctx, const ValueType& a, const ValueType& b) {
  if (a.kind != b.kind || a.elem != b.elem || a.uniform != b.uniform || a.shape.has_value() != b.shape.has_value())
    return false;
  if (a.shape) {
    if (a.shape->size() != b.shape->size()) return false;
    for (std::size_t i = 0; i < a.shape->size(); ++i)
      if (!(ctx.resolve((*a.shape)[i]) == ctx.resolve((*b.shape)[i]))) return false;
  }
  if (!a.inner || !b.inner) return !a.inner && !b.inner;
  return same_type(ctx, *a.inner, *b.inner);
}

/// The same state: type, contents (or none on both sides) and the nonzero mark.
inline bool same_state(InferContext& ctx, const ValueInfoState& a, const ValueInfoState& b) {
  if (!same_type(ctx, a.type, b.type) || a.all_nonzero != b.all_nonzero ||
      a.sym_value.has_value() != b.sym_value.has_value())
    return false;
  return !a.sym_value || join_values(ctx, a.sym_value, b.sym_value).has_value();
}

inline ValueType bool_scalar() { return ValueType::tensor(DataType::BOOL, Dims{}); }
inline ValueType int64_scalar() { return ValueType::tensor(DataType::INT64, Dims{}); }

}  // namespace control_detail

inline void rule_if(InferContext& ctx) {
  using namespace control_detail;
  if (ctx.input_count() < 1 || !ctx.has_input(0)) ctx.fail("If needs a condition input");
  if (const auto& c = ctx.input_type(0); c.elem != DataType::UNDEFINED && c.elem != DataType::BOOL)
    ctx.fail("If's condition must be bool");
  // A constant condition selects one branch: it runs whenever the If does.
  std::optional<bool> taken;
  if (auto v = ctx.input_ints(0); v && v->size() == 1) taken = (*v)[0] != 0;
  auto then_out = ctx.infer_subgraph("then_branch", {}, taken == true);
  auto else_out = ctx.infer_subgraph("else_branch", {}, taken == false);
  if (then_out.size() != ctx.output_count() || else_out.size() != ctx.output_count())
    ctx.fail("If: the branches have " + std::to_string(then_out.size()) + " and " + std::to_string(else_out.size()) +
             " outputs, the node " + std::to_string(ctx.output_count()));
  for (std::size_t i = 0; i < ctx.output_count(); ++i) {
    if (taken) {
      const auto& s = *taken ? then_out[i] : else_out[i];
      ctx.set_output(i, s.type);
      if (s.sym_value) ctx.set_output_value(i, *s.sym_value);
      continue;
    }
    const auto& a = then_out[i].type;
    const auto& b = else_out[i].type;
    if (a.is_tensor() && b.is_tensor() && a.elem != DataType::UNDEFINED && b.elem != DataType::UNDEFINED &&
        a.elem != b.elem)
      ctx.fail("If: output " + std::to_string(i) + " is " + std::string(data_type_name(a.elem)) +
               " in then_branch and " + std::string(data_type_name(b.elem)) + " in else_branch");
    // A branch whose output type is unknown says nothing: the other one's elem type still holds
    // (ONNX requires both to agree), its sizes do not. An empty sequence joins to the other.
    ValueType t = empty_sequence(ctx, then_out[i]) ? b : empty_sequence(ctx, else_out[i]) ? a : join(ctx, a, b);
    if (t.is_unknown() && (a.is_tensor() || b.is_tensor())) {
      t = ValueType::tensor(a.is_tensor() ? a.elem : b.elem);
    }
    ctx.set_output(i, std::move(t));
    if (auto v = join_values(ctx, then_out[i].sym_value, else_out[i].sym_value)) ctx.set_output_value(i, *v);
  }
}

inline void rule_loop(InferContext& ctx) {
  using namespace control_detail;
  if (ctx.input_count() < 2) ctx.fail("Loop needs the inputs M and cond (either may be empty)");
  const std::size_t n_carried = ctx.input_count() - 2;
  const std::size_t body_in = ctx.subgraph_input_count("body");
  const std::size_t body_out = ctx.subgraph_output_count("body");
  if (body_in != n_carried + 2) ctx.fail("Loop: body has " + std::to_string(body_in) + " inputs, expected " + std::to_string(n_carried + 2));
  if (body_out < n_carried + 1) ctx.fail("Loop: body has " + std::to_string(body_out) + " outputs, expected at least " + std::to_string(n_carried + 1));
  const std::size_t n_scan = body_out - 1 - n_carried;
  if (ctx.output_count() > n_carried + n_scan) ctx.fail("Loop: more outputs than carried values and scan outputs");
  // cond is known true on entry when absent or constant true.
  bool cond_true = !ctx.has_input(1);
  if (auto v = ctx.input_ints(1); v && v->size() == 1 && (*v)[0] != 0) cond_true = true;

  LoopBudgetScope budget;
  // No extra runs left (deep nesting): one run on carried values that hold in every iteration.
  const bool single_run = budget.single_run();
  std::vector<ValueInfoState> carried(n_carried);
  for (std::size_t i = 0; i < n_carried; ++i) {
    carried[i].type = ctx.input_type(2 + i);
    if (single_run) {
      carried[i].type = carried[i].type.is_tensor() ? ValueType::tensor(carried[i].type.elem) : ValueType{};
      continue;
    }
    if (auto v = ctx.input_value(2 + i)) carried[i].sym_value = *v;
  }
  // The iteration number and the condition are scalars, but exporters (torch) declare them in the
  // body as [1]; ONNX Runtime then feeds one-element 1-D tensors, so the body's rank 1 holds.
  auto rank1 = [&](std::size_t i) { return ctx.subgraph_input_rank("body", i) == std::optional<std::size_t>(1); };
  const bool iter_1d = rank1(0);
  const bool cond_1d = rank1(1);
  auto body_inputs = [&](const std::vector<ValueInfoState>& c) {
    std::vector<ValueInfoState> in(2 + n_carried);
    in[0].type = iter_1d ? ValueType::tensor(DataType::INT64, Dims{DimExpr(1)}) : int64_scalar();
    in[1].type = cond_1d ? ValueType::tensor(DataType::BOOL, Dims{DimExpr(1)}) : bool_scalar();
    if (cond_true) in[1].sym_value = Dims{DimExpr(1)};
    for (std::size_t i = 0; i < n_carried; ++i) in[2 + i] = c[i];
    return in;
  };
  std::vector<ValueInfoState> out;
  // The last run's carried values hold in every iteration: reached a fixed point, or ran once
  // on values widened to what always holds. (The reserved pass after no fixed point is not checked.)
  bool settled = true;
  Minted minted;
  const std::size_t first_symbol = ctx.symbols().size();
  for (int iter = 0;; ++iter) {
    out = ctx.infer_subgraph("body", body_inputs(carried));
    if (out.size() != body_out) ctx.fail("Loop: body outputs changed");
    bool changed = false;
    Renaming renamed;
    for (std::size_t i = 0; i < n_carried; ++i) {
      const auto& next = out[1 + i];
      if (empty_sequence(ctx, carried[i]) && next.type.kind == ValueType::Kind::Sequence) {
        // Starts empty: from the second iteration on it holds what the body produced.
        carried[i].type = next.type;
        carried[i].sym_value.reset();
        changed = true;
        continue;
      }
      carried[i].type = widen(ctx, carried[i].type, next.type, changed, minted, renamed);
      if (carried[i].sym_value) {
        // Kept contents name a minted size only where it stays itself in this pass. Contents are
        // only ever the initial ones, but the body's rules may have merged one of their sizes with
        // a minted symbol (a carried size tied to an outer N), which then names both.
        bool keep = join_values(ctx, carried[i].sym_value, next.sym_value).has_value();
        for (const auto& d : *carried[i].sym_value)
          ctx.resolve(d).for_each_symbol([&](std::int64_t id) {
            if (keep && is_minted(ctx, minted, id)) {
              const auto root = ctx.symbols().find(id);
              keep = maps_to(renamed, root, DimExpr::symbol(root));
            }
          });
        if (!keep) {
          carried[i].sym_value.reset();
          changed = true;
        }
      }
    }
    if (!changed || single_run) break;
    // No fixed point in sight (or no extra run left for another pass): forget what still moves,
    // in the run reserved for it.
    if (iter >= 4 || !budget.take()) {
      budget.use_reserve();
      settled = false;
      Renaming renamed2;
      for (std::size_t i = 0; i < n_carried; ++i) {
        bool c2 = false;
        auto w = widen(ctx, carried[i].type, out[1 + i].type, c2, minted, renamed2);
        // Still moving: only the element type is sure (this last run is not checked for a
        // fixed point, so no size or rank may be claimed for it).
        carried[i].type = c2 ? ValueType::tensor(w.elem) : w;
        if (carried[i].type.kind != ValueType::Kind::Tensor && c2) carried[i].type = ValueType{};
        carried[i].sym_value.reset();
      }
      out = ctx.infer_subgraph("body", body_inputs(carried));
      break;
    }
  }
  // The number of iterations when M is known and cond stays true.
  std::optional<DimExpr> trips;
  bool body_cond_true = false;
  if (const auto& c = out[0].sym_value; c && c->size() == 1 && ctx.resolve((*c)[0]).const_value().value_or(0) != 0)
    body_cond_true = true;
  if (cond_true && body_cond_true && ctx.has_input(0))
    if (const Dims* m = ctx.input_value(0); m && m->size() == 1) {
      const DimExpr v = ctx.resolve((*m)[0]);
      trips = ctx.provably_nonneg(v) ? v : ctx.resolve(infer::max(DimExpr(0), v));  // M < 0: no iteration
    }
  // At least one iteration (cond true on entry, M absent or a number >= 1): the final carried
  // values are some iteration's output, and the last run's outputs describe every iteration's.
  bool at_least_once = false;
  if (cond_true && settled) {
    if (!ctx.has_input(0)) at_least_once = true;
    else if (auto mv = ctx.input_ints(0); mv && mv->size() == 1 && (*mv)[0] >= 1) at_least_once = true;
  }
  // Exactly M iterations, M a number: followed one by one from the initial values, each run of
  // the body on what the previous one returned, until M or an iteration that returns its inputs
  // unchanged (every later one then does the same). That gives the values after M iterations,
  // sharper than the widened ones: V0 [N,1] plus an outer R [N,W] is [N,W] from the first
  // iteration on, where widening says [N,?]. The iteration number is left unknown, so one
  // iteration's result does not depend on which it is.
  bool is_followed = false;
  std::vector<ValueInfoState> followed;         // the final carried values, when followed
  std::vector<ValueType> followed_scan;         // scan slices joined over all M iterations
  if (auto m = trips ? trips->const_value() : std::nullopt; m && *m >= 0 && settled && !single_run) {
    std::vector<ValueInfoState> cur(n_carried);
    for (std::size_t i = 0; i < n_carried; ++i) {
      cur[i].type = ctx.input_type(2 + i);
      if (auto v = ctx.input_value(2 + i)) cur[i].sym_value = *v;
    }
    // Runs the probes below may need are kept for them: following is worth less when it stops
    // before M or a fixed point.
    int keep = 1;
    for (std::size_t i = 0; i < n_carried; ++i) keep += carried[i].type.kind == ValueType::Kind::Sequence;
    const int starved = loop_budget().starved;
    bool done = *m == 0;
    for (std::int64_t it = 0; it < *m && it < kMaxFollowedTrips && budget.take(keep); ++it) {
      auto o = ctx.probe_subgraph("body", body_inputs(cur));
      if (o.size() != body_out) break;
      for (std::size_t k = 0; k < n_scan; ++k) {
        const auto& sl = o[1 + n_carried + k].type;
        if (it == 0) followed_scan.push_back(sl);
        else followed_scan[k] = join(ctx, followed_scan[k], sl);
      }
      // A body that returns another kind or element type than it took (a sequence for an
      // optional input, which ONNX Runtime wraps) is not followed: the next run would read it
      // against the body's declared inputs.
      bool kinds = true;
      for (std::size_t i = 0; i < n_carried; ++i) {
        const auto &a = cur[i].type, &b = o[1 + i].type;
        kinds = kinds && (a.is_unknown() || b.is_unknown() ||
                          (a.kind == b.kind && (a.elem == DataType::UNDEFINED || b.elem == DataType::UNDEFINED ||
                                                a.elem == b.elem)));
      }
      if (!kinds) break;
      bool same = true;
      for (std::size_t i = 0; i < n_carried; ++i) {
        same = same && same_state(ctx, cur[i], o[1 + i]);
        cur[i] = std::move(o[1 + i]);
        cur[i].partial_value.reset();
      }
      // At a fixed point every later iteration repeats this one, scan slices included.
      if (same || it + 1 == *m) {
        done = true;
        break;
      }
    }
    // A Loop nested in the body that found no budget left ran once, widened: the followed values
    // may then be looser than the widened ones, so they are not used.
    if (done && loop_budget().starved == starved) {
      followed = std::move(cur);
      is_followed = true;
    } else {
      followed_scan.clear();
    }
  }
  // Tensor sizes the body grows by the same k every iteration (tokens concatenated in a decoding
  // loop) end at init + k * trips. One more run of the body, with a new symbol L_j for each size
  // that varies, must give L_j + k_j with k_j free of anything that varies.
  std::vector<std::vector<std::pair<std::size_t, DimExpr>>> grown(n_carried);  // (axis, final size)
  if (trips && !single_run && !is_followed) {
    auto probe = carried;
    std::vector<std::pair<std::size_t, std::size_t>> where;  // (carried value, axis) of each L
    Dims probes, inits;  // each L, and the initial size it stands for
    for (std::size_t i = 0; i < n_carried && i < ctx.output_count(); ++i) {
      const auto& init = ctx.input_type(2 + i);
      auto& c = probe[i].type;
      if (c.kind != ValueType::Kind::Tensor || !c.shape || !init.shape || init.shape->size() != c.shape->size())
        continue;
      for (std::size_t j = 0; j < c.shape->size(); ++j) {
        if (ctx.resolve((*c.shape)[j]) == ctx.resolve((*init.shape)[j])) continue;
        probes.push_back(ctx.fresh());
        inits.push_back((*init.shape)[j]);
        (*c.shape)[j] = probes.back();
        where.emplace_back(i, j);
      }
    }
    if (!where.empty() && budget.take()) {
      auto o = ctx.probe_subgraph("body", body_inputs(probe));
      // What one iteration makes of each probed size: g_p(L_1, L_2, ...), or nullopt.
      std::vector<std::optional<DimExpr>> next(where.size());
      std::vector<std::size_t> unsolved;
      for (std::size_t p = 0; p < where.size() && o.size() == body_out; ++p) {
        const auto [i, j] = where[p];
        const auto& t = o[1 + i].type;
        if (!t.is_tensor() || !t.shape || t.shape->size() != probe[i].type.shape->size()) continue;
        next[p] = ctx.resolve((*t.shape)[j]);
        const DimExpr k = *next[p] - ctx.resolve(probes[p]);
        // k may name the model's own sizes (loop-invariant), never a fresh symbol: the probes,
        // the carried values' varying sizes and sizes the body makes up all are.
        bool invariant = true;
        k.for_each_symbol([&](std::int64_t id) {
          invariant = invariant && ctx.symbols().origin(id) != SymbolOrigin::Fresh;
        });
        if (!invariant) {
          unsolved.push_back(p);
          continue;
        }
        try {
          grown[i].emplace_back(j, ctx.resolve(ctx.resolve(inits[p]) + k * *trips));
        } catch (const Error&) {
          // overflow: the size stays unknown
        }
      }
      // A size the body changes in another way (a slice that cannot go below 0 gives
      // max(0, L-1)) after a small constant number of iterations M: apply the body's functions
      // g_p to the initial sizes M times, all probed sizes together.
      const auto m = trips->const_value();
      if (!unsolved.empty() && m && *m >= 0 && *m <= kMaxUnrolledTrips &&
          static_cast<std::int64_t>(where.size()) * *m <= kMaxUnrolledSteps) {
        // The probes by symbol id. A probe the body run merged with anything else (a size the
        // body ties to another) is not a free variable of g and cannot be substituted.
        std::unordered_map<std::int64_t, std::size_t> probe_of;
        for (std::size_t p = 0; p < where.size(); ++p) {
          const auto own = probes[p].as_symbol();
          if (own && ctx.resolve(probes[p]).as_symbol() == own) probe_of.emplace(*own, p);
        }
        // Usable: g_p names only the model's own sizes and probes whose g is usable too.
        std::vector<bool> usable(where.size());
        for (std::size_t p = 0; p < where.size(); ++p) usable[p] = next[p].has_value();
        for (bool again = true; again;) {
          again = false;
          for (std::size_t p = 0; p < where.size(); ++p) {
            if (!usable[p]) continue;
            bool ok = true;
            next[p]->for_each_symbol([&](std::int64_t id) {
              if (ctx.symbols().origin(id) != SymbolOrigin::Fresh) return;
              auto it = probe_of.find(id);
              ok = ok && it != probe_of.end() && usable[it->second];
            });
            if (!ok) {
              usable[p] = false;
              again = true;
            }
          }
        }
        try {
          Dims cur;
          for (const auto& d : inits) cur.push_back(ctx.resolve(d));
          for (std::int64_t it = 0; it < *m; ++it) {
            Dims upd = cur;
            for (std::size_t p = 0; p < where.size(); ++p) {
              if (!usable[p]) continue;
              upd[p] = ctx.resolve(next[p]->substitute([&](std::int64_t id) {
                auto f = probe_of.find(id);
                return f != probe_of.end() ? cur[f->second] : DimExpr::symbol(id);
              }));
            }
            cur = std::move(upd);
          }
          for (auto p : unsolved)
            if (usable[p]) grown[where[p].first].emplace_back(where[p].second, cur[p]);
        } catch (const Error&) {
          // too large or overflow: those sizes stay unknown
        }
      }
    }
  }
  // Final carried values: the last iteration's, or the initial ones after zero iterations.
  Renaming unminted;
  for (std::size_t i = 0; i < n_carried && i < ctx.output_count(); ++i) {
    if (is_followed) {
      ctx.set_output(i, followed[i].type);
      if (followed[i].sym_value) ctx.set_output_value(i, *followed[i].sym_value);
      continue;
    }
    ValueInfoState init;
    init.type = ctx.input_type(2 + i);
    if (auto v = ctx.input_value(2 + i)) init.sym_value = *v;
    ValueType t = empty_sequence(ctx, init) || at_least_once ? unmint(ctx, first_symbol, unminted, out[1 + i].type)
                                                             : join(ctx, init.type, out[1 + i].type);
    if (t.is_unknown() && out[1 + i].type.is_tensor()) t = ValueType::tensor(out[1 + i].type.elem);
    if (!grown[i].empty() && t.shape && t.shape->size() == init.type.shape->size())
      for (const auto& [j, size] : grown[i]) (*t.shape)[j] = size;
    const bool is_seq = t.kind == ValueType::Kind::Sequence;
    ctx.set_output(i, std::move(t));
    // Contents the body passes through unchanged (kept by the fixed point) are the final ones.
    if (carried[i].sym_value || (at_least_once && out[1 + i].sym_value)) {
      Dims v = carried[i].sym_value ? *carried[i].sym_value : *out[1 + i].sym_value;
      for (auto& d : v) d = unmint(ctx, first_symbol, unminted, d);
      ctx.set_output_value(i, std::move(v));
      continue;
    }
    // A sequence the body lengthens by the same count k every iteration (a list appended to in
    // a scripted loop) ends with init + k * trips elements. The body is run once more with a
    // new symbol L for the length: its output length must be L + k.
    if (!is_seq || !trips || !init.sym_value || init.sym_value->size() != 1) continue;
    if (!budget.take()) continue;
    auto probe = carried;
    const DimExpr len = ctx.fresh();
    probe[i].sym_value = Dims{len};
    auto o = ctx.probe_subgraph("body", body_inputs(probe));
    if (o.size() != body_out || !o[1 + i].sym_value || o[1 + i].sym_value->size() != 1) continue;
    const auto k = (ctx.resolve((*o[1 + i].sym_value)[0]) - ctx.resolve(len)).const_value();
    if (!k) continue;
    try {
      ctx.set_output_value(i, {ctx.resolve(ctx.resolve((*init.sym_value)[0]) + DimExpr(*k) * *trips)});
    } catch (const Error&) {
      // overflow: length unknown
    }
  }
  // Scan outputs: one slice per iteration, stacked on a new leading axis.
  for (std::size_t k = 0; k < n_scan && n_carried + k < ctx.output_count(); ++k) {
    const auto& s = followed_scan.size() == n_scan ? followed_scan[k] : out[1 + n_carried + k].type;
    if (!s.is_tensor()) {
      ctx.set_output(n_carried + k, s.is_unknown() ? ValueType{} : ValueType::tensor(s.elem));
      continue;
    }
    if (!s.shape) {
      ctx.set_output(n_carried + k, ValueType::tensor(s.elem));
      continue;
    }
    Dims d;
    d.push_back(trips ? *trips : ctx.fresh());
    // No iteration: no slice says what the other sizes are (ONNX Runtime makes the ones it
    // cannot see statically 0).
    if (trips && trips->is(0))
      for (std::size_t j = 0; j < s.shape->size(); ++j) d.push_back(ctx.fresh());
    else
      d.insert(d.end(), s.shape->begin(), s.shape->end());
    ctx.set_output(n_carried + k, s.elem, std::move(d));
  }
}

inline void rule_scan(InferContext& ctx) {
  using namespace control_detail;
  const std::int64_t m = ctx.require_int("num_scan_inputs");
  const bool v8 = ctx.opset() < 9;
  const std::size_t first = v8 ? 1 : 0;  // opset 8: input 0 is sequence_lens
  if (m < 1 || static_cast<std::size_t>(m) + first > ctx.input_count()) ctx.fail("Scan: num_scan_inputs out of range");
  const std::size_t n_state = ctx.input_count() - first - static_cast<std::size_t>(m);
  const std::size_t body_out = ctx.subgraph_output_count("body");
  if (body_out < n_state) ctx.fail("Scan: body has fewer outputs than state variables");
  const std::size_t n_scan_out = body_out - n_state;
  const auto in_axes = ctx.attr_ints("scan_input_axes");
  const auto out_axes = ctx.attr_ints("scan_output_axes");
  if (in_axes && in_axes->size() != static_cast<std::size_t>(m)) ctx.fail("Scan: scan_input_axes has the wrong length");
  if (out_axes && out_axes->size() != n_scan_out) ctx.fail("Scan: scan_output_axes has the wrong length");
  std::vector<ValueInfoState> body_in(n_state + static_cast<std::size_t>(m));
  std::optional<DimExpr> batch;
  for (std::size_t i = 0; i < n_state; ++i) {
    ValueType t = ctx.input_type(first + i);
    if (v8 && t.has_shape()) {  // states carry the batch axis outside the body
      if (t.shape->empty()) ctx.fail("Scan: state without batch axis");
      batch = (*t.shape)[0];
      t.shape->erase(t.shape->begin());
    }
    body_in[i].type = std::move(t);
  }
  std::optional<DimExpr> seq;
  for (std::size_t j = 0; j < static_cast<std::size_t>(m); ++j) {
    ValueType t = ctx.input_type(first + n_state + j);
    if (t.has_shape()) {
      const auto r = static_cast<std::int64_t>(t.shape->size());
      if (v8) {
        if (r < 2) ctx.fail("Scan: scan input needs batch and sequence axes");
        if (batch) ctx.unify(*batch, (*t.shape)[0], "Scan batch size");
        else batch = (*t.shape)[0];
        if (seq) ctx.unify(*seq, (*t.shape)[1], "Scan sequence length");
        else seq = (*t.shape)[1];
        t.shape->erase(t.shape->begin(), t.shape->begin() + 2);
      } else {
        const auto axis = ctx.normalize_axis(in_axes ? (*in_axes)[j] : 0, r, "scan_input_axes");
        const DimExpr len = (*t.shape)[static_cast<std::size_t>(axis)];
        if (seq) ctx.unify(*seq, len, "Scan sequence length");
        else seq = len;
        t.shape->erase(t.shape->begin() + axis);
      }
    }
    body_in[n_state + j].type = std::move(t);
  }
  auto out = ctx.infer_subgraph("body", body_in);
  for (std::size_t i = 0; i < n_state && i < ctx.output_count(); ++i) {
    // State shapes are the same in every iteration.
    if (body_in[i].type.has_shape() && out[i].type.has_shape() && body_in[i].type.shape->size() == out[i].type.shape->size())
      for (std::size_t k = 0; k < out[i].type.shape->size(); ++k)
        ctx.unify((*body_in[i].type.shape)[k], (*out[i].type.shape)[k], "Scan state size");
    ValueType t = out[i].type.is_unknown() ? body_in[i].type : out[i].type;
    if (v8 && t.has_shape()) t.shape->insert(t.shape->begin(), batch ? *batch : ctx.fresh());
    ctx.set_output(i, std::move(t));
  }
  for (std::size_t k = 0; k < n_scan_out && n_state + k < ctx.output_count(); ++k) {
    ValueType t = out[n_state + k].type;
    if (t.has_shape()) {
      const auto r = static_cast<std::int64_t>(t.shape->size()) + 1;
      const DimExpr len = seq ? *seq : ctx.fresh();
      if (v8) {
        t.shape->insert(t.shape->begin(), len);
        t.shape->insert(t.shape->begin(), batch ? *batch : ctx.fresh());
      } else {
        const auto axis = ctx.normalize_axis(out_axes ? (*out_axes)[k] : 0, r, "scan_output_axes");
        t.shape->insert(t.shape->begin() + axis, len);
      }
    }
    ctx.set_output(n_state + k, std::move(t));
  }
}

inline void rule_sequence_map(InferContext& ctx) {
  using namespace control_detail;
  if (ctx.input_count() < 1 || !ctx.has_input(0)) ctx.fail("SequenceMap needs an input sequence");
  std::vector<ValueInfoState> in(ctx.input_count());
  for (std::size_t i = 0; i < ctx.input_count(); ++i) {
    const auto& t = ctx.input_type(i);
    if (t.kind == ValueType::Kind::Sequence)
      in[i].type = t.element();
    else if (i == 0 && !t.is_unknown())
      ctx.fail("SequenceMap: input 0 must be a sequence");
    else
      in[i].type = t;
  }
  // Elements of a sequence may differ in size: the element type's symbols stand for one element.
  auto out = ctx.infer_subgraph("body", in);
  for (std::size_t i = 0; i < ctx.output_count() && i < out.size(); ++i) {
    ValueType e = out[i].type;
    if (e.has_shape())
      for (auto& d : *e.shape) {
        bool varies = false;
        ctx.resolve(d).for_each_symbol(
            [&](std::int64_t id) { varies = varies || ctx.symbols().origin(id) == SymbolOrigin::Fresh; });
        if (varies) d = ctx.fresh();
      }
    ctx.set_output(i, ValueType::sequence(std::move(e)));
  }
}

inline void register_control_ops(OpRegistry& r) {
  r.add("", "If", &rule_if);
  r.add("", "Loop", &rule_loop);
  r.add("", "Scan", &rule_scan);
  r.add("", "SequenceMap", &rule_sequence_map);
}

}  // namespace oxir::infer::ops
