// vitals ab CASE_A CASE_B [CASE_C ...]: the cases measured interleaved, round by round,
// each against the first (vitals::ab).
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>

#include "../command.hpp"
#include "../flags.hpp"
#include "../output_flag.hpp"
#include "../stop_signals.hpp"
#include "vitals/ab.hpp"
#include "vitals/atomic_file.hpp"
#include "vitals/results/ab_report.hpp"
#include "vitals/results/junit.hpp"
#include "vitals/results/markup.hpp"

namespace vitals::cli {
namespace {

class AbCommand final : public Command {
public:
    void declare(CLI::App& app) override {
        const AbOptions defaults;
        app.add_option("cases", names_, "Two cases or more (see 'vitals list'); each is compared with the first")->required();
        app.add_option("--precision", options_.precision,
                       fmt::format("Stop once every ratio's 95% interval is within +/- this fraction of it (default {:g})",
                                   defaults.precision))
            ->transform(open_unit_interval());
        app.add_option("--max-run-time", options_.max_run_time,
                       fmt::format("Stop after this many seconds of wall time, sizing included, within one round "
                                   "(default {:g})",
                                   defaults.max_run_time))
            ->transform(positive_seconds());
        app.add_option("--min-run-time", options_.min_run_time,
                       fmt::format("Time rounds for at least this many seconds before the precision may stop them "
                                   "(default {:g})",
                                   defaults.min_run_time))
            ->transform(positive_seconds());
        app.add_option("--block-time", options_.block_time,
                       fmt::format("Size each case's blocks to about this many seconds (default {:g})", defaults.block_time))
            ->transform(positive_seconds());
        app.add_option("--min-rounds", options_.min_rounds,
                       fmt::format("Time at least this many rounds, past --max-run-time if need be; a verdict needs 6 "
                                   "(default {})",
                                   defaults.min_rounds))
            ->transform(decimal_integer(1, 1'000'000));
        report_.declare(app);
        json_.declare(app, "--json", "Also write every round's block times and the figures as JSON");
        junit_.declare(app, "--junit",
                       "Also write JUnit XML here, for CI: a testcase per case after the first, failed when its verdict "
                       "is named by --fail-on (none fail without it)");
        fail_on_.declare(app);
    }

    void run(const CommandContext& context) override {
        if (names_.size() < 2) {
            throw UsageError(fmt::format("ab compares two cases or more, got {}; e.g. 'vitals ab CASE_BEFORE CASE_AFTER'",
                                         names_.size()));
        }
        for (std::size_t i = 0; i < names_.size(); ++i) {
            for (std::size_t j = 0; j < i; ++j) {
                if (names_[i] == names_[j]) {
                    throw UsageError(fmt::format("'{}' is given twice; ab compares different cases (to check the method on "
                                                 "identical statements, register the statement under two names)",
                                                 terminal_safe(names_[i])));
                }
            }
        }
        std::vector<const Case*> cases;
        for (const std::string& name : names_) cases.push_back(&find_case(context.registry, name));
        for (const Case* c : cases) {
            if (const std::string why = c->skip_reason ? c->skip_reason() : ""; !why.empty()) {
                throw UsageError(fmt::format("'{}' cannot run here ({}); ab compares cases that run", c->name, why));
            }
        }
        const ReportOptions report = report_.options();
        AbOptions options = options_;
        options.alpha = report.alpha;
        options.noise_floor = report.noise_floor;
        if (options.max_run_time < options.min_run_time) {
            throw UsageError(fmt::format("--max-run-time ({:g} s) is shorter than --min-run-time ({:g} s)",
                                         options.max_run_time, options.min_run_time));
        }
        if (options.block_time > options.max_run_time) {
            throw UsageError(fmt::format("--block-time ({:g} s) is longer than --max-run-time ({:g} s); every round times "
                                         "one block of each case, so give a shorter --block-time",
                                         options.block_time, options.max_run_time));
        }
        OutputFlag::check_apart({{"--json", &json_}, {"--junit", &junit_}});
        const std::optional<OutputFile> json = json_.prepare({});  // before measuring
        const std::optional<OutputFile> junit = junit_.prepare({});

        std::vector<Timer> timers;
        timers.reserve(cases.size());
        for (const Case* c : cases) {
            try {
                timers.push_back(c->timer());
            } catch (const SkipCase& skip) {
                throw UsageError(fmt::format("'{}' cannot run here ({}); ab compares cases that run", c->name, skip.what()));
            }
        }
        AbResult result;
        {
            const StopSignals signals(StopSignals::Role::measuring);
            options.on_round = [](std::size_t, double) { return !interrupted(); };
            fmt::print(stderr, "ab: sizing {} cases' blocks, then rounds for up to {:g} s\n", cases.size(), options.max_run_time);
            std::vector<std::reference_wrapper<Timer>> refs(timers.begin(), timers.end());
            try {
                result = ab(refs, options);
            } catch (const AbFailed& e) {
                result = e.partial;  // the rounds before it are written, marked incomplete
            } catch (const std::invalid_argument& e) {
                throw UsageError(e.what());
            }
        }
        for (std::size_t i = 0; i < cases.size(); ++i) result.alternatives[i].name = cases[i]->name;
        // The file first, then the table: a closed standard output cannot lose the results.
        if (json) json->write(ab_to_json(result, context.executable));
        if (junit) {
            junit->write(render_junit({junit_of_ab(result, [this](stats::Verdict v) { return fail_on_.fails(v); },
                                                   junit_classname(context, "ab"))}));
        }
        fmt::print("{}", render_ab_text(result));
        std::fflush(stdout);
        if (result.stopped_by == AbStop::interrupted) throw StoppedBySignal(stop_signal());
        if (result.failure) {
            print_error(fmt::format("'{}' threw: {}; the rounds before it are written, marked incomplete",
                                    cases[result.failure->alternative]->name, result.failure->message));
            throw Failed();
        }
        std::vector<std::pair<std::string, stats::Verdict>> verdicts;
        for (const AbAlternative& a : result.alternatives) verdicts.emplace_back(a.name, a.verdict);
        fail_on_.check(verdicts);
    }

private:
    std::vector<std::string> names_;
    AbOptions options_;
    ReportFlags report_;
    OutputFlag json_, junit_;
    FailOnFlag fail_on_;
};

}  // namespace

std::unique_ptr<Command> make_ab_command() { return std::make_unique<AbCommand>(); }

}  // namespace vitals::cli
