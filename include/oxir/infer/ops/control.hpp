#pragma once
// Inference rules: control operators (see docs/inference.md).

#include "../engine.hpp"

namespace oxir::infer::ops {

inline void register_control_ops(OpRegistry& r) { (void)r; }

}  // namespace oxir::infer::ops
