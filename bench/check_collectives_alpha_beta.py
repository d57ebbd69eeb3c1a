#!/usr/bin/env python3
"""Compare `ascend-sim figures collectives` with the alpha-beta ring all-reduce reference.

usage: bench/check_collectives_alpha_beta.py [BINARY] [REFERENCE_CSV]

Runs ring all-reduce on bench/interconnect/alpha_beta_ring.yaml (beta 25e9 B/s, alpha 1 us) for
every row of the reference with the decimal-GB convention (8, 64 and 1024 NPUs; 1 MiB, 64 MiB,
1 GiB) and prints simulated time, reference time and the error; exits 1 if any error exceeds 2 %.
Also checks halving-doubling (on a full mesh) and ring all-gather against their formulas."""
import csv, math, os, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def run(binary, op, algo, dies, size, platform="alpha_beta_ring.yaml"):
    cmd = [binary, "figures", "collectives", "--platform", os.path.join(HERE, "interconnect", platform),
           "--op", op, "--algo", algo, "--sizes", f"{size}B", "--set", f"network.dies={dies}",
           "--set", f"network.node.dies={dies}"]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    rows = [l for l in out.splitlines() if l and l[0].isdigit()]
    return float(rows[0].split(",")[1])


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "release", "testbenches", "ascend-sim")
    ref = sys.argv[2] if len(sys.argv) > 2 else "/work/shared/refdata/astra-sim/analytical_ring_allreduce.csv"
    worst = 0.0
    print(f"{'check':34} {'npus':>5} {'bytes':>11} {'sim us':>12} {'ref us':>12} {'error':>8}")
    for row in csv.DictReader(open(ref)):
        if not row["link_bw"].startswith("25e9"):
            continue
        p, size, want = int(row["npus"]), int(row["bytes"]), float(row["total_us"])
        got = run(binary, "allreduce", "ring", p, size)
        err = got / want - 1
        worst = max(worst, abs(err))
        print(f"{'ring allreduce (refdata)':34} {p:5} {size:11} {got:12.3f} {want:12.3f} {100 * err:7.3f}%")
    for p in (8, 64):
        for size in (1 << 20, 64 << 20):
            hd = 2 * math.log2(p) * 1.0 + 2 * (p - 1) / p * size / 25e9 * 1e6
            ag = (p - 1) * 1.0 + (p - 1) / p * size / 25e9 * 1e6
            for name, got, want in (
                ("halving-doubling allreduce (mesh)", run(binary, "allreduce", "halving_doubling", p, size, "alpha_beta_mesh.yaml"), hd),
                ("ring allgather", run(binary, "allgather", "ring", p, size), ag)):
                err = got / want - 1
                worst = max(worst, abs(err))
                print(f"{name:34} {p:5} {size:11} {got:12.3f} {want:12.3f} {100 * err:7.3f}%")
    print(f"worst error {100 * worst:.3f}% (limit 2%)")
    return 0 if worst <= 0.02 else 1


if __name__ == "__main__":
    sys.exit(main())
