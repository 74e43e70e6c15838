#pragma once
// Nodes that hand their input on unchanged, turned into Identity nodes (which
// remove_identity_nodes then takes out): a Cast to the type the value already has, a Reshape,
// Expand, Squeeze, Unsqueeze or Flatten to the shape it already has, a Slice that keeps every
// element in order, a Transpose by the identity permutation, a Concat of one input, a Dropout
// in inference, arithmetic with a neutral constant (x*1, x+0 for integers...), a Split into one
// output, a Pad by zeros, a Tile by ones. What decides it is what shape inference proves about
// the model, never what the model's value_info or declared types claim.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
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

/// The bit pattern (little-endian, of the element's size) of the value `x op c` leaves `x`
/// as it is for every `x` of element type `t`: 0 for integer Add/Sub and for Or/Xor, 1 for
/// integer Mul/Div and for And; for floating point, 1.0 for Mul and Div (exact, NaN and
/// infinities included), -0.0 for Add and +0.0 for Sub (`-0 + +0` is `+0`, `-0 - -0` too).
/// nullopt for other types and operators.
inline std::optional<std::uint64_t> neutral_bits(std::string_view op, DataType t) {
  const bool add = op == "Add", sub = op == "Sub", one = op == "Mul" || op == "Div";
  switch (t) {
    case DataType::FLOAT:
      return one ? 0x3F800000ULL : add ? 0x80000000ULL : sub ? std::optional<std::uint64_t>(0) : std::nullopt;
    case DataType::DOUBLE:
      return one   ? 0x3FF0000000000000ULL
             : add ? 0x8000000000000000ULL
             : sub ? std::optional<std::uint64_t>(0)
                   : std::nullopt;
    case DataType::FLOAT16:
      return one ? 0x3C00ULL : add ? 0x8000ULL : sub ? std::optional<std::uint64_t>(0) : std::nullopt;
    case DataType::BFLOAT16:
      return one ? 0x3F80ULL : add ? 0x8000ULL : sub ? std::optional<std::uint64_t>(0) : std::nullopt;
    case DataType::INT8: case DataType::INT16: case DataType::INT32: case DataType::INT64:
    case DataType::UINT8: case DataType::UINT16: case DataType::UINT32: case DataType::UINT64:
      return one ? std::optional<std::uint64_t>(1) : add || sub ? std::optional<std::uint64_t>(0) : std::nullopt;
    case DataType::BOOL:
      return op == "And" ? std::optional<std::uint64_t>(1)
                         : op == "Or" || op == "Xor" ? std::optional<std::uint64_t>(0) : std::nullopt;
    default:
      return std::nullopt;
  }
}

/// Whether every element of `d` has the bit pattern `bits` (little-endian, of its element size).
inline bool all_elements_are(const eval::detail::Dense& d, std::uint64_t bits) {
  if (d.esize == 0 || d.esize > 8) return false;
  for (std::uint64_t i = 0; i < d.count; ++i) {
    std::uint64_t v = 0;
    for (std::size_t b = 0; b < d.esize; ++b)
      v |= static_cast<std::uint64_t>(d.bytes[static_cast<std::size_t>(i) * d.esize + b]) << (8 * b);
    if (v != bits) return false;
  }
  return true;
}

