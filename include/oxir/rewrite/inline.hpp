#pragma once
// inline_functions: replaces the calls of model-local functions (FunctionProto) by copies of the
// functions' bodies, with the call's inputs, outputs and attributes bound and every other name
// made fresh, so tools that do not know functions (or passes that look across them) see plain
// operators.

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "../core/error.hpp"
#include "../ir/function.hpp"
#include "../ir/graph.hpp"
#include "../ir/model.hpp"
#include "../ir/views.hpp"
#include "builder.hpp"
#include "edit.hpp"

namespace oxir {

struct InlineOptions {
  /// Which functions to inline; empty = every model-local function.
  std::function<bool(const Function&)> select{};
  /// Afterwards, remove the selected functions nothing calls any more (a function an unselected
  /// one still calls stays).
  bool remove_inlined = true;
  /// Most nodes inlining may add in all. Calls nested in calls multiply (a function calling
  /// another twice, 30 levels deep, is 2^30 nodes): past this the call is an oxir::Error.
  std::size_t max_added_nodes = std::size_t{1} << 22;
};

struct InlineCounts {
  std::size_t calls = 0;              ///< call nodes replaced, nested calls included
  /// Nodes that took the calls' places, in all graphs, Identity nodes included: the nodes after,
  /// minus the nodes before, plus the calls.
  std::size_t nodes_added = 0;
  std::size_t functions_removed = 0;
  friend bool operator==(const InlineCounts&, const InlineCounts&) = default;
};

namespace detail {

/// Function calls nested beyond this are taken for recursion.
inline constexpr int kMaxInlineCallDepth = 64;

class Inliner {
 public:
  Inliner(Model& model, const InlineOptions& options) : model_(model), options_(options), names_(model) {
    // The Builder reserves the main graph's names; the training graphs' are kept apart.
    for (const auto& t : model.training_info)
      for (const Graph* g : {&t.initialization, &t.algorithm}) {
        for (const auto& d : views::defined_names(*g)) training_names_.emplace(d);
        for (const auto& n : views::all_nodes(*g)) {
          training_names_.insert(n.name);
          for (const auto& o : n.outputs) training_names_.insert(o);
        }
      }
    for (const auto& f : model.functions)
      if (!options.select || options.select(f)) selected_.try_emplace(key(f.domain, f.name, f.overload), &f);
  }

  [[nodiscard]] bool anything_selected() const noexcept { return !selected_.empty(); }

  /// Refuses at once what expanding would refuse only after building max_added_nodes nodes:
  /// calls nested in calls multiply (30 functions each calling the next twice are 2^30 nodes, a
  /// file of 2 KB). The count is a lower bound of what expanding charges (the bodies' top-level
  /// nodes, without the Identity nodes), so whatever it refuses expanding would refuse too.
  void check_size(const Model& model) {
    const std::size_t cap = options_.max_added_nodes;
    std::size_t total = expansion(model.graph.nodes, cap, 0);
    for (const auto& t : model.training_info) {
      total = saturating_add(total, expansion(t.initialization.nodes, cap, 0), cap);
      total = saturating_add(total, expansion(t.algorithm.nodes, cap, 0), cap);
    }
    if (total > cap)
      throw Error("graph", "inlining would add more than " + std::to_string(cap) +
                               " nodes (InlineOptions::max_added_nodes): calls nested in calls multiply");
  }

  // Inlines every selected call in `g` and its subgraphs; `call_depth` counts the calls whose
  // bodies `g`'s nodes came from.
  void expand_graph(Graph& g, const std::string& path, int depth, int call_depth) {
    if (depth > kMaxEditDepth) throw Error(path, "subgraphs nested too deep to inline functions in");
    std::vector<Node> out;
    bool changed = false;
    std::optional<std::unordered_set<std::string>> described;  // names g has value_info for, once needed
    for (std::size_t i = 0; i < g.nodes.size(); ++i) {
      Node& n = g.nodes[i];
      const std::string np = path + ".node[" + std::to_string(i) + "]";
      for (std::size_t a = 0; a < n.attributes.size(); ++a) {
        auto graphs = views::attribute_graphs(n.attributes[a]);
        for (std::size_t k = 0; k < graphs.size(); ++k)
          expand_graph(graphs[k], np + ".attribute[" + std::to_string(a) + "]" +
                                      (graphs.size() > 1 ? ".graphs[" + std::to_string(k) + "]" : ".g"),
                       depth + 1, call_depth);
      }
      const auto it = selected_.find(key(n.domain, n.op_type, n.overload));
      if (it == selected_.end()) {
        if (changed) out.push_back(std::move(n));
        continue;
      }
      if (!changed) {
        out.reserve(g.nodes.size());
        for (std::size_t k = 0; k < i; ++k) out.push_back(std::move(g.nodes[k]));
        changed = true;
      }
      Graph body = instantiate(*it->second, n, np, depth, call_depth);
      if (!body.value_info.empty() && !described) {
        described.emplace();
        for (const auto& v : g.value_info) described->insert(v.name);
      }
      for (auto& v : body.value_info)
        if (described->insert(v.name).second) g.value_info.push_back(std::move(v));
      for (auto& bn : body.nodes) out.push_back(std::move(bn));
    }
    if (changed) g.nodes = std::move(out);
  }

