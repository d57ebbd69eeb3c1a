#!/usr/bin/env python3
"""Formal run of the prefetch scheduler's contract with yosys (sat, temporal induction).

    scripts/rtl_formal.sh [--config formal|formal_alt|chip] [-P NAME=VALUE ...]
                          [--max-induction K] [--depth N] [--only PROP,...]
                          [--define NAME] [--mutant NAME] [--keep DIR]
    scripts/rtl_formal.sh --mutants [--config ...]

The block gets the checker (prefetch_scheduler_checker.sv) as prefetch_scheduler_bind.sv places
it. Every assertion is proven at once by k-induction (`sat -tempinduct`, k = 1..K; the initial
state is free except the checker's "a reset was seen" bit, so the base case covers any power-up
state). When induction does not close within K, the properties are checked to a bounded depth N
instead and reported as bounded. A counterexample names the properties it violates.

--mutants runs every bug variant of rtl/yosys/mutants.py with only the property it targets and
exits 0 only when each is caught and every property of the checker is the target of one.

Exit 0: proven (or bounded, when induction did not close); 1: a counterexample, or yosys failed,
or a mutant escaped; 2: a configuration the block or the checker does not support.
"""

import argparse
import os
import re
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mutants as mt  # noqa: E402
import rtl_yosys as ry  # noqa: E402


def checker_properties(text):
    """(label, kind, ok wire) of every assertion and assumption in the checker's text."""
    props = []
    for label, kind, expr in re.findall(r"^\s*(\w+):\s*(assert|assume)\s*\((.*?)\);", text, re.M | re.S):
        m = re.fullmatch(r"\s*(ok_\w+)\s*", expr)
        props.append((label, kind, m.group(1) if m else None))
    return props


def apply_mutant(mutant, block, checker):
    if "find" not in mutant:
        return block, checker
    target = mutant.get("file", "block")
    text = block if target == "block" else checker
    n = text.count(mutant["find"])
    if n != 1:
        raise RuntimeError("mutant %s: its text occurs %d times in the %s, not once" % (mutant["name"], n, target))
    text = text.replace(mutant["find"], mutant["replace"])
    return (text, checker) if target == "block" else (block, text)


def parse_counterexample(log, props):
    """The properties whose ok bit is 0 at a checked step of the last model in the log, with the
    first such step."""
    section = log[log.rfind("Trying induction with length"):] if "Trying induction" in log else log
    values = {}
    for step, name, dec in re.findall(r"^\s+(\d+)\s+\\(\S+)\s+(\S+)\s+\S+\s+\S+\s*$", section, re.M):
        values[(int(step), name)] = dec
    failed = {}
    steps = sorted({s for s, _ in values})
    for label, kind, ok in props:
        if kind != "assert" or not ok:
            continue
        for s in steps:
            if values.get((s, "u_checker.chk")) == "1" and values.get((s, "u_checker." + ok)) == "0":
                failed[label] = s
                break
    return failed