/// Whether a tensor of dims `c` broadcasts into `x` without changing it (numpy rules): no more
/// dims than `x`, each (aligned to the right) 1 or the same number as x's.
inline bool broadcasts_into(std::span<const std::int64_t> c, const Shape* x) {
  if (c.empty()) return true;
  if (!x || c.size() > x->dims.size()) return false;
  const std::size_t off = x->dims.size() - c.size();
  for (std::size_t i = 0; i < c.size(); ++i) {
    if (c[i] == 1) continue;
    const auto v = x->dims[off + i].value_if();
    if (!v || *v != c[i]) return false;
  }
  return true;
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
  if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div" || op == "And" || op == "Or" || op == "Xor") {
    // x op c with c a constant of op's neutral element that broadcasts into x (before opset 7
    // broadcasting followed the `broadcast` and `axis` attributes: left alone).
    if (opset < 7 || n.inputs.size() != 2 || !n.has_input(1) || !one_output() || !n.attributes.empty())
      return std::nullopt;
    const bool commutes = op != "Sub" && op != "Div";
    for (std::size_t k : {std::size_t{1}, std::size_t{0}}) {
      if (k == 0 && !commutes) break;
      const auto c = eval::detail::dense(constant(n.inputs[k]));
      const std::size_t x = 1 - k;
      const Type* xt = type_of(n.inputs[x]);
      if (!c || !xt || !xt->is_tensor() || xt->elem_type() != c->type) continue;
      const auto bits = neutral_bits(op, c->type);
      if (bits && broadcasts_into(c->dims, xt->shape()) && all_elements_are(*c, *bits)) return x;
    }
    return std::nullopt;
  }
  if (op == "Sum" || op == "Max" || op == "Min" || op == "Mean") {
    // Of one input: that input.
    if (n.inputs.size() != 1 || !one_output()) return std::nullopt;
    return 0;
  }
  if (op == "Split") {
    // One output and no sizes given (or the one size the input has): the whole input.
    if (n.outputs.size() != 1 || !n.has_output(0)) return std::nullopt;
    const Type* t = type_of(n.inputs[0]);
    const Shape* s = t ? t->shape() : nullptr;
    if (!s) return std::nullopt;
    const auto rank = static_cast<std::int64_t>(s->dims.size());
    const auto axis = int_attr("axis").value_or(0);
    if (n.find_attribute("axis") && !int_attr("axis")) return std::nullopt;
    if (axis < -rank || axis >= rank) return std::nullopt;
    if (const Attribute* k = n.find_attribute("num_outputs"); k && (opset < 18 || !int_attr("num_outputs") ||
                                                                   *int_attr("num_outputs") != 1))
      return std::nullopt;
    const bool sizes = n.find_attribute("split") != nullptr || n.has_input(1);
    if (sizes && !same_static) return std::nullopt;
    if (!sizes && opset >= 18 && !n.find_attribute("num_outputs")) return std::nullopt;  // Split-18 needs one
    return 0;
  }
  if (op == "Pad") {
    // Every pad zero (any mode): the input as it is.
    if (!one_output()) return std::nullopt;
    const Type* t = type_of(n.inputs[0]);
    const Shape* s = t ? t->shape() : nullptr;
    if (!s) return std::nullopt;
    if (const Attribute* m = n.find_attribute("mode")) {
      if (m->kind() != AttributeType::STRING) return std::nullopt;
      const std::string& mode = m->as_string();
      if (mode != "constant" && mode != "reflect" && mode != "edge" && !(mode == "wrap" && opset >= 19))
        return std::nullopt;
    }
    std::vector<std::int64_t> pads;
    std::size_t padded = s->dims.size();  // dims the pads cover
    if (opset < 11) {
      const Attribute* a = n.find_attribute(opset < 2 ? "paddings" : "pads");
      if (n.inputs.size() != 1 || !a || a->kind() != AttributeType::INTS) return std::nullopt;
      pads = a->as_ints();
    } else {
      if (!n.has_input(1)) return std::nullopt;
      const auto p = eval::detail::ints(constant(n.inputs[1]), false);
      if (!p) return std::nullopt;
      pads = *p;
      if (n.has_input(3)) {
        if (opset < 18) return std::nullopt;
        const auto axes = eval::detail::ints(constant(n.inputs[3]), true);
        if (!axes) return std::nullopt;
        for (const auto a : *axes)
          if (a < -static_cast<std::int64_t>(s->dims.size()) || a >= static_cast<std::int64_t>(s->dims.size()))
            return std::nullopt;
        padded = axes->size();
      }
    }
    if (pads.size() != 2 * padded) return std::nullopt;
    for (const auto v : pads)
      if (v != 0) return std::nullopt;
    return 0;
  }
  if (op == "Tile") {
    // Repeated once along every dim.
    if (opset < 6 || n.inputs.size() != 2 || !n.has_input(1) || !one_output()) return std::nullopt;
    const Type* t = type_of(n.inputs[0]);
    const Shape* s = t ? t->shape() : nullptr;
    const auto r = eval::detail::ints(constant(n.inputs[1]), false);
    if (!s || !r || r->size() != s->dims.size()) return std::nullopt;
    for (const auto v : *r)
      if (v != 1) return std::nullopt;
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

/// What one graph's nodes can see: the types inference found for its values, how often it
/// defines each name, and its constants (initializers that are not graph inputs, Constant nodes
/// holding a tensor); a name it does not define is looked up in the enclosing graph's scope.
struct NoopScope {
  std::unordered_map<std::string_view, const Type*> types;
  std::unordered_map<std::string_view, std::size_t> definitions;
  std::unordered_map<std::string_view, const Tensor*> constants;
  std::vector<Type> initializer_types;  // (initializers that are not graph inputs have no ValueInfo)
  const NoopScope* parent = nullptr;
  bool in_loop_body = false;  ///< a Loop body, or a graph inside one

  /// `g` is the model's graph, `pg` the same graph in the inference probe (which holds the types).
  NoopScope(const Graph& g, const Graph& pg, const NoopScope* enclosing, bool loop_body)
      : parent(enclosing), in_loop_body(loop_body || (enclosing && enclosing->in_loop_body)) {
    for (const auto* list : {&pg.inputs, &pg.value_info, &pg.outputs})
      for (const auto& v : *list)
        if (v.type) types.emplace(v.name, &*v.type);
    initializer_types.reserve(g.initializers.size());
    for (const auto& t : g.initializers)
      if (!types.contains(t.name)) {
        Shape shape;
        for (const auto d : t.dims) shape.dims.emplace_back(d);
        initializer_types.push_back(Type::tensor(t.data_type, std::move(shape)));
        types.emplace(t.name, &initializer_types.back());
      }
    for (const auto& d : views::defined_names(g)) ++definitions[d];
    std::unordered_set<std::string_view> inputs;
    for (const auto& i : g.inputs) inputs.insert(i.name);
    for (const auto& t : g.initializers)
      if (!inputs.contains(t.name)) constants.emplace(t.name, &t);
    for (const auto& n : g.nodes)
      if (n.op_type == "Constant" && is_default_domain(n.domain) && n.outputs.size() == 1 &&
          n.attributes.size() == 1 && n.attributes[0].name == "value" && n.attributes[0].ref_attr_name.empty() &&
          n.attributes[0].kind() == AttributeType::TENSOR)
        constants.emplace(n.outputs[0], &n.attributes[0].as_tensor());
  }
  NoopScope(const NoopScope&) = delete;
  NoopScope& operator=(const NoopScope&) = delete;

  [[nodiscard]] std::size_t defined(std::string_view name) const {
    const auto it = definitions.find(name);
    return it == definitions.end() ? 0 : it->second;
  }
  [[nodiscard]] const Type* type_of(std::string_view name) const {
    for (const NoopScope* s = this; s; s = s->parent) {
      if (const auto it = s->types.find(name); it != s->types.end()) return it->second;
      if (s->defined(name)) return nullptr;  // this graph's value, of unknown type
    }
    return nullptr;
  }
  /// The constant `name` names where it is read (nullptr for a value that is not one, or for a
  /// name its graph defines more than once).
  [[nodiscard]] const Tensor* constant(std::string_view name) const {
    for (const NoopScope* s = this; s; s = s->parent) {
      if (const std::size_t d = s->defined(name)) {
        if (d != 1) return nullptr;
        const auto it = s->constants.find(name);
        return it == s->constants.end() ? nullptr : it->second;
      }
    }
    return nullptr;
  }
};

/// What replace_noop_nodes knows about the whole model.
struct NoopRun {
  std::int64_t opset = 0;
  /// Main-graph values computed by a node inference rejected, or from one (rejected_outputs).
  const std::unordered_set<std::string>& rejected;
  /// Names read anywhere: node inputs at any depth, and graph outputs (for Dropout's mask).
  std::unordered_set<std::string_view> read;
  /// What to change, once every graph is decided (the sets and scopes view the model's names):
  /// node `node` of `graph` becomes an Identity of its input `through`, and `dropped` (unread
  /// Dropout masks) leave the graph's value_info.
  struct Change {
    Graph* graph;
    std::size_t node, through;
  };
  std::vector<Change> changes;
  std::unordered_map<Graph*, std::unordered_set<std::string>> dropped;
};

/// replace_noop_nodes over graph `g` (its copy in the probe: `pg`), then the subgraphs of its
/// nodes that stay. The main graph when `parent` is null.
inline void replace_noop_graph(NoopRun& r, Graph& g, const Graph& pg, const NoopScope* parent, bool loop_body,
                               int depth) {
  const bool main = parent == nullptr;
  NoopScope scope(g, pg, parent, loop_body);
  const auto type_of = [&](const std::string& name) { return scope.type_of(name); };
  const auto constant = [&](const std::string& name) { return scope.constant(name); };
  // A main-graph node inference rejected is known by its outputs only (an error anywhere in a
  // subgraph rejects the main-graph node that holds it): one without a named output, or one
  // that reads what a rejected node computes, is left alone with its subgraphs.
  const auto trusted = [&](const Node& n) {
    bool named = false;
    for (const auto& o : n.outputs) {
      if (o.empty()) continue;
      if (main && r.rejected.contains(o)) return false;
      named = true;
    }
    return named || !main;
  };

  std::vector<bool> changing(g.nodes.size(), false);
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (n.op_type == "Identity" || !trusted(n)) continue;
    bool ok = !n.outputs.empty();
    for (const auto& o : n.outputs) ok = ok && (o.empty() || scope.defined(o) == 1);
    if (!ok) continue;
    std::optional<std::size_t> through;
    try {
      through = passes_through(n, r.opset, type_of, constant);
    } catch (const Error&) {
      continue;  // a constant whose external data cannot be read: left alone
    }
    if (!through) continue;
    if (scope.in_loop_body && !scope.defined(n.inputs[*through])) {
      // ONNX Runtime (1.30) empties a string tensor from outside a Loop body that an Identity in
      // the body passes on, in the first iteration (the later ones read ""): left as it is.
      const Type* t = scope.type_of(n.inputs[*through]);
      if (!t || !t->is_tensor() || t->elem_type() == DataType::STRING) continue;
    }
    if (n.op_type == "Dropout")
      for (std::size_t k = 1; k < n.outputs.size(); ++k)
        if (!n.outputs[k].empty() && r.read.contains(n.outputs[k])) through.reset();
    if (!through) continue;
    for (std::size_t k = 1; k < n.outputs.size(); ++k)  // an unread mask: its value_info goes with it
      if (!n.outputs[k].empty()) r.dropped[&g].insert(n.outputs[k]);
    r.changes.push_back({&g, i, *through});
    changing[i] = true;
  }
  // The subgraphs of the nodes that stay.
  if (depth >= kMaxFoldDepth) return;
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    Node& n = g.nodes[i];
    if (n.attributes.empty() || changing[i] || !trusted(n) || i >= pg.nodes.size()) continue;
    const Node& pn = pg.nodes[i];
    for (std::size_t a = 0; a < n.attributes.size() && a < pn.attributes.size(); ++a) {
      auto subs = views::attribute_graphs(n.attributes[a]);
      const auto psubs = views::attribute_graphs(pn.attributes[a]);
      for (std::size_t k = 0; k < subs.size() && k < psubs.size(); ++k)
        replace_noop_graph(r, subs[k], psubs[k], &scope, n.op_type == "Loop" && is_default_domain(n.domain), depth + 1);
    }
  }
}

}  // namespace detail

