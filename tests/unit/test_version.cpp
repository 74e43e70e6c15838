// upgrade_opset (rewrite/version.hpp): what each adapter writes, subgraphs and function bodies,
// fresh names, the IR version raised with the opset, and every refusal leaving the model as it
// was. What the rewritten models compute is checked by ONNX Runtime in ctest upgrade_differential.
#include <doctest/doctest.h>

#include <oxir/analysis/check.hpp>
#include <oxir/io/text.hpp>
#include <oxir/rewrite/version.hpp>

#include "graph_util.hpp"

#include <cstdint>
#include <set>
#include <string>
#include <vector>

using namespace oxir;
using graph_util::ops_of;

namespace {
Model at(std::int64_t opset, const std::string& body) {
  return parse_text_model("<ir_version: 4, opset_import: [\"\" : " + std::to_string(opset) + "]>\n" + body);
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

TEST_CASE("upgrade_opset refuses what it cannot convert, leaving the model as it was") {
  const auto check_refused = [](Model m, std::int64_t target, const char* what) {
    const Model before = m;
    CHECK_THROWS_WITH_AS((void)upgrade_opset(m, target), doctest::Contains(what), Error);
    CHECK(m == before);
  };
  const auto plain = at(9, R"(g (float[2] x) => (float[2] y) { y = Relu (x) })");
  check_refused(plain, 8, "downgrading to 8 is not supported");
  check_refused(plain, 26, "beyond the newest");
  check_refused(at(6, R"(g (float[2] x) => (float[2] y) { y = Relu (x) })"), 13, "from opset 6 is not supported");
  check_refused(at(8, R"(g (float[2, 3] x) => (float[2, 3] y) { y = Scan <body = b () => () {}, num_scan_inputs = 1> (, x) })"),
                13, "Scan-8");
  check_refused(at(7, R"(g (float[1, 2, 2] x, float[2, 2] s, float[2, 2] b, float[2, 2] mu, float[2, 2] v) => (float[1, 2, 2] y) {
  y = BatchNormalization <spatial = 0> (x, s, b, mu, v)
})"),
                9, "spatial = 0");
  check_refused(at(18, R"(g (float[1, 4, 2] x, float[2] s, float[2] b) => (float[1, 4, 2] y) {
  y = GroupNormalization <num_groups = 2> (x, s, b)
})"),
                21, "per channel");
  check_refused(at(10, R"(g (float[1, 1, 4, 4] x, float[4] s) => (float[1, 1, ?, ?] y) { y = Resize (x, s) })"), 11,
                "scales are not a constant");
  check_refused(at(10, R"(g (x) => (y) { y = Clip <min = 0.0> (x) })"), 11, "element type of 'x' is not known");
  check_refused(at(9, R"(g (float[2] x) => (float[2] y) { y = Frobnicate (x) })"), 13, "not an operator of the default domain");
  check_refused(at(9, R"(g (float[2] x) => (float[2] y) { y = Gelu (x) })"), 21, "does not exist at opset 9");
  // The path names the node.
  auto nested = at(7, R"(g (float[2] x) => (float[2] y) { y = Relu (x)  z = BatchNormalization <spatial = 0> (x, x, x, x, x) })");
  CHECK_THROWS_WITH_AS((void)upgrade_opset(nested, 13), doctest::Contains("graph.node[1]"), Error);
}
