#pragma once
// One symbol table per model: every symbolic size is a class of a union-find structure.
// Classes are created for the model's own dim_params (graph inputs first: they are the roots of
// all names), for unnamed graph-input dims (stable generated names) and for sizes no rule can
// determine (fresh "unk__N" symbols). Equalities that operator semantics imply merge classes; a
// class that meets a number becomes that number everywhere, and a fresh class that meets an
// expression of other sizes becomes that expression everywhere.

#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "expr.hpp"

namespace oxir::infer {

namespace detail {

/// An open-addressing index from names to positions 0..n-1 of some table the caller owns (the
/// caller compares keys, so the index never holds pointers into the table). Tables of up to
/// kLinear entries are searched linearly and have no index at all: most graphs are that small.
class NameIndex {
 public:
  static constexpr std::size_t kLinear = 16;

  [[nodiscard]] static std::uint64_t hash(std::string_view s) noexcept {
    // FNV-1a over 8-byte words then the tail: fast on short names, well mixed by the finaliser.
    std::uint64_t h = 0xcbf29ce484222325ull ^ s.size();
    std::size_t i = 0;
    for (; i + 8 <= s.size(); i += 8) {
      std::uint64_t w;
      std::memcpy(&w, s.data() + i, 8);
      h = (h ^ w) * 0x100000001b3ull;
      h ^= h >> 29;
    }
    for (; i < s.size(); ++i) h = (h ^ static_cast<unsigned char>(s[i])) * 0x100000001b3ull;
    h ^= h >> 32;
    h *= 0xd6e8feb86659fd93ull;
    h ^= h >> 32;
    return h;
  }

  [[nodiscard]] bool active() const noexcept { return !slots_.empty(); }

  /// Position of `key` among n entries, or npos. `key_of(i)` gives entry i's name.
  template <class KeyOf>
  [[nodiscard]] std::size_t find(std::string_view key, std::size_t n, KeyOf&& key_of) const {
    if (slots_.empty()) {
      // Sizes and last characters first: names in one graph often share long prefixes.
      const std::size_t len = key.size();
      for (std::size_t i = 0; i < n; ++i) {
        const std::string_view k = key_of(i);
        if (k.size() == len && (len == 0 || (k[len - 1] == key[len - 1] && std::memcmp(k.data(), key.data(), len) == 0)))
          return i;
      }
      return npos;
    }
    const std::uint64_t h = hash(key);
    const std::uint32_t tag = static_cast<std::uint32_t>(h >> 32);
    for (std::size_t s = static_cast<std::size_t>(h) & mask_;; s = (s + 1) & mask_) {
      const std::uint64_t slot = slots_[s];
      if (slot == 0) return npos;
      if (static_cast<std::uint32_t>(slot >> 32) == tag) {
        const std::size_t i = static_cast<std::uint32_t>(slot) - 1;
        if (key_of(i) == key) return i;
      }
    }
  }
  /// Records that entry n-1 (just appended) has name `key`; builds the index once n passes
  /// kLinear, grows it when half full.
  template <class KeyOf>
  void added(std::string_view key, std::size_t n, KeyOf&& key_of) {
    if (slots_.empty()) {
      if (n <= kLinear) return;
      rebuild(n, key_of);
      return;
    }
    if (2 * n > slots_.size()) {
      rebuild(n, key_of);
      return;
    }
    insert(hash(key), n - 1);
  }
  /// Makes room for n entries without rehashing (only once the index exists or n needs one).
  template <class KeyOf>
  void reserve(std::size_t n, std::size_t current, KeyOf&& key_of) {
    if (n <= kLinear || 2 * n <= slots_.size()) return;
    rebuild_to(capacity_for(n), current, key_of);
  }
  void clear() noexcept {
    slots_.clear();
    mask_ = 0;
  }
  [[nodiscard]] std::size_t storage_bytes() const noexcept { return slots_.capacity() * sizeof(std::uint64_t); }

  static constexpr std::size_t npos = static_cast<std::size_t>(-1);

