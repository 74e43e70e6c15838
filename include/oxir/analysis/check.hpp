#pragma once
// The structural rules of the ONNX IR specification: what makes a model well formed regardless
// of what its operators mean (names, scopes, order, imports, attribute and tensor fields).

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "../ir/function.hpp"
#include "../ir/graph.hpp"
#include "../ir/model.hpp"

namespace oxir {

/// One rule a model breaks: where (a field path such as `graph.node[3].attribute[1]`) and what.
struct CheckIssue {
  enum class Severity : std::uint8_t { Error, Warning };
  Severity severity = Severity::Error;
  std::string path;
  std::string message;
  friend bool operator==(const CheckIssue&, const CheckIssue&) = default;
};

/// Everything `check` found, in model order.
struct CheckReport {
  std::vector<CheckIssue> issues;
  /// No errors (warnings allowed).
  [[nodiscard]] bool ok() const noexcept { return errors() == 0; }
  [[nodiscard]] std::size_t errors() const noexcept {
    std::size_t n = 0;
    for (const auto& i : issues) n += i.severity == CheckIssue::Severity::Error;
    return n;
  }
  /// One line per issue: `error: PATH: MESSAGE`.
  [[nodiscard]] std::string to_string() const {
    std::string s;
    for (const auto& i : issues)
      s += std::string(i.severity == CheckIssue::Severity::Error ? "error: " : "warning: ") + i.path + ": " + i.message +
           "\n";
    return s;
  }
};

namespace detail {

/// Graph nesting beyond which `check` reports the nesting itself instead of descending.
inline constexpr int kMaxCheckDepth = 256;

class Checker {
 public:
  explicit Checker(const Model& m) : model_(m) {}

  CheckReport run() {
    const Model& m = model_;
    if (m.ir_version <= 0) error("model.ir_version", "not set (every model must state its IR version)");
    if (m.ir_version >= 3 && m.opset_imports.empty())
      error("model.opset_import", "empty: a model of IR version 3 or later must import the operator sets it uses");
    check_imports(m.opset_imports, "model.opset_import");
    Scopes scopes;
    check_graph(m.graph, "graph", scopes, true, m.opset_imports, false, 0);
    for (std::size_t i = 0; i < m.training_info.size(); ++i) {
      // Training graphs see the main graph's initializers (the state they update).
      const std::string p = "model.training_info[" + std::to_string(i) + "]";
      Scopes outer;
      std::unordered_set<std::string_view> state;
      for (const auto& t : m.graph.initializers) state.insert(t.name);
      for (const auto& v : m.graph.inputs) state.insert(v.name);
      outer.push_back(&state);
      const auto& t = m.training_info[i];
      auto given = [&](const Graph& g, int field) { return t.presence.has(field) || !g.nodes.empty() || !g.outputs.empty(); };
      if (given(t.initialization, 1))
        check_graph(t.initialization, p + ".initialization", outer, false, m.opset_imports, false, 1);
      if (given(t.algorithm, 2)) check_graph(t.algorithm, p + ".algorithm", outer, false, m.opset_imports, false, 1);
    }
    std::unordered_set<std::string> seen;
    for (std::size_t i = 0; i < m.functions.size(); ++i) {
      const Function& f = m.functions[i];
      const std::string p = "model.functions[" + std::to_string(i) + "]";
      if (!seen.insert(f.domain + '\0' + f.name + '\0' + f.overload).second)
        error(p, "function '" + f.domain + "::" + f.name + "'" + (f.overload.empty() ? "" : " (overload '" + f.overload + "')") +
                     " is defined more than once");
      check_function(f, p);
    }
    return std::move(report_);
  }

 private:
  /// The names visible from enclosing graphs, innermost last (each defined before the node
  /// holding the subgraph).
  using Scopes = std::vector<const std::unordered_set<std::string_view>*>;

  void error(std::string path, std::string message) {
    report_.issues.push_back({CheckIssue::Severity::Error, std::move(path), std::move(message)});
  }
  void warning(std::string path, std::string message) {
    report_.issues.push_back({CheckIssue::Severity::Warning, std::move(path), std::move(message)});
  }

