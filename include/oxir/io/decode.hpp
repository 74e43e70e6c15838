#pragma once
// Native decoder: protobuf wire bytes -> oxir::Model (and the other messages), without libprotobuf.
// Payloads (raw_data) are not copied when a keeper is given: tensors view the input bytes.

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../core/data_type.hpp"
#include "../core/error.hpp"
#include "../ir/model.hpp"
#include "tensor_fields.hpp"
#include "wire.hpp"

namespace oxir {

/// Options of the native decoder.
struct DecodeOptions {
  /// Deepest message nesting accepted (every message level counts: a subgraph adds three, node,
  /// attribute and graph). Deeper input is rejected instead of exhausting the stack.
  int max_depth = 600;
  /// Reject tensors whose inline payload does not match dims and data type (the spec requires it).
  bool check_payload_sizes = true;
};

namespace io {

/// Decodes protobuf-encoded ONNX messages. `keeper` owns the input bytes; when set, raw_data
/// payloads become zero-copy views that keep it alive, otherwise they are copied.
class Decoder {
 public:
  Decoder(std::shared_ptr<const void> keeper, DecodeOptions options)
      : keeper_(std::move(keeper)), opt_(options) {}

  /// Tensors decoded so far whose data_location is EXTERNAL (load_model skips its walk over
  /// the model when there are none).
  [[nodiscard]] std::size_t external_tensors() const noexcept { return external_tensors_; }

  void model(wire::Reader r, Model& m) {
    Level level(*this);
    while (!r.done()) {
      const auto* start = r.position();
      const auto t = r.tag();
      try {
        switch (t.field) {
          case 1: if (is(t, VARINT)) { m.ir_version = i64(r); m.presence.set(1); continue; } break;
          case 8: if (is(t, LEN)) { opset(sub(r), m.opset_imports.emplace_back()); continue; } break;
          case 2: if (is(t, LEN)) { str(r, m.producer_name); m.presence.set(2); continue; } break;
          case 3: if (is(t, LEN)) { str(r, m.producer_version); m.presence.set(3); continue; } break;
          case 4: if (is(t, LEN)) { str(r, m.domain); m.presence.set(4); continue; } break;
          case 5: if (is(t, VARINT)) { m.model_version = i64(r); m.presence.set(5); continue; } break;
          case 6: if (is(t, LEN)) { str(r, m.doc_string); m.presence.set(6); continue; } break;
          case 7: if (is(t, LEN)) { graph(sub(r), m.graph); m.presence.set(7); continue; } break;
          case 14: if (is(t, LEN)) { entry(sub(r), next_of<14>(m.metadata_props, r, start)); continue; } break;
          case 20: if (is(t, LEN)) { training(sub(r), next_of<20>(m.training_info, r, start)); continue; } break;
          case 25: if (is(t, LEN)) { function(sub(r), next_of<25>(m.functions, r, start)); continue; } break;
          case 26: if (is(t, LEN)) { device_config(sub(r), next_of<26>(m.configuration, r, start)); continue; } break;
          default: break;
        }
        unknown(r, t, start, m.unknown_fields);
      } catch (const Error& e) {
        throw e.within(label_model(t.field, m));
      }
    }
  }

  void graph(wire::Reader r, Graph& g) {
    Level level(*this);
    {
      const auto c = count_fields<1, 5, 11, 12, 13, 15>(r);
      reserve_more(g.nodes, c[0]);
      reserve_more(g.initializers, c[1]);
      reserve_more(g.inputs, c[2]);
      reserve_more(g.outputs, c[3]);
      reserve_more(g.value_info, c[4]);
      reserve_more(g.sparse_initializers, c[5]);
    }
    while (!r.done()) {
      const auto* start = r.position();
      const auto t = r.tag();
      try {
        switch (t.field) {
          case 1: if (is(t, LEN)) { node(sub(r), add(g.nodes)); continue; } break;
          case 2: if (is(t, LEN)) { str(r, g.name); g.presence.set(2); continue; } break;
          case 5: if (is(t, LEN)) { tensor(sub(r), g.initializers.emplace_back()); continue; } break;
          case 15: if (is(t, LEN)) { sparse(sub(r), g.sparse_initializers.emplace_back()); continue; } break;
          case 10: if (is(t, LEN)) { str(r, g.doc_string); g.presence.set(10); continue; } break;
          case 11: if (is(t, LEN)) { value_info(sub(r), add(g.inputs)); continue; } break;
          case 12: if (is(t, LEN)) { value_info(sub(r), add(g.outputs)); continue; } break;
          case 13: if (is(t, LEN)) { value_info(sub(r), add(g.value_info)); continue; } break;
          case 14: if (is(t, LEN)) { annotation(sub(r), next_of<14>(g.quantization_annotation, r, start)); continue; } break;
          case 16: if (is(t, LEN)) { entry(sub(r), next_of<16>(g.metadata_props, r, start)); continue; } break;
          default: break;
        }
        unknown(r, t, start, g.unknown_fields);
      } catch (const Error& e) {
        throw e.within(label_graph(t.field, g));
      }
    }
  }

  void node(wire::Reader r, Node& n) {
    Level level(*this);
    {
      const auto c = count_fields<1, 2, 5>(r);
      reserve_more(n.inputs, c[0]);
      reserve_more(n.outputs, c[1]);
      reserve_more(n.attributes, c[2]);
    }
    while (!r.done()) {
      const auto* start = r.position();
      const auto t = r.tag();
      try {
        switch (t.field) {
          case 1: if (is(t, LEN)) { add_str(r, n.inputs); continue; } break;
          case 2: if (is(t, LEN)) { add_str(r, n.outputs); continue; } break;
          case 3: if (is(t, LEN)) { str(r, n.name); n.presence.set(3); continue; } break;
          case 4: if (is(t, LEN)) { str(r, n.op_type); n.presence.set(4); continue; } break;
          case 7: if (is(t, LEN)) { str(r, n.domain); n.presence.set(7); continue; } break;
          case 8: if (is(t, LEN)) { str(r, n.overload); n.presence.set(8); continue; } break;
          case 5: if (is(t, LEN)) { attribute(sub(r), n.attributes.emplace_back()); continue; } break;
          case 6: if (is(t, LEN)) { str(r, n.doc_string); n.presence.set(6); continue; } break;
          case 9: if (is(t, LEN)) { entry(sub(r), n.metadata_props.emplace_back()); continue; } break;
          case 10: if (is(t, LEN)) { node_device(sub(r), n.device_configurations.emplace_back()); continue; } break;
          default: break;
        }
        unknown(r, t, start, n.unknown_fields);
      } catch (const Error& e) {
        throw e.within(label_node(t.field, n));
      }
    }
  }

