#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "measurement_fixtures.hpp"
#include "vitals/measurement.hpp"

using vitals::Measurement;
using vitals::TaskSpec;
using namespace vitals::testing;

// Every fixture measurement prints exactly as torch.utils.benchmark's Measurement does.
TEST(MeasurementGolden, PrintsLikeTheReference) {
    const auto measurements = fixture_measurements();
    ASSERT_GE(measurements.size(), 20u);
    for (const auto& [id, m] : measurements) {
        if (id == "unit_subns") continue;  // documented difference, checked below
        SCOPED_TRACE(id);
        std::ostringstream printed;
        printed << m << '\n';
        EXPECT_EQ(printed.str(), read_text(golden_path("measurement_" + id + ".txt")));
    }
}

TEST(MeasurementGolden, BelowOneNanosecondStaysInNanoseconds) {
    const auto measurements = fixture_measurements();
    const Measurement& m = measurements.at("unit_subns");
    EXPECT_NE(m.to_string().find("  Median: 0.49 ns"), std::string::npos) << m;
}

TEST(MeasurementGolden, StatisticsMatchTheReference) {
    const auto measurements = fixture_measurements();
    const auto expected = read_json("expected.json").at("measurements");
    for (const auto& [id, m] : measurements) {
        SCOPED_TRACE(id);
        const auto& e = expected.at(id);
        EXPECT_EQ(m.median(), e.at("median").get<double>());
        EXPECT_EQ(m.p25(), e.at("p25").get<double>());
        EXPECT_EQ(m.p75(), e.at("p75").get<double>());
        EXPECT_EQ(m.iqr(), e.at("iqr").get<double>());
        // torch sums in a different order; the last bit may differ.
        EXPECT_NEAR(m.mean(), e.at("mean").get<double>(), 1e-14 * e.at("mean").get<double>());
        EXPECT_EQ(m.significant_figures(), e.at("significant_figures").get<int>());
        EXPECT_EQ(m.has_warnings(), e.at("has_warnings").get<bool>());
        EXPECT_EQ(m.meets_confidence(0.1), e.at("meets_confidence_0_1").get<bool>());
        EXPECT_EQ(m.warnings(), e.at("warnings").get<std::vector<std::string>>());
        EXPECT_EQ(m.title(), e.at("title").get<std::string>());
        EXPECT_EQ(m.task_spec().row_name(), e.at("as_row_name").get<std::string>());
        EXPECT_EQ(m.times(), e.at("times").get<std::vector<double>>());
    }
}

TEST(Measurement, TimesArePerCall) {
    const Measurement m(10, {1e-3, 2e-3, 3e-3, 4e-3}, TaskSpec{.stmt = "f()"});
    EXPECT_EQ(m.number_per_run(), 10);
    EXPECT_DOUBLE_EQ(m.times()[1], 2e-4);
    EXPECT_DOUBLE_EQ(m.median(), 2.5e-4);
    EXPECT_DOUBLE_EQ(m.p25(), 1.75e-4);
    EXPECT_DOUBLE_EQ(m.p75(), 3.25e-4);
    EXPECT_DOUBLE_EQ(m.mean(), 2.5e-4);
    // IQR / median = 0.6: the gross warning.
    ASSERT_TRUE(m.has_warnings());
    EXPECT_EQ(m.warnings()[0],
              "  WARNING: Interquartile range is 60.0% of the median measurement.\n"
              "           This suggests significant environmental influence.");
    EXPECT_FALSE(m.meets_confidence(0.5));
    EXPECT_TRUE(m.meets_confidence(0.7));
}

TEST(Measurement, WarningThresholds) {
    // IQR/median = 0.15: fluctuation; 0.05: none.
    const Measurement fluct(1, {0.85, 0.925, 1.0, 1.075, 1.15}, TaskSpec{.stmt = "f()"});
    EXPECT_NEAR(fluct.iqr() / fluct.median(), 0.15, 1e-12);
    ASSERT_EQ(fluct.warnings().size(), 1u);
    EXPECT_NE(fluct.warnings()[0].find("This could indicate system fluctuation."), std::string::npos);
    const Measurement calm(1, {0.95, 0.975, 1.0, 1.025, 1.05}, TaskSpec{.stmt = "f()"});
    EXPECT_FALSE(calm.has_warnings());
}

