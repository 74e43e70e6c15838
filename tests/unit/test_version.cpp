// upgrade_opset (rewrite/version.hpp): what each adapter writes, subgraphs and function bodies,
// fresh names, the IR version raised with the opset, and every refusal leaving the model as it
// was. What the rewritten models compute is checked by ONNX Runtime in ctest upgrade_differential.
#include <doctest/doctest.h>

#include <oxir/analysis/check.hpp>
#include <oxir/infer.hpp>
#include <oxir/io/text.hpp>
#include <oxir/rewrite/version.hpp>

#include "graph_util.hpp"

#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <vector>

namespace oxir_unit_test_version {

using namespace oxir;
using graph_util::ops_of;

namespace {
Model at(std::int64_t opset, const std::string& body) {
  return parse_text_model("<ir_version: 4, opset_import: [\"\" : " + std::to_string(opset) + "]>\n" + body);
}
/// `convert(m, target)` must throw an oxir::Error saying `what` and leave `m` as it was.
template <class Convert>
void check_refusal(Convert convert, Model m, std::int64_t target, const char* what) {
  const Model before = m;
  CHECK_THROWS_WITH_AS((void)convert(m, target), doctest::Contains(what), Error);
  CHECK(m == before);
}
std::vector<std::int64_t> ints_of(const Node& constant) {
  const auto& t = constant.find_attribute("value")->as_tensor();
  const auto v = t.values<std::int64_t>();
  return {v.begin(), v.end()};
}
}  // namespace

TEST_CASE("upgrade_opset: attributes that became inputs move into Constants") {
  auto m = at(9, R"(g (float[2, 3, 4, 5] x) => (float[2, 3, ?, ?] y, float[2, 3, 2, 5] v, int64[2, 3, 2, 5] i) {
  s = Slice <starts = [1, 0], ends = [3, 4], axes = [2, 3]> (x)
  y = Pad <pads = [0, 0, 1, 1, 0, 0, 1, 1], value = 2.5> (s)
  v, i = TopK <k = 2, axis = 2> (x)
})");
  const auto r = upgrade_opset(m, 13);
  CHECK(r.from == 9);
  CHECK(r.to == 13);
  CHECK(r.nodes_rewritten == 3);
  CHECK(r.nodes_added == 6);
  CHECK(m.opset_version("") == 13);
  CHECK(m.ir_version == 7);
  CHECK(ops_of(m.graph) == std::vector<std::string>{"Constant", "Constant", "Constant", "Slice", "Constant", "Constant",
                                                    "Pad", "Constant", "TopK"});
  const auto& g = m.graph;
  CHECK(ints_of(g.nodes[0]) == std::vector<std::int64_t>{1, 0});
  CHECK(ints_of(g.nodes[1]) == std::vector<std::int64_t>{3, 4});
  CHECK(ints_of(g.nodes[2]) == std::vector<std::int64_t>{2, 3});
  CHECK(g.nodes[3].inputs == std::vector<std::string>{"x", g.nodes[0].outputs[0], g.nodes[1].outputs[0], g.nodes[2].outputs[0]});
  CHECK(g.nodes[3].attributes.empty());
  // Pad's value becomes a scalar of the data's element type.
  const auto& value = g.nodes[5].find_attribute("value")->as_tensor();
  CHECK(value.data_type == DataType::FLOAT);
  CHECK(value.dims.empty());
  CHECK(value.element<float>(0) == 2.5f);
  CHECK(g.nodes[6].inputs.size() == 3);
  CHECK(ints_of(g.nodes[7]) == std::vector<std::int64_t>{2});
  CHECK(check(m).ok());
  // Names are fresh: the Constants' outputs are new and distinct.
  std::set<std::string> names;
  for (const auto& n : g.nodes)
    for (const auto& o : n.outputs) CHECK(names.insert(o).second);
}

TEST_CASE("upgrade_opset of an IR version 1 model gives its attributes the type field IR 2 requires") {
  // IR version 1 had no AttributeProto.type: such a file's attributes come without one, at any
  // depth. The upgraded model's IR version needs it (found by fuzz_model).
  Model m = at(9, R"(g (float[2, 3] x, bool c) => (float[3, 2] y) {
  y = If (c) <then_branch = t () => (float[3, 2] ty) { ty = Transpose <perm = [1, 0]> (x) },
              else_branch = e () => (float[3, 2] ey) { ey = Transpose (x) }>
})");
  m.ir_version = 1;
  for (auto& n : views::all_nodes(m.graph))
    for (auto& a : n.attributes) a.type = AttributeType::UNDEFINED;
  REQUIRE(check(m).ok());
  (void)upgrade_opset(m, 13);
  CHECK(m.ir_version == 7);
  CHECK(check(m).ok());
  const Node& if_node = m.graph.nodes.back();
  CHECK(if_node.find_attribute("then_branch")->type == AttributeType::GRAPH);
  const Graph& then_g = if_node.find_attribute("then_branch")->as_graph();
  CHECK(then_g.nodes[0].find_attribute("perm")->type == AttributeType::INTS);
}

TEST_CASE("upgrade_opset of an IR version 1 or 2 model imports the other domains its nodes use") {
  // Below IR 3 a node of another domain needs no import; the upgraded model's IR version does
  // (found by fuzz_model_structured: a valid model made invalid).
  Model m = at(9, R"(g (float[2, 3] x) => (float[2, 3] y, float[2, 3] z) {
  y = com.example.Scale <k = 2> (x)
  c = Constant <value = bool {1}> ()
  z = If (c) <then_branch = t () => (float[2, 3] ty) { ty = ai.onnx.ml.Normalizer (x) },
              else_branch = e () => (float[2, 3] ey) { ey = Identity (x) }>
})");
  m.ir_version = 2;
  INFO(check(m).to_string());
  REQUIRE(check(m).ok());
  (void)upgrade_opset(m, 13);
  CHECK(m.ir_version == 7);
  CHECK(m.opset_version("com.example") == 1);
  CHECK(m.opset_version("ai.onnx.ml") == 1);
  CHECK(m.opset_version("") == 13);
  const CheckReport r = check(m);
  INFO(r.to_string());
  CHECK(r.ok());
}

TEST_CASE("upgrade_opset: Clip's bounds take the input's element type; Softmax's 2-D meaning is kept") {
  auto m = at(10, R"(g (double[3, 4] x, float[2, 3, 4] z) => (double[3, 4] y, float[2, 3, 4] w, float[2, 3, 4] u) {
  y = Clip <min = -1.0, max = 0.5> (x)
  w = Softmax <axis = 1> (z)
  u = LogSoftmax <axis = 2> (z)
})");
  (void)upgrade_opset(m, 13);
  const auto& g = m.graph;
  CHECK(ops_of(g) == std::vector<std::string>{"Constant", "Constant", "Clip", "Shape", "Flatten", "Softmax", "Reshape",
                                              "LogSoftmax"});
  CHECK(g.nodes[0].find_attribute("value")->as_tensor().data_type == DataType::DOUBLE);
  CHECK(g.nodes[0].find_attribute("value")->as_tensor().element<double>(0) == -1.0);
  CHECK(g.nodes[4].attribute_or("axis", std::int64_t{0}) == 1);
  CHECK(g.nodes[5].attribute_or("axis", std::int64_t{0}) == 1);
  CHECK(g.nodes[6].outputs == std::vector<std::string>{"w"});
  CHECK(g.nodes[6].inputs == std::vector<std::string>{g.nodes[5].outputs[0], g.nodes[3].outputs[0]});
  // axis 2 of a rank-3 input is the last: only the attribute changes.
  CHECK(g.nodes[7].inputs == std::vector<std::string>{"z"});
  CHECK(g.nodes[7].attribute_or("axis", std::int64_t{0}) == -1);
  CHECK(check(m).ok());
}

TEST_CASE("upgrade_opset: replaced operators, changed defaults, subgraphs and function bodies") {
  auto m = parse_text_model(R"(<ir_version: 4, opset_import: ["" : 9, "local" : 1]>
g (float[1, 1, 2, 2] x, bool c) => (float[1, 1, 4, 4] y, float[1, 1, 2, 2] z) {
  y = Upsample <mode = "nearest"> (x, s)
  z = If (c) < then_branch = t () => (float[1, 1, 2, 2] a) { a = local.Sq (x) },
               else_branch = e () => (float[1, 1, 2, 2] b) { b = Squeeze <axes = [0]> (x) } >
}
<domain: "local", opset_import: ["" : 9]>
Sq (t) => (u) { u = Unsqueeze <axes = [0]> (t) }
)");
  Tensor s = Tensor::from_values<float>("s", {4}, {1.f, 1.f, 2.f, 2.f});
  m.graph.initializers.push_back(s);
  (void)upgrade_opset(m, 13);
  const auto& g = m.graph;
  REQUIRE(ops_of(g) == std::vector<std::string>{"Constant", "Resize", "If"});
  CHECK(g.nodes[1].inputs == std::vector<std::string>{"x", g.nodes[0].outputs[0], "s"});
  CHECK(g.nodes[1].attribute_or("coordinate_transformation_mode", std::string_view()) == "asymmetric");
  CHECK(g.nodes[1].attribute_or("nearest_mode", std::string_view()) == "floor");
  const Graph& e = g.nodes[2].find_attribute("else_branch")->as_graph();
  CHECK(ops_of(e) == std::vector<std::string>{"Constant", "Squeeze"});
  CHECK(m.functions[0].opset_version("") == 13);
  Graph body;
  body.nodes = m.functions[0].nodes;
  CHECK(ops_of(body) == std::vector<std::string>{"Constant", "Unsqueeze"});

  // Scatter becomes ScatterElements; RoiAlign keeps its old coordinates; GridSample's modes renamed.
  auto sc = at(10, R"(g (float[3, 3] x, int64[1, 3] i, float[1, 3] u) => (float[3, 3] y) { y = Scatter <axis = 0> (x, i, u) })");
  (void)upgrade_opset(sc, 11);
  CHECK(sc.graph.nodes[0].op_type == "ScatterElements");
  auto grid = at(16, R"(g (float[1, 1, 4, 4] x, float[1, 2, 2, 2] p) => (float[1, 1, 2, 2] y, float[1, 1, 2, 2] z) {
  y = GridSample <mode = "bicubic"> (x, p)
  z = GridSample (x, p)
})");
  (void)upgrade_opset(grid, 20);
  CHECK(grid.graph.nodes[0].attribute_or("mode", std::string_view()) == "cubic");
  CHECK(grid.graph.nodes[1].attribute_or("mode", std::string_view()) == "linear");
  // Split without sizes says its number of parts from 18 on.
  auto split = at(13, R"(g (float[6] x) => (float[3] a, float[3] b) { a, b = Split (x) })");
  (void)upgrade_opset(split, 18);
  CHECK(split.graph.nodes[0].attribute_or("num_outputs", std::int64_t{0}) == 2);
  // Inserted values are named after the node, made unique (node names need not be).
  auto twins = at(11, R"(g (float[1, 2] x, float[2, 1] n_axes) => (float[2] a, float[2] b) {
  [n] a = Squeeze <axes = [0]> (x)
  [n] b = Squeeze <axes = [1]> (n_axes)
})");
  (void)upgrade_opset(twins, 13);
  CHECK(twins.graph.nodes[0].outputs[0] == "n_axes_1");
  CHECK(twins.graph.nodes[2].outputs[0] == "n_axes_2");
  CHECK(check(twins).ok());
  // A model already at the target is left alone.
  auto same = split;
  CHECK(upgrade_opset(same, 18) == UpgradeReport{18, 18, 0, 0});
  CHECK(same == split);
}

TEST_CASE("upgrade_opset: Scan-8 becomes a Loop over the batch running Scan-9") {
  auto m = at(8, R"(g (float[2] init, float[4, 3, 2] x) => (float[4, 2] sum, float[4, 3, 2] partial) {
  [s] sum, partial = Scan <body = b (float[2] acc, float[2] e) => (float[2] acc_out, float[2] p) {
    acc_out = Add (acc, e)
    p = Identity (acc_out)
  }, num_scan_inputs = 1, directions = [1]> (, batch_init, x)
})");
  // Batch-major initial states, made by an Expand before the Scan.
  m.graph.nodes.insert(m.graph.nodes.begin(), Node("Expand", {"init", "four_by_two"}, {"batch_init"}));
  m.graph.initializers.push_back(Tensor::from_values<std::int64_t>("four_by_two", {2}, {4, 2}));
  const auto r = upgrade_opset(m, 21);
  CHECK(r.nodes_rewritten == 1);
  const auto& g = m.graph;
  REQUIRE(ops_of(g) == std::vector<std::string>{"Expand", "Shape", "Constant", "Gather", "Loop"});
  const Node& loop = g.nodes[4];
  CHECK(loop.name == "s");
  CHECK(loop.inputs == std::vector<std::string>{g.nodes[3].outputs[0], ""});
  CHECK(loop.outputs == std::vector<std::string>{"sum", "partial"});
  const Graph& body = loop.find_attribute("body")->as_graph();
  REQUIRE(ops_of(body) == std::vector<std::string>{"Identity", "Gather", "Gather", "Scan"});
  CHECK(body.nodes[1].inputs == std::vector<std::string>{"batch_init", body.inputs[0].name});
  CHECK(body.nodes[2].inputs == std::vector<std::string>{"x", body.inputs[0].name});
  const Node& scan = body.nodes[3];
  CHECK(scan.attribute_or("num_scan_inputs", std::int64_t{0}) == 1);
  CHECK(scan.find_attribute("directions") == nullptr);
  CHECK(scan.find_attribute("scan_input_directions")->as_ints() == std::vector<std::int64_t>{1});
  CHECK(scan.find_attribute("body")->as_graph().nodes.size() == 2);
  REQUIRE(body.outputs.size() == 3);
  CHECK(body.outputs[1].type->elem_type() == DataType::FLOAT);
  CHECK(check(m).ok());
  // Inference through the Loop gives back Scan-8's batch-major shapes.
  m.graph.outputs[0].type = Type::tensor(DataType::FLOAT);
  m.graph.outputs[1].type = Type::tensor(DataType::FLOAT);
  (void)infer_shapes(m, {});
  CHECK(*m.graph.outputs[0].type == Type::tensor(DataType::FLOAT, Shape{4, 2}));
  CHECK(*m.graph.outputs[1].type == Type::tensor(DataType::FLOAT, Shape{4, 3, 2}));
}

