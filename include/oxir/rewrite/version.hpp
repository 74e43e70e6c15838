#pragma once
// upgrade_opset and downgrade_opset: move a model to a newer or an older version of the default
// ONNX operator set, rewriting the nodes whose operator changed incompatibly on the way
// (attributes that became inputs and back, changed defaults and semantics, renamed or replaced
// operators) and refusing the changes they cannot map.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "../core/error.hpp"
#include "../core/float_types.hpp"
#include "../infer.hpp"
#include "../infer/type_constraints_data.hpp"
#include "../ir/model.hpp"
#include "../ir/views.hpp"

namespace oxir {

/// Oldest and newest default-domain opsets upgrade_opset converts between.
inline constexpr std::int64_t kUpgradeOldestOpset = 1;
inline constexpr std::int64_t kUpgradeNewestOpset = 25;

/// What upgrade_opset did.
struct UpgradeReport {
  std::int64_t from = 0, to = 0;
  std::size_t nodes_rewritten = 0;  ///< nodes an adapter changed (attributes, inputs, operator)
  std::size_t nodes_added = 0;      ///< Nodes inserted (constants, and the nodes an older form needs)
  friend bool operator==(const UpgradeReport&, const UpgradeReport&) = default;
};

namespace detail::upgrade {

inline constexpr int kMaxDepth = 256;

/// The IR version each default-domain opset came with (ONNX releases): 1-8 with IR 3, 9 with 4,
/// 10 with 5, 11 with 6, 12-14 with 7, 15-18 with 8, 19-20 with 9, 21-22 with 10, 23-24 with 11,
/// 25 on with 12.
constexpr std::int64_t ir_of_opset(std::int64_t opset) {
  return opset <= 8 ? 3 : opset == 9 ? 4 : opset == 10 ? 5 : opset == 11 ? 6 : opset <= 14 ? 7 : opset <= 18 ? 8
         : opset <= 20 ? 9 : opset <= 22 ? 10 : opset <= 24 ? 11 : 12;
}

/// The versions (since_version) of default-domain operator `op`, ascending, with whether each is
/// a deprecation (the operator removed from that version on).
inline std::vector<std::pair<std::int64_t, bool>> versions_of(std::string_view op) {
  std::vector<std::pair<std::int64_t, bool>> v;
  for (const auto& row : infer::detail::kTypeSignatures)
    if (row.domain == 0 && op == row.op) v.emplace_back(row.since, row.signature[0] == '\0');
  std::sort(v.begin(), v.end());
  return v;
}

/// Where a node of a converted graph comes from: the index of the node of the original graph
/// whose conversion wrote it, and whether it is a node that conversion made (else the node itself).
struct Origin {
  std::size_t index;
  bool made;
};
/// The origins of the nodes of each converted graph, by the graph's field path in the original
/// model ("graph", "graph.node[3].attribute[0].g", "functions[1]").
using Origins = std::unordered_map<std::string, std::vector<Origin>>;

class Upgrader {
 public:
  /// `model` is the model as it was: types and constants are read from it while a copy is
  /// rewritten (it must outlive the Upgrader and stay unchanged).
  Upgrader(const Model& model, std::int64_t from, std::int64_t to) : model_(model), from_(from), to_(to) {
    // Every name in the model is taken: inserted values get names of their own.
    auto take_graph = [&](auto& self, const Graph& g, int depth) -> void {
      if (depth > kMaxDepth) return;
      for (const auto& v : g.inputs) taken_.insert(v.name);
      for (const auto& t : g.initializers) taken_.insert(t.name);
      for (const auto& n : g.nodes) {
        for (const auto& o : n.outputs) taken_.insert(o);
        for (const auto& i : n.inputs) taken_.insert(i);
        for (const auto& sub : views::subgraphs(n)) self(self, sub, depth + 1);
      }
    };
    take_graph(take_graph, model.graph, 0);
    // Constant tensors by name, per graph (initializers and Constant nodes' values): a name is
    // looked up in the graph being converted and the graphs around it only, as sibling
    // subgraphs (an If's branches) and function bodies may use the same names for other values.
    // An initializer that is also a graph input is a default the caller may override: not a constant.
    for (const auto& v : model.graph.inputs) overridable_.insert(v.name);
    auto consts = [&](const std::vector<Node>& nodes, const std::vector<Tensor>* inits, const std::vector<ValueInfo>* inputs,
                      const std::string& path) {
      auto& scope = scoped_constants_[path];
      if (inits)
        for (const auto& t : *inits)
          if (std::none_of(inputs->begin(), inputs->end(), [&](const ValueInfo& v) { return v.name == t.name; }))
            scope.emplace(t.name, &t);
      for (const auto& n : nodes)
        if (n.op_type == "Constant" && is_default_domain(n.domain) && n.outputs.size() == 1)
          if (const Attribute* a = n.find_attribute("value"); a && std::holds_alternative<Box<Tensor>>(a->value))
            scope.emplace(n.outputs[0], &a->as_tensor());
    };
    for_each_scope(model, [&](const Graph& g, const std::string& path) { consts(g.nodes, &g.initializers, &g.inputs, path); },
                   [&](const Function& f, const std::string& path) { consts(f.nodes, nullptr, nullptr, path); });
    for (const auto& f : model.functions) {
      for (const auto& s : f.inputs) taken_.insert(s);
      for (const auto& n : f.nodes) {
        for (const auto& o : n.outputs) taken_.insert(o);
        for (const auto& i : n.inputs) taken_.insert(i);
        for (const auto& sub : views::subgraphs(n)) take_graph(take_graph, sub, 1);
      }
    }
  }

  /// Element types of values as the model declares them or inference finds them, in the graph
  /// being converted and the graphs around it (read lazily: only some adapters need them; none
  /// in function bodies, whose types depend on the call).
  const Type* type_of(const std::string& name) {
    if (!typed_) {
      typed_ = true;
      typed_model_ = model_;
      InferOptions o;
      (void)infer_shapes(typed_model_, o);
      for_each_scope(
          typed_model_,
          [&](const Graph& g, const std::string& path) {
            auto& scope = scoped_types_[path];
            for (const auto* list : {&g.inputs, &g.outputs, &g.value_info})
              for (const auto& v : *list)
                if (v.type) scope.emplace(v.name, &*v.type);
            for (const auto& t : g.initializers) {
              type_store_.push_back(Type::tensor(t.data_type, shape_of(t)));
              scope.emplace(t.name, &type_store_.back());
            }
          },
          [](const Function&, const std::string&) {});
    }
    return in_scope(scoped_types_, name);
  }
  /// The constant tensor `name` holds where the converter is (made by the conversion, or an
  /// initializer or Constant of the graph being converted or one around it), if it is one.
  const Tensor* constant_of(const std::string& name) const {
    if (const auto m = made_constants_.find(name); m != made_constants_.end()) return m->second;
    return in_scope(scoped_constants_, name);
  }
  /// `name` in `maps` (per graph path), searched from the innermost scope outwards.
  template <class T>
  T* in_scope(const std::unordered_map<std::string, std::unordered_map<std::string, T*>>& maps,
              const std::string& name) const {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      const auto found = maps.find(*it);
      if (found == maps.end()) continue;
      const auto v = found->second.find(name);
      if (v != found->second.end()) return v->second;
    }
    return nullptr;
  }

  /// Calls `graph(g, path)` for the main graph and every subgraph, and `function(f, path)` for
  /// every model-local function and then its subgraphs, with the paths nodes() uses.
  template <class G, class F>
  static void for_each_scope(const Model& m, G&& graph, F&& function) {
    auto walk = [&](auto& self, const std::vector<Node>& nodes, const std::string& path, int depth) -> void {
      if (depth > kMaxDepth) return;
      for (std::size_t i = 0; i < nodes.size(); ++i) {
        const auto& n = nodes[i];
        for (std::size_t a = 0; a < n.attributes.size(); ++a) {
          const bool single = std::holds_alternative<Box<Graph>>(n.attributes[a].value);
          const auto graphs = views::attribute_graphs(n.attributes[a]);
          for (std::size_t k = 0; k < graphs.size(); ++k) {
            const std::string sub = path + ".node[" + std::to_string(i) + "].attribute[" + std::to_string(a) + "]" +
                                    (single ? ".g" : ".graphs[" + std::to_string(k) + "]");
            graph(graphs[k], sub);
            self(self, graphs[k].nodes, sub, depth + 1);
          }
        }
      }
    };
    graph(m.graph, "graph");
    walk(walk, m.graph.nodes, "graph", 0);
    for (std::size_t i = 0; i < m.functions.size(); ++i) {
      const std::string path = "functions[" + std::to_string(i) + "]";
      function(m.functions[i], path);
      walk(walk, m.functions[i].nodes, path, 0);
    }
  }

  /// `base`, or `base_k` for the first k that makes it a name the model does not use (k resumes
  /// where the last search for that base stopped: many nodes sharing a name stay linear).
  std::string fresh(const std::string& base) {
    std::string name = base;
    for (std::size_t& k = next_suffix_[base]; taken_.contains(name);) name = base + "_" + std::to_string(++k);
    taken_.insert(name);
    return name;
  }

  /// Upgrades the nodes of one graph or function body (and, inside, their subgraphs).
  void nodes(std::vector<Node>& nodes, const std::string& path, int depth) {
    if (depth > kMaxDepth) throw Error(path, "subgraphs nested too deep to upgrade");
    // The scopes visible: this graph and those around it (a function body sees only itself).
    std::vector<std::string> outer;
    if (depth == 0) std::swap(outer, scopes_);
    scopes_.push_back(path);
    struct Leave {
      std::vector<std::string>& scopes;
      std::vector<std::string>& outer;
      int depth;
      ~Leave() {
        scopes.pop_back();
        if (depth == 0) std::swap(outer, scopes);
      }
    } leave{scopes_, outer, depth};
    std::vector<Node> out;
    std::vector<Origin> from;
    out.reserve(nodes.size());
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      const std::size_t first = out.size();
      Node n = std::move(nodes[i]);
      const std::string where = path + ".node[" + std::to_string(i) + "]";
      for (std::size_t a = 0; a < n.attributes.size(); ++a) {
        auto graphs = views::attribute_graphs(n.attributes[a]);
        const bool single = std::holds_alternative<Box<Graph>>(n.attributes[a].value);
        for (std::size_t k = 0; k < graphs.size(); ++k)
          this->nodes(graphs[k].nodes,
                      where + ".attribute[" + std::to_string(a) + "]" +
                          (single ? ".g" : ".graphs[" + std::to_string(k) + "]"),
                      depth + 1);
      }
      if (is_default_domain(n.domain)) {
        try {
          if (to_ < from_) node_down(n, out);
          else node(n, out);
        } catch (const Error& e) {
          throw e.within(where);
        }
      }
      out.push_back(std::move(n));
      const std::size_t self = out.size() - 1;
      for (auto& after : pending_after_) out.push_back(std::move(after));
      pending_after_.clear();
      for (std::size_t j = first; j < out.size(); ++j) from.push_back({i, j != self});
    }
    // A constant made for an input that a later step turned into an attribute is read by nothing.
    if (!made_constants_.empty()) {
      std::unordered_set<std::string_view> read;
      auto reads = [&](auto& self, const std::vector<Node>& list, int level) -> void {
        for (const auto& n : list) {
          for (const auto& i : n.inputs) read.insert(i);
          if (level < kMaxDepth)
            for (const auto& sub : views::subgraphs(n)) self(self, sub.nodes, level + 1);
        }
      };
      // (A Cast of a made double constant first, then the constant: twice.)
      for (int pass = 0; pass < 2; ++pass) {
        read.clear();
        reads(reads, out, depth);
        std::size_t kept = 0;
        for (std::size_t j = 0; j < out.size(); ++j) {
          const Node& n = out[j];
          if ((n.op_type == "Constant" || n.op_type == "Cast") && n.outputs.size() == 1 &&
              made_constants_.contains(n.outputs[0]) && !read.contains(n.outputs[0]))
            continue;
          if (kept != j) {
            out[kept] = std::move(out[j]);
            from[kept] = from[j];
          }
          ++kept;
        }
        report.nodes_added -= out.size() - kept;
        out.resize(kept);
        from.resize(kept);
      }
    }
    nodes = std::move(out);
    origins_[path] = std::move(from);
  }
  /// Where the nodes of each graph converted so far come from.
  [[nodiscard]] const Origins& origins() const noexcept { return origins_; }

  /// Downgrading one node, from from_ down to to_: each version step of its operator above to_,
  /// newest first (of the operator that replaces it, after a replacement); then the operator
  /// must exist at to_.
  void node_down(Node& n, std::vector<Node>& out) {
    if (versions(n.op_type).empty()) throw Error("'" + n.op_type + "' is not an operator of the default domain");
    // As in upgrading: a node of an operator its model's opset does not have yet has no meaning
    // to keep (spelling Swish at opset 13 as x * sigmoid(x) would drop whatever else it has).
    if (versions(n.op_type).front().first > from_)
      throw Error("'" + n.op_type + "' does not exist at opset " + std::to_string(from_) + " (it came with opset " +
                  std::to_string(versions(n.op_type).front().first) + ")");
    check_arity(n);
    // An operator newer than the target is refused first (but Resize and ScatterElements
    // replaced older ones, which come back).
    bool changed = false;
    if (const auto& steps = versions(n.op_type);
        steps.front().first > to_ && n.op_type != "Resize" && n.op_type != "ScatterElements" &&
        !(changed = lower(n, out)))
      throw Error("'" + n.op_type + "' does not exist at opset " + std::to_string(to_) + " (it came with opset " +
                  std::to_string(steps.front().first) + ")");
    for (std::int64_t at = from_;;) {
      const auto& steps = versions(n.op_type);
      const auto in_force = std::find_if(steps.rbegin(), steps.rend(), [&](const auto& v) { return v.first <= at; });
      if (in_force == steps.rend() || in_force->first <= to_) break;
      const std::int64_t since = in_force->first;
      if (adapt_down(n, since, out)) changed = true;
      at = since - 1;
    }
    const auto& steps = versions(n.op_type);
    const auto at_target = std::find_if(steps.rbegin(), steps.rend(), [&](const auto& v) { return v.first <= to_; });
    if (at_target == steps.rend())
      throw Error("'" + n.op_type + "' does not exist at opset " + std::to_string(to_) + " (it came with opset " +
                  std::to_string(steps.front().first) + ")");
    if (at_target->second)
      throw Error("'" + n.op_type + "' was removed at opset " + std::to_string(at_target->first));
    if (changed) ++report.nodes_rewritten;
  }

 private:
  /// The int64 (or int32) constant that input `i` reads, if it is one.
  std::optional<std::vector<std::int64_t>> constant_ints(const Node& n, std::size_t i) const {
    if (!n.has_input(i)) return std::nullopt;
    const Tensor* it = constant_of(n.inputs[i]);
    if (!it) return std::nullopt;
    std::vector<std::int64_t> v;
    if (it->data_type == DataType::INT64) {
      const auto x = it->values<std::int64_t>();
      v.assign(x.begin(), x.end());
    } else if (it->data_type == DataType::INT32) {
      for (const auto x : it->values<std::int32_t>()) v.push_back(x);
    } else {
      return std::nullopt;
    }
    return v;
  }
  /// The one-element float constant (any float type) that input `i` reads, if it is one.
  std::optional<float> constant_float(const Node& n, std::size_t i) const {
    if (!n.has_input(i)) return std::nullopt;
    const Tensor* it = constant_of(n.inputs[i]);
    if (!it || it->element_count() != std::uint64_t{1}) return std::nullopt;
    const Tensor& t = *it;
    switch (t.data_type) {
      case DataType::FLOAT: return t.values<float>()[0];
      case DataType::DOUBLE: return static_cast<float>(t.values<double>()[0]);
      case DataType::FLOAT16: return static_cast<float>(t.values<float16>()[0]);
      case DataType::BFLOAT16: return static_cast<float>(t.values<bfloat16>()[0]);
      default: return std::nullopt;
    }
  }
  [[noreturn]] void not_constant(const Node& n, std::size_t i, std::string_view attr) const {
    if (!n.has_input(i))
      throw Error(n.op_type + ": input " + std::to_string(i) + " is missing, and at opset " + std::to_string(to_) +
                  " its value is the attribute '" + std::string(attr) + "'");
    const bool input = overridable_.contains(n.inputs[i]);
    throw Error(n.op_type + ": input '" + n.inputs[i] + "' is not a constant" +
                (input ? " (a graph input, which a caller may set, even with an initializer as its default)" : "") +
                ", and at opset " + std::to_string(to_) + " it is the attribute '" + std::string(attr) + "'");
  }
  /// Drops the inputs from `i` on (all absent or moved into attributes).
  static void cut_inputs(Node& n, std::size_t i) {
    if (n.inputs.size() > i) n.inputs.resize(i);
  }
  /// Input `i` (an int64 constant) as the INTS attribute `attr`; false when the input is absent.
  bool input_to_ints(Node& n, std::size_t i, std::string_view attr) {
    if (!n.has_input(i)) return false;
    const auto v = constant_ints(n, i);
    if (!v) not_constant(n, i, attr);
    n.set_attribute(Attribute(std::string(attr), *v));
    n.inputs[i].clear();
    return true;
  }
  /// A refusal unless attribute `attr` is absent or equal to `fine`; the attribute is dropped.
  /// Whether it was there.
  template <class T>
  bool only_default(Node& n, std::string_view attr, T fine, std::string_view why) {
    const Attribute* a = value_attr(n, attr);
    if (!a) return false;
    bool ok = false;
    if constexpr (std::is_same_v<T, std::int64_t>) ok = a->kind() == AttributeType::INT && a->as_int() == fine;
    else ok = a->kind() == AttributeType::STRING && a->as_string() == fine;
    if (!ok) throw Error(n.op_type + ": " + std::string(why) + " (attribute '" + std::string(attr) + "') has no equivalent at opset " +
                         std::to_string(to_));
    drop(n, attr);
    return true;
  }
  /// The rank of input `i` if declared or inferable.
  std::optional<std::int64_t> known_rank(const Node& n, std::size_t i) {
    const Type* t = n.has_input(i) ? type_of(n.inputs[i]) : nullptr;
    const Shape* s = t ? t->shape() : nullptr;
    if (!s) return std::nullopt;
    return static_cast<std::int64_t>(s->rank());
  }
  /// Opset 11 allowed negative axes on many operators: before it they count from the front.
  bool positive_axes(Node& n) {
    // (Gather, Scatter, OneHot and TopK took negative axes before 11 already.)
    static const std::unordered_set<std::string_view> axis_ops{
        "Concat", "Flatten", "Softmax", "LogSoftmax", "Hardmax", "Split", "ArgMax", "ArgMin", "Compress"};
    static const std::unordered_set<std::string_view> axes_ops{
        "Squeeze", "Unsqueeze", "ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1",
        "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare"};
    const bool one = axis_ops.contains(n.op_type), many = axes_ops.contains(n.op_type);
    if (!one && !many) return false;
    Attribute* a = n.find_attribute(one ? "axis" : "axes");
    if (!a || !a->ref_attr_name.empty()) return false;
    std::vector<std::int64_t> axes = one ? std::vector<std::int64_t>{a->as_int()} : a->as_ints();
    if (std::none_of(axes.begin(), axes.end(), [](std::int64_t x) { return x < 0; })) return false;
    const auto rank = known_rank(n, 0);
    if (!rank)
      throw Error(n.op_type + ": negative axes count from the back only from opset 11, and the rank of '" +
                  (n.inputs.empty() ? std::string() : n.inputs[0]) + "' is not known");
    // Negative axes count back from Unsqueeze's output rank, from the input's rank for the others
    // (Flatten's axis may equal it).
    const std::int64_t r = n.op_type == "Unsqueeze" ? *rank + static_cast<std::int64_t>(axes.size()) : *rank;
    for (auto& x : axes)
      if (x < 0) x += r;
    if (one) n.set_attribute(Attribute("axis", axes[0]));
    else n.set_attribute(Attribute("axes", axes));
    return true;
  }

  /// The change at `since` of the node's operator, undone (the node goes from that version to
  /// the one before); false when that step is compatible (new types, attributes left at their
  /// defaults: the type check after the conversion catches types the target does not have).
  bool adapt_down(Node& n, std::int64_t since, std::vector<Node>& out) {
    const bool axes = since == 11 && positive_axes(n);
    return adapt_down_op(n, since, out) || axes;
  }

