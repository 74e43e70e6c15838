// add_prefix and merge_models (rewrite/compose.hpp): every place a value name appears follows a
// prefix, subgraphs' own names and outer reads included; interface roles kept on request;
// collisions refused; merging connects the seams, keeps types, refuses conflicts; and, over random
// pairs of DAGs, the merged model computes the second model applied to the first's outputs.
#include <doctest/doctest.h>

#include <oxir/analysis/check.hpp>
#include <oxir/io/text.hpp>
#include <oxir/rewrite/compose.hpp>

#include "graph_util.hpp"

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace oxir_unit_test_compose {

using namespace oxir;
using graph_util::ops_of;

namespace {

std::vector<std::string> names_of(const std::vector<ValueInfo>& v) {
  std::vector<std::string> r;
  for (const auto& x : v) r.push_back(x.name);
  return r;
}

const char* kWithSubgraph = R"(<ir_version: 9, opset_import: ["" : 18, "local" : 1]>
g (float[N] x, bool c) => (float[N] y) <float[1] w = {2}, float[N] a> {
  [mul] a = Mul (x, w)
  [branch] y = If (c) <
    then_branch = t () => (float[N] ty) { [inner] ty = local.Twice (a) },
    else_branch = e () => (float[N] ey) { ey = Neg (x) }
  >
}
<domain: "local", opset_import: ["" : 18]>
Twice (t) => (u) { u = Add (t, t) }
)";

}  // namespace

TEST_CASE("add_prefix: every value, node and function of a model, subgraphs included") {
  const auto before = parse_text_model(kWithSubgraph);
  REQUIRE(check(before).ok());
  auto m = before;
  add_prefix(m, "p/");
  CHECK(check(m).ok());
  const Graph& g = m.graph;
  CHECK(names_of(g.inputs) == std::vector<std::string>{"p/x", "p/c"});
  CHECK(names_of(g.outputs) == std::vector<std::string>{"p/y"});
  CHECK(g.initializers.at(0).name == "p/w");
  CHECK(names_of(g.value_info) == std::vector<std::string>{"p/a"});
  CHECK(g.nodes[0].name == "p/mul");
  CHECK(g.nodes[0].inputs == std::vector<std::string>{"p/x", "p/w"});
  CHECK(g.nodes[1].name == "p/branch");
  const Graph& then_g = **std::get_if<Box<Graph>>(&g.nodes[1].find_attribute("then_branch")->value);
  const Graph& else_g = **std::get_if<Box<Graph>>(&g.nodes[1].find_attribute("else_branch")->value);
  // The subgraph's outer read follows the outer value; its own names and nodes get the prefix.
  CHECK(then_g.nodes[0].inputs == std::vector<std::string>{"p/a"});
  CHECK(then_g.nodes[0].outputs == std::vector<std::string>{"p/ty"});
  CHECK(then_g.nodes[0].name == "p/inner");
  CHECK(then_g.nodes[0].op_type == "p/Twice");
  CHECK(names_of(then_g.outputs) == std::vector<std::string>{"p/ty"});
  CHECK(else_g.nodes[0].inputs == std::vector<std::string>{"p/x"});
  CHECK(else_g.nodes[0].name.empty());  // unnamed nodes stay unnamed
  // The function is renamed; its body is a scope of its own and keeps its names.
  REQUIRE(m.functions.size() == 1);
  CHECK(m.functions[0].name == "p/Twice");
  CHECK(m.functions[0].inputs == before.functions[0].inputs);
  CHECK(m.functions[0].nodes == before.functions[0].nodes);
  // The empty prefix changes nothing.
  auto same = before;
  add_prefix(same, "");
  CHECK(same == before);
}

