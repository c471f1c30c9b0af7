// The run-length rules of the Timer, as pure objects fed block durations.
//
// They never read a clock: the Timer times blocks and reports them here, and tests
// feed synthetic durations. The rules are those of torch.utils.benchmark.Timer.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace vitals {

// Picks the number of calls per block (`number_per_run`): grow by powers of ten until
// the clock's own cost is at most 1e-4 of a block and a block lasts at least
// min_run_time / 1000, or a block alone exceeds min_run_time, or the next size would
// pass 2^31 - 1.
class BlockSizeEstimator {
public:
    // How many empty blocks are timed to estimate the clock's cost (their median).
    static constexpr int kOverheadSamples = 5;

    explicit BlockSizeEstimator(double min_run_time);

    // The median of the empty-block (number = 0) timings.
    void set_overhead(const std::vector<double>& empty_block_times);
    double overhead() const { return overhead_; }

    // The block size to time next; after done(), the chosen size.
    std::int64_t number() const { return number_; }
    // Feeds the duration of a block of number() calls; returns done().
    bool add_block(double seconds);
    bool done() const { return done_; }

private:
    double min_run_time_;
    double overhead_ = 0.0;
    std::int64_t number_ = 1;
    bool done_ = false;
};

// When to stop timing blocks. Blocked: once the summed block time reaches min_run_time.
// Adaptive: additionally require more than 3 blocks with IQR / median < threshold,
// and stop regardless once the summed time passes max_run_time.
class StopRule {
public:
    static StopRule blocked(double min_run_time);
    static StopRule adaptive(double threshold, double min_run_time, double max_run_time);

    // Feeds one block's duration (seconds for the whole block); returns should_stop().
    bool add_block(double seconds);
    bool should_stop() const { return stop_; }

    const std::vector<double>& block_times() const { return times_; }
    double total_time() const { return total_; }

private:
    StopRule(double min_run_time, std::optional<double> threshold, std::optional<double> max_run_time);

    double min_run_time_;
    std::optional<double> threshold_;
    std::optional<double> max_run_time_;
    std::vector<double> times_;
    double total_ = 0.0;
    bool stop_ = false;
};

}  // namespace vitals
