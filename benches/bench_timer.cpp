// What the Timer itself costs, measured by an independent harness (Google Benchmark).
//
//   per_call      the Timer's cost per call of an empty statement (target: <= 1 ns;
//                 Google Benchmark's own empty loop, BM_GoogleBenchmarkEmptyLoop, is the yardstick)
//   wall time     of one blocked_autorange({.min_run_time = 0.2}) for statements from
//                 empty to 900 us (target: <= 0.25 s), and with counters read per block
//   counters      the cost of reading the counters around one block, and of opening them
#include <benchmark/benchmark.h>

#include <chrono>
#include <vitals/counters.hpp>
#include <vitals/vitals.hpp>

#include "counter_group.hpp"  // the timer's own reader, to time one reading alone

namespace {

constexpr std::int64_t kCallsPerBlock = 10'000'000;

// Google Benchmark's empty loop: its own per-iteration cost.
void BM_GoogleBenchmarkEmptyLoop(benchmark::State& state) {
    for (auto _ : state) {
    }
}
BENCHMARK(BM_GoogleBenchmarkEmptyLoop);

// The loop a Timer block runs around an empty statement, per call.
void BM_TimerEmptyStatementLoop(benchmark::State& state) {
    const vitals::Code empty([] {});
    for (auto _ : state) empty.run(kCallsPerBlock);
    state.counters["per_call"] =
        benchmark::Counter(static_cast<double>(kCallsPerBlock),
                           benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_TimerEmptyStatementLoop)->Unit(benchmark::kMillisecond);

// The same through the public API: a Timer's own median per call for an empty statement.
void BM_TimerMedianOfEmptyStatement(benchmark::State& state) {
    vitals::Timer timer({.stmt = [] {}});
    double median = 0;
    for (auto _ : state) median = timer.timeit(kCallsPerBlock).median();
    state.counters["timer_median_ns"] = median * 1e9;
}
BENCHMARK(BM_TimerMedianOfEmptyStatement)->Unit(benchmark::kMillisecond)->Iterations(5);

// A statement that busy-waits `ns` nanoseconds, like a kernel of that length.
void spin_for(std::chrono::nanoseconds ns) {
    const auto until = std::chrono::steady_clock::now() + ns;
    while (std::chrono::steady_clock::now() < until) {
    }
}

// Wall time of one blocked_autorange(min_run_time = 0.2) including block-size
// estimation, for statements of 0 ns (empty) up to 900 us.
void BM_BlockedAutorangeWallTime(benchmark::State& state) {
    const std::chrono::nanoseconds length(state.range(0));
    vitals::Timer timer({.stmt = [length] {
        if (length.count() > 0) spin_for(length);
    }});
    std::int64_t number = 0;
    for (auto _ : state) number = timer.blocked_autorange({.min_run_time = 0.2}).number_per_run();
    state.counters["number_per_run"] = static_cast<double>(number);
}
BENCHMARK(BM_BlockedAutorangeWallTime)
    ->Arg(0)
    ->Arg(100)
    ->Arg(10'000)
    ->Arg(100'000)
    ->Arg(900'000)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3)
    ->UseRealTime();

// The same with every counter the kernel allows read around each block: the counters
// are read outside the clocks, so only the time between blocks grows.
void BM_BlockedAutorangeWallTimeWithCounters(benchmark::State& state) {
    const std::chrono::nanoseconds length(state.range(0));
    vitals::Timer timer({.stmt =
                             [length] {
                                 if (length.count() > 0) spin_for(length);
                             },
                         .counters = vitals::default_counters()});
    std::int64_t number = 0;
    for (auto _ : state) number = timer.blocked_autorange({.min_run_time = 0.2}).number_per_run();
    state.counters["number_per_run"] = static_cast<double>(number);
}
BENCHMARK(BM_BlockedAutorangeWallTimeWithCounters)->Arg(0)->Arg(100'000)->Unit(benchmark::kMillisecond)->Iterations(3)->UseRealTime();

// One block's reading of the default counters: start() and stop() around nothing.
void BM_CountersReadAroundABlock(benchmark::State& state) {
    vitals::detail::CounterGroup counters(vitals::default_counters());
    for (auto _ : state) {
        counters.start();
        benchmark::DoNotOptimize(counters.stop());
    }
    state.counters["opened"] = static_cast<double>(counters.names().size());
}
BENCHMARK(BM_CountersReadAroundABlock)->Unit(benchmark::kMicrosecond);

// Opening them once per measurement: perf_event_open per counter and the reading's cost measured.
void BM_CountersOpened(benchmark::State& state) {
    for (auto _ : state) {
        vitals::detail::CounterGroup counters(vitals::default_counters());
        benchmark::DoNotOptimize(counters.names().data());
    }
}
BENCHMARK(BM_CountersOpened)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