TEST_CASE("upgrade_opset: GroupNormalization's per-group scale and bias become per-channel at 21") {
  auto m = at(18, R"(g (float[N, 6, 5] x, float[3] s, float[3] b) => (float[N, 6, 5] y) {
  y = GroupNormalization <num_groups = 3, epsilon = 0.001> (x, s, b)
})");
  const auto r = upgrade_opset(m, 21);
  CHECK(r.nodes_rewritten == 1);
  const auto& g = m.graph;
  REQUIRE(ops_of(g) == std::vector<std::string>{"Shape", "Constant", "Div", "Concat", "Constant", "Constant",
                                                "Unsqueeze", "Expand", "Reshape", "Unsqueeze", "Expand", "Reshape",
                                                "GroupNormalization"});
  CHECK(g.nodes[0].inputs[0] == "x");
  CHECK(g.nodes[0].attribute_or("start", std::int64_t{0}) == 1);
  CHECK(g.nodes[0].attribute_or("end", std::int64_t{0}) == 2);
  CHECK(ints_of(g.nodes[1]) == std::vector<std::int64_t>{3});
  CHECK(g.nodes[6].inputs[0] == "s");
  CHECK(g.nodes[9].inputs[0] == "b");
  const Node& gn = g.nodes.back();
  CHECK(gn.inputs == std::vector<std::string>{"x", g.nodes[8].outputs[0], g.nodes[11].outputs[0]});
  CHECK(gn.attribute_or("num_groups", std::int64_t{0}) == 3);
  CHECK(check(m).ok());
  // The per-channel scale has C = 6 entries.
  (void)infer_shapes(m, {});
  bool found = false;
  for (const auto& v : g.value_info)
    if (v.name == g.nodes[8].outputs[0]) {
      found = true;
      CHECK(*v.type == Type::tensor(DataType::FLOAT, Shape{6}));
    }
  CHECK(found);
}

TEST_CASE("upgrade_opset: opsets 1-6, legacy broadcasting and renamed attributes") {
  auto m = at(1, R"(g (float[2, 3, 4, 5] a, float[3] b, float[5] c, float[3] s, float[2, 3] p, float[2, 2] q)
    => (float[2, 3, 4, 5] y, float[2, 3, 4, 5] z, float[2, 3, 4, 5] w, float[2, 5] u, int32[2, 3, 4, 5] k, float[2, 3, 4, 5] e) {
  y = Add <broadcast = 1, axis = 1, consumed_inputs = [0, 0]> (a, b)
  z = Mul <broadcast = 1> (a, c)
  w = PRelu (a, s)
  u = Concat (p, q)
  k = Cast <to = "INT32"> (a)
  e = Selu (a)
})");
  const auto r = upgrade_opset(m, 13);
  CHECK(r.from == 1);
  CHECK(r.nodes_rewritten == 6);
  const auto& g = m.graph;
  REQUIRE(ops_of(g) == std::vector<std::string>{"Constant", "Unsqueeze", "Add", "Mul", "Constant", "Unsqueeze", "PRelu",
                                                "Concat", "Cast", "Selu"});
  // B of rank 1 at axis 1 of a rank-4 A: [3] -> [3, 1, 1], aligned at the end as numpy does.
  CHECK(ints_of(g.nodes[0]) == std::vector<std::int64_t>{1, 2});
  CHECK(g.nodes[1].inputs[0] == "b");
  CHECK(g.nodes[2].inputs == std::vector<std::string>{"a", g.nodes[1].outputs[0]});
  CHECK(g.nodes[2].attributes.empty());
  CHECK(g.nodes[3].inputs == std::vector<std::string>{"a", "c"});  // a suffix already aligns
  CHECK(g.nodes[3].attributes.empty());
  // PRelu's per-channel slope: [3] -> [3, 1, 1].
  CHECK(ints_of(g.nodes[4]) == std::vector<std::int64_t>{1, 2});
  CHECK(g.nodes[6].inputs[1] == g.nodes[5].outputs[0]);
  CHECK(g.nodes[7].attribute_or("axis", std::int64_t{0}) == 1);
  CHECK(g.nodes[8].attribute_or("to", std::int64_t{0}) == static_cast<std::int64_t>(DataType::INT32));
  CHECK(g.nodes[9].attribute_or("alpha", 0.f) == 1.6732f);  // Selu-1's defaults, kept
  CHECK(g.nodes[9].attribute_or("gamma", 0.f) == 1.0507f);
  CHECK(check(m).ok());

  // Before 13 the inserted Unsqueeze takes its axes as an attribute.
  auto seven = at(6, R"(g (float[2, 3, 4] a, float[3] b) => (float[2, 3, 4] y) { y = Sub <broadcast = 1, axis = 1> (a, b) })");
  (void)upgrade_opset(seven, 7);
  REQUIRE(ops_of(seven.graph) == std::vector<std::string>{"Unsqueeze", "Sub"});
  CHECK(seven.graph.nodes[0].find_attribute("axes")->as_ints() == std::vector<std::int64_t>{1});

  // Reshape-1's shape, Pad-1's paddings, Split-1's sizes input, Tile-1, BatchNormalization-6 in
  // test mode, Upsample-1, GlobalLpPool-1's float p.
  auto more = at(1, R"(g (float[2, 3, 4] x, float[2, 3] p, float[6] v, float[3] s, float[1, 1, 2, 2] i)
    => (float[4, 6] r, float[3, 6] d, float[2] h, float[4] t, float[2, 9, 4] l, float[2, 3, 4] n, float[1, 1, 4, 6] u, float[1, 1, 1, 1] o) {
  r = Reshape <shape = [4, 6], consumed_inputs = [1]> (x)
  d = Pad <paddings = [0, 1, 1, 2]> (p)
  h, t = Split <axis = 0> (v, sizes)
  l = Tile (x, three, one)
  n = BatchNormalization <is_test = 1> (x, s, s, s, s)
  u = Upsample <height_scale = 2.0, width_scale = 3.0, mode = "bilinear"> (i)
  o = GlobalLpPool <p = 3.0> (i)
})");
  more.graph.initializers.push_back(Tensor::from_values<std::int64_t>("sizes", {2}, {2, 4}));
  more.graph.initializers.push_back(Tensor::from_values<std::int64_t>("three", {}, {3}));
  more.graph.initializers.push_back(Tensor::from_values<std::int64_t>("one", {}, {1}));
  (void)upgrade_opset(more, 9);
  const auto& h = more.graph;
  REQUIRE(ops_of(h) == std::vector<std::string>{"Constant", "Reshape", "Pad", "Split", "Constant", "Tile",
                                                "BatchNormalization", "Constant", "Upsample", "GlobalLpPool"});
  CHECK(ints_of(h.nodes[0]) == std::vector<std::int64_t>{4, 6});
  CHECK(h.nodes[1].inputs == std::vector<std::string>{"x", h.nodes[0].outputs[0]});
  CHECK(h.nodes[1].attributes.empty());
  CHECK(h.nodes[2].find_attribute("pads")->as_ints() == std::vector<std::int64_t>{0, 1, 1, 2});
  CHECK(h.nodes[3].inputs == std::vector<std::string>{"v"});
  CHECK(h.nodes[3].find_attribute("split")->as_ints() == std::vector<std::int64_t>{2, 4});
  CHECK(ints_of(h.nodes[4]) == std::vector<std::int64_t>{1, 3, 1});
  CHECK(h.nodes[5].inputs == std::vector<std::string>{"x", h.nodes[4].outputs[0]});
  CHECK(h.nodes[6].find_attribute("is_test") == nullptr);
  // Upsample-1 -> 7 (scales attribute) -> 9 (scales input).
  const auto scales = h.nodes[7].find_attribute("value")->as_tensor().values<float>();
  CHECK(std::vector<float>(scales.begin(), scales.end()) == std::vector<float>{1.f, 1.f, 2.f, 3.f});
  CHECK(h.nodes[8].attribute_or("mode", std::string_view()) == "linear");
  CHECK(h.nodes[8].inputs == std::vector<std::string>{"i", h.nodes[7].outputs[0]});
  CHECK(h.nodes[9].attribute_or("p", std::int64_t{0}) == 3);
  CHECK(check(more).ok());
}

TEST_CASE("upgrade_opset refuses what it cannot convert, leaving the model as it was") {
  const auto check_refused = [](Model m, std::int64_t target, const char* what) {
    check_refusal([](Model& x, std::int64_t t) { return upgrade_opset(x, t); }, std::move(m), target, what);
  };
  const auto plain = at(9, R"(g (float[2] x) => (float[2] y) { y = Relu (x) })");
  check_refused(plain, 8, "downgrade_opset reaches 8");
  check_refused(plain, 26, "beyond the newest");
  check_refused(at(0, R"(g (float[2] x) => (float[2] y) { y = Relu (x) })"), 13, "from opset 0 is not supported");
  // Opsets 1-6: what cannot be read as the newer operators.
  check_refused(at(6, R"(g (float[2, 3] x, float[3] s, float[3] b, float[3] mu, float[3] v) => (float[2, 3] y) {
  y = BatchNormalization (x, s, b, mu, v)
})"),
                7, "training mode (is_test = 0)");
  check_refused(at(5, R"(g (float[2, 3] x, int64 t, int64 a) => (float[2, 6] y) { y = Tile (x, t, a) })"), 6,
                "Tile-1's tiles and axis are not int64 constants");
  check_refused(at(1, R"(g (float[6] x, int64[2] n) => (float[2] p, float[4] q) { p, q = Split <axis = 0> (x, n) })"), 2,
                "Split-1 takes its sizes from input 'n'");
  check_refused(at(1, R"(g (float[1, 1, 2, 2] x) => (float[1, 1, 1, 1] y) { y = GlobalLpPool <p = 2.5> (x) })"), 2,
                "p = 2.5");
  check_refused(at(6, R"(g (float[2, 3, 4] x, b) => (float[2, 3, 4] y) { y = Add <broadcast = 1, axis = 1> (x, b) })"), 7,
                "the rank of 'b' is not known");
  check_refused(at(6, R"(g (float[2, 3] x, float[2, 3] b) => (float[2, 3] y) { y = Add <broadcast = 1, axis = 1> (x, b) })"),
                7, "does not fit B (rank 2) into A (rank 2)");
  check_refused(at(8, R"(g (int64[2] n, float[2, 3] x) => (float[2, 3] y) {
  y = Scan <body = b (float e) => (float f) { f = Identity (e) }, num_scan_inputs = 1> (n, x)
})"),
                13, "sequence_lens");
  check_refused(at(7, R"(g (float[1, 2, 2] x, float[2, 2] s, float[2, 2] b, float[2, 2] mu, float[2, 2] v) => (float[1, 2, 2] y) {
  y = BatchNormalization <spatial = 0> (x, s, b, mu, v)
})"),
                9, "spatial = 0");
  check_refused(at(10, R"(g (float[1, 1, 4, 4] x, float[4] s) => (float[1, 1, ?, ?] y) { y = Resize (x, s) })"), 11,
                "scales are not a constant");
  check_refused(at(10, R"(g (x) => (y) { y = Clip <min = 0.0> (x) })"), 11, "element type of 'x' is not known");
  check_refused(at(9, R"(g (float[2] x) => (float[2] y) { y = Frobnicate (x) })"), 13, "not an operator of the default domain");
  check_refused(at(9, R"(g (float[2] x) => (float[2] y) { y = Gelu (x) })"), 21, "does not exist at opset 9");
  // The path names the node.
  auto nested = at(7, R"(g (float[2] x) => (float[2] y) { y = Relu (x)  z = BatchNormalization <spatial = 0> (x, x, x, x, x) })");
  CHECK_THROWS_WITH_AS((void)upgrade_opset(nested, 13), doctest::Contains("graph.node[1]"), Error);
}

