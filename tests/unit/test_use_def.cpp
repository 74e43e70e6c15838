// The use-def index (analysis/use_def.hpp): definitions, uses, captures through subgraphs, the
// scope chain; and, on every model of libonnx-testdata, agreement with a brute-force scan.
#include <doctest/doctest.h>

#include <oxir/analysis/use_def.hpp>
#include <oxir/io.hpp>

#include "corpus_util.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace oxir_unit_test_use_def {

using namespace oxir;

namespace {
using K = ValueDefinition::Kind;
using U = ValueUse::Kind;

Node op(std::string type, std::vector<std::string> in, std::vector<std::string> out) {
  return Node(std::move(type), std::move(in), std::move(out));
}

// X (input with an initializer as its default), W (initializer), S (sparse initializer):
//   0: A = MatMul(X, W)
//   1: B = Add(A, A)
//   2: R = If(cond)  then: t = Mul(B, W) -> t     else (input A shadows): u = Neg(A) -> u
//   3: Clip(R, "", M)  (omitted optional input)
//   4: A = Identity(X)  (A defined a second time)
// outputs: B, A
Graph sample() {
  Graph then_g;
  then_g.nodes.push_back(op("Mul", {"B", "W"}, {"t"}));
  then_g.outputs.emplace_back("t", Type{});
  Graph else_g;
  else_g.inputs.emplace_back("A", Type{});
  else_g.nodes.push_back(op("Neg", {"A"}, {"u"}));
  else_g.outputs.emplace_back("u", Type{});

  Graph g;
  g.inputs.emplace_back("X", Type::tensor(DataType::FLOAT, {2, 2}));
  g.initializers.push_back(Tensor::from_values<float>("X", {2, 2}, std::vector<float>(4, 0.f)));
  g.initializers.push_back(Tensor::from_values<float>("W", {2, 2}, std::vector<float>(4, 1.f)));
  SparseTensor s;
  s.values = Tensor::from_values<float>("S", {1}, std::vector<float>{1.f});
  g.sparse_initializers.push_back(s);
  g.nodes.push_back(op("MatMul", {"X", "W"}, {"A"}));
  g.nodes.push_back(op("Add", {"A", "A"}, {"B"}));
  Node if_node = op("If", {"cond"}, {"R"});
  if_node.set_attribute({"then_branch", then_g});
  if_node.set_attribute({"else_branch", else_g});
  g.nodes.push_back(if_node);
  g.nodes.push_back(op("Clip", {"R", "", "M"}, {"C"}));
  g.nodes.push_back(op("Identity", {"X"}, {"A"}));
  g.outputs.emplace_back("B", Type{});
  g.outputs.emplace_back("A", Type{});
  return g;
}
}  // namespace

TEST_CASE("UseDef: where values are defined") {
  const Graph g = sample();
  const UseDef ud(g);
  CHECK(ud.definition("X") == ValueDefinition{K::GraphInput, 0, 0});  // the initializer is its default
  CHECK(ud.definition("W") == ValueDefinition{K::Initializer, 1, 0});
  CHECK(ud.definition("S") == ValueDefinition{K::SparseInitializer, 0, 0});
  CHECK(ud.definition("A") == ValueDefinition{K::NodeOutput, 0, 0});  // the first of its two definitions
  CHECK(ud.definition("C") == ValueDefinition{K::NodeOutput, 3, 0});
  CHECK(ud.definition("cond") == ValueDefinition{K::Outer, 0, 0});
  CHECK_FALSE(ud.definition("nothing").has_value());
  CHECK_FALSE(ud.definition("").has_value());
  CHECK(ud.producer("B") == 1);
  CHECK_FALSE(ud.producer("X").has_value());
  CHECK_FALSE(ud.producer("cond").has_value());
  CHECK(ud.redefined() == std::vector<std::string>{"A"});
  CHECK(ud.outer_names() == std::vector<std::string>{"M", "cond"});
}

