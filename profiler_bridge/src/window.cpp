// A recording window's edges: arming the recorder (and CUPTI, when the profile asks for
// CUDA activity) before the window, and collecting what it recorded into the trace after
// it. When the edges come is the schedule's business (profile.cpp).
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

#include "device_activity.hpp"
#include "recorder.hpp"
#include "trace_builder.hpp"
#include "vitals/profiler/profile.hpp"

namespace vitals::profiler {
namespace {

bool wants_cuda(const ProfileOptions& options) {
    return std::find(options.activities.begin(), options.activities.end(), Activity::cuda) != options.activities.end();
}

}  // namespace

void Profile::prepare_trace() {
    // Records, not events: a scope is two records (begin and end).
    detail::set_record_cap(options_.max_events > 0 ? 2 * options_.max_events : 0);
    const std::int64_t reserve =
        options_.max_events > 0 ? std::min(options_.reserve_events, options_.max_events) : options_.reserve_events;
    detail::reserve_records(2 * std::min<std::int64_t>(reserve, std::int64_t{1} << 40));
    device_active_ = false;
    if (wants_cuda(options_)) {
        const std::string reason = detail::device_activity::start();
        if (reason.empty()) {
            device_active_ = true;
        } else {
            static std::once_flag said;  // once per process, not once per cycle
            std::call_once(said, [&] {
                fmt::print(stderr, "vitals: profiler: CUDA activity is not recorded ({}); recording CPU activity only\n",
                           reason);
            });
        }
    }
    detail::start_recording(options_.record_shapes, options_.profile_memory, device_active_);
}

void Profile::start_trace() {
    detail::collect_all(/*keep=*/false);  // warm-up events are traced, then thrown away
    window_start_ticks_ = now_ticks();
}

void Profile::stop_trace() {
    // The device's work launched inside the window finishes inside it (torch.profiler
    // synchronises too), so it is flushed whole and kept by the window filter.
    if (device_active_) detail::device_activity::synchronize();
    const std::int64_t end = now_ticks();
    detail::stop_recording();
    if (detail::cap_reached()) {
        fmt::print(stderr,
                   "vitals: warning: the profile reached its cap of {} events and stopped recording for the rest of "
                   "this window; raise ProfileOptions::max_events or record fewer steps\n",
                   options_.max_events);
    }
    std::vector<DeviceEvent> device = device_active_ ? detail::device_activity::stop() : std::vector<DeviceEvent>{};
    device_active_ = false;
    trace_ = detail::build_trace(detail::collect_all(/*keep=*/true), std::move(device), window_start_ticks_, end, options_);
    has_trace_ = true;
    if (trace_.scopes_left_open > 0) {
        fmt::print(stderr,
                   "vitals: note: {} scope{} still open when the window closed {} left out of this trace (a scope is "
                   "recorded whole or not at all; end a scope before the step() or stop() that closes the window to "
                   "keep it)\n",
                   trace_.scopes_left_open, trace_.scopes_left_open > 1 ? "s" : "",
                   trace_.scopes_left_open > 1 ? "were" : "was");
    }
}

}  // namespace vitals::profiler
