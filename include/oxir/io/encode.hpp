#pragma once
// Native encoder: oxir::Model -> protobuf wire bytes, without libprotobuf. Fields are written in
// field-number order, packed where onnx.proto says [packed = true], unknown fields last -- as
// protobuf's own serializer does, so re-serializing a model protobuf wrote gives the same bytes.

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

/// Sizes of nested messages in visiting order: the first pass appends, the second reads them
/// back. The first entries live in the object itself (on the stack), so small models need no
/// allocation; bigger ones spill to the heap, doubling.
class SizeList {
 public:
  SizeList() noexcept : data_(inline_) {}
  SizeList(const SizeList&) = delete;
  SizeList& operator=(const SizeList&) = delete;

  /// Appends a slot and returns its index.
  OXIR_ALWAYS_INLINE std::size_t push() {
    if (size_ == capacity_) [[unlikely]]
      grow();
    return size_++;
  }
  void set(std::size_t i, std::uint64_t size) noexcept { data_[i] = Size{size}; }
  [[nodiscard]] std::uint64_t operator[](std::size_t i) const noexcept { return static_cast<std::uint64_t>(data_[i]); }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }

 private:
  // A type of its own, so that stores of sizes cannot alias the passes' counters (std::size_t,
  // std::uint64_t) and the compiler keeps those in registers.
  enum class Size : std::uint64_t {};
  OXIR_NOINLINE void grow() {
    auto bigger = std::make_unique_for_overwrite<Size[]>(capacity_ * 2);
    std::memcpy(bigger.get(), data_, size_ * sizeof(Size));
    heap_ = std::move(bigger);
    data_ = heap_.get();
    capacity_ *= 2;
  }
  static constexpr std::size_t inline_capacity = 256;
  Size inline_[inline_capacity];
  std::unique_ptr<Size[]> heap_;
  Size* data_;
  std::size_t size_ = 0;
  std::size_t capacity_ = inline_capacity;
};

/// First pass: measures every message, remembering nested sizes in visiting order.
class SizePass {
 public:
  explicit SizePass(SizeList& sizes) noexcept : sizes_(sizes) {}
  void varint(std::uint32_t f, std::uint64_t v) { n_ += wire::tag_size(f) + wire::varint_size(v); }
  void fixed32(std::uint32_t f, std::uint32_t) { n_ += wire::tag_size(f) + 4; }
  void bytes(std::uint32_t f, std::span<const std::byte> b) {
    n_ += wire::tag_size(f) + wire::varint_size(b.size()) + b.size();
  }
  void bytes(std::uint32_t f, std::string_view s) { n_ += wire::tag_size(f) + wire::varint_size(s.size()) + s.size(); }
  void raw(std::span<const std::byte> b) { n_ += b.size(); }
  void raw(std::string_view s) { n_ += s.size(); }
  void bare_varint(std::uint64_t v) { n_ += wire::varint_size(v); }
  /// A nested message (written even when empty).
  template <class F>
  void message(std::uint32_t f, F&& inner) {
    const auto size = measure(inner);
    n_ += wire::tag_size(f) + wire::varint_size(size) + size;
  }
  /// A packed repeated field (omitted when empty).
  template <class F>
  void packed(std::uint32_t f, F&& inner) {
    const auto size = measure(inner);
    if (size) n_ += wire::tag_size(f) + wire::varint_size(size) + size;
  }
  [[nodiscard]] std::uint64_t total() const noexcept { return n_; }

 private:
  template <class F>
  std::uint64_t measure(F& inner) {
    const auto slot = sizes_.push();
    const auto saved = n_;
    n_ = 0;
    inner();
    const auto size = n_;
    sizes_.set(slot, size);
    n_ = saved;
    return size;
  }
  std::uint64_t n_ = 0;
  SizeList& sizes_;
};

