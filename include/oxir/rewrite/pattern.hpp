#pragma once
// Pattern rewriting: a Pattern is a small DAG of operators over pattern variables; apply_rewrites
// finds every place a graph (and its subgraphs) matches one, lets a callback build the
// replacement with a Builder, and splices it in, sweep after sweep until nothing matches.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "../analysis/use_def.hpp"
#include "../core/error.hpp"
#include "../ir/graph.hpp"
#include "../ir/model.hpp"
#include "../ir/views.hpp"
#include "builder.hpp"
#include "edit.hpp"

namespace oxir {

/// What a pattern operator requires of a node beyond its type and inputs.
struct PatternOp {
  std::string domain{};                         ///< "" = the default ONNX domain ("ai.onnx" too)
  std::string label{};                          ///< names the matched node for Match::node()
  std::function<bool(const Node&)> where{};     ///< extra condition (attributes, ...); empty = any
  /// The operator's two inputs may match in either order (Add, Mul, Max, Equal, And, ...):
  /// the pattern as written is tried first, then with these inputs swapped. Only for
  /// operators with exactly two inputs; at most kMaxCommutative per pattern.
  bool commutative = false;
};

/// True for the default-domain operators whose two inputs may be swapped without changing the
/// result (for the variadic Sum, Mean, Max and Min: when they have two inputs). Meant for
/// `PatternOp{.commutative = is_commutative(type)}`.
[[nodiscard]] inline bool is_commutative(std::string_view op_type) noexcept {
  constexpr std::string_view ops[] = {"Add", "Mul", "Sum", "Mean", "Max", "Min", "And", "Or", "Xor", "Equal",
                                      "BitwiseAnd", "BitwiseOr", "BitwiseXor"};
  for (auto o : ops)
    if (o == op_type) return true;
  return false;
}

/// A small DAG of operators whose leaves are variables. `any(name)` matches any present value
/// and binds it (a variable used twice must meet the same value twice); `op(type, inputs)`
/// matches a node of that type with exactly those inputs, and stands for its output 0 (`output`
/// picks another). The last op() made is the root unless root() says otherwise. An operator
/// made with `PatternOp{.commutative = true}` also matches with its two inputs swapped.
///
///   Pattern p;                                     // Neg(Neg(x)) -> x
///   auto x = p.any("x");
///   p.op("Neg", {p.op("Neg", {x})});
class Pattern {
 public:
  /// Most commutative operators in one pattern (each doubles the orders a match may try).
  static constexpr std::size_t kMaxCommutative = 8;

  /// A place in the pattern: a variable, or one output of a pattern operator.
  struct Ref {
    std::size_t id = 0;
  };

  Ref any(std::string name) {
    if (name.empty()) throw Error("pattern", "a variable needs a name");
    for (std::size_t i = 0; i < refs_.size(); ++i)
      if (refs_[i].op == kVariable && refs_[i].variable == name) return Ref{i};
    refs_.push_back({kVariable, 0, std::move(name)});
    return Ref{refs_.size() - 1};
  }
  Ref op(std::string op_type, std::vector<Ref> inputs, PatternOp options = {}) {
    if (op_type.empty()) throw Error("pattern", "an operator needs a type");
    for (const auto& r : inputs)
      if (r.id >= refs_.size()) throw Error("pattern", op_type + ": an input is not a place in this pattern");
    if (!options.label.empty())
      for (const auto& o : ops_)
        if (o.options.label == options.label) throw Error("pattern", "label '" + options.label + "' used twice");
    std::size_t swap_bit = kNoSwap;
    if (options.commutative) {
      if (inputs.size() != 2)
        throw Error("pattern", op_type + ": commutative needs exactly two inputs, not " + std::to_string(inputs.size()));
      if (commutative_ == kMaxCommutative)
        throw Error("pattern", op_type + ": more than " + std::to_string(kMaxCommutative) + " commutative operators");
      swap_bit = commutative_++;
    }
    ops_.push_back({std::move(op_type), std::move(inputs), std::move(options), swap_bit});
    refs_.push_back({ops_.size() - 1, 0, {}});
    root_ = ops_.size() - 1;
    return Ref{refs_.size() - 1};
  }
  /// Output `index` of the operator `op_ref` stands for.
  Ref output(Ref op_ref, std::size_t index) {
    if (op_ref.id >= refs_.size() || refs_[op_ref.id].op == kVariable)
      throw Error("pattern", "output(): not an operator of this pattern");
    refs_.push_back({refs_[op_ref.id].op, index, {}});
    return Ref{refs_.size() - 1};
  }
  /// Makes the operator `op_ref` stands for the root (the node whose outputs get replaced).
  void root(Ref op_ref) {
    if (op_ref.id >= refs_.size() || refs_[op_ref.id].op == kVariable)
      throw Error("pattern", "root(): not an operator of this pattern");
    root_ = refs_[op_ref.id].op;
  }
  [[nodiscard]] bool empty() const noexcept { return ops_.empty(); }

