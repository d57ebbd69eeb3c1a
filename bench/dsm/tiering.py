#!/usr/bin/env python3
"""Hardware tiering over consecutive decode steps (issue 15 deliverable 3, docs/evidence/dsm).

One die of Qwen3-30B-A3B decode (batch 768 over DP 8 x EP 8, KV 4096, 2 layers, skewed expert
routing) for several steps in one trace (`trace gen --steps`), its experts in host_ddr. Each
configuration is one `ascend-sim run`; the table gives every step's time (from ops.csv: an op of
step k > 0 is named `stepk.`), the pool bytes, the blocks promoted and the reads served by them,
beside the same steps with every weight in local HBM (the bound tiering can approach).

    python3 bench/dsm/tiering.py [--binary PATH] [--steps N] [--jobs J] [--out DIR]
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

# name, --set values (every tiered run has tiering.enable=true)
TIERED = [
    ("background, 10 GB/s", ["dsm.tiering.migration_bandwidth=10GB/s"]),
    ("background, 41 GB/s (preset)", []),
    ("background, 164 GB/s", ["dsm.tiering.migration_bandwidth=164GB/s"]),
    ("share, 10 GB/s", ["dsm.tiering.priority=share", "dsm.tiering.migration_bandwidth=10GB/s"]),
    ("share, 41 GB/s", ["dsm.tiering.priority=share"]),
    ("share, 82 GB/s", ["dsm.tiering.priority=share", "dsm.tiering.migration_bandwidth=82GB/s"]),
    ("share, 41 GB/s, promote after 1 read",
     ["dsm.tiering.priority=share", "dsm.tiering.promote_after=1"]),
    ("share, 41 GB/s, promote after 16 reads",
     ["dsm.tiering.priority=share", "dsm.tiering.promote_after=16"]),
    ("share, 41 GB/s, capacity 128 MiB",
     ["dsm.tiering.priority=share", "dsm.tiering.capacity=128MiB"]),
]


def gen(binary, out, tier, steps):
    cmd = [binary, "trace", "gen", "--model", "qwen3-30b-a3b", "--phase", "decode",
           "--batch", "768", "--seq", "4096", "--dp", "8", "--ep", "8", "--layers", "2",
           "--routing", "skewed", "--steps", str(steps), "--no-collectives", "--no-embedding",
           "--die", "0", "--expert-weights", tier, "--out", out]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return os.path.join(out, "die0.jsonl")


def run(binary, trace, sets, out):
    cmd = [binary, "run", "--trace", trace, "--out", out]
    for s in sets:
        cmd += ["--set", s]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return out


def step_times_us(out):
    """Each step's time: from the previous step's last op end to this step's last op end."""
    ends = {}
    with open(os.path.join(out, "ops.csv")) as f:
        for row in csv.DictReader(f):
            m = re.match(r"step(\d+)\.", row["name"])
            k = int(m.group(1)) if m else 0
            ends[k] = max(ends.get(k, 0.0), float(row["end_ns"]))
    times, prev = [], 0.0
    for k in sorted(ends):
        times.append((ends[k] - prev) / 1000)
        prev = ends[k]
    return times


def pool_figures(out):
    stats = json.load(open(os.path.join(out, "stats.json")))
    dsm = stats["stats"]["die"]["dsm"]
    ddr = dsm["host_ddr"]
    return ddr["read_bytes"], ddr["migrations_in"], dsm["promoted_hits"], dsm["migrations_skipped"]


def report(args, work):
    pool_trace = gen(args.binary, os.path.join(work, "trace-host_ddr"), "host_ddr", args.steps)
    hbm_trace = gen(args.binary, os.path.join(work, "trace-hbm"), "hbm", args.steps)
    runs = [("experts in HBM (bound)", hbm_trace, []),
            ("host_ddr, no tiering", pool_trace, [])]
    runs += [(name, pool_trace, ["dsm.tiering.enable=true"] + sets) for name, sets in TIERED]
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = [pool.submit(run, args.binary, trace, sets, os.path.join(work, f"run{i}"))
                   for i, (_, trace, sets) in enumerate(runs)]
        outs = [f.result() for f in futures]
    print(f"Qwen3-30B-A3B decode, die 0, {args.steps} steps, experts in host_ddr; step times in us")
    print("| run | " + " | ".join(f"step {k}" for k in range(args.steps)) +
          " | total | host_ddr read | promoted | promoted hits | skipped |")
    print("|---" * (args.steps + 6) + "|")
    for (name, _, _), out in zip(runs, outs):
        times = step_times_us(out)
        read, promoted, hits, skipped = pool_figures(out)
        print(f"| {name} | " + " | ".join(f"{t:.1f}" for t in times) +
              f" | {sum(times):.1f} | {read / 2**20:.0f} MiB | {promoted} | {hits} | {skipped} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--binary", default=os.path.join(ROOT, "build/release/testbenches/ascend-sim"))
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
