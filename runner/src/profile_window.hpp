// What `vitals profile`, `run --trace-dir` and `run --profile-slow` share: one window of a
// fixed number of calls, so that two profiles of one case hold the same count and their
// traces compare operator by operator; the footer under a table; a case's trace file name.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "vitals/timer_profile.hpp"

namespace vitals::cli {

// Calls of the statement in one recorded window (profile --calls, run --trace-dir,
// run --profile-slow without a baseline trace).
inline constexpr std::int64_t kDefaultProfileCalls = 100;

// The statement warmed up before a window is recorded: a short unrecorded measurement
// (lazy initialisation and cold caches stay out of the window).
inline void warm_up_for_profile(Timer& timer) { (void)timer.blocked_autorange({.min_run_time = 0.01}); }

// A case's trace file in a folder: its name with '/' as '_', then ".pt.trace.json".
inline std::string case_trace_file_name(std::string case_name) {
    std::replace(case_name.begin(), case_name.end(), '/', '_');
    return case_name + ".pt.trace.json";
}

// The line under a table that says what its trace holds: "Calls: 100 in one window", or
// with steps (--steps, a schedule) "Calls: 3 per step, 2 steps in this trace".
inline std::string calls_footer(std::int64_t calls_per_step, std::int64_t steps, bool stepped) {
    if (!stepped) return fmt::format("Calls: {} in one window\n", calls_per_step);
    return fmt::format("Calls: {} per step, {} step{} in this trace\n", calls_per_step, steps, steps == 1 ? "" : "s");
}

}  // namespace vitals::cli
