// inline_functions (rewrite/inline.hpp): calls replaced by bodies with inputs, outputs and
// attributes bound and fresh names; outputs that are inputs or repeated; nested calls and
// subgraphs; calls inside If branches; opset imports; selection; errors leaving the model as it
// was; and a numeric check: models built from random nested functions evaluate the same before
// and after inlining (an evaluator that runs function calls directly).
#include <doctest/doctest.h>

#include <oxir/analysis/check.hpp>
#include <oxir/rewrite/inline.hpp>

#include "graph_util.hpp"

#include <cstdint>
#include <random>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace oxir_unit_test_inline {

using namespace oxir;

namespace {
using graph_util::op;
using graph_util::ops_of;
Model base_model() {
  Model m;
  m.ir_version = 10;
  m.set_opset_version("", 21);
  m.set_opset_version("local", 1);
  m.graph.name = "g";
  return m;
}
Type float_tensor() { return Type::tensor(DataType::FLOAT, {"N"}); }
Function function(std::string name, std::vector<std::string> in, std::vector<std::string> out, std::vector<Node> nodes) {
  Function f;
  f.name = std::move(name);
  f.domain = "local";
  f.inputs = std::move(in);
  f.outputs = std::move(out);
  f.nodes = std::move(nodes);
  f.opset_imports.push_back({"", 21, {}, {}});
  f.opset_imports.push_back({"local", 1, {}, {}});
  return f;
}
// Every value and node name in the graph (subgraphs too) once.
bool names_unique(const Graph& g) {
  std::unordered_set<std::string> values, nodes;
  for (const auto& d : views::defined_names(g))
    if (!values.insert(std::string(d)).second) return false;
  for (const auto& n : views::all_nodes(g)) {
    if (!n.name.empty() && !nodes.insert(n.name).second) return false;
    for (const auto& a : n.attributes)
      for (const auto& sub : views::attribute_graphs(a))
        for (const auto& d : views::defined_names(sub))
          if (!values.insert(std::string(d)).second) return false;
  }
  return true;
}
}  // namespace

TEST_CASE("inline_functions: two calls, fresh names, outputs keep their names, the function goes") {
  Model m = base_model();
  m.functions.push_back(function("sq_sum", {"x", "y"}, {"z"},
                                 {op("Add", {"x", "y"}, {"t"}), op("Mul", {"t", "t"}, {"z"})}));
  m.functions[0].value_info.emplace_back("t", float_tensor());
  Graph& g = m.graph;
  g.inputs.emplace_back("A", float_tensor());
  g.inputs.emplace_back("B", float_tensor());
  g.nodes.push_back(Node("sq_sum", {"A", "B"}, {"C"}, "first", "local"));
  g.nodes.push_back(Node("sq_sum", {"C", "A"}, {"D"}, "second", "local"));
  g.nodes.push_back(op("Relu", {"D"}, {"t"}));  // the graph has its own "t"
  g.outputs.emplace_back("t", float_tensor());
  REQUIRE(check(m).ok());

  const auto counts = inline_functions(m);
  CHECK(counts == InlineCounts{2, 4, 1});
  CHECK(m.functions.empty());
  CHECK(ops_of(g) == std::vector<std::string>{"Add", "Mul", "Add", "Mul", "Relu"});
  CHECK(g.nodes[0].inputs == std::vector<std::string>{"A", "B"});
  CHECK(g.nodes[0].outputs == std::vector<std::string>{"first/t"});
  CHECK(g.nodes[1].inputs == std::vector<std::string>{"first/t", "first/t"});
  CHECK(g.nodes[1].outputs == std::vector<std::string>{"C"});
  CHECK(g.nodes[0].name == "first/Add");
  CHECK(g.nodes[2].inputs == std::vector<std::string>{"C", "A"});
  CHECK(g.nodes[3].outputs == std::vector<std::string>{"D"});
  CHECK(g.nodes[4].inputs == std::vector<std::string>{"D"});
  REQUIRE(g.value_info.size() == 2);  // the function's value_info for each copy of t
  CHECK(g.value_info[0].name == "first/t");
  CHECK(g.value_info[1].name == "second/t");
  CHECK(names_unique(g));
  CHECK(check(m).ok());
  // Nothing left to inline.
  CHECK(inline_functions(m) == InlineCounts{});
}

