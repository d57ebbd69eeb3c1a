#!/usr/bin/env bash
# Formal run of the RTL prefetch scheduler's contract with yosys (rtl/yosys/formal.py; --help).
set -euo pipefail
exec python3 "$(dirname "$0")/../rtl/yosys/formal.py" "$@"