  void attribute(wire::Reader r, Attribute& a) {
    Level level(*this);
    Repeats t_parts, sparse_parts;  // occurrences of the singular message fields t and sparse_tensor
    while (!r.done()) {
      const auto* start = r.position();
      const auto t = r.tag();
      try {
        switch (t.field) {
          case 1: if (is(t, LEN)) { str(r, a.name); a.presence.set(1); continue; } break;
          case 21: if (is(t, LEN)) { str(r, a.ref_attr_name); a.presence.set(21); continue; } break;
          case 13: if (is(t, LEN)) { str(r, a.doc_string); a.presence.set(13); continue; } break;
          case 20: if (is(t, VARINT)) { a.type = static_cast<AttributeType>(i32(r)); a.presence.set(20); continue; } break;
          case 2:
            if (is(t, FIXED32) && takes<float>(a)) { a.value = std::bit_cast<float>(r.fixed32()); continue; }
            break;
          case 3:
            if (is(t, VARINT) && takes<std::int64_t>(a)) { a.value = i64(r); continue; }
            break;
          case 4:
            if (is(t, LEN) && takes<std::string>(a)) { str(r, a.value.emplace<std::string>()); continue; }
            break;
          case 5:
            if (is(t, LEN) && takes<Box<Tensor>>(a)) {
              t_parts.add(r.bytes());
              (void)boxed<Tensor>(a);
              continue;
            }
            break;
          case 6:
            if (is(t, LEN) && takes<Box<Graph>>(a)) { graph(sub(r), boxed<Graph>(a)); continue; }
            break;
          case 22:
            if (is(t, LEN) && takes<Box<SparseTensor>>(a)) {
              sparse_parts.add(r.bytes());
              (void)boxed<SparseTensor>(a);
              continue;
            }
            break;
          case 14:
            if (is(t, LEN) && takes<Box<Type>>(a)) { type(sub(r), boxed<Type>(a)); continue; }
            break;
          case 7:
            if ((is(t, FIXED32) || is(t, LEN)) && takes<std::vector<float>>(a)) {
              const bool fresh = a.value.index() == 0;
              auto& floats = list<std::vector<float>>(a);
              repeated_f32(r, t, floats);
              // An empty packed list is no value at all (protobuf: same as absent); holding it
              // would shunt a later ints/strings/... payload into unknown_fields, which the
              // writer puts back as the value: the round trip would change the attribute.
              if (fresh && floats.empty()) a.value = std::monostate{};
              continue;
            }
            break;
          case 8:
            if ((is(t, VARINT) || is(t, LEN)) && takes<std::vector<std::int64_t>>(a)) {
              const bool fresh = a.value.index() == 0;
              auto& ints = list<std::vector<std::int64_t>>(a);
              if (ints.empty() && is(t, VARINT)) reserve_more(ints, count_fields<8>(rest(r, start))[0]);
              repeated_i64(r, t, ints);
              if (fresh && ints.empty()) a.value = std::monostate{};  // empty packed list: as for floats
              continue;
            }
            break;
          case 9:
            if (is(t, LEN) && takes<std::vector<std::string>>(a)) {
              str(r, next_of<9>(list<std::vector<std::string>>(a), r, start));
              continue;
            }
            break;
          case 10:
            if (is(t, LEN) && takes<std::vector<Tensor>>(a)) {
              tensor(sub(r), next_of<10>(list<std::vector<Tensor>>(a), r, start));
              continue;
            }
            break;
          case 11:
            if (is(t, LEN) && takes<std::vector<Graph>>(a)) {
              graph(sub(r), next_of<11>(list<std::vector<Graph>>(a), r, start));
              continue;
            }
            break;
          case 23:
            if (is(t, LEN) && takes<std::vector<SparseTensor>>(a)) {
              sparse(sub(r), next_of<23>(list<std::vector<SparseTensor>>(a), r, start));
              continue;
            }
            break;
          case 15:
            if (is(t, LEN) && takes<std::vector<Type>>(a)) {
              type(sub(r), next_of<15>(list<std::vector<Type>>(a), r, start));
              continue;
            }
            break;
          default: break;
        }
        // Unknown fields, and payload fields beside the one already held (kept, not dropped).
        // Such a payload is kept as written but must be well-formed all the same: protobuf
        // parses it and rejects the file when it is not, and so does this decoder.
        check_extra_payload(r, t);
        unknown(r, t, start, a.unknown_fields);
      } catch (const Error& e) {
        throw e.within(label_attribute(t.field, a));
      }
    }
    try {
      if (t_parts.seen) decode_parts(t_parts, boxed<Tensor>(a), [&](wire::Reader x, Tensor& v) { tensor(x, v); });
    } catch (const Error& e) {
      throw e.within(label_attribute(5, a));
    }
    try {
      if (sparse_parts.seen)
        decode_parts(sparse_parts, boxed<SparseTensor>(a), [&](wire::Reader x, SparseTensor& v) { sparse(x, v); });
    } catch (const Error& e) {
      throw e.within(label_attribute(22, a));
    }
  }

  /// The occurrences of a singular message field whose value has a payload (a TensorProto, a
  /// SparseTensorProto), decoded once the enclosing message ends. Protobuf merges a message
  /// field that occurs more than once, which is the same as parsing its occurrences' bytes
  /// joined; decoding each occurrence into the same value instead would keep one occurrence's
  /// payload under another's dims and data type, unchecked, and replace typed values that
  /// protobuf appends.
  struct Repeats {
    std::span<const std::byte> first;
    std::vector<std::span<const std::byte>> more;
    bool seen = false;
    void add(std::span<const std::byte> b) {
      if (seen) {
        more.push_back(b);
      } else {
        seen = true;
        first = b;
      }
    }
  };

  /// Decodes the occurrences of `parts` into `value`: the one occurrence in place (payloads
  /// viewed), or their joined bytes, copied (the joined bytes live only here), each payload once.
  template <class T, class Fn>
  void decode_parts(const Repeats& parts, T& value, Fn&& decode) {
    if (parts.more.empty()) return decode(wire::Reader(parts.first), value);
    std::size_t total = parts.first.size();
    for (const auto& b : parts.more) total += b.size();
    std::vector<std::byte> joined;
    joined.reserve(total);
    joined.insert(joined.end(), parts.first.begin(), parts.first.end());
    for (const auto& b : parts.more) joined.insert(joined.end(), b.begin(), b.end());
    struct NoViews {  // restores keeper_ on the way out, exceptions included
      std::shared_ptr<const void>& slot;
      std::shared_ptr<const void> saved;
      explicit NoViews(std::shared_ptr<const void>& k) : slot(k), saved(std::move(k)) { slot.reset(); }
      ~NoViews() { slot = std::move(saved); }
      NoViews(const NoViews&) = delete;
      NoViews& operator=(const NoViews&) = delete;
    } no_views(keeper_);
    value = T{};
    decode(wire::Reader(std::span<const std::byte>(joined)), value);
  }

