#pragma once
// The inference engine: walks graphs in dependency order, calls operators' rules, infers
// subgraphs and model-local functions per call site, keeps one symbol table for the whole model
// and writes the resolved types back into value_info and graph outputs at the end.

#include <algorithm>
#include <cstdint>
#include <limits>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "../analysis/topo.hpp"
#include "../core/element_types.hpp"
#include "../core/error.hpp"
#include "../ir/model.hpp"
#include "context.hpp"
#include "facts.hpp"
#include "ops/common.hpp"
#include "registry.hpp"
#include "report.hpp"
#include "type_constraints.hpp"

namespace oxir::infer {

/// Largest integer tensor whose elements are tracked symbolically.
inline constexpr std::size_t kMaxSymbolicElements = 1024;
/// Largest float constant whose (integral) elements are tracked as contents.
inline constexpr std::size_t kMaxFloatContents = 64;
/// Deepest nesting of function calls followed (recursion guard).
inline constexpr int kMaxCallDepth = 64;
/// Deepest nesting of subgraphs inferred (stack guard; files the decoder accepts stay far below).
inline constexpr int kMaxSubgraphDepth = 200;
/// Broadcast results kept for settling once the model is inferred (Engine::settle_broadcasts),
/// and the passes over them (a settled result may settle another).
inline constexpr std::size_t kMaxPendingBroadcasts = 4096;
inline constexpr int kSettlePasses = 8;
/// Function-body nodes inferred over all call sites: this many, plus 64 per node of the model
/// (main graph and function bodies).
inline constexpr std::size_t kFunctionBudgetBase = 50'000;
/// What a function-body node that inference rejects costs from that budget beyond the node
/// itself: a rejection unwinds an exception and writes a diagnostic, about ten times the work of
/// inferring a node, so a model of functions calling functions whose bodies are all invalid nodes
/// takes no longer than one whose bodies are valid.
inline constexpr std::size_t kRejectedNodeCost = 9;
/// Elements of shape-tensor contents that the rules may record over the whole model: this many,
/// plus kValueElementsPerNode per node of the model (main graph and function bodies). Every value
/// keeps its own copy, so without a budget a chain of Identity nodes over one 1,024-element
/// constant would hold 32 KB per node of about 20 bytes in the file. Past it, values are
/// inferred without their contents (as if not shape tensors).
/// Real models stay far below: the most in the test corpora is 4,488 elements (torchvision's
/// Swin, 4,291 nodes), about one per node.
inline constexpr std::size_t kValueElementsBase = std::size_t{1} << 16;
inline constexpr std::size_t kValueElementsPerNode = 16;
/// Dims of the inferred shapes kept over the whole model: this many, plus kShapeDimsPerNode for
/// every node inferred (subgraph bodies and function calls included, each time they are
/// inferred). Every value has its own shape, so without a budget a 120 KB file (a rank-20,000
/// input and 2,000 Relu after it) needed 9 GB. Past it, outputs are kept with unknown rank.
/// Real models stay far below (a handful of dims per node).
inline constexpr std::size_t kShapeDimsBase = std::size_t{1} << 16;
inline constexpr std::size_t kShapeDimsPerNode = 32;
/// Fresh symbols the rules may create over the whole model (for sizes nothing determines): this
/// many, plus kFreshSymbolsPerNode for every node inferred. 5,000 Pads with unknown pads of one
/// rank-4,000 input (a 115 KB file) made 20 M symbols (2.4 GB, 11 s) before this budget.
inline constexpr std::size_t kFreshSymbolsBase = std::size_t{1} << 16;
inline constexpr std::size_t kFreshSymbolsPerNode = 32;

/// Thrown by InferContext::fresh once the model's budget of fresh symbols is spent: the node's
/// outputs not set yet stay unknown (as for any size expression too large to track).
class FreshSymbolsExhausted : public ExprTooLarge {
 public:
  FreshSymbolsExhausted()
      : ExprTooLarge("dimension expression", "more unknown sizes than inference tracks (" +
                                                 std::to_string(kFreshSymbolsBase) + " + " +
                                                 std::to_string(kFreshSymbolsPerNode) + " per node inferred)") {}
};

/// What one of the per-model bounds above still allows, and whether a diagnostic said it ran out.
struct Budget {
  std::size_t left = 0;
  bool exhausted = false;
  /// Takes n; false, taking nothing, when fewer are left.
  bool take(std::size_t n) noexcept {
    if (n > left) return false;
    left -= n;
    return true;
  }
};

namespace detail {
/// Dims in t's shapes (its own and its element types').
inline std::size_t shape_dims(const ValueType& t) {
  std::size_t n = 0;
  for (const ValueType* x = &t; x; x = x->inner.get()) n += x->shape ? x->shape->size() : 0;
  return n;
}
/// t with every shape (its own and its element types') of unknown rank.
inline ValueType without_shapes(const ValueType& t, int depth = 0) {
  if (depth > 64) return ValueType::unknown();  // deeper than any type a rule builds
  ValueType r = t;
  r.shape.reset();
  if (t.inner) r.inner = std::make_shared<const ValueType>(without_shapes(*t.inner, depth + 1));
  return r;
}
}  // namespace detail

/// A map from names (views of strings that outlive it) to V, in insertion order. Small maps (most
/// graphs have a handful of values) are a plain vector searched linearly; larger ones add an
/// open-addressing index. Inserting may move the values (like a vector): callers hold no
/// pointer into a map across an insertion into that same map.
template <class V>
class NameMap {
 public:
  using value_type = std::pair<std::string_view, V>;

  [[nodiscard]] V* find(std::string_view key) {
    const auto i = index_.find(key, entries_.size(), key_of());
    return i == detail::NameIndex::npos ? nullptr : &entries_[i].second;
  }
  [[nodiscard]] const V* find(std::string_view key) const {
    const auto i = index_.find(key, entries_.size(), key_of());
    return i == detail::NameIndex::npos ? nullptr : &entries_[i].second;
  }
  [[nodiscard]] bool contains(std::string_view key) const { return find(key) != nullptr; }
  /// The value of `key`, inserted (value-initialised) if absent.
  V& operator[](std::string_view key) {
    if (V* v = find(key)) return *v;
    return append(key);
  }
  /// Appends `key` (the caller knows it is absent).
  V& append(std::string_view key, V value = V{}) {
    entries_.emplace_back(key, std::move(value));
    index_.added(key, entries_.size(), key_of());
    return entries_.back().second;
  }
  /// Sets the value of `key` (inserting it if absent).
  void assign(std::string_view key, V&& value) {
    if (V* v = find(key))
      *v = std::move(value);
    else
      append(key, std::move(value));
  }
  void reserve(std::size_t n) {
    entries_.reserve(n);
    index_.reserve(n, entries_.size(), key_of());
  }
  [[nodiscard]] std::size_t size() const noexcept { return entries_.size(); }
  [[nodiscard]] bool empty() const noexcept { return entries_.empty(); }
  /// Removes every entry; the storage is kept.
  void clear() noexcept {
    entries_.clear();
    index_.clear();
  }
  [[nodiscard]] std::size_t storage_bytes() const noexcept {
    return entries_.capacity() * sizeof(value_type) + index_.storage_bytes();
  }
  auto begin() noexcept { return entries_.begin(); }
  auto end() noexcept { return entries_.end(); }
  auto begin() const noexcept { return entries_.begin(); }
  auto end() const noexcept { return entries_.end(); }

 private:
  struct KeyOf {
    const std::vector<value_type>* entries;
    std::string_view operator()(std::size_t i) const { return (*entries)[i].first; }
  };
  [[nodiscard]] KeyOf key_of() const { return KeyOf{&entries_}; }
  std::vector<value_type> entries_;
  detail::NameIndex index_;
};

struct Scope {
  Scope* parent = nullptr;
  Graph* graph = nullptr;  ///< the graph inferred here (a temporary for function bodies)
  std::string path;
  const OpsetTable* opsets = nullptr;  ///< the imports its nodes' operators are read in
  // Keys view names owned by the model (or a function body copy) being inferred: they stay put
  // until write_back, which runs after every scope is gone.
  NameMap<ValueInfoState> values;
  NameMap<const Tensor*> constants;
  NameMap<const Type*> declared;  ///< keep mode: existing annotations
  bool write_back = true;
  int call_depth = 0;
  int depth = 0;  ///< subgraph nesting level

  /// The state of `name` here or in an enclosing scope, or nullptr.
  ValueInfoState* lookup(std::string_view name) {
    for (Scope* s = this; s; s = s->parent)
      if (auto* v = s->values.find(name)) return v;
    return nullptr;
  }
  const Tensor* constant(std::string_view name) const {
    for (const Scope* s = this; s; s = s->parent) {
      if (auto* c = s->constants.find(name)) return *c;
      if (s->values.contains(name)) return nullptr;  // shadowed by a non-constant value
    }
    return nullptr;
  }
};

/// The field path of node `index` of the graph inferred in `sc`, e.g. "graph.node[3]".
inline std::string node_path(const Scope& sc, std::size_t index) {
  return place::node(sc.path, index);
}

/// The most precise type that holds for both `a` and `b` (the join): equal sizes stay, sizes that
/// may differ become new symbols, ranks that differ become an unknown rank.
inline ValueType join_types(SymbolTable& syms, const ValueType& a, const ValueType& b) {
  if (a.is_unknown() || b.is_unknown()) return ValueType{};
  if (a.kind != b.kind) return ValueType{};
  ValueType out = a;
  if (a.kind == ValueType::Kind::Tensor || a.kind == ValueType::Kind::SparseTensor) {
    if (a.elem != b.elem)
      out.elem = a.elem == DataType::UNDEFINED ? b.elem : (b.elem == DataType::UNDEFINED ? a.elem : DataType::UNDEFINED);
    if (!a.shape || !b.shape || a.shape->size() != b.shape->size()) {
      out.shape.reset();
    } else {
      for (std::size_t i = 0; i < a.shape->size(); ++i) {
        const DimExpr x = syms.resolve((*a.shape)[i]), y = syms.resolve((*b.shape)[i]);
        (*out.shape)[i] = x == y ? x : syms.fresh_expr();
      }
    }
  } else if (a.kind == ValueType::Kind::Sequence || a.kind == ValueType::Kind::Optional ||
             a.kind == ValueType::Kind::Map) {
    if (a.kind == ValueType::Kind::Map && a.elem != b.elem) return ValueType{};
    ValueType inner = join_types(syms, a.element(), b.element());
    out.inner = std::make_shared<const ValueType>(std::move(inner));
    // Either sequence's elements all have its sizes, so the joined sizes hold for every element.
    out.uniform = a.uniform && b.uniform;
  }
  return out;
}

class Engine {
  struct GraphResult {
    Graph* graph = nullptr;
    NameMap<ValueInfoState> values;  ///< the finished scope's states (node outputs among them)
    /// The subgraph's formal inputs/outputs as refined; the main graph's outputs are read from
    /// `values` instead (main_graph).
    std::vector<ValueInfoState> inputs, outputs;
    bool main_graph = false;
    std::string path;  ///< the graph's place in the model, as in Diagnostic::where
  };
  /// The containers of one run, kept by the thread from one run to the next: most models are
  /// inferred in well under a microsecond of work, and allocating and freeing these each time
  /// would cost as much. Only their storage is kept (never what a model put in them), and only
  /// while it is small.
  struct Workspace {
    SymbolTable syms;
    std::vector<GraphResult> results;
    // Cleared maps for scopes (values, constants, declared types).
    std::vector<NameMap<ValueInfoState>> spare_maps;
    std::vector<NameMap<const Tensor*>> spare_constants;
    std::vector<NameMap<const Type*>> spare_declared;
    // The engine's rarely used maps, kept here so that a run that does not use them does not
    // build and destroy them.
    std::unordered_map<const Function*, std::vector<std::pair<std::string, ValueInfoState>>> fn_results;
    std::unordered_map<const Graph*, std::size_t> result_index;
    std::unordered_map<const void*, std::size_t> printed_index;
    std::vector<std::optional<ValueInfoState>> spare_outputs;  ///< a free InferContext::outputs_ buffer

    static constexpr std::size_t kMaxKeptBytes = 256 * 1024;
    static constexpr std::size_t kMaxKeptMaps = 8;
    /// Clears everything; false if the storage is too large to be worth keeping.
    bool reset() {
      syms.clear();
      std::size_t bytes = syms.storage_bytes();
      for (auto& r : results) {
        r.values.clear();
        if (spare_maps.size() < kMaxKeptMaps && r.values.storage_bytes()) spare_maps.push_back(std::move(r.values));
      }
      results.clear();
      for (const auto& m : spare_maps) bytes += m.storage_bytes();
      for (const auto& m : spare_constants) bytes += m.storage_bytes();
      for (const auto& m : spare_declared) bytes += m.storage_bytes();
      if (!fn_results.empty()) fn_results.clear();
      if (!result_index.empty()) result_index.clear();
      if (!printed_index.empty()) printed_index.clear();
      bytes += (result_index.bucket_count() + printed_index.bucket_count() + fn_results.bucket_count()) * sizeof(void*);
      spare_outputs.clear();
      bytes += results.capacity() * sizeof(GraphResult) + spare_outputs.capacity() * sizeof(spare_outputs[0]);
      return bytes <= kMaxKeptBytes;
    }
  };
  /// The calling thread's cached workspace (empty while an engine of this thread holds it, so
  /// an engine created during another engine's run gets a workspace of its own).
  static std::unique_ptr<Workspace>& cached_workspace() noexcept {
    static thread_local std::unique_ptr<Workspace> cached;
    return cached;
  }
  static std::unique_ptr<Workspace> take_workspace() {
    auto& c = cached_workspace();
    return c ? std::move(c) : std::make_unique<Workspace>();
  }
  std::unique_ptr<Workspace> ws_;

