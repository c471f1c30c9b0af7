#include "vitals/results/comparison.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string_view>
#include <unordered_map>

namespace vitals {

namespace {

// The distribution-free 95% interval of the median of `values`; none under 6 values.
std::optional<std::pair<double, double>> median_interval_of(std::vector<double> values) {
    const std::optional<stats::MedianInterval> ranks = stats::median_interval_ranks(values.size());
    if (!ranks) return std::nullopt;
    std::sort(values.begin(), values.end());
    return std::pair{values[ranks->lower], values[ranks->upper]};
}

// One warning for the cases measured with cold caches on one side and warm on the other:
// their change is mostly the caches', not the code's.
std::string cache_mismatch_warning(const std::vector<std::pair<std::string, bool>>& cases) {
    constexpr std::size_t kNamed = 3;
    std::string named;
    for (std::size_t i = 0; i < std::min(cases.size(), kNamed); ++i) {
        named += fmt::format("{}'{}' ({} before, {} after)", i == 0 ? "" : ", ", cases[i].first,
                             CaseSamples::cache_state(cases[i].second), CaseSamples::cache_state(!cases[i].second));
    }
    if (cases.size() > kNamed) named += fmt::format(" and {} more", cases.size() - kNamed);
    return fmt::format("{} case{} measured with cold caches on one side and warm on the other: {}; the change is "
                       "mostly the caches', so measure both sides alike (with or without run --cold)",
                       cases.size(), cases.size() == 1 ? " was" : "s were", named);
}

}  // namespace

const CaseComparison* Comparison::find(const std::string& name) const {
    const auto it = case_index.find(name);
    return it == case_index.end() ? nullptr : &cases[it->second];
}

Comparison compare_cases(const std::string& before_name, const std::vector<CaseSamples>& before,
                         const std::string& after_name, const std::vector<CaseSamples>& after,
                         const ReportOptions& options) {
    Comparison out;
    out.before_name = before_name;
    out.after_name = after_name;
    out.options = options;
    double log_sum = 0;
    std::size_t ratios = 0;
    std::vector<std::pair<std::string, bool>> cache_mismatch;  // name, cold before
    // Indexes by name, so that comparing n cases costs about n lookups, not n^2.
    std::unordered_map<std::string_view, const CaseSamples*> after_by_name, before_by_name;
    for (const CaseSamples& a : after) after_by_name.emplace(a.name, &a);
    for (const CaseSamples& b : before) before_by_name.emplace(b.name, &b);
    for (const CaseSamples& b : before) {
        const auto found = after_by_name.find(b.name);
        const CaseSamples* a = found == after_by_name.end() ? nullptr : found->second;
        if (a == nullptr) {
            out.removed.push_back(b.name);
        } else if (b.seconds.empty() || a->seconds.empty()) {
            std::string why;
            if (b.seconds.empty()) why = "before, " + (b.not_measured.empty() ? "no blocks" : b.not_measured);
            if (a->seconds.empty()) {
                why += (why.empty() ? "" : "; ") + ("after, " + (a->not_measured.empty() ? "no blocks" : a->not_measured));
            }
            out.not_compared.emplace_back(b.name, std::move(why));
        } else {
            const std::size_t processes_before = b.process_count(), processes_after = a->process_count();
            const bool by_process = processes_before >= kMinProcessesForTest && processes_after >= kMinProcessesForTest;
            const std::vector<double> tested_before = by_process ? b.process_medians() : b.seconds;
            const std::vector<double> tested_after = by_process ? a->process_medians() : a->seconds;
            const stats::Change change = stats::test_change(tested_before, tested_after, options.alpha, options.noise_floor);
            CaseComparison c{.name = b.name,
                             .change = change,
                             .by_process = by_process,
                             .processes_before = processes_before,
                             .processes_after = processes_after,
                             .blocks = std::min(b.seconds.size(), a->seconds.size()),
                             .from_aggregates = b.aggregate_of > 0 || a->aggregate_of > 0};
            // One median a side is no sample to test: the change stays, the verdict says so.
            if (c.from_aggregates) c.change.verdict = stats::Verdict::untested;
            if (!c.from_aggregates) {
                c.before_interval = median_interval_of(tested_before);
                c.after_interval = median_interval_of(tested_after);
            }
            if (b.instructions && a->instructions && *b.instructions > 0) {
                c.instructions_before = b.instructions;
                c.instructions_after = a->instructions;
            }
            if (c.change.before_median > 0 && c.change.after_median > 0) {  // a ratio the geomean can hold
                log_sum += std::log(c.change.after_median / c.change.before_median);
                ++ratios;
            }
            if (b.cold != a->cold) cache_mismatch.push_back({b.name, b.cold});
            out.cases.push_back(std::move(c));
        }
    }
    for (const CaseSamples& a : after) {
        if (!before_by_name.count(a.name)) out.added.push_back(a.name);
    }
    if (!cache_mismatch.empty()) out.warnings.push_back(cache_mismatch_warning(cache_mismatch));
    for (std::size_t i = 0; i < out.cases.size(); ++i) out.case_index.emplace(out.cases[i].name, i);
    for (std::size_t i = 0; i < out.not_compared.size(); ++i) out.not_compared_index.emplace(out.not_compared[i].first, i);
    if (ratios > 0) out.geomean_change = std::exp(log_sum / static_cast<double>(ratios)) - 1;
    return out;
}

const std::string* Comparison::why_not_compared(const std::string& name) const {
    const auto it = not_compared_index.find(name);
    return it == not_compared_index.end() ? nullptr : &not_compared[it->second].second;
}

std::size_t Comparison::cases_by_process() const {
    return static_cast<std::size_t>(std::count_if(cases.begin(), cases.end(), [](const CaseComparison& c) { return c.by_process; }));
}

std::string Comparison::meaning_of_same() const {
    const std::size_t by_process = cases_by_process();
    const char* unit = by_process == cases.size() ? "per-process medians"
                       : by_process == 0          ? "per-block times"
                                                  : "per-process medians, or per-block times with one process";
    return fmt::format("not significant at alpha {} (two-sided Mann-Whitney U test on {}), or a change under {:.1f}%",
                       options.alpha, unit, options.noise_floor * 100);
}

std::string Comparison::medians_shown() const {
    const std::size_t by_process = cases_by_process();
    if (by_process == 0) return "before and after: the median of all blocks";
    if (by_process == cases.size()) {
        return "before and after: the median of the per-process medians (a results file's median aggregate, and a "
               "box's line, are the median of all its blocks)";
    }
    return "before and after: the median of the per-process medians where tested on processes, else of all blocks";
}

double smallest_exact_p_value(std::size_t n, std::size_t m) {
    double ways = 1;  // C(n + m, n), built up exactly for the small samples this is for
    for (std::size_t i = 1; i <= n; ++i) ways = ways * static_cast<double>(m + i) / static_cast<double>(i);
    return std::min(1.0, 2.0 / ways);
}

Comparison compare_runs(const std::string& before_name, const std::vector<CaseSamples>& before,
                        const std::string& after_name, const std::vector<CaseSamples>& after,
                        const ReportOptions& options) {
    Comparison out = compare_cases(before_name, before, after_name, after, options);
    if (out.cases.empty() && out.not_compared.empty()) {
        throw ResultsFileError(fmt::format("'{}' and '{}' have no case in common; compare results of the same cases",
                                           before_name, after_name));
    }
    return out;
}

std::vector<std::string> cases_with_verdict(const Comparison& comparison, stats::Verdict verdict) {
    std::vector<std::string> out;
    for (const CaseComparison& c : comparison.cases) {
        if (c.change.verdict == verdict) out.push_back(c.name);
    }
    return out;
}

std::vector<std::pair<std::string, stats::Verdict>> verdicts_of(const Comparison& comparison) {
    std::vector<std::pair<std::string, stats::Verdict>> out;
    for (const CaseComparison& c : comparison.cases) out.emplace_back(c.name, c.change.verdict);
    return out;
}

std::vector<std::string> slower_cases(const Comparison& comparison, double min_change) {
    std::vector<std::string> out;
    for (const CaseComparison& c : comparison.cases) {
        if (c.change.verdict == stats::Verdict::slower && c.change.change > min_change) out.push_back(c.name);
    }
    return out;
}

}  // namespace vitals
