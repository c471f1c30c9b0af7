// Timer behaviour with the real clock. No assertion here depends on how fast the
// machine is: only on counts, structure and the rules.
#include <gtest/gtest.h>
#include <omp.h>

#include <Eigen/Core>
#include <atomic>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <thread>

#include "vitals/cuda_support.hpp"
#include "vitals/threads.hpp"
#include "vitals/timer.hpp"

using vitals::Timer;

namespace {
bool is_power_of_ten(std::int64_t n) {
    while (n >= 10 && n % 10 == 0) n /= 10;
    return n == 1;
}
}  // namespace

TEST(Timer, BlockedAutorangeRunsSetupOncePerBlockAndNeverInsideIt) {
    std::int64_t calls = 0, setups = 0, global_setups = 0;
    std::int64_t calls_at_last_setup = -1;
    bool setup_inside_block = false;
    Timer timer({
        .stmt = [&] { ++calls; vitals::do_not_optimize(calls); },
        .setup = [&] {
            ++setups;
            calls_at_last_setup = calls;
        },
        .global_setup = [&] { ++global_setups; },
        .label = "count",
    });
    std::int64_t blocks_seen = 0, calls_reported = 0;
    const vitals::Measurement m = timer.blocked_autorange({
        .min_run_time = 0.02,
        .callback = [&](std::int64_t number, double seconds) {
            ++blocks_seen;
            calls_reported += number;
            EXPECT_GT(seconds, 0.0);
            // setup ran right before this block: exactly `number` calls since then.
            if (calls - calls_at_last_setup != number) setup_inside_block = true;
        },
    });
    EXPECT_FALSE(setup_inside_block);
    EXPECT_EQ(global_setups, 1);
    EXPECT_TRUE(is_power_of_ten(m.number_per_run())) << m.number_per_run();
    EXPECT_EQ(blocks_seen, static_cast<std::int64_t>(m.raw_times().size()));
    EXPECT_EQ(calls_reported, blocks_seen * m.number_per_run());
    // The estimation blocks (5 empty + the growing sizes) also ran setup.
    EXPECT_GT(setups, blocks_seen + 5);
    double total = 0;
    for (double t : m.raw_times()) total += t;
    EXPECT_GE(total, 0.02);
    EXPECT_EQ(m.raw_cpu_times().size(), m.raw_times().size());
    EXPECT_EQ(m.task_spec().label, "count");
}

TEST(Timer, GlobalSetupRunsOnceAcrossMeasurements) {
    int global_setups = 0;
    Timer timer({.stmt = [] {}, .global_setup = [&] { ++global_setups; }});
    timer.timeit(10);
    timer.timeit(10);
    EXPECT_EQ(global_setups, 1);
}

TEST(Timer, TimeitIsOneBlockAfterAWarmup) {
    std::int64_t calls = 0;
    Timer timer({.stmt = [&] { ++calls; vitals::do_not_optimize(calls); }});
    const vitals::Measurement m = timer.timeit(500);
    EXPECT_EQ(m.number_per_run(), 500);
    EXPECT_EQ(m.raw_times().size(), 1u);
    EXPECT_EQ(calls, 500 + 5);  // warm-up of max(500 / 100, 2) = 5 calls
    EXPECT_GE(m.raw_times()[0], 1e-9);
}

TEST(Timer, RunOnceCallsTheStatementOnceWithItsSetups) {
    int calls = 0, setups = 0, global_setups = 0;
    Timer timer({.stmt = [&] { ++calls; }, .setup = [&] { ++setups; }, .global_setup = [&] { ++global_setups; }});
    const vitals::Measurement m = timer.run_once();
    EXPECT_EQ(calls, 1);  // no warm-up
    EXPECT_EQ(setups, 1);
    EXPECT_EQ(global_setups, 1);
    EXPECT_EQ(m.number_per_run(), 1);
    ASSERT_EQ(m.raw_times().size(), 1u);
    EXPECT_GE(m.raw_times()[0], 1e-9);
    Timer broken({.stmt = [] { throw std::runtime_error("broke"); }});
    EXPECT_THROW(broken.run_once(), std::runtime_error);
}

