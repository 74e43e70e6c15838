#pragma once
// Tensor (TensorProto) and SparseTensor (SparseTensorProto).

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "../core/data_type.hpp"
#include "../core/dtype_traits.hpp"
#include "../core/error.hpp"
#include "../core/packing.hpp"
#include "buffer.hpp"
#include "common.hpp"
#include "wire_info.hpp"

namespace oxir {

/// TensorProto.DataLocation: whether the values are in the model file or in external data.
enum class DataLocation : std::int32_t { DEFAULT = 0, EXTERNAL = 1 };

/// Which TensorProto field carries the values on the wire. `raw_data` is the little-endian byte
/// field; `typed` means float_data/int32_data/int64_data/double_data/uint64_data as onnx.proto
/// assigns them by data type. The payload in memory is the same either way; this only tells the
/// writer which form to produce (default: raw_data, as onnx's from_array does).
enum class TensorEncoding : std::uint8_t { raw_data, typed };

/// TensorProto.Segment: the part of a large tensor this proto holds.
struct TensorSegment {
  std::int64_t begin = 0;
  std::int64_t end = 0;
  UnknownFields unknown_fields;
  FieldPresence presence;
  friend bool operator==(const TensorSegment&, const TensorSegment&) = default;
};

/// A tensor value: dims, element type and payload. The payload is immutable shared bytes in the
/// raw_data layout (fixed-width little-endian; 4-bit and 2-bit types packed, lowest bits first;
/// bool one byte), so copies share it; STRING tensors keep their elements in `strings`.
struct Tensor {
  std::vector<std::int64_t> dims;
  DataType data_type = DataType::UNDEFINED;
  std::optional<TensorSegment> segment;
  std::string name;
  std::string doc_string;
  Buffer data;                       ///< payload bytes (not for STRING); lazy when external
  std::vector<std::string> strings;  ///< string_data, for STRING tensors
  std::vector<StringStringEntry> external_data;  ///< location/offset/length/checksum as written
  DataLocation data_location = DataLocation::DEFAULT;
  std::vector<StringStringEntry> metadata_props;
  TensorEncoding encoding = TensorEncoding::raw_data;  ///< wire form; not part of ==
  UnknownFields unknown_fields;
  FieldPresence presence;

  /// A tensor over `bytes` (raw_data layout), which it shares without copying.
  [[nodiscard]] static Tensor from_bytes(std::string name, DataType type, std::vector<std::int64_t> dims,
                                         Buffer bytes) {
    Tensor t;
    t.name = std::move(name);
    t.data_type = type;
    t.dims = std::move(dims);
    t.data = std::move(bytes);
    return t;
  }

  /// A tensor of element type data_type_of<T> holding `values` (packed for sub-byte types).
  template <ElementType T>
  [[nodiscard]] static Tensor from_values(std::string name, std::vector<std::int64_t> dims,
                                          std::span<const T> values) {
    Tensor t;
    t.name = std::move(name);
    t.data_type = data_type_of<T>;
    t.dims = std::move(dims);
    if constexpr (std::is_same_v<T, std::string>) {
      t.strings.assign(values.begin(), values.end());
    } else if constexpr (bit_width(data_type_of<T>) < 8) {
      constexpr int bits = bit_width(data_type_of<T>);
      std::vector<std::byte> out(*storage_bytes(data_type_of<T>, values.size()));
      for (std::size_t i = 0; i < values.size(); ++i)
        set_packed(out, i, bits, static_cast<std::uint8_t>(values[i].bits()));
      t.data = Buffer::owned(std::move(out));
    } else {
      std::vector<std::byte> out(values.size() * sizeof(T));
      if (!out.empty()) std::memcpy(out.data(), values.data(), out.size());
      t.data = Buffer::owned(std::move(out));
    }
    return t;
  }
  /// from_values with a braced list: `Tensor::from_values<float>("w", {2}, {1.f, 2.f})`.
  template <ElementType T>
  [[nodiscard]] static Tensor from_values(std::string name, std::vector<std::int64_t> dims,
                                          std::initializer_list<T> values) {
    return from_values<T>(std::move(name), std::move(dims), std::span<const T>(values.begin(), values.size()));
  }

