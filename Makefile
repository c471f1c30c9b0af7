# The two commands a new user runs: `make demo` and `make test`. Both install the
# Debian packages vitals needs (when root; otherwise they print the apt-get line),
# configure, and build with all cores.

BUILD_DIR ?= build
BUILD_TYPE ?= Release
JOBS ?= $(shell nproc)
CMAKE_ARGS ?=

DEB_PACKAGES := cmake ninja-build g++ make libeigen3-dev libboost-dev libgtest-dev libgmock-dev \
                libbenchmark-dev nlohmann-json3-dev libcli11-dev libfmt-dev zlib1g-dev valgrind clang \
                libclang-rt-14-dev libre2-dev libsqlite3-dev libpq-dev libsimdjson-dev

# What the tests check against (not dependencies of vitals): a real MPI launcher, Google
# Benchmark's compare.py (with the numpy and scipy it imports), a browser for the HTML, a
# PostgreSQL server for the history's tests (started by the tests themselves), pkg-config
# for the installed .pc files.
TEST_DEB_PACKAGES := openmpi-bin libbenchmark-tools python3-numpy python3-scipy python3-pandas python3-venv chromium \
                     postgresql pkgconf

# For scripts/gpu-check.sh on a GPU machine without Debian packages: header-only or
# static libraries only, so nothing needs a shared library of this system there.
GPU_BUNDLE_DIR ?= .gpu-bundle
GPU_BUNDLE_PACKAGES := libeigen3-dev libboost1.74-dev googletest libgtest-dev libfmt-dev libfmt9 nlohmann-json3-dev \
                       libcli11-dev ninja-build libre2-dev zlib1g-dev zlib1g libsqlite3-dev libsqlite3-0 \
                       libsimdjson-dev libsimdjson14

# Sanitizer builds: the CPU build (no CUDA: its runtime is not instrumented) with
# AddressSanitizer + UndefinedBehaviorSanitizer (plus float-cast-overflow, which GCC's
# "undefined" leaves out: numbers from outside files must never reach such a cast), and
# with ThreadSanitizer.
# The checks against outside tools ran in the main build already. -O1, as the sanitizers'
# own docs advise (a third less compile time than -O2 here), and line tables only (-g1):
# enough for the sanitizers' stack traces, and faster to build than full debug info.
# Warnings are errors here (GCC) and in the fuzz builds (clang), which use these flags
# too: CI fails on a new warning of either compiler without a build of its own (and CI's
# `make test CMAKE_ARGS=-DVITALS_WERROR=ON` on one at -O3).
SANITIZE_FLAGS := -DCMAKE_BUILD_TYPE=RelWithDebInfo '-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG' -DVITALS_CUDA=OFF -DVITALS_INSTALL=OFF -DVITALS_BUILD_BENCHES=OFF \
                  -DVITALS_TEST_OUTSIDE_TOOLS=OFF -DVITALS_WERROR=ON

FUZZ_SECONDS ?= 60
FUZZ_TARGETS := results_reader chrome_trace_reader schedule cli merge filter output_path

.PHONY: all deps test-deps configure build test test-sanitize test-tsan fuzz-build fuzz-smoke fuzz demo bench figures check-machine install gpu-bundle clean

all: build

deps:
	@scripts/install-deps.sh $(DEB_PACKAGES)

configure: deps
	cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(CMAKE_ARGS)

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

test-deps:
	@scripts/install-deps.sh $(TEST_DEB_PACKAGES)

# The outside tools were just installed: a test that finds one missing fails, not skips.
# The tests keep their temporary files in the build's test-tmp folders, emptied first; the
# system's temporary folder must gain nothing (scripts/leaves-nothing.sh).
test: build fuzz-build test-deps
	rm -rf $(BUILD_DIR)/test-tmp build-fuzz/test-tmp && mkdir -p $(BUILD_DIR)/test-tmp build-fuzz/test-tmp
	VITALS_REQUIRE_OUTSIDE_TOOLS=1 scripts/leaves-nothing.sh ctest --test-dir $(BUILD_DIR) --output-on-failure -j $(JOBS)
	scripts/leaves-nothing.sh ctest --test-dir build-fuzz --output-on-failure -j $(JOBS)

