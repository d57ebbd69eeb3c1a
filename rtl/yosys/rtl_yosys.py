"""Shared by synth.py and formal.py: the prefetch scheduler's parameters, the configurations, the
checks that refuse a configuration the block does not support (exit 2 naming the parameter), the
bind done as text for yosys, and running yosys.
"""

import os
import re
import shutil
import subprocess
import sys
import time

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
BLOCK_DIR = os.path.join(ROOT, "rtl", "prefetch_scheduler")
BLOCK_SV = os.path.join(BLOCK_DIR, "prefetch_scheduler.sv")
CHECKER_SV = os.path.join(BLOCK_DIR, "prefetch_scheduler_checker.sv")
BIND_SV = os.path.join(BLOCK_DIR, "prefetch_scheduler_bind.sv")
TRANSACTOR_H = os.path.join(BLOCK_DIR, "prefetch_scheduler_rtl.h")
TOP = "prefetch_scheduler"

# rtl::RtlBuild's constants and the block parameters they mirror. CNT_W has none: the transactor
# reads the counters as 64-bit values, which is the block's default.
RTL_BUILD = {"kMaxDepth": "MAX_DEPTH", "kQueueDepth": "QUEUE_DEPTH", "kAddrBits": "ADDR_W",
             "kLenBits": "LEN_W", "kSeqBits": "SEQ_W", "kPartitions": "NPART",
             "kCreditBits": "CREDIT_W", "kTierBits": "TIER_W", "kEstBits": "EST_W"}

# The reduced configurations the formal run closes in seconds. "formal": a 3-entry queue (not a
# power of two, so the pointer wrap is real logic), 2 partitions, credits wider than lengths;
# "formal_alt": the other width relations (lengths wider than credits, 3 partitions, 2 entries).
REDUCED = {
    "formal": {"MAX_DEPTH": 3, "QUEUE_DEPTH": 3, "ADDR_W": 6, "LEN_W": 5, "SEQ_W": 3, "NPART": 2,
               "CREDIT_W": 6, "CNT_W": 4, "TIER_W": 1, "EST_W": 3},
    "formal_alt": {"MAX_DEPTH": 2, "QUEUE_DEPTH": 2, "ADDR_W": 6, "LEN_W": 6, "SEQ_W": 2, "NPART": 3,
                   "CREDIT_W": 4, "CNT_W": 3, "TIER_W": 2, "EST_W": 2},
}


class BadInput(Exception):
    """A configuration or option the tools refuse: exit 2."""


def block_defaults():
    """The block's parameters and their defaults, in declaration order, from its source."""
    text = open(BLOCK_SV).read()
    header = text[text.index("module " + TOP):text.index(") (")]
    params = {}
    for name, value in re.findall(r"parameter\s+int\s+(\w+)\s*=\s*(\d+)", header):
        params[name] = int(value)
    return params


def chip_config():
    """The configuration the chip uses: rtl::RtlBuild's constants (the transactor mirrors the
    library's build), the block's defaults for what RtlBuild does not name."""
    text = open(TRANSACTOR_H).read()
    body = text[text.index("struct RtlBuild"):]
    body = body[:body.index("};")]
    config = dict(block_defaults())
    found = dict(re.findall(r"static constexpr uint32_t (k\w+) = (\d+);", body))
    for constant, param in RTL_BUILD.items():
        if constant not in found:
            raise RuntimeError("rtl::RtlBuild has no " + constant + " (" + TRANSACTOR_H + ")")
        config[param] = int(found[constant])
    return config


def clog2(n):
    return (n - 1).bit_length() if n > 1 else 0