TEST_CASE("add_prefix: the options select roles; a value keeps its name unless all its roles are selected") {
  const auto before = parse_text_model(kWithSubgraph);
  auto m = before;
  add_prefix(m, "q_", {.inputs = false, .outputs = false, .nodes = false, .functions = false});
  CHECK(check(m).ok());
  CHECK(names_of(m.graph.inputs) == names_of(before.graph.inputs));
  CHECK(names_of(m.graph.outputs) == names_of(before.graph.outputs));
  CHECK(m.graph.initializers[0].name == "q_w");
  CHECK(m.graph.nodes[0].outputs == std::vector<std::string>{"q_a"});
  CHECK(m.graph.nodes[0].name == "mul");
  CHECK(m.graph.nodes[1].outputs == std::vector<std::string>{"y"});
  CHECK(m.functions[0].name == "Twice");

  // IR 3: an initializer listed as an input (a default) is an input too.
  auto ir3 = parse_text_model(R"(<ir_version: 3, opset_import: ["" : 8]>
g (float[2] x, float[2] k) => (float[2] y) <float[2] k = {1, 2}> { y = Add (x, k) })");
  auto kept = ir3;
  add_prefix(kept, "z.", {.inputs = false});
  CHECK(names_of(kept.graph.inputs) == std::vector<std::string>{"x", "k"});
  CHECK(kept.graph.initializers[0].name == "k");
  CHECK(names_of(kept.graph.outputs) == std::vector<std::string>{"z.y"});
  auto all = ir3;
  add_prefix(all, "z.");
  CHECK(names_of(all.graph.inputs) == std::vector<std::string>{"z.x", "z.k"});
  CHECK(all.graph.initializers[0].name == "z.k");
  CHECK(check(all).ok());

  // Intermediates off: a subgraph's own names stay, its reads of renamed outer values follow.
  auto outer_only = before;
  add_prefix(outer_only, "o_", {.intermediates = false});
  const Graph& then_g = **std::get_if<Box<Graph>>(&outer_only.graph.nodes[1].find_attribute("then_branch")->value);
  CHECK(then_g.nodes[0].inputs == std::vector<std::string>{"a"});  // 'a' is an intermediate: kept
  CHECK(then_g.nodes[0].outputs == std::vector<std::string>{"ty"});
  const Graph& else_g = **std::get_if<Box<Graph>>(&outer_only.graph.nodes[1].find_attribute("else_branch")->value);
  CHECK(else_g.nodes[0].inputs == std::vector<std::string>{"o_x"});
  CHECK(check(outer_only).ok());
}

TEST_CASE("add_prefix: annotations, sparse initializers and value_info follow; captures of a subgraph do not") {
  Model m;
  m.ir_version = 9;
  m.set_opset_version("", 18);
  Graph& g = m.graph;
  g.inputs.emplace_back("x", Type::tensor(DataType::FLOAT, Shape{{2}}));
  SparseTensor s;
  s.values = Tensor::from_values<float>("sv", {1}, {1.0f});
  s.indices = Tensor::from_values<std::int64_t>("si", {1}, {0});
  s.dims = {2};
  g.sparse_initializers.push_back(s);
  g.nodes.push_back(Node("Add", {"x", "sv"}, {"y"}));
  g.outputs.emplace_back("y", Type::tensor(DataType::FLOAT, Shape{{2}}));
  TensorAnnotation q;
  q.tensor_name = "y";
  q.quant_parameter_tensor_names = {{"SCALE_TENSOR", "sv", {}, {}}, {"ZERO_POINT_TENSOR", "elsewhere", {}, {}}};
  g.quantization_annotation.push_back(q);
  add_prefix(m, "k");
  CHECK(g.sparse_initializers[0].values.name == "ksv");
  CHECK(g.sparse_initializers[0].indices.name == "ksi");
  CHECK(g.quantization_annotation[0].tensor_name == "ky");
  CHECK(g.quantization_annotation[0].quant_parameter_tensor_names[0].value == "ksv");
  CHECK(g.quantization_annotation[0].quant_parameter_tensor_names[1].value == "elsewhere");  // not a value here

  // A graph given by itself (a body being built, say): what it reads from outside stays.
  Graph body;
  body.inputs.emplace_back("i", Type::tensor(DataType::INT64, Shape{}));
  body.nodes.push_back(Node("Add", {"i", "outer"}, {"s"}));
  body.outputs.emplace_back("s", Type::tensor(DataType::INT64, Shape{}));
  add_prefix(body, "b_");
  CHECK(body.nodes[0].inputs == std::vector<std::string>{"b_i", "outer"});
  CHECK(body.nodes[0].outputs == std::vector<std::string>{"b_s"});
  CHECK(names_of(body.outputs) == std::vector<std::string>{"b_s"});
}

