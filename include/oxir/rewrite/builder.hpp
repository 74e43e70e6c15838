#pragma once
// Builder: appends inputs, initializers, constants, nodes and outputs to a graph or a function the
// way an exporter writes them, choosing fresh unique names, checking that every operator's domain
// is imported and that every value it is given is visible where it is used.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "../core/error.hpp"
#include "../ir/function.hpp"
#include "../ir/graph.hpp"
#include "../ir/model.hpp"
#include "../ir/views.hpp"
#include "edit.hpp"

namespace oxir {

class Builder;
class PatternMatcher;

/// A value a Builder made or was handed: a handle to its name in the graph being built. Cheap to
/// copy; valid while its Builder lives. A default-constructed Value is absent: an omitted optional
/// input, written as the empty name when later inputs follow it and left out when none do.
class Value {
 public:
  Value() = default;

  /// The value's current name ("" when absent). Builder::output may rename a value; handles see it.
  [[nodiscard]] const std::string& name() const;
  /// False for the absent value.
  [[nodiscard]] bool present() const noexcept { return owner_ != nullptr; }
  explicit operator bool() const noexcept { return present(); }
  /// The Builder that made this handle (nullptr when absent).
  [[nodiscard]] const Builder* builder() const noexcept { return owner_; }

  friend bool operator==(const Value& a, const Value& b) noexcept {
    return a.owner_ == b.owner_ && a.id_ == b.id_;
  }

 private:
  friend class Builder;
  Value(const Builder* owner, std::size_t id) noexcept : owner_(owner), id_(id) {}
  const Builder* owner_ = nullptr;
  std::size_t id_ = 0;
};

/// Options of Builder::op and Builder::op_n; every field may be left out:
/// `b.op("Gelu", {x}, {}, {.domain = "com.microsoft"})`.
struct OpOptions {
  // Default member initializers keep -Wmissing-field-initializers quiet for designated initializers.
  std::string domain{};                ///< "" = the default ONNX domain
  std::string name{};                  ///< node name, used as given; "" = a fresh one from the operator type
  std::vector<std::string> outputs{};  ///< output names by position, used as given; missing or "" = fresh names
  std::vector<std::size_t> omitted{};  ///< output positions to leave out (written as "", returned absent)
  std::string overload{};              ///< model-local function overload (IR 10)
  std::string doc_string{};
};

/// Builds into one graph (a Model's main graph, any Graph, or a subgraph made by subgraph()) or
/// into a Function's body. Every name in the model when the Builder is made (values and nodes,
/// in subgraphs too) is reserved, and so is every name it or its subgraph builders make; a fresh
/// name is `<scope>/<hint>`, then `<scope>/<hint>_1`, `_2`, ... on collision. Names added to the
/// model some other way while it lives (by hand, or by a second Builder on the same model) are
/// not seen: build with one Builder at a time. Nodes are appended in the order they are built, which is a topological order
/// whenever the graph was sorted before. The Builder never reorders or drops what is already there.
///
///   Model m;  m.ir_version = 10;  m.set_opset_version("", 21);
///   Builder b(m);
///   Value x = b.input("X", Type::tensor(DataType::FLOAT, {"N", 8}));
///   Value w = b.initializer(Tensor::from_values<float>("W", {8, 4}, weights));
///   Value y = b.op("Relu", {b.op("MatMul", {x, w})});
///   b.output(y, "Y");                      // renames y's value to "Y"
class Builder {
 public:
  /// Builds into `model.graph`; operators must belong to a domain in `model.opset_imports`.
  explicit Builder(Model& model) : Builder(&model.graph, nullptr, &model.opset_imports, nullptr, "graph") {
    reserve_graph_names(model.graph);
  }
  /// Builds into a bare graph; no opset check (there is no model to ask).
  explicit Builder(Graph& graph) : Builder(&graph, nullptr, nullptr, nullptr, "graph") {
    reserve_graph_names(graph);
  }
  /// Builds the body of a model-local function; operators must be imported by the function.
  explicit Builder(Function& function) : Builder(nullptr, &function, &function.opset_imports, nullptr, "function") {
    for (const auto& n : function.inputs) reserve_value(n);
    for (const auto& n : function.outputs) reserve_value(n);
    reserve_nodes(function.nodes);
  }

  Builder(const Builder&) = delete;
  Builder& operator=(const Builder&) = delete;

