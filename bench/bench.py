#!/usr/bin/env python3
"""ascend-sim benchmarks: simulation speed and first-principles accuracy bounds.

usage: bench/bench.py [--binary PATH] [--runs N] [--out DIR]

For each workload it runs `ascend-sim run` N times and reports the median wall time, simulated
nanoseconds per wall second and SystemC delta cycles per wall second, plus the figure the
workload checks (fraction of the Cube peak, fraction of the HBM peak). Results go to stdout and
to DIR/bench.json. Wall time is measured around the whole process (start-up included)."""
import argparse, json, os, statistics, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
WORKLOADS = [
    ("default: llama3-70b layer (built-in)", [], "achieved_of_peak"),
    ("gemm 8192^3 bf16", ["--trace", os.path.join(HERE, "workloads", "gemm_8192_bf16.jsonl")], "achieved_of_peak"),
    ("add 1 GiB bf16", ["--trace", os.path.join(HERE, "workloads", "add_1gib_bf16.jsonl")], "hbm_of_peak"),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=os.path.join(ROOT, "build", "release", "testbenches", "ascend-sim"))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--out", default=os.path.join(HERE, "results"))
    a = ap.parse_args()
    if not os.path.exists(a.binary):
        sys.exit(f"bench: {a.binary} not found; build first (scripts/build.sh release)")
    env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
    results = []
    print(f"{'workload':38} {'wall s':>8} {'sim ns/wall s':>14} {'deltas/s':>10} {'sim time':>12}  figure")
    for name, args, figure in WORKLOADS:
        walls, summary, meta = [], None, None
        for _ in range(a.runs):
            with tempfile.TemporaryDirectory() as out:
                t0 = time.monotonic()
                p = subprocess.run([a.binary, "run", "--out", out] + args, capture_output=True, text=True, env=env)
                walls.append(time.monotonic() - t0)
                if p.returncode != 0:
                    sys.exit(f"bench: {name} exited {p.returncode}: {p.stdout[-400:]}")
                doc = json.load(open(os.path.join(out, "stats.json")))
                summary, meta = doc["summary"], doc["meta"]
        wall = statistics.median(walls)
        sim_ns = summary["sim_time_ns"]
        if figure == "achieved_of_peak":
            value = summary["achieved_tflops"] / summary["peak_tflops"]
            text = f"{summary['achieved_tflops']:.1f} of {summary['peak_tflops']:.1f} TFLOPS = {100*value:.1f} % of peak"
        else:
            value = summary["hbm_bw_gbps"] / summary["hbm_peak_gbps"]
            text = f"{summary['hbm_bw_gbps']:.0f} of {summary['hbm_peak_gbps']:.0f} GB/s = {100*value:.1f} % of HBM peak"
        row = {"workload": name, "runs": a.runs, "wall_s_median": wall, "wall_s_all": walls,
               "sim_time_ns": sim_ns, "sim_ns_per_wall_s": sim_ns / wall,
               "delta_cycles_per_wall_s": meta["sim_events"] / wall, figure: value}
        results.append(row)
        print(f"{name:38} {wall:8.3f} {sim_ns / wall:14.0f} {meta['sim_events'] / wall:10.0f} {sim_ns / 1e3:10.1f} us  {text}")
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "bench.json"), "w") as f:
        json.dump({"binary": a.binary, "results": results}, f, indent=2)
    print(f"\nwritten {os.path.join(a.out, 'bench.json')}")


if __name__ == "__main__":
    main()