  /// Decodes (and drops) a length-delimited attribute payload field kept in unknown_fields.
  void check_extra_payload(const wire::Reader& r, wire::Tag t) {
    if (!is(t, LEN)) return;  // scalars and unpacked elements: unknown() reads them whole
    // Only the wire form is checked: the bytes are not a value of the model (no payload sizes).
    struct WireOnly {
      bool& flag;
      bool saved;
      explicit WireOnly(bool& f) : flag(f), saved(f) { flag = true; }
      ~WireOnly() { flag = saved; }
    } wire_only(wire_only_);
    wire::Reader copy = r;
    switch (t.field) {
      case 5: case 10: { Tensor x; tensor(sub(copy), x); break; }
      case 6: case 11: { Graph g; graph(sub(copy), g); break; }
      case 22: case 23: { SparseTensor x; sparse(sub(copy), x); break; }
      case 14: case 15: { Type y; type(sub(copy), y); break; }
      case 7: { std::vector<float> v; repeated_f32(copy, t, v); break; }
      case 8: { std::vector<std::int64_t> v; repeated_i64(copy, t, v); break; }
      default: break;
    }
  }

  void tensor(wire::Reader r, Tensor& x) {
    Level level(*this);
    // Typed fields are gathered first: which one is right depends on data_type, which may come later.
    Typed typed;
    bool have_raw = false;
    std::span<const std::byte> raw;
    while (!r.done()) {
      const auto* start = r.position();
      const auto t = r.tag();
      try {
        switch (t.field) {
          case 1:
            if (is(t, VARINT) || is(t, LEN)) {
              if (x.dims.empty() && is(t, VARINT)) reserve_more(x.dims, count_fields<1>(rest(r, start))[0]);
              repeated_i64(r, t, x.dims);
              continue;
            }
            break;
          case 2: if (is(t, VARINT)) { x.data_type = static_cast<DataType>(i32(r)); x.presence.set(2); continue; } break;
          case 3: if (is(t, LEN)) { segment(sub(r), x.segment ? *x.segment : x.segment.emplace()); continue; } break;
          case 8: if (is(t, LEN)) { str(r, x.name); x.presence.set(8); continue; } break;
          case 12: if (is(t, LEN)) { str(r, x.doc_string); x.presence.set(12); continue; } break;
          case 9:
            if (is(t, LEN)) {
              raw = r.bytes();  // protobuf: a repeated singular bytes field keeps the last
              have_raw = true;
              continue;
            }
            break;
          case 6: if (is(t, LEN)) { str(r, x.strings.emplace_back()); continue; } break;
          case 13: if (is(t, LEN)) { entry(sub(r), x.external_data.emplace_back()); continue; } break;
          case 14:
            if (is(t, VARINT)) { x.data_location = static_cast<DataLocation>(i32(r)); x.presence.set(14); continue; }
            break;
          case 16: if (is(t, LEN)) { entry(sub(r), x.metadata_props.emplace_back()); continue; } break;
          case 4: case 5: case 7: case 10: case 11:
            if (typed.take(r, t, start)) continue;
            break;
          default: break;
        }
        unknown(r, t, start, x.unknown_fields);
      } catch (const Error& e) {
        throw e.within(label_tensor(t.field, x));
      }
    }
    finish_tensor(x, typed, have_raw, raw);
  }

  void sparse(wire::Reader r, SparseTensor& s) {
    Level level(*this);
    Repeats values, indices;  // singular message fields (see Repeats)
    while (!r.done()) {
      const auto* start = r.position();
      const auto t = r.tag();
      try {
        switch (t.field) {
          case 1: if (is(t, LEN)) { values.add(r.bytes()); s.presence.set(1); continue; } break;
          case 2: if (is(t, LEN)) { indices.add(r.bytes()); s.presence.set(2); continue; } break;
          case 3: if (is(t, VARINT) || is(t, LEN)) { repeated_i64(r, t, s.dims); continue; } break;
          default: break;
        }
        unknown(r, t, start, s.unknown_fields);
      } catch (const Error& e) {
        throw e.within(t.field == 1 ? "values" : t.field == 2 ? "indices" : t.field == 3 ? "dims" : field_label(t.field));
      }
    }
    const auto decode = [&](wire::Reader x, Tensor& v) { tensor(x, v); };
    try {
      if (values.seen) decode_parts(values, s.values, decode);
    } catch (const Error& e) {
      throw e.within("values");
    }
    try {
      if (indices.seen) decode_parts(indices, s.indices, decode);
    } catch (const Error& e) {
      throw e.within("indices");
    }
  }

  void value_info(wire::Reader r, ValueInfo& v) {
    Level level(*this);
    while (!r.done()) {
      const auto* start = r.position();
      const auto t = r.tag();
      try {
        switch (t.field) {
          case 1: if (is(t, LEN)) { str(r, v.name); v.presence.set(1); continue; } break;
          case 2:
            if (is(t, LEN)) {
              auto tr = sub(r);
              type(tr, v.type ? *v.type : new_type(v.type, tr));
              continue;
            }
            break;
          case 3: if (is(t, LEN)) { str(r, v.doc_string); v.presence.set(3); continue; } break;
          case 4: if (is(t, LEN)) { entry(sub(r), v.metadata_props.emplace_back()); continue; } break;
          default: break;
        }
        unknown(r, t, start, v.unknown_fields);
      } catch (const Error& e) {
        throw e.within(t.field == 2 ? std::string("type") : t.field == 4 ? indexed("metadata_props", v.metadata_props)
                                                                         : field_label(t.field));
      }
    }
  }

  void type(wire::Reader r, Type& y) {
    Level level(*this);
    while (!r.done()) {
      const auto* start = r.position();
      const auto t = r.tag();
      try {
        switch (t.field) {
          case 1: if (is(t, LEN)) { tensor_type(sub(r), alt<TensorType>(y)); continue; } break;
          case 8: if (is(t, LEN)) { tensor_type(sub(r), alt<SparseTensorType>(y)); continue; } break;
          case 4:
            if (is(t, LEN)) {
              auto& s = alt<SequenceType>(y);
              nested_type(sub(r), s.elem_type, s.unknown_fields, 1);
              continue;
            }
            break;
          case 9:
            if (is(t, LEN)) {
              auto& o = alt<OptionalType>(y);
              nested_type(sub(r), o.elem_type, o.unknown_fields, 1);
              continue;
            }
            break;
          case 5: if (is(t, LEN)) { map_type(sub(r), alt<MapType>(y)); continue; } break;
          case 7: if (is(t, LEN)) { opaque_type(sub(r), alt<OpaqueType>(y)); continue; } break;
          case 6: if (is(t, LEN)) { str(r, y.denotation); y.presence.set(6); continue; } break;
          default: break;
        }
        unknown(r, t, start, y.unknown_fields);
      } catch (const Error& e) {
        constexpr std::string_view names[] = {"", "tensor_type", "", "", "sequence_type", "map_type", "denotation",
                                              "opaque_type", "sparse_tensor_type", "optional_type"};
        throw e.within(t.field < 10 && !names[t.field].empty() ? std::string(names[t.field]) : field_label(t.field));
      }
    }
  }

