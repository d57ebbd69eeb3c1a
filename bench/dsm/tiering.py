#!/usr/bin/env python3
"""Hardware tiering over consecutive decode steps (issue 15 deliverable 3, docs/evidence/dsm).

One die of Qwen3-30B-A3B decode (batch 768 over DP 8 x EP 8, KV 4096, 2 layers, skewed expert
routing) for several steps in one trace (`trace gen --steps`; with `--platform supernode8_ring`
all 8 dies of the node, die 0's steps shown), its experts in a pool tier
(`--tier`: host_ddr, the die's tiering into its HBM; pmem, the node's tiering of warm blocks into
its DDR beside it). Each configuration is one `ascend-sim run`; the table gives every step's time
(from ops.csv: an op of step k > 0 is named `stepk.`), the pool bytes, the blocks promoted and
the reads served by them, beside the same steps with every weight in local HBM (the bound
tiering can approach).

    python3 bench/dsm/tiering.py [--binary PATH] [--tier host_ddr|pmem] [--platform P]
                                 [--steps N] [--jobs J] [--out DIR]
"""
import argparse
import concurrent.futures
import csv
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

HBM = "dsm.tiering.enable=true"  # the die's tiering into its HBM
SHARE = "dsm.tiering.priority=share"
# The die's budget stated, not the preset's: supernode8_ring's is a quarter of its port, 5.3 GB/s.
HBM41 = "dsm.tiering.migration_bandwidth=41GB/s"
WARM = "dsm.warm.enable=true"  # the node's tiering of pmem's warm blocks into its DDR
# name, --set values, per tier of the experts
TIERED = {
    "host_ddr": [
        ("background, 10 GB/s", [HBM, "dsm.tiering.migration_bandwidth=10GB/s"]),
        ("background, 41 GB/s (preset)", [HBM]),
        ("background, 164 GB/s", [HBM, "dsm.tiering.migration_bandwidth=164GB/s"]),
        ("share, 10 GB/s", [HBM, SHARE, "dsm.tiering.migration_bandwidth=10GB/s"]),
        ("share, 41 GB/s", [HBM, SHARE]),
        ("share, 82 GB/s", [HBM, SHARE, "dsm.tiering.migration_bandwidth=82GB/s"]),
        ("share, 41 GB/s, promote after 1 read", [HBM, SHARE, "dsm.tiering.promote_after=1"]),
        ("share, 41 GB/s, promote after 16 reads", [HBM, SHARE, "dsm.tiering.promote_after=16"]),
        ("share, 41 GB/s, capacity 128 MiB", [HBM, SHARE, "dsm.tiering.capacity=128MiB"]),
    ],
    "pmem": [
        ("warm into DDR, 13 GB/s (preset)", [WARM]),
        ("warm into DDR, 26 GB/s", [WARM, "dsm.warm.migration_bandwidth=26GB/s"]),
        ("warm into DDR, 13 GB/s, region 128 MiB", [WARM, "dsm.warm.capacity=128MiB"]),
        ("into HBM, share 41 GB/s", [HBM, SHARE, HBM41]),
        ("warm into DDR 13 GB/s + into HBM share 41 GB/s", [WARM, HBM, SHARE, HBM41]),
        ("into HBM, share 41 GB/s, capacity 128 MiB",
         [HBM, SHARE, HBM41, "dsm.tiering.capacity=128MiB"]),
        ("warm into DDR + into HBM share, capacity 128 MiB",
         [WARM, HBM, SHARE, HBM41, "dsm.tiering.capacity=128MiB"]),
    ],
}


def gen(binary, out, tier, steps, node):
    """Die 0's trace, or with `node` the trace set of all 8 dies (one node)."""
    cmd = [binary, "trace", "gen", "--model", "qwen3-30b-a3b", "--phase", "decode",
           "--batch", "768", "--seq", "4096", "--dp", "8", "--ep", "8", "--layers", "2",
           "--routing", "skewed", "--steps", str(steps), "--no-collectives", "--no-embedding",
           "--expert-weights", tier, "--out", out] + ([] if node else ["--die", "0"])
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return out if node else os.path.join(out, "die0.jsonl")