 private:
  static std::size_t capacity_for(std::size_t n) {
    std::size_t c = 64;
    while (c < 2 * n) c *= 2;
    return c;
  }
  template <class KeyOf>
  void rebuild(std::size_t n, KeyOf&& key_of) {
    rebuild_to(capacity_for(n), n, key_of);
  }
  template <class KeyOf>
  void rebuild_to(std::size_t cap, std::size_t n, KeyOf&& key_of) {
    slots_.assign(cap, 0);
    mask_ = cap - 1;
    for (std::size_t i = 0; i < n; ++i) insert(hash(key_of(i)), i);
  }
  void insert(std::uint64_t h, std::size_t i) {
    std::size_t s = static_cast<std::size_t>(h) & mask_;
    while (slots_[s] != 0) s = (s + 1) & mask_;
    slots_[s] = (h & 0xffffffff00000000ull) | static_cast<std::uint64_t>(i + 1);
  }
  std::vector<std::uint64_t> slots_;  ///< (hash >> 32) << 32 | (position + 1); 0 = empty
  std::size_t mask_ = 0;
};

}  // namespace detail

/// How a symbol came to be; lower ranks name a merged class.
enum class SymbolOrigin : std::uint8_t {
  GraphInput = 0,   ///< a dim_param of a main-graph input
  Declared = 1,     ///< a dim_param elsewhere in the model (value_info, outputs, subgraphs)
  InputUnnamed = 2, ///< an unnamed dim of a graph input, named "<input>_dim<i>"
  Fresh = 3,        ///< a size no rule could determine
};

/// Outcome of asserting that two sizes are equal.
enum class Unify : std::uint8_t {
  Equal,     ///< already known equal
  Merged,    ///< a symbol class was merged or bound to a number
  Undecided, ///< not provably equal or different; nothing recorded
  Conflict,  ///< provably different (e.g. 3 vs 4)
};

class SymbolTable {
 public:
  /// The symbol for a dim_param of the model (created on first use).
  std::int64_t named(std::string_view name, SymbolOrigin origin = SymbolOrigin::Declared) {
    if (const auto i = find_name(name); i != detail::NameIndex::npos) {
      auto& s = syms_[i];
      if (origin < s.origin) s.origin = origin;
      return static_cast<std::int64_t>(i);
    }
    return add(name, origin);
  }
  /// The symbol named `name`, if there is one (creates nothing).
  [[nodiscard]] std::optional<std::int64_t> lookup(std::string_view name) const {
    if (const auto i = find_name(name); i != detail::NameIndex::npos) return static_cast<std::int64_t>(i);
    return std::nullopt;
  }
  /// Whether the model uses `name` as a dim_param (the names reserve() was given; runs the
  /// before_first_fresh callback first if it has not run).
  bool is_model_name(std::string_view name) {
    ensure_reserved();
    const auto i = reserved_index_.find(name, reserved_.size(), reserved_key_of());
    return i != detail::NameIndex::npos && reserved_whole_[i];
  }
  /// The prefix of fresh names.
  static constexpr std::string_view kFreshPrefix = "unk__";
  /// Whether `name` has the form of a fresh name, unk__<digits> (as this table and onnx make them).
  static bool fresh_style(std::string_view name) {
    if (name.size() <= kFreshPrefix.size() || name.substr(0, kFreshPrefix.size()) != kFreshPrefix) return false;
    for (const char c : name.substr(kFreshPrefix.size()))
      if (c < '0' || c > '9') return false;
    return true;
  }
  /// A new symbol with a name not used by the model ("unk__0", "unk__1", …).
  std::int64_t fresh(std::string_view prefix = kFreshPrefix) {
    ensure_reserved();
    // prefix + decimal counter, built on the stack for the usual short prefixes.
    std::string long_name;
    char buf[64];
    std::string_view name;
    do {
      char digits[24];
      char* const end = digits + sizeof digits;
      char* p = end;
      std::uint64_t n = next_fresh_++;
      do {
        *--p = static_cast<char>('0' + n % 10);
        n /= 10;
      } while (n);
      const auto nd = static_cast<std::size_t>(end - p);
      if (prefix.size() + nd <= sizeof buf) {
        std::memcpy(buf, prefix.data(), prefix.size());
        std::memcpy(buf + prefix.size(), p, nd);
        name = std::string_view(buf, prefix.size() + nd);
      } else {
        long_name.assign(prefix);
        long_name.append(p, nd);
        name = long_name;
      }
    } while (find_name(name) != detail::NameIndex::npos || is_reserved(name));
    return add(name, SymbolOrigin::Fresh);
  }
  [[nodiscard]] DimExpr fresh_expr() { return DimExpr::symbol(fresh()); }
  /// The symbol for an unnamed dim of a graph input, called `name` ("<input>_dim<i>"), or
  /// "<name>_<k>" with the smallest free k when the model uses `name` itself as a dim_param
  /// (y: [3, "x_dim1"] beside x: [3, ?] must not make x's dim y's).
  std::int64_t unnamed(std::string name) {
    ensure_reserved();
    auto taken = [&](std::string_view n) {
      if (const auto i = find_name(n); i != detail::NameIndex::npos) return syms_[i].origin != SymbolOrigin::InputUnnamed;
      return is_reserved(n);
    };
    if (taken(name)) {
      const std::size_t base = name.size();
      for (std::uint64_t k = 1;; ++k) {
        name.resize(base);
        name += '_';
        name += std::to_string(k);
        if (!taken(name)) break;
      }
    }
    return named(name, SymbolOrigin::InputUnnamed);
  }
  /// Reserves a name so that fresh() never produces it (call for every dim_param of the model).
  /// A name that is not plain ("unk__2+3") reserves the names inside it too, so that no fresh
  /// symbol takes a name an expression of the model uses.
  void reserve(std::string_view name) {
    reserve_one(name, true);
    if (plain_name(name)) return;
    for (std::size_t i = 0; i < name.size();) {
      std::size_t j = i;
      while (j < name.size() && !expr_syntax_char(name[j])) ++j;
      if (j > i && plain_name(name.substr(i, j - i))) reserve_one(name.substr(i, j - i), false);  // not numbers
      i = j + 1;
    }
  }
  /// Runs `f` (e.g. reserving the model's names) just before the first fresh symbol or unnamed
  /// input dim is named, so that models needing neither never pay for it.
  void before_first_fresh(std::function<void()> f) { before_first_fresh_ = std::move(f); }

