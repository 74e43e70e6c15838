#!/usr/bin/env bash
# Installs missing build dependencies (Debian/apt), then builds and runs every test twice:
#   build/release : Release, all tests (unit, examples, packaging)
#   build/asan    : Debug + AddressSanitizer + UBSan (OXIR_SANITIZE=ON), debug info -g1 (line
#                   tables: enough for the sanitizers' stack traces, a quarter faster to compile
#                   than -g), all but the `packaging` tests (those build separate consumer
#                   projects without sanitizers), `fuzz` (fuzz_smoke builds its own clang
#                   ASan+UBSan binary; once is enough) and `script` (runs no program of the build)
# Exits non-zero on any failure. Environment:
#   OXIR_JOBS=N        build/test parallelism (default 2)
#   OXIR_SKIP_ASAN=1   skip the sanitizer pass
#   OXIR_SKIP_DEPS=1   do not check/install packages (see scripts/lib/deps.sh)
set -euo pipefail

OXIR_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$OXIR_ROOT"
# shellcheck source=SCRIPTDIR/lib/deps.sh
source scripts/lib/deps.sh

jobs="${OXIR_JOBS:-2}"
start=$SECONDS
summary=()
total_passed=0
total_failed=0

# run_pass NAME BUILD_DIR CTEST_EXTRA_ARGS -- CMAKE_ARGS...
run_pass() {
  local name="$1" dir="$2" ctest_extra="$3"
  shift 4
  local t0=$SECONDS
  oxir_section "$name: configure ($dir)"
  oxir_configure "$dir" "$@"
  oxir_section "$name: build"
  cmake --build "$dir" --parallel "$jobs"
  oxir_section "$name: test"
  local log="$dir/ctest.log" rc=0
  # shellcheck disable=SC2086
  ctest --test-dir "$dir" --output-on-failure --no-tests=error --parallel "$jobs" --timeout 1200 $ctest_extra 2>&1 | tee "$log" ||
    rc=$?
  local line
  line="$(grep -E '[0-9]+% tests passed' "$log" | tail -n1 || true)"
  summary+=("$name ($((SECONDS - t0))s): ${line:-no ctest summary}")
  if [[ "$line" =~ ([0-9]+)\ tests\ failed\ out\ of\ ([0-9]+) ]]; then
    total_failed=$((total_failed + BASH_REMATCH[1]))
    total_passed=$((total_passed + BASH_REMATCH[2] - BASH_REMATCH[1]))
  fi
  if ((rc != 0)); then
    oxir_section "FAILED: $name tests (see above)"
    printf '%s\n' "${summary[@]}"
    echo "total: $total_passed passed, $total_failed failed"
    exit "$rc"
  fi
}

oxir_section "Dependencies"
oxir_ensure_deps
echo "compiler: $(c++ --version | head -n1)"
echo "cmake:    $(cmake --version | head -n1)"

# The >2 GiB model test runs in the Release pass only (about 20 s, 5 GiB of memory and temp files).
run_pass "Release" build/release "" -- -DCMAKE_BUILD_TYPE=Release -DOXIR_SANITIZE=OFF -DOXIR_LARGE_TESTS=ON

if [[ "${OXIR_SKIP_ASAN:-0}" != 1 ]]; then
  export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}"
  run_pass "ASan+UBSan" build/asan "-LE packaging|fuzz|script" -- -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-g1 \
    -DOXIR_SANITIZE=ON -DOXIR_LARGE_TESTS=OFF -DOXIR_BUILD_BENCHMARKS=OFF
fi

oxir_section "Summary ($((SECONDS - start))s)"
printf '%s\n' "${summary[@]}"
echo "total: $total_passed passed, $total_failed failed"
