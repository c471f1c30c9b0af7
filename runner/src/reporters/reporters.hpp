// Reporters: each renders the comparison model (comparison.hpp) in one format, and
// nothing else. html_report and markdown_report (results.hpp) are the reporters of
// whole runs. Internal to the runner.
#pragma once

#include <string>
#include <vector>

#include "../comparison.hpp"

namespace vitals {

// The terminal report of `vitals compare` and `run --baseline`: a header naming the
// test, one row per case, the geomean, instruction counts, added/removed cases, notes.
std::string render_comparison_text(const Comparison& comparison);
// What a reader of any report should know about how the cases were tested (one plain
// sentence each, without the "note: " prefix): single-process sides, too few
// processes or blocks, cases read from aggregates only.
std::vector<std::string> comparison_notes(const Comparison& comparison);
// The same as a JSON document (compare --json).
std::string render_comparison_json(const Comparison& comparison);

}  // namespace vitals
