// The flag groups and validators the commands share.
#include "flags.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <optional>

#include "command.hpp"
#include "vitals/number_text.hpp"
#include "vitals/results/markup.hpp"

namespace vitals::cli {
namespace {

// A finite double as text that strtold reads back exactly in any locale: a hexadecimal
// integer significand and a binary exponent, with no decimal point ("0x1p-1").
std::string locale_free_text(double v) {
    if (v == 0) return std::signbit(v) ? "-0x0p0" : "0x0p0";
    int exponent = 0;
    const double fraction = std::frexp(std::fabs(v), &exponent);  // in [0.5, 1)
    auto significand = static_cast<std::uint64_t>(std::ldexp(fraction, 53));  // exact: 53 bits
    exponent -= 53;
    for (; significand % 2 == 0; significand /= 2) ++exponent;
    return fmt::format("{}0x{:x}p{}", v < 0 ? "-" : "", significand, exponent);
}

// A validator accepting a number for which `ok` holds; `problem` completes "must be ...".
// The number is read with '.' as its point in every locale (parse_double). Used as a
// transform, it also writes the value back as a hexadecimal float with an integer
// significand ("0x1p-1" for 0.5): CLI11 converts option values with strtold, which
// follows the C locale's decimal point, and this form has none, so the option gets
// exactly the value checked here even in a program that called setlocale.
CLI::Validator number_validator(bool (*ok)(double), const char* problem, const char* name) {
    return CLI::Validator(
        [ok, problem](std::string& input) -> std::string {
            const std::optional<double> v = parse_double(input);
            if (!v || !ok(*v)) {
                const bool comma = input.find(',') != std::string::npos && input.find('.') == std::string::npos;
                return fmt::format("must be {}, got '{}'{}", problem, input,
                                   comma ? " (write the decimal point as '.', in every locale)" : "");
            }
            input = locale_free_text(*v);
            return "";
        },
        name);
}

}  // namespace

CLI::Validator positive_seconds() {
    return number_validator([](double v) { return std::isfinite(v) && v > 0.0; }, "a finite number of seconds > 0",
                            "SECONDS>0");
}

CLI::Validator open_unit_interval() {
    return number_validator([](double v) { return v > 0.0 && v < 1.0; }, "a number between 0 and 1 (exclusive)", "(0,1)");
}

CLI::Validator finite_non_negative() {
    return number_validator([](double v) { return std::isfinite(v) && v >= 0.0; }, "a finite number >= 0", "NUMBER>=0");
}

// How --help shows a range: "INT >= 1" when the top is only a sanity cap (2^40 and
// up), else "INT in 1..1000".
static std::string integer_range_text(std::int64_t min, std::int64_t max) {
    if (max >= (std::int64_t{1} << 40)) return fmt::format(">= {}", min);
    return fmt::format("in {}..{}", min, max);
}

CLI::Validator decimal_integer(std::int64_t min, std::int64_t max) {
    return CLI::Validator(
        [min, max](std::string& input) -> std::string {
            const std::string problem = fmt::format("must be a whole number from {} to {} in decimal, got '{}'", min, max, input);
            std::string digits = input;
            const bool negative = !digits.empty() && digits[0] == '-';
            if (negative) digits.erase(0, 1);
            if (digits.empty() || !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
                return problem;
            }
            digits.erase(0, std::min(digits.find_first_not_of('0'), digits.size() - 1));  // "010" is ten, not eight
            std::int64_t value = 0;
            const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
            if (error != std::errc() || end != digits.data() + digits.size()) return problem;  // past 2^63
            if (negative) value = -value;
            if (value < min || value > max) return problem;
            input = std::to_string(value);
            return "";
        },
        integer_range_text(min, max));
}

void ReportFlags::declare(CLI::App& app) {
    const ReportOptions defaults;
    app.add_option("--alpha", alpha, fmt::format("Significance level of the test (default {})", defaults.alpha))
        ->transform(open_unit_interval());
    app.add_option("--noise-floor", noise_floor_percent,
                   fmt::format("Changes under this percentage count as same (default {})", defaults.noise_floor * 100))
        ->transform(finite_non_negative());
}

ReportOptions ReportFlags::options() const {
    ReportOptions options;
    if (alpha) options.alpha = *alpha;
    if (noise_floor_percent) options.noise_floor = *noise_floor_percent / 100;
    return options;
}

void ResultsLayoutFlags::declare(CLI::App& app, CLI::Option* json) {
    CLI::Option* layout = app.add_option("--json-layout", entries,
                                         "The entries of each case in the --json file: blocks (every block, then the "
                                         "aggregates: what compare's tests need), aggregates (the aggregates alone), or "
                                         "medians (one entry per case, its median: one series per case for dashboards)")
                              ->check(CLI::IsMember({"blocks", "aggregates", "medians"}))
                              ->capture_default_str()
                              ->needs(json);
    app.add_flag("--json-aggregates-only", aggregates_only,
                 "The same as --json-layout aggregates, as Google Benchmark's --benchmark_report_aggregates_only")
        ->needs(json)
        ->excludes(layout);
    app.add_option("--time-unit", time_unit,
                   "The time_unit of every case in the --json file: ns (Google Benchmark's default), us, ms or s; or auto, "
                   "per case by the size of its median, as ->Unit() would be set in Google Benchmark")
        ->check(CLI::IsMember({"ns", "us", "ms", "s", "auto"}))
        ->capture_default_str()
        ->needs(json);
}

ResultsLayout ResultsLayoutFlags::layout() const {
    return {.entries = aggregates_only ? JsonLayout::aggregates : parse_json_layout(entries).value_or(JsonLayout::blocks),
            .time_unit = parse_time_unit(time_unit)};
}

CLI::Option* FailOnFlag::declare(CLI::App& app) {
    return app.add_option("--fail-on", verdicts,
                   "Exit 3, once every output is written, when a case gets one of these verdicts: slower, faster, "
                   "changed (slower or faster), untested (a side read from aggregates only, where no test is possible); "
                   "comma-separated or repeated, e.g. --fail-on slower. Cases not compared never fail")
        ->delimiter(',')
        ->check(CLI::IsMember({"slower", "faster", "changed", "untested"}));
}

bool FailOnFlag::fails(stats::Verdict verdict) const {
    const auto named = [&](const char* name) { return std::find(verdicts.begin(), verdicts.end(), name) != verdicts.end(); };
    switch (verdict) {
        case stats::Verdict::slower: return named("slower") || named("changed");
        case stats::Verdict::faster: return named("faster") || named("changed");
        case stats::Verdict::untested: return named("untested");
        case stats::Verdict::same: return false;
    }
    return false;
}

void FailOnFlag::check(const std::vector<std::pair<std::string, stats::Verdict>>& cases) const {
    bool any = false;
    for (const stats::Verdict verdict : {stats::Verdict::slower, stats::Verdict::faster, stats::Verdict::untested}) {
        if (!fails(verdict)) continue;
        std::vector<std::string> names;
        for (const auto& [name, v] : cases) {
            if (v == verdict) names.push_back(terminal_safe(name));
        }
        if (names.empty()) continue;
        any = true;
        const std::string_view what = stats::verdict_name(verdict);
        fmt::print(stderr, "vitals: --fail-on {}: {} case{} {}: {}\n", what, names.size(), names.size() == 1 ? "" : "s",
                   what, fmt::join(names, ", "));
    }
    if (any) throw VerdictFailed();
}

}  // namespace vitals::cli
