// infer_score: scores oxir's shape inference against the shapes the model files declare, side by
// side with onnx 1.12's C++ shape inference (Debian libonnx-dev), and times both (issue #4, items
// 7 and 8).
//
// For every model of the corpus (default: the onnx backend-test models of libonnx-testdata):
//   1. every value_info is dropped and every graph output (main graph and subgraphs) loses its
//      shape (the element type stays); the original declared types are kept as the reference;
//   2. oxir::infer_shapes runs on the cleared model, onnx::shape_inference::InferShapes on the same
//      cleared model re-encoded as an onnx::ModelProto (check_type=false, error_mode=0, data
//      propagation on; a throw counts as "no shapes");
//   3. each dim the reference declares (a number or a dim_param) is scored:
//        exact        same number / same dim_param string
//        unknown      no shape, unknown dim, or a different symbol (a fresh symbol, an expression)
//        wrong        a different number, or a different rank (every scored dim of the value)
//        num-for-sym  a number where the reference declares a dim_param (listed separately: the
//                     declaration may just be looser than the model's real sizes)
//        crash        the engine threw (every scored dim of the model)
//      Dims the reference leaves unknown are not scored.
// Then each engine is timed on fresh copies of the cleared model (median of --runs runs) and the
// geometric mean of onnx_time / oxir_time is printed.
//
//   infer_score [--corpus DIR] [--min-exact PCT] [--max-wrong N] [--max-rejected N] [--runs N]
//               [--no-timing] [--list N] [--verbose] [--bind-inputs N] [MODEL.onnx...]
// Exit code 1 when oxir's exact percentage is below --min-exact, its wrong count (numbers and
// ranks, not num-for-sym) is above --max-wrong, or more than --max-rejected models get an error
// diagnostic (a node rejected or a conflict: these models are valid, so each one is a false
// alarm); 2 for usage errors or an empty corpus.

// onnx's headers first: onnx/defs/parser.h has an enumerator MAP_TYPE, which <sys/mman.h>
// (included by oxir's io for mmap) defines as a macro.
#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <oxir/infer.hpp>
#include <oxir/io.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

namespace fs = std::filesystem;
using clock_type = std::chrono::steady_clock;

