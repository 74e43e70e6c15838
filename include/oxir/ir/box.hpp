#pragma once
// Box<T>: an optional, heap-allocated T with value semantics (deep copy, deep ==).

#include <memory>
#include <type_traits>
#include <utility>

namespace oxir {

/// Holds zero or one T on the heap and behaves like a value: copies are deep, `==` compares the
/// contents (two empty boxes are equal). Lets recursive types (a Graph in an Attribute of a Node
/// of a Graph, a Type in a sequence Type) hold each other without raw owning pointers. T may be
/// incomplete where Box<T> is declared.
template <class T>
class Box {
 public:
  /// An empty box.
  constexpr Box() noexcept = default;
  /// A box holding a copy of `value`.
  Box(const T& value) : ptr_(std::make_unique<T>(value)) {}  // NOLINT(google-explicit-constructor)
  /// A box holding `value`, moved in.
  Box(T&& value) : ptr_(std::make_unique<T>(std::move(value))) {}  // NOLINT(google-explicit-constructor)
  Box(const Box& other) : ptr_(other.ptr_ ? std::make_unique<T>(*other.ptr_) : nullptr) {}
  Box(Box&&) noexcept = default;
  Box& operator=(const Box& other) {
    if (this != &other) ptr_ = other.ptr_ ? std::make_unique<T>(*other.ptr_) : nullptr;
    return *this;
  }
  Box& operator=(Box&&) noexcept = default;
  Box& operator=(const T& value) { return *this = Box(value); }
  Box& operator=(T&& value) { return *this = Box(std::move(value)); }
  ~Box() = default;

  /// Constructs a new T in place, replacing any held value.
  template <class... Args>
  T& emplace(Args&&... args) {
    ptr_ = std::make_unique<T>(std::forward<Args>(args)...);
    return *ptr_;
  }
  /// Empties the box.
  void reset() noexcept { ptr_.reset(); }

  [[nodiscard]] bool has_value() const noexcept { return ptr_ != nullptr; }
  explicit operator bool() const noexcept { return has_value(); }
  [[nodiscard]] T& operator*() noexcept { return *ptr_; }
  [[nodiscard]] const T& operator*() const noexcept { return *ptr_; }
  [[nodiscard]] T* operator->() noexcept { return ptr_.get(); }
  [[nodiscard]] const T* operator->() const noexcept { return ptr_.get(); }
  /// The held value, or nullptr.
  [[nodiscard]] T* get() noexcept { return ptr_.get(); }
  [[nodiscard]] const T* get() const noexcept { return ptr_.get(); }

  friend bool operator==(const Box& a, const Box& b) {
    if (!a.ptr_ || !b.ptr_) return !a.ptr_ && !b.ptr_;
    return *a.ptr_ == *b.ptr_;
  }

 private:
  std::unique_ptr<T> ptr_;
};

}  // namespace oxir
