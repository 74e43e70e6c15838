// The structural checker (analysis/check.hpp) on hand-built models: one rule per case, with the
// path each issue names. tests/check/verify_check.py compares it with onnx's checker on the corpus.
#include <doctest/doctest.h>

#include <oxir/analysis/check.hpp>
#include <oxir/core/element_types.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace oxir_unit_test_check {

using namespace oxir;

namespace {
Node op(std::string type, std::vector<std::string> in, std::vector<std::string> out) {
  return Node(std::move(type), std::move(in), std::move(out));
}

// Y = Relu(Add(X, W)), IR 10, opset 21.
Model valid() {
  Model m;
  m.ir_version = 10;
  m.set_opset_version("", 21);
  m.graph.name = "g";
  m.graph.inputs.emplace_back("X", Type::tensor(DataType::FLOAT, {"N", 2}));
  m.graph.outputs.emplace_back("Y", Type::tensor(DataType::FLOAT, {"N", 2}));
  m.graph.initializers.push_back(Tensor::from_values<float>("W", {2}, std::vector<float>{1.f, 2.f}));
  m.graph.nodes.push_back(op("Add", {"X", "W"}, {"s"}));
  m.graph.nodes.push_back(op("Relu", {"s"}, {"Y"}));
  return m;
}

// The paths of the errors, in order.
std::vector<std::string> errors(const Model& m) {
  std::vector<std::string> r;
  for (const auto& i : check(m).issues)
    if (i.severity == CheckIssue::Severity::Error) r.push_back(i.path);
  return r;
}
}  // namespace

TEST_CASE("check: a well-formed model has no issues") {
  const CheckReport r = check(valid());
  CHECK(r.ok());
  CHECK(r.issues.empty());
  CHECK(r.to_string().empty());
}

TEST_CASE("check: model-level rules") {
  Model m = valid();
  m.ir_version = 0;
  CHECK(errors(m) == std::vector<std::string>{"model.ir_version"});
  m = valid();
  m.opset_imports.clear();
  CHECK(errors(m) == std::vector<std::string>{"model.opset_import", "graph.node[0]", "graph.node[1]"});
  m = valid();
  m.opset_imports.push_back({"ai.onnx", 21, {}, {}});  // the same import again: a warning
  auto r = check(m);
  CHECK(r.ok());
  REQUIRE(r.issues.size() == 1);
  CHECK(r.issues[0].severity == CheckIssue::Severity::Warning);
  m.opset_imports.back().version = 18;  // a second, different version: ambiguous
  CHECK(errors(m) == std::vector<std::string>{"model.opset_import[1]"});
  m = valid();
  m.graph.nodes[0].domain = "com.example";
  CHECK(errors(m) == std::vector<std::string>{"graph.node[0]"});
  m.set_opset_version("com.example", 1);
  CHECK(errors(m).empty());
}

TEST_CASE("check: the import rules hold for long lists of imports too") {
  // Lists of more than 8 imports are indexed rather than searched: the same verdicts either way.
  for (const std::size_t extra : {std::size_t{0}, std::size_t{3}, std::size_t{40}}) {
    CAPTURE(extra);
    Model m = valid();
    m.opset_imports.clear();
    for (std::size_t i = 0; i < extra; ++i) m.opset_imports.push_back({"d" + std::to_string(i), 1, {}, {}});
    m.opset_imports.push_back({"ai.onnx", 21, {}, {}});  // the default domain, last
    CHECK(errors(m).empty());
    m.graph.nodes[1].domain = "d2";
    CHECK(errors(m) == (extra > 2 ? std::vector<std::string>{} : std::vector<std::string>{"graph.node[1]"}));
    m.graph.nodes[1].domain = "other";
    CHECK(errors(m) == std::vector<std::string>{"graph.node[1]"});
    m.graph.nodes[1].domain = "";
    const std::string last = "model.opset_import[" + std::to_string(extra + 1) + "]";
    m.opset_imports.push_back({"", 21, {}, {}});  // the default domain again, other spelling, same version
    auto r = check(m);
    CHECK(r.ok());
    REQUIRE(r.issues.size() == 1);
    CHECK(r.issues[0].path == last);
    m.opset_imports.back().version = 18;
    CHECK(errors(m) == std::vector<std::string>{last});
    CHECK(check(m).to_string().find("(already at 21)") != std::string::npos);
    m.opset_imports.back() = {"d1", 2, {}, {}};  // a custom domain again, other version
    CHECK(errors(m) == (extra > 1 ? std::vector<std::string>{last} : std::vector<std::string>{}));
  }
}

