// Reporters: each renders the comparison model (comparison.hpp) in one format, and
// nothing else. html_report and markdown_report (results.hpp) are the reporters of
// whole runs.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "vitals/results/comparison.hpp"

namespace vitals {

// The terminal report of `vitals compare` and `run --baseline`: a header naming the
// test, one row per case, the geomean, instruction counts, added/removed cases, notes.
std::string render_comparison_text(const Comparison& comparison);
// What a reader of any report should know about how the cases were tested (one plain
// sentence each, without the "note: " prefix): single-process sides, too few
// processes or blocks, cases read from aggregates only.
std::vector<std::string> comparison_notes(const Comparison& comparison);
// What a verdict of `untested` means, for reports.
inline constexpr const char* kUntestedMeans =
    "no test was possible: a side has one median of aggregates only, not its repetitions";
// The roofline of the runs' cases that state their flops, on the first run's machine
// ceilings that are known (inline SVG and a caption); "" when there is nothing to draw.
std::string roofline_svg(const std::vector<NamedResults>& runs, const std::vector<std::optional<MachineCeilings>>& ceilings);
// The same as a JSON document (compare --json).
std::string render_comparison_json(const Comparison& comparison);

}  // namespace vitals