TEST_CASE("add_prefix: dim_params on request, name by name inside expressions") {
  const auto before = parse_text_model(R"M(<ir_version: 9, opset_import: ["" : 18]>
g (float[N, "S+1"] x, bool c) => (float["floor((N-1)/2)+1", "min(T,64)"] y, float["past_len + 1"] z)
  <float[N, "2*S", "s0*2", "ceiling (S/4)"] v, float[3, "batch size", ?] w> {
  y = If (c) <
    then_branch = t () => (float[M, 2] ty) { ty = Neg (x) },
    else_branch = e () => (float[M, 2] ey) { ey = Abs (x) }
  >
  z = Identity (x)
})M");
  auto m = before;
  add_prefix(m, "p_");  // dims stay by default
  CHECK(m.graph.inputs[0].type == before.graph.inputs[0].type);
  CHECK(m.graph.value_info[0].type == before.graph.value_info[0].type);
  m = before;
  add_prefix(m, "p_", {.inputs = false, .outputs = false, .initializers = false, .intermediates = false, .nodes = false,
                       .functions = false, .dim_params = true});
  const auto dims = [](const ValueInfo& v) {
    std::vector<std::string> r;
    for (const auto& d : v.type->shape()->dims)
      r.push_back(d.is_param() ? d.dim_param() : d.is_value() ? std::to_string(d.dim_value()) : "?");
    return r;
  };
  const auto& g = m.graph;
  CHECK(names_of(g.inputs) == names_of(before.graph.inputs));  // values untouched
  CHECK(dims(g.inputs[0]) == std::vector<std::string>{"p_N", "p_S+1"});
  CHECK(dims(g.outputs[0]) == std::vector<std::string>{"floor((p_N-1)/2)+1", "min(p_T,64)"});
  CHECK(dims(g.outputs[1]) == std::vector<std::string>{"p_past_len + 1"});
  CHECK(dims(g.value_info[0]) == std::vector<std::string>{"p_N", "2*p_S", "p_s0*2", "ceiling (p_S/4)"});
  CHECK(dims(g.value_info[1]) == std::vector<std::string>{"3", "p_batch p_size", "?"});
  const Graph& then = g.nodes[0].find_attribute("then_branch")->as_graph();
  CHECK(dims(then.outputs[0]) == std::vector<std::string>{"p_M", "2"});
  CHECK(check(m).ok());
}

TEST_CASE("add_prefix refuses to make two names one, and models with training information") {
  // The input 'p_a' is kept; the intermediate 'a' would become 'p_a'.
  const auto before = parse_text_model(R"(<ir_version: 9, opset_import: ["" : 18]>
g (float[2] p_a) => (float[2] y) { a = Neg (p_a)  y = Abs (a) })");
  auto m = before;
  CHECK_THROWS_WITH_AS(add_prefix(m, "p_", {.inputs = false}), doctest::Contains("the same name 'p_a'"), Error);
  CHECK(m == before);
  add_prefix(m, "p_");  // everything renamed: no meeting
  CHECK(m.graph.nodes[0].inputs == std::vector<std::string>{"p_p_a"});
  CHECK(check(m).ok());

  auto t = before;
  t.training_info.emplace_back();
  CHECK_THROWS_WITH_AS(add_prefix(t, "p_"), doctest::Contains("training information"), Error);
  CHECK(t.graph == before.graph);
  // Function names alone may be prefixed.
  add_prefix(t, "p_", {.inputs = false, .outputs = false, .initializers = false, .intermediates = false});
  CHECK(t.graph == before.graph);
}

