"""ascend_sim.figures: the CLI's tables as DataFrames, rows valid against schemas/figures.schema.json."""


import jsonschema
import pandas as pd
import pytest

import ascend_sim
from conftest import cell, schema


def definition(table):
    spec = schema("figures")
    name = "collectives" if table.startswith("collectives_") else table
    d = dict(spec["definitions"][name])
    d["$schema"] = spec["$schema"]
    return d


def validate(df, table):
    d = definition(table)
    assert list(df.columns) == d["x-columns"]
    text = df.to_csv(index=False)
    lines = text.splitlines()
    for line in lines[1:]:
        row = dict(zip(d["x-columns"], (cell(c) for c in line.split(","))))
        jsonschema.validate(row, d)


def test_systolic_table():
    df = ascend_sim.figures("systolic", shapes="64,64,64;128,128,128", rows=16, cols=16)
    assert df.attrs["table"] == "systolic_gemm"
    validate(df, "systolic_gemm")
    assert list(df["m"]) == [64, 128]
    assert pd.api.types.is_numeric_dtype(df["utilization"])
    # Four times the MACs on the same array take longer.
    assert df["cycles"].iloc[1] > df["cycles"].iloc[0]


def test_gemm_table_runs_the_die():
    df = ascend_sim.figures("gemm", shapes="256,256,256", dtype="bf16")
    validate(df, "gemm")
    assert df["tflops"].iloc[0] > 0 and 0 < df["utilization"].iloc[0] <= 1


def test_collectives_table():
    df = ascend_sim.figures("collectives", platform="supernode8_ring", op="allreduce", sizes="1MiB..4MiB")
    assert df.attrs["table"] == "collectives_allreduce"
    validate(df, "collectives_allreduce")
    assert list(df["size_bytes"]) == sorted(df["size_bytes"])
    assert (df["busbw_GBps"] > 0).all()


def test_l2_tables():
    df = ascend_sim.figures("l2", requests=256)
    tables = df.attrs["tables"]
    assert set(tables) == {"l2_latency", "l2_load_latency"}
    for name, t in tables.items():
        validate(t, name)
    lat = ascend_sim.figures("l2", table="l2_latency", requests=256)
    assert set(lat["kind"]) == {"hit", "miss"}
    assert lat.set_index("kind").loc["miss", "latency_ns"] > lat.set_index("kind").loc["hit", "latency_ns"]


def test_bad_shape_and_table():
    with pytest.raises(ascend_sim.SimError) as e:
        ascend_sim.figures("gemm", shapes="0,5,5")
    assert e.value.exit_code == 2 and "0,5,5" in e.value.message
    with pytest.raises(KeyError, match="l2_latency"):
        ascend_sim.figures("systolic", table="l2_latency", shapes="64,64,64")


def test_links_dsm_and_hbm_tables():
    links = ascend_sim.figures("links", platform="supernode8_ring", sizes="4KiB,1MiB")
    validate(links, "links")
    assert set(links["size_bytes"]) == {4096, 1048576}
    dsm = ascend_sim.figures("dsm", platform="ascend960", sizes="1MiB", readers="1")
    validate(dsm, "dsm")
    assert set(dsm["tier"]) == {"remote_hbm", "host_ddr", "pmem"}
    hbm = ascend_sim.figures("hbm", requests=2000)
    for name, t in hbm.attrs["tables"].items():
        validate(t, name)
    peak = hbm.attrs["tables"]["hbm_peak"]
    assert (peak["sustained_gbps"] <= peak["pin_peak_gbps"]).all()