TEST_CASE("check: names, order and definitions") {
  Model m = valid();
  std::swap(m.graph.nodes[0], m.graph.nodes[1]);  // Relu reads s before Add defines it
  auto r = check(m);
  CHECK(errors(m) == std::vector<std::string>{"graph.node[0].input[0]"});
  CHECK(r.to_string().find("topological order") != std::string::npos);

  m = valid();
  m.graph.nodes[1].outputs[0] = "X";  // a second definition of the input X; Y then defined nowhere
  CHECK(errors(m) == std::vector<std::string>{"graph.node[1].output[0]", "graph.output[0]"});

  m = valid();
  m.graph.nodes[0].inputs[1] = "nowhere";
  r = check(m);
  CHECK(errors(m) == std::vector<std::string>{"graph.node[0].input[1]"});
  CHECK(r.to_string().find("which nothing defines") != std::string::npos);

  m = valid();
  m.graph.name.clear();
  std::get<TensorType>(m.graph.inputs[0].type->value).shape.reset();  // no rank
  m.graph.nodes[1].outputs.clear();
  CHECK(errors(m) == std::vector<std::string>{"graph.name", "graph.input[0].type", "graph.node[1]", "graph.output[0]"});

  m = valid();
  m.graph.nodes[0].inputs[1] = "";  // an omitted optional input is fine
  CHECK(errors(m).empty());
}

TEST_CASE("check: initializers and IR versions") {
  Model m = valid();
  m.graph.initializers.push_back(m.graph.initializers[0]);
  CHECK(errors(m) == std::vector<std::string>{"graph.initializer[1]"});
  m = valid();
  m.graph.initializers[0].data_type = DataType::UNDEFINED;
  CHECK(errors(m) == std::vector<std::string>{"graph.initializer[0]"});
  m = valid();
  m.ir_version = 3;  // before IR 4 an initializer must also be a graph input
  CHECK(errors(m) == std::vector<std::string>{"graph.initializer[0]", "graph.node[0].input[1]"});
  m.graph.inputs.emplace_back("W", Type::tensor(DataType::FLOAT, {2}));
  CHECK(errors(m).empty());
}

TEST_CASE("check: a tensor's payload is what its dims and type call for, as load_model requires") {
  // W is float[2]: 8 bytes. One value, or three, is a model saved fine and refused when read back.
  Model m = valid();
  m.graph.initializers[0] = Tensor::from_values<float>("W", {2}, {1.f});
  CHECK(errors(m) == std::vector<std::string>{"graph.initializer[0].raw_data"});
  CHECK(check(m).to_string() == "error: graph.initializer[0].raw_data: 'W' holds 4 bytes of FLOAT data for dims that need 8\n");
  m.graph.initializers[0] = Tensor::from_values<float>("W", {2}, {1.f, 2.f, 3.f});
  CHECK(errors(m) == std::vector<std::string>{"graph.initializer[0].raw_data"});
  // Sub-byte types are packed: five int4 values take three bytes.
  m.graph.initializers[0] = Tensor::from_values<int4>("W", {5}, std::vector<int4>(5, int4(1)));
  CHECK(errors(m).empty());
  m.graph.initializers[0].dims = {6};
  CHECK(errors(m).empty());  // six take three bytes too
  m.graph.initializers[0].dims = {7};
  CHECK(errors(m) == std::vector<std::string>{"graph.initializer[0].raw_data"});
  m.graph.initializers[0].dims = {-1, 2};
  CHECK(errors(m) == std::vector<std::string>{"graph.initializer[0].dims[0]"});
  m.graph.initializers[0].dims = {INT64_MAX, INT64_MAX};
  CHECK(errors(m) == std::vector<std::string>{"graph.initializer[0].dims"});
  // Strings: one per element.
  m.graph.initializers[0] = Tensor::from_values<std::string>("W", {2}, {std::string("a")});
  CHECK(errors(m) == std::vector<std::string>{"graph.initializer[0].string_data"});
  // A segment holds part of a tensor, and external data is checked when it is read.
  m.graph.initializers[0] = Tensor::from_values<float>("W", {2}, {1.f});
  m.graph.initializers[0].segment = TensorSegment{0, 1, {}, {}};
  CHECK(errors(m).empty());
  m.graph.initializers[0].segment.reset();
  m.graph.initializers[0].data = Buffer{};
  m.graph.initializers[0].data_location = DataLocation::EXTERNAL;
  m.graph.initializers[0].external_data = {{"location", "w.bin", {}, {}}};
  CHECK(errors(m).empty());
  // Tensors in attributes: a Constant's value, a TENSORS list, a sparse tensor's values and indices.
  m = valid();
  m.graph.nodes.push_back(op("Constant", {}, {"c"}));
  m.graph.nodes.back().set_attribute(Attribute("value", Tensor::from_values<std::int64_t>("", {3}, {1, 2})));
  CHECK(errors(m) == std::vector<std::string>{"graph.node[2].attribute[0].t.raw_data"});
  m.graph.nodes.back().attributes[0] = Attribute("value", std::vector<Tensor>{Tensor::from_values<float>("", {1}, {1.f}),
                                                                             Tensor::from_values<float>("", {2}, {1.f})});
  CHECK(errors(m) == std::vector<std::string>{"graph.node[2].attribute[0].tensors[1].raw_data"});
  SparseTensor sp;
  sp.dims = {4};
  sp.values = Tensor::from_values<float>("", {2}, {1.f, 2.f});
  sp.indices = Tensor::from_values<std::int64_t>("", {2}, {0});
  m.graph.nodes.back().attributes[0] = Attribute("sparse_value", sp);
  CHECK(errors(m) == std::vector<std::string>{"graph.node[2].attribute[0].sparse_tensor.indices.raw_data"});
  sp.indices = Tensor::from_values<std::int64_t>("", {2}, {0, 3});
  m.graph.nodes.back().attributes[0] = Attribute("sparse_value", sp);
  CHECK(errors(m).empty());
}

