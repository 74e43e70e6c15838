#pragma once
// Topological order of a graph's nodes, taking subgraphs' uses of outer values into account.

#include <algorithm>
#include <cstddef>
#include <functional>
#include <queue>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "../core/error.hpp"
#include "../ir/graph.hpp"
#include "../ir/views.hpp"

namespace oxir {

namespace detail {
/// Subgraph nesting beyond which captures are not followed (bounds the recursion; a file the
/// decoder accepts nests at most 200 graphs deep).
inline constexpr int kMaxCaptureDepth = 256;

inline void collect_captures(const Graph& g, std::unordered_set<std::string>& out, int depth = 0) {
  if (depth > kMaxCaptureDepth) return;
  std::unordered_set<std::string_view> defined;
  for (const auto& v : g.inputs) defined.insert(v.name);
  for (const auto& t : g.initializers) defined.insert(t.name);
  for (const auto& s : g.sparse_initializers) defined.insert(s.values.name);
  for (const auto& n : g.nodes)
    for (const auto& o : n.outputs) defined.insert(o);
  auto use = [&](const std::string& name) {
    if (!name.empty() && !defined.contains(name)) out.insert(name);
  };
  for (const auto& n : g.nodes) {
    for (const auto& i : n.inputs) use(i);
    for (const auto& sub : views::subgraphs(n)) {
      std::unordered_set<std::string> inner;
      collect_captures(sub, inner, depth + 1);
      for (const auto& name : inner) use(name);
    }
  }
  for (const auto& o : g.outputs) use(o.name);
}
}  // namespace detail

/// Names a subgraph uses but does not define itself: values it captures from enclosing scopes
/// (at any nesting depth up to detail::kMaxCaptureDepth), in no particular order.
[[nodiscard]] inline std::unordered_set<std::string> captured_names(const Graph& subgraph) {
  std::unordered_set<std::string> out;
  detail::collect_captures(subgraph, out);
  return out;
}

/// Indices of `graph.nodes` ordered so that every node comes after the nodes producing its inputs
/// and the outer values its subgraphs capture. Stable: among nodes that are ready, the one that
/// comes first in the graph goes first, so a sorted graph keeps its order. Values no node of this
/// graph produces (inputs, initializers, outer scope) impose no order. Throws oxir::Error naming a
/// node on a cycle.
[[nodiscard]] inline std::vector<std::size_t> topological_order(const Graph& graph) {
  const auto n = graph.nodes.size();
  std::unordered_map<std::string_view, std::size_t> producer;
  producer.reserve(n * 2);
  for (std::size_t i = 0; i < n; ++i)
    for (const auto& o : graph.nodes[i].outputs)
      if (!o.empty()) producer.emplace(o, i);  // first producer wins; duplicates are a checker matter

  std::vector<std::vector<std::size_t>> users(n);
  std::vector<std::size_t> pending(n, 0);
  std::unordered_set<std::string> captures;
  for (std::size_t i = 0; i < n; ++i) {
    const Node& node = graph.nodes[i];
    std::vector<std::size_t> deps;
    auto depend = [&](std::string_view name) {
      if (name.empty()) return;
      auto it = producer.find(name);
      if (it != producer.end() && it->second != i) deps.push_back(it->second);
    };
    for (const auto& in : node.inputs) depend(in);
    captures.clear();
    for (const auto& sub : views::subgraphs(node)) detail::collect_captures(sub, captures);
    for (const auto& c : captures) depend(c);
    std::sort(deps.begin(), deps.end());
    deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
    pending[i] = deps.size();
    for (auto d : deps) users[d].push_back(i);
  }

  std::priority_queue<std::size_t, std::vector<std::size_t>, std::greater<>> ready;
  for (std::size_t i = 0; i < n; ++i)
    if (pending[i] == 0) ready.push(i);
  std::vector<std::size_t> order;
  order.reserve(n);
  while (!ready.empty()) {
    auto i = ready.top();
    ready.pop();
    order.push_back(i);
    for (auto u : users[i])
      if (--pending[u] == 0) ready.push(u);
  }
  if (order.size() != n) {
    for (std::size_t i = 0; i < n; ++i)
      if (pending[i] != 0) {
        const auto& node = graph.nodes[i];
        throw Error("graph \"" + graph.name + "\".node[" + std::to_string(i) + "] \"" + node.name + "\" (" +
                        node.op_type + ")",
                    "is on a dependency cycle");
      }
  }
  return order;
}

/// True if every node comes after the producers of its inputs (including subgraph captures).
[[nodiscard]] inline bool is_topologically_sorted(const Graph& graph) {
  auto order = topological_order(graph);
  for (std::size_t i = 0; i < order.size(); ++i)
    if (order[i] != i) return false;
  return true;
}

/// Reorders `graph.nodes` topologically (stable, see topological_order); throws on a cycle and
/// then leaves the graph unchanged.
inline void sort_topologically(Graph& graph) {
  auto order = topological_order(graph);
  std::vector<Node> sorted;
  sorted.reserve(order.size());
  for (auto i : order) sorted.push_back(std::move(graph.nodes[i]));
  graph.nodes = std::move(sorted);
}

}  // namespace oxir
