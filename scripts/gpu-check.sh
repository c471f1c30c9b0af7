#!/usr/bin/env bash
# One-shot check of vitals' CUDA parts on a machine with an NVIDIA GPU, nvcc and CMake
# but no Debian packages and no network. Prepare with `make gpu-bundle` where apt works,
# bring the repository (with .gpu-bundle/) to the GPU machine, and run:
#
#   scripts/gpu-check.sh [BUNDLE_DIR] [OUTPUT_DIR]
#
# BUNDLE_DIR (default: the repository's .gpu-bundle) and OUTPUT_DIR (default: $OUT, else
# the repository's gpu-check-out) may be relative to the current folder or absolute.
# It unpacks the bundled packages into a private prefix (with dpkg-deb, or ar and the
# data archive's decompressor where dpkg-deb is missing), builds with VITALS_CUDA=ON,
# runs the whole test suite (the CUDA tests compare every operation with the CPU result),
# times every CUDA case and its CPU counterpart, and writes OUTPUT_DIR/summary.txt: the
# device, every CUDA test's result, each CUDA case's median beside the CPU one, MASK
# INDICES before/after on the device, cuBLAS GFLOP/s against the device's peak, and the
# kernel rows of a CUPTI trace.
#
# Exit status: 0 all good; 1 unpacking, the build or a test failed; 2 no GPU here;
# 3 the CUDA tests did not run (every one skipped: no device visible, a driver older than
# the toolkit, ...), which is no pass.
#
# VITALS_GPU_CHECK_WORK=DIR puts the prefix and the build under DIR (default: a new
# temporary folder for the prefix, build-gpu/ in the repository for the build).
set -uo pipefail
caller=$(pwd)
absolute() { case $1 in /*) printf '%s\n' "$1" ;; *) printf '%s\n' "$caller/$1" ;; esac; }
repo=$(cd "$(dirname "$0")/.." && pwd)
bundle=$(absolute "${1:-$repo/.gpu-bundle}")
out=$(absolute "${2:-${OUT:-$repo/gpu-check-out}}")
mkdir -p "$out" || { echo "cannot create $out" >&2; exit 1; }
cd "$repo" || exit 1
summary="$out/summary.txt"
log() { echo "$*" | tee -a "$summary"; }
section() { log ""; log "== $*"; }
: > "$summary"

log "== vitals GPU check, $(date -u +%Y-%m-%dT%H:%M:%SZ), commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
if command -v nvidia-smi >/dev/null; then
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv 2>&1 | tee -a "$summary"
else
    log "nvidia-smi: not found"
    [[ ${VITALS_GPU_CHECK_ALLOW_NO_GPU:-0} == 1 ]] || { log "no GPU here: nothing to check"; exit 2; }
fi
log "nvcc: $(nvcc --version 2>&1 | tail -1)"
log "cmake: $(cmake --version | head -1)"

# --- Unpack the bundle into a prefix of our own; nothing is installed system-wide. ---
work=${VITALS_GPU_CHECK_WORK:-}
if [[ -n $work ]]; then
    work=$(absolute "$work")
    prefix=$work/prefix
    build=$work/build-gpu
else
    prefix=$(mktemp -d)/prefix
    build=$repo/build-gpu
fi
rm -rf "$prefix" && mkdir -p "$prefix" || { log "cannot create the prefix $prefix"; exit 1; }
shopt -s nullglob
debs=("$bundle"/*.deb)
[[ ${#debs[@]} -gt 0 ]] || { log "no .deb files in $bundle: run 'make gpu-bundle' first"; exit 1; }

# A .deb is an ar archive holding debian-binary, control.tar.* and data.tar.* (plain, or
# compressed with xz, zstd, gzip or bzip2): without dpkg-deb, the data archive is taken
# out with ar and decompressed by the tool its suffix names.
unpack_deb() {
    local deb=$1 into=$2
    if command -v dpkg-deb >/dev/null; then
        dpkg-deb -x "$deb" "$into"
        return
    fi
    command -v ar >/dev/null || { echo "neither dpkg-deb nor ar (binutils) is installed"; return 1; }
    local members member
    members=$(ar t "$deb") || { echo "not an ar archive"; return 1; }
    member=$(grep -m1 '^data\.tar' <<< "$members") || { echo "no data.tar member (members: ${members//$'\n'/ })"; return 1; }
    local decompress
    case $member in
        data.tar) decompress=(cat) ;;
        data.tar.xz) decompress=(xz -dc) ;;
        data.tar.zst) decompress=(zstd -dc) ;;
        data.tar.gz) decompress=(gzip -dc) ;;
        data.tar.bz2) decompress=(bzip2 -dc) ;;
        *) echo "$member: unknown compression"; return 1 ;;
    esac
    command -v "${decompress[0]}" >/dev/null || { echo "$member needs ${decompress[0]}, which is not installed"; return 1; }
    ar p "$deb" "$member" | "${decompress[@]}" | tar -x -C "$into"
}
for deb in "${debs[@]}"; do
    if ! why=$(unpack_deb "$deb" "$prefix" 2>&1); then
        log "cannot unpack $deb: ${why:-failed}"
        exit 1
    fi
done
# Links to absolute paths (libz.so -> /lib/x86_64-linux-gnu/libz.so.1...) point into the
# prefix when their target came with the bundle.
while IFS= read -r link; do
    target=$(readlink "$link")
    if [[ $target == /* && -e $prefix$target ]]; then ln -sfn "$prefix$target" "$link"; fi
done < <(find "$prefix" -type l)
# The multiarch folder the packages use (lib/x86_64-linux-gnu on amd64). CMake searches
# <prefix>/lib/<arch> only when CMAKE_LIBRARY_ARCHITECTURE is set, which its compiler
# check does on Debian-like systems only: it is given here, with the config folders.
arch=x86_64-linux-gnu
for dir in "$prefix"/usr/lib/*-linux-gnu*; do arch=$(basename "$dir"); break; done
prefix_path="$prefix/usr;$prefix;$prefix/usr/lib/$arch/cmake;$prefix/usr/lib/cmake;$prefix/usr/share/cmake"
export PATH="$prefix/usr/bin:$PATH"
# For the CMake runs that tests start themselves (the dependency graph, the consumer builds).
export CMAKE_PREFIX_PATH="${prefix_path//;/:}" CMAKE_LIBRARY_PATH="$prefix/usr/lib/$arch"
export LD_LIBRARY_PATH="$prefix/usr/lib/$arch:$prefix/lib/$arch${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
generator=$(command -v ninja >/dev/null && echo Ninja || echo "Unix Makefiles")
log "bundle: ${#debs[@]} packages from $bundle unpacked into $prefix ($arch); generator: $generator"

# --- Build and test. ---
rm -rf "$build"  # a cache from another prefix would point at packages no longer there
status=0
cmake -S . -B "$build" -G "$generator" -DCMAKE_BUILD_TYPE=Release "-DCMAKE_PREFIX_PATH=$prefix_path" \
    "-DCMAKE_LIBRARY_ARCHITECTURE=$arch" -DVITALS_CUDA=ON -DVITALS_FMT_HEADER_ONLY=ON -DVITALS_BUILD_BENCHES=OFF -DVITALS_TEST_OUTSIDE_TOOLS=OFF \
    -DVITALS_INSTALL=OFF > "$out/configure.log" 2>&1 ||
    { log "configure FAILED (see configure.log)"; tail -20 "$out/configure.log"; exit 1; }
cmake --build "$build" -j "$(nproc)" > "$out/build.log" 2>&1 ||
    { log "build FAILED (see build.log)"; tail -30 "$out/build.log"; exit 1; }
log "build: ok"
vitals=$build/bin/vitals

ctest --test-dir "$build" --output-on-failure -j "$(nproc)" > "$out/ctest.log" 2>&1 || status=1
log "tests: $(grep -E 'tests passed' "$out/ctest.log" || echo 'no ctest summary (see ctest.log)')"
# ctest marks a test that did not pass with "***": Failed, Exception, Timeout, Not Run, and
# also Skipped and "Not Run (Disabled)" (a test run only by another test), which are no failures.
failed_marks='\*\*\*(Failed|Exception|Timeout|Not Run [^(]|Not Run$)'
grep -E "$failed_marks" "$out/ctest.log" | sed 's/^/  FAILED /' | tee -a "$summary"

section "CUDA tests (each operation on the device against the CPU result)"
# ctest's lines "N/M Test #K: NAME ....   Passed  0.01 sec" for the tests that use a device.
cuda_lines=$(grep -E 'Test +#[0-9]+: ' "$out/ctest.log" | grep -Ei 'cuda|OnStream' || true)
if [[ -z $cuda_lines ]]; then
    log "no CUDA test in the suite (was the build without CUDA?)"
    cuda_ran=0
else
    sed -E 's/^ *[0-9]+\/[0-9]+ Test +#[0-9]+: /  /; s/ +[0-9.]+ sec$//' <<< "$cuda_lines" | tee -a "$summary"
    cuda_passed=$(grep -c ' Passed' <<< "$cuda_lines")
    cuda_skipped=$(grep -c '\*\*\*Skipped' <<< "$cuda_lines")
    cuda_failed=$(grep -Ec "$failed_marks" <<< "$cuda_lines")
    cuda_ran=$((cuda_passed + cuda_failed))
    log "CUDA tests: $cuda_passed passed, $cuda_failed failed, $cuda_skipped skipped"
fi
if [[ $cuda_ran -eq 0 ]]; then
    reason=$("$vitals" timeit relu/32x1024/cuda-f32 --min-run-time 0.01 2>&1 | grep -m1 -o 'skipped: .*' || true)
    log "every CUDA test skipped: the device was not used (${reason:-no reason given}); this is no pass"
    log "== done: status 3"
    exit 3
fi

section "every CUDA case, median beside its CPU counterpart (vitals run)"
"$vitals" run --filter cuda --json "$out/cuda-cases.json" > "$out/cuda-cases.txt" 2> "$out/cuda-cases.err" || status=1
grep -E 'error' "$out/cuda-cases.err" | tee -a "$summary"
cpu_names=$(grep -o '"name": *"[^"]*/cuda-[^"_]*"' "$out/cuda-cases.json" 2>/dev/null | sed -E 's/.*"([^"]*)"$/\1/; s#/cuda-#/cpu-#' | sort -u)
if [[ -n $cpu_names ]]; then
    "$vitals" run --filter "^($(paste -sd'|' <<< "$cpu_names"))\$" --json "$out/cpu-cases.json" > "$out/cpu-cases.txt" \
        2> "$out/cpu-cases.err" || status=1
