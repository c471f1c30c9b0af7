// What the commands share: validators, case lookup, results files as input.
#include <fmt/format.h>
#include <unistd.h>
#include <fcntl.h>

#include <re2/re2.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <cerrno>
#include <cstdint>
#include <optional>
#include <filesystem>

#include "command.hpp"
#include "vitals/results/markup.hpp"
#include "vitals/number_text.hpp"
#include "vitals/atomic_file.hpp"
#include "shard.hpp"

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

std::size_t edit_distance(const std::string& a, const std::string& b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t above = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diagonal = above;
        }
    }
    return row[b.size()];
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

// Messages quote names and text from files and cases: shown, never obeyed by the terminal.
void print_error(const std::string& message) { fmt::print(stderr, "vitals: error: {}\n", terminal_safe(message)); }

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
        fmt::format("INT[{}..{}]", min, max));
}

std::vector<const Case*> matching_cases(const Registry& registry, const std::optional<std::string>& filter) {
    std::optional<re2::RE2> re;
    if (filter) {
        re2::RE2::Options options;
        options.set_log_errors(false);
        re.emplace(*filter, options);
        if (!re->ok()) {
            throw UsageError(fmt::format("invalid --filter regex '{}': {}; write it in RE2's syntax (ECMAScript's without "
                                         "backreferences or lookaround)",
                                         *filter, re->error()));
        }
    }
    std::vector<const Case*> out;
    for (const Case& c : registry.cases()) {
        if (!re || re2::RE2::PartialMatch(c.name, *re)) out.push_back(&c);
    }
    return out;
}

const Case& find_case(const Registry& registry, const std::string& name) {
    if (const Case* c = registry.find(name)) return *c;
    std::string hint;
    std::size_t best = std::string::npos;
    for (const Case& c : registry.cases()) {
        const std::size_t d = edit_distance(name, c.name);
        if (d < best && d <= std::max<std::size_t>(3, name.size() / 3)) {
            best = d;
            hint = fmt::format(" (did you mean '{}'?)", c.name);
        }
    }
    throw UsageError(fmt::format("no case named '{}'{}; 'vitals list' shows the cases", name, hint));
}

std::string tagged_path(const std::string& path, const std::string& tag) {
    if (path == "-" || path.rfind("/dev/", 0) == 0 || path.rfind("/proc/", 0) == 0) return path;
    const std::filesystem::path p(path);
    return (p.parent_path() / (p.stem().string() + "." + tag + p.extension().string())).string();
}

std::string output_for_this_rank(const std::string& path, const std::optional<Shard>& explicit_shard) {
    std::optional<LauncherRank> rank;
    try {
        rank = launcher_rank();
    } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
    }
    const std::string index = std::to_string(rank ? rank->rank : 0);
    std::string out = path;
    if (const auto at = out.find("{rank}"); at != std::string::npos) {
        for (auto p = out.find("{rank}"); p != std::string::npos; p = out.find("{rank}", p + index.size())) {
            out.replace(p, 6, index);
        }
        return out;
    }
    if (!rank || rank->size < 2) return path;
    // Ranks that each name their own shard still write apart, whatever shards they name.
    out = tagged_path(path, "rank" + index + (explicit_shard ? ".shard" + std::to_string(explicit_shard->index) : ""));
    if (out == path) return path;
    fmt::print(stderr, "rank {} of {} writes {} (put {{rank}} in the path to name the files yourself)\n", index, rank->size,
               out);
    return out;
}

ResultsFile read_results_file_or_usage_error(const std::string& path, std::vector<std::string>& warnings) {
    ResultsFile file;
    try {
        file = read_results_file(path);
    } catch (const ResultsFileError& e) {
        throw UsageError(e.what());
    }
    for (const CaseSamples& c : file.cases) {
        if (c.seconds.empty()) continue;
        for (const std::string& failure : c.failed_processes) {
            warnings.push_back(fmt::format("'{}': case '{}' failed in {}; its other processes' blocks are compared", path,
                                           c.name, failure));
        }
    }
    if (file.incomplete) {
        const auto measured = std::count_if(file.cases.begin(), file.cases.end(), [](const CaseSamples& c) { return !c.seconds.empty(); });
        warnings.push_back(fmt::format("'{}' is marked incomplete: its run was interrupted or lost a process ({} case{} measured{})", path,
                                       measured, measured == 1 ? "" : "s",
                                       file.cases_planned > 0 ? fmt::format(" of {} planned", file.cases_planned) : ""));
    }
    return file;
}

void ReportFlags::declare(CLI::App& app) {
    app.add_option("--alpha", alpha, "Significance level of the test (default 0.05)")->transform(open_unit_interval());
    app.add_option("--noise-floor", noise_floor_percent, "Changes under this percentage count as same (default 1)")
        ->transform(finite_non_negative());
}

std::string reserve_standard_output(const std::string& path) {
    if (!is_standard_output(path)) return path;
    std::fflush(stdout);
    const int kept = ::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
    if (kept < 0 || ::dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
        throw std::runtime_error(fmt::format("cannot keep standard output for '{}': {}", path, std::strerror(errno)));
    }
    return fmt::format("/dev/fd/{}", kept);
}

void ResultsLayoutFlags::declare(CLI::App& app, CLI::Option* json) {
    app.add_flag("--json-aggregates-only", aggregates_only,
                 "Write only the aggregates of each case to the --json file (mean, median, stddev, cv, p25, p75, iqr), "
                 "as Google Benchmark's --benchmark_report_aggregates_only; default: every block too")
        ->needs(json);
    app.add_option("--time-unit", time_unit,
                   "The time_unit of every case in the --json file (ns, us, ms or s); default: per case, by the size "
                   "of its median, as ->Unit() would be set in Google Benchmark")
        ->check(CLI::IsMember({"ns", "us", "ms", "s"}))
        ->needs(json);
}

ResultsLayout ResultsLayoutFlags::layout() const {
    return {.aggregates_only = aggregates_only, .time_unit = parse_time_unit(time_unit)};
}

}  // namespace vitals::cli
