#!/usr/bin/env bash
# Installs the Debian packages ascend-sim needs, and only those that are missing.
# Idempotent: a second run installs nothing. Needs root (or sudo) when something is missing.
set -euo pipefail

PACKAGES=(
    build-essential cmake ninja-build pkg-config git
    libsystemc-dev          # SystemC 2.3.4 with TLM-2.0
    verilator               # Verilator 5 (RTL co-simulation)
    yosys                   # yosys 0.23 (RTL synthesis check and formal run: scripts/rtl_*.sh)
    libyaml-cpp-dev         # platform YAML
    libgtest-dev            # GoogleTest
    nlohmann-json3-dev      # stats.json, trace reader
    libcli11-dev            # command line
    libfmt-dev              # formatting
    zlib1g-dev              # .gz traces
    python3                 # scripts and calibration checks
    python3-matplotlib      # plots (scripts/plot_sweep.py)
    python3-pandas          # the Python package ascend_sim (python/): DataFrames
    python3-numpy           # ascend_sim
    python3-pytest          # ascend_sim's tests (ctest -L python)
    python3-jsonschema      # the tests validate outputs against schemas/
    slurm-wlm               # sweep --backend slurm: its test starts a one-node Slurm (tests/sweep/local_slurm.sh)
    munge                   # Slurm's authentication, for that test
    clang-14                # the fuzz preset's compiler (scripts/fuzz.sh, fuzz/README.md)
    libclang-rt-14-dev      # libFuzzer and the clang sanitizer runtimes for it
    clang-format-14         # scripts/format.sh (scripts/test.sh checks the formatting)
)

missing=()
for p in "${PACKAGES[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
        missing+=("$p")
    fi
done

if [ ${#missing[@]} -eq 0 ]; then
    echo "install-deps: all ${#PACKAGES[@]} packages present"
    exit 0
fi

echo "install-deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "install-deps: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
    SUDO="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
