// fold_constants (rewrite/fold.hpp): static parts of shape computations become Constants,
// nodes of constant tensors are evaluated (only where the result is exactly defined), dynamic
// ones stay, value_info claims are not trusted, int32 contents, several outputs, graph
// outputs, models it must leave alone; then every libonnx-testdata model keeps its inferred
// output types and its checker verdict. (By hand, ONNX Runtime ran 42 real exports before and
// after folding: docs/object-model.md.)
#include <doctest/doctest.h>

#include <oxir/analysis/check.hpp>
#include <oxir/infer.hpp>
#include <oxir/io.hpp>
#include <oxir/io/text.hpp>
#include <oxir/rewrite/fold.hpp>

#include "corpus_util.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
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

namespace {
/// The tensor a Constant node (or, below opset 9, an initializer) holds for `name`; nullptr if none.
const Tensor* folded_value(const Graph& g, std::string_view name) {
  for (const auto& n : g.nodes)
    if (n.op_type == "Constant" && n.outputs.size() == 1 && n.outputs[0] == name &&
        n.attributes.at(0).kind() == AttributeType::TENSOR)
      return &n.attributes[0].as_tensor();
  for (const auto& t : g.initializers)
    if (t.name == name) return &t;
  return nullptr;
}
template <class T>
std::vector<T> values_of(const Graph& g, std::string_view name) {
  const Tensor* t = folded_value(g, name);
  if (!t) return {};
  auto v = t->values<T>();
  return {v.begin(), v.end()};
}
template <class... A>
Node with(Node n, A... a) {
  (n.attributes.push_back(std::move(a)), ...);
  return n;
}
Tensor floats(std::string name, std::vector<std::int64_t> dims, std::vector<float> v) {
  return Tensor::from_values<float>(std::move(name), std::move(dims), std::span<const float>(v));
}
Attribute to(DataType t) { return Attribute("to", static_cast<std::int64_t>(t)); }
}  // namespace