  void function(wire::Reader r, Function& f) {
    Level level(*this);
    reserve_more(f.nodes, count_fields<7>(r)[0]);
    while (!r.done()) {
      const auto* start = r.position();
      const auto t = r.tag();
      try {
        switch (t.field) {
          case 1: if (is(t, LEN)) { str(r, f.name); f.presence.set(1); continue; } break;
          case 4: if (is(t, LEN)) { str(r, f.inputs.emplace_back()); continue; } break;
          case 5: if (is(t, LEN)) { str(r, f.outputs.emplace_back()); continue; } break;
          case 6: if (is(t, LEN)) { str(r, next_of<6>(f.attributes, r, start)); continue; } break;
          case 11: if (is(t, LEN)) { attribute(sub(r), next_of<11>(f.attribute_protos, r, start)); continue; } break;
          case 7: if (is(t, LEN)) { node(sub(r), f.nodes.emplace_back()); continue; } break;
          case 8: if (is(t, LEN)) { str(r, f.doc_string); f.presence.set(8); continue; } break;
          case 9: if (is(t, LEN)) { opset(sub(r), next_of<9>(f.opset_imports, r, start)); continue; } break;
          case 10: if (is(t, LEN)) { str(r, f.domain); f.presence.set(10); continue; } break;
          case 13: if (is(t, LEN)) { str(r, f.overload); f.presence.set(13); continue; } break;
          case 12: if (is(t, LEN)) { value_info(sub(r), next_of<12>(f.value_info, r, start)); continue; } break;
          case 14: if (is(t, LEN)) { entry(sub(r), next_of<14>(f.metadata_props, r, start)); continue; } break;
          default: break;
        }
        unknown(r, t, start, f.unknown_fields);
      } catch (const Error& e) {
        std::string where;
        switch (t.field) {
          case 11: where = indexed("attribute_proto", f.attribute_protos); break;
          case 7: where = indexed("node", f.nodes); break;
          case 9: where = indexed("opset_import", f.opset_imports); break;
          case 12: where = indexed("value_info", f.value_info); break;
          case 14: where = indexed("metadata_props", f.metadata_props); break;
          default: where = field_label(t.field);
        }
        throw e.within(where);
      }
    }
  }

 private:
  static constexpr auto VARINT = wire::WireType::varint;
  static constexpr auto LEN = wire::WireType::length_delimited;
  static constexpr auto FIXED32 = wire::WireType::fixed32;
  static constexpr auto FIXED64 = wire::WireType::fixed64;

  // Counts message nesting for the depth limit.
  struct Level {
    OXIR_ALWAYS_INLINE explicit Level(Decoder& d) : dec(d) {
      if (++dec.depth_ > dec.opt_.max_depth) [[unlikely]]
        too_deep(dec.opt_.max_depth);
    }
    OXIR_ALWAYS_INLINE ~Level() { --dec.depth_; }
    [[noreturn]] OXIR_COLD static void too_deep(int max_depth) {
      throw Error("messages nested deeper than " + std::to_string(max_depth) + " levels");
    }
    Level(const Level&) = delete;
    Level& operator=(const Level&) = delete;
    Decoder& dec;
  };

  // Typed tensor fields, kept as the wire spans they came in until data_type is known.
  struct Typed {
    struct Piece {
      std::uint32_t field;
      wire::WireType type;
      std::span<const std::byte> bytes;  // whole field: tag through value
      std::span<const std::byte> value;  // packed payload or single value bytes
    };
    std::vector<Piece> pieces;
    bool take(wire::Reader& r, wire::Tag t, const std::byte* start) {
      const auto want = t.field == 4 ? FIXED32 : t.field == 10 ? FIXED64 : VARINT;
      if (t.type != LEN && t.type != want) return false;
      const auto* before = r.position();
      std::span<const std::byte> value;
      if (t.type == LEN) {
        value = r.bytes();
      } else {
        r.skip(t.type);
        value = std::span<const std::byte>(before, r.position());
      }
      pieces.push_back({t.field, t.type, std::span<const std::byte>(start, r.position()), value});
      return true;
    }
  };


  void finish_tensor(Tensor& x, Typed& typed, bool have_raw, std::span<const std::byte> raw) {
    if (have_raw) {
      x.presence.set(9);
      x.encoding = TensorEncoding::raw_data;
      x.data = keeper_ ? Buffer::view(keeper_, raw) : Buffer::copy_of(raw);
    }
    const auto field = typed_field_for(x.data_type);
    std::vector<std::byte> out;
    bool used_typed = false;
    for (const auto& p : typed.pieces) {
      if (have_raw || p.field != field) {
        // Values in a field that does not belong to this data type (or beside raw_data):
        // not part of the payload, but kept verbatim, once checked as protobuf reads them.
        try {
          check_packed(p);
        } catch (const Error& e) {
          throw e.within(std::string(typed_field_name(p.field)));
        }
        x.unknown_fields.append(reinterpret_cast<const char*>(p.bytes.data()), p.bytes.size());
        continue;
      }
      used_typed = true;
      try {
        append_typed(x.data_type, p, out);
      } catch (const Error& e) {
        throw e.within(std::string(typed_field_name(p.field)));
      }
    }
    if (used_typed) {
      x.encoding = TensorEncoding::typed;
      x.data = Buffer::owned(std::move(out));
    }
    if (wire_only_) return;
    if (x.is_external()) ++external_tensors_;
    if (opt_.check_payload_sizes) check_payload(x, have_raw || used_typed, used_typed);
  }

  /// A packed typed field must hold whole elements: fixed-width ones fill its length, varints end
  /// inside it (protobuf rejects the message otherwise, whichever field the data type uses).
  static void check_packed(const Typed::Piece& p) {
    if (p.type != LEN) return;  // a single element was read whole by Typed::take
    if (p.field == 4 || p.field == 10) {
      const std::size_t w = p.field == 4 ? 4 : 8;
      if (p.value.size() % w != 0)
        throw Error("packed length " + std::to_string(p.value.size()) + " is not a multiple of " + std::to_string(w));
      return;
    }
    wire::Reader v(p.value);
    while (!v.done()) (void)v.varint();
  }