def validate(config, for_formal):
    """Raises BadInput naming the first parameter the block (or the formal run) cannot take."""
    known = block_defaults()
    for name, value in config.items():
        if name not in known:
            raise BadInput(name + ": not a parameter of " + TOP + " (it has " + ", ".join(known) + ")")
        if not isinstance(value, int) or value < 1:
            raise BadInput(name + "=" + str(value) + ": must be a whole number of at least 1")
    c = dict(known)
    c.update(config)
    depth_w = clog2(c["MAX_DEPTH"] + 1)
    if c["ADDR_W"] < c["LEN_W"]:
        raise BadInput("ADDR_W=%d: must be at least LEN_W (%d): a chunk's address is the candidate's "
                       "plus an offset of LEN_W bits" % (c["ADDR_W"], c["LEN_W"]))
    if c["SEQ_W"] + 1 < depth_w:
        raise BadInput("SEQ_W=%d: the window current + depth is computed on SEQ_W+1 bits, which must hold "
                       "the %d-bit depth (MAX_DEPTH=%d)" % (c["SEQ_W"], depth_w, c["MAX_DEPTH"]))
    if for_formal and c["NPART"] > 4:
        raise BadInput("NPART=%d: the checker's refinement map reaches 4 partitions (MAXP in "
                       "prefetch_scheduler_checker.sv)" % c["NPART"])
    return c


def parse_params(pairs, config):
    """-P NAME=VALUE overrides."""
    for pair in pairs:
        m = re.fullmatch(r"([A-Za-z_]\w*)=(-?\d+)", pair)
        if not m:
            name = pair.split("=", 1)[0]
            raise BadInput(name + ": expected -P NAME=VALUE with a whole number, got '" + pair + "'")
        config[m.group(1)] = int(m.group(2))
    return config


def state_bits(c):
    """Bits of state the block holds: the queue, pointers, count, head offset, current op and its
    estimated start, credits and counters."""
    part_w = clog2(c["NPART"]) if c["NPART"] > 1 else 1
    qptr_w = clog2(c["QUEUE_DEPTH"]) if c["QUEUE_DEPTH"] > 1 else 1
    qcnt_w = clog2(c["QUEUE_DEPTH"] + 1)
    entry = c["SEQ_W"] + c["ADDR_W"] + c["LEN_W"] + part_w + c["TIER_W"] + c["EST_W"]
    return (c["QUEUE_DEPTH"] * entry + 2 * qptr_w + qcnt_w + c["LEN_W"] + 1 + c["SEQ_W"] + c["EST_W"] +
            c["NPART"] * c["CREDIT_W"] + 9 * c["CNT_W"])


def describe(c):
    return " ".join("%s=%d" % (k, v) for k, v in c.items())


def chparam(c):
    return "chparam " + " ".join("-set %s %d" % (k, v) for k, v in c.items()) + " " + TOP


def yosys_version():
    exe = shutil.which("yosys")
    if not exe:
        raise RuntimeError("yosys not found on PATH (scripts/install-deps.sh installs it)")
    return subprocess.run([exe, "-V"], capture_output=True, text=True).stdout.strip()


def run_yosys(script, workdir, name, timeout=None):
    """Runs a yosys script; returns (exit code, log text, seconds). Exit code None: timed out."""
    ys = os.path.join(workdir, name + ".ys")
    log = os.path.join(workdir, name + ".log")
    with open(ys, "w") as f:
        f.write(script)
    t0 = time.monotonic()
    try:
        proc = subprocess.run(["yosys", "-q", "-l", log, "-s", ys], stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, open(log).read() if os.path.exists(log) else "", time.monotonic() - t0
    seconds = time.monotonic() - t0
    text = open(log).read() if os.path.exists(log) else ""
    if proc.returncode != 0 and proc.stderr:  # what the log does not already hold
        text += "".join("\n" + line for line in proc.stderr.splitlines() if line and line not in text)
    return proc.returncode, text, seconds


def bind_instance():
    """The instance the bind file places in the block: `bind prefetch_scheduler X #(...) u (...);`
    without the `bind prefetch_scheduler` in front."""
    text = re.sub(r"//[^\n]*", "", open(BIND_SV).read())
    m = re.search(r"\bbind\s+" + TOP + r"\s+(.*?\);)", text, re.S)
    if not m:
        raise RuntimeError("no 'bind " + TOP + " ...;' in " + BIND_SV)
    return m.group(1)


def bound_block(block_text):
    """The block with the checker instantiated at its end: what `bind` means, done as text
    because yosys 0.23 parses bind statements and drops them."""
    end = block_text.rindex("endmodule")
    return (block_text[:end] + "\n    // prefetch_scheduler_bind.sv, placed here by rtl/yosys (yosys drops bind)\n    " +
            bind_instance() + "\n\n" + block_text[end:])


def fail_bad_input(tool, e):
    print(tool + ": " + str(e), file=sys.stderr)
    sys.exit(2)