TEST_CASE("inline_functions: attribute references, defaults, absent ones; outputs that are inputs or repeated") {
  Model m = base_model();
  Function f = function("f", {"x", "opt"}, {"y", "x", "y", "w"},
                        {Node("LeakyRelu", {"x"}, {"l"}, "lr"), Node("Transpose", {"l"}, {"y"}, "tr"),
                         Node("Clip", {"y", "opt"}, {"w"}, "clip")});
  f.nodes[0].attributes.push_back(Attribute::reference("alpha", "slope", AttributeType::FLOAT));
  f.nodes[1].attributes.push_back(Attribute::reference("perm", "perm", AttributeType::INTS));
  f.nodes[2].attributes.push_back(Attribute::reference("unused", "nothing", AttributeType::INT));
  f.attributes = {"perm", "nothing"};
  f.attribute_protos.emplace_back("slope", 0.25f);
  m.functions.push_back(f);
  Graph& g = m.graph;
  g.inputs.emplace_back("X", Type::tensor(DataType::FLOAT, {2, 3}));
  Node call("f", {"X"}, {"Y", "X2", "Y2", ""}, "call", "local");  // opt left out, w not wanted
  call.attributes.emplace_back("perm", std::vector<std::int64_t>{1, 0});
  g.nodes.push_back(call);
  for (const char* o : {"Y", "X2", "Y2"}) g.outputs.emplace_back(o, Type::tensor(DataType::FLOAT, {}));
  REQUIRE(check(m).ok());

  const Model before = m;
  CHECK(inline_functions(m).calls == 1);
  CHECK(ops_of(g) == std::vector<std::string>{"LeakyRelu", "Transpose", "Clip", "Identity", "Identity"});
  REQUIRE(g.nodes[0].attributes.size() == 1);
  CHECK(g.nodes[0].attributes[0].name == "alpha");
  CHECK(g.nodes[0].attributes[0].as_float() == 0.25f);  // the default
  CHECK(g.nodes[0].attributes[0].ref_attr_name.empty());
  REQUIRE(g.nodes[1].attributes.size() == 1);
  CHECK(g.nodes[1].attributes[0].as_ints() == std::vector<std::int64_t>{1, 0});  // the call's
  CHECK(g.nodes[1].outputs == std::vector<std::string>{"Y"});
  CHECK(g.nodes[2].attributes.empty());  // bound to nothing: left out
  CHECK(g.nodes[2].inputs == std::vector<std::string>{"Y", ""});  // the absent input stays absent
  CHECK(g.nodes[2].outputs == std::vector<std::string>{"call/w"});
  CHECK(g.nodes[3].inputs == std::vector<std::string>{"X"});  // output 1 is the input x
  CHECK(g.nodes[3].outputs == std::vector<std::string>{"X2"});
  CHECK(g.nodes[4].inputs == std::vector<std::string>{"Y"});  // output 2 repeats output 0
  CHECK(g.nodes[4].outputs == std::vector<std::string>{"Y2"});
  CHECK(check(m).ok());

  // A reference of another type than the call's attribute: an error, and the model as it was.
  Model wrong = before;
  wrong.graph.nodes[0].attributes[0] = Attribute("perm", 3.0f);
  const Model wrong_before = wrong;
  CHECK_THROWS_WITH_AS(inline_functions(wrong), doctest::Contains("as INTS, but it is FLOAT"), Error);
  CHECK(wrong == wrong_before);
  // An output that is a function input the call leaves out.
  Model absent = before;
  absent.functions[0].outputs[1] = "opt";
  CHECK_THROWS_WITH_AS(inline_functions(absent), doctest::Contains("which the call leaves out"), Error);
}

