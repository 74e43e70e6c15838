#pragma once
// Shape and type inference: oxir::infer_shapes(model, options) fills value_info and graph-output
// types with sizes in the model's own dim_params, unified across the whole model. See
// docs/inference.md.
//
// Build-time option for programs with many translation units. The engine and its operator rules
// are a lot of code, and every translation unit calling the inline infer_shapes compiles all of it
// again. Define OXIR_SEPARATE_INFER for the whole target (target_compile_definitions(app PRIVATE
// OXIR_SEPARATE_INFER)): this header then only declares infer_shapes, and exactly one source file
// of the target defines it (and OpRegistry::standard):
//
//   #define OXIR_INFER_IMPLEMENTATION
//   #include <oxir/infer.hpp>
//
// The rest of the engine (oxir::infer::Engine, OpRegistry, the rules) stays visible in both modes:
// its functions are only compiled where they are used.

#include "infer/engine.hpp"
#include "infer/ops/all.hpp"

namespace oxir {

using infer::InferOptions;
using infer::InferReport;

/// Infers the types and shapes of every value of `model` (main graph and subgraphs) and writes
/// them into value_info and the graph outputs. Never throws for a malformed model unless
/// options.strict is set (then oxir::Error names the first conflict or malformed node).
#if OXIR_INFER_DEFINE_ENTRIES
OXIR_INFER_ENTRY InferReport infer_shapes(Model& model, const InferOptions& options = {}) {
  infer::Engine e(model, options, infer::OpRegistry::standard());
  return e.run();
}
#else
InferReport infer_shapes(Model& model, const InferOptions& options = {});
#endif

}  // namespace oxir
