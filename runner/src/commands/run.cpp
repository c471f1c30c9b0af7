// vitals run: every matching case (or this process's shard of them), Compare tables,
// optionally against a baseline with the slower cases profiled.
#include <fmt/format.h>
#include <stdlib.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "../command.hpp"
#include "../dry_run.hpp"
#include "../git.hpp"
#include "../flags.hpp"
#include "vitals/results/comparison.hpp"
#include "../aslr.hpp"
#include "../measure_case.hpp"
#include "../measure_flags.hpp"
#include "../output_flag.hpp"
#include "../profile_window.hpp"
#include "../run_report.hpp"
#include "vitals/results/junit.hpp"
#include "vitals/results/markup.hpp"
#include "vitals/results/reporters.hpp"
#include "vitals/results/roofline.hpp"
#include "../shard.hpp"
#include "../stop_signals.hpp"
#include "../workers.hpp"
#include "vitals/atomic_file.hpp"
#include "vitals/compare.hpp"
#include "vitals/history.hpp"
#include "vitals/results/trace_diff.hpp"
#include "vitals/timer_profile.hpp"

namespace vitals::cli {
namespace {

// How long a worker of --processes may take for its case by default: far past any
// case's measurement (adaptive runs stop at --max-run-time, 10 s by default), short of a
// night lost to one hung case.
constexpr double kWorkerCaseTimeout = 300;

class RunCommand final : public Command {
public:
    void declare(CLI::App& app) override {
        app.add_option("--filter", filter_, "Only cases whose names match this regular expression");
        axes_.declare(app);
        measure_.declare(app);
        auto* json = json_.declare(app, "--json", "Also write the results as JSON (Google Benchmark layout)");
        layout_.declare(app, json);
        app.add_option("--shard", shard_,
                       "Run the cases whose position modulo N is K (K/N); default from Slurm, MPI or torchrun variables");
        app.add_option("--processes", processes_,
                       "Measure every case in N fresh processes of this program, one after another (process 1 runs "
                       "every case, then process 2, ...), so that compare tests per-process medians")
            ->transform(decimal_integer(1, 1000));
        app.add_option("--case-timeout", case_timeout_,
                       fmt::format("Stop a case still measuring after this many seconds: it fails as timed out and the run "
                                   "goes on. With --processes its worker is stopped (default {:g} s there); in one process "
                                   "the case stops at its next block (default: no limit)",
                                   kWorkerCaseTimeout))
            ->check(positive_seconds());
        app.add_flag("--no-aslr", no_aslr_,
                     "Run with one fixed memory layout: executes this program again without address randomisation "
                     "(default: randomised, so that the processes of --processes sample layouts)");
        app.add_option(kWorkerFlag, worker_of_, "(internal) this process is a worker of run --processes")->group("");
        auto* baseline = app.add_option("--baseline", baseline_, "Compare with this results file after the run");
        app.add_option("--history", history_,
                       "Also record the run in this history (a SQLite file or postgresql://...; see 'vitals history'), as "
                       "the commit, branch and time of the git checkout here");
        auto* profile_slow = app.add_option("--profile-slow", profile_slow_percent_,
                       "Profile every case slower than the baseline by more than PCT percent (and significant), with as "
                       "many calls as the baseline's trace of it holds, and compare the two traces where the baseline "
                       "run wrote one (its --trace-dir)")
            ->check(finite_non_negative())
            ->needs(baseline);
        fail_on_.declare(app)->needs(baseline);
        app.add_option("--sort-by", sort_by_,
                       fmt::format("With --profile-slow: the tables' sort key (default cpu_time_total): {}",
                                   fmt::join(profiler::sort_keys(), ", ")))
            ->needs(profile_slow);
        app.add_option("--row-limit", row_limit_, "With --profile-slow: rows to print (default 100; -1: all, as torch)")
            ->transform(decimal_integer(-1, 1'000'000'000))
            ->needs(profile_slow);
        app.add_option("--trace-dir", trace_dir_,
                       fmt::format("After measuring, profile every measured case in one window of {} calls and write "
                                   "its trace into this folder as <case>.pt.trace.json ('/' as '_'); the results file "
                                   "records the folder, for a later run's --baseline --profile-slow",
                                   kDefaultProfileCalls));
        report_.declare(app);
        auto* roofline = app.add_flag("--roofline", roofline_,
                     "Place every case that states its work against this machine's limits (measured once by "
                     "'vitals machine', then cached): a table after the Compare tables, and the results file");
        junit_.declare(app, "--junit",
                       "Also write JUnit XML here, for CI: a testcase per case (failed, skipped or passed), and with "
                       "--baseline one per compared case, failed when its verdict is named by --fail-on");
        app.add_flag("--dry-run", dry_run_,
                     "Call every selected case once, with no warm-up and no statistics, and print a line per case: ok, "
                     "skipped (why) or failed (the message); exit 1 when a case failed. A smoke test, and what a "
                     "ctest test per case runs (vitals_discover_cases)")
            ->excludes(json)
            ->excludes(baseline)
            ->excludes(roofline)
            ->excludes(app.get_option("--processes"))
            ->excludes(app.get_option("--case-timeout"))
            ->excludes(app.get_option("--history"))
            ->excludes(app.get_option("--trace-dir"));
    }

    void run(const CommandContext& context) override {
        measure_.validate();
        if (no_aslr_ && !worker_of_) reexecute_without_aslr(context.arguments);  // returns in the process without it
        if (dry_run_ && !measure_.arguments().empty()) {
            throw UsageError(fmt::format("--dry-run calls each case once and measures nothing, so {} does not apply; "
                                         "drop it, or drop --dry-run to measure",
                                         measure_.arguments().front()));
        }
        std::optional<Registry> replaced;
        const Registry& registry = axes_.apply(context.registry, replaced);
        const std::vector<const Case*> matching = matching_cases(registry, filter_);
        if (matching.empty()) {
            throw UsageError(filter_ ? fmt::format("no case matches --filter '{}'; 'vitals list' shows the cases", *filter_)
                                     : "there are no cases to run");
        }
        std::optional<Shard> shard;
        try {
            if (shard_) {
                shard = parse_shard(*shard_);
            } else if (const std::optional<LauncherRank> rank = launcher_rank()) {
                shard = shard_of(*rank);
            }
        } catch (const std::invalid_argument& e) {
            throw UsageError(fmt::format("{}; see 'vitals run --help'", e.what()));
        }
        std::vector<const Case*> selected;
        for (std::size_t i = 0; i < matching.size(); ++i) {
            if (!shard || shard->includes(i)) selected.push_back(matching[i]);
        }
        if (shard && !worker_of_) {
            fmt::print(stderr, "shard {}: {} of {} cases\n", shard->to_string(), selected.size(), matching.size());
        }
        // The results file, checked and its folder held before measuring: a relative path
        // stays where the run started, whatever a case does. An interrupted run writes
        // beside it, never over it ("out.json" -> "out.partial.json").
        OutputFlag::check_apart({{"--json", &json_}, {"--junit", &junit_}});
        const OutputFlag::Rules rules{
            .inputs = baseline_ ? std::vector<std::filesystem::path>{*baseline_} : std::vector<std::filesystem::path>{},
            .shard = shard_ ? shard : std::nullopt,
        };
        std::optional<OutputFile> output = json_.prepare(rules);
        std::optional<OutputFile> junit = worker_of_ ? std::nullopt : junit_.prepare(rules);
        if (dry_run_) {
            const std::vector<CaseResult> results = dry_run(selected);
            for (const std::string& why : registry.skipped_families()) {
                fmt::print(stderr, "a case family was skipped: {}\n", terminal_safe(why));
            }
            if (junit) junit->write(render_junit({junit_of_run(results, junit_classname(context, "run"))}));
            const auto failed = std::count_if(results.begin(), results.end(), [](const CaseResult& r) { return !r.error.empty(); });
            if (failed > 0) {
                print_error(fmt::format("{} of {} cases failed in the dry run (see above)", failed, results.size()));
                throw Failed();
            }
            return;
        }
        if (baseline_) {
            ResultsFile base = read_results_file_or_usage_error(*baseline_, baseline_warnings_);
            baseline_cases_ = std::move(base.cases);
            // The baseline's traces (its run --trace-dir), relative to its file's folder.
            if (!base.trace_dir.empty()) {
                baseline_trace_dir_ = (std::filesystem::path(*baseline_).parent_path() / base.trace_dir).string();
                if (std::filesystem::path(base.trace_dir).is_absolute()) baseline_trace_dir_ = base.trace_dir;
            }
        }
        const auto& keys = profiler::sort_keys();
        if (std::find(keys.begin(), keys.end(), sort_by_) == keys.end()) {
            throw UsageError(fmt::format("unknown --sort-by '{}'; use one of: {}", sort_by_, fmt::join(keys, ", ")));
        }
        std::string recorded_trace_dir;  // as the results file records it
        if (trace_dir_) recorded_trace_dir = prepare_trace_dir(output);

        const bool worker = worker_of_.has_value();
        // --history: the commit and the store, before measuring, so that neither can fail after.
        std::optional<history::Store> store;
        GitRevision revision;
        if (history_ && !worker) {
            revision = git_revision(std::nullopt, std::nullopt, std::nullopt);
            try {
                store.emplace(*history_, history::Access::write);
            } catch (const history::HistoryError& e) {
                throw_history_error(e);
            }
        }
        RunContext run{.shard = shard ? shard->to_string() : "", .incomplete = false, .cases_planned = selected.size()};
        if (!worker) run.trace_dir = recorded_trace_dir;
        if (processes_ > 1 && !no_aslr_) randomise_children();  // each worker a layout of its own
        run.aslr = aslr_state();  // of the processes that measure
        run.machine_check = machine::check_machine({.sample_seconds = 0});
        std::vector<CaseResult> results;
        bool interrupted = false, lost_process = false;
        {
            // Results first: the file is written while the stop signals are still caught,
            // before anything that can fail (the roofline's machine, the tables).
            const StopSignals signals(processes_ > 1 ? StopSignals::Role::supervising : StopSignals::Role::measuring);
            if (processes_ > 1) {
                WorkerRuns runs = measure_in_processes(
                    selected, {.processes = processes_, .case_timeout = case_timeout_.value_or(kWorkerCaseTimeout),
                               .flags = worker_flags()});
                results = std::move(runs.results);
                interrupted = runs.interrupted;
                lost_process = runs.lost_process;
            } else {
                if (output) {
                    set_rescue([&] {  // the second stop signal, or exit() inside a case
                        RunContext partial = run;
                        partial.incomplete = true;
                        write_results(output->tagged("partial"), results, context, partial, selected.size(), worker);
                    });
                }
                interrupted = measure_all(selected, results, worker);
            }
            {
                // Held while the file is written: a second signal now waits for it.
                const auto lock = rescue_lock();
                drop_rescue(lock);
                run.incomplete = interrupted || lost_process;
                try {
                    if (output) {
                        write_results(interrupted ? output->tagged("partial") : *output, results, context, run,
                                      selected.size(), worker);
                    }
                } catch (const std::runtime_error& e) {  // the tables below still show what was measured
                    print_error(e.what());
                    output.reset();
                    write_failed_ = true;
                }
            }
            if (roofline_ && !interrupted) add_roofline(output, results, context, run);
        }
        if (store && !interrupted && !lost_process) record_in_history(*store, revision, results);
        if (trace_dir_ && !worker && !interrupted) write_traces(registry, results);
        if (baseline_ && !worker && !interrupted) compare_with_baseline(results);
        if (junit) write_junit(interrupted ? junit->tagged("partial") : *junit, results, context);
        if (!worker && std::any_of(results.begin(), results.end(), [](const CaseResult& r) { return r.measurement.has_value(); })) {
            note_machine_disturbances(*run.machine_check, results);
        }
        if (!worker) print_report(registry, results, interrupted, lost_process);
        finish(results, interrupted, lost_process);
    }

private:
    // Measures the cases in order with a progress line each. A stop signal ends it after
    // the current block: returns true. `results` grows under the rescue lock, since a
    // second signal's rescue writes them from another thread.
    bool measure_all(const std::vector<const Case*>& selected, std::vector<CaseResult>& results, bool worker) {
        for (std::size_t i = 0; i < selected.size(); ++i) {
            if (!worker) fmt::print(stderr, "[{}/{}] {}\n", i + 1, selected.size(), selected[i]->name);
            std::fflush(stderr);
            CaseResult result;
            try {
                result = run_case(*selected[i], measure_, case_timeout_.value_or(0));
            } catch (const Interrupted&) {
                fmt::print(stderr, "interrupted by {} during {}\n", signal_name(stop_signal()), selected[i]->name);
                return true;
            }
            if (!result.skipped.empty() && !worker) fmt::print(stderr, "      skipped: {}\n", terminal_safe(result.skipped));
            if (!result.error.empty() && !worker) print_error(result.error);  // a worker's parent says it
            const auto lock = rescue_lock();
            results.push_back(std::move(result));
        }
        return false;
    }

    // --history: the run recorded as one transaction; a failure is said, and the run exits 1
    // with its results file kept.
    void record_in_history(history::Store& store, const GitRevision& revision, const std::vector<CaseResult>& results) {
        try {
            const std::size_t recorded = store.add({revision.commit, revision.branch, revision.time, history::this_machine(),
                                                    json_.given() ? json_.path() : "vitals run"},
                                                   samples_of(results));
            fmt::print(stderr, "{} case{} of commit {} recorded in {}\n", recorded, recorded == 1 ? "" : "s",
                       terminal_safe(revision.commit.substr(0, 10)), terminal_safe(store.shown_location()));
        } catch (const history::HistoryError& e) {
            print_error(fmt::format("the run was not recorded in the history: {}", e.what()));
            write_failed_ = true;
        }
    }

    // --trace-dir: the folder made (a usage error if it cannot be), its absolute path kept
    // for the traces, and the path the results file records: relative to the results
    // file's folder when there is one.
    std::string prepare_trace_dir(const std::optional<OutputFile>& output) {
        if (trace_dir_->empty()) throw UsageError("--trace-dir needs a folder");
        std::error_code error;
        std::filesystem::create_directories(*trace_dir_, error);
        if (error || !std::filesystem::is_directory(*trace_dir_)) {
            throw UsageError(fmt::format("--trace-dir {}: cannot make that folder: {}", *trace_dir_,
                                         error ? error.message() : "a file of that name is in the way"));
        }
        trace_dir_absolute_ = std::filesystem::absolute(*trace_dir_).lexically_normal();
        if (!output) return trace_dir_absolute_.string();
        const std::filesystem::path results_folder = std::filesystem::absolute(output->path()).parent_path();
        const std::filesystem::path relative = trace_dir_absolute_.lexically_relative(results_folder);
        return relative.empty() ? trace_dir_absolute_.string() : relative.string();
    }

    // --trace-dir: every measured case profiled in one window of the default call count,
    // its trace written into the folder. A case that fails under the profile is said and
    // fails the run; the others are still written.
    void write_traces(const Registry& registry, const std::vector<CaseResult>& results) {
        for (const CaseResult& r : results) {
            if (!r.measurement) continue;
            const Case* c = registry.find(r.name);
            if (c == nullptr) continue;
            const std::filesystem::path path = trace_dir_absolute_ / case_trace_file_name(r.name);
            fmt::print(stderr, "tracing {}: {} calls in one window -> {}\n", r.name, kDefaultProfileCalls, path.string());
            try {
                Timer timer = c->timer();
                warm_up_for_profile(timer);
                timer.profile({.number = kDefaultProfileCalls, .profile = {.record_shapes = true}}).export_chrome_trace(path);
            } catch (const SkipCase& skip) {
                fmt::print(stderr, "      not traced: {}\n", skip.what());
            } catch (const std::exception& e) {
                print_error(fmt::format("{}: cannot trace: {}", r.name, e.what()));
                trace_failed_ = true;
            }
        }
    }

    // The results file, whole; an incomplete one says so on stderr (a worker's parent
    // reads it and says so itself).
    void write_results(const OutputFile& out, const std::vector<CaseResult>& results, const CommandContext& context,
                       const RunContext& run, std::size_t planned, bool quiet) const {
        out.write(results_to_json(results, context.executable, run, layout_.layout()));
        if (run.incomplete && !quiet) {
            const auto measured = std::count_if(results.begin(), results.end(), [](const CaseResult& r) { return r.measurement.has_value(); });
            fmt::print(stderr, "{} of {} cases measured, marked incomplete, written to {}\n", measured, planned,
                       out.path().string());
        }
    }

    // The roofline after the results are safe: the machine's limits (measured or cached),
    // then the file again with the cases placed. A machine that cannot be measured loses
    // the roofline, never the results.
    void add_roofline(const std::optional<OutputFile>& out, const std::vector<CaseResult>& results,
                      const CommandContext& context, RunContext& run) {
        machine::Limits limits;
        try {
            limits = limits_for_roofline();
        } catch (const std::exception& e) {
            print_error(fmt::format("no roofline: {}{}", e.what(), out ? "; the results were written without it" : ""));
            roofline_failed_ = true;
            return;
        }
        for (const CaseResult& r : results) {
            if (!r.measurement) continue;
            if (const std::optional<RooflinePoint> point = place_case(limits, *r.measurement)) run.roofline.push_back({r.name, *point});
        }
        run.ceilings = ceilings_of(limits);
        if (out && !interrupted()) {
            const auto lock = rescue_lock();
            out->write(results_to_json(results, context.executable, run, layout_.layout()));
        }
        roofline_text_ = run.roofline.empty() ? std::string("\nroofline: no case states its work per call\n")
                                              : roofline_table(results, run.roofline);
    }

    // The flags every worker of --processes gets.
    std::vector<std::string> worker_flags() const {
        std::vector<std::string> flags;
        for (const std::string& spec : axes_.specs) flags.insert(flags.end(), {"--axis", spec});
        const std::vector<std::string> measure_flags = measure_.arguments();
        flags.insert(flags.end(), measure_flags.begin(), measure_flags.end());
        return flags;
    }

    // How the run ended, for the exit code: a stop signal, or a failure said above.
    void finish(const std::vector<CaseResult>& results, bool interrupted, bool lost_process) const {
        if (print_failed_) throw Failed();  // even after a stop signal: what was measured was not shown
        if (interrupted) throw StoppedBySignal(stop_signal());
        const bool failed = lost_process || roofline_failed_ || write_failed_ || trace_failed_ ||
                            std::any_of(results.begin(), results.end(), [](const CaseResult& r) { return !r.error.empty(); });
        if (failed) throw Failed();
        fail_on_.check(baseline_verdicts_);  // after every output, and only when nothing failed
    }

    // Everything printed after the files are safe: the Compare tables, the skipped cases,
    // the roofline, growth, the baseline comparison and its profiles. Standard output may
    // be a closed pipe or a full disk by now: that ends the printing, not the results.
    void print_report(const Registry& registry, const std::vector<CaseResult>& results, bool interrupted,
                      bool lost_process) {
        const std::string where = json_.given() && !write_failed_ ? fmt::format("; the results are in {}", json_.path()) : "";
        try {
            if (const std::vector<Measurement> measured = measurements_for_tables(results); !measured.empty()) {
                fmt::print("{}", Compare(measured).to_string());
            }
            print_skipped(results);
            print_disturbed(results);
            if (interrupted) {
                std::fflush(stdout);
                return;
            }
            fmt::print("{}", roofline_text_);
            fmt::print("{}", growth_report(registry, results));
            for (const std::string& why : registry.skipped_families()) fmt::print("\na case family was skipped: {}\n", terminal_safe(why));
            if (baseline_) print_baseline_comparison(registry, results);
            if (std::fflush(stdout) != 0) throw std::system_error(errno, std::generic_category(), "flush");
        } catch (const std::system_error& e) {
            print_error(fmt::format("cannot print the report to standard output: {}{}", std::strerror(e.code().value()), where));
            print_failed_ = true;
            return;
        }
        const auto failed = std::count_if(results.begin(), results.end(), [](const CaseResult& r) { return !r.error.empty(); });
        if (failed > 0) print_error(fmt::format("{} of {} cases failed (see above)", failed, results.size()));
        if (lost_process) print_error("some cases lost a process (see above); the results are marked incomplete");
    }

    // The comparison with --baseline, before any output that shows it; a baseline that
    // cannot be compared is kept as a UsageError for when the report gets there.
    void compare_with_baseline(const std::vector<CaseResult>& results) {
        try {
            comparison_ = compare_runs(*baseline_, baseline_cases_, "this run", samples_of(results), report_.options());
        } catch (const ResultsFileError& e) {
            comparison_error_ = e.what();
            return;
        }
        comparison_->warnings.insert(comparison_->warnings.begin(), baseline_warnings_.begin(), baseline_warnings_.end());
        baseline_verdicts_ = verdicts_of(*comparison_);
    }

    // --junit: the run's cases, and with --baseline the compared cases. A failed write is
    // said, and the run exits 1 with its other outputs kept.
    void write_junit(const OutputFile& out, const std::vector<CaseResult>& results, const CommandContext& context) {
        std::vector<JUnitSuite> suites{junit_of_run(results, junit_classname(context, "run"))};
        if (comparison_) {
            suites.push_back(junit_of_comparison(*comparison_, [this](stats::Verdict v) { return fail_on_.fails(v); },
                                                 junit_classname(context, "baseline")));
        }
        try {
            out.write(render_junit(suites));
        } catch (const std::runtime_error& e) {
            print_error(e.what());
            write_failed_ = true;
        }
    }

    // The comparison with --baseline and the profiles of the slower cases; UsageError for
    // a baseline that cannot be compared.
    void print_baseline_comparison(const Registry& registry, const std::vector<CaseResult>& results) {
        if (!comparison_) throw UsageError(comparison_error_.value_or("the run was not compared with its baseline"));
        const Comparison& comparison = *comparison_;
        fmt::print("\n{}", render_comparison_text(comparison));
        if (profile_slow_percent_) {
            for (const std::string& name : slower_cases(comparison, *profile_slow_percent_ / 100)) {
                const auto measured =
                    std::find_if(results.begin(), results.end(), [&](const CaseResult& r) { return r.name == name; });
                if (measured == results.end() || !measured->measurement) continue;
                profile_slow_case(*registry.find(name), {.sort_by = sort_by_,
                                                         .row_limit = row_limit_,
                                                         .json_path = json_.path(),
                                                         .baseline_path = *baseline_,
                                                         .baseline_trace_dir = baseline_trace_dir_});
            }
        }
    }

    std::optional<std::string> filter_, shard_, baseline_, history_;
    OutputFlag json_, junit_;
    bool dry_run_ = false;
    std::optional<Comparison> comparison_;         // with --baseline, once measured
    std::optional<std::string> comparison_error_;  // why there is none
    std::optional<double> case_timeout_;
    bool no_aslr_ = false;
    std::optional<std::string> worker_of_;  // "P/N": this process is worker P of a run --processes N
    std::vector<CaseSamples> baseline_cases_;
    std::vector<std::string> baseline_warnings_;
    std::vector<std::pair<std::string, stats::Verdict>> baseline_verdicts_;  // for --fail-on
    FailOnFlag fail_on_;
    std::string roofline_text_;
    bool roofline_failed_ = false;
    bool write_failed_ = false;  // the results file could not be written (said at once)
    bool print_failed_ = false;  // the report could not be printed (said at once)
    MeasureOptions measure_;
    std::optional<double> profile_slow_percent_;
    std::string sort_by_ = "cpu_time_total";  // --profile-slow's tables
    int row_limit_ = 100;
    std::optional<std::string> trace_dir_;
    std::filesystem::path trace_dir_absolute_;
    std::string baseline_trace_dir_;  // the baseline run's traces, "" if it wrote none
    bool trace_failed_ = false;       // a case could not be traced (said at once)
    ReportFlags report_;
    ResultsLayoutFlags layout_;
    AxisFlags axes_;
    bool roofline_ = false;
    int processes_ = 1;
};

}  // namespace

std::unique_ptr<Command> make_run_command() { return std::make_unique<RunCommand>(); }

}  // namespace vitals::cli
