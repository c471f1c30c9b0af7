#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "fixtures.hpp"
#include "vitals/complexity.hpp"
#include "vitals/stats.hpp"

namespace stats = vitals::stats;
using vitals::testing::read_json;

TEST(Quantile, HandComputedOneToFour) {
    const std::vector<double> v{1, 2, 3, 4};
    EXPECT_DOUBLE_EQ(stats::quantile(v, 0.25), 1.75);
    EXPECT_DOUBLE_EQ(stats::quantile(v, 0.5), 2.5);
    EXPECT_DOUBLE_EQ(stats::quantile(v, 0.75), 3.25);
    EXPECT_DOUBLE_EQ(stats::median(v), 2.5);
    EXPECT_DOUBLE_EQ(stats::iqr(v), 1.5);
    EXPECT_DOUBLE_EQ(stats::quantile(v, 0.0), 1.0);
    EXPECT_DOUBLE_EQ(stats::quantile(v, 1.0), 4.0);
}

TEST(Quantile, UnsortedInputIsSorted) {
    const std::vector<double> v{3, 1, 2};
    EXPECT_DOUBLE_EQ(stats::median(v), 2.0);
    EXPECT_DOUBLE_EQ(stats::quantile(v, 0.25), 1.5);
}

TEST(Quantile, EmptyIsNaNAndSingleIsItself) {
    const std::vector<double> empty;
    EXPECT_TRUE(std::isnan(stats::quantile(empty, 0.5)));
    EXPECT_TRUE(std::isnan(stats::mean(empty)));
    EXPECT_TRUE(std::isnan(stats::stddev_population(empty)));
    EXPECT_TRUE(std::isnan(stats::stddev_sample(empty)));
    const std::vector<double> one{5};
    EXPECT_DOUBLE_EQ(stats::quantile(one, 0.25), 5.0);
    EXPECT_DOUBLE_EQ(stats::iqr(one), 0.0);
    EXPECT_DOUBLE_EQ(stats::stddev_population(one), 0.0);
    EXPECT_TRUE(std::isnan(stats::stddev_sample(one)));
}

TEST(Quantile, RejectsOutOfRangeQ) {
    const std::vector<double> v{1, 2};
    EXPECT_THROW(stats::quantile(v, -0.1), std::invalid_argument);
    EXPECT_THROW(stats::quantile(v, 1.5), std::invalid_argument);
    EXPECT_THROW(stats::quantile(v, std::numeric_limits<double>::quiet_NaN()), std::invalid_argument);
}

TEST(StdDev, HandComputed) {
    const std::vector<double> v{2, 4, 4, 4, 5, 5, 7, 9};  // mean 5, squared deviations sum 32
    EXPECT_DOUBLE_EQ(stats::mean(v), 5.0);
    EXPECT_DOUBLE_EQ(stats::stddev_population(v), 2.0);
    EXPECT_DOUBLE_EQ(stats::stddev_sample(v), std::sqrt(32.0 / 7.0));
}

// numpy's quantile (linear) and std on the vectors of tests/golden/fixtures.json.
TEST(Quantile, MatchesNumpyOnFixtures) {
    const auto expected = read_json("expected.json").at("quantile_vectors");
    ASSERT_GE(expected.size(), 10u);
    const double qs[] = {0.0, 0.25, 0.5, 0.75, 1.0};
    for (const auto& e : expected) {
        const auto input = e.at("input").get<std::vector<double>>();
        SCOPED_TRACE(e.at("input").dump());
        if (input.empty()) {
            EXPECT_TRUE(std::isnan(stats::median(input)));
            continue;
        }
        for (int k = 0; k < 5; ++k) EXPECT_EQ(stats::quantile(input, qs[k]), e.at("quantiles")[k].get<double>());
        EXPECT_NEAR(stats::mean(input), e.at("mean").get<double>(), 1e-12 * std::fabs(e.at("mean").get<double>()));
        EXPECT_NEAR(stats::stddev_population(input), e.at("std_ddof0").get<double>(), 1e-12);
        if (e.at("std_ddof1").is_null()) {
            EXPECT_TRUE(std::isnan(stats::stddev_sample(input)));
        } else {
            EXPECT_NEAR(stats::stddev_sample(input), e.at("std_ddof1").get<double>(), 1e-12);
        }
    }
}