TEST(Timer, AdaptiveStopsOnceTightAndReportsEveryBlock) {
    int blocks = 0;
    Timer timer({.stmt = [] { vitals::do_not_optimize(std::sqrt(2.0)); }});
    const vitals::Measurement m = timer.adaptive_autorange({
        .threshold = 0.5,
        .min_run_time = 0.01,
        .max_run_time = 5.0,
        .callback = [&](std::int64_t, double) { ++blocks; },
    });
    EXPECT_GT(m.raw_times().size(), 3u);
    EXPECT_EQ(static_cast<std::size_t>(blocks), m.raw_times().size());
}

// A thread pool of its own follows num_threads through a hook, as the kernel set
// registers Eigen's (the Timer links neither).
int set_eigen_threads(int num_threads) {
    const int previous = Eigen::nbThreads();
    Eigen::setNbThreads(num_threads);
    return previous;
}

TEST(Timer, NumThreadsIsSetForTheRunAndRestored) {
    vitals::register_thread_count_hook(&set_eigen_threads);
    vitals::register_thread_count_hook(&set_eigen_threads);  // once is enough
    omp_set_num_threads(3);
    Eigen::setNbThreads(3);
    int seen_omp = 0, seen_eigen = 0;
    Timer timer({.stmt = [&] {
                     seen_omp = omp_get_max_threads();
                     seen_eigen = Eigen::nbThreads();
                 },
                 .num_threads = 2});
    timer.timeit(3);
    EXPECT_EQ(seen_omp, 2);
    EXPECT_EQ(seen_eigen, 2);
    EXPECT_EQ(omp_get_max_threads(), 3);
    EXPECT_EQ(Eigen::nbThreads(), 3);
}

// Eigen's count is one for the process: two Timers on two threads at once must agree on
// it. The same count is shared (and restored once both end); another is refused, naming
// both counts, instead of one statement silently running with the other's threads.
TEST(Timer, TimersOnTwoThreadsAtOnceAgreeOnTheThreadCountOrAreRefused) {
    vitals::register_thread_count_hook(&set_eigen_threads);
    Eigen::setNbThreads(3);
    std::atomic<bool> held{false}, released{false};
    std::atomic<int> seen_in_first{0};
    Timer first({.stmt = [&] {
                     seen_in_first = Eigen::nbThreads();
                     if (!held.exchange(true)) {
                         while (!released.load()) std::this_thread::yield();  // the first call waits for the other thread
                     }
                 },
                 .num_threads = 2});
    std::thread holder([&] { (void)first.timeit(1); });
    while (!held.load()) std::this_thread::yield();
    int seen_in_same = 0;
    Timer same({.stmt = [&] { seen_in_same = Eigen::nbThreads(); }, .num_threads = 2});
    EXPECT_NO_THROW((void)same.timeit(3));
    EXPECT_EQ(seen_in_same, 2);
    EXPECT_EQ(Eigen::nbThreads(), 2) << "the first Timer still runs: its count stays";
    Timer other({.stmt = [] {}, .num_threads = 1});
    try {
        (void)other.timeit(1);
        ADD_FAILURE() << "expected a refusal";
    } catch (const std::logic_error& e) {
        EXPECT_NE(std::string(e.what()).find("different num_threads (1 here, 2 in the other)"), std::string::npos) << e.what();
    }
    released = true;
    holder.join();
    EXPECT_EQ(seen_in_first, 2);
    EXPECT_EQ(Eigen::nbThreads(), 3) << "restored once both ended";
    EXPECT_NO_THROW((void)other.timeit(1)) << "alone, any count goes";
    EXPECT_EQ(Eigen::nbThreads(), 3);
}

TEST(Timer, RejectsBadOptions) {
    EXPECT_THROW(Timer({}), std::invalid_argument);
    EXPECT_THROW(Timer({.stmt = [] {}, .num_threads = 0}), std::invalid_argument);
    Timer timer({.stmt = [] {}});
    EXPECT_THROW(timer.timeit(0), std::invalid_argument);
    EXPECT_THROW(timer.blocked_autorange({.min_run_time = 0.0}), std::invalid_argument);
    EXPECT_THROW(timer.blocked_autorange({.min_run_time = -1.0}), std::invalid_argument);
    EXPECT_THROW(timer.blocked_autorange({.min_run_time = std::nan("")}), std::invalid_argument);
    EXPECT_THROW(timer.adaptive_autorange({.threshold = 0.0}), std::invalid_argument);
    EXPECT_THROW(timer.adaptive_autorange({.threshold = 1.0}), std::invalid_argument);
    EXPECT_THROW(timer.adaptive_autorange({.min_run_time = 2.0, .max_run_time = 1.0}), std::invalid_argument);
}

