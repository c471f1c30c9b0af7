// The kernel set under an independent harness (Google Benchmark), beside the yardsticks
// its speed is judged by:
//   - matmul through vitals' tensors against the same Eigen product written directly
//     (the tensor layer should add nothing);
//   - relu, masks and nonzero against a copy of the same number of bytes, in the same run
//     (bytes moved = bytes read + bytes written; the faster of memcpy and a plain vector
//     copy; the ratio is printed at the end, of the medians when run with
//     --benchmark_repetitions=N, and refused where the yardstick is doubted);
//   - the nonzero cases again on two intra-op threads, against the same copies;
//   - MASK INDICES before against after.
// Device variants time with CUDA events (UseManualTime) and skip without a GPU.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <Eigen/Core>
#include <cstring>
#include <map>
#include <set>
#include <thread>
#include <vitals/threads.hpp>
#include <vitals/kernels/kernels.hpp>
#include <vitals/vitals.hpp>

#include "nonzero_scan.hpp"
#include "yardstick.hpp"

namespace {

namespace k = vitals::kernels;
using k::Device;
using k::DType;
using k::Tensor;

// ---- matmul: Eigen directly vs through Tensor ------------------------------------------

template <class T>
void BM_EigenMatmul(benchmark::State& state) {
    using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    const auto n = state.range(0);
    const Matrix x = Matrix::Random(n, n), y = Matrix::Random(n, n);
    // The result is allocated once: a fresh 1 MB Matrix per call would time glibc's
    // mmap and page faults (+35% at 512x512 float), which the tensors' block cache avoids.
    Matrix z(n, n);
    for (auto _ : state) {
        z.noalias() = x * y;
        benchmark::DoNotOptimize(z.data());
    }
}

template <class T>
void BM_TensorMatmul(benchmark::State& state) {
    const auto n = state.range(0);
    const Tensor x = Tensor::randn({n, n}, k::dtype_of<T>(), Device::cpu, 1);
    const Tensor y = Tensor::randn({n, n}, k::dtype_of<T>(), Device::cpu, 2);
    for (auto _ : state) benchmark::DoNotOptimize(k::matmul(x, y).raw_data());
}

BENCHMARK(BM_EigenMatmul<float>)->Arg(128)->Arg(512)->Arg(1024)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_TensorMatmul<float>)->Arg(128)->Arg(512)->Arg(1024)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_EigenMatmul<double>)->Arg(128)->Arg(512)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_TensorMatmul<double>)->Arg(128)->Arg(512)->Unit(benchmark::kMicrosecond);

// ---- bandwidth-bound ops against memcpy of the same bytes ------------------------------

// A copy's source and destination in one allocation, the destination half a page past
// a page boundary from the source. Two separate buffers of 128 KiB or more are mapped
// page-aligned, so every load aliases a store of the same page offset (4 KiB aliasing):
// a 256 KiB memcpy once ran at 5.6 GB/s beside 50-65 GB/s at the other sizes.
class CopyBuffers {
public:
    explicit CopyBuffers(std::size_t bytes)
        : bytes_(bytes), storage_(2 * round_up(bytes) + kPage + kPage / 2, 1) {}
    const char* from() const { return align(storage_.data()); }
    char* to() { return align(storage_.data()) + round_up(bytes_) + kPage / 2; }
    std::size_t bytes() const { return bytes_; }

private:
    static constexpr std::size_t kPage = 4096;
    static std::size_t round_up(std::size_t n) { return (n + kPage - 1) / kPage * kPage; }
    static char* align(const char* p) {
        const auto address = reinterpret_cast<std::uintptr_t>(p);
        return reinterpret_cast<char*>((address + kPage - 1) / kPage * kPage);
    }
    std::size_t bytes_;
    std::vector<char> storage_;
};

