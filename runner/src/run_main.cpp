// The `vitals` command line: the table of commands, parsing, and the one place that maps
// what a command throws to its exit code. Usage errors exit 2, runtime failures exit 1,
// a verdict named by --fail-on exits 3, each with one "vitals: error: ..." line on stderr that says what is wrong and how to
// fix it; a run that a stop signal ended exits 128 + the signal.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <csignal>
#include <filesystem>
#include <cerrno>
#include <fcntl.h>
#include <locale.h>
#include <string>
#include <string_view>
#include <unistd.h>

#include "command.hpp"
#include "google_benchmark_flags.hpp"
#include "vitals/runner.hpp"
#include "vitals/version.hpp"

namespace vitals {
namespace cli {

const std::vector<CommandEntry>& command_table() {
    static const std::vector<CommandEntry> table = {
        {"list", "List the case names, one a line, marking those that cannot run here", &make_list_command},
        {"timeit", "Time one case and print its Measurement", &make_timeit_command},
        {"run", "Time every matching case and print Compare tables", &make_run_command},
        {"compare", "Compare two results files case by case with a significance test, or two traces operator by operator",
         &make_compare_command},
        {"ab", "Compare two cases or more measured interleaved, round by round, each against the first", &make_ab_command},
        {"report", "Draw results files: an HTML page of box plots, or markdown", &make_report_command},
        {"merge", "Join results files (e.g. shards) into one", &make_merge_command},
        {"history", "Keep runs in a database (SQLite or PostgreSQL) and follow cases across commits: add, show, detect, "
                    "check, report, export",
         &make_history_command},
        {"profile", "Run a case's statement step by step under the profiler; print tables", &make_profile_command},
        {"machine", "Measure this machine's bandwidth per cache level and peak FLOP/s (cached)", &make_machine_command},
        {"doctor", "Check what on this machine would disturb measurements, and how to fix it", &make_doctor_command},
    };
    return table;
}

namespace {

// The commands' names from the table: "list, timeit, ..., profile", with `last` before
// the final one.
std::string command_names(const char* last = ", ") {
    std::string out;
    const auto& table = command_table();
    for (std::size_t i = 0; i < table.size(); ++i) {
        out += i == 0 ? "" : (i + 1 == table.size() ? last : ", ");
        out += table[i].name;
    }
    return out;
}

// The name the program was started by, as its help should call it ("vitals" when unknown).
std::string program_name(const char* argv0) {
    const std::string name = argv0 == nullptr ? "" : std::filesystem::path(argv0).filename().string();
    return name.empty() ? "vitals" : name;
}

// `vitals 0.1.0` for the vitals command; `my_bench (vitals 0.1.0)` for a program of
// one's own built with VITALS_MAIN, named as it was run.
std::string version_line(const char* argv0) {
    const std::string name = program_name(argv0);
    if (name == "vitals") return fmt::format("vitals {}", VITALS_VERSION_STRING);
    return fmt::format("{} (vitals {})", name, VITALS_VERSION_STRING);
}

void check_first_argument(int argc, char** argv) {
    const std::string first = argc >= 2 ? argv[1] : "";
    if (first.empty()) return;
    if (first[0] == '-' && first != "-h" && first != "--help" && first != "--help-all" && first != "--version") {
        throw UsageError(fmt::format("unknown option '{}' before the command; the commands are {} (see '{} --help')",
                                     first, command_names(), program_name(argv[0])));
    }
    const auto& table = command_table();
    if (first[0] != '-' &&
        std::none_of(table.begin(), table.end(), [&](const CommandEntry& e) { return first == e.name; })) {
        throw UsageError(fmt::format("unknown command '{}'; the commands are {} (see '{} --help')", first,
                                     command_names(), program_name(argv[0])));
    }
}

// Parses argv into `app`; help goes to stdout (returns true: done), errors become UsageError.
bool parse(CLI::App& app, int argc, char** argv) {
    const auto chosen = [&]() -> const CLI::App* {
        const CLI::App* target = &app;
        for (const CLI::App* sub : app.get_subcommands()) target = sub;
        return target;
    };
    // Numbers on the command line are read the same under every locale: CLI11 converts
    // option values with strtold, which follows the program's locale (a program that
    // called setlocale(LC_ALL, "") under de_DE would refuse 0.5 and take 0,5).
    struct ClassicLocale {
        locale_t classic = ::newlocale(LC_ALL_MASK, "C", nullptr);
        locale_t previous = classic != nullptr ? ::uselocale(classic) : nullptr;
        ~ClassicLocale() {
            if (classic == nullptr) return;
            ::uselocale(previous);
            ::freelocale(classic);
        }
    } classic_locale;
    try {
        app.parse(argc, argv);
        return false;
    } catch (const CLI::CallForHelp&) {
        fmt::print("{}", chosen()->help());
        return true;
    } catch (const CLI::CallForAllHelp&) {
        fmt::print("{}", app.help("", CLI::AppFormatMode::All));
        return true;
    } catch (const CLI::CallForVersion& e) {
        fmt::print("{}\n", e.what());
        return true;
    } catch (const CLI::ParseError& e) {
        const CLI::App* target = chosen();
        const std::string help = target == &app ? fmt::format("{} --help", app.get_name())
                                                : fmt::format("{} {} --help", app.get_name(), target->get_name());
        std::string message = e.what();
        if (message.empty() || (e.get_name() == "RequiredError" && target == &app)) {
            message = "give a command: " + command_names(" or ");
        }
        throw UsageError(fmt::format("{}; see '{}'", message, help));
    }
}

}  // namespace
}  // namespace cli

int run_main(int argc, char** argv, const Registry& registry) {
    using namespace cli;
    // A write past the file-size limit fails with EFBIG and is reported like any failed
    // write (the old file stays), instead of SIGXFSZ killing the process.
    std::signal(SIGXFSZ, SIG_IGN);
    // A closed pipe on standard output (`| head`) ends the printing with an error that is
    // reported once the files are safe, instead of SIGPIPE ending the run.
    std::signal(SIGPIPE, SIG_IGN);
    // A standard descriptor closed by the caller (`2>&-`) becomes /dev/null: messages are
    // lost rather than fatal, and no file opened later takes its number.
    for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; ++fd) {
        if (::fcntl(fd, F_GETFD) < 0 && errno == EBADF) {
            const int null = ::open("/dev/null", fd == STDIN_FILENO ? O_RDONLY : O_WRONLY);
            if (null >= 0 && null != fd) {
                ::dup2(null, fd);
                ::close(null);
            }
        }
    }
    // A VITALS_MAIN program is called by its own name in its help.
    const std::string program = program_name(argc > 0 ? argv[0] : nullptr);
    CLI::App app{fmt::format("{}: time C++ statements the way torch.utils.benchmark.Timer does{}", program,
                             program == "vitals" ? "" : " (a vitals program)"),
                 program};
    app.require_subcommand(1);
    app.set_help_all_flag("--help-all", "Print help for every command and exit");
    app.set_version_flag("--version", version_line(argc > 0 ? argv[0] : nullptr), "Print the version and exit");
    app.fallthrough(false);
    app.footer("Exit status: 0 success; 1 a case, a file or the run failed; 2 bad flags, names or input files; 3 a "
               "case got a verdict named by --fail-on (compare, ab, run --baseline, report); 128+N stopped by signal N, "
               "after the results were written. Google Benchmark's --benchmark_filter, _out, _out_format, _format, _min_time, "
               "_repetitions (as --processes), _time_unit, _report_aggregates_only and _list_tests run as run with their "
               "vitals equivalents (docs/from-google-benchmark.md).");
    std::vector<std::pair<CLI::App*, std::unique_ptr<Command>>> commands;
    for (const CommandEntry& entry : command_table()) {
        std::unique_ptr<Command> command = entry.make();
        CLI::App* sub = app.add_subcommand(entry.name, entry.description);
        command->declare(*sub);
        commands.emplace_back(sub, std::move(command));
    }
    try {
        for (const std::string& problem : registry.problems()) throw UsageError(problem);
        // Google Benchmark's flags, as its users type them, become vitals' own.
        std::vector<std::string> args = translate_google_benchmark_flags({argv, argv + argc});
        std::vector<char*> translated;
        for (std::string& arg : args) translated.push_back(arg.data());
        translated.push_back(nullptr);
        argc = static_cast<int>(args.size());
        argv = translated.data();
        const CommandContext context{registry, argc > 0 ? argv[0] : "vitals", {argv, argv + argc}};
        check_first_argument(argc, argv);
        if (parse(app, argc, argv)) return 0;
        for (auto& [sub, command] : commands) {
            if (!sub->parsed()) continue;
            command->run(context);
            return 0;
        }
        throw UsageError(fmt::format("give a command; see '{} --help'", program));
    } catch (const UsageError& e) {
        print_error(e.what());
        return kExitUsage;
    } catch (const Failed&) {
        return kExitFailure;
    } catch (const VerdictFailed&) {
        return kExitVerdict;
    } catch (const StoppedBySignal& e) {
        return 128 + e.signal;
    } catch (const std::exception& e) {
        print_error(e.what());
        return kExitFailure;
    }
}

}  // namespace vitals