  bool adapt_down_op(Node& n, std::int64_t since, std::vector<Node>& out) {
    const std::string& op = n.op_type;
    const bool reduce = op == "ReduceMean" || op == "ReduceMax" || op == "ReduceMin" || op == "ReduceProd" ||
                        op == "ReduceL1" || op == "ReduceL2" || op == "ReduceLogSum" || op == "ReduceLogSumExp" ||
                        op == "ReduceSumSquare";
    if ((reduce && since == 18) || (op == "ReduceSum" && since == 13)) {
      const Attribute* noop_attr = value_attr(n, "noop_with_empty_axes");
      const bool noop = noop_attr != nullptr, axes = n.has_input(1);
      if (noop && noop_attr->as_int() != 0) {
        const auto v = constant_ints(n, 1);
        if (!axes || (v && v->empty()))
          throw Error(op + " with noop_with_empty_axes = 1 and no axes (the identity) has no equivalent at opset " +
                      std::to_string(to_));
      }
      drop(n, "noop_with_empty_axes");
      if (axes) {
        const auto v = constant_ints(n, 1);
        if (!v) not_constant(n, 1, "axes");
        if (!v->empty()) n.set_attribute(Attribute("axes", *v));
      }
      cut_inputs(n, 1);
      return axes || noop;
    }
    if ((op == "Squeeze" || op == "Unsqueeze") && since == 13) {
      const bool moved = input_to_ints(n, 1, "axes");
      cut_inputs(n, 1);
      return moved;
    }
    if (op == "Split" && since == 18) {
      const Attribute* parts = value_attr(n, "num_outputs");
      if (!parts) return false;
      // Split-13 without sizes splits into equal parts: only an evenly divisible axis converts.
      const Type* t = n.has_input(0) ? type_of(n.inputs[0]) : nullptr;
      const Shape* s = t ? t->shape() : nullptr;
      std::int64_t axis = n.attribute_or("axis", std::int64_t{0});
      if (s && axis < 0) axis += static_cast<std::int64_t>(s->rank());
      const bool even = s && axis >= 0 && axis < static_cast<std::int64_t>(s->rank()) &&
                        (*s)[static_cast<std::size_t>(axis)].is_value() && parts->as_int() > 0 &&
                        (*s)[static_cast<std::size_t>(axis)].dim_value() % parts->as_int() == 0;
      if (!even)
        throw Error("Split-18 with num_outputs may split unevenly; Split-13 splits into equal parts only, and the "
                    "size of the axis is not known to divide evenly");
      drop(n, "num_outputs");
      return true;
    }
    if (op == "Split" && since == 13) {
      const bool moved = input_to_ints(n, 1, "split");
      cut_inputs(n, 1);
      return moved;
    }
    if (op == "Slice" && since == 11) {
      // Negative axes count from the back only from 11 on.
      const auto axes = n.has_input(3) ? constant_ints(n, 3) : std::nullopt;
      if (n.has_input(3) && !axes) not_constant(n, 3, "axes");
      if (!axes || std::none_of(axes->begin(), axes->end(), [](std::int64_t x) { return x < 0; })) return false;
      const auto rank = known_rank(n, 0);
      if (!rank) throw Error("Slice: negative axes count from the back only from opset 11, and the rank is not known");
      auto v = *axes;
      for (auto& x : v)
        if (x < 0) x += *rank;
      n.inputs[3] = ints(v, false, base(n, "axes"), out);
      return true;
    }
    if (op == "Slice" && since == 10) {
      if (n.has_input(4)) {
        const auto steps = constant_ints(n, 4);
        if (!steps) not_constant(n, 4, "steps");
        if (std::any_of(steps->begin(), steps->end(), [](std::int64_t x) { return x != 1; }))
          throw Error("Slice with steps other than 1 has no equivalent before opset 10");
      }
      if (!n.has_input(1) || !n.has_input(2)) throw Error("Slice without starts or ends");
      (void)input_to_ints(n, 1, "starts");
      (void)input_to_ints(n, 2, "ends");
      (void)input_to_ints(n, 3, "axes");
      cut_inputs(n, 1);
      return true;
    }
    if (op == "TopK" && since == 11) {
      const bool largest = only_default(n, "largest", std::int64_t{1}, "the smallest elements");
      const bool sorted = n.find_attribute("sorted") != nullptr;
      drop(n, "sorted");  // sorted results are one of the orders sorted = 0 allows
      return largest || sorted;
    }
    if (op == "TopK" && since == 10) {
      const auto k = constant_ints(n, 1);
      if (!k || k->size() != 1) not_constant(n, 1, "k");
      n.set_attribute(Attribute("k", (*k)[0]));
      cut_inputs(n, 1);
      return true;
    }
    if (op == "Clip" && since == 11) {
      bool moved = false;
      for (std::size_t i : {std::size_t{1}, std::size_t{2}}) {
        if (!n.has_input(i)) continue;
        const auto v = constant_float(n, i);
        if (!v) not_constant(n, i, i == 1 ? "min" : "max");
        // Clip-6's bounds are float attributes: a double bound must be one a float holds.
        const Tensor* c = constant_of(n.inputs[i]);
        if (c->data_type == DataType::DOUBLE && static_cast<double>(*v) != c->values<double>()[0])
          throw Error("Clip: the double bound '" + n.inputs[i] + "' is not exact as the float attribute '" +
                      (i == 1 ? "min" : "max") + "' it is at opset " + std::to_string(to_));
        n.set_attribute(Attribute(i == 1 ? "min" : "max", *v));
        moved = true;
      }
      cut_inputs(n, 1);
      return moved;
    }
    if (op == "Pad" && since == 19) {
      if (n.attribute_or("mode", std::string_view("constant")) == "wrap")
        throw Error("Pad's wrap mode has no equivalent before opset 19");
      return false;
    }
    if (op == "Pad" && since == 18) {
      if (n.has_input(3)) throw Error("Pad's axes input has no equivalent before opset 18");
      return false;
    }
    if (op == "Pad" && since == 11) {
      if (!input_to_ints(n, 1, "pads")) throw Error("Pad without pads");
      if (n.has_input(2)) {
        const auto v = constant_float(n, 2);
        if (!v) not_constant(n, 2, "value");
        n.set_attribute(Attribute("value", *v));
      }
      cut_inputs(n, 1);
      return true;
    }
    if (op == "Dropout" && since == 12) {
      if (n.has_input(2)) {
        // A constant false is inference mode, the only one a model says before 12.
        const Tensor* it = constant_of(n.inputs[2]);
        const bool off = it && it->data_type == DataType::BOOL &&
                         it->element_count() == std::uint64_t{1} && !it->values<bool>()[0];
        if (!off) throw Error("Dropout's training_mode input (unless a constant false) has no equivalent before opset 12");
      }
      if (n.has_input(1)) {
        const auto v = constant_float(n, 1);
        if (!v) not_constant(n, 1, "ratio");
        n.set_attribute(Attribute("ratio", *v));
      }
      const bool moved = n.inputs.size() > 1;
      cut_inputs(n, 1);
      return moved;
    }
    if (op == "Pow" && since == 12 && n.has_input(0) && n.has_input(1)) {
      // Before 12 the exponent has the base's type: a float base's exponent of another type is
      // cast to it (integer exponents are exact in it below 2^24). Unknown types are left to the
      // type check after the conversion.
      const Type* bt = type_of(n.inputs[0]);
      const Type* et = type_of(n.inputs[1]);
      const DataType b = bt ? bt->elem_type() : DataType::UNDEFINED, e = et ? et->elem_type() : DataType::UNDEFINED;
      if ((b == DataType::INT32 || b == DataType::INT64) && e != DataType::UNDEFINED && n.has_output(0)) {
        // An integer base (Pow-7 takes floats only): both in double, which holds the int32
        // and int64 values up to 2^53 exactly, the power cast back to the base's type.
        n.inputs[0] = cast(n, n.inputs[0], DataType::DOUBLE, "base", out);
        if (e != DataType::DOUBLE) n.inputs[1] = cast(n, n.inputs[1], DataType::DOUBLE, "exponent", out);
        cast_output_back(n, b, "power");
        return true;
      }
      if (!is_float(b) || e == DataType::UNDEFINED || e == b) return false;
      n.inputs[1] = cast(n, n.inputs[1], b, "exponent", out);
      return true;
    }
    if (op == "Dropout" && since == 10 && n.has_output(1))
      throw Error("Dropout's mask is bool from opset 10 on and of the input's type before: not converted");
    if (op == "Resize" && since == 19) {
      if (n.attribute_or("coordinate_transformation_mode", std::string_view()) == "half_pixel_symmetric")
        throw Error("Resize's half_pixel_symmetric coordinates have no equivalent before opset 19");
      return false;
    }
    if (op == "Resize" && since == 18) {
      if (n.find_attribute("axes")) throw Error("Resize's axes attribute has no equivalent before opset 18");
      const bool a = only_default(n, "antialias", std::int64_t{0}, "antialiasing");
      const bool k = only_default(n, "keep_aspect_ratio_policy", std::string("stretch"), "a kept aspect ratio");
      return a || k;
    }
    if (op == "Resize" && since == 13) {
      // roi and scales became optional at 13: 11 wants them present (empty when unused). Below
      // 11 the node keeps X and scales only (resize_10).
      if (to_ < 11) return false;
      bool added = false;
      for (std::size_t i : {std::size_t{1}, std::size_t{2}})
        if (!n.has_input(i) && (i == 1 || n.has_input(3))) {
          set_input(n, i, constant(Tensor::from_values<float>("", {0}, std::span<const float>()),
                                   base(n, i == 1 ? "roi" : "scales"), out));
          added = true;
        }
      return added;
    }
    if (op == "Resize" && since == 11) return resize_10(n, out);
    if (op == "Resize" && since == 10) {
      // Upsample-9 takes Resize-10's inputs and modes, but only scales of at least 1.
      const Tensor* it = n.has_input(1) ? constant_of(n.inputs[1]) : nullptr;
      if (!it || it->data_type != DataType::FLOAT)
        throw Error("Resize's scales are not a constant, and Upsample (before opset 10) only enlarges");
      for (const float x : it->values<float>())
        if (!(x >= 1.f)) throw Error("Resize shrinks, and Upsample (before opset 10) only enlarges");
      n.op_type = "Upsample";
      return true;
    }
    if (op == "Upsample" && since == 9) {
      const Tensor* it = n.has_input(1) ? constant_of(n.inputs[1]) : nullptr;
      if (!it || it->data_type != DataType::FLOAT) not_constant(n, 1, "scales");
      const auto v = it->values<float>();
      n.set_attribute(Attribute("scales", std::vector<float>(v.begin(), v.end())));
      cut_inputs(n, 1);
      return true;
    }
    if (op == "ScatterElements" && (since == 16 || since == 18)) {
      if (since == 18) {
        const std::string r = n.attribute_or("reduction", std::string_view("none"));
        if (r == "max" || r == "min") throw Error("ScatterElements' " + r + " reduction has no equivalent before opset 18");
        return false;
      }
      return only_default(n, "reduction", std::string("none"), "a reduction");
    }
    if (op == "ScatterElements" && since == 11) {
      n.op_type = "Scatter";
      return true;
    }
    if ((op == "Softmax" || op == "LogSoftmax" || op == "Hardmax") && since == 13) {
      // Before 13 the input is flattened to 2-D at `axis`: the same along the last axis. Another
      // axis is swapped with the last one by a Transpose before and the same Transpose after.
      const std::int64_t axis = n.attribute_or("axis", std::int64_t{-1});
      const auto rank = known_rank(n, 0);
      if (axis != -1 && !(rank && axis == *rank - 1)) {
        if (!rank)
          throw Error(op + " along an axis that is not the last one, and the rank of '" +
                      (n.inputs.empty() ? std::string() : n.inputs[0]) + "' is not known");
        const std::int64_t a = axis < 0 ? axis + *rank : axis;
        if (a < 0 || a >= *rank) throw Error(op + ": axis " + std::to_string(axis) + " is outside the rank " + std::to_string(*rank));
        swap_with_last(n, static_cast<std::size_t>(*rank), static_cast<std::size_t>(a), out);
      }
      if (to_ < 11 && !rank) throw Error(op + ": before opset 11 the axis counts from the front, and the rank is not known");
      n.set_attribute(Attribute("axis", to_ < 11 ? *rank - 1 : std::int64_t{-1}));
      return true;
    }
    if (op == "RoiAlign" && since == 16) {
      // Absent means half_pixel at 16, which shifts by half a pixel; before 16 none did.
      if (!only_default(n, "coordinate_transformation_mode", std::string("output_half_pixel"),
                        "the half_pixel coordinates"))
        throw Error("RoiAlign's half_pixel coordinates (opset 16's default) have no equivalent before opset 16");
      return true;
    }
    if (op == "GridSample" && since == 20) {
      const auto rank = known_rank(n, 0);
      if (rank != std::int64_t{4}) throw Error("GridSample before opset 20 takes 4-D inputs only (the rank here is not 4 or not known)");
      const std::string mode = n.attribute_or("mode", std::string_view("linear"));
      n.set_attribute(Attribute("mode", mode == "linear" ? "bilinear" : mode == "cubic" ? "bicubic" : mode.c_str()));
      return true;
    }
    if (op == "DFT" && since == 20) {
      std::int64_t axis = -2;  // DFT-20's default
      if (n.has_input(2)) {
        const auto v = constant_ints(n, 2);
        if (!v || v->size() != 1) not_constant(n, 2, "axis");
        axis = (*v)[0];
      }
      if (axis < 0) {
        const auto rank = known_rank(n, 0);
        if (!rank) throw Error("DFT: the axis counts from the back, and the rank is not known");
        axis += *rank;
      }
      n.set_attribute(Attribute("axis", axis));
      cut_inputs(n, 2);
      return true;
    }
    if (op == "GroupNormalization" && since == 21)
      return group_normalization(n, elem_type(n, 0, "GroupNormalization-21 spelled in older operators needs it"), out);
    if (op == "DepthToSpace" && since == 11) {  // mode came with 11; before, always DCR
      const Attribute* mode = value_attr(n, "mode");
      if (mode && mode->kind() == AttributeType::STRING && mode->as_string() == "CRD") return depth_to_space_crd(n, out);
      return only_default(n, "mode", std::string("DCR"), "the CRD order");
    }
    if (op == "ThresholdedRelu" && since == 10 && to_ >= 9 && n.has_input(0) && n.has_output(0)) {
      // ThresholdedRelu-1 was experimental: from 9, its definition, Where(x > alpha, x, 0).
      const Attribute* alpha = value_attr(n, "alpha");
      const DataType t = elem_type(n, 0, "ThresholdedRelu spelled as a Where before opset 10 needs it for its constants");
      const std::string x = n.inputs[0];
      const std::string a = float_scalar(alpha ? alpha->as_float() : 1.0, t, base(n, "alpha"), out);
      const std::string above = add(n, "Greater", {x, a}, "above", out).outputs[0];
      return become(n, "Where", {above, x, zero_scalar(t, base(n, "zero"), out)});
    }
    if (op == "MeanVarianceNormalization" && since == 9 && n.has_input(0) && n.has_output(0)) {
      // MeanVarianceNormalization-1 was experimental: its definition, (x - mean) / (std + 1e-9)
      // over `axes` (0, 2, 3 by default), the variance as the mean of the squared deviations.
      const Attribute* a = value_attr(n, "axes");
      const std::vector<std::int64_t> axes = a ? a->as_ints() : std::vector<std::int64_t>{0, 2, 3};
      const DataType t = elem_type(n, 0, "MeanVarianceNormalization spelled out before opset 9 needs it for its epsilon");
      const std::string x = n.inputs[0];
      auto mean_of = [&](const std::string& v, const char* what) {
        Node& m = add(n, "ReduceMean", {v}, what, out);
        m.set_attribute(Attribute("axes", axes));
        m.set_attribute(Attribute("keepdims", std::int64_t{1}));
        return m.outputs[0];
      };
      const std::string dev = add(n, "Sub", {x, mean_of(x, "mean")}, "deviation", out).outputs[0];
      const std::string sq = add(n, "Mul", {dev, dev}, "square", out).outputs[0];
      const std::string sd = add(n, "Sqrt", {mean_of(sq, "variance")}, "std", out).outputs[0];
      const std::string den = add(n, "Add", {sd, float_scalar(1e-9, t, base(n, "epsilon"), out)}, "std_epsilon", out).outputs[0];
      return become(n, "Div", {dev, den});
    }
    if ((op == "ThresholdedRelu" && since == 10) || (op == "MeanVarianceNormalization" && since == 9))
      throw Error(op + " before opset " + std::to_string(since) + " was an experimental operator: not converted");
    if (op == "BatchNormalization" && since == 14)
      return only_default(n, "training_mode", std::int64_t{0}, "training mode");
    if (op == "Scan" && since == 9) throw Error("Scan-9 has no batch axis, Scan-8 always has one: not converted");
    if (op == "Reshape" && since == 14) {
      const Attribute* a = value_attr(n, "allowzero");
      if (!a) return false;
      if (a->as_int() != 0) {
        const auto shape = constant_ints(n, 1);
        if (!shape || std::find(shape->begin(), shape->end(), 0) != shape->end())
          throw Error("Reshape with allowzero = 1 and a shape that may hold 0 has no equivalent before opset 14");
      }
      drop(n, "allowzero");
      return true;
    }
    if (op == "Shape" && since == 15) {
      const Attribute* start = value_attr(n, "start");
      const Attribute* end = value_attr(n, "end");
      if ((!start || start->as_int() == 0) && !end) {
        drop(n, "start");
        return start != nullptr;
      }
      // The whole shape, then a Slice of it: Slice clamps its bounds into [0, rank] and counts
      // negative ones from the back as Shape-15 does. The node becomes a Slice-13, which the
      // steps below turn into the target's form.
      if (!n.has_input(0) || !n.has_output(0)) throw Error("Shape without input or output");
      const std::int64_t b = start ? start->as_int() : 0;
      const std::int64_t e = end ? end->as_int() : std::numeric_limits<std::int64_t>::max();
      const std::string whole = fresh(base(n, "whole"));
      out.push_back(Node("Shape", {n.inputs[0]}, {whole}));
      ++report.nodes_added;
      Node slice("Slice", {whole, ints({b}, false, base(n, "start"), out), ints({e}, false, base(n, "end"), out),
                           ints({0}, false, base(n, "axis"), out)},
                 n.outputs);
      slice.name = n.name;
      n = std::move(slice);
      return true;
    }
    if (op == "Constant" && since == 12) {
      // value_float(s), value_int(s), value_string(s) became a tensor value.
      for (const char* name : {"value_float", "value_floats", "value_int", "value_ints", "value_string", "value_strings"}) {
        const Attribute* a = value_attr(n, name);
        if (!a) continue;
        Tensor t;
        const std::string_view k(name);
        if (k == "value_float") t = Tensor::from_values<float>("", {}, {a->as_float()});
        else if (k == "value_floats")
          t = Tensor::from_values<float>("", {static_cast<std::int64_t>(a->as_floats().size())}, std::span<const float>(a->as_floats()));
        else if (k == "value_int") t = Tensor::from_values<std::int64_t>("", {}, {a->as_int()});
        else if (k == "value_ints")
          t = Tensor::from_values<std::int64_t>("", {static_cast<std::int64_t>(a->as_ints().size())},
                                                std::span<const std::int64_t>(a->as_ints()));
        else {
          t.data_type = DataType::STRING;
          if (k == "value_string") t.strings = {a->as_string()};
          else {
            t.strings = a->as_strings();
            t.dims = {static_cast<std::int64_t>(t.strings.size())};
          }
        }
        drop(n, name);
        n.set_attribute(Attribute("value", std::move(t)));
        return true;
      }
      return false;
    }
    if (op == "Constant" && since == 9 && n.has_output(0)) {
      // Constant holds floats only before 9: another type's value as a double one, cast back.
      const Attribute* v = value_attr(n, "value");
      if (!v || v->kind() != AttributeType::TENSOR) return false;
      const DataType type = v->as_tensor().data_type;
      if (type == DataType::FLOAT || type == DataType::DOUBLE || type == DataType::FLOAT16) return false;
      auto doubles = as_double(v->as_tensor());
      if (!doubles)
        throw Error("Constant holds only float, float16 and double before opset 9, and its " +
                    std::string(data_type_name(type)) +
                    (is_integer(type) ? " value has integers beyond 2^53, which doubles do not hold exactly"
                                      : " value is not one a Cast from those makes there"));
      const std::string d = fresh(base(n, "double"));
      Node c("Constant", {}, {d});
      c.set_attribute(Attribute("value", std::move(*doubles)));
      out.push_back(std::move(c));
      ++report.nodes_added;
      n.op_type = "Cast";
      n.inputs = {d};
      n.attributes.clear();
      n.set_attribute(Attribute("to", static_cast<std::int64_t>(type)));
      return true;
    }
    if (op == "Constant" && since == 11 && n.find_attribute("sparse_value"))
      throw Error("Constant's sparse_value has no equivalent before opset 11");
    if (op == "Cast" && since == 19) {
      const bool had = n.find_attribute("saturate") != nullptr;
      drop(n, "saturate");  // only float 8 casts saturate; the type check refuses those
      return had;
    }
    if (op == "Equal" && since == 11 && n.has_input(0) && n.has_input(1) && n.has_output(0)) {
      // Equal takes floats from 11 on: before, x == y as neither x < y nor x > y, both numbers.
      const Type* xt = type_of(n.inputs[0]);
      if (!xt || !is_float(xt->elem_type())) return false;
      const std::string x = n.inputs[0], y = n.inputs[1];
      const std::string less = add(n, "Less", {x, y}, "less", out).outputs[0];
      const std::string greater = add(n, "Greater", {x, y}, "greater", out).outputs[0];
      const std::string differ = add(n, "Or", {less, greater}, "differ", out).outputs[0];
      const std::string same = add(n, "Not", {differ}, "same", out).outputs[0];
      return become(n, "And", {same, both_numbers(n, x, y, xt->elem_type(), out)});
    }
    if ((op == "Max" || op == "Min") && since == 12) return integer_extremum(n, out);
    if (op == "Clip" && since == 12) return integer_clip(n, out);
    if (op == "Gemm" && since == 11 && !n.has_input(2)) {
      set_input(n, 2, float_scalar(0.0, elem_type(n, 0, "Gemm before opset 11 needs C"), base(n, "c"), out));
      return true;
    }
    if (op == "MaxPool" && since == 10) {
      const bool dilated = unit_dilations(n);
      return ceil_as_pads(n) || dilated;
    }
    if (op == "AveragePool" && since == 19) return unit_dilations(n);
    if (op == "AveragePool" && since == 10) return ceil_as_pads(n);
    if (op == "MaxPool" && since == 8) {
      if (n.has_output(1)) throw Error("MaxPool's Indices output has no equivalent before opset 8");
      const bool order = only_default(n, "storage_order", std::int64_t{0}, "column-major indices");
      const bool trimmed = n.outputs.size() > 1;
      n.outputs.resize(1);
      return order || trimmed;
    }
    if ((op == "ArgMax" || op == "ArgMin") && since == 12) {
      const Attribute* last = value_attr(n, "select_last_index");
      if (!last) return false;
      if (last->as_int() == 0) {
        drop(n, "select_last_index");
        return true;
      }
      return last_index(n, out);
    }
    if ((op == "QuantizeLinear" || op == "DequantizeLinear") && since == 13) {
      const Attribute* a = value_attr(n, "axis");
      const Type* t = n.has_input(1) ? type_of(n.inputs[1]) : nullptr;
      const Shape* s = t ? t->shape() : nullptr;
      const bool scalar = s && (s->rank() == 0 || (s->rank() == 1 && (*s)[0].value_if() == std::int64_t{1}));
      if (!scalar) throw Error(op + " per axis (or with a scale of unknown shape) has no equivalent before opset 13");
      drop(n, "axis");
      return a != nullptr;
    }
    if ((op == "QuantizeLinear" || op == "DequantizeLinear") && since == 21) {
      only_default(n, "block_size", std::int64_t{0}, "blocked quantization");
      if (n.find_attribute("output_dtype")) throw Error(op + "'s output_dtype has no equivalent before opset 21");
      return false;
    }
    if ((op == "QuantizeLinear" || op == "DequantizeLinear") && since == 19) {
      const bool had = n.find_attribute("saturate") != nullptr;
      drop(n, "saturate");
      return had;
    }
    return false;
  }

  /// Pooling dilations, which older versions lack: all 1 (then dropped) or refused.
  bool unit_dilations(Node& n) {
    const Attribute* d = value_attr(n, "dilations");
    if (!d) return false;
    if (std::any_of(d->as_ints().begin(), d->as_ints().end(), [](std::int64_t x) { return x != 1; }))
      throw Error(n.op_type + "'s dilations have no equivalent at opset " + std::to_string(to_));
    drop(n, "dilations");
    return true;
  }

