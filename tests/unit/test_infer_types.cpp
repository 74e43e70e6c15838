// The type-constraint check of the inference engine (include/oxir/infer/type_constraints.hpp).
// The wide differential test against onnx and ONNX Runtime is tests/infer/typecheck/verify_types.py.
#include <doctest/doctest.h>

#include <string>

#include "infer_test_util.hpp"

namespace oxir_unit_test_infer_types {

using namespace oxir_test;
using oxir::DataType;
using oxir::Node;
namespace d = oxir::infer::detail;

namespace {

std::size_t type_errors(const oxir::InferReport& r) {
  std::size_t n = 0;
  for (const auto& x : r.diagnostics) n += x.kind == oxir::infer::DiagnosticKind::TypeConstraint;
  CHECK(n == r.type_errors);
  return n;
}

std::string first_type_error(const oxir::InferReport& r) {
  for (const auto& x : r.diagnostics)
    if (x.kind == oxir::infer::DiagnosticKind::TypeConstraint) return x.to_string();
  return "";
}

}  // namespace

TEST_CASE("type constraints: every row of the generated table parses into consistent signatures") {
  std::size_t rows = 0;
  for (const auto& row : d::kTypeSignatures) {
    ++rows;
    const auto sig = d::parse_signature(row);
    CAPTURE(row.op);
    CAPTURE(row.since);
    if (sig.deprecated) continue;
    CHECK(sig.constraints.size() < 16);
    for (const auto* list : {&sig.inputs, &sig.outputs})
      for (const auto& p : *list) {
        const auto& set = p.constraint < 0 ? p.literal : sig.constraints[static_cast<std::size_t>(p.constraint)].second;
        CHECK((set.tensor | set.seq | set.opt | set.opt_seq) + set.other != 0);
        if (p.option == '*' || p.option == '+') CHECK(&p == &list->back());  // only the last is variadic
      }
  }
  CHECK(rows > 500);
  const auto& t = d::TypeSignatures::get();
  bool beyond = true;
  const auto* add = t.find(0, "Add", 13, beyond);
  REQUIRE(add);
  CHECK(add->since == 13);
  CHECK_FALSE(beyond);
  CHECK(t.find(0, "Add", 6, beyond)->since == 6);
  // Add-14 is still Add at opset 27 (ONNX Runtime's answer): not `beyond` there; past it, it is.
  CHECK(t.find(0, "Add", 23, beyond)->since == 14);
  CHECK_FALSE(beyond);
  CHECK(t.find(0, "Add", 27, beyond)->since == 14);
  CHECK_FALSE(beyond);
  CHECK(t.find(0, "Add", 28, beyond)->since == 14);
  CHECK(beyond);
  // Range-27 (float16 and bfloat16 added; probed) replaces Range-11 from opset 27 on.
  CHECK(t.find(0, "Range", 26, beyond)->since == 11);
  CHECK(t.find(0, "Range", 27, beyond)->since == 27);
  CHECK_FALSE(beyond);
  // Conv-22 (bfloat16 added; probed): found from opset 22 on, not `beyond`; Conv-11 holds up to 21.
  CHECK(t.find(0, "Conv", 22, beyond)->since == 22);
  CHECK_FALSE(beyond);
  CHECK(t.find(0, "Conv", 21, beyond)->since == 11);
  CHECK(t.find(0, "Conv", 21, beyond)->unchanged_through == 0);
  // Dropout-13 is the table's newest Dropout, but opset 22 has Dropout-22 (not in the table: its
  // type set also took the float8 types, which the probe's candidate lacked).
  CHECK(t.find(0, "Dropout", 22, beyond)->since == 13);
  CHECK(beyond);
  CHECK(t.find(0, "NoSuchOp", 13, beyond) == nullptr);
  CHECK(t.find(0, "Add", 0, beyond) == nullptr);
  CHECK(t.find(1, "LabelEncoder", 4, beyond)->since == 4);
  // Every kUnchangedThrough row names a version the table has (not deprecated) and reaches past the
  // table's newest opset: the newest version up to that opset, or a version newer than it (a
  // probed operator), from its own opset on.
  std::size_t unchanged = 0;
  for (const auto& row : d::kUnchangedThrough) {
    CAPTURE(row.op);
    CAPTURE(row.since);
    ++unchanged;
    CHECK(row.through > d::kTypeTableNewest[row.domain]);
    CHECK(row.through >= row.since);
    const auto* versions = t.versions(row.op);
    REQUIRE(versions);
    const d::TypeSignature* sig = nullptr;
    for (const auto& s : *versions)
      if (s.domain == row.domain && s.since == row.since) sig = &s;
    REQUIRE(sig);
    CHECK_FALSE(sig->deprecated);
    CHECK(sig->unchanged_through == row.through);
    if (row.since <= d::kTypeTableNewest[row.domain])
      for (const auto& s : *versions)
        if (s.domain == row.domain && s.since <= d::kTypeTableNewest[row.domain]) CHECK(s.since <= row.since);
  }
  CHECK(unchanged > 100);
}

TEST_CASE("type constraints: inputs the operator does not allow are errors; the output is still typed") {
  auto r = infer_one(Node("Sqrt", {"x"}, {"y"}), {{"x", DataType::INT64, {"N"}}}, {}, 13);
  CHECK(type_errors(r.report) == 1);
  CHECK(first_type_error(r.report).find("input 0 is tensor(int64), which Sqrt-13 does not allow for T") !=
        std::string::npos);
  CHECK(r.report.has_errors());
  CHECK(r.out() == "INT64[N]");

  auto mm = infer_one(Node("MatMul", {"a", "b"}, {"c"}), {{"a", DataType::BOOL, {"2", "3"}}, {"b", DataType::BOOL, {"3", "4"}}});
  CHECK(type_errors(mm.report) == 2);
  auto rs = infer_one(Node("Reshape", {"x", "s"}, {"y"}), {{"x", DataType::FLOAT, {"6"}}, {"s", DataType::INT32, {"2"}}});
  CHECK(type_errors(rs.report) == 1);
  CHECK(first_type_error(rs.report).find("allowed: tensor(int64)") != std::string::npos);

  // valid models stay clean, version by version: Add-7 has no int8, Add-14 has
  CHECK(type_errors(infer_one(Node("Add", {"a", "b"}, {"c"}), {{"a", DataType::FLOAT, {"N"}}, {"b", DataType::FLOAT, {"N"}}}).report) == 0);
  CHECK(type_errors(infer_one(Node("Add", {"a", "b"}, {"c"}), {{"a", DataType::INT8, {"N"}}, {"b", DataType::INT8, {"N"}}}, {}, 7).report) == 2);
  CHECK(type_errors(infer_one(Node("Add", {"a", "b"}, {"c"}), {{"a", DataType::INT8, {"N"}}, {"b", DataType::INT8, {"N"}}}, {}, 14).report) == 0);
}

TEST_CASE("type constraints: outputs typed from attributes (Cast-6 to float8 is not allowed, Cast-19 is)") {
  Node c("Cast", {"x"}, {"y"});
  c.attributes.emplace_back("to", static_cast<std::int64_t>(DataType::FLOAT8E4M3FN));
  auto old = infer_one(c, {{"x", DataType::FLOAT, {"N"}}}, {}, 6);
  CHECK(type_errors(old.report) == 1);
  CHECK(first_type_error(old.report).find("output 0 is tensor(float8e4m3fn), which Cast-6") != std::string::npos);
  CHECK(type_errors(infer_one(c, {{"x", DataType::FLOAT, {"N"}}}, {}, 19).report) == 0);
}

TEST_CASE("type constraints: inputs bound to one type parameter must agree") {
  // Concat's rule accepts the mix; T is one type, so the check reports input 2.
  Node cat("Concat", {"a", "b", "c"}, {"y"});
  cat.attributes.emplace_back("axis", std::int64_t{0});
  auto r = infer_one(cat, {{"a", DataType::FLOAT, {"2"}}, {"b", DataType::FLOAT, {"3"}}, {"c", DataType::DOUBLE, {"4"}}}, {}, 13);
  CHECK(type_errors(r.report) == 1);
  CHECK(first_type_error(r.report).find("input 2 is tensor(double) but input 0 is tensor(float): Concat-13 requires one type for T") !=
        std::string::npos);
  // Loop's carried values are variadic heterogeneous: any mix is fine
}

TEST_CASE("type constraints: past the table, unchanged operators are checked exactly, changed ones widened") {
  // Sqrt and Sub have no version after 13/14: ONNX Runtime resolves Sqrt-13 and Sub-14 up to opset
  // 26 (kUnchangedThrough), so models of those opsets are checked against them exactly.
  auto sq = infer_one(Node("Sqrt", {"x"}, {"y"}), {{"x", DataType::INT64, {"N"}}}, {}, 23);
  CHECK(type_errors(sq.report) == 1);
  CHECK(first_type_error(sq.report).find("Sqrt-13") != std::string::npos);
  CHECK(first_type_error(sq.report).find("or a newer version") == std::string::npos);
  CHECK(type_errors(infer_one(Node("Sqrt", {"x"}, {"y"}), {{"x", DataType::INT64, {"N"}}}, {}, 26).report) == 1);
  CHECK(type_errors(infer_one(Node("Sub", {"a", "b"}, {"c"}), {{"a", DataType::FLOAT, {"N"}}, {"b", DataType::INT8, {"N"}}}, {}, 23).report) == 1);
  // Acos-22 added bfloat16 to Acos-7 (a probed version of opset 22): checked exactly from 22.
  CHECK(type_errors(infer_one(Node("Acos", {"x"}, {"y"}), {{"x", DataType::BFLOAT16, {"N"}}}, {}, 21).report) == 1);
  CHECK(type_errors(infer_one(Node("Acos", {"x"}, {"y"}), {{"x", DataType::BFLOAT16, {"N"}}}, {}, 22).report) == 0);
  auto acos = infer_one(Node("Acos", {"x"}, {"y"}), {{"x", DataType::INT64, {"N"}}}, {}, 22);
  CHECK(type_errors(acos.report) == 1);
  CHECK(first_type_error(acos.report).find("Acos-22 does not allow") != std::string::npos);
  // Dropout-22 is not in the table: past opset 21 Dropout-13 is checked widened.
  const std::vector<In> drop_f8{{"x", DataType::FLOAT8E4M3FN, {"N"}}};
  CHECK(type_errors(infer_one(Node("Dropout", {"x"}, {"y"}), drop_f8, {}, 21).report) == 1);
  CHECK(type_errors(infer_one(Node("Dropout", {"x"}, {"y"}), drop_f8, {}, 22).report) == 0);
  auto drop = infer_one(Node("Dropout", {"x"}, {"y"}), {{"x", DataType::INT64, {"N"}}}, {}, 22);
  CHECK(type_errors(drop.report) == 1);
  CHECK(first_type_error(drop.report).find("Dropout-13 (or a newer version)") != std::string::npos);
  // Identity changed in 23-25: element types added since opset 16 pass there.
  CHECK(type_errors(infer_one(Node("Identity", {"x"}, {"y"}), {{"x", DataType::INT2, {"N"}}}, {}, 25).report) == 0);
  // DequantizeLinear-23: inputs of a widened version are not required to agree (a newer version
  // may split a type parameter); DequantizeLinear-21 requires x and x_zero_point to agree.
  const std::vector<In> dq_in{{"x", DataType::INT8, {"N"}}, {"s", DataType::FLOAT, {}}, {"z", DataType::UINT8, {}}};
  CHECK(type_errors(infer_one(Node("DequantizeLinear", {"x", "s", "z"}, {"y"}), dq_in, {}, 21).report) == 1);
  CHECK(type_errors(infer_one(Node("DequantizeLinear", {"x", "s", "z"}, {"y"}), dq_in, {}, 23).report) == 0);
  // Pad-23 and Reshape-25 are exact (probed): Pad's data and constant_value must agree; int2
  // data is allowed from 25 on, not before.
  const std::vector<In> pad_in{{"x", DataType::FLOAT, {"N", "4"}}, {"p", DataType::INT64, {"4"}}, {"v", DataType::DOUBLE, {}}};
  CHECK(type_errors(infer_one(Node("Pad", {"x", "p", "v"}, {"y"}), pad_in, {}, 23).report) == 1);
  const std::vector<In> int2_in{{"x", DataType::INT2, {"N", "4"}}, {"s", DataType::INT64, {"1"}}};
  CHECK(type_errors(infer_one(Node("Reshape", {"x", "s"}, {"y"}), int2_in, {}, 24).report) == 1);
  CHECK(type_errors(infer_one(Node("Reshape", {"x", "s"}, {"y"}), int2_in, {}, 25).report) == 0);
  // Conv-22 is exact: X and W must agree.
  const std::vector<In> conv_in{{"x", DataType::FLOAT, {"N", "C", "H", "W"}}, {"w", DataType::DOUBLE, {"M", "C", "3", "3"}}};
  CHECK(type_errors(infer_one(Node("Conv", {"x", "w"}, {"y"}), conv_in, {}, 21).report) == 1);
  CHECK(type_errors(infer_one(Node("Conv", {"x", "w"}, {"y"}), conv_in, {}, 22).report) == 1);
  CHECK(type_errors(infer_one(Node("Conv", {"x", "w"}, {"y"}), conv_in, {}, 26).report) == 1);
  // Attention-23 and -24 are newer than the table's opsets, with signatures probed from ONNX
  // Runtime, which resolves Attention-24 up to opset 26: checked exactly there, so Q and K must
  // agree (T1) at 23 and at 25.
  const std::vector<In> att_in{{"q", DataType::FLOAT, {"B", "H", "S", "8"}},
                               {"k", DataType::FLOAT16, {"B", "H", "L", "8"}},
                               {"v", DataType::FLOAT, {"B", "H", "L", "8"}}};
  for (const std::int64_t opset : {23, 25}) {
    CAPTURE(opset);
    const auto att = infer_one(Node("Attention", {"q", "k", "v"}, {"y"}), att_in, {}, opset);
    CHECK(type_errors(att.report) == 1);
    CHECK(first_type_error(att.report).find("or a newer version") == std::string::npos);
  }
  auto agreeing = att_in;
  agreeing[1].elem = DataType::FLOAT;
  CHECK(type_errors(infer_one(Node("Attention", {"q", "k", "v"}, {"y"}), agreeing, {}, 25).report) == 0);
  // ONNX Runtime resolves Reshape-25 at 26 too: still checked there; its shape input is int64 only.
  const std::vector<In> reshape_in{{"x", DataType::FLOAT, {"N", "4"}}, {"s", DataType::INT32, {"2"}}};
  CHECK(type_errors(infer_one(Node("Reshape", {"x", "s"}, {"y"}), reshape_in, {}, 26).report) == 1);
  // Opset 27 (ONNX 1.22) is probed too: Sqrt-13 still holds there. Past what ONNX Runtime
  // knows, nothing is checked.
  CHECK(type_errors(infer_one(Node("Sqrt", {"x"}, {"y"}), {{"x", DataType::INT64, {"N"}}}, {}, 27).report) == 1);
  CHECK(type_errors(infer_one(Node("Sqrt", {"x"}, {"y"}), {{"x", DataType::INT64, {"N"}}}, {}, 28).report) == 0);
  // Range-27 takes float16; Range-11 does not.
  const std::vector<In> range_in{{"a", DataType::FLOAT16, {}}, {"b", DataType::FLOAT16, {}}, {"c", DataType::FLOAT16, {}}};
  CHECK(type_errors(infer_one(Node("Range", {"a", "b", "c"}, {"y"}), range_in, {}, 27).report) == 0);
  CHECK(type_errors(infer_one(Node("Range", {"a", "b", "c"}, {"y"}), range_in, {}, 26).report) == 3);  // one per input
  CHECK(type_errors(infer_one(Node("Sqrt", {"x"}, {"y"}), {{"x", DataType::INT64, {"N"}}}, {}, 40).report) == 0);
}

TEST_CASE("type constraints: operators new after opset 21 are checked (widened) from the probed rows") {
  // Swish-24 takes float types only; before the probed rows it was not checked at all.
  auto sw = infer_one(Node("Swish", {"x"}, {"y"}), {{"x", DataType::INT32, {"N"}}}, {}, 24);
  CHECK(type_errors(sw.report) == 1);
  CHECK(first_type_error(sw.report).find("Swish-24") != std::string::npos);
  CHECK(type_errors(infer_one(Node("Swish", {"x"}, {"y"}), {{"x", DataType::BFLOAT16, {"N"}}}, {}, 24).report) == 0);
  // Not defined before opset 24: nothing to check against.
  CHECK(type_errors(infer_one(Node("Swish", {"x"}, {"y"}), {{"x", DataType::INT32, {"N"}}}, {}, 23).report) == 0);
  // LinearAttention-27 and CausalConvWithState-27, first versions, so exact at 27 although
  // ONNX Runtime inlines them: float types, and the inputs of T agree (the states may differ).
  Node la("LinearAttention", {"q", "k", "v", "p"}, {"o", "s"});
  la.set_attribute(oxir::Attribute("q_num_heads", std::int64_t{2}));
  la.set_attribute(oxir::Attribute("kv_num_heads", std::int64_t{2}));
  la.set_attribute(oxir::Attribute("update_rule", std::string("linear")));
  const std::vector<In> la_in{{"q", DataType::FLOAT, {"B", "T", "8"}}, {"k", DataType::FLOAT16, {"B", "T", "8"}},
                              {"v", DataType::FLOAT, {"B", "T", "8"}}, {"p", DataType::FLOAT16, {"B", "2", "4", "4"}}};
  const auto la_mixed = infer_one(la, la_in, {}, 27);
  CHECK(type_errors(la_mixed.report) == 1);
  CHECK(first_type_error(la_mixed.report).find("LinearAttention-27") != std::string::npos);
  auto la_ok = la_in;
  la_ok[1].elem = DataType::FLOAT;  // q, k, v float; the state float16: allowed
  CHECK(type_errors(infer_one(la, la_ok, {}, 27).report) == 0);
  CHECK(type_errors(infer_one(Node("CausalConvWithState", {"x", "w"}, {"y", "s"}),
                              {{"x", DataType::INT32, {"B", "4", "L"}}, {"w", DataType::INT32, {"4", "1", "3"}}}, {}, 27)
                        .report) == 2);
  CHECK(type_errors(infer_one(Node("CausalConvWithState", {"x", "w"}, {"y", "s"}),
                              {{"x", DataType::BFLOAT16, {"B", "4", "L"}}, {"w", DataType::BFLOAT16, {"4", "1", "3"}}}, {},
                              27)
                        .report) == 0);
  // RotaryEmbedding-23: position ids are int64 only; the embedding is float/float16/bfloat16.
  Node rope("RotaryEmbedding", {"x", "c", "s", "p"}, {"y"});
  rope.set_attribute(oxir::Attribute("num_heads", std::int64_t{2}));
  auto rp = infer_one(rope,
                      {{"x", DataType::FLOAT, {"B", "S", "8"}}, {"c", DataType::FLOAT, {"B", "S", "2"}},
                       {"s", DataType::FLOAT, {"B", "S", "2"}}, {"p", DataType::INT32, {"B", "S"}}},
                      {}, 23);
  CHECK(type_errors(rp.report) == 1);
  CHECK(first_type_error(rp.report).find("input 3") != std::string::npos);
  // TensorScatter-24: write_indices is int64; the cache may be any tensor type.
  auto ts = infer_one(Node("TensorScatter", {"a", "b", "w"}, {"y"}),
                      {{"a", DataType::STRING, {"B", "8", "4"}}, {"b", DataType::STRING, {"B", "2", "4"}},
                       {"w", DataType::INT32, {"B"}}},
                      {}, 24);
  CHECK(type_errors(ts.report) == 1);
  CHECK(first_type_error(ts.report).find("input 2") != std::string::npos);
}

TEST_CASE("type constraints: strict mode throws; other domains and sequences") {
  auto m = make_model({Node("Sqrt", {"x"}, {"y"})}, {{"x", DataType::INT32, {"N"}}}, {}, 13);
  oxir::InferOptions strict;
  strict.strict = true;
  CHECK_THROWS_AS((void)oxir::infer_shapes(m, strict), oxir::Error);

  // an operator of a custom domain has no signature (and no rule)
  Node custom("Sqrt", {"x"}, {"y"});
  custom.domain = "com.example";
  auto c = make_model({custom}, {{"x", DataType::INT32, {"N"}}}, {}, 13);
  c.set_opset_version("com.example", 1);
  CHECK(type_errors(oxir::infer_shapes(c)) == 0);

  // SequenceAt takes a sequence, not a tensor
  auto sa = infer_one(Node("SequenceAt", {"s", "i"}, {"y"}), {{"s", DataType::FLOAT, {"3"}}, {"i", DataType::INT64, {}}}, {}, 13);
  CHECK(type_errors(sa.report) >= 1);
  CHECK(first_type_error(sa.report).find("input 0 is tensor(float)") != std::string::npos);

  // ai.onnx.ml: Binarizer takes numbers, not strings
  Node bin("Binarizer", {"x"}, {"y"});
  bin.domain = "ai.onnx.ml";
  auto ml = make_model({bin}, {{"x", DataType::STRING, {"N"}}}, {}, 13);
  ml.set_opset_version("ai.onnx.ml", 3);
  const auto rep = oxir::infer_shapes(ml);
  CHECK(type_errors(rep) == 1);
}

TEST_CASE("type constraints: com.microsoft operators are checked as ONNX Runtime's loader checks them") {
  auto ms = [](const char* op, std::vector<std::string> ins, std::vector<In> inputs, std::int64_t version = 1) {
    Node n(op, std::move(ins), {"y"});
    n.domain = "com.microsoft";
    auto m = make_model({n}, std::move(inputs), {}, 17);
    m.set_opset_version("com.microsoft", version);
    return oxir::infer_shapes(m);
  };
  // FastGelu: T of float, float16, double, bfloat16 (the probed set); X and bias agree
  CHECK(type_errors(ms("FastGelu", {"x", "b"}, {{"x", DataType::FLOAT, {"N", "4"}}, {"b", DataType::FLOAT, {"4"}}})) == 0);
  CHECK(type_errors(ms("FastGelu", {"x", "b"}, {{"x", DataType::DOUBLE, {"N", "4"}}, {"b", DataType::DOUBLE, {"4"}}})) == 0);
  const auto gi = ms("FastGelu", {"x"}, {{"x", DataType::INT32, {"N", "4"}}});
  CHECK(type_errors(gi) == 1);
  CHECK(first_type_error(gi).find("input 0 is tensor(int32), which FastGelu-1 does not allow for T") != std::string::npos);
  const auto mix = ms("FastGelu", {"x", "b"}, {{"x", DataType::FLOAT, {"N", "4"}}, {"b", DataType::FLOAT16, {"4"}}});
  CHECK(type_errors(mix) == 1);
  CHECK(first_type_error(mix).find("requires one type for T") != std::string::npos);
  // MatMulNBits: the packed weights are uint8, A and scales share T1
  const std::vector<In> nbits = {{"a", DataType::FLOAT, {"N", "32"}}, {"w", DataType::UINT8, {"8", "1", "16"}},
                                    {"s", DataType::FLOAT, {"8"}}};
  Node mm("MatMulNBits", {"a", "w", "s"}, {"y"});
  mm.domain = "com.microsoft";
  mm.attributes.emplace_back("K", std::int64_t{32});
  mm.attributes.emplace_back("N", std::int64_t{8});
  mm.attributes.emplace_back("bits", std::int64_t{4});
  mm.attributes.emplace_back("block_size", std::int64_t{32});
  auto good = make_model({mm}, nbits, {}, 17);
  good.set_opset_version("com.microsoft", 1);
  CHECK(type_errors(oxir::infer_shapes(good)) == 0);
  auto bad = good;
  std::get<oxir::TensorType>(bad.graph.inputs[1].type->value).elem_type = DataType::INT8;
  const auto rb = oxir::infer_shapes(bad);
  CHECK(type_errors(rb) == 1);
  CHECK(first_type_error(rb).find("input 1 is tensor(int8)") != std::string::npos);
  // a standard operator's name in com.microsoft gets com.microsoft's signature, and the other way
  // round: ai.onnx Trilu-14 takes strings, com.microsoft Trilu does not
  CHECK(type_errors(ms("Trilu", {"x"}, {{"x", DataType::STRING, {"N", "N"}}})) == 1);
  auto t14 = infer_one(Node("Trilu", {"x"}, {"y"}), {{"x", DataType::STRING, {"N", "N"}}}, {}, 17);
  CHECK(type_errors(t14.report) == 0);
  // attribute names as ONNX Runtime's loader knows them: a misspelt block_size is an error
  auto misspelt = good;
  misspelt.graph.nodes[0].attributes.emplace_back("blocksize", std::int64_t{32});
  const auto rm = oxir::infer_shapes(misspelt);
  CHECK(rm.attribute_errors == 1);
  REQUIRE(!rm.diagnostics.empty());
  CHECK(rm.diagnostics[0].message == "attribute 'blocksize' is not defined for MatMulNBits-1");
  CHECK(oxir::infer_shapes(good).attribute_errors == 0);
  // ONNX Runtime accepts any attribute name on SimplifiedLayerNormalization: not checked; its
  // types are (X and scale are separate parameters)
  Node sln("SimplifiedLayerNormalization", {"x", "s"}, {"y"});
  sln.attributes.emplace_back("anything", std::int64_t{1});
  auto rs = infer_one(sln, {{"x", DataType::FLOAT, {"N", "4"}}, {"s", DataType::FLOAT16, {"4"}}}, {}, 17);
  CHECK(rs.report.attribute_errors == 0);
  CHECK(type_errors(rs.report) == 0);
  auto rs2 = infer_one(sln, {{"x", DataType::INT32, {"N", "4"}}, {"s", DataType::FLOAT, {"4"}}}, {}, 17);
  CHECK(type_errors(rs2.report) == 1);
  // only version 1 exists: a model that imports another version is not checked
  CHECK(type_errors(ms("FastGelu", {"x"}, {{"x", DataType::INT32, {"N", "4"}}}, 2)) == 0);
  // an input position no probe saw allows anything
  CHECK(type_errors(ms("Gelu", {"x", "x"}, {{"x", DataType::FLOAT, {"N"}}})) == 0);
}

TEST_CASE("type constraints: nodes in subgraphs are checked with their own field path") {
  oxir::Graph then_g, else_g;
  then_g.name = "then";
  then_g.nodes.push_back(Node("Sqrt", {"x"}, {"t"}));
  then_g.outputs.push_back(oxir::ValueInfo{"t"});
  else_g.name = "else";
  else_g.nodes.push_back(Node("Neg", {"x"}, {"e"}));
  else_g.outputs.push_back(oxir::ValueInfo{"e"});
  Node n("If", {"c"}, {"y"});
  n.attributes.emplace_back("then_branch", then_g);
  n.attributes.emplace_back("else_branch", else_g);
  auto r = infer_one(n, {{"c", DataType::BOOL, {}}, {"x", DataType::INT64, {"N"}}}, {}, 16);
  CHECK(type_errors(r.report) == 1);
  CHECK(first_type_error(r.report).find("graph.node[0].attribute[0].g.node[0]") != std::string::npos);
}

TEST_CASE("attributes a version does not define are errors (the table's names; inference goes on)") {
  using oxir::Attribute;
  auto with = [](std::string op, std::vector<Attribute> attrs) {
    Node n(std::move(op), {"x"}, {"y"});
    for (auto& a : attrs) n.set_attribute(std::move(a));
    return n;
  };
  const std::vector<In> x{{"x", DataType::FLOAT, {"N", "C", "H", "W"}}};
  const std::vector<std::int64_t> k2{2, 2};
  // ceil_mode came with MaxPool-10.
  auto r = infer_one(with("MaxPool", {Attribute("kernel_shape", k2), Attribute("ceil_mode", std::int64_t{1})}), x, {}, 8);
  CHECK(r.report.attribute_errors == 1);
  REQUIRE(r.report.diagnostics.size() == 1);
  CHECK(r.report.diagnostics[0].to_string() == "error: graph.node[0] (MaxPool): attribute 'ceil_mode' is not defined for MaxPool-8");
  CHECK(r.out() == "FLOAT[N,C,H-1,W-1]");  // still inferred (2x2 window, stride 1)
  CHECK(r.report.has_errors());
  r = infer_one(with("MaxPool", {Attribute("kernel_shape", k2), Attribute("ceil_mode", std::int64_t{1})}), x, {}, 10);
  CHECK(r.report.diagnostics.empty());
  // A misspelt name: Softmax has `axis`, not `axes` (the rule took the default axis).
  r = infer_one(with("Softmax", {Attribute("axes", std::vector<std::int64_t>{1})}), x, {}, 13);
  CHECK(r.report.attribute_errors == 1);
  CHECK_THROWS_AS((void)[&] {
    auto m = make_model({with("Softmax", {Attribute("axes", std::vector<std::int64_t>{1})})}, x, {}, 13);
    return oxir::infer_shapes(m, {.strict = true});
  }(), oxir::Error);
  // Experimental operators: their ONNX Runtime definitions.
  r = infer_one(with("ImageScaler", {Attribute("scale", 2.0f), Attribute("alpha", 1.0f)}), x, {}, 8);
  CHECK(r.report.attribute_errors == 1);
  r = infer_one(with("Relu", {Attribute("bogus", std::int64_t{1})}), x, {}, 21);
  CHECK(r.report.attribute_errors == 1);
  // Versions newer than onnx 1.12 (names from ONNX Runtime's loader): Pad-21 has `mode` but no
  // other attribute; GroupNormalization's stash_type came with version 21.
  r = infer_one(with("Pad", {Attribute("mode", std::string("wrap")), Attribute("bogus", std::int64_t{1})}), x, {}, 21);
  CHECK(r.report.attribute_errors == 1);
  CHECK(std::any_of(r.report.diagnostics.begin(), r.report.diagnostics.end(), [](const auto& d) {
    return d.message == "attribute 'bogus' is not defined for Pad-21";
  }));
  const std::vector<In> xsb{{"x", DataType::FLOAT, {"N", "C", "H", "W"}}, {"s", DataType::FLOAT, {"G"}},
                            {"b", DataType::FLOAT, {"G"}}};
  auto group_norm = [&](std::int64_t opset) {
    Node n("GroupNormalization", {"x", "s", "b"}, {"y"});
    n.set_attribute(Attribute("num_groups", std::int64_t{2}));
    n.set_attribute(Attribute("stash_type", std::int64_t{1}));
    return infer_one(n, xsb, {}, opset).report.attribute_errors;
  };
  CHECK(group_norm(18) == 1);
  CHECK(group_norm(21) == 0);
  // Opsets after the signatures (22-25): per-opset names. Cast's round_mode came with opset 24.
  auto cast = [&](std::int64_t opset) {
    return infer_one(with("Cast", {Attribute("to", std::int64_t{10}), Attribute("round_mode", std::string("up"))}), x,
                     {}, opset);
  };
  r = cast(23);
  CHECK(r.report.attribute_errors == 1);
  CHECK(r.report.diagnostics[0].message == "attribute 'round_mode' is not defined for Cast at opset 23");
  CHECK(cast(24).report.attribute_errors == 0);
  CHECK(cast(25).report.attribute_errors == 0);
  r = infer_one(with("Relu", {Attribute("bogus", std::int64_t{1})}), x, {}, 25);
  CHECK(r.report.attribute_errors == 1);
  // Opset 26: Relu-14 is still the version ONNX Runtime resolves, so its names hold. Cast-25 is
  // still Cast at 26, so Cast keeps its opset-25 names; CastLike (a function ONNX Runtime inlines,
  // so the probe got no version) is not checked there, nor at 27. Past opset 27: not checked.
  r = infer_one(with("Relu", {Attribute("bogus", std::int64_t{1})}), x, {}, 26);
  CHECK(r.report.attribute_errors == 1);
  CHECK(r.report.diagnostics[0].message == "attribute 'bogus' is not defined for Relu-14");
  r = infer_one(with("Cast", {Attribute("to", std::int64_t{10}), Attribute("bogus", std::int64_t{1})}), x, {}, 26);
  CHECK(r.report.attribute_errors == 1);
  CHECK(r.report.diagnostics[0].message == "attribute 'bogus' is not defined for Cast at opset 26");
  CHECK(cast(26).report.attribute_errors == 0);
  Node cast_like("CastLike", {"x", "x"}, {"y"});
  cast_like.set_attribute(Attribute("bogus", std::int64_t{1}));
  CHECK(infer_one(cast_like, x, {}, 26).report.attribute_errors == 0);
  r = infer_one(with("Relu", {Attribute("bogus", std::int64_t{1})}), x, {}, 27);  // Relu-14 still
  CHECK(r.report.attribute_errors == 1);
  // Opset 27: Cast-25 is still the version ONNX Runtime resolves, so Cast keeps its opset-25 names
  // there too (a widened version: named by opset), and its types are checked widened.
  r = infer_one(with("Cast", {Attribute("to", std::int64_t{10}), Attribute("bogus", std::int64_t{1})}), x, {}, 27);
  CHECK(r.report.attribute_errors == 1);
  CHECK(r.report.diagnostics[0].message == "attribute 'bogus' is not defined for Cast at opset 27");
  CHECK(cast(27).report.attribute_errors == 0);
  CHECK(infer_one(cast_like, x, {}, 27).report.attribute_errors == 0);
  r = infer_one(with("Relu", {Attribute("bogus", std::int64_t{1})}), x, {}, 28);
  CHECK(r.report.attribute_errors == 0);
}

}  // namespace oxir_unit_test_infer_types
