// Inference rules of the shape family: shape manipulation and symbolic shape-tensor contents.
#include <doctest/doctest.h>

#include <limits>

#include "infer_test_util.hpp"

namespace oxir_unit_test_infer_shape {

using namespace oxir;
using namespace oxir_test;

namespace {

using I = std::vector<std::int64_t>;
constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();

Node node(std::string op, std::vector<std::string> in, std::vector<std::string> out, std::vector<Attribute> attrs = {}) {
  Node n(std::move(op), std::move(in), std::move(out));
  for (auto& a : attrs) n.set_attribute(std::move(a));
  return n;
}

/// Runs a multi-node model; returns the model (types via type_of) and the report.
struct Run {
  Model model;
  InferReport report;
  [[nodiscard]] std::string operator[](const std::string& v) const { return type_of(model, v); }
};
Run run(std::vector<Node> nodes, const std::vector<In>& inputs, std::vector<Tensor> inits = {}, std::int64_t opset = 21) {
  Run r;
  r.model = make_model(std::move(nodes), inputs, std::move(inits), opset);
  r.report = infer_shapes(r.model);
  // Intermediate values are recorded in value_info.
  return r;
}

bool failed(const OneNode& r) { return r.report.nodes_failed + r.report.conflicts > 0; }

Tensor floats(std::string name, std::vector<float> v, bool scalar = false) {
  std::vector<std::int64_t> dims;
  if (!scalar) dims.push_back(static_cast<std::int64_t>(v.size()));
  return Tensor::from_values<float>(std::move(name), dims, std::span<const float>(v));
}

}  // namespace

// ---------------------------------------------------------------------------------------------

TEST_CASE("Constant: every value attribute; int contents flow as sizes") {
  CHECK(infer_one(node("Constant", {}, {"y"}, {Attribute("value", ints("t", {2, 3, 4}))}), {}).out() == "INT64[3]");
  CHECK(infer_one(node("Constant", {}, {"y"}, {Attribute("value_int", std::int64_t{5})}), {}).out() == "INT64[]");
  CHECK(infer_one(node("Constant", {}, {"y"}, {Attribute("value_ints", I{1, 2})}), {}).out() == "INT64[2]");
  CHECK(infer_one(node("Constant", {}, {"y"}, {Attribute("value_float", 1.5f)}), {}).out() == "FLOAT[]");
  CHECK(infer_one(node("Constant", {}, {"y"}, {Attribute("value_floats", std::vector<float>{1, 2, 3})}), {}).out() ==
        "FLOAT[3]");
  CHECK(infer_one(node("Constant", {}, {"y"}, {Attribute("value_string", "a")}), {}).out() == "STRING[]");
  CHECK(infer_one(node("Constant", {}, {"y"}, {Attribute("value_strings", std::vector<std::string>{"a", "b"})}), {})
            .out() == "STRING[2]");
  SparseTensor sp;
  sp.dims = {4, 5};
  sp.values = floats("v", {1.0f});
  sp.indices = ints("i", {3});
  CHECK(infer_one(node("Constant", {}, {"y"}, {Attribute("sparse_value", sp)}), {}).out() == "FLOAT[4,5]");
  auto bad = infer_one(node("Constant", {}, {"y"}), {});
  CHECK(failed(bad));
  CHECK(bad.out() == "?");
  // value_ints contents feed a Reshape.
  auto r = run({node("Constant", {}, {"s"}, {Attribute("value_ints", I{-1, 6})}), node("Reshape", {"x", "s"}, {"y"})},
               {{"x", DataType::FLOAT, {"N", "3", "4"}}});
  CHECK(r["y"] == "FLOAT[2*N,6]");
}

TEST_CASE("Shape, Size: symbolic contents; start/end since 15") {
  auto r = run({node("Shape", {"x"}, {"s"}), node("Reshape", {"z", "s"}, {"y"})},
               {{"x", DataType::FLOAT, {"N", "S", "4"}}, {"z", DataType::FLOAT, {"?"}}});
  CHECK(r["s"] == "INT64[3]");
  CHECK(r["y"] == "FLOAT[N,S,4]");
  CHECK(infer_one(node("Shape", {"x"}, {"s"}, {Attribute("start", 1)}), {{"x", DataType::FLOAT, {"N", "S", "4"}}}).out() ==
        "INT64[2]");
  CHECK(infer_one(node("Shape", {"x"}, {"s"}, {Attribute("start", -2), Attribute("end", -1)}),
                  {{"x", DataType::FLOAT, {"N", "S", "4"}}})
            .out() == "INT64[1]");
  CHECK(infer_one(node("Shape", {"x"}, {"s"}, {Attribute("start", 5)}), {{"x", DataType::FLOAT, {"N", "S"}}}).out() ==
        "INT64[0]");
  // Before 15 the attributes do not exist: the whole shape.
  CHECK(infer_one(node("Shape", {"x"}, {"s"}, {Attribute("start", 1)}), {{"x", DataType::FLOAT, {"N", "S", "4"}}}, {}, 13)
            .out() == "INT64[3]");
  CHECK(infer_one(node("Shape", {"x"}, {"s"}), {{"x", DataType::FLOAT, {}, false}}).out() == "INT64[unk__0]");
  // Shape with start/end sliced contents.
  auto r2 = run({node("Shape", {"x"}, {"s"}, {Attribute("start", 1)}), node("Reshape", {"z", "s"}, {"y"})},
                {{"x", DataType::FLOAT, {"N", "S", "4"}}, {"z", DataType::FLOAT, {"?"}}});
  CHECK(r2["y"] == "FLOAT[S,4]");
  CHECK(infer_one(node("Size", {"x"}, {"n"}), {{"x", DataType::FLOAT, {"N", "3"}}}).out() == "INT64[]");
  // Size contents = the product: Reshape(z, Unsqueeze(Size(x))) flattens.
  auto r3 = run({node("Size", {"x"}, {"n"}), node("Unsqueeze", {"n", "zero"}, {"n1"}), node("Reshape", {"z", "n1"}, {"y"})},
                {{"x", DataType::FLOAT, {"N", "3"}}, {"z", DataType::FLOAT, {"?", "?"}}}, {ints("zero", {0})});
  CHECK(r3["n1"] == "INT64[1]");
  CHECK(r3["y"] == "FLOAT[3*N]");
}

TEST_CASE("Identity copies types (also sequences) and contents") {
  CHECK(infer_one(node("Identity", {"x"}, {"y"}), {{"x", DataType::BOOL, {"N", "2"}}}).out() == "BOOL[N,2]");
  auto r = run({node("Shape", {"x"}, {"s"}), node("Identity", {"s"}, {"t"}), node("Expand", {"one", "t"}, {"y"})},
               {{"x", DataType::FLOAT, {"N", "5"}}, {"one", DataType::FLOAT, {"1"}}});
  CHECK(r["y"] == "FLOAT[N,5]");
}

TEST_CASE("Reshape: 0 copies, -1 inferred exactly, allowzero, opset 1-4 attribute") {
  auto one = [](std::vector<std::string> dims, I target, std::int64_t opset = 21, std::vector<Attribute> a = {}) {
    return infer_one(node("Reshape", {"x", "s"}, {"y"}, std::move(a)), {{"x", DataType::FLOAT, std::move(dims)}},
                     {ints("s", std::move(target))}, opset);
  };
  CHECK(one({"N", "S", "768"}, {0, 0, 12, 64}).out() == "FLOAT[N,S,12,64]");
  CHECK(one({"N", "S", "768"}, {0, 0, 12, -1}).out() == "FLOAT[N,S,12,64]");
  CHECK(one({"N", "S", "768"}, {-1, 768}).out() == "FLOAT[N*S,768]");
  CHECK(one({"N", "S", "768"}, {-1}).out() == "FLOAT[768*N*S]");
  CHECK(one({"2", "3", "4"}, {4, -1}).out() == "FLOAT[4,6]");
  CHECK(one({"N", "3", "4"}, {0, -1}).out() == "FLOAT[N,12]");
  CHECK(one({"N", "3"}, {-1, 2}).out() == "FLOAT[unk__0,2]");  // 3N/2: not a polynomial
  // The element count is preserved: 3*N == 12 gives N = 4.
  auto solved = run({node("Reshape", {"x", "s"}, {"y"}), node("Identity", {"x"}, {"z"})}, {{"x", DataType::FLOAT, {"N", "3"}}},
                    {ints("s", {6, 2})});
  CHECK(solved["y"] == "FLOAT[6,2]");
  CHECK(solved["z"] == "FLOAT[4,3]");
  CHECK(failed(one({"N", "3"}, {7, 2})));  // 3*N == 14 has no solution
  CHECK(failed(one({"2", "3"}, {4, -1})));
  CHECK(failed(one({"2", "3"}, {5})));
  CHECK(failed(one({"2", "3"}, {-1, -1})));
  CHECK(failed(one({"2", "3"}, {-2, 3})));
  // allowzero (14): 0 is a real size.
  CHECK(one({"0", "3"}, {0, 3}, 14, {Attribute("allowzero", 1)}).out() == "FLOAT[0,3]");
  CHECK(one({"2", "3"}, {0, 3}, 13, {Attribute("allowzero", 1)}).out() == "FLOAT[2,3]");  // ignored before 14
  CHECK(failed(one({"0", "3"}, {0, -1}, 14, {Attribute("allowzero", 1)})));
  // Opset 1-4: `shape` attribute.
  auto old = infer_one(node("Reshape", {"x"}, {"y"}, {Attribute("shape", I{0, -1})}), {{"x", DataType::FLOAT, {"N", "2", "3"}}},
                       {}, 4);
  CHECK(old.out() == "FLOAT[N,6]");
  // Unknown target contents but known length: rank only.
  CHECK(infer_one(node("Reshape", {"x", "s"}, {"y"}), {{"x", DataType::FLOAT, {"N"}}, {"s", DataType::INT64, {"3"}}}).out() ==
        "FLOAT[unk__0,unk__1,unk__2]");
  CHECK(infer_one(node("Reshape", {"x", "s"}, {"y"}), {{"x", DataType::FLOAT, {"N"}}, {"s", DataType::INT64, {"K"}}}).out() ==
        "FLOAT[*]");
  CHECK(failed(infer_one(node("Reshape", {"x"}, {"y"}), {{"x", DataType::FLOAT, {"N"}}})));
}

TEST_CASE("Reshape: a target with one unknown entry keeps the element count") {
  // A one-entry target, contents unknown: one row of every element.
  CHECK(infer_one(node("Reshape", {"x", "s"}, {"y"}), {{"x", DataType::FLOAT, {"N", "3"}}, {"s", DataType::INT64, {"1"}}})
            .out() == "FLOAT[3*N]");
  CHECK(infer_one(node("Reshape", {"x", "s"}, {"y"}), {{"x", DataType::FLOAT, {"N", "0"}}, {"s", DataType::INT64, {"1"}}})
            .out() == "FLOAT[0]");
  // Concat(unknown, [4]) on [N, 8]: the unknown entry is 8N/4 whether it is -1, 0 or 2N.
  auto part = [](I known, std::vector<std::string> dims, std::vector<Attribute> a = {}) {
    return run({node("Concat", {"u", "k"}, {"s"}, {Attribute("axis", 0)}), node("Reshape", {"x", "s"}, {"y"}, std::move(a))},
               {{"x", DataType::FLOAT, std::move(dims)}, {"u", DataType::INT64, {"1"}}}, {ints("k", std::move(known))});
  };
  CHECK(part({4}, {"N", "8"})["y"] == "FLOAT[2*N,4]");
  CHECK(part({2, 3}, {"N", "6", "S"})["y"] == "FLOAT[N*S,2,3]");
  CHECK(part({3}, {"N", "2"})["y"] == "FLOAT[unk__0,3]");  // 2N/3: not a polynomial
  CHECK(part({-1}, {"N", "8"})["y"] == "FLOAT[unk__0,unk__1]");  // the -1 and the unknown entry share 8N
  // A zero other size (allowzero) leaves an explicit unknown size free.
  CHECK(part({0}, {"N", "0"}, {Attribute("allowzero", 1)})["y"] == "FLOAT[unk__0,0]");
  // A symbolic other size may be 0 at run time: not solved.
  auto sym = run({node("Shape", {"x"}, {"sh"}), node("Gather", {"sh", "i0"}, {"n"}), node("Concat", {"n", "u"}, {"s"}, {Attribute("axis", 0)}),
                  node("Reshape", {"x", "s"}, {"y"})},
                 {{"x", DataType::FLOAT, {"N", "8"}}, {"u", DataType::INT64, {"1"}}}, {ints("i0", {0})});
  CHECK(sym["y"] == "FLOAT[N,unk__0]");
}

TEST_CASE("Reshape: exporter chain Shape→Gather→Unsqueeze→Concat keeps exact dims") {
  // Reshape(x[N,S,768], Concat(Unsqueeze(Gather(Shape(x),0)), Unsqueeze(Gather(Shape(x),1)), [12], [64]))
  auto r = run(
      {node("Shape", {"x"}, {"s"}), node("Gather", {"s", "i0"}, {"n"}, {Attribute("axis", 0)}),
       node("Gather", {"s", "i1"}, {"l"}), node("Unsqueeze", {"n", "ax"}, {"n1"}), node("Unsqueeze", {"l", "ax"}, {"l1"}),
       node("Concat", {"n1", "l1", "h", "d"}, {"shape"}, {Attribute("axis", 0)}), node("Reshape", {"x", "shape"}, {"y"}),
       node("Transpose", {"y"}, {"t"}, {Attribute("perm", I{0, 2, 1, 3})})},
      {{"x", DataType::FLOAT, {"N", "S", "768"}}},
      {ints("i0", {0}, true), ints("i1", {1}, true), ints("ax", {0}), ints("h", {12}), ints("d", {64})}, 13);
  CHECK(r["n"] == "INT64[]");
  CHECK(r["n1"] == "INT64[1]");
  CHECK(r["shape"] == "INT64[4]");
  CHECK(r["y"] == "FLOAT[N,S,12,64]");
  CHECK(r["t"] == "FLOAT[N,12,S,64]");
  CHECK(r.report.diagnostics.empty());
  // Merge heads back: [N,S,H,D] → [N,S,-1] via Slice(Shape, 0, 2) ++ [-1].
  auto r2 = run({node("Shape", {"y"}, {"s"}), node("Slice", {"s", "b", "e"}, {"ns"}),
                 node("Concat", {"ns", "m1"}, {"shape"}, {Attribute("axis", 0)}), node("Reshape", {"y", "shape"}, {"z"})},
                {{"y", DataType::FLOAT, {"N", "S", "H", "D"}}}, {ints("b", {0}), ints("e", {2}), ints("m1", {-1})});
  CHECK(r2["ns"] == "INT64[2]");
  CHECK(r2["z"] == "FLOAT[N,S,H*D]");
  // Split heads with a symbolic hidden size: [N,S,H*D] → [N,S,H,-1] gives D.
  auto r3 = run({node("Shape", {"x"}, {"s"}), node("Slice", {"s", "b", "e"}, {"ns"}), node("Shape", {"w"}, {"hs"}),
                 node("Concat", {"ns", "hs", "m1"}, {"shape"}, {Attribute("axis", 0)}), node("Reshape", {"q", "shape"}, {"z"})},
                {{"x", DataType::FLOAT, {"N", "S", "E"}}, {"w", DataType::FLOAT, {"H"}}, {"q", DataType::FLOAT, {"N", "S", "H", "D"}}},
                {ints("b", {0}), ints("e", {2}), ints("m1", {-1})});
  CHECK(r3["z"] == "FLOAT[N,S,H,D]");
}

TEST_CASE("Flatten") {
  CHECK(infer_one(node("Flatten", {"x"}, {"y"}), {{"x", DataType::FLOAT, {"N", "C", "4"}}}).out() == "FLOAT[N,4*C]");
  CHECK(infer_one(node("Flatten", {"x"}, {"y"}, {Attribute("axis", 0)}), {{"x", DataType::FLOAT, {"N", "C"}}}).out() ==
        "FLOAT[1,N*C]");
  CHECK(infer_one(node("Flatten", {"x"}, {"y"}, {Attribute("axis", 2)}), {{"x", DataType::FLOAT, {"N", "C"}}}).out() ==
        "FLOAT[N*C,1]");
  CHECK(infer_one(node("Flatten", {"x"}, {"y"}, {Attribute("axis", -1)}), {{"x", DataType::FLOAT, {"N", "C", "3"}}}).out() ==
        "FLOAT[N*C,3]");
  CHECK(failed(infer_one(node("Flatten", {"x"}, {"y"}, {Attribute("axis", 3)}), {{"x", DataType::FLOAT, {"N", "C"}}})));
}

TEST_CASE("Squeeze / Unsqueeze: attribute before 13, input from 13") {
  const std::vector<In> x{{"x", DataType::FLOAT, {"N", "1", "S", "1"}}};
  CHECK(infer_one(node("Squeeze", {"x"}, {"y"}), x).out() == "FLOAT[*]");  // N, S might be 1
  CHECK(infer_one(node("Squeeze", {"x"}, {"y"}), {{"x", DataType::FLOAT, {"2", "1", "3"}}}).out() == "FLOAT[2,3]");
  CHECK(infer_one(node("Squeeze", {"x", "a"}, {"y"}), x, {ints("a", {1})}).out() == "FLOAT[N,S,1]");
  CHECK(infer_one(node("Squeeze", {"x", "a"}, {"y"}), x, {ints("a", {-1, 1})}).out() == "FLOAT[N,S]");
  CHECK(infer_one(node("Squeeze", {"x"}, {"y"}, {Attribute("axes", I{3})}), x, {}, 11).out() == "FLOAT[N,1,S]");
  CHECK(failed(infer_one(node("Squeeze", {"x", "a"}, {"y"}), x, {ints("a", {4})})));
  CHECK(failed(infer_one(node("Squeeze", {"x", "a"}, {"y"}), {{"x", DataType::FLOAT, {"3"}}}, {ints("a", {0})})));
  // Squeezing a symbolic dim: the operator implies it is 1.
  auto sq = run({node("Squeeze", {"x", "a"}, {"y"}), node("Identity", {"x"}, {"z"})}, {{"x", DataType::FLOAT, {"B", "4"}}},
                {ints("a", {0})});
  CHECK(sq["y"] == "FLOAT[4]");
  CHECK(sq["z"] == "FLOAT[1,4]");
  CHECK(infer_one(node("Squeeze", {"x"}, {"y"}), {{"x", DataType::FLOAT, {"A", "B"}}}).out() == "FLOAT[*]");
  CHECK(infer_one(node("Squeeze", {"x", "a"}, {"y"}), x, {}, 13).out() == "FLOAT[*]");  // input a unknown
  // Two axes of unknown values may name one axis twice (ONNX Runtime and onnx squeeze it once):
  // one or two dims go, so the rank is not known.
  CHECK(infer_one(node("Squeeze", {"x", "a"}, {"y"}), {x[0], {"a", DataType::INT64, {"2"}}}).out() == "FLOAT[*]");
  CHECK(infer_one(node("Squeeze", {"x", "a"}, {"y"}), x, {ints("a", {1, -3})}).out() == "FLOAT[N,S,1]");
  CHECK(infer_one(node("Squeeze", {"x"}, {"y"}, {Attribute("axes", I{3, 3, -1})}), x, {}, 11).out() == "FLOAT[N,1,S]");
  // One axis of unknown value: exactly one dim that can be 1 goes. Only dim 0 of [1, 3, 4, 5]
  // can; of [1, 3, 1, 5], the last dim is 5 whichever goes.
  const In one_axis{"a", DataType::INT64, {"1"}};
  CHECK(infer_one(node("Squeeze", {"x", "a"}, {"y"}), {{"x", DataType::FLOAT, {"1", "3", "4", "5"}}, one_axis}).out() ==
        "FLOAT[3,4,5]");
  CHECK(infer_one(node("Squeeze", {"x", "a"}, {"y"}), {{"x", DataType::FLOAT, {"1", "3", "1", "5"}}, one_axis}).out() ==
        "FLOAT[unk__0,unk__1,5]");
  CHECK(infer_one(node("Squeeze", {"x", "a"}, {"y"}), {{"x", DataType::FLOAT, {"7", "1", "N"}}, one_axis}).out() ==
        "FLOAT[7,unk__0]");
  CHECK(infer_one(node("Squeeze", {"x", "a"}, {"y"}), {{"x", DataType::FLOAT, {"1", "1"}}, one_axis}).out() == "FLOAT[1]");
  // Several axes of unknown values but a single dim that can be 1: that one goes.
  CHECK(infer_one(node("Squeeze", {"x", "a"}, {"y"}), {{"x", DataType::FLOAT, {"2", "1", "3"}}, {"a", DataType::INT64, {"3"}}})
            .out() == "FLOAT[2,3]");
  CHECK(failed(infer_one(node("Squeeze", {"x", "a"}, {"y"}), {{"x", DataType::FLOAT, {"2", "3"}}, one_axis})));
  // Empty axes: ONNX Runtime squeezes every dim of 1, onnx none; they agree only without a 1.
  const In no_axes{"a", DataType::INT64, {"0"}};
  CHECK(infer_one(node("Squeeze", {"x", "a"}, {"y"}), {{"x", DataType::FLOAT, {"2", "3"}}, no_axes}).out() == "FLOAT[2,3]");
  CHECK(infer_one(node("Squeeze", {"x", "a"}, {"y"}), {{"x", DataType::FLOAT, {"1", "3"}}, no_axes}).out() == "FLOAT[*]");
  CHECK(infer_one(node("Squeeze", {"x", "a"}, {"y"}), {{"x", DataType::FLOAT, {"1", "3"}}}, {ints("a", {})}).out() ==
        "FLOAT[*]");

  const std::vector<In> u{{"x", DataType::FLOAT, {"N", "S"}}};
  CHECK(infer_one(node("Unsqueeze", {"x", "a"}, {"y"}), u, {ints("a", {0})}).out() == "FLOAT[1,N,S]");
  CHECK(infer_one(node("Unsqueeze", {"x", "a"}, {"y"}), u, {ints("a", {1, -1})}).out() == "FLOAT[N,1,S,1]");
  CHECK(infer_one(node("Unsqueeze", {"x", "a"}, {"y"}), u, {ints("a", {3, 0})}).out() == "FLOAT[1,N,S,1]");
  CHECK(infer_one(node("Unsqueeze", {"x"}, {"y"}, {Attribute("axes", I{2})}), u, {}, 11).out() == "FLOAT[N,S,1]");
  CHECK(failed(infer_one(node("Unsqueeze", {"x"}, {"y"}), u, {}, 11)));
  CHECK(failed(infer_one(node("Unsqueeze", {"x", "a"}, {"y"}), u, {ints("a", {4})})));
  CHECK(failed(infer_one(node("Unsqueeze", {"x", "a"}, {"y"}), u, {ints("a", {1, 1})})));
  CHECK(failed(infer_one(node("Unsqueeze", {"x"}, {"y"}), u)));
}

TEST_CASE("Transpose") {
  const std::vector<In> x{{"x", DataType::FLOAT16, {"N", "C", "H"}}};
  CHECK(infer_one(node("Transpose", {"x"}, {"y"}), x).out() == "FLOAT16[H,C,N]");
  CHECK(infer_one(node("Transpose", {"x"}, {"y"}, {Attribute("perm", I{0, 2, 1})}), x).out() == "FLOAT16[N,H,C]");
  CHECK(failed(infer_one(node("Transpose", {"x"}, {"y"}, {Attribute("perm", I{0, 1})}), x)));
  CHECK(failed(infer_one(node("Transpose", {"x"}, {"y"}, {Attribute("perm", I{0, 0, 1})}), x)));
  CHECK(failed(infer_one(node("Transpose", {"x"}, {"y"}, {Attribute("perm", I{0, 3, 1})}), x)));
}

TEST_CASE("Concat: axis size is the sum; other sizes unify") {
  const std::vector<In> in{{"a", DataType::FLOAT, {"N", "S", "4"}}, {"b", DataType::FLOAT, {"N", "T", "4"}}};
  CHECK(infer_one(node("Concat", {"a", "b"}, {"y"}, {Attribute("axis", 1)}), in).out() == "FLOAT[N,S+T,4]");
  CHECK(infer_one(node("Concat", {"a", "b", "a"}, {"y"}, {Attribute("axis", -2)}), in).out() == "FLOAT[N,2*S+T,4]");
  auto u = infer_one(node("Concat", {"a", "b"}, {"y"}, {Attribute("axis", 1)}),
                     {{"a", DataType::FLOAT, {"N", "?"}}, {"b", DataType::FLOAT, {"3", "M"}}});
  CHECK(u.out() == "FLOAT[3,M+a_dim1]");
  CHECK(failed(infer_one(node("Concat", {"a", "b"}, {"y"}, {Attribute("axis", 0)}),
                         {{"a", DataType::FLOAT, {"2", "3"}}, {"b", DataType::FLOAT, {"2", "4"}}})));
  CHECK(failed(infer_one(node("Concat", {"a", "b"}, {"y"}), in)));
  CHECK(failed(infer_one(node("Concat", {"a", "b"}, {"y"}, {Attribute("axis", 3)}), in)));
  CHECK(failed(infer_one(node("Concat", {"a", "b"}, {"y"}, {Attribute("axis", 0)}),
                         {{"a", DataType::FLOAT, {"2"}}, {"b", DataType::FLOAT, {"2", "4"}}})));
  CHECK(infer_one(node("Concat", {"a", "b"}, {"y"}, {Attribute("axis", 0)}),
                  {{"a", DataType::FLOAT, {"2", "K"}}, {"b", DataType::FLOAT, {}, false}})
            .out() == "FLOAT[unk__0,K]");
}

TEST_CASE("Concat of thousands of inputs: the axis size is their sum, or unknown past the size bound") {
  // 3,000 inputs [S0,4] ... [S9,4] in turn: the sizes are summed pairwise (one by one, the
  // running sum is re-built at every input), and the sum is the same.
  std::vector<In> in;
  std::vector<std::string> names;
  for (int i = 0; i < 10; ++i) in.push_back({"x" + std::to_string(i), DataType::FLOAT, {"S" + std::to_string(i), "4"}});
  for (int i = 0; i < 3000; ++i) names.push_back("x" + std::to_string(i % 10));
  auto r = infer_one(node("Concat", names, {"y"}, {Attribute("axis", 0)}), in);
  CHECK(r.out() == "FLOAT[300*S0+300*S1+300*S2+300*S3+300*S4+300*S5+300*S6+300*S7+300*S8+300*S9,4]");
  // 1,200 different symbols: a sum past kMaxExprSize terms; that size alone is unknown, said.
  std::vector<In> many;
  names.clear();
  for (int i = 0; i < 1200; ++i) {
    many.push_back({"x" + std::to_string(i), DataType::FLOAT, {"S" + std::to_string(i), "4"}});
    names.push_back("x" + std::to_string(i));
  }
  auto big = infer_one(node("Concat", names, {"y"}, {Attribute("axis", 0)}), many);
  CHECK(big.out() == "FLOAT[unk__0,4]");
  CHECK(std::any_of(big.report.diagnostics.begin(), big.report.diagnostics.end(), [](const auto& d) {
    return d.message.find("the concatenated size is left unknown") != std::string::npos;
  }));
}

TEST_CASE("Split: attribute/input sizes, even split, num_outputs (18) with an uneven last chunk") {
  const std::vector<In> x{{"x", DataType::FLOAT, {"N", "10"}}};
  auto s = infer_one(node("Split", {"x", "sp"}, {"a", "b"}, {Attribute("axis", 1)}), x, {ints("sp", {3, 7})});
  CHECK(s.out(0) == "FLOAT[N,3]");
  CHECK(s.out(1) == "FLOAT[N,7]");
  auto old = infer_one(node("Split", {"x"}, {"a", "b"}, {Attribute("axis", 1), Attribute("split", I{4, 6})}), x, {}, 11);
  CHECK(old.out(1) == "FLOAT[N,6]");
  // equal parts without sizes up to opset 17 (from 18 num_outputs must say so)
  auto even = infer_one(node("Split", {"x"}, {"a", "b"}, {Attribute("axis", 1)}), x, {}, 17);
  CHECK(even.out(0) == "FLOAT[N,5]");
  auto sym = infer_one(node("Split", {"x"}, {"a", "b"}), {{"x", DataType::FLOAT, {"N", "3"}}}, {}, 17);
  CHECK(sym.out(0) == "FLOAT[floor(N/2),3]");
  auto three = infer_one(node("Split", {"x"}, {"a", "b", "c"}, {Attribute("axis", -1), Attribute("num_outputs", 3)}), x, {}, 18);
  CHECK(three.out(0) == "FLOAT[N,4]");
  CHECK(three.out(2) == "FLOAT[N,2]");
  auto three_sym = infer_one(node("Split", {"x"}, {"a", "b", "c"}, {Attribute("num_outputs", 3)}), x, {}, 18);
  CHECK(three_sym.out(0) == "FLOAT[floor((N+2)/3),10]");
  CHECK(three_sym.out(2) == "FLOAT[N-2*floor((N+2)/3),10]");
  CHECK(failed(infer_one(node("Split", {"x"}, {"a", "b", "c"}, {Attribute("axis", 1)}), x, {}, 17)));  // 10 into 3
  CHECK(failed(infer_one(node("Split", {"x"}, {"a", "b"}, {Attribute("axis", 1)}), x, {}, 18)));
  CHECK(failed(infer_one(node("Split", {"x", "sp"}, {"a", "b"}, {Attribute("axis", 1)}), x, {ints("sp", {3, 6})})));
  CHECK(failed(infer_one(node("Split", {"x", "sp"}, {"a", "b"}, {Attribute("axis", 1)}), x, {ints("sp", {10})})));
  CHECK(failed(infer_one(node("Split", {"x"}, {"a", "b"}, {Attribute("axis", 2)}), x)));
  CHECK(failed(infer_one(node("Split", {"x"}, {"a", "b"}, {Attribute("num_outputs", 3)}), x, {}, 18)));
  // Split of a shape vector: contents flow to each part.
  auto r = run({node("Shape", {"x"}, {"s"}), node("Split", {"s", "sp"}, {"p", "q"}), node("Reshape", {"z", "q"}, {"y"})},
               {{"x", DataType::FLOAT, {"N", "S", "H"}}, {"z", DataType::FLOAT, {"?", "?"}}}, {ints("sp", {1, 2})});
  CHECK(r["y"] == "FLOAT[S,H]");
  // Symbolic split sizes from shapes: split a concatenation back into its parts.
  auto back = run({node("Concat", {"a", "b"}, {"ab"}, {Attribute("axis", 1)}), node("Shape", {"a"}, {"sa"}),
                   node("Shape", {"b"}, {"sb"}), node("Gather", {"sa", "one"}, {"la"}), node("Gather", {"sb", "one"}, {"lb"}),
                   node("Concat", {"la", "lb"}, {"sp"}, {Attribute("axis", 0)}),
                   node("Split", {"ab", "sp"}, {"p", "q"}, {Attribute("axis", 1)})},
                  {{"a", DataType::FLOAT, {"N", "S"}}, {"b", DataType::FLOAT, {"N", "T"}}}, {ints("one", {1})});
  CHECK(back["ab"] == "FLOAT[N,S+T]");
  CHECK(back["p"] == "FLOAT[N,S]");
  CHECK(back["q"] == "FLOAT[N,T]");
  CHECK(back.report.diagnostics.empty());
}

TEST_CASE("Split with sizes not all known: the last unknown one is what the others leave") {
  // Sizes from data (a graph input): the first is fresh, the second is the rest of the axis, so
  // concatenating the parts again gives the axis back.
  auto two = run({node("Split", {"x", "sp"}, {"p", "q"}), node("Concat", {"p", "q"}, {"y"}, {Attribute("axis", 0)})},
                 {{"x", DataType::FLOAT, {"N", "4"}}, {"sp", DataType::INT64, {"2"}}});
  CHECK(two["p"] == "FLOAT[unk__0,4]");
  CHECK(two["q"] == "FLOAT[N-unk__0,4]");
  CHECK(two["y"] == "FLOAT[N,4]");
  CHECK(two.report.diagnostics.empty());
  // Sizes [2, m, 2] with m from data: m is N-4.
  auto mid = run({node("Concat", {"two", "m", "two"}, {"sp"}, {Attribute("axis", 0)}),
                  node("Split", {"x", "sp"}, {"a", "b", "c"}, {Attribute("axis", 1)})},
                 {{"x", DataType::FLOAT, {"B", "N"}}, {"m", DataType::INT64, {"1"}}}, {ints("two", {2})});
  CHECK(mid["a"] == "FLOAT[B,2]");
  CHECK(mid["b"] == "FLOAT[B,N-4]");
  CHECK(mid["c"] == "FLOAT[B,2]");
  // The unknown entry first: the known ones after it keep their sizes.
  auto first = run({node("Concat", {"m", "three"}, {"sp"}, {Attribute("axis", 0)}), node("Split", {"x", "sp"}, {"a", "b"})},
                   {{"x", DataType::FLOAT, {"N"}}, {"m", DataType::INT64, {"1"}}}, {ints("three", {3})});
  CHECK(first["a"] == "FLOAT[N-3]");
  CHECK(first["b"] == "FLOAT[3]");
  // With a number for the axis: the known sizes may not exceed it, nor have the wrong count.
  auto fixed = run({node("Concat", {"m", "three"}, {"sp"}, {Attribute("axis", 0)}), node("Split", {"x", "sp"}, {"a", "b"})},
                   {{"x", DataType::FLOAT, {"10"}}, {"m", DataType::INT64, {"1"}}}, {ints("three", {3})});
  CHECK(fixed["a"] == "FLOAT[7]");
  auto over = run({node("Concat", {"m", "three"}, {"sp"}, {Attribute("axis", 0)}), node("Split", {"x", "sp"}, {"a", "b"})},
                  {{"x", DataType::FLOAT, {"2"}}, {"m", DataType::INT64, {"1"}}}, {ints("three", {3})});
  CHECK(over.report.nodes_failed == 1);
  auto count = run({node("Split", {"x", "sp"}, {"a", "b"})}, {{"x", DataType::FLOAT, {"N"}}, {"sp", DataType::INT64, {"3"}}});
  CHECK(count.report.nodes_failed == 1);
  auto count2 = run({node("Concat", {"m", "three"}, {"sp"}, {Attribute("axis", 0)}), node("Split", {"x", "sp"}, {"a", "b", "c"})},
                    {{"x", DataType::FLOAT, {"N"}}, {"m", DataType::INT64, {"1"}}}, {ints("three", {3})});
  CHECK(count2.report.nodes_failed == 1);
}

TEST_CASE("Slice: constants, clamping, steps, symbolic dims, attributes before 10") {
  auto sl = [](std::vector<std::string> dims, I st, I en, std::optional<I> ax = {}, std::optional<I> steps = {}) {
    std::vector<Tensor> init{ints("s", std::move(st)), ints("e", std::move(en))};
    std::vector<std::string> in{"x", "s", "e"};
    if (ax || steps) {
      in.push_back(ax ? "a" : "");
      if (ax) init.push_back(ints("a", *ax));
    }
    if (steps) {
      in.push_back("p");
      init.push_back(ints("p", *steps));
    }
    return infer_one(node("Slice", in, {"y"}), {{"x", DataType::FLOAT, std::move(dims)}}, std::move(init)).out();
  };
  CHECK(sl({"10", "20"}, {2}, {5}) == "FLOAT[3,20]");
  CHECK(sl({"10", "20"}, {-3}, {kMax}) == "FLOAT[3,20]");
  CHECK(sl({"10", "20"}, {0, 1}, {100, -1}) == "FLOAT[10,18]");
  CHECK(sl({"10", "20"}, {1}, {kMax}, I{1}, I{3}) == "FLOAT[10,7]");
  CHECK(sl({"10", "20"}, {-1}, {kMin}, I{0}, I{-1}) == "FLOAT[10,20]");
  CHECK(sl({"10", "20"}, {8}, {2}, I{0}, I{-2}) == "FLOAT[3,20]");
  CHECK(sl({"10", "20"}, {5}, {2}, I{0}) == "FLOAT[0,20]");
  // Symbolic dims.
  // x[3:] on a size that may be below 3 has max(0,S-3) elements, never a negative count.
  CHECK(sl({"N", "S"}, {3}, {kMax}, I{1}) == "FLOAT[N,max(0,S-3)]");
  CHECK(sl({"N", "S"}, {1}, {kMax}, I{1}) == "FLOAT[N,max(0,S-1)]");
  CHECK(sl({"N", "S"}, {0}, {kMax}, I{1}, I{2}) == "FLOAT[N,floor((S+1)/2)]");
  CHECK(sl({"N", "S"}, {-1}, {kMin}, I{1}, I{-1}) == "FLOAT[N,S]");
  CHECK(sl({"N", "S"}, {-4}, {kMax}, I{1}) == "FLOAT[N,min(S,4)]");
  CHECK(sl({"N", "S"}, {0}, {8}, I{-1}) == "FLOAT[N,min(S,8)]");
  CHECK(sl({"N", "S"}, {2}, {8}, I{-1}) == "FLOAT[N,max(0,min(S,8)-min(S,2))]");
  CHECK(sl({"N", "S"}, {0}, {-1}, I{1}) == "FLOAT[N,max(0,S-1)]");
  // Malformed.
  CHECK(sl({"10"}, {0}, {1}, I{0}, I{0}) == "?");
  CHECK(sl({"10"}, {0, 1}, {1}) == "?");
  CHECK(sl({"10"}, {0}, {1}, I{1}) == "?");
  // Opset < 10: attributes.
  auto old = infer_one(node("Slice", {"x"}, {"y"}, {Attribute("starts", I{1}), Attribute("ends", I{kMax}), Attribute("axes", I{1})}),
                       {{"x", DataType::FLOAT, {"N", "S"}}}, {}, 9);
  CHECK(old.out() == "FLOAT[N,max(0,S-1)]");
  // Symbolic end from another tensor's shape: x[:, :T].
  auto r = run({node("Shape", {"t"}, {"ts"}), node("Slice", {"ts", "one", "two"}, {"tl"}),
                node("Slice", {"x", "zero", "tl", "one"}, {"y"})},
               {{"x", DataType::FLOAT, {"N", "S"}}, {"t", DataType::FLOAT, {"B", "T"}}},
               {ints("zero", {0}), ints("one", {1}), ints("two", {2})});
  CHECK(r["tl"] == "INT64[1]");
  CHECK(r["y"] == "FLOAT[N,min(S,T)]");
  // Unknown starts: the sliced axis gets a new size.
  CHECK(infer_one(node("Slice", {"x", "s", "e", "a"}, {"y"}), {{"x", DataType::FLOAT, {"N", "S"}}, {"s", DataType::INT64, {"1"}}},
                  {ints("e", {4}), ints("a", {1})})
            .out() == "FLOAT[N,unk__0]");
  // Slicing shape contents with a negative step.
  auto r2 = run({node("Shape", {"x"}, {"s"}), node("Slice", {"s", "m1", "big", "zero", "m1"}, {"rev"}),
                 node("Reshape", {"z", "rev"}, {"y"})},
                {{"x", DataType::FLOAT, {"A", "B", "C"}}, {"z", DataType::FLOAT, {"?"}}},
                {ints("m1", {-1}), ints("big", {kMin}), ints("zero", {0})});
  CHECK(r2["rev"] == "INT64[3]");
  CHECK(r2["y"] == "FLOAT[C,B,A]");
}

TEST_CASE("Slice: end d-1 / d-2 from the sliced dim (torch narrow); table sliced to a length broadcasts") {
  // x.narrow(1, 1, S-2) exports Slice(x, 1, (S-2)+1): the end S-1 counts from the end when S
  // is 0, but the clamped end is still max(0, S-1).
  auto end_at = [](std::int64_t k) {
    return run({node("Shape", {"x"}, {"s"}), node("Gather", {"s", "i1"}, {"n"}), node("Add", {"n", "k"}, {"e"}),
                node("Unsqueeze", {"e", "zero"}, {"e1"}), node("Slice", {"x", "one", "e1", "one"}, {"y"})},
               {{"x", DataType::FLOAT, {"N", "S"}}}, {ints("i1", {1}, true), ints("k", {k}, true), ints("zero", {0}), ints("one", {1})});
  };
  CHECK(end_at(-1)["y"] == "FLOAT[N,max(0,max(0,S-1)-min(S,1))]");
  CHECK(end_at(-2)["y"] == "FLOAT[N,max(0,max(0,S-2)-min(S,1))]");
  // S-3 is negative for S = 2 and then means 2-3+2 = 1: not max(0, S-3); left undetermined.
  CHECK(end_at(-3)["y"] == "FLOAT[N,unk__0]");
  // pos[:, :T] + x: pos's length is min(T, 128), which broadcasts with T only as T.
  auto pos = [](const std::string& len) {
    return run({node("Shape", {"x"}, {"s"}), node("Slice", {"s", "one", "two"}, {"t"}),
                node("Slice", {"pos", "zero", "t", "one"}, {"p"}), node("Add", {"x", "p"}, {"y"})},
               {{"x", DataType::FLOAT, {"N", "T", "4"}}, {"pos", DataType::FLOAT, {"1", len, "4"}}},
               {ints("zero", {0}), ints("one", {1}), ints("two", {2})});
  };
  auto r = pos("128");
  CHECK(r["p"] == "FLOAT[1,min(T,128),4]");
  CHECK(r["y"] == "FLOAT[N,T,4]");
  CHECK(r.report.diagnostics.empty());
  // A table of symbolic length L: min(T, L) could be 0 with T = 1 (L = 0), broadcasting to 0.
  CHECK(pos("L")["y"] == "FLOAT[N,unk__0,4]");
}

TEST_CASE("Pad: torch F.pad's pads tensor (Reshape to [-1,2], reversed rows, Transpose, flattened)") {
  // F.pad(x, (1, 2, 3, 0)) at opset 11+: Concat([1,2,3,0], zeros(4)) -> Reshape [-1,2] ->
  // Slice rows with step -1 -> Transpose -> Reshape [-1] -> Cast: [0,0,3,1, 0,0,0,2].
  Tensor zero_fill = ints("zv", {0});
  auto r = run({node("ConstantOfShape", {"four"}, {"zeros"}, {Attribute("value", zero_fill)}),
                node("Concat", {"amounts", "zeros"}, {"cat"}, {Attribute("axis", 0)}),
                node("Reshape", {"cat", "m1_2"}, {"pairs"}),
                node("Slice", {"pairs", "m1", "lowest", "zero", "m1"}, {"rev"}),
                node("Transpose", {"rev"}, {"tr"}, {Attribute("perm", I{1, 0})}),
                node("Reshape", {"tr", "m1"}, {"flat"}), node("Cast", {"flat"}, {"pads"}, {Attribute("to", std::int64_t{7})}),
                node("Pad", {"x", "pads"}, {"y"}, {Attribute("mode", std::string("reflect"))})},
               {{"x", DataType::FLOAT, {"N", "C", "H", "W"}}},
               {ints("four", {4}), ints("amounts", {1, 2, 3, 0}), ints("m1_2", {-1, 2}), ints("m1", {-1}),
                ints("lowest", {-kMax}), ints("zero", {0})},
               13);
  CHECK(r["pairs"] == "INT64[4,2]");
  CHECK(r["tr"] == "INT64[2,4]");
  CHECK(r["flat"] == "INT64[8]");
  CHECK(r["y"] == "FLOAT[N,C,H+3,W+3]");
  CHECK(r.report.diagnostics.empty());
  // Contents of a 2-D tensor: Transpose and a strided Slice of [[A,B,C],[5,6,7]], shown through
  // ConstantOfShape: [A,5,C,7] after Transpose -> Slice rows ::2 -> flatten.
  auto t = run({node("Shape", {"x"}, {"s"}), node("Concat", {"s", "k"}, {"cat"}, {Attribute("axis", 0)}),
                node("Reshape", {"cat", "two_m1"}, {"m"}), node("Transpose", {"m"}, {"mt"}),
                node("Slice", {"mt", "zero", "big", "zero", "two"}, {"ms"}), node("Reshape", {"ms", "m1"}, {"v"}),
                node("ConstantOfShape", {"v"}, {"y"})},
               {{"x", DataType::FLOAT, {"A", "B", "C"}}},
               {ints("k", {5, 6, 7}), ints("two_m1", {2, -1}), ints("zero", {0}), ints("big", {kMax}), ints("two", {2}),
                ints("m1", {-1})});
  CHECK(t["mt"] == "INT64[3,2]");
  CHECK(t["v"] == "INT64[4]");
  CHECK(t["y"] == "FLOAT[A,5,C,7]");
  // [1,3] -> [3,1]: the flat order is unchanged.
  auto u = run({node("Shape", {"x"}, {"s"}), node("Reshape", {"s", "one_m1"}, {"m"}), node("Transpose", {"m"}, {"mt"}),
                node("Reshape", {"mt", "m1"}, {"v"}), node("ConstantOfShape", {"v"}, {"y"})},
               {{"x", DataType::FLOAT, {"A", "B", "C"}}}, {ints("one_m1", {1, -1}), ints("m1", {-1})});
  CHECK(u["mt"] == "INT64[3,1]");
  CHECK(u["y"] == "FLOAT[A,B,C]");
}

TEST_CASE("Gather, GatherElements, GatherND") {
  const std::vector<In> in{{"d", DataType::FLOAT, {"V", "E"}}, {"i", DataType::INT64, {"N", "S"}}};
  CHECK(infer_one(node("Gather", {"d", "i"}, {"y"}), in).out() == "FLOAT[N,S,E]");
  CHECK(infer_one(node("Gather", {"d", "i"}, {"y"}, {Attribute("axis", -1)}), in).out() == "FLOAT[V,N,S]");
  CHECK(infer_one(node("Gather", {"d", "k"}, {"y"}, {Attribute("axis", 1)}), {in[0]}, {ints("k", {0}, true)}).out() == "FLOAT[V]");
  CHECK(failed(infer_one(node("Gather", {"d", "i"}, {"y"}, {Attribute("axis", 2)}), in)));
  // Contents: negative indices wrap; out-of-range fails.
  auto r = run({node("Shape", {"x"}, {"s"}), node("Gather", {"s", "k"}, {"g"}), node("Reshape", {"z", "g"}, {"y"})},
               {{"x", DataType::FLOAT, {"A", "B", "C"}}, {"z", DataType::FLOAT, {"?"}}}, {ints("k", {-1, 0})});
  CHECK(r["g"] == "INT64[2]");
  CHECK(r["y"] == "FLOAT[C,A]");
  auto bad = run({node("Shape", {"x"}, {"s"}), node("Gather", {"s", "k"}, {"g"})}, {{"x", DataType::FLOAT, {"A"}}},
                 {ints("k", {3}, true)});
  CHECK(bad.report.nodes_failed == 1);

  CHECK(infer_one(node("GatherElements", {"d", "i"}, {"y"}, {Attribute("axis", 1)}), in).out() == "FLOAT[N,S]");
  CHECK(failed(infer_one(node("GatherElements", {"d", "i"}, {"y"}), {in[0], {"i", DataType::INT64, {"N"}}})));

  CHECK(infer_one(node("GatherND", {"d", "i"}, {"y"}), {{"d", DataType::FLOAT, {"A", "B", "C"}}, {"i", DataType::INT64, {"N", "2"}}})
            .out() == "FLOAT[N,C]");
  CHECK(infer_one(node("GatherND", {"d", "i"}, {"y"}, {Attribute("batch_dims", 1)}),
                  {{"d", DataType::FLOAT, {"B", "C", "D"}}, {"i", DataType::INT64, {"B", "K", "1"}}})
            .out() == "FLOAT[B,K,D]");
  CHECK(infer_one(node("GatherND", {"d", "i"}, {"y"}), {{"d", DataType::FLOAT, {"A"}}, {"i", DataType::INT64, {"N", "M"}}}).out() ==
        "FLOAT[*]");
  CHECK(failed(infer_one(node("GatherND", {"d", "i"}, {"y"}),
                         {{"d", DataType::FLOAT, {"A", "B"}}, {"i", DataType::INT64, {"N", "3"}}})));
}

TEST_CASE("Scatter family keeps the data type and shape") {
  CHECK(infer_one(node("ScatterND", {"d", "i", "u"}, {"y"}),
                  {{"d", DataType::FLOAT, {"A", "B"}}, {"i", DataType::INT64, {"N", "1"}}, {"u", DataType::FLOAT, {"N", "B"}}})
            .out() == "FLOAT[A,B]");
  CHECK(infer_one(node("ScatterElements", {"d", "i", "u"}, {"y"}, {Attribute("axis", 1)}),
                  {{"d", DataType::INT32, {"A", "B"}}, {"i", DataType::INT64, {"N", "M"}}, {"u", DataType::INT32, {"N", "M"}}})
            .out() == "INT32[A,B]");
  CHECK(infer_one(node("Scatter", {"d", "i", "u"}, {"y"}),
                  {{"d", DataType::FLOAT, {"A", "B"}}, {"i", DataType::INT64, {"N", "M"}}, {"u", DataType::FLOAT, {"N", "M"}}}, {}, 10)
            .out() == "FLOAT[A,B]");
  CHECK(failed(infer_one(node("ScatterElements", {"d", "i", "u"}, {"y"}),
                         {{"d", DataType::FLOAT, {"A", "B"}}, {"i", DataType::INT64, {"2", "M"}}, {"u", DataType::FLOAT, {"3", "M"}}})));
}

TEST_CASE("Expand, Tile") {
  CHECK(infer_one(node("Expand", {"x", "s"}, {"y"}), {{"x", DataType::FLOAT, {"3", "1"}}}, {ints("s", {2, 1, 6})}).out() ==
        "FLOAT[2,3,6]");
  CHECK(infer_one(node("Expand", {"x", "s"}, {"y"}), {{"x", DataType::FLOAT, {"N", "1"}}}, {ints("s", {1, 1})}).out() ==
        "FLOAT[N,1]");
  CHECK(failed(infer_one(node("Expand", {"x", "s"}, {"y"}), {{"x", DataType::FLOAT, {"3"}}}, {ints("s", {4})})));
  // Symbolic target: expand a mask to another tensor's shape.
  auto r = run({node("Shape", {"t"}, {"s"}), node("Expand", {"m", "s"}, {"y"})},
               {{"t", DataType::FLOAT, {"N", "S", "E"}}, {"m", DataType::BOOL, {"1", "S", "1"}}});
  CHECK(r["y"] == "BOOL[N,S,E]");
  // Target values unknown: an input dim other than 1 survives (the target there is 1 or the same).
  CHECK(infer_one(node("Expand", {"x", "s"}, {"y"}), {{"x", DataType::FLOAT, {"3"}}, {"s", DataType::INT64, {"2"}}}).out() ==
        "FLOAT[unk__0,3]");
  CHECK(infer_one(node("Expand", {"x", "s"}, {"y"}), {{"x", DataType::FLOAT, {"3", "1"}}, {"s", DataType::INT64, {"3"}}}).out() ==
        "FLOAT[unk__0,3,unk__1]");
  CHECK(infer_one(node("Expand", {"x", "s"}, {"y"}), {{"x", DataType::FLOAT, {"N", "5", "2"}}, {"s", DataType::INT64, {"1"}}}).out() ==
        "FLOAT[N,5,2]");

  CHECK(infer_one(node("Tile", {"x", "r"}, {"y"}), {{"x", DataType::FLOAT, {"N", "3"}}}, {ints("r", {2, 1})}).out() ==
        "FLOAT[2*N,3]");
  CHECK(failed(infer_one(node("Tile", {"x", "r"}, {"y"}), {{"x", DataType::FLOAT, {"N", "3"}}}, {ints("r", {2})})));
  CHECK(infer_one(node("Tile", {"x", "r"}, {"y"}), {{"x", DataType::FLOAT, {"N", "3"}}, {"r", DataType::INT64, {"2"}}}).out() ==
        "FLOAT[unk__0,unk__1]");
  // Tile a batch size by a symbolic count taken from a shape.
  auto t = run({node("Shape", {"b"}, {"s"}), node("Concat", {"s", "one"}, {"rep"}, {Attribute("axis", 0)}),
                node("Tile", {"x", "rep"}, {"y"})},
               {{"b", DataType::FLOAT, {"K"}}, {"x", DataType::FLOAT, {"N", "3"}}}, {ints("one", {1})});
  CHECK(t["y"] == "FLOAT[K*N,3]");
}

TEST_CASE("Pad: attribute before 11, input from 11, axes from 18") {
  const std::vector<In> x{{"x", DataType::FLOAT, {"N", "C", "H", "W"}}};
  CHECK(infer_one(node("Pad", {"x", "p"}, {"y"}), x, {ints("p", {0, 0, 1, 2, 0, 0, 1, 2})}).out() == "FLOAT[N,C,H+2,W+4]");
  CHECK(infer_one(node("Pad", {"x"}, {"y"}, {Attribute("pads", I{0, 0, 1, 1, 0, 0, 1, 1})}), x, {}, 10).out() ==
        "FLOAT[N,C,H+2,W+2]");
  CHECK(infer_one(node("Pad", {"x"}, {"y"}, {Attribute("paddings", I{0, 0, 0, 1, 0, 0, 0, 1})}), x, {}, 1).out() ==
        "FLOAT[N,C,H,W+2]");
  CHECK(infer_one(node("Pad", {"x", "p", "", "a"}, {"y"}), x, {ints("p", {1, 3}), ints("a", {-1})}, 18).out() ==
        "FLOAT[N,C,H,W+4]");
  CHECK(infer_one(node("Pad", {"x", "p"}, {"y"}), x, {ints("p", {0, 0, -1, 0, 0, 0, -1, 0})}).out() == "FLOAT[N,C,H-2,W]");
  CHECK(failed(infer_one(node("Pad", {"x", "p"}, {"y"}), x, {ints("p", {1, 1})})));
  CHECK(failed(infer_one(node("Pad", {"x"}, {"y"}), x, {}, 10)));
  CHECK(infer_one(node("Pad", {"x", "p"}, {"y"}), {x[0], {"p", DataType::INT64, {"8"}}}).out() ==
        "FLOAT[unk__0,unk__1,unk__2,unk__3]");
}

TEST_CASE("ConstantOfShape, Range") {
  CHECK(infer_one(node("ConstantOfShape", {"s"}, {"y"}), {}, {ints("s", {2, 3})}).out() == "FLOAT[2,3]");
  CHECK(infer_one(node("ConstantOfShape", {"s"}, {"y"}, {Attribute("value", ints("v", {1}))}), {}, {ints("s", {4})}).out() ==
        "INT64[4]");
  auto r = run({node("Shape", {"x"}, {"s"}), node("ConstantOfShape", {"s"}, {"y"}, {Attribute("value", ints("v", {7}))})},
               {{"x", DataType::FLOAT, {"N", "S"}}});
  CHECK(r["y"] == "INT64[N,S]");
  CHECK(infer_one(node("ConstantOfShape", {"s"}, {"y"}), {{"s", DataType::INT64, {"3"}}}).out() == "FLOAT[unk__0,unk__1,unk__2]");
  // Small int contents flow: ConstantOfShape([2], 1) as a Reshape target is [1,1].
  auto r2 = run({node("ConstantOfShape", {"two"}, {"ones"}, {Attribute("value", ints("v", {1}))}), node("Reshape", {"x", "ones"}, {"y"})},
                {{"x", DataType::FLOAT, {"1"}}}, {ints("two", {2})});
  CHECK(r2["y"] == "FLOAT[1,1]");

  CHECK(infer_one(node("Range", {"a", "b", "c"}, {"y"}), {}, {ints("a", {0}, true), ints("b", {10}, true), ints("c", {3}, true)})
            .out() == "INT64[4]");
  CHECK(infer_one(node("Range", {"a", "b", "c"}, {"y"}), {}, {ints("a", {10}, true), ints("b", {0}, true), ints("c", {3}, true)})
            .out() == "INT64[0]");
  CHECK(infer_one(node("Range", {"a", "b", "c"}, {"y"}), {}, {ints("a", {10}, true), ints("b", {0}, true), ints("c", {-3}, true)})
            .out() == "INT64[4]");
  CHECK(infer_one(node("Range", {"a", "b", "c"}, {"y"}), {},
                  {floats("a", {0.0f}, true), floats("b", {1.0f}, true), floats("c", {0.25f}, true)})
            .out() == "FLOAT[4]");
  CHECK(failed(infer_one(node("Range", {"a", "b", "c"}, {"y"}), {},
                         {ints("a", {0}, true), ints("b", {4}, true), ints("c", {0}, true)})));
  // Symbolic: Range(0, S, 1) from a shape = S; Range(1, S, 2) = max(0, floor(S/2))? S-1 may be negative.
  auto sym = run({node("Shape", {"x"}, {"s"}), node("Gather", {"s", "one"}, {"n"}), node("Range", {"zero", "n", "step"}, {"y"}),
                  node("Range", {"one", "n", "two"}, {"z"})},
                 {{"x", DataType::FLOAT, {"B", "S"}}},
                 {ints("zero", {0}, true), ints("one", {1}, true), ints("step", {1}, true), ints("two", {2}, true)});
  CHECK(sym["y"] == "INT64[S]");
  CHECK(sym["z"] == "INT64[max(0,floor(S/2))]");
  CHECK(infer_one(node("Range", {"a", "b", "c"}, {"y"}), {{"a", DataType::FLOAT, {}}, {"b", DataType::FLOAT, {}}, {"c", DataType::FLOAT, {}}})
            .out() == "FLOAT[unk__0]");
  // Float bounds computed from sizes that are numbers (torch's arange(x.size(1) * 1.0)): the size
  // cast to float is exact, so the length is. A symbolic size cast to float is not followed: a
  // float holds only some integers beyond 2^24.
  const auto fl = [](std::string in, std::string out) {
    return node("Cast", {std::move(in)}, {std::move(out)}, {Attribute("to", std::int64_t{1})});
  };
  auto fr = run({node("Shape", {"x"}, {"s"}), node("Gather", {"s", "one"}, {"n"}), fl("n", "nf"), fl("n0", "zf"),
                 node("Range", {"zf", "nf", "half"}, {"y"}), node("Gather", {"s", "zero"}, {"m"}), fl("m", "mf"),
                 node("Range", {"zf", "mf", "half"}, {"z"})},
                {{"x", DataType::FLOAT, {"S", "6"}}},
                {ints("one", {1}, true), ints("zero", {0}, true), ints("n0", {0}, true), floats("half", {0.5f}, true)});
  CHECK(fr["y"] == "FLOAT[12]");
  CHECK(fr["z"] == "FLOAT[unk__0]");
  // Small constant ranges carry their contents (used as a permutation-like shape here).
  auto r3 = run({node("Range", {"a", "b", "c"}, {"s"}), node("Reshape", {"x", "s"}, {"y"})}, {{"x", DataType::FLOAT, {"6"}}},
                {ints("a", {1}, true), ints("b", {4}, true), ints("c", {1}, true)});
  CHECK(r3["y"] == "FLOAT[1,2,3]");
}

TEST_CASE("DepthToSpace, SpaceToDepth") {
  CHECK(infer_one(node("DepthToSpace", {"x"}, {"y"}, {Attribute("blocksize", 2)}), {{"x", DataType::FLOAT, {"N", "12", "H", "W"}}})
            .out() == "FLOAT[N,3,2*H,2*W]");
  CHECK(infer_one(node("DepthToSpace", {"x"}, {"y"}, {Attribute("blocksize", 2)}), {{"x", DataType::FLOAT, {"N", "C", "H", "W"}}})
            .out() == "FLOAT[N,floor(C/4),2*H,2*W]");
  CHECK(failed(infer_one(node("DepthToSpace", {"x"}, {"y"}, {Attribute("blocksize", 2)}), {{"x", DataType::FLOAT, {"N", "6", "H", "W"}}})));
  CHECK(failed(infer_one(node("DepthToSpace", {"x"}, {"y"}), {{"x", DataType::FLOAT, {"N", "4", "H", "W"}}})));
  CHECK(infer_one(node("SpaceToDepth", {"x"}, {"y"}, {Attribute("blocksize", 2)}), {{"x", DataType::FLOAT, {"N", "3", "8", "6"}}})
            .out() == "FLOAT[N,12,4,3]");
  CHECK(failed(infer_one(node("SpaceToDepth", {"x"}, {"y"}, {Attribute("blocksize", 2)}), {{"x", DataType::FLOAT, {"N", "3", "7", "6"}}})));
}

TEST_CASE("Compress, NonZero, Unique, TopK") {
  const std::vector<In> x{{"x", DataType::FLOAT, {"N", "5"}}};
  const bool cv[] = {true, false, true, true};
  Tensor cond = Tensor::from_values<bool>("c", {4}, std::span<const bool>(cv));
  CHECK(infer_one(node("Compress", {"x", "c"}, {"y"}, {Attribute("axis", 1)}), x, {cond}).out() == "FLOAT[N,3]");
  // Without an axis the condition applies to the 5*N flattened elements: a symbolic count may be
  // smaller than the condition, whose entries past it are discarded (ONNX Runtime).
  CHECK(infer_one(node("Compress", {"x", "c"}, {"y"}), x, {cond}).out() == "FLOAT[unk__0]");
  CHECK(infer_one(node("Compress", {"x", "c"}, {"y"}), {{"x", DataType::FLOAT, {"3"}}}, {cond}).out() == "FLOAT[2]");
  CHECK(infer_one(node("Compress", {"x", "c"}, {"y"}, {Attribute("axis", 0)}), {{"x", DataType::FLOAT, {"2", "N"}}}, {cond})
            .out() == "FLOAT[1,N]");
  const bool none[] = {false, false, false, false, false, false};
  CHECK(infer_one(node("Compress", {"x", "c"}, {"y"}), x, {Tensor::from_values<bool>("c", {6}, std::span<const bool>(none))})
            .out() == "FLOAT[0]");
  CHECK(infer_one(node("Compress", {"x", "c"}, {"y"}, {Attribute("axis", 0)}), {x[0], {"c", DataType::BOOL, {"N"}}}).out() ==
        "FLOAT[unk__0,5]");
  CHECK(infer_one(node("NonZero", {"x"}, {"y"}), x).out() == "INT64[2,unk__0]");
  auto u = infer_one(node("Unique", {"x"}, {"y", "i", "inv", "cnt"}), x);
  CHECK(u.out(0) == "FLOAT[unk__0]");
  CHECK(u.out(1) == "INT64[unk__0]");
  CHECK(u.out(2) == "INT64[5*N]");
  CHECK(u.out(3) == "INT64[unk__0]");
  auto ua = infer_one(node("Unique", {"x"}, {"y", "i", "inv", "cnt"}, {Attribute("axis", 0)}), x);
  CHECK(ua.out(0) == "FLOAT[unk__0,5]");
  CHECK(ua.out(2) == "INT64[N]");
  auto t = infer_one(node("TopK", {"x", "k"}, {"v", "i"}), x, {ints("k", {3})});
  CHECK(t.out(0) == "FLOAT[N,3]");
  CHECK(t.out(1) == "INT64[N,3]");
  CHECK(infer_one(node("TopK", {"x"}, {"v", "i"}, {Attribute("k", 2), Attribute("axis", 0)}), x, {}, 9).out(1) == "INT64[2,5]");
  CHECK(failed(infer_one(node("TopK", {"x"}, {"v", "i"}), x, {}, 9)));
  CHECK(failed(infer_one(node("TopK", {"x", "k"}, {"v", "i"}), x, {ints("k", {6})})));
  CHECK(infer_one(node("TopK", {"x", "k"}, {"v", "i"}), {x[0], {"k", DataType::INT64, {"1"}}}).out() == "FLOAT[N,unk__0]");
}

TEST_CASE("Reductions: axes attribute vs input by version, keepdims, noop_with_empty_axes") {
  const std::vector<In> x{{"x", DataType::FLOAT, {"N", "C", "H"}}};
  CHECK(infer_one(node("ReduceSum", {"x", "a"}, {"y"}), x, {ints("a", {1})}).out() == "FLOAT[N,1,H]");
  CHECK(infer_one(node("ReduceSum", {"x", "a"}, {"y"}, {Attribute("keepdims", 0)}), x, {ints("a", {-1, 0})}).out() == "FLOAT[C]");
  CHECK(infer_one(node("ReduceSum", {"x"}, {"y"}), x).out() == "FLOAT[1,1,1]");
  CHECK(infer_one(node("ReduceSum", {"x"}, {"y"}, {Attribute("noop_with_empty_axes", 1)}), x).out() == "FLOAT[N,C,H]");
  CHECK(infer_one(node("ReduceSum", {"x"}, {"y"}, {Attribute("axes", I{1})}), x, {}, 11).out() == "FLOAT[N,1,H]");
  CHECK(infer_one(node("ReduceMean", {"x"}, {"y"}, {Attribute("axes", I{1}), Attribute("keepdims", 0)}), x, {}, 17).out() ==
        "FLOAT[N,H]");
  CHECK(infer_one(node("ReduceMean", {"x", "a"}, {"y"}, {Attribute("keepdims", 0)}), x, {ints("a", {2})}, 18).out() == "FLOAT[N,C]");
  CHECK(infer_one(node("ReduceMax", {"x"}, {"y"}, {Attribute("keepdims", 0)}), x).out() == "FLOAT[]");
  for (const char* op : {"ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare"})
    CHECK(infer_one(node(op, {"x", "a"}, {"y"}), x, {ints("a", {0})}).out() == "FLOAT[1,C,H]");
  CHECK(failed(infer_one(node("ReduceSum", {"x", "a"}, {"y"}), x, {ints("a", {3})})));
  // An axis named twice is reduced once (onnx and ONNX Runtime).
  CHECK(infer_one(node("ReduceSum", {"x", "a"}, {"y"}), x, {ints("a", {1, 1})}).out() == "FLOAT[N,1,H]");
  CHECK(infer_one(node("ReduceMax", {"x"}, {"y"}, {Attribute("axes", I{0, -3}), Attribute("keepdims", 0)}), x, {}, 11).out() ==
        "FLOAT[C,H]");
  CHECK(infer_one(node("ReduceSum", {"x", "a"}, {"y"}), {x[0], {"a", DataType::INT64, {"1"}}}).out() == "FLOAT[unk__0,unk__1,unk__2]");
  CHECK(infer_one(node("ReduceSum", {"x", "a"}, {"y"}, {Attribute("keepdims", 0)}), {x[0], {"a", DataType::INT64, {"1"}}}).out() ==
        "FLOAT[unk__0,unk__1]");
  // Axes of unknown values: a kept dim of 1 stays 1; with one axis removed, a dim equal to the
  // next is that size whichever axis goes; two axes may be one axis named twice: rank unknown.
  const In one_axis{"a", DataType::INT64, {"1"}};
  CHECK(infer_one(node("ReduceSum", {"x", "a"}, {"y"}), {{"x", DataType::FLOAT, {"N", "1", "H"}}, one_axis}).out() ==
        "FLOAT[unk__0,1,unk__1]");
  CHECK(infer_one(node("ReduceSum", {"x", "a"}, {"y"}, {Attribute("keepdims", 0)}),
                  {{"x", DataType::FLOAT, {"3", "2", "2"}}, one_axis})
            .out() == "FLOAT[unk__0,2]");
  CHECK(infer_one(node("ReduceSum", {"x", "a"}, {"y"}, {Attribute("keepdims", 0)}), {x[0], {"a", DataType::INT64, {"2"}}})
            .out() == "FLOAT[*]");
  // An empty axes vector is known even when it is a graph input: all axes, or none with noop.
  const In no_axes{"a", DataType::INT64, {"0"}};
  CHECK(infer_one(node("ReduceSum", {"x", "a"}, {"y"}), {x[0], no_axes}).out() == "FLOAT[1,1,1]");
  CHECK(infer_one(node("ReduceSum", {"x", "a"}, {"y"}, {Attribute("keepdims", 0)}), {x[0], no_axes}).out() == "FLOAT[]");
  CHECK(infer_one(node("ReduceSum", {"x", "a"}, {"y"}, {Attribute("noop_with_empty_axes", 1)}), {x[0], no_axes}).out() ==
        "FLOAT[N,C,H]");
  // ReduceProd over a shape vector: the element count as a size.
  auto r = run({node("Shape", {"x"}, {"s"}), node("ReduceProd", {"s"}, {"n"}, {Attribute("keepdims", 1)}), node("Reshape", {"z", "n"}, {"y"})},
               {{"x", DataType::FLOAT, {"N", "C", "H"}}, {"z", DataType::FLOAT, {"?"}}});
  CHECK(r["n"] == "INT64[1]");
  CHECK(r["y"] == "FLOAT[N*C*H]");
  auto r2 = run({node("Shape", {"x"}, {"s"}), node("ReduceSum", {"s"}, {"n"}, {Attribute("keepdims", 0)}),
                 node("Unsqueeze", {"n", "zero"}, {"n1"}), node("Reshape", {"z", "n1"}, {"y"})},
                {{"x", DataType::FLOAT, {"A", "B"}}, {"z", DataType::FLOAT, {"?"}}}, {ints("zero", {0})});
  CHECK(r2["n"] == "INT64[]");
  CHECK(r2["y"] == "FLOAT[A+B]");
}

TEST_CASE("ArgMax / ArgMin") {
  const std::vector<In> x{{"x", DataType::FLOAT, {"N", "C"}}};
  CHECK(infer_one(node("ArgMax", {"x"}, {"y"}), x).out() == "INT64[1,C]");
  CHECK(infer_one(node("ArgMin", {"x"}, {"y"}, {Attribute("axis", -1), Attribute("keepdims", 0)}), x).out() == "INT64[N]");
  CHECK(infer_one(node("ArgMax", {"x"}, {"y"}, {Attribute("select_last_index", 1)}), x).out() == "INT64[1,C]");
  CHECK(failed(infer_one(node("ArgMax", {"x"}, {"y"}, {Attribute("axis", 2)}), x)));
}

TEST_CASE("OneHot, Trilu, CumSum, EyeLike, ReverseSequence, CenterCropPad") {
  CHECK(infer_one(node("OneHot", {"i", "d", "v"}, {"y"}), {{"i", DataType::INT64, {"N", "S"}}, {"v", DataType::FLOAT, {"2"}}},
                  {ints("d", {10}, true)})
            .out() == "FLOAT[N,S,10]");
  CHECK(infer_one(node("OneHot", {"i", "d", "v"}, {"y"}, {Attribute("axis", 0)}),
                  {{"i", DataType::INT64, {"N"}}, {"v", DataType::INT32, {"2"}}}, {floats("d", {5.0f}, true)})
            .out() == "INT32[5,N]");
  CHECK(infer_one(node("OneHot", {"i", "d", "v"}, {"y"}), {{"i", DataType::INT64, {"N"}}, {"d", DataType::INT64, {}}, {"v", DataType::FLOAT, {"2"}}})
            .out() == "FLOAT[N,unk__0]");
  CHECK(failed(infer_one(node("OneHot", {"i", "d", "v"}, {"y"}, {Attribute("axis", 2)}),
                         {{"i", DataType::INT64, {"N"}}, {"v", DataType::FLOAT, {"2"}}}, {ints("d", {3}, true)})));
  CHECK(infer_one(node("Trilu", {"x"}, {"y"}), {{"x", DataType::FLOAT, {"B", "N", "N"}}}).out() == "FLOAT[B,N,N]");
  CHECK(failed(infer_one(node("Trilu", {"x"}, {"y"}), {{"x", DataType::FLOAT, {"N"}}})));
  CHECK(infer_one(node("CumSum", {"x", "a"}, {"y"}), {{"x", DataType::DOUBLE, {"N", "M"}}}, {ints("a", {1}, true)}).out() ==
        "DOUBLE[N,M]");
  CHECK(failed(infer_one(node("CumSum", {"x", "a"}, {"y"}), {{"x", DataType::DOUBLE, {"N", "M"}}}, {ints("a", {2}, true)})));
  CHECK(infer_one(node("EyeLike", {"x"}, {"y"}), {{"x", DataType::INT32, {"N", "M"}}}).out() == "INT32[N,M]");
  CHECK(infer_one(node("EyeLike", {"x"}, {"y"}, {Attribute("dtype", 1)}), {{"x", DataType::INT32, {"N", "M"}}}).out() == "FLOAT[N,M]");
  CHECK(failed(infer_one(node("EyeLike", {"x"}, {"y"}), {{"x", DataType::INT32, {"N"}}})));
  CHECK(failed(infer_one(node("EyeLike", {"x"}, {"y"}, {Attribute("dtype", 999)}), {{"x", DataType::INT32, {"N", "M"}}})));
  CHECK(infer_one(node("ReverseSequence", {"x", "l"}, {"y"}), {{"x", DataType::FLOAT, {"T", "B", "E"}}, {"l", DataType::INT64, {"B"}}})
            .out() == "FLOAT[T,B,E]");
  CHECK(failed(infer_one(node("ReverseSequence", {"x", "l"}, {"y"}, {Attribute("batch_axis", 0), Attribute("time_axis", 0)}),
                         {{"x", DataType::FLOAT, {"T", "B"}}, {"l", DataType::INT64, {"B"}}})));
  CHECK(infer_one(node("CenterCropPad", {"x", "s"}, {"y"}, {Attribute("axes", I{1, 2})}), {{"x", DataType::FLOAT, {"N", "H", "W", "3"}}},
                  {ints("s", {20, 10})}, 18)
            .out() == "FLOAT[N,20,10,3]");
  CHECK(infer_one(node("CenterCropPad", {"x", "s"}, {"y"}), {{"x", DataType::FLOAT, {"H", "W"}}}, {ints("s", {2, 3})}, 18).out() ==
        "FLOAT[2,3]");
  CHECK(failed(infer_one(node("CenterCropPad", {"x", "s"}, {"y"}), {{"x", DataType::FLOAT, {"H", "W"}}}, {ints("s", {2})}, 18)));
}

TEST_CASE("Robustness: unknown ranks, missing inputs, huge constants") {
  const In unk{"x", DataType::FLOAT, {}, false};
  for (const char* op : {"Reshape", "Squeeze", "Unsqueeze", "Expand", "Tile", "Pad", "Slice", "Gather", "TopK", "ReduceSum"}) {
    auto r = infer_one(node(op, {"x", "a", "a"}, {"y"}), {unk}, {ints("a", {0})});
    (void)r;  // no crash; may fail for wrong input counts
  }
  CHECK(infer_one(node("Transpose", {"x"}, {"y"}), {unk}).out() == "FLOAT[*]");
  CHECK(infer_one(node("Flatten", {"x"}, {"y"}), {unk}).out() == "FLOAT[unk__0,unk__1]");
  CHECK(infer_one(node("NonZero", {"x"}, {"y"}), {unk}).out() == "INT64[unk__0,unk__1]");
  CHECK(failed(infer_one(node("Reshape", {"x", "s"}, {"y"}), {{"x", DataType::FLOAT, {"N"}}}, {ints("s", {kMax, kMax})})));  // overflow: a diagnostic
  CHECK(infer_one(node("Slice", {"x", "s", "e"}, {"y"}), {{"x", DataType::FLOAT, {"N"}}}, {ints("s", {kMin}), ints("e", {kMax})}).out() ==
        "FLOAT[N]");
  CHECK(failed(infer_one(node("Tile", {"x", "r"}, {"y"}), {{"x", DataType::FLOAT, {"4"}}}, {ints("r", {kMax})})));
  CHECK(failed(infer_one(node("Gather", {"x"}, {"y"}), {{"x", DataType::FLOAT, {"4"}}})));
}

TEST_CASE("Exporter chains at opset 11 (Unsqueeze/Squeeze axes as attributes)") {
  auto r = run({node("Shape", {"x"}, {"s"}), node("Gather", {"s", "i0"}, {"b"}), node("Gather", {"s", "i2"}, {"e"}),
                node("Unsqueeze", {"b"}, {"b1"}, {Attribute("axes", I{0})}), node("Unsqueeze", {"e"}, {"e1"}, {Attribute("axes", I{0})}),
                node("Concat", {"b1", "m1", "e1"}, {"shape"}, {Attribute("axis", 0)}), node("Reshape", {"x", "shape"}, {"y"}),
                node("Squeeze", {"b1"}, {"b0"}, {Attribute("axes", I{0})})},
               {{"x", DataType::FLOAT, {"B", "T", "8", "E"}}}, {ints("i0", {0}, true), ints("i2", {3}, true), ints("m1", {-1})}, 11);
  CHECK(r["shape"] == "INT64[3]");
  CHECK(r["y"] == "FLOAT[B,8*T,E]");
  CHECK(r["b0"] == "INT64[]");
  CHECK(r.report.diagnostics.empty());
}

TEST_CASE("Contents through Transpose, Range with a symbolic start, Expand, Tile, Identity") {
  // Range(N, N+3, 1) has the contents [N, N+1, N+2]: as a Reshape target of a [N*(N+1)*(N+2)] tensor.
  auto r = run({node("Shape", {"x"}, {"s"}), node("Gather", {"s", "zero"}, {"n"}), node("Range", {"n", "lim", "one"}, {"rg"}),
                node("Transpose", {"rg"}, {"t"}), node("Reshape", {"z", "t"}, {"y"})},
               {{"x", DataType::FLOAT, {"N"}}, {"z", DataType::FLOAT, {"?"}}},
               {ints("zero", {0}, true), ints("one", {1}, true), ints("lim", {0}, true)});
  CHECK(r["rg"] == "INT64[0]");  // limit 0 below a non-negative start: empty
  auto r2 = run({node("Shape", {"x"}, {"s"}), node("Expand", {"s", "three"}, {"e"}), node("Tile", {"s", "two"}, {"t"}),
                 node("Reshape", {"z", "e"}, {"y"}), node("Reshape", {"w", "t"}, {"v"})},
                {{"x", DataType::FLOAT, {"K"}}, {"z", DataType::FLOAT, {"?"}}, {"w", DataType::FLOAT, {"?"}}},
                {ints("three", {3}), ints("two", {2})});
  CHECK(r2["e"] == "INT64[3]");
  CHECK(r2["y"] == "FLOAT[K,K,K]");
  CHECK(r2["t"] == "INT64[2]");
  CHECK(r2["v"] == "FLOAT[K,K]");
}

TEST_CASE("Unique with only the first output; Split opset 1 with a split input") {
  CHECK(infer_one(node("Unique", {"x"}, {"y"}), {{"x", DataType::INT32, {"N"}}}).out() == "INT32[unk__0]");
  auto s = infer_one(node("Split", {"x", "sp"}, {"a", "b"}), {{"x", DataType::FLOAT, {"6", "N"}}}, {ints("sp", {2, 4})}, 1);
  CHECK(s.out(0) == "FLOAT[2,N]");
  CHECK(s.out(1) == "FLOAT[4,N]");
}

TEST_CASE("Concat-1 defaults axis to 1; Identity passes sequences through") {
  const std::vector<In> in{{"a", DataType::FLOAT, {"N", "S"}}, {"b", DataType::FLOAT, {"N", "T"}}};
  CHECK(infer_one(node("Concat", {"a", "b"}, {"y"}), in, {}, 1).out() == "FLOAT[N,S+T]");
  CHECK(failed(infer_one(node("Concat", {"a", "b"}, {"y"}), in, {}, 4)));
  auto r = run({node("SplitToSequence", {"a"}, {"sq"}, {Attribute("keepdims", 0)}), node("Identity", {"sq"}, {"y"})},
               {{"a", DataType::FLOAT, {"3", "K"}}});
  CHECK(r["sq"].rfind("seq(FLOAT", 0) == 0);
  CHECK(r["y"] == r["sq"]);
}

TEST_CASE("GPT-2 style head split: hidden / heads computed with Div") {
  // [N,S,E] → Reshape(x, Concat(Shape(x)[0:2], [12], Unsqueeze(Div(Gather(Shape(x), 2), 12))))
  auto r = run({node("Shape", {"x"}, {"s"}), node("Slice", {"s", "b", "e"}, {"ns"}), node("Gather", {"s", "two"}, {"hid"}),
                node("Div", {"hid", "twelve"}, {"hd"}), node("Unsqueeze", {"hd", "zero"}, {"hd1"}),
                node("Concat", {"ns", "h", "hd1"}, {"shape"}, {Attribute("axis", 0)}), node("Reshape", {"x", "shape"}, {"y"})},
               {{"x", DataType::FLOAT, {"N", "S", "768"}}},
               {ints("b", {0}), ints("e", {2}), ints("two", {2}, true), ints("twelve", {12}, true), ints("zero", {0}), ints("h", {12})});
  CHECK(r["y"] == "FLOAT[N,S,12,64]");
}

TEST_CASE("Robustness sweep: every rule under odd ranks, constants and attributes never crashes") {
  const std::vector<std::string> ops = {
      "Constant", "Shape", "Size", "Identity", "Reshape", "Flatten", "Squeeze", "Unsqueeze", "Transpose", "Concat",
      "Split", "Slice", "Gather", "GatherElements", "GatherND", "ScatterElements", "ScatterND", "Scatter", "Expand",
      "Tile", "Pad", "ConstantOfShape", "Range", "DepthToSpace", "SpaceToDepth", "Compress", "NonZero", "Unique",
      "TopK", "ReduceSum", "ReduceMean", "ReduceProd", "ArgMax", "OneHot", "Trilu", "CumSum", "EyeLike",
      "ReverseSequence", "CenterCropPad"};
  const std::vector<std::vector<std::string>> shapes = {{}, {"0"}, {"N"}, {"1", "N"}, {"2", "3", "4", "5"}, {"N", "?", "0"}};
  const std::vector<I> consts = {{}, {0}, {-1}, {kMax}, {kMin}, {1, -1}, {0, 0, 0, 0}, {kMax, kMin, 1, -1}, {3, 2, 1, 0, -1, -2, -3, -4}};
  const std::vector<std::vector<Attribute>> attrs = {
      {}, {Attribute("axis", kMin)}, {Attribute("axis", -1), Attribute("keepdims", 0)}, {Attribute("axes", I{kMax})},
      {Attribute("perm", I{1, 0})}, {Attribute("blocksize", kMax)}, {Attribute("num_outputs", 2), Attribute("start", kMin)},
      {Attribute("batch_dims", 5)}, {Attribute("split", I{1, kMax})}, {Attribute("value", ints("v", {kMax}))}};
  std::size_t runs = 0, threw = 0;
  for (const auto& op : ops)
    for (std::int64_t opset : {1, 11, 21})
      for (std::size_t si = 0; si < shapes.size(); ++si)
        for (std::size_t ci = 0; ci < consts.size(); ci += (si % 2) + 1)
          for (std::size_t ai = 0; ai < attrs.size(); ai += 3 - (ci % 3)) {
            std::vector<In> in{{"x", DataType::INT64, shapes[si]}, {"u", DataType::FLOAT, {}, false}};
            auto m = make_model({node(op, {"x", "c", "c", "u"}, {"y", "z"}, attrs[ai])}, in,
                                {ints("c", consts[ci], consts[ci].size() == 1 && ci % 2 == 1)}, opset);
            try {
              (void)infer_shapes(m);
            } catch (...) {
              ++threw;
            }
            auto m2 = make_model({node(op, {"c", "x"}, {"y"}, attrs[ai])}, in, {ints("c", consts[ci])}, opset);
            try {
              (void)infer_shapes(m2);
            } catch (...) {
              ++threw;
            }
            runs += 2;
          }
  CHECK(runs > 1000);
  CHECK(threw == 0);
}

TEST_CASE("Position-id slice and Reshape of contents between rank 0 and 1") {
  // pos[1,1024][:, :S] with S from the input's shape: clamped exactly, min(S,1024).
  auto r = run({node("Shape", {"ids"}, {"s"}), node("Slice", {"s", "one", "two"}, {"sl"}),
                node("Slice", {"pos", "zero", "sl", "one"}, {"p"}), node("Reshape", {"sl", "scalar"}, {"s0"}),
                node("Range", {"zero0", "s0", "one0"}, {"rg"})},
               {{"ids", DataType::INT64, {"B", "S"}}, {"pos", DataType::FLOAT, {"1", "1024"}}},
               {ints("zero", {0}), ints("one", {1}), ints("two", {2}), ints("scalar", {}), ints("zero0", {0}, true),
                ints("one0", {1}, true)});
  CHECK(r["p"] == "FLOAT[1,min(S,1024)]");
  CHECK(r["s0"] == "INT64[]");
  CHECK(r["rg"] == "INT64[S]");
}

TEST_CASE("NonZero of a tensor whose every element is nonzero: every index (torch's arange before opset 11)") {
  const std::vector<In> x{{"x", DataType::FLOAT, {"N", "4"}}};
  auto nz = [&](std::optional<Tensor> value, bool whole_shape = true) {
    std::vector<Node> nodes = {node("Shape", {"x"}, {"s"})};
    std::string shape = "s";
    if (!whole_shape) {
      nodes.push_back(node("Slice", {"s", "zero1", "one1"}, {"s0"}));
      shape = "s0";
    }
    Node c = node("ConstantOfShape", {shape}, {"c"});
    if (value) c.set_attribute(Attribute("value", *value));
    nodes.push_back(std::move(c));
    nodes.push_back(node("NonZero", {"c"}, {"y"}));
    auto m = make_model(std::move(nodes), x, {ints("zero1", {0}), ints("one1", {1})}, 13);
    auto rep = infer_shapes(m);
    CHECK_FALSE(rep.has_errors());
    return type_of(m, "y");
  };
  CHECK(nz(Tensor::from_values<std::int64_t>("v", {1}, {1})) == "INT64[2,4*N]");
  CHECK(nz(Tensor::from_values<float>("v", {1}, {1.0f}), false) == "INT64[1,N]");
  CHECK(nz(Tensor::from_values<float>("v", {1}, {std::numeric_limits<float>::quiet_NaN()}), false) == "INT64[1,N]");
  CHECK(nz(Tensor::from_values<bool>("v", {1}, {true}), false) == "INT64[1,N]");
  // Zeros (the default value is a float 0; -0.0 is 0 too): not every index.
  CHECK(nz(std::nullopt).rfind("INT64[2,unk__", 0) == 0);
  CHECK(nz(Tensor::from_values<float>("v", {1}, {-0.0f}), false).rfind("INT64[1,unk__", 0) == 0);
  CHECK(nz(Tensor::from_values<std::int32_t>("v", {1}, {0}), false).rfind("INT64[1,unk__", 0) == 0);

  // With a known length the indices themselves are known: 0, 1, 2 (+ 2) reshape to [2, 3, 4].
  std::vector<float> data(24, 0.0f);
  auto m = make_model({node("ConstantOfShape", {"three"}, {"c"}, {Attribute("value", Tensor::from_values<std::int64_t>("v", {1}, {7}))}),
                       node("NonZero", {"c"}, {"idx2"}), node("Squeeze", {"idx2", "zero1"}, {"idx"}),
                       node("Add", {"idx", "two"}, {"dims2"}),
                       node("Reshape", {"data", "dims2"}, {"r"})},
                      {}, {ints("three", {3}), ints("two", {2}, true), ints("zero1", {0}), Tensor::from_values<float>("data", {24}, std::span<const float>(data))},
                      13);
  auto rep = infer_shapes(m);
  CHECK_FALSE(rep.has_errors());
  CHECK(type_of(m, "r") == "FLOAT[2,3,4]");
}

TEST_CASE("Contents known in part: a shape slice concatenated with a size computed from data") {
  // target = Concat(Shape(x)[0:1], ReduceMax(len), [4]): N and 4 known, the middle set by data.
  const std::vector<In> in = {{"x", DataType::FLOAT, {"N", "S", "8"}}, {"len", DataType::INT64, {"N"}}};
  auto chain = [](std::vector<Node> tail) {
    std::vector<Node> n = {node("Shape", {"x"}, {"s"}), node("Slice", {"s", "sb", "se"}, {"s0"}),
                           node("ReduceMax", {"len"}, {"m"}, {Attribute("keepdims", 1)}),
                           node("Concat", {"s0", "m", "four"}, {"target"}, {Attribute("axis", 0)})};
    for (auto& t : tail) n.push_back(std::move(t));
    return n;
  };
  auto inits = [] { return std::vector<Tensor>{ints("sb", {0}), ints("se", {1}), ints("four", {4}), ints("two", {2})}; };
  SUBCASE("ConstantOfShape and Expand size the known entries") {
    auto r = run(chain({node("ConstantOfShape", {"target"}, {"z"}), node("Expand", {"y", "target"}, {"e"})}),
                 {in[0], in[1], {"y", DataType::FLOAT, {"1", "1", "4"}}}, inits());
    CHECK(r["target"] == "INT64[3]");
    CHECK(r["z"] == "FLOAT[N,unk__0,4]");
    CHECK(r["e"] == "FLOAT[N,unk__1,4]");
    CHECK(r.report.diagnostics.empty());
    // Expand broadcasts a known entry against the input (3 with 1 is 3); a 5 against 4 conflicts.
    auto r2 = run(chain({node("Expand", {"y", "target"}, {"e"})}), {in[0], in[1], {"y", DataType::FLOAT, {"5", "7", "4"}}},
                  inits());
    CHECK(r2["e"] == "FLOAT[5,7,4]");  // N must be 5 or 1: broadcasting with 5 gives 5
    auto r3 = run(chain({node("Expand", {"y", "target"}, {"e"})}), {in[0], in[1], {"y", DataType::FLOAT, {"1", "1", "5"}}},
                  inits());
    CHECK(r3.report.conflicts == 1);
  }
  SUBCASE("Reshape: known entries are sizes, 0 copies; the -1 entry depends on the unknown one") {
    auto r = run(chain({node("Reshape", {"x", "target"}, {"y"})}), in, inits());
    CHECK(r["y"] == "FLOAT[N,unk__0,4]");
    // [0, m, -1]: 0 copies N; -1 is not determined.
    auto r2 = run({node("ReduceMax", {"len"}, {"m"}, {Attribute("keepdims", 1)}),
                   node("Concat", {"zero", "m", "minus1"}, {"target"}, {Attribute("axis", 0)}),
                   node("Reshape", {"x", "target"}, {"y"})},
                  in, {ints("zero", {0}), ints("minus1", {-1})});
    CHECK(r2["y"] == "FLOAT[N,unk__0,unk__1]");
    // allowzero: a 0 entry is a 0 size.
    auto r3 = run({node("ReduceMax", {"len"}, {"m"}, {Attribute("keepdims", 1)}),
                   node("Concat", {"zero", "m"}, {"target"}, {Attribute("axis", 0)}),
                   node("Reshape", {"x", "target"}, {"y"}, {Attribute("allowzero", 1)})},
                  in, {ints("zero", {0})});
    CHECK(r3["y"] == "FLOAT[0,unk__0]");
    // Two -1 entries among the known ones: malformed.
    auto r4 = run({node("ReduceMax", {"len"}, {"m"}, {Attribute("keepdims", 1)}),
                   node("Concat", {"minus1", "m", "minus1"}, {"target"}, {Attribute("axis", 0)}),
                   node("Reshape", {"x", "target"}, {"y"})},
                  in, {ints("minus1", {-1})});
    CHECK(r4.report.nodes_failed == 1);
  }
  SUBCASE("Tile repeats and Resize sizes known in part") {
    auto r = run({node("ReduceMax", {"len"}, {"m"}, {Attribute("keepdims", 1)}),
                  node("Concat", {"one", "m", "two"}, {"reps"}, {Attribute("axis", 0)}),
                  node("Tile", {"x", "reps"}, {"t"})},
                 in, {ints("one", {1}), ints("two", {2})});
    CHECK(r["t"] == "FLOAT[N,unk__0,16]");
    auto r2 = run(chain({node("Resize", {"x", "", "", "target"}, {"y"})}), in, inits());
    CHECK(r2["y"] == "FLOAT[N,unk__0,4]");
    // Other keep_aspect_ratio_policy values scale every axis alike: nothing is known.
    auto r3 = run(chain({node("Resize", {"x", "", "", "target"}, {"y"}, {Attribute("keep_aspect_ratio_policy", "not_larger")})}),
                  in, inits());
    CHECK(r3["y"] == "FLOAT[unk__0,unk__1,unk__2]");
  }
  SUBCASE("torch's expand: the target through Reshape, Equal(target, -1) and Where; Cast and Gather") {
    auto r = run(chain({node("Reshape", {"target", "minus1"}, {"t1"}), node("Equal", {"t1", "m1s"}, {"eq"}),
                        node("Where", {"eq", "ones", "t1"}, {"w"}), node("Cast", {"w"}, {"wc"}, {Attribute("to", 7)}),
                        node("Gather", {"wc", "i0"}, {"g0"}), node("Gather", {"wc", "i1"}, {"g1"}),
                        node("Expand", {"y", "wc"}, {"e"})}),
                 {in[0], in[1], {"y", DataType::FLOAT, {"1", "1", "4"}}},
                 {ints("sb", {0}), ints("se", {1}), ints("four", {4}), ints("minus1", {-1}), ints("m1s", {-1, -1, -1}),
                  ints("ones", {1, 1, 1}), ints("i0", {0}, true), ints("i1", {1}, true)});
    CHECK(r["e"] == "FLOAT[N,unk__0,4]");
    // Gather of a known entry is contents again (Reshape by it is exact); of the unknown one is not.
    CHECK(r.report.diagnostics.empty());
    auto r2 = run(chain({node("Gather", {"target", "i0"}, {"g0"}), node("Gather", {"target", "i1"}, {"g1"}),
                         node("Unsqueeze", {"g0", "ax"}, {"u0"}), node("Unsqueeze", {"g1", "ax"}, {"u1"}),
                         node("Concat", {"u0", "u0"}, {"sq"}, {Attribute("axis", 0)}),
                         node("ConstantOfShape", {"sq"}, {"c0"}), node("Concat", {"u0", "u1"}, {"sq1"}, {Attribute("axis", 0)}),
                         node("ConstantOfShape", {"sq1"}, {"c1"})}),
                  in, {ints("sb", {0}), ints("se", {1}), ints("four", {4}), ints("i0", {0}, true), ints("i1", {1}, true), ints("ax", {0})});
    CHECK(r2["c0"] == "FLOAT[N,N]");
    CHECK(r2["c1"] == "FLOAT[N,unk__0]");
  }
  SUBCASE("torch's F.pad to a length computed from data: pads through Reshape [-1,2], Slice, Transpose") {
    // pads (0, m - L) extended to 6 entries, as rows [[0, p], [0, 0], [0, 0]], rows reversed,
    // transposed and flattened: begins [0, 0, 0], ends [0, 0, p] (and a known 1 before x's dim 1).
    auto r = run({node("ReduceMax", {"len"}, {"m"}, {Attribute("keepdims", 1)}),
                  node("Concat", {"zero", "m"}, {"pl"}, {Attribute("axis", 0)}),
                  node("Concat", {"pl", "rest"}, {"p6"}, {Attribute("axis", 0)}),
                  node("Reshape", {"p6", "rows"}, {"p32"}), node("Slice", {"p32", "st", "en", "ax", "stp"}, {"rev"}),
                  node("Transpose", {"rev"}, {"tr"}, {Attribute("perm", I{1, 0})}), node("Reshape", {"tr", "flat"}, {"pads"}),
                  node("Pad", {"x", "pads"}, {"y"})},
                 in, {ints("zero", {0}), ints("rest", {1, 0, 0, 0}), ints("rows", {-1, 2}), ints("st", {-1}),
                      ints("en", {kMin}), ints("ax", {0}), ints("stp", {-1}), ints("flat", {-1})});
    CHECK(r["pads"] == "INT64[6]");
    CHECK(r["y"] == "FLOAT[N,S+1,unk__0]");
    // The same pads written directly: [0, 1, 0 | 0, 0, p].
    auto r2 = run({node("ReduceMax", {"len"}, {"m"}, {Attribute("keepdims", 1)}),
                   node("Concat", {"zero", "one", "zero", "zero", "zero", "m"}, {"pads"}, {Attribute("axis", 0)}),
                   node("Pad", {"x", "pads"}, {"y"})},
                  in, {ints("zero", {0}), ints("one", {1})});
    CHECK(r2["y"] == "FLOAT[N,S+1,unk__0]");
  }
  SUBCASE("Nothing known: no contents; a rule that reads contents whole sees none") {
    // Concat of two unknown sizes: the output has no contents at all; Add of a known-in-part
    // tensor keeps the known entries, Range of a known-in-part bound sees none.
    auto r = run(chain({node("Add", {"target", "two"}, {"plus"}), node("ConstantOfShape", {"plus"}, {"z"})}), in, inits());
    CHECK(r["z"] == "FLOAT[N+2,unk__0,6]");
    auto r2 = run({node("ReduceMax", {"len"}, {"m"}, {Attribute("keepdims", 1)}),
                   node("Concat", {"m", "m"}, {"target"}, {Attribute("axis", 0)}), node("ConstantOfShape", {"target"}, {"z"})},
                  in);
    CHECK(r2["z"] == "FLOAT[unk__0,unk__1]");
  }
}

// Experimental operators ONNX 1.5 removed (opset 10) that opset 1-9 models still hold.
TEST_CASE("ConstantFill, GivenTensorFill and DynamicSlice (experimental operators of opsets 1-9)") {
  // ConstantFill: dtype sets the element type; the shape is `shape`, or the input's contents
  // (input_as_shape) or shape, with extra_shape appended.
  auto r = run({node("ConstantFill", {}, {"y"}, {Attribute("shape", I{2, 3}), Attribute("dtype", std::int64_t{7})})}, {}, {}, 8);
  CHECK(r["y"] == "INT64[2,3]");
  r = run({node("Shape", {"x"}, {"s"}), node("ConstantFill", {"s"}, {"y"}, {Attribute("input_as_shape", std::int64_t{1}),
                                                                           Attribute("extra_shape", I{4})})},
          {{"x", DataType::FLOAT, {"N", "L"}}}, {}, 8);
  CHECK(r["y"] == "FLOAT[N,L,4]");
  r = run({node("ConstantFill", {"x"}, {"y"}, {Attribute("extra_shape", I{2}), Attribute("dtype", std::int64_t{9})})},
          {{"x", DataType::FLOAT, {"N", "L"}}}, {}, 8);
  CHECK(r["y"] == "BOOL[N,L,2]");
  r = run({node("ConstantFill", {"x"}, {"y"}, {Attribute("input_as_shape", std::int64_t{1})})}, {{"x", DataType::INT64, {"3"}}}, {}, 8);
  CHECK(r["y"] == "FLOAT[unk__0,unk__1,unk__2]");  // contents unknown, length 3
  CHECK(r.report.nodes_failed == 0);
  r = run({node("ConstantFill", {}, {"y"}, {Attribute("dtype", std::int64_t{8})})}, {}, {}, 8);  // STRING: not allowed
  CHECK(r.report.nodes_failed == 1);
  r = run({node("ConstantFill", {}, {"y"}, {Attribute("shape", I{2, -1})})}, {}, {}, 8);
  CHECK(r.report.nodes_failed == 1);

  // GivenTensorFill: its input's element type.
  r = run({node("GivenTensorFill", {"x"}, {"y"}, {Attribute("extra_shape", I{5})})}, {{"x", DataType::DOUBLE, {"N"}}}, {}, 8);
  CHECK(r["y"] == "DOUBLE[N,5]");
  r = run({node("GivenTensorFill", {"x"}, {"y"}, {Attribute("shape", I{4})})}, {{"x", DataType::FLOAT, {"N"}}}, {}, 8);
  CHECK(r["y"] == "FLOAT[4]");

  // DynamicSlice: Slice-10 without steps, under any opset.
  r = run({node("DynamicSlice", {"x", "s", "e", "a"}, {"y"})}, {{"x", DataType::FLOAT, {"N", "L", "8"}}},
          {ints("s", {2, 1}), ints("e", {kMax, 5}), ints("a", {2, 0})}, 8);
  CHECK(r["y"] == "FLOAT[max(0,min(N,5)-min(N,1)),L,6]");
  r = run({node("DynamicSlice", {"x", "s", "e", "a", "st"}, {"y"})}, {{"x", DataType::FLOAT, {"N", "L", "8"}}},
          {ints("s", {2}), ints("e", {5}), ints("a", {2}), ints("st", {1})}, 8);
  CHECK(r.report.nodes_failed == 1);  // no steps input
}

}  // namespace oxir_unit_test_infer_shape
