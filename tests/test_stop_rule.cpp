// The Timer's run-length rules, fed synthetic block durations: no clock involved.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "vitals/stats.hpp"
#include "vitals/stop_rule.hpp"

using vitals::BlockSizeEstimator;
using vitals::StopRule;

namespace {
// A statement model: a block of n calls costs overhead + n * per_call seconds.
std::int64_t estimate(double overhead, double per_call, double min_run_time) {
    BlockSizeEstimator estimator(min_run_time);
    estimator.set_overhead(std::vector<double>(BlockSizeEstimator::kOverheadSamples, overhead));
    int blocks = 0;
    while (!estimator.add_block(overhead + static_cast<double>(estimator.number()) * per_call)) {
        if (++blocks > 20) ADD_FAILURE() << "estimator did not converge";
    }
    return estimator.number();
}
}  // namespace

TEST(BlockSizeEstimator, ThreeMicrosecondStatementGetsOneThousand) {
    // 50 ns clock cost, 3 us statement, min_run_time 0.2 s: 1, 10, 100 leave the overhead
    // above 1e-4 of the block; 1000 (3 ms) is the first that passes both tests.
    EXPECT_EQ(estimate(50e-9, 3e-6, 0.2), 1000);
}

TEST(BlockSizeEstimator, SlowStatementStopsAtOne) {
    // A 1 ms statement: one call already dwarfs the clock and exceeds min_run_time / 1000.
    EXPECT_EQ(estimate(50e-9, 1e-3, 0.2), 1);
    // A statement longer than min_run_time stops at once too.
    EXPECT_EQ(estimate(50e-9, 0.5, 0.2), 1);
}

TEST(BlockSizeEstimator, BlockMustLastAThousandthOfMinRunTime) {
    // Zero clock cost: only the min_run_time / 1000 rule binds. 1 ns calls, 0.2 s:
    // blocks must reach 200 us -> 1e6 calls (1 ms) is the first power of ten at or past it.
    EXPECT_EQ(estimate(0.0, 1e-9, 0.2), 1000000);
    EXPECT_EQ(estimate(0.0, 3e-9, 0.2), 100000);
}

TEST(BlockSizeEstimator, OverheadIsTheMedianOfEmptyBlocks) {
    BlockSizeEstimator estimator(0.2);
    estimator.set_overhead({5e-9, 1e-3, 6e-9, 7e-9, 4e-9});  // one outlier
    EXPECT_DOUBLE_EQ(estimator.overhead(), 6e-9);
}

TEST(BlockSizeEstimator, CapsBelowInt32) {
    // A statement that takes no time: sizes grow until the next would pass 2^31 - 1.
    EXPECT_EQ(estimate(1e-6, 0.0, 0.2), 1000000000);
}

TEST(StopRule, BlockedStopsWhenTotalReachesMinRunTime) {
    StopRule rule = StopRule::blocked(0.2);
    int blocks = 0;
    while (!rule.add_block(0.03)) ++blocks;
    // 7 blocks of 30 ms = 210 ms is the first total >= 200 ms.
    EXPECT_EQ(rule.block_times().size(), 7u);
    EXPECT_NEAR(rule.total_time(), 0.21, 1e-12);
}

TEST(StopRule, AdaptiveNeedsMoreThanThreeBlocks) {
    // Identical blocks have IQR 0 at once, but the rule waits for a 4th block.
    StopRule rule = StopRule::adaptive(0.1, 0.01, 10.0);
    EXPECT_FALSE(rule.add_block(0.02));
    EXPECT_FALSE(rule.add_block(0.02));
    EXPECT_FALSE(rule.add_block(0.02));
    EXPECT_TRUE(rule.add_block(0.02));
}

TEST(StopRule, AdaptiveStopsAtFirstTightBlockCount) {
    // Noisy start, then steady: stops at the first count > 3 with IQR/median < 0.1.
    const std::vector<double> blocks{1.0, 2.0, 1.0, 2.0, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5};
    StopRule rule = StopRule::adaptive(0.1, 0.01, 100.0);
    std::size_t stopped_at = 0;
    for (std::size_t i = 0; i < blocks.size(); ++i) {
        if (rule.add_block(blocks[i])) {
            stopped_at = i + 1;
            break;
        }
    }
    // Hand check: after 9 blocks {1,1,1.5x5,2,2} p25 = 1.5, p75 = 1.5 -> IQR 0; after 8
    // blocks {1,1,1.5,1.5,1.5,1.5,2,2}: p25 = 1.375, p75 = 1.625 -> 0.25/1.5 = 0.167.
    EXPECT_EQ(stopped_at, 9u);
}

TEST(StopRule, AdaptiveRespectsMinRunTime) {
    StopRule rule = StopRule::adaptive(0.1, 1.0, 10.0);
    for (int i = 0; i < 7; ++i) EXPECT_FALSE(rule.add_block(0.125));
    EXPECT_TRUE(rule.add_block(0.125));  // total reaches 1.0 s (exact in binary)
}

