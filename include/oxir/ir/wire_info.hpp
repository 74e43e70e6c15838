#pragma once
// What a message carried on the wire beyond its content: which default-valued fields were
// present, and fields from a newer schema that oxir does not know.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

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
///
/// Almost every message has none, and every Dim, Type, ValueInfo, Node and Attribute holds one
/// of these: it is one pointer (8 bytes, null when empty), not a 32-byte std::string. It reads
/// like a string (`empty`, `size`, `data`, `view`, `str`, `+=`, `append`, `==`) and converts from
/// and to one.
class UnknownFields {
 public:
  UnknownFields() noexcept = default;
  UnknownFields(std::string bytes) { assign(std::move(bytes)); }  // NOLINT: reads like a string
  UnknownFields(std::string_view bytes) { append(bytes); }        // NOLINT
  UnknownFields(const char* bytes) : UnknownFields(std::string_view(bytes)) {}  // NOLINT
  UnknownFields(const UnknownFields& o) : p_(o.empty() ? nullptr : std::make_unique<std::string>(*o.p_)) {}
  UnknownFields(UnknownFields&&) noexcept = default;
  UnknownFields& operator=(const UnknownFields& o) {
    if (this != &o) {
      if (o.empty()) clear();
      else if (p_) *p_ = *o.p_;
      else p_ = std::make_unique<std::string>(*o.p_);
    }
    return *this;
  }
  UnknownFields& operator=(UnknownFields&&) noexcept = default;
  ~UnknownFields() = default;

  [[nodiscard]] bool empty() const noexcept { return !p_ || p_->empty(); }
  [[nodiscard]] std::size_t size() const noexcept { return p_ ? p_->size() : 0; }
  [[nodiscard]] const char* data() const noexcept { return p_ ? p_->data() : ""; }
  [[nodiscard]] std::string_view view() const noexcept { return p_ ? std::string_view(*p_) : std::string_view(); }
  operator std::string_view() const noexcept { return view(); }  // NOLINT: reads like a string
  /// The bytes as a string (a shared empty one when there are none).
  [[nodiscard]] const std::string& str() const noexcept {
    static const std::string none;
    return p_ ? *p_ : none;
  }

  void clear() noexcept { p_.reset(); }
  void assign(std::string bytes) {
    if (bytes.empty()) clear();
    else if (p_) *p_ = std::move(bytes);
    else p_ = std::make_unique<std::string>(std::move(bytes));
  }
  UnknownFields& append(const char* d, std::size_t n) {
    if (n == 0) return *this;
    if (!p_) p_ = std::make_unique<std::string>();
    p_->append(d, n);
    return *this;
  }
  UnknownFields& append(std::string_view s) { return append(s.data(), s.size()); }
  UnknownFields& operator+=(std::string_view s) { return append(s); }

  /// The bytes of `a` followed by those of `b`.
  friend std::string operator+(const UnknownFields& a, std::string_view b) {
    std::string out;
    out.reserve(a.size() + b.size());
    out.append(a.view()).append(b);
    return out;
  }
  friend bool operator==(const UnknownFields& a, const UnknownFields& b) noexcept { return a.view() == b.view(); }

 private:
  std::unique_ptr<std::string> p_;
};

}  // namespace oxir
