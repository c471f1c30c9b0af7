#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string_view>

#include "../json_document.hpp"
#include "vitals/results/markup.hpp"
#include "vitals/results/reporters.hpp"
#include "vitals/stats.hpp"

namespace vitals {

std::vector<std::string> comparison_notes(const Comparison& comparison) {
    const ReportOptions& options = comparison.options;
    std::size_t by_block = 0, few_blocks = 0, few_processes = 0, from_aggregates = 0;
    double unreachable_p = 0;  // the largest smallest-possible p-value above alpha, if any
    for (const CaseComparison& c : comparison.cases) {
        if (c.from_aggregates) {
            ++from_aggregates;
        } else if (c.by_process) {
            const double smallest = smallest_exact_p_value(c.processes_before, c.processes_after);
            if (smallest > options.alpha) {
                ++few_processes;
                unreachable_p = std::max(unreachable_p, smallest);
            }
        } else {
            ++by_block;
            few_blocks += c.blocks < 9 ? 1 : 0;
        }
    }
    const auto plural = [](std::size_t n) { return n > 1 ? "s" : ""; };
    std::vector<std::string> notes;
    if (from_aggregates > 0) {
        notes.push_back(fmt::format(
            "{} case{} read from aggregates only (one median a side): verdict untested, the change is shown but no "
            "test is possible; write every block to test it (vitals: --json-layout blocks, the default; Google Benchmark: without --benchmark_report_aggregates_only)",
            from_aggregates, plural(from_aggregates)));
    }
    if (by_block > 0) {
        notes.push_back(fmt::format(
            "{} case{} tested on per-block times: one side ran in a single process, and the p-value takes its blocks "
            "as independent, which blocks of one process are not (a small difference between two processes can look "
            "certain); {}",
            by_block, plural(by_block),
            comparison.google_benchmark_input
                ? "a Google Benchmark program runs every repetition in one process, so take a small change as "
                  "possibly the process's, or measure the case with 'vitals run --processes 5' to test per-process medians"
                : "measure both sides with 'vitals run --processes 5' to test per-process medians"));
    }
    if (few_processes > 0) {
        notes.push_back(fmt::format("{} case{} with too few processes: the smallest p-value the test can give is "
                                    "{:.3f}, above alpha; use 4 or more processes a side",
                                    few_processes, plural(few_processes), unreachable_p));
    }
    if (few_blocks > 0) {
        notes.push_back(fmt::format("{} case{} with fewer than 9 blocks; the test needs 9 or more to see small "
                                    "changes (raise --min-run-time)",
                                    few_blocks, plural(few_blocks)));
    }
    return notes;
}

std::string render_comparison_text(const Comparison& comparison) {
    const ReportOptions& options = comparison.options;
    std::size_t name_width = std::string_view("geomean").size();
    for (const CaseComparison& c : comparison.cases) name_width = std::max(name_width, terminal_safe(c.name).size());
    const std::size_t by_process = comparison.cases_by_process();
    const auto aggregated = static_cast<std::size_t>(std::count_if(
        comparison.cases.begin(), comparison.cases.end(), [](const CaseComparison& c) { return c.from_aggregates; }));
    const std::size_t by_block = comparison.cases.size() - by_process - aggregated;
    const std::string unit = by_block == 0 && by_process == 0 ? "per-block times (none here: medians of aggregates only)"
                             : by_block == 0                  ? "per-process medians"
                             : by_process == 0                ? "per-block times"
                                               : "per-process medians (per-block times where a side has one process)";
    std::string out =
        fmt::format("{} -> {}: two-sided Mann-Whitney U test on {}, alpha {}; changes under {:.1f}% count as same\n{}\n\n",
                    terminal_safe(comparison.before_name), terminal_safe(comparison.after_name), unit, options.alpha,
                    options.noise_floor * 100, comparison.medians_shown());
    out += fmt::format("{:<{}}  {:>12}  {:>12}  {:>9}  {:>9}  {}\n", "case", name_width, "before", "after", "change",
                       "p-value", "verdict");
    for (const CaseComparison& c : comparison.cases) {
        out += fmt::format("{:<{}}  {:>12}  {:>12}  {:>9}  {:>9}  {}\n", terminal_safe(c.name), name_width,
                           stats::format_seconds(c.change.before_median), stats::format_seconds(c.change.after_median),
                           percent_change(c.change.change), c.from_aggregates ? "-" : fmt::format("{:.4f}", c.change.p_value),
                           stats::verdict_name(c.change.verdict));
    }
    out += fmt::format("{:<{}}  {:>12}  {:>12}  {:>9}\n", "geomean", name_width, "", "",
                       comparison.geomean_change ? percent_change(*comparison.geomean_change) : "n/a");
    std::string counted;
    for (const CaseComparison& c : comparison.cases) {
        if (c.instructions_before && c.instructions_after) {
            counted += fmt::format("  {:<{}}  {:>14.1f}  {:>14.1f}  {:>+8.2f}%\n", terminal_safe(c.name), name_width, *c.instructions_before,
                                   *c.instructions_after,
                                   (*c.instructions_after - *c.instructions_before) / *c.instructions_before * 100);
        }
    }
    if (!counted.empty()) out += "\ninstructions per call (deterministic: any change is real):\n" + counted;
    for (const auto& [name, why] : comparison.not_compared) {
        out += fmt::format("\nnot compared: {} ({})\n", terminal_safe(name), terminal_safe(why));
    }
    for (const std::string& warning : comparison.warnings) out += "\nwarning: " + terminal_safe(warning) + "\n";
    if (!comparison.removed.empty()) {
        out += fmt::format("\nonly in {} (removed): {}\n", terminal_safe(comparison.before_name),
                           terminal_safe(fmt::format("{}", fmt::join(comparison.removed, ", "))));
    }
    if (!comparison.added.empty()) {
        out += fmt::format("\nonly in {} (added): {}\n", terminal_safe(comparison.after_name),
                           terminal_safe(fmt::format("{}", fmt::join(comparison.added, ", "))));
    }
    for (const std::string& note : comparison_notes(comparison)) out += "\nnote: " + note + "\n";
    return out;
}

std::string render_comparison_json(const Comparison& comparison) {
    nlohmann::json cases = nlohmann::json::array();
    for (const CaseComparison& c : comparison.cases) {
        cases.push_back({{"name", c.name},
                         {"tested_on", c.from_aggregates ? "aggregates" : c.by_process ? "process_medians" : "blocks"},
                         {"processes_before", c.processes_before},
                         {"processes_after", c.processes_after},
                         {"before_median", c.change.before_median},
                         {"after_median", c.change.after_median},
                         {"change", c.change.change},
                         {"p_value", c.from_aggregates ? nlohmann::json() : nlohmann::json(c.change.p_value)},
                         {"verdict", stats::verdict_name(c.change.verdict)}});
    }
    return dump_document(nlohmann::json{{"before", comparison.before_name},
                          {"after", comparison.after_name},
                          {"alpha", comparison.options.alpha},
                          {"noise_floor", comparison.options.noise_floor},
                          {"same_means", comparison.meaning_of_same()},
                          {"untested_means", kUntestedMeans},
                          {"cases", cases},
                          {"geomean_change", comparison.geomean_change ? nlohmann::json(*comparison.geomean_change) : nlohmann::json()},
                          {"added", comparison.added},
                          {"removed", comparison.removed},
                          {"not_compared", comparison.not_compared},
                          {"warnings", comparison.warnings},
                          {"notes", comparison_notes(comparison)}});
}

}  // namespace vitals
