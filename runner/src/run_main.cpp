// The `vitals` commands. Usage errors exit 2, runtime failures exit 1, each with one
// "vitals: error: ..." line on stderr that says what is wrong and how to fix it.
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <csignal>
#include <nlohmann/json.hpp>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <algorithm>
#include <filesystem>
#include <cmath>
#include <iostream>
#include <optional>
#include <regex>

#include "commands.hpp"
#include "vitals/atomic_file.hpp"
#include "vitals/compare.hpp"
#include "vitals/detail/device_clock.hpp"
#include "vitals/profiler/profile.hpp"
#include "vitals/results.hpp"
#include "vitals/runner.hpp"

namespace vitals {
namespace {

constexpr int kExitUsage = 2;
constexpr int kExitFailure = 1;
constexpr int kExitInterrupted = 130;  // 128 + SIGINT, as shells report it

// Set by the first SIGINT of a run: the run stops after the current block, writes what
// it has and exits 130. A second SIGINT ends the process at once.
std::atomic<bool> g_interrupted{false};

extern "C" void on_sigint(int) {
    g_interrupted.store(true);
    std::signal(SIGINT, SIG_DFL);
}

struct Interrupted : std::runtime_error {
    Interrupted() : std::runtime_error("interrupted") {}
};

// A usage error: bad flags or values, unknown names. Exit 2.
struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

void print_error(const std::string& message) { fmt::print(stderr, "vitals: error: {}\n", message); }

// CLI11 validator: a finite number of seconds > 0 (rejects nan, inf, 0 and negatives).
CLI::Validator positive_seconds() {
    return CLI::Validator(
        [](std::string& input) -> std::string {
            char* end = nullptr;
            const double v = std::strtod(input.c_str(), &end);
            if (end == input.c_str() || *end != '\0' || !std::isfinite(v) || v <= 0.0) {
                return fmt::format("must be a finite number of seconds > 0, got '{}'", input);
            }
            return "";
        },
        "SECONDS>0");
}

CLI::Validator open_unit_interval() {
    return CLI::Validator(
        [](std::string& input) -> std::string {
            char* end = nullptr;
            const double v = std::strtod(input.c_str(), &end);
            if (end == input.c_str() || *end != '\0' || !(v > 0.0 && v < 1.0)) {
                return fmt::format("must be a number between 0 and 1 (exclusive), got '{}'", input);
            }
            return "";
        },
        "(0,1)");
}

std::regex compile_filter(const std::string& pattern) {
    try {
        return std::regex(pattern, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
        throw UsageError(fmt::format("invalid --filter regex '{}': {}; use an ECMAScript regular expression", pattern,
                                     e.what()));
    }
}

std::size_t edit_distance(const std::string& a, const std::string& b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t above = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diagonal = above;
        }
    }
    return row[b.size()];
}

const Case& find_case(const Registry& registry, const std::string& name) {
    if (const Case* c = registry.find(name)) return *c;
    std::string hint;
    std::size_t best = std::string::npos;
    for (const Case& c : registry.cases()) {
        const std::size_t d = edit_distance(name, c.name);
        if (d < best && d <= std::max<std::size_t>(3, name.size() / 3)) {
            best = d;
            hint = fmt::format(" (did you mean '{}'?)", c.name);
        }
    }
    throw UsageError(fmt::format("no case named '{}'{}; 'vitals list' shows the cases", name, hint));
}

struct MeasureOptions {
    bool instructions = false;  // timeit: also count instructions per call
    double min_run_time = 0.0;  // 0: the mode's default
    bool adaptive = false;
    double threshold = 0.1;
    double max_run_time = 10.0;
    std::int64_t number = 0;  // > 0: a single timeit(number) block
};

Measurement measure(Timer& timer, const MeasureOptions& o) {
    // Checked after every block, so Ctrl-C takes effect within one block.
    const auto stop_if_interrupted = [](std::int64_t, double) {
        if (g_interrupted.load()) throw Interrupted();
    };
    if (o.number > 0) return timer.timeit(o.number);
    if (o.adaptive) {
        AdaptiveAutorangeOptions a{.threshold = o.threshold, .max_run_time = o.max_run_time, .callback = stop_if_interrupted};
        if (o.min_run_time > 0) a.min_run_time = o.min_run_time;
        return timer.adaptive_autorange(a);
    }
    BlockedAutorangeOptions b{.callback = stop_if_interrupted};
    if (o.min_run_time > 0) b.min_run_time = o.min_run_time;
    return timer.blocked_autorange(b);
}

CaseResult run_case(const Case& c, const MeasureOptions& o) {
    CaseResult result{c.name, std::nullopt, "", ""};
    try {
        Timer timer = c.make_timer();
        result.measurement = measure(timer, o);
    } catch (const SkipCase& skip) {
        result.skipped = skip.what();
    } catch (const Interrupted&) {
        throw;
    } catch (const std::exception& e) {
        result.error = fmt::format("case '{}' failed: {}", c.name, e.what());
    } catch (...) {
        result.error = fmt::format("case '{}' failed: it threw a non-standard exception", c.name);
    }
    return result;
}

void add_measure_flags(CLI::App& cmd, MeasureOptions& o) {
    cmd.add_option("--min-run-time", o.min_run_time, "Seconds of measured blocks to gather (default 0.2; adaptive 0.01)")
        ->check(positive_seconds());
    auto* adaptive = cmd.add_flag("--adaptive", o.adaptive, "Time blocks until IQR/median < threshold");
    cmd.add_option("--threshold", o.threshold, "Adaptive: the IQR/median to reach (default 0.1)")
        ->check(open_unit_interval())
        ->needs(adaptive);
    cmd.add_option("--max-run-time", o.max_run_time, "Adaptive: stop after this many seconds (default 10)")
        ->check(positive_seconds())
        ->needs(adaptive);
}

void validate(const MeasureOptions& o) {
    if (o.adaptive && o.min_run_time > 0 && o.max_run_time < o.min_run_time) {
        throw UsageError(fmt::format("--max-run-time ({}) is below --min-run-time ({}); raise --max-run-time",
                                     o.max_run_time, o.min_run_time));
    }
}

void write_json(const std::string& path, const std::vector<CaseResult>& results, const std::string& executable) {
    write_file_atomically(path, results_to_json(results, executable));
}

int cmd_compare(const std::string& before, const std::string& after, double alpha, double noise_floor_percent,
                const std::optional<std::string>& json_path) {
    if (detail::looks_like_trace(before) && detail::looks_like_trace(after)) {
        if (json_path) throw UsageError("--json applies to results files, not to two traces");
        try {
            fmt::print("{}", detail::profile_diff_report(before, after));
        } catch (const std::runtime_error& e) {
            throw UsageError(e.what());
        }
        return 0;
    }
    if (json_path) check_output_path(*json_path);
    std::string json;
    std::string report;
    try {
        report = detail::compare_report(before, read_results(before), after, read_results(after),
                                         {.alpha = alpha, .noise_floor = noise_floor_percent / 100}, json_path ? &json : nullptr);
    } catch (const ResultsFileError& e) {
        throw UsageError(e.what());
    }
    fmt::print("{}", report);
    if (json_path) write_file_atomically(*json_path, json);
    return 0;
}

int cmd_report(const std::vector<std::string>& inputs, const std::optional<std::string>& html,
               const std::optional<std::string>& markdown) {
    if (!html && !markdown) throw UsageError("give --html OUT.html and/or --markdown OUT.md");
    if (html) check_output_path(*html);
    if (markdown) check_output_path(*markdown);
    std::vector<NamedResults> files;
    try {
        for (const std::string& path : inputs) files.emplace_back(path, read_results(path));
    } catch (const ResultsFileError& e) {
        throw UsageError(e.what());
    }
    if (html) write_file_atomically(*html, html_report(files));
    if (markdown) write_file_atomically(*markdown, markdown_report(files));
    return 0;
}

int cmd_merge(const std::vector<std::string>& inputs, const std::string& output) {
    check_output_path(output);
    std::string merged;
    try {
        merged = merge_results(inputs);
    } catch (const ResultsFileError& e) {
        throw UsageError(e.what());
    }
    write_file_atomically(output, merged);
    fmt::print(stderr, "merged {} file{} into {}\n", inputs.size(), inputs.size() > 1 ? "s" : "", output);
    return 0;
}

int cmd_list(const Registry& registry, const std::optional<std::string>& filter) {
    const std::optional<std::regex> re = filter ? std::optional(compile_filter(*filter)) : std::nullopt;
    for (const Case& c : registry.cases()) {
        if (!re || std::regex_search(c.name, *re)) fmt::print("{}\n", c.name);
    }
    return 0;
}

constexpr const char* kCallgrindChild = "VITALS_CALLGRIND_CHILD";

// Runs this program again under Callgrind to count `number` calls of the case's stmt;
// returns the instructions per call.
double count_under_callgrind(const std::string& name, std::int64_t number) {
    char self[4096] = {};
    const ssize_t length = ::readlink("/proc/self/exe", self, sizeof self - 1);
    if (length <= 0) throw std::runtime_error("cannot find this program's path (/proc/self/exe) to run it under Callgrind");
    char folder_template[] = "/tmp/vitals-callgrind-XXXXXX";
    const char* folder = ::mkdtemp(folder_template);
    if (folder == nullptr) throw std::runtime_error(fmt::format("cannot create a temporary folder: {}", std::strerror(errno)));
    const std::string out_file = std::string(folder) + "/callgrind.out";
    const std::string log_file = std::string(folder) + "/valgrind.log";
    const std::string command = fmt::format(
        "{}=1 valgrind --tool=callgrind --collect-atstart=no --callgrind-out-file='{}' --log-file='{}' '{}' timeit '{}' "
        "--instructions --number {} >/dev/null 2>&1",
        kCallgrindChild, out_file, log_file, self, name, number);
    const int status = std::system(command.c_str());
    std::ifstream in(out_file);
    std::string line;
    double total = -1;
    while (std::getline(in, line)) {
        if (line.rfind("totals:", 0) == 0 || line.rfind("summary:", 0) == 0) total = std::atof(line.c_str() + line.find(':') + 1);
    }
    std::filesystem::remove_all(folder);
    if (status != 0 || total < 0) {
        throw std::runtime_error(status == 127 * 256 || std::system("command -v valgrind >/dev/null 2>&1") != 0
                                     ? "cannot count instructions: no hardware counters here and valgrind is not "
                                       "installed (apt-get install valgrind)"
                                     : "cannot count instructions: the run under Callgrind failed");
    }
    return total / static_cast<double>(number);
}

int cmd_timeit(const Registry& registry, const std::string& name, const MeasureOptions& o,
               const std::optional<std::string>& json_path, const std::string& executable) {
    const Case& c = find_case(registry, name);
    const std::int64_t count_number = o.number > 0 ? o.number : 100;
    if (o.instructions && std::getenv(kCallgrindChild) != nullptr) {  // the run under Callgrind
        Timer timer = c.make_timer();
        timer.collect_instructions({.number = count_number});
        return 0;
    }
    if (json_path) check_output_path(*json_path);
    CaseResult result = run_case(c, o);
    if (o.instructions && result.measurement) {
        std::string source;
        try {
            Timer timer = c.make_timer();
            const InstructionCount counted = timer.collect_instructions({.number = count_number});
            result.instructions = counted.per_call();
            source = "hardware counters";
        } catch (const std::runtime_error&) {
            result.instructions = count_under_callgrind(c.name, count_number);
            source = "Callgrind";
        }
        fmt::print("{}\n  {:.0f} instructions per call ({}, {} calls)\n", result.measurement->to_string(),
                   *result.instructions, source, count_number);
        result.measurement.reset();  // printed
        if (json_path) {
            CaseResult for_json = run_case(c, o);  // the timing again, now with the counter attached
            for_json.instructions = result.instructions;
            write_json(*json_path, {for_json}, executable);
        }
        return 0;
    }
    if (!result.skipped.empty()) fmt::print("{}: skipped: {}\n", c.name, result.skipped);
    if (result.measurement) fmt::print("{}\n", result.measurement->to_string());
    if (json_path) write_json(*json_path, {result}, executable);
    if (!result.error.empty()) {
        print_error(result.error);
        return kExitFailure;
    }
    return 0;
}

struct ProfileCommand {
    std::int64_t steps = 0;  // 0: one cycle of the schedule, or 1 step without one
    std::optional<std::int64_t> wait, warmup, active, repeat, skip_first;
    bool record_shapes = false, profile_memory = false, group_by_input_shape = false;
    std::string sort_by = "cpu_time_total";
    int row_limit = 100;
    std::optional<std::string> trace_file, trace_dir, worker;
    bool gzip = false;
};

int cmd_profile(const Registry& registry, const std::string& name, const ProfileCommand& o) {
    const Case& c = find_case(registry, name);
    // Check what can be checked before running anything.
    const auto& keys = profiler::sort_keys();
    if (std::find(keys.begin(), keys.end(), o.sort_by) == keys.end()) {
        throw UsageError(fmt::format("unknown --sort-by '{}'; use one of: {}", o.sort_by, fmt::join(keys, ", ")));
    }
    if ((o.worker || o.gzip) && !o.trace_dir) throw UsageError("--worker and --gzip go with --trace-dir");
    if (o.trace_file) check_output_path(*o.trace_file);
    std::optional<profiler::Schedule> schedule;
    if (o.wait || o.warmup || o.active || o.repeat || o.skip_first) {
        schedule = profiler::Schedule{o.wait.value_or(0), o.warmup.value_or(0), o.active.value_or(1), o.repeat.value_or(0),
                                      o.skip_first.value_or(0)};
        try {
            schedule->validate();
        } catch (const std::invalid_argument& e) {
            throw UsageError(fmt::format("{}; see 'vitals profile --help'", e.what()));
        }
    }
    const std::int64_t steps =
        o.steps > 0 ? o.steps
                    : (schedule ? schedule->skip_first + (schedule->wait + schedule->warmup + schedule->active) *
                                                             std::max<std::int64_t>(schedule->repeat, 1)
                                : 1);

    Timer timer = [&] {
        try {
            return c.make_timer();
        } catch (const SkipCase& skip) {
            throw std::runtime_error(fmt::format("case '{}' cannot run here: {}", c.name, skip.what()));
        }
    }();
    int traces = 0;
    profiler::TraceReadyHandler write_dir;
    // (the handler is made below, once the worker name is known)
    profiler::ProfileOptions options{
        .activities = {profiler::Activity::cpu},
        .record_shapes = o.record_shapes || o.group_by_input_shape,
        .profile_memory = o.profile_memory,
        .schedule = schedule,
        .on_trace_ready =
            [&](profiler::Profile& p) {
                ++traces;
                fmt::print("{} (trace {}):\n{}\n", c.name, traces,
                           p.key_averages({.group_by_input_shape = o.group_by_input_shape})
                               .table({.sort_by = o.sort_by, .row_limit = o.row_limit}));
                if (write_dir) write_dir(p);
            },
    };
    if (timer.options().cuda_stream) options.activities.push_back(profiler::Activity::cuda);
    // Under a launcher (Slurm, MPI, torchrun) each rank's traces say which rank they are.
    std::optional<detail::Shard> rank;
    try {
        rank = detail::shard_from_environment();
    } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
    }
    if (rank) {
        options.rank = rank->index;
        options.world_size = rank->count;
        options.worker_name = fmt::format("{}_rank{}", profiler::default_worker_name(), rank->index);
    }
    if (o.trace_dir) {
        write_dir = profiler::tensorboard_trace_handler(
            *o.trace_dir, {.worker_name = o.worker.value_or(options.worker_name), .use_gzip = o.gzip});
    }
    const TimerOptions& t = timer.options();
    t.global_setup.run(1);
    t.setup.run(1);
    profiler::Profile profile(std::move(options));
    profile.start();
    const bool terminal = ::isatty(STDERR_FILENO) != 0;
    if (!terminal) fmt::print(stderr, "profiling {}: {} step{}\n", c.name, steps, steps > 1 ? "s" : "");
    for (std::int64_t step = 0; step < steps; ++step) {
        if (terminal) fmt::print(stderr, "\r[step {}/{}] {}", step + 1, steps, c.name);
        t.stmt.run(1);
        if (t.cuda_stream) detail::synchronize_stream(*t.cuda_stream);
        if (step + 1 < steps) profile.step();
    }
    if (terminal) fmt::print(stderr, "\n");
    profile.stop();
    if (o.trace_file) {
        profile.export_chrome_trace(*o.trace_file);
        fmt::print(stderr, "trace written to {}\n", *o.trace_file);
    }
    if (traces == 0) fmt::print(stderr, "no step was recorded: the schedule's active steps lie past --steps {}\n", steps);
    return 0;
}

