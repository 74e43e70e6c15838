#pragma once
// Attribute, Node and Graph: AttributeProto, NodeProto and GraphProto. They are defined together
// because they contain each other (a Graph attribute of a Node of a Graph).

#include <bit>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "../core/error.hpp"
#include "box.hpp"
#include "common.hpp"
#include "tensor.hpp"
#include "type.hpp"
#include "value_info.hpp"
#include "wire_info.hpp"

namespace oxir {

struct Graph;

/// AttributeProto.AttributeType, numbered as in onnx.proto.
enum class AttributeType : std::int32_t {
  UNDEFINED = 0,
  FLOAT = 1,
  INT = 2,
  STRING = 3,
  TENSOR = 4,
  GRAPH = 5,
  FLOATS = 6,
  INTS = 7,
  STRINGS = 8,
  TENSORS = 9,
  GRAPHS = 10,
  SPARSE_TENSOR = 11,
  SPARSE_TENSORS = 12,
  TYPE_PROTO = 13,
  TYPE_PROTOS = 14,
};

/// ONNX spelling of an attribute type ("INTS", ...); "UNDEFINED" for unknown values.
[[nodiscard]] constexpr std::string_view attribute_type_name(AttributeType t) noexcept {
  constexpr std::string_view names[] = {"UNDEFINED", "FLOAT",   "INT",           "STRING",         "TENSOR",
                                        "GRAPH",     "FLOATS",  "INTS",          "STRINGS",        "TENSORS",
                                        "GRAPHS",    "SPARSE_TENSOR", "SPARSE_TENSORS", "TYPE_PROTO", "TYPE_PROTOS"};
  const auto i = static_cast<std::int32_t>(t);
  return i >= 0 && i < 15 ? names[i] : "UNDEFINED";
}

/// The payload of an attribute. Alternative index i holds the value of AttributeType i, so
/// `value.index()` is the kind of value actually held.
using AttributeValue =
    std::variant<std::monostate, float, std::int64_t, std::string, Box<Tensor>, Box<Graph>, std::vector<float>,
                 std::vector<std::int64_t>, std::vector<std::string>, std::vector<Tensor>, std::vector<Graph>,
                 Box<SparseTensor>, std::vector<SparseTensor>, Box<Type>, std::vector<Type>>;

/// A named attribute of a node (or a default of a function attribute). `type` is the type field
/// as written (UNDEFINED in IR version 1 models, which did not have it); `value` holds the payload.
/// A reference attribute (inside a function body) has `ref_attr_name` set and usually no value.
struct Attribute {
  std::string name;
  std::string ref_attr_name;
  std::string doc_string;
  AttributeType type = AttributeType::UNDEFINED;
  AttributeValue value;
  UnknownFields unknown_fields;  ///< unknown fields, and payload fields that contradict `type`
  FieldPresence presence;

  // Special members and constructors that set `value` are defined after Graph: the variant's
  // special members need every alternative complete, and clang instantiates them eagerly.
  Attribute();
  Attribute(const Attribute&);
  Attribute(Attribute&&) noexcept;
  Attribute& operator=(const Attribute&);
  Attribute& operator=(Attribute&&) noexcept;
  ~Attribute();
  Attribute(std::string n, float v);
  Attribute(std::string n, double v);
  Attribute(std::string n, std::int64_t v);
  Attribute(std::string n, int v);
  Attribute(std::string n, std::string v);
  Attribute(std::string n, const char* v);
  Attribute(std::string n, Tensor v);
  Attribute(std::string n, Graph v);
  Attribute(std::string n, SparseTensor v);
  Attribute(std::string n, Type v);
  Attribute(std::string n, std::vector<float> v);
  Attribute(std::string n, std::vector<std::int64_t> v);
  Attribute(std::string n, std::vector<std::string> v);
  Attribute(std::string n, std::vector<Tensor> v);
  Attribute(std::string n, std::vector<Graph> v);
  Attribute(std::string n, std::vector<SparseTensor> v);
  Attribute(std::string n, std::vector<Type> v);

  /// A reference to the attribute `ref` of the enclosing function, of type `t`.
  [[nodiscard]] static Attribute reference(std::string n, std::string ref, AttributeType t);

  /// The kind of value: the alternative `value` holds (right also for IR-1 attributes without
  /// `type`), else `type` (a value left at its default is not written, e.g. an empty INTS list).
  [[nodiscard]] AttributeType kind() const noexcept {
    return value.index() != 0 ? static_cast<AttributeType>(value.index()) : type;
  }