  /// Number of elements (1 for a scalar); nullopt if a dim is negative or the product overflows.
  [[nodiscard]] std::optional<std::uint64_t> element_count() const noexcept {
    std::uint64_t n = 1;
    for (auto d : dims) {
      if (d < 0) return std::nullopt;
      const auto u = static_cast<std::uint64_t>(d);
      if (u != 0 && n > UINT64_MAX / u) return std::nullopt;
      n *= u;
    }
    return n;
  }
  /// Payload size the dims and type call for (sub-byte types packed); nullopt for STRING or overflow.
  [[nodiscard]] std::optional<std::uint64_t> expected_bytes() const noexcept {
    auto n = element_count();
    if (!n) return std::nullopt;
    return storage_bytes(data_type, *n);
  }
  /// True when the values live in external data (data_location == EXTERNAL).
  [[nodiscard]] bool is_external() const noexcept { return data_location == DataLocation::EXTERNAL; }

  /// The payload bytes (loads external data on first access).
  [[nodiscard]] std::span<const std::byte> bytes() const { return data.bytes(); }
  /// Writable payload bytes; detaches this tensor's payload from any copies first.
  [[nodiscard]] std::span<std::byte> mutable_bytes() { return data.mutable_bytes(); }

  /// Typed read view of a byte-aligned element type; throws Error if T does not match data_type
  /// or the payload size does not match the dims.
  template <ElementType T>
    requires(!std::is_same_v<T, std::string> && bit_width(data_type_of<T>) >= 8)
  [[nodiscard]] std::span<const T> values() const {
    check_access(data_type_of<T>, "values");
    auto b = data.aligned_bytes(alignof(T));
    if constexpr (std::is_same_v<T, bool>) check_bools(b, "values");
    return {reinterpret_cast<const T*>(b.data()), b.size() / sizeof(T)};
  }
  /// Writable typed view (detaches the payload first).
  template <ElementType T>
    requires(!std::is_same_v<T, std::string> && bit_width(data_type_of<T>) >= 8)
  [[nodiscard]] std::span<T> mutable_values() {
    check_access(data_type_of<T>, "mutable_values");
    auto b = data.mutable_bytes();  // owned vector storage: aligned for any T
    if constexpr (std::is_same_v<T, bool>) check_bools(b, "mutable_values");
    return {reinterpret_cast<T*>(b.data()), b.size() / sizeof(T)};
  }

  /// Element `index` as T (any element type, including 4- and 2-bit ones); throws Error on a
  /// type mismatch, a payload of the wrong size or an index out of range.
  template <ElementType T>
  [[nodiscard]] T element(std::size_t index) const {
    if constexpr (std::is_same_v<T, std::string>) {
      check_access(DataType::STRING, "element");
      if (index >= strings.size()) throw out_of_range(index);
      return strings[index];
    } else {
      check_access(data_type_of<T>, "element");
      auto b = data.bytes();
      constexpr int bits = bit_width(data_type_of<T>);
      if constexpr (bits < 8) {
        if (index >= *element_count()) throw out_of_range(index);
        return T::from_bits(get_packed(b, index, bits));
      } else {
        if (index >= b.size() / sizeof(T)) throw out_of_range(index);
        // A BOOL byte other than 0 or 1 (a hostile or sloppy file) reads as true, as C converts it;
        // copying it into a bool would be undefined behaviour.
        if constexpr (std::is_same_v<T, bool>) return b[index] != std::byte{0};
        T v;
        std::memcpy(&v, b.data() + index * sizeof(T), sizeof(T));
        return v;
      }
    }
  }
  /// Sets element `index` (detaching the payload first); same checks as element().
  template <ElementType T>
    requires(!std::is_same_v<T, std::string>)
  void set_element(std::size_t index, T value) {
    check_access(data_type_of<T>, "set_element");
    constexpr int bits = bit_width(data_type_of<T>);
    if constexpr (bits < 8) {
      if (index >= *element_count()) throw out_of_range(index);
      set_packed(data.mutable_bytes(), index, bits, static_cast<std::uint8_t>(value.bits()));
    } else {
      if (index >= data.size() / sizeof(T)) throw out_of_range(index);
      std::memcpy(data.mutable_bytes().data() + index * sizeof(T), &value, sizeof(T));
    }
  }

