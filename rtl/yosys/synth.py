#!/usr/bin/env python3
"""Synthesis check of the prefetch scheduler with yosys (generic gates, no technology library).

    scripts/rtl_synth.sh [--config chip|formal|formal_alt] [-P NAME=VALUE ...] [--keep DIR] [--block FILE]

Synthesizes the block in a configuration (default: chip, the parameters rtl::RtlBuild mirrors)
and reads yosys's log: the cells and flip-flops of the netlist, the latches proc inferred or the
netlist holds, and the problems `check` reports (combinational loops, undriven or multiply driven
signals). Exit 0 when clean, 1 when not (or yosys fails), 2 for a configuration the block does not
support (the message names the parameter).
"""

import argparse
import os
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rtl_yosys as ry  # noqa: E402

FF_TYPE = re.compile(r"^\$_(DFF|SDFF|ALDFF|FF_)")  # every flip-flop cell of yosys's gate library
LATCH_TYPE = re.compile(r"^\$(_DLATCH|_SR_|dlatch|sr$|adlatch)", re.I)


def parse_stat(log):
    """The last `stat` block: {cell type: count} and the total."""
    blocks = log.split("Number of cells:")
    if len(blocks) < 2:
        return None, {}
    last = blocks[-1]
    total = int(last.split()[0])
    types = {}
    for line in last.splitlines()[1:]:
        m = re.match(r"^\s+(\$\S+)\s+(\d+)\s*$", line)
        if m:
            types[m.group(1)] = int(m.group(2))
        elif line.strip() and not line.startswith(" "):
            break
    return total, types


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--config", default="chip", help="chip (default), formal or formal_alt")
    ap.add_argument("-P", dest="params", action="append", default=[], metavar="NAME=VALUE",
                    help="override one parameter")
    ap.add_argument("--keep", metavar="DIR", help="keep the yosys script and log in DIR")
    ap.add_argument("--block", metavar="FILE", default=ry.BLOCK_SV,
                    help="synthesize this text of the block instead (the tests' broken variants)")
    args = ap.parse_args()

    try:
        if args.config == "chip":
            config = ry.chip_config()
        elif args.config in ry.REDUCED:
            config = dict(ry.REDUCED[args.config])
        else:
            raise ry.BadInput("--config " + args.config + ": not a configuration (chip, " +
                              ", ".join(ry.REDUCED) + ")")
        config = ry.validate(ry.parse_params(args.params, config), for_formal=False)
        if not os.path.isfile(args.block):
            raise ry.BadInput("--block " + args.block + ": no such file")
    except ry.BadInput as e:
        ry.fail_bad_input("rtl_synth", e)

    script = "\n".join([
        "read_verilog -sv " + os.path.abspath(args.block),
        ry.chparam(config),
        "synth -top " + ry.TOP,
        "check",
        "stat",
    ]) + "\n"
    workdir = args.keep or tempfile.mkdtemp(prefix="asim-rtl-synth-")
    os.makedirs(workdir, exist_ok=True)
    print("rtl_synth: %s, configuration %s: %s" % (ry.TOP, args.config, ry.describe(config)))
    print("yosys: " + ry.yosys_version())
    print("script: " + "; ".join(script.strip().splitlines()))
    rc, log, seconds = ry.run_yosys(script, workdir, "synth")

    total, types = parse_stat(log)
    ffs = sum(n for t, n in types.items() if FF_TYPE.match(t))
    latch_cells = sum(n for t, n in types.items() if LATCH_TYPE.match(t))
    # proc reports every latch it infers; for an always_comb one yosys stops with an ERROR.
    latches_inferred = len(re.findall(r"^(?:ERROR: )?Latch inferred for signal", log, re.M))
    problems = [int(n) for n in re.findall(r"Found and reported (\d+) problems", log)]
    loops = len(re.findall(r"found logic loop", log))
    undriven = len(re.findall(r"is used but has no driver", log))
    multi = len(re.findall(r"multiple conflicting drivers", log))
    expected = ry.state_bits(config)
    print("cells: %s" % (total if total is not None else "none"))
    print("flip-flops: %d" % ffs)
    print("state bits: %d" % expected)
    print("latches: %d cells, %d signals inferred" % (latch_cells, latches_inferred))
    print("logic loops: %d" % loops)
    print("undriven: %d" % undriven)
    print("multiple drivers: %d" % multi)
    print("check problems: %d (%d check passes)" % (sum(problems), len(problems)))
    for line in log.splitlines():
        if re.search(r"found logic loop|no driver|conflicting drivers|Latch inferred", line) and \
                not line.startswith("No latch"):
            print("  " + line.strip())
    if types:
        print("cell types: " + ", ".join("%s %d" % (t, n) for t, n in sorted(types.items())))
    print("time: %.1f s" % seconds)
    if args.keep:
        print("log: " + os.path.join(workdir, "synth.log"))

    why = []
    if rc != 0:
        why.append("yosys exited %s" % rc)
        if not any(line.startswith("ERROR") for line in log.splitlines()):
            print(log[-2000:])
    if not total:
        why.append("no netlist")
    if latches_inferred or latch_cells:
        why.append("latches")
    if not problems:
        why.append("check did not run")
    elif sum(problems) or loops or undriven or multi:
        why.append("check problems")
    print("result: " + ("clean" if not why else "FAIL (" + ", ".join(why) + ")"))
    if not args.keep:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0 if not why else 1


if __name__ == "__main__":
    sys.exit(main())
