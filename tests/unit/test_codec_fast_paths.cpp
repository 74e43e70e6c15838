// The codec's fast paths (one- and two-byte varints and keys, reserving repeated fields from a
// pre-scan, the encoder's stack buffer growing to the heap, output written straight into a string,
// huge outputs) against input built by a hand-rolled writer independent of oxir's encoder.
#include <doctest/doctest.h>

#include <oxir/io.hpp>

#include "wire_writer_util.hpp"

#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace oxir_unit_test_codec_fast_paths {

using namespace oxir;

namespace {

using oxir_test::W;
using oxir_test::as_bytes;
using oxir_test::as_string;

std::string error_of(const std::string& bytes) {
  try {
    (void)parse_model(as_bytes(bytes));
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

// A node in protobuf's field order: input, output, op_type, attribute {name, i, type=INT}.
W node(int i) {
  W a;
  a.bytes(1, "axis").v(3, static_cast<std::uint64_t>(i)).v(20, 2);
  W n;
  n.bytes(1, "x" + std::to_string(i)).bytes(1, "w").bytes(2, "x" + std::to_string(i + 1)).bytes(4, "Mul").msg(5, a);
  return n;
}

}  // namespace

TEST_CASE("varints of every length at message ends and in the middle") {
  const std::uint64_t values[] = {0,       1,        127,         128,       16383, 16384, (1ULL << 21) - 1,
                                  1ULL << 21, 1ULL << 35, 1ULL << 56, (1ULL << 63) - 1, 1ULL << 63,
                                  std::numeric_limits<std::uint64_t>::max()};
  for (auto x : values) {
    CAPTURE(x);
    W last;  // model_version (5) is the message's last field: the varint ends the input
    last.v(1, 8).v(5, x);
    auto m = parse_model(as_bytes(last.s));
    CHECK(m.ir_version == 8);
    CHECK(static_cast<std::uint64_t>(m.model_version) == x);
    CHECK(as_string(serialize_model(m)) == last.s);

    W middle;
    middle.v(1, x).bytes(2, "p");
    auto m2 = parse_model(as_bytes(middle.s));
    CHECK(static_cast<std::uint64_t>(m2.ir_version) == x);
    CHECK(m2.producer_name == "p");
    CHECK(as_string(serialize_model(m2)) == middle.s);
  }
}

TEST_CASE("truncated and overlong varints at the end of the input") {
  W w;
  w.key(1, 0);
  CHECK(error_of(w.s + "\x80").find("truncated varint") != std::string::npos);
  CHECK(error_of(w.s + "\xff\xff").find("truncated varint") != std::string::npos);
  CHECK(error_of(w.s + std::string(10, '\xff') + "\x01").find("varint longer than") != std::string::npos);
  CHECK(error_of(w.s + std::string(9, '\xff') + "\x02").find("varint longer than 64 bits") != std::string::npos);
}

TEST_CASE("one- and two-byte keys, valid and invalid wire types") {
  // Field 15 (one-byte key) and 16 (two bytes) unknown to ModelProto: kept verbatim.
  W w;
  w.v(1, 7).v(15, 300).bytes(16, "abc");
  auto m = parse_model(as_bytes(w.s));
  CHECK(m.ir_version == 7);
  CHECK(m.unknown_fields.size() == w.s.size() - 2);
  CHECK(as_string(serialize_model(m)) == w.s);
  for (int wt : {3, 4, 6, 7}) {
    CAPTURE(wt);
    W bad;
    bad.key(1, wt).varint(1);
    CHECK(error_of(bad.s).find("invalid wire type " + std::to_string(wt)) != std::string::npos);
    W bad2;
    bad2.key(17, wt).varint(1);
    CHECK(error_of(bad2.s).find("invalid wire type " + std::to_string(wt)) != std::string::npos);
  }
  CHECK(error_of(std::string("\x02\x00", 2)).find("field number 0") != std::string::npos);
}

TEST_CASE("repeated fields reserved from a pre-scan: many, merged and malformed") {
  W g;
  for (int i = 0; i < 700; ++i) g.msg(1, node(i));
  g.bytes(2, "many");
  W model;
  model.v(1, 9).msg(7, g);
  auto m = parse_model(as_bytes(model.s));
  REQUIRE(m.graph.nodes.size() == 700);
  CHECK(m.graph.nodes[699].inputs == std::vector<std::string>{"x699", "w"});
  CHECK(std::get<std::int64_t>(m.graph.nodes[699].attributes.at(0).value) == 699);
  // More than the encoder's stack buffer holds (4 KB): it grows to the heap mid-message.
  CHECK(as_string(serialize_model(m)) == model.s);
  CHECK(serialize_model_to_string(m) == model.s);

  // A graph given twice merges: the second adds to the first's repeated fields.
  W g2;
  g2.msg(1, node(1000));
  W twice = model;
  twice.msg(7, g2);
  auto t = parse_model(as_bytes(twice.s));
  CHECK(t.graph.nodes.size() == 701);
  CHECK(t.graph.nodes.back().outputs == std::vector<std::string>{"x1001"});

  // The pre-scan stops quietly at malformed bytes; the decoder reports them with the field path.
  W broken_node = node(0);
  broken_node.key(1, 2).varint(50).s += "short";
  W bg;
  bg.msg(1, node(5)).msg(1, broken_node);
  W bm;
  bm.msg(7, bg);
  const auto e = error_of(bm.s);
  CHECK(e.find("graph.node[1]") != std::string::npos);
  CHECK(e.find("input[") != std::string::npos);
  CHECK(e.find("runs past the end") != std::string::npos);
}

TEST_CASE("unpacked repeated ints and dims reserved from a pre-scan") {
  W a;
  a.bytes(1, "pads");
  for (int i = 0; i < 40; ++i) a.v(8, static_cast<std::uint64_t>(i * 1000));
  a.v(20, 7);  // INTS
  W t;
  for (int d : {2, 3, 5, 7, 1, 1}) t.v(1, static_cast<std::uint64_t>(d));
  t.v(2, 2).bytes(8, "u8").bytes(9, std::string(210, '\x05'));  // UINT8, 2*3*5*7 elements
  W n;
  n.bytes(4, "Pad").msg(5, a);
  W g;
  g.msg(1, n).msg(5, t);
  W model;
  model.msg(7, g);
  auto m = parse_model(as_bytes(model.s));
  const auto& ints = std::get<std::vector<std::int64_t>>(m.graph.nodes.at(0).attributes.at(0).value);
  REQUIRE(ints.size() == 40);
  CHECK(ints[39] == 39000);
  CHECK(m.graph.initializers.at(0).dims == std::vector<std::int64_t>{2, 3, 5, 7, 1, 1});
  CHECK(m.graph.initializers.at(0).data.size() == 210);
  CHECK(as_string(serialize_model(m)) == model.s);
}

TEST_CASE("a large output (huge-page path) is byte-identical, in a vector and in a string") {
  std::string payload(5u << 20, '\0');
  for (std::size_t i = 0; i < payload.size(); ++i) payload[i] = static_cast<char>((i * 2654435761u) >> 13);
  W t;
  t.v(1, payload.size() / 4).v(2, 1).bytes(8, "big").bytes(9, payload);  // FLOAT
  W g;
  g.msg(5, t);
  W model;
  model.v(1, 10).msg(7, g);
  auto keeper = std::make_shared<std::string>(model.s);
  auto m = parse_model(keeper, as_bytes(*keeper));
  CHECK(m.graph.initializers.at(0).data.bytes().data() ==
        reinterpret_cast<const std::byte*>(keeper->data()) + keeper->size() - payload.size());  // zero-copy view
  CHECK(as_string(serialize_model(m)) == model.s);
  CHECK(serialize_model_to_string(m) == model.s);
}

}  // namespace oxir_unit_test_codec_fast_paths
