// Coverage-guided fuzz target (libFuzzer) for everything a hostile model file reaches: the native
// decoder, the encoder, the text printer, topological ordering, the checker, the use-def index,
// dead-code and Identity removal and shape inference.
//
// Properties checked on every input:
//   - parse_model either returns a model or throws oxir::Error (anything else is a finding);
//   - a parsed model re-serializes, and parsing those bytes gives a model that serializes to the
//     very same bytes (nothing kept by the decoder is lost or altered by the round trip);
//   - permissive inference never throws; strict inference throws nothing but oxir::Error;
//   - printing and topological ordering never throw anything but oxir::Error;
//   - to_text either refuses a model with an oxir::Error or writes a text that parse_text_model
//     reads back into an equal model;
//   - extract_model throws nothing but oxir::Error, and the sub-model between a valid model's
//     own inputs and outputs is valid;
//   - add_prefix and merge_models throw nothing but oxir::Error; prefixing a valid model (its
//     dim_params too), and merging it with itself (prefixed, its first output feeding its first input), give valid
//     models;
//   - upgrade_opset to opset 21 and downgrade_opset to 11 (or 7) throw nothing but oxir::Error,
//     and keep a valid model valid;
//   - check, UseDef, remove_unused and remove_identity_nodes never throw, and the two passes
//     are idempotent;
//   - pattern rewriting (a rule that rewires, one that builds nodes, with a commutative Add),
//     the Builder, inline_functions, eliminate_common_subexpressions, fold_constants and
//     replace_noop_nodes throw nothing but oxir::Error; a rewrite that reached its fixed point
//     finds nothing more, and merging repeated nodes twice merges nothing the second time, nor
//     replacing no-op nodes; rewriting, inlining, merging or replacing no-ops in a model check()
//     accepts gives a model check() accepts;
//   - under AddressSanitizer, parse_model's peak of live heap memory stays within
//     kAllocPerInputByte bytes per input byte (plus kAllocSlack), whether it accepts the input or
//     not: what a model claims (lengths, counts, dims) never sizes memory the bytes present do
//     not back.
// Crashes, sanitizer reports, hangs (-timeout) and single allocations over -malloc_limit_mb are
// reported by libFuzzer itself.
//
// ctest `fuzz_smoke` (tests/fuzz/run_fuzz_smoke.sh) builds it and runs a short seeded campaign.
// A longer campaign by hand (clang only):
//   clang++ -std=c++20 -O1 -fsanitize=fuzzer,address,undefined -Iinclude tests/fuzz/fuzz_model.cpp -o fuzz_model
//   ./fuzz_model -max_len=65536 -timeout=10 -malloc_limit_mb=1024 -fork=1 -ignore_crashes=1 CORPUS_DIR SEED_DIR
// Seeds: any .onnx files, e.g. /usr/share/libonnx-testdata/data/*/*/model.onnx; inputs that once
// failed are kept in tests/fuzz/regressions/.
#include <oxir/infer.hpp>
#include <oxir/io.hpp>
#include <oxir/ir/print.hpp>
#include <oxir/analysis/check.hpp>
#include <oxir/analysis/topo.hpp>
#include <oxir/analysis/use_def.hpp>
#include <oxir/rewrite/builder.hpp>
#include <oxir/rewrite/cse.hpp>
#include <oxir/rewrite/edit.hpp>
#include <oxir/rewrite/compose.hpp>
#include <oxir/rewrite/extract.hpp>
#include <oxir/rewrite/fold.hpp>
#include <oxir/rewrite/inline.hpp>
#include <oxir/rewrite/noop.hpp>
#include <oxir/rewrite/pattern.hpp>
#include <oxir/rewrite/remove_unused.hpp>
#include <oxir/rewrite/version.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <sstream>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define OXIR_FUZZ_COUNT_ALLOCATIONS 1
#endif
#endif
#if !defined(OXIR_FUZZ_COUNT_ALLOCATIONS) && defined(__SANITIZE_ADDRESS__)
#define OXIR_FUZZ_COUNT_ALLOCATIONS 1
#endif
#ifdef OXIR_FUZZ_COUNT_ALLOCATIONS
#include <sanitizer/allocator_interface.h>
#endif

