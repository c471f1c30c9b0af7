#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "vitals/running_stats.hpp"
#include "vitals/stats.hpp"

using vitals::stats::RunningStats;

TEST(RunningStats, EmptyHasNoValues) {
    RunningStats s;
    EXPECT_EQ(s.count(), 0);
    EXPECT_EQ(s.sum(), 0.0);
    EXPECT_TRUE(std::isnan(s.mean()));
    EXPECT_TRUE(std::isnan(s.min()));
    EXPECT_TRUE(std::isnan(s.variance()));
}

TEST(RunningStats, AgreesWithBatchStatistics) {
    const std::vector<double> v{2, 4, 4, 4, 5, 5, 7, 9};
    RunningStats s;
    for (double x : v) s.add(x);
    EXPECT_EQ(s.count(), 8);
    EXPECT_DOUBLE_EQ(s.sum(), 40.0);
    EXPECT_DOUBLE_EQ(s.min(), 2.0);
    EXPECT_DOUBLE_EQ(s.max(), 9.0);
    EXPECT_DOUBLE_EQ(s.mean(), 5.0);
    EXPECT_DOUBLE_EQ(s.variance(), 4.0);  // population variance
    EXPECT_DOUBLE_EQ(std::sqrt(s.variance()), vitals::stats::stddev_population(v));
}

TEST(RunningStats, CopiesAreIndependent) {
    RunningStats a;
    a.add(1.0);
    RunningStats b = a;
    b.add(3.0);
    EXPECT_EQ(a.count(), 1);
    EXPECT_EQ(b.count(), 2);
    EXPECT_DOUBLE_EQ(b.mean(), 2.0);
}
