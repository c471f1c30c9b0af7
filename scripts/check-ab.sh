#!/usr/bin/env bash
# How often `vitals ab` is right, measured (statistical and slow: not a unit test), with
# the spin bench's twins in one program (benches/spin_bench.cpp):
#
#   A/A       spin/N against spin-b/N, the same statement: the share of `same` verdicts
#             (goal: at least 95%) and of intervals covering the true ratio 1 (goal: 90%)
#   5% slower spin-b/N made 5% longer (VITALS_SPIN_SCALE_B=1.05): the share of `slower`
#             verdicts within --max-run-time 2 (goal: at least 95%) and of intervals
#             covering 1.05 (goal: 90%; the chain's fixed cost of a few ns per call puts
#             the true ratio a hair under 1.05)
#   the limit A/A with a precision no run reaches (0.0001) and --max-run-time 1: the wall
#             time ab reports against the limit (goal: within 5% of it plus one round)
#
# Usage: scripts/check-ab.sh [BUILD_DIR] [TRIES] [CASE_SIZE]; CASE_SIZE is one of the spin
# bench's base lengths (default 32000, 48 to 76 us a call on the VMs measured).
set -euo pipefail
build=${1:-build}
tries=${2:-100}
size=${3:-32000}
bench="$build/bin/vitals_spin_bench"
[[ -x "$bench" ]] || { echo "check-ab: $bench is missing; run 'make build' first" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

start=$SECONDS
for try in $(seq 1 "$tries"); do
    printf '\r[try %d/%d] %ds' "$try" "$tries" $((SECONDS - start)) >&2
    for scale in 1 1.05; do
        VITALS_SPIN_SCALE_B=$scale "$bench" ab "spin/$size" "spin-b/$size" --max-run-time 2 \
            --json "$work/ab-$scale-$try.json" >/dev/null 2>&1 || {
            echo "check-ab: the spin bench's ab failed (scale $scale)" >&2
            exit 1
        }
    done
    "$bench" ab "spin/$size" "spin-b/$size" --precision 0.0001 --max-run-time 1 \
        --json "$work/limit-$try.json" >/dev/null 2>&1 || {
        echo "check-ab: the spin bench's ab failed (the time limit)" >&2
        exit 1
    }
done
printf '\r' >&2
python3 - "$work" "$tries" "$size" <<'PY'
import glob, json, sys
work, tries, size = sys.argv[1], int(sys.argv[2]), sys.argv[3]
for scale, truth, wanted in (("1", 1.0, "same"), ("1.05", 1.05, "slower")):
    verdicts, covered, rounds, seconds, ratios = {}, 0, [], [], []
    for path in glob.glob(f"{work}/ab-{scale}-*.json"):
        ab = json.load(open(path))["vitals_ab"]
        b = ab["alternatives"][1]
        verdicts[b["verdict"]] = verdicts.get(b["verdict"], 0) + 1
        low, high = b["ratio_interval"] or (float("nan"), float("nan"))
        covered += low <= truth <= high
        rounds.append(len(ab["rounds"]))
        seconds.append(ab["wall_seconds"])
        ratios.append(b["ratio"])
    n = sum(verdicts.values())
    mid = lambda xs: sorted(xs)[len(xs) // 2]
    print(f"spin/{size} vs spin-b/{size} at scale {scale}: {n} tries; '{wanted}' in {verdicts.get(wanted, 0)} "
          f"({100 * verdicts.get(wanted, 0) / n:.0f}%), all verdicts {dict(sorted(verdicts.items()))}; interval covers "
          f"{truth} in {covered} ({100 * covered / n:.0f}%); median ratio {mid(ratios):.4f}, rounds {mid(rounds)}, "
          f"wall {mid(seconds):.2f} s (medians over tries)")
limit, within, over = 1.0, 0, []
for path in glob.glob(f"{work}/limit-*.json"):
    ab = json.load(open(path))["vitals_ab"]
    longest_round = max(sum(r["block_seconds"]) for r in ab["rounds"])
    within += ab["stopped_by"] == "max_run_time" and ab["wall_seconds"] <= 1.05 * limit + longest_round
    over.append(ab["wall_seconds"] - limit)
n = len(over)
print(f"--max-run-time {limit:g} with --precision 0.0001: {n} tries; within 5% plus one round in {within} "
      f"({100 * within / n:.0f}%); wall minus the limit from {min(over) * 1e3:+.1f} to {max(over) * 1e3:+.1f} ms")
PY
