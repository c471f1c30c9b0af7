#!/usr/bin/env bash
# One-shot check of vitals' CUDA parts on a machine with an NVIDIA GPU, nvcc and CMake
# but no Debian packages and no network. Prepare with `make gpu-bundle` where apt works,
# bring the repository (with .gpu-bundle/) to the GPU machine, and run:
#
#   scripts/gpu-check.sh [BUNDLE_DIR] [OUTPUT_DIR]
#
# It unpacks the bundled packages into a private prefix, builds with VITALS_CUDA=ON,
# runs the whole test suite (the CUDA tests included), runs every CUDA case, and writes
# OUTPUT_DIR/summary.txt with the device, the test results and the CUDA Compare tables.
# Exit status: 0 all good, 1 a build or test failed, 2 no usable GPU.
set -uo pipefail
cd "$(dirname "$0")/.."
bundle=${1:-.gpu-bundle}
out=${2:-${OUT:-gpu-check-out}}
mkdir -p "$out"
summary="$out/summary.txt"
log() { echo "$*" | tee -a "$summary"; }
: > "$summary"

log "== vitals GPU check, $(date -u +%Y-%m-%dT%H:%M:%SZ), commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
if command -v nvidia-smi >/dev/null; then
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv | tee -a "$summary"
else
    log "nvidia-smi: not found"
    [[ ${VITALS_GPU_CHECK_ALLOW_NO_GPU:-0} == 1 ]] || { log "no GPU here: nothing to check"; exit 2; }
fi
log "nvcc: $(nvcc --version | tail -1)"
log "cmake: $(cmake --version | head -1)"

# Unpack the bundle into a prefix of our own; nothing is installed system-wide.
prefix=$(mktemp -d)/prefix
mkdir -p "$prefix"
shopt -s nullglob
debs=("$bundle"/*.deb)
[[ ${#debs[@]} -gt 0 ]] || { log "no .deb files in $bundle: run 'make gpu-bundle' first"; exit 1; }
for deb in "${debs[@]}"; do
    if command -v dpkg-deb >/dev/null; then
        dpkg-deb -x "$deb" "$prefix"
    else  # a .deb is an ar archive holding data.tar.*
        (cd "$prefix" && ar p "$OLDPWD/$deb" "$(ar t "$OLDPWD/$deb" | grep '^data.tar')" | tar -x)
    fi
done
export PATH="$prefix/usr/bin:$PATH"
generator=$(command -v ninja >/dev/null && echo Ninja || echo "Unix Makefiles")
log "bundle: ${#debs[@]} packages unpacked into $prefix; generator: $generator"

build=build-gpu
rm -rf "$build"  # a cache from another prefix would point at packages no longer there
status=0
cmake -S . -B "$build" -G "$generator" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix/usr" \
    -DVITALS_CUDA=ON -DVITALS_FMT_HEADER_ONLY=ON -DVITALS_BUILD_BENCHES=OFF -DVITALS_INSTALL=OFF \
    > "$out/configure.log" 2>&1 || { log "configure FAILED (see configure.log)"; tail -20 "$out/configure.log"; exit 1; }
cmake --build "$build" -j "$(nproc)" > "$out/build.log" 2>&1 || { log "build FAILED (see build.log)"; tail -30 "$out/build.log"; exit 1; }
log "build: ok"

ctest --test-dir "$build" --output-on-failure -j "$(nproc)" > "$out/ctest.log" 2>&1 || status=1
log "tests: $(grep -E 'tests passed' "$out/ctest.log")"
grep -E 'Skipped|Failed' "$out/ctest.log" | sed 's/^/  /' | tee -a "$summary"

log "== every CUDA case (vitals run --filter cuda)"
"$build/bin/vitals" run --filter cuda --json "$out/cuda-cases.json" > "$out/cuda-cases.txt" 2> "$out/cuda-cases.err" || status=1
cat "$out/cuda-cases.txt" >> "$summary"
grep -E 'error' "$out/cuda-cases.err" | tee -a "$summary"
log "== done: status $status"
exit $status
