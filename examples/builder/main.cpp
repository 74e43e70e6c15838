// An exporter's view of oxir::Builder: writes a small encoder block the way a framework exporter
// would (module scopes, a model-local function, an If, omitted outputs, symbolic batch size),
// infers its shapes and saves it.
//
//   build/bin/builder_example OUT.onnx
//
// tests/builder/verify_builder.py runs the saved model through onnx's checker (with its strict
// shape inference) and ONNX Runtime, against a NumPy transcription of the same computation.
#include <oxir/oxir.hpp>

#include <cstdint>
#include <iostream>
#include <vector>

namespace {
// Deterministic weights; verify_builder.py uses the same formula.
std::vector<float> weights(std::size_t n, int salt) {
  std::vector<float> w(n);
  for (std::size_t i = 0; i < n; ++i)
    w[i] = static_cast<float>(static_cast<int>((i * 37 + static_cast<std::size_t>(salt)) % 101) - 50) / 100.0f;
  return w;
}

// local.Swish(x) = x * Sigmoid(x), written into the model as a function.
oxir::Function swish() {
  oxir::Function f;
  f.name = "Swish";
  f.domain = "local";
  f.opset_imports.push_back({"", 17, {}, {}});
  oxir::Builder fb(f);
  oxir::Value x = fb.input("x");
  fb.output(fb.op("Mul", {x, fb.op("Sigmoid", {x})}), "y");
  return f;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: builder_example OUT.onnx\n";
    return 2;
  }
  using namespace oxir;
  try {
    Model m;
    m.ir_version = 8;  // onnx 1.12 (the checker the test runs) reads IR 8 and opset 17
    m.producer_name = "oxir builder example";
    m.set_opset_version("", 17);
    m.set_opset_version("local", 1);
    m.functions.push_back(swish());
    m.graph.name = "encoder_block";

    Builder b(m);
    Value x = b.input("X", Type::tensor(DataType::FLOAT, {"N", 8}));
    Value flag = b.input("flag", Type::tensor(DataType::BOOL, {}));
    Value h;
    {
      auto scope = b.scope("encoder");
      Value w1 = b.initializer(Tensor::from_values<float>("encoder.w1", {8, 16}, weights(128, 3)));
      Value b1 = b.initializer(Tensor::from_values<float>("encoder.b1", {16}, weights(16, 7)));
      Value gamma = b.initializer(Tensor::from_values<float>("encoder.gamma", {16}, weights(16, 11)));
      h = b.op("Add", {b.op("MatMul", {x, w1}), b1});
      h = b.op("Swish", {h}, {}, {.domain = "local"});
      // LayerNormalization without its optional bias (an absent input).
      h = b.op("LayerNormalization", {h, gamma, Value{}}, {Attribute("axis", -1), Attribute("epsilon", 1e-5f)});
    }
    // Split into halves (two outputs), then a gated softmax.
    auto halves = b.op_n("Split", {h}, 2, {Attribute("axis", 1)});
    Value s = b.op("Softmax", {b.op("Mul", {halves[0], halves[1]})}, {Attribute("axis", -1)});
    // Dropout in inference mode with its mask output left out.
    s = b.op_n("Dropout", {s}, 2, {}, {.omitted = {1}})[0];

    // If(flag): then 2*s, else -s. Both branches read `s` from the enclosing graph.
    Graph then_g = b.subgraph("then", [&](Builder& t) {
      t.output(t.op("Mul", {s, t.constant_scalar(2.0f)}), "then_y");
    });
    Graph else_g = b.subgraph("else", [&](Builder& e) { e.output(e.op("Neg", {s}), "else_y"); });
    Value y = b.op("If", {flag}, {Attribute("then_branch", then_g), Attribute("else_branch", else_g)});

    b.output(y, "Y");
    b.output(h, "H");
    b.output(b.op("Reshape", {y, b.constant_ints({-1})}), "flat");

    const auto report = infer_shapes(m);
    for (const auto& d : report.diagnostics) std::cerr << d.to_string() << '\n';
    const auto checked = check(m);
    if (!checked.ok() || report.has_errors()) {
      std::cerr << checked.to_string();
      return 1;
    }
    for (const auto& o : m.graph.outputs) std::cout << o.name << ": " << *o.type << '\n';
    save_model(m, argv[1]);
  } catch (const Error& e) {
    std::cerr << "builder_example: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
