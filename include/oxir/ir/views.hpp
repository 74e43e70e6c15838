#pragma once
// range-v3 views over a model: nodes of a graph and all its nested subgraphs, subgraphs of a
// node, names a graph defines.

#include <cstddef>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <range/v3/view/concat.hpp>
#include <range/v3/view/facade.hpp>
#include <range/v3/view/join.hpp>
#include <range/v3/view/transform.hpp>

#include "graph.hpp"

namespace oxir::views {

/// The graphs held by one attribute (one for GRAPH, several for GRAPHS, none otherwise).
template <class AttributeRef>
[[nodiscard]] auto attribute_graphs(AttributeRef& a) {
  using G = std::conditional_t<std::is_const_v<AttributeRef>, const Graph, Graph>;
  if (auto b = std::get_if<Box<Graph>>(&a.value)) return b->has_value() ? std::span<G>(b->get(), 1) : std::span<G>();
  if (auto v = std::get_if<std::vector<Graph>>(&a.value)) return std::span<G>(v->data(), v->size());
  return std::span<G>();
}

/// The subgraphs of `node` (If branches, Loop/Scan bodies, ...) in attribute order.
[[nodiscard]] inline auto subgraphs(const Node& node) {
  return node.attributes | ranges::views::transform([](const Attribute& a) { return attribute_graphs(a); }) |
         ranges::views::join;
}
/// Mutable variant of subgraphs().
[[nodiscard]] inline auto subgraphs(Node& node) {
  return node.attributes | ranges::views::transform([](Attribute& a) { return attribute_graphs(a); }) |
         ranges::views::join;
}

/// Depth-first, pre-order walk over every node of a graph and of all graphs nested in node
/// attributes, at any depth: a node comes before the nodes of its subgraphs, which come before
/// the node's next sibling. A single-pass input view; the graph must outlive it and must not be
/// restructured while it is walked (changing node fields in place is fine).
template <bool Const>
class RecursiveNodes : public ranges::view_facade<RecursiveNodes<Const>, ranges::unknown> {
  using G = std::conditional_t<Const, const Graph, Graph>;
  using N = std::conditional_t<Const, const Node, Node>;
  friend ranges::range_access;

  struct cursor {
    // Each frame is the rest of one graph's node list; the top frame's first node is current.
    std::vector<std::pair<N*, N*>> stack;
    [[nodiscard]] N& read() const { return *stack.back().first; }
    [[nodiscard]] bool equal(ranges::default_sentinel_t) const { return stack.empty(); }
    void next() {
      N& current = *stack.back().first;
      ++stack.back().first;
      pop_finished();
      // Push subgraphs in reverse so that the first attribute's graph is walked first.
      auto& attrs = current.attributes;
      for (auto a = attrs.rbegin(); a != attrs.rend(); ++a) {
        auto graphs = attribute_graphs(*a);
        for (auto g = graphs.rbegin(); g != graphs.rend(); ++g)
          if (!g->nodes.empty()) stack.emplace_back(g->nodes.data(), g->nodes.data() + g->nodes.size());
      }
    }
    void pop_finished() {
      while (!stack.empty() && stack.back().first == stack.back().second) stack.pop_back();
    }
  };
  [[nodiscard]] cursor begin_cursor() const {
    cursor c;
    if (graph_ && !graph_->nodes.empty())
      c.stack.emplace_back(graph_->nodes.data(), graph_->nodes.data() + graph_->nodes.size());
    return c;
  }

  G* graph_ = nullptr;

 public:
  RecursiveNodes() = default;
  explicit RecursiveNodes(G& g) : graph_(&g) {}
};

/// Every node of `graph` and of its nested subgraphs, depth-first (see RecursiveNodes).
[[nodiscard]] inline RecursiveNodes<true> all_nodes(const Graph& graph) { return RecursiveNodes<true>(graph); }
/// Mutable variant of all_nodes().
[[nodiscard]] inline RecursiveNodes<false> all_nodes(Graph& graph) { return RecursiveNodes<false>(graph); }

/// Names of every value `graph` itself defines: inputs, initializers, sparse initializers, then
/// node outputs (omitted outputs, the empty name, included as written).
[[nodiscard]] inline auto defined_names(const Graph& graph) {
  auto vi_name = [](const ValueInfo& v) -> const std::string& { return v.name; };
  auto t_name = [](const Tensor& t) -> const std::string& { return t.name; };
  auto s_name = [](const SparseTensor& s) -> const std::string& { return s.values.name; };
  auto outs = [](const Node& n) -> const std::vector<std::string>& { return n.outputs; };
  return ranges::views::concat(graph.inputs | ranges::views::transform(vi_name),
                               graph.initializers | ranges::views::transform(t_name),
                               graph.sparse_initializers | ranges::views::transform(s_name),
                               graph.nodes | ranges::views::transform(outs) | ranges::views::join);
}

}  // namespace oxir::views
