#pragma once
// What an operator's inference rule sees: its node, the inferred types (and symbolic contents)
// of its inputs, constant inputs, attributes, the model's symbol table; and where it writes its
// outputs' types. Rules are plain functions `void rule(InferContext&)` registered per
// (domain, op_type) in an OpRegistry (registry.hpp).
//
// Conventions for rules:
//  - Never claim what the model does not imply: when a size cannot be determined, use
//    ctx.fresh() (a new symbol), or leave the rank unknown (ValueType::tensor(elem)).
//  - Malformed nodes (missing required inputs/attributes, axis out of range, wrong input count):
//    call ctx.fail("message"); it throws and the engine records a diagnostic naming the node and
//    leaves the outputs unknown.
//  - Sizes the operator's semantics force equal: ctx.unify(a, b, "what"); a provable conflict
//    becomes a diagnostic (or an exception in strict mode).
//  - Absent optional inputs: has_input(i) is false; input_type(i) is then Unknown.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "../ir/graph.hpp"
#include "../ir/tensor.hpp"
#include "symbols.hpp"
#include "value_type.hpp"

namespace oxir::infer {

class Engine;
struct Scope;

/// Largest rank a rule builds a shape for. A rank above it only comes from hostile input (a
/// declared length of 2^62 for a shape vector, say); rules fail rather than allocate for it.
inline constexpr std::int64_t kMaxRank = 4096;

/// Thrown by InferContext::fail; caught by the engine (never escapes infer_shapes).
struct RuleFailure {
  std::string message;
};

class InferContext {
 public:
  InferContext(Engine& e, Scope& s, const Node& n, std::size_t index, std::int64_t opset)
      : engine_(&e), scope_(&s), node_(&n), index_(index), opset_(opset) {}

  // ---- the node ----
  [[nodiscard]] const Node& node() const noexcept { return *node_; }
  /// The opset version of the node's domain in effect (model or function opset_import).
  [[nodiscard]] std::int64_t opset() const noexcept { return opset_; }
  /// The field path of the node, e.g. "graph.node[3]" (built on demand).
  [[nodiscard]] std::string path() const;

  // ---- inputs ----
  [[nodiscard]] std::size_t input_count() const noexcept { return node_->inputs.size(); }
  /// Input i is given (exists and is not the empty name).
  [[nodiscard]] bool has_input(std::size_t i) const noexcept { return node_->has_input(i); }
  /// Inferred type of input i (Unknown if absent or not known).
  [[nodiscard]] const ValueType& input_type(std::size_t i) const;
  /// Element type of input i (UNDEFINED if unknown).
  [[nodiscard]] DataType input_elem(std::size_t i) const { return input_type(i).elem; }
  /// Shape of input i if it is a tensor of known rank, else nullptr.
  [[nodiscard]] const Dims* input_shape(std::size_t i) const {
    const auto& t = input_type(i);
    return t.has_shape() ? &*t.shape : nullptr;
  }
  [[nodiscard]] std::optional<std::int64_t> input_rank(std::size_t i) const { return input_type(i).rank(); }
  /// Symbolic contents of input i (integer tensors of rank 0/1 whose elements are known as
  /// sizes: from Shape, Constant, initializers, arithmetic on them…), else nullptr. Contents of
  /// tensors of rank 2 and more are not returned here: rules index these as vectors.
  [[nodiscard]] const Dims* input_value(std::size_t i) const;
  /// Symbolic contents of input i of any rank, flat in row-major order (Reshape, Transpose,
  /// Slice and pass-through rules carry those of rank 2 and more, e.g. exporters' pad tensors).
  [[nodiscard]] const Dims* input_value_flat(std::size_t i) const;
  /// Contents of 1-D input i of which only some elements are known (ValueInfoState::
  /// partial_value), unresolved; nullptr when there are none (or input_value() has them all).
  [[nodiscard]] const PartialDims* input_partial_value(std::size_t i) const;
  /// The same for input i of any rank, flat in row-major order (as input_value_flat).
  [[nodiscard]] const PartialDims* input_partial_value_flat(std::size_t i) const;
  /// The elements of 1-D input i, resolved, as far as they are known: all of them when
  /// input_value() has them, some when input_partial_value() has them, else nullopt.
  [[nodiscard]] std::optional<PartialDims> input_elements(std::size_t i) const;
  /// The tensor itself when input i is an initializer (not overridable by a graph input) or the
  /// output of a Constant node, else nullptr.
  [[nodiscard]] const Tensor* input_constant(std::size_t i) const;
  /// Whether every element of input i is known to be nonzero (ValueInfoState::all_nonzero).
  [[nodiscard]] bool input_all_nonzero(std::size_t i) const;
  /// Integer contents of a constant input (any integer element type), else nullopt.
  [[nodiscard]] std::optional<std::vector<std::int64_t>> input_ints(std::size_t i) const;
  /// Floating-point contents of a constant input (float/double/float16/bfloat16), else nullopt.
  [[nodiscard]] std::optional<std::vector<double>> input_floats(std::size_t i) const;