 public:
  Engine(Model& m, const InferOptions& o, const OpRegistry& r)
      : ws_(take_workspace()), syms(ws_->syms), model_(m), opts_(o), reg_(r) {}
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;
  ~Engine() {
    try {
      if (ws_->reset() && !cached_workspace()) cached_workspace() = std::move(ws_);
    } catch (...) {  // reset only moves and clears; nothing here is expected to throw
    }
  }

  InferReport run();

  SymbolTable& syms;
  InferReport report;

  // ---- used by InferContext ----
  /// Records a diagnostic; false when the same one (kind, place, message) was recorded before: a
  /// loop body is inferred once per iteration until its carried values settle, and says the same
  /// thing each time. Error conflicts are counted here (once).
  bool diagnose(Severity sev, DiagnosticKind kind, const std::string& where, const Node* n, std::string message);
  /// A broadcast whose result is the fresh symbol `result` (operands not known equal yet).
  void note_broadcast(std::int64_t result, std::vector<DimExpr> operands) {
    if (pending_broadcasts_.size() < kMaxPendingBroadcasts) pending_broadcasts_.push_back({result, std::move(operands)});
  }
  std::vector<ValueInfoState> infer_subgraph(InferContext& ctx, std::string_view attr,
                                             std::vector<ValueInfoState> inputs, bool runs_with_node,
                                             bool recorded = true);
  /// Records a == b (InferContext::unify, declared types): merges symbol classes, except inside
  /// a subgraph that may not run whenever its node runs (an If branch the condition does not
  /// pick, a loop body that may run zero times). There the equality holds only in the runs that
  /// execute it, so it is checked for a provable conflict but reaches no size outside.
  Unify unify_sizes(const DimExpr& a, const DimExpr& b) {
    return conditional_ > 0 ? syms.compare(a, b) : syms.unify(a, b);
  }
  /// Inference is inside a subgraph that may not run whenever its node runs.
  [[nodiscard]] bool in_conditional() const noexcept { return conditional_ > 0; }
  [[nodiscard]] const InferOptions& options() const noexcept { return opts_; }
  /// Takes n elements of shape-tensor contents from the model's budget (kValueElementsBase);
  /// false, taking nothing, once it cannot.
  bool charge_value_elements(std::size_t n) noexcept { return value_elements_.take(n); }
  /// A fresh symbol for a rule, from the model's budget (kFreshSymbolsBase); throws
  /// FreshSymbolsExhausted once it is spent.
  DimExpr budgeted_fresh() {
    if (!fresh_symbols_.take(1)) throw FreshSymbolsExhausted();
    return syms.fresh_expr();
  }
  /// e >= 0 through an unconditional fact lhs <= rhs (guard 1), with gap g = rhs - lhs >= 0:
  /// e - g >= 0 (e is at least a size), or, sizes being integers, 2e - g + 1 >= 0 (then
  /// e >= (g-1)/2 > -1): the fact 2a-3 >= 0 gives a-1 >= 0. Charged to facts_work_.
  bool nonneg_by_facts(const DimExpr& e);
  /// rhs - lhs of every unconditional fact, resolved as the symbols stand now (kept with the
  /// resolved facts, see refresh_resolved_facts).
  const std::vector<DimExpr>& current_fact_gaps() {
    refresh_resolved_facts();
    return fact_gaps_;
  }

  /// Converts a declared Type; unknown dims become fresh symbols (or `unnamed_prefix` + index).
  ValueType from_type(const Type& t, const std::string& unnamed_prefix = {}) {
    return convert_type(t, unnamed_prefix.empty() ? nullptr : &unnamed_prefix, "");
  }
  /// Converts back with resolved sizes.
  Type to_type(const ValueType& v);
  /// Symbolic contents of a constant tensor (integer or bool, rank <= 1, small; or float with
  /// integral elements, at most kMaxFloatContents), if any.
  static std::optional<Dims> tensor_sym_value(const Tensor& t);
  /// Element k of a floating-point tensor (float, double, float16, bfloat16) as a double; nullopt
  /// for other element types. Throws Error where Tensor::element does (a short payload).
  static std::optional<double> float_element(const Tensor& t, std::size_t k);

 private:
  void infer_graph(Scope& sc, Graph& g);
  /// Diagnoses the outputs of `g` that nothing defines (after inferring it in `sc`).
  void check_outputs_defined(Scope& sc, const Graph& g);
  void infer_node(Scope& sc, Node& n, std::size_t index);
  void refuse_negative_sizes(const InferContext& ctx);
  void infer_call(InferContext& ctx, Scope& sc, const Function& fn, const Node& call);
  /// Checks the node's input and output types against its operator's type constraints at
  /// `opset` (type_constraints.hpp); each violation is an error diagnostic.
  /// `rule_failed`: the rule rejected the node; only its inputs are checked.
  void check_types(const InferContext& ctx, const Node& n, std::int64_t opset,
                   const std::vector<detail::TypeSignature>* types, bool rule_failed = false);
  /// Where a refinement happens, as a field path built only when a diagnostic needs it.
  struct Where {
    const std::string* base;  ///< scope path
    std::ptrdiff_t node;      ///< node index, or -1 for the graph's own inputs/outputs
    const char* field;        ///< "output" or "input"
    std::size_t index;
    [[nodiscard]] std::string str() const {
      std::string s = node >= 0 ? place::node(*base, static_cast<std::size_t>(node)) : *base;
      return s + "." + field + "[" + std::to_string(index) + "]";
    }
  };
  /// Refines `st` (inferred) in place with a declared type.
  void refine(ValueInfoState& st, const Type& declared, const Where& where, const Node* n);
  /// from_type; unnamed dims of tensors become symbols named *prefix + suffix + index when
  /// `prefix` is given (the name is built only for such dims).
  ValueType convert_type(const Type& t, const std::string* prefix, std::string_view suffix);
  /// A dim_param as a size: a plain name is its symbol; a dim_param written as an expression of
  /// sizes the model names ("past_sequence_length + 1", "floor((H+1)/2)", "s0*2", as this
  /// engine and other tools write them) is that expression; anything else is a symbol too.
  DimExpr param_dim(const std::string& p) {
    if (!plain_name(p))
      if (auto e = parsed_param(p)) return *e;
    return DimExpr::symbol(syms.named(p));
  }
  /// The names an expression may use: the main graph's input dims (their dim_params and the
  /// "<input>_dim<i>" names), the names the model uses as whole dim_params elsewhere, and names
  /// of the form unk__<digits> that this engine and onnx give unknown sizes ("unk__2+3" as
  /// oxir wrote it beside "unk__2", or where unk__2 only ever occurs inside expressions).
  std::optional<DimExpr> parsed_param(std::string_view p) {
    // A first name that resolves to nothing fails the parse before anything else is asked:
    // refused here, without the exception that ends the parse (exporters write many dim_params
    // such as "Squeeze/Squeeze_output_0_dim_2").
    if (const auto first = first_size_name(p); first && !input_size_symbol(*first) && !nameable_size(*first))
      return std::nullopt;
    return parse_dim_expr(p, [&](std::string_view name) -> std::optional<std::int64_t> {
      if (auto id = input_size_symbol(name)) return id;
      if (nameable_size(name)) return syms.named(name);
      return std::nullopt;
    });
  }
  /// The symbol of a main-graph input dim named `name`, if there is one.
  [[nodiscard]] std::optional<std::int64_t> input_size_symbol(std::string_view name) const {
    if (auto id = syms.lookup(name)) {
      const auto o = syms.own_origin(*id);
      if (o == SymbolOrigin::GraphInput || o == SymbolOrigin::InputUnnamed) return id;
    }
    return std::nullopt;
  }
  /// Whether an expression may name `name` otherwise: a fresh-style name or one the model uses
  /// as a whole dim_param.
  bool nameable_size(std::string_view name) { return SymbolTable::fresh_style(name) || syms.is_model_name(name); }
  /// Sizes resolved to numbers, dim_params, or printed expressions.
  void shape_into(std::optional<Shape>& out, const std::optional<Dims>& d);
  /// Sets out.value to v converted back (out's other fields are left as they are).
  void type_into(Type& out, const ValueType& v);
  void reserve_names(const Graph& g);
  /// Upper bound of the values a graph defines (inputs, initializers, node outputs).
  static std::size_t value_count(const Graph& g) {
    std::size_t n = g.inputs.size() + g.initializers.size() + g.sparse_initializers.size();
    for (const auto& node : g.nodes) n += node.outputs.size();
    return n;
  }
  bool subgraph_inputs_known(Scope& sc, const Node& n);
  /// Fills report.constant_values (before write_back, which marks the states it has written).
  void collect_constant_values();
  void write_back();
  void fill_missing(Type& declared, const ValueType& inferred);
  /// Writes t into an existing annotation: replaced in overwrite mode, else only its unknown parts.
  void annotate(ValueInfo& vi, const ValueType& t);
  /// Adds or updates `list` entries for (name, state) pairs, skipping names `skip` accepts.
  template <class Values, class Skip>
  void write_value_info(std::vector<ValueInfo>& list, const Values& values, Skip&& skip);

  /// Text bytes of the diagnostics kept in `report` (InferOptions::max_diagnostic_bytes).
  std::size_t diagnostic_bytes_ = 0;
  std::unordered_set<std::size_t> diagnostics_seen_;  ///< hashes of the diagnostics kept (see diagnose)
  Model& model_;
  InferOptions opts_;
  const OpRegistry& reg_;
  /// A cleared map (with storage from an earlier scope, if any).
  template <class V>
  static NameMap<V> take_map(std::vector<NameMap<V>>& spare) {
    if (spare.empty()) return {};
    NameMap<V> m = std::move(spare.back());
    spare.pop_back();
    return m;
  }
  /// Hands a finished map back for reuse.
  template <class V>
  static void give_map(std::vector<NameMap<V>>& spare, NameMap<V>&& m) {
    if (spare.size() >= Workspace::kMaxKeptMaps || !m.storage_bytes()) return;
    m.clear();
    spare.push_back(std::move(m));
  }
  /// Lends a new scope the workspace's spare maps, and takes back (when the scope ends, normally
  /// or by an exception) those not moved into a result.
  class ScopeMaps {
   public:
    ScopeMaps(Engine& e, Scope& sc) : ws_(*e.ws_), sc_(sc) {
      sc.values = take_map(ws_.spare_maps);
      sc.constants = take_map(ws_.spare_constants);
      sc.declared = take_map(ws_.spare_declared);
    }
    ScopeMaps(const ScopeMaps&) = delete;
    ScopeMaps& operator=(const ScopeMaps&) = delete;
    ~ScopeMaps() {
      try {
        give_map(ws_.spare_maps, std::move(sc_.values));
        give_map(ws_.spare_constants, std::move(sc_.constants));
        give_map(ws_.spare_declared, std::move(sc_.declared));
      } catch (...) {  // out of memory for the spare list: the storage is simply freed
      }
    }

