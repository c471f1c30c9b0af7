// vitals run: every matching case (or this process's shard of them), Compare tables,
// optionally against a baseline with the slower cases profiled.
#include <fmt/format.h>
#include <stdlib.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "../command.hpp"
#include "../comparison.hpp"
#include "../measure_flags.hpp"
#include "../reporters/reporters.hpp"
#include "../roofline.hpp"
#include "../shard.hpp"
#include "vitals/atomic_file.hpp"
#include "vitals/compare.hpp"
#include "vitals/process.hpp"
#include "vitals/timer_profile.hpp"

namespace vitals::cli {
namespace {

// Profiles a case that came out slower than the baseline, as it was measured (a block of
// number_per_run calls, after one such block of warm-up): its table, and its trace next
// to the results (or in the current folder).
void profile_slow_case(const Case& c, std::int64_t number_per_run, const std::optional<std::string>& json_path) {
    Timer timer = c.timer();
    const profiler::Trace trace = timer.profile(
        {.number = number_per_run, .warmup_calls = number_per_run, .profile = {.record_shapes = true}});
    fmt::print("\n{} is slower; its profile:\n{}", c.name,
               trace.key_averages().table({.sort_by = "self_cpu_time_total", .row_limit = 15}));
    std::string file = c.name;
    std::replace(file.begin(), file.end(), '/', '_');
    const std::filesystem::path folder = json_path ? std::filesystem::path(*json_path).parent_path() : std::filesystem::path();
    const std::filesystem::path path = folder / (file + ".pt.trace.json");
    trace.export_chrome_trace(path);
    fmt::print("trace: {}\n", path.string());
}

// A folder of our own under the system's temporary folder, removed with what it holds.
struct TemporaryFolder {
    std::filesystem::path path;
    TemporaryFolder() {
        std::string name = (std::filesystem::temp_directory_path() / "vitals-run-XXXXXX").string();
        if (::mkdtemp(name.data()) == nullptr) {
            throw std::runtime_error(fmt::format("cannot create a temporary folder: {}", std::strerror(errno)));
        }
        path = name;
    }
    ~TemporaryFolder() {
        std::error_code ignored;
        std::filesystem::remove_all(path, ignored);
    }
    TemporaryFolder(const TemporaryFolder&) = delete;
    TemporaryFolder& operator=(const TemporaryFolder&) = delete;
};

// Where an interrupted run writes: beside the file it was asked for, never over it
// ("out.json" -> "out.partial.json"). Standard output and devices stay as they are.
std::string partial_path(const std::string& path) { return tagged_path(path, "partial"); }

// The measured cases for the Compare tables. Compare joins measurements of equal tasks
// (the same statement measured twice); distinct cases whose Timers say the same (no
// label, say) are told apart by their case names in the row instead, so that no case
// hides another.
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

// The cases skipped, after the tables.
void print_skipped(const std::vector<CaseResult>& results) {
    const auto skipped = std::count_if(results.begin(), results.end(), [](const CaseResult& r) { return !r.skipped.empty(); });
    if (skipped == 0) return;
    fmt::print("\n{} case{} skipped:\n", skipped, skipped > 1 ? "s" : "");
    for (const CaseResult& r : results) {
        if (!r.skipped.empty()) fmt::print("  {}: {}\n", r.name, r.skipped);
    }
}

class RunCommand final : public Command {
public:
    void declare(CLI::App& app) override {
        app.add_option("--filter", filter_, "Only cases whose names match this regular expression");
        axes_.declare(app);
        measure_.declare(app);
        auto* json = app.add_option("--json", json_path_, "Also write the results as JSON (Google Benchmark layout)");
        layout_.declare(app, json);
        app.add_option("--shard", shard_,
                       "Run the cases whose position modulo N is K (K/N); default from Slurm, MPI or torchrun variables");
        app.add_option("--processes", processes_,
                       "Measure every case in N fresh processes of this program, one after another (process 1 runs "
                       "every case, then process 2, ...), so that compare tests per-process medians")
            ->transform(decimal_integer(1, 1000));
        auto* baseline = app.add_option("--baseline", baseline_, "Compare with this results file after the run");
        app.add_option("--profile-slow", profile_slow_percent_,
                       "Profile every case slower than the baseline by more than PCT percent (and significant)")
            ->check(finite_non_negative())
            ->needs(baseline);
        report_.declare(app);
        app.add_flag("--roofline", roofline_,
                     "Place every case that states its work against this machine's limits (measured once by "
                     "'vitals machine', then cached): a table after the Compare tables, and the results file");
    }

