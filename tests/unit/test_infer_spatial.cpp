// Inference rules of the spatial family: convolution, pooling, resizing, sampling, recurrent,
// attention and signal operators. Expected shapes follow from the operators' definitions:
//   conv/pool:  out = floor((in + pad_begin + pad_end - dilation*(k-1) - 1) / stride) + 1
//   SAME_*:     out = ceil(in / stride)
//   transpose:  out = stride*(in-1) + output_padding + dilation*(k-1) + 1 - pad_begin - pad_end
#include <doctest/doctest.h>

#include <limits>

#include "infer_test_util.hpp"

namespace oxir_unit_test_infer_spatial {

using namespace oxir;
using namespace oxir::infer;
using namespace oxir_test;

namespace {

using I64s = std::vector<std::int64_t>;

Node node(std::string op, std::vector<std::string> in, std::vector<std::string> out, std::vector<Attribute> attrs = {}) {
  Node n(std::move(op), std::move(in), std::move(out));
  for (auto& a : attrs) n.set_attribute(std::move(a));
  return n;
}
Tensor floats(std::string name, std::vector<float> v) {
  return Tensor::from_values<float>(std::move(name), {static_cast<std::int64_t>(v.size())},
                                    std::span<const float>(v));
}
const auto F = DataType::FLOAT;
const auto I64 = DataType::INT64;

// A test-only Shape rule (the shape family owns the real one) so symbolic sizes can flow into
// Resize/MaxUnpool/AffineGrid through a Shape node.
void shape_rule(InferContext& c) {
  const Dims* s = c.input_shape(0);
  if (!s) return c.set_output(0, DataType::INT64, Dims{c.fresh()});
  c.set_output(0, DataType::INT64, Dims{DimExpr(static_cast<std::int64_t>(s->size()))});
  c.set_output_value(0, *s);
}
OneNode infer_with_shape(std::vector<Node> nodes, const std::vector<In>& inputs, std::vector<Tensor> inits,
                         std::int64_t opset) {
  OneNode r;
  r.model = make_model(std::move(nodes), inputs, std::move(inits), opset);
  OpRegistry reg = OpRegistry::standard();
  reg.add("", "Shape", &shape_rule);
  Engine e(r.model, InferOptions{}, reg);
  r.report = e.run();
  return r;
}
bool failed(const OneNode& r) { return r.report.nodes_failed + r.report.conflicts > 0; }

}  // namespace

TEST_CASE("Conv: symbolic and numeric window arithmetic") {
  // 3x3 kernel, stride 2, pads 1: floor((H+2-3)/2)+1 = floor((H+1)/2).
  auto r = infer_one(node("Conv", {"x", "w"}, {"y"}, {Attribute("strides", I64s{2, 2}), Attribute("pads", I64s{1, 1, 1, 1})}),
                     {{"x", F, {"N", "3", "H", "W"}}, {"w", F, {"16", "3", "3", "3"}}});
  CHECK(r.out() == "FLOAT[N,16,floor((H+1)/2),floor((W+1)/2)]");
  CHECK(r.report.diagnostics.empty());

  // 7x7 stride 2 pads 3 on 224: floor((224+6-7)/2)+1 = 112; bias checked against M.
  r = infer_one(node("Conv", {"x", "w", "b"}, {"y"},
                     {Attribute("strides", I64s{2, 2}), Attribute("pads", I64s{3, 3, 3, 3}),
                      Attribute("kernel_shape", I64s{7, 7})}),
                {{"x", F, {"1", "3", "224", "224"}}, {"w", F, {"64", "3", "7", "7"}}, {"b", F, {"64"}}});
  CHECK(r.out() == "FLOAT[1,64,112,112]");

  // Depthwise, dilation 2, no pads: 32 - 2*(3-1) = 28; asymmetric pads on W: 32+1+0-5+1 = 29.
  r = infer_one(node("Conv", {"x", "w"}, {"y"},
                     {Attribute("group", 8), Attribute("dilations", I64s{2, 2}), Attribute("pads", I64s{0, 1, 0, 0})}),
                {{"x", F, {"N", "8", "32", "32"}}, {"w", F, {"8", "1", "3", "3"}}});
  CHECK(r.out() == "FLOAT[N,8,28,29]");

  // 1-D conv with symbolic length: L - 4 (kernel 5, stride 1).
  r = infer_one(node("Conv", {"x", "w"}, {"y"}), {{"x", F, {"N", "C", "L"}}, {"w", F, {"M", "C", "5"}}});
  CHECK(r.out() == "FLOAT[N,M,L-4]");
}

TEST_CASE("Conv: auto_pad, channel checks, unknown kernel") {
  auto r = infer_one(node("Conv", {"x", "w"}, {"y"}, {Attribute("auto_pad", "SAME_UPPER"), Attribute("strides", I64s{2, 3})}),
                     {{"x", F, {"N", "3", "H", "W"}}, {"w", F, {"8", "3", "3", "3"}}});
  CHECK(r.out() == "FLOAT[N,8,floor((H+1)/2),floor((W+2)/3)]");
  r = infer_one(node("Conv", {"x", "w"}, {"y"}, {Attribute("auto_pad", "SAME_LOWER")}),
                {{"x", F, {"N", "3", "7", "W"}}, {"w", F, {"8", "3", "3", "3"}}});
  CHECK(r.out() == "FLOAT[N,8,7,W]");
  r = infer_one(node("Conv", {"x", "w"}, {"y"}, {Attribute("auto_pad", "VALID"), Attribute("strides", I64s{2, 2})}),
                {{"x", F, {"N", "3", "H", "9"}}, {"w", F, {"8", "3", "3", "3"}}});
  // floor((H-3)/2)+1 in canonical form; (9-3)/2+1 = 4.
  CHECK(r.out() == "FLOAT[N,8,floor((H+1)/2)-1,4]");

  // X channels = W dim 1 * group: 4 vs 3 is a conflict.
  r = infer_one(node("Conv", {"x", "w"}, {"y"}), {{"x", F, {"N", "4", "5", "5"}}, {"w", F, {"8", "3", "3", "3"}}});
  CHECK(r.report.conflicts == 1);
  // A symbolic channel count is bound to W dim 1 * group = 6.
  r = infer_one(node("Conv", {"x", "w"}, {"y"}, {Attribute("group", 2)}),
                {{"x", F, {"N", "C", "5", "5"}}, {"w", F, {"8", "3", "1", "1"}}});
  CHECK(r.out() == "FLOAT[N,8,5,5]");
  CHECK(type_of(r.model, "x") == "FLOAT[N,C,5,5]");
  // W of unknown rank and no kernel_shape: spatial sizes unknown, rank and N known.
  r = infer_one(node("Conv", {"x", "w"}, {"y"}), {{"x", F, {"N", "3", "H", "W"}}, {"w", F, {}, false}});
  CHECK(r.out().rfind("FLOAT[N,unk__", 0) == 0);
  CHECK(r.report.diagnostics.empty());
  // Malformed: strides of the wrong length, rank-2 X, one input.
  CHECK(failed(infer_one(node("Conv", {"x", "w"}, {"y"}, {Attribute("strides", I64s{1})}),
                         {{"x", F, {"N", "3", "5", "5"}}, {"w", F, {"8", "3", "3", "3"}}})));
  CHECK(failed(infer_one(node("Conv", {"x", "w"}, {"y"}), {{"x", F, {"N", "3"}}, {"w", F, {"8", "3"}}})));
  CHECK(failed(infer_one(node("Conv", {"x"}, {"y"}), {{"x", F, {"N", "3", "5", "5"}}})));
  // Kernel larger than the padded input.
  CHECK(failed(infer_one(node("Conv", {"x", "w"}, {"y"}), {{"x", F, {"N", "3", "2", "2"}}, {"w", F, {"8", "3", "5", "5"}}})));
}

TEST_CASE("ConvInteger, QLinearConv, DeformConv element types and shapes") {
  auto r = infer_one(node("ConvInteger", {"x", "w"}, {"y"}),
                     {{"x", DataType::UINT8, {"N", "3", "H", "W"}}, {"w", DataType::UINT8, {"8", "3", "3", "3"}}});
  CHECK(r.out() == "INT32[N,8,H-2,W-2]");
  r = infer_one(node("QLinearConv", {"x", "xs", "xz", "w", "ws", "wz", "ys", "yz"}, {"y"}, {Attribute("pads", I64s{1, 1, 1, 1})}),
                {{"x", DataType::UINT8, {"N", "3", "H", "W"}},
                 {"xs", F, {}},
                 {"xz", DataType::UINT8, {}},
                 {"w", DataType::INT8, {"8", "3", "3", "3"}},
                 {"ws", F, {}},
                 {"wz", DataType::INT8, {}},
                 {"ys", F, {}},
                 {"yz", DataType::INT8, {}}});
  CHECK(r.out() == "INT8[N,8,H,W]");
  r = infer_one(node("DeformConv", {"x", "w", "off"}, {"y"}, {Attribute("strides", I64s{2, 2}), Attribute("pads", I64s{1, 1, 1, 1})}),
                {{"x", F, {"N", "4", "H", "W"}}, {"w", F, {"6", "4", "3", "3"}}, {"off", F, {"N", "18", "?", "?"}}}, {}, 19);
  CHECK(r.out() == "FLOAT[N,6,floor((H+1)/2),floor((W+1)/2)]");
}

TEST_CASE("ConvTranspose: output size, output_shape, output_padding, auto_pad, group") {
  // stride 2, kernel 4, pads 1: 2*(H-1) + 4 - 2 = 2*H.
  auto r = infer_one(node("ConvTranspose", {"x", "w"}, {"y"}, {Attribute("strides", I64s{2, 2}), Attribute("pads", I64s{1, 1, 1, 1})}),
                     {{"x", F, {"N", "16", "H", "W"}}, {"w", F, {"16", "8", "4", "4"}}});
  CHECK(r.out() == "FLOAT[N,8,2*H,2*W]");
  // group 2: output channels = W dim 1 * group; output_padding 1 on the second axis; kernel 3 stride 2:
  // 2*(5-1)+3 = 11 and 2*(W-1)+3+1 = 2*W+2.
  r = infer_one(node("ConvTranspose", {"x", "w"}, {"y"},
                     {Attribute("group", 2), Attribute("strides", I64s{2, 2}), Attribute("output_padding", I64s{0, 1})}),
                {{"x", F, {"N", "16", "5", "W"}}, {"w", F, {"16", "4", "3", "3"}}});
  CHECK(r.out() == "FLOAT[N,8,11,2*W+2]");
  r = infer_one(node("ConvTranspose", {"x", "w"}, {"y"}, {Attribute("strides", I64s{2, 2}), Attribute("output_shape", I64s{10, 12})}),
                {{"x", F, {"N", "16", "H", "W"}}, {"w", F, {"16", "8", "3", "3"}}});
  CHECK(r.out() == "FLOAT[N,8,10,12]");
  r = infer_one(node("ConvTranspose", {"x", "w"}, {"y"}, {Attribute("strides", I64s{3, 2}), Attribute("auto_pad", "SAME_UPPER")}),
                {{"x", F, {"N", "16", "H", "W"}}, {"w", F, {"16", "8", "3", "3"}}});
  CHECK(r.out() == "FLOAT[N,8,3*H,2*W]");
  // SAME with a kernel (plus output_padding) smaller than the stride would need negative padding:
  // ONNX Runtime clamps it to 0 and gives stride*(in-1)+dk, not in*stride, so the size is left
  // unknown (kernel 1, stride 2 on W); kernel 3 + output_padding 1 >= stride 3 on H stays 3*H.
  r = infer_one(node("ConvTranspose", {"x", "w"}, {"y"},
                     {Attribute("strides", I64s{3, 2}), Attribute("output_padding", I64s{1, 0}), Attribute("auto_pad", "SAME_UPPER")}),
                {{"x", F, {"N", "16", "H", "W"}}, {"w", F, {"16", "8", "2", "1"}}});
  CHECK(r.out() == "FLOAT[N,8,3*H,unk__0]");
  r = infer_one(node("ConvTranspose", {"x", "w"}, {"y"},
                     {Attribute("strides", I64s{2}), Attribute("dilations", I64s{2}), Attribute("auto_pad", "SAME_LOWER")}),
                {{"x", F, {"N", "16", "W"}}, {"w", F, {"16", "8", "1"}}});
  CHECK(r.out() == "FLOAT[N,8,unk__0]");
  // An output_padding near 2^63 (fuzzed): kernel + output_padding is not formed as an int64 sum
  // (UBSan found the overflow); the padding it implies is positive, so the size is in * stride.
  r = infer_one(node("ConvTranspose", {"x", "w"}, {"y"},
                     {Attribute("strides", I64s{2}), Attribute("output_padding", I64s{INT64_MAX}),
                      Attribute("auto_pad", "SAME_LOWER")}),
                {{"x", F, {"N", "16", "W"}}, {"w", F, {"16", "8", "3"}}});
  CHECK(r.out() == "FLOAT[N,8,2*W]");
  // A negative one is rejected (a diagnostic), whatever its size.
  CHECK(failed(infer_one(node("ConvTranspose", {"x", "w"}, {"y"},
                              {Attribute("strides", I64s{4}), Attribute("output_padding", I64s{INT64_MIN}),
                               Attribute("auto_pad", "SAME_LOWER")}),
                         {{"x", F, {"N", "16", "W"}}, {"w", F, {"16", "8", "3"}}})));
  // Channels must be a multiple of group.
  CHECK(failed(infer_one(node("ConvTranspose", {"x", "w"}, {"y"}, {Attribute("group", 3)}),
                         {{"x", F, {"N", "16", "4", "4"}}, {"w", F, {"16", "8", "3", "3"}}})));
  CHECK(failed(infer_one(node("Conv", {"x", "w"}, {"y"}, {Attribute("group", 3)}),
                         {{"x", F, {"N", "6", "4", "4"}}, {"w", F, {"8", "2", "3", "3"}}})));
  // X channels must equal W dim 0.
  r = infer_one(node("ConvTranspose", {"x", "w"}, {"y"}), {{"x", F, {"N", "3", "4", "4"}}, {"w", F, {"16", "8", "3", "3"}}});
  CHECK(r.report.conflicts == 1);
}

TEST_CASE("MaxPool / AveragePool / LpPool") {
  auto r = infer_one(node("MaxPool", {"x"}, {"y", "i"},
                          {Attribute("kernel_shape", I64s{3, 3}), Attribute("strides", I64s{2, 2}), Attribute("pads", I64s{1, 1, 1, 1})}),
                     {{"x", F, {"N", "C", "H", "W"}}});
  CHECK(r.out(0) == "FLOAT[N,C,floor((H+1)/2),floor((W+1)/2)]");
  CHECK(r.out(1) == "INT64[N,C,floor((H+1)/2),floor((W+1)/2)]");
  // ceil_mode, kernel 3 stride 2 no pads: ceil((H-3)/2)+1 = floor(H/2); floor mode:
  // floor((H-3)/2)+1 = floor((H-1)/2), printed canonically as floor((H+1)/2)-1.
  r = infer_one(node("MaxPool", {"x"}, {"y"}, {Attribute("kernel_shape", I64s{3}), Attribute("strides", I64s{2}), Attribute("ceil_mode", 1)}),
                {{"x", F, {"N", "C", "H"}}});
  CHECK(r.out() == "FLOAT[N,C,floor(H/2)]");
  r = infer_one(node("MaxPool", {"x"}, {"y"}, {Attribute("kernel_shape", I64s{3}), Attribute("strides", I64s{2})}),
                {{"x", F, {"N", "C", "H"}}});
  CHECK(r.out() == "FLOAT[N,C,floor((H+1)/2)-1]");
  // ceil_mode numbers: k2 s2 on 5 -> ceil(3/2)+1 = 3; k1 s2 on 4 -> ceil(3/2)+1 = 3, but the third
  // window would start at 4, outside the input: 2.
  r = infer_one(node("MaxPool", {"x"}, {"y"}, {Attribute("kernel_shape", I64s{2, 1}), Attribute("strides", I64s{2, 2}), Attribute("ceil_mode", 1)}),
                {{"x", F, {"1", "1", "5", "4"}}});
  CHECK(r.out() == "FLOAT[1,1,3,2]");
  // Symbolic ceil_mode where the last window may start past the input (k1 s2): the size is
  // ceil((H-1)/2)+1 = floor(H/2)+1 capped by ceil(H/2) = floor((H+1)/2).
  r = infer_one(node("MaxPool", {"x"}, {"y"}, {Attribute("kernel_shape", I64s{1}), Attribute("strides", I64s{2}), Attribute("ceil_mode", 1)}),
                {{"x", F, {"N", "C", "H"}}});
  CHECK(r.out().find("min(") != std::string::npos);
  CHECK(r.out().find("floor(H/2)+1") != std::string::npos);
  CHECK(r.out().find("floor((H+1)/2)") != std::string::npos);
  // ceil_mode before opset 10 does not exist: floor arithmetic.
  r = infer_one(node("MaxPool", {"x"}, {"y"}, {Attribute("kernel_shape", I64s{2}), Attribute("strides", I64s{2})}),
                {{"x", F, {"N", "C", "5"}}}, {}, 8);
  CHECK(r.out() == "FLOAT[N,C,2]");
  // dilations 2, kernel 3: H - 4.
  r = infer_one(node("MaxPool", {"x"}, {"y"}, {Attribute("kernel_shape", I64s{3, 3}), Attribute("dilations", I64s{2, 2})}),
                {{"x", F, {"N", "C", "H", "10"}}});
  CHECK(r.out() == "FLOAT[N,C,H-4,6]");
  r = infer_one(node("AveragePool", {"x"}, {"y"}, {Attribute("kernel_shape", I64s{2, 2}), Attribute("strides", I64s{2, 2}), Attribute("auto_pad", "SAME_UPPER")}),
                {{"x", DataType::FLOAT16, {"N", "C", "H", "7"}}});
  CHECK(r.out() == "FLOAT16[N,C,floor((H+1)/2),4]");
  // SAME with a dilated kernel: the spec says ceil(in/stride), ONNX Runtime sizes the padding from
  // the undilated kernel and gives fewer windows (H=12, k2 d2 s3: 3, not 4); unknown on such axes
  // (kernel 1 is not affected by its dilation).
  for (const char* op : {"MaxPool", "AveragePool", "LpPool"}) {
    r = infer_one(node(op, {"x"}, {"y"},
                       {Attribute("kernel_shape", I64s{2, 1}), Attribute("strides", I64s{3, 2}), Attribute("dilations", I64s{2, 2}),
                        Attribute("auto_pad", "SAME_LOWER")}),
                  {{"x", F, {"N", "C", "12", "W"}}}, {}, 22);
    CHECK(r.out() == "FLOAT[N,C,unk__0,floor((W+1)/2)]");
  }
  r = infer_one(node("AveragePool", {"x"}, {"y"}, {Attribute("kernel_shape", I64s{2, 2}), Attribute("strides", I64s{2, 2}), Attribute("ceil_mode", 1), Attribute("count_include_pad", 1)}),
                {{"x", F, {"N", "C", "7", "8"}}});
  CHECK(r.out() == "FLOAT[N,C,4,4]");
  r = infer_one(node("LpPool", {"x"}, {"y"}, {Attribute("kernel_shape", I64s{2}), Attribute("p", 3)}), {{"x", F, {"N", "C", "L"}}});
  CHECK(r.out() == "FLOAT[N,C,L-1]");
  // kernel_shape is required; its length must match the input rank.
  CHECK(failed(infer_one(node("MaxPool", {"x"}, {"y"}), {{"x", F, {"N", "C", "H", "W"}}})));
  CHECK(failed(infer_one(node("MaxPool", {"x"}, {"y"}, {Attribute("kernel_shape", I64s{2})}), {{"x", F, {"N", "C", "H", "W"}}})));
  CHECK(failed(infer_one(node("AveragePool", {"x"}, {"y"}, {Attribute("kernel_shape", I64s{2, 2}), Attribute("pads", I64s{1, 1})}),
                         {{"x", F, {"N", "C", "H", "W"}}})));
  // Unknown rank input: rank from kernel_shape.
  r = infer_one(node("MaxPool", {"x"}, {"y"}, {Attribute("kernel_shape", I64s{2, 2})}), {{"x", F, {}, false}});
  CHECK(r.out().rfind("FLOAT[unk__", 0) == 0);
}

TEST_CASE("Global pools, MaxRoiPool, RoiAlign, MaxUnpool") {
  for (const char* op : {"GlobalAveragePool", "GlobalMaxPool", "GlobalLpPool"}) {
    auto r = infer_one(node(op, {"x"}, {"y"}), {{"x", F, {"N", "C", "H", "W", "D"}}});
    CHECK(r.out() == "FLOAT[N,C,1,1,1]");
  }
  auto r = infer_one(node("MaxRoiPool", {"x", "rois"}, {"y"}, {Attribute("pooled_shape", I64s{7, 6})}),
                     {{"x", F, {"N", "C", "H", "W"}}, {"rois", F, {"R", "5"}}});
  CHECK(r.out() == "FLOAT[R,C,7,6]");
  CHECK(failed(infer_one(node("MaxRoiPool", {"x", "rois"}, {"y"}), {{"x", F, {"N", "C", "H", "W"}}, {"rois", F, {"R", "5"}}})));
  r = infer_one(node("RoiAlign", {"x", "rois", "bi"}, {"y"}, {Attribute("output_height", 5)}),
                {{"x", F, {"N", "C", "H", "W"}}, {"rois", F, {"R", "4"}}, {"bi", I64, {"R"}}});
  CHECK(r.out() == "FLOAT[R,C,5,1]");
  r = infer_one(node("RoiAlign", {"x", "rois", "bi"}, {"y"}),
                {{"x", F, {"N", "C", "H", "W"}}, {"rois", F, {"R", "5"}}, {"bi", I64, {"R"}}});
  CHECK(r.report.conflicts == 1);
  // kernel 2 stride 2: 2*(H-1)+2 = 2*H.
  r = infer_one(node("MaxUnpool", {"x", "i"}, {"y"}, {Attribute("kernel_shape", I64s{2, 2}), Attribute("strides", I64s{2, 2})}),
                {{"x", F, {"N", "C", "H", "W"}}, {"i", I64, {"N", "C", "H", "W"}}});
  CHECK(r.out() == "FLOAT[N,C,2*H,2*W]");
  r = infer_one(node("MaxUnpool", {"x", "i", "os"}, {"y"}, {Attribute("kernel_shape", I64s{2, 2}), Attribute("strides", I64s{2, 2})}),
                {{"x", F, {"N", "C", "H", "W"}}, {"i", I64, {"N", "C", "H", "W"}}}, {ints("os", {1, 3, 9, 11})});
  CHECK(r.out() == "FLOAT[1,3,9,11]");
  // output_shape known symbolically.
  r = infer_with_shape({node("Shape", {"ref"}, {"os"}),
                        node("MaxUnpool", {"x", "i", "os"}, {"y"}, {Attribute("kernel_shape", I64s{2, 2}), Attribute("strides", I64s{2, 2})})},
                       {{"x", F, {"N", "C", "H", "W"}}, {"i", I64, {"N", "C", "H", "W"}}, {"ref", F, {"N", "C", "P", "Q"}}}, {}, 21);
  CHECK(r.out() == "FLOAT[N,C,P,Q]");
}

TEST_CASE("Resize: scales, sizes, axes, policies, every version") {
  // opset 13: X, roi (absent), scales.
  auto r = infer_one(node("Resize", {"x", "", "s"}, {"y"}), {{"x", F, {"N", "C", "H", "W"}}}, {floats("s", {1, 1, 2, 3})}, 13);
  CHECK(r.out() == "FLOAT[N,C,2*H,3*W]");
  r = infer_one(node("Resize", {"x", "", "s"}, {"y"}), {{"x", F, {"N", "C", "H", "7"}}}, {floats("s", {1, 1, 0.5f, 0.5f})}, 13);
  CHECK(r.out() == "FLOAT[N,C,floor(H/2),3]");
  // floor(1.5 * H) = floor(3*H/2) = H+floor(H/2); a scale like 1.3 on a symbolic size is not written symbolically.
  r = infer_one(node("Resize", {"x", "", "s"}, {"y"}), {{"x", F, {"N", "C", "H", "10"}}}, {floats("s", {1, 1, 1.5f, 1.3f})}, 13);
  CHECK(r.out() == "FLOAT[N,C,H+floor(H/2),13]");
  r = infer_one(node("Resize", {"x", "", "s"}, {"y"}), {{"x", F, {"N", "C", "H", "W"}}}, {floats("s", {1, 1, 1.3f, 1})}, 13);
  CHECK(r.out().rfind("FLOAT[N,C,unk__", 0) == 0);
  CHECK(r.out().find(",W]") != std::string::npos);
  // opset 11: empty scales with sizes.
  r = infer_one(node("Resize", {"x", "roi", "s", "sz"}, {"y"}), {{"x", F, {"N", "C", "H", "W"}}},
                {floats("roi", {}), floats("s", {}), ints("sz", {1, 3, 20, 30})}, 11);
  CHECK(r.out() == "FLOAT[1,3,20,30]");
  CHECK(type_of(r.model, "x") == "FLOAT[N,C,H,W]");  // sizes do not constrain the input
  // opset 10: X, scales.
  r = infer_one(node("Resize", {"x", "s"}, {"y"}), {{"x", F, {"N", "C", "H", "W"}}}, {floats("s", {1, 1, 2, 2})}, 10);
  CHECK(r.out() == "FLOAT[N,C,2*H,2*W]");
  // opset 18/19: axes; keep_aspect_ratio_policy.
  r = infer_one(node("Resize", {"x", "", "s"}, {"y"}, {Attribute("axes", I64s{-1, 2})}), {{"x", F, {"N", "C", "H", "W"}}},
                {floats("s", {4, 2})}, 18);
  CHECK(r.out() == "FLOAT[N,C,2*H,4*W]");
  // not_larger: scale = min(50/100, 50/200) = 0.25 -> [25, 50]; not_smaller: max = 0.5 -> [50, 100].
  r = infer_one(node("Resize", {"x", "", "", "sz"}, {"y"}, {Attribute("axes", I64s{2, 3}), Attribute("keep_aspect_ratio_policy", "not_larger")}),
                {{"x", F, {"1", "3", "100", "200"}}}, {ints("sz", {50, 50})}, 19);
  CHECK(r.out() == "FLOAT[1,3,25,50]");
  r = infer_one(node("Resize", {"x", "", "", "sz"}, {"y"}, {Attribute("axes", I64s{2, 3}), Attribute("keep_aspect_ratio_policy", "not_smaller")}),
                {{"x", F, {"1", "3", "100", "200"}}}, {ints("sz", {50, 50})}, 19);
  CHECK(r.out() == "FLOAT[1,3,50,100]");
  // Over symbolic sizes (ONNX Runtime agrees on each, see the Resize18_keep_aspect_* newops cases).
  // not_smaller, sizes [1,3,7,7] of [N,3,10,20]: N >= 1 makes 1/N at most the known max ratio 1.
  r = infer_one(node("Resize", {"x", "", "", "sz"}, {"y"}, {Attribute("keep_aspect_ratio_policy", "not_smaller")}),
                {{"x", F, {"N", "3", "10", "20"}}}, {ints("sz", {1, 3, 7, 7})}, 18);
  CHECK(r.out() == "FLOAT[N,3,10,20]");
  // ... but 5/N may be the largest ratio (5 at N = 1): nothing is known.
  r = infer_one(node("Resize", {"x", "", "", "sz"}, {"y"}, {Attribute("keep_aspect_ratio_policy", "not_smaller")}),
                {{"x", F, {"N", "3", "10", "20"}}}, {ints("sz", {5, 3, 7, 7})}, 18);
  CHECK(r.out() == "FLOAT[unk__0,unk__1,unk__2,unk__3]");
  // Sizes that repeat the input's own N and C are ratios of 1: max(1, 1, 3, 1.5) = 3 scales N and C
  // too; under not_larger the scale 0.25 leaves round(N/4) open.
  r = infer_with_shape({node("Shape", {"ref"}, {"nc"}),
                        node("Concat", {"nc", "hw"}, {"sz"}, {Attribute("axis", std::int64_t{0})}),
                        node("Resize", {"x", "", "", "sz"}, {"y"}, {Attribute("keep_aspect_ratio_policy", "not_smaller")})},
                       {{"x", F, {"N", "C", "10", "20"}}, {"ref", F, {"N", "C"}}}, {ints("hw", {30, 30})}, 18);
  CHECK(r.out() == "FLOAT[3*N,3*C,30,60]");
  r = infer_with_shape({node("Shape", {"ref"}, {"nc"}),
                        node("Concat", {"nc", "hw"}, {"sz"}, {Attribute("axis", std::int64_t{0})}),
                        node("Resize", {"x", "", "", "sz"}, {"y"}, {Attribute("keep_aspect_ratio_policy", "not_larger")})},
                       {{"x", F, {"N", "C", "10", "20"}}, {"ref", F, {"N", "C"}}}, {ints("hw", {5, 5})}, 18);
  CHECK(r.out() == "FLOAT[unk__0,unk__1,3,5]");
  // Symbolic sizes from a Shape node.
  r = infer_with_shape({node("Shape", {"ref"}, {"sz"}), node("Resize", {"x", "", "", "sz"}, {"y"})},
                       {{"x", F, {"N", "C", "H", "W"}}, {"ref", F, {"N", "C", "P", "Q"}}}, {}, 13);
  CHECK(r.out() == "FLOAT[N,C,P,Q]");
  // tf_crop_and_resize with scales: the spec gives floor(dim * (roi_end - roi_start) * scale) =
  // floor(10 * 0.5 * 2) = 10, ONNX Runtime floor(dim * scale) = 20 (it ignores the roi): unknown.
  // Where the roi spans the whole axis both give 16.
  r = infer_one(node("Resize", {"x", "roi", "s"}, {"y"}, {Attribute("coordinate_transformation_mode", "tf_crop_and_resize")}),
                {{"x", F, {"1", "1", "10", "8"}}}, {floats("roi", {0, 0, 0, 0, 1, 1, 0.5f, 1}), floats("s", {1, 1, 2, 2})}, 13);
  CHECK(r.out() == "FLOAT[1,1,unk__0,16]");
  // keep_aspect_ratio_policy with negative axes: ONNX Runtime leaves the sizes unchanged, so only
  // sizes equal to the input's are kept (scale min(17/35, 32/40): [19, 17] per the spec; and
  // min(40/35, 40/40) = 1: [40, 35] either way).
  r = infer_one(node("Resize", {"x", "", "", "sz"}, {"y"}, {Attribute("axes", I64s{-1, -2}), Attribute("keep_aspect_ratio_policy", "not_larger")}),
                {{"x", F, {"1", "1", "40", "35"}}}, {ints("sz", {17, 32})}, 19);
  CHECK(r.out() == "FLOAT[1,1,unk__1,unk__0]");  // minted in axes order
  r = infer_one(node("Resize", {"x", "", "", "sz"}, {"y"}, {Attribute("axes", I64s{-1, -2}), Attribute("keep_aspect_ratio_policy", "not_larger")}),
                {{"x", F, {"1", "1", "40", "35"}}}, {ints("sz", {40, 40})}, 19);
  CHECK(r.out() == "FLOAT[1,1,40,35]");
  r = infer_one(node("Resize", {"x", "", "", "sz"}, {"y"}, {Attribute("axes", I64s{3, 2}), Attribute("keep_aspect_ratio_policy", "not_larger")}),
                {{"x", F, {"1", "1", "40", "35"}}}, {ints("sz", {17, 32})}, 19);
  CHECK(r.out() == "FLOAT[1,1,19,17]");
  // Both scales and sizes are runtime tensors (one of them must be empty): rank only.
  r = infer_one(node("Resize", {"x", "", "s", "sz"}, {"y"}), {{"x", F, {"N", "C", "H", "W"}}, {"s", F, {"?"}}, {"sz", I64, {"?"}}}, {}, 13);
  CHECK(r.out().rfind("FLOAT[unk__", 0) == 0);
  CHECK_FALSE(failed(r));
  // A runtime scales tensor next to constant sizes: the sizes decide.
  r = infer_one(node("Resize", {"x", "", "s", "sz"}, {"y"}), {{"x", F, {"N", "C", "H", "W"}}, {"s", F, {"?"}}}, {ints("sz", {1, 2, 3, 4})}, 13);
  CHECK(r.out() == "FLOAT[1,2,3,4]");
  // Unknown scales: rank kept, resized sizes unknown.
  r = infer_one(node("Resize", {"x", "", "s"}, {"y"}), {{"x", F, {"N", "C", "H", "W"}}, {"s", F, {"4"}}}, {}, 13);
  CHECK(r.out().rfind("FLOAT[unk__", 0) == 0);
  // Unknown input rank, rank from the scales.
  r = infer_one(node("Resize", {"x", "", "s"}, {"y"}), {{"x", F, {}, false}}, {floats("s", {1, 2})}, 13);
  CHECK(r.out().rfind("FLOAT[unk__", 0) == 0);
  // Malformed: both scales and sizes; wrong lengths; neither.
  CHECK(failed(infer_one(node("Resize", {"x", "", "s", "sz"}, {"y"}), {{"x", F, {"N", "C", "H", "W"}}},
                         {floats("s", {1, 1, 2, 2}), ints("sz", {1, 1, 2, 2})}, 13)));
  CHECK(failed(infer_one(node("Resize", {"x", "", "s"}, {"y"}), {{"x", F, {"N", "C", "H", "W"}}}, {floats("s", {2, 2})}, 13)));
  CHECK(failed(infer_one(node("Resize", {"x"}, {"y"}), {{"x", F, {"N", "C", "H", "W"}}}, {}, 13)));
  CHECK(failed(infer_one(node("Resize", {"x", "", "s"}, {"y"}), {{"x", F, {"N", "C", "H", "W"}}}, {floats("s", {1, 1, -2, 2})}, 13)));
}

TEST_CASE("Upsample 7 (attribute) and 9 (input)") {
  auto r = infer_one(node("Upsample", {"x"}, {"y"}, {Attribute("scales", std::vector<float>{1, 1, 2, 2})}),
                     {{"x", F, {"N", "C", "H", "5"}}}, {}, 7);
  CHECK(r.out() == "FLOAT[N,C,2*H,10]");
  r = infer_one(node("Upsample", {"x", "s"}, {"y"}), {{"x", F, {"N", "C", "H", "5"}}}, {floats("s", {1, 1, 3, 1.5f})}, 9);
  CHECK(r.out() == "FLOAT[N,C,3*H,7]");
  CHECK(failed(infer_one(node("Upsample", {"x"}, {"y"}), {{"x", F, {"N", "C", "H", "5"}}}, {}, 7)));
}

TEST_CASE("GridSample, AffineGrid, Col2Im, NonMaxSuppression") {
  auto r = infer_one(node("GridSample", {"x", "g"}, {"y"}), {{"x", F, {"N", "C", "H", "W"}}, {"g", F, {"N", "P", "Q", "2"}}}, {}, 16);
  CHECK(r.out() == "FLOAT[N,C,P,Q]");
  r = infer_one(node("GridSample", {"x", "g"}, {"y"}), {{"x", F, {"N", "C", "D", "H", "W"}}, {"g", F, {"N", "A", "B", "E", "3"}}}, {}, 20);
  CHECK(r.out() == "FLOAT[N,C,A,B,E]");
  CHECK(failed(infer_one(node("GridSample", {"x", "g"}, {"y"}), {{"x", F, {"N", "C", "H", "W"}}, {"g", F, {"N", "P", "Q", "3"}}}, {}, 16)));

  r = infer_one(node("AffineGrid", {"t", "sz"}, {"y"}), {{"t", F, {"N", "2", "3"}}}, {ints("sz", {2, 3, 8, 9})}, 20);
  CHECK(r.out() == "FLOAT[2,8,9,2]");
  r = infer_with_shape({node("Shape", {"ref"}, {"sz"}), node("AffineGrid", {"t", "sz"}, {"y"})},
                       {{"t", F, {"N", "3", "4"}}, {"ref", F, {"N", "C", "D", "H", "W"}}}, {}, 20);
  CHECK(r.out() == "FLOAT[N,D,H,W,3]");

  // [N, C*2*2, L] with image 5x5 and block 2x2: C = 3; L = 4*4.
  r = infer_one(node("Col2Im", {"x", "img", "blk"}, {"y"}), {{"x", F, {"N", "12", "L"}}}, {ints("img", {5, 5}), ints("blk", {2, 2})}, 18);
  CHECK(r.out() == "FLOAT[N,3,5,5]");
  CHECK(type_of(r.model, "x") == "FLOAT[N,12,L]");
  r = infer_one(node("Col2Im", {"x", "img", "blk"}, {"y"}), {{"x", F, {"N", "12", "10"}}}, {ints("img", {5, 5}), ints("blk", {2, 2})}, 18);
  CHECK(r.report.conflicts == 1);
  CHECK(failed(infer_one(node("Col2Im", {"x", "img", "blk"}, {"y"}), {{"x", F, {"N", "13", "L"}}},
                         {ints("img", {5, 5}), ints("blk", {2, 2})}, 18)));

  r = infer_one(node("NonMaxSuppression", {"b", "s"}, {"y"}), {{"b", F, {"N", "B", "4"}}, {"s", F, {"N", "C", "B"}}});
  CHECK(r.out().rfind("INT64[unk__", 0) == 0);
  CHECK(r.out().substr(r.out().size() - 3) == ",3]");
}

TEST_CASE("RNN / GRU / LSTM") {
  // LSTM: W [1, 4*8, I]; Y [S, 1, B, 8], Y_h/Y_c [1, B, 8].
  auto r = infer_one(node("LSTM", {"x", "w", "r"}, {"y", "yh", "yc"}, {Attribute("hidden_size", 8)}),
                     {{"x", F, {"S", "B", "I"}}, {"w", F, {"1", "32", "I"}}, {"r", F, {"1", "32", "8"}}});
  CHECK(r.out(0) == "FLOAT[S,1,B,8]");
  CHECK(r.out(1) == "FLOAT[1,B,8]");
  CHECK(r.out(2) == "FLOAT[1,B,8]");
  CHECK(r.report.diagnostics.empty());
  // hidden from R; bidirectional GRU with layout 1 (opset 14): Y [B, S, 2, H], Y_h [B, 2, H].
  r = infer_one(node("GRU", {"x", "w", "r", "", "", "h0"}, {"y", "yh"}, {Attribute("direction", "bidirectional"), Attribute("layout", 1)}),
                {{"x", F, {"B", "S", "I"}}, {"w", F, {"?", "?", "?"}}, {"r", F, {"2", "?", "Hd"}}, {"h0", F, {"?", "2", "?"}}}, {}, 14);
  CHECK(r.out(0) == "FLOAT[B,S,2,Hd]");
  CHECK(r.out(1) == "FLOAT[B,2,Hd]");
  // layout ignored before 14 (the attribute does not exist): default layout.
  r = infer_one(node("RNN", {"x", "w", "r"}, {"y", "yh"}),
                {{"x", F, {"S", "B", "I"}}, {"w", F, {"1", "Hd", "I"}}, {"r", F, {"1", "Hd", "Hd"}}}, {}, 7);
  CHECK(r.out(0) == "FLOAT[S,1,B,Hd]");
  // hidden_size vs W: 4*8 != 30 is a conflict; unknown direction fails.
  r = infer_one(node("LSTM", {"x", "w", "r"}, {"y"}, {Attribute("hidden_size", 8)}),
                {{"x", F, {"S", "B", "I"}}, {"w", F, {"1", "30", "I"}}, {"r", F, {"1", "32", "8"}}});
  CHECK(r.report.conflicts >= 1);
  CHECK(failed(infer_one(node("RNN", {"x", "w", "r"}, {"y"}, {Attribute("direction", "sideways")}),
                         {{"x", F, {"S", "B", "I"}}, {"w", F, {"1", "4", "I"}}, {"r", F, {"1", "4", "4"}}})));
  // Hidden from W dim 1 / 3 (GRU) when R is unknown.
  r = infer_one(node("GRU", {"x", "w", "r"}, {"y"}), {{"x", F, {"S", "B", "I"}}, {"w", F, {"1", "48", "I"}}, {"r", F, {}, false}});
  CHECK(r.out() == "FLOAT[S,1,B,16]");
}

TEST_CASE("Attention (23/24) and RotaryEmbedding") {
  // 4-D with past: total = P + T (printed in symbol order: T was declared first).
  auto r = infer_one(node("Attention", {"q", "k", "v", "", "pk", "pv"}, {"y", "pko", "pvo", "qk"}),
                     {{"q", F, {"B", "8", "S", "64"}},
                      {"k", F, {"B", "2", "T", "64"}},
                      {"v", F, {"B", "2", "T", "32"}},
                      {"pk", F, {"B", "2", "P", "64"}},
                      {"pv", F, {"B", "2", "P", "32"}}},
                     {}, 23);
  CHECK(r.out(0) == "FLOAT[B,8,S,32]");
  CHECK(r.out(1) == "FLOAT[B,2,T+P,64]");
  CHECK(r.out(2) == "FLOAT[B,2,T+P,32]");
  CHECK(r.out(3) == "FLOAT[B,8,S,T+P]");
  // 3-D: head size 512/8 = 64 for Q, 128/2 = 64 for K; V head 96/2 = 48; Y [B, S, 8*48].
  r = infer_one(node("Attention", {"q", "k", "v"}, {"y", "pko", "pvo"}, {Attribute("q_num_heads", 8), Attribute("kv_num_heads", 2)}),
                {{"q", F, {"B", "S", "512"}}, {"k", F, {"B", "T", "128"}}, {"v", F, {"B", "T", "96"}}}, {}, 24);
  CHECK(r.out(0) == "FLOAT[B,S,384]");
  CHECK(r.out(1) == "FLOAT[B,2,T,64]");
  CHECK(r.out(2) == "FLOAT[B,2,T,48]");
  CHECK(failed(infer_one(node("Attention", {"q", "k", "v"}, {"y"}),
                         {{"q", F, {"B", "S", "512"}}, {"k", F, {"B", "T", "128"}}, {"v", F, {"B", "T", "96"}}}, {}, 23)));
  // 8 query heads cannot be grouped over 3 kv heads.
  CHECK(failed(infer_one(node("Attention", {"q", "k", "v"}, {"y"}),
                         {{"q", F, {"B", "8", "S", "64"}}, {"k", F, {"B", "3", "T", "64"}}, {"v", F, {"B", "3", "T", "64"}}}, {}, 23)));
  // Q and K head sizes disagree.
  r = infer_one(node("Attention", {"q", "k", "v"}, {"y"}),
                {{"q", F, {"B", "8", "S", "64"}}, {"k", F, {"B", "2", "T", "32"}}, {"v", F, {"B", "2", "T", "32"}}}, {}, 23);
  CHECK(r.report.conflicts == 1);

  r = infer_one(node("RotaryEmbedding", {"x", "cos", "sin", "pos"}, {"y"}),
                {{"x", DataType::FLOAT16, {"B", "S", "Hd"}}, {"cos", DataType::FLOAT16, {"M", "K"}},
                 {"sin", DataType::FLOAT16, {"M", "K"}}, {"pos", I64, {"B", "S"}}},
                {}, 23);
  CHECK(r.out() == "FLOAT16[B,S,Hd]");
}

TEST_CASE("DFT 17/20, STFT, windows, MelWeightMatrix") {
  // DFT-17, axis 1 (default), onesided: floor(N/2)+1 bins; last dim becomes 2.
  auto r = infer_one(node("DFT", {"x"}, {"y"}, {Attribute("onesided", 1)}), {{"x", F, {"B", "N", "1"}}}, {}, 17);
  CHECK(r.out() == "FLOAT[B,floor(N/2)+1,2]");
  r = infer_one(node("DFT", {"x", "len"}, {"y"}), {{"x", F, {"B", "N", "2"}}}, {ints("len", {16}, true)}, 17);
  CHECK(r.out() == "FLOAT[B,16,2]");
  // DFT-20: axis input, default -2.
  r = infer_one(node("DFT", {"x"}, {"y"}), {{"x", F, {"B", "N", "M", "1"}}}, {}, 20);
  CHECK(r.out() == "FLOAT[B,N,M,2]");
  r = infer_one(node("DFT", {"x", "", "ax"}, {"y"}, {Attribute("onesided", 1)}), {{"x", F, {"B", "N", "M", "1"}}},
                {ints("ax", {1}, true)}, 20);
  CHECK(r.out() == "FLOAT[B,floor(N/2)+1,M,2]");
  CHECK(failed(infer_one(node("DFT", {"x"}, {"y"}), {{"x", F, {"B", "N", "3"}}}, {}, 17)));
  CHECK(failed(infer_one(node("DFT", {"x", "", "ax"}, {"y"}), {{"x", F, {"B", "N", "2"}}}, {ints("ax", {-1}, true)}, 20)));

  // STFT: frames = floor((L - 16)/4) + 1 = floor(L/4) - 3; onesided real: 16/2+1 = 9 bins.
  r = infer_one(node("STFT", {"sig", "step", "win"}, {"y"}), {{"sig", F, {"B", "L", "1"}}, {"win", F, {"16"}}},
                {ints("step", {4}, true)}, 17);
  CHECK(r.out() == "FLOAT[B,floor(L/4)-3,9,2]");
  r = infer_one(node("STFT", {"sig", "step", "", "fl"}, {"y"}, {Attribute("onesided", 0)}), {{"sig", F, {"B", "100", "1"}}},
                {ints("step", {10}, true), ints("fl", {20}, true)}, 17);
  CHECK(r.out() == "FLOAT[B,9,20,2]");  // (100-20)/10+1 = 9

  for (const char* op : {"HannWindow", "HammingWindow", "BlackmanWindow"}) {
    r = infer_one(node(op, {"n"}, {"y"}), {}, {ints("n", {10}, true)}, 17);
    CHECK(r.out() == "FLOAT[10]");
  }
  r = infer_one(node("HannWindow", {"n"}, {"y"}, {Attribute("output_datatype", 11)}), {}, {ints("n", {7}, true)}, 17);
  CHECK(r.out() == "DOUBLE[7]");
  r = infer_one(node("HannWindow", {"n"}, {"y"}), {{"n", I64, {}}}, {}, 17);
  CHECK(r.out().rfind("FLOAT[", 0) == 0);

  r = infer_one(node("MelWeightMatrix", {"nb", "dl", "sr", "lo", "hi"}, {"y"}), {{"sr", I64, {}}, {"lo", F, {}}, {"hi", F, {}}},
                {ints("nb", {8}, true), ints("dl", {16}, true)}, 17);
  CHECK(r.out() == "FLOAT[9,8]");
}

TEST_CASE("Spatial rules never crash on hostile attributes") {
  // Huge strides/pads and negative sizes give diagnostics or sizes, never UB.
  auto r = infer_one(node("Conv", {"x", "w"}, {"y"}, {Attribute("pads", I64s{INT64_MAX, 0, INT64_MAX, 0})}),
                     {{"x", F, {"N", "3", "H", "W"}}, {"w", F, {"8", "3", "3", "3"}}});
  CHECK(failed(r));
  r = infer_one(node("Conv", {"x", "w"}, {"y"}, {Attribute("strides", I64s{0, 1})}),
                {{"x", F, {"N", "3", "5", "5"}}, {"w", F, {"8", "3", "3", "3"}}});
  CHECK(failed(r));
  r = infer_one(node("Resize", {"x", "", "s"}, {"y"}), {{"x", F, {"N", "C", "9000000000000000000", "W"}}}, {floats("s", {1, 1, 4, 1})}, 13);
  CHECK(failed(r));
  r = infer_one(node("MaxUnpool", {"x", "i", "os"}, {"y"}, {Attribute("kernel_shape", I64s{2, 2})}),
                {{"x", F, {"N", "C", "H", "W"}}, {"i", I64, {"N", "C", "H", "W"}}}, {ints("os", {1, 2})});
  CHECK(failed(r));
  r = infer_one(node("Resize", {"x", "", "s"}, {"y"}, {Attribute("axes", I64s{5})}), {{"x", F, {"N", "C", "H", "W"}}},
                {floats("s", {2})}, 18);
  CHECK(failed(r));
  r = infer_one(node("MaxPool", {"x"}, {"y"}, {Attribute("kernel_shape", I64s{2}), Attribute("strides", I64s{INT64_MAX}), Attribute("ceil_mode", 1)}),
                {{"x", F, {"1", "1", "9000000000000000000"}}});
  // One window fits (the second would start past the end); intermediate sums may overflow, which
  // is a diagnostic rather than a wrong size.
  CHECK((failed(r) || r.out() == "FLOAT[1,1,1]"));
  r = infer_one(node("AveragePool", {"x"}, {"y"}, {Attribute("kernel_shape", I64s{2}), Attribute("pads", I64s{INT64_MAX, INT64_MAX}), Attribute("ceil_mode", 1)}),
                {{"x", F, {"N", "C", "H"}}});
  CHECK(failed(r));
  r = infer_one(node("Resize", {"x", "", "", "sz"}, {"y"}), {{"x", F, {"N", "C", "H", "W"}}}, {ints("sz", {1, 1, -2, 2})}, 13);
  CHECK(failed(r));
  // Ranks unknown everywhere: rules still type the outputs.
  r = infer_one(node("LSTM", {"x", "w", "r"}, {"y", "yh", "yc"}), {{"x", F, {}, false}, {"w", F, {}, false}, {"r", F, {}, false}});
  CHECK(r.out(0).rfind("FLOAT[unk__", 0) == 0);
  CHECK_FALSE(failed(r));
  r = infer_one(node("Attention", {"q", "k", "v"}, {"y", "pk", "pv", "qk"}), {{"q", F, {}, false}, {"k", F, {}, false}, {"v", F, {}, false}}, {}, 23);
  CHECK(r.out(0) == "FLOAT[*]");
  CHECK_FALSE(failed(r));
  r = infer_one(node("Conv", {"x", "w"}, {"y"}), {{"x", F, {}, false}, {"w", F, {}, false}});
  CHECK(r.out() == "FLOAT[*]");
  CHECK(failed(infer_one(node("LSTM", {"x", "w"}, {"y"}), {{"x", F, {"S", "B", "I"}}, {"w", F, {"1", "32", "I"}}})));
  CHECK(failed(infer_one(node("GridSample", {"x", "g"}, {"y"}), {{"x", F, {"N"}}, {"g", F, {"N", "P", "Q", "2"}}}, {}, 20)));
}

TEST_CASE("A map resized to run-time sizes and concatenated with a skip connection has the skip's sizes") {
  // A U-Net decoder step: Resize to sizes known only at run time gives sizes no rule
  // determines, but the Concat along the channels needs them equal to the pooled encoder
  // map's, so they are those sizes in the resized value too, not fresh symbols.
  auto m = make_model({node("MaxPool", {"x"}, {"p"}, {Attribute("kernel_shape", I64s{2, 2}), Attribute("strides", I64s{2, 2})}),
                       node("Resize", {"y", "", "", "sz"}, {"up"}), node("Concat", {"up", "p"}, {"cat"}, {Attribute("axis", std::int64_t{1})})},
                      {{"x", F, {"N", "C", "H", "W"}}, {"y", F, {"N", "D", "H", "W"}}, {"sz", I64, {"4"}}}, {}, 13);
  const auto rep = infer_shapes(m);
  CHECK(rep.conflicts == 0);
  const auto dims = [&](const std::string& v) {
    std::vector<std::string> out;
    std::string t = type_of(m, v);
    REQUIRE(t.size() > 7);
    t = t.substr(6, t.size() - 7);  // FLOAT[...]
    std::size_t depth = 0, start = 0;
    for (std::size_t i = 0; i <= t.size(); ++i) {
      if (i == t.size() || (t[i] == ',' && depth == 0)) out.push_back(t.substr(start, i - start)), start = i + 1;
      else if (t[i] == '(') ++depth;
      else if (t[i] == ')') --depth;
    }
    return out;
  };
  const auto p = dims("p"), up = dims("up"), cat = dims("cat");
  REQUIRE(p.size() == 4);
  REQUIRE(up.size() == 4);
  CHECK(p[2].find("H") != std::string::npos);
  CHECK(up[0] == "N");
  CHECK(up[1].rfind("unk__", 0) == 0);  // the channels of sz stay unknown
  CHECK(up[2] == p[2]);
  CHECK(up[3] == p[3]);
  CHECK(cat[2] == p[2]);
}

// Experimental operators ONNX 1.5 removed (opset 10); opset 1-9 models still hold them, and ONNX
// Runtime runs them there (tests/infer/newops checks ImageScaler and Crop against it).
TEST_CASE("ImageScaler, Crop, GRUUnit and Upsample-1 (experimental operators of opsets 1-9)") {
  // ImageScaler: one bias per channel, so C is the bias length.
  auto r = infer_one(node("ImageScaler", {"x"}, {"y"}, {Attribute("scale", 0.5f), Attribute("bias", std::vector<float>{1, 2, 3})}),
                     {{"x", F, {"N", "C", "H", "W"}}}, {}, 8);
  CHECK(r.out() == "FLOAT[N,3,H,W]");
  CHECK(r.report.diagnostics.empty());
  r = infer_one(node("ImageScaler", {"x"}, {"y"}, {Attribute("scale", 2.0f)}), {{"x", DataType::DOUBLE, {"N", "C", "H", "W"}}}, {}, 7);
  CHECK(r.out() == "DOUBLE[N,C,H,W]");
  CHECK(failed(infer_one(node("ImageScaler", {"x"}, {"y"}, {Attribute("bias", std::vector<float>{1, 2, 3})}),
                         {{"x", F, {"N", "4", "H", "W"}}}, {}, 8)));  // 3 biases, 4 channels
  CHECK(failed(infer_one(node("ImageScaler", {"x"}, {"y"}), {{"x", F, {"N", "C", "H"}}}, {}, 8)));  // not 4-D

  // Crop: border (left, top, right, bottom) removed, or a (height, width) window.
  r = infer_one(node("Crop", {"x"}, {"y"}, {Attribute("border", I64s{1, 2, 3, 4})}), {{"x", F, {"N", "C", "H", "W"}}}, {}, 8);
  CHECK(r.out() == "FLOAT[N,C,H-6,W-4]");
  r = infer_one(node("Crop", {"x"}, {"y"}, {Attribute("border", I64s{1, 2, 3, 4}), Attribute("scale", I64s{5, 6})}),
                {{"x", F, {"N", "C", "H", "W"}}}, {}, 9);
  CHECK(r.out() == "FLOAT[N,C,5,6]");
  r = infer_one(node("Crop", {"x"}, {"y"}, {Attribute("border", I64s{0, 0, 2, 2})}), {{"x", F, {"1", "3", "10", "12"}}}, {}, 8);
  CHECK(r.out() == "FLOAT[1,3,8,10]");
  // Too small an image, a missing or short border, negative or absurd values, a 3-D input.
  CHECK(failed(infer_one(node("Crop", {"x"}, {"y"}, {Attribute("border", I64s{1, 2, 3, 4})}), {{"x", F, {"N", "C", "5", "W"}}}, {}, 8)));
  CHECK(failed(infer_one(node("Crop", {"x"}, {"y"}, {Attribute("border", I64s{1, 2, 0, 0}), Attribute("scale", I64s{5, 6})}),
                         {{"x", F, {"N", "C", "H", "6"}}}, {}, 8)));
  CHECK(failed(infer_one(node("Crop", {"x"}, {"y"}), {{"x", F, {"N", "C", "H", "W"}}}, {}, 8)));
  CHECK(failed(infer_one(node("Crop", {"x"}, {"y"}, {Attribute("border", I64s{1, 2, 3})}), {{"x", F, {"N", "C", "H", "W"}}}, {}, 8)));
  CHECK(failed(infer_one(node("Crop", {"x"}, {"y"}, {Attribute("border", I64s{-1, 0, 0, 0})}), {{"x", F, {"N", "C", "H", "W"}}}, {}, 8)));
  const auto huge = std::numeric_limits<std::int64_t>::max();
  CHECK(failed(infer_one(node("Crop", {"x"}, {"y"}, {Attribute("border", I64s{huge, huge, huge, huge})}),
                         {{"x", F, {"N", "C", "H", "W"}}}, {}, 8)));
  CHECK(failed(infer_one(node("Crop", {"x"}, {"y"}, {Attribute("border", I64s{0, 0, 0, 0})}), {{"x", F, {"N", "H", "W"}}}, {}, 8)));

  // GRUUnit: the new hidden state has the previous one's shape.
  r = infer_one(node("GRUUnit", {"h", "g", "l", "t"}, {"y"}),
                {{"h", F, {"1", "N", "D"}}, {"g", F, {"1", "N", "G"}}, {"l", F, {"N"}}, {"t", F, {"1"}}}, {}, 8);
  CHECK(r.out() == "FLOAT[1,N,D]");

  // Upsample-1: height_scale and width_scale instead of scales.
  r = infer_one(node("Upsample", {"x"}, {"y"}, {Attribute("height_scale", 2.0f), Attribute("width_scale", 3.0f)}),
                {{"x", F, {"N", "C", "H", "5"}}}, {}, 6);
  CHECK(r.out() == "FLOAT[N,C,2*H,15]");
  CHECK(failed(infer_one(node("Upsample", {"x"}, {"y"}, {Attribute("height_scale", 2.0f)}), {{"x", F, {"N", "C", "H", "W"}}}, {}, 6)));
  CHECK(failed(infer_one(node("Upsample", {"x"}, {"y"}, {Attribute("height_scale", 2.0f), Attribute("width_scale", 2.0f)}),
                         {{"x", F, {"N", "H", "W"}}}, {}, 6)));

  // Past the opset that deprecated them (10; Upsample 10, Scatter 11) they are still inferred,
  // with a warning: ONNX Runtime refuses such models.
  for (auto [op, opset] : {std::pair{"ImageScaler", 10}, std::pair{"Crop", 12}, std::pair{"Upsample", 10}}) {
    CAPTURE(op);
    Node n = std::string(op) == "Crop" ? node(op, {"x"}, {"y"}, {Attribute("border", I64s{0, 0, 0, 0})})
             : std::string(op) == "Upsample" ? node(op, {"x", "s"}, {"y"})
                                             : node(op, {"x"}, {"y"});
    r = infer_one(n, {{"x", F, {"N", "C", "H", "W"}}}, {floats("s", {1, 1, 2, 2})}, opset);
    CHECK(r.out() == (std::string(op) == "Upsample" ? "FLOAT[N,C,2*H,2*W]" : "FLOAT[N,C,H,W]"));
    REQUIRE(r.report.diagnostics.size() == 1);
    CHECK(r.report.diagnostics[0].severity == Severity::Warning);
    CHECK(r.report.diagnostics[0].message.find("deprecated since opset 10") != std::string::npos);
  }
  r = infer_one(node("ImageScaler", {"x"}, {"y"}), {{"x", F, {"N", "C", "H", "W"}}}, {}, 9);
  CHECK(r.report.diagnostics.empty());
}

}  // namespace oxir_unit_test_infer_spatial