  [[nodiscard]] std::size_t size() const noexcept { return syms_.size(); }

  /// The representative of id's class.
  std::int64_t find(std::int64_t id) {
    auto i = static_cast<std::size_t>(id);
    while (syms_[i].parent != static_cast<std::int64_t>(i)) {
      auto& p = syms_[static_cast<std::size_t>(syms_[i].parent)];
      syms_[i].parent = p.parent;  // path halving
      i = static_cast<std::size_t>(syms_[i].parent);
    }
    return static_cast<std::int64_t>(i);
  }
  /// The number the class is bound to (directly, or through the expression it stands for), if any.
  std::optional<std::int64_t> value(std::int64_t id) {
    const auto r = find(id);
    const auto& s = syms_[static_cast<std::size_t>(r)];
    if (s.value || s.bound < 0) return s.value;
    return resolve_bound(r).const_value();
  }
  /// The printed name of id's class.
  const std::string& name(std::int64_t id) { return syms_[static_cast<std::size_t>(find(id))].name; }
  [[nodiscard]] SymbolOrigin origin(std::int64_t id) { return syms_[static_cast<std::size_t>(find(id))].origin; }
  /// How the symbol itself (not its class) came to be.
  [[nodiscard]] SymbolOrigin own_origin(std::int64_t id) const { return syms_[static_cast<std::size_t>(id)].origin; }

  /// Merges two classes; false (and nothing changes) if they are bound to different numbers.
  bool merge(std::int64_t a, std::int64_t b) {
    a = find(a), b = find(b);
    if (a == b) return true;
    auto& x = syms_[static_cast<std::size_t>(a)];
    auto& y = syms_[static_cast<std::size_t>(b)];
    if (x.value && y.value && *x.value != *y.value) return false;
    // The better name represents the class: lower origin, then the older symbol.
    const bool a_wins = x.origin < y.origin || (x.origin == y.origin && a < b);
    auto& winner = a_wins ? x : y;
    auto& loser = a_wins ? y : x;
    if (!winner.value) winner.value = loser.value;
    loser.parent = a_wins ? a : b;
    ++version_;
    return true;
  }
  /// Binds a class to a number; false if it is bound to another one.
  bool bind(std::int64_t id, std::int64_t v) {
    auto& s = syms_[static_cast<std::size_t>(find(id))];
    if (s.value) return *s.value == v;
    s.value = v;
    ++version_;
    return true;
  }

