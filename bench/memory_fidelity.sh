#!/usr/bin/env bash
# The flat HBM fidelity against the JEDEC one (issue 13, deliverable 3): each workload run once
# with die.hbm.fidelity=jedec and once with =flat (ascend-sim validate-fidelity --memory), step
# time, HBM bytes and bandwidth, Cube utilisation and wall side by side:
#   1. the default layer (builtin:llama3-70b-layer, Llama-3-70B prefill, sequence 4096, TP 8 shard);
#   2. a decode step (Llama-3-70B, batch 32, context 4096, TP 8, one layer, die 0);
#   3. the add workload (bench/workloads/add_1gib_bf16.jsonl: 2 GiB read, 1 GiB written).
# The JEDEC runs take minutes each (see models/memory/hbm/README.md, "Speed"); with
# `--set die.hbm.controller.transaction=512B` (line transactions) under a minute for all three.
# usage: bench/memory_fidelity.sh [PATH/TO/ascend-sim] [--set KEY=VALUE]...
set -euo pipefail
cd "$(dirname "$0")/.."
asim="build/release/testbenches/ascend-sim"
if [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; then
    asim="$1"
    shift
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

"$asim" trace gen --model llama3-70b --phase decode --batch 32 --seq 4096 --tp 8 --layers 1 --no-collectives \
    --no-embedding --die 0 --out "$work/decode" >/dev/null

for workload in builtin:llama3-70b-layer "$work/decode/die0.jsonl" bench/workloads/add_1gib_bf16.jsonl; do
    echo "# $(basename "$workload")"
    "$asim" validate-fidelity --memory --trace "$workload" "$@"
done
