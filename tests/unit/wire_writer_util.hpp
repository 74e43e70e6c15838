// A hand-rolled protobuf wire writer for codec tests, independent of oxir's encoder, and two
// byte/string conversions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace oxir_test {

struct W {
  std::string s;
  W& varint(std::uint64_t v) {
    while (v >= 0x80) {
      s += static_cast<char>(v | 0x80);
      v >>= 7;
    }
    s += static_cast<char>(v);
    return *this;
  }
  W& key(int field, int wt) { return varint(static_cast<std::uint64_t>(field) << 3 | static_cast<unsigned>(wt)); }
  W& v(int field, std::uint64_t x) { return key(field, 0).varint(x); }
  W& bytes(int field, const std::string& b) {
    key(field, 2).varint(b.size());
    s += b;
    return *this;
  }
  W& msg(int field, const W& m) { return bytes(field, m.s); }
};

inline std::span<const std::byte> as_bytes(const std::string& s) {
  return std::as_bytes(std::span<const char>(s.data(), s.size()));
}
inline std::string as_string(const std::vector<std::byte>& b) {
  return std::string(reinterpret_cast<const char*>(b.data()), b.size());
}

}  // namespace oxir_test
