// ONNX Runtime's contrib operators (com.microsoft, ops/contrib.hpp): symbolic shapes through the
// rules, the sizes their kernels force equal, and what stays unknown. Their agreement with ONNX
// Runtime runs is checked by tests/infer/newops (the ms_* cases).
#include <doctest/doctest.h>

#include "infer_test_util.hpp"

namespace oxir_unit_test_infer_contrib {

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
Tensor halfs(std::string name, std::vector<std::int64_t> dims) {
  std::int64_t n = 1;
  for (auto d : dims) n *= d;
  std::vector<float16> v(static_cast<std::size_t>(n), float16(1.0f));
  return Tensor::from_values<float16>(std::move(name), dims, std::span<const float16>(v));
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
  // mean and inv_std_var: one float per row (ONNX Runtime's kernel), also for float16 input.
  CHECK(r.out(1) == "FLOAT[N,S,1]");
  CHECK(r.out(2) == "FLOAT[N,S,1]");
  const In x16{"x", DataType::FLOAT16, {"T", "8"}};
  auto h = infer_one(ms("SkipLayerNormalization", {"x", "x", "g"}, {"y", "mean"}), {x16}, {halfs("g", {8})});
  CHECK(h.out(0) == "FLOAT16[T,8]");
  CHECK(h.out(1) == "FLOAT[T,1]");
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

TEST_CASE("contrib: MRotaryEmbedding keeps the input's shape; position_ids is [3, B, S]") {
  const std::vector<Attribute> sec{Attribute("num_heads", std::int64_t{2}),
                                   Attribute("mrope_section", std::vector<std::int64_t>{2, 1, 1})};
  // [B, S, hidden]: the positions' batch and sequence are the input's
  auto r = infer_one(ms("MRotaryEmbedding", {"x", "p", "c", "s"}, {"y"}, sec),
                     {{"x", DataType::FLOAT16, {"B", "S", "16"}}, {"p", DataType::INT64, {"3", "N", "L"}}});
  CHECK(r.out() == "FLOAT16[B,S,16]");
  CHECK_FALSE(failed(r));
  // sizes the positions know reach the output
  r = infer_one(ms("MRotaryEmbedding", {"x", "p", "c", "s"}, {"y"}, sec),
                {{"x", DataType::FLOAT, {"B", "S", "16"}}, {"p", DataType::INT64, {"3", "2", "5"}}});
  CHECK(r.out() == "FLOAT[2,5,16]");
  // [B, N, S, H]: the sequence is the third axis
  r = infer_one(ms("MRotaryEmbedding", {"x", "p", "c", "s"}, {"y"}, sec),
                {{"x", DataType::FLOAT, {"B", "2", "S", "8"}}, {"p", DataType::INT64, {"3", "B", "7"}}});
  CHECK(r.out() == "FLOAT[B,2,7,8]");
  // what the kernel refuses: ranks other than 3/4, position_ids not [3, B, S], batches that differ
  CHECK(failed(infer_one(ms("MRotaryEmbedding", {"x", "p", "c", "s"}, {"y"}, sec), {{"x", DataType::FLOAT, {"6", "8"}}})));
  CHECK(failed(infer_one(ms("MRotaryEmbedding", {"x", "p", "c", "s"}, {"y"}, sec),
                         {{"x", DataType::FLOAT, {"B", "S", "8"}}, {"p", DataType::INT64, {"B", "S"}}})));
  CHECK(failed(infer_one(ms("MRotaryEmbedding", {"x", "p", "c", "s"}, {"y"}, sec),
                         {{"x", DataType::FLOAT, {"B", "S", "8"}}, {"p", DataType::INT64, {"4", "B", "S"}}})));
  CHECK(failed(infer_one(ms("MRotaryEmbedding", {"x", "p", "c", "s"}, {"y"}, sec),
                         {{"x", DataType::FLOAT, {"2", "S", "8"}}, {"p", DataType::INT64, {"3", "1", "S"}}})));
  CHECK(failed(infer_one(ms("MRotaryEmbedding", {"x", "p", "c"}, {"y"}, sec), {{"x", DataType::FLOAT, {"B", "S", "8"}}})));
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

TEST_CASE("contrib: ONNX Runtime's versions of standard operators and small fused operators") {
  const Tensor axis1 = Tensor::from_values<std::int32_t>("ax", {}, std::vector<std::int32_t>{1});
  const Tensor axis_m3 = Tensor::from_values<std::int32_t>("ax", {1}, std::vector<std::int32_t>{-3});
  const In x{"x", DataType::FLOAT, {"N", "S"}};
  CHECK(infer_one(ms("ExpandDims", {"x", "ax"}, {"y"}), {x}, {axis1}).out() == "FLOAT[N,1,S]");
  CHECK(infer_one(ms("ExpandDims", {"x", "ax"}, {"y"}), {x}, {axis_m3}).out() == "FLOAT[1,N,S]");
  // An axis known only at run time: the rank, not where the 1 goes.
  auto r = infer_one(ms("ExpandDims", {"x", "ax"}, {"y"}), {x, {"ax", DataType::INT32, {}}});
  CHECK(r.out().rfind("FLOAT[", 0) == 0);
  CHECK(r.out().find("N") == std::string::npos);
  const Tensor axis3 = Tensor::from_values<std::int32_t>("ax", {}, std::vector<std::int32_t>{3});
  CHECK(failed(infer_one(ms("ExpandDims", {"x", "ax"}, {"y"}), {x}, {axis3})));  // past [-(r+1), r]

  // Inverse ties the two matrix dims; CDist the columns.
  CHECK(infer_one(ms("Inverse", {"a"}, {"y"}), {{"a", DataType::DOUBLE, {"B", "M", "3"}}}).out() == "DOUBLE[B,3,3]");
  CHECK(failed(infer_one(ms("Inverse", {"a"}, {"y"}), {{"a", DataType::FLOAT, {"3", "4"}}})));
  CHECK(infer_one(ms("CDist", {"a", "b"}, {"y"}), {{"a", DataType::FLOAT, {"M", "K"}}, {"b", DataType::FLOAT, {"N", "4"}}})
            .out() == "FLOAT[M,N]");
  CHECK(failed(infer_one(ms("CDist", {"a", "b"}, {"y"}),
                         {{"a", DataType::FLOAT, {"B", "M", "K"}}, {"b", DataType::FLOAT, {"N", "K"}}})));

  // FusedGemm is Gemm (C optional); TransposeMatMul is FusedMatMul; MatMulInteger16 gives int32.
  const std::vector<Attribute> relu{Attribute("activation", std::string("Relu")), Attribute("transB", std::int64_t{1})};
  CHECK(infer_one(ms("FusedGemm", {"a", "b"}, {"y"}, relu),
                  {{"a", DataType::FLOAT, {"M", "K"}}, {"b", DataType::FLOAT, {"N", "K"}}})
            .out() == "FLOAT[M,N]");
  CHECK(failed(infer_one(ms("FusedGemm", {"a", "b", "c"}, {"y"}, relu),
                         {{"a", DataType::FLOAT, {"M", "K"}}, {"b", DataType::FLOAT, {"5", "K"}},
                          {"c", DataType::FLOAT, {"4"}}})));
  CHECK(infer_one(ms("TransposeMatMul", {"a", "b"}, {"y"}, {Attribute("transB", std::int64_t{1})}),
                  {{"a", DataType::FLOAT, {"B", "M", "K"}}, {"b", DataType::FLOAT, {"N", "K"}}})
            .out() == "FLOAT[B,M,N]");
  CHECK(infer_one(ms("MatMulInteger16", {"a", "b"}, {"y"}),
                  {{"a", DataType::INT16, {"M", "K"}}, {"b", DataType::INT16, {"K", "N"}}})
            .out() == "INT32[M,N]");
  // uint16 x uint16: documented as uint32, inferred as int32 by ONNX Runtime, and no kernel: no type.
  CHECK(infer_one(ms("MatMulInteger16", {"a", "b"}, {"y"}),
                  {{"a", DataType::UINT16, {"M", "K"}}, {"b", DataType::UINT16, {"K", "N"}}})
            .out() == "UNDEFINED[M,N]");

  // MatMulBnb4: [..., K] -> [..., N], or [..., N] -> [..., K] with transB = 0.
  const std::vector<Attribute> bnb{Attribute("K", std::int64_t{16}), Attribute("N", std::int64_t{8}),
                                   Attribute("block_size", std::int64_t{16}), Attribute("quant_type", std::int64_t{1})};
  CHECK(infer_one(ms("MatMulBnb4", {"a", "b", "m"}, {"y"}, bnb), {{"a", DataType::FLOAT16, {"B", "S", "K"}}}).out() ==
        "FLOAT16[B,S,8]");
  auto bnb0 = bnb;
  bnb0.emplace_back("transB", std::int64_t{0});
  CHECK(infer_one(ms("MatMulBnb4", {"a", "b", "m"}, {"y"}, bnb0), {{"a", DataType::FLOAT, {"B", "N"}}}).out() ==
        "FLOAT[B,16]");
  CHECK(failed(infer_one(ms("MatMulBnb4", {"a", "b", "m"}, {"y"}, bnb), {{"a", DataType::FLOAT, {"B", "15"}}})));

  // com.microsoft QLinearConv with channels_last: NHWC in and out, W stays [M, C/group, kH, kW].
  const In s{"s", DataType::FLOAT, {}};
  const In z{"z", DataType::INT8, {}};
  const In w{"w", DataType::INT8, {"8", "2", "3", "3"}};
  const std::vector<Attribute> nhwc{Attribute("channels_last", std::int64_t{1}), Attribute("group", std::int64_t{2}),
                                    Attribute("strides", std::vector<std::int64_t>{2, 2}),
                                    Attribute("pads", std::vector<std::int64_t>{1, 1, 1, 1})};
  CHECK(infer_one(ms("QLinearConv", {"x", "s", "z", "w", "s", "z", "s", "z"}, {"y"}, nhwc),
                  {{"x", DataType::INT8, {"N", "H", "W", "C"}}, s, z, w})
            .out() == "INT8[N,floor((H+1)/2),floor((W+1)/2),8]");
  CHECK(infer_one(ms("QLinearConv", {"x", "s", "z", "w", "s", "z", "s", "z"}, {"y"}),
                  {{"x", DataType::INT8, {"N", "2", "H", "W"}}, s, z, w})
            .out() == "INT8[N,8,H-2,W-2]");
  {
    // NHWC channels are unified with W's input channels times the group.
    Model m = make_model({Node("Identity", {"x"}, {"x2"}),
                          ms("QLinearConv", {"x2", "s", "z", "w", "s", "z", "s", "z"}, {"y"}, nhwc)},
                         {{"x", DataType::INT8, {"N", "H", "W", "C"}}, s, z, w});
    (void)oxir::infer_shapes(m);
    CHECK(type_of(m, "x2") == "INT8[N,H,W,4]");
  }

  // QLinearWhere broadcasts its three data inputs; QLinearReduceMean (no CPU kernel) reduces.
  const In zu{"zu", DataType::UINT8, {}};
  CHECK(infer_one(ms("QLinearWhere", {"c", "a", "s", "zu", "b", "s", "zu", "s", "zu"}, {"y"}),
                  {{"c", DataType::BOOL, {"N", "1", "S"}}, {"a", DataType::UINT8, {"1", "4", "1"}},
                   {"b", DataType::UINT8, {"S"}}, s, zu})
            .out() == "UINT8[N,4,S]");
  const std::vector<Attribute> red{Attribute("axes", std::vector<std::int64_t>{1, -1}),
                                   Attribute("keepdims", std::int64_t{0})};
  CHECK(infer_one(ms("QLinearReduceMean", {"x", "s", "zu", "s", "zu"}, {"y"}, red),
                  {{"x", DataType::UINT8, {"N", "C", "H", "W"}}, s, zu})
            .out() == "UINT8[N,H]");
  CHECK(infer_one(ms("QLinearReduceMean", {"x", "s", "zu", "s", "zu"}, {"y"},
                     {Attribute("axes", std::vector<std::int64_t>{2}), Attribute("keepdims", std::int64_t{1})}),
                  {{"x", DataType::UINT8, {"N", "C", "H"}}, s, zu})
            .out() == "UINT8[N,C,1]");
  CHECK(failed(infer_one(ms("QLinearReduceMean", {"x", "s", "zu", "s", "zu"}, {"y"},
                            {Attribute("axes", std::vector<std::int64_t>{2})}),
                         {{"x", DataType::UINT8, {"N", "C", "H"}}, s, zu})));  // keepdims is required

  // MoE and QMoE keep the input's shape; too few inputs is an error.
  CHECK(infer_one(ms("MoE", {"x", "r", "w1", "", "w2"}, {"y"}), {{"x", DataType::FLOAT16, {"B", "S", "H"}}}).out() ==
        "FLOAT16[B,S,H]");
  CHECK(infer_one(ms("QMoE", {"x", "r", "w1", "s1", "", "w2", "s2"}, {"y"}), {{"x", DataType::FLOAT, {"T", "H"}}})
            .out() == "FLOAT[T,H]");
  CHECK(failed(infer_one(ms("QMoE", {"x", "r", "w1", "s1", ""}, {"y"}), {{"x", DataType::FLOAT, {"T", "H"}}})));

  // Unique: 1-D only; the count of unique values is a fresh symbol shared by y and counts.
  r = infer_one(ms("Unique", {"x"}, {"y", "idx", "counts"}), {{"x", DataType::FLOAT, {"N"}}});
  CHECK(r.out(1) == "INT64[N]");
  CHECK(r.out(0).substr(5) == r.out(2).substr(5));  // "FLOAT[u]" and "INT64[u]"
  CHECK(failed(infer_one(ms("Unique", {"x"}, {"y", "idx", "counts"}), {{"x", DataType::FLOAT, {"N", "2"}}})));

  // Pad with [1, 2r] pads; negative pads crop.
  const Tensor pads = Tensor::from_values<std::int64_t>("p", {1, 4}, std::vector<std::int64_t>{1, -1, 2, 0});
  CHECK(infer_one(ms("Pad", {"x", "p"}, {"y"}), {x}, {pads}).out() == "FLOAT[N+3,S-1]");
  CHECK(failed(infer_one(ms("Pad", {"x", "p"}, {"y"}, {Attribute("mode", std::string("wrap"))}), {x}, {pads})));

  // CropAndResize sizes its crops from crop_size's contents.
  const Tensor crop = Tensor::from_values<std::int32_t>("crop", {2}, std::vector<std::int32_t>{7, 5});
  CHECK(infer_one(ms("CropAndResize", {"x", "rois", "bi", "crop"}, {"y"}),
                  {{"x", DataType::FLOAT, {"N", "C", "H", "W"}}, {"rois", DataType::FLOAT, {"R", "4"}},
                   {"bi", DataType::INT32, {"R"}}},
                  {crop})
            .out() == "FLOAT[R,C,7,5]");

  // UnfoldTensor: floor((d - size)/step) + 1 windows and a trailing dim of `size`.
  CHECK(infer_one(ms("UnfoldTensor", {"x"}, {"y"}, {Attribute("size", std::int64_t{4}), Attribute("step", std::int64_t{2})}),
                  {x})
            .out() == "FLOAT[N,floor(S/2)-1,4]");
  CHECK(failed(infer_one(ms("UnfoldTensor", {"x"}, {"y"}, {Attribute("size", std::int64_t{4})}),
                         {{"x", DataType::FLOAT, {"N", "3"}}})));
  // MurmurHash3: uint32 unless positive = 0.
  CHECK(infer_one(ms("MurmurHash3", {"x"}, {"y"}), {{"x", DataType::STRING, {"N"}}}).out() == "UINT32[N]");
  CHECK(infer_one(ms("MurmurHash3", {"x"}, {"y"}, {Attribute("positive", std::int64_t{0})}),
                  {{"x", DataType::INT64, {"N"}}})
            .out() == "INT32[N]");
}

TEST_CASE("contrib: CUDA-only diffusion operators, as ONNX Runtime documents them") {
  const In x{"x", DataType::FLOAT16, {"N", "S", "D"}};
  const In bias{"b", DataType::FLOAT16, {"D"}};
  CHECK(infer_one(ms("BiasAdd", {"x", "b", "x"}, {"y"}), {x, bias}).out() == "FLOAT16[N,S,D]");
  CHECK(infer_one(ms("BiasSplitGelu", {"x", "b"}, {"y"}), {{"x", DataType::FLOAT16, {"N", "S", "2560"}}}, {})
            .out() == "FLOAT16[N,S,1280]");
  // A symbolic D: half of it only when D is provably even.
  auto r = infer_one(ms("BiasSplitGelu", {"x", "b"}, {"y"}), {x, bias});
  CHECK(r.out().rfind("FLOAT16[N,S,", 0) == 0);
  CHECK(r.out() != "FLOAT16[N,S,D]");
  CHECK(failed(infer_one(ms("BiasSplitGelu", {"x", "b"}, {"y"}), {{"x", DataType::FLOAT16, {"N", "S", "5"}}})));
  const std::vector<Attribute> gn{Attribute("groups", std::int64_t{32}), Attribute("activation", std::int64_t{1})};
  const In nhwc{"x", DataType::FLOAT16, {"N", "H", "W", "C"}};
  const In g{"g", DataType::FLOAT, {"320"}};
  Model m = make_model({Node("Identity", {"x"}, {"x2"}), ms("GroupNorm", {"x2", "g", "g"}, {"y"}, gn)}, {nhwc, g});
  (void)oxir::infer_shapes(m);
  CHECK(type_of(m, "y") == "FLOAT16[N,H,W,320]");
  CHECK(type_of(m, "x2") == "FLOAT16[N,H,W,320]");
  r = infer_one(ms("SkipGroupNorm", {"x", "g", "g", "s"}, {"y", "sum"}, gn), {nhwc, g, {"s", DataType::FLOAT16, {"N", "C"}}});
  CHECK(r.out(0) == "FLOAT16[N,H,W,320]");
  CHECK(r.out(1) == "FLOAT16[N,H,W,320]");
  CHECK(failed(infer_one(ms("GroupNorm", {"x", "g", "g"}, {"y"}, {Attribute("groups", std::int64_t{32})}), {nhwc, g})));
}

TEST_CASE("contrib: DecoderMaskedMultiHeadAttention") {
  const std::vector<Attribute> attrs{Attribute("num_heads", std::int64_t{2}),
                                     Attribute("past_present_share_buffer", std::int64_t{1})};
  const In q{"q", DataType::FLOAT, {"B", "1", "8"}};
  const In past{"pk", DataType::FLOAT, {"B", "2", "M", "4"}};
  const Tensor plen = Tensor::from_values<std::int32_t>("plen", {1}, std::vector<std::int32_t>{5});
  auto r = infer_one(ms("DecoderMaskedMultiHeadAttention", {"q", "q", "q", "", "", "pk", "pk", "plen"},
                        {"y", "k", "v", "qk"}, attrs),
                     {q, past}, {plen});
  CHECK(r.out(0) == "FLOAT[B,1,8]");
  CHECK(r.out(1) == "FLOAT[B,2,M,4]");  // the shared buffer
  CHECK(r.out(3) == "UNDEFINED[B,2,1,6]");  // past_sequence_length + 1 keys
  // Cross attention over [B, heads, L, head] keys and values.
  r = infer_one(ms("DecoderMaskedMultiHeadAttention", {"q", "k", "k"}, {"y", "", "", "qk"},
                   {Attribute("num_heads", std::int64_t{2})}),
                {q, {"k", DataType::FLOAT, {"B", "2", "L", "4"}}});
  CHECK(r.out(0) == "FLOAT[B,1,8]");
  CHECK(r.out(3) == "UNDEFINED[B,2,1,L]");
  // More than one query token is an error.
  CHECK(failed(infer_one(ms("DecoderMaskedMultiHeadAttention", {"q"}, {"y"}, attrs), {{"q", DataType::FLOAT, {"B", "2", "8"}}})));
  // key and value of one rank, 3 or 4 (the kernel's check); a value of rank 1 against a 4-D key
  // (found by fuzz_model_structured: read past the value's dims)
  const std::vector<Attribute> h2{Attribute("num_heads", std::int64_t{2})};
  CHECK(failed(infer_one(ms("DecoderMaskedMultiHeadAttention", {"q", "k", "v"}, {"y"}, h2),
                         {{"q", DataType::FLOAT, {"B", "1", "8"}}, {"k", DataType::FLOAT, {"B", "2", "L", "4"}},
                          {"v", DataType::FLOAT, {"8"}}})));
  CHECK(failed(infer_one(ms("DecoderMaskedMultiHeadAttention", {"q", "k", "v"}, {"y"}, h2),
                         {{"q", DataType::FLOAT, {"B", "1", "8"}}, {"k", DataType::FLOAT, {"B", "2", "L", "4"}},
                          {"v", DataType::FLOAT, {"B", "L", "8"}}})));
  CHECK(failed(infer_one(ms("DecoderMaskedMultiHeadAttention", {"q", "k", "v"}, {"y"}, h2),
                         {{"q", DataType::FLOAT, {"B", "1", "8"}}, {"k", DataType::FLOAT, {"B", "8"}},
                          {"v", DataType::FLOAT, {"B", "8"}}})));
  CHECK(infer_one(ms("DecoderMaskedMultiHeadAttention", {"q", "k", "v"}, {"y"}, h2),
                  {{"q", DataType::FLOAT, {"B", "1", "8"}}, {"k", DataType::FLOAT, {"B", "2", "L", "4"}},
                   {"v", DataType::FLOAT, {"B", "2", "L", "4"}}})
            .out() == "FLOAT[B,1,8]");
}

TEST_CASE("contrib: SparseAttention writes into its past buffers") {
  // As ONNX Runtime 1.30's CPU kernel ran it (caches passed as pre-allocated outputs): num_heads
  // 2, kv_num_heads 1, head size 16: output [B, S, 32], the caches keep the past's shape.
  const std::vector<Attribute> attrs{Attribute("num_heads", std::int64_t{2}), Attribute("kv_num_heads", std::int64_t{1}),
                                     Attribute("sparse_block_size", std::int64_t{16})};
  const In past{"p", DataType::FLOAT, {"B", "1", "M", "16"}};
  const In rows{"rows", DataType::INT32, {"1", "3"}};
  const In cols{"cols", DataType::INT32, {"1", "3"}};
  const In tot{"tot", DataType::INT32, {}};
  const In klen{"klen", DataType::INT32, {"B"}};
  auto r = infer_one(ms("SparseAttention", {"q", "k", "k", "p", "p", "rows", "cols", "tot", "klen"}, {"y", "pk", "pv"}, attrs),
                     {{"q", DataType::FLOAT, {"B", "S", "D"}}, {"k", DataType::FLOAT, {"B", "S", "16"}}, past, rows, cols,
                      tot, klen});
  CHECK(r.out(0) == "FLOAT[B,S,32]");
  CHECK(r.out(1) == "FLOAT[B,1,M,16]");
  CHECK(r.out(2) == "FLOAT[B,1,M,16]");
  // Packed QKV: (2 + 2*1) * 16 = 64 columns in, 32 out.
  r = infer_one(ms("SparseAttention", {"q", "", "", "p", "p", "rows", "cols", "tot", "klen"}, {"y", "pk", "pv"}, attrs),
                {{"q", DataType::FLOAT, {"B", "S", "64"}}, past, rows, cols, tot, klen});
  CHECK(r.out(0) == "FLOAT[B,S,32]");
  CHECK_FALSE(failed(r));
  CHECK(failed(infer_one(ms("SparseAttention", {"q", "", "", "p", "p", "rows", "cols", "tot", "klen"}, {"y", "pk", "pv"}, attrs),
                         {{"q", DataType::FLOAT, {"B", "S", "48"}}, past, rows, cols, tot, klen})));
}

TEST_CASE("contrib: other com.microsoft operators stay unknown, with a diagnostic") {
  auto r = infer_one(ms("QOrderedGelu", {"x"}, {"y"}), {{"x", DataType::FLOAT, {"B", "S", "H"}}});
  CHECK(r.out() == "?");
  CHECK(r.report.nodes_unsupported == 1);
}

TEST_CASE("contrib: GatedRMSNorm keeps X's shape; the gate has it too, the scale divides its last dim") {
  auto r = infer_one(ms("GatedRMSNorm", {"x", "s", "g"}, {"y"}),
                     {{"x", DataType::FLOAT16, {"B", "S", "H"}}, {"s", DataType::FLOAT16, {"128"}},
                      {"g", DataType::FLOAT16, {"B", "T", "4096"}}});
  CHECK(r.out() == "FLOAT16[B,S,4096]");  // the gate's sizes are X's
  CHECK_FALSE(failed(r));
  CHECK(failed(infer_one(ms("GatedRMSNorm", {"x", "s", "g"}, {"y"}),
                         {{"x", DataType::FLOAT, {"2", "3", "8"}}, {"s", DataType::FLOAT, {"3"}},
                          {"g", DataType::FLOAT, {"2", "3", "8"}}})));
  CHECK(failed(infer_one(ms("GatedRMSNorm", {"x", "s", "g"}, {"y"}),
                         {{"x", DataType::FLOAT, {"2", "3", "8"}}, {"s", DataType::FLOAT, {"8"}},
                          {"g", DataType::FLOAT, {"6", "8"}}})));
  CHECK(failed(infer_one(ms("GatedRMSNorm", {"x", "s"}, {"y"}), {{"x", DataType::FLOAT, {"2", "8"}}})));
}

namespace {
Tensor int64s(std::string name, std::vector<std::int64_t> dims, std::vector<std::int64_t> v) {
  return Tensor::from_values<std::int64_t>(std::move(name), std::move(dims), std::move(v));
}
Attribute ia(std::string name, std::int64_t v) { return Attribute(std::move(name), v); }
}  // namespace

// The rejections below are each one ONNX Runtime 1.30 refuses (at load or at run).
TEST_CASE("contrib: LinearAttentionGate") {
  const In a{"a", DataType::FLOAT, {"B", "T", "H"}};
  auto r = infer_one(ms("LinearAttentionGate", {"a", "dt", "ds", "b"}, {"decay", "beta"}),
                     {a, {"b", DataType::FLOAT, {"B2", "T2", "H2"}}}, {floats("dt", {4}), floats("ds", {4})});
  CHECK(r.out(0) == "FLOAT[B,T,4]");  // dt_bias and decay_scale hold one value per head
  CHECK(r.out(1) == "FLOAT[B,T,4]");  // b has a's shape
  CHECK_FALSE(failed(r));
  CHECK(failed(infer_one(ms("LinearAttentionGate", {"a", "dt", "ds"}, {"decay", "beta"}), {a},
                         {floats("dt", {4}), floats("ds", {4})})));  // beta needs b
  CHECK(failed(infer_one(ms("LinearAttentionGate", {"a", "dt", "ds"}, {"decay"}), {{"a", DataType::FLOAT, {"2", "4"}}},
                         {floats("dt", {1}), floats("ds", {4})})));
  CHECK(failed(infer_one(ms("LinearAttentionGate", {"a", "dt", "ds", "b"}, {"decay"}),
                         {{"a", DataType::FLOAT, {"2", "3", "4"}}, {"b", DataType::FLOAT, {"2", "1", "4"}}},
                         {floats("dt", {4}), floats("ds", {4})})));
  CHECK(failed(infer_one(ms("LinearAttentionGate", {"a", "dt", "ds"}, {"decay"}), {{"a", DataType::FLOAT, {}}},
                         {floats("dt", {1}), floats("ds", {1})})));
}

TEST_CASE("contrib: EngramGate") {
  const In k{"k", DataType::FLOAT, {"B", "S", "M", "H"}};
  const In q{"q", DataType::FLOAT, {"B2", "S2", "M", "H"}};
  const In v{"v", DataType::FLOAT, {"B", "S", "H"}};
  {
    Model m = make_model({Node("Identity", {"q"}, {"q2"}), ms("EngramGate", {"k", "q2", "v", "ks", "qs"}, {"o"})}, {k, q, v},
                         {floats("ks", {4, 16}), floats("qs", {4, 16})});
    const auto rep = oxir::infer_shapes(m);
    CHECK(type_of(m, "o") == "FLOAT[B,S,4,16]");
    CHECK(type_of(m, "q2") == "FLOAT[B,S,4,16]");  // query has key's shape
    CHECK(rep.nodes_failed + rep.conflicts == 0);
  }
  const std::vector<Tensor> scales{floats("ks", {2, 8}), floats("qs", {2, 8})};
  const In k4{"k", DataType::FLOAT, {"2", "3", "2", "8"}};
  const In q4{"q", DataType::FLOAT, {"2", "3", "2", "8"}};
  const In v3{"v", DataType::FLOAT, {"2", "3", "8"}};
  CHECK_FALSE(failed(infer_one(ms("EngramGate", {"k", "q", "v", "ks", "qs"}, {"o"}), {k4, q4, v3}, scales)));
  CHECK(failed(infer_one(ms("EngramGate", {"k", "q", "v", "ks", "qs"}, {"o"}),
                         {{"k", DataType::FLOAT, {"2", "3", "8"}}, {"q", DataType::FLOAT, {"2", "3", "8"}}, v3},
                         {floats("ks", {1, 8}), floats("qs", {1, 8})})));  // key must be 4-D
  CHECK(failed(infer_one(ms("EngramGate", {"k", "q", "v", "ks", "qs"}, {"o"}), {k4, q4, {"v", DataType::FLOAT, {"1", "3", "8"}}},
                         scales)));  // value's batch is key's
  CHECK(failed(infer_one(ms("EngramGate", {"k", "q", "v", "ks", "qs"}, {"o"}), {k4, {"q", DataType::FLOAT, {"2", "1", "2", "8"}}, v3},
                         scales)));  // query has key's shape
  CHECK(failed(infer_one(ms("EngramGate", {"k", "q", "v", "ks", "qs"}, {"o"}), {k4, q4, v3},
                         {floats("ks", {8}), floats("qs", {8})})));  // the scales are [hc_mult, hidden]
  CHECK(failed(infer_one(ms("EngramGate", {"k", "q", "v", "ks", "qs"}, {"o", "n"}), {k4, q4, v3}, scales)));
}

TEST_CASE("contrib: GatedAdd") {
  {
    Model m = make_model({Node("Identity", {"g"}, {"g2"}), ms("GatedAdd", {"x", "y", "g2"}, {"o"})},
                         {{"x", DataType::FLOAT16, {"B", "S", "C"}}, {"y", DataType::FLOAT16, {"B", "S", "8"}},
                          {"g", DataType::FLOAT16, {"B", "T", "1"}}});
    const auto rep = oxir::infer_shapes(m);
    CHECK(type_of(m, "o") == "FLOAT16[B,S,8]");
    CHECK(type_of(m, "g2") == "FLOAT16[B,S,1]");
    CHECK(rep.nodes_failed + rep.conflicts == 0);
  }
  const In x{"x", DataType::FLOAT, {"2", "3", "4"}};
  const In y{"y", DataType::FLOAT, {"2", "3", "4"}};
  const auto ga = [&](In yy, std::vector<std::string> g) {
    return failed(infer_one(ms("GatedAdd", {"x", "y", "g"}, {"o"}), {x, yy, {"g", DataType::FLOAT, std::move(g)}}));
  };
  CHECK_FALSE(ga(y, {"2", "3", "1"}));
  CHECK(ga(y, {"2", "3", "4"}));  // the gate's last dim is 1
  CHECK(ga(y, {"1", "3", "1"}));  // no broadcasting
  CHECK(ga(y, {"3", "1"}));       // the gate has X's rank
  CHECK(ga({"y", DataType::FLOAT, {"1", "3", "4"}}, {"2", "3", "1"}));
}

TEST_CASE("contrib: NGramHashMapping") {
  const std::vector<Attribute> at{ia("max_ngram_size", 3), ia("n_head_per_ngram", 2), ia("pad_id", 0)};
  const Tensor mul = int64s("mul", {3}, {3, 5, 7});
  const Tensor voc = int64s("voc", {4}, {11, 13, 17, 19});
  const In ids{"ids", DataType::INT64, {"B", "S"}};
  {
    Model m = make_model({Node("Identity", {"past"}, {"past2"}), ms("NGramHashMapping", {"ids", "mul", "voc", "past2"}, {"h", "p"}, at)},
                         {ids, {"past", DataType::INT64, {"B2", "L"}}}, {mul, voc});
    const auto rep = oxir::infer_shapes(m);
    CHECK(type_of(m, "h") == "INT64[B,S,4]");
    CHECK(type_of(m, "p") == "INT64[B,2]");
    CHECK(type_of(m, "past2") == "INT64[B,2]");
    CHECK(rep.nodes_failed + rep.conflicts == 0);
  }
  CHECK(failed(infer_one(ms("NGramHashMapping", {"ids", "mul", "voc"}, {"h"}, at), {{"ids", DataType::INT64, {"5"}}}, {mul, voc})));
  CHECK(failed(infer_one(ms("NGramHashMapping", {"ids", "mul", "voc"}, {"h"}, at), {ids},
                         {mul, int64s("voc", {2}, {11, 13})})));  // one vocabulary size per head
  CHECK(failed(infer_one(ms("NGramHashMapping", {"ids", "mul", "voc", "past"}, {"h"}, at),
                         {ids, {"past", DataType::INT64, {"B", "1"}}}, {mul, voc})));
  CHECK(failed(infer_one(ms("NGramHashMapping", {"ids", "mul", "voc"}, {"h"},
                            {ia("max_ngram_size", 1), ia("n_head_per_ngram", 1), ia("pad_id", 0)}),
                         {ids}, {mul, int64s("voc", {0}, {})})));
  CHECK(failed(infer_one(ms("NGramHashMapping", {"ids", "mul", "voc"}, {"h"},
                            {ia("max_ngram_size", 2), ia("n_head_per_ngram", 0), ia("pad_id", 0)}),
                         {ids}, {mul, int64s("voc", {0}, {})})));
  // Hostile head counts: (max_ngram_size - 1) * n_head_per_ngram overflows int64, a diagnostic.
  CHECK(failed(infer_one(ms("NGramHashMapping", {"ids", "mul", "voc"}, {"h"},
                            {ia("max_ngram_size", std::int64_t{1} << 40), ia("n_head_per_ngram", std::int64_t{1} << 40),
                             ia("pad_id", 0)}),
                         {ids}, {mul, voc})));
}

TEST_CASE("contrib: DynamicTimeWarping, Tokenizer and BifurcationDetector leave data sizes unknown") {
  auto r = infer_one(ms("DynamicTimeWarping", {"x"}, {"y"}), {{"x", DataType::FLOAT, {"M", "N"}}});
  CHECK(r.out().rfind("INT32[2,unk__", 0) == 0);  // max(M, N) <= length < M + N
  CHECK(infer_one(ms("DynamicTimeWarping", {"x"}, {"y"}), {{"x", DataType::FLOAT, {"1", "1", "N"}}}).out() == "INT32[2,N]");
  CHECK(failed(infer_one(ms("DynamicTimeWarping", {"x"}, {"y"}), {{"x", DataType::FLOAT, {"4"}}})));
  CHECK(failed(infer_one(ms("DynamicTimeWarping", {"x"}, {"y"}), {{"x", DataType::FLOAT, {"2", "4", "6"}}})));

  const std::vector<Attribute> tok{ia("mark", 1), ia("mincharnum", 1), Attribute("pad_value", std::string("#")),
                                   Attribute("separators", std::vector<std::string>{" "})};
  r = infer_one(ms("Tokenizer", {"x"}, {"y"}, tok), {{"x", DataType::STRING, {"2", "3"}}});
  CHECK(r.out().rfind("STRING[2,3,unk__", 0) == 0);
  // [0] gives [0] and [N, 0] gives [N, 0]: with sizes that may be 0 not even the rank is known.
  CHECK(infer_one(ms("Tokenizer", {"x"}, {"y"}, tok), {{"x", DataType::STRING, {"N", "3"}}}).out() == "STRING[*]");
  CHECK(failed(infer_one(ms("Tokenizer", {"x"}, {"y"}, tok), {{"x", DataType::STRING, {"1", "2", "1"}}})));

  const std::vector<Attribute> bif{ia("max_ngram_size", 3), ia("min_ngram_size", 1)};
  r = infer_one(ms("BifurcationDetector", {"s", "c", "p"}, {"t", "i"}, bif),
                {{"s", DataType::INT64, {"L"}}, {"c", DataType::INT64, {"K"}}, {"p", DataType::INT64, {"1"}}});
  CHECK(r.out(0).rfind("INT64[unk__", 0) == 0);
  CHECK(r.out(1) == "INT64[1]");
  CHECK(failed(infer_one(ms("BifurcationDetector", {"s", "c", "p"}, {"t", "i"}, bif),
                         {{"s", DataType::INT64, {"1", "7"}}, {"c", DataType::INT64, {"K"}}, {"p", DataType::INT64, {}}})));
}

TEST_CASE("contrib: ConvTransposeWithDynamicPads reads its pads from an input") {
  const In x{"x", DataType::FLOAT, {"N", "2", "H", "W"}};
  const Tensor w = floats("w", {2, 3, 3, 3});
  const std::vector<Attribute> s2{Attribute("strides", std::vector<std::int64_t>{2, 2})};
  auto r = infer_one(ms("ConvTransposeWithDynamicPads", {"x", "w", "p"}, {"y"}, s2), {x}, {w, int64s("p", {4}, {1, 0, 0, 2})});
  CHECK(r.out() == "FLOAT[N,3,2*H,2*W-1]");  // 2*(H-1) + 3 - 1 - 0 and 2*(W-1) + 3 - 0 - 2
  CHECK_FALSE(failed(r));
  // Pads of unknown values: the spatial sizes are unknown too, unless auto_pad is SAME_*.
  r = infer_one(ms("ConvTransposeWithDynamicPads", {"x", "w", "p"}, {"y"}, s2), {x, {"p", DataType::INT64, {"4"}}}, {w});
  CHECK(r.out().rfind("FLOAT[N,3,unk__", 0) == 0);
  r = infer_one(ms("ConvTransposeWithDynamicPads", {"x", "w", "p"}, {"y"},
                   {Attribute("strides", std::vector<std::int64_t>{2, 2}), Attribute("auto_pad", std::string("SAME_UPPER"))}),
                {x, {"p", DataType::INT64, {"4"}}}, {w});
  CHECK(r.out() == "FLOAT[N,3,2*H,2*W]");
  CHECK(failed(infer_one(ms("ConvTransposeWithDynamicPads", {"x", "w"}, {"y"}, s2), {x}, {w})));  // ORT's kernel needs Pads
  CHECK(failed(infer_one(ms("ConvTransposeWithDynamicPads", {"x", "w", "p"}, {"y"}, s2), {x}, {w, int64s("p", {2}, {1, 1})})));
  CHECK(failed(infer_one(ms("ConvTransposeWithDynamicPads", {"x", "w", "p"}, {"y"}, s2), {x}, {w, int64s("p", {2, 2}, {1, 1, 1, 1})})));
  CHECK(failed(infer_one(ms("ConvTransposeWithDynamicPads", {"x", "w", "p"}, {"y"}, s2), {x}, {w, int64s("p", {4}, {-1, 0, 0, 0})})));
}

TEST_CASE("contrib: MatMulNBitsMlp and MatMulNBitsQkv (WebGPU fusions, sized as ONNX Runtime's loader sizes them)") {
  const Tensor blob = Tensor::from_values<std::uint8_t>("bq", {8, 1, 8}, std::vector<std::uint8_t>(64, 0));
  const Tensor sc = floats("sc", {8});
  const std::vector<Attribute> mlp{ia("K", 16), ia("N", 8), ia("bits", 4), ia("block_size", 16),
                                   Attribute("activation", std::string("silu"))};
  const In a{"a", DataType::FLOAT16, {"B", "S", "D"}};
  auto r = infer_one(ms("MatMulNBitsMlp", {"a", "", "", "bq", "sc", "", "bq", "sc"}, {"y"}, mlp), {a}, {blob, sc});
  CHECK(r.out() == "FLOAT16[B,S,8]");
  CHECK_FALSE(failed(r));
  r = infer_one(ms("MatMulNBitsMlp", {"a", "skip", "ns", "bq", "sc", "", "bq", "sc"}, {"y", "sum"}, mlp),
                {a, {"skip", DataType::FLOAT16, {"B", "S", "D"}}}, {blob, sc, floats("ns", {16})});
  CHECK(r.out(0) == "FLOAT16[B,S,8]");
  CHECK(r.out(1) == "FLOAT16[B,S,16]");  // A's shape, its last dim being K
  CHECK(failed(infer_one(ms("MatMulNBitsMlp", {"a", "", "", "bq", "sc", "", "bq", "sc"}, {"y", "sum"}, mlp), {a}, {blob, sc})));
  // A skip that broadcasts to A is not refused; its last dim is K.
  r = infer_one(ms("MatMulNBitsMlp", {"a", "skip", "", "bq", "sc", "", "bq", "sc"}, {"y"}, mlp),
                {a, {"skip", DataType::FLOAT16, {"S", "E"}}}, {blob, sc});
  CHECK(r.out() == "FLOAT16[B,S,8]");
  CHECK_FALSE(failed(r));
  CHECK(failed(infer_one(ms("MatMulNBitsMlp", {"a", "", "", "bq", "sc", "", "bq", "sc"}, {"y"}, mlp),
                         {{"a", DataType::FLOAT, {"3", "17"}}}, {blob, sc})));  // A's last dim is K

  const std::vector<Attribute> qkv{ia("K", 16), ia("Nq", 8), ia("Nkv", 4), ia("bits", 4), ia("block_size", 16)};
  r = infer_one(ms("MatMulNBitsQkv", {"a", "skip", "ns", "bq", "sc", "", "bq", "sc", "", "bq", "sc"}, {"q", "k", "v", "sum"}, qkv),
                {a, {"skip", DataType::FLOAT16, {"B", "S", "16"}}}, {blob, sc, floats("ns", {16})});
  CHECK(r.out(0) == "FLOAT16[B,S,8]");
  CHECK(r.out(1) == "FLOAT16[B,S,4]");
  CHECK(r.out(2) == "FLOAT16[B,S,4]");
  CHECK(r.out(3) == "FLOAT16[B,S,16]");
  CHECK_FALSE(failed(r));
  CHECK(failed(infer_one(ms("MatMulNBitsQkv", {"a", "", "ns", "bq", "sc", "", "bq", "sc", "", "bq", "sc"}, {"q", "k", "v"}, qkv),
                         {a}, {blob, sc, floats("ns", {8})})));  // norm_scale is [K]
}

TEST_CASE("contrib: GatedDeltaNet and VarlenCausalConvWithState (GPU kernels; sized as ONNX Runtime's loader sizes them)") {
  // Packed tokens [T, heads, head_size]: output [T, max(Hq, Hv), Dv], final_state [B, Hv, Dv, Dk].
  auto r = infer_one(ms("GatedDeltaNet", {"q", "k", "v", "", "dec", "beta", "st"}, {"o", "fs"}),
                     {{"q", DataType::FLOAT16, {"T", "2", "8"}}, {"k", DataType::FLOAT16, {"T", "2", "8"}},
                      {"v", DataType::FLOAT16, {"T", "4", "6"}}, {"dec", DataType::FLOAT, {"T", "4"}},
                      {"beta", DataType::FLOAT, {"T", "4"}}, {"st", DataType::FLOAT, {"B", "4", "6", "8"}}});
  CHECK(r.out(0) == "FLOAT16[T,4,6]");
  CHECK(r.out(1) == "FLOAT[B,4,6,8]");
  CHECK_FALSE(failed(r));
  // More query heads than value heads: the output has the query's; [B, S, ..] spelling.
  r = infer_one(ms("GatedDeltaNet", {"q", "k", "v"}, {"o", "fs"}),
                {{"q", DataType::FLOAT, {"B", "S", "4", "8"}}, {"k", DataType::FLOAT, {"B", "S", "4", "8"}},
                 {"v", DataType::FLOAT, {"B", "S", "2", "6"}}});
  CHECK(r.out(0) == "FLOAT[B,S,4,6]");
  CHECK(r.out(1) == "FLOAT[B,2,6,8]");
  // Ragged packing: the batch is the length of cu_seqlens minus 1; state updates of capacity 2.
  r = infer_one(ms("GatedDeltaNet", {"q", "k", "v", "cu"}, {"o", "fs", "su"}, {ia("state_update_capacity", 2)}),
                {{"q", DataType::FLOAT, {"T", "2", "8"}}, {"k", DataType::FLOAT, {"T", "2", "8"}},
                 {"v", DataType::FLOAT, {"T", "2", "4"}}, {"cu", DataType::INT32, {"P"}}});
  CHECK(r.out(1) == "FLOAT[P-1,2,4,8]");
  CHECK(r.out(2) == "FLOAT[P-1,52]");  // 2 * (2 + 2*8 + 2*4)
  CHECK(failed(infer_one(ms("GatedDeltaNet", {"q", "k", "v"}, {"o"}),
                         {{"q", DataType::FLOAT, {"T", "8"}}, {"k", DataType::FLOAT, {"T", "8"}}, {"v", DataType::FLOAT, {"T", "8"}}})));

  r = infer_one(ms("VarlenCausalConvWithState", {"x", "w", "cu", "", "st"}, {"o", "fs"}, {ia("dilation", 2)}),
                {{"x", DataType::FLOAT, {"T", "C"}}, {"cu", DataType::INT32, {"P"}}, {"st", DataType::FLOAT, {"B", "C2", "L"}}},
                {floats("w", {6, 1, 4})});
  CHECK(r.out(0) == "FLOAT[T,6]");
  CHECK(r.out(1) == "FLOAT[B,6,6]");  // (4 - 1) * 2
  CHECK_FALSE(failed(r));
  CHECK(failed(infer_one(ms("VarlenCausalConvWithState", {"x", "w", "cu"}, {"o", "fs"}),
                         {{"x", DataType::FLOAT, {"T", "6"}}, {"cu", DataType::INT32, {"3"}}}, {floats("w", {6, 1, 4})})));
}

namespace {
Tensor int32_1(std::string name, std::int32_t v) {
  return Tensor::from_values<std::int32_t>(std::move(name), {1}, std::vector<std::int32_t>{v});
}
/// A decoder subgraph that declares only its logits [b, s, vocab] (the rules read no more of it).
Graph logits_decoder(Dim vocab, DataType elem = DataType::FLOAT) {
  Graph g;
  g.name = "decoder";
  g.outputs.emplace_back("logits", Type::tensor(elem, {"b", "s", std::move(vocab)}));
  return g;
}
}  // namespace

TEST_CASE("contrib: the generation loops size their sequences from max_length and the batch") {
  const std::vector<Attribute> gen{Attribute("decoder", logits_decoder(Dim(6))), ia("eos_token_id", 5),
                                   ia("pad_token_id", 0)};
  const In ids{"ids", DataType::INT32, {"N", "S"}};
  const std::vector<std::string> beam_in{"ids", "max", "min", "beams", "ret", "lp"};
  const std::vector<Tensor> beam_init{int32_1("max", 8), int32_1("min", 1), int32_1("beams", 3), int32_1("ret", 2),
                                      Tensor::from_values<float>("lp", {1}, std::vector<float>{1.0f})};
  auto r = infer_one(ms("BeamSearch", beam_in, {"seq", "seq_scores", "scores"}, gen), {ids}, beam_init);
  CHECK(r.out(0) == "INT32[N,2,8]");
  CHECK(r.out(1) == "FLOAT[N,2]");
  CHECK(r.out(2) == "FLOAT[8-S,N,3,6]");  // one row of scores per generated step
  CHECK_FALSE(failed(r));

  // vocab_size narrows the scores; it may not exceed the logits' width.
  auto narrow = gen;
  narrow.push_back(ia("vocab_size", 4));
  CHECK(infer_one(ms("BeamSearch", beam_in, {"seq", "seq_scores", "scores"}, narrow), {ids}, beam_init).out(2) ==
        "FLOAT[8-S,N,3,4]");
  narrow.back() = ia("vocab_size", 7);
  CHECK(failed(infer_one(ms("BeamSearch", beam_in, {"seq", "seq_scores", "scores"}, narrow), {ids}, beam_init)));

  // Encoder-decoder models start the decoder from their own tokens: the steps are left open, and
  // so is what a graph input holds.
  auto t5 = gen;
  t5.push_back(ia("model_type", 1));
  r = infer_one(ms("BeamSearch", beam_in, {"seq", "seq_scores", "scores"}, t5), {ids}, beam_init);
  CHECK(r.out(2).rfind("FLOAT[unk__", 0) == 0);
  r = infer_one(ms("BeamSearch", beam_in, {"seq"}, gen), {ids, {"max", DataType::INT32, {"1"}}},
                {beam_init.begin() + 1, beam_init.end()});
  CHECK(r.out(0).rfind("INT32[N,2,unk__", 0) == 0);

  // min_length is optional, num_beams is not.
  CHECK(infer_one(ms("BeamSearch", {"ids", "max", "", "beams", "ret"}, {"seq"}, gen), {ids}, beam_init).out(0) ==
        "INT32[N,2,8]");
  CHECK(failed(infer_one(ms("BeamSearch", {"ids", "max", "min", "", "ret"}, {"seq"}, gen), {ids}, beam_init)));

  // Whisper: features [B, mel, frames] in, the same sequences out, non_speech_probs [B].
  r = infer_one(ms("WhisperBeamSearch", beam_in, {"seq", "seq_scores", "", "", "nsp"}, gen),
                {{"ids", DataType::FLOAT, {"B", "80", "3000"}}}, beam_init);
  CHECK(r.out(0) == "INT32[B,2,8]");
  CHECK(r.out(4) == "FLOAT[B]");

  r = infer_one(ms("GreedySearch", {"ids", "max"}, {"seq"}, gen), {ids}, {int32_1("max", 7)});
  CHECK(r.out() == "INT32[N,7]");
  r = infer_one(ms("Sampling", {"ids", "max"}, {"seq"}, gen), {ids}, {int32_1("max", 9)});
  CHECK(r.out() == "INT32[N,9]");

  // Refused: no decoder, ids of the wrong rank, a max_length that is not [1] or not positive.
  CHECK(failed(infer_one(ms("GreedySearch", {"ids", "max"}, {"seq"}, {ia("eos_token_id", 5), ia("pad_token_id", 0)}),
                         {ids}, {int32_1("max", 7)})));
  CHECK(failed(infer_one(ms("GreedySearch", {"ids", "max"}, {"seq"}, gen), {{"ids", DataType::INT32, {"N"}}},
                         {int32_1("max", 7)})));
  CHECK(failed(infer_one(ms("GreedySearch", {"ids", "max"}, {"seq"}, gen), {ids, {"max", DataType::INT32, {"2"}}})));
  CHECK(failed(infer_one(ms("GreedySearch", {"ids", "max"}, {"seq"}, gen), {ids}, {int32_1("max", 0)})));
}

TEST_CASE("contrib: QEmbedLayerNormalization and SampleOp") {
  std::vector<std::string> in{"ids", "", "we", "pe", "", "g", "b", "", "ws", "ps", "", "gs", "bs", "wz", "pz", "", "gz", "bz"};
  std::vector<Tensor> init{Tensor::from_values<std::uint8_t>("we", {20, 8}, std::vector<std::uint8_t>(160, 1)),
                           Tensor::from_values<std::uint8_t>("pe", {16, 8}, std::vector<std::uint8_t>(128, 1)),
                           Tensor::from_values<std::uint8_t>("g", {8}, std::vector<std::uint8_t>(8, 1)),
                           Tensor::from_values<std::uint8_t>("b", {8}, std::vector<std::uint8_t>(8, 1))};
  for (const char* s : {"ws", "ps", "gs", "bs"}) init.push_back(Tensor::from_values<float>(s, {}, std::vector<float>{0.5f}));
  for (const char* z : {"wz", "pz", "gz", "bz"})
    init.push_back(Tensor::from_values<std::uint8_t>(z, {}, std::vector<std::uint8_t>{0}));
  const In ids{"ids", DataType::INT32, {"N", "S"}};
  auto r = infer_one(ms("QEmbedLayerNormalization", in, {"y", "mi"}), {ids}, init);
  CHECK(r.out(0) == "FLOAT[N,S,8]");
  CHECK(r.out(1) == "INT32[N]");
  CHECK_FALSE(failed(r));
  auto short_gamma = init;
  short_gamma[2] = Tensor::from_values<std::uint8_t>("g", {7}, std::vector<std::uint8_t>(7, 1));
  CHECK(failed(infer_one(ms("QEmbedLayerNormalization", in, {"y", "mi"}), {ids}, short_gamma)));
  auto no_scale = in;
  no_scale[8] = "";
  CHECK(failed(infer_one(ms("QEmbedLayerNormalization", no_scale, {"y", "mi"}), {ids}, init)));
  CHECK(failed(infer_one(ms("QEmbedLayerNormalization", {in.begin(), in.end() - 1}, {"y", "mi"}), {ids}, init)));
  CHECK(failed(infer_one(ms("QEmbedLayerNormalization", in, {"y", "mi"}), {{"ids", DataType::INT32, {"N"}}}, init)));

  CHECK(infer_one(ms("SampleOp", {"x"}, {"y"}), {{"x", DataType::FLOAT, {"N", "3"}}}).out() == "FLOAT[N,3]");
}

TEST_CASE("contrib: CUDA-only fusions (sized as ONNX Runtime's loader sizes them)") {
  const In x{"x", DataType::FLOAT, {"N", "S", "8"}};
  CHECK(infer_one(ms("GemmFastGelu", {"x", "w"}, {"y"}), {x}, {floats("w", {8, 5})}).out() == "FLOAT[N,S,5]");
  CHECK(failed(infer_one(ms("GemmFastGelu", {"x", "w"}, {"y"}), {x}, {floats("w", {7, 5})})));  // K mismatch
  CHECK(infer_one(ms("BiasSoftmax", {"x", "b"}, {"y"}, {ia("is_inner_broadcast", 0)}), {x, {"b", DataType::FLOAT, {"N", "S", "8"}}})
            .out() == "FLOAT[N,S,8]");
  CHECK(failed(infer_one(ms("BiasSoftmax", {"x", "b"}, {"y"}), {x, {"b", DataType::FLOAT, {"8"}}})));
  auto r = infer_one(ms("BiasDropout", {"x", "b"}, {"y", "mask"}), {x}, {floats("b", {8})});
  CHECK(r.out(1) == "BOOL[N,S,8]");
  CHECK(infer_one(ms("BitmaskDropout", {"x"}, {"y", "mask"}), {x}).out(1) == "UINT32[*]");

  r = infer_one(ms("TorchEmbedding", {"w", "i"}, {"y"}), {{"i", DataType::INT64, {"N", "S"}}}, {floats("w", {10, 6})});
  CHECK(r.out() == "FLOAT[N,S,6]");
  CHECK(failed(infer_one(ms("TorchEmbedding", {"w", "i"}, {"y"}), {{"i", DataType::INT64, {"N"}}}, {floats("w", {10})})));

  r = infer_one(ms("RelativePositionBias", {"t", "q", "k"}, {"y"}, {ia("max_distance", 16)}), {},
                {floats("t", {32, 4}), int64s("q", {}, {5}), int64s("k", {}, {7})});
  CHECK(r.out() == "FLOAT[1,4,5,7]");
  CHECK(failed(infer_one(ms("RelativePositionBias", {"t", "q", "k"}, {"y"}), {},
                         {floats("t", {32, 4}), int64s("q", {}, {5}), int64s("k", {}, {7})})));  // max_distance
  CHECK(failed(infer_one(ms("RelativePositionBias", {"t", "q", "k"}, {"y"}, {ia("max_distance", 16)}), {},
                         {floats("t", {32, 4}), int64s("q", {}, {5}), int64s("k", {}, {-7})})));

  const std::vector<Tensor> grpb{floats("qb", {8}), floats("w", {4, 6}), floats("b", {6}), floats("eco", {1, 2, 1, 1})};
  r = infer_one(ms("GatedRelativePositionBias", {"q", "qb", "rel", "w", "b", "eco"}, {"y"}, {ia("num_heads", 2)}),
                {{"q", DataType::FLOAT, {"N", "S", "8"}}, {"rel", DataType::FLOAT, {"1", "2", "S", "S"}}}, grpb);
  CHECK(r.out() == "FLOAT[N,2,S,S]");
  r = infer_one(ms("GatedRelativePositionBias", {"q", "qb", "rel", "w", "b", "eco", "off"}, {"y"}, {ia("num_heads", 2)}),
                {{"q", DataType::FLOAT, {"T", "8"}}, {"rel", DataType::FLOAT, {"1", "2", "S", "S"}},
                 {"off", DataType::INT32, {"B", "S"}}},
                grpb);
  CHECK(r.out() == "FLOAT[B,2,S,S]");  // packed tokens: batch and length from token_offset

  r = infer_one(ms("RemovePadding", {"x", "n"}, {"y", "off", "cum", "mx"}), {x, {"n", DataType::INT32, {"N"}}});
  CHECK(r.out(0).rfind("FLOAT[unk__", 0) == 0);
  CHECK(r.out(1) == "INT32[N,S]");
  CHECK(r.out(2) == "INT32[N+1]");
  CHECK(r.out(3) == "INT32[1]");
  CHECK(infer_one(ms("RestorePadding", {"x", "off"}, {"y"}), {{"x", DataType::FLOAT, {"T", "8"}}, {"off", DataType::INT32, {"N", "S"}}})
            .out() == "FLOAT[N,S,8]");
  CHECK(failed(infer_one(ms("RestorePadding", {"x", "off"}, {"y"}), {x, {"off", DataType::INT32, {"N", "S"}}})));

  r = infer_one(ms("NhwcConv", {"x", "w"}, {"y"}, {Attribute("strides", std::vector<std::int64_t>{2, 1})}),
                {{"x", DataType::FLOAT, {"N", "H", "W", "4"}}}, {floats("w", {6, 4, 3, 2})});
  CHECK(r.out() == "FLOAT[N,floor((H+1)/2)-1,W-1,6]");  // floor((H-3)/2)+1, as Conv's
  CHECK(failed(infer_one(ms("NhwcConv", {"x", "w"}, {"y"}), {{"x", DataType::FLOAT, {"N", "H", "W", "3"}}},
                         {floats("w", {6, 4, 3, 2})})));  // channels last: 3 vs W's 4

  r = infer_one(ms("PackedAttention", {"x", "w", "b", "off", "cum"}, {"y"}, {ia("num_heads", 2)}),
                {{"x", DataType::FLOAT, {"T", "8"}}, {"off", DataType::INT32, {"N", "S"}}, {"cum", DataType::INT32, {"C"}}},
                {floats("w", {8, 24}), floats("b", {24})});
  CHECK(r.out() == "FLOAT[T,8]");
  r = infer_one(ms("PackedMultiHeadAttention", {"qkv", "", "", "", "off", "cum"}, {"y"}, {ia("num_heads", 2)}),
                {{"qkv", DataType::FLOAT, {"T", "2", "3", "4"}}, {"off", DataType::INT32, {"N", "S"}},
                 {"cum", DataType::INT32, {"C"}}});
  CHECK(r.out() == "FLOAT[T,8]");
  CHECK(failed(infer_one(ms("PackedMultiHeadAttention", {"qkv", "", "", "", "", "cum"}, {"y"}, {ia("num_heads", 2)}),
                         {{"qkv", DataType::FLOAT, {"T", "2", "3", "4"}}, {"cum", DataType::INT32, {"C"}}})));
  CHECK(failed(infer_one(ms("PackedMultiHeadAttention", {"qkv", "", "", "", "off", "cum"}, {"y"}, {ia("num_heads", 3)}),
                         {{"qkv", DataType::FLOAT, {"T", "2", "3", "4"}}, {"off", DataType::INT32, {"N", "S"}},
                          {"cum", DataType::INT32, {"C"}}})));
  const std::vector<Tensor> qkv{floats("w", {8, 24}), floats("b", {24})};
  const std::vector<In> step{{"x", DataType::FLOAT, {"N", "1", "8"}}, {"past", DataType::FLOAT, {"2", "N", "2", "M", "4"}},
                             {"plen", DataType::INT32, {}}};
  r = infer_one(ms("DecoderMaskedSelfAttention", {"x", "w", "b", "", "past", "", "plen"}, {"y", "present"},
                   {ia("num_heads", 2), ia("past_present_share_buffer", 1)}),
                step, qkv);
  CHECK(r.out(0) == "FLOAT[N,1,8]");
  CHECK(r.out(1) == "FLOAT[2,N,2,M,4]");  // the shared buffer
  CHECK(failed(infer_one(ms("DecoderMaskedSelfAttention", {"x", "w", "b"}, {"y"}, {ia("num_heads", 2)}), step, qkv)));
  CHECK(infer_one(ms("LongformerAttention", {"x", "w", "b", "m", "gw", "gb", "g"}, {"y"}, {ia("num_heads", 2), ia("window", 2)}),
                  {x, {"m", DataType::FLOAT, {"N", "S"}}, {"g", DataType::INT32, {"N", "S"}}},
                  {floats("w", {8, 24}), floats("b", {24}), floats("gw", {8, 24}), floats("gb", {24})})
            .out() == "FLOAT[N,S,8]");
}

}  // namespace oxir_unit_test_infer_contrib
