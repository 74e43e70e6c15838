#pragma once
// Small helpers for tests that build graphs by hand.
#include <oxir/ir/graph.hpp>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace graph_util {
/// A node of `type` (in `domain`) reading `in` and writing `out`, unnamed.
inline oxir::Node op(std::string type, std::vector<std::string> in, std::vector<std::string> out,
                     std::string domain = {}) {
  return oxir::Node(std::move(type), std::move(in), std::move(out), {}, std::move(domain));
}
/// A graph of `n` Relu nodes in a row, from input "v0" to output "v<n>", both float[N].
inline oxir::Graph relu_chain(int n) {
  oxir::Graph g;
  g.name = "chain";
  g.inputs.emplace_back("v0", oxir::Type::tensor(oxir::DataType::FLOAT, {"N"}));
  for (int i = 0; i < n; ++i) g.nodes.push_back(op("Relu", {"v" + std::to_string(i)}, {"v" + std::to_string(i + 1)}));
  g.outputs.emplace_back("v" + std::to_string(n), oxir::Type::tensor(oxir::DataType::FLOAT, {"N"}));
  return g;
}
/// The op_type of every node of `g`, in order.
inline std::vector<std::string> ops_of(const oxir::Graph& g) {
  std::vector<std::string> r;
  for (const auto& n : g.nodes) r.push_back(n.op_type);
  return r;
}

/// One node of a wrapping-uint64 arithmetic: Add, Sub, Mul, Neg, Identity, and Fma (x*y+z).
/// `in(i)` gives input i's value.
template <class In>
std::uint64_t apply_u64(const oxir::Node& n, In&& in) {
  if (n.op_type == "Add") return in(0) + in(1);
  if (n.op_type == "Sub") return in(0) - in(1);
  if (n.op_type == "Mul") return in(0) * in(1);
  if (n.op_type == "Neg") return 0 - in(0);
  if (n.op_type == "Identity") return in(0);
  if (n.op_type == "Fma") return in(0) * in(1) + in(2);
  throw std::runtime_error("apply_u64: unexpected operator " + n.op_type);
}
/// Runs `g`'s nodes in order (each writes output 0) on `inputs`, one per graph input, and
/// returns the graph outputs' values.
inline std::vector<std::uint64_t> evaluate_u64(const oxir::Graph& g, const std::vector<std::uint64_t>& inputs) {
  std::unordered_map<std::string, std::uint64_t> v;
  for (std::size_t i = 0; i < g.inputs.size(); ++i) v[g.inputs[i].name] = inputs[i];
  for (const auto& n : g.nodes) v[n.outputs.at(0)] = apply_u64(n, [&](std::size_t i) { return v.at(n.inputs.at(i)); });
  std::vector<std::uint64_t> out;
  for (const auto& o : g.outputs) out.push_back(v.at(o.name));
  return out;
}
}  // namespace graph_util
