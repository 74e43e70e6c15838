// Differential fuzz target (libFuzzer): oxir's native decoder against libprotobuf + the protobuf
// bridge (<oxir/proto/bridge.hpp>) with Debian's onnx::ModelProto, on arbitrary bytes.
//
// Properties checked on every input:
//   - when both protobuf and oxir accept bytes that protobuf would write itself (re-serializing
//     its message gives them back), from_proto(protobuf's message) equals parse_model(bytes):
//     the bridge and the native decoder read every field alike;
//   - the bridge never throws anything but oxir::Error, and to_proto of the model it produced
//     serializes to the bytes oxir's own encoder writes for that model.
// protobuf may accept what oxir rejects: oxir checks what the ONNX spec requires beyond the wire
// format (payload sizes against dims, ...); the reverse (oxir accepts what protobuf rejects) is
// allowed only for inputs over protobuf's limits, which small fuzz inputs are not, so it is a
// finding too.
//
//   clang++ -std=c++20 -O1 -fsanitize=fuzzer,address,undefined -DONNX_NAMESPACE=onnx -DONNX_ML=1 \
//     -Iinclude tests/fuzz/fuzz_bridge.cpp -lonnx_proto -lprotobuf -o fuzz_bridge
//   ./fuzz_bridge -max_len=65536 -timeout=10 -malloc_limit_mb=1024 CORPUS_DIR SEED_DIR
#include <onnx/onnx_pb.h>

#include <oxir/io.hpp>
#include <oxir/proto/bridge.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

namespace {

[[noreturn]] void finding(const char* what, const std::string& detail = {}) {
  std::fprintf(stderr, "fuzz_bridge: %s %s\n", what, detail.c_str());
  std::abort();
}

}  // namespace

namespace {

// Whether the model holds an enum value Debian's onnx 1.12 classes do not define (an
// AttributeProto.type or TensorProto.data_location). Protobuf keeps such a value among a
// message's unknown fields and writes it after the known ones, so its bytes may differ from
// oxir's in field order only (docs/proto-bridge.md, Known differences).
bool undefined_enum(const oxir::Graph& g);
bool undefined_enum(const oxir::Tensor& t) {
  return !onnx::TensorProto_DataLocation_IsValid(static_cast<int>(t.data_location));
}
bool undefined_enum(const oxir::SparseTensor& s) { return undefined_enum(s.values) || undefined_enum(s.indices); }
bool undefined_enum(const oxir::Attribute& a) {
  if (!onnx::AttributeProto_AttributeType_IsValid(static_cast<int>(a.type))) return true;
  return std::visit(
      [](const auto& v) {
        using V = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<V, oxir::Box<oxir::Tensor>> || std::is_same_v<V, oxir::Box<oxir::Graph>> ||
                      std::is_same_v<V, oxir::Box<oxir::SparseTensor>>) {
          return v && undefined_enum(*v);
        } else if constexpr (std::is_same_v<V, std::vector<oxir::Tensor>> || std::is_same_v<V, std::vector<oxir::Graph>> ||
                             std::is_same_v<V, std::vector<oxir::SparseTensor>>) {
          for (const auto& x : v)
            if (undefined_enum(x)) return true;
          return false;
        } else {
          return false;
        }
      },
      a.value);
}
bool undefined_enum(const std::vector<oxir::Node>& nodes) {
  for (const auto& n : nodes)
    for (const auto& a : n.attributes)
      if (undefined_enum(a)) return true;
  return false;
}
bool undefined_enum(const oxir::Graph& g) {
  for (const auto& t : g.initializers)
    if (undefined_enum(t)) return true;
  for (const auto& s : g.sparse_initializers)
    if (undefined_enum(s)) return true;
  return undefined_enum(g.nodes);
}
bool undefined_enum(const oxir::Model& m) {
  if (undefined_enum(m.graph)) return true;
  for (const auto& t : m.training_info)
    if (undefined_enum(t.initialization) || undefined_enum(t.algorithm)) return true;
  for (const auto& f : m.functions) {
    if (undefined_enum(f.nodes)) return true;
    for (const auto& a : f.attribute_protos)
      if (undefined_enum(a)) return true;
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data), size);
  onnx::ModelProto proto;
  const bool proto_ok = proto.ParseFromArray(data, static_cast<int>(size));

  oxir::Model native;
  bool native_ok = true;
  try {
    native = oxir::parse_model(bytes);
  } catch (const oxir::Error&) {
    native_ok = false;
  } catch (const std::exception& e) {
    finding("parse_model threw", e.what());
  }
  if (native_ok && !proto_ok) finding("oxir accepts bytes protobuf rejects");
  if (!proto_ok) return 0;

  oxir::Model bridged;
  try {
    bridged = oxir::from_proto(proto);
  } catch (const oxir::Error&) {
    if (native_ok) finding("from_proto rejects a model parse_model accepts");
    return 0;
  } catch (const std::exception& e) {
    finding("from_proto threw", e.what());
  }
  // Equal content is required everywhere; equal models only for bytes protobuf itself would
  // write (otherwise unknown_fields legitimately differ: docs/proto-bridge.md, Known differences).
  if (native_ok) {
    std::string canonical;
    if (proto.SerializeToString(&canonical) && canonical.size() == size &&
        std::memcmp(canonical.data(), data, size) == 0 && !(bridged == native))
      finding("from_proto(proto) != parse_model(bytes) for protobuf-canonical bytes");
  }

  // Back through protobuf: to_proto of the bridged model serializes as oxir's encoder does.
  try {
    onnx::ModelProto back;
    oxir::to_proto(bridged, back);
    std::string via_protobuf;
    if (!back.SerializeToString(&via_protobuf)) return 0;  // over protobuf's limits
    const auto ours = oxir::serialize_model(bridged);
    if (via_protobuf.size() != ours.size() ||
        (ours.size() && std::memcmp(via_protobuf.data(), ours.data(), ours.size()) != 0)) {
      // An enum value the class does not define moves to the end of its message: the same
      // model in another field order, which must still read back as the same model.
      if (!undefined_enum(bridged)) finding("SerializeToString(to_proto(m)) != serialize_model(m)");
      if (!(oxir::parse_model(std::string_view(via_protobuf)) == bridged))
        finding("SerializeToString(to_proto(m)) does not read back as m");
    }
  } catch (const oxir::Error&) {
  } catch (const std::exception& e) {
    finding("to_proto/serialize threw", e.what());
  }
  return 0;
}