  // ---------------------------------------------------------------- values of the graph itself

  /// Appends a graph input. The name must be new.
  Value input(std::string name, Type type) {
    require_graph("input(name, type)");
    claim(name, "input");
    graph_->inputs.emplace_back(name, std::move(type));
    return make(std::move(name), kNoProducer);
  }
  /// Appends a formal input of the function being built. The name must be new.
  Value input(std::string name) {
    if (!function_) throw Error(where_, "a graph input needs a type: input(name, type)");
    claim(name, "input");
    function_->inputs.push_back(name);
    return make(std::move(name), kNoProducer);
  }
  /// Appends an initializer (a graph's weight). An empty tensor name gets a fresh "initializer"
  /// name; a given one must be new. Functions have no initializers: use constant().
  Value initializer(Tensor tensor) {
    require_graph("initializer()");
    if (tensor.name.empty())
      tensor.name = fresh("initializer");
    else
      claim(tensor.name, "initializer");
    std::string name = tensor.name;
    graph_->initializers.push_back(std::move(tensor));
    return make(std::move(name), kNoProducer);
  }
  /// A Constant node holding `tensor`; its output takes the tensor's name when it has one.
  Value constant(Tensor tensor) {
    OpOptions o;
    if (!tensor.name.empty()) o.outputs.push_back(tensor.name);
    return op("Constant", {}, {Attribute("value", std::move(tensor))}, o);
  }
  /// A 1-D int64 Constant (shapes, axes, pads, slice bounds).
  Value constant_ints(std::vector<std::int64_t> values) {
    const auto n = static_cast<std::int64_t>(values.size());
    return constant(Tensor::from_values<std::int64_t>({}, {n}, std::span<const std::int64_t>(values)));
  }
  /// A scalar (0-D) Constant of the element type of `T` (float, std::int64_t, float16, ...).
  template <ElementType T>
  Value constant_scalar(T value) {
    return constant(Tensor::from_values<T>({}, {}, std::span<const T>(&value, 1)));
  }

  /// A handle to a value already named in the model (in this graph, an enclosing one, or made by
  /// this builder or its subgraph builders). Throws for a name no value has (a node's name, say).
  Value value(std::string_view name) {
    if (name.empty()) return {};
    if (!shared_->values.contains(std::string(name)))
      throw Error(where_, "no value named '" + std::string(name) + "'");
    if (parent_) shared_->read_below.insert(std::string(name));
    return make(std::string(name), kNoProducer);
  }

  // ---------------------------------------------------------------- nodes

