// Is a difference real? The two-sided Mann-Whitney U test, as SciPy computes it, and
// the verdict vitals reports for a before/after pair.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string_view>

namespace vitals::stats {

struct MannWhitneyResult {
    double u = 0;        // U of the first sample (SciPy's `statistic`)
    double p_value = 1;  // two-sided
    bool exact = false;  // exact distribution (small samples without ties) or normal approximation
};

// scipy.stats.mannwhitneyu(x, y, alternative="two-sided") with its defaults (SciPy 1.10):
// the exact distribution when either sample has at most 8 values and there are no ties,
// otherwise the normal approximation with tie correction and a 0.5 continuity
// correction. Throws std::invalid_argument for an empty sample or a NaN.
MannWhitneyResult mann_whitney_u(std::span<const double> x, std::span<const double> y);

// untested: no test was possible (a side of one value, as an aggregates-only file
// gives); test_change never returns it, the comparison of runs does.
enum class Verdict { faster, slower, same, untested };
std::string_view verdict_name(Verdict v);

struct Change {
    double before_median = 0, after_median = 0;
    double change = 0;  // (after - before) / |before|, as Google Benchmark's compare.py; +-inf from a zero before
    double p_value = 1;
    Verdict verdict = Verdict::same;
};

// faster / slower when the U test is significant at `alpha` and the medians differ by
// more than `noise_floor` (a fraction); otherwise same.
Change test_change(std::span<const double> before, std::span<const double> after, double alpha = 0.05,
                       double noise_floor = 0.01);

// The distribution-free confidence interval of a median: 0-based ranks (lower, upper)
// in a sorted sample of n such that [x_lower, x_upper] covers the population median with
// probability at least `confidence` (exact, from the binomial distribution with p = 1/2:
// the interval of order statistics used by nonparametric statistics texts). nullopt
// when n is too small for that confidence (n < 6 at 95%). Throws std::invalid_argument
// for a confidence outside (0, 1).
struct MedianInterval {
    std::size_t lower, upper;
    double coverage;  // its exact probability of covering the median
};
std::optional<MedianInterval> median_interval_ranks(std::size_t n, double confidence = 0.95);

// The two-sided exact sign test for paired data: `above` pairs where the second exceeds
// the first, `below` where it falls short (ties are left out). The p-value is
// 2 * P(X <= min(above, below)) for X ~ Binomial(above + below, 1/2), at most 1; 1 when
// no pair differs. Its inversion is median_interval_ranks: the 95% interval of the
// paired ratios' median leaves out 1 exactly when this test rejects at the level that
// interval's coverage gives.
double sign_test_p_value(std::size_t above, std::size_t below);

}  // namespace vitals::stats