  [[nodiscard]] float as_float() const { return get<float>(AttributeType::FLOAT); }
  [[nodiscard]] std::int64_t as_int() const { return get<std::int64_t>(AttributeType::INT); }
  [[nodiscard]] const std::string& as_string() const { return get<std::string>(AttributeType::STRING); }
  [[nodiscard]] const Tensor& as_tensor() const { return *get<Box<Tensor>>(AttributeType::TENSOR); }
  [[nodiscard]] const Graph& as_graph() const { return *get<Box<Graph>>(AttributeType::GRAPH); }
  [[nodiscard]] Graph& as_graph() { return *const_cast<Box<Graph>&>(get<Box<Graph>>(AttributeType::GRAPH)); }
  [[nodiscard]] const SparseTensor& as_sparse_tensor() const {
    return *get<Box<SparseTensor>>(AttributeType::SPARSE_TENSOR);
  }
  [[nodiscard]] const Type& as_type() const { return *get<Box<Type>>(AttributeType::TYPE_PROTO); }
  [[nodiscard]] const std::vector<float>& as_floats() const { return get<std::vector<float>>(AttributeType::FLOATS); }
  [[nodiscard]] const std::vector<std::int64_t>& as_ints() const {
    return get<std::vector<std::int64_t>>(AttributeType::INTS);
  }
  [[nodiscard]] const std::vector<std::string>& as_strings() const {
    return get<std::vector<std::string>>(AttributeType::STRINGS);
  }
  [[nodiscard]] const std::vector<Tensor>& as_tensors() const {
    return get<std::vector<Tensor>>(AttributeType::TENSORS);
  }
  [[nodiscard]] const std::vector<Graph>& as_graphs() const { return get<std::vector<Graph>>(AttributeType::GRAPHS); }
  [[nodiscard]] std::vector<Graph>& as_graphs() {
    return const_cast<std::vector<Graph>&>(get<std::vector<Graph>>(AttributeType::GRAPHS));
  }
  [[nodiscard]] const std::vector<SparseTensor>& as_sparse_tensors() const {
    return get<std::vector<SparseTensor>>(AttributeType::SPARSE_TENSORS);
  }
  [[nodiscard]] const std::vector<Type>& as_types() const { return get<std::vector<Type>>(AttributeType::TYPE_PROTOS); }

  /// Content equality; floats compare by bit pattern so that a NaN attribute equals its copy.
  friend bool operator==(const Attribute& a, const Attribute& b);

 private:
  template <class T>
  const T& get(AttributeType want) const {
    if (value.index() == 0 && type == want) {
      // Declared but absent on the wire: the field's default, as protobuf readers see it.
      static const T fallback{};
      if constexpr (std::is_same_v<T, Box<Tensor>> || std::is_same_v<T, Box<Graph>> ||
                    std::is_same_v<T, Box<SparseTensor>> || std::is_same_v<T, Box<Type>>) {
        throw Error("attribute '" + name + "'", "has no " + std::string(attribute_type_name(want)) + " value");
      } else {
        return fallback;
      }
    }
    if (auto p = std::get_if<T>(&value)) {
      if constexpr (std::is_same_v<T, Box<Tensor>> || std::is_same_v<T, Box<Graph>> ||
                    std::is_same_v<T, Box<SparseTensor>> || std::is_same_v<T, Box<Type>>) {
        if (!p->has_value()) throw Error("attribute '" + name + "'", "holds an empty value");
      }
      return *p;
    }
    throw Error("attribute '" + name + "'", "is " + std::string(attribute_type_name(kind())) + ", not " +
                                                std::string(attribute_type_name(want)));
  }
};

/// A call of an operator: inputs and outputs are value names ("" = an omitted optional input or output).
struct Node {
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
  std::string name;
  std::string op_type;
  std::string domain;    ///< "" (or "ai.onnx") is the default ONNX domain
  std::string overload;  ///< selects a model-local function overload
  std::vector<Attribute> attributes;
  std::string doc_string;
  std::vector<StringStringEntry> metadata_props;
  std::vector<NodeDeviceConfiguration> device_configurations;
  UnknownFields unknown_fields;
  FieldPresence presence;

