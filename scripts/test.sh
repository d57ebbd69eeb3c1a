#!/usr/bin/env bash
# Installs what is missing, builds everything (Release) and runs the whole test suite.
#   scripts/test.sh            Release build, all tests
#   scripts/test.sh asan       the same under AddressSanitizer + UndefinedBehaviorSanitizer
#   scripts/test.sh release -L unit    extra arguments go to ctest
# The formatting is checked first (scripts/format.sh --check: .clang-format).
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-release}"
shift || true
scripts/install-deps.sh
scripts/format.sh --check
scripts/build.sh "$preset"
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
ctest --preset "$preset" --parallel "$(nproc)" "$@"
