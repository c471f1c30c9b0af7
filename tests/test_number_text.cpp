// Numbers read from text the same way in every locale (vitals/number_text.hpp).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <limits>

#include "decimal_comma_locale.hpp"
#include "vitals/number_text.hpp"
#include "vitals/stats.hpp"

using vitals::parse_double;
using vitals::parse_leading_double;

TEST(ParseDouble, ReadsDecimalNumbersWholly) {
    EXPECT_EQ(parse_double("0.5"), 0.5);
    EXPECT_EQ(parse_double("+2"), 2.0);
    EXPECT_EQ(parse_double("-1e-3"), -1e-3);
    EXPECT_EQ(parse_double("1E3"), 1000.0);
    EXPECT_EQ(parse_double("0.1"), 0.1);  // correctly rounded, as the compiler reads the literal
    EXPECT_EQ(parse_double("inf"), std::numeric_limits<double>::infinity());
    ASSERT_TRUE(parse_double("nan").has_value());
    EXPECT_TRUE(std::isnan(*parse_double("nan")));
}

TEST(ParseDouble, RefusesWhatIsNotOneWholeNumber) {
    for (const char* text : {"", " 1", "1 ", "0,5", "1.5s", "0x10", "+-1", "++1", "-+1", "+", ".", "e3", "1e999"}) {
        SCOPED_TRACE(text);
        EXPECT_FALSE(parse_double(text).has_value());
    }
}

TEST(ParseLeadingDouble, ReadsTheNumberAtTheStartAsAtofDoes) {
    EXPECT_EQ(parse_leading_double("  3000.000 MHz"), 3000.0);
    EXPECT_EQ(parse_leading_double("\t12 34 56"), 12.0);  // callgrind's "summary: 12 34 56"
    EXPECT_EQ(parse_leading_double("7"), 7.0);
    EXPECT_FALSE(parse_leading_double("").has_value());
    EXPECT_FALSE(parse_leading_double("   ").has_value());
    EXPECT_FALSE(parse_leading_double("MHz 3000").has_value());
}

// In a process switched to a decimal-comma locale, strtod reads "0.5" as 0 (the check
// that the locale took effect); parse_double still reads one half and refuses "0,5".
TEST(ParseDouble, IsTheSameUnderADecimalCommaLocale) {
    const vitals::testing::DecimalCommaLocale locale;
    if (!locale.unavailable.empty()) GTEST_SKIP() << locale.unavailable;
    ASSERT_EQ(std::strtod("0.5", nullptr), 0.0) << "the locale did not change strtod";
    EXPECT_EQ(parse_double("0.5"), 0.5);
    EXPECT_EQ(parse_double("1.25e-3"), 1.25e-3);
    EXPECT_FALSE(parse_double("0,5").has_value());
    EXPECT_EQ(parse_leading_double(" 3000.5 MHz"), 3000.5);
}

TEST(ShortestText, ReadsBackAsTheSameNumber) {
    EXPECT_EQ(vitals::shortest_text(0.1), "0.1");
    EXPECT_EQ(vitals::shortest_text(-2.5e-7), "-2.5e-07");
    for (const double v : {0.1, 1.0 / 3, 6.02e23, -1e-300}) EXPECT_EQ(parse_double(vitals::shortest_text(v)), v);
}

// Times print in their unit with two decimals; a huge one (a hostile file's 1e308 ns)
// in scientific notation, not as a 300-digit number.
TEST(FormattedTimes, UnitsDecimalsAndHugeValues) {
    using vitals::stats::format_seconds;
    EXPECT_EQ(format_seconds(999999.0), "999999.00 s");
    EXPECT_EQ(format_seconds(1234567.0), "1.23e+06 s");
    EXPECT_EQ(format_seconds(1e299), "1.00e+299 s");
    EXPECT_EQ(format_seconds(-1e299), "-1.00e+299 s");
    EXPECT_EQ(format_seconds(3e-9), "3.00 ns");
}

// What vitals prints from numbers is locale-independent too: a report printed in a
// de_DE program reads "1.50 ms", as the same report printed anywhere else.
TEST(ShortestText, AndFormattedTimesKeepTheirPointUnderADecimalCommaLocale) {
    const vitals::testing::DecimalCommaLocale locale;
    if (!locale.unavailable.empty()) GTEST_SKIP() << locale.unavailable;
    EXPECT_EQ(vitals::stats::format_seconds(1.5e-3), "1.50 ms");
    EXPECT_EQ(vitals::stats::format_seconds(12.5e-6), "12.50 us");
    EXPECT_EQ(vitals::shortest_text(0.25), "0.25");
}
