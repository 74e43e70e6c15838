// extract_model (rewrite/extract.hpp): the nodes, initializers, value_info and functions a cut
// keeps; outer-scope reads of subgraphs; interface types declared, from initializers and
// inferred; IR < 4 initializers listed as inputs; errors for unknown or repeated names and
// incomplete cuts; and, over random DAGs, the oracle "a node is kept iff an output depends on it
// without passing through an input", with the sub-model evaluating to the same values.
#include <doctest/doctest.h>

#include <oxir/analysis/check.hpp>
#include <oxir/io/text.hpp>
#include <oxir/rewrite/extract.hpp>

#include "graph_util.hpp"

#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace oxir_unit_test_extract {

using namespace oxir;

namespace {

void run(const std::vector<Node>& nodes, std::unordered_map<std::string, std::uint64_t>& v) {
  for (const auto& n : nodes)
    v[n.outputs.at(0)] = graph_util::apply_u64(n, [&](std::size_t i) { return v.at(n.inputs.at(i)); });
}

std::vector<std::string> outputs_of(const Model& m) {
  std::vector<std::string> v;
  for (const auto& n : m.graph.nodes) v.push_back(n.outputs.at(0));
  return v;
}

const char* kChain = R"(<ir_version: 9, opset_import: ["" : 18, "local" : 1]>
g (float[N] x, float[N] unused) => (float[N] y)
  <float[1] w = {2}, float[1] v = {3}, float[N] b, float[N] c> {
  a = Mul (x, w)
  b = Add (a, v)
  c = Neg (b)
  d = Abs (unused)
  y = local.Twice (c)
}
<domain: "local", opset_import: ["" : 18, "local" : 1]>
Twice (t) => (u) { u = local.Inner (t) }
<domain: "local", opset_import: ["" : 18]>
Inner (t) => (u) { u = Add (t, t) }
<domain: "local", opset_import: ["" : 18]>
NotCalled (t) => (u) { u = Neg (t) }
)";

}  // namespace

TEST_CASE("extract: a middle cut keeps what lies between, and what it reads") {
  const auto m = parse_text_model(kChain);
  REQUIRE(check(m).ok());
  const auto e = extract_model(m, {"a"}, {"c"});
  CHECK(outputs_of(e) == std::vector<std::string>{"b", "c"});
  REQUIRE(e.graph.initializers.size() == 1);
  CHECK(e.graph.initializers[0].name == "v");
  REQUIRE(e.graph.inputs.size() == 1);
  CHECK(e.graph.inputs[0].name == "a");
  // `a` has no declared type: inference gives it.
  CHECK(*e.graph.inputs[0].type == Type::tensor(DataType::FLOAT, {"N"}));
  CHECK(*e.graph.outputs.at(0).type == Type::tensor(DataType::FLOAT, {"N"}));
  REQUIRE(e.graph.value_info.size() == 1);  // b; c became an output
  CHECK(e.graph.value_info[0].name == "b");
  CHECK(e.functions.empty());
  CHECK(e.opset_imports == m.opset_imports);
  CHECK(check(e).ok());

  // The whole chain: the functions called, directly and from a function body, come along.
  const auto whole = extract_model(m, {"x"}, {"y"});
  CHECK(outputs_of(whole) == std::vector<std::string>{"a", "b", "c", "y"});
  REQUIRE(whole.functions.size() == 2);
  CHECK(whole.functions[0].name == "Twice");
  CHECK(whole.functions[1].name == "Inner");
  CHECK(check(whole).ok());

  // Without inference, an undeclared interface value is an error; an initializer as an input
  // takes the tensor's type and is no longer an initializer.
  ExtractOptions no_infer;
  no_infer.infer_types = false;
  CHECK_THROWS_WITH_AS((void)extract_model(m, {"a"}, {"c"}, no_infer), doctest::Contains("no type is known for 'a'"),
                       Error);
  const auto w_in = extract_model(m, {"x", "w"}, {"b"}, no_infer);
  REQUIRE(w_in.graph.initializers.size() == 1);
  CHECK(w_in.graph.initializers[0].name == "v");
  CHECK(*w_in.graph.inputs[1].type == Type::tensor(DataType::FLOAT, {1}));
  // An output that is an input passes through.
  const auto pass = extract_model(m, {"b"}, {"b", "c"});
  CHECK(outputs_of(pass) == std::vector<std::string>{"c"});
  CHECK(check(pass).ok());
}

TEST_CASE("extract: errors") {
  const auto m = parse_text_model(kChain);
  CHECK_THROWS_WITH_AS((void)extract_model(m, {"x"}, {"nope"}), doctest::Contains("outputs[0]: 'nope' is not a value"),
                       Error);
  CHECK_THROWS_WITH_AS((void)extract_model(m, {"x", "x"}, {"y"}), doctest::Contains("inputs[1]: 'x' is given twice"),
                       Error);
  CHECK_THROWS_WITH_AS((void)extract_model(m, {"x"}, {""}), doctest::Contains("an empty name"), Error);
  // A cut that leaves a graph input the outputs need.
  CHECK_THROWS_WITH_AS((void)extract_model(m, {"unused"}, {"c"}),
                       doctest::Contains("'c' needs the graph input 'x', which is not among the inputs"), Error);
}

