#!/usr/bin/env python3
"""MoE dispatch and combine on cloudmatrix384 against DeepEP on an Ascend A3 SuperPoD.

usage: bench/check_moe_alltoall.py [BINARY] [PLATFORM] [--set KEY=VALUE ...]

Runs `figures collectives --op alltoall` (the platform's default algorithm, pairwise; AIV-direct
on cloudmatrix384) over EP 8, 16, 32, 64 and 128 dies, each rank sending 4096 tokens: dispatch
at 7.5 KiB per token (INT8; C1 §4.2.1) = 30 MiB, combine at 14 KiB per token (BF16; C1 §4.2.1) =
56 MiB, and prints the algorithm bandwidth (size / time) beside DeepEP's normal-mode figures
(DeepEP-Ascend README, "S1" in hardware-facts §8: 4096 tokens, INT8 dispatch / BF16 combine).
This is a check, not a fit: no parameter was tuned to these numbers (the platform's HCCL-like
costs are cited estimates, models/interconnect/README.md). Prints the error per point and the
mean absolute error; exits 0 (it reports, it does not gate)."""
import os, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
EP = (8, 16, 32, 64, 128)
DEEPEP_GBPS = {"dispatch": (146, 107, 102, 81, 57), "combine": (125, 103, 95, 91, 81)}
SIZE = {"dispatch": 4096 * 7680, "combine": 4096 * 14336}


def algbw(binary, platform, dies, size, extra):
    cmd = [binary, "figures", "collectives", "--platform", platform, "--op", "alltoall", "--dies", str(dies),
           "--sizes", f"{size}B"] + extra
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    rows = [l for l in out.splitlines() if l and l[0].isdigit()]
    return float(rows[0].split(",")[2])


def main():
    positional = [a for a in sys.argv[1:3] if not a.startswith("--")]
    extra = sys.argv[1 + len(positional):]
    binary = positional[0] if positional else os.path.join(ROOT, "build", "release", "testbenches", "ascend-sim")
    platform = positional[1] if len(positional) > 1 else "cloudmatrix384"
    errors = []
    print(f"{'phase':9} {'EP':>4} {'bytes/rank':>11} {'model GB/s':>11} {'DeepEP GB/s':>12} {'error':>8}")
    for phase, ref in DEEPEP_GBPS.items():
        for ep, want in zip(EP, ref):
            got = algbw(binary, platform, ep, SIZE[phase], extra)
            err = got / want - 1
            errors.append(abs(err))
            print(f"{phase:9} {ep:4} {SIZE[phase]:11} {got:11.1f} {want:12.1f} {100 * err:7.1f}%")
    print(f"mean absolute error {100 * sum(errors) / len(errors):.1f}% over {len(errors)} points")
    return 0


if __name__ == "__main__":
    sys.exit(main())
