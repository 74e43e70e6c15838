#pragma once
// oxir::Error: the one exception type oxir throws, carrying a path into the model.

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace oxir {

/// Thrown for bad input and failed operations; `path()` names where in the model it went wrong,
/// e.g. `graph.node[3].attribute[1].t.raw_data`, and `what()` is "<path>: <message>".
class Error : public std::runtime_error {
 public:
  /// An error at `path` (may be empty) with a human-readable `message`.
  Error(std::string path, std::string message)
      : std::runtime_error(path.empty() ? message : path + ": " + message),
        path_(std::move(path)),
        message_(std::move(message)) {}

  /// An error without a location.
  explicit Error(std::string message) : Error(std::string{}, std::move(message)) {}

  /// Where in the model the problem is ("" when not tied to a place).
  [[nodiscard]] const std::string& path() const noexcept { return path_; }
  /// The message without the path.
  [[nodiscard]] const std::string& message() const noexcept { return message_; }

  /// The same error with `outer` prepended to its path (used while unwinding out of nested messages).
  [[nodiscard]] Error within(std::string_view outer) const {
    std::string p(outer);
    if (!path_.empty()) {
      if (!p.empty() && path_.front() != '[') p += '.';
      p += path_;
    }
    return Error(std::move(p), message_);
  }

 private:
  std::string path_;
  std::string message_;
};

/// Places in a model as Error::path and the inference report spell them: `graph` is the main
/// graph, node k of a graph at `graph_place` is `<graph_place>.node[k]`, and the graph attribute a
/// of the node at `node_place` is `<node_place>.attribute[a].g`.
namespace place {

[[nodiscard]] inline std::string node(std::string_view graph_place, std::size_t k) {
  std::string s(graph_place);
  s += ".node[";
  s += std::to_string(k);
  s += ']';
  return s;
}

[[nodiscard]] inline std::string subgraph(std::string_view node_place, std::size_t a) {
  std::string s(node_place);
  s += ".attribute[";
  s += std::to_string(a);
  s += "].g";
  return s;
}

/// The node index k when `where` is `<graph_place>.node[k]`, alone or followed by more of a path
/// (`.output[0]`, `.attribute[1].g.node[2]`, ...); nullopt otherwise.
[[nodiscard]] inline std::optional<std::size_t> node_index(std::string_view where, std::string_view graph_place) {
  constexpr std::string_view mid = ".node[";
  if (!where.starts_with(graph_place) || !where.substr(graph_place.size()).starts_with(mid)) return std::nullopt;
  std::size_t i = graph_place.size() + mid.size(), k = 0;
  const std::size_t first = i;
  for (; i < where.size() && i < first + 12 && where[i] >= '0' && where[i] <= '9'; ++i)
    k = k * 10 + static_cast<std::size_t>(where[i] - '0');
  if (i == first || i >= where.size() || where[i] != ']') return std::nullopt;
  return k;
}

}  // namespace place

}  // namespace oxir
