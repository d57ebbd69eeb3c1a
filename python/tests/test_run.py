"""ascend_sim.run: the summary is stats.json's, stats and ops are DataFrames, outputs follow the
schemas, and the CLI's message comes back as a SimError."""

import json
import os
import subprocess

import jsonschema
import pandas as pd
import pytest

import ascend_sim
from conftest import schema, typed_rows

TINY = "traces/samples/tiny_mlp.jsonl"


@pytest.fixture(scope="module")
def tiny(repo, tmp_path_factory):
    out = tmp_path_factory.mktemp("run") / "tiny"
    return ascend_sim.run(trace=str(repo / TINY), out=str(out), timeline=True)


def test_summary_is_the_clis(tiny):
    with open(tiny.out_dir / "stats.json") as f:
        doc = json.load(f)
    assert tiny.summary == doc["summary"]
    # The numbers the CLI printed are the summary's.
    assert f"{tiny.summary['ops']}" in tiny.text
    assert tiny.summary["ops"] == 5
    assert tiny.summary["sim_time_ns"] > 0


def test_stats_json_follows_its_schema(tiny):
    jsonschema.validate(tiny.stats_json, schema("stats"))


def test_stats_frame_has_units_and_matches_the_summary(tiny):
    s = tiny.stats
    assert list(s.columns) == ["path", "kind", "field", "value", "unit", "description"]
    assert pd.api.types.is_numeric_dtype(s["value"])
    reads = s[(s.path == "die.hbm.read_bytes") & (s.field == "value")]
    assert len(reads) == 1
    assert reads["unit"].iloc[0] == "B"
    assert reads["value"].iloc[0] == tiny.summary["hbm_read_bytes"]


def test_ops_csv_follows_its_schema(tiny):
    spec = schema("ops")
    header, rows = typed_rows(tiny.out_dir / "ops.csv")
    assert header == spec["x-columns"]
    assert len(rows) == tiny.summary["ops"]
    for row in rows:
        jsonschema.validate(row, spec)


def test_ops_frame_adds_up_to_the_die(tiny):
    ops = tiny.ops
    assert list(ops["id"]) == [0, 1, 2, 3, 4]
    assert list(ops["kind"]) == ["norm", "matmul", "activation", "matmul", "elementwise"]
    assert (ops["start_ns"] <= ops["end_ns"]).all()
    assert ((ops["end_ns"] - ops["start_ns"] - ops["duration_ns"]).abs() < 1e-6).all()
    # Every HBM byte of a single die without a memory pool is attributed to an op.
    assert ops["hbm_read_bytes"].sum() == tiny.summary["hbm_read_bytes"]
    assert ops["hbm_write_bytes"].sum() == tiny.summary["hbm_write_bytes"]
    assert ops["flops"].sum() == pytest.approx(tiny.summary["flops"], rel=1e-12)
    assert ops["end_ns"].max() == pytest.approx(tiny.summary["sim_time_ns"], abs=1e-3)
    # The up projection reads its 8 MiB weight from HBM once: at least that many bytes.
    up = ops[ops["name"] == "mlp.up_proj"].iloc[0]
    assert up["hbm_read_bytes"] >= 8 * 1024 * 1024
    assert set(ops["bound"]) <= {"compute", "memory", "latency"}


def test_timeline_path(tiny):
    assert tiny.timeline_path is not None and tiny.timeline_path.name == "timeline.json"
    with open(tiny.timeline_path) as f:
        assert "traceEvents" in json.load(f)


def test_temporary_output_is_removed_with_the_result(repo):
    r = ascend_sim.run(trace=str(repo / TINY))
    out = r.out_dir
    assert (out / "ops.csv").exists()
    del r
    import gc

    gc.collect()
    assert not out.exists()


def cli_error(args):
    p = subprocess.run([os.environ["ASCEND_SIM"]] + args, capture_output=True, text=True)
    return p.returncode, p.stderr.strip()


