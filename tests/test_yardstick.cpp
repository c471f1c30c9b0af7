// The kernel bench's yardstick rule (benches/yardstick.hpp) on synthetic bandwidths.
#include <gtest/gtest.h>

#include "yardstick.hpp"

using vitals::benches::Yardsticks;
using vitals::benches::yardstick_doubt;

TEST(Yardstick, AgreeingNeighboursAreSound) {
    const Yardsticks y{{262144, 60e9}, {1835008, 55e9}, {5242880, 31e9}};
    for (const auto& [bytes, _] : y) EXPECT_FALSE(yardstick_doubt(y, bytes)) << bytes;
}

// The figure that made a ratio ten times too high: 5.6 GB/s beside 50-65 GB/s.
TEST(Yardstick, ATenfoldOutlierIsDoubtedWithItsNeighboursNamed) {
    const Yardsticks y{{262144, 5.6e9}, {1835008, 55e9}, {5242880, 65e9}};
    const auto doubt = yardstick_doubt(y, 262144);
    ASSERT_TRUE(doubt);
    EXPECT_EQ(*doubt,
              "the copy of 262144 bytes ran at 5.6 GB/s, more than 2x off its neighbours (55.0 GB/s at 1835008 bytes); "
              "rerun on a quieter machine");
    EXPECT_FALSE(yardstick_doubt(y, 1835008)) << "one outlier neighbour does not doubt a size whose other neighbour agrees";
}

TEST(Yardstick, AnInnerSizeIsDoubtedOnlyWhenBothNeighboursDisagree) {
    EXPECT_TRUE(yardstick_doubt({{1, 50e9}, {2, 10e9}, {3, 50e9}}, 2));
    EXPECT_FALSE(yardstick_doubt({{1, 50e9}, {2, 20e9}, {3, 11e9}}, 2)) << "a step down a cache level: 2.5x one side, 1.8x the other";
    EXPECT_TRUE(yardstick_doubt({{1, 10e9}, {2, 50e9}, {3, 10e9}}, 2)) << "faster than both";
}

// A Zen 3 EPYC's copies (512 KiB L2, 32 MiB L3): the 16.8 MB one half in L3, 2.3x off
// each side, is a step down the levels, not an outlier; the same speed past both
// neighbours' (slower than the larger size's, faster than the smaller's) is doubted.
TEST(Yardstick, ASizeBetweenItsNeighboursSpeedsIsAStepDownTheCacheLevels) {
    EXPECT_FALSE(yardstick_doubt({{9435424, 64.0e9}, {16777216, 27.6e9}, {30203032, 12.1e9}}, 16777216));
    EXPECT_TRUE(yardstick_doubt({{9435424, 12.1e9}, {16777216, 27.6e9}, {30203032, 64.0e9}}, 16777216));
    EXPECT_TRUE(yardstick_doubt({{9435424, 64.0e9}, {16777216, 5.0e9}, {30203032, 12.1e9}}, 16777216));
    // Exactly 2x is within the tolerance, a hair past it is not.
    EXPECT_FALSE(yardstick_doubt({{1, 10e9}, {2, 20e9}}, 2));
    EXPECT_TRUE(yardstick_doubt({{1, 10e9}, {2, 20.1e9}}, 2)) << "the largest size faster than the one below";
    EXPECT_TRUE(yardstick_doubt({{1, 10e9}, {2, 20.1e9}}, 1)) << "the smallest size slower than the one above";
}

// At the edges a size has one neighbour, and steps down from it as an inner size does:
// a Zen 4 EPYC's copies (32 MiB L3) of the 16M nonzero cases run alone, the 84 MB one out
// of L3 at 2.6x below the 30 MB one; an L2-sized copy 2.5x above an L3-sized one.
TEST(Yardstick, TheEdgeSizesStepDownFromTheirOneNeighbour) {
    EXPECT_FALSE(yardstick_doubt({{30203032, 50.4e9}, {83888328, 19.4e9}}, 83888328));
    EXPECT_FALSE(yardstick_doubt({{30203032, 50.4e9}, {83888328, 19.4e9}}, 30203032));
    EXPECT_FALSE(yardstick_doubt({{262144, 150e9}, {1835008, 60e9}, {5242880, 55e9}}, 262144));
    // The other way round, each is past what a cache explains.
    EXPECT_TRUE(yardstick_doubt({{30203032, 19.4e9}, {83888328, 50.4e9}}, 83888328));
    EXPECT_TRUE(yardstick_doubt({{262144, 25e9}, {1835008, 60e9}, {5242880, 55e9}}, 262144));
}

TEST(Yardstick, MissingOrEmptyCopiesAreDoubtedAndALoneSizeIsNot) {
    EXPECT_EQ(*yardstick_doubt({{1, 10e9}}, 2), "no copy of 2 bytes was measured");
    EXPECT_EQ(*yardstick_doubt({{1, 10e9}, {2, 0}}, 2), "the copy of 2 bytes measured no bandwidth");
    EXPECT_FALSE(yardstick_doubt({{1, 10e9}}, 1));
}
