// The kernel set under an independent harness (Google Benchmark), each case beside what
// it is judged by, timed in turns with it in the same case (time_in_turns):
//   - matmul through vitals' tensors against the same Eigen product written directly
//     (the tensor layer should add nothing);
//   - relu, masks and nonzero against a copy of the same number of bytes (bytes moved =
//     bytes read + bytes written; the faster of memcpy and a plain vector copy; the ratio
//     is printed at the end, of the medians when run with --benchmark_repetitions=N, and
//     refused where the yardstick is doubted);
//   - the nonzero cases again on two intra-op threads, against the same copies;
//   - MASK INDICES before against after.
// Device variants time with CUDA events (UseManualTime) and skip without a GPU. The
// harness is time_in_turns.hpp, the yardsticks copy_yardsticks.hpp, the ratios printed at
// the end ratio_reporter.cpp.
#include <benchmark/benchmark.h>

#include <Eigen/Core>
#include <string>
#include <thread>
#include <vitals/threads.hpp>
#include <vitals/kernels/kernels.hpp>
#include <vitals/vitals.hpp>

#include "copy_yardsticks.hpp"
#include "kernel_cases.hpp"
#include "ratio_reporter.hpp"
#include "scan/staged_hits.hpp"
#include "time_in_turns.hpp"

namespace {

namespace k = vitals::kernels;
using k::Device;
using k::DType;
using k::Tensor;
using vitals::benches::kAfterSecondsCounter;
using vitals::benches::kEigenSecondsCounter;
using vitals::benches::kNonzeroPercents;
using vitals::benches::kSharedThreads;
using vitals::benches::kSizes;
using vitals::benches::time_against_copies;
using vitals::benches::time_in_turns;

// ---- matmul: through Tensor vs Eigen directly --------------------------------------------

// k::matmul through tensors, in turns with the same Eigen product of the same data into
// a result allocated once (a fresh Matrix per call would time glibc's mmap and page
// faults, which the tensors' block cache avoids): their ratio is what the tensor layer
// costs (1.00: nothing).
template <class T>
void BM_TensorMatmul(benchmark::State& state) {
    using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    const auto n = state.range(0);
    const Tensor x = Tensor::randn({n, n}, k::dtype_of<T>(), Device::cpu, 1);
    const Tensor y = Tensor::randn({n, n}, k::dtype_of<T>(), Device::cpu, 2);
    const Eigen::Map<const Matrix> eigen_x(x.data<T>(), n, n), eigen_y(y.data<T>(), n, n);
    Matrix z(n, n);
    const auto [eigen_seconds] = time_in_turns(
        state, [&] { benchmark::DoNotOptimize(k::matmul(x, y).raw_data()); },
        [&] {
            z.noalias() = eigen_x * eigen_y;
            benchmark::DoNotOptimize(z.data());
        });
    state.counters[kEigenSecondsCounter] = benchmark::Counter(eigen_seconds);
}

BENCHMARK(BM_TensorMatmul<float>)->Arg(128)->Arg(512)->Arg(1024)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_TensorMatmul<double>)->Arg(128)->Arg(512)->UseManualTime()->Unit(benchmark::kMicrosecond);

// ---- bandwidth-bound ops against memcpy of the same bytes ------------------------------

void BM_Relu(benchmark::State& state) {
    const Tensor x = Tensor::randn({32, 1024}, DType::f32, Device::cpu, 1);
    time_against_copies(state, [&] {
        const Tensor y = k::relu(x);
        benchmark::DoNotOptimize(y.raw_data());
        return static_cast<std::int64_t>(x.nbytes() + y.nbytes());
    });
}

// x > t of range(1) floats into a mask of dtype range(0).
void BM_Mask(benchmark::State& state) {
    const auto mask_dtype = static_cast<DType>(state.range(0));
    const Tensor x = Tensor::randn({state.range(1)}, mask_dtype == DType::f64 ? DType::f64 : DType::f32, Device::cpu, 1);
    const double t = k::density_threshold(0.5);
    time_against_copies(state, [&] {
        const Tensor mask = k::gt(x, t, mask_dtype);
        benchmark::DoNotOptimize(mask.raw_data());
        return static_cast<std::int64_t>(x.nbytes() + mask.nbytes());
    });
}

