#pragma once
// Native encoder: oxir::Model -> protobuf wire bytes, without libprotobuf. Fields are written in
// field-number order, packed where onnx.proto says [packed = true], unknown fields last -- as
// protobuf's own serializer does, so re-serializing a model protobuf wrote gives the same bytes.

#include <algorithm>
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

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "../core/data_type.hpp"
#include "../core/error.hpp"
#include "../ir/model.hpp"
#include "tensor_fields.hpp"
#include "wire.hpp"

namespace oxir {
namespace io {

/// Asks the kernel to back [p, p + n) with transparent huge pages where it can (Linux, THP in
/// "madvise" mode): writing a 100 MB output then takes ~50 page faults instead of ~25,000, which
/// otherwise cost more than the copying itself. Only a hint; ignored elsewhere and on failure.
inline void advise_huge_pages([[maybe_unused]] void* p, [[maybe_unused]] std::size_t n) noexcept {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  constexpr std::uintptr_t huge = std::uintptr_t{2} << 20;
  if (n < 2 * huge) return;
  const auto begin = (reinterpret_cast<std::uintptr_t>(p) + huge - 1) & ~(huge - 1);
  const auto end = (reinterpret_cast<std::uintptr_t>(p) + n) & ~(huge - 1);
  if (end > begin) (void)::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#endif
}

/// Writes protobuf messages back to front, in one pass: a message's fields are written before
/// its length is needed, so the length prefix is simply the number of bytes written since its
/// start -- no size pass, no table of nested sizes. The bytes go into a buffer on the stack
/// (growing to the heap for big models) and are copied once into an output of exactly the right
/// size. Payloads of `hole_bytes` or more are not copied into the buffer: they are remembered as
/// holes and copied straight into the output, so a model's weights are copied once, as by a
/// size-then-write encoder.
///
/// Every write takes the current start of the written bytes and returns the new start, so that
/// position stays in a register (a member would have to be reloaded after every byte store).
class BackWriter {
 public:
  using P = std::byte*;
  /// Payloads at least this big become holes (copied once, into the output).
  static constexpr std::size_t hole_bytes = 512;

  BackWriter() noexcept : lo_(inline_), hi_(inline_ + inline_capacity) {}
  BackWriter(const BackWriter&) = delete;
  BackWriter& operator=(const BackWriter&) = delete;

  /// Where writing starts (the end of an empty buffer).
  [[nodiscard]] P start() const noexcept { return hi_; }
  /// Bytes of output from `p` to the end, holes included.
  [[nodiscard]] OXIR_ALWAYS_INLINE std::size_t distance(P p) const noexcept {
    return static_cast<std::size_t>(hi_ - p) + hole_total_;
  }

  /// Makes sure `n` bytes can be written before `p`; returns `p` (moved if the buffer grew).
  [[nodiscard]] OXIR_ALWAYS_INLINE P room(P p, std::size_t n) {
    if (static_cast<std::size_t>(p - lo_) < n) [[unlikely]]
      return grow(p, n);
    return p;
  }

  /// A varint ending at `p` (10 bytes of room needed).
  [[nodiscard]] OXIR_ALWAYS_INLINE static P put_varint(P p, std::uint64_t v) noexcept {
    if (v < 0x80) {
      *--p = static_cast<std::byte>(v);
      return p;
    }
    if (v < 0x4000) {
      p -= 2;
      p[0] = static_cast<std::byte>(v | 0x80);
      p[1] = static_cast<std::byte>(v >> 7);
      return p;
    }
    return put_varint_long(p, v);
  }
  /// A field key ending at `p` (5 bytes of room needed).
  [[nodiscard]] OXIR_ALWAYS_INLINE static P put_key(P p, std::uint32_t field, wire::WireType t) noexcept {
    return put_varint(p, (static_cast<std::uint64_t>(field) << 3) | static_cast<unsigned>(t));
  }
  /// `n` bytes ending at `p` (room needed).
  [[nodiscard]] OXIR_ALWAYS_INLINE static P put_raw(P p, const std::byte* d, std::size_t n) noexcept {
    p -= n;
    copy(p, d, n);
    return p;
  }

