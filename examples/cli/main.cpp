// oxir: command-line tool over the library.
//   oxir info MODEL
//   oxir convert IN OUT [--external-data FILE] [--size-threshold BYTES]
//                [--max-file-bytes BYTES] [--internalize] [--lossy]
//                (IN or OUT ending in .onnxtxt: ONNX's textual syntax)
//   oxir infer IN OUT [--strict] [--overwrite]
//   oxir check MODEL [--no-infer]
//   oxir optimize IN OUT [--inline] [--no-fold] [--no-fold-tensors] [--no-fold-branches] [--fold-limit BYTES]
//                 [--no-identity] [--no-cse] [--no-noop] [--keep-unused] [--keep-order]
//   oxir extract IN OUT --output NAME... [--input NAME...]
//   oxir prefix IN OUT PREFIX [--keep-inputs] [--keep-outputs] [--keep-initializers]
//               [--keep-intermediates] [--keep-node-names] [--keep-functions] [--dim-params]
//   oxir merge A B OUT [--connect OUTPUT INPUT]... [--prefix1 P] [--prefix2 P] [--prefix-dim-params]
//              [--input NAME]... [--output NAME]... [--name GRAPH_NAME]
//   oxir upgrade IN OUT --opset N
//   oxir downgrade IN OUT --opset N
//   oxir bench MODEL [--runs N]
// A MODEL, IN or OUT named *.onnxtxt is in ONNX's textual syntax (bench reads the wire format).
// Exit codes: 0 success, 1 bad model (or I/O failure), 2 bad usage.
#include <oxir/oxir.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <ranges>
#include <unistd.h>
#include <string>
#include <unordered_set>
#include <vector>

namespace {

constexpr const char* usage =
    "usage:\n"
    "  oxir info MODEL\n"
    "  oxir convert IN OUT [--external-data FILE] [--size-threshold BYTES] [--max-file-bytes BYTES]\n"
    "               [--internalize] [--lossy]    (IN or OUT *.onnxtxt: textual syntax)\n"
    "  oxir infer IN OUT [--strict] [--overwrite]\n"
    "  oxir check MODEL [--no-infer]\n"
    "  oxir optimize IN OUT [--inline] [--no-fold] [--no-fold-tensors] [--no-fold-branches]\n"
    "                [--fold-limit BYTES] [--no-identity] [--no-cse] [--no-noop] [--keep-unused] [--keep-order]\n"
    "  oxir extract IN OUT --output NAME... [--input NAME...]\n"
    "  oxir prefix IN OUT PREFIX [--keep-inputs] [--keep-outputs] [--keep-initializers]\n"
    "              [--keep-intermediates] [--keep-node-names] [--keep-functions] [--dim-params]\n"
    "  oxir merge A B OUT [--connect OUTPUT INPUT]... [--prefix1 P] [--prefix2 P] [--prefix-dim-params]\n"
    "             [--input NAME]... [--output NAME]... [--name GRAPH_NAME]\n"
    "  oxir upgrade IN OUT --opset N\n"
    "  oxir downgrade IN OUT --opset N\n"
    "  oxir bench MODEL [--runs N]\n";

struct UsageError {
  std::string message;
};

std::uint64_t parse_count(const std::string& flag, const std::string& text) {
  if (text.empty() || !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }) ||
      text.size() > 19)
    throw UsageError{flag + " needs a non-negative integer, got \"" + text + "\""};
  return std::stoull(text);
}

void print_value(const oxir::ValueInfo& v) {
  std::cout << "    " << v.name << ": ";
  if (v.type) std::cout << *v.type;
  else std::cout << "(no type)";
  std::cout << "\n";
}

// Runs `f`, naming `file` in front of the field path of any oxir::Error it throws.
template <class F>
auto naming(const std::string& file, F&& f) {
  try {
    return f();
  } catch (const oxir::Error& e) {
    throw oxir::Error(file + (e.path().empty() ? "" : ": " + e.path()), e.message());
  }
}

// A file named *.onnxtxt is ONNX's textual syntax; anything else the protobuf wire format.
bool is_text_path(const std::string& p) { return std::filesystem::path(p).extension() == ".onnxtxt"; }