TEST(Measurement, RejectsBadInput) {
    EXPECT_THROW(Measurement(1, {}, TaskSpec{}), std::invalid_argument);
    EXPECT_THROW(Measurement(0, {1.0}, TaskSpec{}), std::invalid_argument);
    EXPECT_THROW(Measurement(1, {1.0, std::nan("")}, TaskSpec{}), std::invalid_argument);
    EXPECT_THROW(Measurement(1, {-1.0}, TaskSpec{}), std::invalid_argument);
    EXPECT_THROW(Measurement(1, {1.0, 2.0}, TaskSpec{}, {1.0}), std::invalid_argument);
}

TEST(Measurement, MergeJoinsSameTaskAndNormalisesNumberPerRun) {
    const TaskSpec a{.stmt = "f()", .label = "L", .sub_label = "a"};
    const TaskSpec b{.stmt = "f()", .label = "L", .sub_label = "b"};
    const std::vector<Measurement> ms{Measurement(10, {10.0, 20.0}, a), Measurement(1, {5.0}, b),
                                      Measurement(2, {6.0}, a)};
    const auto merged = Measurement::merge(ms);
    ASSERT_EQ(merged.size(), 2u);
    EXPECT_EQ(merged[0].task_spec(), a);
    EXPECT_EQ(merged[0].number_per_run(), 1);
    EXPECT_EQ(merged[0].times(), (std::vector<double>{1.0, 2.0, 3.0}));
    EXPECT_EQ(merged[1].task_spec(), b);
    EXPECT_EQ(merged[1].times(), (std::vector<double>{5.0}));
}

TEST(Measurement, CpuTimesTravelWithBlocks) {
    const Measurement m(4, {4.0, 8.0}, TaskSpec{.stmt = "f()"}, {2.0, 4.0});
    EXPECT_EQ(m.cpu_times(), (std::vector<double>{0.5, 1.0}));
}

TEST(TaskSpec, TitleFallsBackToStmtThenUnknown) {
    EXPECT_EQ((TaskSpec{.stmt = "f()", .label = "L", .sub_label = "s"}).title(), "L: s");
    EXPECT_EQ((TaskSpec{.stmt = "f()", .sub_label = "s"}).title(), "f(): s");
    EXPECT_EQ((TaskSpec{}).title(), "[Unknown]");
    EXPECT_EQ((TaskSpec{.stmt = "a\nb"}).title(), "stmt:\n  a\n  b");
}

// A precision-driven run adds one line after the IQR; every other line stays the
// reference's.
TEST(Measurement, MedianIntervalIsOneMoreLine) {
    const Measurement m(10, {1e-5, 1.1e-5, 1.2e-5, 1.3e-5, 1.4e-5, 1.5e-5}, TaskSpec{.label = "op"});
    const std::string plain = m.to_string();
    const Measurement with = m.with_median_interval({1.05e-6, 1.45e-6, 0.95});
    ASSERT_TRUE(with.median_interval());
    EXPECT_FALSE(m.median_interval());
    const std::string printed = with.to_string();
    const std::string line = "  95% CI of the median: 1.05 to 1.45 us (-16.00% to +16.00%)\n";
    const auto at = printed.find(line);
    ASSERT_NE(at, std::string::npos) << printed;
    EXPECT_EQ(printed.substr(0, at) + printed.substr(at + line.size()), plain);
    EXPECT_EQ(printed.find("IQR:"), plain.find("IQR:"));
    EXPECT_LT(printed.find("IQR:"), at);
}

// Stated work adds one throughput line, computed from the median; without it the
// printed Measurement keeps the reference layout (the goldens above).
TEST(Measurement, StatedWorkAddsAThroughputLine) {
    TaskSpec task{.stmt = "f()", .label = "op"};
    task.work = {.bytes = 2e6, .flops = 4e6, .items = 1e3};
    const Measurement m(1, {1e-3, 1e-3, 1e-3, 1e-3}, task);  // 1 ms per call
    const std::string text = m.to_string();
    EXPECT_NE(text.find("  Throughput: 2.00 GB/s, 4.00 GFLOP/s, 1.00 M items/s\n"), std::string::npos) << text;
    const Measurement plain(1, {1e-3, 1e-3, 1e-3, 1e-3}, TaskSpec{.stmt = "f()", .label = "op"});
    EXPECT_EQ(plain.to_string().find("Throughput"), std::string::npos);
}

TEST(Measurement, RefusesNaNAndNegativeCpuTimes) {
    EXPECT_THROW(Measurement(1, {1e-3, 1e-3}, TaskSpec{.stmt = "f()"}, {1e-3, std::nan("")}), std::invalid_argument);
    EXPECT_THROW(Measurement(1, {1e-3, 1e-3}, TaskSpec{.stmt = "f()"}, {1e-3, -1e-3}), std::invalid_argument);
}
