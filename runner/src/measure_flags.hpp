// How timeit and run measure a case: the flags, and one case run to a CaseResult with
// a stop signal taking effect after the current block. Internal to the runner.
#pragma once

#include <atomic>
#include <cstdint>
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

struct MeasureOptions {
    double min_run_time = 0.0;  // 0: the mode's default
    bool adaptive = false;
    double threshold = 0.1;
    double max_run_time = 10.0;
    double precision = 0.0;  // > 0: adaptive, until the median's 95% interval is within +/- this
    std::int64_t number = 0;  // > 0: a single timeit(number) block

    // Declares --min-run-time, --adaptive, --threshold, --max-run-time.
    void declare(CLI::App& app);
    // UsageError for combinations the flags alone cannot refuse.
    void validate() const;
    // The flags that give these options again (for a worker process of run --processes).
    std::vector<std::string> arguments() const;

private:
    CLI::Option* max_run_time_option_ = nullptr;
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
