#include "vitals/significance.hpp"

#include <boost/math/distributions/normal.hpp>
#include <boost/math/special_functions/beta.hpp>
#include <boost/math/special_functions/binomial.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "vitals/number_text.hpp"

#include "vitals/stats.hpp"

namespace vitals::stats {
namespace {

// Average ranks (1-based) of the concatenated samples, and sum(t^3 - t) over tie groups.
struct Ranking {
    std::vector<double> ranks;
    double tie_term = 0;
};

Ranking rank(std::span<const double> x, std::span<const double> y) {
    std::vector<double> all(x.begin(), x.end());
    all.insert(all.end(), y.begin(), y.end());
    std::vector<std::size_t> order(all.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return all[a] < all[b]; });
    Ranking r;
    r.ranks.assign(all.size(), 0);
    for (std::size_t i = 0; i < order.size();) {
        std::size_t j = i;
        while (j + 1 < order.size() && all[order[j + 1]] == all[order[i]]) ++j;
        const double average = (static_cast<double>(i) + static_cast<double>(j)) / 2.0 + 1.0;
        for (std::size_t k = i; k <= j; ++k) r.ranks[order[k]] = average;
        const auto t = static_cast<double>(j - i + 1);
        r.tie_term += t * t * t - t;
        i = j + 1;
    }
    return r;
}

// P(U >= u) under the null for sample sizes m and n: the counts of U are the
// coefficients of the Gaussian binomial [m+n choose m]_q, built as
// prod_{i=1..m} (1 - q^(n+i)) / (1 - q^i).
double exact_sf(double u, std::size_t m, std::size_t n) {
    if (m > n) std::swap(m, n);
    const std::size_t degree = m * n;
    std::vector<double> c(degree + 1, 0.0);
    c[0] = 1.0;
    for (std::size_t i = 1; i <= m; ++i) {
        for (std::size_t k = degree; k >= n + i && k <= degree; --k) c[k] -= c[k - (n + i)];  // * (1 - q^(n+i))
        for (std::size_t k = i; k <= degree; ++k) c[k] += c[k - i];                           // / (1 - q^i)
    }
    const double total = boost::math::binomial_coefficient<double>(static_cast<unsigned>(m + n), static_cast<unsigned>(m));
    // SciPy: sf(k) = cdf(m*n - k), summing the mass from 0 to m*n - k (symmetry).
    const auto upper = static_cast<std::size_t>(static_cast<double>(degree) - u);
    double sum = 0;
    for (std::size_t k = 0; k <= upper && k <= degree; ++k) sum += c[k];
    return sum / total;
}

}  // namespace

MannWhitneyResult mann_whitney_u(std::span<const double> x, std::span<const double> y) {
    if (x.empty() || y.empty()) throw std::invalid_argument("mann_whitney_u: both samples need at least one value");
    const auto has_nan = [](std::span<const double> s) { return std::any_of(s.begin(), s.end(), [](double v) { return std::isnan(v); }); };
    if (has_nan(x) || has_nan(y)) throw std::invalid_argument("mann_whitney_u: samples must not contain NaN");
    const auto n1 = static_cast<double>(x.size()), n2 = static_cast<double>(y.size());
    const Ranking r = rank(x, y);
    const double r1 = std::accumulate(r.ranks.begin(), r.ranks.begin() + static_cast<std::ptrdiff_t>(x.size()), 0.0);
    const double u1 = r1 - n1 * (n1 + 1) / 2;
    const double u = std::max(u1, n1 * n2 - u1);
    MannWhitneyResult result;
    result.u = u1;
    result.exact = !(x.size() > 8 && y.size() > 8) && r.tie_term == 0;
    double p = 0;
    if (result.exact) {
        p = 2 * exact_sf(u, x.size(), y.size());
    } else {
        const double n = n1 + n2;
        const double s = std::sqrt(n1 * n2 / 12 * ((n + 1) - r.tie_term / (n * (n - 1))));
        const double z = (u - n1 * n2 / 2 - 0.5) / s;
        if (std::isnan(z)) {
            p = 1;  // 0 / 0: no spread at all, no evidence of a difference
        } else if (std::isinf(z)) {
            p = z < 0 ? 2.0 : 0.0;  // norm.sf(-inf) = 1, norm.sf(inf) = 0 (then doubled and clipped)
        } else {
            p = 2 * boost::math::cdf(boost::math::complement(boost::math::normal_distribution<double>(), z));
        }
    }
    result.p_value = std::clamp(p, 0.0, 1.0);
    return result;
}

std::string_view verdict_name(Verdict v) {
    switch (v) {
        case Verdict::faster: return "faster";
        case Verdict::slower: return "slower";
        case Verdict::same: return "same";
        case Verdict::untested: return "untested";
    }
    return "same";
}

Change test_change(std::span<const double> before, std::span<const double> after, double alpha, double noise_floor) {
    Change c;
    c.before_median = median(before);
    c.after_median = median(after);
    // From a zero median any other is an unbounded change, not +0%: it must not pass as same.
    c.change = c.before_median != 0   ? (c.after_median - c.before_median) / std::fabs(c.before_median)
               : c.after_median == 0 ? 0.0
                                     : std::copysign(std::numeric_limits<double>::infinity(), c.after_median);
    c.p_value = mann_whitney_u(before, after).p_value;
    if (c.p_value < alpha && std::fabs(c.change) > noise_floor) c.verdict = c.change < 0 ? Verdict::faster : Verdict::slower;
    return c;
}

std::optional<MedianInterval> median_interval_ranks(std::size_t n, double confidence) {
    if (!(confidence > 0.0 && confidence < 1.0)) {
        throw std::invalid_argument("median_interval_ranks: confidence must be in (0, 1), got " + shortest_text(confidence));
    }
    if (n == 0) return std::nullopt;
    const double tail = (1.0 - confidence) / 2.0;
    // P(B <= j) for B ~ Binomial(n, 1/2): the regularised incomplete beta, so each
    // evaluation costs about the same at any n.
    const auto below_or_at = [n](std::size_t j) {
        return j >= n ? 1.0 : boost::math::ibeta(static_cast<double>(n - j), static_cast<double>(j + 1), 0.5);
    };
    // The largest k (1-based lower rank) with P(B <= k - 1) <= tail; P grows with k.
    if (below_or_at(0) > tail) return std::nullopt;
    std::size_t good = 1, bad = n / 2 + 1;  // below_or_at(good - 1) <= tail < below_or_at(bad - 1)
    while (bad - good > 1) {
        const std::size_t middle = good + (bad - good) / 2;
        (below_or_at(middle - 1) <= tail ? good : bad) = middle;
    }
    return MedianInterval{good - 1, n - good, 1.0 - 2.0 * below_or_at(good - 1)};
}

double sign_test_p_value(std::size_t above, std::size_t below) {
    const std::size_t n = above + below;
    if (n == 0) return 1.0;
    const std::size_t k = std::min(above, below);
    // P(X <= k) for X ~ Binomial(n, 1/2): the regularised incomplete beta I_{1/2}(n - k, k + 1).
    const double tail = k == n ? 1.0 : boost::math::ibeta(static_cast<double>(n - k), static_cast<double>(k) + 1.0, 0.5);
    return std::min(1.0, 2.0 * tail);
}

}  // namespace vitals::stats
