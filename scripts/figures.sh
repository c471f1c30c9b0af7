#!/usr/bin/env bash
# Runs the benches and writes docs/performance.md from what they measured: one table per
# topic, each naming the CPU, the command and the date. The page is this script's output;
# refresh it by running the script (`make figures`), not by editing it.
#
#   scripts/figures.sh [BUILD_DIR]     (default: build)
#
# Environment:
#   FIGURES_OUT        the page to write (default: docs/performance.md)
#   FIGURES_BENCH_ARGS extra Google Benchmark flags for every Google Benchmark bench, e.g.
#                      "--benchmark_repetitions=3" (medians) or "--benchmark_min_time=0.2"
#   FIGURES_REPEATS    runs of each stop rule in vitals_bench_stop_rules (default 10)
#   VITALS_MAX_CPU_ISA caps the kernels' vector paths, as for every vitals program; the
#                      page names the path the kernels ran
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
[[ $build = /* ]] || build=$root/$build
out=${FIGURES_OUT:-$root/docs/performance.md}
bench_args=${FIGURES_BENCH_ARGS:-}
repeats=${FIGURES_REPEATS:-10}

for bench in vitals_bench_timer vitals_bench_kernels vitals_bench_profiler vitals_bench_stop_rules; do
    if [[ ! -x $build/bin/$bench ]]; then
        echo "figures.sh: $build/bin/$bench is missing; build first (make build)" >&2
        exit 1
    fi
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
started=$(date +%s)
# The load when the run began: a busy machine's figures are read as such.
cut -d' ' -f1-3 /proc/loadavg >"$work/load.txt" 2>/dev/null || true

# Each bench's command as the page shows it (relative to the repository) and as it runs.
shown_build=${build#"$root"/}
run_gbench() {  # name
    local name=$1
    local shown="$shown_build/bin/vitals_bench_$name --benchmark_out=$name.json --benchmark_out_format=json${bench_args:+ $bench_args}"
    echo "figures.sh: $shown" >&2
    # shellcheck disable=SC2086  # FIGURES_BENCH_ARGS is a list of flags
    "$build/bin/vitals_bench_$name" --benchmark_out="$work/$name.json" --benchmark_out_format=json $bench_args \
        >"$work/$name.log"
    printf '%s\n' "$shown" >"$work/$name.command"
}
run_gbench timer
run_gbench kernels
run_gbench profiler
shown="$shown_build/bin/vitals_bench_stop_rules --repeats $repeats"
echo "figures.sh: $shown" >&2
date '+%Y-%m-%dT%H:%M:%S%:z' >"$work/stop_rules.date"
"$build/bin/vitals_bench_stop_rules" --repeats "$repeats" >"$work/stop_rules.log"
printf '%s\n' "$shown" >"$work/stop_rules.command"

mkdir -p "$(dirname "$out")"
python3 "$root/scripts/figures.py" "$work" "$(( $(date +%s) - started ))" >"$out.tmp"
mv "$out.tmp" "$out"
echo "figures.sh: wrote $out in $(( $(date +%s) - started )) s" >&2