  Node() = default;
  /// A call of `op` (in `op_domain`, "" = default ONNX domain) on named inputs and outputs.
  Node(std::string op, std::vector<std::string> in, std::vector<std::string> out, std::string node_name = {},
       std::string op_domain = {})
      : inputs(std::move(in)),
        outputs(std::move(out)),
        name(std::move(node_name)),
        op_type(std::move(op)),
        domain(std::move(op_domain)) {}

  /// The attribute named `attr`, or nullptr.
  [[nodiscard]] const Attribute* find_attribute(std::string_view attr) const noexcept {
    for (const auto& a : attributes)
      if (a.name == attr) return &a;
    return nullptr;
  }
  [[nodiscard]] Attribute* find_attribute(std::string_view attr) noexcept {
    return const_cast<Attribute*>(std::as_const(*this).find_attribute(attr));
  }
  /// Adds or replaces an attribute; returns *this for chaining.
  Node& set_attribute(Attribute a) {
    if (auto p = find_attribute(a.name))
      *p = std::move(a);
    else
      attributes.push_back(std::move(a));
    return *this;
  }
  /// An INT attribute's value, or `fallback` if absent.
  [[nodiscard]] std::int64_t attribute_or(std::string_view attr, std::int64_t fallback) const {
    auto a = find_attribute(attr);
    return a ? a->as_int() : fallback;
  }
  /// A FLOAT attribute's value, or `fallback` if absent.
  [[nodiscard]] float attribute_or(std::string_view attr, float fallback) const {
    auto a = find_attribute(attr);
    return a ? a->as_float() : fallback;
  }
  /// A STRING attribute's value, or `fallback` if absent.
  [[nodiscard]] std::string attribute_or(std::string_view attr, std::string_view fallback) const {
    auto a = find_attribute(attr);
    return a ? a->as_string() : std::string(fallback);
  }
  /// True if input `i` is given (exists and is not the empty name).
  [[nodiscard]] bool has_input(std::size_t i) const noexcept { return i < inputs.size() && !inputs[i].empty(); }
  /// True if output `i` is requested.
  [[nodiscard]] bool has_output(std::size_t i) const noexcept { return i < outputs.size() && !outputs[i].empty(); }

  friend bool operator==(const Node&, const Node&) = default;
};

/// A computation graph: nodes, the values it takes and produces, constants (initializers) and
/// type annotations of intermediate values. Names are the edges between nodes.
struct Graph {
  std::vector<Node> nodes;
  std::string name;
  std::vector<Tensor> initializers;
  std::vector<SparseTensor> sparse_initializers;
  std::string doc_string;
  std::vector<ValueInfo> inputs;
  std::vector<ValueInfo> outputs;
  std::vector<ValueInfo> value_info;
  std::vector<TensorAnnotation> quantization_annotation;
  std::vector<StringStringEntry> metadata_props;
  UnknownFields unknown_fields;
  FieldPresence presence;

  /// The first node named `node_name` (names are optional and not always unique), or nullptr.
  [[nodiscard]] const Node* find_node(std::string_view node_name) const noexcept {
    for (const auto& n : nodes)
      if (n.name == node_name) return &n;
    return nullptr;
  }
  [[nodiscard]] Node* find_node(std::string_view node_name) noexcept {
    return const_cast<Node*>(std::as_const(*this).find_node(node_name));
  }
  /// The node producing value `value_name`, or nullptr (graph inputs and initializers have none).
  [[nodiscard]] const Node* find_producer(std::string_view value_name) const noexcept {
    if (value_name.empty()) return nullptr;
    for (const auto& n : nodes)
      for (const auto& o : n.outputs)
        if (o == value_name) return &n;
    return nullptr;
  }
  /// The initializer named `tensor_name`, or nullptr.
  [[nodiscard]] const Tensor* find_initializer(std::string_view tensor_name) const noexcept {
    for (const auto& t : initializers)
      if (t.name == tensor_name) return &t;
    return nullptr;
  }
  [[nodiscard]] Tensor* find_initializer(std::string_view tensor_name) noexcept {
    return const_cast<Tensor*>(std::as_const(*this).find_initializer(tensor_name));
  }
  /// The type annotation of `value_name`, searched in inputs, outputs, then value_info; or nullptr.
  [[nodiscard]] const ValueInfo* find_value_info(std::string_view value_name) const noexcept {
    for (const auto* list : {&inputs, &outputs, &value_info})
      for (const auto& v : *list)
        if (v.name == value_name) return &v;
    return nullptr;
  }
  [[nodiscard]] ValueInfo* find_value_info(std::string_view value_name) noexcept {
    return const_cast<ValueInfo*>(std::as_const(*this).find_value_info(value_name));
  }