TEST_CASE("inline_functions: nested calls, subgraphs in bodies, calls inside If branches") {
  Model m = base_model();
  // inner(x) = If(cond) then Neg(x) else x; the branch defines "C", a name the graph uses too.
  Graph then_branch, else_branch;
  then_branch.name = "then";
  then_branch.nodes.push_back(op("Neg", {"x"}, {"C"}));
  then_branch.outputs.emplace_back("C", Type{});
  else_branch.name = "else";
  else_branch.nodes.push_back(op("Identity", {"x"}, {"e"}));
  else_branch.outputs.emplace_back("e", Type{});
  Node iff("If", {"c"}, {"r"}, "branch");
  iff.attributes.emplace_back("then_branch", then_branch);
  iff.attributes.emplace_back("else_branch", else_branch);
  m.functions.push_back(function("inner", {"x", "c"}, {"r"}, {iff}));
  // outer(x, c) = inner(inner(x, c), c)
  m.functions.push_back(function("outer", {"x", "c"}, {"y"},
                                 {Node("inner", {"x", "c"}, {"t"}, "i1", "local"),
                                  Node("inner", {"t", "c"}, {"y"}, "i2", "local")}));
  Graph& g = m.graph;
  g.inputs.emplace_back("A", float_tensor());
  g.inputs.emplace_back("cond", Type::tensor(DataType::BOOL, {}));
  g.nodes.push_back(Node("outer", {"A", "cond"}, {"C"}, "o", "local"));
  // A call inside a branch of the main graph.
  Graph branch;
  branch.name = "b";
  branch.nodes.push_back(Node("inner", {"C", "cond"}, {"bc"}, "in_branch", "local"));
  branch.outputs.emplace_back("bc", Type{});
  Graph other;
  other.name = "o";
  other.nodes.push_back(op("Identity", {"C"}, {"oc"}));
  other.outputs.emplace_back("oc", Type{});
  Node top_if("If", {"cond"}, {"Z"}, "top");
  top_if.attributes.emplace_back("then_branch", branch);
  top_if.attributes.emplace_back("else_branch", other);
  g.nodes.push_back(top_if);
  g.outputs.emplace_back("Z", float_tensor());
  REQUIRE(check(m).ok());

  const auto counts = inline_functions(m);
  CHECK(counts.calls == 4);  // outer, its two inner calls, the call in the branch
  // 4 nodes before (2 in the graph, 2 in the branches), 11 after: 3 If nodes from the bodies
  // with 2 branch nodes each, and the top If with its branches (If + 2, Identity).
  CHECK(counts.nodes_added == 11 - 4 + 4);
  CHECK(counts.functions_removed == 2);
  CHECK(ops_of(g) == std::vector<std::string>{"If", "If", "If"});
  CHECK(g.nodes[0].inputs == std::vector<std::string>{"cond"});
  CHECK(g.nodes[0].outputs == std::vector<std::string>{"o/t"});
  CHECK(g.nodes[1].outputs == std::vector<std::string>{"C"});
  CHECK(g.nodes[0].name == "o/i1/branch");
  const Graph& t0 = g.nodes[0].attributes[0].as_graph();
  CHECK(t0.nodes[0].inputs == std::vector<std::string>{"A"});  // x is A, read from the outer scope
  CHECK(t0.nodes[0].outputs == std::vector<std::string>{"o/i1/C"});  // not the graph's C
  CHECK(t0.outputs[0].name == "o/i1/C");
  const Graph& t1 = g.nodes[1].attributes[0].as_graph();
  CHECK(t1.nodes[0].inputs == std::vector<std::string>{"o/t"});
  const Graph& b = g.nodes[2].attributes[0].as_graph();
  CHECK(ops_of(b) == std::vector<std::string>{"If"});
  CHECK(b.nodes[0].outputs == std::vector<std::string>{"bc"});
  CHECK(b.nodes[0].attributes[0].as_graph().nodes[0].inputs == std::vector<std::string>{"C"});
  CHECK(names_unique(g));
  CHECK(check(m).ok());
}