  static bool visible(const Scopes& scopes, std::string_view name) {
    for (const auto* s : scopes)
      if (s->contains(name)) return true;
    return false;
  }

  void check_imports(const std::vector<OperatorSetId>& imports, const std::string& path) {
    // the first import of each domain ("" and "ai.onnx" are one)
    std::unordered_map<std::string_view, std::size_t> first;
    for (std::size_t i = 0; i < imports.size(); ++i) {
      const std::string p = path + "[" + std::to_string(i) + "]";
      const bool default_domain = is_default_domain(imports[i].domain);
      if (default_domain && imports[i].version < 1)
        error(p, "imports the default operator set at version " + std::to_string(imports[i].version) + " (the first is 1)");
      const auto [at, fresh] = first.try_emplace(domain_key(imports[i].domain), i);
      if (fresh) continue;
      const auto& earlier = imports[at->second];
      if (earlier.version != imports[i].version)
        error(p, "domain '" + imports[i].domain + "' imported again at version " + std::to_string(imports[i].version) +
                     " (already at " + std::to_string(earlier.version) + ")");
      else
        warning(p, "domain '" + imports[i].domain + "' imported twice");
    }
  }

  // Whether `imports` (the model's or a function's) import `domain`; each list is indexed once.
  bool imported(const std::vector<OperatorSetId>& imports, std::string_view domain) {
    if (imports.size() <= 8) return find_opset(imports, domain).has_value();
    auto [table, fresh] = import_tables_.try_emplace(&imports);
    if (fresh) table->second = OpsetTable(imports);
    return table->second.find(domain).has_value();
  }

  void check_main_value(const ValueInfo& v, const std::string& p) {
    if (!v.type) return error(p, "'" + v.name + "' has no type (a main graph's inputs and outputs must)");
    const Type& t = *v.type;
    if (const auto* tt = std::get_if<TensorType>(&t.value)) {
      if (tt->elem_type == DataType::UNDEFINED) error(p + ".type", "'" + v.name + "' has no element type");
      if (!tt->shape) error(p + ".type", "'" + v.name + "' has no shape (a main graph's inputs and outputs must state their rank)");
    } else if (const auto* st = std::get_if<SparseTensorType>(&t.value)) {
      if (st->elem_type == DataType::UNDEFINED) error(p + ".type", "'" + v.name + "' has no element type");
      if (!st->shape) error(p + ".type", "'" + v.name + "' has no shape (a main graph's inputs and outputs must state their rank)");
    } else if (std::holds_alternative<std::monostate>(t.value)) {
      error(p + ".type", "'" + v.name + "' has a type with no value (tensor, sequence, map, optional…)");
    }
  }

  void check_tensor(const Tensor& t, const std::string& p, bool needs_name) {
    if (needs_name && t.name.empty()) error(p, "has no name");
    if (t.data_type == DataType::UNDEFINED) error(p, "'" + t.name + "' has data_type UNDEFINED");
    // The payload must be what the dims and the type call for, as load_model requires of a file
    // (a model built in memory with too few values would be saved, then refused when read back).
    if (auto m = payload_mismatch(t)) {
      const bool held = m->field == "raw_data" || m->field == "string_data";
      error(p + "." + m->field, "'" + t.name + (held ? "' holds " : "': ") + m->message);
    }
  }
  void check_sparse(const SparseTensor& s, const std::string& p, bool needs_name) {
    check_tensor(s.values, p + ".values", needs_name);
    check_tensor(s.indices, p + ".indices", false);
  }