TEST(StopRule, AdaptiveGivesUpAfterMaxRunTime) {
    // Alternating blocks never get tight; the rule stops once total > max_run_time.
    StopRule rule = StopRule::adaptive(0.01, 0.01, 1.0);
    int blocks = 0;
    while (!rule.add_block(blocks % 2 ? 0.1 : 0.2)) ++blocks;
    EXPECT_GT(rule.total_time(), 1.0);
    EXPECT_LT(rule.total_time(), 1.0 + 0.2 + 1e-12);
}

// The threshold rule keeps its block times in an order-statistic tree; its decisions
// must be those of sorting every block's times again (the reference's way), to the bit.
TEST(StopRule, AdaptiveDecidesAsSortingEveryBlockDoes) {
    std::mt19937_64 rng(7);
    for (int trial = 0; trial < 300; ++trial) {
        const double threshold = std::uniform_real_distribution<double>(0.01, 0.3)(rng);
        StopRule rule = StopRule::adaptive(threshold, 0.0001, 1e9);
        std::vector<double> times;
        std::size_t expected = 0, got = 0;
        for (std::size_t i = 1; i <= 400 && (expected == 0 || got == 0); ++i) {
            // Coarse values make ties common; the spread shrinks so most trials stop.
            const double noise = std::round(std::normal_distribution<double>(0, 40.0 / static_cast<double>(i))(rng)) / 16;
            const double t = std::max(1.0 / 16, 1.0 + noise);
            times.push_back(t);
            const bool naive = times.size() > 3 && vitals::stats::iqr(times) / vitals::stats::median(times) < threshold;
            if (naive && expected == 0) expected = i;
            if (rule.add_block(t) && got == 0) got = i;
        }
        EXPECT_EQ(got, expected) << "trial " << trial;
    }
}

TEST(OrderedTimes, QuantilesEqualSortingToTheLastBit) {
    std::mt19937_64 rng(11);
    vitals::detail::OrderedTimes ordered;
    std::vector<double> values;
    for (int i = 0; i < 1000; ++i) {
        const double v = std::exponential_distribution<double>(3.0)(rng);
        values.push_back(v);
        ordered.insert(v);
        for (const double q : {0.0, 0.25, 0.5, 0.75, 1.0}) EXPECT_EQ(ordered.quantile(q), vitals::stats::quantile(values, q));
    }
    vitals::detail::OrderedTimes copy = ordered;  // copies are independent
    copy.insert(-1.0);
    EXPECT_EQ(copy.at(0), -1.0);
    EXPECT_EQ(ordered.size(), 1000u);
}

TEST(StopRule, PrecisionStopsOnceTheMediansIntervalIsTight) {
    // Identical blocks: the interval is a point as soon as it exists (6 blocks at 95%).
    StopRule steady = StopRule::precision(0.01, 0.0001, 100.0);
    for (int i = 0; i < 5; ++i) EXPECT_FALSE(steady.add_block(0.001));
    EXPECT_TRUE(steady.add_block(0.001));
    ASSERT_TRUE(steady.median_interval());
    EXPECT_EQ(*steady.median_interval(), std::pair(0.001, 0.001));

    // Blocks spread +/-10% around 1 ms: the interval narrows like 1/sqrt(n), so the rule
    // needs many blocks, and stops with an interval within +/-1% of the median.
    std::mt19937_64 rng(3);
    StopRule spread = StopRule::precision(0.01, 0.0001, 1e9);
    int blocks = 0;
    while (!spread.add_block(0.001 * std::uniform_real_distribution<double>(0.9, 1.1)(rng))) ++blocks;
    EXPECT_GT(blocks, 100);
    EXPECT_LT(blocks, 2000);
    const auto [low, high] = *spread.median_interval();
    const double median = vitals::stats::median(spread.block_times());
    EXPECT_GE(low, median * 0.99);
    EXPECT_LE(high, median * 1.01);
}

TEST(StopRule, PrecisionRespectsMinRunTime) {
    StopRule rule = StopRule::precision(0.5, 1.0, 10.0);
    for (int i = 0; i < 7; ++i) EXPECT_FALSE(rule.add_block(0.125));
    EXPECT_TRUE(rule.add_block(0.125));
}

// max_run_time bounds the wall time (setup and clocks included), not only the timed
// blocks: the rule stops after the first block that ends past it, so it overshoots by
// at most one block with its setup.
TEST(StopRule, MaxRunTimeBoundsWallTime) {
    for (const bool precision : {false, true}) {
        StopRule rule = precision ? StopRule::precision(1e-6, 0.01, 1.0) : StopRule::adaptive(1e-6, 0.01, 1.0);
        double wall = 0;
        double last_step = 0;
        int blocks = 0;
        // Blocks of 10 ms alternating with 20 ms, each after 30 ms of setup: the timed total
        // alone would allow 2.5 s of wall time.
        while (true) {
            const double block = blocks % 2 ? 0.01 : 0.02;
            last_step = 0.03 + block;
            wall += last_step;
            ++blocks;
            if (rule.add_block(block, wall)) break;
        }
        EXPECT_GT(wall, 1.0);
        EXPECT_LE(wall, 1.0 + last_step);
        EXPECT_LT(rule.total_time(), 0.5);
    }
    // Without a wall time the summed block time stands in for it (the reference's rule;
    // AdaptiveGivesUpAfterMaxRunTime).
}
