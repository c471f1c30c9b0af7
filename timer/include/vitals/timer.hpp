// Timer: time a statement the way torch.utils.benchmark.Timer does, in C++.
//
//   vitals::Timer timer({.stmt = [&] { z.noalias() = x * y; }, .label = "x @ y"});
//   std::cout << timer.blocked_autorange({.min_run_time = 0.5}) << '\n';
//
// A block is: setup, clock, number x stmt, clock. Host blocks use the steady clock;
// when `cuda_stream` is given, blocks are timed with CUDA events recorded on that
// stream around the calls (see docs/timer.md, "Device work"). While a profile records, each
// block appears in the trace as a user annotation.
//
// Every way the statement runs (timed blocks, a profile, steps under a schedule, an
// instruction count) goes through one path that applies num_threads, global_setup,
// setup and the device synchronisation, so no caller re-implements it.
//
// This header keeps to what timing needs: profiling a Timer (Timer::profile) also takes
// <vitals/timer_profile.hpp>, which brings the profiler's types.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "vitals/code.hpp"
#include "vitals/measurement.hpp"
#include "vitals/stop_rule.hpp"

struct CUstream_st;  // cudaStream_t is CUstream_st*; this header never includes CUDA's

namespace vitals {

namespace profiler {
struct Trace;
}
struct TimerProfileOptions;  // <vitals/timer_profile.hpp>
namespace detail {
struct TimerBlocks;  // block by block, for vitals::ab (timer/src/ab.cpp)
}

// What the caches hold when a call starts.
enum class Cache {
    warm,  // whatever the calls before left there: the statement's data, once it fits
    // Evicted before every call (outside the timed region): each block is one call that
    // finds its data in memory. "How fast is this when its data come from memory?"
    cold,
};

struct TimerOptions {
    Code stmt{};                // what is timed
    Code setup{};               // runs before every block, outside the timed region
    Code global_setup{};        // runs once, before the first block
    std::string label{};        // table title in Compare; the printed title
    std::string sub_label{};    // row in Compare
    std::string description{};  // column in Compare
    std::string env{};          // environment tag (e.g. build flavour), shown when it differs
    int num_threads = 1;        // OpenMP/Eigen threads during the run, restored after
    std::optional<CUstream_st*> cuda_stream{};  // time device work on this stream with CUDA events
    // The work of one call, when known: printed Measurements add a throughput line, results
    // files Google Benchmark's bytes_per_second / items_per_second (and flops_per_second),
    // and reports place the case against this machine's limits (`vitals machine`).
    double bytes_per_call = 0;   // bytes read plus written
    double flops_per_call = 0;   // floating-point operations; an FMA counts 2
    double items_per_call = 0;   // anything countable: elements, rows, requests
    double working_set_bytes = 0;  // bytes touched per call, if not bytes_per_call
    bool f64_flops = false;        // the flops are double precision (the f64 peak bounds them)
    Cache cache = Cache::warm;
    // Counters read around every timed block (names from <vitals/counters.hpp>, e.g.
    // vitals::default_counters()); none by default. The Measurement carries them.
    std::vector<std::string> counters{};
};

struct BlockedAutorangeOptions {
    double min_run_time = 0.2;  // seconds of measured blocks to gather
    BlockCallback callback{};
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
    // > 0: stop instead once the 95% confidence interval of the median (order statistics
    // of the block times) lies within +/- precision of it, e.g. 0.01 for 1%; the
    // Measurement then carries that interval.
    double precision = 0.0;
    double min_run_time = 0.01;
    double max_run_time = 10.0;
    BlockCallback callback{};
};

class Timer {
public:
    // Throws std::invalid_argument when stmt is empty, num_threads < 1, or a counter
    // name is unknown.
    explicit Timer(TimerOptions options);

    // One warm-up block of max(number / 100, 2) calls, then one measured block. With
    // Cache::cold, `number` blocks of one call each, the caches evicted before each.
    Measurement timeit(std::int64_t number = 1000000);
    // global_setup, setup and exactly one timed call, with no warm-up: a smoke test that
    // the statement runs (run --dry-run). The Measurement holds that one call's time.
    Measurement run_once();
    // Picks a power-of-ten block size, then times blocks until min_run_time is reached.
    Measurement blocked_autorange(const BlockedAutorangeOptions& options = {});
    // Times blocks until IQR / median < threshold (or, with .precision, the median's
    // confidence interval is that tight) after min_run_time, or until max_run_time of
    // block time or of wall time (setup and clocks included) has passed.
    Measurement adaptive_autorange(const AdaptiveAutorangeOptions& options = {});

    // Runs the statement under a profile, apart from any timed block, so tracing never
    // touches the statistics: `steps` steps of `number` calls each, with Profile::step()
    // between them, so a schedule in the options records its windows as in a training
    // loop. Returns the last finished trace. Needs <vitals/timer_profile.hpp>.
    profiler::Trace profile();
    profiler::Trace profile(const TimerProfileOptions& options);

    // Counts the instructions of `number` calls: with hardware counters (perf_event_open)
    // where the kernel allows them; under Valgrind's Callgrind by switching collection on
    // for exactly the calls (run with --collect-atstart=no; see count_under_callgrind in
    // <vitals/instructions.hpp>). Throws std::runtime_error saying what to do where
    // neither works.
    InstructionCount collect_instructions(const InstructionOptions& options = {});

    const TaskSpec& task_spec() const { return task_spec_; }
    // The caches each call starts with (a case's Timer measured --cold, say).
    void set_cache(Cache cache) {
        options_.cache = cache;
        task_spec_.cold = cache == Cache::cold;
    }
    Cache cache() const { return options_.cache; }
    // The counters read around every timed block (see TimerOptions::counters); throws
    // std::invalid_argument for a name <vitals/counters.hpp> does not know.
    void set_counters(std::vector<std::string> names);
    const std::vector<std::string>& counters() const { return options_.counters; }
    // True when blocks are timed on a CUDA stream (device work).
    bool times_device() const { return options_.cuda_stream.has_value(); }

private:
    friend struct detail::TimerBlocks;
    class Run;  // timer_run.hpp
    std::int64_t estimate_block_size(Run& run, double min_run_time);
    // Times blocks of `number` calls until the rule stops; `finished`, when given,
    // receives the rule as it stopped.
    Measurement measure(Run& run, std::int64_t number, StopRule rule, const BlockCallback& callback,
                        StopRule* finished = nullptr);
    Measurement measure_to_precision(Run& run, std::int64_t number, double precision, double min_run_time,
                                     double max_run_time, const BlockCallback& callback);

    // Set while a Run is live: a Timer runs on one thread at a time (its global_setup,
    // thread count and block sizes are its own). Copies and moves start unset.
    struct InUse {
        std::atomic<bool> flag{false};
        InUse() = default;
        InUse(const InUse&) noexcept {}
        InUse& operator=(const InUse&) noexcept { return *this; }
    };

    TimerOptions options_;
    TaskSpec task_spec_;
    InUse in_use_;
    bool global_setup_done_ = false;
    std::int64_t last_number_per_run_ = 1;
};

}  // namespace vitals
