// Inference rules of the loss operators: NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss
// (opsets 12, 13, 22), plus a differential test against the onnx backend test models.
#include <doctest/doctest.h>

#include <filesystem>
#include <oxir/io/model_file.hpp>

#include "infer_test_util.hpp"

namespace oxir_unit_test_infer_loss {

using namespace oxir;
using namespace oxir_test;

namespace {
Node loss_node(const std::string& op, std::vector<std::string> ins, std::vector<std::string> outs,
               const std::string& reduction = "") {
  Node n;
  n.op_type = op;
  n.inputs = std::move(ins);
  n.outputs = std::move(outs);
  if (!reduction.empty()) n.attributes.push_back(Attribute("reduction", reduction));
  return n;
}
}  // namespace

TEST_CASE("NegativeLogLikelihoodLoss: reduction decides the output shape") {
  for (std::int64_t opset : {12, 13, 22}) {
    CAPTURE(opset);
    // none: [N, d1, d2] (the target's shape), element type of the input
    auto r = infer_one(loss_node("NegativeLogLikelihoodLoss", {"x", "t"}, {"y"}, "none"),
                       {{"x", DataType::FLOAT, {"N", "C", "H", "W"}}, {"t", DataType::INT64, {"N", "H", "W"}}}, {},
                       opset);
    CHECK(r.out() == "FLOAT[N,H,W]");
    CHECK_FALSE(r.report.has_errors());
    // default reduction is mean: scalar
    r = infer_one(loss_node("NegativeLogLikelihoodLoss", {"x", "t"}, {"y"}),
                  {{"x", DataType::DOUBLE, {"N", "C"}}, {"t", DataType::INT32, {"N"}}}, {}, opset);
    CHECK(r.out() == "DOUBLE[]");
    r = infer_one(loss_node("NegativeLogLikelihoodLoss", {"x", "t", "w"}, {"y"}, "sum"),
                  {{"x", DataType::FLOAT16, {"N", "C", "D"}}, {"t", DataType::INT64, {"N", "D"}},
                   {"w", DataType::FLOAT16, {"C"}}},
                  {}, opset);
    CHECK(r.out() == "FLOAT16[]");
  }
}

TEST_CASE("NegativeLogLikelihoodLoss: N and d dims of input and target unify; weight unifies with C") {
  // The target gives the concrete sizes, the input's symbols merge with them.
  auto r = infer_one(loss_node("NegativeLogLikelihoodLoss", {"x", "t", "w"}, {"y"}, "none"),
                     {{"x", DataType::FLOAT, {"N", "C", "?"}}, {"t", DataType::INT64, {"4", "D"}},
                      {"w", DataType::FLOAT, {"5"}}});
  CHECK(r.out() == "FLOAT[4,D]");
  // log_prob shows the merged sizes of the scores: N = 4, C = 5 (from the weight), ? = D
  r = infer_one(loss_node("SoftmaxCrossEntropyLoss", {"x", "t", "w"}, {"y", "lp"}, "none"),
                {{"x", DataType::FLOAT, {"N", "C", "?"}}, {"t", DataType::INT64, {"4", "D"}},
                 {"w", DataType::FLOAT, {"5"}}});
  CHECK(r.out(0) == "FLOAT[4,D]");
  CHECK(r.out(1) == "FLOAT[4,5,D]");
  // only the input's shape known
  r = infer_one(loss_node("NegativeLogLikelihoodLoss", {"x", "t"}, {"y"}, "none"),
                {{"x", DataType::FLOAT, {"N", "C", "H"}}, {"t", DataType::INT64, {}, false}});
  CHECK(r.out() == "FLOAT[N,H]");
  // only the target's shape known
  r = infer_one(loss_node("NegativeLogLikelihoodLoss", {"x", "t"}, {"y"}, "none"),
                {{"x", DataType::FLOAT, {}, false}, {"t", DataType::INT64, {"N", "H"}}});
  CHECK(r.out() == "FLOAT[N,H]");
  r = infer_one(loss_node("NegativeLogLikelihoodLoss", {"x", "t"}, {"y"}, "none"),
                {{"x", DataType::FLOAT, {}, false}, {"t", DataType::INT64, {}, false}});
  CHECK(r.out() == "FLOAT[*]");
  // mean is a scalar even when nothing is known of the shapes
  r = infer_one(loss_node("NegativeLogLikelihoodLoss", {"x", "t"}, {"y"}, "mean"),
                {{"x", DataType::FLOAT, {}, false}, {"t", DataType::INT64, {}, false}});
  CHECK(r.out() == "FLOAT[]");
}

TEST_CASE("NegativeLogLikelihoodLoss: malformed nodes") {
  auto bad = [](Node n, std::vector<In> ins, std::int64_t opset = 21) {
    auto r = infer_one(std::move(n), ins, {}, opset);
    CHECK(r.report.has_errors());
    CHECK(r.out() == "?");
  };
  // rank mismatch
  bad(loss_node("NegativeLogLikelihoodLoss", {"x", "t"}, {"y"}, "none"),
      {{"x", DataType::FLOAT, {"N", "C"}}, {"t", DataType::INT64, {"N", "D"}}});
  // scores of rank 1
  bad(loss_node("NegativeLogLikelihoodLoss", {"x", "t"}, {"y"}), {{"x", DataType::FLOAT, {"C"}}, {"t", DataType::INT64, {}, false}});
  // unknown reduction
  bad(loss_node("NegativeLogLikelihoodLoss", {"x", "t"}, {"y"}, "max"),
      {{"x", DataType::FLOAT, {"N", "C"}}, {"t", DataType::INT64, {"N"}}});
  // float target
  bad(loss_node("NegativeLogLikelihoodLoss", {"x", "t"}, {"y"}),
      {{"x", DataType::FLOAT, {"N", "C"}}, {"t", DataType::FLOAT, {"N"}}});
  // one input only
  bad(loss_node("NegativeLogLikelihoodLoss", {"x"}, {"y"}), {{"x", DataType::FLOAT, {"N", "C"}}});
  // weight of rank 2
  bad(loss_node("NegativeLogLikelihoodLoss", {"x", "t", "w"}, {"y"}),
      {{"x", DataType::FLOAT, {"N", "C"}}, {"t", DataType::INT64, {"N"}}, {"w", DataType::FLOAT, {"C", "C"}}});
  // does not exist before opset 12
  bad(loss_node("NegativeLogLikelihoodLoss", {"x", "t"}, {"y"}),
      {{"x", DataType::FLOAT, {"N", "C"}}, {"t", DataType::INT64, {"N"}}}, 11);
  // conflicting known sizes: N 3 vs 4, weight 5 vs C 6
  auto r = infer_one(loss_node("NegativeLogLikelihoodLoss", {"x", "t"}, {"y"}, "none"),
                     {{"x", DataType::FLOAT, {"3", "C"}}, {"t", DataType::INT64, {"4"}}});
  CHECK(r.report.conflicts > 0);
  r = infer_one(loss_node("NegativeLogLikelihoodLoss", {"x", "t", "w"}, {"y"}),
                {{"x", DataType::FLOAT, {"3", "6"}}, {"t", DataType::INT64, {"3"}}, {"w", DataType::FLOAT, {"5"}}});
  CHECK(r.report.conflicts > 0);
}

TEST_CASE("SoftmaxCrossEntropyLoss: output and log_prob") {
  for (std::int64_t opset : {12, 13, 22}) {
    CAPTURE(opset);
    auto r = infer_one(loss_node("SoftmaxCrossEntropyLoss", {"s", "l"}, {"y", "lp"}, "none"),
                       {{"s", DataType::FLOAT, {"N", "C", "D1", "D2"}}, {"l", DataType::INT64, {"N", "D1", "D2"}}}, {},
                       opset);
    CHECK(r.out(0) == "FLOAT[N,D1,D2]");
    CHECK(r.out(1) == "FLOAT[N,C,D1,D2]");
    r = infer_one(loss_node("SoftmaxCrossEntropyLoss", {"s", "l", "w"}, {"y", "lp"}),
                  {{"s", DataType::BFLOAT16, {"N", "C"}}, {"l", DataType::INT32, {"N"}}, {"w", DataType::BFLOAT16, {"7"}}},
                  {}, opset);
    CHECK(r.out(0) == "BFLOAT16[]");
    CHECK(r.out(1) == "BFLOAT16[N,7]");
  }
  // one output only; sum
  auto r = infer_one(loss_node("SoftmaxCrossEntropyLoss", {"s", "l"}, {"y"}, "sum"),
                     {{"s", DataType::FLOAT, {"N", "C", "D"}}, {"l", DataType::INT64, {"N", "D"}}});
  CHECK(r.out(0) == "FLOAT[]");
  // absent optional weight (empty name)
  r = infer_one(loss_node("SoftmaxCrossEntropyLoss", {"s", "l", ""}, {"y", "lp"}, "none"),
                {{"s", DataType::FLOAT, {"2", "3", "4"}}, {"l", DataType::INT64, {"?", "?"}}});
  CHECK(r.out(0) == "FLOAT[2,4]");
  CHECK(r.out(1) == "FLOAT[2,3,4]");
  // unknown scores shape: log_prob of unknown rank
  r = infer_one(loss_node("SoftmaxCrossEntropyLoss", {"s", "l"}, {"y", "lp"}, "none"),
                {{"s", DataType::FLOAT, {}, false}, {"l", DataType::INT64, {"N"}}});
  CHECK(r.out(0) == "FLOAT[N]");
  CHECK(r.out(1) == "FLOAT[*]");
  // malformed: three outputs, rank mismatch
  r = infer_one(loss_node("SoftmaxCrossEntropyLoss", {"s", "l"}, {"y", "lp", "z"}),
                {{"s", DataType::FLOAT, {"N", "C"}}, {"l", DataType::INT64, {"N"}}});
  CHECK(r.report.has_errors());
  r = infer_one(loss_node("SoftmaxCrossEntropyLoss", {"s", "l"}, {"y"}),
                {{"s", DataType::FLOAT, {"N", "C", "D"}}, {"l", DataType::INT64, {"N"}}});
  CHECK(r.report.has_errors());
}

TEST_CASE("Loss operators: differential test against the onnx backend test models") {
  const std::filesystem::path root = "/usr/share/libonnx-testdata/data/node";
  if (!std::filesystem::is_directory(root)) return;
  int models = 0;
  for (const auto& e : std::filesystem::directory_iterator(root)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("test_nllloss_", 0) != 0 && name.rfind("test_sce_", 0) != 0) continue;
    const bool expanded = name.find("_expanded") != std::string::npos;
    const auto file = e.path() / "model.onnx";
    if (!std::filesystem::exists(file)) continue;
    CAPTURE(name);
    Model m = load_model(file);
    std::vector<std::string> declared;
    for (auto& o : m.graph.outputs) {
      declared.push_back(o.type ? type_str(*o.type) : "?");
      o.type.reset();
    }
    m.graph.value_info.clear();
    auto rep = infer_shapes(m);
    // The expanded models spell the loss with other operators (Gather, ReduceSum, Where, …).
    CAPTURE(expanded);
    CHECK_FALSE(rep.has_errors());
    for (std::size_t i = 0; i < m.graph.outputs.size(); ++i)
      CHECK(type_of(m, m.graph.outputs[i].name) == declared[i]);
    ++models;
  }
  CHECK(models > 80);
}

}  // namespace oxir_unit_test_infer_loss
