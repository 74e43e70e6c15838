#pragma once
// Model (ModelProto) and TrainingInfo (TrainingInfoProto).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common.hpp"
#include "function.hpp"
#include "graph.hpp"
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

}  // namespace oxir
