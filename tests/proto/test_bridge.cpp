// The protobuf bridge on a model that uses every field: to_proto into Debian's onnx::ModelProto
// (ONNX 1.12: newer fields go through its unknown fields) and into oxir's own generated class
// serializes byte for byte like oxir's native encoder, and from_proto gives the model back.
#include <doctest/doctest.h>

#include "proto_test_util.hpp"

#include <bit>
#include <cstring>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

using namespace oxir;
using oxir_proto_test::first_difference;

namespace {

// Wire bytes of an unknown field (number 99, varint `v`): kept verbatim by every message.
std::string unknown_varint(std::uint32_t field, std::uint64_t v) {
  std::string s;
  auto put = [&](std::uint64_t x) {
    while (x >= 0x80) {
      s.push_back(static_cast<char>((x & 0x7F) | 0x80));
      x >>= 7;
    }
    s.push_back(static_cast<char>(x));
  };
  put(static_cast<std::uint64_t>(field) << 3);
  put(v);
  return s;
}

StringStringEntry kv(std::string k, std::string v) { return {std::move(k), std::move(v), {}, {}}; }

Tensor raw_tensor(std::string name, DataType dt, std::vector<std::int64_t> dims, std::vector<std::uint8_t> bytes) {
  std::vector<std::byte> b(bytes.size());
  if (!bytes.empty()) std::memcpy(b.data(), bytes.data(), bytes.size());
  return Tensor::from_bytes(std::move(name), dt, std::move(dims), Buffer::owned(std::move(b)));
}

Tensor typed_tensor(std::string name, DataType dt, std::vector<std::int64_t> dims, std::vector<std::uint8_t> bytes) {
  auto t = raw_tensor(std::move(name), dt, std::move(dims), std::move(bytes));
  t.encoding = TensorEncoding::typed;
  return t;
}

template <class T>
std::vector<std::uint8_t> le_bytes(std::initializer_list<T> values) {
  std::vector<std::uint8_t> out(values.size() * sizeof(T));
  std::size_t i = 0;
  for (T v : values) {
    std::memcpy(out.data() + i, &v, sizeof(T));
    i += sizeof(T);
  }
  return out;
}

Graph small_graph(std::string name) {
  Graph g;
  g.name = std::move(name);
  g.inputs.emplace_back("a", Type::tensor(DataType::FLOAT, {1}));
  g.outputs.emplace_back("b", Type::tensor(DataType::FLOAT, {1}));
  g.nodes.emplace_back("Identity", std::vector<std::string>{"a"}, std::vector<std::string>{"b"}, "id");
  return g;
}

Model every_field() {
  Model m;
  m.ir_version = 13;
  m.producer_name = "oxir-test";
  m.producer_version = "0.1";
  m.domain = "";  // present although empty
  m.presence.set(4);
  m.model_version = 0;  // present although zero
  m.presence.set(5);
  m.doc_string = "model doc";
  m.opset_imports.push_back({"", 21, {}, {}});
  m.opset_imports.push_back({"ai.onnx.ml", 5, unknown_varint(99, 1), {}});
  m.opset_imports.push_back({"com.example", 0, {}, {}});
  m.opset_imports.back().presence.set(2);
  m.metadata_props.push_back(kv("author", "me"));
  m.metadata_props.push_back(kv("", ""));
  m.metadata_props.back().presence.set(1);
  m.metadata_props.back().presence.set(2);
  m.configuration.push_back({"cfg", 2, {"gpu0", "gpu1"}, unknown_varint(98, 5), {}});
  m.configuration.push_back({"", 0, {}, {}, {}});
  m.configuration.back().presence.set(2);
  m.unknown_fields = unknown_varint(99, 12345);

  Graph& g = m.graph;
  g.name = "main";
  g.doc_string = "graph doc";
  g.metadata_props.push_back(kv("g", "1"));
  g.unknown_fields = unknown_varint(99, 2);

  // Types of every kind.
  TensorType tt;
  tt.elem_type = DataType::FLOAT;
  Shape shape;
  shape.dims.emplace_back("N");
  shape.dims.emplace_back(3);
  shape.dims.emplace_back();  // unknown
  shape.dims.back().denotation = "DATA_CHANNEL";
  shape.dims.emplace_back(0);
  shape.dims.back().unknown_fields = unknown_varint(99, 3);
  shape.unknown_fields = unknown_varint(98, 4);
  tt.shape = shape;
  tt.unknown_fields = unknown_varint(97, 1);
  Type x_type(tt);
  x_type.denotation = "TENSOR";
  g.inputs.emplace_back("X", x_type);
  g.inputs.back().doc_string = "input doc";
  g.inputs.back().metadata_props.push_back(kv("vi", "meta"));
  g.inputs.back().unknown_fields = unknown_varint(99, 6);
  g.inputs.emplace_back("untyped");
  g.inputs.emplace_back("seq", Type::sequence(Type::tensor(DataType::INT64)));
  g.inputs.emplace_back("map", Type::map(DataType::STRING, Type::tensor(DataType::DOUBLE)));
  g.inputs.emplace_back("opt", Type::optional(Type::sequence(Type::tensor(DataType::BOOL))));
  g.inputs.emplace_back("sp", Type::sparse_tensor(DataType::FLOAT16, {4, "M"}));
  g.inputs.emplace_back("opaque", Type(OpaqueType{"com.example", "Thing", unknown_varint(99, 7), {}}));
  g.inputs.emplace_back("empty_type", Type());
  g.inputs.emplace_back("unranked", Type::tensor(DataType::UINT8));
  MapType mt;
  mt.key_type = DataType::UNDEFINED;
  mt.presence.set(1);
  g.inputs.emplace_back("map0", Type(mt));
  SequenceType st;
  st.unknown_fields = unknown_varint(99, 8);
  g.inputs.emplace_back("seq_empty", Type(st));
  g.outputs.emplace_back("Y", Type::tensor(DataType::FLOAT, {"N", 3}));
  g.value_info.emplace_back("mid", Type::tensor(DataType::FLOAT));

  // Initializers: raw and typed forms of many data types.
  g.initializers.push_back(raw_tensor("raw_f32", DataType::FLOAT, {2}, le_bytes<float>({1.5f, -2.0f})));
  g.initializers.push_back(typed_tensor("typed_f32", DataType::FLOAT, {2}, le_bytes<float>({3.25f, -0.0f})));
  g.initializers.push_back(typed_tensor("typed_c64", DataType::COMPLEX64, {1}, le_bytes<float>({1.0f, 2.0f})));
  g.initializers.push_back(typed_tensor("typed_i8", DataType::INT8, {3}, le_bytes<std::int8_t>({-1, 0, 127})));
  g.initializers.push_back(typed_tensor("typed_u8", DataType::UINT8, {2}, le_bytes<std::uint8_t>({255, 1})));
  g.initializers.push_back(typed_tensor("typed_i16", DataType::INT16, {2}, le_bytes<std::int16_t>({-300, 300})));
  g.initializers.push_back(typed_tensor("typed_u16", DataType::UINT16, {1}, le_bytes<std::uint16_t>({65535})));
  g.initializers.push_back(typed_tensor("typed_i32", DataType::INT32, {2}, le_bytes<std::int32_t>({-5, 1 << 30})));
  g.initializers.push_back(typed_tensor("typed_bool", DataType::BOOL, {2}, le_bytes<std::uint8_t>({1, 0})));
  g.initializers.push_back(typed_tensor("typed_f16", DataType::FLOAT16, {2}, le_bytes<std::uint16_t>({0x3C00, 0x8001})));
  g.initializers.push_back(typed_tensor("typed_bf16", DataType::BFLOAT16, {1}, le_bytes<std::uint16_t>({0xBF80})));
  g.initializers.push_back(typed_tensor("typed_f8", DataType::FLOAT8E4M3FN, {2}, le_bytes<std::uint8_t>({0x80, 0x7E})));
  g.initializers.push_back(typed_tensor("typed_e8m0", DataType::FLOAT8E8M0, {1}, le_bytes<std::uint8_t>({0xFF})));
  g.initializers.push_back(typed_tensor("typed_i4", DataType::INT4, {3}, le_bytes<std::uint8_t>({0xF8, 0x07})));
  g.initializers.push_back(typed_tensor("typed_u2", DataType::UINT2, {5}, le_bytes<std::uint8_t>({0xE4, 0x03})));
  g.initializers.push_back(typed_tensor("typed_i64", DataType::INT64, {2}, le_bytes<std::int64_t>({-1, INT64_MAX})));
  g.initializers.push_back(typed_tensor("typed_f64", DataType::DOUBLE, {1}, le_bytes<double>({3.5})));
  g.initializers.push_back(typed_tensor("typed_c128", DataType::COMPLEX128, {1}, le_bytes<double>({1.0, -1.0})));
  g.initializers.push_back(typed_tensor("typed_u32", DataType::UINT32, {2}, le_bytes<std::uint32_t>({0xFFFFFFFFu, 7})));
  g.initializers.push_back(typed_tensor("typed_u64", DataType::UINT64, {1}, le_bytes<std::uint64_t>({~0ull})));
  g.initializers.push_back(raw_tensor("empty_raw", DataType::FLOAT, {0}, {}));
  g.initializers.back().presence.set(9);
  {
    auto s = Tensor::from_values<std::string>("strs", {2}, {std::string("a"), std::string("\0b", 2)});
    s.doc_string = "strings";
    g.initializers.push_back(std::move(s));
  }
  {
    Tensor ext;
    ext.name = "external";
    ext.data_type = DataType::FLOAT;
    ext.dims = {1024};
    ext.data_location = DataLocation::EXTERNAL;
    ext.external_data = {kv("location", "weights.bin"), kv("offset", "0"), kv("length", "4096")};
    g.initializers.push_back(std::move(ext));
  }
  {
    auto seg = raw_tensor("segmented", DataType::UINT8, {4}, {1, 2});
    seg.segment = TensorSegment{0, 2, unknown_varint(99, 9), {}};
    seg.metadata_props.push_back(kv("t", "meta"));
    seg.unknown_fields = unknown_varint(99, 10);
    seg.data_location = DataLocation::DEFAULT;
    seg.presence.set(14);
    g.initializers.push_back(std::move(seg));
  }
  {
    Tensor undef;  // only data_type, present and 0
    undef.presence.set(2);
    g.initializers.push_back(undef);
  }

  SparseTensor sp;
  sp.values = raw_tensor("sv", DataType::FLOAT, {2}, le_bytes<float>({1.0f, 2.0f}));
  sp.indices = typed_tensor("si", DataType::INT64, {2}, le_bytes<std::int64_t>({0, 5}));
  sp.dims = {2, 3};
  sp.unknown_fields = unknown_varint(99, 11);
  g.sparse_initializers.push_back(sp);
  SparseTensor sp_empty;
  sp_empty.presence.set(1);  // an empty values message
  g.sparse_initializers.push_back(sp_empty);

  TensorAnnotation qa{"X", {kv("SCALE_TENSOR", "s"), kv("ZERO_POINT_TENSOR", "z")}, unknown_varint(99, 12), {}};
  g.quantization_annotation.push_back(qa);

  // Nodes with attributes of every kind.
  Node n("Custom", {"X", "", "seq"}, {"Y", ""}, "n0", "com.example");
  n.overload = "v2";
  n.doc_string = "node doc";
  n.metadata_props.push_back(kv("n", "meta"));
  n.unknown_fields = unknown_varint(99, 13);
  {
    NodeDeviceConfiguration ndc;
    ndc.configuration_id = "cfg";
    ndc.pipeline_stage = 1;
    ShardingSpec spec;
    spec.tensor_name = "X";
    spec.device = {0, 1};
    spec.index_to_device_group_map.push_back({0, {0, 1}, unknown_varint(99, 14), {}});
    ShardedDim sd;
    sd.axis = 0;
    sd.presence.set(1);
    SimpleShardedDim ss1;
    ss1.dim = std::int64_t{8};
    ss1.num_shards = 2;
    SimpleShardedDim ss2;
    ss2.dim = std::string("N");
    ss2.num_shards = 0;
    ss2.presence.set(3);
    SimpleShardedDim ss3;  // neither dim_value nor dim_param
    ss3.unknown_fields = unknown_varint(99, 15);
    sd.simple_sharding = {ss1, ss2, ss3};
    spec.sharded_dim.push_back(sd);
    ndc.sharding_spec.push_back(spec);
    n.device_configurations.push_back(ndc);
    NodeDeviceConfiguration ndc0;
    ndc0.presence.set(3);
    n.device_configurations.push_back(ndc0);
  }
  n.attributes.emplace_back("f", 0.5f);
  n.attributes.emplace_back("f0", 0.0f);
  n.attributes.emplace_back("i", std::int64_t{-7});
  n.attributes.emplace_back("s", std::string("bytes\xff", 6));
  n.attributes.emplace_back("t", raw_tensor("at", DataType::INT32, {1}, le_bytes<std::int32_t>({42})));
  n.attributes.emplace_back("g", small_graph("body"));
  n.attributes.emplace_back("floats", std::vector<float>{1.0f, -0.0f});
  n.attributes.emplace_back("ints", std::vector<std::int64_t>{1, -2, 3});
  n.attributes.emplace_back("strings", std::vector<std::string>{"x", ""});
  n.attributes.emplace_back("tensors", std::vector<Tensor>{typed_tensor("t0", DataType::INT64, {1}, le_bytes<std::int64_t>({9}))});
  n.attributes.emplace_back("graphs", std::vector<Graph>{small_graph("g0"), small_graph("g1")});
  n.attributes.emplace_back("sparse", sp);
  n.attributes.emplace_back("sparses", std::vector<SparseTensor>{sp, sp});
  n.attributes.emplace_back("tp", Type::tensor(DataType::FLOAT, {2}));
  n.attributes.emplace_back("tps", std::vector<Type>{Type::sequence(Type::tensor(DataType::INT8)), Type()});
  {
    Attribute empty_ints;  // declared INTS, empty list: no value on the wire
    empty_ints.name = "empty_ints";
    empty_ints.type = AttributeType::INTS;
    n.attributes.push_back(empty_ints);
    Attribute ref = Attribute::reference("alpha", "outer_alpha", AttributeType::FLOAT);
    ref.doc_string = "ref doc";
    n.attributes.push_back(ref);
    Attribute ir1("ir1", std::int64_t{3});  // IR 1: no type field
    ir1.type = AttributeType::UNDEFINED;
    ir1.unknown_fields = unknown_varint(99, 16);
    n.attributes.push_back(ir1);
    Attribute undefined;  // type present with value 0
    undefined.presence.set(20);
    undefined.presence.set(1);
    n.attributes.push_back(undefined);
  }
  g.nodes.push_back(n);
  Node plain("Relu", {"Y"}, {"Z"});
  plain.domain = "";
  plain.presence.set(7);
  g.nodes.push_back(plain);

  // A model-local function with everything.
  Function f;
  f.name = "MyFn";
  f.domain = "com.example";
  f.overload = "v2";
  f.doc_string = "fn doc";
  f.inputs = {"a", "b"};
  f.outputs = {"c"};
  f.attributes = {"alpha"};
  f.attribute_protos.emplace_back("beta", 2.0f);
  f.opset_imports.push_back({"", 21, {}, {}});
  f.nodes.emplace_back("Add", std::vector<std::string>{"a", "b"}, std::vector<std::string>{"c"});
  f.nodes.back().attributes.push_back(Attribute::reference("alpha", "alpha", AttributeType::FLOAT));
  f.value_info.emplace_back("c", Type::tensor(DataType::FLOAT));
  f.metadata_props.push_back(kv("fn", "meta"));
  f.unknown_fields = unknown_varint(99, 17);
  m.functions.push_back(f);
  Function f_min;
  f_min.name = "Tiny";
  f_min.overload = "";
  f_min.presence.set(13);
  m.functions.push_back(f_min);

  // Training info: one full, one with an empty but present initialization graph.
  TrainingInfo ti;
  ti.initialization = small_graph("init");
  ti.algorithm = small_graph("algo");
  ti.initialization_binding.push_back(kv("w", "w0"));
  ti.update_binding.push_back(kv("w", "w1"));
  ti.unknown_fields = unknown_varint(99, 18);
  m.training_info.push_back(ti);
  TrainingInfo ti_empty;
  ti_empty.presence.set(1);
  m.training_info.push_back(ti_empty);
  return m;
}

template <class ModelProto>
void check_round_trip(const Model& m, const char* which) {
  INFO("generated class: " << which);
  const auto native = serialize_model_to_string(m);

  ModelProto p;
  to_proto(m, p);
  std::string via_proto;
  REQUIRE(p.SerializeToString(&via_proto));
  CHECK(via_proto.size() == native.size());
  CHECK_MESSAGE(via_proto == native, "first difference at byte " << first_difference(via_proto, native));

  // Back from the same proto object, and from protobuf parsing the native bytes.
  const Model back = from_proto(p);
  CHECK(back == m);
  CHECK(serialize_model_to_string(back) == native);
  ModelProto parsed;
  REQUIRE(parsed.ParseFromString(native));
  const Model from_parsed = from_proto(parsed);
  CHECK(from_parsed == m);
  CHECK(from_parsed == parse_model(native));
  CHECK(serialize_model_to_string(from_parsed) == native);
}

// Serialized bytes of a generated message.
template <class P>
std::string wire_of(const P& p) {
  std::string s;
  REQUIRE(p.SerializeToString(&s));
  return s;
}

}  // namespace

