#!/usr/bin/env bash
# Configures and builds one CMake preset (release by default): scripts/build.sh [release|debug|asan] [targets...]
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-release}"
shift || true
if [ ! -f "build/$preset/build.ninja" ]; then
    cmake --preset "$preset" >/dev/null
fi
# Two cores on CI and developer machines; SystemC translation units are memory-hungry but fit.
cmake --build --preset "$preset" --parallel "${ASIM_JOBS:-$(nproc)}" ${1:+--target "$@"}
