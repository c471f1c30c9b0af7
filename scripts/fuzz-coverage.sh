#!/usr/bin/env bash
# Line coverage of the parsers from what the fuzz targets' seeds reach: each target
# replays fuzz/corpus/TARGET (and build-fuzz/fuzz/corpus-TARGET, what `make fuzz` found),
# then llvm-cov counts the lines of that target's parser. Fails when the total is below
# FUZZ_COVERAGE_MIN percent (default 90): a goal to check, not a test.
# Usage, from the repository root: scripts/fuzz-coverage.sh BUILD_DIR TARGET...
# (BUILD_DIR: configured with -DVITALS_FUZZ=ON -DVITALS_FUZZ_COVERAGE=ON; `make fuzz-coverage`)
set -euo pipefail
build=$1
shift
min=${FUZZ_COVERAGE_MIN:-90}
llvm=${LLVM_SUFFIX--14}  # clang 14's tools, to read clang 14's profiles

# Each target's parser: FILE (all of it) or FILE:NAME,NAME (the functions, and the lambdas
# in them, whose mangled names hold a NAME), where a file holds more than the parser.
# Left out: what reads a path before parsing (read_whole_file, read_chrome_trace: I/O),
# our own writers (gzip_compress, write_file_atomically), and running what was parsed.
declare -A parser=(
    [results_reader]="results/src/results_reader.cpp:parse_text,benchmarks_of,seconds_per_unit,non_negative,read_work,read_roofline,read_ceilings,parse_results
                      platform/src/json_depth.cpp platform/internal/vitals/internal/checked_number.hpp"
    [chrome_trace_reader]="profiler_bridge/src/trace_reader.cpp:parse_chrome_trace
                           profiler_bridge/src/gzip.cpp:looks_gzipped,gzip_decompress
                           platform/src/json_depth.cpp platform/internal/vitals/internal/checked_number.hpp"
    [schedule]="profiler_bridge/src/profile.cpp:8Schedule"
    [cli]="runner/src/run_main.cpp
           runner/src/flags.cpp:number_validator,positive_seconds,open_unit_interval,finite_non_negative,decimal_integer
           runner/src/command_support.cpp:find_case,edit_distance
           runner/src/measure_flags.cpp:14MeasureOptions7declare,14MeasureOptions8validate"
    [merge]="results/src/results_reader.cpp:merge_results,read_case_results,parse_text,benchmarks_of,seconds_per_unit,non_negative,read_work
             platform/src/json_depth.cpp platform/internal/vitals/internal/checked_number.hpp"
    [filter]="runner/src/command_support.cpp:matching_cases"
    [output_path]="platform/src/atomic_file.cpp:descriptor_of,target_of,folder_of,check_regular_target,check_output_path,check_outputs_are_not_inputs"
)

out=$build/coverage
rm -rf "$out"
mkdir -p "$out"
objects=()
for target in "$@"; do
    [[ -n ${parser[$target]:-} ]] || { echo "fuzz-coverage: no parser listed for $target" >&2; exit 2; }
    corpora=("fuzz/corpus/$target")
    [[ -d build-fuzz/fuzz/corpus-$target ]] && corpora+=("build-fuzz/fuzz/corpus-$target")
    # -runs=0: replay the corpus, no new inputs.
    LLVM_PROFILE_FILE=$out/$target.profraw "$build/fuzz/fuzz_$target" -runs=0 -timeout=10 -close_fd_mask=3 \
        "${corpora[@]}" >"$out/$target.log" 2>&1 || { tail -20 "$out/$target.log"; exit 1; }
    "llvm-profdata$llvm" merge -sparse "$out/$target.profraw" -o "$out/$target.profdata"
    objects+=(-object "$build/fuzz/fuzz_$target")
done
"llvm-profdata$llvm" merge -sparse "$out"/*.profraw -o "$out/all.profdata"

# llvm-cov, quiet about inline functions that some binaries hold but none of them ran.
cov() { "llvm-cov$llvm" "$@" 2> >(grep -v 'functions have mismatched data' >&2); }

# One target's lines (or every target's, for "total"): llvm-cov show gives each line's
# count, llvm-cov export the functions' line spans.
count() {
    local name=$1 profile=$2 specs=$3
    shift 3
    local files
    mapfile -t files < <(for spec in $specs; do echo "$PWD/${spec%%:*}"; done | sort -u)
    cov export "$@" -instr-profile="$profile" -skip-expansions "${files[@]}" >"$out/$name.json"
    for file in "${files[@]}"; do
        echo "@@ $file"
        cov show "$@" -instr-profile="$profile" -format=text -show-instantiations=false "$file"
    done >"$out/$name.txt"
    python3 - "$name" "$out/$name.json" "$out/$name.txt" "$PWD" $specs <<'EOF'
import json, re, sys
name, export, show, root, specs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
wanted = {}  # file -> function name parts (None: the whole file)
for spec in specs:
    file, _, names = spec.partition(":")
    file = f"{root}/{file}"
    if not names: wanted[file] = None
    elif wanted.setdefault(file, set()) is not None: wanted[file] |= set(names.split(","))
spans = {f: [] for f in wanted}
found = set()
for fn in json.load(open(export))["data"][0]["functions"]:
    for f, parts in wanted.items():
        hits = {p for p in parts or () if p in fn["name"]}
        if hits and fn["filenames"][0] == f:
            found |= {(f, p) for p in hits}
            lines = [r[0] for r in fn["regions"] if r[5] == 0] + [r[2] for r in fn["regions"] if r[5] == 0]
            spans[f].append((min(lines), max(lines)))
# A renamed function must not drop out of the count unnoticed.
lost = [f"{f[len(root) + 1:]}:{p}" for f, parts in wanted.items() for p in sorted(parts or ()) if (f, p) not in found]
if lost: sys.exit(f"fuzz-coverage: no function matches {', '.join(lost)}; update the parser list")
covered = total = 0
missed = []
file = None
for line in open(show):
    if line.startswith("@@ "):
        file = line[3:].strip()
        continue
    m = re.match(r"\s*(\d+)\|\s*([0-9.]+[kMGTPE]?)?\|", line)
    if not m or m.group(2) is None: continue
    n = int(m.group(1))
    if wanted[file] is not None and not any(a <= n <= b for a, b in spans[file]): continue
    total += 1
    if m.group(2) != "0": covered += 1
    else: missed.append(f"{file[len(root) + 1:]}:{n}")
pct = 100.0 * covered / total if total else 0.0
print(f"{name:<20} {covered:>5}/{total:<5} lines  {pct:5.1f}%")
open(f"{export[:-5]}.missed", "w").write("\n".join(missed) + "\n")
print(f"{pct:.1f}", file=open(f"{export[:-5]}.percent", "w"))
EOF
}

for target in "$@"; do count "$target" "$out/$target.profdata" "${parser[$target]}" "$build/fuzz/fuzz_$target"; done
all=$(for target in "$@"; do printf '%s\n' ${parser[$target]}; done | sort -u)
count total "$out/all.profdata" "$all" "${objects[@]:1}"
echo "uncovered lines: $out/*.missed; each line's count: $out/*.txt"
awk -v min="$min" '{ exit !($1 >= min) }' "$out/total.percent" || { echo "fuzz-coverage: total below ${min}%"; exit 1; }
