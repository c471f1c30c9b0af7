// A Google Benchmark program of the kind our users already have: one case in
// microseconds, so that the outside-tool tests pair it with a vitals case of the same
// time unit in Google Benchmark's compare.py.
#include <benchmark/benchmark.h>

#include <cstdint>

namespace {

void BM_Sum(benchmark::State& state) {
    std::uint64_t sum = 0;
    for (auto _ : state) {
        for (std::uint64_t i = 0; i < 20'000; ++i) {
            sum += i * i;
            benchmark::DoNotOptimize(sum);
        }
    }
}
BENCHMARK(BM_Sum)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