TEST_CASE("downgrade_opset: inputs become attributes again, replaced operators come back") {
  auto m = at(18, R"(g (float[2, 3, 4, 5] x) => (float[2, 4] r, float[1, 2, 3, 4, 5] u, float[2, 3, 4, 5] c,
                                              float[2, 3, 3, 2] s, float[2, 3, 4, 2] k, float[2, 3, 4, 5] m) {
  r = ReduceMean <keepdims = 0> (x, axes)
  u = Unsqueeze (x, zero)
  c = Clip (x, lo, hi)
  s = Slice (x, starts, ends, slice_axes)
  k, idx = TopK <axis = -1> (x, two)
  m = Softmax (x)
})");
  auto& inits = m.graph.initializers;
  inits.push_back(Tensor::from_values<std::int64_t>("axes", {2}, {1, -1}));
  inits.push_back(Tensor::from_values<std::int64_t>("zero", {1}, {0}));
  inits.push_back(Tensor::from_values<float>("lo", {}, {-0.5f}));
  inits.push_back(Tensor::from_values<float>("hi", {}, {0.5f}));
  inits.push_back(Tensor::from_values<std::int64_t>("starts", {2}, {1, 0}));
  inits.push_back(Tensor::from_values<std::int64_t>("ends", {2}, {4, 2}));
  inits.push_back(Tensor::from_values<std::int64_t>("slice_axes", {2}, {-2, -1}));
  inits.push_back(Tensor::from_values<std::int64_t>("two", {1}, {2}));
  const auto r = downgrade_opset(m, 9);
  CHECK(r.from == 18);
  CHECK(r.to == 9);
  CHECK(m.opset_version("") == 9);
  const auto& g = m.graph;
  // (The Constant made for Slice's axes counted from the front became an attribute: gone.)
  REQUIRE(ops_of(g) == std::vector<std::string>{"ReduceMean", "Unsqueeze", "Clip", "Slice", "TopK", "Softmax"});
  CHECK(g.nodes[0].inputs == std::vector<std::string>{"x"});
  CHECK(g.nodes[0].find_attribute("axes")->as_ints() == std::vector<std::int64_t>{1, 3});  // negative axes counted from the front
  CHECK(g.nodes[1].find_attribute("axes")->as_ints() == std::vector<std::int64_t>{0});
  CHECK(g.nodes[2].inputs.size() == 1);
  CHECK(g.nodes[2].attribute_or("min", 0.f) == -0.5f);
  CHECK(g.nodes[2].attribute_or("max", 0.f) == 0.5f);
  CHECK(g.nodes[3].inputs == std::vector<std::string>{"x"});
  CHECK(g.nodes[3].find_attribute("starts")->as_ints() == std::vector<std::int64_t>{1, 0});
  CHECK(g.nodes[3].find_attribute("axes")->as_ints() == std::vector<std::int64_t>{2, 3});
  CHECK(g.nodes[4].inputs == std::vector<std::string>{"x"});
  CHECK(g.nodes[4].attribute_or("k", std::int64_t{0}) == 2);
  CHECK(g.nodes[4].attribute_or("axis", std::int64_t{0}) == -1);  // TopK took negative axes from the start
  CHECK(g.nodes[5].attribute_or("axis", std::int64_t{0}) == 3);  // the last axis, counted from the front
  CHECK(check(m).ok());

  // Resize-13 enlarging in nearest mode as Resize-10 would: Upsample before 10, scales an attribute.
  auto up = at(13, R"(g (float[1, 1, 2, 2] x) => (float[1, 1, 4, 6] y) {
  y = Resize <mode = "nearest", coordinate_transformation_mode = "asymmetric", nearest_mode = "floor"> (x, , s)
})");
  up.graph.initializers.push_back(Tensor::from_values<float>("s", {4}, {1.f, 1.f, 2.f, 3.f}));
  (void)downgrade_opset(up, 9);
  REQUIRE(ops_of(up.graph) == std::vector<std::string>{"Upsample"});
  CHECK(up.graph.nodes[0].inputs == std::vector<std::string>{"x", "s"});
  CHECK(up.graph.nodes[0].attributes.size() == 1);  // mode
  (void)downgrade_opset(up, 7);
  CHECK(up.graph.nodes[0].inputs == std::vector<std::string>{"x"});
  CHECK(up.graph.nodes[0].find_attribute("scales")->as_floats() == std::vector<float>{1.f, 1.f, 2.f, 3.f});
  // half_pixel coordinates rounding to the nearest pixel (the defaults) pick the same pixels at
  // whole scales; sizes that are whole multiples of known input sizes are those scales.
  auto half = at(13, R"(g (float[1, 1, 2, 2] x) => (float[1, 1, 4, 6] y) { y = Resize <mode = "nearest"> (x, , s) })");
  half.graph.initializers.push_back(Tensor::from_values<float>("s", {4}, {1.f, 1.f, 2.f, 3.f}));
  (void)downgrade_opset(half, 9);
  REQUIRE(ops_of(half.graph) == std::vector<std::string>{"Upsample"});
  CHECK(half.graph.nodes[0].inputs == std::vector<std::string>{"x", "s"});
  auto sized = at(13, R"(g (float[1, 1, 2, 2] x) => (float[1, 1, 4, 6] y) {
  y = Resize <mode = "nearest", nearest_mode = "round_prefer_ceil"> (x, , , sz) })");
  sized.graph.initializers.push_back(Tensor::from_values<std::int64_t>("sz", {4}, {1, 1, 4, 6}));
  (void)downgrade_opset(sized, 9);
  REQUIRE(ops_of(sized.graph) == std::vector<std::string>{"Constant", "Upsample"});
  const auto& made_scales = sized.graph.nodes[0].find_attribute("value")->as_tensor();
  CHECK(std::vector<float>(made_scales.values<float>().begin(), made_scales.values<float>().end()) ==
        std::vector<float>{1.f, 1.f, 2.f, 3.f});
  CHECK(sized.graph.nodes[1].inputs == std::vector<std::string>{"x", sized.graph.nodes[0].outputs[0]});
  CHECK(check(sized).ok());
  const auto refused = [](Model m, std::int64_t target, const char* what) {
    check_refusal([](Model& x, std::int64_t t) { return downgrade_opset(x, t); }, std::move(m), target, what);
  };
  auto frac = at(13, R"(g (float[1, 1, 2, 2] x) => (float[1, 1, 3, 3] y) { y = Resize <mode = "nearest"> (x, , s) })");
  frac.graph.initializers.push_back(Tensor::from_values<float>("s", {4}, {1.f, 1.f, 1.5f, 1.5f}));
  refused(frac, 9, "the same for constant whole scales, and these are not");
  auto floor_mode = at(13, R"(g (float[1, 1, 2, 2] x) => (float[1, 1, 4, 4] y) {
  y = Resize <mode = "nearest", nearest_mode = "floor"> (x, , s) })");
  floor_mode.graph.initializers.push_back(Tensor::from_values<float>("s", {4}, {1.f, 1.f, 2.f, 2.f}));
  refused(floor_mode, 9, "maps coordinates as 'asymmetric' only");
  auto odd = at(13, R"(g (float[1, 1, 2, 2] x) => (float[1, 1, 5, 4] y) { y = Resize <mode = "nearest"> (x, , , sz) })");
  odd.graph.initializers.push_back(Tensor::from_values<std::int64_t>("sz", {4}, {1, 1, 5, 4}));
  refused(odd, 9, "whole multiples of the input's sizes; axis 2 is not");

  // Constant's value_ints became a tensor; Gemm's C written out; ScatterElements is Scatter.
  auto c = at(13, R"(g (float[3, 4] a, float[5, 4] b, float[3, 3] x, int64[1, 3] i, float[1, 3] u)
    => (int64[2] k, float[3, 5] y, float[3, 3] z) {
  k = Constant <value_ints = [2, 60]> ()
  y = Gemm <transB = 1> (a, b)
  z = ScatterElements <axis = 1> (x, i, u)
})");
  (void)downgrade_opset(c, 10);
  REQUIRE(ops_of(c.graph) == std::vector<std::string>{"Constant", "Constant", "Gemm", "Scatter"});
  CHECK(ints_of(c.graph.nodes[0]) == std::vector<std::int64_t>{2, 60});
  CHECK(c.graph.nodes[2].inputs.size() == 3);
  CHECK(check(c).ok());
}

TEST_CASE("downgrade_opset refuses what the older opset cannot say, leaving the model as it was") {
  const auto check_refused = [](Model m, std::int64_t target, const char* what) {
    check_refusal([](Model& x, std::int64_t t) { return downgrade_opset(x, t); }, std::move(m), target, what);
  };
  const auto plain = at(13, R"(g (float[2] x) => (float[2] y) { y = Relu (x) })");
  check_refused(plain, 14, "upgrade_opset reaches 14");
  check_refused(plain, 6, "downgrading to opset 6 is not supported");
  check_refused(at(20, R"(g (float[2] x) => (float[2] y) { y = DFT (x) })"), 16, "'DFT' does not exist at opset 16");
  check_refused(at(13, R"(g (float[2, 3] x, int64[1] a) => (float[2] y) { y = Squeeze (x, a) })"), 11,
                "input 'a' is not a constant (a graph input, which a caller may set, even with an initializer as its "
                "default), and at opset 11 it is the attribute 'axes'");
  check_refused(at(18, R"(g (float[7, 3] x) => (float[3, 3] a, float[3, 3] b, float[1, 3] c) { a, b, c = Split <num_outputs = 3> (x) })"),
                13, "may split unevenly");
  // The type check at the target: bfloat16 Add came with opset 13.
  check_refused(at(13, R"(g (bfloat16[2] x) => (bfloat16[2] y) { y = Add (x, x) })"), 11,
                "at opset 11, Add: input 0 is tensor(bfloat16)");
  // An initializer that is also a graph input may be overridden: not a constant.
  auto over = at(13, R"(g (float[2, 3] x, int64[1] a) => (float[3] y) { y = Squeeze (x, a) })");
  over.graph.initializers.push_back(Tensor::from_values<std::int64_t>("a", {1}, {0}));
  check_refused(over, 11, "'a' is not a constant (a graph input, which a caller may set");
}

TEST_CASE("downgrade_opset: softmax along another axis, Shape's start/end, ArgMax's last index, DepthToSpace CRD") {
  // Softmax-13 along axis 1 of a rank-3 input: transposed so that the axis is the last one, and back.
  auto s = at(13, R"(g (float[2, 3, 4] x) => (float[2, 3, 4] y) { y = Softmax <axis = 1> (x) })");
  auto r = downgrade_opset(s, 11);
  REQUIRE(ops_of(s.graph) == std::vector<std::string>{"Transpose", "Softmax", "Transpose"});
  CHECK(r.nodes_added == 2);
  CHECK(s.graph.nodes[0].inputs == std::vector<std::string>{"x"});
  CHECK(s.graph.nodes[0].find_attribute("perm")->as_ints() == std::vector<std::int64_t>{0, 2, 1});
  CHECK(s.graph.nodes[2].find_attribute("perm")->as_ints() == std::vector<std::int64_t>{0, 2, 1});
  CHECK(s.graph.nodes[1].inputs[0] == s.graph.nodes[0].outputs[0]);
  CHECK(s.graph.nodes[2].inputs[0] == s.graph.nodes[1].outputs[0]);
  CHECK(s.graph.nodes[2].outputs[0] == "y");
  CHECK(s.graph.nodes[1].attribute_or("axis", std::int64_t{0}) == -1);
  CHECK(check(s).ok());
  // Before 11 the axis counts from the front; a negative axis other than the last is the same.
  auto h = at(13, R"(g (float[2, 3, 4, 5] x) => (float[2, 3, 4, 5] y) { y = Hardmax <axis = -3> (x) })");
  (void)downgrade_opset(h, 9);
  REQUIRE(ops_of(h.graph) == std::vector<std::string>{"Transpose", "Hardmax", "Transpose"});
  CHECK(h.graph.nodes[0].find_attribute("perm")->as_ints() == std::vector<std::int64_t>{0, 3, 2, 1});
  CHECK(h.graph.nodes[1].attribute_or("axis", std::int64_t{0}) == 3);
  CHECK(check(h).ok());

  // Shape-15's start and end: the whole shape, sliced. From 10 on the bounds are Constants, before
  // it attributes (and the Constants made for them are gone).
  const auto shape = at(15, R"(g (float[2, 3, 4, 5] x) => (int64[2] y) { y = Shape <start = 1, end = -1> (x) })");
  auto s13 = shape;
  (void)downgrade_opset(s13, 13);
  REQUIRE(ops_of(s13.graph) == std::vector<std::string>{"Shape", "Constant", "Constant", "Constant", "Slice"});
  CHECK(s13.graph.nodes[0].inputs == std::vector<std::string>{"x"});
  CHECK(s13.graph.nodes[0].attributes.empty());
  CHECK(ints_of(s13.graph.nodes[1]) == std::vector<std::int64_t>{1});
  CHECK(ints_of(s13.graph.nodes[2]) == std::vector<std::int64_t>{-1});
  CHECK(ints_of(s13.graph.nodes[3]) == std::vector<std::int64_t>{0});
  CHECK(s13.graph.nodes[4].outputs == std::vector<std::string>{"y"});
  CHECK(check(s13).ok());
  auto s9 = shape;
  r = downgrade_opset(s9, 9);
  REQUIRE(ops_of(s9.graph) == std::vector<std::string>{"Shape", "Slice"});
  CHECK(r.nodes_added == 1);
  CHECK(s9.graph.nodes[1].inputs == std::vector<std::string>{s9.graph.nodes[0].outputs[0]});
  CHECK(s9.graph.nodes[1].find_attribute("starts")->as_ints() == std::vector<std::int64_t>{1});
  CHECK(s9.graph.nodes[1].find_attribute("ends")->as_ints() == std::vector<std::int64_t>{-1});
  CHECK(s9.graph.nodes[1].find_attribute("axes")->as_ints() == std::vector<std::int64_t>{0});
  CHECK(check(s9).ok());
  // At 7 too: the Constants made for the bounds, and the Casts that carry them as doubles, are gone.
  auto s7 = shape;
  r = downgrade_opset(s7, 7);
  REQUIRE(ops_of(s7.graph) == std::vector<std::string>{"Shape", "Slice"});
  CHECK(r.nodes_added == 1);
  CHECK(s7.graph.nodes[1].find_attribute("starts")->as_ints() == std::vector<std::int64_t>{1});
  // start alone: the end is the rank's (as large as Slice takes).
  auto open = at(15, R"(g (float[2, 3] x) => (int64[1] y) { y = Shape <start = -1> (x) })");
  (void)downgrade_opset(open, 11);
  REQUIRE(ops_of(open.graph) == std::vector<std::string>{"Shape", "Constant", "Constant", "Constant", "Slice"});
  CHECK(ints_of(open.graph.nodes[2]) == std::vector<std::int64_t>{std::numeric_limits<std::int64_t>::max()});
  // start = 0 and no end is the plain Shape.
  auto plain = at(15, R"(g (float[2, 3] x) => (int64[2] y) { y = Shape <start = 0> (x) })");
  (void)downgrade_opset(plain, 13);
  REQUIRE(ops_of(plain.graph) == std::vector<std::string>{"Shape"});
  CHECK(plain.graph.nodes[0].attributes.empty());

  // ArgMax's select_last_index: d - 1 - ArgMax(x reversed along the axis).
  const auto arg = at(13, R"(g (float[2, 5, 3] x) => (int64[2, 3] y) { y = ArgMax <axis = -2, keepdims = 0, select_last_index = 1> (x) })");
  auto a11 = arg;
  (void)downgrade_opset(a11, 11);
  REQUIRE(ops_of(a11.graph) == std::vector<std::string>{"Constant", "Constant", "Constant", "Constant", "Slice",
                                                        "Constant", "ArgMax", "Sub"});
  const auto& g = a11.graph;
  CHECK(ints_of(g.nodes[0]) == std::vector<std::int64_t>{4});
  CHECK(ints_of(g.nodes[1]) == std::vector<std::int64_t>{-6});
  CHECK(ints_of(g.nodes[2]) == std::vector<std::int64_t>{1});
  CHECK(ints_of(g.nodes[3]) == std::vector<std::int64_t>{-1});
  CHECK(g.nodes[4].inputs == std::vector<std::string>{"x", g.nodes[0].outputs[0], g.nodes[1].outputs[0],
                                                      g.nodes[2].outputs[0], g.nodes[3].outputs[0]});
  CHECK(g.nodes[5].find_attribute("value")->as_tensor().dims.empty());
  CHECK(ints_of(g.nodes[5]) == std::vector<std::int64_t>{4});
  CHECK(g.nodes[6].inputs == std::vector<std::string>{g.nodes[4].outputs[0]});
  CHECK(g.nodes[6].attribute_or("axis", std::int64_t{0}) == 1);
  CHECK(g.nodes[6].find_attribute("select_last_index") == nullptr);
  CHECK(g.nodes[7].inputs == std::vector<std::string>{g.nodes[5].outputs[0], g.nodes[6].outputs[0]});
  CHECK(g.nodes[7].outputs == std::vector<std::string>{"y"});
  CHECK(check(a11).ok());
  // Before 10 (no Slice steps): a Gather of the indices backwards; at 7 their Constant (which
  // holds floats only) is a double one, cast to int64, as is d - 1.
  auto a7 = arg;
  (void)downgrade_opset(a7, 7);
  REQUIRE(ops_of(a7.graph) == std::vector<std::string>{"Constant", "Cast", "Gather", "Constant", "Cast", "ArgMax", "Sub"});
  const auto& g7 = a7.graph;
  const auto& backwards = g7.nodes[0].find_attribute("value")->as_tensor();
  REQUIRE(backwards.data_type == DataType::DOUBLE);
  CHECK(std::vector<double>(backwards.values<double>().begin(), backwards.values<double>().end()) ==
        std::vector<double>{4, 3, 2, 1, 0});
  CHECK(g7.nodes[1].attribute_or("to", std::int64_t{0}) == static_cast<std::int64_t>(DataType::INT64));
  CHECK(g7.nodes[2].inputs == std::vector<std::string>{"x", g7.nodes[1].outputs[0]});
  CHECK(g7.nodes[2].attribute_or("axis", std::int64_t{0}) == 1);
  CHECK(g7.nodes[5].inputs == std::vector<std::string>{g7.nodes[2].outputs[0]});
  CHECK(g7.nodes[6].inputs == std::vector<std::string>{g7.nodes[4].outputs[0], g7.nodes[5].outputs[0]});
  CHECK(check(a7).ok());
  InferOptions strict;
  strict.strict = true;
  CHECK_NOTHROW((void)infer_shapes(a7, strict));
  // ceil_mode before 10: the end pads floor mode needs to count the same windows.
  auto mp = at(12, R"(g (float[1, 1, 4, 5] x) => (float[1, 1, 2, 3] y) {
    y = MaxPool <kernel_shape = [3, 3], strides = [2, 2], pads = [0, 1, 0, 0], ceil_mode = 1> (x) })");
  (void)downgrade_opset(mp, 9);
  REQUIRE(ops_of(mp.graph) == std::vector<std::string>{"MaxPool"});
  CHECK(mp.graph.nodes[0].find_attribute("ceil_mode") == nullptr);
  CHECK(mp.graph.nodes[0].find_attribute("pads")->as_ints() == std::vector<std::int64_t>{0, 1, 1, 1});
  CHECK_NOTHROW((void)infer_shapes(mp, strict));  // y declared [1, 1, 2, 3]: floor mode over the new pads agrees
  // A last window that would start in the end padding is not one ceil mode counts: no pad added.
  auto last = at(12, R"(g (float[1, 1, 3] x) => (float[1, 1, 1] y) {
    y = MaxPool <kernel_shape = [3], strides = [3], pads = [0, 2], ceil_mode = 1> (x) })");
  (void)downgrade_opset(last, 9);
  CHECK(last.graph.nodes[0].find_attribute("pads")->as_ints() == std::vector<std::int64_t>{0, 2});
  // AveragePool counting pads: only where none is added.
  auto ap = at(11, R"(g (float[1, 1, 4, 4] x) => (float[1, 1, 2, 2] y) {
    y = AveragePool <kernel_shape = [2, 2], strides = [2, 2], count_include_pad = 1, ceil_mode = 1> (x) })");
  (void)downgrade_opset(ap, 9);
  CHECK(ap.graph.nodes[0].find_attribute("ceil_mode") == nullptr);
  CHECK(ap.graph.nodes[0].find_attribute("pads") != nullptr);
  // select_last_index = 0 is the only form before 12.
  auto a0 = at(13, R"(g (float[2, 5] x) => (int64[2, 1] y) { y = ArgMin <axis = 1, select_last_index = 0> (x) })");
  (void)downgrade_opset(a0, 11);
  REQUIRE(ops_of(a0.graph) == std::vector<std::string>{"ArgMin"});
  CHECK(a0.graph.nodes[0].find_attribute("select_last_index") == nullptr);

  // DepthToSpace in CRD order: Reshape, Transpose, Reshape (N copied by a 0).
  auto d2s = at(11, R"(g (float[N, 8, 2, 3] x) => (float[N, 2, 4, 6] y) { y = DepthToSpace <blocksize = 2, mode = "CRD"> (x) })");
  (void)downgrade_opset(d2s, 9);
  REQUIRE(ops_of(d2s.graph) == std::vector<std::string>{"Constant", "Reshape", "Transpose", "Constant", "Reshape"});
  CHECK(ints_of(d2s.graph.nodes[0]) == std::vector<std::int64_t>{0, 2, 2, 2, 2, 3});
  CHECK(d2s.graph.nodes[2].find_attribute("perm")->as_ints() == std::vector<std::int64_t>{0, 1, 4, 2, 5, 3});
  CHECK(ints_of(d2s.graph.nodes[3]) == std::vector<std::int64_t>{0, 2, 4, 6});
  CHECK(d2s.graph.nodes[4].outputs == std::vector<std::string>{"y"});
  CHECK(check(d2s).ok());
  // Dropout's training_mode: a constant false is inference mode, what Dropout-10 means.
  auto drop = at(13, R"(g (float[2, 3] x) => (float[2, 3] y) { y = Dropout (x, ratio, off) })");
  drop.graph.initializers.push_back(Tensor::from_values<float>("ratio", {}, {0.25f}));
  drop.graph.initializers.push_back(Tensor::from_values<bool>("off", {}, {false}));
  (void)downgrade_opset(drop, 11);
  REQUIRE(ops_of(drop.graph) == std::vector<std::string>{"Dropout"});
  CHECK(drop.graph.nodes[0].inputs == std::vector<std::string>{"x"});
  CHECK(drop.graph.nodes[0].attribute_or("ratio", 0.f) == 0.25f);

  const auto check_refused = [](Model m, std::int64_t target, const char* what) {
    check_refusal([](Model& x, std::int64_t t) { return downgrade_opset(x, t); }, std::move(m), target, what);
  };
  check_refused(at(11, R"(g (float[1, 8, N, 3] x) => (float[1, 2, ?, 6] y) { y = DepthToSpace <blocksize = 2, mode = "CRD"> (x) })"),
                9, "need the height and the width as numbers");
  check_refused(at(11, R"(g (float[1, 6, 2, 3] x) => (float[1, 1, 4, 6] y) { y = DepthToSpace <blocksize = 2, mode = "CRD"> (x) })"),
                9, "divisible by blocksize");
  auto train = at(13, R"(g (float[2, 3] x) => (float[2, 3] y) { y = Dropout (x, ratio, on) })");
  train.graph.initializers.push_back(Tensor::from_values<float>("ratio", {}, {0.25f}));
  train.graph.initializers.push_back(Tensor::from_values<bool>("on", {}, {true}));
  check_refused(train, 11, "training_mode input (unless a constant false)");
  check_refused(at(13, R"(g (float[2, N] x) => (int64[2, 1] y) { y = ArgMax <axis = 1, select_last_index = 1> (x) })"), 11,
                "needs the size of axis 1 of 'x' as a number");
  check_refused(at(12, R"(g (float[1, 1, 4, N] x) => (float[1, 1, 2, ?] y) {
    y = MaxPool <kernel_shape = [3, 3], strides = [2, 2], ceil_mode = 1> (x) })"), 9, "unless the input's spatial sizes are known numbers");
  check_refused(at(12, R"(g (float[1, 1, 4, 4] x) => (float[1, 1, 2, 2] y) {
    y = MaxPool <kernel_shape = [3, 3], strides = [2, 2], auto_pad = "SAME_UPPER", ceil_mode = 1> (x) })"), 9, "with auto_pad");
  check_refused(at(11, R"(g (float[1, 1, 5] x) => (float[1, 1, 3] y) {
    y = AveragePool <kernel_shape = [2], strides = [2], count_include_pad = 1, ceil_mode = 1> (x) })"), 9,
                "with count_include_pad on axis 0");
  check_refused(at(13, R"(g (float[2, 3] x) => (float[2, 3] y) { y = Softmax <axis = 5> (x) })"), 11,
                "axis 5 is outside the rank 2");
  check_refused(at(13, R"(g (float x) => (float y) { y = LogSoftmax <axis = 0> (x) })"), 11, "axis 0 is outside the rank 0");
}

