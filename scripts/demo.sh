#!/usr/bin/env bash
# Installs what is missing, builds ascend-sim (Release) and runs the default job: one
# Llama-3-70B decoder layer on the built-in Ascend-960-class die. Outputs go to ./ascend-sim-out.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh release ascend-sim
echo
echo "== ascend-sim info =="
build/release/testbenches/ascend-sim info
echo
echo "== ascend-sim run (built-in Llama-3-70B layer) =="
build/release/testbenches/ascend-sim run --out ascend-sim-out "$@"
