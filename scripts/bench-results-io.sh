#!/usr/bin/env bash
# How long the commands that read results files take on large ones, and how much memory
# they hold: two files of CASES cases x BLOCKS blocks (+ 7 aggregates each), written by
# the results writer itself (bin/vitals_make_results_files), then compare, report --html,
# merge (of two disjoint shards) and history add into a new SQLite history, each timed
# as a whole process (wall time and peak resident memory). With BASELINE (another build's
# `vitals`), the same commands of that build run right after each one, for a ratio
# measured in the same minutes. Prints a markdown table naming the CPU and the date.
# Usage: scripts/bench-results-io.sh [BUILD_DIR] [CASES] [BLOCKS] [BASELINE]
set -euo pipefail
build=${1:-build}
cases=${2:-10000}
blocks=${3:-23}
baseline=${4:-}
vitals="$build/bin/vitals"
make_files="$build/bin/vitals_make_results_files"
for tool in "$vitals" "$make_files" ${baseline:+"$baseline"}; do
    [[ -x "$tool" ]] || { echo "bench-results-io: $tool is missing; run 'make build' first" >&2; exit 2; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$make_files" "$work/before.json" "$cases" "$blocks" 1.00 1
"$make_files" "$work/after.json" "$cases" "$blocks" 1.03 2
"$make_files" "$work/shard.json" "$cases" "$blocks" 1.00 3 "shard2/"

# One command as a whole process: "seconds peak-MB", its output thrown away.
measure() {
    python3 - "$@" <<'PY'
import resource, subprocess, sys, time
start = time.monotonic()
done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
seconds = time.monotonic() - start
if done.returncode != 0:
    sys.exit(f"bench-results-io: {' '.join(sys.argv[1:])} failed: {done.stderr.decode(errors='replace').strip()}")
print(f"{seconds:.2f} {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024:.0f}")
PY
}

size_mb=$(( $(stat -c %s "$work/before.json") / 1000000 ))
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
echo "Two files of $cases cases x $((blocks + 7)) entries ($size_mb MB each); $cpu; $(date -u +%Y-%m-%d)"
echo "Command: scripts/bench-results-io.sh $build $cases $blocks${baseline:+ $baseline}"
echo
if [[ -n "$baseline" ]]; then
    echo "| command | seconds | peak MB | baseline seconds | baseline peak MB |"
    echo "| --- | ---: | ---: | ---: | ---: |"
else
    echo "| command | seconds | peak MB |"
    echo "| --- | ---: | ---: |"
fi
run_both() {  # NAME ARGS...: this build, then the baseline, on the same inputs
    local name=$1
    shift
    rm -f "$work/h.sqlite" "$work/out.json" "$work/out.html"
    local ours theirs=""
    ours=$(measure "$vitals" "$@")
    if [[ -n "$baseline" ]]; then
        rm -f "$work/h.sqlite" "$work/out.json" "$work/out.html"
        theirs=$(measure "$baseline" "$@")
        echo "| $name | ${ours% *} | ${ours#* } | ${theirs% *} | ${theirs#* } |"
    else
        echo "| $name | ${ours% *} | ${ours#* } |"
    fi
}
run_both "compare" compare "$work/before.json" "$work/after.json"
run_both "report --html" report "$work/before.json" "$work/after.json" --html "$work/out.html"
run_both "merge (two shards)" merge "$work/before.json" "$work/shard.json" -o "$work/out.json"
run_both "history add" history add "$work/after.json" --db "$work/h.sqlite" --commit c1 --branch main --time 2026-12-05T00:00:00Z