TEST_CASE("fold_constants evaluates nodes of constant tensors") {
  SUBCASE("a weight's Transpose, then a chain of data movement, Cast and arithmetic") {
    Model m = base({2, 3});
    Graph& g = m.graph;
    g.initializers.push_back(floats("W", {3, 2}, {1, 2, 3, 4, 5, 6}));
    g.nodes.push_back(Node("Transpose", {"W"}, {"WT"}, "t"));  // [[1,3,5],[2,4,6]]
    g.nodes.push_back(Node("Add", {"X", "WT"}, {"Y"}));
    g.nodes.push_back(with(Node("Constant", {}, {"c"}), Attribute("value_ints", std::vector<std::int64_t>{7, -8, 9})));
    g.nodes.push_back(with(Node("Cast", {"c"}, {"cf"}), to(DataType::FLOAT)));
    g.initializers.push_back(ints("axes", {1}, {0}));
    g.nodes.push_back(Node("Unsqueeze", {"cf", "axes"}, {"row"}));             // [[7,-8,9]]
    g.nodes.push_back(with(Node("Concat", {"WT", "row"}, {"cat"}), Attribute("axis", std::int64_t{-2})));  // 3x3
    g.initializers.push_back(ints("st", {1}, {-1}));
    g.initializers.push_back(ints("en", {1}, {std::numeric_limits<std::int64_t>::min()}));
    g.initializers.push_back(ints("ax", {1}, {1}));
    g.initializers.push_back(ints("sp", {1}, {-2}));
    g.nodes.push_back(Node("Slice", {"cat", "st", "en", "ax", "sp"}, {"sl"}));  // columns 2, 0
    g.initializers.push_back(ints("idx", {2}, {-1, 0}));
    g.nodes.push_back(Node("Gather", {"sl", "idx"}, {"ga"}));                   // rows 2, 0
    g.nodes.push_back(Node("Mul", {"ga", "cf"}, {"bad_shape"}));                // [2,2] * [3]: no broadcast
    g.initializers.push_back(floats("half", {}, {0.5f}));
    g.nodes.push_back(Node("Div", {"ga", "half"}, {"twice"}));
    g.nodes.push_back(Node("Neg", {"twice"}, {"neg"}));
    g.outputs.emplace_back("Y", Type::tensor(DataType::FLOAT));
    g.outputs.emplace_back("neg", Type::tensor(DataType::FLOAT));
    g.outputs.emplace_back("bad_shape", Type::tensor(DataType::FLOAT));
    Model kept = m;
    const FoldCounts f = fold_constants(kept, {.remove_unused = false});
    CHECK(f.tensor_nodes == 8);  // Transpose Cast Unsqueeze Concat Slice Gather Div Neg (not the Mul)
    CHECK(values_of<float>(kept.graph, "cat") == std::vector<float>{1, 3, 5, 2, 4, 6, 7, -8, 9});
    CHECK(values_of<float>(kept.graph, "sl") == std::vector<float>{5, 1, 6, 2, 9, 7});
    CHECK(fold_constants(m).tensor_nodes == 8);
    CHECK(values_of<float>(g, "WT") == std::vector<float>{1, 3, 5, 2, 4, 6});
    CHECK(folded_value(g, "WT")->dims == std::vector<std::int64_t>{2, 3});
    CHECK(g.nodes[0].name == "t");
    CHECK(values_of<float>(g, "ga") == std::vector<float>{9, 7, 5, 1});
    CHECK(values_of<float>(g, "neg") == std::vector<float>{-18, -14, -10, -2});
    CHECK(folded_value(g, "neg")->dims == std::vector<std::int64_t>{2, 2});
    CHECK(folded_value(g, "bad_shape") == nullptr);  // the invalid Mul stays, reading its folded inputs
    CHECK(ops_of(g) == std::vector<std::string>{"Constant", "Add", "Constant", "Constant", "Mul", "Constant"});
    CHECK(g.initializers.empty());  // all read by folded nodes only, then removed
  }
  SUBCASE("Cast only where the result is exactly defined") {
    Model m = base({1});
    Graph& g = m.graph;
    const float nan = std::numeric_limits<float>::quiet_NaN();
    g.initializers.push_back(floats("ok", {4}, {1.9f, -1.9f, -0.5f, 127.f}));
    g.initializers.push_back(floats("big", {1}, {3e9f}));
    g.initializers.push_back(floats("halfs", {4}, {65504.f, 65520.f, 65519.f, 1e-8f}));
    g.initializers.push_back(floats("nan", {1}, {nan}));
    g.initializers.push_back(ints("i", {3}, {(1 << 24), -(1 << 24), 300}));
    g.initializers.push_back(ints("i_odd", {1}, {(1 << 24) + 1}));
    g.nodes.push_back(with(Node("Cast", {"ok"}, {"ok8"}), to(DataType::INT8)));
    g.nodes.push_back(with(Node("Cast", {"big"}, {"big32"}), to(DataType::INT32)));        // out of range
    g.nodes.push_back(with(Node("Cast", {"halfs"}, {"h"}), to(DataType::FLOAT16)));
    g.nodes.push_back(with(Node("Cast", {"nan"}, {"nan16"}), to(DataType::FLOAT16)));     // NaN to float16
    g.nodes.push_back(with(Node("Cast", {"nan"}, {"nan64"}), to(DataType::DOUBLE)));
    g.nodes.push_back(with(Node("Cast", {"i"}, {"i16"}), to(DataType::FLOAT16)));
    g.nodes.push_back(with(Node("Cast", {"i_odd"}, {"odd16"}), to(DataType::BFLOAT16)));  // not a float
    g.nodes.push_back(with(Node("Cast", {"i"}, {"iu8"}), to(DataType::UINT8)));
    g.nodes.push_back(with(Node("Cast", {"halfs"}, {"hb"}), to(DataType::BOOL)));
    for (const char* o : {"ok8", "big32", "h", "nan16", "nan64", "i16", "odd16", "iu8", "hb"})
      g.outputs.emplace_back(o, Type{});
    const FoldCounts f = fold_constants(m);
    CHECK(f.tensor_nodes == 6);
    CHECK(values_of<std::int8_t>(g, "ok8") == std::vector<std::int8_t>{1, -1, 0, 127});
    CHECK(folded_value(g, "big32") == nullptr);
    CHECK(folded_value(g, "nan16") == nullptr);
    CHECK(folded_value(g, "odd16") == nullptr);
    const Tensor* h = folded_value(g, "h");
    REQUIRE(h != nullptr);
    CHECK(h->data_type == DataType::FLOAT16);
    // 65504 is the largest float16; 65520 rounds up to Inf; 65519 down; 1e-8 under half the
    // smallest subnormal (2^-25, about 2.98e-8) to zero
    CHECK(h->element<float16>(0).bits() == 0x7BFF);
    CHECK(h->element<float16>(1).bits() == 0x7C00);
    CHECK(h->element<float16>(2).bits() == 0x7BFF);
    CHECK(h->element<float16>(3).bits() == 0x0000);
    const auto n64 = values_of<double>(g, "nan64");
    REQUIRE(n64.size() == 1);
    CHECK(std::isnan(n64[0]));
    const Tensor* i16 = folded_value(g, "i16");
    REQUIRE(i16 != nullptr);
    CHECK(std::isinf(static_cast<float>(i16->element<float16>(0))));
    CHECK(static_cast<float>(i16->element<float16>(2)) == 300.f);
    CHECK(values_of<std::uint8_t>(g, "iu8") == std::vector<std::uint8_t>{0, 0, 44});  // modulo 256
    CHECK(values_of<bool>(g, "hb") == std::vector<bool>{true, true, true, true});
  }
  SUBCASE("integer arithmetic wraps; division by zero and INT_MIN / -1 stay") {
    Model m = base({1});
    Graph& g = m.graph;
    const std::int32_t big = std::numeric_limits<std::int32_t>::max();
    const std::int32_t small = std::numeric_limits<std::int32_t>::min();
    g.initializers.push_back(Tensor::from_values<std::int32_t>("a", {3}, {big, -7, small}));
    g.initializers.push_back(Tensor::from_values<std::int32_t>("one", {}, {1}));
    g.initializers.push_back(Tensor::from_values<std::int32_t>("two", {}, {2}));
    g.initializers.push_back(Tensor::from_values<std::int32_t>("zero", {}, {0}));
    g.initializers.push_back(Tensor::from_values<std::int32_t>("m1", {1}, {-1}));
    g.nodes.push_back(Node("Add", {"a", "one"}, {"sum"}));
    g.nodes.push_back(Node("Div", {"a", "two"}, {"q"}));
    g.nodes.push_back(Node("Div", {"a", "zero"}, {"q0"}));
    g.nodes.push_back(Node("Div", {"a", "m1"}, {"qm"}));
    g.nodes.push_back(Node("Neg", {"a"}, {"n"}));
    for (const char* o : {"sum", "q", "q0", "qm", "n"}) g.outputs.emplace_back(o, Type{});
    CHECK(fold_constants(m).nodes_folded == 3);  // Add and Neg as shape computations, Div evaluated
    CHECK(values_of<std::int32_t>(g, "sum") == std::vector<std::int32_t>{small, -6, small + 1});
    CHECK(values_of<std::int32_t>(g, "q") == std::vector<std::int32_t>{big / 2, -3, small / 2});  // toward zero
    CHECK(values_of<std::int32_t>(g, "n") == std::vector<std::int32_t>{-big, 7, small});
    CHECK(folded_value(g, "q0") == nullptr);
    CHECK(folded_value(g, "qm") == nullptr);
  }
  SUBCASE("invalid data stays; the size limit; tensors off") {
    Model m = base({1});
    Graph& g = m.graph;
    g.initializers.push_back(floats("v", {2, 3}, {1, 2, 3, 4, 5, 6}));
    g.initializers.push_back(ints("far", {1}, {2}));
    g.initializers.push_back(ints("shape5", {1}, {5}));
    g.initializers.push_back(ints("big", {2}, {1024, 1024}));
    g.nodes.push_back(Node("Gather", {"v", "far"}, {"g"}));       // row 2 of 2
    g.nodes.push_back(Node("Reshape", {"v", "shape5"}, {"r"}));   // 6 elements into 5
    g.nodes.push_back(Node("Expand", {"v", "big"}, {"e"}));       // [2,3] to [1024,1024]: no broadcast
    g.nodes.push_back(with(Node("ConstantOfShape", {"big"}, {"z"}), Attribute("value", floats("", {1}, {1.f}))));
    for (const char* o : {"g", "r", "e", "z"}) g.outputs.emplace_back(o, Type{});
    Model copy = m;
    CHECK(fold_constants(m).tensor_nodes == 0);  // 4 MiB of ones is more than 1 MiB
    CHECK(fold_constants(copy, {.max_tensor_bytes = std::uint64_t{4} << 20}).tensor_nodes == 1);
    const Tensor* z = folded_value(copy.graph, "z");
    REQUIRE(z != nullptr);
    CHECK(z->dims == std::vector<std::int64_t>{1024, 1024});
    CHECK(z->element<float>(1024 * 1024 - 1) == 1.f);
    Model off = base({1});
    off.graph.initializers.push_back(floats("v", {2}, {1, 2}));
    off.graph.nodes.push_back(Node("Neg", {"v"}, {"n"}));
    off.graph.outputs.emplace_back("n", Type{});
    const Model before = off;
    CHECK(fold_constants(off, {.tensors = false}).nodes_folded == 0);
    CHECK(off == before);
  }
  SUBCASE("an invalid node stays, and so does everything computed from it") {
    Model m = base({1});
    Graph& g = m.graph;
    g.initializers.push_back(ints("v", {2}, {32, 39}));
    g.initializers.push_back(ints("s", {1}, {3}));
    g.initializers.push_back(ints("one", {}, {1}));
    g.nodes.push_back(Node("Expand", {"v", "s"}, {"e"}));  // [2] to [3]: 2 and 3 do not broadcast
    g.nodes.push_back(Node("Add", {"e", "one"}, {"y"}));
    g.nodes.push_back(with(Node("Cast", {"y"}, {"f"}), to(DataType::FLOAT)));
    g.nodes.push_back(Node("Add", {"v", "one"}, {"fine"}));
    g.outputs.emplace_back("f", Type::tensor(DataType::FLOAT, {3}));
    g.outputs.emplace_back("fine", Type::tensor(DataType::INT64, {2}));
    const FoldCounts f = fold_constants(m);
    CHECK(f.nodes_folded == 1);
    CHECK(ops_of(g) == std::vector<std::string>{"Expand", "Add", "Cast", "Constant"});
    CHECK(constant_of(g, "fine") == std::vector<std::int64_t>{33, 40});
  }
  SUBCASE("exact casts at the edges; narrow integer arithmetic; opset 6's equal shapes; Slice's INT_MAX end") {
    Model m = base({1});
    m.set_opset_version("", 14);
    Graph& g = m.graph;
    g.initializers.push_back(ints("wide", {4}, {std::int64_t{1} << 31, -(std::int64_t{19} << 32),
                                                std::numeric_limits<std::int64_t>::min(), (1 << 24) + 2}));
    g.initializers.push_back(ints("odd", {1}, {(std::int64_t{1} << 31) + 1}));
    g.initializers.push_back(Tensor::from_values<double>("d", {4}, {3.4028235e38, -3.4028235677e38, 1e300, 6e-39}));
    g.initializers.push_back(Tensor::from_values<std::uint8_t>("u", {2}, {250, 3}));
    g.initializers.push_back(Tensor::from_values<std::uint8_t>("u10", {}, {10}));
    g.initializers.push_back(floats("v", {3}, {1, 2, 3}));
    g.initializers.push_back(ints("st", {1}, {0}));
    g.initializers.push_back(ints("far", {1}, {std::numeric_limits<std::int64_t>::max()}));
    g.initializers.push_back(ints("m1", {1}, {-1}));
    g.nodes.push_back(with(Node("Cast", {"wide"}, {"bf"}), to(DataType::BFLOAT16)));
    g.nodes.push_back(with(Node("Cast", {"odd"}, {"bf_odd"}), to(DataType::BFLOAT16)));
    g.nodes.push_back(with(Node("Cast", {"d"}, {"f"}), to(DataType::FLOAT)));
    g.nodes.push_back(Node("Add", {"u", "u10"}, {"us"}));
    g.nodes.push_back(Node("Mul", {"u", "u"}, {"um"}));
    g.nodes.push_back(Node("Slice", {"v", "st", "far", "st", "m1"}, {"back"}));  // INT_MAX end, step -1
    for (const char* o : {"bf", "bf_odd", "f", "us", "um", "back"}) g.outputs.emplace_back(o, Type{});
    CHECK(fold_constants(m).tensor_nodes == 4);
    const Tensor* bf = folded_value(g, "bf");
    REQUIRE(bf != nullptr);
    CHECK(static_cast<double>(bf->element<bfloat16>(0)) == 2147483648.0);
    CHECK(static_cast<double>(bf->element<bfloat16>(1)) == -19.0 * 4294967296.0);
    CHECK(static_cast<double>(bf->element<bfloat16>(2)) == -9223372036854775808.0);
    CHECK(static_cast<double>(bf->element<bfloat16>(3)) == 16777216.0);  // 2^24 + 2 to bfloat16's 8 bits
    CHECK(folded_value(g, "bf_odd") == nullptr);  // 2^31 + 1 is not a float
    const auto fl = values_of<float>(g, "f");
    REQUIRE(fl.size() == 4);
    CHECK(fl[0] == std::numeric_limits<float>::max());   // rounds down to the largest float
    CHECK(fl[1] == -std::numeric_limits<float>::max());  // just below the midpoint 2^128 - 2^103 (3.40282356779...e38)
    CHECK(std::isinf(fl[2]));
    CHECK(fl[3] == static_cast<float>(6e-39));  // a subnormal float
    CHECK(values_of<std::uint8_t>(g, "us") == std::vector<std::uint8_t>{4, 13});
    CHECK(values_of<std::uint8_t>(g, "um") == std::vector<std::uint8_t>{36, 9});  // 62,500 mod 256
    CHECK(folded_value(g, "back") == nullptr);

    Model old = base({1});
    old.set_opset_version("", 6);
    old.graph.initializers.push_back(floats("a", {2}, {1, 2}));
    old.graph.initializers.push_back(floats("b", {2}, {10, 20}));
    old.graph.initializers.push_back(floats("c", {1}, {5}));
    old.graph.nodes.push_back(Node("Add", {"a", "b"}, {"s"}));
    old.graph.nodes.push_back(Node("Add", {"a", "c"}, {"t"}));  // broadcasting needs broadcast = 1 at 6
    old.graph.outputs.emplace_back("s", Type{});
    old.graph.outputs.emplace_back("t", Type{});
    CHECK(fold_constants(old).tensor_nodes == 1);
    CHECK(values_of<float>(old.graph, "s") == std::vector<float>{11, 22});
    CHECK(folded_value(old.graph, "t") == nullptr);
  }
  SUBCASE("Where, comparisons, logic and Abs") {
    Model m = base({1});
    Graph& g = m.graph;
    const float nan = std::numeric_limits<float>::quiet_NaN();
    g.initializers.push_back(floats("a", {4}, {1.f, nan, -0.f, -2.f}));
    g.initializers.push_back(floats("b", {}, {0.f}));
    g.initializers.push_back(Tensor::from_values<std::int8_t>("i", {3}, {-128, -5, 7}));
    g.initializers.push_back(Tensor::from_values<std::int8_t>("j", {2}, {-5, 7}));
    g.nodes.push_back(Node("Less", {"a", "b"}, {"lt"}));             // NaN < 0 is false; -0 < 0 too
    g.nodes.push_back(Node("GreaterOrEqual", {"a", "b"}, {"ge"}));   // -0 >= 0
    g.nodes.push_back(Node("Equal", {"a", "a"}, {"eq"}));            // NaN != NaN
    g.nodes.push_back(Node("Not", {"eq"}, {"ne"}));
    g.nodes.push_back(Node("Xor", {"lt", "ge"}, {"x"}));
    g.nodes.push_back(Node("Where", {"lt", "b", "a"}, {"w"}));       // a scalar broadcast
    g.nodes.push_back(Node("Abs", {"a"}, {"abs"}));
    g.nodes.push_back(Node("Abs", {"i"}, {"abs_min"}));              // |-128| is not an int8
    g.nodes.push_back(Node("Abs", {"j"}, {"abs_i"}));
    for (const char* o : {"ne", "x", "w", "abs", "abs_min", "abs_i"}) g.outputs.emplace_back(o, Type{});
    CHECK(fold_constants(m).tensor_nodes == 8);
    CHECK(values_of<bool>(g, "ne") == std::vector<bool>{false, true, false, false});
    CHECK(values_of<bool>(g, "x") == std::vector<bool>{true, false, true, true});
    const auto w = values_of<float>(g, "w");
    REQUIRE(w.size() == 4);
    CHECK(w[0] == 1.f);
    CHECK(std::isnan(w[1]));
    CHECK((w[2] == 0.f && std::signbit(w[2])));
    CHECK(w[3] == 0.f);
    const auto ab = values_of<float>(g, "abs");
    REQUIRE(ab.size() == 4);
    CHECK((std::isnan(ab[1]) && !std::signbit(ab[1])));
    CHECK((ab[2] == 0.f && !std::signbit(ab[2])));
    CHECK(ab[3] == 2.f);
    CHECK(folded_value(g, "abs_min") == nullptr);
    CHECK(values_of<std::int8_t>(g, "abs_i") == std::vector<std::int8_t>{5, 7});
  }
  SUBCASE("empty tensors whose other dims are huge: nothing is allocated or looped over for them") {
    Model m = base({1});
    m.ir_version = 10;
    Graph& g = m.graph;
    const std::int64_t huge = std::int64_t{1} << 62;
    Tensor e = Tensor::from_values<float>("e", {huge, 0, huge}, std::span<const float>{});
    g.initializers.push_back(e);
    g.initializers.push_back(ints("big", {3}, {huge, 1, huge}));
    g.initializers.push_back(ints("reps", {3}, {1, 1000, 1}));
    g.initializers.push_back(ints("none", {0}, {}));
    g.nodes.push_back(Node("Transpose", {"e"}, {"t"}));
    g.nodes.push_back(Node("Expand", {"e", "big"}, {"x"}));
    g.nodes.push_back(Node("Tile", {"e", "reps"}, {"tl"}));
    g.nodes.push_back(Node("Add", {"e", "e"}, {"s"}));
    g.nodes.push_back(with(Node("Concat", {"e", "e"}, {"c"}), Attribute("axis", std::int64_t{1})));  // outer: 2^62
    g.nodes.push_back(Node("Gather", {"e", "none"}, {"ga"}));
    for (const char* o : {"t", "x", "tl", "s", "c", "ga"}) g.outputs.emplace_back(o, Type{});
    CHECK(fold_constants(m).tensor_nodes == 6);
    CHECK(folded_value(g, "t")->dims == std::vector<std::int64_t>{huge, 0, huge});
    CHECK(folded_value(g, "c")->dims == std::vector<std::int64_t>{huge, 0, huge});
    CHECK(folded_value(g, "ga")->dims == std::vector<std::int64_t>{0, 0, huge});
    CHECK(folded_value(g, "s")->bytes().empty());
  }
  SUBCASE("Split: several outputs, each its own Constant; the refusals") {
    Model m = base({1});
    m.set_opset_version("", 18);
    Graph& g = m.graph;
    // [[0 1 2 3 4 5 6], [10 ... 16]]
    g.initializers.push_back(floats("v", {2, 7}, {0, 1, 2, 3, 4, 5, 6, 10, 11, 12, 13, 14, 15, 16}));
    g.initializers.push_back(ints("sizes", {3}, {2, 0, 5}));
    g.nodes.push_back(with(Node("Split", {"v", "sizes"}, {"a", "b", "c"}, "by_sizes"), Attribute("axis", std::int64_t{-1})));
    // num_outputs 3 of 7: ceil(7/3) = 3, 3, then the last 1
    g.nodes.push_back(with(Node("Split", {"v"}, {"p", "q", "r"}, "thirds"), Attribute("axis", std::int64_t{1}),
                           Attribute("num_outputs", std::int64_t{3})));
    // refused: neither sizes nor num_outputs (invalid from 18); 4 into 3 parts leaves an empty
    // last part (left to the runtime); sizes that do not add up (inference rejects it too)
    g.nodes.push_back(Node("Split", {"v"}, {"top", "bottom"}));
    g.initializers.push_back(floats("four", {4}, {1, 2, 3, 4}));
    g.nodes.push_back(with(Node("Split", {"four"}, {"f0", "f1", "f2"}), Attribute("num_outputs", std::int64_t{3})));
    g.initializers.push_back(ints("wrong", {2}, {3, 3}));
    g.nodes.push_back(with(Node("Split", {"v", "wrong"}, {"w0", "w1"}), Attribute("axis", std::int64_t{1})));
    for (const char* o : {"a", "b", "c", "p", "q", "r", "top", "bottom", "f0", "f1", "f2", "w0", "w1"})
      g.outputs.emplace_back(o, Type{});
    const FoldCounts f = fold_constants(m);
    CHECK(f.tensor_nodes == 2);
    CHECK(f.constants == 6);
    CHECK(values_of<float>(g, "a") == std::vector<float>{0, 1, 10, 11});
    CHECK(folded_value(g, "b")->dims == std::vector<std::int64_t>{2, 0});
    CHECK(values_of<float>(g, "c") == std::vector<float>{2, 3, 4, 5, 6, 12, 13, 14, 15, 16});
    CHECK(folded_value(g, "c")->dims == std::vector<std::int64_t>{2, 5});
    CHECK(values_of<float>(g, "q") == std::vector<float>{3, 4, 5, 13, 14, 15});
    CHECK(values_of<float>(g, "r") == std::vector<float>{6, 16});
    CHECK(folded_value(g, "r")->dims == std::vector<std::int64_t>{2, 1});
    for (const char* o : {"top", "f0", "w0"}) CHECK(folded_value(g, o) == nullptr);
    // one Constant per output, with names of their own
    std::vector<std::string> names;
    for (const auto& n : g.nodes)
      if (n.op_type == "Constant") names.push_back(n.name);
    REQUIRE(names.size() == 6);
    CHECK(names[0] != names[1]);
    CHECK(names[0].starts_with("by_sizes_0"));
    CHECK(names[2].starts_with("by_sizes_2"));
    // Split-11 takes the sizes as an attribute; without them (up to 17), equal parts
    Model old = base({1});
    old.set_opset_version("", 11);
    old.graph.initializers.push_back(floats("k", {6}, {1, 2, 3, 4, 5, 6}));  // (not int64: shape folding would take it)
    old.graph.nodes.push_back(with(Node("Split", {"k"}, {"x", "y"}), Attribute("split", std::vector<std::int64_t>{5, 1})));
    old.graph.nodes.push_back(Node("Split", {"k"}, {"e0", "e1", "e2"}));
    old.graph.nodes.push_back(Node("Split", {"k"}, {"u0", "u1", "u2", "u3"}));  // 6 does not split evenly into 4
    for (const char* o : {"x", "y", "e0", "e1", "e2", "u0", "u1", "u2", "u3"}) old.graph.outputs.emplace_back(o, Type{});
    CHECK(fold_constants(old).tensor_nodes == 2);
    CHECK(values_of<float>(old.graph, "x") == std::vector<float>{1, 2, 3, 4, 5});
    CHECK(values_of<float>(old.graph, "y") == std::vector<float>{6});
    CHECK(values_of<float>(old.graph, "e1") == std::vector<float>{3, 4});
    CHECK(folded_value(old.graph, "u0") == nullptr);
  }
  SUBCASE("ReduceMax and ReduceMin: axes as attribute and as input, keepdims, the refusals") {
    Model m = base({1});
    m.set_opset_version("", 13);
    Graph& g = m.graph;
    // [[3 -1 7], [2 9 -4]]
    g.initializers.push_back(floats("v", {2, 3}, {3, -1, 7, 2, 9, -4}));
    g.nodes.push_back(with(Node("ReduceMax", {"v"}, {"rows"}), Attribute("axes", std::vector<std::int64_t>{-1})));
    g.nodes.push_back(with(Node("ReduceMin", {"v"}, {"cols"}), Attribute("axes", std::vector<std::int64_t>{0}),
                           Attribute("keepdims", std::int64_t{0})));
    g.nodes.push_back(Node("ReduceMin", {"v"}, {"all"}));  // no axes: everything, kept as [1, 1]
    g.initializers.push_back(Tensor::from_values<std::int8_t>("i8", {4}, std::vector<std::int8_t>{-128, 5, 127, 0}));
    g.nodes.push_back(with(Node("ReduceMax", {"i8"}, {"imax"}), Attribute("keepdims", std::int64_t{0})));
    const float nan = std::numeric_limits<float>::quiet_NaN();
    g.initializers.push_back(floats("n", {2}, {1, nan}));
    g.initializers.push_back(floats("z", {2}, {0.f, -0.f}));
    g.initializers.push_back(floats("e", {2, 0}, {}));
    g.nodes.push_back(Node("ReduceMax", {"n"}, {"rn"}));                                         // NaN
    g.nodes.push_back(Node("ReduceMin", {"z"}, {"rz"}));                                         // -0
    g.nodes.push_back(with(Node("ReduceMax", {"e"}, {"re"}), Attribute("axes", std::vector<std::int64_t>{1})));  // empty
    g.nodes.push_back(with(Node("ReduceMax", {"e"}, {"re0"}), Attribute("axes", std::vector<std::int64_t>{0})));  // [1, 0]
    for (const char* o : {"rows", "cols", "all", "imax", "rn", "rz", "re", "re0"}) g.outputs.emplace_back(o, Type{});
    CHECK(fold_constants(m).tensor_nodes == 5);
    CHECK(values_of<float>(g, "rows") == std::vector<float>{7, 9});
    CHECK(folded_value(g, "rows")->dims == std::vector<std::int64_t>{2, 1});
    CHECK(values_of<float>(g, "cols") == std::vector<float>{2, -1, -4});
    CHECK(folded_value(g, "cols")->dims == std::vector<std::int64_t>{3});
    CHECK(values_of<float>(g, "all") == std::vector<float>{-4});
    CHECK(folded_value(g, "all")->dims == std::vector<std::int64_t>{1, 1});
    CHECK(values_of<std::int8_t>(g, "imax") == std::vector<std::int8_t>{127});
    CHECK(folded_value(g, "imax")->dims.empty());
    for (const char* o : {"rn", "rz", "re"}) CHECK(folded_value(g, o) == nullptr);
    CHECK(folded_value(g, "re0")->dims == std::vector<std::int64_t>{1, 0});
    // 18: axes as an input; none given with noop_with_empty_axes: the input unchanged
    Model m18 = base({1});
    m18.set_opset_version("", 18);
    m18.graph.initializers.push_back(floats("v", {2, 3}, {3, -1, 7, 2, 9, -4}));
    m18.graph.initializers.push_back(ints("ax", {1}, {1}));
    m18.graph.nodes.push_back(with(Node("ReduceMin", {"v", "ax"}, {"r"}), Attribute("keepdims", std::int64_t{0})));
    m18.graph.nodes.push_back(with(Node("ReduceMax", {"v"}, {"same"}), Attribute("noop_with_empty_axes", std::int64_t{1})));
    m18.graph.outputs.emplace_back("r", Type{});
    m18.graph.outputs.emplace_back("same", Type{});
    CHECK(fold_constants(m18).tensor_nodes == 2);
    CHECK(values_of<float>(m18.graph, "r") == std::vector<float>{-1, -4});
    CHECK(values_of<float>(m18.graph, "same") == std::vector<float>{3, -1, 7, 2, 9, -4});
  }
  SUBCASE("Floor and Ceil: -0 and infinities kept, NaN left to the runtime") {
    Model m = base({1});
    Graph& g = m.graph;
    const float inf = std::numeric_limits<float>::infinity();
    g.initializers.push_back(floats("x", {6}, {-1.5f, -0.5f, 2.5f, -0.f, inf, 8388607.5f}));
    g.initializers.push_back(floats("nan", {2}, {1.f, std::numeric_limits<float>::quiet_NaN()}));
    g.nodes.push_back(Node("Floor", {"x"}, {"fl"}));
    g.nodes.push_back(Node("Ceil", {"x"}, {"ce"}));
    g.nodes.push_back(Node("Floor", {"nan"}, {"fn"}));
    g.nodes.push_back(with(Node("Cast", {"x"}, {"h"}), to(DataType::FLOAT16)));  // -1.5 ... 8388607.5 -> inf
    g.nodes.push_back(Node("Ceil", {"h"}, {"ch"}));
    for (const char* o : {"fl", "ce", "fn", "ch"}) g.outputs.emplace_back(o, Type{});
    CHECK(fold_constants(m).tensor_nodes == 4);
    const auto fl = values_of<float>(g, "fl");
    const auto ce = values_of<float>(g, "ce");
    REQUIRE((fl.size() == 6 && ce.size() == 6));
    CHECK(std::vector<float>(fl.begin(), fl.begin() + 3) == std::vector<float>{-2, -1, 2});
    CHECK(std::vector<float>(ce.begin(), ce.begin() + 3) == std::vector<float>{-1, -0.f, 3});
    CHECK(std::signbit(ce[1]));  // ceil(-0.5) = -0
    CHECK((fl[3] == 0.f && std::signbit(fl[3]) && std::signbit(ce[3])));
    CHECK((fl[4] == inf && ce[4] == inf));
    CHECK((fl[5] == 8388607.f && ce[5] == 8388608.f));
    CHECK(folded_value(g, "fn") == nullptr);
    const Tensor* ch = folded_value(g, "ch");
    REQUIRE(ch != nullptr);
    CHECK(ch->data_type == DataType::FLOAT16);
    CHECK(ch->element<float16>(0).bits() == 0xBC00);  // -1
    CHECK(ch->element<float16>(1).bits() == 0x8000);  // -0
    CHECK(ch->element<float16>(5).bits() == 0x7C00);  // inf (8388607.5 overflows float16)
  }
  SUBCASE("Squeeze with empty axes: ONNX Runtime squeezes the dims of 1, onnx none; folded only without one") {
    Model m = base({1});
    Graph& g = m.graph;
    g.initializers.push_back(floats("one_row", {1, 3}, {1, 2, 3}));
    g.initializers.push_back(floats("two_rows", {2, 3}, {1, 2, 3, 4, 5, 6}));
    g.initializers.push_back(ints("none", {0}, {}));
    g.nodes.push_back(Node("Squeeze", {"one_row", "none"}, {"a"}));
    g.nodes.push_back(Node("Squeeze", {"two_rows", "none"}, {"b"}));
    g.outputs.emplace_back("a", Type{});
    g.outputs.emplace_back("b", Type{});
    const FoldCounts f = fold_constants(m);
    CHECK(f.tensor_nodes == 1);
    CHECK(folded_value(g, "a") == nullptr);
    REQUIRE(folded_value(g, "b") != nullptr);
    CHECK(folded_value(g, "b")->dims == std::vector<std::int64_t>{2, 3});
  }
  SUBCASE("attribute forms of older opsets; initializers below opset 9; a node inference rejects") {
    Model m = base({1});
    m.set_opset_version("", 8);
    Graph& g = m.graph;
    g.initializers.push_back(floats("v", {1, 2, 3}, {1, 2, 3, 4, 5, 6}));
    g.nodes.push_back(with(Node("Squeeze", {"v"}, {"s"}), Attribute("axes", std::vector<std::int64_t>{0})));
    Node slice("Slice", {"s"}, {"sl"});
    slice.attributes.emplace_back("starts", std::vector<std::int64_t>{1});
    slice.attributes.emplace_back("ends", std::vector<std::int64_t>{1000});
    slice.attributes.emplace_back("axes", std::vector<std::int64_t>{1});
    g.nodes.push_back(slice);                                   // [[2,3],[5,6]]
    g.initializers.push_back(ints("k", {2}, {1, 2}));
    g.nodes.push_back(Node("Flatten", {"k"}, {"fk"}));           // Flatten-1 takes float types only
    g.outputs.emplace_back("sl", Type{});
    g.outputs.emplace_back("fk", Type{});
    const FoldCounts f = fold_constants(m);
    CHECK(f.tensor_nodes == 2);
    CHECK(ops_of(g) == std::vector<std::string>{"Flatten"});
    CHECK(values_of<float>(g, "sl") == std::vector<float>{2, 3, 5, 6});
    CHECK(folded_value(g, "sl")->dims == std::vector<std::int64_t>{2, 2});
    CHECK(folded_value(g, "fk") == nullptr);
  }
}

