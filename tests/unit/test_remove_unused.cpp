// Dead-code removal (rewrite/remove_unused.hpp): hand-built cases, then every libonnx-testdata
// model with seeded dead code injected, which the pass must take out exactly.
#include <doctest/doctest.h>

#include <oxir/analysis/use_def.hpp>
#include <oxir/io.hpp>
#include <oxir/rewrite/remove_unused.hpp>

#include "corpus_util.hpp"

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include <ostream>

namespace oxir {
std::ostream& operator<<(std::ostream& os, const RemovedCounts& c) {
  return os << "{nodes " << c.nodes << ", initializers " << c.initializers << ", value_info " << c.value_info
            << ", annotations " << c.quantization_annotations << "}";
}
}  // namespace oxir

namespace oxir_unit_test_remove_unused {

using namespace oxir;

namespace {
Node op(std::string type, std::vector<std::string> in, std::vector<std::string> out) {
  return Node(std::move(type), std::move(in), std::move(out));
}
Tensor weights(std::string name) { return Tensor::from_values<float>(std::move(name), {2}, std::vector<float>{1.f, 2.f}); }
std::vector<std::string> op_types(const Graph& g) {
  std::vector<std::string> r;
  for (const auto& n : g.nodes) r.push_back(n.op_type);
  return r;
}
std::vector<std::string> init_names(const Graph& g) {
  std::vector<std::string> r;
  for (const auto& t : g.initializers) r.push_back(t.name);
  return r;
}
}  // namespace

TEST_CASE("remove_unused: dead chains, unused initializers, value_info") {
  Graph g;
  g.inputs.emplace_back("X", Type::tensor(DataType::FLOAT, {2}));
  g.inputs.emplace_back("D", Type::tensor(DataType::FLOAT, {2}));
  g.initializers.push_back(weights("W"));     // read by a kept node
  g.initializers.push_back(weights("V"));     // read only by a dead node
  g.initializers.push_back(weights("D"));     // the default of input D: interface, stays
  g.initializers.push_back(weights("lone"));  // read by nothing
  g.nodes.push_back(op("Add", {"X", "W"}, {"a"}));
  g.nodes.push_back(op("Mul", {"a", "V"}, {"dead1"}));       // dead chain:
  g.nodes.push_back(op("Relu", {"dead1"}, {"dead2"}));       //   dead1 -> dead2
  g.nodes.push_back(op("TopK", {"a", ""}, {"vals", "idx"}));  // one of two outputs read
  g.nodes.push_back(op("Neg", {"vals"}, {"Y"}));
  g.nodes.push_back(op("Custom", {"X"}, {}));                // no outputs at all
  g.outputs.emplace_back("Y", Type{});
  g.value_info.emplace_back("a", Type::tensor(DataType::FLOAT, {2}));
  g.value_info.emplace_back("dead2", Type::tensor(DataType::FLOAT, {2}));
  g.value_info.emplace_back("idx", Type::tensor(DataType::INT64, {1}));

  const RemovedCounts c = remove_unused(g);
  CHECK(c == RemovedCounts{3, 2, 1, 0});  // Mul, Relu, Custom; V, lone; dead2's entry
  CHECK(op_types(g) == std::vector<std::string>{"Add", "TopK", "Neg"});
  CHECK(init_names(g) == std::vector<std::string>{"W", "D"});
  REQUIRE(g.value_info.size() == 2);
  CHECK(g.value_info[0].name == "a");
  CHECK(g.value_info[1].name == "idx");  // an unread output of a kept node still exists
  CHECK(g.inputs.size() == 2);
  // Nothing more to take: idempotent.
  const Graph once = g;
  CHECK(remove_unused(g) == RemovedCounts{});
  CHECK(g == once);
}

TEST_CASE("remove_unused: subgraphs are pruned first, then what only they read") {
  // If(c): then = Identity(P) with a dead Exp(Q) inside; else = Identity(X).
  // Outside, P and Q are computed; Q is read only by the dead Exp in the branch.
  Graph then_g;
  then_g.nodes.push_back(op("Exp", {"Q"}, {"unused"}));
  then_g.nodes.push_back(op("Identity", {"P"}, {"t"}));
  then_g.outputs.emplace_back("t", Type{});
  Graph else_g;
  else_g.nodes.push_back(op("Identity", {"X"}, {"e"}));
  else_g.outputs.emplace_back("e", Type{});
  Graph g;
  g.inputs.emplace_back("X", Type::tensor(DataType::FLOAT, {2}));
  g.inputs.emplace_back("c", Type::tensor(DataType::BOOL, {}));
  g.nodes.push_back(op("Sqrt", {"X"}, {"P"}));
  g.nodes.push_back(op("Abs", {"X"}, {"Q"}));
  Node if_node = op("If", {"c"}, {"Y"});
  if_node.set_attribute({"then_branch", then_g});
  if_node.set_attribute({"else_branch", else_g});
  g.nodes.push_back(if_node);
  g.outputs.emplace_back("Y", Type{});

  const RemovedCounts c = remove_unused(g);
  CHECK(c.nodes == 2);  // Exp in the branch, then Abs outside
  CHECK(op_types(g) == std::vector<std::string>{"Sqrt", "If"});
  CHECK(op_types(g.nodes[1].find_attribute("then_branch")->as_graph()) == std::vector<std::string>{"Identity"});
}

TEST_CASE("remove_unused: quantization annotations and training state") {
  Model m;
  m.ir_version = 10;
  m.set_opset_version("", 21);
  Graph& g = m.graph;
  g.inputs.emplace_back("X", Type::tensor(DataType::FLOAT, {2}));
  g.initializers.push_back(weights("scale_a"));
  g.initializers.push_back(weights("scale_dead"));
  g.initializers.push_back(weights("state"));  // updated by training only
  g.nodes.push_back(op("Relu", {"X"}, {"a"}));
  g.nodes.push_back(op("Sigmoid", {"X"}, {"dead"}));
  g.outputs.emplace_back("a", Type{});
  TensorAnnotation qa;
  qa.tensor_name = "a";
  qa.quant_parameter_tensor_names.push_back({"SCALE_TENSOR", "scale_a", {}, {}});
  TensorAnnotation qd;
  qd.tensor_name = "dead";
  qd.quant_parameter_tensor_names.push_back({"SCALE_TENSOR", "scale_dead", {}, {}});
  g.quantization_annotation = {qa, qd};
  TrainingInfo t;
  t.algorithm.nodes.push_back(op("Sub", {"state", "X"}, {"new_state"}));
  t.algorithm.outputs.emplace_back("new_state", Type{});
  t.update_binding.push_back({"state", "new_state", {}, {}});
  m.training_info.push_back(t);

  Model graph_only = m;
  const RemovedCounts c = remove_unused(m);
  CHECK(c == RemovedCounts{1, 1, 0, 1});
  CHECK(init_names(m.graph) == std::vector<std::string>{"scale_a", "state"});
  REQUIRE(m.graph.quantization_annotation.size() == 1);
  CHECK(m.graph.quantization_annotation[0].tensor_name == "a");
  // The Graph overload knows nothing of training: the state goes.
  CHECK(remove_unused(graph_only.graph).initializers == 2);
}

namespace {
// Adds seeded dead code to `g` (and to its subgraphs): chains of nodes reading existing values
// whose outputs nothing reads, initializers nothing reads, value_info for the dead values.
// Returns what it added, as remove_unused should count it.
RemovedCounts inject_dead(Graph& g, std::mt19937& rng, int& serial, int depth = 0) {
  RemovedCounts added;
  for (auto& n : g.nodes)
    for (auto& a : n.attributes) {
      if (a.kind() == AttributeType::GRAPH && depth < 4) {
        const auto c = inject_dead(a.as_graph(), rng, serial, depth + 1);
        added.nodes += c.nodes;
        added.initializers += c.initializers;
        added.value_info += c.value_info;
      }
    }
  std::vector<std::string> readable;
  for (const auto& v : g.inputs) readable.push_back(v.name);
  for (const auto& t : g.initializers) readable.push_back(t.name);
  for (const auto& n : g.nodes)
    for (const auto& o : n.outputs)
      if (!o.empty()) readable.push_back(o);
  const int chains = static_cast<int>(rng() % 3);
  for (int k = 0; k < chains; ++k) {
    std::string prev;
    if (!readable.empty()) prev = readable[rng() % readable.size()];
    const int len = 1 + static_cast<int>(rng() % 3);
    for (int j = 0; j < len; ++j) {
      const std::string out = "__dead" + std::to_string(serial++);
      Node n = op(j % 2 ? "Neg" : "Identity", {prev}, {out});
      // Anywhere in the graph: the pass must not depend on order.
      const auto at = static_cast<std::ptrdiff_t>(rng() % (g.nodes.size() + 1));
      g.nodes.insert(g.nodes.begin() + at, std::move(n));
      ++added.nodes;
      if (rng() % 2) {
        g.value_info.emplace_back(out, Type::tensor(DataType::FLOAT, {}));
        ++added.value_info;
      }
      prev = out;
    }
  }
  if (rng() % 2) {
    g.initializers.push_back(weights("__dead_init" + std::to_string(serial++)));
    ++added.initializers;
  }
  return added;
}
}  // namespace

TEST_CASE("remove_unused takes out exactly the dead code injected into every libonnx-testdata model") {
  if (!corpus::available()) {
    MESSAGE("libonnx-testdata not installed: skipped");
    return;
  }
  std::mt19937 rng(20261128);
  std::size_t already_dead = 0, injected = 0;
  const std::size_t models = corpus::for_each_model([&](const std::string& path, const Model& original) {
    Model clean = original;
    const RemovedCounts first = remove_unused(clean);
    already_dead += first.nodes + first.initializers;
    // Nothing the model reads was taken: every name read is still defined in the same scope.
    const UseDef before(original.graph), after(clean.graph);
    CHECK_MESSAGE(std::includes(before.outer_names().begin(), before.outer_names().end(), after.outer_names().begin(),
                                after.outer_names().end()),
                  path);
    CHECK(remove_unused(clean) == RemovedCounts{});  // idempotent

    Model dirty = clean;
    int serial = 0;
    const RemovedCounts added = inject_dead(dirty.graph, rng, serial);
    injected += added.nodes + added.initializers;
    const RemovedCounts second = remove_unused(dirty);
    CHECK_MESSAGE(second == added, path);
    CHECK_MESSAGE(dirty == clean, path);
  });
  MESSAGE(models << " models; dead code already in them: " << already_dead << " nodes and initializers; injected: "
                 << injected);
  CHECK(models > 1000);
  CHECK(injected > 1000);
}

}  // namespace oxir_unit_test_remove_unused
