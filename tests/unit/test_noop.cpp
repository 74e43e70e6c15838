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

TEST_CASE("replace_noop_nodes: arithmetic with a neutral constant, one-input reductions, Split, Pad, Tile") {
  SUBCASE("x op c where every element of c leaves x as it is, c broadcasting into x") {
    // Float: x*1 and 1*x, x/1, x+(-0), x-(+0); integer x+0, x*1; bool And true, Or false.
    Model m = text(17, R"(g (float[2,3] x, int64[N] i, bool[2] b) => (float[2,3] y1, float[2,3] y2, float[2,3] y3,
                                                              float[2,3] y4, float[2,3] y5, int64[N] y6, int64[N] y7,
                                                              bool[2] y8, bool[2] y9) {
  one = Constant <value = float[3] {1, 1, 1}> ()
  y1 = Mul (x, one)
  one2 = Constant <value = float[1,1] {1}> ()
  y2 = Mul (one2, x)
  y3 = Div (x, one)
  nz = Constant <value = float {-0.0}> ()
  y4 = Add (nz, x)
  pz = Constant <value = float {0}> ()
  y5 = Sub (x, pz)
  z = Constant <value = int64 {0}> ()
  y6 = Add (i, z)
  o = Constant <value = int64[1] {1}> ()
  y7 = Mul (o, i)
  t = Constant <value = bool {1}> ()
  y8 = And (b, t)
  f = Constant <value = bool[2] {0, 0}> ()
  y9 = Or (f, b)
})");
    REQUIRE(infer_shapes(m).type_errors == 0);
    CHECK(replace_noop_nodes(m) == 9);
    for (const auto* out : {"y1", "y2", "y3", "y4", "y5", "y6", "y7", "y8", "y9"}) {
      const Node* p = m.graph.find_producer(out);
      REQUIRE(p != nullptr);
      CHECK(p->op_type == "Identity");
    }
    CHECK(m.graph.find_producer("y2")->inputs[0] == "x");
    CHECK(m.graph.find_producer("y7")->inputs[0] == "i");
  }
  SUBCASE("near misses: +0 added, -0 subtracted, 1 divided by x, a c that enlarges x, a 2, Or true") {
    // x + (+0) turns x = -0 into +0, and x - (-0) likewise; ones of [2,2,3] make [2,2,3] of x.
    Model m = text(17, R"(g (float[2,3] x, int64[N] i, bool[2] b) => (float[2,3] y1, float[2,3] y2, float[2,3] y3,
                                                              float[2,2,3] y4, float[2,3] y5, bool[2] y6, int64[N] y7,
                                                              float[2,3] y8) {
  pz = Constant <value = float {0}> ()
  y1 = Add (x, pz)
  nz = Constant <value = float {-0.0}> ()
  y2 = Sub (x, nz)
  one = Constant <value = float {1}> ()
  y3 = Div (one, x)
  big = Constant <value = float[2,2,3] {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}> ()
  y4 = Mul (x, big)
  two = Constant <value = float[3] {1, 2, 1}> ()
  y5 = Mul (x, two)
  t = Constant <value = bool {1}> ()
  y6 = Or (b, t)
  three = Constant <value = int64[3] {0, 0, 0}> ()
  y7 = Add (i, three)
  y8 = Sub (pz, x)
})");
    REQUIRE(infer_shapes(m).type_errors == 0);
    // (y7: i's N is not known to be 3, and the output takes the constant's 3 when N is 1.)
    CHECK(replace_noop_nodes(m) == 0);
  }
  SUBCASE("Sum/Max/Min/Mean of one input; Split into one output; Pad by zeros; Tile by ones") {
    Model m = text(17, R"(g (float[2,N] x) => (float[2,N] y1, float[2,N] y2, float[2,N] y3, float[2,N] y4,
                                          float[2,N] y5, float[2,N] y6, float[2,N] y7) {
  y1 = Sum (x)
  y2 = Max (x)
  y3 = Mean (x)
  y4 = Split <axis = 1> (x)
  p = Constant <value = int64[4] {0, 0, 0, 0}> ()
  y5 = Pad <mode = "reflect"> (x, p)
  r = Constant <value = int64[2] {1, 1}> ()
  y6 = Tile (x, r)
  y7 = Min (x)
})");
    REQUIRE(infer_shapes(m).type_errors == 0);
    CHECK(replace_noop_nodes(m) == 7);
    CHECK(ops_of(m.graph) == std::vector<std::string>{"Identity", "Identity", "Identity", "Identity", "Constant",
                                                      "Identity", "Constant", "Identity", "Identity"});
    Model m18 = text(18, R"(g (float[2,N] x) => (float[2,N] y1, float[2,N] y2) {
  y1 = Split <num_outputs = 1> (x)
  p = Constant <value = int64[2] {0, 0}> ()
  a = Constant <value = int64[1] {1}> ()
  y2 = Pad (x, p, , a)
})");
    REQUIRE(infer_shapes(m18).type_errors == 0);
    CHECK(replace_noop_nodes(m18) == 2);
  }
  SUBCASE("near misses: two inputs, two outputs, a pad that is not zero, pads given for other dims, Tile by 2") {
    Model m = text(17, R"(g (float[2,N] x) => (float[2,N] y1, float[2,N] y2, float[1,N] y3, float[1,N] y4,
                                          float[2,N] y5, float[2,N] y6, float[2,N] y7) {
  y1 = Max (x, x)
  y2 = Sum (x, x)
  y3, y4 = Split <axis = 0> (x)
  p = Constant <value = int64[4] {0, 0, 0, 1}> ()
  y5 = Pad (x, p)
  q = Constant <value = int64[2] {0, 0}> ()
  y6 = Pad (x, q)
  r = Constant <value = int64[2] {1, 2}> ()
  y7 = Tile (x, r)
})");
    // (y6: two pads for a rank-2 input is an invalid model, not a no-op.)
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

