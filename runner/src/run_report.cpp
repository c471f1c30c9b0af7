#include "run_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <optional>

#include "profile_window.hpp"
#include "vitals/compare.hpp"
#include "vitals/results/markup.hpp"
#include "vitals/results/trace_diff.hpp"
#include "vitals/timer_profile.hpp"

namespace vitals::cli {

void profile_slow_case(const Case& c, const SlowProfile& how) {
    std::optional<profiler::Trace> before;
    std::filesystem::path before_path;
    std::string no_comparison;  // why there is none
    std::int64_t calls = kDefaultProfileCalls;
    if (how.baseline_trace_dir.empty()) {
        no_comparison = fmt::format("no baseline trace of {}: {} names no trace folder; run the baseline with "
                                    "'vitals run --trace-dir DIR' to compare operators per call",
                                    c.name, how.baseline_path);
    } else {
        before_path = std::filesystem::path(how.baseline_trace_dir) / case_trace_file_name(c.name);
        if (!std::filesystem::exists(before_path)) {
            no_comparison = fmt::format("no baseline trace of {}: {} does not exist; run the baseline with "
                                        "'vitals run --trace-dir DIR' to compare operators per call",
                                        c.name, before_path.string());
        } else {
            try {
                before = profiler::read_chrome_trace(before_path);
                calls = trace_calls(*before).statement_calls.value_or(kDefaultProfileCalls);
                if (calls <= 0) calls = kDefaultProfileCalls;
            } catch (const std::runtime_error& e) {
                no_comparison = fmt::format("the baseline trace of {} cannot be read: {}", c.name, e.what());
                before.reset();
            }
        }
    }
    Timer timer = c.timer();
    warm_up_for_profile(timer);
    const profiler::Trace trace = timer.profile({.number = calls, .profile = {.record_shapes = true}});
    fmt::print("\n{} is slower; its profile:\n{}{}", c.name,
               trace.key_averages().table({.sort_by = how.sort_by, .row_limit = how.row_limit}),
               calls_footer(calls, 1, false));
    const std::filesystem::path folder = std::filesystem::path(how.json_path).parent_path();
    const std::filesystem::path path = folder / case_trace_file_name(c.name);
    trace.export_chrome_trace(path);
    fmt::print("trace: {}\n", path.string());
    if (before) {
        fmt::print("\n{} against the baseline's trace:\n{}", c.name,
                   profile_diff_report(*before, trace, before_path.string(), path.string()));
    } else {
        fmt::print("{}\n", no_comparison);
    }
}


std::vector<Measurement> measurements_for_tables(const std::vector<CaseResult>& results) {
    std::vector<Measurement> out;
    for (const CaseResult& r : results) {
        if (!r.measurement) continue;
        const TaskSpec& task = r.measurement->task_spec();
        const std::size_t same = static_cast<std::size_t>(std::count_if(results.begin(), results.end(), [&](const CaseResult& other) {
            return other.measurement && other.measurement->task_spec() == task;
        }));
        if (same == 1) {
            out.push_back(*r.measurement);
            continue;
        }
        TaskSpec named = task;
        named.sub_label = task.sub_label.empty() ? r.name : task.sub_label + " (" + r.name + ")";
        Measurement m(r.measurement->number_per_run(), r.measurement->raw_times(), std::move(named), r.measurement->raw_cpu_times());
        out.push_back(r.measurement->median_interval() ? m.with_median_interval(*r.measurement->median_interval()) : m);
    }
    return out;
}

void print_skipped(const std::vector<CaseResult>& results) {
    const auto skipped = std::count_if(results.begin(), results.end(), [](const CaseResult& r) { return !r.skipped.empty(); });
    if (skipped == 0) return;
    fmt::print("\n{} case{} skipped:\n", skipped, skipped > 1 ? "s" : "");
    for (const CaseResult& r : results) {
        if (!r.skipped.empty()) fmt::print("  {}: {}\n", r.name, terminal_safe(r.skipped));
    }
}

void print_disturbed(const std::vector<CaseResult>& results) {
    std::vector<std::pair<std::string, Disturbance>> rows;
    std::size_t width = 4;
    for (const CaseResult& r : results) {
        if (!r.measurement) continue;
        if (const std::optional<Disturbance> d = r.measurement->disturbance(); d && d->blocks > 0) {
            rows.emplace_back(terminal_safe(r.name), *d);
            width = std::max(width, rows.back().first.size());
        }
    }
    if (rows.empty()) return;
    fmt::print("\nBlocks that lost their core (a context switch or a CPU migration):\n");
    for (const auto& [name, d] : rows) {
        fmt::print("  {:<{}}  {} of {}{}\n", name, width, d.blocks, d.of,
                   d.blocks < d.of ? fmt::format(", their median {:+.0f}%", d.median_shift * 100) : "");
    }
}

}  // namespace vitals::cli