  static std::string_view typed_field_name(std::uint32_t f) noexcept {
    switch (f) {
      case 4: return "float_data";
      case 5: return "int32_data";
      case 7: return "int64_data";
      case 10: return "double_data";
      case 11: return "uint64_data";
      default: return "data";
    }
  }

  // Appends the values of one typed field occurrence to `out` in raw_data layout.
  static void append_typed(DataType dt, const Typed::Piece& p, std::vector<std::byte>& out) {
    if (p.field == 4 || p.field == 10) {  // fixed width: bytes are already little-endian values
      const std::size_t w = p.field == 4 ? 4 : 8;
      if (p.value.size() % w != 0) throw Error("packed length " + std::to_string(p.value.size()) + " is not a multiple of " + std::to_string(w));
      out.insert(out.end(), p.value.begin(), p.value.end());
      return;
    }
    const int bits = bit_width(dt);
    const std::size_t width = bits >= 8 ? static_cast<std::size_t>(bits / 8) : 1;  // sub-byte: one packed byte per entry
    wire::Reader vr(p.value);
    out.reserve(out.size() + p.value.size() * width);
    while (!vr.done()) {
      const std::uint64_t v = vr.varint();
      for (std::size_t b = 0; b < width; ++b) out.push_back(static_cast<std::byte>((v >> (8 * b)) & 0xFF));
    }
  }

  void check_payload(const Tensor& x, bool has_inline, bool typed) const {
    if (auto m = payload_mismatch(x)) {
      // Sub-byte types in int32_data: one packed byte per entry, so the same size rule applies.
      if (typed && m->field == "raw_data") m->field = std::string(typed_field_name(typed_field_for(x.data_type)));
      throw Error(std::move(m->field), std::move(m->message));
    }
    if (x.is_external() && has_inline && !x.segment)
      throw Error(typed ? "data" : "raw_data", "inline data in a tensor whose data_location is EXTERNAL");
  }

  void segment(wire::Reader r, TensorSegment& s) {
    Level level(*this);
    while (!r.done()) {
      const auto* start = r.position();
      const auto t = r.tag();
      if (t.field == 1 && is(t, VARINT)) { s.begin = i64(r); s.presence.set(1); continue; }
      if (t.field == 2 && is(t, VARINT)) { s.end = i64(r); s.presence.set(2); continue; }
      unknown(r, t, start, s.unknown_fields);
    }
  }

  void tensor_type(wire::Reader r, auto& tt) {
    Level level(*this);
    while (!r.done()) {
      const auto* start = r.position();
      const auto t = r.tag();
      try {
        if (t.field == 1 && is(t, VARINT)) { tt.elem_type = static_cast<DataType>(i32(r)); tt.presence.set(1); continue; }
        if (t.field == 2 && is(t, LEN)) { shape(sub(r), tt.shape ? *tt.shape : tt.shape.emplace()); continue; }
        unknown(r, t, start, tt.unknown_fields);
      } catch (const Error& e) {
        throw e.within(t.field == 2 ? "shape" : field_label(t.field));
      }
    }
  }

  void shape(wire::Reader r, Shape& s) {
    Level level(*this);
    reserve_more(s.dims, count_fields<1>(r)[0]);
    while (!r.done()) {
      const auto* start = r.position();
      const auto t = r.tag();
      if (t.field == 1 && is(t, LEN)) {
        const auto index = s.dims.size();
        try {
          dim(sub(r), s.dims);
        } catch (const Error& e) {
          throw e.within("dim[" + std::to_string(index) + "]");
        }
        continue;
      }
      unknown(r, t, start, s.unknown_fields);
    }
  }

  // Appends the Dim in `r` to `dims`. The common dims (a dim_value or a dim_param, nothing else)
  // are read first and then constructed with their value.
  void dim(wire::Reader r, std::vector<Dim>& dims) {
    Level level(*this);
    const auto* const begin = r.position();
    int kind = 0;  // 1: dim_value, 2: dim_param
    std::int64_t value = 0;
    std::span<const std::byte> param;
    while (!r.done()) {
      const auto t = r.tag();
      if (t.field == 1 && is(t, VARINT)) {
        value = i64(r);
        kind = 1;
        continue;
      }
      if (t.field == 2 && is(t, LEN)) {
        param = r.bytes();
        kind = 2;
        continue;
      }
      // Anything else (denotation, unknown fields): the general path, from the start.
      dim_general(wire::Reader(begin, r.position() + r.remaining()), dims.emplace_back());
      return;
    }
    if (kind == 1) dims.emplace_back(value);
    else if (kind == 2) dims.emplace_back(std::string(reinterpret_cast<const char*>(param.data()), param.size()));
    else dims.emplace_back();
  }

  void dim_general(wire::Reader r, Dim& d) {
    while (!r.done()) {
      const auto* start = r.position();
      const auto t = r.tag();
      if (t.field == 1 && is(t, VARINT)) { d.value = i64(r); continue; }
      if (t.field == 2 && is(t, LEN)) { str(r, d.value.emplace<std::string>()); continue; }
      if (t.field == 3 && is(t, LEN)) { str(r, d.denotation); d.presence.set(3); continue; }
      unknown(r, t, start, d.unknown_fields);
    }
  }

  // Sequence and Optional types: one nested TypeProto in field `field`.
  void nested_type(wire::Reader r, Box<Type>& elem, UnknownFields& unk, std::uint32_t field) {
    Level level(*this);
    while (!r.done()) {
      const auto* start = r.position();
      const auto t = r.tag();
      if (t.field == field && is(t, LEN)) {
        try {
          type(sub(r), elem ? *elem : elem.emplace());
        } catch (const Error& e) {
          throw e.within("elem_type");
        }
        continue;
      }
      unknown(r, t, start, unk);
    }
  }

  void map_type(wire::Reader r, MapType& m) {
    Level level(*this);
    while (!r.done()) {
      const auto* start = r.position();
      const auto t = r.tag();
      if (t.field == 1 && is(t, VARINT)) { m.key_type = static_cast<DataType>(i32(r)); m.presence.set(1); continue; }
      if (t.field == 2 && is(t, LEN)) {
        try {
          type(sub(r), m.value_type ? *m.value_type : m.value_type.emplace());
        } catch (const Error& e) {
          throw e.within("value_type");
        }
        continue;
      }
      unknown(r, t, start, m.unknown_fields);
    }
  }