TEST(TrimSigfig, HandComputed) {
    EXPECT_FLOAT_EQ(stats::trim_sigfig(3.14159, 2), 3.1f);
    EXPECT_EQ(stats::trim_sigfig(2.5, 1), 2.0);  // ties to even
    EXPECT_EQ(stats::trim_sigfig(3.5, 1), 4.0);
    EXPECT_EQ(stats::trim_sigfig(12345.678, 2), 12000.0);
    EXPECT_EQ(stats::trim_sigfig(0.0, 3), 0.0);
}

TEST(TrimSigfig, MatchesReferenceBitForBit) {
    const auto cases = read_json("expected.json").at("trim_sigfig");
    ASSERT_GE(cases.size(), 15u);
    for (const auto& c : cases) {
        SCOPED_TRACE(c.dump());
        EXPECT_EQ(stats::trim_sigfig(c.at("x").get<double>(), c.at("n").get<int>()), c.at("result").get<double>());
    }
}

TEST(SelectUnit, MatchesReferenceAboveOneNanosecond) {
    const auto cases = read_json("expected.json").at("select_unit");
    int checked = 0;
    for (const auto& c : cases) {
        const double t = c.at("t").get<double>();
        SCOPED_TRACE(c.dump());
        const auto unit = stats::select_unit(t);
        if (t < 1e-9) {
            // Documented difference: the reference switches to seconds below 1 ns.
            EXPECT_EQ(unit.name, "ns");
            continue;
        }
        EXPECT_EQ(unit.name, c.at("unit").get<std::string>());
        EXPECT_EQ(unit.scale, c.at("scale").get<double>());
        ++checked;
    }
    EXPECT_GE(checked, 8);
}

TEST(SelectUnit, Boundaries) {
    EXPECT_EQ(stats::select_unit(999e-9).name, "ns");
    EXPECT_EQ(stats::select_unit(1.5e-6).name, "us");
    EXPECT_EQ(stats::select_unit(2e-3).name, "ms");
    EXPECT_EQ(stats::select_unit(5.0).name, "s");
    EXPECT_EQ(stats::select_unit(0.3e-9).name, "ns");
    EXPECT_EQ(stats::unit_to_english("us"), "microsecond");
}

TEST(SignificantFigures, HandComputed) {
    // Middle half of {1..8} us is {3,4,5,6} us: std = sqrt(1.25) us, ci = 1.645 * 1.118 / 2 = 0.9196 us,
    // log10(4.5 / 0.9196) = 0.69 -> 1 figure (the floor of 1).
    std::vector<double> v;
    for (int i = 1; i <= 8; ++i) v.push_back(i * 1e-6);
    EXPECT_EQ(stats::significant_figures(v, 4.5e-6), 1);
    // No spread: ci is the 25 ns floor; median 1 ms -> log10(40000) = 4.6 -> clamped to 4.
    const std::vector<double> flat(10, 1e-3);
    EXPECT_EQ(stats::significant_figures(flat, 1e-3), 4);
    // 1 us with no spread: log10(1e-6 / 25e-9) = 1.6 -> 1.
    const std::vector<double> flat_us(4, 1e-6);
    EXPECT_EQ(stats::significant_figures(flat_us, 1e-6), 1);
    EXPECT_EQ(stats::significant_figures(std::vector<double>{}, 0.0), 1);
}

