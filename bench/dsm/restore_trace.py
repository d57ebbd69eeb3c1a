#!/usr/bin/env python3
"""A checkpoint restore as a trace set: every die copies its shard of the weights from a pool tier
(host_ddr or pmem, traces/FORMAT.md "Memory tiers") into its own HBM with memcpy ops of CHUNK each.
usage: restore_trace.py OUT_DIR --dies N --tier TIER [--shard-gib G] [--chunk-mib C]"""
import argparse
import json
import os

import tier_bases

BASE = {"host_ddr": tier_bases.HOST_DDR, "pmem": tier_bases.PMEM}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--dies", type=int, default=8)
    ap.add_argument("--tier", default="pmem", choices=sorted(BASE))
    ap.add_argument("--shard-gib", type=float, default=1.0)
    ap.add_argument("--chunk-mib", type=int, default=64)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    shard = int(a.shard_gib * (1 << 30))
    chunk = a.chunk_mib << 20
    name = f"restore {a.shard_gib} GiB per die from {a.tier}"
    slice_bytes = max(1 << 30, ((1 << 40) // a.dies) & ~((1 << 30) - 1))  # as trace gen places a die's share
    for d in range(a.dies):
        with open(os.path.join(a.out, f"die{d}.jsonl"), "w") as f:
            f.write(json.dumps({"format": "ascend-sim-trace", "version": 1, "name": name, "dies": a.dies, "die": d}) + "\n")
            src, dst = BASE[a.tier] + d * slice_bytes, 36 << 30
            for i, off in enumerate(range(0, shard, chunk)):
                n = min(chunk, shard - off)
                f.write(json.dumps({"id": i, "op": "memcpy", "name": f"restore{i}", "bytes": n,
                                    "inputs": [{"name": f"ckpt{i}", "addr": hex(src + off), "bytes": n, "stream": "general"}],
                                    "outputs": [{"name": f"w{i}", "addr": hex(dst + off), "bytes": n, "stream": "weight"}]}) + "\n")
    index = {"format": "ascend-sim-trace-index", "version": 1, "name": name, "model": "checkpoint", "phase": "prefill",
             "dies": a.dies, "tokens": 0,
             "parallelism": {"tp": 1, "pp": 1, "dp": a.dies, "ep": 1, "microbatches": 1, "sequence_parallel": False,
                             "distributed_optimizer": False},
             "files": [{"die": d, "file": f"die{d}.jsonl", "tp_rank": 0, "dp_rank": d, "pp_rank": 0, "ep_rank": 0}
                       for d in range(a.dies)],
             "groups": {"tp": [[d] for d in range(a.dies)], "dp": [list(range(a.dies))],
                        "pp": [[d] for d in range(a.dies)], "ep": [[d] for d in range(a.dies)]}}
    with open(os.path.join(a.out, "index.json"), "w") as f:
        json.dump(index, f, indent=1)


if __name__ == "__main__":
    main()
