// The `vitals` commands as units: each is a class in commands/ that declares its flags
// on its own subcommand and runs with them. run_main.cpp holds the table of commands
// and the one place that maps errors to exit codes. Internal to the runner.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "vitals/case.hpp"
#include "vitals/results.hpp"
#include "shard.hpp"

namespace CLI {
class App;
class Option;
class Validator;
}  // namespace CLI

namespace vitals::cli {

inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;

// Commands only throw; run_main turns what they throw into the exit code.

// Bad flags or values, unknown names, unreadable input files: exit 2.
struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};
// The command ran to its end and has said on stderr what failed (a case, a file, a
// verdict named by --fail-on): exit 1, nothing more printed.
struct Failed : std::runtime_error {
    Failed() : std::runtime_error("failed (said above)") {}
};
// A stop signal ended the run once its results were safe: exit 128 + the signal, as
// shells report a process that signal ended.
struct StoppedBySignal : std::runtime_error {
    explicit StoppedBySignal(int signal) : std::runtime_error("stopped by a signal"), signal(signal) {}
    int signal;
};

// What every command may use.
struct CommandContext {
    const Registry& registry;
    std::string executable;  // argv[0]
    std::vector<std::string> arguments;  // argv, as given
};

class Command {
public:
    virtual ~Command() = default;
    // Declares the command's arguments and flags on its subcommand.
    virtual void declare(CLI::App& app) = 0;
    // Runs with the parsed flags. Throws UsageError for bad input, Failed or
    // StoppedBySignal for a run that ended so; returning is success.
    virtual void run(const CommandContext& context) = 0;
};

// One row of the command table.
struct CommandEntry {
    const char* name;
    const char* description;
    std::unique_ptr<Command> (*make)();
};
// The commands, in the order `vitals --help` lists them.
const std::vector<CommandEntry>& command_table();

std::unique_ptr<Command> make_list_command();
std::unique_ptr<Command> make_timeit_command();
std::unique_ptr<Command> make_run_command();
std::unique_ptr<Command> make_profile_command();
std::unique_ptr<Command> make_compare_command();
std::unique_ptr<Command> make_report_command();
std::unique_ptr<Command> make_merge_command();
std::unique_ptr<Command> make_machine_command();

// --- Shared by the commands (command_support.cpp) -------------------------------------

void print_error(const std::string& message);

// CLI11 validators: a finite number of seconds > 0; a number in (0, 1); a finite number
// >= 0 (nan refused); a whole number in [min, max] written in decimal (leading zeros
// are dropped rather than read as octal, "0x" and exponents refused).
CLI::Validator positive_seconds();
CLI::Validator open_unit_interval();
CLI::Validator finite_non_negative();
CLI::Validator decimal_integer(std::int64_t min, std::int64_t max);

// The cases whose names match the filter (all without one). The filter is a regular
// expression in RE2's syntax, matched in linear time (no pattern can hang or overflow
// the stack); UsageError naming the problem for one RE2 refuses.
std::vector<const Case*> matching_cases(const Registry& registry, const std::optional<std::string>& filter);
// The case of that name, or UsageError with the nearest name as a hint.
const Case& find_case(const Registry& registry, const std::string& name);

// `path` with `.tag` before its extension ("out.json", "partial" -> "out.partial.json");
// standard output and device paths ("-", /dev/..., /proc/...) as they are.
std::string tagged_path(const std::string& path, const std::string& tag);

// An output path for this process. "{rank}" becomes the launcher's rank (0 without a
// launcher). Without the placeholder, under a launcher of more than one rank, the rank
// goes before the extension ("out.json" -> "out.rank1.json"), said on stderr, so that
// ranks never write one file. Standard output and devices stay as they are. UsageError
// for launcher variables that disagree. With an explicit --shard K/N (`explicit_shard`)
// the shard goes there too ("out.rank1.shard3.json"), so that runs of one rank for
// several shards keep apart.
std::string output_for_this_rank(const std::string& path, const std::optional<Shard>& explicit_shard = std::nullopt);

// For an output file on standard output ("-", /dev/stdout): keeps the real standard
// output for that file alone and sends everything else printed to standard output to
// standard error from here on, so that `--json - | jq` reads nothing but the file.
// Returns the path to write the file to (a /dev/fd/N of the kept descriptor); any other
// path as it is.
std::string reserve_standard_output(const std::string& path);

// read_results_file, with a bad file reported as a UsageError; a file marked incomplete
// adds a line to `warnings`.
ResultsFile read_results_file_or_usage_error(const std::string& path, std::vector<std::string>& warnings);

// The report flags that compare, report and run --baseline share.
struct ReportFlags {
    double alpha = 0.05;
    double noise_floor_percent = 1.0;
    // Declares --alpha and --noise-floor on `app`.
    void declare(CLI::App& app);
    ReportOptions options() const { return {.alpha = alpha, .noise_floor = noise_floor_percent / 100}; }
};

// --axis NAME=V1,V2 (repeatable): the values of a case family's axis, replaced for this
// command (list, run, timeit, profile), as NVBench's -a.
struct AxisFlags {
    std::vector<std::string> specs;
    void declare(CLI::App& app);
    // `registry`, or its cases with the axes replaced (kept in `storage`). UsageError for a
    // malformed spec, an unknown axis or a value the axis cannot take.
    const Registry& apply(const Registry& registry, std::optional<Registry>& storage) const;
};

// After a run: how each family's cost grows along each numeric axis with 3 or more
// values measured (a line per group of the other axes' values); "" when none.
std::string growth_report(const Registry& registry, const std::vector<CaseResult>& results);

// How run and timeit lay out their --json file, for the tools that read it.
struct ResultsLayoutFlags {
    bool aggregates_only = false;
    std::string time_unit;  // "" (by magnitude, per case), ns, us, ms or s
    // Declares --json-aggregates-only and --time-unit on `app`, both needing `json`.
    void declare(CLI::App& app, CLI::Option* json);
    ResultsLayout layout() const;
};

}  // namespace vitals::cli
