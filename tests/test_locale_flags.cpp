// The command line reads numbers the same under every locale: a benchmark program that
// called setlocale(LC_ALL, "") under a decimal-comma locale takes --min-run-time 0.05
// and refuses 0,05.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "decimal_comma_locale.hpp"
#include "vitals/runner.hpp"
#include "vitals/timer.hpp"

namespace {

int run_with(std::vector<std::string> args) {
    vitals::Registry registry;
    registry.add({"locale/sqrt", [] { return vitals::Timer({.stmt = [] {}, .label = "locale"}); }});
    args.insert(args.begin(), "vitals");
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    return vitals::run_main(static_cast<int>(argv.size()), argv.data(), registry);
}

}  // namespace

TEST(LocaleFlags, MeasurementFlagsReadADecimalPointUnderADecimalCommaLocale) {
    vitals::testing::DecimalCommaLocale locale;
    if (!locale.unavailable.empty()) GTEST_SKIP() << locale.unavailable;
    EXPECT_EQ(run_with({"timeit", "locale/sqrt", "--min-run-time", "0.05"}), 0);
    EXPECT_EQ(run_with({"timeit", "locale/sqrt", "--adaptive", "--threshold", "0.5", "--max-run-time", "0.5"}), 0);
    EXPECT_EQ(run_with({"run", "--min-run-time", "0.02", "--case-timeout", "2.5"}), 0);
    EXPECT_EQ(run_with({"timeit", "locale/sqrt", "--min-run-time", "0,05"}), 2);
}
