// The one-pass back-to-front encoder (big payloads as holes copied once into the output, the
// stack buffer growing to the heap, several messages appended by one encode_with), the decoder's
// dim and type construction paths, and load_model's small-file reading (sizes around its first
// read, empty files, pipes, directories), against bytes built by a hand-rolled writer.
#include <doctest/doctest.h>

#include <oxir/io.hpp>

#include "wire_writer_util.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace oxir_unit_test_codec_backward {

using namespace oxir;
namespace fs = std::filesystem;

namespace {

using oxir_test::W;
using oxir_test::as_bytes;
using oxir_test::as_string;
std::string pattern(std::size_t n, unsigned seed) {
  std::string s(n, '\0');
  for (std::size_t i = 0; i < n; ++i) s[i] = static_cast<char>(((i + seed) * 2654435761u) >> 13);
  return s;
}
// Parses `bytes` and checks that writing the model back gives them again, in both output types.
Model round_trip(const std::string& bytes) {
  auto keeper = std::make_shared<std::string>(bytes);
  Model m = parse_model(keeper, as_bytes(*keeper));
  CHECK(as_string(serialize_model(m)) == bytes);
  CHECK(serialize_model_to_string(m) == bytes);
  CHECK(as_string(serialize_model(parse_model(as_bytes(bytes)))) == bytes);  // copied payloads too
  return m;
}

W node(int i) {
  W n;
  n.bytes(1, "x" + std::to_string(i)).bytes(2, "x" + std::to_string(i + 1)).bytes(4, "Relu");
  return n;
}

struct TempDir {
  fs::path path;
  TempDir() {
    static int counter = 0;
    path = fs::temp_directory_path() / ("oxir-backward-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

void write(const fs::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// A valid model of exactly `size` bytes (ir_version, then a doc_string filling the rest).
std::string model_of_size(std::size_t size) {
  W m;
  m.v(1, 8);
  if (size == m.s.size()) return m.s;
  for (std::size_t doc = size; doc > 0; --doc) {
    W d = m;
    d.bytes(6, pattern(doc, 7));
    if (d.s.size() == size) return d.s;
  }
  FAIL("no model of " << size << " bytes");
  return {};
}

}  // namespace

TEST_CASE("payloads around the hole size, in every kind of field, round trip byte for byte") {
  for (std::size_t n : {std::size_t{511}, std::size_t{512}, std::size_t{513}, std::size_t{4096}, std::size_t{70000}}) {
    CAPTURE(n);
    W raw;  // raw_data
    raw.v(1, n).v(2, 2).bytes(8, "u8").bytes(9, pattern(n, 1));
    W strings;  // string_data elements
    strings.v(1, 2).v(2, 8).bytes(6, pattern(n, 2)).bytes(6, "short").bytes(8, "s");
    W floats;  // packed float_data
    floats.v(1, n).v(2, 1).bytes(4, pattern(4 * n, 3)).bytes(8, "f");
    W ints;  // packed int64_data: varints of all lengths, negative ones included
    W packed;
    for (std::size_t i = 0; i < n; ++i) packed.varint(i % 3 == 0 ? ~std::uint64_t{i} : i << (i % 57));
    ints.v(1, n).v(2, 7).bytes(7, packed.s).bytes(8, "i");
    W i32;  // packed int32_data of INT8: sign-extended
    W packed8;
    for (std::size_t i = 0; i < n; ++i) packed8.varint(i % 2 ? static_cast<std::uint64_t>(-static_cast<std::int64_t>(i % 128)) : i % 128);
    i32.v(1, n).v(2, 3).bytes(5, packed8.s).bytes(8, "i8");
    W attr;  // a tensor attribute with a big payload
    attr.bytes(1, "value").msg(5, raw).v(20, 4);
    W constant;
    constant.bytes(2, "c").bytes(4, "Constant").msg(5, attr);
    W g;
    g.msg(1, constant).msg(1, node(0)).bytes(2, "g");
    for (const auto* t : {&raw, &strings, &floats, &ints, &i32}) g.msg(5, *t);
    g.key(99, 2).varint(n).s += pattern(n, 4);  // an unknown field as big as the payloads
    W model;
    model.v(1, 9).bytes(2, pattern(n, 5)).msg(7, g);
    model.key(200, 2).varint(3).s += "abc";
    const Model m = round_trip(model.s);
    CHECK(m.graph.initializers.size() == 5);
    CHECK(m.graph.unknown_fields.size() > n);
  }
}

TEST_CASE("a model bigger than the encoder's stack buffer: the buffer grows with holes recorded") {
  W g;
  for (int i = 0; i < 2000; ++i) g.msg(1, node(i));  // ~30 KB of structure
  W t;
  t.v(1, 1000).v(2, 2).bytes(8, "w").bytes(9, pattern(1000, 9));
  g.bytes(2, "big").msg(5, t);
  for (int i = 0; i < 50; ++i) {  // more holes, written before the growth happens
    W u;
    u.v(1, 600).v(2, 2).bytes(8, std::to_string(i) + "u").bytes(9, pattern(600, static_cast<unsigned>(i)));
    g.msg(5, u);
  }
  W model;
  model.v(1, 9).msg(7, g);
  const Model m = round_trip(model.s);
  CHECK(m.graph.nodes.size() == 2000);
}

TEST_CASE("encode_with appends the messages it is given in order") {
  Node a("Relu", {"x"}, {"y"}, "a");
  Node b("Add", {"y", std::string(700, 'q')}, {"z"}, "b");  // a long name: a hole in the second message
  b.attributes.emplace_back("t", Tensor::from_values<float>("w", {300}, std::vector<float>(300, 1.5f)));
  const auto one = io::encode_with([&](auto& e) { e.node(a); });
  const auto two = io::encode_with([&](auto& e) { e.node(b); });
  const auto both = io::encode_with([&](auto& e) {
    e.node(a);
    e.node(b);
  });
  CHECK(as_string(both) == as_string(one) + as_string(two));
  const auto in_string = io::encode_as<std::string>([&](auto& e) {
    e.node(b);
    e.node(a);
  });
  CHECK(in_string == as_string(two) + as_string(one));
}

TEST_CASE("dims: values and params built directly, anything else through the general path") {
  W shape;
  shape.msg(1, W().v(1, 3))                                    // dim_value
      .msg(1, W().bytes(2, "N"))                               // dim_param
      .msg(1, W())                                             // neither
      .msg(1, W().bytes(2, "batch").bytes(3, "DATA_BATCH"))    // with a denotation
      .msg(1, W().v(1, 5).bytes(2, "M"))                       // both: the last one wins
      .msg(1, W().bytes(2, "M").v(1, 5))
      .msg(1, W().v(1, 7).v(9, 1));                            // an unknown field
  W tt;
  tt.v(1, 1).msg(2, shape);
  W type;
  type.msg(1, tt);
  W vi;
  vi.bytes(1, "x").msg(2, type);
  W g;
  g.msg(11, vi);
  W model;
  model.v(1, 9).msg(7, g);
  auto keeper = std::make_shared<std::string>(model.s);
  const Model m = parse_model(keeper, as_bytes(*keeper));
  const auto& dims = m.graph.inputs.at(0).type->shape()->dims;
  REQUIRE(dims.size() == 7);
  CHECK(dims[0].dim_value() == 3);
  CHECK(dims[1].dim_param() == "N");
  CHECK(dims[2].is_unknown());
  CHECK(dims[3].dim_param() == "batch");
  CHECK(dims[3].denotation == "DATA_BATCH");
  CHECK(dims[4].dim_param() == "M");
  CHECK(dims[5].dim_value() == 5);
  CHECK(dims[6].dim_value() == 7);
  CHECK(dims[6].unknown_fields.size() == 2);
  CHECK(dims[0].denotation.empty());

  // A broken dim is named by its index, on either path.
  for (const auto& bad : {W().v(1, 3).key(1, 0), W().bytes(3, "d").key(2, 2).varint(40)}) {
    W s2;
    s2.msg(1, W().v(1, 1)).msg(1, W().v(1, 2)).msg(1, bad);
    W tt2;
    tt2.v(1, 1).msg(2, s2);
    W y;
    y.msg(1, tt2);
    W v2;
    v2.bytes(1, "x").msg(2, y);
    W g2;
    g2.msg(11, v2);
    W m2;
    m2.msg(7, g2);
    std::string what;
    try {
      (void)parse_model(as_bytes(m2.s));
    } catch (const Error& e) {
      what = e.what();
    }
    CHECK(what.find("input[0].type.tensor_type.shape.dim[2]") != std::string::npos);
  }
}

TEST_CASE("value_info types that do not start with a tensor type, and types given twice") {
  W inner;
  inner.msg(1, W().v(1, 1));
  W seq;
  seq.msg(4, W().msg(1, inner));  // sequence of float tensors
  W late;
  late.bytes(6, "TENSOR").msg(1, W().v(1, 7));  // denotation before tensor_type: parsed, then canonical order
  W g;
  g.msg(11, W().bytes(1, "s").msg(2, seq))
      .msg(11, W().bytes(1, "t").msg(2, late))
      .msg(11, W().bytes(1, "u").msg(2, W().msg(1, W().v(1, 1))).msg(2, W().bytes(6, "IMAGE")));  // merged
  W model;
  model.msg(7, g);
  const Model m = parse_model(as_bytes(model.s));
  REQUIRE(m.graph.inputs.size() == 3);
  CHECK(m.graph.inputs[0].type->is_sequence());
  CHECK(m.graph.inputs[1].type->elem_type() == DataType::INT64);
  CHECK(m.graph.inputs[1].type->denotation == "TENSOR");
  CHECK(m.graph.inputs[2].type->elem_type() == DataType::FLOAT);
  CHECK(m.graph.inputs[2].type->denotation == "IMAGE");
  CHECK(parse_model(serialize_model(m)) == m);
}

TEST_CASE("load_model reads files of every size around its first read the same as parse_model") {
  TempDir dir;
  for (std::size_t size : {std::size_t{0}, std::size_t{2}, std::size_t{16383}, std::size_t{16384}, std::size_t{16385},
                           std::size_t{40000}, (std::size_t{1} << 20) + 3}) {
    CAPTURE(size);
    const auto bytes = size == 0 ? std::string() : model_of_size(size);
    REQUIRE(bytes.size() == size);
    write(dir.path / "m.onnx", bytes);
    const Model m = load_model(dir.path / "m.onnx");
    CHECK(m == parse_model(as_bytes(bytes)));
    CHECK(serialize_model_to_string(m) == bytes);
  }
}

TEST_CASE("load_model reads a pipe to its end and refuses a directory") {
  TempDir dir;
  const auto fifo = dir.path / "pipe.onnx";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const auto bytes = model_of_size(100000);  // more than one read and more than a pipe's buffer
  std::thread writer([&] {
    std::ofstream out(fifo, std::ios::binary);
    for (std::size_t i = 0; i < bytes.size(); i += 1000) {
      out.write(bytes.data() + i, static_cast<std::streamsize>(std::min<std::size_t>(1000, bytes.size() - i)));
      out.flush();  // small writes: the reader sees short reads before the end
    }
  });
  Model m;
  std::string error;
  try {
    m = load_model(fifo);
  } catch (const Error& e) {
    error = e.what();
  }
  writer.join();
  CHECK(error.empty());
  CHECK(serialize_model_to_string(m) == bytes);

  std::string what;
  try {
    (void)load_model(dir.path);
  } catch (const Error& e) {
    what = e.what();
  }
  CHECK(what.find("cannot read") != std::string::npos);
}

TEST_CASE("a broken node input or output is named by its zero-based index") {
  for (int field : {1, 2}) {
    W n;
    n.bytes(field, "a").key(field, 2).varint(50);  // the second one runs past the end
    W g;
    g.msg(1, n);
    W m;
    m.msg(7, g);
    std::string what;
    try {
      (void)parse_model(as_bytes(m.s));
    } catch (const Error& e) {
      what = e.what();
    }
    CHECK(what.find(field == 1 ? "node[0].input[1]" : "node[0].output[1]") != std::string::npos);
  }
}

}  // namespace oxir_unit_test_codec_backward
