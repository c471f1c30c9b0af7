// vitals: the one header a user includes.
#pragma once

#include "vitals/atomic_file.hpp"
#include "vitals/case.hpp"
#include "vitals/code.hpp"
#include "vitals/compare.hpp"
#include "vitals/cuda_support.hpp"
#include "vitals/measurement.hpp"
#include "vitals/results.hpp"
#include "vitals/profiler/profile.hpp"
#include "vitals/runner.hpp"
#include "vitals/significance.hpp"
#include "vitals/stats.hpp"
#include "vitals/stop_rule.hpp"
#include "vitals/threads.hpp"
#include "vitals/timer.hpp"
#include "vitals/timer_profile.hpp"
#include "vitals/instructions.hpp"
