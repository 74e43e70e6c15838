// Inference rules of the linear algebra / normalization / quantization / misc family. Expected
// types follow from the operators' definitions (ONNX Operators.md), written out by hand.
#include <doctest/doctest.h>

#include <random>
#include <regex>

#include "infer_test_util.hpp"

namespace oxir_unit_test_infer_linalg {

using namespace oxir;
using namespace oxir_test;

namespace {

using DT = DataType;

/// Replaces fresh symbol names (unk__7) by "_" so tests do not depend on numbering.
std::string norm(const std::string& s) { return std::regex_replace(s, std::regex("unk__[0-9]+"), "_"); }

Node node(std::string op, std::vector<std::string> in, std::vector<std::string> out, std::vector<Attribute> attrs = {}) {
  Node n(std::move(op), std::move(in), std::move(out));
  for (auto& a : attrs) n.set_attribute(std::move(a));
  return n;
}

std::vector<std::int64_t> I(std::initializer_list<std::int64_t> v) { return v; }

bool failed(const OneNode& r) { return r.report.nodes_failed == 1; }
bool conflict(const OneNode& r) { return r.report.conflicts >= 1; }
bool clean(const OneNode& r) { return r.report.diagnostics.empty(); }

}  // namespace

// ---------------------------------------------------------------------------------------------
// MatMul family
// ---------------------------------------------------------------------------------------------

TEST_CASE("MatMul: 2-D, batched, 1-D promotion") {
  auto r = infer_one(node("MatMul", {"a", "b"}, {"y"}), {{"a", DT::FLOAT, {"M", "K"}}, {"b", DT::FLOAT, {"K", "N"}}});
  CHECK(r.out() == "FLOAT[M,N]");
  CHECK(clean(r));
  // Batch dims broadcast: 1 vs B gives B, S vs 1 gives S.
  r = infer_one(node("MatMul", {"a", "b"}, {"y"}),
                {{"a", DT::FLOAT16, {"1", "S", "M", "K"}}, {"b", DT::FLOAT16, {"B", "1", "K", "N"}}});
  CHECK(r.out() == "FLOAT16[B,S,M,N]");
  // Lower-rank operand's batch dims are aligned on the right.
  r = infer_one(node("MatMul", {"a", "b"}, {"y"}), {{"a", DT::FLOAT, {"B", "M", "K"}}, {"b", DT::FLOAT, {"K", "N"}}});
  CHECK(r.out() == "FLOAT[B,M,N]");
  // 1-D first operand: a 1 is prepended then removed.
  r = infer_one(node("MatMul", {"a", "b"}, {"y"}), {{"a", DT::FLOAT, {"K"}}, {"b", DT::FLOAT, {"B", "K", "N"}}});
  CHECK(r.out() == "FLOAT[B,N]");
  // 1-D second operand: a 1 is appended then removed.
  r = infer_one(node("MatMul", {"a", "b"}, {"y"}), {{"a", DT::FLOAT, {"B", "M", "K"}}, {"b", DT::FLOAT, {"K"}}});
  CHECK(r.out() == "FLOAT[B,M]");
  // Dot product: a scalar.
  r = infer_one(node("MatMul", {"a", "b"}, {"y"}), {{"a", DT::FLOAT, {"K"}}, {"b", DT::FLOAT, {"K"}}});
  CHECK(r.out() == "FLOAT[]");
  // Unknown rank: element type only.
  r = infer_one(node("MatMul", {"a", "b"}, {"y"}),
                {{"a", DT::DOUBLE, {}, false}, {"b", DT::DOUBLE, {"K", "N"}}});
  CHECK(r.out() == "DOUBLE[*]");
}

TEST_CASE("MatMul: contraction dims are unified, conflicts diagnosed") {
  // K meets 4 in the first MatMul; the second one's output shows it.
  auto m = make_model({node("MatMul", {"a", "b"}, {"c"}), node("MatMul", {"x", "a2"}, {"y"})},
                      {{"a", DT::FLOAT, {"M", "K"}},
                       {"b", DT::FLOAT, {"4", "N"}},
                       {"x", DT::FLOAT, {"R", "S"}},
                       {"a2", DT::FLOAT, {"S", "K"}}});
  auto rep = infer_shapes(m);
  CHECK(rep.diagnostics.empty());
  CHECK(type_of(m, "c") == "FLOAT[M,N]");
  CHECK(type_of(m, "y") == "FLOAT[R,4]");
  auto r = infer_one(node("MatMul", {"a", "b"}, {"y"}), {{"a", DT::FLOAT, {"M", "3"}}, {"b", DT::FLOAT, {"4", "N"}}});
  CHECK(conflict(r));
  // Batch dims that cannot broadcast.
  r = infer_one(node("MatMul", {"a", "b"}, {"y"}),
                {{"a", DT::FLOAT, {"2", "M", "K"}}, {"b", DT::FLOAT, {"3", "K", "N"}}});
  CHECK(conflict(r));
  // Scalars are not allowed; wrong input count.
  r = infer_one(node("MatMul", {"a", "b"}, {"y"}), {{"a", DT::FLOAT, {}}, {"b", DT::FLOAT, {"K", "N"}}});
  CHECK(failed(r));
  r = infer_one(node("MatMul", {"a"}, {"y"}), {{"a", DT::FLOAT, {"K", "N"}}});
  CHECK(failed(r));
}

TEST_CASE("MatMulInteger and QLinearMatMul") {
  auto r = infer_one(node("MatMulInteger", {"a", "b", "az"}, {"y"}),
                     {{"a", DT::UINT8, {"B", "M", "K"}}, {"b", DT::INT8, {"K", "N"}}, {"az", DT::UINT8, {}}}, {}, 10);
  CHECK(r.out() == "INT32[B,M,N]");
  // Per-row / per-column zero points: a size other than 1 is the row / column count.
  r = infer_one(node("MatMulInteger", {"a", "b", "az", "bz"}, {"y"}),
                {{"a", DT::UINT8, {"M", "K"}}, {"b", DT::UINT8, {"K", "N"}}, {"az", DT::UINT8, {"4"}}, {"bz", DT::UINT8, {"1"}}},
                {}, 10);
  CHECK(r.out() == "INT32[4,N]");
  r = infer_one(node("MatMulInteger", {"a", "b", "az", "bz"}, {"y"}),
                {{"a", DT::UINT8, {"M", "K"}}, {"b", DT::UINT8, {"K", "3"}}, {"az", DT::UINT8, {}}, {"bz", DT::UINT8, {"5"}}},
                {}, 10);
  CHECK(conflict(r));
  r = infer_one(node("QLinearMatMul", {"a", "as", "az", "b", "bs", "bz", "ys", "yz"}, {"y"}),
                {{"a", DT::UINT8, {"M", "K"}},
                 {"as", DT::FLOAT, {}},
                 {"az", DT::UINT8, {}},
                 {"b", DT::UINT8, {"K", "N"}},
                 {"bs", DT::FLOAT, {}},
                 {"bz", DT::UINT8, {}},
                 {"ys", DT::FLOAT, {}},
                 {"yz", DT::INT8, {}}});
  CHECK(r.out() == "INT8[M,N]");
  r = infer_one(node("QLinearMatMul", {"a", "as", "az", "b"}, {"y"}),
                {{"a", DT::UINT8, {"M", "K"}}, {"as", DT::FLOAT, {}}, {"az", DT::UINT8, {}}, {"b", DT::UINT8, {"K", "N"}}});
  CHECK(failed(r));
}

TEST_CASE("Gemm: transposes, C broadcast, contraction") {
  auto r = infer_one(node("Gemm", {"a", "b", "c"}, {"y"}, {Attribute("transA", 1), Attribute("transB", 1)}),
                     {{"a", DT::FLOAT, {"K", "M"}}, {"b", DT::FLOAT, {"N", "K"}}, {"c", DT::FLOAT, {"N"}}});
  CHECK(r.out() == "FLOAT[M,N]");
  CHECK(clean(r));
  // C = [3] pins N (C broadcasts unidirectionally: a size other than 1 must be N).
  r = infer_one(node("Gemm", {"a", "b", "c"}, {"y"}),
                {{"a", DT::FLOAT, {"M", "K"}}, {"b", DT::FLOAT, {"K", "N"}}, {"c", DT::FLOAT, {"3"}}});
  CHECK(r.out() == "FLOAT[M,3]");
  // C = [1, N2]: the 1 broadcasts; a symbolic size is not forced.
  r = infer_one(node("Gemm", {"a", "b", "c"}, {"y"}),
                {{"a", DT::FLOAT, {"M", "K"}}, {"b", DT::FLOAT, {"K", "N"}}, {"c", DT::FLOAT, {"1", "P"}}});
  CHECK(r.out() == "FLOAT[M,N]");
  // Contraction unify: K vs 5.
  r = infer_one(node("Gemm", {"a", "b"}, {"y"}, {Attribute("transA", 1)}),
                {{"a", DT::FLOAT, {"5", "M"}}, {"b", DT::FLOAT, {"6", "N"}}});
  CHECK(conflict(r));
  // C optional only from opset 11.
  r = infer_one(node("Gemm", {"a", "b"}, {"y"}), {{"a", DT::FLOAT, {"M", "K"}}, {"b", DT::FLOAT, {"K", "N"}}}, {}, 13);
  CHECK(r.out() == "FLOAT[M,N]");
  r = infer_one(node("Gemm", {"a", "b"}, {"y"}), {{"a", DT::FLOAT, {"M", "K"}}, {"b", DT::FLOAT, {"K", "N"}}}, {}, 9);
  CHECK(failed(r));
  // A must be 2-D; C rank <= 2; C size mismatch.
  r = infer_one(node("Gemm", {"a", "b"}, {"y"}), {{"a", DT::FLOAT, {"B", "M", "K"}}, {"b", DT::FLOAT, {"K", "N"}}});
  CHECK(failed(r));
  r = infer_one(node("Gemm", {"a", "b", "c"}, {"y"}),
                {{"a", DT::FLOAT, {"M", "K"}}, {"b", DT::FLOAT, {"K", "N"}}, {"c", DT::FLOAT, {"1", "1", "1"}}});
  CHECK(failed(r));
  r = infer_one(node("Gemm", {"a", "b", "c"}, {"y"}),
                {{"a", DT::FLOAT, {"2", "K"}}, {"b", DT::FLOAT, {"K", "N"}}, {"c", DT::FLOAT, {"3", "1"}}});
  CHECK(conflict(r));
  // Unknown A: rank 2 output with a fresh M.
  r = infer_one(node("Gemm", {"a", "b"}, {"y"}), {{"a", DT::FLOAT, {}, false}, {"b", DT::FLOAT, {"K", "N"}}});
  CHECK(norm(r.out()) == "FLOAT[_,N]");
}

TEST_CASE("Einsum: explicit, implicit, ellipsis, repeated labels") {
  auto eq = [](const char* e) { return Attribute("equation", e); };
  auto r = infer_one(node("Einsum", {"a", "b"}, {"y"}, {eq("ij,jk->ik")}),
                     {{"a", DT::FLOAT, {"M", "K"}}, {"b", DT::FLOAT, {"K", "N"}}}, {}, 12);
  CHECK(r.out() == "FLOAT[M,N]");
  // Implicit output: labels occurring once, in alphabetical order (b is summed).
  r = infer_one(node("Einsum", {"a", "b"}, {"y"}, {eq("bij,bjk")}),
                {{"a", DT::FLOAT, {"B", "M", "K"}}, {"b", DT::FLOAT, {"B", "K", "N"}}});
  CHECK(r.out() == "FLOAT[M,N]");
  // Implicit transpose: "ji" gives "ij".
  r = infer_one(node("Einsum", {"a"}, {"y"}, {eq("ji")}), {{"a", DT::FLOAT, {"P", "Q"}}});
  CHECK(r.out() == "FLOAT[Q,P]");
  // Ellipsis dims broadcast across operands and lead the implicit output.
  r = infer_one(node("Einsum", {"a", "b"}, {"y"}, {eq("...ij,...jk->...ik")}),
                {{"a", DT::FLOAT, {"B", "M", "K"}}, {"b", DT::FLOAT, {"K", "N"}}});
  CHECK(r.out() == "FLOAT[B,M,N]");
  r = infer_one(node("Einsum", {"a", "b"}, {"y"}, {eq("...ij, ...jk")}),
                {{"a", DT::FLOAT, {"1", "H", "M", "K"}}, {"b", DT::FLOAT, {"S", "1", "K", "N"}}});
  CHECK(r.out() == "FLOAT[S,H,M,N]");
  // Diagonal: a repeated label forces equal sizes.
  r = infer_one(node("Einsum", {"a"}, {"y"}, {eq("ii->i")}), {{"a", DT::FLOAT, {"3", "N"}}});
  CHECK(r.out() == "FLOAT[3]");
  r = infer_one(node("Einsum", {"a"}, {"y"}, {eq("ii")}), {{"a", DT::FLOAT, {"N", "N"}}});
  CHECK(r.out() == "FLOAT[]");
  r = infer_one(node("Einsum", {"a", "b"}, {"y"}, {eq("ij,jk->ik")}),
                {{"a", DT::FLOAT, {"M", "3"}}, {"b", DT::FLOAT, {"4", "N"}}});
  CHECK(conflict(r));
  // Unknown rank of an ellipsis operand: unknown output rank if the output has the ellipsis.
  r = infer_one(node("Einsum", {"a", "b"}, {"y"}, {eq("...ij,jk->...ik")}),
                {{"a", DT::FLOAT, {}, false}, {"b", DT::FLOAT, {"K", "N"}}});
  CHECK(r.out() == "FLOAT[*]");
  // Label only in an operand of unknown rank: fresh.
  r = infer_one(node("Einsum", {"a", "b"}, {"y"}, {eq("ij,jk->ik")}),
                {{"a", DT::FLOAT, {}, false}, {"b", DT::FLOAT, {"K", "N"}}});
  CHECK(norm(r.out()) == "FLOAT[_,N]");
  // Malformed: operand count, rank mismatch, unknown output label, bad character, no equation.
  r = infer_one(node("Einsum", {"a"}, {"y"}, {eq("ij,jk->ik")}), {{"a", DT::FLOAT, {"M", "K"}}});
  CHECK(failed(r));
  r = infer_one(node("Einsum", {"a"}, {"y"}, {eq("ijk->i")}), {{"a", DT::FLOAT, {"M", "K"}}});
  CHECK(failed(r));
  r = infer_one(node("Einsum", {"a"}, {"y"}, {eq("ij->iz")}), {{"a", DT::FLOAT, {"M", "K"}}});
  CHECK(failed(r));
  r = infer_one(node("Einsum", {"a"}, {"y"}, {eq("i1->i")}), {{"a", DT::FLOAT, {"M", "K"}}});
  CHECK(failed(r));
  r = infer_one(node("Einsum", {"a"}, {"y"}), {{"a", DT::FLOAT, {"M", "K"}}});
  CHECK(failed(r));
  r = infer_one(node("Einsum", {"a"}, {"y"}, {eq("i..j->ij")}), {{"a", DT::FLOAT, {"M", "K"}}});
  CHECK(failed(r));
}

TEST_CASE("Det: batch dims; matrices are square") {
  auto r = infer_one(node("Det", {"x"}, {"y"}), {{"x", DT::FLOAT, {"B", "N", "N"}}});
  CHECK(r.out() == "FLOAT[B]");
  r = infer_one(node("Det", {"x"}, {"y"}), {{"x", DT::FLOAT, {"3", "3"}}});
  CHECK(r.out() == "FLOAT[]");
  r = infer_one(node("Det", {"x"}, {"y"}), {{"x", DT::FLOAT, {"B", "3", "4"}}});
  CHECK(conflict(r));
  r = infer_one(node("Det", {"x"}, {"y"}), {{"x", DT::FLOAT, {"3"}}});
  CHECK(failed(r));
}

// ---------------------------------------------------------------------------------------------
// Normalizations
// ---------------------------------------------------------------------------------------------

TEST_CASE("BatchNormalization: parameters unify with channels; training outputs") {
  const std::vector<In> ins = {{"x", DT::FLOAT, {"N", "C", "H", "W"}},
                               {"s", DT::FLOAT, {"C"}},
                               {"b", DT::FLOAT, {"C"}},
                               {"m", DT::FLOAT, {"64"}},
                               {"v", DT::FLOAT, {"C"}}};
  auto r = infer_one(node("BatchNormalization", {"x", "s", "b", "m", "v"}, {"y", "rm", "rv"},
                          {Attribute("training_mode", 1)}),
                     ins, {}, 15);
  CHECK(clean(r));
  CHECK(r.out(0) == "FLOAT[N,64,H,W]");
  CHECK(r.out(1) == "FLOAT[64]");
  CHECK(r.out(2) == "FLOAT[64]");
  // opset 15: running stats have the type of input_mean (T2).
  r = infer_one(node("BatchNormalization", {"x", "s", "b", "m", "v"}, {"y", "rm"}, {Attribute("training_mode", 1)}),
                {{"x", DT::FLOAT16, {"N", "C", "L"}},
                 {"s", DT::FLOAT16, {"C"}},
                 {"b", DT::FLOAT16, {"C"}},
                 {"m", DT::FLOAT, {"C"}},
                 {"v", DT::FLOAT, {"C"}}},
                {}, 15);
  CHECK(r.out(0) == "FLOAT16[N,C,L]");
  CHECK(r.out(1) == "FLOAT[C]");
  // Inference mode (opset 14+): only Y; statistics outputs are not produced.
  r = infer_one(node("BatchNormalization", {"x", "s", "b", "m", "v"}, {"y", "rm", "rv"}), ins, {}, 14);
  CHECK(r.out(0) == "FLOAT[N,64,H,W]");
  CHECK(r.out(1) == "?");
  CHECK(r.report.diagnostics.size() == 1);
  r = infer_one(node("BatchNormalization", {"x", "s", "b", "m", "v"}, {"y", "rm", "rv", "extra"}), ins, {}, 15);
  CHECK(failed(r));
  // opset 9: five outputs, all statistics [C].
  r = infer_one(node("BatchNormalization", {"x", "s", "b", "m", "v"}, {"y", "m1", "v1", "sm", "sv"}), ins, {}, 9);
  CHECK(r.out(0) == "FLOAT[N,64,H,W]");
  CHECK(r.out(4) == "FLOAT[64]");
  // Conflicting parameter sizes.
  r = infer_one(node("BatchNormalization", {"x", "s", "b", "m", "v"}, {"y"}),
                {{"x", DT::FLOAT, {"N", "C", "H", "W"}},
                 {"s", DT::FLOAT, {"3"}},
                 {"b", DT::FLOAT, {"C"}},
                 {"m", DT::FLOAT, {"4"}},
                 {"v", DT::FLOAT, {"C"}}});
  CHECK(conflict(r));
  // opset 7, spatial=0: parameters are C x D1 x ... (no 1-D requirement).
  r = infer_one(node("BatchNormalization", {"x", "s", "b", "m", "v"}, {"y"}, {Attribute("spatial", 0)}),
                {{"x", DT::FLOAT, {"N", "C", "H"}},
                 {"s", DT::FLOAT, {"C", "H"}},
                 {"b", DT::FLOAT, {"C", "H"}},
                 {"m", DT::FLOAT, {"C", "H"}},
                 {"v", DT::FLOAT, {"C", "H"}}},
                {}, 7);
  CHECK(clean(r));
  CHECK(r.out() == "FLOAT[N,C,H]");
  // Missing inputs; 2-D parameters with spatial (default).
  r = infer_one(node("BatchNormalization", {"x", "s", "b"}, {"y"}), {{"x", DT::FLOAT, {"N", "C"}}});
  CHECK(failed(r));
  r = infer_one(node("BatchNormalization", {"x", "s", "b", "m", "v"}, {"y"}),
                {{"x", DT::FLOAT, {"N", "C", "H"}},
                 {"s", DT::FLOAT, {"C", "H"}},
                 {"b", DT::FLOAT, {"C"}},
                 {"m", DT::FLOAT, {"C"}},
                 {"v", DT::FLOAT, {"C"}}},
                {}, 15);
  CHECK(failed(r));
}

TEST_CASE("InstanceNormalization, GroupNormalization") {
  auto r = infer_one(node("InstanceNormalization", {"x", "s", "b"}, {"y"}),
                     {{"x", DT::FLOAT, {"N", "C", "L"}}, {"s", DT::FLOAT, {"5"}}, {"b", DT::FLOAT, {"C"}}});
  CHECK(r.out() == "FLOAT[N,5,L]");
  r = infer_one(node("InstanceNormalization", {"x", "s", "b"}, {"y"}),
                {{"x", DT::FLOAT, {"N", "C", "L"}}, {"s", DT::FLOAT, {"5"}}, {"b", DT::FLOAT, {"6"}}});
  CHECK(conflict(r));
  r = infer_one(node("InstanceNormalization", {"x", "s", "b"}, {"y"}),
                {{"x", DT::FLOAT, {"N"}}, {"s", DT::FLOAT, {"5"}}, {"b", DT::FLOAT, {"5"}}});
  CHECK(failed(r));

  // opset 21: scale and bias have C entries.
  r = infer_one(node("GroupNormalization", {"x", "s", "b"}, {"y"}, {Attribute("num_groups", 2)}),
                {{"x", DT::FLOAT, {"N", "C", "H", "W"}}, {"s", DT::FLOAT, {"8"}}, {"b", DT::FLOAT, {"C"}}}, {}, 21);
  CHECK(r.out() == "FLOAT[N,8,H,W]");
  // opset 18: scale and bias have num_groups entries.
  r = infer_one(node("GroupNormalization", {"x", "s", "b"}, {"y"}, {Attribute("num_groups", 2)}),
                {{"x", DT::FLOAT, {"N", "C", "H"}}, {"s", DT::FLOAT, {"2"}}, {"b", DT::FLOAT, {"G"}}}, {}, 18);
  CHECK(r.out() == "FLOAT[N,C,H]");
  CHECK(clean(r));
  r = infer_one(node("GroupNormalization", {"x", "s", "b"}, {"y"}, {Attribute("num_groups", 2)}),
                {{"x", DT::FLOAT, {"N", "C", "H"}}, {"s", DT::FLOAT, {"3"}}, {"b", DT::FLOAT, {"2"}}}, {}, 18);
  CHECK(conflict(r));
  // Channels not divisible by the groups; missing num_groups.
  r = infer_one(node("GroupNormalization", {"x", "s", "b"}, {"y"}, {Attribute("num_groups", 4)}),
                {{"x", DT::FLOAT, {"N", "6", "H"}}, {"s", DT::FLOAT, {"6"}}, {"b", DT::FLOAT, {"6"}}}, {}, 21);
  CHECK(failed(r));
  r = infer_one(node("GroupNormalization", {"x", "s", "b"}, {"y"}),
                {{"x", DT::FLOAT, {"N", "6", "H"}}, {"s", DT::FLOAT, {"6"}}, {"b", DT::FLOAT, {"6"}}}, {}, 21);
  CHECK(failed(r));
}

TEST_CASE("LayerNormalization: normalized dims unify; Mean/InvStdDev shapes and stash_type") {
  auto r = infer_one(node("LayerNormalization", {"x", "s", "b"}, {"y", "mean", "inv"}),
                     {{"x", DT::FLOAT16, {"B", "S", "D"}}, {"s", DT::FLOAT16, {"768"}}, {"b", DT::FLOAT16, {"D"}}},
                     {}, 17);
  CHECK(clean(r));
  CHECK(r.out(0) == "FLOAT16[B,S,768]");
  CHECK(r.out(1) == "FLOAT[B,S,1]");  // stash_type defaults to FLOAT
  CHECK(r.out(2) == "FLOAT[B,S,1]");
  r = infer_one(node("LayerNormalization", {"x", "s"}, {"y", "mean"}, {Attribute("axis", 1), Attribute("stash_type", 11)}),
                {{"x", DT::DOUBLE, {"B", "S", "D"}}, {"s", DT::DOUBLE, {"S", "D"}}}, {}, 17);
  CHECK(r.out(0) == "DOUBLE[B,S,D]");
  CHECK(r.out(1) == "DOUBLE[B,1,1]");
  r = infer_one(node("LayerNormalization", {"x", "s"}, {"y"}),
                {{"x", DT::FLOAT, {"B", "S", "4"}}, {"s", DT::FLOAT, {"5"}}}, {}, 17);
  CHECK(conflict(r));
  r = infer_one(node("LayerNormalization", {"x", "s"}, {"y"}, {Attribute("axis", 3)}),
                {{"x", DT::FLOAT, {"B", "S", "D"}}, {"s", DT::FLOAT, {"D"}}}, {}, 17);
  CHECK(failed(r));
  r = infer_one(node("LayerNormalization", {"x", "s"}, {"y"}),
                {{"x", DT::FLOAT, {"B", "S", "D"}}, {"s", DT::FLOAT, {"S", "D"}}}, {}, 17);
  CHECK(failed(r));  // Scale's rank exceeds the normalized rank (axis = -1)
  r = infer_one(node("LayerNormalization", {"x"}, {"y"}), {{"x", DT::FLOAT, {"B", "D"}}}, {}, 17);
  CHECK(failed(r));
}

TEST_CASE("RMSNormalization, LpNormalization, LRN, MeanVarianceNormalization") {
  auto r = infer_one(node("RMSNormalization", {"x", "s"}, {"y"}),
                     {{"x", DT::BFLOAT16, {"B", "S", "D"}}, {"s", DT::BFLOAT16, {"D"}}}, {}, 23);
  CHECK(r.out() == "BFLOAT16[B,S,D]");
  r = infer_one(node("RMSNormalization", {"x", "s"}, {"y"}, {Attribute("axis", -4)}),
                {{"x", DT::FLOAT, {"B", "S", "D"}}, {"s", DT::FLOAT, {"D"}}}, {}, 23);
  CHECK(failed(r));

  r = infer_one(node("LpNormalization", {"x"}, {"y"}, {Attribute("axis", 1)}), {{"x", DT::FLOAT, {"N", "D"}}});
  CHECK(r.out() == "FLOAT[N,D]");
  r = infer_one(node("LpNormalization", {"x"}, {"y"}, {Attribute("axis", 2)}), {{"x", DT::FLOAT, {"N", "D"}}});
  CHECK(failed(r));
  r = infer_one(node("LpNormalization", {"x"}, {"y"}, {Attribute("p", 3)}), {{"x", DT::FLOAT, {"N", "D"}}});
  CHECK(failed(r));

  r = infer_one(node("LRN", {"x"}, {"y"}, {Attribute("size", 5)}), {{"x", DT::FLOAT, {"N", "C", "H", "W"}}});
  CHECK(r.out() == "FLOAT[N,C,H,W]");
  r = infer_one(node("LRN", {"x"}, {"y"}), {{"x", DT::FLOAT, {"N", "C", "H", "W"}}});
  CHECK(failed(r));

  r = infer_one(node("MeanVarianceNormalization", {"x"}, {"y"}), {{"x", DT::FLOAT, {"N", "C", "H", "W"}}});
  CHECK(r.out() == "FLOAT[N,C,H,W]");
  r = infer_one(node("MeanVarianceNormalization", {"x"}, {"y"}), {{"x", DT::FLOAT, {"N", "C"}}});
  CHECK(failed(r));  // default axes [0,2,3] need rank 4
  r = infer_one(node("MeanVarianceNormalization", {"x"}, {"y"}, {Attribute("axes", I({-1}))}),
                {{"x", DT::FLOAT, {"N", "C"}}});
  CHECK(r.out() == "FLOAT[N,C]");
}

TEST_CASE("Dropout: mask type by version; ratio/training_mode inputs from 12") {
  auto r = infer_one(node("Dropout", {"x", "ratio", "t"}, {"y", "mask"}),
                     {{"x", DT::FLOAT, {"N", "D"}}, {"ratio", DT::FLOAT, {}}, {"t", DT::BOOL, {}}}, {}, 13);
  CHECK(r.out(0) == "FLOAT[N,D]");
  CHECK(r.out(1) == "BOOL[N,D]");
  r = infer_one(node("Dropout", {"x"}, {"y", "mask"}), {{"x", DT::FLOAT16, {"N", "D"}}}, {}, 10);
  CHECK(r.out(1) == "BOOL[N,D]");
  r = infer_one(node("Dropout", {"x"}, {"y", "mask"}), {{"x", DT::FLOAT16, {"N", "D"}}}, {}, 7);
  CHECK(r.out(1) == "FLOAT16[N,D]");
  r = infer_one(node("Dropout", {"x", "ratio"}, {"y"}), {{"x", DT::FLOAT, {"N"}}, {"ratio", DT::FLOAT, {}}}, {}, 7);
  CHECK(failed(r));
  r = infer_one(node("Dropout", {"x", "ratio"}, {"y"}), {{"x", DT::FLOAT, {"N"}}, {"ratio", DT::FLOAT, {"2"}}}, {}, 13);
  CHECK(failed(r));
}

// ---------------------------------------------------------------------------------------------
// Quantization
// ---------------------------------------------------------------------------------------------

TEST_CASE("QuantizeLinear: output type from zero point, output_dtype, else UINT8; axis/blocks") {
  auto r = infer_one(node("QuantizeLinear", {"x", "s"}, {"y"}), {{"x", DT::FLOAT, {"N", "C"}}, {"s", DT::FLOAT, {}}}, {}, 10);
  CHECK(r.out() == "UINT8[N,C]");
  r = infer_one(node("QuantizeLinear", {"x", "s", "z"}, {"y"}),
                {{"x", DT::FLOAT, {"N", "C"}}, {"s", DT::FLOAT, {}}, {"z", DT::INT8, {}}}, {}, 13);
  CHECK(r.out() == "INT8[N,C]");
  r = infer_one(node("QuantizeLinear", {"x", "s"}, {"y"}, {Attribute("output_dtype", 22)}),
                {{"x", DT::FLOAT, {"N", "C"}}, {"s", DT::FLOAT, {}}}, {}, 21);
  CHECK(r.out() == "INT4[N,C]");
  // output_dtype is not an attribute before 21.
  r = infer_one(node("QuantizeLinear", {"x", "s"}, {"y"}, {Attribute("output_dtype", 22)}),
                {{"x", DT::FLOAT, {"N", "C"}}, {"s", DT::FLOAT, {}}}, {}, 19);
  CHECK(r.out() == "UINT8[N,C]");
  r = infer_one(node("QuantizeLinear", {"x", "s", "z"}, {"y"}, {Attribute("output_dtype", 22)}),
                {{"x", DT::FLOAT, {"N", "C"}}, {"s", DT::FLOAT, {}}, {"z", DT::INT8, {}}}, {}, 21);
  CHECK(failed(r));
  // Per-axis: the scale's length is the size of x along axis.
  r = infer_one(node("QuantizeLinear", {"x", "s", "z"}, {"y"}),
                {{"x", DT::FLOAT, {"N", "C", "H"}}, {"s", DT::FLOAT, {"16"}}, {"z", DT::UINT8, {"16"}}}, {}, 13);
  CHECK(r.out() == "UINT8[N,16,H]");
  r = infer_one(node("QuantizeLinear", {"x", "s"}, {"y"}, {Attribute("axis", 0)}),
                {{"x", DT::FLOAT, {"4", "C"}}, {"s", DT::FLOAT, {"3"}}}, {}, 13);
  CHECK(conflict(r));
  r = infer_one(node("QuantizeLinear", {"x", "s"}, {"y"}, {Attribute("axis", 2)}),
                {{"x", DT::FLOAT, {"4", "C"}}, {"s", DT::FLOAT, {"3"}}}, {}, 13);
  CHECK(failed(r));
  // Blocked: scale dim along axis = ceil(size / block_size).
  r = infer_one(node("QuantizeLinear", {"x", "s"}, {"y"}, {Attribute("axis", 1), Attribute("block_size", 32)}),
                {{"x", DT::FLOAT, {"N", "64"}}, {"s", DT::FLOAT, {"N", "2"}}}, {}, 21);
  CHECK(clean(r));
  CHECK(r.out() == "UINT8[N,64]");
  r = infer_one(node("QuantizeLinear", {"x", "s"}, {"y"}, {Attribute("axis", 1), Attribute("block_size", 32)}),
                {{"x", DT::FLOAT, {"N", "65"}}, {"s", DT::FLOAT, {"N", "2"}}}, {}, 21);
  CHECK(conflict(r));
  r = infer_one(node("QuantizeLinear", {"x", "s"}, {"y"}, {Attribute("axis", 1), Attribute("block_size", 32)}),
                {{"x", DT::FLOAT, {"N", "64"}}, {"s", DT::FLOAT, {"2"}}}, {}, 21);
  CHECK(failed(r));
  r = infer_one(node("QuantizeLinear", {"x"}, {"y"}), {{"x", DT::FLOAT, {"N"}}});
  CHECK(failed(r));
}

TEST_CASE("DequantizeLinear, DynamicQuantizeLinear") {
  auto r = infer_one(node("DequantizeLinear", {"x", "s", "z"}, {"y"}),
                     {{"x", DT::INT8, {"N", "C"}}, {"s", DT::FLOAT, {}}, {"z", DT::INT8, {}}}, {}, 13);
  CHECK(r.out() == "FLOAT[N,C]");
  // From 19 the output has the scale's type.
  r = infer_one(node("DequantizeLinear", {"x", "s"}, {"y"}), {{"x", DT::INT8, {"N", "C"}}, {"s", DT::FLOAT16, {}}}, {}, 19);
  CHECK(r.out() == "FLOAT16[N,C]");
  r = infer_one(node("DequantizeLinear", {"x", "s"}, {"y"}), {{"x", DT::INT8, {"N", "C"}}, {"s", DT::FLOAT16, {}}}, {}, 13);
  CHECK(r.out() == "FLOAT[N,C]");
  // From 23 output_dtype chooses it.
  r = infer_one(node("DequantizeLinear", {"x", "s"}, {"y"}, {Attribute("output_dtype", 16)}),
                {{"x", DT::INT8, {"N", "C"}}, {"s", DT::FLOAT, {}}}, {}, 23);
  CHECK(r.out() == "BFLOAT16[N,C]");
  r = infer_one(node("DequantizeLinear", {"x", "s"}, {"y"}, {Attribute("axis", 1)}),
                {{"x", DT::INT8, {"N", "C"}}, {"s", DT::FLOAT, {"7"}}}, {}, 13);
  CHECK(r.out() == "FLOAT[N,7]");

  r = infer_one(node("DynamicQuantizeLinear", {"x"}, {"y", "s", "z"}), {{"x", DT::FLOAT, {"N", "C"}}}, {}, 11);
  CHECK(r.out(0) == "UINT8[N,C]");
  CHECK(r.out(1) == "FLOAT[]");
  CHECK(r.out(2) == "UINT8[]");
}

// ---------------------------------------------------------------------------------------------
// Random, text and misc
// ---------------------------------------------------------------------------------------------

TEST_CASE("Random generators and Bernoulli, Multinomial") {
  auto r = infer_one(node("RandomNormal", {}, {"y"}, {Attribute("shape", I({2, 3}))}), {});
  CHECK(r.out() == "FLOAT[2,3]");
  r = infer_one(node("RandomUniform", {}, {"y"}, {Attribute("shape", I({4})), Attribute("dtype", 11)}), {});
  CHECK(r.out() == "DOUBLE[4]");
  r = infer_one(node("RandomUniform", {}, {"y"}), {});
  CHECK(failed(r));
  r = infer_one(node("RandomNormal", {}, {"y"}, {Attribute("shape", I({2})), Attribute("dtype", 99)}), {});
  CHECK(failed(r));
  r = infer_one(node("RandomNormal", {}, {"y"}, {Attribute("shape", I({2})), Attribute("dtype", 7)}), {});
  CHECK(failed(r));  // T is a floating-point type
  r = infer_one(node("RandomNormal", {}, {"y"}, {Attribute("shape", I({2, -1}))}), {});
  CHECK(failed(r));
  r = infer_one(node("RandomUniformLike", {"x"}, {"y"}), {{"x", DT::INT64, {"N"}}});
  CHECK(failed(r));
  r = infer_one(node("RandomNormalLike", {"x"}, {"y"}), {{"x", DT::FLOAT16, {"N", "3"}}});
  CHECK(r.out() == "FLOAT16[N,3]");
  r = infer_one(node("RandomUniformLike", {"x"}, {"y"}, {Attribute("dtype", 1)}), {{"x", DT::INT64, {"N"}}});
  CHECK(r.out() == "FLOAT[N]");
  r = infer_one(node("Bernoulli", {"x"}, {"y"}), {{"x", DT::FLOAT, {"N", "4"}}}, {}, 15);
  CHECK(r.out() == "FLOAT[N,4]");
  r = infer_one(node("Bernoulli", {"x"}, {"y"}, {Attribute("dtype", 9)}), {{"x", DT::DOUBLE, {"N"}}}, {}, 15);
  CHECK(r.out() == "BOOL[N]");
  r = infer_one(node("Multinomial", {"x"}, {"y"}, {Attribute("sample_size", 5)}), {{"x", DT::FLOAT, {"B", "C"}}});
  CHECK(r.out() == "INT32[B,5]");
  r = infer_one(node("Multinomial", {"x"}, {"y"}, {Attribute("dtype", 7)}), {{"x", DT::FLOAT, {"B", "C"}}});
  CHECK(r.out() == "INT64[B,1]");
  r = infer_one(node("Multinomial", {"x"}, {"y"}, {Attribute("dtype", 1)}), {{"x", DT::FLOAT, {"B", "C"}}});
  CHECK(failed(r));
  r = infer_one(node("Multinomial", {"x"}, {"y"}), {{"x", DT::FLOAT, {"C"}}});
  CHECK(failed(r));
}

TEST_CASE("TfIdfVectorizer and string operators") {
  auto r = infer_one(node("TfIdfVectorizer", {"x"}, {"y"}, {Attribute("ngram_indexes", I({0, 1, 4}))}),
                     {{"x", DT::INT64, {"N", "L"}}});
  CHECK(r.out() == "FLOAT[N,5]");
  r = infer_one(node("TfIdfVectorizer", {"x"}, {"y"}, {Attribute("ngram_indexes", I({2, 0}))}),
                {{"x", DT::STRING, {"L"}}});
  CHECK(r.out() == "FLOAT[3]");
  r = infer_one(node("TfIdfVectorizer", {"x"}, {"y"}), {{"x", DT::INT64, {"L"}}});
  CHECK(failed(r));

  r = infer_one(node("StringNormalizer", {"x"}, {"y"}, {Attribute("case_change_action", "LOWER")}),
                {{"x", DT::STRING, {"C"}}});
  CHECK(r.out() == "STRING[C]");
  r = infer_one(node("StringNormalizer", {"x"}, {"y"}, {Attribute("stopwords", std::vector<std::string>{"a"})}),
                {{"x", DT::STRING, {"1", "C"}}});
  CHECK(norm(r.out()) == "STRING[1,_]");
  r = infer_one(node("StringNormalizer", {"x"}, {"y"}), {{"x", DT::STRING, {"0"}}});
  CHECK(norm(r.out()) == "STRING[_]");  // nothing left: one empty string
  r = infer_one(node("StringNormalizer", {"x"}, {"y"}), {{"x", DT::STRING, {"2", "C"}}});
  CHECK(conflict(r));

  r = infer_one(node("StringConcat", {"a", "b"}, {"y"}), {{"a", DT::STRING, {"N", "1"}}, {"b", DT::STRING, {"3"}}}, {}, 20);
  CHECK(r.out() == "STRING[N,3]");
  r = infer_one(node("RegexFullMatch", {"x"}, {"y"}, {Attribute("pattern", "a+")}), {{"x", DT::STRING, {"N", "2"}}}, {}, 20);
  CHECK(r.out() == "BOOL[N,2]");
  r = infer_one(node("StringSplit", {"x"}, {"y", "z"}), {{"x", DT::STRING, {"N", "2"}}}, {}, 20);
  CHECK(norm(r.out(0)) == "STRING[N,2,_]");
  CHECK(r.out(1) == "INT64[N,2]");
  r = infer_one(node("ImageDecoder", {"x"}, {"y"}), {{"x", DT::UINT8, {"L"}}}, {}, 20);
  CHECK(norm(r.out()) == "UINT8[_,_,3]");
  r = infer_one(node("ImageDecoder", {"x"}, {"y"}, {Attribute("pixel_format", "Grayscale")}), {{"x", DT::UINT8, {"L"}}}, {}, 20);
  CHECK(norm(r.out()) == "UINT8[_,_,1]");
  r = infer_one(node("ImageDecoder", {"x"}, {"y"}, {Attribute("pixel_format", "CMYK")}), {{"x", DT::UINT8, {"L"}}}, {}, 20);
  CHECK(failed(r));
}

TEST_CASE("Einsum: size-1 dims broadcast across operands, not within one; ASCII label order") {
  auto eq = [](const char* e) { return Attribute("equation", e); };
  auto r = infer_one(node("Einsum", {"a", "b"}, {"y"}, {eq("i,i->i")}), {{"a", DT::FLOAT, {"N"}}, {"b", DT::FLOAT, {"1"}}});
  CHECK(r.out() == "FLOAT[N]");
  CHECK(clean(r));
  r = infer_one(node("Einsum", {"a", "b"}, {"y"}, {eq("ij,jk->ik")}),
                {{"a", DT::FLOAT, {"2", "1"}}, {"b", DT::FLOAT, {"3", "4"}}});
  CHECK(r.out() == "FLOAT[2,4]");
  r = infer_one(node("Einsum", {"a"}, {"y"}, {eq("ii->i")}), {{"a", DT::FLOAT, {"1", "3"}}});
  CHECK(conflict(r));
  // Implicit output orders labels by character code: upper case first.
  r = infer_one(node("Einsum", {"a"}, {"y"}, {eq("bA")}), {{"a", DT::FLOAT, {"P", "Q"}}});
  CHECK(r.out() == "FLOAT[Q,P]");
}

namespace {
// Random well- and ill-formed nodes: rules must diagnose, never crash or throw out of the engine.
struct Fuzz {
  std::mt19937 rng{12345};
  int pick(int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); }
  In input(const std::string& name) {
    static const DT elems[] = {DT::FLOAT, DT::FLOAT16, DT::INT8, DT::UINT8, DT::INT64, DT::STRING, DT::UNDEFINED};
    static const char* dims[] = {"1", "2", "3", "4", "0", "N", "M", "?", "64"};
    In in{name, elems[pick(7)], {}, pick(6) != 0};
    const int rank = pick(5);
    for (int k = 0; k < rank; ++k) in.dims.emplace_back(dims[pick(9)]);
    return in;
  }
  Attribute attr() {
    static const char* int_names[] = {"axis", "transA", "transB", "training_mode", "spatial", "num_groups",
                                      "block_size", "output_dtype", "stash_type", "dtype", "sample_size",
                                      "size", "p", "broadcast", "maxsplit"};
    static const char* eqs[] = {"ij,jk->ik", "...ii->...i", "i", "", "->", "ij->ji", "a...b,b...c", "...,...->...",
                                "ab,ab,ab->", "i.j", "ij->jj"};
    switch (pick(6)) {
      case 0: return Attribute(int_names[pick(15)], static_cast<std::int64_t>(pick(80)) - 20);
      case 1: return Attribute(int_names[pick(15)], std::int64_t{1} << 62);
      case 2: return Attribute("equation", eqs[pick(11)]);
      case 3: {
        std::vector<std::int64_t> v;
        for (int k = pick(4); k > 0; --k) v.push_back(static_cast<std::int64_t>(pick(10)) - 3);
        static const char* list_names[] = {"shape", "axes", "ngram_indexes"};
        return Attribute(list_names[pick(3)], v);
      }
      case 4: return Attribute("pixel_format", pick(2) ? "RGB" : "xyz");
      default: return Attribute("axis", 2.5f);  // wrong attribute kind
    }
  }
};
}  // namespace

