// vitals report FILES... --html OUT --markdown OUT: results drawn as box plots or tables,
// with verdicts for a pair, from the same flags as compare.
#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include "../command.hpp"
#include "../flags.hpp"
#include "../output_flag.hpp"
#include "vitals/results/comparison.hpp"
#include "vitals/results/markup.hpp"
#include "vitals/atomic_file.hpp"

namespace vitals::cli {
namespace {

class ReportCommand final : public Command {
public:
    void declare(CLI::App& app) override {
        app.add_option("files", inputs_, "Results files (two: before and after)")->required();
        html_.declare(app, "--html", "Write a self-contained HTML report here");
        markdown_.declare(app, "--markdown", "Write a markdown table here (for a pull request)");
        report_.declare(app);
        fail_on_.declare(app);
    }

    void run(const CommandContext&) override {
        if (!html_.given() && !markdown_.given()) throw UsageError("give --html OUT.html and/or --markdown OUT.md");
        if (fail_on_.given() && inputs_.size() != 2) {
            throw UsageError(fmt::format("--fail-on needs two files, before and after, to give verdicts; got {}", inputs_.size()));
        }
        // Before the inputs are read. Both may be "-": standard output stays shared.
        const OutputFlag::Rules rules{.inputs = {inputs_.begin(), inputs_.end()}, .keep_standard_output = false};
        const std::optional<OutputFile> html = html_.prepare(rules);
        const std::optional<OutputFile> markdown = markdown_.prepare(rules);
        std::vector<NamedResults> runs;
        std::vector<std::optional<MachineCeilings>> ceilings;
        std::vector<std::string> warnings;
        for (const std::string& path : inputs_) {
            ResultsFile file = read_results_file_or_usage_error(path, warnings);
            runs.emplace_back(path, std::move(file.cases));
            ceilings.push_back(std::move(file.ceilings));
        }
        for (const std::string& warning : warnings) fmt::print(stderr, "vitals: warning: {}\n", terminal_safe(warning));
        if (html) html->write(html_report(runs, report_.options(), ceilings));
        if (markdown) markdown->write(markdown_report(runs, report_.options()));
        if (fail_on_.given()) {
            fail_on_.check(verdicts_of(compare_cases(runs[0].first, runs[0].second, runs[1].first, runs[1].second, report_.options())));
        }
    }

private:
    std::vector<std::string> inputs_;
    OutputFlag html_, markdown_;
    ReportFlags report_;
    FailOnFlag fail_on_;
};

}  // namespace

std::unique_ptr<Command> make_report_command() { return std::make_unique<ReportCommand>(); }

}  // namespace vitals::cli
