// Change points in a series of medians by commit: where a case's speed stepped.
//
// Candidates come from E-divisive means (Matteson & James, "A Nonparametric Approach for
// Multiple Change Point Analysis of Multivariate Data", JASA 2014), the method of
// MongoDB's and DataStax's Hunter/Otava: binary segmentation, each segment split where
// the energy distance between its two sides is largest (alpha = 1). Each candidate is then
// tested locally, as Hunter does with a t-test instead of E-divisive's permutations: in a
// window of `window` points on either side, a robust line is fitted to each side
// (Theil-Sen's slope, the median intercept, the residuals' scale from their median
// absolute deviation) and the gap c between the two lines at the candidate is tested with
// Student's t (two-sided, n - 4 degrees of freedom). The lines keep a slow drift from
// reading as a step (a drift moves the two windows' means apart, not the lines at the
// candidate), and their robustness keeps one outlying commit from hiding a step. A segment whose best candidate is
// not significant is not split further; at the end, candidates are re-tested against
// their neighbours and the least significant dropped until all pass.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace vitals::stats {

struct ChangePointOptions {
    double p_value = 0.001;       // a step is kept when its two-sided p-value is below this
    std::size_t window = 30;      // points on either side of a candidate in its test
    std::size_t min_segment = 4;  // fewest points between two change points (and at the ends)
    double min_step = 0.0;        // a fraction: smaller steps (|c| / level) are dropped
};

struct ChangePoint {
    std::size_t index = 0;  // the first point after the step
    double level_before = 0, level_after = 0;  // the fitted line just before and at the index
    double step = 0;        // (level_after - level_before) / level_before
    double p_value = 1;
};

// The split of `x` (at least 2 * min_segment points) that maximises E-divisive's energy
// statistic, and that statistic: {index of the first point of the right side, Q}. Q is
// (n m / (n + m)) (2 E|X - Y| - E|X - X'| - E|Y - Y'|) over the two sides' points.
struct EnergySplit {
    std::size_t index = 0;
    double q = 0;
};
EnergySplit best_energy_split(std::span<const double> x, std::size_t min_segment);

// The step test at `index` over x[from, to) (2 points or more a side, 5 in all): the two
// lines' values at the index (level before, level after), the step and its p-value.
ChangePoint test_step(std::span<const double> x, std::size_t from, std::size_t index, std::size_t to);

// The change points of `series`, in order. Throws std::invalid_argument for options out
// of range (p_value outside (0, 1), min_segment < 2, window < min_segment).
std::vector<ChangePoint> detect_change_points(std::span<const double> series, const ChangePointOptions& options = {});

}  // namespace vitals::stats