/// Second pass: writes into memory sized by the first pass, reusing its nested sizes.
class WritePass {
 public:
  WritePass(std::byte* out, const SizeList& sizes) noexcept : w_(out), sizes_(sizes) {}
  OXIR_ALWAYS_INLINE void varint(std::uint32_t f, std::uint64_t v) {
    w_.tag(f, wire::WireType::varint);
    w_.varint(v);
  }
  void fixed32(std::uint32_t f, std::uint32_t v) {
    w_.tag(f, wire::WireType::fixed32);
    w_.fixed32(v);
  }
  OXIR_ALWAYS_INLINE void bytes(std::uint32_t f, std::span<const std::byte> b) {
    w_.tag(f, wire::WireType::length_delimited);
    w_.varint(b.size());
    w_.raw(b);
  }
  OXIR_ALWAYS_INLINE void bytes(std::uint32_t f, std::string_view s) { bytes(f, std::as_bytes(std::span<const char>(s.data(), s.size()))); }
  void raw(std::span<const std::byte> b) { w_.raw(b); }
  void raw(std::string_view s) { w_.raw(s); }
  void bare_varint(std::uint64_t v) { w_.varint(v); }
  template <class F>
  void message(std::uint32_t f, F&& inner) {
    const auto size = sizes_[next_++];
    w_.tag(f, wire::WireType::length_delimited);
    w_.varint(size);
    inner();
  }
  template <class F>
  void packed(std::uint32_t f, F&& inner) {
    const auto size = sizes_[next_++];
    if (!size) return;
    w_.tag(f, wire::WireType::length_delimited);
    w_.varint(size);
    inner();
  }
  [[nodiscard]] std::byte* position() const noexcept { return w_.position(); }

 private:
  wire::Writer w_;
  const SizeList& sizes_;
  std::size_t next_ = 0;
};

/// The encoding rules, written once for both passes.
template <class Out>
class Emitter {
 public:
  explicit Emitter(Out& o) : o_(o) {}

  void model(const Model& m) {
    i64(1, m.ir_version, m.presence);
    str(2, m.producer_name, m.presence);
    str(3, m.producer_version, m.presence);
    str(4, m.domain, m.presence);
    i64(5, m.model_version, m.presence);
    str(6, m.doc_string, m.presence);
    if (m.presence.has(7) || !is_empty(m.graph)) o_.message(7, [&] { graph(m.graph); });
    for (const auto& x : m.opset_imports) o_.message(8, [&] { opset(x); });
    for (const auto& x : m.metadata_props) o_.message(14, [&] { entry(x); });
    for (const auto& x : m.training_info) o_.message(20, [&] { training(x); });
    for (const auto& x : m.functions) o_.message(25, [&] { function(x); });
    for (const auto& x : m.configuration) o_.message(26, [&] { device_config(x); });
    o_.raw(m.unknown_fields);
  }

  void graph(const Graph& g) {
    for (const auto& x : g.nodes) o_.message(1, [&] { node(x); });
    str(2, g.name, g.presence);
    for (const auto& x : g.initializers) o_.message(5, [&] { tensor(x); });
    str(10, g.doc_string, g.presence);
    for (const auto& x : g.inputs) o_.message(11, [&] { value_info(x); });
    for (const auto& x : g.outputs) o_.message(12, [&] { value_info(x); });
    for (const auto& x : g.value_info) o_.message(13, [&] { value_info(x); });
    for (const auto& x : g.quantization_annotation) o_.message(14, [&] { annotation(x); });
    for (const auto& x : g.sparse_initializers) o_.message(15, [&] { sparse(x); });
    for (const auto& x : g.metadata_props) o_.message(16, [&] { entry(x); });
    o_.raw(g.unknown_fields);
  }

  void node(const Node& n) {
    for (const auto& x : n.inputs) o_.bytes(1, x);
    for (const auto& x : n.outputs) o_.bytes(2, x);
    str(3, n.name, n.presence);
    str(4, n.op_type, n.presence);
    for (const auto& x : n.attributes) o_.message(5, [&] { attribute(x); });
    str(6, n.doc_string, n.presence);
    str(7, n.domain, n.presence);
    str(8, n.overload, n.presence);
    for (const auto& x : n.metadata_props) o_.message(9, [&] { entry(x); });
    for (const auto& x : n.device_configurations) o_.message(10, [&] { node_device(x); });
    o_.raw(n.unknown_fields);
  }