  // ---- fields ----
  [[nodiscard]] OXIR_ALWAYS_INLINE P varint(P p, std::uint32_t f, std::uint64_t v) {
    p = room(p, 15);
    p = put_varint(p, v);
    return put_key(p, f, wire::WireType::varint);
  }
  [[nodiscard]] OXIR_ALWAYS_INLINE P fixed32(P p, std::uint32_t f, std::uint32_t v) {
    p = room(p, 9);
    p -= 4;
    std::memcpy(p, &v, 4);
    return put_key(p, f, wire::WireType::fixed32);
  }
  [[nodiscard]] OXIR_ALWAYS_INLINE P bytes(P p, std::uint32_t f, const std::byte* d, std::size_t n) {
    if (n < hole_bytes) [[likely]] {
      p = room(p, n + 15);
      p = put_raw(p, d, n);
    } else {
      p = hole(p, d, n, 15);
    }
    p = put_varint(p, n);
    return put_key(p, f, wire::WireType::length_delimited);
  }
  [[nodiscard]] OXIR_ALWAYS_INLINE P bytes(P p, std::uint32_t f, std::span<const std::byte> b) {
    return bytes(p, f, b.data(), b.size());
  }
  [[nodiscard]] OXIR_ALWAYS_INLINE P bytes(P p, std::uint32_t f, std::string_view s) {
    return bytes(p, f, reinterpret_cast<const std::byte*>(s.data()), s.size());
  }
  /// Bytes written as they are (unknown fields, packed payloads).
  [[nodiscard]] OXIR_ALWAYS_INLINE P raw(P p, const std::byte* d, std::size_t n) {
    if (n == 0) return p;
    if (n >= hole_bytes) [[unlikely]]
      return hole(p, d, n, 0);
    p = room(p, n);
    return put_raw(p, d, n);
  }
  [[nodiscard]] OXIR_ALWAYS_INLINE P raw(P p, std::string_view s) {
    return raw(p, reinterpret_cast<const std::byte*>(s.data()), s.size());
  }
  /// A nested message whose fields `inner(p)` writes (written even when empty).
  template <class F>
  [[nodiscard]] OXIR_ALWAYS_INLINE P message(P p, std::uint32_t f, F&& inner) {
    const auto mark = distance(p);
    p = inner(p);
    const auto len = distance(p) - mark;
    p = room(p, 15);
    p = put_varint(p, len);
    return put_key(p, f, wire::WireType::length_delimited);
  }
  /// A packed repeated field (omitted when empty).
  template <class F>
  [[nodiscard]] OXIR_ALWAYS_INLINE P packed(P p, std::uint32_t f, F&& inner) {
    const auto mark = distance(p);
    p = inner(p);
    const auto len = distance(p) - mark;
    if (len == 0) return p;
    p = room(p, 15);
    p = put_varint(p, len);
    return put_key(p, f, wire::WireType::length_delimited);
  }

  /// Appends what was written from `p` on, holes filled in, to `out` (a contiguous container of
  /// single bytes) and empties the writer.
  template <class Bytes>
  void finish(P p, Bytes& out) {
    const std::size_t n = distance(p);
    const std::size_t old = out.size();
    // Reserved first, so the memory is untouched when the huge-page hint is given.
    out.reserve(old + n);
    if (old == 0) advise_huge_pages(out.data(), n);
    out.resize(old + n);
    auto* o = reinterpret_cast<std::byte*>(out.data()) + old;
    const std::byte* src = p;
    // Holes were recorded back to front: the last one comes first in the output.
    for (auto h = holes_.rbegin(); h != holes_.rend(); ++h) {
      const std::byte* at = hi_ - h->at;
      const auto k = static_cast<std::size_t>(at - src);
      if (k) std::memcpy(o, src, k);
      o += k;
      std::memcpy(o, h->data, h->size);
      o += h->size;
      src = at;
    }
    const auto k = static_cast<std::size_t>(hi_ - src);
    if (k) std::memcpy(o, src, k);
    if (o + k != reinterpret_cast<std::byte*>(out.data()) + old + n) throw Error("internal error: encoder size mismatch");
    holes_.clear();
    hole_total_ = 0;
  }