  /// The expression with every symbol replaced by its representative or number.
  DimExpr resolve(const DimExpr& e) {
    if (e.is_const()) return e;
    if (auto id = e.as_symbol()) {
      const auto r = find(*id);
      const auto& s = syms_[static_cast<std::size_t>(r)];
      if (s.value) return DimExpr(*s.value);
      if (s.bound >= 0) return resolve_bound(r);
      return r == *id ? e : DimExpr::symbol(r);
    }
    if (!needs_resolving(e)) return e;
    try {
      return e.substitute([&](std::int64_t id) -> DimExpr {
        const auto r = find(id);
        const auto& s = syms_[static_cast<std::size_t>(r)];
        if (s.value) return DimExpr(*s.value);
        if (s.bound >= 0) return resolve_bound(r);
        return DimExpr::symbol(r);
      });
    } catch (const Error&) {
      // A size bound to a number made the expression overflow int64 (9223372036854775807*N
      // with N = 3): no int64 size is that value. The class representatives alone still name
      // the same size; failing that, the expression as it is.
      try {
        return e.substitute([&](std::int64_t id) { return DimExpr::symbol(find(id)); });
      } catch (const Error&) {
        return e;
      }
    }
  }

  /// Records a == b where the rules of operator semantics imply it.
  Unify unify(const DimExpr& a0, const DimExpr& b0) {
    const DimExpr a = resolve(a0), b = resolve(b0);
    if (a == b) return Unify::Equal;
    auto sa = a.as_symbol(), sb = b.as_symbol();
    if (sa && sb) return merge(*sa, *sb) ? Unify::Merged : Unify::Conflict;
    auto ca = a.const_value(), cb = b.const_value();
    if (ca && cb) return Unify::Conflict;
    if (sa && cb) return bind(*sa, *cb) ? Unify::Merged : Unify::Conflict;
    if (sb && ca) return bind(*sb, *ca) ? Unify::Merged : Unify::Conflict;
    // k*X + c == v with one symbol X: solve it.
    auto solve = [&](const DimExpr& lin, std::int64_t v) -> Unify {
      const auto& t = lin.terms();
      const std::size_t nonconst = t.size() - (lin.constant_term() != 0 ? 1 : 0);
      if (nonconst != 1 || t[0].factors.size() != 1 || t[0].factors[0].op != Atom::Op::Symbol) return Unify::Undecided;
      std::int64_t rhs = 0;
      const std::int64_t k = t[0].coeff;
      // Out of int64 range (or INT64_MIN / -1): no size solves it, but that is no proof of a
      // conflict in the model either: left undecided.
      if (__builtin_sub_overflow(v, lin.constant_term(), &rhs) ||
          (k == -1 && rhs == std::numeric_limits<std::int64_t>::min()))
        return Unify::Undecided;
      if (rhs % k != 0) return Unify::Conflict;
      return bind(t[0].factors[0].id, rhs / k) ? Unify::Merged : Unify::Conflict;
    };
    if (cb) return solve(a, *cb);
    if (ca) return solve(b, *ca);
    // Differences that are constant prove inequality (N+1 vs N).
    try {
      const DimExpr d = a - b;
      if (d.is_const()) return Unify::Conflict;
      return bind_fresh(d) ? Unify::Merged : Unify::Undecided;
    } catch (const Error&) {  // overflow, or a difference too large to build: no proof either way
    }
    return Unify::Undecided;
  }

  /// What unify would find, without recording anything: for sizes that are equal only when a
  /// piece of the model runs that may not run (a branch of an If, a loop body), so the equality
  /// must not reach the sizes outside it.
  Unify compare(const DimExpr& a0, const DimExpr& b0) {
    const DimExpr a = resolve(a0), b = resolve(b0);
    if (a == b) return Unify::Equal;
    try {
      const DimExpr d = a - b;
      if (d.is_const()) return Unify::Conflict;
      // k*X + c == 0 with one symbol X and c not a multiple of k: no integer size solves it.
      const auto& t = d.terms();
      const std::size_t nonconst = t.size() - (d.constant_term() != 0 ? 1 : 0);
      if (nonconst == 1 && t[0].factors.size() == 1 && t[0].factors[0].op == Atom::Op::Symbol && t[0].coeff != 0 &&
          t[0].coeff != -1 && d.constant_term() % t[0].coeff != 0)
        return Unify::Conflict;
    } catch (const Error&) {  // overflow, or a difference too large to build: no proof either way
    }
    return Unify::Undecided;
  }