  // Removes the selected functions that neither the graphs nor the functions kept call.
  std::size_t remove_uncalled() {
    std::unordered_set<std::string> called;
    std::vector<const Function*> todo;
    auto scan = [&](const Graph& g) {
      for (const auto& n : views::all_nodes(g)) {
        std::string k = key(n.domain, n.op_type, n.overload);
        if (called.contains(k)) continue;
        if (auto it = selected_.find(k); it != selected_.end()) {
          called.insert(std::move(k));
          todo.push_back(it->second);
        }
      }
    };
    auto scan_body = [&](const Function& f) {
      Graph body;  // a view of the body as a graph, for all_nodes
      body.nodes = f.nodes;
      scan(body);
    };
    scan(model_.graph);
    for (const auto& t : model_.training_info) {
      scan(t.initialization);
      scan(t.algorithm);
    }
    for (const auto& f : model_.functions) {
      const auto it = selected_.find(key(f.domain, f.name, f.overload));
      if (it == selected_.end() || it->second != &f) scan_body(f);  // kept (or a duplicate, never called)
    }
    while (!todo.empty()) {
      const Function* f = todo.back();
      todo.pop_back();
      scan_body(*f);
    }
    const std::size_t before = model_.functions.size();
    std::vector<Function> kept;
    for (auto& f : model_.functions) {
      const std::string k = key(f.domain, f.name, f.overload);
      const auto it = selected_.find(k);
      if (it != selected_.end() && it->second == &f && !called.contains(k)) continue;
      kept.push_back(std::move(f));
    }
    model_.functions = std::move(kept);
    selected_.clear();  // the pointers are gone
    imports_merged_.clear();
    return before - model_.functions.size();
  }

  InlineCounts counts;

 private:
  using NameMap = std::unordered_map<std::string, std::string>;

  static std::string key(std::string_view domain, std::string_view name, std::string_view overload) {
    std::string k(domain_key(domain));
    k += '\0';
    k += name;
    k += '\0';
    k += overload;
    return k;
  }

