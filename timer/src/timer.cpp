#include "vitals/timer.hpp"

#include <fmt/format.h>
#include <time.h>

#include <algorithm>
#include <optional>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "vitals/detail/device_clock.hpp"
#include "vitals/detail/threads.hpp"
#include "vitals/stop_rule.hpp"

namespace vitals {
namespace {

double process_cpu_seconds() {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

void require_positive_finite(double value, const char* what) {
    if (!std::isfinite(value) || value <= 0.0) {
        throw std::invalid_argument(fmt::format("{} must be a finite number of seconds > 0, got {}", what, value));
    }
}

TaskSpec task_spec_of(const TimerOptions& o) {
    return TaskSpec{o.stmt.text(), o.setup.text(), o.global_setup.text(), o.label, o.sub_label, o.description,
                    o.env,         o.num_threads};
}

}  // namespace

Timer::Timer(TimerOptions options) : options_(std::move(options)), task_spec_(task_spec_of(options_)) {
    if (!options_.stmt) {
        throw std::invalid_argument("Timer: .stmt is empty; give the statement to time, e.g. .stmt = [&] { f(); }");
    }
    if (options_.num_threads < 1) {
        throw std::invalid_argument(fmt::format("Timer: .num_threads must be >= 1, got {}", options_.num_threads));
    }
}

void Timer::run_global_setup_once() {
    if (!global_setup_done_) {
        options_.global_setup.run(1);
        global_setup_done_ = true;
    }
}

Timer::BlockTime Timer::time_block(std::int64_t number) {
    run_global_setup_once();
    options_.setup.run(1);
    std::optional<profiler::RecordFunction> annotation;  // only while a profile records
    if (profiler::is_recording()) [[unlikely]] {
        annotation.emplace(fmt::format("Timer block: {} ({} calls)", task_spec_.title(), number),
                           profiler::Category::user_annotation, 0);
    }
    const double cpu_start = process_cpu_seconds();
    double wall = 0.0;
    if (options_.cuda_stream) {
        wall = detail::time_block_on_stream(*options_.cuda_stream, options_.stmt, number);
    } else {
        const auto start = std::chrono::steady_clock::now();
        options_.stmt.run(number);
        const auto stop = std::chrono::steady_clock::now();
        wall = std::chrono::duration<double>(stop - start).count();
    }
    const double cpu = process_cpu_seconds() - cpu_start;
    return {std::max(wall, 1e-9), std::max(cpu, 0.0)};
}

std::int64_t Timer::estimate_block_size(double min_run_time) {
    BlockSizeEstimator estimator(min_run_time);
    std::vector<double> empty_blocks;
    for (int i = 0; i < BlockSizeEstimator::kOverheadSamples; ++i) empty_blocks.push_back(time_block(0).wall);
    estimator.set_overhead(empty_blocks);
    while (!estimator.add_block(time_block(estimator.number()).wall)) {
    }
    return estimator.number();
}

Measurement Timer::measure(std::int64_t number, StopRule rule, const BlockCallback& callback) {
    std::vector<double> cpu_times;
    do {
        const BlockTime block = time_block(number);
        cpu_times.push_back(block.cpu);
        rule.add_block(block.wall);
        if (callback) callback(number, block.wall);
    } while (!rule.should_stop());
    last_number_per_run_ = number;
    return Measurement(number, rule.block_times(), task_spec_, std::move(cpu_times));
}

Measurement Timer::timeit(std::int64_t number) {
    if (number < 1) throw std::invalid_argument(fmt::format("timeit: number must be >= 1, got {}", number));
    detail::ThreadCountScope threads(options_.num_threads);
    time_block(std::max<std::int64_t>(number / 100, 2));  // warm-up
    const BlockTime block = time_block(number);
    last_number_per_run_ = number;
    return Measurement(number, {block.wall}, task_spec_, {block.cpu});
}

profiler::Trace Timer::profile(const TimerProfileOptions& options) {
    if (options.profile.schedule) {
        throw std::invalid_argument("Timer::profile: a schedule does not apply (the calls form one window); "
                                    "drop .schedule or profile the steps yourself with profiler::Profile");
    }
    if (options.number < 0) {
        throw std::invalid_argument(fmt::format("Timer::profile: number must be >= 0, got {}", options.number));
    }
    const std::int64_t number = options.number > 0 ? options.number : last_number_per_run_;
    detail::ThreadCountScope threads(options_.num_threads);
    run_global_setup_once();
    options_.setup.run(1);
    profiler::Profile profile(options.profile);
    profile.start();
    try {
        profiler::RecordFunction annotation(fmt::format("Timer.profile: {} ({} calls)", task_spec_.title(), number),
                                            profiler::Category::user_annotation, 0);
        options_.stmt.run(number);
        if (options_.cuda_stream) detail::synchronize_stream(*options_.cuda_stream);
    } catch (...) {
        profile.stop();
        throw;
    }
    profile.stop();
    return profile.trace();
}

Measurement Timer::blocked_autorange(const BlockedAutorangeOptions& options) {
    require_positive_finite(options.min_run_time, "min_run_time");
    detail::ThreadCountScope threads(options_.num_threads);
    const std::int64_t number = estimate_block_size(options.min_run_time);
    return measure(number, StopRule::blocked(options.min_run_time), options.callback);
}

Measurement Timer::adaptive_autorange(const AdaptiveAutorangeOptions& options) {
    if (!(options.threshold > 0.0 && options.threshold < 1.0)) {
        throw std::invalid_argument(fmt::format("threshold must be in (0, 1), got {}", options.threshold));
    }
    require_positive_finite(options.min_run_time, "min_run_time");
    require_positive_finite(options.max_run_time, "max_run_time");
    if (options.max_run_time < options.min_run_time) {
        throw std::invalid_argument(fmt::format("max_run_time ({}) must be >= min_run_time ({})",
                                                options.max_run_time, options.min_run_time));
    }
    detail::ThreadCountScope threads(options_.num_threads);
    // The reference sizes adaptive blocks for 0.05 s whatever min_run_time is.
    const std::int64_t number = estimate_block_size(0.05);
    return measure(number, StopRule::adaptive(options.threshold, options.min_run_time, options.max_run_time),
                   options.callback);
}

}  // namespace vitals
