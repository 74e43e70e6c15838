#pragma once
// Inference rules: sequences and optionals (default domain), the classical-ML operators of
// ai.onnx.ml and the optimizers of ai.onnx.preview.training.
//
// Sequence element types record what every element shares: a dim on which elements may differ is
// a fresh symbol (a placeholder). Taking one element out (SequenceAt) therefore replaces bare
// fresh symbols by new ones, so two elements of one sequence are never claimed to be equal where
// the model does not imply it.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "../engine.hpp"
#include "common.hpp"

namespace oxir::infer::ops {

namespace misc_detail {

inline const char* const kMl = "ai.onnx.ml";
inline const char* const kTraining = "ai.onnx.preview.training";

/// Element type from a `dtype`-like attribute value (fails on values onnx does not define).
inline DataType data_type_of_attr(InferContext& c, std::int64_t v, const char* name) {
  if (v <= 0 || v > 1000 || !is_known(static_cast<DataType>(v)))
    c.fail("attribute '" + std::string(name) + "' is not a valid element type: " + std::to_string(v));
  return static_cast<DataType>(v);
}

/// The type a tensor input must have: fails for known non-tensor kinds.
inline const ValueType& tensor_input(InferContext& c, std::size_t i, const char* what) {
  const auto& t = c.input_type(i);
  if (!t.is_unknown() && !t.is_tensor()) c.fail(std::string(what) + " must be a tensor");
  return t;
}

/// The common type of tensors: agreeing element types (unknown ones are skipped), and the shape
/// on which all agree dim by dim (differing dims: fresh; differing or unknown ranks: unknown).
inline ValueType common_tensor_type(InferContext& c, const std::vector<const ValueType*>& ts) {
  DataType elem = DataType::UNDEFINED;
  for (auto* t : ts) {
    if (t->elem == DataType::UNDEFINED) continue;
    if (elem == DataType::UNDEFINED)
      elem = t->elem;
    else if (elem != t->elem)
      c.fail("elements of a sequence must share one element type (" + std::string(data_type_name(elem)) + " vs " +
             std::string(data_type_name(t->elem)) + ")");
  }
  if (ts.empty()) return ValueType::tensor(elem);
  std::optional<std::size_t> rank;
  for (auto* t : ts) {
    if (!t->has_shape()) return ValueType::tensor(elem);
    if (rank && *rank != t->shape->size()) return ValueType::tensor(elem);
    rank = t->shape->size();
  }
  Dims out;
  out.reserve(*rank);
  for (std::size_t k = 0; k < *rank; ++k) {
    const DimExpr first = c.resolve((*ts[0]->shape)[k]);
    bool same = true;
    for (std::size_t j = 1; j < ts.size() && same; ++j) same = c.resolve((*ts[j]->shape)[k]) == first;
    out.push_back(same ? first : c.fresh());
  }
  return ValueType::tensor(elem, std::move(out));
}

/// The element type of a sequence input (fails for known non-sequence kinds).
inline ValueType sequence_element(InferContext& c, std::size_t i) {
  const auto& s = c.input_type(i);
  if (s.is_unknown()) return ValueType::tensor(DataType::UNDEFINED);
  if (s.kind != ValueType::Kind::Sequence) c.fail("input " + std::to_string(i) + " must be a sequence");
  const auto& e = s.element();
  if (e.is_unknown()) return ValueType::tensor(DataType::UNDEFINED);
  return e;
}

/// One element taken out of a sequence: bare fresh symbols (which may stand for sizes that
/// differ between elements) become new fresh symbols, unless the sequence is uniform (every
/// element has exactly those sizes).
inline ValueType refresh_element(InferContext& c, ValueType t, bool uniform) {
  if (!t.has_shape()) return t;
  for (auto& d : *t.shape) {
    const DimExpr r = c.resolve(d);
    if (auto s = r.as_symbol(); s && !uniform && c.symbols().origin(*s) == SymbolOrigin::Fresh)
      d = c.fresh();
    else
      d = r;
  }
  return t;
}

/// A sequence position: the schema asks for a scalar; a one-element vector is accepted too (the
/// onnx backend tests pass `[1]`, and ONNX Runtime accepts it), any other shape is an error.
inline void check_position(InferContext& c, std::size_t i) {
  const Dims* s = c.input_shape(i);
  if (!s || s->empty()) return;
  if (s->size() == 1) {
    const DimExpr d = c.resolve((*s)[0]);
    if (!d.is_const() || d.is(1)) return;
  }
  c.fail("position must be a scalar (or a vector of one element)");
}

}  // namespace misc_detail

// ============================================================================================
// Sequences (default domain, opset 11+)

/// The number of elements of sequence input i when known (carried as the value's contents).
inline std::optional<DimExpr> sequence_length(InferContext& c, std::size_t i) {
  if (c.input_type(i).kind != ValueType::Kind::Sequence) return std::nullopt;
  if (const Dims* v = c.input_value(i); v && v->size() == 1) return c.resolve((*v)[0]);
  return std::nullopt;
}

inline void infer_sequence_construct(InferContext& c) {
  using namespace misc_detail;
  require_opset(c, 11, "SequenceConstruct");
  if (c.input_count() < 1) c.fail("SequenceConstruct needs at least one input");
  std::vector<const ValueType*> ts;
  for (std::size_t i = 0; i < c.input_count(); ++i) {
    if (!c.has_input(i)) c.fail("input " + std::to_string(i) + " is missing");
    ts.push_back(&tensor_input(c, i, "every input"));
  }
  // Inputs of unknown type (not inferred) tell nothing about rank: treat as tensors of unknown rank.
  std::vector<ValueType> holders;
  holders.reserve(ts.size());
  for (auto*& t : ts)
    if (t->is_unknown()) {
      holders.push_back(ValueType::tensor(DataType::UNDEFINED));
      t = &holders.back();
    }
  c.set_output(0, ValueType::sequence(common_tensor_type(c, ts)));
  c.set_output_value(0, {DimExpr(static_cast<std::int64_t>(c.input_count()))});
}

inline void infer_sequence_empty(InferContext& c) {
  using namespace misc_detail;
  require_opset(c, 11, "SequenceEmpty");
  if (c.input_count() != 0) c.fail("SequenceEmpty takes no inputs");
  DataType e = DataType::FLOAT;
  if (c.has_attr("dtype")) e = data_type_of_attr(c, c.attr_int("dtype", 1), "dtype");
  c.set_output(0, ValueType::sequence(ValueType::tensor(e)));
  c.set_output_value(0, {DimExpr(0)});  // empty: its element type holds vacuously
}

inline void infer_sequence_at(InferContext& c) {
  using namespace misc_detail;
  require_opset(c, 11, "SequenceAt");
  require_inputs(c, 2, 2);
  (void)tensor_input(c, 1, "position");
  check_position(c, 1);
  auto e = sequence_element(c, 0);
  if (!e.is_tensor()) c.fail("sequence elements must be tensors");
  c.set_output(0, refresh_element(c, std::move(e), c.input_type(0).uniform));
}

inline void infer_sequence_insert(InferContext& c) {
  using namespace misc_detail;
  require_opset(c, 11, "SequenceInsert");
  require_inputs(c, 2, 3);
  if (c.has_input(2))
    check_position(c, 2);
  const ValueType e = sequence_element(c, 0);
  ValueType t = tensor_input(c, 1, "the inserted value");
  if (t.is_unknown()) t = ValueType::tensor(DataType::UNDEFINED);
  if (!e.is_tensor()) c.fail("sequence elements must be tensors");
  const auto len = sequence_length(c, 0);
  if (len && len->is(0)) {
    // Inserting into an empty sequence: its elements are exactly the inserted value's type
    // (element types must still agree).
    if (e.elem != DataType::UNDEFINED && t.elem != DataType::UNDEFINED && e.elem != t.elem)
      c.fail("inserted tensor's element type differs from the sequence's");
    if (t.elem == DataType::UNDEFINED) t.elem = e.elem;
    c.set_output(0, ValueType::sequence(std::move(t)));
  } else {
    c.set_output(0, ValueType::sequence(common_tensor_type(c, {&e, &t})));
  }
  if (len) c.set_output_value(0, {*len + 1});
}

inline void infer_sequence_erase(InferContext& c) {
  using namespace misc_detail;
  require_opset(c, 11, "SequenceErase");
  require_inputs(c, 1, 2);
  if (c.has_input(1))
    check_position(c, 1);
  c.set_output(0, ValueType::sequence(sequence_element(c, 0)));
  if (auto len = sequence_length(c, 0)) {
    if (len->is(0)) c.fail("SequenceErase on an empty sequence");
    c.set_output_value(0, {*len - 1});
  }
}

inline void infer_sequence_length(InferContext& c) {
  using namespace misc_detail;
  require_opset(c, 11, "SequenceLength");
  require_inputs(c, 1, 1);
  (void)sequence_element(c, 0);
  c.set_output(0, DataType::INT64, {});
  if (auto len = sequence_length(c, 0)) c.set_output_value(0, {*len});
}

inline void infer_concat_from_sequence(InferContext& c) {
  using namespace misc_detail;
  require_opset(c, 11, "ConcatFromSequence");
  require_inputs(c, 1, 1);
  const auto axis = c.require_int("axis");
  const auto new_axis = c.attr_int("new_axis", 0);
  if (new_axis != 0 && new_axis != 1) c.fail("new_axis must be 0 or 1");
  const ValueType e = sequence_element(c, 0);
  if (!e.is_tensor()) c.fail("sequence elements must be tensors");
  if (!e.has_shape()) return c.set_output(0, ValueType::tensor(e.elem));
  const auto r = static_cast<std::int64_t>(e.shape->size());
  Dims out;
  for (const auto& d : *e.shape) out.push_back(c.resolve(d));
  // With new_axis the size is the number of elements. Without it, it is that number times the
  // elements' common size along `axis` when that size is a number (a number in the element type
  // holds for every element; a symbol there may stand for sizes that differ between elements).
  // Otherwise the size is fresh.
  const auto len = sequence_length(c, 0);
  if (new_axis == 1) {
    const auto a = c.normalize_axis(axis, r + 1);
    out.insert(out.begin() + a, len ? *len : c.fresh());
  } else {
    const auto a = static_cast<std::size_t>(c.normalize_axis(axis, r));
    const auto each = out[a].const_value();
    out[a] = len && each ? *len * DimExpr(*each) : c.fresh();
  }
  c.set_output(0, e.elem, std::move(out));
}

/// SplitToSequence's output: a sequence of `elem` (uniform: every element has exactly its sizes,
/// the input's dims and equal chunks) of `count` elements if known.
inline void set_split_output(InferContext& c, ValueType elem, bool uniform, std::optional<DimExpr> count) {
  ValueType seq = ValueType::sequence(std::move(elem));
  seq.uniform = uniform;
  c.set_output(0, std::move(seq));
  if (count) c.set_output_value(0, {*count});
}

inline void infer_split_to_sequence(InferContext& c) {
  using namespace misc_detail;
  require_opset(c, 11, "SplitToSequence");
  require_inputs(c, 1, 2);
  const auto& x = tensor_input(c, 0, "input");
  const auto axis = c.attr_int("axis", 0);
  const auto keepdims = c.attr_int("keepdims", 1);
  std::optional<std::int64_t> split_rank;
  if (c.has_input(1)) {
    (void)tensor_input(c, 1, "split");
    split_rank = c.input_rank(1);
    if (!split_rank)
      if (auto k = c.input_constant(1)) split_rank = static_cast<std::int64_t>(k->dims.size());
    if (split_rank && *split_rank > 1) c.fail("split must be a scalar or 1-D");
  }
  if (!x.has_shape()) return c.set_output(0, ValueType::sequence(ValueType::tensor(x.elem)));
  const auto r = static_cast<std::int64_t>(x.shape->size());
  const auto a = static_cast<std::size_t>(c.normalize_axis(axis, r));
  Dims out;
  for (const auto& d : *x.shape) out.push_back(c.resolve(d));
  const DimExpr dim = out[a];
  if (!c.has_input(1)) {
    // Chunks of size 1.
    if (keepdims == 0)
      out.erase(out.begin() + static_cast<std::ptrdiff_t>(a));
    else
      out[a] = DimExpr(1);
    return set_split_output(c, ValueType::tensor(x.elem, std::move(out)), true, dim);  // one per index
  }
  const Dims* v = c.input_value(1);
  std::optional<DimExpr> count;  // the number of elements, when known
  bool uniform = false;          // every chunk has the same size
  if (split_rank && *split_rank == 0) {
    // Chunks of `split` elements; the last may be smaller.
    std::optional<DimExpr> chunk;
    if (v && v->size() == 1) {
      const DimExpr s = c.resolve((*v)[0]);
      if (auto k = s.const_value(); k && *k <= 0) c.fail("split must be positive");
      auto dk = dim.const_value();
      auto sk = s.const_value();
      if (s == dim)
        chunk = dim;
      else if (dk && sk && *dk % *sk == 0)
        chunk = s;
      else if (dk && sk && *dk < *sk)
        chunk = dim;
      if (s == dim)
        count = DimExpr(1);
      else if (dk && sk && *sk > 0)
        count = DimExpr(*dk / *sk + (*dk % *sk > 0 ? 1 : 0));  // ceil, without forming dk + sk - 1
    }
    out[a] = chunk ? *chunk : c.fresh();
    uniform = chunk.has_value();
  } else if (split_rank && *split_rank == 1 && v) {
    if (v->empty()) c.fail("split must not be empty");
    for (const auto& s : *v)
      if (auto k = c.resolve(s).const_value(); k && *k < 0) c.fail("split values must not be negative");
    c.unify(sum_of(*v), dim, "sum of split vs size of the split axis");
    const DimExpr first = c.resolve((*v)[0]);
    bool same = true;
    for (const auto& s : *v) same = same && c.resolve(s) == first;
    out[a] = same ? first : c.fresh();
    uniform = same;
    count = DimExpr(static_cast<std::int64_t>(v->size()));
  } else {
    out[a] = c.fresh();
    // 1-D split of unknown values: one element per entry, if its length is known.
    if (split_rank && *split_rank == 1)
      if (const auto& st = c.input_type(1); st.has_shape() && st.shape->size() == 1)
        if (auto k = c.resolve((*st.shape)[0]).const_value()) count = DimExpr(*k);
  }
  set_split_output(c, ValueType::tensor(x.elem, std::move(out)), uniform, count);
}

// ============================================================================================
// Optionals (default domain, opset 15+)

inline void infer_optional(InferContext& c) {
  using namespace misc_detail;
  require_opset(c, 15, "Optional");
  if (c.input_count() > 1) c.fail("Optional takes at most one input");
  const Attribute* ta = c.attr("type");
  if (ta && ta->kind() != AttributeType::TYPE_PROTO) c.fail("attribute 'type' should be a type");
  if (c.has_input(0)) {
    const auto& t = c.input_type(0);
    if (t.kind == ValueType::Kind::Optional) c.fail("Optional of an optional is not allowed");
    if (!t.is_unknown() || !ta) return c.set_output(0, ValueType::optional(t));
  }
  if (!ta) c.fail("Optional without input needs the attribute 'type'");
  ValueType t = c.engine().from_type(ta->as_type());
  if (t.kind == ValueType::Kind::Optional) c.fail("Optional of an optional is not allowed");
  c.set_output(0, ValueType::optional(std::move(t)));
}

inline void infer_optional_has_element(InferContext& c) {
  using namespace misc_detail;
  require_opset(c, 15, "OptionalHasElement");
  if (c.opset() < 18) {
    require_inputs(c, 1, 1);
    const auto& t = c.input_type(0);
    if (!t.is_unknown() && t.kind != ValueType::Kind::Optional) c.fail("input must be an optional before opset 18");
  } else if (c.input_count() > 1) {
    c.fail("expects at most one input");
  }
  c.set_output(0, DataType::BOOL, {});
}

inline void infer_optional_get_element(InferContext& c) {
  using namespace misc_detail;
  require_opset(c, 15, "OptionalGetElement");
  require_inputs(c, 1, 1);
  const auto& t = c.input_type(0);
  if (t.is_unknown()) return;
  if (t.kind == ValueType::Kind::Optional) return c.set_output(0, t.element());
  if (c.opset() < 18) c.fail("input must be an optional before opset 18");
  if (t.kind != ValueType::Kind::Tensor && t.kind != ValueType::Kind::Sequence)
    c.fail("input must be an optional, a tensor or a sequence");
  c.set_output(0, t);  // a tensor or sequence passes through
}

// ============================================================================================
// ai.onnx.ml

namespace misc_detail {

/// N of an [N,C] or [C] input: dim 0, 1 for 1-D inputs, fresh when the rank is unknown.
inline DimExpr ml_batch(InferContext& c, std::size_t i = 0) {
  const auto& t = tensor_input(c, i, "X");
  if (!t.has_shape()) return c.fresh();
  if (t.shape->size() == 1) return DimExpr(1);
  if (t.shape->size() == 2) return c.resolve((*t.shape)[0]);
  c.fail("X must be 1-D or 2-D, got rank " + std::to_string(t.shape->size()));
}
/// C of an [N,C] or [C] input, if the rank is known.
inline std::optional<DimExpr> ml_features(InferContext& c, std::size_t i = 0) {
  const auto& t = c.input_type(i);
  if (!t.has_shape() || t.shape->empty()) return std::nullopt;
  return c.resolve(t.shape->back());
}

/// Length of a list attribute (0 if absent); its kind follows the name's suffix
/// ("…strings" / "…floats" / otherwise ints).
inline std::size_t list_size(InferContext& c, const char* name) {
  const Attribute* a = c.attr(name);
  if (!a) return 0;
  const std::string_view n(name);
  const auto want = n.ends_with("strings") || n == "string_vocabulary"
                        ? AttributeType::STRINGS
                        : n.ends_with("floats") ? AttributeType::FLOATS : AttributeType::INTS;
  if (a->kind() != want)
    c.fail("attribute '" + std::string(name) + "' should be " + std::string(attribute_type_name(want)));
  switch (want) {
    case AttributeType::STRINGS: return a->as_strings().size();
    case AttributeType::FLOATS: return a->as_floats().size();
    default: return a->as_ints().size();
  }
}

/// Label type and count of a classifier from its classlabels_* attributes.
inline std::pair<DataType, std::size_t> class_labels(InferContext& c, const char* ints_name) {
  const auto ns = list_size(c, "classlabels_strings");
  const auto ni = list_size(c, ints_name);
  if (ns > 0 && ni > 0) c.fail("only one of classlabels_strings and " + std::string(ints_name) + " may be given");
  if (ns > 0) return {DataType::STRING, ns};
  return {DataType::INT64, ni};
}

inline void check_elem(InferContext& c, std::size_t i, std::initializer_list<DataType> allowed, const char* what) {
  const auto e = c.input_elem(i);
  if (e == DataType::UNDEFINED) return;
  for (auto a : allowed)
    if (a == e) return;
  c.fail(std::string(what) + " has unsupported element type " + std::string(data_type_name(e)));
}

inline constexpr std::initializer_list<DataType> kNumeric = {DataType::FLOAT, DataType::DOUBLE, DataType::INT64,
                                                              DataType::INT32};

}  // namespace misc_detail

inline void infer_ml_same(InferContext& c) {  // Binarizer, Imputer: same type and shape
  using namespace misc_detail;
  require_inputs(c, 1, 1);
  check_elem(c, 0, kNumeric, "X");
  c.set_output(0, tensor_input(c, 0, "X").is_unknown() ? ValueType::tensor(DataType::UNDEFINED) : c.input_type(0));
}

inline void infer_ml_float_same_shape(InferContext& c) {  // Normalizer, Scaler: FLOAT, same shape
  using namespace misc_detail;
  require_inputs(c, 1, 1);
  check_elem(c, 0, kNumeric, "X");
  const auto& x = tensor_input(c, 0, "X");
  if (c.node().op_type == "Normalizer") {
    const auto norm = c.attr_string("norm", "MAX");
    if (norm != "MAX" && norm != "L1" && norm != "L2") c.fail("norm must be MAX, L1 or L2");
    if (auto r = x.rank(); r && *r != 1 && *r != 2) c.fail("X must be 1-D or 2-D");
  }
  if (!x.has_shape()) return c.set_output(0, ValueType::tensor(DataType::FLOAT));
  c.set_output(0, ValueType::tensor(DataType::FLOAT, *x.shape));
}

inline void infer_array_feature_extractor(InferContext& c) {
  using namespace misc_detail;
  require_inputs(c, 2, 2);
  check_elem(c, 1, {DataType::INT64}, "Y");
  const auto& x = tensor_input(c, 0, "X");
  const auto& y = tensor_input(c, 1, "Y");
  if (auto r = x.rank(); r && *r == 0) c.fail("X must have rank 1 or more");
  // For 1-D X the runtime layout of the result is not specified by the operator: rank unknown.
  if (!x.has_shape() || x.shape->size() < 2) return c.set_output(0, ValueType::tensor(x.elem));
  Dims out(x.shape->begin(), x.shape->end() - 1);
  for (auto& d : out) d = c.resolve(d);
  if (y.has_shape()) {
    DimExpr n(1);
    for (const auto& d : *y.shape) n = n * d;
    out.push_back(c.resolve(n));
  } else {
    out.push_back(c.fresh());
  }
  c.set_output(0, x.elem, std::move(out));
}

inline void infer_cast_map(InferContext& c) {
  using namespace misc_detail;
  require_inputs(c, 1, 1);
  const auto& m = c.input_type(0);
  if (!m.is_unknown() && m.kind != ValueType::Kind::Map) c.fail("X must be a map");
  if (m.kind == ValueType::Kind::Map && m.elem != DataType::UNDEFINED && m.elem != DataType::INT64)
    c.fail("the map's keys must be INT64");
  const auto to = c.attr_string("cast_to", "TO_FLOAT");
  DataType e;
  if (to == "TO_FLOAT")
    e = DataType::FLOAT;
  else if (to == "TO_STRING")
    e = DataType::STRING;
  else if (to == "TO_INT64")
    e = DataType::INT64;
  else
    c.fail("cast_to must be TO_FLOAT, TO_STRING or TO_INT64, got '" + to + "'");
  const auto form = c.attr_string("map_form", "DENSE");
  if (form == "DENSE") return c.set_output(0, e, {DimExpr(1), c.fresh()});  // one column per map entry
  if (form != "SPARSE") c.fail("map_form must be DENSE or SPARSE, got '" + form + "'");
  const auto max_map = c.attr_int("max_map", 1);
  if (max_map < 1) c.fail("max_map must be positive");
  c.set_output(0, e, {DimExpr(1), DimExpr(max_map)});
}

inline void infer_category_mapper(InferContext& c) {
  using namespace misc_detail;
  require_inputs(c, 1, 1);
  check_elem(c, 0, {DataType::STRING, DataType::INT64}, "X");
  const auto& x = tensor_input(c, 0, "X");
  if (list_size(c, "cats_int64s") != list_size(c, "cats_strings"))
    c.fail("cats_int64s and cats_strings must have the same length");
  DataType e = DataType::UNDEFINED;
  if (x.elem == DataType::STRING) e = DataType::INT64;
  if (x.elem == DataType::INT64) e = DataType::STRING;
  ValueType out = ValueType::tensor(e);
  out.shape = x.shape;
  c.set_output(0, std::move(out));
}

inline void infer_dict_vectorizer(InferContext& c) {
  using namespace misc_detail;
  require_inputs(c, 1, 1);
  const auto& m = c.input_type(0);
  if (!m.is_unknown() && m.kind != ValueType::Kind::Map) c.fail("X must be a map");
  const auto ns = list_size(c, "string_vocabulary");
  const auto ni = list_size(c, "int64_vocabulary");
  if ((ns > 0) == (ni > 0)) c.fail("exactly one of string_vocabulary and int64_vocabulary must be given");
  if (m.kind == ValueType::Kind::Map && m.elem != DataType::UNDEFINED &&
      m.elem != (ns > 0 ? DataType::STRING : DataType::INT64))
    c.fail("the vocabulary's type does not match the map's key type");
  const DataType e = m.kind == ValueType::Kind::Map ? m.element().elem : DataType::UNDEFINED;
  c.set_output(0, e, {DimExpr(1), DimExpr(static_cast<std::int64_t>(ns + ni))});
}

inline void infer_feature_vectorizer(InferContext& c) {
  using namespace misc_detail;
  if (c.input_count() < 1) c.fail("FeatureVectorizer needs at least one input");
  for (std::size_t i = 0; i < c.input_count(); ++i) {
    if (!c.has_input(i)) c.fail("input " + std::to_string(i) + " is missing");
    check_elem(c, i, kNumeric, "X");
    (void)tensor_input(c, i, "X");
  }
  const auto& x0 = c.input_type(0);
  std::optional<DimExpr> n;
  if (x0.has_shape()) {
    if (x0.shape->empty()) c.fail("inputs must have rank 1 or more");
    n = x0.shape->size() == 1 ? DimExpr(1) : c.resolve((*x0.shape)[0]);
  }
  std::optional<DimExpr> width;
  if (auto dims = c.attr_ints("inputdimensions")) {
    if (dims->size() != c.input_count())
      c.fail("inputdimensions has " + std::to_string(dims->size()) + " entries for " +
             std::to_string(c.input_count()) + " inputs");
    DimExpr sum(0);
    for (auto d : *dims) {
      if (d < 0) c.fail("inputdimensions must not be negative");
      sum = sum + DimExpr(d);
    }
    width = sum;
  }
  c.set_output(0, DataType::FLOAT, {n ? *n : c.fresh(), width ? *width : c.fresh()});
}

inline void infer_label_encoder(InferContext& c) {
  using namespace misc_detail;
  require_inputs(c, 1, 1);
  const auto& x = tensor_input(c, 0, "X");
  DataType out = DataType::UNDEFINED;
  if (c.opset() < 2) {
    check_elem(c, 0, {DataType::STRING, DataType::INT64}, "X");
    if (x.elem == DataType::STRING) out = DataType::INT64;
    if (x.elem == DataType::INT64) out = DataType::STRING;
  } else {
    auto tensor_attr_type = [&](const char* name) -> DataType {
      const Attribute* a = c.attr(name);
      if (!a) return DataType::UNDEFINED;
      if (c.opset() < 4) c.fail("attribute '" + std::string(name) + "' needs ai.onnx.ml opset 4");
      if (a->kind() != AttributeType::TENSOR) c.fail("attribute '" + std::string(name) + "' should be a tensor");
      return a->as_tensor().data_type;
    };
    auto pick = [&](const char* strings, const char* ints, const char* floats, const char* tensor) {
      std::vector<DataType> found;
      if (c.has_attr(strings)) found.push_back(DataType::STRING);
      if (c.has_attr(ints)) found.push_back(DataType::INT64);
      if (c.has_attr(floats)) found.push_back(DataType::FLOAT);
      if (auto t = tensor_attr_type(tensor); t != DataType::UNDEFINED) found.push_back(t);
      if (found.size() != 1)
        c.fail("exactly one of " + std::string(strings) + ", " + ints + ", " + floats +
               (c.opset() >= 4 ? std::string(", ") + tensor : std::string()) + " must be given");
      return found[0];
    };
    const DataType keys = pick("keys_strings", "keys_int64s", "keys_floats", "keys_tensor");
    out = pick("values_strings", "values_int64s", "values_floats", "values_tensor");
    if (x.elem != DataType::UNDEFINED && x.elem != keys)
      c.fail("X is " + std::string(data_type_name(x.elem)) + " but the keys are " + std::string(data_type_name(keys)));
    if (auto d = tensor_attr_type("default_tensor"); d != DataType::UNDEFINED && d != out)
      c.fail("default_tensor's type differs from the values' type");
  }
  ValueType t = ValueType::tensor(out);
  t.shape = x.shape;
  c.set_output(0, std::move(t));
}

namespace misc_detail {
/// Linear models: `coefficients` holds n_out rows of C weights; C is X's feature count.
inline void linear_coefficients(InferContext& c, std::int64_t n_out) {
  auto coef = c.attr_floats("coefficients");
  if (!coef || n_out <= 0) return;
  const auto total = static_cast<std::int64_t>(coef->size());
  if (total % n_out != 0)
    c.fail("coefficients (" + std::to_string(total) + ") is not a multiple of " + std::to_string(n_out));
  if (auto f = ml_features(c)) c.unify(*f, DimExpr(total / n_out), "number of features vs coefficients");
}
}  // namespace misc_detail

inline void infer_linear_classifier(InferContext& c) {
  using namespace misc_detail;
  require_inputs(c, 1, 1);
  check_elem(c, 0, kNumeric, "X");
  if (!c.attr_floats("coefficients")) c.fail("missing required attribute 'coefficients'");
  const auto [label, n_labels] = class_labels(c, "classlabels_ints");
  const DimExpr n = ml_batch(c);
  std::optional<DimExpr> e;
  if (auto icp = c.attr_floats("intercepts"); icp && !icp->empty()) {
    const auto k = static_cast<std::int64_t>(icp->size());
    linear_coefficients(c, k);
    e = DimExpr(k == 1 && n_labels == 2 ? 2 : k);
  } else if (n_labels > 0) {
    const auto k = static_cast<std::int64_t>(n_labels);
    e = DimExpr(k);
  }
  c.set_output(0, label, {n});
  c.set_output(1, DataType::FLOAT, {n, e ? *e : c.fresh()});
}

inline void infer_linear_regressor(InferContext& c) {
  using namespace misc_detail;
  require_inputs(c, 1, 1);
  check_elem(c, 0, kNumeric, "X");
  const auto targets = c.attr_int("targets", 1);
  if (targets < 1) c.fail("targets must be positive");
  const DimExpr n = ml_batch(c);
  linear_coefficients(c, targets);
  if (auto icp = c.attr_floats("intercepts"); icp && !icp->empty() && static_cast<std::int64_t>(icp->size()) != targets)
    c.fail("intercepts must have one value per target");
  c.set_output(0, DataType::FLOAT, {n, DimExpr(targets)});
}

inline void infer_one_hot_encoder(InferContext& c) {
  using namespace misc_detail;
  require_inputs(c, 1, 1);
  check_elem(c, 0, {DataType::STRING, DataType::INT64, DataType::INT32, DataType::FLOAT, DataType::DOUBLE}, "X");
  const auto ni = list_size(c, "cats_int64s");
  const auto ns = list_size(c, "cats_strings");
  if ((ni > 0) == (ns > 0)) c.fail("exactly one of cats_int64s and cats_strings must be given");
  const auto& x = tensor_input(c, 0, "X");
  if (!x.has_shape()) return c.set_output(0, ValueType::tensor(DataType::FLOAT));
  Dims out;
  for (const auto& d : *x.shape) out.push_back(c.resolve(d));
  out.emplace_back(static_cast<std::int64_t>(ni + ns));
  c.set_output(0, DataType::FLOAT, std::move(out));
}

inline void infer_svm_classifier(InferContext& c) {
  using namespace misc_detail;
  require_inputs(c, 1, 1);
  check_elem(c, 0, kNumeric, "X");
  const auto [label, n_labels] = class_labels(c, "classlabels_ints");
  (void)n_labels;
  const DimExpr n = ml_batch(c);
  c.set_output(0, label, {n});
  // The number of score columns depends on the SVM mode (one per class, or one per pair of
  // classes without probability estimates): not determined here.
  c.set_output(1, DataType::FLOAT, {n, c.fresh()});
}

inline void infer_svm_regressor(InferContext& c) {
  using namespace misc_detail;
  require_inputs(c, 1, 1);
  check_elem(c, 0, kNumeric, "X");
  c.set_output(0, DataType::FLOAT, {ml_batch(c), DimExpr(1)});
}

inline void infer_tree_ensemble_classifier(InferContext& c) {
  using namespace misc_detail;
  require_inputs(c, 1, 1);
  check_elem(c, 0, kNumeric, "X");
  const auto [label, n_labels] = class_labels(c, "classlabels_int64s");
  const DimExpr n = ml_batch(c);
  c.set_output(0, label, {n});
  c.set_output(1, DataType::FLOAT, {n, n_labels > 0 ? DimExpr(static_cast<std::int64_t>(n_labels)) : c.fresh()});
}

inline void infer_tree_ensemble_regressor(InferContext& c) {
  using namespace misc_detail;
  require_inputs(c, 1, 1);
  check_elem(c, 0, kNumeric, "X");
  const DimExpr n = ml_batch(c);
  std::optional<DimExpr> t;
  if (c.has_attr("n_targets")) {
    const auto k = c.attr_int("n_targets", 1);
    if (k < 1) c.fail("n_targets must be positive");
    t = DimExpr(k);
  }
  c.set_output(0, DataType::FLOAT, {n, t ? *t : c.fresh()});
}

inline void infer_tree_ensemble(InferContext& c) {  // ai.onnx.ml opset 5
  using namespace misc_detail;
  require_opset(c, 5, "TreeEnsemble");
  require_inputs(c, 1, 1);
  check_elem(c, 0, {DataType::FLOAT, DataType::DOUBLE, DataType::FLOAT16}, "X");
  const auto& x = tensor_input(c, 0, "X");
  if (auto r = x.rank(); r && *r != 2) c.fail("X must be 2-D");
  const DimExpr n = x.has_shape() ? c.resolve((*x.shape)[0]) : c.fresh();
  std::optional<DimExpr> t;
  if (c.has_attr("n_targets")) {
    const auto k = c.attr_int("n_targets", 1);
    if (k < 1) c.fail("n_targets must be positive");
    t = DimExpr(k);
  }
  c.set_output(0, x.elem, {n, t ? *t : c.fresh()});
}

inline void infer_zip_map(InferContext& c) {
  using namespace misc_detail;
  require_inputs(c, 1, 1);
  check_elem(c, 0, {DataType::FLOAT}, "X");
  const auto ni = list_size(c, "classlabels_int64s");
  const auto ns = list_size(c, "classlabels_strings");
  if ((ni > 0) == (ns > 0)) c.fail("exactly one of classlabels_int64s and classlabels_strings must be given");
  const auto& x = tensor_input(c, 0, "X");
  if (auto r = x.rank(); r && *r != 1 && *r != 2) c.fail("X must be 1-D or 2-D");
  if (x.has_shape())
    c.unify(c.resolve(x.shape->back()), DimExpr(static_cast<std::int64_t>(ni + ns)),
            "number of columns vs number of class labels");
  c.set_output(0, ValueType::sequence(
                      ValueType::map(ni > 0 ? DataType::INT64 : DataType::STRING, ValueType::tensor(DataType::FLOAT))));
}

// ============================================================================================
// ai.onnx.preview.training

namespace misc_detail {
/// Optimizers: inputs R, T, then `groups` groups of n tensors; outputs are the groups listed in
/// `out_groups` (indices into the input groups), each mirroring its input tensors.
inline void optimizer(InferContext& c, std::size_t groups, std::initializer_list<std::size_t> out_groups) {
  if (c.input_count() < 2 + groups || (c.input_count() - 2) % groups != 0)
    c.fail("expects R, T and " + std::to_string(groups) + " groups of tensors of equal size, got " +
           std::to_string(c.input_count()) + " inputs");
  for (std::size_t i = 0; i < c.input_count(); ++i)
    if (!c.has_input(i)) c.fail("input " + std::to_string(i) + " is missing");
  for (std::size_t i = 0; i < 2; ++i)
    if (auto r = c.input_rank(i); r && *r != 0) c.fail(std::string(i == 0 ? "R" : "T") + " must be a scalar");
  check_elem(c, 0, {DataType::FLOAT, DataType::DOUBLE}, "R");
  check_elem(c, 1, {DataType::INT64}, "T");
  const std::size_t n = (c.input_count() - 2) / groups;
  if (c.output_count() > n * out_groups.size())
    c.fail("expects at most " + std::to_string(n * out_groups.size()) + " outputs");
  // Every group's j-th tensor has the shape of the j-th optimized tensor.
  for (std::size_t j = 0; j < n; ++j) {
    const auto& x = tensor_input(c, 2 + j, "optimized tensors");
    for (std::size_t g = 1; g < groups; ++g) {
      const auto& o = tensor_input(c, 2 + g * n + j, "optimizer state");
      if (x.elem != DataType::UNDEFINED && o.elem != DataType::UNDEFINED && x.elem != o.elem)
        c.fail("tensor " + std::to_string(j) + " of group " + std::to_string(g) + " differs in element type");
      if (x.has_shape() && o.has_shape()) {
        if (x.shape->size() != o.shape->size())
          c.fail("tensor " + std::to_string(j) + " of group " + std::to_string(g) + " differs in rank");
        for (std::size_t k = 0; k < x.shape->size(); ++k)
          c.unify((*x.shape)[k], (*o.shape)[k], "optimizer tensors must have the same shape");
      }
    }
  }
  std::size_t k = 0;
  for (auto g : out_groups)
    for (std::size_t j = 0; j < n; ++j, ++k) {
      ValueType t = c.input_type(2 + g * n + j);
      if (t.is_unknown()) t = c.input_type(2 + j);
      if (t.is_unknown()) t = ValueType::tensor(DataType::UNDEFINED);
      if (t.has_shape())
        for (auto& d : *t.shape) d = c.resolve(d);
      c.set_output(k, std::move(t));
    }
}
}  // namespace misc_detail

inline void infer_adagrad(InferContext& c) { misc_detail::optimizer(c, 3, {0, 2}); }  // X, G, H -> X', H'
inline void infer_adam(InferContext& c) { misc_detail::optimizer(c, 4, {0, 2, 3}); }  // X, G, V, H -> X', V', H'
inline void infer_momentum(InferContext& c) {                                         // X, G, V -> X', V'
  const auto mode = c.attr_string("mode", "");
  if (mode != "standard" && mode != "nesterov") c.fail("mode must be 'standard' or 'nesterov'");
  for (const char* a : {"alpha", "beta", "norm_coefficient"})
    if (!c.has_attr(a)) c.fail("missing required attribute '" + std::string(a) + "'");
  misc_detail::optimizer(c, 3, {0, 2});
}

inline void infer_gradient(InferContext& c) {
  const Attribute* xs = c.attr("xs");
  if (!xs || xs->kind() != AttributeType::STRINGS) c.fail("missing required attribute 'xs' (a list of names)");
  if (!c.has_attr("y")) c.fail("missing required attribute 'y'");
  (void)c.attr_string("y", "");
  const auto& names = xs->as_strings();
  if (c.output_count() != names.size())
    c.fail("expects one output per name in xs (" + std::to_string(names.size()) + "), got " +
           std::to_string(c.output_count()));
  // Input i (i < |xs|) is the value of xs[i]; the gradient has its type when it is a float tensor.
  for (std::size_t i = 0; i < names.size(); ++i) {
    const ValueType* t = nullptr;
    if (c.has_input(i)) {
      t = &c.input_type(i);
    } else if (auto* s = c.scope().lookup(names[i])) {
      t = &s->type;
    }
    if (!t || !t->is_tensor()) {
      c.set_output(i, ValueType::tensor(DataType::UNDEFINED));
      continue;
    }
    ValueType g = ValueType::tensor(is_floating(t->elem) ? t->elem : DataType::UNDEFINED);
    if (t->has_shape()) {
      g.shape.emplace();
      for (const auto& d : *t->shape) g.shape->push_back(c.resolve(d));
    }
    c.set_output(i, std::move(g));
  }
}

// ============================================================================================

inline void register_misc_ops(OpRegistry& r) {
  r.add("", "SequenceConstruct", &infer_sequence_construct);
  r.add("", "SequenceEmpty", &infer_sequence_empty);
  r.add("", "SequenceAt", &infer_sequence_at);
  r.add("", "SequenceInsert", &infer_sequence_insert);
  r.add("", "SequenceErase", &infer_sequence_erase);
  r.add("", "SequenceLength", &infer_sequence_length);
  r.add("", "ConcatFromSequence", &infer_concat_from_sequence);
  r.add("", "SplitToSequence", &infer_split_to_sequence);
  r.add("", "Optional", &infer_optional);
  r.add("", "OptionalHasElement", &infer_optional_has_element);
  r.add("", "OptionalGetElement", &infer_optional_get_element);

  const std::string_view ml = misc_detail::kMl;
  r.add(ml, "ArrayFeatureExtractor", &infer_array_feature_extractor);
  r.add(ml, "Binarizer", &infer_ml_same);
  r.add(ml, "CastMap", &infer_cast_map);
  r.add(ml, "CategoryMapper", &infer_category_mapper);
  r.add(ml, "DictVectorizer", &infer_dict_vectorizer);
  r.add(ml, "FeatureVectorizer", &infer_feature_vectorizer);
  r.add(ml, "Imputer", &infer_ml_same);
  r.add(ml, "LabelEncoder", &infer_label_encoder);
  r.add(ml, "LinearClassifier", &infer_linear_classifier);
  r.add(ml, "LinearRegressor", &infer_linear_regressor);
  r.add(ml, "Normalizer", &infer_ml_float_same_shape);
  r.add(ml, "OneHotEncoder", &infer_one_hot_encoder);
  r.add(ml, "SVMClassifier", &infer_svm_classifier);
  r.add(ml, "SVMRegressor", &infer_svm_regressor);
  r.add(ml, "Scaler", &infer_ml_float_same_shape);
  r.add(ml, "TreeEnsembleClassifier", &infer_tree_ensemble_classifier);
  r.add(ml, "TreeEnsembleRegressor", &infer_tree_ensemble_regressor);
  r.add(ml, "TreeEnsemble", &infer_tree_ensemble);
  r.add(ml, "ZipMap", &infer_zip_map);

  const std::string_view tr = misc_detail::kTraining;
  r.add(tr, "Adagrad", &infer_adagrad);
  r.add(tr, "Adam", &infer_adam);
  r.add(tr, "Momentum", &infer_momentum);
  r.add(tr, "Gradient", &infer_gradient);
}

}  // namespace oxir::infer::ops
