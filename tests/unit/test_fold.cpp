// fold_constants (rewrite/fold.hpp): static parts of shape computations become Constants,
// dynamic ones stay, value_info claims are not trusted, int32 contents, several outputs, graph
// outputs, models it must leave alone; then every libonnx-testdata model keeps its inferred
// output types and its checker verdict. (By hand, ONNX Runtime ran 42 real exports before and
// after folding: docs/object-model.md.)
#include <doctest/doctest.h>

#include <oxir/analysis/check.hpp>
#include <oxir/infer.hpp>
#include <oxir/io.hpp>
#include <oxir/rewrite/fold.hpp>

#include "corpus_util.hpp"

#include <string>
#include <vector>

namespace oxir_unit_test_fold {

using namespace oxir;

namespace {
Model base(std::vector<Dim> x_dims) {
  Model m;
  m.ir_version = 8;
  m.set_opset_version("", 17);
  m.graph.name = "g";
  m.graph.inputs.emplace_back("X", Type::tensor(DataType::FLOAT, Shape(std::move(x_dims))));
  return m;
}
Tensor ints(std::string name, std::vector<std::int64_t> dims, std::vector<std::int64_t> v) {
  return Tensor::from_values<std::int64_t>(std::move(name), std::move(dims), std::span<const std::int64_t>(v));
}
std::vector<std::string> ops_of(const Graph& g) {
  std::vector<std::string> r;
  for (const auto& n : g.nodes) r.push_back(n.op_type);
  return r;
}
std::vector<std::int64_t> constant_of(const Graph& g, std::string_view name) {
  for (const auto& n : g.nodes)
    if (n.op_type == "Constant" && n.outputs.size() == 1 && n.outputs[0] == name) {
      const Tensor& t = n.attributes.at(0).as_tensor();
      std::vector<std::int64_t> r;
      if (t.data_type == DataType::INT32)
        for (auto v : t.values<std::int32_t>()) r.push_back(v);
      else
        for (auto v : t.values<std::int64_t>()) r.push_back(v);
      return r;
    }
  return {-999};
}
}  // namespace

TEST_CASE("fold_constants: the static part of a shape computation") {
  Model m = base({"N", 3, 8, 8});
  Graph& g = m.graph;
  g.initializers.push_back(ints("one", {}, {1}));
  g.initializers.push_back(ints("zero", {1}, {0}));
  g.initializers.push_back(ints("minus1", {1}, {-1}));
  g.nodes.push_back(Node("Shape", {"X"}, {"s"}, "shape"));
  g.nodes.push_back(Node("Gather", {"s", "one"}, {"c"}, "gather_c"));           // 3: static
  g.nodes.push_back(Node("Unsqueeze", {"c", "zero"}, {"c1"}, "unsq"));
  g.nodes.push_back(Node("Concat", {"minus1", "c1"}, {"target"}, "concat"));   // [-1, 3]
  g.nodes.at(3).attributes.emplace_back("axis", 0);
  g.nodes.push_back(Node("Reshape", {"X", "target"}, {"Y"}, "reshape"));
  g.nodes.push_back(Node("Gather", {"s", "zero"}, {"n"}, "gather_n"));         // [N]: dynamic
  g.outputs.emplace_back("Y", Type::tensor(DataType::FLOAT));
  g.outputs.emplace_back("n", Type::tensor(DataType::INT64));
  g.outputs.emplace_back("c", Type::tensor(DataType::INT64));                 // a folded graph output

  const FoldCounts f = fold_constants(m);
  CHECK(f.nodes_folded == 3);  // gather_c, unsq, concat
  CHECK(f.constants == 3);
  CHECK(f.removed.nodes == 1);  // unsq's Constant: nothing reads it once concat is folded
  CHECK(ops_of(g) == std::vector<std::string>{"Shape", "Constant", "Constant", "Reshape", "Gather"});
  CHECK(g.nodes[1].name == "gather_c");  // a single output's Constant keeps the node's name
  CHECK(constant_of(g, "c") == std::vector<std::int64_t>{3});
  CHECK(constant_of(g, "target") == std::vector<std::int64_t>{-1, 3});
  CHECK(g.nodes[1].attributes[0].as_tensor().dims.empty());  // a scalar stays a scalar
  CHECK(g.value_info.empty());  // inference ran on a copy
  CHECK(fold_constants(m).nodes_folded == 0);  // a fixed point
  auto report = infer_shapes(m);
  CHECK_FALSE(report.has_errors());
  CHECK_MESSAGE(check(m).ok(), check(m).to_string());
}

TEST_CASE("fold_constants: value_info is a claim, not a fact; int32; several outputs; options") {
  SUBCASE("a size claimed in value_info does not fold a dynamic batch") {
    Model m = base({"N", 4});
    Graph& g = m.graph;
    g.initializers.push_back(ints("zero", {}, {0}));
    g.nodes.push_back(Node("Relu", {"X"}, {"r"}));
    g.nodes.push_back(Node("Shape", {"r"}, {"s"}));
    g.nodes.push_back(Node("Gather", {"s", "zero"}, {"batch"}));
    g.value_info.emplace_back("r", Type::tensor(DataType::FLOAT, {7, 4}));  // a claim, not a fact
    g.outputs.emplace_back("batch", Type::tensor(DataType::INT64, Shape{}));
    const Model before = m;
    CHECK(fold_constants(m).nodes_folded == 0);
    CHECK(m == before);
  }
  SUBCASE("nor does a size claimed by a declared output shape") {
    Model m = base({"N", 4});
    Graph& g = m.graph;
    g.initializers.push_back(ints("zero", {}, {0}));
    g.nodes.push_back(Node("Relu", {"X"}, {"r"}));
    g.nodes.push_back(Node("Shape", {"X"}, {"s"}));
    g.nodes.push_back(Node("Gather", {"s", "zero"}, {"batch"}));
    g.outputs.emplace_back("r", Type::tensor(DataType::FLOAT, {7, 4}));
    g.outputs.emplace_back("batch", Type::tensor(DataType::INT64, Shape{}));
    CHECK(fold_constants(m).nodes_folded == 0);
  }
  SUBCASE("int32 contents, a Split of a shape into two constants, remove_unused off") {
    Model m = base({2, 3, 5});
    Graph& g = m.graph;
    g.nodes.push_back(Node("Shape", {"X"}, {"s"}, "shape"));
    Node cast("Cast", {"s"}, {"s32"}, "cast");
    cast.attributes.emplace_back("to", static_cast<std::int64_t>(DataType::INT32));
    g.nodes.push_back(cast);
    g.initializers.push_back(ints("split", {2}, {1, 2}));
    g.nodes.push_back(Node("Split", {"s", "split"}, {"head", "tail"}, "split"));
    g.outputs.emplace_back("s32", Type::tensor(DataType::INT32));
    g.outputs.emplace_back("head", Type::tensor(DataType::INT64));
    g.outputs.emplace_back("tail", Type::tensor(DataType::INT64));
    const FoldCounts f = fold_constants(m, {.remove_unused = false});
    CHECK(f.nodes_folded == 3);
    CHECK(f.constants == 4);
    CHECK(f.removed == RemovedCounts{});
    CHECK(constant_of(g, "s32") == std::vector<std::int64_t>{2, 3, 5});
    CHECK(constant_of(g, "head") == std::vector<std::int64_t>{2});
    CHECK(constant_of(g, "tail") == std::vector<std::int64_t>{3, 5});
    CHECK(constant_of(g, "s") == std::vector<std::int64_t>{2, 3, 5});
    CHECK(g.nodes[1].attributes[0].as_tensor().data_type == DataType::INT32);
    CHECK(g.nodes[2].name == "split_0");
    CHECK(g.nodes[3].name == "split_1");
    CHECK(g.initializers.size() == 1);  // kept: remove_unused was off
    CHECK(fold_constants(m).removed.initializers == 1);
  }
  SUBCASE("an initializer that is also a graph input is a default, not a constant") {
    Model m;
    m.ir_version = 3;
    m.set_opset_version("", 9);
    m.graph.name = "g";
    m.graph.inputs.emplace_back("s", Type::tensor(DataType::INT64, {2}));
    m.graph.initializers.push_back(ints("s", {2}, {2, 3}));
    m.graph.initializers.push_back(ints("one", {2}, {1, 1}));
    m.graph.nodes.push_back(Node("Add", {"s", "one"}, {"t"}));
    m.graph.outputs.emplace_back("t", Type::tensor(DataType::INT64, {2}));
    Model fixed = m;
    CHECK(fold_constants(m).nodes_folded == 0);
    fixed.graph.inputs.clear();  // now s is a constant
    CHECK(fold_constants(fixed).nodes_folded == 1);
    CHECK(constant_of(fixed.graph, "t") == std::vector<std::int64_t>{3, 4});
  }
  SUBCASE("no default-domain import: no Constant to fold into") {
    Model m = base({2, 3});
    m.opset_imports.clear();
    m.set_opset_version("custom", 1);
    m.graph.nodes.push_back(Node("Shape", {"X"}, {"s"}));
    m.graph.outputs.emplace_back("s", Type::tensor(DataType::INT64));
    const Model before = m;
    CHECK(fold_constants(m).nodes_folded == 0);
    CHECK(m == before);
  }
}

TEST_CASE("fold_constants below opset 9 writes initializers: Constant-1 holds float types only") {
  for (const std::int64_t opset : {7, 8, 9, 13}) {
    CAPTURE(opset);
    Model m = base({2, 3});
    m.set_opset_version("", opset);
    Graph& g = m.graph;
    g.nodes.push_back(Node("Shape", {"X"}, {"s"}, "shape"));  // [2, 3]
    g.nodes.push_back(Node("Add", {"s", "s"}, {"Y"}, "add"));  // [4, 6]
    g.nodes.push_back(Node("Relu", {"X"}, {"R"}, "relu"));
    g.outputs.emplace_back("Y", Type::tensor(DataType::INT64, {2}));
    g.outputs.emplace_back("R", Type::tensor(DataType::FLOAT, {2, 3}));
    {
      Model probe = m;
      REQUIRE(infer_shapes(probe).type_errors == 0);
    }
    const FoldCounts f = fold_constants(m);
    CHECK(f.nodes_folded == 2);
    CHECK(f.constants == 2);
    CHECK(f.removed.nodes + f.removed.initializers == 1);  // s: nothing reads it any more
    if (opset < 9) {
      CHECK(ops_of(g) == std::vector<std::string>{"Relu"});
      const Tensor* y = g.find_initializer("Y");
      REQUIRE(y != nullptr);
      const auto v = y->values<std::int64_t>();
      CHECK(std::vector<std::int64_t>(v.begin(), v.end()) == std::vector<std::int64_t>{4, 6});
    } else {
      CHECK(ops_of(g) == std::vector<std::string>{"Constant", "Relu"});
      CHECK(constant_of(g, "Y") == std::vector<std::int64_t>{4, 6});
    }
    const auto report = check(m);
    CHECK_MESSAGE(report.ok(), report.to_string());
    Model probe = m;
    CHECK(infer_shapes(probe).type_errors == 0);
  }
  // IR 3: initializers would have to be graph inputs too; nothing is folded.
  Model old = base({2, 3});
  old.ir_version = 3;
  old.set_opset_version("", 7);
  old.graph.nodes.push_back(Node("Shape", {"X"}, {"Y"}));
  old.graph.outputs.emplace_back("Y", Type::tensor(DataType::INT64));
  const Model before = old;
  CHECK(fold_constants(old).nodes_folded == 0);
  CHECK(old == before);
}

TEST_CASE("fold_constants on every libonnx-testdata model: inferred output types and check verdicts unchanged") {
  if (!corpus::available()) {
    MESSAGE("libonnx-testdata not installed: skipped");
    return;
  }
  std::size_t folded = 0, touched = 0;
  const std::size_t models = corpus::for_each_model([&](const std::string& path, Model& m) {
    for (auto& o : m.graph.outputs) o.type.reset();
    m.graph.value_info.clear();
    Model before = m;
    const bool was_ok = check(before).ok();
    const FoldCounts f = fold_constants(m, {.remove_unused = false});
    folded += f.nodes_folded;
    if (f.nodes_folded) ++touched;
    Model after = m;
    (void)infer_shapes(before);
    (void)infer_shapes(after);
    for (std::size_t i = 0; i < before.graph.outputs.size(); ++i)
      CHECK_MESSAGE(before.graph.outputs[i].type == after.graph.outputs[i].type, path << " output " << i);
    if (was_ok) CHECK_MESSAGE(check(m).ok(), path);
  });
  MESSAGE(models << " models; " << folded << " nodes folded in " << touched);
  CHECK(models > 1000);
  CHECK(folded > 0);
}

}  // namespace oxir_unit_test_fold