TEST_CASE("downgrade_opset: operators newer than the target, spelled in the older ones they are made of") {
  const auto check_refused = [](Model m, std::int64_t target, const char* what) {
    check_refusal([](Model& x, std::int64_t t) { return downgrade_opset(x, t); }, std::move(m), target, what);
  };
  const auto float_of = [](const Node& constant) { return constant.find_attribute("value")->as_tensor().values<float>()[0]; };

  // LayerNormalization in float16 with its statistics: computed in float (stash_type 1), the
  // variance as the mean of the squared deviations, Mean and InvStdDev written where the node
  // wrote them, Y cast back to float16 before scale and bias.
  auto ln = at(17, R"(g (float16[N, 4, 5] x, float16[4, 5] s, float16[4, 5] b) => (float16[N, 4, 5] y, float[N, 1, 1] mean, float[N, 1, 1] inv) {
    y, mean, inv = LayerNormalization <axis = 1, epsilon = 0.001> (x, s, b) })");
  auto r = downgrade_opset(ln, 13);
  const auto& g = ln.graph;
  REQUIRE(ops_of(g) == std::vector<std::string>{"Cast", "ReduceMean", "Sub", "Mul", "ReduceMean", "Constant", "Add", "Sqrt",
                                                "Div", "Reciprocal", "Cast", "Mul", "Add"});
  CHECK(r.nodes_added == 12);
  CHECK(g.nodes[0].inputs == std::vector<std::string>{"x"});
  CHECK(g.nodes[0].attribute_or("to", std::int64_t{0}) == static_cast<std::int64_t>(DataType::FLOAT));
  CHECK(g.nodes[1].outputs == std::vector<std::string>{"mean"});
  CHECK(g.nodes[1].find_attribute("axes")->as_ints() == std::vector<std::int64_t>{1, 2});
  CHECK(g.nodes[1].attribute_or("keepdims", std::int64_t{0}) == 1);
  CHECK(g.nodes[3].inputs == std::vector<std::string>{g.nodes[2].outputs[0], g.nodes[2].outputs[0]});
  CHECK(float_of(g.nodes[5]) == 0.001f);
  CHECK(g.nodes[9].outputs == std::vector<std::string>{"inv"});
  CHECK(g.nodes[10].attribute_or("to", std::int64_t{0}) == static_cast<std::int64_t>(DataType::FLOAT16));
  CHECK(g.nodes[11].inputs == std::vector<std::string>{g.nodes[10].outputs[0], "s"});
  CHECK(g.nodes[12].inputs == std::vector<std::string>{g.nodes[11].outputs[0], "b"});
  CHECK(g.nodes[12].outputs == std::vector<std::string>{"y"});
  CHECK(check(ln).ok());
  InferOptions strict;
  strict.strict = true;
  CHECK_NOTHROW((void)infer_shapes(ln, strict));

  // RMSNormalization: ReduceMean's axes an input from 18, an attribute before; no Cast when X is
  // already in the stash type.
  const auto rms = at(23, R"(g (float[2, 3, 4] x, float[3, 4] s) => (float[2, 3, 4] y) { y = RMSNormalization <axis = -2, epsilon = 0.01> (x, s) })");
  auto r21 = rms;
  (void)downgrade_opset(r21, 21);
  REQUIRE(ops_of(r21.graph) == std::vector<std::string>{"Mul", "Constant", "ReduceMean", "Constant", "Add", "Sqrt", "Div", "Mul"});
  CHECK(ints_of(r21.graph.nodes[1]) == std::vector<std::int64_t>{1, 2});
  CHECK(r21.graph.nodes[2].inputs == std::vector<std::string>{r21.graph.nodes[0].outputs[0], r21.graph.nodes[1].outputs[0]});
  CHECK(r21.graph.nodes[6].inputs[0] == "x");
  CHECK(r21.graph.nodes[7].outputs == std::vector<std::string>{"y"});
  auto r17 = rms;
  (void)downgrade_opset(r17, 17);
  REQUIRE(ops_of(r17.graph) == std::vector<std::string>{"Mul", "ReduceMean", "Constant", "Add", "Sqrt", "Div", "Mul"});
  CHECK(r17.graph.nodes[1].find_attribute("axes")->as_ints() == std::vector<std::int64_t>{1, 2});
  CHECK(check(r17).ok());

  // Gelu: with Erf from opset 9; the tanh approximation has no Erf and goes lower.
  auto gelu = at(20, R"(g (float[3] x) => (float[3] y) { y = Gelu (x) })");
  (void)downgrade_opset(gelu, 9);
  CHECK(ops_of(gelu.graph) == std::vector<std::string>{"Constant", "Div", "Erf", "Constant", "Add", "Mul", "Constant", "Mul"});
  auto gelu_tanh = at(20, R"(g (double[3] x) => (double[3] y) { y = Gelu <approximate = "tanh"> (x) })");
  (void)downgrade_opset(gelu_tanh, 7);
  CHECK(ops_of(gelu_tanh.graph) == std::vector<std::string>{"Mul", "Mul", "Constant", "Mul", "Add", "Constant", "Mul", "Tanh",
                                                            "Constant", "Add", "Mul", "Constant", "Mul"});
  CHECK(gelu_tanh.graph.nodes[2].find_attribute("value")->as_tensor().data_type == DataType::DOUBLE);
  CHECK(check(gelu_tanh).ok());
  check_refused(at(20, R"(g (float[3] x) => (float[3] y) { y = Gelu (x) })"), 8, "needs Erf, which came with opset 9");

  // CastLike: a Cast to the second input's element type.
  auto cl = at(15, R"(g (float[2] x, double[1] like) => (double[2] y) { y = CastLike (x, like) })");
  (void)downgrade_opset(cl, 13);
  REQUIRE(ops_of(cl.graph) == std::vector<std::string>{"Cast"});
  CHECK(cl.graph.nodes[0].inputs == std::vector<std::string>{"x"});
  CHECK(cl.graph.nodes[0].attribute_or("to", std::int64_t{0}) == static_cast<std::int64_t>(DataType::DOUBLE));

  // GreaterOrEqual as Or(Greater, Equal); Equal takes floats from 11, Greater integers from 9.
  auto ge = at(12, R"(g (int64[3] a, int64[3] b) => (bool[3] y) { y = GreaterOrEqual (a, b) })");
  (void)downgrade_opset(ge, 9);
  REQUIRE(ops_of(ge.graph) == std::vector<std::string>{"Greater", "Equal", "Or"});
  CHECK(ge.graph.nodes[2].inputs == std::vector<std::string>{ge.graph.nodes[0].outputs[0], ge.graph.nodes[1].outputs[0]});
  CHECK(ge.graph.nodes[2].outputs == std::vector<std::string>{"y"});
  check_refused(at(12, R"(g (int8[3] a, int8[3] b) => (bool[3] y) { y = LessOrEqual (a, b) })"), 9,
                "graph.node[0]: at opset 9, the Equal its older spelling adds: input 0 is tensor(int8), which Equal-7 does not allow");
  check_refused(at(12, R"(g (int64[3] a, int64[3] b) => (bool[3] y) { y = GreaterOrEqual (a, b) })"), 7,
                "graph.node[0]: at opset 7, the Greater its older spelling adds: input 0 is tensor(int64), which Greater-7 does "
                "not allow");

  // The activations.
  auto hs = at(14, R"(g (float[3] x) => (float[3] y) { y = HardSwish (x) })");
  (void)downgrade_opset(hs, 13);
  REQUIRE(ops_of(hs.graph) == std::vector<std::string>{"HardSigmoid", "Mul"});
  CHECK(hs.graph.nodes[0].attribute_or("alpha", 0.f) == 1.0f / 6.0f);
  CHECK(hs.graph.nodes[0].attribute_or("beta", 0.f) == 0.5f);
  auto sw = at(24, R"(g (float[3] x) => (float[3] y) { y = Swish (x) })");
  (void)downgrade_opset(sw, 13);
  CHECK(ops_of(sw.graph) == std::vector<std::string>{"Sigmoid", "Mul"});
  auto swa = at(24, R"(g (float[3] x) => (float[3] y) { y = Swish <alpha = 0.5> (x) })");
  (void)downgrade_opset(swa, 13);
  REQUIRE(ops_of(swa.graph) == std::vector<std::string>{"Constant", "Mul", "Sigmoid", "Mul"});
  CHECK(float_of(swa.graph.nodes[0]) == 0.5f);
  auto mish = at(18, R"(g (float[3] x) => (float[3] y) { y = Mish (x) })");
  (void)downgrade_opset(mish, 13);
  CHECK(ops_of(mish.graph) == std::vector<std::string>{"Softplus", "Tanh", "Mul"});
  auto celu = at(12, R"(g (float[3] x) => (float[3] y) { y = Celu <alpha = 2.0> (x) })");
  (void)downgrade_opset(celu, 7);
  CHECK(ops_of(celu.graph) == std::vector<std::string>{"Constant", "Div", "Elu", "Mul", "Neg", "Relu", "Neg", "Relu", "Add"});
  CHECK(check(celu).ok());

  // Trilu as Where(not (column - row < k), x, 0): index constants of the last two sizes, k any value.
  auto tri = at(14, R"(g (int32[3, 2, 4] x, int64 k) => (int32[3, 2, 4] y) { y = Trilu (x, k) })");
  (void)downgrade_opset(tri, 11);
  REQUIRE(ops_of(tri.graph) == std::vector<std::string>{"Constant", "Constant", "Sub", "Less", "Not", "Constant", "Where"});
  CHECK(ints_of(tri.graph.nodes[0]) == std::vector<std::int64_t>{0, 1});
  CHECK(tri.graph.nodes[0].find_attribute("value")->as_tensor().dims == std::vector<std::int64_t>{2, 1});
  CHECK(ints_of(tri.graph.nodes[1]) == std::vector<std::int64_t>{0, 1, 2, 3});
  CHECK(tri.graph.nodes[3].inputs[1] == "k");
  CHECK(tri.graph.nodes[5].find_attribute("value")->as_tensor().data_type == DataType::INT32);
  CHECK(tri.graph.nodes[6].inputs[1] == "x");
  CHECK(tri.graph.nodes[6].outputs == std::vector<std::string>{"y"});
  CHECK(check(tri).ok());
  auto lower = at(14, R"(g (float[2, 3] x) => (float[2, 3] y) { y = Trilu <upper = 0> (x) })");
  (void)downgrade_opset(lower, 9);
  REQUIRE(ops_of(lower.graph) == std::vector<std::string>{"Constant", "Constant", "Sub", "Constant", "Greater", "Not", "Constant", "Where"});
  CHECK(ints_of(lower.graph.nodes[3]) == std::vector<std::int64_t>{0});
  // A bool mask: And instead of Where.
  auto mask = at(14, R"(g (bool[3, 3] x) => (bool[3, 3] y) { y = Trilu (x) })");
  (void)downgrade_opset(mask, 11);
  REQUIRE(ops_of(mask.graph) == std::vector<std::string>{"Constant", "Constant", "Sub", "Constant", "Less", "Not", "And"});
  CHECK(mask.graph.nodes[6].inputs == std::vector<std::string>{mask.graph.nodes[5].outputs[0], "x"});
  // Sizes that are not numbers: the indices by Range over the sizes Shape reads (from 11).
  auto sym = at(14, R"(g (float[B, S, S] x) => (float[B, S, S] y) { y = Trilu <upper = 1> (x, k) })");
  sym.graph.initializers.push_back(Tensor::from_values<std::int64_t>("k", {}, {1}));
  (void)downgrade_opset(sym, 11);
  REQUIRE(ops_of(sym.graph) == std::vector<std::string>{"Shape", "Constant", "Constant", "Constant", "Gather", "Range", "Unsqueeze",
                                                        "Constant", "Gather", "Range", "Sub", "Less", "Not", "Constant", "Where"});
  CHECK(ints_of(sym.graph.nodes[1]) == std::vector<std::int64_t>{0});  // Range's start and step, shared by both
  CHECK(ints_of(sym.graph.nodes[2]) == std::vector<std::int64_t>{1});
  CHECK(ints_of(sym.graph.nodes[3]) == std::vector<std::int64_t>{1});  // the rows' place in the shape
  CHECK(ints_of(sym.graph.nodes[7]) == std::vector<std::int64_t>{2});  // the columns'
  auto o = [&](std::size_t i) { return sym.graph.nodes[i].outputs[0]; };
  CHECK(sym.graph.nodes[5].inputs == std::vector<std::string>{o(1), o(4), o(2)});
  CHECK(sym.graph.nodes[9].inputs == std::vector<std::string>{o(1), o(8), o(2)});
  CHECK(sym.graph.nodes[6].find_attribute("axes")->as_ints() == std::vector<std::int64_t>{1});
  CHECK(sym.graph.nodes[10].inputs == std::vector<std::string>{o(9), o(6)});
  CHECK(check(sym).ok());
  CHECK_NOTHROW((void)infer_shapes(sym, strict));
  // Before 11, Range's definition: a Loop of as many iterations as the size, adding 1.
  auto sym10 = at(14, R"(g (float[N, M] x) => (float[N, M] y) { y = Trilu (x) })");
  (void)downgrade_opset(sym10, 10);
  REQUIRE(ops_of(sym10.graph) == std::vector<std::string>{"Shape", "Constant", "Constant", "Constant", "Gather", "Loop",
                                                          "Unsqueeze", "Constant", "Gather", "Loop", "Sub", "Constant",
                                                          "Less", "Not", "Constant", "Where"});
  const auto& s10 = sym10.graph;
  CHECK(s10.nodes[5].inputs == std::vector<std::string>{s10.nodes[4].outputs[0], "", s10.nodes[1].outputs[0]});
  REQUIRE(s10.nodes[9].outputs.size() == 2);
  CHECK(s10.nodes[10].inputs == std::vector<std::string>{s10.nodes[9].outputs[1], s10.nodes[6].outputs[0]});
  CHECK(ops_of(s10.nodes[9].find_attribute("body")->as_graph()) == std::vector<std::string>{"Identity", "Add", "Identity"});
  CHECK(check(sym10).ok());
  CHECK_NOTHROW((void)infer_shapes(sym10, strict));
  check_refused(at(14, R"(g (float[2, 3] x) => (float[2, 3] y) { y = Trilu (x) })"), 8, "needs Where, which came with opset 9");

  // GroupNormalization: X reshaped to [N, G, -1], InstanceNormalization, reshaped back. The
  // per-group scale and bias (18) are InstanceNormalization's; the per-channel ones (21) apply
  // after, as [C, 1, 1], with the statistics in the stash type.
  auto gn18 = at(18, R"(g (float[N, 6, H, W] x, float[3] s, float[3] b) => (float[N, 6, H, W] y) {
    y = GroupNormalization <num_groups = 3, epsilon = 0.01> (x, s, b) })");
  (void)downgrade_opset(gn18, 17);
  REQUIRE(ops_of(gn18.graph) == std::vector<std::string>{"Shape", "Constant", "Reshape", "InstanceNormalization", "Reshape"});
  CHECK(ints_of(gn18.graph.nodes[1]) == std::vector<std::int64_t>{0, 3, -1});
  CHECK(gn18.graph.nodes[3].inputs == std::vector<std::string>{gn18.graph.nodes[2].outputs[0], "s", "b"});
  CHECK(gn18.graph.nodes[3].attribute_or("epsilon", 0.f) == 0.01f);
  CHECK(gn18.graph.nodes[4].inputs == std::vector<std::string>{gn18.graph.nodes[3].outputs[0], gn18.graph.nodes[0].outputs[0]});
  CHECK(gn18.graph.nodes[4].outputs == std::vector<std::string>{"y"});
  CHECK(check(gn18).ok());
  auto gn21 = at(21, R"(g (float16[N, 6, H, W] x, float16[6] s, float16[6] b) => (float16[N, 6, H, W] y) {
    y = GroupNormalization <num_groups = 2> (x, s, b) })");
  (void)downgrade_opset(gn21, 11);
  REQUIRE(ops_of(gn21.graph) == std::vector<std::string>{"Shape", "Constant", "Reshape", "Cast", "Constant", "Constant",
                                                         "InstanceNormalization", "Cast", "Reshape", "Unsqueeze", "Unsqueeze",
                                                         "Mul", "Add"});
  const auto& ones = gn21.graph.nodes[4].find_attribute("value")->as_tensor();
  CHECK(ones.dims == std::vector<std::int64_t>{2});
  CHECK(ones.values<float>()[1] == 1.0f);
  CHECK(gn21.graph.nodes[9].find_attribute("axes")->as_ints() == std::vector<std::int64_t>{1, 2});
  CHECK(gn21.graph.nodes[12].outputs == std::vector<std::string>{"y"});
  CHECK(check(gn21).ok());
  CHECK_NOTHROW((void)infer_shapes(gn21, strict));
  // From 21 to 18-20 too, where GroupNormalization exists but scales per group.
  auto gn20 = at(21, R"(g (float[N, 6, 5] x, float[6] s, float[6] b) => (float[N, 6, 5] y) {
    y = GroupNormalization <num_groups = 2> (x, s, b) })");
  (void)downgrade_opset(gn20, 20);
  CHECK(ops_of(gn20.graph) == std::vector<std::string>{"Shape", "Constant", "Reshape", "Constant", "Constant",
                                                       "InstanceNormalization", "Reshape", "Constant", "Unsqueeze",
                                                       "Constant", "Unsqueeze", "Mul", "Add"});
  CHECK(check(gn20).ok());

  // Pow-12's exponent of another type than a float base: cast to the base's type before 12.
  auto pw = at(12, R"(g (float[3] x, int64[3] e) => (float[3] y) { y = Pow (x, e) })");
  (void)downgrade_opset(pw, 11);
  REQUIRE(ops_of(pw.graph) == std::vector<std::string>{"Cast", "Pow"});
  CHECK(pw.graph.nodes[0].inputs == std::vector<std::string>{"e"});
  CHECK(pw.graph.nodes[0].attribute_or("to", std::int64_t{0}) == static_cast<std::int64_t>(DataType::FLOAT));
  CHECK(pw.graph.nodes[1].inputs[1] == pw.graph.nodes[0].outputs[0]);
  auto same = at(12, R"(g (float[3] x, float[3] e) => (float[3] y) { y = Pow (x, e) })");
  (void)downgrade_opset(same, 11);
  CHECK(ops_of(same.graph) == std::vector<std::string>{"Pow"});
  // An integer base: both in double, the power cast back.
  auto pi = at(12, R"(g (int64[3] x, float[3] e) => (int64[3] y) { y = Pow (x, e) })");
  (void)downgrade_opset(pi, 11);
  REQUIRE(ops_of(pi.graph) == std::vector<std::string>{"Cast", "Cast", "Pow", "Cast"});
  CHECK(pi.graph.nodes[0].inputs == std::vector<std::string>{"x"});
  CHECK(pi.graph.nodes[1].inputs == std::vector<std::string>{"e"});
  CHECK(pi.graph.nodes[1].attribute_or("to", std::int64_t{0}) == static_cast<std::int64_t>(DataType::DOUBLE));
  CHECK(pi.graph.nodes[2].inputs == std::vector<std::string>{pi.graph.nodes[0].outputs[0], pi.graph.nodes[1].outputs[0]});
  CHECK(pi.graph.nodes[3].attribute_or("to", std::int64_t{0}) == static_cast<std::int64_t>(DataType::INT64));
  CHECK(pi.graph.nodes[3].outputs == std::vector<std::string>{"y"});
  CHECK(check(pi).ok());
  check_refused(at(12, R"(g (int8[3] x, int8[3] e) => (int8[3] y) { y = Pow (x, e) })"), 11,
                "Pow: input 0 is tensor(int8)");

  // Float comparisons before Equal takes floats (11): x >= y as not x < y, and x == y as
  // neither < nor >, both with neither side NaN (below +inf or above -inf).
  auto gef = at(16, R"(g (float[2, 3] x, float[3] y) => (bool[2, 3] z) { z = GreaterOrEqual (x, y) })");
  (void)downgrade_opset(gef, 9);
  REQUIRE(ops_of(gef.graph) == std::vector<std::string>{"Less", "Not", "Constant", "Constant", "Less", "Greater", "Or",
                                                        "Less", "Greater", "Or", "And", "And"});
  const auto& gg = gef.graph;
  auto out0 = [](const Node& n) { return n.outputs[0]; };
  CHECK(gg.nodes[0].inputs == std::vector<std::string>{"x", "y"});
  CHECK(gg.nodes[2].find_attribute("value")->as_tensor().values<float>()[0] == std::numeric_limits<float>::infinity());
  CHECK(gg.nodes[3].find_attribute("value")->as_tensor().values<float>()[0] == -std::numeric_limits<float>::infinity());
  CHECK(gg.nodes[4].inputs == std::vector<std::string>{"x", out0(gg.nodes[2])});
  CHECK(gg.nodes[5].inputs == std::vector<std::string>{"x", out0(gg.nodes[3])});
  CHECK(gg.nodes[7].inputs == std::vector<std::string>{"y", out0(gg.nodes[2])});
  CHECK(gg.nodes[10].inputs == std::vector<std::string>{out0(gg.nodes[6]), out0(gg.nodes[9])});
  CHECK(gg.nodes[11].inputs == std::vector<std::string>{out0(gg.nodes[1]), out0(gg.nodes[10])});
  CHECK(gg.nodes[11].outputs == std::vector<std::string>{"z"});
  CHECK(check(gef).ok());
  auto le_int = at(16, R"(g (int64[3] x, int64[3] y) => (bool[3] z) { z = LessOrEqual (x, y) })");
  (void)downgrade_opset(le_int, 9);  // Equal takes int64 at 9
  CHECK(ops_of(le_int.graph) == std::vector<std::string>{"Less", "Equal", "Or"});
  auto eq = at(13, R"(g (float16[3] x, float16[3] y) => (bool[3] z) { z = Equal (x, y) })");
  (void)downgrade_opset(eq, 7);
  REQUIRE(ops_of(eq.graph) == std::vector<std::string>{"Less", "Greater", "Or", "Not", "Constant", "Constant", "Less",
                                                        "Greater", "Or", "Less", "Greater", "Or", "And", "And"});
  CHECK(eq.graph.nodes[4].find_attribute("value")->as_tensor().data_type == DataType::FLOAT16);
  CHECK(eq.graph.nodes[13].inputs[0] == eq.graph.nodes[3].outputs[0]);
  CHECK(check(eq).ok());
  auto eq_int = at(13, R"(g (int32[3] x, int32[3] y) => (bool[3] z) { z = Equal (x, y) })");
  (void)downgrade_opset(eq_int, 9);
  CHECK(ops_of(eq_int.graph) == std::vector<std::string>{"Equal"});

  // Integer Max and Min before 12: through float (16 bits), double (32) and cast back, or, for
  // 64 bits, Where(Greater) running over the inputs (from 9).
  auto mx16 = at(13, R"(g (int16[2, 3] a, int16[3] b) => (int16[2, 3] y) { y = Max (a, b) })");
  (void)downgrade_opset(mx16, 9);
  REQUIRE(ops_of(mx16.graph) == std::vector<std::string>{"Cast", "Cast", "Max", "Cast"});
  CHECK(mx16.graph.nodes[0].attribute_or("to", std::int64_t{0}) == static_cast<std::int64_t>(DataType::FLOAT));
  CHECK(mx16.graph.nodes[2].inputs == std::vector<std::string>{out0(mx16.graph.nodes[0]), out0(mx16.graph.nodes[1])});
  CHECK(mx16.graph.nodes[3].inputs == std::vector<std::string>{out0(mx16.graph.nodes[2])});
  CHECK(mx16.graph.nodes[3].attribute_or("to", std::int64_t{0}) == static_cast<std::int64_t>(DataType::INT16));
  CHECK(mx16.graph.nodes[3].outputs == std::vector<std::string>{"y"});
  CHECK(check(mx16).ok());
  auto mn32 = at(13, R"(g (uint32[3] a) => (uint32[3] y) { y = Min (a) })");
  (void)downgrade_opset(mn32, 11);
  REQUIRE(ops_of(mn32.graph) == std::vector<std::string>{"Cast", "Min", "Cast"});
  CHECK(mn32.graph.nodes[0].attribute_or("to", std::int64_t{0}) == static_cast<std::int64_t>(DataType::DOUBLE));
  auto mn64 = at(13, R"(g (int64[2, 3] a, int64[3] b, int64[1] c) => (int64[2, 3] y) { y = Min (a, b, c) })");
  (void)downgrade_opset(mn64, 9);
  REQUIRE(ops_of(mn64.graph) == std::vector<std::string>{"Less", "Where", "Less", "Where"});
  const auto& m64 = mn64.graph;
  CHECK(m64.nodes[0].inputs == std::vector<std::string>{"a", "b"});
  CHECK(m64.nodes[1].inputs == std::vector<std::string>{out0(m64.nodes[0]), "a", "b"});
  CHECK(m64.nodes[2].inputs == std::vector<std::string>{out0(m64.nodes[1]), "c"});
  CHECK(m64.nodes[3].inputs == std::vector<std::string>{out0(m64.nodes[2]), out0(m64.nodes[1]), "c"});
  CHECK(m64.nodes[3].outputs == std::vector<std::string>{"y"});
  CHECK(check(mn64).ok());
  check_refused(at(13, R"(g (int64[3] a, int64[3] b) => (int64[3] y) { y = Max (a, b) })"), 7,
                "Max of INT64 before opset 12 compares by Where");

  // Integer Clip before 12: through float (or double), constant bounds as constants of that type,
  // which opsets before 11 then take as attributes.
  const auto clip8 = at(13, R"(g (int8[3] x) => (int8[3] y) { y = Clip (x, lo, hi) })");
  auto c11 = clip8;
  c11.graph.initializers.push_back(Tensor::from_values<std::int8_t>("lo", {}, {-3}));
  c11.graph.initializers.push_back(Tensor::from_values<std::int8_t>("hi", {}, {7}));
  auto c9 = c11;
  (void)downgrade_opset(c11, 11);
  REQUIRE(ops_of(c11.graph) == std::vector<std::string>{"Constant", "Constant", "Cast", "Clip", "Cast"});
  CHECK(c11.graph.nodes[0].find_attribute("value")->as_tensor().values<float>()[0] == -3.f);
  CHECK(c11.graph.nodes[1].find_attribute("value")->as_tensor().values<float>()[0] == 7.f);
  CHECK(c11.graph.nodes[3].inputs == std::vector<std::string>{out0(c11.graph.nodes[2]), out0(c11.graph.nodes[0]),
                                                              out0(c11.graph.nodes[1])});
  CHECK(c11.graph.nodes[4].attribute_or("to", std::int64_t{0}) == static_cast<std::int64_t>(DataType::INT8));
  CHECK(c11.graph.nodes[4].outputs == std::vector<std::string>{"y"});
  CHECK(check(c11).ok());
  (void)downgrade_opset(c9, 9);
  REQUIRE(ops_of(c9.graph) == std::vector<std::string>{"Cast", "Clip", "Cast"});
  CHECK(c9.graph.nodes[1].attribute_or("min", 0.f) == -3.f);
  CHECK(c9.graph.nodes[1].attribute_or("max", 0.f) == 7.f);
  auto dyn = at(13, R"(g (int32[3] x, int32 lo) => (int32[3] y) { y = Clip (x, lo) })");
  (void)downgrade_opset(dyn, 11);
  REQUIRE(ops_of(dyn.graph) == std::vector<std::string>{"Cast", "Cast", "Clip", "Cast"});
  CHECK(dyn.graph.nodes[0].inputs == std::vector<std::string>{"lo"});
  CHECK(dyn.graph.nodes[0].attribute_or("to", std::int64_t{0}) == static_cast<std::int64_t>(DataType::DOUBLE));
  check_refused(at(13, R"(g (int64[3] x) => (int64[3] y) { y = Clip (x) })"), 11,
                "neither float nor double holds every 64-bit integer");
  auto big = at(13, R"(g (int32[3] x) => (int32[3] y) { y = Clip (x, lo) })");
  big.graph.initializers.push_back(Tensor::from_values<std::int32_t>("lo", {}, {16777217}));
  check_refused(big, 9, "the bound 16777217 of 'lo' is not exact as the float attribute");
  auto tenth = at(11, R"(g (double[3] x) => (double[3] y) { y = Clip (x, lo) })");
  tenth.graph.initializers.push_back(Tensor::from_values<double>("lo", {}, {0.1}));
  check_refused(tenth, 9, "the double bound 'lo' is not exact as the float attribute 'min'");

  // ThresholdedRelu before 10 (an experimental operator then): Where(x > alpha, x, 0) from 9.
  auto tr = at(10, R"(g (float[3] x) => (float[3] y) { y = ThresholdedRelu <alpha = 0.5> (x) })");
  (void)downgrade_opset(tr, 9);
  REQUIRE(ops_of(tr.graph) == std::vector<std::string>{"Constant", "Greater", "Constant", "Where"});
  CHECK(tr.graph.nodes[0].find_attribute("value")->as_tensor().values<float>()[0] == 0.5f);
  CHECK(tr.graph.nodes[3].inputs == std::vector<std::string>{out0(tr.graph.nodes[1]), "x", out0(tr.graph.nodes[2])});
  CHECK(check(tr).ok());
  check_refused(at(10, R"(g (float[3] x) => (float[3] y) { y = ThresholdedRelu (x) })"), 7, "was an experimental operator");
  // MeanVarianceNormalization before 9 (experimental then): its definition over `axes`.
  auto mvn = at(9, R"(g (float[2, 3, 4, 5] x) => (float[2, 3, 4, 5] y) { y = MeanVarianceNormalization <axes = [1, 3]> (x) })");
  (void)downgrade_opset(mvn, 7);
  REQUIRE(ops_of(mvn.graph) == std::vector<std::string>{"ReduceMean", "Sub", "Mul", "ReduceMean", "Sqrt", "Constant",
                                                         "Add", "Div"});
  const auto& mg = mvn.graph;
  CHECK(mg.nodes[0].find_attribute("axes")->as_ints() == std::vector<std::int64_t>{1, 3});
  CHECK(mg.nodes[1].inputs == std::vector<std::string>{"x", out0(mg.nodes[0])});
  CHECK(mg.nodes[3].inputs == std::vector<std::string>{out0(mg.nodes[2])});
  CHECK(mg.nodes[5].find_attribute("value")->as_tensor().values<float>()[0] == 1e-9f);
  CHECK(mg.nodes[7].inputs == std::vector<std::string>{out0(mg.nodes[1]), out0(mg.nodes[6])});
  CHECK(mg.nodes[7].outputs == std::vector<std::string>{"y"});
  CHECK(check(mvn).ok());
  auto mvn_default = at(9, R"(g (float[2, 3, 4, 5] x) => (float[2, 3, 4, 5] y) { y = MeanVarianceNormalization (x) })");
  (void)downgrade_opset(mvn_default, 7);
  CHECK(mvn_default.graph.nodes[0].find_attribute("axes")->as_ints() == std::vector<std::int64_t>{0, 2, 3});

  // The losses before 12, as their definitions: the picked log-probability (GatherElements from
  // 11), weighted, negated, 0 where ignored; "mean" over the weights that applied.
  auto nll = at(13, R"(g (float[2, 3, 4] x, int64[2, 4] t, float[3] w) => (float y) {
    y = NegativeLogLikelihoodLoss <ignore_index = -1> (x, t, w) })");
  (void)downgrade_opset(nll, 11);
  REQUIRE(ops_of(nll.graph) == std::vector<std::string>{"Constant", "Equal", "Not", "Constant", "Where", "Unsqueeze",
                                                        "GatherElements", "Squeeze", "Gather", "Constant", "Where",
                                                        "Mul", "Neg", "Constant", "Where", "ReduceSum", "ReduceSum",
                                                        "Div"});
  const auto& ng = nll.graph;
  CHECK(ng.nodes[0].find_attribute("value")->as_tensor().values<std::int64_t>()[0] == -1);
  CHECK(ng.nodes[1].inputs == std::vector<std::string>{"t", out0(ng.nodes[0])});
  CHECK(ng.nodes[4].inputs == std::vector<std::string>{out0(ng.nodes[1]), out0(ng.nodes[3]), "t"});
  CHECK(ng.nodes[6].inputs == std::vector<std::string>{"x", out0(ng.nodes[5])});
  CHECK(ng.nodes[6].attribute_or("axis", std::int64_t{0}) == 1);
  CHECK(ng.nodes[8].inputs == std::vector<std::string>{"w", out0(ng.nodes[4])});  // weights of the safe target
  CHECK(ng.nodes[10].inputs[0] == out0(ng.nodes[2]));                             // 0 where ignored
  CHECK(ng.nodes[16].inputs == std::vector<std::string>{out0(ng.nodes[10])});     // the sum of the applied weights
  CHECK(ng.nodes[17].inputs == std::vector<std::string>{out0(ng.nodes[15]), out0(ng.nodes[16])});
  CHECK(ng.nodes[17].outputs == std::vector<std::string>{"y"});
  CHECK(check(nll).ok());
  // SoftmaxCrossEntropyLoss at 9: LogSoftmax with the classes last (writing log_prob), then a
  // OneHot mask picks the class; no weights and no ignore_index: a plain mean.
  auto sce = at(13, R"(g (float[2, 3, 4] x, int32[2, 4] t) => (float y, float[2, 3, 4] lp) {
    y, lp = SoftmaxCrossEntropyLoss (x, t) })");
  (void)downgrade_opset(sce, 9);
  REQUIRE(ops_of(sce.graph) == std::vector<std::string>{"Transpose", "LogSoftmax", "Transpose", "Shape", "Constant",
                                                        "Gather", "Cast", "Constant", "OneHot", "Cast", "Constant",
                                                        "Where", "ReduceSum", "Neg", "ReduceMean"});
  const auto& sg = sce.graph;
  CHECK(sg.nodes[0].find_attribute("perm")->as_ints() == std::vector<std::int64_t>{0, 2, 1});
  CHECK(sg.nodes[1].attribute_or("axis", std::int64_t{0}) == 2);
  CHECK(sg.nodes[2].outputs == std::vector<std::string>{"lp"});
  CHECK(sg.nodes[6].inputs == std::vector<std::string>{"t"});  // OneHot's indices as int64
  CHECK(sg.nodes[8].inputs[0] == out0(sg.nodes[6]));
  CHECK(sg.nodes[11].inputs[1] == "lp");
  CHECK(sg.nodes[12].find_attribute("axes")->as_ints() == std::vector<std::int64_t>{1});
  CHECK(sg.nodes[14].outputs == std::vector<std::string>{"y"});
  CHECK(sg.nodes[14].attribute_or("keepdims", std::int64_t{1}) == 0);
  CHECK(check(sce).ok());
  check_refused(at(13, R"(g (float[2, 3] x, int64[2] t) => (float y) { y = NegativeLogLikelihoodLoss (x, t) })"), 8,
                "needs Where and OneHot, which came with opset 9");
  check_refused(at(13, R"(g (float[2, 3] x, int32[2] t) => (float y) {
    y = NegativeLogLikelihoodLoss <ignore_index = 3000000000> (x, t) })"), 11, "outside the range of its int32 target");

  // IsInf before 10: beyond the largest finite value of the type.
  auto isinf = at(10, R"(g (double[4] x) => (bool[4] y) { y = IsInf (x) })");
  (void)downgrade_opset(isinf, 9);
  REQUIRE(ops_of(isinf.graph) == std::vector<std::string>{"Constant", "Constant", "Greater", "Less", "Or"});
  CHECK(isinf.graph.nodes[0].find_attribute("value")->as_tensor().values<double>()[0] == std::numeric_limits<double>::max());
  CHECK(isinf.graph.nodes[1].find_attribute("value")->as_tensor().values<double>()[0] == -std::numeric_limits<double>::max());
  CHECK(isinf.graph.nodes[2].inputs == std::vector<std::string>{"x", out0(isinf.graph.nodes[0])});
  CHECK(check(isinf).ok());
  auto isinf_neg = at(10, R"(g (float[4] x) => (bool[4] y) { y = IsInf <detect_positive = 0> (x) })");
  (void)downgrade_opset(isinf_neg, 7);
  REQUIRE(ops_of(isinf_neg.graph) == std::vector<std::string>{"Constant", "Less"});
  CHECK(isinf_neg.graph.nodes[0].find_attribute("value")->as_tensor().values<float>()[0] == -std::numeric_limits<float>::max());
  // Round before 11: Where(above 1/2, or at 1/2 with an odd floor; Ceil, Floor), from opset 9.
  auto round = at(11, R"(g (float16[4] x) => (float16[4] y) { y = Round (x) })");
  (void)downgrade_opset(round, 9);
  REQUIRE(ops_of(round.graph) == std::vector<std::string>{"Constant", "Floor", "Ceil", "Sub", "Greater", "Less", "Or",
                                                          "Not", "Mul", "Floor", "Add", "Sub", "Greater", "And", "Or",
                                                          "Where"});
  const auto& rdg = round.graph;
  CHECK(rdg.nodes[0].find_attribute("value")->as_tensor().data_type == DataType::FLOAT16);
  CHECK(rdg.nodes[3].inputs == std::vector<std::string>{"x", out0(rdg.nodes[1])});  // the fraction
  CHECK(rdg.nodes[7].inputs == std::vector<std::string>{out0(rdg.nodes[6])});       // at 1/2: neither above nor below
  CHECK(rdg.nodes[11].inputs == std::vector<std::string>{out0(rdg.nodes[1]), out0(rdg.nodes[10])});  // the floor's parity
  CHECK(rdg.nodes[14].inputs == std::vector<std::string>{out0(rdg.nodes[4]), out0(rdg.nodes[13])});
  CHECK(rdg.nodes[15].inputs == std::vector<std::string>{out0(rdg.nodes[14]), out0(rdg.nodes[2]), out0(rdg.nodes[1])});
  CHECK(rdg.nodes[15].outputs == std::vector<std::string>{"y"});
  CHECK(check(round).ok());
  check_refused(at(11, R"(g (float[4] x) => (float[4] y) { y = Round (x) })"), 8, "needs Where, which came with opset 9");
  check_refused(at(22, R"(g (bfloat16[4] x) => (bfloat16[4] y) { y = Round (x) })"), 10,
                "Round of BFLOAT16 has no spelling before opset 11");
  // BitShift before 11: Mul or Div by Pow(2, y), through int64 for the narrower types.
  auto shl = at(11, R"(g (uint8[4] x, uint8[4] s) => (uint8[4] y) { y = BitShift <direction = "LEFT"> (x, s) })");
  (void)downgrade_opset(shl, 9);
  REQUIRE(ops_of(shl.graph) == std::vector<std::string>{"Cast", "Constant", "Pow", "Cast", "Cast", "Mul", "Cast"});
  const auto& shg = shl.graph;
  CHECK(shg.nodes[0].inputs == std::vector<std::string>{"s"});
  CHECK(shg.nodes[0].attribute_or("to", std::int64_t{0}) == static_cast<std::int64_t>(DataType::DOUBLE));
  CHECK(shg.nodes[1].find_attribute("value")->as_tensor().values<double>()[0] == 2.0);
  CHECK(shg.nodes[2].inputs == std::vector<std::string>{out0(shg.nodes[1]), out0(shg.nodes[0])});
  CHECK(shg.nodes[3].attribute_or("to", std::int64_t{0}) == static_cast<std::int64_t>(DataType::INT64));
  CHECK(shg.nodes[4].inputs == std::vector<std::string>{"x"});
  CHECK(shg.nodes[5].inputs == std::vector<std::string>{out0(shg.nodes[4]), out0(shg.nodes[3])});
  CHECK(shg.nodes[5].attributes.empty());
  CHECK(shg.nodes[6].outputs == std::vector<std::string>{"y"});
  CHECK(shg.nodes[6].attribute_or("to", std::int64_t{0}) == static_cast<std::int64_t>(DataType::UINT8));
  CHECK(check(shl).ok());
  auto shr = at(11, R"(g (uint64[4] x, uint64[1] s) => (uint64[4] y) { y = BitShift <direction = "RIGHT"> (x, s) })");
  (void)downgrade_opset(shr, 7);
  REQUIRE(ops_of(shr.graph) == std::vector<std::string>{"Cast", "Constant", "Pow", "Cast", "Div"});
  CHECK(shr.graph.nodes[3].attribute_or("to", std::int64_t{0}) == static_cast<std::int64_t>(DataType::UINT64));
  CHECK(shr.graph.nodes[4].inputs == std::vector<std::string>{"x", out0(shr.graph.nodes[3])});
  CHECK(shr.graph.nodes[4].outputs == std::vector<std::string>{"y"});
  CHECK(check(shr).ok());
  check_refused(at(11, R"(g (uint8[4] x, uint8[4] s) => (uint8[4] y) { y = BitShift <direction = "UP"> (x, s) })"), 9,
                "direction 'UP' is neither LEFT nor RIGHT");
  // Mod of integers before 10: a - Div(a, b) * b, moved by b where its sign is not the divisor's
  // (the dividend's with fmod = 1); int16 through int32 and back.
  auto mod = at(13, R"(g (int16[4] a, int16[4] b) => (int16[4] y) { y = Mod <fmod = 1> (a, b) })");
  (void)downgrade_opset(mod, 9);
  REQUIRE(ops_of(mod.graph) == std::vector<std::string>{"Cast", "Cast", "Div", "Mul", "Sub", "Constant", "Equal", "Not",
                                                        "Less", "Less", "Xor", "And", "Sub", "Where", "Cast"});
  const auto& modg = mod.graph;
  CHECK(modg.nodes[0].attribute_or("to", std::int64_t{0}) == static_cast<std::int64_t>(DataType::INT32));
  CHECK(modg.nodes[9].inputs[0] == out0(modg.nodes[0]));  // the dividend's sign
  CHECK(modg.nodes[13].inputs == std::vector<std::string>{out0(modg.nodes[11]), out0(modg.nodes[12]), out0(modg.nodes[4])});
  CHECK(modg.nodes[14].outputs == std::vector<std::string>{"y"});
  CHECK(modg.nodes[14].attribute_or("to", std::int64_t{0}) == static_cast<std::int64_t>(DataType::INT16));
  CHECK(check(mod).ok());
  auto umod = at(13, R"(g (uint64[4] a, uint64[4] b) => (uint64[4] y) { y = Mod (a, b) })");
  (void)downgrade_opset(umod, 9);
  CHECK(ops_of(umod.graph) == std::vector<std::string>{"Div", "Mul", "Sub"});
  check_refused(at(13, R"(g (float[4] a, float[4] b) => (float[4] y) { y = Mod <fmod = 1> (a, b) })"), 9,
                "Mod of FLOAT has no spelling before opset 10");
  check_refused(at(13, R"(g (int32[4] a, int32[4] b) => (int32[4] y) { y = Mod (a, b) })"), 8,
                "needs Where and integer comparisons, which came with opset 9");

  // GatherElements before 11: a OneHot mask of the indices (negative ones wrapped) picks from data.
  auto gel = at(13, R"(g (float[2, 5, 3] x, int32[2, 4, 3] i) => (float[2, 4, 3] y) { y = GatherElements <axis = -2> (x, i) })");
  (void)downgrade_opset(gel, 9);
  REQUIRE(ops_of(gel.graph) == std::vector<std::string>{"Shape", "Constant", "Gather", "Cast", "Constant", "Less", "Add",
                                                       "Where", "Cast", "Constant", "OneHot", "Cast", "Unsqueeze",
                                                       "Constant", "Where", "ReduceSum"});
  const auto& elg = gel.graph;
  CHECK(elg.nodes[1].find_attribute("value")->as_tensor().values<std::int64_t>()[0] == 1);  // the axis counted from the front
  CHECK(elg.nodes[7].inputs == std::vector<std::string>{out0(elg.nodes[5]), out0(elg.nodes[6]), "i"});
  CHECK(elg.nodes[10].inputs == std::vector<std::string>{out0(elg.nodes[8]), out0(elg.nodes[2]), out0(elg.nodes[9])});
  CHECK(elg.nodes[10].attribute_or("axis", std::int64_t{0}) == 2);
  CHECK(elg.nodes[12].find_attribute("axes")->as_ints() == std::vector<std::int64_t>{1});
  CHECK(elg.nodes[15].find_attribute("axes")->as_ints() == std::vector<std::int64_t>{2});
  CHECK(elg.nodes[15].outputs == std::vector<std::string>{"y"});
  CHECK(check(gel).ok());
  check_refused(at(13, R"(g (float[2, 5, 3] x, int64[2, 4, 2] i) => (float[2, 4, 2] y) { y = GatherElements <axis = 1> (x, i) })"),
                9, "needs the indices' size on axis 2 known to be data's");
  // ConstantOfShape before 9: Expand of a scalar Constant from 8; at 7 a Tile of a [1, 1] one.
  auto cos = at(9, R"(g (int64[2] s) => (int64[?, ?] y) { y = ConstantOfShape <value = int64[1] {4}> (s) })");
  auto cos8 = cos;
  (void)downgrade_opset(cos8, 8);
  REQUIRE(ops_of(cos8.graph) == std::vector<std::string>{"Constant", "Cast", "Expand"});
  CHECK(cos8.graph.nodes[0].find_attribute("value")->as_tensor().dims.empty());
  CHECK(cos8.graph.nodes[2].inputs == std::vector<std::string>{out0(cos8.graph.nodes[1]), "s"});
  (void)downgrade_opset(cos, 7);
  REQUIRE(ops_of(cos.graph) == std::vector<std::string>{"Constant", "Cast", "Tile"});
  CHECK(cos.graph.nodes[0].find_attribute("value")->as_tensor().dims == std::vector<std::int64_t>{1, 1});
  CHECK(cos.graph.nodes[0].find_attribute("value")->as_tensor().values<double>()[0] == 4.0);
  CHECK(cos.graph.nodes[2].inputs == std::vector<std::string>{out0(cos.graph.nodes[1]), "s"});
  CHECK(check(cos).ok());
  check_refused(at(9, R"(g (int64[?] s) => (float[?] y) { y = ConstantOfShape (s) })"), 7, "the length of its shape 's' is not known");
  check_refused(at(9, R"(g (int64[1000000000000] s) => (float[?] y) { y = ConstantOfShape (s) })"), 7,
                "declared with 1000000000000 elements");

  // Range before 11: a Loop of ceil((limit - start) / delta) iterations (in double) adding delta.
  auto range = at(11, R"(g (int32 s, int32 l, int32 d) => (int32[?] y) { y = Range (s, l, d) })");
  (void)downgrade_opset(range, 9);
  REQUIRE(ops_of(range.graph) == std::vector<std::string>{"Sub", "Cast", "Cast", "Div", "Ceil", "Cast", "Loop"});
  const auto& rg = range.graph;
  CHECK(rg.nodes[0].inputs == std::vector<std::string>{"l", "s"});
  CHECK(rg.nodes[2].inputs == std::vector<std::string>{"d"});
  CHECK(rg.nodes[5].attribute_or("to", std::int64_t{0}) == static_cast<std::int64_t>(DataType::INT64));
  const Node& loop = rg.nodes[6];
  CHECK(loop.inputs == std::vector<std::string>{out0(rg.nodes[5]), "", "s"});
  REQUIRE(loop.outputs.size() == 2);
  CHECK(loop.outputs[1] == "y");
  const Graph& lbody = loop.find_attribute("body")->as_graph();
  REQUIRE(ops_of(lbody) == std::vector<std::string>{"Identity", "Add", "Identity"});
  REQUIRE(lbody.inputs.size() == 3);
  CHECK(lbody.nodes[1].inputs == std::vector<std::string>{lbody.inputs[2].name, "d"});
  CHECK(lbody.nodes[2].inputs == std::vector<std::string>{lbody.inputs[2].name});
  REQUIRE(lbody.outputs.size() == 3);
  CHECK(lbody.outputs[1].name == lbody.nodes[1].outputs[0]);
  CHECK(lbody.outputs[2].type->elem_type() == DataType::INT32);
  CHECK(check(range).ok());
  check_refused(at(11, R"(g (int16 s, int16 l, int16 d) => (int16[?] y) { y = Range (s, l, d) })"), 9,
                "Range of INT16 has no spelling before opset 11");

  // CumSum before 11: a Scan-9 along the constant axis from zeros of a slice's shape.
  auto cs = at(11, R"(g (float[2, N, 4] x) => (float[2, N, 4] y) { ax = Constant <value = int64 {-2}> ()
    y = CumSum <exclusive = 1, reverse = 1> (x, ax) })");
  (void)downgrade_opset(cs, 9);
  REQUIRE(ops_of(cs.graph) == std::vector<std::string>{"Constant", "Shape", "Constant", "Gather", "ConstantOfShape", "Scan"});
  const auto& csg = cs.graph;
  CHECK(ints_of(csg.nodes[2]) == std::vector<std::int64_t>{0, 2});  // the axes other than 1
  CHECK(csg.nodes[4].find_attribute("value")->as_tensor().data_type == DataType::FLOAT);
  const Node& scan = csg.nodes[5];
  CHECK(scan.inputs == std::vector<std::string>{csg.nodes[4].outputs[0], "x"});
  REQUIRE(scan.outputs.size() == 2);
  CHECK(scan.outputs[1] == "y");
  CHECK(scan.find_attribute("scan_input_axes")->as_ints() == std::vector<std::int64_t>{1});
  CHECK(scan.find_attribute("scan_output_axes")->as_ints() == std::vector<std::int64_t>{1});
  CHECK(scan.find_attribute("scan_input_directions")->as_ints() == std::vector<std::int64_t>{1});
  CHECK(scan.find_attribute("scan_output_directions")->as_ints() == std::vector<std::int64_t>{1});
  const Graph& sbody = scan.find_attribute("body")->as_graph();
  REQUIRE(ops_of(sbody) == std::vector<std::string>{"Add", "Identity"});
  CHECK(sbody.nodes[1].inputs == std::vector<std::string>{sbody.inputs[0].name});  // exclusive: the sum before
  CHECK(check(cs).ok());
  CHECK_NOTHROW((void)infer_shapes(cs, strict));
  CHECK(cs.graph.outputs[0].type->shape()->rank() == 3);
  check_refused(at(11, R"(g (float[2, 3] x, int64 ax) => (float[2, 3] y) { y = CumSum (x, ax) })"), 9,
                "its axis 'ax' is not a constant");

  // The windows before 17, as defined: a0 - a1 cos(2 pi k / N) + a2 cos(4 pi k / N) in float.
  auto bw = at(17, R"(g (int32 n) => (double[?] w) { w = BlackmanWindow <output_datatype = 11, periodic = 0> (n) })");
  (void)downgrade_opset(bw, 13);
  REQUIRE(ops_of(bw.graph) == std::vector<std::string>{"Cast", "Constant", "Constant", "Range", "Sub", "Constant", "Div",
                                                       "Mul", "Constant", "Cos", "Constant", "Mul", "Sub", "Add", "Cos",
                                                       "Constant", "Mul", "Add", "Cast"});
  const auto& bwg = bw.graph;
  auto fvalue = [&](std::size_t i) { return bwg.nodes[i].find_attribute("value")->as_tensor().values<float>()[0]; };
  CHECK(bwg.nodes[3].inputs == std::vector<std::string>{bwg.nodes[1].outputs[0], bwg.nodes[0].outputs[0], bwg.nodes[2].outputs[0]});
  CHECK(bwg.nodes[4].inputs == std::vector<std::string>{bwg.nodes[0].outputs[0], bwg.nodes[2].outputs[0]});  // N = size - 1
  CHECK(fvalue(5) == static_cast<float>(2 * 3.14159265358979323846));
  CHECK(fvalue(8) == 0.42f);
  CHECK(fvalue(10) == 0.5f);
  CHECK(fvalue(15) == 0.08f);
  CHECK(bwg.nodes[18].attribute_or("to", std::int64_t{0}) == static_cast<std::int64_t>(DataType::DOUBLE));
  CHECK(bwg.nodes[18].outputs == std::vector<std::string>{"w"});
  CHECK(check(bw).ok());
  auto hw = at(17, R"(g (int64 n) => (float[?] w) { w = HammingWindow (n) })");
  (void)downgrade_opset(hw, 9);  // Range's Loop; periodic: N = size
  REQUIRE(ops_of(hw.graph) == std::vector<std::string>{"Cast", "Constant", "Constant", "Cast", "Loop", "Constant", "Div",
                                                       "Mul", "Constant", "Cos", "Constant", "Mul", "Sub", "Cast"});
  CHECK(hw.graph.nodes[6].inputs[1] == hw.graph.nodes[0].outputs[0]);
  CHECK(hw.graph.nodes[8].find_attribute("value")->as_tensor().values<float>()[0] == static_cast<float>(25.0 / 46.0));
  CHECK(check(hw).ok());

  // A Constant of integers or bools before 9 (Constant holds floats only then): a double one, cast.
  auto ci = at(13, R"(g (float[2, 3] x) => (float[6] y) { c = Constant <value = int64[1] {6}> ()
    y = Reshape (x, c) })");
  (void)downgrade_opset(ci, 7);
  REQUIRE(ops_of(ci.graph) == std::vector<std::string>{"Constant", "Cast", "Reshape"});
  const auto& cd = ci.graph.nodes[0].find_attribute("value")->as_tensor();
  CHECK(cd.data_type == DataType::DOUBLE);
  CHECK(cd.dims == std::vector<std::int64_t>{1});
  CHECK(cd.values<double>()[0] == 6.0);
  CHECK(ci.graph.nodes[1].outputs == std::vector<std::string>{"c"});
  CHECK(ci.graph.nodes[1].attribute_or("to", std::int64_t{0}) == static_cast<std::int64_t>(DataType::INT64));
  CHECK(check(ci).ok());
  check_refused(at(13, R"(g (float[2, 3] x) => (float[6] y) { c = Constant <value = int64[1] {9007199254740993}> ()
    y = Reshape (x, c) })"), 7, "INT64 value has integers beyond 2^53");
  check_refused(at(13, R"(g () => (string[1] y) { y = Constant <value = string[1] {"a"}> () })"), 7,
                "STRING value is not one a Cast from those makes there");

  // What the spelling needs must be known: X's rank, the element types of the constants.
  auto unranked = at(17, R"(g (float[2, 5] x, float[5] s) => (float[2, 5] y) { y = LayerNormalization (x, s) })");
  unranked.graph.inputs[0].type = Type::tensor(DataType::FLOAT);
  unranked.graph.outputs[0].type = Type::tensor(DataType::FLOAT);
  check_refused(unranked, 13, "the rank of 'x' is not known");
  auto fn = parse_text_model(R"(<ir_version: 8, opset_import: ["" : 15, "local" : 1]>
    g (float[2] x, double[1] d) => (double[2] y) { y = local.F (x, d) }
    <domain: "local", opset_import: ["" : 15]> F (a, b) => (c) { c = CastLike (a, b) })");
  check_refused(fn, 13, "the element type of 'b' is not known");
}