   private:
    Workspace& ws_;
    Scope& sc_;
  };
  /// The result slot of g (created on first use; a graph inferred again replaces its result).
  GraphResult& result_for(Graph& g);
  GraphResult& record(Graph& g, Scope& sc);
  std::vector<GraphResult>& results_ = ws_->results;
  // annotate_functions: per function, its body's node outputs joined over all call sites.
  std::unordered_map<const Function*, std::vector<std::pair<std::string, ValueInfoState>>>& fn_results_ =
      ws_->fn_results;
  std::unordered_map<const Graph*, std::size_t>& result_index_ = ws_->result_index;  ///< only past kLinear results
  std::vector<std::optional<ValueInfoState>>& spare_outputs_ = ws_->spare_outputs;
  /// Function-body nodes that may still be inferred (set by run()).
  std::size_t function_budget_ = 0;
  OpsetTable main_opsets_;  ///< the model's imports
  FunctionTable functions_;  ///< the model's functions
  std::unordered_map<const Function*, OpsetTable> function_opsets_;  ///< a function body's own imports
  /// A node of a function body was rejected: kRejectedNodeCost more of the function budget.
  void charge_rejection(const Scope& sc) noexcept {
    if (sc.call_depth > 0) function_budget_ -= std::min(function_budget_, kRejectedNodeCost);
  }
  /// Shape-tensor content elements that may still be recorded (set by run(); kValueElementsBase).
  Budget value_elements_;
  /// Shape dims that inferred outputs may still keep (kShapeDimsBase; grows with each node).
  Budget shape_dims_;
  /// Fresh symbols rules may still create (kFreshSymbolsBase; grows with each node).
  Budget fresh_symbols_;
  /// Facts the main graph implies (facts.hpp: its Gathers' index bounds, its sizes >= 0), and for
  /// main-graph integer tensors made from a Range: a size that their largest element reaches
  /// whenever they have elements.
  std::vector<SizeFact> facts_;
  std::unordered_map<std::string_view, DimExpr> max_at_least_;
  std::int64_t facts_work_ = kMaxFactWork;  ///< what applying facts may still cost
  /// Broadcast results that got a fresh symbol because their operands' sizes (other than 1) were
  /// not known equal then; settled once the whole model is inferred (settle_broadcasts).
  struct PendingBroadcast {
    std::int64_t result;            ///< the fresh symbol
    std::vector<DimExpr> operands;  ///< the sizes broadcast together
  };
  std::vector<PendingBroadcast> pending_broadcasts_;
  void settle_broadcasts();
  /// How many subgraphs being inferred (nested) may not run when their node runs (unify_sizes).
  int conditional_ = 0;
  void collect_size_facts(InferContext& ctx, const Node& n, bool default_domain);
  /// Size facts (facts.hpp) after a node's rule, behind cheap tests: most nodes of most models
  /// have nothing to do here (kept out of line, off infer_node's path).
  [[gnu::noinline]] void size_facts_after(InferContext& ctx, const Node& n, bool default_domain, bool main_graph) {
    if (main_graph && (!max_at_least_.empty() || may_yield_fact(n.op_type))) collect_size_facts(ctx, n, default_domain);
    if (!facts_.empty()) apply_size_facts(ctx);
    if (main_graph && may_be_negative_size(ctx)) record_sizes(ctx);
  }
  static bool may_yield_fact(std::string_view op) noexcept {
    return op == "Range" || op == "NonZero" || op == "Gather" || op == "GatherElements";
  }
  /// Whether an output has a compound size (record_sizes looks further).
  static bool may_be_negative_size(const InferContext& ctx) noexcept {
    for (const auto& out : ctx.outputs_)
      if (out && out->type.shape)
        for (const auto& d : *out->type.shape)
          if (!d.is_const() && !d.as_symbol()) return true;
    return false;
  }
  void apply_size_facts(InferContext& ctx);
  /// Adds the facts `d >= 0` for the main-graph output sizes d that nonneg() cannot prove (a
  /// convolution's floor(S/5)-1): every tensor has sizes >= 0 in every execution that succeeds.
  void record_sizes(InferContext& ctx);
  std::size_t size_facts_ = 0;  ///< how many of facts_ record_sizes added
  /// r (resolved) rewritten with facts_ resolved as they stand now. The same size comes back
  /// again and again (values along a chain of layers share one expression; the write-back meets
  /// each of them once more), so each one is rewritten once until a fact is added or a class
  /// merged or bound. The memo keeps its key expressions alive, as printed_ does.
  DimExpr resolved_facts_applied(const DimExpr& r) {
    const void* key = r.shared_terms();
    const std::size_t count = facts_.size();
    const std::uint64_t version = syms.version();
    FactsApplied* slot = nullptr;
    if (key) {
      if (auto it = facts_applied_index_.find(key); it != facts_applied_index_.end()) {
        slot = &facts_applied_[it->second];
        if (slot->facts == count && slot->version == version) return slot->out;
      }
    }
    facts_work_ -= static_cast<std::int64_t>(count);
    if (facts_work_ <= 0) return r;
    DimExpr out = infer::apply_size_facts(r, current_resolved_facts(), facts_work_);
    if (facts_work_ > 0 && key) {  // an answer cut short by the budget is not kept
      if (slot) {
        slot->out = out, slot->facts = count, slot->version = version;
      } else if (facts_applied_.size() < kMaxFactsApplied) {
        facts_applied_.push_back(FactsApplied{r, out, count, version});
        facts_applied_index_.emplace(key, facts_applied_.size() - 1);
      }
    }
    return out;
  }
  /// facts_ resolved as the symbols stand now.
  const std::vector<SizeFact>& current_resolved_facts() {
    refresh_resolved_facts();
    return resolved_facts_;
  }
  /// Rebuilds resolved_facts_ and fact_gaps_ only after a merge or binding (the table's version)
  /// or a new fact (facts_ only grows), not for every size they are applied to.
  void refresh_resolved_facts() {
    if (resolved_facts_count_ == facts_.size() && resolved_facts_version_ == syms.version()) return;
    resolved_facts_.clear();
    resolved_facts_.reserve(facts_.size());
    fact_gaps_.clear();
    for (const auto& f : facts_) {
      const SizeFact& r = resolved_facts_.emplace_back(SizeFact{syms.resolve(f.guard), syms.resolve(f.lhs), syms.resolve(f.rhs)});
      if (!f.guard.is(1)) continue;
      try {
        fact_gaps_.push_back(r.rhs - r.lhs);
      } catch (const Error&) {  // overflow or too large: this fact proves nothing
      }
    }
    resolved_facts_count_ = facts_.size();
    resolved_facts_version_ = syms.version();
  }
  std::vector<SizeFact> resolved_facts_;
  std::vector<DimExpr> fact_gaps_;
  std::size_t resolved_facts_count_ = static_cast<std::size_t>(-1);
  std::uint64_t resolved_facts_version_ = 0;
  struct FactsApplied {
    DimExpr in;   ///< keeps the key (its shared terms) alive
    DimExpr out;  ///< in rewritten with the facts as they stood
    std::size_t facts = 0;
    std::uint64_t version = 0;
  };
  static constexpr std::size_t kMaxFactsApplied = std::size_t{1} << 16;
  std::vector<FactsApplied> facts_applied_;
  std::unordered_map<const void*, std::size_t> facts_applied_index_;
  /// The printed form of a resolved compound size (write-back only: the symbols no longer
  /// change). Values along a chain of layers share one expression, printed once; the memo keeps
  /// each key expression alive, so its address cannot be reused by another one.
  const std::string& printed(const DimExpr& resolved);
  std::vector<std::pair<DimExpr, std::string>> printed_;
  std::unordered_map<const void*, std::size_t>& printed_index_ = ws_->printed_index;
};

// ============================================================================================

inline bool Engine::diagnose(Severity sev, DiagnosticKind kind, const std::string& where, const Node* n,
                             std::string message) {
  const bool throws = opts_.strict && sev == Severity::Error;
  const std::size_t bytes = where.size() + message.size() + (n ? n->name.size() + n->domain.size() + n->op_type.size() : 0);
  const bool full = report.diagnostics.size() >= opts_.max_diagnostics || diagnostic_bytes_ + bytes > opts_.max_diagnostic_bytes;
  if (!throws && !full) {
    // Among the diagnostics kept (the set stays as small as they are): the same one again is
    // not repeated, nor counted.
    const std::hash<std::string_view> h;
    const std::size_t key = h(where) ^ (h(message) * 0x9e3779b97f4a7c15ull) ^ (static_cast<std::size_t>(kind) << 3) ^
                            static_cast<std::size_t>(sev);
    if (!diagnostics_seen_.insert(key).second) return false;
  }
  if (kind == DiagnosticKind::Conflict && sev == Severity::Error) ++report.conflicts;
  if (!throws && full) {
    ++report.diagnostics_dropped;
    return true;
  }
  Diagnostic d;
  d.severity = sev;
  d.kind = kind;
  d.where = where;
  if (n) {
    d.node = n->name;
    d.op_type = n->domain.empty() ? n->op_type : n->domain + "::" + n->op_type;
  }
  d.message = std::move(message);
  if (throws) {
    std::string msg = d.message;
    if (n) msg = (d.node.empty() ? "" : "node '" + d.node + "' ") + "(" + d.op_type + "): " + msg;
    throw Error(where, msg);
  }
  diagnostic_bytes_ += bytes;
  report.diagnostics.push_back(std::move(d));
  return true;
}

inline ValueType Engine::convert_type(const Type& t, const std::string* prefix, std::string_view suffix) {
  auto dims_into = [&](const std::optional<Shape>& s, std::optional<Dims>& out) {
    if (!s) return;
    Dims& d = out.emplace();
    d.reserve(s->dims.size());
    for (std::size_t i = 0; i < s->dims.size(); ++i) {
      const auto& x = s->dims[i];
      if (x.is_value()) {
        d.emplace_back(x.dim_value());
      } else if (x.is_param() && !x.dim_param().empty()) {
        d.push_back(param_dim(x.dim_param()));
      } else if (prefix) {
        std::string name = *prefix;
        name += suffix;
        name += std::to_string(i);
        d.push_back(DimExpr::symbol(syms.unnamed(std::move(name))));
      } else {
        d.push_back(syms.fresh_expr());
      }
    }
  };
  if (const auto* x = std::get_if<TensorType>(&t.value)) {  // nearly every value: no visit
    ValueType v = ValueType::tensor(x->elem_type);
    dims_into(x->shape, v.shape);
    return v;
  }
  if (const auto* x = std::get_if<SparseTensorType>(&t.value)) {
    ValueType v = ValueType::sparse_tensor(x->elem_type);
    dims_into(x->shape, v.shape);
    return v;
  }
  if (const auto* x = std::get_if<SequenceType>(&t.value))
    return ValueType::sequence(x->elem_type.has_value() ? from_type(*x->elem_type) : ValueType{});
  if (const auto* x = std::get_if<OptionalType>(&t.value))
    return ValueType::optional(x->elem_type.has_value() ? from_type(*x->elem_type) : ValueType{});
  if (const auto* x = std::get_if<MapType>(&t.value))
    return ValueType::map(x->key_type, x->value_type.has_value() ? from_type(*x->value_type) : ValueType{});
  if (const auto* x = std::get_if<OpaqueType>(&t.value)) {
    ValueType v;
    v.kind = ValueType::Kind::Opaque;
    v.opaque = std::make_shared<const std::pair<std::string, std::string>>(x->domain, x->name);
    return v;
  }
  return ValueType{};
}

inline const std::string& Engine::printed(const DimExpr& resolved) {
  const void* key = resolved.shared_terms();
  if (key)
    if (auto it = printed_index_.find(key); it != printed_index_.end()) return printed_[it->second].second;
  std::string s;
  resolved.print(s, [&](std::int64_t id) -> const std::string& { return syms.name(id); });
  printed_.emplace_back(resolved, std::move(s));
  if (key) printed_index_.emplace(key, printed_.size() - 1);
  return printed_.back().second;
}

inline void Engine::shape_into(std::optional<Shape>& out, const std::optional<Dims>& d) {
  if (!d) {
    out.reset();
    return;
  }
  auto& dims = out.emplace().dims;
  dims.reserve(d->size());
  for (const DimExpr& e : *d) {
    if (auto c = e.const_value()) {
      dims.emplace_back(*c);
      continue;
    }
    DimExpr r = syms.resolve(e);
    // Facts found after this size was computed (a Gather that bounds an earlier slice) hold for
    // the whole model, so they apply here too.
    if (!facts_.empty() && facts_detail::has_minmax(r)) r = resolved_facts_applied(r);
    if (auto c = r.const_value())
      dims.emplace_back(*c);
    else if (auto id = r.as_symbol())
      dims.emplace_back(syms.name(*id));
    else
      dims.emplace_back(printed(r));
  }
}

inline void Engine::type_into(Type& out, const ValueType& v) {
  // Built in place: types are written for every value, and a Type is costly to move.
  switch (v.kind) {
    case ValueType::Kind::Tensor: {
      auto& t = out.value.emplace<TensorType>();
      t.elem_type = v.elem;
      shape_into(t.shape, v.shape);
      return;
    }
    case ValueType::Kind::SparseTensor: {
      auto& t = out.value.emplace<SparseTensorType>();
      t.elem_type = v.elem;
      shape_into(t.shape, v.shape);
      return;
    }
    case ValueType::Kind::Sequence: {
      auto& t = out.value.emplace<SequenceType>();
      if (v.inner && !v.inner->is_unknown()) t.elem_type = Box<Type>(to_type(*v.inner));
      return;
    }
    case ValueType::Kind::Optional: {
      auto& t = out.value.emplace<OptionalType>();
      if (v.inner && !v.inner->is_unknown()) t.elem_type = Box<Type>(to_type(*v.inner));
      return;
    }
    case ValueType::Kind::Map: {
      auto& t = out.value.emplace<MapType>();
      t.key_type = v.elem;
      if (v.inner && !v.inner->is_unknown()) t.value_type = Box<Type>(to_type(*v.inner));
      return;
    }
    case ValueType::Kind::Opaque: {
      auto& t = out.value.emplace<OpaqueType>();
      if (v.opaque) {
        t.domain = v.opaque->first;
        t.name = v.opaque->second;
      }
      return;
    }
    case ValueType::Kind::Unknown: break;
  }
  out.value.emplace<std::monostate>();
}

inline Type Engine::to_type(const ValueType& v) {
  Type t;
  type_into(t, v);
  return t;
}

inline std::optional<double> Engine::float_element(const Tensor& t, std::size_t k) {
  switch (t.data_type) {
    case DataType::FLOAT: return t.element<float>(k);
    case DataType::DOUBLE: return t.element<double>(k);
    case DataType::FLOAT16: return static_cast<double>(static_cast<float>(t.element<float16>(k)));
    case DataType::BFLOAT16: return static_cast<double>(static_cast<float>(t.element<bfloat16>(k)));
    default: return std::nullopt;
  }
}

inline std::optional<Dims> Engine::tensor_sym_value(const Tensor& t) {
  if (t.dims.size() > 1) return std::nullopt;
  const auto count = t.element_count();
  if (!count || *count > kMaxSymbolicElements) return std::nullopt;
  if (t.is_external() && !t.data.is_loaded()) return std::nullopt;
  Dims out;
  out.reserve(static_cast<std::size_t>(*count));
  try {
    switch (t.data_type) {
      case DataType::INT64:
        for (std::size_t i = 0; i < *count; ++i) out.emplace_back(t.element<std::int64_t>(i));
        break;
      case DataType::INT32:
        for (std::size_t i = 0; i < *count; ++i) out.emplace_back(std::int64_t{t.element<std::int32_t>(i)});
        break;
      case DataType::INT16:
        for (std::size_t i = 0; i < *count; ++i) out.emplace_back(std::int64_t{t.element<std::int16_t>(i)});
        break;
      case DataType::INT8:
        for (std::size_t i = 0; i < *count; ++i) out.emplace_back(std::int64_t{t.element<std::int8_t>(i)});
        break;
      case DataType::UINT8:
        for (std::size_t i = 0; i < *count; ++i) out.emplace_back(std::int64_t{t.element<std::uint8_t>(i)});
        break;
      case DataType::UINT16:
        for (std::size_t i = 0; i < *count; ++i) out.emplace_back(std::int64_t{t.element<std::uint16_t>(i)});
        break;
      case DataType::UINT32:
        for (std::size_t i = 0; i < *count; ++i) out.emplace_back(std::int64_t{t.element<std::uint32_t>(i)});
        break;
      case DataType::BOOL:
        for (std::size_t i = 0; i < *count; ++i) out.emplace_back(std::int64_t{t.element<bool>(i) ? 1 : 0});
        break;
      case DataType::FLOAT:
      case DataType::DOUBLE:
      case DataType::FLOAT16:
      case DataType::BFLOAT16:
        // Floats that shape arithmetic uses (Cast(Shape) * 2.0, Range over float bounds): tracked
        // when every element is an integer, as contents are exact integers. The rules keep float
        // semantics (Div only where it divides exactly; results a float cannot hold are not
        // claimed). Larger float tensors are weights, not sizes.
        if (*count > kMaxFloatContents) return std::nullopt;
        for (std::size_t i = 0; i < *count; ++i) {
          const auto x = float_element(t, i);
          if (!x || !std::isfinite(*x) || std::trunc(*x) != *x || std::fabs(*x) > 0x1p53) return std::nullopt;
          out.emplace_back(static_cast<std::int64_t>(*x));
        }
        break;
      default: return std::nullopt;
    }
  } catch (const Error&) {
    return std::nullopt;
  }
  return out;
}

inline void Engine::refine(ValueInfoState& st, const Type& declared, const Where& where, const Node* n) {
  auto& t = st.type;
  auto check_elem = [&](DataType declared_elem) {
    if (t.elem == DataType::UNDEFINED) {
      t.elem = declared_elem;
    } else if (declared_elem != DataType::UNDEFINED && declared_elem != t.elem) {
      diagnose(Severity::Error, DiagnosticKind::Conflict, where.str(), n,
               "element type inferred as " + std::string(data_type_name(t.elem)) + " but declared " +
                   std::string(data_type_name(declared_elem)));
    }
  };
  // A tensor declared without a shape (typical of graph outputs) adds only its element type.
  if (const auto* dt = std::get_if<TensorType>(&declared.value); dt && !dt->shape) {
    if (t.is_unknown()) {
      t = ValueType::tensor(dt->elem_type);
    } else if (t.kind != ValueType::Kind::Tensor) {
      diagnose(Severity::Error, DiagnosticKind::Conflict, where.str(), n, "inferred a different kind of type than declared");
    } else {
      check_elem(dt->elem_type);
    }
    return;
  }
  ValueType d = from_type(declared);
  if (t.is_unknown()) {
    t = std::move(d);
    return;
  }
  if (d.is_unknown()) return;
  if (t.kind != d.kind) {
    diagnose(Severity::Error, DiagnosticKind::Conflict, where.str(), n, "inferred a different kind of type than declared");
    return;
  }
  if (t.kind == ValueType::Kind::Tensor || t.kind == ValueType::Kind::SparseTensor) {
    check_elem(d.elem);
    if (!t.shape) {
      t.shape = std::move(d.shape);
    } else if (d.shape) {
      if (d.shape->size() != t.shape->size()) {
        diagnose(Severity::Error, DiagnosticKind::Conflict, where.str(), n,
                 "rank inferred as " + std::to_string(t.shape->size()) + " but declared " +
                     std::to_string(d.shape->size()));
      } else {
        for (std::size_t i = 0; i < d.shape->size(); ++i) {
          auto& a = (*t.shape)[i];
          const auto& b = (*d.shape)[i];
          if (unify_sizes(a, b) == Unify::Conflict)
            diagnose(Severity::Error, DiagnosticKind::Conflict, where.str(), n,
                     "dim " + std::to_string(i) + " inferred as " + syms.to_string(a) + " but declared " +
                         syms.to_string(b));
        }
      }
    }
  } else if (t.inner && d.inner && t.inner->is_unknown()) {
    t.inner = std::move(d.inner);
    t.uniform = false;  // the declared element type's unnamed sizes are fresh symbols
  }
}

// Whether every value the subgraphs of `n` use from outside themselves is known in `sc` (an
// iterative walk, bounded in depth, so that hostile nesting cannot exhaust the stack). A name is
// "from outside" if no graph of the subtree defines it (SSA names are unique in a model).
inline bool Engine::subgraph_inputs_known(Scope& sc, const Node& n) {
  std::vector<std::pair<const Graph*, int>> todo;
  for (const auto& sub : views::subgraphs(n)) todo.emplace_back(&sub, 1);
  // Name sets as NameMaps: most bodies are small, searched linearly without hashing.
  NameMap<char> defined, used;
  for (std::size_t k = 0; k < todo.size(); ++k) {
    const auto [g, depth] = todo[k];
    if (depth > kMaxSubgraphDepth) continue;
    for (const auto& v : g->inputs) (void)defined[v.name];
    for (const auto& t : g->initializers) (void)defined[t.name];
    for (const auto& sp : g->sparse_initializers) (void)defined[sp.values.name];
    for (const auto& m : g->nodes) {
      for (const auto& o : m.outputs) (void)defined[o];
      for (const auto& i : m.inputs)
        if (!i.empty()) (void)used[i];
      for (const auto& sub : views::subgraphs(m)) todo.emplace_back(&sub, depth + 1);
    }
    for (const auto& o : g->outputs) (void)used[o.name];
  }
  for (const auto& [name, unused] : used)
    if (!defined.contains(name) && !sc.lookup(name)) return false;
  return true;
}

inline void Engine::reserve_names(const Graph& g) {
  auto reserve_type = [&](const auto& self, const Type& t) -> void {
    std::visit(
        [&](const auto& x) {
          using T = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<T, TensorType> || std::is_same_v<T, SparseTensorType>) {
            if (x.shape)
              for (const auto& d : x.shape->dims)
                if (d.is_param()) syms.reserve(d.dim_param());
          } else if constexpr (std::is_same_v<T, SequenceType> || std::is_same_v<T, OptionalType>) {
            if (x.elem_type.has_value()) self(self, *x.elem_type);
          } else if constexpr (std::is_same_v<T, MapType>) {
            if (x.value_type.has_value()) self(self, *x.value_type);
          }
        },
        t.value);
  };
  // Iterative over subgraphs: nesting depth must not turn into stack depth.
  std::vector<const Graph*> todo{&g};
  while (!todo.empty()) {
    const Graph* cur = todo.back();
    todo.pop_back();
    for (const auto* list : {&cur->inputs, &cur->outputs, &cur->value_info})
      for (const auto& v : *list)
        if (v.type) reserve_type(reserve_type, *v.type);
    for (const auto& n : cur->nodes)
      for (const auto& sub : views::subgraphs(n)) todo.push_back(&sub);
  }
}