// Complexity fits against hand-made data: exact growths are found with zero error, the
// free exponent recovers the power, and noise does not change the verdict.
TEST(Complexity, FindsTheGrowthOfExactData) {
    using vitals::stats::Growth;
    const std::vector<double> n = {128, 256, 512, 1024, 2048};
    const auto times_for = [&](auto f) {
        std::vector<double> t;
        for (const double x : n) t.push_back(f(x));
        return t;
    };
    const auto cubic = vitals::stats::fit_complexity(n, times_for([](double x) { return 2e-9 * x * x * x; }));
    EXPECT_EQ(cubic.best.growth, Growth::n_cubed);
    EXPECT_NEAR(cubic.best.coefficient, 2e-9, 1e-18);
    EXPECT_NEAR(cubic.best.rms, 0.0, 1e-12);
    EXPECT_NEAR(cubic.exponent, 3.0, 1e-9);
    EXPECT_NEAR(cubic.exponent_coefficient, 2e-9, 1e-15);
    const auto linear = vitals::stats::fit_complexity(n, times_for([](double x) { return 5e-9 * x; }));
    EXPECT_EQ(linear.best.growth, Growth::n);
    const auto nlogn = vitals::stats::fit_complexity(n, times_for([](double x) { return 1e-9 * x * std::log2(x); }));
    EXPECT_EQ(nlogn.best.growth, Growth::n_log_n);
    const auto flat = vitals::stats::fit_complexity(n, times_for([](double) { return 3e-6; }));
    EXPECT_EQ(flat.best.growth, Growth::constant);
    EXPECT_NEAR(flat.exponent, 0.0, 1e-9);
    EXPECT_EQ(vitals::stats::growth_name(Growth::n_log_n), "O(n log n)");
}

TEST(Complexity, NoisyQuadraticAndBadInput) {
    // n^2 with +-3% alternating noise: still O(n^2); rms by hand for the O(n^2) candidate.
    const std::vector<double> n = {100, 200, 400, 800};
    std::vector<double> t;
    for (std::size_t i = 0; i < n.size(); ++i) t.push_back(1e-9 * n[i] * n[i] * (i % 2 ? 1.03 : 0.97));
    const auto fit = vitals::stats::fit_complexity(n, t);
    EXPECT_EQ(fit.best.growth, vitals::stats::Growth::n_squared);
    EXPECT_NEAR(fit.exponent, 2.0, 0.05);
    double tf = 0, ff = 0;
    for (std::size_t i = 0; i < n.size(); ++i) tf += t[i] * n[i] * n[i], ff += n[i] * n[i] * n[i] * n[i];
    const double c = tf / ff;
    double squares = 0, mean = 0;
    for (std::size_t i = 0; i < n.size(); ++i) squares += std::pow(t[i] - c * n[i] * n[i], 2), mean += t[i] / 4;
    EXPECT_NEAR(fit.best.rms, std::sqrt(squares / 4) / mean, 1e-12);
    EXPECT_THROW(vitals::stats::fit_complexity(std::vector<double>{5, 5}, std::vector<double>{1, 2}), std::invalid_argument);
    EXPECT_THROW(vitals::stats::fit_complexity(std::vector<double>{1, 2}, std::vector<double>{1, -2}), std::invalid_argument);
    EXPECT_THROW(vitals::stats::fit_complexity(std::vector<double>{1, 2}, std::vector<double>{1}), std::invalid_argument);
}

// Edge values: NaN makes every quantile NaN, as numpy; a value below float's range is
// left untrimmed rather than overflowing.
TEST(Stats, NaNAndTinyValues) {
    const std::vector<double> with_nan = {1.0, std::nan(""), 3.0};
    EXPECT_TRUE(std::isnan(vitals::stats::quantile(with_nan, 0.25)));
    EXPECT_TRUE(std::isnan(vitals::stats::median(with_nan)));
    EXPECT_EQ(vitals::stats::trim_sigfig(1e-320, 3), 1e-320);
    EXPECT_EQ(vitals::stats::trim_sigfig(0.0, 3), 0.0);
}
