// The kernel bench's harness: a case's op timed in turns with what it is judged by, in the
// same Google Benchmark case, so that a ratio of the two sees one machine.
#pragma once

#include <benchmark/benchmark.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>

namespace vitals::benches {

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

}  // namespace vitals::benches
