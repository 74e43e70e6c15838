// A downstream program that uses oxir the way an installed/vendored copy is used. Built by the
// `packaging` ctest tests three ways (find_package, add_subdirectory, single header); each run's
// output must equal expected_output.txt.
#ifdef OXIR_CONSUMER_SINGLE_HEADER
#include <oxir.hpp>  // single_include/oxir.hpp
#else
#include <oxir/oxir.hpp>
#endif

#include <iostream>

int main() {
  using oxir::DataType;
  static_assert(oxir::bit_width(DataType::FLOAT) == 32, "constexpr API usable at compile time");

  int failures = 0;
  for (DataType t : {DataType::FLOAT, DataType::BFLOAT16, DataType::INT64, DataType::INT4, DataType::STRING}) {
    std::cout << oxir::data_type_name(t) << ' ' << oxir::bit_width(t) << '\n';
  }
  if (oxir::data_type_name(DataType::FLOAT8E4M3FN) != "FLOAT8E4M3FN") ++failures;

  // Build a tiny model, serialize it with the native writer, parse it back and print it.
  oxir::Model m;
  m.ir_version = 10;
  m.set_opset_version("", 21);
  m.graph.name = "consumer";
  m.graph.inputs.emplace_back("X", oxir::Type::tensor(DataType::FLOAT, {"N"}));
  m.graph.outputs.emplace_back("Y", oxir::Type::tensor(DataType::FLOAT, {"N"}));
  m.graph.initializers.push_back(oxir::Tensor::from_values<oxir::float16>("H", {1}, {oxir::float16(0.5f)}));
  m.graph.nodes.push_back(oxir::Node("Relu", {"X"}, {"Y"}));
  const oxir::Model back = oxir::parse_model(oxir::serialize_model_to_string(m));
  if (!(back == m)) ++failures;
  std::cout << back;
  if (oxir::bit_width(DataType::UINT2) != 2) ++failures;

  std::cout << (failures == 0 ? "consumer ok" : "consumer FAILED") << '\n';
  return failures == 0 ? 0 : 1;
}
