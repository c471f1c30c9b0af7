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
// Device variants time with CUDA events (UseManualTime) and skip without a GPU.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <Eigen/Core>
#include <array>
#include <chrono>
#include <cstring>
#include <map>
#include <set>
#include <string_view>
#include <thread>
#include <vitals/threads.hpp>
#include <vitals/kernels/kernels.hpp>
#include <vitals/vitals.hpp>

#include "scan/staged_hits.hpp"
#include "yardstick.hpp"

namespace {

namespace k = vitals::kernels;
using k::Device;
using k::DType;
using k::Tensor;

// Times op() for the case (manual time) and each of `others` in turns with it, returning
// the others' seconds a call: what a ratio divides by sees the machine at the same moment
// as the op (on a shared VM the speed moves from one minute to the next, and cases timed
// apart would take that swing for a ratio). Each turn is a block of calls lasting about
// kTurn, after untimed calls for an eighth of that, so each runs with the caches its own
// back-to-back calls leave, not those the other's calls left.
template <class Op, class... Others>
std::array<double, sizeof...(Others)> time_in_turns(benchmark::State& state, Op&& op, Others&&... others) {
    using Clock = std::chrono::steady_clock;
    constexpr double kTurn = 0.1;  // seconds
    const auto seconds_since = [](Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); };
    std::array<double, sizeof...(Others)> seconds{};
    std::int64_t other_calls = 0;
    std::int64_t block = 0, in_block = 0;  // op calls a turn, and so far in this one
    const auto warm_up = [&](auto& call) {
        for (std::int64_t i = 0; i < std::max<std::int64_t>(1, block / 8); ++i) call();
    };
    // A turn of `calls` of each other.
    const auto others_turn = [&](std::int64_t calls) {
        std::size_t which = 0;
        const auto time_one = [&](auto& other) {
            warm_up(other);
            const Clock::time_point start = Clock::now();
            for (std::int64_t i = 0; i < calls; ++i) other();
            seconds[which++] += seconds_since(start);
        };
        (time_one(others), ...);
        other_calls += calls;
    };
    for (auto _ : state) {
        if (in_block == 0) warm_up(op);  // the others ran last
        const Clock::time_point start = Clock::now();
        op();
        const double op_seconds = seconds_since(start);
        state.SetIterationTime(op_seconds);
        if (block == 0) block = std::max<std::int64_t>(1, static_cast<std::int64_t>(kTurn / std::max(op_seconds, 1e-9)));
        if (++in_block == block) {
            others_turn(block);
            in_block = 0;
        }
    }
    if (other_calls == 0) others_turn(std::max<std::int64_t>(in_block, 1));
    for (double& s : seconds) s /= static_cast<double>(other_calls);
    return seconds;
}

// ---- matmul: through Tensor vs Eigen directly --------------------------------------------

// The counter a matmul case reports: the same product written in Eigen, timed in turns.
constexpr const char* kEigenSecondsCounter = "eigen_seconds_per_call";

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

// A copy's source and destination in one allocation, the destination half a page past
// a page boundary from the source. Two separate buffers of 128 KiB or more are mapped
// page-aligned, so every load aliases a store of the same page offset (4 KiB aliasing),
// which slows the copy several times over.
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

// memcpy of buffers.bytes(): it moves twice that (it reads and writes each byte).
void copy_with_memcpy(CopyBuffers& buffers) {
    std::memcpy(buffers.to(), buffers.from(), buffers.bytes());
    benchmark::ClobberMemory();
}

// The second yardstick: a plain loop of 32-byte vector copies, which the compiler keeps as
// loads and stores (a libc memcpy may pick non-temporal stores, or a slow path, at some
// sizes). Each ratio is taken against the faster of the two.
void copy_with_vectors(CopyBuffers& buffers) {
    using Lane = std::uint64_t __attribute__((vector_size(32), aligned(1)));
    const char* from = buffers.from();
    char* to = buffers.to();
    const std::size_t whole = buffers.bytes() / sizeof(Lane) * sizeof(Lane);
    for (std::size_t i = 0; i < whole; i += sizeof(Lane)) {
        *reinterpret_cast<Lane*>(to + i) = *reinterpret_cast<const Lane*>(from + i);
    }
    std::memcpy(to + whole, from + whole, buffers.bytes() - whole);
    benchmark::ClobberMemory();
}

// The counters a bandwidth case reports beside its own bytes per second: its yardsticks'.
constexpr const char* kMemcpyCounter = "memcpy_bytes_per_second";
constexpr const char* kVectorCopyCounter = "vector_copy_bytes_per_second";