TEST_CASE("to_proto / from_proto: every field, Debian's onnx::ModelProto (ONNX 1.12)") {
  check_round_trip<onnx::ModelProto>(every_field(), "onnx::ModelProto");
}

TEST_CASE("to_proto / from_proto: every field, oxir's own oxir_onnx::ModelProto") {
  check_round_trip<oxir_onnx::ModelProto>(every_field(), "oxir_onnx::ModelProto");
}

TEST_CASE("to_proto / from_proto: every field, a lite-runtime class (unknown fields kept as a string)") {
  static_assert(!std::is_base_of_v<google::protobuf::Message, oxir_onnx_lite::ModelProto>);
  static_assert(std::is_same_v<std::decay_t<decltype(oxir_onnx_lite::ModelProto().unknown_fields())>, std::string>);
  check_round_trip<oxir_onnx_lite::ModelProto>(every_field(), "oxir_onnx_lite::ModelProto");
  // Fields the schema does not know land in the lite message's unknown-field string and come back.
  Model m = every_field();
  m.graph.unknown_fields += std::string("\xA0\x06\x07", 3);  // field 100, varint 7
  oxir_onnx_lite::ModelProto p;
  to_proto(m, p);
  CHECK(p.graph().unknown_fields().find(std::string("\xA0\x06\x07", 3)) != std::string::npos);
  CHECK(from_proto(p) == m);
}

