#!/usr/bin/env python3
"""The add workload's memory traffic without the cores: what the JEDEC HBM sustains (issue 13).

usage: bench/hbm_stream_mix.py [PATH/TO/ascend-sim] [--mib 128] [--streams 144] [--quick]

The die's add (bench/workloads/add_1gib_bf16.jsonl) reads a and b and writes c, each a 1 GiB
array at a power-of-two base, in 512 B L2 lines from many vector cores at once. This script writes
the same pattern as a mem-replay trace (`--streams` cores, each owning a contiguous slice of
`--mib` MiB per array; per step every core reads a[i], b[i] and writes c[i]; 12 lines per L2
cycle offered, 10.1 TB/s, above the 9.59 TB/s pin peak) and replays it into the ascend960 L2
with its HBM behind it (`mem-replay --target l2 --request-size 512B`), once with the flat HBM and
several times with the JEDEC controller, each variant taking one mechanism away:

  flat                the flat HBM (the pin peak less the refresh duty, 9.10 TB/s)
  jedec               the JEDEC controller as the preset describes it (refresh idle banks first)
  jedec, in turn      per-bank refresh in turn (`die.hbm.controller.refresh_order=round_robin`)
  jedec, no refresh   `die.hbm.controller.refresh=none`
  reads only          the same trace without the writes of c, at the same 12 lines per cycle
  reads, in turn      reads only, refresh in turn
  reads, no refresh   reads only, no refresh
  no refresh, wb 64   no refresh and a 64-entry write buffer drained from full

Reported: achieved bandwidth (all bytes the L2 took over the run), HBM bytes, activates and
accesses per activate, mean HBM read latency. Each JEDEC run takes 20-40 s of wall time."""
import argparse, json, os, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
LINE = 512
BASES = ((0x0, "READ"), (0x80000000, "READ"), (0x100000000, "WRITE"))  # as the add's a, b, c
LINES_PER_CYCLE = 12


def write_trace(path, mib, streams, with_writes):
    lines = mib * 1024 * 1024 // LINE
    per = lines // streams
    k = 0
    with open(path, "w") as f:
        for i in range(per):
            for s in range(streams):
                off = (s * per + i) * LINE
                for base, op in BASES:
                    if op == "WRITE" and not with_writes:
                        continue
                    f.write(f"0x{base + off:x} {op} {k // LINES_PER_CYCLE}\n")
                    k += 1


def replay(asim, trace, out, sets):
    cmd = [asim, "mem-replay", "--platform", "ascend960", "--target", "l2", "--mem-trace", trace,
           "--request-size", "512B", "--issue-cap", "0", "--out", out]
    for s in sets:
        cmd += ["--set", s]
    env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, env=env)
    with open(os.path.join(out, "stats.json")) as f:
        doc = json.load(f)
    return doc["summary"], doc["stats"]["die"]["hbm"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("asim", nargs="?", default=os.path.join(HERE, "..", "build", "release", "testbenches", "ascend-sim"))
    ap.add_argument("--mib", type=int, default=128, help="MiB per array (default 128: twice the L2, so c is written back)")
    ap.add_argument("--streams", type=int, default=144, help="concurrent streams (default 144: ascend960's vector cores)")
    ap.add_argument("--quick", action="store_true", help="flat and jedec only")
    a = ap.parse_args()
    jedec = "die.hbm.fidelity=jedec"
    noref = "die.hbm.controller.refresh=none"
    in_turn = "die.hbm.controller.refresh_order=round_robin"
    variants = [("flat", True, []), ("jedec", True, [jedec])]
    if not a.quick:
        variants += [("jedec, in turn", True, [jedec, in_turn]),
                     ("jedec, no refresh", True, [jedec, noref]),
                     ("reads only", False, [jedec]),
                     ("reads, in turn", False, [jedec, in_turn]),
                     ("reads, no refresh", False, [jedec, noref]),
                     ("no refresh, wb 64", True, [jedec, noref, "die.hbm.controller.write_buffer_depth=64",
                                                  "die.hbm.controller.write_drain_high=64"])]
    with tempfile.TemporaryDirectory() as work:
        traces = {}
        for w in (True, False):
            traces[w] = os.path.join(work, f"mix{int(w)}.trc")
            write_trace(traces[w], a.mib, a.streams, w)
        print(f"# {a.streams} streams, {a.mib} MiB per array, 512 B lines, {LINES_PER_CYCLE} lines per L2 cycle offered")
        print("| variant | bandwidth | HBM read / written | activates | accesses per ACT | mean HBM read latency |")
        print("|---|---|---|---|---|---|")
        for i, (name, writes, sets) in enumerate(variants):
            s, h = replay(a.asim, traces[writes], os.path.join(work, f"out{i}"), sets)
            acc = (h["read_bytes"] + h["write_bytes"]) // 32  # 32 B device accesses
            per_act = f"{acc / h['activates']:.1f}" if h.get("activates") else "-"
            acts = h.get("activates", "-")
            print(f"| {name} | {s['bandwidth_gbps']:.0f} GB/s | {h['read_bytes'] / 2**20:.0f} / {h['write_bytes'] / 2**20:.0f} MiB "
                  f"| {acts} | {per_act} | {h['read_latency_ns']['mean']:.0f} ns |", flush=True)


if __name__ == "__main__":
    sys.exit(main())