oxir::Model load_any(const std::string& path, const oxir::LoadOptions& options = {}) {
  return is_text_path(path) ? oxir::load_text_model(path, options) : oxir::load_model(path, options);
}

// Writes a model that a command derived from its input. Where the input kept weights in external
// data, so does OUT: its tensors of at least SaveOptions::size_threshold bytes go to "OUT.data"
// (a model the user stored that way is not turned into one large protobuf file). Otherwise
// everything stays inline, unless it passes 2 GiB (save_model's default).
void save_any(const oxir::Model& m, const std::string& path) {
  if (is_text_path(path)) {
    oxir::save_text_model(m, path);
    return;
  }
  oxir::SaveOptions options;
  if (oxir::io::tensor_storage(m).external) options.external_data_file = std::filesystem::path(path).filename().string() + ".data";
  oxir::save_model(m, path, options);
}

int info(const std::vector<std::string>& args) {
  if (args.size() != 1) throw UsageError{"info takes one MODEL"};
  const oxir::Model m = load_any(args[0]);
  const std::size_t nodes = m.graph.nodes.size();
  const auto with_subgraphs = static_cast<std::size_t>(std::ranges::distance(oxir::views::all_nodes(m.graph)));
  std::uint64_t inline_bytes = 0, external_bytes = 0;
  std::size_t tensors = 0;
  oxir::io::for_each_tensor(m, [&](const oxir::Tensor& t, const std::string&) {
    ++tensors;
    (t.is_external() ? external_bytes : inline_bytes) += t.data.size();  // size() never loads
  });
  std::cout << "file: " << args[0] << "\n";
  std::cout << "ir_version: " << m.ir_version << "\n";
  std::cout << "opset_import:";
  for (const auto& o : m.opset_imports) std::cout << " " << (o.domain.empty() ? "\"\"" : o.domain) << "=" << o.version;
  std::cout << "\n";
  std::cout << "producer: " << m.producer_name << (m.producer_version.empty() ? "" : " " + m.producer_version) << "\n";
  if (!m.domain.empty()) std::cout << "domain: " << m.domain << "\n";
  std::cout << "graph: " << m.graph.name << "\n";
  std::cout << "nodes: " << nodes << " (" << with_subgraphs << " including subgraphs)\n";
  std::cout << "initializers: " << m.graph.initializers.size() << " (+" << m.graph.sparse_initializers.size()
            << " sparse)\n";
  std::cout << "functions: " << m.functions.size() << "\n";
  std::cout << "value_info: " << m.graph.value_info.size() << "\n";
  std::cout << "inputs:\n";
  for (const auto& v : m.graph.inputs) print_value(v);
  std::cout << "outputs:\n";
  for (const auto& v : m.graph.outputs) print_value(v);
  std::cout << "tensors: " << tensors << ", weight bytes: inline=" << inline_bytes << " external=" << external_bytes
            << "\n";
  return 0;
}