  void opaque_type(wire::Reader r, OpaqueType& o) {
    Level level(*this);
    while (!r.done()) {
      const auto* start = r.position();
      const auto t = r.tag();
      if (t.field == 1 && is(t, LEN)) { str(r, o.domain); o.presence.set(1); continue; }
      if (t.field == 2 && is(t, LEN)) { str(r, o.name); o.presence.set(2); continue; }
      unknown(r, t, start, o.unknown_fields);
    }
  }

  void opset(wire::Reader r, OperatorSetId& o) {
    Level level(*this);
    while (!r.done()) {
      const auto* start = r.position();
      const auto t = r.tag();
      if (t.field == 1 && is(t, LEN)) { str(r, o.domain); o.presence.set(1); continue; }
      if (t.field == 2 && is(t, VARINT)) { o.version = i64(r); o.presence.set(2); continue; }
      unknown(r, t, start, o.unknown_fields);
    }
  }

  void entry(wire::Reader r, StringStringEntry& e) {
    Level level(*this);
    while (!r.done()) {
      const auto* start = r.position();
      const auto t = r.tag();
      if (t.field == 1 && is(t, LEN)) { str(r, e.key); e.presence.set(1); continue; }
      if (t.field == 2 && is(t, LEN)) { str(r, e.value); e.presence.set(2); continue; }
      unknown(r, t, start, e.unknown_fields);
    }
  }

  void annotation(wire::Reader r, TensorAnnotation& a) {
    Level level(*this);
    while (!r.done()) {
      const auto* start = r.position();
      const auto t = r.tag();
      if (t.field == 1 && is(t, LEN)) { str(r, a.tensor_name); a.presence.set(1); continue; }
      if (t.field == 2 && is(t, LEN)) { entry(sub(r), a.quant_parameter_tensor_names.emplace_back()); continue; }
      unknown(r, t, start, a.unknown_fields);
    }
  }

  void training(wire::Reader r, TrainingInfo& ti) {
    Level level(*this);
    while (!r.done()) {
      const auto* start = r.position();
      const auto t = r.tag();
      try {
        switch (t.field) {
          case 1: if (is(t, LEN)) { graph(sub(r), ti.initialization); ti.presence.set(1); continue; } break;
          case 2: if (is(t, LEN)) { graph(sub(r), ti.algorithm); ti.presence.set(2); continue; } break;
          case 3: if (is(t, LEN)) { entry(sub(r), ti.initialization_binding.emplace_back()); continue; } break;
          case 4: if (is(t, LEN)) { entry(sub(r), ti.update_binding.emplace_back()); continue; } break;
          default: break;
        }
        unknown(r, t, start, ti.unknown_fields);
      } catch (const Error& e) {
        throw e.within(t.field == 1 ? "initialization" : t.field == 2 ? "algorithm" : field_label(t.field));
      }
    }
  }

  void device_config(wire::Reader r, DeviceConfiguration& d) {
    Level level(*this);
    while (!r.done()) {
      const auto* start = r.position();
      const auto t = r.tag();
      if (t.field == 1 && is(t, LEN)) { str(r, d.name); d.presence.set(1); continue; }
      if (t.field == 2 && is(t, VARINT)) { d.num_devices = i32(r); d.presence.set(2); continue; }
      if (t.field == 3 && is(t, LEN)) { str(r, d.device.emplace_back()); continue; }
      unknown(r, t, start, d.unknown_fields);
    }
  }

  void node_device(wire::Reader r, NodeDeviceConfiguration& d) {
    Level level(*this);
    while (!r.done()) {
      const auto* start = r.position();
      const auto t = r.tag();
      if (t.field == 1 && is(t, LEN)) { str(r, d.configuration_id); d.presence.set(1); continue; }
      if (t.field == 2 && is(t, LEN)) { sharding(sub(r), d.sharding_spec.emplace_back()); continue; }
      if (t.field == 3 && is(t, VARINT)) { d.pipeline_stage = i32(r); d.presence.set(3); continue; }
      unknown(r, t, start, d.unknown_fields);
    }
  }

  void sharding(wire::Reader r, ShardingSpec& s) {
    Level level(*this);
    while (!r.done()) {
      const auto* start = r.position();
      const auto t = r.tag();
      if (t.field == 1 && is(t, LEN)) { str(r, s.tensor_name); s.presence.set(1); continue; }
      if (t.field == 2 && (is(t, VARINT) || is(t, LEN))) { repeated_i64(r, t, s.device); continue; }
      if (t.field == 3 && is(t, LEN)) { int_list(sub(r), s.index_to_device_group_map.emplace_back()); continue; }
      if (t.field == 4 && is(t, LEN)) { sharded_dim(sub(r), s.sharded_dim.emplace_back()); continue; }
      unknown(r, t, start, s.unknown_fields);
    }
  }

  void int_list(wire::Reader r, IntIntListEntry& e) {
    Level level(*this);
    while (!r.done()) {
      const auto* start = r.position();
      const auto t = r.tag();
      if (t.field == 1 && is(t, VARINT)) { e.key = i64(r); e.presence.set(1); continue; }
      if (t.field == 2 && (is(t, VARINT) || is(t, LEN))) { repeated_i64(r, t, e.value); continue; }
      unknown(r, t, start, e.unknown_fields);
    }
  }

  void sharded_dim(wire::Reader r, ShardedDim& d) {
    Level level(*this);
    while (!r.done()) {
      const auto* start = r.position();
      const auto t = r.tag();
      if (t.field == 1 && is(t, VARINT)) { d.axis = i64(r); d.presence.set(1); continue; }
      if (t.field == 2 && is(t, LEN)) { simple_shard(sub(r), d.simple_sharding.emplace_back()); continue; }
      unknown(r, t, start, d.unknown_fields);
    }
  }

  void simple_shard(wire::Reader r, SimpleShardedDim& d) {
    Level level(*this);
    while (!r.done()) {
      const auto* start = r.position();
      const auto t = r.tag();
      if (t.field == 1 && is(t, VARINT)) { d.dim = i64(r); continue; }
      if (t.field == 2 && is(t, LEN)) { str(r, d.dim.emplace<std::string>()); continue; }
      if (t.field == 3 && is(t, VARINT)) { d.num_shards = i64(r); d.presence.set(3); continue; }
      unknown(r, t, start, d.unknown_fields);
    }
  }

