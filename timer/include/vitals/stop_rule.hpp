// The run-length rules of the Timer, as pure objects fed block durations.
//
// They never read a clock: the Timer times blocks and reports them here, and tests
// feed synthetic durations. The rules are those of torch.utils.benchmark.Timer.
#pragma once

#include <cstdint>
#include <cstddef>
#include <optional>
#include <utility>
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

namespace detail {
// Block times kept in order as they arrive (an order-statistic tree), so a quantile of
// the blocks so far costs O(log n) per block instead of a sort.
class OrderedTimes {
public:
    OrderedTimes();
    ~OrderedTimes();
    OrderedTimes(const OrderedTimes& other);
    OrderedTimes& operator=(const OrderedTimes& other);

    void insert(double seconds);
    std::size_t size() const;
    // The value of 0-based rank k.
    double at(std::size_t k) const;
    // stats::quantile of the values so far, to the last bit.
    double quantile(double q) const;

private:
    struct Tree;
    Tree* tree_;
};
}  // namespace detail

// When to stop timing blocks, from the block times and the wall time so far.
//   blocked:   once the summed block time reaches min_run_time (the reference).
//   adaptive:  additionally more than 3 blocks with IQR / median < threshold (the
//              reference's rule and decisions).
//   precision: additionally the distribution-free 95% confidence interval of the median
//              (stats::median_interval_ranks) within +/- precision of the median; it
//              narrows as blocks accumulate, so it converges on a noisy machine too.
// adaptive and precision stop regardless once the summed block time or the wall time
// passes max_run_time.
class StopRule {
public:
    static StopRule blocked(double min_run_time);
    static StopRule adaptive(double threshold, double min_run_time, double max_run_time);
    static StopRule precision(double precision, double min_run_time, double max_run_time);

    // Feeds one block's duration (seconds for the whole block) and the wall time since
    // the run began, setup and clocks included (negative: not known, the summed block
    // time stands in); returns should_stop().
    bool add_block(double seconds, double wall_seconds = -1.0);
    // min_run_time counts the wall time too, whichever is reached first: for cold blocks,
    // whose cache eviction can take far longer than the call it precedes.
    void count_wall_time() { wall_counts_ = true; }
    bool should_stop() const { return stop_; }

    const std::vector<double>& block_times() const { return times_; }
    double total_time() const { return total_; }
    // The 95% confidence interval of the median block time (seconds per block) over the
    // blocks so far; nullopt under 6 blocks.
    std::optional<std::pair<double, double>> median_interval() const;

private:
    enum class Kind { blocked, adaptive, precision };
    StopRule(Kind kind, double min_run_time, double target, std::optional<double> max_run_time);

    Kind kind_;
    double min_run_time_;
    double target_;  // threshold (adaptive) or precision (precision)
    std::optional<double> max_run_time_;
    std::vector<double> times_;
    detail::OrderedTimes sorted_;
    double total_ = 0.0;
    bool stop_ = false;
    bool wall_counts_ = false;
};

}  // namespace vitals