struct RunExtras {
    std::optional<std::string> shard;  // "K/N"
    std::optional<std::string> baseline;
    std::optional<double> profile_slow_percent;
    double alpha = 0.05;
};

// Profiles a case that came out slower than the baseline: its table, and its trace next
// to the results (or in the current folder).
void profile_slow_case(const Case& c, const std::optional<std::string>& json_path) {
    Timer timer = c.make_timer();
    const profiler::Trace trace = timer.profile({.profile = {.record_shapes = true}});
    fmt::print("\n{} is slower; its profile:\n{}", c.name,
               trace.key_averages().table({.sort_by = "self_cpu_time_total", .row_limit = 15}));
    std::string file = c.name;
    std::replace(file.begin(), file.end(), '/', '_');
    const std::filesystem::path folder = json_path ? std::filesystem::path(*json_path).parent_path() : std::filesystem::path();
    const std::filesystem::path path = folder / (file + ".pt.trace.json");
    trace.export_chrome_trace(path);
    fmt::print("trace: {}\n", path.string());
}

int cmd_run(const Registry& registry, const std::optional<std::string>& filter, const MeasureOptions& o,
            const std::optional<std::string>& json_path, const std::string& executable, const RunExtras& extras) {
    const std::optional<std::regex> re = filter ? std::optional(compile_filter(*filter)) : std::nullopt;
    std::vector<const Case*> matching;
    for (const Case& c : registry.cases()) {
        if (!re || std::regex_search(c.name, *re)) matching.push_back(&c);
    }
    if (matching.empty()) {
        throw UsageError(filter ? fmt::format("no case matches --filter '{}'; 'vitals list' shows the cases", *filter)
                                : "there are no cases to run");
    }
    std::optional<detail::Shard> shard;
    try {
        shard = extras.shard ? std::optional(detail::parse_shard(*extras.shard)) : detail::shard_from_environment();
    } catch (const std::invalid_argument& e) {
        throw UsageError(fmt::format("{}; see 'vitals run --help'", e.what()));
    }
    std::vector<const Case*> selected;
    for (std::size_t i = 0; i < matching.size(); ++i) {
        if (!shard || static_cast<int>(i % static_cast<std::size_t>(shard->count)) == shard->index) {
            selected.push_back(matching[i]);
        }
    }
    if (shard) {
        fmt::print(stderr, "shard {}: {} of {} cases\n", shard->to_string(), selected.size(), matching.size());
    }
    if (json_path) check_output_path(*json_path);
    std::vector<CaseSamples> baseline;
    if (extras.baseline) {
        try {
            baseline = read_results(*extras.baseline);
        } catch (const ResultsFileError& e) {
            throw UsageError(e.what());
        }
    }

    std::vector<CaseResult> results;
    std::vector<Measurement> measured;
    g_interrupted.store(false);
    std::signal(SIGINT, on_sigint);
    bool interrupted = false;
    for (std::size_t i = 0; i < selected.size() && !interrupted; ++i) {
        fmt::print(stderr, "[{}/{}] {}\n", i + 1, selected.size(), selected[i]->name);
        std::fflush(stderr);
        CaseResult result;
        try {
            result = run_case(*selected[i], o);
        } catch (const Interrupted&) {
            interrupted = true;
            fmt::print(stderr, "interrupted: {} of {} cases measured; writing what there is\n", results.size(), selected.size());
            break;
        }
        if (!result.skipped.empty()) fmt::print(stderr, "      skipped: {}\n", result.skipped);
        if (!result.error.empty()) print_error(result.error);
        if (result.measurement) measured.push_back(*result.measurement);
        results.push_back(std::move(result));
    }
    if (!measured.empty()) fmt::print("{}", Compare(measured).to_string());

    std::size_t skipped = 0, failed = 0;
    for (const CaseResult& r : results) {
        skipped += r.skipped.empty() ? 0 : 1;
        failed += r.error.empty() ? 0 : 1;
    }
    if (skipped > 0) {
        fmt::print("\n{} case{} skipped:\n", skipped, skipped > 1 ? "s" : "");
        for (const CaseResult& r : results) {
            if (!r.skipped.empty()) fmt::print("  {}: {}\n", r.name, r.skipped);
        }
    }
    std::signal(SIGINT, SIG_DFL);
    if (json_path) {
        std::string document = results_to_json(results, executable, shard ? shard->to_string() : "");
        if (interrupted) {  // mark the file so no one mistakes it for a whole run
            auto doc = nlohmann::json::parse(document);
            doc["context"]["vitals_incomplete"] = true;
            doc["context"]["vitals_cases_planned"] = selected.size();
            document = doc.dump(2) + "\n";
        }
        write_file_atomically(*json_path, document);
    }
    if (interrupted) return kExitInterrupted;
    if (extras.baseline) {
        const std::vector<CaseSamples> current = samples_of(results);
        const detail::CompareOptions compare{.alpha = extras.alpha};
        try {
            fmt::print("\n{}", detail::compare_report(*extras.baseline, baseline, "this run", current, compare));
        } catch (const ResultsFileError& e) {
            print_error(e.what());
            return kExitUsage;
        }
        if (extras.profile_slow_percent) {
            for (const std::string& name : detail::slower_cases(baseline, current, compare, *extras.profile_slow_percent / 100)) {
                profile_slow_case(*registry.find(name), json_path);
            }
        }
    }
    if (failed > 0) {
        print_error(fmt::format("{} of {} cases failed (see above)", failed, results.size()));
        return kExitFailure;
    }
    return 0;
}

}  // namespace