  /// A pool's ceil_mode = 1 before opset 10, which has floor mode only: the end pads made larger
  /// so that floor mode counts the windows ceil mode does (the last one starting inside the input
  /// or its begin padding, as the inference rule has it). MaxPool takes no value from a pad and
  /// AveragePool without count_include_pad counts none, so the values are the same (with it,
  /// only where no pad is added). Needs explicit pads (auto_pad NOTSET) and the spatial sizes as numbers.
  bool ceil_as_pads(Node& n) {
    const Attribute* mode = value_attr(n, "ceil_mode");
    if (!mode) return false;
    if (mode->as_int() == 0) {
      drop(n, "ceil_mode");
      return true;
    }
    const std::string no = n.op_type + ": ceil mode (attribute 'ceil_mode') has no equivalent at opset " +
                           std::to_string(to_) + " ";
    if (n.attribute_or("auto_pad", std::string_view("NOTSET")) != "NOTSET") throw Error(no + "with auto_pad");
    const Attribute* ks = value_attr(n, "kernel_shape");
    if (!ks || ks->kind() != AttributeType::INTS || ks->as_ints().empty()) throw Error(no + "without kernel_shape");
    const auto& kernel = ks->as_ints();
    const std::size_t k = kernel.size();
    std::vector<std::int64_t> strides(k, 1), pads(2 * k, 0);
    if (const Attribute* a = value_attr(n, "strides")) strides = a->as_ints();
    if (const Attribute* a = value_attr(n, "pads")) pads = a->as_ints();
    if (strides.size() != k || pads.size() != 2 * k) throw Error(no + "with strides or pads not matching kernel_shape");
    const Type* t = n.has_input(0) ? type_of(n.inputs[0]) : nullptr;
    const Shape* s = t ? t->shape() : nullptr;
    if (!s || s->rank() != k + 2) throw Error(no + "unless the input's spatial sizes are known numbers");
    constexpr std::int64_t kLimit = std::int64_t{1} << 40;  // sizes past this are no real input
    for (std::size_t i = 0; i < k; ++i) {
      const auto in = (*s)[i + 2].value_if();
      const std::int64_t kk = kernel[i], st = strides[i], pb = pads[i], pe = pads[i + k];
      if (!in) throw Error(no + "unless the input's spatial sizes are known numbers");
      if (*in < 0 || *in > kLimit || kk < 1 || kk > kLimit || st < 1 || st > kLimit || pb < 0 || pb > kLimit || pe < 0 ||
          pe > kLimit)
        throw Error(no + "with the sizes, kernel, strides or pads of axis " + std::to_string(i) + " out of range");
      const std::int64_t span = *in + pb + pe - kk;
      if (span < 0) throw Error(n.op_type + ": the kernel of axis " + std::to_string(i) + " is larger than the padded input");
      std::int64_t out = (span + st - 1) / st + 1;
      if ((out - 1) * st >= *in + pb) --out;  // a last window starting in the end padding is dropped
      const std::int64_t extra = (out - 1) * st + kk - (*in + pb + pe);
      if (extra <= 0) continue;
      if (n.op_type == "AveragePool" && n.attribute_or("count_include_pad", std::int64_t{0}) != 0)
        throw Error(no + "with count_include_pad on axis " + std::to_string(i) + ", which would count the end padding it needs");
      // (The last window starts inside the input or its begin padding, so pe + extra < kk: a pad
      // smaller than the kernel, as runtimes require.)
      pads[i + k] = pe + extra;
    }
    drop(n, "ceil_mode");
    n.set_attribute(Attribute("pads", pads));
    return true;
  }

  /// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss before opset 12, as their definitions
  /// spell them, from opset 9 (which has Where and OneHot). SoftmaxCrossEntropyLoss first takes
  /// LogSoftmax along the class axis 1 (swapped with the last axis by Transposes when the rank is
  /// over 2, since LogSoftmax flattens the axes after its own before opset 13). Each sample's
  /// log-probability of its class is picked by GatherElements (opset 11) or, before, by a OneHot
  /// mask, a Where and a ReduceSum over the classes; a target equal to ignore_index is read as
  /// class 0 there (no index out of range) and its loss set to 0 after. The loss is the picked
  /// value times the class weight (a Gather of the weights), negated, then reduced: the sum, or
  /// for "mean" the sum over the sum of the weights that applied (without weights, the count of
  /// the samples not ignored; a plain mean without ignore_index either).
  bool loss(Node& n, DataType t, std::vector<Node>& out) {
    const std::string op = n.op_type;
    const bool sce = op == "SoftmaxCrossEntropyLoss";
    if (to_ < 9)
      throw Error("'" + op + "' does not exist at opset " + std::to_string(to_) +
                  " and its definition needs Where and OneHot, which came with opset 9");
    if (!is_float(t)) throw Error(op + ": its input is of type " + std::string(data_type_name(t)) + ", not a float type");
    if (!n.has_input(1)) throw Error(op + " without its target");
    const std::string reduction = n.attribute_or("reduction", std::string_view("mean"));
    if (reduction != "none" && reduction != "sum" && reduction != "mean")
      throw Error(op + ": unknown reduction '" + reduction + "'");
    const DataType ti = elem_type(n, 1, op + " spelled in older operators needs it for ignore_index");
    if (ti != DataType::INT32 && ti != DataType::INT64)
      throw Error(op + ": its target is of type " + std::string(data_type_name(ti)) + ", not int32 or int64");
    const std::string target = n.inputs[1];
    const std::string weight = n.has_input(2) ? n.inputs[2] : std::string();
    auto node = [&](std::string type, std::vector<std::string> in, const std::string& what) -> Node& {
      return add(n, std::move(type), std::move(in), what, out);
    };
    auto with_ints = [&](std::string type, std::vector<std::string> in, const std::string& what, const char* attr,
                         std::vector<std::int64_t> v) {
      Node& m = node(std::move(type), std::move(in), what);
      m.set_attribute(Attribute(attr, std::move(v)));
      return m.outputs[0];
    };
    auto reduce = [&](const char* type, const std::string& v, const std::string& what) {
      Node& m = node(type, {v}, what);
      m.set_attribute(Attribute("keepdims", std::int64_t{0}));
      return m.outputs[0];
    };
    std::string x = n.inputs[0];
    if (sce) {
      const std::size_t rank = rank_of(n, 0, op + " spelled in older operators moves the class axis last");
      if (rank < 2) throw Error(op + ": its scores have rank " + std::to_string(rank) + ", under 2");
      std::vector<std::int64_t> perm(rank);
      for (std::size_t i = 0; i < rank; ++i) perm[i] = static_cast<std::int64_t>(i);
      std::swap(perm[1], perm[rank - 1]);
      if (rank > 2) x = with_ints("Transpose", {x}, "classes_last", "perm", perm);
      Node& ls = node("LogSoftmax", {x}, "log_prob");
      ls.set_attribute(Attribute("axis", static_cast<std::int64_t>(rank - 1)));
      x = ls.outputs[0];
      if (rank > 2) x = with_ints("Transpose", {x}, "log_prob_back", "perm", perm);
      if (n.has_output(1)) x = out.back().outputs[0] = n.outputs[1];
    }
    // The target with ignored samples read as class 0, and which samples count.
    std::string safe = target, keep;
    if (const Attribute* ii = value_attr(n, "ignore_index")) {
      const std::int64_t v = ii->as_int();
      if (ti == DataType::INT32 && (v < std::numeric_limits<std::int32_t>::min() || v > std::numeric_limits<std::int32_t>::max()))
        throw Error(op + ": ignore_index " + std::to_string(v) + " is outside the range of its int32 target");
      const std::string iv =
          ti == DataType::INT64 ? constant(Tensor::from_values<std::int64_t>("", {}, {v}), base(n, "ignore_index"), out)
                                : constant(Tensor::from_values<std::int32_t>("", {}, {static_cast<std::int32_t>(v)}),
                                           base(n, "ignore_index"), out);
      const std::string ignored = node("Equal", {target, iv}, "ignored").outputs[0];
      keep = node("Not", {ignored}, "counted").outputs[0];
      safe = node("Where", {ignored, zero_scalar(ti, base(n, "class_zero"), out), target}, "safe_target").outputs[0];
    }
    std::string picked;
    if (to_ >= 11) {
      const std::string column = unsqueeze(safe, {1}, base(n, "target_column"), out);
      Node& g = node("GatherElements", {x, column}, "picked_column");
      g.set_attribute(Attribute("axis", std::int64_t{1}));
      picked = with_ints("Squeeze", {g.outputs[0]}, "picked", "axes", {1});
    } else {
      const std::string shape = node("Shape", {x}, "shape").outputs[0];
      const std::string classes = node("Gather", {shape, ints({1}, true, base(n, "class_axis"), out)}, "classes").outputs[0];
      const std::string index = ti == DataType::INT64 ? safe : cast(n, safe, DataType::INT64, "target_int64", out);
      const std::string off_on = constant(Tensor::from_values<float>("", {2}, {0.f, 1.f}), base(n, "off_on"), out);
      Node& oh = node("OneHot", {index, classes, off_on}, "one_hot");
      oh.set_attribute(Attribute("axis", std::int64_t{1}));
      const std::string mask = cast(n, oh.outputs[0], DataType::BOOL, "is_class", out);
      const std::string only = node("Where", {mask, x, zero_scalar(t, base(n, "zero"), out)}, "class_only").outputs[0];
      picked = with_ints("ReduceSum", {only}, "picked", "axes", {1});
      out.back().set_attribute(Attribute("keepdims", std::int64_t{0}));
    }
    std::string applied;  // each sample's weight, 0 where ignored (empty: all 1)
    if (!weight.empty()) {
      applied = node("Gather", {weight, safe}, "sample_weight").outputs[0];
      if (!keep.empty())
        applied = node("Where", {keep, applied, zero_scalar(t, base(n, "zero_weight"), out)}, "applied_weight").outputs[0];
      picked = node("Mul", {picked, applied}, "weighted").outputs[0];
    } else if (!keep.empty() && reduction == "mean") {
      applied = cast(n, keep, t, "counted_as_float", out);
    }
    if (keep.empty() && reduction == "none") return become(n, "Neg", {picked});
    std::string loss = node("Neg", {picked}, "loss").outputs[0];
    if (!keep.empty()) {
      std::vector<std::string> in{keep, loss, zero_scalar(t, base(n, "zero_loss"), out)};
      if (reduction == "none") return become(n, "Where", std::move(in));
      loss = node("Where", std::move(in), "kept_loss").outputs[0];
    }
    if (reduction == "mean" && applied.empty()) {
      become(n, "ReduceMean", {loss});
    } else if (reduction == "sum") {
      become(n, "ReduceSum", {loss});
    } else {
      const std::string total = reduce("ReduceSum", loss, "total");
      const std::string weights = reduce("ReduceSum", applied, "total_weight");
      return become(n, "Div", {total, weights});
    }
    n.set_attribute(Attribute("keepdims", std::int64_t{0}));
    return true;
  }

  /// Mod of integers before opset 10, from 9 (Where, integer comparisons): r = a - Div(a, b) * b,
  /// then moved by b where r is not 0 and its sign is not the one the mode gives (the divisor's;
  /// the dividend's with fmod = 1), which holds whether the runtime's integer Div truncates or
  /// floors. Integers of 8 and 16 bits go through int32, uint32 through int64 (Div-7's kernels).
  /// Floats (fmod = 1, C's fmod, exact) are refused: a - trunc(a / b) * b rounds.
  /// BitShift (11) before 11: x * 2^y to the left, x / 2^y to the right (unsigned division
  /// truncates), 2^y being Pow(2.0, Cast(y, double)) cast to the integer type, exact for every
  /// shift below the bit width. 8-, 16- and 32-bit operands go through int64, where the product
  /// of a 32-bit x and 2^31 still fits, and are cast back (the narrowing Cast keeps the low bits,
  /// as the shift drops the high ones); uint64 stays itself.
  bool bit_shift(Node& n, DataType t, std::vector<Node>& out) {
    if (t != DataType::UINT8 && t != DataType::UINT16 && t != DataType::UINT32 && t != DataType::UINT64)
      throw Error("BitShift of " + std::string(data_type_name(t)) + " (it shifts unsigned integers only)");
    if (!n.has_input(1)) throw Error("BitShift without its second input");
    const Attribute* d = value_attr(n, "direction");
    const std::string direction = d && d->kind() == AttributeType::STRING ? std::string(d->as_string()) : std::string();
    if (direction != "LEFT" && direction != "RIGHT")
      throw Error("BitShift: its direction '" + direction + "' is neither LEFT nor RIGHT");
    const DataType w = t == DataType::UINT64 ? t : DataType::INT64;
    const std::string shift = cast(n, n.inputs[1], DataType::DOUBLE, "shift_double", out);
    const std::string two = float_scalar(2.0, DataType::DOUBLE, base(n, "two"), out);
    const std::string power = cast(n, add(n, "Pow", {two, shift}, "power", out).outputs[0], w, "power_integer", out);
    std::string x = n.inputs[0];
    if (w != t) {
      x = cast(n, x, w, "wide", out);
      cast_output_back(n, t, "wide_result");
    }
    return become(n, direction == "LEFT" ? "Mul" : "Div", {x, power});
  }

  /// Round (11) before 11: Floor(x), or Ceil(x) where the fraction x - Floor(x) (exact in binary
  /// floating point) is above 1/2, or exactly 1/2 and the floor is odd (ties to even). Floor and
  /// Ceil keep the sign of a zero result (Round(-0.3) is -0) and pass infinities and NaN through;
  /// the choice is a Where (9): an arithmetic blend before 9 would turn infinities into NaN.
  bool round_half_even(Node& n, DataType t, std::vector<Node>& out) {
    if (t != DataType::FLOAT && t != DataType::DOUBLE && t != DataType::FLOAT16)
      throw Error("Round of " + std::string(data_type_name(t)) + " has no spelling before opset 11");
    if (to_ < 9)
      throw Error("'Round' does not exist at opset " + std::to_string(to_) +
                  " and its spelling needs Where, which came with opset 9");
    const std::string x = n.inputs[0];
    auto node = [&](std::string type, std::vector<std::string> in, const std::string& what) {
      return add(n, std::move(type), std::move(in), what, out).outputs[0];
    };
    const std::string half = float_scalar(0.5, t, base(n, "half"), out);
    const std::string down = node("Floor", {x}, "floor");
    const std::string up = node("Ceil", {x}, "ceil");
    const std::string fraction = node("Sub", {x, down}, "fraction");
    const std::string above = node("Greater", {fraction, half}, "above_half");
    const std::string below = node("Less", {fraction, half}, "below_half");
    // Equal takes floats from 11 on: a fraction neither above nor below 1/2 is 1/2 (or NaN,
    // from an infinite x, whose floor is then infinite and not odd).
    const std::string off = node("Or", {above, below}, "off_half");
    const std::string tie = node("Not", {off}, "at_half");
    // The floor is odd when it minus twice the floor of its half is 1.
    const std::string halved = node("Floor", {node("Mul", {down, half}, "halved")}, "halved_floor");
    const std::string parity = node("Sub", {down, node("Add", {halved, halved}, "even_part")}, "parity");
    const std::string odd = node("Greater", {parity, half}, "odd");
    const std::string tie_up = node("And", {tie, odd}, "tie_to_even");
    return become(n, "Where", {node("Or", {above, tie_up}, "round_up"), up, down});
  }

  bool integer_mod(Node& n, DataType t, std::vector<Node>& out) {
    if (!is_integer(t) || data_type_info(t).bit_width < 8)
      throw Error("Mod of " + std::string(data_type_name(t)) + " has no spelling before opset 10 (a float remainder is "
                  "exact, one spelled with Div, Mul and Sub rounds)");
    if (to_ < 9)
      throw Error("'Mod' does not exist at opset " + std::to_string(to_) +
                  " and its spelling needs Where and integer comparisons, which came with opset 9");
    if (!n.has_input(1)) throw Error("Mod without its second input");
    const bool fmod = n.attribute_or("fmod", std::int64_t{0}) != 0;
    const int bits = data_type_info(t).bit_width;
    const DataType w = bits <= 16 ? DataType::INT32 : t == DataType::UINT32 ? DataType::INT64 : t;
    std::string a = n.inputs[0], b = n.inputs[1];
    if (w != t) {
      a = cast(n, a, w, "dividend_wide", out);
      b = cast(n, b, w, "divisor_wide", out);
      cast_output_back(n, t, "wide");
    }
    const std::string q = add(n, "Div", {a, b}, "quotient", out).outputs[0];
    const std::string p = add(n, "Mul", {q, b}, "product", out).outputs[0];
    if (!is_signed(t)) return become(n, "Sub", {a, p});
    const std::string r = add(n, "Sub", {a, p}, "remainder", out).outputs[0];
    const std::string zero = zero_scalar(w, base(n, "zero"), out);
    const std::string is_zero = add(n, "Equal", {r, zero}, "is_zero", out).outputs[0];
    const std::string nonzero = add(n, "Not", {is_zero}, "nonzero", out).outputs[0];
    const std::string r_negative = add(n, "Less", {r, zero}, "remainder_negative", out).outputs[0];
    const std::string want_negative = add(n, "Less", {fmod ? a : b, zero}, "sign_negative", out).outputs[0];
    const std::string differ = add(n, "Xor", {r_negative, want_negative}, "sign_differs", out).outputs[0];
    const std::string wrong = add(n, "And", {nonzero, differ}, "wrong_sign", out).outputs[0];
    const std::string moved = add(n, fmod ? "Sub" : "Add", {r, b}, "moved", out).outputs[0];
    return become(n, "Where", {wrong, moved, r});
  }

  /// GatherElements before opset 11, from 9 (OneHot, Where): the indices (negative ones counted
  /// from the back first) as a OneHot mask over the axis' size, inserted after the axis, pick
  /// from data unsqueezed at the axis (Where, 0 elsewhere), and a ReduceSum over the inserted
  /// axis keeps the picked element: exact, but -0.0 comes out +0.0. The mask holds |indices| x
  /// size elements. The shapes must be known, the indices' sizes off the axis equal to data's;
  /// 8- and 16-bit integers and bool go through int32 (ReduceSum's types), cast back.
  bool gather_elements(Node& n, DataType t, std::vector<Node>& out) {
    if (to_ < 9)
      throw Error("'GatherElements' does not exist at opset " + std::to_string(to_) +
                  " and its spelling needs OneHot and Where, which came with opset 9");
    if (!n.has_input(1)) throw Error("GatherElements without its indices");
    const Type* dt = type_of(n.inputs[0]);
    const Type* it = type_of(n.inputs[1]);
    const Shape* ds = dt ? dt->shape() : nullptr;
    const Shape* is = it ? it->shape() : nullptr;
    if (!ds || !is) throw Error("GatherElements spelled before opset 11 needs the shapes of its data and indices");
    const auto r = static_cast<std::int64_t>(ds->rank());
    if (static_cast<std::int64_t>(is->rank()) != r)
      throw Error("GatherElements: data of rank " + std::to_string(r) + ", indices of rank " + std::to_string(is->rank()));
    std::int64_t axis = n.attribute_or("axis", std::int64_t{0});
    if (axis < -r || axis >= r) throw Error("GatherElements: axis " + std::to_string(axis) + " is outside the rank " + std::to_string(r));
    if (axis < 0) axis += r;
    for (std::int64_t i = 0; i < r; ++i) {
      const auto& a = ds->dims[static_cast<std::size_t>(i)].value;
      const auto& b = is->dims[static_cast<std::size_t>(i)].value;
      if (i != axis && (std::holds_alternative<std::monostate>(a) || a != b))
        throw Error("GatherElements before opset 11 picks by a mask over data, which needs the indices' size on axis " +
                    std::to_string(i) + " known to be data's");
    }
    const DataType ti = elem_type(n, 1, "GatherElements spelled before opset 11 needs it");
    if (ti != DataType::INT32 && ti != DataType::INT64)
      throw Error("GatherElements: its indices are of type " + std::string(data_type_name(ti)) + ", not int32 or int64");
    DataType w = t;
    switch (t) {
      case DataType::FLOAT: case DataType::DOUBLE: case DataType::FLOAT16: case DataType::INT32: case DataType::INT64:
      case DataType::UINT32: case DataType::UINT64: break;
      case DataType::INT8: case DataType::INT16: case DataType::UINT8: case DataType::UINT16: case DataType::BOOL:
        w = DataType::INT32;
        break;
      default: throw Error("GatherElements of " + std::string(data_type_name(t)) + " has no spelling before opset 11");
    }
    std::string data = n.inputs[0];
    const std::string idx = n.inputs[1];
    if (w != t) {
      data = cast(n, data, w, "data_wide", out);
      cast_output_back(n, t, "wide");
    }
    const std::string shape = add(n, "Shape", {data}, "shape", out).outputs[0];
    const std::string size = add(n, "Gather", {shape, ints({axis}, true, base(n, "axis"), out)}, "axis_size", out).outputs[0];
    const std::string size_i = ti == DataType::INT64 ? size : cast(n, size, ti, "axis_size_cast", out);
    const std::string negative = add(n, "Less", {idx, zero_scalar(ti, base(n, "zero_index"), out)}, "negative", out).outputs[0];
    const std::string wrapped = add(n, "Add", {idx, size_i}, "wrapped", out).outputs[0];
    std::string index = add(n, "Where", {negative, wrapped, idx}, "index", out).outputs[0];
    if (ti != DataType::INT64) index = cast(n, index, DataType::INT64, "index_int64", out);
    const std::string off_on = constant(Tensor::from_values<float>("", {2}, {0.f, 1.f}), base(n, "off_on"), out);
    Node& oh = add(n, "OneHot", {index, size, off_on}, "one_hot", out);
    oh.set_attribute(Attribute("axis", axis + 1));
    const std::string mask = cast(n, oh.outputs[0], DataType::BOOL, "is_picked", out);
    const std::string du = unsqueeze(data, {axis}, base(n, "data_unsqueezed"), out);
    const std::string picked = add(n, "Where", {mask, du, zero_scalar(w, base(n, "zero"), out)}, "picked", out).outputs[0];
    become(n, "ReduceSum", {picked});
    n.set_attribute(Attribute("axes", std::vector<std::int64_t>{axis + 1}));
    n.set_attribute(Attribute("keepdims", std::int64_t{0}));
    return true;
  }

