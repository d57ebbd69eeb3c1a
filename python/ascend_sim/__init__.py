"""ascend_sim: drive the ascend-sim simulator from Python and get pandas DataFrames back.

    import ascend_sim as asim
    r = asim.run(trace="traces/samples/tiny_mlp.jsonl", set={"die.l2.size": "32MiB"})
    r.summary["sim_time_ns"], r.ops, r.stats

Each call runs the ascend-sim binary (found by find_binary(): $ASCEND_SIM, next to this package,
or on PATH) in a process of its own and reads the files it writes; see python/README.md.
"""

import io
import json
import shutil
import tempfile
import weakref
from pathlib import Path

import pandas as pd

from ._cli import SimError, call, find_binary, option_args, set_args

__all__ = ["run", "RunResult", "sweep", "figures", "trace_gen", "trace_stats", "SimError", "find_binary", "units"]

# Column types of ops.csv (schemas/ops.schema.json); empty cells read as NaN / None.
_OPS_DTYPES = {
    "id": "int64",
    "name": "string",
    "kind": "string",
    "die": "int64",
    "start_ns": "float64",
    "end_ns": "float64",
    "duration_ns": "float64",
    "flops": "float64",
    "hbm_read_bytes": "int64",
    "hbm_write_bytes": "int64",
    "l2_hit_rate": "float64",
    "achieved_tflops": "float64",
    "bound": "string",
}


def _out_dir(out, prefix):
    """(directory, finalizer or None): `out`, or a fresh temporary directory removed with the result."""
    if out is not None:
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        return Path(out), None
    tmp = Path(tempfile.mkdtemp(prefix=prefix))
    return tmp / "out", tmp


class RunResult:
    """The outputs of one `ascend-sim run`.

    summary        dict: stats.json's `summary` block, numbers exactly as the CLI wrote them
    meta           dict: stats.json's `meta` block
    stats          DataFrame of stats.csv: path, kind, field, value, unit, description
    ops            DataFrame of ops.csv: one row per op (schemas/ops.schema.json)
    out_dir        Path of the output directory
    timeline_path  Path of timeline.json (or timeline.json.gz), or None without timeline=True
    text           the summary table the CLI printed
    """

    def __init__(self, out_dir, text, tmp=None):
        self.out_dir = Path(out_dir)
        self.text = text
        with open(self.out_dir / "stats.json") as f:
            doc = json.load(f)
        self.stats_json = doc
        self.summary = doc["summary"]
        self.meta = doc["meta"]
        self.stats = pd.read_csv(
            self.out_dir / "stats.csv", keep_default_na=False, na_values=[""], float_precision="round_trip"
        )
        self.stats["value"] = pd.to_numeric(self.stats["value"])
        self.ops = read_ops(self.out_dir / "ops.csv")
        self.timeline_path = next(
            (p for p in (self.out_dir / "timeline.json", self.out_dir / "timeline.json.gz") if p.exists()), None
        )
        if tmp is not None:
            # A temporary output directory lives as long as the result (its timeline may be read).
            self._cleanup = weakref.finalize(self, shutil.rmtree, str(tmp), True)

    def __repr__(self):
        s = self.summary
        return f"<RunResult {self.out_dir}: {s.get('ops')} ops, {s.get('sim_time_ns')} ns simulated>"


def read_ops(path):
    """ops.csv as a DataFrame with the column types of schemas/ops.schema.json."""
    df = pd.read_csv(path, keep_default_na=False, na_values=[""], dtype={"name": str}, float_precision="round_trip")
    return df.astype({k: v for k, v in _OPS_DTYPES.items() if k in df.columns})


def run(platform=None, trace=None, set=None, out=None, timeline=False, **options):
    """Runs `ascend-sim run` and returns a RunResult.

    platform  preset name or YAML path (default: the CLI's, ascend960)
    trace     trace file, built-in trace name, or a trace set's directory / index.json
    set       {"key": "value"} or ["key=value", ...]: --set overrides
    out       output directory (default: a temporary one, removed with the result)
    timeline  also write timeline.json (single dies and trace sets)
    options   any other `run` option by its name: max_sim_time="10ms", util_window="50us",
              fidelity="fast", die_set=["3:die.clock=1.2GHz"], functional=True,
              timeline_gzip=True, timeline_cores="0-3", ...
    Raises SimError with the CLI's message and exit code when the CLI refuses the input (2) or
    the simulation fails (1).
    """
    out_dir, tmp = _out_dir(out, "ascend-sim-run-")
    args = ["run", "--out", out_dir]
    if platform is not None:
        args += ["--platform", platform]
    if trace is not None:
        args += ["--trace", trace]
    args += set_args(set)
    if timeline:
        args.append("--timeline")
    args += option_args(options)
    try:
        text = call(args)
    except BaseException:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
        raise
    return RunResult(out_dir, text, tmp)


