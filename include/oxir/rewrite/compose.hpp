#pragma once
// Composing models: add_prefix (rename a model's values, nodes and functions so that it can sit
// beside another) and merge_models (connect outputs of one model to inputs of another, giving one
// model). What onnx.compose offers, with subgraphs followed (their own names and their reads of
// outer values), every place a value name appears renamed, and the seams type-checked.

#include <algorithm>
#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "../core/error.hpp"
#include "../infer.hpp"
#include "../ir/model.hpp"
#include "../ir/views.hpp"
#include "extract.hpp"

namespace oxir {

/// Which names add_prefix renames. A value of the main graph can have several roles (an input
/// that is also an initializer in IR < 4 models, an input passed straight through as an output);
/// it is renamed only when every role it has is selected, so turning `inputs` and `outputs` off
/// keeps the whole interface as it was.
struct PrefixOptions {
  bool inputs = true;         ///< the main graph's inputs
  bool outputs = true;        ///< the main graph's outputs
  bool initializers = true;   ///< the main graph's initializers and sparse initializers
  bool intermediates = true;  ///< every other value: node outputs, and every name a subgraph defines
  bool nodes = true;          ///< node names, in subgraphs too (function bodies keep theirs)
  bool functions = true;      ///< model-local function names, and every call of them
  /// Symbolic dims (dim_param) in every type: the graph's interface and value_info, subgraphs,
  /// type attributes, and (for a model) function bodies' value_info and training graphs. Off by
  /// default: a dim_param is one symbol model-wide, and models put side by side usually mean
  /// their "batch" to be the same. In a dim_param that is an expression (`N+1`, `2*S`,
  /// `floor((H-1)/2)+1`) every name gets the prefix (function names and numbers do not), so
  /// the relations between sizes carry over; a dim_param with spaces is read the same way.
  bool dim_params = false;
};

namespace detail::compose {

inline constexpr int kMaxDepth = 256;
using NameMap = std::unordered_map<std::string, std::string>;

inline void rename_in(std::string& name, const NameMap& m) {
  if (name.empty()) return;
  if (const auto it = m.find(name); it != m.end()) name = it->second;
}

/// Applies `m` to every place `g` names a value (its interface, initializers, value_info,
/// annotations, node inputs and outputs, sharding specs) and, with names of their own added or
/// hidden, to its subgraphs. `sub_map` gives the entry for a name a subgraph defines: its new
/// name, or nullopt to keep it (which hides an outer entry of that name). `m` is changed while a
/// subgraph is walked and restored after it (no copy per subgraph).
template <class SubEntry>
void rename_values(Graph& g, NameMap& m, const SubEntry& sub_map, std::string_view node_prefix,
                   const std::string& path, int depth) {
  if (depth > kMaxDepth) throw Error(path, "subgraphs nested too deep to rename");
  for (auto& v : g.inputs) rename_in(v.name, m);
  for (auto& v : g.outputs) rename_in(v.name, m);
  for (auto& v : g.value_info) rename_in(v.name, m);
  for (auto& t : g.initializers) rename_in(t.name, m);
  for (auto& s : g.sparse_initializers) {
    rename_in(s.values.name, m);
    rename_in(s.indices.name, m);
  }
  for (auto& a : g.quantization_annotation) {
    rename_in(a.tensor_name, m);
    for (auto& q : a.quant_parameter_tensor_names) rename_in(q.value, m);
  }
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    Node& n = g.nodes[i];
    for (auto& in : n.inputs) rename_in(in, m);
    for (auto& out : n.outputs) rename_in(out, m);
    if (!node_prefix.empty() && !n.name.empty()) n.name = std::string(node_prefix) + n.name;
    for (auto& dc : n.device_configurations)
      for (auto& s : dc.sharding_spec) rename_in(s.tensor_name, m);
    for (std::size_t a = 0; a < n.attributes.size(); ++a) {
      auto graphs = views::attribute_graphs(n.attributes[a]);
      const bool single = std::holds_alternative<Box<Graph>>(n.attributes[a].value);
      for (std::size_t k = 0; k < graphs.size(); ++k) {
        Graph& sub = graphs[k];
        std::vector<std::pair<std::string, std::optional<std::string>>> undo;  // (name, entry before)
        for (const auto& d : views::defined_names(sub)) {
          if (d.empty()) continue;
          const auto it = m.find(d);
          undo.emplace_back(d, it == m.end() ? std::nullopt : std::optional<std::string>(it->second));
          if (auto to = sub_map(d)) m[d] = std::move(*to);
          else if (it != m.end()) m.erase(it);
        }
        rename_values(sub, m, sub_map, node_prefix,
                      path + ".node[" + std::to_string(i) + "].attribute[" + std::to_string(a) + "]" +
                          (single ? ".g" : ".graphs[" + std::to_string(k) + "]"),
                      depth + 1);
        for (auto it = undo.rbegin(); it != undo.rend(); ++it) {
          if (it->second) m[it->first] = std::move(*it->second);
          else m.erase(it->first);
        }
      }
    }
  }
}

/// Every name `g` mentions as a value, at any depth: defined, read, declared in value_info or
/// annotated.
inline void mentioned_names(const Graph& g, std::unordered_set<std::string>& out, int depth) {
  if (depth > kMaxDepth) return;
  auto add = [&](const std::string& s) {
    if (!s.empty()) out.insert(s);
  };
  for (const auto& v : g.inputs) add(v.name);
  for (const auto& v : g.outputs) add(v.name);
  for (const auto& v : g.value_info) add(v.name);
  for (const auto& t : g.initializers) add(t.name);
  for (const auto& s : g.sparse_initializers) add(s.values.name);
  for (const auto& n : g.nodes) {
    for (const auto& s : n.inputs) add(s);
    for (const auto& s : n.outputs) add(s);
    for (const auto& sub : views::subgraphs(n)) mentioned_names(sub, out, depth + 1);
  }
}

/// Renames calls of the functions in `renamed` (key: domain, name, overload) in `nodes` and in
/// their subgraphs.
using FunctionKey = std::tuple<std::string, std::string, std::string>;
inline void rename_calls(std::vector<Node>& nodes, const std::map<FunctionKey, std::string>& renamed, int depth) {
  if (depth > kMaxDepth) throw Error("subgraphs nested too deep to rename function calls");
  for (auto& n : nodes) {
    if (const auto it = renamed.find({n.domain, n.op_type, n.overload}); it != renamed.end()) n.op_type = it->second;
    for (auto& sub : views::subgraphs(n)) rename_calls(sub.nodes, renamed, depth + 1);
  }
}

/// `prefix` before every name in dim_param `d` (see PrefixOptions::dim_params).
inline std::string prefixed_dim_param(std::string_view d, std::string_view prefix) {
  std::string out;
  out.reserve(d.size() + prefix.size());
  for (std::size_t i = 0; i < d.size();) {
    if (infer::expr_syntax_char(d[i])) {
      out += d[i++];
      continue;
    }
    std::size_t j = i;
    while (j < d.size() && !infer::expr_syntax_char(d[j])) ++j;
    std::size_t k = j;
    while (k < d.size() && (d[k] == ' ' || d[k] == '\t')) ++k;
    const bool call = k < d.size() && d[k] == '(';  // floor(, ceil(, min(, max(, ...
    const bool number = d[i] >= '0' && d[i] <= '9';
    if (!call && !number) out += prefix;
    out.append(d.substr(i, j - i));
    i = j;
  }
  return out;
}

inline void prefix_dims(Type& t, std::string_view prefix, int depth) {
  if (depth > kMaxDepth) throw Error("types nested too deep to rename");
  auto shape = [&](std::optional<Shape>& s) {
    if (!s) return;
    for (auto& d : s->dims)
      if (auto* p = std::get_if<std::string>(&d.value); p && !p->empty()) *p = prefixed_dim_param(*p, prefix);
  };
  if (auto* tensor = std::get_if<TensorType>(&t.value)) shape(tensor->shape);
  else if (auto* sparse = std::get_if<SparseTensorType>(&t.value)) shape(sparse->shape);
  else if (auto* seq = std::get_if<SequenceType>(&t.value)) {
    if (seq->elem_type) prefix_dims(*seq->elem_type, prefix, depth + 1);
  } else if (auto* opt = std::get_if<OptionalType>(&t.value)) {
    if (opt->elem_type) prefix_dims(*opt->elem_type, prefix, depth + 1);
  } else if (auto* map = std::get_if<MapType>(&t.value)) {
    if (map->value_type) prefix_dims(*map->value_type, prefix, depth + 1);
  }
}
inline void prefix_dims(std::vector<ValueInfo>& vs, std::string_view prefix) {
  for (auto& v : vs)
    if (v.type) prefix_dims(*v.type, prefix, 0);
}
inline void prefix_dims(std::vector<Node>& nodes, std::string_view prefix, int depth);
inline void prefix_dims(Graph& g, std::string_view prefix, int depth) {
  if (depth > kMaxDepth) throw Error("subgraphs nested too deep to rename");
  prefix_dims(g.inputs, prefix);
  prefix_dims(g.outputs, prefix);
  prefix_dims(g.value_info, prefix);
  prefix_dims(g.nodes, prefix, depth);
}
/// A TYPE_PROTO(S) attribute's types and a GRAPH(S) attribute's graphs.
inline void prefix_dims(Attribute& a, std::string_view prefix, int depth) {
  if (auto* t = std::get_if<Box<Type>>(&a.value); t && *t) prefix_dims(**t, prefix, 0);
  else if (auto* ts = std::get_if<std::vector<Type>>(&a.value))
    for (auto& x : *ts) prefix_dims(x, prefix, 0);
  for (auto& sub : views::attribute_graphs(a)) prefix_dims(sub, prefix, depth + 1);
}
inline void prefix_dims(std::vector<Node>& nodes, std::string_view prefix, int depth) {
  for (auto& n : nodes)
    for (auto& a : n.attributes) prefix_dims(a, prefix, depth);
}

/// Names defined by the subgraphs of `g`, at any depth.
inline void subgraph_definitions(const Graph& g, std::unordered_set<std::string>& out, int depth) {
  if (depth > kMaxDepth) return;
  for (const auto& n : g.nodes)
    for (const auto& sub : views::subgraphs(n)) {
      for (const auto& d : views::defined_names(sub))
        if (!d.empty()) out.insert(d);
      subgraph_definitions(sub, out, depth + 1);
    }
}

/// Prefixes the values of a graph that is the scope root (main graph, or a graph handed to
/// add_prefix by itself): reads of names it does not define are left alone.
inline void prefix_graph(Graph& g, std::string_view prefix, const PrefixOptions& o, const std::string& path) {
  enum : unsigned { kInput = 1, kOutput = 2, kInit = 4, kOther = 8 };
  std::unordered_map<std::string, unsigned> roles;  // of the names `g` itself defines
  auto role = [&](const std::string& name, unsigned r) {
    if (!name.empty()) roles[name] |= r;
  };
  for (const auto& v : g.inputs) role(v.name, kInput);
  for (const auto& t : g.initializers) role(t.name, kInit);
  for (const auto& s : g.sparse_initializers) {
    role(s.values.name, kInit);
    role(s.indices.name, kInit);
  }
  for (const auto& n : g.nodes)
    for (const auto& out : n.outputs) role(out, kOther);
  // An output is a role of a defined name; an output nothing here defines is a capture (or
  // dangling) and not this graph's to rename.
  for (const auto& v : g.outputs)
    if (const auto it = roles.find(v.name); it != roles.end()) it->second |= kOutput;

  const unsigned selected = (o.inputs ? kInput : 0u) | (o.outputs ? kOutput : 0u) |
                            (o.initializers ? kInit : 0u) | (o.intermediates ? kOther : 0u);
  NameMap m;
  for (const auto& [name, r] : roles)
    if ((r & ~selected) == 0) m.emplace(name, std::string(prefix) + name);

  // Two names may not end up as one (a new name meeting a name that stays, say). Every scope is
  // checked as one: ONNX names are unique across a graph and its subgraphs.
  std::unordered_set<std::string> all, inner;
  mentioned_names(g, all, 0);
  if (o.intermediates) subgraph_definitions(g, inner, 0);
  std::unordered_map<std::string, std::string> origin;  // new name -> the name it came from
  auto claim = [&](const std::string& from, const std::string& to) {
    const auto [it, fresh] = origin.emplace(to, from);
    if (!fresh && it->second != from) {
      const auto& [x, y] = std::minmax(it->second, from);
      throw Error(path, "prefixing would give '" + x + "' and '" + y + "' the same name '" + to + "'");
    }
  };
  for (const auto& name : all) {
    const auto it = m.find(name);
    claim(name, it != m.end() ? it->second : roles.contains(name) || !inner.contains(name) ? name : std::string(prefix) + name);
    if (it == m.end() && roles.contains(name) && inner.contains(name)) claim(name, std::string(prefix) + name);
  }

  const auto sub_map = [&](const std::string& d) -> std::optional<std::string> {
    if (!o.intermediates) return std::nullopt;
    return std::string(prefix) + d;
  };
  rename_values(g, m, sub_map, o.nodes ? prefix : std::string_view{}, path, 0);
}

/// Why a value of type `a` cannot feed an input declared `b`, or empty when it can (unknown
/// parts are compatible with anything).
inline std::string type_conflict(const Type& a, const Type& b, int depth = 0) {
  if (a.is_empty() || b.is_empty() || depth > kMaxDepth) return {};
  if (a.value.index() != b.value.index()) {
    const char* kinds[] = {"unknown", "a tensor", "a sequence", "a map", "an optional", "a sparse tensor", "opaque"};
    auto kind = [&](const Type& t) -> std::string {
      if (t.is_tensor()) return kinds[1];
      if (t.is_sequence()) return kinds[2];
      if (t.is_map()) return kinds[3];
      if (t.is_optional()) return kinds[4];
      if (t.is_sparse_tensor()) return kinds[5];
      return kinds[6];
    };
    return "one is " + kind(a) + ", the other " + kind(b);
  }
  auto tensors = [](DataType ea, DataType eb, const std::optional<Shape>& sa,
                    const std::optional<Shape>& sb) -> std::string {
    if (ea != DataType::UNDEFINED && eb != DataType::UNDEFINED && ea != eb)
      return "element types " + std::string(data_type_name(ea)) + " and " + std::string(data_type_name(eb));
    if (!sa || !sb) return {};
    if (sa->rank() != sb->rank())
      return "ranks " + std::to_string(sa->rank()) + " and " + std::to_string(sb->rank());
    for (std::size_t i = 0; i < sa->rank(); ++i) {
      const auto x = (*sa)[i].value_if(), y = (*sb)[i].value_if();
      if (x && y && *x != *y)
        return "dimension " + std::to_string(i) + " is " + std::to_string(*x) + " and " + std::to_string(*y);
    }
    return {};
  };
  if (const auto* t = std::get_if<TensorType>(&a.value)) {
    const auto& u = std::get<TensorType>(b.value);
    return tensors(t->elem_type, u.elem_type, t->shape, u.shape);
  }
  if (const auto* t = std::get_if<SparseTensorType>(&a.value)) {
    const auto& u = std::get<SparseTensorType>(b.value);
    return tensors(t->elem_type, u.elem_type, t->shape, u.shape);
  }
  if (const auto* t = std::get_if<SequenceType>(&a.value)) {
    const auto& u = std::get<SequenceType>(b.value);
    if (!t->elem_type.has_value() || !u.elem_type.has_value()) return {};
    const auto why = type_conflict(*t->elem_type, *u.elem_type, depth + 1);
    return why.empty() ? why : "sequence elements: " + why;
  }
  if (const auto* t = std::get_if<OptionalType>(&a.value)) {
    const auto& u = std::get<OptionalType>(b.value);
    if (!t->elem_type.has_value() || !u.elem_type.has_value()) return {};
    const auto why = type_conflict(*t->elem_type, *u.elem_type, depth + 1);
    return why.empty() ? why : "optional elements: " + why;
  }
  if (const auto* t = std::get_if<MapType>(&a.value)) {
    const auto& u = std::get<MapType>(b.value);
    if (t->key_type != u.key_type) return "map keys differ";
    if (!t->value_type.has_value() || !u.value_type.has_value()) return {};
    const auto why = type_conflict(*t->value_type, *u.value_type, depth + 1);
    return why.empty() ? why : "map values: " + why;
  }
  if (const auto* t = std::get_if<OpaqueType>(&a.value)) {
    const auto& u = std::get<OpaqueType>(b.value);
    if (t->domain != u.domain || t->name != u.name) return "different opaque types";
  }
  return {};
}

/// Appends `from` to `into`, keeping one entry per key; the same key with two values throws.
/// Appends to `into` each entry of `from` whose key (`key_of`) no entry before it has; an entry
/// whose key is taken goes to `clash(earlier, entry)`. Indexed: long lists cost their length.
template <class T, class KeyOf, class Clash>
void unite_by_key(std::vector<T>& into, const std::vector<T>& from, KeyOf key_of, Clash clash) {
  std::unordered_map<std::string, std::size_t> at;
  for (std::size_t i = 0; i < into.size(); ++i) at.try_emplace(key_of(into[i]), i);
  for (const auto& e : from) {
    const auto [it, fresh] = at.try_emplace(key_of(e), into.size());
    if (fresh) into.push_back(e);
    else clash(std::as_const(into[it->second]), e);
  }
}

inline void unite_props(std::vector<StringStringEntry>& into, const std::vector<StringStringEntry>& from,
                        const std::string& where) {
  unite_by_key(into, from, [](const StringStringEntry& e) { return e.key; },
               [&](const StringStringEntry& earlier, const StringStringEntry& e) {
                 if (earlier.value != e.value)
                   throw Error(where, "the models give '" + e.key + "' two values: '" + earlier.value + "' and '" +
                                          e.value + "'");
               });
}

}  // namespace detail::compose

