#!/usr/bin/env bash
# Checks scripts/gpu-check.sh without a GPU, a network or a real build, in seconds:
# stand-ins for nvidia-smi, nvcc, cmake, ctest and the vitals command, a bundle of
# hand-made .deb files (data.tar.xz and data.tar.zst, one with an absolute link) in an
# absolute path, and dpkg-deb hidden from PATH. Three runs: every CUDA test skipped
# (must exit 3 and say why), all passed (exit 0, the summary's sections), one failed
# (exit 1). Usage: scripts/test-gpu-check.sh (exit 0 when every check holds, 77 when
# ar, xz, zstd or tar is missing).
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
check() {  # check DESCRIPTION COMMAND...
    if "${@:2}"; then echo "ok: $1"; else echo "FAILED: $1"; failures=$((failures + 1)); fi
}

for tool in ar xz zstd tar; do
    command -v $tool > /dev/null || { echo "skipped: $tool is not installed"; exit 77; }
done

# --- A bundle of two .deb files, built by hand. ---
make_deb() {  # make_deb NAME COMPRESSOR SUFFIX TREE
    local name=$1 compress=$2 suffix=$3 tree=$4 d=$tmp/deb-$1
    mkdir -p "$d"
    echo "2.0" > "$d/debian-binary"
    tar -c -C "$tree" . | $compress > "$d/data.tar.$suffix"
    tar -c -T /dev/null | $compress > "$d/control.tar.$suffix"
    (cd "$d" && ar rc "$tmp/bundle/${name}_1.0_amd64.deb" debian-binary "control.tar.$suffix" "data.tar.$suffix")
}
mkdir -p "$tmp/bundle" "$tmp/tree-dev/usr/include" "$tmp/tree-dev/usr/lib/x86_64-linux-gnu/cmake/fake" \
    "$tmp/tree-lib/lib/x86_64-linux-gnu"
echo '#define FAKE_H 1' > "$tmp/tree-dev/usr/include/fake.h"
echo 'set(fake_FOUND 1)' > "$tmp/tree-dev/usr/lib/x86_64-linux-gnu/cmake/fake/fake-config.cmake"
ln -s /lib/x86_64-linux-gnu/libfake.so.1 "$tmp/tree-dev/usr/lib/x86_64-linux-gnu/libfake.so"
echo 'not really a library' > "$tmp/tree-lib/lib/x86_64-linux-gnu/libfake.so.1"
make_deb libfake-dev "xz -c" xz "$tmp/tree-dev"
make_deb libfake1 "zstd -q -c" zst "$tmp/tree-lib"