TEST_CASE("fold_constants replaces an If whose condition is constant by the branch it takes") {
  auto text = [](int opset, const std::string& body) {
    return parse_text_model("<ir_version: 8, opset_import: [\"\" : " + std::to_string(opset) + "]>\n" + body);
  };
  auto errors = [](Model m) { return infer_shapes(m).type_errors + (check(m).ok() ? 0u : 1u); };
  SUBCASE("then: the branch's values renamed apart, its initializer moved, its result under the If's name") {
    // the branch defines t, w and y2; another If's branches define t and w too
    Model m = text(17, R"(g (float[2] x, bool k) => (float[2] y, float[2] s) {
  s = If (k) <then_branch = a1 () => (float[2] t) <float[2] w = {1, 2}> { t = Mul (x, w) },
              else_branch = a2 () => (float[2] t) { t = Abs (x) }>
  c = Constant <value = bool {1}> ()
  y = If (c) <then_branch = b1 () => (float[2] y2) <float[2] w = {10, 20}, float[2] t, float[2] y2> { t = Neg (x)  y2 = Add (t, w) },
              else_branch = b2 () => (float[2] z) { z = Identity (x) }>
})");
    REQUIRE(errors(m) == 0);
    const FoldCounts f = fold_constants(m);
    CHECK(f.branches == 1);
    CHECK(ops_of(m.graph) == std::vector<std::string>{"If", "Neg", "Add"});
    CHECK(m.graph.nodes[2].outputs[0] == "y");
    CHECK(m.graph.nodes[1].outputs[0] != "t");   // the branch's t is renamed apart from the other If's
    CHECK(m.graph.nodes[2].inputs[0] == m.graph.nodes[1].outputs[0]);
    REQUIRE(m.graph.initializers.size() == 1);
    CHECK(m.graph.initializers[0].name != "w");
    CHECK(m.graph.nodes[2].inputs[1] == m.graph.initializers[0].name);
    // the branch's value_info comes along renamed (not the entry of its output, now y)
    REQUIRE(m.graph.value_info.size() == 1);
    CHECK(m.graph.value_info[0].name == m.graph.nodes[1].outputs[0]);
    CHECK(errors(m) == 0);
  }
  SUBCASE("else, with a condition computed from constants; an outer value passed through; one value twice") {
    Model m = text(17, R"(g (float[2] x) => (float[2] y, float[2] v, float[2] u) {
  a = Constant <value = int64 {3}> ()
  b = Constant <value = int64 {4}> ()
  c = Equal (a, b)
  y, v, u = If (c) <then_branch = b1 () => (float[2] p, float[2] q, float[2] r) { p = Neg (x)  q = Neg (p)  r = Neg (q) },
                    else_branch = b2 () => (float[2] z, float[2] x, float[2] z) { z = Sigmoid (x) }>
})");
    REQUIRE(errors(m) == 0);
    CHECK(fold_constants(m).branches == 1);
    // z takes y's name; x (an outer value) and the second z go through Identity nodes
    CHECK(ops_of(m.graph) == std::vector<std::string>{"Sigmoid", "Identity", "Identity"});
    CHECK(m.graph.nodes[0].outputs[0] == "y");
    CHECK(m.graph.nodes[1].inputs[0] == "x");
    CHECK(m.graph.nodes[1].outputs[0] == "v");
    CHECK(m.graph.nodes[2].inputs[0] == "y");
    CHECK(m.graph.nodes[2].outputs[0] == "u");
    CHECK(errors(m) == 0);
  }
  SUBCASE("nested: an inner If with a constant condition too, and one whose branches read the outer branch's values") {
    Model m = text(17, R"(g (float[2] x, bool k) => (float[2] y) {
  c = Constant <value = bool {1}> ()
  y = If (c) <then_branch = b1 () => (float[2] o) {
        a = Neg (x)
        d = Constant <value = bool {0}> ()
        e = If (d) <then_branch = i1 () => (float[2] e1) { e1 = Abs (a) }, else_branch = i2 () => (float[2] e2) { e2 = Neg (a) }>
        o = If (k) <then_branch = j1 () => (float[2] j) { j = Abs (e) }, else_branch = j2 () => (float[2] o2) { o2 = Add (a, e) }>
      }, else_branch = b2 () => (float[2] z) { z = Identity (x) }>
})");
    REQUIRE(errors(m) == 0);
    const FoldCounts f = fold_constants(m);
    CHECK(f.branches == 2);  // the outer If, then (in the next round) the inner one with d
    CHECK(ops_of(m.graph) == std::vector<std::string>{"Neg", "Neg", "If"});
    const std::string a = m.graph.nodes[0].outputs[0];
    const std::string e = m.graph.nodes[1].outputs[0];
    CHECK(m.graph.nodes[1].inputs[0] == a);
    CHECK(m.graph.nodes[2].inputs[0] == "k");
    CHECK(m.graph.nodes[2].outputs[0] == "y");
    // the inner branches' reads of the outer branch's a and e follow their new names
    const Graph& j1 = m.graph.nodes[2].attributes.at(0).as_graph();
    const Graph& j2 = m.graph.nodes[2].attributes.at(1).as_graph();
    CHECK(j1.nodes[0].inputs[0] == e);
    CHECK(j1.nodes[0].outputs[0] == "j");
    CHECK(j2.nodes[0].inputs == std::vector<std::string>{a, e});
    CHECK(errors(m) == 0);
  }
  SUBCASE("left as they are") {
    // a condition that is an input, one of two elements, an invalid branch (even one not taken),
    // a branch output of unknown type needing an Identity below opset 16, FoldOptions::branches off
    Model m = text(17, R"(g (float[2] x, bool k) => (float[2] y1, float[2] y2, float[2] y3) {
  c2 = Constant <value = bool[2] {1, 1}> ()
  c = Constant <value = bool {1}> ()
  y1 = If (k) <then_branch = a1 () => (float[2] p) { p = Neg (x) }, else_branch = a2 () => (float[2] q) { q = Abs (x) }>
  y2 = If (c2) <then_branch = b1 () => (float[2] p) { p = Neg (x) }, else_branch = b2 () => (float[2] q) { q = Abs (x) }>
  w = Constant <value = float[3] {1, 2, 3}> ()
  y3 = If (c) <then_branch = d1 () => (float[2] p) { p = Neg (x) }, else_branch = d2 () => (float[2] q) { q = Add (x, w) }>
})");
    const FoldCounts f = fold_constants(m);
    CHECK(f.branches == 0);
    CHECK(ops_of(m.graph) == std::vector<std::string>{"Constant", "Constant", "If", "If", "Constant", "If"});
    Model old = text(15, R"(g (float[2] x) => (float[2] y) {
  c = Constant <value = bool {0}> ()
  y = If (c) <then_branch = a1 () => (float[2] p) { p = Neg (x) }, else_branch = a2 () => (q) { q = Identity (x) }>
})");
    old.graph.nodes[1].attributes.at(1).as_graph().outputs[0].type.reset();
    Model untyped = old;
    CHECK(fold_constants(untyped).branches == 1);  // q is defined in the branch: no Identity needed
    old.graph.nodes[1].attributes.at(1).as_graph().outputs[0].name = "x";  // an outer value of unknown type
    CHECK(fold_constants(old).branches == 0);
    Model off = text(17, R"(g (float[2] x) => (float[2] y) {
  c = Constant <value = bool {1}> ()
  y = If (c) <then_branch = a1 () => (float[2] p) { p = Neg (x) }, else_branch = a2 () => (float[2] q) { q = Abs (x) }>
})");
    CHECK(fold_constants(off, {.branches = false}).branches == 0);
    CHECK(fold_constants(off).branches == 1);
    CHECK(ops_of(off.graph) == std::vector<std::string>{"Neg"});
  }
}