  void attribute(const Attribute& a) {
    str(1, a.name, a.presence);
    const auto& v = a.value;
    // The held value is written whatever it is (0 included): it is what the attribute says.
    if (auto p = std::get_if<float>(&v)) o_.fixed32(2, std::bit_cast<std::uint32_t>(*p));
    if (auto p = std::get_if<std::int64_t>(&v)) o_.varint(3, static_cast<std::uint64_t>(*p));
    if (auto p = std::get_if<std::string>(&v)) o_.bytes(4, *p);
    if (auto p = std::get_if<Box<Tensor>>(&v); p && *p) o_.message(5, [&] { tensor(**p); });
    if (auto p = std::get_if<Box<Graph>>(&v); p && *p) o_.message(6, [&] { graph(**p); });
    if (auto p = std::get_if<std::vector<float>>(&v))
      for (float f : *p) o_.fixed32(7, std::bit_cast<std::uint32_t>(f));
    if (auto p = std::get_if<std::vector<std::int64_t>>(&v))
      for (auto i : *p) o_.varint(8, static_cast<std::uint64_t>(i));
    if (auto p = std::get_if<std::vector<std::string>>(&v))
      for (const auto& s : *p) o_.bytes(9, s);
    if (auto p = std::get_if<std::vector<Tensor>>(&v))
      for (const auto& t : *p) o_.message(10, [&] { tensor(t); });
    if (auto p = std::get_if<std::vector<Graph>>(&v))
      for (const auto& g : *p) o_.message(11, [&] { graph(g); });
    str(13, a.doc_string, a.presence);
    if (auto p = std::get_if<Box<Type>>(&v); p && *p) o_.message(14, [&] { type(**p); });
    if (auto p = std::get_if<std::vector<Type>>(&v))
      for (const auto& t : *p) o_.message(15, [&] { type(t); });
    i32(20, static_cast<std::int32_t>(a.type), a.presence);
    str(21, a.ref_attr_name, a.presence);
    if (auto p = std::get_if<Box<SparseTensor>>(&v); p && *p) o_.message(22, [&] { sparse(**p); });
    if (auto p = std::get_if<std::vector<SparseTensor>>(&v))
      for (const auto& s : *p) o_.message(23, [&] { sparse(s); });
    o_.raw(a.unknown_fields);
  }

  void tensor(const Tensor& t) {
    for (auto d : t.dims) o_.varint(1, static_cast<std::uint64_t>(d));
    i32(2, static_cast<std::int32_t>(t.data_type), t.presence);
    if (t.segment) o_.message(3, [&] { segment(*t.segment); });
    const bool inline_data = !t.is_external() && t.data_type != DataType::STRING;
    const bool typed = inline_data && t.encoding == TensorEncoding::typed;
    const auto typed_field = typed ? typed_field_for(t.data_type) : 0U;
    if (typed_field == 4) typed_fixed(4, t, 4);
    if (typed_field == 5) typed_int32(t);
    for (const auto& s : t.strings) o_.bytes(6, s);
    if (typed_field == 7) typed_varints(7, t, 8, true);
    str(8, t.name, t.presence);
    if (inline_data && typed_field == 0 && (!t.data.empty() || t.presence.has(9))) o_.bytes(9, t.bytes());
    if (typed_field == 10) typed_fixed(10, t, 8);
    if (typed_field == 11) typed_varints(11, t, bit_width(t.data_type) / 8, false);
    str(12, t.doc_string, t.presence);
    for (const auto& x : t.external_data) o_.message(13, [&] { entry(x); });
    i32(14, static_cast<std::int32_t>(t.data_location), t.presence);
    for (const auto& x : t.metadata_props) o_.message(16, [&] { entry(x); });
    o_.raw(t.unknown_fields);
  }

  void sparse(const SparseTensor& s) {
    if (s.presence.has(1) || !is_empty(s.values)) o_.message(1, [&] { tensor(s.values); });
    if (s.presence.has(2) || !is_empty(s.indices)) o_.message(2, [&] { tensor(s.indices); });
    for (auto d : s.dims) o_.varint(3, static_cast<std::uint64_t>(d));
    o_.raw(s.unknown_fields);
  }

  void value_info(const ValueInfo& v) {
    str(1, v.name, v.presence);
    if (v.type) o_.message(2, [&] { type(*v.type); });
    str(3, v.doc_string, v.presence);
    for (const auto& x : v.metadata_props) o_.message(4, [&] { entry(x); });
    o_.raw(v.unknown_fields);
  }

  void type(const Type& y) {
    if (auto p = std::get_if<TensorType>(&y.value)) o_.message(1, [&] { tensor_type(*p); });
    if (auto p = std::get_if<SequenceType>(&y.value))
      o_.message(4, [&] {
        if (p->elem_type) o_.message(1, [&] { type(*p->elem_type); });
        o_.raw(p->unknown_fields);
      });
    if (auto p = std::get_if<MapType>(&y.value))
      o_.message(5, [&] {
        i32(1, static_cast<std::int32_t>(p->key_type), p->presence);
        if (p->value_type) o_.message(2, [&] { type(*p->value_type); });
        o_.raw(p->unknown_fields);
      });
    str(6, y.denotation, y.presence);
    if (auto p = std::get_if<OpaqueType>(&y.value))
      o_.message(7, [&] {
        str(1, p->domain, p->presence);
        str(2, p->name, p->presence);
        o_.raw(p->unknown_fields);
      });
    if (auto p = std::get_if<SparseTensorType>(&y.value)) o_.message(8, [&] { tensor_type(*p); });
    if (auto p = std::get_if<OptionalType>(&y.value))
      o_.message(9, [&] {
        if (p->elem_type) o_.message(1, [&] { type(*p->elem_type); });
        o_.raw(p->unknown_fields);
      });
    o_.raw(y.unknown_fields);
  }