  // The body of `fn` for the call `call`, its nested calls inlined too: nodes to put where the
  // call was, and value_info for the values they define.
  Graph instantiate(const Function& fn, const Node& call, const std::string& path, int depth, int call_depth) {
    const std::string where = path + " (" + fn.domain + "::" + fn.name + ")";
    if (call_depth >= kMaxInlineCallDepth)
      throw Error(where, "function calls nested deeper than " + std::to_string(kMaxInlineCallDepth) +
                             " (a function that calls itself?)");
    if (call.inputs.size() > fn.inputs.size())
      throw Error(where, "the call gives " + std::to_string(call.inputs.size()) + " inputs, the function takes " +
                             std::to_string(fn.inputs.size()));
    if (call.outputs.size() > fn.outputs.size())
      throw Error(where, "the call has " + std::to_string(call.outputs.size()) + " outputs, the function " +
                             std::to_string(fn.outputs.size()));
    import_opsets(fn, where);
    const std::string prefix = (call.name.empty() ? fn.name : call.name) + "/";

    NameMap map;  // body name -> graph name
    std::unordered_set<std::string> inputs;
    for (std::size_t i = 0; i < fn.inputs.size(); ++i) {
      map.try_emplace(fn.inputs[i], i < call.inputs.size() ? call.inputs[i] : std::string());
      inputs.insert(fn.inputs[i]);
    }
    // A body value that is the function's output j takes the call's output name (the first such
    // output; further ones, and outputs that are function inputs, get an Identity).
    std::unordered_set<std::string> produced;
    for (const auto& n : fn.nodes)
      for (const auto& o : n.outputs)
        if (!o.empty()) produced.insert(o);
    NameMap takes_name;
    std::vector<std::pair<std::string, std::string>> identities;  // (body value, call output)
    for (std::size_t j = 0; j < fn.outputs.size(); ++j) {
      const std::string& v = fn.outputs[j];
      const std::string target = j < call.outputs.size() ? call.outputs[j] : std::string();
      if (!produced.contains(v) && !inputs.contains(v))
        throw Error(where, "function output " + std::to_string(j) + " '" + v + "' is not defined in the body");
      if (target.empty()) continue;
      if (produced.contains(v) && takes_name.try_emplace(v, target).second) continue;
      identities.emplace_back(v, target);
    }

    Graph body;
    body.nodes.reserve(fn.nodes.size() + identities.size());
    charge(fn.nodes.size() + identities.size(), where);
    for (std::size_t k = 0; k < fn.nodes.size(); ++k) {
      const std::string bp = where + ".node[" + std::to_string(k) + "]";
      Node n = fn.nodes[k];
      bind_references(n, fn, call, bp, 0);
      for (auto& in : n.inputs) {
        if (in.empty()) continue;
        const auto it = map.find(in);
        if (it == map.end())
          throw Error(bp, "reads '" + in + "', which is neither an input of the function nor an output of an earlier node");
        in = it->second;
      }
      for (std::size_t a = 0; a < n.attributes.size(); ++a) {
        auto graphs = views::attribute_graphs(n.attributes[a]);
        for (std::size_t g = 0; g < graphs.size(); ++g)
          rename_subgraph(graphs[g], map, prefix, bp + ".attribute[" + std::to_string(a) + "]", depth + 1);
      }
      for (auto& o : n.outputs) {
        if (o.empty()) continue;
        std::string renamed;
        if (auto it = takes_name.find(o); it != takes_name.end() && !it->second.empty()) {
          renamed = std::exchange(it->second, std::string());  // a second definition gets a fresh name
        } else {
          renamed = fresh(prefix + o);
        }
        map[o] = renamed;
        o = std::move(renamed);
      }
      n.name = fresh(prefix + (n.name.empty() ? n.op_type : n.name));
      body.nodes.push_back(std::move(n));
    }
    for (const auto& [v, target] : identities) {
      const std::string& from = map.at(v);
      if (from.empty())
        throw Error(where, "output '" + target + "' is the function input '" + v + "', which the call leaves out");
      body.nodes.emplace_back("Identity", std::vector<std::string>{from}, std::vector<std::string>{target},
                              fresh(prefix + "Identity"));
    }
    for (const auto& vi : fn.value_info)
      if (produced.contains(vi.name)) {
        ValueInfo r = vi;
        r.name = map.at(vi.name);
        body.value_info.push_back(std::move(r));
      }
    ++counts.calls;
    // Calls in the body (at the top or in its subgraphs) are inlined in turn.
    expand_graph(body, where, depth, call_depth + 1);
    return body;
  }

  std::string fresh(const std::string& base) {
    for (;;) {
      std::string name = names_.fresh(base);
      if (!training_names_.contains(name)) return name;
    }
  }

  void charge(std::size_t nodes, const std::string& where) {
    added_ += nodes;
    if (added_ > options_.max_added_nodes)
      throw Error(where, "inlining would add more than " + std::to_string(options_.max_added_nodes) +
                             " nodes (InlineOptions::max_added_nodes)");
  }

  // The function's imports must agree with the model's; the ones the model lacks are added.
  // Each function once; the model's imports are indexed (a file may list many).
  void import_opsets(const Function& fn, const std::string& where) {
    if (imports_merged_.contains(&fn)) return;
    if (model_opsets_.empty())
      for (const auto& o : model_.opset_imports)
        model_opsets_.try_emplace(std::string(domain_key(o.domain)), o.version);
    for (const auto& o : fn.opset_imports) {
      const auto known = model_opsets_.find(std::string(domain_key(o.domain)));
      if (known != model_opsets_.end()) {
        const std::int64_t have = known->second;
        if (have != o.version)
          throw Error(where, "the function imports " + (o.domain.empty() ? std::string("the default domain") : "'" + o.domain + "'") +
                                 " at version " + std::to_string(o.version) + ", the model at " + std::to_string(have) +
                                 ": its nodes would mean other operators in the graph");
      } else {
        model_.opset_imports.push_back({o.domain, o.version, {}, {}});
        model_opsets_.emplace(std::string(domain_key(o.domain)), o.version);
      }
    }
    imports_merged_.insert(&fn);
  }

