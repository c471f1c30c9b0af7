// Change points on synthetic series with known answers: the energy split, the local step
// test against robust lines computed with NumPy and SciPy, and the detector on steps, a
// drift and flat noise.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "vitals/change_points.hpp"

using namespace vitals::stats;

namespace {

// Deterministic noise in [-amplitude, amplitude): a linear congruential generator.
std::vector<double> noisy(std::size_t n, double level, double amplitude, std::uint32_t seed) {
    std::vector<double> out;
    for (std::size_t i = 0; i < n; ++i) {
        seed = seed * 1664525u + 1013904223u;
        out.push_back(level * (1 + amplitude * (2.0 * (seed >> 8) / 16777216.0 - 1.0)));
    }
    return out;
}

}  // namespace

TEST(EnergySplit, FindsTheStepOfATwoLevelSeries) {
    const std::vector<double> x{0, 0, 0, 0, 0, 10, 10, 10, 10, 10};
    const EnergySplit s = best_energy_split(x, 2);
    EXPECT_EQ(s.index, 5u);
    // Q = (5 * 5 / 10) * (2 * 10 - 0 - 0) = 50.
    EXPECT_DOUBLE_EQ(s.q, 50.0);
    EXPECT_THROW(best_energy_split(x, 6), std::invalid_argument);
}

TEST(StepTest, MatchesRobustLinesComputedByHand) {
    // Each side: Theil-Sen's slope (the median of pairwise slopes), the median of
    // y - slope t, the scale 1.4826 MAD; the step's p-value from Student's t with 6
    // degrees of freedom. Computed independently with NumPy and SciPy.
    const std::vector<double> x{1.0, 1.2, 0.9, 1.1, 1.0, 2.1, 1.9, 2.0, 2.2, 1.8};
    const ChangePoint c = test_step(x, 0, 5, 10);
    EXPECT_EQ(c.index, 5u);
    EXPECT_NEAR(c.level_before, 0.9750000000000001, 1e-12);
    EXPECT_NEAR(c.level_after, 2.0833333333333335, 1e-12);
    EXPECT_NEAR(c.step, 1.1367521367521367, 1e-12);
    EXPECT_NEAR(c.p_value, 0.001664290183979261, 1e-12);
    EXPECT_THROW(test_step(x, 0, 1, 10), std::invalid_argument);
}

TEST(StepTest, OneOutlyingCommitNeitherTiltsALineNorHidesTheStep) {
    std::vector<double> x;
    for (int i = 0; i < 25; ++i) x.push_back((i < 12 ? 100.0 : i < 24 ? 110.0 : 130.0) * (1 + ((i * 3) % 5 - 2) * 0.0005));
    const ChangePoint c = test_step(x, 0, 12, 25);
    EXPECT_NEAR(c.level_before, 100.0, 0.1);
    EXPECT_NEAR(c.level_after, 110.0, 0.1);
    EXPECT_LT(c.p_value, 1e-6);
}

TEST(StepTest, ADriftIsNoStep) {
    std::vector<double> x;
    for (int i = 0; i < 40; ++i) x.push_back(100 + 0.1 * i + (i % 2 ? 0.05 : -0.05));
    const ChangePoint c = test_step(x, 0, 20, 40);
    EXPECT_LT(std::fabs(c.step), 1e-3);
    EXPECT_GT(c.p_value, 0.01);
}

TEST(ChangePoints, OneStepIsFoundWhereItHappened) {
    std::vector<double> x = noisy(60, 100, 0.01, 1);
    const std::vector<double> after = noisy(40, 103, 0.01, 2);
    x.insert(x.end(), after.begin(), after.end());
    const std::vector<ChangePoint> found = detect_change_points(x);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_NEAR(static_cast<double>(found[0].index), 60.0, 1.0);
    EXPECT_NEAR(found[0].step, 0.03, 0.01);
    EXPECT_LT(found[0].p_value, 0.001);
}

TEST(ChangePoints, TwoStepsUpAndBack) {
    std::vector<double> x = noisy(30, 100, 0.01, 3);
    for (double v : noisy(40, 110, 0.01, 4)) x.push_back(v);
    for (double v : noisy(30, 100, 0.01, 5)) x.push_back(v);
    const std::vector<ChangePoint> found = detect_change_points(x);
    ASSERT_EQ(found.size(), 2u);
    EXPECT_EQ(found[0].index, 30u);
    EXPECT_EQ(found[1].index, 70u);
    EXPECT_GT(found[0].step, 0.08);
    EXPECT_LT(found[1].step, -0.08);
}

TEST(ChangePoints, FlatNoiseAndASlowDriftHaveNone) {
    EXPECT_TRUE(detect_change_points(noisy(200, 100, 0.02, 6)).empty());
    std::vector<double> drift = noisy(200, 100, 0.01, 7);
    for (std::size_t i = 0; i < drift.size(); ++i) drift[i] *= 1 + 0.001 * static_cast<double>(i);
    for (const ChangePoint& c : detect_change_points(drift)) EXPECT_LT(std::fabs(c.step), 0.02) << c.index;
}

TEST(ChangePoints, StepsUnderTheFloorAndBadOptions) {
    std::vector<double> x = noisy(50, 100, 0.001, 8);
    for (double v : noisy(50, 100.5, 0.001, 9)) x.push_back(v);
    const std::vector<ChangePoint> above = detect_change_points(x, {.min_step = 0.003});
    ASSERT_EQ(above.size(), 1u);
    EXPECT_EQ(above[0].index, 50u);
    EXPECT_TRUE(detect_change_points(x, {.min_step = 0.01}).empty());
    EXPECT_TRUE(detect_change_points(std::vector<double>{1, 2, 3}).empty());
    EXPECT_THROW(detect_change_points(x, {.p_value = 0}), std::invalid_argument);
    EXPECT_THROW(detect_change_points(x, {.min_segment = 1}), std::invalid_argument);
    EXPECT_THROW(detect_change_points(x, {.window = 2, .min_segment = 4}), std::invalid_argument);
}