TEST_CASE("UseDef: uses, consumers and captures") {
  const Graph g = sample();
  const UseDef ud(g);
  const auto a = ud.uses("A");
  CHECK(std::vector<ValueUse>(a.begin(), a.end()) ==
        std::vector<ValueUse>{{U::NodeInput, 1, 0}, {U::NodeInput, 1, 1}, {U::GraphOutput, 1, 0}});
  CHECK(ud.consumers("A") == std::vector<std::size_t>{1});  // the else branch's A is its own input
  // B and W are read inside the then branch (attribute 0 of node 2).
  const auto b = ud.uses("B");
  CHECK(std::vector<ValueUse>(b.begin(), b.end()) == std::vector<ValueUse>{{U::Subgraph, 2, 0}, {U::GraphOutput, 0, 0}});
  CHECK(ud.consumers("W") == std::vector<std::size_t>{0, 2});
  CHECK(ud.consumers("X") == std::vector<std::size_t>{0, 4});
  CHECK(ud.is_graph_output("B"));
  CHECK_FALSE(ud.is_graph_output("W"));
  CHECK(ud.is_used("R"));
  CHECK_FALSE(ud.is_used("C"));
  CHECK_FALSE(ud.is_used("S"));
  CHECK(ud.uses("").empty());
  CHECK(ud.uses("nothing").empty());
}

TEST_CASE("UseDef: the scope chain of a subgraph") {
  const Graph g = sample();
  const UseDef outer(g);
  const Graph& then_g = g.nodes[2].find_attribute("then_branch")->as_graph();
  const UseDef inner(then_g, &outer);
  CHECK(inner.enclosing() == &outer);
  CHECK(inner.outer_names() == std::vector<std::string>{"B", "W"});
  CHECK(inner.definition("W") == ValueDefinition{K::Outer, 0, 0});
  const auto w = inner.lookup("W");
  REQUIRE(w.has_value());
  CHECK(w->first == ValueDefinition{K::Initializer, 1, 0});
  CHECK(w->second == 1);
  const auto t = inner.lookup("t");
  REQUIRE(t.has_value());
  CHECK(t->first == ValueDefinition{K::NodeOutput, 0, 0});
  CHECK(t->second == 0);
  CHECK_FALSE(inner.lookup("cond").has_value());  // outer reads it, nothing defines it
  CHECK_FALSE(UseDef(then_g).lookup("W").has_value());  // no enclosing index given
}

TEST_CASE("UseDef: a graph edited after indexing keeps the snapshot") {
  Graph g = sample();
  const UseDef ud(g);
  g.nodes.clear();
  g.outputs.clear();
  CHECK(ud.producer("B") == 1);
  CHECK(ud.consumers("A") == std::vector<std::size_t>{1});
}