namespace {

// Memory budget of parse_model: the decoder's objects are bigger than their wire form (an empty
// SparseTensorProto is 2 bytes, an oxir::SparseTensor 672), so the bound is a generous linear
// one; a claimed length or count that sized an allocation would exceed it by orders of magnitude.
constexpr std::size_t kAllocPerInputByte = 512;
constexpr std::size_t kAllocSlack = std::size_t{64} << 10;

#ifdef OXIR_FUZZ_COUNT_ALLOCATIONS
bool g_counting = false;
std::int64_t g_live = 0;  // bytes allocated minus bytes freed since counting began
std::int64_t g_peak = 0;
void count_malloc(const volatile void*, std::size_t n) {
  if (!g_counting) return;
  g_live += static_cast<std::int64_t>(n);
  if (g_live > g_peak) g_peak = g_live;
}
void count_free(const volatile void* p) {
  if (g_counting) g_live -= static_cast<std::int64_t>(__sanitizer_get_allocated_size(const_cast<const void*>(p)));
}
const bool g_hooks_installed = __sanitizer_install_malloc_and_free_hooks(count_malloc, count_free) != 0;
#endif

/// Peak of live heap bytes while `fn` runs, above what was live when it began (0 without
/// AddressSanitizer's hooks). Also set when `fn` throws (read it with last_peak()).
std::size_t last_peak() {
#ifdef OXIR_FUZZ_COUNT_ALLOCATIONS
  return static_cast<std::size_t>(g_peak);
#else
  return 0;
#endif
}
template <class Fn>
std::size_t peak_of(Fn&& fn) {
#ifdef OXIR_FUZZ_COUNT_ALLOCATIONS
  g_live = g_peak = 0;
  g_counting = g_hooks_installed;
  try {
    fn();
  } catch (...) {
    g_counting = false;
    throw;
  }
  g_counting = false;
#else
  fn();
#endif
  return last_peak();
}

[[noreturn]] void finding(const char* what) {
  std::fprintf(stderr, "fuzz_model: %s\n", what);
  std::abort();
}

template <class Fn>
void never_throws(const char* what, Fn&& fn) {
  try {
    fn();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz_model: %s threw %s\n", what, e.what());
    std::abort();
  }
}

template <class Fn>
void only_oxir_errors(const char* what, Fn&& fn) {
  try {
    fn();
  } catch (const oxir::Error&) {
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz_model: %s threw %s\n", what, e.what());
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data), size);
  oxir::Model model;
  const std::size_t budget = kAllocPerInputByte * size + kAllocSlack;
  auto check_budget = [&](std::size_t used) {
    if (used <= budget) return;
    std::fprintf(stderr, "fuzz_model: parse_model's heap peaked at %zu bytes for a %zu-byte input (budget %zu)\n",
                 used, size, budget);
    std::abort();
  };
  try {
    check_budget(peak_of([&] { model = oxir::parse_model(bytes); }));
  } catch (const oxir::Error&) {
    check_budget(last_peak());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz_model: parse_model threw %s\n", e.what());
    std::abort();
  }

  // Round trip: serialize, parse again, serialize again: the same bytes.
  std::vector<std::byte> first;
  only_oxir_errors("serialize_model", [&] { first = oxir::serialize_model(model); });
  if (!first.empty()) {
    oxir::Model again;
    try {
      again = oxir::parse_model(std::span<const std::byte>(first));
    } catch (const std::exception& e) {
      std::fprintf(stderr, "fuzz_model: re-parse of serialized model failed: %s\n", e.what());
      std::abort();
    }
    if (oxir::serialize_model(again) != first) finding("serialize(parse(serialize(m))) != serialize(m)");
  }

