#pragma once
// Inference rules: misc operators (see docs/inference.md).

#include "../engine.hpp"

namespace oxir::infer::ops {

inline void register_misc_ops(OpRegistry& r) { (void)r; }

}  // namespace oxir::infer::ops
