#!/usr/bin/env python3
"""Tables for bench/dsm/sweep.sh: per scenario, step time and Cube utilisation over prefetch depth x
weight partition, the lift over depth 0, and the physical bound: max(compute-bound time = the same
trace with every weight in HBM, fetch-bound time = pool bytes read at depth 0 / the die's port
read bandwidth).  usage: report.py bench/results/dsm"""
import csv
import json
import os
import re
import sys

UNITS = {"B/s": 1, "kB/s": 1e3, "MB/s": 1e6, "GB/s": 1e9, "TB/s": 1e12}


def rate(text):
    m = re.match(r"\s*([0-9.eE+-]+)\s*([kMGT]?B/s)", str(text))
    return float(m.group(1)) * UNITS[m.group(2)]


def port_read_bandwidth(point_dir):
    text = open(os.path.join(point_dir, "config.yaml")).read()
    m = re.search(r"\ndsm:.*?\n  port:\s*\n    read_bandwidth:\s*([^\s#]+)", text, re.S)
    return rate(m.group(1))


def main(root):
    for name in sorted(os.listdir(root)):
        res = os.path.join(root, name, "results.csv")
        bound_stats = os.path.join(root, name + "-bound", "stats.json")
        if not os.path.exists(res) or not os.path.exists(bound_stats):
            continue
        rows = list(csv.DictReader(open(res)))
        if not rows:
            continue
        tier = "remote_hbm" if "remote_hbm" in name else "host_ddr" if "host_ddr" in name else "pmem"
        # The swept keys (a size axis also has a <key>_bytes column: shown once, as written).
        swept = [k for k in rows[0] if k.startswith(("die.", "dsm."))
                 and not (k.endswith("_bytes") and k[:-len("_bytes")] in rows[0])]
        bound = json.load(open(bound_stats))["summary"]
        t_compute = bound["sim_time_ns"] / 1e3
        point_dir = os.path.join(root, name, "points", rows[0]["point"] if "point" in rows[0] else os.listdir(os.path.join(root, name, "points"))[0])
        port = port_read_bandwidth(point_dir)
        depth0 = [r for r in rows if r.get("die.hjsd.prefetch_depth") == "0"]
        pool0 = min(float(r[f"tiers.{tier}.read_bytes"]) for r in (depth0 or rows))  # demand only, least refetch
        t_fetch = pool0 / port * 1e6
        t_bound = max(t_compute, t_fetch)
        print(f"\n## {name}\n")
        print(f"bound: compute {t_compute:.1f} us (weights in HBM, Cube {100 * bound['cube_utilization']:.1f} %), "
              f"fetch {t_fetch:.1f} us ({pool0 / 2**20:.1f} MiB over {port / 1e9:.2f} GB/s) -> {t_bound:.1f} us\n")
        print("| " + " | ".join(k.split(".")[-1] for k in swept) +
              " | step us | Cube % | util std | util min | pool MiB | lift vs depth 0 | gap closed |")
        print("|" + "---|" * (len(swept) + 7))
        for r in rows:
            t = float(r["sim_time_ns"]) / 1e3
            base = [b for b in depth0 if all(b[k] == r[k] for k in swept if k != "die.hjsd.prefetch_depth")]
            t0 = float(base[0]["sim_time_ns"]) / 1e3 if base else float("nan")
            u0 = float(base[0]["cube_utilization"]) if base else float("nan")
            closed = (t0 - t) / (t0 - t_bound) if base and t0 > t_bound else float("nan")
            print("| " + " | ".join(r[k] for k in swept) +
                  f" | {t:.1f} | {100 * float(r['cube_utilization']):.1f} | {100 * float(r['cube_utilization_windows.std']):.1f}"
                  f" | {100 * float(r['cube_utilization_windows.min']):.1f} | {float(r[f'tiers.{tier}.read_bytes']) / 2**20:.0f}"
                  f" | {float(r['cube_utilization']) / u0:.2f}x | {100 * closed:.0f} % |")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "bench/results/dsm")
