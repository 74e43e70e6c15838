#pragma once
// Buffer: immutable, shared tensor payload bytes (owned, a view into a mapped file, or loaded lazily).

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "../core/error.hpp"

namespace oxir {

/// Immutable bytes shared by every copy of a Buffer: copying a Buffer (and so a Tensor, Graph or
/// Model) never copies payload. Three kinds of source: bytes the buffer owns, a view into memory
/// kept alive by an owner (e.g. a memory-mapped model file), and a loader run on first access
/// (external data). Writing goes through `mutable_bytes()`, which detaches this buffer first.
class Buffer {
 public:
  /// Where a buffer's bytes live. Implementations must make bytes() safe to call concurrently.
  class Source {
   public:
    virtual ~Source() = default;
    /// The bytes, loading them first if needed; throws oxir::Error when loading fails.
    [[nodiscard]] virtual std::span<const std::byte> bytes() const = 0;
    /// Byte count, known without loading.
    [[nodiscard]] virtual std::size_t size() const noexcept = 0;
    /// False while a lazy source has not loaded yet.
    [[nodiscard]] virtual bool is_loaded() const noexcept { return true; }

    /// The bytes at an address aligned to `alignment` (≤ 16): the bytes themselves when they
    /// are aligned, else an aligned copy made once and kept (views into a file are often not).
    [[nodiscard]] std::span<const std::byte> aligned_bytes(std::size_t alignment) const {
      auto b = bytes();
      if (alignment <= 1 || reinterpret_cast<std::uintptr_t>(b.data()) % alignment == 0) return b;
      std::call_once(aligned_once_, [&] { aligned_copy_.assign(b.begin(), b.end()); });
      return {aligned_copy_.data(), aligned_copy_.size()};
    }

   private:
    mutable std::once_flag aligned_once_;
    mutable std::vector<std::byte> aligned_copy_;  // operator new aligns to at least 16
  };

  /// An empty buffer.
  Buffer() = default;

  /// A buffer owning `bytes` (moved in, no copy).
  [[nodiscard]] static Buffer owned(std::vector<std::byte> bytes) {
    return Buffer(std::make_shared<Owned>(std::move(bytes)));
  }
  /// A buffer owning a copy of `bytes`.
  [[nodiscard]] static Buffer copy_of(std::span<const std::byte> bytes) {
    return owned(std::vector<std::byte>(bytes.begin(), bytes.end()));
  }
  /// A zero-copy view of `bytes`, valid as long as `keeper` (which owns the memory) lives.
  [[nodiscard]] static Buffer view(std::shared_ptr<const void> keeper, std::span<const std::byte> bytes) {
    return Buffer(std::make_shared<View>(std::move(keeper), bytes));
  }
  /// A buffer of `size` bytes produced by `load` on first access (once, thread-safe). If `load`
  /// throws, the error propagates to that access and the next access tries again.
  [[nodiscard]] static Buffer lazy(std::size_t size, std::function<Buffer()> load) {
    return Buffer(std::make_shared<Lazy>(size, std::move(load)));
  }
  /// A buffer over a custom source.
  [[nodiscard]] static Buffer from_source(std::shared_ptr<Source> source) { return Buffer(std::move(source)); }

  /// The bytes (loads a lazy buffer).
  [[nodiscard]] std::span<const std::byte> bytes() const {
    return src_ ? src_->bytes() : std::span<const std::byte>{};
  }
  /// The bytes at an address aligned for any fixed-width element type.
  [[nodiscard]] std::span<const std::byte> aligned_bytes(std::size_t alignment = 16) const {
    return src_ ? src_->aligned_bytes(alignment) : std::span<const std::byte>{};
  }
  /// Byte count (does not load).
  [[nodiscard]] std::size_t size() const noexcept { return src_ ? src_->size() : 0; }
  [[nodiscard]] bool empty() const noexcept { return size() == 0; }
  /// False for a lazy buffer not yet loaded.
  [[nodiscard]] bool is_loaded() const noexcept { return !src_ || src_->is_loaded(); }
  /// True when both buffers are the same shared storage (so no bytes were copied between them).
  [[nodiscard]] bool shares_storage_with(const Buffer& other) const noexcept {
    return src_ != nullptr && src_ == other.src_;
  }
  /// The source, for code that needs to know where bytes live (e.g. a writer keeping external data).
  [[nodiscard]] const std::shared_ptr<Source>& source() const noexcept { return src_; }

  /// Writable bytes. Copies first unless this buffer is the sole owner of bytes it owns, so
  /// writing never changes another Buffer, Tensor or Model (copy on write). Not thread-safe
  /// against concurrent use of this same Buffer object.
  [[nodiscard]] std::span<std::byte> mutable_bytes() {
    auto* owned_src = dynamic_cast<Owned*>(src_.get());
    if (owned_src == nullptr || src_.use_count() != 1) {
      auto b = bytes();
      auto fresh = std::make_shared<Owned>(std::vector<std::byte>(b.begin(), b.end()));
      owned_src = fresh.get();
      src_ = std::move(fresh);
    }
    return {owned_src->data.data(), owned_src->data.size()};
  }

  /// Same bytes (loading lazy buffers if needed).
  friend bool operator==(const Buffer& a, const Buffer& b) {
    if (a.src_ == b.src_) return true;
    if (a.size() != b.size()) return false;
    auto x = a.bytes();
    auto y = b.bytes();
    return x.size() == y.size() && (x.empty() || std::memcmp(x.data(), y.data(), x.size()) == 0);
  }

 private:
  struct Owned final : Source {
    explicit Owned(std::vector<std::byte> d) : data(std::move(d)) {}
    std::span<const std::byte> bytes() const override { return {data.data(), data.size()}; }
    std::size_t size() const noexcept override { return data.size(); }
    std::vector<std::byte> data;
  };
  struct View final : Source {
    View(std::shared_ptr<const void> k, std::span<const std::byte> b) : keeper(std::move(k)), view(b) {}
    std::span<const std::byte> bytes() const override { return view; }
    std::size_t size() const noexcept override { return view.size(); }
    std::shared_ptr<const void> keeper;
    std::span<const std::byte> view;
  };
  struct Lazy final : Source {
    Lazy(std::size_t n, std::function<Buffer()> f) : expected(n), load(std::move(f)) {}
    std::span<const std::byte> bytes() const override {
      std::lock_guard lock(mutex);
      if (!loaded) {
        Buffer b = load();
        if (b.size() != expected)
          throw Error("lazy data: loaded " + std::to_string(b.size()) + " bytes, expected " +
                      std::to_string(expected));
        if (b.src_) (void)b.src_->bytes();
        result = std::move(b.src_);
        loaded = true;
      }
      return result ? result->bytes() : std::span<const std::byte>{};
    }
    std::size_t size() const noexcept override { return expected; }
    bool is_loaded() const noexcept override {
      std::lock_guard lock(mutex);
      return loaded;
    }
    std::size_t expected;
    std::function<Buffer()> load;
    mutable std::mutex mutex;
    mutable bool loaded = false;
    mutable std::shared_ptr<Source> result;
  };

  explicit Buffer(std::shared_ptr<Source> s) : src_(std::move(s)) {}
  std::shared_ptr<Source> src_;
};

}  // namespace oxir