  // `in_function`: attribute references are allowed. `depth`: graph nesting.
  void check_graph(const Graph& g, const std::string& path, Scopes& outer, bool main, const std::vector<OperatorSetId>& imports,
                   bool in_function, int depth) {
    if (depth > kMaxCheckDepth) return error(path, "graphs nested more than " + std::to_string(kMaxCheckDepth) + " deep");
    if (g.name.empty()) error(path + ".name", "empty (every graph must have a name)");
    std::unordered_set<std::string_view> here;
    // Node outputs must differ from every visible name; a subgraph's own inputs and
    // initializers only from this graph's other names (they may shadow an outer value).
    auto define = [&](const std::string& name, const std::string& p, std::string_view what, bool against_outer) {
      if (name.empty()) return;
      if (here.contains(name) || (against_outer && visible(outer, name)))
        error(p, std::string(what) + " '" + name + "' is already defined" +
                     (here.contains(name) ? "" : " in an enclosing graph") + " (names must be assigned once)");
      here.insert(name);
    };
    for (std::size_t i = 0; i < g.inputs.size(); ++i) {
      const std::string p = path + ".input[" + std::to_string(i) + "]";
      if (g.inputs[i].name.empty()) error(p, "has no name");
      if (main) check_main_value(g.inputs[i], p);
      define(g.inputs[i].name, p, "input", false);
    }
    std::unordered_set<std::string_view> inputs(here.begin(), here.end()), inits;
    for (std::size_t i = 0; i < g.initializers.size(); ++i) {
      const Tensor& t = g.initializers[i];
      const std::string p = path + ".initializer[" + std::to_string(i) + "]";
      check_tensor(t, p, true);
      if (!t.name.empty() && !inits.insert(t.name).second) error(p, "initializer '" + t.name + "' is defined twice");
      else if (inputs.contains(t.name)) continue;  // the default of an input
      else if (main && model_.ir_version > 0 && model_.ir_version < 4)
        error(p, "'" + t.name + "' is not a graph input (before IR version 4 every initializer must be one)");
      else define(t.name, p, "initializer", false);
    }
    for (std::size_t i = 0; i < g.sparse_initializers.size(); ++i) {
      const SparseTensor& s = g.sparse_initializers[i];
      const std::string p = path + ".sparse_initializer[" + std::to_string(i) + "]";
      check_sparse(s, p, true);
      if (inits.contains(s.values.name)) error(p, "'" + s.values.name + "' is also a dense initializer");
      else if (!inputs.contains(s.values.name)) define(s.values.name, p, "sparse initializer", false);
      inits.insert(s.values.name);
    }
    // Names defined by nodes anywhere in this graph, to tell "defined later" from "undefined".
    std::unordered_set<std::string_view> produced;
    for (const auto& n : g.nodes) produced.insert(n.outputs.begin(), n.outputs.end());

    for (std::size_t i = 0; i < g.nodes.size(); ++i) {
      const Node& n = g.nodes[i];
      const std::string p = path + ".node[" + std::to_string(i) + "]";
      const std::string who = (n.name.empty() ? "" : "\"" + n.name + "\" ") + "(" + n.op_type + ")";
      check_node(n, p, who, imports, model_.ir_version >= 3, here, outer, produced, "which nothing defines");
      check_attributes(n.attributes, p, who, imports, in_function, depth, here, outer);
      if (n.outputs.empty()) error(p, who + " has no outputs (every node has at least one)");
      for (std::size_t k = 0; k < n.outputs.size(); ++k)
        define(n.outputs[k], p + ".output[" + std::to_string(k) + "]", "output", true);
    }
    for (std::size_t i = 0; i < g.outputs.size(); ++i) {
      const std::string p = path + ".output[" + std::to_string(i) + "]";
      const auto& name = g.outputs[i].name;
      if (name.empty()) error(p, "has no name");
      else if (!here.contains(name) && !visible(outer, name)) error(p, "'" + name + "' is defined nowhere");
      if (main) check_main_value(g.outputs[i], p);
    }
  }

