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

#include "alloc_counter.hpp"
#include "infer_test_util.hpp"

namespace oxir_unit_test_infer_fuzz {

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

// Each model below is a file of a few KB to 0.5 MB that describes huge shapes, contents or
// numbers of unknown sizes. Inference must hold memory in proportion to the file (the peak is
// checked: under 64 MB plus 2 KB per node), not to what it describes: shape-tensor contents are
// tracked up to kMaxSymbolicElements and budgeted per model, and so are shape dims and fresh
// symbols. Every case needed hundreds of MB to GB before its fix.
TEST_CASE("Inference allocates in proportion to the model, not to the sizes it describes") {
  using oxir_test::ints;
  using oxir_test::make_model;
  using oxir_test::type_of;
  std::vector<std::int64_t> thousand(1000);
  for (std::size_t i = 0; i < thousand.size(); ++i) thousand[i] = static_cast<std::int64_t>(i);
  const std::int64_t big = std::int64_t{1} << 50;
  struct Case {
    const char* what;
    Model model;
    const char* expect;  // the output's inferred type
    bool warns = false;  // one warning: the model's shapes exceed what inference keeps
  };
  std::vector<Case> cases;
  Node concat("Concat", std::vector<std::string>(4000, "x"), {"y"});
  concat.attributes.emplace_back("axis", std::int64_t{0});
  // 4,000 inputs of one 1,000-element shape tensor: 4 M elements if the value were built.
  cases.push_back({"Concat of many tracked values",
                   make_model({concat}, {},
                              {ints("x", thousand)}),
                   "INT64[4000000]"});
  // The same through a variadic element-wise operator.
  cases.push_back({"Max of many tracked values",
                   make_model({Node("Max", std::vector<std::string>(4000, "x"), {"y"})}, {}, {ints("x", thousand)}),
                   "INT64[1000]"});
  cases.push_back({"Range of 2^50 elements",
                   make_model({Node("Range", {"a", "b", "d"}, {"y"})}, {},
                              {ints("a", {0}, true), ints("b", {big}, true), ints("d", {1}, true)}),
                   "INT64[1125899906842624]"});
  cases.push_back({"Tile of a tracked value 2^50 times",
                   make_model({Node("Tile", {"x", "r"}, {"y"})}, {}, {ints("x", {1, 2}), ints("r", {big})}),
                   "INT64[2251799813685248]"});
  cases.push_back({"Expand of a tracked value to 2^50",
                   make_model({Node("Expand", {"x", "s"}, {"y"})}, {}, {ints("x", {3}), ints("s", {big})}),
                   "INT64[1125899906842624]"});
  cases.push_back({"ConstantOfShape [2^50]", make_model({Node("ConstantOfShape", {"s"}, {"y"})}, {}, {ints("s", {big})}),
                   "FLOAT[1125899906842624]"});
  cases.push_back({"Pad of a tracked value by 2^50",
                   make_model({Node("Pad", {"x", "p"}, {"y"})}, {}, {ints("x", {1, 2}), ints("p", {0, big})}),
                   "INT64[1125899906842626]"});
  // Each value keeps its own copy of its contents: 20,000 Identity nodes over one 1,024-element
  // constant would hold 640 MB of them (a 540 KB file), were the contents not budgeted per model.
  {
    std::vector<Node> chain;
    for (int i = 0; i < 20000; ++i)
      chain.push_back(Node("Identity", {i ? "v" + std::to_string(i - 1) : std::string("x")}, {"v" + std::to_string(i)}));
    chain.push_back(Node("Identity", {"v19999"}, {"y"}));
    cases.push_back({"a chain of Identity over a tracked value", make_model(std::move(chain), {}, {ints("x", thousand)}),
                     "INT64[1000]"});
  }
  // Every value has its own shape: 2,000 Relu after a rank-20,000 input needed 9 GB (a 120 KB
  // file) before inferred shapes were budgeted per model.
  {
    std::vector<Node> chain;
    for (int i = 0; i < 2000; ++i)
      chain.push_back(Node("Relu", {i ? "v" + std::to_string(i - 1) : std::string("x")}, {"v" + std::to_string(i)}));
    chain.push_back(Node("Relu", {"v1999"}, {"y"}));
    cases.push_back({"a chain of Relu over a rank-20,000 input",
                     make_model(std::move(chain), {{"x", DataType::FLOAT, std::vector<std::string>(20000, "1")}}),
                     "FLOAT[*]", true});
  }
  // Sizes nothing determines get fresh symbols: 5,000 Pads with unknown pads of one rank-4,000
  // input made 20 M of them (2.4 GB, a 115 KB file) before they were budgeted per model.
  {
    std::vector<Node> pads;
    for (int i = 0; i < 5000; ++i) pads.push_back(Node("Pad", {"x", "p"}, {i < 4999 ? "v" + std::to_string(i) : "y"}));
    cases.push_back({"Pads of a rank-4,000 input by unknown amounts",
                     make_model(std::move(pads), {{"x", DataType::FLOAT, std::vector<std::string>(4000, "1")},
                                                  {"p", DataType::INT64, {"8000"}}}),
                     "?", true});
  }
  for (auto& c : cases) {
    const std::string what = c.what;
    CAPTURE(what);
    oxir_test::CountAllocations count;
    InferReport rep;
    CHECK_NOTHROW(rep = infer_shapes(c.model));
    (void)count.stop();
    const std::size_t bytes = count.peak();
    for (const auto& d : rep.diagnostics) MESSAGE(d.to_string());
    CHECK(rep.diagnostics.size() == (c.warns ? 1u : 0u));
    CHECK(type_of(c.model, "y") == std::string(c.expect));
    CHECK(bytes < 64 * 1024 * 1024 + 2048 * c.model.graph.nodes.size());
  }
}

TEST_CASE("Proofs about sizes cost work in proportion to the model, not to the expressions it builds") {
  // 20 chains that each cut a tensor at half its length and rotate it 4 times
  // (Shape, Gather, Div, Slice, Slice, Concat): the sizes become sums of nested floors, and every
  // Slice asks for proofs over them. Counted in terms put through canonical forms
  // (detail::expr_work, deterministic): 36.4 million (2.65 s in a release build) before the
  // arithmetic of proofs and the proofs of the whole model were bounded; 0.8 million now.
  using oxir_test::ints;
  using oxir_test::make_model;
  std::vector<Node> nodes;
  std::vector<oxir_test::In> inputs;
  for (int k = 0; k < 20; ++k) {
    std::string x = "x" + std::to_string(k);
    inputs.push_back({x, DataType::FLOAT, {"L" + std::to_string(k), "3"}});
    for (int i = 0; i < 4; ++i) {
      const std::string p = std::to_string(k) + "_" + std::to_string(i);
      nodes.push_back(Node("Shape", {x}, {"s" + p}));
      nodes.push_back(Node("Gather", {"s" + p, "zero"}, {"g" + p}));
      nodes.push_back(Node("Div", {"g" + p, "two"}, {"d" + p}));
      nodes.push_back(Node("Slice", {x, "zero", "d" + p, "ax"}, {"p" + p}));
      nodes.push_back(Node("Slice", {x, "d" + p, "big", "ax"}, {"q" + p}));
      Node cat("Concat", {"q" + p, "p" + p, "p" + p}, {"x" + p});
      cat.attributes.emplace_back("axis", std::int64_t{0});
      nodes.push_back(std::move(cat));
      x = "x" + p;
    }
  }
  Model m = make_model(std::move(nodes), inputs,
                       {ints("zero", {0}), ints("two", {2}), ints("big", {std::int64_t{1} << 62}), ints("ax", {0})});
  const auto before = infer::detail::expr_work;
  InferReport rep;
  CHECK_NOTHROW(rep = infer_shapes(m));
  const auto work = infer::detail::expr_work - before;
  MESSAGE("work: " << work);
  CHECK(work < 3'000'000);
  CHECK(rep.nodes_failed == 0);
  CHECK(rep.conflicts == 0);
}

}  // namespace oxir_unit_test_infer_fuzz