  /// Range before opset 11, as ONNX defines it: a Loop carrying start, adding delta each time and
  /// stacking the value before the addition, for ceil((limit - start) / delta) iterations (the
  /// difference in the type, the quotient in double; a negative trip count runs none, which is
  /// the definition's max(..., 0)). float, double, int32 and int64 (the types Add-7 has).
  bool range_loop(Node& n, DataType t, std::vector<Node>& out) {
    if (t != DataType::FLOAT && t != DataType::DOUBLE && t != DataType::INT32 && t != DataType::INT64)
      throw Error("Range of " + std::string(data_type_name(t)) + " has no spelling before opset 11 (Add takes "
                  "float, double, int32 and int64 there)");
    if (!n.has_input(1) || !n.has_input(2)) throw Error("Range without its limit or delta");
    const std::string start = n.inputs[0], limit = n.inputs[1], delta = n.inputs[2];
    auto in_double = [&](const std::string& v, const char* what) {
      return t == DataType::DOUBLE ? v : cast(n, v, DataType::DOUBLE, what, out);
    };
    const std::string span = add(n, "Sub", {limit, start}, "span", out).outputs[0];
    const std::string steps =
        add(n, "Div", {in_double(span, "span_double"), in_double(delta, "delta_double")}, "steps", out).outputs[0];
    const std::string count = cast(n, add(n, "Ceil", {steps}, "steps_up", out).outputs[0], DataType::INT64, "count", out);

    if (!n.has_output(0)) throw Error("Range without its output");
    const std::string name = n.name;
    n = counting_loop(n, count, start, delta, t, n.outputs[0]);
    n.name = name;
    return true;
  }
  /// CumSum before opset 11, from 9: a Scan-9 along the axis (a constant; the rank known)
  /// carrying the running sum, which starts as zeros of a slice's shape (ConstantOfShape of the
  /// shape without the axis) and adds each slice in turn, in reverse with `reverse`; the output
  /// is the sum after the slice, or before it with `exclusive`. It adds in the order the
  /// operator's definition does.
  bool cumsum_scan(Node& n, DataType t, std::vector<Node>& out) {
    if (to_ < 9)
      throw Error("'CumSum' does not exist at opset " + std::to_string(to_) +
                  " and its spelling needs Scan-9 and ConstantOfShape, which came with opset 9");
    const auto axis_value = constant_ints(n, 1);
    if (!axis_value || axis_value->size() != 1)
      throw Error("CumSum: its axis '" + (n.has_input(1) ? n.inputs[1] : std::string()) +
                  "' is not a constant, and the Scan that spells it before opset 11 takes it as an attribute");
    const auto r = static_cast<std::int64_t>(rank_of(n, 0, "CumSum spelled as a Scan before opset 11 needs it"));
    if (r < 1) throw Error("CumSum of a scalar");
    std::int64_t axis = (*axis_value)[0];
    if (axis < -r || axis >= r) throw Error("CumSum: axis " + std::to_string(axis) + " is outside the rank " + std::to_string(r));
    if (axis < 0) axis += r;
    const bool exclusive = n.attribute_or("exclusive", std::int64_t{0}) != 0;
    const bool reverse = n.attribute_or("reverse", std::int64_t{0}) != 0;
    const std::string x = n.inputs[0];
    std::vector<std::int64_t> others;
    for (std::int64_t i = 0; i < r; ++i)
      if (i != axis) others.push_back(i);
    const std::string shape = add(n, "Shape", {x}, "shape", out).outputs[0];
    const std::string slice_shape = add(n, "Gather", {shape, ints(others, false, base(n, "other_axes"), out)}, "slice_shape", out).outputs[0];
    // The types Add-7 has, all of which ConstantOfShape-9 has too.
    if (t != DataType::FLOAT && t != DataType::DOUBLE && t != DataType::FLOAT16 && t != DataType::INT32 &&
        t != DataType::INT64 && t != DataType::UINT32 && t != DataType::UINT64)
      throw Error("CumSum of " + std::string(data_type_name(t)) + " has no spelling before opset 11 (ConstantOfShape "
                  "and Add take other types there)");
    Tensor zero = *zero_tensor(t, {1});
    Node& zeros_node = add(n, "ConstantOfShape", {slice_shape}, "zeros", out);
    zeros_node.set_attribute(Attribute("value", std::move(zero)));
    const std::string zeros = zeros_node.outputs[0];

    Graph body;
    body.name = fresh(base(n, "cumsum_scan"));
    const Type slice_type = Type::tensor(t, Shape(std::vector<Dim>(static_cast<std::size_t>(r - 1))));
    const std::string sum = fresh(base(n, "sum")), slice = fresh(base(n, "slice"));
    const std::string next = fresh(base(n, "next")), value = fresh(base(n, "value"));
    body.inputs.emplace_back(sum, slice_type);
    body.inputs.emplace_back(slice, slice_type);
    body.nodes.push_back(Node("Add", {sum, slice}, {next}));
    body.nodes.push_back(Node("Identity", {exclusive ? sum : next}, {value}));
    body.outputs.emplace_back(next, slice_type);
    body.outputs.emplace_back(value, slice_type);
    report.nodes_added += 2;
    if (!n.has_output(0)) throw Error("CumSum without its output");
    Node scan("Scan", {zeros, x}, {fresh(base(n, "total")), n.outputs[0]});
    scan.name = n.name;
    scan.domain = n.domain;
    scan.set_attribute(Attribute("body", std::move(body)));
    scan.set_attribute(Attribute("num_scan_inputs", std::int64_t{1}));
    scan.set_attribute(Attribute("scan_input_axes", std::vector<std::int64_t>{axis}));
    scan.set_attribute(Attribute("scan_output_axes", std::vector<std::int64_t>{axis}));
    if (reverse) {
      scan.set_attribute(Attribute("scan_input_directions", std::vector<std::int64_t>{1}));
      scan.set_attribute(Attribute("scan_output_directions", std::vector<std::int64_t>{1}));
    }
    n = std::move(scan);
    return true;
  }
  /// HannWindow, HammingWindow and BlackmanWindow before opset 17, as defined, in float:
  /// w[k] = a0 - a1 cos(2 pi k / N) + a2 cos(4 pi k / N) for k = 0 .. size - 1 (Range; before
  /// opset 11 its Loop), N = size, or size - 1 when not periodic, cast to output_datatype.
  bool window(Node& n, std::vector<Node>& out) {
    const std::string op = n.op_type;
    const double a0 = op == "HannWindow" ? 0.5 : op == "HammingWindow" ? 25.0 / 46.0 : 0.42;
    const double a1 = op == "HannWindow" ? 0.5 : op == "HammingWindow" ? 21.0 / 46.0 : 0.5;
    const double a2 = op == "BlackmanWindow" ? 0.08 : 0.0;
    const bool periodic = n.attribute_or("periodic", std::int64_t{1}) != 0;
    const auto to = static_cast<DataType>(n.attribute_or("output_datatype", std::int64_t{1}));
    if (!is_float(to) && !(is_integer(to) && data_type_info(to).bit_width >= 8))
      throw Error(op + ": output_datatype " + std::to_string(static_cast<int>(to)) + " is not a numeric type it makes");
    const DataType f = DataType::FLOAT;
    const std::string size = cast(n, n.inputs[0], f, "size_float", out);
    const std::string zero = float_scalar(0.0, f, base(n, "zero"), out), one = float_scalar(1.0, f, base(n, "one"), out);
    const std::string k = fresh(base(n, "k"));
    out.push_back(to_ >= 11 ? Node("Range", {zero, size, one}, {k})
                            : counting_loop(n, cast(n, n.inputs[0], DataType::INT64, "size_int64", out), zero, one, f, k));
    ++report.nodes_added;
    const std::string span = periodic ? size : add(n, "Sub", {size, one}, "span", out).outputs[0];
    const std::string step = add(n, "Div", {float_scalar(2 * 3.14159265358979323846, f, base(n, "two_pi"), out), span},
                                 "angle_step", out).outputs[0];
    const std::string angle = add(n, "Mul", {k, step}, "angle", out).outputs[0];
    auto term = [&](const std::string& a, double c, const char* what) {
      const std::string cosine = add(n, "Cos", {a}, std::string(what) + "_cos", out).outputs[0];
      return add(n, "Mul", {cosine, float_scalar(c, f, base(n, std::string(what) + "_coefficient"), out)}, what, out).outputs[0];
    };
    std::string w = add(n, "Sub", {float_scalar(a0, f, base(n, "a0"), out), term(angle, a1, "first")}, "window", out).outputs[0];
    if (a2 != 0) {
      const std::string twice = add(n, "Add", {angle, angle}, "twice_angle", out).outputs[0];
      w = add(n, "Add", {w, term(twice, a2, "second")}, "window_blackman", out).outputs[0];
    }
    become(n, "Cast", {w});
    n.set_attribute(Attribute("to", static_cast<std::int64_t>(to)));
    return true;
  }
  /// A Loop of `count` (an int64 scalar) iterations writing [start, start + delta, ...] (scalars
  /// of type `t`) to `y`: Range's definition, carrying the value and adding delta in the body.
  Node counting_loop(const Node& anchor, const std::string& count, const std::string& start, const std::string& delta,
                     DataType t, const std::string& y) {
    Graph body;
    body.name = fresh(base(anchor, "range_loop"));
    const std::string iter = fresh(base(anchor, "i")), cond = fresh(base(anchor, "cond")), prev = fresh(base(anchor, "prev"));
    const std::string cond_out = fresh(base(anchor, "cond_out")), next = fresh(base(anchor, "next"));
    const std::string value = fresh(base(anchor, "value"));
    body.inputs.emplace_back(iter, Type::tensor(DataType::INT64, Shape{}));
    body.inputs.emplace_back(cond, Type::tensor(DataType::BOOL, Shape{}));
    body.inputs.emplace_back(prev, Type::tensor(t, Shape{}));
    body.nodes.push_back(Node("Identity", {cond}, {cond_out}));
    body.nodes.push_back(Node("Add", {prev, delta}, {next}));
    body.nodes.push_back(Node("Identity", {prev}, {value}));
    body.outputs.emplace_back(cond_out, Type::tensor(DataType::BOOL, Shape{}));
    body.outputs.emplace_back(next, Type::tensor(t, Shape{}));
    body.outputs.emplace_back(value, Type::tensor(t, Shape{}));
    report.nodes_added += 3;
    Node loop("Loop", {count, "", start}, {fresh(base(anchor, "past_limit")), y});
    loop.domain = anchor.domain;
    loop.set_attribute(Attribute("body", std::move(body)));
    return loop;
  }

  /// Input 0 of `n` (of rank `rank`) with axis `a` swapped with the last one by a Transpose
  /// before the node, and its output 0 swapped back by the same Transpose after it.
  void swap_with_last(Node& n, std::size_t rank, std::size_t a, std::vector<Node>& out) {
    if (!n.has_output(0)) throw Error(n.op_type + " without an output");
    std::vector<std::int64_t> perm(rank);
    for (std::size_t i = 0; i < rank; ++i) perm[i] = static_cast<std::int64_t>(i);
    std::swap(perm[a], perm[rank - 1]);
    const std::string x = fresh(base(n, "swapped"));
    Node before("Transpose", {n.inputs[0]}, {x});
    before.set_attribute(Attribute("perm", perm));
    out.push_back(std::move(before));
    const std::string y = fresh(base(n, "swapped_out"));
    Node after("Transpose", {y}, {n.outputs[0]});
    after.set_attribute(Attribute("perm", perm));
    pending_after_.push_back(std::move(after));
    n.inputs[0] = x;
    n.outputs[0] = y;
    report.nodes_added += 2;
  }

  /// Max and Min of integers before opset 12, which take floats only: the integers of up to 16
  /// bits as floats, of 32 as doubles (both exact), cast back after; those of 64 bits as a chain of Where(Greater or
  /// Less) from opset 9, which compares them exactly.
  bool integer_extremum(Node& n, std::vector<Node>& out) {
    if (n.inputs.empty() || !n.has_output(0)) return false;
    const Type* xt = type_of(n.inputs[0]);
    const DataType t = xt ? xt->elem_type() : DataType::UNDEFINED;
    if (!is_integer(t) || data_type_info(t).bit_width < 8) return false;  // int4, int2: for no Max or Min
    for (const auto& i : n.inputs)
      if (i.empty()) throw Error(n.op_type + " with an omitted input");
    const bool max = n.op_type == "Max";
    if (t == DataType::INT64 || t == DataType::UINT64) {
      if (to_ < 9)
        throw Error(n.op_type + " of " + std::string(data_type_name(t)) + " before opset 12 compares by Where, which opset " +
                    std::to_string(to_) + " does not have (it came with opset 9)");
      if (n.inputs.size() == 1) {
        n.op_type = "Identity";
        return true;
      }
      std::string running = n.inputs[0];
      for (std::size_t i = 1; i < n.inputs.size(); ++i) {
        const std::string pick = add(n, max ? "Greater" : "Less", {running, n.inputs[i]}, "pick", out).outputs[0];
        if (i + 1 == n.inputs.size()) {
          n.op_type = "Where";
          n.inputs = {pick, running, n.inputs[i]};
          n.outputs.resize(1);
          return true;
        }
        running = add(n, "Where", {pick, running, n.inputs[i]}, "running", out).outputs[0];
      }
    }
    const DataType f = exact_float(t);
    for (auto& i : n.inputs) i = cast(n, i, f, "as_float", out);
    cast_output_back(n, t, "in_float");
    return true;
  }
  /// Clip of integers before opset 12, which takes floats only: through float (up to 16 bits) or
  /// double (32), cast back after; constant bounds become constants of that type (so that a later
  /// step can make them Clip-6's float attributes), others are cast. 64-bit integers, which
  /// neither holds, are refused.
  bool integer_clip(Node& n, std::vector<Node>& out) {
    if (!n.has_input(0) || !n.has_output(0)) return false;
    const Type* xt = type_of(n.inputs[0]);
    const DataType t = xt ? xt->elem_type() : DataType::UNDEFINED;
    if (!is_integer(t) || data_type_info(t).bit_width < 8) return false;
    if (data_type_info(t).bit_width > 32)
      throw Error("Clip of " + std::string(data_type_name(t)) + " has no equivalent before opset 12 (Clip takes floats "
                  "then, and neither float nor double holds every 64-bit integer)");
    const DataType f = exact_float(t);
    for (std::size_t i : {std::size_t{1}, std::size_t{2}}) {
      if (!n.has_input(i)) continue;
      const Tensor* c = constant_of(n.inputs[i]);
      const auto d = c && c->data_type == t && c->element_count() == std::uint64_t{1} ? as_double(*c) : std::nullopt;
      if (!d) {
        n.inputs[i] = cast(n, n.inputs[i], f, i == 1 ? "min_float" : "max_float", out);
        continue;
      }
      const double v = d->values<double>()[0];
      if (to_ < 11 && static_cast<double>(static_cast<float>(v)) != v)
        throw Error("Clip: the bound " + std::to_string(static_cast<std::int64_t>(v)) + " of '" + n.inputs[i] +
                    "' is not exact as the float attribute it is at opset " + std::to_string(to_));
      n.inputs[i] = float_scalar(v, f, base(n, i == 1 ? "min" : "max"), out);
    }
    n.inputs[0] = cast(n, n.inputs[0], f, "as_float", out);
    cast_output_back(n, t, "in_float");
    return true;
  }
  /// The float type that holds every value of integer type `t` (of at most 32 bits) exactly:
  /// float up to 16 bits (which has kernels in more runtimes), double above.
  static DataType exact_float(DataType t) {
    return data_type_info(t).bit_width <= 16 ? DataType::FLOAT : DataType::DOUBLE;
  }
  /// Output 0 of `n` renamed to a fresh name (after `what`), and a Cast of it to `to` after the
  /// node writing the old name.
  void cast_output_back(Node& n, DataType to, const std::string& what) {
    const std::string y = fresh(base(n, what));
    Node back("Cast", {y}, {n.outputs[0]});
    back.set_attribute(Attribute("to", static_cast<std::int64_t>(to)));
    pending_after_.push_back(std::move(back));
    ++report.nodes_added;
    n.outputs[0] = y;
  }

  /// ArgMax/ArgMin with select_last_index = 1 before opset 12: the first index of the input
  /// reversed along the axis (a Slice with step -1; before opset 10, which has no steps, a Gather
  /// of the indices d - 1 ... 0), counted back from the axis' size (a number the types must
  /// give): d - 1 - index.
  bool last_index(Node& n, std::vector<Node>& out) {
    if (!n.has_input(0) || !n.has_output(0)) throw Error(n.op_type + " without input or output");
    const Type* t = type_of(n.inputs[0]);
    const Shape* s = t ? t->shape() : nullptr;
    if (!s) throw Error(n.op_type + ": selecting the last index needs the shape of '" + n.inputs[0] + "', which is not known");
    const auto rank = static_cast<std::int64_t>(s->rank());
    std::int64_t axis = n.attribute_or("axis", std::int64_t{0});
    if (axis < -rank || axis >= rank) throw Error(n.op_type + ": axis " + std::to_string(axis) + " is outside the rank " + std::to_string(rank));
    if (axis < 0) axis += rank;
    const auto d = (*s)[static_cast<std::size_t>(axis)].value_if();
    if (!d || *d < 1)
      throw Error(n.op_type + ": selecting the last index needs the size of axis " + std::to_string(axis) + " of '" +
                  n.inputs[0] + "' as a number, which is not known");
    const std::string reversed = fresh(base(n, "reversed"));
    if (to_ >= 10) {
      out.push_back(Node("Slice",
                         {n.inputs[0], ints({*d - 1}, false, base(n, "rev_start"), out),
                          ints({-(*d) - 1}, false, base(n, "rev_end"), out), ints({axis}, false, base(n, "rev_axis"), out),
                          ints({-1}, false, base(n, "rev_step"), out)},
                         {reversed}));
    } else {
      constexpr std::int64_t kMaxIndex = std::int64_t{1} << 24;  // a constant of at most 16M indices
      if (*d > kMaxIndex)
        throw Error(n.op_type + ": selecting the last index of an axis of " + std::to_string(*d) +
                    " entries before opset 10 needs that many indices spelled out: not converted");
      std::vector<std::int64_t> backwards(static_cast<std::size_t>(*d));
      for (std::int64_t i = 0; i < *d; ++i) backwards[static_cast<std::size_t>(i)] = *d - 1 - i;
      Node gather("Gather", {n.inputs[0], ints(backwards, false, base(n, "rev_indices"), out)}, {reversed});
      gather.set_attribute(Attribute("axis", axis));
      out.push_back(std::move(gather));
    }
    const std::string first = fresh(base(n, "first"));
    Node sub("Sub", {ints({*d - 1}, true, base(n, "last"), out), first}, {n.outputs[0]});
    pending_after_.push_back(std::move(sub));
    n.inputs[0] = reversed;
    n.outputs[0] = first;
    n.set_attribute(Attribute("axis", axis));
    drop(n, "select_last_index");
    report.nodes_added += 2;
    return true;
  }