TEST(Timer, StatementExceptionsPropagate) {
    Timer timer({.stmt = [] { throw std::runtime_error("boom"); }});
    EXPECT_THROW(timer.blocked_autorange({.min_run_time = 0.01}), std::runtime_error);
}

TEST(Timer, TaskSpecCarriesTheOptions) {
    Timer timer({.stmt = VITALS_CODE(std::sqrt(2.0)), .label = "L", .sub_label = "S", .description = "D",
                 .env = "E", .num_threads = 2});
    EXPECT_EQ(timer.task_spec().stmt, "std::sqrt(2.0)");
    EXPECT_EQ(timer.task_spec().title(), "L: S");
    EXPECT_EQ(timer.task_spec().num_threads, 2);
}

TEST(Code, LoopRunsExactlyNCalls) {
    int calls = 0;
    vitals::Code code([&] { ++calls; });
    code.run(0);
    EXPECT_EQ(calls, 0);
    code.run(7);
    EXPECT_EQ(calls, 7);
    EXPECT_FALSE(static_cast<bool>(vitals::Code()));
}

TEST(TimerCuda, StreamTimingNeedsADevice) {
    const std::string reason = vitals::cuda_unavailable_reason();
    if (!reason.empty()) {
        // Without a device the only CPU-side check is that asking for one fails clearly.
        Timer timer({.stmt = [] {}, .cuda_stream = nullptr});
        EXPECT_THROW(timer.timeit(1), std::runtime_error);
        GTEST_SKIP() << "CUDA stream timing: " << reason;
    }
    // With a device: the default stream, host-side no-op work, events still record.
    Timer timer({.stmt = [] {}, .cuda_stream = nullptr});
    const vitals::Measurement m = timer.timeit(10);
    EXPECT_EQ(m.raw_times().size(), 1u);
    EXPECT_GE(m.raw_times()[0], 1e-9);
}

TEST(Timer, CollectInstructionsCountsOrSaysHowTo) {
    Timer timer({.stmt = [] { vitals::do_not_optimize(std::sqrt(2.0)); }});
    EXPECT_THROW(timer.collect_instructions({.number = 0}), std::invalid_argument);
    try {
        const vitals::InstructionCount c = timer.collect_instructions({.number = 1000});
        EXPECT_EQ(c.source, "perf_event_open");
        EXPECT_GE(c.per_call(), 1.0);  // at least the loop's own step
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("vitals timeit NAME --instructions"), std::string::npos) << e.what();
    }
}

// Work per call travels into the Measurement; a negative or non-finite figure is refused.
TEST(Timer, StatedWorkReachesTheMeasurementAndBadWorkIsRefused) {
    vitals::Timer timer({.stmt = [] {}, .bytes_per_call = 64, .flops_per_call = 8, .items_per_call = 2});
    const vitals::Measurement m = timer.timeit(10);
    EXPECT_EQ(m.task_spec().work.bytes, 64);
    EXPECT_EQ(m.task_spec().work.flops, 8);
    EXPECT_EQ(m.task_spec().work.items, 2);
    EXPECT_THROW(vitals::Timer({.stmt = [] {}, .bytes_per_call = -1}), std::invalid_argument);
    EXPECT_THROW(vitals::Timer({.stmt = [] {}, .flops_per_call = NAN}), std::invalid_argument);
}

// A Timer runs on one thread at a time: a second thread's run (or a run from inside its
// own statement) is a clear error, not a second global_setup and a race on its state.
TEST(Timer, OneTimerRunsOnOneThreadAtATime) {
    vitals::Timer* self = nullptr;
    bool nested_refused = false;
    vitals::Timer timer({.stmt = [&] {
        if (self == nullptr) return;
        try {
            (void)self->timeit(1);
        } catch (const std::logic_error& e) {
            nested_refused = std::string(e.what()).find("already running") != std::string::npos;
        }
    }});
    self = &timer;
    (void)timer.timeit(1);
    EXPECT_TRUE(nested_refused);
    self = nullptr;
    EXPECT_NO_THROW((void)timer.timeit(10));  // free again afterwards
    vitals::Timer copy_of_a_free_one = timer;  // copies start free
    EXPECT_NO_THROW((void)copy_of_a_free_one.timeit(10));
}

