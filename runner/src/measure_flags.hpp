// How timeit and run measure a case: the flags, and one case run to a CaseResult with
// a stop signal taking effect after the current block. Internal to the runner.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "vitals/case.hpp"
#include "vitals/results.hpp"
#include "stop_signals.hpp"

namespace CLI {
class App;
class Option;
}

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

    // Declares --min-run-time, --adaptive, --threshold, --precision, --max-run-time.
    void declare(CLI::App& app);
    // UsageError for combinations the flags alone cannot refuse.
    void validate() const;
    // Those options as they were given, for a worker process of run --processes.
    std::vector<std::string> arguments() const;

private:
    std::vector<const CLI::Option*> declared_;
};

// Thrown out of a measurement once a stop signal arrived (see StopSignals).
struct Interrupted : std::runtime_error {
    Interrupted() : std::runtime_error("interrupted") {}
};

// Times one case. A SkipCase or a failure becomes the result's `skipped` or `error`;
// Interrupted passes through. With `timeout_seconds` > 0 a case still measuring after
// that long is stopped at its next block and fails as timed out.
CaseResult run_case(const Case& c, const MeasureOptions& options, double timeout_seconds = 0);

}  // namespace vitals::cli
