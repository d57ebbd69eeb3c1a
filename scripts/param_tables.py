#!/usr/bin/env python3
"""The parameter tables of the component READMEs, generated from the declarations in the code.

A README holds a generated table between two markers:

    <!-- params die.l2 -->
    ... (the output of `ascend-sim params --markdown die.l2`)
    <!-- /params -->

usage: scripts/param_tables.py [--check] PATH/TO/ascend-sim
Rewrites every such block from the binary's declarations (models/common/params.h); with --check
changes nothing and exits 1 naming each README whose table is stale (CTest ParamTables.*)."""
import argparse
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BLOCK = re.compile(r"(<!-- params ([\w.\[\]<>]+) -->\n)(.*?)(<!-- /params -->)", re.S)


def readmes():
    out = subprocess.run(["git", "-C", ROOT, "ls-files", "*README.md"], capture_output=True, text=True)
    files = out.stdout.split() if out.returncode == 0 else []
    if not files:  # not a git checkout: walk the tree
        for d, _, names in os.walk(ROOT):
            if "/build" in d or "/.git" in d:
                continue
            files += [os.path.relpath(os.path.join(d, n), ROOT) for n in names if n == "README.md"]
    return sorted(files)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("asim")
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    stale, blocks = [], 0
    for rel in readmes():
        path = os.path.join(ROOT, rel)
        text = open(path, encoding="utf-8").read()

        def table(m):
            md = subprocess.run([a.asim, "params", "--markdown", m.group(2)], capture_output=True, text=True)
            if md.returncode != 0:
                sys.exit(f"{rel}: ascend-sim params --markdown {m.group(2)} failed: {md.stderr.strip()}")
            return m.group(1) + md.stdout + m.group(4)

        new, n = BLOCK.subn(table, text)
        blocks += n
        if new != text:
            stale.append(rel)
            if not a.check:
                open(path, "w", encoding="utf-8").write(new)
    if blocks == 0:
        sys.exit("no parameter table found")
    if a.check and stale:
        print("stale parameter tables (run scripts/param_tables.py build/release/testbenches/ascend-sim):")
        for rel in stale:
            print("  " + rel)
        return 1
    print(f"{blocks} tables, {len(stale)} {'stale' if a.check else 'rewritten'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