  // ---- reserving repeated fields ----
  // How often each of the fields F occurs at a message's top level, from a quick scan that
  // skips values without decoding them. Only a capacity hint: malformed bytes end the scan
  // quietly and the decoding loop reports them with their field path.
  OXIR_ALWAYS_INLINE static bool next_varint(const std::byte*& p, const std::byte* end, std::uint64_t& v) noexcept {
    if (p < end && std::to_integer<unsigned>(*p) < 0x80) {
      v = std::to_integer<std::uint64_t>(*p++);
      return true;
    }
    return scan_varint(p, end, v);
  }
  OXIR_NOINLINE static bool scan_varint(const std::byte*& p, const std::byte* end, std::uint64_t& v) noexcept {
    v = 0;
    for (int shift = 0; shift < 64 && p < end; shift += 7) {
      const auto b = std::to_integer<std::uint64_t>(*p++);
      v |= (b & 0x7F) << shift;
      if (b < 0x80) return true;
    }
    return false;
  }
  template <std::uint32_t... F>
  static std::array<std::uint32_t, sizeof...(F)> count_fields(const wire::Reader& r) noexcept {
    std::array<std::uint32_t, sizeof...(F)> c{};  // counters in registers: no table to clear
    const std::byte* p = r.position();
    const std::byte* const end = p + r.remaining();
    std::uint64_t key = 0, v = 0;
    while (p < end && next_varint(p, end, key)) {
      std::size_t i = 0;
      ((c[i] += (key >> 3) == F ? 1U : 0U, ++i), ...);
      switch (key & 7) {
        case 0: if (!next_varint(p, end, v)) return c; break;
        case 1: if (end - p < 8) return c; p += 8; break;
        case 5: if (end - p < 4) return c; p += 4; break;
        case 2:
          if (!next_varint(p, end, v) || v > static_cast<std::uint64_t>(end - p)) return c;
          p += v;
          break;
        default: return c;
      }
    }
    return c;
  }
  // The reader's bytes from `start` (a field already being read) to its end.
  static wire::Reader rest(const wire::Reader& r, const std::byte* start) noexcept {
    return wire::Reader(start, r.position() + r.remaining());
  }
  // Makes room for `n` more elements (keeping geometric growth when called repeatedly).
  // New elements built by a user-provided constructor: `emplace_back()` of a type with a
  // defaulted one value-initializes, clearing the whole object before constructing it.
  OXIR_ALWAYS_INLINE static Node& add(std::vector<Node>& v) { return v.emplace_back(std::string(), std::vector<std::string>(), std::vector<std::string>()); }
  OXIR_ALWAYS_INLINE static ValueInfo& add(std::vector<ValueInfo>& v) { return v.emplace_back(std::string()); }
  // A Type for the bytes in `r`, which usually hold a tensor type: built holding one (an empty
  // Type would be cleared whole and then have its alternative switched).
  OXIR_ALWAYS_INLINE static Type& new_type(std::optional<Type>& o, const wire::Reader& r) {
    if (!r.done() && *r.position() == std::byte{0x0A}) return o.emplace(TensorType{});  // field 1, LEN
    return o.emplace();
  }
  // The next element of a repeated field F of the message `r` is reading (the field's tag began
  // at `start`); before the first, room for every F the message holds. Growing by doubling
  // instead would peak at up to three times the final size, and elements are far bigger than
  // their wire form (an empty SparseTensorProto is 2 bytes, an oxir::SparseTensor 672): a file
  // of them would cost over 800 times its size in memory, 340 times this way.
  template <std::uint32_t F, class V>
  OXIR_ALWAYS_INLINE static typename V::value_type& next_of(V& v, const wire::Reader& r, const std::byte* start) {
    if (v.empty()) reserve_more(v, count_fields<F>(rest(r, start))[0]);
    return v.emplace_back();
  }
  template <class V>
  static void reserve_more(V& v, std::size_t n) {
    if (n > v.capacity() - v.size()) v.reserve(std::max(v.size() + n, 2 * v.capacity()));
  }

  // ---- primitives ----
  OXIR_ALWAYS_INLINE static bool is(wire::Tag t, wire::WireType w) noexcept { return t.type == w; }
  OXIR_ALWAYS_INLINE static std::int64_t i64(wire::Reader& r) { return static_cast<std::int64_t>(r.varint()); }
  // int32 and enum fields: protobuf truncates the 64-bit varint to 32 bits.
  OXIR_ALWAYS_INLINE static std::int32_t i32(wire::Reader& r) {
    return static_cast<std::int32_t>(static_cast<std::uint32_t>(r.varint()));
  }
  OXIR_ALWAYS_INLINE static wire::Reader sub(wire::Reader& r) { return wire::Reader(r.bytes()); }
  OXIR_ALWAYS_INLINE static void str(wire::Reader& r, std::string& out) {
    auto b = r.bytes();
    // Mostly a field seen for the first time: appending to an empty string is the short path.
    if (out.empty()) [[likely]]
      out.append(reinterpret_cast<const char*>(b.data()), b.size());
    else
      out.assign(reinterpret_cast<const char*>(b.data()), b.size());
  }
  // A new string element (constructed in place: cheaper than assigning to an empty one).
  OXIR_ALWAYS_INLINE static void add_str(wire::Reader& r, std::vector<std::string>& out) {
    auto b = r.bytes();
    out.emplace_back(reinterpret_cast<const char*>(b.data()), b.size());
  }
  static void unknown(wire::Reader& r, wire::Tag t, const std::byte* start, UnknownFields& out) {
    r.skip(t.type);
    out.append(reinterpret_cast<const char*>(start), static_cast<std::size_t>(r.position() - start));
  }
  static void repeated_i64(wire::Reader& r, wire::Tag t, std::vector<std::int64_t>& out) {
    if (t.type == VARINT) {
      out.push_back(i64(r));
      return;
    }
    wire::Reader pr(r.bytes());
    while (!pr.done()) out.push_back(i64(pr));
  }
  static void repeated_f32(wire::Reader& r, wire::Tag t, std::vector<float>& out) {
    if (t.type == FIXED32) {
      out.push_back(std::bit_cast<float>(r.fixed32()));
      return;
    }
    auto b = r.bytes();
    if (b.size() % 4 != 0) throw Error("packed length " + std::to_string(b.size()) + " is not a multiple of 4");
    const auto n = b.size() / 4;
    const auto old = out.size();
    out.resize(old + n);
    if (n) std::memcpy(out.data() + old, b.data(), b.size());
  }

  // Attribute payload: may this field go into a.value? Only if value is empty or already holds
  // the same alternative (a repeated field continuing, or a singular field given again).
  template <class T>
  static bool takes(const Attribute& a) noexcept {
    return a.value.index() == 0 || std::holds_alternative<T>(a.value);
  }
  template <class T>
  static T& boxed(Attribute& a) {
    if (!std::holds_alternative<Box<T>>(a.value)) a.value.emplace<Box<T>>();
    auto& b = std::get<Box<T>>(a.value);
    return b ? *b : b.emplace();
  }
  template <class V>
  static V& list(Attribute& a) {
    if (!std::holds_alternative<V>(a.value)) a.value.emplace<V>();
    return std::get<V>(a.value);
  }
  template <class T>
  static T& alt(Type& y) {
    if (!std::holds_alternative<T>(y.value)) y.value.emplace<T>();  // oneof: the last member set wins
    return std::get<T>(y.value);
  }

