#include "vitals/stats.hpp"

#include "vitals/number_text.hpp"

#include <algorithm>
#include <cmath>
#include <charconv>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

namespace vitals::stats {
namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
}  // namespace

// glibc's log10f differs from torch's float32 log10 in rare last-bit cases; the
// logarithm of the float-rounded value, taken in double and rounded to float, does not.
double log10_float32(double x) {
    return static_cast<double>(static_cast<float>(std::log10(static_cast<double>(static_cast<float>(x)))));
}

std::vector<double> sorted_copy(std::span<const double> samples) {
    std::vector<double> out(samples.begin(), samples.end());
    std::sort(out.begin(), out.end());
    return out;
}

double quantile_sorted(std::span<const double> sorted, double q) {
    if (!(q >= 0.0 && q <= 1.0)) {
        throw std::invalid_argument("quantile: q must be in [0, 1], got " + shortest_text(q));
    }
    if (sorted.empty()) return kNaN;
    const QuantilePosition at = quantile_position(sorted.size(), q);
    return interpolate(sorted[at.below], sorted[at.above], at.weight);
}

QuantilePosition quantile_position(std::size_t n, double q) {
    const double position = q * static_cast<double>(n - 1);
    const auto below = static_cast<std::size_t>(std::floor(position));
    const auto above = static_cast<std::size_t>(std::ceil(position));
    return {below, above, position - static_cast<double>(below)};
}

double interpolate(double a, double b, double w) {
    // numpy's and torch's lerp, which interpolates from the nearer end; the naive
    // a + w * (b - a) differs from them in the last bit.
    return w < 0.5 ? a + w * (b - a) : b - (b - a) * (1.0 - w);
}

double quantile(std::span<const double> samples, double q) {
    // As numpy: a NaN among the samples makes every quantile NaN (sorting cannot place it).
    if (std::any_of(samples.begin(), samples.end(), [](double v) { return std::isnan(v); })) return kNaN;
    const std::vector<double> sorted = sorted_copy(samples);
    return quantile_sorted(sorted, q);
}

double median(std::span<const double> samples) { return quantile(samples, 0.5); }

double mean(std::span<const double> samples) {
    if (samples.empty()) return kNaN;
    return std::accumulate(samples.begin(), samples.end(), 0.0) / static_cast<double>(samples.size());
}

double iqr(std::span<const double> samples) {
    const std::vector<double> sorted = sorted_copy(samples);
    return quantile_sorted(sorted, 0.75) - quantile_sorted(sorted, 0.25);
}

namespace {
double sum_squared_deviations(std::span<const double> samples) {
    const double m = mean(samples);
    double total = 0.0;
    for (double v : samples) total += (v - m) * (v - m);
    return total;
}
}  // namespace

double stddev_population(std::span<const double> samples) {
    if (samples.empty()) return kNaN;
    return std::sqrt(sum_squared_deviations(samples) / static_cast<double>(samples.size()));
}

double stddev_sample(std::span<const double> samples) {
    if (samples.size() < 2) return kNaN;
    return std::sqrt(sum_squared_deviations(samples) / static_cast<double>(samples.size() - 1));
}

int significant_figures(std::span<const double> sorted, double median) {
    constexpr double kMinConfidenceInterval = 25e-9;  // clock resolution floor, in seconds
    constexpr int kMaxSignificantFigures = 4;
    const std::size_t n = sorted.size();
    if (n == 0) return 1;
    const std::size_t lower = n / 4;
    const auto upper = static_cast<std::size_t>(std::ceil(3.0 * static_cast<double>(n) / 4.0));
    // The reference holds the middle half in a float32 tensor: round like it does.
    std::vector<double> middle;
    for (std::size_t i = lower; i < upper; ++i) middle.push_back(static_cast<float>(sorted[i]));
    const double std_dev = static_cast<float>(stddev_population(middle));
    const double sqrt_n = static_cast<float>(std::sqrt(static_cast<double>(middle.size())));
    const double ci = std::max(1.645 * std_dev / sqrt_n, kMinConfidenceInterval);
    const double figures = std::floor(log10_float32(median / ci));
    if (!std::isfinite(figures)) return 1;
    return static_cast<int>(std::clamp(figures, 1.0, static_cast<double>(kMaxSignificantFigures)));
}

double trim_sigfig(double x, int n) {
    if (x == 0.0 || !std::isfinite(x)) return x;
    // float32 arithmetic, as the reference does it on a default-dtype tensor, so trimmed
    // cells print the same digits; nearbyint rounds half to even like torch.round.
    const double log = std::ceil(log10_float32(std::fabs(x)));
    if (!std::isfinite(log)) return x;  // below float's range: nothing to trim
    const int magnitude = static_cast<int>(log);
    const double scale = std::pow(10.0, magnitude - n);
    const float rounded = std::rint(static_cast<float>(x / scale));
    return static_cast<double>(rounded * static_cast<float>(scale));
}

TimeUnit select_unit(double seconds) {
    const double exponent = std::floor(log10_float32(seconds) / 3.0);
    if (exponent <= -3.0) return {"ns", 1e-9};  // the reference says "s" below 1 ns; ns reads right
    if (exponent == -2.0) return {"us", 1e-6};
    if (exponent == -1.0) return {"ms", 1e-3};
    return {"s", 1.0};
}

std::string format_seconds(double seconds) {
    const TimeUnit unit = select_unit(seconds);
    char text[64];  // to_chars, not printf: "1.00 ms" in every locale (printf writes "1,00" under de_DE)
    // A million seconds and more (only a wrong or hostile input): as 1.23e+06, so a row
    // keeps its width.
    const double value = seconds / unit.scale;
    const auto format = std::fabs(value) < 1e6 || !std::isfinite(value) ? std::chars_format::fixed : std::chars_format::scientific;
    const auto [end, error] = std::to_chars(text, text + sizeof text, value, format, 2);
    if (error != std::errc()) return "? " + std::string(unit.name);
    return std::string(text, end) + " " + std::string(unit.name);
}

std::string_view unit_to_english(std::string_view unit) {
    if (unit == "ns") return "nanosecond";
    if (unit == "us") return "microsecond";
    if (unit == "ms") return "millisecond";
    return "second";
}

}  // namespace vitals::stats
