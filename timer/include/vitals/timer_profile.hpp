// Timer::profile's options: how many calls and steps to record, and what the profile
// records. Apart from <vitals/timer.hpp> so that timing alone does not compile the
// profiler's headers.
//
//   const vitals::profiler::Trace trace = timer.profile({.number = 10, .profile = {.record_shapes = true}});
//   std::cout << trace.key_averages().table({.sort_by = "self_cpu_time_total"});
#pragma once

#include <cstdint>
#include <functional>

#include "vitals/profiler/profile.hpp"
#include "vitals/timer.hpp"

namespace vitals {

struct TimerProfileOptions {
    // Calls of stmt per step; 0: the number_per_run of this Timer's last measurement
    // (1 before any).
    std::int64_t number = 0;
    // Calls of stmt run after setup and before the profile starts, unrecorded, so lazy
    // initialisation and cold caches stay out of the recording.
    std::int64_t warmup_calls = 0;
    // Steps to run, with Profile::step() after each but the last; 0: one cycle of the
    // schedule (skip_first + wait + warmup + active, times repeat), or one step without
    // a schedule.
    std::int64_t steps = 0;
    // What to record (activities, shapes, memory) and when (schedule, on_trace_ready). A
    // Timer with a cuda_stream also records CUDA activity.
    profiler::ProfileOptions profile{};
    // Called before each step with (step from 0, steps): progress for long runs.
    std::function<void(std::int64_t step, std::int64_t steps)> on_step{};
};

}  // namespace vitals
