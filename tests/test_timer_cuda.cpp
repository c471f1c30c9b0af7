// Timing device work with CUDA events. Runs on a machine with a GPU; skips elsewhere.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

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

TEST_F(TimerOnStream, TheHeldStreamHidesHostTimeBetweenLaunches) {
    // Each call launches a 20 us kernel, then spends about 100 us on the host: without the
    // stream held while they are queued, the device would wait for the host between kernels.
    const long long cycles = static_cast<long long>(vitals::testing::clock_rate_khz()) / 50;
    CUstream_st* stream = stream_;
    vitals::Timer timer({.stmt =
                             [stream, cycles] {
                                 vitals::testing::launch_spin(stream, cycles);
                                 std::this_thread::sleep_for(std::chrono::microseconds(100));
                             },
                         .label = "spin and sleep", .cuda_stream = stream});
    const vitals::Measurement m = timer.timeit(8);
    EXPECT_GE(m.raw_times()[0], 8 * 20e-6 * 0.95);
    EXPECT_LT(m.raw_times()[0], 8 * 100e-6 * 0.75);  // well under the host's share
}

TEST_F(TimerOnStream, AStatementThatSynchronisesIsStillTimed) {
    // The hold gives up by itself: a statement that waits for its stream inside each call
    // is timed, not deadlocked.
    const long long cycles = static_cast<long long>(vitals::testing::clock_rate_khz()) / 10;  // 100 us
    CUstream_st* stream = stream_;
    vitals::Timer timer({.stmt =
                             [stream, cycles] {
                                 vitals::testing::launch_spin(stream, cycles);
                                 cudaStreamSynchronize(stream);
                             },
                         .label = "spin and wait", .cuda_stream = stream});
    const auto started = std::chrono::steady_clock::now();
    const vitals::Measurement m = timer.timeit(4);
    EXPECT_GE(m.raw_times()[0], 4 * 100e-6 * 0.95);
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(), 2.0);
}
