#pragma once
// ValueInfo (ValueInfoProto): a named value with its type.

#include <optional>
#include <string>
#include <vector>

#include "common.hpp"
#include "type.hpp"
#include "wire_info.hpp"

namespace oxir {

/// Name, type and documentation of a graph input, output or intermediate value.
struct ValueInfo {
  std::string name;
  std::optional<Type> type;  ///< nullopt when the proto has no type
  std::string doc_string;
  std::vector<StringStringEntry> metadata_props;
  UnknownFields unknown_fields;
  FieldPresence presence;

  ValueInfo() = default;
  /// A value named `n` of type `t`.
  ValueInfo(std::string n, Type t) : name(std::move(n)), type(std::move(t)) {}
  /// A value named `n` with no type information.
  explicit ValueInfo(std::string n) : name(std::move(n)) {}

  friend bool operator==(const ValueInfo&, const ValueInfo&) = default;
};

}  // namespace oxir