TEST_CASE("replace_noop_nodes in subgraphs: If branches and Loop bodies, reading the enclosing graphs") {
  // The then branch reshapes the outer x to the shape it has and casts it to its own type; the
  // else branch slices it with steps that are an outer constant. The Loop body casts its carried
  // value to its type (a no-op in every iteration) and reshapes it by a shape that changes per
  // iteration (not a no-op).
  Model m = text(17, R"(g (float[2,3] x, bool c, int64 n) => (float[2,3] y, float[2,3] z, float[K] w) {
  s = Constant <value = int64[2] {2, 3}> ()
  st = Constant <value = int64[2] {0, 0}> ()
  en = Constant <value = int64[2] {9, 9}> ()
  ones = Constant <value = int64[2] {1, 1}> ()
  y = If (c) <then_branch = t () => (float[2,3] ty) {
      a = Reshape (x, s)
      ty = Cast <to = 1> (a)
    }, else_branch = e () => (float[2,3] ey) {
      ey = Slice (x, st, en, , ones)
    }>
  z, w = Loop (n, , x) <body = b (int64 i, bool cin, float[2,3] v) => (bool cout, float[2,3] vout, float[K] scan) {
      cout = Identity (cin)
      vout = Cast <to = 1> (v)
      one = Constant <value = int64[1] {1}> ()
      ip = Add (i, one)
      sh = Concat <axis = 0> (ip)
      flat = Reshape (v, sh)
      scan = Identity (flat)
    }>
})");
  REQUIRE(check(m).ok());
  REQUIRE(infer_shapes(m).type_errors == 0);
  // Reshape and Cast in then, Slice in else, Cast and one-input Concat in the body; the body's
  // Reshape to [i+1] flattens its [2,3] input: not one.
  CHECK(replace_noop_nodes(m) == 5);
  const Node& if_node = m.graph.nodes[4];
  REQUIRE(if_node.op_type == "If");
  CHECK(ops_of(if_node.find_attribute("then_branch")->as_graph()) == std::vector<std::string>{"Identity", "Identity"});
  CHECK(ops_of(if_node.find_attribute("else_branch")->as_graph()) == std::vector<std::string>{"Identity"});
  const Graph& body = m.graph.nodes[5].find_attribute("body")->as_graph();
  CHECK(ops_of(body) == std::vector<std::string>{"Identity", "Identity", "Constant", "Add", "Identity", "Reshape",
                                                 "Identity"});
  CHECK(check(m).ok());
  CHECK(infer_shapes(m).type_errors == 0);
  CHECK(replace_noop_nodes(m) == 0);
}

