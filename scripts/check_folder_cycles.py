#!/usr/bin/env python3
"""Folder-level include cycles (issue 14): folder A depends on folder B when a file in A includes
a header in B. A cycle (A needs B needs A) means neither folder can be understood, built or
replaced alone. Prints every cycle with the includes that make it and exits 1 when there is one
that is not in KNOWN, or when an entry of KNOWN no longer is a cycle (remove it then).

usage: scripts/check_folder_cycles.py [SOURCE_DIR]
"""
import collections
import os
import re
import sys

TOPS = ["models", "testbenches", "platforms", "rtl"]

# Cycles still to break, each with its reason. Keep this empty-bound.
KNOWN = set()  # none left: the H-JSD's RTL engine registers itself (models/common/registry.h)

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def include_graph(root):
    edges = collections.defaultdict(lambda: collections.defaultdict(list))
    for top in TOPS:
        for folder, _, files in os.walk(os.path.join(root, top)):
            source = os.path.relpath(folder, root)
            for name in files:
                if not name.endswith((".h", ".cpp")):
                    continue
                with open(os.path.join(folder, name), errors="replace") as f:
                    for line in f:
                        m = INCLUDE.match(line)
                        if not m:
                            continue
                        target = os.path.dirname(m.group(1))
                        if target and target != source and os.path.isdir(os.path.join(root, target)):
                            edges[source][target].append(f"{name} includes {m.group(1)}")
    return edges


def cycles(edges):
    """Strongly connected components of more than one folder (Tarjan, iterative)."""
    index, low, on_stack, stack, out = {}, {}, set(), [], []
    counter = 0
    for start in list(edges):
        if start in index:
            continue
        work = [(start, iter(edges.get(start, {})))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(edges.get(child, {}))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    component.add(top)
                    if top == node:
                        break
                if len(component) > 1:
                    out.append(frozenset(component))
    return out


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    edges = include_graph(root)
    found = cycles(edges)
    bad = False
    for c in found:
        known = c in KNOWN
        bad |= not known
        print(("known cycle" if known else "CYCLE") + ": " + " <-> ".join(sorted(c)))
        for a in sorted(c):
            for b in sorted(edges[a]):
                if b in c:
                    print(f"    {a} -> {b}: {edges[a][b][0]}" +
                          (f" (+{len(edges[a][b]) - 1} more)" if len(edges[a][b]) > 1 else ""))
    for k in KNOWN - set(found):
        bad = True
        print("no longer a cycle, remove it from KNOWN: " + " <-> ".join(sorted(k)))
    folders = len(set(edges) | {b for a in edges for b in edges[a]})
    print(f"{folders} folders, {sum(len(v) for v in edges.values())} folder dependencies, "
          f"{len(found)} cycle(s), {len(found) - len(set(found) & KNOWN)} new")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