// nonzero of a bool mask of the given shape with range(0) percent hits; bytes moved are
// the mask's and the result's.
void time_nonzero(benchmark::State& state, const k::Shape& shape) {
    const Tensor x = Tensor::randn(shape, DType::f32, Device::cpu, 1);
    const Tensor mask = k::gt(x, k::density_threshold(static_cast<double>(state.range(0)) / 100.0));
    time_against_copies(state, [&] {
        const Tensor indices = k::nonzero(mask);
        benchmark::DoNotOptimize(indices.raw_data());
        return static_cast<std::int64_t>(mask.nbytes() + indices.nbytes());
    });
}

// nonzero of a bool mask of range(1) elements with range(0) percent hits.
void BM_Nonzero(benchmark::State& state) { time_nonzero(state, {state.range(1)}); }

// The same on a 1024 x 1024 mask: two coordinates a row.
constexpr std::int64_t kSide = 1024;
void BM_Nonzero2D(benchmark::State& state) { time_nonzero(state, {kSide, kSide}); }

// The same 1-D nonzero through the scan's baseline path (AVX2 in the default build), as
// ops.cpp writes it: what a CPU without AVX-512 VBMI2 runs. Skipped where the best path
// is the baseline already (the row above measures it; VITALS_MAX_CPU_ISA=avx2 makes it so
// for every op here).
void BM_NonzeroBaseline(benchmark::State& state) {
    namespace scan = vitals::kernels::scan;
    if (!scan::avx512_vbmi2_allowed()) {
        state.SkipWithError("skipped: this CPU runs the baseline path in BM_Nonzero");
        return;
    }
    const std::int64_t n = state.range(1);
    const Tensor x = Tensor::randn({n}, DType::f32, Device::cpu, 1);
    const Tensor mask = k::gt(x, k::density_threshold(static_cast<double>(state.range(0)) / 100.0));
    time_against_copies(state, [&] {
        const scan::StagedHits hits(mask.data<bool>(), n, scan::ScanPath::baseline);
        Tensor indices = Tensor::empty({hits.count(), 1}, DType::i64, Device::cpu);
        hits.write_indices(indices.data<std::int64_t>());
        benchmark::DoNotOptimize(indices.raw_data());
        return static_cast<std::int64_t>(mask.nbytes() + indices.nbytes());
    });
}

// masked_select of 1M floats by a bool mask with range(0) percent hits.
void BM_MaskedSelect(benchmark::State& state) {
    const Tensor x = Tensor::randn({kSizes[0]}, DType::f32, Device::cpu, 1);
    const Tensor mask = k::gt(Tensor::randn({kSizes[0]}, DType::f32, Device::cpu, 2),
                              k::density_threshold(static_cast<double>(state.range(0)) / 100.0));
    time_against_copies(state, [&] {
        const Tensor selected = k::masked_select(x, mask);
        benchmark::DoNotOptimize(selected.raw_data());
        return static_cast<std::int64_t>(mask.nbytes() + x.nbytes() + selected.nbytes());
    });
}

// The 1M cases on two intra-op threads (a Timer's num_threads = 2), which share the
// scan's blocks: `time` runs under that thread count, or the case is skipped on a
// one-core machine, where two threads only take turns.
template <class Time>
void on_shared_threads(benchmark::State& state, Time&& time) {
    if (std::thread::hardware_concurrency() < static_cast<unsigned>(kSharedThreads)) {
        state.SkipWithError("skipped: this machine has one core");
        return;
    }
    const vitals::ThreadCountScope threads(kSharedThreads);
    time();
}
void BM_NonzeroTwoThreads(benchmark::State& state) {
    on_shared_threads(state, [&] { time_nonzero(state, {kSizes[0]}); });
}
void BM_Nonzero2DTwoThreads(benchmark::State& state) {
    on_shared_threads(state, [&] { time_nonzero(state, {kSide, kSide}); });
}
void BM_MaskedSelectTwoThreads(benchmark::State& state) {
    on_shared_threads(state, [&] { BM_MaskedSelect(state); });
}

BENCHMARK(BM_Relu)->UseManualTime();
BENCHMARK(BM_Mask)
    ->ArgsProduct({{static_cast<int>(DType::boolean), static_cast<int>(DType::f32), static_cast<int>(DType::f64)},
                   {kSizes[0], kSizes[1]}})
    ->UseManualTime();
