#!/usr/bin/env python3
"""Wall-time cost of the memory pool (issue 15, "Performance"): each workload run with its weights
in HBM and in a pool tier, as alternating pairs (A B A B ...) in one session; prints the medians,
the ratio pool / HBM (target: at most 1.5), and the median and range of the pairs' own ratios.
usage: speed.py [--asim PATH] [--runs N] [--work DIR]"""
import argparse
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

WORKLOADS = [
    # name, trace gen arguments (None: the synthetic alternating trace), placement option
    ("Qwen3-30B-A3B decode, 2 layers, experts in remote_hbm",
     ["--model", "qwen3-30b-a3b", "--phase", "decode", "--batch", "768", "--seq", "4096", "--dp", "8", "--ep", "8",
      "--layers", "2"], "--expert-weights", "remote_hbm"),
    ("Qwen3-30B-A3B prefill, 1 layer, experts in host_ddr",
     ["--model", "qwen3-30b-a3b", "--phase", "prefill", "--batch", "32", "--seq", "4096", "--dp", "8", "--ep", "8",
      "--layers", "1"], "--expert-weights", "host_ddr"),
    ("Llama-3-70B decode layer (TP 8), weights in remote_hbm",
     ["--model", "llama3-70b", "--phase", "decode", "--batch", "32", "--seq", "4096", "--tp", "8", "--layers", "1"],
     "--weights", "remote_hbm"),
    ("alternating compute / pool-weight GEMMs, remote_hbm, depth 1", None, None, "remote_hbm"),
]
# Whole trace sets on a supernode preset (collectives included): remote_hbm data crosses the links.
SETS = [
    ("Llama-3-70B decode layer, 8 dies on supernode8_ring, weights in remote_hbm",
     ["--model", "llama3-70b", "--phase", "decode", "--batch", "32", "--seq", "4096", "--tp", "8", "--layers", "1"],
     "--weights", "remote_hbm", "supernode8_ring"),
]


def gen(asim, work, name, args, option, tier):
    out = os.path.join(work, name)
    if not os.path.exists(os.path.join(out, "die0.jsonl")):
        if args is None:
            os.makedirs(out, exist_ok=True)
            subprocess.run([sys.executable, os.path.join(HERE, "alternating_trace.py"), os.path.join(out, "die0.jsonl"),
                            "--tier", tier], check=True)
        else:
            subprocess.run([asim, "trace", "gen", *args, "--no-collectives", "--no-embedding", "--die", "0", option, tier,
                            "--out", out], check=True, stdout=subprocess.DEVNULL)
    return os.path.join(out, "die0.jsonl")


def gen_set(asim, work, name, args, option, tier):
    out = os.path.join(work, name)
    if not os.path.exists(os.path.join(out, "index.json")):
        subprocess.run([asim, "trace", "gen", *args, "--no-embedding", option, tier, "--out", out], check=True,
                       stdout=subprocess.DEVNULL)
    return out


def wall(asim, trace, extra, work):
    t = time.monotonic()
    subprocess.run([asim, "run", "--trace", trace, *extra, "--out", os.path.join(work, "run")], check=True,
                   stdout=subprocess.DEVNULL)
    return time.monotonic() - t


def measure(asim, name, local, pool, extra, runs, work):
    """Runs the HBM and the pool trace in turn `runs` times and prints a table row: the medians,
    their ratio, and the median and range of the pairs' own ratios (a pair's two runs are
    neighbours in time, so a machine that slows down for a minute moves both)."""
    hbm_w, pool_w = [], []
    for _ in range(runs):
        hbm_w.append(wall(asim, local, extra, work))
        pool_w.append(wall(asim, pool, extra, work))
    h, p = statistics.median(hbm_w), statistics.median(pool_w)
    pairs = [q / r for r, q in zip(hbm_w, pool_w)]
    print(f"| {name} | {h:.2f} | {p:.2f} | {p / h:.2f} | {statistics.median(pairs):.2f} "
          f"({min(pairs):.2f}-{max(pairs):.2f}) |", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--asim", default=os.path.join(ROOT, "build/release/testbenches/ascend-sim"))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--work", default=os.path.join(ROOT, "bench/results/dsm-speed"))
    a = ap.parse_args()
    os.environ["SYSTEMC_DISABLE_COPYRIGHT_MESSAGE"] = "1"
    print("| workload | HBM wall s (median) | pool wall s (median) | pool / HBM | pairs' pool / HBM: "
          "median (range) |")
    print("|---|---|---|---|---|")
    for i, (name, args, option, tier) in enumerate(WORKLOADS):
        local = gen(a.asim, a.work, f"w{i}-hbm", args, option, "hbm")
        pool = gen(a.asim, a.work, f"w{i}-{tier}", args, option, tier)
        extra = ["--set", "die.hjsd.prefetch_depth=1", "--set", "die.l2.partitions.weight=32MiB",
                 "--set", "die.l2.partitions.general=rest"] if args is None else []
        measure(a.asim, name, local, pool, extra, a.runs, a.work)
    for i, (name, args, option, tier, platform) in enumerate(SETS):
        local = gen_set(a.asim, a.work, f"s{i}-hbm", args, option, "hbm")
        pool = gen_set(a.asim, a.work, f"s{i}-{tier}", args, option, tier)
        measure(a.asim, name, local, pool, ["--platform", platform], a.runs, a.work)


if __name__ == "__main__":
    main()
