#include "vitals/complexity.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>

namespace vitals::stats {

std::string growth_name(Growth growth) {
    switch (growth) {
        case Growth::constant: return "O(1)";
        case Growth::log_n: return "O(log n)";
        case Growth::n: return "O(n)";
        case Growth::n_log_n: return "O(n log n)";
        case Growth::n_squared: return "O(n^2)";
        case Growth::n_cubed: return "O(n^3)";
    }
    return "O(1)";
}

namespace {

double shape(Growth growth, double n) {
    switch (growth) {
        case Growth::constant: return 1.0;
        case Growth::log_n: return std::log2(n);
        case Growth::n: return n;
        case Growth::n_log_n: return n * std::log2(n);
        case Growth::n_squared: return n * n;
        case Growth::n_cubed: return n * n * n;
    }
    return 1.0;
}

}  // namespace

ComplexityFit fit_complexity(std::span<const double> sizes, std::span<const double> times) {
    if (sizes.size() != times.size()) throw std::invalid_argument("fit_complexity: sizes and times differ in length");
    std::set<double> distinct;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
        if (!(sizes[i] > 0) || !std::isfinite(sizes[i]) || !(times[i] > 0) || !std::isfinite(times[i])) {
            throw std::invalid_argument("fit_complexity: sizes and times must be finite and > 0");
        }
        distinct.insert(sizes[i]);
    }
    if (distinct.size() < 2) throw std::invalid_argument("fit_complexity: needs at least 2 distinct sizes");
    const double count = static_cast<double>(times.size());
    double mean_time = 0;
    for (const double t : times) mean_time += t / count;
    ComplexityFit fit;
    for (const Growth g : {Growth::constant, Growth::log_n, Growth::n, Growth::n_log_n, Growth::n_squared, Growth::n_cubed}) {
        // Least squares of time = c * f(n) through the origin: c = sum(t f) / sum(f^2).
        double tf = 0, ff = 0;
        for (std::size_t i = 0; i < sizes.size(); ++i) {
            const double f = shape(g, sizes[i]);
            tf += times[i] * f;
            ff += f * f;
        }
        GrowthFit candidate{g, ff > 0 ? tf / ff : 0, 0};
        double squares = 0;
        for (std::size_t i = 0; i < sizes.size(); ++i) {
            const double residual = times[i] - candidate.coefficient * shape(g, sizes[i]);
            squares += residual * residual;
        }
        candidate.rms = std::sqrt(squares / count) / mean_time;
        // log n is 0 at n = 1: a fit that cannot be made there is no fit.
        if (!(ff > 0)) candidate.rms = INFINITY;
        fit.all.push_back(candidate);
    }
    fit.best = *std::min_element(fit.all.begin(), fit.all.end(),
                                 [](const GrowthFit& a, const GrowthFit& b) { return a.rms < b.rms; });
    // log t = log a + b log n, ordinary least squares.
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
        const double x = std::log(sizes[i]), y = std::log(times[i]);
        sx += x;
        sy += y;
        sxx += x * x;
        sxy += x * y;
    }
    fit.exponent = (count * sxy - sx * sy) / (count * sxx - sx * sx);
    fit.exponent_coefficient = std::exp((sy - fit.exponent * sx) / count);
    return fit;
}

}  // namespace vitals::stats
