#pragma once
// Bytes allocated through the global operator new while a CountAllocations lives. The counting
// replacement of operator new is defined once for the whole oxir_tests binary, in
// test_value_semantics.cpp.
#include <atomic>
#include <cstddef>

namespace oxir_test {
inline std::atomic<std::size_t> g_allocated{0};
inline std::atomic<bool> g_counting{false};

/// Counts from construction to destruction (or to stop()); not reentrant.
class CountAllocations {
 public:
  CountAllocations() {
    g_allocated = 0;
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
};
}  // namespace oxir_test