  friend bool operator==(const Graph&, const Graph&) = default;
};

// Members that need Graph complete.
inline Attribute::Attribute() = default;
inline Attribute::Attribute(const Attribute&) = default;
inline Attribute::Attribute(Attribute&&) noexcept = default;
inline Attribute& Attribute::operator=(const Attribute&) = default;
inline Attribute& Attribute::operator=(Attribute&&) noexcept = default;
inline Attribute::~Attribute() = default;
inline Attribute::Attribute(std::string n, double v) : Attribute(std::move(n), static_cast<float>(v)) {}
inline Attribute::Attribute(std::string n, int v) : Attribute(std::move(n), std::int64_t{v}) {}
inline Attribute::Attribute(std::string n, const char* v) : Attribute(std::move(n), std::string(v)) {}
inline Attribute Attribute::reference(std::string n, std::string ref, AttributeType t) {
  Attribute a;
  a.name = std::move(n);
  a.ref_attr_name = std::move(ref);
  a.type = t;
  return a;
}
inline Attribute::Attribute(std::string n, float v) : name(std::move(n)), type(AttributeType::FLOAT), value(v) {}
inline Attribute::Attribute(std::string n, std::int64_t v) : name(std::move(n)), type(AttributeType::INT), value(v) {}
inline Attribute::Attribute(std::string n, std::string v)
    : name(std::move(n)), type(AttributeType::STRING), value(std::move(v)) {}
inline Attribute::Attribute(std::string n, std::vector<float> v)
    : name(std::move(n)), type(AttributeType::FLOATS), value(std::move(v)) {}
inline Attribute::Attribute(std::string n, std::vector<std::int64_t> v)
    : name(std::move(n)), type(AttributeType::INTS), value(std::move(v)) {}
inline Attribute::Attribute(std::string n, std::vector<std::string> v)
    : name(std::move(n)), type(AttributeType::STRINGS), value(std::move(v)) {}
inline Attribute::Attribute(std::string n, std::vector<Tensor> v)
    : name(std::move(n)), type(AttributeType::TENSORS), value(std::move(v)) {}
inline Attribute::Attribute(std::string n, std::vector<SparseTensor> v)
    : name(std::move(n)), type(AttributeType::SPARSE_TENSORS), value(std::move(v)) {}
inline Attribute::Attribute(std::string n, std::vector<Type> v)
    : name(std::move(n)), type(AttributeType::TYPE_PROTOS), value(std::move(v)) {}
inline Attribute::Attribute(std::string n, Tensor v)
    : name(std::move(n)), type(AttributeType::TENSOR), value(Box<Tensor>(std::move(v))) {}
inline Attribute::Attribute(std::string n, Graph v)
    : name(std::move(n)), type(AttributeType::GRAPH), value(Box<Graph>(std::move(v))) {}
inline Attribute::Attribute(std::string n, SparseTensor v)
    : name(std::move(n)), type(AttributeType::SPARSE_TENSOR), value(Box<SparseTensor>(std::move(v))) {}
inline Attribute::Attribute(std::string n, Type v)
    : name(std::move(n)), type(AttributeType::TYPE_PROTO), value(Box<Type>(std::move(v))) {}
inline Attribute::Attribute(std::string n, std::vector<Graph> v)
    : name(std::move(n)), type(AttributeType::GRAPHS), value(std::move(v)) {}

inline bool operator==(const Attribute& a, const Attribute& b) {
  if (a.name != b.name || a.ref_attr_name != b.ref_attr_name || a.doc_string != b.doc_string || a.type != b.type ||
      a.unknown_fields != b.unknown_fields || a.value.index() != b.value.index())
    return false;
  if (auto x = std::get_if<float>(&a.value)) return std::bit_cast<std::uint32_t>(*x) == std::bit_cast<std::uint32_t>(std::get<float>(b.value));
  if (auto x = std::get_if<std::vector<float>>(&a.value)) {
    const auto& y = std::get<std::vector<float>>(b.value);
    if (x->size() != y.size()) return false;
    for (std::size_t i = 0; i < x->size(); ++i)
      if (std::bit_cast<std::uint32_t>((*x)[i]) != std::bit_cast<std::uint32_t>(y[i])) return false;
    return true;
  }
  return a.value == b.value;
}

}  // namespace oxir
