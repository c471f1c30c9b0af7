// The Mann-Whitney U test against SciPy 1.10 (tests/golden/mann_whitney.json, made with
// scipy.stats.mannwhitneyu(x, y, alternative="two-sided")), and the verdict rules.
#include <gtest/gtest.h>

#include <cmath>

#include "fixtures.hpp"
#include "vitals/significance.hpp"

using namespace vitals::stats;

TEST(MannWhitney, MatchesScipy) {
    const auto cases = vitals::testing::read_json("mann_whitney.json");
    ASSERT_GE(cases.size(), 10u);
    for (const auto& c : cases) {
        SCOPED_TRACE(c.dump());
        const auto x = c.at("x").get<std::vector<double>>();
        const auto y = c.at("y").get<std::vector<double>>();
        const MannWhitneyResult r = mann_whitney_u(x, y);
        EXPECT_DOUBLE_EQ(r.u, c.at("u").get<double>());
        EXPECT_NEAR(r.p_value, c.at("p").get<double>(), 1e-12 * c.at("p").get<double>() + 1e-15);
    }
}

TEST(MannWhitney, HandComputedExactCase) {
    // x entirely below y, 5 and 5: U = 0; P(U <= 0) = 1 / C(10, 5) = 1/252, two-sided 2/252.
    const std::vector<double> x{1, 2, 3, 4, 5}, y{6, 7, 8, 9, 10};
    const MannWhitneyResult r = mann_whitney_u(x, y);
    EXPECT_TRUE(r.exact);
    EXPECT_DOUBLE_EQ(r.u, 0);
    EXPECT_NEAR(r.p_value, 2.0 / 252.0, 1e-15);
}

TEST(MannWhitney, RejectsEmptyAndNaN) {
    const std::vector<double> empty, one{1.0}, nan{std::nan("")};
    EXPECT_THROW(mann_whitney_u(empty, one), std::invalid_argument);
    EXPECT_THROW(mann_whitney_u(one, nan), std::invalid_argument);
}

TEST(Verdict, NeedsSignificanceAndAChangeAboveTheNoiseFloor) {
    std::vector<double> before, after, same_but_noisy;
    for (int i = 0; i < 20; ++i) {
        before.push_back(100 + i * 0.1);
        after.push_back(80 + i * 0.1);           // 20% faster, clearly separated
        same_but_noisy.push_back(100.05 + i * 0.1);  // interleaved with before
    }
    const Change faster = test_change(before, after);
    EXPECT_EQ(faster.verdict, Verdict::faster);
    EXPECT_NEAR(faster.change, -0.19813, 1e-4);
    EXPECT_LT(faster.p_value, 1e-6);
    EXPECT_EQ(test_change(after, before).verdict, Verdict::slower);
    EXPECT_EQ(test_change(before, same_but_noisy).verdict, Verdict::same);
    // Significant but below a 30% noise floor: same.
    EXPECT_EQ(test_change(before, after, 0.05, 0.30).verdict, Verdict::same);
    EXPECT_EQ(verdict_name(Verdict::slower), "slower");
}

// Expected values written from SciPy 1.10.1 (Debian's python3-scipy):
//   from scipy.stats import mannwhitneyu
//   mannwhitneyu([1.1, 2.2, 3.3], [2.5, 3.5, 0.5, 4.5], alternative="two-sided")
//     -> MannwhitneyuResult(statistic=4.0, pvalue=0.6285714285714286)          (exact)
//   mannwhitneyu([1, 1, 2, 2, 3], [2, 3, 3, 4, 5], alternative="two-sided")
//     -> MannwhitneyuResult(statistic=3.0, pvalue=0.05317338271357822)         (ties: normal)
//   mannwhitneyu(list(range(1, 9)), list(range(9, 21)), alternative="two-sided")
//     -> MannwhitneyuResult(statistic=0.0, pvalue=1.5876796062554575e-05)      (exact, 8 vs 12)
TEST(MannWhitney, InlineScipyValues) {
    const std::vector<double> a{1.1, 2.2, 3.3}, b{2.5, 3.5, 0.5, 4.5};
    EXPECT_DOUBLE_EQ(mann_whitney_u(a, b).u, 4.0);
    EXPECT_NEAR(mann_whitney_u(a, b).p_value, 0.6285714285714286, 1e-15);
    const std::vector<double> c{1, 1, 2, 2, 3}, d{2, 3, 3, 4, 5};
    EXPECT_FALSE(mann_whitney_u(c, d).exact);
    EXPECT_NEAR(mann_whitney_u(c, d).p_value, 0.05317338271357822, 1e-15);
    std::vector<double> e, f;
    for (int i = 1; i <= 8; ++i) e.push_back(i);
    for (int i = 9; i <= 20; ++i) f.push_back(i);
    EXPECT_TRUE(mann_whitney_u(e, f).exact);
    EXPECT_NEAR(mann_whitney_u(e, f).p_value, 1.5876796062554575e-05, 1e-18);
}