fi
peak_src=$out/gpu-peak.cu
cat > "$peak_src" <<'EOF'
#include <cstdio>
#include <cuda_runtime.h>
int main() {
    cudaDeviceProp p;
    if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) return 1;
    int khz = 0;
    cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0);
    std::printf("%s %d %d %d %d\n", "device", p.multiProcessorCount, khz, p.major, p.minor);
}
EOF
peak_line=$( (nvcc -o "$out/gpu-peak" "$peak_src" > "$out/gpu-peak.log" 2>&1 && "$out/gpu-peak") || true)
if command -v python3 >/dev/null; then
    python3 - "$out" "$peak_line" <<'EOF' | tee -a "$summary"
import json, os, re, sys
out, peak_line = sys.argv[1], sys.argv[2]
def medians(path):
    if not os.path.exists(path):
        return {}
    with open(path) as f:
        doc = json.load(f)
    scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
    found = {}
    for b in doc.get("benchmarks", []):
        if b.get("aggregate_name") == "median":
            found[b.get("run_name") or b["name"][: -len("_median")]] = b["real_time"] * scale.get(b.get("time_unit", "ns"), 1e-9)
    return found
cuda, cpu = medians(f"{out}/cuda-cases.json"), medians(f"{out}/cpu-cases.json")
def us(s):
    return f"{s * 1e6:12.2f}" if s is not None else f"{'-':>12}"