/// Prepends `prefix` to the names of `graph`'s values (what `options` selects: see PrefixOptions),
/// everywhere they appear: node inputs and outputs, the graph's inputs, outputs, initializers,
/// value_info, quantization annotations and sharding specs, and the reads of subgraphs (unless a
/// subgraph defines that name itself). Names a subgraph defines are renamed with the
/// intermediates; names `graph` reads without defining them (captures, when `graph` is itself a
/// subgraph) are left alone, as are empty names (omitted inputs). Node names are prefixed with
/// `options.nodes`. Throws oxir::Error, before changing anything, when a new name would meet a
/// name that stays (`prefix` + "x" where "x" is renamed and a kept value is already called
/// that).
inline void add_prefix(Graph& graph, std::string_view prefix, const PrefixOptions& options = {}) {
  if (prefix.empty()) return;
  Graph g = graph;  // a graph nested too deep throws part way: leave the caller's as it was
  detail::compose::prefix_graph(g, prefix, options, "graph");
  if (options.dim_params) detail::compose::prefix_dims(g, prefix, 0);
  graph = std::move(g);
}

/// add_prefix on the main graph, plus the model-local functions: with `options.functions` each
/// function's name gets the prefix and every call of it (main graph, subgraphs, function bodies)
/// follows. Function bodies are scopes of their own and keep their value names. A model with
/// training information refuses to have its values renamed (its bindings and algorithm graphs
/// name the main graph's initializers): oxir::Error, nothing changed.
inline void add_prefix(Model& model, std::string_view prefix, const PrefixOptions& options = {}) {
  if (prefix.empty()) return;
  const bool values = options.inputs || options.outputs || options.initializers || options.intermediates;
  if (values && !model.training_info.empty())
    throw Error("training_info", "the model has training information, whose bindings name the main graph's values; "
                                 "add_prefix does not rename those");
  Graph g = model.graph;
  detail::compose::prefix_graph(g, prefix, options, "graph");
  std::vector<Function> functions = model.functions;
  if (options.functions && !functions.empty()) {
    std::map<detail::compose::FunctionKey, std::string> renamed;
    for (auto& f : functions) {
      renamed[{f.domain, f.name, f.overload}] = std::string(prefix) + f.name;
      f.name = std::string(prefix) + f.name;
    }
    detail::compose::rename_calls(g.nodes, renamed, 0);
    for (auto& f : functions) detail::compose::rename_calls(f.nodes, renamed, 0);
    for (auto& t : model.training_info) {  // values are not renamed here, see above
      detail::compose::rename_calls(t.initialization.nodes, renamed, 0);
      detail::compose::rename_calls(t.algorithm.nodes, renamed, 0);
    }
  }
  std::vector<TrainingInfo> training = model.training_info;
  if (options.dim_params) {
    detail::compose::prefix_dims(g, prefix, 0);
    for (auto& f : functions) {
      detail::compose::prefix_dims(f.value_info, prefix);
      detail::compose::prefix_dims(f.nodes, prefix, 0);
      for (auto& a : f.attribute_protos) detail::compose::prefix_dims(a, prefix, 0);
    }
    for (auto& t : training) {
      detail::compose::prefix_dims(t.initialization, prefix, 0);
      detail::compose::prefix_dims(t.algorithm, prefix, 0);
    }
  }
  model.graph = std::move(g);
  model.functions = std::move(functions);
  model.training_info = std::move(training);
}