// Order-statistic intervals of the median, against the binomial tables (1-based ranks in
// the tables, 0-based here): n = 6 -> (1, 6), n = 10 -> (2, 9), n = 20 -> (6, 15),
// n = 100 -> (40, 61).
TEST(MedianInterval, RanksMatchTheBinomialTables) {
    using vitals::stats::median_interval_ranks;
    EXPECT_FALSE(median_interval_ranks(0));
    EXPECT_FALSE(median_interval_ranks(5));  // 1 - 2/32 = 93.75% < 95%
    const auto six = median_interval_ranks(6);
    ASSERT_TRUE(six);
    EXPECT_EQ(six->lower, 0u);
    EXPECT_EQ(six->upper, 5u);
    EXPECT_NEAR(six->coverage, 1 - 2.0 / 64, 1e-12);
    const auto ten = median_interval_ranks(10);
    EXPECT_EQ(ten->lower, 1u);
    EXPECT_EQ(ten->upper, 8u);
    EXPECT_NEAR(ten->coverage, 1 - 2.0 * 11 / 1024, 1e-12);
    EXPECT_EQ(median_interval_ranks(20)->lower, 5u);
    EXPECT_EQ(median_interval_ranks(20)->upper, 14u);
    EXPECT_EQ(median_interval_ranks(100)->lower, 39u);
    EXPECT_EQ(median_interval_ranks(100)->upper, 60u);
    // 99%: n = 20 -> (4, 17) in the tables.
    EXPECT_EQ(median_interval_ranks(20, 0.99)->lower, 3u);
    // Large n: close to the normal approximation n/2 -+ 1.96 sqrt(n)/2, always >= 95%.
    for (const std::size_t n : {1000u, 12345u, 1000000u}) {
        const auto r = median_interval_ranks(n);
        ASSERT_TRUE(r);
        EXPECT_GE(r->coverage, 0.95);
        EXPECT_NEAR(static_cast<double>(r->lower), n / 2.0 - 0.98 * std::sqrt(static_cast<double>(n)), 2.0);
        EXPECT_EQ(r->upper, n - 1 - r->lower);
    }
    EXPECT_THROW(median_interval_ranks(10, 1.0), std::invalid_argument);
}

// Binomial tails counted by hand: P(X <= k) = sum_{i<=k} C(n, i) / 2^n, doubled.
TEST(SignTest, HandComputedTails) {
    EXPECT_DOUBLE_EQ(vitals::stats::sign_test_p_value(9, 1), 2.0 * (1 + 10) / 1024.0);
    EXPECT_DOUBLE_EQ(vitals::stats::sign_test_p_value(1, 9), 2.0 * (1 + 10) / 1024.0);
    EXPECT_DOUBLE_EQ(vitals::stats::sign_test_p_value(6, 0), 2.0 / 64.0);
    EXPECT_DOUBLE_EQ(vitals::stats::sign_test_p_value(0, 5), 2.0 / 32.0);
    EXPECT_NEAR(vitals::stats::sign_test_p_value(15, 5), 2.0 * (1 + 20 + 190 + 1140 + 4845 + 15504) / 1048576.0, 1e-15);
    EXPECT_DOUBLE_EQ(vitals::stats::sign_test_p_value(3, 3), 1.0);  // 2 * 42/64 capped
    EXPECT_DOUBLE_EQ(vitals::stats::sign_test_p_value(0, 0), 1.0);  // nothing differs
}