  // What any node is checked for, in a graph or a function body: an operator type, an imported
  // domain (`needs_import`), and inputs defined before it, here or in an enclosing scope;
  // `undefined` ends the message for an input nothing defines.
  void check_node(const Node& n, const std::string& p, const std::string& who, const std::vector<OperatorSetId>& imports,
                  bool needs_import, const std::unordered_set<std::string_view>& here, const Scopes& outer,
                  const std::unordered_set<std::string_view>& produced, std::string_view undefined) {
    if (n.op_type.empty()) error(p + ".op_type", "empty");
    if (needs_import && !imported(imports, n.domain)) error(p, who + ": no opset import for domain '" + n.domain + "'");
    for (std::size_t k = 0; k < n.inputs.size(); ++k) {
      const auto& in = n.inputs[k];
      if (in.empty() || here.contains(in) || visible(outer, in)) continue;
      error(p + ".input[" + std::to_string(k) + "]",
            who + " reads '" + in + "', " +
                (produced.contains(in) ? std::string("which a later node defines (nodes must be in topological order)")
                                       : std::string(undefined)));
    }
  }

  void check_attributes(const std::vector<Attribute>& attrs, const std::string& p, const std::string& who,
                        const std::vector<OperatorSetId>& imports, bool in_function, int depth,
                        const std::unordered_set<std::string_view>& here, Scopes& outer) {
    std::unordered_set<std::string_view> names;
    for (std::size_t a = 0; a < attrs.size(); ++a) {
      const Attribute& at = attrs[a];
      const std::string ap = p + ".attribute[" + std::to_string(a) + "]";
      if (at.name.empty()) error(ap, who + ": attribute has no name");
      else if (!names.insert(at.name).second) error(ap, who + ": attribute '" + at.name + "' appears more than once");
      if (!at.ref_attr_name.empty()) {
        if (!in_function) error(ap, who + ": attribute '" + at.name + "' refers to '" + at.ref_attr_name + "', which only a function body can");
        continue;
      }
      const auto held = static_cast<AttributeType>(at.value.index());
      if (at.type == AttributeType::UNDEFINED) {
        if (model_.ir_version >= 2) error(ap, who + ": attribute '" + at.name + "' has no type");
      } else if (held != AttributeType::UNDEFINED && held != at.type) {
        error(ap, who + ": attribute '" + at.name + "' is of type " + std::string(attribute_type_name(at.type)) + " but holds " +
                      std::string(attribute_type_name(held)));
      } else if (held == AttributeType::UNDEFINED && is_single(at.type)) {
        error(ap, who + ": attribute '" + at.name + "' of type " + std::string(attribute_type_name(at.type)) + " has no value");
      }
      if (const auto* t = std::get_if<Box<Tensor>>(&at.value); t && t->has_value()) check_tensor(**t, ap + ".t", false);
      if (const auto* ts = std::get_if<std::vector<Tensor>>(&at.value))
        for (std::size_t k = 0; k < ts->size(); ++k) check_tensor((*ts)[k], ap + ".tensors[" + std::to_string(k) + "]", false);
      if (const auto* st = std::get_if<Box<SparseTensor>>(&at.value); st && st->has_value())
        check_sparse(**st, ap + ".sparse_tensor", false);
      if (const auto* sts = std::get_if<std::vector<SparseTensor>>(&at.value))
        for (std::size_t k = 0; k < sts->size(); ++k)
          check_sparse((*sts)[k], ap + ".sparse_tensors[" + std::to_string(k) + "]", false);
      if (const auto* g = std::get_if<Box<Graph>>(&at.value); g && g->has_value()) {
        // A subgraph sees every name defined so far in this graph and its enclosing ones.
        outer.push_back(&here);
        check_graph(**g, ap + ".g", outer, false, imports, in_function, depth + 1);
        outer.pop_back();
      }
      if (const auto* gs = std::get_if<std::vector<Graph>>(&at.value)) {
        outer.push_back(&here);
        for (std::size_t k = 0; k < gs->size(); ++k)
          check_graph((*gs)[k], ap + ".graphs[" + std::to_string(k) + "]", outer, false, imports, in_function, depth + 1);
        outer.pop_back();
      }
    }
  }