 private:
  friend class PatternMatcher;
  static constexpr std::size_t kVariable = static_cast<std::size_t>(-1);
  static constexpr std::size_t kNoSwap = static_cast<std::size_t>(-1);
  struct RefData {
    std::size_t op;  // index into ops_, or kVariable
    std::size_t slot;
    std::string variable;
  };
  struct OpData {
    std::string op_type;
    std::vector<Ref> inputs;
    PatternOp options;
    std::size_t swap_bit;  // kNoSwap, or this commutative operator's bit in a match's swap mask
  };
  std::vector<RefData> refs_;
  std::vector<OpData> ops_;
  std::size_t root_ = 0;
  std::size_t commutative_ = 0;
};

/// One place a pattern matched, handed to the rule's replace callback.
class Match {
 public:
  /// The value bound to variable `name`, as a Value of the replacement's builder.
  [[nodiscard]] Value operator[](std::string_view name) const { return builder_->value(bound(name)); }
  /// The name of the value bound to variable `name`.
  [[nodiscard]] const std::string& bound(std::string_view name) const {
    for (const auto& [k, v] : bindings_)
      if (k == name) return v;
    throw Error("match", "no variable '" + std::string(name) + "' in the pattern");
  }
  /// The node matched by the pattern operator labelled `label`.
  [[nodiscard]] const Node& node(std::string_view label) const {
    for (const auto& [k, i] : labelled_)
      if (k == label) return graph_->nodes[i];
    throw Error("match", "no operator labelled '" + std::string(label) + "' in the pattern");
  }
  /// The matched root node (whose outputs the replacement gives).
  [[nodiscard]] const Node& root() const { return graph_->nodes[root_]; }
  /// The graph matched in (read-only: the replacement is built with builder()).
  [[nodiscard]] const Graph& graph() const { return *graph_; }
  /// Builds the replacement; fresh names are unique in the model. Nodes made here are put where
  /// the root was, so they should read bound values, constants made here, or values defined
  /// before the matched nodes.
  [[nodiscard]] Builder& builder() const { return *builder_; }

 private:
  friend class PatternMatcher;
  const Graph* graph_ = nullptr;
  Builder* builder_ = nullptr;
  std::size_t root_ = 0;
  std::vector<std::pair<std::string, std::string>> bindings_;
  std::vector<std::pair<std::string, std::size_t>> labelled_;
};

/// A rewrite: where `pattern` matches, `replace` returns the values that take the place of the
/// root's outputs, one per output (an absent Value only for an output nothing reads), or nullopt
/// to leave this match alone (a condition the pattern cannot say).
struct RewriteRule {
  std::string name;
  Pattern pattern;
  std::function<std::optional<std::vector<Value>>(const Match&)> replace;
};

struct RewriteOptions {
  /// Sweeps over one graph before giving up on reaching a fixed point (each sweep rewrites every
  /// match that does not overlap an earlier one of the same sweep).
  std::size_t max_sweeps = 64;
  /// Also rewrite inside subgraphs (If branches, Loop and Scan bodies), innermost first.
  bool subgraphs = true;
};

struct RewriteResult {
  std::size_t rewrites = 0;             ///< matches replaced, all rules and graphs
  std::vector<std::size_t> per_rule;    ///< by rule index
  std::size_t nodes_removed = 0;
  std::size_t nodes_added = 0;
  bool converged = true;                ///< false if some graph was still changing in its last allowed sweep
};

// Internals of apply_rewrites; not a public interface.
class PatternMatcher {
 public:
  // `names` reserves every name of the model; the replacements' builders share its name set.
  PatternMatcher(std::span<const RewriteRule> rules, const RewriteOptions& options,
                 std::vector<OperatorSetId>* opsets, const Builder& names)
      : rules_(rules), options_(options), opsets_(opsets), shared_(names.shared_) {
    result_.per_rule.assign(rules.size(), 0);
    for (std::size_t i = 0; i < rules.size(); ++i) {
      if (rules[i].pattern.empty()) throw Error("rule '" + rules[i].name + "'", "the pattern has no operator");
      if (!rules[i].replace) throw Error("rule '" + rules[i].name + "'", "no replace callback");
    }
  }