class FormalRun:
    def __init__(self, config, workdir, defines=(), mutant=None, only=None):
        self.config = config
        self.workdir = workdir
        self.defines = list(defines)
        self.mutant = mutant
        block = open(ry.BLOCK_SV).read()
        checker = open(ry.CHECKER_SV).read()
        if mutant:
            block, checker = apply_mutant(mutant, block, checker)
            if "define" in mutant:
                self.defines.append(mutant["define"])
        self.props = checker_properties(checker)
        self.asserts = [p for p, k, _ in self.props if k == "assert"]
        self.only = only
        if only:
            unknown = [p for p in only if p not in self.asserts]
            if unknown:
                raise ry.BadInput("--only " + ",".join(unknown) + ": not an assertion of the checker (it has " +
                                  ", ".join(self.asserts) + ")")
        self.bound = os.path.join(workdir, "prefetch_scheduler_bound.sv")
        self.checker = os.path.join(workdir, "prefetch_scheduler_checker.sv")
        with open(self.bound, "w") as f:
            f.write(ry.bound_block(block))
        with open(self.checker, "w") as f:
            f.write(checker)

    def prefix(self):
        lines = [
            "read_verilog -sv -formal " + "".join("-D" + d + " " for d in self.defines) + self.bound + " " +
            self.checker,
            ry.chparam(self.config),
            "prep -top " + ry.TOP + " -flatten",
            "memory_map",
            "opt -fast",
            "dffunmap",
            "select -list t:$assert t:$assume",
        ]
        if self.only:
            cell = ry.TOP + "/u_checker."
            keep = cell + self.only[0] + "".join(" " + cell + p + " %u" for p in self.only[1:])
            lines.append("chformal -assert -remove t:$assert " + keep + " %d")
            lines.append("log kept:")
            lines.append("select -list t:$assert")
        return lines

    def show(self):
        oks = sorted({ok for _, kind, ok in self.props if kind == "assert" and ok})
        return " ".join("-show u_checker." + ok for ok in ["chk"] + oks)

    def check_labels(self, log):
        """yosys must see every assertion and assumption of the checker, under its label."""
        seen = set(re.findall(r"^" + ry.TOP + r"/u_checker\.(\w+)$", log, re.M))
        missing = [p for p, _, _ in self.props if p not in seen]
        if missing:
            raise RuntimeError("yosys does not see these properties of the checker: " + ", ".join(missing))
        if self.only:
            kept = re.findall(r"^" + ry.TOP + r"/u_checker\.(\w+)$", log[log.index("\nkept:"):], re.M)
            if sorted(kept) != sorted(self.only):
                raise RuntimeError("--only kept %s, not %s" % (", ".join(kept) or "nothing", ", ".join(self.only)))
        return len(seen)

    def sat(self, name, options, timeout=None):
        script = "\n".join(self.prefix() + ["sat -prove-asserts -set-assumes -set-init u_checker.seen_rst 0 " +
                                            options + " " + self.show()]) + "\n"
        rc, log, seconds = ry.run_yosys(script, self.workdir, name, timeout)
        if rc is None:
            return None, seconds
        if "ERROR:" in log and "proof did fail" not in log:
            raise RuntimeError("yosys failed:\n" + log[-2000:])
        self.check_labels(log)
        return log, seconds

    def induction(self, max_k, timeout=None):
        """('proven', k) / ('open', max_k) / ('fail', {prop: step}, length) / ('timeout',), seconds."""
        log, seconds = self.sat("induction", "-tempinduct -maxsteps %d" % max_k, timeout)
        if log is None:
            return ("timeout",), seconds
        lengths = re.findall(r"Trying induction with length (\d+)", log)
        if "Induction step proven: SUCCESS!" in log:
            return ("proven", int(lengths[-1])), seconds
        if "model found for base case: FAIL!" in log:
            return ("fail", parse_counterexample(log, self.props), int(lengths[-1])), seconds
        if "Reached maximum number of time steps -> proof failed." in log:
            return ("open", max_k), seconds
        raise RuntimeError("unexpected yosys output:\n" + log[-2000:])

    def bounded(self, depth):
        log, seconds = self.sat("bounded", "-tempinduct -tempinduct-baseonly -maxsteps %d" % depth)
        if re.search(r"proved base case for %d steps: SUCCESS!" % depth, log):
            return ("bounded", depth), seconds
        if "model found for base case: FAIL!" in log:
            lengths = re.findall(r"Trying induction with length (\d+)", log)
            return ("fail", parse_counterexample(log, self.props), int(lengths[-1]) if lengths else 0), seconds
        raise RuntimeError("unexpected yosys output:\n" + log[-2000:])


def config_from(args):
    if args.config == "chip":
        config = ry.chip_config()
    elif args.config in ry.REDUCED:
        config = dict(ry.REDUCED[args.config])
    else:
        raise ry.BadInput("--config " + args.config + ": not a configuration (" + ", ".join(ry.REDUCED) + ", chip)")
    return ry.validate(ry.parse_params(args.params, config), for_formal=True)


def prove(args, config):
    workdir = args.keep or tempfile.mkdtemp(prefix="asim-rtl-formal-")
    os.makedirs(workdir, exist_ok=True)
    try:
        return prove_in(args, config, workdir)
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)


def prove_in(args, config, workdir):
    mutant = None
    if args.mutant:
        mutant = mt.by_name(args.mutant)
        if not mutant:
            raise ry.BadInput("--mutant " + args.mutant + ": not a mutant (" +
                              ", ".join(m["name"] for m in mt.MUTANTS) + ")")
    only = [p for p in args.only.split(",") if p] if args.only else None
    run = FormalRun(config, workdir, args.define, mutant, only)
    print("rtl_formal: %s with prefetch_scheduler_checker bound, configuration %s: %s" %
          (ry.TOP, args.config, ry.describe(config)))
    print("yosys: " + ry.yosys_version())
    if args.define:
        print("defines: " + " ".join(args.define))
    if mutant:
        print("mutant: %s: %s" % (mutant["name"], mutant["what"]))
    checked = only or run.asserts
    print("properties: %d assertions checked (%d in the checker), %d assumptions" %
          (len(checked), len(run.asserts), sum(1 for _, k, _ in run.props if k == "assume")))
    t0 = time.monotonic()
    result, seconds = run.induction(args.max_induction)
    if result[0] == "proven":
        print("induction: proven at length %d (%.1f s)" % (result[1], seconds))
    elif result[0] == "open":
        print("induction: not closed within length %d (%.1f s)" % (args.max_induction, seconds))
    else:
        print("induction: counterexample in the base case, length %d (%.1f s)" % (result[2], seconds))
    if result[0] == "open":
        result, seconds = run.bounded(args.depth)
        print("bounded: %s (%.1f s)" % ("no counterexample in %d steps" % args.depth if result[0] == "bounded"
                                        else "counterexample", seconds))
    for p in checked:
        if result[0] == "proven":
            status = "proven by induction (length %d)" % result[1]
        elif result[0] == "bounded":
            status = "bounded (depth %d)" % result[1]
        elif p in result[1]:
            status = "FAILED (counterexample, step %d)" % result[1][p]
        else:
            status = "not violated by the counterexample"
        print("property %s: %s" % (p, status))
    if result[0] == "fail" and not result[1]:
        print("(the counterexample violates none of the shown ok bits; see %s)" % workdir)
    print("time: %.1f s" % (time.monotonic() - t0))
    print("result: " + {"proven": "PROVEN", "bounded": "BOUNDED", "fail": "FAIL"}[result[0]])
    return 1 if result[0] == "fail" else 0


