#pragma once
// Inference rules: loss operators (see docs/inference.md).
//
// NegativeLogLikelihoodLoss (opset 12, 13, 22) and SoftmaxCrossEntropyLoss (12, 13, 22):
//   scores/input [N, C, d1..dk] (k >= 0), target/labels [N, d1..dk] (integer), optional weight [C].
//   reduction "none": output [N, d1..dk]; "mean" (default) / "sum": a scalar.
//   SoftmaxCrossEntropyLoss's optional second output log_prob has the scores' shape.
// The versions differ only in the element types they accept, not in shapes.

#include <cstdint>
#include <string>

#include "../engine.hpp"

namespace oxir::infer::ops {

namespace loss_detail {

/// Shared rule; `sce` selects SoftmaxCrossEntropyLoss (two outputs) over NegativeLogLikelihoodLoss.
template <bool Sce>
void loss_rule(InferContext& c) {
  const char* what = Sce ? "SoftmaxCrossEntropyLoss" : "NegativeLogLikelihoodLoss";
  if (c.opset() < 12) c.fail(std::string(what) + " needs opset 12 (model imports " + std::to_string(c.opset()) + ")");
  if (c.input_count() < 2 || c.input_count() > 3)
    c.fail("expects 2 or 3 inputs, got " + std::to_string(c.input_count()));
  if (!c.has_input(0) || !c.has_input(1)) c.fail("inputs 0 (scores) and 1 (target) are required");
  if (c.output_count() < 1 || c.output_count() > (Sce ? 2u : 1u))
    c.fail("unexpected number of outputs: " + std::to_string(c.output_count()));

  const std::string reduction = c.attr_string("reduction", "mean");
  if (reduction != "none" && reduction != "mean" && reduction != "sum")
    c.fail("attribute 'reduction' must be 'none', 'mean' or 'sum', got '" + reduction + "'");

  for (std::size_t i = 0; i < c.input_count(); ++i) {
    const auto& t = c.input_type(i);
    if (!t.is_unknown() && !t.is_tensor()) c.fail("input " + std::to_string(i) + " must be a tensor");
  }
  const auto& st = c.input_type(0);
  const DataType elem = st.elem;
  const DataType telem = c.input_elem(1);
  if (telem != DataType::UNDEFINED && telem != DataType::INT32 && telem != DataType::INT64)
    c.fail("target must be int32 or int64, got " + std::string(data_type_name(telem)));
  if (c.has_input(2)) {
    const DataType welem = c.input_elem(2);
    if (welem != DataType::UNDEFINED && elem != DataType::UNDEFINED && welem != elem)
      c.fail("weight must have the scores' element type");
  }

  const Dims* s = c.input_shape(0);
  const Dims* t = c.input_shape(1);
  if (s && s->size() < 2) c.fail("scores must have rank >= 2 ([N, C, d1..dk]), got rank " + std::to_string(s->size()));
  if (t && t->empty()) c.fail("target must have rank >= 1 ([N, d1..dk])");
  if (s && t && t->size() + 1 != s->size())
    c.fail("target rank " + std::to_string(t->size()) + " must be scores rank " + std::to_string(s->size()) +
           " minus 1");

  // The per-element loss shape [N, d1..dk].
  std::optional<Dims> per;
  if (s && t) {
    Dims d;
    for (std::size_t i = 0; i < t->size(); ++i) {
      const DimExpr& sd = (*s)[i == 0 ? 0 : i + 1];
      c.unify(sd, (*t)[i], i == 0 ? "batch size N of scores and target" : "spatial dim of scores and target");
      d.push_back(c.resolve(sd));
    }
    per = std::move(d);
  } else if (s) {
    Dims d;
    d.push_back((*s)[0]);
    for (std::size_t i = 2; i < s->size(); ++i) d.push_back((*s)[i]);
    per = std::move(d);
  } else if (t) {
    per = *t;
  }
  if (c.has_input(2)) {
    if (const Dims* w = c.input_shape(2)) {
      if (w->size() != 1) c.fail("weight must have rank 1 ([C]), got rank " + std::to_string(w->size()));
      if (s) c.unify((*w)[0], (*s)[1], "class count C of weight and scores");
    }
  }

  if (reduction == "none") {
    if (per)
      c.set_output(0, elem, *per);
    else
      c.set_output(0, ValueType::tensor(elem));
  } else {
    c.set_output(0, elem, Dims{});
  }
  if (Sce && c.output_count() > 1) {
    if (s)
      c.set_output(1, elem, *s);
    else
      c.set_output(1, ValueType::tensor(elem));
  }
}

}  // namespace loss_detail

inline void register_loss_ops(OpRegistry& r) {
  r.add("", "NegativeLogLikelihoodLoss", &loss_detail::loss_rule<false>);
  r.add("", "SoftmaxCrossEntropyLoss", &loss_detail::loss_rule<true>);
}

}  // namespace oxir::infer::ops