TEST_CASE("inline_functions: opset imports, selection, recursion, the node budget") {
  Model m = base_model();
  Function f = function("f", {"x"}, {"y"}, {op("Gelu", {"x"}, {"y"}, "com.microsoft")});
  f.opset_imports.push_back({"com.microsoft", 1, {}, {}});
  m.functions.push_back(f);
  m.functions.push_back(function("g", {"x"}, {"y"}, {op("Relu", {"x"}, {"y"})}));
  m.graph.inputs.emplace_back("X", float_tensor());
  m.graph.nodes.push_back(Node("f", {"X"}, {"F"}, "", "local"));
  m.graph.nodes.push_back(Node("g", {"F"}, {"G"}, "", "local"));
  m.graph.outputs.emplace_back("G", float_tensor());
  const Model before = m;

  // Only g; the model keeps f and its call; remove_inlined = false keeps g too.
  Model only_g = before;
  CHECK(inline_functions(only_g, {.select = [](const Function& fn) { return fn.name == "g"; },
                                  .remove_inlined = false}) == InlineCounts{1, 1, 0});
  CHECK(ops_of(only_g.graph) == std::vector<std::string>{"f", "Relu"});
  CHECK(only_g.graph.nodes[1].name == "g/Relu");  // an unnamed call: the function's name
  CHECK(only_g.functions.size() == 2);

  // Everything: com.microsoft, which the model lacked, is imported.
  CHECK(inline_functions(m).calls == 2);
  CHECK(m.opset_version("com.microsoft") == 1);
  CHECK(check(m).ok());

  // A version that differs from the model's: an error, the model unchanged.
  Model clash = before;
  clash.functions[1].opset_imports[0].version = 17;
  CHECK_THROWS_WITH_AS(inline_functions(clash), doctest::Contains("the model at 21"), Error);
  CHECK(clash.functions.size() == 2);
  CHECK(clash.graph == before.graph);

  // A function calling itself.
  Model rec = before;
  rec.functions[1].nodes[0] = Node("g", {"x"}, {"y"}, "", "local");
  CHECK_THROWS_WITH_AS(inline_functions(rec), doctest::Contains("nested deeper than 64"), Error);
  CHECK(rec.graph == before.graph);

  // Each of `depth` functions calls the next twice; the last is one Neg: 2^depth Negs in all.
  const auto doubling = [](int depth) {
    Model m = base_model();
    for (int k = 0; k < depth; ++k)
      m.functions.push_back(function("f" + std::to_string(k), {"x"}, {"y"},
                                     {Node("f" + std::to_string(k + 1), {"x"}, {"t"}, "", "local"),
                                      Node("f" + std::to_string(k + 1), {"t"}, {"y"}, "", "local")}));
    m.functions.push_back(function("f" + std::to_string(depth), {"x"}, {"y"}, {op("Neg", {"x"}, {"y"})}));
    m.graph.inputs.emplace_back("X", float_tensor());
    m.graph.nodes.push_back(Node("f0", {"X"}, {"Y"}, "", "local"));
    m.graph.outputs.emplace_back("Y", float_tensor());
    return m;
  };
  // 2^24 nodes, past the budget.
  Model wide = doubling(24);
  CHECK_THROWS_WITH_AS(inline_functions(wide, {.max_added_nodes = 100000}), doctest::Contains("max_added_nodes"), Error);
  // Refused before any body is built (a 2 KB file nested this way took 20 s to reach the default
  // budget of 2^22 nodes), at the default budget too; just within a budget, it inlines.
  CHECK_THROWS_WITH_AS(inline_functions(wide), doctest::Contains("calls nested in calls multiply"), Error);
  Model narrow = doubling(4);
  // f0 expands to 2 + 4 + 8 + 16 call nodes and 16 Negs: 46 nodes charged.
  Model tight = narrow;
  CHECK_THROWS_WITH_AS(inline_functions(tight, {.max_added_nodes = 45}), doctest::Contains("max_added_nodes"), Error);
  CHECK(inline_functions(narrow, {.max_added_nodes = 46}).calls == 31);
  CHECK(ops_of(narrow.graph) == std::vector<std::string>(16, "Neg"));
  // A body that reads a name it does not define.
  Model dangling = before;
  dangling.functions[1].nodes[0].inputs[0] = "elsewhere";
  CHECK_THROWS_WITH_AS(inline_functions(dangling), doctest::Contains("reads 'elsewhere'"), Error);
}

