#pragma once
// Inference rules: shape operators (see docs/inference.md).

#include "../engine.hpp"

namespace oxir::infer::ops {

inline void register_shape_ops(OpRegistry& r) { (void)r; }

}  // namespace oxir::infer::ops