TEST_CASE("required_ir_version, and downgrade_opset lowering the IR version to the target's") {
  auto m = at(13, R"(g (float[2] x) => (float[2] y) { y = Relu (x) })");
  CHECK(required_ir_version(m) == 3);
  m.ir_version = 7;
  auto down = m;
  (void)downgrade_opset(down, 11);
  CHECK(down.ir_version == 6);  // opset 11 came with IR 6
  down = m;
  (void)downgrade_opset(down, 7);
  CHECK(down.ir_version == 3);
  CHECK(check(down).ok());

  // Each feature raises what the model needs.
  auto with = [&](auto&& change) {
    Model x = m;
    change(x);
    return required_ir_version(x);
  };
  CHECK(with([](Model& x) { x.graph.initializers.push_back(Tensor::from_values<float>("w", {1}, {1.f})); }) == 4);
  CHECK(with([](Model& x) {  // an initializer that is also a graph input is fine at 3
          x.graph.initializers.push_back(Tensor::from_values<float>("x", {2}, {1.f, 2.f}));
        }) == 3);
  CHECK(with([](Model& x) { x.graph.inputs[0].type = Type::tensor(DataType::BFLOAT16, Shape{}); }) == 4);
  CHECK(with([](Model& x) { x.graph.quantization_annotation.emplace_back(); }) == 5);
  CHECK(with([](Model& x) { x.graph.sparse_initializers.emplace_back(); }) == 6);
  CHECK(with([](Model& x) { x.training_info.emplace_back(); }) == 7);
  CHECK(with([](Model& x) { x.functions.emplace_back(); }) == 8);
  CHECK(with([](Model& x) { x.graph.value_info.emplace_back("o", Type(OptionalType{})); }) == 8);
  CHECK(with([](Model& x) { x.graph.inputs[0].type = Type::tensor(DataType::FLOAT8E4M3FN, Shape{}); }) == 9);
  CHECK(with([](Model& x) {
          StringStringEntry e;
          e.key = "k";
          x.graph.nodes[0].metadata_props.push_back(e);
        }) == 10);
  CHECK(with([](Model& x) { x.graph.nodes[0].overload = "o"; }) == 10);
  CHECK(with([](Model& x) { x.graph.outputs[0].type = Type::tensor(DataType::FLOAT4E2M1, Shape{}); }) == 11);
  CHECK(with([](Model& x) { x.graph.outputs[0].type = Type::tensor(DataType::FLOAT8E8M0, Shape{}); }) == 12);
  CHECK(with([](Model& x) { x.graph.outputs[0].type = Type::tensor(DataType::INT2, Shape{}); }) == 13);
  // Inside a subgraph too.
  auto nested = at(13, R"(g (bool c) => (float[1] y) {
  y = If (c) <then_branch = t () => (float[1] a) { a = Constant <value = bfloat16[1] {1.0}> () },
              else_branch = e () => (float[1] b) { b = Constant <value = float[1] {2.0}> () }>
})");
  CHECK(required_ir_version(nested) == 4);
  // A field from a newer schema: the model's own version stands.
  auto newer = m;
  newer.graph.nodes[0].unknown_fields = std::string("\xa0\x06\x01", 3);  // field 100, varint 1
  CHECK(required_ir_version(newer) == 7);
  down = newer;
  (void)downgrade_opset(down, 11);
  CHECK(down.ir_version == 7);
  // The IR version never goes up.
  auto old = m;
  old.ir_version = 5;
  (void)downgrade_opset(old, 11);
  CHECK(old.ir_version == 5);
}