int convert(const std::vector<std::string>& args) {
  std::vector<std::string> positional;
  oxir::SaveOptions options;
  oxir::TextOptions text_options;
  bool binary_only = false;  // an option that only a binary OUT can follow
  for (std::size_t i = 0; i < args.size(); ++i) {
    const auto& a = args[i];
    auto value = [&]() -> const std::string& {
      if (i + 1 >= args.size()) throw UsageError{a + " needs a value"};
      return args[++i];
    };
    if (a == "--external-data") options.external_data_file = value();
    else if (a == "--size-threshold") options.size_threshold = parse_count(a, value());
    else if (a == "--max-file-bytes") options.max_external_file_bytes = parse_count(a, value());
    else if (a == "--internalize") options.internalize = true;
    else if (a == "--lossy") text_options.lossy = true;
    else if (a.rfind("--", 0) == 0) throw UsageError{"unknown option " + a};
    else positional.push_back(a);
    if (a == "--external-data" || a == "--size-threshold" || a == "--max-file-bytes") binary_only = true;
  }
  if (positional.size() != 2) throw UsageError{"convert takes IN and OUT"};
  const bool text_out = is_text_path(positional[1]);
  if (text_out && binary_only)
    throw UsageError{"a textual OUT (.onnxtxt) keeps every tensor inline: --external-data, --size-threshold and "
                     "--max-file-bytes do not apply"};
  if (!text_out && text_options.lossy) throw UsageError{"--lossy applies to a textual OUT (.onnxtxt) only"};
  if (options.internalize && options.external_data_file)
    throw UsageError{"--internalize and --external-data exclude each other"};
  if (options.internalize && options.max_external_file_bytes != 0)
    throw UsageError{"--internalize and --max-file-bytes exclude each other"};
  if (options.external_data_file) {
    try {
      oxir::io::check_data_file_name(*options.external_data_file, positional[1]);
    } catch (const oxir::Error& e) {
      throw UsageError{std::string("--external-data: ") + e.what()};
    }
  }
  // Saving reads every tensor, so read external data now: its errors then name the IN file.
  oxir::LoadOptions load;
  load.load_external_data = true;
  const auto m = load_any(positional[0], load);
  try {
    if (text_out) oxir::save_text_model(m, positional[1], text_options);
    else oxir::save_model(m, positional[1], options);
  } catch (const oxir::Error& e) {
    // What went wrong writing OUT or its data files (FILE, FILE.1, ... beside OUT) names them.
    const auto starts = [&](const std::string& prefix) { return e.path().rfind(prefix, 0) == 0; };
    if (starts(positional[1])) throw;
    if (options.external_data_file &&
        starts((std::filesystem::path(positional[1]).parent_path() / *options.external_data_file).string()))
      throw;
    throw oxir::Error(positional[0] + (e.path().empty() ? "" : ": " + e.path()), e.message());
  }
  return 0;
}

// Shape/type inference: writes the annotated model to OUT and the diagnostics to stderr. Exit 1
// when --strict and a conflict or malformed node was found (OUT is not written then).
int infer(const std::vector<std::string>& args) {
  std::vector<std::string> positional;
  oxir::InferOptions opts;
  for (const auto& a : args) {
    if (a == "--strict") opts.strict = true;
    else if (a == "--overwrite") opts.overwrite = true;
    else if (a.rfind("--", 0) == 0) throw UsageError{"unknown option " + a};
    else positional.push_back(a);
  }
  if (positional.size() != 2) throw UsageError{"infer takes IN and OUT"};
  oxir::Model m = load_any(positional[0]);
  oxir::InferReport r;
  try {
    r = oxir::infer_shapes(m, opts);
  } catch (const oxir::Error& e) {
    std::cerr << "oxir: " << positional[0] << ": " << e.what() << "\n";
    return 1;
  }
  for (const auto& d : r.diagnostics) std::cerr << positional[0] << ": " << d.to_string() << "\n";
  if (r.diagnostics_dropped)
    std::cerr << positional[0] << ": " << r.diagnostics_dropped << " more diagnostics not listed (counted below)\n";
  save_any(m, positional[1]);
  std::cout << "inferred " << r.values_typed << " values (" << r.values_unknown << " unknown) over " << r.nodes
            << " nodes; " << r.nodes_unsupported << " without a rule, " << r.nodes_failed << " rejected, "
            << r.conflicts << " conflicts, " << r.type_errors << " type errors"
            << (r.attribute_errors ? ", " + std::to_string(r.attribute_errors) + " unknown attributes" : std::string()) << "\n";
  return 0;
}

