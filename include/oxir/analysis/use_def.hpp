#pragma once
// Use-def index of a graph: where each value is defined and every place that reads it,
// including reads from inside the graph's subgraphs (If branches, Loop and Scan bodies).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "../ir/graph.hpp"
#include "topo.hpp"

namespace oxir {

/// Where a value read in a graph is defined, as seen from that graph.
struct ValueDefinition {
  enum class Kind : std::uint8_t {
    GraphInput,         ///< `graph.inputs[index]` (also when an initializer of the same name gives its default)
    Initializer,        ///< `graph.initializers[index]`, not a graph input
    SparseInitializer,  ///< `graph.sparse_initializers[index]`
    NodeOutput,         ///< `graph.nodes[index].outputs[slot]`
    Outer,              ///< defined nowhere in the graph: read from an enclosing scope (a capture)
  };
  Kind kind = Kind::Outer;
  std::size_t index = 0;
  std::size_t slot = 0;

  friend bool operator==(const ValueDefinition&, const ValueDefinition&) = default;
};

/// A place where a graph reads a value.
struct ValueUse {
  enum class Kind : std::uint8_t {
    NodeInput,    ///< `graph.nodes[index].inputs[slot]`
    Subgraph,     ///< read from inside the subgraph(s) of `graph.nodes[index].attributes[slot]`
    GraphOutput,  ///< `graph.outputs[index]`
  };
  Kind kind = Kind::NodeInput;
  std::size_t index = 0;
  std::size_t slot = 0;

  friend bool operator==(const ValueUse&, const ValueUse&) = default;
};

/// Producer and consumers of every value of one graph, built in one pass over the graph (and
/// over its subgraphs, for the outer values they read). It is a snapshot: it copies the names
/// and keeps no reference to the graph, so it stays valid but goes stale when the graph changes.
/// Empty names (omitted optional inputs and outputs) are neither definitions nor uses.
///
/// A name defined more than once (which the spec forbids, except a graph input that an
/// initializer of the same name gives a default) keeps its first definition, in the order
/// inputs, initializers, sparse initializers, nodes; `redefined()` lists such names.
class UseDef {
 public:
  /// Indexes `graph`. `enclosing`, when given, is the index of the graph whose node holds
  /// `graph` as a subgraph; `lookup` then resolves outer values through it. It must outlive this.
  explicit UseDef(const Graph& graph, const UseDef* enclosing = nullptr) : enclosing_(enclosing) {
    for (std::size_t i = 0; i < graph.inputs.size(); ++i)
      define(graph.inputs[i].name, {ValueDefinition::Kind::GraphInput, i, 0}, false);
    for (std::size_t i = 0; i < graph.initializers.size(); ++i) {
      const auto& name = graph.initializers[i].name;
      const auto* e = find(name);
      const bool default_of_input = e && e->definition && e->definition->kind == ValueDefinition::Kind::GraphInput;
      define(name, {ValueDefinition::Kind::Initializer, i, 0}, default_of_input);
    }
    for (std::size_t i = 0; i < graph.sparse_initializers.size(); ++i)
      define(graph.sparse_initializers[i].values.name, {ValueDefinition::Kind::SparseInitializer, i, 0}, false);
    for (std::size_t i = 0; i < graph.nodes.size(); ++i)
      for (std::size_t k = 0; k < graph.nodes[i].outputs.size(); ++k)
        define(graph.nodes[i].outputs[k], {ValueDefinition::Kind::NodeOutput, i, k}, false);

    for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
      const Node& n = graph.nodes[i];
      for (std::size_t k = 0; k < n.inputs.size(); ++k) use(n.inputs[k], {ValueUse::Kind::NodeInput, i, k});
      for (std::size_t a = 0; a < n.attributes.size(); ++a) {
        std::unordered_set<std::string> captured;
        const auto& v = n.attributes[a].value;
        if (const auto* g = std::get_if<Box<Graph>>(&v); g && g->has_value()) detail::collect_captures(**g, captured);
        if (const auto* gs = std::get_if<std::vector<Graph>>(&v))
          for (const auto& g : *gs) detail::collect_captures(g, captured);
        // In name order, so that the index does not depend on hashing.
        std::vector<std::string> names(captured.begin(), captured.end());
        std::sort(names.begin(), names.end());
        for (const auto& name : names) use(name, {ValueUse::Kind::Subgraph, i, a});
      }
    }
    for (std::size_t i = 0; i < graph.outputs.size(); ++i) use(graph.outputs[i].name, {ValueUse::Kind::GraphOutput, i, 0});
    std::sort(outer_.begin(), outer_.end());
    std::sort(redefined_.begin(), redefined_.end());
    redefined_.erase(std::unique(redefined_.begin(), redefined_.end()), redefined_.end());
  }

