#pragma once
// Shared by the proto bridge tests: the two generated schemas and a few helpers.

#include <onnx/onnx_pb.h>           // Debian's ONNX 1.12 classes (namespace onnx, ONNX-ML)
#include <oxir/proto/onnx.pb.h>     // oxir's own proto/onnx.proto (namespace oxir_onnx)
#include <oxir/proto/onnx_lite.pb.h>  // the same schema for the lite runtime (namespace oxir_onnx_lite)

#include <oxir/oxir.hpp>
#include <oxir/proto/bridge.hpp>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <string_view>

namespace oxir_proto_test {

/// Whole file as a string ("" if unreadable).
inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

/// Offset of the first differing byte of two strings (their common length if one is a prefix).
inline std::size_t first_difference(std::string_view a, std::string_view b) {
  std::size_t i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
  return i;
}

/// Cache folder outside the repository: $XDG_CACHE_HOME/oxir, else $HOME/.cache/oxir, else /tmp/oxir-cache.
inline std::filesystem::path cache_dir() {
  std::filesystem::path base;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
    base = std::filesystem::path(x) / "oxir";
  else if (const char* h = std::getenv("HOME"); h && *h)
    base = std::filesystem::path(h) / ".cache" / "oxir";
  else
    base = std::filesystem::temp_directory_path() / "oxir-cache";
  std::filesystem::create_directories(base);
  return base;
}

/// Presence bits compared recursively would need a walker; serializing is the practical check:
/// equal models whose serializations are equal also agree on presence.
inline std::string bytes_of(const oxir::Model& m) { return oxir::serialize_model_to_string(m); }

}  // namespace oxir_proto_test