TEST_CASE("downgrade_opset refuses an operator its model's opset does not have, and a node with more inputs or outputs than its operator") {
  // (Found by fuzz_model_structured: a SoftmaxCrossEntropyLoss at opset 13 turned into a Swish with
  // its two inputs, two outputs and attributes; spelled as x * sigmoid(x) at 11, it lost the
  // second output, a graph output, and the model became invalid.)
  const auto check_refused = [](Model m, std::int64_t target, const char* what) {
    check_refusal([](Model& x, std::int64_t t) { return downgrade_opset(x, t); }, std::move(m), target, what);
  };
  check_refused(at(13, R"(g (float[3, 5] x, int64[3] y) => (float z, float[3, 5] p) {
      z, p = Swish <ignore_index = 2, reduction = "mean"> (x, y) })"),
                11, "'Swish' does not exist at opset 13 (it came with opset 24)");
  check_refused(at(14, R"(g (float[3] x) => (float[3] y) { y = Swish (x) })"), 11, "'Swish' does not exist at opset 14");
  // At an opset that has the operator, a node with more outputs or inputs than it defines.
  check_refused(at(24, R"(g (float[3] x) => (float[3] y, float[3] z) { y, z = Swish (x) })"), 13,
                "'Swish' with 2 outputs: Swish-24 has at most 1");
  check_refused(at(24, R"(g (float[3] x, float[3] w) => (float[3] y) { y = Swish (x, w) })"), 13,
                "'Swish' with 2 inputs: Swish-24 has at most 1");
  check_refused(at(18, R"(g (float[2, 4] x, float[4] s, float[4] b, float[4] e) => (float[2, 4] y) {
      y = LayerNormalization (x, s, b, e) })"),
                16, "'LayerNormalization' with 4 inputs: LayerNormalization-17 has at most 3");
  // Any operator the signature table knows: more inputs or outputs than its version has is
  // refused, upgrading or downgrading (trailing omitted ones aside).
  check_refused(at(10, R"(g (float[3] x) => (float[3] y, float[3] z) { y, z = ThresholdedRelu (x) })"), 9,
                "'ThresholdedRelu' with 2 outputs: ThresholdedRelu-10 has at most 1");
  check_refusal([](Model& x, std::int64_t t) { return upgrade_opset(x, t); },
                at(13, R"(g (float[3] x, float[3] w) => (float[3] y) { y = Relu (x, w) })"), 14,
                "'Relu' with 2 inputs: Relu-13 has at most 1");
  auto omitted = at(13, R"(g (float[3] x) => (float[3] y) { y, = Relu (x, ) })");
  CHECK_NOTHROW((void)upgrade_opset(omitted, 14));
  // The operators' own extra outputs are still spelled: LayerNormalization's mean and inverse
  // standard deviation, SoftmaxCrossEntropyLoss' log probabilities.
  auto ln = at(18, R"(g (float[2, 4] x, float[4] s, float[4] b) => (float[2, 4] y, float[2, 1] m, float[2, 1] r) {
      y, m, r = LayerNormalization (x, s, b) })");
  (void)downgrade_opset(ln, 16);
  CHECK(check(ln).ok());
  auto sce = at(13, R"(g (float[3, 5] x, int64[3] t) => (float z, float[3, 5] p) { z, p = SoftmaxCrossEntropyLoss (x, t) })");
  (void)downgrade_opset(sce, 11);
  CHECK(check(sce).ok());
}

