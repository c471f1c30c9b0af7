#include "ratio_reporter.hpp"

#include <fmt/format.h>

#include <string_view>

#include "copy_yardsticks.hpp"
#include "kernel_cases.hpp"
#include "scan/staged_hits.hpp"

namespace vitals::benches {

void RatioReporter::ReportRuns(const std::vector<Run>& runs) {
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

void RatioReporter::print_ratios() const {
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
        for (const kernels::DType dtype : kMaskDtypes) bandwidth_ratio(fmt::format("BM_Mask/{}/{}", static_cast<int>(dtype), n));
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
                   yardstick_doubt(yardsticks_around(measured), measured.bytes) ? "  (doubted)" : "");
    }
    fmt::print("\nMASK INDICES before / after on the CPU (target >= 3):\n");
    turn_ratio("BM_MaskIndices/pct:10", "before", "after");
    turn_ratio("BM_MaskIndices/pct:50", "before", "after");
    fmt::print("\nMASK INDICES before / after on CUDA (the tutorial's 20x):\n");
    ratio("BM_CudaMaskIndices/0/manual_time", "BM_CudaMaskIndices/1/manual_time", times_);
}

void RatioReporter::record_bandwidth_case(std::string name, const benchmark::UserCounters& counters) {
    const auto memcpy = counters.find(kMemcpyCounter), vector_copy = counters.find(kVectorCopyCounter),
               op = counters.find("bytes_per_second"), bytes = counters.find("bytes_moved");
    if (memcpy == counters.end() || vector_copy == counters.end() || op == counters.end() || bytes == counters.end()) return;
    bandwidth_cases_[strip_manual_time(std::move(name))] = {static_cast<std::int64_t>(bytes->second.value), op->second.value, memcpy->second.value,
                              vector_copy->second.value};
}

// The case's yardstick among the other cases' at other byte counts (the best at each):
// what yardstick_doubt compares it with.
Yardsticks RatioReporter::yardsticks_around(const BandwidthCase& measured) const {
    Yardsticks yardsticks;
    for (const auto& [name, other] : bandwidth_cases_) {
        if (other.bytes == measured.bytes) continue;
        double& best = yardsticks[other.bytes];
        best = std::max(best, other.yardstick());
    }
    yardsticks[measured.bytes] = measured.yardstick();
    return yardsticks;
}

// A case timed in turns with another (time_in_turns): both seconds a call.
void RatioReporter::record_turns(std::string name, double seconds, const benchmark::UserCounters& counters) {
    for (const char* counter : {kEigenSecondsCounter, kAfterSecondsCounter}) {
        const auto other = counters.find(counter);
        if (other == counters.end()) continue;
        turns_[strip_manual_time(std::move(name))] = {seconds, other->second.value};
        return;
    }
}

// The case's seconds over those of what took turns with it.
void RatioReporter::turn_ratio(const std::string& name, const char* case_is, const char* other_is) const {
    const auto it = turns_.find(name);
    if (it == turns_.end()) {
        fmt::print("  {:<36}  not measured\n", name);
        return;
    }
    const auto [seconds, other] = it->second;
    fmt::print("  {:<36}  {:.2f}  ({} {:.1f} us, {} {:.1f} us)\n", name, seconds / other, case_is, seconds * 1e6, other_is,
               other * 1e6);
}

std::string RatioReporter::strip_manual_time(std::string name) {
    constexpr std::string_view kManualTime = "/manual_time";  // Google Benchmark's suffix for UseManualTime
    if (name.ends_with(kManualTime)) name.resize(name.size() - kManualTime.size());
    return name;
}

// The op's bytes per second over its yardstick's, or why not.
void RatioReporter::bandwidth_ratio(const std::string& op) const {
    const auto it = bandwidth_cases_.find(op);
    if (it == bandwidth_cases_.end()) {
        fmt::print("  {:<36}  not measured\n", op);
        return;
    }
    const BandwidthCase& measured = it->second;
    if (const auto doubt = yardstick_doubt(yardsticks_around(measured), measured.bytes)) {
        fmt::print("  {:<36}  no ratio: {}\n", op, *doubt);
    } else {
        fmt::print("  {:<36}  {:.2f}  ({:.1f} GB/s against {:.1f})\n", op, measured.op / measured.yardstick(), measured.op / 1e9,
                   measured.yardstick() / 1e9);
    }
}

void RatioReporter::ratio(const std::string& a, const std::string& b, const std::map<std::string, double>& values) {
    const auto x = values.find(a), y = values.find(b);
    if (x == values.end() || y == values.end()) {
        fmt::print("  {:<36} / {:<36}  not measured\n", a, b);
    } else {
        fmt::print("  {:<36} / {:<36}  {:.2f}\n", a, b, x->second / y->second);
    }
}

}  // namespace vitals::benches