// memcpy of `bytes_moved / 2` bytes moves `bytes_moved` (it reads and writes each byte).
void BM_Memcpy(benchmark::State& state) {
    CopyBuffers buffers(static_cast<std::size_t>(state.range(0) / 2));
    for (auto _ : state) {
        std::memcpy(buffers.to(), buffers.from(), buffers.bytes());
        benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(state.iterations() * state.range(0));
}

// The second yardstick: a plain loop of 32-byte vector copies, which the compiler keeps as
// loads and stores (a libc memcpy may pick non-temporal stores, or a slow path, at some
// sizes). Each ratio is taken against the faster of the two.
void BM_VectorCopy(benchmark::State& state) {
    CopyBuffers buffers(static_cast<std::size_t>(state.range(0) / 2));
    using Lane = std::uint64_t __attribute__((vector_size(32), aligned(1)));
    for (auto _ : state) {
        const char* from = buffers.from();
        char* to = buffers.to();
        const std::size_t whole = buffers.bytes() / sizeof(Lane) * sizeof(Lane);
        for (std::size_t i = 0; i < whole; i += sizeof(Lane)) {
            *reinterpret_cast<Lane*>(to + i) = *reinterpret_cast<const Lane*>(from + i);
        }
        std::memcpy(to + whole, from + whole, buffers.bytes() - whole);
        benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(state.iterations() * state.range(0));
}

void BM_Relu(benchmark::State& state) {
    const Tensor x = Tensor::randn({32, 1024}, DType::f32, Device::cpu, 1);
    for (auto _ : state) benchmark::DoNotOptimize(k::relu(x).raw_data());
    state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(2 * x.nbytes()));
}

// The sizes the registered cases use: 1M elements (the mask fits in L2) and 16M (in L3
// with its result, or beyond).
constexpr std::int64_t kSizes[] = {1 << 20, 1 << 24};

// x > t of range(1) floats into a mask of dtype range(0).
void BM_Mask(benchmark::State& state) {
    const auto mask_dtype = static_cast<DType>(state.range(0));
    const Tensor x = Tensor::randn({state.range(1)}, mask_dtype == DType::f64 ? DType::f64 : DType::f32, Device::cpu, 1);
    const double t = k::density_threshold(0.5);
    std::size_t written = 0;
    for (auto _ : state) {
        const Tensor mask = k::gt(x, t, mask_dtype);
        written = mask.nbytes();
        benchmark::DoNotOptimize(mask.raw_data());
    }
    state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(x.nbytes() + written));
}

// nonzero of a bool mask of the given shape with range(0) percent hits; bytes moved are
// the mask's and the result's.
void time_nonzero(benchmark::State& state, const k::Shape& shape) {
    const Tensor x = Tensor::randn(shape, DType::f32, Device::cpu, 1);
    const Tensor mask = k::gt(x, k::density_threshold(static_cast<double>(state.range(0)) / 100.0));
    std::size_t written = 0;
    for (auto _ : state) {
        const Tensor indices = k::nonzero(mask);
        written = indices.nbytes();
        benchmark::DoNotOptimize(indices.raw_data());
    }
    state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(mask.nbytes() + written));
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
    namespace scan = vitals::kernels::nonzero_scan;
    if (!scan::avx512_vbmi2_allowed()) {
        state.SkipWithError("skipped: this CPU runs the baseline path in BM_Nonzero");
        return;
    }
    const std::int64_t n = state.range(1);
    const Tensor x = Tensor::randn({n}, DType::f32, Device::cpu, 1);
    const Tensor mask = k::gt(x, k::density_threshold(static_cast<double>(state.range(0)) / 100.0));
    std::size_t written = 0;
    for (auto _ : state) {
        const scan::StagedHits hits(mask.data<bool>(), n, scan::ScanPath::baseline);
        Tensor indices = Tensor::empty({hits.count(), 1}, DType::i64, Device::cpu);
        hits.write_indices(indices.data<std::int64_t>());
        written = indices.nbytes();
        benchmark::DoNotOptimize(indices.raw_data());
    }
    state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(mask.nbytes() + written));
}

// masked_select of 1M floats by a bool mask with range(0) percent hits.
void BM_MaskedSelect(benchmark::State& state) {
    const Tensor x = Tensor::randn({kSizes[0]}, DType::f32, Device::cpu, 1);
    const Tensor mask = k::gt(Tensor::randn({kSizes[0]}, DType::f32, Device::cpu, 2),
                              k::density_threshold(static_cast<double>(state.range(0)) / 100.0));
    std::size_t written = 0;
    for (auto _ : state) {
        const Tensor selected = k::masked_select(x, mask);
        written = selected.nbytes();
        benchmark::DoNotOptimize(selected.raw_data());
    }
    state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(mask.nbytes() + x.nbytes() + written));
}

