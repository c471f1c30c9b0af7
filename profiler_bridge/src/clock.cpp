#include "vitals/profiler/clock.hpp"

#include "vitals/cpu_info.hpp"

#include <chrono>
#include <mutex>
#include <string>

namespace vitals::profiler {
namespace detail {
namespace {

bool cpu_has_invariant_tsc() {
#if defined(__x86_64__) || defined(__i386__)
    return cpu_info().invariant_tsc;
#else
    return false;
#endif
}

}  // namespace

const bool g_use_tsc = cpu_has_invariant_tsc();

std::int64_t steady_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

}  // namespace detail

namespace {
struct Anchor {
    std::int64_t ticks, ns;
};

// The same instant on both clocks: ticks read between two steady_clock reads.
Anchor read_anchor() {
    const std::int64_t before = detail::steady_ns();
    const std::int64_t ticks = now_ticks();
    const std::int64_t after = detail::steady_ns();
    return {ticks, before + (after - before) / 2};
}

const Anchor& first_anchor() {
    static const Anchor anchor = read_anchor();
    return anchor;
}
[[maybe_unused]] const Anchor& g_first_anchor_at_load = first_anchor();
}  // namespace

TickConverter TickConverter::calibrated() {
    TickConverter c;
    if (!detail::g_use_tsc) return c;  // ticks are already steady_clock nanoseconds
    constexpr std::int64_t kMinBaselineNs = 10'000'000;
    const Anchor first = first_anchor();
    Anchor now = read_anchor();
    while (now.ns - first.ns < kMinBaselineNs) now = read_anchor();
    c.base_ticks_ = first.ticks;
    c.base_ns_ = first.ns;
    c.ns_per_tick_ = static_cast<double>(now.ns - first.ns) / static_cast<double>(now.ticks - first.ticks);
    return c;
}

const char* clock_source() { return detail::g_use_tsc ? "rdtsc" : "steady_clock"; }

}  // namespace vitals::profiler
