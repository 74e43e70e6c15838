// bench_infer_scale (run by hand, not a test): does oxir::infer_shapes grow linearly with the model?
// Generates models of 10k / 100k / 1M nodes and times inference on each (median of --runs runs,
// each on a fresh copy of the generated model; the copy is not timed).
//
// Variants (x: float [N, 16, L], N and L symbolic):
//   chain  one long chain of 7-node blocks:
//            Conv(k=3, pad 1) -> Relu -> MatMul(W[16,16], .) -> Add(bias[16,1]) -> Mul(., block input)
//            -> Reshape([0,-1]) -> Reshape([0,16,-1])
//          (the Reshapes go through the expression 16*L and back to L in every block)
//   wide   the same block on many independent branches of the graph input, joined by a tree of Adds
//          (many values alive at once, many consumers of one value)
//
//   bench_infer_scale [--sizes 10000,100000,1000000] [--variants chain,wide] [--runs N] [--limit-100k-ms MS]
// Exit code 1 when a 100k-node model takes longer than the limit (default 1000 ms).

#include <oxir/infer.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

using clock_type = std::chrono::steady_clock;

namespace {

constexpr std::int64_t kC = 16;
constexpr int kBlockNodes = 7;

oxir::Model base_model() {
  oxir::Model m;
  m.ir_version = 8;
  m.opset_imports.push_back({"", 17, {}, {}});
  m.producer_name = "bench_infer_scale";
  auto& g = m.graph;
  g.name = "scale";
  g.inputs.emplace_back("x", oxir::Type::tensor(oxir::DataType::FLOAT, oxir::Shape{"N", kC, "L"}));
  std::vector<float> wc(static_cast<std::size_t>(kC * kC * 3), 0.01f), wm(static_cast<std::size_t>(kC * kC), 0.02f),
      b(static_cast<std::size_t>(kC), 0.1f);
  g.initializers.push_back(oxir::Tensor::from_values<float>("Wc", {kC, kC, 3}, std::span<const float>(wc)));
  g.initializers.push_back(oxir::Tensor::from_values<float>("Wm", {kC, kC}, std::span<const float>(wm)));
  g.initializers.push_back(oxir::Tensor::from_values<float>("bias", {kC, 1}, std::span<const float>(b)));
  g.initializers.push_back(oxir::Tensor::from_values<std::int64_t>("flat", {2}, {0, -1}));
  g.initializers.push_back(oxir::Tensor::from_values<std::int64_t>("unflat", {3}, {0, kC, -1}));
  return m;
}

/// letter + number + '_' (built step by step: GCC 12's -O3 -Wrestrict misfires on `"w" + to_string(b) + "_"`).
std::string prefix(char letter, std::size_t n) {
  std::string p(1, letter);
  p += std::to_string(n);
  p += '_';
  return p;
}

/// Appends one 7-node block reading `in`; returns the block's output name.
std::string add_block(oxir::Graph& g, const std::string& in, const std::string& p) {
  auto& conv = g.nodes.emplace_back("Conv", std::vector<std::string>{in, "Wc"}, std::vector<std::string>{p + "c"},
                                    p + "conv");
  conv.set_attribute({"kernel_shape", std::vector<std::int64_t>{3}});
  conv.set_attribute({"pads", std::vector<std::int64_t>{1, 1}});
  g.nodes.emplace_back("Relu", std::vector<std::string>{p + "c"}, std::vector<std::string>{p + "r"}, p + "relu");
  g.nodes.emplace_back("MatMul", std::vector<std::string>{"Wm", p + "r"}, std::vector<std::string>{p + "m"},
                       p + "matmul");
  g.nodes.emplace_back("Add", std::vector<std::string>{p + "m", "bias"}, std::vector<std::string>{p + "a"},
                       p + "add");
  g.nodes.emplace_back("Mul", std::vector<std::string>{p + "a", in}, std::vector<std::string>{p + "u"}, p + "mul");
  g.nodes.emplace_back("Reshape", std::vector<std::string>{p + "u", "flat"}, std::vector<std::string>{p + "f"},
                       p + "flat");
  g.nodes.emplace_back("Reshape", std::vector<std::string>{p + "f", "unflat"}, std::vector<std::string>{p + "y"},
                       p + "unflat");
  return p + "y";
}

oxir::Model chain_model(std::size_t nodes) {
  oxir::Model m = base_model();
  auto& g = m.graph;
  const std::size_t blocks = std::max<std::size_t>(1, nodes / kBlockNodes);
  g.nodes.reserve(blocks * kBlockNodes);
  std::string cur = "x";
  for (std::size_t b = 0; b < blocks; ++b) cur = add_block(g, cur, prefix('b', b));
  g.outputs.emplace_back(cur, oxir::Type::tensor(oxir::DataType::FLOAT));
  return m;
}

oxir::Model wide_model(std::size_t nodes) {
  oxir::Model m = base_model();
  auto& g = m.graph;
  const std::size_t branches = std::max<std::size_t>(1, nodes / (kBlockNodes + 1));
  g.nodes.reserve(branches * (kBlockNodes + 1));
  std::vector<std::string> level;
  level.reserve(branches);
  for (std::size_t b = 0; b < branches; ++b) level.push_back(add_block(g, "x", prefix('w', b)));
  std::size_t k = 0;
  while (level.size() > 1) {
    std::vector<std::string> next;
    next.reserve(level.size() / 2 + 1);
    for (std::size_t i = 0; i + 1 < level.size(); i += 2) {
      std::string out = prefix('s', k++);
      g.nodes.emplace_back("Add", std::vector<std::string>{level[i], level[i + 1]}, std::vector<std::string>{out},
                           out);
      next.push_back(std::move(out));
    }
    if (level.size() % 2) next.push_back(level.back());
    level = std::move(next);
  }
  g.outputs.emplace_back(level.front(), oxir::Type::tensor(oxir::DataType::FLOAT));
  return m;
}

std::string shape_str(const oxir::Graph& g) {
  const auto& o = g.outputs.front();
  const oxir::Shape* s = o.type ? o.type->shape() : nullptr;
  if (!s) return "(no shape)";
  std::string r = "[";
  for (std::size_t i = 0; i < s->dims.size(); ++i) {
    const auto& d = s->dims[i];
    r += i ? "," : "";
    r += d.is_value() ? std::to_string(d.dim_value()) : d.is_param() ? d.dim_param() : "?";
  }
  return r + "]";
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> v;
  std::stringstream in(s);
  for (std::string t; std::getline(in, t, ',');)
    if (!t.empty()) v.push_back(t);
  return v;
}

double ms_since(clock_type::time_point a) {
  return std::chrono::duration<double, std::milli>(clock_type::now() - a).count();
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::size_t> sizes = {10000, 100000, 1000000};
  std::vector<std::string> variants = {"chain", "wide"};
  int runs = 3;
  double limit_100k_ms = 1000;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--sizes" && i + 1 < argc) {
      sizes.clear();
      for (const auto& s : split(argv[++i])) sizes.push_back(static_cast<std::size_t>(std::atoll(s.c_str())));
    } else if (a == "--variants" && i + 1 < argc) {
      variants = split(argv[++i]);
    } else if (a == "--runs" && i + 1 < argc) {
      runs = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--limit-100k-ms" && i + 1 < argc) {
      limit_100k_ms = std::atof(argv[++i]);
    } else {
      std::fprintf(stderr,
                   "usage: bench_infer_scale [--sizes 10000,100000,1000000] [--variants chain,wide] [--runs N]"
                   " [--limit-100k-ms MS]\n");
      return 2;
    }
  }
  int rc = 0;
  std::printf("%-6s %9s %10s %12s %10s %8s %8s %8s  %s\n", "model", "nodes", "build_ms", "infer_ms", "ns/node",
              "unsupp", "failed", "unknown", "output shape");
  for (const auto& v : variants) {
    if (v != "chain" && v != "wide") {
      std::fprintf(stderr, "bench_infer_scale: unknown variant %s\n", v.c_str());
      return 2;
    }
    for (std::size_t n : sizes) {
      auto t0 = clock_type::now();
      const oxir::Model model = v == "chain" ? chain_model(n) : wide_model(n);
      const double build_ms = ms_since(t0);
      const std::size_t node_count = model.graph.nodes.size();
      const int r_here = node_count >= 500000 ? 1 : runs;
      std::vector<double> times;
      oxir::InferReport report;
      std::string out_shape;
      for (int r = 0; r < r_here; ++r) {
        oxir::Model m = model;
        auto a = clock_type::now();
        report = oxir::infer_shapes(m);
        times.push_back(ms_since(a));
        if (r == 0) out_shape = shape_str(m.graph);
      }
      std::sort(times.begin(), times.end());
      const double ms = times[times.size() / 2];
      std::printf("%-6s %9zu %10.1f %12.1f %10.1f %8zu %8zu %8zu  %s\n", v.c_str(), node_count, build_ms, ms,
                  ms * 1e6 / static_cast<double>(node_count), report.nodes_unsupported, report.nodes_failed,
                  report.values_unknown, out_shape.c_str());
      std::fflush(stdout);
      if (node_count >= 90000 && node_count <= 110000 && ms > limit_100k_ms) {
        std::printf("  FAIL: %zu nodes took %.1f ms (limit %.0f ms)\n", node_count, ms, limit_100k_ms);
        rc = 1;
      }
    }
  }
  return rc;
}
