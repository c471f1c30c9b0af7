#!/usr/bin/env bash
# Runs every libFuzzer target for SECONDS from its committed seeds (new inputs go to
# build-fuzz, the seeds stay as they are), JOBS at a time. Fails on any finding: the
# reproducer is left as crash-*/timeout-*/oom-* in the current folder, to be committed
# to fuzz/corpus/TARGET/ as a regression seed once fixed.
# Usage: scripts/fuzz.sh SECONDS JOBS TARGET...
set -euo pipefail
seconds=$1 jobs=$2
shift 2
run_one() {
    local target=$1 seconds=$2
    local log=build-fuzz/fuzz/$target.log
    mkdir -p "build-fuzz/fuzz/corpus-$target"
    if build-fuzz/fuzz/fuzz_"$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -close_fd_mask=3 -print_final_stats=1 \
        "build-fuzz/fuzz/corpus-$target" "fuzz/corpus/$target" >"$log" 2>&1; then
        echo "fuzz_$target: $(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | grep -o '[0-9]*$' || echo '?') runs in ${seconds} s, no finding"
    else
        echo "fuzz_$target: FINDING (log: $log)"
        tail -40 "$log"
        return 1
    fi
}
export -f run_one
printf '%s\n' "$@" | xargs -P "$jobs" -I{} bash -c 'run_one "$1" "$2"' _ {} "$seconds"