  only_oxir_errors("print", [&] {
    std::ostringstream out;
    out << model;
  });
  only_oxir_errors("to_text", [&] {
    std::string text;
    try {
      text = oxir::to_text(model);
    } catch (const oxir::Error&) {
      return;  // something the syntax cannot hold
    }
    oxir::Model back;
    try {
      back = oxir::parse_text_model(text);
    } catch (const oxir::Error& e) {
      std::fprintf(stderr, "fuzz_model: to_text wrote a text that does not read back: %s\n%s\n", e.what(), text.c_str());
      std::abort();
    }
    if (!(back == model)) finding("the text of a model reads back into a different model");
  });
  // Extracting the sub-model between a valid model's own inputs and outputs gives a valid model.
  only_oxir_errors("extract_model", [&] {
    std::vector<std::string> ins, outs;
    for (const auto& v : model.graph.inputs) ins.push_back(v.name);
    for (const auto& v : model.graph.outputs) outs.push_back(v.name);
    if (outs.empty() || !oxir::check(model).ok()) return;
    const oxir::Model part = oxir::extract_model(model, ins, outs);
    if (!oxir::check(part).ok()) finding("extract_model of a valid model's interface made an invalid model");
  });
  only_oxir_errors("compose", [&] {
    const bool valid = oxir::check(model).ok();
    oxir::Model p = model;
    oxir::add_prefix(p, "p/", {.dim_params = true});
    if (valid && !oxir::check(p).ok()) finding("add_prefix made a valid model invalid");
    std::vector<std::pair<std::string, std::string>> io_map;
    if (!model.graph.outputs.empty() && !model.graph.inputs.empty())
      io_map.emplace_back(model.graph.outputs[0].name, model.graph.inputs[0].name);
    oxir::Model both;
    try {
      both = oxir::merge_models(model, model, io_map,
                                {.prefix1 = "a/", .prefix2 = "b/", .prefix_dim_params = model.graph.nodes.size() % 2 == 1});
    } catch (const oxir::Error&) {
      return;  // a seam whose types conflict, say
    }
    if (valid && !oxir::check(both).ok()) finding("merge_models of a valid model with itself made an invalid model");
  });
  only_oxir_errors("upgrade_opset", [&] {
    const auto v = model.opset_version("");
    if (!v || *v < oxir::kUpgradeOldestOpset || *v >= 21) return;
    const bool valid = oxir::check(model).ok();
    oxir::Model up = model;
    (void)oxir::upgrade_opset(up, 21);
    if (valid && !oxir::check(up).ok()) finding("upgrade_opset made a valid model invalid");
  });
  only_oxir_errors("downgrade_opset", [&] {
    const auto v = model.opset_version("");
    if (!v || *v <= oxir::kDowngradeOldestOpset || *v > oxir::kUpgradeNewestOpset) return;
    const bool valid = oxir::check(model).ok();
    oxir::Model down = model;
    (void)oxir::downgrade_opset(down, *v > 11 ? 11 : oxir::kDowngradeOldestOpset);
    if (valid && !oxir::check(down).ok()) finding("downgrade_opset made a valid model invalid");
  });
  only_oxir_errors("topological_order", [&] { (void)oxir::topological_order(model.graph); });
  // The checker, the use-def index and dead-code removal take any model without throwing; dead-code
  // removal leaves nothing for a second run.
  never_throws("check", [&] { (void)oxir::check(model); });
  never_throws("UseDef", [&] { (void)oxir::UseDef(model.graph); });
  never_throws("remove_unused", [&] {
    oxir::Model pruned = model;
    (void)oxir::remove_unused(pruned);
    if (oxir::remove_unused(pruned) != oxir::RemovedCounts{}) finding("remove_unused is not idempotent");
  });
  never_throws("remove_identity_nodes", [&] {
    oxir::Model edited = model;
    (void)oxir::remove_identity_nodes(edited.graph);
    if (oxir::remove_identity_nodes(edited.graph) != 0) finding("remove_identity_nodes is not idempotent");
  });
  only_oxir_errors("eliminate_common_subexpressions", [&] {
    oxir::Model m = model;
    const bool valid = oxir::check(m).ok();
    (void)oxir::eliminate_common_subexpressions(m);
    if (oxir::eliminate_common_subexpressions(m) != 0) finding("eliminate_common_subexpressions is not idempotent");
    if (valid && !oxir::check(m).ok()) finding("eliminate_common_subexpressions made a valid model invalid");
  });