/// Replaces every default-domain node that hands its input on unchanged by an `Identity` of that
/// input (same output name, node name and doc_string), in the main graph and in the subgraphs
/// (If branches, Loop and Scan bodies, at any depth), and returns how many:
/// - Cast (from opset 6) to the element type its input has; CastLike of two inputs of one type;
/// - Reshape (from 5), Expand, Squeeze, Unsqueeze, Flatten whose input and output shapes are the
///   same numbers (and element type);
/// - Slice with the same static shape in and out and every step positive (steps absent, or a
///   constant);
/// - Transpose by the identity permutation (or without perm, of rank 0 or 1);
/// - Concat of a single input; Sum, Max, Min, Mean of one input;
/// - Dropout in inference: from opset 7, unless training_mode (from 12) is given and is not a
///   constant false; below 7 only with is_test set. Its mask output must be absent or read by
///   nothing (then it goes);
/// - Add, Sub, Mul, Div, And, Or, Xor (from opset 7) of a constant whose every element leaves the
///   other input as it is (neutral_bits: 1 for Mul/Div, 0 for integer Add/Sub, -0.0 added or
///   +0.0 subtracted for floating point, true for And, false for Or/Xor; Sub and Div with it on
///   the right) and whose dims broadcast into the other input's without enlarging it;
/// - Split into one output without sizes (or with the size the input has), Pad by zeros only (any
///   mode; pads for every dim, or for the axes given), Tile by ones.
/// Types and shapes come from shape inference on a copy of the model without its value_info and
/// declared output shapes, the subgraphs' included (claims exporters get wrong); a main-graph
/// node inference rejects, or that reads what one computes, is left alone with its subgraphs,
/// and so is everything when that cannot be known (inference dropped diagnostics). A subgraph
/// value's type is what inference found it to be in every run of the subgraph. Inside a Loop body
/// (at any depth) a node that would pass on a string tensor from outside its graph stays: ONNX
/// Runtime 1.30's Identity there empties the outer tensor in the first iteration.
/// remove_identity_nodes then takes the Identities out.
inline std::size_t replace_noop_nodes(Model& model) {
  const auto opset = model.opset_version("");
  if (!opset) return 0;
  Model probe = detail::inference_probe(model);
  InferOptions io;
  io.overwrite = true;  // a subgraph's input types become what inference finds, not what they claim
  const InferReport report = infer_shapes(probe, io);
  const auto rejected = detail::rejected_outputs(model.graph, report);
  if (!rejected) return 0;
  detail::NoopRun r{*opset, *rejected, {}, {}, {}};
  const Graph& g = model.graph;
  for (const auto& n : views::all_nodes(g))
    for (const auto& i : n.inputs) r.read.insert(i);
  for (const auto& o : g.outputs) r.read.insert(o.name);
  for (const auto& n : views::all_nodes(g))
    for (const auto& a : n.attributes)
      for (const auto& sub : views::attribute_graphs(a))
        for (const auto& o : sub.outputs) r.read.insert(o.name);
  detail::replace_noop_graph(r, model.graph, probe.graph, nullptr, false, 0);
  for (const auto& [graph, i, through] : r.changes) {
    Node& n = graph->nodes[i];
    std::string input = std::move(n.inputs[through]);
    std::string output = std::move(n.outputs[0]);
    n.op_type = "Identity";
    n.domain.clear();
    n.overload.clear();
    n.inputs = {std::move(input)};
    n.outputs = {std::move(output)};
    n.attributes.clear();
  }
  for (const auto& dropped : r.dropped) {
    const auto& names = dropped.second;  // (clang 14 cannot capture a structured binding)
    std::erase_if(dropped.first->value_info, [&](const ValueInfo& v) { return names.contains(v.name); });
  }
  return r.changes.size();
}

}  // namespace oxir
