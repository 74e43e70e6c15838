// Operators added or changed in opsets 18–26 (ONNX 1.13 …): each test asserts facts from the
// operator definitions at the newer versions, for the rules of every family and those of
// newer.hpp (TensorScatter, BitCast, CumProd and version-specific refinements).
#include <doctest/doctest.h>

#include "infer_test_util.hpp"

namespace oxir_unit_test_infer_newer {

using namespace oxir;
using namespace oxir_test;

namespace {
using I = std::vector<std::int64_t>;
using A = Attribute;

Node node(std::string op, std::vector<std::string> in, std::vector<std::string> out, std::vector<Attribute> attrs = {}) {
  Node n(std::move(op), std::move(in), std::move(out));
  for (auto& a : attrs) n.set_attribute(std::move(a));
  return n;
}
bool failed(const OneNode& r) { return r.report.nodes_failed + r.report.conflicts > 0; }
std::string one(Node n, const std::vector<In>& ins, std::int64_t opset, std::vector<Tensor> inits = {}) {
  return infer_one(std::move(n), ins, std::move(inits), opset).out();
}
}  // namespace

// ---- opset 18 ----------------------------------------------------------------------------------

TEST_CASE("Reduce* 18: axes as an input, noop_with_empty_axes") {
  for (const char* op : {"ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2", "ReduceLogSum",
                         "ReduceLogSumExp", "ReduceSumSquare", "ReduceSum"}) {
    CAPTURE(op);
    CHECK(one(node(op, {"x", "a"}, {"y"}), {{"x", DataType::FLOAT, {"N", "C", "H"}}}, 18, {ints("a", {1})}) ==
          "FLOAT[N,1,H]");
    CHECK(one(node(op, {"x", "a"}, {"y"}, {A("keepdims", 0)}), {{"x", DataType::FLOAT, {"N", "C", "H"}}}, 18,
              {ints("a", {-1, 0})}) == "FLOAT[C]");
    // no axes: reduce all; noop_with_empty_axes: identity
    CHECK(one(node(op, {"x"}, {"y"}, {A("keepdims", 0)}), {{"x", DataType::FLOAT, {"N", "C"}}}, 18) == "FLOAT[]");
    CHECK(one(node(op, {"x"}, {"y"}, {A("noop_with_empty_axes", 1)}), {{"x", DataType::FLOAT, {"N", "C"}}}, 18) ==
          "FLOAT[N,C]");
    // unknown axes, keepdims=1: rank kept
    auto r = infer_one(node(op, {"x", "a"}, {"y"}), {{"x", DataType::FLOAT, {"N", "C"}}, {"a", DataType::INT64, {"1"}}},
                       {}, 18);
    CHECK(r.out().rfind("FLOAT[", 0) == 0);
    CHECK(r.out() != "FLOAT[*]");
  }
  // ReduceMax/ReduceMin 20: bool
  CHECK(one(node("ReduceMax", {"x", "a"}, {"y"}), {{"x", DataType::BOOL, {"N", "C"}}}, 20, {ints("a", {0})}) ==
        "BOOL[1,C]");
  CHECK(one(node("ReduceMin", {"x"}, {"y"}, {A("keepdims", 0)}), {{"x", DataType::BOOL, {"N", "C"}}}, 20) == "BOOL[]");
}

TEST_CASE("Split 18: num_outputs") {
  auto r = infer_one(node("Split", {"x"}, {"a", "b", "c"}, {A("num_outputs", 3), A("axis", 1)}),
                     {{"x", DataType::FLOAT, {"N", "10"}}}, {}, 18);
  CHECK(r.out(0) == "FLOAT[N,4]");
  CHECK(r.out(1) == "FLOAT[N,4]");
  CHECK(r.out(2) == "FLOAT[N,2]");
  r = infer_one(node("Split", {"x"}, {"a", "b"}, {A("num_outputs", 2)}), {{"x", DataType::FLOAT, {"6", "3"}}}, {}, 18);
  CHECK(r.out(0) == "FLOAT[3,3]");
  CHECK(r.out(1) == "FLOAT[3,3]");
  // num_outputs must equal the number of outputs
  r = infer_one(node("Split", {"x"}, {"a", "b"}, {A("num_outputs", 3)}), {{"x", DataType::FLOAT, {"6"}}}, {}, 18);
  CHECK(failed(r));
  // from 18 the parts must be said: neither sizes nor num_outputs is invalid (equal parts up to 17)
  r = infer_one(node("Split", {"x"}, {"a", "b"}), {{"x", DataType::FLOAT, {"6"}}}, {}, 18);
  CHECK(failed(r));
  r = infer_one(node("Split", {"x"}, {"a", "b"}), {{"x", DataType::FLOAT, {"6"}}}, {}, 17);
  CHECK(r.out(1) == "FLOAT[3]");
}

TEST_CASE("Pad 18/19: axes input, wrap mode") {
  CHECK(one(node("Pad", {"x", "p", "", "ax"}, {"y"}), {{"x", DataType::FLOAT, {"N", "C", "H"}}}, 18,
            {ints("p", {1, 2}), ints("ax", {-1})}) == "FLOAT[N,C,H+3]");
  CHECK(one(node("Pad", {"x", "p", "", "ax"}, {"y"}, {A("mode", "wrap")}), {{"x", DataType::FLOAT, {"N", "H"}}}, 19,
            {ints("p", {1, 0, 2, 0}), ints("ax", {0, 1})}) == "FLOAT[N+3,H]");
  CHECK(one(node("Pad", {"x", "p"}, {"y"}, {A("mode", "wrap")}), {{"x", DataType::INT2, {"4"}}}, 25,
            {ints("p", {1, 1})}) == "INT2[6]");
}

TEST_CASE("Resize 18/19: axes, keep_aspect_ratio_policy, half_pixel_symmetric") {
  CHECK(one(node("Resize", {"x", "", "", "s"}, {"y"}, {A("axes", I{2, 3})}),
            {{"x", DataType::FLOAT, {"N", "C", "H", "W"}}}, 18, {ints("s", {20, 30})}) == "FLOAT[N,C,20,30]");
  // not_larger: scale = min(20/10, 60/20) = 2 → [20, 40]
  CHECK(one(node("Resize", {"x", "", "", "s"}, {"y"}, {A("axes", I{2, 3}), A("keep_aspect_ratio_policy", "not_larger")}),
            {{"x", DataType::FLOAT, {"1", "3", "10", "20"}}}, 18, {ints("s", {20, 60})}) == "FLOAT[1,3,20,40]");
  // not_smaller: scale = 3 → [30, 60]
  CHECK(one(node("Resize", {"x", "", "", "s"}, {"y"}, {A("axes", I{2, 3}), A("keep_aspect_ratio_policy", "not_smaller")}),
            {{"x", DataType::FLOAT, {"1", "3", "10", "20"}}}, 18, {ints("s", {20, 60})}) == "FLOAT[1,3,30,60]");
  CHECK(one(node("Resize", {"x", "", "", "s"}, {"y"}, {A("coordinate_transformation_mode", "half_pixel_symmetric")}),
            {{"x", DataType::FLOAT, {"N", "C", "H", "W"}}}, 19, {ints("s", {1, 3, 5, 7})}) == "FLOAT[1,3,5,7]");
}

TEST_CASE("Col2Im 18 and CenterCropPad 18") {
  // [N, C*prod(block), L] → [N, C, image...]
  CHECK(one(node("Col2Im", {"x", "img", "blk"}, {"y"}), {{"x", DataType::FLOAT, {"N", "12", "L"}}}, 18,
            {ints("img", {5, 6}), ints("blk", {2, 2})}) == "FLOAT[N,3,5,6]");
  CHECK(one(node("CenterCropPad", {"x", "s"}, {"y"}, {A("axes", I{1, 2})}), {{"x", DataType::FLOAT, {"N", "H", "W", "3"}}},
            18, {ints("s", {7, 9})}) == "FLOAT[N,7,9,3]");
  CHECK(one(node("CenterCropPad", {"x", "s"}, {"y"}), {{"x", DataType::UINT8, {"H", "W"}}}, 18, {ints("s", {4, 5})}) ==
        "UINT8[4,5]");
  // A negative target size: the node cannot run, and no output dim may be negative.
  auto neg = infer_one(node("CenterCropPad", {"x", "s"}, {"y"}), {{"x", DataType::UINT8, {"H", "W"}}},
                       {ints("s", {4, -5})}, 18);
  CHECK(failed(neg));
  CHECK(neg.out().find("-5") == std::string::npos);
}

TEST_CASE("GroupNormalization 18/21, LpNormalization 22, RMSNormalization 23") {
  CHECK(one(node("GroupNormalization", {"x", "s", "b"}, {"y"}, {A("num_groups", 2)}),
            {{"x", DataType::FLOAT, {"N", "C", "H"}}, {"s", DataType::FLOAT, {"2"}}, {"b", DataType::FLOAT, {"2"}}}, 18) ==
        "FLOAT[N,C,H]");
  // 21: scale and bias have C elements
  auto r = infer_one(node("GroupNormalization", {"x", "s", "b"}, {"y"}, {A("num_groups", 2)}),
                     {{"x", DataType::FLOAT, {"N", "6", "H"}}, {"s", DataType::FLOAT, {"6"}}, {"b", DataType::FLOAT, {"6"}}},
                     {}, 21);
  CHECK(r.out() == "FLOAT[N,6,H]");
  CHECK_FALSE(failed(r));
  CHECK(one(node("LpNormalization", {"x"}, {"y"}), {{"x", DataType::BFLOAT16, {"N", "C"}}}, 22) == "BFLOAT16[N,C]");
  CHECK(one(node("RMSNormalization", {"x", "s"}, {"y"}), {{"x", DataType::FLOAT16, {"B", "S", "D"}}, {"s", DataType::FLOAT16, {"D"}}},
            23) == "FLOAT16[B,S,D]");
}

TEST_CASE("Elementwise ops of opsets 18–24: Mish, Bitwise*, Gelu, IsInf, IsNaN, Swish, Equal on strings") {
  CHECK(one(node("Mish", {"x"}, {"y"}), {{"x", DataType::BFLOAT16, {"N"}}}, 22) == "BFLOAT16[N]");
  CHECK(one(node("BitwiseAnd", {"a", "b"}, {"y"}), {{"a", DataType::UINT8, {"N", "1"}}, {"b", DataType::UINT8, {"4"}}}, 18) ==
        "UINT8[N,4]");
  CHECK(one(node("Gelu", {"x"}, {"y"}, {A("approximate", "tanh")}), {{"x", DataType::FLOAT, {"N"}}}, 20) == "FLOAT[N]");
  CHECK(one(node("IsInf", {"x"}, {"y"}), {{"x", DataType::FLOAT8E4M3FN, {"N"}}}, 20) == "BOOL[N]");
  CHECK(one(node("IsNaN", {"x"}, {"y"}), {{"x", DataType::FLOAT8E5M2, {"N"}}}, 20) == "BOOL[N]");
  CHECK(one(node("Swish", {"x"}, {"y"}, {A("alpha", 1.5f)}), {{"x", DataType::FLOAT, {"N", "D"}}}, 24) == "FLOAT[N,D]");
  CHECK(one(node("Equal", {"a", "b"}, {"y"}), {{"a", DataType::STRING, {"N"}}, {"b", DataType::STRING, {"1"}}}, 19) ==
        "BOOL[N]");
}

TEST_CASE("Cast/CastLike 19–25: saturate, new types, round_mode") {
  CHECK(one(node("Cast", {"x"}, {"y"}, {A("to", std::int64_t(DataType::FLOAT8E4M3FN)), A("saturate", 0)}),
            {{"x", DataType::FLOAT, {"N"}}}, 19) == "FLOAT8E4M3FN[N]");
  CHECK(one(node("Cast", {"x"}, {"y"}, {A("to", std::int64_t(DataType::INT4))}), {{"x", DataType::FLOAT, {"N"}}}, 21) ==
        "INT4[N]");
  CHECK(one(node("Cast", {"x"}, {"y"}, {A("to", std::int64_t(DataType::FLOAT4E2M1))}), {{"x", DataType::FLOAT, {"N"}}}, 23) ==
        "FLOAT4E2M1[N]");
  CHECK(one(node("Cast", {"x"}, {"y"}, {A("to", std::int64_t(DataType::FLOAT8E8M0)), A("round_mode", "nearest")}),
            {{"x", DataType::FLOAT, {"N"}}}, 25) == "FLOAT8E8M0[N]");
  CHECK(one(node("Cast", {"x"}, {"y"}, {A("to", std::int64_t(DataType::UINT2))}), {{"x", DataType::INT2, {"N", "2"}}}, 25) ==
        "UINT2[N,2]");
  CHECK(failed(infer_one(node("Cast", {"x"}, {"y"}, {A("to", std::int64_t(DataType::FLOAT)), A("round_mode", "sideways")}),
                         {{"x", DataType::FLOAT8E8M0, {"N"}}}, {}, 25)));
  CHECK(one(node("CastLike", {"x", "t"}, {"y"}), {{"x", DataType::FLOAT, {"N"}}, {"t", DataType::INT2, {"1"}}}, 25) ==
        "INT2[N]");
}

TEST_CASE("New element types flow through the structural ops (21–25)") {
  for (DataType e : {DataType::INT4, DataType::UINT4, DataType::FLOAT4E2M1, DataType::FLOAT8E8M0, DataType::INT2,
                     DataType::UINT2}) {
    const std::string en(data_type_name(e));
    CAPTURE(en);
    CHECK(one(node("Identity", {"x"}, {"y"}), {{"x", e, {"N", "4"}}}, 25) == en + "[N,4]");
    CHECK(one(node("Transpose", {"x"}, {"y"}), {{"x", e, {"N", "4"}}}, 25) == en + "[4,N]");
    CHECK(one(node("Reshape", {"x", "s"}, {"y"}), {{"x", e, {"N", "4"}}}, 25, {ints("s", {-1})}) == en + "[4*N]");
    CHECK(one(node("Flatten", {"x"}, {"y"}), {{"x", e, {"N", "4", "2"}}}, 25) == en + "[N,8]");
    CHECK(one(node("Squeeze", {"x", "a"}, {"y"}), {{"x", e, {"1", "4"}}}, 25, {ints("a", {0})}) == en + "[4]");
    CHECK(one(node("Unsqueeze", {"x", "a"}, {"y"}), {{"x", e, {"4"}}}, 25, {ints("a", {0})}) == en + "[1,4]");
    CHECK(one(node("Shape", {"x"}, {"y"}), {{"x", e, {"N", "4"}}}, 25) == "INT64[2]");
    CHECK(one(node("Size", {"x"}, {"y"}), {{"x", e, {"N", "4"}}}, 25) == "INT64[]");
  }
}

TEST_CASE("ConstantOfShape 20–25: value of a new element type") {
  auto v = Tensor::from_bytes("v", DataType::INT4, {1}, Buffer::owned(std::vector<std::byte>{std::byte{3}}));
  CHECK(one(node("ConstantOfShape", {"s"}, {"y"}, {A("value", v)}), {}, 21, {ints("s", {2, 3})}) == "INT4[2,3]");
  CHECK(one(node("ConstantOfShape", {"s"}, {"y"}), {}, 25, {ints("s", {4})}) == "FLOAT[4]");
}

TEST_CASE("Scatter* 18: reduction max/min") {
  CHECK(one(node("ScatterElements", {"x", "i", "u"}, {"y"}, {A("reduction", "max")}),
            {{"x", DataType::FLOAT, {"N", "C"}}, {"i", DataType::INT64, {"2", "C"}}, {"u", DataType::FLOAT, {"2", "C"}}},
            18) == "FLOAT[N,C]");
  CHECK(one(node("ScatterND", {"x", "i", "u"}, {"y"}, {A("reduction", "min")}),
            {{"x", DataType::FLOAT, {"N", "C"}}, {"i", DataType::INT64, {"2", "1"}}, {"u", DataType::FLOAT, {"2", "C"}}},
            18) == "FLOAT[N,C]");
}

TEST_CASE("Pools 18/19/22: LpPool ceil_mode, AveragePool dilations") {
  // floor((7 - 3)/2)+1 = 3; ceil → ceil(4/2)+1 = 3; with 8: floor(5/2)+1 = 3, ceil(5/2)+1 = 4
  CHECK(one(node("LpPool", {"x"}, {"y"}, {A("kernel_shape", I{3}), A("strides", I{2}), A("ceil_mode", 1)}),
            {{"x", DataType::FLOAT, {"N", "C", "8"}}}, 18) == "FLOAT[N,C,4]");
  // effective kernel (3-1)*2+1 = 5: floor((9-5)/1)+1 = 5
  CHECK(one(node("AveragePool", {"x"}, {"y"}, {A("kernel_shape", I{3}), A("dilations", I{2})}),
            {{"x", DataType::FLOAT, {"N", "C", "9"}}}, 19) == "FLOAT[N,C,5]");
  CHECK(one(node("MaxPool", {"x"}, {"y"}, {A("kernel_shape", I{2}), A("strides", I{2})}),
            {{"x", DataType::BFLOAT16, {"N", "C", "8"}}}, 22) == "BFLOAT16[N,C,4]");
}

TEST_CASE("DeformConv 19/22, GridSample 20/22 (N-d), AffineGrid 20") {
  // X [N,C,H,W], W [M, C/group, kH, kW], offset [N, 2*kH*kW, oH, oW] → [N, M, oH, oW]
  CHECK(one(node("DeformConv", {"x", "w", "o"}, {"y"}),
            {{"x", DataType::FLOAT, {"N", "4", "10", "10"}}, {"w", DataType::FLOAT, {"8", "4", "3", "3"}},
             {"o", DataType::FLOAT, {"N", "18", "8", "8"}}},
            19) == "FLOAT[N,8,8,8]");
  CHECK(one(node("GridSample", {"x", "g"}, {"y"}),
            {{"x", DataType::FLOAT, {"N", "C", "D", "H", "W"}}, {"g", DataType::FLOAT, {"N", "D2", "H2", "W2", "3"}}}, 20) ==
        "FLOAT[N,C,D2,H2,W2]");
  // theta [N,2,3], size (N,C,H,W) → grid [N,H,W,2]
  CHECK(one(node("AffineGrid", {"t", "s"}, {"y"}), {{"t", DataType::FLOAT, {"N", "2", "3"}}}, 20, {ints("s", {2, 3, 5, 7})}) ==
        "FLOAT[2,5,7,2]");
  CHECK(one(node("AffineGrid", {"t", "s"}, {"y"}), {{"t", DataType::FLOAT, {"N", "3", "4"}}}, 20,
            {ints("s", {2, 3, 4, 5, 7})}) == "FLOAT[2,4,5,7,3]");
}

TEST_CASE("DFT 20: axis and dft_length inputs") {
  // real input [N, L, 1], onesided → [N, floor(L/2)+1, 2]
  CHECK(one(node("DFT", {"x", "", "ax"}, {"y"}, {A("onesided", 1)}), {{"x", DataType::FLOAT, {"N", "16", "1"}}}, 20,
            {ints("ax", {1}, true)}) == "FLOAT[N,9,2]");
  CHECK(one(node("DFT", {"x", "n", "ax"}, {"y"}), {{"x", DataType::FLOAT, {"N", "16", "2"}}}, 20,
            {ints("n", {32}, true), ints("ax", {-2}, true)}) == "FLOAT[N,32,2]");
  // default axis at 20 is -2 (the signal axis before the last)
  CHECK(one(node("DFT", {"x"}, {"y"}), {{"x", DataType::FLOAT, {"B", "L", "2"}}}, 20) == "FLOAT[B,L,2]");
}

TEST_CASE("String and image ops of opset 20: StringSplit, StringConcat, RegexFullMatch, ImageDecoder") {
  auto r = infer_one(node("StringSplit", {"x"}, {"y", "z"}), {{"x", DataType::STRING, {"N", "M"}}}, {}, 20);
  CHECK(r.out(1) == "INT64[N,M]");
  CHECK(r.out(0).rfind("STRING[N,M,", 0) == 0);
  CHECK(one(node("StringConcat", {"a", "b"}, {"y"}), {{"a", DataType::STRING, {"N", "1"}}, {"b", DataType::STRING, {"3"}}},
            20) == "STRING[N,3]");
  CHECK(one(node("RegexFullMatch", {"x"}, {"y"}, {A("pattern", "a+")}), {{"x", DataType::STRING, {"N"}}}, 20) == "BOOL[N]");
  r = infer_one(node("ImageDecoder", {"x"}, {"y"}), {{"x", DataType::UINT8, {"K"}}}, {}, 20);
  const std::string img = r.out();
  CHECK(img.rfind("UINT8[", 0) == 0);
  CHECK(std::count(img.begin(), img.end(), ',') == 2);  // [H, W, C]
  CHECK(img.substr(img.size() - 3) == ",3]");           // default RGB: 3 channels
  r = infer_one(node("ImageDecoder", {"x"}, {"y"}, {A("pixel_format", "Grayscale")}), {{"x", DataType::UINT8, {"K"}}}, {}, 20);
  const std::string gray = r.out();
  CHECK(gray.substr(gray.size() - 3) == ",1]");
}

TEST_CASE("QuantizeLinear / DequantizeLinear 19–25") {
  // 19: zero point decides the output type (float8)
  CHECK(one(node("QuantizeLinear", {"x", "s", "z"}, {"y"}),
            {{"x", DataType::FLOAT, {"N", "C"}}, {"s", DataType::FLOAT, {}}, {"z", DataType::FLOAT8E4M3FN, {}}}, 19) ==
        "FLOAT8E4M3FN[N,C]");
  // 21: output_dtype without zero point; blocked scale [N, ceil(C/bs)]
  CHECK(one(node("QuantizeLinear", {"x", "s"}, {"y"}, {A("output_dtype", std::int64_t(DataType::INT4)), A("axis", 1),
                                                        A("block_size", 4)}),
            {{"x", DataType::FLOAT, {"N", "8"}}, {"s", DataType::FLOAT, {"N", "2"}}}, 21) == "INT4[N,8]");
  CHECK(one(node("QuantizeLinear", {"x", "s"}, {"y"}), {{"x", DataType::FLOAT, {"N"}}, {"s", DataType::FLOAT, {}}}, 21) ==
        "UINT8[N]");
  CHECK(one(node("QuantizeLinear", {"x", "s", "z"}, {"y"}),
            {{"x", DataType::FLOAT, {"N"}}, {"s", DataType::FLOAT, {}}, {"z", DataType::FLOAT4E2M1, {}}}, 23) ==
        "FLOAT4E2M1[N]");
  CHECK(one(node("QuantizeLinear", {"x", "s"}, {"y"}, {A("output_dtype", std::int64_t(DataType::INT2)),
                                                        A("precision", std::int64_t(DataType::FLOAT))}),
            {{"x", DataType::FLOAT16, {"N"}}, {"s", DataType::FLOAT16, {}}}, 25) == "INT2[N]");
  // DequantizeLinear: output is the scale's type (19+); 23+: output_dtype
  CHECK(one(node("DequantizeLinear", {"x", "s"}, {"y"}), {{"x", DataType::INT8, {"N"}}, {"s", DataType::FLOAT16, {}}}, 19) ==
        "FLOAT16[N]");
  CHECK(one(node("DequantizeLinear", {"x", "s"}, {"y"}, {A("axis", 0), A("block_size", 2)}),
            {{"x", DataType::INT4, {"8", "C"}}, {"s", DataType::FLOAT, {"4", "C"}}}, 21) == "FLOAT[8,C]");
  CHECK(one(node("DequantizeLinear", {"x", "s"}, {"y"}, {A("output_dtype", std::int64_t(DataType::FLOAT))}),
            {{"x", DataType::UINT2, {"N"}}, {"s", DataType::FLOAT, {}}}, 25) == "FLOAT[N]");
  CHECK(one(node("DequantizeLinear", {"x", "s"}, {"y"}), {{"x", DataType::FLOAT8E8M0, {"N"}}, {"s", DataType::FLOAT, {}}}, 24) ==
        "FLOAT[N]");
}

TEST_CASE("TopK 24, OptionalHasElement 18, QLinearMatMul 21") {
  auto r = infer_one(node("TopK", {"x", "k"}, {"v", "i"}), {{"x", DataType::BFLOAT16, {"N", "10"}}}, {ints("k", {3})}, 24);
  CHECK(r.out(0) == "BFLOAT16[N,3]");
  CHECK(r.out(1) == "INT64[N,3]");
  CHECK(one(node("OptionalHasElement", {"x"}, {"y"}), {{"x", DataType::FLOAT, {"N"}}}, 18) == "BOOL[]");
  CHECK(one(node("OptionalHasElement", {}, {"y"}), {}, 18) == "BOOL[]");
  CHECK(one(node("QLinearMatMul", {"a", "as", "az", "b", "bs", "bz", "ys", "yz"}, {"y"}),
            {{"a", DataType::FLOAT8E4M3FN, {"M", "K"}}, {"as", DataType::FLOAT, {}}, {"az", DataType::FLOAT8E4M3FN, {}},
             {"b", DataType::FLOAT8E4M3FN, {"K", "N"}}, {"bs", DataType::FLOAT, {}}, {"bz", DataType::FLOAT8E4M3FN, {}},
             {"ys", DataType::FLOAT, {}}, {"yz", DataType::FLOAT8E4M3FN, {}}},
            21) == "FLOAT8E4M3FN[M,N]");
}

TEST_CASE("Attention 23/24 and RotaryEmbedding 23") {
  // 4-D: Q [B, Hq, S, D], K/V [B, Hkv, L, D/Dv]
  auto r = infer_one(node("Attention", {"q", "k", "v"}, {"y"}),
                     {{"q", DataType::FLOAT, {"B", "8", "S", "64"}}, {"k", DataType::FLOAT, {"B", "2", "L", "64"}},
                      {"v", DataType::FLOAT, {"B", "2", "L", "32"}}},
                     {}, 23);
  CHECK(r.out(0) == "FLOAT[B,8,S,32]");
  // past key/value: present has past + new sequence lengths; qk output [B, Hq, S, P+L]
  r = infer_one(node("Attention", {"q", "k", "v", "", "pk", "pv"}, {"y", "k2", "v2", "qk"}),
                {{"q", DataType::FLOAT, {"B", "8", "S", "64"}}, {"k", DataType::FLOAT, {"B", "2", "L", "64"}},
                 {"v", DataType::FLOAT, {"B", "2", "L", "64"}}, {"pk", DataType::FLOAT, {"B", "2", "P", "64"}},
                 {"pv", DataType::FLOAT, {"B", "2", "P", "64"}}},
                {}, 24);
  CHECK(r.out(1) == "FLOAT[B,2,L+P,64]");
  CHECK(r.out(2) == "FLOAT[B,2,L+P,64]");
  CHECK(r.out(3) == "FLOAT[B,8,S,L+P]");
  // 3-D with head counts: Q [B, S, Hq*D]
  r = infer_one(node("Attention", {"q", "k", "v"}, {"y"}, {A("q_num_heads", 4), A("kv_num_heads", 2)}),
                {{"q", DataType::FLOAT, {"B", "S", "64"}}, {"k", DataType::FLOAT, {"B", "L", "32"}},
                 {"v", DataType::FLOAT, {"B", "L", "48"}}},
                {}, 23);
  CHECK(r.out(0) == "FLOAT[B,S,96]");
  // 24: nonpad_kv_seqlen (7th input) is accepted
  r = infer_one(node("Attention", {"q", "k", "v", "", "", "", "n"}, {"y"}),
                {{"q", DataType::FLOAT, {"B", "8", "S", "64"}}, {"k", DataType::FLOAT, {"B", "8", "L", "64"}},
                 {"v", DataType::FLOAT, {"B", "8", "L", "64"}}, {"n", DataType::INT64, {"B"}}},
                {}, 24);
  CHECK(r.out(0) == "FLOAT[B,8,S,64]");
  // 3-D: 2 heads of 32, caches [M, 16]
  CHECK(one(node("RotaryEmbedding", {"x", "c", "s", "p"}, {"y"}, {A("num_heads", 2)}),
            {{"x", DataType::FLOAT, {"B", "S", "64"}}, {"c", DataType::FLOAT, {"M", "16"}}, {"s", DataType::FLOAT, {"M", "16"}},
             {"p", DataType::INT64, {"B", "S"}}},
            23) == "FLOAT[B,S,64]");
}

// ---- probes of version boundaries ------------------------------------------------------------

TEST_CASE("Version boundaries: attributes vs inputs") {
  // Split 18 num_outputs on a symbolic size: chunks of ceil(N/2), the last N - ceil(N/2)
  auto r = infer_one(node("Split", {"x"}, {"a", "b"}, {A("num_outputs", 2)}), {{"x", DataType::FLOAT, {"N"}}}, {}, 18);
  CHECK(r.out(0) == "FLOAT[floor((N+1)/2)]");
  CHECK(r.out(1) == "FLOAT[floor(N/2)]");
  // num_outputs does not exist before 18
  r = infer_one(node("Split", {"x"}, {"a", "b"}, {A("num_outputs", 2)}), {{"x", DataType::FLOAT, {"6"}}}, {}, 17);
  CHECK((failed(r) || r.out(0) == "FLOAT[3]"));
  // ReduceMean before 18: axes attribute
  CHECK(one(node("ReduceMean", {"x"}, {"y"}, {A("axes", I{1})}), {{"x", DataType::FLOAT, {"N", "C"}}}, 17) == "FLOAT[N,1]");
  // GroupNormalization: scale is [num_groups] at 18, [C] at 21
  CHECK(failed(infer_one(node("GroupNormalization", {"x", "s", "b"}, {"y"}, {A("num_groups", 2)}),
                         {{"x", DataType::FLOAT, {"N", "6", "H"}}, {"s", DataType::FLOAT, {"2"}}, {"b", DataType::FLOAT, {"2"}}},
                         {}, 21)));
  CHECK(failed(infer_one(node("GroupNormalization", {"x", "s", "b"}, {"y"}, {A("num_groups", 2)}),
                         {{"x", DataType::FLOAT, {"N", "6", "H"}}, {"s", DataType::FLOAT, {"6"}}, {"b", DataType::FLOAT, {"6"}}},
                         {}, 18)));
  // DFT 17: axis attribute (default 1)
  CHECK(one(node("DFT", {"x"}, {"y"}, {A("onesided", 1)}), {{"x", DataType::FLOAT, {"N", "10", "1"}}}, 17) == "FLOAT[N,6,2]");
  // DFT 20: the axis cannot be the last (real/imaginary) axis
  CHECK(failed(infer_one(node("DFT", {"x", "", "ax"}, {"y"}), {{"x", DataType::FLOAT, {"N", "16", "2"}}},
                         {ints("ax", {-1}, true)}, 20)));
  // Pad 18 axes with a pads list of the wrong length
  CHECK(failed(infer_one(node("Pad", {"x", "p", "", "ax"}, {"y"}), {{"x", DataType::FLOAT, {"N", "H"}}},
                         {ints("p", {1, 2, 3, 4}), ints("ax", {1})}, 18)));
}

// ---- TensorScatter 24 --------------------------------------------------------------------------

TEST_CASE("TensorScatter 24: present_cache has past_cache's shape") {
  // default axis -2: [B, H, Smax, D] with update [B, H, S, D]
  auto r = infer_one(node("TensorScatter", {"p", "u", "w"}, {"y"}),
                     {{"p", DataType::FLOAT16, {"B", "H", "128", "64"}}, {"u", DataType::FLOAT16, {"?", "8", "S", "?"}},
                      {"w", DataType::INT64, {"B"}}},
                     {}, 24);
  CHECK(r.out() == "FLOAT16[B,8,128,64]");  // H = 8 from the update
  CHECK_FALSE(failed(r));
  // update's known sizes merge into the output (non-sequence dims are equal)
  r = infer_one(node("TensorScatter", {"p", "u"}, {"y"}, {A("axis", 1), A("mode", "circular")}),
                {{"p", DataType::FLOAT, {"B", "M", "H", "D"}}, {"u", DataType::FLOAT, {"2", "S", "4", "D"}}}, {}, 25);
  CHECK(r.out() == "FLOAT[2,M,4,D]");
  // only the update's shape: the sequence size is not known
  r = infer_one(node("TensorScatter", {"p", "u"}, {"y"}),
                {{"p", DataType::FLOAT, {}, false}, {"u", DataType::FLOAT, {"B", "S", "D"}}}, {}, 24);
  const std::string o = r.out();
  CHECK(o.rfind("FLOAT[B,", 0) == 0);
  CHECK(o.substr(o.size() - 2) == "D]");
  CHECK(o != "FLOAT[B,S,D]");
  r = infer_one(node("TensorScatter", {"p", "u"}, {"y"}), {{"p", DataType::INT8, {}, false}, {"u", DataType::INT8, {}, false}},
                {}, 24);
  CHECK(r.out() == "INT8[*]");
}

TEST_CASE("TensorScatter 24: malformed nodes") {
  auto bad = [](Node n, std::vector<In> ins, std::int64_t opset = 24) {
    auto r = infer_one(std::move(n), ins, {}, opset);
    CHECK(failed(r));
  };
  const In p{"p", DataType::FLOAT, {"B", "H", "16", "D"}};
  bad(node("TensorScatter", {"p", "u"}, {"y"}), {p, {"u", DataType::FLOAT, {"B", "H", "4", "D"}}}, 23);  // before 24
  bad(node("TensorScatter", {"p"}, {"y"}), {p});
  bad(node("TensorScatter", {"p", "u"}, {"y"}), {p, {"u", DataType::FLOAT, {"B", "4", "D"}}});             // rank
  bad(node("TensorScatter", {"p", "u"}, {"y"}), {p, {"u", DataType::FLOAT16, {"B", "H", "4", "D"}}});      // type
  bad(node("TensorScatter", {"p", "u"}, {"y"}), {p, {"u", DataType::FLOAT, {"B", "H", "32", "D"}}});       // > max
  bad(node("TensorScatter", {"p", "u"}, {"y"}, {A("axis", 0)}), {p, {"u", DataType::FLOAT, {"1", "H", "16", "D"}}});
  bad(node("TensorScatter", {"p", "u"}, {"y"}, {A("axis", 4)}), {p, {"u", DataType::FLOAT, {"B", "H", "4", "D"}}});
  bad(node("TensorScatter", {"p", "u"}, {"y"}, {A("mode", "ring")}), {p, {"u", DataType::FLOAT, {"B", "H", "4", "D"}}});
  bad(node("TensorScatter", {"p", "u", "w"}, {"y"}),
      {p, {"u", DataType::FLOAT, {"B", "H", "4", "D"}}, {"w", DataType::INT32, {"B"}}});                   // index type
  bad(node("TensorScatter", {"p", "u", "w"}, {"y"}),
      {{"p", DataType::FLOAT, {"2", "H", "16", "D"}}, {"u", DataType::FLOAT, {"2", "H", "4", "D"}}, {"w", DataType::INT64, {"3"}}});
  bad(node("TensorScatter", {"p", "u"}, {"y"}),
      {{"p", DataType::FLOAT, {"B", "8", "16", "D"}}, {"u", DataType::FLOAT, {"B", "4", "4", "D"}}});       // head dim
}

// ---- BitCast 26, CumProd 26 --------------------------------------------------------------------

TEST_CASE("BitCast 26: same shape, same bit width") {
  CHECK(one(node("BitCast", {"x"}, {"y"}, {A("to", std::int64_t(DataType::INT32))}), {{"x", DataType::FLOAT, {"N", "3"}}}, 26) ==
        "INT32[N,3]");
  CHECK(one(node("BitCast", {"x"}, {"y"}, {A("to", std::int64_t(DataType::BFLOAT16))}), {{"x", DataType::UINT16, {}}}, 26) ==
        "BFLOAT16[]");
  CHECK(one(node("BitCast", {"x"}, {"y"}, {A("to", std::int64_t(DataType::UINT4))}), {{"x", DataType::FLOAT4E2M1, {"K"}}}, 26) ==
        "UINT4[K]");
  CHECK(one(node("BitCast", {"x"}, {"y"}, {A("to", std::int64_t(DataType::INT2))}), {{"x", DataType::UINT2, {}, false}}, 26) ==
        "INT2[*]");
  CHECK(one(node("BitCast", {"x"}, {"y"}, {A("to", std::int64_t(DataType::COMPLEX64))}), {{"x", DataType::DOUBLE, {"2"}}}, 26) ==
        "COMPLEX64[2]");
  CHECK(failed(infer_one(node("BitCast", {"x"}, {"y"}, {A("to", std::int64_t(DataType::INT64))}),
                         {{"x", DataType::FLOAT, {"N"}}}, {}, 26)));  // 32 vs 64 bits
  CHECK(failed(infer_one(node("BitCast", {"x"}, {"y"}), {{"x", DataType::FLOAT, {"N"}}}, {}, 26)));  // no 'to'
  CHECK(failed(infer_one(node("BitCast", {"x"}, {"y"}, {A("to", std::int64_t(DataType::STRING))}),
                         {{"x", DataType::INT64, {"N"}}}, {}, 26)));
  CHECK(failed(infer_one(node("BitCast", {"x"}, {"y"}, {A("to", std::int64_t(9999))}), {{"x", DataType::INT64, {"N"}}}, {}, 26)));
  CHECK(failed(infer_one(node("BitCast", {"x"}, {"y"}, {A("to", std::int64_t(DataType::INT32))}),
                         {{"x", DataType::FLOAT, {"N"}}}, {}, 25)));  // new in 26
}

TEST_CASE("CumProd 26: same type and shape; axis is a 0-D tensor in range") {
  CHECK(one(node("CumProd", {"x", "a"}, {"y"}, {A("exclusive", 1), A("reverse", 1)}), {{"x", DataType::FLOAT, {"N", "C"}}}, 26,
            {ints("a", {-1}, true)}) == "FLOAT[N,C]");
  CHECK(one(node("CumProd", {"x", "a"}, {"y"}), {{"x", DataType::INT32, {"N"}}, {"a", DataType::INT32, {}}}, 26) == "INT32[N]");
  CHECK(failed(infer_one(node("CumProd", {"x", "a"}, {"y"}), {{"x", DataType::FLOAT, {"N", "C"}}}, {ints("a", {2}, true)}, 26)));
  CHECK(failed(infer_one(node("CumProd", {"x", "a"}, {"y"}), {{"x", DataType::FLOAT, {"N"}}, {"a", DataType::INT64, {"1"}}}, {}, 26)));
  CHECK(failed(infer_one(node("CumProd", {"x"}, {"y"}), {{"x", DataType::FLOAT, {"N"}}}, {}, 26)));
  CHECK(failed(infer_one(node("CumProd", {"x", "a"}, {"y"}), {{"x", DataType::FLOAT, {"N"}}}, {ints("a", {0}, true)}, 25)));
}

TEST_CASE("Registry: the newer family registers its rules") {
  const auto& reg = oxir::infer::OpRegistry::standard();
  for (const char* op : {"TensorScatter", "BitCast", "CumProd", "Swish", "Attention", "RMSNormalization", "RotaryEmbedding",
                         "NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss"})
    CHECK_MESSAGE(static_cast<bool>(reg.find("", op)), op);
}

TEST_CASE("More version probes: empty axes, Col2Im checks, OptionalGetElement 18, Shape 19+, RotaryEmbedding 4-D") {
  // Reduce 18 with an empty axes constant: reduce all (or identity with noop_with_empty_axes)
  CHECK(one(node("ReduceMax", {"x", "a"}, {"y"}, {A("keepdims", 0)}), {{"x", DataType::FLOAT, {"N", "C"}}}, 18,
            {ints("a", {})}) == "FLOAT[]");
  CHECK(one(node("ReduceL2", {"x", "a"}, {"y"}, {A("noop_with_empty_axes", 1)}), {{"x", DataType::FLOAT, {"N", "C"}}}, 18,
            {ints("a", {})}) == "FLOAT[N,C]");
  // unknown axes with keepdims 0: rank not known
  CHECK(one(node("ReduceMean", {"x", "a"}, {"y"}, {A("keepdims", 0)}),
            {{"x", DataType::FLOAT, {"N", "C"}}, {"a", DataType::INT64, {"1"}}}, 18)
            .rfind("FLOAT[", 0) == 0);
  // Col2Im: the channel dim must be divisible by prod(block_shape)
  CHECK(failed(infer_one(node("Col2Im", {"x", "img", "blk"}, {"y"}), {{"x", DataType::FLOAT, {"N", "13", "L"}}},
                         {ints("img", {5, 6}), ints("blk", {2, 2})}, 18)));
  // OptionalGetElement 18 passes a tensor through
  CHECK(one(node("OptionalGetElement", {"x"}, {"y"}), {{"x", DataType::FLOAT, {"N"}}}, 18) == "FLOAT[N]");
  // Shape 19+: start/end
  CHECK(one(node("Shape", {"x"}, {"y"}, {A("start", 1), A("end", -1)}), {{"x", DataType::INT2, {"N", "C", "H"}}}, 25) ==
        "INT64[1]");
  CHECK(one(node("RotaryEmbedding", {"x", "c", "s", "p"}, {"y"}),
            {{"x", DataType::FLOAT16, {"B", "H", "S", "64"}}, {"c", DataType::FLOAT16, {"M", "32"}},
             {"s", DataType::FLOAT16, {"M", "32"}}, {"p", DataType::INT64, {"B", "S"}}},
            23) == "FLOAT16[B,H,S,64]");
  // Resize 18: scales with axes
  CHECK(one(node("Resize", {"x", "", "sc"}, {"y"}, {A("axes", I{2, 3})}), {{"x", DataType::FLOAT, {"N", "C", "8", "6"}}}, 18,
            {Tensor::from_values<float>("sc", {2}, {2.f, 0.5f})}) == "FLOAT[N,C,16,3]");
  // Constant 19+ of a new type
  CHECK(one(node("Constant", {}, {"y"}, {A("value", Tensor::from_bytes("v", DataType::UINT2, {3}, Buffer::owned({std::byte{0}})))}),
            {}, 25) == "UINT2[3]");
}

TEST_CASE("RotaryEmbedding 23: caches and position ids") {
  // 4-D X [B, H, S, D] with position_ids [B, S]: caches [M, D/2]
  auto r = infer_one(node("RotaryEmbedding", {"x", "c", "s", "p"}, {"y"}),
                     {{"x", DataType::FLOAT, {"B", "H", "S", "64"}}, {"c", DataType::FLOAT, {"M", "?"}},
                      {"s", DataType::FLOAT, {"M", "32"}}, {"p", DataType::INT64, {"2", "?"}}},
                     {}, 23);
  CHECK(r.out() == "FLOAT[2,H,S,64]");  // batch from position_ids
  CHECK_FALSE(failed(r));
  // without position_ids: caches [B, S, D/2]
  r = infer_one(node("RotaryEmbedding", {"x", "c", "s"}, {"y"}),
                {{"x", DataType::FLOAT, {"?", "4", "?", "64"}}, {"c", DataType::FLOAT, {"B", "S", "32"}},
                 {"s", DataType::FLOAT, {"B", "S", "32"}}},
                {}, 23);
  CHECK(r.out() == "FLOAT[B,4,S,64]");
  // 3-D X [B, S, num_heads * head_size]; partial rotation: caches [M, rotary_embedding_dim / 2]
  r = infer_one(node("RotaryEmbedding", {"x", "c", "s", "p"}, {"y"}, {A("num_heads", 4), A("rotary_embedding_dim", 16)}),
                {{"x", DataType::FLOAT16, {"B", "S", "128"}}, {"c", DataType::FLOAT16, {"M", "8"}},
                 {"s", DataType::FLOAT16, {"M", "8"}}, {"p", DataType::INT64, {"B", "S"}}},
                {}, 23);
  CHECK(r.out() == "FLOAT16[B,S,128]");
  CHECK_FALSE(failed(r));
  // conflicts and malformed nodes
  CHECK(failed(infer_one(node("RotaryEmbedding", {"x", "c", "s", "p"}, {"y"}),
                         {{"x", DataType::FLOAT, {"B", "H", "S", "64"}}, {"c", DataType::FLOAT, {"M", "16"}},
                          {"s", DataType::FLOAT, {"M", "16"}}, {"p", DataType::INT64, {"B", "S"}}},
                         {}, 23)));  // cache last dim 16 vs 64/2
  // 3-D without num_heads: the head size is not known, the caches are only checked for B and S
  CHECK(one(node("RotaryEmbedding", {"x", "c", "s"}, {"y"}),
            {{"x", DataType::FLOAT, {"?", "S", "64"}}, {"c", DataType::FLOAT, {"B", "?", "5"}}, {"s", DataType::FLOAT, {"B", "S", "5"}}},
            23) == "FLOAT[B,S,64]");
  CHECK(failed(infer_one(node("RotaryEmbedding", {"x", "c", "s"}, {"y"}),
                         {{"x", DataType::FLOAT, {"2", "S", "64"}}, {"c", DataType::FLOAT, {"3", "S", "32"}},
                          {"s", DataType::FLOAT, {"3", "S", "32"}}},
                         {}, 23)));  // cache batch 3 vs 2
  CHECK(failed(infer_one(node("RotaryEmbedding", {"x", "c", "s", "p"}, {"y"}, {A("num_heads", 3)}),
                         {{"x", DataType::FLOAT, {"B", "S", "64"}}, {"c", DataType::FLOAT, {"M", "?"}},
                          {"s", DataType::FLOAT, {"M", "?"}}, {"p", DataType::INT64, {"B", "S"}}},
                         {}, 23)));  // 64 not a multiple of 3
  CHECK(failed(infer_one(node("RotaryEmbedding", {"x", "c", "s", "p"}, {"y"}),
                         {{"x", DataType::FLOAT, {"B", "H", "S", "64"}}, {"c", DataType::FLOAT, {"B", "S", "32"}},
                          {"s", DataType::FLOAT, {"B", "S", "32"}}, {"p", DataType::INT64, {"B", "S"}}},
                         {}, 23)));  // 3-D caches with position_ids
  CHECK(failed(infer_one(node("RotaryEmbedding", {"x", "c", "s", "p"}, {"y"}),
                         {{"x", DataType::FLOAT, {"2", "H", "S", "64"}}, {"c", DataType::FLOAT, {"M", "32"}},
                          {"s", DataType::FLOAT, {"M", "32"}}, {"p", DataType::INT64, {"3", "S"}}},
                         {}, 23)));  // batch 2 vs 3
  CHECK(failed(infer_one(node("RotaryEmbedding", {"x", "c"}, {"y"}), {{"x", DataType::FLOAT, {"B", "H", "S", "64"}}}, {}, 23)));
  // unknown shapes: X's type passes through
  CHECK(one(node("RotaryEmbedding", {"x", "c", "s"}, {"y"}),
            {{"x", DataType::FLOAT, {}, false}, {"c", DataType::FLOAT, {}, false}, {"s", DataType::FLOAT, {}, false}}, 23) ==
        "FLOAT[*]");
}

TEST_CASE("Version gates: operators and attribute values used before their opset") {
  const std::vector<std::pair<Node, std::int64_t>> cases = {
      {node("CenterCropPad", {"x", "s"}, {"y"}), 18},
      {node("Col2Im", {"x", "i", "b"}, {"y"}), 18},
      {node("GroupNormalization", {"x", "s", "b"}, {"y"}, {A("num_groups", 1)}), 18},
      {node("BitwiseAnd", {"x", "x"}, {"y"}), 18},
      {node("BitwiseNot", {"x"}, {"y"}), 18},
      {node("Mish", {"x"}, {"y"}), 18},
      {node("Gelu", {"x"}, {"y"}), 20},
      {node("StringSplit", {"x"}, {"y", "z"}), 20},
      {node("Attention", {"x", "x", "x"}, {"y"}), 23},
      {node("RMSNormalization", {"x", "x"}, {"y"}), 23},
      {node("RotaryEmbedding", {"x", "x", "x"}, {"y"}), 23},
      {node("Swish", {"x"}, {"y"}), 24},
  };
  for (const auto& [n, since] : cases) {
    CAPTURE(n.op_type);
    const DataType e = n.op_type.rfind("Bitwise", 0) == 0 ? DataType::INT32 : DataType::FLOAT;
    CHECK(failed(infer_one(n, {{"x", e, {}, false}}, {}, since - 1)));
    auto ok = infer_one(n, {{"x", e, {}, false}}, {}, since);
    CHECK(ok.report.nodes_failed == 0);
  }
  // Pad 'wrap' is new in 19; Resize 'half_pixel_symmetric' in 19; Scatter* max/min in 18
  CHECK(failed(infer_one(node("Pad", {"x", "p"}, {"y"}, {A("mode", "wrap")}), {{"x", DataType::FLOAT, {"4"}}},
                         {ints("p", {1, 1})}, 18)));
  CHECK(one(node("Pad", {"x", "p"}, {"y"}, {A("mode", "reflect")}), {{"x", DataType::FLOAT, {"4"}}}, 18, {ints("p", {1, 1})}) ==
        "FLOAT[6]");
  CHECK(one(node("Pad", {"x", "p"}, {"y"}, {A("mode", "wrap")}), {{"x", DataType::FLOAT, {"4"}}}, 19, {ints("p", {1, 1})}) ==
        "FLOAT[6]");
  CHECK(failed(infer_one(node("Resize", {"x", "", "", "s"}, {"y"}, {A("coordinate_transformation_mode", "half_pixel_symmetric")}),
                         {{"x", DataType::FLOAT, {"N", "C", "H", "W"}}}, {ints("s", {1, 3, 5, 7})}, 18)));
  CHECK(failed(infer_one(node("ScatterElements", {"x", "i", "u"}, {"y"}, {A("reduction", "max")}),
                         {{"x", DataType::FLOAT, {"N"}}, {"i", DataType::INT64, {"2"}}, {"u", DataType::FLOAT, {"2"}}}, {}, 17)));
  CHECK(one(node("ScatterElements", {"x", "i", "u"}, {"y"}, {A("reduction", "add")}),
            {{"x", DataType::FLOAT, {"N"}}, {"i", DataType::INT64, {"2"}}, {"u", DataType::FLOAT, {"2"}}}, 17) == "FLOAT[N]");
  CHECK(failed(infer_one(node("ScatterND", {"x", "i", "u"}, {"y"}, {A("reduction", "min")}),
                         {{"x", DataType::FLOAT, {"N"}}, {"i", DataType::INT64, {"2", "1"}}, {"u", DataType::FLOAT, {"2"}}}, {}, 16)));
}

// ---- opset 27 ----------------------------------------------------------------------------------
// LinearAttention-27 and CausalConvWithState-27, and ONNX Runtime's com.microsoft forms of both;
// the sizes and errors below are what ONNX Runtime 1.30's shape inference and kernels give
// (tests/infer/newops checks them against its runs).

namespace {
Node with_domain(Node n, const char* domain) {
  n.domain = domain;
  return n;
}
bool type_error(const OneNode& r) { return r.report.type_errors > 0; }  // the type table's verdict
std::vector<Attribute> heads(std::int64_t q, std::int64_t kv, const char* rule) {
  return {A("q_num_heads", q), A("kv_num_heads", kv), A("update_rule", rule)};
}
}  // namespace

TEST_CASE("LinearAttention 27: packed heads, output [B, T, Hq*dv], present_state [B, Hkv, dk, dv]") {
  const std::vector<In> qkv = {{"q", DataType::FLOAT, {"B", "T", "20"}},
                               {"k", DataType::FLOAT, {"B", "T", "10"}},
                               {"v", DataType::FLOAT, {"B", "T", "12"}}};
  auto r = infer_one(node("LinearAttention", {"q", "k", "v"}, {"o", "s"}, heads(4, 2, "linear")), qkv, {}, 27);
  CHECK(r.out(0) == "FLOAT[B,T,24]");
  CHECK(r.out(1) == "FLOAT[B,2,5,6]");
  CHECK_FALSE(failed(r));
  // Symbolic hidden sizes: dk and dv follow when the division is exact (here 2*D / 2 and 2*E / 2).
  {
    Model m = make_model({node("Concat", {"qh", "qh"}, {"q"}, {A("axis", 2)}), node("Concat", {"vh", "vh"}, {"v"}, {A("axis", 2)}),
                          node("LinearAttention", {"q", "q", "v"}, {"o", "s"}, heads(2, 2, "linear"))},
                         {{"qh", DataType::FLOAT16, {"N", "S", "D"}}, {"vh", DataType::FLOAT16, {"N", "S", "E"}}}, {}, 27);
    const auto rep = infer_shapes(m);
    CHECK(type_of(m, "o") == "FLOAT16[N,S,2*E]");
    CHECK(type_of(m, "s") == "FLOAT16[N,2,D,E]");
    CHECK(rep.nodes_failed + rep.conflicts == 0);
  }
  // The key's head size must be the query's; batch and sequence are shared.
  CHECK(failed(infer_one(node("LinearAttention", {"q", "k", "v"}, {"o", "s"}, heads(4, 2, "linear")),
                         {qkv[0], {"k", DataType::FLOAT, {"B", "T", "14"}}, qkv[2]}, {}, 27)));
  CHECK(failed(infer_one(node("LinearAttention", {"q", "k", "v"}, {"o", "s"}, heads(4, 2, "linear")),
                         {qkv[0], qkv[1], {"v", DataType::FLOAT, {"B", "T", "13"}}}, {}, 27)));
  r = infer_one(node("LinearAttention", {"q", "k", "v"}, {"o", "s"}, heads(4, 2, "linear")),
                {qkv[0], {"k", DataType::FLOAT, {"1", "T", "10"}}, qkv[2]}, {}, 27);
  CHECK(r.out(0) == "FLOAT[1,T,24]");  // B is 1 wherever it appears
  // Update rules and their inputs: gated_delta (the default) needs decay and beta.
  const std::vector<In> all = {qkv[0], qkv[1], qkv[2], {"p", DataType::FLOAT16, {"B", "2", "5", "6"}},
                               {"d", DataType::FLOAT, {"B", "T", "2"}}, {"b", DataType::FLOAT, {"B", "T", "1"}}};
  r = infer_one(node("LinearAttention", {"q", "k", "v", "p", "d", "b"}, {"o", "s"}, {A("q_num_heads", 4), A("kv_num_heads", 2)}),
                all, {}, 27);
  CHECK(r.out(0) == "FLOAT[B,T,24]");
  CHECK(r.out(1) == "FLOAT16[B,2,5,6]");  // the states keep past_state's type
  CHECK_FALSE(failed(r));
  CHECK(failed(infer_one(node("LinearAttention", {"q", "k", "v"}, {"o", "s"}, heads(4, 2, "gated")), qkv, {}, 27)));
  CHECK(failed(infer_one(node("LinearAttention", {"q", "k", "v", "", "", "b"}, {"o", "s"}, heads(4, 2, "linear")), all, {}, 27)));
  CHECK(failed(infer_one(node("LinearAttention", {"q", "k", "v"}, {"o", "s"}, heads(4, 2, "softmax")), qkv, {}, 27)));
  // decay: [B, T, Hkv] or [B, T, Hkv*dk]; beta: [B, T, 1] or [B, T, Hkv]
  CHECK_FALSE(failed(infer_one(node("LinearAttention", {"q", "k", "v", "", "d"}, {"o", "s"}, heads(4, 2, "gated")),
                               {qkv[0], qkv[1], qkv[2], {"d", DataType::FLOAT, {"B", "T", "10"}}}, {}, 27)));
  CHECK(failed(infer_one(node("LinearAttention", {"q", "k", "v", "", "d"}, {"o", "s"}, heads(4, 2, "gated")),
                         {qkv[0], qkv[1], qkv[2], {"d", DataType::FLOAT, {"B", "T", "3"}}}, {}, 27)));
  CHECK(failed(infer_one(node("LinearAttention", {"q", "k", "v", "", "", "b"}, {"o", "s"}, heads(4, 2, "delta")),
                         {qkv[0], qkv[1], qkv[2], {"b", DataType::FLOAT, {"B", "T", "3"}}}, {}, 27)));
  // past_state must be [B, Hkv, dk, dv]; a symbolic one takes those sizes.
  CHECK(failed(infer_one(node("LinearAttention", {"q", "k", "v", "p"}, {"o", "s"}, heads(4, 2, "linear")),
                         {qkv[0], qkv[1], qkv[2], {"p", DataType::FLOAT, {"B", "2", "5", "7"}}}, {}, 27)));
  // Heads: Hq a multiple of Hkv; 3-D inputs; two outputs; float types that agree (the type table's
  // check); opset 27.
  CHECK(failed(infer_one(node("LinearAttention", {"q", "k", "v"}, {"o", "s"}, heads(2, 4, "linear")), qkv, {}, 27)));
  CHECK(failed(infer_one(node("LinearAttention", {"q", "k", "v"}, {"o", "s"}, heads(4, 2, "linear")),
                         {{"q", DataType::FLOAT, {"B", "4", "T", "5"}}, qkv[1], qkv[2]}, {}, 27)));
  CHECK(failed(infer_one(node("LinearAttention", {"q", "k", "v"}, {"o"}, heads(4, 2, "linear")), qkv, {}, 27)));
  CHECK(type_error(infer_one(node("LinearAttention", {"q", "k", "v"}, {"o", "s"}, heads(4, 2, "linear")),
                             {qkv[0], {"k", DataType::FLOAT16, {"B", "T", "10"}}, qkv[2]}, {}, 27)));
  CHECK(type_error(infer_one(node("LinearAttention", {"q", "k", "v"}, {"o", "s"}, heads(4, 2, "linear")),
                             {{"q", DataType::DOUBLE, {"B", "T", "20"}}, {"k", DataType::DOUBLE, {"B", "T", "10"}},
                              {"v", DataType::DOUBLE, {"B", "T", "12"}}},
                             {}, 27)));
  CHECK(failed(infer_one(node("LinearAttention", {"q", "k", "v"}, {"o", "s"}, heads(4, 2, "linear")), qkv, {}, 26)));
}

TEST_CASE("com.microsoft LinearAttention: fewer key heads, and Hq < Hkv") {
  // Key heads dividing Hkv: the key's last dim does not fix dk (the query's does).
  auto r = infer_one(with_domain(node("LinearAttention", {"q", "k", "v"}, {"o", "s"}, heads(4, 2, "linear")), "com.microsoft"),
                     {{"q", DataType::FLOAT, {"B", "T", "20"}}, {"k", DataType::FLOAT, {"B", "T", "5"}},
                      {"v", DataType::FLOAT, {"B", "T", "12"}}});
  CHECK(r.out(0) == "FLOAT[B,T,24]");
  CHECK(r.out(1) == "FLOAT[B,2,5,6]");
  CHECK_FALSE(failed(r));
  // Inverse grouping: the output has Hkv heads of dv.
  r = infer_one(with_domain(node("LinearAttention", {"q", "k", "v"}, {"o", "s"}, heads(2, 4, "linear")), "com.microsoft"),
                {{"q", DataType::FLOAT, {"B", "T", "10"}}, {"k", DataType::FLOAT, {"B", "T", "10"}},
                 {"v", DataType::FLOAT, {"B", "T", "24"}}});
  CHECK(r.out(0) == "FLOAT[B,T,24]");
  CHECK(r.out(1) == "FLOAT[B,4,5,6]");
  CHECK(failed(infer_one(with_domain(node("LinearAttention", {"q", "k", "v"}, {"o", "s"}, heads(3, 2, "linear")), "com.microsoft"),
                         {{"q", DataType::FLOAT, {"B", "T", "15"}}, {"k", DataType::FLOAT, {"B", "T", "10"}},
                          {"v", DataType::FLOAT, {"B", "T", "12"}}})));
  // state_window > 0: the states gain a leading axis; left unknown.
  r = infer_one(with_domain(node("LinearAttention", {"q", "k", "v"}, {"o", "s"},
                                 {A("q_num_heads", 4), A("kv_num_heads", 2), A("update_rule", "linear"), A("state_window", 3)}),
                            "com.microsoft"),
                {{"q", DataType::FLOAT, {"B", "T", "20"}}, {"k", DataType::FLOAT, {"B", "T", "10"}},
                 {"v", DataType::FLOAT, {"B", "T", "12"}}});
  CHECK(r.out(0) == "FLOAT[B,T,24]");
  CHECK(r.out(1) == "FLOAT[*]");
  // Types: the type table's com.microsoft row (ONNX Runtime's schema) checks them when the model
  // imports com.microsoft; the sizes are inferred all the same.
  auto m = make_model({with_domain(node("LinearAttention", {"q", "k", "v", "p"}, {"o", "s"}, heads(4, 2, "linear")),
                                   "com.microsoft")},
                      {{"q", DataType::DOUBLE, {"B", "T", "20"}}, {"k", DataType::DOUBLE, {"B", "T", "10"}},
                       {"v", DataType::DOUBLE, {"B", "T", "12"}}, {"p", DataType::FLOAT16, {"B", "2", "5", "6"}}});
  m.set_opset_version("com.microsoft", 1);
  const auto rep = oxir::infer_shapes(m);
  CHECK(rep.type_errors == 3);  // q, k and v: T is float, float16 or bfloat16; the state's S may differ
  CHECK(rep.nodes_failed == 0);
  CHECK(type_of(m, "o") == "DOUBLE[B,T,24]");
}

TEST_CASE("CausalConvWithState 27: output like the input, present_state [B, C, K-1]") {
  const In x{"x", DataType::FLOAT, {"B", "C", "L"}}, w{"w", DataType::FLOAT, {"C", "1", "4"}};
  auto r = infer_one(node("CausalConvWithState", {"x", "w"}, {"y", "s"}), {x, w}, {}, 27);
  CHECK(r.out(0) == "FLOAT[B,C,L]");
  CHECK(r.out(1) == "FLOAT[B,C,3]");
  CHECK_FALSE(failed(r));
  // Weight channels, bias and past_state tie the sizes together.
  r = infer_one(node("CausalConvWithState", {"x", "w", "b", "p"}, {"y", "s"}, {A("activation", "silu")}),
                {{"x", DataType::BFLOAT16, {"B", "C", "L"}}, {"w", DataType::BFLOAT16, {"64", "1", "K"}},
                 {"b", DataType::BFLOAT16, {"C"}}, {"p", DataType::BFLOAT16, {"N", "C", "M"}}},
                {}, 27);
  CHECK(r.out(0) == "BFLOAT16[B,64,L]");
  CHECK(r.out(1) == "BFLOAT16[B,64,K-1]");
  CHECK(type_of(r.model, "p") == "BFLOAT16[N,C,M]");  // inputs keep their declared dims
  CHECK_FALSE(failed(r));
  CHECK(failed(infer_one(node("CausalConvWithState", {"x", "w", "", "p"}, {"y", "s"}),
                         {{"x", DataType::FLOAT, {"2", "4", "5"}}, {"w", DataType::FLOAT, {"4", "1", "3"}},
                          {"p", DataType::FLOAT, {"2", "4", "3"}}},
                         {}, 27)));
  CHECK(failed(infer_one(node("CausalConvWithState", {"x", "w"}, {"y", "s"}),
                         {{"x", DataType::FLOAT, {"2", "4", "5"}}, {"w", DataType::FLOAT, {"4", "2", "3"}}}, {}, 27)));
  CHECK(failed(infer_one(node("CausalConvWithState", {"x", "w"}, {"y", "s"}),
                         {{"x", DataType::FLOAT, {"2", "4", "5"}}, {"w", DataType::FLOAT, {"5", "1", "3"}}}, {}, 27)));
  CHECK(failed(infer_one(node("CausalConvWithState", {"x", "w"}, {"y", "s"}, {A("activation", "relu")}), {x, w}, {}, 27)));
  CHECK(type_error(infer_one(node("CausalConvWithState", {"x", "w"}, {"y", "s"}), {x, {"w", DataType::FLOAT16, {"C", "1", "4"}}}, {}, 27)));
  CHECK(type_error(infer_one(node("CausalConvWithState", {"x", "w"}, {"y", "s"}),
                             {{"x", DataType::DOUBLE, {"B", "C", "L"}}, {"w", DataType::DOUBLE, {"C", "1", "4"}}}, {}, 27)));
  CHECK(failed(infer_one(node("CausalConvWithState", {"x", "w"}, {"y", "s"}),
                         {{"x", DataType::FLOAT, {"B", "C", "3", "L"}}, w}, {}, 27)));
  CHECK(failed(infer_one(node("CausalConvWithState", {"x", "w"}, {"y", "s"}), {x, w}, {}, 26)));
}

TEST_CASE("com.microsoft CausalConvWithState: dilation, channels_last, other spatial ranks") {
  const In w{"w", DataType::FLOAT, {"C", "1", "3"}};
  auto r = infer_one(with_domain(node("CausalConvWithState", {"x", "w"}, {"y", "s"}, {A("dilation", 2)}), "com.microsoft"),
                     {{"x", DataType::FLOAT, {"B", "C", "L"}}, w});
  CHECK(r.out(0) == "FLOAT[B,C,L]");
  CHECK(r.out(1) == "FLOAT[B,C,4]");
  r = infer_one(with_domain(node("CausalConvWithState", {"x", "w", "", "p"}, {"y", "s"}, {A("channels_last", 1)}), "com.microsoft"),
                {{"x", DataType::FLOAT, {"B", "L", "C"}}, w, {"p", DataType::FLOAT, {"B", "2", "C"}}});
  CHECK(r.out(0) == "FLOAT[B,L,C]");
  CHECK(r.out(1) == "FLOAT[B,2,C]");
  CHECK_FALSE(failed(r));
  CHECK(failed(infer_one(with_domain(node("CausalConvWithState", {"x", "w", "", "p"}, {"y", "s"}, {A("channels_last", 1)}),
                                     "com.microsoft"),
                         {{"x", DataType::FLOAT, {"2", "5", "4"}}, {"w", DataType::FLOAT, {"4", "1", "3"}},
                          {"p", DataType::FLOAT, {"2", "4", "2"}}})));
  r = infer_one(with_domain(node("CausalConvWithState", {"x", "w"}, {"y", "s"}, {A("ndim", 2)}), "com.microsoft"),
                {{"x", DataType::FLOAT, {"B", "C", "H", "W"}}, {"w", DataType::FLOAT, {"C", "1", "3", "3"}}});
  CHECK(r.out(0) == "FLOAT[B,C,H,W]");
  CHECK(r.out(1) == "FLOAT[*]");
}

TEST_CASE("LinearAttention and CausalConvWithState: hostile sizes and attributes are diagnostics") {
  const std::int64_t huge = std::int64_t{1} << 62;
  // Head counts near 2^62: no overflow, a diagnostic for the sizes they cannot divide.
  auto r = infer_one(node("LinearAttention", {"q", "k", "v", "", "d"}, {"o", "s"},
                          {A("q_num_heads", huge), A("kv_num_heads", huge), A("update_rule", "gated")}),
                     {{"q", DataType::FLOAT, {"B", "T", "8"}}, {"k", DataType::FLOAT, {"B", "T", "8"}},
                      {"v", DataType::FLOAT, {"B", "T", "8"}}, {"d", DataType::FLOAT, {"B", "T", "4611686018427387903"}}},
                     {}, 27);
  CHECK(failed(r));
  CHECK(failed(infer_one(node("LinearAttention", {"q", "k", "v"}, {"o", "s"}, heads(0, 2, "linear")),
                         {{"q", DataType::FLOAT, {"B", "T", "8"}}}, {}, 27)));
  // A kernel of size 0 has no carry; a dilation near 2^62 overflows the state size: diagnostics.
  CHECK(failed(infer_one(node("CausalConvWithState", {"x", "w"}, {"y", "s"}),
                         {{"x", DataType::FLOAT, {"B", "4", "L"}}, {"w", DataType::FLOAT, {"4", "1", "0"}}}, {}, 27)));
  r = infer_one(with_domain(node("CausalConvWithState", {"x", "w"}, {"y", "s"}, {A("dilation", huge)}), "com.microsoft"),
                {{"x", DataType::FLOAT, {"B", "4", "L"}}, {"w", DataType::FLOAT, {"4", "1", "9"}}});
  CHECK(failed(r));
  CHECK(failed(infer_one(with_domain(node("CausalConvWithState", {"x", "w"}, {"y", "s"}, {A("dilation", 0)}), "com.microsoft"),
                         {{"x", DataType::FLOAT, {"B", "4", "L"}}, {"w", DataType::FLOAT, {"4", "1", "3"}}})));
}

}  // namespace oxir_unit_test_infer_newer
