#!/usr/bin/env python3
"""Roofline validation of the die model: GEMMs from 64 to 16384 per dimension in bf16, fp8 and fp4.

usage: bench/roofline.py [--binary PATH] [--platform P] [--set KEY=VALUE]... [--quick] [--out DIR]

Runs `ascend-sim figures gemm` (each GEMM a one-op trace through the full die model) and checks
that the achieved throughput never exceeds the roof

    roof = min(peak compute for the dtype, arithmetic intensity x HBM peak bandwidth)

where the arithmetic intensity is 2*M*N*K FLOPs over the compulsory HBM traffic. Two roofs are
reported:

  strict    A (M x K) and B (K x N) read once in the operand dtype, C (M x N) written once in
            bf16 (the trace's output): the textbook roofline.
  write-back  the same, less the part of C the L2 can still hold dirty when the op ends: the L2
            is write-back, so an op is done when its output is in the L2, and up to the L2's
            capacity of C need not have reached HBM by then. Traffic = A + B + max(0, C - L2).

The check (exit status) uses the write-back roof, the only one physics imposes on a write-back
cache; rows above the strict roof are flagged and counted too, with the explanation. The peak per
dtype is the one `figures gemm` measures utilisation against (tflops / utilization), the HBM peak
the `hbm_peak_gbps` of an `ascend-sim run` summary on the same platform, the L2 capacity the one
`ascend-sim info` prints.

It prints one row per GEMM and, for the large shapes (every dimension >= 4096), how close the
achieved throughput comes to the roof. Exit 1 if any GEMM exceeds its roof (a model bug), 2 on
bad usage. With --out, the table also goes to DIR/roofline.csv."""
import argparse, csv, io, itertools, json, os, re, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DIMS = [64, 1024, 16384]
SQUARES = [128, 256, 512, 2048, 4096, 8192]
LARGE = 4096
BYTES = {"bf16": 2.0, "fp8": 1.0, "fp4": 0.5}


def shapes(quick):
    if quick:
        return [(64, 64, 64), (1024, 1024, 1024), (4096, 4096, 4096), (64, 16384, 16384), (16384, 16384, 64)]
    s = list(itertools.product(DIMS, DIMS, DIMS)) + [(d, d, d) for d in SQUARES]
    return sorted(set(s), key=lambda x: (x[0] * x[1] * x[2], x))


def hbm_peak_bytes_per_s(binary, platform, sets, env):
    with tempfile.TemporaryDirectory() as t:
        cmd = [binary, "run", "--trace", os.path.join(ROOT, "traces", "samples", "tiny_mlp.jsonl"), "--out", t]
        if platform:
            cmd += ["--platform", platform]
        for kv in sets:
            cmd += ["--set", kv]
        p = subprocess.run(cmd, capture_output=True, text=True, env=env)
        if p.returncode != 0:
            sys.exit(f"roofline: {' '.join(cmd)} exited {p.returncode}: {p.stderr.strip()}")
        return json.load(open(os.path.join(t, "stats.json")))["summary"]["hbm_peak_gbps"] * 1e9