    int run(const CommandContext& context) override {
        measure_.validate();
        std::optional<Registry> replaced;
        const Registry& registry = axes_.apply(context.registry, replaced);
        const std::vector<const Case*> matching = matching_cases(registry, filter_);
        if (matching.empty()) {
            throw UsageError(filter_ ? fmt::format("no case matches --filter '{}'; 'vitals list' shows the cases", *filter_)
                                     : "there are no cases to run");
        }
        std::optional<Shard> shard;
        try {
            shard = shard_ ? std::optional(parse_shard(*shard_)) : shard_from_environment();
        } catch (const std::invalid_argument& e) {
            throw UsageError(fmt::format("{}; see 'vitals run --help'", e.what()));
        }
        std::vector<const Case*> selected;
        for (std::size_t i = 0; i < matching.size(); ++i) {
            if (!shard || shard->includes(i)) selected.push_back(matching[i]);
        }
        if (shard) fmt::print(stderr, "shard {}: {} of {} cases\n", shard->to_string(), selected.size(), matching.size());
        if (json_path_) {
            json_path_ = output_for_this_rank(*json_path_);
            check_output_path(*json_path_);
            if (baseline_) check_outputs_are_not_inputs({*json_path_}, {*baseline_});
            json_write_path_ = reserve_standard_output(*json_path_);
        }
        std::vector<std::string> baseline_warnings;
        const std::vector<CaseSamples> baseline =
            baseline_ ? read_results_file_or_usage_error(*baseline_, baseline_warnings).cases : std::vector<CaseSamples>{};

        bool interrupted = false;
        const std::vector<CaseResult> results =
            processes_ > 1 ? measure_in_processes(selected, shard, interrupted) : measure_all(selected, interrupted);
        RunContext run{.shard = shard ? shard->to_string() : "", .incomplete = interrupted, .cases_planned = selected.size()};
        if (roofline_ && !interrupted) {
            const machine::Limits limits = limits_for_roofline();
            for (const CaseResult& r : results) {
                if (!r.measurement) continue;
                if (const std::optional<RooflinePoint> point = place_case(limits, *r.measurement)) run.roofline.push_back({r.name, *point});
            }
            run.ceilings = ceilings_of(limits);
            fmt::print("{}", run.roofline.empty() ? std::string("\nroofline: no case states its work per call\n")
                                                  : roofline_table(results, run.roofline));
        }
        if (json_path_) {
            // An interrupted run never replaces a complete file: it goes beside it.
            const std::string path = interrupted ? partial_path(json_write_path_) : json_write_path_;
            write_file_atomically(path, results_to_json(results, context.executable, run, layout_.layout()));
            if (interrupted) {
                fmt::print(stderr, "{} of {} cases measured, marked incomplete, written to {}\n", results.size(),
                           selected.size(), path);
            }
        }
        if (interrupted) return 128 + stop_signal();
        fmt::print("{}", growth_report(registry, results));
        for (const std::string& why : registry.skipped_families()) fmt::print("\na case family was skipped: {}\n", why);
        if (baseline_) {
            Comparison comparison;
            try {
                comparison = compare_runs(*baseline_, baseline, "this run", samples_of(results), report_.options());
            } catch (const ResultsFileError& e) {
                print_error(e.what());
                return kExitUsage;
            }
            comparison.warnings = std::move(baseline_warnings);
            fmt::print("\n{}", render_comparison_text(comparison));
            if (profile_slow_percent_) {
                for (const std::string& name : slower_cases(comparison, *profile_slow_percent_ / 100)) {
                    const auto measured = std::find_if(results.begin(), results.end(),
                                                       [&](const CaseResult& r) { return r.name == name; });
                    profile_slow_case(*registry.find(name), measured->measurement->number_per_run(), json_path_);
                }
            }
        }
        const auto failed = std::count_if(results.begin(), results.end(), [](const CaseResult& r) { return !r.error.empty(); });
        if (failed > 0) {
            print_error(fmt::format("{} of {} cases failed (see above)", failed, results.size()));
            return kExitFailure;
        }
        return 0;
    }

private:
    // Measures the cases in order with a progress line each, then prints the Compare
    // tables and the skipped cases. Ctrl-C stops after the current block: `interrupted`.
    std::vector<CaseResult> measure_all(const std::vector<const Case*>& selected, bool& interrupted) {
        std::vector<CaseResult> results;
        const InterruptibleRun interruptible;
        for (std::size_t i = 0; i < selected.size(); ++i) {
            fmt::print(stderr, "[{}/{}] {}\n", i + 1, selected.size(), selected[i]->name);
            std::fflush(stderr);
            CaseResult result;
            try {
                result = run_case(*selected[i], measure_);
            } catch (const Interrupted&) {
                interrupted = true;
                fmt::print(stderr, "interrupted by {} during {}\n", signal_name(stop_signal()), selected[i]->name);
                break;
            }
            if (!result.skipped.empty()) fmt::print(stderr, "      skipped: {}\n", result.skipped);
            if (!result.error.empty()) print_error(result.error);
            results.push_back(std::move(result));
        }
        if (const std::vector<Measurement> measured = measurements_for_tables(results); !measured.empty()) {
            fmt::print("{}", Compare(measured).to_string());
        }
        print_skipped(results);
        return results;
    }

