// The Timer's run-length rules, fed synthetic block durations: no clock involved.
#include <gtest/gtest.h>

#include <vector>

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
