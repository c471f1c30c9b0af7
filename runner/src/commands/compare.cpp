// vitals compare BEFORE AFTER: two results files case by case with a significance test,
// or two traces operator by operator.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>

#include "../case_pairs.hpp"
#include "../command.hpp"
#include "../flags.hpp"
#include "../output_flag.hpp"
#include "vitals/results/comparison.hpp"
#include "vitals/results/junit.hpp"
#include "vitals/results/markup.hpp"
#include "vitals/results/reporters.hpp"
#include "vitals/results/trace_diff.hpp"
#include "vitals/atomic_file.hpp"

namespace vitals::cli {
namespace {

class CompareCommand final : public Command {
public:
    void declare(CLI::App& app) override {
        app.add_option("before", before_, "Results before the change (ours or Google Benchmark's JSON)")->required();
        app.add_option("after", after_, "Results after the change")->required();
        report_.declare(app);
        json_.declare(app, "--json", "Also write the comparison as JSON");
        junit_.declare(app, "--junit",
                       "Also write JUnit XML here, for CI: a testcase per compared case, failed when its verdict is named "
                       "by --fail-on (none fail without it)");
        fail_on_.declare(app);
        app.add_option("--pair", pairs_,
                       "Compare BEFORE_CASE in the before file with AFTER_CASE in the after file (repeatable); '*' "
                       "matches any text, e.g. --pair '*-before=*-after'. Other cases are compared by name");
    }

    void run(const CommandContext& context) override {
        const bool before_is_trace = looks_like_trace(before_), after_is_trace = looks_like_trace(after_);
        if (before_is_trace != after_is_trace) {
            const std::string& trace = before_is_trace ? before_ : after_;
            const std::string& other = before_is_trace ? after_ : before_;
            throw UsageError(fmt::format("'{}' is a trace but '{}' is not (it is no Chrome trace: neither gzipped, nor a "
                                         "list of events, nor an object with \"traceEvents\"); compare two traces, or "
                                         "two results files",
                                         trace, other));
        }
        if (before_is_trace) {
            if (json_.given()) throw UsageError("--json applies to results files, not to two traces");
            if (junit_.given()) throw UsageError("--junit applies to results files, not to two traces");
            if (fail_on_.given()) throw UsageError("--fail-on applies to results files, not to two traces");
            if (!pairs_.empty()) throw UsageError("--pair applies to results files, not to two traces");
            try {
                fmt::print("{}", profile_diff_report(before_, after_));
            } catch (const std::runtime_error& e) {
                throw UsageError(e.what());
            }
            return;
        }
        OutputFlag::check_apart({{"--json", &json_}, {"--junit", &junit_}});
        const std::optional<OutputFile> json = json_.prepare({.inputs = {before_, after_}});  // before the inputs are read
        const std::optional<OutputFile> junit = junit_.prepare({.inputs = {before_, after_}});
        std::vector<std::string> warnings;
        ResultsFile before = read_results_file_or_usage_error(before_, warnings);
        ResultsFile after = read_results_file_or_usage_error(after_, warnings);
        if (!pairs_.empty()) apply_pairs(resolve_pairs(pairs_, before.cases, after.cases), before.cases, after.cases);
        // Cases in one file only are listed as added or removed; none in common is no error.
        Comparison comparison = compare_cases(before_, before.cases, after_, after.cases, report_.options());
        comparison.google_benchmark_input = !before.written_by_vitals || !after.written_by_vitals;
        comparison.warnings.insert(comparison.warnings.begin(), warnings.begin(), warnings.end());
        // With the JSON on standard output, this goes to standard error (OutputFlag).
        fmt::print("{}", render_comparison_text(comparison));
        if (json) json->write(render_comparison_json(comparison));
        if (junit) {
            junit->write(render_junit({junit_of_comparison(comparison, [this](stats::Verdict v) { return fail_on_.fails(v); },
                                                           junit_classname(context, "compare"))}));
        }
        fail_on_.check(verdicts_of(comparison));
    }

private:
    std::string before_, after_;
    std::vector<std::string> pairs_;
    FailOnFlag fail_on_;
    ReportFlags report_;
    OutputFlag json_, junit_;
};

}  // namespace

std::unique_ptr<Command> make_compare_command() { return std::make_unique<CompareCommand>(); }

}  // namespace vitals::cli
