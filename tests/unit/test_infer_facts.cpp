// Size facts from Gather index bounds (facts.hpp): the min/max a clamped slice leaves behind is
// settled when a main-graph Gather's indices prove the slice stays inside its buffer.
#include <doctest/doctest.h>

#include "infer_test_util.hpp"

namespace oxir_unit_test_infer_facts {

using namespace oxir;
using namespace oxir_test;

namespace {

Node node(std::string op, std::vector<std::string> in, std::vector<std::string> out, std::vector<Attribute> attrs = {}) {
  Node n(std::move(op), std::move(in), std::move(out));
  for (auto& a : attrs) n.set_attribute(std::move(a));
  return n;
}

Tensor zeros(std::string name, std::vector<std::int64_t> dims) {
  std::int64_t n = 1;
  for (auto d : dims) n *= d;
  std::vector<float> v(static_cast<std::size_t>(n), 0.0f);
  return Tensor::from_values<float>(std::move(name), dims, std::span<const float>(v));
}

struct Run {
  Model model;
  InferReport report;
  [[nodiscard]] std::string operator[](const std::string& v) const { return type_of(model, v); }
};
Run run(std::vector<Node> nodes, const std::vector<In>& inputs, std::vector<Tensor> inits) {
  Run r;
  r.model = make_model(std::move(nodes), inputs, std::move(inits), 17);
  r.report = infer_shapes(r.model);
  return r;
}

/// nanoGPT's attention mask: pos = arange(T); wpe(pos); bias[:T] of a 32-row buffer.
/// `with_embedding`: whether the position Gather is there; `cast_to`: a Cast between the Range
/// and the Gather.
Run nano(bool with_embedding, DataType cast_to = DataType::UNDEFINED, bool slice_first = false) {
  std::vector<Node> nodes = {node("Shape", {"x"}, {"shape"}), node("Gather", {"shape", "one"}, {"t"}),
                             node("Range", {"zero", "t", "one"}, {"pos"})};
  std::string idx = "pos";
  if (cast_to != DataType::UNDEFINED) {
    nodes.push_back(node("Cast", {"pos"}, {"pos_c"}, {Attribute("to", static_cast<std::int64_t>(cast_to))}));
    idx = "pos_c";
  }
  auto slice = [&] {
    nodes.push_back(node("Unsqueeze", {"t", "axes0"}, {"end"}));
    nodes.push_back(node("Slice", {"bias", "starts0", "end", "axes0"}, {"mask"}));
    nodes.push_back(node("Shape", {"mask"}, {"mask_shape"}));
  };
  if (slice_first) slice();
  if (with_embedding) nodes.push_back(node("Gather", {"wpe", idx}, {"emb"}));
  if (!slice_first) slice();
  return run(std::move(nodes), {{"x", DataType::INT64, {"B", "T"}}},
             {ints("zero", {0}, true), ints("one", {1}, true), ints("axes0", {0}), ints("starts0", {0}),
              zeros("wpe", {32, 4}), zeros("bias", {32, 32})});
}

}  // namespace

TEST_CASE("Gather on Range position ids bounds a clamped slice of a buffer (nanoGPT's causal mask)") {
  // Without the embedding nothing bounds T: the mask has min(T,32) rows.
  CHECK(nano(false)["mask"] == "FLOAT[min(T,32),32]");
  // wpe(arange(T)) fails unless T <= 32 (or T = 0, where min(0,32) = 0 too): T rows.
  auto r = nano(true);
  CHECK(r["emb"] == "FLOAT[T,4]");
  CHECK(r["mask"] == "FLOAT[T,32]");
  // A widening Cast keeps the indices' values; a narrowing one may wrap them, so nothing follows.
  CHECK(nano(true, DataType::INT64)["mask"] == "FLOAT[T,32]");
  CHECK(nano(true, DataType::INT32)["mask"] == "FLOAT[min(T,32),32]");
}

TEST_CASE("A fact found after the size it settles still applies to it when types are written") {
  // The slice comes first in the graph: the fact is not known while it is inferred, but it holds
  // for every execution, so the written type uses it.
  auto r = nano(true, DataType::UNDEFINED, true);
  CHECK(r.model.graph.nodes[4].op_type == "Slice");
  CHECK(r["mask"] == "FLOAT[T,32]");
  CHECK(nano(false, DataType::UNDEFINED, true)["mask"] == "FLOAT[min(T,32),32]");
}

TEST_CASE("A key/value cache's mask rows are the new tokens; a bound guarded by them is not used beyond") {
  // HF GPT-2 (<= 4.35): positions arange(past, past + new) into 64 rows; the mask is
  // bias[past : past + new, : past + new]. Rows: max(0, min(P+N,64) - min(P,64)), which is N when
  // P + N <= 64 (N >= 1, the Gather has indices) and when N = 0. Columns: min(P+N, 64), which
  // the fact does not settle: with N = 0 (no index, so no bound) and P > 64 they number 64.
  std::vector<Node> nodes = {
      node("Shape", {"past"}, {"ps"}),           node("Gather", {"ps", "one"}, {"p"}),
      node("Shape", {"x"}, {"xs"}),              node("Gather", {"xs", "one"}, {"n"}),
      node("Add", {"p", "n"}, {"k"}),            node("Range", {"p", "k", "one"}, {"pos"}),
      node("Unsqueeze", {"pos", "axes0"}, {"pos2"}), node("Gather", {"wpe", "pos2"}, {"emb"}),
      node("Unsqueeze", {"p", "axes0"}, {"start"}), node("Unsqueeze", {"k", "axes0"}, {"end"}),
      node("Concat", {"start", "zero1"}, {"starts"}, {Attribute("axis", std::int64_t{0})}),
      node("Concat", {"end", "end"}, {"ends"}, {Attribute("axis", std::int64_t{0})}),
      node("Slice", {"bias", "starts", "ends", "axes01"}, {"mask"})};
  auto r = run(std::move(nodes), {{"past", DataType::FLOAT, {"B", "P", "8"}}, {"x", DataType::FLOAT, {"B", "N", "8"}}},
               {ints("one", {1}, true), ints("axes0", {0}), ints("zero1", {0}), ints("axes01", {0, 1}),
                zeros("wpe", {64, 4}), zeros("bias", {64, 64})});
  CHECK(r["emb"] == "FLOAT[1,N,4]");
  CHECK(r["mask"] == "FLOAT[N,min(P+N,64)]");
}

TEST_CASE("Constant indices into a symbolic axis bound it from below") {
  // x[:, 2] needs C >= 3, so x[:, :3] has 3 columns; without the Gather it has min(C,3).
  auto slice = node("Slice", {"x", "zero1", "three", "one1"}, {"y"});
  std::vector<Tensor> inits = {ints("two", {2}, true), ints("zero1", {0}), ints("three", {3}), ints("one1", {1})};
  auto with = run({node("Gather", {"x", "two"}, {"g"}, {Attribute("axis", std::int64_t{1})}), slice},
                  {{"x", DataType::FLOAT, {"B", "C"}}}, inits);
  CHECK(with["g"] == "FLOAT[B]");
  CHECK(with["y"] == "FLOAT[B,3]");
  auto without = run({node("Identity", {"x"}, {"g"}), slice}, {{"x", DataType::FLOAT, {"B", "C"}}}, inits);
  CHECK(without["y"] == "FLOAT[B,min(C,3)]");
}

TEST_CASE("A Gather inside a branch proves nothing for the rest of the model") {
  // The same index x[:, 2] in an If branch may never run: x[:, :3] keeps min(C,3).
  Graph then_g;
  then_g.nodes = {node("Gather", {"x", "two"}, {"g"}, {Attribute("axis", std::int64_t{1})})};
  then_g.outputs.emplace_back();
  then_g.outputs.back().name = "g";
  Graph else_g;
  else_g.nodes = {node("ReduceSum", {"x", "one1"}, {"h"}, {Attribute("keepdims", std::int64_t{0})})};
  else_g.outputs.emplace_back();
  else_g.outputs.back().name = "h";
  auto cond = node("If", {"c"}, {"b"});
  cond.set_attribute(Attribute("then_branch", std::move(then_g)));
  cond.set_attribute(Attribute("else_branch", std::move(else_g)));
  auto r = run({cond, node("Slice", {"x", "zero1", "three", "one1"}, {"y"})},
               {{"c", DataType::BOOL, {}}, {"x", DataType::FLOAT, {"B", "C"}}},
               {ints("two", {2}, true), ints("zero1", {0}), ints("three", {3}), ints("one1", {1})});
  CHECK(r["b"] == "FLOAT[B]");
  CHECK(r["y"] == "FLOAT[B,min(C,3)]");
}

TEST_CASE("Sizes a main-graph tensor has are known to be >= 0") {
  // A stride-5 convolution gives floor(S/5)-1 frames (negative as an expression when S < 5, but a
  // tensor size, so >= 0 whenever the model runs). Dropping the last of floor(S/5) pooled frames
  // then gives floor(S/5)-1 rather than max(0, floor(S/5)-1) (wav2vec2's positional convolution).
  Tensor w = zeros("w", {1, 1, 10});
  auto pool = node("AveragePool", {"x"}, {"p"}, {Attribute("kernel_shape", std::vector<std::int64_t>{5}),
                                                 Attribute("strides", std::vector<std::int64_t>{5})});
  auto slice = node("Slice", {"p", "zero1", "minus1", "two1"}, {"s"});
  std::vector<Tensor> inits = {ints("zero1", {0}), ints("minus1", {-1}), ints("two1", {2}), w};
  auto conv = node("Conv", {"x", "w"}, {"c"}, {Attribute("strides", std::vector<std::int64_t>{5})});
  auto with = run({conv, pool, slice}, {{"x", DataType::FLOAT, {"B", "1", "S"}}}, inits);
  CHECK(with["c"] == "FLOAT[B,1,floor(S/5)-1]");
  CHECK(with["p"] == "FLOAT[B,1,floor(S/5)]");
  CHECK(with["s"] == "FLOAT[B,1,floor(S/5)-1]");
  auto without = run({pool, slice}, {{"x", DataType::FLOAT, {"B", "1", "S"}}}, inits);
  CHECK(without["s"] == "FLOAT[B,1,max(0,floor(S/5)-1)]");
}

TEST_CASE("A name defined twice (malformed) does not keep the bound of its first definition") {
  // pos is first a Range(0, T), then redefined as the constant [0]: the Gather sees [0], which
  // bounds nothing, so the mask keeps min(T,32).
  auto r = run({node("Shape", {"x"}, {"shape"}), node("Gather", {"shape", "one"}, {"t"}),
                node("Range", {"zero", "t", "one"}, {"pos"}), node("Identity", {"zero1"}, {"pos"}),
                node("Gather", {"wpe", "pos"}, {"emb"}), node("Unsqueeze", {"t", "axes0"}, {"end"}),
                node("Slice", {"bias", "starts0", "end", "axes0"}, {"mask"})},
               {{"x", DataType::INT64, {"B", "T"}}},
               {ints("zero", {0}, true), ints("one", {1}, true), ints("zero1", {0}), ints("axes0", {0}),
                ints("starts0", {0}), zeros("wpe", {32, 4}), zeros("bias", {32, 32})});
  CHECK(r["emb"] == "FLOAT[1,4]");
  CHECK(r["mask"] == "FLOAT[min(T,32),32]");
}

TEST_CASE("Integer arithmetic on a size that only the facts prove >= 0 (a conformer's t // 2)") {
  // c has t = floor(S/4)-1 frames (a kernel-8 stride-4 convolution): t >= 0 in every execution
  // that succeeds, though not as an expression. So Div(t, 2), which truncates toward zero, is
  // floor(t/2), and slicing c to its first t // 2 frames gives t // 2 frames: min(floor(t/2), t)
  // needs 2*(t - floor(t/2)) >= t - 1, which holds for every integer t.
  Tensor w = zeros("w", {1, 1, 8});
  auto conv = node("Conv", {"x", "w"}, {"c"}, {Attribute("strides", std::vector<std::int64_t>{4})});
  std::vector<Tensor> inits = {ints("zero1", {0}), ints("two1", {2}), ints("axes0", {0}), ints("two", {2}, true),
                               ints("four", {4}, true), ints("one", {1}, true), w};
  auto half_of = [](const std::string& src, const std::string& t, const std::string& out) {
    return std::vector<Node>{node("Div", {t, "two"}, {out + "_q"}), node("Unsqueeze", {out + "_q", "axes0"}, {out + "_e"}),
                             node("Slice", {src, "zero1", out + "_e", "two1"}, {out})};
  };
  std::vector<Node> with = {conv, node("Shape", {"c"}, {"sc"}), node("Gather", {"sc", "two"}, {"t"})};
  for (auto& n : half_of("c", "t", "half")) with.push_back(n);
  // Relative positions as in a conformer's rel_shift: p has 2t-1 rows, so 2t-1 >= 0 and t >= 1;
  // its first (2t-1) // 2 + 1 = t rows are t rows, not min(t, 2t-1) (from 2*(2t-1 - t) >= 2t-1 - 1).
  for (auto& n : std::vector<Node>{node("Mul", {"t", "two"}, {"t2"}), node("Sub", {"t2", "one"}, {"len"}),
                                   node("Unsqueeze", {"len", "axes0"}, {"len1"}),
                                   node("ConstantOfShape", {"len1"}, {"p"}), node("Div", {"len", "two"}, {"k"}),
                                   node("Add", {"k", "one"}, {"k1"}), node("Unsqueeze", {"k1", "axes0"}, {"k1e"}),
                                   node("Slice", {"p", "zero1", "k1e", "axes0"}, {"p_head"})})
    with.push_back(n);
  auto r = run(with, {{"x", DataType::FLOAT, {"B", "1", "S"}}}, inits);
  CHECK(r["c"] == "FLOAT[B,1,floor(S/4)-1]");
  CHECK(r["half"] == "FLOAT[B,1,floor((S+4)/8)-1]");  // floor(t/2)
  CHECK(r["p"] == "FLOAT[2*floor(S/4)-3]");
  CHECK(r["p_head"] == "FLOAT[floor(S/4)-1]");
  // The same value computed from S (floor(S/4) - 1, not the size of any tensor here) could be
  // -1 for all that is known, where Div gives 0, not floor(-1/2) = -1: its half is
  // max(0, floor(t/2)), which the slice then caps at S (S = 0: 0; S = 8: 0; S = 16: 1).
  std::vector<Node> without = {node("Shape", {"x"}, {"sx"}), node("Gather", {"sx", "two"}, {"s"}),
                               node("Div", {"s", "four"}, {"s4"}), node("Sub", {"s4", "one"}, {"t"})};
  for (auto& n : half_of("x", "t", "half")) without.push_back(n);
  auto u = run(without, {{"x", DataType::FLOAT, {"B", "1", "S"}}}, inits);
  CHECK(u["half"] == "FLOAT[B,1,min(S,max(0,floor((S+4)/8)-1))]");
}

TEST_CASE("Positions from torch's arange before opset 11, NonZero(ConstantOfShape(n, 1)) + past, bound a slice too") {
  // Opsets 9 and 10 have no Range: torch exports arange(past, past + n) as the indices of n ones,
  // shifted by past. As with Range, the Gather of those positions into 64 rows proves
  // past + n <= 64, which settles the mask rows bias[past : past + n].
  auto model = [](bool shifted_by_sub) {
    std::vector<Node> nodes = {
        node("Shape", {"past"}, {"ps"}), node("Gather", {"ps", "one"}, {"p"}), node("Shape", {"x"}, {"xs"}),
        node("Gather", {"xs", "one"}, {"n"}), node("Add", {"p", "n"}, {"k"}), node("Unsqueeze", {"n", "axes0"}, {"n1"}),
        node("ConstantOfShape", {"n1"}, {"ones"}, {Attribute("value", Tensor::from_values<std::int64_t>("v", {1}, {1}))}),
        node("NonZero", {"ones"}, {"nz"}), node("Transpose", {"nz"}, {"nzt"}, {Attribute("perm", std::vector<std::int64_t>{1, 0})}),
        node("Squeeze", {"nzt", "axes1"}, {"ar"}), node("Unsqueeze", {"p", "axes0"}, {"start"}),
        node("Unsqueeze", {"k", "axes0"}, {"end"})};
    if (shifted_by_sub) {  // past - (-arange) is not arange + past: no fact from it
      nodes.push_back(node("Neg", {"ar"}, {"nar"}));
      nodes.push_back(node("Sub", {"start", "nar"}, {"pos"}));
    } else {
      nodes.push_back(node("Add", {"ar", "start"}, {"pos"}));
    }
    nodes.push_back(node("Gather", {"wpe", "pos"}, {"emb"}));
    nodes.push_back(node("Slice", {"bias", "start", "end", "axes0"}, {"mask"}));
    return run(std::move(nodes), {{"past", DataType::FLOAT, {"B", "P", "8"}}, {"x", DataType::FLOAT, {"B", "N", "8"}}},
               {ints("one", {1}, true), ints("axes0", {0}), ints("axes1", {1}), zeros("wpe", {64, 4}), zeros("bias", {64, 64})});
  };
  auto r = model(false);
  CHECK(r["nz"] == "INT64[1,N]");
  CHECK(r["emb"] == "FLOAT[N,4]");
  CHECK(r["mask"] == "FLOAT[N,64]");
  // Without a fact the rows keep their clamps.
  CHECK(model(true)["mask"].find("min(") != std::string::npos);
}

}  // namespace oxir_unit_test_infer_facts
