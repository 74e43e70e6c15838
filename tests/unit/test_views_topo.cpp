// Recursive node traversal (range-v3 views) and stable topological sorting.
#include <doctest/doctest.h>

#include <oxir/ir.hpp>

#include <range/v3/algorithm/count_if.hpp>
#include <range/v3/range/conversion.hpp>
#include <range/v3/view/filter.hpp>
#include <range/v3/view/transform.hpp>

#include <string>
#include <vector>

namespace oxir_unit_test_views_topo {

using namespace oxir;

namespace {
Node op(std::string type, std::vector<std::string> in, std::vector<std::string> out, std::string name = {}) {
  return Node(std::move(type), std::move(in), std::move(out), std::move(name));
}

// Main graph: A -> If(then: B, Loop(body: C); else: D) -> E
Graph nested() {
  Graph loop_body;
  loop_body.nodes.push_back(op("C", {"x"}, {"y"}, "c"));
  Graph then_g;
  then_g.nodes.push_back(op("B", {"a"}, {"b"}, "b"));
  Node loop = op("Loop", {"", "b"}, {"t"}, "loop");
  loop.set_attribute({"body", loop_body});
  then_g.nodes.push_back(loop);
  Graph else_g;
  else_g.nodes.push_back(op("D", {"a"}, {"t"}, "d"));

  Graph g;
  g.nodes.push_back(op("A", {"x"}, {"a"}, "a"));
  Node if_node = op("If", {"cond"}, {"r"}, "if");
  if_node.set_attribute({"then_branch", then_g});
  if_node.set_attribute({"else_branch", else_g});
  g.nodes.push_back(if_node);
  g.nodes.push_back(op("E", {"r"}, {"e"}, "e"));
  return g;
}
}  // namespace

TEST_CASE("all_nodes walks nested subgraphs depth-first, pre-order") {
  const Graph g = nested();
  auto names = views::all_nodes(g) | ranges::views::transform([](const Node& n) { return n.name; }) |
               ranges::to<std::vector<std::string>>();
  CHECK(names == std::vector<std::string>{"a", "if", "b", "loop", "c", "d", "e"});

  CHECK(ranges::count_if(views::all_nodes(g), [](const Node& n) { return n.op_type == "Loop"; }) == 1);
  Graph empty;
  CHECK(ranges::distance(views::all_nodes(empty)) == 0);
}

TEST_CASE("all_nodes on a mutable graph allows editing nodes in place") {
  Graph g = nested();
  for (Node& n : views::all_nodes(g)) n.doc_string = "seen";
  CHECK(g.nodes[1].find_attribute("then_branch")->as_graph().nodes[1].find_attribute("body")->as_graph().nodes[0].doc_string ==
        "seen");
}

TEST_CASE("subgraphs and defined_names") {
  const Graph g = nested();
  auto sub_names = views::subgraphs(g.nodes[1]) | ranges::views::transform([](const Graph& s) {
                     return s.nodes.front().name;
                   }) |
                   ranges::to<std::vector<std::string>>();
  CHECK(sub_names == std::vector<std::string>{"b", "d"});
  CHECK(ranges::distance(views::subgraphs(g.nodes[0])) == 0);

  Graph h;
  h.inputs.emplace_back("X");
  h.initializers.push_back(Tensor::from_values<float>("W", {1}, {1.f}));
  h.nodes.push_back(op("Split", {"X"}, {"s0", "s1"}));
  auto defined = views::defined_names(h) | ranges::to<std::vector<std::string>>();
  CHECK(defined == std::vector<std::string>{"X", "W", "s0", "s1"});
}

TEST_CASE("topological order is stable and sees subgraph captures") {
  Graph g;
  g.inputs.emplace_back("x");
  // Unsorted: c uses b's output, b uses a's, and the If's branch captures "late" from the end.
  g.nodes.push_back(op("C", {"b_out"}, {"c_out"}, "c"));           // 0
  g.nodes.push_back(op("B", {"a_out"}, {"b_out"}, "b"));           // 1
  Graph branch;
  branch.nodes.push_back(op("Identity", {"late"}, {"y"}));
  branch.outputs.emplace_back("y");
  Node if_node = op("If", {"x"}, {"if_out"}, "if");                // 2
  if_node.set_attribute({"then_branch", branch});
  if_node.set_attribute({"else_branch", branch});
  g.nodes.push_back(if_node);
  g.nodes.push_back(op("A", {"x"}, {"a_out"}, "a"));               // 3
  g.nodes.push_back(op("Late", {"x"}, {"late"}, "late"));          // 4
  g.nodes.push_back(op("Free", {"x"}, {"free"}, "free"));          // 5

  CHECK_FALSE(is_topologically_sorted(g));
  auto order = topological_order(g);
  // Ready first: A(3), Late(4), Free(5); lowest index first, then dependants as they free up.
  CHECK(order == std::vector<std::size_t>{3, 1, 0, 4, 2, 5});
  sort_topologically(g);
  CHECK(is_topologically_sorted(g));
  CHECK(topological_order(g) == std::vector<std::size_t>{0, 1, 2, 3, 4, 5});  // stable once sorted
  CHECK(g.nodes[4].name == "if");
  CHECK(captured_names(branch) == std::unordered_set<std::string>{"late"});
}

TEST_CASE("a cycle is reported with the node") {
  Graph g;
  g.name = "cyclic";
  g.nodes.push_back(op("P", {"q"}, {"p"}, "first"));
  g.nodes.push_back(op("Q", {"p"}, {"q"}, "second"));
  Graph before = g;
  CHECK_THROWS_WITH_AS(sort_topologically(g), "graph \"cyclic\".node[0] \"first\" (P): is on a dependency cycle",
                       Error);
  CHECK(g == before);
}

TEST_CASE("a node using its own output does not depend on itself") {
  Graph g;
  g.nodes.push_back(op("Odd", {"y"}, {"y"}));
  CHECK(topological_order(g) == std::vector<std::size_t>{0});
}

}  // namespace oxir_unit_test_views_topo