  void run(Graph& g, const std::string& path, int depth) {
    if (depth > detail::kMaxEditDepth) throw Error(path, "subgraphs nested too deep to rewrite");
    if (options_.subgraphs)
      for (std::size_t i = 0; i < g.nodes.size(); ++i)
        for (std::size_t a = 0; a < g.nodes[i].attributes.size(); ++a) {
          auto graphs = views::attribute_graphs(g.nodes[i].attributes[a]);
          for (std::size_t k = 0; k < graphs.size(); ++k)
            run(graphs[k], path + ".node[" + std::to_string(i) + "].attribute[" + std::to_string(a) + "]" +
                               (graphs.size() > 1 ? ".graphs[" + std::to_string(k) + "]" : ".g"),
                depth + 1);
        }
    for (std::size_t sweep = 0;; ++sweep) {
      if (sweep == options_.max_sweeps) {
        result_.converged = false;
        return;
      }
      if (!sweep_once(g, path)) return;
    }
  }

  RewriteResult result_;

 private:
  struct Planned {
    std::size_t root;
    std::vector<std::size_t> removed;   // matched node indices
    std::vector<Node> nodes;            // the replacement, put where the root was
    std::vector<std::pair<std::string, std::string>> rewires;  // reads of first now read second
    std::vector<std::string> read_by_subgraph;                 // rewired values a subgraph reads
  };

  struct State {
    const Graph* g;
    const UseDef* ud;
    const Pattern* p;
    std::vector<std::size_t> matched;                 // by pattern op: graph node index or npos
    std::vector<std::pair<std::string, std::string>> bindings;
    const std::vector<char>* taken;                   // graph nodes already in a planned rewrite
    std::size_t swaps;                                // bit k set: commutative op k matches swapped
    std::size_t read = 0;                             // the bits of `swaps` the match looked at
  };
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);

  static bool same_domain(std::string_view a, std::string_view b) {
    return is_default_domain(a) ? is_default_domain(b) : a == b;
  }

  static bool match_ref(State& s, Pattern::Ref ref, const std::string& value) {
    const auto& r = s.p->refs_[ref.id];
    if (value.empty()) return false;
    if (r.op == Pattern::kVariable) {
      for (const auto& [k, v] : s.bindings)
        if (k == r.variable) return v == value;
      s.bindings.emplace_back(r.variable, value);
      return true;
    }
    const auto def = s.ud->definition(value);
    if (!def || def->kind != ValueDefinition::Kind::NodeOutput || def->slot != r.slot) return false;
    return match_op(s, r.op, def->index);
  }

