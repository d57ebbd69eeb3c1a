"""ascend_sim.trace_gen and trace_stats, and a generated trace set run through ascend_sim.run."""

import jsonschema
import pytest

import ascend_sim
from conftest import schema, typed_rows


@pytest.fixture(scope="module")
def tp2(tmp_path_factory):
    out = tmp_path_factory.mktemp("gen") / "tp2"
    return ascend_sim.trace_gen("llama3-8b", out=str(out), seq=64, tp=2, layers=1, no_embedding=True)


def test_trace_gen_writes_a_set(tp2):
    assert tp2.name == "index.json" and tp2.exists()
    assert (tp2.parent / "die0.jsonl").exists() and (tp2.parent / "die1.jsonl").exists()
    st = ascend_sim.trace_stats(str(tp2.parent))
    assert st["flops_total"] > 0


def test_a_trace_set_run_has_every_dies_ops(tp2):
    r = ascend_sim.run(platform="supernode8_ring", trace=str(tp2.parent))
    jsonschema.validate(r.stats_json, schema("stats"))
    spec = schema("ops")
    header, rows = typed_rows(r.out_dir / "ops.csv")
    assert header == spec["x-columns"]
    for row in rows:
        jsonschema.validate(row, spec)
    ops = r.ops
    assert sorted(ops["die"].unique()) == [0, 1]
    for d in r.summary["per_die"]:
        mine = ops[ops["die"] == d["die"]]
        assert len(mine) == d["ops"]
        assert mine["hbm_read_bytes"].sum() == d["hbm_read_bytes"]
        assert mine["hbm_write_bytes"].sum() == d["hbm_write_bytes"]
        assert mine["end_ns"].max() == pytest.approx(d["sim_time_ns"], abs=1e-3)
    coll = ops[ops["kind"] == "collective"]
    assert len(coll) > 0 and (coll["bound"] == "communication").all()


def test_bad_model_carries_the_clis_message(tmp_path):
    with pytest.raises(ascend_sim.SimError) as e:
        ascend_sim.trace_gen("llama-9000", out=str(tmp_path / "x"), seq=64)
    assert e.value.exit_code == 2 and "llama-9000" in e.value.message


def test_a_fast_fidelity_run_has_every_column_filled(tp2):
    r = ascend_sim.run(platform="supernode8_ring", trace=str(tp2.parent), fidelity="fast")
    spec = schema("ops")
    header, rows = typed_rows(r.out_dir / "ops.csv")
    assert header == spec["x-columns"] and len(rows) == sum(d["ops"] for d in r.summary["per_die"])
    for row in rows:
        jsonschema.validate(row, spec)
    compute = r.ops[r.ops["kind"] != "collective"]
    assert (compute["hbm_read_bytes"] > 0).all()
    assert set(compute["bound"]) <= {"compute", "memory", "latency"}
