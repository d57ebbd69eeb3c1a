#!/usr/bin/env bash
# Builds ascend-sim (Release) and runs the benchmarks: bench/run.sh [--runs N]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh release ascend-sim
python3 bench/bench.py "$@"
