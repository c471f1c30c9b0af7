// What the kernel bench's cases (bench_kernels.cpp) and its reporter (ratio_reporter.cpp)
// both name: the cases' sizes and densities, and the counters of cases timed in turns.
#pragma once

#include <cstdint>
#include <vitals/kernels/tensor.hpp>

namespace vitals::benches {

// The sizes the registered cases use: 1M elements (the mask fits in L2) and 16M (in L3
// with its result, or beyond).
inline constexpr std::int64_t kSizes[] = {1 << 20, 1 << 24};
inline constexpr kernels::DType kMaskDtypes[] = {kernels::DType::boolean, kernels::DType::f32, kernels::DType::f64};
inline constexpr std::int64_t kNonzeroPercents[] = {10, 50};
// The intra-op threads of the *TwoThreads cases.
inline constexpr int kSharedThreads = 2;

// The counter a matmul case reports: the same product written in Eigen, timed in turns.
inline constexpr const char* kEigenSecondsCounter = "eigen_seconds_per_call";
// The counter a MASK INDICES case reports: the "after" version, timed in turns.
inline constexpr const char* kAfterSecondsCounter = "after_seconds_per_call";

}  // namespace vitals::benches
