#!/usr/bin/env bash
# Compares `vitals machine` with likwid-bench (Debian's likwid) on this machine: read,
# copy and triad bandwidth of one core at each cache level's working set, and peak
# FLOP/s of one core, as a ratio vitals / likwid (goal: within 10%). Three rounds, each
# one `vitals machine --refresh` and then one likwid run of every kernel, so that both
# tools sample the same minutes of a shared machine; each figure is the median of its
# three. Run on a quiet machine; it takes about seven minutes.
# Usage: scripts/check-machine.sh [path/to/vitals]
set -euo pipefail

vitals=${1:-build/bin/vitals}
if ! command -v likwid-bench >/dev/null; then
    echo "likwid-bench is not installed: apt-get install likwid" >&2
    exit 2
fi
command -v jq >/dev/null || { echo "jq is not installed: apt-get install jq" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
rounds=3

# likwid-bench's figure (bandwidth or FLOP/s, per second) for a kernel at a working set
# in bytes (likwid's kB are 1000 bytes): one run, whose figure is its mean over a second.
likwid_once() {
    local test=$1 bytes=$2 what=$3
    likwid-bench -t "$test" -w "S0:${bytes}B:1" 2>/dev/null | awk -v what="$what" '$0 ~ what {print $NF * 1e6; exit}'
}
median() { sort -g "$1" | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

for round in $(seq "$rounds"); do
    # Its progress lines are dropped; its errors are shown.
    "$vitals" machine --refresh --json "$work/vitals.$round.json" >/dev/null 2>"$work/stderr" || {
        cat "$work/stderr" >&2
        exit 1
    }
    figures=$work/vitals.$round.json
    # The widest kernels likwid has for this CPU, as ours are chosen.
    case $(jq -r .vector_isa "$figures") in
        avx512) suffix=_avx512; fma=_avx512_fma ;;
        avx2) suffix=_avx; fma=_avx_fma ;;
        *) suffix=; fma= ;;
    esac
    for level in $(jq -r '.bandwidth_one_core[].level' "$figures"); do
        ws=$(jq -r ".bandwidth_one_core[] | select(.level == \"$level\") | .working_set" "$figures")
        # Our triad is one FMA per vector (a load folded in), as likwid's stream*_fma;
        # its plain stream kernels multiply and add apart, four instructions more a
        # round, which at L1 is 15% slower (336 against 392 GB/s here).
        for pair in "read:load$suffix" "copy:copy$suffix" "triad:stream$fma"; do
            ours_kernel=${pair%%:*}
            theirs=${pair##*:}
            jq -r ".bandwidth_one_core[] | select(.level == \"$level\") | .$ours_kernel" "$figures" >>"$work/ours.$level.$ours_kernel"
            likwid_once "$theirs" "$ws" "MByte/s" >>"$work/theirs.$level.$ours_kernel"
        done
    done
    for precision in f64 f32; do
        test=peakflops$fma
        [[ $precision == f32 ]] && test=peakflops_sp$fma
        jq -r ".peak_flops.${precision}_one_core" "$figures" >>"$work/ours.peak.$precision"
        likwid_once "$test" 16384 "MFlops/s" >>"$work/theirs.peak.$precision"
    done
    echo "round $round of $rounds done" >&2
done

printf '%-8s %-8s %12s %12s %8s\n' level kernel vitals likwid ratio
for level in $(jq -r '.bandwidth_one_core[].level' "$work/vitals.1.json"); do
    for kernel in read copy triad; do
        awk -v l="$level" -v k="$kernel" -v a="$(median "$work/ours.$level.$kernel")" -v b="$(median "$work/theirs.$level.$kernel")" \
            'BEGIN { printf "%-8s %-8s %9.1f GB/s %9.1f GB/s %8.2f\n", l, k, a / 1e9, b / 1e9, a / b }'
    done
done
for precision in f64 f32; do
    awk -v k="peak $precision" -v a="$(median "$work/ours.peak.$precision")" -v b="$(median "$work/theirs.peak.$precision")" \
        'BEGIN { printf "%-17s %9.1f GF/s %9.1f GF/s %8.2f\n", k, a / 1e9, b / 1e9, a / b }'
done