  /// Printed form after resolution (a number prints as digits).
  std::string to_string(const DimExpr& e) {
    const DimExpr r = resolve(e);
    return r.to_string([&](std::int64_t id) { return name(id); });
  }

  /// Changes whenever a merge or binding happens (lets callers detect a fixed point).
  [[nodiscard]] std::uint64_t version() const noexcept { return version_; }

  /// Forgets every symbol and reserved name; the storage is kept for the next model.
  void clear() noexcept {
    syms_.clear();
    by_name_.clear();
    reserved_.clear();
    reserved_whole_.clear();
    reserved_index_.clear();
    bound_.clear();
    next_fresh_ = 0;
    before_first_fresh_ = nullptr;
    version_ = 0;
  }
  /// Bytes of storage held (roughly): lets a cache decide whether keeping it is worth it.
  [[nodiscard]] std::size_t storage_bytes() const noexcept {
    return syms_.capacity() * sizeof(Sym) + by_name_.storage_bytes() + reserved_.capacity() * sizeof(std::string) +
           reserved_index_.storage_bytes() + bound_.capacity() * sizeof(DimExpr);
  }

 private:
  [[nodiscard]] bool is_reserved(std::string_view name) const {
    return reserved_index_.find(name, reserved_.size(), reserved_key_of()) != detail::NameIndex::npos;
  }
  void reserve_one(std::string_view name, bool whole) {
    if (const auto i = reserved_index_.find(name, reserved_.size(), reserved_key_of()); i != detail::NameIndex::npos) {
      if (whole) reserved_whole_[i] = true;
      return;
    }
    reserved_.emplace_back(name);
    reserved_whole_.push_back(whole);
    reserved_index_.added(reserved_.back(), reserved_.size(), reserved_key_of());
  }
  /// Runs the before_first_fresh callback if it has not run yet.
  void ensure_reserved() {
    if (before_first_fresh_) {
      auto f = std::move(before_first_fresh_);
      before_first_fresh_ = nullptr;
      f();
    }
  }

  struct Sym {
    std::string name;
    std::int64_t parent;
    std::optional<std::int64_t> value;
    SymbolOrigin origin;
    std::int32_t bound = -1;  ///< index in bound_ of the expression a fresh class stands for
  };

  /// Whether resolve would change e: a symbol that is not its class's representative, or whose
  /// class is bound to a number or an expression.
  bool needs_resolving(const DimExpr& e) {
    bool any = false;
    e.for_each_symbol([&](std::int64_t id) {
      if (any) return;
      const auto& s = syms_[static_cast<std::size_t>(id)];
      any = s.parent != id || s.value || s.bound >= 0;
    });
    return any;
  }

  /// The expression the representative r is bound to, resolved. It was resolved when bound;
  /// symbols in it may since have been merged or bound, so it is resolved again, level by level
  /// without recursion, and stored back in its resolved form. Bindings never form a cycle (a
  /// class is bound only to a resolved expression that does not mention it, and a bound class
  /// never appears in a resolved expression), so each round removes one level of them.
  DimExpr resolve_bound(std::int64_t r) {
    const auto slot = static_cast<std::size_t>(syms_[static_cast<std::size_t>(r)].bound);
    DimExpr e = bound_[slot];
    try {
      for (std::size_t round = 0; needs_resolving(e); ++round) {
        if (round > bound_.size()) return DimExpr::symbol(r);  // unreachable: no cycles
        e = e.substitute([&](std::int64_t id) -> DimExpr {
          const auto q = find(id);
          const auto& s = syms_[static_cast<std::size_t>(q)];
          if (s.value) return DimExpr(*s.value);
          if (s.bound >= 0) return bound_[static_cast<std::size_t>(s.bound)];
          return DimExpr::symbol(q);
        });
      }
    } catch (const Error&) {
      // Too large or out of int64 once substituted: the binding is dropped (an equality left
      // unused claims nothing) and the symbol names the size again, so no later resolve
      // repeats the failing work.
      syms_[static_cast<std::size_t>(r)].bound = -1;
      ++version_;
      return DimExpr::symbol(r);
    }
    bound_[slot] = e;
    return e;
  }

