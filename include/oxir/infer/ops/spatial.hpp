#pragma once
// Inference rules: spatial operators (see docs/inference.md).

#include "../engine.hpp"

namespace oxir::infer::ops {

inline void register_spatial_ops(OpRegistry& r) { (void)r; }

}  // namespace oxir::infer::ops
