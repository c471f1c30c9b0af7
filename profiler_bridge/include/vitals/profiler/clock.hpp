// The profiler's timestamps: the cheapest monotonic source that is safe on this machine.
//
// With an invariant TSC (constant_tsc and nonstop_tsc: the same rate on every core, in
// every power state) a timestamp is one rdtsc; otherwise steady_clock. Ticks become
// nanoseconds through a line fitted between two (ticks, steady_clock) pairs far apart.
#pragma once

#include <cstdint>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

namespace vitals::profiler {

namespace detail {
extern const bool g_use_tsc;
std::int64_t steady_ns();
}  // namespace detail

// A raw timestamp for events; only ticks_to_ns gives it meaning.
inline std::int64_t now_ticks() {
#if defined(__x86_64__) || defined(__i386__)
    if (detail::g_use_tsc) [[likely]] return static_cast<std::int64_t>(__rdtsc());
#endif
    return detail::steady_ns();
}

// Converts ticks to steady_clock nanoseconds. Thread-safe.
class TickConverter {
public:
    // Takes a fresh calibration point; the first call may wait up to 10 ms so the two
    // points are far enough apart for a rate accurate to ~1e-6.
    static TickConverter calibrated();
    std::int64_t to_ns(std::int64_t ticks) const {
        return base_ns_ + static_cast<std::int64_t>(static_cast<double>(ticks - base_ticks_) * ns_per_tick_);
    }
    double ns_per_tick() const { return ns_per_tick_; }

private:
    std::int64_t base_ticks_ = 0, base_ns_ = 0;
    double ns_per_tick_ = 1.0;
};

// Which source now_ticks() reads: "rdtsc" or "steady_clock".
const char* clock_source();

}  // namespace vitals::profiler