/// Options of merge_models.
struct MergeOptions {
  /// Prefixes applied (add_prefix with default options) to the first and second model before
  /// they are joined; empty: none. The io_map names the values as the models name them, before
  /// prefixing.
  std::string prefix1{}, prefix2{};
  /// With it, each model's dim_params get that model's prefix too (PrefixOptions::dim_params):
  /// the two models' sizes stay distinct symbols. Without it, equal dim_params of the two models
  /// name one size in the merged model.
  bool prefix_dim_params = false;
  /// The merged model's inputs and outputs, by their names in the merged model (prefixed). Empty:
  /// the first model's inputs and the second's that io_map does not connect; the first model's
  /// outputs that io_map does not connect and all of the second's. Otherwise the merged graph is
  /// cut to them as extract_model does.
  std::vector<std::string> inputs{}, outputs{};
  /// The merged graph's name; by default the two graph names joined with "_".
  std::optional<std::string> graph_name{};
  /// The connected outputs' types are checked against the inputs they feed as the first model
  /// declares them and, with this on, also as shape inference finds them: an output declared
  /// [batch, seq, d] that is [batch, seq, 10] cannot feed an input of [3, 2, 2].
  bool infer_seams = true;
};

/// Joins two models into one: each pair (out, in) of `io_map` makes the second model's input
/// `in` read the first model's output `out` (one output may feed several inputs). The merged
/// graph holds the first model's nodes, then the second's; an input of the second model that
/// io_map connects is no longer an input (an initializer of that name, its default in IR < 4, goes
/// too), and a connected output of the first, no longer an output by default, keeps its type as
/// value_info. A connected input that the second model also lists as an output stays an output,
/// computed by an Identity of what feeds it. Subgraphs of the second model that read a connected
/// input read the first model's value instead.
///
/// Model-level fields: the higher IR version; the union of the opset imports (one domain at two
/// versions is an error: convert one model first); producer, domain, model_version and doc_string
/// of the first model; metadata_props and device configurations united (one key with two values is
/// an error); the functions of both (a function both define must be defined the same). Models
/// with training information are refused. dim_params are model-wide symbols, so equal dim_params
/// of the two models name the same size in the merged one (unless MergeOptions::prefix_dim_params).
///
/// Throws oxir::Error when an io_map name is not an output of the first model or an input of the
/// second, when an input is connected twice, when the two sides' types conflict (element type,
/// rank, or a numeric dimension; as declared, and as inference finds the output: see
/// MergeOptions::infer_seams), and when the models (after prefixing) share a value name that
/// io_map does not join: use the prefixes.
[[nodiscard]] inline Model merge_models(const Model& m1, const Model& m2,
                                        std::span<const std::pair<std::string, std::string>> io_map,
                                        const MergeOptions& options = {}) {
  namespace dc = detail::compose;
  if (!m1.training_info.empty()) throw Error("first model: training_info", "merging models with training information is not supported");
  if (!m2.training_info.empty()) throw Error("second model: training_info", "merging models with training information is not supported");
  Model a = m1, b = m2;
  PrefixOptions prefixing;
  prefixing.dim_params = options.prefix_dim_params;
  try {
    add_prefix(a, options.prefix1, prefixing);
  } catch (const Error& e) {
    throw e.within("first model");
  }
  try {
    add_prefix(b, options.prefix2, prefixing);
  } catch (const Error& e) {
    throw e.within("second model");
  }
  Graph& g1 = a.graph;
  Graph& g2 = b.graph;

  // The seams.
  dc::NameMap connect;  // second model's input -> first model's output
  for (std::size_t i = 0; i < io_map.size(); ++i) {
    const std::string where = "io_map[" + std::to_string(i) + "]";
    const std::string out = options.prefix1 + io_map[i].first, in = options.prefix2 + io_map[i].second;
    const auto o = std::find_if(g1.outputs.begin(), g1.outputs.end(), [&](const ValueInfo& v) { return v.name == out; });
    if (io_map[i].first.empty() || o == g1.outputs.end())
      throw Error(where, "'" + io_map[i].first + "' is not an output of the first model");
    const auto p = std::find_if(g2.inputs.begin(), g2.inputs.end(), [&](const ValueInfo& v) { return v.name == in; });
    if (io_map[i].second.empty() || p == g2.inputs.end())
      throw Error(where, "'" + io_map[i].second + "' is not an input of the second model");
    if (!connect.emplace(in, out).second) throw Error(where, "the input '" + io_map[i].second + "' is connected twice");
    if (o->type && p->type)
      if (const auto why = dc::type_conflict(*o->type, *p->type); !why.empty())
        throw Error(where, "'" + io_map[i].first + "' cannot feed '" + io_map[i].second + "': " + why);
  }

  if (options.infer_seams && !connect.empty()) {
    Model inferred = a;
    InferOptions io;
    io.overwrite = true;
    (void)infer_shapes(inferred, io);
    for (std::size_t i = 0; i < io_map.size(); ++i) {
      const std::string out = options.prefix1 + io_map[i].first, in = options.prefix2 + io_map[i].second;
      const auto o = std::find_if(inferred.graph.outputs.begin(), inferred.graph.outputs.end(),
                                  [&](const ValueInfo& v) { return v.name == out; });
      const auto p = std::find_if(g2.inputs.begin(), g2.inputs.end(), [&](const ValueInfo& v) { return v.name == in; });
      if (o != inferred.graph.outputs.end() && o->type && p->type)
        if (const auto why = dc::type_conflict(*o->type, *p->type); !why.empty())
          throw Error("io_map[" + std::to_string(i) + "]", "'" + io_map[i].first + "' cannot feed '" + io_map[i].second +
                                                            "' (as inference types it): " + why);
    }
  }

  // Names the two graphs share, other than at the seams, would become one value.
  std::unordered_set<std::string> names1, names2;
  dc::mentioned_names(g1, names1, 0);
  dc::mentioned_names(g2, names2, 0);
  std::unordered_set<std::string> passed_through;  // connected inputs the second model also outputs
  for (const auto& v : g2.outputs)
    if (connect.contains(v.name)) passed_through.insert(v.name);
  std::set<std::string> shared;
  for (const auto& n : names2)
    if (names1.contains(n) && (!connect.contains(n) || passed_through.contains(n))) shared.insert(n);
  if (!shared.empty()) {
    std::string list;
    std::size_t k = 0;
    for (const auto& n : shared) {
      if (k++ == 5) {
        list += ", ...";
        break;
      }
      list += (list.empty() ? "'" : ", '") + n + "'";
    }
    throw Error("second model", "shares " + std::to_string(shared.size()) + " value name" +
                                    (shared.size() == 1 ? "" : "s") + " with the first (" + list +
                                    "); give the models prefixes");
  }

  // Model-level fields.
  Model m;
  m.ir_version = std::max(a.ir_version, b.ir_version);
  m.opset_imports = a.opset_imports;
  dc::unite_by_key(
      m.opset_imports, b.opset_imports,
      [](const OperatorSetId& o) { return std::string(domain_key(o.domain)); },
      [](const OperatorSetId& earlier, const OperatorSetId& op) {
        if (earlier.version != op.version)
          throw Error("opset_import", "the models import domain '" + op.domain + "' at versions " +
                                          std::to_string(earlier.version) + " and " + std::to_string(op.version) +
                                          "; convert one model first");
      });
  m.producer_name = a.producer_name;
  m.producer_version = a.producer_version;
  m.domain = a.domain;
  m.model_version = a.model_version;
  m.doc_string = a.doc_string;
  m.presence = a.presence;
  m.metadata_props = a.metadata_props;
  dc::unite_props(m.metadata_props, b.metadata_props, "metadata_props");
  m.configuration = a.configuration;
  dc::unite_by_key(m.configuration, b.configuration, [](const DeviceConfiguration& c) { return c.name; },
                   [](const DeviceConfiguration& earlier, const DeviceConfiguration& c) {
                     if (!(earlier == c))
                       throw Error("configuration", "the models define device configuration '" + c.name + "' differently");
                   });
  m.functions = a.functions;
  dc::unite_by_key(
      m.functions, b.functions, [](const Function& f) { return f.domain + '\0' + f.name + '\0' + f.overload; },
      [](const Function& earlier, const Function& f) {
        if (!(earlier == f))
          throw Error("functions", "the models define function '" + f.domain + "." + f.name +
                                       (f.overload.empty() ? "" : ":" + f.overload) + "' differently");
      });
  m.unknown_fields = a.unknown_fields + b.unknown_fields;

  // The graph.
  Graph& g = m.graph;
  g.name = options.graph_name ? *options.graph_name : g1.name + "_" + g2.name;
  g.doc_string = g1.doc_string.empty() ? g2.doc_string
                 : g2.doc_string.empty() ? g1.doc_string
                                         : g1.doc_string + "\n\n" + g2.doc_string;
  g.metadata_props = g1.metadata_props;
  dc::unite_props(g.metadata_props, g2.metadata_props, "graph.metadata_props");
  // The second graph reads the first's outputs where it read the connected inputs (its own
  // outputs, its interface, keep their names).
  std::vector<std::string> out_names2;
  for (const auto& v : g2.outputs) out_names2.push_back(v.name);
  dc::NameMap reads = connect;
  dc::rename_values(g2, reads, [](const std::string&) { return std::optional<std::string>{}; }, {},
                    "second model: graph", 0);
  for (std::size_t k = 0; k < g2.outputs.size(); ++k) g2.outputs[k].name = out_names2[k];
  // From here on the second graph's connected inputs, and their value_info and initializers (a
  // default in IR < 4), carry the first model's names; no other name of the second graph does.
  std::unordered_set<std::string> connected_outs;
  for (const auto& [in, out] : connect) connected_outs.insert(out);

  g.nodes = std::move(g1.nodes);
  for (const auto& name : out_names2)
    if (const auto it = connect.find(name); it != connect.end() && passed_through.erase(name))
      g.nodes.push_back(Node("Identity", {it->second}, {name}));
  for (auto& n : g2.nodes) g.nodes.push_back(std::move(n));

  g.inputs = std::move(g1.inputs);
  for (auto& v : g2.inputs)
    if (!connected_outs.contains(v.name)) g.inputs.push_back(std::move(v));
  std::unordered_set<std::string> typed1;  // names the first graph's value_info types
  for (const auto& v : g1.value_info) typed1.insert(v.name);
  for (auto& v : g1.outputs) {
    if (!connected_outs.contains(v.name)) g.outputs.push_back(std::move(v));
    else if (typed1.insert(v.name).second) g.value_info.push_back(std::move(v));
  }
  for (auto& v : g2.outputs) g.outputs.push_back(std::move(v));
  for (auto& v : g1.value_info) g.value_info.push_back(std::move(v));
  for (auto& v : g2.value_info)
    if (!connected_outs.contains(v.name)) g.value_info.push_back(std::move(v));
  g.initializers = std::move(g1.initializers);
  for (auto& t : g2.initializers)
    if (!connected_outs.contains(t.name)) g.initializers.push_back(std::move(t));
  g.sparse_initializers = std::move(g1.sparse_initializers);
  for (auto& s : g2.sparse_initializers)
    if (!connected_outs.contains(s.values.name)) g.sparse_initializers.push_back(std::move(s));
  g.quantization_annotation = std::move(g1.quantization_annotation);
  std::unordered_map<std::string, std::size_t> annotated;  // tensor name -> first annotation
  for (std::size_t i = 0; i < g.quantization_annotation.size(); ++i)
    annotated.emplace(g.quantization_annotation[i].tensor_name, i);
  for (auto& q : g2.quantization_annotation) {
    const auto it = annotated.find(q.tensor_name);
    if (it == annotated.end()) g.quantization_annotation.push_back(std::move(q));
    else if (!(g.quantization_annotation[it->second] == q))
      throw Error("graph.quantization_annotation", "the models annotate '" + q.tensor_name + "' differently");
  }
  g.unknown_fields = g1.unknown_fields + g2.unknown_fields;
  // An IR version 1 model merged with a newer one: its attributes get the type field the newer
  // IR version requires.
  if (m.ir_version >= 2) type_untyped_attributes(m);

  if (options.inputs.empty() && options.outputs.empty()) return m;
  std::vector<std::string> ins = options.inputs, outs = options.outputs;
  if (ins.empty())
    for (const auto& v : g.inputs) ins.push_back(v.name);
  if (outs.empty())
    for (const auto& v : g.outputs) outs.push_back(v.name);
  return extract_model(m, ins, outs);
}

/// merge_models with a braced io_map: `merge_models(a, b, {{"y", "x"}})`.
[[nodiscard]] inline Model merge_models(const Model& m1, const Model& m2,
                                        std::initializer_list<std::pair<std::string, std::string>> io_map,
                                        const MergeOptions& options = {}) {
  return merge_models(m1, m2, std::span<const std::pair<std::string, std::string>>(io_map.begin(), io_map.size()),
                      options);
}

}  // namespace oxir
