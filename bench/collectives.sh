#!/usr/bin/env bash
# Fast-model (flow-level network) 1 GiB all-reduce from 8 to 15,488 dies: wall time and peak
# memory (/usr/bin/time -v), simulated time, kernel events and events per second, per platform.
# usage: bench/collectives.sh [BINARY] [SIZE]   (default: build/release/testbenches/ascend-sim, 1GiB)
# Targets (issue 8): 15,488 dies under 60 s and under 16 GiB.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-$here/../build/release/testbenches/ascend-sim}
size=${2:-1GiB}
printf '%-18s %6s %-13s %12s %9s %9s %12s %12s\n' platform dies algorithm sim_us wall_s rss_MiB events events_per_s
for spec in "supernode8_ring 8" "atlas950_8192 64" "cloudmatrix384 384" "atlas950_8192 8192" "atlas960_15488 15488"; do
    set -- $spec
    log=$(mktemp)
    /usr/bin/time -v "$bin" figures collectives --platform "$1" --op allreduce --sizes "$size" --dies "$2" \
        >/dev/null 2>"$log"
    line=$(grep '^collectives:' "$log")
    algo=$(sed -E 's/^collectives: allreduce ([a-z_]+) on.*/\1/' <<<"$line")
    sim=$(sed -E 's/.*B: ([0-9.]+) us simulated.*/\1/' <<<"$line")
    events=$(sed -E 's/.* wall, ([0-9]+) events.*/\1/' <<<"$line")
    wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; print s}' "$log")
    rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2 / 1024}' "$log")
    printf '%-18s %6s %-13s %12s %9s %9s %12s %12.0f\n' "$1" "$2" "$algo" "$sim" "$wall" "$rss" "$events" \
        "$(awk -v e="$events" -v w="$wall" 'BEGIN {print (w > 0 ? e / w : 0)}')"
    rm -f "$log"
done