# --- PATH without dpkg-deb: links to every other program on PATH. ---
mkdir -p "$tmp/path" "$tmp/stubs"
IFS=: read -ra dirs <<< "$PATH"
for dir in "${dirs[@]}"; do
    for program in "$dir"/*; do
        name=$(basename "$program")
        [[ $name == dpkg-deb || -e $tmp/path/$name || ! -x $program ]] && continue
        ln -s "$program" "$tmp/path/$name"
    done
done

# --- Stand-ins. STUB_MODE: skipped | passed | failed. ---
cat > "$tmp/stubs/nvidia-smi" << 'EOF'
#!/bin/sh
echo "name, driver_version, memory.total [MiB], clocks.max.sm [MHz]"
echo "Stub GPU, 999.99, 1000 MiB, 1980 MHz"
EOF
cat > "$tmp/stubs/nvcc" << 'EOF'
#!/bin/sh
case "$1" in
    --version) echo "Cuda compilation tools, release 99.9, stub" ;;
    -o) printf '#!/bin/sh\necho "device 132 1980000 9 0"\n' > "$2" && chmod +x "$2" ;;
esac
EOF
cat > "$tmp/stubs/cmake" << 'EOF'
#!/bin/bash
if [[ $1 == --version ]]; then echo "cmake version 3.99 (stub)"; exit 0; fi
if [[ $1 == --build ]]; then
    mkdir -p "$2/bin"
    cp "$STUB_DIR/vitals" "$2/bin/vitals"
    exit 0
fi
printf '%s\n' "$@" > "$STUB_LOG/cmake-args"
EOF
cat > "$tmp/stubs/ctest" << 'EOF'
#!/bin/bash
case $STUB_MODE in
    skipped) kernels="***Skipped"; timer="***Skipped" ;;
    passed) kernels="Passed"; timer="Passed" ;;
    failed) kernels="***Failed"; timer="Passed" ;;
esac
echo "1/5 Test  #1: Stats.Median ...........................   Passed    0.01 sec"
echo "2/5 Test  #2: Kernels/OnCuda.Matmul/f32 ..............   $kernels    0.01 sec"
echo "3/5 Test  #3: TimerOnStream.EventsMeasureTheKernelNotTheLaunch ...   $timer    0.01 sec"
echo "4/5 Test  #4: TimerCuda.StreamTimingNeedsADevice .....   $timer    0.01 sec"
echo "5/5 Test  #5: ProfileWindows.CudaActivityAskedFor ......***Not Run (Disabled)   0.00 sec"
if [[ $STUB_MODE == failed ]]; then echo "75% tests passed, 1 tests failed out of 4"; exit 8; fi
echo "100% tests passed, 0 tests failed out of 4"
EOF
cat > "$tmp/stubs/vitals" << 'EOF'
#!/bin/bash
case $1 in
    timeit) echo "$2: skipped: no usable CUDA device (stub: CUDA driver version is insufficient)" ;;
    run)
        json=""; filter=""
        while [[ $# -gt 0 ]]; do
            case $1 in --json) json=$2; shift ;; --filter) filter=$2; shift ;; esac
            shift
        done
        if [[ $filter == cuda ]]; then
            names="matmul/1024x1024/cuda-f32 mask_indices/1M/cuda-before mask_indices/1M/cuda-after"
            times=(200 2000 100)
        else
            names="matmul/1024x1024/cpu-f32 mask_indices/1M/cpu-before mask_indices/1M/cpu-after"
            times=(20000 1300 150)
        fi
        i=0; entries=""
        for n in $names; do
            entries+="{\"name\": \"$n\", \"run_type\": \"iteration\", \"real_time\": ${times[$i]}, \"time_unit\": \"us\"},"
            entries+="{\"name\": \"${n}_median\", \"run_name\": \"$n\", \"run_type\": \"aggregate\", \"aggregate_name\": \"median\", \"real_time\": ${times[$i]}, \"time_unit\": \"us\"},"
            i=$((i + 1))
        done
        echo "{\"benchmarks\": [${entries%,}]}" > "$json"
        echo "filter: $filter" ;;
    profile)
        while [[ $# -gt 0 ]]; do [[ $1 == --trace ]] && trace=$2; shift; done
        echo "Name  Self CPU  CUDA total"
        echo '{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "ampere_sgemm_32x32", "ts": 1.5, "dur": 3.25, "args": {"stream": 7, "grid": [1, 1, 1], "block": [128, 1, 1]}}]}' > "$trace" ;;
esac
EOF
chmod +x "$tmp/stubs"/*

run_check() {  # run_check MODE: runs gpu-check.sh, returns its status
    rm -rf "$tmp/out-$1" "$tmp/work-$1"
    mkdir -p "$tmp/log-$1"
    (cd "$tmp" && env PATH="$tmp/stubs:$tmp/path" STUB_MODE=$1 STUB_DIR="$tmp/stubs" STUB_LOG="$tmp/log-$1" \
        VITALS_GPU_CHECK_WORK="$tmp/work-$1" bash "$repo/scripts/gpu-check.sh" "$tmp/bundle" "out-$1") \
        > "$tmp/stdout-$1" 2>&1
}

check "dpkg-deb is hidden" bash -c "! PATH='$tmp/path' command -v dpkg-deb"

run_check skipped
status=$?
summary=$tmp/out-skipped/summary.txt
check "every CUDA test skipped: exit 3 (got $status)" test $status -eq 3
check "the output folder is relative to the caller" test -f "$summary"
check "the summary says why" grep -q "every CUDA test skipped.*CUDA driver version is insufficient.*no pass" "$summary"
check "the summary lists the CUDA tests" grep -q "Kernels/OnCuda.Matmul/f32 .*Skipped" "$summary"
check "skipped tests are counted as skipped" grep -q "CUDA tests: 0 passed, 0 failed, 3 skipped" "$summary"
prefix=$tmp/work-skipped/prefix
check "data.tar.xz unpacked without dpkg-deb" test -f "$prefix/usr/include/fake.h"
check "data.tar.zst unpacked without dpkg-deb" test -f "$prefix/lib/x86_64-linux-gnu/libfake.so.1"
check "an absolute link points into the prefix" test "$(readlink "$prefix/usr/lib/x86_64-linux-gnu/libfake.so")" = \
    "$prefix/lib/x86_64-linux-gnu/libfake.so.1"
args=$tmp/log-skipped/cmake-args
check "CMake searches the prefix's multiarch config folder" grep -q "^-DCMAKE_PREFIX_PATH=.*$prefix/usr/lib/x86_64-linux-gnu/cmake" "$args"
check "CMake is given the library architecture" grep -qx -- "-DCMAKE_LIBRARY_ARCHITECTURE=x86_64-linux-gnu" "$args"

run_check passed
status=$?
summary=$tmp/out-passed/summary.txt
check "all passed: exit 0 (got $status)" test $status -eq 0
check "CUDA test counts" grep -q "CUDA tests: 3 passed, 0 failed, 0 skipped" "$summary"
check "a disabled helper test is no failure" bash -c "! grep -q FAILED '$summary'"
if command -v python3 > /dev/null; then
    check "CUDA median beside the CPU one" grep -Eq "matmul/1024x1024/cuda-f32 +200.00 +20000.00 +100.0x" "$summary"
    check "MASK INDICES before/after on the device" grep -q "before 2000.0 us, after 100.0 us: 20.0x" "$summary"
    check "the device's peak" grep -q "peak FP32 66908 GFLOP/s" "$summary"
    check "cuBLAS GFLOP/s against the peak" grep -Eq "matmul/1024x1024/cuda-f32 +10737 GFLOP/s = 16% of peak" "$summary"
    check "the trace's kernel rows" grep -q "ampere_sgemm_32x32" "$summary"
fi

run_check failed
status=$?
check "a failed CUDA test: exit 1 (got $status)" test $status -eq 1
check "the failure is in the summary" grep -q "Kernels/OnCuda.Matmul/f32 .*Failed" "$tmp/out-failed/summary.txt"

# A bundle that cannot be unpacked is an error, not a half-filled prefix.
mkdir -p "$tmp/bad-bundle"
echo "not an archive" > "$tmp/bad-bundle/broken_1.0_amd64.deb"
(cd "$tmp" && env PATH="$tmp/stubs:$tmp/path" STUB_MODE=passed STUB_DIR="$tmp/stubs" STUB_LOG="$tmp" \
    VITALS_GPU_CHECK_WORK="$tmp/work-bad" bash "$repo/scripts/gpu-check.sh" "$tmp/bad-bundle" out-bad) > /dev/null 2>&1
status=$?
check "a broken .deb: exit 1 (got $status)" test $status -eq 1
check "a broken .deb is named" grep -q "cannot unpack $tmp/bad-bundle/broken_1.0_amd64.deb" "$tmp/out-bad/summary.txt"

if [[ $failures -gt 0 ]]; then
    echo "--- gpu-check.sh output (skipped run)"; cat "$tmp/stdout-skipped"
    echo "$failures check(s) failed"
    exit 1
fi
echo "all checks passed"
