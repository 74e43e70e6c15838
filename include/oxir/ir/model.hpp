#pragma once
// Model (ModelProto) and TrainingInfo (TrainingInfoProto).

#include <cstdint>
#include <optional>
#include <string>
#include <cstddef>
#include <functional>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common.hpp"
#include "function.hpp"
#include "graph.hpp"
#include "views.hpp"
#include "wire_info.hpp"

namespace oxir {

/// TrainingInfoProto: an initialization step and a training algorithm step with their bindings.
struct TrainingInfo {
  Graph initialization;
  Graph algorithm;
  std::vector<StringStringEntry> initialization_binding;
  std::vector<StringStringEntry> update_binding;
  UnknownFields unknown_fields;
  FieldPresence presence;  ///< also records an empty initialization/algorithm graph being present
  friend bool operator==(const TrainingInfo&, const TrainingInfo&) = default;
};

/// A whole model: metadata, the opsets it uses, the main graph, model-local functions and
/// training information. A regular value: copies are independent (payload bytes are shared
/// copy-on-write, see Buffer), `==` compares content.
struct Model {
  std::int64_t ir_version = 0;
  std::vector<OperatorSetId> opset_imports;
  std::string producer_name;
  std::string producer_version;
  std::string domain;
  std::int64_t model_version = 0;
  std::string doc_string;
  Graph graph;  ///< presence.has(7) records an empty graph being present
  std::vector<StringStringEntry> metadata_props;
  std::vector<TrainingInfo> training_info;
  std::vector<Function> functions;
  std::vector<DeviceConfiguration> configuration;
  UnknownFields unknown_fields;
  FieldPresence presence;

  /// The imported version of `op_domain` ("" and "ai.onnx" both name the default domain).
  [[nodiscard]] std::optional<std::int64_t> opset_version(std::string_view op_domain) const noexcept {
    return find_opset(opset_imports, op_domain);
  }
  /// Imports `op_domain` at `version` (replacing an existing import of that domain).
  void set_opset_version(std::string_view op_domain, std::int64_t version) {
    const bool want_default = is_default_domain(op_domain);
    for (auto& o : opset_imports)
      if (want_default ? is_default_domain(o.domain) : o.domain == op_domain) {
        o.version = version;
        return;
      }
    opset_imports.push_back({std::string(op_domain), version, {}, {}});
  }
  /// The model-local function (domain, name, overload), or nullptr.
  [[nodiscard]] const Function* find_function(std::string_view fn_domain, std::string_view fn_name,
                                              std::string_view fn_overload = {}) const noexcept {
    for (const auto& f : functions)
      if (f.domain == fn_domain && f.name == fn_name && f.overload == fn_overload) return &f;
    return nullptr;
  }

  friend bool operator==(const Model&, const Model&) = default;
};

/// Model::find_function for many lookups: a list of more than a few functions is indexed once,
/// so that a file of many functions and many calls is not read in functions x nodes steps.
/// Answers exactly as find_function (the first function of that domain, name and overload).
/// Views the list, which must outlive the table and not change while it is used.
class FunctionTable {
 public:
  FunctionTable() = default;
  explicit FunctionTable(const std::vector<Function>& functions) : functions_(&functions) {
    if (functions.size() <= kLinear) return;
    index_.reserve(functions.size());
    for (const auto& f : functions) index_.try_emplace(Key{f.domain, f.name, f.overload}, &f);
  }
  [[nodiscard]] const Function* find(std::string_view domain, std::string_view name,
                                     std::string_view overload = {}) const {
    if (!functions_) return nullptr;
    if (functions_->size() <= kLinear) {
      for (const auto& f : *functions_)
        if (f.domain == domain && f.name == name && f.overload == overload) return &f;
      return nullptr;
    }
    const auto it = index_.find(Key{domain, name, overload});
    return it == index_.end() ? nullptr : it->second;
  }

 private:
  static constexpr std::size_t kLinear = 8;
  struct Key {
    std::string_view domain, name, overload;
    friend bool operator==(const Key&, const Key&) = default;
  };
  struct KeyHash {
    std::size_t operator()(const Key& k) const noexcept {
      const std::hash<std::string_view> h;
      return (h(k.domain) * 31 + h(k.name)) * 31 + h(k.overload);
    }
  };
  const std::vector<Function>* functions_ = nullptr;
  std::unordered_map<Key, const Function*, KeyHash> index_;
};

/// Gives each attribute without a type field (IR version 1 had none) the type of the value it
/// holds, in every graph of `model` at any depth, its functions and its training graphs: what a
/// model needs once its ir_version is 2 or later (upgrade_opset and merge_models raise it).
/// Attributes that hold nothing, and references to a function's attributes, stay as they are.
inline void type_untyped_attributes(Model& model) {
  const auto fix = [](Node& n) {
    for (auto& a : n.attributes) {
      const auto held = static_cast<AttributeType>(a.value.index());
      if (a.type == AttributeType::UNDEFINED && a.ref_attr_name.empty() && held != AttributeType::UNDEFINED)
        a.type = held;
    }
  };
  const auto fix_graph = [&](Graph& g) {
    for (Node& n : views::all_nodes(g)) fix(n);
  };
  fix_graph(model.graph);
  for (auto& t : model.training_info) {
    fix_graph(t.initialization);
    fix_graph(t.algorithm);
  }
  for (auto& f : model.functions)
    for (Node& n : f.nodes) {
      fix(n);
      for (auto& a : n.attributes)
        for (Graph& sub : views::attribute_graphs(a)) fix_graph(sub);
    }
}

}  // namespace oxir
