#!/usr/bin/env bash
# How much slower a statement is when its data come from memory (--cold) than from the
# caches (warm), measured (a timing, so a script, not a unit test): a read of 4 MiB
# (`mask/1M-10pct/cpu-f32`: 1M floats compared into a mask) and of 256 KiB
# (`relu/32x1024/cpu-f32`), warm and cold in turns, ROUNDS rounds; each figure is the
# median of its rounds' medians. Goal: cold slower than warm in every round.
# Usage: scripts/check-cold.sh [path/to/vitals] [ROUNDS]
set -euo pipefail
vitals=${1:-build/bin/vitals}
rounds=${2:-5}
[[ -x "$vitals" ]] || { echo "check-cold: $vitals is missing; run 'make build' first" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cases=(mask/1M-10pct/cpu-f32 relu/32x1024/cpu-f32)
for round in $(seq "$rounds"); do
    for c in "${cases[@]}"; do
        for mode in warm cold; do
            printf '\r[round %d/%d] %-24s %s' "$round" "$rounds" "$c" "$mode" >&2
            flag=(); [[ $mode == cold ]] && flag=(--cold)
            "$vitals" timeit "$c" --min-run-time 0.3 --counters none "${flag[@]}" \
                --json "$work/${c//\//_}-$mode-$round.json" >/dev/null 2>&1
        done
    done
done
printf '\r%60s\r' '' >&2
python3 - "$work" "$rounds" "${cases[@]}" <<'PY'
import json, statistics, sys
work, rounds, cases = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
def median_of(path):
    for b in json.load(open(path))["benchmarks"]:
        if b.get("aggregate_name") == "median":
            return b["real_time"] * {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1}[b["time_unit"]]
failed = False
print(f"| case | warm | cold | cold / warm | rounds cold slower |")
print(f"| --- | --- | --- | --- | --- |")
for c in cases:
    stem = c.replace("/", "_")
    warm = [median_of(f"{work}/{stem}-warm-{r}.json") for r in range(1, rounds + 1)]
    cold = [median_of(f"{work}/{stem}-cold-{r}.json") for r in range(1, rounds + 1)]
    slower = sum(c_ > w for w, c_ in zip(warm, cold))
    failed |= slower < rounds
    w, k = statistics.median(warm), statistics.median(cold)
    print(f"| `{c}` | {w * 1e6:.1f} us | {k * 1e6:.1f} us | {k / w:.2f} | {slower} of {rounds} |")
sys.exit(1 if failed else 0)
PY
