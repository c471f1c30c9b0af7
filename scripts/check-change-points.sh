#!/usr/bin/env bash
# How often the change-point detector is right (statistical and slow: not a unit test):
# the spin bench's blocks (benches/spin_bench.cpp), then series built from them, with a 3%
# step or a drift, by benches/change_point_rates.cpp.
# Usage: scripts/check-change-points.sh [BUILD_DIR] [SERIES]
set -euo pipefail
build=${1:-build}
series=${2:-200}
for program in vitals_spin_bench vitals_change_point_rates; do
    [[ -x "$build/bin/$program" ]] || { echo "check-change-points: $build/bin/$program is missing; run 'make build' first" >&2; exit 2; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$build/bin/vitals_spin_bench" run --filter '^spin/32000$' --min-run-time 2 --json "$work/spin.json" > /dev/null 2>&1
"$build/bin/vitals_change_point_rates" "$work/spin.json" "$series"
