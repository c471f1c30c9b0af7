// `vitals compare` of two traces: self CPU time per operator, before and after, per call
// of each operator and per call of the profiled statement.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace vitals {

namespace profiler {
struct Trace;
}

// Whether a file is a Chrome trace (a profile) rather than a results file.
bool looks_like_trace(const std::string& path);

// What a trace says of the calls it recorded.
struct TraceCalls {
    // Calls of the profiled statement: the sum of N over the trace's
    // `Timer.profile: <title> (N calls)` annotations; nullopt in a trace without them
    // (one from another tool).
    std::optional<std::int64_t> statement_calls;
    std::string title;       // the statement's title in that annotation ("" without one)
    std::int64_t steps = 0;  // ProfilerStep#k annotations (a profile with a schedule)
};
TraceCalls trace_calls(const profiler::Trace& trace);

// Per operator: its calls before and after, self CPU time per call of the operator before
// and after and the change; per call of the statement when both traces say how many they
// hold, per step when both have steps, and the total change only when both hold the same
// number of statement calls (steps, for traces without statement calls); otherwise a note
// says why totals are left out. Largest change per operator call first. The names are
// shown in the heading.
std::string profile_diff_report(const profiler::Trace& before, const profiler::Trace& after, const std::string& before_name,
                                const std::string& after_name);
// The same for two trace files; throws std::runtime_error for a file that is not a trace.
std::string profile_diff_report(const std::string& before_path, const std::string& after_path);

}  // namespace vitals