namespace {
const char* kFirst = R"(<ir_version: 8, opset_import: ["" : 18], producer_name: "one">
first (float[N, 4] x) => (float[N, 4] y, float[N, 4] z) { y = Relu (x)  z = Neg (x) })";
const char* kSecond = R"(<ir_version: 9, opset_import: ["" : 18], producer_name: "two">
second (float[B, 4] u, float[B, 4] v) => (float[B, 4] w) { w = Add (u, v) })";
}  // namespace

TEST_CASE("merge_models: connects the seams, keeps the rest, types the connected values") {
  const auto a = parse_text_model(kFirst), b = parse_text_model(kSecond);
  const auto m = merge_models(a, b, {{"y", "u"}});
  CHECK(check(m).ok());
  CHECK(m.ir_version == 9);
  CHECK(m.producer_name == "one");
  CHECK(m.graph.name == "first_second");
  CHECK(names_of(m.graph.inputs) == std::vector<std::string>{"x", "v"});
  CHECK(names_of(m.graph.outputs) == std::vector<std::string>{"z", "w"});
  CHECK(ops_of(m.graph) == std::vector<std::string>{"Relu", "Neg", "Add"});
  CHECK(m.graph.nodes[2].inputs == std::vector<std::string>{"y", "v"});
  // y is no longer an output, but its type stays with it.
  REQUIRE(m.graph.value_info.size() == 1);
  CHECK(m.graph.value_info[0] == a.graph.outputs[0]);

  // Explicit interface: a cut of the merged graph.
  const auto cut = merge_models(a, b, {{"y", "u"}}, {.inputs = {"x", "v"}, .outputs = {"w"}});
  CHECK(ops_of(cut.graph) == std::vector<std::string>{"Relu", "Add"});
  CHECK(names_of(cut.graph.outputs) == std::vector<std::string>{"w"});
  CHECK(check(cut).ok());

  // One output feeding two inputs.
  const auto both = merge_models(a, b, {{"y", "u"}, {"y", "v"}});
  CHECK(names_of(both.graph.inputs) == std::vector<std::string>{"x"});
  CHECK(both.graph.nodes[2].inputs == std::vector<std::string>{"y", "y"});
  CHECK(check(both).ok());
}

TEST_CASE("merge_models: an IR version 1 model's attributes get the type field of the newer IR") {
  Model a = parse_text_model(R"(<ir_version: 1, opset_import: ["" : 9]>
first (float[2, 3] x) => (float[3, 2] y) { y = Transpose <perm = [1, 0]> (x) }
)");
  a.graph.nodes[0].attributes[0].type = AttributeType::UNDEFINED;  // as an IR 1 file has it
  const Model b = parse_text_model(R"(<ir_version: 4, opset_import: ["" : 9]>
second (float[3, 2] u) => (float[3, 2] w) { w = Neg (u) }
)");
  REQUIRE(check(a).ok());
  const Model m = merge_models(a, b, {{"y", "u"}});
  CHECK(m.ir_version == 4);
  CHECK(m.graph.nodes[0].attributes[0].type == AttributeType::INTS);
  CHECK(check(m).ok());
}

TEST_CASE("merge_models: shared names need prefixes; io_map names are the unprefixed ones") {
  const auto a = parse_text_model(kFirst);
  const auto self = merge_models(a, a, {{"y", "x"}}, {.prefix1 = "a/", .prefix2 = "b/"});
  CHECK(check(self).ok());
  CHECK(names_of(self.graph.inputs) == std::vector<std::string>{"a/x"});
  CHECK(names_of(self.graph.outputs) == std::vector<std::string>{"a/z", "b/y", "b/z"});
  CHECK(self.graph.nodes[2].inputs == std::vector<std::string>{"a/y"});
  CHECK_THROWS_WITH_AS((void)merge_models(a, a, {{"y", "x"}}), doctest::Contains("shares 2 value names"), Error);
  CHECK(check(merge_models(a, a, {{"y", "x"}}, {.prefix2 = "b/"})).ok());
  // The two models' N: one size unless their dim_params are prefixed too.
  const auto shared = merge_models(a, a, {}, {.prefix1 = "a_", .prefix2 = "b_"});
  CHECK(shared.graph.inputs[0].type == shared.graph.inputs[1].type);
  const auto apart = merge_models(a, a, {}, {.prefix1 = "a_", .prefix2 = "b_", .prefix_dim_params = true});
  CHECK(*apart.graph.inputs[0].type == Type::tensor(DataType::FLOAT, Shape{"a_N", 4}));
  CHECK(*apart.graph.inputs[1].type == Type::tensor(DataType::FLOAT, Shape{"b_N", 4}));
  CHECK(check(apart).ok());
}

