// What `vitals run` prints after its files are safe: the Compare tables' measurements, the
// skipped cases, and the profile of a case slower than the baseline. Internal to the runner.
#pragma once

#include <string>
#include <vector>

#include "vitals/case.hpp"
#include "vitals/results.hpp"

namespace vitals::cli {

// How --profile-slow profiles and shows a slower case.
struct SlowProfile {
    std::string sort_by;
    int row_limit = 100;
    std::string json_path;          // the new results file ("" without --json): traces go beside it
    std::string baseline_path;      // the baseline results file, for messages
    std::string baseline_trace_dir; // where the baseline run wrote its traces ("" if it wrote none)
};

// Profiles a case that came out slower than the baseline in one window of as many calls as
// the baseline's trace of it holds (a profile's default count without one): its table,
// its trace next to the results (or in the current folder), and where the baseline run
// left a trace of the case (run --trace-dir), the per-operator comparison of the two.
void profile_slow_case(const Case& c, const SlowProfile& how);

// The measured cases for the Compare tables. Compare joins measurements of equal tasks
// (the same statement measured twice); distinct cases whose Timers say the same (no
// label, say) are told apart by their case names in the row instead, so that no case
// hides another.
std::vector<Measurement> measurements_for_tables(const std::vector<CaseResult>& results);

// The cases skipped, after the tables.
void print_skipped(const std::vector<CaseResult>& results);

// The cases with blocks that lost their core (a context switch or a migration, from
// --counters), after the tables: how many blocks, and how much slower their median was.
// Nothing when no block was disturbed.
void print_disturbed(const std::vector<CaseResult>& results);

}  // namespace vitals::cli
