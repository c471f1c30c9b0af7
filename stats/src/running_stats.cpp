#include "vitals/running_stats.hpp"

#include <boost/accumulators/accumulators.hpp>
#include <boost/accumulators/statistics/count.hpp>
#include <boost/accumulators/statistics/max.hpp>
#include <boost/accumulators/statistics/mean.hpp>
#include <boost/accumulators/statistics/min.hpp>
#include <boost/accumulators/statistics/stats.hpp>
#include <boost/accumulators/statistics/sum.hpp>
#include <boost/accumulators/statistics/variance.hpp>
#include <limits>

namespace vitals::stats {

namespace acc = boost::accumulators;

struct RunningStats::State {
    acc::accumulator_set<double, acc::stats<acc::tag::count, acc::tag::sum, acc::tag::min,
                                            acc::tag::max, acc::tag::mean, acc::tag::variance>>
        set;
};

RunningStats::RunningStats() : state_(std::make_unique<State>()) {}
RunningStats::~RunningStats() = default;
RunningStats::RunningStats(const RunningStats& other) : state_(std::make_unique<State>(*other.state_)) {}
RunningStats& RunningStats::operator=(const RunningStats& other) {
    if (this != &other) state_ = std::make_unique<State>(*other.state_);
    return *this;
}
RunningStats::RunningStats(RunningStats&&) noexcept = default;
RunningStats& RunningStats::operator=(RunningStats&&) noexcept = default;

void RunningStats::add(double value) { state_->set(value); }

std::int64_t RunningStats::count() const { return static_cast<std::int64_t>(acc::count(state_->set)); }
double RunningStats::sum() const { return acc::sum(state_->set); }

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
}

double RunningStats::min() const { return count() == 0 ? kNaN : acc::min(state_->set); }
double RunningStats::max() const { return count() == 0 ? kNaN : acc::max(state_->set); }
double RunningStats::mean() const { return count() == 0 ? kNaN : acc::mean(state_->set); }
double RunningStats::variance() const { return count() == 0 ? kNaN : acc::variance(state_->set); }

}  // namespace vitals::stats