// Times op() (which returns the bytes it read and wrote) in turns with a memcpy and a
// vector copy of as many bytes, whose bytes per second are the case's counters.
template <class Op>
void time_against_copies(benchmark::State& state, Op&& op) {
    const std::int64_t bytes = op();  // sizes the copies (a hit count's bytes vary with the mask)
    CopyBuffers buffers(static_cast<std::size_t>(bytes / 2));
    const auto [memcpy_seconds, vector_seconds] =
        time_in_turns(state, op, [&] { copy_with_memcpy(buffers); }, [&] { copy_with_vectors(buffers); });
    state.SetBytesProcessed(state.iterations() * bytes);
    state.counters["bytes_moved"] = benchmark::Counter(static_cast<double>(bytes));
    state.counters[kMemcpyCounter] = benchmark::Counter(static_cast<double>(bytes) / std::max(memcpy_seconds, 1e-12));
    state.counters[kVectorCopyCounter] = benchmark::Counter(static_cast<double>(bytes) / std::max(vector_seconds, 1e-12));
}

void BM_Relu(benchmark::State& state) {
    const Tensor x = Tensor::randn({32, 1024}, DType::f32, Device::cpu, 1);
    time_against_copies(state, [&] {
        const Tensor y = k::relu(x);
        benchmark::DoNotOptimize(y.raw_data());
        return static_cast<std::int64_t>(x.nbytes() + y.nbytes());
    });
}

// The sizes the registered cases use: 1M elements (the mask fits in L2) and 16M (in L3
// with its result, or beyond).
constexpr std::int64_t kSizes[] = {1 << 20, 1 << 24};

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

constexpr DType kMaskDtypes[] = {DType::boolean, DType::f32, DType::f64};
constexpr std::int64_t kNonzeroPercents[] = {10, 50};

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

// The counter a MASK INDICES case reports: the "after" version, timed in turns.
constexpr const char* kAfterSecondsCounter = "after_seconds_per_call";

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
            record_bandwidth_case(name, run.counters);
            record_turns(name, run.GetAdjustedRealTime() / benchmark::GetTimeUnitMultiplier(run.time_unit), run.counters);
        }
        ConsoleReporter::ReportRuns(runs);
    }

    void print_ratios() const {
        if (times_.empty()) return;  // --benchmark_list_tests, or a filter that matched nothing
        fmt::print("\nmatmul through Tensor / the same Eigen product, timed in turns (1.00 = no overhead):\n");
        for (const char* name : {"BM_TensorMatmul<float>/128", "BM_TensorMatmul<float>/512", "BM_TensorMatmul<float>/1024",
                                 "BM_TensorMatmul<double>/128", "BM_TensorMatmul<double>/512"}) {
            turn_ratio(name, "Tensor", "Eigen");
        }
        fmt::print("\nbytes per second of each op / the faster of memcpy and a vector copy of the same bytes (target >= 0.50):\n");
        fmt::print("  (the nonzero scan's best path on this CPU: {}; BM_NonzeroBaseline forces the baseline)\n",
                   vitals::kernels::scan::avx512_vbmi2_allowed()     ? "AVX-512 VBMI2"
                   : vitals::kernels::scan::avx512_vbmi2_supported() ? "the baseline, AVX2 (VITALS_MAX_CPU_ISA=avx2)"
                                                                     : "the baseline, AVX2");
        bandwidth_ratio("BM_Relu");
        for (const std::int64_t n : kSizes) {
            for (const DType dtype : kMaskDtypes) bandwidth_ratio(fmt::format("BM_Mask/{}/{}", static_cast<int>(dtype), n));
            for (const std::int64_t percent : kNonzeroPercents) bandwidth_ratio(fmt::format("BM_Nonzero/{}/{}", percent, n));
        }
        for (const std::int64_t percent : kNonzeroPercents) {
            bandwidth_ratio(fmt::format("BM_NonzeroBaseline/{}/{}", percent, kSizes[0]));
        }
        for (const std::int64_t percent : kNonzeroPercents) bandwidth_ratio(fmt::format("BM_Nonzero2D/{}", percent));
        for (const std::int64_t percent : kNonzeroPercents) bandwidth_ratio(fmt::format("BM_MaskedSelect/{}", percent));
        fmt::print("\nthe same 1M cases on {} intra-op threads, against a one-thread copy (how far the threads take\n"
                   "the op, not a ratio to what the cores copy together):\n",
                   kSharedThreads);
        for (const std::int64_t percent : kNonzeroPercents) bandwidth_ratio(fmt::format("BM_NonzeroTwoThreads/{}", percent));
        for (const std::int64_t percent : kNonzeroPercents) bandwidth_ratio(fmt::format("BM_Nonzero2DTwoThreads/{}", percent));
        for (const std::int64_t percent : kNonzeroPercents) bandwidth_ratio(fmt::format("BM_MaskedSelectTwoThreads/{}", percent));
        fmt::print("\nthe yardsticks, timed in each case's iterations, GB/s (memcpy / vector copy):\n");
        for (const auto& [name, measured] : bandwidth_cases_) {
            fmt::print("  {:<36}  {:>10} bytes  {:6.1f} / {:6.1f}{}\n", name, measured.bytes, measured.memcpy / 1e9,
                       measured.vector_copy / 1e9,
                       vitals::benches::yardstick_doubt(yardsticks_around(measured), measured.bytes) ? "  (doubted)" : "");
        }
        fmt::print("\nMASK INDICES before / after on the CPU (target >= 3):\n");
        turn_ratio("BM_MaskIndices/pct:10", "before", "after");
        turn_ratio("BM_MaskIndices/pct:50", "before", "after");
        fmt::print("\nMASK INDICES before / after on CUDA (the tutorial's 20x):\n");
        ratio("BM_CudaMaskIndices/0/manual_time", "BM_CudaMaskIndices/1/manual_time", times_);
    }