  static bool match_op(State& s, std::size_t op, std::size_t node_index) {
    if (s.matched[op] != npos) return s.matched[op] == node_index;
    for (std::size_t k = 0; k < s.matched.size(); ++k)
      if (s.matched[k] == node_index) return false;  // one node, one pattern operator
    if ((*s.taken)[node_index]) return false;
    const auto& po = s.p->ops_[op];
    const Node& n = s.g->nodes[node_index];
    if (n.op_type != po.op_type || !same_domain(n.domain, po.options.domain)) return false;
    if (n.inputs.size() != po.inputs.size()) return false;
    if (po.options.where && !po.options.where(n)) return false;
    s.matched[op] = node_index;
    if (po.swap_bit != Pattern::kNoSwap) s.read |= std::size_t{1} << po.swap_bit;
    const bool swapped = po.swap_bit != Pattern::kNoSwap && ((s.swaps >> po.swap_bit) & 1U) != 0;
    for (std::size_t i = 0; i < po.inputs.size(); ++i)
      if (!match_ref(s, po.inputs[swapped ? 1 - i : i], n.inputs[i])) return false;
    return true;
  }

  // Every output of a matched node other than the root is read only by matched nodes, and no
  // variable is bound to one (Add(Mul(x, y), z) on Add(m, m) binds z to m, which goes with the
  // Mul: a replacement reading z would read a removed value).
  static bool interior_is_private(const State& s) {
    for (std::size_t op = 0; op < s.matched.size(); ++op) {
      if (op == s.p->root_) continue;
      for (const auto& out : s.g->nodes[s.matched[op]].outputs) {
        if (out.empty()) continue;
        for (const auto& b : s.bindings)
          if (b.second == out) return false;
        for (const auto& use : s.ud->uses(out)) {
          if (use.kind != ValueUse::Kind::NodeInput) return false;
          if (std::find(s.matched.begin(), s.matched.end(), use.index) == s.matched.end()) return false;
        }
      }
    }
    return true;
  }

  bool sweep_once(Graph& g, const std::string& path) {
    const UseDef ud(g);
    std::vector<char> taken(g.nodes.size(), 0);
    std::vector<Planned> plans;
    for (std::size_t r = 0; r < g.nodes.size(); ++r) {
      if (taken[r]) continue;
      for (std::size_t ri = 0; ri < rules_.size(); ++ri) {
        const RewriteRule& rule = rules_[ri];
        const Pattern& p = rule.pattern;
        if (g.nodes[r].op_type != p.ops_[p.root_].op_type) continue;
        // Every order of the commutative operators' inputs, as written first. The first order
        // that matches and whose callback accepts is applied. Matching is deterministic given
        // the swap bits it reads: an order that agrees with a failed one on those is skipped,
        // and so is a match (nodes and bindings) already offered under another order.
        std::optional<Planned> plan;
        std::vector<std::pair<std::size_t, std::size_t>> failed;  // (swaps, bits read)
        std::vector<std::pair<std::vector<std::size_t>, std::vector<std::pair<std::string, std::string>>>> offered;
        for (std::size_t swaps = 0; swaps < (std::size_t{1} << p.commutative_) && !plan; ++swaps) {
          if (std::any_of(failed.begin(), failed.end(),
                          [&](const auto& f) { return ((f.first ^ swaps) & f.second) == 0; }))
            continue;
          State s{&g, &ud, &p, std::vector<std::size_t>(p.ops_.size(), npos), {}, &taken, swaps};
          if (!match_op(s, p.root_, r) ||
              std::find(s.matched.begin(), s.matched.end(), npos) != s.matched.end() ||  // unreachable op
              !interior_is_private(s)) {
            failed.emplace_back(swaps, s.read);
            continue;
          }
          if (p.commutative_ != 0) {
            auto key = std::make_pair(s.matched, s.bindings);
            std::sort(key.second.begin(), key.second.end());
            if (std::find(offered.begin(), offered.end(), key) != offered.end()) continue;
            offered.push_back(std::move(key));
          }
          plan = build(g, ud, s, rule, path + ".node[" + std::to_string(r) + "]");
        }
        if (!plan) continue;
        for (auto i : plan->removed) taken[i] = 1;
        ++result_.per_rule[ri];
        ++result_.rewrites;
        plans.push_back(std::move(*plan));
        break;
      }
    }
    if (plans.empty()) return false;
    splice(g, plans);
    return true;
  }

