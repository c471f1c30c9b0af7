// Descriptive statistics over per-call times: the numbers every vitals report shows.
//
// All functions are pure and take their samples as a span of doubles. Empty input gives
// NaN wherever a value is undefined (quantiles, mean, deviations); n = 1 is a valid
// sample whose quantiles all equal the single value and whose sample deviation is NaN.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace vitals::stats {

// Quantile q in [0, 1] with linear interpolation between order statistics
// (numpy's default method, and torch.quantile): position q * (n - 1) in the sorted sample.
// Throws std::invalid_argument for q outside [0, 1] or NaN.
double quantile(std::span<const double> samples, double q);
// The same over a sample that is already sorted ascending (no copy, no sort).
double quantile_sorted(std::span<const double> sorted, double q);

// Where quantile q falls in a sorted sample of n > 0 values: the 0-based ranks below and
// above, and the weight of the one above. With interpolate(), what quantile_sorted
// computes, for samples kept sorted some other way (an order-statistic tree).
struct QuantilePosition {
    std::size_t below, above;
    double weight;
};
QuantilePosition quantile_position(std::size_t n, double q);
// numpy's and torch's lerp between the values at those ranks.
double interpolate(double below_value, double above_value, double weight);

double median(std::span<const double> samples);
double mean(std::span<const double> samples);
// p75 - p25 with the interpolation above.
double iqr(std::span<const double> samples);
// Standard deviation dividing by n (numpy ddof=0). NaN for empty input, 0 for n = 1.
double stddev_population(std::span<const double> samples);
// Standard deviation dividing by n - 1 (numpy ddof=1). NaN for n < 2.
double stddev_sample(std::span<const double> samples);

// A sorted copy of the samples.
std::vector<double> sorted_copy(std::span<const double> samples);

// How many significant figures a median deserves, by the reference Timer's rule: the
// population deviation of the middle half of the sorted sample gives a 90% interval
// (1.645 * std / sqrt(count), at least 25 ns) and the answer is floor(log10(median /
// interval)) clamped to [1, 4]. `sorted` must be sorted ascending; empty gives 1.
int significant_figures(std::span<const double> sorted, double median);

// Rounds x to n significant figures, ties to even (3.14159, 2 -> 3.1). 0 stays 0.
// Computed in float32 like the reference, so a trimmed value prints the same digits.
double trim_sigfig(double x, int n);

// The display unit of a time in seconds: "ns" below 1 us, "us" below 1 ms, "ms" below
// 1 s, else "s"; scale is the unit's size in seconds. Below 1 ns the unit stays "ns"
// (the reference switches to "s" there and prints 0.00 s).
struct TimeUnit {
    std::string_view name;
    double scale;
};
TimeUnit select_unit(double seconds);
// A time with two decimals in its display unit: "12.34 us"; from a million seconds on,
// in scientific notation ("1.00e+299 s").
std::string format_seconds(double seconds);

// log10(x) as the reference computes it on a float32 tensor (x and the result rounded
// to float). Unit choice, trimming and figures use it so that they agree with the
// reference at the boundaries, near powers of ten.
double log10_float32(double x);

// "nanosecond", "microsecond", "millisecond", "second".
std::string_view unit_to_english(std::string_view unit);

}  // namespace vitals::stats