TEST_CASE("check: attributes") {
  Model m = valid();
  Node& relu = m.graph.nodes[1];
  relu.attributes.push_back(Attribute("alpha", 0.5f));
  relu.attributes.push_back(Attribute("alpha", 0.5f));
  CHECK(errors(m) == std::vector<std::string>{"graph.node[1].attribute[1]"});
  relu.attributes.pop_back();
  relu.attributes[0].type = AttributeType::INT;  // declared INT, holds a FLOAT
  CHECK(errors(m) == std::vector<std::string>{"graph.node[1].attribute[0]"});
  relu.attributes[0] = Attribute::reference("alpha", "a", AttributeType::FLOAT);  // only in a function body
  CHECK(errors(m) == std::vector<std::string>{"graph.node[1].attribute[0]"});
  relu.attributes[0] = Attribute("alpha", 0.5f);
  relu.attributes[0].value = std::monostate{};  // FLOAT with no value
  CHECK(errors(m) == std::vector<std::string>{"graph.node[1].attribute[0]"});
  relu.attributes[0] = Attribute("pads", std::vector<std::int64_t>{});  // an empty list is a value
  CHECK(errors(m).empty());
}

TEST_CASE("check: subgraphs see outer names and may not redefine them") {
  Model m = valid();
  Graph then_g;
  then_g.name = "then";
  then_g.nodes.push_back(op("Neg", {"s"}, {"t"}));  // reads the outer s, defined before the If
  then_g.outputs.emplace_back("t", Type{});
  Graph else_g = then_g;
  else_g.name = "else";
  Node if_node = op("If", {"c"}, {"Z"});
  if_node.set_attribute({"then_branch", then_g});
  if_node.set_attribute({"else_branch", else_g});
  m.graph.inputs.emplace_back("c", Type::tensor(DataType::BOOL, {}));
  m.graph.nodes.insert(m.graph.nodes.begin() + 1, if_node);
  CHECK(errors(m).empty());
  // An If before Add: its branches read s before anything defines it.
  std::swap(m.graph.nodes[0], m.graph.nodes[1]);
  CHECK(errors(m) == std::vector<std::string>{"graph.node[0].attribute[0].g.node[0].input[0]",
                                              "graph.node[0].attribute[1].g.node[0].input[0]"});
  std::swap(m.graph.nodes[0], m.graph.nodes[1]);
  // A branch whose node output is an outer name (SSA across scopes), and a branch with no name.
  auto& tg = m.graph.nodes[1].attributes[0].as_graph();
  tg.nodes[0].outputs[0] = "X";
  tg.outputs[0].name = "X";
  m.graph.nodes[1].attributes[1].as_graph().name.clear();
  CHECK(errors(m) == std::vector<std::string>{"graph.node[1].attribute[0].g.node[0].output[0]",
                                              "graph.node[1].attribute[1].g.name"});
}

TEST_CASE("check: functions and training information") {
  Model m = valid();
  Function f;
  f.name = "Scale";
  f.domain = "local";
  f.inputs = {"x"};
  f.outputs = {"y"};
  f.attributes = {"k"};
  f.opset_imports.push_back({"", 21, {}, {}});
  Node mul = op("Mul", {"x", "x"}, {"y"});
  mul.attributes.push_back(Attribute::reference("unused", "k", AttributeType::FLOAT));  // allowed in a body
  f.nodes.push_back(mul);
  m.functions.push_back(f);
  m.set_opset_version("local", 1);
  CHECK(errors(m).empty());
  m.functions.push_back(f);  // the same (domain, name, overload) twice
  CHECK(errors(m) == std::vector<std::string>{"model.functions[1]"});
  m.functions.pop_back();
  m.functions[0].nodes[0].inputs[1] = "s";  // a body reads only its inputs and its own values
  m.functions[0].outputs.push_back("missing");
  CHECK(errors(m) == std::vector<std::string>{"model.functions[0].node[0].input[1]", "model.functions[0].output[1]"});

  m = valid();
  TrainingInfo t;
  t.algorithm.name = "step";
  t.algorithm.nodes.push_back(op("Sub", {"W", "W"}, {"W_new"}));  // reads the main graph's initializer
  t.algorithm.outputs.emplace_back("W_new", Type{});
  t.update_binding.push_back({"W", "W_new", {}, {}});
  m.training_info.push_back(t);
  CHECK(errors(m).empty());
  m.training_info[0].algorithm.nodes[0].inputs[0] = "s";  // a main-graph intermediate is not state
  CHECK(errors(m) == std::vector<std::string>{"model.training_info[0].algorithm.node[0].input[0]"});
}

}  // namespace oxir_unit_test_check
