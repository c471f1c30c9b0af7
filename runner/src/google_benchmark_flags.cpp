#include "google_benchmark_flags.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string_view>

#include "command.hpp"

namespace vitals::cli {
namespace {

constexpr std::string_view kPrefix = "--benchmark_";

bool is_google_benchmark_flag(std::string_view arg) { return arg.substr(0, kPrefix.size()) == kPrefix; }

// Google Benchmark's boolean values.
std::optional<bool> truth(std::string_view value) {
    if (value.empty() || value == "true" || value == "1" || value == "yes") return true;
    if (value == "false" || value == "0" || value == "no") return false;
    return std::nullopt;
}

// The flags that shape the results file only.
bool shapes_the_file_only(std::string_view name) { return name == "time_unit" || name == "report_aggregates_only"; }

// One --benchmark_NAME[=VALUE] as vitals arguments (none: nothing to add).
std::vector<std::string> translate(std::string_view name, std::string_view value, bool& list) {
    const auto refuse = [&](std::string_view instead) -> std::vector<std::string> {
        throw UsageError(fmt::format("--benchmark_{}{}{}: {}", name, value.empty() ? "" : "=", value, instead));
    };
    if (name == "filter") {
        if (!value.empty() && value[0] == '-') {
            return refuse("vitals' --filter names the cases to run and has no negation; give a regular expression of those");
        }
        return {"--filter", value == "all" ? std::string(".") : std::string(value)};
    }
    if (name == "out") return {"--json", std::string(value)};
    if (name == "out_format") {
        return value == "json" ? std::vector<std::string>{} : refuse("vitals writes its results file as JSON only; give json");
    }
    if (name == "format") {
        if (value == "console") return {};
        if (value == "json") return {"--json", "-"};
        return refuse("vitals prints a console table and writes JSON (json writes it to standard output); give console or json");
    }
    if (name == "time_unit") {
        if (value == "ns" || value == "us" || value == "ms" || value == "s") return {"--time-unit", std::string(value)};
        return refuse("give ns, us, ms or s");
    }
    if (name == "min_time") {
        // Seconds, written "0.5" or "0.5s"; "100x" (iterations) has no vitals equivalent.
        std::string seconds(value);
        if (!seconds.empty() && seconds.back() == 's') seconds.pop_back();
        if (seconds.empty() || seconds.find_first_not_of("0123456789.") != std::string::npos) {
            return refuse("vitals runs each case for a time, not a count of iterations; give seconds, e.g. 0.5s "
                          "(it becomes --min-run-time)");
        }
        return {"--min-run-time", seconds};
    }
    if (name == "report_aggregates_only" || name == "display_aggregates_only") {
        const std::optional<bool> on = truth(value);
        if (!on) return refuse("give true or false");
        return *on && name == "report_aggregates_only" ? std::vector<std::string>{"--json-layout", "aggregates"}
                                                       : std::vector<std::string>{};
    }
    if (name == "list_tests") {
        const std::optional<bool> on = truth(value);
        if (!on) return refuse("give true or false");
        list = *on;
        return {};
    }
    if (name == "repetitions") {
        // Google Benchmark repeats a case in one process; vitals repeats it in fresh ones,
        // so that each repetition draws its own layout and state (compare tests across
        // them from 3 a side).
        if (value.find_first_not_of("0123456789") != std::string_view::npos || value.find_first_not_of('0') == std::string_view::npos) {
            return refuse("give a count of at least 1 (it becomes --processes N: each repetition a fresh process)");
        }
        return {"--processes", std::string(value)};
    }
    return refuse("vitals has no such option; see 'vitals run --help' for what it takes");
}

}  // namespace

std::vector<std::string> translate_google_benchmark_flags(const std::vector<std::string>& args) {
    if (std::none_of(args.begin(), args.end(), [](const std::string& a) { return is_google_benchmark_flag(a); })) return args;
    std::vector<std::string> out;
    std::vector<std::string> rest;       // the arguments after the command, translated
    std::vector<std::string> file_only;  // what shapes the results file: only when one is written
    bool list = false;
    const bool command_given = args.size() > 1 && !is_google_benchmark_flag(args[1]);
    for (std::size_t i = command_given ? 2 : 1; i < args.size(); ++i) {
        const std::string& arg = args[i];
        if (!is_google_benchmark_flag(arg)) {
            rest.push_back(arg);
            continue;
        }
        const std::string_view flag = std::string_view(arg).substr(kPrefix.size());
        const std::size_t equals = flag.find('=');
        const std::string_view name = flag.substr(0, equals);
        const std::vector<std::string> translated =
            translate(name, equals == std::string_view::npos ? "" : flag.substr(equals + 1), list);
        std::vector<std::string>& to = shapes_the_file_only(name) ? file_only : rest;
        to.insert(to.end(), translated.begin(), translated.end());
    }
    // Google Benchmark's console follows --benchmark_time_unit; vitals' tables choose a unit
    // each, so without a results file these flags have nothing to shape.
    const bool writes_json = std::any_of(rest.begin(), rest.end(), [](const std::string& a) {
        return a == "--json" || a.rfind("--json=", 0) == 0;
    });
    if (writes_json) rest.insert(rest.end(), file_only.begin(), file_only.end());
    out.push_back(args.empty() ? "vitals" : args[0]);
    if (list) {  // only the filter carries over to `list`
        out.emplace_back("list");
        for (std::size_t i = 0; i + 1 < rest.size(); ++i) {
            if (rest[i] == "--filter") out.insert(out.end(), {rest[i], rest[i + 1]});
        }
        return out;
    }
    out.push_back(command_given ? args[1] : "run");
    out.insert(out.end(), rest.begin(), rest.end());
    return out;
}

}  // namespace vitals::cli