inline InferReport Engine::run() {
  struct Allowance {  // the proofs of this inference share kModelProofWork
    std::int64_t saved = detail::proof_allowance;
    Allowance() { detail::proof_allowance = ops::kModelProofWork; }
    ~Allowance() { detail::proof_allowance = saved; }
    Allowance(const Allowance&) = delete;
    Allowance& operator=(const Allowance&) = delete;
  } allowance;
  struct Memo {  // the sums of floors this inference merges (detail::FloorHalvesMemo)
    detail::FloorHalvesMemo own;
    detail::FloorHalvesMemo* saved = detail::floor_halves_memo;
    Memo() { detail::floor_halves_memo = &own; }
    ~Memo() { detail::floor_halves_memo = saved; }
    Memo(const Memo&) = delete;
    Memo& operator=(const Memo&) = delete;
  } memo;
  // Every dim_param of the model is reserved so that fresh names and the names of unnamed input
  // dims never collide with one (done when the first of those is needed; the model is not
  // modified before write_back).
  syms.before_first_fresh([this] {
    reserve_names(model_.graph);
    for (const auto& f : model_.functions)
      for (const auto& v : f.value_info)
        if (v.type)
          if (const auto* tt = std::get_if<TensorType>(&v.type->value); tt && tt->shape)
            for (const auto& d : tt->shape->dims)
              if (d.is_param()) syms.reserve(d.dim_param());
  });
  // Graph-input dim_params are the roots of all names: registered first, with top priority.
  Graph& g = model_.graph;
  std::size_t model_nodes = g.nodes.size();
  for (const auto& f : model_.functions) model_nodes += f.nodes.size();
  function_budget_ = kFunctionBudgetBase + 64 * model_nodes;
  value_elements_ = {kValueElementsBase + kValueElementsPerNode * model_nodes};
  shape_dims_ = {kShapeDimsBase};
  fresh_symbols_ = {kFreshSymbolsBase};
  // Names first; then dim_params written as expressions of them ("2*N"), or names too if they
  // are not such expressions.
  for (const bool plain : {true, false})
    for (const auto& v : g.inputs)
      if (v.type)
        if (const auto* tt = std::get_if<TensorType>(&v.type->value); tt && tt->shape)
          for (const auto& d : tt->shape->dims)
            if (d.is_param() && !d.dim_param().empty() && plain_name(d.dim_param()) == plain &&
                (plain || !parsed_param(d.dim_param())))
              syms.named(d.dim_param(), SymbolOrigin::GraphInput);

  results_.reserve(4);
  Scope sc;
  sc.graph = &g;
  sc.path = "graph";
  main_opsets_ = OpsetTable(model_.opset_imports);
  functions_ = FunctionTable(model_.functions);
  sc.opsets = &main_opsets_;
  ScopeMaps lease(*this, sc);
  sc.values.reserve(value_count(g));
  for (std::size_t i = 0; i < g.inputs.size(); ++i) {
    const auto& v = g.inputs[i];
    ValueInfoState& st = sc.values[v.name];
    if (v.type) st.type = convert_type(*v.type, &v.name, "_dim");
  }
  infer_graph(sc, g);
  check_outputs_defined(sc, g);
  record(g, sc);
  settle_broadcasts();
  if (opts_.report_constant_values) collect_constant_values();
  write_back();
  report.symbols = syms.size();
  return std::move(report);
}

