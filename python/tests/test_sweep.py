"""ascend_sim.sweep: results.csv as a DataFrame with numeric columns, units in the names."""

import jsonschema
import pandas as pd
import pytest

import ascend_sim
from conftest import schema, typed_rows

TINY = "traces/samples/tiny_mlp.jsonl"


@pytest.fixture(scope="module")
def swept(repo, tmp_path_factory):
    out = tmp_path_factory.mktemp("sweep") / "s"
    df = ascend_sim.sweep(
        {"die.l2.partitions.weight": ["12MiB", "20MiB"], "die.hbm.network_latency": "20ns..40ns:20ns"},
        trace=str(repo / TINY),
        out=str(out),
        jobs=2,
    )
    return df, out


def test_numeric_columns_with_units_in_their_names(swept):
    df, _ = swept
    assert len(df) == 4
    assert list(df["die.l2.partitions.weight_bytes"]) == [12 << 20, 12 << 20, 20 << 20, 20 << 20]
    assert list(df["die.hbm.network_latency_ns"]) == [20.0, 40.0, 20.0, 40.0]
    for col in ["sim_time_ns", "ops", "flops", "hbm_read_bytes", "l2_hit_rate", "prefetch.issued"]:
        assert pd.api.types.is_numeric_dtype(df[col]), col
    assert (df["ops"] == 5).all()
    # A farther HBM makes the same work slower.
    slow = df[df["die.hbm.network_latency_ns"] == 40.0]["sim_time_ns"].to_numpy()
    fast = df[df["die.hbm.network_latency_ns"] == 20.0]["sim_time_ns"].to_numpy()
    assert (slow > fast).all()
    assert df["point"].str.match(r"^\d{3}-").all()


def test_results_csv_follows_its_schema(swept):
    _, out = swept
    spec = schema("results")
    header, rows = typed_rows(out / "results.csv")
    # Each swept quantity, then its numeric column in base units.
    assert header[:4] == ["die.l2.partitions.weight", "die.l2.partitions.weight_bytes",
                          "die.hbm.network_latency", "die.hbm.network_latency_ns"]
    assert header[4:4 + len(spec["x-leading-columns"])] == spec["x-leading-columns"]
    assert header[-1] == "point"
    for row in rows:
        jsonschema.validate(row, spec)


def test_each_point_is_a_plain_run(swept, repo):
    df, _ = swept
    one = ascend_sim.run(trace=str(repo / TINY), set={"die.l2.partitions.weight": "20MiB", "die.hbm.network_latency": "40ns"})
    row = df[(df["die.l2.partitions.weight_bytes"] == 20 << 20) & (df["die.hbm.network_latency_ns"] == 40.0)].iloc[0]
    assert row["sim_time_ns"] == one.summary["sim_time_ns"]
    assert row["hbm_read_bytes"] == one.summary["hbm_read_bytes"]


def test_bad_grid_key_carries_the_clis_message(repo):
    with pytest.raises(ascend_sim.SimError) as e:
        ascend_sim.sweep({"die.l2.sise": ["16MiB"]}, trace=str(repo / TINY))
    assert e.value.exit_code == 2
    assert "sise" in e.value.message and "did you mean 'size'" in e.value.message


def test_swept_quantities_are_numbers_and_names_stay_text(repo, tmp_path):
    # Frequencies get the CLI's numeric companion (`_hz`); names of implementations stay text.
    df = ascend_sim.sweep({"die.clock": ["1.2GHz", "1.65GHz"], "die.l2.replacement": ["lru", "fifo"]},
                          trace=str(repo / TINY), out=str(tmp_path / "s"))
    assert list(df["die.clock_hz"]) == [1.2e9, 1.2e9, 1.65e9, 1.65e9]
    assert "die.clock" not in df.columns
    assert list(df["die.l2.replacement"]) == ["lru", "fifo", "lru", "fifo"]
