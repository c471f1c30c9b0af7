// Results files: Google Benchmark's JSON layout plus vitals' fields, so the tools that
// read those files read ours.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "vitals/measurement.hpp"

namespace vitals {

// The outcome of one case: a measurement, or why there is none.
struct CaseResult {
    std::string name;
    std::optional<Measurement> measurement;
    std::string skipped;  // non-empty: the case could not run here, and why
    std::string error;    // non-empty: the case failed, and how
};

inline constexpr int kResultsSchemaVersion = 1;

// The whole results document: a `context` describing this machine and program, then per
// case one "iteration" entry per block and the mean/median/stddev/cv/p25/p75/iqr
// aggregates (see README, "Results JSON"). Times are nanoseconds per call.
std::string results_to_json(const std::vector<CaseResult>& results, const std::string& executable);

}  // namespace vitals
