#!/usr/bin/env python3
"""Draw a PNG for an `ascend-sim figures` table.

usage: plot_figures.py TABLE.csv OUT.png
The table is recognised by its file stem: hbm_load_latency (latency against offered bandwidth,
one line per pattern), hbm_peak (sustained against pin peak bandwidth per pattern), l2_load_latency (latency against
achieved bandwidth for the L2-resident and the miss stream), l2_latency (unloaded hit and miss
latency), gemm and systolic_gemm (utilisation per GEMM shape), links (latency and bandwidth
against size per path and op), collectives_* (time and bus bandwidth against size), dsm (aggregate
pool read bandwidth against readers per tier and size); any other table
is drawn as its first numeric column against the others."""
import csv, os, sys

try:
    import matplotlib
except ImportError:
    sys.exit(f"plot_figures.py: needs matplotlib, which {sys.executable} lacks: install "
             "python3-matplotlib (scripts/install-deps.sh) and run the script with /usr/bin/python3")
matplotlib.use("Agg")
import matplotlib.pyplot as plt


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    src, out = sys.argv[1], sys.argv[2]
    rows = list(csv.DictReader(open(src)))
    stem = os.path.splitext(os.path.basename(src))[0]
    fig, ax = plt.subplots(figsize=(7, 4.5))
    if stem in ("hbm_load_latency", "l2_load_latency"):
        for pattern in sorted({r["pattern"] for r in rows}):
            pts = [r for r in rows if r["pattern"] == pattern]
            x = [float(r["achieved_gbps"]) for r in pts]
            ax.plot(x, [float(r["latency_mean_ns"]) for r in pts], marker="o", label=f"{pattern} mean")
            ax.plot(x, [float(r["latency_p99_ns"]) for r in pts], linestyle="--", label=f"{pattern} p99")
        ax.set_xlabel("achieved bandwidth (GB/s)")
        ax.set_ylabel("read latency (ns)")
        ax.set_yscale("log")
        ax.set_title("HBM load-latency" if stem.startswith("hbm") else "L2 load-latency")
        ax.legend()
    elif stem == "l2_latency":
        names = [r["kind"] for r in rows]
        ax.bar(names, [float(r["latency_ns"]) for r in rows])
        for i, r in enumerate(rows):
            ax.annotate(f'{float(r["latency_cycles"]):.0f} cycles', (i, float(r["latency_ns"])),
                        ha="center", va="bottom")
        ax.set_ylabel("unloaded read latency (ns)")
        ax.set_title("L2 hit and miss latency")
    elif stem == "links":
        ax2 = ax.twinx()
        for key in sorted({(r["path"], r["op"]) for r in rows}):
            pts = [r for r in rows if (r["path"], r["op"]) == key]
            x = [float(r["size_bytes"]) for r in pts]
            ax.plot(x, [float(r["latency_us"]) for r in pts], marker="o", label=f"{key[0]} {key[1]} latency")
            ax2.plot(x, [float(r["bandwidth_GBps"]) for r in pts], linestyle="--", label=f"{key[0]} {key[1]} bandwidth")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("message size (B)")
        ax.set_ylabel("latency (us, solid)")
        ax2.set_ylabel("bandwidth (GB/s, dashed)")
        ax.set_title("die-to-die remote reads and writes")
        ax.legend(loc="upper left", fontsize=7)
    elif stem.startswith("collectives_"):
        x = [float(r["size_bytes"]) for r in rows]
        ax.plot(x, [float(r["busbw_GBps"]) for r in rows], marker="o", label="busbw")
        ax.plot(x, [float(r["algbw_GBps"]) for r in rows], marker="s", label="algbw")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("per-rank buffer (B)")
        ax.set_ylabel("GB/s")
        ax.set_title(stem.replace("collectives_", "") + " (nccl-tests conventions)")
        ax.legend()
    elif stem == "dsm":
        def size_label(b):
            for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
                if b >= scale and b % scale == 0:
                    return f"{b // scale} {unit}"
            return f"{b} B"
        tiers = list(dict.fromkeys(r["tier"] for r in rows))
        sizes = sorted({int(r["size_bytes"]) for r in rows})
        for key in [(t, s) for t in tiers for s in sizes]:
            pts = sorted((r for r in rows if (r["tier"], int(r["size_bytes"])) == key), key=lambda r: int(r["readers"]))
            if not pts:
                continue
            lat = float(pts[0]["latency_us"])
            ax.plot([int(r["readers"]) for r in pts], [float(r["aggregate_GBps"]) for r in pts],
                    color=f"C{tiers.index(key[0])}", linestyle=["-", "--", ":", "-."][sizes.index(key[1]) % 4],
                    marker="o", label=f"{key[0]} {size_label(key[1])} per reader (512 B: {lat:.2f} us)")
        readers = sorted({int(r["readers"]) for r in rows})
        ax.set_xscale("log", base=2)
        ax.set_xticks(readers)
        ax.set_xticklabels([str(n) for n in readers])
        ax.set_xlabel("readers (dies reading at once)")
        ax.set_ylabel("aggregate read bandwidth (GB/s)")
        ax.set_title("memory pool stream reads (dsmbandwidth -t read)")
        ax.legend(fontsize=7)
    elif stem == "hbm_peak":
        names = [r["pattern"] for r in rows]
        ax.bar(names, [float(r["sustained_gbps"]) for r in rows], label="sustained")
        ax.axhline(float(rows[0]["pin_peak_gbps"]), color="k", linestyle="--", label="pin peak")
        ax.set_ylabel("bandwidth (GB/s)")
        ax.set_title("HBM peak sustained bandwidth")
        ax.legend()
    elif stem in ("gemm", "systolic_gemm"):
        names = [f'{r["m"]}x{r["n"]}x{r["k"]}' for r in rows]
        ax.bar(names, [100 * float(r["utilization"]) for r in rows])
        for i, r in enumerate(rows):
            ax.annotate(f'{float(r["tflops"]):.1f} TF', (i, 100 * float(r["utilization"])), ha="center", va="bottom")
        ax.set_ylabel("utilisation (% of peak)")
        ax.set_xlabel(f'GEMM M x N x K ({rows[0]["dtype"]})')
        ax.set_title("GEMM on the die" if stem == "gemm" else "GEMM on one systolic array (ideal memory)")
        plt.setp(ax.get_xticklabels(), rotation=30, ha="right")
    else:
        cols = list(rows[0].keys())
        x = [float(r[cols[0]]) for r in rows]
        for c in cols[1:]:
            try:
                ax.plot(x, [float(r[c]) for r in rows], marker="o", label=c)
            except ValueError:
                pass
        ax.set_xlabel(cols[0])
        ax.legend()
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    return 0


if __name__ == "__main__":
    sys.exit(main())