TEST_CASE("extract: values a subgraph reads from outside are computed too") {
  const auto m = parse_text_model(R"(<ir_version: 9, opset_import: ["" : 18]>
g (bool c, float[2] x) => (float[2] y) <float[2] k = {1, 2}> {
  s = Sin (x)
  t = Cos (x)
  y = If (c) <then_branch = a () => (float[2] z) { z = Add (s, k) },
              else_branch = b () => (float[2] z) { z = Neg (t) }>
}
)");
  const auto e = extract_model(m, {"c", "x"}, {"y"});
  CHECK(outputs_of(e) == std::vector<std::string>{"s", "t", "y"});
  REQUIRE(e.graph.initializers.size() == 1);  // k, read only inside a branch
  CHECK(check(e).ok());
  // Cutting at s: Cos still needs x.
  CHECK_THROWS_WITH_AS((void)extract_model(m, {"c", "s"}, {"y"}), doctest::Contains("graph input 'x'"), Error);
  const auto e2 = extract_model(m, {"c", "s", "t"}, {"y"});
  CHECK(outputs_of(e2) == std::vector<std::string>{"y"});
  CHECK(check(e2).ok());
}

TEST_CASE("extract: IR version 3 lists the initializers kept among the inputs") {
  auto m = parse_text_model(R"(<ir_version: 3, opset_import: ["" : 8]>
g (float[2] x, float[2] w) => (float[2] y) <float[2] w = {1, 2}> {
  a = Add (x, w)
  y = Neg (a)
}
)");
  const auto e = extract_model(m, {"a"}, {"y"});
  CHECK(e.graph.inputs.size() == 1);
  const auto e2 = extract_model(m, {"x"}, {"y"});
  REQUIRE(e2.graph.inputs.size() == 2);
  CHECK(e2.graph.inputs[1].name == "w");
  CHECK(e2.graph.initializers.size() == 1);
  CHECK(check(e2).ok());
}

TEST_CASE("extract: random cuts of random graphs keep exactly the nodes the outputs depend on") {
  std::mt19937 rng(20261129);
  int checked = 0;
  for (int trial = 0; trial < 300; ++trial) {
    // A random DAG of two-input Add/Mul/Sub nodes over int64 scalars.
    Model m;
    m.ir_version = 9;
    m.set_opset_version("", 18);
    m.graph.name = "g";
    std::vector<std::string> values;
    const int n_in = 1 + static_cast<int>(rng() % 3);
    for (int i = 0; i < n_in; ++i) {
      values.push_back("in" + std::to_string(i));
      m.graph.inputs.emplace_back(values.back(), Type::tensor(DataType::INT64, Shape{}));
    }
    if (rng() % 2) {
      m.graph.initializers.push_back(Tensor::from_values<std::int64_t>("k", {}, {7}));
      values.push_back("k");
    }
    const int n_nodes = 2 + static_cast<int>(rng() % 12);
    static const char* ops[] = {"Add", "Mul", "Sub"};
    for (int i = 0; i < n_nodes; ++i) {
      const auto a = values[rng() % values.size()], b = values[rng() % values.size()];
      values.push_back("v" + std::to_string(i));
      m.graph.nodes.push_back(Node(ops[rng() % 3], {a, b}, {values.back()}));
      m.graph.value_info.emplace_back(values.back(), Type::tensor(DataType::INT64, Shape{}));
    }
    m.graph.outputs.emplace_back(values.back(), Type::tensor(DataType::INT64, Shape{}));
    // A random cut: some node outputs as inputs, with every graph input; outputs downstream.
    std::vector<std::string> cut_in, cut_out;
    std::set<std::string> chosen;
    for (int i = 0; i < n_in; ++i) cut_in.push_back("in" + std::to_string(i));
    for (int i = 0; i < n_nodes; ++i)
      if (rng() % 4 == 0) cut_in.push_back("v" + std::to_string(i));
    for (const auto& v : cut_in) chosen.insert(v);
    for (int i = 0; i < n_nodes; ++i)
      if (rng() % 3 == 0 && !chosen.count("v" + std::to_string(i))) cut_out.push_back("v" + std::to_string(i));
    if (cut_out.empty()) cut_out.push_back(values.back());
    const auto e = extract_model(m, cut_in, cut_out);
    // Oracle: node j is kept iff some output reaches it backwards without crossing a cut input.
    std::unordered_map<std::string, int> producer;
    for (int j = 0; j < n_nodes; ++j) producer["v" + std::to_string(j)] = j;
    std::vector<bool> need(static_cast<std::size_t>(n_nodes));
    std::vector<std::string> todo(cut_out.begin(), cut_out.end());
    while (!todo.empty()) {
      const auto v = todo.back();
      todo.pop_back();
      if (chosen.count(v) || !producer.count(v) || need[static_cast<std::size_t>(producer[v])]) continue;
      need[static_cast<std::size_t>(producer[v])] = true;
      for (const auto& in : m.graph.nodes[static_cast<std::size_t>(producer[v])].inputs) todo.push_back(in);
    }
    std::vector<std::string> want;
    for (int j = 0; j < n_nodes; ++j)
      if (need[static_cast<std::size_t>(j)]) want.push_back("v" + std::to_string(j));
    CHECK(outputs_of(e) == want);
    CHECK(check(e).ok());
    // Evaluated on the values the full model gives the cut inputs, the sub-model gives the same
    // outputs.
    std::unordered_map<std::string, std::uint64_t> full;
    for (int i = 0; i < n_in; ++i) full["in" + std::to_string(i)] = rng();
    full["k"] = 7;
    run(m.graph.nodes, full);
    std::unordered_map<std::string, std::uint64_t> part;
    for (const auto& v : cut_in) part[v] = full[v];
    for (const auto& t : e.graph.initializers) part[t.name] = 7;
    run(e.graph.nodes, part);
    for (const auto& o : cut_out) CHECK(part.at(o) == full.at(o));
    ++checked;
  }
  CHECK(checked == 300);
}

}  // namespace oxir_unit_test_extract
