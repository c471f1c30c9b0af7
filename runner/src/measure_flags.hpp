// How timeit and run measure a case: the flags. Internal to the runner.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace vitals::cli {

// What the command line overrides of the Timer's own defaults (BlockedAutorangeOptions,
// AdaptiveAutorangeOptions): an option not given leaves the Timer's value.
struct MeasureOptions {
    std::optional<double> min_run_time;
    bool adaptive = false;
    std::optional<double> threshold;
    std::optional<double> max_run_time;
    std::optional<double> precision;  // adaptive, until the median's 95% interval is within +/- this
    std::optional<std::int64_t> number;  // a single timeit(number) block (timeit --number)
    bool cold = false;                   // Cache::cold: the caches evicted before every call
    // --counters: read around every block (parse_counter_list); not given, a case keeps
    // the counters its Timer names, and one that names none reads "default".
    std::optional<std::string> counters;

    // Declares --min-run-time, --adaptive, --threshold, --precision, --max-run-time, --cold, --counters.
    void declare(CLI::App& app);
    // UsageError for combinations the flags alone cannot refuse.
    void validate() const;
    // Those options as they were given, for a worker process of run --processes.
    std::vector<std::string> arguments() const;

private:
    std::vector<const CLI::Option*> declared_;
};

}  // namespace vitals::cli