  /// Appends a node with one output and returns it (see op_n for several).
  Value op(std::string_view op_type, std::initializer_list<Value> inputs, std::vector<Attribute> attributes = {},
           const OpOptions& options = {}) {
    return op(op_type, std::span<const Value>(inputs.begin(), inputs.size()), std::move(attributes), options);
  }
  Value op(std::string_view op_type, std::span<const Value> inputs, std::vector<Attribute> attributes = {},
           const OpOptions& options = {}) {
    return op_n(op_type, inputs, std::max<std::size_t>(1, options.outputs.size()), std::move(attributes), options)
        .front();
  }
  /// Appends a node with `num_outputs` outputs (some left out with OpOptions::omitted) and returns
  /// them in order; a left-out output comes back absent.
  std::vector<Value> op_n(std::string_view op_type, std::initializer_list<Value> inputs, std::size_t num_outputs,
                          std::vector<Attribute> attributes = {}, const OpOptions& options = {}) {
    return op_n(op_type, std::span<const Value>(inputs.begin(), inputs.size()), num_outputs, std::move(attributes),
                options);
  }
  std::vector<Value> op_n(std::string_view op_type, std::span<const Value> inputs, std::size_t num_outputs,
                          std::vector<Attribute> attributes = {}, const OpOptions& options = {}) {
    if (op_type.empty()) throw Error(where_, "a node needs an operator type");
    if (options.outputs.size() > num_outputs)
      throw Error(where_, std::string(op_type) + ": " + std::to_string(options.outputs.size()) +
                              " output names given for " + std::to_string(num_outputs) + " outputs");
    for (auto i : options.omitted)
      if (i >= num_outputs)
        throw Error(where_, std::string(op_type) + ": omitted output " + std::to_string(i) + " is out of range");
    if (opsets_ && !find_opset(*opsets_, options.domain))
      throw Error(where_, "operator '" + std::string(op_type) + "' of domain '" + options.domain +
                              "': the domain has no opset import (set one with set_opset_version)");
    {
      std::unordered_set<std::string_view> seen;
      for (const auto& a : attributes) {
        if (a.name.empty()) throw Error(where_, std::string(op_type) + ": an attribute has no name");
        if (!seen.insert(a.name).second)
          throw Error(where_, std::string(op_type) + ": attribute '" + a.name + "' given twice");
      }
    }
    Node node;
    node.op_type = std::string(op_type);
    node.domain = options.domain;
    node.overload = options.overload;
    node.doc_string = options.doc_string;
    node.attributes = std::move(attributes);
    node.inputs.reserve(inputs.size());
    for (std::size_t i = 0; i < inputs.size(); ++i) node.inputs.push_back(visible_name(inputs[i], op_type, i));
    // Trailing absent inputs are left out rather than written as "": the same meaning to the spec,
    // and ONNX Runtime 1.30's graph optimizer crashes on a LayerNormalization whose last input is "".
    while (!node.inputs.empty() && node.inputs.back().empty()) node.inputs.pop_back();

    // Claim every name before touching the graph, so a failure leaves it unchanged.
    std::vector<std::string> claimed;
    auto undo = [&] {
      for (const auto& n : claimed) shared_->taken.erase(n);
    };
    try {
      if (options.name.empty()) {
        node.name = fresh(op_type);
      } else {
        node.name = options.name;
        claim(node.name, "node name");
      }
      claimed.push_back(node.name);
      node.outputs.resize(num_outputs);
      for (std::size_t i = 0; i < num_outputs; ++i) {
        if (std::find(options.omitted.begin(), options.omitted.end(), i) != options.omitted.end()) continue;
        if (i < options.outputs.size() && !options.outputs[i].empty()) {
          node.outputs[i] = options.outputs[i];
          claim(node.outputs[i], "output name");
        } else {
          node.outputs[i] = fresh_unscoped(node.name + "_output_" + std::to_string(i));
        }
        claimed.push_back(node.outputs[i]);
      }
    } catch (...) {
      undo();
      throw;
    }
    while (!node.outputs.empty() && node.outputs.back().empty()) node.outputs.pop_back();  // trailing omitted

    auto& nodes = body();
    const std::size_t index = nodes.size();
    std::vector<Value> out(num_outputs);
    for (std::size_t i = 0; i < node.outputs.size(); ++i)
      if (!node.outputs[i].empty()) out[i] = make(node.outputs[i], index);
    nodes.push_back(std::move(node));
    return out;
  }

  /// The node that produced `v` in this builder's graph, to set fields op() has no option for
  /// (metadata_props, device_configurations, ...). Throws if `v` was not made by a node here.
  Node& node_of(const Value& v) {
    own(v, "node_of");
    const auto p = producer_[v.id_];
    if (p == kNoProducer) throw Error(where_, "'" + v.name() + "' is not the output of a node built here");
    return body()[p];
  }

  /// A graph (an If branch, a Loop or Scan body) built by `fill(Builder&)`; it sees every value of
  /// this graph and of the graphs enclosing it. Pass the result as a GRAPH attribute.
  template <class F>
  Graph subgraph(std::string name, F&& fill) {
    Graph g;
    g.name = std::move(name);
    Builder sub(&g, nullptr, opsets_, this, where_ + ".subgraph '" + g.name + "'", shared_);
    sub.prefix_ = prefix_;
    std::forward<F>(fill)(sub);
    return g;
  }

  // ---------------------------------------------------------------- outputs and annotations

