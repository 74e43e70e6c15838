// ONNX's textual syntax (io/text.hpp): what each construct of the grammar reads into, the checks
// on tensor values, errors with their field path and line/column, hostile text (deep nesting,
// huge dims, unterminated strings), to_text's refusals and lossy mode, load_text_model /
// save_text_model with external data, and round trips: random models and every libonnx-testdata
// model read back equal from their text. (tests/text/verify_text.py compares the same parser
// and writer with onnx 1.12's parser.)
#include <doctest/doctest.h>

#include <oxir/io.hpp>
#include <oxir/io/text.hpp>

#include "alloc_counter.hpp"
#include "graph_util.hpp"
#include "corpus_util.hpp"

#include <unistd.h>

#include <bit>
#include <cmath>
#include <complex>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace oxir_unit_test_text {

using namespace oxir;
namespace fs = std::filesystem;

namespace {

const char* kSyntaxExample = R"ONNX(
<
  ir_version: 7,
  opset_import: [ "" : 10 ]
>
agraph (float[N, 128] X, float[128, 10] W, float[10] B) => (float[N, 10] C)
{
    T = MatMul(X, W)
    S = Add(T, B)
    C = Softmax(S)
}
)ONNX";

std::string error_of(const std::string& text) {
  try {
    (void)parse_text_model(text);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

std::string wrap_node(const std::string& node) {
  return "<ir_version: 8, opset_import: [\"\" : 17]>\ng (float[2] x) => (float[2] y) {\n" + node + "\n}\n";
}

const Attribute& attr_of(const std::string& node_text, std::size_t i = 0) {
  static Model keep;
  keep = parse_text_model(wrap_node(node_text));
  return keep.graph.nodes.at(0).attributes.at(i);
}

Tensor tensor_of(const std::string& constant) {
  auto m = parse_text_model(wrap_node("y = Constant <value = " + constant + "> ()"));
  return m.graph.nodes.at(0).attributes.at(0).as_tensor();
}

struct TempDir {
  fs::path path;
  TempDir() {
    static int counter = 0;
    path = fs::temp_directory_path() / ("oxir-text-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

}  // namespace

TEST_CASE("text: the example of onnx's Syntax.md") {
  const auto m = parse_text_model(kSyntaxExample);
  CHECK(m.ir_version == 7);
  REQUIRE(m.opset_imports.size() == 1);
  CHECK(m.opset_imports[0].domain == "");
  CHECK(m.opset_imports[0].version == 10);
  CHECK(m.graph.name == "agraph");
  REQUIRE(m.graph.inputs.size() == 3);
  CHECK(m.graph.inputs[0].name == "X");
  CHECK(*m.graph.inputs[0].type == Type::tensor(DataType::FLOAT, {"N", 128}));
  CHECK(*m.graph.outputs.at(0).type == Type::tensor(DataType::FLOAT, {"N", 10}));
  REQUIRE(m.graph.nodes.size() == 3);
  CHECK(m.graph.nodes[0].op_type == "MatMul");
  CHECK(m.graph.nodes[0].inputs == std::vector<std::string>{"X", "W"});
  CHECK(m.graph.nodes[0].outputs == std::vector<std::string>{"T"});
  CHECK(m.graph.nodes[2].domain.empty());
  CHECK(m.functions.empty());
  // Parsing the text it prints gives the model back.
  CHECK(parse_text_model(to_text(m)) == m);
}

TEST_CASE("text: model header fields") {
  const auto m = parse_text_model(R"(<ir_version: 10, opset_import: ["" : 21, "com.microsoft" : 1],
      producer_name: "p", producer_version: "1.0", domain: "org.x", model_version: 42, doc_string: "d",
      metadata_props: ["a": "1", "b": "2"]> g () => () {})");
  CHECK(m.ir_version == 10);
  CHECK(m.opset_version("com.microsoft") == 1);
  CHECK(m.producer_name == "p");
  CHECK(m.producer_version == "1.0");
  CHECK(m.domain == "org.x");
  CHECK(m.model_version == 42);
  CHECK(m.doc_string == "d");
  REQUIRE(m.metadata_props.size() == 2);
  CHECK(m.metadata_props[1].key == "b");
  CHECK(m.metadata_props[1].value == "2");
  CHECK(error_of("<ir_version: 8, ir_version: 9> g () => () {}").find("'ir_version' given twice") != std::string::npos);
  CHECK(error_of("<irversion: 8> g () => () {}").find("unknown model field 'irversion'") != std::string::npos);
  CHECK(error_of("<ir_version: \"8\"> g () => () {}").find("expected the IR version") != std::string::npos);
}

TEST_CASE("text: types") {
  const auto m = parse_text_model(R"(g (float a, float[] b, int64[?, N, 3, "s+1", -1] c, seq(float[2]) d,
      map(string, seq(int64)) e, optional(seq(float)) f, sparse_tensor(float[4, 4]) s, opaque() o1,
      opaque(thing) o2, opaque(com.x, thing) o3, bfloat16[1] h, float8e4m3fn[1] i, int4[2] j, uint2[1] k) => () {})");
  const auto& in = m.graph.inputs;
  REQUIRE(in.size() == 14);
  CHECK(*in[0].type == Type::tensor(DataType::FLOAT, Shape{}));  // `float`: a scalar
  CHECK(*in[1].type == Type::tensor(DataType::FLOAT));           // `float[]`: rank unknown
  const auto& c = *in[2].type->shape();
  REQUIRE(c.rank() == 5);
  CHECK(c[0].is_unknown());
  CHECK(c[1].dim_param() == "N");
  CHECK(c[2].dim_value() == 3);
  CHECK(c[3].dim_param() == "s+1");
  CHECK(c[4].dim_value() == -1);
  CHECK(*in[3].type == Type::sequence(Type::tensor(DataType::FLOAT, {2})));
  CHECK(*in[4].type == Type::map(DataType::STRING, Type::sequence(Type::tensor(DataType::INT64, Shape{}))));
  CHECK(*in[5].type == Type::optional(Type::sequence(Type::tensor(DataType::FLOAT, Shape{}))));
  CHECK(*in[6].type == Type::sparse_tensor(DataType::FLOAT, {4, 4}));
  const auto* o1 = std::get_if<OpaqueType>(&in[7].type->value);
  const auto* o2 = std::get_if<OpaqueType>(&in[8].type->value);
  const auto* o3 = std::get_if<OpaqueType>(&in[9].type->value);
  REQUIRE((o1 && o2 && o3));
  CHECK((o1->domain.empty() && o1->name.empty()));
  CHECK((o2->domain.empty() && o2->name == "thing"));
  CHECK((o3->domain == "com.x" && o3->name == "thing"));
  CHECK(in[10].type->elem_type() == DataType::BFLOAT16);
  CHECK(in[11].type->elem_type() == DataType::FLOAT8E4M3FN);
  CHECK(in[12].type->elem_type() == DataType::INT4);
  CHECK(in[13].type->elem_type() == DataType::UINT2);
  // A value without a type.
  CHECK_FALSE(parse_text_model("g (x) => (y) {}").graph.inputs[0].type.has_value());
  CHECK(error_of("g (Float[2] x) => () {}").find("expected ')'") != std::string::npos);
  CHECK(error_of("g (map(float16x, float) x) => () {}").find("'float16x' is not an element type") != std::string::npos);
  CHECK(error_of("g (float[2,] x) => () {}").find("expected a dimension") != std::string::npos);
}

TEST_CASE("text: nodes, names and the optional ones") {
  const auto m = parse_text_model(R"(<opset_import: ["" : 17, "com.microsoft" : 1, "local" : 1]>
g (float[2] x, float[2] "in put") => (float[2] y) {
  [first] a, , b = com.microsoft.Op <k = 1> (x, , "in put")
  ["n 2"] c = Op (x, )
  = Print (a)
  d = Op (, x) <k = 2>
  "", e = Op ("")
  f = local.Fn:v2 (x)   # a comment
  [] y = Identity (c)
}
)");
  const auto& n = m.graph.nodes;
  REQUIRE(n.size() == 7);
  CHECK(n[0].name == "first");
  CHECK(n[0].domain == "com.microsoft");
  CHECK(n[0].op_type == "Op");
  CHECK(n[0].outputs == std::vector<std::string>{"a", "", "b"});
  CHECK(n[0].inputs == std::vector<std::string>{"x", "", "in put"});
  CHECK(n[0].attributes.at(0).as_int() == 1);
  CHECK(n[1].name == "n 2");
  CHECK(n[1].inputs == std::vector<std::string>{"x"});  // a trailing comma adds nothing
  CHECK(n[2].outputs.empty());
  CHECK(n[2].name.empty());
  CHECK(n[3].inputs == std::vector<std::string>{"", "x"});
  CHECK(n[3].attributes.at(0).as_int() == 2);  // attributes after the inputs
  CHECK(n[4].outputs == std::vector<std::string>{"", "e"});
  CHECK(n[4].inputs == std::vector<std::string>{""});
  CHECK(n[5].domain == "local");
  CHECK(n[5].overload == "v2");
  CHECK(n[6].name.empty());
  CHECK(m.graph.inputs[1].name == "in put");
  // Errors name the field and the place.
  const auto e = error_of("g (float[2] x) => (float[2] y) {\n  y = Relu (x\n}");
  CHECK(e.find("graph.node[0]: ") != std::string::npos);
  CHECK(e.find("line 3, column 1: expected ')'") != std::string::npos);
  CHECK(error_of("g (x) => (y) {\n  y = Relu (x) <a = 1> <b = 2>\n}").find("expected '='") != std::string::npos);
  CHECK(error_of("g (x) => (y) {\n  y Relu (x)\n}").find("expected '=' before the operator") != std::string::npos);
  CHECK(error_of("g (x) => (y) {\n  y = (x)\n}").find("expected an operator") != std::string::npos);
  CHECK(error_of("g (x) => (y) {\n  y = Relu (x)\n").find("expected '}'") != std::string::npos);
  CHECK(error_of("g (x) = > (y) {}").find("expected '=>'") != std::string::npos);
  CHECK(error_of("g (x) => (y) {} trailing").find("functions[0]") != std::string::npos);
}

TEST_CASE("text: attribute values of every kind") {
  const auto m = parse_text_model(wrap_node(R"(y = Op <i = -3, f = 2.5, e = 1e-3, s = "a \"q\" \\", ints = [1, -2, 3],
      floats = [1.5, 2], mixed = [1, 2.5], strs = ["a", "b"], t = float[2] name = {1, 2.5}, t2 = int64 {7},
      g = body (float z) => (float w) { w = Neg (z) }, gs = [b1 () => () {}, "b 2" () => () {}],
      tp = float[N], tps = [seq(float), int64], ts = [float[1] {1}, int32[1] {2}],
      ef: floats = [], ei: ints = [], es: strings = [], et: tensors = [], eg: graphs = [], etp: type_protos = [],
      fi: float = 3, ninf = -inf, nan1 = NaN, inf2 = Infinity> (x))"));
  const auto& a = m.graph.nodes.at(0).attributes;
  REQUIRE(a.size() == 25);
  CHECK(a[0].as_int() == -3);
  CHECK(a[1].as_float() == 2.5f);
  CHECK(a[2].as_float() == 1e-3f);
  CHECK(a[3].as_string() == "a \"q\" \\");
  CHECK(a[4].as_ints() == std::vector<std::int64_t>{1, -2, 3});
  CHECK(a[5].as_floats() == std::vector<float>{1.5f, 2.f});
  CHECK(a[6].as_floats() == std::vector<float>{1.f, 2.5f});  // integers among floats are floats
  CHECK(a[7].as_strings() == std::vector<std::string>{"a", "b"});
  CHECK(a[8].as_tensor().name == "name");
  CHECK(a[8].as_tensor().element<float>(1) == 2.5f);
  CHECK(a[9].as_tensor().dims.empty());
  CHECK(a[9].as_tensor().element<std::int64_t>(0) == 7);
  CHECK(a[10].as_graph().name == "body");
  CHECK(a[10].as_graph().nodes.at(0).op_type == "Neg");
  REQUIRE(a[11].as_graphs().size() == 2);
  CHECK(a[11].as_graphs()[1].name == "b 2");  // a quoted graph name (oxir's extension)
  CHECK(a[12].kind() == AttributeType::TYPE_PROTO);
  CHECK(a[12].as_type() == Type::tensor(DataType::FLOAT, {"N"}));
  CHECK(a[13].kind() == AttributeType::TYPE_PROTOS);
  CHECK(a[14].as_tensors().at(1).element<std::int32_t>(0) == 2);
  for (std::size_t i = 15; i <= 20; ++i) CHECK(a[i].type == static_cast<AttributeType>(a[i].value.index()));
  CHECK(a[15].type == AttributeType::FLOATS);
  CHECK(a[20].type == AttributeType::TYPE_PROTOS);
  CHECK(a[21].as_float() == 3.f);  // an integer given for a declared float
  CHECK(a[22].as_float() == -std::numeric_limits<float>::infinity());
  CHECK(std::bit_cast<std::uint32_t>(a[23].as_float()) == 0x7FC00000u);  // `nan` is the quiet NaN
  CHECK(a[24].as_float() == std::numeric_limits<float>::infinity());
}

TEST_CASE("text: attribute errors and references") {
  CHECK(error_of(wrap_node("y = Op <a = [1, \"s\"]> (x)")).find("a list mixes int and string values") != std::string::npos);
  CHECK(error_of(wrap_node("y = Op <a = []> (x)")).find("an empty list needs its type") != std::string::npos);
  CHECK(error_of(wrap_node("y = Op <a: int = [1]> (x)")).find("a list given for an attribute declared 'int'") !=
        std::string::npos);
  CHECK(error_of(wrap_node("y = Op <a: ints = 1> (x)")).find("a single value given") != std::string::npos);
  CHECK(error_of(wrap_node("y = Op <a: int = 1.5> (x)")).find("a value of kind 'float' given for an attribute declared 'int'") !=
        std::string::npos);
  CHECK(error_of(wrap_node("y = Op <a: integer = 1> (x)")).find("'integer' is not an attribute type") !=
        std::string::npos);
  CHECK(error_of(wrap_node("y = Op <a = [@r]> (x)")).find("reference cannot be a list element") != std::string::npos);
  CHECK(error_of(wrap_node("y = Op <a = 99999999999999999999> (x)")).find("out of range") != std::string::npos);
  CHECK(error_of(wrap_node("y = Op <a = 1e999> (x)")).find("out of range") != std::string::npos);
  CHECK(error_of(wrap_node("y = Op <a = 12ab> (x)")).find("malformed number") != std::string::npos);
  CHECK(error_of(wrap_node("y = Op <a = 1e> (x)")).find("exponent without digits") != std::string::npos);
  CHECK(error_of(wrap_node("y = Op <a = -> (x)")).find("expected an attribute value") != std::string::npos);
  // A tiny float literal rounds to a subnormal or zero, as conversions do.
  CHECK(attr_of("y = Op <a = 1e-40> (x)").as_float() == static_cast<float>(1e-40));
  CHECK(attr_of("y = Op <a = 1e-50> (x)").as_float() == 0.f);
  // References (function bodies), with and without a declared type; quoted names (extension).
  const auto& r = attr_of("y = Op <alpha: float = @a, beta = @b, \"x::y\" = 1> (x)", 0);
  CHECK(r.ref_attr_name == "a");
  CHECK(r.type == AttributeType::FLOAT);
  CHECK(r.value.index() == 0);
  const auto& r2 = attr_of("y = Op <alpha: float = @a, beta = @b, \"x::y\" = 1> (x)", 1);
  CHECK(r2.ref_attr_name == "b");
  CHECK(r2.type == AttributeType::UNDEFINED);
  CHECK(attr_of("y = Op <alpha: float = @a, beta = @b, \"x::y\" = 1> (x)", 2).name == "x::y");
}

TEST_CASE("text: functions") {
  const auto m = parse_text_model(R"(<ir_version: 9, opset_import: ["" : 18, "local" : 1]>
g (float[N] x) => (float[N] y) {
  y = local.Scale <alpha = 2.0> (x)
}
<domain: "local", opset_import: ["" : 18], doc_string: "scales", overload: "o">
Scale <alpha, beta: float = 1.0, gamma> (float[N] x, bias) => (out)
  <float[N] t, out>
{
  a = Constant <value_float: float = @alpha> ()
  t = Mul (x, a)
  out = Add (t, bias)
}
<domain: "local", opset_import: ["" : 18]>
Other (x) => (x2) { x2 = Identity (x) }
)");
  REQUIRE(m.functions.size() == 2);
  const auto& f = m.functions[0];
  CHECK(f.name == "Scale");
  CHECK(f.domain == "local");
  CHECK(f.doc_string == "scales");
  CHECK(f.overload == "o");
  CHECK(f.attributes == std::vector<std::string>{"alpha", "gamma"});
  REQUIRE(f.attribute_protos.size() == 1);
  CHECK(f.attribute_protos[0].name == "beta");
  CHECK(f.attribute_protos[0].as_float() == 1.f);
  CHECK(f.inputs == std::vector<std::string>{"x", "bias"});
  CHECK(f.outputs == std::vector<std::string>{"out"});
  REQUIRE(f.value_info.size() == 3);  // the typed input first, then the list
  CHECK(f.value_info[0].name == "x");
  CHECK(f.value_info[1].name == "t");
  CHECK_FALSE(f.value_info[2].type.has_value());
  CHECK(f.nodes.at(0).attributes.at(0).ref_attr_name == "alpha");
  CHECK(m.functions[1].name == "Other");
  CHECK(parse_text_model(to_text(m)) == m);
  // parse_text_function alone.
  const auto g = parse_text_function("<domain: \"d\"> F (a) => (b) { b = Neg (a) }");
  CHECK(g.domain == "d");
  CHECK(g.nodes.size() == 1);
  CHECK(parse_text_function(to_text(g)) == g);
  CHECK(parse_text_graph("h (a) => (b) { b = Neg (a) }").nodes.size() == 1);
}

TEST_CASE("text: tensor constants of every element type") {
  CHECK(tensor_of("float[3] {1, -2.5, 3e2}").values<float>()[2] == 300.f);
  CHECK(tensor_of("double[1] {0.1}").values<double>()[0] == 0.1);
  CHECK(tensor_of("int8[2] {-128, 127}").values<std::int8_t>()[0] == -128);
  CHECK(tensor_of("uint8[1] {255}").values<std::uint8_t>()[0] == 255);
  CHECK(tensor_of("int16[1] {-32768}").values<std::int16_t>()[0] == -32768);
  CHECK(tensor_of("uint16[1] {65535}").values<std::uint16_t>()[0] == 65535);
  CHECK(tensor_of("int32[1] {-2147483648}").values<std::int32_t>()[0] == INT32_MIN);
  CHECK(tensor_of("uint32[1] {4294967295}").values<std::uint32_t>()[0] == UINT32_MAX);
  CHECK(tensor_of("int64[1] {-9223372036854775808}").values<std::int64_t>()[0] == INT64_MIN);
  CHECK(tensor_of("uint64[1] {18446744073709551615}").values<std::uint64_t>()[0] == UINT64_MAX);
  CHECK(tensor_of("bool[2] {1, 0}").element<bool>(0));
  CHECK(tensor_of("string[2] {\"a\", \"\"}").strings == std::vector<std::string>{"a", ""});
  // 16/8/4-bit floating point: an integer is the encoding (as onnx's parser has it), a
  // floating-point literal the value.
  CHECK(tensor_of("float16[2] {15360, 1.0}").values<float16>()[0].bits() == 0x3C00);
  CHECK(tensor_of("float16[2] {15360, 1.0}").values<float16>()[1].bits() == 0x3C00);
  CHECK(tensor_of("bfloat16[1] {-2.0}").values<bfloat16>()[0].bits() == 0xC000);
  CHECK(static_cast<float>(tensor_of("float8e4m3fn[1] {448.0}").values<float8e4m3fn>()[0]) == 448.f);
  CHECK(tensor_of("float8e5m2[1] {1}").values<float8e5m2>()[0].bits() == 1);
  CHECK(tensor_of("float8e8m0[1] {2.0}").values<float8e8m0>()[0].bits() == 128);
  // 4-bit and 2-bit types: one literal per element, packed low bits first.
  const auto i4 = tensor_of("int4[3] {-8, 7, -1}");
  CHECK(i4.bytes().size() == 2);
  CHECK(static_cast<int>(i4.element<int4>(0)) == -8);
  CHECK(static_cast<int>(i4.element<int4>(2)) == -1);
  CHECK(std::to_integer<unsigned>(i4.bytes()[1]) == 0x0F);  // padding stays zero
  CHECK(static_cast<int>(tensor_of("uint2[5] {0, 1, 2, 3, 3}").element<uint2>(4)) == 3);
  CHECK(static_cast<float>(tensor_of("float4e2m1[2] {6.0, 1}").element<float4e2m1>(0)) == 6.f);
  // Complex: two numbers per element.
  const auto c = tensor_of("complex64[2] {1, 2, 3, 4}");
  CHECK(c.bytes().size() == 16);
  CHECK(c.element<std::complex<float>>(1) == std::complex<float>(3, 4));
  // Typed-field encoding, as onnx's parser writes it.
  CHECK(tensor_of("float[1] {1}").encoding == TensorEncoding::typed);
  // Checks onnx's parser leaves out.
  CHECK(error_of(wrap_node("y = Constant <value = float[2] {1}> ()")).find("1 values for dims [2], which hold 2") !=
        std::string::npos);
  CHECK(error_of(wrap_node("y = Constant <value = float[1] {1, 2}> ()")).find("more values than the dims") !=
        std::string::npos);
  CHECK(error_of(wrap_node("y = Constant <value = uint8[1] {256}> ()")).find("out of range for uint8") !=
        std::string::npos);
  CHECK(error_of(wrap_node("y = Constant <value = int4[1] {8}> ()")).find("out of range for int4") != std::string::npos);
  CHECK(error_of(wrap_node("y = Constant <value = bool[1] {2}> ()")).find("not a bool") != std::string::npos);
  CHECK(error_of(wrap_node("y = Constant <value = float16[1] {65536}> ()")).find("not an encoding of float16") !=
        std::string::npos);
  CHECK(error_of(wrap_node("y = Constant <value = float8e4m3fn[1] {1000.0}> ()")).find("out of range") !=
        std::string::npos);
  CHECK(error_of(wrap_node("y = Constant <value = float[1] {1e39}> ()")).find("out of range for float") !=
        std::string::npos);
  CHECK(error_of(wrap_node("y = Constant <value = int32[1] {1.5}> ()")).find("(an integer)") != std::string::npos);
  CHECK(error_of(wrap_node("y = Constant <value = uint64[1] {-1}> ()")).find("is negative") != std::string::npos);
  CHECK(error_of(wrap_node("y = Constant <value = float[N] {1}> ()")).find("dims must be numbers") != std::string::npos);
  CHECK(error_of(wrap_node("y = Constant <value = float[] {1}> ()")).find("needs its dims") != std::string::npos);
  CHECK(error_of(wrap_node("y = Constant <value = float[2] x> ()")).find("expected '{'") != std::string::npos);
  CHECK(error_of(wrap_node("y = Constant <value = seq(float) x = {1}> ()")).find("needs a tensor type") !=
        std::string::npos);
  // Dims whose product overflows are refused before any value is stored.
  CHECK(error_of(wrap_node("y = Constant <value = float[4294967296, 4294967296] {1}> ()")).find("overflow") !=
        std::string::npos);
  CHECK(error_of(wrap_node("y = Constant <value = float[1000000000000] {1}> ()")).find("1 values for dims") !=
        std::string::npos);
}

TEST_CASE("text: initializers, value_info and external data") {
  const auto m = parse_text_model(R"(g (float[2] x, float[2] w = {1, 2}) => (float[2] y)
    <float[2] t, int64[1] shape = {2}, float[4] big = ["location": "w.bin", "offset": "0", "length": "16"]> {
  t = Add (x, w)
  y = Reshape (t, shape)
})");
  REQUIRE(m.graph.initializers.size() == 3);
  CHECK(m.graph.initializers[0].name == "w");  // an input's default comes first
  CHECK(m.graph.inputs.size() == 2);
  CHECK(m.graph.initializers[1].name == "shape");
  CHECK(m.graph.value_info.size() == 1);
  const auto& big = m.graph.initializers[2];
  CHECK(big.is_external());
  CHECK(find_entry(big.external_data, "location") == "w.bin");
  CHECK(parse_text_model(to_text(m)) == m);
  CHECK(error_of("g (x = {1}) => () {}").find("needs a tensor type") != std::string::npos);
}

TEST_CASE("text: hostile text gives errors, not crashes") {
  CHECK(error_of("").find("expected a graph name") != std::string::npos);
  CHECK(error_of("g (x) => (y) { y = Op <s = \"unterminated> (x) }").find("string not terminated") !=
        std::string::npos);
  CHECK(error_of("g (x) => (y) { y = Op <s = \"a\\").find("string not terminated") != std::string::npos);
  std::string deep_type = "g (";
  for (int i = 0; i < 5000; ++i) deep_type += "seq(";
  deep_type += "float";
  CHECK(error_of(deep_type).find("nested more than") != std::string::npos);
  std::string text = "g (c) => (y) {\n";
  for (int i = 0; i < 2000; ++i) text += "y = If (c) <then_branch = b () => (y) {\n";
  CHECK(error_of(text).find("nested more than") != std::string::npos);
  // Every prefix of a valid model is rejected cleanly (none is a complete model but the whole).
  const std::string full = R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[N] x) => (float[N] y) <float[2] w = {1.5, 2}> { [n] y = Op <a = [1, 2], t = int64 {3}, s = "x", g = h () => () {}> (x, w) })";
  for (std::size_t k = 0; k < full.size(); ++k) {
    bool threw = false;
    try {
      (void)parse_text_model(full.substr(0, k));
    } catch (const Error&) {
      threw = true;
    }
    CHECK_MESSAGE(threw, "prefix of length " << k);
  }
  CHECK_NOTHROW((void)parse_text_model(full));
  // Random byte strings and random mutations of the model: errors only.
  std::mt19937 rng(20261129);
  for (int i = 0; i < 3000; ++i) {
    std::string t = full;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      const auto at = rng() % t.size();
      const char pool[] = "<>()[]{},:=@\"#\\-.0123456789eE xyzfloat\n";
      switch (rng() % 3) {
        case 0: t[at] = pool[rng() % (sizeof pool - 1)]; break;
        case 1: t.erase(at, 1 + rng() % 3); break;
        default: t.insert(at, 1, pool[rng() % (sizeof pool - 1)]); break;
      }
      if (t.empty()) t = "x";
    }
    try {
      const auto m = parse_text_model(t);
      CHECK(parse_text_model(to_text(m)) == m);  // what reads at all prints back
    } catch (const Error&) {
    }
  }
}

TEST_CASE("text: to_text refuses what the syntax cannot hold, names the field, and lossy leaves it out") {
  auto m = parse_text_model(kSyntaxExample);
  m.graph.nodes[1].doc_string = "adds";
  try {
    (void)to_text(m);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.path() == "graph.node[1].doc_string");
  }
  Model with_function = m;
  with_function.graph.nodes[1].doc_string.clear();
  with_function.functions.push_back(parse_text_function("<domain: \"d\"> F (a) => (b) { b = Neg (a) }"));
  with_function.functions[0].nodes[0].doc_string = "negates";
  try {
    (void)to_text(with_function);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.path() == "functions[0].node[0].doc_string");
  }
  TextOptions lossy;
  lossy.lossy = true;
  auto back = parse_text_model(to_text(m, lossy));
  m.graph.nodes[1].doc_string.clear();
  CHECK(back == m);

  auto nan_payload = parse_text_model(wrap_node("y = Constant <value = float[1] {nan}> ()"));
  CHECK(parse_text_model(to_text(nan_payload)) == nan_payload);
  const std::uint32_t odd_nan = 0x7FC00001u;
  std::vector<float> v{std::bit_cast<float>(odd_nan)};
  nan_payload.graph.initializers.push_back(Tensor::from_values<float>("w", {1}, std::span<const float>(v)));
  CHECK_THROWS_WITH_AS((void)to_text(nan_payload, lossy), doctest::Contains("NaN with payload"), Error);

  Model sparse = parse_text_model(kSyntaxExample);
  sparse.graph.sparse_initializers.emplace_back();
  CHECK_THROWS_WITH_AS((void)to_text(sparse, lossy), doctest::Contains("sparse tensors"), Error);
  Model train = parse_text_model(kSyntaxExample);
  train.training_info.emplace_back();
  CHECK_THROWS_WITH_AS((void)to_text(train, lossy), doctest::Contains("training information"), Error);
  Model op = parse_text_model(kSyntaxExample);
  op.graph.nodes[0].op_type = "Mat-Mul";
  CHECK_THROWS_WITH_AS((void)to_text(op, lossy), doctest::Contains("is not an identifier"), Error);
  Model badbool = parse_text_model(wrap_node("y = Constant <value = bool[1] {1}> ()"));
  badbool.graph.nodes[0].attributes[0].value = Box<Tensor>(Tensor::from_bytes("", DataType::BOOL, {1}, Buffer::owned(std::vector<std::byte>{std::byte{2}})));
  CHECK_THROWS_WITH_AS((void)to_text(badbool), doctest::Contains("bool element 0 is byte 2"), Error);
  Model short_payload = parse_text_model(kSyntaxExample);
  short_payload.graph.initializers.push_back(Tensor::from_bytes("w", DataType::FLOAT, {2}, Buffer::owned(std::vector<std::byte>(4))));
  CHECK_THROWS_WITH_AS((void)to_text(short_payload), doctest::Contains("does not fit"), Error);
}