  // ---- attributes ----
  [[nodiscard]] const Attribute* attr(std::string_view name) const { return node_->find_attribute(name); }
  [[nodiscard]] bool has_attr(std::string_view name) const { return attr(name) != nullptr; }
  [[nodiscard]] std::int64_t attr_int(std::string_view name, std::int64_t fallback) const;
  [[nodiscard]] float attr_float(std::string_view name, float fallback) const;
  [[nodiscard]] std::string attr_string(std::string_view name, std::string_view fallback) const;
  [[nodiscard]] std::optional<std::vector<std::int64_t>> attr_ints(std::string_view name) const;
  [[nodiscard]] std::optional<std::vector<float>> attr_floats(std::string_view name) const;
  /// An INT attribute that must be present (fails otherwise).
  [[nodiscard]] std::int64_t require_int(std::string_view name) const;

  // ---- outputs ----
  [[nodiscard]] std::size_t output_count() const noexcept { return node_->outputs.size(); }
  [[nodiscard]] bool has_output(std::size_t i) const noexcept { return node_->has_output(i); }
  /// Sets output i's type (ignored if the output is not requested).
  void set_output(std::size_t i, ValueType t);
  /// Sets output i's type to a tensor of `elem` and `shape`.
  void set_output(std::size_t i, DataType elem, Dims shape) { set_output(i, ValueType::tensor(elem, std::move(shape))); }
  /// Sets output i's symbolic contents (call after set_output; for int tensors of rank 0/1).
  /// Ignored past kMaxSymbolicElements or the model's budget of contents (kValueElementsBase).
  void set_output_value(std::size_t i, Dims value);
  /// Sets output i's contents where only some elements are known (call after set_output; for
  /// int tensors, row-major): all known is set_output_value, none known sets nothing. The same
  /// limits.
  void set_output_elements(std::size_t i, PartialDims value);
  /// Records that every element of output i is nonzero (call after set_output).
  void set_output_all_nonzero(std::size_t i);
  /// Output i's type as set so far (Unknown if not set).
  [[nodiscard]] const ValueType& output_type(std::size_t i) const;

