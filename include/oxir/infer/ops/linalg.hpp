#pragma once
// Inference rules: linalg operators (see docs/inference.md).

#include "../engine.hpp"

namespace oxir::infer::ops {

inline void register_linalg_ops(OpRegistry& r) { (void)r; }

}  // namespace oxir::infer::ops
