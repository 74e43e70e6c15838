#pragma once
// The built-in rule set: every family registers its operators here.

#include "../registry.hpp"
#include "contrib.hpp"
#include "control.hpp"
#include "elementwise.hpp"
#include "linalg.hpp"
#include "loss.hpp"
#include "misc.hpp"
#include "newer.hpp"
#include "shape.hpp"
#include "spatial.hpp"

namespace oxir::infer {

#if OXIR_INFER_DEFINE_ENTRIES
OXIR_INFER_ENTRY const OpRegistry& OpRegistry::standard() {
  static const OpRegistry reg = [] {
    OpRegistry r;
    ops::register_elementwise_ops(r);
    ops::register_shape_ops(r);
    ops::register_linalg_ops(r);
    ops::register_spatial_ops(r);
    ops::register_misc_ops(r);
    ops::register_control_ops(r);
    ops::register_loss_ops(r);
    ops::register_newer_ops(r);  // may refine rules for opsets newer than 17
    ops::register_contrib_ops(r);  // ONNX Runtime's com.microsoft operators
    return r;
  }();
  return reg;
}
#endif

}  // namespace oxir::infer