  /// d == 0, with d the difference of two resolved sizes: when d is k*X + rest for a fresh
  /// symbol X that rest does not mention, X is -rest/k in every run (k*X is -rest exactly, so
  /// the floor of the quotient is exact: 2*X == H gives X = floor(H/2)), and X's class is bound
  /// to that expression. Coefficients ±1 are preferred (no division), then the newest symbol.
  /// Named sizes are never rewritten: they are the model's own names.
  bool bind_fresh(const DimExpr& d) {
    std::int64_t x = -1, coeff = 0;
    for (const auto& t : d.terms()) {
      if (t.factors.size() != 1 || t.factors[0].op != Atom::Op::Symbol ||
          t.coeff == std::numeric_limits<std::int64_t>::min())
        continue;
      const auto id = t.factors[0].id;
      const bool unit = t.coeff == 1 || t.coeff == -1, best_unit = coeff == 1 || coeff == -1;
      if (x >= 0 && ((best_unit && !unit) || (best_unit == unit && id < x))) continue;
      if (syms_[static_cast<std::size_t>(id)].origin != SymbolOrigin::Fresh) continue;
      bool elsewhere = false;  // in another term (X*Y, floor(X/2), ...)
      for (const auto& u : d.terms())
        if (&u != &t) DimExpr::for_each_symbol_of(u, [&](std::int64_t s) { elsewhere = elsewhere || s == id; });
      if (!elsewhere) x = id, coeff = t.coeff;
    }
    if (x < 0) return false;
    const DimExpr rest = d - coeff * DimExpr::symbol(x);
    DimExpr e = coeff > 0 ? -rest : rest;  // k*X == -rest, i.e. |k|*X == e
    if (coeff != 1 && coeff != -1) e = floor_div(e, DimExpr(coeff > 0 ? coeff : -coeff));
    if (auto c = e.const_value()) return bind(x, *c);
    if (auto y = e.as_symbol()) return merge(x, *y);
    auto& s = syms_[static_cast<std::size_t>(x)];
    if (bound_.size() >= static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max())) return false;
    s.bound = static_cast<std::int32_t>(bound_.size());
    bound_.push_back(std::move(e));
    ++version_;
    return true;
  }
  struct KeyOf {
    const std::vector<Sym>* syms;
    std::string_view operator()(std::size_t i) const { return (*syms)[i].name; }
  };
  [[nodiscard]] KeyOf key_of() const { return KeyOf{&syms_}; }
  [[nodiscard]] std::size_t find_name(std::string_view name) const { return by_name_.find(name, syms_.size(), key_of()); }

  std::vector<Sym> syms_;
  std::vector<DimExpr> bound_;  ///< expressions fresh classes stand for (Sym::bound)
  detail::NameIndex by_name_;  ///< names of syms_ (each symbol has its own name)
  /// Appends a symbol whose name is known to be new.
  std::int64_t add(std::string_view name, SymbolOrigin origin) {
    const auto id = static_cast<std::int64_t>(syms_.size());
    syms_.push_back(Sym{std::string(name), id, std::nullopt, origin});
    by_name_.added(syms_.back().name, syms_.size(), key_of());
    return id;
  }
  struct ReservedKeyOf {
    const std::vector<std::string>* names;
    std::string_view operator()(std::size_t i) const { return (*names)[i]; }
  };
  [[nodiscard]] ReservedKeyOf reserved_key_of() const { return ReservedKeyOf{&reserved_}; }

  std::vector<std::string> reserved_;  ///< names fresh() never produces (the model's dim_params)
  std::vector<bool> reserved_whole_;   ///< reserved_[i] is a whole dim_param, not only a name inside one
  detail::NameIndex reserved_index_;
  std::uint64_t next_fresh_ = 0;
  std::function<void()> before_first_fresh_;
  std::uint64_t version_ = 0;
};

}  // namespace oxir::infer
