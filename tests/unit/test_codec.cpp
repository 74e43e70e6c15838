// Native codec: every field survives a round trip, re-serialization is byte-identical, unknown
// fields are kept, and hostile input gives an oxir::Error naming the field path.
#include <doctest/doctest.h>

#include <oxir/oxir.hpp>

#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace oxir_unit_test_codec {

using namespace oxir;

namespace {

// A hand-rolled protobuf writer for building test input independently of oxir's encoder.
struct Pb {
  std::string s;
  Pb& varint(std::uint64_t v) {
    while (v >= 0x80) {
      s += static_cast<char>(v | 0x80);
      v >>= 7;
    }
    s += static_cast<char>(v);
    return *this;
  }
  Pb& key(int field, int wt) { return varint(static_cast<std::uint64_t>(field) << 3 | static_cast<unsigned>(wt)); }
  Pb& v(int field, std::int64_t x) { return key(field, 0).varint(static_cast<std::uint64_t>(x)); }
  Pb& bytes(int field, const std::string& b) {
    key(field, 2).varint(b.size());
    s += b;
    return *this;
  }
  Pb& msg(int field, const Pb& m) { return bytes(field, m.s); }
  Pb& f32(int field, float f) {
    key(field, 5);
    char b[4];
    std::memcpy(b, &f, 4);
    s.append(b, 4);
    return *this;
  }
};

Model everything() {
  Model m;
  m.ir_version = 11;
  m.producer_name = "test";
  m.producer_version = "1.0";
  m.domain = "org.example";
  m.model_version = 7;
  m.doc_string = "doc";
  m.set_opset_version("", 21);
  m.set_opset_version("ai.onnx.ml", 5);
  m.metadata_props.push_back({"k", "v", {}, {}});
  m.configuration.push_back({"cfg", 2, {"gpu0", "gpu1"}, {}, {}});

  Graph& g = m.graph;
  g.name = "main";
  g.doc_string = "graph doc";
  g.inputs.emplace_back("X", Type::tensor(DataType::FLOAT, {"N", 3, Dim{}}));
  g.inputs.back().doc_string = "input doc";
  g.inputs.back().metadata_props.push_back({"a", "b", {}, {}});
  (*std::get<TensorType>(g.inputs.back().type->value).shape)[0].denotation = "DATA_BATCH";
  g.outputs.emplace_back("Y", Type::tensor(DataType::FLOAT));
  g.value_info.emplace_back("S", Type::sequence(Type::tensor(DataType::INT64, {})));
  g.value_info.emplace_back("M", Type::map(DataType::STRING, Type::optional(Type::tensor(DataType::BFLOAT16, {2}))));
  g.value_info.emplace_back("SP", Type::sparse_tensor(DataType::FLOAT, {4, 4}));
  g.value_info.emplace_back("OP", Type(OpaqueType{"ai.onnx.ml", "thing", {}, {}}));
  g.value_info.back().type->denotation = "IMAGE";
  g.value_info.emplace_back("untyped");

  g.initializers.push_back(Tensor::from_values<float>("W", {2, 2}, {1, 2, 3, 4}));
  g.initializers.back().doc_string = "weights";
  g.initializers.back().metadata_props.push_back({"q", "r", {}, {}});
  Tensor typed = Tensor::from_values<float16>("H", {3}, {float16(1.f), float16(-2.f), float16(0.5f)});
  typed.encoding = TensorEncoding::typed;
  g.initializers.push_back(typed);
  Tensor i64 = Tensor::from_values<std::int64_t>("L", {2}, {-1, 1LL << 40});
  i64.encoding = TensorEncoding::typed;
  g.initializers.push_back(i64);
  Tensor i8 = Tensor::from_values<std::int8_t>("I8", {2}, {-5, 7});
  i8.encoding = TensorEncoding::typed;
  g.initializers.push_back(i8);
  Tensor u32 = Tensor::from_values<std::uint32_t>("U32", {1}, {0xFFFFFFFFu});
  u32.encoding = TensorEncoding::typed;
  g.initializers.push_back(u32);
  Tensor d = Tensor::from_values<double>("D", {1}, {2.5});
  d.encoding = TensorEncoding::typed;
  g.initializers.push_back(d);
  Tensor q4 = Tensor::from_values<int4>("Q", {3}, {int4(-1), int4(3), int4(-8)});
  q4.encoding = TensorEncoding::typed;
  g.initializers.push_back(q4);
  g.initializers.push_back(Tensor::from_values<std::string>("STR", {2}, {std::string("x"), std::string("")}));
  Tensor seg = Tensor::from_values<std::uint8_t>("SEG", {2}, {1, 2});
  seg.segment = TensorSegment{0, 2, {}, {}};
  g.initializers.push_back(seg);

  SparseTensor sp;
  sp.values = Tensor::from_values<float>("SPV", {2}, {5, 6});
  sp.indices = Tensor::from_values<std::int64_t>("", {2}, {1, 3});
  sp.dims = {4};
  g.sparse_initializers.push_back(sp);
  g.quantization_annotation.push_back({"W", {{"SCALE_TENSOR", "s", {}, {}}}, {}, {}});
  g.metadata_props.push_back({"gk", "gv", {}, {}});

  Graph body;
  body.name = "body";
  body.inputs.emplace_back("i", Type::tensor(DataType::INT64, {}));
  body.outputs.emplace_back("o", Type::tensor(DataType::INT64, {}));
  body.nodes.push_back(Node("Identity", {"i"}, {"o"}));

  Node n("Everything", {"X", "", "W"}, {"Y", ""}, "n0", "org.example");
  n.overload = "o1";
  n.doc_string = "node doc";
  n.metadata_props.push_back({"nk", "nv", {}, {}});
  NodeDeviceConfiguration ndc;
  ndc.configuration_id = "cfg";
  ndc.pipeline_stage = -1;
  ShardingSpec ss;
  ss.tensor_name = "X";
  ss.device = {0, 1};
  ss.index_to_device_group_map.push_back({0, {0, 1}, {}, {}});
  ShardedDim sd;
  sd.axis = 0;
  SimpleShardedDim by_symbol;
  by_symbol.dim = std::string("N");
  by_symbol.num_shards = 2;
  SimpleShardedDim by_value;
  by_value.dim = std::int64_t{8};
  by_value.num_shards = 4;
  sd.simple_sharding.push_back(by_symbol);
  sd.simple_sharding.push_back(by_value);
  ss.sharded_dim.push_back(sd);
  ndc.sharding_spec.push_back(ss);
  n.device_configurations.push_back(ndc);
  n.set_attribute({"f", -0.5f});
  n.set_attribute({"i", -3});
  n.set_attribute({"s", std::string("bytes\0x", 7)});
  n.set_attribute({"t", Tensor::from_values<std::int32_t>("", {1}, {9})});
  n.set_attribute({"g", body});
  n.set_attribute({"floats", std::vector<float>{1.5f, -2.f}});
  n.set_attribute({"ints", std::vector<std::int64_t>{1, -2, 3}});
  n.set_attribute({"strings", std::vector<std::string>{"a", "b"}});
  n.set_attribute({"tensors", std::vector<Tensor>{Tensor::from_values<std::int8_t>("", {1}, {1})}});
  n.set_attribute({"graphs", std::vector<Graph>{body, body}});
  n.set_attribute({"sparse", sp});
  n.set_attribute({"sparses", std::vector<SparseTensor>{sp}});
  n.set_attribute({"tp", Type::tensor(DataType::UINT8, {1})});
  n.set_attribute({"tps", std::vector<Type>{Type::tensor(DataType::UINT8), Type::sequence(Type::tensor(DataType::BOOL))}});
  n.attributes.back().doc_string = "attr doc";
  g.nodes.push_back(n);

  Function f;
  f.name = "Fn";
  f.domain = "org.example";
  f.overload = "o1";
  f.inputs = {"a"};
  f.outputs = {"b"};
  f.attributes = {"alpha"};
  f.attribute_protos.push_back({"beta", 2.0f});
  f.nodes.push_back(Node("Elu", {"a"}, {"b"}));
  f.nodes.back().set_attribute(Attribute::reference("alpha", "alpha", AttributeType::FLOAT));
  f.opset_imports.push_back({"", 21, {}, {}});
  f.value_info.emplace_back("b", Type::tensor(DataType::FLOAT));
  f.metadata_props.push_back({"fk", "fv", {}, {}});
  f.doc_string = "fn doc";
  m.functions.push_back(f);

  TrainingInfo ti;
  ti.initialization = body;
  ti.algorithm = body;
  ti.initialization_binding.push_back({"W", "o", {}, {}});
  ti.update_binding.push_back({"W", "o", {}, {}});
  m.training_info.push_back(ti);
  return m;
}

template <class Fn>
std::string error_of(Fn&& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

Model parse(const std::string& s) { return parse_model(std::string_view(s)); }

}  // namespace

TEST_CASE("every field survives a round trip; re-serialization is byte-identical") {
  const Model m = everything();
  const std::string bytes = serialize_model_to_string(m);
  const Model back = parse(bytes);
  CHECK(back == m);
  CHECK(serialize_model_to_string(back) == bytes);
  // The typed fields decoded into the same payload layout as raw_data.
  CHECK(back.graph.find_initializer("H")->encoding == TensorEncoding::typed);
  CHECK(back.graph.find_initializer("H")->element<float16>(1).bits() == 0xC000);
  CHECK(back.graph.find_initializer("L")->element<std::int64_t>(1) == (1LL << 40));
  CHECK(back.graph.find_initializer("I8")->element<std::int8_t>(0) == -5);
  CHECK(back.graph.find_initializer("U32")->element<std::uint32_t>(0) == 0xFFFFFFFFu);
  CHECK(static_cast<int>(back.graph.find_initializer("Q")->element<int4>(2)) == -8);
  CHECK(back.graph.find_initializer("STR")->strings == std::vector<std::string>{"x", ""});
}

TEST_CASE("the wire form follows protobuf's rules") {
  Model m;
  m.ir_version = 8;
  m.graph.initializers.push_back(Tensor::from_values<float>("w", {1}, {1.f}));
  m.graph.initializers.back().encoding = TensorEncoding::typed;
  // ModelProto: ir_version(1)=8, graph(7){ initializer(5){ dims(1)=1, data_type(2)=1, float_data(4) packed, name(8) } }
  Pb tensor;
  tensor.v(1, 1).v(2, 1).key(4, 2).varint(4);
  tensor.s += std::string("\x00\x00\x80\x3f", 4);
  tensor.bytes(8, "w");
  Pb graph;
  graph.msg(5, tensor);
  Pb model;
  model.v(1, 8).msg(7, graph);
  CHECK(serialize_model_to_string(m) == model.s);

  // Negative int32 (an enum) takes ten bytes, as protobuf writes it.
  Model neg;
  neg.graph.initializers.push_back(Tensor{});
  neg.graph.initializers.back().data_type = static_cast<DataType>(-1);
  const auto s = serialize_model_to_string(neg);
  CHECK(s.size() == 2 + 2 + 11);
  CHECK(parse(s).graph.initializers[0].data_type == static_cast<DataType>(-1));
}

TEST_CASE("default-valued fields present on the wire are written back") {
  Pb opset;
  opset.bytes(1, "").v(2, 13);  // explicit empty domain
  Pb node;
  node.bytes(4, "Relu").bytes(7, "");  // explicit empty domain
  Pb tensor;
  tensor.v(1, 0).v(2, 1).bytes(8, "empty").bytes(9, "");  // zero elements, explicit empty raw_data
  Pb graph;
  graph.msg(1, node).bytes(2, "").msg(5, tensor);
  Pb model;
  model.v(1, 0).bytes(2, "").msg(7, graph).msg(8, opset);
  const Model m = parse(model.s);
  CHECK(m.graph.nodes[0].presence.has(7));
  CHECK(serialize_model_to_string(m) == model.s);
}

TEST_CASE("unknown fields are kept and written back") {
  Pb node;
  node.bytes(4, "Relu").v(99, 5).bytes(100, "future");
  Pb graph;
  graph.msg(1, node).v(3, 1);  // field 3 is reserved in GraphProto
  Pb model;
  model.v(1, 13).msg(7, graph).f32(31, 1.0f);
  const Model m = parse(model.s);
  CHECK(m.graph.nodes[0].op_type == "Relu");
  CHECK_FALSE(m.graph.nodes[0].unknown_fields.empty());
  CHECK_FALSE(m.unknown_fields.empty());
  // Known fields come first in field order, unknown ones last: the same order as the input here.
  CHECK(serialize_model_to_string(m) == model.s);

  // A known field with an unexpected wire type is also kept as unknown (protobuf does the same).
  Pb odd;
  odd.key(2, 0).varint(5);  // producer_name as a varint
  const Model o = parse(odd.s);
  CHECK(o.producer_name.empty());
  CHECK(serialize_model_to_string(o) == odd.s);
}

TEST_CASE("repeated scalars are read packed or unpacked") {
  Pb attr;
  attr.bytes(1, "ints").key(8, 2).varint(3).varint(1).varint(2).varint(3).v(8, 4).v(20, 7);
  Pb node;
  node.bytes(4, "X").msg(5, attr);
  Pb graph;
  graph.msg(1, node);
  Pb model;
  model.msg(7, graph);
  const Model m = parse(model.s);
  CHECK(m.graph.nodes[0].attributes[0].as_ints() == std::vector<std::int64_t>{1, 2, 3, 4});
}

TEST_CASE("IR version 1 attributes without a type field") {
  Pb attr;
  attr.bytes(1, "alpha").f32(2, 0.25f);
  Pb node;
  node.bytes(4, "LeakyRelu").msg(5, attr);
  Pb graph;
  graph.msg(1, node);
  Pb model;
  model.v(1, 1).msg(7, graph);
  const Model m = parse(model.s);
  const auto& a = m.graph.nodes[0].attributes[0];
  CHECK(a.type == AttributeType::UNDEFINED);
  CHECK(a.kind() == AttributeType::FLOAT);
  CHECK(a.as_float() == 0.25f);
  CHECK(serialize_model_to_string(m) == model.s);
}

namespace {
/// A model whose graph holds one node `op` carrying the encoded attribute `attr`.
Pb model_with_attribute(const Pb& attr, const char* op) {
  Pb node;
  node.bytes(4, op).msg(5, attr);
  Pb graph;
  graph.msg(1, node);
  Pb model;
  model.msg(7, graph);
  return model;
}
}  // namespace

TEST_CASE("an attribute declared INTS with no values reads as an empty list") {
  Pb attr;
  attr.bytes(1, "axes").v(20, 7);
  const Pb model = model_with_attribute(attr, "Squeeze");
  const Model m = parse(model.s);
  CHECK(m.graph.nodes[0].attributes[0].kind() == AttributeType::INTS);
  CHECK(m.graph.nodes[0].attributes[0].as_ints().empty());
  CHECK(serialize_model_to_string(m) == model.s);
}

TEST_CASE("an empty packed list is no value: a later payload of another kind is the value") {
  // Found by fuzzing (tests/fuzz/regressions/attr_empty_floats_then_ints.onnx): an empty packed
  // `floats` made the attribute a FLOATS one, the ints went to unknown_fields, and writing those
  // back turned them into the value: the re-read model differed from the first.
  for (int empty_field : {7, 8}) {
    CAPTURE(empty_field);
    Pb attr;
    attr.bytes(1, "a").bytes(empty_field, "");
    if (empty_field == 7) attr.v(8, 1).v(8, 2).v(20, 7);
    else attr.f32(7, 0.5f).v(20, 6);
    const Model m = parse(model_with_attribute(attr, "X").s);
    const auto& a = m.graph.nodes[0].attributes[0];
    CHECK(a.unknown_fields.empty());
    if (empty_field == 7) CHECK(a.as_ints() == std::vector<std::int64_t>{1, 2});
    else CHECK(a.as_floats() == std::vector<float>{0.5f});
    const std::string once = serialize_model_to_string(m);
    const Model again = parse(once);
    CHECK(again == m);
    CHECK(serialize_model_to_string(again) == once);
  }
  // Alone, an empty packed list leaves the kind to the type field.
  Pb attr;
  attr.bytes(1, "axes").bytes(8, "").v(20, 7);
  const Pb model = model_with_attribute(attr, "Squeeze");
  const Model m = parse(model.s);
  CHECK(m.graph.nodes[0].attributes[0].kind() == AttributeType::INTS);
  CHECK(m.graph.nodes[0].attributes[0].as_ints().empty());
}

TEST_CASE("payload fields that do not belong to the data type are kept, not used") {
  Pb tensor;
  tensor.v(1, 1).v(2, 1).key(7, 2).varint(1).varint(5).bytes(9, std::string("\x00\x00\x80\x3f", 4));
  Pb graph;
  graph.msg(5, tensor);
  Pb model;
  model.msg(7, graph);
  const Model m = parse(model.s);
  CHECK(m.graph.initializers[0].element<float>(0) == 1.f);
  CHECK_FALSE(m.graph.initializers[0].unknown_fields.empty());
}

// ---- hostile input: one test per case ----

TEST_CASE("hostile: truncated file") {
  const auto good = serialize_model_to_string(everything());
  for (std::size_t cut : {good.size() - 1, good.size() / 2, std::size_t{1}}) {
    const auto msg = error_of([&] { (void)parse(good.substr(0, cut)); });
    CHECK(msg != "no error");
  }
  Pb model;
  model.key(7, 2).varint(100);  // graph announces 100 bytes, none follow
  CHECK(error_of([&] { (void)parse(model.s); }) == "graph: length 100 runs past the end (0 bytes left)");
}

TEST_CASE("hostile: invalid wire type") {
  Pb node;
  node.key(4, 3);  // wire type 3 (start group) is not allowed
  Pb graph;
  graph.bytes(2, "g").msg(1, node);
  Pb model;
  model.msg(7, graph);
  CHECK(error_of([&] { (void)parse(model.s); }) == "graph.node[0]: field 4: invalid wire type 3");
}

TEST_CASE("hostile: varint longer than 10 bytes") {
  std::string s = "\x08";  // ir_version
  s += std::string(10, '\xff');
  s += '\x01';
  CHECK(error_of([&] { (void)parse(s); }) == "ir_version: varint longer than 64 bits");
  std::string s2 = "\x08";
  s2 += std::string(11, '\x80');
  CHECK(error_of([&] { (void)parse(s2); }).find("varint longer") != std::string::npos);
}

TEST_CASE("hostile: length past the end") {
  Pb node;
  node.key(4, 2).varint(1000);
  node.s += "Relu";
  Pb graph;
  graph.msg(1, node);
  Pb model;
  model.msg(7, graph);
  CHECK(error_of([&] { (void)parse(model.s); }) == "graph.node[0].op_type: length 1000 runs past the end (4 bytes left)");
}

TEST_CASE("hostile: packed field that lies about its length") {
  Pb tensor;
  tensor.v(1, 2).v(2, 1).key(4, 2).varint(7);  // float_data: 7 bytes is not a whole number of floats
  tensor.s += std::string(7, '\0');
  Pb graph;
  graph.msg(5, tensor);
  Pb model;
  model.msg(7, graph);
  CHECK(error_of([&] { (void)parse(model.s); }) ==
        "graph.initializer[0].float_data: packed length 7 is not a multiple of 4");
  Pb tensor2;
  tensor2.v(1, 2).v(2, 7).key(7, 2).varint(3);  // int64_data: last varint cut off inside the field
  tensor2.s += "\x01\x80\x80";
  Pb graph2;
  graph2.msg(5, tensor2);
  Pb model2;
  model2.msg(7, graph2);
  CHECK(error_of([&] { (void)parse(model2.s); }) == "graph.initializer[0].int64_data: truncated varint");
}

TEST_CASE("hostile: a malformed payload is an error even where it is kept verbatim, not used") {
  // protobuf parses every known field whatever the data type or the attribute's own value, and
  // rejects the file when one is malformed; kept bytes must be as readable as used ones.
  Pb tensor;
  tensor.v(1, 2).v(2, 7).key(4, 2).varint(6);  // int64 tensor; float_data (not its field) of 6 bytes
  tensor.s += std::string(6, '\0');
  Pb graph;
  graph.msg(5, tensor);
  Pb model;
  model.msg(7, graph);
  CHECK(error_of([&] { (void)parse(model.s); }) ==
        "graph.initializer[0].float_data: packed length 6 is not a multiple of 4");
  Pb tensor2;
  tensor2.v(1, 1).v(2, 1).bytes(9, std::string(4, '\0')).key(5, 2).varint(2);  // int32_data beside raw_data
  tensor2.s += "\x01\x80";
  Pb graph2;
  graph2.msg(5, tensor2);
  Pb model2;
  model2.msg(7, graph2);
  CHECK(error_of([&] { (void)parse(model2.s); }) == "graph.initializer[0].int32_data: truncated varint");

  // An attribute holding a string, then a tensor payload (kept in unknown_fields) that is cut off.
  Pb bad_tensor;
  bad_tensor.key(116, 0);  // a key whose varint value is missing
  Pb attr;
  attr.bytes(1, "a").bytes(4, "text").msg(5, bad_tensor).v(20, 3);
  CHECK(error_of([&] { (void)parse(model_with_attribute(attr, "Op").s); }) ==
        "graph.node[0] (Op).attribute[0] \"a\".t.field 116: truncated varint");
  // The same well-formed is kept and written back unchanged.
  Pb good_tensor;
  good_tensor.v(1, 1).v(2, 1);
  Pb attr2;
  attr2.bytes(1, "a").bytes(4, "text").msg(5, good_tensor).v(20, 3);
  const Model m = parse(model_with_attribute(attr2, "Op").s);
  CHECK(m.graph.nodes[0].attributes[0].as_string() == "text");
  CHECK_FALSE(m.graph.nodes[0].attributes[0].unknown_fields.empty());
}

TEST_CASE("hostile: negative and enormous dims") {
  Pb tensor;
  tensor.v(1, -4).v(2, 1).bytes(8, "t");
  Pb graph;
  graph.msg(5, tensor);
  Pb model;
  model.msg(7, graph);
  CHECK(error_of([&] { (void)parse(model.s); }) == "graph.initializer[0] \"t\".dims[0]: negative dimension -4");

  Pb big;
  big.v(1, 1LL << 40).v(1, 1LL << 40).v(2, 1).bytes(8, "b").bytes(9, "abcd");
  Pb graph2;
  graph2.msg(5, big);
  Pb model2;
  model2.msg(7, graph2);
  CHECK(error_of([&] { (void)parse(model2.s); }) == "graph.initializer[0] \"b\".dims: element count overflows 64 bits");

  Pb huge;  // fits in 64 bits, but 2^60 floats are not in a 30-byte file -- and nothing is allocated for them
  huge.v(1, 1LL << 60).v(2, 1).bytes(8, "h").bytes(9, "abcd");
  Pb graph3;
  graph3.msg(5, huge);
  Pb model3;
  model3.msg(7, graph3);
  CHECK(error_of([&] { (void)parse(model3.s); }).find("bytes of FLOAT data for dims that need") != std::string::npos);
}

TEST_CASE("hostile: payload size does not match dims") {
  Pb tensor;
  tensor.v(1, 3).v(2, 1).bytes(8, "w").bytes(9, std::string(8, '\0'));
  Pb node_attr;
  node_attr.bytes(1, "value").msg(5, tensor).v(20, 4);
  Pb node;
  node.bytes(3, "c").bytes(4, "Constant").msg(5, node_attr);
  Pb graph;
  graph.msg(1, Pb().bytes(4, "Relu")).msg(1, node);
  Pb model;
  model.msg(7, graph);
  CHECK(error_of([&] { (void)parse(model.s); }) ==
        "graph.node[1] \"c\" (Constant).attribute[0] \"value\".t.raw_data: 8 bytes of FLOAT data for dims that need 12");

  Pb strings;
  strings.v(1, 2).v(2, 8).bytes(6, "only one");
  Pb graph2;
  graph2.msg(5, strings);
  Pb model2;
  model2.msg(7, graph2);
  CHECK(error_of([&] { (void)parse(model2.s); }) == "graph.initializer[0].string_data: 1 strings for 2 elements");
}

TEST_CASE("hostile: subgraphs nested 100,000 deep") {
  // graph { node { attribute { g: graph { node { attribute { g: ... } } } } } }. Only prefixes
  // (every inner message is the last field of its parent), built inside out without copying.
  std::vector<std::string> prefixes;
  std::size_t inner_len = 0;
  for (int i = 0; i < 100000; ++i) {
    Pb attr;
    attr.bytes(1, "body").v(20, 5).key(6, 2).varint(inner_len);
    const auto attr_len = attr.s.size() + inner_len;
    Pb node;
    node.bytes(4, "Loop").key(5, 2).varint(attr_len);
    const auto node_len = node.s.size() + attr_len;
    Pb graph;
    graph.key(1, 2).varint(node_len);
    inner_len = graph.s.size() + node_len;
    prefixes.push_back(graph.s + node.s + attr.s);
  }
  std::string inner;
  for (auto it = prefixes.rbegin(); it != prefixes.rend(); ++it) inner += *it;
  Pb model;
  model.bytes(7, inner);
  const auto msg = error_of([&] { (void)parse(model.s); });
  CHECK(msg.find("messages nested deeper than 600 levels") != std::string::npos);
  CHECK(msg.rfind("graph.node[0] (Loop).attribute[0] \"body\".g.node[0] (Loop).attribute[0]", 0) == 0);
}

TEST_CASE("hostile: field number 0 and oversized keys") {
  CHECK(error_of([&] { (void)parse(std::string("\x00\x01", 2)); }) == "field number 0");
  CHECK(error_of([&] { (void)parse(std::string("\x80\x80\x80\x80\x80\x01", 6)); }) == "field key out of range");
}

}  // namespace oxir_unit_test_codec
