#include "vitals/timer.hpp"

#include <fmt/format.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <span>
#include <stdexcept>
#include <vector>

#include "counter_group.hpp"
#include "device_clock.hpp"
#include "timer_run.hpp"
#include "vitals/counters.hpp"
#include "vitals/cpu_caches.hpp"
#include "vitals/stop_rule.hpp"
#include "vitals/timer_profile.hpp"

namespace vitals {
namespace {

double process_cpu_seconds() {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// Counter names are checked when given, so a typo fails where it was made.
void require_known_counters(const std::vector<std::string>& names) {
    for (const std::string& name : names) {
        const std::span<const CounterInfo> known = known_counters();
        if (std::none_of(known.begin(), known.end(), [&](const CounterInfo& c) { return c.name == name; })) {
            std::string list;
            for (const CounterInfo& c : known) list += fmt::format("{}{}", list.empty() ? "" : ", ", c.name);
            throw std::invalid_argument(fmt::format("Timer: unknown counter '{}' in .counters; the counters are: {}", name, list));
        }
    }
}

void require_positive_finite(double value, const char* what) {
    if (!std::isfinite(value) || value <= 0.0) {
        throw std::invalid_argument(fmt::format("{} must be a finite number of seconds > 0, got {}", what, value));
    }
}

TaskSpec task_spec_of(const TimerOptions& o) {
    return TaskSpec{o.stmt.text(), o.setup.text(), o.global_setup.text(), o.label, o.sub_label, o.description, o.env,
                    o.num_threads,
                    WorkPerCall{o.bytes_per_call, o.flops_per_call, o.items_per_call, o.working_set_bytes, o.f64_flops},
                    o.cache == Cache::cold};
}

volatile unsigned eviction_sum = 0;

// Cache::cold: reads a buffer of twice the last-level cache (at least 32 MiB), a line at a
// time, so every line of the statement's data is gone. Reads, not writes: written lines
// would sit dirty in the cache and be written back while the statement runs, a cost a
// call whose data come from memory does not pay. The last level is the one this core
// sees, from /sys: sysconf's can be a whole host's L3 in a virtual machine, many times
// what one core sees, and each cold block would read that much.
void evict_caches() {
    static const std::vector<unsigned char> buffer = [] {
        std::int64_t last_level = 0;
        for (const CacheInfo& c : core0_caches()) {
            if (c.type != "Instruction") last_level = std::max(last_level, c.bytes);
        }
        if (last_level == 0) {  // no /sys
            for (const int level : {_SC_LEVEL4_CACHE_SIZE, _SC_LEVEL3_CACHE_SIZE, _SC_LEVEL2_CACHE_SIZE}) {
                last_level = std::max<std::int64_t>(last_level, ::sysconf(level));
            }
        }
        const std::size_t bytes = std::max<std::size_t>(std::size_t{32} << 20, 2 * static_cast<std::size_t>(std::max<std::int64_t>(last_level, 0)));
        return std::vector<unsigned char>(bytes, 1);
    }();
    constexpr std::size_t kLine = 64;
    unsigned sum = 0;
    for (std::size_t i = 0; i < buffer.size(); i += kLine) sum += buffer[i];
    eviction_sum = sum;  // the reads are kept
}

// The counts of each block, gathered while a Timer measures, for the Measurement.
class BlockCounts {
public:
    explicit BlockCounts(const std::vector<std::string>& names) {
        if (!names.empty()) group_.emplace(names);
    }
    detail::CounterGroup* group() { return group_ ? &*group_ : nullptr; }
    void add(const std::vector<double>& counts) {
        values_.resize(counts.size());
        for (std::size_t c = 0; c < counts.size(); ++c) values_[c].push_back(counts[c]);
    }
    Measurement attach(Measurement m) {
        if (!group_) return m;
        values_.resize(group_->names().size());
        return m.with_counters(BlockCounters{group_->names(), std::move(values_), group_->unavailable()});
    }

private:
    std::optional<detail::CounterGroup> group_;
    std::vector<std::vector<double>> values_;  // [counter][block]
};

}  // namespace

Timer::Run::Hold::Hold(std::atomic<bool>& flag) : flag_(flag) {
    if (flag_.exchange(true)) {
        throw std::logic_error("Timer: this Timer is already running (on another thread, or from inside its own "
                               "statement); give each thread a Timer of its own");
    }
}

Timer::Run::Run(TimerOptions& options, bool& global_setup_done, std::atomic<bool>& in_use)
    : hold_(in_use), options_(options), threads_(options.num_threads) {
    if (!global_setup_done) {
        options_.global_setup.run(1);
        global_setup_done = true;
    }
}

Timer::Run::BlockTime Timer::Run::timed_block(std::int64_t number, const TaskSpec& task, detail::CounterGroup* counters) {
    options_.setup.run(1);
    if (options_.cache == Cache::cold) evict_caches();
    std::optional<profiler::RecordFunction> annotation;  // only while a profile records
    if (profiler::is_recording()) [[unlikely]] {
        annotation.emplace(profiler::copy_name, fmt::format("Timer block: {} ({} call{})", task.title(), number, number == 1 ? "" : "s"));
    }
    return counted_block(number, counters);
}

void Timer::Run::calibrate(detail::CounterGroup* counters) {
    if (counters != nullptr) counters->calibrate([&] { counted_block(0, nullptr); });
}

Timer::Run::BlockTime Timer::Run::counted_block(std::int64_t number, detail::CounterGroup* counters) {
    if (counters != nullptr) counters->start();
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
    std::vector<double> counts;
    if (counters != nullptr) counts = counters->stop();
    return {std::max(wall, 1e-9), std::max(cpu, 0.0), std::move(counts)};
}

void Timer::Run::untimed_calls(std::int64_t number) {
    options_.stmt.run(number);
    if (options_.cuda_stream) detail::synchronize_stream(*options_.cuda_stream);
}

void Timer::Run::setup() { options_.setup.run(1); }

double Timer::Run::elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
}

void Timer::set_counters(std::vector<std::string> names) {
    require_known_counters(names);
    options_.counters = std::move(names);
}

Timer::Timer(TimerOptions options) : options_(std::move(options)), task_spec_(task_spec_of(options_)) {
    if (!options_.stmt) {
        throw std::invalid_argument("Timer: .stmt is empty; give the statement to time, e.g. .stmt = [&] { f(); }");
    }
    if (options_.num_threads < 1) {
        throw std::invalid_argument(fmt::format("Timer: .num_threads must be >= 1, got {}", options_.num_threads));
    }
    require_known_counters(options_.counters);
    for (const auto& [value, name] : {std::pair{options_.bytes_per_call, ".bytes_per_call"},
                                      std::pair{options_.flops_per_call, ".flops_per_call"},
                                      std::pair{options_.items_per_call, ".items_per_call"},
                                      std::pair{options_.working_set_bytes, ".working_set_bytes"}}) {
        if (!std::isfinite(value) || value < 0) {
            throw std::invalid_argument(fmt::format("Timer: {} must be a finite number >= 0 (0: not stated), got {}", name, value));
        }
    }
}

std::int64_t Timer::estimate_block_size(Run& run, double min_run_time) {
    if (options_.cache == Cache::cold) return 1;  // one call a block: only the first call of a block would be cold
    if (options_.cuda_stream) {
        // One untimed call first: cuBLAS handles, lazy module loading and the memory
        // pool's first growth belong to no block, or they would size the blocks.
        run.setup();
        run.untimed_calls(1);
    }
    BlockSizeEstimator estimator(min_run_time);
    std::vector<double> empty_blocks;
    for (int i = 0; i < BlockSizeEstimator::kOverheadSamples; ++i) empty_blocks.push_back(run.timed_block(0, task_spec_).wall);
    estimator.set_overhead(empty_blocks);
    while (!estimator.add_block(run.timed_block(estimator.number(), task_spec_).wall)) {
    }
    return estimator.number();
}

Measurement Timer::measure(Run& run, std::int64_t number, StopRule rule, const BlockCallback& callback,
                           StopRule* finished) {
    if (options_.cache == Cache::cold) rule.count_wall_time();
    std::vector<double> cpu_times;
    BlockCounts counts(options_.counters);
    run.calibrate(counts.group());
    do {
        const Run::BlockTime block = run.timed_block(number, task_spec_, counts.group());
        cpu_times.push_back(block.cpu);
        counts.add(block.counts);
        rule.add_block(block.wall, run.elapsed());
        if (callback) callback(number, block.wall);
    } while (!rule.should_stop());
    last_number_per_run_ = number;
    Measurement m = counts.attach(Measurement(number, rule.block_times(), task_spec_, std::move(cpu_times)));
    if (finished != nullptr) *finished = std::move(rule);
    return m;
}

Measurement Timer::measure_to_precision(Run& run, std::int64_t number, double precision, double min_run_time,
                                        double max_run_time, const BlockCallback& callback) {
    StopRule rule = StopRule::precision(precision, min_run_time, max_run_time);
    Measurement m = measure(run, number, rule, callback, &rule);
    if (const auto interval = rule.median_interval()) {
        const auto per_call = static_cast<double>(number);
        return m.with_median_interval({interval->first / per_call, interval->second / per_call, 0.95});
    }
    return m;
}

Measurement Timer::timeit(std::int64_t number) {
    if (number < 1) throw std::invalid_argument(fmt::format("timeit: number must be >= 1, got {}", number));
    Run run(options_, global_setup_done_, in_use_.flag);
    BlockCounts counts(options_.counters);
    run.calibrate(counts.group());
    if (options_.cache == Cache::cold) {
        std::vector<double> wall, cpu;
        for (std::int64_t k = 0; k < number; ++k) {
            const Run::BlockTime block = run.timed_block(1, task_spec_, counts.group());
            wall.push_back(block.wall);
            cpu.push_back(block.cpu);
            counts.add(block.counts);
        }
        last_number_per_run_ = 1;
        return counts.attach(Measurement(1, std::move(wall), task_spec_, std::move(cpu)));
    }
    run.timed_block(std::max<std::int64_t>(number / 100, 2), task_spec_);  // warm-up
    const Run::BlockTime block = run.timed_block(number, task_spec_, counts.group());
    counts.add(block.counts);
    last_number_per_run_ = number;
    return counts.attach(Measurement(number, {block.wall}, task_spec_, {block.cpu}));
}

Measurement Timer::run_once() {
    Run run(options_, global_setup_done_, in_use_.flag);
    const Run::BlockTime block = run.timed_block(1, task_spec_);
    last_number_per_run_ = 1;
    return Measurement(1, {block.wall}, task_spec_, {block.cpu});
}

profiler::Trace Timer::profile() { return profile(TimerProfileOptions{}); }

profiler::Trace Timer::profile(const TimerProfileOptions& options) {
    if (options.number < 0) {
        throw std::invalid_argument(fmt::format("Timer::profile: number must be >= 0, got {}", options.number));
    }
    if (options.warmup_calls < 0) {
        throw std::invalid_argument(fmt::format("Timer::profile: warmup_calls must be >= 0, got {}", options.warmup_calls));
    }
    if (options.steps < 0) {
        throw std::invalid_argument(fmt::format("Timer::profile: steps must be >= 0, got {}", options.steps));
    }
    const std::int64_t number = options.number > 0 ? options.number : last_number_per_run_;
    profiler::ProfileOptions recorded = options.profile;
    const std::optional<profiler::Schedule>& schedule = recorded.schedule;
    if (schedule) schedule->validate();
    const std::int64_t steps = options.steps > 0 ? options.steps
                               : schedule        ? schedule->skip_first + (schedule->wait + schedule->warmup + schedule->active) *
                                                                       std::max<std::int64_t>(schedule->repeat, 1)
                                                 : 1;
    if (times_device() &&
        std::find(recorded.activities.begin(), recorded.activities.end(), profiler::Activity::cuda) == recorded.activities.end()) {
        recorded.activities.push_back(profiler::Activity::cuda);
    }
    Run run(options_, global_setup_done_, in_use_.flag);
    run.setup();
    if (options.warmup_calls > 0) run.untimed_calls(options.warmup_calls);
    profiler::Profile profile(std::move(recorded));
    profile.start();
    try {
        const std::string annotation = fmt::format("Timer.profile: {} ({} call{})", task_spec_.title(), number, number == 1 ? "" : "s");
        for (std::int64_t step = 0; step < steps; ++step) {
            if (options.on_step) options.on_step(step, steps);
            {
                const profiler::RecordFunction scope(profiler::copy_name, annotation);
                run.untimed_calls(number);
            }
            if (step + 1 < steps) profile.step();
        }
    } catch (...) {
        profile.stop();
        throw;
    }
    profile.stop();
    return profile.trace();
}

Measurement Timer::blocked_autorange(const BlockedAutorangeOptions& options) {
    require_positive_finite(options.min_run_time, "min_run_time");
    Run run(options_, global_setup_done_, in_use_.flag);
    const std::int64_t number = estimate_block_size(run, options.min_run_time);
    return measure(run, number, StopRule::blocked(options.min_run_time), options.callback);
}

Measurement Timer::adaptive_autorange(const AdaptiveAutorangeOptions& options) {
    if (!(options.threshold > 0.0 && options.threshold < 1.0)) {
        throw std::invalid_argument(fmt::format("threshold must be in (0, 1), got {}", options.threshold));
    }
    if (!(options.precision >= 0.0 && options.precision < 1.0)) {
        throw std::invalid_argument(
            fmt::format("precision must be in (0, 1) (e.g. 0.01 for 1%), or 0 for the threshold rule; got {}", options.precision));
    }
    require_positive_finite(options.min_run_time, "min_run_time");
    require_positive_finite(options.max_run_time, "max_run_time");
    if (options.max_run_time < options.min_run_time) {
        throw std::invalid_argument(fmt::format("max_run_time ({}) must be >= min_run_time ({})",
                                                options.max_run_time, options.min_run_time));
    }
    Run run(options_, global_setup_done_, in_use_.flag);
    // The reference sizes adaptive blocks for 0.05 s whatever min_run_time is.
    const std::int64_t number = estimate_block_size(run, 0.05);
    if (options.precision > 0.0) {
        return measure_to_precision(run, number, options.precision, options.min_run_time, options.max_run_time,
                                    options.callback);
    }
    return measure(run, number, StopRule::adaptive(options.threshold, options.min_run_time, options.max_run_time),
                   options.callback);
}

}  // namespace vitals
