#include "vitals/change_points.hpp"

#include <boost/accumulators/accumulators.hpp>
#include <boost/accumulators/statistics/covariance.hpp>
#include <boost/accumulators/statistics/mean.hpp>
#include <boost/accumulators/statistics/stats.hpp>
#include <boost/accumulators/statistics/variance.hpp>
#include <boost/accumulators/statistics/variates/covariate.hpp>
#include <boost/math/distributions/students_t.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "vitals/stats.hpp"

namespace vitals::stats {
namespace {

namespace acc = boost::accumulators;

// Sum over pairs i < k of |x_i - x_k|, for every prefix: within[j] is that sum over x[0, j).
std::vector<double> prefix_pair_distances(std::span<const double> x) {
    std::vector<double> within(x.size() + 1, 0.0);
    for (std::size_t j = 1; j < x.size(); ++j) {
        double added = 0;
        for (std::size_t i = 0; i < j; ++i) added += std::fabs(x[i] - x[j]);
        within[j + 1] = within[j] + added;
    }
    return within;
}

}  // namespace

EnergySplit best_energy_split(std::span<const double> x, std::size_t min_segment) {
    const std::size_t n = x.size();
    if (min_segment < 1 || n < 2 * min_segment) {
        throw std::invalid_argument("best_energy_split: needs at least 2 * min_segment points, got " + std::to_string(n));
    }
    const std::vector<double> left = prefix_pair_distances(x);  // within x[0, t)
    std::vector<double> reversed(x.rbegin(), x.rend());
    const std::vector<double> right_rev = prefix_pair_distances(reversed);  // within x[n - t, n)
    const double all = left[n];
    EnergySplit best{min_segment, -1.0};
    for (std::size_t t = min_segment; t + min_segment <= n; ++t) {
        const double a = static_cast<double>(t), b = static_cast<double>(n - t);
        const double within_left = left[t], within_right = right_rev[n - t];
        const double cross = all - within_left - within_right;
        const double q = (a * b / (a + b)) * (2.0 * cross / (a * b) - within_left / (a * (a - 1) / 2) -
                                              within_right / (b * (b - 1) / 2));
        if (q > best.q) best = {t, q};
    }
    return best;
}

ChangePoint test_step(std::span<const double> x, std::size_t from, std::size_t index, std::size_t to) {
    if (!(from + 2 <= index && index + 2 <= to && to <= x.size()) || to - from < 5) {
        throw std::invalid_argument("test_step: needs 2 points or more on either side of the index, and 5 in all");
    }
    // A robust line on each side, t counted from `index`: Theil-Sen's slope (the median of
    // the pairwise slopes), the median intercept, and the scale of the residuals from
    // their median absolute deviation, so that one outlying commit neither tilts a line
    // nor hides a step. The step is the gap between the two lines at t = 0.
    struct Line {
        double at_zero = 0, variance_at_zero = 0, n = 0;
    };
    const auto fit = [&](std::size_t lo, std::size_t hi) {
        const auto t_of = [&](std::size_t i) { return static_cast<double>(i) - static_cast<double>(index); };
        std::vector<double> slopes;
        for (std::size_t i = lo; i < hi; ++i) {
            for (std::size_t j = i + 1; j < hi; ++j) slopes.push_back((x[j] - x[i]) / (t_of(j) - t_of(i)));
        }
        const double slope = median(slopes);
        std::vector<double> offsets;
        acc::accumulator_set<double, acc::stats<acc::tag::mean, acc::tag::variance>> t;
        for (std::size_t i = lo; i < hi; ++i) {
            offsets.push_back(x[i] - slope * t_of(i));
            t(t_of(i));
        }
        Line line;
        line.n = static_cast<double>(hi - lo);
        line.at_zero = median(offsets);
        std::vector<double> deviations;
        acc::accumulator_set<double, acc::stats<acc::tag::mean>> absolute;
        for (double o : offsets) {
            deviations.push_back(std::fabs(o - line.at_zero));
            absolute(std::fabs(o - line.at_zero));
        }
        // 1.4826 MAD estimates a normal scale; where most residuals are 0 (repeated values),
        // 1.2533 times their mean absolute value does, less swayed by one outlier than
        // their root mean square.
        double scale = 1.4826 * median(deviations);
        if (scale == 0) scale = 1.2533 * acc::mean(absolute);
        // var(a) of a line at t = 0: scale^2 (1 / n + mean(t)^2 / (n var(t))).
        line.variance_at_zero = scale * scale * (1.0 / line.n + acc::mean(t) * acc::mean(t) / (line.n * acc::variance(t)));
        return line;
    };
    const Line left = fit(from, index), right = fit(index, to);
    ChangePoint out;
    out.index = index;
    out.level_before = left.at_zero;
    out.level_after = right.at_zero;
    const double c = right.at_zero - left.at_zero;
    out.step = left.at_zero != 0 ? c / std::fabs(left.at_zero) : 0.0;
    const double var_c = left.variance_at_zero + right.variance_at_zero;
    if (!(var_c > 0)) {
        out.p_value = c == 0 ? 1.0 : 0.0;  // both sides exact lines: the step is exact
        return out;
    }
    const boost::math::students_t dist(left.n + right.n - 4);
    out.p_value = std::min(1.0, 2.0 * boost::math::cdf(boost::math::complement(dist, std::fabs(c) / std::sqrt(var_c))));
    return out;
}

std::vector<ChangePoint> detect_change_points(std::span<const double> series, const ChangePointOptions& options) {
    if (!(options.p_value > 0 && options.p_value < 1)) {
        throw std::invalid_argument("detect_change_points: p_value must be in (0, 1)");
    }
    if (options.min_segment < 2 || options.window < options.min_segment || !(options.min_step >= 0)) {
        throw std::invalid_argument("detect_change_points: needs min_segment >= 2, window >= min_segment, min_step >= 0");
    }
    const std::size_t n = series.size(), w = options.window, m = options.min_segment;
    const auto local_test = [&](std::size_t index, std::size_t lo, std::size_t hi) {
        return test_step(series, std::max(lo, index > w ? index - w : 0), index, std::min(hi, index + w));
    };
    const auto passes = [&](const ChangePoint& c) { return c.p_value < options.p_value && std::fabs(c.step) >= options.min_step; };

    // Binary segmentation: split a segment where the energy is largest, while the split passes.
    std::vector<std::size_t> found;
    std::vector<std::pair<std::size_t, std::size_t>> segments{{0, n}};
    while (!segments.empty()) {
        const auto [lo, hi] = segments.back();
        segments.pop_back();
        if (hi - lo < 2 * m) continue;
        const EnergySplit split = best_energy_split(series.subspan(lo, hi - lo), m);
        const std::size_t index = lo + split.index;
        if (!passes(local_test(index, lo, hi))) continue;
        found.push_back(index);
        segments.emplace_back(lo, index);
        segments.emplace_back(index, hi);
    }
    std::sort(found.begin(), found.end());

    // Each change point against its neighbours: drop the weakest failing one until all pass.
    for (;;) {
        std::vector<ChangePoint> tested;
        for (std::size_t i = 0; i < found.size(); ++i) {
            const std::size_t lo = i == 0 ? 0 : found[i - 1], hi = i + 1 == found.size() ? n : found[i + 1];
            tested.push_back(local_test(found[i], lo, hi));
        }
        std::size_t weakest = found.size();
        for (std::size_t i = 0; i < tested.size(); ++i) {
            if (!passes(tested[i]) && (weakest == found.size() || tested[i].p_value > tested[weakest].p_value)) weakest = i;
        }
        if (weakest == found.size()) return tested;
        found.erase(found.begin() + static_cast<std::ptrdiff_t>(weakest));
    }
}

}  // namespace vitals::stats