int run_main(int argc, char** argv, const Registry& registry) {
    // A write past the file-size limit fails with EFBIG and is reported like any failed
    // write (the old file stays), instead of SIGXFSZ killing the process.
    std::signal(SIGXFSZ, SIG_IGN);
    const std::string executable = argc > 0 ? argv[0] : "vitals";
    CLI::App app{"vitals: time C++ statements the way torch.utils.benchmark.Timer does", "vitals"};
    app.require_subcommand(1);
    app.fallthrough(false);

    std::optional<std::string> filter, json_path;
    std::string case_name;
    MeasureOptions timeit_options, run_options;

    auto* list = app.add_subcommand("list", "List the case names, one a line");
    list->add_option("--filter", filter, "Only names matching this regular expression");

    auto* timeit = app.add_subcommand("timeit", "Time one case and print its Measurement");
    timeit->add_option("name", case_name, "The case's name (see 'vitals list')")->required();
    add_measure_flags(*timeit, timeit_options);
    timeit->add_option("--number", timeit_options.number, "Time exactly one block of N calls (after a warm-up)")
        ->check(CLI::PositiveNumber)
        ->excludes("--adaptive")
        ->excludes("--min-run-time");
    timeit->add_option("--json", json_path, "Also write the results as JSON (Google Benchmark layout)");
    timeit->add_flag("--instructions", timeit_options.instructions,
                     "Also count instructions per call (hardware counters, or a run under Callgrind)");

    auto* run = app.add_subcommand("run", "Time every matching case and print Compare tables");
    run->add_option("--filter", filter, "Only cases whose names match this regular expression");
    add_measure_flags(*run, run_options);
    run->add_option("--json", json_path, "Also write the results as JSON (Google Benchmark layout)");
    RunExtras run_extras;
    run->add_option("--shard", run_extras.shard,
                    "Run the cases whose position modulo N is K (K/N); default from Slurm, MPI or torchrun variables");
    auto* baseline = run->add_option("--baseline", run_extras.baseline, "Compare with this results file after the run");
    run->add_option("--profile-slow", run_extras.profile_slow_percent,
                    "Profile every case slower than the baseline by more than PCT percent (and significant)")
        ->check(CLI::NonNegativeNumber)
        ->needs(baseline);

    std::string before_file, after_file;
    double alpha = 0.05, noise_floor = 1.0;
    auto* compare = app.add_subcommand(
        "compare", "Compare two results files case by case with a significance test, or two traces operator by operator");
    compare->add_option("before", before_file, "Results before the change (ours or Google Benchmark's JSON)")->required();
    compare->add_option("after", after_file, "Results after the change")->required();
    compare->add_option("--alpha", alpha, "Significance level of the test (default 0.05)")->check(open_unit_interval());
    compare->add_option("--noise-floor", noise_floor, "Changes under this percentage count as same (default 1)")
        ->check(CLI::NonNegativeNumber);
    compare->add_option("--json", json_path, "Also write the comparison as JSON");

    std::vector<std::string> report_inputs;
    std::optional<std::string> report_html, report_markdown;
    auto* report = app.add_subcommand("report", "Draw results files: an HTML page of box plots, or markdown");
    report->add_option("files", report_inputs, "Results files (two: before and after)")->required();
    report->add_option("--html", report_html, "Write a self-contained HTML report here");
    report->add_option("--markdown", report_markdown, "Write a markdown table here (for a pull request)");

    std::vector<std::string> merge_inputs;
    std::string merge_output;
    auto* merge = app.add_subcommand("merge", "Join results files (e.g. shards) into one");
    merge->add_option("files", merge_inputs, "Results files to join")->required();
    merge->add_option("-o,--output", merge_output, "The joined file")->required();

    ProfileCommand profile_options;
    auto* profile = app.add_subcommand("profile", "Run a case's statement step by step under the profiler; print tables");
    profile->add_option("name", case_name, "The case's name (see 'vitals list')")->required();
    profile->add_option("--steps", profile_options.steps, "Steps to run, one call each (default: one schedule cycle)")
        ->check(CLI::PositiveNumber);
    profile->add_option("--wait", profile_options.wait, "Schedule: steps to skip in each cycle")->check(CLI::NonNegativeNumber);
    profile->add_option("--warmup", profile_options.warmup, "Schedule: steps traced, then discarded")->check(CLI::NonNegativeNumber);
    profile->add_option("--active", profile_options.active, "Schedule: steps recorded (default 1)")->check(CLI::PositiveNumber);
    profile->add_option("--repeat", profile_options.repeat, "Schedule: cycles (0: until the steps end)")->check(CLI::NonNegativeNumber);
    profile->add_option("--skip-first", profile_options.skip_first, "Schedule: steps to skip at the start")
        ->check(CLI::NonNegativeNumber);
    profile->add_flag("--record-shapes", profile_options.record_shapes, "Record operators' input shapes and dtypes");
    profile->add_flag("--profile-memory", profile_options.profile_memory, "Record allocations: memory columns");
    profile->add_flag("--group-by-input-shape", profile_options.group_by_input_shape, "One row per name and input shapes");
    profile->add_option("--sort-by", profile_options.sort_by, "Sort key (default cpu_time_total)");
    profile->add_option("--row-limit", profile_options.row_limit, "Rows to print (default 100)")->check(CLI::NonNegativeNumber);
    auto* trace_file = profile->add_option("--trace", profile_options.trace_file, "Write the last trace as Chrome trace JSON");
    auto* trace_dir = profile->add_option("--trace-dir", profile_options.trace_dir,
                                          "Write every trace as <worker>.<ms>.pt.trace.json into this folder");
    trace_file->excludes(trace_dir);
    profile->add_option("--worker", profile_options.worker, "Worker name in --trace-dir file names (default <host>_<pid>)");
    profile->add_flag("--gzip", profile_options.gzip, "Gzip the --trace-dir files");

    try {
        for (const std::string& problem : registry.problems()) throw UsageError(problem);
        const std::string first = argc >= 2 ? argv[1] : "";
        const std::vector<std::string> commands = {"list", "timeit", "run", "profile", "compare", "merge", "report"};
        if (!first.empty() && first[0] == '-' && first != "-h" && first != "--help" && first != "--help-all") {
            throw UsageError(fmt::format("unknown option '{}' before the command; the commands are {} (see 'vitals --help')",
                                         first, fmt::join(commands, ", ")));
        }
        if (!first.empty() && first[0] != '-' && std::find(commands.begin(), commands.end(), first) == commands.end()) {
            throw UsageError(fmt::format("unknown command '{}'; the commands are {} (see 'vitals --help')", argv[1],
                                         fmt::join(commands, ", ")));
        }
        try {
            app.parse(argc, argv);
        } catch (const CLI::CallForHelp&) {
            const CLI::App* target = &app;
            for (const CLI::App* sub : app.get_subcommands()) target = sub;
            fmt::print("{}", target->help());
            return 0;
        } catch (const CLI::CallForAllHelp&) {
            fmt::print("{}", app.help("", CLI::AppFormatMode::All));
            return 0;
        } catch (const CLI::ParseError& e) {
            const CLI::App* target = &app;
            for (const CLI::App* sub : app.get_subcommands()) target = sub;
            const std::string help = target == &app ? "vitals --help" : fmt::format("vitals {} --help", target->get_name());
            std::string message = e.what();
            if (message.empty() || (e.get_name() == "RequiredError" && target == &app)) {
                message = "give a command: list, timeit, run, profile, compare, merge or report";
            }
            throw UsageError(fmt::format("{}; see '{}'", message, help));
        }
        if (list->parsed()) return cmd_list(registry, filter);
        if (profile->parsed()) return cmd_profile(registry, case_name, profile_options);
        if (compare->parsed()) return cmd_compare(before_file, after_file, alpha, noise_floor, json_path);
        if (merge->parsed()) return cmd_merge(merge_inputs, merge_output);
        if (report->parsed()) return cmd_report(report_inputs, report_html, report_markdown);
        if (timeit->parsed()) {
            validate(timeit_options);
            return cmd_timeit(registry, case_name, timeit_options, json_path, executable);
        }
        validate(run_options);
        run_extras.alpha = alpha;
        return cmd_run(registry, filter, run_options, json_path, executable, run_extras);
    } catch (const UsageError& e) {
        print_error(e.what());
        return kExitUsage;
    } catch (const std::exception& e) {
        print_error(e.what());
        return kExitFailure;
    }
}

}  // namespace vitals
