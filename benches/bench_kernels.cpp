// The kernel set under an independent harness (Google Benchmark), beside the yardsticks
// its speed is judged by:
//   - matmul through vitals' tensors against the same Eigen product written directly
//     (the tensor layer should add nothing);
//   - relu, masks and nonzero against memcpy of the same number of bytes, in the same run
//     (bytes moved = bytes read + bytes written; the ratio is printed at the end);
//   - MASK INDICES before against after.
// Device variants time with CUDA events (UseManualTime) and skip without a GPU.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <Eigen/Core>
#include <cstring>
#include <map>
#include <vitals/kernels/kernels.hpp>
#include <vitals/vitals.hpp>

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
    for (auto _ : state) {
        Matrix z(n, n);  // a fresh result each call, as the tensor op returns one
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

// memcpy of `bytes_moved / 2` bytes moves `bytes_moved` (it reads and writes each byte).
void BM_Memcpy(benchmark::State& state) {
    const auto half = static_cast<std::size_t>(state.range(0) / 2);
    std::vector<char> from(half, 1), to(half);
    for (auto _ : state) {
        std::memcpy(to.data(), from.data(), half);
        benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(state.iterations() * state.range(0));
}

void BM_Relu(benchmark::State& state) {
    const Tensor x = Tensor::randn({32, 1024}, DType::f32, Device::cpu, 1);
    for (auto _ : state) benchmark::DoNotOptimize(k::relu(x).raw_data());
    state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(2 * x.nbytes()));
}

// x > t of 1M floats into a mask of the given dtype.
void BM_Mask(benchmark::State& state) {
    const auto mask_dtype = static_cast<DType>(state.range(0));
    const Tensor x = Tensor::randn({1 << 20}, mask_dtype == DType::f64 ? DType::f64 : DType::f32, Device::cpu, 1);
    const double t = k::density_threshold(0.5);
    std::size_t written = 0;
    for (auto _ : state) {
        const Tensor mask = k::gt(x, t, mask_dtype);
        written = mask.nbytes();
        benchmark::DoNotOptimize(mask.raw_data());
    }
    state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(x.nbytes() + written));
}

// nonzero of a 1M bool mask with range(0) percent hits.
void BM_Nonzero(benchmark::State& state) {
    const Tensor x = Tensor::randn({1 << 20}, DType::f32, Device::cpu, 1);
    const Tensor mask = k::gt(x, k::density_threshold(static_cast<double>(state.range(0)) / 100.0));
    std::size_t written = 0;
    for (auto _ : state) {
        const Tensor indices = k::nonzero(mask);
        written = indices.nbytes();
        benchmark::DoNotOptimize(indices.raw_data());
    }
    state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(mask.nbytes() + written));
}

// Bytes moved by each op above, so memcpy is measured on the same amount.
constexpr std::int64_t kReluBytes = 2 * 32 * 1024 * 4;
constexpr std::int64_t kMaskBoolBytes = (4 + 1) << 20;
constexpr std::int64_t kMaskF32Bytes = (4 + 4) << 20;
constexpr std::int64_t kMaskF64Bytes = (8 + 8) << 20;
constexpr std::int64_t kNonzero10Bytes = (1 << 20) + 8 * ((1 << 20) / 10);
constexpr std::int64_t kNonzero50Bytes = (1 << 20) + 8 * ((1 << 20) / 2);

BENCHMARK(BM_Relu);
BENCHMARK(BM_Memcpy)->Arg(kReluBytes);
BENCHMARK(BM_Mask)->Arg(static_cast<int>(DType::boolean))->Arg(static_cast<int>(DType::f32))->Arg(static_cast<int>(DType::f64));
BENCHMARK(BM_Memcpy)->Arg(kMaskBoolBytes)->Arg(kMaskF32Bytes)->Arg(kMaskF64Bytes);
BENCHMARK(BM_Nonzero)->Arg(10)->Arg(50);
BENCHMARK(BM_Memcpy)->Arg(kNonzero10Bytes)->Arg(kNonzero50Bytes);

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
            times_[run.benchmark_name()] = run.GetAdjustedRealTime();
            const auto bytes = run.counters.find("bytes_per_second");
            if (bytes != run.counters.end()) bytes_per_second_[run.benchmark_name()] = bytes->second.value;
        }
        ConsoleReporter::ReportRuns(runs);
    }

    void print_ratios() const {
        fmt::print("\nmatmul through Tensor / Eigen directly (1.00 = no overhead):\n");
        for (const char* n : {"128", "512", "1024"}) {
            ratio(fmt::format("BM_TensorMatmul<float>/{}", n), fmt::format("BM_EigenMatmul<float>/{}", n), times_);
        }
        fmt::print("\nbytes per second of each op / memcpy of the same bytes (target >= 0.50):\n");
        ratio("BM_Relu", fmt::format("BM_Memcpy/{}", kReluBytes), bytes_per_second_);
        const std::pair<int, std::int64_t> masks[] = {{static_cast<int>(DType::boolean), kMaskBoolBytes},
                                                      {static_cast<int>(DType::f32), kMaskF32Bytes},
                                                      {static_cast<int>(DType::f64), kMaskF64Bytes}};
        for (auto [dtype, bytes] : masks) {
            ratio(fmt::format("BM_Mask/{}", dtype), fmt::format("BM_Memcpy/{}", bytes), bytes_per_second_);
        }
        ratio("BM_Nonzero/10", fmt::format("BM_Memcpy/{}", kNonzero10Bytes), bytes_per_second_);
        ratio("BM_Nonzero/50", fmt::format("BM_Memcpy/{}", kNonzero50Bytes), bytes_per_second_);
        fmt::print("\nMASK INDICES before / after on the CPU (target >= 3):\n");
        ratio("BM_MaskIndices/after:0/pct:10", "BM_MaskIndices/after:1/pct:10", times_);
        ratio("BM_MaskIndices/after:0/pct:50", "BM_MaskIndices/after:1/pct:50", times_);
        fmt::print("\nMASK INDICES before / after on CUDA (the tutorial's 20x):\n");
        ratio("BM_CudaMaskIndices/0/manual_time", "BM_CudaMaskIndices/1/manual_time", times_);
    }

private:
    static void ratio(const std::string& a, const std::string& b, const std::map<std::string, double>& values) {
        const auto x = values.find(a), y = values.find(b);
        if (x == values.end() || y == values.end()) {
            fmt::print("  {:<34} / {:<34}  not measured\n", a, b);
        } else {
            fmt::print("  {:<34} / {:<34}  {:.2f}\n", a, b, x->second / y->second);
        }
    }

    std::map<std::string, double> times_, bytes_per_second_;
};

}  // namespace

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    RatioReporter reporter;
    benchmark::RunSpecifiedBenchmarks(&reporter);
    reporter.print_ratios();
    benchmark::Shutdown();
}