print(f"{'case':44} {'CUDA us':>12} {'CPU us':>12} {'CPU/CUDA':>9}")
for name in sorted(cuda):
    twin = cpu.get(name.replace("/cuda-", "/cpu-"))
    ratio = f"{twin / cuda[name]:8.1f}x" if twin else f"{'-':>9}"
    print(f"{name:44} {us(cuda[name])} {us(twin)} {ratio}")
if not cuda:
    print("no CUDA case was measured (see cuda-cases.txt and cuda-cases.err)")

print("\n== MASK INDICES on the device, before / after (the tutorial's 20x)")
before, after = cuda.get("mask_indices/1M/cuda-before"), cuda.get("mask_indices/1M/cuda-after")
if before and after:
    print(f"before {before * 1e6:.1f} us, after {after * 1e6:.1f} us: {before / after:.1f}x")
else:
    print("not measured")

print("\n== cuBLAS GFLOP/s against the device's peak")
fields = peak_line.split()
peak = {}
if len(fields) == 5:
    sms, khz, major, minor = (int(x) for x in fields[1:])
    fp32_lanes = {(7, 0): 64, (8, 0): 64}.get((major, minor), 128)
    fp64_lanes = {(6, 0): 32, (7, 0): 32, (8, 0): 32, (9, 0): 64, (10, 0): 64}.get((major, minor), 2)
    ghz = khz / 1e6
    peak["f32"] = sms * fp32_lanes * 2 * ghz
    peak["f64"] = sms * fp64_lanes * 2 * ghz
    # DGEMM runs on the FP64 tensor cores where they exist (sm_80, sm_90, sm_100): twice the vector rate.
    if (major, minor) in ((8, 0), (9, 0), (10, 0)):
        peak["f64"] *= 2
    print(f"compute capability {major}.{minor}, {sms} SMs at {ghz:.2f} GHz: peak FP32 {peak['f32']:.0f} GFLOP/s "
          f"(no TF32), FP64 {peak['f64']:.0f} GFLOP/s")