TEST_CASE("text: load_text_model and save_text_model") {
  TempDir dir;
  std::vector<float> values{1.f, 2.f, 3.f, 4.f};
  {
    std::ofstream out(dir.path / "w.bin", std::ios::binary);
    out.write(reinterpret_cast<const char*>(values.data()), 16);
  }
  const std::string text = R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[4] x) => (float[4] y) <float[4] w = ["location": "w.bin", "offset": "0", "length": "16"]> {
  y = Add (x, w)
})";
  {
    std::ofstream out(dir.path / "m.onnxtxt");
    out << text;
  }
  const auto m = load_text_model(dir.path / "m.onnxtxt");
  CHECK(m.graph.initializers.at(0).values<float>()[3] == 4.f);
  // Saved as text, the external tensor comes inline; reading it gives the same values.
  save_text_model(m, dir.path / "copy.onnxtxt");
  const auto copy = load_text_model(dir.path / "copy.onnxtxt");
  CHECK_FALSE(copy.graph.initializers.at(0).is_external());
  CHECK(copy.graph.initializers.at(0).values<float>()[2] == 3.f);
  // The binary form of the text model equals the text model.
  save_model(copy, dir.path / "copy.onnx");
  CHECK(load_model(dir.path / "copy.onnx") == copy);
  // External data outside the folder, and errors naming the file.
  {
    std::ofstream out(dir.path / "bad.onnxtxt");
    out << R"(g () => (float[1] w) <float[1] w = ["location": "../w.bin"]> {})";
  }
  CHECK_THROWS_WITH_AS((void)load_text_model(dir.path / "bad.onnxtxt"), doctest::Contains("bad.onnxtxt"), Error);
  {
    std::ofstream out(dir.path / "syntax.onnxtxt");
    out << "g () => ( {}";
  }
  CHECK_THROWS_WITH_AS((void)load_text_model(dir.path / "syntax.onnxtxt"),
                       doctest::Contains("syntax.onnxtxt: graph.output[0]: line 1, column 11"), Error);
}

