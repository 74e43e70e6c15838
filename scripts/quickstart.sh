#!/usr/bin/env bash
# Installs missing build dependencies (Debian/apt), builds the quickstart example in build/release
# and runs it. Extra arguments are passed to the program.
set -euo pipefail

OXIR_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$OXIR_ROOT"
# shellcheck source=SCRIPTDIR/lib/deps.sh
source scripts/lib/deps.sh

oxir_section "Dependencies"
oxir_ensure_deps

oxir_section "Build quickstart (build/release)"
oxir_configure build/release -DCMAKE_BUILD_TYPE=Release
cmake --build build/release --target quickstart --parallel "${OXIR_JOBS:-2}"

oxir_section "Run build/release/bin/quickstart"
exec build/release/bin/quickstart "$@"