  void function(const Function& f) {
    str(1, f.name, f.presence);
    for (const auto& x : f.inputs) o_.bytes(4, x);
    for (const auto& x : f.outputs) o_.bytes(5, x);
    for (const auto& x : f.attributes) o_.bytes(6, x);
    for (const auto& x : f.nodes) o_.message(7, [&] { node(x); });
    str(8, f.doc_string, f.presence);
    for (const auto& x : f.opset_imports) o_.message(9, [&] { opset(x); });
    str(10, f.domain, f.presence);
    for (const auto& x : f.attribute_protos) o_.message(11, [&] { attribute(x); });
    for (const auto& x : f.value_info) o_.message(12, [&] { value_info(x); });
    str(13, f.overload, f.presence);
    for (const auto& x : f.metadata_props) o_.message(14, [&] { entry(x); });
    o_.raw(f.unknown_fields);
  }

 private:
  void tensor_type(const auto& tt) {
    i32(1, static_cast<std::int32_t>(tt.elem_type), tt.presence);
    if (tt.shape)
      o_.message(2, [&] {
        for (const auto& d : tt.shape->dims) o_.message(1, [&] { dim(d); });
        o_.raw(tt.shape->unknown_fields);
      });
    o_.raw(tt.unknown_fields);
  }
  void dim(const Dim& d) {
    if (auto p = std::get_if<std::int64_t>(&d.value)) o_.varint(1, static_cast<std::uint64_t>(*p));
    if (auto p = std::get_if<std::string>(&d.value)) o_.bytes(2, *p);
    str(3, d.denotation, d.presence);
    o_.raw(d.unknown_fields);
  }
  void segment(const TensorSegment& s) {
    i64(1, s.begin, s.presence);
    i64(2, s.end, s.presence);
    o_.raw(s.unknown_fields);
  }
  void opset(const OperatorSetId& x) {
    str(1, x.domain, x.presence);
    i64(2, x.version, x.presence);
    o_.raw(x.unknown_fields);
  }
  void entry(const StringStringEntry& e) {
    str(1, e.key, e.presence);
    str(2, e.value, e.presence);
    o_.raw(e.unknown_fields);
  }
  void annotation(const TensorAnnotation& a) {
    str(1, a.tensor_name, a.presence);
    for (const auto& x : a.quant_parameter_tensor_names) o_.message(2, [&] { entry(x); });
    o_.raw(a.unknown_fields);
  }
  void training(const TrainingInfo& t) {
    if (t.presence.has(1) || !is_empty(t.initialization)) o_.message(1, [&] { graph(t.initialization); });
    if (t.presence.has(2) || !is_empty(t.algorithm)) o_.message(2, [&] { graph(t.algorithm); });
    for (const auto& x : t.initialization_binding) o_.message(3, [&] { entry(x); });
    for (const auto& x : t.update_binding) o_.message(4, [&] { entry(x); });
    o_.raw(t.unknown_fields);
  }
  void device_config(const DeviceConfiguration& d) {
    str(1, d.name, d.presence);
    i32(2, d.num_devices, d.presence);
    for (const auto& x : d.device) o_.bytes(3, x);
    o_.raw(d.unknown_fields);
  }
  void node_device(const NodeDeviceConfiguration& d) {
    str(1, d.configuration_id, d.presence);
    for (const auto& x : d.sharding_spec) o_.message(2, [&] { sharding(x); });
    i32(3, d.pipeline_stage, d.presence);
    o_.raw(d.unknown_fields);
  }
  void sharding(const ShardingSpec& s) {
    str(1, s.tensor_name, s.presence);
    for (auto x : s.device) o_.varint(2, static_cast<std::uint64_t>(x));
    for (const auto& x : s.index_to_device_group_map)
      o_.message(3, [&] {
        i64(1, x.key, x.presence);
        for (auto v : x.value) o_.varint(2, static_cast<std::uint64_t>(v));
        o_.raw(x.unknown_fields);
      });
    for (const auto& x : s.sharded_dim)
      o_.message(4, [&] {
        i64(1, x.axis, x.presence);
        for (const auto& ss : x.simple_sharding)
          o_.message(2, [&] {
            if (auto p = std::get_if<std::int64_t>(&ss.dim)) o_.varint(1, static_cast<std::uint64_t>(*p));
            if (auto p = std::get_if<std::string>(&ss.dim)) o_.bytes(2, *p);
            i64(3, ss.num_shards, ss.presence);
            o_.raw(ss.unknown_fields);
          });
        o_.raw(x.unknown_fields);
      });
    o_.raw(s.unknown_fields);
  }

