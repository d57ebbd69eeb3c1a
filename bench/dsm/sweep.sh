#!/usr/bin/env bash
# The H-JSD over the memory pool (issue 15, docs/evidence/dsm): prefetch depth x weight partition
# sweeps with weights in remote_hbm and host_ddr, each scenario beside its bound (the same trace
# with every weight in HBM, and the pool bytes over the die's port bandwidth).
#   bench/dsm/sweep.sh [PATH/TO/ascend-sim] [--quick]
# Writes bench/results/dsm/<scenario>/ (one `ascend-sim sweep` each, results.csv) and prints one
# table per scenario (bench/dsm/report.py). --quick: the synthetic scenarios and Qwen3 decode only.
set -euo pipefail
cd "$(dirname "$0")/../.."
asim="build/release/testbenches/ascend-sim"
if [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; then
    asim="$1"
    shift
fi
quick=0
[ "${1:-}" = "--quick" ] && quick=1
out="bench/results/dsm"
mkdir -p "$out/traces"
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
jobs="${JOBS:-2}"

# trace NAME TIER GEN-ARGS...: a single-die trace (die 0) with the experts (or, for the synthetic
# trace, the pool weights) in TIER.
trace() {
    local name="$1" tier="$2"
    shift 2
    local dir="$out/traces/$name-$tier"
    [ -f "$dir/die0.jsonl" ] && return
    if [ "$1" = alternating ]; then
        mkdir -p "$dir"
        python3 bench/dsm/alternating_trace.py "$dir/die0.jsonl" --tier "$tier"
    else
        "$asim" trace gen "$@" --no-collectives --no-embedding --die 0 --expert-weights "$tier" --out "$dir" >/dev/null
    fi
}

# scenario NAME TRACE-NAME TIER GRID... -- SET...: the sweep, and the bound run (weights in HBM).
scenario() {
    local name="$1" tname="$2" tier="$3"
    shift 3
    local grid=() set=()
    while [ $# -gt 0 ] && [ "$1" != -- ]; do grid+=(--grid "$1"); shift; done
    [ $# -gt 0 ] && shift
    while [ $# -gt 0 ]; do set+=(--set "$1"); shift; done
    echo "# $name" >&2
    "$asim" sweep --trace "$out/traces/$tname-$tier/die0.jsonl" "${grid[@]}" \
        --set die.l2.partitions.general=rest "${set[@]}" -j "$jobs" --out "$out/$name" >/dev/null
    [ -f "$out/$name-bound/stats.json" ] ||
        "$asim" run --trace "$out/traces/$tname-hbm/die0.jsonl" --set die.l2.partitions.general=rest "${set[@]}" \
            --out "$out/$name-bound" >/dev/null
}

depths=die.hjsd.prefetch_depth=0..8
parts=die.l2.partitions.weight=8MiB..48MiB:8MiB

for tier in hbm remote_hbm host_ddr; do trace alternating "$tier" alternating; done
scenario alternating-remote_hbm alternating remote_hbm $depths $parts
scenario alternating-host_ddr alternating host_ddr $depths $parts
scenario alternating-remote_hbm-staging alternating remote_hbm $depths $parts -- dsm.staging.capacity=4GiB

qwen_decode=(--model qwen3-30b-a3b --phase decode --batch 768 --seq 4096 --dp 8 --ep 8 --layers 2)
for tier in hbm remote_hbm host_ddr; do trace qwen3-decode "$tier" "${qwen_decode[@]}"; done
scenario qwen3-decode-remote_hbm qwen3-decode remote_hbm $depths die.l2.partitions.weight=8MiB,20MiB,48MiB
scenario qwen3-decode-host_ddr qwen3-decode host_ddr $depths die.l2.partitions.weight=8MiB,20MiB,48MiB
scenario qwen3-decode-remote_hbm-staging qwen3-decode remote_hbm die.hjsd.prefetch_depth=0,3,5,8,15,31,48,63 \
    die.hjsd.sources=all,pool -- dsm.staging.capacity=4GiB dsm.staging.use=all

if [ "$quick" = 0 ]; then
    qwen_prefill=(--model qwen3-30b-a3b --phase prefill --batch 32 --seq 4096 --dp 8 --ep 8 --layers 1)
    for tier in hbm remote_hbm host_ddr; do trace qwen3-prefill "$tier" "${qwen_prefill[@]}"; done
    scenario qwen3-prefill-remote_hbm qwen3-prefill remote_hbm die.hjsd.prefetch_depth=0,1,2,3,5,8 \
        die.l2.partitions.weight=8MiB,20MiB,48MiB
    scenario qwen3-prefill-host_ddr qwen3-prefill host_ddr die.hjsd.prefetch_depth=0,3,5,8 die.l2.partitions.weight=20MiB

    dsv3_decode=(--model deepseek-v3 --phase decode --batch 3072 --seq 4096 --dp 32 --ep 32 --layers 4 --dtype fp8)
    for tier in hbm remote_hbm host_ddr; do trace dsv3-decode "$tier" "${dsv3_decode[@]}"; done
    # Die 0 of 32 reads remote_hbm in die 31's window: the single die's pool needs 32 owners.
    scenario dsv3-decode-remote_hbm dsv3-decode remote_hbm die.hjsd.prefetch_depth=0,5,15 \
        dsm.staging.capacity=0B,4GiB -- dsm.owners=32
    scenario dsv3-decode-host_ddr dsv3-decode host_ddr die.hjsd.prefetch_depth=0,5,15 -- dsm.staging.capacity=4GiB dsm.owners=32
    scenario dsv3-decode-remote_hbm-staging dsv3-decode remote_hbm die.hjsd.prefetch_depth=0,5,15,31,48,63 \
        die.hjsd.sources=all,pool -- dsm.staging.capacity=4GiB dsm.staging.use=all dsm.owners=32
fi

python3 bench/dsm/report.py "$out"
