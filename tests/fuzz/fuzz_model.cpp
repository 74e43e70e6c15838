// Coverage-guided fuzz target (libFuzzer) for everything a hostile model file reaches: the native
// decoder, the encoder, the text printer, topological ordering and shape inference.
//
// Properties checked on every input:
//   - parse_model either returns a model or throws oxir::Error (anything else is a finding);
//   - a parsed model re-serializes, and parsing those bytes gives a model that serializes to the
//     very same bytes (nothing kept by the decoder is lost or altered by the round trip);
//   - permissive inference never throws; strict inference throws nothing but oxir::Error;
//   - printing and topological ordering never throw anything but oxir::Error.
// Crashes, sanitizer reports, hangs (-timeout) and oversized allocations (-malloc_limit_mb) are
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
#include <oxir/analysis/topo.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <sstream>

namespace {

[[noreturn]] void finding(const char* what) {
  std::fprintf(stderr, "fuzz_model: %s\n", what);
  std::abort();
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
  try {
    model = oxir::parse_model(bytes);
  } catch (const oxir::Error&) {
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
  only_oxir_errors("topological_order", [&] { (void)oxir::topological_order(model.graph); });

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