def test_bad_key_raises_with_the_clis_message(repo, tmp_path):
    with pytest.raises(ascend_sim.SimError) as e:
        ascend_sim.run(trace=str(repo / TINY), set={"die.l2.sise": "32MiB"}, out=str(tmp_path / "o"))
    code, stderr = cli_error(["run", "--trace", str(repo / TINY), "--set", "die.l2.sise=32MiB", "--out",
                              str(tmp_path / "o2")])
    assert e.value.exit_code == code == 2
    assert stderr == "ascend-sim: error: " + e.value.message
    assert "did you mean 'size'" in e.value.message
    assert not (tmp_path / "o").exists()


def test_missing_trace_and_unknown_option(tmp_path):
    with pytest.raises(ascend_sim.SimError) as e:
        ascend_sim.run(trace=str(tmp_path / "nope.jsonl"))
    assert e.value.exit_code == 2 and "nope.jsonl" in e.value.message
    with pytest.raises(ascend_sim.SimError) as e:
        ascend_sim.run(trace=str(tmp_path / "nope.jsonl"), no_such_option=3)
    assert e.value.exit_code == 2 and "--no-such-option" in e.value.message


def test_watchdog_is_exit_one(repo):
    with pytest.raises(ascend_sim.SimError) as e:
        ascend_sim.run(trace=str(repo / TINY), max_sim_time="1ns")
    assert e.value.exit_code == 1 and "watchdog" in e.value.message


def test_binary_lookup(monkeypatch, tmp_path):
    assert ascend_sim.find_binary() == os.environ["ASCEND_SIM"]
    monkeypatch.setenv("ASCEND_SIM", str(tmp_path / "missing"))
    with pytest.raises(FileNotFoundError, match="ASCEND_SIM"):
        ascend_sim.find_binary()


def test_set_that_is_not_key_value_gets_the_clis_message(repo):
    for bad in ("noequals", 5):
        with pytest.raises(ascend_sim.SimError) as e:
            ascend_sim.run(trace=str(repo / TINY), set=bad)
        assert e.value.exit_code == 2
        assert e.value.message == f"--set {bad}: expected key=value, e.g. die.l2.size=64MiB"


def test_trace_set_options_on_a_single_die_are_refused(repo):
    with pytest.raises(ascend_sim.SimError) as e:
        ascend_sim.run(trace=str(repo / TINY), fidelity="fast")
    assert e.value.exit_code == 2 and "--fidelity" in e.value.message


def test_binary_next_to_the_package_then_on_path(monkeypatch, tmp_path, repo):
    import importlib.util
    import shutil

    binary = os.environ["ASCEND_SIM"]
    monkeypatch.delenv("ASCEND_SIM")
    # A copy of the package with the binary beside its modules.
    pkg = tmp_path / "site" / "ascend_sim"
    shutil.copytree(repo / "python" / "ascend_sim", pkg)
    (pkg / "ascend-sim").symlink_to(binary)
    spec = importlib.util.spec_from_file_location("ascend_sim_copy", pkg / "_cli.py")
    cli = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cli)
    assert cli.find_binary() == str(pkg / "ascend-sim")
    # The source tree's package has none beside it: PATH.
    bindir = tmp_path / "bin"
    bindir.mkdir()
    (bindir / "ascend-sim").symlink_to(binary)
    monkeypatch.setenv("PATH", str(bindir))
    assert ascend_sim.find_binary() == str(bindir / "ascend-sim")
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(FileNotFoundError, match="ASCEND_SIM"):
        ascend_sim.find_binary()


def test_op_names_with_commas_and_quotes_survive(tmp_path):
    trace = tmp_path / "t.jsonl"
    trace.write_text(
        '{"format":"ascend-sim-trace","version":1,"name":"q","dies":1,"die":0}\n'
        '{"id":0,"op":"softmax","name":"a,\\"b\\"","rows":64,"cols":64}\n'
        '{"id":5,"op":"softmax","rows":64,"cols":64,"deps":[0]}\n'
    )
    r = ascend_sim.run(trace=str(trace))
    assert list(r.ops["name"].fillna("")) == ['a,"b"', ""]
    assert list(r.ops["id"]) == [0, 5]
    header, rows = typed_rows(r.out_dir / "ops.csv")
    for row in rows:
        jsonschema.validate(row, schema("ops"))