// The 1M cases on two intra-op threads (a Timer's num_threads = 2), which share the
// scan's blocks: `time` runs under that thread count, or the case is skipped on a
// one-core machine, where two threads only take turns.
constexpr int kSharedThreads = 2;
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

// Bytes moved by each op above, so memcpy is measured on the same amount.
constexpr std::int64_t kReluBytes = 2 * 32 * 1024 * 4;
constexpr std::int64_t mask_bytes(DType mask_dtype, std::int64_t n) {
    switch (mask_dtype) {
        case DType::boolean: return (4 + 1) * n;
        case DType::f64: return (8 + 8) * n;
        default: return (4 + 4) * n;
    }
}
constexpr std::int64_t nonzero_bytes(std::int64_t percent, std::int64_t n) { return n + 8 * (n * percent / 100); }
constexpr std::int64_t nonzero_2d_bytes(std::int64_t percent) { return kSide * kSide + 16 * (kSide * kSide * percent / 100); }
constexpr std::int64_t masked_select_bytes(std::int64_t percent) { return (1 + 4) * kSizes[0] + 4 * (kSizes[0] * percent / 100); }
constexpr DType kMaskDtypes[] = {DType::boolean, DType::f32, DType::f64};
constexpr std::int64_t kNonzeroPercents[] = {10, 50};

BENCHMARK(BM_Relu);
BENCHMARK(BM_Mask)->ArgsProduct({{static_cast<int>(DType::boolean), static_cast<int>(DType::f32), static_cast<int>(DType::f64)},
                                 {kSizes[0], kSizes[1]}});
BENCHMARK(BM_Nonzero)->ArgsProduct({{kNonzeroPercents[0], kNonzeroPercents[1]}, {kSizes[0], kSizes[1]}});
BENCHMARK(BM_NonzeroBaseline)->ArgsProduct({{kNonzeroPercents[0], kNonzeroPercents[1]}, {kSizes[0]}});
BENCHMARK(BM_Nonzero2D)->Arg(kNonzeroPercents[0])->Arg(kNonzeroPercents[1]);
BENCHMARK(BM_MaskedSelect)->Arg(kNonzeroPercents[0])->Arg(kNonzeroPercents[1]);
BENCHMARK(BM_NonzeroTwoThreads)->Arg(kNonzeroPercents[0])->Arg(kNonzeroPercents[1]);
BENCHMARK(BM_Nonzero2DTwoThreads)->Arg(kNonzeroPercents[0])->Arg(kNonzeroPercents[1]);
BENCHMARK(BM_MaskedSelectTwoThreads)->Arg(kNonzeroPercents[0])->Arg(kNonzeroPercents[1]);
// The byte counts the ops above move, each measured by both yardsticks.
std::set<std::int64_t> yardstick_sizes() {
    std::set<std::int64_t> sizes{kReluBytes};  // a bool mask and nonzero at 50% move the same bytes
    for (const std::int64_t n : kSizes) {
        for (const DType dtype : kMaskDtypes) sizes.insert(mask_bytes(dtype, n));
        for (const std::int64_t percent : kNonzeroPercents) sizes.insert(nonzero_bytes(percent, n));
    }
    for (const std::int64_t percent : kNonzeroPercents) {
        sizes.insert(nonzero_2d_bytes(percent));
        sizes.insert(masked_select_bytes(percent));
    }
    return sizes;
}

void register_yardsticks() {
    for (const std::int64_t bytes : yardstick_sizes()) {
        benchmark::RegisterBenchmark("BM_Memcpy", BM_Memcpy)->Arg(bytes);
        benchmark::RegisterBenchmark("BM_VectorCopy", BM_VectorCopy)->Arg(bytes);
    }
}

// ---- MASK INDICES: before and after -----------------------------------------------------

