#!/usr/bin/env python3
"""mem-replay speed on the DRAMSim3 calibration traces (shared/refdata/dramsim3).

usage: bench/mem_replay.py PATH/TO/ascend-sim [--runs 5] [--refdata DIR] [--check]
Runs `ascend-sim mem-replay --issue-cap 0` on rand_read_sat and seq_read_sat (100,000 requests
each), several times, and reports the median wall time and CPU time of the whole process,
requests per wall second, and the speed-up over DRAMSim3.

The DRAMSim3 anchor: 0.95 s (rand_read_sat) and 0.23 s (seq_read_sat) of wall time for the whole
process on one core of this 2-core machine, DRAMSim3 commit 29817593 unmodified, Release (-O3)
build, driven in order with no issue cap (DRAMSim3's own trace front end), as stated in
shared/refdata/dramsim3/README.md ("Speed, for comparison"). They are fixed numbers, not re-measured
here: a busy machine slows ascend-sim and leaves the anchor alone, so compare binaries with
paired runs (farm-bench --vs) and quote this script's ratio as against that anchor.
Wall time depends on what else runs on the machine; CPU time (user + system) does much less,
so both are given. --check exits 1 unless both traces are at least 8x faster than the anchor
by median wall time (issue 13)."""
import argparse, os, resource, statistics, subprocess, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
DRAMSIM3_S = {"rand_read_sat": 0.95, "seq_read_sat": 0.23}


def one(asim, trace):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run([asim, "mem-replay", "--platform", "hbm2_8gb_x128", "--mem-trace", trace, "--issue-cap", "0"],
                   check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("asim")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--refdata", default=os.path.join(HERE, "..", "..", "shared", "refdata", "dramsim3"))
    ap.add_argument("--check", action="store_true", help="exit 1 unless both traces are >= 8x DRAMSim3 (wall)")
    a = ap.parse_args()
    bad = 0
    print(f"{'trace':15} {'wall s':>8} {'cpu s':>7} {'req/wall s':>11} {'x DRAMSim3 wall':>16} {'x DRAMSim3 cpu':>15}")
    for name in ("rand_read_sat", "seq_read_sat"):
        trace = os.path.join(a.refdata, "traces", name + ".trc.gz")
        runs = [one(a.asim, trace) for _ in range(a.runs)]
        wall = statistics.median(r[0] for r in runs)
        cpu = statistics.median(r[1] for r in runs)
        print(f"{name:15} {wall:8.3f} {cpu:7.3f} {100000 / wall:11.0f} {DRAMSIM3_S[name] / wall:16.2f} "
              f"{DRAMSIM3_S[name] / cpu:15.2f}")
        bad += DRAMSIM3_S[name] / wall < 8
    return 1 if a.check and bad else 0


if __name__ == "__main__":
    sys.exit(main())