TEST_CASE("downgrade_opset: an input that must become an attribute but is missing is an error, not a crash") {
  // (Found by fuzz_model_structured: TopK-11 without k, downgraded below 10.)
  auto m = at(11, R"(g (float[2, 5] x) => (float[2, 3] v, int64[2, 3] i) { v, i = TopK <axis = 1> (x) })");
  const Model before = m;
  CHECK_THROWS_WITH_AS((void)downgrade_opset(m, 9), doctest::Contains("TopK: input 1 is missing, and at opset 9 its value is the attribute 'k'"), Error);
  CHECK(m == before);
}

TEST_CASE("version conversion reads constants and types in the scope of the node it converts") {
  // Two If branches each define a constant named `ax`, with different values: each branch's
  // Unsqueeze takes its own.
  auto m = at(13, R"(g (float[2] x, bool c) => (float[?, ?] y) {
  y = If (c) < then_branch = t () => (float[1, 2] a) { ax = Constant <value = int64[1] {0}> ()
                                                          a = Unsqueeze (x, ax) },
               else_branch = e () => (float[2, 1] b) { ax = Constant <value = int64[1] {1}> ()
                                                          b = Unsqueeze (x, ax) } >
})");
  (void)downgrade_opset(m, 11);
  const auto& n = m.graph.nodes[0];
  const Graph& t = n.find_attribute("then_branch")->as_graph();
  const Graph& e = n.find_attribute("else_branch")->as_graph();
  REQUIRE(ops_of(t) == std::vector<std::string>{"Constant", "Unsqueeze"});
  REQUIRE(ops_of(e) == std::vector<std::string>{"Constant", "Unsqueeze"});
  CHECK(t.nodes[1].find_attribute("axes")->as_ints() == std::vector<std::int64_t>{0});
  CHECK(e.nodes[1].find_attribute("axes")->as_ints() == std::vector<std::int64_t>{1});

  // A function body's `x` is not the main graph's `x`: its rank depends on the call, so a
  // softmax along axis 1 in the body is refused rather than taken as the last axis of the
  // main graph's rank-2 `x`.
  auto f = parse_text_model(R"(<ir_version: 8, opset_import: ["" : 13, "local" : 1]>
g (float[2, 3] x, float[2, 3, 4] z) => (float[2, 3] y, float[2, 3, 4] w) {
  y = Softmax <axis = 1> (x)
  w = local.Sm (z)
}
<domain: "local", opset_import: ["" : 13]>
Sm (x) => (y) { y = Softmax <axis = 1> (x) }
)");
  const Model before = f;
  CHECK_THROWS_WITH_AS((void)downgrade_opset(f, 11), doctest::Contains("the rank of 'x' is not known"), Error);
  CHECK(f == before);
  // A constant of the main graph is not visible in a function body either.
  auto g = parse_text_model(R"(<ir_version: 8, opset_import: ["" : 13, "local" : 1]>
g (float[2, 3] x) => (float[2] y, float[3] w) {
  ax = Constant <value = int64[1] {1}> ()
  y = Squeeze (x, ax)
  w = local.Sq (x)
}
<domain: "local", opset_import: ["" : 13]>
Sq (x) => (y) { y = Squeeze (x, ax) }
)");
  CHECK_THROWS_WITH_AS((void)downgrade_opset(g, 11), doctest::Contains("functions[0].node[0]: Squeeze: input 'ax' is not a constant"), Error);
}