def run(binary, platform, trace, sets, out):
    cmd = [binary, "run", "--platform", platform, "--trace", trace, "--out", out]
    for s in sets:
        cmd += ["--set", s]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return out


def step_times_us(out):
    """Die 0's step times: from the previous step's last op end to this step's last op end."""
    ends = {}
    with open(os.path.join(out, "ops.csv")) as f:
        for row in csv.DictReader(f):
            if row["die"] != "0":
                continue
            m = re.match(r"step(\d+)\.", row["name"])
            k = int(m.group(1)) if m else 0
            ends[k] = max(ends.get(k, 0.0), float(row["end_ns"]))
    times, prev = [], 0.0
    for k in sorted(ends):
        times.append((ends[k] - prev) / 1000)
        prev = ends[k]
    return times


def pool_figures(out, tier):
    """The experts' tier's bytes read, blocks promoted into HBM and hits there, promotions
    skipped, and the node tiering's warmed blocks and hits (0 when off)."""
    stats = json.load(open(os.path.join(out, "stats.json")))["stats"]
    dsm = stats["die" if "die" in stats else "die0"]["dsm"]
    warm = stats.get("dsm", {}).get("warm", {})
    return (dsm[tier]["read_bytes"], dsm[tier]["migrations_in"], dsm["promoted_hits"],
            dsm["migrations_skipped"], warm.get("warmed", 0), warm.get("hits", 0))


def report(args, work):
    node = args.platform != "ascend960"
    pool_trace = gen(args.binary, os.path.join(work, "trace-" + args.tier), args.tier, args.steps,
                     node)
    hbm_trace = gen(args.binary, os.path.join(work, "trace-hbm"), "hbm", args.steps, node)
    runs = [("experts in HBM (bound)", hbm_trace, []),
            (f"{args.tier}, no tiering", pool_trace, [])]
    runs += [(name, pool_trace, sets) for name, sets in TIERED[args.tier]]
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = [pool.submit(run, args.binary, args.platform, trace, sets,
                               os.path.join(work, f"run{i}"))
                   for i, (_, trace, sets) in enumerate(runs)]
        outs = [f.result() for f in futures]
    print(f"Qwen3-30B-A3B decode on {args.platform}, die 0, {args.steps} steps, experts in "
          f"{args.tier}; step times in us")
    warm = args.tier == "pmem"
    print("| run | " + " | ".join(f"step {k}" for k in range(args.steps)) +
          f" | total | {args.tier} read | promoted | promoted hits | skipped |" +
          (" warmed | warm hits |" if warm else ""))
    print("|---" * (args.steps + 6 + (2 if warm else 0)) + "|")
    for (name, _, _), out in zip(runs, outs):
        times = step_times_us(out)
        read, promoted, hits, skipped, warmed, warm_hits = pool_figures(out, args.tier)
        print(f"| {name} | " + " | ".join(f"{t:.1f}" for t in times) +
              f" | {sum(times):.1f} | {read / 2**20:.0f} MiB | {promoted} | {hits} | {skipped} |" +
              (f" {warmed} | {warm_hits} |" if warm else ""))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--binary", default=os.path.join(ROOT, "build/release/testbenches/ascend-sim"))
    ap.add_argument("--tier", choices=sorted(TIERED), default="host_ddr",
                    help="where the experts live (default host_ddr)")
    ap.add_argument("--platform", default="ascend960",
                    help="ascend960 (die 0 alone, default) or an 8-die one-node supernode "
                         "(supernode8_ring: all 8 dies, sharing the node's DDR and pmem)")
    ap.add_argument("--steps", type=int, default=8)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", help="keep the runs here (default: a temporary directory)")
    args = ap.parse_args()
    work = args.out or tempfile.mkdtemp(prefix="asim-tiering-")
    os.makedirs(work, exist_ok=True)
    try:
        report(args, work)
    finally:
        if not args.out:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
