#pragma once
// The libonnx-testdata corpus, for unit tests that check a property on every model of it.

#include <oxir/io.hpp>

#include <algorithm>
#include <cstddef>
#include <filesystem>
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

}  // namespace corpus