  // Replaces the attribute references of `n` (and of the nodes of its subgraphs) by the call's
  // attributes, or the function's defaults; a reference bound to neither leaves the attribute out.
  void bind_references(Node& n, const Function& fn, const Node& call, const std::string& path, int depth) {
    if (depth > kMaxEditDepth) throw Error(path, "subgraphs nested too deep to inline functions in");
    std::vector<Attribute> attrs;
    attrs.reserve(n.attributes.size());
    for (std::size_t i = 0; i < n.attributes.size(); ++i) {
      Attribute& a = n.attributes[i];
      if (a.ref_attr_name.empty()) {
        auto graphs = views::attribute_graphs(a);
        for (std::size_t g = 0; g < graphs.size(); ++g)
          for (std::size_t k = 0; k < graphs[g].nodes.size(); ++k)
            bind_references(graphs[g].nodes[k], fn, call,
                            path + ".attribute[" + std::to_string(i) + "].node[" + std::to_string(k) + "]", depth + 1);
        attrs.push_back(std::move(a));
        continue;
      }
      const Attribute* src = call.find_attribute(a.ref_attr_name);
      if (!src)
        for (const auto& d : fn.attribute_protos)
          if (d.name == a.ref_attr_name) {
            src = &d;
            break;
          }
      if (!src) continue;
      if (a.type != AttributeType::UNDEFINED && src->kind() != AttributeType::UNDEFINED && src->kind() != a.type)
        throw Error(path + ".attribute[" + std::to_string(i) + "]",
                    "'" + a.name + "' refers to the function attribute '" + a.ref_attr_name + "' as " +
                        std::string(attribute_type_name(a.type)) + ", but it is " +
                        std::string(attribute_type_name(src->kind())));
      Attribute b = *src;
      b.name = a.name;
      b.doc_string = a.doc_string.empty() ? b.doc_string : a.doc_string;
      attrs.push_back(std::move(b));
    }
    n.attributes = std::move(attrs);
  }

  // Gives every name a subgraph of the body defines a fresh one, and maps its reads of the
  // enclosing body's values (`outer`).
  void rename_subgraph(Graph& g, const NameMap& outer, const std::string& prefix, const std::string& path, int depth) {
    if (depth > kMaxEditDepth) throw Error(path, "subgraphs nested too deep to inline functions in");
    NameMap map = outer;
    auto define = [&](std::string& name) {
      if (name.empty()) return;
      std::string renamed = fresh(prefix + name);
      map[name] = renamed;
      name = std::move(renamed);
    };
    auto read = [&](std::string& name, const std::string& where) {
      if (name.empty()) return;
      const auto it = map.find(name);
      if (it == map.end()) throw Error(where, "reads '" + name + "', which nothing in the function defines");
      name = it->second;
    };
    for (auto& in : g.inputs) define(in.name);
    for (auto& t : g.initializers) define(t.name);
    for (auto& s : g.sparse_initializers) define(s.values.name);
    for (std::size_t k = 0; k < g.nodes.size(); ++k) {
      Node& n = g.nodes[k];
      const std::string np = path + ".node[" + std::to_string(k) + "]";
      for (auto& in : n.inputs) read(in, np);
      for (std::size_t a = 0; a < n.attributes.size(); ++a) {
        auto graphs = views::attribute_graphs(n.attributes[a]);
        for (std::size_t s = 0; s < graphs.size(); ++s)
          rename_subgraph(graphs[s], map, prefix, np + ".attribute[" + std::to_string(a) + "]", depth + 1);
      }
      for (auto& o : n.outputs) define(o);
      n.name = fresh(prefix + (n.name.empty() ? n.op_type : n.name));
    }
    for (auto& o : g.outputs) read(o.name, path + ".output");
    std::erase_if(g.value_info, [&](const ValueInfo& v) { return !map.contains(v.name); });
    for (auto& v : g.value_info) v.name = map.at(v.name);
    for (auto& q : g.quantization_annotation) {
      if (auto it = map.find(q.tensor_name); it != map.end()) q.tensor_name = it->second;
      for (auto& p : q.quant_parameter_tensor_names)
        if (auto it = map.find(p.value); it != map.end()) p.value = it->second;
    }
  }

