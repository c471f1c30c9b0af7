// Streaming aggregates for values that arrive one at a time (block times as a run
// progresses), without keeping the values: count, sum, min, max, mean, variance.
#pragma once

#include <cstdint>
#include <memory>

namespace vitals::stats {

class RunningStats {
public:
    RunningStats();
    ~RunningStats();
    RunningStats(const RunningStats&);
    RunningStats& operator=(const RunningStats&);
    RunningStats(RunningStats&&) noexcept;
    RunningStats& operator=(RunningStats&&) noexcept;

    void add(double value);

    std::int64_t count() const;
    double sum() const;
    // min, max, mean and variance are NaN before the first value.
    double min() const;
    double max() const;
    double mean() const;
    // Population variance (divides by count).
    double variance() const;

private:
    struct State;  // Boost.Accumulators set, kept out of this header
    std::unique_ptr<State> state_;
};

}  // namespace vitals::stats