  /// Makes `v` an output of the graph (or function) under its own name; `type` is written for a
  /// graph output when given (infer_shapes fills missing ones).
  void output(const Value& v, std::optional<Type> type = std::nullopt) { output(v, std::string(), std::move(type)); }
  /// Makes `v` an output named `name`. A value a node here produced, that no subgraph builder has
  /// read and that is not an output yet is renamed (every use in this graph and its subgraphs
  /// follows, and so do the Value handles); any other value (a graph input, an initializer, an
  /// outer value, ...) is passed through an Identity node whose output is `name`.
  Value output(const Value& v, std::string name, std::optional<Type> type = std::nullopt) {
    if (!v) throw Error(where_, "an absent value cannot be an output");
    visible_name(v, "output", 0);
    if (type && function_) throw Error(where_, "function outputs have no type");
    Value result = v;
    if (!name.empty() && name != v.name()) {
      const bool renamable =
          v.owner_ == this && producer_[v.id_] != kNoProducer && !shared_->read_below.contains(v.name()) &&
          !is_output(v.name());
      if (renamable) {
        claim(name, "output");
        rename(v, name);
      } else {
        OpOptions o;
        o.outputs.push_back(name);
        result = op("Identity", {v}, {}, o);
      }
    }
    if (function_) {
      function_->outputs.push_back(result.name());
    } else {
      ValueInfo vi(result.name());
      vi.type = std::move(type);
      graph_->outputs.push_back(std::move(vi));
    }
    return result;
  }

  /// Records the type of an intermediate value (value_info), replacing an earlier annotation.
  void annotate(const Value& v, Type type) {
    if (!v) throw Error(where_, "an absent value has no type");
    visible_name(v, "annotate", 0);
    auto& list = graph_ ? graph_->value_info : function_->value_info;
    for (auto& vi : list)
      if (vi.name == v.name()) {
        vi.type = std::move(type);
        return;
      }
    list.emplace_back(v.name(), std::move(type));
  }

  // ---------------------------------------------------------------- names and scopes

  /// A name no builder of this model has used and no value or node of it has, starting from
  /// `<scope>/<hint>`; it is reserved.
  std::string fresh(std::string_view hint) {
    return fresh_unscoped(prefix_ + std::string(hint.empty() ? std::string_view("value") : hint));
  }

  /// Restores the enclosing name scope when destroyed.
  class [[nodiscard]] Scope {
   public:
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;
    ~Scope() { b_->prefix_.resize(saved_); }

   private:
    friend class Builder;
    Scope(Builder* b, std::size_t saved) : b_(b), saved_(saved) {}
    Builder* b_;
    std::size_t saved_;
  };
  /// Names made until the returned Scope ends start with `<current scope><name>/`, the way
  /// exporters name a module's nodes ("encoder/layer0/MatMul").
  Scope scope(std::string_view name) {
    const std::size_t saved = prefix_.size();
    prefix_ += name;
    prefix_ += '/';
    return Scope(this, saved);
  }

  /// The version of `domain` this builder checks operators against (nullopt: not imported, or
  /// a bare graph with no imports to check).
  [[nodiscard]] std::optional<std::int64_t> opset(std::string_view domain) const noexcept {
    return opsets_ ? find_opset(*opsets_, domain) : std::nullopt;
  }

 private:
  friend class Value;
  friend class PatternMatcher;  // builds replacements into scratch graphs sharing the model's names
  static constexpr std::size_t kNoProducer = static_cast<std::size_t>(-1);

  struct Shared {
    std::unordered_set<std::string> taken;                // every value and node name in use
    std::unordered_map<std::string, std::size_t> suffix;  // last suffix tried per fresh() base
    std::unordered_set<std::string> read_below;           // names a subgraph builder has read
    std::unordered_set<std::string> values;               // the names in `taken` that name values
  };

  // `shared`: the name sets of the builder this one builds for (a subgraph's, a rewrite's), or
  // none for a new top-level builder.
  Builder(Graph* g, Function* f, std::vector<OperatorSetId>* opsets, const Builder* parent, std::string where,
          std::shared_ptr<Shared> shared = nullptr)
      : graph_(g), function_(f), opsets_(opsets), parent_(parent), where_(std::move(where)),
        shared_(shared ? std::move(shared) : std::make_shared<Shared>()) {}

  // `base` if free, else `base_1`, `base_2`, ...; reserved.
  std::string fresh_unscoped(std::string base) {
    if (shared_->taken.insert(base).second) return base;
    auto& k = shared_->suffix[base];
    for (;;) {
      std::string candidate = base + "_" + std::to_string(++k);
      if (shared_->taken.insert(candidate).second) return candidate;
    }
  }

  std::vector<Node>& body() { return graph_ ? graph_->nodes : function_->nodes; }

  void require_graph(const char* what) const {
    if (!graph_) throw Error(where_, std::string("a function has no ") + what + "; use constant() or input(name)");
  }

