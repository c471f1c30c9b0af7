// Blocks the process was stopped or descheduled in: found from synthetic block times
// of known answer (a SIGSTOP leaves wall time without CPU time), kept and warned about.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "vitals/measurement.hpp"

using vitals::Measurement;

namespace {

// `n` blocks of 1 ms wall and `cpu_share` ms CPU, then the given extra blocks.
Measurement blocks(std::size_t n, double cpu_share, const std::vector<std::pair<double, double>>& extra) {
    std::vector<double> wall(n, 1e-3), cpu(n, cpu_share * 1e-3);
    for (const auto& [w, c] : extra) {
        wall.push_back(w);
        cpu.push_back(c);
    }
    return Measurement(10, wall, {.stmt = "f()"}, cpu);
}

bool has_stopped_warning(const Measurement& m) {
    return m.to_string().find("stopped or descheduled") != std::string::npos;
}

}  // namespace

TEST(StoppedBlocks, AStopInsideABlockIsCountedKeptAndWarnedAbout) {
    // As measured: a 1.5 s SIGSTOP in one of 20 blocks of about 3.45 ms (435x the median).
    std::vector<double> wall(19, 3.45e-3), cpu(19, 3.4e-3);
    wall.insert(wall.begin() + 7, 1.5);
    cpu.insert(cpu.begin() + 7, 3.4e-3);
    const Measurement m(100, wall, {.stmt = "f()"}, cpu);
    EXPECT_EQ(m.stopped_blocks(), 1u);
    const std::string text = m.to_string();
    EXPECT_NE(text.find("\n  WARNING: 1 block took 435x the median time without using more CPU time.\n"
                        "           The process was stopped or descheduled (SIGSTOP, a paused VM); the block is kept in "
                        "the statistics."),
              std::string::npos)
        << text;
    // Kept: the mean holds the stopped block.
    EXPECT_DOUBLE_EQ(m.mean(), (19 * 3.45e-3 + 1.5) / 20 / 100);
    EXPECT_EQ(m.times().size(), 20u);
}

TEST(StoppedBlocks, SeveralAreCountedWithTheWorst) {
    const Measurement m = blocks(30, 1.0, {{0.2, 1e-3}, {0.6, 1.2e-3}, {0.06, 1e-3}});
    EXPECT_EQ(m.stopped_blocks(), 3u);
    EXPECT_NE(m.to_string().find("WARNING: 3 blocks took up to 600x the median time"), std::string::npos) << m;
    EXPECT_NE(m.to_string().find("the blocks are kept in the statistics"), std::string::npos) << m;
}

TEST(StoppedBlocks, ASlowBlockThatRanOnTheCpuIsNoStop) {
    // 435x the wall time and about as much more CPU time: the work itself was slow.
    const Measurement m = blocks(20, 1.0, {{0.435, 0.43}});
    EXPECT_EQ(m.stopped_blocks(), 0u);
    EXPECT_FALSE(has_stopped_warning(m)) << m;
}

TEST(StoppedBlocks, OnlyBlocksOverFiftyTimesTheMedianAreJudged) {
    EXPECT_EQ(blocks(20, 1.0, {{0.049, 1e-3}}).stopped_blocks(), 0u);
    EXPECT_EQ(blocks(20, 1.0, {{0.051, 1e-3}}).stopped_blocks(), 1u);
}

TEST(StoppedBlocks, CpuGrowthBelowATenthOfTheExtraWallTimeIsAStop) {
    // Extra wall time 99 ms at a CPU share of 1: under 9.9 ms more CPU time is a stop.
    EXPECT_EQ(blocks(20, 1.0, {{0.1, 1e-3 + 9.8e-3}}).stopped_blocks(), 1u);
    EXPECT_EQ(blocks(20, 1.0, {{0.1, 1e-3 + 10e-3}}).stopped_blocks(), 0u);
}

TEST(StoppedBlocks, ThreadsThatUseMoreCpuThanWallTimeAreJudgedByTheirShare) {
    // Four threads: 4 ms CPU a 1 ms block. A stop adds no CPU time; a slow block adds 4x.
    EXPECT_EQ(blocks(20, 4.0, {{0.1, 4e-3}}).stopped_blocks(), 1u);
    EXPECT_EQ(blocks(20, 4.0, {{0.1, 0.4}}).stopped_blocks(), 0u);
}

TEST(StoppedBlocks, NotJudgedWithoutCpuTimesOrWhereTheCaseWaits) {
    const Measurement no_cpu(10, {1e-3, 1e-3, 1e-3, 1e-3, 0.5}, {.stmt = "f()"});
    EXPECT_EQ(no_cpu.stopped_blocks(), 0u);
    // A case that sleeps or waits for a device: CPU time cannot tell a stop from a wait.
    EXPECT_EQ(blocks(20, 0.1, {{0.5, 0.1e-3}}).stopped_blocks(), 0u);
    EXPECT_EQ(blocks(20, 0.49, {{0.5, 0.49e-3}}).stopped_blocks(), 0u);
    EXPECT_EQ(blocks(20, 0.5, {{0.5, 0.5e-3}}).stopped_blocks(), 1u);
}

TEST(StoppedBlocks, MergedMeasurementsAreJudgedOnTheirJoinedBlocks) {
    const Measurement a = blocks(10, 1.0, {});
    const Measurement b = blocks(10, 1.0, {{0.3, 1e-3}});
    const std::vector<Measurement> merged = Measurement::merge(std::vector<Measurement>{a, b});
    ASSERT_EQ(merged.size(), 1u);
    EXPECT_EQ(merged[0].stopped_blocks(), 1u);
}
