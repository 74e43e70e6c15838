#pragma once
// eliminate_common_subexpressions: a node that computes exactly what an earlier node computes
// (same operator, same inputs, same attributes) is removed and its outputs' readers read the
// earlier node's outputs. Exporters repeat such work often: every attention layer takes its own
// Shape of the same input, and each use of a scalar gets its own Constant.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "../analysis/topo.hpp"
#include "../core/error.hpp"
#include "../ir/graph.hpp"
#include "../ir/model.hpp"
#include "../ir/views.hpp"
#include "edit.hpp"

namespace oxir {

namespace detail {

// Operators whose result is not a function of their inputs and attributes.
inline bool nondeterministic(std::string_view op_type) noexcept {
  constexpr std::string_view ops[] = {"RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike",
                                      "Multinomial",  "Bernoulli",     "Dropout"};
  for (auto o : ops)
    if (o == op_type) return true;
  return false;
}

// Nodes whose duplicates may be merged: standard operators (default domain and ai.onnx.ml) that
// are deterministic and have no subgraph. Other domains may hold operators with state or side
// effects that oxir cannot know about.
inline bool mergeable(const Node& n) {
  if (!(is_default_domain(n.domain) || n.domain == "ai.onnx.ml")) return false;
  if (n.op_type.empty() || nondeterministic(n.op_type)) return false;
  for (const auto& a : n.attributes) {
    if (!a.ref_attr_name.empty()) return false;
    if (!views::attribute_graphs(a).empty() || a.kind() == AttributeType::GRAPH || a.kind() == AttributeType::GRAPHS)
      return false;
  }
  bool any_output = false;
  for (const auto& o : n.outputs) any_output = any_output || !o.empty();
  return any_output;
}

inline void hash_mix(std::size_t& h, std::size_t v) noexcept { h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); }

// A hash of what the node computes, its inputs read through `renamed` (equal nodes hash equal;
// of a tensor attribute only the type, dims and first 256 payload bytes count).
inline std::size_t computation_hash(const Node& n, const std::unordered_map<std::string, std::string>& renamed) {
  std::hash<std::string_view> hs;
  std::size_t h = hs(n.op_type);
  hash_mix(h, hs(is_default_domain(n.domain) ? std::string_view() : std::string_view(n.domain)));
  hash_mix(h, hs(n.overload));
  for (const auto& in : n.inputs) {
    const auto it = renamed.find(in);
    hash_mix(h, hs(it == renamed.end() ? in : it->second));
  }
  for (const auto& o : n.outputs) hash_mix(h, o.empty() ? 1 : 2);
  for (const auto& a : n.attributes) {
    hash_mix(h, hs(a.name));
    hash_mix(h, static_cast<std::size_t>(a.kind()));
    // Only values actually present (a declared but absent value hashes by its kind alone).
    if (const auto* i = std::get_if<std::int64_t>(&a.value)) hash_mix(h, static_cast<std::size_t>(*i));
    if (const auto* is = std::get_if<std::vector<std::int64_t>>(&a.value))
      for (auto v : *is) hash_mix(h, static_cast<std::size_t>(v));
    if (const auto* str = std::get_if<std::string>(&a.value)) hash_mix(h, hs(*str));
    if (const auto* bt = std::get_if<Box<Tensor>>(&a.value); bt && bt->has_value()) {
      const Tensor& t = **bt;
      hash_mix(h, static_cast<std::size_t>(t.data_type));
      for (auto d : t.dims) hash_mix(h, static_cast<std::size_t>(d));
      if (t.external_data.empty()) {  // the first bytes tell most constants apart
        const auto b = t.data.bytes();
        hash_mix(h, hs(std::string_view(reinterpret_cast<const char*>(b.data()), std::min<std::size_t>(b.size(), 256))));
      }
    }
  }
  return h;
}

// Same computation: operator, inputs (through `renamed`), which outputs are present, attributes
// in the same order with equal values.
inline bool same_computation(const Node& a, const Node& b, const std::unordered_map<std::string, std::string>& renamed) {
  if (a.op_type != b.op_type || a.overload != b.overload || a.inputs.size() != b.inputs.size() ||
      a.outputs.size() != b.outputs.size() || a.attributes.size() != b.attributes.size())
    return false;
  if (is_default_domain(a.domain) ? !is_default_domain(b.domain) : a.domain != b.domain) return false;
  auto read = [&](const std::string& v) -> const std::string& {
    const auto it = renamed.find(v);
    return it == renamed.end() ? v : it->second;
  };
  for (std::size_t i = 0; i < a.inputs.size(); ++i)
    if (read(a.inputs[i]) != read(b.inputs[i])) return false;
  for (std::size_t i = 0; i < a.outputs.size(); ++i)
    if (a.outputs[i].empty() != b.outputs[i].empty()) return false;
  // Attributes compare whole (floats bit for bit: 0.0 and -0.0 are different attributes); so do
  // the placement (IR 11) and the fields oxir does not know, which may mean something.
  return a.attributes == b.attributes && a.device_configurations == b.device_configurations &&
         a.unknown_fields == b.unknown_fields;
}

inline std::size_t eliminate_common_subexpressions(Graph& g, int depth) {
  if (depth > kMaxEditDepth) return 0;
  std::size_t removed = 0;
  for (auto& n : g.nodes)
    for (auto& sub : views::subgraphs(n)) removed += eliminate_common_subexpressions(sub, depth + 1);

  std::vector<std::size_t> order;
  try {
    order = topological_order(g);
  } catch (const Error&) {
    return removed;  // a cycle: an invalid graph, left as it is
  }
  // A name defined more than once (an invalid graph) is left alone.
  std::unordered_map<std::string_view, std::size_t> definitions;
  for (const auto& d : views::defined_names(g)) ++definitions[d];
  std::unordered_set<std::string_view> interface;
  for (const auto& o : g.outputs) interface.insert(o.name);
  std::vector<SubgraphNames> subs;
  collect_subgraph_names(g, subs, depth);
  std::unordered_map<std::string_view, std::vector<const SubgraphNames*>> read_by;  // outer name -> subgraphs
  for (const auto& s : subs)
    for (const auto& r : s.reads_outside) read_by[r].push_back(&s);

  std::unordered_map<std::string, std::string> renamed;  // a removed node's output -> the kept one's
  std::unordered_multimap<std::size_t, std::size_t> kept;  // hash -> node index
  std::vector<bool> drop(g.nodes.size(), false);
  std::unordered_set<std::string> gone;  // outputs of the removed nodes
  for (const std::size_t i : order) {
    const Node& n = g.nodes[i];
    if (!mergeable(n)) continue;
    const std::size_t h = computation_hash(n, renamed);
    std::size_t match = static_cast<std::size_t>(-1);
    const auto [lo, hi] = kept.equal_range(h);
    for (auto it = lo; it != hi; ++it)
      if (same_computation(g.nodes[it->second], n, renamed)) {
        match = it->second;
        break;
      }
    if (match == static_cast<std::size_t>(-1)) {
      kept.emplace(h, i);
      continue;
    }
    // Readers of a repeat read the first node's outputs instead, unless a name is defined more
    // than once (an invalid graph) or a subgraph that reads the repeat's output defines the
    // first one's name itself. The repeat goes unless one of its outputs is a graph output: the
    // graph's interface keeps its producer (its other readers still move).
    bool rename = true, drop_it = true;
    for (std::size_t k = 0; k < n.outputs.size(); ++k) {
      const std::string& from = n.outputs[k];
      if (from.empty()) continue;
      const std::string& to = g.nodes[match].outputs[k];
      if (definitions[from] != 1 || definitions[to] != 1) rename = false;
      if (const auto it = read_by.find(from); it != read_by.end())
        for (const SubgraphNames* s : it->second)
          if (s->defines.contains(to)) rename = false;
      if (interface.contains(from)) drop_it = false;
    }
    if (!rename) continue;
    for (std::size_t k = 0; k < n.outputs.size(); ++k)
      if (!n.outputs[k].empty()) renamed.emplace(n.outputs[k], g.nodes[match].outputs[k]);
    if (drop_it) {
      drop[i] = true;
      ++removed;
      for (const auto& o : n.outputs) gone.insert(o);
    }
  }
  if (renamed.empty()) return removed;
  rename_reads(g, renamed, false, depth);
  erase_nodes(g.nodes, drop);
  std::erase_if(g.value_info, [&](const ValueInfo& v) { return gone.contains(v.name); });
  return removed;
}

}  // namespace detail

/// Removes every node of `graph` (and, separately, of each of its subgraphs) that computes what
/// an earlier node computes: the same operator (domain, type, overload), the same inputs (after
/// earlier merges, so repeated chains go in one pass), the same present outputs and equal
/// attributes in the same order. Readers of its outputs, subgraphs included, read the earlier
/// node's outputs instead; value_info of the removed outputs goes. Only deterministic operators
/// of the default and ai.onnx.ml domains without subgraphs are merged (not RandomNormal,
/// Multinomial, Dropout, ..., nor other domains, whose operators oxir cannot vouch for). A repeat
/// that produces a graph output stays for the graph output, its other readers moving to the first
/// node; one whose rename a subgraph's own names would hide stays with its readers. Graphs out of topological order are walked in dependency order; a graph with a
/// cycle is left as it is. Returns the number of nodes removed.
inline std::size_t eliminate_common_subexpressions(Graph& graph) {
  return detail::eliminate_common_subexpressions(graph, 0);
}
/// The same on the model's main graph (and its subgraphs).
inline std::size_t eliminate_common_subexpressions(Model& model) {
  return detail::eliminate_common_subexpressions(model.graph, 0);
}

}  // namespace oxir