 private:
  // Small copies without a call (most strings are names of a few bytes).
  OXIR_ALWAYS_INLINE static void copy(std::byte* dst, const std::byte* src, std::size_t n) noexcept {
    if (n <= 16) {
      if (n >= 8) {
        std::uint64_t a, b;
        std::memcpy(&a, src, 8);
        std::memcpy(&b, src + n - 8, 8);
        std::memcpy(dst, &a, 8);
        std::memcpy(dst + n - 8, &b, 8);
      } else if (n >= 4) {
        std::uint32_t a, b;
        std::memcpy(&a, src, 4);
        std::memcpy(&b, src + n - 4, 4);
        std::memcpy(dst, &a, 4);
        std::memcpy(dst + n - 4, &b, 4);
      } else if (n > 0) {
        dst[0] = src[0];
        dst[n / 2] = src[n / 2];
        dst[n - 1] = src[n - 1];
      }
      return;
    }
    std::memcpy(dst, src, n);
  }
  OXIR_NOINLINE static P put_varint_long(P p, std::uint64_t v) noexcept {
    const auto n = wire::varint_size(v);
    p -= n;
    for (std::size_t i = 0; i + 1 < n; ++i) {
      p[i] = static_cast<std::byte>(v | 0x80);
      v >>= 7;
    }
    p[n - 1] = static_cast<std::byte>(v);
    return p;
  }
  // Records a payload copied into the output at the end; leaves `after` bytes of room before it.
  OXIR_NOINLINE P hole(P p, const std::byte* d, std::size_t n, std::size_t after) {
    holes_.push_back({static_cast<std::size_t>(hi_ - p), d, n});
    hole_total_ += n;
    return room(p, after);
  }
  OXIR_NOINLINE P grow(P p, std::size_t n) {
    const auto used = static_cast<std::size_t>(hi_ - p);
    const auto capacity = static_cast<std::size_t>(hi_ - lo_);
    const auto bigger = std::max(2 * capacity, used + n + 64);
    auto fresh = std::make_unique_for_overwrite<std::byte[]>(bigger);
    std::byte* const top = fresh.get() + bigger;
    if (used) std::memcpy(top - used, p, used);
    heap_ = std::move(fresh);
    lo_ = heap_.get();
    hi_ = top;
    return top - used;
  }

  struct Hole {
    std::size_t at;  // bytes from the buffer's end to where the payload goes
    const std::byte* data;
    std::size_t size;
  };
  static constexpr std::size_t inline_capacity = 4096;
  std::byte* lo_;
  std::byte* hi_;
  std::size_t hole_total_ = 0;
  std::vector<Hole> holes_;
  std::unique_ptr<std::byte[]> heap_;
  std::byte inline_[inline_capacity];
};

/// The encoding rules: every message's fields in field-number order, packed where onnx.proto
/// says [packed = true], unknown fields last -- written back to front, so each function below
/// lists them last field first.
class Encoder {
 public:
  using P = std::byte*;
  BackWriter w;

  P model(P p, const Model& m) {
    p = w.raw(p, m.unknown_fields);
    p = messages(p, 26, m.configuration, [this](P q, const DeviceConfiguration& x) { return device_config(q, x); });
    p = messages(p, 25, m.functions, [this](P q, const Function& x) { return function(q, x); });
    p = messages(p, 20, m.training_info, [this](P q, const TrainingInfo& x) { return training(q, x); });
    p = messages(p, 14, m.metadata_props, [this](P q, const StringStringEntry& x) { return entry(q, x); });
    p = messages(p, 8, m.opset_imports, [this](P q, const OperatorSetId& x) { return opset(q, x); });
    if (m.presence.has(7) || !is_empty(m.graph)) p = w.message(p, 7, [&](P q) { return graph(q, m.graph); });
    p = str(p, 6, m.doc_string, m.presence);
    p = i64(p, 5, m.model_version, m.presence);
    p = str(p, 4, m.domain, m.presence);
    p = str(p, 3, m.producer_version, m.presence);
    p = str(p, 2, m.producer_name, m.presence);
    return i64(p, 1, m.ir_version, m.presence);
  }

