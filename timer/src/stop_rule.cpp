#include "vitals/stop_rule.hpp"

#include <stdexcept>

#include "vitals/stats.hpp"

namespace vitals {

BlockSizeEstimator::BlockSizeEstimator(double min_run_time) : min_run_time_(min_run_time) {}

void BlockSizeEstimator::set_overhead(const std::vector<double>& empty_block_times) {
    overhead_ = empty_block_times.empty() ? 0.0 : stats::median(empty_block_times);
}

bool BlockSizeEstimator::add_block(double seconds) {
    if (done_) return true;
    constexpr double kMaxRelativeOverhead = 1e-4;
    constexpr std::int64_t kMaxNumber = 2147483647;  // the reference's int32 bound
    const double relative_overhead = overhead_ / seconds;
    if (relative_overhead <= kMaxRelativeOverhead && seconds >= min_run_time_ / 1000.0) {
        done_ = true;
    } else if (seconds > min_run_time_) {
        done_ = true;
    } else if (number_ * 10 > kMaxNumber) {
        done_ = true;
    } else {
        number_ *= 10;
    }
    return done_;
}

StopRule::StopRule(double min_run_time, std::optional<double> threshold, std::optional<double> max_run_time)
    : min_run_time_(min_run_time), threshold_(threshold), max_run_time_(max_run_time) {}

StopRule StopRule::blocked(double min_run_time) { return StopRule(min_run_time, std::nullopt, std::nullopt); }

StopRule StopRule::adaptive(double threshold, double min_run_time, double max_run_time) {
    return StopRule(min_run_time, threshold, max_run_time);
}

bool StopRule::add_block(double seconds) {
    if (stop_) return true;
    times_.push_back(seconds);
    total_ += seconds;
    bool can_stop = true;
    if (threshold_) {
        // IQR / median is the same for block times as for per-call times.
        can_stop = times_.size() > 3 && stats::iqr(times_) / stats::median(times_) < *threshold_;
    }
    stop_ = (total_ >= min_run_time_ && can_stop) || (max_run_time_ && total_ > *max_run_time_);
    return stop_;
}

}  // namespace vitals
