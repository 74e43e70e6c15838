// Builder (rewrite/builder.hpp): fresh names, scopes, opset checks, outputs by renaming or
// Identity, subgraphs reading outer values, function bodies, omitted outputs, and failed calls
// leaving the graph as it was. Built models must pass oxir::check and infer to the shapes the
// operators define; tests/builder/ runs the example exports through onnx's checker and ONNX Runtime.
#include <doctest/doctest.h>

#include <oxir/analysis/check.hpp>
#include <oxir/infer.hpp>
#include <oxir/io.hpp>
#include <oxir/rewrite/builder.hpp>

#include <string>
#include <vector>

namespace oxir_unit_test_builder {

using namespace oxir;

namespace {
Model empty_model(std::int64_t opset = 21) {
  Model m;
  m.ir_version = 10;
  m.set_opset_version("", opset);
  m.graph.name = "built";
  return m;
}
std::string shape_of(const Model& m, std::string_view name) {
  const ValueInfo* vi = m.graph.find_value_info(name);
  if (!vi || !vi->type || !vi->type->as_tensor() || !vi->type->as_tensor()->shape) return "?";
  std::string s;
  for (const auto& d : vi->type->as_tensor()->shape->dims) {
    if (!s.empty()) s += ",";
    s += d.is_value() ? std::to_string(d.dim_value()) : d.is_param() ? d.dim_param() : "?";
  }
  return "[" + s + "]";
}
}  // namespace

TEST_CASE("Builder: a small model, fresh names, outputs by renaming") {
  Model m = empty_model();
  Builder b(m);
  Value x = b.input("X", Type::tensor(DataType::FLOAT, {"N", 8}));
  Value w = b.initializer(Tensor::from_values<float>("W", {8, 4}, std::vector<float>(32, 0.5f)));
  Value xw = b.op("MatMul", {x, w});
  Value r1 = b.op("Relu", {xw});
  Value r2 = b.op("Relu", {r1});
  CHECK(xw.name() == "MatMul_output_0");
  CHECK(r1.name() == "Relu_output_0");
  CHECK(r2.name() == "Relu_1_output_0");
  REQUIRE(m.graph.nodes.size() == 3);
  CHECK(m.graph.nodes[1].name == "Relu");
  CHECK(m.graph.nodes[2].name == "Relu_1");
  CHECK(m.graph.nodes[2].inputs == std::vector<std::string>{"Relu_output_0"});

  Value y = b.output(r2, "Y");
  CHECK(y == r2);  // renamed in place: the same handle
  CHECK(r2.name() == "Y");
  CHECK(m.graph.nodes[2].outputs == std::vector<std::string>{"Y"});
  REQUIRE(m.graph.outputs.size() == 1);
  CHECK(m.graph.outputs[0].name == "Y");
  CHECK_FALSE(m.graph.outputs[0].type.has_value());

  // The same value as a second output under another name: now it is an output, so an Identity.
  Value z = b.output(r2, "Z");
  CHECK(z.name() == "Z");
  REQUIRE(m.graph.nodes.size() == 4);
  CHECK(m.graph.nodes[3].op_type == "Identity");
  CHECK(m.graph.nodes[3].inputs == std::vector<std::string>{"Y"});
  // A graph input as an output under another name: an Identity too; under its own name: as is.
  CHECK(b.output(x, "X_copy").name() == "X_copy");
  CHECK(m.graph.nodes.size() == 5);
  b.output(x);
  CHECK(m.graph.nodes.size() == 5);
  CHECK(m.graph.outputs.back().name == "X");

  auto report = infer_shapes(m);  // fills the outputs' types, which check() requires
  CHECK_FALSE(report.has_errors());
  CHECK_MESSAGE(check(m).ok(), check(m).to_string());
  CHECK(shape_of(m, "Y") == "[N,4]");
  CHECK(shape_of(m, "Z") == "[N,4]");
  CHECK(shape_of(m, "MatMul_output_0") == "[N,4]");

  // What the builder wrote survives the codec.
  CHECK(parse_model(serialize_model(m)) == m);
}

TEST_CASE("Builder: names already in the model are reserved; scopes prefix fresh names") {
  Model m = empty_model();
  m.graph.inputs.emplace_back("A", Type::tensor(DataType::FLOAT, {2}));
  m.graph.nodes.push_back(Node("Neg", {"A"}, {"Neg_output_0"}, "Neg"));
  Graph inner;
  inner.outputs.emplace_back("Abs_output_0", Type{});
  inner.nodes.push_back(Node("Abs", {"A"}, {"Abs_output_0"}, "Abs"));
  Node holder("If", {"c"}, {"o"}, "holder");
  holder.attributes.emplace_back("then_branch", inner);
  m.graph.nodes.push_back(holder);

  Builder b(m);
  Value a = b.value("A");
  CHECK(b.op("Neg", {a}).name() == "Neg_1_output_0");
  CHECK(m.graph.nodes.back().name == "Neg_1");
  CHECK(b.op("Abs", {a}).name() == "Abs_1_output_0");  // names inside subgraphs are taken too
  {
    auto s = b.scope("encoder");
    auto t = b.scope("layer0");
    CHECK(b.op("Neg", {a}).name() == "encoder/layer0/Neg_output_0");
    CHECK(m.graph.nodes.back().name == "encoder/layer0/Neg");
  }
  CHECK(b.op("Neg", {a}).name() == "Neg_2_output_0");
  CHECK(b.fresh("holder") == "holder_1");
  CHECK(b.fresh("") == "value");
  // A name given explicitly must be new; a failed call leaves the graph alone.
  const Model before = m;
  CHECK_THROWS_AS(b.op("Neg", {a}, {}, {.outputs = {"A"}}), Error);
  CHECK_THROWS_AS(b.op("Neg", {a}, {}, {.name = "Neg"}), Error);
  CHECK_THROWS_AS(b.input("A", Type::tensor(DataType::FLOAT)), Error);
  CHECK_THROWS_AS(b.initializer(Tensor::from_values<float>("Neg_output_0", {1}, {1.f})), Error);
  CHECK_THROWS_AS(b.value("nothing"), Error);
  CHECK_THROWS_AS(b.value("holder"), Error);  // a node's name, not a value's
  CHECK(m == before);
  // The names of a failed call are free again.
  CHECK(b.op("Neg", {a}, {}, {.name = "mine", .outputs = {"out"}}).name() == "out");
  CHECK(m.graph.nodes.back().name == "mine");
}

TEST_CASE("Builder: operators need an imported domain; attributes and outputs are checked") {
  Model m = empty_model();
  Builder b(m);
  Value x = b.input("X", Type::tensor(DataType::FLOAT, {"N", 16}));
  const Model before = m;
  CHECK_THROWS_WITH_AS(b.op("Gelu", {x}, {}, {.domain = "com.microsoft"}),
                       doctest::Contains("com.microsoft"), Error);
  CHECK_THROWS_AS(b.op("", {x}), Error);
  CHECK_THROWS_AS(b.op("Softmax", {x}, {Attribute("axis", 1), Attribute("axis", 0)}), Error);
  CHECK_THROWS_AS(b.op_n("Split", {x}, 2, {}, {.outputs = {"a", "b", "c"}}), Error);
  CHECK_THROWS_AS(b.op_n("Split", {x}, 2, {}, {.omitted = {2}}), Error);
  CHECK(m == before);
  CHECK_FALSE(b.opset("com.microsoft").has_value());
  CHECK(b.opset("ai.onnx") == 21);

  m.set_opset_version("com.microsoft", 1);
  CHECK(b.opset("com.microsoft") == 1);
  Value g = b.op("Gelu", {x}, {}, {.domain = "com.microsoft"});
  CHECK(m.graph.nodes.back().domain == "com.microsoft");

  // Several outputs; a split into named and fresh outputs.
  auto parts = b.op_n("Split", {g}, 2, {Attribute("axis", 1), Attribute("num_outputs", 2)}, {.outputs = {"left"}});
  REQUIRE(parts.size() == 2);
  CHECK(parts[0].name() == "left");
  CHECK(parts[1].name() == "Split_output_1");
  // Omitted outputs: positions written as "", trailing ones dropped; their handles are absent.
  auto drop = b.op_n("Dropout", {parts[1]}, 2, {}, {.omitted = {1}});
  CHECK(drop[0].present());
  CHECK_FALSE(drop[1].present());
  CHECK(m.graph.nodes.back().outputs.size() == 1);
  // Absent inputs: written as "" before a present one (Clip without min), left out at the end
  // (LayerNormalization without a bias).
  Value hi = b.constant_scalar(6.0f);
  Value clipped = b.op("Clip", {drop[0], Value{}, hi});
  CHECK(m.graph.nodes.back().inputs == std::vector<std::string>{"Dropout_output_0", "", "Constant_output_0"});
  Value scale = b.initializer(Tensor::from_values<float>({}, {8}, std::vector<float>(8, 1.f)));
  CHECK(scale.name() == "initializer");
  Value ln = b.op("LayerNormalization", {clipped, scale, Value{}, Value{}}, {Attribute("axis", -1)});
  CHECK(m.graph.nodes.back().inputs == std::vector<std::string>{"Clip_output_0", "initializer"});
  b.output(parts[0], "L");
  b.output(ln, "LN", Type::tensor(DataType::FLOAT, {"N", 8}));
  auto report = infer_shapes(m);  // fills the outputs' types, which check() requires
  CHECK_FALSE(report.has_errors());
  CHECK_MESSAGE(check(m).ok(), check(m).to_string());
  CHECK(shape_of(m, "L") == "[N,8]");
  CHECK(shape_of(m, "LN") == "[N,8]");
}

TEST_CASE("Builder: If branches read outer values; values do not leak out of their graph") {
  Model m = empty_model(19);
  Builder b(m);
  Value c = b.input("cond", Type::tensor(DataType::BOOL, {}));
  Value x = b.input("X", Type::tensor(DataType::FLOAT, {"B", 3}));
  Value doubled = b.op("Add", {x, x});
  Value leaked;
  Graph then_g = b.subgraph("then", [&](Builder& t) {
    Value v = t.op("Mul", {doubled, x});  // outer values, read by name
    leaked = v;
    t.output(v, "then_out");
  });
  Graph else_g = b.subgraph("else", [&](Builder& e) { e.output(e.op("Neg", {x}), "else_out"); });
  CHECK(then_g.nodes.size() == 1);
  CHECK(then_g.outputs[0].name == "then_out");
  CHECK(else_g.nodes[0].name == "Neg");
  Value y = b.op("If", {c}, {Attribute("then_branch", then_g), Attribute("else_branch", else_g)});
  CHECK_THROWS_AS(b.op("Relu", {leaked}), Error);  // the branch's builder is gone; its values are not visible
  // `doubled` was read by a branch, so outputting it under another name goes through an Identity.
  const auto nodes_before = m.graph.nodes.size();
  b.output(doubled, "D");
  CHECK(m.graph.nodes.size() == nodes_before + 1);
  CHECK(doubled.name() == "Add_output_0");
  b.output(y, "Y");
  CHECK(m.graph.nodes[m.graph.nodes.size() - 2].outputs[0] == "Y");

  auto report = infer_shapes(m);  // fills the outputs' types, which check() requires
  CHECK_FALSE(report.has_errors());
  CHECK_MESSAGE(check(m).ok(), check(m).to_string());
  CHECK(shape_of(m, "Y") == "[B,3]");
  CHECK(shape_of(m, "D") == "[B,3]");
}

TEST_CASE("Builder: renaming an output follows reads in attached subgraphs") {
  Model m = empty_model(19);
  Builder b(m);
  Value c = b.input("cond", Type::tensor(DataType::BOOL, {}));
  Value x = b.input("X", Type::tensor(DataType::FLOAT, {4}));
  Value a = b.op("Abs", {x});
  // A subgraph written by hand (not by a builder) reads the value by its name.
  Graph g;
  g.name = "br";
  g.nodes.push_back(Node("Neg", {a.name()}, {"br_out"}, "br_neg"));
  g.outputs.emplace_back("br_out", Type{});
  Value y = b.op("If", {c}, {Attribute("then_branch", g), Attribute("else_branch", g)});
  b.output(a, "A");
  CHECK(a.name() == "A");
  CHECK(m.graph.nodes[1].attributes[0].as_graph().nodes[0].inputs[0] == "A");
  CHECK(m.graph.nodes[1].attributes[1].as_graph().nodes[0].inputs[0] == "A");
  b.output(y);
  CHECK_FALSE(infer_shapes(m).has_errors());
  CHECK_MESSAGE(check(m).ok(), check(m).to_string());
}

TEST_CASE("Builder: a model-local function, built and called") {
  Model m = empty_model(18);
  m.set_opset_version("local", 1);
  Function f;
  f.name = "Swish";
  f.domain = "local";
  f.opset_imports.push_back({"", 18, {}, {}});
  {
    Builder fb(f);
    Value in = fb.input("x");
    CHECK_THROWS_AS(fb.input("y", Type::tensor(DataType::FLOAT)), Error);
    CHECK_THROWS_AS(fb.initializer(Tensor::from_values<float>("w", {1}, {1.f})), Error);
    CHECK_THROWS_AS(fb.op("Gelu", {in}, {}, {.domain = "com.microsoft"}), Error);
    Value s = fb.op("Sigmoid", {in});
    fb.output(fb.op("Mul", {in, s}), "y");
  }
  CHECK(f.inputs == std::vector<std::string>{"x"});
  CHECK(f.outputs == std::vector<std::string>{"y"});
  REQUIRE(f.nodes.size() == 2);
  CHECK(f.nodes[1].outputs == std::vector<std::string>{"y"});
  m.functions.push_back(f);

  Builder b(m);
  Value x = b.input("X", Type::tensor(DataType::FLOAT, {"N", "C"}));
  Value half = b.constant_scalar(0.5f);
  Value y = b.op("Swish", {b.op("Mul", {x, half})}, {}, {.domain = "local"});
  b.output(y, "Y");
  Value shape = b.constant_ints({-1});
  b.output(b.op("Reshape", {y, shape}), "flat");
  auto report = infer_shapes(m);  // fills the outputs' types, which check() requires
  CHECK_FALSE(report.has_errors());
  CHECK_MESSAGE(check(m).ok(), check(m).to_string());
  CHECK(shape_of(m, "Y") == "[N,C]");
  CHECK(shape_of(m, "flat") == "[N*C]");
  CHECK(shape_of(m, "Constant_output_0") == "[]");
  CHECK(shape_of(m, "Constant_1_output_0") == "[1]");
}

TEST_CASE("Builder: a graph without a model; annotate; node_of") {
  Graph g;
  Builder b(g);
  Value x = b.input("x", Type::tensor(DataType::INT64, {3}));
  Value y = b.op("Foo", {x}, {}, {.domain = "anything"});  // no imports to check against
  b.annotate(y, Type::tensor(DataType::INT64, {3}));
  b.annotate(y, Type::tensor(DataType::INT64, {"K"}));
  REQUIRE(g.value_info.size() == 1);
  CHECK(g.value_info[0].type == Type::tensor(DataType::INT64, {"K"}));
  b.node_of(y).doc_string = "made by a test";
  CHECK(g.nodes[0].doc_string == "made by a test");
  CHECK_THROWS_AS(b.node_of(x), Error);
  CHECK_THROWS_AS(b.output(Value{}, "nothing"), Error);
  Value c = b.constant(Tensor::from_values<std::int64_t>("three", {}, {3}));
  CHECK(c.name() == "three");
  CHECK(g.nodes.back().op_type == "Constant");
  CHECK(g.nodes.back().attributes[0].as_tensor().name == "three");
}

}  // namespace oxir_unit_test_builder
