#!/usr/bin/env python3
"""Pool reads and a collective on the same links (DESIGN §5b: remote_hbm crosses the supernode's
network). Builds three trace sets on DIES dies: die 0 copies POOL_MIB out of die OWNER's HBM
(remote_hbm), all dies all-reduce AR_MIB, and both at once with nothing ordering them; runs each
on PLATFORM with the pool on the links (dsm.port.network=true) and with the port alone (false);
prints each op's end time on die 0.
usage: contention.py BIN WORKDIR [--platform supernode8_ring] [--dies 8] [--owner 1]
                     [--pool-mib 64] [--ar-mib 256]"""
import argparse
import csv
import json
import os
import subprocess

import tier_bases


def write_set(out, dies, owner, pool_bytes, ar_bytes, pool, collective):
    os.makedirs(out, exist_ok=True)
    for d in range(dies):
        ops = []
        if pool and d == 0:
            ops.append({"op": "memcpy", "name": "pool_read", "bytes": pool_bytes,
                        "inputs": [{"name": "w", "addr": hex(tier_bases.remote_hbm_of(owner)), "bytes": pool_bytes,
                                    "stream": "weight"}],
                        "outputs": [{"name": "o", "addr": hex(1 << 30), "bytes": pool_bytes, "stream": "general"}]})
        if collective:
            ops.append({"op": "collective", "name": "ar", "kind": "all_reduce", "group": list(range(dies)),
                        "bytes": ar_bytes})
        if not ops:  # a die with nothing to do still needs a trace
            ops.append({"op": "memcpy", "name": "idle", "bytes": 4096,
                        "inputs": [{"name": "a", "addr": hex(2 << 30), "bytes": 4096, "stream": "general"}],
                        "outputs": [{"name": "b", "addr": hex(3 << 30), "bytes": 4096, "stream": "general"}]})
        with open(os.path.join(out, f"die{d}.jsonl"), "w") as f:
            f.write(json.dumps({"format": "ascend-sim-trace", "version": 1, "name": "contention", "dies": dies,
                                "die": d}) + "\n")
            for i, op in enumerate(ops):
                f.write(json.dumps({"id": i, **op}) + "\n")
    with open(os.path.join(out, "index.json"), "w") as f:
        json.dump({"format": "ascend-sim-trace-index", "version": 1, "name": "contention", "dies": dies,
                   "files": [{"die": d, "file": f"die{d}.jsonl"} for d in range(dies)]}, f)


def die0_ends(run_dir):
    with open(os.path.join(run_dir, "ops.csv")) as f:
        return {r["name"]: float(r["end_ns"]) for r in csv.DictReader(f) if r["die"] == "0"}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bin")
    ap.add_argument("work")
    ap.add_argument("--platform", default="supernode8_ring")
    ap.add_argument("--dies", type=int, default=8)
    ap.add_argument("--owner", type=int, default=1)
    ap.add_argument("--pool-mib", type=int, default=64)
    ap.add_argument("--ar-mib", type=int, default=256)
    a = ap.parse_args()
    sets = {"pool": (True, False), "all-reduce": (False, True), "both": (True, True)}
    print(f"{a.platform}: die 0 reads {a.pool_mib} MiB of die {a.owner}'s HBM; {a.dies} dies all-reduce "
          f"{a.ar_mib} MiB; end times on die 0 (ms)")
    print("| set | links | pool_read | ar |")
    print("|---|---|---|---|")
    for name, (pool, coll) in sets.items():
        d = os.path.join(a.work, name.replace("-", ""))
        write_set(d, a.dies, a.owner, a.pool_mib << 20, a.ar_mib << 20, pool, coll)
        for net in ("true", "false"):
            out = d + "-out-" + net
            subprocess.run([a.bin, "run", "--platform", a.platform, "--trace", d, "--set",
                            f"dsm.port.network={net}", "--out", out], check=True, stdout=subprocess.DEVNULL)
            e = die0_ends(out)
            cell = lambda k: f"{e[k] / 1e6:.3f}" if k in e else ""
            print(f"| {name} | {'network' if net == 'true' else 'port only'} | {cell('pool_read')} | {cell('ar')} |")


if __name__ == "__main__":
    main()
