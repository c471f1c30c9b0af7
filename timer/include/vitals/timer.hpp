// Timer: time a statement the way torch.utils.benchmark.Timer does, in C++.
//
//   vitals::Timer timer({.stmt = [&] { z.noalias() = x * y; }, .label = "x @ y"});
//   std::cout << timer.blocked_autorange({.min_run_time = 0.5}) << '\n';
//
// A block is: setup, clock, number x stmt, clock. Host blocks use the steady clock;
// when `cuda_stream` is given, blocks are timed with CUDA events recorded on that
// stream around the calls (see README, "Device work"). While a profile records, each
// block appears in the trace as a user annotation.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "vitals/code.hpp"
#include "vitals/measurement.hpp"
#include "vitals/profiler/profile.hpp"
#include "vitals/stop_rule.hpp"

struct CUstream_st;  // cudaStream_t is CUstream_st*; this header never includes CUDA's

namespace vitals {

struct TimerOptions {
    Code stmt;                  // what is timed
    Code setup;                 // runs before every block, outside the timed region
    Code global_setup;          // runs once, before the first block
    std::string label;          // table title in Compare; the printed title
    std::string sub_label;      // row in Compare
    std::string description;    // column in Compare
    std::string env;            // environment tag (e.g. build flavour), shown when it differs
    int num_threads = 1;        // OpenMP/Eigen threads during the run, restored after
    std::optional<CUstream_st*> cuda_stream;  // time device work on this stream with CUDA events
};

// Called after every measured block with (calls in the block, block seconds).
using BlockCallback = std::function<void(std::int64_t number, double block_seconds)>;

struct BlockedAutorangeOptions {
    double min_run_time = 0.2;  // seconds of measured blocks to gather
    BlockCallback callback;
};

struct TimerProfileOptions {
    // Calls of stmt to record; 0: the number_per_run of this Timer's last measurement
    // (1 before any).
    std::int64_t number = 0;
    // What to record (activities, shapes, memory). A schedule does not apply: the calls
    // form one window.
    profiler::ProfileOptions profile;
};

struct InstructionOptions {
    std::int64_t number = 100;  // calls of stmt to count
};

// Instructions executed by exactly `number` calls of stmt (setup and the loop's own
// bookkeeping excluded only as far as the counter allows).
struct InstructionCount {
    std::int64_t number = 0;
    std::int64_t total = -1;  // -1: counted by Callgrind, the total is in its output file
    std::string source;       // "perf_event_open" or "callgrind"
    double per_call() const { return total < 0 ? -1.0 : static_cast<double>(total) / static_cast<double>(number); }
};

struct AdaptiveAutorangeOptions {
    double threshold = 0.1;     // stop once IQR / median is below this (over > 3 blocks)
    double min_run_time = 0.01;
    double max_run_time = 10.0;
    BlockCallback callback;
};

class Timer {
public:
    // Throws std::invalid_argument when stmt is empty or num_threads < 1.
    explicit Timer(TimerOptions options);

    // One warm-up block of max(number / 100, 2) calls, then one measured block.
    Measurement timeit(std::int64_t number = 1000000);
    // Picks a power-of-ten block size, then times blocks until min_run_time is reached.
    Measurement blocked_autorange(const BlockedAutorangeOptions& options = {});
    // Times blocks until IQR / median < threshold (after min_run_time), or max_run_time.
    Measurement adaptive_autorange(const AdaptiveAutorangeOptions& options = {});

    // Runs setup, then `number` calls of stmt under a profile, apart from any timed
    // block, so tracing never touches the statistics. Returns the recorded trace.
    // Throws std::invalid_argument when options carry a schedule.
    profiler::Trace profile(const TimerProfileOptions& options = {});

    // Counts the instructions of `number` calls: with hardware counters (perf_event_open)
    // where the kernel allows them; under Valgrind's Callgrind by switching collection on
    // for exactly the calls (run with --collect-atstart=no; `vitals timeit --instructions`
    // does this for you). Throws std::runtime_error saying what to do where neither works.
    InstructionCount collect_instructions(const InstructionOptions& options = {});

    const TaskSpec& task_spec() const { return task_spec_; }
    const TimerOptions& options() const { return options_; }

private:
    struct BlockTime {
        double wall;  // seconds, at least 1 ns (the reference's clamp)
        double cpu;   // process CPU seconds
    };
    BlockTime time_block(std::int64_t number);
    void run_global_setup_once();
    std::int64_t estimate_block_size(double min_run_time);
    Measurement measure(std::int64_t number, StopRule rule, const BlockCallback& callback);

    TimerOptions options_;
    TaskSpec task_spec_;
    bool global_setup_done_ = false;
    std::int64_t last_number_per_run_ = 1;
};

}  // namespace vitals