TEST_CASE("replace_noop_nodes in subgraphs: only what inference proves") {
  SUBCASE("a branch output declared static that inference finds symbolic") {
    // x's second dim is M, which may be 1: then the Expand to [2,3] broadcasts. The branch
    // outputs' declared [2,3] claim M is 3, which the model does not imply.
    Model m = text(17, R"(g (float[2,M] x, bool c) => (float[2,3] y, float[2,3] y2) {
  s = Constant <value = int64[2] {2, 3}> ()
  y, y2 = If (c) <then_branch = t () => (float[2,3] ty, float[2,3] r) { ty = Relu (x)
                                                                       r = Expand (ty, s) },
                  else_branch = e () => (float[2,3] ey, float[2,3] r2) { ey = Relu (x)
                                                                        r2 = Expand (ey, s) }>
})");
    CHECK(replace_noop_nodes(m) == 0);
  }
  SUBCASE("a Loop body input declared static that inference finds symbolic") {
    // v carries x, of N elements; the body declares it float[3]. N may be 1, and then the Mul
    // broadcasts v to 3 elements: not a no-op, whatever the declaration says.
    Model m = text(17, R"(g (float[N] x, int64 n) => (float[?] vfinal, float[?, 3] ys) {
  vfinal, ys = Loop (n, "", x) <body = body (int64 i, bool cin, float[3] v) => (bool cout, float[3] vout, float[3] y) {
      cout = Identity (cin)
      vout = Identity (v)
      c = Constant <value = float[3] {1, 1, 1}> ()
      y = Mul (v, c)
    }>
})");
    CHECK(replace_noop_nodes(m) == 0);
  }
  SUBCASE("the subgraphs of a node inference rejects") {
    Model m = text(17, R"(g (float[2] x, bool c) => (float[2] y) {
  y = If (c) <then_branch = t () => (float[2] ty) { ty = Cast <to = 1> (x) },
              else_branch = e () => (float[2] ey) { ey = Cast <to = 1> (x, x) }>
})");
    CHECK(replace_noop_nodes(m) == 0);
  }
  SUBCASE("a branch that shadows an outer name reads its own value") {
    // The else branch defines its own `v` (int64, by a Cast of u): the Cast to int64 of it is
    // a no-op; the then branch's Cast of the outer float v is not.
    Model m = text(17, R"(g (float[2] v, float[2] u, bool c) => (int64[2] y) {
  y = If (c) <then_branch = t () => (int64[2] ty) { ty = Cast <to = 7> (v) },
              else_branch = e () => (int64[2] ey) { v = Cast <to = 7> (u)
                                                     ey = Cast <to = 7> (v) }>
})");
    CHECK(replace_noop_nodes(m) == 1);
    const Graph& e = m.graph.nodes[0].find_attribute("else_branch")->as_graph();
    CHECK(ops_of(e) == std::vector<std::string>{"Cast", "Identity"});
    CHECK(ops_of(m.graph.nodes[0].find_attribute("then_branch")->as_graph()) == std::vector<std::string>{"Cast"});
  }
}

TEST_CASE("replace_noop_nodes in a Loop body leaves string tensors from outside as they are") {
  // ONNX Runtime 1.30 empties an outer string tensor that an Identity in a Loop body passes on
  // (every iteration after the first reads ""). A string made in the body, and an outer float,
  // are passed on as anywhere.
  Model m = text(17, R"(g (string[2] s, float[2] f, int64 n) => (string[N,2] a, string[N,2] b, float[N,2] c) {
  a, b, c = Loop (n, "") <body = body (int64 i, bool cin) => (bool cout, string[2] sa, string[2] sb, float[2] fc) {
      cout = Identity (cin)
      sa = Cast <to = 8> (s)
      local = Concat <axis = 0> (s)
      sb = Cast <to = 8> (local)
      fc = Cast <to = 1> (f)
    }>
})");
  REQUIRE(infer_shapes(m).type_errors == 0);
  CHECK(replace_noop_nodes(m) == 2);
  const Graph& body = m.graph.nodes[0].find_attribute("body")->as_graph();
  CHECK(ops_of(body) == std::vector<std::string>{"Identity", "Cast", "Concat", "Identity", "Identity"});
}

}  // namespace oxir_unit_test_noop
