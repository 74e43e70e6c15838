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
  // Sizes whose sum overflows int64: a diagnostic, not a wrapped (UB) sum.
  auto huge = heads;
  const std::int64_t h = std::int64_t{1} << 62;
  huge.emplace_back("qkv_hidden_sizes", std::vector<std::int64_t>{h, h, h});
  CHECK(failed(infer_one(ms("Attention", {"x", "w"}, {"y"}, huge), {x, {"w", DataType::FLOAT16, {"D", "160"}}})));

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

TEST_CASE("contrib: the caches of Attention, MultiHeadAttention and GroupQueryAttention") {
  const std::vector<Attribute> heads{Attribute("num_heads", std::int64_t{4})};
  // Attention's present: [2, B, heads, P + S, head] after a past of P.
  auto r = infer_one(ms("Attention", {"x", "w", "", "", "past"}, {"y", "present"}, heads),
                     {{"x", DataType::FLOAT, {"B", "S", "D"}}, {"w", DataType::FLOAT, {"D", "96"}},
                      {"past", DataType::FLOAT, {"2", "B", "4", "P", "8"}}});
  CHECK(r.out(1) == "FLOAT[2,B,4,S+P,8]");
  CHECK(failed(infer_one(ms("Attention", {"x", "w", "", "", "past"}, {"y", "present"}, heads),
                         {{"x", DataType::FLOAT, {"B", "S", "D"}}, {"w", DataType::FLOAT, {"D", "96"}},
                          {"past", DataType::FLOAT, {"2", "B", "4", "P", "9"}}})));  // head size 8
  // QAttention: the same shapes, in the scales' type.
  r = infer_one(ms("QAttention", {"x", "w", "b", "s", "s", "", "", "", "past"}, {"y", "present"}, heads),
                {{"x", DataType::UINT8, {"B", "S", "D"}}, {"w", DataType::INT8, {"D", "96"}},
                 {"b", DataType::FLOAT16, {"96"}}, {"s", DataType::FLOAT16, {}},
                 {"past", DataType::FLOAT16, {"2", "B", "4", "P", "8"}}});
  CHECK(r.out(0) == "FLOAT16[B,S,32]");
  CHECK(r.out(1) == "FLOAT16[2,B,4,S+P,8]");
  // A shared buffer keeps its own length: not claimed.
  auto shared = heads;
  shared.emplace_back("past_present_share_buffer", std::int64_t{1});
  CHECK(infer_one(ms("Attention", {"x", "w", "", "", "past"}, {"y", "present"}, shared),
                  {{"x", DataType::FLOAT, {"B", "S", "D"}}, {"w", DataType::FLOAT, {"D", "96"}},
                   {"past", DataType::FLOAT, {"2", "B", "4", "M", "8"}}})
            .out(1) == "?");

  // MultiHeadAttention: [B, heads, P + L, head] per cache; without a past P = 0.
  r = infer_one(ms("MultiHeadAttention", {"q", "k", "v", "", "", "", "pk", "pv"}, {"y", "pk2", "pv2"}, heads),
                {{"q", DataType::FLOAT, {"B", "S", "32"}}, {"k", DataType::FLOAT, {"B", "S", "32"}},
                 {"v", DataType::FLOAT, {"B", "S", "32"}}, {"pk", DataType::FLOAT, {"B", "4", "P", "H"}},
                 {"pv", DataType::FLOAT, {"B", "4", "P", "8"}}});
  CHECK(r.out(1) == "FLOAT[B,4,S+P,8]");
  CHECK(r.out(2) == "FLOAT[B,4,S+P,8]");
  r = infer_one(ms("MultiHeadAttention", {"q", "k", "v"}, {"y", "pk2", "pv2"}, heads),
                {{"q", DataType::FLOAT, {"B", "S", "32"}}, {"k", DataType::FLOAT, {"B", "L", "32"}},
                 {"v", DataType::FLOAT, {"B", "L", "16"}}});
  CHECK(r.out(1) == "FLOAT[B,4,L,8]");
  CHECK(r.out(2) == "FLOAT[B,4,L,4]");

  // GroupQueryAttention: total_sequence_length built from the shapes (Shape, Gather, Add, Cast)
  // gives the caches' length max(total, P) = S + P.
  const std::vector<Attribute> gqa{Attribute("num_heads", std::int64_t{4}), Attribute("kv_num_heads", std::int64_t{2})};
  auto i64 = [](std::string name, std::int64_t v) {
    return Tensor::from_values<std::int64_t>(std::move(name), {}, std::vector<std::int64_t>{v});
  };
  {
    Node cast_to_int32("Cast", {"t64"}, {"total"});
    cast_to_int32.set_attribute(Attribute("to", static_cast<std::int64_t>(DataType::INT32)));
    Model m = make_model({Node("Identity", {"pk"}, {"pk_copy"}), Node("Shape", {"pk"}, {"pks"}),
                          Node("Gather", {"pks", "two"}, {"p"}),
                          Node("Shape", {"q"}, {"qs"}), Node("Gather", {"qs", "one"}, {"s"}),
                          Node("Add", {"p", "s"}, {"t64"}), cast_to_int32,
                          ms("GroupQueryAttention", {"q", "k", "v", "pk", "pv", "seqlens", "total"},
                             {"y", "pk2", "pv2"}, gqa)},
                         {{"q", DataType::FLOAT16, {"B", "S", "D"}}, {"k", DataType::FLOAT16, {"B", "S", "E"}},
                          {"v", DataType::FLOAT16, {"B", "S", "E"}}, {"pk", DataType::FLOAT16, {"B", "KV", "P", "16"}},
                          {"pv", DataType::FLOAT16, {"B", "2", "P", "H"}}, {"seqlens", DataType::INT32, {"B"}}},
                         {i64("one", 1), i64("two", 2)});
    (void)oxir::infer_shapes(m);
    CHECK(type_of(m, "y") == "FLOAT16[B,S,D]");
    CHECK(type_of(m, "pk2") == "FLOAT16[B,2,S+P,floor(D/4)]");
    CHECK(type_of(m, "pk_copy") == "FLOAT16[B,2,P,16]");  // the kernel checks the past's heads
  }
  // Packed QKV [B, S, (4 + 2*2) * 16]: head 16, output 4 heads of it; total unknown: the caches'
  // length is a fresh symbol, shared by both.
  r = infer_one(ms("GroupQueryAttention", {"qkv", "", "", "", "", "seqlens", "total"}, {"y", "pk2", "pv2"}, gqa),
                {{"qkv", DataType::FLOAT, {"B", "S", "128"}}, {"seqlens", DataType::INT32, {"B"}},
                 {"total", DataType::INT32, {}}});
  CHECK(r.out(0) == "FLOAT[B,S,64]");
  CHECK(r.out(1).rfind("FLOAT[B,2,", 0) == 0);
  CHECK(r.out(1) == r.out(2));
  CHECK(failed(infer_one(ms("GroupQueryAttention", {"q", "k", "", "", "", "seqlens", "total"}, {"y"}, gqa),
                         {{"q", DataType::FLOAT, {"B", "S", "64"}}, {"k", DataType::FLOAT, {"B", "S", "32"}}})));
  CHECK(failed(infer_one(ms("GroupQueryAttention", {"q", "k", "v", "", "", "seqlens"}, {"y"}, gqa),
                         {{"q", DataType::FLOAT, {"B", "S", "64"}}})));  // total_sequence_length is required
  // Head counts past 32 bits (heads + 2 * kv_heads would overflow): rejected, not computed.
  const std::vector<Attribute> huge{Attribute("num_heads", std::int64_t{1} << 62),
                                    Attribute("kv_num_heads", std::int64_t{1} << 62)};
  CHECK(failed(infer_one(ms("GroupQueryAttention", {"qkv", "", "", "", "", "seqlens", "total"}, {"y"}, huge),
                         {{"qkv", DataType::FLOAT, {"B", "S", "128"}}})));
}

