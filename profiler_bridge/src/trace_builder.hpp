// Rebuilds a recorded window's events from the records each thread's buffer held:
// record_layout.hpp says what a record holds, this file what a stream of them means.
// Internal.
#pragma once

#include <cstdint>
#include <vector>

#include "recorder.hpp"
#include "vitals/profiler/profile.hpp"

namespace vitals::profiler::detail {

// The trace of the window [window_start_ticks, window_end_ticks], with the device events
// CUPTI recorded meanwhile (those outside the window are dropped).
Trace build_trace(std::vector<ThreadRecords> threads, std::vector<DeviceEvent> device,
                  std::int64_t window_start_ticks, std::int64_t window_end_ticks, const ProfileOptions& options);

}  // namespace vitals::profiler::detail
