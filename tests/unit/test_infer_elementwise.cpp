// Inference rules of the elementwise family: unary math and activations, softmax-like
// operators, binary broadcasting (numpy and the opset 1–6 `broadcast`/`axis` form), variadic
// operators, Where, Clip, Cast/CastLike, and symbolic value propagation on shape tensors.
#include <doctest/doctest.h>

#include "infer_test_util.hpp"

namespace oxir_unit_test_infer_elementwise {

using namespace oxir;
using namespace oxir::infer;
using namespace oxir_test;

namespace {

Node node(std::string op, std::vector<std::string> in, std::vector<std::string> out = {"y"}) {
  return Node(std::move(op), std::move(in), std::move(out));
}
Node with(Node n, Attribute a) {
  n.set_attribute(std::move(a));
  return n;
}

// Test-only helper rules, so that value propagation is checked independently of other families:
//  - TShape: INT64[rank] whose contents are the input's dims (like Shape);
//  - TFromValue: FLOAT tensor whose shape is the input's symbolic contents (shows them).
void t_shape(InferContext& c) {
  const Dims* s = c.input_shape(0);
  if (!s) return c.set_output(0, ValueType::tensor(DataType::INT64));
  c.set_output(0, DataType::INT64, Dims{DimExpr(static_cast<std::int64_t>(s->size()))});
  c.set_output_value(0, *s);
}
void t_from_value(InferContext& c) {
  const Dims* v = c.input_value(0);
  if (!v) return c.set_output(0, ValueType::tensor(DataType::FLOAT));
  c.set_output(0, DataType::FLOAT, *v);
}

/// TFromElements: like TFromValue for contents known in part too; an unknown element is a fresh
/// size (printed unk__k).
void t_from_elements(InferContext& c) {
  Dims d;
  if (const Dims* v = c.input_value(0)) {
    d = *v;
  } else if (const PartialDims* p = c.input_partial_value(0)) {
    for (const auto& e : *p) d.push_back(e ? *e : c.fresh());
  } else {
    return c.set_output(0, ValueType::tensor(DataType::FLOAT));
  }
  c.set_output(0, DataType::FLOAT, std::move(d));
}

struct Run {
  Model model;
  InferReport report;
  [[nodiscard]] std::string type(const std::string& v) const { return type_of(model, v); }
  [[nodiscard]] std::string last() const { return type_of(model, model.graph.nodes.back().outputs.at(0)); }
};
Run run(std::vector<Node> nodes, const std::vector<In>& inputs, std::vector<Tensor> inits = {}, std::int64_t opset = 21) {
  static const OpRegistry reg = [] {
    OpRegistry r;
    ops::register_elementwise_ops(r);
    r.add("", "TShape", &t_shape);
    r.add("", "TFromValue", &t_from_value);
    r.add("", "TFromElements", &t_from_elements);
    return r;
  }();
  Run r;
  r.model = make_model(std::move(nodes), inputs, std::move(inits), opset);
  Engine e(r.model, InferOptions{}, reg);
  r.report = e.run();
  return r;
}
/// Runs `n` (output "v") on inputs and shows the contents of "v" as a shape.
std::string contents(Node n, const std::vector<In>& inputs, std::vector<Tensor> inits = {}, std::int64_t opset = 21) {
  auto r = run({std::move(n), node("TFromValue", {"v"}, {"shown"})}, inputs, std::move(inits), opset);
  return r.last();
}
Tensor int32s(std::string name, std::vector<std::int32_t> v) {
  std::vector<std::int64_t> dims{static_cast<std::int64_t>(v.size())};
  return Tensor::from_values<std::int32_t>(std::move(name), dims, std::span<const std::int32_t>(v));
}
Tensor floats(std::string name, std::vector<float> v) {
  std::vector<std::int64_t> dims{static_cast<std::int64_t>(v.size())};
  return Tensor::from_values<float>(std::move(name), dims, std::span<const float>(v));
}

const In X{"x", DataType::FLOAT, {"N", "C", "H", "W"}};

}  // namespace

// ---------------------------------------------------------------------------------------------
TEST_CASE("unary math and activations keep type and shape") {
  for (const char* op : {"Abs", "Neg", "Floor", "Ceil", "Round", "Sqrt", "Reciprocal", "Exp", "Log", "Sin", "Cos",
                         "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh", "Sign", "Erf",
                         "Relu", "LeakyRelu", "Elu", "Selu", "Celu", "Sigmoid", "HardSigmoid", "HardSwish", "Softplus",
                         "Softsign", "Tanh", "ThresholdedRelu", "Gelu", "Mish", "Shrink", "Swish"}) {
    CAPTURE(op);
    auto r = infer_one(node(op, {"x"}), {X}, {}, 24);
    CHECK(r.out() == "FLOAT[N,C,H,W]");
    CHECK(r.report.diagnostics.empty());
  }
  CHECK(infer_one(node("Relu", {"x"}), {{"x", DataType::DOUBLE, {"3", "?"}}}).out() == "DOUBLE[3,x_dim1]");
  CHECK(infer_one(node("Exp", {"x"}), {{"x", DataType::FLOAT16, {}, false}}).out() == "FLOAT16[*]");
  CHECK(infer_one(node("Abs", {"x"}), {{"x", DataType::INT32, {}}}).out() == "INT32[]");
  CHECK(infer_one(node("BitwiseNot", {"x"}), {{"x", DataType::UINT8, {"K"}}}).out() == "UINT8[K]");
}

TEST_CASE("unary operators with fixed output types") {
  CHECK(infer_one(node("IsNaN", {"x"}), {X}).out() == "BOOL[N,C,H,W]");
  CHECK(infer_one(node("IsInf", {"x"}), {{"x", DataType::DOUBLE, {"7"}}}).out() == "BOOL[7]");
  CHECK(infer_one(node("Not", {"x"}), {{"x", DataType::BOOL, {"A", "2"}}}).out() == "BOOL[A,2]");
}

TEST_CASE("unary operators: malformed nodes") {
  auto two = infer_one(node("Sqrt", {"x", "x"}), {X});
  CHECK(two.report.nodes_failed == 1);
  CHECK(two.out() == "?");
  CHECK(infer_one(node("Exp", {}), {X}).report.nodes_failed == 1);
  CHECK(infer_one(node("Not", {"x"}), {X}).report.nodes_failed == 1);             // not BOOL
  CHECK(infer_one(node("IsNaN", {"x"}), {{"x", DataType::INT64, {"2"}}}).report.nodes_failed == 1);
  CHECK(infer_one(node("BitwiseNot", {"x"}), {X}).report.nodes_failed == 1);
  CHECK(infer_one(with(node("Gelu", {"x"}), Attribute("approximate", "fast")), {X}).report.nodes_failed == 1);
  CHECK(infer_one(with(node("Gelu", {"x"}), Attribute("approximate", "tanh")), {X}).out() == "FLOAT[N,C,H,W]");
}

TEST_CASE("PRelu: slope broadcasts unidirectionally to X") {
  CHECK(infer_one(node("PRelu", {"x", "s"}), {X, {"s", DataType::FLOAT, {"C", "1", "1"}}}).out() == "FLOAT[N,C,H,W]");
  // A slope dim of 5 forces X's dim to 5.
  auto r = infer_one(node("PRelu", {"x", "s"}), {{"x", DataType::FLOAT, {"N", "C"}}, {"s", DataType::FLOAT, {"5"}}});
  CHECK(r.out() == "FLOAT[N,5]");
  auto bad = infer_one(node("PRelu", {"x", "s"}), {{"x", DataType::FLOAT, {"N", "4"}}, {"s", DataType::FLOAT, {"5"}}});
  CHECK(bad.report.conflicts == 1);
  CHECK(infer_one(node("PRelu", {"x", "s"}), {{"x", DataType::FLOAT, {"4"}}, {"s", DataType::FLOAT, {"2", "4"}}})
            .report.nodes_failed == 1);  // slope cannot have a higher rank
  CHECK(infer_one(node("PRelu", {"x"}), {X}).report.nodes_failed == 1);
  // Before version 7 the slope is per channel, not broadcast: [3] against [2, 3, 4] is valid
  // (PyTorch 0.3's export in the onnx backend tests) and claims nothing about X.
  auto legacy = infer_one(node("PRelu", {"x", "s"}), {{"x", DataType::FLOAT, {"2", "3", "4"}}, {"s", DataType::FLOAT, {"3"}}},
                          {}, 6);
  CHECK(legacy.out() == "FLOAT[2,3,4]");
  CHECK(legacy.report.diagnostics.empty());
  auto legacy_sym = infer_one(node("PRelu", {"x", "s"}), {{"x", DataType::FLOAT, {"N", "C", "L"}}, {"s", DataType::FLOAT, {"3"}}},
                              {}, 6);
  CHECK(legacy_sym.out() == "FLOAT[N,C,L]");  // L is not forced to 3
}

TEST_CASE("Softmax, LogSoftmax, Hardmax: axis ranges per version") {
  for (const char* op : {"Softmax", "LogSoftmax", "Hardmax"}) {
    CAPTURE(op);
    CHECK(infer_one(node(op, {"x"}), {X}).out() == "FLOAT[N,C,H,W]");
    CHECK(infer_one(with(node(op, {"x"}), Attribute("axis", -4)), {X}).out() == "FLOAT[N,C,H,W]");
    CHECK(infer_one(with(node(op, {"x"}), Attribute("axis", 4)), {X}).report.nodes_failed == 1);
    CHECK(infer_one(with(node(op, {"x"}), Attribute("axis", -5)), {X}, {}, 11).report.nodes_failed == 1);
    // Default axis: 1 before opset 13 (invalid for rank 1), -1 from 13 on.
    const In v{"x", DataType::FLOAT, {"L"}};
    CHECK(infer_one(node(op, {"x"}), {v}, {}, 11).report.nodes_failed == 1);
    CHECK(infer_one(node(op, {"x"}), {v}, {}, 13).out() == "FLOAT[L]");
    // Opsets 1-10: coercion to 2D at axis = rank is allowed ([L] -> [L, 1]); rank + 1 is not.
    CHECK(infer_one(node(op, {"x"}), {v}, {}, 10).out() == "FLOAT[L]");
    CHECK(infer_one(with(node(op, {"x"}), Attribute("axis", 2)), {v}, {}, 10).report.nodes_failed == 1);
    CHECK(infer_one(node(op, {"x"}), {{"x", DataType::FLOAT, {}, false}}).out() == "FLOAT[*]");
  }
}

// ---------------------------------------------------------------------------------------------
TEST_CASE("binary operators broadcast (numpy rules)") {
  for (const char* op : {"Add", "Sub", "Mul", "Div", "Pow"}) {
    CAPTURE(op);
    auto r = infer_one(node(op, {"a", "b"}), {{"a", DataType::FLOAT, {"N", "1", "5"}}, {"b", DataType::FLOAT, {"C", "1"}}});
    CHECK(r.out() == "FLOAT[N,C,5]");
  }
  CHECK(infer_one(node("Mod", {"a", "b"}), {{"a", DataType::INT64, {"N"}}, {"b", DataType::INT64, {}}}).out() == "INT64[N]");
  CHECK(infer_one(with(node("Mod", {"a", "b"}), Attribute("fmod", 1)),
                  {{"a", DataType::FLOAT, {"N"}}, {"b", DataType::FLOAT, {"N"}}})
            .out() == "FLOAT[N]");
  for (const char* op : {"BitwiseAnd", "BitwiseOr", "BitwiseXor"})
    CHECK(infer_one(node(op, {"a", "b"}), {{"a", DataType::INT32, {"2", "1"}}, {"b", DataType::INT32, {"3"}}}).out() ==
          "INT32[2,3]");
  CHECK(infer_one(with(node("BitShift", {"a", "b"}), Attribute("direction", "LEFT")),
                  {{"a", DataType::UINT8, {"4"}}, {"b", DataType::UINT8, {"1"}}})
            .out() == "UINT8[4]");
  // Pow: the exponent's type may differ from opset 12 on; the output has the base's type.
  CHECK(infer_one(node("Pow", {"a", "b"}), {{"a", DataType::FLOAT, {"N"}}, {"b", DataType::INT64, {}}}).out() ==
        "FLOAT[N]");
  CHECK(infer_one(node("Pow", {"a", "b"}), {{"a", DataType::FLOAT, {"N"}}, {"b", DataType::INT64, {}}}, {}, 7)
            .report.nodes_failed == 1);
  // Unknown rank on one side: unknown rank out.
  CHECK(infer_one(node("Add", {"a", "b"}), {{"a", DataType::FLOAT, {"N"}}, {"b", DataType::FLOAT, {}, false}}).out() ==
        "FLOAT[*]");
}

TEST_CASE("comparison and logical operators yield BOOL") {
  for (const char* op : {"Equal", "Less", "LessOrEqual", "Greater", "GreaterOrEqual"}) {
    CAPTURE(op);
    CHECK(infer_one(node(op, {"a", "b"}), {{"a", DataType::INT64, {"N", "3"}}, {"b", DataType::INT64, {"3"}}}).out() ==
          "BOOL[N,3]");
  }
  for (const char* op : {"And", "Or", "Xor"}) {
    CAPTURE(op);
    CHECK(infer_one(node(op, {"a", "b"}), {{"a", DataType::BOOL, {"1", "K"}}, {"b", DataType::BOOL, {"M", "1"}}}).out() ==
          "BOOL[M,K]");
    CHECK(infer_one(node(op, {"a", "b"}), {{"a", DataType::INT32, {"1"}}, {"b", DataType::INT32, {"1"}}})
              .report.nodes_failed == 1);
  }
}

TEST_CASE("binary operators: malformed nodes") {
  CHECK(infer_one(node("Add", {"a", "b"}), {{"a", DataType::FLOAT, {"3"}}, {"b", DataType::FLOAT, {"4"}}}).report.conflicts ==
        1);
  CHECK(infer_one(node("Add", {"a", "b"}), {{"a", DataType::FLOAT, {"3"}}, {"b", DataType::INT64, {"3"}}})
            .report.nodes_failed == 1);
  CHECK(infer_one(node("Mul", {"a"}), {{"a", DataType::FLOAT, {"3"}}}).report.nodes_failed == 1);
  CHECK(infer_one(node("Mod", {"a", "b"}), {{"a", DataType::FLOAT, {"3"}}, {"b", DataType::FLOAT, {"3"}}})
            .report.nodes_failed == 1);  // float Mod needs fmod = 1
  CHECK(infer_one(node("BitShift", {"a", "b"}), {{"a", DataType::UINT8, {"4"}}, {"b", DataType::UINT8, {"1"}}})
            .report.nodes_failed == 1);  // direction is required
  CHECK(infer_one(with(node("BitShift", {"a", "b"}), Attribute("direction", "UP")),
                  {{"a", DataType::UINT8, {"4"}}, {"b", DataType::UINT8, {"1"}}})
            .report.nodes_failed == 1);
  CHECK(infer_one(node("BitwiseAnd", {"a", "b"}), {{"a", DataType::FLOAT, {"4"}}, {"b", DataType::FLOAT, {"1"}}})
            .report.nodes_failed == 1);
}

TEST_CASE("opset 1-6 binary operators: limited broadcasting with broadcast/axis") {
  const In A{"a", DataType::FLOAT, {"N", "C", "H", "W"}};
  // broadcast = 0: identical shapes; unknown dims learn from each other.
  auto same = infer_one(node("Add", {"a", "b"}), {{"a", DataType::FLOAT, {"N", "?"}}, {"b", DataType::FLOAT, {"?", "7"}}},
                        {}, 6);
  CHECK(same.out() == "FLOAT[N,7]");
  CHECK(infer_one(node("Add", {"a", "b"}), {A, {"b", DataType::FLOAT, {"W"}}}, {}, 6).report.nodes_failed == 1);
  // broadcast = 1, B a suffix of A: the output has A's shape.
  auto suffix = infer_one(with(node("Mul", {"a", "b"}), Attribute("broadcast", 1)), {A, {"b", DataType::FLOAT, {"H", "W"}}},
                          {}, 6);
  CHECK(suffix.out() == "FLOAT[N,C,H,W]");
  // broadcast = 1 with axis = 1: B matches (C, H); a number forces A's dim.
  auto ax = infer_one(with(with(node("Sub", {"a", "b"}), Attribute("broadcast", 1)), Attribute("axis", 1)),
                      {A, {"b", DataType::FLOAT, {"3", "1"}}}, {}, 5);
  CHECK(ax.out() == "FLOAT[N,3,H,W]");
  // Scalar B.
  CHECK(infer_one(with(node("Div", {"a", "b"}), Attribute("broadcast", 1)), {A, {"b", DataType::FLOAT, {}}}, {}, 6).out() ==
        "FLOAT[N,C,H,W]");
  // Comparisons and logical operators of opset 1 too.
  CHECK(infer_one(with(node("Equal", {"a", "b"}), Attribute("broadcast", 1)),
                  {{"a", DataType::INT32, {"N", "4"}}, {"b", DataType::INT32, {"4"}}}, {}, 1)
            .out() == "BOOL[N,4]");
  CHECK(infer_one(with(node("And", {"a", "b"}), Attribute("broadcast", 1)),
                  {{"a", DataType::BOOL, {"N", "4"}}, {"b", DataType::BOOL, {"1"}}}, {}, 1)
            .out() == "BOOL[N,4]");
  // B longer than A, axis out of range, known dims that differ.
  CHECK(infer_one(with(node("Add", {"a", "b"}), Attribute("broadcast", 1)),
                  {{"a", DataType::FLOAT, {"4"}}, {"b", DataType::FLOAT, {"2", "4"}}}, {}, 6)
            .report.nodes_failed == 1);
  CHECK(infer_one(with(with(node("Add", {"a", "b"}), Attribute("broadcast", 1)), Attribute("axis", 3)),
                  {A, {"b", DataType::FLOAT, {"2", "4"}}}, {}, 6)
            .report.nodes_failed == 1);
  CHECK(infer_one(with(node("Add", {"a", "b"}), Attribute("broadcast", 1)),
                  {{"a", DataType::FLOAT, {"2", "5"}}, {"b", DataType::FLOAT, {"4"}}}, {}, 6)
            .report.conflicts == 1);
  // From opset 7 on, numpy broadcasting: [N,1] + [4] -> [N,4].
  CHECK(infer_one(node("Add", {"a", "b"}), {{"a", DataType::FLOAT, {"N", "1"}}, {"b", DataType::FLOAT, {"4"}}}, {}, 7).out() ==
        "FLOAT[N,4]");
}

// ---------------------------------------------------------------------------------------------
TEST_CASE("variadic Sum, Mean, Max, Min") {
  for (const char* op : {"Sum", "Mean", "Max", "Min"}) {
    CAPTURE(op);
    auto r = infer_one(node(op, {"a", "b", "c"}), {{"a", DataType::FLOAT, {"N", "1", "1"}},
                                                   {"b", DataType::FLOAT, {"C", "1"}},
                                                   {"c", DataType::FLOAT, {"W"}}});
    CHECK(r.out() == "FLOAT[N,C,W]");
    CHECK(infer_one(node(op, {"a"}), {{"a", DataType::FLOAT, {"N", "2"}}}).out() == "FLOAT[N,2]");
    CHECK(infer_one(node(op, {}), {}).report.nodes_failed == 1);
    CHECK(infer_one(node(op, {"a", "b"}), {{"a", DataType::FLOAT, {"2"}}, {"b", DataType::DOUBLE, {"2"}}})
              .report.nodes_failed == 1);
    // Before opset 8: same shapes, no broadcasting.
    CHECK(infer_one(node(op, {"a", "b"}), {{"a", DataType::FLOAT, {"N", "?"}}, {"b", DataType::FLOAT, {"?", "3"}}}, {}, 6)
              .out() == "FLOAT[N,3]");
    CHECK(infer_one(node(op, {"a", "b"}), {{"a", DataType::FLOAT, {"N", "3"}}, {"b", DataType::FLOAT, {"3"}}}, {}, 6)
              .report.nodes_failed == 1);
  }
  CHECK(infer_one(node("Max", {"a", "b"}), {{"a", DataType::INT64, {"3"}}, {"b", DataType::INT64, {"4"}}}).report.conflicts ==
        1);
}

TEST_CASE("Where: three-way broadcast, X's type") {
  auto r = infer_one(node("Where", {"c", "x", "z"}), {{"c", DataType::BOOL, {"N", "1", "1"}},
                                                      {"x", DataType::INT64, {"H", "1"}},
                                                      {"z", DataType::INT64, {"W"}}});
  CHECK(r.out() == "INT64[N,H,W]");
  CHECK(infer_one(node("Where", {"c", "x", "y"}),
                  {{"c", DataType::FLOAT, {"1"}}, {"x", DataType::FLOAT, {"1"}}, {"y", DataType::FLOAT, {"1"}}})
            .report.nodes_failed == 1);
  CHECK(infer_one(node("Where", {"c", "x", "y"}),
                  {{"c", DataType::BOOL, {"1"}}, {"x", DataType::FLOAT, {"1"}}, {"y", DataType::INT32, {"1"}}})
            .report.nodes_failed == 1);
  CHECK(infer_one(node("Where", {"c", "x"}), {{"c", DataType::BOOL, {"1"}}, {"x", DataType::FLOAT, {"1"}}})
            .report.nodes_failed == 1);
}

TEST_CASE("Clip: attributes before opset 11, optional inputs after") {
  CHECK(infer_one(with(with(node("Clip", {"x"}), Attribute("min", 0.0f)), Attribute("max", 6.0f)), {X}, {}, 6).out() ==
        "FLOAT[N,C,H,W]");
  CHECK(infer_one(node("Clip", {"x", "lo", "hi"}), {X, {"lo", DataType::FLOAT, {}}, {"hi", DataType::FLOAT, {}}}, {}, 13)
            .out() == "FLOAT[N,C,H,W]");
  CHECK(infer_one(node("Clip", {"x", "", "hi"}), {X, {"hi", DataType::FLOAT, {}}}, {}, 13).out() == "FLOAT[N,C,H,W]");
  CHECK(infer_one(node("Clip", {"x", "lo"}), {X, {"lo", DataType::FLOAT, {}}}, {}, 6).report.nodes_failed == 1);
  CHECK(infer_one(node("Clip", {"x", "lo"}), {X, {"lo", DataType::DOUBLE, {}}}, {}, 13).report.nodes_failed == 1);
  CHECK(infer_one(node("Clip", {"x", "lo"}), {X, {"lo", DataType::FLOAT, {"2", "2"}}}, {}, 13).report.nodes_failed == 1);
}

TEST_CASE("Cast and CastLike") {
  CHECK(infer_one(with(node("Cast", {"x"}), Attribute("to", std::int64_t{7})), {X}).out() == "INT64[N,C,H,W]");
  CHECK(infer_one(with(node("Cast", {"x"}), Attribute("to", std::int64_t{17})), {X}, {}, 19).out() ==
        "FLOAT8E4M3FN[N,C,H,W]");
  CHECK(infer_one(with(with(node("Cast", {"x"}), Attribute("to", std::int64_t{19})), Attribute("saturate", 0)), {X}, {}, 21)
            .out() == "FLOAT8E5M2[N,C,H,W]");
  // Opset 1 spelled the target type as a string.
  CHECK(infer_one(with(node("Cast", {"x"}), Attribute("to", "DOUBLE")), {X}, {}, 1).out() == "DOUBLE[N,C,H,W]");
  CHECK(infer_one(node("Cast", {"x"}), {X}).report.nodes_failed == 1);
  CHECK(infer_one(with(node("Cast", {"x"}), Attribute("to", std::int64_t{999})), {X}).report.nodes_failed == 1);
  CHECK(infer_one(with(node("Cast", {"x"}), Attribute("to", std::int64_t{0})), {X}).report.nodes_failed == 1);
  CHECK(infer_one(with(node("Cast", {"x"}), Attribute("to", 1.0f)), {X}).report.nodes_failed == 1);
  CHECK(infer_one(node("CastLike", {"x", "t"}), {X, {"t", DataType::INT8, {}}}).out() == "INT8[N,C,H,W]");
  // Opset 25: round_mode (for float8e8m0) is up, down or nearest.
  CHECK(infer_one(with(with(node("Cast", {"x"}), Attribute("to", std::int64_t{24})), Attribute("round_mode", "down")), {X},
                  {}, 25)
            .out() == "FLOAT8E8M0[N,C,H,W]");
  CHECK(infer_one(with(with(node("Cast", {"x"}), Attribute("to", std::int64_t{24})), Attribute("round_mode", "sideways")),
                  {X}, {}, 25)
            .report.nodes_failed == 1);
  CHECK(infer_one(with(node("CastLike", {"x", "t"}), Attribute("saturate", 2)), {X, {"t", DataType::FLOAT8E5M2, {}}}, {}, 21)
            .report.nodes_failed == 1);
  CHECK(infer_one(node("CastLike", {"x"}), {X}).report.nodes_failed == 1);
}

// ---------------------------------------------------------------------------------------------
TEST_CASE("value propagation: arithmetic on shape tensors") {
  const In x{"x", DataType::FLOAT, {"N", "C", "H", "W"}};
  auto r = run({node("TShape", {"x"}, {"s"}), node("Add", {"s", "one"}, {"v"}), node("TFromValue", {"v"}, {"shown"})}, {x},
               {ints("one", {1}, true)});
  CHECK(r.type("s") == "INT64[4]");
  CHECK(r.type("v") == "INT64[4]");
  CHECK(r.last() == "FLOAT[N+1,C+1,H+1,W+1]");

  auto mul = run({node("TShape", {"x"}, {"s"}), node("Mul", {"s", "k"}, {"v"}), node("TFromValue", {"v"}, {"shown"})}, {x},
                 {ints("k", {1, 2, 3, 0})});
  CHECK(mul.last() == "FLOAT[N,2*C,3*H,0]");

  auto sub = run({node("TShape", {"x"}, {"s"}), node("Sub", {"s", "s"}, {"v"}), node("TFromValue", {"v"}, {"shown"})}, {x});
  CHECK(sub.last() == "FLOAT[0,0,0,0]");

  // Constants only: [6, 7] - [2] = [4, 5].
  CHECK(contents(node("Sub", {"a", "b"}, {"v"}), {}, {ints("a", {6, 7}), ints("b", {2})}) == "FLOAT[4,5]");
  // Mismatched lengths (3 vs 2) give no contents (and a broadcast conflict).
  auto bad = run({node("Add", {"a", "b"}, {"v"}), node("TFromValue", {"v"}, {"shown"})}, {},
                 {ints("a", {1, 2, 3}), ints("b", {1, 2})});
  CHECK(bad.last() == "FLOAT[*]");
  CHECK(bad.report.conflicts == 1);
}

TEST_CASE("value propagation: Div truncates toward zero, only when determined") {
  const In x{"x", DataType::FLOAT, {"N", "C", "H", "W"}};
  auto div = [&](std::vector<std::int64_t> k) {
    return run({node("TShape", {"x"}, {"s"}), node("Div", {"s", "k"}, {"v"}), node("TFromValue", {"v"}, {"shown"})}, {x},
               {ints("k", std::move(k))})
        .last();
  };
  // Sizes are non-negative: floor division by a positive constant equals truncation.
  CHECK(div({1, 2, 4, 1}) == "FLOAT[N,floor(C/2),floor(H/4),W]");
  // Division by zero: not determined. By a negative number: the quotient by its magnitude,
  // negated (C / -2 truncates to -floor(C/2): C = 3 gives -1, not floor(-1.5) = -2).
  CHECK(div({1, 0, 1, 1}) == "FLOAT[*]");
  CHECK(div({1, -2, 1, 1}) == "FLOAT[N,-floor(C/2),H,W]");
  // Constants: -7 / 2 = -3 in ONNX (truncation), 7 / -2 = -3.
  auto c = run({node("Div", {"a", "b"}, {"q"}), node("Add", {"q", "ten"}, {"v"}), node("TFromValue", {"v"}, {"shown"})}, {},
               {ints("a", {-7, 7, 8}), ints("b", {2, -2, 4}), ints("ten", {10}, true)});
  CHECK(c.last() == "FLOAT[7,7,12]");
  // Exact polynomial division: (N*C) / C = N.
  auto ex = run({node("TShape", {"x"}, {"s"}), node("Mul", {"s", "s"}, {"sq"}), node("Div", {"sq", "s"}, {"v"}),
                 node("TFromValue", {"v"}, {"shown"})},
                {x});
  CHECK(ex.last() == "FLOAT[N,C,H,W]");
}

TEST_CASE("value propagation: Mod, Min, Max, Sum, Neg, Abs") {
  const In x{"x", DataType::FLOAT, {"N", "C"}};
  auto m = [&](const char* op, std::vector<std::int64_t> k, std::vector<Attribute> attrs = {}) {
    Node n = node(op, {"s", "k"}, {"v"});
    for (auto& a : attrs) n.set_attribute(std::move(a));
    return run({node("TShape", {"x"}, {"s"}), std::move(n), node("TFromValue", {"v"}, {"shown"})}, {x},
               {ints("k", std::move(k))})
        .last();
  };
  CHECK(m("Mod", {4, 8}) == "FLOAT[N-4*floor(N/4),C-8*floor(C/8)]");
  CHECK(m("Mod", {4, 8}, {Attribute("fmod", 1)}) == "FLOAT[N-4*floor(N/4),C-8*floor(C/8)]");
  CHECK(m("Mod", {0, 8}) == "FLOAT[*]");
  CHECK(m("Min", {5, 0}) == "FLOAT[min(N,5),0]");  // 0 <= C: min is 0
  CHECK(m("Max", {1, 2}) == "FLOAT[max(N,1),max(C,2)]");
  CHECK(m("Max", {0, 0}) == "FLOAT[N,C]");  // sizes are non-negative
  CHECK(m("Sum", {1, 2}) == "FLOAT[N+1,C+2]");
  // Mod of constants: floor semantics (fmod = 0) vs C semantics (fmod = 1); shown after + 10.
  auto mod = [](std::int64_t fmod) {
    return run({with(node("Mod", {"a", "b"}, {"r"}), Attribute("fmod", fmod)), node("Add", {"r", "ten"}, {"v"}),
                node("TFromValue", {"v"}, {"shown"})},
               {}, {ints("a", {-7, 7}), ints("b", {3, -3}), ints("ten", {10}, true)})
        .last();
  };
  CHECK(mod(0) == "FLOAT[12,8]");  // -7 mod 3 = 2, 7 mod -3 = -2
  CHECK(mod(1) == "FLOAT[9,11]");  // fmod(-7,3) = -1, fmod(7,-3) = 1
  // Neg then Abs gives back the sizes; Neg alone is shown after adding 2*N.
  auto na = run({node("TShape", {"x"}, {"s"}), node("Neg", {"s"}, {"n"}), node("Abs", {"n"}, {"v"}),
                 node("TFromValue", {"v"}, {"shown"})},
                {x});
  CHECK(na.last() == "FLOAT[N,C]");
  auto abs_const =
      run({node("Abs", {"a"}, {"v"}), node("TFromValue", {"v"}, {"shown"})}, {}, {ints("a", {-3, 4})});
  CHECK(abs_const.last() == "FLOAT[3,4]");
  auto neg = run({node("TShape", {"x"}, {"s"}), node("Neg", {"s"}, {"n"}), node("Add", {"n", "s"}, {"z"}),
                  node("Add", {"z", "s"}, {"v"}), node("TFromValue", {"v"}, {"shown"})},
                 {x});
  CHECK(neg.last() == "FLOAT[N,C]");
}

TEST_CASE("value propagation: comparisons, Where, Not, logical") {
  const In x{"x", DataType::FLOAT, {"N", "3"}};
  // Equal(shape, [N?, 3]) -> [?, 1]: N vs 5 undetermined → no contents; constants → known.
  auto eq = run({node("TShape", {"x"}, {"s"}), node("Equal", {"s", "k"}, {"e"}),
                 node("Where", {"e", "one", "s"}, {"v"}), node("TFromValue", {"v"}, {"shown"})},
                {x}, {ints("k", {7, 3}), ints("one", {1}, true)});
  CHECK(eq.type("e") == "BOOL[2]");
  CHECK(eq.last() == "FLOAT[*]");  // N == 7 is not determined
  // Equal of [N, 3] with [N, 4]: [1, 0] — Where then picks 9 for the equal element.
  auto eq3 = run({node("TShape", {"x"}, {"s"}), node("TShape", {"y"}, {"t"}), node("Equal", {"s", "t"}, {"e"}),
                  node("Where", {"e", "big", "s"}, {"v"}), node("TFromValue", {"v"}, {"shown"})},
                 {x, {"y", DataType::FLOAT, {"N", "4"}}}, {ints("big", {9}, true)});
  CHECK(eq3.last() == "FLOAT[9,3]");
  // Not flips, Less/Greater of provably ordered sizes (N < N+1).
  auto lt = run({node("TShape", {"x"}, {"s"}), node("Add", {"s", "one"}, {"t"}), node("Less", {"s", "t"}, {"l"}),
                 node("Not", {"l"}, {"nl"}), node("Where", {"nl", "s", "t"}, {"v"}), node("TFromValue", {"v"}, {"shown"})},
                {x}, {ints("one", {1}, true)});
  CHECK(lt.last() == "FLOAT[N+1,4]");
  auto ge = run({node("TShape", {"x"}, {"s"}), node("GreaterOrEqual", {"s", "s"}, {"g"}),
                 node("Where", {"g", "s", "one"}, {"v"}), node("TFromValue", {"v"}, {"shown"})},
                {x}, {ints("one", {1}, true)});
  CHECK(ge.last() == "FLOAT[N,3]");
  // Sizes are non-negative: N == -1 is false, N+2 > 1 is true (torch's expand(-1, ...):
  // Where(Equal(shape, -1), 1, shape)); N-1 vs 0 and N vs 1 stay undetermined.
  auto neg = run({node("TShape", {"x"}, {"s"}), node("Equal", {"s", "m1"}, {"e"}),
                  node("Where", {"e", "one", "s"}, {"v"}), node("TFromValue", {"v"}, {"shown"})},
                 {x}, {ints("m1", {-1}, true), ints("one", {1}, true)});
  CHECK(neg.last() == "FLOAT[N,3]");
  auto cmp = [&](const char* op, std::int64_t add, std::int64_t k) {
    return run({node("TShape", {"x"}, {"s"}), node("Add", {"s", "a"}, {"t"}), node(op, {"t", "k"}, {"c"}),
                node("Where", {"c", "s", "big"}, {"v"}), node("TFromValue", {"v"}, {"shown"})},
               {x}, {ints("a", {add}, true), ints("k", {k}, true), ints("big", {9}, true)})
        .last();
  };
  CHECK(cmp("Greater", 2, 1) == "FLOAT[N,3]");
  CHECK(cmp("Less", 0, -3) == "FLOAT[9,9]");
  CHECK(cmp("Equal", -1, 0) == "FLOAT[*]");
  CHECK(cmp("Equal", 0, 1) == "FLOAT[*]");
}

TEST_CASE("value propagation: contents the element type cannot hold are not claimed") {
  // Exact integer arithmetic says 2147483648; an int32 tensor holds -2147483648 (it wraps).
  CHECK(contents(node("Add", {"a", "b"}, {"v"}), {}, {int32s("a", {2147483647}), int32s("b", {1})}) == "FLOAT[*]");
  CHECK(contents(node("Add", {"a", "b"}, {"v"}), {}, {int32s("a", {2147483646}), int32s("b", {1})}) == "FLOAT[2147483647]");
  CHECK(contents(node("Mul", {"a", "b"}, {"v"}), {}, {int32s("a", {65536}), int32s("b", {32768})}) == "FLOAT[*]");
  // float holds every integer up to 2^24, then only even ones (up to 2^25): 16777216 + 1 rounds.
  const auto to_float = [](std::string in, std::string out) {
    return with(node("Cast", {std::move(in)}, {std::move(out)}), Attribute("to", std::int64_t{1}));
  };
  auto sum = [&](std::int64_t a, std::int64_t b) {
    return run({to_float("a", "fa"), to_float("b", "fb"), node("Add", {"fa", "fb"}, {"v"}), node("TFromValue", {"v"}, {"shown"})},
               {}, {ints("a", {a}), ints("b", {b})})
        .last();
  };
  CHECK(sum(16777215, 1) == "FLOAT[16777216]");
  CHECK(sum(16777216, 1) == "FLOAT[*]");
  CHECK(sum(16777216, 2) == "FLOAT[16777218]");
  // float16 holds integers up to 2048 exactly, then even ones up to 4096.
  auto half = run({with(node("Cast", {"a"}, {"h"}), Attribute("to", std::int64_t{10})),
                   with(node("Cast", {"b"}, {"g"}), Attribute("to", std::int64_t{10})), node("Add", {"h", "g"}, {"v"}),
                   node("TFromValue", {"v"}, {"shown"})},
                  {}, {ints("a", {2048}), ints("b", {1})});
  CHECK(half.last() == "FLOAT[*]");
}

TEST_CASE("value propagation: float constants of integers are contents, with float semantics") {
  // onnx's expanded Range: the trip count ceil((limit - start) / delta) in float arithmetic.
  const auto trip = [](float start, float limit, float delta) {
    return run({node("Sub", {"limit", "start"}, {"d"}), node("Div", {"d", "delta"}, {"q"}), node("Ceil", {"q"}, {"c"}),
                with(node("Cast", {"c"}, {"v"}), Attribute("to", std::int64_t{7})), node("TFromValue", {"v"}, {"shown"})},
               {}, {floats("start", {start}), floats("limit", {limit}), floats("delta", {delta})})
        .last();
  };
  CHECK(trip(1.0f, 5.0f, 2.0f) == "FLOAT[2]");
  CHECK(trip(-3.0f, 9.0f, 4.0f) == "FLOAT[3]");
  // 4 / 3 is no integer: Div of floats is exact division, so nothing is claimed (not 1).
  CHECK(trip(1.0f, 5.0f, 3.0f) == "FLOAT[*]");
  CHECK(trip(1.0f, 5.5f, 2.0f) == "FLOAT[*]");  // a constant that is no integer is not tracked
  // (Shown through TFromValue, whose output shape is the contents: negative contents would be a
  // negative size, which the engine refuses, so they are shown shifted or negated back.)
  CHECK(run({node("Mul", {"a", "b"}, {"m"}), node("Add", {"m", "c"}, {"v"}), node("TFromValue", {"v"}, {"shown"})}, {},
            {floats("a", {3.0f, -2.0f}), floats("b", {4.0f}), floats("c", {10.0f})})
            .last() == "FLOAT[22,2]");
  CHECK(run({node("Neg", {"a"}, {"n"}), node("Neg", {"n"}, {"v"}), node("TFromValue", {"v"}, {"shown"})}, {},
            {floats("a", std::vector<float>(64, 1.0f))})
            .last() == "FLOAT[" + [] { std::string s = "1"; for (int i = 1; i < 64; ++i) s += ",1"; return s; }() + "]");
  // Larger float tensors are weights: not read as contents.
  CHECK(contents(node("Neg", {"a"}, {"v"}), {}, {floats("a", std::vector<float>(65, 1.0f))}) == "FLOAT[*]");
  // float16 holds the integers up to 2048 exactly: 1024 + 1 is claimed, 2048 + 1 is not.
  const auto half = [](float a, float b) {
    return contents(node("Add", {"a", "b"}, {"v"}), {},
                    {Tensor::from_values<float16>("a", {1}, {float16(a)}), Tensor::from_values<float16>("b", {1}, {float16(b)})});
  };
  CHECK(half(1024.0f, 1.0f) == "FLOAT[1025]");
  CHECK(half(2048.0f, 1.0f) == "FLOAT[*]");
  // A float initializer that is also a graph input is only a default: not a constant.
  CHECK(contents(node("Neg", {"a"}, {"v"}), {{"a", DataType::FLOAT, {"1"}}}, {floats("a", {3.0f})}) == "FLOAT[*]");
}

TEST_CASE("value propagation: Cast, CastLike, Clip") {
  const In x{"x", DataType::FLOAT, {"N", "C"}};
  // int64 -> int32 keeps sizes.
  auto i32 = run({node("TShape", {"x"}, {"s"}), with(node("Cast", {"s"}, {"v"}), Attribute("to", std::int64_t{6})),
                  node("TFromValue", {"v"}, {"shown"})},
                 {x});
  CHECK(i32.type("v") == "INT32[2]");
  CHECK(i32.last() == "FLOAT[N,C]");
  // A symbolic size cast to float is not tracked; constants are, and come back exactly.
  auto f = run({node("TShape", {"x"}, {"s"}), with(node("Cast", {"s"}, {"v"}), Attribute("to", std::int64_t{1})),
                node("TFromValue", {"v"}, {"shown"})},
               {x});
  CHECK(f.last() == "FLOAT[*]");
  auto rt = run({with(node("Cast", {"a"}, {"f"}), Attribute("to", std::int64_t{1})),
                 with(node("Cast", {"f"}, {"v"}), Attribute("to", std::int64_t{7})), node("TFromValue", {"v"}, {"shown"})},
                {}, {int32s("a", {2, 5})});
  CHECK(rt.last() == "FLOAT[2,5]");
  // Float constants: integral values convert; 2.5 does not (stays unknown).
  CHECK(contents(with(node("Cast", {"a"}, {"v"}), Attribute("to", std::int64_t{7})), {}, {floats("a", {3.0f, 4.0f})}) ==
        "FLOAT[3,4]");
  CHECK(contents(with(node("Cast", {"a"}, {"v"}), Attribute("to", std::int64_t{7})), {}, {floats("a", {3.0f, 2.5f})}) ==
        "FLOAT[*]");
  // Out-of-range constants for int8 wrap: not tracked.
  CHECK(contents(with(node("Cast", {"a"}, {"v"}), Attribute("to", std::int64_t{3})), {}, {ints("a", {300})}) == "FLOAT[*]");
  // CastLike to int32 and Clip with constant bounds.
  CHECK(contents(node("CastLike", {"a", "t"}, {"v"}), {{"t", DataType::INT32, {}}}, {ints("a", {4, 9})}) == "FLOAT[4,9]");
  auto clip = run({node("TShape", {"x"}, {"s"}), node("Clip", {"s", "lo", "hi"}, {"v"}), node("TFromValue", {"v"}, {"shown"})},
                  {x}, {ints("lo", {1}, true), ints("hi", {8}, true)}, 13);
  CHECK(clip.last() == "FLOAT[min(max(N,1),8),min(max(C,1),8)]");
}

TEST_CASE("value propagation: guards (overflow, unknown conditions, long tensors)") {
  // int64 overflow: the contents are dropped, the type stays.
  auto big = run({node("Mul", {"a", "b"}, {"v"}), node("TFromValue", {"v"}, {"shown"})}, {},
                 {ints("a", {std::int64_t{1} << 62}), ints("b", {4})});
  CHECK(big.type("v") == "INT64[1]");
  CHECK(big.last() == "FLOAT[*]");
  CHECK(big.report.nodes_failed == 0);
  // A condition not known: Where gives no contents.
  auto w = run({node("Where", {"c", "a", "b"}, {"v"}), node("TFromValue", {"v"}, {"shown"})},
               {{"c", DataType::BOOL, {"2"}}}, {ints("a", {1, 2}), ints("b", {3, 4})});
  CHECK(w.type("v") == "INT64[2]");
  CHECK(w.last() == "FLOAT[*]");
  // Equal of constants: known BOOL contents, usable by Where; Not flips them.
  auto e = run({node("Equal", {"a", "b"}, {"e"}), node("Not", {"e"}, {"ne"}), node("Where", {"ne", "a", "b"}, {"v"}),
                node("TFromValue", {"v"}, {"shown"})},
               {}, {ints("a", {1, 5}), ints("b", {1, 6})});
  CHECK(e.type("e") == "BOOL[2]");
  CHECK(e.last() == "FLOAT[1,5]");
  // Div of non-negative sizes: truncation is floor division (N = 0 would be a runtime error).
  auto d = run({node("TShape", {"x"}, {"s"}), node("Add", {"s", "one"}, {"t"}), node("Div", {"t", "s"}, {"v"}),
                node("TFromValue", {"v"}, {"shown"})},
               {{"x", DataType::FLOAT, {"N"}}}, {ints("one", {1}, true)});
  CHECK(d.last() == "FLOAT[floor((N+1)/N)]");
  // Float Div only when exact: 6.0 / 4.0 = 1.5 is not a size.
  auto fd = run({with(node("Cast", {"a"}, {"fa"}), Attribute("to", std::int64_t{1})),
                 with(node("Cast", {"b"}, {"fb"}), Attribute("to", std::int64_t{1})), node("Div", {"fa", "fb"}, {"v"}),
                 node("TFromValue", {"v"}, {"shown"})},
                {}, {ints("a", {6, 8}), ints("b", {4})});
  CHECK(fd.type("v") == "FLOAT[2]");
  CHECK(fd.last() == "FLOAT[*]");
  auto fx = run({with(node("Cast", {"a"}, {"fa"}), Attribute("to", std::int64_t{1})),
                 with(node("Cast", {"b"}, {"fb"}), Attribute("to", std::int64_t{1})), node("Div", {"fa", "fb"}, {"v"}),
                 node("TFromValue", {"v"}, {"shown"})},
                {}, {ints("a", {8, 12}), ints("b", {4})});
  CHECK(fx.last() == "FLOAT[2,3]");
}

TEST_CASE("value propagation: variadic, unary helpers, legacy opsets, logical short-cuts") {
  const In x{"x", DataType::FLOAT, {"N", "C"}};
  auto shown = [&](std::vector<Node> mid, std::vector<Tensor> inits, std::int64_t opset = 21) {
    std::vector<Node> nodes{node("TShape", {"x"}, {"s"})};
    for (auto& n : mid) nodes.push_back(std::move(n));
    nodes.push_back(node("TFromValue", {"v"}, {"shown"}));
    return run(std::move(nodes), {x}, std::move(inits), opset).last();
  };
  // Sum/Max/Min of three inputs; a single input passes through.
  CHECK(shown({node("Sum", {"s", "s", "k"}, {"v"})}, {ints("k", {1}, true)}) == "FLOAT[2*N+1,2*C+1]");
  CHECK(shown({node("Max", {"s", "k", "s"}, {"v"})}, {ints("k", {0, 0})}) == "FLOAT[N,C]");
  CHECK(shown({node("Min", {"s", "k", "j"}, {"v"})}, {ints("k", {0, 7}), ints("j", {3})}) == "FLOAT[0,min(C,3)]");
  CHECK(shown({node("Mean", {"s"}, {"v"})}, {}) == "FLOAT[N,C]");
  CHECK(shown({node("Mean", {"s", "s"}, {"v"})}, {}) == "FLOAT[*]");  // Mean of several: not tracked
  // Relu of sizes is the identity; Sign of constants.
  CHECK(shown({node("Relu", {"s"}, {"v"})}, {}) == "FLOAT[N,C]");
  auto sign = run({node("Sign", {"a"}, {"g"}), node("Add", {"g", "two"}, {"v"}), node("TFromValue", {"v"}, {"shown"})}, {},
                  {ints("a", {-5, 0, 9}), ints("two", {2}, true)});
  CHECK(sign.last() == "FLOAT[1,2,3]");
  // Opset 6 Add with broadcast = 1 propagates too (B is a scalar here).
  CHECK(shown({with(node("Add", {"s", "k"}, {"v"}), Attribute("broadcast", 1))}, {ints("k", {2}, true)}, 6) ==
        "FLOAT[N+2,C+2]");
  // Cast to BOOL of constants; And with a known false is false; Or with a known true is true.
  auto logic = run({with(node("Cast", {"a"}, {"b"}), Attribute("to", std::int64_t{9})),
                    node("Equal", {"s", "s"}, {"t"}),  // [1, 1]
                    node("And", {"b", "t"}, {"andv"}), node("Or", {"b", "t"}, {"orv"}),
                    node("Where", {"andv", "s", "k"}, {"w1"}), node("Where", {"orv", "k", "s"}, {"v"}),
                    node("TShape", {"x"}, {"s"}), node("TFromValue", {"w1"}, {"shown1"}),
                    node("TFromValue", {"v"}, {"shown"})},
                   {x}, {ints("a", {0, 3}), ints("k", {7}, true)});
  CHECK(logic.type("b") == "BOOL[2]");
  CHECK(logic.type("shown1") == "FLOAT[7,C]");
  CHECK(logic.last() == "FLOAT[7,7]");
}

TEST_CASE("value propagation: an operand alone decides Mul by 0, And, Or and Where, the others' contents unknown") {
  // u holds data (a graph input): its contents are not known, only that it has two elements.
  const In u{"u", DataType::INT64, {"2"}};
  const In c{"c", DataType::BOOL, {"2"}};
  const In fx{"f", DataType::FLOAT, {"2"}};
  auto shown = [&](std::vector<Node> mid, std::vector<Tensor> inits, const char* show = "TFromValue") {
    std::vector<Node> nodes{node("TShape", {"x"}, {"s"})};
    for (auto& n : mid) nodes.push_back(std::move(n));
    nodes.push_back(node(show, {"v"}, {"shown"}));
    return run(std::move(nodes), {{"x", DataType::FLOAT, {"N", "C"}}, u, c, fx}, std::move(inits)).last();
  };
  // An integer times 0 is 0 whatever it is: u * 0 + [2, 3] is [2, 3] (torch's `lengths.min() * 0 + 2`).
  CHECK(shown({node("Mul", {"u", "z"}, {"m"}), node("Add", {"m", "k"}, {"v"})}, {ints("z", {0}, true), ints("k", {2, 3})}) ==
        "FLOAT[2,3]");
  CHECK(shown({node("Mul", {"z", "u"}, {"v"})}, {ints("z", {0, 0})}) == "FLOAT[0,0]");
  // Only where the factor is 0: [0, ?].
  CHECK(shown({node("Mul", {"u", "z"}, {"v"})}, {ints("z", {0, 5})}, "TFromElements") == "FLOAT[0,unk__0]");
  CHECK(shown({node("Mul", {"u", "z"}, {"v"})}, {ints("z", {0, 5})}) == "FLOAT[*]");
  // A float times 0 is NaN for an infinity or a NaN: nothing is claimed.
  CHECK(shown({with(node("Cast", {"z"}, {"fz"}), Attribute("to", std::int64_t{1})), node("Mul", {"f", "fz"}, {"v"})},
              {ints("z", {0, 0})}, "TFromElements") == "FLOAT[*]");
  // Nothing known on either side: nothing claimed.
  CHECK(shown({node("Mul", {"u", "u"}, {"v"})}, {}, "TFromElements") == "FLOAT[*]");
  // And with false is false, Or with true is true; a known condition picks its branch.
  const std::vector<Node> to_bool{with(node("Cast", {"a"}, {"b"}), Attribute("to", std::int64_t{9}))};
  auto with_b = [&](std::vector<Node> rest) {
    std::vector<Node> all = to_bool;
    for (auto& n : rest) all.push_back(std::move(n));
    return all;
  };
  CHECK(shown(with_b({node("And", {"c", "b"}, {"w"}), node("Where", {"w", "s", "k"}, {"v"})}),
              {ints("a", {0, 1}), ints("k", {7}, true)}, "TFromElements") == "FLOAT[7,unk__0]");
  CHECK(shown(with_b({node("Or", {"b", "c"}, {"w"}), node("Where", {"w", "s", "k"}, {"v"})}),
              {ints("a", {0, 1}), ints("k", {7}, true)}, "TFromElements") == "FLOAT[unk__0,C]");
  CHECK(shown(with_b({node("And", {"c", "b"}, {"w"}), node("Where", {"w", "s", "k"}, {"v"})}),
              {ints("a", {0, 0}), ints("k", {7}, true)}) == "FLOAT[7,7]");
  // Where whose condition picks the known branch everywhere does not need the other's contents.
  CHECK(shown(with_b({node("Where", {"b", "s", "u"}, {"v"})}), {ints("a", {1, 1})}) == "FLOAT[N,C]");
  CHECK(shown(with_b({node("Where", {"b", "s", "u"}, {"v"})}), {ints("a", {0, 1})}, "TFromElements") ==
        "FLOAT[unk__0,C]");
  // A condition not known and one branch not known: nothing.
  CHECK(shown({node("Where", {"c", "s", "u"}, {"v"})}, {}, "TFromElements") == "FLOAT[*]");
}

// Checks a one-element `FLOAT[e]` printed by TFromValue, e an expression of the symbol S (or a
// constant), by value against `expected` at S = 0..40.
template <class F>
void check_over_S(const std::string& shown, F expected) {
  CAPTURE(shown);
  REQUIRE(shown.size() > 7);
  REQUIRE(shown.substr(0, 6) == "FLOAT[");
  const std::string body = shown.substr(6, shown.size() - 7);
  const auto symbol_of = [](std::string_view t) -> std::optional<std::int64_t> {
    return t == "S" ? std::optional<std::int64_t>(0) : std::nullopt;
  };
  auto e = parse_dim_expr(body, symbol_of);  // a symbolic size; a constant is not one
  if (!e && !body.empty() && body.find_first_not_of("-0123456789") == std::string::npos)
    e = DimExpr(static_cast<std::int64_t>(std::stoll(body)));
  REQUIRE(e);
  for (std::int64_t S = 0; S <= 40; ++S)
    CHECK(e->evaluate([&](std::int64_t) -> std::optional<std::int64_t> { return S; }) ==
          std::optional<std::int64_t>(expected(S)));
}

TEST_CASE("value propagation: integer Div of a size expression truncates toward zero (torch's (S-1)/2 before opset 11)") {
  const In x{"x", DataType::FLOAT, {"S"}};
  auto div = [&](std::int64_t minus, std::int64_t k) {
    return run({node("TShape", {"x"}, {"s"}), node("Sub", {"s", "m"}, {"d"}), node("Div", {"d", "k"}, {"v"}),
                node("TFromValue", {"v"}, {"shown"})},
               {x}, {ints("m", {minus}), ints("k", {k})})
        .last();
  };
  // (S-1)/2 truncates: S = 0 gives 0 (floor would give -1), S = 1 and 2 give 0, S = 3 gives 1.
  CHECK(div(1, 2) == "FLOAT[max(0,floor((S+1)/2)-1)]");
  // (S-2)/3: at least -2 = -(3-1), so 0 for S < 2... S = 0 gives 0, S = 5 gives 1.
  CHECK(div(2, 3) == "FLOAT[max(0,floor((S+1)/3)-1)]");
  // Any other numerator over a constant: the positive and the negative part divided apart.
  // Checked by value against C++'s truncating division, for divisors of both signs:
  // (S-2)/2 is -1 at S = 0 and 0 at S = 1, where floor gives -1.
  for (const auto& mk : std::vector<std::pair<std::int64_t, std::int64_t>>{
           {2, 2}, {7, 3}, {5, -2}, {-3, -4}, {1, -1}, {10, 7}, {0, -3}}) {
    const std::int64_t minus = mk.first, k = mk.second;
    CAPTURE(minus);
    CAPTURE(k);
    check_over_S(div(minus, k), [&](std::int64_t S) { return (S - minus) / k; });
  }
}

TEST_CASE("value propagation: Mod of a size expression of unknown sign by a constant, fmod = 0 and 1") {
  const In x{"x", DataType::FLOAT, {"S"}};
  auto mod_of = [&](std::int64_t minus, std::int64_t k, std::int64_t fmod) {
    return run({node("TShape", {"x"}, {"s"}), node("Sub", {"s", "m"}, {"d"}),
                with(node("Mod", {"d", "k"}, {"v"}), Attribute("fmod", fmod)), node("TFromValue", {"v"}, {"shown"})},
               {x}, {ints("m", {minus}), ints("k", {k})})
        .last();
  };
  // fmod = 1: the remainder takes the dividend's sign (C's %); fmod = 0: the divisor's (floor).
  // Checked by value for divisors of both signs; minus <= 0 keeps the dividend non-negative,
  // k = +-1 gives 0.
  for (const auto& mk : std::vector<std::pair<std::int64_t, std::int64_t>>{
           {5, 3}, {2, 2}, {7, -3}, {-3, -4}, {1, -1}, {10, 7}, {0, -3}, {13, 1}}) {
    const std::int64_t minus = mk.first, k = mk.second;
    CAPTURE(minus);
    CAPTURE(k);
    check_over_S(mod_of(minus, k, 1), [&](std::int64_t S) { return (S - minus) % k; });
    check_over_S(mod_of(minus, k, 0), [&](std::int64_t S) {
      const std::int64_t r = (S - minus) % k;
      return r != 0 && ((r < 0) != (k < 0)) ? r + k : r;
    });
  }
  // A divisor that is not a constant, with a dividend of unknown sign: not determined.
  auto sym = run({node("TShape", {"x"}, {"s"}), node("Sub", {"s", "m"}, {"d"}),
                  with(node("Mod", {"d", "s"}, {"v"}), Attribute("fmod", 1)), node("TFromValue", {"v"}, {"shown"})},
                 {x}, {ints("m", {5})});
  CHECK(sym.last() == "FLOAT[*]");
}

TEST_CASE("value propagation: a variadic Min or Sum folds a bounded amount of size arithmetic") {
  // Min and Sum of the shapes of k inputs [S0], [S1], ...: the running result holds one more
  // size at every step, so folding k operands costs about k^2/2 terms. A few operands fold; a
  // hostile node with thousands (a fuzzer found 900 in 45 KB taking seconds) leaves the
  // contents unknown with a warning, its output's shape still inferred.
  auto fold = [](const char* op, int k) {
    std::vector<In> xs;
    std::vector<Node> nodes;
    std::vector<std::string> shapes;
    for (int i = 0; i < k; ++i) {
      const std::string id = std::to_string(i);
      xs.push_back({"x" + id, DataType::FLOAT, {"S" + id}});
      nodes.push_back(node("TShape", {"x" + id}, {"s" + id}));
      shapes.push_back("s" + id);
    }
    nodes.push_back(node(op, shapes, {"v"}));
    nodes.push_back(node("TFromValue", {"v"}, {"shown"}));
    return run(std::move(nodes), xs);
  };
  const auto untracked = [](const Run& r) {
    return std::any_of(r.report.diagnostics.begin(), r.report.diagnostics.end(),
                       [](const Diagnostic& d) { return d.message.find("folded into one element") != std::string::npos; });
  };
  const Run min3 = fold("Min", 3);
  CHECK(min3.last() == "FLOAT[min(S0,S1,S2)]");
  CHECK_FALSE(untracked(min3));
  const Run sum4 = fold("Sum", 4);
  CHECK(sum4.last() == "FLOAT[S0+S1+S2+S3]");
  CHECK_FALSE(untracked(sum4));
  // 60 operands still fold within the bound (kFoldWork).
  const Run sum60 = fold("Sum", 60);
  CHECK(sum60.last().find("S59") != std::string::npos);
  CHECK_FALSE(untracked(sum60));
  for (const char* op : {"Min", "Sum"}) {
    CAPTURE(op);
    const Run big = fold(op, 2000);
    CHECK(big.last() == "FLOAT[*]");
    CHECK(big.type("v") == "INT64[1]");
    CHECK(untracked(big));
  }
}

}  // namespace oxir_unit_test_infer_elementwise
