#pragma once
// SHA-1 (FIPS 180-4), for the optional "checksum" entry of a tensor's external_data, which
// onnx.proto defines as the SHA-1 digest of the data file. Not for security: only to notice data
// files that do not match the model.

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace oxir::io {

class Sha1 {
 public:
  /// Feeds more bytes.
  void update(std::span<const std::byte> data) noexcept {
    std::size_t i = 0;
    if (fill_ != 0) {
      while (fill_ < 64 && i < data.size()) block_[fill_++] = std::to_integer<std::uint8_t>(data[i++]);
      if (fill_ < 64) {
        length_ += data.size();
        return;
      }
      compress(block_.data());
      fill_ = 0;
    }
    const auto* p = reinterpret_cast<const std::uint8_t*>(data.data());
    for (; data.size() - i >= 64; i += 64) compress(p + i);
    for (; i < data.size(); ++i) block_[fill_++] = p[i];
    length_ += data.size();
  }

  /// The digest as 40 lowercase hex digits. Call once, after the last update.
  [[nodiscard]] std::string hex_digest() noexcept {
    const std::uint64_t bits = length_ * 8;
    block_[fill_++] = 0x80;
    if (fill_ > 56) {
      while (fill_ < 64) block_[fill_++] = 0;
      compress(block_.data());
      fill_ = 0;
    }
    while (fill_ < 56) block_[fill_++] = 0;
    for (int k = 7; k >= 0; --k) block_[fill_++] = static_cast<std::uint8_t>(bits >> (8 * k));
    compress(block_.data());
    fill_ = 0;
    static constexpr char digits[] = "0123456789abcdef";
    std::string out;
    out.reserve(40);
    for (std::uint32_t word : h_)
      for (int k = 28; k >= 0; k -= 4) out.push_back(digits[(word >> k) & 0xF]);
    return out;
  }

  /// The hex digest of `data` in one call.
  [[nodiscard]] static std::string of(std::span<const std::byte> data) noexcept {
    Sha1 s;
    s.update(data);
    return s.hex_digest();
  }

 private:
  static constexpr std::uint32_t rotl(std::uint32_t x, int n) noexcept { return (x << n) | (x >> (32 - n)); }

  void compress(const std::uint8_t* b) noexcept {
    std::uint32_t w[80];
    for (int t = 0; t < 16; ++t)
      w[t] = (std::uint32_t{b[4 * t]} << 24) | (std::uint32_t{b[4 * t + 1]} << 16) | (std::uint32_t{b[4 * t + 2]} << 8) |
             std::uint32_t{b[4 * t + 3]};
    for (int t = 16; t < 80; ++t) w[t] = rotl(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1);
    std::uint32_t a = h_[0], bb = h_[1], c = h_[2], d = h_[3], e = h_[4];
    for (int t = 0; t < 80; ++t) {
      std::uint32_t f, k;
      if (t < 20) {
        f = (bb & c) | (~bb & d);
        k = 0x5A827999u;
      } else if (t < 40) {
        f = bb ^ c ^ d;
        k = 0x6ED9EBA1u;
      } else if (t < 60) {
        f = (bb & c) | (bb & d) | (c & d);
        k = 0x8F1BBCDCu;
      } else {
        f = bb ^ c ^ d;
        k = 0xCA62C1D6u;
      }
      const std::uint32_t next = rotl(a, 5) + f + e + k + w[t];
      e = d;
      d = c;
      c = rotl(bb, 30);
      bb = a;
      a = next;
    }
    h_[0] += a;
    h_[1] += bb;
    h_[2] += c;
    h_[3] += d;
    h_[4] += e;
  }

  std::array<std::uint32_t, 5> h_{0x67452301u, 0xEFCDAB89u, 0x98BADCFEu, 0x10325476u, 0xC3D2E1F0u};
  std::array<std::uint8_t, 64> block_{};
  std::size_t fill_ = 0;
  std::uint64_t length_ = 0;
};

}  // namespace oxir::io