namespace {

// ---- a neutral representation of a value's shape, for both engines ----

using DimRep = std::variant<std::monostate, std::int64_t, std::string>;
struct ShapeRep {
  bool has_shape = false;
  std::vector<DimRep> dims;
};
/// Per graph (keyed by its path), per value name: the shape (tensor, or the tensor inside a
/// sequence/optional).
using GraphShapes = std::unordered_map<std::string, ShapeRep>;
using ModelShapes = std::map<std::string, GraphShapes>;
/// Per graph path, per value name: the op_type of its producer (for the gap report).
using Producers = std::map<std::string, std::unordered_map<std::string, std::string>>;

const oxir::Shape* inner_shape(const oxir::Type& t) {
  if (auto s = std::get_if<oxir::SequenceType>(&t.value)) return s->elem_type ? inner_shape(*s->elem_type) : nullptr;
  if (auto o = std::get_if<oxir::OptionalType>(&t.value)) return o->elem_type ? inner_shape(*o->elem_type) : nullptr;
  return t.shape();
}

ShapeRep rep_of(const oxir::ValueInfo& v) {
  ShapeRep r;
  if (!v.type) return r;
  const oxir::Shape* s = inner_shape(*v.type);
  if (!s) return r;
  r.has_shape = true;
  for (const auto& d : s->dims) r.dims.push_back(d.value);
  return r;
}

void clear_shape(oxir::Type& t) {
  if (auto tt = std::get_if<oxir::TensorType>(&t.value)) tt->shape.reset();
  if (auto st = std::get_if<oxir::SparseTensorType>(&t.value)) st->shape.reset();
  if (auto sq = std::get_if<oxir::SequenceType>(&t.value); sq && sq->elem_type) clear_shape(*sq->elem_type);
  if (auto op = std::get_if<oxir::OptionalType>(&t.value); op && op->elem_type) clear_shape(*op->elem_type);
}

template <class F>
void for_each_graph(oxir::Graph& g, const std::string& path, F&& f) {
  f(g, path);
  for (std::size_t i = 0; i < g.nodes.size(); ++i)
    for (auto& a : g.nodes[i].attributes) {
      if (auto bg = std::get_if<oxir::Box<oxir::Graph>>(&a.value); bg && bg->has_value()) {
        for_each_graph(**bg, path + "/node[" + std::to_string(i) + "]." + a.name, f);
      } else if (auto gv = std::get_if<std::vector<oxir::Graph>>(&a.value)) {
        auto& gs = *gv;
        for (std::size_t k = 0; k < gs.size(); ++k)
          for_each_graph(gs[k], path + "/node[" + std::to_string(i) + "]." + a.name + "[" + std::to_string(k) + "]",
                         f);
      }
    }
}

/// Outputs and value_info of every graph, as two maps.
void collect(oxir::Model& m, ModelShapes& outputs, ModelShapes& value_info, Producers* producers = nullptr) {
  for_each_graph(m.graph, "graph", [&](oxir::Graph& g, const std::string& path) {
    auto& o = outputs[path];
    for (const auto& v : g.outputs) o[v.name] = rep_of(v);
    auto& vi = value_info[path];
    for (const auto& v : g.value_info) vi[v.name] = rep_of(v);
    if (producers) {
      auto& p = (*producers)[path];
      for (const auto& n : g.nodes)
        for (const auto& out : n.outputs) p[out] = n.domain.empty() || n.domain == "ai.onnx" ? n.op_type
                                                                                          : n.domain + "::" + n.op_type;
    }
  });
}

void clear_model(oxir::Model& m) {
  for_each_graph(m.graph, "graph", [](oxir::Graph& g, const std::string&) {
    g.value_info.clear();
    for (auto& v : g.outputs)
      if (v.type) clear_shape(*v.type);
  });
}

// ---- the same for onnx::ModelProto ----

const onnx::TypeProto_Tensor* inner_tensor(const onnx::TypeProto& t) {
  if (t.has_tensor_type()) return &t.tensor_type();
  if (t.has_sequence_type() && t.sequence_type().has_elem_type()) return inner_tensor(t.sequence_type().elem_type());
  if (t.has_optional_type() && t.optional_type().has_elem_type()) return inner_tensor(t.optional_type().elem_type());
  return nullptr;
}

ShapeRep rep_of(const onnx::ValueInfoProto& v) {
  ShapeRep r;
  if (!v.has_type()) return r;
  if (v.type().has_sparse_tensor_type()) {
    const auto& st = v.type().sparse_tensor_type();
    if (!st.has_shape()) return r;
    r.has_shape = true;
    for (const auto& d : st.shape().dim())
      r.dims.push_back(d.has_dim_value() ? DimRep(d.dim_value()) : d.has_dim_param() ? DimRep(d.dim_param()) : DimRep());
    return r;
  }
  const auto* t = inner_tensor(v.type());
  if (!t || !t->has_shape()) return r;
  r.has_shape = true;
  for (const auto& d : t->shape().dim())
    r.dims.push_back(d.has_dim_value() ? DimRep(d.dim_value()) : d.has_dim_param() ? DimRep(d.dim_param()) : DimRep());
  return r;
}

void collect(const onnx::GraphProto& g, const std::string& path, ModelShapes& outputs, ModelShapes& value_info) {
  auto& o = outputs[path];
  for (const auto& v : g.output()) o[v.name()] = rep_of(v);
  auto& vi = value_info[path];
  for (const auto& v : g.value_info()) vi[v.name()] = rep_of(v);
  for (int i = 0; i < g.node_size(); ++i)
    for (const auto& a : g.node(i).attribute()) {
      if (a.has_g()) collect(a.g(), path + "/node[" + std::to_string(i) + "]." + a.name(), outputs, value_info);
      for (int k = 0; k < a.graphs_size(); ++k)
        collect(a.graphs(k), path + "/node[" + std::to_string(i) + "]." + a.name() + "[" + std::to_string(k) + "]",
                outputs, value_info);
    }
}

// ---- scoring ----

enum Verdict { kExact, kUnknown, kWrong, kNumForSym, kCrash, kVerdicts };
const char* const kVerdictNames[] = {"exact", "unknown", "wrong", "num-for-sym", "crash"};

struct Score {
  std::size_t n[kVerdicts] = {};
  std::size_t models = 0, models_exact = 0, models_crashed = 0;
  [[nodiscard]] std::size_t scored() const { return n[kExact] + n[kUnknown] + n[kWrong] + n[kNumForSym] + n[kCrash]; }
  [[nodiscard]] double pct_exact() const { return scored() ? 100.0 * static_cast<double>(n[kExact]) / static_cast<double>(scored()) : 0; }
  void add(const Score& o) {
    for (int i = 0; i < kVerdicts; ++i) n[i] += o.n[i];
  }
};

std::string dim_str(const DimRep& d) {
  if (auto v = std::get_if<std::int64_t>(&d)) return std::to_string(*v);
  if (auto s = std::get_if<std::string>(&d)) return "'" + *s + "'";
  return "?";
}
std::string shape_str(const ShapeRep& s) {
  if (!s.has_shape) return "(no shape)";
  std::string r = "[";
  for (std::size_t i = 0; i < s.dims.size(); ++i) r += (i ? "," : "") + dim_str(s.dims[i]);
  return r + "]";
}

struct Finding {
  std::string model, graph, value, op;
  std::string declared, inferred;
  Verdict verdict;
};

/// Scores the inferred shape of one value against its declaration; appends per-dim verdicts.
void score_value(const ShapeRep& decl, const ShapeRep* inf, bool crashed, std::vector<Verdict>& out) {
  if (!decl.has_shape) return;
  std::size_t scored = 0;
  for (const auto& d : decl.dims)
    if (!std::holds_alternative<std::monostate>(d)) ++scored;
  if (scored == 0) return;
  if (crashed) {
    out.insert(out.end(), scored, kCrash);
    return;
  }
  if (!inf || !inf->has_shape) {
    out.insert(out.end(), scored, kUnknown);
    return;
  }
  if (inf->dims.size() != decl.dims.size()) {
    out.insert(out.end(), scored, kWrong);
    return;
  }
  for (std::size_t i = 0; i < decl.dims.size(); ++i) {
    const auto& d = decl.dims[i];
    const auto& x = inf->dims[i];
    if (std::holds_alternative<std::monostate>(d)) continue;
    if (auto dv = std::get_if<std::int64_t>(&d)) {
      if (auto xv = std::get_if<std::int64_t>(&x))
        out.push_back(*xv == *dv ? kExact : kWrong);
      else
        out.push_back(kUnknown);
    } else {
      const auto& dp = std::get<std::string>(d);
      if (auto xp = std::get_if<std::string>(&x))
        out.push_back(*xp == dp ? kExact : kUnknown);
      else if (std::holds_alternative<std::int64_t>(x))
        out.push_back(kNumForSym);
      else
        out.push_back(kUnknown);
    }
  }
}

struct EngineResult {
  Score outputs, value_info;
  bool crashed = false;
  std::string error;
};

/// Scores one engine's result (`inf_*`) against the declarations.
void score_model(const std::string& model_name, const ModelShapes& decl_out, const ModelShapes& decl_vi,
                 const ModelShapes& inf_out, const ModelShapes& inf_vi, const Producers& producers, bool crashed,
                 EngineResult& r, std::vector<Finding>* findings) {
  auto run = [&](const ModelShapes& decl, const ModelShapes& inf, bool from_value_info, Score& s) {
    for (const auto& [path, values] : decl) {
      const GraphShapes* ig = nullptr;
      if (auto it = inf.find(path); it != inf.end()) ig = &it->second;
      // Inferred value_info may also land on a graph output, and vice versa: search both.
      const GraphShapes* other = nullptr;
      const ModelShapes& other_map = from_value_info ? inf_out : inf_vi;
      if (auto it = other_map.find(path); it != other_map.end()) other = &it->second;
      for (const auto& [name, shape] : values) {
        const ShapeRep* is = nullptr;
        if (ig)
          if (auto it = ig->find(name); it != ig->end() && it->second.has_shape) is = &it->second;
        if (!is && other)
          if (auto it = other->find(name); it != other->end() && it->second.has_shape) is = &it->second;
        std::vector<Verdict> v;
        score_value(shape, is, crashed, v);
        bool listed = false;
        for (auto x : v) {
          ++s.n[x];
          if (findings && !listed && x != kExact) {
            std::string op = "?";
            if (auto pit = producers.find(path); pit != producers.end())
              if (auto nit = pit->second.find(name); nit != pit->second.end()) op = nit->second;
            findings->push_back({model_name, path, name, op, shape_str(shape), is ? shape_str(*is) : "(no shape)", x});
            listed = (x == kWrong || x == kNumForSym);  // one line per wrong value; every unknown dim counts
          }
        }
      }
    }
  };
  run(decl_out, inf_out, false, r.outputs);
  run(decl_vi, inf_vi, true, r.value_info);
}

// ---- misc ----

std::string read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::string s;
  in.seekg(0, std::ios::end);
  s.resize(static_cast<std::size_t>(in.tellg()));
  in.seekg(0);
  in.read(s.data(), static_cast<std::streamsize>(s.size()));
  return s;
}

