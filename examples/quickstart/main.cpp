// Builds a small model in code -- Y = Relu(X @ W + B) with a symbolic batch dimension and
// float16 / bfloat16 weights -- then inspects and prints it.
#include <oxir/oxir.hpp>

#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

// Usage: quickstart [OUT.onnx]  (default: quickstart.onnx in the system temp folder)
int main(int argc, char** argv) {
  using namespace oxir;
  const std::filesystem::path out =
      argc > 1 ? std::filesystem::path(argv[1]) : std::filesystem::temp_directory_path() / "quickstart.onnx";

  // Weights: W is float16 [4,3], B is bfloat16 [3] (Cast to float16 inside the graph).
  std::vector<float16> w;
  for (int i = 0; i < 12; ++i) w.push_back(float16(0.25f * static_cast<float>(i - 6)));
  std::vector<bfloat16> b = {bfloat16(0.5f), bfloat16(-1.0f), bfloat16(2.0f)};

  Model model;
  model.ir_version = 10;
  model.producer_name = "oxir-quickstart";
  model.set_opset_version("", 21);

  Graph& g = model.graph;
  g.name = "mlp_block";
  g.inputs.emplace_back("X", Type::tensor(DataType::FLOAT16, {"N", 4}));
  g.outputs.emplace_back("Y", Type::tensor(DataType::FLOAT16, {"N", 3}));
  g.initializers.push_back(Tensor::from_values<float16>("W", {4, 3}, w));
  g.initializers.push_back(Tensor::from_values<bfloat16>("B", {3}, b));

  g.nodes.push_back(Node("MatMul", {"X", "W"}, {"XW"}, "matmul"));
  Node cast("Cast", {"B"}, {"B16"}, "cast");
  cast.set_attribute({"to", static_cast<std::int64_t>(DataType::FLOAT16)});
  g.nodes.push_back(cast);
  g.nodes.push_back(Node("Add", {"XW", "B16"}, {"Z"}, "add"));
  g.nodes.push_back(Node("Relu", {"Z"}, {"Y"}, "relu"));

  // Copies share the weights: nothing is copied but the graph structure.
  Model copy = model;
  std::cout << "copy shares W: " << std::boolalpha
            << copy.graph.find_initializer("W")->data.shares_storage_with(model.graph.find_initializer("W")->data)
            << ", equal: " << (copy == model) << "\n";

  // Nodes in dependency order, and every node including nested subgraphs (none here).
  std::cout << "topologically sorted: " << is_topologically_sorted(g) << "\n";
  std::cout << "default-domain opset: " << *model.opset_version("ai.onnx") << "\n";
  std::cout << "W[1,2] = " << static_cast<float>(g.find_initializer("W")->element<float16>(5)) << "\n\n";

  std::cout << model << "\n";

  // Shape inference (on a copy): every intermediate value gets a type in the model's own symbols.
  Model inferred = model;
  const InferReport report = infer_shapes(inferred);
  std::cout << "inferred " << report.values_typed << " values, " << report.conflicts << " conflicts:\n";
  for (const auto& v : inferred.graph.value_info) std::cout << "  " << v.name << ": " << *v.type << "\n";
  std::cout << "\n";

  // Save with the native writer and read back (memory-mapped, weights not copied).
  save_model(model, out);
  const Model loaded = load_model(out);
  std::cout << "saved " << out.string() << " (" << std::filesystem::file_size(out)
            << " bytes); loaded back equal: " << (loaded == model) << "\n";
  return loaded == model ? 0 : 1;
}