TEST_CASE("places of nodes and subgraphs, as Error::path and the inference report spell them") {
  CHECK(place::node("graph", 3) == "graph.node[3]");
  CHECK(place::subgraph(place::node("graph", 3), 1) == "graph.node[3].attribute[1].g");
  const std::string inner = place::node(place::subgraph(place::node("graph", 12), 0), 4);
  CHECK(inner == "graph.node[12].attribute[0].g.node[4]");
  CHECK(place::node_index(inner, "graph") == std::optional<std::size_t>{12});
  CHECK(place::node_index(inner, "graph.node[12].attribute[0].g") == std::optional<std::size_t>{4});
  CHECK(place::node_index("graph.node[7]", "graph") == std::optional<std::size_t>{7});
  CHECK(place::node_index("graph.node[7].output[0]", "graph") == std::optional<std::size_t>{7});
  CHECK(place::node_index("functions[0].node[2]", "graph") == std::nullopt);
  CHECK(place::node_index("graph.nodes[2]", "graph") == std::nullopt);
  CHECK(place::node_index("graph.node[]", "graph") == std::nullopt);
  CHECK(place::node_index("graph.node[3", "graph") == std::nullopt);
  CHECK(place::node_index("graph.node[x]", "graph") == std::nullopt);
  CHECK(place::node_index("graph", "graph") == std::nullopt);
  CHECK(place::node_index("graph.node[1234567890123456789]", "graph") == std::nullopt);  // more digits than read
}

