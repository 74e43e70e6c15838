#pragma once
// Small helpers for tests that build graphs by hand.
#include <oxir/ir/graph.hpp>

#include <string>
#include <utility>
#include <vector>

namespace graph_util {
/// A node of `type` (in `domain`) reading `in` and writing `out`, unnamed.
inline oxir::Node op(std::string type, std::vector<std::string> in, std::vector<std::string> out,
                     std::string domain = {}) {
  return oxir::Node(std::move(type), std::move(in), std::move(out), {}, std::move(domain));
}
/// The op_type of every node of `g`, in order.
inline std::vector<std::string> ops_of(const oxir::Graph& g) {
  std::vector<std::string> r;
  for (const auto& n : g.nodes) r.push_back(n.op_type);
  return r;
}
}  // namespace graph_util
