#include "measure_flags.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include "command.hpp"
#include "flags.hpp"
#include "vitals/counters.hpp"
#include "vitals/timer.hpp"

namespace vitals::cli {

void MeasureOptions::declare(CLI::App& app) {
    const BlockedAutorangeOptions blocked;
    const AdaptiveAutorangeOptions adaptive_defaults;
    declared_.push_back(app.add_option("--min-run-time", min_run_time,
                                       fmt::format("Seconds of measured blocks to gather (default {}; adaptive {})",
                                                   blocked.min_run_time, adaptive_defaults.min_run_time))
                            ->check(positive_seconds()));
    auto* adaptive_flag = app.add_flag("--adaptive", adaptive, "Time blocks until IQR/median < threshold");
    declared_.push_back(adaptive_flag);
    declared_.push_back(app.add_option("--threshold", threshold,
                                       fmt::format("Adaptive: the IQR/median to reach (default {})", adaptive_defaults.threshold))
                            ->check(open_unit_interval())
                            ->needs(adaptive_flag));
    declared_.push_back(app.add_option("--precision", precision,
                                       "Time blocks until the median's 95% confidence interval is within +/- this fraction "
                                       "of it (e.g. 0.01), or --max-run-time")
                            ->check(open_unit_interval())
                            ->excludes(adaptive_flag));
    declared_.push_back(app.add_option("--max-run-time", max_run_time,
                                       fmt::format("Adaptive or precision: stop after this many seconds of wall time "
                                                   "(default {})",
                                                   adaptive_defaults.max_run_time))
                            ->check(positive_seconds()));
    declared_.push_back(app.add_flag("--cold", cold,
                                     "Evict the caches before every call (outside the timed region): each block is one "
                                     "call whose data come from memory"));
    std::string known;
    for (const CounterInfo& c : known_counters()) known += fmt::format("{}{}", known.empty() ? "" : ", ", c.name);
    declared_.push_back(app.add_option("--counters", counters,
                                       fmt::format("Counters read around every block: 'default' (all that the kernel "
                                                   "allows), 'none', or a comma list of: {} (not given: the case's own, "
                                                   "else 'default')",
                                                   known))
                            ->check([](const std::string& value) -> std::string {
                                try {
                                    parse_counter_list(value);
                                } catch (const std::invalid_argument& e) {
                                    return e.what();
                                }
                                return "";
                            }));
}

void MeasureOptions::validate() const {
    if (max_run_time && !adaptive && !precision) {
        throw UsageError("--max-run-time goes with --adaptive or --precision; add one of them");
    }
    const double max_seconds = max_run_time.value_or(AdaptiveAutorangeOptions{}.max_run_time);
    if ((adaptive || precision) && min_run_time && max_seconds < *min_run_time) {
        throw UsageError(fmt::format("--max-run-time ({}) is below --min-run-time ({}); raise --max-run-time",
                                     max_seconds, *min_run_time));
    }
}

std::vector<std::string> MeasureOptions::arguments() const {
    // The text as given, so the worker parses exactly what this process parsed.
    std::vector<std::string> out;
    for (const CLI::Option* option : declared_) {
        if (option->count() == 0) continue;
        if (option->get_expected_max() == 0) {  // a flag: given as --name or --name=false
            if (option->as<bool>()) out.push_back(option->get_name());
            continue;
        }
        out.push_back(option->get_name());
        for (const std::string& value : option->results()) out.push_back(value);
    }
    return out;
}

}  // namespace vitals::cli