// max_run_time bounds the whole call's wall time, estimation and setups included, in both
// stop modes: blocks that alternate 1 ms and 3 ms never get tight enough, and each block's
// 20 ms setup is outside the timed blocks, so the timed total alone would run for several
// times the bound. The call must end at the first block that ends past the bound: within
// it plus the last block with its setup (both measured here, on the same clock), so a
// slow machine moves both sides alike.
// The estimation's first call sleeps past the 0.05 s it sizes for, so it settles on one
// call a block whatever a clock read costs: the overhead test alone would go on to 10 or
// 100 calls where reading the clock costs 2 us, as it does after a sleep under TSan, and
// 100 calls of 2 ms leave room for one block.
TEST(Timer, MaxRunTimeBoundsTheCallsWallTime) {
    using Clock = std::chrono::steady_clock;
    for (const bool precision : {false, true}) {
        int call = 0;
        Timer timer({
            .stmt = [&] { std::this_thread::sleep_for(std::chrono::milliseconds(call++ == 0 ? 60 : call % 2 ? 1 : 3)); },
            .setup = [] { std::this_thread::sleep_for(std::chrono::milliseconds(20)); },
        });
        // Room for the block-size estimation (0.18 s: a setup each try) and many blocks.
        constexpr double kMaxRunTime = 0.6;
        Clock::time_point previous_block_end{};
        double last_step = 0, timed_total = 0;
        const Clock::time_point start = Clock::now();
        const vitals::Measurement m = timer.adaptive_autorange({
            .threshold = 1e-9,
            .precision = precision ? 1e-9 : 0.0,
            .min_run_time = 0.01,
            .max_run_time = kMaxRunTime,
            .callback = [&](std::int64_t, double block_seconds) {
                const Clock::time_point now = Clock::now();
                if (previous_block_end != Clock::time_point{}) {
                    last_step = std::chrono::duration<double>(now - previous_block_end).count();
                }
                previous_block_end = now;
                timed_total += block_seconds;
            },
        });
        const double wall = std::chrono::duration<double>(Clock::now() - start).count();
        SCOPED_TRACE(precision ? "precision" : "threshold");
        EXPECT_EQ(m.number_per_run(), 1);
        ASSERT_GE(m.times().size(), 2u);
        EXPECT_GT(last_step, 0.02) << "a step is a setup and a block";
        EXPECT_GT(wall, kMaxRunTime);
        EXPECT_LE(wall, kMaxRunTime * 1.05 + last_step) << "timed " << timed_total << " s in " << m.times().size() << " blocks";
        EXPECT_LT(timed_total, kMaxRunTime * 0.5) << "the setups, not the blocks, used up the time";
    }
}

// Cache::cold: every block is one call, after the setup and the eviction; timeit(n) is n
// such blocks. (How much slower a cold call is: scripts/check-cold.sh.)
TEST(Timer, ColdCacheMeasuresOneCallABlock) {
    int calls = 0, setups = 0;
    vitals::Timer timer({.stmt = [&] { ++calls; }, .setup = [&] { ++setups; }, .cache = vitals::Cache::cold});
    EXPECT_EQ(timer.cache(), vitals::Cache::cold);
    const vitals::Measurement m = timer.blocked_autorange({.min_run_time = 0.02});
    EXPECT_EQ(m.number_per_run(), 1);
    EXPECT_TRUE(m.task_spec().cold);  // so results files and the roofline know
    EXPECT_EQ(static_cast<int>(m.raw_times().size()), calls);
    EXPECT_EQ(setups, calls);
    calls = 0;
    const vitals::Measurement t = timer.timeit(5);
    EXPECT_EQ(t.number_per_run(), 1);
    EXPECT_EQ(t.raw_times().size(), 5u);
    EXPECT_EQ(calls, 5);
    timer.set_cache(vitals::Cache::warm);
    const vitals::Measurement warm = timer.blocked_autorange({.min_run_time = 0.02});
    EXPECT_GT(warm.number_per_run(), 1);
    EXPECT_FALSE(warm.task_spec().cold);
}
