// The one path every way of running a Timer's statement goes through, as named phases:
// apply the thread count and run global_setup once (constructing a Run), then per block
// or window `setup`, the calls (timed, or untimed with the device synchronised), and the
// thread count restored when the Run ends. Internal to the timer.
#pragma once

#include <chrono>
#include <cstdint>
#include <vector>

#include "vitals/threads.hpp"
#include "vitals/timer.hpp"

namespace vitals {
namespace detail {
class CounterGroup;
}

class Timer::Run {
public:
    // Applies num_threads for the Run's lifetime; runs global_setup unless already done.
    // Throws std::logic_error when the Timer is already running (on another thread, or
    // from inside its own statement).
    Run(TimerOptions& options, bool& global_setup_done, std::atomic<bool>& in_use);
    Run(const Run&) = delete;
    Run& operator=(const Run&) = delete;

    struct BlockTime {
        double wall;  // seconds, at least 1 ns (the reference's clamp)
        double cpu;   // process CPU seconds
        std::vector<double> counts;  // per counter of `counters`, when given
    };
    // setup, clock, `number` calls, clock (CUDA events on the Timer's stream, if any),
    // with `counters` read just outside the clocks when given. While a profile records,
    // the block is a user annotation named after `task`.
    BlockTime timed_block(std::int64_t number, const TaskSpec& task, detail::CounterGroup* counters = nullptr);
    // Has `counters` (when given) measure what they count of a block's own frame (the
    // clock reads around zero calls) and subtract it from every block after.
    void calibrate(detail::CounterGroup* counters);
    // The setup statement alone.
    void setup();
    // `number` calls with no clock, then the device synchronised (so a profile window or
    // a counter sees the work finished).
    void untimed_calls(std::int64_t number);
    // Wall seconds since the Run began: what max_run_time bounds.
    double elapsed() const;

private:
    // timed_block's counted part: counters, clocks, `number` calls, clocks, counters.
    BlockTime counted_block(std::int64_t number, detail::CounterGroup* counters);

    // Holds the Timer's in-use flag for the Run's lifetime (first, so nothing runs unheld).
    struct Hold {
        explicit Hold(std::atomic<bool>& flag);
        ~Hold() { flag_.store(false); }
        Hold(const Hold&) = delete;
        Hold& operator=(const Hold&) = delete;
        std::atomic<bool>& flag_;
    };

    Hold hold_;
    TimerOptions& options_;
    ThreadCountScope threads_;
    std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
};

}  // namespace vitals
