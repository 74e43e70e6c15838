#pragma once
// Helpers for inference unit tests: build small models, run oxir::infer_shapes, read types back
// as strings such as "FLOAT[N,3,floor((H+1)/2)]".

#include <oxir/infer.hpp>
#include <oxir/ir/print.hpp>

#include <string>
#include <vector>

namespace oxir_test {

/// A graph input: element type and dims ("N" = dim_param, "3" = number, "?" = unknown dim);
/// `rank_known = false` gives a tensor of unknown rank.
struct In {
  std::string name;
  oxir::DataType elem = oxir::DataType::FLOAT;
  std::vector<std::string> dims;
  bool rank_known = true;
};

inline oxir::ValueInfo value_info_of(const In& in) {
  oxir::TensorType t;
  t.elem_type = in.elem;
  if (in.rank_known) {
    oxir::Shape s;
    for (const auto& d : in.dims) {
      if (d == "?")
        s.dims.emplace_back();
      else if (!d.empty() && (std::isdigit(static_cast<unsigned char>(d[0])) || d[0] == '-'))
        s.dims.emplace_back(static_cast<std::int64_t>(std::stoll(d)));
      else
        s.dims.emplace_back(d);
    }
    t.shape = std::move(s);
  }
  oxir::ValueInfo v;
  v.name = in.name;
  v.type = oxir::Type(std::move(t));
  return v;
}

/// A model whose graph holds `nodes`, inputs `inputs`, initializers `inits`; graph outputs are
/// the outputs of the last node (without types). Default-domain opset `opset`.
inline oxir::Model make_model(std::vector<oxir::Node> nodes, const std::vector<In>& inputs,
                              std::vector<oxir::Tensor> inits = {}, std::int64_t opset = 21) {
  oxir::Model m;
  m.ir_version = 10;
  m.set_opset_version("", opset);
  for (const auto& in : inputs) m.graph.inputs.push_back(value_info_of(in));
  m.graph.initializers = std::move(inits);
  if (!nodes.empty())
    for (const auto& o : nodes.back().outputs)
      if (!o.empty()) {
        oxir::ValueInfo v;
        v.name = o;
        m.graph.outputs.push_back(v);
      }
  m.graph.nodes = std::move(nodes);
  return m;
}

/// The inferred type of `value` (value_info, graph outputs or inputs) printed as
/// "ELEM[d0,d1,…]", "ELEM[*]" for unknown rank, "?" if there is no type; sequences print as
/// "seq(…)", optionals as "opt(…)".
inline std::string type_str(const oxir::Type& t);
inline std::string type_str(const oxir::Type& t) {
  if (auto tt = std::get_if<oxir::TensorType>(&t.value)) {
    std::string s(oxir::data_type_name(tt->elem_type));
    if (!tt->shape) return s + "[*]";
    s += "[";
    for (std::size_t i = 0; i < tt->shape->dims.size(); ++i) {
      if (i) s += ",";
      const auto& d = tt->shape->dims[i];
      s += d.is_value() ? std::to_string(d.dim_value()) : d.is_param() ? d.dim_param() : "?";
    }
    return s + "]";
  }
  if (auto sq = std::get_if<oxir::SequenceType>(&t.value))
    return "seq(" + (sq->elem_type.has_value() ? type_str(*sq->elem_type) : std::string("?")) + ")";
  if (auto op = std::get_if<oxir::OptionalType>(&t.value))
    return "opt(" + (op->elem_type.has_value() ? type_str(*op->elem_type) : std::string("?")) + ")";
  if (auto mp = std::get_if<oxir::MapType>(&t.value))
    return "map(" + std::string(oxir::data_type_name(mp->key_type)) + "," +
           (mp->value_type.has_value() ? type_str(*mp->value_type) : std::string("?")) + ")";
  return "?";
}

inline std::string type_of(const oxir::Graph& g, const std::string& value) {
  const auto* v = g.find_value_info(value);
  if (!v || !v->type) return "?";
  return type_str(*v->type);
}
inline std::string type_of(const oxir::Model& m, const std::string& value) { return type_of(m.graph, value); }

/// Infers a one-node model and returns the type of its output `out` (default: output 0).
struct OneNode {
  oxir::Model model;
  oxir::InferReport report;
  [[nodiscard]] std::string out(std::size_t i = 0) const { return type_of(model, model.graph.nodes.back().outputs.at(i)); }
};
inline OneNode infer_one(oxir::Node node, const std::vector<In>& inputs, std::vector<oxir::Tensor> inits = {},
                         std::int64_t opset = 21) {
  OneNode r;
  r.model = make_model({std::move(node)}, inputs, std::move(inits), opset);
  r.report = oxir::infer_shapes(r.model);
  return r;
}

/// An int64 initializer (rank 1, or rank 0 when `scalar`).
inline oxir::Tensor ints(std::string name, std::vector<std::int64_t> v, bool scalar = false) {
  std::vector<std::int64_t> dims;
  if (!scalar) dims.push_back(static_cast<std::int64_t>(v.size()));
  return oxir::Tensor::from_values<std::int64_t>(std::move(name), dims, std::span<const std::int64_t>(v));
}

}  // namespace oxir_test
