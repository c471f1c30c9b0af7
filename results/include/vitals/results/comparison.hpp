// Two runs compared case by case: the one model that every comparison report renders
// (reporters.hpp), so that compare, report and run --baseline give the same verdicts
// from the same ReportOptions. Computing never formats.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "vitals/results.hpp"
#include "vitals/significance.hpp"

namespace vitals {

// Both sides need this many processes before their per-process medians are tested;
// with fewer, the blocks are (as if independent).
inline constexpr std::size_t kMinProcessesForTest = 3;

struct CaseComparison {
    std::string name;
    stats::Change change;   // of per-process medians when by_process, else of blocks
    bool by_process = false;
    std::size_t processes_before = 1, processes_after = 1;
    std::size_t blocks = 0;  // the smaller side's block count
    // A side read from aggregates only: one median, no test; the verdict is `untested`.
    bool from_aggregates = false;
    std::optional<double> instructions_before, instructions_after;  // per call, when both counted
    // The distribution-free 95% intervals of the two medians shown (order statistics of
    // the values tested); none for a side of fewer than 6 values.
    std::optional<std::pair<double, double>> before_interval, after_interval;
};

struct Comparison {
    std::string before_name, after_name;
    ReportOptions options;
    std::vector<CaseComparison> cases;  // measured on both sides, in the before run's order
    std::vector<std::string> removed;   // only before (or not measured after)
    std::vector<std::string> added;     // only after
    // In both, but not measured in one or both (failed or skipped): name, and why.
    std::vector<std::pair<std::string, std::string>> not_compared;
    // Said by the command about its inputs (an interrupted run's file, say), and by
    // compare_cases (cases measured with cold caches on one side only).
    std::vector<std::string> warnings;
    // A side was written by Google Benchmark, whose repetitions all run in one process:
    // the advice of the notes differs.
    bool google_benchmark_input = false;
    // Positions in `cases` and `not_compared` by name (filled by compare_cases).
    std::unordered_map<std::string, std::size_t> case_index, not_compared_index;
    // Geometric mean of after/before medians, minus 1, over the cases with two non-zero
    // medians; none when no case has.
    std::optional<double> geomean_change;

    // The case of that name, or nullptr.
    const CaseComparison* find(const std::string& name) const;
    // Why a case in both runs was not compared, or nullptr.
    const std::string* why_not_compared(const std::string& name) const;
    // How many cases were tested on per-process medians.
    std::size_t cases_by_process() const;
    // What a verdict of `same` means here, for reports: "not significant at alpha 0.05
    // (two-sided Mann-Whitney U test on per-process medians), or a change under 1.0%".
    std::string meaning_of_same() const;
    // Which median the before and after columns show: "before and after: the median of the
    // per-process medians (a results file's median aggregate is that of all its blocks)",
    // or of all blocks, or each where it applies.
    std::string medians_shown() const;
};

// The smallest two-sided p-value the exact U test can give for samples of n and m
// without ties: 2 / C(n + m, n). Above alpha, no difference can be significant.
double smallest_exact_p_value(std::size_t n, std::size_t m);

// Every case measured in both runs, tested with stats::test_change: on per-process
// medians where both sides have kMinProcessesForTest processes or more, else on blocks.
Comparison compare_cases(const std::string& before_name, const std::vector<CaseSamples>& before,
                         const std::string& after_name, const std::vector<CaseSamples>& after,
                         const ReportOptions& options);
// The same, refusing (ResultsFileError) two runs with no case in common.
Comparison compare_runs(const std::string& before_name, const std::vector<CaseSamples>& before,
                        const std::string& after_name, const std::vector<CaseSamples>& after,
                        const ReportOptions& options);

// Names of the cases with that verdict, in the comparison's order (for --fail-on).
std::vector<std::string> cases_with_verdict(const Comparison& comparison, stats::Verdict verdict);

// Every compared case's name and verdict, in the comparison's order (for --fail-on).
std::vector<std::pair<std::string, stats::Verdict>> verdicts_of(const Comparison& comparison);

// Names of the cases found slower by more than min_change (a fraction), for --profile-slow.
std::vector<std::string> slower_cases(const Comparison& comparison, double min_change);

}  // namespace vitals