  std::optional<Planned> build(const Graph& g, const UseDef& ud, const State& s, const RewriteRule& rule,
                               const std::string& where) {
    Graph scratch;
    Builder b(&scratch, nullptr, opsets_, nullptr, where, shared_);
    Match m;
    m.graph_ = &g;
    m.builder_ = &b;
    m.root_ = s.matched[s.p->root_];
    m.bindings_ = s.bindings;
    for (std::size_t op = 0; op < s.matched.size(); ++op)
      if (!s.p->ops_[op].options.label.empty()) m.labelled_.emplace_back(s.p->ops_[op].options.label, s.matched[op]);
    auto values = rule.replace(m);
    if (!values) return std::nullopt;
    const Node& root = g.nodes[m.root_];
    const std::string rule_where = "rule '" + rule.name + "' at " + where;
    if (values->size() != root.outputs.size())
      throw Error(rule_where, "the replacement gives " + std::to_string(values->size()) + " values for " +
                                  std::to_string(root.outputs.size()) + " outputs of " + root.op_type);
    if (!scratch.inputs.empty() || !scratch.outputs.empty() || !scratch.sparse_initializers.empty())
      throw Error(rule_where, "a replacement may add nodes, initializers and value_info only");

    Planned plan;
    plan.root = m.root_;
    plan.removed = s.matched;
    std::sort(plan.removed.begin(), plan.removed.end());
    std::unordered_map<std::string, std::string> renamed;  // scratch output -> root output taking its place
    for (std::size_t k = 0; k < values->size(); ++k) {
      const std::string& out = root.outputs[k];
      const Value& v = (*values)[k];
      if (out.empty()) continue;
      if (!v) {
        if (!ud.uses(out).empty())
          throw Error(rule_where, "no replacement for output " + std::to_string(k) + " '" + out + "', which is read");
        continue;
      }
      const std::string& name = v.name();
      bool made_here = false;
      for (const auto& n : scratch.nodes)
        if (std::find(n.outputs.begin(), n.outputs.end(), name) != n.outputs.end()) made_here = true;
      if (!made_here)
        for (auto i : plan.removed)
          if (std::find(g.nodes[i].outputs.begin(), g.nodes[i].outputs.end(), name) != g.nodes[i].outputs.end())
            throw Error(rule_where, "output " + std::to_string(k) + " is replaced by '" + name +
                                        "', which a matched node produces and which goes with it");
      if (made_here && !renamed.contains(name)) {
        renamed.emplace(name, out);  // the new node produces the old name: readers stay as they are
      } else if (made_here || ud.is_graph_output(out)) {
        // A second output given the same new value, or a graph output (which keeps its name):
        // pass the value through an Identity.
        Node id("Identity", {renamed.contains(name) ? renamed.at(name) : name}, {out}, b.fresh("Identity"));
        scratch.nodes.push_back(std::move(id));
      } else {
        plan.rewires.emplace_back(out, name);
        const auto uses = ud.uses(out);
        if (std::any_of(uses.begin(), uses.end(), [](const ValueUse& u) { return u.kind == ValueUse::Kind::Subgraph; }))
          plan.read_by_subgraph.push_back(out);
      }
    }
    for (auto& n : scratch.nodes) {
      for (auto& o : n.outputs)
        if (auto it = renamed.find(o); it != renamed.end()) o = it->second;
      for (auto& in : n.inputs)
        if (auto it = renamed.find(in); it != renamed.end()) in = it->second;
    }
    plan.nodes = std::move(scratch.nodes);
    pending_initializers_.insert(pending_initializers_.end(), std::make_move_iterator(scratch.initializers.begin()),
                                 std::make_move_iterator(scratch.initializers.end()));
    pending_value_info_.insert(pending_value_info_.end(), std::make_move_iterator(scratch.value_info.begin()),
                               std::make_move_iterator(scratch.value_info.end()));
    return plan;
  }

