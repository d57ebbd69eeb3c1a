#!/usr/bin/env bash
# Communication share and exposed share of a training step with and without DP gradient
# overlap (issue 16.3; docs/evidence/overlap/README.md). For PLATFORM and the `trace gen`
# arguments given, generates the step twice, with --grad-buckets 1 (one all-reduce after the
# backward: no overlap) and --grad-buckets 0 (one bucket per layer, each synchronised as soon as
# its backward is done), runs both at --fidelity fast and prints die 0's step, comm share
# (comm_time / step) and exposed share (comm_exposed / step), and the wall time.
# usage: bench/overlap.sh [--binary PATH] PLATFORM TRACE-GEN-ARGS...
#   e.g. bench/overlap.sh cloudmatrix384 --model llama3-8b --phase train --batch 64 --seq 2048 --dp 8
set -euo pipefail
cd "$(dirname "$0")/.."
asim=build/release/testbenches/ascend-sim
if [ "${1:-}" = --binary ]; then asim=$2; shift 2; fi
[ $# -ge 2 ] || { echo "usage: bench/overlap.sh [--binary PATH] PLATFORM TRACE-GEN-ARGS..." >&2; exit 2; }
platform=$1
shift
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for buckets in 1 0; do
    "$asim" trace gen "$@" --grad-buckets "$buckets" --out "$work/set$buckets" >/dev/null
    start=$(date +%s.%N)
    "$asim" run --platform "$platform" --trace "$work/set$buckets" --fidelity fast --out "$work/out$buckets" >/dev/null
    end=$(date +%s.%N)
    python3 - "$work/out$buckets/stats.json" "$platform" "$buckets" "$start" "$end" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["summary"]
d, step = s["per_die"][0], s["sim_time_ns"]
print(f"{sys.argv[2]} --grad-buckets {sys.argv[3]}: step {step / 1e6:.3f} ms, comm {100 * d['comm_time_ns'] / step:.1f} %, "
      f"exposed {100 * d['comm_exposed_ns'] / step:.1f} %, wall {float(sys.argv[5]) - float(sys.argv[4]):.1f} s")
PY
done