  static bool is_single(AttributeType t) {
    switch (t) {
      case AttributeType::FLOAT:
      case AttributeType::INT:
      case AttributeType::STRING:
      case AttributeType::TENSOR:
      case AttributeType::GRAPH:
      case AttributeType::SPARSE_TENSOR:
      case AttributeType::TYPE_PROTO: return true;
      default: return false;
    }
  }

  void check_function(const Function& f, const std::string& path) {
    if (f.name.empty()) error(path + ".name", "empty");
    check_imports(f.opset_imports, path + ".opset_import");
    // A body imports its own operator sets (IR 8+); without any, the model's apply.
    const auto& imports = f.opset_imports.empty() ? model_.opset_imports : f.opset_imports;
    std::unordered_set<std::string_view> here, produced;
    for (std::size_t i = 0; i < f.inputs.size(); ++i) {
      const std::string p = path + ".input[" + std::to_string(i) + "]";
      if (f.inputs[i].empty()) error(p, "has no name");
      else if (!here.insert(f.inputs[i]).second) error(p, "input '" + f.inputs[i] + "' is listed twice");
    }
    std::unordered_set<std::string_view> attrs;
    for (const auto& a : f.attributes) attrs.insert(a);
    for (std::size_t i = 0; i < f.attribute_protos.size(); ++i)
      if (!attrs.insert(f.attribute_protos[i].name).second)
        error(path + ".attribute_proto[" + std::to_string(i) + "]", "attribute '" + f.attribute_protos[i].name + "' is declared twice");
    for (const auto& n : f.nodes) produced.insert(n.outputs.begin(), n.outputs.end());
    Scopes outer;
    for (std::size_t i = 0; i < f.nodes.size(); ++i) {
      const Node& n = f.nodes[i];
      const std::string p = path + ".node[" + std::to_string(i) + "]";
      const std::string who = (n.name.empty() ? "" : "\"" + n.name + "\" ") + "(" + n.op_type + ")";
      check_node(n, p, who, imports, true, here, outer, produced,
                 "which is neither a function input nor an earlier node's output");
      check_attributes(n.attributes, p, who, imports, true, 1, here, outer);
      if (n.outputs.empty()) error(p, who + " has no outputs (every node has at least one)");
      for (std::size_t k = 0; k < n.outputs.size(); ++k) {
        const auto& o = n.outputs[k];
        if (o.empty()) continue;
        if (!here.insert(o).second)
          error(p + ".output[" + std::to_string(k) + "]", "'" + o + "' is already defined (names must be assigned once)");
      }
    }
    for (std::size_t i = 0; i < f.outputs.size(); ++i) {
      const std::string p = path + ".output[" + std::to_string(i) + "]";
      if (f.outputs[i].empty()) error(p, "has no name");
      else if (!here.contains(f.outputs[i])) error(p, "'" + f.outputs[i] + "' is defined nowhere in the body");
    }
  }

  const Model& model_;
  std::unordered_map<const std::vector<OperatorSetId>*, OpsetTable> import_tables_;
  CheckReport report_;
};

}  // namespace detail

/// Checks `model` against the structural rules of the ONNX IR specification, following its
/// ir_version: an IR version and (from IR 3) operator-set imports; every graph named; the main
/// graph's inputs and outputs typed with an element type and a rank; names assigned once, in
/// each graph and against the enclosing graphs a subgraph sees; nodes in topological order, each
/// reading only names defined before it (in its graph or an enclosing one) and having an
/// operator type, an imported domain and at least one output; graph outputs defined;
/// initializers named, unique, of a defined data type and (before IR 4) listed as inputs;
/// attributes named, unique per node, holding a value of their declared type, and referring
/// to a function's attributes only inside a function body; functions unique by (domain, name,
/// overload), with bodies that read only their inputs and earlier outputs and define their
/// outputs. Operator signatures (input counts, types, attribute names) are `infer_shapes`'s
/// business: it reports their violations as diagnostics. Never throws for a bad model.
[[nodiscard]] inline CheckReport check(const Model& model) { return detail::Checker(model).run(); }

}  // namespace oxir
