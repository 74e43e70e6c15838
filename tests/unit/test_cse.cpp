// eliminate_common_subexpressions (rewrite/cse.hpp): repeated chains merged in one pass,
// constants compared bit for bit, what must stay (random operators, other domains, subgraph
// holders, graph outputs, renames a subgraph would hide), subgraph readers rewired, unsorted
// graphs; random arithmetic graphs against a separately written value-numbering oracle and by
// evaluation; and every libonnx-testdata model with duplicated nodes seeded in, which the pass
// must take out to give what it gives for the model as shipped.
#include <doctest/doctest.h>

#include <oxir/analysis/check.hpp>
#include <oxir/io.hpp>
#include <oxir/rewrite/cse.hpp>

#include "corpus_util.hpp"
#include "graph_util.hpp"

#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

namespace oxir_unit_test_cse {

using namespace oxir;
using graph_util::op;
using graph_util::ops_of;

TEST_CASE("eliminate_common_subexpressions: repeated chains, constants, value_info") {
  Graph g;
  g.inputs.emplace_back("X", Type{});
  g.nodes.push_back(op("Shape", {"X"}, {"s1"}));
  g.nodes.push_back(Node("Constant", {}, {"i1"}, "c1"));
  g.nodes.back().attributes.emplace_back("value", Tensor::from_values<std::int64_t>("", {}, {1}));
  g.nodes.push_back(op("Gather", {"s1", "i1"}, {"g1"}));
  g.nodes.push_back(op("Shape", {"X"}, {"s2"}));  // the same chain again
  g.nodes.push_back(Node("Constant", {}, {"i2"}, "c2"));
  g.nodes.back().attributes.emplace_back("value", Tensor::from_values<std::int64_t>("", {}, {1}));
  g.nodes.push_back(op("Gather", {"s2", "i2"}, {"g2"}));
  g.nodes.push_back(Node("Constant", {}, {"i3"}, "c3"));  // another value
  g.nodes.back().attributes.emplace_back("value", Tensor::from_values<std::int64_t>("", {}, {2}));
  g.nodes.push_back(op("Gather", {"s2", "i3"}, {"g3"}));
  g.nodes.push_back(op("Concat", {"g1", "g2", "g3"}, {"Y"}));
  g.nodes.back().attributes.emplace_back("axis", std::int64_t{0});
  g.outputs.emplace_back("Y", Type{});
  g.value_info.emplace_back("s2", Type{});
  g.value_info.emplace_back("g1", Type{});

  CHECK(eliminate_common_subexpressions(g) == 3);
  CHECK(ops_of(g) == std::vector<std::string>{"Shape", "Constant", "Gather", "Constant", "Gather", "Concat"});
  CHECK(g.nodes[4].inputs == std::vector<std::string>{"s1", "i3"});
  CHECK(g.nodes[5].inputs == std::vector<std::string>{"g1", "g1", "g3"});
  REQUIRE(g.value_info.size() == 1);
  CHECK(g.value_info[0].name == "g1");
  CHECK(eliminate_common_subexpressions(g) == 0);  // a fixed point in one pass

  // Floats compare bit for bit: 0.0 and -0.0 are different constants.
  Graph f;
  f.nodes.push_back(Node("Constant", {}, {"z1"}));
  f.nodes.back().attributes.emplace_back("value_float", 0.0f);
  f.nodes.push_back(Node("Constant", {}, {"z2"}));
  f.nodes.back().attributes.emplace_back("value_float", -0.0f);
  f.nodes.push_back(Node("Constant", {}, {"z3"}));
  f.nodes.back().attributes.emplace_back("value_float", 0.0f);
  f.nodes.push_back(op("Sum", {"z1", "z2", "z3"}, {"S"}));
  f.outputs.emplace_back("S", Type{});
  CHECK(eliminate_common_subexpressions(f) == 1);
  CHECK(f.nodes.back().inputs == std::vector<std::string>{"z1", "z2", "z1"});

  // Attributes declared with a type but no value (a hostile or truncated file) are compared,
  // not read: no exception, and equal declarations are equal.
  Graph e;
  for (const char* o : {"e1", "e2"}) {
    e.nodes.push_back(Node("Constant", {}, {o}));
    Attribute a;
    a.name = "value";
    a.type = AttributeType::TENSOR;
    e.nodes.back().attributes.push_back(a);
    a.name = "axis";
    a.type = AttributeType::INT;
    e.nodes.back().attributes.push_back(a);
  }
  e.nodes.push_back(op("Add", {"e1", "e2"}, {"E"}));
  e.outputs.emplace_back("E", Type{});
  size_t merged = 0;
  CHECK_NOTHROW(merged = eliminate_common_subexpressions(e));
  CHECK(merged == 1);
}

TEST_CASE("eliminate_common_subexpressions: what stays") {
  Graph g;
  g.inputs.emplace_back("X", Type{});
  for (const char* o : {"r1", "r2"}) {  // random: two draws
    g.nodes.push_back(op("RandomNormalLike", {"X"}, {o}));
  }
  for (const char* o : {"d1", "d2"}) g.nodes.push_back(op("Dropout", {"X"}, {o}));
  for (const char* o : {"m1", "m2"}) g.nodes.push_back(op("Gelu", {"X"}, {o}, "com.microsoft"));  // other domain
  for (const char* o : {"u1", "u2"}) {  // the same Unique, one with its optional outputs
    g.nodes.push_back(op("Unique", {"X"}, {o}));
  }
  g.nodes.back().outputs = {"u2", "idx", "inv", "cnt"};
  g.nodes.push_back(op("Abs", {"X"}, {"A1"}));  // a graph output
  g.nodes.push_back(op("Abs", {"X"}, {"A2"}));  // another graph output: stays
  g.nodes.push_back(op("Abs", {"X"}, {"a3"}));  // merges into A1
  g.nodes.push_back(op("Relu", {"X"}, {"p"}, "ai.onnx"));
  g.nodes.push_back(op("Relu", {"X"}, {"q"}));  // "" and ai.onnx are one domain
  for (const char* o : {"l1", "l2"}) {  // equal attributes, nothing reads them: l2 merges
    g.nodes.push_back(op("LeakyRelu", {"X"}, {o}));
    g.nodes.back().attributes.emplace_back("alpha", 0.5f);
  }
  g.nodes.push_back(op("LeakyRelu", {"X"}, {"l3"}));  // another alpha: stays
  g.nodes.back().attributes.emplace_back("alpha", 0.25f);
  g.nodes.push_back(op("Relu", {"a3"}, {"B"}));
  g.nodes.push_back(op("Sum", {"r1", "r2", "d1", "d2", "m1", "m2", "u1", "u2", "p", "q", "l1", "l2", "l3"}, {"S"}));
  for (const char* o : {"A1", "A2", "B", "S"}) g.outputs.emplace_back(o, Type{});
  CHECK(eliminate_common_subexpressions(g) == 3);  // a3 into A1, q into p, l2 into l1
  CHECK(g.nodes[g.nodes.size() - 2].inputs == std::vector<std::string>{"A1"});
  CHECK(g.nodes.back().inputs ==
        std::vector<std::string>{"r1", "r2", "d1", "d2", "m1", "m2", "u1", "u2", "p", "p", "l1", "l1", "l3"});
  CHECK(g.find_producer("A2") != nullptr);  // a graph output stays although it repeats A1
  for (const char* gone : {"a3", "q", "l2"}) CHECK(g.find_producer(gone) == nullptr);
}

TEST_CASE("eliminate_common_subexpressions: subgraphs read the kept value; names a subgraph hides; If holders stay") {
  Graph branch;
  branch.name = "then";
  branch.nodes.push_back(op("Neg", {"n2"}, {"t"}));  // reads the repeat from the outer graph
  branch.outputs.emplace_back("t", Type{});
  Graph hides;
  hides.name = "else";
  hides.nodes.push_back(op("Abs", {"h2"}, {"h1"}));  // defines h1 itself and reads h2
  hides.outputs.emplace_back("h1", Type{});

  Graph g;
  g.inputs.emplace_back("X", Type{});
  g.inputs.emplace_back("C", Type{});
  g.nodes.push_back(op("Neg", {"X"}, {"n1"}));
  g.nodes.push_back(op("Neg", {"X"}, {"n2"}));
  g.nodes.push_back(op("Exp", {"X"}, {"h1"}));
  g.nodes.push_back(op("Exp", {"X"}, {"h2"}));  // renaming h2 to h1 inside `hides` would read its own h1
  Node iff("If", {"C"}, {"Y"});
  iff.attributes.emplace_back("then_branch", branch);
  iff.attributes.emplace_back("else_branch", hides);
  g.nodes.push_back(iff);
  g.nodes.push_back(iff);  // the same If again: holders of subgraphs are never merged
  g.nodes.back().outputs = {"Y2"};
  g.outputs.emplace_back("Y", Type{});
  g.outputs.emplace_back("Y2", Type{});
  CHECK(eliminate_common_subexpressions(g) == 1);
  CHECK(ops_of(g) == std::vector<std::string>{"Neg", "Exp", "Exp", "If", "If"});
  CHECK(g.nodes[3].attributes[0].as_graph().nodes[0].inputs == std::vector<std::string>{"n1"});
  CHECK(g.nodes[3].attributes[1].as_graph().nodes[0].inputs == std::vector<std::string>{"h2"});

  // Inside a subgraph, duplicates merge too.
  Graph body;
  body.name = "b";
  body.nodes.push_back(op("Sqrt", {"X"}, {"b1"}));
  body.nodes.push_back(op("Sqrt", {"X"}, {"b2"}));
  body.nodes.push_back(op("Add", {"b1", "b2"}, {"bo"}));
  body.outputs.emplace_back("bo", Type{});
  Graph outer;
  outer.inputs.emplace_back("X", Type{});
  outer.inputs.emplace_back("C", Type{});
  Node iff2("If", {"C"}, {"Z"});
  iff2.attributes.emplace_back("then_branch", body);
  iff2.attributes.emplace_back("else_branch", body);
  outer.nodes.push_back(iff2);
  outer.outputs.emplace_back("Z", Type{});
  CHECK(eliminate_common_subexpressions(outer) == 2);
  CHECK(outer.nodes[0].attributes[1].as_graph().nodes[1].inputs == std::vector<std::string>{"b1", "b1"});
}

TEST_CASE("eliminate_common_subexpressions: a graph out of order is walked in dependency order") {
  Graph g;
  g.inputs.emplace_back("X", Type{});
  g.nodes.push_back(op("Mul", {"e2", "e1"}, {"Y"}));
  g.nodes.push_back(op("Exp", {"l1"}, {"e1"}));
  g.nodes.push_back(op("Log", {"X"}, {"l1"}));
  g.nodes.push_back(op("Exp", {"l2"}, {"e2"}));
  g.nodes.push_back(op("Log", {"X"}, {"l2"}));
  g.outputs.emplace_back("Y", Type{});
  CHECK(eliminate_common_subexpressions(g) == 2);
  CHECK(g.nodes[0].inputs == std::vector<std::string>{"e1", "e1"});
  CHECK(ops_of(g) == std::vector<std::string>{"Mul", "Exp", "Log"});
  // A cycle: left as it is.
  Graph c;
  c.nodes.push_back(op("Neg", {"b"}, {"a"}));
  c.nodes.push_back(op("Neg", {"a"}, {"b"}));
  c.nodes.push_back(op("Neg", {"a"}, {"b2"}));
  const Graph before = c;
  CHECK(eliminate_common_subexpressions(c) == 0);
  CHECK(c == before);
}

TEST_CASE("eliminate_common_subexpressions on random arithmetic graphs: the oracle's count, the same values") {
  std::mt19937 rng(3737);
  std::size_t total = 0;
  for (int trial = 0; trial < 300; ++trial) {
    Graph g;
    std::vector<std::string> values;
    for (int i = 0; i < 2; ++i) {
      values.push_back("x" + std::to_string(i));
      g.inputs.emplace_back(values.back(), Type{});
    }
    const char* types[] = {"Add", "Sub", "Mul", "Neg"};
    const std::size_t n_nodes = 1 + rng() % 40;
    for (std::size_t k = 0; k < n_nodes; ++k) {
      // Few inputs and operators, so the same expression comes up again and again.
      auto pick = [&] { return values[rng() % std::min<std::size_t>(values.size(), 5)]; };
      const std::string type = types[rng() % 4];
      const std::string out = "v" + std::to_string(k);
      g.nodes.push_back(type == "Neg" ? op(type, {pick()}, {out}) : op(type, {pick(), pick()}, {out}));
      values.push_back(out);
    }
    for (std::size_t k = 0; k < n_nodes; ++k)
      if (rng() % 5 == 0 || k + 1 == n_nodes) g.outputs.emplace_back(g.nodes[k].outputs[0], Type{});

    // The oracle: number each expression by its text over the numbers of its operands; a node
    // goes if its expression was seen before and its value is not a graph output.
    std::map<std::string, std::string> number_of_value;  // value -> expression number
    std::map<std::string, std::string> first;              // expression -> number
    for (const auto& in : g.inputs) number_of_value[in.name] = in.name;
    std::map<std::string, bool> is_output;
    for (const auto& o : g.outputs) is_output[o.name] = true;
    std::size_t expected = 0;
    for (const auto& n : g.nodes) {
      std::string text = n.op_type + "(";
      for (const auto& in : n.inputs) text += number_of_value.at(in) + ",";
      text += ")";
      auto it = first.find(text);
      if (it != first.end() && !is_output[n.outputs[0]]) {
        ++expected;
        number_of_value[n.outputs[0]] = it->second;
      } else {
        if (it == first.end()) it = first.emplace(text, "#" + std::to_string(first.size())).first;
        number_of_value[n.outputs[0]] = it->second;
      }
    }
    std::vector<std::vector<std::uint64_t>> samples, want;
    for (int s = 0; s < 3; ++s) {
      samples.push_back({(std::uint64_t{rng()} << 32) | rng(), (std::uint64_t{rng()} << 32) | rng()});
      want.push_back(graph_util::evaluate_u64(g, samples.back()));
    }
    CAPTURE(trial);
    const std::size_t removed = eliminate_common_subexpressions(g);
    CHECK(removed == expected);
    for (std::size_t s = 0; s < samples.size(); ++s) CHECK(graph_util::evaluate_u64(g, samples[s]) == want[s]);
    CHECK(eliminate_common_subexpressions(g) == 0);
    total += removed;
  }
  MESSAGE(total << " nodes merged in 300 random graphs");
  CHECK(total > 800);
}

namespace {
bool seedable(const Node& n) {
  if (!(n.domain.empty() || n.domain == "ai.onnx") || n.op_type.rfind("Random", 0) == 0 || n.op_type == "Dropout" ||
      n.op_type == "Multinomial" || n.op_type == "Bernoulli")
    return false;
  for (const auto& a : n.attributes)
    if (!views::attribute_graphs(a).empty() || !a.ref_attr_name.empty()) return false;
  return !n.outputs.empty();
}
}  // namespace

TEST_CASE("eliminate_common_subexpressions takes out the copies seeded into every libonnx-testdata model") {
  if (!corpus::available()) {
    MESSAGE("libonnx-testdata not installed: skipped");
    return;
  }
  std::mt19937 rng(20261129);
  std::size_t seeded = 0, already = 0;
  const std::size_t models = corpus::for_each_model([&](const std::string& path, Model& m) {
    CAPTURE(path);
    Model plain = m;
    already += eliminate_common_subexpressions(plain);
    // Copy about half the main graph's nodes right after themselves, under fresh output names,
    // and make about half of the node reads of each original read the copy.
    Graph& g = m.graph;
    std::vector<Node> nodes;
    std::unordered_map<std::string, std::string> copy_of;
    int serial = 0;
    for (auto& n : g.nodes) {
      nodes.push_back(n);
      if (!seedable(n) || rng() % 2) continue;
      Node c = n;
      c.name = n.name.empty() ? "" : n.name + "__copy";
      bool any = false;
      for (auto& o : c.outputs)
        if (!o.empty()) {
          const std::string fresh = "__copy" + std::to_string(serial++);
          copy_of[o] = fresh;
          o = fresh;
          any = true;
        }
      if (!any) continue;
      nodes.push_back(std::move(c));
      ++seeded;
    }
    for (auto& n : nodes)
      for (auto& in : n.inputs)
        if (auto it = copy_of.find(in); it != copy_of.end() && rng() % 2) in = it->second;
    g.nodes = std::move(nodes);
    const bool valid = check(plain).ok();
    eliminate_common_subexpressions(m);
    CHECK(m == plain);
    if (valid) CHECK(check(m).ok());
  });
  MESSAGE(seeded << " copies seeded into " << models << " models (" << already << " duplicates already there)");
  CHECK(models > 1000);
  CHECK(seeded > 1000);
}

}  // namespace oxir_unit_test_cse