TEST_CASE("contrib: QOperator pools, concat, gemm, softmax; GatherBlockQuantized") {
  const In s{"s", DataType::FLOAT, {}};
  const In z{"z", DataType::UINT8, {}};
  const std::vector<Attribute> k3s2{Attribute("kernel_shape", std::vector<std::int64_t>{3, 3}),
                                    Attribute("strides", std::vector<std::int64_t>{2, 2})};
  CHECK(infer_one(ms("QLinearAveragePool", {"x", "s", "z", "s", "z"}, {"y"}, k3s2),
                  {{"x", DataType::UINT8, {"N", "C", "H", "W"}}, s, z})
            .out() == "UINT8[N,C,floor((H+1)/2)-1,floor((W+1)/2)-1]");
  auto nhwc = k3s2;
  nhwc.emplace_back("channels_last", std::int64_t{1});
  CHECK(infer_one(ms("QLinearAveragePool", {"x", "s", "z", "s", "z"}, {"y"}, nhwc),
                  {{"x", DataType::UINT8, {"N", "H", "W", "C"}}, s, z})
            .out() == "UINT8[N,floor((H+1)/2)-1,floor((W+1)/2)-1,C]");
  CHECK(infer_one(ms("NhwcMaxPool", {"x"}, {"y"}, k3s2), {{"x", DataType::INT8, {"N", "9", "W", "C"}}}).out() ==
        "INT8[N,4,floor((W+1)/2)-1,C]");
  CHECK(failed(infer_one(ms("NhwcMaxPool", {"x"}, {"y"}, k3s2), {{"x", DataType::INT8, {"N", "W", "C"}}})));

  // QLinearConcat: off-axis dims unified (H is 7 after it), the axis summed.
  Model m = make_model({Node("Identity", {"a"}, {"a2"}),
                        ms("QLinearConcat", {"s", "z", "a2", "s", "z", "b", "s", "z"}, {"y"},
                           {Attribute("axis", std::int64_t{-1})})},
                       {{"a", DataType::UINT8, {"N", "H", "K"}}, {"b", DataType::UINT8, {"N", "7", "4"}}, s, z});
  (void)oxir::infer_shapes(m);
  CHECK(type_of(m, "y") == "UINT8[N,7,K+4]");
  CHECK(type_of(m, "a2") == "UINT8[N,7,K]");
  CHECK(failed(infer_one(ms("QLinearConcat", {"s", "z", "a", "s"}, {"y"}, {Attribute("axis", std::int64_t{0})}),
                         {{"a", DataType::UINT8, {"N"}}, s, z})));

  // QGemm: float without y_scale, else the y zero point's type.
  const In a{"a", DataType::UINT8, {"M", "K"}};
  const In b{"b", DataType::INT8, {"K", "N"}};
  CHECK(infer_one(ms("QGemm", {"a", "s", "z", "b", "s", "z"}, {"y"}), {a, s, z, b}).out() == "FLOAT[M,N]");
  CHECK(infer_one(ms("QGemm", {"a", "s", "z", "b", "s", "z", "", "s", "z"}, {"y"},
                     {Attribute("transB", std::int64_t{1})}),
                  {a, s, z, {"b", DataType::INT8, {"N", "K"}}})
            .out() == "UINT8[M,N]");
  CHECK(infer_one(ms("QLinearSoftmax", {"x", "s", "z", "s", "z"}, {"y"}), {{"x", DataType::UINT8, {"N", "S"}}, s, z})
            .out() == "UINT8[N,S]");

  // GatherBlockQuantized: uint8 data packs two 4-bit values per byte along the quantize axis.
  const In idx{"i", DataType::INT64, {"B", "S"}};
  const In sc{"sc", DataType::FLOAT16, {"V", "2"}};
  CHECK(infer_one(ms("GatherBlockQuantized", {"d", "i", "sc"}, {"y"}), {{"d", DataType::UINT8, {"V", "H"}}, idx, sc})
            .out() == "FLOAT16[B,S,2*H]");
  CHECK(infer_one(ms("GatherBlockQuantized", {"d", "i", "sc"}, {"y"}, {Attribute("bits", std::int64_t{8})}),
                  {{"d", DataType::UINT8, {"V", "H"}}, idx, sc})
            .out() == "FLOAT16[B,S,H]");
  CHECK(infer_one(ms("GatherBlockQuantized", {"d", "i", "sc"}, {"y"}), {{"d", DataType::INT4, {"V", "H"}}, idx, sc})
            .out() == "FLOAT16[B,S,H]");
  CHECK(failed(infer_one(ms("GatherBlockQuantized", {"d", "i", "sc"}, {"y"}, {Attribute("bits", std::int64_t{3})}),
                         {{"d", DataType::UINT8, {"V", "H"}}, idx, sc})));
}

