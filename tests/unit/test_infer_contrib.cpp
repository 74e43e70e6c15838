// ONNX Runtime's contrib operators (com.microsoft, ops/contrib.hpp): symbolic shapes through the
// rules, the sizes their kernels force equal, and what stays unknown. Their agreement with ONNX
// Runtime runs is checked by tests/infer/newops (the ms_* cases).
#include <doctest/doctest.h>

#include "infer_test_util.hpp"

using namespace oxir;
using namespace oxir_test;

namespace {
Node ms(std::string op, std::vector<std::string> in, std::vector<std::string> out, std::vector<Attribute> attrs = {}) {
  Node n(std::move(op), std::move(in), std::move(out));
  n.domain = "com.microsoft";
  for (auto& a : attrs) n.set_attribute(std::move(a));
  return n;
}
bool failed(const OneNode& r) { return r.report.nodes_failed + r.report.conflicts > 0; }
Tensor floats(std::string name, std::vector<std::int64_t> dims) {
  std::int64_t n = 1;
  for (auto d : dims) n *= d;
  std::vector<float> v(static_cast<std::size_t>(n), 1.0f);
  return Tensor::from_values<float>(std::move(name), dims, std::span<const float>(v));
}
}  // namespace

TEST_CASE("contrib: the Gelu family keeps the input's shape; a bias ties the hidden size") {
  const In x{"x", DataType::FLOAT16, {"N", "S", "H"}};
  CHECK(infer_one(ms("Gelu", {"x"}, {"y"}), {x}).out() == "FLOAT16[N,S,H]");
  CHECK(infer_one(ms("QuickGelu", {"x"}, {"y"}), {x}).out() == "FLOAT16[N,S,H]");
  // BiasGelu's 1-D bias has the last dim's size: H becomes 8 everywhere.
  auto r = infer_one(ms("BiasGelu", {"x", "b"}, {"y"}), {x}, {floats("b", {8})});
  CHECK(r.out() == "FLOAT16[N,S,8]");
  CHECK_FALSE(failed(r));
  CHECK(failed(infer_one(ms("FastGelu", {"x", "b"}, {"y"}), {{"x", DataType::FLOAT, {"N", "4"}}}, {floats("b", {3})})));
  CHECK(failed(infer_one(ms("BiasGelu", {"x"}, {"y"}), {x})));  // the bias is required
}

TEST_CASE("contrib: skip layer normalizations") {
  const In x{"x", DataType::FLOAT, {"N", "S", "H"}};
  const In skip{"s", DataType::FLOAT, {"N", "S", "H"}};
  auto r = infer_one(ms("SkipLayerNormalization", {"x", "s", "g", "b"}, {"y", "mean", "inv", "sum"}), {x, skip},
                     {floats("g", {16}), floats("b", {16})});
  CHECK(r.out(0) == "FLOAT[N,S,16]");
  CHECK(r.out(3) == "FLOAT[N,S,16]");
  CHECK(r.out(1) == "?");  // mean and inv_std_var: ONNX Runtime documents no shape for them
  CHECK(r.out(2) == "?");
  auto simp = infer_one(ms("SkipSimplifiedLayerNormalization", {"x", "s", "g"}, {"y"}), {x, skip}, {floats("g", {4})});
  CHECK(simp.out() == "FLOAT[N,S,4]");
  // gamma must be 1-D.
  CHECK(failed(infer_one(ms("SkipLayerNormalization", {"x", "s", "g"}, {"y"}), {x, skip}, {floats("g", {2, 8})})));
  // SimplifiedLayerNormalization lives in the default domain; Y takes the scale's element type.
  Node sln("SimplifiedLayerNormalization", {"x", "g16"}, {"y"});
  const std::vector<float16> ones(8, float16(1.0f));
  const Tensor g16 = Tensor::from_values<float16>("g16", {8}, std::span<const float16>(ones));
  CHECK(infer_one(sln, {x}, {g16}).out() == "FLOAT16[N,S,H]");
}