TEST_CASE("text: save_text_model writes a model without external payloads as it is, without copying it") {
  TempDir dir;
  Model m;
  m.ir_version = 8;
  m.set_opset_version("", 17);
  m.graph = graph_util::relu_chain(5000);
  const std::string text = to_text(m);

  // The text and what printing it takes; a copy of the model would hold 5,000 Nodes on top.
  const auto peak = oxir_test::peak_during([&] { save_text_model(m, dir.path / "m.onnxtxt"); });
  MESSAGE("text " << text.size() << " bytes, peak held while saving " << peak << " bytes");
  CHECK(peak < 4 * text.size() + 65536);
  CHECK(load_text_model(dir.path / "m.onnxtxt") == m);
}

namespace {

// Random models of everything the syntax can hold, for the round trip.
struct RandomModels {
  std::mt19937 rng;
  explicit RandomModels(unsigned seed) : rng(seed) {}

  std::size_t pick(std::size_t n) { return rng() % n; }
  std::string name() {
    static const char* plain[] = {"x", "y", "N", "value_1", "_t", "float", "seq", "nan", "Inf", "opaque"};
    static const char* odd[] = {"", "a b", "onnx::Add_0", "/layer/MatMul_output_0", "q\"uote", "back\\slash",
                                "new\nline", "9lives", "é", "#hash"};
    return pick(3) ? plain[pick(10)] : odd[pick(10)];
  }
  std::string ident() {
    static const char* ids[] = {"a", "b", "alpha", "Op", "_x", "float", "graph", "ints"};
    return ids[pick(8)];
  }
  DataType elem() {
    static const DataType all[] = {DataType::FLOAT,        DataType::UINT8,          DataType::INT8,
                                   DataType::UINT16,       DataType::INT16,          DataType::INT32,
                                   DataType::INT64,        DataType::STRING,         DataType::BOOL,
                                   DataType::FLOAT16,      DataType::DOUBLE,         DataType::UINT32,
                                   DataType::UINT64,       DataType::COMPLEX64,      DataType::COMPLEX128,
                                   DataType::BFLOAT16,     DataType::FLOAT8E4M3FN,   DataType::FLOAT8E4M3FNUZ,
                                   DataType::FLOAT8E5M2,   DataType::FLOAT8E5M2FNUZ, DataType::UINT4,
                                   DataType::INT4,         DataType::FLOAT4E2M1,     DataType::FLOAT8E8M0,
                                   DataType::UINT2,        DataType::INT2};
    return all[pick(std::size(all))];
  }
  Type type(int depth = 0) {
    switch (depth > 2 ? 0 : pick(7)) {
      case 1: return Type::sequence(type(depth + 1));
      case 2: return Type::optional(type(depth + 1));
      case 3: return Type::map(pick(2) ? DataType::STRING : DataType::INT64, type(depth + 1));
      case 4: {
        auto t = Type::sparse_tensor(elem(), {2, 3});
        return t;
      }
      case 5: {
        OpaqueType o;
        if (pick(2)) o.name = pick(2) ? "thing" : "a.b";
        if (!o.name.empty() && pick(2)) o.domain = pick(2) ? "com.x" : "odd domain";
        return o;
      }
      default: {
        if (pick(4) == 0) return Type::tensor(elem());
        Shape s;
        const auto rank = pick(4);
        for (std::size_t i = 0; i < rank; ++i) {
          switch (pick(3)) {
            case 0: s.dims.emplace_back(static_cast<std::int64_t>(pick(5)) - 1); break;
            case 1: s.dims.emplace_back(name()); break;
            default: s.dims.emplace_back(); break;
          }
        }
        return Type::tensor(elem(), s);
      }
    }
  }
  Tensor tensor(std::string n) {
    const DataType t = elem();
    std::vector<std::int64_t> dims;
    const auto rank = pick(3);
    for (std::size_t i = 0; i < rank; ++i) dims.push_back(static_cast<std::int64_t>(pick(4)));
    Tensor out;
    out.name = std::move(n);
    out.data_type = t;
    out.dims = dims;
    const auto count = *out.element_count();
    if (t == DataType::STRING) {
      for (std::uint64_t i = 0; i < count; ++i) out.strings.push_back(name());
      return out;
    }
    std::vector<std::byte> bytes(*out.expected_bytes());
    for (auto& b : bytes) b = static_cast<std::byte>(rng());
    if (is_sub_byte(t)) {  // padding bits zero
      const auto per = static_cast<std::uint64_t>(8 / bit_width(t));
      if (count % per) bytes.back() &= static_cast<std::byte>((1u << ((count % per) * static_cast<unsigned>(bit_width(t)))) - 1u);
    }
    if (t == DataType::BOOL)
      for (auto& b : bytes) b &= std::byte{1};
    // Float NaNs other than the quiet one have no text; replace them.
    auto fix = [&](auto zero) {
      using F = decltype(zero);
      for (std::size_t i = 0; i + sizeof(F) <= bytes.size(); i += sizeof(F)) {
        F v;
        std::memcpy(&v, bytes.data() + i, sizeof(F));
        if (std::isnan(v)) {
          v = pick(2) ? std::numeric_limits<F>::quiet_NaN() : F(1.5);
          std::memcpy(bytes.data() + i, &v, sizeof(F));
        }
      }
    };
    if (t == DataType::FLOAT || t == DataType::COMPLEX64) fix(0.f);
    if (t == DataType::DOUBLE || t == DataType::COMPLEX128) fix(0.0);
    out.data = Buffer::owned(std::move(bytes));
    if (pick(4) == 0) {
      out.data = Buffer();
      out.data_location = DataLocation::EXTERNAL;
      out.external_data = {{"location", "w.bin", {}, {}}, {"offset", std::to_string(pick(100)), {}, {}}};
    }
    return out;
  }
  Attribute attribute(int depth) {
    const std::string n = pick(5) ? ident() : name() + "x";
    switch (pick(depth > 1 ? 9 : 15)) {
      case 0: return Attribute(n, std::bit_cast<float>(static_cast<std::uint32_t>(rng())) == 0 ? 0.f : static_cast<float>(static_cast<int>(rng() % 2001) - 1000) / 8.f);
      case 1: return Attribute(n, static_cast<std::int64_t>(rng()) - (std::int64_t{1} << 31));
      case 2: return Attribute(n, name());
      case 3: {
        std::vector<float> v(pick(4));
        for (auto& x : v) x = pick(2) ? 1e-30f * static_cast<float>(rng() % 7) : -static_cast<float>(rng() % 9);
        return Attribute(n, v);
      }
      case 4: {
        std::vector<std::int64_t> v(pick(4));
        for (auto& x : v) x = static_cast<std::int64_t>(rng()) * (pick(2) ? -1 : 1);
        return Attribute(n, v);
      }
      case 5: {
        std::vector<std::string> v(pick(4));
        for (auto& x : v) x = name();
        return Attribute(n, v);
      }
      case 6: return Attribute(n, tensor(pick(2) ? name() : ""));
      case 7: return Attribute(n, type());
      case 8: {
        auto a = Attribute::reference(n, pick(2) ? ident() : name() + "r", pick(2) ? AttributeType::FLOAT : AttributeType::UNDEFINED);
        return a;
      }
      case 9: {
        std::vector<Tensor> v(pick(3));
        for (auto& x : v) x = tensor(name());
        return Attribute(n, v);
      }
      case 10: {
        std::vector<Type> v(pick(3));
        for (auto& x : v) x = type();
        return Attribute(n, v);
      }
      case 11: {
        std::vector<Graph> v(pick(3));
        for (auto& x : v) x = graph(depth + 1);
        return Attribute(n, v);
      }
      default: return Attribute(n, graph(depth + 1));
    }
  }
  Node node(int depth) {
    Node n;
    static const char* ops[] = {"Add", "Relu", "Custom", "If", "float"};
    static const char* domains[] = {"", "", "com.microsoft", "ai.onnx", "a.b.c"};
    n.op_type = ops[pick(5)];
    n.domain = domains[pick(5)];
    if (pick(4) == 0) n.overload = "v" + std::to_string(pick(3));
    if (pick(2)) n.name = name();
    for (auto i = pick(4); i > 0; --i) n.inputs.push_back(name());
    for (auto i = pick(3); i > 0; --i) n.outputs.push_back(name());
    for (auto i = pick(3); i > 0; --i) n.attributes.push_back(attribute(depth));
    return n;
  }
  ValueInfo value(bool typed) {
    ValueInfo v;
    v.name = name();
    if (typed || pick(3)) v.type = type();
    return v;
  }
  Graph graph(int depth) {
    Graph g;
    g.name = name();
    for (auto i = pick(3); i > 0; --i) g.inputs.push_back(value(false));
    for (auto i = pick(3); i > 0; --i) g.outputs.push_back(value(false));
    for (auto i = pick(3); i > 0; --i) g.value_info.push_back(value(false));
    for (auto i = pick(3); i > 0; --i) g.initializers.push_back(tensor(name()));
    for (auto i = pick(depth > 1 ? 2 : 5); i > 0; --i) g.nodes.push_back(node(depth));
    return g;
  }
  Function function() {
    Function f;
    f.name = name();
    f.domain = pick(2) ? "local" : "";
    if (pick(2)) f.opset_imports.push_back({"", 18, {}, {}});
    if (pick(3) == 0) f.doc_string = name();
    if (pick(3) == 0) f.overload = name();
    for (auto i = pick(3); i > 0; --i) f.attributes.push_back(pick(4) ? ident() : name() + "a");
    for (auto i = pick(2); i > 0; --i) {
      auto a = attribute(2);
      if (a.ref_attr_name.empty()) f.attribute_protos.push_back(a);
    }
    for (auto i = pick(3); i > 0; --i) f.inputs.push_back(name());
    for (auto i = pick(3); i > 0; --i) f.outputs.push_back(name());
    for (auto i = pick(3); i > 0; --i) f.value_info.push_back(value(pick(2) != 0));
    for (auto i = pick(4); i > 0; --i) f.nodes.push_back(node(1));
    return f;
  }
  Model model() {
    Model m;
    if (pick(2)) m.ir_version = static_cast<std::int64_t>(pick(12));
    for (auto i = pick(3); i > 0; --i) m.opset_imports.push_back({pick(2) ? "" : name(), static_cast<std::int64_t>(pick(30)), {}, {}});
    if (pick(2)) m.producer_name = name();
    if (pick(3) == 0) m.producer_version = name();
    if (pick(3) == 0) m.domain = name();
    if (pick(3) == 0) m.model_version = static_cast<std::int64_t>(rng()) - 100;
    if (pick(3) == 0) m.doc_string = name();
    for (auto i = pick(3); i > 0; --i) m.metadata_props.push_back({name(), name(), {}, {}});
    m.graph = graph(0);
    for (auto i = pick(3); i > 0; --i) m.functions.push_back(function());
    return m;
  }
};

}  // namespace