  static std::size_t saturating_add(std::size_t a, std::size_t b, std::size_t cap) {
    return a > cap || b > cap || a + b > cap ? cap + 1 : a + b;
  }
  // Nodes the selected calls among `nodes` (and in their subgraphs) expand to, at least; more
  // than `cap` reads as cap + 1.
  std::size_t expansion(const std::vector<Node>& nodes, std::size_t cap, int depth) {
    if (depth > kMaxEditDepth) return 0;
    std::size_t total = 0;
    for (const auto& n : nodes) {
      for (const auto& a : n.attributes)
        for (const Graph& sub : views::attribute_graphs(a))
          total = saturating_add(total, expansion(sub.nodes, cap, depth + 1), cap);
      const auto it = selected_.find(key(n.domain, n.op_type, n.overload));
      if (it != selected_.end()) total = saturating_add(total, body_size(*it->second, cap, depth), cap);
      if (total > cap) break;
    }
    return total;
  }
  // A call of `fn` expands to its nodes and what the calls in them expand to. A function met again
  // while its own size is being counted (a call cycle) counts nothing more: expanding reports the
  // cycle by its depth.
  std::size_t body_size(const Function& fn, std::size_t cap, int depth) {
    constexpr std::size_t in_progress = static_cast<std::size_t>(-1);
    const auto [it, inserted] = sizes_.try_emplace(&fn, in_progress);
    if (!inserted) return it->second == in_progress ? 0 : it->second;
    const std::size_t size = saturating_add(fn.nodes.size(), expansion(fn.nodes, cap, depth + 1), cap);
    sizes_[&fn] = size;
    return size;
  }

  Model& model_;
  const InlineOptions& options_;
  Builder names_;  // reserves every name of the model; makes the fresh ones
  std::unordered_map<std::string, const Function*> selected_;
  std::unordered_set<std::string> training_names_;
  std::size_t added_ = 0;
  std::unordered_map<const Function*, std::size_t> sizes_;  // body_size, once counted
  std::unordered_set<const Function*> imports_merged_;          // functions whose imports import_opsets took
  std::unordered_map<std::string, std::int64_t> model_opsets_;  // the model's imports ("" for the default domain)
};

}  // namespace detail

/// Replaces every call of a selected model-local function (a node whose domain, op_type and
/// overload name one) in the main graph, its subgraphs and the training graphs by a copy of the
/// function's body, and calls nested in those bodies too:
/// - the function's inputs read the call's inputs (an input the call leaves out reads as absent,
///   ""), its outputs are the call's outputs (an output that is a function input, or the same
///   value as an earlier output, goes through an Identity);
/// - attribute references take the call's attribute, else the function's default, else the
///   attribute is left out; a reference of another type is an error;
/// - every other name the body defines (subgraphs included) gets a fresh one prefixed with the
///   call's node name (`<call>/<name>`), and so do node names;
/// - the function's value_info comes along for the values it defines; the function's opset
///   imports are added to the model's, and a version that differs from the model's is an error.
/// Throws oxir::Error (the model unchanged) for a call that cannot be inlined as it is written.
inline InlineCounts inline_functions(Model& model, const InlineOptions& options = {}) {
  Model work = model;  // tensors are shared, not copied
  detail::Inliner in(work, options);
  if (!in.anything_selected()) return {};
  in.check_size(work);
  auto all_nodes = [&work] {
    std::size_t n = 0;
    auto count = [&n](const Graph& g) {
      for ([[maybe_unused]] const Node& node : views::all_nodes(g)) ++n;
    };
    count(work.graph);
    for (const auto& t : work.training_info) {
      count(t.initialization);
      count(t.algorithm);
    }
    return n;
  };
  const std::size_t nodes_before = all_nodes();
  in.expand_graph(work.graph, "graph", 0, 0);
  for (std::size_t t = 0; t < work.training_info.size(); ++t) {
    in.expand_graph(work.training_info[t].initialization, "training_info[" + std::to_string(t) + "].initialization", 0, 0);
    in.expand_graph(work.training_info[t].algorithm, "training_info[" + std::to_string(t) + "].algorithm", 0, 0);
  }
  InlineCounts counts = in.counts;
  counts.nodes_added = all_nodes() + counts.calls - nodes_before;  // each call gave way to its nodes
  if (options.remove_inlined) counts.functions_removed = in.remove_uncalled();
  model = std::move(work);
  return counts;
}

}  // namespace oxir
