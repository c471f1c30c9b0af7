// Two runs compared case by case: the one model that every comparison report renders
// (reporters.hpp), so that compare, report and run --baseline give the same verdicts
// from the same ReportOptions. Computing never formats. Internal to the runner.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "vitals/results.hpp"
#include "vitals/significance.hpp"

namespace vitals {

struct CaseComparison {
    std::string name;
    stats::Change change;
    std::size_t blocks = 0;  // the smaller side's block count
    std::optional<double> instructions_before, instructions_after;  // per call, when both counted
};

struct Comparison {
    std::string before_name, after_name;
    ReportOptions options;
    std::vector<CaseComparison> cases;  // measured on both sides, in the before run's order
    std::vector<std::string> removed;   // only before (or not measured after)
    std::vector<std::string> added;     // only after
    double geomean_change = 0;          // geometric mean of after/before medians, minus 1

    // The case of that name, or nullptr.
    const CaseComparison* find(const std::string& name) const;
};

// Every case measured in both runs, tested with stats::test_change.
Comparison compare_cases(const std::string& before_name, const std::vector<CaseSamples>& before,
                         const std::string& after_name, const std::vector<CaseSamples>& after,
                         const ReportOptions& options);
// The same, refusing (ResultsFileError) two runs with no case in common.
Comparison compare_runs(const std::string& before_name, const std::vector<CaseSamples>& before,
                        const std::string& after_name, const std::vector<CaseSamples>& after,
                        const ReportOptions& options);

// Names of the cases found slower by more than min_change (a fraction), for --profile-slow.
std::vector<std::string> slower_cases(const Comparison& comparison, double min_change);

}  // namespace vitals
