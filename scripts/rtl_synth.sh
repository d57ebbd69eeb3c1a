#!/usr/bin/env bash
# Synthesis check of the RTL prefetch scheduler with yosys (rtl/yosys/synth.py; --help for options).
set -euo pipefail
exec python3 "$(dirname "$0")/../rtl/yosys/synth.py" "$@"
