#pragma once
// Dead-code removal: nodes whose results nothing reads, and initializers nothing reads.

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "../analysis/topo.hpp"
#include "../ir/graph.hpp"
#include "../ir/model.hpp"
#include "../ir/views.hpp"

namespace oxir {

/// What `remove_unused` took out, summed over the graph and its subgraphs.
struct RemovedCounts {
  std::size_t nodes = 0;
  std::size_t initializers = 0;         ///< dense and sparse
  std::size_t value_info = 0;           ///< entries naming values that no longer exist
  std::size_t quantization_annotations = 0;
  friend bool operator==(const RemovedCounts&, const RemovedCounts&) = default;
};

namespace detail {
/// Subgraph nesting beyond which `remove_unused` leaves subgraphs as they are (a file the decoder
/// accepts nests far less deeply).
inline constexpr int kMaxPruneDepth = 256;

inline void add_counts(RemovedCounts& into, const RemovedCounts& c) {
  into.nodes += c.nodes;
  into.initializers += c.initializers;
  into.value_info += c.value_info;
  into.quantization_annotations += c.quantization_annotations;
}

inline RemovedCounts remove_unused(Graph& g, const std::unordered_set<std::string>& extra_roots, int depth) {
  RemovedCounts removed;
  // Subgraphs first: what they stop reading no longer keeps outer values alive.
  if (depth < kMaxPruneDepth)
    for (auto& n : g.nodes)
      for (auto& a : n.attributes) {
        if (auto* b = std::get_if<Box<Graph>>(&a.value); b && b->has_value())
          add_counts(removed, remove_unused(**b, {}, depth + 1));
        if (auto* gs = std::get_if<std::vector<Graph>>(&a.value))
          for (auto& sub : *gs) add_counts(removed, remove_unused(sub, {}, depth + 1));
      }

  // Liveness from the graph outputs (and the caller's roots) back through producers.
  // A name defined twice (invalid, but not ours to resolve) keeps both of its producers.
  std::unordered_multimap<std::string_view, std::size_t> producer;
  for (std::size_t i = 0; i < g.nodes.size(); ++i)
    for (const auto& o : g.nodes[i].outputs)
      if (!o.empty()) producer.emplace(o, i);
  std::unordered_set<std::string> live(extra_roots.begin(), extra_roots.end());
  std::vector<std::string> todo(extra_roots.begin(), extra_roots.end());
  for (const auto& o : g.outputs)
    if (live.insert(o.name).second) todo.push_back(o.name);
  std::vector<bool> keep(g.nodes.size(), false);
  auto read = [&](const std::string& name) {
    if (!name.empty() && live.insert(name).second) todo.push_back(name);
  };
  while (!todo.empty()) {
    const std::string name = std::move(todo.back());
    todo.pop_back();
    const auto [first, last] = producer.equal_range(name);
    for (auto it = first; it != last; ++it) {
      if (keep[it->second]) continue;
      keep[it->second] = true;
      const Node& n = g.nodes[it->second];
      for (const auto& in : n.inputs) read(in);
      for (const auto& sub : views::subgraphs(n)) {
        std::unordered_set<std::string> captured;
        collect_captures(sub, captured);
        for (const auto& c : captured) read(c);
      }
    }
  }

  std::vector<Node> kept;
  kept.reserve(g.nodes.size());
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    if (!keep[i]) {
      ++removed.nodes;
      continue;
    }
    kept.push_back(std::move(g.nodes[i]));
  }
  g.nodes = std::move(kept);

  // Annotations of values that still exist (initializers not yet pruned) stay, and keep their
  // parameter tensors alive.
  std::unordered_set<std::string_view> defined;
  for (const auto& d : views::defined_names(g)) defined.insert(d);
  const auto qa_end = std::remove_if(g.quantization_annotation.begin(), g.quantization_annotation.end(),
                                     [&](const TensorAnnotation& a) {
                                       return !live.contains(a.tensor_name) && !defined.contains(a.tensor_name);
                                     });
  removed.quantization_annotations += static_cast<std::size_t>(g.quantization_annotation.end() - qa_end);
  g.quantization_annotation.erase(qa_end, g.quantization_annotation.end());
  for (const auto& a : g.quantization_annotation) {
    live.insert(a.tensor_name);
    for (const auto& p : a.quant_parameter_tensor_names) live.insert(p.value);
  }

  // Initializers: kept when read, or when they give a graph input its default (the input is
  // part of the graph's interface).
  std::unordered_set<std::string_view> inputs;
  for (const auto& v : g.inputs) inputs.insert(v.name);
  const auto init_end = std::remove_if(g.initializers.begin(), g.initializers.end(), [&](const Tensor& t) {
    return !live.contains(t.name) && !inputs.contains(t.name);
  });
  removed.initializers += static_cast<std::size_t>(g.initializers.end() - init_end);
  g.initializers.erase(init_end, g.initializers.end());
  const auto sparse_end = std::remove_if(g.sparse_initializers.begin(), g.sparse_initializers.end(),
                                         [&](const SparseTensor& s) {
                                           return !live.contains(s.values.name) && !inputs.contains(s.values.name);
                                         });
  removed.initializers += static_cast<std::size_t>(g.sparse_initializers.end() - sparse_end);
  g.sparse_initializers.erase(sparse_end, g.sparse_initializers.end());

  // value_info of values nothing defines any more.
  defined.clear();  // its views into pruned initializers dangle
  for (const auto& d : views::defined_names(g)) defined.insert(d);
  const auto vi_end = std::remove_if(g.value_info.begin(), g.value_info.end(), [&](const ValueInfo& v) {
    // An entry for an outer value (read by this subgraph) describes something that still exists.
    return !defined.contains(v.name) && !live.contains(v.name);
  });
  removed.value_info += static_cast<std::size_t>(g.value_info.end() - vi_end);
  g.value_info.erase(vi_end, g.value_info.end());
  return removed;
}
}  // namespace detail

/// Removes from `graph` every node none of whose outputs is read, by a node kept, by a subgraph
/// of one, or as a graph output (repeatedly, so whole dead chains go), and every initializer
/// nothing kept reads, except those that give a graph input its default. Subgraphs are pruned
/// the same way against their own outputs. value_info entries and quantization annotations of
/// values that no longer exist go too; an annotation kept keeps its parameter tensors. Graph
/// inputs and outputs are the interface and stay. Nodes are assumed to have no side effects, as
/// ONNX defines its operators: a node with no outputs read (or none at all) is removed whatever
/// its domain. The order of what stays is unchanged.
inline RemovedCounts remove_unused(Graph& graph) { return detail::remove_unused(graph, {}, 0); }

/// `remove_unused` on the main graph, where what the model's training information reads (its
/// graphs' outer values and the state its bindings name) also counts as read. Function bodies
/// are left as they are.
inline RemovedCounts remove_unused(Model& model) {
  std::unordered_set<std::string> roots;
  for (const auto& t : model.training_info) {
    detail::collect_captures(t.initialization, roots);
    detail::collect_captures(t.algorithm, roots);
    for (const auto& b : t.initialization_binding) roots.insert(b.key);
    for (const auto& b : t.update_binding) roots.insert(b.key);
  }
  return detail::remove_unused(model.graph, roots, 0);
}

}  // namespace oxir
