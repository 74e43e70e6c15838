#pragma once
// Function (FunctionProto): a model-local operator defined by a body of nodes.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common.hpp"
#include "graph.hpp"
#include "value_info.hpp"
#include "wire_info.hpp"

namespace oxir {

/// A function: called by nodes whose (domain, op_type, overload) equal (domain, name, overload).
/// Inputs, outputs and attributes are formal parameters by name; `attribute_protos` are
/// attributes with default values (IR 9+), `attributes` those without.
struct Function {
  std::string name;
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
  std::vector<std::string> attributes;       ///< attribute names without defaults (field `attribute`)
  std::vector<Attribute> attribute_protos;   ///< attributes with defaults (field `attribute_proto`)
  std::vector<Node> nodes;
  std::string doc_string;
  std::vector<OperatorSetId> opset_imports;
  std::string domain;
  std::string overload;
  std::vector<ValueInfo> value_info;
  std::vector<StringStringEntry> metadata_props;
  UnknownFields unknown_fields;
  FieldPresence presence;

  /// The version of `op_domain` this function's body imports ("" and "ai.onnx" are one domain).
  [[nodiscard]] std::optional<std::int64_t> opset_version(std::string_view op_domain) const noexcept {
    return find_opset(opset_imports, op_domain);
  }

  friend bool operator==(const Function&, const Function&) = default;
};

}  // namespace oxir