  P graph(P p, const Graph& g) {
    p = w.raw(p, g.unknown_fields);
    p = messages(p, 16, g.metadata_props, [this](P q, const StringStringEntry& x) { return entry(q, x); });
    p = messages(p, 15, g.sparse_initializers, [this](P q, const SparseTensor& x) { return sparse(q, x); });
    p = messages(p, 14, g.quantization_annotation, [this](P q, const TensorAnnotation& x) { return annotation(q, x); });
    p = messages(p, 13, g.value_info, [this](P q, const ValueInfo& x) { return value_info(q, x); });
    p = messages(p, 12, g.outputs, [this](P q, const ValueInfo& x) { return value_info(q, x); });
    p = messages(p, 11, g.inputs, [this](P q, const ValueInfo& x) { return value_info(q, x); });
    p = str(p, 10, g.doc_string, g.presence);
    p = messages(p, 5, g.initializers, [this](P q, const Tensor& x) { return tensor(q, x); });
    p = str(p, 2, g.name, g.presence);
    return messages(p, 1, g.nodes, [this](P q, const Node& x) { return node(q, x); });
  }

  P node(P p, const Node& n) {
    p = w.raw(p, n.unknown_fields);
    p = messages(p, 10, n.device_configurations, [this](P q, const NodeDeviceConfiguration& x) { return node_device(q, x); });
    p = messages(p, 9, n.metadata_props, [this](P q, const StringStringEntry& x) { return entry(q, x); });
    p = str(p, 8, n.overload, n.presence);
    p = str(p, 7, n.domain, n.presence);
    p = str(p, 6, n.doc_string, n.presence);
    p = messages(p, 5, n.attributes, [this](P q, const Attribute& x) { return attribute(q, x); });
    p = str(p, 4, n.op_type, n.presence);
    p = str(p, 3, n.name, n.presence);
    p = strings(p, 2, n.outputs);
    return strings(p, 1, n.inputs);
  }

  P attribute(P p, const Attribute& a) {
    p = w.raw(p, a.unknown_fields);
    const auto& v = a.value;
    // The held value is written whatever it is (0 included): it is what the attribute says.
    // Its field number puts it after name (2-11), after doc_string (14-15) or after
    // ref_attr_name (22-23).
    if (auto x = std::get_if<std::vector<SparseTensor>>(&v))
      p = messages(p, 23, *x, [this](P q, const SparseTensor& s) { return sparse(q, s); });
    if (auto x = std::get_if<Box<SparseTensor>>(&v); x && *x) p = w.message(p, 22, [&](P q) { return sparse(q, **x); });
    p = str(p, 21, a.ref_attr_name, a.presence);
    p = i32(p, 20, static_cast<std::int32_t>(a.type), a.presence);
    if (auto x = std::get_if<std::vector<Type>>(&v)) p = messages(p, 15, *x, [this](P q, const Type& y) { return type(q, y); });
    if (auto x = std::get_if<Box<Type>>(&v); x && *x) p = w.message(p, 14, [&](P q) { return type(q, **x); });
    p = str(p, 13, a.doc_string, a.presence);
    switch (v.index()) {
      case 1: return str_last(w.fixed32(p, 2, std::bit_cast<std::uint32_t>(std::get<float>(v))), a);
      case 2: return str_last(w.varint(p, 3, static_cast<std::uint64_t>(std::get<std::int64_t>(v))), a);
      case 3: return str_last(w.bytes(p, 4, std::string_view(std::get<std::string>(v))), a);
      case 4:
        if (const auto& x = std::get<Box<Tensor>>(v)) p = w.message(p, 5, [&](P q) { return tensor(q, *x); });
        break;
      case 5:
        if (const auto& x = std::get<Box<Graph>>(v)) p = w.message(p, 6, [&](P q) { return graph(q, *x); });
        break;
      case 6: {
        const auto& x = std::get<std::vector<float>>(v);
        for (auto i = x.size(); i-- > 0;) p = w.fixed32(p, 7, std::bit_cast<std::uint32_t>(x[i]));
        break;
      }
      case 7: {
        const auto& x = std::get<std::vector<std::int64_t>>(v);
        for (auto i = x.size(); i-- > 0;) p = w.varint(p, 8, static_cast<std::uint64_t>(x[i]));
        break;
      }
      case 8: p = strings(p, 9, std::get<std::vector<std::string>>(v)); break;
      case 9: p = messages(p, 10, std::get<std::vector<Tensor>>(v), [this](P q, const Tensor& t) { return tensor(q, t); }); break;
      case 10: p = messages(p, 11, std::get<std::vector<Graph>>(v), [this](P q, const Graph& g) { return graph(q, g); }); break;
      default: break;
    }
    return str_last(p, a);
  }

