// run --dry-run: every selected case called once, as a smoke test (and a ctest test per
// case, cmake/vitalsDiscoverCases.cmake). Internal to the runner.
#pragma once

#include <vector>

#include "vitals/case.hpp"
#include "vitals/results.hpp"

namespace vitals::cli {

// Makes each case's Timer and runs its statement once (Timer::run_once: no warm-up, no
// statistics), printing a line per case on standard output as it ends ("ok", "skipped"
// with the reason, "failed" with the message), then the summary line that
// kDryRunSkippedLine matches when the one case run was skipped. A failure is the case's
// `error`; the other cases still run.
std::vector<CaseResult> dry_run(const std::vector<const Case*>& cases);

// The summary of a dry run of one case that was skipped: what ctest's
// SKIP_REGULAR_EXPRESSION looks for.
inline constexpr const char* kDryRunSkippedLine = "dry run: 1 case, 0 ok, 1 skipped, 0 failed";

}  // namespace vitals::cli
