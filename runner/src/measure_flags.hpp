// How timeit and run measure a case: the flags, and one case run to a CaseResult with
// Ctrl-C taking effect after the current block. Internal to the runner.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "vitals/case.hpp"
#include "vitals/results.hpp"

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

// Thrown out of a measurement once SIGINT arrived (see InterruptibleRun).
struct Interrupted : std::runtime_error {
    Interrupted() : std::runtime_error("interrupted") {}
};

// While alive, the first SIGINT, SIGTERM or SIGHUP (Ctrl-C; what Slurm sends at a time
// limit, scancel, a closed terminal) stops the measurement after the current block (the
// case throws Interrupted); a second of the same kind ends the process at once.
class InterruptibleRun {
public:
    InterruptibleRun();
    ~InterruptibleRun();
    InterruptibleRun(const InterruptibleRun&) = delete;
    InterruptibleRun& operator=(const InterruptibleRun&) = delete;
};

// Whether a stop signal arrived during the current InterruptibleRun; which one (0: none);
// the flag itself, for passing the signal on to a worker process; its name.
bool interrupted();
int stop_signal();
const std::atomic<int>& stop_signal_flag();
std::string signal_name(int signal);

// Times one case. A SkipCase or a failure becomes the result's `skipped` or `error`;
// Interrupted passes through.
CaseResult run_case(const Case& c, const MeasureOptions& options);

}  // namespace vitals::cli
