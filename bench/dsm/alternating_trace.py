#!/usr/bin/env python3
"""A synthetic op trace in the regime the documents describe for H-JSD (DESIGN §5b): compute ops
whose weights are local alternate with ops whose weights live in the memory pool and whose compute
is small. Without prefetch each pool op waits for its fetch; with prefetch the fetch of op i+1
overlaps the compute of op i, and the step can approach max(sum compute, sum fetch).

usage: alternating_trace.py OUT.jsonl [--pairs N] [--tier TIER] [--fetch-mib M] [--compute-k K]

Per pair: a BF16 GEMM 4096 x 4096 x K on local weights (K = 4096: 137 GFLOP, about 141 us at the
ascend960's 973 TFLOPS), then a 64 x N x 4096 GEMM whose N x 4096 BF16 weight (M MiB) is in TIER.
Addresses follow traces/FORMAT.md ("Memory tiers").
"""
import argparse
import json

import tier_bases

TIER_BASE = {"hbm": 0, "host_ddr": tier_bases.HOST_DDR, "pmem": tier_bases.PMEM, "remote_hbm": tier_bases.remote_hbm_of(1)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--pairs", type=int, default=8)
    ap.add_argument("--tier", default="remote_hbm", choices=sorted(TIER_BASE))
    ap.add_argument("--fetch-mib", type=float, default=22.0)
    ap.add_argument("--compute-k", type=int, default=4096)
    a = ap.parse_args()
    n = int(a.fetch_mib * (1 << 20) / (4096 * 2)) // 16 * 16
    hdr = {"format": "ascend-sim-trace", "version": 1, "name": f"alternating {a.pairs} pairs, {a.fetch_mib} MiB in {a.tier}",
           "dies": 1, "die": 0}
    act, local_w, pool_w = 1 << 32, 36 << 30, TIER_BASE[a.tier]
    x_bytes = 4096 * a.compute_k * 2
    with open(a.out, "w") as f:
        f.write(json.dumps(hdr) + "\n")
        op = 0
        for p in range(a.pairs):
            w = {"name": f"w_local{p}", "addr": hex(local_w), "bytes": a.compute_k * 4096 * 2, "stream": "weight"}
            local_w += (w["bytes"] + 4095) // 4096 * 4096
            y = {"name": f"y{p}", "addr": hex(act + (p % 2) * (64 << 20)), "bytes": 4096 * 4096 * 2, "stream": "activation"}
            x = {"name": "x", "addr": hex(act + (128 << 20)), "bytes": x_bytes, "stream": "activation"}
            f.write(json.dumps({"id": op, "op": "matmul", "name": f"compute{p}", "m": 4096, "n": 4096, "k": a.compute_k,
                                "inputs": [x, w], "outputs": [y], **({"deps": [op - 1]} if op else {})}) + "\n")
            op += 1
            wp = {"name": f"w_pool{p}", "addr": hex(pool_w), "bytes": n * 4096 * 2, "stream": "weight"}
            pool_w += (wp["bytes"] + 4095) // 4096 * 4096
            xs = {"name": "xs", "addr": hex(act + (192 << 20)), "bytes": 64 * 4096 * 2, "stream": "activation"}
            z = {"name": f"z{p}", "addr": hex(act + (256 << 20)), "bytes": 64 * n * 2, "stream": "activation"}
            f.write(json.dumps({"id": op, "op": "matmul", "name": f"pool{p}", "m": 64, "n": n, "k": 4096,
                                "inputs": [xs, wp], "outputs": [z], "deps": [op - 1]}) + "\n")
            op += 1


if __name__ == "__main__":
    main()