  P tensor(P p, const Tensor& t) {
    p = w.raw(p, t.unknown_fields);
    p = messages(p, 16, t.metadata_props, [this](P q, const StringStringEntry& x) { return entry(q, x); });
    p = i32(p, 14, static_cast<std::int32_t>(t.data_location), t.presence);
    p = messages(p, 13, t.external_data, [this](P q, const StringStringEntry& x) { return entry(q, x); });
    p = str(p, 12, t.doc_string, t.presence);
    const bool inline_data = !t.is_external() && t.data_type != DataType::STRING;
    const bool typed = inline_data && t.encoding == TensorEncoding::typed;
    const auto typed_field = typed ? typed_field_for(t.data_type) : 0U;
    if (typed_field == 11) p = typed_varints(p, 11, t, bit_width(t.data_type) / 8);
    if (typed_field == 10) p = typed_fixed(p, 10, t, 8);
    if (inline_data && typed_field == 0 && (!t.data.empty() || t.presence.has(9))) p = w.bytes(p, 9, t.bytes());
    p = str(p, 8, t.name, t.presence);
    if (typed_field == 7) p = typed_varints(p, 7, t, 8);
    p = strings(p, 6, t.strings);
    if (typed_field == 5) p = typed_int32(p, t);
    if (typed_field == 4) p = typed_fixed(p, 4, t, 4);
    if (t.segment) p = w.message(p, 3, [&](P q) { return segment(q, *t.segment); });
    p = i32(p, 2, static_cast<std::int32_t>(t.data_type), t.presence);
    for (auto i = t.dims.size(); i-- > 0;) p = w.varint(p, 1, static_cast<std::uint64_t>(t.dims[i]));
    return p;
  }

  P sparse(P p, const SparseTensor& s) {
    p = w.raw(p, s.unknown_fields);
    for (auto i = s.dims.size(); i-- > 0;) p = w.varint(p, 3, static_cast<std::uint64_t>(s.dims[i]));
    if (s.presence.has(2) || !is_empty(s.indices)) p = w.message(p, 2, [&](P q) { return tensor(q, s.indices); });
    if (s.presence.has(1) || !is_empty(s.values)) p = w.message(p, 1, [&](P q) { return tensor(q, s.values); });
    return p;
  }

  P value_info(P p, const ValueInfo& v) {
    p = w.raw(p, v.unknown_fields);
    p = messages(p, 4, v.metadata_props, [this](P q, const StringStringEntry& x) { return entry(q, x); });
    p = str(p, 3, v.doc_string, v.presence);
    if (v.type) p = w.message(p, 2, [&](P q) { return type(q, *v.type); });
    return str(p, 1, v.name, v.presence);
  }

  P type(P p, const Type& y) {
    p = w.raw(p, y.unknown_fields);
    if (auto x = std::get_if<OptionalType>(&y.value))
      p = w.message(p, 9, [&](P q) {
        q = w.raw(q, x->unknown_fields);
        if (x->elem_type) q = w.message(q, 1, [&](P r) { return type(r, *x->elem_type); });
        return q;
      });
    if (auto x = std::get_if<SparseTensorType>(&y.value)) p = w.message(p, 8, [&](P q) { return tensor_type(q, *x); });
    if (auto x = std::get_if<OpaqueType>(&y.value))
      p = w.message(p, 7, [&](P q) {
        q = w.raw(q, x->unknown_fields);
        q = str(q, 2, x->name, x->presence);
        return str(q, 1, x->domain, x->presence);
      });
    p = str(p, 6, y.denotation, y.presence);
    if (auto x = std::get_if<MapType>(&y.value))
      p = w.message(p, 5, [&](P q) {
        q = w.raw(q, x->unknown_fields);
        if (x->value_type) q = w.message(q, 2, [&](P r) { return type(r, *x->value_type); });
        return i32(q, 1, static_cast<std::int32_t>(x->key_type), x->presence);
      });
    if (auto x = std::get_if<SequenceType>(&y.value))
      p = w.message(p, 4, [&](P q) {
        q = w.raw(q, x->unknown_fields);
        if (x->elem_type) q = w.message(q, 1, [&](P r) { return type(r, *x->elem_type); });
        return q;
      });
    if (auto x = std::get_if<TensorType>(&y.value)) p = w.message(p, 1, [&](P q) { return tensor_type(q, *x); });
    return p;
  }