  /// Where `name` is defined as seen from this graph: `Outer` for a value it reads but does not
  /// define; nullopt for a name it neither defines nor reads.
  [[nodiscard]] std::optional<ValueDefinition> definition(std::string_view name) const {
    const auto* e = find(name);
    if (!e) return std::nullopt;
    if (e->definition) return e->definition;
    return ValueDefinition{};
  }

  /// The index of the node whose output `name` is, if a node of this graph defines it.
  [[nodiscard]] std::optional<std::size_t> producer(std::string_view name) const {
    const auto d = definition(name);
    if (d && d->kind == ValueDefinition::Kind::NodeOutput) return d->index;
    return std::nullopt;
  }

  /// Every place this graph reads `name`: node inputs and subgraph reads in node order, then
  /// graph outputs. A node reading it twice appears twice.
  [[nodiscard]] std::span<const ValueUse> uses(std::string_view name) const {
    const auto* e = find(name);
    if (!e) return {};
    return e->uses;
  }

  /// The nodes that read `name` (as an input or from inside a subgraph), each once, ascending.
  [[nodiscard]] std::vector<std::size_t> consumers(std::string_view name) const {
    std::vector<std::size_t> r;
    for (const auto& u : uses(name))
      if (u.kind != ValueUse::Kind::GraphOutput && (r.empty() || r.back() != u.index)) r.push_back(u.index);
    return r;
  }

  /// Whether anything in this graph (a node, a subgraph, a graph output) reads `name`.
  [[nodiscard]] bool is_used(std::string_view name) const { return !uses(name).empty(); }

  /// Whether `name` is one of the graph's outputs.
  [[nodiscard]] bool is_graph_output(std::string_view name) const {
    const auto u = uses(name);
    return std::any_of(u.begin(), u.end(), [](const ValueUse& x) { return x.kind == ValueUse::Kind::GraphOutput; });
  }

  /// The names this graph reads but does not define (what a subgraph captures), sorted.
  [[nodiscard]] const std::vector<std::string>& outer_names() const noexcept { return outer_; }

  /// Names with more than one definition site in this graph (an SSA violation), sorted.
  [[nodiscard]] const std::vector<std::string>& redefined() const noexcept { return redefined_; }

  /// The index of the enclosing graph given at construction, if any.
  [[nodiscard]] const UseDef* enclosing() const noexcept { return enclosing_; }

  /// Resolves `name` through the scope chain: its definition in the innermost graph that
  /// defines it, and how many scopes out that is (0 = this graph). nullopt when no graph on the
  /// chain defines it (a dangling name, or a capture whose enclosing index was not given).
  [[nodiscard]] std::optional<std::pair<ValueDefinition, std::size_t>> lookup(std::string_view name) const {
    std::size_t depth = 0;
    for (const UseDef* s = this; s; s = s->enclosing_, ++depth) {
      const auto* e = s->find(name);
      if (e && e->definition) return std::pair{*e->definition, depth};
    }
    return std::nullopt;
  }

 private:
  struct Entry {
    std::optional<ValueDefinition> definition;
    std::vector<ValueUse> uses;
  };
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
  };

  [[nodiscard]] const Entry* find(std::string_view name) const {
    const auto it = entries_.find(name);
    return it == entries_.end() ? nullptr : &it->second;
  }

  void define(const std::string& name, ValueDefinition d, bool default_of_input) {
    if (name.empty()) return;
    auto& e = entries_[name];
    if (!e.definition) e.definition = d;
    else if (!default_of_input) redefined_.push_back(name);
  }

  void use(const std::string& name, ValueUse u) {
    if (name.empty()) return;
    auto& e = entries_[name];
    // Every definition is indexed before the first use, so a use with none is a capture.
    if (!e.definition && e.uses.empty()) outer_.push_back(name);
    e.uses.push_back(u);
  }

  std::unordered_map<std::string, Entry, Hash, std::equal_to<>> entries_;
  std::vector<std::string> outer_;
  std::vector<std::string> redefined_;
  const UseDef* enclosing_ = nullptr;
};

}  // namespace oxir
