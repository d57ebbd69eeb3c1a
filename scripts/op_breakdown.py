#!/usr/bin/env python3
"""Where each op's time goes, from a run's timeline: scripts/op_breakdown.py DIR [--cores N]

DIR is an `ascend-sim run --timeline --out DIR` output directory. For every op (slices are named
"<name> #<id>"): its span (first slice start to last slice end, us), and per pipe kind the busy
time summed over the recorded cores, as a share of span x cores (how busy that pipe kind was
during the op). C2V is fused attention's direct Cube-to-Vector path (L0C -> UB, UB -> L1). --cores is the number of AI cores recorded (default: the die.coreN groups found)."""
import argparse, collections, json, os, re


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir")
    ap.add_argument("--cores", type=int, default=0)
    a = ap.parse_args()
    events = json.load(open(os.path.join(a.dir, "timeline.json")))["traceEvents"]
    groups, tracks = {}, {}
    for e in events:
        if e["ph"] == "M" and e["name"] == "process_name":
            groups[e["pid"]] = e["args"]["name"]
        if e["ph"] == "M" and e["name"] == "thread_name":
            tracks[e["tid"]] = e["args"]["name"]
    cores = a.cores or sum(1 for g in groups.values() if re.fullmatch(r".*\.core\d+", g))
    span = {}
    busy = collections.defaultdict(lambda: collections.defaultdict(float))
    kinds = ["MTE2", "MTE1", "Cube", "C2V", "Vector", "FixPipe", "MTE3"]
    for e in events:
        if e["ph"] != "X":
            continue
        name, t0, t1 = e["name"], float(e["ts"]), float(e["ts"]) + float(e["dur"])
        s = span.get(name)
        span[name] = (min(s[0], t0), max(s[1], t1)) if s else (t0, t1)
        track = tracks[e["tid"]]
        kind = next(k for k in kinds if re.search(r"\b" + k + r"\b", track))
        # Per core the vector pipes are two (AIV0, AIV1): share of both; MTE2 / MTE3 likewise.
        busy[name][kind] += float(e["dur"])
    def order(n):
        m = re.search(r"#(\d+)$", n)
        return int(m.group(1)) if m else 0
    print(f"{'op':34} {'start us':>9} {'span us':>9}  " + "  ".join(f"{k:>7}" for k in kinds))
    for name in sorted(span, key=order):
        t0, t1 = span[name]
        d = max(t1 - t0, 1e-12) * cores
        print(f"{name[:34]:34} {t0:9.2f} {t1 - t0:9.2f}  " + "  ".join(f"{100 * busy[name][k] / d:6.1f}%" for k in kinds))
    print(f"\nbusy share = pipe-kind busy time summed over {cores} cores / (span x cores); the vector, MTE2 "
          "and MTE3 kinds sum the core's pipes of that kind (two vector cores: up to 200 %)")


if __name__ == "__main__":
    main()
