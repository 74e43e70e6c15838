#pragma once
// Shape and type inference: oxir::infer_shapes(model, options) fills value_info and graph-output
// types with sizes in the model's own dim_params, unified across the whole model. See
// docs/inference.md.

#include "infer/engine.hpp"
#include "infer/ops/all.hpp"

namespace oxir {

using infer::InferOptions;
using infer::InferReport;

/// Infers the types and shapes of every value of `model` (main graph and subgraphs) and writes
/// them into value_info and the graph outputs. Never throws for a malformed model unless
/// options.strict is set (then oxir::Error names the first conflict or malformed node).
inline InferReport infer_shapes(Model& model, const InferOptions& options = {}) {
  infer::Engine e(model, options, infer::OpRegistry::standard());
  return e.run();
}

}  // namespace oxir
