// vitals report FILES... --html OUT --markdown OUT: results drawn as box plots or tables,
// with verdicts for a pair, from the same flags as compare.
#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include "../command.hpp"
#include "vitals/results/markup.hpp"
#include "vitals/atomic_file.hpp"

namespace vitals::cli {
namespace {

class ReportCommand final : public Command {
public:
    void declare(CLI::App& app) override {
        app.add_option("files", inputs_, "Results files (two: before and after)")->required();
        app.add_option("--html", html_, "Write a self-contained HTML report here");
        app.add_option("--markdown", markdown_, "Write a markdown table here (for a pull request)");
        report_.declare(app);
    }

    void run(const CommandContext&) override {
        if (!html_ && !markdown_) throw UsageError("give --html OUT.html and/or --markdown OUT.md");
        if (html_) html_ = output_for_this_rank(*html_);
        if (markdown_) markdown_ = output_for_this_rank(*markdown_);
        std::vector<std::filesystem::path> outputs;
        if (html_) outputs.emplace_back(*html_);
        if (markdown_) outputs.emplace_back(*markdown_);
        // Checked, their folders held, before the inputs are read.
        const std::optional<OutputFile> html = html_ ? std::optional<OutputFile>(std::in_place, *html_) : std::nullopt;
        const std::optional<OutputFile> markdown =
            markdown_ ? std::optional<OutputFile>(std::in_place, *markdown_) : std::nullopt;
        check_outputs_are_not_inputs(outputs, {inputs_.begin(), inputs_.end()});
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
    }

private:
    std::vector<std::string> inputs_;
    std::optional<std::string> html_, markdown_;
    ReportFlags report_;
};

}  // namespace

std::unique_ptr<Command> make_report_command() { return std::make_unique<ReportCommand>(); }

}  // namespace vitals::cli