namespace {
// Evaluates Add/Sub/Mul/Neg and calls of model-local functions (run as calls, not inlined)
// over wrapping uint64 values; one value per name.
using Env = std::unordered_map<std::string, std::uint64_t>;
void run_nodes(const Model& m, const std::vector<Node>& nodes, Env& env, int depth) {
  REQUIRE(depth < 64);
  for (const auto& n : nodes) {
    auto in = [&](std::size_t i) { return env.at(n.inputs.at(i)); };
    if (const Function* f = m.find_function(n.domain, n.op_type)) {
      Env inner;
      for (std::size_t i = 0; i < f->inputs.size(); ++i) inner[f->inputs[i]] = in(i);
      run_nodes(m, f->nodes, inner, depth + 1);
      for (std::size_t i = 0; i < n.outputs.size(); ++i)
        if (!n.outputs[i].empty()) env[n.outputs[i]] = inner.at(f->outputs[i]);
      continue;
    }
    const std::uint64_t r = graph_util::apply_u64(n, in);
    env[n.outputs.at(0)] = r;
  }
}
std::vector<std::uint64_t> run(const Model& m, const std::vector<std::uint64_t>& inputs) {
  Env env;
  for (std::size_t i = 0; i < m.graph.inputs.size(); ++i) env[m.graph.inputs[i].name] = inputs[i];
  run_nodes(m, m.graph.nodes, env, 0);
  std::vector<std::uint64_t> out;
  for (const auto& o : m.graph.outputs) out.push_back(env.at(o.name));
  return out;
}
// Random nodes over `values`, calling functions [0, callable) of `m` now and then.
std::vector<Node> random_nodes(std::mt19937& rng, std::vector<std::string>& values, const Model& m,
                               std::size_t callable, std::size_t count, const std::string& tag) {
  std::vector<Node> nodes;
  const char* ops[] = {"Add", "Sub", "Mul", "Neg"};
  for (std::size_t k = 0; k < count; ++k) {
    auto pick = [&] { return values[rng() % values.size()]; };
    if (callable > 0 && rng() % 3 == 0) {
      const Function& f = m.functions[rng() % callable];
      std::vector<std::string> in, out;
      for (std::size_t i = 0; i < f.inputs.size(); ++i) in.push_back(pick());
      for (std::size_t i = 0; i < f.outputs.size(); ++i) out.push_back(tag + "v" + std::to_string(values.size() + i));
      const std::size_t n_out = out.size();
      nodes.push_back(Node(f.name, in, out, "", "local"));
      for (std::size_t i = 0; i < n_out; ++i) values.push_back(out[i]);
      continue;
    }
    const char* t = ops[rng() % 4];
    const std::string out = tag + "v" + std::to_string(values.size());
    nodes.push_back(std::string(t) == "Neg" ? op(t, {pick()}, {out}) : op(t, {pick(), pick()}, {out}));
    values.push_back(out);
  }
  return nodes;
}
}  // namespace

TEST_CASE("inline_functions on random models of nested functions: same values, valid, unique names") {
  std::mt19937 rng(3636);
  std::size_t calls = 0;
  for (int trial = 0; trial < 200; ++trial) {
    Model m = base_model();
    const std::size_t n_functions = 1 + rng() % 5;
    for (std::size_t k = 0; k < n_functions; ++k) {
      // Body names deliberately reuse the graph's ("v3" is in both).
      std::vector<std::string> values;
      const std::size_t n_in = 1 + rng() % 3;
      for (std::size_t i = 0; i < n_in; ++i) values.push_back("in" + std::to_string(i));
      Function f = function("f" + std::to_string(k), values, {}, {});
      f.nodes = random_nodes(rng, values, m, k, 1 + rng() % 6, "");
      const std::size_t n_out = 1 + rng() % 3;
      for (std::size_t i = 0; i < n_out; ++i) f.outputs.push_back(values[values.size() - 1 - rng() % std::min<std::size_t>(values.size(), 4)]);
      m.functions.push_back(std::move(f));
    }
    std::vector<std::string> values;
    for (int i = 0; i < 3; ++i) {
      values.push_back("x" + std::to_string(i));
      m.graph.inputs.emplace_back(values.back(), Type::tensor(DataType::UINT64, {}));
    }
    m.graph.nodes = random_nodes(rng, values, m, n_functions, 2 + rng() % 10, "");
    for (std::size_t i = 3; i < values.size(); ++i)
      if (rng() % 3 == 0 || i + 1 == values.size()) m.graph.outputs.emplace_back(values[i], Type::tensor(DataType::UINT64, {}));
    const bool valid = check(m).ok();
    CAPTURE(trial);
    CHECK(valid);
    std::vector<std::vector<std::uint64_t>> samples, want;
    for (int s = 0; s < 3; ++s) {
      samples.push_back({(std::uint64_t{rng()} << 32) | rng(), (std::uint64_t{rng()} << 32) | rng(), rng()});
      want.push_back(run(m, samples.back()));
    }
    const auto counts = inline_functions(m);
    calls += counts.calls;
    CHECK(m.functions.empty());
    for (const auto& n : m.graph.nodes) CHECK(n.domain != "local");
    CHECK(names_unique(m.graph));
    if (valid) CHECK(check(m).ok());
    for (std::size_t s = 0; s < samples.size(); ++s) CHECK(run(m, samples[s]) == want[s]);
  }
  MESSAGE(calls << " calls inlined in 200 random models");
  CHECK(calls > 400);
}

}  // namespace oxir_unit_test_inline
