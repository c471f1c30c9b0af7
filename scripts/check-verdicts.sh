#!/usr/bin/env bash
# How often compare's verdicts are right, measured (statistical and slow: not a unit test).
#
#   false alarms  the same build compared with itself: the share of faster/slower verdicts
#                 (goal: at most alpha, 5%)
#   power         every statement made 5% slower (VITALS_SPIN_SCALE=1.05): the share of
#                 slower verdicts (goal: at least 95%)
#
# Each comparison is ROUNDS times 4 cases, PROCESSES processes a side, of the
# benches/spin_bench.cpp program. Usage: scripts/check-verdicts.sh [BUILD_DIR] [ROUNDS] [PROCESSES]
set -euo pipefail
build=${1:-build}
rounds=${2:-20}
processes=${3:-5}
bench="$build/bin/vitals_spin_bench"
[[ -x "$bench" ]] || { echo "check-verdicts: $bench is missing; run 'make build' first" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

measure() {  # measure OUT [SCALE]
    VITALS_SPIN_SCALE=${2:-1} "$bench" run --filter "^spin/" --processes "$processes" --min-run-time 0.05 --json "$1" >/dev/null 2>&1 || {
        echo "check-verdicts: the spin bench failed" >&2
        exit 1
    }
}

count() {  # count VERDICT FILE
    grep -c "\"verdict\": \"$1\"" "$2" || true
}

false_alarms=0 detected=0 cases=0
start=$SECONDS
for round in $(seq 1 "$rounds"); do
    printf '\r[round %d/%d] %ds' "$round" "$rounds" $((SECONDS - start)) >&2
    measure "$work/a.json"
    measure "$work/b.json"
    measure "$work/slower.json" 1.05
    "$build/bin/vitals" compare "$work/a.json" "$work/b.json" --json "$work/same.cmp" >/dev/null
    "$build/bin/vitals" compare "$work/a.json" "$work/slower.json" --json "$work/slower.cmp" >/dev/null
    false_alarms=$((false_alarms + $(count faster "$work/same.cmp") + $(count slower "$work/same.cmp")))
    detected=$((detected + $(count slower "$work/slower.cmp")))
    cases=$((cases + 4))
done
printf '\n' >&2
echo "check-verdicts: $rounds rounds x 4 cases, $processes processes a side, alpha 0.05, noise floor 1%"
awk -v f="$false_alarms" -v d="$detected" -v n="$cases" 'BEGIN {
    printf "  false alarms (same build): %d of %d = %.1f%% (goal <= 5%%)\n", f, n, 100 * f / n
    printf "  power (5%% slower called slower): %d of %d = %.1f%% (goal >= 95%%)\n", d, n, 100 * d / n
}'