TEST_CASE("to_proto / from_proto: an empty model") {
  check_round_trip<onnx::ModelProto>(Model{}, "onnx::ModelProto");
  check_round_trip<oxir_onnx::ModelProto>(Model{}, "oxir_onnx::ModelProto");
  check_round_trip<oxir_onnx_lite::ModelProto>(Model{}, "oxir_onnx_lite::ModelProto");
  Model with_empty_graph;
  with_empty_graph.presence.set(7);
  check_round_trip<oxir_onnx::ModelProto>(with_empty_graph, "oxir_onnx::ModelProto");
}

TEST_CASE("the 1.12 class keeps newer fields in its unknown fields") {
  const auto m = every_field();
  onnx::ModelProto p;
  to_proto(m, p);
  const auto& node = p.graph().node(0);
  CHECK(!node.unknown_fields().empty());  // overload, metadata_props, device_configurations
  oxir_onnx::ModelProto own;
  to_proto(m, own);
  CHECK(own.graph().node(0).overload() == "v2");
  CHECK(own.graph().node(0).device_configurations_size() == 2);
  CHECK(own.functions(0).attribute_proto_size() == 1);
  CHECK(own.graph().input(6).type().has_opaque_type());
  CHECK(own.graph().input(6).type().opaque_type().name() == "Thing");
  // Bytes written by one class read the same with the other.
  onnx::ModelProto deb;
  REQUIRE(deb.ParseFromString(wire_of(own)));
  CHECK(from_proto(deb) == m);
}