  /// An operator newer than the target spelled in the older operators its definition is made
  /// of (the ONNX function bodies of these operators, in the form the target has): CastLike as
  /// a Cast to the second input's element type, GreaterOrEqual/LessOrEqual as Or(Greater/Less,
  /// Equal) (NaN compares false either way), HardSwish, Mish, Swish, Celu and Gelu as their
  /// formulas, LayerNormalization and RMSNormalization as ReduceMean, Sqrt, Div... in the stash
  /// type, Trilu as a Where. The nodes computing the value go to `out` and the node becomes the last one, which
  /// then takes the version steps of its new operator. False for an operator without such a
  /// spelling (it is then refused); throws when the spelling needs what is not known.
  bool lower(Node& n, std::vector<Node>& out) {
    const std::string op = n.op_type;
    const bool known = op == "CastLike" || op == "GreaterOrEqual" || op == "LessOrEqual" || op == "HardSwish" ||
                       op == "Mish" || op == "Swish" || op == "Celu" || op == "Gelu" || op == "LayerNormalization" ||
                       op == "RMSNormalization" || op == "Trilu" || op == "GroupNormalization" ||
                       op == "NegativeLogLikelihoodLoss" || op == "SoftmaxCrossEntropyLoss" || op == "IsInf" ||
                       op == "Mod" || op == "GatherElements" || op == "ConstantOfShape" || op == "Range" ||
                       op == "CumSum" || op == "HannWindow" || op == "HammingWindow" || op == "BlackmanWindow" ||
                       op == "Round" || op == "BitShift";
    if (!known) return false;
    // The spellings read the operator's inputs and produce its outputs; a node with more of either
    // than the operator has (a malformed node) would lose them.
    const auto [max_inputs, max_outputs] = lowered_arity(op);
    if (n.inputs.size() > max_inputs)
      throw Error(op + " with " + std::to_string(n.inputs.size()) + " inputs: the operator has at most " +
                  std::to_string(max_inputs));
    if (n.outputs.size() > max_outputs)
      throw Error(op + " with " + std::to_string(n.outputs.size()) + " outputs: the operator has at most " +
                  std::to_string(max_outputs));
    for (const auto& a : n.attributes)
      if (!a.ref_attr_name.empty())
        throw Error(op + ": attribute '" + a.name + "' refers to a function attribute; '" + op +
                    "' does not exist at opset " + std::to_string(to_) + " and its older spelling needs the value");
    if (!n.has_input(0) || !n.has_output(0)) throw Error(op + " without input or output");
    const std::string x = n.inputs[0];
    auto node = [&](std::string type, std::vector<std::string> in, const std::string& what) -> Node& {
      return add(n, std::move(type), std::move(in), what, out);
    };
    if (op == "CastLike") {
      if (!n.has_input(1)) throw Error("CastLike without its second input");
      const DataType to = elem_type(n, 1, "CastLike spelled as a Cast before opset 15 needs it");
      const Attribute* saturate = n.find_attribute("saturate");
      std::optional<Attribute> keep;
      if (saturate) keep = *saturate;
      become(n, "Cast", {x});
      n.set_attribute(Attribute("to", static_cast<std::int64_t>(to)));
      if (keep) n.set_attribute(std::move(*keep));
      return true;
    }
    if (op == "GreaterOrEqual" || op == "LessOrEqual") {
      if (!n.has_input(1)) throw Error(op + " without its second input");
      const std::string y = n.inputs[1];
      const Type* xt = type_of(x);
      if (to_ < 11 && xt && is_float(xt->elem_type())) {
        // Equal takes floats from 11 on: before, x >= y as not x < y, both numbers.
        const std::string other = node(op == "GreaterOrEqual" ? "Less" : "Greater", {x, y}, "opposite").outputs[0];
        const std::string holds = node("Not", {other}, "not_opposite").outputs[0];
        return become(n, "And", {holds, both_numbers(n, x, y, xt->elem_type(), out)});
      }
      const std::string strict = node(op == "GreaterOrEqual" ? "Greater" : "Less", {x, y}, "strict").outputs[0];
      const std::string equal = node("Equal", {x, y}, "equal").outputs[0];
      return become(n, "Or", {strict, equal});
    }
    if (op == "HannWindow" || op == "HammingWindow" || op == "BlackmanWindow") return window(n, out);
    if (op == "ConstantOfShape") {
      // The value (a float 0 by default) as a scalar Constant, expanded to the shape (Expand came
      // with 8); at 7 a Constant of shape [1, ..., 1] tiled by the shape, whose length must be known.
      const Attribute* va = value_attr(n, "value");
      Tensor v = va ? va->as_tensor() : Tensor::from_values<float>("", {}, {0.f});
      if (v.element_count() != std::uint64_t{1})
        throw Error("ConstantOfShape: its value does not hold exactly one element");
      v.dims.clear();
      if (to_ >= 8) return become(n, "Expand", {constant(std::move(v), base(n, "value"), out), x});
      const Type* st = type_of(x);
      const Shape* ss = st ? st->shape() : nullptr;
      const std::int64_t* k = ss && ss->rank() == 1 ? std::get_if<std::int64_t>(&ss->dims[0].value) : nullptr;
      if (!k)
        throw Error("ConstantOfShape before opset 8 (which has no Expand) is a Tile of a Constant of the output's rank, "
                    "and the length of its shape '" + x + "' is not known");
      if (*k < 0 || *k > infer::kMaxRank)  // a rank no real tensor has: hostile input
        throw Error("ConstantOfShape: its shape '" + x + "' is declared with " + std::to_string(*k) + " elements");
      if (*k == 0) return become(n, "Identity", {constant(std::move(v), base(n, "value"), out)});
      v.dims.assign(static_cast<std::size_t>(*k), 1);
      return become(n, "Tile", {constant(std::move(v), base(n, "value"), out), x});
    }
    const DataType t = elem_type(n, 0, op + " spelled in older operators needs it for its constants");
    if (op == "GatherElements") return gather_elements(n, t, out);
    if (op == "Range") return range_loop(n, t, out);
    if (op == "CumSum") return cumsum_scan(n, t, out);
    if (op == "Trilu") return trilu(n, t, out);
    if (op == "GroupNormalization") return group_normalization(n, t, out);
    if (op == "NegativeLogLikelihoodLoss" || op == "SoftmaxCrossEntropyLoss") return loss(n, t, out);
    if (op == "Mod") return integer_mod(n, t, out);
    if (op == "Round") return round_half_even(n, t, out);
    if (op == "BitShift") return bit_shift(n, t, out);
    if (op == "IsInf") {  // above the largest finite value of X's type, or below its negative; NaN is neither
      double big = 0;
      switch (t) {
        case DataType::FLOAT: big = std::numeric_limits<float>::max(); break;
        case DataType::DOUBLE: big = std::numeric_limits<double>::max(); break;
        case DataType::FLOAT16: big = 65504.0; break;
        case DataType::BFLOAT16: big = 3.3895313892515355e38; break;  // 0x7F7F
        default: throw Error("IsInf of " + std::string(data_type_name(t)) + " has no spelling before opset 10");
      }
      const bool positive = n.attribute_or("detect_positive", std::int64_t{1}) != 0;
      const bool negative = n.attribute_or("detect_negative", std::int64_t{1}) != 0;
      if (!positive && !negative)  // nothing is below -inf
        return become(n, "Less", {x, float_scalar(-std::numeric_limits<double>::infinity(), t, base(n, "minus_inf"), out)});
      const std::string top = positive ? float_scalar(big, t, base(n, "largest"), out) : std::string();
      const std::string bottom = negative ? float_scalar(-big, t, base(n, "lowest"), out) : std::string();
      if (!negative) return become(n, "Greater", {x, top});
      if (!positive) return become(n, "Less", {x, bottom});
      const std::string above = node("Greater", {x, top}, "above").outputs[0];
      const std::string below = node("Less", {x, bottom}, "below").outputs[0];
      return become(n, "Or", {above, below});
    }
    if (op == "HardSwish") {  // x * HardSigmoid(x) with alpha 1/6, beta 1/2
      Node& h = node("HardSigmoid", {x}, "hard_sigmoid");
      h.set_attribute(Attribute("alpha", 1.0f / 6.0f));
      h.set_attribute(Attribute("beta", 0.5f));
      const std::string hs = h.outputs[0];
      return become(n, "Mul", {x, hs});
    }
    if (op == "Mish") {  // x * tanh(softplus(x))
      const std::string sp = node("Softplus", {x}, "softplus").outputs[0];
      const std::string th = node("Tanh", {sp}, "tanh").outputs[0];
      return become(n, "Mul", {x, th});
    }
    if (op == "Swish") {  // x * sigmoid(alpha * x)
      const float alpha = n.attribute_or("alpha", 1.0f);
      std::string ax = x;
      if (alpha != 1.0f) ax = node("Mul", {x, float_scalar(alpha, t, base(n, "alpha"), out)}, "scaled").outputs[0];
      const std::string sg = node("Sigmoid", {ax}, "sigmoid").outputs[0];
      return become(n, "Mul", {x, sg});
    }
    if (op == "Celu") {  // max(0, x) + min(0, alpha * (exp(x / alpha) - 1)), min(0, v) as -relu(-v)
      const float alpha = n.attribute_or("alpha", 1.0f);
      const std::string a = float_scalar(alpha, t, base(n, "alpha"), out);
      const std::string scaled = node("Div", {x, a}, "scaled").outputs[0];
      Node& elu = node("Elu", {scaled}, "elu");
      elu.set_attribute(Attribute("alpha", 1.0f));
      const std::string e = elu.outputs[0];
      const std::string back = node("Mul", {e, a}, "elu_scaled").outputs[0];
      const std::string neg = node("Neg", {back}, "negated").outputs[0];
      const std::string rn = node("Relu", {neg}, "negative_part").outputs[0];
      const std::string lower_part = node("Neg", {rn}, "min_zero").outputs[0];
      const std::string upper = node("Relu", {x}, "positive_part").outputs[0];
      return become(n, "Add", {upper, lower_part});
    }
    if (op == "Gelu") {
      if (to_ < 9 && n.attribute_or("approximate", std::string_view("none")) == "none")
        throw Error("Gelu: 'Gelu' does not exist at opset " + std::to_string(to_) +
                    " and its formula needs Erf, which came with opset 9");
      const std::string approx = n.attribute_or("approximate", std::string_view("none"));
      std::string inner;
      if (approx == "none") {  // erf(x / sqrt(2))
        const std::string r2 = float_scalar(1.4142135623730951, t, base(n, "sqrt2"), out);
        const std::string d = node("Div", {x, r2}, "scaled").outputs[0];
        inner = node("Erf", {d}, "erf").outputs[0];
      } else if (approx == "tanh") {  // tanh(sqrt(2 / pi) * (x + 0.044715 x^3))
        const std::string x2 = node("Mul", {x, x}, "square").outputs[0];
        const std::string x3 = node("Mul", {x2, x}, "cube").outputs[0];
        const std::string c = float_scalar(0.044715, t, base(n, "cubic"), out);
        const std::string cx3 = node("Mul", {x3, c}, "cubic_term").outputs[0];
        const std::string sum = node("Add", {x, cx3}, "sum").outputs[0];
        const std::string k = float_scalar(0.7978845608028654, t, base(n, "sqrt_2_over_pi"), out);
        const std::string arg = node("Mul", {sum, k}, "tanh_arg").outputs[0];
        inner = node("Tanh", {arg}, "tanh").outputs[0];
      } else {
        throw Error("Gelu: unknown approximate '" + approx + "'");
      }
      const std::string one = node("Add", {inner, float_scalar(1.0, t, base(n, "one"), out)}, "one_plus").outputs[0];
      const std::string xm = node("Mul", {x, one}, "times_x").outputs[0];
      return become(n, "Mul", {xm, float_scalar(0.5, t, base(n, "half"), out)});
    }
    // LayerNormalization and RMSNormalization: the statistics over the axes from `axis` to the
    // last, computed in the stash type.
    const bool layer = op == "LayerNormalization";
    if (!n.has_input(1)) throw Error(op + " without its scale");
    const std::size_t rank = rank_of(n, 0, op + " spelled in older operators reduces over axes counted from the rank");
    const auto r = static_cast<std::int64_t>(rank);
    std::int64_t axis = n.attribute_or("axis", std::int64_t{-1});
    if (axis < -r || axis >= r) throw Error(op + ": axis " + std::to_string(axis) + " is outside the rank " + std::to_string(r));
    if (axis < 0) axis += r;
    std::vector<std::int64_t> axes;
    for (std::int64_t i = axis; i < r; ++i) axes.push_back(i);
    const DataType stash = stash_type(n);
    const float epsilon = n.attribute_or("epsilon", 1e-5f);
    const std::string scale = n.inputs[1];
    const std::string bias = layer && n.has_input(2) ? n.inputs[2] : std::string();
    const std::string mean_out = layer && n.has_output(1) ? n.outputs[1] : std::string();
    const std::string inv_out = layer && n.has_output(2) ? n.outputs[2] : std::string();
    auto mean_of = [&](const std::string& v, const std::string& what, const std::string& name) {
      std::vector<std::string> in{v};
      if (to_ >= 18) in.push_back(ints(axes, false, base(n, "axes"), out));
      out.push_back(Node("ReduceMean", std::move(in), {name.empty() ? fresh(base(n, what)) : name}));
      ++report.nodes_added;
      Node& m = out.back();
      if (to_ < 18) m.set_attribute(Attribute("axes", axes));
      m.set_attribute(Attribute("keepdims", std::int64_t{1}));
      return m.outputs[0];
    };
    const std::string xu = stash != t ? cast(n, x, stash, "stashed", out) : x;
    // LayerNormalization's variance as the mean of the squared deviations: the definition's
    // E[x^2] - E[x]^2 is the same number in exact arithmetic, but loses the digits of a variance
    // small against the mean in the stash type, where kernels that accumulate in double do not.
    std::string mean, dev = xu;
    if (layer) {
      mean = mean_of(xu, "mean", mean_out);
      dev = node("Sub", {xu, mean}, "deviation").outputs[0];
    }
    const std::string sq = node("Mul", {dev, dev}, "square").outputs[0];
    const std::string var = mean_of(sq, layer ? "variance" : "mean_square", "");
    const std::string eps = float_scalar(epsilon, stash, base(n, "epsilon"), out);
    const std::string ve = node("Add", {var, eps}, "plus_epsilon").outputs[0];
    const std::string sd = node("Sqrt", {ve}, "root").outputs[0];
    std::string normalized = node("Div", {dev, sd}, "normalized").outputs[0];
    if (!inv_out.empty()) {
      out.push_back(Node("Reciprocal", {sd}, {inv_out}));
      ++report.nodes_added;
    }
    // Back to X's type (LayerNormalization) or to the scale's, which RMSNormalization's output has.
    const DataType result = layer ? t : elem_type(n, 1, op + " spelled in older operators casts to it");
    if (stash != result) normalized = cast(n, normalized, result, "normalized_cast", out);
    if (bias.empty()) return become(n, "Mul", {normalized, scale});
    const std::string scaled = node("Mul", {normalized, scale}, "scaled").outputs[0];
    return become(n, "Add", {scaled, bias});
  }

  /// Trilu before opset 14: Where(mask, x, 0) (And(mask, x) for bool), the mask comparing the column index minus the
  /// row index (a Sub of an index column and an index row, broadcast) with k: not less than k
  /// for the upper triangle, not greater for the lower. The last two sizes must be numbers; k
  /// may be any value (a graph input too). Where needs opset 9.
  bool trilu(Node& n, DataType t, std::vector<Node>& out) {
    if (to_ < 9)
      throw Error("Trilu: 'Trilu' does not exist at opset " + std::to_string(to_) +
                  " and its spelling needs Where, which came with opset 9");
    const Type* type = type_of(n.inputs[0]);
    const Shape* s = type ? type->shape() : nullptr;
    if (!s || s->rank() < 2)
      throw Error("Trilu: spelled as a Where before opset 14, it needs the rank of '" + n.inputs[0] + "' (at least 2)");
    const auto rows = (*s)[s->rank() - 2].value_if(), cols = (*s)[s->rank() - 1].value_if();
    constexpr std::int64_t kMaxIndex = std::int64_t{1} << 24;  // constants of at most 16M entries each
    const bool numbers = rows && cols && *rows >= 0 && *cols >= 0 && *rows <= kMaxIndex && *cols <= kMaxIndex;
    // The indices 0 .. count-1 of axis `axis` from the end, as a column [count, 1] or a row
    // [count]: a constant when the size is a number, else Range over the size read by Shape
    // (before opset 11, Range's definition: a Loop of that many iterations).
    std::string shape, start, step;
    auto index = [&](std::optional<std::int64_t> count, std::size_t axis, bool column, const char* what) {
      if (numbers) {
        std::vector<std::int64_t> v(static_cast<std::size_t>(*count));
        for (std::int64_t i = 0; i < *count; ++i) v[static_cast<std::size_t>(i)] = i;
        const std::vector<std::int64_t> dims = column ? std::vector<std::int64_t>{*count, 1} : std::vector<std::int64_t>{*count};
        return constant(Tensor::from_values<std::int64_t>("", dims, std::span<const std::int64_t>(v)), base(n, what), out);
      }
      if (shape.empty()) {
        shape = fresh(base(n, "shape"));
        out.push_back(Node("Shape", {n.inputs[0]}, {shape}));
        ++report.nodes_added;
        start = ints({0}, true, base(n, "index_start"), out);
        step = ints({1}, true, base(n, "index_step"), out);
      }
      const std::string size = fresh(base(n, std::string(what) + "_size"));
      Node gather("Gather", {shape, ints({static_cast<std::int64_t>(s->rank() - axis)}, true, base(n, std::string(what) + "_axis"), out)},
                  {size});
      gather.set_attribute(Attribute("axis", std::int64_t{0}));
      out.push_back(std::move(gather));
      const std::string range = fresh(base(n, what));
      out.push_back(to_ >= 11 ? Node("Range", {start, size, step}, {range})
                              : counting_loop(n, size, start, step, DataType::INT64, range));
      report.nodes_added += 2;
      return column ? unsqueeze(range, {1}, base(n, std::string(what) + "_column"), out) : range;
    };
    const std::string row = index(rows, 2, true, "row_index");
    const std::string col = index(cols, 1, false, "column_index");
    const std::string diagonal = fresh(base(n, "diagonal"));
    out.push_back(Node("Sub", {col, row}, {diagonal}));
    const std::string k = n.has_input(1) ? n.inputs[1] : ints({0}, true, base(n, "k"), out);
    const bool upper = n.attribute_or("upper", std::int64_t{1}) != 0;
    const std::string outside = fresh(base(n, "outside"));
    out.push_back(Node(upper ? "Less" : "Greater", {diagonal, k}, {outside}));
    const std::string inside = fresh(base(n, "inside"));
    out.push_back(Node("Not", {outside}, {inside}));
    report.nodes_added += 3;
    const std::string x = n.inputs[0];
    n.attributes.clear();
    if (t == DataType::BOOL) {  // a bool mask (a causal one, say): And, which runtimes have for bool
      n.op_type = "And";
      n.inputs = {inside, x};
      return true;
    }
    const std::string zero = zero_scalar(t, base(n, "zero"), out);
    n.op_type = "Where";
    n.inputs = {inside, x, zero};
    return true;
  }
  /// GroupNormalization before opset 18, as its definition computes it: X [N, C, ...] reshaped
  /// to [N, G, -1], InstanceNormalization over each group, reshaped back to X's shape. The
  /// scale and bias of the per-group form (18-20) are InstanceNormalization's own; those of the
  /// per-channel form (21) multiply and add after the reshape, as [C, 1, ...] (X's rank must be
  /// known), with InstanceNormalization given ones and zeros. From 21 the statistics are in the
  /// stash type (X cast to it and back).
  bool group_normalization(Node& n, DataType t, std::vector<Node>& out) {
    const Attribute* g = n.find_attribute("num_groups");
    if (!g || g->kind() != AttributeType::INT) throw Error("GroupNormalization without num_groups");
    const std::int64_t groups = g->as_int();
    if (groups < 1) throw Error("GroupNormalization: num_groups " + std::to_string(groups) + " is not positive");
    if (!n.has_input(1) || !n.has_input(2)) throw Error("GroupNormalization without scale or bias");
    const bool per_channel = from_ >= 21;
    const float epsilon = n.attribute_or("epsilon", 1e-5f);
    const DataType stash = per_channel ? stash_type(n) : t;
    const std::size_t rank = per_channel ? rank_of(n, 0, "GroupNormalization-21's per-channel scale is spread over it") : 0;
    const std::string x = n.inputs[0], scale = n.inputs[1], bias = n.inputs[2], y = n.outputs[0];
    auto node = [&](std::string type, std::vector<std::string> in, const std::string& what) -> Node& {
      return add(n, std::move(type), std::move(in), what, out);
    };
    const std::string shape = node("Shape", {x}, "shape").outputs[0];
    std::string grouped = node("Reshape", {x, ints({0, groups, -1}, false, base(n, "grouped_shape"), out)}, "grouped").outputs[0];
    if (stash != t) grouped = cast(n, grouped, stash, "stashed", out);
    std::string s = scale, b = bias;
    if (per_channel) {
      if (groups > (std::int64_t{1} << 24))
        throw Error("GroupNormalization: num_groups " + std::to_string(groups) + " is too large to spell out");
      auto filled = [&](float v, const char* what) {
        const std::vector<float> values(static_cast<std::size_t>(groups), v);
        Tensor c = Tensor::from_values<float>("", {groups}, std::span<const float>(values));
        if (stash == DataType::FLOAT) return constant(std::move(c), base(n, what), out);
        // Other stash types: a float constant cast to it.
        return cast(n, constant(std::move(c), base(n, std::string(what) + "_float"), out), stash, what, out);
      };
      s = filled(1.0f, "ones");
      b = filled(0.0f, "zeros");
    }
    Node& in = node("InstanceNormalization", {grouped, s, b}, "normalized");
    in.set_attribute(Attribute("epsilon", epsilon));
    std::string normalized = in.outputs[0];
    if (stash != t) normalized = cast(n, normalized, t, "normalized_cast", out);
    if (!per_channel) {
      n.op_type = "Reshape";
      n.inputs = {normalized, shape};
      n.attributes.clear();
      return true;
    }
    const std::string back = node("Reshape", {normalized, shape}, "ungrouped").outputs[0];
    std::vector<std::int64_t> spread;
    for (std::size_t i = 1; i + 1 < rank; ++i) spread.push_back(static_cast<std::int64_t>(i));
    const std::string sc = spread.empty() ? scale : unsqueeze(scale, spread, base(n, "scale_per_channel"), out);
    const std::string bc = spread.empty() ? bias : unsqueeze(bias, spread, base(n, "bias_per_channel"), out);
    const std::string scaled = node("Mul", {back, sc}, "scaled").outputs[0];
    n.op_type = "Add";
    n.inputs = {scaled, bc};
    n.outputs = {y};
    n.attributes.clear();
    return true;
  }
  /// `n` made `type` of `in`, without attributes, keeping its first output and its name (the
  /// last step of an older spelling); true.
  /// The most inputs and outputs a node of `op` (an operator `lower` spells) has, as ONNX defines it:
  /// check_arity's answer where the signature table does not know the version at the model's opset.
  static std::pair<std::size_t, std::size_t> lowered_arity(const std::string& op) {
    if (op == "LayerNormalization") return {3, 3};
    if (op == "SoftmaxCrossEntropyLoss") return {3, 2};
    if (op == "NegativeLogLikelihoodLoss" || op == "GroupNormalization" || op == "Range") return {3, 1};
    if (op == "CastLike" || op == "GreaterOrEqual" || op == "LessOrEqual" || op == "RMSNormalization" ||
        op == "Trilu" || op == "Mod" || op == "GatherElements" || op == "CumSum" || op == "BitShift")
      return {2, 1};
    return {1, 1};  // HardSwish, Mish, Swish, Celu, Gelu, IsInf, ConstantOfShape, Round, the windows
  }
  static bool become(Node& n, std::string type, std::vector<std::string> in) {
    n.op_type = std::move(type);
    n.inputs = std::move(in);
    n.outputs.resize(1);
    n.attributes.clear();
    return true;
  }
  /// A new node `type` of `in` with one fresh output named after `anchor` and `what`, appended to `out`.
  Node& add(const Node& anchor, std::string type, std::vector<std::string> in, const std::string& what, std::vector<Node>& out) {
    out.push_back(Node(std::move(type), std::move(in), {fresh(base(anchor, what))}));
    ++report.nodes_added;
    return out.back();
  }
  /// `v` cast to `to` by a new Cast (see add); its output.
  std::string cast(const Node& anchor, const std::string& v, DataType to, const std::string& what, std::vector<Node>& out) {
    Node& c = add(anchor, "Cast", {v}, what, out);
    c.set_attribute(Attribute("to", static_cast<std::int64_t>(to)));
    return c.outputs[0];
  }
  static bool is_float(DataType t) {
    return t == DataType::FLOAT || t == DataType::DOUBLE || t == DataType::FLOAT16 || t == DataType::BFLOAT16;
  }
  /// The stash_type attribute of a normalization (float by default), which must be a float type.
  static DataType stash_type(const Node& n) {
    const auto stash = static_cast<DataType>(n.attribute_or("stash_type", std::int64_t{1}));
    if (!is_float(stash))
      throw Error(n.op_type + ": stash_type " + std::to_string(static_cast<int>(stash)) + " is not a float type");
    return stash;
  }
  /// Whether neither `x` nor `y` (of float type `t`) is NaN, by comparisons that opset 7 has:
  /// a number is below +inf or above -inf, where a NaN is neither.
  std::string both_numbers(const Node& anchor, const std::string& x, const std::string& y, DataType t, std::vector<Node>& out) {
    const std::string inf = float_scalar(std::numeric_limits<double>::infinity(), t, base(anchor, "inf"), out);
    const std::string minus_inf = float_scalar(-std::numeric_limits<double>::infinity(), t, base(anchor, "minus_inf"), out);
    auto number = [&](const std::string& v, const char* what) {
      const std::string below = add(anchor, "Less", {v, inf}, std::string(what) + "_below_inf", out).outputs[0];
      const std::string above = add(anchor, "Greater", {v, minus_inf}, std::string(what) + "_above_minus_inf", out).outputs[0];
      return add(anchor, "Or", {below, above}, std::string(what) + "_is_number", out).outputs[0];
    };
    const std::string nx = number(x, "x"), ny = number(y, "y");
    return add(anchor, "And", {nx, ny}, "both_numbers", out).outputs[0];
  }
  /// A scalar zero (false) of a numeric or bool element type.
  /// A tensor of zeros of element type `type` and shape `dims` (one element: a scalar or [1]);
  /// nullopt for a type without a zero here (strings, the 8-, 4- and 2-bit types).
  static std::optional<Tensor> zero_tensor(DataType type, std::vector<std::int64_t> dims) {
    auto make = [&](auto zero) {
      using T = decltype(zero);
      return std::optional<Tensor>(Tensor::from_values<T>("", std::move(dims), {zero}));
    };
    switch (type) {
      case DataType::FLOAT: return make(0.0f);
      case DataType::DOUBLE: return make(0.0);
      case DataType::FLOAT16: return make(float16(0.0f));
      case DataType::BFLOAT16: return make(bfloat16(0.0f));
      case DataType::INT8: return make(std::int8_t{0});
      case DataType::INT16: return make(std::int16_t{0});
      case DataType::INT32: return make(std::int32_t{0});
      case DataType::INT64: return make(std::int64_t{0});
      case DataType::UINT8: return make(std::uint8_t{0});
      case DataType::UINT16: return make(std::uint16_t{0});
      case DataType::UINT32: return make(std::uint32_t{0});
      case DataType::UINT64: return make(std::uint64_t{0});
      case DataType::BOOL: return make(false);
      default: return std::nullopt;
    }
  }
  std::string zero_scalar(DataType type, const std::string& base, std::vector<Node>& out) {
    auto zero = zero_tensor(type, {});
    if (!zero)
      throw Error("no zero constant of element type " + std::string(data_type_name(type)) + " for the older spelling");
    return constant(std::move(*zero), base, out);
  }

