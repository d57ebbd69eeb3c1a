#!/usr/bin/env bash
# Fast-model (flow-level network) 1 GiB all-reduce from 8 to 15,488 dies: wall time and peak
# memory (/usr/bin/time -v), simulated time, kernel events and events per second, per platform.
# usage: bench/collectives.sh [BINARY] [SIZE] [RUNS]
#   (defaults: build/release/testbenches/ascend-sim, 1GiB, 1 run)
# With RUNS > 1 every row is run RUNS times; wall_s and rss_MiB are the medians (the upper
# middle value for an even count), events/s is events over the median wall, and the last column
# lists every run's wall time.
# Targets (issue 8): 15,488 dies under 60 s and under 16 GiB.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-$here/../build/release/testbenches/ascend-sim}
size=${2:-1GiB}
runs=${3:-1}
median() { tr ' ' '\n' | sed '/^$/d' | sort -g | awk '{v[NR] = $1} END {print v[int(NR / 2) + 1]}'; }
printf '%-18s %6s %-13s %12s %9s %9s %12s %12s  %s\n' platform dies algorithm sim_us wall_s rss_MiB events events_per_s \
    walls
for spec in "supernode8_ring 8" "atlas950_8192 64" "cloudmatrix384 384" "atlas950_8192 8192" "atlas960_15488 15488"; do
    set -- $spec
    walls="" rsss=""
    for ((r = 0; r < runs; ++r)); do
        log=$(mktemp)
        /usr/bin/time -v "$bin" figures collectives --platform "$1" --op allreduce --sizes "$size" --dies "$2" \
            >/dev/null 2>"$log"
        line=$(grep '^collectives:' "$log")
        algo=$(sed -E 's/^collectives: allreduce ([a-z_]+) on.*/\1/' <<<"$line")
        sim=$(sed -E 's/.*B: ([0-9.]+) us simulated.*/\1/' <<<"$line")
        events=$(sed -E 's/.* wall, ([0-9]+) events.*/\1/' <<<"$line")
        walls+=" $(awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; print s}' "$log")"
        rsss+=" $(awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2 / 1024}' "$log")"
        rm -f "$log"
    done
    wall=$(median <<<"$walls")
    rss=$(median <<<"$rsss")
    printf '%-18s %6s %-13s %12s %9s %9s %12s %12.0f %s\n' "$1" "$2" "$algo" "$sim" "$wall" "$rss" "$events" \
        "$(awk -v e="$events" -v w="$wall" 'BEGIN {print (w > 0 ? e / w : 0)}')" "$walls"
done
