#pragma once
// Bytes allocated through the global operator new while a CountAllocations lives: in total, and
// the most held at once. The counting replacements of operator new and delete are defined once
// for the whole oxir_tests binary, in test_value_semantics.cpp.
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace oxir_test {
inline std::atomic<std::size_t> g_allocated{0};
inline std::atomic<bool> g_counting{false};
/// Bytes allocated minus bytes freed since counting started (blocks allocated before and freed
/// meanwhile count negative), and its maximum.
inline std::atomic<std::int64_t> g_live{0};
inline std::atomic<std::int64_t> g_peak{0};

inline void count_allocation(std::size_t n) {
  g_allocated.fetch_add(n, std::memory_order_relaxed);
  const auto live = g_live.fetch_add(static_cast<std::int64_t>(n), std::memory_order_relaxed) + static_cast<std::int64_t>(n);
  auto peak = g_peak.load(std::memory_order_relaxed);
  while (live > peak && !g_peak.compare_exchange_weak(peak, live, std::memory_order_relaxed)) {
  }
}
inline void count_free(std::size_t n) { g_live.fetch_sub(static_cast<std::int64_t>(n), std::memory_order_relaxed); }

/// Counts from construction to destruction (or to stop()); not reentrant.
class CountAllocations {
 public:
  CountAllocations() {
    g_allocated = 0;
    g_live = 0;
    g_peak = 0;
    g_counting = true;
  }
  ~CountAllocations() { g_counting = false; }
  CountAllocations(const CountAllocations&) = delete;
  CountAllocations& operator=(const CountAllocations&) = delete;
  /// Stops counting; returns the bytes allocated meanwhile.
  std::size_t stop() {
    g_counting = false;
    return g_allocated.load();
  }
  /// The most bytes held at once while counting (valid after stop()).
  [[nodiscard]] std::size_t peak() const { return static_cast<std::size_t>(g_peak.load()); }
};

/// The most bytes held at once while `f()` runs.
template <class F>
std::size_t peak_during(F&& f) {
  CountAllocations count;
  f();
  count.stop();
  return count.peak();
}
}  // namespace oxir_test