  // ---- error labels (built only when an error unwinds) ----
  template <class V>
  static std::string indexed(std::string_view field, const V& list) {
    return std::string(field) + "[" + std::to_string(list.empty() ? 0 : list.size() - 1) + "]";
  }
  static std::string field_label(std::uint32_t field) { return "field " + std::to_string(field); }
  static std::string label_model(std::uint32_t f, const Model& m) {
    switch (f) {
      case 7: return "graph";
      case 8: return indexed("opset_import", m.opset_imports);
      case 14: return indexed("metadata_props", m.metadata_props);
      case 20: return indexed("training_info", m.training_info);
      case 25: return indexed("functions", m.functions);
      case 26: return indexed("configuration", m.configuration);
      case 1: return "ir_version";
      case 2: return "producer_name";
      case 3: return "producer_version";
      case 4: return "domain";
      case 5: return "model_version";
      case 6: return "doc_string";
      default: return field_label(f);
    }
  }
  static std::string label_graph(std::uint32_t f, const Graph& g) {
    switch (f) {
      case 1: {
        auto s = indexed("node", g.nodes);
        if (!g.nodes.empty()) {
          const auto& n = g.nodes.back();
          if (!n.name.empty()) s += " \"" + n.name + "\"";
          if (!n.op_type.empty()) s += " (" + n.op_type + ")";
        }
        return s;
      }
      case 5: {
        auto s = indexed("initializer", g.initializers);
        if (!g.initializers.empty() && !g.initializers.back().name.empty()) s += " \"" + g.initializers.back().name + "\"";
        return s;
      }
      case 15: return indexed("sparse_initializer", g.sparse_initializers);
      case 11: return indexed("input", g.inputs);
      case 12: return indexed("output", g.outputs);
      case 13: return indexed("value_info", g.value_info);
      case 14: return indexed("quantization_annotation", g.quantization_annotation);
      case 16: return indexed("metadata_props", g.metadata_props);
      case 2: return "name";
      case 10: return "doc_string";
      default: return field_label(f);
    }
  }
  static std::string label_node(std::uint32_t f, const Node& n) {
    switch (f) {
      case 5: {
        auto s = indexed("attribute", n.attributes);
        if (!n.attributes.empty() && !n.attributes.back().name.empty()) s += " \"" + n.attributes.back().name + "\"";
        return s;
      }
      case 9: return indexed("metadata_props", n.metadata_props);
      case 10: return indexed("device_configurations", n.device_configurations);
      case 1: return "input[" + std::to_string(n.inputs.size()) + "]";
      case 2: return "output[" + std::to_string(n.outputs.size()) + "]";
      case 3: return "name";
      case 4: return "op_type";
      case 6: return "doc_string";
      case 7: return "domain";
      case 8: return "overload";
      default: return field_label(f);
    }
  }
  static std::string label_attribute(std::uint32_t f, const Attribute& a) {
    // The element being decoded is the list's last; a payload beside the attribute's own value
    // (kept in unknown_fields, see check_extra_payload) has no index.
    auto last = [](const char* name, const auto* v) {
      return v && !v->empty() ? std::string(name) + "[" + std::to_string(v->size() - 1) + "]" : std::string(name);
    };
    switch (f) {
      case 5: return "t";
      case 6: return "g";
      case 22: return "sparse_tensor";
      case 14: return "tp";
      case 10: return last("tensors", std::get_if<std::vector<Tensor>>(&a.value));
      case 11: return last("graphs", std::get_if<std::vector<Graph>>(&a.value));
      case 23: return last("sparse_tensors", std::get_if<std::vector<SparseTensor>>(&a.value));
      case 15: return last("type_protos", std::get_if<std::vector<Type>>(&a.value));
      case 7: return "floats";
      case 8: return "ints";
      case 1: return "name";
      case 2: return "f";
      case 3: return "i";
      case 4: return "s";
      case 9: return "strings";
      case 13: return "doc_string";
      case 20: return "type";
      case 21: return "ref_attr_name";
      default: return field_label(f);
    }
  }
  static std::string label_tensor(std::uint32_t f, const Tensor& x) {
    switch (f) {
      case 1: return "dims";
      case 3: return "segment";
      case 9: return "raw_data";
      case 13: return indexed("external_data", x.external_data);
      case 16: return indexed("metadata_props", x.metadata_props);
      case 2: return "data_type";
      case 4: return "float_data";
      case 5: return "int32_data";
      case 6: return "string_data";
      case 7: return "int64_data";
      case 8: return "name";
      case 10: return "double_data";
      case 11: return "uint64_data";
      case 12: return "doc_string";
      case 14: return "data_location";
      default: return field_label(f);
    }
  }

  std::shared_ptr<const void> keeper_;
  DecodeOptions opt_;
  int depth_ = 0;
  std::size_t external_tensors_ = 0;
  bool wire_only_ = false;  ///< decoding a kept payload only to check its wire form
};

}  // namespace io

/// Decodes a serialized ModelProto. The bytes are copied where the model keeps them (use
/// parse_model(shared bytes) or load_model to view payloads in place instead).
[[nodiscard]] inline Model parse_model(std::span<const std::byte> bytes, const DecodeOptions& options = {}) {
  Model m;
  io::Decoder(nullptr, options).model(wire::Reader(bytes), m);
  return m;
}

/// Decodes a serialized ModelProto whose bytes are owned by `keeper`; tensor payloads view them
/// without copying and keep `keeper` alive.
[[nodiscard]] inline Model parse_model(std::shared_ptr<const void> keeper, std::span<const std::byte> bytes,
                                       const DecodeOptions& options = {}) {
  Model m;
  io::Decoder(std::move(keeper), options).model(wire::Reader(bytes), m);
  return m;
}

/// Decodes a serialized TensorProto (e.g. the input_0.pb files of ONNX's backend tests).
[[nodiscard]] inline Tensor parse_tensor(std::span<const std::byte> bytes, const DecodeOptions& options = {}) {
  Tensor t;
  io::Decoder(nullptr, options).tensor(wire::Reader(bytes), t);
  return t;
}

/// Decodes a serialized ModelProto held in a string (copied where kept).
[[nodiscard]] inline Model parse_model(std::string_view bytes, const DecodeOptions& options = {}) {
  return parse_model(std::as_bytes(std::span<const char>(bytes.data(), bytes.size())), options);
}

}  // namespace oxir