void BM_MaskIndices(benchmark::State& state) {
    const bool after = state.range(0) == 1;
    const double density = static_cast<double>(state.range(1)) / 100.0;
    const k::MaskIndices workload(1 << 20, Device::cpu, density);
    for (auto _ : state) benchmark::DoNotOptimize((after ? workload.after() : workload.before()).raw_data());
}
BENCHMARK(BM_MaskIndices)->ArgsProduct({{0, 1}, {10, 50}})->ArgNames({"after", "pct"})->Unit(benchmark::kMicrosecond);

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

// ---- the ratios the acceptance criteria speak of -----------------------------------------

// Remembers every run's figures while printing as usual.
class RatioReporter : public benchmark::ConsoleReporter {
public:
    void ReportRuns(const std::vector<Run>& runs) override {
        for (const Run& run : runs) {
            if (run.error_occurred) continue;
            // With --benchmark_repetitions, the median of the repetitions stands for the
            // benchmark; without, its one run does.
            const bool median = run.run_type == Run::RT_Aggregate && run.aggregate_name == "median";
            if (run.run_type == Run::RT_Aggregate && !median) continue;
            const std::string name = run.run_name.str();
            if (!median && medians_.count(name) != 0) continue;
            if (median) medians_.insert(name);
            times_[name] = run.GetAdjustedRealTime();
            const auto bytes = run.counters.find("bytes_per_second");
            if (bytes != run.counters.end()) bytes_per_second_[name] = bytes->second.value;
        }
        ConsoleReporter::ReportRuns(runs);
    }

    void print_ratios() const {
        if (times_.empty()) return;  // --benchmark_list_tests, or a filter that matched nothing
        fmt::print("\nmatmul through Tensor / Eigen directly (1.00 = no overhead):\n");
        for (const char* n : {"128", "512", "1024"}) {
            ratio(fmt::format("BM_TensorMatmul<float>/{}", n), fmt::format("BM_EigenMatmul<float>/{}", n), times_);
        }
        fmt::print("\nbytes per second of each op / the faster of memcpy and a vector copy of the same bytes (target >= 0.50):\n");
        fmt::print("  (the nonzero scan's best path on this CPU: {}; BM_NonzeroBaseline forces the baseline)\n",
                   vitals::kernels::nonzero_scan::avx512_vbmi2_allowed()     ? "AVX-512 VBMI2"
                   : vitals::kernels::nonzero_scan::avx512_vbmi2_supported() ? "the baseline, AVX2 (VITALS_MAX_CPU_ISA=avx2)"
                                                                             : "the baseline, AVX2");
        const vitals::benches::Yardsticks yardsticks = measured_yardsticks();
        bandwidth_ratio("BM_Relu", kReluBytes, yardsticks);
        for (const std::int64_t n : kSizes) {
            for (const DType dtype : kMaskDtypes) {
                bandwidth_ratio(fmt::format("BM_Mask/{}/{}", static_cast<int>(dtype), n), mask_bytes(dtype, n), yardsticks);
            }
            for (const std::int64_t percent : kNonzeroPercents) {
                bandwidth_ratio(fmt::format("BM_Nonzero/{}/{}", percent, n), nonzero_bytes(percent, n), yardsticks);
            }
        }
        for (const std::int64_t percent : kNonzeroPercents) {
            bandwidth_ratio(fmt::format("BM_NonzeroBaseline/{}/{}", percent, kSizes[0]), nonzero_bytes(percent, kSizes[0]),
                            yardsticks);
        }
        for (const std::int64_t percent : kNonzeroPercents) {
            bandwidth_ratio(fmt::format("BM_Nonzero2D/{}", percent), nonzero_2d_bytes(percent), yardsticks);
        }
        for (const std::int64_t percent : kNonzeroPercents) {
            bandwidth_ratio(fmt::format("BM_MaskedSelect/{}", percent), masked_select_bytes(percent), yardsticks);
        }
        fmt::print("\nthe same 1M cases on {} intra-op threads, against the same one-thread copy (how far the threads\n"
                   "take the op, not a ratio to what the cores copy together):\n",
                   kSharedThreads);
        for (const std::int64_t percent : kNonzeroPercents) {
            bandwidth_ratio(fmt::format("BM_NonzeroTwoThreads/{}", percent), nonzero_bytes(percent, kSizes[0]), yardsticks);
        }
        for (const std::int64_t percent : kNonzeroPercents) {
            bandwidth_ratio(fmt::format("BM_Nonzero2DTwoThreads/{}", percent), nonzero_2d_bytes(percent), yardsticks);
        }
        for (const std::int64_t percent : kNonzeroPercents) {
            bandwidth_ratio(fmt::format("BM_MaskedSelectTwoThreads/{}", percent), masked_select_bytes(percent), yardsticks);
        }
        fmt::print("\nthe yardsticks, GB/s (memcpy / vector copy):\n");
        for (const auto& [bytes, best] : yardsticks) {
            fmt::print("  {:>10} bytes  {:6.1f} / {:6.1f}{}\n", bytes, copy_bandwidth("BM_Memcpy", bytes) / 1e9,
                       copy_bandwidth("BM_VectorCopy", bytes) / 1e9,
                       vitals::benches::yardstick_doubt(yardsticks, bytes) ? "  (doubted)" : "");
        }
        fmt::print("\nMASK INDICES before / after on the CPU (target >= 3):\n");
        ratio("BM_MaskIndices/after:0/pct:10", "BM_MaskIndices/after:1/pct:10", times_);
        ratio("BM_MaskIndices/after:0/pct:50", "BM_MaskIndices/after:1/pct:50", times_);
        fmt::print("\nMASK INDICES before / after on CUDA (the tutorial's 20x):\n");
        ratio("BM_CudaMaskIndices/0/manual_time", "BM_CudaMaskIndices/1/manual_time", times_);
    }

private:
    double copy_bandwidth(const char* copy, std::int64_t bytes) const {
        const auto it = bytes_per_second_.find(fmt::format("{}/{}", copy, bytes));
        return it == bytes_per_second_.end() ? 0.0 : it->second;
    }