TEST_CASE("merge_models: errors name what is wrong") {
  const auto a = parse_text_model(kFirst), b = parse_text_model(kSecond);
  CHECK_THROWS_WITH_AS((void)merge_models(a, b, {{"x", "u"}}), "io_map[0]: 'x' is not an output of the first model", Error);
  CHECK_THROWS_WITH_AS((void)merge_models(a, b, {{"y", "w"}}), "io_map[0]: 'w' is not an input of the second model", Error);
  CHECK_THROWS_WITH_AS((void)merge_models(a, b, {{"y", "u"}, {"z", "u"}}), doctest::Contains("connected twice"), Error);
  auto ints = parse_text_model(R"(<ir_version: 9, opset_import: ["" : 18]>
s (int64[B, 4] u) => (int64[B, 4] w) { w = Neg (u) })");
  CHECK_THROWS_WITH_AS((void)merge_models(a, ints, {{"y", "u"}}), doctest::Contains("element types FLOAT and INT64"), Error);
  auto rank3 = parse_text_model(R"(<ir_version: 9, opset_import: ["" : 18]>
s (float[B, 4, 1] u) => (float[B, 4, 1] w) { w = Neg (u) })");
  CHECK_THROWS_WITH_AS((void)merge_models(a, rank3, {{"y", "u"}}), doctest::Contains("ranks 2 and 3"), Error);
  auto five = parse_text_model(R"(<ir_version: 9, opset_import: ["" : 18]>
s (float[B, 5] u) => (float[B, 5] w) { w = Neg (u) })");
  CHECK_THROWS_WITH_AS((void)merge_models(a, five, {{"y", "u"}}), doctest::Contains("dimension 1 is 4 and 5"), Error);
  auto old = parse_text_model(R"(<ir_version: 9, opset_import: ["" : 13]>
s (float[B, 4] u) => (float[B, 4] w) { w = Neg (u) })");
  CHECK_THROWS_WITH_AS((void)merge_models(a, old, {{"y", "u"}}), doctest::Contains("at versions 18 and 13"), Error);
  auto meta1 = a, meta2 = b;
  meta1.metadata_props = {{"author", "me", {}, {}}};
  meta2.metadata_props = {{"author", "you", {}, {}}, {"license", "MIT", {}, {}}};
  CHECK_THROWS_WITH_AS((void)merge_models(meta1, meta2, {{"y", "u"}}), doctest::Contains("'author' two values"), Error);
  meta2.metadata_props[0].value = "me";
  CHECK(merge_models(meta1, meta2, {{"y", "u"}}).metadata_props.size() == 2);
  // The models' imports and device configurations: united, the first of a name kept, a clash refused.
  auto many1 = a, many2 = b;
  for (int i = 0; i < 20; ++i) {
    many1.opset_imports.push_back({"d" + std::to_string(i), 1, {}, {}});
    many2.opset_imports.push_back({"d" + std::to_string(i + 10), 1, {}, {}});
  }
  many1.configuration.push_back({"gpu2", 2, {"g0", "g1"}, {}, {}});
  many2.configuration.push_back({"gpu2", 2, {"g0", "g1"}, {}, {}});
  many2.configuration.push_back({"cpu", 1, {"c"}, {}, {}});
  const Model merged = merge_models(many1, many2, {{"y", "u"}});
  CHECK(merged.opset_imports.size() == 31);  // the default domain, d0 ... d29
  CHECK(merged.opset_imports.back().domain == "d29");
  REQUIRE(merged.configuration.size() == 2);
  CHECK(merged.configuration[1].name == "cpu");
  many2.opset_imports.push_back({"d5", 2, {}, {}});
  CHECK_THROWS_WITH_AS((void)merge_models(many1, many2, {{"y", "u"}}), doctest::Contains("'d5' at versions 1 and 2"), Error);
  many2.opset_imports.pop_back();
  many2.configuration[0].num_devices = 3;
  CHECK_THROWS_WITH_AS((void)merge_models(many1, many2, {{"y", "u"}}),
                       doctest::Contains("device configuration 'gpu2' differently"), Error);
  auto trained = b;
  trained.training_info.emplace_back();
  CHECK_THROWS_WITH_AS((void)merge_models(a, trained, {{"y", "u"}}), doctest::Contains("training information"), Error);
}

