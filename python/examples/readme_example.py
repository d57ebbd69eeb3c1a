"""The example of python/README.md, run as a script; prints what each step returns.

    ASCEND_SIM=build/release/testbenches/ascend-sim PYTHONPATH=python /usr/bin/python3 python/examples/readme_example.py
"""

import pandas as pd

import ascend_sim as asim

pd.set_option("display.width", 160)
pd.set_option("display.max_columns", 20)

r = asim.run(trace="traces/samples/tiny_mlp.jsonl")
print(r.summary["sim_time_ns"], r.summary["hbm_read_bytes"])
print(r.ops[["name", "kind", "duration_ns", "hbm_read_bytes", "l2_hit_rate", "achieved_tflops", "bound"]])
print(r.ops.hbm_read_bytes.sum() == r.summary["hbm_read_bytes"])

df = asim.sweep({"die.l2.partitions.weight": ["4MiB", "12MiB", "20MiB"]}, trace="traces/samples/tiny_mlp.jsonl", jobs=2)
print(df[["die.l2.partitions.weight_bytes", "sim_time_ns", "l2_weight_hit_rate"]])

g = asim.figures("gemm", shapes="1024,1024,1024;4096,4096,4096")
print(g[["m", "n", "k", "time_ns", "tflops", "utilization"]])

index = asim.trace_gen("llama3-8b", out="/tmp/l8b", seq=256, tp=2, layers=1, no_embedding=True)
step = asim.run(platform="supernode8_ring", trace=str(index.parent))
print(step.summary["sim_time_ns"])
print(step.ops.groupby(["die", "bound"]).duration_ns.sum())

try:
    asim.run(set={"die.l2.sise": "32MiB"})
except asim.SimError as e:
    print(e.exit_code, e.message)
