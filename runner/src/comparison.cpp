#include "comparison.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace vitals {

const CaseComparison* Comparison::find(const std::string& name) const {
    const auto it = std::find_if(cases.begin(), cases.end(), [&](const CaseComparison& c) { return c.name == name; });
    return it == cases.end() ? nullptr : &*it;
}

Comparison compare_cases(const std::string& before_name, const std::vector<CaseSamples>& before,
                         const std::string& after_name, const std::vector<CaseSamples>& after,
                         const ReportOptions& options) {
    Comparison out{before_name, after_name, options, {}, {}, {}, 0};
    double log_sum = 0;
    for (const CaseSamples& b : before) {
        const CaseSamples* a = find_samples(after, b.name);
        if (a == nullptr) {
            out.removed.push_back(b.name);
        } else if (!b.seconds.empty() && !a->seconds.empty()) {
            CaseComparison c{b.name, stats::test_change(b.seconds, a->seconds, options.alpha, options.noise_floor),
                             std::min(b.seconds.size(), a->seconds.size()), std::nullopt, std::nullopt};
            if (b.instructions && a->instructions && *b.instructions > 0) {
                c.instructions_before = b.instructions;
                c.instructions_after = a->instructions;
            }
            log_sum += std::log(c.change.after_median / c.change.before_median);
            out.cases.push_back(std::move(c));
        }
    }
    for (const CaseSamples& a : after) {
        if (find_samples(before, a.name) == nullptr) out.added.push_back(a.name);
    }
    if (!out.cases.empty()) out.geomean_change = std::exp(log_sum / static_cast<double>(out.cases.size())) - 1;
    return out;
}

Comparison compare_runs(const std::string& before_name, const std::vector<CaseSamples>& before,
                        const std::string& after_name, const std::vector<CaseSamples>& after,
                        const ReportOptions& options) {
    Comparison out = compare_cases(before_name, before, after_name, after, options);
    if (out.cases.empty()) {
        throw ResultsFileError(fmt::format("'{}' and '{}' have no case in common; compare results of the same cases",
                                           before_name, after_name));
    }
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
