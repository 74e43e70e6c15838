#pragma once
// fold_constants: replaces the integer shape computations that shape inference determined
// completely (Shape of static sizes, then Gather, Concat, Range, arithmetic, ...) and the nodes
// that compute a tensor from constants alone (Transpose of a weight, Cast of a Constant, ...;
// eval::evaluate) by Constant nodes, and the If nodes whose condition is constant by the branch
// they take, in the main graph and its subgraphs; then removes what they no longer need.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "../analysis/topo.hpp"
#include "../infer.hpp"
#include "../ir/model.hpp"
#include "../ir/views.hpp"
#include "builder.hpp"
#include "edit.hpp"
#include "evaluate.hpp"
#include "remove_unused.hpp"

namespace oxir {

struct FoldOptions {
  /// Afterwards, remove the nodes and initializers nothing reads any more (remove_unused: this
  /// also takes out what was dead before folding).
  bool remove_unused = true;
  /// Also evaluate the nodes whose inputs are all constants (initializers that are not graph
  /// inputs, Constant nodes, nodes folded before them) where eval::evaluate can: data movement,
  /// exact Cast, exact element-wise arithmetic.
  bool tensors = true;
  /// A node is evaluated only when each output holds at most max(this, its inputs' bytes):
  /// Expand, Tile and ConstantOfShape of constants are often cheaper left as they are.
  std::uint64_t max_tensor_bytes = std::uint64_t{1} << 20;
  /// Replace each If node (of any graph) whose condition is a constant by the nodes of the
  /// branch it takes (their values renamed apart, the branch's outputs becoming the If's
  /// outputs), then fold again what that exposes.
  bool branches = true;
};

struct FoldCounts {
  std::size_t nodes_folded = 0;  ///< nodes replaced by Constant nodes (or initializers)
  std::size_t constants = 0;     ///< values written (one per output of a folded node)
  std::size_t tensor_nodes = 0;  ///< of nodes_folded, those evaluated on constant tensors
  std::size_t branches = 0;      ///< If nodes replaced by the branch their constant condition takes
  RemovedCounts removed;         ///< what remove_unused took out afterwards
};

namespace detail {

/// The value of a default-domain Constant node (value, value_float(s), value_int(s)), or nullopt.
inline std::optional<Tensor> constant_node_value(const Node& n) {
  if (n.attributes.size() != 1 || n.outputs.size() != 1 || !n.inputs.empty()) return std::nullopt;
  const Attribute& a = n.attributes[0];
  if (!a.ref_attr_name.empty()) return std::nullopt;
  const std::string& o = n.outputs[0];
  if (a.name == "value" && a.kind() == AttributeType::TENSOR) {
    Tensor t = a.as_tensor();
    t.name = o;
    return t;
  }
  if (a.name == "value_float" && a.kind() == AttributeType::FLOAT)
    return Tensor::from_values<float>(o, {}, {a.as_float()});
  if (a.name == "value_floats" && a.kind() == AttributeType::FLOATS)
    return Tensor::from_values<float>(o, {static_cast<std::int64_t>(a.as_floats().size())},
                                      std::span<const float>(a.as_floats()));
  if (a.name == "value_int" && a.kind() == AttributeType::INT)
    return Tensor::from_values<std::int64_t>(o, {}, {a.as_int()});
  if (a.name == "value_ints" && a.kind() == AttributeType::INTS)
    return Tensor::from_values<std::int64_t>(o, {static_cast<std::int64_t>(a.as_ints().size())},
                                             std::span<const std::int64_t>(a.as_ints()));
  return std::nullopt;
}

/// The outputs of the main-graph nodes inference rejected (an error diagnostic at graph.node[K]
/// or inside it), and of every node reading one of them (directly or from a subgraph): inference
/// goes on past an invalid node with the value it would have had, so what depends on it must not
/// be folded either (folding it would let the invalid node go as unused, and an invalid model
/// run). nullopt when diagnostics were dropped or the graph has a cycle: the set is not known.
inline std::optional<std::unordered_set<std::string>> rejected_outputs(const Graph& g, const InferReport& report) {
  if (report.diagnostics_dropped > 0) return std::nullopt;
  std::unordered_set<std::string> out;
  for (const auto& d : report.diagnostics) {
    if (d.severity != infer::Severity::Error) continue;
    const auto k = place::node_index(d.where, "graph");
    if (!k || *k >= g.nodes.size()) continue;
    for (const auto& o : g.nodes[*k].outputs) out.insert(o);
  }
  if (out.empty()) return out;
  std::vector<std::size_t> order;
  try {
    order = topological_order(g);
  } catch (const Error&) {
    return std::nullopt;
  }
  for (std::size_t k : order) {
    const Node& n = g.nodes[k];
    bool tainted = false;
    for (const auto& i : n.inputs) tainted = tainted || (!i.empty() && out.contains(i));
    for (const auto& sub : views::subgraphs(n)) {
      if (tainted) break;
      for (const auto& c : captured_names(sub)) tainted = tainted || out.contains(c);
    }
    if (tainted)
      for (const auto& o : n.outputs)
        if (!o.empty()) out.insert(o);
  }
  return out;
}

/// A Constant node named `node_name` whose value is `t`, under the output name `t.name`.
inline Node constant_node(Tensor t, std::string node_name) {
  Node c("Constant", {}, {t.name}, std::move(node_name));
  c.attributes.emplace_back("value", std::move(t));
  return c;
}

/// The name of the Constant that takes output k of folded node `n` (of `outputs` named outputs):
/// a single output's keeps the node's name, several get unique ones after it.
inline std::string constant_name(const Node& n, std::size_t k, std::size_t outputs, Builder& names) {
  if (outputs == 1) return n.name;
  return names.fresh((n.name.empty() ? std::string("Constant") : n.name) + "_" + std::to_string(k));
}

/// Rounds of folding at most: an inlined branch may expose further folding and further Ifs.
inline constexpr int kMaxFoldRounds = 16;
/// Subgraph nesting beyond which folding leaves subgraphs as they are (inference infers none
/// deeper than infer::kMaxSubgraphDepth).
inline constexpr int kMaxFoldDepth = 200;

/// The nodes that replace If node `n` (of any graph), whose condition is the constant `cond`: the
/// nodes of the branch it takes, every value the branch defines renamed to a fresh name (the
/// value a branch output names takes the If's output name instead where it can; otherwise an
/// Identity passes it on), the branch's initializers appended to `inits` (IR 4 and later) or
/// made Constant nodes (opset 9 and later), its value_info entries to `value_info` (the If's
/// graph's). nullopt, with nothing changed, when the If is not
/// well formed enough to say (a condition of other than one bool, a missing or inputful branch,
/// output counts that differ, names defined twice, sparse initializers, a branch that reads
/// the If's own outputs or whose subgraphs define them, an Identity a value of unknown or
/// non-tensor type would need below opset 16).
inline std::optional<std::vector<Node>> inline_branch(const Node& n, const Tensor& cond, std::int64_t opset,
                                                      std::int64_t ir_version, Builder& names,
                                                      std::vector<Tensor>& inits, std::vector<ValueInfo>& value_info) {
  const auto c = eval::detail::dense(&cond);
  if (!c || c->type != DataType::BOOL || c->count != 1 || n.inputs.size() != 1 || n.attributes.size() != 2)
    return std::nullopt;
  const Attribute* then_a = n.find_attribute("then_branch");
  const Attribute* else_a = n.find_attribute("else_branch");
  for (const Attribute* a : {then_a, else_a})
    if (!a || !a->ref_attr_name.empty() || a->kind() != AttributeType::GRAPH ||
        !std::holds_alternative<Box<Graph>>(a->value) || !std::get<Box<Graph>>(a->value).has_value())
      return std::nullopt;
  Graph b = (c->bytes[0] != std::byte{0} ? then_a : else_a)->as_graph();
  if (!b.inputs.empty() || b.outputs.size() != n.outputs.size() || !b.sparse_initializers.empty()) return std::nullopt;
  if (!b.initializers.empty() && ir_version < 4 && opset < 9) return std::nullopt;
  std::unordered_set<std::string> if_outputs(n.outputs.begin(), n.outputs.end());
  for (const auto& name : captured_names(b))
    if (if_outputs.contains(name)) return std::nullopt;
  for (const auto& bn : b.nodes)
    for (const auto& sub : views::subgraphs(bn))
      for (const auto& d : views::defined_names(sub))
        if (if_outputs.contains(d)) return std::nullopt;
  // what the branch defines, each once; which node output a branch output can take the If's name
  std::unordered_map<std::string, int> defined;  // 0: initializer, 1: node output
  for (const auto& t : b.initializers)
    if (!defined.emplace(t.name, 0).second) return std::nullopt;
  for (const auto& bn : b.nodes)
    for (const auto& o : bn.outputs)
      if (!o.empty() && !defined.emplace(o, 1).second) return std::nullopt;
  std::unordered_map<std::string, std::string> rename;
  std::vector<bool> needs_identity(b.outputs.size(), true);
  for (std::size_t k = 0; k < b.outputs.size(); ++k) {
    const std::string& o = b.outputs[k].name;
    if (o.empty()) return std::nullopt;  // (a graph output must name a value)
    const auto d = defined.find(o);
    if (d != defined.end() && d->second == 1 && !rename.contains(o)) {
      rename.emplace(o, n.outputs[k]);
      needs_identity[k] = false;
    } else if (opset < 16) {
      // Identity takes sequences from 14 and optionals from 16: only a known tensor type is sure
      const Type* t = b.outputs[k].type ? &*b.outputs[k].type : nullptr;
      if (!t || !t->is_tensor()) return std::nullopt;
    }
  }
  for (const auto& [name, kind] : defined)
    if (!rename.contains(name)) rename.emplace(name, names.fresh(name));
  // (the If's output names are not defined inside the branch's subgraphs: checked above)
  (void)detail::rename_reads(b, rename, false, 0);
  std::vector<Node> out;
  for (auto& t : b.initializers) {
    t.name = rename.at(t.name);
    if (ir_version >= 4) {
      inits.push_back(std::move(t));
    } else {
      std::string name = names.fresh("Constant");
      out.push_back(constant_node(std::move(t), std::move(name)));
    }
  }
  for (auto& bn : b.nodes) {
    for (auto& o : bn.outputs)
      if (!o.empty()) o = rename.at(o);
    if (!bn.name.empty()) bn.name = names.fresh(bn.name);
    out.push_back(std::move(bn));
  }
  for (std::size_t k = 0; k < b.outputs.size(); ++k) {
    if (!needs_identity[k]) continue;
    const std::string& o = b.outputs[k].name;
    const auto r = rename.find(o);
    out.push_back(Node("Identity", {r != rename.end() ? r->second : o}, {n.outputs[k]}));
  }
  for (auto& v : b.value_info)  // (not for the If's outputs: the main graph may describe them already)
    if (const auto r = rename.find(v.name); r != rename.end() && !if_outputs.contains(r->second)) {
      v.name = r->second;
      value_info.push_back(std::move(v));
    }
  return out;
}

/// The constants a graph can read: its own (initializers that are not graph inputs, Constant
/// nodes, nodes folded before), then, for the names it does not define itself, those of the
/// graphs enclosing it.
struct ConstScope {
  std::unordered_map<std::string, Tensor> own;
  std::unordered_map<std::string, int> defined;  ///< how often this graph defines each name
  const ConstScope* parent = nullptr;