// The IR spec's structural rules (oxir::check), then, unless --no-infer or the structure is
// already broken, the errors inference finds against the operators' definitions (invalid nodes,
// conflicting sizes, types their constraints exclude, unknown attributes). Issues go to stderr,
// a verdict to stdout; exit 1 when there is any error.
int check(const std::vector<std::string>& args) {
  std::vector<std::string> positional;
  bool with_inference = true;
  for (const auto& a : args) {
    if (a == "--no-infer") with_inference = false;
    else if (a.rfind("--", 0) == 0) throw UsageError{"unknown option " + a};
    else positional.push_back(a);
  }
  if (positional.size() != 1) throw UsageError{"check takes one MODEL"};
  const std::string& file = positional[0];
  oxir::Model m = load_any(file);
  const oxir::CheckReport r = oxir::check(m);
  for (const auto& i : r.issues)
    std::cerr << file << ": " << (i.severity == oxir::CheckIssue::Severity::Error ? "error: " : "warning: ") << i.path
              << ": " << i.message << "\n";
  std::size_t errors = r.errors();
  const std::size_t warnings = r.issues.size() - errors;
  if (with_inference && r.ok()) {
    const oxir::InferReport ir = oxir::infer_shapes(m);  // m is not read again: no copy needed
    std::size_t listed = 0;
    for (const auto& d : ir.diagnostics)
      if (d.severity == oxir::infer::Severity::Error) {
        std::cerr << file << ": " << d.to_string() << "\n";
        ++listed;
      }
    if (ir.diagnostics_dropped)  // the report stopped listing them; its counts go on
      std::cerr << file << ": " << ir.diagnostics_dropped << " more inference diagnostics not listed\n";
    errors += std::max(listed, ir.diagnostics_dropped ? ir.nodes_failed + ir.conflicts + ir.type_errors + ir.attribute_errors
                                                      : std::size_t{0});
  }
  std::cout << file << ": " << (errors ? "invalid" : "valid") << " (" << errors << " errors, " << warnings << " warnings"
            << (with_inference && r.ok() ? "" : "; inference not run") << ")\n";
  return errors ? 1 : 0;
}

// The part of IN that computes the --output values from the --input values (default: the graph
// inputs that are not initializers), as OUT.
int extract(const std::vector<std::string>& args) {
  std::vector<std::string> positional, inputs, outputs;
  bool inputs_given = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const auto& a = args[i];
    auto value = [&]() -> const std::string& {
      if (i + 1 >= args.size()) throw UsageError{a + " needs a value name"};
      return args[++i];
    };
    if (a == "--input") {
      inputs.push_back(value());
      inputs_given = true;
    } else if (a == "--output") {
      outputs.push_back(value());
    } else if (a.rfind("--", 0) == 0) {
      throw UsageError{"unknown option " + a};
    } else {
      positional.push_back(a);
    }
  }
  if (positional.size() != 2) throw UsageError{"extract takes IN and OUT"};
  if (outputs.empty()) throw UsageError{"extract needs at least one --output NAME"};
  oxir::LoadOptions load;
  load.load_external_data = true;
  const oxir::Model m = load_any(positional[0], load);
  if (!inputs_given) {
    std::unordered_set<std::string> initializers;
    for (const auto& t : m.graph.initializers) initializers.insert(t.name);
    for (const auto& v : m.graph.inputs)
      if (!initializers.count(v.name)) inputs.push_back(v.name);
  }
  const oxir::Model part = naming(positional[0], [&] { return oxir::extract_model(m, inputs, outputs); });
  save_any(part, positional[1]);
  std::cout << "extracted " << part.graph.nodes.size() << " of " << m.graph.nodes.size() << " nodes, "
            << part.graph.initializers.size() << " of " << m.graph.initializers.size() << " initializers, "
            << part.functions.size() << " of " << m.functions.size() << " functions\n";
  return 0;
}

// IN with PREFIX before its names (rewrite/compose.hpp add_prefix), as OUT; each --keep-* option
// leaves one kind of name as it is; --dim-params prefixes the symbolic dims too.
int prefix(const std::vector<std::string>& args) {
  std::vector<std::string> positional;
  oxir::PrefixOptions o;
  for (const auto& a : args) {
    if (a == "--keep-inputs") o.inputs = false;
    else if (a == "--keep-outputs") o.outputs = false;
    else if (a == "--keep-initializers") o.initializers = false;
    else if (a == "--keep-intermediates") o.intermediates = false;
    else if (a == "--keep-node-names") o.nodes = false;
    else if (a == "--keep-functions") o.functions = false;
    else if (a == "--dim-params") o.dim_params = true;
    else if (a.rfind("--", 0) == 0) throw UsageError{"unknown option " + a};
    else positional.push_back(a);
  }
  if (positional.size() != 3) throw UsageError{"prefix takes IN, OUT and PREFIX"};
  oxir::LoadOptions load;
  load.load_external_data = true;
  oxir::Model m = load_any(positional[0], load);
  naming(positional[0], [&] { oxir::add_prefix(m, positional[2], o); });
  save_any(m, positional[1]);
  return 0;
}

