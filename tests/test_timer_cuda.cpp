// Timing device work with CUDA events. Runs on a machine with a GPU; skips elsewhere.
#include <gtest/gtest.h>

#include "cuda_spin.hpp"
#include "vitals/cuda_support.hpp"
#include "vitals/timer.hpp"

namespace {
class TimerOnStream : public ::testing::Test {
protected:
    void SetUp() override {
        const std::string reason = vitals::cuda_unavailable_reason();
        if (!reason.empty()) GTEST_SKIP() << reason;
        stream_ = vitals::testing::create_stream();
    }
    void TearDown() override {
        if (stream_ != nullptr) vitals::testing::destroy_stream(stream_);
    }
    CUstream_st* stream_ = nullptr;
};
}  // namespace

TEST_F(TimerOnStream, EventsMeasureTheKernelNotTheLaunch) {
    // 200 us of spinning at the SM's rated clock (a lower actual clock only lengthens it).
    const long long cycles = static_cast<long long>(vitals::testing::clock_rate_khz()) / 5;
    CUstream_st* stream = stream_;
    vitals::Timer timer({.stmt = [stream, cycles] { vitals::testing::launch_spin(stream, cycles); },
                         .label = "spin", .cuda_stream = stream});
    const vitals::Measurement m = timer.timeit(10);
    EXPECT_GE(m.raw_times()[0], 10 * 200e-6 * 0.95);  // ten kernels back to back
    EXPECT_LT(m.raw_times()[0], 1.0);
    // blocked_autorange over event-timed blocks: each call is at least one kernel long.
    const vitals::Measurement blocked = timer.blocked_autorange({.min_run_time = 0.05});
    EXPECT_GE(blocked.median(), 200e-6 * 0.95);
}