BENCHMARK(BM_Nonzero)->ArgsProduct({{kNonzeroPercents[0], kNonzeroPercents[1]}, {kSizes[0], kSizes[1]}})->UseManualTime();
BENCHMARK(BM_NonzeroBaseline)->ArgsProduct({{kNonzeroPercents[0], kNonzeroPercents[1]}, {kSizes[0]}})->UseManualTime();
BENCHMARK(BM_Nonzero2D)->Arg(kNonzeroPercents[0])->Arg(kNonzeroPercents[1])->UseManualTime();
BENCHMARK(BM_MaskedSelect)->Arg(kNonzeroPercents[0])->Arg(kNonzeroPercents[1])->UseManualTime();
BENCHMARK(BM_NonzeroTwoThreads)->Arg(kNonzeroPercents[0])->Arg(kNonzeroPercents[1])->UseManualTime();
BENCHMARK(BM_Nonzero2DTwoThreads)->Arg(kNonzeroPercents[0])->Arg(kNonzeroPercents[1])->UseManualTime();
BENCHMARK(BM_MaskedSelectTwoThreads)->Arg(kNonzeroPercents[0])->Arg(kNonzeroPercents[1])->UseManualTime();

// ---- MASK INDICES: before and after -----------------------------------------------------

// MASK INDICES "before" at range(0) percent hits, in turns with "after".
void BM_MaskIndices(benchmark::State& state) {
    const double density = static_cast<double>(state.range(0)) / 100.0;
    const k::MaskIndices workload(1 << 20, Device::cpu, density);
    const auto [after_seconds] = time_in_turns(
        state, [&] { benchmark::DoNotOptimize(workload.before().raw_data()); },
        [&] { benchmark::DoNotOptimize(workload.after().raw_data()); });
    state.counters[kAfterSecondsCounter] = benchmark::Counter(after_seconds);
}
BENCHMARK(BM_MaskIndices)->Arg(10)->Arg(50)->ArgNames({"pct"})->UseManualTime()->Unit(benchmark::kMicrosecond);

// ---- CUDA: the same ops on a device, timed with CUDA events ------------------------------

void BM_CudaMatmul(benchmark::State& state) {
    if (const std::string reason = vitals::cuda_unavailable_reason(); !reason.empty()) {
        state.SkipWithError(("skipped: " + reason).c_str());
        return;
    }
    const auto n = state.range(0);
    const Tensor x = Tensor::randn({n, n}, DType::f32, Device::cuda, 1);
    const Tensor y = Tensor::randn({n, n}, DType::f32, Device::cuda, 2);
    vitals::Timer timer({.stmt = [&] { benchmark::DoNotOptimize(k::matmul(x, y).raw_data()); },
                         .cuda_stream = k::current_stream()});
    for (auto _ : state) state.SetIterationTime(timer.timeit(10).median());
}
BENCHMARK(BM_CudaMatmul)->Arg(1024)->UseManualTime()->Unit(benchmark::kMicrosecond);

void BM_CudaMaskIndices(benchmark::State& state) {
    if (const std::string reason = vitals::cuda_unavailable_reason(); !reason.empty()) {
        state.SkipWithError(("skipped: " + reason).c_str());
        return;
    }
    const bool after = state.range(0) == 1;
    const k::MaskIndices workload(1 << 20, Device::cuda, 0.5);
    vitals::Timer timer({.stmt = [&] { benchmark::DoNotOptimize((after ? workload.after() : workload.before()).raw_data()); },
                         .cuda_stream = k::current_stream()});
    for (auto _ : state) state.SetIterationTime(timer.timeit(10).median());
}
BENCHMARK(BM_CudaMaskIndices)->Arg(0)->Arg(1)->UseManualTime()->Unit(benchmark::kMicrosecond);

}  // namespace

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    // One thread, as a Timer measures by default (num_threads = 1) and as memcpy runs:
    // on a shared 2-core machine a 2-thread product mostly measures the other tenant.
    const vitals::ThreadCountScope one_thread(1);
    vitals::benches::RatioReporter reporter;
    benchmark::RunSpecifiedBenchmarks(&reporter);
    reporter.print_ratios();
    benchmark::Shutdown();
}
