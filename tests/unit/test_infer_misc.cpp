// Inference rules of sequences, optionals, ai.onnx.ml and ai.onnx.preview.training.
#include <doctest/doctest.h>

#include "infer_test_util.hpp"

namespace oxir_unit_test_infer_misc {

using namespace oxir;
using namespace oxir_test;

namespace {

const char* const ML = "ai.onnx.ml";
const char* const TR = "ai.onnx.preview.training";

Node node(std::string op, std::vector<std::string> in, std::vector<std::string> out, std::vector<Attribute> attrs = {},
          std::string domain = {}) {
  Node n(std::move(op), std::move(in), std::move(out), {}, std::move(domain));
  for (auto& a : attrs) n.set_attribute(std::move(a));
  return n;
}

struct Run {
  Model model;
  InferReport report;
  [[nodiscard]] std::string t(const std::string& v) const { return type_of(model, v); }
};

/// Infers a model of `nodes`; every node output is a graph output (so that it is printed).
Run run(std::vector<Node> nodes, const std::vector<In>& inputs, std::vector<Tensor> inits = {}, std::int64_t opset = 21,
        std::int64_t ml = 3, std::vector<ValueInfo> extra_inputs = {}) {
  Run r;
  r.model = make_model(std::move(nodes), inputs, std::move(inits), opset);
  r.model.set_opset_version(ML, ml);
  r.model.set_opset_version(TR, 1);
  for (auto& v : extra_inputs) r.model.graph.inputs.push_back(std::move(v));
  r.model.graph.outputs.clear();
  for (const auto& n : r.model.graph.nodes)
    for (const auto& o : n.outputs)
      if (!o.empty()) {
        ValueInfo v;
        v.name = o;
        r.model.graph.outputs.push_back(v);
      }
  r.report = infer_shapes(r.model);
  return r;
}

Type tensor_type(DataType e, std::optional<std::vector<std::string>> dims) {
  return *value_info_of(In{"x", e, dims ? *dims : std::vector<std::string>{}, dims.has_value()}).type;
}
ValueInfo typed_input(std::string name, Type t) {
  ValueInfo v;
  v.name = std::move(name);
  v.type = std::move(t);
  return v;
}
Type seq_of(Type t) {
  SequenceType s;
  s.elem_type = Box<Type>(std::move(t));
  return Type(std::move(s));
}
Type map_of(DataType k, Type v) {
  MapType m;
  m.key_type = k;
  m.value_type = Box<Type>(std::move(v));
  return Type(std::move(m));
}

}  // namespace

// ============================================================================================
// Sequences

TEST_CASE("Sequences end to end: SplitToSequence -> SequenceAt -> ConcatFromSequence") {
  auto r = run({node("SplitToSequence", {"x", "two"}, {"s"}, {Attribute("axis", 1)}),
                node("SequenceAt", {"s", "zero"}, {"e"}),
                node("ConcatFromSequence", {"s"}, {"c"}, {Attribute("axis", 1)}),
                node("ConcatFromSequence", {"s"}, {"st"}, {Attribute("axis", 0), Attribute("new_axis", 1)}),
                node("ConcatFromSequence", {"s"}, {"lastnew"}, {Attribute("axis", -1), Attribute("new_axis", 1)}),
                node("SequenceLength", {"s"}, {"len"})},
               {{"x", DataType::FLOAT, {"N", "6"}}}, {ints("two", {2}, true), ints("zero", {0}, true)});
  CHECK(r.report.nodes_failed == 0);
  // 6 splits evenly in chunks of 2: every element is [N,2].
  CHECK(r.t("s") == "seq(FLOAT[N,2])");
  CHECK(r.t("e") == "FLOAT[N,2]");
  // 3 elements of [N,2]: concatenating along axis 1 gives back [N,6]; stacking adds an axis of 3.
  CHECK(r.t("c") == "FLOAT[N,6]");
  CHECK(r.t("st") == "FLOAT[3,N,2]");
  CHECK(r.t("lastnew") == "FLOAT[N,2,3]");
  CHECK(r.t("len") == "INT64[]");
}

TEST_CASE("SequenceAt of equal chunks keeps the tensor's own unknown sizes; of other sequences not") {
  // NonZero gives [2, unk__0]; its chunks along axis 0 are all [1, unk__0] (one tensor's size),
  // so an element taken out has that size, not a new symbol.
  auto r = run({node("NonZero", {"x"}, {"nz"}), node("SplitToSequence", {"nz"}, {"s"}, {Attribute("axis", 0)}),
                node("SequenceAt", {"s", "zero"}, {"e"}), node("Add", {"e", "nz"}, {"sum"})},
               {{"x", DataType::FLOAT, {"3", "4"}}}, {ints("zero", {0}, true)});
  CHECK(r.t("nz") == "INT64[2,unk__0]");
  CHECK(r.t("e") == "INT64[1,unk__0]");
  CHECK(r.t("sum") == "INT64[2,unk__0]");
  // Chunks of 2 along an axis of 5 (the last is smaller) or of unknown split sizes: the axis
  // differs between elements, so the element taken out gets a new symbol there.
  auto r2 = run({node("NonZero", {"x"}, {"nz"}), node("SplitToSequence", {"nz", "two"}, {"s"}, {Attribute("axis", 1)}),
                 node("SequenceAt", {"s", "zero"}, {"e"})},
                {{"x", DataType::FLOAT, {"3", "4"}}}, {ints("zero", {0}, true), ints("two", {2}, true)});
  CHECK(r2.t("s") == "seq(INT64[2,unk__1])");
  CHECK(r2.t("e") == "INT64[2,unk__2]");
  // A sequence built of two tensors of unknown sizes: each element has its own.
  auto r3 = run({node("NonZero", {"x"}, {"a"}), node("NonZero", {"y"}, {"b"}), node("SequenceConstruct", {"a", "b"}, {"s"}),
                 node("SequenceAt", {"s", "zero"}, {"e"})},
                {{"x", DataType::FLOAT, {"3", "4"}}, {"y", DataType::FLOAT, {"5"}}}, {ints("zero", {0}, true)});
  CHECK(r3.t("e").rfind("INT64[unk__", 0) == 0);
  CHECK(r3.t("e") != r3.t("a"));
}

TEST_CASE("SplitToSequence: split absent, scalar, 1-D; keepdims; malformed") {
  SUBCASE("no split: chunks of 1, keepdims") {
    auto r = run({node("SplitToSequence", {"x"}, {"k"}, {Attribute("axis", 1)}),
                  node("SplitToSequence", {"x"}, {"d"}, {Attribute("axis", -2), Attribute("keepdims", 0)})},
                 {{"x", DataType::INT32, {"N", "3", "K"}}});
    CHECK(r.t("k") == "seq(INT32[N,1,K])");
    CHECK(r.t("d") == "seq(INT32[N,K])");
  }
  SUBCASE("scalar split that does not divide: the axis size differs between elements") {
    auto r = run({node("SplitToSequence", {"x", "four"}, {"s"}, {Attribute("keepdims", 0)}),
                  node("SequenceAt", {"s", "zero"}, {"a"}), node("SequenceAt", {"s", "zero"}, {"b"})},
                 {{"x", DataType::FLOAT, {"6", "M"}}}, {ints("four", {4}, true), ints("zero", {0}, true)});
    // keepdims is ignored when split is given.
    CHECK(r.t("s") == "seq(FLOAT[unk__0,M])");
    // Two elements taken out are not claimed to be of equal size along the split axis.
    CHECK(r.t("a") == "FLOAT[unk__1,M]");
    CHECK(r.t("b") == "FLOAT[unk__2,M]");
  }
  SUBCASE("scalar split larger than the axis: one chunk") {
    auto r = run({node("SplitToSequence", {"x", "s"}, {"o"})}, {{"x", DataType::FLOAT, {"3", "M"}}},
                 {ints("s", {8}, true)});
    CHECK(r.t("o") == "seq(FLOAT[3,M])");
  }
  SUBCASE("scalar split of an axis of 2^63-1: the element count is ceil'd without overflow") {
    // tests/fuzz/regressions/split_to_sequence_chunk_count_overflow.onnx: (d + s - 1) / s
    // overflowed int64 for d = 2^63-1.
    auto r = run({node("SplitToSequence", {"x", "two"}, {"s"}),
                  node("ConcatFromSequence", {"s"}, {"st"}, {Attribute("axis", 0), Attribute("new_axis", 1)})},
                 {{"x", DataType::FLOAT, {"9223372036854775807", "W"}}}, {ints("two", {2}, true)});
    CHECK(r.t("st") == "FLOAT[4611686018427387904,unk__0,W]");
  }
  SUBCASE("1-D split: equal parts give the part size; the sum must match") {
    auto r = run({node("SplitToSequence", {"x", "sp"}, {"o"}, {Attribute("axis", 1)}),
                  node("SplitToSequence", {"x", "sq"}, {"p"}, {Attribute("axis", 1)})},
                 {{"x", DataType::FLOAT, {"N", "M"}}}, {ints("sp", {2, 2, 2}), ints("sq", {1, 5})});
    // Splitting into [2,2,2] forces M = 6, and then [1,5] also sums to 6.
    CHECK(r.t("o") == "seq(FLOAT[N,2])");
    CHECK(r.t("p") == "seq(FLOAT[N,unk__0])");
    CHECK(r.report.conflicts == 0);
  }
  SUBCASE("1-D split not summing to the axis size is a conflict") {
    auto r = run({node("SplitToSequence", {"x", "sp"}, {"o"})}, {{"x", DataType::FLOAT, {"5"}}}, {ints("sp", {2, 2})});
    CHECK(r.report.conflicts == 1);
  }
  SUBCASE("split of unknown contents") {
    auto r = run({node("SplitToSequence", {"x", "sp"}, {"o"})},
                 {{"x", DataType::FLOAT, {"N", "3"}}, {"sp", DataType::INT64, {"2"}}});
    CHECK(r.t("o") == "seq(FLOAT[unk__0,3])");
  }
  SUBCASE("unknown rank, bad axis, bad split") {
    auto r = run({node("SplitToSequence", {"x"}, {"o"})}, {{"x", DataType::FLOAT, {}, false}});
    CHECK(r.t("o") == "seq(FLOAT[*])");
    auto bad = run({node("SplitToSequence", {"x"}, {"o"}, {Attribute("axis", 2)})}, {{"x", DataType::FLOAT, {"N", "3"}}});
    CHECK(bad.report.nodes_failed == 1);
    auto neg = run({node("SplitToSequence", {"x", "s"}, {"o"})}, {{"x", DataType::FLOAT, {"4"}}}, {ints("s", {0}, true)});
    CHECK(neg.report.nodes_failed == 1);
    auto r2 = run({node("SplitToSequence", {"x", "s"}, {"o"})},
                  {{"x", DataType::FLOAT, {"4"}}, {"s", DataType::INT64, {"2", "2"}}});
    CHECK(r2.report.nodes_failed == 1);
    auto old = run({node("SplitToSequence", {"x"}, {"o"})}, {{"x", DataType::FLOAT, {"4"}}}, {}, 10);
    CHECK(old.report.nodes_failed == 1);
  }
}

TEST_CASE("SequenceConstruct: the common type of the inputs") {
  auto r = run({node("SequenceConstruct", {"a", "b"}, {"s"}), node("SequenceConstruct", {"a", "a"}, {"same"}),
                node("SequenceConstruct", {"a", "c"}, {"ranks"}), node("SequenceAt", {"s", "i"}, {"e"}),
                node("SequenceAt", {"same", "i"}, {"f"})},
               {{"a", DataType::FLOAT, {"N", "3"}},
                {"b", DataType::FLOAT, {"N", "4"}},
                {"c", DataType::FLOAT, {"N"}},
                {"i", DataType::INT64, {}}});
  CHECK(r.t("s") == "seq(FLOAT[N,unk__0])");
  CHECK(r.t("same") == "seq(FLOAT[N,3])");
  CHECK(r.t("ranks") == "seq(FLOAT[*])");
  CHECK(r.t("e") == "FLOAT[N,unk__1]");
  CHECK(r.t("f") == "FLOAT[N,3]");
  CHECK(r.report.nodes_failed == 0);

  auto mixed = run({node("SequenceConstruct", {"a", "b"}, {"s"})},
                   {{"a", DataType::FLOAT, {"N"}}, {"b", DataType::INT64, {"N"}}});
  CHECK(mixed.report.nodes_failed == 1);
  auto none = run({node("SequenceConstruct", {}, {"s"})}, {});
  CHECK(none.report.nodes_failed == 1);
  auto bad_pos = run({node("SequenceConstruct", {"a"}, {"s"}), node("SequenceAt", {"s", "p"}, {"e"})},
                     {{"a", DataType::FLOAT, {"N"}}, {"p", DataType::INT64, {"2"}}});
  CHECK(bad_pos.report.nodes_failed == 1);
  // A one-element vector is accepted as a position (the onnx backend tests use [1]); a vector
  // of unknown length too; a matrix is not.
  for (const auto& p : std::vector<std::vector<std::string>>{{"1"}, {"K"}}) {
    auto one = run({node("SequenceConstruct", {"a"}, {"s"}), node("SequenceAt", {"s", "p"}, {"e"}),
                    node("SequenceInsert", {"s", "a", "p"}, {"t"}), node("SequenceErase", {"s", "p"}, {"u"})},
                   {{"a", DataType::FLOAT, {"N"}}, {"p", DataType::INT64, p}});
    CHECK(one.report.nodes_failed == 0);
    CHECK(one.t("e") == "FLOAT[N]");
    CHECK(one.t("t") == "seq(FLOAT[N])");
  }
  auto matrix = run({node("SequenceConstruct", {"a"}, {"s"}), node("SequenceInsert", {"s", "a", "p"}, {"t"})},
                    {{"a", DataType::FLOAT, {"N"}}, {"p", DataType::INT64, {"1", "1"}}});
  CHECK(matrix.report.nodes_failed == 1);
}

TEST_CASE("SequenceEmpty, SequenceInsert, SequenceErase") {
  auto r = run({node("SequenceEmpty", {}, {"empty"}, {Attribute("dtype", std::int64_t(7))}),
                node("SequenceEmpty", {}, {"fempty"}), node("SequenceInsert", {"empty", "i"}, {"ins"}),
                node("SequenceConstruct", {"a"}, {"s"}), node("SequenceInsert", {"s", "a", "pos"}, {"ins2"}),
                node("SequenceInsert", {"s", "b"}, {"ins3"}), node("SequenceErase", {"ins2"}, {"er"}),
                node("SequenceErase", {"ins3", "pos"}, {"er2"})},
               {{"a", DataType::FLOAT, {"N", "3"}},
                {"b", DataType::FLOAT, {"N", "5"}},
                {"i", DataType::INT64, {"K"}},
                {"pos", DataType::INT64, {}}});
  CHECK(r.t("empty") == "seq(INT64[*])");
  CHECK(r.t("fempty") == "seq(FLOAT[*])");
  // An empty sequence has no elements: after the insertion its one element is exactly [K].
  CHECK(r.t("ins") == "seq(INT64[K])");
  CHECK(r.t("ins2") == "seq(FLOAT[N,3])");
  CHECK(r.t("ins3") == "seq(FLOAT[N,unk__0])");
  CHECK(r.t("er") == "seq(FLOAT[N,3])");
  CHECK(r.t("er2") == "seq(FLOAT[N,unk__0])");
  CHECK(r.report.nodes_failed == 0);

  auto wrong = run({node("SequenceEmpty", {}, {"e"}), node("SequenceInsert", {"e", "i"}, {"o"})},
                   {{"i", DataType::INT64, {"K"}}});
  CHECK(wrong.report.nodes_failed == 1);  // FLOAT sequence, INT64 tensor
  auto bad_dtype = run({node("SequenceEmpty", {}, {"e"}, {Attribute("dtype", std::int64_t(99))})}, {});
  CHECK(bad_dtype.report.nodes_failed == 1);
  auto not_seq = run({node("SequenceErase", {"a"}, {"o"})}, {{"a", DataType::FLOAT, {"N"}}});
  CHECK(not_seq.report.nodes_failed == 1);
}

TEST_CASE("SplitToSequence: the number of elements reaches ConcatFromSequence") {
  // no split: one element per index, N of them
  auto r = run({node("SplitToSequence", {"x"}, {"s"}, {Attribute("axis", 0), Attribute("keepdims", 0)}),
                node("ConcatFromSequence", {"s"}, {"back"}, {Attribute("axis", 0), Attribute("new_axis", 1)}),
                node("SplitToSequence", {"x", "parts"}, {"p"}, {Attribute("axis", 1)}),
                node("ConcatFromSequence", {"p"}, {"pst"}, {Attribute("axis", 0), Attribute("new_axis", 1)}),
                node("SplitToSequence", {"x", "three"}, {"q"}, {Attribute("axis", 1)}),
                node("ConcatFromSequence", {"q"}, {"qst"}, {Attribute("axis", 0), Attribute("new_axis", 1)})},
               {{"x", DataType::FLOAT, {"N", "7"}}, {"parts", DataType::INT64, {"2"}}}, {ints("three", {3}, true)});
  CHECK(r.report.nodes_failed == 0);
  CHECK(r.t("back") == "FLOAT[N,7]");
  // a 1-D split of unknown values with 2 entries: 2 elements of unknown width
  CHECK(r.t("pst").starts_with("FLOAT[2,N,unk__"));
  // 7 in chunks of 3: 3 elements (3, 3, 1), so the stacked width is unknown but the count is not
  CHECK(r.t("qst").starts_with("FLOAT[3,N,unk__"));
}

TEST_CASE("ConcatFromSequence: known element count; a symbolic axis size stays unknown") {
  auto r = run({node("SequenceConstruct", {"a", "b", "c"}, {"s"}),
                node("ConcatFromSequence", {"s"}, {"stack"}, {Attribute("axis", -1), Attribute("new_axis", 1)}),
                node("ConcatFromSequence", {"s"}, {"cat0"}, {Attribute("axis", 0)}),
                node("ConcatFromSequence", {"s"}, {"cat1"}, {Attribute("axis", 1)})},
               {{"a", DataType::FLOAT, {"4", "N"}}, {"b", DataType::FLOAT, {"4", "N"}}, {"c", DataType::FLOAT, {"4", "N"}}});
  CHECK(r.report.nodes_failed == 0);
  CHECK(r.t("stack") == "FLOAT[4,N,3]");
  CHECK(r.t("cat0") == "FLOAT[12,N]");
  // N is every element's size here, but the rule does not claim 3*N from a symbol in the element
  // type (a joined type may carry one symbol for sizes that differ).
  CHECK(r.t("cat1") == "FLOAT[4,unk__0]");
  // Elements whose size along the axis differs: joined to a fresh symbol, the sum stays unknown.
  auto d = run({node("SequenceConstruct", {"a", "b"}, {"s"}), node("ConcatFromSequence", {"s"}, {"cat"}, {Attribute("axis", 0)})},
               {{"a", DataType::FLOAT, {"2", "5"}}, {"b", DataType::FLOAT, {"3", "5"}}});
  CHECK(d.t("cat").ends_with(",5]"));
  CHECK(d.t("cat").starts_with("FLOAT[unk__"));
}

TEST_CASE("Sequence graph inputs: declared element type") {
  auto r = run({node("SequenceAt", {"s", "i"}, {"e"}), node("ConcatFromSequence", {"s"}, {"c"}, {Attribute("axis", 0)}),
                node("SequenceLength", {"s"}, {"n"})},
               {{"i", DataType::INT64, {}}}, {}, 21, 3,
               {typed_input("s", seq_of(tensor_type(DataType::FLOAT16, std::vector<std::string>{"B", "7"})))});
  CHECK(r.t("e") == "FLOAT16[B,7]");
  CHECK(r.t("c") == "FLOAT16[unk__0,7]");
  CHECK(r.t("n") == "INT64[]");
  auto no_axis = run({node("ConcatFromSequence", {"s"}, {"c"})}, {}, {}, 21, 3,
                     {typed_input("s", seq_of(tensor_type(DataType::FLOAT, std::vector<std::string>{"B"})))});
  CHECK(no_axis.report.nodes_failed == 1);
  auto scalar = run({node("ConcatFromSequence", {"s"}, {"c"}, {Attribute("axis", 0)}),
                     node("ConcatFromSequence", {"s"}, {"d"}, {Attribute("axis", 0), Attribute("new_axis", 1)})},
                    {}, {}, 21, 3, {typed_input("s", seq_of(tensor_type(DataType::FLOAT, std::vector<std::string>{})))});
  CHECK(scalar.report.nodes_failed == 1);  // scalars cannot be concatenated, only stacked
  CHECK(scalar.t("d") == "FLOAT[unk__0]");
}

// ============================================================================================
// Optionals

TEST_CASE("Optional, OptionalHasElement, OptionalGetElement") {
  auto r = run({node("Optional", {"x"}, {"o"}), node("OptionalHasElement", {"o"}, {"has"}),
                node("OptionalGetElement", {"o"}, {"g"}),
                node("Optional", {}, {"none"}, {Attribute("type", seq_of(tensor_type(DataType::INT32, std::nullopt)))}),
                node("OptionalGetElement", {"none"}, {"gs"}), node("OptionalGetElement", {"x"}, {"pass"}),
                node("OptionalHasElement", {"x"}, {"hx"})},
               {{"x", DataType::FLOAT, {"N", "2"}}}, {}, 18);
  CHECK(r.t("o") == "opt(FLOAT[N,2])");
  CHECK(r.t("has") == "BOOL[]");
  CHECK(r.t("g") == "FLOAT[N,2]");
  CHECK(r.t("none") == "opt(seq(INT32[*]))");
  CHECK(r.t("gs") == "seq(INT32[*])");
  CHECK(r.t("pass") == "FLOAT[N,2]");  // opset 18: tensors pass through
  CHECK(r.t("hx") == "BOOL[]");
  CHECK(r.report.nodes_failed == 0);

  auto v15 = run({node("OptionalGetElement", {"x"}, {"g"}), node("OptionalHasElement", {"x"}, {"h"})},
                 {{"x", DataType::FLOAT, {"N"}}}, {}, 15);
  CHECK(v15.report.nodes_failed == 2);  // opset 15: only optionals
  auto no_type = run({node("Optional", {}, {"o"})}, {}, {}, 18);
  CHECK(no_type.report.nodes_failed == 1);
  auto too_old = run({node("Optional", {"x"}, {"o"})}, {{"x", DataType::FLOAT, {"N"}}}, {}, 14);
  CHECK(too_old.report.nodes_failed == 1);
  auto nested = run({node("Optional", {"x"}, {"o"}), node("Optional", {"o"}, {"oo"})}, {{"x", DataType::FLOAT, {"N"}}},
                    {}, 18);
  CHECK(nested.report.nodes_failed == 1);
}

// ============================================================================================
// ai.onnx.ml

TEST_CASE("ml: LinearClassifier and LinearRegressor with a symbolic batch") {
  auto r = run({node("LinearClassifier", {"x"}, {"y", "z"},
                     {Attribute("coefficients", std::vector<float>(12, 1.f)),
                      Attribute("intercepts", std::vector<float>{0.f, 0.f, 0.f}),
                      Attribute("classlabels_strings", std::vector<std::string>{"a", "b", "c"})},
                     ML),
                node("LinearClassifier", {"x"}, {"yb", "zb"},
                     {Attribute("coefficients", std::vector<float>(4, 1.f)), Attribute("intercepts", std::vector<float>{0.f}),
                      Attribute("classlabels_ints", std::vector<std::int64_t>{0, 1})},
                     ML),
                node("LinearRegressor", {"x"}, {"r"},
                     {Attribute("coefficients", std::vector<float>(8, 1.f)), Attribute("targets", 2)}, ML),
                node("LinearRegressor", {"x"}, {"r1"}, {}, ML),
                node("LinearClassifier", {"v"}, {"y1", "z1"},
                     {Attribute("coefficients", std::vector<float>(4, 1.f)),
                      Attribute("intercepts", std::vector<float>{0.f, 0.f}),
                      Attribute("classlabels_ints", std::vector<std::int64_t>{3, 4})},
                     ML)},
               {{"x", DataType::FLOAT, {"N", "4"}}, {"v", DataType::DOUBLE, {"2"}}});
  CHECK(r.t("y") == "STRING[N]");
  CHECK(r.t("z") == "FLOAT[N,3]");
  // Binary case: one weight row, two labels, two score columns.
  CHECK(r.t("yb") == "INT64[N]");
  CHECK(r.t("zb") == "FLOAT[N,2]");
  CHECK(r.t("r") == "FLOAT[N,2]");
  CHECK(r.t("r1") == "FLOAT[N,1]");
  CHECK(r.t("y1") == "INT64[1]");  // a 1-D input is one example
  CHECK(r.t("z1") == "FLOAT[1,2]");
  CHECK(r.report.nodes_failed == 0);
  CHECK(r.report.conflicts == 0);

  // 8 coefficients for 2 classes mean 4 features: 5 is a conflict.
  auto bad = run({node("LinearClassifier", {"x"}, {"y", "z"},
                       {Attribute("coefficients", std::vector<float>(8, 1.f)),
                        Attribute("intercepts", std::vector<float>{0.f, 0.f})},
                       ML)},
                 {{"x", DataType::FLOAT, {"N", "5"}}});
  CHECK(bad.report.conflicts == 1);
  auto no_coef = run({node("LinearClassifier", {"x"}, {"y", "z"}, {}, ML)}, {{"x", DataType::FLOAT, {"N", "5"}}});
  CHECK(no_coef.report.nodes_failed == 1);
  auto rank3 = run({node("LinearRegressor", {"x"}, {"y"}, {}, ML)}, {{"x", DataType::FLOAT, {"N", "5", "2"}}});
  CHECK(rank3.report.nodes_failed == 1);
  auto strx = run({node("LinearRegressor", {"x"}, {"y"}, {}, ML)}, {{"x", DataType::STRING, {"N", "5"}}});
  CHECK(strx.report.nodes_failed == 1);
  auto unknown = run({node("LinearRegressor", {"x"}, {"y"}, {Attribute("targets", 3)}, ML)},
                     {{"x", DataType::FLOAT, {}, false}});
  CHECK(unknown.t("y") == "FLOAT[unk__0,3]");
}

TEST_CASE("ml: SVM and tree ensembles") {
  auto r = run({node("SVMClassifier", {"x"}, {"y", "z"}, {Attribute("classlabels_ints", std::vector<std::int64_t>{1, 2, 3})},
                     ML),
                node("SVMRegressor", {"x"}, {"s"}, {}, ML),
                node("TreeEnsembleClassifier", {"x"}, {"ty", "tz"},
                     {Attribute("classlabels_strings", std::vector<std::string>{"a", "b", "c", "d"})}, ML),
                node("TreeEnsembleRegressor", {"x"}, {"tr"}, {Attribute("n_targets", 2)}, ML),
                node("TreeEnsembleRegressor", {"x"}, {"tr0"}, {}, ML)},
               {{"x", DataType::INT64, {"N", "F"}}});
  CHECK(r.t("y") == "INT64[N]");
  CHECK(r.t("z") == "FLOAT[N,unk__0]");  // columns depend on the SVM mode
  CHECK(r.t("s") == "FLOAT[N,1]");
  CHECK(r.t("ty") == "STRING[N]");
  CHECK(r.t("tz") == "FLOAT[N,4]");
  CHECK(r.t("tr") == "FLOAT[N,2]");
  CHECK(r.t("tr0") == "FLOAT[N,unk__1]");
  CHECK(r.report.nodes_failed == 0);

  auto te = run({node("TreeEnsemble", {"x"}, {"y"}, {Attribute("n_targets", 3)}, ML)},
                {{"x", DataType::DOUBLE, {"N", "F"}}}, {}, 21, 5);
  CHECK(te.t("y") == "DOUBLE[N,3]");
  auto te_old = run({node("TreeEnsemble", {"x"}, {"y"}, {Attribute("n_targets", 3)}, ML)},
                    {{"x", DataType::DOUBLE, {"N", "F"}}}, {}, 21, 3);
  CHECK(te_old.report.nodes_failed == 1);
  auto te_int = run({node("TreeEnsemble", {"x"}, {"y"}, {}, ML)}, {{"x", DataType::INT64, {"N", "F"}}}, {}, 21, 5);
  CHECK(te_int.report.nodes_failed == 1);
  auto both = run({node("TreeEnsembleClassifier", {"x"}, {"y", "z"},
                        {Attribute("classlabels_strings", std::vector<std::string>{"a"}),
                         Attribute("classlabels_int64s", std::vector<std::int64_t>{1})},
                        ML)},
                  {{"x", DataType::FLOAT, {"N", "F"}}});
  CHECK(both.report.nodes_failed == 1);
}

TEST_CASE("ml: elementwise-like transforms") {
  auto r = run({node("Binarizer", {"x"}, {"b"}, {Attribute("threshold", 0.5f)}, ML), node("Imputer", {"i"}, {"im"}, {}, ML),
                node("Normalizer", {"i"}, {"n"}, {Attribute("norm", "L2")}, ML), node("Scaler", {"i"}, {"s"}, {}, ML),
                node("OneHotEncoder", {"i"}, {"oh"}, {Attribute("cats_int64s", std::vector<std::int64_t>{1, 2, 3})}, ML),
                node("CategoryMapper", {"str"}, {"cm"}, {}, ML), node("CategoryMapper", {"i"}, {"cm2"}, {}, ML),
                node("ArrayFeatureExtractor", {"x", "idx"}, {"afe"}, {}, ML),
                node("ArrayFeatureExtractor", {"x", "idx2"}, {"afe2"}, {}, ML),
                node("ArrayFeatureExtractor", {"str", "idx"}, {"afe1"}, {}, ML),
                node("FeatureVectorizer", {"x", "i"}, {"fv"}, {Attribute("inputdimensions", std::vector<std::int64_t>{5, 3})},
                     ML),
                node("ZipMap", {"p"}, {"zm"}, {Attribute("classlabels_int64s", std::vector<std::int64_t>{0, 1})}, ML),
                node("ZipMap", {"p"}, {"zs"}, {Attribute("classlabels_strings", std::vector<std::string>{"a", "b"})}, ML)},
               {{"x", DataType::DOUBLE, {"N", "C", "5"}},
                {"i", DataType::INT64, {"N", "3"}},
                {"str", DataType::STRING, {"N"}},
                {"idx", DataType::INT64, {"K"}},
                {"idx2", DataType::INT64, {"2", "3"}},
                {"p", DataType::FLOAT, {"N", "?"}}});
  CHECK(r.t("b") == "DOUBLE[N,C,5]");
  CHECK(r.t("im") == "INT64[N,3]");
  CHECK(r.t("n") == "FLOAT[N,3]");
  CHECK(r.t("s") == "FLOAT[N,3]");
  CHECK(r.t("oh") == "FLOAT[N,3,3]");
  CHECK(r.t("cm") == "INT64[N]");
  CHECK(r.t("cm2") == "STRING[N,3]");
  CHECK(r.t("afe") == "DOUBLE[N,C,K]");
  CHECK(r.t("afe2") == "DOUBLE[N,C,6]");
  CHECK(r.t("afe1") == "STRING[*]");
  CHECK(r.t("fv") == "FLOAT[N,8]");
  CHECK(r.t("zm") == "seq(map(INT64,FLOAT[*]))");
  CHECK(r.t("zs") == "seq(map(STRING,FLOAT[*]))");
  CHECK(r.report.nodes_failed == 0);
  CHECK(r.report.conflicts == 0);

  auto fv_free = run({node("FeatureVectorizer", {"v", "u"}, {"o"}, {}, ML)},
                    {{"v", DataType::INT32, {"4"}}, {"u", DataType::FLOAT, {"1", "2"}}});
  CHECK(fv_free.t("o") == "FLOAT[1,unk__0]");  // widths not given: not determined
  auto zip_bad = run({node("ZipMap", {"p"}, {"z"}, {Attribute("classlabels_int64s", std::vector<std::int64_t>{0, 1})}, ML)},
                     {{"p", DataType::FLOAT, {"N", "3"}}});
  CHECK(zip_bad.report.conflicts == 1);
  auto oh_none = run({node("OneHotEncoder", {"i"}, {"o"}, {}, ML)}, {{"i", DataType::INT64, {"N"}}});
  CHECK(oh_none.report.nodes_failed == 1);
  auto fv_bad = run({node("FeatureVectorizer", {"x"}, {"o"}, {Attribute("inputdimensions", std::vector<std::int64_t>{1, 2})},
                          ML)},
                    {{"x", DataType::FLOAT, {"N", "1"}}});
  CHECK(fv_bad.report.nodes_failed == 1);
  auto norm_bad = run({node("Normalizer", {"x"}, {"o"}, {Attribute("norm", "L3")}, ML)}, {{"x", DataType::FLOAT, {"N", "1"}}});
  CHECK(norm_bad.report.nodes_failed == 1);
}

TEST_CASE("ml: LabelEncoder versions decide the output type") {
  auto v1 = run({node("LabelEncoder", {"s"}, {"a"}, {}, ML), node("LabelEncoder", {"i"}, {"b"}, {}, ML)},
                {{"s", DataType::STRING, {"N"}}, {"i", DataType::INT64, {"N", "2"}}}, {}, 21, 1);
  CHECK(v1.t("a") == "INT64[N]");
  CHECK(v1.t("b") == "STRING[N,2]");

  auto v2 = run({node("LabelEncoder", {"s"}, {"a"},
                      {Attribute("keys_strings", std::vector<std::string>{"x"}),
                       Attribute("values_floats", std::vector<float>{1.f})},
                      ML),
                 node("LabelEncoder", {"i"}, {"b"},
                      {Attribute("keys_int64s", std::vector<std::int64_t>{1}),
                       Attribute("values_strings", std::vector<std::string>{"y"})},
                      ML)},
                {{"s", DataType::STRING, {"N"}}, {"i", DataType::INT64, {"N", "2"}}}, {}, 21, 2);
  CHECK(v2.t("a") == "FLOAT[N]");
  CHECK(v2.t("b") == "STRING[N,2]");
  CHECK(v2.report.nodes_failed == 0);

  std::vector<std::int16_t> keys{1, 2};
  std::vector<double> vals{0.5, 1.5};
  auto kt = Tensor::from_values<std::int16_t>("k", {2}, std::span<const std::int16_t>(keys));
  auto vt = Tensor::from_values<double>("v", {2}, std::span<const double>(vals));
  auto v4 = run({node("LabelEncoder", {"h"}, {"a"}, {Attribute("keys_tensor", kt), Attribute("values_tensor", vt)}, ML)},
                {{"h", DataType::INT16, {"N"}}}, {}, 21, 4);
  CHECK(v4.t("a") == "DOUBLE[N]");
  auto v3_tensor = run({node("LabelEncoder", {"h"}, {"a"}, {Attribute("keys_tensor", kt), Attribute("values_tensor", vt)}, ML)},
                       {{"h", DataType::INT16, {"N"}}}, {}, 21, 3);
  CHECK(v3_tensor.report.nodes_failed == 1);
  auto mismatch = run({node("LabelEncoder", {"s"}, {"a"},
                            {Attribute("keys_int64s", std::vector<std::int64_t>{1}),
                             Attribute("values_floats", std::vector<float>{1.f})},
                            ML)},
                      {{"s", DataType::STRING, {"N"}}}, {}, 21, 2);
  CHECK(mismatch.report.nodes_failed == 1);
  auto no_values = run({node("LabelEncoder", {"s"}, {"a"}, {Attribute("keys_strings", std::vector<std::string>{"x"})}, ML)},
                       {{"s", DataType::STRING, {"N"}}}, {}, 21, 2);
  CHECK(no_values.report.nodes_failed == 1);
}

TEST_CASE("ml: map inputs (DictVectorizer, CastMap)") {
  auto r = run({node("DictVectorizer", {"m"}, {"d"}, {Attribute("string_vocabulary", std::vector<std::string>{"a", "b", "c"})},
                     ML),
                node("CastMap", {"im"}, {"dense"}, {}, ML),
                node("CastMap", {"im"}, {"sparse"},
                     {Attribute("cast_to", "TO_INT64"), Attribute("map_form", "SPARSE"), Attribute("max_map", 5)}, ML),
                node("CastMap", {"im"}, {"strs"}, {Attribute("cast_to", "TO_STRING"), Attribute("map_form", "SPARSE")}, ML)},
               {}, {}, 21, 3,
               {typed_input("m", map_of(DataType::STRING, tensor_type(DataType::DOUBLE, std::nullopt))),
                typed_input("im", map_of(DataType::INT64, tensor_type(DataType::FLOAT, std::nullopt)))});
  CHECK(r.t("d") == "DOUBLE[1,3]");
  CHECK(r.t("dense") == "FLOAT[1,unk__0]");
  CHECK(r.t("sparse") == "INT64[1,5]");
  CHECK(r.t("strs") == "STRING[1,1]");
  CHECK(r.report.nodes_failed == 0);

  auto wrong_vocab = run({node("DictVectorizer", {"m"}, {"d"}, {Attribute("int64_vocabulary", std::vector<std::int64_t>{1})},
                               ML)},
                         {}, {}, 21, 3,
                         {typed_input("m", map_of(DataType::STRING, tensor_type(DataType::DOUBLE, std::nullopt)))});
  CHECK(wrong_vocab.report.nodes_failed == 1);
  auto bad_cast = run({node("CastMap", {"im"}, {"o"}, {Attribute("cast_to", "TO_BOOL")}, ML)}, {}, {}, 21, 3,
                      {typed_input("im", map_of(DataType::INT64, tensor_type(DataType::FLOAT, std::nullopt)))});
  CHECK(bad_cast.report.nodes_failed == 1);
  auto tensor_in = run({node("CastMap", {"x"}, {"o"}, {}, ML)}, {{"x", DataType::FLOAT, {"N"}}});
  CHECK(tensor_in.report.nodes_failed == 1);
}

// ============================================================================================
// ai.onnx.preview.training

TEST_CASE("training: optimizers mirror the optimized tensors") {
  const std::vector<In> scalars = {{"R", DataType::FLOAT, {}}, {"T", DataType::INT64, {}}};
  auto with = [&](std::vector<In> more) {
    auto v = scalars;
    v.insert(v.end(), more.begin(), more.end());
    return v;
  };
  auto adam = run({node("Adam", {"R", "T", "x1", "x2", "g1", "g2", "v1", "v2", "h1", "h2"},
                        {"x1n", "x2n", "v1n", "v2n", "h1n", "h2n"}, {}, TR)},
                  with({{"x1", DataType::FLOAT, {"N", "3"}},
                        {"x2", DataType::DOUBLE, {"4"}},
                        {"g1", DataType::FLOAT, {"N", "3"}},
                        {"g2", DataType::DOUBLE, {"4"}},
                        {"v1", DataType::FLOAT, {"N", "3"}},
                        {"v2", DataType::DOUBLE, {"4"}},
                        {"h1", DataType::FLOAT, {"N", "3"}},
                        {"h2", DataType::DOUBLE, {"4"}}}));
  CHECK(adam.t("x1n") == "FLOAT[N,3]");
  CHECK(adam.t("x2n") == "DOUBLE[4]");
  CHECK(adam.t("v1n") == "FLOAT[N,3]");
  CHECK(adam.t("h2n") == "DOUBLE[4]");
  CHECK(adam.report.nodes_failed == 0);

  auto adagrad = run({node("Adagrad", {"R", "T", "x", "g", "h"}, {"xn", "hn"}, {}, TR)},
                     with({{"x", DataType::FLOAT, {"N", "M"}}, {"g", DataType::FLOAT, {"N", "M"}}, {"h", DataType::FLOAT, {"N", "M"}}}));
  CHECK(adagrad.t("xn") == "FLOAT[N,M]");
  CHECK(adagrad.t("hn") == "FLOAT[N,M]");

  auto momentum = run({node("Momentum", {"R", "T", "x", "g", "v"}, {"xn", "vn"},
                            {Attribute("alpha", 0.9f), Attribute("beta", 1.f), Attribute("mode", "nesterov"),
                             Attribute("norm_coefficient", 0.f)},
                            TR)},
                      with({{"x", DataType::FLOAT, {"K"}}, {"g", DataType::FLOAT, {"K"}}, {"v", DataType::FLOAT, {"K"}}}));
  CHECK(momentum.t("xn") == "FLOAT[K]");
  CHECK(momentum.t("vn") == "FLOAT[K]");

  auto no_mode = run({node("Momentum", {"R", "T", "x", "g", "v"}, {"xn", "vn"}, {}, TR)},
                     with({{"x", DataType::FLOAT, {"K"}}, {"g", DataType::FLOAT, {"K"}}, {"v", DataType::FLOAT, {"K"}}}));
  CHECK(no_mode.report.nodes_failed == 1);
  auto count = run({node("Adagrad", {"R", "T", "x", "g"}, {"xn"}, {}, TR)},
                   with({{"x", DataType::FLOAT, {"K"}}, {"g", DataType::FLOAT, {"K"}}}));
  CHECK(count.report.nodes_failed == 1);
  auto shapes = run({node("Adagrad", {"R", "T", "x", "g", "h"}, {"xn", "hn"}, {}, TR)},
                    with({{"x", DataType::FLOAT, {"3"}}, {"g", DataType::FLOAT, {"4"}}, {"h", DataType::FLOAT, {"3"}}}));
  CHECK(shapes.report.conflicts == 1);
  auto rank = run({node("Adagrad", {"R", "T", "x", "g", "h"}, {"xn", "hn"}, {}, TR)},
                  with({{"x", DataType::FLOAT, {"3"}}, {"g", DataType::FLOAT, {"3", "1"}}, {"h", DataType::FLOAT, {"3"}}}));
  CHECK(rank.report.nodes_failed == 1);
}

TEST_CASE("training: Gradient outputs have the types of the xs") {
  auto r = run({node("Gradient", {"a", "b", "c"}, {"da", "db"},
                     {Attribute("xs", std::vector<std::string>{"a", "b"}), Attribute("zs", std::vector<std::string>{"c"}),
                      Attribute("y", "loss")},
                     TR)},
               {{"a", DataType::FLOAT, {"N", "3"}}, {"b", DataType::DOUBLE, {"4"}}, {"c", DataType::INT64, {"N"}}});
  CHECK(r.t("da") == "FLOAT[N,3]");
  CHECK(r.t("db") == "DOUBLE[4]");
  auto no_y = run({node("Gradient", {"a"}, {"da"}, {Attribute("xs", std::vector<std::string>{"a"})}, TR)},
                  {{"a", DataType::FLOAT, {"N"}}});
  CHECK(no_y.report.nodes_failed == 1);
  auto outs = run({node("Gradient", {"a"}, {"da", "db"}, {Attribute("xs", std::vector<std::string>{"a"}), Attribute("y", "l")},
                        TR)},
                  {{"a", DataType::FLOAT, {"N"}}});
  CHECK(outs.report.nodes_failed == 1);
}

TEST_CASE("Robustness: every rule survives odd nodes") {
  const std::vector<std::pair<std::string, std::string>> ops = {
      {"", "SequenceConstruct"}, {"", "SequenceEmpty"}, {"", "SequenceAt"}, {"", "SequenceInsert"},
      {"", "SequenceErase"}, {"", "SequenceLength"}, {"", "ConcatFromSequence"}, {"", "SplitToSequence"},
      {"", "Optional"}, {"", "OptionalHasElement"}, {"", "OptionalGetElement"},
      {ML, "ArrayFeatureExtractor"}, {ML, "Binarizer"}, {ML, "CastMap"}, {ML, "CategoryMapper"},
      {ML, "DictVectorizer"}, {ML, "FeatureVectorizer"}, {ML, "Imputer"}, {ML, "LabelEncoder"},
      {ML, "LinearClassifier"}, {ML, "LinearRegressor"}, {ML, "Normalizer"}, {ML, "OneHotEncoder"},
      {ML, "SVMClassifier"}, {ML, "SVMRegressor"}, {ML, "Scaler"}, {ML, "TreeEnsembleClassifier"},
      {ML, "TreeEnsembleRegressor"}, {ML, "TreeEnsemble"}, {ML, "ZipMap"},
      {TR, "Adagrad"}, {TR, "Adam"}, {TR, "Momentum"}, {TR, "Gradient"}};
  const std::vector<std::vector<std::string>> input_sets = {{}, {"u"}, {"s"}, {"u", "s", "u"}, {"", "u"}, {"x", "x", "x"}};
  const std::vector<std::vector<Attribute>> attr_sets = {
      {},
      {Attribute("axis", std::int64_t(-100)), Attribute("split", std::int64_t(0)), Attribute("n_targets", std::int64_t(-1))},
      {Attribute("classlabels_strings", std::vector<std::int64_t>{1}), Attribute("targets", std::int64_t(0)),
       Attribute("coefficients", std::vector<float>{1.f, 2.f, 3.f}), Attribute("intercepts", std::vector<float>{1.f, 2.f})},
      {Attribute("type", std::int64_t(1)), Attribute("xs", "a"), Attribute("dtype", std::int64_t(-3)),
       Attribute("keys_tensor", std::int64_t(4)), Attribute("max_map", std::int64_t(0)), Attribute("map_form", "SPARSE")}};
  for (const auto& [domain, op] : ops)
    for (const auto& ins : input_sets)
      for (const auto& attrs : attr_sets) {
        auto r = run({node(op, ins, {"o1", "o2"}, attrs, domain)},
                     {{"u", DataType::FLOAT, {}, false}, {"x", DataType::INT64, {"9223372036854775807"}}}, {}, 21, 3,
                     {typed_input("s", seq_of(tensor_type(DataType::FLOAT, std::vector<std::string>{"?"})))});
        CHECK_MESSAGE(r.report.nodes == 1, op);
      }
}

TEST_CASE("Sequences: known lengths; an empty sequence takes the type of what is inserted, also in a Loop") {
  using namespace oxir;
  using namespace oxir_test;
  // Straight line: Empty -> Insert -> Insert -> Length.
  auto m = make_model({Node("SequenceEmpty", {}, {"e"}), Node("SequenceInsert", {"e", "x"}, {"s1"}),
                       Node("SequenceInsert", {"s1", "x"}, {"s2"}), Node("SequenceLength", {"s2"}, {"n"}),
                       Node("Range", {"zero", "n", "one"}, {"r"})},
                      {{"x", DataType::FLOAT, {"N", "3"}}}, {ints("zero", {0}, true), ints("one", {1}, true)}, 17);
  auto rep = infer_shapes(m);
  CHECK(rep.diagnostics.empty());
  CHECK(type_of(m, "s1") == "seq(FLOAT[N,3])");
  CHECK(type_of(m, "s2") == "seq(FLOAT[N,3])");
  CHECK(type_of(m, "r") == "INT64[2]");  // the length is known: 2
  // A Loop that appends to a sequence starting empty (the expanded form of SequenceMap).
  Graph body;
  body.inputs = {value_info_of({"i", DataType::INT64, {}}), value_info_of({"c", DataType::BOOL, {}}), ValueInfo{}};
  body.inputs[2].name = "acc";
  body.nodes = {Node("Identity", {"c"}, {"c2"}), Node("SequenceInsert", {"acc", "x"}, {"acc2"})};
  for (auto o : {"c2", "acc2"}) {
    ValueInfo v;
    v.name = o;
    body.outputs.push_back(v);
  }
  Node loop("Loop", {"trip", "", "e"}, {"out"});
  loop.set_attribute(Attribute("body", body));
  auto lm = make_model({Node("SequenceEmpty", {}, {"e"}), loop},
                       {{"x", DataType::FLOAT, {"N", "3"}}, {"trip", DataType::INT64, {}}}, {}, 17);
  auto lr = infer_shapes(lm);
  CHECK(lr.diagnostics.empty());
  CHECK(type_of(lm, "out") == "seq(FLOAT[N,3])");
  // Erasing from a sequence known to be empty is an error.
  auto bad = make_model({Node("SequenceEmpty", {}, {"e"}), Node("SequenceErase", {"e"}, {"s"})}, {}, {}, 17);
  CHECK(infer_shapes(bad).nodes_failed == 1);
}

}  // namespace oxir_unit_test_infer_misc
