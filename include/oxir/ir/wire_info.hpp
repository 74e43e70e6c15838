#pragma once
// What a message carried on the wire beyond its content: which default-valued fields were
// present, and fields from a newer schema that oxir does not know.

#include <cstdint>
#include <string>

namespace oxir {

/// Set of field numbers (1..31) that were present on the wire although they held their default
/// value (e.g. an explicit `domain: ""`). The writer emits such fields again so that a round trip
/// is byte-exact; a field with a non-default value is always written. Being wire detail, not
/// content, it never makes two messages unequal.
class FieldPresence {
 public:
  /// True if field `number` was marked present.
  [[nodiscard]] constexpr bool has(int number) const noexcept {
    return number > 0 && number < 32 && ((bits_ >> number) & 1U) != 0;
  }
  /// Marks field `number` present (or not).
  constexpr void set(int number, bool present = true) noexcept {
    if (number <= 0 || number >= 32) return;
    const auto bit = std::uint32_t{1} << number;
    bits_ = present ? (bits_ | bit) : (bits_ & ~bit);
  }
  /// Raw mask, bit n = field n.
  [[nodiscard]] constexpr std::uint32_t mask() const noexcept { return bits_; }
  friend constexpr bool operator==(FieldPresence, FieldPresence) noexcept { return true; }

 private:
  std::uint32_t bits_ = 0;
};

/// Serialized fields (tag + value, as read) that this version of oxir does not know, kept so
/// that a model from a newer ONNX is written back unchanged. Compared by content.
using UnknownFields = std::string;

}  // namespace oxir