TEST_CASE("contrib: FusedMatMul, MatMulNBits, quantized MatMuls") {
  auto r = infer_one(ms("FusedMatMul", {"a", "b"}, {"y"}, {Attribute("transA", std::int64_t{1})}),
                     {{"a", DataType::FLOAT, {"B", "K", "M"}}, {"b", DataType::FLOAT, {"K", "N"}}});
  CHECK(r.out() == "FLOAT[B,M,N]");
  {
    // The contraction dims are unified: K is 7 in every value of that size (a2, a copy of a).
    Model m = make_model({Node("Identity", {"a"}, {"a2"}),
                          ms("FusedMatMul", {"a2", "b"}, {"y"}, {Attribute("transB", std::int64_t{1})})},
                         {{"a", DataType::FLOAT, {"M", "K"}}, {"b", DataType::FLOAT, {"N", "7"}}});
    (void)oxir::infer_shapes(m);
    CHECK(type_of(m, "y") == "FLOAT[M,N]");
    CHECK(type_of(m, "a2") == "FLOAT[M,7]");
  }
  // transBatch moves the batch dims: only the type is claimed.
  r = infer_one(ms("FusedMatMul", {"a", "b"}, {"y"}, {Attribute("transBatchA", std::int64_t{1})}),
                {{"a", DataType::FLOAT, {"B", "K", "M"}}, {"b", DataType::FLOAT, {"K", "N"}}});
  CHECK(r.out() == "FLOAT[*]");

  const std::vector<Attribute> nbits{Attribute("K", std::int64_t{64}), Attribute("N", std::int64_t{10}),
                                     Attribute("bits", std::int64_t{4}), Attribute("block_size", std::int64_t{32})};
  {
    Model m = make_model({Node("Identity", {"a"}, {"a2"}), ms("MatMulNBits", {"a2", "bq", "sc"}, {"y"}, nbits)},
                         {{"a", DataType::FLOAT16, {"N", "S", "D"}}});
    (void)oxir::infer_shapes(m);
    CHECK(type_of(m, "y") == "FLOAT16[N,S,10]");
    CHECK(type_of(m, "a2") == "FLOAT16[N,S,64]");  // A's last dim is K
  }
  CHECK(failed(infer_one(ms("MatMulNBits", {"a", "bq", "sc"}, {"y"}, nbits), {{"a", DataType::FLOAT, {"N", "63"}}})));
  CHECK(failed(infer_one(ms("MatMulNBits", {"a", "bq", "sc"}, {"y"}), {{"a", DataType::FLOAT, {"N", "64"}}})));

  r = infer_one(ms("MatMulIntegerToFloat", {"a", "b", "sa", "sb"}, {"y"}),
                {{"a", DataType::UINT8, {"N", "S", "K"}}, {"b", DataType::INT8, {"K", "5"}}, {"sa", DataType::FLOAT16, {}},
                 {"sb", DataType::FLOAT16, {}}});
  CHECK(r.out() == "FLOAT16[N,S,5]");
  r = infer_one(ms("DynamicQuantizeMatMul", {"a", "b", "sb"}, {"y"}),
                {{"a", DataType::FLOAT, {"N", "K"}}, {"b", DataType::INT8, {"K", "5"}}, {"sb", DataType::FLOAT, {}}});
  CHECK(r.out() == "FLOAT[N,5]");
}

TEST_CASE("contrib: QOperator element-wise ops, pooling, quantize/dequantize, FusedConv, RotaryEmbedding") {
  const In q{"x", DataType::UINT8, {"N", "C", "H", "W"}};
  const In s{"s", DataType::FLOAT, {}};
  const In z{"z", DataType::UINT8, {}};
  auto r = infer_one(ms("QLinearAdd", {"x", "s", "z", "b", "s", "z", "s", "z"}, {"y"}),
                     {q, s, z, {"b", DataType::UINT8, {"W"}}});
  CHECK(r.out() == "UINT8[N,C,H,W]");
  CHECK(infer_one(ms("QLinearSigmoid", {"x", "s", "z", "s", "z"}, {"y"}), {q, s, z}).out() == "UINT8[N,C,H,W]");
  CHECK(infer_one(ms("QLinearGlobalAveragePool", {"x", "s", "z", "s", "z"}, {"y"}), {q, s, z}).out() ==
        "UINT8[N,C,1,1]");
  CHECK(infer_one(ms("QLinearGlobalAveragePool", {"x", "s", "z", "s", "z"}, {"y"},
                     {Attribute("channels_last", std::int64_t{1})}),
                  {q, s, z})
            .out() == "UINT8[N,1,1,W]");
  CHECK(infer_one(ms("QuantizeLinear", {"f", "s", "zi"}, {"y"}),
                  {{"f", DataType::FLOAT, {"N"}}, s, {"zi", DataType::INT16, {}}})
            .out() == "INT16[N]");
  CHECK(infer_one(ms("QuantizeLinear", {"f", "s"}, {"y"}), {{"f", DataType::FLOAT, {"N"}}, s}).out() == "UINT8[N]");
  CHECK(infer_one(ms("DequantizeLinear", {"x", "h", "z"}, {"y"}), {q, {"h", DataType::FLOAT16, {}}, z}).out() ==
        "FLOAT16[N,C,H,W]");
  r = infer_one(ms("FusedConv", {"x", "w"}, {"y"},
                   {Attribute("activation", std::string("Relu")), Attribute("strides", std::vector<std::int64_t>{2, 2})}),
                {{"x", DataType::FLOAT, {"N", "3", "H", "W"}}}, {floats("w", {8, 3, 1, 1})});
  CHECK(r.out() == "FLOAT[N,8,floor((H+1)/2),floor((W+1)/2)]");
  CHECK(infer_one(ms("RotaryEmbedding", {"x", "p", "c", "s"}, {"y"}), {{"x", DataType::FLOAT, {"B", "S", "D"}}})
            .out() == "FLOAT[B,S,D]");
}

