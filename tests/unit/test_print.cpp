// Readable printing of every ir type.
#include <doctest/doctest.h>

#include <oxir/oxir.hpp>

namespace oxir_unit_test_print {

using namespace oxir;

TEST_CASE("printing types and shapes") {
  CHECK(to_string(DataType::FLOAT8E4M3FN) == "float8e4m3fn");
  CHECK(to_string(Type::tensor(DataType::FLOAT, {"N", 3, Dim{}})) == "float[N,3,?]");
  CHECK(to_string(Type::tensor(DataType::INT64, {})) == "int64[]");
  CHECK(to_string(Type::tensor(DataType::INT64)) == "int64");
  CHECK(to_string(Type::sequence(Type::tensor(DataType::FLOAT16, {2}))) == "seq(float16[2])");
  CHECK(to_string(Type::map(DataType::STRING, Type::tensor(DataType::FLOAT))) == "map(string, float)");
  CHECK(to_string(Type::optional(Type::sparse_tensor(DataType::BFLOAT16, {4}))) ==
        "optional(sparse_tensor(bfloat16[4]))");
  CHECK(to_string(Type(OpaqueType{"d", "n", {}, {}})) == R"(opaque("d", "n"))");
  CHECK(to_string(Type{}) == "?");
}

TEST_CASE("printing tensors, attributes and nodes") {
  CHECK(to_string(Tensor::from_values<float>("w", {2}, {1.5f, -2.f})) == "float[2] w = {1.5, -2}");
  CHECK(to_string(Tensor::from_values<int4>("q", {3}, {int4(-1), int4(2), int4(3)})) == "int4[3] q = {-1, 2, 3}");
  CHECK(to_string(Tensor::from_values<std::string>("s", {1}, {std::string("a\"b")})) == R"(string[1] s = {"a\"b"})");
  std::vector<std::int64_t> many(20, 1);
  CHECK(to_string(Tensor::from_values<std::int64_t>("m", {20}, many)) ==
        "int64[20] m = {1, 1, 1, 1, 1, 1, 1, 1, ... (20 elements)}");
  Tensor bad = Tensor::from_bytes("b", DataType::FLOAT, {4}, Buffer::owned(std::vector<std::byte>(3)));
  CHECK(to_string(bad) == "float[4] b = <payload of 3 bytes does not fit the dims>");
  Tensor ext = Tensor::from_bytes("e", DataType::FLOAT, {4}, Buffer());
  ext.data_location = DataLocation::EXTERNAL;
  ext.external_data.push_back({"location", "weights.bin", {}, {}});
  CHECK(to_string(ext) == R"(float[4] e = external("weights.bin"))");

  Node n("Conv", {"X", "", "W"}, {"Y"}, "", "com.example");
  n.set_attribute({"pads", std::vector<std::int64_t>{1, 1}}).set_attribute({"mode", "x"});
  CHECK(to_string(n) == R"(Y = com.example.Conv <pads = [1, 1], mode = "x"> (X, "", W))");
  CHECK(to_string(Attribute::reference("alpha", "a", AttributeType::FLOAT)) == "alpha: FLOAT = @a");
}

TEST_CASE("printing a model") {
  Model m;
  m.ir_version = 10;
  m.set_opset_version("", 21);
  m.graph.name = "g";
  m.graph.inputs.emplace_back("X", Type::tensor(DataType::FLOAT, {"N"}));
  m.graph.outputs.emplace_back("Y", Type::tensor(DataType::FLOAT, {"N"}));
  m.graph.initializers.push_back(Tensor::from_values<float>("B", {1}, {2.f}));
  m.graph.nodes.push_back(Node("Add", {"X", "B"}, {"Y"}));
  CHECK(to_string(m) ==
        "<ir_version: 10, opset_import: [\"\" : 21]>\n"
        "g (float[N] X) => (float[N] Y) <float[1] B = {2}> {\n"
        "  Y = Add (X, B)\n"
        "}\n");
}

}  // namespace oxir_unit_test_print
