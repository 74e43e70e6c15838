#!/usr/bin/env bash
# ctest `fuzz_smoke`: builds the libFuzzer targets tests/fuzz/fuzz_model.cpp and fuzz_text.cpp with clang
# (-fsanitize=fuzzer,address,undefined), replays every regression input and every seed model, then
# fuzzes from the seeds for a fixed, seeded number of runs. Any crash, sanitizer report, hang
# (>60 s per input) or allocation over 1 GiB fails the test. This is also the project's check
# that the headers compile with clang.
#
#   run_fuzz_smoke.sh BUILD_DIR SOURCE_DIR [RUNS]
#
# Prints "SKIPPED: ..." and exits 0 when clang++ or its fuzzer runtime is missing.
set -euo pipefail
build="$1"
src="$2"
runs="${3:-${OXIR_FUZZ_RUNS:-40000}}"

cxx="${OXIR_FUZZ_CXX:-}"
if [[ -z "$cxx" ]]; then
  for c in clang++ clang++-16 clang++-15 clang++-14; do
    if command -v "$c" >/dev/null 2>&1; then cxx="$c"; break; fi
  done
fi
[[ -n "$cxx" ]] || { echo "SKIPPED: no clang++ (libFuzzer needs clang)"; exit 0; }

mkdir -p "$build/fuzz"
bin="$build/fuzz/fuzz_model"
probe="$build/fuzz/probe.cpp"
echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }' > "$probe"
if ! "$cxx" -fsanitize=fuzzer "$probe" -o "$build/fuzz/probe" >/dev/null 2>&1; then
  echo "SKIPPED: $cxx cannot link -fsanitize=fuzzer (install libclang-rt-dev)"
  exit 0
fi

echo "compiling $bin with $("$cxx" --version | head -n1)"
"$cxx" -std=c++20 -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -Wall -Wextra -Werror -I"$src/include" "$src/tests/fuzz/fuzz_model.cpp" -o "$bin"

seeds="$build/fuzz/seeds"
work="$build/fuzz/work"
rm -rf "$seeds" "$work"
mkdir -p "$seeds" "$work"
# Seeds: the regression inputs, the project's own test models and the backend-test models
# (when libonnx-testdata is installed), each under 64 KiB.
i=0
while IFS= read -r -d '' f; do
  i=$((i + 1))
  cp "$f" "$seeds/seed$i.onnx"
done < <(find "$src/tests/fuzz/regressions" "$src/tests/data" /usr/share/libonnx-testdata/data \
           -name '*.onnx' -size -64k -print0 2>/dev/null)
echo "seeds: $i models"

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}:allocator_may_return_null=0"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}"
# A unit may take up to 60 s: under the sanitizers every exception costs a shadow-memory mmap, and
# a 2 KiB model whose functions call each other expands to ~54k inferred nodes, 27k of them
# rejected with a thrown (and caught) diagnostic: 24 s here with ASan+UBSan, 0.25 s at -O2.
common=(-timeout=60 -malloc_limit_mb=1024 -rss_limit_mb=4096 -max_len=65536 "-artifact_prefix=$build/fuzz/")

# 1. Every regression input and seed, as is.
"$bin" "${common[@]}" -runs=0 "$seeds"
# 2. Mutations from the seeds: fixed seed and run count, so a failure reproduces.
"$bin" "${common[@]}" -seed=20261123 -runs="$runs" -print_final_stats=1 "$work" "$seeds"
echo "fuzz_smoke: no finding in $runs runs"

# 3. The textual syntax reader (tests/fuzz/fuzz_text.cpp): its seed texts, then seeded mutations.
text_bin="$build/fuzz/fuzz_text"
echo "compiling $text_bin"
"$cxx" -std=c++20 -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -Wall -Wextra -Werror -I"$src/include" "$src/tests/fuzz/fuzz_text.cpp" -o "$text_bin"
rm -rf "$work" && mkdir -p "$work"
"$text_bin" "${common[@]}" -runs=0 "$src/tests/fuzz/text_seeds"
"$text_bin" "${common[@]}" -seed=20261129 -runs="$runs" -dict="$src/tests/fuzz/text.dict" -print_final_stats=1 \
  "$work" "$src/tests/fuzz/text_seeds"
echo "fuzz_smoke: fuzz_text: no finding in $runs runs"

# 4. The bridge differential target (tests/fuzz/fuzz_bridge.cpp: native decoder against
#    libprotobuf + from_proto with Debian's onnx::ModelProto), when libonnx-dev is installed:
#    every seed, then seeded mutations.
if [[ -f /usr/include/onnx/onnx_pb.h ]] && ls /usr/lib/*/libonnx_proto.so >/dev/null 2>&1; then
  bridge="$build/fuzz/fuzz_bridge"
  echo "compiling $bridge"
  "$cxx" -std=c++20 -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    -Wall -Wextra -Werror -DONNX_NAMESPACE=onnx -DONNX_ML=1 -I"$src/include" \
    "$src/tests/fuzz/fuzz_bridge.cpp" -lonnx_proto -lprotobuf -o "$bridge"
  rm -rf "$work" && mkdir -p "$work"
  "$bridge" "${common[@]}" -runs=0 "$seeds"
  "$bridge" "${common[@]}" -seed=20261125 -runs="$runs" -print_final_stats=1 "$work" "$seeds"
  echo "fuzz_smoke: fuzz_bridge: no finding in $runs runs"
else
  echo "fuzz_smoke: fuzz_bridge skipped (libonnx-dev not installed)"
fi
