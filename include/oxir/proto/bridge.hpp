#pragma once
// Bridge between oxir's object model and protobuf-generated ONNX classes.
//
// Works with ANY generated ONNX schema (ONNX's own onnx::ModelProto of any version, oxir's
// oxir_onnx::ModelProto from proto/onnx.proto, ...) through the generated accessor API only
// (has_x / x / x_size / mutable_x / add_x / set_x). Nothing here includes a .pb.h: the templates
// are instantiated where the caller has included its generated header.
//
// Conversions keep everything the native codec keeps: presence of default-valued optional
// fields, unknown fields, the wire form of tensor values (raw_data or typed fields). Fields the
// generated class does not know (an older schema, e.g. NodeProto.overload in ONNX 1.12) live in
// its unknown fields; they are read into, and written from, the real oxir fields. So
// from_proto(parsed proto) equals parse_model(same bytes), and serializing to_proto(model) gives
// serialize_model(model) byte for byte. See docs/proto-bridge.md for the few exceptions.

#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "../core/data_type.hpp"
#include "../core/error.hpp"
#include "../io/decode.hpp"
#include "../io/encode.hpp"
#include "../io/wire.hpp"
#include "../ir/model.hpp"

namespace oxir {
namespace proto_detail {

inline std::span<const std::byte> byte_span(std::string_view s) noexcept {
  return std::as_bytes(std::span<const char>(s.data(), s.size()));
}

/// The unknown fields of a generated message as wire bytes ("" when it keeps none or cannot say).
template <class P>
std::string unknown_bytes(const P& p) {
  if constexpr (requires { { p.unknown_fields() } -> std::convertible_to<std::string_view>; }) {
    return std::string(std::string_view(p.unknown_fields()));  // lite runtime: a string
  } else if constexpr (requires(std::string* s) {
                         { p.unknown_fields().empty() } -> std::convertible_to<bool>;
                         p.unknown_fields().SerializeToString(s);
                       }) {
    std::string out;
    if (!p.unknown_fields().empty() && !p.unknown_fields().SerializeToString(&out))
      throw Error("cannot serialize the unknown fields of a protobuf message");
    return out;
  } else {
    return {};
  }
}

/// Replaces the unknown fields of a generated message by `bytes` (wire data).
template <class P>
void store_unknown(P& p, std::string_view bytes) {
  if (bytes.empty()) return;
  if constexpr (requires { p.mutable_unknown_fields()->append(bytes); }) {
    p.mutable_unknown_fields()->append(bytes);
  } else if constexpr (requires { p.mutable_unknown_fields()->ParseFromArray(bytes.data(), 0); }) {
    if (!p.mutable_unknown_fields()->ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
      throw Error("unknown_fields", "not valid protobuf wire data");
  }
}

// ---- small wire writers, for fields kept as bytes ----
inline void put_varint(std::string& out, std::uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7F) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}
inline void put_tag(std::string& out, std::uint32_t field, wire::WireType t) {
  put_varint(out, (static_cast<std::uint64_t>(field) << 3) | static_cast<unsigned>(t));
}
inline void put_fixed(std::string& out, std::uint64_t v, int width) {
  for (int i = 0; i < width; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}
inline void put_len(std::string& out, std::uint32_t field, std::string_view payload) {
  put_tag(out, field, wire::WireType::length_delimited);
  put_varint(out, payload.size());
  out.append(payload);
}
inline std::string encoded(const std::vector<std::byte>& b) {
  return std::string(reinterpret_cast<const char*>(b.data()), b.size());
}

// Bytes per typed-field entry in the payload (sub-byte types: one packed byte per entry).
constexpr std::size_t entry_width(DataType t, std::uint32_t field) noexcept {
  if (field == 4) return 4;
  if (field == 10 || field == 7) return 8;
  const int bits = bit_width(t);
  return bits >= 8 ? static_cast<std::size_t>(bits / 8) : 1;
}

template <class E>
using enum_of = std::remove_cvref_t<E>;

/// Generated message -> oxir.
class FromProto {
 public:
  template <class P>
  Model model(const P& p) {
    Model m;
    Model extra = native(p, &io::Decoder::model);
    m.unknown_fields = std::move(extra.unknown_fields);
    opt(p.has_ir_version(), p.ir_version(), m.ir_version, m.presence, 1);
    for (const auto& x : p.opset_import()) m.opset_imports.push_back(opset(x));
    opt(p.has_producer_name(), p.producer_name(), m.producer_name, m.presence, 2);
    opt(p.has_producer_version(), p.producer_version(), m.producer_version, m.presence, 3);
    opt(p.has_domain(), p.domain(), m.domain, m.presence, 4);
    opt(p.has_model_version(), p.model_version(), m.model_version, m.presence, 5);
    opt(p.has_doc_string(), p.doc_string(), m.doc_string, m.presence, 6);
    if (p.has_graph()) {
      m.graph = graph(p.graph());
      m.presence.set(7);
    }
    for (const auto& x : p.metadata_props()) m.metadata_props.push_back(entry(x));
    if constexpr (requires { p.training_info(); }) {
      for (const auto& x : p.training_info()) m.training_info.push_back(training(x));
    } else {
      m.training_info = std::move(extra.training_info);
    }
    if constexpr (requires { p.functions(); }) {
      for (const auto& x : p.functions()) m.functions.push_back(function(x));
    } else {
      m.functions = std::move(extra.functions);
    }
    if constexpr (requires { p.configuration(); }) {
      for (const auto& x : p.configuration()) m.configuration.push_back(device_config(x));
    } else {
      m.configuration = std::move(extra.configuration);
    }
    return m;
  }

  template <class P>
  Graph graph(const P& p) {
    Graph g;
    Graph extra = native(p, &io::Decoder::graph);
    g.unknown_fields = std::move(extra.unknown_fields);
    for (const auto& x : p.node()) g.nodes.push_back(node(x));
    opt(p.has_name(), p.name(), g.name, g.presence, 2);
    for (const auto& x : p.initializer()) g.initializers.push_back(tensor(x));
    if constexpr (requires { p.sparse_initializer(); }) {
      for (const auto& x : p.sparse_initializer()) g.sparse_initializers.push_back(sparse(x));
    } else {
      g.sparse_initializers = std::move(extra.sparse_initializers);
    }
    opt(p.has_doc_string(), p.doc_string(), g.doc_string, g.presence, 10);
    for (const auto& x : p.input()) g.inputs.push_back(value_info(x));
    for (const auto& x : p.output()) g.outputs.push_back(value_info(x));
    for (const auto& x : p.value_info()) g.value_info.push_back(value_info(x));
    if constexpr (requires { p.quantization_annotation(); }) {
      for (const auto& x : p.quantization_annotation()) g.quantization_annotation.push_back(annotation(x));
    } else {
      g.quantization_annotation = std::move(extra.quantization_annotation);
    }
    if constexpr (requires { p.metadata_props(); }) {
      for (const auto& x : p.metadata_props()) g.metadata_props.push_back(entry(x));
    } else {
      g.metadata_props = std::move(extra.metadata_props);
    }
    return g;
  }

  template <class P>
  Node node(const P& p) {
    Node n;
    Node extra = native(p, &io::Decoder::node);
    n.unknown_fields = std::move(extra.unknown_fields);
    for (const auto& x : p.input()) n.inputs.push_back(x);
    for (const auto& x : p.output()) n.outputs.push_back(x);
    opt(p.has_name(), p.name(), n.name, n.presence, 3);
    opt(p.has_op_type(), p.op_type(), n.op_type, n.presence, 4);
    opt(p.has_domain(), p.domain(), n.domain, n.presence, 7);
    if constexpr (requires { p.has_overload(); }) {
      opt(p.has_overload(), p.overload(), n.overload, n.presence, 8);
    } else {
      n.overload = std::move(extra.overload);
      n.presence.set(8, extra.presence.has(8));
    }
    for (const auto& x : p.attribute()) n.attributes.push_back(attribute(x));
    opt(p.has_doc_string(), p.doc_string(), n.doc_string, n.presence, 6);
    if constexpr (requires { p.metadata_props(); }) {
      for (const auto& x : p.metadata_props()) n.metadata_props.push_back(entry(x));
    } else {
      n.metadata_props = std::move(extra.metadata_props);
    }
    if constexpr (requires { p.device_configurations(); }) {
      for (const auto& x : p.device_configurations()) n.device_configurations.push_back(node_device(x));
    } else {
      n.device_configurations = std::move(extra.device_configurations);
    }
    return n;
  }

  template <class P>
  Attribute attribute(const P& p) {
    Attribute a;
    Attribute extra = native(p, &io::Decoder::attribute);
    opt(p.has_name(), p.name(), a.name, a.presence, 1);
    if constexpr (requires { p.has_ref_attr_name(); })
      opt(p.has_ref_attr_name(), p.ref_attr_name(), a.ref_attr_name, a.presence, 21);
    else
      take_string(extra.ref_attr_name, extra.presence, a.ref_attr_name, a.presence, 21);
    opt(p.has_doc_string(), p.doc_string(), a.doc_string, a.presence, 13);
    if (p.has_type()) {
      a.type = static_cast<AttributeType>(static_cast<std::int32_t>(p.type()));
      a.presence.set(20);
    } else if (extra.presence.has(20)) {  // a value the class's enum does not define
      a.type = extra.type;
      a.presence.set(20);
    }

    // The value: the first payload field in field-number order (= wire order of a protobuf
    // writer), as the native decoder takes the first; the others are kept as wire bytes.
    std::string others;
    const auto free = [&] { return a.value.index() == 0; };
    if (p.has_f()) {
      if (free()) {
        a.value = p.f();
      } else {
        put_tag(others, 2, wire::WireType::fixed32);
        put_fixed(others, std::bit_cast<std::uint32_t>(p.f()), 4);
      }
    }
    if (p.has_i()) {
      if (free()) {
        a.value = static_cast<std::int64_t>(p.i());
      } else {
        put_tag(others, 3, wire::WireType::varint);
        put_varint(others, static_cast<std::uint64_t>(p.i()));
      }
    }
    if (p.has_s()) {
      if (free())
        a.value = std::string(p.s());
      else
        put_len(others, 4, p.s());
    }
    if (p.has_t()) {
      if (free())
        a.value = Box<Tensor>(tensor(p.t()));
      else
        put_len(others, 5, p.t().SerializeAsString());
    }
    if (p.has_g()) {
      if (free())
        a.value = Box<Graph>(graph(p.g()));
      else
        put_len(others, 6, p.g().SerializeAsString());
    }
    if (p.floats_size() > 0) {
      if (free()) {
        a.value = std::vector<float>(p.floats().begin(), p.floats().end());
      } else {
        for (float f : p.floats()) {
          put_tag(others, 7, wire::WireType::fixed32);
          put_fixed(others, std::bit_cast<std::uint32_t>(f), 4);
        }
      }
    }
    if (p.ints_size() > 0) {
      if (free()) {
        a.value = std::vector<std::int64_t>(p.ints().begin(), p.ints().end());
      } else {
        for (auto i : p.ints()) {
          put_tag(others, 8, wire::WireType::varint);
          put_varint(others, static_cast<std::uint64_t>(i));
        }
      }
    }
    if (p.strings_size() > 0) {
      if (free())
        a.value = std::vector<std::string>(p.strings().begin(), p.strings().end());
      else
        for (const auto& s : p.strings()) put_len(others, 9, s);
    }
    if (p.tensors_size() > 0) {
      if (free()) {
        auto& v = a.value.emplace<std::vector<Tensor>>();
        for (const auto& x : p.tensors()) v.push_back(tensor(x));
      } else {
        for (const auto& x : p.tensors()) put_len(others, 10, x.SerializeAsString());
      }
    }
    if (p.graphs_size() > 0) {
      if (free()) {
        auto& v = a.value.emplace<std::vector<Graph>>();
        for (const auto& x : p.graphs()) v.push_back(graph(x));
      } else {
        for (const auto& x : p.graphs()) put_len(others, 11, x.SerializeAsString());
      }
    }
    if constexpr (requires { p.has_tp(); }) {
      if (p.has_tp()) {
        if (free())
          a.value = Box<Type>(type(p.tp()));
        else
          put_len(others, 14, p.tp().SerializeAsString());
      }
    }
    if constexpr (requires { p.type_protos_size(); }) {
      if (p.type_protos_size() > 0) {
        if (free()) {
          auto& v = a.value.emplace<std::vector<Type>>();
          for (const auto& x : p.type_protos()) v.push_back(type(x));
        } else {
          for (const auto& x : p.type_protos()) put_len(others, 15, x.SerializeAsString());
        }
      }
    }
    if constexpr (requires { p.has_sparse_tensor(); }) {
      if (p.has_sparse_tensor()) {
        if (free())
          a.value = Box<SparseTensor>(sparse(p.sparse_tensor()));
        else
          put_len(others, 22, p.sparse_tensor().SerializeAsString());
      }
    }
    if constexpr (requires { p.sparse_tensors_size(); }) {
      if (p.sparse_tensors_size() > 0) {
        if (free()) {
          auto& v = a.value.emplace<std::vector<SparseTensor>>();
          for (const auto& x : p.sparse_tensors()) v.push_back(sparse(x));
        } else {
          for (const auto& x : p.sparse_tensors()) put_len(others, 23, x.SerializeAsString());
        }
      }
    }
    // Payload kinds the class does not know were read from its unknown fields.
    if (free()) a.value = std::move(extra.value);
    a.unknown_fields = std::move(others) + extra.unknown_fields;
    return a;
  }

  template <class P>
  Tensor tensor(const P& p) {
    Tensor x;
    Tensor extra = native(p, &io::Decoder::tensor);
    x.dims.assign(p.dims().begin(), p.dims().end());
    opt(p.has_data_type(), p.data_type(), x.data_type, x.presence, 2);
    if (p.has_segment()) {
      const auto& s = p.segment();
      auto& seg = x.segment.emplace();
      opt(s.has_begin(), s.begin(), seg.begin, seg.presence, 1);
      opt(s.has_end(), s.end(), seg.end, seg.presence, 2);
      seg.unknown_fields = unknown_bytes(s);
    }
    for (const auto& s : p.string_data()) x.strings.push_back(s);
    opt(p.has_name(), p.name(), x.name, x.presence, 8);
    opt(p.has_doc_string(), p.doc_string(), x.doc_string, x.presence, 12);
    const bool have_raw = p.has_raw_data();
    if (have_raw) {
      x.presence.set(9);
      x.encoding = TensorEncoding::raw_data;
      x.data = Buffer::copy_of(byte_span(p.raw_data()));
    }
    for (const auto& e : p.external_data()) x.external_data.push_back(entry(e));
    if (p.has_data_location()) {
      x.data_location = static_cast<DataLocation>(static_cast<std::int32_t>(p.data_location()));
      x.presence.set(14);
    } else if (extra.presence.has(14)) {  // a value the class's enum does not define
      x.data_location = extra.data_location;
      x.presence.set(14);
    }
    if constexpr (requires { p.metadata_props(); }) {
      for (const auto& e : p.metadata_props()) x.metadata_props.push_back(entry(e));
    } else {
      x.metadata_props = std::move(extra.metadata_props);
    }

    // Typed values: into the payload when the field is the one for data_type (and there is no
    // raw_data), else kept as wire bytes after the unknown fields, as the native decoder does.
    const auto field = io::typed_field_for(x.data_type);
    const auto width = entry_width(x.data_type, field);
    std::string others;
    std::vector<std::byte> out;
    bool used_typed = false;
    const auto fixed_values = [&](std::uint32_t f, const auto& values, int w) {
      if (values.size() == 0) return;
      if (!have_raw && f == field) {
        used_typed = true;
        for (auto v : values) append_le(out, to_bits(v), static_cast<std::size_t>(w));
      } else {
        std::string packed;
        for (auto v : values) put_fixed(packed, to_bits(v), w);
        put_len(others, f, packed);
      }
    };
    const auto varint_values = [&](std::uint32_t f, const auto& values) {
      if (values.size() == 0) return;
      if (!have_raw && f == field) {
        used_typed = true;
        for (auto v : values) append_le(out, to_bits(v), width);
      } else {
        std::string packed;
        for (auto v : values) put_varint(packed, to_bits(v));
        put_len(others, f, packed);
      }
    };
    fixed_values(4, p.float_data(), 4);
    varint_values(5, p.int32_data());
    varint_values(7, p.int64_data());
    fixed_values(10, p.double_data(), 8);
    varint_values(11, p.uint64_data());
    if (used_typed) {
      x.encoding = TensorEncoding::typed;
      x.data = Buffer::owned(std::move(out));
    }
    x.unknown_fields = std::move(extra.unknown_fields) + others;
    return x;
  }

  template <class P>
  SparseTensor sparse(const P& p) {
    SparseTensor s;
    if (p.has_values()) {
      s.values = tensor(p.values());
      s.presence.set(1);
    }
    if (p.has_indices()) {
      s.indices = tensor(p.indices());
      s.presence.set(2);
    }
    s.dims.assign(p.dims().begin(), p.dims().end());
    s.unknown_fields = unknown_bytes(p);
    return s;
  }

  template <class P>
  ValueInfo value_info(const P& p) {
    ValueInfo v;
    ValueInfo extra = native(p, &io::Decoder::value_info);
    v.unknown_fields = std::move(extra.unknown_fields);
    opt(p.has_name(), p.name(), v.name, v.presence, 1);
    if (p.has_type()) v.type = type(p.type());
    opt(p.has_doc_string(), p.doc_string(), v.doc_string, v.presence, 3);
    if constexpr (requires { p.metadata_props(); }) {
      for (const auto& e : p.metadata_props()) v.metadata_props.push_back(entry(e));
    } else {
      v.metadata_props = std::move(extra.metadata_props);
    }
    return v;
  }

  template <class P>
  Type type(const P& p) {
    Type y;
    Type extra = native(p, &io::Decoder::type);
    y.unknown_fields = std::move(extra.unknown_fields);
    if (p.has_tensor_type()) y.value = tensor_type<TensorType>(p.tensor_type());
    if (p.has_sequence_type()) {
      const auto& s = p.sequence_type();
      SequenceType st;
      if (s.has_elem_type()) st.elem_type = Box<Type>(type(s.elem_type()));
      st.unknown_fields = unknown_bytes(s);
      y.value = std::move(st);
    }
    if (p.has_map_type()) {
      const auto& s = p.map_type();
      MapType mt;
      opt(s.has_key_type(), s.key_type(), mt.key_type, mt.presence, 1);
      if (s.has_value_type()) mt.value_type = Box<Type>(type(s.value_type()));
      mt.unknown_fields = unknown_bytes(s);
      y.value = std::move(mt);
    }
    if constexpr (requires { p.has_optional_type(); }) {
      if (p.has_optional_type()) {
        const auto& s = p.optional_type();
        OptionalType ot;
        if (s.has_elem_type()) ot.elem_type = Box<Type>(type(s.elem_type()));
        ot.unknown_fields = unknown_bytes(s);
        y.value = std::move(ot);
      }
    }
    if constexpr (requires { p.has_sparse_tensor_type(); }) {
      if (p.has_sparse_tensor_type()) y.value = tensor_type<SparseTensorType>(p.sparse_tensor_type());
    }
    if constexpr (requires { p.has_opaque_type(); }) {
      if (p.has_opaque_type()) {
        const auto& s = p.opaque_type();
        OpaqueType o;
        opt(s.has_domain(), s.domain(), o.domain, o.presence, 1);
        opt(s.has_name(), s.name(), o.name, o.presence, 2);
        o.unknown_fields = unknown_bytes(s);
        y.value = std::move(o);
      }
    }
    if (y.value.index() == 0) y.value = std::move(extra.value);  // a kind the class does not know
    opt(p.has_denotation(), p.denotation(), y.denotation, y.presence, 6);
    return y;
  }

  template <class P>
  Function function(const P& p) {
    Function f;
    Function extra = native(p, &io::Decoder::function);
    f.unknown_fields = std::move(extra.unknown_fields);
    opt(p.has_name(), p.name(), f.name, f.presence, 1);
    for (const auto& x : p.input()) f.inputs.push_back(x);
    for (const auto& x : p.output()) f.outputs.push_back(x);
    for (const auto& x : p.attribute()) f.attributes.push_back(x);
    if constexpr (requires { p.attribute_proto(); }) {
      for (const auto& x : p.attribute_proto()) f.attribute_protos.push_back(attribute(x));
    } else {
      f.attribute_protos = std::move(extra.attribute_protos);
    }
    for (const auto& x : p.node()) f.nodes.push_back(node(x));
    opt(p.has_doc_string(), p.doc_string(), f.doc_string, f.presence, 8);
    for (const auto& x : p.opset_import()) f.opset_imports.push_back(opset(x));
    opt(p.has_domain(), p.domain(), f.domain, f.presence, 10);
    if constexpr (requires { p.has_overload(); })
      opt(p.has_overload(), p.overload(), f.overload, f.presence, 13);
    else
      take_string(extra.overload, extra.presence, f.overload, f.presence, 13);
    if constexpr (requires { p.value_info(); }) {
      for (const auto& x : p.value_info()) f.value_info.push_back(value_info(x));
    } else {
      f.value_info = std::move(extra.value_info);
    }
    if constexpr (requires { p.metadata_props(); }) {
      for (const auto& x : p.metadata_props()) f.metadata_props.push_back(entry(x));
    } else {
      f.metadata_props = std::move(extra.metadata_props);
    }
    return f;
  }

 private:
  // The generated class's unknown fields decoded natively: fields of a newer schema than the
  // class (which oxir knows) land in their oxir fields, truly unknown ones in unknown_fields.
  template <class T, class P>
  T native(const P& p, void (io::Decoder::*read)(wire::Reader, T&)) {
    T out;
    const auto bytes = unknown_bytes(p);
    if (!bytes.empty()) (decoder_.*read)(wire::Reader(byte_span(bytes)), out);
    return out;
  }

  template <class V, class T>
  static void opt(bool has, const T& value, V& out, FieldPresence& presence, int field) {
    if (!has) return;
    if constexpr (std::is_enum_v<V>)
      out = static_cast<V>(static_cast<std::int32_t>(value));
    else
      out = static_cast<V>(value);
    presence.set(field);
  }
  static void take_string(std::string& from, const FieldPresence& from_presence, std::string& out,
                          FieldPresence& presence, int field) {
    out = std::move(from);
    presence.set(field, from_presence.has(field));
  }

  template <class T>
  static std::uint64_t to_bits(T v) noexcept {
    if constexpr (std::is_same_v<T, float>) return std::bit_cast<std::uint32_t>(v);
    else if constexpr (std::is_same_v<T, double>) return std::bit_cast<std::uint64_t>(v);
    else if constexpr (std::is_signed_v<T>) return static_cast<std::uint64_t>(static_cast<std::int64_t>(v));
    else return static_cast<std::uint64_t>(v);
  }
  static void append_le(std::vector<std::byte>& out, std::uint64_t v, std::size_t width) {
    for (std::size_t b = 0; b < width; ++b) out.push_back(static_cast<std::byte>((v >> (8 * b)) & 0xFF));
  }

  template <class T, class P>
  T tensor_type(const P& p) {
    T t;
    opt(p.has_elem_type(), p.elem_type(), t.elem_type, t.presence, 1);
    if (p.has_shape()) {
      const auto& s = p.shape();
      auto& shape = t.shape.emplace();
      for (const auto& d : s.dim()) shape.dims.push_back(dim(d));
      shape.unknown_fields = unknown_bytes(s);
    }
    t.unknown_fields = unknown_bytes(p);
    return t;
  }
  template <class P>
  static Dim dim(const P& p) {
    Dim d;
    if (p.has_dim_value()) d.value = static_cast<std::int64_t>(p.dim_value());
    if (p.has_dim_param()) d.value = std::string(p.dim_param());
    opt(p.has_denotation(), p.denotation(), d.denotation, d.presence, 3);
    d.unknown_fields = unknown_bytes(p);
    return d;
  }
  template <class P>
  static OperatorSetId opset(const P& p) {
    OperatorSetId o;
    opt(p.has_domain(), p.domain(), o.domain, o.presence, 1);
    opt(p.has_version(), p.version(), o.version, o.presence, 2);
    o.unknown_fields = unknown_bytes(p);
    return o;
  }
  template <class P>
  static StringStringEntry entry(const P& p) {
    StringStringEntry e;
    opt(p.has_key(), p.key(), e.key, e.presence, 1);
    opt(p.has_value(), p.value(), e.value, e.presence, 2);
    e.unknown_fields = unknown_bytes(p);
    return e;
  }
  template <class P>
  static TensorAnnotation annotation(const P& p) {
    TensorAnnotation a;
    opt(p.has_tensor_name(), p.tensor_name(), a.tensor_name, a.presence, 1);
    for (const auto& e : p.quant_parameter_tensor_names()) a.quant_parameter_tensor_names.push_back(entry(e));
    a.unknown_fields = unknown_bytes(p);
    return a;
  }
  template <class P>
  TrainingInfo training(const P& p) {
    TrainingInfo t;
    if (p.has_initialization()) {
      t.initialization = graph(p.initialization());
      t.presence.set(1);
    }
    if (p.has_algorithm()) {
      t.algorithm = graph(p.algorithm());
      t.presence.set(2);
    }
    for (const auto& e : p.initialization_binding()) t.initialization_binding.push_back(entry(e));
    for (const auto& e : p.update_binding()) t.update_binding.push_back(entry(e));
    t.unknown_fields = unknown_bytes(p);
    return t;
  }
  template <class P>
  static DeviceConfiguration device_config(const P& p) {
    DeviceConfiguration d;
    opt(p.has_name(), p.name(), d.name, d.presence, 1);
    opt(p.has_num_devices(), p.num_devices(), d.num_devices, d.presence, 2);
    for (const auto& x : p.device()) d.device.push_back(x);
    d.unknown_fields = unknown_bytes(p);
    return d;
  }
  template <class P>
  static NodeDeviceConfiguration node_device(const P& p) {
    NodeDeviceConfiguration d;
    opt(p.has_configuration_id(), p.configuration_id(), d.configuration_id, d.presence, 1);
    for (const auto& s : p.sharding_spec()) d.sharding_spec.push_back(sharding(s));
    opt(p.has_pipeline_stage(), p.pipeline_stage(), d.pipeline_stage, d.presence, 3);
    d.unknown_fields = unknown_bytes(p);
    return d;
  }
  template <class P>
  static ShardingSpec sharding(const P& p) {
    ShardingSpec s;
    opt(p.has_tensor_name(), p.tensor_name(), s.tensor_name, s.presence, 1);
    s.device.assign(p.device().begin(), p.device().end());
    for (const auto& e : p.index_to_device_group_map()) {
      IntIntListEntry x;
      opt(e.has_key(), e.key(), x.key, x.presence, 1);
      x.value.assign(e.value().begin(), e.value().end());
      x.unknown_fields = unknown_bytes(e);
      s.index_to_device_group_map.push_back(std::move(x));
    }
    for (const auto& d : p.sharded_dim()) {
      ShardedDim x;
      opt(d.has_axis(), d.axis(), x.axis, x.presence, 1);
      for (const auto& ss : d.simple_sharding()) {
        SimpleShardedDim y;
        if (ss.has_dim_value()) y.dim = static_cast<std::int64_t>(ss.dim_value());
        if (ss.has_dim_param()) y.dim = std::string(ss.dim_param());
        opt(ss.has_num_shards(), ss.num_shards(), y.num_shards, y.presence, 3);
        y.unknown_fields = unknown_bytes(ss);
        x.simple_sharding.push_back(std::move(y));
      }
      x.unknown_fields = unknown_bytes(d);
      s.sharded_dim.push_back(std::move(x));
    }
    s.unknown_fields = unknown_bytes(p);
    return s;
  }

  io::Decoder decoder_{nullptr, DecodeOptions{600, false}};
};

/// oxir -> generated message.
class ToProto {
 public:
  template <class P>
  void model(const Model& m, P& p) {
    Model missing;  // fields the class lacks, written natively into its unknown fields
    i64(m.ir_version, m.presence, 1, [&](auto v) { p.set_ir_version(v); });
    for (const auto& x : m.opset_imports) opset(x, *p.add_opset_import());
    str(m.producer_name, m.presence, 2, [&](const auto& v) { p.set_producer_name(v); });
    str(m.producer_version, m.presence, 3, [&](const auto& v) { p.set_producer_version(v); });
    str(m.domain, m.presence, 4, [&](const auto& v) { p.set_domain(v); });
    i64(m.model_version, m.presence, 5, [&](auto v) { p.set_model_version(v); });
    str(m.doc_string, m.presence, 6, [&](const auto& v) { p.set_doc_string(v); });
    if (m.presence.has(7) || !(m.graph == Graph{})) graph(m.graph, *p.mutable_graph());
    for (const auto& x : m.metadata_props) entry(x, *p.add_metadata_props());
    if constexpr (requires { p.add_training_info(); }) {
      for (const auto& x : m.training_info) training(x, *p.add_training_info());
    } else {
      missing.training_info = m.training_info;
    }
    if constexpr (requires { p.add_functions(); }) {
      for (const auto& x : m.functions) function(x, *p.add_functions());
    } else {
      missing.functions = m.functions;
    }
    if constexpr (requires { p.add_configuration(); }) {
      for (const auto& x : m.configuration) device_config(x, *p.add_configuration());
    } else {
      missing.configuration = m.configuration;
    }
    finish(p, missing, m.unknown_fields, [](auto& e, const Model& x) { e.model(x); });
  }

  template <class P>
  void graph(const Graph& g, P& p) {
    Graph missing;
    for (const auto& x : g.nodes) node(x, *p.add_node());
    str(g.name, g.presence, 2, [&](const auto& v) { p.set_name(v); });
    for (const auto& x : g.initializers) tensor(x, *p.add_initializer());
    if constexpr (requires { p.add_sparse_initializer(); }) {
      for (const auto& x : g.sparse_initializers) sparse(x, *p.add_sparse_initializer());
    } else {
      missing.sparse_initializers = g.sparse_initializers;
    }
    str(g.doc_string, g.presence, 10, [&](const auto& v) { p.set_doc_string(v); });
    for (const auto& x : g.inputs) value_info(x, *p.add_input());
    for (const auto& x : g.outputs) value_info(x, *p.add_output());
    for (const auto& x : g.value_info) value_info(x, *p.add_value_info());
    if constexpr (requires { p.add_quantization_annotation(); }) {
      for (const auto& x : g.quantization_annotation) annotation(x, *p.add_quantization_annotation());
    } else {
      missing.quantization_annotation = g.quantization_annotation;
    }
    if constexpr (requires { p.add_metadata_props(); }) {
      for (const auto& x : g.metadata_props) entry(x, *p.add_metadata_props());
    } else {
      missing.metadata_props = g.metadata_props;
    }
    finish(p, missing, g.unknown_fields, [](auto& e, const Graph& x) { e.graph(x); });
  }

  template <class P>
  void node(const Node& n, P& p) {
    Node missing;
    for (const auto& x : n.inputs) p.add_input(x);
    for (const auto& x : n.outputs) p.add_output(x);
    str(n.name, n.presence, 3, [&](const auto& v) { p.set_name(v); });
    str(n.op_type, n.presence, 4, [&](const auto& v) { p.set_op_type(v); });
    for (const auto& x : n.attributes) attribute(x, *p.add_attribute());
    str(n.doc_string, n.presence, 6, [&](const auto& v) { p.set_doc_string(v); });
    str(n.domain, n.presence, 7, [&](const auto& v) { p.set_domain(v); });
    if constexpr (requires { p.set_overload(std::string()); }) {
      str(n.overload, n.presence, 8, [&](const auto& v) { p.set_overload(v); });
    } else {
      missing.overload = n.overload;
      missing.presence.set(8, n.presence.has(8));
    }
    if constexpr (requires { p.add_metadata_props(); }) {
      for (const auto& x : n.metadata_props) entry(x, *p.add_metadata_props());
    } else {
      missing.metadata_props = n.metadata_props;
    }
    if constexpr (requires { p.add_device_configurations(); }) {
      for (const auto& x : n.device_configurations) node_device(x, *p.add_device_configurations());
    } else {
      missing.device_configurations = n.device_configurations;
    }
    finish(p, missing, n.unknown_fields, [](auto& e, const Node& x) { e.node(x); });
  }

  template <class P>
  void attribute(const Attribute& a, P& p) {
    Attribute missing;
    str(a.name, a.presence, 1, [&](const auto& v) { p.set_name(v); });
    if constexpr (requires { p.set_ref_attr_name(std::string()); }) {
      str(a.ref_attr_name, a.presence, 21, [&](const auto& v) { p.set_ref_attr_name(v); });
    } else {
      missing.ref_attr_name = a.ref_attr_name;
      missing.presence.set(21, a.presence.has(21));
    }
    str(a.doc_string, a.presence, 13, [&](const auto& v) { p.set_doc_string(v); });
    if (a.type != AttributeType::UNDEFINED || a.presence.has(20)) {
      const auto v = static_cast<std::int32_t>(a.type);
      if (valid_attribute_type<P>(v)) {
        p.set_type(static_cast<enum_of<decltype(p.type())>>(v));
      } else {
        missing.type = a.type;
        missing.presence.set(20);
      }
    }
    const auto& v = a.value;
    if (auto x = std::get_if<float>(&v)) p.set_f(*x);
    if (auto x = std::get_if<std::int64_t>(&v)) p.set_i(*x);
    if (auto x = std::get_if<std::string>(&v)) p.set_s(*x);
    if (auto x = std::get_if<Box<Tensor>>(&v); x && *x) tensor(**x, *p.mutable_t());
    if (auto x = std::get_if<Box<Graph>>(&v); x && *x) graph(**x, *p.mutable_g());
    if (auto x = std::get_if<std::vector<float>>(&v))
      for (float f : *x) p.add_floats(f);
    if (auto x = std::get_if<std::vector<std::int64_t>>(&v))
      for (auto i : *x) p.add_ints(i);
    if (auto x = std::get_if<std::vector<std::string>>(&v))
      for (const auto& s : *x) p.add_strings(s);
    if (auto x = std::get_if<std::vector<Tensor>>(&v))
      for (const auto& t : *x) tensor(t, *p.add_tensors());
    if (auto x = std::get_if<std::vector<Graph>>(&v))
      for (const auto& g : *x) graph(g, *p.add_graphs());
    if (auto x = std::get_if<Box<Type>>(&v); x && *x) {
      if constexpr (requires { p.mutable_tp(); })
        type(**x, *p.mutable_tp());
      else
        missing.value = v;
    }
    if (auto x = std::get_if<std::vector<Type>>(&v)) {
      if constexpr (requires { p.add_type_protos(); })
        for (const auto& t : *x) type(t, *p.add_type_protos());
      else
        missing.value = v;
    }
    if (auto x = std::get_if<Box<SparseTensor>>(&v); x && *x) {
      if constexpr (requires { p.mutable_sparse_tensor(); })
        sparse(**x, *p.mutable_sparse_tensor());
      else
        missing.value = v;
    }
    if (auto x = std::get_if<std::vector<SparseTensor>>(&v)) {
      if constexpr (requires { p.add_sparse_tensors(); })
        for (const auto& s : *x) sparse(s, *p.add_sparse_tensors());
      else
        missing.value = v;
    }
    finish(p, missing, a.unknown_fields, [](auto& e, const Attribute& x) { e.attribute(x); });
  }

  template <class P>
  void tensor(const Tensor& t, P& p) {
    Tensor missing;
    for (auto d : t.dims) p.add_dims(d);
    if (t.data_type != DataType::UNDEFINED || t.presence.has(2)) p.set_data_type(static_cast<std::int32_t>(t.data_type));
    if (t.segment) {
      auto& s = *p.mutable_segment();
      i64(t.segment->begin, t.segment->presence, 1, [&](auto v) { s.set_begin(v); });
      i64(t.segment->end, t.segment->presence, 2, [&](auto v) { s.set_end(v); });
      store_unknown(s, t.segment->unknown_fields);
    }
    const bool inline_data = !t.is_external() && t.data_type != DataType::STRING;
    const bool typed = inline_data && t.encoding == TensorEncoding::typed;
    const auto field = typed ? io::typed_field_for(t.data_type) : 0U;
    if (field != 0) {
      const auto b = t.bytes();
      const auto w = entry_width(t.data_type, field);
      if (b.size() % w != 0)
        throw Error("tensor '" + t.name + "'", "payload of " + std::to_string(b.size()) +
                                                   " bytes is not a whole number of " + std::to_string(w) +
                                                   "-byte elements");
      const bool sign_extend = field == 5 && bit_width(t.data_type) >= 8 && is_signed(t.data_type) &&
                               is_integer(t.data_type);
      for (std::size_t i = 0; i < b.size(); i += w) {
        std::uint64_t v = 0;
        for (std::size_t k = 0; k < w; ++k) v |= static_cast<std::uint64_t>(b[i + k]) << (8 * k);
        switch (field) {
          case 4: p.add_float_data(std::bit_cast<float>(static_cast<std::uint32_t>(v))); break;
          case 10: p.add_double_data(std::bit_cast<double>(v)); break;
          case 7: p.add_int64_data(static_cast<std::int64_t>(v)); break;
          case 11: p.add_uint64_data(v); break;
          default: {
            if (sign_extend && w < 8) {
              const auto shift = 64 - 8 * w;
              v = static_cast<std::uint64_t>(static_cast<std::int64_t>(v << shift) >> shift);
            }
            p.add_int32_data(static_cast<std::int32_t>(static_cast<std::uint32_t>(v)));
          }
        }
      }
    }
    for (const auto& s : t.strings) p.add_string_data(s);
    str(t.name, t.presence, 8, [&](const auto& v) { p.set_name(v); });
    if (inline_data && field == 0 && (!t.data.empty() || t.presence.has(9))) {
      const auto b = t.bytes();
      p.set_raw_data(std::string(reinterpret_cast<const char*>(b.data()), b.size()));
    }
    str(t.doc_string, t.presence, 12, [&](const auto& v) { p.set_doc_string(v); });
    for (const auto& x : t.external_data) entry(x, *p.add_external_data());
    if (t.data_location != DataLocation::DEFAULT || t.presence.has(14)) {
      const auto v = static_cast<std::int32_t>(t.data_location);
      if (valid_data_location<P>(v)) {
        p.set_data_location(static_cast<enum_of<decltype(p.data_location())>>(v));
      } else {
        missing.data_location = t.data_location;
        missing.presence.set(14);
      }
    }
    if constexpr (requires { p.add_metadata_props(); }) {
      for (const auto& x : t.metadata_props) entry(x, *p.add_metadata_props());
    } else {
      missing.metadata_props = t.metadata_props;
    }
    finish(p, missing, t.unknown_fields, [](auto& e, const Tensor& x) { e.tensor(x); });
  }

  template <class P>
  void sparse(const SparseTensor& s, P& p) {
    if (s.presence.has(1) || !(s.values == Tensor{})) tensor(s.values, *p.mutable_values());
    if (s.presence.has(2) || !(s.indices == Tensor{})) tensor(s.indices, *p.mutable_indices());
    for (auto d : s.dims) p.add_dims(d);
    store_unknown(p, s.unknown_fields);
  }

  template <class P>
  void value_info(const ValueInfo& v, P& p) {
    ValueInfo missing;
    str(v.name, v.presence, 1, [&](const auto& x) { p.set_name(x); });
    if (v.type) type(*v.type, *p.mutable_type());
    str(v.doc_string, v.presence, 3, [&](const auto& x) { p.set_doc_string(x); });
    if constexpr (requires { p.add_metadata_props(); }) {
      for (const auto& x : v.metadata_props) entry(x, *p.add_metadata_props());
    } else {
      missing.metadata_props = v.metadata_props;
    }
    finish(p, missing, v.unknown_fields, [](auto& e, const ValueInfo& x) { e.value_info(x); });
  }

  template <class P>
  void type(const Type& y, P& p) {
    Type missing;
    if (auto x = std::get_if<TensorType>(&y.value)) tensor_type(*x, *p.mutable_tensor_type());
    if (auto x = std::get_if<SequenceType>(&y.value)) {
      auto& s = *p.mutable_sequence_type();
      if (x->elem_type) type(*x->elem_type, *s.mutable_elem_type());
      store_unknown(s, x->unknown_fields);
    }
    if (auto x = std::get_if<MapType>(&y.value)) {
      auto& s = *p.mutable_map_type();
      if (x->key_type != DataType::UNDEFINED || x->presence.has(1)) s.set_key_type(static_cast<std::int32_t>(x->key_type));
      if (x->value_type) type(*x->value_type, *s.mutable_value_type());
      store_unknown(s, x->unknown_fields);
    }
    if (auto x = std::get_if<OptionalType>(&y.value)) {
      if constexpr (requires { p.mutable_optional_type(); }) {
        auto& s = *p.mutable_optional_type();
        if (x->elem_type) type(*x->elem_type, *s.mutable_elem_type());
        store_unknown(s, x->unknown_fields);
      } else {
        missing.value = *x;
      }
    }
    if (auto x = std::get_if<SparseTensorType>(&y.value)) {
      if constexpr (requires { p.mutable_sparse_tensor_type(); })
        tensor_type(*x, *p.mutable_sparse_tensor_type());
      else
        missing.value = *x;
    }
    if (auto x = std::get_if<OpaqueType>(&y.value)) {
      if constexpr (requires { p.mutable_opaque_type(); }) {
        auto& s = *p.mutable_opaque_type();
        str(x->domain, x->presence, 1, [&](const auto& v) { s.set_domain(v); });
        str(x->name, x->presence, 2, [&](const auto& v) { s.set_name(v); });
        store_unknown(s, x->unknown_fields);
      } else {
        missing.value = *x;
      }
    }
    str(y.denotation, y.presence, 6, [&](const auto& v) { p.set_denotation(v); });
    finish(p, missing, y.unknown_fields, [](auto& e, const Type& x) { e.type(x); });
  }

  template <class P>
  void function(const Function& f, P& p) {
    Function missing;
    str(f.name, f.presence, 1, [&](const auto& v) { p.set_name(v); });
    for (const auto& x : f.inputs) p.add_input(x);
    for (const auto& x : f.outputs) p.add_output(x);
    for (const auto& x : f.attributes) p.add_attribute(x);
    if constexpr (requires { p.add_attribute_proto(); }) {
      for (const auto& x : f.attribute_protos) attribute(x, *p.add_attribute_proto());
    } else {
      missing.attribute_protos = f.attribute_protos;
    }
    for (const auto& x : f.nodes) node(x, *p.add_node());
    str(f.doc_string, f.presence, 8, [&](const auto& v) { p.set_doc_string(v); });
    for (const auto& x : f.opset_imports) opset(x, *p.add_opset_import());
    str(f.domain, f.presence, 10, [&](const auto& v) { p.set_domain(v); });
    if constexpr (requires { p.set_overload(std::string()); }) {
      str(f.overload, f.presence, 13, [&](const auto& v) { p.set_overload(v); });
    } else {
      missing.overload = f.overload;
      missing.presence.set(13, f.presence.has(13));
    }
    if constexpr (requires { p.add_value_info(); }) {
      for (const auto& x : f.value_info) value_info(x, *p.add_value_info());
    } else {
      missing.value_info = f.value_info;
    }
    if constexpr (requires { p.add_metadata_props(); }) {
      for (const auto& x : f.metadata_props) entry(x, *p.add_metadata_props());
    } else {
      missing.metadata_props = f.metadata_props;
    }
    finish(p, missing, f.unknown_fields, [](auto& e, const Function& x) { e.function(x); });
  }

 private:
  // Unknown fields of `p`: the fields its class lacks (from `missing`, natively encoded; the
  // schema adds fields with higher numbers, so protobuf writing them after the known fields
  // keeps oxir's field order), then the unknown fields proper.
  template <class P, class T, class Emit>
  static void finish(P& p, const T& missing, const UnknownFields& unknown, Emit emit) {
    if (missing.presence.mask() == 0 && missing == T{}) {
      store_unknown(p, unknown);
      return;
    }
    auto bytes = encoded(io::encode_with([&](auto& e) { emit(e, missing); }));
    bytes += unknown;
    store_unknown(p, bytes);
  }

  template <class Set>
  static void str(const std::string& s, const FieldPresence& presence, int field, Set set) {
    if (!s.empty() || presence.has(field)) set(s);
  }
  template <class Set>
  static void i64(std::int64_t v, const FieldPresence& presence, int field, Set set) {
    if (v != 0 || presence.has(field)) set(v);
  }
  template <class Set>
  static void i32(std::int32_t v, const FieldPresence& presence, int field, Set set) {
    if (v != 0 || presence.has(field)) set(v);
  }

  template <class P>
  static bool valid_attribute_type(int v) {
    if constexpr (requires { P::AttributeType_IsValid(v); }) return P::AttributeType_IsValid(v);
    else return true;
  }
  template <class P>
  static bool valid_data_location(int v) {
    if constexpr (requires { P::DataLocation_IsValid(v); }) return P::DataLocation_IsValid(v);
    else return true;
  }

  template <class P>
  static void tensor_type(const auto& t, P& p) {
    if (t.elem_type != DataType::UNDEFINED || t.presence.has(1)) p.set_elem_type(static_cast<std::int32_t>(t.elem_type));
    if (t.shape) {
      auto& s = *p.mutable_shape();
      for (const auto& d : t.shape->dims) {
        auto& pd = *s.add_dim();
        if (auto v = std::get_if<std::int64_t>(&d.value)) pd.set_dim_value(*v);
        if (auto v = std::get_if<std::string>(&d.value)) pd.set_dim_param(*v);
        str(d.denotation, d.presence, 3, [&](const auto& x) { pd.set_denotation(x); });
        store_unknown(pd, d.unknown_fields);
      }
      store_unknown(s, t.shape->unknown_fields);
    }
    store_unknown(p, t.unknown_fields);
  }
  template <class P>
  static void opset(const OperatorSetId& o, P& p) {
    str(o.domain, o.presence, 1, [&](const auto& v) { p.set_domain(v); });
    i64(o.version, o.presence, 2, [&](auto v) { p.set_version(v); });
    store_unknown(p, o.unknown_fields);
  }
  template <class P>
  static void entry(const StringStringEntry& e, P& p) {
    str(e.key, e.presence, 1, [&](const auto& v) { p.set_key(v); });
    str(e.value, e.presence, 2, [&](const auto& v) { p.set_value(v); });
    store_unknown(p, e.unknown_fields);
  }
  template <class P>
  static void annotation(const TensorAnnotation& a, P& p) {
    str(a.tensor_name, a.presence, 1, [&](const auto& v) { p.set_tensor_name(v); });
    for (const auto& e : a.quant_parameter_tensor_names) entry(e, *p.add_quant_parameter_tensor_names());
    store_unknown(p, a.unknown_fields);
  }
  template <class P>
  void training(const TrainingInfo& t, P& p) {
    if (t.presence.has(1) || !(t.initialization == Graph{})) graph(t.initialization, *p.mutable_initialization());
    if (t.presence.has(2) || !(t.algorithm == Graph{})) graph(t.algorithm, *p.mutable_algorithm());
    for (const auto& e : t.initialization_binding) entry(e, *p.add_initialization_binding());
    for (const auto& e : t.update_binding) entry(e, *p.add_update_binding());
    store_unknown(p, t.unknown_fields);
  }
  template <class P>
  static void device_config(const DeviceConfiguration& d, P& p) {
    str(d.name, d.presence, 1, [&](const auto& v) { p.set_name(v); });
    i32(d.num_devices, d.presence, 2, [&](auto v) { p.set_num_devices(v); });
    for (const auto& x : d.device) p.add_device(x);
    store_unknown(p, d.unknown_fields);
  }
  template <class P>
  static void node_device(const NodeDeviceConfiguration& d, P& p) {
    str(d.configuration_id, d.presence, 1, [&](const auto& v) { p.set_configuration_id(v); });
    for (const auto& s : d.sharding_spec) sharding(s, *p.add_sharding_spec());
    i32(d.pipeline_stage, d.presence, 3, [&](auto v) { p.set_pipeline_stage(v); });
    store_unknown(p, d.unknown_fields);
  }
  template <class P>
  static void sharding(const ShardingSpec& s, P& p) {
    str(s.tensor_name, s.presence, 1, [&](const auto& v) { p.set_tensor_name(v); });
    for (auto d : s.device) p.add_device(d);
    for (const auto& e : s.index_to_device_group_map) {
      auto& pe = *p.add_index_to_device_group_map();
      i64(e.key, e.presence, 1, [&](auto v) { pe.set_key(v); });
      for (auto v : e.value) pe.add_value(v);
      store_unknown(pe, e.unknown_fields);
    }
    for (const auto& d : s.sharded_dim) {
      auto& pd = *p.add_sharded_dim();
      i64(d.axis, d.presence, 1, [&](auto v) { pd.set_axis(v); });
      for (const auto& ss : d.simple_sharding) {
        auto& ps = *pd.add_simple_sharding();
        if (auto v = std::get_if<std::int64_t>(&ss.dim)) ps.set_dim_value(*v);
        if (auto v = std::get_if<std::string>(&ss.dim)) ps.set_dim_param(*v);
        i64(ss.num_shards, ss.presence, 3, [&](auto v) { ps.set_num_shards(v); });
        store_unknown(ps, ss.unknown_fields);
      }
      store_unknown(pd, d.unknown_fields);
    }
    store_unknown(p, s.unknown_fields);
  }
};

}  // namespace proto_detail

/// Converts a generated ONNX ModelProto (of any ONNX build) into an oxir::Model.
template <class ModelProto>
[[nodiscard]] Model from_proto(const ModelProto& proto) {
  return proto_detail::FromProto().model(proto);
}

/// Replaces the content of a generated ONNX ModelProto by `model`.
template <class ModelProto>
void to_proto(const Model& model, ModelProto& proto) {
  proto.Clear();
  proto_detail::ToProto().model(model, proto);
}

/// Converts a generated GraphProto into an oxir::Graph.
template <class GraphProto>
[[nodiscard]] Graph graph_from_proto(const GraphProto& proto) {
  return proto_detail::FromProto().graph(proto);
}

/// Replaces the content of a generated GraphProto by `graph`.
template <class GraphProto>
void graph_to_proto(const Graph& graph, GraphProto& proto) {
  proto.Clear();
  proto_detail::ToProto().graph(graph, proto);
}

/// Converts a generated NodeProto into an oxir::Node.
template <class NodeProto>
[[nodiscard]] Node node_from_proto(const NodeProto& proto) {
  return proto_detail::FromProto().node(proto);
}

/// Replaces the content of a generated NodeProto by `node`.
template <class NodeProto>
void node_to_proto(const Node& node, NodeProto& proto) {
  proto.Clear();
  proto_detail::ToProto().node(node, proto);
}

/// Converts a generated AttributeProto into an oxir::Attribute.
template <class AttributeProto>
[[nodiscard]] Attribute attribute_from_proto(const AttributeProto& proto) {
  return proto_detail::FromProto().attribute(proto);
}

/// Replaces the content of a generated AttributeProto by `attribute`.
template <class AttributeProto>
void attribute_to_proto(const Attribute& attribute, AttributeProto& proto) {
  proto.Clear();
  proto_detail::ToProto().attribute(attribute, proto);
}

/// Converts a generated TensorProto into an oxir::Tensor (payload copied, raw_data layout).
template <class TensorProto>
[[nodiscard]] Tensor tensor_from_proto(const TensorProto& proto) {
  return proto_detail::FromProto().tensor(proto);
}

/// Replaces the content of a generated TensorProto by `tensor` (external payloads stay external).
template <class TensorProto>
void tensor_to_proto(const Tensor& tensor, TensorProto& proto) {
  proto.Clear();
  proto_detail::ToProto().tensor(tensor, proto);
}

/// Converts a generated SparseTensorProto into an oxir::SparseTensor.
template <class SparseTensorProto>
[[nodiscard]] SparseTensor sparse_tensor_from_proto(const SparseTensorProto& proto) {
  return proto_detail::FromProto().sparse(proto);
}

/// Replaces the content of a generated SparseTensorProto by `sparse`.
template <class SparseTensorProto>
void sparse_tensor_to_proto(const SparseTensor& sparse, SparseTensorProto& proto) {
  proto.Clear();
  proto_detail::ToProto().sparse(sparse, proto);
}

/// Converts a generated TypeProto into an oxir::Type.
template <class TypeProto>
[[nodiscard]] Type type_from_proto(const TypeProto& proto) {
  return proto_detail::FromProto().type(proto);
}

/// Replaces the content of a generated TypeProto by `type`.
template <class TypeProto>
void type_to_proto(const Type& type, TypeProto& proto) {
  proto.Clear();
  proto_detail::ToProto().type(type, proto);
}

/// Converts a generated ValueInfoProto into an oxir::ValueInfo.
template <class ValueInfoProto>
[[nodiscard]] ValueInfo value_info_from_proto(const ValueInfoProto& proto) {
  return proto_detail::FromProto().value_info(proto);
}

/// Replaces the content of a generated ValueInfoProto by `value_info`.
template <class ValueInfoProto>
void value_info_to_proto(const ValueInfo& value_info, ValueInfoProto& proto) {
  proto.Clear();
  proto_detail::ToProto().value_info(value_info, proto);
}

/// Converts a generated FunctionProto into an oxir::Function.
template <class FunctionProto>
[[nodiscard]] Function function_from_proto(const FunctionProto& proto) {
  return proto_detail::FromProto().function(proto);
}

/// Replaces the content of a generated FunctionProto by `function`.
template <class FunctionProto>
void function_to_proto(const Function& function, FunctionProto& proto) {
  proto.Clear();
  proto_detail::ToProto().function(function, proto);
}

}  // namespace oxir