  /// DepthToSpace in CRD order before opset 11, as its definition spells it: x [N, C, H, W]
  /// reshaped to [N, C/b², b, b, H, W], transposed by [0, 1, 4, 2, 5, 3] and reshaped to
  /// [N, C/b², H·b, W·b]. C, H and W must be numbers; N is copied (a 0 in Reshape's shape). (A -1
  /// for a symbolic H or W would fail on an empty input, which DepthToSpace takes.) The node
  /// becomes the last Reshape.
  bool depth_to_space_crd(Node& n, std::vector<Node>& out) {
    if (!n.has_input(0) || !n.has_output(0)) throw Error("DepthToSpace without input or output");
    const std::int64_t b = n.attribute_or("blocksize", std::int64_t{0});
    const Type* t = type_of(n.inputs[0]);
    const Shape* s = t ? t->shape() : nullptr;
    auto refuse = [&](const std::string& why) -> bool {
      throw Error("DepthToSpace: the CRD order has no equivalent before opset 11, and the Reshapes that "
                  "spell it need " + why);
    };
    if (!s || s->rank() != 4) return refuse("the input's rank (4), which is not known");
    const auto c = (*s)[1].value_if(), h = (*s)[2].value_if(), w = (*s)[3].value_if();
    if (b < 1 || b > (std::int64_t{1} << 20)) return refuse("a valid blocksize");
    if (!c || *c < 1 || *c % (b * b) != 0) return refuse("the channels as a number divisible by blocksize²");
    if (!h || !w || *h < 1 || *w < 1) return refuse("the height and the width as numbers");
    if (*h > std::numeric_limits<std::int64_t>::max() / b || *w > std::numeric_limits<std::int64_t>::max() / b)
      return refuse("sizes that fit in int64");
    const std::int64_t cs = *c / (b * b);
    const std::string stem = base(n, "crd");
    const std::string six = fresh(stem);
    out.push_back(Node("Reshape", {n.inputs[0], ints({0, cs, b, b, *h, *w}, false, stem + "_shape6", out)}, {six}));
    const std::string moved = fresh(stem + "_moved");
    Node tr("Transpose", {six}, {moved});
    tr.set_attribute(Attribute("perm", std::vector<std::int64_t>{0, 1, 4, 2, 5, 3}));
    out.push_back(std::move(tr));
    Node last("Reshape", {moved, ints({0, cs, *h * b, *w * b}, false, stem + "_shape4", out)}, n.outputs);
    last.name = n.name;
    n = std::move(last);
    report.nodes_added += 2;
    return true;
  }

  /// Resize-11 as Resize-10: nearest or linear, asymmetric coordinates, scales, and for nearest
  /// the rounding Resize-10 has (down when enlarging, up when shrinking). Also, in nearest mode,
  /// half_pixel (and pytorch_half_pixel) coordinates with whole scales, rounding to the nearest
  /// pixel: output pixel x = q s + r (0 <= r < s) maps to q + (r - (s - 1) / 2) / s, which
  /// rounds to q, the pixel Resize-10's x / s floors to. Sizes that are whole multiples of input
  /// sizes known as numbers become those scales.
  bool resize_10(Node& n, std::vector<Node>& out) {
    const std::string mode = n.attribute_or("mode", std::string_view("nearest"));
    if (mode != "nearest" && mode != "linear") throw Error("Resize's " + mode + " mode has no equivalent before opset 11");
    const std::string coordinates = n.attribute_or("coordinate_transformation_mode", std::string_view("half_pixel"));
    const std::string rounding = n.attribute_or("nearest_mode", std::string_view("round_prefer_floor"));
    const bool half_pixel = mode == "nearest" && (coordinates == "half_pixel" || coordinates == "pytorch_half_pixel") &&
                            (rounding == "round_prefer_floor" || rounding == "round_prefer_ceil");
    if (coordinates != "asymmetric" && !half_pixel)
      throw Error("Resize before opset 11 maps coordinates as 'asymmetric' only (or, in nearest mode rounding to "
                  "the nearest pixel, half_pixel with whole scales)");
    if (n.has_input(3)) whole_sizes_as_scales(n, out);
    if (!n.has_input(2)) throw Error("Resize without scales");
    if (half_pixel && coordinates != "asymmetric") {
      const Tensor* it = constant_of(n.inputs[2]);
      bool whole = it && it->data_type == DataType::FLOAT;
      if (whole)
        for (const float x : it->values<float>()) whole = whole && x >= 1.f && x <= 16777216.f && x == std::floor(x);
      if (!whole)
        throw Error("Resize before opset 11 maps coordinates as 'asymmetric' only; its half_pixel nearest pixels are "
                    "the same for constant whole scales, and these are not");
    } else if (mode == "nearest") {
      const Tensor* it = constant_of(n.inputs[2]);
      if (!it || it->data_type != DataType::FLOAT)
        throw Error("Resize in nearest mode: its scales are not a constant, so Resize-10's rounding cannot be checked");
      const auto want = rounding_10(*it);
      if (!want || n.attribute_or("nearest_mode", std::string_view("round_prefer_floor")) != *want)
        throw Error("Resize-10 rounds nearest pixels up when shrinking and down when enlarging; this Resize's "
                    "nearest_mode or scales differ");
    }
    for (const char* a : {"coordinate_transformation_mode", "nearest_mode", "cubic_coeff_a", "exclude_outside",
                          "extrapolation_value"})
      drop(n, a);
    n.inputs = {n.inputs[0], n.inputs[2]};
    return true;
  }
  /// Resize's sizes input (opset 11 on) as the scales it amounts to, when it is a constant of
  /// whole multiples of the input's sizes, known as numbers (Resize's scale is then the ratio).
  void whole_sizes_as_scales(Node& n, std::vector<Node>& out) {
    const auto sizes = constant_ints(n, 3);
    const Type* t = type_of(n.inputs[0]);
    const Shape* s = t ? t->shape() : nullptr;
    const std::string no = "Resize's sizes input has no equivalent before opset 11";
    if (!sizes) throw Error(no + " (unless a constant)");
    if (!s || s->rank() != sizes->size())
      throw Error(no + " (unless whole multiples of the input's sizes, which are not known)");
    std::vector<float> scales;
    for (std::size_t i = 0; i < sizes->size(); ++i) {
      const auto in = (*s)[i].value_if();
      const std::int64_t to = (*sizes)[i];
      if (!in || *in < 1 || to < *in || to % *in != 0 || to / *in > (std::int64_t{1} << 24))
        throw Error(no + " (unless whole multiples of the input's sizes; axis " + std::to_string(i) + " is not)");
      scales.push_back(static_cast<float>(to / *in));
    }
    n.inputs.resize(3);
    n.inputs[2] = constant(Tensor::from_values<float>("", {static_cast<std::int64_t>(scales.size())},
                                                      std::span<const float>(scales)),
                           base(n, "scales"), out);
  }

 public:
  UpgradeReport report;

 private:
  static Shape shape_of(const Tensor& t) {
    Shape s;
    for (auto d : t.dims) s.dims.emplace_back(d);
    return s;
  }

  /// A Constant node defining a fresh value named after `base`, appended to `out` (before the
  /// node that reads it).
  std::string constant(Tensor t, const std::string& base, std::vector<Node>& out) {
    const std::string name = fresh(base);
    t.name.clear();
    made_.push_back(t);  // a constant later steps may read (Slice's axes made positive, then an attribute)
    made_constants_.emplace(name, &made_.back());
    std::optional<Tensor> doubles;
    if (to_ < 9 && t.data_type != DataType::FLOAT && t.data_type != DataType::DOUBLE && t.data_type != DataType::FLOAT16)
      doubles = as_double(t);
    if (doubles) {
      // Constant holds floats only before opset 9: a double one, cast (the Cast counted as made
      // too, to go with the Constant when nothing reads it). A value a double cannot hold stays
      // as it is: a later step may make it an attribute, else the type check refuses it.
      const DataType type = t.data_type;
      const std::string d = fresh(base + "_double");
      made_.push_back(std::move(*doubles));
      made_constants_.emplace(d, &made_.back());
      Node c("Constant", {}, {d});
      c.set_attribute(Attribute("value", made_.back()));
      out.push_back(std::move(c));
      Node back("Cast", {d}, {name});
      back.set_attribute(Attribute("to", static_cast<std::int64_t>(type)));
      out.push_back(std::move(back));
      report.nodes_added += 2;
      return name;
    }
    Node c("Constant", {}, {name});
    c.set_attribute(Attribute("value", std::move(t)));
    out.push_back(std::move(c));
    ++report.nodes_added;
    return name;
  }
  /// An integer or bool tensor as a double one, when doubles hold all its values exactly
  /// (integers of at most 2^53); nullopt otherwise (another type, or a larger value).
  static std::optional<Tensor> as_double(const Tensor& t) {
    std::vector<double> v;
    constexpr std::int64_t kExact = std::int64_t{1} << 53;  // compared as integers: 2^53 + 1 rounds to 2^53
    auto take = [&](auto tag) {
      using T = decltype(tag);
      const auto values = t.values<T>();  // throws on a payload that does not match the dims
      v.reserve(values.size());
      for (const T x : values) {
        if constexpr (std::is_same_v<T, std::int64_t>) {
          if (x > kExact || x < -kExact) return false;
        } else if constexpr (std::is_same_v<T, std::uint64_t>) {
          if (x > static_cast<std::uint64_t>(kExact)) return false;
        }
        v.push_back(static_cast<double>(x));
      }
      return true;
    };
    bool exact = false;
    switch (t.data_type) {
      case DataType::INT8: exact = take(std::int8_t{}); break;
      case DataType::INT16: exact = take(std::int16_t{}); break;
      case DataType::INT32: exact = take(std::int32_t{}); break;
      case DataType::INT64: exact = take(std::int64_t{}); break;
      case DataType::UINT8: exact = take(std::uint8_t{}); break;
      case DataType::UINT16: exact = take(std::uint16_t{}); break;
      case DataType::UINT32: exact = take(std::uint32_t{}); break;
      case DataType::UINT64: exact = take(std::uint64_t{}); break;
      case DataType::BOOL: exact = take(bool{}); break;
      default: return std::nullopt;
    }
    if (!exact) return std::nullopt;
    return Tensor::from_values<double>(t.name, t.dims, std::span<const double>(v));
  }
  std::string ints(const std::vector<std::int64_t>& v, bool scalar, const std::string& base, std::vector<Node>& out) {
    std::vector<std::int64_t> dims;
    if (!scalar) dims.push_back(static_cast<std::int64_t>(v.size()));
    return constant(Tensor::from_values<std::int64_t>("", dims, std::span<const std::int64_t>(v)), base, out);
  }
  /// A scalar of `type` (a float type) holding `x`.
  std::string float_scalar(double x, DataType type, const std::string& base, std::vector<Node>& out) {
    switch (type) {
      case DataType::FLOAT: return constant(Tensor::from_values<float>("", {}, {static_cast<float>(x)}), base, out);
      case DataType::DOUBLE: return constant(Tensor::from_values<double>("", {}, {x}), base, out);
      case DataType::FLOAT16:
        return constant(Tensor::from_values<float16>("", {}, {float16(static_cast<float>(x))}), base, out);
      case DataType::BFLOAT16:
        return constant(Tensor::from_values<bfloat16>("", {}, {bfloat16(static_cast<float>(x))}), base, out);
      default: throw Error("no float constant of element type " + std::string(data_type_name(type)));
    }
  }
  /// Element type of input `i` of `n`, which must be known.
  DataType elem_type(const Node& n, std::size_t i, std::string_view why) {
    const Type* t = n.has_input(i) ? type_of(n.inputs[i]) : nullptr;
    const DataType d = t ? t->elem_type() : DataType::UNDEFINED;
    if (d == DataType::UNDEFINED)
      throw Error(n.op_type + ": the element type of '" + (n.has_input(i) ? n.inputs[i] : std::string()) +
                  "' is not known, and " + std::string(why));
    return d;
  }
  static const Attribute* value_attr(const Node& n, std::string_view name) {
    const Attribute* a = n.find_attribute(name);
    if (a && !a->ref_attr_name.empty())
      throw Error(n.op_type + ": attribute '" + std::string(name) +
                  "' refers to a function attribute and cannot become an input");
    return a;
  }
  static void drop(Node& n, std::string_view name) {
    std::erase_if(n.attributes, [&](const Attribute& a) { return a.name == name; });
  }
  /// Input `i` set to `v` (omitted inputs before it filled with "").
  static void set_input(Node& n, std::size_t i, std::string v) {
    if (n.inputs.size() <= i) n.inputs.resize(i + 1);
    n.inputs[i] = std::move(v);
  }
  std::string base(const Node& n, std::string_view what) const {
    const std::string stem = !n.name.empty() ? n.name : !n.outputs.empty() && !n.outputs[0].empty() ? n.outputs[0] : n.op_type;
    return stem + "_" + std::string(what);
  }
  /// An INTS attribute moved to input `i` as an int64 tensor (nothing when absent).
  bool ints_to_input(Node& n, std::string_view attr, std::size_t i, std::vector<Node>& out) {
    const Attribute* a = value_attr(n, attr);
    if (!a) return false;
    const auto v = a->as_ints();
    drop(n, attr);
    set_input(n, i, ints(v, false, base(n, attr), out));
    return true;
  }

  /// Refuses a node with more inputs or outputs (up to its last named one) than its operator's
  /// version at the model's opset defines, as the signature table knows it: a malformed node,
  /// whose extra values a rewrite into other operators would drop.
  void check_arity(const Node& n) const {
    bool beyond = false;
    const auto* sig = infer::detail::TypeSignatures::get().find(0, n.op_type, from_, beyond);
    if (!sig || beyond || sig->deprecated) return;
    const auto used = [](const std::vector<std::string>& names) {
      std::size_t k = names.size();
      while (k > 0 && names[k - 1].empty()) --k;
      return k;
    };
    const auto check = [&](const std::vector<infer::detail::FormalParam>& formal, std::size_t count, const char* what) {
      if (count == 0 || infer::detail::formal_at(formal, count - 1)) return;
      throw Error("'" + n.op_type + "' with " + std::to_string(count) + " " + what + ": " + n.op_type + "-" +
                  std::to_string(sig->since) + " has at most " + std::to_string(formal.size()));
    };
    check(sig->inputs, used(n.inputs), "inputs");
    check(sig->outputs, used(n.outputs), "outputs");
  }

  /// versions_of, looked up once per operator.
  const std::vector<std::pair<std::int64_t, bool>>& versions(const std::string& op) {
    auto it = versions_.find(op);
    if (it == versions_.end()) it = versions_.emplace(op, versions_of(op)).first;
    return it->second;
  }

  /// One node, from from_ to to_: every version step of its operator in between (of the
  /// operator that replaces it, after a replacement).
  void node(Node& n, std::vector<Node>& out) {
    if (versions(n.op_type).empty()) throw Error("'" + n.op_type + "' is not an operator of the default domain");
    if (versions(n.op_type).front().first > from_)
      throw Error("'" + n.op_type + "' does not exist at opset " + std::to_string(from_));
    check_arity(n);
    bool changed = false;
    from_upsample_ = n.op_type == "Upsample";
    for (std::int64_t at = from_;;) {
      const auto& steps = versions(n.op_type);
      const auto next = std::find_if(steps.begin(), steps.end(), [&](const auto& v) { return v.first > at; });
      if (next == steps.end() || next->first > to_) break;
      at = next->first;
      if (adapt(n, at, out)) changed = true;
      else if (next->second)
        throw Error("'" + n.op_type + "' was removed at opset " + std::to_string(at) +
                    " and oxir knows no replacement for it");
    }
    if (changed) ++report.nodes_rewritten;
  }

  /// The change at `since` of the node's operator; false when that version is compatible.
  bool adapt(Node& n, std::int64_t since, std::vector<Node>& out) {
    // Opsets 1-5 had a `consumed_inputs` hint (in-place updates) on many operators; the
    // versions that followed (5 for Reshape, 6 for the rest) dropped it.
    bool hint = false;
    if (since <= 6 && n.find_attribute("consumed_inputs")) {
      drop(n, "consumed_inputs");
      hint = true;
    }
    return legacy(n, since, out) || adapt_op(n, since, out) || hint;
  }

  /// Input `i`'s rank, which must be known (declared or inferred).
  std::size_t rank_of(const Node& n, std::size_t i, std::string_view why) {
    const auto rank = known_rank(n, i);
    if (!rank)
      throw Error(n.op_type + ": the rank of '" + (n.has_input(i) ? n.inputs[i] : std::string()) + "' is not known, and " +
                  std::string(why));
    return static_cast<std::size_t>(*rank);
  }
  /// `x` with size-1 axes inserted at `axes`, as the target opset spells Unsqueeze (axes an
  /// attribute before 13, an input from 13).
  std::string unsqueeze(const std::string& x, const std::vector<std::int64_t>& axes, const std::string& stem,
                        std::vector<Node>& out) {
    const std::string y = fresh(stem);
    Node u("Unsqueeze", {x}, {y});
    if (to_ >= 13) u.inputs.push_back(ints(axes, false, stem + "_axes", out));
    else u.set_attribute(Attribute("axes", axes));
    out.push_back(std::move(u));
    ++report.nodes_added;
    return y;
  }
  /// An int64 scalar (or one-element) constant's value.
  std::optional<std::int64_t> constant_int(const Node& n, std::size_t i) const {
    const auto v = constant_ints(n, i);
    if (!v || v->size() != 1) return std::nullopt;
    return (*v)[0];
  }

  /// The version steps up to 7: attribute renames and retypes, inputs that became attributes
  /// and back, and the legacy broadcasting that opset 7 replaced by numpy's.
  bool legacy(Node& n, std::int64_t since, std::vector<Node>& out) {
    if (since > 7) return false;
    const std::string& op = n.op_type;
    if (op == "Concat" && since == 4) {  // axis became required; its default was 1
      if (n.find_attribute("axis")) return false;
      n.set_attribute(Attribute("axis", std::int64_t{1}));
      return true;
    }
    if (op == "Pad" && since == 2) {  // renamed
      Attribute* a = n.find_attribute("paddings");
      if (!a) return false;
      if (n.find_attribute("pads")) throw Error("Pad with both paddings and pads");
      a->name = "pads";
      return true;
    }
    if (op == "Split" && since == 2) {  // the sizes were also allowed as a second input
      if (n.inputs.size() < 2) return false;
      if (n.has_input(1)) {
        const Tensor* it = constant_of(n.inputs[1]);
        if (!it || it->data_type != DataType::INT64)
          throw Error("Split-1 takes its sizes from input '" + n.inputs[1] +
                      "', which is not an int64 constant; Split-2 wants them as an attribute");
        if (n.find_attribute("split")) throw Error("Split-1 with sizes both as input and attribute");
        const auto v = it->values<std::int64_t>();
        n.set_attribute(Attribute("split", std::vector<std::int64_t>(v.begin(), v.end())));
      }
      n.inputs.resize(1);
      return true;
    }
    if (op == "Reshape" && since == 5) {
      if (!value_attr(n, "shape")) throw Error("Reshape-1 without shape");
      return ints_to_input(n, "shape", 1, out);
    }
    if (op == "Cast" && since == 6) {  // `to` was the element type's name
      const Attribute* a = value_attr(n, "to");
      if (!a || a->kind() != AttributeType::STRING) return false;
      const auto t = data_type_from_name(a->as_string());
      if (!t) throw Error("Cast-1 to '" + a->as_string() + "', which is not an element type");
      n.set_attribute(Attribute("to", static_cast<std::int64_t>(*t)));
      return true;
    }
    if (op == "Tile" && since == 6) {  // (input, tiles, axis) became (input, repeats)
      const auto tiles = constant_int(n, 1), axis = constant_int(n, 2);
      if (!tiles || !axis)
        throw Error("Tile-1's tiles and axis are not int64 constants; Tile-6 wants one repeat count per axis");
      const auto rank = static_cast<std::int64_t>(rank_of(n, 0, "Tile-6 wants one repeat count per axis"));
      const std::int64_t at = *axis < 0 ? *axis + rank : *axis;
      if (at < 0 || at >= rank) throw Error("Tile-1's axis " + std::to_string(*axis) + " is outside the input's rank");
      std::vector<std::int64_t> repeats(static_cast<std::size_t>(rank), 1);
      repeats[static_cast<std::size_t>(at)] = *tiles;
      n.inputs.resize(1);
      set_input(n, 1, ints(repeats, false, base(n, "repeats"), out));
      return true;
    }
    if (op == "Selu" && since == 6) {  // the defaults became more precise: keep the old ones
      const bool alpha = !n.find_attribute("alpha"), gamma = !n.find_attribute("gamma");
      if (alpha) n.set_attribute(Attribute("alpha", 1.6732f));
      if (gamma) n.set_attribute(Attribute("gamma", 1.0507f));
      return alpha || gamma;
    }
    if ((op == "LpPool" || op == "GlobalLpPool") && since == 2) {  // p became an integer
      Attribute* a = n.find_attribute("p");
      if (!a || a->kind() != AttributeType::FLOAT) return false;
      const float p = a->as_float();
      if (!(p >= 1.f && p <= 1e6f) || p != static_cast<float>(static_cast<std::int64_t>(p)))
        throw Error(op + "-1's p = " + std::to_string(p) + " is not a whole number; " + op + "-2 takes an integer");
      n.set_attribute(Attribute("p", static_cast<std::int64_t>(p)));
      return true;
    }
    if ((op == "GRU" || op == "LSTM" || op == "RNN") && since == 7) {  // a hint, dropped
      if (!n.find_attribute("output_sequence")) return false;
      drop(n, "output_sequence");
      return true;
    }
    if (op == "Upsample" && since == 7) {  // height_scale and width_scale of a 4-D input
      const Attribute* h = value_attr(n, "height_scale");
      const Attribute* w = value_attr(n, "width_scale");
      if (!h || !w) throw Error("Upsample-1 without height_scale or width_scale");
      const std::vector<float> scales{1.f, 1.f, h->as_float(), w->as_float()};
      drop(n, "height_scale");
      drop(n, "width_scale");
      n.set_attribute(Attribute("scales", scales));
      if (n.attribute_or("mode", std::string_view("nearest")) == "bilinear") n.set_attribute(Attribute("mode", "linear"));
      return true;
    }
    if (op == "BatchNormalization" && since == 7) {
      // is_test = 0 (the default) meant training mode; from 7 the number of outputs says it.
      const Attribute* t = value_attr(n, "is_test");
      if ((!t || t->as_int() == 0) && n.outputs.size() == 1)
        throw Error("BatchNormalization-6 in training mode (is_test = 0) with only Y has no equivalent from opset 7 on");
      if (!t) return false;
      drop(n, "is_test");
      return true;
    }
    if (op == "Dropout" && since == 7) {  // the mode is the runtime's from 7 on
      if (!n.find_attribute("is_test")) return false;
      drop(n, "is_test");
      return true;
    }
    if (op == "Gemm" && since == 7) {  // C broadcasts (unidirectionally) from 7 on
      if (!n.find_attribute("broadcast")) return false;
      drop(n, "broadcast");
      return true;
    }
    if (op == "PRelu" && since == 7) {
      // Before 7 a one-dimensional slope was per channel (axis 1); from 7 it broadcasts as numpy
      // does, aligned with the last axis: it becomes [C, 1, ...].
      const std::size_t xr = rank_of(n, 0, "PRelu-7 aligns the slope with the last axis");
      const std::size_t sr = rank_of(n, 1, "PRelu-7 aligns the slope with the last axis");
      if (sr != 1 || xr <= 2) return false;
      std::vector<std::int64_t> axes;
      for (std::size_t k = 1; k + 1 < xr; ++k) axes.push_back(static_cast<std::int64_t>(k));
      n.inputs[1] = unsqueeze(n.inputs[1], axes, base(n, "slope"), out);
      return true;
    }
    if ((op == "Add" || op == "Sub" || op == "Mul" || op == "Div" || op == "Pow" || op == "And" || op == "Or" ||
         op == "Xor" || op == "Equal" || op == "Greater" || op == "Less") &&
        since == 7) {
      const Attribute* b = value_attr(n, "broadcast");
      const Attribute* ax = value_attr(n, "axis");
      const bool legacy_broadcast = b && b->as_int() != 0;
      const std::optional<std::int64_t> axis = ax ? std::optional(ax->as_int()) : std::nullopt;
      if (!b && !ax) return false;
      drop(n, "broadcast");
      drop(n, "axis");
      // With broadcast = 1, B's dims matched A's starting at `axis` (by default, A's last ones):
      // numpy aligns them at the end, so B gets size-1 axes after its own.
      if (legacy_broadcast && axis) {
        const auto ar = static_cast<std::int64_t>(rank_of(n, 0, "B's legacy broadcast axis cannot be placed"));
        const auto br = static_cast<std::int64_t>(rank_of(n, 1, "B's legacy broadcast axis cannot be placed"));
        const std::int64_t at = *axis < 0 ? *axis + ar : *axis;
        if (at < 0 || at + br > ar)
          throw Error(op + "'s broadcast axis " + std::to_string(*axis) + " does not fit B (rank " + std::to_string(br) +
                      ") into A (rank " + std::to_string(ar) + ")");
        std::vector<std::int64_t> axes;
        for (std::int64_t k = br; k < ar - at; ++k) axes.push_back(k);
        if (!axes.empty()) n.inputs[1] = unsqueeze(n.inputs[1], axes, base(n, "b"), out);
      }
      return true;
    }
    return false;
  }

