#include "vitals/ab.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>

#include "timer_run.hpp"
#include "vitals/stats.hpp"

namespace vitals {

namespace detail {

// A Timer's blocks one at a time. Each block runs under a Run of its own, so every
// alternative's statement gets its own thread count while the others' Runs are closed.
struct TimerBlocks {
    static std::int64_t size_and_warm_up(Timer& t, double block_time) {
        Timer::Run run(t.options_, t.global_setup_done_, t.in_use_.flag);
        const std::int64_t smallest = t.estimate_block_size(run, 0.05);
        const double per_call = run.timed_block(smallest, t.task_spec_).wall / static_cast<double>(smallest);
        constexpr double kLargest = 2147483647.0;  // the block sizes' limit elsewhere (2^31 - 1)
        const double wanted = std::min(std::ceil(block_time / per_call), kLargest);
        const std::int64_t number = std::max(smallest, static_cast<std::int64_t>(wanted));
        run.setup();
        run.untimed_calls(number);  // the untimed block
        t.last_number_per_run_ = number;
        return number;
    }
    static double time_block(Timer& t, std::int64_t number) {
        Timer::Run run(t.options_, t.global_setup_done_, t.in_use_.flag);
        return run.timed_block(number, t.task_spec_).wall;
    }
    static const TaskSpec& task(const Timer& t) { return t.task_spec_; }
};

}  // namespace detail

namespace {
constexpr std::size_t kMostRounds = 1'000'000;
}  // namespace

std::string_view ab_stop_name(AbStop stop) {
    switch (stop) {
        case AbStop::precision: return "precision";
        case AbStop::max_run_time: return "max_run_time";
        case AbStop::interrupted: return "interrupted";
        case AbStop::failed: return "failed";
    }
    return "?";
}

std::vector<AbAlternative> summarize_rounds(const std::vector<AbRound>& rounds, const std::vector<std::int64_t>& numbers,
                                            double alpha, double noise_floor) {
    std::vector<AbAlternative> out(numbers.size());
    if (rounds.empty()) return out;
    for (const AbRound& r : rounds) {
        if (r.block_seconds.size() != numbers.size()) {
            throw std::invalid_argument(fmt::format("summarize_rounds: a round has {} blocks for {} alternatives",
                                                    r.block_seconds.size(), numbers.size()));
        }
    }
    const auto per_call = [&](const AbRound& r, std::size_t i) { return r.block_seconds[i] / static_cast<double>(numbers[i]); };
    const std::optional<stats::MedianInterval> ranks = stats::median_interval_ranks(rounds.size(), 0.95);
    for (std::size_t i = 0; i < numbers.size(); ++i) {
        AbAlternative& a = out[i];
        a.number_per_block = numbers[i];
        std::vector<double> times, ratios;
        std::size_t above = 0, below = 0;
        for (const AbRound& r : rounds) {
            times.push_back(per_call(r, i));
            const double ratio = per_call(r, i) / per_call(r, 0);
            ratios.push_back(ratio);
            above += ratio > 1.0;
            below += ratio < 1.0;
        }
        a.median = stats::median(times);
        if (i == 0) continue;  // the reference: ratio 1, same
        a.ratio = stats::median(ratios);
        if (ranks) {
            std::sort(ratios.begin(), ratios.end());
            a.ratio_interval = std::pair{ratios[ranks->lower], ratios[ranks->upper]};
        }
        a.p_value = stats::sign_test_p_value(above, below);
        if (a.p_value < alpha && std::fabs(a.ratio - 1.0) > noise_floor) {
            a.verdict = a.ratio > 1.0 ? stats::Verdict::slower : stats::Verdict::faster;
        }
    }
    return out;
}

bool ab_precise_enough(const std::vector<AbAlternative>& alternatives, double precision) {
    for (std::size_t i = 1; i < alternatives.size(); ++i) {
        const AbAlternative& a = alternatives[i];
        if (!a.ratio_interval) return false;
        if (a.ratio_interval->first < a.ratio * (1.0 - precision) || a.ratio_interval->second > a.ratio * (1.0 + precision)) {
            return false;
        }
    }
    return true;
}

AbResult ab(const std::vector<std::reference_wrapper<Timer>>& timers, const AbOptions& options) {
    if (timers.size() < 2) {
        throw std::invalid_argument(fmt::format("ab: needs two Timers or more to compare, got {}", timers.size()));
    }
    for (std::size_t i = 0; i < timers.size(); ++i) {
        for (std::size_t j = 0; j < i; ++j) {
            if (&timers[i].get() == &timers[j].get()) {
                throw std::invalid_argument(fmt::format("ab: Timer {} is Timer {} again; give each alternative a Timer of its own",
                                                        i + 1, j + 1));
            }
        }
    }
    const auto positive = [](double v) { return std::isfinite(v) && v > 0.0; };
    if (!(options.precision > 0.0 && options.precision < 1.0)) {
        throw std::invalid_argument(fmt::format("ab: precision must be in (0, 1), e.g. 0.01 for 1%; got {}", options.precision));
    }
    if (!positive(options.max_run_time) || !positive(options.block_time) || !(options.min_run_time >= 0.0)) {
        throw std::invalid_argument(fmt::format("ab: max_run_time ({}) and block_time ({}) must be seconds > 0, "
                                                "min_run_time ({}) seconds >= 0",
                                                options.max_run_time, options.block_time, options.min_run_time));
    }
    if (options.min_rounds < 1 || options.min_rounds > kMostRounds) {
        throw std::invalid_argument(fmt::format("ab: min_rounds must be 1 to {}; got {}", kMostRounds, options.min_rounds));
    }
    if (options.block_time > options.max_run_time) {
        throw std::invalid_argument(fmt::format("ab: block_time ({} s) is longer than max_run_time ({} s); every round "
                                                "times one block of each alternative",
                                                options.block_time, options.max_run_time));
    }
    if (!(options.alpha > 0.0 && options.alpha < 1.0) || !(options.noise_floor >= 0.0)) {
        throw std::invalid_argument(fmt::format("ab: alpha must be in (0, 1) and noise_floor >= 0; got {} and {}",
                                                options.alpha, options.noise_floor));
    }

    const auto started = std::chrono::steady_clock::now();
    const auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(); };
    const std::size_t k = timers.size();
    std::vector<std::int64_t> numbers;
    AbResult result;
    result.alpha = options.alpha;
    result.noise_floor = options.noise_floor;
    result.precision = options.precision;
    // An alternative that throws ends the comparison with what was measured before it.
    const auto failed = [&](std::size_t i, const std::string& what) {
        numbers.resize(k, 1);
        result.stopped_by = AbStop::failed;
        result.failure = AbResult::Failure{i, what};
        result.alternatives = summarize_rounds(result.rounds, numbers, options.alpha, options.noise_floor);
        result.alternatives.resize(k);
        for (std::size_t j = 0; j < k; ++j) {
            result.alternatives[j].task = detail::TimerBlocks::task(timers[j].get());
            result.alternatives[j].name = result.alternatives[j].task.title();
            result.alternatives[j].number_per_block = numbers[j];
            result.alternatives[j].verdict = stats::Verdict::untested;
        }
        result.wall_seconds = elapsed();
        throw AbFailed(std::move(result), fmt::format("ab: alternative {} ('{}') threw: {}", i + 1,
                                                      detail::TimerBlocks::task(timers[i].get()).title(), what));
    };
    const auto guarded = [&](std::size_t i, const auto& step) {
        try {
            return step();
        } catch (const std::exception& e) {
            failed(i, e.what());
        } catch (...) {
            failed(i, "an exception that is no std::exception");
        }
        return decltype(step())();
    };
    for (std::size_t i = 0; i < k; ++i) {
        numbers.push_back(guarded(i, [&] { return detail::TimerBlocks::size_and_warm_up(timers[i].get(), options.block_time); }));
    }