TEST_CASE("merge_models: passed-through inputs, subgraph reads, IR 3 defaults and functions") {
  const auto a = parse_text_model(kFirst);
  // The second model outputs its input u as it is, and reads it from inside an If.
  const auto b = parse_text_model(R"(<ir_version: 9, opset_import: ["" : 18, "f" : 1]>
s (float[B, 4] u, bool c) => (float[B, 4] u, float[B, 4] r) {
  r = If (c) < then_branch = t () => (float[B, 4] o) { o = f.Half (u) },
               else_branch = e () => (float[B, 4] o2) { o2 = Identity (u) } >
}
<domain: "f", opset_import: ["" : 18]>
Half (t) => (h) { h = Mul (t, t) }
)");
  REQUIRE(check(b).ok());
  auto a_with_f = a;
  a_with_f.functions = b.functions;
  a_with_f.set_opset_version("f", 1);
  const auto m = merge_models(a_with_f, b, {{"y", "u"}});
  CHECK(check(m).ok());
  CHECK(m.functions.size() == 1);  // defined the same in both: kept once
  CHECK(names_of(m.graph.outputs) == std::vector<std::string>{"z", "u", "r"});
  CHECK(ops_of(m.graph) == std::vector<std::string>{"Relu", "Neg", "Identity", "If"});
  CHECK(m.graph.nodes[2].inputs == std::vector<std::string>{"y"});
  CHECK(m.graph.nodes[2].outputs == std::vector<std::string>{"u"});
  const Graph& then_g = **std::get_if<Box<Graph>>(&m.graph.nodes[3].find_attribute("then_branch")->value);
  CHECK(then_g.nodes[0].inputs == std::vector<std::string>{"y"});
  auto other_f = a_with_f;
  other_f.functions[0].nodes[0].op_type = "Add";
  CHECK_THROWS_WITH_AS((void)merge_models(other_f, b, {{"y", "u"}}), doctest::Contains("function 'f.Half' differently"), Error);

  // IR 3: the connected input had a default; it goes with the input.
  const auto ir3 = parse_text_model(R"(<ir_version: 3, opset_import: ["" : 18]>
s (float[B, 4] u, float[1, 4] k) => (float[B, 4] w) <float[1, 4] k = {1, 2, 3, 4}, float[1, 4] u2 = {0, 0, 0, 0}> {
  w = Add (u, k)
})");
  auto ir3_default = ir3;
  ir3_default.graph.initializers[1].name = "u";
  ir3_default.graph.inputs[0].type = Type::tensor(DataType::FLOAT, Shape{{1, 4}});
  auto a1 = parse_text_model(R"(<ir_version: 3, opset_import: ["" : 18]>
f (float[1, 4] x) => (float[1, 4] y) { y = Relu (x) })");
  const auto merged = merge_models(a1, ir3_default, {{"y", "u"}});
  CHECK(merged.ir_version == 3);
  CHECK(names_of(merged.graph.inputs) == std::vector<std::string>{"x", "k"});
  CHECK(merged.graph.initializers.size() == 1);
  CHECK(merged.graph.initializers[0].name == "k");
  CHECK(check(merged).ok());
}