TEST_CASE("contrib: DynamicQuantizeLSTM reads its transposed weights") {
  // W [dirs, input, 4*H], R [dirs, H, 4*H]: the hidden size comes from R's dim 1, the input size
  // is W's dim 1 (unified with X's).
  const In s{"s", DataType::FLOAT, {"2"}};
  const In z{"z", DataType::INT8, {"2"}};
  auto node = ms("DynamicQuantizeLSTM", {"x2", "w", "r", "", "", "", "", "", "s", "z", "s", "z"}, {"y", "yh", "yc"},
                 {Attribute("direction", std::string("bidirectional"))});
  Model m = make_model({Node("Identity", {"x"}, {"x2"}), node},
                       {{"x", DataType::FLOAT, {"T", "N", "I"}}, {"w", DataType::INT8, {"2", "6", "20"}},
                        {"r", DataType::INT8, {"2", "5", "20"}}, s, z});
  (void)oxir::infer_shapes(m);
  CHECK(type_of(m, "y") == "FLOAT[T,2,N,5]");
  CHECK(type_of(m, "yc") == "FLOAT[2,N,5]");
  CHECK(type_of(m, "x2") == "FLOAT[T,N,6]");
  // The scales and zero points are required.
  CHECK(failed(infer_one(ms("DynamicQuantizeLSTM", {"x", "w", "r"}, {"y"}), {{"x", DataType::FLOAT, {"T", "N", "I"}}})));
}

TEST_CASE("contrib: other com.microsoft operators stay unknown, with a diagnostic") {
  auto r = infer_one(ms("SparseAttention", {"x"}, {"y"}), {{"x", DataType::FLOAT, {"B", "S", "H"}}});
  CHECK(r.out() == "?");
  CHECK(r.report.nodes_unsupported == 1);
}
