#!/usr/bin/env bash
# How long the history takes at scale: COMMITS results files of CASES cases (10 blocks
# each, a 3% step in every case at the middle commit) added one by one to a new SQLite
# history, then detect over all of it; prints the times and the history's size per run.
# Usage: scripts/bench-history.sh [BUILD_DIR] [COMMITS] [CASES]
set -euo pipefail
build=${1:-build}
commits=${2:-500}
cases=${3:-200}
vitals="$build/bin/vitals"
[[ -x "$vitals" ]] || { echo "bench-history: $vitals is missing; run 'make build' first" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$work" "$commits" "$cases" <<'PY'
import json, random, sys
work, commits, cases = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(20261204)
for c in range(commits):
    scale = 1.03 if c >= commits // 2 else 1.0
    entries = []
    for k in range(cases):
        for b in range(10):
            t = 1000.0 * (1 + k / cases) * scale * rng.gauss(1, 0.01)
            entries.append({"name": f"case/{k}", "run_type": "iteration", "iterations": 1, "real_time": t,
                            "cpu_time": t, "time_unit": "ns"})
    json.dump({"context": {"host_name": "bench", "num_cpus": 2}, "benchmarks": entries}, open(f"{work}/r{c}.json", "w"))
PY
start=$(date +%s.%N)
for c in $(seq 0 $((commits - 1))); do
    "$vitals" history add "$work/r$c.json" --db "$work/h.sqlite" --commit "c$c" --branch main \
        --time "$(date -u -d "2026-01-01 + $c hours" +%Y-%m-%dT%H:%M:%SZ)" > /dev/null
done
added=$(date +%s.%N)
"$vitals" history detect --db "$work/h.sqlite" > "$work/detect.txt"
detected=$(date +%s.%N)
size=$(stat -c %s "$work/h.sqlite")
python3 - "$start" "$added" "$detected" "$size" "$commits" "$cases" "$work/detect.txt" <<'PY'
import sys
start, added, detected, size, commits, cases = map(float, sys.argv[1:7])
first = open(sys.argv[7]).readline().strip()
print(f"{int(commits)} commits x {int(cases)} cases (10 blocks each): history add {1000 * (added - start) / commits:.0f} ms "
      f"a run ({added - start:.1f} s in all); history detect {detected - added:.2f} s; {size / 1e6:.1f} MB, "
      f"{size / commits / 1e3:.0f} kB a run; detect: {first}")
PY