# The libFuzzer targets, built with clang (CPU build, ASan + UBSan).
fuzz-build: deps
	cmake -S . -B build-fuzz -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DVITALS_FUZZ=ON $(SANITIZE_FLAGS) -DVITALS_BUILD_TESTS=OFF
	cmake --build build-fuzz -j $(JOBS)

fuzz-smoke: fuzz-build
	ctest --test-dir build-fuzz --output-on-failure -j $(JOBS)

# Each target for FUZZ_SECONDS from its seeds, JOBS at a time; new inputs stay in
# build-fuzz; any finding fails (CI runs this for 60 s a target).
fuzz: fuzz-build
	scripts/fuzz.sh $(FUZZ_SECONDS) $(JOBS) $(FUZZ_TARGETS)

# Line coverage of each target's parser from its seeds (clang's source-based coverage,
# no sanitizers: only the corpus is replayed). Goal: FUZZ_COVERAGE_MIN percent of the
# parsers' lines; a check to run by hand, not part of `test`. llvm-14 brings llvm-cov
# and llvm-profdata, which clang only recommends.
FUZZ_COVERAGE_MIN ?= 90
.PHONY: fuzz-coverage
fuzz-coverage: deps
	@scripts/install-deps.sh llvm-14
	cmake -S . -B build-fuzz-cov -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DVITALS_FUZZ=ON -DVITALS_FUZZ_COVERAGE=ON $(SANITIZE_FLAGS) -DVITALS_BUILD_TESTS=OFF
	cmake --build build-fuzz-cov -j $(JOBS) --target $(addprefix fuzz_,$(FUZZ_TARGETS))
	FUZZ_COVERAGE_MIN=$(FUZZ_COVERAGE_MIN) scripts/fuzz-coverage.sh build-fuzz-cov $(FUZZ_TARGETS)

test-sanitize: deps
	cmake -S . -B build-asan -G Ninja $(SANITIZE_FLAGS) -DVITALS_SANITIZE=address,undefined,float-cast-overflow
	cmake --build build-asan -j $(JOBS)
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
		ctest --test-dir build-asan --output-on-failure -j $(JOBS)

test-tsan: deps
	cmake -S . -B build-tsan -G Ninja $(SANITIZE_FLAGS) -DVITALS_SANITIZE=thread
	cmake --build build-tsan -j $(JOBS)
	# OMP_NUM_THREADS=1: libgomp is not instrumented, so TSan cannot see OpenMP's
	# barriers inside Eigen's parallel products; vitals' own threads are what it checks.
	OMP_NUM_THREADS=1 TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
		ctest --test-dir build-tsan --output-on-failure -j $(JOBS)

# Only what the tour needs: the libraries, the `vitals` command and the tour itself
# (tests, benches and fuzz targets are built by `make test` and `make bench`).
demo: configure
	cmake --build $(BUILD_DIR) -j $(JOBS) --target vitals_cli vitals_tour
	$(BUILD_DIR)/bin/vitals_tour $(BUILD_DIR)/tour

bench: build
	$(BUILD_DIR)/bin/vitals_bench_timer
	$(BUILD_DIR)/bin/vitals_bench_kernels
	$(BUILD_DIR)/bin/vitals_bench_profiler
	$(BUILD_DIR)/bin/vitals_bench_stop_rules

# docs/performance.md, regenerated from a run of the benches.
figures: build
	scripts/figures.sh $(BUILD_DIR)

# vitals machine's figures set beside likwid-bench's on this machine (Debian's likwid), as
# ratios (goal: within 10%); VITALS_MAX_CPU_ISA=avx2 checks the AVX2 path. A few minutes,
# on a quiet machine; not part of `test`.
check-machine: build
	@scripts/install-deps.sh likwid jq
	scripts/check-machine.sh $(BUILD_DIR)/bin/vitals

install: build
	cmake --install $(BUILD_DIR) $(if $(PREFIX),--prefix $(PREFIX))

gpu-bundle:
	scripts/gpu-bundle.sh $(GPU_BUNDLE_DIR) $(GPU_BUNDLE_PACKAGES)

clean:
	rm -rf $(BUILD_DIR)