private:
    // A bandwidth case's op and the copies timed in its iterations (time_against_copies).
    struct BandwidthCase {
        std::int64_t bytes = 0;
        double op = 0, memcpy = 0, vector_copy = 0;  // bytes per second
        double yardstick() const { return std::max(memcpy, vector_copy); }
    };

    void record_bandwidth_case(std::string name, const benchmark::UserCounters& counters) {
        const auto memcpy = counters.find(kMemcpyCounter), vector_copy = counters.find(kVectorCopyCounter),
                   op = counters.find("bytes_per_second"), bytes = counters.find("bytes_moved");
        if (memcpy == counters.end() || vector_copy == counters.end() || op == counters.end() || bytes == counters.end()) return;
        bandwidth_cases_[strip_manual_time(std::move(name))] = {static_cast<std::int64_t>(bytes->second.value), op->second.value, memcpy->second.value,
                                  vector_copy->second.value};
    }

    // The case's yardstick among the other cases' at other byte counts (the best at each):
    // what yardstick_doubt compares it with.
    vitals::benches::Yardsticks yardsticks_around(const BandwidthCase& measured) const {
        vitals::benches::Yardsticks yardsticks;
        for (const auto& [name, other] : bandwidth_cases_) {
            if (other.bytes == measured.bytes) continue;
            double& best = yardsticks[other.bytes];
            best = std::max(best, other.yardstick());
        }
        yardsticks[measured.bytes] = measured.yardstick();
        return yardsticks;
    }

    // A case timed in turns with another (time_in_turns): both seconds a call.
    void record_turns(std::string name, double seconds, const benchmark::UserCounters& counters) {
        for (const char* counter : {kEigenSecondsCounter, kAfterSecondsCounter}) {
            const auto other = counters.find(counter);
            if (other == counters.end()) continue;
            turns_[strip_manual_time(std::move(name))] = {seconds, other->second.value};
            return;
        }
    }

    // The case's seconds over those of what took turns with it.
    void turn_ratio(const std::string& name, const char* case_is, const char* other_is) const {
        const auto it = turns_.find(name);
        if (it == turns_.end()) {
            fmt::print("  {:<36}  not measured\n", name);
            return;
        }
        const auto [seconds, other] = it->second;
        fmt::print("  {:<36}  {:.2f}  ({} {:.1f} us, {} {:.1f} us)\n", name, seconds / other, case_is, seconds * 1e6, other_is,
                   other * 1e6);
    }

    static std::string strip_manual_time(std::string name) {
        constexpr std::string_view kManualTime = "/manual_time";  // Google Benchmark's suffix for UseManualTime
        if (name.ends_with(kManualTime)) name.resize(name.size() - kManualTime.size());
        return name;
    }

    // The op's bytes per second over its yardstick's, or why not.
    void bandwidth_ratio(const std::string& op) const {
        const auto it = bandwidth_cases_.find(op);
        if (it == bandwidth_cases_.end()) {
            fmt::print("  {:<36}  not measured\n", op);
            return;
        }
        const BandwidthCase& measured = it->second;
        if (const auto doubt = vitals::benches::yardstick_doubt(yardsticks_around(measured), measured.bytes)) {
            fmt::print("  {:<36}  no ratio: {}\n", op, *doubt);
        } else {
            fmt::print("  {:<36}  {:.2f}  ({:.1f} GB/s against {:.1f})\n", op, measured.op / measured.yardstick(), measured.op / 1e9,
                       measured.yardstick() / 1e9);
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

    std::map<std::string, double> times_;
    std::map<std::string, BandwidthCase> bandwidth_cases_;
    std::map<std::string, std::pair<double, double>> turns_;  // seconds a call: the case's, the other's
    std::set<std::string> medians_;
};

}  // namespace

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    // One thread, as a Timer measures by default (num_threads = 1) and as memcpy runs:
    // on a shared 2-core machine a 2-thread product mostly measures the other tenant.
    const vitals::ThreadCountScope one_thread(1);
    RatioReporter reporter;
    benchmark::RunSpecifiedBenchmarks(&reporter);
    reporter.print_ratios();
    benchmark::Shutdown();
}