  // ---- sizes ----
  [[nodiscard]] SymbolTable& symbols() const;
  /// A new symbol for a size nothing determines. Drawn from the model's budget: once it is spent
  /// this throws (the engine leaves the node's outputs not set yet unknown, with one warning).
  [[nodiscard]] DimExpr fresh() const;
  /// e with every merged symbol replaced by its representative/number.
  [[nodiscard]] DimExpr resolve(const DimExpr& e) const;
  /// Asserts a == b (operator semantics imply it). Returns false on a provable conflict, after
  /// recording a diagnostic that mentions `what` (throws in strict mode). Inside a subgraph that
  /// may not run (an If branch, a loop body) nothing is merged: the equality holds only in the
  /// runs that execute it, not for the sizes outside.
  bool unify(const DimExpr& a, const DimExpr& b, std::string_view what) const;
  /// e >= 0 in every execution that succeeds: ops::nonneg (symbols are sizes), or through the
  /// model's facts (facts.hpp), e.g. a convolution's floor((T+1)/4)-1 frames is >= 0 because a
  /// main-graph tensor has that many. For the rules' integer arithmetic on sizes (Div truncates
  /// like floor only for a non-negative dividend; a Slice bound that may be negative counts from
  /// the end).
  [[nodiscard]] bool provably_nonneg(const DimExpr& e) const;
  /// Multidirectional (numpy) broadcasting of shapes; conflicts (3 vs 4) are diagnosed.
  [[nodiscard]] Dims broadcast(std::span<const Dims* const> shapes) const;
  [[nodiscard]] Dims broadcast(const Dims& a, const Dims& b) const {
    const Dims* s[] = {&a, &b};
    return broadcast(std::span<const Dims* const>(s));
  }
  /// Normalises an axis in [-rank, rank) to [0, rank); fails if out of range.
  [[nodiscard]] std::int64_t normalize_axis(std::int64_t axis, std::int64_t rank, std::string_view what = "axis") const;

  // ---- diagnostics ----
  /// Abandons the rule: the node is malformed or unsupported. Throws RuleFailure.
  [[noreturn]] void fail(std::string message) const { throw RuleFailure{std::move(message)}; }
  /// Records a warning naming this node; the rule goes on.
  void warn(std::string message) const;

  // ---- subgraphs (control flow) ----
  /// Infers the GRAPH attribute `attr` with the given input types (and optional symbolic
  /// contents) in a scope nested in this node's scope; returns its outputs' states. Values the
  /// subgraph declares win over `inputs` where more precise. `runs_with_node`: the subgraph runs
  /// whenever the node does (an If branch a constant condition picks). Otherwise (the default:
  /// a branch, a loop body that may run zero times) sizes its operators equate are not merged
  /// with the sizes outside it (see unify).
  std::vector<ValueInfoState> infer_subgraph(std::string_view attr, std::vector<ValueInfoState> inputs,
                                             bool runs_with_node = false);
  /// Like infer_subgraph (a subgraph that may not run), but what this run finds inside the
  /// subgraph is not kept for writing back: a run on inputs that describe only some of its
  /// executions (one loop iteration, a probe with new symbols). The values written into the
  /// subgraph come from the infer_subgraph run, which must cover every execution.
  std::vector<ValueInfoState> probe_subgraph(std::string_view attr, std::vector<ValueInfoState> inputs);
  /// Number of formal inputs/outputs of GRAPH attribute `attr` (fails if absent).
  [[nodiscard]] std::size_t subgraph_input_count(std::string_view attr) const;
  [[nodiscard]] std::size_t subgraph_output_count(std::string_view attr) const;
  /// The rank GRAPH attribute `attr` declares for its input `i` when that is a tensor with a
  /// shape; nullopt otherwise.
  [[nodiscard]] std::optional<std::size_t> subgraph_input_rank(std::string_view attr, std::size_t i) const;

  // engine internals
  [[nodiscard]] Engine& engine() const noexcept { return *engine_; }
  [[nodiscard]] Scope& scope() const noexcept { return *scope_; }
  std::vector<std::optional<ValueInfoState>> outputs_;

 private:
  /// The state of input i (nullptr if absent or unknown here). The first kCachedInputs inputs
  /// are looked up once per node: nothing is added to the node's scope while its rule runs.
  [[nodiscard]] const ValueInfoState* input_state(std::size_t i) const;
  static constexpr std::size_t kCachedInputs = 8;

  Engine* engine_;
  Scope* scope_;
  const Node* node_;
  std::size_t index_;
  std::int64_t opset_;
  mutable const ValueInfoState* input_states_[kCachedInputs] = {};
  mutable std::uint8_t inputs_looked_up_ = 0;  ///< bit i: input_states_[i] is valid
};

}  // namespace oxir::infer
