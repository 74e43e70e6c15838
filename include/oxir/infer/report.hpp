#pragma once
// Options and the report of shape/type inference.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

// Where the inference entry points (oxir::infer_shapes, OpRegistry::standard) are defined: inline
// in every translation unit (the default), or, with OXIR_SEPARATE_INFER, only in the one that
// defines OXIR_INFER_IMPLEMENTATION before including oxir (see <oxir/infer.hpp>).
#if !defined(OXIR_SEPARATE_INFER) || defined(OXIR_INFER_IMPLEMENTATION)
#define OXIR_INFER_DEFINE_ENTRIES 1
#else
#define OXIR_INFER_DEFINE_ENTRIES 0
#endif
#if defined(OXIR_SEPARATE_INFER)
#define OXIR_INFER_ENTRY
#else
#define OXIR_INFER_ENTRY inline
#endif

namespace oxir::infer {

struct InferOptions {
  /// Throw oxir::Error at the first conflict or malformed node instead of recording a diagnostic.
  bool strict = false;
  /// Replace existing value_info and graph-output types instead of keeping them (keep mode uses
  /// them as facts, fills only what they leave unknown, and reports contradictions).
  bool overwrite = false;
  /// Also annotate model-local function bodies (FunctionProto.value_info) with the types that
  /// hold at every call site (joined: sizes that differ between calls become new symbols).
  bool annotate_functions = false;
  /// Diagnostics kept in the report (counts go on beyond it).
  std::size_t max_diagnostics = 10000;
  /// Text kept in the report's diagnostics (paths, names, messages), in bytes: a small model whose
  /// functions call each other many times, deep inside subgraphs, can produce thousands of
  /// diagnostics with paths kilobytes long. Counts go on beyond it too.
  std::size_t max_diagnostic_bytes = std::size_t{4} << 20;
  /// Also list, in InferReport::constant_values, the int64 and int32 node outputs of rank 0 or 1
  /// (in the main graph and its subgraphs) whose every element inference determined (shape computations over static
  /// sizes: Shape, Gather, Concat, Range, arithmetic, ...). Used by fold_constants.
  bool report_constant_values = false;
};

enum class Severity : std::uint8_t { Info, Warning, Error };
enum class DiagnosticKind : std::uint8_t {
  Conflict,       ///< sizes or types the model asserts both ways (3 vs 4; declared vs inferred)
  InvalidNode,    ///< a node its operator's definition rejects (missing input/attribute, bad axis…)
  UnsupportedOp,  ///< no rule (unknown domain or operator): outputs stay unknown
  TypeConstraint, ///< an input or output type the operator's type constraints do not allow
  Other,
};

struct Diagnostic {
  Severity severity = Severity::Warning;
  DiagnosticKind kind = DiagnosticKind::Other;
  std::string where;    ///< field path, e.g. "graph.node[3]" or "graph.node[2].attribute[0].g.node[1]"
  std::string node;     ///< node name (may be empty)
  std::string op_type;  ///< "Op" or "domain::Op"
  std::string message;

  [[nodiscard]] std::string to_string() const {
    std::string s = severity == Severity::Error ? "error: " : severity == Severity::Warning ? "warning: " : "info: ";
    s += where;
    if (!op_type.empty()) s += " (" + op_type + (node.empty() ? "" : " '" + node + "'") + ")";
    return s + ": " + message;
  }
};

/// A node output whose contents inference determined (InferOptions::report_constant_values).
/// A subgraph's values hold in every run of it (every iteration of a Loop body).
struct ConstantValue {
  std::string name;
  std::string graph = "graph";            ///< the graph defining it, as in Diagnostic::where: "graph" (the
                                          ///< main graph), "graph.node[3].attribute[0].g", ...
  std::int32_t elem_type = 0;             ///< TensorProto.DataType: 7 (INT64) or 6 (INT32)
  std::vector<std::int64_t> dims;         ///< {} (a scalar) or {n}
  std::vector<std::int64_t> values;       ///< row-major
};

struct InferReport {
  std::vector<Diagnostic> diagnostics;
  std::size_t nodes = 0;              ///< node visits (subgraphs and function bodies included)
  std::size_t nodes_unsupported = 0;  ///< nodes without a rule
  std::size_t nodes_failed = 0;       ///< nodes a rule rejected
  std::size_t values_typed = 0;       ///< node outputs with an inferred type
  std::size_t values_unknown = 0;     ///< node outputs left unknown
  std::size_t conflicts = 0;          ///< error conflicts (see Severity: sizes in a subgraph that may not run are warnings)
  std::size_t type_errors = 0;        ///< types an operator's type constraints do not allow
  std::size_t attribute_errors = 0;   ///< attributes the operator's version does not define
  std::size_t symbols = 0;            ///< symbols in the model's table
  /// Diagnostics not kept in `diagnostics` (over max_diagnostics or max_diagnostic_bytes); each
  /// is still counted above (conflicts, type_errors, nodes_failed, ...).
  std::size_t diagnostics_dropped = 0;
  /// Filled only with InferOptions::report_constant_values, in node order.
  std::vector<ConstantValue> constant_values;

  [[nodiscard]] bool has_errors() const {
    for (const auto& d : diagnostics)
      if (d.severity == Severity::Error) return true;
    return nodes_failed > 0 || conflicts > 0 || type_errors > 0 || attribute_errors > 0;
  }
};

}  // namespace oxir::infer