template <class Setup, class F>
double median_us(int runs, Setup&& setup, F&& f) {
  std::vector<double> t;
  for (int r = 0; r < runs; ++r) {
    setup();
    auto a = clock_type::now();
    f();
    auto b = clock_type::now();
    t.push_back(std::chrono::duration<double, std::micro>(b - a).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

void print_row(const char* label, const Score& s) {
  std::printf("  %-22s %9zu %9zu %7.2f%% %9zu %9zu %9zu %9zu\n", label, s.scored(), s.n[kExact], s.pct_exact(),
              s.n[kUnknown], s.n[kWrong], s.n[kNumForSym], s.n[kCrash]);
}

// --bind-inputs N: the graph inputs whose test-data value (test_data_set_0/input_K.pb next to the
// model) has at most N elements become initializers holding that value, as if the exporter had
// folded them. Backend tests feed shapes, axes, scales, K, depth, window sizes... as graph inputs;
// from the model alone those outputs are not determined. This measures how many of the remaining
// unknown dims are exactly those. Models of IR version < 4 (initializers must be inputs) are left as
// they are. Returns the number of inputs bound.
std::size_t bind_small_inputs(oxir::Model& m, const fs::path& model_file, std::size_t max_elements) {
  if (m.ir_version < 4) return 0;
  const fs::path dir = model_file.parent_path() / "test_data_set_0";
  std::size_t bound = 0;
  std::vector<oxir::ValueInfo> kept;
  for (std::size_t k = 0; k < m.graph.inputs.size(); ++k) {
    auto& in = m.graph.inputs[k];
    const fs::path f = dir / ("input_" + std::to_string(k) + ".pb");
    std::error_code ec;
    bool bind = false;
    if (fs::is_regular_file(f, ec)) {
      try {
        const std::string bytes = read_bytes(f);
        oxir::Tensor t = oxir::parse_tensor(std::as_bytes(std::span<const char>(bytes.data(), bytes.size())));
        // element_count() is nullopt on overflow (a SequenceProto read as a tensor has odd dims)
        const auto n = t.element_count();
        // A file whose element type differs from the declared input's (bfloat16 inputs are stored
        // as their uint16 bits) is not that input's value: left alone.
        const auto* declared = in.type ? std::get_if<oxir::TensorType>(&in.type->value) : nullptr;
        const bool same_type = !declared || declared->elem_type == t.data_type;
        if (n && *n <= max_elements && t.data_type != oxir::DataType::STRING && same_type) {
          t.name = in.name;
          m.graph.initializers.push_back(std::move(t));
          bind = true;
          ++bound;
        }
      } catch (const std::exception&) {
        // not a tensor (a sequence or an optional): leave the input alone
      }
    }
    if (!bind) kept.push_back(std::move(in));
  }
  m.graph.inputs = std::move(kept);
  return bound;
}

std::string rel_name(const fs::path& p, const fs::path& corpus) {
  std::error_code ec;
  auto r = fs::relative(p.parent_path(), corpus, ec);
  if (ec || r.empty() || r.native().starts_with("..")) return p.string();
  return p.filename() == "model.onnx" ? r.string() : (r / p.filename()).string();
}

}  // namespace

int main(int argc, char** argv) {
  fs::path corpus = "/usr/share/libonnx-testdata/data";
  double min_exact = -1;
  long max_wrong = -1, max_rejected = -1;
  int runs = 5;
  bool timing = true, verbose = false;
  std::size_t list = 50;
  long bind_max = -1;
  std::vector<fs::path> files;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "infer_score: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--corpus") corpus = next();
    else if (a == "--min-exact") min_exact = std::atof(next().c_str());
    else if (a == "--max-wrong") max_wrong = std::atol(next().c_str());
    else if (a == "--max-rejected") max_rejected = std::atol(next().c_str());
    else if (a == "--runs") runs = std::max(1, std::atoi(next().c_str()));
    else if (a == "--list") list = static_cast<std::size_t>(std::atol(next().c_str()));
    else if (a == "--no-timing") timing = false;
    else if (a == "--bind-inputs") bind_max = std::atol(next().c_str());
    else if (a == "--verbose" || a == "-v") verbose = true;
    else if (a == "--help" || a == "-h") {
      std::printf("usage: infer_score [--corpus DIR] [--min-exact PCT] [--max-wrong N] [--max-rejected N] [--runs N]\n"
                  "                   [--no-timing] [--list N] [--verbose] [--bind-inputs N] [MODEL.onnx...]\n");
      return 0;
    } else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "infer_score: unknown option %s\n", a.c_str());
      return 2;
    } else files.emplace_back(a);
  }
  if (files.empty()) {
    std::error_code ec;
    if (!fs::is_directory(corpus, ec)) {
      std::fprintf(stderr, "infer_score: corpus %s not found\n", corpus.c_str());
      return 2;
    }
    for (const auto& e : fs::recursive_directory_iterator(corpus, ec))
      if (e.is_regular_file() && e.path().extension() == ".onnx") files.push_back(e.path());
    std::sort(files.begin(), files.end());
  }
  if (files.empty()) {
    std::fprintf(stderr, "infer_score: no models\n");
    return 2;
  }

  EngineResult total_ox, total_pb;
  std::vector<Finding> findings;  // oxir's non-exact values
  std::map<std::string, std::size_t> unsupported_ops;
  std::map<std::string, std::array<std::size_t, kVerdicts>> by_op;          // oxir verdicts by producer op
  std::map<std::string, std::size_t> behind_onnx;                           // dims onnx gets exact, oxir not
  std::size_t load_failures = 0, ox_crashes = 0, pb_crashes = 0, timed = 0, bound_inputs = 0;
  std::vector<std::string> rejected;  // models with an error diagnostic from oxir: "name: message"
  double log_ratio_sum = 0, ox_total_us = 0, pb_total_us = 0;
  double log_floor_ratio_sum = 0, floor_total_us = 0;
  const auto* registry = onnx::OpSchemaRegistry::Instance();
  const onnx::ShapeInferenceOptions pb_options(/*check_type=*/false, /*error_mode=*/0, /*data_prop=*/true);

  if (verbose)
    std::printf("%-58s %6s %6s | %6s %6s %6s | %10s %10s %7s\n", "model", "dims", "ox_ok", "ox_unk", "ox_bad",
                "pb_ok", "oxir_us", "onnx_us", "ratio");
  for (const auto& f : files) {
    const std::string name = rel_name(f, corpus);
    oxir::Model original;
    std::string bytes;
    try {
      bytes = read_bytes(f);
      original = oxir::parse_model(std::string_view(bytes));
    } catch (const std::exception& e) {
      ++load_failures;
      std::printf("LOAD FAILED %s: %s\n", name.c_str(), e.what());
      continue;
    }
    ModelShapes decl_out, decl_vi;
    Producers producers;
    collect(original, decl_out, decl_vi, &producers);

    oxir::Model cleared = original;
    clear_model(cleared);
    if (bind_max >= 0) bound_inputs += bind_small_inputs(cleared, f, static_cast<std::size_t>(bind_max));
    onnx::ModelProto cleared_pb;
    if (!cleared_pb.ParseFromString(oxir::serialize_model_to_string(cleared))) {
      ++load_failures;
      std::printf("PROTOBUF PARSE FAILED %s\n", name.c_str());
      continue;
    }

    // oxir
    EngineResult ox;
    ModelShapes ox_out, ox_vi;
    oxir::Model inferred;  // oxir's answer, for the write-back floor below
    {
      oxir::Model m = cleared;
      try {
        auto report = oxir::infer_shapes(m);
        if (timing) inferred = m;
        for (const auto& d : report.diagnostics)
          if (d.kind == oxir::infer::DiagnosticKind::UnsupportedOp) ++unsupported_ops[d.op_type];
        if (report.nodes_failed || report.conflicts) {
          std::string first;
          for (const auto& d : report.diagnostics)
            if (d.severity == oxir::infer::Severity::Error) {
              first = d.to_string();
              break;
            }
          rejected.push_back(name + ": " + first);
        }
        collect(m, ox_out, ox_vi);
      } catch (const std::exception& e) {
        ox.crashed = true;
        ox.error = e.what();
      } catch (...) {
        ox.crashed = true;
        ox.error = "unknown exception";
      }
    }
    // onnx
    EngineResult pb;
    ModelShapes pb_out, pb_vi;
    {
      onnx::ModelProto m = cleared_pb;
      try {
        onnx::shape_inference::InferShapes(m, registry, pb_options);
        collect(m.graph(), "graph", pb_out, pb_vi);
      } catch (const std::exception& e) {
        pb.crashed = true;
        pb.error = e.what();
      } catch (...) {
        pb.crashed = true;
        pb.error = "unknown exception";
      }
    }
    if (ox.crashed) {
      ++ox_crashes;
      std::printf("OXIR THREW %s: %s\n", name.c_str(), ox.error.c_str());
    }
    if (pb.crashed) {
      ++pb_crashes;
      if (verbose) std::printf("onnx threw %s: %s\n", name.c_str(), pb.error.c_str());
    }

    std::vector<Finding> model_findings;
    score_model(name, decl_out, decl_vi, ox_out, ox_vi, producers, ox.crashed, ox, &model_findings);
    score_model(name, decl_out, decl_vi, pb_out, pb_vi, producers, false, pb, nullptr);
    // onnx's "crash" means no output at all: its dims are already counted unknown; count them as crash.
    if (pb.crashed) {
      pb.outputs.n[kCrash] += pb.outputs.n[kUnknown];
      pb.outputs.n[kUnknown] = 0;
      pb.value_info.n[kCrash] += pb.value_info.n[kUnknown];
      pb.value_info.n[kUnknown] = 0;
    }
    total_ox.outputs.add(ox.outputs);
    total_ox.value_info.add(ox.value_info);
    total_pb.outputs.add(pb.outputs);
    total_pb.value_info.add(pb.value_info);
    if (ox.outputs.scored()) {
      ++total_ox.outputs.models;
      if (ox.outputs.n[kExact] == ox.outputs.scored()) ++total_ox.outputs.models_exact;
      if (pb.outputs.n[kExact] == pb.outputs.scored()) ++total_pb.outputs.models_exact;
    }

    // Gap analysis by producer op (graph outputs and value_info alike).
    for (const auto& fd : model_findings) {
      auto& row = by_op[fd.op];
      ++row[fd.verdict];
    }
    {
      // dims onnx gets exactly and oxir does not, per value, attributed to the producer op
      for (const auto* pair : {&decl_out, &decl_vi}) {
        const bool is_vi = pair == &decl_vi;
        for (const auto& [path, values] : *pair)
          for (const auto& [vname, shape] : values) {
            auto lookup = [&](const ModelShapes& o, const ModelShapes& v) -> const ShapeRep* {
              for (const auto* mp : is_vi ? std::array{&v, &o} : std::array{&o, &v})
                if (auto it = mp->find(path); it != mp->end())
                  if (auto jt = it->second.find(vname); jt != it->second.end() && jt->second.has_shape)
                    return &jt->second;
              return nullptr;
            };
            std::vector<Verdict> a, b;
            score_value(shape, lookup(ox_out, ox_vi), ox.crashed, a);
            score_value(shape, lookup(pb_out, pb_vi), pb.crashed, b);
            std::size_t gap = 0;
            for (std::size_t i = 0; i < a.size() && i < b.size(); ++i)
              if (b[i] == kExact && a[i] != kExact) ++gap;
            if (gap) {
              std::string op = "?";
              if (auto pit = producers.find(path); pit != producers.end())
                if (auto nit = pit->second.find(vname); nit != pit->second.end()) op = nit->second;
              behind_onnx[op] += gap;
            }
          }
      }
    }
    for (auto& fd : model_findings)
      if (fd.verdict == kWrong || fd.verdict == kNumForSym || fd.verdict == kCrash) findings.push_back(std::move(fd));
      else if (verbose) findings.push_back(std::move(fd));

    // Timing on fresh copies of the cleared model.
    double ox_us = 0, pb_us = 0;
    if (timing && !ox.crashed && !pb.crashed) {
      oxir::Model m;
      ox_us = median_us(
          runs, [&] { m = cleared; }, [&] { (void)oxir::infer_shapes(m); });
      onnx::ModelProto p;
      pb_us = median_us(
          runs, [&] { p.CopyFrom(cleared_pb); },
          [&] {
            try {
              onnx::shape_inference::InferShapes(p, registry, pb_options);
            } catch (...) {
            }
          });
      // The write-back floor: only storing oxir's own answer (the main graph's output types and
      // value_info) into a fresh copy of the cleared model, with no inference at all. Any engine
      // that produces an oxir::Model pays at least this, so onnx_time / floor_time bounds the
      // speed-up any engine could show here.
      const double floor_us = median_us(
          runs, [&] { m = cleared; },
          [&] {
            for (std::size_t i = 0; i < m.graph.outputs.size() && i < inferred.graph.outputs.size(); ++i)
              m.graph.outputs[i].type = inferred.graph.outputs[i].type;
            m.graph.value_info = inferred.graph.value_info;
          });
      if (ox_us > 0 && pb_us > 0) {
        log_floor_ratio_sum += std::log(pb_us / std::max(floor_us, 0.001));
        floor_total_us += floor_us;
        log_ratio_sum += std::log(pb_us / ox_us);
        ox_total_us += ox_us;
        pb_total_us += pb_us;
        ++timed;
      }
    }
    if (verbose)
      std::printf("%-58s %6zu %6zu | %6zu %6zu %6zu | %10.1f %10.1f %7.2f\n", name.c_str(), ox.outputs.scored(),
                  ox.outputs.n[kExact], ox.outputs.n[kUnknown], ox.outputs.n[kWrong] + ox.outputs.n[kNumForSym],
                  pb.outputs.n[kExact], ox_us, pb_us, ox_us > 0 ? pb_us / ox_us : 0.0);
  }

  // ---- report ----
  std::printf("\noxir shape inference vs onnx 1.12 InferShapes on %zu models under %s (%zu failed to load)\n",
              files.size(), corpus.c_str(), load_failures);
  if (bind_max >= 0)
    std::printf("  --bind-inputs %ld: %zu graph inputs of at most %ld elements replaced by initializers holding\n"
                "  their test_data_set_0 values (what the model leaves to run time made constant)\n",
                bind_max, bound_inputs, bind_max);
  std::printf("  %-22s %9s %9s %8s %9s %9s %9s %9s\n", "", "scored", "exact", "exact%", "unknown", "wrong",
              "num4sym", "crash");
  print_row("oxir  graph outputs", total_ox.outputs);
  print_row("onnx  graph outputs", total_pb.outputs);
  if (total_ox.value_info.scored() || total_pb.value_info.scored()) {
    print_row("oxir  value_info", total_ox.value_info);
    print_row("onnx  value_info", total_pb.value_info);
  }
  std::printf("  models with scored outputs: %zu; all outputs exact: oxir %zu, onnx %zu; threw: oxir %zu, onnx %zu\n",
              total_ox.outputs.models, total_ox.outputs.models_exact, total_pb.outputs.models_exact, ox_crashes,
              pb_crashes);

  std::size_t shown = 0, wrong_values = 0;
  for (const auto& fd : findings)
    if (fd.verdict != kExact && fd.verdict != kUnknown) ++wrong_values;
  std::printf("\noxir: wrong / num-for-sym / crashed values (%zu%s):\n", wrong_values,
              wrong_values > list ? (", first " + std::to_string(list)).c_str() : "");
  for (const auto& fd : findings) {
    if (fd.verdict == kUnknown || fd.verdict == kExact) continue;
    if (shown++ >= list) break;
    std::printf("  %-11s %s  %s%s '%s' (%s): declared %s, inferred %s\n", kVerdictNames[fd.verdict], fd.model.c_str(),
                fd.graph == "graph" ? "" : (fd.graph + " ").c_str(), "value", fd.value.c_str(), fd.op.c_str(),
                fd.declared.c_str(), fd.inferred.c_str());
  }
  if (verbose) {
    std::printf("\noxir: values with unknown dims:\n");
    for (const auto& fd : findings)
      if (fd.verdict == kUnknown)
        std::printf("  %s  %s '%s' (%s): declared %s, inferred %s\n", fd.model.c_str(), fd.graph.c_str(),
                    fd.value.c_str(), fd.op.c_str(), fd.declared.c_str(), fd.inferred.c_str());
  }

  {
    std::vector<std::pair<std::size_t, std::string>> v;
    for (const auto& [op, n] : behind_onnx) v.emplace_back(n, op);
    std::sort(v.rbegin(), v.rend());
    std::printf("\noxir behind onnx (dims onnx infers exactly, oxir not), by producer op (top 25 of %zu):\n",
                v.size());
    for (std::size_t i = 0; i < v.size() && i < 25; ++i) std::printf("  %-28s %6zu\n", v[i].second.c_str(), v[i].first);
  }
  {
    std::vector<std::pair<std::size_t, std::string>> v;
    for (const auto& [op, row] : by_op) v.emplace_back(row[kUnknown] + row[kWrong] + row[kNumForSym], op);
    std::sort(v.rbegin(), v.rend());
    std::printf("\noxir non-exact dims by producer op (top 25 of %zu):  unknown wrong num4sym\n", v.size());
    for (std::size_t i = 0; i < v.size() && i < 25; ++i) {
      const auto& row = by_op[v[i].second];
      std::printf("  %-28s %6zu %6zu %6zu\n", v[i].second.c_str(), row[kUnknown], row[kWrong], row[kNumForSym]);
    }
  }
  {
    std::vector<std::pair<std::size_t, std::string>> v;
    for (const auto& [op, n] : unsupported_ops) v.emplace_back(n, op);
    std::sort(v.rbegin(), v.rend());
    std::printf("\noxir unsupported ops (nodes; top 40 of %zu):", v.size());
    for (std::size_t i = 0; i < v.size() && i < 40; ++i)
      std::printf("%s %s %zu", i % 6 ? "," : "\n  ", v[i].second.c_str(), v[i].first);
    std::printf("\n");
  }

  if (timing) {
    const double gm = timed ? std::exp(log_ratio_sum / static_cast<double>(timed)) : 0;
    std::printf("\ntiming (median of %d runs, %zu models both engines ran): oxir %.1f ms, onnx %.1f ms in total;\n"
                "  geometric mean of onnx_time/oxir_time = %.2fx (target >= 10x); ratio of totals %.2fx\n",
                runs, timed, ox_total_us / 1000, pb_total_us / 1000, gm,
                ox_total_us > 0 ? pb_total_us / ox_total_us : 0.0);
    const double floor_gm = timed ? std::exp(log_floor_ratio_sum / static_cast<double>(timed)) : 0;
    std::printf("  write-back floor (storing oxir's answer into the cleared model, no inference): %.1f ms in total;\n"
                "  geometric mean of onnx_time/floor_time = %.2fx: no engine that writes an oxir::Model beats this\n",
                floor_total_us / 1000, floor_gm);
  }

  std::printf("\noxir error diagnostics (a node rejected or a conflict) on %zu valid models%s\n", rejected.size(),
              rejected.empty() ? "" : ":");
  for (std::size_t i = 0; i < rejected.size() && i < list; ++i) std::printf("  %s\n", rejected[i].c_str());

  int rc = 0;
  const std::size_t ox_wrong = total_ox.outputs.n[kWrong];
  if (max_rejected >= 0 && rejected.size() > static_cast<std::size_t>(max_rejected)) {
    std::printf("\nFAIL: oxir rejected %zu valid models > --max-rejected %ld\n", rejected.size(), max_rejected);
    rc = 1;
  }
  if (min_exact >= 0 && total_ox.outputs.pct_exact() < min_exact) {
    std::printf("\nFAIL: oxir exact %.2f%% < --min-exact %.2f%%\n", total_ox.outputs.pct_exact(), min_exact);
    rc = 1;
  }
  if (max_wrong >= 0 && ox_wrong > static_cast<std::size_t>(max_wrong)) {
    std::printf("\nFAIL: oxir wrong dims %zu > --max-wrong %ld\n", ox_wrong, max_wrong);
    rc = 1;
  }
  if (ox_crashes && max_wrong >= 0) {
    std::printf("\nFAIL: oxir threw on %zu models\n", ox_crashes);
    rc = 1;
  }
  return rc;
}