def _numbers(column):
    """A column of CSV text as numbers read exactly (int64 when all integers, else float64; empty
    cells NaN), or unchanged when some cell is not a number."""
    cells = [v for v in column if v != ""]
    try:
        if cells and all(v.lstrip("+-").isdigit() for v in cells) and len(cells) == len(column):
            return pd.Series([int(v) for v in column], index=column.index, dtype="int64")
        return pd.Series([float(v) if v != "" else float("nan") for v in column], index=column.index, dtype="float64")
    except ValueError:
        return column


def _read_results(path, swept_keys):
    """results.csv with numeric columns. A swept key whose values carry units comes with a numeric
    column in base units written by the CLI (`die.l2.size` then `die.l2.size_bytes`; times `_ns`,
    frequencies `_hz`, bit rates `_bps`, byte rates `_bytes_per_s`): that one replaces the text
    column. The summary's columns carry their units already (`sim_time_ns`, `hbm_bw_gbps`)."""
    raw = pd.read_csv(path, dtype=str, keep_default_na=False)
    columns = list(raw.columns)
    df = pd.DataFrame(index=raw.index)
    for i, col in enumerate(columns):
        following = columns[i + 1] if i + 1 < len(columns) else ""
        if col in swept_keys and following.startswith(col + "_") and following not in swept_keys:
            continue  # the CLI's numeric companion follows
        df[col] = raw[col] if col == "point" else _numbers(raw[col])
    return df


def sweep(grid, platform=None, trace=None, set=None, out=None, jobs=1, restart=False, **options):
    """Runs `ascend-sim sweep` over `grid` ({"key": [values] or "A..B:STEP"}, the first key varying
    slowest) and returns its results.csv as a DataFrame (one row per point, numeric columns, units
    in the names; the point id in `point`). With `out`, the sweep resumes there as the CLI does."""
    if not grid:
        raise ValueError("sweep: grid is empty")
    out_dir, tmp = _out_dir(out, "ascend-sim-sweep-")
    args = ["sweep", "--out", out_dir, "--jobs", jobs]
    if platform is not None:
        args += ["--platform", platform]
    if trace is not None:
        args += ["--trace", trace]
    for key, values in grid.items():
        text = values if isinstance(values, str) else ",".join(str(v) for v in values)
        args += ["--grid", f"{key}={text}"]
    args += set_args(set)
    if restart:
        args.append("--restart")
    args += option_args(options)
    swept = list(grid.keys())
    try:
        call(args)
        df = _read_results(Path(out_dir) / "results.csv", swept)
        df.attrs["swept_keys"] = swept
        df.attrs["out_dir"] = None if tmp is not None else str(out_dir)
        return df
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


def _parse_tables(text):
    """The CLI's figures output (`# <table>` then CSV, per table) -> {table: DataFrame}."""
    tables, name, lines = {}, None, []

    def flush():
        if name is not None and lines:
            tables[name] = pd.read_csv(io.StringIO("\n".join(lines)), float_precision="round_trip")

    for line in text.splitlines():
        if line.startswith("# "):
            flush()
            name, lines = line[2:].strip().split()[0], []
        elif line.strip() and name is not None:
            lines.append(line)
    flush()
    return tables


def figures(kind, table=None, platform=None, set=None, **options):
    """Runs `ascend-sim figures KIND` and returns one of its tables as a DataFrame: `table` by
    name, or the first the CLI prints. Every table of the run is in `df.attrs["tables"]`.

    options: the kind's options by name, e.g. figures("gemm", shapes="1024,1024,1024", dtype="bf16"),
    figures("collectives", platform="supernode8_ring", op="allreduce", sizes="1MiB..4MiB").
    """
    args = ["figures", kind]
    if platform is not None:
        args += ["--platform", platform]
    args += set_args(set)
    args += option_args(options)
    tables = _parse_tables(call(args))
    if not tables:
        raise SimError(1, f"figures {kind}: the CLI printed no table")
    if table is None:
        table = next(iter(tables))
    if table not in tables:
        raise KeyError(f"figures {kind}: no table {table!r}; tables: {', '.join(tables)}")
    df = tables[table]
    df.attrs["table"] = table
    df.attrs["tables"] = tables
    return df


def trace_gen(model, out, seq, **options):
    """Runs `ascend-sim trace gen --model MODEL --seq SEQ --out OUT [options]` and returns the path
    of the trace set's index.json. options by name: phase="decode", batch=8, tp=8, dp=1, layers=2,
    no_collectives=True, dtype="fp8", ... (`ascend-sim trace gen --help`)."""
    args = ["trace", "gen", "--model", model, "--seq", seq, "--out", out] + option_args(options)
    call(args)
    return Path(out) / "index.json"


def trace_stats(path):
    """`ascend-sim trace stats --json PATH` as a dict (FLOPs, bytes, op counts of a trace or set)."""
    return json.loads(call(["trace", "stats", "--json", path]))