def l2_bytes(binary, platform, sets, env):
    cmd = [binary, "info"] + (["--platform", platform] if platform else [])
    for kv in sets:
        cmd += ["--set", kv]
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    m = re.search(r"^\s*L2\s+([0-9.]+) (KiB|MiB|GiB)", p.stdout, re.M)
    if p.returncode != 0 or not m:
        sys.exit(f"roofline: no L2 capacity in the output of {' '.join(cmd)}: {p.stderr.strip()}")
    return float(m.group(1)) * {"KiB": 2**10, "MiB": 2**20, "GiB": 2**30}[m.group(2)]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=os.path.join(ROOT, "build", "release", "testbenches", "ascend-sim"))
    ap.add_argument("--platform", default="")
    ap.add_argument("--set", action="append", default=[], dest="sets")
    ap.add_argument("--dtypes", default="bf16,fp8,fp4")
    ap.add_argument("--quick", action="store_true", help="five shapes per dtype instead of 33")
    ap.add_argument("--out", default="")
    a = ap.parse_args()
    if not os.path.exists(a.binary):
        print(f"roofline: {a.binary} not found; build first", file=sys.stderr)
        return 2
    env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
    bw = hbm_peak_bytes_per_s(a.binary, a.platform, a.sets, env)
    l2 = l2_bytes(a.binary, a.platform, a.sets, env)
    spec = ";".join(f"{m},{n},{k}" for m, n, k in shapes(a.quick))
    rows, bad, strict_over = [], 0, 0
    for dtype in a.dtypes.split(","):
        cmd = [a.binary, "figures", "gemm", "--dtype", dtype, "--shapes", spec]
        if a.platform:
            cmd += ["--platform", a.platform]
        for kv in a.sets:
            cmd += ["--set", kv]
        p = subprocess.run(cmd, capture_output=True, text=True, env=env)
        if p.returncode != 0:
            print(f"roofline: figures gemm --dtype {dtype} exited {p.returncode}: {p.stderr.strip()}", file=sys.stderr)
            return 1
        text = "\n".join(l for l in p.stdout.splitlines() if not l.startswith("#"))
        for r in csv.DictReader(io.StringIO(text)):
            m, n, k = int(r["m"]), int(r["n"]), int(r["k"])
            achieved = float(r["tflops"]) * 1e12
            peak = achieved / float(r["utilization"])
            flops = 2.0 * m * n * k
            reads, c = (m * k + k * n) * BYTES[dtype], m * n * 2.0
            strict_roof = min(peak, flops / (reads + c) * bw)
            mem_roof = flops / (reads + max(0.0, c - l2)) * bw
            roof = min(peak, mem_roof)
            # The CSV rounds tflops to 1e-3 TFLOPS and utilisation to 1e-6: allow that much.
            slack = lambda x: x * (1 + 2e-6) + 1e9
            over = achieved > slack(roof)
            over_strict = achieved > slack(strict_roof)
            bad += over
            strict_over += over_strict
            rows.append(dict(m=m, n=n, k=k, dtype=dtype, intensity=flops / (reads + c), peak_tflops=peak * 1e-12,
                             strict_roof_tflops=strict_roof * 1e-12, roof_tflops=roof * 1e-12,
                             achieved_tflops=achieved * 1e-12, of_strict_roof=achieved / strict_roof,
                             of_roof=achieved / roof, bound="compute" if peak <= mem_roof else "memory",
                             over_strict=over_strict, over=over))
    print(f"HBM peak {bw * 1e-9:.1f} GB/s, L2 {l2 / 2**20:.0f} MiB")
    print(f"{'m':>6} {'n':>6} {'k':>6} {'dtype':>5} {'FLOP/B':>9} {'bound':>7} {'strict':>9} {'roof TF':>9} "
          f"{'achieved':>9} {'of strict':>9} {'of roof':>8}")
    for r in rows:
        print(f"{r['m']:>6} {r['n']:>6} {r['k']:>6} {r['dtype']:>5} {r['intensity']:>9.1f} {r['bound']:>7} "
              f"{r['strict_roof_tflops']:>9.1f} {r['roof_tflops']:>9.1f} {r['achieved_tflops']:>9.1f} "
              f"{100 * r['of_strict_roof']:>8.1f}% {100 * r['of_roof']:>7.1f}%"
              + ("  EXCEEDS THE ROOF" if r["over"] else "  above strict roof: C partly still in L2" if r["over_strict"] else ""))
    large = [r for r in rows if min(r["m"], r["n"], r["k"]) >= LARGE]
    for dtype in a.dtypes.split(","):
        lr = [r for r in large if r["dtype"] == dtype]
        if lr:
            lo = min(lr, key=lambda r: r["of_roof"])
            hi = max(lr, key=lambda r: r["of_roof"])
            print(f"large shapes (all dims >= {LARGE}), {dtype}: {100 * lo['of_roof']:.1f} % "
                  f"({lo['m']}x{lo['n']}x{lo['k']}) to {100 * hi['of_roof']:.1f} % "
                  f"({hi['m']}x{hi['n']}x{hi['k']}) of the roof")
    if a.out:
        os.makedirs(a.out, exist_ok=True)
        with open(os.path.join(a.out, "roofline.csv"), "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
            w.writeheader()
            w.writerows(rows)
    print(f"{strict_over} GEMM(s) above the strict roof (the op ends with part of C dirty in the write-back L2)")
    print(f"{bad} GEMM(s) above the write-back roof" if bad else "no GEMM above the write-back roof")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