    vitals::benches::Yardsticks measured_yardsticks() const {
        vitals::benches::Yardsticks yardsticks;
        for (const std::int64_t bytes : yardstick_sizes()) {
            const double best = std::max(copy_bandwidth("BM_Memcpy", bytes), copy_bandwidth("BM_VectorCopy", bytes));
            if (best > 0) yardsticks[bytes] = best;
        }
        return yardsticks;
    }

    // The op's bytes per second over the yardstick of its byte count, or why not.
    void bandwidth_ratio(const std::string& op, std::int64_t bytes, const vitals::benches::Yardsticks& yardsticks) const {
        const auto x = bytes_per_second_.find(op);
        if (x == bytes_per_second_.end()) {
            fmt::print("  {:<36}  not measured\n", op);
        } else if (const auto doubt = vitals::benches::yardstick_doubt(yardsticks, bytes)) {
            fmt::print("  {:<36}  no ratio: {}\n", op, *doubt);
        } else {
            fmt::print("  {:<36}  {:.2f}  ({:.1f} GB/s against {:.1f})\n", op, x->second / yardsticks.at(bytes), x->second / 1e9,
                       yardsticks.at(bytes) / 1e9);
        }
    }

    static void ratio(const std::string& a, const std::string& b, const std::map<std::string, double>& values) {
        const auto x = values.find(a), y = values.find(b);
        if (x == values.end() || y == values.end()) {
            fmt::print("  {:<36} / {:<36}  not measured\n", a, b);
        } else {
            fmt::print("  {:<36} / {:<36}  {:.2f}\n", a, b, x->second / y->second);
        }
    }

    std::map<std::string, double> times_, bytes_per_second_;
    std::set<std::string> medians_;
};

}  // namespace

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    register_yardsticks();
    // One thread, as a Timer measures by default (num_threads = 1) and as memcpy runs:
    // on a shared 2-core machine a 2-thread product mostly measures the other tenant.
    const vitals::ThreadCountScope one_thread(1);
    RatioReporter reporter;
    benchmark::RunSpecifiedBenchmarks(&reporter);
    reporter.print_ratios();
    benchmark::Shutdown();
}
