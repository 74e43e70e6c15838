// Value semantics of the object model: copies are independent, == compares content, and copying a
// model copies no tensor payload (proved by counting allocated bytes).
#include <doctest/doctest.h>

#include <oxir/ir.hpp>

#include <malloc.h>

#include <cstdlib>
#include <new>

#include "alloc_counter.hpp"
#include "wire_writer_util.hpp"

#include <oxir/io.hpp>

using oxir_test::g_allocated;
using oxir_test::g_counting;

// Counting replacements of the global allocation functions (this test binary only). GCC cannot
// see that these pair malloc with free consistently once they are inlined into library code.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
void* operator new(std::size_t n) {
  if (void* p = std::malloc(n ? n : 1)) {
    if (g_counting.load(std::memory_order_relaxed)) oxir_test::count_allocation(malloc_usable_size(p));
    return p;
  }
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept {
  if (p && g_counting.load(std::memory_order_relaxed)) oxir_test::count_free(malloc_usable_size(p));
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept { operator delete(p); }

namespace oxir_unit_test_value_semantics {

using namespace oxir;

namespace {
Model small_model() {
  Model m;
  m.ir_version = 10;
  m.set_opset_version("", 21);
  m.graph.name = "g";
  m.graph.inputs.emplace_back("X", Type::tensor(DataType::FLOAT, {"N", 4}));
  m.graph.outputs.emplace_back("Y", Type::tensor(DataType::FLOAT, {"N", 4}));
  m.graph.initializers.push_back(Tensor::from_values<float>("B", {4}, {1.f, 2.f, 3.f, 4.f}));
  m.graph.nodes.push_back(Node("Add", {"X", "B"}, {"Y"}, "add"));
  return m;
}
}  // namespace

TEST_CASE("copy of a model holding a 1 GiB initializer copies no payload") {
  constexpr std::size_t gib = std::size_t{1} << 30;
  Model m = small_model();
  m.graph.initializers.push_back(
      Tensor::from_bytes("big", DataType::UINT8, {static_cast<std::int64_t>(gib)},
                         Buffer::owned(std::vector<std::byte>(gib))));

  g_allocated = 0;
  g_counting = true;
  Model copy = m;
  g_counting = false;
  // Structure only: names, vectors, the shared_ptr copies. Far below one payload.
  CHECK(g_allocated.load() < 64 * 1024);
  CHECK(copy.graph.initializers[1].data.shares_storage_with(m.graph.initializers[1].data));
  CHECK(copy == m);

  // Writing to the copy's tensor detaches only that tensor.
  g_allocated = 0;
  g_counting = true;
  copy.graph.initializers[1].mutable_bytes()[7] = std::byte{42};
  g_counting = false;
  CHECK(g_allocated.load() >= gib);  // the copy-on-write really copied
  CHECK_FALSE(copy.graph.initializers[1].data.shares_storage_with(m.graph.initializers[1].data));
  CHECK(m.graph.initializers[1].bytes()[7] == std::byte{0});
  CHECK(copy.graph.initializers[1].bytes()[7] == std::byte{42});
  CHECK(copy.graph.initializers[0].data.shares_storage_with(m.graph.initializers[0].data));
  CHECK(copy != m);
}

TEST_CASE("copies are independent and == compares content") {
  Model a = small_model();
  Model b = a;
  CHECK(a == b);
  b.graph.nodes[0].op_type = "Sub";
  CHECK(a != b);
  CHECK(a.graph.nodes[0].op_type == "Add");

  Model c = small_model();  // built separately: equal content, distinct storage
  CHECK(c == a);
  CHECK_FALSE(c.graph.initializers[0].data.shares_storage_with(a.graph.initializers[0].data));
  c.graph.initializers[0].set_element<float>(2, 30.f);
  CHECK(c != a);
  CHECK(a.graph.initializers[0].element<float>(2) == 3.f);

  // Moves leave the source valid and the target equal to what the source was.
  Model d = a;
  Model e = std::move(d);
  CHECK(e == a);
}

TEST_CASE("nested subgraphs are deep-copied") {
  Graph then_branch;
  then_branch.name = "then";
  then_branch.nodes.push_back(Node("Identity", {"X"}, {"T"}));
  Graph else_branch = then_branch;
  else_branch.name = "else";

  Node if_node("If", {"C"}, {"Y"});
  if_node.set_attribute({"then_branch", then_branch});
  if_node.set_attribute({"else_branch", else_branch});
  Node copy = if_node;
  CHECK(copy == if_node);
  copy.find_attribute("then_branch")->as_graph().nodes[0].op_type = "Neg";
  CHECK(copy != if_node);
  CHECK(if_node.find_attribute("then_branch")->as_graph().nodes[0].op_type == "Identity");
}

TEST_CASE("attributes: kinds, accessors, NaN equality") {
  Attribute f("alpha", 0.5f);
  CHECK(f.kind() == AttributeType::FLOAT);
  CHECK(f.type == AttributeType::FLOAT);
  CHECK(f.as_float() == 0.5f);
  CHECK_THROWS_AS((void)f.as_int(), Error);
  try {
    (void)f.as_ints();
  } catch (const Error& e) {
    CHECK(std::string(e.what()) == "attribute 'alpha': is FLOAT, not INTS");
  }

  Attribute nan("x", std::numeric_limits<float>::quiet_NaN());
  Attribute nan_copy = nan;
  CHECK(nan == nan_copy);  // bitwise: a NaN attribute equals its copy
  Attribute floats("fs", std::vector<float>{1.f, std::numeric_limits<float>::quiet_NaN()});
  CHECK(floats == Attribute(floats));
  CHECK(Attribute("a", 0.0f) != Attribute("a", -0.0f));  // different bits, different attribute

  Attribute ints("axes", std::vector<std::int64_t>{0, 2});
  CHECK(ints.as_ints() == std::vector<std::int64_t>{0, 2});
  Attribute s("mode", "constant");
  CHECK(s.as_string() == "constant");
  Attribute t("value", Tensor::from_values<std::int64_t>("", {2}, {3, 4}));
  CHECK(t.kind() == AttributeType::TENSOR);
  CHECK(t.as_tensor().element<std::int64_t>(1) == 4);
  Attribute ty("tp", Type::sequence(Type::tensor(DataType::INT8)));
  CHECK(ty.as_type().is_sequence());

  Attribute ref = Attribute::reference("alpha", "my_alpha", AttributeType::FLOAT);
  CHECK(ref.kind() == AttributeType::FLOAT);  // declared type; no value of its own
  CHECK(ref.value.index() == 0);
  CHECK(ref.ref_attr_name == "my_alpha");

  // IR version 1 attributes have no `type` field; kind() still says what they hold.
  Attribute old;
  old.name = "k";
  old.value = std::vector<std::int64_t>{3, 3};
  CHECK(old.type == AttributeType::UNDEFINED);
  CHECK(old.kind() == AttributeType::INTS);

  Node n("Foo", {}, {});
  n.set_attribute({"i", 3}).set_attribute({"f", 1.5f}).set_attribute({"i", 4});
  CHECK(n.attributes.size() == 2);
  CHECK(n.attribute_or("i", std::int64_t{0}) == 4);
  CHECK(n.attribute_or("missing", std::int64_t{7}) == 7);
  CHECK(n.attribute_or("f", 0.f) == 1.5f);
  CHECK(n.attribute_or("mode", "nearest") == "nearest");
}

TEST_CASE("presence is wire detail and does not affect ==") {
  Node a("Relu", {}, {});
  Node b = a;
  b.presence.set(7);  // e.g. an explicit empty domain on the wire
  CHECK(b.presence.has(7));
  CHECK_FALSE(a.presence.has(7));
  CHECK(a == b);
  b.unknown_fields = std::string("\xa0\x06\x01", 3);  // unknown fields are content
  CHECK(a != b);
}

TEST_CASE("unknown fields: one pointer per message, copied deeply, compared by content") {
  // Every Dim, Type, ValueInfo, Node and Attribute holds one: it must stay pointer-sized.
  static_assert(sizeof(UnknownFields) == sizeof(void*));
  UnknownFields none;
  CHECK(none.empty());
  CHECK(none.size() == 0);
  CHECK(none.view().empty());
  CHECK(none.str().empty());
  CHECK(std::string_view(none.data()).empty());
  const std::string bytes("\xa0\x06\x01\x00", 4);  // field 100 = 1, and a NUL byte kept too
  UnknownFields a(bytes);
  CHECK(a.size() == 4);
  CHECK(a.view() == bytes);
  CHECK(a.str() == bytes);
  UnknownFields b = a;  // deep: editing the copy leaves the original
  b += std::string_view("\x08\x02", 2);
  CHECK(a.size() == 4);
  CHECK(b.size() == 6);
  CHECK(a != b);
  CHECK(std::string(b.view().substr(0, 4)) == bytes);
  CHECK(a + b == bytes + bytes + std::string("\x08\x02", 2));
  b = a;
  CHECK(a == b);
  CHECK(b.data() != a.data());
  UnknownFields moved = std::move(b);
  CHECK(moved == a);
  // An empty value equals no value, however it came about.
  UnknownFields emptied(bytes);
  emptied.assign(std::string());
  CHECK(emptied == none);
  emptied = UnknownFields(std::string());
  CHECK(emptied.empty());
  emptied.append("", 0);
  CHECK(emptied == none);
  a.clear();
  CHECK(a == none);
  // Messages carrying them: copies compare equal and are independent.
  Dim d(7);
  d.unknown_fields = bytes;
  Dim e = d;
  CHECK(e == d);
  e.unknown_fields.clear();
  CHECK(e != d);
  CHECK(d.unknown_fields.view() == bytes);
}

TEST_CASE("types and shapes") {
  Type t = Type::tensor(DataType::FLOAT, {"N", 3, Dim{}});
  REQUIRE(t.shape() != nullptr);
  CHECK(t.shape()->rank() == 3);
  CHECK((*t.shape())[0].is_param());
  CHECK((*t.shape())[1].dim_value() == 3);
  CHECK((*t.shape())[2].is_unknown());
  CHECK_FALSE(t.shape()->is_static());
  CHECK(Shape{2, 3, 4}.element_count() == 24);
  CHECK_FALSE(Shape{"N", 3}.element_count().has_value());
  CHECK(Shape{}.element_count() == 1);

  Type unknown_rank = Type::tensor(DataType::INT64);
  CHECK(unknown_rank.shape() == nullptr);
  CHECK(unknown_rank != Type::tensor(DataType::INT64, {}));  // unknown rank is not a scalar

  Type m = Type::map(DataType::STRING, Type::sequence(Type::tensor(DataType::FLOAT)));
  Type m2 = m;
  CHECK(m == m2);
  std::get<MapType>(m2.value).value_type = Type::optional(Type::tensor(DataType::FLOAT));
  CHECK(m != m2);
  CHECK(Type::sparse_tensor(DataType::FLOAT, {10}).elem_type() == DataType::FLOAT);
  CHECK(Type(OpaqueType{"ai.onnx.ml", "thing", {}, {}}).is_opaque());
}

TEST_CASE("lookups by name and opset version of a domain") {
  Model m = small_model();
  CHECK(m.graph.find_node("add") != nullptr);
  CHECK(m.graph.find_node("nope") == nullptr);
  CHECK(m.graph.find_initializer("B") != nullptr);
  CHECK(m.graph.find_value_info("X")->type->elem_type() == DataType::FLOAT);
  CHECK(m.graph.find_value_info("Y") != nullptr);
  CHECK(m.graph.find_producer("Y") == &m.graph.nodes[0]);
  CHECK(m.graph.find_producer("X") == nullptr);

  CHECK(m.opset_version("") == 21);
  CHECK(m.opset_version("ai.onnx") == 21);
  CHECK_FALSE(m.opset_version("ai.onnx.ml").has_value());
  m.set_opset_version("ai.onnx", 22);  // the same domain, spelled differently
  CHECK(m.opset_imports.size() == 1);
  CHECK(m.opset_version("") == 22);
  m.set_opset_version("com.microsoft", 1);
  CHECK(m.opset_version("com.microsoft") == 1);

  Function f;
  f.domain = "local";
  f.name = "Fn";
  f.opset_imports.push_back({"ai.onnx", 18, {}, {}});
  m.functions.push_back(f);
  CHECK(m.find_function("local", "Fn") != nullptr);
  CHECK(m.find_function("local", "Fn", "v2") == nullptr);
  CHECK(m.functions[0].opset_version("") == 18);

  std::vector<StringStringEntry> meta;
  set_entry(meta, "author", "me");
  set_entry(meta, "author", "you");
  CHECK(meta.size() == 1);
  CHECK(find_entry(meta, "author") == "you");
}


namespace {
using oxir_test::W;
W repeated_empty(int field, std::size_t n) {
  W w;
  for (std::size_t i = 0; i < n; ++i) w.bytes(field, "");
  return w;
}
std::size_t bytes_allocated_parsing(const W& wire) {
  g_allocated = 0;
  g_counting = true;
  oxir::Model m = oxir::parse_model(oxir_test::as_bytes(wire.s));
  g_counting = false;
  return g_allocated.load();
}
W in_node_attribute(const W& attribute) { return W().msg(7, W().msg(1, W().msg(5, attribute))); }
}  // namespace

TEST_CASE("parsing many empty messages allocates in proportion to the input, without doubling") {
  // A 2-byte empty message becomes an object of hundreds of bytes (oxir::SparseTensor: 672);
  // growing the vector by doubling would allocate ~3x the final size again (a 40 KB file of
  // empty sparse initializers: 44 MB). The decoder counts them first and allocates once.
  constexpr std::size_t n = 20000;
  struct Case {
    const char* what;
    W wire;
    std::size_t element_bytes;
  };
  const std::vector<Case> cases = {
      {"graph.sparse_initializer", W().msg(7, repeated_empty(15, n)), sizeof(oxir::SparseTensor)},
      {"training_info", repeated_empty(20, n), sizeof(oxir::TrainingInfo)},
      {"functions", repeated_empty(25, n), sizeof(oxir::Function)},
      {"attribute.graphs", in_node_attribute(repeated_empty(11, n)), sizeof(oxir::Graph)},
      {"attribute.sparse_tensors", in_node_attribute(repeated_empty(23, n)), sizeof(oxir::SparseTensor)},
      {"function.attribute_proto", W().msg(25, repeated_empty(11, n)), sizeof(oxir::Attribute)},
  };
  for (const auto& c : cases) {
    CAPTURE(c.what);
    const std::size_t used = bytes_allocated_parsing(c.wire);
    CHECK(used >= n * c.element_bytes);              // the elements themselves
    CHECK(used <= n * c.element_bytes + 64 * 1024);  // and nothing like a doubling's copies
  }
}

}  // namespace oxir_unit_test_value_semantics
