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
    if (!(from < index && index < to && to <= x.size()) || to - from < 4) {
        throw std::invalid_argument("test_step: needs from < index < to <= size and 4 points or more");
    }
    // Least squares of y = a + b t + c d, d = [t >= index], from the centred moments the
    // accumulators gather; t counts from `index` so that a + c is the level at the step.
    acc::accumulator_set<double, acc::stats<acc::tag::mean, acc::tag::variance,
                                            acc::tag::covariance<double, acc::tag::covariate1>>>
        y_acc, t_acc, d_acc;
    for (std::size_t i = from; i < to; ++i) {
        const double t = static_cast<double>(i) - static_cast<double>(index), d = i >= index ? 1.0 : 0.0;
        y_acc(x[i], acc::covariate1 = t);  // cov(y, t)
        t_acc(t, acc::covariate1 = d);     // cov(t, d)
        d_acc(d, acc::covariate1 = x[i]);  // cov(d, y)
    }
    const auto n = static_cast<double>(to - from);
    const double syy = acc::variance(y_acc), stt = acc::variance(t_acc), sdd = acc::variance(d_acc);
    const double syt = acc::covariance(y_acc), std_ = acc::covariance(t_acc), sdy = acc::covariance(d_acc);
    // Normal equations in the centred variables: [stt std; std sdd] [b; c] = [syt; sdy].
    const double det = stt * sdd - std_ * std_;
    ChangePoint out;
    out.index = index;
    if (!(det > 0)) return out;
    const double b = (syt * sdd - sdy * std_) / det;
    const double c = (stt * sdy - std_ * syt) / det;
    const double a = acc::mean(y_acc) - b * acc::mean(t_acc) - c * acc::mean(d_acc);
    // Residual variance: var(y) - the explained part, over n - 3 degrees of freedom.
    const double rss = std::max(0.0, n * (syy - b * syt - c * sdy));
    const double dof = n - 3;
    const double sigma2 = rss / dof;
    const double var_c = sigma2 * stt / (n * det);
    out.level_before = a;  // the line's value at the step, without it
    out.level_after = a + c;
    out.step = a != 0 ? c / std::fabs(a) : 0.0;
    if (var_c <= 0) {
        out.p_value = c == 0 ? 1.0 : 0.0;  // a perfect fit: the step is exact
        return out;
    }
    const double t_stat = std::fabs(c) / std::sqrt(var_c);
    const boost::math::students_t dist(dof);
    out.p_value = std::min(1.0, 2.0 * boost::math::cdf(boost::math::complement(dist, t_stat)));
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
