// vitals profile NAME: the case's statement under the profiler, one window of --calls calls
// or step by step (through Timer::profile, so the case's thread count and setup apply); a
// table per trace, its footer saying how many calls the trace holds.
#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>

#include "../command.hpp"
#include "../flags.hpp"
#include "../output_flag.hpp"
#include "../profile_window.hpp"
#include "../shard.hpp"
#include "vitals/atomic_file.hpp"
#include "vitals/results/trace_diff.hpp"
#include "vitals/timer_profile.hpp"

namespace vitals::cli {
namespace {

class ProfileCommand final : public Command {
public:
    void declare(CLI::App& app) override {
        app.add_option("name", name_, "The case's name (see 'vitals list')")->required();
        const std::int64_t most = profiler::Schedule::kMaxSteps;
        app.add_option("--steps", steps_,
                       "Steps to run, --calls calls each (default: one schedule cycle; without a schedule, one window "
                       "of --calls warm calls)")
            ->transform(decimal_integer(1, most));
        app.add_option("--calls", calls_,
                       fmt::format("Calls of the statement in the window, after a warm-up (default {}), so that two "
                                   "profiles of a case hold the same count; with --steps or a schedule, calls per step "
                                   "(default 1)",
                                   kDefaultProfileCalls))
            ->transform(decimal_integer(1, 1'000'000'000));
        app.add_option("--wait", wait_, "Schedule: steps to skip in each cycle")->transform(decimal_integer(0, most));
        app.add_option("--warmup", warmup_, "Schedule: steps traced, then discarded")->transform(decimal_integer(0, most));
        app.add_option("--active", active_, "Schedule: steps recorded (default 1)")->transform(decimal_integer(1, most));
        app.add_option("--repeat", repeat_, "Schedule: cycles (0: until the steps end)")->transform(decimal_integer(0, most));
        app.add_option("--skip-first", skip_first_, "Schedule: steps to skip at the start")->transform(decimal_integer(0, most));
        app.add_flag("--record-shapes", record_shapes_, "Record operators' input shapes and dtypes");
        app.add_flag("--profile-memory", profile_memory_, "Record allocations: memory columns");
        app.add_flag("--group-by-input-shape", group_by_input_shape_, "One row per name and input shapes");
        app.add_option("--sort-by", sort_by_,
                       fmt::format("Sort key (default cpu_time_total): {}", fmt::join(profiler::sort_keys(), ", ")));
        app.add_option("--row-limit", row_limit_, "Rows to print (default 100; -1: all, as torch)")
            ->transform(decimal_integer(-1, 1'000'000'000));
        auto* trace_file = trace_file_.declare(app, "--trace", "Write the last trace as Chrome trace JSON");
        auto* trace_dir = app.add_option("--trace-dir", trace_dir_,
                                         "Write every trace as <worker>.<ms>.pt.trace.json into this folder");
        trace_file->excludes(trace_dir);
        app.add_option("--worker", worker_,
                       "Worker name in --trace-dir file names (default <host>_<pid>); under a launcher or with --rank, "
                       "_rank<K> follows it");
        app.add_flag("--gzip", gzip_, "Gzip the --trace-dir files");
        axes_.declare(app);
        auto* rank = app.add_option("--rank", rank_,
                                    "This process's rank in a job of --world-size processes, written in the traces' "
                                    "distributedInfo (default: from Slurm, MPI or torchrun variables)")
                         ->transform(decimal_integer(0, 1'000'000));
        auto* world = app.add_option("--world-size", world_size_, "Processes in the job (with --rank)")
                          ->transform(decimal_integer(1, 1'000'000));
        rank->needs(world);
        world->needs(rank);
    }

    void run(const CommandContext& context) override {
        std::optional<Registry> replaced;
        const Case& c = find_case(axes_.apply(context.registry, replaced), name_);
        // Check what can be checked before running anything.
        const auto& keys = profiler::sort_keys();
        if (std::find(keys.begin(), keys.end(), sort_by_) == keys.end()) {
            throw UsageError(fmt::format("unknown --sort-by '{}'; use one of: {}", sort_by_, fmt::join(keys, ", ")));
        }
        if ((worker_ || gzip_) && !trace_dir_) throw UsageError("--worker and --gzip go with --trace-dir");
        if (worker_ && (worker_->empty() || worker_->find('/') != std::string::npos)) {
            throw UsageError(fmt::format("--worker '{}' is not a file name part; give a name without '/', e.g. --worker "
                                         "trainer",
                                         *worker_));
        }
        trace_file_.prepare({});  // checked before recording; the trace is exported to its path
        profiler::ProfileOptions recording = recording_options(c.name);

        // A case that cannot run here (no CUDA device, say) is skipped, as under timeit and run.
        try {
            profile_case(c, std::move(recording));
        } catch (const SkipCase& skip) {
            fmt::print("{}: skipped: {}\n", c.name, skip.what());
        }
    }

private:
    void profile_case(const Case& c, profiler::ProfileOptions recording) {
        Timer timer = c.timer();
        const bool terminal = ::isatty(STDERR_FILENO) != 0;
        // Without steps or a schedule, one window of a fixed number of warm calls (the same
        // in every run of the command, so that two traces compare), not one cold call.
        const bool one_window = steps_ == 0 && !recording.schedule;
        const std::int64_t calls = calls_.value_or(one_window ? kDefaultProfileCalls : 1);
        calls_per_step_ = calls;
        stepped_ = !one_window;
        if (one_window) {
            fmt::print(stderr, "profiling {}: warming up\n", c.name);
            warm_up_for_profile(timer);
        }
        std::int64_t steps_run = 0;
        const profiler::Trace last = timer.profile({
            .number = calls,
            .steps = steps_,
            .profile = std::move(recording),
            .on_step =
                [&](std::int64_t step, std::int64_t steps) {
                    steps_run = steps;
                    if (one_window) {
                        fmt::print(stderr, "profiling {}: {} call{} in one window, after a warm-up\n", c.name, calls,
                                   calls > 1 ? "s" : "");
                    } else if (terminal) {
                        fmt::print(stderr, "\r[step {}/{}] {}", step + 1, steps, c.name);
                    } else if (step == 0) {
                        fmt::print(stderr, "profiling {}: {} step{}\n", c.name, steps, steps > 1 ? "s" : "");
                    }
                },
        });
        if (terminal && !one_window) fmt::print(stderr, "\n");
        if (trace_file_.given()) {
            last.export_chrome_trace(trace_file_.write_path());
            fmt::print(stderr, "trace written to {}\n", trace_file_.write_path());
        }
        if (traces_ == 0) {
            fmt::print(stderr, "no step was recorded: the schedule's active steps lie past --steps {}\n", steps_run);
        }
    }

    // What to record, when (the schedule flags), and what to do with each finished trace.
    profiler::ProfileOptions recording_options(const std::string& case_name) {
        std::optional<profiler::Schedule> schedule;
        if (wait_ || warmup_ || active_ || repeat_ || skip_first_) {
            schedule = profiler::Schedule{wait_.value_or(0), warmup_.value_or(0), active_.value_or(1),
                                          repeat_.value_or(0), skip_first_.value_or(0)};
            try {
                schedule->validate();
            } catch (const std::invalid_argument& e) {
                throw UsageError(fmt::format("{}; see 'vitals profile --help'", e.what()));
            }
        }
        profiler::ProfileOptions options{
            .activities = {profiler::Activity::cpu},
            .record_shapes = record_shapes_ || group_by_input_shape_,
            .profile_memory = profile_memory_,
            .schedule = schedule,
        };
        // Under a launcher (Slurm, MPI, torchrun) each rank's traces say which rank they are.
        std::optional<LauncherRank> rank;
        try {
            rank = launcher_rank();
        } catch (const std::invalid_argument& e) {
            throw UsageError(e.what());
        }
        if (rank_) {
            if (*rank_ >= *world_size_) {
                throw UsageError(fmt::format("--rank {} is not below --world-size {}; ranks count from 0", *rank_, *world_size_));
            }
            rank = LauncherRank{*rank_, *world_size_};
        }
        if (rank) {
            options.rank = rank->rank;
            options.world_size = rank->size;
            options.worker_name = fmt::format("{}_rank{}", profiler::default_worker_name(), rank->rank);
        }
        profiler::TraceReadyHandler write_dir;
        if (trace_dir_) {
            // --worker names the files in place of <host>_<pid>; a rank stays in the name, so
            // the ranks of one job given one --worker never share a name.
            std::string worker = worker_.value_or(options.worker_name);
            if (worker_ && rank) worker = fmt::format("{}_rank{}", worker, rank->rank);
            write_dir = profiler::tensorboard_trace_handler(*trace_dir_, {.worker_name = worker, .use_gzip = gzip_});
        }
        options.on_trace_ready = [this, case_name, write_dir](profiler::Profile& p) {
            ++traces_;
            // What the trace holds, under torch's footer: its statement calls, by step.
            const std::int64_t held = trace_calls(p.trace()).statement_calls.value_or(0);
            fmt::print("{} (trace {}):\n{}{}\n", case_name, traces_,
                       p.key_averages({.group_by_input_shape = group_by_input_shape_})
                           .table({.sort_by = sort_by_, .row_limit = row_limit_}),
                       calls_footer(calls_per_step_, held / calls_per_step_, stepped_));
            if (write_dir) write_dir(p);
        };
        return options;
    }

    std::string name_;
    std::int64_t steps_ = 0;  // 0: one cycle of the schedule, or 1 step without one
    std::optional<std::int64_t> calls_;  // per window, or per step with steps
    std::int64_t calls_per_step_ = 1;    // as recorded, for the tables' footers
    bool stepped_ = false;
    std::optional<std::int64_t> wait_, warmup_, active_, repeat_, skip_first_;
    bool record_shapes_ = false, profile_memory_ = false, group_by_input_shape_ = false;
    std::string sort_by_ = "cpu_time_total";
    int row_limit_ = 100;
    std::optional<std::string> trace_dir_, worker_;
    OutputFlag trace_file_;
    bool gzip_ = false;
    std::optional<int> rank_, world_size_;
    AxisFlags axes_;
    int traces_ = 0;
};

}  // namespace

std::unique_ptr<Command> make_profile_command() { return std::make_unique<ProfileCommand>(); }

}  // namespace vitals::cli