else:
    print("device properties not read (see gpu-peak.log): no peak")
for name in sorted(cuda):
    m = re.match(r"matmul/(\d+)x(\d+)/cuda-(f32|f64)$", name)
    if not m:
        continue
    n = int(m.group(1))
    gflops = 2 * n ** 3 / cuda[name] / 1e9
    share = f" = {gflops / peak[m.group(3)] * 100:.0f}% of peak" if m.group(3) in peak else ""
    print(f"{name:32} {gflops:10.0f} GFLOP/s{share}")
EOF
else
    log "(python3 not found: the tables are in cuda-cases.txt and cpu-cases.txt)"
    cat "$out/cuda-cases.txt" "$out/cpu-cases.txt" >> "$summary" 2>/dev/null
fi

section "a CUPTI trace: vitals profile mlp_forward/32x512/cuda-f32"
"$vitals" profile mlp_forward/32x512/cuda-f32 --trace "$out/cuda-trace.json" > "$out/profile.txt" 2> "$out/profile.err" || status=1
cat "$out/profile.txt" >> "$summary"
grep -E 'error|note|warning' "$out/profile.err" | tee -a "$summary"
if command -v python3 >/dev/null && [[ -f $out/cuda-trace.json ]]; then
    python3 - "$out/cuda-trace.json" <<'EOF' | tee -a "$summary"
import json, sys
events = json.load(open(sys.argv[1])).get("traceEvents", [])
kernels = [e for e in events if e.get("cat") == "kernel" and e.get("ph") == "X"]
print(f"kernel rows: {len(kernels)}")
for e in kernels[:40]:
    a = e.get("args", {})
    print(f"  {e['ts']:>16.3f} us {e.get('dur', 0):9.3f} us  stream {a.get('stream')}  grid {a.get('grid')}  "
          f"block {a.get('block')}  {e['name'][:80]}")
EOF
fi
log "== done: status $status"
exit $status
