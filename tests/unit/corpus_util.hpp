#pragma once
// The libonnx-testdata corpus, for unit tests that check a property on every model of it.

#include <oxir/io.hpp>

#include <algorithm>
#include <cstddef>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

namespace corpus {

inline const std::filesystem::path kRoot = "/usr/share/libonnx-testdata/data";

/// Whether Debian's libonnx-testdata is installed.
inline bool available() { return std::filesystem::exists(kRoot); }

/// Calls fn(path, model) for every .onnx file of the corpus that loads (the few that do not are
/// the codec tests' business), in path order so that seeded tests are reproducible. Returns how
/// many models it passed.
template <class F>
std::size_t for_each_model(F&& fn) {
  std::vector<std::filesystem::path> paths;
  for (const auto& e : std::filesystem::recursive_directory_iterator(kRoot))
    if (e.path().extension() == ".onnx") paths.push_back(e.path());
  std::sort(paths.begin(), paths.end());
  std::size_t n = 0;
  for (const auto& p : paths) {
    oxir::Model m;
    try {
      m = oxir::load_model(p);
    } catch (const oxir::Error&) {
      continue;
    }
    ++n;
    fn(p.string(), m);
  }
  return n;
}

/// Inserts chains of nodes in front of about a third of the node inputs of `g` and of its
/// subgraphs (4 deep): `make(input, output)` makes one link, `length(rng)` picks a chain's length,
/// the new values are named `<prefix><serial>`, and about half of them get a value_info entry.
/// Returns the number of nodes inserted. Used to seed models with what a pass must take out.
template <class Make, class Length>
std::size_t insert_chains(oxir::Graph& g, std::mt19937& rng, int& serial, const std::string& prefix, Make make,
                          Length length, int depth = 0) {
  std::size_t added = 0;
  for (auto& n : g.nodes)
    for (auto& a : n.attributes)
      if (a.kind() == oxir::AttributeType::GRAPH && depth < 4)
        added += insert_chains(a.as_graph(), rng, serial, prefix, make, length, depth + 1);
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    if (rng() % 3 != 0) continue;
    oxir::Node& n = g.nodes[i];
    if (n.inputs.empty()) continue;
    const std::size_t slot = rng() % n.inputs.size();
    if (n.inputs[slot].empty()) continue;
    const int chain = length(rng);
    std::vector<oxir::Node> inserted;
    std::string prev = n.inputs[slot];
    for (int k = 0; k < chain; ++k) {
      const std::string out = prefix + std::to_string(serial++);
      inserted.push_back(make(prev, out));
      if (rng() % 2) g.value_info.emplace_back(out, oxir::Type{});
      prev = out;
    }
    n.inputs[slot] = prev;
    added += inserted.size();
    g.nodes.insert(g.nodes.begin() + static_cast<std::ptrdiff_t>(i), inserted.begin(), inserted.end());
    i += inserted.size();
  }
  return added;
}

}  // namespace corpus