  P function(P p, const Function& f) {
    p = w.raw(p, f.unknown_fields);
    p = messages(p, 14, f.metadata_props, [this](P q, const StringStringEntry& x) { return entry(q, x); });
    p = str(p, 13, f.overload, f.presence);
    p = messages(p, 12, f.value_info, [this](P q, const ValueInfo& x) { return value_info(q, x); });
    p = messages(p, 11, f.attribute_protos, [this](P q, const Attribute& x) { return attribute(q, x); });
    p = str(p, 10, f.domain, f.presence);
    p = messages(p, 9, f.opset_imports, [this](P q, const OperatorSetId& x) { return opset(q, x); });
    p = str(p, 8, f.doc_string, f.presence);
    p = messages(p, 7, f.nodes, [this](P q, const Node& x) { return node(q, x); });
    p = strings(p, 6, f.attributes);
    p = strings(p, 5, f.outputs);
    p = strings(p, 4, f.inputs);
    return str(p, 1, f.name, f.presence);
  }

 private:
  P tensor_type(P p, const auto& tt) {
    p = w.raw(p, tt.unknown_fields);
    if (tt.shape)
      p = w.message(p, 2, [&](P q) {
        q = w.raw(q, tt.shape->unknown_fields);
        return messages(q, 1, tt.shape->dims, [this](P r, const Dim& d) { return dim(r, d); });
      });
    return i32(p, 1, static_cast<std::int32_t>(tt.elem_type), tt.presence);
  }
  OXIR_ALWAYS_INLINE P dim(P p, const Dim& d) {
    p = w.raw(p, d.unknown_fields);
    p = str(p, 3, d.denotation, d.presence);
    if (auto x = std::get_if<std::string>(&d.value)) p = w.bytes(p, 2, std::string_view(*x));
    if (auto x = std::get_if<std::int64_t>(&d.value)) p = w.varint(p, 1, static_cast<std::uint64_t>(*x));
    return p;
  }
  P segment(P p, const TensorSegment& s) {
    p = w.raw(p, s.unknown_fields);
    p = i64(p, 2, s.end, s.presence);
    return i64(p, 1, s.begin, s.presence);
  }
  OXIR_ALWAYS_INLINE P opset(P p, const OperatorSetId& x) {
    p = w.raw(p, x.unknown_fields);
    p = i64(p, 2, x.version, x.presence);
    return str(p, 1, x.domain, x.presence);
  }
  P entry(P p, const StringStringEntry& e) {
    p = w.raw(p, e.unknown_fields);
    p = str(p, 2, e.value, e.presence);
    return str(p, 1, e.key, e.presence);
  }
  P annotation(P p, const TensorAnnotation& a) {
    p = w.raw(p, a.unknown_fields);
    p = messages(p, 2, a.quant_parameter_tensor_names, [this](P q, const StringStringEntry& x) { return entry(q, x); });
    return str(p, 1, a.tensor_name, a.presence);
  }
  P training(P p, const TrainingInfo& t) {
    p = w.raw(p, t.unknown_fields);
    p = messages(p, 4, t.update_binding, [this](P q, const StringStringEntry& x) { return entry(q, x); });
    p = messages(p, 3, t.initialization_binding, [this](P q, const StringStringEntry& x) { return entry(q, x); });
    if (t.presence.has(2) || !is_empty(t.algorithm)) p = w.message(p, 2, [&](P q) { return graph(q, t.algorithm); });
    if (t.presence.has(1) || !is_empty(t.initialization))
      p = w.message(p, 1, [&](P q) { return graph(q, t.initialization); });
    return p;
  }
  P device_config(P p, const DeviceConfiguration& d) {
    p = w.raw(p, d.unknown_fields);
    p = strings(p, 3, d.device);
    p = i32(p, 2, d.num_devices, d.presence);
    return str(p, 1, d.name, d.presence);
  }
  P node_device(P p, const NodeDeviceConfiguration& d) {
    p = w.raw(p, d.unknown_fields);
    p = i32(p, 3, d.pipeline_stage, d.presence);
    p = messages(p, 2, d.sharding_spec, [this](P q, const ShardingSpec& x) { return sharding(q, x); });
    return str(p, 1, d.configuration_id, d.presence);
  }
  P sharding(P p, const ShardingSpec& s) {
    p = w.raw(p, s.unknown_fields);
    p = messages(p, 4, s.sharded_dim, [this](P q, const ShardedDim& x) {
      q = w.raw(q, x.unknown_fields);
      q = messages(q, 2, x.simple_sharding, [this](P r, const SimpleShardedDim& ss) {
        r = w.raw(r, ss.unknown_fields);
        r = i64(r, 3, ss.num_shards, ss.presence);
        if (auto d = std::get_if<std::string>(&ss.dim)) r = w.bytes(r, 2, std::string_view(*d));
        if (auto d = std::get_if<std::int64_t>(&ss.dim)) r = w.varint(r, 1, static_cast<std::uint64_t>(*d));
        return r;
      });
      return i64(q, 1, x.axis, x.presence);
    });
    p = messages(p, 3, s.index_to_device_group_map, [this](P q, const IntIntListEntry& x) {
      q = w.raw(q, x.unknown_fields);
      for (auto i = x.value.size(); i-- > 0;) q = w.varint(q, 2, static_cast<std::uint64_t>(x.value[i]));
      return i64(q, 1, x.key, x.presence);
    });
    for (auto i = s.device.size(); i-- > 0;) p = w.varint(p, 2, static_cast<std::uint64_t>(s.device[i]));
    return str(p, 1, s.tensor_name, s.presence);
  }