TEST_CASE("text: random models read back equal from their text") {
  RandomModels gen(1129);
  std::size_t checked = 0, bytes = 0;
  for (int i = 0; i < 400; ++i) {
    const Model m = gen.model();
    const auto text = to_text(m);
    bytes += text.size();
    Model back;
    try {
      back = parse_text_model(text);
    } catch (const Error& e) {
      FAIL_CHECK("model " << i << " does not read back: " << e.what() << "\n" << text);
      continue;
    }
    CHECK_MESSAGE(back == m, "model " << i << "\n" << text);
    // Printing is deterministic and stable.
    CHECK(to_text(back) == text);
    ++checked;
  }
  CHECK(checked == 400);
  MESSAGE(checked << " random models, " << bytes << " bytes of text");
}

TEST_CASE("text: every libonnx-testdata model reads back equal from its text") {
  if (!corpus::available()) return;
  std::size_t printed = 0, refused = 0;
  const auto n = corpus::for_each_model([&](const std::string& path, const Model& m) {
    std::string text;
    try {
      text = to_text(m);
    } catch (const Error& e) {
      ++refused;
      MESSAGE(path << ": " << e.what());
      return;
    }
    ++printed;
    CHECK_MESSAGE(parse_text_model(text) == m, path);
  });
  CHECK(n >= 1000);
  CHECK(printed == n);  // the corpus has nothing the syntax cannot hold
  CHECK(refused == 0);
}

}  // namespace oxir_unit_test_text