    // Runs the selected cases in processes_ fresh processes of this program, one after
    // another, each writing its results to a temporary file; joins them case by case with
    // every block tagged by its process. Prints the tables of the joined run.
    std::vector<CaseResult> measure_in_processes(const std::vector<const Case*>& selected, const std::optional<Shard>& shard,
                                                 bool& interrupted) {
        const TemporaryFolder folder;
        std::vector<std::vector<CaseResult>> by_process;
        const InterruptibleRun interruptible;  // Ctrl-C reaches the worker too: it writes what it has, then we stop
        for (int p = 0; p < processes_ && !interrupted; ++p) {
            fmt::print(stderr, "process {}/{}: {} case{}\n", p + 1, processes_, selected.size(), selected.size() > 1 ? "s" : "");
            std::fflush(stderr);
            // The worker names its file as this process would under a launcher: "{rank}" is
            // filled with the same rank there.
            const std::string asked = (folder.path / fmt::format("process{}.{{rank}}.json", p)).string();
            const std::string file = output_for_this_rank(asked);
            std::vector<std::string> argv = {self_executable(), "run", "--json", asked};
            if (filter_) argv.insert(argv.end(), {"--filter", *filter_});
            if (shard) argv.insert(argv.end(), {"--shard", shard->to_string()});
            for (const std::string& spec : axes_.specs) argv.insert(argv.end(), {"--axis", spec});
            const std::vector<std::string> measure_flags = measure_.arguments();
            argv.insert(argv.end(), measure_flags.begin(), measure_flags.end());
            const int status = run_process(argv, {.discard_stdout = true, .forward_signal = &stop_signal_flag()});
            interrupted = cli::interrupted();
            // A failed case (exit 1) is in the worker's results like any other outcome.
            if (status != 0 && status != kExitFailure && !interrupted) {
                throw std::runtime_error(fmt::format("worker process {} of {} ended with exit status {}; run without "
                                                     "--processes to see why",
                                                     p + 1, processes_, status));
            }
            const std::string written = std::filesystem::exists(file) ? file : partial_path(file);
            if (std::filesystem::exists(written)) by_process.push_back(read_case_results(written));
        }
        if (interrupted) {
            fmt::print(stderr, "interrupted by {}: {} of {} processes ran\n", signal_name(stop_signal()), by_process.size(),
                       processes_);
        }
        std::vector<CaseResult> results;
        for (const Case* c : selected) {
            CaseResult joined{c->name, std::nullopt, "", ""};
            for (const std::vector<CaseResult>& process : by_process) {
                const auto it = std::find_if(process.begin(), process.end(), [&](const CaseResult& r) { return r.name == c->name; });
                if (it == process.end()) continue;
                if (it->measurement) joined.per_process.push_back(*it->measurement);
                if (joined.skipped.empty()) joined.skipped = it->skipped;
                if (joined.error.empty()) joined.error = it->error;
            }
            if (by_process.empty() || (interrupted && joined.per_process.empty() && joined.skipped.empty() && joined.error.empty())) {
                continue;  // never reached
            }
            if (!joined.per_process.empty()) {
                joined.measurement = Measurement::merge(joined.per_process).front();
                joined.skipped.clear();
                joined.error.clear();
            }
            results.push_back(std::move(joined));
        }
        if (const std::vector<Measurement> measured = measurements_for_tables(results); !measured.empty()) {
            fmt::print("{}", Compare(measured).to_string());
        }
        print_skipped(results);
        return results;
    }

    std::optional<std::string> filter_, json_path_, shard_, baseline_;
    std::string json_write_path_;  // json_path_, or the kept standard output's /dev/fd/N
    MeasureOptions measure_;
    std::optional<double> profile_slow_percent_;
    ReportFlags report_;
    ResultsLayoutFlags layout_;
    AxisFlags axes_;
    bool roofline_ = false;
    int processes_ = 1;
};

}  // namespace

std::unique_ptr<Command> make_run_command() { return std::make_unique<RunCommand>(); }

}  // namespace vitals::cli
