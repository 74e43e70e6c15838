// Pattern rewriting (rewrite/pattern.hpp): matching (types, domains, shared variables, output
// slots, conditions), what blocks a match (interior values read elsewhere, by a subgraph, or as
// graph outputs), replacements that are new nodes or existing values, graph outputs keeping
// their names, sweeps to a fixed point, subgraphs, errors; then every libonnx-testdata model with
// seeded negation pairs inserted, which a rule must take out exactly.
#include <doctest/doctest.h>

#include <oxir/io.hpp>
#include <oxir/rewrite/pattern.hpp>

#include "corpus_util.hpp"
#include "graph_util.hpp"

#include <algorithm>
#include <cstdint>
#include <random>
#include <unordered_map>
#include <unordered_set>
#include <string>
#include <vector>

namespace oxir_unit_test_pattern {

using namespace oxir;

namespace {
using graph_util::op;
using graph_util::ops_of;

// Neg(Neg(x)) -> x, for negations of `domain`.
RewriteRule double_negation(std::string domain = {}) {
  RewriteRule r;
  r.name = "double negation";
  auto x = r.pattern.any("x");
  r.pattern.op("Neg", {r.pattern.op("Neg", {x}, {.domain = domain})}, {.domain = domain});
  r.replace = [](const Match& m) -> std::optional<std::vector<Value>> { return std::vector<Value>{m["x"]}; };
  return r;
}
}  // namespace

TEST_CASE("apply_rewrites: Neg(Neg(x)) -> x, chains, value_info, graph outputs") {
  Graph g;
  g.inputs.emplace_back("X", Type{});
  g.nodes.push_back(op("Neg", {"X"}, {"a"}));
  g.nodes.push_back(op("Neg", {"a"}, {"b"}));
  g.nodes.push_back(op("Neg", {"b"}, {"c"}));
  g.nodes.push_back(op("Neg", {"c"}, {"d"}));
  g.nodes.push_back(op("Relu", {"d"}, {"r"}));
  g.nodes.push_back(op("Neg", {"r"}, {"e"}));
  g.nodes.push_back(op("Neg", {"e"}, {"Y"}));  // the root's output is a graph output
  g.outputs.emplace_back("Y", Type{});
  g.value_info.emplace_back("a", Type{});
  g.value_info.emplace_back("d", Type{});
  g.value_info.emplace_back("r", Type{});
  const RewriteRule rules[] = {double_negation()};
  auto res = apply_rewrites(g, rules);
  CHECK(res.rewrites == 3);
  CHECK(res.per_rule == std::vector<std::size_t>{3});
  CHECK(res.converged);
  CHECK(res.nodes_removed == 6);
  CHECK(res.nodes_added == 1);
  CHECK(ops_of(g) == std::vector<std::string>{"Relu", "Identity"});
  CHECK(g.nodes[0].inputs == std::vector<std::string>{"X"});
  CHECK(g.nodes[1].inputs == std::vector<std::string>{"r"});
  CHECK(g.nodes[1].outputs == std::vector<std::string>{"Y"});
  CHECK(g.outputs[0].name == "Y");
  REQUIRE(g.value_info.size() == 1);  // a (interior) and d (rewired away) are gone
  CHECK(g.value_info[0].name == "r");
  // A fixed point: nothing more to do.
  CHECK(apply_rewrites(g, rules).rewrites == 0);
}

TEST_CASE("apply_rewrites: interior values read elsewhere block a match") {
  Graph g;
  g.inputs.emplace_back("X", Type{});
  g.nodes.push_back(op("Neg", {"X"}, {"a"}));
  g.nodes.push_back(op("Neg", {"a"}, {"b"}));
  g.nodes.push_back(op("Abs", {"a"}, {"c"}));  // a is read outside the match
  g.nodes.push_back(op("Neg", {"X"}, {"p"}));
  g.nodes.push_back(op("Neg", {"p"}, {"q"}));  // p is a graph output
  g.nodes.push_back(op("Neg", {"X"}, {"s"}));
  g.nodes.push_back(op("Neg", {"s"}, {"t"}));  // s is read by a subgraph
  Graph body;
  body.name = "then";
  body.nodes.push_back(op("Abs", {"s"}, {"u"}));
  body.outputs.emplace_back("u", Type{});
  Node if_node = op("If", {"X"}, {"v"});
  if_node.set_attribute({"then_branch", body});
  if_node.set_attribute({"else_branch", body});
  g.nodes.push_back(if_node);
  for (const char* o : {"b", "c", "p", "q", "t", "v"}) g.outputs.emplace_back(o, Type{});
  const Graph before = g;
  const RewriteRule rules[] = {double_negation()};
  CHECK(apply_rewrites(g, rules).rewrites == 0);
  CHECK(g == before);
}

TEST_CASE("apply_rewrites: a fusion building new nodes; shared variables; conditions; labels") {
  Model m;
  m.ir_version = 10;
  m.set_opset_version("", 21);
  Graph& g = m.graph;
  g.inputs.emplace_back("A", Type{});
  g.inputs.emplace_back("B", Type{});
  g.initializers.push_back(Tensor::from_values<float>("C", {4}, {1.f, 2.f, 3.f, 4.f}));
  g.nodes.push_back(op("MatMul", {"A", "B"}, {"ab"}));
  g.nodes.push_back(op("Add", {"ab", "C"}, {"y"}));
  g.nodes.push_back(op("Mul", {"y", "y"}, {"sq"}));  // Mul(x, x): the same value twice
  g.nodes.push_back(op("Mul", {"y", "sq"}, {"cube"}));
  g.outputs.emplace_back("cube", Type{});

  RewriteRule gemm;
  gemm.name = "MatMul+Add -> Gemm";
  {
    Pattern& p = gemm.pattern;
    auto mm = p.op("MatMul", {p.any("a"), p.any("b")}, {.label = "mm"});
    p.op("Add", {mm, p.any("c")}, {.label = "add"});
  }
  gemm.replace = [](const Match& m) -> std::optional<std::vector<Value>> {
    if (!m.graph().find_initializer(m.bound("c"))) return std::nullopt;  // only a constant bias
    CHECK(m.node("mm").op_type == "MatMul");
    CHECK(m.root().op_type == "Add");
    return std::vector<Value>{m.builder().op("Gemm", {m["a"], m["b"], m["c"]})};
  };
  RewriteRule square;
  square.name = "Mul(x, x) -> Pow(x, 2)";
  square.pattern.op("Mul", {square.pattern.any("x"), square.pattern.any("x")});
  square.replace = [](const Match& m) -> std::optional<std::vector<Value>> {
    Builder& b = m.builder();
    return std::vector<Value>{b.op("Pow", {m["x"], b.constant_scalar(2.0f)})};
  };
  const RewriteRule rules[] = {gemm, square};
  auto res = apply_rewrites(m, rules);
  CHECK(res.per_rule == std::vector<std::size_t>{1, 1});
  CHECK(ops_of(g) == std::vector<std::string>{"Gemm", "Constant", "Pow", "Mul"});
  CHECK(g.nodes[0].inputs == std::vector<std::string>{"A", "B", "C"});
  CHECK(g.nodes[0].outputs == std::vector<std::string>{"y"});  // the new node takes the old name
  CHECK(g.nodes[0].name == "Gemm");
  CHECK(g.nodes[2].inputs == std::vector<std::string>{"y", "Constant_output_0"});
  CHECK(g.nodes[2].outputs == std::vector<std::string>{"sq"});
  CHECK(g.nodes[3].inputs == std::vector<std::string>{"y", "sq"});  // Mul(y, sq) is not Mul(x, x)

  // The condition declines when the bias is not an initializer.
  Graph h;
  h.nodes.push_back(op("MatMul", {"A", "B"}, {"ab"}));
  h.nodes.push_back(op("Add", {"ab", "A"}, {"y"}));
  h.outputs.emplace_back("y", Type{});
  const Graph h_before = h;
  const RewriteRule only_gemm[] = {gemm};
  CHECK(apply_rewrites(h, only_gemm).rewrites == 0);
  CHECK(h == h_before);
}

TEST_CASE("apply_rewrites: output slots, domains, operators given an unimported domain") {
  Model m;
  m.ir_version = 10;
  m.set_opset_version("", 21);
  Graph& g = m.graph;
  g.nodes.push_back(op("Split", {"X"}, {"s0", "s1"}));
  g.nodes.push_back(op("Relu", {"s1"}, {"r1"}));
  g.nodes.push_back(op("Relu", {"s0"}, {"r0"}));
  g.nodes.push_back(op("Relu", {"X"}, {"rx"}, "custom"));
  for (const char* o : {"r0", "r1", "rx"}) g.outputs.emplace_back(o, Type{});

  RewriteRule second_half;  // Relu of Split's output 1 -> Abs (not a real identity; a marker)
  {
    Pattern& p = second_half.pattern;
    auto split = p.op("Split", {p.any("x")});
    p.op("Relu", {p.output(split, 1)});
  }
  // The Split's output 0 is read by the other Relu: the Split may not go, so no match.
  second_half.replace = [](const Match& m) -> std::optional<std::vector<Value>> {
    return std::vector<Value>{m.builder().op("Abs", {m["x"]})};
  };
  RewriteRule relu_any_domain;
  relu_any_domain.name = "Relu in the default domain -> Abs";
  relu_any_domain.pattern.op("Relu", {relu_any_domain.pattern.any("x")}, {.domain = "ai.onnx"});
  relu_any_domain.replace = second_half.replace;
  {
    Model c = m;
    const RewriteRule rules[] = {second_half};
    CHECK(apply_rewrites(c, rules).rewrites == 0);
  }
  {
    Model c = m;
    const RewriteRule rules[] = {relu_any_domain};
    auto res = apply_rewrites(c, rules);
    CHECK(res.rewrites == 2);  // the two default-domain Relus, not the custom one
    CHECK(ops_of(c.graph) == std::vector<std::string>{"Split", "Abs", "Abs", "Relu"});
    CHECK(c.graph.nodes[1].outputs == std::vector<std::string>{"r1"});
  }
  {
    // With output 0 unread, the Split goes with the Relu of its output 1.
    Model c = m;
    c.graph.nodes.erase(c.graph.nodes.begin() + 2);
    c.graph.outputs.erase(c.graph.outputs.begin());
    const RewriteRule rules[] = {second_half};
    CHECK(apply_rewrites(c, rules).rewrites == 1);
    CHECK(ops_of(c.graph) == std::vector<std::string>{"Abs", "Relu"});
    CHECK(c.graph.nodes[0].inputs == std::vector<std::string>{"X"});
  }
  {
    // A replacement in a domain the model does not import: an Error, naming the rule.
    Model c = m;
    RewriteRule bad = relu_any_domain;
    bad.replace = [](const Match& mt) -> std::optional<std::vector<Value>> {
      return std::vector<Value>{mt.builder().op("FastRelu", {mt["x"]}, {}, {.domain = "com.example"})};
    };
    const RewriteRule rules[] = {bad};
    CHECK_THROWS_WITH_AS(apply_rewrites(c, rules), doctest::Contains("com.example"), Error);
    // The wrong number of values, or replacing with a value that goes with the match.
    bad.replace = [](const Match&) -> std::optional<std::vector<Value>> { return std::vector<Value>{}; };
    const RewriteRule rules2[] = {bad};
    CHECK_THROWS_WITH_AS(apply_rewrites(c, rules2), doctest::Contains("gives 0 values for 1 outputs"), Error);
  }
}

TEST_CASE("apply_rewrites: inside subgraphs, and a rule that never reaches a fixed point") {
  Graph g;
  g.inputs.emplace_back("X", Type{});
  Graph body;
  body.name = "then";
  body.nodes.push_back(op("Neg", {"X"}, {"n1"}));  // outer X
  body.nodes.push_back(op("Neg", {"n1"}, {"n2"}));
  body.outputs.emplace_back("n2", Type{});
  Node if_node = op("If", {"X"}, {"Y"});
  if_node.set_attribute({"then_branch", body});
  if_node.set_attribute({"else_branch", body});
  g.nodes.push_back(if_node);
  g.outputs.emplace_back("Y", Type{});
  const RewriteRule rules[] = {double_negation()};
  Graph no_sub = g;
  CHECK(apply_rewrites(no_sub, rules, {.subgraphs = false}).rewrites == 0);
  CHECK(apply_rewrites(g, rules).rewrites == 2);
  const Graph& t = g.nodes[0].attributes[0].as_graph();
  CHECK(ops_of(t) == std::vector<std::string>{"Identity"});  // a branch output keeps its name
  CHECK(t.nodes[0].inputs == std::vector<std::string>{"X"});
  CHECK(t.nodes[0].outputs == std::vector<std::string>{"n2"});

  // A rewired value read inside a subgraph: the subgraph's read follows.
  Graph outer;
  outer.inputs.emplace_back("X", Type{});
  outer.nodes.push_back(op("Neg", {"X"}, {"a"}));
  outer.nodes.push_back(op("Neg", {"a"}, {"b"}));
  Graph reader;
  reader.name = "reader";
  reader.nodes.push_back(op("Abs", {"b"}, {"ab"}));
  reader.outputs.emplace_back("ab", Type{});
  Node holder = op("If", {"X"}, {"Z"});
  holder.set_attribute({"then_branch", reader});
  holder.set_attribute({"else_branch", reader});
  outer.nodes.push_back(holder);
  outer.nodes.push_back(op("Relu", {"b"}, {"R"}));
  outer.outputs.emplace_back("Z", Type{});
  outer.outputs.emplace_back("R", Type{});
  CHECK(apply_rewrites(outer, rules).rewrites == 1);
  CHECK(ops_of(outer) == std::vector<std::string>{"If", "Relu"});
  CHECK(outer.nodes[0].attributes[0].as_graph().nodes[0].inputs[0] == "X");
  CHECK(outer.nodes[0].attributes[1].as_graph().nodes[0].inputs[0] == "X");
  CHECK(outer.nodes[1].inputs[0] == "X");

  // Relu(x) -> Relu(x): matches forever; stops after max_sweeps and says so.
  RewriteRule loop;
  loop.name = "churn";
  loop.pattern.op("Relu", {loop.pattern.any("x")});
  loop.replace = [](const Match& m) -> std::optional<std::vector<Value>> {
    return std::vector<Value>{m.builder().op("Relu", {m["x"]})};
  };
  Graph r;
  r.nodes.push_back(op("Relu", {"X"}, {"y"}));
  r.outputs.emplace_back("y", Type{});
  const RewriteRule churn[] = {loop};
  auto res = apply_rewrites(r, churn, {.max_sweeps = 3});
  CHECK_FALSE(res.converged);
  CHECK(res.rewrites == 3);
  CHECK(r.nodes.size() == 1);
  CHECK(r.nodes[0].outputs == std::vector<std::string>{"y"});
  CHECK(r.nodes[0].name == "Relu_2");  // fresh names never reuse a name seen before
}

TEST_CASE("apply_rewrites: pattern errors") {
  Pattern p;
  CHECK_THROWS_AS(p.any(""), Error);
  CHECK_THROWS_AS(p.op("", {}), Error);
  CHECK_THROWS_AS(p.op("Relu", {Pattern::Ref{7}}), Error);
  auto x = p.any("x");
  CHECK_THROWS_AS(p.output(x, 1), Error);
  CHECK_THROWS_AS(p.root(x), Error);
  p.op("Relu", {x}, {.label = "r"});
  CHECK_THROWS_AS(p.op("Relu", {x}, {.label = "r"}), Error);
  Graph g;
  RewriteRule empty;
  empty.name = "empty";
  const RewriteRule rules[] = {empty};
  CHECK_THROWS_AS(apply_rewrites(g, rules), Error);
}

namespace {
// Add(Mul(x, y), z) -> test.Fma(x, y, z); commutative on both operators when `commute`.
RewriteRule fma_rule(bool commute) {
  RewriteRule r;
  r.name = "fma";
  Pattern& p = r.pattern;
  auto mul = p.op("Mul", {p.any("x"), p.any("y")}, {.commutative = commute});
  p.op("Add", {mul, p.any("z")}, {.commutative = commute});
  r.replace = [](const Match& m) -> std::optional<std::vector<Value>> {
    return std::vector<Value>{m.builder().op("Fma", {m["x"], m["y"], m["z"]}, {}, {.domain = "test"})};
  };
  return r;
}
}  // namespace

TEST_CASE("apply_rewrites: commutative operators match their inputs in either order") {
  Graph g;
  for (const char* in : {"A", "B", "C"}) g.inputs.emplace_back(in, Type{});
  g.nodes.push_back(op("Mul", {"A", "B"}, {"m1"}));
  g.nodes.push_back(op("Add", {"m1", "C"}, {"s1"}));  // as written
  g.nodes.push_back(op("Mul", {"A", "B"}, {"m2"}));
  g.nodes.push_back(op("Add", {"C", "m2"}, {"s2"}));  // the Add's inputs swapped
  g.nodes.push_back(op("Mul", {"A", "B"}, {"m3"}));
  g.nodes.push_back(op("Add", {"m3", "m3"}, {"s3"}));  // z would be the Mul's own output
  for (const char* out : {"s1", "s2", "s3"}) g.outputs.emplace_back(out, Type{});
  const Graph before = g;

  const RewriteRule strict[] = {fma_rule(false)};
  CHECK(apply_rewrites(g, strict).rewrites == 1);
  CHECK(ops_of(g) == std::vector<std::string>{"Fma", "Mul", "Add", "Mul", "Add"});

  g = before;
  const RewriteRule commuting[] = {fma_rule(true)};
  auto res = apply_rewrites(g, commuting);
  CHECK(res.rewrites == 2);
  CHECK(ops_of(g) == std::vector<std::string>{"Fma", "Fma", "Mul", "Add"});
  CHECK(g.nodes[0].inputs == std::vector<std::string>{"A", "B", "C"});
  CHECK(g.nodes[0].outputs == std::vector<std::string>{"s1"});
  CHECK(g.nodes[1].inputs == std::vector<std::string>{"A", "B", "C"});  // the order as written
  CHECK(g.nodes[1].outputs == std::vector<std::string>{"s2"});
  CHECK(g.nodes[3].inputs == std::vector<std::string>{"m3", "m3"});  // left alone, and still reads m3

  // Orders are tried until one matches: Mul(y, Add(x, Neg(y))) on Mul(Add(Neg(b), a), b) needs
  // both operators swapped, and y bound by the Neg to agree with the Mul's other input.
  Graph h;
  h.inputs.emplace_back("a", Type{});
  h.inputs.emplace_back("b", Type{});
  h.nodes.push_back(op("Neg", {"b"}, {"t"}));
  h.nodes.push_back(op("Add", {"t", "a"}, {"s"}));
  h.nodes.push_back(op("Mul", {"s", "b"}, {"r"}));
  h.nodes.push_back(op("Neg", {"a"}, {"t2"}));
  h.nodes.push_back(op("Add", {"t2", "a"}, {"s2"}));
  h.nodes.push_back(op("Mul", {"s2", "b"}, {"r2"}));  // Neg(a), not Neg(b): no match in any order
  h.outputs.emplace_back("r", Type{});
  h.outputs.emplace_back("r2", Type{});
  RewriteRule nested;
  nested.name = "nested";
  {
    Pattern& p = nested.pattern;
    auto y = p.any("y");
    auto add = p.op("Add", {p.any("x"), p.op("Neg", {y})}, {.commutative = true});
    p.op("Mul", {y, add}, {.commutative = true});
  }
  std::vector<std::pair<std::string, std::string>> seen;
  nested.replace = [&](const Match& m) -> std::optional<std::vector<Value>> {
    seen.emplace_back(m.bound("x"), m.bound("y"));
    return std::vector<Value>{m.builder().op("Found", {m["x"], m["y"]}, {}, {.domain = "test"})};
  };
  const RewriteRule nested_rules[] = {nested};
  CHECK(apply_rewrites(h, nested_rules).rewrites == 1);
  CHECK(seen == std::vector<std::pair<std::string, std::string>>{{"a", "b"}});
  CHECK(ops_of(h) == std::vector<std::string>{"Found", "Neg", "Add", "Mul"});
  CHECK(h.nodes[0].outputs == std::vector<std::string>{"r"});
}

TEST_CASE("apply_rewrites: a declined order gives way to the next; one match is offered once") {
  Graph g;
  g.inputs.emplace_back("A", Type{});
  g.inputs.emplace_back("B", Type{});
  g.nodes.push_back(op("Add", {"A", "B"}, {"y"}));
  g.nodes.push_back(op("Add", {"A", "A"}, {"z"}));
  g.outputs.emplace_back("y", Type{});
  g.outputs.emplace_back("z", Type{});
  RewriteRule r;
  r.name = "x must be B";
  r.pattern.op("Add", {r.pattern.any("x"), r.pattern.any("w")}, {.commutative = true});
  std::vector<std::pair<std::string, std::string>> offered;
  r.replace = [&](const Match& m) -> std::optional<std::vector<Value>> {
    offered.emplace_back(m.bound("x"), m.bound("w"));
    if (m.bound("x") != "B") return std::nullopt;
    return std::vector<Value>{m.builder().op("Sub", {m["x"], m["w"]})};
  };
  const RewriteRule rules[] = {r};
  CHECK(apply_rewrites(g, rules).rewrites == 1);
  // Add(A, B): as written (declined), then swapped; Add(A, A): swapping gives the same match.
  // The first sweep changed the graph, so a second one offers Add(A, A) once more.
  CHECK(offered ==
        std::vector<std::pair<std::string, std::string>>{{"A", "B"}, {"B", "A"}, {"A", "A"}, {"A", "A"}});
  CHECK(ops_of(g) == std::vector<std::string>{"Sub", "Add"});
  CHECK(g.nodes[0].inputs == std::vector<std::string>{"B", "A"});

  CHECK(is_commutative("Add"));
  CHECK(is_commutative("BitwiseXor"));
  CHECK_FALSE(is_commutative("Sub"));
  CHECK_FALSE(is_commutative("MatMul"));
  Pattern p;
  auto x = p.any("x");
  CHECK_THROWS_AS(p.op("Neg", {x}, {.commutative = true}), Error);
  CHECK_THROWS_AS(p.op("Sum", {x, x, x}, {.commutative = true}), Error);
  for (std::size_t i = 0; i < Pattern::kMaxCommutative; ++i) x = p.op("Add", {x, x}, {.commutative = true});
  CHECK_THROWS_AS(p.op("Add", {x, x}, {.commutative = true}), Error);
}

TEST_CASE("apply_rewrites with commutative operators on random arithmetic graphs: same values, every fusable Add fused") {
  std::mt19937 rng(36);
  std::size_t total = 0, as_written = 0;
  for (int trial = 0; trial < 300; ++trial) {
    Graph g;
    std::vector<std::string> values;
    const std::size_t n_in = 2 + rng() % 3;
    for (std::size_t i = 0; i < n_in; ++i) {
      values.push_back("i" + std::to_string(i));
      g.inputs.emplace_back(values.back(), Type{});
    }
    const std::size_t n_nodes = 1 + rng() % 30;
    const char* types[] = {"Add", "Sub", "Mul"};
    for (std::size_t k = 0; k < n_nodes; ++k) {
      // Mostly read recent values, so Muls often feed exactly one Add.
      auto pick = [&] { return values[values.size() - 1 - rng() % std::min<std::size_t>(values.size(), 4)]; };
      const std::string out = "v" + std::to_string(k);
      g.nodes.push_back(op(types[rng() % 3], {pick(), pick()}, {out}));
      values.push_back(out);
    }
    for (std::size_t k = 0; k < n_nodes; ++k)
      if (rng() % 4 == 0 || k + 1 == n_nodes) g.outputs.emplace_back(g.nodes[k].outputs[0], Type{});

    // The oracle: an Add one of whose inputs is a Mul's output that nothing else reads (not a
    // graph output, read once in all) is fused; nothing else is.
    std::unordered_map<std::string, std::size_t> reads;
    for (const auto& n : g.nodes)
      for (const auto& in : n.inputs) ++reads[in];
    for (const auto& o : g.outputs) ++reads[o.name];
    std::unordered_set<std::string> mul_outputs;
    for (const auto& n : g.nodes)
      if (n.op_type == "Mul") mul_outputs.insert(n.outputs[0]);
    const auto fusable = [&](const std::string& in) { return mul_outputs.contains(in) && reads[in] == 1; };
    std::size_t expected = 0;
    for (const auto& n : g.nodes)
      if (n.op_type == "Add") {
        if (fusable(n.inputs[0])) ++as_written;
        if (std::any_of(n.inputs.begin(), n.inputs.end(), fusable)) ++expected;
      }

    std::vector<std::vector<std::uint64_t>> samples;
    for (int s = 0; s < 3; ++s) {
      std::vector<std::uint64_t> in;
      for (std::size_t i = 0; i < n_in; ++i) in.push_back((std::uint64_t{rng()} << 32) | rng());
      samples.push_back(in);
    }
    std::vector<std::vector<std::uint64_t>> want;
    for (const auto& in : samples) want.push_back(graph_util::evaluate_u64(g, in));

    const RewriteRule rules[] = {fma_rule(true)};
    auto res = apply_rewrites(g, rules);
    CAPTURE(trial);
    CHECK(res.rewrites == expected);
    CHECK(res.converged);
    for (std::size_t s = 0; s < samples.size(); ++s) CHECK(graph_util::evaluate_u64(g, samples[s]) == want[s]);
    total += res.rewrites;
  }
  MESSAGE(total << " Add(Mul) pairs fused in 300 random graphs, " << as_written << " of them with the Mul first");
  CHECK(total > 80);
  CHECK(total > as_written + 30);
}

namespace {
// Inserts chains of 2 or 4 "test.pairs" negations in front of random node inputs (subgraphs too).
std::size_t insert_negation_pairs(Graph& g, std::mt19937& rng, int& serial) {
  return corpus::insert_chains(
      g, rng, serial, "__neg",
      [](const std::string& in, const std::string& out) { return op("Neg", {in}, {out}, "test.pairs"); },
      [](std::mt19937& r) { return 2 * (1 + static_cast<int>(r() % 2)); });
}
}  // namespace

TEST_CASE("apply_rewrites takes out exactly the negation pairs inserted into every libonnx-testdata model") {
  if (!corpus::available()) {
    MESSAGE("libonnx-testdata not installed: skipped");
    return;
  }
  std::mt19937 rng(1129);
  std::size_t inserted = 0;
  const RewriteRule rules[] = {double_negation("test.pairs")};
  const std::size_t models = corpus::for_each_model([&](const std::string& path, Model& clean) {
    Model with = clean;
    int serial = 0;
    const std::size_t added = insert_negation_pairs(with.graph, rng, serial);
    inserted += added;
    const auto res = apply_rewrites(with.graph, rules);
    CHECK_MESSAGE(res.nodes_removed == added, path);
    CHECK_MESSAGE(res.rewrites * 2 == added, path);
    CHECK_MESSAGE(with == clean, path);
  });
  MESSAGE(models << " models; negations inserted and removed: " << inserted);
  CHECK(models > 1000);
  CHECK(inserted > 1000);
}

}  // namespace oxir_unit_test_pattern
