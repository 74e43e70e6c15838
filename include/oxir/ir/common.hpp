#pragma once
// Small messages shared by several others: key/value entries, opset ids, device configurations,
// quantization annotations.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <variant>
#include <vector>

#include "wire_info.hpp"

namespace oxir {

/// StringStringEntryProto: one key/value pair (metadata_props, external_data, bindings).
struct StringStringEntry {
  std::string key;
  std::string value;
  UnknownFields unknown_fields;
  FieldPresence presence;
  friend bool operator==(const StringStringEntry&, const StringStringEntry&) = default;
};

/// The value for `key` in a key/value list, if present (the first match).
[[nodiscard]] inline std::optional<std::string_view> find_entry(const std::vector<StringStringEntry>& entries,
                                                                std::string_view key) noexcept {
  for (const auto& e : entries)
    if (e.key == key) return std::string_view(e.value);
  return std::nullopt;
}

/// Sets `key` to `value` in a key/value list (replacing the first match, else appending).
inline void set_entry(std::vector<StringStringEntry>& entries, std::string_view key, std::string value) {
  for (auto& e : entries)
    if (e.key == key) {
      e.value = std::move(value);
      return;
    }
  entries.push_back({std::string(key), std::move(value), {}, {}});
}

/// OperatorSetIdProto: an operator set (domain) and its version. "" and "ai.onnx" both name the
/// default domain.
struct OperatorSetId {
  std::string domain;
  std::int64_t version = 0;
  UnknownFields unknown_fields;
  FieldPresence presence;
  friend bool operator==(const OperatorSetId&, const OperatorSetId&) = default;
};

/// True if `domain` is a spelling of the default ONNX domain ("" or "ai.onnx").
[[nodiscard]] constexpr bool is_default_domain(std::string_view domain) noexcept {
  return domain.empty() || domain == "ai.onnx";
}

/// The one spelling of `domain` for keying imports by domain: "" for the default domain.
[[nodiscard]] constexpr std::string_view domain_key(std::string_view domain) noexcept {
  return is_default_domain(domain) ? std::string_view{} : domain;
}

/// The version of `domain` imported in `opsets`, treating "" and "ai.onnx" as one domain.
[[nodiscard]] inline std::optional<std::int64_t> find_opset(const std::vector<OperatorSetId>& opsets,
                                                            std::string_view domain) noexcept {
  const bool want_default = is_default_domain(domain);
  for (const auto& o : opsets)
    if (want_default ? is_default_domain(o.domain) : o.domain == domain) return o.version;
  return std::nullopt;
}

/// find_opset for many lookups in one list of imports: a list longer than a few entries is
/// indexed once, so that a file of many imports and many nodes is not read in imports x nodes
/// steps. Answers exactly as find_opset (the first import of a domain counts). Views the list,
/// which must outlive the table and not change while it is used.
class OpsetTable {
 public:
  OpsetTable() = default;
  explicit OpsetTable(const std::vector<OperatorSetId>& opsets) : opsets_(&opsets) {
    if (opsets.size() <= kLinear) return;
    index_.reserve(opsets.size());
    for (const auto& o : opsets) index_.try_emplace(domain_key(o.domain), o.version);
  }
  [[nodiscard]] std::optional<std::int64_t> find(std::string_view domain) const {
    if (!opsets_) return std::nullopt;
    if (opsets_->size() <= kLinear) return find_opset(*opsets_, domain);
    const auto it = index_.find(domain_key(domain));
    if (it == index_.end()) return std::nullopt;
    return it->second;
  }

 private:
  static constexpr std::size_t kLinear = 8;
  const std::vector<OperatorSetId>* opsets_ = nullptr;
  std::unordered_map<std::string_view, std::int64_t> index_;
};

/// TensorAnnotation: quantization parameter tensor names of one tensor.
struct TensorAnnotation {
  std::string tensor_name;
  std::vector<StringStringEntry> quant_parameter_tensor_names;
  UnknownFields unknown_fields;
  FieldPresence presence;
  friend bool operator==(const TensorAnnotation&, const TensorAnnotation&) = default;
};

/// DeviceConfigurationProto: a named multi-device configuration of the model.
struct DeviceConfiguration {
  std::string name;
  std::int32_t num_devices = 0;
  std::vector<std::string> device;
  UnknownFields unknown_fields;
  FieldPresence presence;
  friend bool operator==(const DeviceConfiguration&, const DeviceConfiguration&) = default;
};

/// IntIntListEntryProto: an int64 key with a list of int64 values.
struct IntIntListEntry {
  std::int64_t key = 0;
  std::vector<std::int64_t> value;
  UnknownFields unknown_fields;
  FieldPresence presence;
  friend bool operator==(const IntIntListEntry&, const IntIntListEntry&) = default;
};

/// SimpleShardedDimProto: a dimension (number or symbol) split into `num_shards` parts.
struct SimpleShardedDim {
  std::variant<std::monostate, std::int64_t, std::string> dim;  ///< dim_value / dim_param oneof
  std::int64_t num_shards = 0;
  UnknownFields unknown_fields;
  FieldPresence presence;
  friend bool operator==(const SimpleShardedDim&, const SimpleShardedDim&) = default;
};

/// ShardedDimProto: how one axis is sharded.
struct ShardedDim {
  std::int64_t axis = 0;
  std::vector<SimpleShardedDim> simple_sharding;
  UnknownFields unknown_fields;
  FieldPresence presence;
  friend bool operator==(const ShardedDim&, const ShardedDim&) = default;
};

/// ShardingSpecProto: how one tensor is sharded over devices.
struct ShardingSpec {
  std::string tensor_name;
  std::vector<std::int64_t> device;
  std::vector<IntIntListEntry> index_to_device_group_map;
  std::vector<ShardedDim> sharded_dim;
  UnknownFields unknown_fields;
  FieldPresence presence;
  friend bool operator==(const ShardingSpec&, const ShardingSpec&) = default;
};

/// NodeDeviceConfigurationProto: a node's placement under one device configuration.
struct NodeDeviceConfiguration {
  std::string configuration_id;
  std::vector<ShardingSpec> sharding_spec;
  std::int32_t pipeline_stage = 0;
  UnknownFields unknown_fields;
  FieldPresence presence;
  friend bool operator==(const NodeDeviceConfiguration&, const NodeDeviceConfiguration&) = default;
};

}  // namespace oxir