  void claim(const std::string& name, const char* what) {
    if (name.empty()) throw Error(where_, std::string("an empty ") + what + " name");
    if (!shared_->taken.insert(name).second)
      throw Error(where_, std::string(what) + " '" + name + "' is already a name in the model");
  }

  void reserve_value(const std::string& name) {
    shared_->taken.insert(name);
    shared_->values.insert(name);
  }

  Value make(std::string name, std::size_t producer) {
    shared_->values.insert(name);
    names_.push_back(std::move(name));
    producer_.push_back(producer);
    return Value(this, names_.size() - 1);
  }

  void own(const Value& v, const char* what) const {
    if (v.owner_ != this) throw Error(where_, std::string(what) + ": the value was not made by this builder");
  }

  // The name `v` has, if it may be read here: made by this builder or one enclosing it.
  const std::string& visible_name(const Value& v, std::string_view op_type, std::size_t i) const {
    static const std::string none;
    if (!v) return none;
    for (const Builder* b = this; b; b = b->parent_)
      if (v.owner_ == b) {
        if (b != this) shared_->read_below.insert(v.name());  // renaming it later would miss this read
        return v.name();
      }
    // Not v.name(): the builder that made `v` may be gone (a subgraph's, once built).
    throw Error(where_, std::string(op_type) + " input " + std::to_string(i) +
                            ": the value belongs to a builder whose graph is not visible here");
  }

  bool is_output(const std::string& name) const {
    if (function_) return std::find(function_->outputs.begin(), function_->outputs.end(), name) != function_->outputs.end();
    for (const auto& o : graph_->outputs)
      if (o.name == name) return true;
    return false;
  }

  // Renames a value produced by a node of this graph: the producer's output, reads in this graph
  // and its subgraphs, value_info, and every handle.
  void rename(const Value& v, const std::string& to) {
    const std::string from = v.name();
    auto& nodes = body();
    for (auto& o : nodes[producer_[v.id_]].outputs)
      if (o == from) o = to;
    if (graph_) {
      replace_all_uses_with(*graph_, from, to);
      for (auto& vi : graph_->value_info)
        if (vi.name == from) vi.name = to;
    } else {
      for (auto& n : nodes)
        for (auto& in : n.inputs)
          if (in == from) in = to;
      for (auto& vi : function_->value_info)
        if (vi.name == from) vi.name = to;
    }
    for (auto& n : names_)
      if (n == from) n = to;
    shared_->values.insert(to);
  }

  void reserve_nodes(const std::vector<Node>& nodes) {
    // Iterative over nested subgraphs: no recursion however deep a hostile model nests.
    std::vector<const Graph*> pending;
    auto visit_nodes = [&](const std::vector<Node>& list) {
      for (const auto& n : list) {
        if (!n.name.empty()) shared_->taken.insert(n.name);
        for (const auto& s : n.inputs) reserve_value(s);
        for (const auto& s : n.outputs) reserve_value(s);
        for (const auto& a : n.attributes)
          for (const auto& g : views::attribute_graphs(a)) pending.push_back(&g);
      }
    };
    visit_nodes(nodes);
    while (!pending.empty()) {
      const Graph* g = pending.back();
      pending.pop_back();
      reserve_graph_names_flat(*g);
      visit_nodes(g->nodes);
    }
    shared_->taken.erase(std::string());
    shared_->values.erase(std::string());
  }

  void reserve_graph_names_flat(const Graph& g) {
    for (const auto* list : {&g.inputs, &g.outputs, &g.value_info})
      for (const auto& vi : *list) reserve_value(vi.name);
    for (const auto& t : g.initializers) reserve_value(t.name);
    for (const auto& s : g.sparse_initializers) reserve_value(s.values.name);
  }

  void reserve_graph_names(const Graph& g) {
    reserve_graph_names_flat(g);
    reserve_nodes(g.nodes);
  }


  Graph* graph_;
  Function* function_;
  std::vector<OperatorSetId>* opsets_;
  const Builder* parent_;
  std::string where_;
  std::shared_ptr<Shared> shared_;
  std::string prefix_;
  std::deque<std::string> names_;       // by Value id; stable references
  std::vector<std::size_t> producer_;   // by Value id: index of the producing node in body()
};

inline const std::string& Value::name() const {
  static const std::string none;
  return owner_ ? owner_->names_[id_] : none;
}

}  // namespace oxir
