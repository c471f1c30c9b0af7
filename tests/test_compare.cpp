#include <gtest/gtest.h>

#include <sstream>

#include "measurement_fixtures.hpp"
#include "vitals/compare.hpp"

using vitals::Compare;
using vitals::Measurement;
using namespace vitals::testing;

// Every Compare fixture renders byte for byte as torch.utils.benchmark.Compare does,
// ANSI colour codes included.
TEST(CompareGolden, RendersLikeTheReference) {
    const auto measurements = fixture_measurements();
    const auto compares = read_json("fixtures.json").at("compares");
    ASSERT_GE(compares.size(), 10u);
    for (const auto& c : compares) {
        const std::string id = c.at("id").get<std::string>();
        SCOPED_TRACE(id);
        std::vector<Measurement> chosen;
        for (const auto& m : c.at("measurements")) chosen.push_back(measurements.at(m.get<std::string>()));
        Compare compare(chosen);
        if (c.at("trim_significant_figures").get<bool>()) compare.trim_significant_figures();
        if (!c.at("colorize").is_null()) compare.colorize(c.at("colorize").get<std::string>() == "rowwise");
        if (c.at("highlight_warnings").get<bool>()) compare.highlight_warnings();
        std::ostringstream printed;
        printed << compare << '\n';
        EXPECT_EQ(printed.str(), read_text(golden_path("compare_" + id + ".txt")));
    }
}

TEST(Compare, HandBuiltTable) {
    using vitals::TaskSpec;
    std::vector<Measurement> ms{
        Measurement(1, {1e-6, 1e-6, 1e-6, 1e-6}, TaskSpec{.stmt = "f", .label = "op", .sub_label = "small", .description = "a"}),
        Measurement(1, {2e-6, 2e-6, 2e-6, 2e-6}, TaskSpec{.stmt = "f", .label = "op", .sub_label = "small", .description = "b"}),
        Measurement(1, {3e-6, 3e-6, 3e-6, 3e-6}, TaskSpec{.stmt = "f", .label = "op", .sub_label = "big", .description = "a"}),
    };
    // Column width: ceil(log10(3.0)) = 1 digit + point + 1 decimal; the header centres.
    const std::string expected =
        "[----------- op ----------]\n"
        "             |   a   |   b \n"
        "1 threads: ----------------\n"
        "      small  |  1.0  |  2.0\n"
        "      big    |  3.0  |     \n"
        "\n"
        "Times are in microseconds (us).\n";
    EXPECT_EQ(Compare(ms).to_string(), expected);
}

// A zero median (a statement the clock cannot see) prints as 0, with no overflow in the
// column width (UBSan caught INT_MIN digits there).
TEST(Compare, AZeroMedianPrints) {
    using vitals::TaskSpec;
    std::vector<Measurement> ms{
        Measurement(1, {0.0, 0.0, 0.0, 0.0}, TaskSpec{.stmt = "f", .label = "op", .sub_label = "empty", .description = "a"}),
        Measurement(1, {2e-6, 2e-6, 2e-6, 2e-6}, TaskSpec{.stmt = "f", .label = "op", .sub_label = "work", .description = "a"}),
    };
    const std::string table = Compare(ms).to_string();
    EXPECT_NE(table.find("empty  |     0.0"), std::string::npos) << table;  // in ns: the smallest median picks the unit
    EXPECT_NE(table.find("work   |  2000.0"), std::string::npos) << table;
}
