#!/usr/bin/env bash
# A refactor proves itself: runs the refactor workloads with two binaries and compares them.
#   bench/refactor_check.sh [--rename 'REGEX=REPLACEMENT' ...] OLD_BINARY NEW_BINARY [WORKDIR]
# Workloads: the default run, the GEMM 8192^3 and add 1 GiB workloads, the tiny MLP with the
# JEDEC HBM, the DRAMSim3 calibration replays (when ../shared/refdata is there), the 8-die TP8
# layer and the 128-die fast training step of bench/supernode.sh, `figures collectives` on every
# supernode preset and `info`. stats.json is compared without `meta` and wall-clock fields, the
# tables and info as text without the wall-clock figures of their progress lines. Exits 1 on any
# difference, naming it. Takes about four minutes per binary on two cores.
# --rename: a stat the change moved on purpose. Each stats.json is flattened to dotted paths
# ("stats.die.l2.hits"); in the old binary's, paths matching REGEX (Python re.sub) are renamed
# before the comparison, which otherwise stays exact (a renamed value must still be equal).
set -euo pipefail
cd "$(dirname "$0")/.."
renames=()
while [ "${1:-}" = "--rename" ]; do
    renames+=("$2")
    shift 2
done
old="$(realpath "$1")"
new="$(realpath "$2")"
work="${3:-$(mktemp -d)}"
mkdir -p "$work"
refdata=../shared/refdata/dramsim3/traces

snapshot() {  # binary outdir
    local b=$1 o=$2
    rm -rf "$o" && mkdir -p "$o"
    "$b" run --out "$o/default" >/dev/null 2>&1
    "$b" run --trace bench/workloads/gemm_8192_bf16.jsonl --out "$o/gemm" >/dev/null 2>&1
    "$b" run --trace bench/workloads/add_1gib_bf16.jsonl --out "$o/add" >/dev/null 2>&1
    "$b" run --trace traces/samples/tiny_mlp.jsonl --set die.hbm.fidelity=jedec --out "$o/tiny_jedec" >/dev/null 2>&1
    if [ -d "$refdata" ]; then
        for t in seq_read_sat rand_read_sat; do
            for c in 0 1; do
                "$b" mem-replay --platform hbm2_8gb_x128 --mem-trace "$refdata/$t.trc.gz" --issue-cap $c \
                    --out "$o/mr_${t}_$c" >/dev/null 2>&1
            done
        done
    fi
    "$b" run --platform supernode8_ring --trace "$work/tp8" --out "$o/tp8" >/dev/null 2>&1
    "$b" run --platform atlas950_8192 --trace "$work/l13" --fidelity fast --out "$o/l13" >/dev/null 2>&1
    for p in supernode8_ring cloudmatrix384 atlas950_8192 seed_cluster_8192; do
        "$b" figures collectives --platform "$p" --sizes 64KiB,64MiB >"$o/coll_$p.txt" 2>&1
    done
    "$b" figures collectives --platform atlas960_15488 --sizes 64MiB >"$o/coll_atlas960_15488.txt" 2>&1
    "$b" info >"$o/info.txt" 2>&1
}

[ -d "$work/tp8" ] || "$old" trace gen --model llama3-70b --phase prefill --batch 1 --seq 4096 --tp 8 \
    --layers 1 --no-embedding --out "$work/tp8" >/dev/null
[ -d "$work/l13" ] || "$old" trace gen --model llama2-13b --phase train --batch 64 --seq 4096 --tp 8 --dp 16 \
    --out "$work/l13" >/dev/null
echo "refactor_check: old binary"
snapshot "$old" "$work/old"
echo "refactor_check: new binary"
snapshot "$new" "$work/new"
python3 - "$work/old" "$work/new" "${renames[@]}" <<'PY'
import json, os, re, sys
old, new = sys.argv[1], sys.argv[2]
renames = [r.split("=", 1) for r in sys.argv[3:]]
def flat(x, path=""):
    if isinstance(x, dict):
        out = {}
        for k, v in x.items():
            if k != "meta" and "wall" not in k:
                out.update(flat(v, path + k + "."))
        return out
    if isinstance(x, list):
        return {path[:-1]: [flat(v) for v in x]}
    return {path[:-1]: x}
def renamed(stats):
    for pattern, replacement in renames:
        stats = {re.sub(pattern, replacement, k): v for k, v in stats.items()}
    return stats
def text(path):
    t = open(path).read()
    return re.sub(r"[0-9.]+ s wall|\([0-9.e+]+ events/s\)", "", t)
bad = 0
for name in sorted(os.listdir(old)):
    a, b = os.path.join(old, name), os.path.join(new, name)
    if os.path.isdir(a):
        sa = os.path.join(a, "stats.json")
        same = os.path.exists(os.path.join(b, "stats.json")) and \
            renamed(flat(json.load(open(sa)))) == flat(json.load(open(os.path.join(b, "stats.json"))))
    else:
        same = os.path.exists(b) and text(a) == text(b)
    print(f"{name:32} {'identical' if same else 'DIFFERS'}")
    bad += not same
sys.exit(1 if bad else 0)
PY
