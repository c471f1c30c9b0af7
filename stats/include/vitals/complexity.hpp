// How a cost grows with a size: Google Benchmark's Complexity() fits (O(1), O(log n),
// O(n), O(n log n), O(n^2), O(n^3)) and a free exponent from a log-log fit.
#pragma once

#include <span>
#include <string>
#include <vector>

namespace vitals::stats {

enum class Growth { constant, log_n, n, n_log_n, n_squared, n_cubed };
// "O(1)", "O(log n)", "O(n)", "O(n log n)", "O(n^2)", "O(n^3)".
std::string growth_name(Growth growth);

struct GrowthFit {
    Growth growth = Growth::constant;
    double coefficient = 0;  // time = coefficient * f(n)
    double rms = 0;          // root mean square of the residuals over the mean time (as Google Benchmark)
};

struct ComplexityFit {
    GrowthFit best;                 // the candidate of least rms
    std::vector<GrowthFit> all;     // every candidate, in enum order
    double exponent = 0;            // b of time = a * n^b, least squares in log-log
    double exponent_coefficient = 0;  // a
};

// Fits times[i] measured at sizes[i] (at least 2 distinct sizes > 0, positive times).
// Throws std::invalid_argument otherwise.
ComplexityFit fit_complexity(std::span<const double> sizes, std::span<const double> times);

}  // namespace vitals::stats