  only_oxir_errors("apply_rewrites", [&] {
    static const std::vector<oxir::RewriteRule> rules = [] {
      std::vector<oxir::RewriteRule> r(2);
      r[0].name = "Neg(Neg(x)) -> x";
      auto x = r[0].pattern.any("x");
      r[0].pattern.op("Neg", {r[0].pattern.op("Neg", {x})});
      r[0].replace = [](const oxir::Match& m) -> std::optional<std::vector<oxir::Value>> {
        return std::vector<oxir::Value>{m["x"]};
      };
      r[1].name = "Add(MatMul(a, b), c) -> Gemm, the Add's inputs in either order";
      auto mm = r[1].pattern.op("MatMul", {r[1].pattern.any("a"), r[1].pattern.any("b")});
      r[1].pattern.op("Add", {mm, r[1].pattern.any("c")}, {.commutative = true});
      r[1].replace = [](const oxir::Match& m) -> std::optional<std::vector<oxir::Value>> {
        return std::vector<oxir::Value>{m.builder().op("Gemm", {m["a"], m["b"], m["c"]})};
      };
      return r;
    }();
    oxir::Model m = model;
    m.set_opset_version("", m.opset_version("").value_or(13));
    const bool valid = oxir::check(m).ok();
    const auto first_run = oxir::apply_rewrites(m, rules, {.max_sweeps = 8});
    if (valid && !oxir::check(m).ok()) finding("apply_rewrites made a valid model invalid");
    if (first_run.converged && oxir::apply_rewrites(m, rules).rewrites != 0)
      finding("apply_rewrites found more after reaching its fixed point");
  });
  only_oxir_errors("inline_functions", [&] {
    oxir::Model m = model;
    const bool valid = oxir::check(m).ok();
    (void)oxir::inline_functions(m, {.max_added_nodes = 100000});
    if (valid && !oxir::check(m).ok()) finding("inline_functions made a valid model invalid");
  });
  only_oxir_errors("fold_constants", [&] {
    oxir::Model m = model;
    (void)oxir::fold_constants(m);
  });
  only_oxir_errors("replace_noop_nodes", [&] {
    oxir::Model m = model;
    const bool valid = oxir::check(m).ok();
    (void)oxir::replace_noop_nodes(m);
    if (oxir::replace_noop_nodes(m) != 0) finding("replace_noop_nodes is not idempotent");
    if (valid && !oxir::check(m).ok()) finding("replace_noop_nodes made a valid model invalid");
  });
  only_oxir_errors("Builder", [&] {
    oxir::Model m = model;
    oxir::Builder b(m);
    oxir::Value last;
    for (const auto& in : model.graph.inputs)
      if (!in.name.empty()) last = b.op("Relu", {b.value(in.name)});
    if (last) b.output(last, b.fresh("fuzz_out"));
  });

  {
    oxir::Model m = model;
    try {
      oxir::InferOptions o;
      o.annotate_functions = true;
      (void)oxir::infer_shapes(m, o);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "fuzz_model: permissive infer_shapes threw %s\n", e.what());
      std::abort();
    }
  }
  {
    oxir::Model m = model;
    oxir::InferOptions o;
    o.strict = true;
    o.overwrite = true;
    only_oxir_errors("strict infer_shapes", [&] { (void)oxir::infer_shapes(m, o); });
  }
  return 0;
}
