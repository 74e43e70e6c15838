// Coverage-guided fuzz target (libFuzzer) for the textual syntax reader (io/text.hpp).
//
// Properties checked on every input:
//   - parse_text_model either returns a model or throws oxir::Error (anything else is a finding);
//   - a model it returns is one to_text can write (everything the reader builds, the writer can
//     express), and that text reads back into an equal model and prints the same text again.
// Crashes, sanitizer reports, hangs and large allocations are libFuzzer's to report: the reader
// allocates only for what the text spells out (tensor dims are checked against the values given).
//
// ctest `fuzz_smoke` builds it and runs a short seeded campaign from tests/fuzz/text_seeds/.
// By hand:
//   clang++ -std=c++20 -O1 -fsanitize=fuzzer,address,undefined -Iinclude tests/fuzz/fuzz_text.cpp -o fuzz_text
//   ./fuzz_text -max_len=16384 -timeout=10 -dict=tests/fuzz/text.dict CORPUS_DIR tests/fuzz/text_seeds
#include <oxir/io.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  oxir::Model m;
  try {
    m = oxir::parse_text_model(text);
  } catch (const oxir::Error&) {
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz_text: parse_text_model threw %s\n", e.what());
    std::abort();
  }
  std::string printed;
  oxir::Model back;
  try {
    printed = oxir::to_text(m);
    back = oxir::parse_text_model(printed);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz_text: a parsed model does not print and read back: %s\n", e.what());
    std::abort();
  }
  if (!(back == m)) {
    std::fprintf(stderr, "fuzz_text: the printed text reads back into a different model:\n%s\n", printed.c_str());
    std::abort();
  }
  if (oxir::to_text(back) != printed) {
    std::fprintf(stderr, "fuzz_text: printing is not stable:\n%s\n", printed.c_str());
    std::abort();
  }
  return 0;
}
