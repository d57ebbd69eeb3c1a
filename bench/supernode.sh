#!/usr/bin/env bash
# Supernode replay benchmarks (issue 8): wall time and peak memory of
#   1. an 8-die Llama-3-70B TP 8 layer (prefill, sequence 4096), every die detailed;
#   2. a 128-die Llama-2-13B training step (TP 8 x DP 16, batch 64 x 4096 tokens), fast fidelity.
# usage: bench/supernode.sh [PATH/TO/ascend-sim]   (traces are generated into a temp dir)
set -euo pipefail
cd "$(dirname "$0")/.."
asim="${1:-build/release/testbenches/ascend-sim}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

"$asim" trace gen --model llama3-70b --phase prefill --batch 1 --seq 4096 --tp 8 --layers 1 --no-embedding \
    --out "$work/tp8" >/dev/null
"$asim" trace gen --model llama2-13b --phase train --batch 64 --seq 4096 --tp 8 --dp 16 --out "$work/l13" >/dev/null

run() {  # name platform set extra...
    local name=$1 platform=$2 set=$3
    shift 3
    /usr/bin/time -f "%e %M" -o "$work/time" "$asim" run --platform "$platform" --trace "$set" "$@" \
        --out "$work/out-$name" >/dev/null
    read -r wall kb <"$work/time"
    python3 - "$work/out-$name/stats.json" "$name" "$wall" "$kb" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["summary"]
d = s["per_die"][0]
print(f"{sys.argv[2]:34} dies {s['dies']:4}  step {s['sim_time_ns'] / 1e6:8.3f} ms  "
      f"comm {d['comm_time_ns'] / 1e6:7.3f} ms (exposed {d['comm_exposed_ns'] / 1e6:7.3f})  "
      f"wall {float(sys.argv[3]):6.1f} s  peak {int(sys.argv[4]) / 1024:6.0f} MiB")
PY
}
run "llama3-70b TP8 layer, detailed" supernode8_ring "$work/tp8"
run "llama2-13b train step, fast" atlas950_8192 "$work/l13" --fidelity fast
