#!/usr/bin/env python3
"""GEMM scaling: does wall time grow with the work, and memory stay flat? (issue 13, item 5)

usage: bench/gemm_scaling.py [--binary PATH] [--runs N] [--sizes 2048,4096,8192,16384] [--out DIR]
                             [--check]

Writes one square BF16 GEMM trace per size (the format of bench/workloads/gemm_8192_bf16.jsonl,
which is the 8192 one: A at 0x0, B at 4 GiB, C at 8 GiB), runs `ascend-sim run` on each N times
and reports the median wall time, the median user CPU time, the largest peak RSS (ru_maxrss of
the child, from os.wait4: no tool outside Python), each against the reference size (8192, or the
middle size when 8192 is not among them) next to the work ratio (n / 8192)^3, and what the run
simulated (HBM bytes fetched, L2 MSHR stalls, fraction of the Cube peak).

--check exits 1 unless the largest size takes at most 9x the reference's median wall time for
8x the work (that is, when the sizes double: linear within 12.5 %) and every run peaks below
100 MiB. Results also go to DIR/gemm_scaling.json."""
import argparse, json, os, statistics, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
REFERENCE = 8192
MAX_RSS_MIB = 100
MAX_RATIO_PER_8X = 9.0


def write_trace(path, n):
    """The 8192 trace of bench/workloads with n for 8192; byte for byte the same for n = 8192."""
    b = n * n * 2
    header = {"format": "ascend-sim-trace", "version": 1, "dies": 1, "die": 0,
              "name": f"GEMM {n}x{n}x{n} bf16 (compute-bound)"}
    op = {"id": 0, "op": "matmul", "name": "gemm", "m": n, "n": n, "k": n, "dtype": "bf16",
          "inputs": [{"name": "a", "addr": "0x0", "bytes": b, "stream": "activation"},
                     {"name": "b", "addr": "0x100000000", "bytes": b, "stream": "weight"}],
          "outputs": [{"name": "c", "addr": "0x200000000", "bytes": b, "stream": "activation"}]}
    with open(path, "w") as f:
        f.write(json.dumps(header) + "\n" + json.dumps(op) + "\n")


def run_once(binary, trace, env):
    """Wall seconds, user CPU seconds, peak RSS in MiB and stats.json of one run."""
    with tempfile.TemporaryDirectory() as out:
        t0 = time.monotonic()
        p = subprocess.Popen([binary, "run", "--trace", trace, "--out", out], stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, env=env)
        output = p.stdout.read()
        _, status, usage = os.wait4(p.pid, 0)
        wall = time.monotonic() - t0
        code = os.waitstatus_to_exitcode(status)
        if code != 0:
            sys.exit(f"gemm_scaling: {trace} exited {code}: {output[-400:].decode(errors='replace')}")
        with open(os.path.join(out, "stats.json")) as f:
            doc = json.load(f)
    return wall, usage.ru_utime, usage.ru_maxrss / 1024.0, doc  # ru_maxrss is in KiB on Linux: MiB


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=os.path.join(ROOT, "build", "release", "testbenches", "ascend-sim"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--sizes", default="2048,4096,8192,16384")
    ap.add_argument("--out", default=os.path.join(HERE, "results"))
    ap.add_argument("--check", action="store_true", help="exit 1 unless the targets hold")
    a = ap.parse_args()
    if not os.path.exists(a.binary):
        sys.exit(f"gemm_scaling: {a.binary} not found; build first (scripts/build.sh release)")
    sizes = [int(s) for s in a.sizes.split(",")]
    ref = REFERENCE if REFERENCE in sizes else sizes[len(sizes) // 2]
    env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
    rows = []
    with tempfile.TemporaryDirectory() as traces:
        for n in sizes:
            trace = os.path.join(traces, f"gemm_{n}_bf16.jsonl")
            write_trace(trace, n)
            walls, users, rss, doc = [], [], [], None
            for _ in range(a.runs):
                wall, user, peak, doc = run_once(a.binary, trace, env)
                walls.append(wall)
                users.append(user)
                rss.append(peak)
            l2 = doc["stats"]["die"]["l2"]
            s = doc["summary"]
            rows.append({"n": n, "runs": a.runs, "wall_s_median": statistics.median(walls), "wall_s_all": walls,
                         "user_s_median": statistics.median(users), "user_s_all": users,
                         "peak_rss_mib_max": max(rss), "peak_rss_mib_all": rss,
                         "sim_time_ns": s["sim_time_ns"], "of_peak": s["achieved_tflops"] / s["peak_tflops"],
                         "l2_read_bytes": l2["read_bytes"], "hbm_fetch_bytes": l2["hbm_fetch_bytes_demand"],
                         "mshr_stalls": l2["mshr_stalls"]})
            r = rows[-1]
            print(f"{n:>6}^3  wall {r['wall_s_median']:7.3f} s  user {r['user_s_median']:7.3f} s  "
                  f"peak {r['peak_rss_mib_max']:6.1f} MiB  (runs: {' '.join(f'{w:.2f}' for w in walls)})", flush=True)
    base = next(r for r in rows if r["n"] == ref)
    print(f"\n{'n':>6} {'work':>7} {'wall s':>8} {'x wall':>7} {'user s':>8} {'x user':>7} {'peak MiB':>8} "
          f"{'HBM read':>10} {'MSHR stalls':>12} {'sim time':>10} {'of peak':>8}")
    for r in rows:
        r["work_ratio"] = (r["n"] / ref) ** 3
        r["wall_ratio"] = r["wall_s_median"] / base["wall_s_median"]
        r["user_ratio"] = r["user_s_median"] / base["user_s_median"]
        print(f"{r['n']:>6} {r['work_ratio']:7.3f} {r['wall_s_median']:8.3f} {r['wall_ratio']:7.2f} "
              f"{r['user_s_median']:8.3f} {r['user_ratio']:7.2f} {r['peak_rss_mib_max']:8.1f} "
              f"{r['hbm_fetch_bytes'] / 2**30:7.2f} GiB {r['mshr_stalls']:12d} "
              f"{r['sim_time_ns'] / 1e3:7.1f} us {100 * r['of_peak']:7.1f} %")
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "gemm_scaling.json"), "w") as f:
        json.dump({"binary": a.binary, "reference": ref, "rows": rows}, f, indent=2)
    print(f"\nwritten {os.path.join(a.out, 'gemm_scaling.json')}")
    if a.check:
        top = rows[-1]
        allowed = MAX_RATIO_PER_8X * top["work_ratio"] / 8
        problems = []
        if top["n"] > ref and top["wall_ratio"] > allowed:
            problems.append(f"{top['n']}^3 took {top['wall_ratio']:.2f}x the {ref}^3 wall (at most {allowed:.2f}x)")
        problems += [f"{r['n']}^3 peaked at {r['peak_rss_mib_max']:.1f} MiB (limit {MAX_RSS_MIB})"
                     for r in rows if r["peak_rss_mib_max"] >= MAX_RSS_MIB]
        for p in problems:
            print("FAIL: " + p)
        if problems:
            sys.exit(1)
        print("targets hold")


if __name__ == "__main__":
    main()