  void splice(Graph& g, std::vector<Planned>& plans) {
    std::vector<char> removed(g.nodes.size(), 0);
    std::vector<std::size_t> plan_at(g.nodes.size(), npos);
    std::unordered_set<std::string> dead;  // interior values of removed nodes
    for (std::size_t i = 0; i < plans.size(); ++i) {
      plan_at[plans[i].root] = i;
      for (auto k : plans[i].removed) {
        removed[k] = 1;
        if (k != plans[i].root)
          for (const auto& o : g.nodes[k].outputs) dead.insert(o);
      }
    }
    std::vector<Node> nodes;
    nodes.reserve(g.nodes.size());
    for (std::size_t i = 0; i < g.nodes.size(); ++i) {
      if (plan_at[i] != npos) {
        auto& add = plans[plan_at[i]].nodes;
        result_.nodes_added += add.size();
        nodes.insert(nodes.end(), std::make_move_iterator(add.begin()), std::make_move_iterator(add.end()));
      }
      if (removed[i])
        ++result_.nodes_removed;
      else
        nodes.push_back(std::move(g.nodes[i]));
    }
    g.nodes = std::move(nodes);
    for (auto& t : pending_initializers_) g.initializers.push_back(std::move(t));
    pending_initializers_.clear();
    for (auto& v : pending_value_info_) g.value_info.push_back(std::move(v));
    pending_value_info_.clear();
    // Rewires of one sweep may chain (a later match replaced by a value an earlier one rewires):
    // send every read straight to the final value.
    std::unordered_map<std::string, std::string> rewire;
    for (const auto& plan : plans)
      for (const auto& [from, to] : plan.rewires) rewire.emplace(from, to);
    for (auto& [from, to] : rewire) {
      std::size_t steps = 0;
      for (auto it = rewire.find(to); it != rewire.end(); it = rewire.find(to)) {
        if (++steps > rewire.size()) throw Error("rewrite", "replacements form a cycle through '" + from + "'");
        to = it->second;
      }
    }
    // One pass over this graph's node inputs for all rewires; the careful per-name edit (which
    // respects names a subgraph defines itself) only for values a subgraph reads.
    if (!rewire.empty()) {
      for (auto& n : g.nodes)
        for (auto& in : n.inputs)
          if (auto it = rewire.find(in); it != rewire.end()) in = it->second;
      for (const auto& plan : plans)
        for (const auto& from : plan.read_by_subgraph) replace_all_uses_with(g, from, rewire.at(from));
      for (const auto& [from, to] : rewire) dead.insert(from);
    }
    dead.erase(std::string());
    std::erase_if(g.value_info, [&](const ValueInfo& v) { return dead.contains(v.name); });
  }

  std::span<const RewriteRule> rules_;
  RewriteOptions options_;
  std::vector<OperatorSetId>* opsets_;
  std::shared_ptr<Builder::Shared> shared_;
  std::vector<Tensor> pending_initializers_;
  std::vector<ValueInfo> pending_value_info_;
};

/// Applies `rules` to `model`'s main graph (and its subgraphs) until no pattern matches, or
/// `max_sweeps` sweeps per graph. At each node, in graph order, the first rule that matches and
/// whose callback accepts is applied; matched nodes are removed and the replacement is put where
/// the root was. A match needs every value the pattern's non-root nodes produce to be read only
/// by matched nodes (no graph output, no subgraph read). The root's outputs keep their names:
/// a new node producing a replacement is given the root output's name, and a replacement that
/// is an existing value is read in its place (through an Identity if the output is a graph
/// output). value_info of removed values is dropped. Replacement operators must be imported.
inline RewriteResult apply_rewrites(Model& model, std::span<const RewriteRule> rules, const RewriteOptions& options = {}) {
  Builder names(model);  // reserves every name of the model
  PatternMatcher m(rules, options, &model.opset_imports, names);
  m.run(model.graph, "graph", 0);
  return std::move(m.result_);
}
/// apply_rewrites on a bare graph: no opset check for the replacements.
inline RewriteResult apply_rewrites(Graph& graph, std::span<const RewriteRule> rules, const RewriteOptions& options = {}) {
  Builder names(graph);
  PatternMatcher m(rules, options, nullptr, names);
  m.run(graph, "graph", 0);
  return std::move(m.result_);
}

}  // namespace oxir