inline void Engine::infer_graph(Scope& sc, Graph& g) {
  sc.values.reserve(sc.values.size() + value_count(g) - g.inputs.size());
  // Initializers (not overridable by a graph input of the same name: those are defaults only).
  auto is_input = [&](std::string_view name) {
    for (const auto& v : g.inputs)
      if (v.name == name) return true;
    return false;
  };
  std::unordered_set<std::string_view> input_names;
  const bool many_inputs = g.inputs.size() > 16 && !g.initializers.empty();
  if (many_inputs)
    for (const auto& v : g.inputs) input_names.insert(v.name);
  for (const auto& t : g.initializers) {
    const bool overridable = many_inputs ? input_names.contains(t.name) : is_input(t.name);
    if (overridable) {
      auto* v = sc.values.find(t.name);
      if (v && !v->type.is_unknown()) continue;
    }
    ValueInfoState st;
    Dims d;
    d.reserve(t.dims.size());
    for (auto x : t.dims) d.emplace_back(x);
    st.type = ValueType::tensor(t.data_type, std::move(d));
    if (!overridable) {
      if (t.dims.size() <= 1) st.sym_value = tensor_sym_value(t);
      sc.constants[t.name] = &t;
    }
    sc.values.assign(t.name, std::move(st));
  }
  for (const auto& sp : g.sparse_initializers) {
    ValueInfoState st;
    Dims d;
    for (auto x : sp.dims) d.emplace_back(x);
    st.type = ValueType::tensor(sp.values.data_type, std::move(d));
    sc.values.assign(sp.values.name, std::move(st));
  }
  if (!opts_.overwrite) {
    sc.declared.reserve(g.value_info.size() + g.outputs.size());
    for (const auto& v : g.value_info)
      if (v.type) sc.declared[v.name] = &*v.type;
    for (const auto& v : g.outputs)
      if (v.type) sc.declared[v.name] = &*v.type;
  }
  // Nodes in file order while every input is already known (sorted graphs never pay for a
  // topological sort); at the first node that uses a value not defined yet, the rest follows a
  // dependency order.
  auto ready = [&](const Node& n) {
    for (const auto& i : n.inputs)
      if (!i.empty() && !sc.lookup(i)) return false;
    bool has_graphs = false;
    for (const auto& a : n.attributes)
      has_graphs = has_graphs || a.kind() == AttributeType::GRAPH || a.kind() == AttributeType::GRAPHS;
    return !has_graphs || subgraph_inputs_known(sc, n);
  };
  std::size_t k = 0;
  for (; k < g.nodes.size(); ++k) {
    if (!ready(g.nodes[k])) break;
    infer_node(sc, g.nodes[k], k);
  }
  if (k == g.nodes.size()) return;
  std::vector<std::size_t> order;
  bool acyclic = true;
  try {
    order = topological_order(g);
  } catch (const Error& e) {
    diagnose(Severity::Warning, DiagnosticKind::Other, sc.path, nullptr,
             std::string("nodes are not acyclic; inferring in file order: ") + e.what());
    order.resize(g.nodes.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    acyclic = false;
  }
  for (auto i : order) {
    if (i < k) continue;
    // In dependency order every input is defined by now, unless nothing defines it (on a cycle,
    // file order leaves some undefined for a while: the warning above covers those).
    if (acyclic)
      for (std::size_t j = 0; j < g.nodes[i].inputs.size(); ++j)
        if (const auto& in = g.nodes[i].inputs[j]; !in.empty() && !sc.lookup(in))
          diagnose(Severity::Error, DiagnosticKind::InvalidNode, node_path(sc, i), &g.nodes[i],
                   "input " + std::to_string(j) + " '" + in +
                       "' is not defined: no graph input, initializer or node output of this graph or an "
                       "enclosing one has that name");
    infer_node(sc, g.nodes[i], i);
  }
}

inline void Engine::check_outputs_defined(Scope& sc, const Graph& g) {
  for (std::size_t i = 0; i < g.outputs.size(); ++i)
    if (!g.outputs[i].name.empty() && !sc.lookup(g.outputs[i].name))
      diagnose(Severity::Error, DiagnosticKind::Other, sc.path + ".output[" + std::to_string(i) + "]", nullptr,
               "graph output '" + g.outputs[i].name +
                   "' is not defined: no graph input, initializer or node output of this graph or an enclosing "
                   "one has that name");
}

namespace detail {
/// The first dim of `t` (or of a type nested in it) that is a negative number, if any.
inline std::optional<std::int64_t> negative_size(const ValueType& t) {
  if (t.shape)
    for (const auto& d : *t.shape)
      if (const auto k = d.const_value(); k && *k < 0) return k;
  return t.inner ? negative_size(*t.inner) : std::nullopt;
}
}  // namespace detail

/// A size the rule computed as a negative number (a shape input such as CenterCropPad's `shape`
/// holding -5) means the node cannot run; written out it would be a dim_value no model may hold.
inline void Engine::refuse_negative_sizes(const InferContext& ctx) {
  for (std::size_t i = 0; i < ctx.outputs_.size(); ++i)
    if (ctx.outputs_[i])
      if (const auto k = detail::negative_size(ctx.outputs_[i]->type))
        ctx.fail("output " + std::to_string(i) + " would have the negative size " + std::to_string(*k));
}

inline void Engine::infer_node(Scope& sc, Node& n, std::size_t index) {
  ++report.nodes;
  const bool default_domain = n.domain.empty() || n.domain == "ai.onnx";
  std::int64_t opset = 0;
  if (sc.opsets) {
    if (auto v = sc.opsets->find(n.domain)) opset = *v;
  }
  // IR versions 1 and 2 had no opset_import: their operators are those of opset 1 (onnx's
  // checker assumes the same).
  if (opset == 0 && default_domain && model_.ir_version >= 1 && model_.ir_version < 3 && model_.opset_imports.empty())
    opset = 1;
  InferContext ctx(*this, sc, n, index, opset);
  fresh_symbols_.left += kFreshSymbolsPerNode;
  shape_dims_.left += kShapeDimsPerNode;
  ctx.outputs_ = std::move(spare_outputs_);  // the buffer of an earlier node, if free
  spare_outputs_ = {};
  ctx.outputs_.resize(n.outputs.size());
  auto path = [&] { return ctx.path(); };
  bool ok = true;
  const std::vector<detail::TypeSignature>* types = nullptr;  // of the rule found, if any
  try {
    const Function* fn = default_domain ? nullptr : functions_.find(n.domain, n.op_type, n.overload);
    if (!fn && !default_domain) fn = nullptr;
    if (fn) {
      infer_call(ctx, sc, *fn, n);
    } else if (const auto found = reg_.find_with_types(n.domain, n.op_type); found.rule) {
      const Rule r = found.rule;
      types = found.types;
      if (opset == 0) {
        // Not imported: the newest version is assumed.
        ctx = InferContext(*this, sc, n, index, 1000);
        ctx.outputs_.resize(n.outputs.size());
      }
      r(ctx);
      refuse_negative_sizes(ctx);
      check_types(ctx, n, opset, types);
    } else {
      ok = false;
      ++report.nodes_unsupported;
      diagnose(Severity::Warning, DiagnosticKind::UnsupportedOp, path(), &n,
               "no inference rule for operator '" + (default_domain ? std::string() : n.domain + "::") + n.op_type +
                   "': its outputs stay unknown");
    }
  } catch (const FreshSymbolsExhausted& e) {
    if (!fresh_symbols_.exhausted) {  // said once; every later node past the budget is left the same way
      fresh_symbols_.exhausted = true;
      diagnose(Severity::Warning, DiagnosticKind::Other, path(), &n,
               std::string(e.message()) + ": the sizes computed from here on are left unknown");
    }
    check_types(ctx, n, opset, types, true);
  } catch (const ExprTooLarge& e) {
    // Not a fault of the model: its sizes grew beyond what is tracked symbolically. What the
    // rule set before that stays (each output it sets is a complete claim; e.g. ReduceProd sets
    // its shape, then fails on the product of a shape's elements): the rest stays unknown.
    diagnose(Severity::Warning, DiagnosticKind::Other, path(), &n,
             std::string(e.message()) + ": the sizes computed from here on are left unknown");
    check_types(ctx, n, opset, types, true);
  } catch (const RuleFailure& f) {
    ok = false;
    ++report.nodes_failed;
    charge_rejection(sc);
    ctx.outputs_.assign(n.outputs.size(), std::nullopt);
    diagnose(Severity::Error, DiagnosticKind::InvalidNode, path(), &n, f.message);
    check_types(ctx, n, opset, types, true);
  } catch (const Error& e) {
    if (opts_.strict) throw;
    ok = false;
    ++report.nodes_failed;
    charge_rejection(sc);
    ctx.outputs_.assign(n.outputs.size(), std::nullopt);
    diagnose(Severity::Error, DiagnosticKind::InvalidNode, path(), &n, e.what());
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& e) {
    ok = false;
    ++report.nodes_failed;
    charge_rejection(sc);
    ctx.outputs_.assign(n.outputs.size(), std::nullopt);
    diagnose(Severity::Error, DiagnosticKind::InvalidNode, path(), &n, e.what());
  }
  (void)ok;
  const bool main_graph = sc.depth == 0 && sc.call_depth == 0;
  if (main_graph || !facts_.empty()) size_facts_after(ctx, n, default_domain, main_graph);
  // Constant nodes: their tensor is visible to consumers as a constant.
  if (default_domain && n.op_type == "Constant" && n.has_output(0)) {
    if (auto a = n.find_attribute("value"); a && a->kind() == AttributeType::TENSOR &&
                                            std::holds_alternative<Box<Tensor>>(a->value) &&
                                            std::get<Box<Tensor>>(a->value).has_value())
      sc.constants[n.outputs[0]] = &a->as_tensor();
  }
  for (std::size_t i = 0; i < n.outputs.size(); ++i) {
    const auto& name = n.outputs[i];
    if (name.empty()) continue;
    ValueInfoState st = ctx.outputs_[i] ? std::move(*ctx.outputs_[i]) : ValueInfoState{};
    if (const std::size_t dims = detail::shape_dims(st.type); !shape_dims_.take(dims)) {
      st.type = detail::without_shapes(st.type);  // sound: only the rank becomes unknown
      st.sym_value.reset();
      st.partial_value.reset();
      if (!shape_dims_.exhausted) {
        shape_dims_.exhausted = true;
        diagnose(Severity::Warning, DiagnosticKind::Other, path(), &n,
                 "output " + std::to_string(i) + " has " + std::to_string(dims) +
                     " dims, more than the model's shapes may still hold (" + std::to_string(kShapeDimsBase) + " + " +
                     std::to_string(kShapeDimsPerNode) +
                     " per node inferred): it and other outputs past the limit are left with unknown rank");
      }
    }
    if (auto* d = sc.declared.find(name))
      refine(st, **d, Where{&sc.path, static_cast<std::ptrdiff_t>(index), "output", i}, &n);
    if (st.type.is_unknown())
      ++report.values_unknown;
    else
      ++report.values_typed;
    if (auto* before = sc.values.find(name)) {
      // Names are assigned once per graph (SSA): a model that defines one again is malformed;
      // the later definition is the one consumers after it see.
      diagnose(Severity::Error, DiagnosticKind::InvalidNode, path(), &n,
               "output " + std::to_string(i) + " '" + name +
                   "' is already defined in this graph (a graph input, an initializer or an earlier node's output)");
      *before = std::move(st);
    } else {
      sc.values.append(name, std::move(st));
    }
  }
  if (spare_outputs_.capacity() < ctx.outputs_.capacity()) {
    ctx.outputs_.clear();
    spare_outputs_ = std::move(ctx.outputs_);
  }
}

inline void Engine::collect_size_facts(InferContext& ctx, const Node& n, bool default_domain) {
  const std::string_view op = n.op_type;
  // A name defined again (a malformed model) must not keep what its first definition had.
  if (!max_at_least_.empty())
    for (const auto& o : n.outputs) max_at_least_.erase(o);
  if (!default_domain || n.outputs.empty() || ctx.outputs_.empty() || !ctx.outputs_[0]) return;
  const DataType out_elem = ctx.outputs_[0]->type.elem;
  try {
    if (op == "Range") {
      // Elements start, start+d, …, each < limit (d > 0) or > limit (d < 0): the last one is at
      // least limit - d, the first one is start.
      const Dims* start = ctx.input_value(0);
      const Dims* limit = ctx.input_value(1);
      const auto delta = ctx.input_ints(2);
      if (!is_integer(out_elem) || !start || !limit || !delta || start->size() != 1 || limit->size() != 1 ||
          delta->size() != 1 || (*delta)[0] == 0)
        return;
      const DimExpr at_least = (*delta)[0] > 0 ? ctx.resolve((*limit)[0]) - DimExpr((*delta)[0]) : ctx.resolve((*start)[0]);
      max_at_least_.insert_or_assign(n.outputs[0], at_least);
      return;
    }
    if (op == "NonZero") {
      // Of n elements all nonzero (torch's arange(n) before opset 11): the indices 0 … n-1.
      const Dims* s = ctx.input_shape(0);
      if (!s || s->size() != 1 || !ctx.input_all_nonzero(0)) return;
      max_at_least_.insert_or_assign(n.outputs[0], ctx.resolve((*s)[0]) - DimExpr(1));
      return;
    }
    if ((op == "Add" || op == "Sub") && is_integer(out_elem) && n.inputs.size() == 2) {
      // Every element shifted by one number (arange(n) + past).
      for (std::size_t k = 0; k < 2; ++k) {
        auto it = max_at_least_.find(n.inputs[k]);
        const Dims* v = ctx.input_value_flat(1 - k);
        if (it == max_at_least_.end() || !v || v->size() != 1 || (op == "Sub" && k == 1)) continue;
        const DimExpr shift = ctx.resolve((*v)[0]);
        max_at_least_.insert_or_assign(n.outputs[0], op == "Add" ? it->second + shift : it->second - shift);
        return;
      }
      return;
    }
    if (op == "Identity" || op == "Unsqueeze" || op == "Squeeze" || op == "Reshape" || op == "Flatten" ||
        op == "Expand" || op == "Transpose" || op == "Tile" || op == "Cast") {
      // Same elements (or copies of them; a non-empty result has a non-empty input).
      if (op == "Cast") {
        const DataType from = ctx.input_elem(0);
        const bool widening = is_integer(from) && is_integer(out_elem) && is_signed(out_elem) &&
                              (is_signed(from) ? bit_width(out_elem) >= bit_width(from)
                                               : bit_width(out_elem) > bit_width(from));
        if (!widening) return;
      }
      if (!ctx.has_input(0)) return;
      if (auto it = max_at_least_.find(n.inputs[0]); it != max_at_least_.end())
        max_at_least_.insert_or_assign(n.outputs[0], it->second);
      return;
    }
    if (op != "Gather" && op != "GatherElements") return;
    const Dims* data = ctx.input_shape(0);
    const Dims* idx_shape = ctx.input_shape(1);
    if (!data || !idx_shape || data->empty() || !ctx.has_input(1)) return;
    const std::int64_t rank = static_cast<std::int64_t>(data->size());
    std::int64_t axis = ctx.attr_int("axis", 0);
    if (axis < -rank || axis >= rank) return;
    if (axis < 0) axis += rank;
    const DimExpr last = ctx.resolve((*data)[static_cast<std::size_t>(axis)]) - DimExpr(1);
    auto add = [&](DimExpr guard, DimExpr lhs) {
      facts_work_ -= kFactComparisonWork;
      if (facts_.size() - size_facts_ >= kMaxSizeFacts || facts_work_ <= 0 || !usable_guard(guard)) return;
      if (facts_detail::proven_le(lhs, last)) return;  // nothing new
      if (lhs.is_const() && last.is_const()) return;  // an index out of range: a model error, no size fact
      facts_.push_back(SizeFact{std::move(guard), std::move(lhs), last});
    };
    if (auto it = max_at_least_.find(n.inputs[1]); it != max_at_least_.end()) {
      DimExpr count(1);
      for (const auto& d : *idx_shape) count = count * ctx.resolve(d);
      add(std::move(count), it->second);
    }
    if (const Dims* v = ctx.input_value_flat(1); v && v->size() <= 8)
      for (const auto& e : *v) add(DimExpr(1), ctx.resolve(e));
  } catch (const Error&) {  // overflow or too large an expression: no fact
  }
}

inline void Engine::apply_size_facts(InferContext& ctx) {
  for (auto& out : ctx.outputs_) {
    if (!out) continue;
    auto fix = [&](DimExpr& d) {
      if (facts_detail::has_minmax(d)) d = resolved_facts_applied(syms.resolve(d));
    };
    try {
      if (out->type.shape)
        for (auto& d : *out->type.shape) fix(d);
      if (out->sym_value)
        for (auto& d : *out->sym_value) fix(d);
      if (out->partial_value)
        for (auto& d : *out->partial_value)
          if (d) fix(*d);
    } catch (const Error&) {  // left as they are
    }
  }
}

inline void Engine::record_sizes(InferContext& ctx) {
  for (auto& out : ctx.outputs_) {
    if (!out || !out->type.shape) continue;
    for (const auto& d : *out->type.shape) {
      if (size_facts_ >= kMaxSizeFacts || facts_work_ <= 0) return;
      if (d.is_const() || d.as_symbol()) continue;
      // Only sizes with a term that can be negative (a quick test before the proof).
      bool negative_term = false;
      for (const auto& t : d.terms()) negative_term = negative_term || t.coeff < 0;
      if (!negative_term) continue;
      facts_work_ -= kFactComparisonWork;
      try {
        const DimExpr r = syms.resolve(d);
        if (ops::nonneg(r)) continue;
        bool known = false;
        for (const auto& f : facts_) known = known || (f.lhs.is(0) && f.rhs == r);
        if (known) continue;
        facts_.push_back(SizeFact{DimExpr(1), DimExpr(0), r});
        ++size_facts_;
      } catch (const Error&) {  // overflow: no fact
      }
    }
  }
}

inline void Engine::check_types(const InferContext& ctx, const Node& n, std::int64_t opset,
                                const std::vector<detail::TypeSignature>* types, bool rule_failed) {
  if (!types) return;
  const int domain = detail::type_table_domain(n.domain);
  if (domain < 0 || opset <= 0) return;
  bool beyond = false;
  const detail::TypeSignature* sig = detail::TypeSignatures::select(*types, domain, opset, beyond);
  if (!sig) return;
  // An attribute the version does not define: a misspelt or misplaced name, which onnx's checker
  // and ONNX Runtime's loader refuse (and which the rule ignored, taking a default instead). Past
  // the signatures' newest opset the names come from the per-opset table, as far as it goes.
  const std::vector<std::string_view>* names =
      !beyond ? (sig->attributes_known ? &sig->attributes : nullptr)
              : detail::TypeSignatures::get().attributes_beyond(domain, n.op_type, opset);
  if (names && !(beyond && sig->deprecated)) {
    for (const auto& a : n.attributes)
      if (std::find(names->begin(), names->end(), std::string_view(a.name)) == names->end()) {
        const std::string version =
            beyond ? n.op_type + " at opset " + std::to_string(opset) : n.op_type + "-" + std::to_string(sig->since);
        if (diagnose(Severity::Error, DiagnosticKind::InvalidNode, ctx.path(), &n,
                     "attribute '" + a.name + "' is not defined for " + version))
          ++report.attribute_errors;
      }
  }
  // Past the horizon a widened signature still holds where the per-opset table knows the
  // operator's names there: ONNX Runtime resolves the same version as at the horizon.
  if (beyond && opset > detail::kTypeCheckHorizon[domain] && !names) return;
  if (sig->deprecated) {  // inferred all the same: the types say what the model means to compute
    if (!rule_failed)
      diagnose(Severity::Warning, DiagnosticKind::Other, ctx.path(), &n,
               "operator '" + n.op_type + "' is deprecated since opset " + std::to_string(sig->since) +
                   " (this model imports " + std::to_string(opset) + "): ONNX Runtime refuses to load it");
    return;
  }
  static const ValueType unknown;
  detail::check_type_constraints(
      *sig, detail::TypeCheckMode{beyond, rule_failed}, n.op_type, n.inputs.size(), n.outputs.size(),
      [&](std::size_t i) -> const ValueType& { return ctx.has_input(i) ? ctx.input_type(i) : unknown; },
      [&](std::size_t i) -> const ValueType& {
        return i < ctx.outputs_.size() && ctx.outputs_[i] ? ctx.outputs_[i]->type : unknown;
      },
      [&](std::string message) {
        if (diagnose(Severity::Error, DiagnosticKind::TypeConstraint, ctx.path(), &n, std::move(message)))
          ++report.type_errors;
      });
}

inline void Engine::infer_call(InferContext& ctx, Scope& sc, const Function& fn, const Node& call) {
  if (sc.call_depth >= kMaxCallDepth) ctx.fail("function calls nested deeper than 64 (recursion?)");
  // Bodies are inferred per call site; functions that call each other several times would
  // otherwise cost exponentially many body inferences (f0 calls f1 twice, f1 calls f2 twice…).
  if (function_budget_ < fn.nodes.size())
    ctx.fail("function inference budget exhausted (" + std::to_string(kFunctionBudgetBase) +
             " nodes + 64 per node of the model, a rejected node counting " + std::to_string(1 + kRejectedNodeCost) +
             "): the outputs of this call stay unknown");
  function_budget_ -= fn.nodes.size();
  Scope body;
  ScopeMaps lease(*this, body);
  body.parent = nullptr;  // a function sees only its inputs
  body.path = ctx.path() + "{function " + fn.domain + "::" + fn.name + "}";
  if (fn.opset_imports.empty()) {
    body.opsets = &main_opsets_;
  } else {
    auto [table, fresh] = function_opsets_.try_emplace(&fn);
    if (fresh) table->second = OpsetTable(fn.opset_imports);
    body.opsets = &table->second;
  }
  body.write_back = false;
  body.call_depth = sc.call_depth + 1;
  for (std::size_t i = 0; i < fn.inputs.size(); ++i) {
    ValueInfoState st;
    if (i < call.inputs.size() && !call.inputs[i].empty()) {
      if (auto* s = sc.lookup(call.inputs[i])) st = *s;
      if (auto* c = sc.constant(call.inputs[i])) body.constants[fn.inputs[i]] = c;
    }
    body.values[fn.inputs[i]] = std::move(st);
  }
  // The body with attribute references bound to the call's attributes (or the defaults).
  Graph g;
  g.nodes.reserve(fn.nodes.size());
  auto bind = [&](const auto& self, Node n) -> Node {
    std::vector<Attribute> attrs;
    for (auto& a : n.attributes) {
      if (!a.ref_attr_name.empty()) {
        const Attribute* src = call.find_attribute(a.ref_attr_name);
        if (!src)
          for (const auto& d : fn.attribute_protos)
            if (d.name == a.ref_attr_name) src = &d;
        if (!src) continue;  // unbound: the attribute is absent in this call
        Attribute b = *src;
        b.name = a.name;
        attrs.push_back(std::move(b));
      } else {
        if (a.kind() == AttributeType::GRAPH && std::holds_alternative<Box<Graph>>(a.value) &&
            std::get<Box<Graph>>(a.value).has_value()) {
          Graph& sg = a.as_graph();
          for (auto& sn : sg.nodes) sn = self(self, std::move(sn));
        }
        attrs.push_back(std::move(a));
      }
    }
    n.attributes = std::move(attrs);
    return n;
  };
  for (const auto& n : fn.nodes) g.nodes.push_back(bind(bind, n));
  body.graph = &g;
  infer_graph(body, g);
  if (opts_.annotate_functions && sc.call_depth == 0) {
    auto [it, first] = fn_results_.try_emplace(&fn);
    std::vector<std::pair<std::string, ValueInfoState>> now;
    for (const auto& bn : g.nodes)
      for (const auto& o : bn.outputs)
        if (!o.empty())
          if (auto* v = body.values.find(o)) now.emplace_back(o, *v);
    if (first) {
      it->second = std::move(now);
    } else {
      for (std::size_t k = 0; k < it->second.size() && k < now.size(); ++k) {
        auto& [name, st] = it->second[k];
        st.type = join_types(syms, st.type, now[k].second.type);
        if (st.sym_value != now[k].second.sym_value) st.sym_value.reset();
      }
    }
  }
  for (std::size_t i = 0; i < fn.outputs.size(); ++i) {
    const auto* s = body.lookup(fn.outputs[i]);
    if (!s)
      diagnose(Severity::Error, DiagnosticKind::InvalidNode, body.path, &call,
               "function output " + std::to_string(i) + " '" + fn.outputs[i] +
                   "' is not defined: no function input or node output of the body has that name");
    if (s && i < call.outputs.size() && !call.outputs[i].empty()) ctx.outputs_[i] = *s;
  }
}

inline std::vector<ValueInfoState> Engine::infer_subgraph(InferContext& ctx, std::string_view attr,
                                                          std::vector<ValueInfoState> inputs, bool runs_with_node,
                                                          bool recorded) {
  Node& n = const_cast<Node&>(ctx.node());
  std::size_t ai = 0;
  for (; ai < n.attributes.size(); ++ai)
    if (n.attributes[ai].name == attr) break;
  if (ai == n.attributes.size()) ctx.fail("missing graph attribute '" + std::string(attr) + "'");
  Attribute& a = n.attributes[ai];
  if (a.kind() != AttributeType::GRAPH || !std::holds_alternative<Box<Graph>>(a.value) ||
      !std::get<Box<Graph>>(a.value).has_value())
    ctx.fail("attribute '" + std::string(attr) + "' is not a graph");
  Graph& g = a.as_graph();
  Scope& outer = ctx.scope();
  if (outer.depth >= kMaxSubgraphDepth)
    ctx.fail("subgraphs nested deeper than " + std::to_string(kMaxSubgraphDepth) + " levels are not inferred");
  const int counted = runs_with_node ? 0 : 1;
  conditional_ += counted;
  struct Restore {
    int& depth;
    int n;
    ~Restore() { depth -= n; }
  } restore{conditional_, counted};
  Scope sc;
  ScopeMaps lease(*this, sc);
  sc.parent = &outer;
  sc.depth = outer.depth + 1;
  sc.graph = &g;
  sc.path = place::subgraph(ctx.path(), ai);
  sc.opsets = outer.opsets;
  sc.write_back = outer.write_back && recorded;
  sc.call_depth = outer.call_depth;
  std::vector<ValueInfoState> in_states;
  in_states.reserve(g.inputs.size());
  for (std::size_t i = 0; i < g.inputs.size(); ++i) {
    ValueInfoState st = i < inputs.size() ? std::move(inputs[i]) : ValueInfoState{};
    st.partial_value.reset();  // a body input may differ from one run to the next
    if (g.inputs[i].type)
      refine(st, *g.inputs[i].type, Where{&sc.path, -1, "input", i}, &n);
    in_states.push_back(st);
    sc.values[g.inputs[i].name] = std::move(st);
  }
  infer_graph(sc, g);
  check_outputs_defined(sc, g);
  std::vector<ValueInfoState> out;
  out.reserve(g.outputs.size());
  for (std::size_t i = 0; i < g.outputs.size(); ++i) {
    ValueInfoState st;
    if (auto* s = sc.lookup(g.outputs[i].name)) st = *s;
    st.partial_value.reset();  // rules that merge branches or iterations do not join them
    if (g.outputs[i].type && (opts_.overwrite ? st.type.is_unknown() : true))
      refine(st, *g.outputs[i].type, Where{&sc.path, -1, "output", i}, &n);
    out.push_back(std::move(st));
  }
  if (sc.write_back) {
    auto& r = record(g, sc);
    r.inputs = std::move(in_states);
    r.outputs = out;
  }
  return out;
}

inline Engine::GraphResult& Engine::result_for(Graph& g) {
  if (results_.size() <= detail::NameIndex::kLinear) {
    for (auto& r : results_)
      if (r.graph == &g) return r;
    results_.emplace_back().graph = &g;
    if (results_.size() > detail::NameIndex::kLinear)
      for (std::size_t i = 0; i < results_.size(); ++i) result_index_.emplace(results_[i].graph, i);
    return results_.back();
  }
  auto [it, added] = result_index_.try_emplace(&g, results_.size());
  if (added) results_.emplace_back().graph = &g;
  return results_[it->second];
}

inline Engine::GraphResult& Engine::record(Graph& g, Scope& sc) {
  // The scope is finished: its states move into the result.
  GraphResult& r = result_for(g);
  give_map(ws_->spare_maps, std::move(r.values));  // a graph inferred again: its earlier result's storage
  r.values = std::move(sc.values);
  r.inputs.clear();
  r.outputs.clear();
  r.main_graph = &g == &model_.graph;
  if (opts_.report_constant_values) r.path = sc.path;
  return r;
}

inline void Engine::fill_missing(Type& declared, const ValueType& inferred) {
  if (inferred.is_unknown()) return;
  if (declared.value.index() == 0) {
    type_into(declared, inferred);
    return;
  }
  auto fill_tensor = [&](auto& tt) {
    if (tt.elem_type == DataType::UNDEFINED) tt.elem_type = inferred.elem;
    if (!inferred.shape) return;
    if (!tt.shape) {
      if (inferred.kind == ValueType::Kind::Tensor || inferred.kind == ValueType::Kind::SparseTensor)
        shape_into(tt.shape, inferred.shape);
      return;
    }
    if (tt.shape->dims.size() != inferred.shape->size()) return;
    for (std::size_t i = 0; i < tt.shape->dims.size(); ++i) {
      auto& d = tt.shape->dims[i];
      if (d.is_value() || (d.is_param() && !d.dim_param().empty())) continue;
      const DimExpr r = syms.resolve((*inferred.shape)[i]);
      if (auto c = r.const_value())
        d.value = *c;
      else if (auto id = r.as_symbol())
        d.value = syms.name(*id);
      else
        d.value = printed(r);
    }
  };
  if (auto* tt = std::get_if<TensorType>(&declared.value); tt && inferred.kind == ValueType::Kind::Tensor)
    fill_tensor(*tt);
  else if (auto* st = std::get_if<SparseTensorType>(&declared.value);
           st && inferred.kind == ValueType::Kind::SparseTensor)
    fill_tensor(*st);
  else if (auto* sq = std::get_if<SequenceType>(&declared.value); sq && inferred.inner) {
    if (!sq->elem_type.has_value()) {
      if (!inferred.inner->is_unknown()) sq->elem_type = Box<Type>(to_type(*inferred.inner));
    } else {
      fill_missing(*sq->elem_type, *inferred.inner);
    }
  } else if (auto* op = std::get_if<OptionalType>(&declared.value); op && inferred.inner) {
    if (!op->elem_type.has_value()) {
      if (!inferred.inner->is_unknown()) op->elem_type = Box<Type>(to_type(*inferred.inner));
    } else {
      fill_missing(*op->elem_type, *inferred.inner);
    }
  }
}

inline void Engine::annotate(ValueInfo& vi, const ValueType& t) {
  if (opts_.overwrite || !vi.type)
    type_into(vi.type.emplace(), t);
  else
    fill_missing(*vi.type, t);
}

template <class Values, class Skip>
void Engine::write_value_info(std::vector<ValueInfo>& list, const Values& values, Skip&& skip) {
  list.reserve(list.size() + values.size());  // no reallocation from here on: `existing` views the names
  std::unordered_map<std::string_view, std::size_t> existing;
  for (std::size_t i = 0; i < list.size(); ++i) existing.emplace(list[i].name, i);
  for (const auto& [name, st] : values) {
    if (st.type.is_unknown() || skip(name)) continue;
    if (auto it = existing.empty() ? existing.end() : existing.find(name); it != existing.end()) {
      annotate(list[it->second], st.type);
      continue;
    }
    ValueInfo& vi = list.emplace_back();
    vi.name = name;
    type_into(vi.type.emplace(), st.type);
  }
}

inline void Engine::collect_constant_values() {
  for (const auto& r : results_) {
    for (const auto& n : r.graph->nodes)
      for (const auto& o : n.outputs) {
        const ValueInfoState* st = o.empty() ? nullptr : r.values.find(o);
        if (!st || !st->sym_value || !st->type.is_tensor() || !st->type.shape || st->type.shape->size() > 1) continue;
        const DataType e = st->type.elem;
        if (e != DataType::INT64 && e != DataType::INT32) continue;
        ConstantValue cv;
        cv.name = o;
        cv.graph = r.path;
        cv.elem_type = static_cast<std::int32_t>(e);
        std::size_t count = 1;
        if (st->type.shape->size() == 1) {
          const auto len = syms.resolve((*st->type.shape)[0]).const_value();
          if (!len || *len < 0) continue;
          cv.dims.push_back(*len);
          count = static_cast<std::size_t>(*len);
        }
        if (st->sym_value->size() != count) continue;
        bool known = true;
        cv.values.reserve(count);
        for (const auto& x : *st->sym_value) {
          const auto c = syms.resolve(x).const_value();
          if (!c || (e == DataType::INT32 && (*c < std::numeric_limits<std::int32_t>::min() ||
                                                *c > std::numeric_limits<std::int32_t>::max()))) {
            known = false;
            break;
          }
          cv.values.push_back(*c);
        }
        if (known) report.constant_values.push_back(std::move(cv));
      }
  }
}

inline void Engine::write_back() {
  for (auto& r : results_) {
    Graph& g = *r.graph;
    const bool small = g.outputs.size() + g.inputs.size() <= 16;
    std::unordered_set<std::string_view> skip_set;
    if (!small) {
      for (const auto& v : g.outputs) skip_set.insert(v.name);
      for (const auto& v : g.inputs) skip_set.insert(v.name);
    }
    auto skip = [&](std::string_view name) {
      if (!small) return skip_set.contains(name);
      for (const auto& v : g.outputs)
        if (v.name == name) return true;
      for (const auto& v : g.inputs)
        if (v.name == name) return true;
      return false;
    };
    // Node outputs in file order (each name once), then the graph's own outputs/inputs.
    auto& list = g.value_info;
    NameMap<std::size_t> existing;
    bool reserved = false;
    if (!list.empty()) {
      list.reserve(list.size() + r.values.size());  // no reallocation from here on: `existing` views the names
      reserved = true;
      existing.reserve(list.size());
      for (std::size_t i = 0; i < list.size(); ++i)
        if (!existing.contains(list[i].name)) existing.append(list[i].name) = i;
    }
    for (const auto& n : g.nodes)
      for (const auto& o : n.outputs) {
        if (o.empty()) continue;
        ValueInfoState* st = r.values.find(o);
        if (!st || st->type.is_unknown() || skip(o)) continue;
        if (const std::size_t* at = existing.empty() ? nullptr : existing.find(o)) {
          annotate(list[*at], st->type);
        } else {
          if (!reserved) list.reserve(list.size() + r.values.size());
          reserved = true;
          ValueInfo& vi = list.emplace_back();
          vi.name = o;
          type_into(vi.type.emplace(), st->type);
        }
        st->type.kind = ValueType::Kind::Unknown;  // written: a repeated name is not written again
      }
    auto update = [&](std::vector<ValueInfo>& vlist, const std::vector<ValueInfoState>& states) {
      for (std::size_t i = 0; i < vlist.size() && i < states.size(); ++i)
        if (!states[i].type.is_unknown()) annotate(vlist[i], states[i].type);
    };
    if (r.main_graph) {
      for (auto& v : g.outputs)
        if (const ValueInfoState* st = r.values.find(v.name); st && !st->type.is_unknown()) annotate(v, st->type);
    } else {
      update(g.outputs, r.outputs);
      update(g.inputs, r.inputs);
    }
  }
  // Function bodies (on request): the types that hold at every call site.
  for (auto& f : model_.functions) {
    auto it = fn_results_.find(&f);
    if (it == fn_results_.end()) continue;
    const std::unordered_set<std::string_view> outputs(f.outputs.begin(), f.outputs.end());
    write_value_info(f.value_info, it->second, [&](std::string_view name) { return outputs.contains(name); });
  }
}

// ---- InferContext members that need the engine ----

inline bool Engine::nonneg_by_facts(const DimExpr& e) {
  if (facts_.empty() || facts_work_ <= 0) return false;
  try {
    const DimExpr r = syms.resolve(e);
    const std::vector<DimExpr>& gaps = current_fact_gaps();
    // First the facts that differ from e by a constant: r - gap = c needs no arithmetic and no
    // proof, where the general attempts below may spend their budget on other facts first.
    if (!r.is_const()) {
      const std::vector<Term>& rt = r.terms();
      const std::size_t rn = rt.size() - (rt.back().factors.empty() ? 1 : 0);
      for (const auto& gap : gaps) {
        if (gap.is_const()) continue;
        const std::vector<Term>& gt = gap.terms();
        const std::size_t gn = gt.size() - (gt.back().factors.empty() ? 1 : 0);
        if (gn != rn) continue;
        bool same = true;
        for (std::size_t i = 0; same && i < rn; ++i)
          same = rt[i].coeff == gt[i].coeff && detail::compare_factor_lists(rt[i].factors, gt[i].factors) == 0;
        // r = gap + (r.c - gap.c) with gap >= 0: r >= 0 when r.c >= gap.c.
        if (same && r.constant_term() >= gap.constant_term()) return true;
      }
    }
    for (const auto& gap : gaps) {
      facts_work_ -= 2 * kFactComparisonWork;
      if (facts_work_ <= 0) return false;
      // The proofs and the arithmetic building what they prove are charged to the model's budget.
      const std::uint64_t before = detail::expr_work;
      const DimExpr a = r - gap, b = DimExpr(2) * r - gap + DimExpr(1);
      facts_work_ -= static_cast<std::int64_t>(std::min<std::uint64_t>(detail::expr_work - before, 1u << 30));
      if (ops::nonneg(a, facts_work_) || ops::nonneg(b, facts_work_)) return true;
    }
  } catch (const Error&) {  // overflow: unproven
  }
  return false;
}

inline bool InferContext::provably_nonneg(const DimExpr& e) const { return ops::nonneg(e) || engine_->nonneg_by_facts(e); }
inline std::string InferContext::path() const { return node_path(*scope_, index_); }

inline const ValueInfoState* InferContext::input_state(std::size_t i) const {
  if (!has_input(i)) return nullptr;
  if (i >= kCachedInputs) return scope_->lookup(node_->inputs[i]);
  const auto bit = static_cast<std::uint8_t>(1U << i);
  if (!(inputs_looked_up_ & bit)) {
    input_states_[i] = scope_->lookup(node_->inputs[i]);
    inputs_looked_up_ |= bit;
  }
  return input_states_[i];
}
inline const ValueType& InferContext::input_type(std::size_t i) const {
  static const ValueType none;
  const ValueInfoState* s = input_state(i);
  return s ? s->type : none;
}
inline bool InferContext::input_all_nonzero(std::size_t i) const {
  const ValueInfoState* s = input_state(i);
  return s && s->all_nonzero;
}
inline const Dims* InferContext::input_value_flat(std::size_t i) const {
  const ValueInfoState* s = input_state(i);
  return s && s->sym_value ? &*s->sym_value : nullptr;
}
inline const Dims* InferContext::input_value(std::size_t i) const {
  const Dims* v = input_value_flat(i);
  if (!v) return nullptr;
  const Dims* shape = input_shape(i);
  return shape && shape->size() >= 2 ? nullptr : v;
}
inline const PartialDims* InferContext::input_partial_value_flat(std::size_t i) const {
  const ValueInfoState* s = input_state(i);
  return s && s->partial_value && !s->partial_value->empty() && !s->sym_value ? &*s->partial_value : nullptr;
}
inline const PartialDims* InferContext::input_partial_value(std::size_t i) const {
  const PartialDims* p = input_partial_value_flat(i);
  const Dims* shape = input_shape(i);
  return p && shape && shape->size() == 1 ? p : nullptr;
}
inline std::optional<PartialDims> InferContext::input_elements(std::size_t i) const {
  PartialDims out;
  if (const Dims* v = input_value(i)) {
    out.reserve(v->size());
    for (const auto& e : *v) out.emplace_back(resolve(e));
  } else if (const PartialDims* p = input_partial_value(i)) {
    out.reserve(p->size());
    for (const auto& e : *p) out.push_back(e ? std::optional<DimExpr>(resolve(*e)) : std::nullopt);
  } else {
    return std::nullopt;
  }
  return out;
}
inline const Tensor* InferContext::input_constant(std::size_t i) const {
  if (!has_input(i)) return nullptr;
  return scope_->constant(node_->inputs[i]);
}
inline std::optional<std::vector<std::int64_t>> InferContext::input_ints(std::size_t i) const {
  const Dims* d = input_value(i);
  if (!d) return std::nullopt;
  std::vector<std::int64_t> out;
  out.reserve(d->size());
  for (const auto& e : *d) {
    auto c = resolve(e).const_value();
    if (!c) return std::nullopt;
    out.push_back(*c);
  }
  return out;
}
inline std::optional<std::vector<double>> InferContext::input_floats(std::size_t i) const {
  const Tensor* t = input_constant(i);
  if (!t) {
    // Computed contents known as numbers (a size cast to float, say).
    auto v = input_ints(i);
    if (!v) return std::nullopt;
    return std::vector<double>(v->begin(), v->end());
  }
  const auto count = t->element_count();
  if (!count || *count > (1u << 20)) return std::nullopt;
  if (t->is_external() && !t->data.is_loaded()) return std::nullopt;
  std::vector<double> out;
  out.reserve(static_cast<std::size_t>(*count));
  try {
    for (std::size_t k = 0; k < *count; ++k) {
      const auto x = Engine::float_element(*t, k);
      if (!x) {
        auto v = input_ints(i);
        if (!v) return std::nullopt;
        return std::vector<double>(v->begin(), v->end());
      }
      out.push_back(*x);
    }
  } catch (const Error&) {
    return std::nullopt;
  }
  return out;
}

inline std::int64_t InferContext::attr_int(std::string_view name, std::int64_t fallback) const {
  auto a = attr(name);
  if (!a) return fallback;
  if (a->kind() != AttributeType::INT) fail("attribute '" + std::string(name) + "' should be an int");
  return a->as_int();
}
inline float InferContext::attr_float(std::string_view name, float fallback) const {
  auto a = attr(name);
  if (!a) return fallback;
  if (a->kind() != AttributeType::FLOAT) fail("attribute '" + std::string(name) + "' should be a float");
  return a->as_float();
}
inline std::string InferContext::attr_string(std::string_view name, std::string_view fallback) const {
  auto a = attr(name);
  if (!a) return std::string(fallback);
  if (a->kind() != AttributeType::STRING) fail("attribute '" + std::string(name) + "' should be a string");
  return a->as_string();
}
inline std::optional<std::vector<std::int64_t>> InferContext::attr_ints(std::string_view name) const {
  auto a = attr(name);
  if (!a) return std::nullopt;
  if (a->kind() != AttributeType::INTS) fail("attribute '" + std::string(name) + "' should be a list of ints");
  return a->as_ints();
}
inline std::optional<std::vector<float>> InferContext::attr_floats(std::string_view name) const {
  auto a = attr(name);
  if (!a) return std::nullopt;
  if (a->kind() != AttributeType::FLOATS) fail("attribute '" + std::string(name) + "' should be a list of floats");
  return a->as_floats();
}
inline std::int64_t InferContext::require_int(std::string_view name) const {
  auto a = attr(name);
  if (!a) fail("missing required attribute '" + std::string(name) + "'");
  return attr_int(name, 0);
}

inline void InferContext::set_output(std::size_t i, ValueType t) {
  if (i >= outputs_.size()) return;
  if (!outputs_[i]) outputs_[i].emplace();
  outputs_[i]->type = std::move(t);
}
namespace detail {
/// Whether elements of type `t` hold every element of `v` exactly. Contents are computed with
/// exact integer arithmetic; outside a narrower integer type's range the tensor's elements wrap,
/// and a float tensor holds only the integers its significand spans (int32 2147483647 + 1 and
/// float 16777216 + 1 are not what exact arithmetic says). Symbolic elements are sizes: integer
/// types keep them (as Cast assumes); a float tensor's contents are tracked only as numbers.
inline bool holds_exactly(const Dims& v, DataType t) {
  if (t == DataType::UNDEFINED || t == DataType::INT64) return true;
  for (const auto& e : v) {
    const auto k = e.const_value();
    if (is_integer(t) || t == DataType::BOOL) {
      if (k && !ops::fits(*k, t)) return false;
      continue;
    }
    if (!k || *k > (std::int64_t{1} << 62) || *k < -(std::int64_t{1} << 62)) return false;
    switch (t) {
      case DataType::DOUBLE:
        if (static_cast<std::int64_t>(static_cast<double>(*k)) != *k) return false;
        break;
      case DataType::FLOAT:
        if (static_cast<std::int64_t>(static_cast<float>(*k)) != *k) return false;
        break;
      case DataType::FLOAT16:
        if (*k > 65504 || *k < -65504 ||
            static_cast<std::int64_t>(static_cast<float>(float16(static_cast<float>(*k)))) != *k)
          return false;
        break;
      case DataType::BFLOAT16:
        if (*k > (std::int64_t{1} << 40) || *k < -(std::int64_t{1} << 40) ||
            static_cast<std::int64_t>(static_cast<float>(bfloat16(static_cast<float>(*k)))) != *k)
          return false;
        break;
      default: return false;
    }
  }
  return true;
}
}  // namespace detail

inline void InferContext::set_output_value(std::size_t i, Dims value) {
  if (i >= outputs_.size() || value.size() > kMaxSymbolicElements) return;
  if (!engine_->charge_value_elements(value.size())) return;
  if (!outputs_[i]) outputs_[i].emplace();
  // int64 (shape tensors) holds every content: only other element types are checked.
  if (const DataType e = outputs_[i]->type.elem; e != DataType::INT64 && !detail::holds_exactly(value, e)) return;
  outputs_[i]->sym_value = std::move(value);
  outputs_[i]->partial_value.reset();
}
inline void InferContext::set_output_elements(std::size_t i, PartialDims value) {
  if (i >= outputs_.size() || value.size() > kMaxSymbolicElements) return;
  Dims known;
  for (const auto& e : value)
    if (e) known.push_back(*e);
  if (known.size() == value.size()) return set_output_value(i, std::move(known));
  if (known.empty() || !engine_->charge_value_elements(value.size())) return;
  if (!outputs_[i]) outputs_[i].emplace();
  if (const DataType e = outputs_[i]->type.elem; e != DataType::INT64 && !detail::holds_exactly(known, e)) return;
  outputs_[i]->sym_value.reset();
  outputs_[i]->partial_value = std::move(value);
}
inline void InferContext::set_output_all_nonzero(std::size_t i) {
  if (i >= outputs_.size()) return;
  if (!outputs_[i]) outputs_[i].emplace();
  outputs_[i]->all_nonzero = true;
}
inline const ValueType& InferContext::output_type(std::size_t i) const {
  static const ValueType none;
  return i < outputs_.size() && outputs_[i] ? outputs_[i]->type : none;
}

inline SymbolTable& InferContext::symbols() const { return engine_->syms; }
inline DimExpr InferContext::fresh() const { return engine_->budgeted_fresh(); }
inline DimExpr InferContext::resolve(const DimExpr& e) const { return engine_->syms.resolve(e); }

inline bool InferContext::unify(const DimExpr& a, const DimExpr& b, std::string_view what) const {
  if (engine_->unify_sizes(a, b) != Unify::Conflict) return true;
  std::string message = std::string(what) + ": " + engine_->syms.to_string(a) + " vs " + engine_->syms.to_string(b);
  // In a subgraph that may not run, a conflict of sizes that are not both numbers only says it
  // fails when it runs: a valid model may hold a branch it never takes (torch's squeeze guard
  // `If(Equal(d, 1), Squeeze, Identity)` on a size `2*N`, never 1). onnx's and ONNX Runtime's
  // loaders reject number against number there too, so that stays an error.
  if (engine_->in_conditional() && !(resolve(a).is_const() && resolve(b).is_const())) {
    engine_->diagnose(Severity::Warning, DiagnosticKind::Conflict, path(), node_,
                      message + " (in a subgraph that may not run: it fails if it runs)");
    return false;
  }
  engine_->diagnose(Severity::Error, DiagnosticKind::Conflict, path(), node_, std::move(message));
  return false;
}

inline Dims InferContext::broadcast(std::span<const Dims* const> shapes) const {
  // Same shapes (the common case) broadcast to themselves.
  if (!shapes.empty()) {
    bool same = true;
    for (std::size_t i = 1; i < shapes.size() && same; ++i) same = *shapes[i] == *shapes[0];
    if (same) {
      Dims out;
      out.reserve(shapes[0]->size());
      for (const auto& d : *shapes[0]) out.push_back(resolve(d));
      return out;
    }
  }
  std::size_t rank = 0;
  for (auto* s : shapes) rank = std::max(rank, s->size());
  Dims out(rank, DimExpr(1));
  for (std::size_t k = 0; k < rank; ++k) {
    // Dims of this axis (aligned from the right) other than a literal 1.
    std::optional<DimExpr> known;     // a number other than 1, or an agreed symbolic size
    bool ambiguous = false;
    std::vector<DimExpr> cands;
    for (auto* s : shapes) {
      if (s->size() + k < rank) continue;
      const DimExpr d = resolve((*s)[s->size() - rank + k]);
      if (d.is(1)) continue;
      cands.push_back(d);
    }
    if (cands.empty()) continue;
    // Numbers other than 1 must agree; a symbol next to a number k is k or 1: the result is k.
    for (const auto& c : cands) {
      if (c.is_const()) {
        if (known && known->is_const() && !(*known == c)) {
          engine_->diagnose(Severity::Error, DiagnosticKind::Conflict, path(), node_,
                            "cannot broadcast dim " + engine_->syms.to_string(*known) + " with " +
                                engine_->syms.to_string(c));
          known = fresh();
          ambiguous = false;
          break;
        }
        known = c;
      }
    }
    if (!known || !known->is_const()) {
      // All symbolic: equal ones give themselves; different ones could broadcast either way,
      // except a size a next to min(a, k...) with numbers k >= 1 (a table sliced to a length,
      // as a positional embedding pos[:, :t]): that is a, or smaller than a and then 1 (it
      // cannot be 0 unless a is), so the result is a.
      const auto capped = [](const DimExpr& m, const DimExpr& a) {
        if (m.is_const() || m.as_symbol()) return false;
        const auto& t = m.terms();
        if (t.size() != 1 || t[0].coeff != 1 || t[0].factors.size() != 1) return false;
        const Atom& f = t[0].factors[0];
        if (f.op != Atom::Op::Min || !f.args) return false;
        bool has_a = false;
        for (const auto& x : *f.args) {
          if (x == a) has_a = true;
          else if (auto v = x.const_value(); !v || *v < 1) return false;
        }
        return has_a;
      };
      for (const auto& c : cands) {
        if (!known) {
          known = c;
        } else if (*known == c || capped(c, *known)) {
          continue;
        } else if (capped(*known, c)) {
          known = c;
        } else {
          ambiguous = true;
        }
      }
    }
    if (ambiguous) {
      // Sizes that differ as expressions: when one of them can never be 1, every run that
      // broadcasts has the others equal to it or 1, so the result is that size (a feature map
      // upsampled 2x, 2*floor((H+31)/32), added to the finer floor((H+15)/16) gives the former).
      for (const auto& c : cands)
        if (ops::never_one(c)) {
          known = c;
          ambiguous = false;
          break;
        }
    }
    if (ambiguous) {
      out[k] = fresh();
      if (auto id = out[k].as_symbol()) engine_->note_broadcast(*id, std::move(cands));
    } else {
      out[k] = *known;
    }
  }
  return out;
}

inline void Engine::settle_broadcasts() {
  // What the rest of the model showed about the operands since: all of them equal (1s aside),
  // or one of them a number other than 1 or a size that is never 1, makes the result that size
  // in every run where the broadcast succeeds. Only results nothing else has determined since
  // (still their own fresh symbol) are bound, so this adds no claim that could conflict; one
  // settled result can settle another, hence the passes.
  bool changed = true;
  for (int pass = 0; changed && pass < kSettlePasses; ++pass) {
    changed = false;
    for (auto& p : pending_broadcasts_) {
      if (p.result < 0) continue;
      const DimExpr self = DimExpr::symbol(p.result);
      try {
        if (!(syms.resolve(self) == self)) {
          p.result = -1;  // determined otherwise
          continue;
        }
        std::optional<DimExpr> size, never1;
        bool agreed = true, never1_agreed = true;
        for (const auto& o : p.operands) {
          const DimExpr d = syms.resolve(o);
          if (d.is(1)) continue;
          if (!size) size = d;
          else if (!(*size == d)) agreed = false;
          if (ops::never_one(d)) {
            if (!never1) never1 = d;
            else if (!(*never1 == d)) never1_agreed = false;
          }
        }
        if (!size) size = DimExpr(1);  // every operand 1
        if (!agreed) {
          if (!never1 || !never1_agreed) continue;  // still open (or a model that cannot run)
          size = never1;
        }
        if (syms.unify(self, *size) == Unify::Merged) changed = true;
        p.result = -1;
      } catch (const Error&) {  // overflow or too large an expression: left as it is
        p.result = -1;
      }
    }
  }
}

inline std::int64_t InferContext::normalize_axis(std::int64_t axis, std::int64_t rank, std::string_view what) const {
  if (axis < -rank || axis >= rank)
    fail(std::string(what) + " " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  return axis < 0 ? axis + rank : axis;
}

inline void InferContext::warn(std::string message) const {
  engine_->diagnose(Severity::Warning, DiagnosticKind::Other, path(), node_, std::move(message));
}

inline std::vector<ValueInfoState> InferContext::infer_subgraph(std::string_view attr,
                                                                std::vector<ValueInfoState> inputs,
                                                                bool runs_with_node) {
  return engine_->infer_subgraph(*this, attr, std::move(inputs), runs_with_node);
}

inline std::vector<ValueInfoState> InferContext::probe_subgraph(std::string_view attr,
                                                                std::vector<ValueInfoState> inputs) {
  return engine_->infer_subgraph(*this, attr, std::move(inputs), false, false);
}
inline std::size_t InferContext::subgraph_input_count(std::string_view attr) const {
  auto a = this->attr(attr);
  if (!a || a->kind() != AttributeType::GRAPH) fail("missing graph attribute '" + std::string(attr) + "'");
  return a->as_graph().inputs.size();
}
inline std::size_t InferContext::subgraph_output_count(std::string_view attr) const {
  auto a = this->attr(attr);
  if (!a || a->kind() != AttributeType::GRAPH) fail("missing graph attribute '" + std::string(attr) + "'");
  return a->as_graph().outputs.size();
}
inline std::optional<std::size_t> InferContext::subgraph_input_rank(std::string_view attr, std::size_t i) const {
  auto a = this->attr(attr);
  if (!a || a->kind() != AttributeType::GRAPH) fail("missing graph attribute '" + std::string(attr) + "'");
  const auto& ins = a->as_graph().inputs;
  if (i >= ins.size() || !ins[i].type) return std::nullopt;
  const auto* t = ins[i].type->as_tensor();
  if (!t || !t->shape) return std::nullopt;
  return t->shape->dims.size();
}

}  // namespace oxir::infer
