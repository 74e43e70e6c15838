#pragma once
// Nodes that hand their input on unchanged, turned into Identity nodes (which
// remove_identity_nodes then takes out): a Cast to the type the value already has, a Reshape,
// Expand, Squeeze, Unsqueeze or Flatten to the shape it already has, a Slice that keeps every
// element in order, a Transpose by the identity permutation, a Concat of one input, a Dropout
// in inference. What decides it is what shape inference proves about the model, never what the
// model's value_info or declared output shapes claim.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "../infer.hpp"
#include "../ir/model.hpp"
#include "../ir/views.hpp"
#include "evaluate.hpp"
#include "fold.hpp"

namespace oxir {

namespace detail {

/// Element type and dims of a tensor type whose dims are all numbers; nullopt otherwise.
struct StaticTensor {
  DataType elem = DataType::UNDEFINED;
  std::vector<std::int64_t> dims;
  friend bool operator==(const StaticTensor&, const StaticTensor&) = default;
};
inline std::optional<StaticTensor> static_tensor(const Type* t) {
  if (!t) return std::nullopt;
  const auto* tt = std::get_if<TensorType>(&t->value);
  if (!tt || tt->elem_type == DataType::UNDEFINED || !tt->shape) return std::nullopt;
  StaticTensor s{tt->elem_type, {}};
  for (const auto& d : tt->shape->dims) {
    const auto v = d.value_if();
    if (!v || *v < 0) return std::nullopt;
    s.dims.push_back(*v);
  }
  return s;
}

/// What one node hands on unchanged, given the types inference found (`type_of`) and the
/// graph's constants (`constant`): the input it passes through (index), or nullopt.
template <class TypeOf, class ConstantOf>
std::optional<std::size_t> passes_through(const Node& n, std::int64_t opset, const TypeOf& type_of,
                                          const ConstantOf& constant) {
  if (!is_default_domain(n.domain) || !n.has_input(0) || !n.has_output(0)) return std::nullopt;
  for (const auto& a : n.attributes)
    if (!a.ref_attr_name.empty()) return std::nullopt;
  const auto int_attr = [&](std::string_view name) -> std::optional<std::int64_t> {
    const Attribute* a = n.find_attribute(name);
    if (!a || a->kind() != AttributeType::INT) return std::nullopt;
    return a->as_int();
  };
  const auto in = static_tensor(type_of(n.inputs[0]));
  const auto out = static_tensor(type_of(n.outputs[0]));
  const bool same_static = in && out && *in == *out;
  const std::string& op = n.op_type;
  // Every output but the first must be absent, except where noted below.
  const auto one_output = [&] {
    for (std::size_t k = 1; k < n.outputs.size(); ++k)
      if (!n.outputs[k].empty()) return false;
    return true;
  };

  if (op == "Cast") {  // Cast-1 names the type by a string: left alone
    if (opset < 6 || n.inputs.size() != 1 || !one_output()) return std::nullopt;
    const auto to = int_attr("to");
    const Type* t = type_of(n.inputs[0]);
    if (!to || !t || !std::holds_alternative<TensorType>(t->value)) return std::nullopt;
    if (t->elem_type() == DataType::UNDEFINED || static_cast<std::int64_t>(t->elem_type()) != *to) return std::nullopt;
    return 0;
  }
  if (op == "CastLike") {
    if (n.inputs.size() != 2 || !n.has_input(1) || !one_output()) return std::nullopt;
    const Type* a = type_of(n.inputs[0]);
    const Type* b = type_of(n.inputs[1]);
    if (!a || !b || !std::holds_alternative<TensorType>(a->value) || a->elem_type() == DataType::UNDEFINED ||
        a->elem_type() != b->elem_type())
      return std::nullopt;
    return 0;
  }
  if (op == "Reshape" || op == "Expand" || op == "Squeeze" || op == "Unsqueeze" || op == "Flatten") {
    if (opset < 5 && op == "Reshape") return std::nullopt;  // Reshape-1 reads its shape from an attribute
    return same_static && one_output() ? std::optional<std::size_t>(0) : std::nullopt;
  }
  if (op == "Concat") {
    std::size_t present = 0;
    for (const auto& i : n.inputs) present += i.empty() ? 0U : 1U;
    if (present != 1 || n.inputs.size() != 1 || !one_output()) return std::nullopt;
    return 0;
  }
  if (op == "Transpose") {
    if (n.inputs.size() != 1 || !one_output()) return std::nullopt;
    const Attribute* perm = n.find_attribute("perm");
    if (!perm) {
      // The default reverses the dims: a change only from rank 2 on.
      const Type* t = type_of(n.inputs[0]);
      const Shape* s = t ? t->shape() : nullptr;
      return s && s->dims.size() <= 1 ? std::optional<std::size_t>(0) : std::nullopt;
    }
    if (perm->kind() != AttributeType::INTS) return std::nullopt;
    const auto& p = perm->as_ints();
    for (std::size_t k = 0; k < p.size(); ++k)
      if (p[k] != static_cast<std::int64_t>(k)) return std::nullopt;
    const Type* t = type_of(n.inputs[0]);
    const Shape* s = t ? t->shape() : nullptr;
    return s && s->dims.size() == p.size() ? std::optional<std::size_t>(0) : std::nullopt;
  }
  if (op == "Slice") {
    // Same static shape and every step positive: all elements, in order.
    if (!same_static || !one_output()) return std::nullopt;
    if (opset < 10) return 0;  // Slice-1 has no steps
    if (!n.has_input(4)) return 0;
    const auto steps = eval::detail::ints(constant(n.inputs[4]), true);
    if (!steps) return std::nullopt;
    for (const auto v : *steps)
      if (v <= 0) return std::nullopt;
    return 0;
  }
  if (op == "Dropout") {
    // In inference Dropout passes its input on; its mask output must be absent (or unread: the
    // caller checks). Dropout-1 and -6 do so only with is_test; -12 and later unless their
    // training_mode input is true.
    if (opset < 7) {
      const auto is_test = int_attr("is_test");
      if (!is_test || *is_test == 0) return std::nullopt;
    } else if (opset >= 12 && n.has_input(2)) {
      const Tensor* mode = constant(n.inputs[2]);
      const auto d = eval::detail::dense(mode);
      if (!d || d->type != DataType::BOOL || d->count != 1 || d->bytes[0] != std::byte{0}) return std::nullopt;
    }
    return 0;
  }
  return std::nullopt;
}

}  // namespace detail

/// Replaces every default-domain node of the main graph that hands its input on unchanged by an
/// `Identity` of that input (same output name, node name and doc_string), and returns how many:
/// - Cast (from opset 6) to the element type its input has; CastLike of two inputs of one type;
/// - Reshape (from 5), Expand, Squeeze, Unsqueeze, Flatten whose input and output shapes are the
///   same numbers (and element type);
/// - Slice with the same static shape in and out and every step positive (steps absent, or a
///   constant);
/// - Transpose by the identity permutation (or without perm, of rank 0 or 1);
/// - Concat of a single input;
/// - Dropout in inference: from opset 7, unless training_mode (from 12) is given and is not a
///   constant false; below 7 only with is_test set. Its mask output must be absent or read by
///   nothing (then it goes).
/// Types and shapes come from shape inference on a copy of the model without its value_info and
/// declared output shapes (claims exporters get wrong); a node inference rejects, or that reads
/// what one computes, is left alone, and so is everything when that cannot be known (inference
/// dropped diagnostics). remove_identity_nodes then takes the Identities out. Subgraphs are
/// left as they are.
inline std::size_t replace_noop_nodes(Model& model) {
  const auto opset = model.opset_version("");
  if (!opset) return 0;
  Model probe = detail::inference_probe(model);
  const InferReport report = infer_shapes(probe);
  const auto rejected = detail::rejected_outputs(model.graph, report);
  if (!rejected) return 0;

  Graph& g = model.graph;
  std::unordered_map<std::string_view, const Type*> types;
  for (const auto& v : probe.graph.inputs)
    if (v.type) types.emplace(v.name, &*v.type);
  for (const auto& v : probe.graph.value_info)
    if (v.type) types.emplace(v.name, &*v.type);
  for (const auto& v : probe.graph.outputs)
    if (v.type) types.emplace(v.name, &*v.type);
  std::vector<Type> initializer_types;  // (initializers that are not graph inputs have no ValueInfo)
  initializer_types.reserve(g.initializers.size());
  for (const auto& t : g.initializers)
    if (!types.contains(t.name)) {
      Shape shape;
      for (const auto d : t.dims) shape.dims.emplace_back(d);
      initializer_types.push_back(Type::tensor(t.data_type, std::move(shape)));
      types.emplace(t.name, &initializer_types.back());
    }
  const auto type_of = [&](const std::string& name) -> const Type* {
    const auto it = types.find(name);
    return it == types.end() ? nullptr : it->second;
  };
  // Constants: initializers that are not graph inputs, and Constant nodes holding a tensor.
  std::unordered_map<std::string_view, std::size_t> definitions;
  for (const auto& d : views::defined_names(g)) ++definitions[d];
  std::unordered_set<std::string_view> graph_inputs;
  for (const auto& i : g.inputs) graph_inputs.insert(i.name);
  std::unordered_map<std::string_view, const Tensor*> constants;
  for (const auto& t : g.initializers)
    if (!graph_inputs.contains(t.name)) constants.emplace(t.name, &t);
  for (const auto& n : g.nodes)
    if (n.op_type == "Constant" && is_default_domain(n.domain) && n.outputs.size() == 1 &&
        n.attributes.size() == 1 && n.attributes[0].name == "value" && n.attributes[0].ref_attr_name.empty() &&
        n.attributes[0].kind() == AttributeType::TENSOR)
      constants.emplace(n.outputs[0], &n.attributes[0].as_tensor());
  const auto constant = [&](const std::string& name) -> const Tensor* {
    if (definitions[name] != 1) return nullptr;
    const auto it = constants.find(name);
    return it == constants.end() ? nullptr : it->second;
  };
  // Names read anywhere (for Dropout's mask): node inputs at any depth and graph outputs.
  std::unordered_set<std::string_view> read;
  for (const auto& n : views::all_nodes(std::as_const(g)))
    for (const auto& i : n.inputs) read.insert(i);
  for (const auto& o : g.outputs) read.insert(o.name);
  for (const auto& n : views::all_nodes(std::as_const(g)))
    for (const auto& a : n.attributes)
      for (const auto& sub : views::attribute_graphs(a))
        for (const auto& o : sub.outputs) read.insert(o.name);

  // Decided first, then changed: the maps above view the graph's names.
  std::vector<std::pair<std::size_t, std::size_t>> changes;  // (node, the input it passes on)
  std::unordered_set<std::string> dropped;                    // unread Dropout masks
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (n.op_type == "Identity") continue;
    bool ok = !n.outputs.empty();
    for (const auto& o : n.outputs) ok = ok && (o.empty() || (definitions[o] == 1 && !rejected->contains(o)));
    if (!ok) continue;
    std::optional<std::size_t> through;
    try {
      through = detail::passes_through(n, *opset, type_of, constant);
    } catch (const Error&) {
      continue;  // a constant whose external data cannot be read: left alone
    }
    if (!through) continue;
    if (n.op_type == "Dropout")
      for (std::size_t k = 1; k < n.outputs.size(); ++k)
        if (!n.outputs[k].empty() && read.contains(n.outputs[k])) through.reset();
    if (!through) continue;
    for (std::size_t k = 1; k < n.outputs.size(); ++k)  // an unread mask: its value_info goes with it
      if (!n.outputs[k].empty()) dropped.insert(n.outputs[k]);
    changes.emplace_back(i, *through);
  }
  for (const auto& [i, through] : changes) {
    Node& n = g.nodes[i];
    std::string input = std::move(n.inputs[through]);
    std::string output = std::move(n.outputs[0]);
    n.op_type = "Identity";
    n.domain.clear();
    n.overload.clear();
    n.inputs = {std::move(input)};
    n.outputs = {std::move(output)};
    n.attributes.clear();
  }
  if (!dropped.empty()) std::erase_if(g.value_info, [&](const ValueInfo& v) { return dropped.contains(v.name); });
  return changes.size();
}

}  // namespace oxir
