// replace_noop_nodes (rewrite/noop.hpp): the nodes that hand their input on unchanged become
// Identities, by what inference proves (not by value_info claims); everything that changes a
// value, or whose effect is not known, stays. (ONNX Runtime runs the real models before and
// after `oxir optimize`, which uses it: ctest passes_real_models.)
#include <doctest/doctest.h>

#include <oxir/analysis/check.hpp>
#include <oxir/infer.hpp>
#include <oxir/io/text.hpp>
#include <oxir/rewrite/edit.hpp>
#include <oxir/rewrite/noop.hpp>

#include <string>
#include <vector>

namespace oxir_unit_test_noop {

using namespace oxir;

namespace {
Model text(int opset, const std::string& body) {
  return parse_text_model("<ir_version: 8, opset_import: [\"\" : " + std::to_string(opset) + "]>\n" + body);
}
std::vector<std::string> ops_of(const Graph& g) {
  std::vector<std::string> r;
  for (const auto& n : g.nodes) r.push_back(n.op_type);
  return r;
}
}  // namespace

TEST_CASE("replace_noop_nodes: what hands its input on becomes an Identity of it") {
  Model m = text(17, R"(g (float[2,3] x, int64[4] i, float[N,3] d) => (float[2,3] y1, float[2,3] y2, float[6] y3, float[2,3] y4,
                                               float[2,3] y5, float[2,3] y6, float[2,3] y7, int64[4] y8, float[2,3] y9,
                                               float[N,3] y10) {
  y1 = Cast <to = 1> (x)
  s = Constant <value = int64[2] {2, 3}> ()
  y2 = Reshape (x, s)
  m1 = Constant <value = int64[1] {-1}> ()
  y3 = Reshape (x, m1)
  y4 = Expand (x, s)
  st = Constant <value = int64[2] {0, 0}> ()
  en = Constant <value = int64[2] {9, 9}> ()
  ax = Constant <value = int64[2] {0, 1}> ()
  one = Constant <value = int64[2] {1, 1}> ()
  y5 = Slice (x, st, en, ax, one)
  y6 = Transpose <perm = [0, 1]> (x)
  y7 = Concat <axis = 0> (x)
  y8 = CastLike (i, i)
  y9, mask = Dropout (x)
  sd = Constant <value = int64[2] {-1, 3}> ()
  y10 = Reshape (d, sd)
})");
  REQUIRE(check(m).ok());
  REQUIRE(infer_shapes(m).type_errors == 0);
  const Model before = m;
  // y1 Cast, y2 Reshape, y4 Expand, y5 Slice, y6 Transpose, y7 Concat, y8 CastLike, y9 Dropout (its
  // mask unread); y3 flattens, and y10 is a symbolic shape (not static).
  CHECK(replace_noop_nodes(m) == 8);
  for (const auto& n : m.graph.nodes) {
    if (n.op_type != "Identity") continue;
    REQUIRE(n.inputs.size() == 1);
    REQUIRE(n.outputs.size() == 1);
    CHECK((n.inputs[0] == "x" || n.inputs[0] == "i"));
    CHECK(n.attributes.empty());
  }
  const Node* reshape3 = m.graph.find_producer("y3");
  REQUIRE(reshape3 != nullptr);
  CHECK(reshape3->op_type == "Reshape");
  CHECK(m.graph.find_producer("y10")->op_type == "Reshape");
  CHECK(m.graph.find_producer("y9")->outputs.size() == 1);  // the mask went
  CHECK(check(m).ok());
  CHECK(infer_shapes(m).type_errors == 0);
  CHECK(replace_noop_nodes(m) == 0);  // nothing more, and not the Identities again
  // ... and the Identity pass then takes them out, the graph outputs keeping their names.
  CHECK(remove_identity_nodes(m.graph) == 0);  // each reads a graph input: they stay, as outputs
  CHECK(m.graph.outputs.size() == before.graph.outputs.size());
}