// A and B joined into OUT (rewrite/compose.hpp merge_models): each --connect OUTPUT INPUT feeds
// A's output to B's input (names as in A and B, before prefixes); --input/--output choose the
// merged interface (names as in OUT).
int merge(const std::vector<std::string>& args) {
  std::vector<std::string> positional;
  std::vector<std::pair<std::string, std::string>> io_map;
  oxir::MergeOptions o;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const auto& a = args[i];
    auto value = [&]() -> const std::string& {
      if (i + 1 >= args.size()) throw UsageError{a + " needs a value"};
      return args[++i];
    };
    if (a == "--connect") {
      const std::string out = value();
      io_map.emplace_back(out, value());
    } else if (a == "--prefix1") {
      o.prefix1 = value();
    } else if (a == "--prefix2") {
      o.prefix2 = value();
    } else if (a == "--prefix-dim-params") {
      o.prefix_dim_params = true;
    } else if (a == "--input") {
      o.inputs.push_back(value());
    } else if (a == "--output") {
      o.outputs.push_back(value());
    } else if (a == "--name") {
      o.graph_name = value();
    } else if (a.rfind("--", 0) == 0) {
      throw UsageError{"unknown option " + a};
    } else {
      positional.push_back(a);
    }
  }
  if (positional.size() != 3) throw UsageError{"merge takes A, B and OUT"};
  oxir::LoadOptions load;
  load.load_external_data = true;
  const oxir::Model a = load_any(positional[0], load), b = load_any(positional[1], load);
  const oxir::Model m =
      naming(positional[0] + " + " + positional[1], [&] { return oxir::merge_models(a, b, io_map, o); });
  save_any(m, positional[2]);
  std::cout << "merged " << a.graph.nodes.size() << " + " << b.graph.nodes.size() << " nodes into "
            << m.graph.nodes.size() << "; " << m.graph.inputs.size() << " inputs, " << m.graph.outputs.size()
            << " outputs\n";
  return 0;
}

// IN converted to opset N of the default domain (rewrite/version.hpp upgrade_opset, or
// downgrade_opset for `downgrade`), as OUT.
int convert_opset(const std::vector<std::string>& args, bool down) {
  const std::string cmd = down ? "downgrade" : "upgrade";
  std::vector<std::string> positional;
  std::optional<std::int64_t> opset;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const auto& a = args[i];
    if (a == "--opset") {
      if (i + 1 >= args.size()) throw UsageError{"--opset needs a version"};
      opset = static_cast<std::int64_t>(parse_count(a, args[++i]) > 1000 ? 1000 : parse_count(a, args[i]));
    } else if (a.rfind("--", 0) == 0) {
      throw UsageError{"unknown option " + a};
    } else {
      positional.push_back(a);
    }
  }
  if (positional.size() != 2) throw UsageError{cmd + " takes IN and OUT"};
  if (!opset) throw UsageError{cmd + " needs --opset N"};
  oxir::LoadOptions load;
  load.load_external_data = true;
  oxir::Model m = load_any(positional[0], load);
  const auto ir = m.ir_version;
  const auto r = naming(positional[0],
                        [&] { return down ? oxir::downgrade_opset(m, *opset) : oxir::upgrade_opset(m, *opset); });
  save_any(m, positional[1]);
  std::cout << "opset " << r.from << " -> " << r.to << ": " << r.nodes_rewritten << " nodes rewritten, "
            << r.nodes_added << " added";
  if (m.ir_version != ir) std::cout << "; ir_version " << ir << " -> " << m.ir_version;
  std::cout << "\n";
  return 0;
}

