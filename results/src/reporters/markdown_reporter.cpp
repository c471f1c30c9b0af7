// markdown_report: the cases of one or more runs as markdown tables, for a pull request.
#include <fmt/format.h>

#include "vitals/results/comparison.hpp"
#include "vitals/results/reporters.hpp"
#include "vitals/results/markup.hpp"
#include "vitals/results.hpp"
#include "vitals/stats.hpp"

namespace vitals {

std::string markdown_report(const std::vector<NamedResults>& files, const ReportOptions& options) {
    std::string out;
    if (files.size() == 2) {
        out += fmt::format("**{}** → **{}**\n\n| case | before | after | change | p-value | verdict |\n|---|---:|---:|---:|---:|---|\n",
                           escape_markdown(files[0].first), escape_markdown(files[1].first));
        const Comparison comparison = compare_cases(files[0].first, files[0].second, files[1].first, files[1].second, options);
        const CaseIndex index(files);
        for (const std::string& name : case_names(files)) {
            const CaseComparison* compared = comparison.find(name);
            if (compared == nullptr) {
                const std::string* why = comparison.why_not_compared(name);
                out += fmt::format("| {} | {} | | | | |\n", markdown_code(name),
                                   why != nullptr ? "not compared: " + escape_markdown(*why)
                                   : index.find(0, name) == nullptr ? std::string("added")
                                                                                     : std::string("removed"));
                continue;
            }
            const stats::Change& c = compared->change;
            out += fmt::format("| {} | {} | {} | {} | {} | {} |\n", markdown_code(name), stats::format_seconds(c.before_median),
                               stats::format_seconds(c.after_median), percent_change(c.change),
                               compared->from_aggregates ? "-" : fmt::format("{:.4f}", c.p_value),
                               c.verdict == stats::Verdict::same || c.verdict == stats::Verdict::untested
                                   ? std::string(stats::verdict_name(c.verdict))
                                   : fmt::format("**{}**", stats::verdict_name(c.verdict)));
        }
        if (!comparison.cases.empty()) {
            out += fmt::format("| geomean | | | {} | | |\n",
                               comparison.geomean_change ? percent_change(*comparison.geomean_change) : "n/a");
        }
        if (!comparison.cases.empty()) {
            out += fmt::format("\nVerdicts: **slower** or **faster** when p < {} and the median changed by more than "
                               "{:.1f}%; `same`: {}. {}.\n",
                               options.alpha, options.noise_floor * 100, comparison.meaning_of_same(),
                               "B" + comparison.medians_shown().substr(1));
            if (!cases_with_verdict(comparison, stats::Verdict::untested).empty()) {
                out += fmt::format("`untested`: {}.\n", kUntestedMeans);
            }
        }
        for (const std::string& warning : comparison.warnings) out += "\n> **Warning:** " + escape_markdown(warning) + "\n";
        for (const std::string& note : comparison_notes(comparison)) out += "\n> **Note:** " + escape_markdown(note) + "\n";
        return out;
    }
    for (const auto& [file, cases] : files) {
        out += fmt::format("**{}**\n\n| case | median | IQR | blocks |\n|---|---:|---:|---:|\n", escape_markdown(file));
        for (const CaseSamples& c : cases) {
            if (c.seconds.empty()) continue;
            if (c.aggregate_of > 0) {  // one median, of repetitions the file does not hold
                out += fmt::format("| {} | {} | - | {} (aggregates only) |\n", markdown_code(c.name),
                                   stats::format_seconds(c.seconds.front()), c.aggregate_of);
                continue;
            }
            out += fmt::format("| {} | {} | {} | {} |\n", markdown_code(c.name), stats::format_seconds(stats::median(c.seconds)),
                               stats::format_seconds(stats::iqr(c.seconds)), c.seconds.size());
        }
        out += "\n";
    }
    return out;
}

}  // namespace vitals
