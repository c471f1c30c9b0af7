// Measurement: the raw block times of one timed statement and the statistics over them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "vitals/work_per_call.hpp"

namespace vitals {

// What was measured: the fields that name a measurement in reports. Empty strings mean
// "not set". Two measurements with equal TaskSpecs are the same task (Compare merges them).
struct TaskSpec {
    std::string stmt;
    std::string setup;
    std::string global_setup;
    std::string label;
    std::string sub_label;
    std::string description;
    std::string env;
    int num_threads = 1;
    WorkPerCall work{};
    bool cold = false;  // each call found the caches evicted (Cache::cold)

    // label (+ ": sub_label"), else the stmt text (indented under "stmt:" when it has
    // several lines), else "[Unknown]".
    std::string title() const;
    // The name of this task's row in a Compare table: sub_label, else stmt, else "[Unknown]".
    std::string row_name() const;
    // The header lines of a printed Measurement: title, description, setup.
    std::string summarize() const;

    friend bool operator==(const TaskSpec&, const TaskSpec&) = default;
};

// A confidence interval of the median per-call time (seconds), from order statistics of
// the blocks: what a precision-driven run (adaptive_autorange's .precision) stopped on.
struct MedianInterval {
    double low = 0, high = 0;
    double confidence = 0.95;
};

// Event counts of each block (see <vitals/counters.hpp>): what a timed run read around
// its blocks, the reading's own cost subtracted.
struct BlockCounters {
    std::vector<std::string> names;           // perf's names: "context-switches", "cycles", ...
    std::vector<std::vector<double>> values;  // values[c][b]: counter names[c] over block b
    // Counters asked for that the kernel refused, each "name: why".
    std::vector<std::string> unavailable;
    // The calls in each block, where blocks differ in it (measurements of several
    // processes, merged); empty: the Measurement's number_per_run, every block.
    std::vector<double> block_calls;

    bool empty() const { return names.empty(); }
    // The counter's values per block; nullptr when it was not read.
    const std::vector<double>* find(std::string_view name) const;
    // The calls in block b, for a Measurement of `number_per_run` calls a block.
    double calls_in(std::size_t b, std::int64_t number_per_run) const {
        return block_calls.empty() ? static_cast<double>(number_per_run) : block_calls[b];
    }
};

// Blocks in which the process lost its core: a context switch or a CPU migration.
struct Disturbance {
    std::size_t blocks = 0;    // disturbed blocks
    std::size_t of = 0;        // blocks judged (those with both counters read)
    double median_shift = 0;   // median per-call time of the disturbed blocks over that of the others, - 1
};

class Measurement {
public:
    // raw_times: seconds per block of `number_per_run` calls (at least one block).
    // raw_cpu_times, when given, are the process CPU seconds of the same blocks.
    // Throws std::invalid_argument for no blocks, number_per_run < 1, or a mismatched
    // or non-finite time.
    Measurement(std::int64_t number_per_run, std::vector<double> raw_times, TaskSpec task_spec,
                std::vector<double> raw_cpu_times = {});

    // The same measurement with the interval its run stopped on (printed as one more line).
    Measurement with_median_interval(MedianInterval interval) const;
    // Present when a precision-driven run produced this measurement.
    const std::optional<MedianInterval>& median_interval() const { return median_interval_; }
    // The same measurement with the counters read around its blocks (one value per block
    // each; throws std::invalid_argument otherwise). Printed as a line when it says
    // something: disturbed blocks, IPC and branch misses.
    Measurement with_counters(BlockCounters counters) const;
    const BlockCounters& counters() const { return counters_; }
    // Judged from the context-switches and cpu-migrations counters; nullopt without them.
    std::optional<Disturbance> disturbance() const;

    std::int64_t number_per_run() const { return number_per_run_; }
    const std::vector<double>& raw_times() const { return raw_times_; }
    const std::vector<double>& raw_cpu_times() const { return raw_cpu_times_; }
    // Seconds per call: each raw time divided by number_per_run, in block order.
    std::vector<double> times() const;
    // CPU seconds per call; empty when CPU time was not measured.
    std::vector<double> cpu_times() const;

    const TaskSpec& task_spec() const { return task_spec_; }
    const std::string& label() const { return task_spec_.label; }
    const std::string& sub_label() const { return task_spec_.sub_label; }
    const std::string& description() const { return task_spec_.description; }
    const std::string& env() const { return task_spec_.env; }
    int num_threads() const { return task_spec_.num_threads; }
    std::string title() const { return task_spec_.title(); }

    // Statistics of the per-call times (seconds); quantiles interpolate linearly.
    double median() const { return median_; }
    double mean() const { return mean_; }
    double p25() const { return p25_; }
    double p75() const { return p75_; }
    double iqr() const { return p75_ - p25_; }
    int significant_figures() const { return significant_figures_; }

    // IQR / median < threshold.
    bool meets_confidence(double threshold = 0.1) const;
    bool has_warnings() const { return !warnings_.empty(); }
    // Each warning is two lines ("  WARNING: ..." and its explanation).
    const std::vector<std::string>& warnings() const { return warnings_; }
    // Blocks the process was stopped or descheduled in (SIGSTOP, a paused VM): over 50x
    // the median wall time, with CPU time that did not grow with it (under a tenth of
    // what the median block's CPU share predicts). Judged only with CPU times, and only
    // where the median block is at least half CPU time (a case that waits cannot be
    // told from a stopped one). They stay in the statistics; a warning says so.
    std::size_t stopped_blocks() const { return stopped_blocks_; }

    // Joins measurements of the same task into one (times per call concatenated,
    // number_per_run 1), keeping first-seen order of tasks.
    static std::vector<Measurement> merge(std::span<const Measurement> measurements);

    // The reference's printed form (see docs/timer.md): title, description, setup, Median, IQR,
    // counts and warnings, without a trailing newline.
    std::string to_string() const;

private:
    void count_stopped_blocks();
    std::string counters_lines() const;

    std::int64_t number_per_run_;
    std::vector<double> raw_times_;
    std::vector<double> raw_cpu_times_;
    TaskSpec task_spec_;
    std::vector<double> sorted_times_;
    double median_ = 0.0, mean_ = 0.0, p25_ = 0.0, p75_ = 0.0;
    int significant_figures_ = 1;
    std::vector<std::string> warnings_;
    std::size_t stopped_blocks_ = 0;
    std::optional<MedianInterval> median_interval_;
    BlockCounters counters_;
};

std::ostream& operator<<(std::ostream& out, const Measurement& m);

}  // namespace vitals
