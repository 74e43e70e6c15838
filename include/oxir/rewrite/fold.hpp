#pragma once
// fold_constants: replaces the main graph's integer shape computations that shape inference
// determined completely (Shape of static sizes, then Gather, Concat, Range, arithmetic, ...) by
// Constant nodes, then removes what they no longer need.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "../infer.hpp"
#include "../ir/model.hpp"
#include "../ir/views.hpp"
#include "builder.hpp"
#include "remove_unused.hpp"

namespace oxir {

struct FoldOptions {
  /// Afterwards, remove the nodes and initializers nothing reads any more (remove_unused: this
  /// also takes out what was dead before folding).
  bool remove_unused = true;
};

struct FoldCounts {
  std::size_t nodes_folded = 0;  ///< nodes replaced by Constant nodes (or initializers)
  std::size_t constants = 0;     ///< values written (one per output of a folded node)
  RemovedCounts removed;         ///< what remove_unused took out afterwards
};

/// Replaces every node of the main graph whose outputs are all int64 or int32 tensors of rank 0
/// or 1 with contents inference determined (InferOptions::report_constant_values) by one
/// Constant node per output, under the same output names, in the same place; a single-output
/// node's Constant keeps its node name. Below opset 9, whose Constant holds floating-point
/// tensors only, the values become initializers of the same names instead (IR 4 or later; an
/// older model, whose initializers must also be graph inputs, is left as it is). Runs inference
/// on a copy without value_info and output shapes (exporters' claims, not facts): the model gets
/// no value_info from it. Nothing is folded in a model without a default-domain opset import.
/// The contents are what the model implies for every run in which it is valid (sizes that the
/// model's own equalities fix count as known).
inline FoldCounts fold_constants(Model& model, const FoldOptions& options = {}) {
  FoldCounts counts;
  const auto opset = model.opset_version("");
  if (!opset) return counts;
  const bool as_initializers = *opset < 9;  // Constant-1 allows float, float16 and double only
  if (as_initializers && model.ir_version < 4) return counts;
  InferReport report;
  {
    // Only the graph inputs' types, the initializers and the operators are trusted: value_info and
    // declared output shapes are claims exporters get wrong (torch 1.13 gives one symbol to output
    // sizes that differ, which folded a dynamic batch size into a trace-time constant).
    Model probe = model;  // tensors are shared, not copied
    probe.graph.value_info.clear();
    for (auto& o : probe.graph.outputs) o.type.reset();
    for (auto& n : views::all_nodes(probe.graph))
      for (auto& a : n.attributes)
        for (auto& sub : views::attribute_graphs(a)) sub.value_info.clear();
    InferOptions io;
    io.report_constant_values = true;
    report = infer_shapes(probe, io);
  }
  if (report.constant_values.empty()) return counts;
  std::unordered_map<std::string_view, const infer::ConstantValue*> known;
  for (const auto& cv : report.constant_values) known.emplace(cv.name, &cv);

  Builder names(model);  // unique names for the Constants of multi-output nodes
  Graph& g = model.graph;
  std::vector<Node> nodes;
  nodes.reserve(g.nodes.size());
  for (auto& n : g.nodes) {
    std::size_t outputs = 0;
    bool all_known = !(n.op_type == "Constant" && is_default_domain(n.domain));
    for (const auto& o : n.outputs) {
      if (o.empty()) continue;
      ++outputs;
      all_known = all_known && known.contains(o);
    }
    if (!all_known || outputs == 0) {
      nodes.push_back(std::move(n));
      continue;
    }
    ++counts.nodes_folded;
    for (std::size_t k = 0; k < n.outputs.size(); ++k) {
      const std::string& o = n.outputs[k];
      if (o.empty()) continue;
      const infer::ConstantValue& cv = *known.at(o);
      Tensor t;
      if (cv.elem_type == static_cast<std::int32_t>(DataType::INT32)) {
        std::vector<std::int32_t> v(cv.values.begin(), cv.values.end());  // in range: checked by inference
        t = Tensor::from_values<std::int32_t>(o, cv.dims, std::span<const std::int32_t>(v));
      } else {
        t = Tensor::from_values<std::int64_t>(o, cv.dims, std::span<const std::int64_t>(cv.values));
      }
      ++counts.constants;
      if (as_initializers) {
        g.initializers.push_back(std::move(t));
        continue;
      }
      std::string name = outputs == 1 ? n.name : names.fresh((n.name.empty() ? std::string("Constant") : n.name) + "_" + std::to_string(k));
      Node c("Constant", {}, {o}, std::move(name));
      c.attributes.emplace_back("value", std::move(t));
      nodes.push_back(std::move(c));
    }
  }
  g.nodes = std::move(nodes);
  if (options.remove_unused) counts.removed = remove_unused(model);
  return counts;
}

}  // namespace oxir