TEST_CASE("linalg rules: random malformed nodes are diagnosed, never crash") {
  const char* ops[] = {"MatMul", "MatMulInteger", "QLinearMatMul", "Gemm", "Einsum", "BatchNormalization",
                       "InstanceNormalization", "LayerNormalization", "GroupNormalization", "RMSNormalization",
                       "LpNormalization", "LRN", "MeanVarianceNormalization", "Dropout", "QuantizeLinear",
                       "DequantizeLinear", "DynamicQuantizeLinear", "Det", "TfIdfVectorizer", "Bernoulli",
                       "RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike", "Multinomial",
                       "StringNormalizer", "StringConcat", "RegexFullMatch", "StringSplit", "ImageDecoder"};
  const std::int64_t opsets[] = {1, 6, 7, 9, 10, 11, 12, 13, 14, 15, 17, 18, 19, 21, 23, 25};
  Fuzz f;
  for (int iter = 0; iter < 4000; ++iter) {
    const std::string op = ops[f.pick(30)];
    std::vector<std::string> in_names;
    std::vector<In> ins;
    const int n_in = f.pick(9);
    for (int k = 0; k < n_in; ++k) {
      if (f.pick(8) == 0) {
        in_names.emplace_back();
        continue;
      }
      in_names.push_back(std::string("i").append(std::to_string(k)));  // not "i" + ...: GCC 12 -Wrestrict false positive
      ins.push_back(f.input(in_names.back()));
    }
    std::vector<std::string> outs;
    for (int k = f.pick(5) + 1; k > 0; --k) outs.push_back(std::string("o").append(std::to_string(k)));
    Node n(op, in_names, outs);
    for (int k = f.pick(4); k > 0; --k) n.set_attribute(f.attr());
    auto m = make_model({n}, ins, {}, opsets[f.pick(16)]);
    CHECK_NOTHROW((void)infer_shapes(m));
  }
}

}  // namespace oxir_unit_test_infer_linalg