namespace {
// Brute force, independent of UseDef and of detail::collect_captures: names read anywhere in
// `g` (its subgraphs included) that `g` and the subgraphs in between do not define.
std::set<std::string> reads_from_outside(const Graph& g) {
  std::set<std::string> defined, out;
  for (const auto& v : g.inputs) defined.insert(v.name);
  for (const auto& t : g.initializers) defined.insert(t.name);
  for (const auto& s : g.sparse_initializers) defined.insert(s.values.name);
  for (const auto& n : g.nodes) defined.insert(n.outputs.begin(), n.outputs.end());
  std::vector<std::string> read;
  for (const auto& n : g.nodes) {
    read.insert(read.end(), n.inputs.begin(), n.inputs.end());
    for (const auto& a : n.attributes) {
      if (a.kind() == AttributeType::GRAPH)
        for (const auto& x : reads_from_outside(a.as_graph())) read.push_back(x);
      if (a.kind() == AttributeType::GRAPHS)
        for (const auto& sg : a.as_graphs())
          for (const auto& x : reads_from_outside(sg)) read.push_back(x);
    }
  }
  for (const auto& o : g.outputs) read.push_back(o.name);
  for (const auto& r : read)
    if (!r.empty() && !defined.count(r)) out.insert(r);
  return out;
}

// Checks `ud` against a scan of `g`, then recurses into g's subgraphs with `ud` as their scope.
void check_graph(const Graph& g, const UseDef& ud, std::size_t& values, std::size_t& graphs) {
  ++graphs;
  std::map<std::string, std::vector<ValueUse>> uses;
  std::map<std::string, std::set<std::size_t>> consumers;
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    for (std::size_t k = 0; k < n.inputs.size(); ++k)
      if (!n.inputs[k].empty()) {
        uses[n.inputs[k]].push_back({U::NodeInput, i, k});
        consumers[n.inputs[k]].insert(i);
      }
    for (std::size_t a = 0; a < n.attributes.size(); ++a) {
      std::set<std::string> captured;
      if (n.attributes[a].kind() == AttributeType::GRAPH) captured = reads_from_outside(n.attributes[a].as_graph());
      if (n.attributes[a].kind() == AttributeType::GRAPHS)
        for (const auto& sg : n.attributes[a].as_graphs())
          for (const auto& x : reads_from_outside(sg)) captured.insert(x);
      for (const auto& x : captured) {
        uses[x].push_back({U::Subgraph, i, a});
        consumers[x].insert(i);
      }
    }
  }
  for (std::size_t i = 0; i < g.outputs.size(); ++i)
    if (!g.outputs[i].name.empty()) uses[g.outputs[i].name].push_back({U::GraphOutput, i, 0});
  for (const auto& entry : uses) {
    const std::string& name = entry.first;
    const auto got = ud.uses(name);
    CHECK_MESSAGE(std::vector<ValueUse>(got.begin(), got.end()) == entry.second, name);
    CHECK(ud.consumers(name) == std::vector<std::size_t>(consumers[name].begin(), consumers[name].end()));
    ++values;
  }
  for (std::size_t i = 0; i < g.nodes.size(); ++i)
    for (std::size_t k = 0; k < g.nodes[i].outputs.size(); ++k) {
      const auto& name = g.nodes[i].outputs[k];
      if (name.empty()) continue;
      const auto d = ud.definition(name);
      REQUIRE(d.has_value());
      // The first definition: an input or initializer of that name, else the first node output.
      if (d->kind == K::NodeOutput) CHECK(g.nodes[d->index].outputs[d->slot] == name);
      if (d->kind == K::NodeOutput && (d->index != i || d->slot != k))
        CHECK(std::binary_search(ud.redefined().begin(), ud.redefined().end(), name));
      CHECK(ud.producer(name).has_value() == (d->kind == K::NodeOutput));
    }
  const auto outside = reads_from_outside(g);
  CHECK(std::vector<std::string>(outside.begin(), outside.end()) == ud.outer_names());
  for (const auto& n : g.nodes)
    for (const auto& a : n.attributes) {
      if (a.kind() == AttributeType::GRAPH) check_graph(a.as_graph(), UseDef(a.as_graph(), &ud), values, graphs);
      if (a.kind() == AttributeType::GRAPHS)
        for (const auto& sg : a.as_graphs()) check_graph(sg, UseDef(sg, &ud), values, graphs);
    }
}
}  // namespace

TEST_CASE("UseDef agrees with a brute-force scan on every libonnx-testdata model") {
  if (!corpus::available()) {
    MESSAGE("libonnx-testdata not installed: skipped");
    return;
  }
  std::size_t values = 0, graphs = 0, captures = 0;
  const std::size_t models = corpus::for_each_model([&](const std::string&, const Model& m) {
    const UseDef ud(m.graph);
    check_graph(m.graph, ud, values, graphs);
    for (const auto& n : m.graph.nodes)
      for (const auto& a : n.attributes)
        if (a.kind() == AttributeType::GRAPH) captures += UseDef(a.as_graph(), &ud).outer_names().size();
  });
  MESSAGE(models << " models, " << graphs << " graphs, " << values << " values read, " << captures
                 << " captures in main-graph subgraphs");
  CHECK(models > 1000);
  CHECK(graphs > models);     // If/Loop/Scan bodies are there
  CHECK(captures > 0);        // and some of them read outer values
}

}  // namespace oxir_unit_test_use_def
