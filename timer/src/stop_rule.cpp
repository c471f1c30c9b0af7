#include "vitals/stop_rule.hpp"

#include <ext/pb_ds/assoc_container.hpp>
#include <ext/pb_ds/tree_policy.hpp>
#include <functional>
#include <stdexcept>
#include <utility>

#include "vitals/significance.hpp"
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

namespace detail {

// libstdc++'s policy-based red-black tree with order statistics; (time, arrival) keys
// keep equal times apart.
struct OrderedTimes::Tree {
    __gnu_pbds::tree<std::pair<double, std::size_t>, __gnu_pbds::null_type, std::less<>, __gnu_pbds::rb_tree_tag,
                     __gnu_pbds::tree_order_statistics_node_update>
        values;
};

OrderedTimes::OrderedTimes() : tree_(new Tree) {}
OrderedTimes::~OrderedTimes() { delete tree_; }
OrderedTimes::OrderedTimes(const OrderedTimes& other) : tree_(new Tree(*other.tree_)) {}
OrderedTimes& OrderedTimes::operator=(const OrderedTimes& other) {
    if (this != &other) *tree_ = *other.tree_;
    return *this;
}

void OrderedTimes::insert(double seconds) { tree_->values.insert({seconds, tree_->values.size()}); }
std::size_t OrderedTimes::size() const { return tree_->values.size(); }
double OrderedTimes::at(std::size_t k) const { return tree_->values.find_by_order(k)->first; }

double OrderedTimes::quantile(double q) const {
    const stats::QuantilePosition p = stats::quantile_position(size(), q);
    return stats::interpolate(at(p.below), at(p.above), p.weight);
}

}  // namespace detail

StopRule::StopRule(Kind kind, double min_run_time, double target, std::optional<double> max_run_time)
    : kind_(kind), min_run_time_(min_run_time), target_(target), max_run_time_(max_run_time) {}

StopRule StopRule::blocked(double min_run_time) { return StopRule(Kind::blocked, min_run_time, 0.0, std::nullopt); }

StopRule StopRule::adaptive(double threshold, double min_run_time, double max_run_time) {
    return StopRule(Kind::adaptive, min_run_time, threshold, max_run_time);
}

StopRule StopRule::precision(double precision, double min_run_time, double max_run_time) {
    return StopRule(Kind::precision, min_run_time, precision, max_run_time);
}

std::optional<std::pair<double, double>> StopRule::median_interval() const {
    const std::optional<stats::MedianInterval> ranks = stats::median_interval_ranks(sorted_.size());
    if (!ranks) return std::nullopt;
    return std::pair{sorted_.at(ranks->lower), sorted_.at(ranks->upper)};
}

bool StopRule::add_block(double seconds, double wall_seconds) {
    if (stop_) return true;
    times_.push_back(seconds);
    total_ += seconds;
    bool can_stop = true;
    if (kind_ == Kind::adaptive) {
        sorted_.insert(seconds);
        // IQR / median is the same for block times as for per-call times.
        can_stop = times_.size() > 3 && (sorted_.quantile(0.75) - sorted_.quantile(0.25)) / sorted_.quantile(0.5) < target_;
    } else if (kind_ == Kind::precision) {
        sorted_.insert(seconds);
        const auto interval = median_interval();
        const double median = sorted_.quantile(0.5);
        can_stop = interval && interval->first >= median * (1 - target_) && interval->second <= median * (1 + target_);
    }
    const double wall = wall_seconds < 0 ? total_ : wall_seconds;
    const double gathered = wall_counts_ ? std::max(total_, wall) : total_;
    stop_ = (gathered >= min_run_time_ && can_stop) || (max_run_time_ && (total_ > *max_run_time_ || wall > *max_run_time_));
    return stop_;
}

}  // namespace vitals