  static void check_multiple(const Tensor& t, std::size_t width) {
    if (t.data.size() % width != 0)
      throw Error("tensor '" + t.name + "'", "payload of " + std::to_string(t.data.size()) +
                                                 " bytes is not a whole number of " + std::to_string(width) +
                                                 "-byte elements");
  }
  P typed_fixed(P p, std::uint32_t f, const Tensor& t, std::size_t width) {
    check_multiple(t, width);
    return w.packed(p, f, [&](P q) {
      const auto b = t.bytes();
      return w.raw(q, b.data(), b.size());
    });
  }
  // Packed varints, one per element of `width` bytes, last element first; `sign_extend`: the
  // element is a signed integer narrower than 64 bits (int32_data of INT8/INT16/INT32).
  P element_varints(P p, std::span<const std::byte> b, std::size_t width, bool sign_extend) {
    const auto shift = 64 - 8 * width;
    for (std::size_t i = b.size(); i >= width;) {
      i -= width;
      std::uint64_t v = 0;
      std::memcpy(&v, b.data() + i, width);
      if (sign_extend) v = static_cast<std::uint64_t>(static_cast<std::int64_t>(v << shift) >> shift);
      p = w.room(p, 10);
      p = BackWriter::put_varint(p, v);
    }
    return p;
  }
  // int64_data / uint64_data: one varint per element of `width` bytes (int64 two's complement
  // is already the varint's 64-bit value).
  P typed_varints(P p, std::uint32_t f, const Tensor& t, int width) {
    const auto wd = static_cast<std::size_t>(width);
    check_multiple(t, wd);
    return w.packed(p, f, [&](P q) { return element_varints(q, t.bytes(), wd, false); });
  }
  // int32_data: one entry per element (sub-byte types: one per packed byte); signed types
  // sign-extended, the others (bit patterns of float16/bfloat16/float8, uint8/16, bool) zero-extended.
  P typed_int32(P p, const Tensor& t) {
    const int bits = bit_width(t.data_type);
    const std::size_t wd = bits >= 8 ? static_cast<std::size_t>(bits / 8) : 1;
    const bool sign_extend = bits >= 8 && wd < 8 && is_signed(t.data_type) && is_integer(t.data_type);
    check_multiple(t, wd);
    return w.packed(p, 5, [&](P q) { return element_varints(q, t.bytes(), wd, sign_extend); });
  }

  // Repeated message field `f`, last element first.
  template <class V, class Fn>
  OXIR_ALWAYS_INLINE P messages(P p, std::uint32_t f, const V& v, Fn&& fn) {
    for (auto i = v.size(); i-- > 0;) p = w.message(p, f, [&](P q) { return fn(q, v[i]); });
    return p;
  }
  OXIR_ALWAYS_INLINE P strings(P p, std::uint32_t f, const std::vector<std::string>& v) {
    for (auto i = v.size(); i-- > 0;) p = w.bytes(p, f, std::string_view(v[i]));
    return p;
  }
  // The attribute's name, field 1 (the first field, so written last).
  OXIR_ALWAYS_INLINE P str_last(P p, const Attribute& a) { return str(p, 1, a.name, a.presence); }

