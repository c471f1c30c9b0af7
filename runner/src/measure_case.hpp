// One case measured to a CaseResult, a stop signal taking effect after the current
// block. Internal to the runner.
#pragma once

#include <stdexcept>

#include "measure_flags.hpp"
#include "vitals/case.hpp"
#include "vitals/results.hpp"

namespace vitals::cli {

// Thrown out of a measurement once a stop signal arrived (see StopSignals).
struct Interrupted : std::runtime_error {
    Interrupted() : std::runtime_error("interrupted") {}
};

// Times one case. A SkipCase or a failure becomes the result's `skipped` or `error`;
// Interrupted passes through. With `timeout_seconds` > 0 a case still measuring after
// that long is stopped at its next block and fails as timed out.
CaseResult run_case(const Case& c, const MeasureOptions& options, double timeout_seconds = 0);

}  // namespace vitals::cli
