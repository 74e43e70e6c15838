// Robustness of inference on hostile models: every backend-test model of libonnx-testdata (when
// installed), mutated in seeded random ways (inputs dropped or dangling, attributes removed or set
// to extreme values, nodes reversed, dims negative or huge, types changed). Permissive inference
// must never throw, crash or trip the sanitizers; strict inference may only throw oxir::Error.
#include <doctest/doctest.h>

#include <oxir/io.hpp>

#include <cstdlib>
#include <filesystem>
#include <limits>
#include <random>

#include "infer_test_util.hpp"

using namespace oxir;

namespace {

const std::filesystem::path kCorpus = "/usr/share/libonnx-testdata/data";

void mutate_graph(Graph& g, std::mt19937_64& rng) {
  auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % std::max<std::size_t>(n, 1)); };
  const std::int64_t extremes[] = {0, -1, -7, 1, 3, std::numeric_limits<std::int64_t>::max(),
                                   std::numeric_limits<std::int64_t>::min(), std::int64_t{1} << 40};
  const int rounds = 1 + static_cast<int>(rng() % 3);
  for (int r = 0; r < rounds; ++r) {
    switch (rng() % 8) {
      case 0:  // drop or dangle an input
        if (!g.nodes.empty()) {
          auto& n = g.nodes[pick(g.nodes.size())];
          if (!n.inputs.empty()) n.inputs[pick(n.inputs.size())] = (rng() % 2) ? "" : "no_such_value";
        }
        break;
      case 1:  // remove an attribute
        if (!g.nodes.empty()) {
          auto& n = g.nodes[pick(g.nodes.size())];
          if (!n.attributes.empty()) n.attributes.erase(n.attributes.begin() + static_cast<std::ptrdiff_t>(pick(n.attributes.size())));
        }
        break;
      case 2:  // extreme attribute values
        if (!g.nodes.empty()) {
          auto& n = g.nodes[pick(g.nodes.size())];
          for (auto& a : n.attributes) {
            if (a.kind() == AttributeType::INT) a = Attribute(a.name, extremes[pick(std::size(extremes))]);
            else if (a.kind() == AttributeType::INTS) {
              auto v = a.as_ints();
              if (!v.empty()) v[pick(v.size())] = extremes[pick(std::size(extremes))];
              if (rng() % 3 == 0) v.push_back(extremes[pick(std::size(extremes))]);
              a = Attribute(a.name, v);
            } else if (a.kind() == AttributeType::FLOAT) {
              a = Attribute(a.name, (rng() % 2) ? std::numeric_limits<float>::quiet_NaN() : -1e30f);
            }
          }
        }
        break;
      case 3:  // reverse the nodes (unsorted graph)
        std::reverse(g.nodes.begin(), g.nodes.end());
        break;
      case 4:  // extreme input dims
        if (!g.inputs.empty()) {
          auto& v = g.inputs[pick(g.inputs.size())];
          if (v.type)
            if (auto* t = std::get_if<TensorType>(&v.type->value); t && t->shape && !t->shape->dims.empty())
              t->shape->dims[pick(t->shape->dims.size())] = Dim(extremes[pick(std::size(extremes))]);
        }
        break;
      case 5:  // change an input's element type or drop its shape
        if (!g.inputs.empty()) {
          auto& v = g.inputs[pick(g.inputs.size())];
          if (v.type)
            if (auto* t = std::get_if<TensorType>(&v.type->value)) {
              if (rng() % 2) t->shape.reset();
              else t->elem_type = static_cast<DataType>(rng() % 27);
            }
        }
        break;
      case 6:  // drop a node's outputs or add extra ones
        if (!g.nodes.empty()) {
          auto& n = g.nodes[pick(g.nodes.size())];
          if (rng() % 2 && !n.outputs.empty()) n.outputs.pop_back();
          else n.outputs.push_back("extra_" + std::to_string(rng() % 100));
        }
        break;
      case 7:  // a self-loop: a node consuming its own output
        if (!g.nodes.empty()) {
          auto& n = g.nodes[pick(g.nodes.size())];
          if (!n.inputs.empty() && !n.outputs.empty()) n.inputs[0] = n.outputs[0];
        }
        break;
    }
  }
}

}  // namespace

TEST_CASE("Inference never crashes or throws on mutated backend-test models") {
  if (!std::filesystem::exists(kCorpus)) {
    MESSAGE("libonnx-testdata not installed: skipped");
    return;
  }
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::recursive_directory_iterator(kCorpus))
    if (e.path().filename() == "model.onnx") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() > 1000);
  std::uint64_t seed = 20261123;
  if (const char* s = std::getenv("OXIR_FUZZ_SEED")) seed = std::strtoull(s, nullptr, 10);
  std::mt19937_64 rng(seed);
  std::size_t runs = 0, strict_throws = 0, diagnostics = 0;
  for (const auto& f : files) {
    Model original = load_model(f);
    for (int k = 0; k < 6; ++k) {
      Model m = original;
      m.graph.value_info.clear();
      mutate_graph(m.graph, rng);
      Model strict = m;
      InferReport rep;
      CHECK_NOTHROW(rep = infer_shapes(m));
      diagnostics += rep.diagnostics.size();
      try {
        (void)infer_shapes(strict, {.strict = true});
      } catch (const Error&) {
        ++strict_throws;  // allowed: strict mode reports the first problem as oxir::Error
      }
      ++runs;
    }
  }
  MESSAGE(runs << " mutated models inferred; " << diagnostics << " diagnostics; strict mode threw on " << strict_throws);
  CHECK(diagnostics > 0);  // the mutations do produce malformed nodes
}