TEST_CASE("downgrade_opset names a type the older version does not allow where the model has the node") {
  // The converted graph has more nodes (HardSwish's spelling adds one before the IsInf, whose
  // spelling adds comparisons of bfloat16, which Greater-9 does not take): the error names the
  // IsInf's own place, node 1, and says the comparison is one its older spelling adds.
  auto m = at(20, R"(g (float[4] a, bfloat16[4] b) => (float[4] y, bool[4] z) {
    y = HardSwish (a)
    z = IsInf (b)
  })");
  const Model before = m;
  try {
    (void)downgrade_opset(m, 9);
    FAIL("downgrade_opset converted bfloat16 comparisons to opset 9");
  } catch (const Error& e) {
    CHECK(e.path() == "graph.node[1]");
    CHECK(std::string(e.message()).find("at opset 9, the ") == 0);
    CHECK(std::string(e.message()).find(" its older spelling adds: ") != std::string::npos);
  }
  CHECK(m == before);
  // A node of the model itself keeps its name and its own place, inside a subgraph too.
  auto sub = at(13, R"(g (bool c, float[4] a, bfloat16[4] b) => (float[4] y) {
    y = If (c) <then_branch = t () => (float[4] ty) { h = HardSigmoid (a)  m = Mul (a, h)  ty = Identity (m) },
                else_branch = e () => (float[4] ey) { p = Pow (a, a)  q = Cast <to = 1> (b)  ey = Add (p, q) }>
  })");
  sub.graph.nodes[0].attributes[1].as_graph().nodes[1].name = "to_float";
  try {
    (void)downgrade_opset(sub, 7);
    FAIL("downgrade_opset converted a bfloat16 Cast to opset 7");
  } catch (const Error& e) {
    CHECK(e.path() == "graph.node[0].attribute[1].g.node[1]");
    CHECK(std::string(e.message()).find("at opset 7, Cast 'to_float': input 0 is tensor(bfloat16)") == 0);
  }
}

}  // namespace oxir_unit_test_version