TEST_CASE("contrib: Attention, MultiHeadAttention, EmbedLayerNormalization") {
  const In x{"x", DataType::FLOAT16, {"B", "S", "D"}};
  const std::vector<Attribute> heads{Attribute("num_heads", std::int64_t{4})};
  // Packed weights [D, 3*hidden]: the output has a third of their columns; D is their rows.
  auto r = infer_one(ms("Attention", {"x", "w"}, {"y"}, heads), {x, {"w", DataType::FLOAT16, {"768", "2304"}}});
  CHECK(r.out() == "FLOAT16[B,S,768]");
  CHECK(failed(infer_one(ms("Attention", {"x", "w"}, {"y"}, heads), {x, {"w", DataType::FLOAT16, {"768", "1000"}}})));
  auto q = heads;
  q.emplace_back("qkv_hidden_sizes", std::vector<std::int64_t>{64, 64, 32});
  CHECK(infer_one(ms("Attention", {"x", "w"}, {"y"}, q), {x, {"w", DataType::FLOAT16, {"D", "160"}}}).out() ==
        "FLOAT16[B,S,32]");
  CHECK(failed(infer_one(ms("Attention", {"x", "w"}, {"y"}, q), {x, {"w", DataType::FLOAT16, {"D", "161"}}})));
  CHECK(failed(infer_one(ms("Attention", {"x", "w"}, {"y"}), {x, {"w", DataType::FLOAT16, {"D", "9"}}})));  // num_heads

  // MultiHeadAttention: the value's hidden size, from a [B, L, Dv] or a [B, heads, L, Hv] value.
  const In k{"k", DataType::FLOAT16, {"B", "L", "D"}};
  CHECK(infer_one(ms("MultiHeadAttention", {"x", "k", "v"}, {"y"}, heads), {x, k, {"v", DataType::FLOAT16, {"B", "L", "E"}}})
            .out() == "FLOAT16[B,S,E]");
  CHECK(infer_one(ms("MultiHeadAttention", {"x", "k", "v"}, {"y"}, heads),
                  {x, {"k", DataType::FLOAT16, {"B", "4", "L", "H"}}, {"v", DataType::FLOAT16, {"B", "4", "L", "16"}}})
            .out() == "FLOAT16[B,S,64]");
  // A packed query [B, S, heads, 3, H] and no value: only the type.
  CHECK(infer_one(ms("MultiHeadAttention", {"x"}, {"y"}, heads), {{"x", DataType::FLOAT, {"B", "S", "4", "3", "8"}}})
            .out() == "FLOAT[*]");

  auto e = infer_one(ms("EmbedLayerNormalization", {"ids", "seg", "we", "pe", "se", "g", "b"}, {"y", "mask"}),
                     {{"ids", DataType::INT32, {"B", "S"}}, {"seg", DataType::INT32, {"B", "S"}},
                      {"we", DataType::FLOAT, {"V", "H"}}, {"pe", DataType::FLOAT, {"P", "H"}},
                      {"se", DataType::FLOAT, {"2", "H"}}},
                     {floats("g", {32}), floats("b", {32})});
  CHECK(e.out(0) == "FLOAT[B,S,32]");  // gamma and beta give the hidden size
  CHECK(e.out(1) == "INT32[B]");
}

TEST_CASE("contrib: other com.microsoft operators stay unknown, with a diagnostic") {
  auto r = infer_one(ms("GroupQueryAttention", {"x"}, {"y"}), {{"x", DataType::FLOAT, {"B", "S", "H"}}});
  CHECK(r.out() == "?");
  CHECK(r.report.nodes_unsupported == 1);
}
