// Tensor payloads: typed views, sub-byte elements, strings, size checks, lazy and viewed buffers.
#include <doctest/doctest.h>

#include <oxir/oxir.hpp>

#include <atomic>
#include <complex>
#include <cstring>
#include <vector>

namespace oxir_unit_test_tensor {

using namespace oxir;

TEST_CASE("typed views of byte-aligned types") {
  Tensor t = Tensor::from_values<float>("w", {2, 2}, {1.f, 2.f, 3.f, 4.f});
  CHECK(t.data_type == DataType::FLOAT);
  CHECK(t.element_count() == 4);
  CHECK(t.expected_bytes() == 16);
  auto v = t.values<float>();
  REQUIRE(v.size() == 4);
  CHECK(v[3] == 4.f);
  // Little-endian raw_data layout.
  CHECK(std::to_integer<int>(t.bytes()[12]) == 0x00);
  CHECK(std::to_integer<int>(t.bytes()[15]) == 0x40);  // 4.0f = 0x40800000
  CHECK_THROWS_AS((void)t.values<double>(), Error);
  CHECK_THROWS_AS((void)t.element<std::int32_t>(0), Error);
  CHECK_THROWS_AS((void)t.element<float>(4), Error);

  auto h = Tensor::from_values<float16>("h", {3}, {float16(1.f), float16(-2.f), float16(0.5f)});
  CHECK(h.data_type == DataType::FLOAT16);
  CHECK(h.values<float16>()[1].bits() == 0xC000);
  auto c = Tensor::from_values<std::complex<double>>("c", {1}, {std::complex<double>(1, -1)});
  CHECK(c.data_type == DataType::COMPLEX128);
  CHECK(c.values<std::complex<double>>()[0].imag() == -1.0);
  auto b = Tensor::from_values<bool>("b", {2}, {true, false});
  CHECK(b.data_type == DataType::BOOL);
  CHECK(b.bytes().size() == 2);
  CHECK(b.element<bool>(0));
}

TEST_CASE("BOOL bytes other than 0 and 1: element() reads them as true, views refuse them") {
  // Found by fuzzing: raw_data (or int32_data) of a BOOL tensor may hold any byte; reading such a
  // byte through a bool is undefined behaviour, so element() tests the byte and the views check.
  Tensor t = Tensor::from_bytes("flags", DataType::BOOL, {3},
                                Buffer::owned(std::vector<std::byte>{std::byte{0}, std::byte{39}, std::byte{1}}));
  CHECK_FALSE(t.element<bool>(0));
  CHECK(t.element<bool>(1));
  CHECK(t.element<bool>(2));
  CHECK_THROWS_WITH_AS((void)t.values<bool>(), "tensor 'flags': values<bool>: element 1 is byte 39, not 0 or 1", Error);
  CHECK_THROWS_AS((void)t.mutable_values<bool>(), Error);
  CHECK(std::to_integer<int>(t.bytes()[1]) == 39);  // the payload itself is kept as it was
  Tensor ok = Tensor::from_bytes("ok", DataType::BOOL, {2}, Buffer::owned(std::vector<std::byte>{std::byte{1}, std::byte{0}}));
  CHECK(ok.values<bool>()[0]);
  CHECK_FALSE(ok.values<bool>()[1]);
}

TEST_CASE("payload size must match dims and type") {
  Tensor t = Tensor::from_bytes("bad", DataType::INT32, {3}, Buffer::owned(std::vector<std::byte>(8)));
  CHECK(t.expected_bytes() == 12);
  CHECK_THROWS_WITH_AS((void)t.values<std::int32_t>(),
                       "tensor 'bad': payload has 8 bytes, dims and type call for 12", Error);
  Tensor neg = Tensor::from_bytes("neg", DataType::INT32, {-1}, Buffer());
  CHECK_FALSE(neg.element_count().has_value());
  CHECK_THROWS_AS((void)neg.values<std::int32_t>(), Error);
  Tensor huge = Tensor::from_bytes("huge", DataType::INT64, {1LL << 62, 1LL << 62}, Buffer());
  CHECK_FALSE(huge.element_count().has_value());
}

TEST_CASE("sub-byte tensors pack low bits first and pad with zeros") {
  auto t = Tensor::from_values<int4>("q", {3}, {int4(-1), int4(7), int4(-8)});
  CHECK(t.data_type == DataType::INT4);
  REQUIRE(t.bytes().size() == 2);
  CHECK(std::to_integer<int>(t.bytes()[0]) == 0x7F);  // element 0 (0xF) low nibble, element 1 (7) high
  CHECK(std::to_integer<int>(t.bytes()[1]) == 0x08);  // element 2, high nibble is zero padding
  CHECK(static_cast<int>(t.element<int4>(0)) == -1);
  CHECK(static_cast<int>(t.element<int4>(2)) == -8);
  CHECK_THROWS_AS((void)t.element<int4>(3), Error);
  t.set_element<int4>(1, int4(-3));
  CHECK(static_cast<int>(t.element<int4>(1)) == -3);
  CHECK(static_cast<int>(t.element<int4>(0)) == -1);

  auto u2 = Tensor::from_values<uint2>("p", {5}, {uint2(1), uint2(2), uint2(3), uint2(0), uint2(3)});
  REQUIRE(u2.bytes().size() == 2);
  CHECK(std::to_integer<int>(u2.bytes()[0]) == (1 | 2 << 2 | 3 << 4 | 0 << 6));
  CHECK(std::to_integer<int>(u2.bytes()[1]) == 3);
  for (std::size_t i = 0; i < 5; ++i) CHECK(static_cast<int>(u2.element<uint2>(i)) == static_cast<int>(std::array{1, 2, 3, 0, 3}[i]));

  auto f4 = Tensor::from_values<float4e2m1>("f", {2}, {float4e2m1(1.5f), float4e2m1(-6.f)});
  CHECK(static_cast<float>(f4.element<float4e2m1>(0)) == 1.5f);
  CHECK(static_cast<float>(f4.element<float4e2m1>(1)) == -6.f);
}

TEST_CASE("string tensors") {
  auto s = Tensor::from_values<std::string>("s", {2}, {std::string("a"), std::string("bc")});
  CHECK(s.data_type == DataType::STRING);
  CHECK(s.strings.size() == 2);
  CHECK(s.element<std::string>(1) == "bc");
  CHECK(s.data.empty());
  CHECK_FALSE(s.expected_bytes().has_value());
}

TEST_CASE("buffer views keep their owner alive and unaligned views are served aligned") {
  auto owner = std::make_shared<std::vector<std::byte>>(64);
  float values[3] = {1.5f, 2.5f, 3.5f};
  std::memcpy(owner->data() + 1, values, sizeof values);  // deliberately misaligned
  Tensor t = Tensor::from_bytes("v", DataType::FLOAT, {3},
                                Buffer::view(owner, std::span<const std::byte>(owner->data() + 1, 12)));
  std::weak_ptr<std::vector<std::byte>> weak = owner;
  owner.reset();
  CHECK_FALSE(weak.expired());  // the tensor's buffer keeps the memory alive
  auto v = t.values<float>();
  CHECK(reinterpret_cast<std::uintptr_t>(v.data()) % alignof(float) == 0);
  CHECK(v[2] == 3.5f);
  CHECK(t.bytes().data() != reinterpret_cast<const std::byte*>(v.data()));  // served from an aligned copy
  t = Tensor{};
  CHECK(weak.expired());
}

TEST_CASE("lazy buffers load once, on first access") {
  std::atomic<int> loads{0};
  auto lazy = Buffer::lazy(4, [&] {
    ++loads;
    return Buffer::copy_of(std::as_bytes(std::span<const std::int32_t>(std::array<std::int32_t, 1>{7})));
  });
  Tensor t = Tensor::from_bytes("x", DataType::INT32, {1}, lazy);
  Tensor copy = t;
  CHECK(loads == 0);
  CHECK_FALSE(t.data.is_loaded());
  CHECK(t.data.size() == 4);  // known without loading
  CHECK(copy.element<std::int32_t>(0) == 7);
  CHECK(t.element<std::int32_t>(0) == 7);
  CHECK(loads == 1);

  auto wrong = Buffer::lazy(8, [] { return Buffer::owned(std::vector<std::byte>(3)); });
  CHECK_THROWS_AS((void)wrong.bytes(), Error);
  auto failing = Buffer::lazy(1, []() -> Buffer { throw Error("ext.bin", "missing"); });
  CHECK_THROWS_WITH_AS((void)failing.bytes(), "ext.bin: missing", Error);
}

TEST_CASE("mutable access detaches shared payloads only") {
  Tensor a = Tensor::from_values<std::int64_t>("a", {2}, {1, 2});
  auto* before = a.bytes().data();
  a.mutable_values<std::int64_t>()[0] = 5;  // sole owner: written in place
  CHECK(a.bytes().data() == before);
  Tensor b = a;
  b.mutable_values<std::int64_t>()[1] = 9;
  CHECK(a.element<std::int64_t>(1) == 2);
  CHECK(b.element<std::int64_t>(1) == 9);
  CHECK(b.element<std::int64_t>(0) == 5);
}

}  // namespace oxir_unit_test_tensor