  /// The changes from opset 8 on (and Scan's at 9, Upsample's at 9 and 10).
  bool adapt_op(Node& n, std::int64_t since, std::vector<Node>& out) {
    const std::string& op = n.op_type;
    if (op == "BatchNormalization" && since == 9) {
      if (const Attribute* a = value_attr(n, "spatial"); a && a->as_int() != 1)
        throw Error("BatchNormalization with spatial = 0 has no equivalent from opset 9 on");
      drop(n, "spatial");
      return true;
    }
    if (op == "BatchNormalization" && since == 14) {
      for (std::size_t i = 1; i < n.outputs.size(); ++i)
        if (n.has_output(i))
          throw Error("BatchNormalization's training outputs (mean, var, saved_mean, saved_var) have no equivalent "
                      "from opset 14 on");
      const bool trimmed = n.outputs.size() > 1;
      n.outputs.resize(1);
      return trimmed;
    }
    if (op == "Upsample" && since == 9) {
      const Attribute* a = value_attr(n, "scales");
      if (!a) throw Error("Upsample without scales");
      const auto s = a->as_floats();
      drop(n, "scales");
      set_input(n, 1, constant(Tensor::from_values<float>("", {static_cast<std::int64_t>(s.size())}, std::span<const float>(s)),
                               base(n, "scales"), out));
      return true;
    }
    if (op == "Upsample" && since == 10) {
      n.op_type = "Resize";  // Resize-10 takes Upsample-9's inputs and mode
      return true;
    }
    if (op == "Scan" && since == 9) return scan_9(n, out);
    if (op == "Slice" && since == 10) {
      if (!value_attr(n, "starts") || !value_attr(n, "ends")) throw Error("Slice without starts or ends");
      (void)ints_to_input(n, "starts", 1, out);
      (void)ints_to_input(n, "ends", 2, out);
      (void)ints_to_input(n, "axes", 3, out);
      return true;
    }
    if (op == "TopK" && since == 10) {
      const Attribute* k = value_attr(n, "k");
      if (!k) throw Error("TopK without k");
      const auto v = k->as_int();
      drop(n, "k");
      set_input(n, 1, ints({v}, false, base(n, "k"), out));
      return true;
    }
    if (op == "Resize" && since == 11) {
      // Resize-10 maps output coordinates to input ones as x_in = x_out / scale.
      if (!n.find_attribute("coordinate_transformation_mode"))
        n.set_attribute(Attribute("coordinate_transformation_mode", "asymmetric"));
      // Its nearest rounding (not spelled out by the spec; ONNX Runtime's and onnx's own Resize-10
      // tests) takes the lower pixel when enlarging and the upper one when shrinking.
      if (n.attribute_or("mode", std::string_view("nearest")) == "nearest" && !n.find_attribute("nearest_mode"))
        n.set_attribute(Attribute("nearest_mode", nearest_rounding_10(n)));
      // roi sits between X and scales; Resize-11 requires it (Resize-13 lets it be omitted).
      const std::string scales = n.inputs.size() > 1 ? n.inputs[1] : std::string();
      n.inputs.resize(1);
      set_input(n, 1, constant(Tensor::from_values<float>("", {0}, std::span<const float>()), base(n, "roi"), out));
      set_input(n, 2, scales);
      return true;
    }
    if (op == "Clip" && since == 11) {
      const Attribute* lo = value_attr(n, "min");
      const Attribute* hi = value_attr(n, "max");
      if (!lo && !hi) return false;
      const DataType t = elem_type(n, 0, "Clip-11 takes min and max as tensors of that type");
      const float lov = lo ? lo->as_float() : 0.f, hiv = hi ? hi->as_float() : 0.f;
      drop(n, "min");
      drop(n, "max");
      n.inputs.resize(1);
      if (lo) set_input(n, 1, float_scalar(lov, t, base(n, "min"), out));
      if (hi) set_input(n, 2, float_scalar(hiv, t, base(n, "max"), out));
      return true;
    }
    if (op == "Pad" && since == 11) {
      const Attribute* pads = value_attr(n, "pads");
      if (!pads) throw Error("Pad without pads");
      const auto p = pads->as_ints();
      const Attribute* value = value_attr(n, "value");
      const float v = value ? value->as_float() : 0.f;
      drop(n, "pads");
      drop(n, "value");
      set_input(n, 1, ints(p, false, base(n, "pads"), out));
      if (v != 0.f) set_input(n, 2, float_scalar(v, elem_type(n, 0, "Pad-11 takes the value as a tensor of that type"),
                                                 base(n, "value"), out));
      return true;
    }
    if (op == "Scatter" && since == 11) {
      n.op_type = "ScatterElements";  // the same operator, renamed
      return true;
    }
    if (op == "Dropout" && since == 12) {
      const Attribute* r = value_attr(n, "ratio");
      if (!r) return false;
      const float v = r->as_float();
      drop(n, "ratio");
      set_input(n, 1, float_scalar(v, DataType::FLOAT, base(n, "ratio"), out));
      return true;
    }
    if (op == "Split" && since == 13) return ints_to_input(n, "split", 1, out);
    if (op == "Split" && since == 18) {
      // Without sizes, Split-18 needs the number of parts said.
      if (n.has_input(1) || n.find_attribute("num_outputs")) return false;
      n.set_attribute(Attribute("num_outputs", static_cast<std::int64_t>(n.outputs.size())));
      return true;
    }
    if ((op == "Squeeze" || op == "Unsqueeze") && since == 13) return ints_to_input(n, "axes", 1, out);
    if (op == "ReduceSum" && since == 13) return ints_to_input(n, "axes", 1, out);
    if ((op == "ReduceMax" || op == "ReduceMin" || op == "ReduceMean" || op == "ReduceProd" || op == "ReduceL1" ||
         op == "ReduceL2" || op == "ReduceLogSum" || op == "ReduceLogSumExp" || op == "ReduceSumSquare") &&
        since == 18)
      return ints_to_input(n, "axes", 1, out);
    if ((op == "Softmax" || op == "LogSoftmax" || op == "Hardmax") && since == 13) return softmax_13(n, out);
    if (op == "RoiAlign" && since == 16) {
      // The new default, half_pixel, shifts coordinates by half a pixel; before 16 they were not.
      if (n.find_attribute("coordinate_transformation_mode")) return false;
      n.set_attribute(Attribute("coordinate_transformation_mode", "output_half_pixel"));
      return true;
    }
    if (op == "GridSample" && since == 20) {
      const std::string mode = n.attribute_or("mode", std::string_view("bilinear"));
      if (mode == "bilinear") n.set_attribute(Attribute("mode", "linear"));
      else if (mode == "bicubic") n.set_attribute(Attribute("mode", "cubic"));
      return mode != "nearest";
    }
    if (op == "DFT" && since == 20) {
      const Attribute* a = value_attr(n, "axis");
      const std::int64_t axis = a ? a->as_int() : 1;  // DFT-17's default; DFT-20's is -2
      drop(n, "axis");
      set_input(n, 2, ints({axis}, true, base(n, "axis"), out));
      return true;
    }
    if (op == "GroupNormalization" && since == 21) return group_normalization_21(n, out);
    return false;
  }

  /// Scan-8 iterates over a batch axis (axis 0 of every input and output) and scans axis 1;
  /// Scan-9 has no batch axis. The node becomes a Loop over the batch whose body takes batch
  /// element b of every input (Gather), runs Scan-9 on them with the same body, and hands the
  /// results out as scan outputs, which Loop stacks along a new axis 0 again.
  bool scan_9(Node& n, std::vector<Node>& out) {
    if (n.has_input(0))
      throw Error("Scan-8's sequence_lens (sequences of different lengths in one batch) has no equivalent from "
                  "opset 9 on");
    const Attribute* body = value_attr(n, "body");
    const Attribute* num_scan = value_attr(n, "num_scan_inputs");
    if (!body || body->kind() != AttributeType::GRAPH || !num_scan)
      throw Error("Scan without a body graph or num_scan_inputs");
    if (n.inputs.size() < 2) throw Error("Scan without inputs");
    for (std::size_t i = 1; i < n.inputs.size(); ++i)
      if (n.inputs[i].empty()) throw Error("Scan with input " + std::to_string(i) + " missing");
    const Graph& old_body = body->as_graph();

    // The batch size, from the first input's shape.
    const std::string shape = fresh(base(n, "batch_shape"));
    out.push_back(Node("Shape", {n.inputs[1]}, {shape}));
    const std::string zero = ints({0}, true, base(n, "batch_axis"), out);
    const std::string batch = fresh(base(n, "batch_size"));
    out.push_back(Node("Gather", {shape, zero}, {batch}));
    report.nodes_added += 2;

    Graph lb;
    lb.name = fresh(base(n, "batch_loop"));
    const std::string iter = fresh(base(n, "b")), cond = fresh(base(n, "cond"));
    lb.inputs.emplace_back(iter, Type::tensor(DataType::INT64, Shape{}));
    lb.inputs.emplace_back(cond, Type::tensor(DataType::BOOL, Shape{}));
    const std::string cond_out = fresh(base(n, "cond_out"));
    lb.outputs.emplace_back(cond_out, Type::tensor(DataType::BOOL, Shape{}));
    lb.nodes.push_back(Node("Identity", {cond}, {cond_out}));
    std::vector<std::string> per_batch;
    for (std::size_t i = 1; i < n.inputs.size(); ++i) {
      per_batch.push_back(fresh(n.inputs[i] + "_b"));
      lb.nodes.push_back(Node("Gather", {n.inputs[i], iter}, {per_batch.back()}));
    }
    std::vector<std::string> results;
    for (std::size_t k = 0; k < n.outputs.size(); ++k) {
      results.push_back(fresh((n.outputs[k].empty() ? base(n, "output") : n.outputs[k]) + "_b"));
      // The body's output types give the element types (the shapes lose the batch axis).
      const ValueInfo* declared = k < old_body.outputs.size() ? &old_body.outputs[k] : nullptr;
      const DataType t = declared && declared->type ? declared->type->elem_type() : DataType::UNDEFINED;
      lb.outputs.push_back(t == DataType::UNDEFINED ? ValueInfo(results.back()) : ValueInfo(results.back(), Type::tensor(t)));
    }
    Node scan("Scan", per_batch, results);
    scan.name = n.name.empty() ? std::string() : n.name + "_per_batch";
    for (auto& a : n.attributes) {
      if (a.name == "directions") a.name = "scan_input_directions";
      scan.attributes.push_back(std::move(a));
    }
    lb.nodes.push_back(std::move(scan));
    report.nodes_added += n.inputs.size() + 1;  // the Gathers, the Identity and the Scan in the body

    Node loop("Loop", {batch, ""}, n.outputs);
    loop.name = n.name;
    loop.domain = n.domain;
    loop.set_attribute(Attribute("body", std::move(lb)));
    n = std::move(loop);
    return true;
  }

  /// GroupNormalization-18 takes scale and bias per group ([num_groups]), -21 per channel ([C]):
  /// each is repeated C / num_groups times in place (Unsqueeze to [G, 1], Expand to [G, C/G],
  /// Reshape to [C]), C read from X's shape. -21's stash_type default (float) normalizes
  /// 16-bit inputs in float; -18 computed in the input's type.
  bool group_normalization_21(Node& n, std::vector<Node>& out) {
    const Attribute* g = value_attr(n, "num_groups");
    if (!g) throw Error("GroupNormalization without num_groups");
    if (!n.has_input(0) || !n.has_input(1) || !n.has_input(2))
      throw Error("GroupNormalization without X, scale or bias");
    const std::int64_t groups = g->as_int();
    const std::string channels = fresh(base(n, "channels"));
    Node shape("Shape", {n.inputs[0]}, {channels});
    shape.set_attribute(Attribute("start", std::int64_t{1}));
    shape.set_attribute(Attribute("end", std::int64_t{2}));
    out.push_back(std::move(shape));
    const std::string group_count = ints({groups}, false, base(n, "num_groups"), out);
    const std::string per_group = fresh(base(n, "channels_per_group"));
    out.push_back(Node("Div", {channels, group_count}, {per_group}));
    const std::string grid = fresh(base(n, "group_grid"));
    Node concat("Concat", {group_count, per_group}, {grid});
    concat.set_attribute(Attribute("axis", std::int64_t{0}));
    out.push_back(std::move(concat));
    const std::string axis1 = ints({1}, false, base(n, "group_axis"), out);
    const std::string flat = ints({-1}, false, base(n, "flat"), out);
    report.nodes_added += 3;
    for (std::size_t i : {std::size_t{1}, std::size_t{2}}) {
      const std::string what = i == 1 ? "scale" : "bias";
      const std::string column = fresh(base(n, what + "_column"));
      out.push_back(Node("Unsqueeze", {n.inputs[i], axis1}, {column}));
      const std::string spread = fresh(base(n, what + "_spread"));
      out.push_back(Node("Expand", {column, grid}, {spread}));
      const std::string per_channel = fresh(base(n, what + "_per_channel"));
      out.push_back(Node("Reshape", {spread, flat}, {per_channel}));
      n.inputs[i] = per_channel;
      report.nodes_added += 3;
    }
    return true;
  }

  /// Resize-10's nearest rounding as a Resize-11 nearest_mode: "floor" when no scale is below 1,
  /// "ceil" when none is above 1 (scales of 1 map pixels to themselves either way).
  std::string nearest_rounding_10(const Node& n) {
    if (from_upsample_) return "floor";
    const Tensor* it = n.has_input(1) ? constant_of(n.inputs[1]) : nullptr;
    if (!it || it->data_type != DataType::FLOAT)
      throw Error("Resize-10 in nearest mode rounds up when shrinking and down when enlarging; its scales are not "
                  "a constant, so opset 11's nearest_mode cannot be chosen");
    const auto mode = rounding_10(*it);
    if (!mode)
      throw Error("Resize-10 in nearest mode shrinks some axes and enlarges others: no single nearest_mode of "
                  "opset 11 rounds as it does");
    return *mode;
  }

  /// The nearest_mode that rounds as Resize-10 does at these (float) scales: "floor" when none is
  /// below 1, "ceil" when none is above 1; nullopt when they shrink some axes and enlarge others.
  static std::optional<std::string> rounding_10(const Tensor& scales) {
    bool up = false, down = false;
    for (const float x : scales.values<float>()) {
      up = up || x > 1.f;
      down = down || x < 1.f;
    }
    if (up && down) return std::nullopt;
    return down ? "ceil" : "floor";
  }

  /// Softmax, LogSoftmax, Hardmax before 13 flatten the input to 2-D at `axis` and normalize each
  /// row; from 13 they normalize along `axis` alone. The same when `axis` is the last axis;
  /// otherwise Flatten, normalize the rows, and Reshape back.
  bool softmax_13(Node& n, std::vector<Node>& out) {
    const Attribute* a = value_attr(n, "axis");
    const std::int64_t axis = a ? a->as_int() : 1;
    const Type* t = n.has_input(0) ? type_of(n.inputs[0]) : nullptr;
    const Shape* s = t ? t->shape() : nullptr;
    if (s) {
      const auto rank = static_cast<std::int64_t>(s->rank());
      if (axis == rank - 1 || axis == -1 || (rank == 0 && axis == 0)) {
        n.set_attribute(Attribute("axis", std::int64_t{-1}));
        return true;
      }
    }
    if (!n.has_input(0) || !n.has_output(0)) throw Error(n.op_type + " without input or output");
    const std::string shape = fresh(base(n, "shape"));
    out.push_back(Node("Shape", {n.inputs[0]}, {shape}));
    const std::string flat = fresh(base(n, "flat"));
    Node f("Flatten", {n.inputs[0]}, {flat});
    f.set_attribute(Attribute("axis", axis));
    out.push_back(std::move(f));
    const std::string rows = fresh(base(n, "rows"));
    const std::string y = n.outputs[0];
    Node r("Reshape", {rows, shape}, {y});
    n.inputs[0] = flat;
    n.outputs[0] = rows;
    n.set_attribute(Attribute("axis", std::int64_t{1}));
    pending_after_.push_back(std::move(r));
    report.nodes_added += 3;
    return true;
  }

 public:
  /// Nodes to insert after the node just adapted (the Softmax family's Reshape back).
  std::vector<Node> pending_after_;

 private:
  const Model& model_;
  std::int64_t from_, to_;
  std::unordered_set<std::string> taken_;
  std::unordered_map<std::string, std::size_t> next_suffix_;
  std::unordered_map<std::string, std::unordered_map<std::string, const Tensor*>> scoped_constants_;  // by graph path
  std::unordered_map<std::string, const Tensor*> made_constants_;  // into made_
  std::vector<std::string> scopes_;  // paths of the graph being converted and those around it
  std::deque<Tensor> made_;                                   // the constants inserted
  Origins origins_;                                           // see origins()
  std::unordered_set<std::string> overridable_;               // the main graph's inputs
  std::unordered_map<std::string, std::vector<std::pair<std::int64_t, bool>>> versions_;
  bool from_upsample_ = false;  // the node being upgraded was an Upsample (its scales are >= 1)
  std::unordered_map<std::string, std::unordered_map<std::string, const Type*>> scoped_types_;  // by graph path
  bool typed_ = false;
  Model typed_model_;
  std::deque<Type> type_store_;  // initializers' types (a deque: pointers stay valid)
};

}  // namespace detail::upgrade

