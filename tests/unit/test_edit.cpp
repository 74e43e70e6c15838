// Graph edits (rewrite/edit.hpp): replace_all_uses_with across scopes, and Identity removal,
// then every libonnx-testdata model with seeded Identity nodes inserted, which the pass must
// take out exactly.
#include <doctest/doctest.h>

#include <oxir/io.hpp>
#include <oxir/rewrite/edit.hpp>

#include "corpus_util.hpp"

#include <random>
#include <string>
#include <unordered_set>
#include <vector>

namespace oxir_unit_test_edit {

using namespace oxir;

namespace {
Node op(std::string type, std::vector<std::string> in, std::vector<std::string> out) {
  return Node(std::move(type), std::move(in), std::move(out));
}
Graph branch(std::string name, std::vector<Node> nodes, std::string out, std::vector<std::string> inputs = {}) {
  Graph g;
  g.name = std::move(name);
  for (auto& i : inputs) g.inputs.emplace_back(i, Type{});
  g.nodes = std::move(nodes);
  g.outputs.emplace_back(std::move(out), Type{});
  return g;
}
std::vector<std::string> inputs_of(const Graph& g) {
  std::vector<std::string> r;
  for (const auto& n : g.nodes) r.insert(r.end(), n.inputs.begin(), n.inputs.end());
  return r;
}
}  // namespace

TEST_CASE("replace_all_uses_with: node inputs, subgraph reads, shadowing, interface") {
  Graph g;
  g.inputs.emplace_back("x", Type{});
  g.nodes.push_back(op("Relu", {"x"}, {"a"}));
  g.nodes.push_back(op("Abs", {"x"}, {"b"}));
  g.nodes.push_back(op("Add", {"a", "a"}, {"c"}));
  Node if_node = op("If", {"c"}, {"r"});
  if_node.set_attribute({"then_branch", branch("t", {op("Neg", {"a"}, {"t0"})}, "t0")});
  if_node.set_attribute({"else_branch", branch("e", {}, "a")});                            // passes a through
  g.nodes.push_back(if_node);
  Node loop = op("Loop", {"", "c", "x"}, {"l"});
  loop.set_attribute({"body", branch("body", {op("Neg", {"a"}, {"o"})}, "o", {"i", "cond", "a"})});  // its own a
  g.nodes.push_back(loop);
  g.outputs.emplace_back("a", Type{});

  // The Loop body defines "o" but also its own "a", so none of its reads is renamed: no conflict.
  Graph g2 = g;
  CHECK(replace_all_uses_with(g2, "a", "o") == 4);
  CHECK(replace_all_uses_with(g, "a", "b") == 4);  // Add twice, the then branch's Neg, the else output
  CHECK(inputs_of(g) == std::vector<std::string>{"x", "x", "b", "b", "c", "", "c", "x"});
  CHECK(g.nodes[3].attributes[0].as_graph().nodes[0].inputs[0] == "b");
  CHECK(g.nodes[3].attributes[1].as_graph().outputs[0].name == "b");
  CHECK(g.nodes[4].attributes[0].as_graph().nodes[0].inputs[0] == "a");  // shadowed by the body's input
  CHECK(g.outputs[0].name == "a");  // the graph's interface keeps its name
  CHECK(replace_all_uses_with(g, "b", "b") == 0);
  CHECK(replace_all_uses_with(g, "", "b") == 0);

  // A subgraph reading `from` that defines `to` itself: refused, nothing changed.
  Graph h;
  h.inputs.emplace_back("x", Type{});
  h.nodes.push_back(op("Relu", {"x"}, {"a"}));
  Node only = op("If", {"x"}, {"r"});
  only.set_attribute({"then_branch", branch("t", {op("Neg", {"a"}, {"y"}), op("Abs", {"y"}, {"z"})}, "z")});
  only.set_attribute({"else_branch", branch("e", {op("Neg", {"x"}, {"w"})}, "w")});
  h.nodes.push_back(only);
  const Graph before = h;
  CHECK_THROWS_AS(replace_all_uses_with(h, "a", "y"), Error);
  CHECK(h == before);
  // The else branch defines w but does not read a: no conflict there.
  CHECK(replace_all_uses_with(h, "a", "w") == 1);
}

TEST_CASE("collect_subgraph_names agrees with captured_names on every subgraph of random nests") {
  // Names from a small pool, so that reads, definitions and shadowing meet at every depth.
  std::mt19937 rng(7);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  auto name = [&] { return std::string(1, static_cast<char>('a' + pick(8))); };
  auto make = [&](auto& self, int depth) -> Graph {
    Graph g;
    for (int i = pick(3); i > 0; --i) g.inputs.emplace_back(name(), Type{});
    if (pick(4) == 0) {
      Tensor t;
      t.name = name();
      g.initializers.push_back(std::move(t));
    }
    for (int k = 1 + pick(4); k > 0; --k) {
      Node n = op("Sum", {}, {name()});
      for (int i = pick(3); i > 0; --i) n.inputs.push_back(pick(5) == 0 ? std::string() : name());
      if (depth < 5 && pick(2) == 0) {
        n.op_type = "If";
        n.set_attribute({"then_branch", self(self, depth + 1)});
        if (pick(2) == 0) n.set_attribute({"else_branch", self(self, depth + 1)});
      }
      g.nodes.push_back(std::move(n));
    }
    g.outputs.emplace_back(name(), Type{});
    return g;
  };
  std::size_t entries = 0, nonempty = 0;
  for (int round = 0; round < 300; ++round) {
    const Graph g = make(make, 0);
    std::vector<const Graph*> preorder;
    auto walk = [&](auto& self, const Graph& h) -> void {
      for (const auto& n : h.nodes)
        for (const auto& sub : views::subgraphs(n)) {
          preorder.push_back(&sub);
          self(self, sub);
        }
    };
    walk(walk, g);
    std::vector<detail::SubgraphNames> subs;
    detail::collect_subgraph_names(g, subs, 0);
    REQUIRE(subs.size() == preorder.size());
    for (std::size_t i = 0; i < subs.size(); ++i) {
      CHECK(subs[i].reads_outside == captured_names(*preorder[i]));
      std::unordered_set<std::string> defines;
      for (const auto& d : views::defined_names(*preorder[i])) defines.insert(d);
      CHECK(subs[i].defines == defines);
      nonempty += subs[i].reads_outside.empty() ? 0 : 1;
    }
    entries += subs.size();
  }
  CHECK(entries > 1000);
  CHECK(nonempty > entries / 4);
}

TEST_CASE("remove_identity_nodes: chains, interface, subgraphs, value_info") {
  Graph g;
  g.inputs.emplace_back("x", Type{});
  g.nodes.push_back(op("Identity", {"x"}, {"i1"}));
  g.nodes.push_back(op("Identity", {"i1"}, {"i2"}));  // a chain: both go, readers read x
  g.nodes.push_back(op("Relu", {"i2"}, {"r"}));
  g.nodes.push_back(op("Identity", {"r"}, {"y"}));    // a graph output: stays
  Node if_node = op("If", {"r"}, {"z"});
  if_node.set_attribute({"then_branch", branch("t", {op("Identity", {"i1"}, {"t0"}), op("Neg", {"t0"}, {"t1"})}, "t1")});
  if_node.set_attribute({"else_branch", branch("e", {op("Identity", {"r"}, {"e0"})}, "e0")});  // a branch output: stays
  g.nodes.push_back(if_node);
  g.outputs.emplace_back("y", Type{});
  g.outputs.emplace_back("z", Type{});
  g.value_info.emplace_back("i1", Type{});
  g.value_info.emplace_back("r", Type{});

  CHECK(remove_identity_nodes(g) == 3);
  REQUIRE(g.nodes.size() == 3);
  CHECK(g.nodes[0].op_type == "Relu");
  CHECK(g.nodes[0].inputs[0] == "x");
  CHECK(g.nodes[1].op_type == "Identity");
  const Graph& t = g.nodes[2].attributes[0].as_graph();
  REQUIRE(t.nodes.size() == 1);
  CHECK(t.nodes[0].inputs[0] == "x");  // Identity(i1) inside, then i1 itself: both rewired to x
  CHECK(g.nodes[2].attributes[1].as_graph().nodes.size() == 1);
  REQUIRE(g.value_info.size() == 1);
  CHECK(g.value_info[0].name == "r");
  CHECK(remove_identity_nodes(g) == 0);

  // A cycle of Identities (an invalid graph) and a name defined twice are left alone.
  Graph c;
  c.nodes.push_back(op("Identity", {"q"}, {"p"}));
  c.nodes.push_back(op("Identity", {"p"}, {"q"}));
  c.nodes.push_back(op("Identity", {"x"}, {"d"}));
  c.nodes.push_back(op("Neg", {"x"}, {"d"}));
  c.nodes.push_back(op("Relu", {"d"}, {"out"}));
  const Graph cyc = c;
  CHECK(remove_identity_nodes(c) == 0);
  CHECK(c == cyc);

  // A branch that reads the Identity's output and defines a value named like its input.
  Graph s;
  s.inputs.emplace_back("x", Type{});
  s.nodes.push_back(op("Identity", {"x"}, {"a"}));
  Node sif = op("If", {"x"}, {"r"});
  sif.set_attribute({"then_branch", branch("t", {op("Neg", {"a"}, {"x"})}, "x")});
  sif.set_attribute({"else_branch", branch("e", {op("Neg", {"a"}, {"w"})}, "w")});
  s.nodes.push_back(sif);
  const Graph kept = s;
  CHECK(remove_identity_nodes(s) == 0);
  CHECK(s == kept);

  // An Identity holding attributes (not in its schema; a fuzzed file held a subgraph there, and
  // removing the node dropped it) stays, whatever reads it.
  Graph h;
  h.inputs.emplace_back("x", Type{});
  Node odd = op("Identity", {"x"}, {"a"});
  odd.set_attribute({"body", branch("b", {op("Neg", {"a"}, {"n"})}, "n")});
  h.nodes.push_back(odd);
  h.nodes.push_back(op("Relu", {"a"}, {"y"}));
  h.outputs.emplace_back("y", Type{});
  const Graph held = h;
  CHECK(remove_identity_nodes(h) == 0);
  CHECK(h == held);
}

namespace {
// Inserts seeded Identity nodes in front of node inputs (chains of up to three), in the graph
// and its subgraphs, with value_info for some. Returns how many.
std::size_t insert_identities(Graph& g, std::mt19937& rng, int& serial) {
  return corpus::insert_chains(
      g, rng, serial, "__id", [](const std::string& in, const std::string& out) { return op("Identity", {in}, {out}); },
      [](std::mt19937& r) { return 1 + static_cast<int>(r() % 3); });
}
}  // namespace

TEST_CASE("remove_identity_nodes takes out exactly the Identities inserted into every libonnx-testdata model") {
  if (!corpus::available()) {
    MESSAGE("libonnx-testdata not installed: skipped");
    return;
  }
  std::mt19937 rng(1128);
  std::size_t shipped = 0, inserted = 0;
  const std::size_t models = corpus::for_each_model([&](const std::string& path, Model& clean) {
    shipped += remove_identity_nodes(clean.graph);
    Model with = clean;
    int serial = 0;
    const std::size_t added = insert_identities(with.graph, rng, serial);
    inserted += added;
    // value_info entries were added for some of them: those go with their nodes.
    CHECK_MESSAGE(remove_identity_nodes(with.graph) == added, path);
    CHECK_MESSAGE(with == clean, path);
  });
  MESSAGE(models << " models; Identity nodes as shipped and removed: " << shipped << "; inserted and removed: " << inserted);
  CHECK(models > 1000);
  CHECK(inserted > 1000);
}

}  // namespace oxir_unit_test_edit
