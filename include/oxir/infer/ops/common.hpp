#pragma once
// Checks shared by the operator families' rules.

#include <cstdint>
#include <string>
#include <string_view>

#include "../context.hpp"

namespace oxir::infer::ops {

/// Fails unless the node has between `min` and `max` inputs with inputs 0..min-1 given.
inline void require_inputs(const InferContext& c, std::size_t min, std::size_t max) {
  if (c.input_count() < min || c.input_count() > max)
    c.fail("expects " + (min == max ? std::to_string(min) : std::to_string(min) + " to " + std::to_string(max)) +
           " inputs, got " + std::to_string(c.input_count()));
  for (std::size_t i = 0; i < min; ++i)
    if (!c.has_input(i)) c.fail("required input " + std::to_string(i) + " is missing");
}

/// Fails when the node's domain is imported at an opset older than `since`, where `op` appeared.
inline void require_opset(const InferContext& c, std::int64_t since, std::string_view op) {
  if (c.opset() < since)
    c.fail(std::string(op) + " needs opset " + std::to_string(since) + " of its domain (model imports " +
           std::to_string(c.opset()) + ")");
}

}  // namespace oxir::infer::ops
