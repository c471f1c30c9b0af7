#!/usr/bin/env bash
# Compares `vitals machine` with likwid-bench (Debian's likwid) on this machine: read,
# copy and triad bandwidth of one core at each cache level's working set, and peak
# FLOP/s of one core, as a ratio vitals / likwid (goal: within 10%). Run on a quiet
# machine; it takes about two minutes. Usage: scripts/check-machine.sh [path/to/vitals]
set -euo pipefail

vitals=${1:-build/bin/vitals}
if ! command -v likwid-bench >/dev/null; then
    echo "likwid-bench is not installed: apt-get install likwid" >&2
    exit 2
fi
command -v jq >/dev/null || { echo "jq is not installed: apt-get install jq" >&2; exit 2; }
figures=$(mktemp)
trap 'rm -f "$figures"' EXIT
"$vitals" machine --refresh --json "$figures" >/dev/null

# The widest kernels likwid has for this CPU, as ours are chosen.
isa=$(jq -r .vector_isa "$figures")
case $isa in
    avx512) suffix=_avx512; fma=_avx512_fma ;;
    avx2) suffix=_avx; fma=_avx_fma ;;
    *) suffix=; fma= ;;
esac

# likwid-bench's figure (bandwidth or FLOP/s, per second) for a kernel at a working set:
# the best of three runs, as ours is the best of its repetitions (one likwid run reports
# its mean, which a busy moment of a shared machine pulls down).
likwid_best() {
    local test=$1 kib=$2 what=$3
    for _ in 1 2 3; do
        likwid-bench -t "$test" -w "S0:${kib}kB:1" 2>/dev/null | awk -v what="$what" '$0 ~ what {print $NF * 1e6; exit}'
    done | sort -g | tail -n 1
}
likwid_rate() { likwid_best "$1" $(( $2 / 1024 )) "$3"; }

printf '%-8s %-8s %12s %12s %8s\n' level kernel vitals likwid ratio
for level in $(jq -r '.bandwidth_one_core[].level' "$figures"); do
    ws=$(jq -r ".bandwidth_one_core[] | select(.level == \"$level\") | .working_set" "$figures")
    for pair in "read:load" "copy:copy" "triad:stream"; do
        ours_kernel=${pair%%:*}
        theirs=${pair##*:}$suffix
        # From memory, a large copy streams past the caches (glibc's and the compiler's
        # copies use non-temporal stores there): likwid's copy_mem does the same.
        [[ $level == memory && $ours_kernel == copy ]] && theirs=copy_mem$suffix
        ours=$(jq -r ".bandwidth_one_core[] | select(.level == \"$level\") | .$ours_kernel" "$figures")
        their_rate=$(likwid_rate "$theirs" "$ws" "MByte/s")
        awk -v l="$level" -v k="$ours_kernel" -v a="$ours" -v b="$their_rate" \
            'BEGIN { printf "%-8s %-8s %9.1f GB/s %9.1f GB/s %8.2f\n", l, k, a / 1e9, b / 1e9, a / b }'
    done
done
for precision in f64 f32; do
    test=peakflops$fma
    [[ $precision == f32 ]] && test=peakflops_sp$fma
    ours=$(jq -r ".peak_flops.${precision}_one_core" "$figures")
    theirs=$(likwid_best "$test" 16 "MFlops/s")
    awk -v k="peak $precision" -v a="$ours" -v b="$theirs" \
        'BEGIN { printf "%-17s %9.1f GF/s %9.1f GF/s %8.2f\n", k, a / 1e9, b / 1e9, a / b }'
done