TEST_CASE("merge_models: over random pairs of DAGs, the merged model computes the second after the first") {
  std::mt19937 rng(20261129);
  const char* ops[] = {"Add", "Sub", "Mul", "Neg"};
  auto dag = [&](const std::string& tag, std::size_t n_in, std::size_t n_nodes, std::size_t n_out) {
    Model m;
    m.ir_version = 9;
    m.set_opset_version("", 18);
    std::vector<std::string> vals;
    for (std::size_t i = 0; i < n_in; ++i) {
      vals.push_back(tag + "in" + std::to_string(i));
      m.graph.inputs.emplace_back(vals.back(), Type::tensor(DataType::UINT64, Shape{}));
    }
    for (std::size_t i = 0; i < n_nodes; ++i) {
      const std::string op = ops[rng() % 4];
      std::vector<std::string> in{vals[rng() % vals.size()]};
      if (op != "Neg") in.push_back(vals[rng() % vals.size()]);
      vals.push_back(tag + "v" + std::to_string(i));
      m.graph.nodes.push_back(Node(op, in, {vals.back()}, tag + "n" + std::to_string(i)));
    }
    std::shuffle(vals.begin(), vals.end(), rng);
    for (std::size_t i = 0; i < std::min(n_out, vals.size()); ++i) m.graph.outputs.emplace_back(vals[i], Type::tensor(DataType::UINT64, Shape{}));
    return m;
  };
  int merged_count = 0;
  for (int iter = 0; iter < 300; ++iter) {
    // Both use the same names ("v0", "in0", ...) half of the time: then prefixes are needed.
    const bool clash = iter % 2 == 0;
    const auto a = dag(clash ? "" : "a", 1 + rng() % 3, 1 + rng() % 8, 1 + rng() % 3);
    const auto b = dag(clash ? "" : "b", 1 + rng() % 3, 1 + rng() % 8, 1 + rng() % 3);
    std::vector<std::pair<std::string, std::string>> io_map;
    for (const auto& in : b.graph.inputs)
      if (rng() % 3 != 0) io_map.emplace_back(a.graph.outputs[rng() % a.graph.outputs.size()].name, in.name);
    MergeOptions opt;
    if (clash) opt.prefix1 = "A.", opt.prefix2 = "B.";
    Model m;
    try {
      m = merge_models(a, b, io_map, opt);
    } catch (const Error& e) {
      // Only a graph output that is also its input (a name both graphs then share) may refuse.
      FAIL_CHECK("refused: " << e.what());
      continue;
    }
    ++merged_count;
    REQUIRE(check(m).ok());
    std::vector<std::uint64_t> xa, xb_free;
    for (std::size_t i = 0; i < a.graph.inputs.size(); ++i) xa.push_back(rng());
    const auto ya = graph_util::evaluate_u64(a.graph, xa);
    std::vector<std::uint64_t> xb;
    std::vector<std::uint64_t> merged_in = xa;
    for (const auto& in : b.graph.inputs) {
      const auto it = std::find_if(io_map.begin(), io_map.end(), [&](const auto& p) { return p.second == in.name; });
      if (it == io_map.end()) {
        xb.push_back(rng());
        merged_in.push_back(xb.back());
      } else {
        const auto k = static_cast<std::size_t>(
            std::find_if(a.graph.outputs.begin(), a.graph.outputs.end(), [&](const ValueInfo& v) { return v.name == it->first; }) -
            a.graph.outputs.begin());
        xb.push_back(ya[k]);
      }
    }
    const auto yb = graph_util::evaluate_u64(b.graph, xb);
    std::vector<std::uint64_t> expected;
    for (std::size_t k = 0; k < a.graph.outputs.size(); ++k)
      if (std::none_of(io_map.begin(), io_map.end(), [&](const auto& p) { return p.first == a.graph.outputs[k].name; }))
        expected.push_back(ya[k]);
    expected.insert(expected.end(), yb.begin(), yb.end());
    REQUIRE(m.graph.inputs.size() == merged_in.size());
    CHECK(graph_util::evaluate_u64(m.graph, merged_in) == expected);
  }
  CHECK(merged_count == 300);
}

}  // namespace oxir_unit_test_compose
