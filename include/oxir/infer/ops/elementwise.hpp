#pragma once
// Inference rules: elementwise operators (see docs/inference.md).

#include "../engine.hpp"

namespace oxir::infer::ops {

inline void register_elementwise_ops(OpRegistry& r) { (void)r; }

}  // namespace oxir::infer::ops
