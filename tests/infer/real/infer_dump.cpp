// infer_dump: loads an ONNX model, optionally strips what the exporter inferred (graph outputs'
// shapes and value_info) and names input dims, runs oxir::infer_shapes and prints JSON:
//
//   {"inputs":  {"name": [dims]},           dims: number, "dim_param" string, or null (unknown);
//    "input_types": {"name": ONNX elem type number}, "initializers": {"name": [dims]},
//    "output_types": {"name": ONNX elem type number, 0 = unknown},
//    "outputs": {"name": [dims] | null},     null = no shape (unknown rank or untyped)
//    "values":  {"name": [dims] | null},     every main-graph value_info after inference
//    "nodes":   [{"op": ..., "name": ..., "inputs": [...], "outputs": [...],
//                 "subgraphs": {"attr": {"inputs", "initializers", "outputs", "values", "nodes"}}}],
//    "report":  {...counts...}, "diagnostics": ["..."],
//    "read_back": {"conflicts": n, "diagnostics": [...], "outputs": {"name": [dims] | null}}}
//
// usage: infer_dump MODEL [--keep] [--read-back] [--dim INPUT:AXIS=NAME]...
//   --keep  keep the model's own output shapes and value_info (default: strip them)
//   --read-back  then write the inferred model to bytes, read it again, strip the graph
//           outputs' shapes only and infer once more, keeping the value_info (whose dims are
//           the expressions the first pass printed): "read_back" gives that pass's outputs
//   --dim   sets graph input INPUT's axis AXIS to dim_param NAME before inference
//
// Used by verify_real.py (issue #4 item 7) to check oxir's inference against ONNX Runtime.

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <oxir/infer.hpp>
#include <oxir/io.hpp>

namespace {

std::string json_str(const std::string& s) {
  std::string o = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': o += "\\\""; break;
      case '\\': o += "\\\\"; break;
      case '\n': o += "\\n"; break;
      case '\t': o += "\\t"; break;
      case '\r': o += "\\r"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          o += buf;
        } else {
          o += static_cast<char>(c);
        }
    }
  }
  return o + "\"";
}

std::string dims_json(const std::optional<oxir::Type>& t) {
  if (!t) return "null";
  const oxir::Shape* s = t->shape();
  if (!s) return "null";
  std::string o = "[";
  for (std::size_t i = 0; i < s->rank(); ++i) {
    if (i) o += ",";
    const oxir::Dim& d = (*s)[i];
    if (d.is_value())
      o += std::to_string(d.dim_value());
    else if (d.is_param())
      o += json_str(d.dim_param());
    else
      o += "null";
  }
  return o + "]";
}

void strip_shape(std::optional<oxir::Type>& t) {
  if (!t) return;
  if (auto* tt = t->as_tensor()) tt->shape.reset();
}

std::string value_list_json(const std::vector<oxir::ValueInfo>& vs) {
  std::string o = "{";
  bool first = true;
  for (const auto& v : vs) {
    if (!first) o += ",";
    first = false;
    o += json_str(v.name) + ":" + dims_json(v.type);
  }
  return o + "}";
}

