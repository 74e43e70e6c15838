#pragma once
// extract_model: the part of a model's main graph that computes some of its values from others,
// as a model of its own (what onnx.utils.extract_model does, with outer-scope reads of
// subgraphs followed and an incomplete cut refused).

#include <algorithm>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "../analysis/topo.hpp"
#include "../core/error.hpp"
#include "../infer.hpp"
#include "../ir/model.hpp"
#include "../ir/views.hpp"

namespace oxir {

/// Options of extract_model.
struct ExtractOptions {
  /// Values chosen as inputs or outputs that the model gives no type (graph inputs, outputs and
  /// value_info say nothing) get the type shape inference finds; off, such a value is an error.
  bool infer_types = true;
};

namespace detail {

/// The model-local functions `nodes` call, directly, in their subgraphs or in the bodies of the
/// functions they call.
inline void collect_called_functions(const std::vector<Node>& nodes, const FunctionTable& functions,
                                     std::unordered_set<const Function*>& out, int depth) {
  if (depth > 256) return;
  for (const auto& n : nodes) {
    for (const auto& sub : views::subgraphs(n)) collect_called_functions(sub.nodes, functions, out, depth + 1);
    const Function* f = functions.find(n.domain, n.op_type, n.overload);
    if (f && out.insert(f).second) collect_called_functions(f->nodes, functions, out, depth + 1);
  }
}

}  // namespace detail

/// The sub-model that computes `outputs` from `inputs`: the main-graph nodes needed to compute
/// the outputs (walking back from them through producers, and through the values subgraphs read
/// from outside, stopping at the inputs), the initializers they read, the value_info and
/// quantization annotations of what is kept, and the model-local functions called. The inputs
/// and outputs become the graph's interface, in the order given, typed as the model declares
/// them (or as inference finds, see ExtractOptions). Everything else of the model (IR version,
/// opsets, producer, metadata) is kept; training information, which is about the whole model,
/// is not. In a model of IR version < 4, the initializers kept are listed as inputs too, as
/// those versions require.
///
/// Throws oxir::Error (naming `inputs[i]`/`outputs[i]`) for a name that is not a value of the
/// main graph or is given twice, when the cut is incomplete (a value the outputs need that is
/// neither produced inside the cut, an initializer, nor among the inputs: a graph input not
/// listed, say), and when it splits a node: an input that a node kept for the outputs also
/// produces (one output of a Split, say), which the sub-model would define twice.
[[nodiscard]] inline Model extract_model(const Model& model, std::span<const std::string> inputs,
                                         std::span<const std::string> outputs, const ExtractOptions& options = {}) {
  const Graph& g = model.graph;
  std::unordered_map<std::string_view, std::size_t> producer;
  for (std::size_t i = 0; i < g.nodes.size(); ++i)
    for (const auto& o : g.nodes[i].outputs)
      if (!o.empty()) producer.emplace(o, i);  // the first producer of a name defined twice
  std::unordered_map<std::string_view, std::size_t> initializer, sparse_initializer;
  for (std::size_t i = 0; i < g.initializers.size(); ++i) initializer.emplace(g.initializers[i].name, i);
  for (std::size_t i = 0; i < g.sparse_initializers.size(); ++i)
    sparse_initializer.emplace(g.sparse_initializers[i].values.name, i);
  std::unordered_set<std::string_view> graph_inputs;
  for (const auto& v : g.inputs) graph_inputs.insert(v.name);
  auto defined = [&](const std::string& n) {
    return producer.count(n) || initializer.count(n) || sparse_initializer.count(n) || graph_inputs.count(n);
  };
  auto check_names = [&](std::span<const std::string> names, const char* field) {
    std::unordered_set<std::string_view> seen;
    for (std::size_t i = 0; i < names.size(); ++i) {
      const auto where = std::string(field) + "[" + std::to_string(i) + "]";
      if (names[i].empty()) throw Error(where, "an empty name");
      if (!defined(names[i])) throw Error(where, "'" + names[i] + "' is not a value of the main graph");
      if (!seen.insert(names[i]).second) throw Error(where, "'" + names[i] + "' is given twice");
    }
  };
  check_names(inputs, "inputs");
  check_names(outputs, "outputs");

  // Back from the outputs to the inputs.
  const std::unordered_set<std::string_view> stop(inputs.begin(), inputs.end());
  std::vector<bool> keep_node(g.nodes.size()), keep_init(g.initializers.size()),
      keep_sparse(g.sparse_initializers.size());
  std::unordered_set<std::string> seen;
  std::vector<std::pair<std::string, std::string>> todo;  // (value, the output that needs it)
  for (const auto& o : outputs) todo.emplace_back(o, o);
  while (!todo.empty()) {
    auto [name, for_output] = std::move(todo.back());
    todo.pop_back();
    if (name.empty() || stop.count(name) || !seen.insert(name).second) continue;
    if (auto p = producer.find(name); p != producer.end()) {
      const std::size_t i = p->second;
      if (keep_node[i]) continue;
      keep_node[i] = true;
      const Node& n = g.nodes[i];
      for (const auto& o : n.outputs)
        if (!o.empty() && stop.count(o))
          throw Error("inputs", "'" + o + "' is an input of the cut, but the node that computes '" + name +
                                    "' (needed for '" + for_output + "') produces it too");
      for (const auto& in : n.inputs) todo.emplace_back(in, for_output);
      for (const Graph& sub : views::subgraphs(n))
        for (const auto& c : captured_names(sub)) todo.emplace_back(c, for_output);
    } else if (auto t = initializer.find(name); t != initializer.end()) {
      keep_init[t->second] = true;
    } else if (auto s = sparse_initializer.find(name); s != sparse_initializer.end()) {
      keep_sparse[s->second] = true;
    } else if (graph_inputs.count(name)) {
      throw Error("inputs", "'" + for_output + "' needs the graph input '" + name +
                                "', which is not among the inputs of the cut");
    }
    // Else a name the main graph does not define: a reference the model leaves dangling (or to
    // an enclosing scope that does not exist); the sub-model keeps it dangling as it was.
  }

  // Types of the new interface: as declared, else as inferred.
  std::unordered_map<std::string_view, const ValueInfo*> declared;
  for (const auto* list : {&g.inputs, &g.outputs, &g.value_info})
    for (const auto& v : *list)
      if (v.type && !declared.count(v.name)) declared.emplace(v.name, &v);
  std::optional<Model> inferred;
  std::unordered_map<std::string_view, const ValueInfo*> inferred_info;
  auto interface_value = [&](const std::string& name, const std::string& where) -> ValueInfo {
    if (auto d = declared.find(name); d != declared.end()) return *d->second;
    if (auto t = initializer.find(name); t != initializer.end()) {
      const Tensor& w = g.initializers[t->second];
      Shape shape;
      for (auto d : w.dims) shape.dims.emplace_back(d);
      return ValueInfo(name, Type::tensor(w.data_type, shape));
    }
    if (options.infer_types) {
      if (!inferred) {
        inferred = model;
        InferOptions io;
        (void)infer_shapes(*inferred, io);
        for (const auto* list : {&inferred->graph.outputs, &inferred->graph.value_info})
          for (const auto& v : *list)
            if (v.type && !inferred_info.count(v.name)) inferred_info.emplace(v.name, &v);
      }
      if (auto d = inferred_info.find(name); d != inferred_info.end()) return *d->second;
    }
    throw Error(where, "no type is known for '" + name + "'" +
                           (options.infer_types ? " (the model declares none and inference finds none)"
                                                : " (the model declares none; ExtractOptions::infer_types is off)"));
  };

  Model out;
  out.ir_version = model.ir_version;
  out.opset_imports = model.opset_imports;
  out.producer_name = model.producer_name;
  out.producer_version = model.producer_version;
  out.domain = model.domain;
  out.model_version = model.model_version;
  out.doc_string = model.doc_string;
  out.metadata_props = model.metadata_props;
  out.configuration = model.configuration;
  out.unknown_fields = model.unknown_fields;
  out.presence = model.presence;
  Graph& og = out.graph;
  og.name = g.name;
  og.doc_string = g.doc_string;
  og.metadata_props = g.metadata_props;
  og.unknown_fields = g.unknown_fields;
  og.presence = g.presence;
  for (std::size_t i = 0; i < inputs.size(); ++i)
    og.inputs.push_back(interface_value(inputs[i], "inputs[" + std::to_string(i) + "]"));
  for (std::size_t i = 0; i < outputs.size(); ++i)
    og.outputs.push_back(interface_value(outputs[i], "outputs[" + std::to_string(i) + "]"));
  for (std::size_t i = 0; i < g.nodes.size(); ++i)
    if (keep_node[i]) og.nodes.push_back(g.nodes[i]);
  for (std::size_t i = 0; i < g.initializers.size(); ++i)
    if (keep_init[i] && !stop.count(g.initializers[i].name)) og.initializers.push_back(g.initializers[i]);
  for (std::size_t i = 0; i < g.sparse_initializers.size(); ++i)
    if (keep_sparse[i]) og.sparse_initializers.push_back(g.sparse_initializers[i]);
  if (model.ir_version > 0 && model.ir_version < 4) {
    std::unordered_set<std::string_view> listed(inputs.begin(), inputs.end());
    for (const auto& t : og.initializers)
      if (!listed.count(t.name)) og.inputs.push_back(interface_value(t.name, "initializers"));
  }

  // value_info and annotations of the values that remain (the interface has its own types).
  std::unordered_set<std::string_view> present;
  for (const auto& n : og.nodes)
    for (const auto& o : n.outputs) present.insert(o);
  for (const auto& t : og.initializers) present.insert(t.name);
  for (const auto& s : og.sparse_initializers) present.insert(s.values.name);
  std::unordered_set<std::string_view> interface;
  for (const auto* list : {&og.inputs, &og.outputs})
    for (const auto& v : *list) interface.insert(v.name);
  for (const auto& v : g.value_info)
    if (present.count(v.name) && !interface.count(v.name)) og.value_info.push_back(v);
  auto available = [&](std::string_view n) { return present.count(n) || interface.count(n); };
  for (const auto& a : g.quantization_annotation) {
    bool whole = available(a.tensor_name);
    for (const auto& q : a.quant_parameter_tensor_names) whole = whole && available(q.value);
    if (whole) og.quantization_annotation.push_back(a);
  }

  std::unordered_set<const Function*> called;
  detail::collect_called_functions(og.nodes, FunctionTable(model.functions), called, 0);
  for (const auto& f : model.functions)
    if (called.contains(&f)) out.functions.push_back(f);
  return out;
}

/// extract_model with braced lists: `extract_model(m, {"x"}, {"y"})`.
[[nodiscard]] inline Model extract_model(const Model& model, std::initializer_list<std::string> inputs,
                                         std::initializer_list<std::string> outputs,
                                         const ExtractOptions& options = {}) {
  return extract_model(model, std::span<const std::string>(inputs.begin(), inputs.size()),
                       std::span<const std::string>(outputs.begin(), outputs.size()), options);
}

}  // namespace oxir