  [[nodiscard]] const Tensor* find(const std::string& name) const {
    for (const ConstScope* s = this; s; s = s->parent) {
      if (auto it = s->own.find(name); it != s->own.end()) return &it->second;
      if (s->defined.contains(name)) return nullptr;  // a value of that graph, not a constant
    }
    return nullptr;
  }
};

/// What one round of folding knows about the whole model.
struct FoldRound {
  std::int64_t opset = 0;
  std::int64_t ir_version = 0;
  const FoldOptions& options;
  FoldCounts& counts;
  Builder& names;
  /// Main-graph values computed by a node inference rejected, or from one (rejected_outputs).
  const std::unordered_set<std::string>& rejected;
  /// The contents inference determined, by graph (the model's own graphs, found by their place
  /// before anything changed: a subgraph keeps its address while its node moves, and fold_graph
  /// descends only into nodes that were there then).
  std::unordered_map<const Graph*, std::unordered_map<std::string_view, const infer::ConstantValue*>> known;
};

/// The model's graphs with their places as inference names them (Diagnostic::where).
inline void graph_places(Graph& g, const std::string& where, int depth,
                         std::unordered_map<std::string, Graph*>& out) {
  out.emplace(where, &g);
  if (depth >= kMaxFoldDepth) return;
  for (std::size_t k = 0; k < g.nodes.size(); ++k) {
    auto& attrs = g.nodes[k].attributes;
    for (std::size_t a = 0; a < attrs.size(); ++a)
      if (auto* b = std::get_if<Box<Graph>>(&attrs[a].value); b && b->has_value())
        graph_places(**b, place::subgraph(place::node(where, k), a), depth + 1, out);
  }
}

/// Folds graph `g` (the main graph when `parent` is null; else a subgraph, whose enclosing
/// graphs' constants `parent` holds): first the nodes whose outputs inference determined
/// completely, then the nodes of constant inputs eval::evaluate computes and the If nodes of
/// constant condition, descending into the subgraphs of the nodes that stay.
inline void fold_graph(FoldRound& r, Graph& g, const ConstScope* parent, int depth) {
  const bool main = parent == nullptr;
  const bool as_initializers = main && r.opset < 9;  // Constant-1 allows float, float16 and double only
  // Whether a node's outputs are each named (or, with `omitted`, may be omitted), defined once
  // and not computed by a rejected node. (A main-graph node inference rejected is known by its
  // outputs only: one without a named output is never folded nor descended into.)
  auto defined_once = [&](const ConstScope& scope, const Node& n, bool omitted) {
    bool ok = false;
    for (const auto& o : n.outputs) {
      if (o.empty()) {
        if (!omitted) return false;
        continue;
      }
      const auto d = scope.defined.find(o);
      if (d == scope.defined.end() || d->second != 1 || (main && r.rejected.contains(o))) return false;
      ok = true;
    }
    return ok;
  };
  // Names defined more than once (an invalid model) are never read as constants nor folded.
  ConstScope scope;
  scope.parent = parent;
  for (const auto& i : g.inputs) ++scope.defined[i.name];
  for (const auto& t : g.initializers) ++scope.defined[t.name];
  for (const auto& n : g.nodes)
    for (const auto& o : n.outputs)
      if (!o.empty()) ++scope.defined[o];

  // Phase one: the node outputs inference determined.
  if (const auto kit = r.known.find(&g); kit != r.known.end() && !kit->second.empty()) {
    const auto& known = kit->second;
    std::vector<Node> nodes;
    nodes.reserve(g.nodes.size());
    for (auto& n : g.nodes) {
      std::size_t outputs = 0;
      bool all_known = !(n.op_type == "Constant" && is_default_domain(n.domain)) && defined_once(scope, n, true);
      for (const auto& o : n.outputs) {
        if (o.empty()) continue;
        ++outputs;
        all_known = all_known && known.contains(o);
      }
      if (!all_known || outputs == 0) {
        nodes.push_back(std::move(n));
        continue;
      }
      ++r.counts.nodes_folded;
      for (std::size_t k = 0; k < n.outputs.size(); ++k) {
        const std::string& o = n.outputs[k];
        if (o.empty()) continue;
        const infer::ConstantValue& cv = *known.at(o);
        Tensor t;
        if (cv.elem_type == static_cast<std::int32_t>(DataType::INT32)) {
          std::vector<std::int32_t> v(cv.values.begin(), cv.values.end());  // in range: checked by inference
          t = Tensor::from_values<std::int32_t>(o, cv.dims, std::span<const std::int32_t>(v));
        } else {
          t = Tensor::from_values<std::int64_t>(o, cv.dims, std::span<const std::int64_t>(cv.values));
        }
        ++r.counts.constants;
        if (as_initializers) {
          g.initializers.push_back(std::move(t));
          continue;
        }
        std::string name = constant_name(n, k, outputs, r.names);
        nodes.push_back(constant_node(std::move(t), std::move(name)));
      }
    }
    g.nodes = std::move(nodes);
  }

  // Phase two: constant inputs, constant conditions; then the subgraphs of what stays.
  std::unordered_set<std::string_view> graph_inputs;
  for (const auto& i : g.inputs) graph_inputs.insert(i.name);
  for (const auto& t : g.initializers)
    if (scope.defined[t.name] == 1 && !graph_inputs.contains(t.name)) scope.own.emplace(t.name, t);  // shares the payload

  std::vector<Node> nodes;
  nodes.reserve(g.nodes.size());
  std::vector<Tensor> new_initializers;
  std::vector<const Tensor*> in;
  for (auto& n : g.nodes) {
    const bool default_domain = is_default_domain(n.domain);
    const bool outputs_ok = defined_once(scope, n, false);
    auto keep = [&] {
      nodes.push_back(std::move(n));
      Node& kept = nodes.back();
      // A main-graph node inference rejected, or one reading what such a node computes, has
      // its subgraphs left as they are (their diagnostics name it).
      // Only the default domain's subgraphs are known to run as graphs (If, Loop, Scan, ...).
      if (depth >= kMaxFoldDepth || (main && !outputs_ok) || !default_domain) return;
      for (auto& a : kept.attributes)
        if (auto* b = std::get_if<Box<Graph>>(&a.value); b && b->has_value()) fold_graph(r, **b, &scope, depth + 1);
    };
    if (!default_domain || !outputs_ok) {
      keep();
      continue;
    }
    if (n.op_type == "Constant") {
      if (auto t = constant_node_value(n); t && n.outputs.size() == 1) scope.own.emplace(n.outputs[0], std::move(*t));
      keep();
      continue;
    }
    if (n.op_type == "If") {
      std::optional<std::vector<Node>> branch;
      const Tensor* cond = n.inputs.size() == 1 ? scope.find(n.inputs[0]) : nullptr;
      if (r.options.branches && cond) {
        try {
          branch = inline_branch(n, *cond, r.opset, r.ir_version, r.names, new_initializers, g.value_info);
        } catch (const Error&) {  // a condition stored externally that cannot be read: left as it is
          branch.reset();
        }
      }
      if (!branch) {
        keep();
        continue;
      }
      ++r.counts.branches;
      for (auto& bn : *branch) nodes.push_back(std::move(bn));
      continue;
    }
    if (!r.options.tensors) {
      keep();
      continue;
    }
    in.clear();
    bool all_constant = true;
    for (const auto& i : n.inputs) {
      if (i.empty()) {
        in.push_back(nullptr);
        continue;
      }
      const Tensor* t = scope.find(i);
      if (!t) {
        all_constant = false;
        break;
      }
      in.push_back(t);
    }
    std::optional<std::vector<Tensor>> out;
    if (all_constant && !n.inputs.empty()) {
      try {
        out = eval::evaluate(n, in, r.opset, r.options.max_tensor_bytes);
      } catch (const Error&) {  // an external payload that cannot be read: left as it is
        out.reset();
      }
    }
    if (!out) {
      keep();
      continue;
    }
    ++r.counts.nodes_folded;
    ++r.counts.tensor_nodes;
    const std::size_t outputs = out->size();
    for (std::size_t k = 0; k < outputs; ++k) {
      Tensor t = std::move((*out)[k]);  // named after n.outputs[k]
      ++r.counts.constants;
      scope.own.insert_or_assign(t.name, t);
      if (as_initializers) {
        new_initializers.push_back(std::move(t));
        continue;
      }
      std::string name = constant_name(n, k, outputs, r.names);
      nodes.push_back(constant_node(std::move(t), std::move(name)));
    }
  }
  g.nodes = std::move(nodes);
  for (auto& t : new_initializers) g.initializers.push_back(std::move(t));
}

/// A copy of `model` (its tensors shared, not copied) for inference to prove facts on: only the
/// graph inputs' types (the subgraphs' too), the initializers and the operators are trusted.
/// value_info and declared output types, the subgraphs' included, are claims exporters get wrong
/// (torch 1.13 gives one symbol to output sizes that differ, which folded a dynamic batch size
/// into a trace-time constant), so they go.
inline Model inference_probe(const Model& model) {
  Model probe = model;
  probe.graph.value_info.clear();
  for (auto& o : probe.graph.outputs) o.type.reset();
  for (auto& n : views::all_nodes(probe.graph))
    for (auto& a : n.attributes)
      for (auto& sub : views::attribute_graphs(a)) {
        sub.value_info.clear();
        for (auto& o : sub.outputs) o.type.reset();
      }
  return probe;
}

/// One round of fold_constants: inference, then fold_graph over the main graph and (opset 9 and
/// later) its subgraphs. false when nothing was folded because the rejected nodes are not known.
inline bool fold_round(Model& model, std::int64_t opset, const FoldOptions& options, FoldCounts& counts,
                       Builder& names) {
  InferReport report;
  {
    Model probe = inference_probe(model);
    InferOptions io;
    io.report_constant_values = true;
    io.overwrite = true;  // nothing declared is a fact: subgraph input types neither
    report = infer_shapes(probe, io);
  }
  const std::optional<std::unordered_set<std::string>> rejected = rejected_outputs(model.graph, report);
  if (!rejected) return false;
  FoldRound r{opset, model.ir_version, options, counts, names, *rejected, {}};
  if (!report.constant_values.empty()) {
    std::unordered_map<std::string, Graph*> places;
    // Below opset 9 only the main graph is folded: its constants become initializers there.
    graph_places(model.graph, "graph", opset < 9 ? kMaxFoldDepth : 0, places);
    for (const auto& cv : report.constant_values)
      if (const auto p = places.find(cv.graph); p != places.end()) r.known[p->second].emplace(cv.name, &cv);
  }
  fold_graph(r, model.graph, nullptr, opset < 9 ? kMaxFoldDepth : 0);
  return true;
}

}  // namespace detail

/// Replaces every node of the main graph whose outputs are all int64 or int32 tensors of rank 0
/// or 1 with contents inference determined (InferOptions::report_constant_values) by one
/// Constant node per output, under the same output names, in the same place; a single-output
/// node's Constant keeps its node name. Then (FoldOptions::tensors) every node
/// whose inputs are all constants (initializers that are not graph inputs, Constant nodes, nodes
/// folded before it) and which eval::evaluate can compute exactly the same way as any conforming
/// runtime, likewise; and (FoldOptions::branches) every If whose condition is such a constant
/// is replaced by the nodes of the branch it takes (detail::inline_branch), after which the
/// whole is folded again (at most kMaxFoldRounds times). The subgraphs of the default domain's
/// nodes that stay (If branches, Loop and Scan bodies, at any depth) are folded the same way,
/// reading their enclosing graphs' constants too; a Loop body's values count as known only when
/// inference found them the same in every iteration. A node inference rejects is not folded
/// or inlined, nor is any node that reads what it computes, nor anything in their subgraphs.
/// Nothing is folded when that cannot be known: inference dropped diagnostics (over
/// its limits), or rejected a node of a graph with a cycle. Below opset 9, whose Constant
/// holds floating-point tensors only, the main graph's values become initializers of the same
/// names instead (IR 4 or later; an older model, whose initializers must also be graph inputs, is
/// left as it is) and subgraphs are left as they are. Runs inference on a copy without value_info
/// and output types, the subgraphs' too (exporters' claims, not facts), in overwrite mode (nor
/// are the subgraphs' declared input types): the model gets no value_info from it. Nothing
/// is folded in a model without a default-domain opset import. The contents are what the model
/// implies for every run in which it is valid (sizes that the model's own equalities fix count as
/// known).
inline FoldCounts fold_constants(Model& model, const FoldOptions& options = {}) {
  FoldCounts counts;
  const auto opset = model.opset_version("");
  if (!opset) return counts;
  if (*opset < 9 && model.ir_version < 4) return counts;  // Constant-1 holds float types only
  Builder names(model);  // unique names for the Constants of multi-output nodes, inlined values
  for (int round = 0; round < detail::kMaxFoldRounds; ++round) {
    const std::size_t inlined = counts.branches;
    if (!detail::fold_round(model, *opset, options, counts, names)) break;
    if (counts.branches == inlined) break;  // nothing new to fold
  }
  if (options.remove_unused) counts.removed = remove_unused(model);
  return counts;
}

}  // namespace oxir