namespace detail::upgrade {

/// The walk upgrade_opset and downgrade_opset share: every default-domain node of the main graph,
/// its subgraphs and the functions importing the domain (at the model's version), converted from
/// `from` to `target`, and the imports set to `target`. Returns the converted copy.
inline Model convert(const Model& model, std::int64_t from, std::int64_t target, UpgradeReport& report,
                     Origins* origins = nullptr) {
  Model m = model;
  Upgrader up(model, from, target);
  auto run = [&](std::vector<Node>& nodes, const std::string& path) { up.nodes(nodes, path, 0); };
  run(m.graph.nodes, "graph");
  for (std::size_t i = 0; i < m.functions.size(); ++i) {
    auto& f = m.functions[i];
    const auto fv = f.opset_version("");
    if (!fv) continue;
    if (*fv != from)
      throw Error("functions[" + std::to_string(i) + "]", "imports the default domain at opset " +
                                                             std::to_string(*fv) + ", the model at " +
                                                             std::to_string(from));
    run(f.nodes, "functions[" + std::to_string(i) + "]");
    for (auto& o : f.opset_imports)
      if (is_default_domain(o.domain)) o.version = target;
  }
  for (auto& o : m.opset_imports)  // every entry of the domain (a file may repeat one)
    if (is_default_domain(o.domain)) o.version = target;
  report.nodes_rewritten = up.report.nodes_rewritten;
  report.nodes_added = up.report.nodes_added;
  if (origins) *origins = up.origins();
  return m;
}

/// A field path into the converted model `after` (as inference reports it: "graph.node[7]",
/// "graph.node[2].attribute[0].g.node[4].input[1]", "graph.node[1]{function d::f}.node[3]") as a
/// path into the model before conversion, by `origins`; `made` tells whether its last node is
/// one the conversion made. Segments past one it cannot map stay as they are.
inline std::string original_path(const std::string& where, const Model& after, const Origins& origins, bool& made) {
  made = false;
  const auto first = where.find_first_of(".{");
  std::string out = where.substr(0, first), key = out, node_key;  // key: the graph's, as origins has it
  std::size_t p = first == std::string::npos ? where.size() : first;
  auto at = [&](std::string_view s) { return where.compare(p, s.size(), s) == 0; };
  // The number in brackets opening at `open`; p moves past the ']'.
  auto number = [&](std::size_t open) -> std::optional<std::size_t> {
    const auto close = where.find(']', open);
    if (close == std::string::npos || close == open + 1 || close - open > 16) return std::nullopt;
    std::size_t v = 0;
    for (std::size_t k = open + 1; k < close; ++k) {
      if (where[k] < '0' || where[k] > '9') return std::nullopt;
      v = v * 10 + static_cast<std::size_t>(where[k] - '0');
    }
    p = close + 1;
    return v;
  };
  while (p < where.size()) {
    const std::size_t start = p;
    if (at(".node[")) {
      const auto k = number(p + 5);
      if (!k) {
        p = start;
        break;
      }
      const auto it = key.empty() ? origins.end() : origins.find(key);
      if (it != origins.end() && *k < it->second.size()) {
        const Origin o = it->second[*k];
        node_key = key + ".node[" + std::to_string(o.index) + "]";
        out += ".node[" + std::to_string(o.index) + "]";
        made = o.made;
        continue;
      }
      key.clear();  // not mapped: the rest as it is
      made = false;
    } else if (at(".attribute[")) {
      if (!number(p + 10) || (at(".graphs[") && !number(p + 7))) {
        p = start;
        break;
      }
      if (at(".g") && !at(".graphs[")) p += 2;
      if (!key.empty()) key = node_key + where.substr(start, p - start);
    } else if (where[p] == '{') {  // "{function domain::name}": that function's body
      const auto close = where.find('}', p);
      if (close == std::string::npos) break;  // (p is start)
      const std::string_view call(where.data() + p, close + 1 - p);
      key.clear();
      for (std::size_t f = 0; f < after.functions.size() && key.empty(); ++f)
        if (call == "{function " + after.functions[f].domain + "::" + after.functions[f].name + "}")
          key = "functions[" + std::to_string(f) + "]";
      p = close + 1;
    } else {  // another field (".input[1]"): as it is
      p = where.find_first_of(".{", p + 1);
      if (p == std::string::npos) p = where.size();
      key.clear();
    }
    out += where.substr(start, p - start);
  }
  if (p < where.size()) out += where.substr(p);
  return out;
}

/// The diagnostics of kinds TypeConstraint and InvalidNode (types a version does not allow,
/// attributes it does not define, inputs it does not take) that inference reports on `after` and
/// not on `before`: the first one, as an error naming where.
inline void no_new_type_errors(const Model& before, const Model& after, std::int64_t target, const Origins& origins) {
  auto problems = [](const Model& m) {
    Model copy = m;
    InferOptions o;
    o.max_diagnostics = 4096;
    auto r = infer_shapes(copy, o);
    std::vector<infer::Diagnostic> out;
    for (auto& d : r.diagnostics)
      if (d.kind == infer::DiagnosticKind::TypeConstraint || d.kind == infer::DiagnosticKind::InvalidNode)
        out.push_back(std::move(d));
    return out;
  };
  std::unordered_set<std::string> known;
  for (const auto& d : problems(before)) known.insert(d.op_type + "\n" + d.node + "\n" + d.message);
  for (const auto& d : problems(after))
    if (!known.contains(d.op_type + "\n" + d.node + "\n" + d.message)) {
      // Named where the model had it: the converted graph has the nodes the conversion made too.
      bool made = false;
      const std::string where = original_path(d.where, after, origins, made);
      throw Error(where, "at opset " + std::to_string(target) + ", " +
                             (made ? "the " + d.op_type + " its older spelling adds"
                                   : d.op_type + (d.node.empty() ? std::string() : " '" + d.node + "'")) +
                             ": " + d.message);
    }
}

}  // namespace detail::upgrade

/// Converts `model` to opset `target` of the default ONNX domain (imported as "" or "ai.onnx"),
/// from the version it imports (at least 1): every node of that domain, in the main graph, in
/// subgraphs and in the model-local functions that import the domain too, is rewritten where its
/// operator changed incompatibly between the two versions:
/// - up to opset 7: `consumed_inputs` dropped (5, 6); the legacy broadcast of the binary
///   operators (`broadcast`, `axis`) becomes numpy's, B getting trailing size-1 axes by an
///   Unsqueeze when `axis` placed it before A's end, and PRelu's one-dimensional slope, per
///   channel before 7, becomes [C, 1, ...] (7; the ranks must be declared or inferable); Gemm's
///   `broadcast`, Dropout's and BatchNormalization's `is_test` (test mode only), and the RNNs'
///   `output_sequence` dropped (7); Pad's `paddings` renamed `pads`, Split-1's sizes input made
///   an attribute (constant only), LpPool's float `p` made an integer (2); Concat's default axis
///   1 written out (4); Reshape's `shape` made an input (5); Cast's `to` by name made a number,
///   Tile-1's (tiles, axis) made repeats (constant only), Selu-1's defaults written out (6);
///   Upsample-1's `height_scale`/`width_scale` made `scales`, `bilinear` renamed `linear` (7);
/// - attributes that became inputs move into Constant nodes read by the node: Upsample's scales
///   (9), Slice's starts/ends/axes and TopK's k (10), Clip's min/max and Pad's pads/value (11, as
///   tensors of the input's element type, which must be declared or inferable), Dropout's ratio
///   (12), Split's split, Squeeze/Unsqueeze's axes and ReduceSum's axes (13), the other Reduce
///   operators' axes (18), DFT's axis (20);
/// - operators replaced: Upsample by Resize (10), Scatter by ScatterElements (11);
/// - defaults and meanings that changed, kept as they were: Resize-10's coordinate mapping
///   (asymmetric, nearest rounding down) and its roi input (11), the 2-D flattening of Softmax,
///   LogSoftmax and Hardmax (13: the same when the axis is the last, else Flatten, the operator,
///   and a Reshape back), RoiAlign's coordinate mode (16), GridSample's mode names (20);
///   BatchNormalization's spatial attribute (9, only spatial = 1) and unused training outputs (14);
/// - Scan-8's batch axis (9): a Loop over the batch running Scan-9 on each batch element;
/// - GroupNormalization's scale and bias per group (21): repeated per channel by nodes reading
///   the channel count from X's shape.
/// Every other version step of the operators used is compatible (new types, new attributes and
/// optional inputs whose defaults keep the old behaviour). Throws oxir::Error naming the node,
/// with `model` unchanged, for what it cannot convert: a target older than the model's opset
/// (no downgrades), beyond kUpgradeNewestOpset, Scan-8 with sequence_lens, BatchNormalization-6
/// in training mode with only Y, BatchNormalization with spatial = 0 or with training outputs,
/// Tile-1 or Split-1 whose sizes are not constants, an operator unknown at the model's opset or removed without replacement, a node with
/// more inputs or outputs than its operator's version defines, and an attribute to
/// move that refers to a function attribute.
inline UpgradeReport upgrade_opset(Model& model, std::int64_t target) {
  const auto from = model.opset_version("");
  if (!from) throw Error("opset_import", "the model does not import the default ONNX domain");
  if (*from < kUpgradeOldestOpset)
    throw Error("opset_import", "upgrading from opset " + std::to_string(*from) + " is not supported (oldest: " +
                                    std::to_string(kUpgradeOldestOpset) + ")");
  if (target > kUpgradeNewestOpset)
    throw Error("opset " + std::to_string(target) + " is beyond the newest oxir knows (" +
                std::to_string(kUpgradeNewestOpset) + ")");
  if (target < *from)
    throw Error("opset_import", "the model is at opset " + std::to_string(*from) + "; downgrade_opset reaches " +
                                    std::to_string(target));
  UpgradeReport report;
  report.from = *from;
  report.to = target;
  if (target == *from) return report;

  Model m = detail::upgrade::convert(model, *from, target, report);
  const std::int64_t ir_needed = detail::upgrade::ir_of_opset(target);
  if (m.ir_version < 3 && ir_needed >= 3) {
    // Below IR 3 a node of another domain was tied to no import; from IR 3 on every domain a node
    // uses is imported. Such a domain gets its first version, 1.
    for (const Node& n : views::all_nodes(m.graph))
      if (!n.domain.empty() && !m.opset_version(n.domain)) m.set_opset_version(n.domain, 1);
  }
  if (m.ir_version < ir_needed) m.ir_version = ir_needed;
  if (m.ir_version >= 2) type_untyped_attributes(m);  // (an IR 1 model's attributes have no type field)
  model = std::move(m);
  return report;
}

/// Oldest opset downgrade_opset converts to.
inline constexpr std::int64_t kDowngradeOldestOpset = 7;

namespace detail::upgrade {

/// The walk behind required_ir_version: `need` rises to the IR version of each feature met;
/// `unknown` is set by a field from a schema oxir does not know.
struct IrNeeds {
  std::int64_t need = 3;
  bool unknown = false;
  int depth = 0;

  void at_least(std::int64_t v) { need = std::max(need, v); }
  void fields(const UnknownFields& u) {
    if (!u.empty()) unknown = true;
  }
  void entries(const std::vector<StringStringEntry>& v, std::int64_t since) {
    if (!v.empty()) at_least(since);
    for (const auto& e : v) fields(e.unknown_fields);
  }
  void data_type(DataType d) {
    switch (d) {
      case DataType::BFLOAT16: at_least(4); break;
      case DataType::FLOAT8E4M3FN: case DataType::FLOAT8E4M3FNUZ: case DataType::FLOAT8E5M2:
      case DataType::FLOAT8E5M2FNUZ: at_least(9); break;
      case DataType::UINT4: case DataType::INT4: at_least(10); break;
      case DataType::FLOAT4E2M1: at_least(11); break;
      case DataType::FLOAT8E8M0: at_least(12); break;
      case DataType::UINT2: case DataType::INT2: at_least(13); break;
      default: if (static_cast<std::int32_t>(d) > 26) unknown = true;
    }
  }
  void shape(const std::optional<Shape>& s) {
    if (!s) return;
    fields(s->unknown_fields);
    for (const auto& d : s->dims) fields(d.unknown_fields);
  }
  void type(const Type& t) {
    if (++depth > kMaxDepth) unknown = true;
    else {
      fields(t.unknown_fields);
      std::visit(
          [&](const auto& v) {
            using V = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<V, TensorType> || std::is_same_v<V, SparseTensorType>) {
              if constexpr (std::is_same_v<V, SparseTensorType>) at_least(8);
              fields(v.unknown_fields);
              data_type(v.elem_type);
              shape(v.shape);
            } else if constexpr (std::is_same_v<V, SequenceType> || std::is_same_v<V, OptionalType>) {
              if constexpr (std::is_same_v<V, OptionalType>) at_least(8);
              fields(v.unknown_fields);
              if (v.elem_type) type(*v.elem_type);
            } else if constexpr (std::is_same_v<V, MapType>) {
              fields(v.unknown_fields);
              data_type(v.key_type);
              if (v.value_type) type(*v.value_type);
            } else if constexpr (std::is_same_v<V, OpaqueType>) {
              fields(v.unknown_fields);
            }
          },
          t.value);
    }
    --depth;
  }
  void tensor(const Tensor& t) {
    fields(t.unknown_fields);
    if (t.segment) fields(t.segment->unknown_fields);
    data_type(t.data_type);
    if (!t.external_data.empty() || t.is_external()) at_least(4);  // external data came with ONNX 1.4
    entries(t.external_data, 4);
    entries(t.metadata_props, 10);
  }
  void sparse(const SparseTensor& t) {
    at_least(6);
    fields(t.unknown_fields);
    tensor(t.values);
    tensor(t.indices);
  }
  void value_info(const ValueInfo& v) {
    fields(v.unknown_fields);
    entries(v.metadata_props, 10);
    if (v.type) type(*v.type);
  }
  void attribute(const Attribute& a) {
    fields(a.unknown_fields);
    std::visit(
        [&](const auto& v) {
          using V = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<V, Box<Tensor>>) {
            if (v) tensor(*v);
          } else if constexpr (std::is_same_v<V, std::vector<Tensor>>) {
            for (const auto& t : v) tensor(t);
          } else if constexpr (std::is_same_v<V, Box<Graph>>) {
            if (v) graph(*v);
          } else if constexpr (std::is_same_v<V, std::vector<Graph>>) {
            for (const auto& g : v) graph(g);
          } else if constexpr (std::is_same_v<V, Box<SparseTensor>>) {
            if (v) sparse(*v);
          } else if constexpr (std::is_same_v<V, std::vector<SparseTensor>>) {
            if (!v.empty()) at_least(6);
            for (const auto& t : v) sparse(t);
          } else if constexpr (std::is_same_v<V, Box<Type>>) {
            at_least(7);  // TypeProto attributes came with ONNX 1.7 (taken as late as may be)
            if (v) type(*v);
          } else if constexpr (std::is_same_v<V, std::vector<Type>>) {
            at_least(7);
            for (const auto& t : v) type(t);
          }
        },
        a.value);
  }
  void nodes(const std::vector<Node>& ns) {
    for (const auto& n : ns) {
      fields(n.unknown_fields);
      if (!n.overload.empty()) at_least(10);
      entries(n.metadata_props, 10);
      if (!n.device_configurations.empty()) at_least(11);
      for (const auto& a : n.attributes) attribute(a);
    }
  }
  void graph(const Graph& g) {
    if (++depth > kMaxDepth) unknown = true;
    else {
      fields(g.unknown_fields);
      nodes(g.nodes);
      for (const auto& t : g.initializers) tensor(t);
      for (const auto& t : g.sparse_initializers) sparse(t);
      if (!g.quantization_annotation.empty()) at_least(5);
      for (const auto& q : g.quantization_annotation) {
        fields(q.unknown_fields);
        entries(q.quant_parameter_tensor_names, 5);
      }
      entries(g.metadata_props, 10);
      for (const auto* list : {&g.inputs, &g.outputs, &g.value_info})
        for (const auto& v : *list) value_info(v);
      // Before IR 4 every initializer was also a graph input.
      if (!g.initializers.empty()) {
        std::unordered_set<std::string_view> inputs;
        for (const auto& v : g.inputs) inputs.insert(v.name);
        for (const auto& t : g.initializers)
          if (!inputs.contains(t.name)) {
            at_least(4);
            break;
          }
      }
    }
    --depth;
  }
};

}  // namespace detail::upgrade

/// The lowest IR version whose schema holds everything in `model`: 3 (operator-set imports)
/// or the version that brought the newest feature it uses (initializers that are not graph
/// inputs, bfloat16 or external data 4; quantization annotations 5; sparse tensors 6; training
/// information or type attributes 7; model-local functions, optional and sparse tensor types 8;
/// function attribute defaults and float 8 types 9; 4-bit types, overloads, metadata on graphs,
/// nodes, values and tensors, function value_info 10; float 4 and device configurations 11; the
/// E8M0 float 12; 2-bit types 13). A model carrying fields oxir does not know (a newer schema's)
/// keeps its own version: required_ir_version returns `model.ir_version` then.
inline std::int64_t required_ir_version(const Model& model) {
  detail::upgrade::IrNeeds w;
  w.fields(model.unknown_fields);
  for (const auto& o : model.opset_imports) w.fields(o.unknown_fields);
  w.entries(model.metadata_props, 1);
  w.graph(model.graph);
  if (!model.training_info.empty()) w.at_least(7);
  for (const auto& t : model.training_info) {
    w.fields(t.unknown_fields);
    w.graph(t.initialization);
    w.graph(t.algorithm);
    w.entries(t.initialization_binding, 7);
    w.entries(t.update_binding, 7);
  }
  if (!model.functions.empty()) w.at_least(8);
  for (const auto& f : model.functions) {
    w.fields(f.unknown_fields);
    for (const auto& o : f.opset_imports) w.fields(o.unknown_fields);
    if (!f.attribute_protos.empty()) w.at_least(9);
    for (const auto& a : f.attribute_protos) w.attribute(a);
    if (!f.overload.empty()) w.at_least(10);
    if (!f.value_info.empty()) w.at_least(10);
    for (const auto& v : f.value_info) w.value_info(v);
    w.entries(f.metadata_props, 10);
    w.nodes(f.nodes);
  }
  if (!model.configuration.empty()) w.at_least(11);
  for (const auto& c : model.configuration) w.fields(c.unknown_fields);
  return w.unknown ? model.ir_version : w.need;
}

/// Converts `model` to the older opset `target` (at least 7) of the default ONNX domain, undoing
/// the version steps of its operators between the two, newest first, in the main graph,
/// subgraphs and the model-local functions importing the domain:
/// - inputs that were attributes before become attributes again, when they are constants
///   (initializers that are not graph inputs, Constant nodes): the Reduce operators' axes (18;
///   ReduceSum 13), Squeeze/Unsqueeze's axes and Split's sizes (13), Clip's min/max and Pad's
///   pads/value (11), Dropout's ratio (12), Slice's starts/ends/axes (10; steps must be 1), TopK's
///   k (10), Upsample's scales (9), DFT's axis (20);
/// - replaced operators come back: Resize-10 as Upsample (9), ScatterElements as Scatter (11);
///   Resize-11 as Resize-10 only with nearest or linear mode, asymmetric coordinates, scales, and
///   (nearest) the rounding Resize-10 has, or nearest half_pixel coordinates at whole scales
///   (sizes of whole multiples of known input sizes as scales); Resize-13's optional roi and scales written out;
/// - older forms built of several nodes: Softmax, LogSoftmax and Hardmax along an axis other than
///   the last between two Transposes (13), Shape's start/end as a Slice of the whole shape (15),
///   ArgMax/ArgMin's select_last_index as d - 1 - the index in the input reversed by a Slice (12;
///   a Gather before opset 10; the axis' size a number), Max and Min of integers through float
///   or double, or (64 bits, from 9) as Where chains (12), Clip of integers through float or
///   double (12), Equal of floats by Less and Greater
///   with a NaN test (11), ThresholdedRelu as a Where (10, to 9), MeanVarianceNormalization as
///   its definition (9), Constants of integers or bools
///   as double ones cast back (9; values up to 2^53), the pools' ceil_mode as larger end pads
///   (10; spatial sizes numbers);
/// - meanings kept: Softmax, LogSoftmax and Hardmax along the last axis (13), negative axes
///   counted from the front where the rank is known (11), GridSample's mode names (20), Gemm's C
///   made a zero when absent (11), Constant's value_float/ints/... as a tensor (12), attributes
///   at their defaults dropped (Reshape's allowzero 14, Shape's start 15, TopK's sorted 11, the
///   pools' dilations 10/19 and ceil_mode 10 (0), ArgMax's select_last_index 12, Cast's saturate 19,
///   BatchNormalization's training_mode 14, Resize's antialias 18, ...);
/// - operators newer than `target` that ONNX defines as functions of older ones, spelled in those:
///   CastLike (a Cast to the second input's element type), GreaterOrEqual/LessOrEqual (Or of
///   Greater/Less and Equal; of floats below 11, Not(Less/Greater) and a NaN test), HardSwish, Mish, Swish, Celu, Gelu (tanh form at any target, erf
///   form from 9), LayerNormalization and RMSNormalization (X's rank known), Trilu (a Where
///   from 9, the last two sizes numbers or, from 11, read by Shape), GroupNormalization (InstanceNormalization over X
///   reshaped to [N, G, -1]; also from 21 to 18-20, where the per-channel scale has no form),
///   NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (from 9: the class picked by
///   GatherElements from 11, a OneHot mask before; SoftmaxCrossEntropyLoss' scores' rank known),
///   IsInf (comparisons with the largest finite value), Mod of integers (from 9: a - Div(a, b) * b
///   moved by b to the sign the mode gives; floats refused), GatherElements (from 9: a OneHot
///   mask of the indices picks by Where and ReduceSum; shapes known, the indices' sizes off the
///   axis data's), ConstantOfShape (Expand of a scalar Constant from 8, at 7 a Tile), Range (a
///   Loop adding delta, as ONNX defines it), CumSum (from 9: a Scan-9 along the constant axis),
///   HannWindow, HammingWindow and BlackmanWindow (their cosine sums over Range, in float), Round
///   (from 9: Floor, or Ceil where the fraction is above 1/2 or 1/2 with an odd floor), BitShift
///   (Mul or Div by 2^y, computed by Pow in double; 8- to 32-bit operands through int64);
/// - Pow's exponent of another type than a float base cast to the base's type, an integer base
///   and its exponent cast to double and the power back (12).
/// Refused, naming the node, with `model` unchanged: an operator the model's opset does not have
/// yet, a node with more inputs or outputs than its operator's version defines, any other operator that does not exist at
/// `target` (Einsum below 12, GatherND below 11, ...), an input to make an attribute that is not a
/// constant, and what the older version cannot say (noop_with_empty_axes with no axes, Split-18's
/// uneven num_outputs, TopK's smallest, Pad's wrap mode and axes input, Dropout's training_mode
/// input and bool mask across 10, Resize's other modes and coordinates, other sizes, antialias and axes,
/// ScatterElements' reductions, RoiAlign's half_pixel, GridSample
/// beyond 4-D, Scan across 9, training modes, allowzero with a
/// possible 0, the pools' dilations, Indices and ceil_mode over unknown sizes, per-axis and
/// blocked quantization, a sparse Constant). Last, shape inference runs on the result: a type an
/// operator's version at `target` does not allow (bfloat16 Add before 13, say), or an attribute
/// or input it does not define, refuses the conversion too. The IR version comes down to the one
/// `target` came with (ONNX 1.2's IR 3 for opsets 7 and 8, ..., IR 7 for 13), or to
/// required_ir_version when the model uses something newer; it never goes up.
inline UpgradeReport downgrade_opset(Model& model, std::int64_t target) {
  const auto from = model.opset_version("");
  if (!from) throw Error("opset_import", "the model does not import the default ONNX domain");
  if (target > *from)
    throw Error("opset_import", "the model is at opset " + std::to_string(*from) + "; upgrade_opset reaches " +
                                    std::to_string(target));
  if (target < kDowngradeOldestOpset)
    throw Error("downgrading to opset " + std::to_string(target) + " is not supported (oldest: " +
                std::to_string(kDowngradeOldestOpset) + ")");
  if (*from > kUpgradeNewestOpset)
    throw Error("opset_import", "the model's opset " + std::to_string(*from) + " is beyond the newest oxir converts (" +
                                    std::to_string(kUpgradeNewestOpset) + ")");
  UpgradeReport report;
  report.from = *from;
  report.to = target;
  if (target == *from) return report;
  detail::upgrade::Origins origins;
  Model m = detail::upgrade::convert(model, *from, target, report, &origins);
  detail::upgrade::no_new_type_errors(model, m, target, origins);
  // The IR version comes down to the one the target opset came with, unless the model uses
  // something newer (or fields oxir does not know): a runtime of that time reads it.
  const std::int64_t ir = std::max(required_ir_version(m), detail::upgrade::ir_of_opset(target));
  if (ir < m.ir_version) m.ir_version = ir;
  model = std::move(m);
  return report;
}

}  // namespace oxir