TEST_CASE("per-message helpers") {
  const auto m = every_field();
  for (const auto& t : m.graph.initializers) {
    INFO("tensor " << t.name);
    onnx::TensorProto p;
    tensor_to_proto(t, p);
    CHECK(wire_of(p) == [&] {
      auto b = serialize_tensor(t);
      return std::string(reinterpret_cast<const char*>(b.data()), b.size());
    }());
    const auto back = tensor_from_proto(p);
    CHECK(back == t);
    CHECK(back.encoding == (t.is_external() || t.data_type == DataType::STRING || t.data.empty()
                                ? back.encoding
                                : t.encoding));
    oxir_onnx::TensorProto q;
    tensor_to_proto(t, q);
    CHECK(tensor_from_proto(q) == t);
  }
  const auto& n = m.graph.nodes[0];
  oxir_onnx::NodeProto np;
  node_to_proto(n, np);
  CHECK(node_from_proto(np) == n);
  for (const auto& a : n.attributes) {
    onnx::AttributeProto ap;
    attribute_to_proto(a, ap);
    CHECK(attribute_from_proto(ap) == a);
  }
  oxir_onnx::GraphProto gp;
  graph_to_proto(m.graph, gp);
  CHECK(graph_from_proto(gp) == m.graph);
  for (const auto& v : m.graph.inputs) {
    onnx::ValueInfoProto vp;
    value_info_to_proto(v, vp);
    CHECK(value_info_from_proto(vp) == v);
    if (v.type) {
      onnx::TypeProto tp;
      type_to_proto(*v.type, tp);
      CHECK(type_from_proto(tp) == *v.type);
    }
  }
  onnx::FunctionProto fp;
  function_to_proto(m.functions[0], fp);
  CHECK(function_from_proto(fp) == m.functions[0]);
  onnx::SparseTensorProto sp;
  sparse_tensor_to_proto(m.graph.sparse_initializers[0], sp);
  CHECK(sparse_tensor_from_proto(sp) == m.graph.sparse_initializers[0]);
}