  static void check_multiple(const Tensor& t, std::size_t width) {
    if (t.data.size() % width != 0)
      throw Error("tensor '" + t.name + "'", "payload of " + std::to_string(t.data.size()) +
                                                 " bytes is not a whole number of " + std::to_string(width) +
                                                 "-byte elements");
  }
  void typed_fixed(std::uint32_t f, const Tensor& t, std::size_t width) {
    check_multiple(t, width);
    o_.packed(f, [&] { o_.raw(t.bytes()); });
  }
  // int64_data / uint64_data: one varint per element of `width` bytes.
  void typed_varints(std::uint32_t f, const Tensor& t, int width, bool is_signed) {
    const auto w = static_cast<std::size_t>(width);
    check_multiple(t, w);
    o_.packed(f, [&] {
      const auto b = t.bytes();
      for (std::size_t i = 0; i < b.size(); i += w) {
        std::uint64_t v = 0;
        std::memcpy(&v, b.data() + i, w);
        (void)is_signed;  // int64 two's complement is already the varint's 64-bit value
        o_.bare_varint(v);
      }
    });
  }
  // int32_data: one entry per element (sub-byte types: one per packed byte); signed types
  // sign-extended, the others (bit patterns of float16/bfloat16/float8, uint8/16, bool) zero-extended.
  void typed_int32(const Tensor& t) {
    const int bits = bit_width(t.data_type);
    const std::size_t w = bits >= 8 ? static_cast<std::size_t>(bits / 8) : 1;
    const bool sign_extend = bits >= 8 && is_signed(t.data_type) && is_integer(t.data_type);
    check_multiple(t, w);
    o_.packed(5, [&] {
      const auto b = t.bytes();
      for (std::size_t i = 0; i < b.size(); i += w) {
        std::uint64_t v = 0;
        std::memcpy(&v, b.data() + i, w);
        if (sign_extend && w < 8) {
          const auto shift = 64 - 8 * w;
          v = static_cast<std::uint64_t>(static_cast<std::int64_t>(v << shift) >> shift);
        }
        o_.bare_varint(v);
      }
    });
  }

  // ---- optional scalar fields: written when non-default or present on the wire ----
  OXIR_ALWAYS_INLINE void str(std::uint32_t f, const std::string& s, const FieldPresence& p) {
    if (!s.empty() || p.has(static_cast<int>(f))) o_.bytes(f, s);
  }
  OXIR_ALWAYS_INLINE void i64(std::uint32_t f, std::int64_t v, const FieldPresence& p) {
    if (v != 0 || p.has(static_cast<int>(f))) o_.varint(f, static_cast<std::uint64_t>(v));
  }
  // int32 and enums: negative values are sign-extended to 64 bits, as protobuf does.
  OXIR_ALWAYS_INLINE void i32(std::uint32_t f, std::int32_t v, const FieldPresence& p) {
    if (v != 0 || p.has(static_cast<int>(f))) o_.varint(f, static_cast<std::uint64_t>(static_cast<std::int64_t>(v)));
  }

  static bool is_empty(const Graph& g) { return g == Graph{}; }
  static bool is_empty(const Tensor& t) { return t == Tensor{}; }

  Out& o_;
};

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

/// Runs both passes over `emit(emitter)`, writing into a new `Bytes` (a contiguous container of
/// single bytes: std::vector<std::byte>, std::string) of exactly the right size.
template <class Bytes, class Fn>
[[nodiscard]] Bytes encode_as(Fn&& emit) {
  SizeList sizes;
  SizePass size(sizes);
  {
    Emitter<SizePass> e(size);
    emit(e);
  }
  const auto n = static_cast<std::size_t>(size.total());
  Bytes out;
  // Reserved first, so the memory is untouched when the huge-page hint is given.
  out.reserve(n);
  advise_huge_pages(out.data(), n);
  out.resize(n);
  auto* begin = reinterpret_cast<std::byte*>(out.data());
  WritePass w(begin, sizes);
  Emitter<WritePass> e(w);
  emit(e);
  if (w.position() != begin + n) throw Error("internal error: encoder size mismatch");
  return out;
}

/// Runs both passes over `emit(emitter)` and returns the bytes.
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