    double rounds_started = elapsed(), last_round = 0.0;
    for (;;) {
        // The next round would end past the limit: stop before it (after one round at least).
        if (result.rounds.size() >= options.min_rounds && elapsed() + last_round > options.max_run_time) {
            result.stopped_by = AbStop::max_run_time;
            break;
        }
        const double round_start = elapsed();
        AbRound round{std::vector<double>(k), result.rounds.size() % 2 == 1};
        for (std::size_t step = 0; step < k; ++step) {
            const std::size_t i = round.reversed ? k - 1 - step : step;
            round.block_seconds[i] = guarded(i, [&] { return detail::TimerBlocks::time_block(timers[i].get(), numbers[i]); });
        }
        result.rounds.push_back(std::move(round));
        last_round = elapsed() - round_start;
        if (options.on_round && !options.on_round(result.rounds.size(), elapsed())) {
            result.stopped_by = AbStop::interrupted;
            break;
        }
        if (result.rounds.size() < options.min_rounds) continue;
        if (elapsed() - rounds_started >= options.min_run_time &&
            ab_precise_enough(summarize_rounds(result.rounds, numbers, options.alpha, options.noise_floor), options.precision)) {
            result.stopped_by = AbStop::precision;
            break;
        }
        if (elapsed() >= options.max_run_time) {
            result.stopped_by = AbStop::max_run_time;
            break;
        }
    }
    result.alternatives = summarize_rounds(result.rounds, numbers, options.alpha, options.noise_floor);
    for (std::size_t i = 0; i < k; ++i) {
        result.alternatives[i].task = detail::TimerBlocks::task(timers[i].get());
        result.alternatives[i].name = result.alternatives[i].task.title();
    }
    result.wall_seconds = elapsed();
    return result;
}

}  // namespace vitals