namespace {
// Protobuf wire bytes written by hand, for the tests of odd wire data below.
void varint(std::string& s, std::uint64_t v) {
  while (v >= 0x80) {
    s.push_back(static_cast<char>((v & 0x7F) | 0x80));
    v >>= 7;
  }
  s.push_back(static_cast<char>(v));
}
void key(std::string& s, int field, int wire_type) {
  varint(s, static_cast<std::uint64_t>(field) << 3 | static_cast<unsigned>(wire_type));
}
void len(std::string& s, int field, const std::string& b) {
  key(s, field, 2);
  varint(s, b.size());
  s += b;
}
}  // namespace

TEST_CASE("odd wire data reads as the native decoder reads it") {
  // Hand-written wire bytes: protobuf parses them into its fields, the bridge must arrive at
  // what oxir's decoder makes of the same bytes.
  auto fixed32 = [](std::string& s, int field, float f) {
    key(s, field, 5);
    char b[4];
    std::memcpy(b, &f, 4);
    s.append(b, 4);
  };

  std::string tensor;  // FLOAT tensor with its values in int64_data (wrong field) and float_data
  key(tensor, 1, 0);
  varint(tensor, 2);
  key(tensor, 2, 0);
  varint(tensor, 1);
  {
    std::string packed;
    float a = 1.0f, b = 2.0f;
    packed.append(reinterpret_cast<const char*>(&a), 4);
    packed.append(reinterpret_cast<const char*>(&b), 4);
    len(tensor, 4, packed);
  }
  {
    std::string packed;
    varint(packed, 5);
    varint(packed, 6);
    len(tensor, 7, packed);
  }
  std::string attr;  // f and i both given; type 99 (not in the enum)
  len(attr, 1, "two");
  fixed32(attr, 2, 1.5f);
  key(attr, 3, 0);
  varint(attr, 4);
  key(attr, 20, 0);
  varint(attr, 99);
  std::string node;
  len(node, 4, "Op");
  len(node, 5, attr);
  std::string graph;
  len(graph, 1, node);
  len(graph, 5, tensor);
  std::string model;
  key(model, 1, 0);
  varint(model, 8);
  len(model, 7, graph);

  const Model native = parse_model(model);
  REQUIRE(native.graph.initializers.size() == 1);
  CHECK(!native.graph.initializers[0].unknown_fields.empty());
  CHECK(native.graph.nodes[0].attributes[0].type == static_cast<AttributeType>(99));
  onnx::ModelProto deb;
  REQUIRE(deb.ParseFromString(model));
  CHECK(from_proto(deb) == native);
  oxir_onnx::ModelProto own;
  REQUIRE(own.ParseFromString(model));
  CHECK(from_proto(own) == native);
  CHECK(tensor_from_proto(own.graph().initializer(0)) == parse_tensor(std::as_bytes(std::span<const char>(tensor.data(), tensor.size()))));
}

