// The `vitals` commands as units: each is a class in commands/ that declares its flags
// on its own subcommand and runs with them. run_main.cpp holds the table of commands
// and the one place that maps errors to exit codes. Internal to the runner.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <span>
#include <string>
#include <vector>

#include "vitals/case.hpp"
#include "vitals/results.hpp"

namespace CLI {
class App;
}  // namespace CLI

namespace vitals::history {
class HistoryError;
}  // namespace vitals::history

namespace vitals::cli {

inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitVerdict = 3;

// Commands only throw; run_main turns what they throw into the exit code.

// Bad flags or values, unknown names, unreadable input files: exit 2.
struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};
// The command ran to its end and has said on stderr what failed (a case, a file):
// exit 1, nothing more printed.
struct Failed : std::runtime_error {
    Failed() : std::runtime_error("failed (said above)") {}
};
// Every output is written and a case got a verdict named by --fail-on, said on stderr:
// exit 3, so that a CI gate tells a regression from a run that failed.
struct VerdictFailed : std::runtime_error {
    VerdictFailed() : std::runtime_error("a verdict named by --fail-on (said above)") {}
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
std::unique_ptr<Command> make_ab_command();
std::unique_ptr<Command> make_history_command();
std::unique_ptr<Command> make_report_command();
std::unique_ptr<Command> make_merge_command();
std::unique_ptr<Command> make_machine_command();
std::unique_ptr<Command> make_doctor_command();

// One line on stderr when something on this machine would disturb a measurement (a
// governor, a boost, the load; `vitals doctor` says more), and one per reason the
// kernel refused counters the results asked for (--counters). For run and timeit, once
// something was measured.
void note_machine_disturbances(const std::vector<machine::Finding>& machine_check, std::span<const CaseResult> results);

// --- Shared by the commands (command_support.cpp); flag groups in flags.hpp -------------

void print_error(const std::string& message);
// A history's error as the command's: the input's fault (a bad path, no history, a
// repeated commit) is a UsageError, exit 2; the database's own (history::HistoryFailure:
// a full disk, a lost connection) exit 1.
[[noreturn]] void throw_history_error(const history::HistoryError& e);

// The cases whose names match the filter (all without one). The filter is a regular
// expression in RE2's syntax, matched in linear time (no pattern can hang or overflow
// the stack); UsageError naming the problem for one RE2 refuses.
std::vector<const Case*> matching_cases(const Registry& registry, const std::optional<std::string>& filter);
// Up to three of `candidates` within a few edits of `name`, the nearest first.
std::vector<std::string> near_names(const std::string& name, const std::vector<std::string>& candidates);
// The case of that name, or UsageError with the nearest name as a hint.
const Case& find_case(const Registry& registry, const std::string& name);

// The classname of a command's JUnit testcases: "<program>.<command>" ("vitals.run",
// "my_bench.compare"), with the dots of the program's file name as '_', since JUnit
// readers split classnames into packages at dots.
std::string junit_classname(const CommandContext& context, const std::string& command);

// read_results_file, with a bad file reported as a UsageError; a file marked incomplete
// adds a line to `warnings`.
ResultsFile read_results_file_or_usage_error(const std::string& path, std::vector<std::string>& warnings);

}  // namespace vitals::cli
