#!/usr/bin/python3
"""Plots one metric of an `ascend-sim sweep` directory.

    scripts/plot_sweep.py DIR [--metric COLUMN] [--where KEY=VALUE]... [--out PNG]

Reads DIR/sweep.json (which keys were swept, in which order) and DIR/results.csv, and draws
the metric (default sim_time_ns; any numeric column of results.csv) as a line chart over one
swept key or a heatmap over two (first swept key on the vertical axis, second on the
horizontal). Keys swept over a single value are ignored; with more than two swept keys, pin the
others with --where KEY=VALUE. Writes DIR/<metric>.png unless --out says otherwise.
Points missing from results.csv (not run yet, or failed) are left blank.

The shebang names Debian's interpreter because matplotlib comes from the python3-matplotlib
package (scripts/install-deps.sh), which another python3 first on PATH would not see.
"""

import argparse
import csv
import json
import math
import os
import re
import sys

QUANTITY = re.compile(r"^\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)\s*([A-Za-z/]*)\s*$")


def fail(message):
    print(f"plot_sweep.py: error: {message}", file=sys.stderr)
    sys.exit(2)


def numeric_axis(values):
    """(numbers, unit) when every value is a number with one shared unit (or none), else None."""
    numbers, units = [], set()
    for v in values:
        m = QUANTITY.match(v)
        if not m:
            return None
        numbers.append(float(m.group(1)))
        units.add(m.group(2))
    return (numbers, units.pop()) if len(units) == 1 else None


def to_float(text):
    try:
        return float(text)
    except ValueError:
        return math.nan


def fmt(x):
    """Cell text: whole numbers up to seven digits rather than 1.481e+04, four digits otherwise."""
    if math.isnan(x):
        return ""
    return f"{x:.0f}" if 1000 <= abs(x) < 1e7 else f"{x:.4g}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dir", help="sweep directory (holds sweep.json and results.csv)")
    ap.add_argument("--metric", default="sim_time_ns", help="results.csv column (default sim_time_ns)")
    ap.add_argument("--where", action="append", default=[], metavar="KEY=VALUE",
                    help="pin a swept key to one value (repeatable)")
    ap.add_argument("--out", help="PNG to write (default DIR/<metric>.png)")
    args = ap.parse_args()

    try:
        with open(os.path.join(args.dir, "sweep.json")) as f:
            sweep = json.load(f)
        with open(os.path.join(args.dir, "results.csv"), newline="") as f:
            rows = list(csv.DictReader(f))
    except (OSError, ValueError) as e:
        fail(f"{args.dir} is not a readable sweep directory: {e}")
    definition = sweep["definition"]
    axes = [(g["key"], g["values"]) for g in definition["grid"]]

    pinned = {}
    for w in args.where:
        key, sep, value = w.partition("=")
        if not sep or key not in dict(axes):
            fail(f"--where {w}: expected KEY=VALUE with KEY one of {', '.join(k for k, _ in axes)}")
        if value not in dict(axes)[key]:
            fail(f"--where {w}: {key} was swept over {', '.join(dict(axes)[key])}")
        pinned[key] = value
    rows = [r for r in rows if all(r.get(k) == v for k, v in pinned.items())]
    free = [(k, vs) for k, vs in axes if k not in pinned and len(vs) > 1]
    if not free:
        fail("nothing varies: every swept key is pinned or has one value")
    if len(free) > 2:
        fail(f"{len(free)} swept keys vary ({', '.join(k for k, _ in free)}); pin all but one or two "
             "with --where KEY=VALUE")

    columns = rows[0].keys() if rows else []
    if args.metric not in columns:
        numeric = [c for c in columns if c not in dict(axes) and c != "point"
                   and not math.isnan(to_float(rows[0][c]))]
        fail(f"no column '{args.metric}' in results.csv" +
             (f"; numeric columns: {', '.join(numeric)}" if numeric else " (no finished points yet)"))

    try:
        import matplotlib
    except ImportError:
        fail(f"needs matplotlib, which {sys.executable} lacks: install python3-matplotlib "
             "(scripts/install-deps.sh) and run the script with /usr/bin/python3")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    value_of = {}
    for r in rows:
        value_of[tuple(r[k] for k, _ in free)] = to_float(r[args.metric])
    title = f"{args.metric}\n{os.path.basename(definition['trace'])} on {definition['platform']}"
    if definition.get("set"):
        title += ", " + ", ".join(definition["set"])
    if pinned:
        title += ", " + ", ".join(f"{k}={v}" for k, v in pinned.items())

    if len(free) == 1:
        key, values = free[0]
        ys = [value_of.get((v,), math.nan) for v in values]
        fig, ax = plt.subplots(figsize=(7, 4.5))
        axis = numeric_axis(values)
        if axis:
            xs, unit = axis
            ax.plot(xs, ys, marker="o")
            ax.set_xlabel(f"{key} [{unit}]" if unit else key)
            if len(xs) <= 16:
                ax.set_xticks(xs)
                ax.set_xticklabels([f"{x:g}" for x in xs])
        else:
            ax.plot(range(len(values)), ys, marker="o")
            ax.set_xticks(range(len(values)))
            ax.set_xticklabels(values)
            ax.set_xlabel(key)
        ax.set_ylabel(args.metric)
        ax.grid(True, alpha=0.3)
    else:
        (ykey, yvalues), (xkey, xvalues) = free
        grid = [[value_of.get((yv, xv), math.nan) for xv in xvalues] for yv in yvalues]
        fig, ax = plt.subplots(figsize=(max(6, 0.9 * len(xvalues) + 2.5), max(4, 0.5 * len(yvalues) + 2)))
        image = ax.imshow(grid, origin="lower", aspect="auto", cmap="viridis")
        fig.colorbar(image, ax=ax, label=args.metric)
        ax.set_xticks(range(len(xvalues)))
        ax.set_xticklabels(xvalues, rotation=45 if max(map(len, xvalues)) > 5 else 0)
        ax.set_yticks(range(len(yvalues)))
        ax.set_yticklabels(yvalues)
        ax.set_xlabel(xkey)
        ax.set_ylabel(ykey)
        finite = [x for row in grid for x in row if not math.isnan(x)]
        if finite and len(xvalues) * len(yvalues) <= 400:
            middle = (min(finite) + max(finite)) / 2
            for i, row in enumerate(grid):
                for j, x in enumerate(row):
                    # Dark text on the bright end of viridis, light text on the dark end.
                    ax.text(j, i, fmt(x), ha="center", va="center", fontsize=7,
                            color="black" if x > middle else "white")
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    out = args.out or os.path.join(args.dir, re.sub(r"[^A-Za-z0-9._-]", "_", args.metric) + ".png")
    fig.savefig(out, dpi=120)
    print(out)


if __name__ == "__main__":
    main()