// Simplifies a model without changing what it computes: with --inline, model-local function
// calls replaced by their bodies first; Identity nodes bypassed (subgraphs too), the static
// parts of shape computations and nodes of constant tensors folded into Constants, and If nodes
// with a constant condition replaced by the branch they take (fold_constants), repeated computations
// merged (eliminate_common_subexpressions), then the nodes and initializers nothing reads
// removed, and graphs out of topological order (which onnx's checker rejects) sorted. Each step
// can be turned off; a summary goes to stdout.
int optimize(const std::vector<std::string>& args) {
  std::vector<std::string> positional;
  bool fold = true, identity = true, unused = true, inline_calls = false, cse = true, sort = true, noop = true;
  oxir::FoldOptions fold_options{.remove_unused = false};
  for (std::size_t i = 0; i < args.size(); ++i) {
    const auto& a = args[i];
    if (a == "--inline") inline_calls = true;
    else if (a == "--no-fold") fold = false;
    else if (a == "--no-fold-tensors") fold_options.tensors = false;
    else if (a == "--no-fold-branches") fold_options.branches = false;
    else if (a == "--fold-limit") {
      if (i + 1 >= args.size()) throw UsageError{a + " needs a value"};
      fold_options.max_tensor_bytes = parse_count(a, args[++i]);
    }
    else if (a == "--no-cse") cse = false;
    else if (a == "--no-noop") noop = false;
    else if (a == "--no-identity") identity = false;
    else if (a == "--keep-unused") unused = false;
    else if (a == "--keep-order") sort = false;
    else if (a.rfind("--", 0) == 0) throw UsageError{"unknown option " + a};
    else positional.push_back(a);
  }
  if (positional.size() != 2) throw UsageError{"optimize takes IN and OUT"};
  oxir::LoadOptions load;
  load.load_external_data = true;  // saving reads every tensor; its errors then name the IN file
  oxir::Model m = load_any(positional[0], load);
  const std::size_t nodes_before = m.graph.nodes.size();
  // nodes of the subgraphs (If branches, Loop and Scan bodies, at any depth)
  auto subgraph_nodes = [&] {
    return static_cast<std::size_t>(std::ranges::distance(oxir::views::all_nodes(std::as_const(m.graph)))) -
           m.graph.nodes.size();
  };
  const std::size_t sub_before = subgraph_nodes();
  if (inline_calls) {
    const oxir::InlineCounts in = oxir::inline_functions(m);
    std::cout << "inlined " << in.calls << " function calls (" << in.nodes_added << " nodes); " << in.functions_removed
              << " functions removed\n";
  }
  std::size_t identities = identity ? oxir::remove_identity_nodes(m.graph) : 0;
  const oxir::FoldCounts folded = fold ? oxir::fold_constants(m, fold_options) : oxir::FoldCounts{};
  // After folding, which makes shapes static: nodes that hand their input on unchanged become
  // Identities, and go with them.
  const std::size_t noops = noop ? oxir::replace_noop_nodes(m) : 0;
  if (noops && identity) identities += oxir::remove_identity_nodes(m.graph);
  const std::size_t merged = cse ? oxir::eliminate_common_subexpressions(m) : 0;
  const oxir::RemovedCounts removed = unused ? oxir::remove_unused(m) : oxir::RemovedCounts{};
  std::size_t sorted = 0;  // graphs (main graph and subgraphs) put in topological order
  auto sort_graphs = [&](auto& self, oxir::Graph& g, int depth) -> void {
    if (depth > 256) return;
    for (auto& n : g.nodes)
      for (auto& a : n.attributes)
        for (auto& sub : oxir::views::attribute_graphs(a)) self(self, sub, depth + 1);
    try {
      if (!oxir::is_topologically_sorted(g)) {
        oxir::sort_topologically(g);
        ++sorted;
      }
    } catch (const oxir::Error&) {
      // a cycle: the model is invalid either way; left in its order
    }
  };
  if (sort) sort_graphs(sort_graphs, m.graph, 0);
  if (sorted) std::cout << "sorted " << sorted << " graphs into topological order\n";
  if (folded.branches) std::cout << "replaced " << folded.branches << " If nodes by the branch their constant condition takes\n";
  if (noops) std::cout << "replaced " << noops << " nodes that hand their input on unchanged by Identity nodes\n";
  save_any(m, positional[1]);
  if (const std::size_t sub_after = subgraph_nodes(); sub_before || sub_after)
    std::cout << "subgraphs: " << sub_before << " -> " << sub_after << " nodes\n";
  std::cout << "main graph: " << nodes_before << " -> " << m.graph.nodes.size() << " nodes; " << identities
            << " Identity nodes bypassed, " << folded.nodes_folded << " nodes folded into " << folded.constants
            << " Constants, " << merged << " repeated nodes merged, " << removed.nodes << " unused nodes and " << removed.initializers
            << " unused initializers removed\n";
  return 0;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

int bench(const std::vector<std::string>& args) {
  std::vector<std::string> positional;
  std::uint64_t runs = 5;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--runs") {
      if (i + 1 >= args.size()) throw UsageError{"--runs needs a value"};
      runs = parse_count("--runs", args[++i]);
      if (runs == 0) throw UsageError{"--runs must be at least 1"};
    } else if (args[i].rfind("--", 0) == 0) {
      throw UsageError{"unknown option " + args[i]};
    } else {
      positional.push_back(args[i]);
    }
  }
  if (positional.size() != 1) throw UsageError{"bench takes one MODEL"};
  const std::filesystem::path path = positional[0];
  using clock = std::chrono::steady_clock;
  auto ms = [](clock::time_point a, clock::time_point b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
  std::vector<double> load, parse, serialize, save, infer_t, check_t;
  const auto tmp = std::filesystem::temp_directory_path() / ("oxir-bench-" + std::to_string(::getpid()) + ".onnx");
  auto file_bytes = std::make_shared<oxir::io::MappedFile>(path);
  for (std::uint64_t r = 0; r < runs; ++r) {
    auto t0 = clock::now();
    auto m = oxir::load_model(path);
    auto t1 = clock::now();
    auto m2 = oxir::parse_model(file_bytes, file_bytes->bytes());
    auto t2 = clock::now();
    auto bytes = oxir::serialize_model(m);
    auto t3 = clock::now();
    oxir::save_model(m, tmp);
    auto t4 = clock::now();
    auto t5 = clock::now();
    (void)oxir::infer_shapes(m2);
    auto t6 = clock::now();
    (void)oxir::check(m);
    auto t7 = clock::now();
    infer_t.push_back(ms(t5, t6));
    check_t.push_back(ms(t6, t7));
    load.push_back(ms(t0, t1));
    parse.push_back(ms(t1, t2));
    serialize.push_back(ms(t2, t3));
    save.push_back(ms(t3, t4));
  }
  std::filesystem::remove(tmp);
  std::printf("load_ms=%.3f parse_ms=%.3f serialize_ms=%.3f save_ms=%.3f infer_ms=%.3f check_ms=%.3f\n", median(load),
              median(parse), median(serialize), median(save), median(infer_t), median(check_t));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  try {
    if (args.empty() || args[0] == "--help" || args[0] == "-h") {
      std::cerr << usage;
      return args.empty() ? 2 : 0;
    }
    const std::string cmd = args[0];
    args.erase(args.begin());
    if (cmd == "info") return info(args);
    if (cmd == "convert") return convert(args);
    if (cmd == "bench") return bench(args);
    if (cmd == "infer") return infer(args);
    if (cmd == "check") return check(args);
    if (cmd == "optimize") return optimize(args);
    if (cmd == "extract") return extract(args);
    if (cmd == "prefix") return prefix(args);
    if (cmd == "merge") return merge(args);
    if (cmd == "upgrade") return convert_opset(args, false);
    if (cmd == "downgrade") return convert_opset(args, true);
    throw UsageError{"unknown command \"" + cmd + "\""};
  } catch (const UsageError& e) {
    std::cerr << "oxir: " << e.message << "\n" << usage;
    return 2;
  } catch (const oxir::Error& e) {
    std::cerr << "oxir: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "oxir: " << e.what() << "\n";
    return 1;
  }
}