  // ---- optional scalar fields: written when non-default or present on the wire ----
  OXIR_ALWAYS_INLINE P str(P p, std::uint32_t f, const std::string& s, const FieldPresence& pr) {
    if (!s.empty() || pr.has(static_cast<int>(f))) p = w.bytes(p, f, std::string_view(s));
    return p;
  }
  OXIR_ALWAYS_INLINE P i64(P p, std::uint32_t f, std::int64_t v, const FieldPresence& pr) {
    if (v != 0 || pr.has(static_cast<int>(f))) p = w.varint(p, f, static_cast<std::uint64_t>(v));
    return p;
  }
  // int32 and enums: negative values are sign-extended to 64 bits, as protobuf does.
  OXIR_ALWAYS_INLINE P i32(P p, std::uint32_t f, std::int32_t v, const FieldPresence& pr) {
    if (v != 0 || pr.has(static_cast<int>(f)))
      p = w.varint(p, f, static_cast<std::uint64_t>(static_cast<std::int64_t>(v)));
    return p;
  }

  static bool is_empty(const Graph& g) { return g == Graph{}; }
  static bool is_empty(const Tensor& t) { return t == Tensor{}; }
};

/// What `encode_as` hands to its callback: each call appends one message's fields (as they
/// would appear inside that message, without tag or length) to the output.
template <class Bytes>
class Emitter {
 public:
  explicit Emitter(Bytes& out) noexcept : out_(out) {}
  void model(const Model& x) { e_.w.finish(e_.model(e_.w.start(), x), out_); }
  void graph(const Graph& x) { e_.w.finish(e_.graph(e_.w.start(), x), out_); }
  void node(const Node& x) { e_.w.finish(e_.node(e_.w.start(), x), out_); }
  void attribute(const Attribute& x) { e_.w.finish(e_.attribute(e_.w.start(), x), out_); }
  void tensor(const Tensor& x) { e_.w.finish(e_.tensor(e_.w.start(), x), out_); }
  void sparse(const SparseTensor& x) { e_.w.finish(e_.sparse(e_.w.start(), x), out_); }
  void value_info(const ValueInfo& x) { e_.w.finish(e_.value_info(e_.w.start(), x), out_); }
  void type(const Type& x) { e_.w.finish(e_.type(e_.w.start(), x), out_); }
  void function(const Function& x) { e_.w.finish(e_.function(e_.w.start(), x), out_); }

 private:
  Bytes& out_;
  Encoder e_;
};

/// Calls `emit(emitter)` (see Emitter) and returns what it wrote in a new `Bytes` (a contiguous
/// container of single bytes: std::vector<std::byte>, std::string), allocated once at the exact
/// size when `emit` writes one message.
template <class Bytes, class Fn>
[[nodiscard]] Bytes encode_as(Fn&& emit) {
  Bytes out;
  Emitter<Bytes> e(out);
  emit(e);
  return out;
}

/// Calls `emit(emitter)` and returns the bytes.
template <class Fn>
[[nodiscard]] std::vector<std::byte> encode_with(Fn&& emit) {
  return encode_as<std::vector<std::byte>>(std::forward<Fn>(emit));
}

}  // namespace io

/// Serializes a model to protobuf bytes (ModelProto). External tensors stay external: their
/// payload is not inlined.
[[nodiscard]] inline std::vector<std::byte> serialize_model(const Model& m) {
  return io::encode_with([&](auto& e) { e.model(m); });
}

/// Serializes one tensor (TensorProto).
[[nodiscard]] inline std::vector<std::byte> serialize_tensor(const Tensor& t) {
  return io::encode_with([&](auto& e) { e.tensor(t); });
}

/// Serializes a model into a std::string (what protobuf's SerializeToString gives).
[[nodiscard]] inline std::string serialize_model_to_string(const Model& m) {
  return io::encode_as<std::string>([&](auto& e) { e.model(m); });
}

}  // namespace oxir