TEST_CASE("fold_constants folds inside subgraphs") {
  auto text = [](const std::string& body) {
    return parse_text_model("<ir_version: 8, opset_import: [\"\" : 17]>\n" + body);
  };
  auto errors = [](Model m) { return infer_shapes(m).type_errors + (check(m).ok() ? 0u : 1u); };
  auto branch = [](Model& m, std::size_t node, std::size_t attr) -> Graph& {
    return m.graph.nodes.at(node).attributes.at(attr).as_graph();
  };
  SUBCASE("If branches of a condition known only at run time: shapes, outer constants, an inner If") {
    Model m = text(R"(g (float[2, 3] x, bool k) => (int64[2] y, float[2, 3] z) {
  w = Constant <value = int64[2] {10, 20}> ()
  y = If (k) <then_branch = t1 () => (int64[2] a) { s = Shape (x)  a = Add (s, w) },
              else_branch = e1 () => (int64[2] b) { n = Neg (w)  b = Mul (n, w) }>
  z = If (k) <then_branch = t2 () => (float[2, 3] p) {
         d = Constant <value = bool {0}> ()
         p = If (d) <then_branch = i1 () => (float[2, 3] q) { q = Abs (x) }, else_branch = i2 () => (float[2, 3] r) { r = Neg (x) }>
       }, else_branch = e2 () => (float[2, 3] u) { u = Sigmoid (x) }>
})");
    REQUIRE(errors(m) == 0);
    {
      // inference reports a subgraph's contents under the graph's place
      Model probe = m;
      InferOptions io;
      io.report_constant_values = true;
      const InferReport r = infer_shapes(probe, io);
      std::vector<std::pair<std::string, std::string>> where;
      for (const auto& cv : r.constant_values) where.emplace_back(cv.graph, cv.name);
      std::sort(where.begin(), where.end());
      CHECK(where == std::vector<std::pair<std::string, std::string>>{{"graph", "w"},
                                                                      {"graph.node[1].attribute[0].g", "a"},
                                                                      {"graph.node[1].attribute[0].g", "s"},
                                                                      {"graph.node[1].attribute[1].g", "b"},
                                                                      {"graph.node[1].attribute[1].g", "n"}});
    }
    const FoldCounts f = fold_constants(m);
    CHECK(f.branches == 1);
    CHECK(ops_of(m.graph) == std::vector<std::string>{"If", "If"});  // (w is read by nothing now)
    CHECK(ops_of(branch(m, 0, 0)) == std::vector<std::string>{"Constant"});
    CHECK(constant_of(branch(m, 0, 0), "a") == std::vector<std::int64_t>{12, 23});
    CHECK(ops_of(branch(m, 0, 1)) == std::vector<std::string>{"Constant"});
    CHECK(constant_of(branch(m, 0, 1), "b") == std::vector<std::int64_t>{-100, -400});
    // the inner If took its else branch: Neg under the name p
    REQUIRE(ops_of(branch(m, 1, 0)) == std::vector<std::string>{"Neg"});
    CHECK(branch(m, 1, 0).nodes[0].outputs[0] == "p");
    CHECK(ops_of(branch(m, 1, 1)) == std::vector<std::string>{"Sigmoid"});
    CHECK(errors(m) == 0);
  }
  SUBCASE("a Loop body: what every iteration computes alike folds, what the carried value changes stays") {
    Model m = text(R"(g (float[2] x, int64 m) => (float[] out, int64[T, 1] sz) {
  c = Constant <value = bool {1}> ()
  v0 = Constant <value = float[1] {0}> ()
  out, sz = Loop (m, c, v0) <body = body (int64 i, bool cin, float[] v) => (bool cout, float[] vnext, int64[1] s) {
     cout = Identity (cin)
     vnext = Concat <axis = 0> (v, x)
     sv = Shape (v)
     kx = Shape (x)
     two = Add (kx, kx)
     s = Add (sv, two)
  }>
})");
    REQUIRE(errors(m) == 0);
    fold_constants(m);
    const Graph& body = branch(m, 2, 0);
    CHECK(ops_of(body) == std::vector<std::string>{"Identity", "Concat", "Shape", "Constant", "Add"});
    CHECK(constant_of(body, "two") == std::vector<std::int64_t>{4});
    CHECK(body.nodes[4].inputs == std::vector<std::string>{"sv", "two"});
    CHECK(errors(m) == 0);
  }
  SUBCASE("a Loop-carried value the body keeps the same is known in every iteration") {
    // the body computes vnext from v, and s = v * v
    auto loop = [&](const std::string& vnext) {
      return text(R"(g (float[2] x, int64 m) => (int64[1] out, int64[T, 1] sz) {
  c = Constant <value = bool {1}> ()
  v0 = Constant <value = int64[1] {5}> ()
  out, sz = Loop (m, c, v0) <body = body (int64 i, bool cin, int64[1] v) => (bool cout, int64[1] vnext, int64[1] s) {
     cout = Identity (cin)
     vnext = )" + vnext + R"( (v)
     s = Mul (v, v)
  }>
})");
    };
    Model m = loop("Identity");
    REQUIRE(errors(m) == 0);
    fold_constants(m);
    const Graph& body = branch(m, 2, 0);
    CHECK(ops_of(body) == std::vector<std::string>{"Identity", "Constant", "Constant"});
    CHECK(constant_of(body, "vnext") == std::vector<std::int64_t>{5});
    CHECK(constant_of(body, "s") == std::vector<std::int64_t>{25});
    // carried through a Neg instead, v changes sign every iteration: nothing folds (Mul (v, v)
    // is 25 every time, but inference does not know v's contents)
    Model n = loop("Neg");
    REQUIRE(errors(n) == 0);
    fold_constants(n);
    CHECK(ops_of(branch(n, 2, 0)) == std::vector<std::string>{"Identity", "Neg", "Mul"});
  }
  SUBCASE("an omitted output does not keep the others from folding, in the main graph or a branch") {
    Model m = text(R"(g (float[2, 3, 4] x, bool k) => (float[6, 4] y, int64[2] z) {
  s = Shape (x)
  sz = Constant <value = int64[2] {2, 1}> ()
  p, "" = Split <axis = 0> (s, sz)
  q = ReduceProd <keepdims = 1> (p)
  m1 = Constant <value = int64[1] {-1}> ()
  r = Concat <axis = 0> (q, m1)
  y = Reshape (x, r)
  z = If (k) <then_branch = t1 () => (int64[2] a) { t = Shape (x)  a, "" = Split <axis = 0> (t, sz) },
              else_branch = e1 () => (int64[2] b) { b = Identity (sz) }>
})");
    REQUIRE(errors(m) == 0);
    fold_constants(m);
    CHECK(ops_of(m.graph) == std::vector<std::string>{"Constant", "Reshape", "If"});  // (sz, m1 unused now)
    CHECK(constant_of(m.graph, "r") == std::vector<std::int64_t>{6, -1});
    CHECK(ops_of(branch(m, 2, 0)) == std::vector<std::string>{"Constant"});
    CHECK(constant_of(branch(m, 2, 0), "a") == std::vector<std::int64_t>{2, 3});
    CHECK(constant_of(branch(m, 2, 1), "b") == std::vector<std::int64_t>{2, 1});
    CHECK(errors(m) == 0);
  }
  SUBCASE("left as they are: a rejected node's subgraphs, a subgraph's own value that shadows an outer constant") {
    // the then branch holds an invalid Add: nothing in the If is folded, not even Shape (x)
    Model m = text(R"(g (float[2, 3] x, bool k, int64[2] j) => (int64[2] y) {
  y = If (k) <then_branch = t1 () => (int64[2] a) { s = Shape (x)  bad = Add (x, j)  a = Identity (s) },
              else_branch = e1 () => (int64[2] b) { b = Shape (x) }>
})");
    REQUIRE(infer_shapes(m).type_errors > 0);
    fold_constants(m, {.remove_unused = false});
    CHECK(ops_of(branch(m, 0, 0)) == std::vector<std::string>{"Shape", "Add", "Identity"});
    CHECK(ops_of(branch(m, 0, 1)) == std::vector<std::string>{"Shape"});
    // w is an outer constant, but the branch defines its own w (invalid, though not for
    // inference): the branch's Add reads its own, which is not a constant
    Model s = text(R"(g (int64[2] x, bool k) => (int64[2] y) {
  w = Constant <value = int64[2] {10, 20}> ()
  y = If (k) <then_branch = t1 () => (int64[2] a) { w = Neg (x)  a = Add (w, w) },
              else_branch = e1 () => (int64[2] b) { b = Add (w, w) }>
})");
    fold_constants(s);
    REQUIRE(ops_of(s.graph) == std::vector<std::string>{"If"});  // (w is read by nothing now)
    CHECK(ops_of(branch(s, 0, 0)) == std::vector<std::string>{"Neg", "Add"});
    CHECK(constant_of(branch(s, 0, 1), "b") == std::vector<std::int64_t>{20, 40});
  }
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