TEST_CASE("replace_noop_nodes leaves what changes a value, or may") {
  SUBCASE("Cast to another type; Cast-1 (a string type)") {
    Model m = text(17, R"(g (float[2] x) => (double[2] y) { y = Cast <to = 11> (x) })");
    CHECK(replace_noop_nodes(m) == 0);
  }
  SUBCASE("a Slice that reverses (step -1) or steps over elements, keeping the shape or not") {
    Model m = text(17, R"(g (float[3] x) => (float[3] y, float[2] z, float[3] w) {
  st = Constant <value = int64[1] {-1}> ()
  en = Constant <value = int64[1] {-9}> ()
  ax = Constant <value = int64[1] {0}> ()
  back = Constant <value = int64[1] {-1}> ()
  y = Slice (x, st, en, ax, back)
  s0 = Constant <value = int64[1] {0}> ()
  e9 = Constant <value = int64[1] {9}> ()
  two = Constant <value = int64[1] {2}> ()
  z = Slice (x, s0, e9, ax, two)
  w = Slice (x, s0, e9, ax, step)
})");
    m.graph.inputs.emplace_back("step", Type::tensor(DataType::INT64, Shape({1})));
    REQUIRE(infer_shapes(m).type_errors == 0);
    CHECK(replace_noop_nodes(m) == 0);  // (w's steps are a graph input: not known)
  }
  SUBCASE("a Transpose that permutes; one without perm of rank 2") {
    Model m = text(17, R"(g (float[2,2] x) => (float[2,2] y, float[2,2] z) {
  y = Transpose <perm = [1, 0]> (x)
  z = Transpose (x)
})");
    CHECK(replace_noop_nodes(m) == 0);
  }
  SUBCASE("a Concat of two inputs; a Squeeze that drops a dim") {
    Model m = text(17, R"(g (float[2] x, float[1,2] q) => (float[4] y, float[2] z) {
  y = Concat <axis = 0> (x, x)
  a = Constant <value = int64[1] {0}> ()
  z = Squeeze (q, a)
})");
    CHECK(replace_noop_nodes(m) == 0);
  }
  SUBCASE("Dropout in training, of unknown mode, or with its mask read; Dropout-6 without is_test") {
    Model m = text(17, R"(g (float[2] x, bool t) => (float[2] y1, float[2] y2, float[2] y3, bool[2] k) {
  tr = Constant <value = bool {1}> ()
  r = Constant <value = float {0.5}> ()
  y1 = Dropout (x, r, tr)
  y2 = Dropout (x, r, t)
  y3, k = Dropout (x)
})");
    CHECK(replace_noop_nodes(m) == 0);
    Model old = text(6, R"(g (float[2] x) => (float[2] y, float[2] z) {
  y = Dropout (x)
  z = Dropout <is_test = 1> (x)
})");
    CHECK(replace_noop_nodes(old) == 1);
    CHECK(old.graph.nodes[0].op_type == "Dropout");
    CHECK(old.graph.nodes[1].op_type == "Identity");
  }
  SUBCASE("value_info and declared output shapes are claims: they decide nothing") {
    // The declared output says [2, 3]; inference says x's second dim is unknown.
    Model m = text(17, R"(g (float[2,M] x) => (float[2,3] y) {
  s = Constant <value = int64[2] {2, 3}> ()
  y = Reshape (x, s)
})");
    m.graph.value_info.emplace_back("x", Type::tensor(DataType::FLOAT, Shape({2, 3})));
    CHECK(replace_noop_nodes(m) == 0);
  }
  SUBCASE("a node inference rejects, and what reads its output") {
    Model m = text(17, R"(g (float[2] x) => (float[2] y) {
  a = Cast <to = 1> (x, x)
  y = Cast <to = 1> (a)
})");
    CHECK(replace_noop_nodes(m) == 0);
  }
  SUBCASE("a model without a default-domain import") {
    Model m = text(17, R"(g (float[2] x) => (float[2] y) { y = Cast <to = 1> (x) })");
    m.opset_imports.clear();
    m.set_opset_version("custom", 1);
    CHECK(replace_noop_nodes(m) == 0);
  }
}

TEST_CASE("replace_noop_nodes then remove_identity_nodes: a chain of no-ops goes, outputs keep their names") {
  Model m = text(17, R"(g (float[2,3] x) => (float[2,3] y) {
  a = Relu (x)
  b = Cast <to = 1> (a)
  s = Constant <value = int64[2] {2, 3}> ()
  c = Reshape (b, s)
  y = Transpose <perm = [0, 1]> (c)
})");
  CHECK(replace_noop_nodes(m) == 3);
  CHECK(remove_identity_nodes(m.graph) == 3);
  CHECK(ops_of(m.graph) == std::vector<std::string>{"Relu", "Constant"});
  CHECK(m.graph.nodes[0].outputs[0] == "y");
  CHECK(check(m).ok());
}

}  // namespace oxir_unit_test_noop