  /// Content equality: every field and the payload bytes; `encoding` and presence are wire
  /// detail and do not count.
  friend bool operator==(const Tensor& a, const Tensor& b) {
    return a.dims == b.dims && a.data_type == b.data_type && a.segment == b.segment && a.name == b.name &&
           a.doc_string == b.doc_string && a.strings == b.strings && a.external_data == b.external_data &&
           a.data_location == b.data_location && a.metadata_props == b.metadata_props &&
           a.unknown_fields == b.unknown_fields && a.data == b.data;
  }

 private:
  void check_access(DataType want, const char* what) const {
    if (want != data_type)
      throw Error("tensor '" + name + "'", std::string(what) + "<" + std::string(data_type_name(want)) +
                                               "> on a tensor of type " + std::string(data_type_name(data_type)));
    if (want == DataType::STRING) return;
    auto need = expected_bytes();
    if (!need || *need != data.size())
      throw Error("tensor '" + name + "'", "payload has " + std::to_string(data.size()) +
                                               " bytes, dims and type call for " +
                                               (need ? std::to_string(*need) : std::string("an invalid size")));
  }
  // A bool view is only valid over bytes 0 and 1 (any other byte is not a bool object).
  void check_bools(std::span<const std::byte> b, const char* what) const {
    for (std::size_t i = 0; i < b.size(); ++i)
      if (std::to_integer<unsigned>(b[i]) > 1)
        throw Error("tensor '" + name + "'", std::string(what) + "<bool>: element " + std::to_string(i) + " is byte " +
                                                 std::to_string(std::to_integer<unsigned>(b[i])) + ", not 0 or 1");
  }
  [[nodiscard]] Error out_of_range(std::size_t index) const {
    return Error("tensor '" + name + "'", "element index " + std::to_string(index) + " out of range");
  }
};

/// A tensor whose payload in memory does not fit its dims and data type: `field` names the
/// TensorProto field at fault ("dims[i]", "dims", "string_data" or "raw_data").
struct PayloadMismatch {
  std::string field;
  std::string message;
};

/// What load_model (the decoder) and check() require of a tensor: dims of at least 0 whose element
/// count fits 64 bits and, for a tensor stored inline (not external, whose data is checked when
/// read) of a known data type, one string per element or exactly the bytes its type packs that
/// many elements into. A segment holds part of a tensor and is not checked. nullopt when it fits.
[[nodiscard]] inline std::optional<PayloadMismatch> payload_mismatch(const Tensor& t) {
  if (t.segment) return std::nullopt;
  for (std::size_t i = 0; i < t.dims.size(); ++i)
    if (t.dims[i] < 0)
      return PayloadMismatch{"dims[" + std::to_string(i) + "]", "negative dimension " + std::to_string(t.dims[i])};
  const auto count = t.element_count();
  if (!count) return PayloadMismatch{"dims", "element count overflows 64 bits"};
  if (t.is_external()) return std::nullopt;
  if (t.data_type == DataType::STRING) {
    if (t.strings.size() == *count) return std::nullopt;
    return PayloadMismatch{"string_data",
                           std::to_string(t.strings.size()) + " strings for " + std::to_string(*count) + " elements"};
  }
  if (!is_known(t.data_type) || t.data_type == DataType::UNDEFINED) return std::nullopt;  // nothing to check against
  const auto need = storage_bytes(t.data_type, *count);
  if (!need) return PayloadMismatch{"dims", "payload size overflows 64 bits"};
  if (t.data.size() == *need) return std::nullopt;
  return PayloadMismatch{"raw_data", std::to_string(t.data.size()) + " bytes of " +
                                         std::string(data_type_name(t.data_type)) + " data for dims that need " +
                                         std::to_string(*need)};
}

/// SparseTensorProto: non-zero `values` (1-D) at `indices` ([NNZ] linear or [NNZ, rank]) in a
/// dense tensor of shape `dims`.
struct SparseTensor {
  Tensor values;
  Tensor indices;
  std::vector<std::int64_t> dims;
  UnknownFields unknown_fields;
  FieldPresence presence;  ///< also records an empty values/indices message being present
  friend bool operator==(const SparseTensor&, const SparseTensor&) = default;
};

}  // namespace oxir