TEST_CASE("a singular tensor field given twice merges as protobuf merges it") {
  // AttributeProto.t, SparseTensorProto.values/indices and AttributeProto.sparse_tensor are
  // singular messages: protobuf merges repeated occurrences (repeated fields appended, scalars
  // and bytes taken from the last). The decoder must arrive at the same tensor, and check the
  // payload of the merged tensor, not of each occurrence.
  auto num = [](std::string& s, int field, std::uint64_t v) {
    key(s, field, 0);
    varint(s, v);
  };
  auto floats = [](std::initializer_list<float> v) {
    std::string b;
    for (float f : v) b.append(reinterpret_cast<const char*>(&f), 4);
    return b;
  };
  // A model with one node whose attribute "a" carries the given (already encoded) fields.
  auto model_with = [&](const std::string& attr_fields) {
    std::string attr;
    len(attr, 1, "a");
    attr += attr_fields;
    std::string node;
    len(node, 4, "Op");
    len(node, 5, attr);
    std::string graph;
    len(graph, 1, node);
    std::string model;
    num(model, 1, 8);
    len(model, 7, graph);
    return model;
  };
  auto both = [&](const std::string& model) {
    const Model native = parse_model(model);
    onnx::ModelProto deb;
    REQUIRE(deb.ParseFromString(model));
    CHECK(from_proto(deb) == native);
    return native;
  };

  SUBCASE("typed values are appended, the name is the last one") {
    std::string t1, t2;
    num(t1, 1, 2);  // dims [2]
    num(t1, 2, 1);  // FLOAT
    len(t1, 4, floats({1.0f}));
    len(t1, 8, "first");
    len(t2, 4, floats({2.0f}));
    len(t2, 8, "second");
    std::string fields;
    len(fields, 5, t1);
    len(fields, 5, t2);
    const Model m = both(model_with(fields));
    const Tensor& t = m.graph.nodes[0].attributes[0].as_tensor();
    CHECK(t.name == "second");
    REQUIRE(t.values<float>().size() == 2);
    CHECK(t.values<float>()[0] == 1.0f);
    CHECK(t.values<float>()[1] == 2.0f);
  }
  SUBCASE("an occurrence without its payload is completed by the next") {
    std::string t1, t2;
    num(t1, 1, 2);
    num(t1, 2, 1);
    len(t2, 9, floats({3.0f, 4.0f}));  // raw_data
    std::string fields;
    len(fields, 5, t1);
    len(fields, 5, t2);
    const Model m = both(model_with(fields));
    const Tensor& t = m.graph.nodes[0].attributes[0].as_tensor();
    REQUIRE(t.values<float>().size() == 2);
    CHECK(t.values<float>()[1] == 4.0f);
  }
  SUBCASE("sparse values merge inside a merged sparse_tensor") {
    std::string v1, v2, i1, sp1, sp2;
    num(v1, 1, 2);
    num(v1, 2, 1);
    len(v1, 4, floats({5.0f}));
    len(v2, 4, floats({6.0f}));
    num(i1, 1, 2);
    num(i1, 2, 7);  // INT64 indices
    {
      std::string packed;
      varint(packed, 0);
      varint(packed, 3);
      len(i1, 7, packed);
    }
    len(sp1, 1, v1);
    num(sp1, 3, 4);  // dims [4]
    len(sp2, 1, v2);
    len(sp2, 2, i1);
    std::string fields;
    len(fields, 22, sp1);
    len(fields, 22, sp2);
    const Model m = both(model_with(fields));
    const auto& a = m.graph.nodes[0].attributes[0];
    REQUIRE(a.kind() == AttributeType::SPARSE_TENSOR);
    const SparseTensor& s = *std::get<Box<SparseTensor>>(a.value);
    REQUIRE(s.values.values<float>().size() == 2);
    CHECK(s.values.values<float>()[1] == 6.0f);
    CHECK(s.indices.values<std::int64_t>().size() == 2);
  }
  SUBCASE("the merged tensor's payload must fit its dims") {
    // The first occurrence alone is fine (one INT64, 8 bytes); merged with the second, the
    // 8 bytes are INT16 data for dims [1, 0], which need none. The native reader used to check
    // each occurrence alone, accept this, and write a file it then refused to read.
    std::string t1, t2;
    num(t1, 1, 1);
    num(t1, 2, 7);
    len(t1, 9, std::string(8, '\x01'));
    num(t2, 1, 0);
    num(t2, 2, 5);
    std::string fields;
    len(fields, 5, t1);
    len(fields, 5, t2);
    const std::string model = model_with(fields);
    onnx::ModelProto deb;
    REQUIRE(deb.ParseFromString(model));  // protobuf has no notion of payload sizes
    CHECK(deb.graph().node(0).attribute(0).t().dims_size() == 2);
    try {
      (void)parse_model(model);
      FAIL("parse_model accepted 8 bytes of INT16 data for dims [1, 0]");
    } catch (const Error& e) {
      CHECK(std::string(e.what()).find("attribute[0] \"a\".t.raw_data: 8 bytes of INT16 data for dims that need 0") !=
            std::string::npos);
    }
  }
}