def campaign(args, config):
    """Every mutant with only its target property: each must be caught."""
    props = [p for p, k, _ in checker_properties(open(ry.CHECKER_SV).read()) if k == "assert"]
    print("rtl_formal --mutants: %d mutants, configuration %s: %s" % (len(mt.MUTANTS), args.config, ry.describe(config)))
    print("yosys: " + ry.yosys_version())
    t0 = time.monotonic()
    escaped = []
    targeted = set()
    for m in mt.MUTANTS:
        if m["catches"] not in props:
            raise RuntimeError("mutant %s targets %s, which the checker does not have" % (m["name"], m["catches"]))
        if not mt.applies(m, config):
            print("mutant %s: not applicable in this configuration (%s)" % (m["name"], m["what"]))
            continue
        targeted.add(m["catches"])
        workdir = tempfile.mkdtemp(prefix="asim-rtl-mutant-")
        try:
            run = FormalRun(config, workdir, args.define, m, [m["catches"]])
            result, seconds = run.induction(args.mutant_depth, args.mutant_timeout)
        finally:
            shutil.rmtree(workdir, ignore_errors=True)
        if result[0] == "timeout":
            verdict = "ESCAPED (no counterexample within %d s)" % args.mutant_timeout
            escaped.append(m["name"])
        elif result[0] == "fail" and m["catches"] in result[1]:
            verdict = "caught by %s at step %d" % (m["catches"], result[1][m["catches"]])
        elif result[0] == "fail":
            verdict = "caught at step %d (property not identified)" % result[2]
        else:
            verdict = "ESCAPED (%s)" % ("proven" if result[0] == "proven" else "no counterexample in %d steps" %
                                        args.mutant_depth)
            escaped.append(m["name"])
        print("mutant %s: %s (%.1f s)" % (m["name"], verdict, seconds))
    untargeted = [p for p in props if p not in targeted]
    for p in untargeted:
        print("property %s: no mutant targets it" % p)
    print("time: %.1f s" % (time.monotonic() - t0))
    ok = not escaped and not untargeted
    print("result: " + ("every mutant caught by its property; every property catches one" if ok else "FAIL"))
    return 0 if ok else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--config", default="formal", help="formal (default), formal_alt or chip")
    ap.add_argument("-P", dest="params", action="append", default=[], metavar="NAME=VALUE")
    ap.add_argument("--max-induction", type=int, default=4, metavar="K", help="longest induction tried (4)")
    ap.add_argument("--depth", type=int, default=8, metavar="N",
                    help="bounded depth when induction does not close (8)")
    ap.add_argument("--only", metavar="PROP,...", help="check only these assertions")
    ap.add_argument("--define", action="append", default=[], metavar="NAME", help="a define for the block")
    ap.add_argument("--mutant", metavar="NAME", help="apply one mutant of rtl/yosys/mutants.py")
    ap.add_argument("--mutants", action="store_true", help="run every mutant against its property")
    ap.add_argument("--mutant-depth", type=int, default=16, metavar="N",
                    help="steps searched for each mutant's counterexample (16)")
    ap.add_argument("--mutant-timeout", type=int, default=120, metavar="S",
                    help="seconds a mutant's search may take before it counts as escaped (120)")
    ap.add_argument("--keep", metavar="DIR", help="keep the yosys scripts and logs in DIR")
    args = ap.parse_args()
    try:
        for name, value in (("--max-induction", args.max_induction), ("--depth", args.depth),
                            ("--mutant-depth", args.mutant_depth), ("--mutant-timeout", args.mutant_timeout)):
            if value < 1:
                raise ry.BadInput("%s %d: must be at least 1" % (name, value))
        config = config_from(args)
        return campaign(args, config) if args.mutants else prove(args, config)
    except ry.BadInput as e:
        ry.fail_bad_input("rtl_formal", e)


if __name__ == "__main__":
    sys.exit(main())