/// "inputs", "initializers", "outputs", "values" and "nodes" of a graph (no braces); nodes with
/// graph attributes carry "subgraphs": {"attr": {...same fields...}}.
std::string graph_fields(const oxir::Graph& g) {
  std::ostringstream out;
  out << "\"inputs\":" << value_list_json(g.inputs) << ",\n\"initializers\":{";
  for (std::size_t i = 0; i < g.initializers.size(); ++i) {
    out << (i ? "," : "") << json_str(g.initializers[i].name) << ":[";
    for (std::size_t k = 0; k < g.initializers[i].dims.size(); ++k) out << (k ? "," : "") << g.initializers[i].dims[k];
    out << "]";
  }
  out << "},\n\"outputs\":" << value_list_json(g.outputs) << ",\n\"values\":" << value_list_json(g.value_info)
      << ",\n\"nodes\":[";
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const oxir::Node& n = g.nodes[i];
    out << (i ? ",\n" : "\n") << "{\"op\":" << json_str(n.domain.empty() ? n.op_type : n.domain + "::" + n.op_type)
        << ",\"name\":" << json_str(n.name) << ",\"inputs\":[";
    for (std::size_t k = 0; k < n.inputs.size(); ++k) out << (k ? "," : "") << json_str(n.inputs[k]);
    out << "],\"outputs\":[";
    for (std::size_t k = 0; k < n.outputs.size(); ++k) out << (k ? "," : "") << json_str(n.outputs[k]);
    out << "]";
    bool any = false;
    for (const auto& a : n.attributes) {
      if (a.kind() != oxir::AttributeType::GRAPH) continue;
      out << (any ? ",\n" : ",\"subgraphs\":{\n") << json_str(a.name) << ":{" << graph_fields(a.as_graph()) << "}";
      any = true;
    }
    if (any) out << "}";
    out << "}";
  }
  out << "]";
  return out.str();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: infer_dump MODEL [--keep] [--dim INPUT:AXIS=NAME]...\n";
    return 2;
  }
  try {
    bool keep = false, read_back = false;
    struct Rename {
      std::string input;
      std::size_t axis;
      std::string name;
    };
    std::vector<Rename> renames;
    for (int i = 2; i < argc; ++i) {
      std::string a = argv[i];
      if (a == "--keep") {
        keep = true;
      } else if (a == "--read-back") {
        read_back = true;
      } else if (a == "--dim" && i + 1 < argc) {
        std::string s = argv[++i];
        auto colon = s.rfind(':');
        auto eq = s.find('=', colon == std::string::npos ? 0 : colon);
        if (colon == std::string::npos || eq == std::string::npos) {
          std::cerr << "infer_dump: bad --dim " << s << "\n";
          return 2;
        }
        renames.push_back({s.substr(0, colon), std::stoul(s.substr(colon + 1, eq - colon - 1)), s.substr(eq + 1)});
      } else {
        std::cerr << "infer_dump: unknown argument " << a << "\n";
        return 2;
      }
    }

    oxir::Model model = oxir::load_model(argv[1]);
    oxir::Graph& g = model.graph;
    for (const auto& r : renames) {
      bool done = false;
      for (auto& in : g.inputs) {
        if (in.name != r.input || !in.type) continue;
        auto* tt = in.type->as_tensor();
        if (!tt || !tt->shape || r.axis >= tt->shape->rank()) break;
        (*tt->shape)[r.axis] = oxir::Dim(r.name);
        done = true;
      }
      if (!done) {
        std::cerr << "infer_dump: cannot rename " << r.input << ":" << r.axis << "\n";
        return 2;
      }
    }
    if (!keep) {
      g.value_info.clear();
      for (auto& o : g.outputs) strip_shape(o.type);
    }

    oxir::InferOptions opts;
    opts.overwrite = !keep;
    oxir::InferReport rep = oxir::infer_shapes(model, opts);

    std::ostringstream out;
    out << "{" << graph_fields(g) << ",\n\"input_types\":{";
    for (std::size_t i = 0; i < g.inputs.size(); ++i)
      out << (i ? "," : "") << json_str(g.inputs[i].name) << ":"
          << (g.inputs[i].type ? static_cast<int>(g.inputs[i].type->elem_type()) : 0);
    out << "},\n\"output_types\":{";
    for (std::size_t i = 0; i < g.outputs.size(); ++i)
      out << (i ? "," : "") << json_str(g.outputs[i].name) << ":"
          << (g.outputs[i].type ? static_cast<int>(g.outputs[i].type->elem_type()) : 0);
    out << "}";
    out << ",\n\"report\":{\"nodes\":" << rep.nodes << ",\"nodes_unsupported\":" << rep.nodes_unsupported
        << ",\"nodes_failed\":" << rep.nodes_failed << ",\"values_typed\":" << rep.values_typed
        << ",\"values_unknown\":" << rep.values_unknown << ",\"conflicts\":" << rep.conflicts
        << ",\"symbols\":" << rep.symbols << "},\n\"diagnostics\":[";
    for (std::size_t i = 0; i < rep.diagnostics.size(); ++i)
      out << (i ? ",\n" : "\n") << json_str(rep.diagnostics[i].to_string());
    out << "]";
    if (read_back) {
      oxir::Model again = oxir::parse_model(oxir::serialize_model_to_string(model));
      for (auto& o : again.graph.outputs) strip_shape(o.type);
      oxir::InferOptions keep_opts;
      keep_opts.overwrite = false;
      const oxir::InferReport rep2 = oxir::infer_shapes(again, keep_opts);
      out << ",\n\"read_back\":{\"conflicts\":" << rep2.conflicts << ",\"diagnostics\":[";
      std::size_t k = 0;
      for (const auto& d : rep2.diagnostics)
        if (d.kind == oxir::infer::DiagnosticKind::Conflict) out << (k++ ? ",\n" : "\n") << json_str(d.to_string());
      out << "],\"outputs\":" << value_list_json(again.graph.outputs) << "}";
    }
    out << "}\n";
    std::cout << out.str();
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "infer_dump: " << e.what() << "\n";
    return 1;
  }
}
