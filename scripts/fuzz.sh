#!/usr/bin/env bash
# Builds the libFuzzer harnesses (the fuzz preset, clang 14) and runs each for SECONDS (default 60),
# one after the other, on a copy of its committed seed corpus: scripts/fuzz.sh [SECONDS] [NAME...]
# Prints per harness the executions, the coverage (cov: edges, ft: features), the corpus size and
# the result; exits 1 when any harness found a crash, sanitizer report, leak, timeout (-timeout,
# default 10 s per input) or memory blow-up (-rss_limit_mb, default 2048). Reproducers go to
# build/fuzz/artifacts/NAME/. The grown corpora stay in build/fuzz/corpus/NAME/ (not committed;
# pass ASIM_FUZZ_MERGE=1 to minimise them into fuzz/corpus/ afterwards). See fuzz/README.md.
# Environment: ASIM_FUZZ_TIMEOUT (s), ASIM_FUZZ_RSS_MB, ASIM_FUZZ_NICE (default 19), ASIM_JOBS;
# ASIM_FUZZ_SKIP_BUILD=1 runs the harnesses as built (e.g. when builds take a lock of their own).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
shift || true
case "$seconds" in '' | *[!0-9]*) echo "fuzz.sh: SECONDS must be a whole number, got '$seconds'" >&2; exit 2 ;; esac
timeout_s="${ASIM_FUZZ_TIMEOUT:-10}"
rss_mb="${ASIM_FUZZ_RSS_MB:-2048}"
niceness="${ASIM_FUZZ_NICE:-19}"
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}"

if [ "${ASIM_FUZZ_SKIP_BUILD:-0}" != 1 ]; then
    scripts/install-deps.sh
    if [ ! -f build/fuzz/build.ninja ]; then
        cmake --preset fuzz >/dev/null
    fi
    cmake --build --preset fuzz --parallel "${ASIM_JOBS:-$(nproc)}"
fi

table=build/fuzz/fuzzers.txt
[ -f "$table" ] || { echo "fuzz.sh: $table missing (configure the fuzz preset)" >&2; exit 1; }
failed=0
summary=()
while read -r name binary max_len seeds; do
    if [ $# -gt 0 ] && [[ " $* " != *" $name "* ]]; then continue; fi
    corpus="build/fuzz/corpus/$name"
    artifacts="build/fuzz/artifacts/$name"
    log="build/fuzz/logs/$name.log"
    mkdir -p "$corpus" "$artifacts" "$(dirname "$log")"
    dict="fuzz/dict/$name.dict"
    [ -f "$dict" ] || dict=""
    cp -n "$seeds"/* "$corpus"/ 2>/dev/null || true  # a copy: the committed corpus is not grown
    echo "fuzz.sh: $name for ${seconds}s (-max_len=$max_len), log $log"
    set +e
    nice -n "$niceness" "$binary" -max_total_time="$seconds" -max_len="$max_len" \
        -timeout="$timeout_s" -rss_limit_mb="$rss_mb" -print_final_stats=1 \
        -artifact_prefix="$artifacts/" ${dict:+-dict="$dict"} "$corpus" >"$log" 2>&1
    rc=$?
    set -e
    # The last status line: "#N  DONE  cov: C ft: F corp: K/..." (or the last pulse before a finding).
    status=$(grep -E '^#[0-9]+' "$log" | tail -1)
    execs=$(grep -oE '^stat::number_of_executed_units: [0-9]+' "$log" | awk '{print $2}')
    cov=$(sed -nE 's/.* cov: ([0-9]+).*/\1/p' <<<"$status")
    ft=$(sed -nE 's/.* ft: ([0-9]+).*/\1/p' <<<"$status")
    files=$(find "$corpus" -type f | wc -l)
    if [ "$rc" -eq 0 ]; then
        result=ok
    else
        failed=1
        result="FOUND (exit $rc): $(grep -m1 -E 'ERROR: (libFuzzer|AddressSanitizer|LeakSanitizer)|runtime error|SUMMARY' "$log" | cut -c1-120)"
        result="$result; artifact: $(ls -t "$artifacts" | head -1)"
    fi
    summary+=("$(printf '%-18s %6ss  execs %-10s cov %-6s ft %-7s corpus %-5s %s' "$name" "$seconds" "${execs:-?}" "${cov:-?}" "${ft:-?}" "$files" "$result")")
    if [ "${ASIM_FUZZ_MERGE:-0}" = 1 ] && [ "$rc" -eq 0 ]; then
        "$binary" -merge=1 -max_len="$max_len" "$seeds" "$corpus" >>"$log" 2>&1
    fi
done <"$table"

echo
echo "fuzz.sh: harness, seconds, executions, edges (cov), features (ft), corpus files, result"
printf '%s\n' "${summary[@]}"
exit "$failed"
