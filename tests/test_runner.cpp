// The runner inside a user's own benchmark program (tests/fixture_bench.cpp).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <filesystem>
#include <map>
#include <set>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "vitals/case.hpp"

namespace fs = std::filesystem;

namespace {
struct CommandResult {
    int exit_code;
    std::string out, err;
};

CommandResult run(const std::string& program, const std::string& args) {
    const fs::path dir = fs::temp_directory_path() / ("vitals-runner-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const std::string command = std::string(VITALS_BINARY_DIR) + "/tests/" + program + " " + args + " >" +
                                (dir / "out").string() + " 2>" + (dir / "err").string();
    const int status = std::system(command.c_str());
    const auto slurp = [](const fs::path& p) {
        std::ifstream in(p);
        std::ostringstream s;
        s << in.rdbuf();
        return s.str();
    };
    CommandResult r{WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(dir / "out"), slurp(dir / "err")};
    fs::remove_all(dir);
    return r;
}
}  // namespace

TEST(Runner, ListsEveryRegisteredCaseInOrder) {
    const CommandResult r = run("vitals_fixture_bench", "list");
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_EQ(r.out, "fixture/sqrt\nfixture/throws\nfixture/needs-gpu\nfixture/family/1\nfixture/family/2\n");
}

// `vitals profile` runs a case the way `timeit` does: with the case's num_threads
// (it once ran a one-thread case on every OpenMP thread).
TEST(Runner, ProfileRunsTheCaseWithItsThreadCount) {
    for (const int threads : {1, 2}) {
        const CommandResult r = run("vitals_threads_bench", "profile threads/" + std::to_string(threads) + " --steps 3");
        ASSERT_EQ(r.exit_code, 0) << r.err;
        const std::string seen = "omp=" + std::to_string(threads) + " eigen=" + std::to_string(threads);
        EXPECT_NE(r.out.find(seen), std::string::npos) << r.out;
        EXPECT_EQ(r.out.find(threads == 1 ? "omp=2" : "omp=1"), std::string::npos) << r.out;
        EXPECT_NE(r.out.find("relu"), std::string::npos) << r.out;
    }
}

// run --processes N: every case in N fresh processes, one after another; every block
// tagged with its process, the aggregates with the count; failures and skips as in one.
TEST(Runner, ProcessesRunEveryCaseInFreshProcessesAndTagTheBlocks) {
    const fs::path json_path = fs::temp_directory_path() / ("vitals-runner-processes-" + std::to_string(::getpid()) + ".json");
    const CommandResult r = run("vitals_fixture_bench", "run --processes 3 --min-run-time 0.01 --json " + json_path.string());
    EXPECT_EQ(r.exit_code, 1) << r.err;  // fixture/throws fails, in every process
    const auto first = r.err.find("[process 1/3] [5/5]"), second = r.err.find("[process 2/3] [5/5]"),
               third = r.err.find("[process 3/3] [5/5]");
    ASSERT_NE(third, std::string::npos) << r.err;
    EXPECT_LT(first, second);
    EXPECT_LT(second, third);
    EXPECT_NE(r.err.find("vitals: error: process 2 of 3: case 'fixture/throws' failed: the statement broke"), std::string::npos)
        << r.err;
    EXPECT_NE(r.out.find("fixture/needs-gpu: no CUDA device found"), std::string::npos) << r.out;
    std::ifstream in(json_path);
    const nlohmann::json doc = nlohmann::json::parse(in);
    std::map<std::string, std::set<int>> processes;
    std::map<std::string, int> aggregate_processes;
    for (const auto& b : doc.at("benchmarks")) {
        if (b.value("error_occurred", false)) continue;
        if (b.at("run_type") == "iteration") processes[b.at("run_name")].insert(b.at("vitals_process").get<int>());
        if (b.at("run_type") == "aggregate") aggregate_processes[b.at("run_name")] = b.at("vitals_processes");
    }
    for (const char* name : {"fixture/sqrt", "fixture/family/1", "fixture/family/2"}) {
        EXPECT_EQ(processes[name], (std::set<int>{0, 1, 2})) << name;
        EXPECT_EQ(aggregate_processes[name], 3) << name;
    }
    fs::remove(json_path);

    // Under a launcher every worker runs the launcher's shard (here from torchrun's
    // variables), and the rank's results go to the rank's own file.
    const CommandResult sharded =
        run("vitals_fixture_bench", "list >/dev/null && RANK=1 WORLD_SIZE=2 " + std::string(VITALS_BINARY_DIR) +
                                        "/tests/vitals_fixture_bench run --processes 2 --min-run-time 0.01 --json " +
                                        json_path.string());
    const fs::path rank_path = json_path.parent_path() / (json_path.stem().string() + ".rank1.json");
    ASSERT_TRUE(fs::exists(rank_path)) << sharded.err;
    std::ifstream sharded_in(rank_path);
    std::set<std::string> names;
    const nlohmann::json sharded_doc = nlohmann::json::parse(sharded_in);
    for (const auto& b : sharded_doc.at("benchmarks")) names.insert(b.at("run_name"));
    EXPECT_EQ(names, (std::set<std::string>{"fixture/throws", "fixture/family/1"})) << sharded.err;
    EXPECT_NE(sharded.err.find("[process 2/2] [2/2] fixture/family/1"), std::string::npos) << sharded.err;
    fs::remove(rank_path);
}

// The workers of --processes measure as the command line asked: each option as given,
// flags and values alike.
TEST(Runner, ProcessesPassTheMeasurementOptionsToEveryWorker) {
    const fs::path json_path = fs::temp_directory_path() / ("vitals-runner-worker-flags-" + std::to_string(::getpid()) + ".json");
    const CommandResult r = run("vitals_fixture_bench", "run --filter '^fixture/sqrt$' --processes 2 --adaptive --threshold 0.9 "
                                                        "--min-run-time 0.01 --max-run-time 2 --json " + json_path.string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::ifstream in(json_path);
    const nlohmann::json doc = nlohmann::json::parse(in);
    std::set<int> processes;
    for (const auto& b : doc.at("benchmarks")) {
        if (b.at("run_type") == "iteration") processes.insert(b.at("vitals_process").get<int>());
    }
    EXPECT_EQ(processes, (std::set<int>{0, 1}));
    fs::remove(json_path);
    // A value the worker would refuse is refused by the parent first, with the parent's words.
    const CommandResult bad = run("vitals_fixture_bench", "run --processes 2 --max-run-time 2");
    EXPECT_EQ(bad.exit_code, 2);
    EXPECT_NE(bad.err.find("--max-run-time goes with --adaptive or --precision"), std::string::npos) << bad.err;
}

// Failed and skipped cases are listed as such by compare and report, not as removed;
// an interrupted run's file is warned about, and merge keeps its mark.
TEST(Runner, CompareListsFailedCasesAndWarnsAboutIncompleteFiles) {
    const fs::path dir = fs::temp_directory_path() / ("vitals-runner-failed-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const std::string a = (dir / "a.json").string(), b = (dir / "b.json").string();
    run("vitals_fixture_bench", "run --min-run-time 0.01 --json " + a);
    run("vitals_fixture_bench", "run --min-run-time 0.01 --json " + b);
    const CommandResult compared = run("../bin/vitals", "compare " + a + " " + b);
    ASSERT_EQ(compared.exit_code, 0) << compared.err;
    EXPECT_NE(compared.out.find("not compared: fixture/throws (before, failed: case 'fixture/throws' failed: the statement "
                                "broke; after, failed:"),
              std::string::npos)
        << compared.out;
    EXPECT_NE(compared.out.find("not compared: fixture/needs-gpu (before, skipped: no CUDA device found"), std::string::npos)
        << compared.out;
    EXPECT_EQ(compared.out.find("removed"), std::string::npos) << compared.out;

    // Mark b as an interrupted run's file, as an interrupted run writes it.
    nlohmann::json doc;
    {
        std::ifstream in(b);
        doc = nlohmann::json::parse(in);
    }
    doc["context"]["vitals_incomplete"] = true;
    doc["context"]["vitals_cases_planned"] = 9;
    std::ofstream(b) << doc.dump(2);
    const CommandResult warned = run("../bin/vitals", "compare " + a + " " + b);
    EXPECT_NE(warned.out.find("warning: '" + b + "' is marked incomplete: its run was interrupted or lost a process (3 cases measured of 9 planned)"),
              std::string::npos)
        << warned.out;
    const CommandResult reported = run("../bin/vitals", "report " + a + " " + b + " --markdown " + (dir / "r.md").string());
    EXPECT_NE(reported.err.find("is marked incomplete"), std::string::npos) << reported.err;
    // merge joins shards; an interrupted one leaves the joined file marked.
    std::ofstream(dir / "other.json") << R"({"benchmarks": [{"name": "x", "run_type": "iteration", "real_time": 1}]})";
    ASSERT_EQ(run("../bin/vitals", "merge " + b + " " + (dir / "other.json").string() + " -o " + (dir / "all.json").string())
                  .exit_code,
              0);
    std::ifstream merged_in(dir / "all.json");
    const nlohmann::json merged = nlohmann::json::parse(merged_in);
    EXPECT_EQ(merged.at("context").at("vitals_incomplete"), true);
    EXPECT_EQ(merged.at("context").at("vitals_incomplete_inputs"), nlohmann::json::array({b}));
    fs::remove_all(dir);
}

TEST(Runner, AThrowingCaseFailsTheRunButNotTheOtherCases) {
    const fs::path json_path = fs::temp_directory_path() / ("vitals-runner-" + std::to_string(::getpid()) + ".json");
    const CommandResult r = run("vitals_fixture_bench", "run --min-run-time 0.01 --json " + json_path.string());
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("vitals: error: case 'fixture/throws' failed: the statement broke"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("skipped: no CUDA device found"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("[5/5] fixture/family/2"), std::string::npos) << r.err;
    EXPECT_NE(r.out.find("family 2"), std::string::npos) << r.out;  // later cases still ran
    EXPECT_NE(r.out.find("fixture/needs-gpu: no CUDA device found"), std::string::npos) << r.out;
    // The JSON has every case: measured, skipped and failed.
    std::ifstream in(json_path);
    const auto doc = nlohmann::json::parse(in);
    std::map<std::string, std::string> status;
    for (const auto& b : doc.at("benchmarks")) {
        status[b.at("run_name").get<std::string>()] = b.value("vitals_status", "measured");
    }
    EXPECT_EQ(status.size(), 5u);
    EXPECT_EQ(status.at("fixture/throws"), "failed");
    EXPECT_EQ(status.at("fixture/needs-gpu"), "skipped");
    EXPECT_EQ(status.at("fixture/sqrt"), "measured");
    fs::remove(json_path);
}

TEST(Runner, TimeitOfASkippedCaseSaysWhy) {
    const CommandResult r = run("vitals_fixture_bench", "timeit fixture/needs-gpu");
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_EQ(r.out, "fixture/needs-gpu: skipped: no CUDA device found\n");
}

TEST(Runner, TimeitOfAThrowingCaseExitsOne) {
    const CommandResult r = run("vitals_fixture_bench", "timeit fixture/throws --min-run-time 0.01");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.err, "vitals: error: case 'fixture/throws' failed: the statement broke\n");
}

TEST(Runner, BadCaseNamesAreRefusedBeforeAnyCommand) {
    const CommandResult r = run("vitals_bad_names_bench", "list");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("vitals: error: case name 'has a space' contains white space"), std::string::npos) << r.err;
}

// A control character in a name would reach terminals and ctest's lists as it is.
TEST(Runner, ControlCharactersInCaseNamesAreRefused) {
    for (const std::string& name : {std::string("esc\x1b[2Jape"), std::string("semi\x01colon"), std::string("del\x7f")}) {
        vitals::Registry registry;
        registry.add(vitals::Case{name, [] { return vitals::Timer({.stmt = [] {}}); }});
        EXPECT_TRUE(registry.cases().empty()) << name;
        ASSERT_EQ(registry.problems().size(), 1u) << name;
        EXPECT_NE(registry.problems()[0].find("contains a control character"), std::string::npos) << registry.problems()[0];
    }
}

// A family over axes: one case per combination (the first axis slowest), named by its
// name_of or "<family>/<axis>=<value>/..."; --axis values replace an axis's values.
TEST(CaseFamilies, ExpandReplaceAndRefuse) {
    vitals::Registry registry;
    int made = 0;
    registry.add(vitals::Case{"plain/1", [] { return vitals::Timer({.stmt = [] {}}); }});
    registry.add(vitals::CaseFamily{
        .name = "op",
        .axes = {{"n", {"1K", "2"}}, {"kind", {"a", "b"}}},
        .make_timer =
            [&made](const vitals::AxisValues& at) {
                ++made;
                EXPECT_GE(at.integer("n"), 2);
                return vitals::Timer({.stmt = [] {}, .label = at["kind"]});
            },
    });
    std::vector<std::string> names;
    for (const vitals::Case& c : registry.cases()) names.push_back(c.name);
    EXPECT_EQ(names, (std::vector<std::string>{"plain/1", "op/n=1K/kind=a", "op/n=1K/kind=b", "op/n=2/kind=a", "op/n=2/kind=b"}));
    EXPECT_EQ(made, 0) << "listing makes no Timer";
    EXPECT_EQ(registry.find("op/n=1K/kind=b")->axes.integer("n"), 1024);
    (void)registry.find("op/n=2/kind=a")->make_timer();  // the factory runs on demand
    EXPECT_EQ(made, 1);

    const vitals::Registry replaced = registry.with_axes({{"n", {"8", "16", "32"}}});
    names.clear();
    for (const vitals::Case& c : replaced.cases()) names.push_back(c.name);
    ASSERT_EQ(names.size(), 1u + 3 * 2);
    EXPECT_EQ(names[0], "plain/1");
    EXPECT_EQ(names[1], "op/n=8/kind=a");
    EXPECT_EQ(names[6], "op/n=32/kind=b");
    EXPECT_EQ(replaced.families().at(0).axes.at(0).values.size(), 3u);

    try {
        (void)registry.with_axes({{"size", {"1"}}});
        FAIL() << "an unknown axis was accepted";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("no case family has an axis 'size'; the axes are: n (op), kind (op)"), std::string::npos)
            << e.what();
    }
    EXPECT_THROW((void)registry.with_axes({{"n", {"big"}}}), std::invalid_argument);  // n is numeric
    EXPECT_NO_THROW((void)registry.with_axes({{"kind", {"c"}}}));                      // kind takes any text

    vitals::Registry bad;
    bad.add(vitals::CaseFamily{.name = "x", .axes = {{"n", {}}}, .make_timer = [](const vitals::AxisValues&) { return vitals::Timer({.stmt = [] {}}); }});
    ASSERT_EQ(bad.problems().size(), 1u);
    EXPECT_NE(bad.problems()[0].find("axis 'n' of case family 'x' has no values"), std::string::npos);
    EXPECT_EQ(vitals::parse_axis_integer("4M"), std::int64_t{4} << 20);
    EXPECT_EQ(vitals::parse_axis_integer("-1"), std::nullopt);
    EXPECT_EQ(vitals::parse_axis_integer("1.5"), std::nullopt);
    EXPECT_EQ(vitals::parse_axis_integer("99999999999G"), std::nullopt);  // overflows
}

// The kernel set's matmul and nonzero are families: --axis makes new sizes, and a
// numeric axis with 3 or more sizes gets its growth fitted after the run.
TEST(CaseFamilies, RunWithAxesFitsTheGrowth) {
    const CommandResult list = run("../bin/vitals", "list --filter 'matmul/.*cpu-f32' --axis n=16,32,64");
    ASSERT_EQ(list.exit_code, 0) << list.err;
    EXPECT_EQ(list.out, "matmul/16x16/cpu-f32\nmatmul/32x32/cpu-f32\nmatmul/64x64/cpu-f32\n");
    const CommandResult r = run("../bin/vitals", "run --filter 'matmul/.*cpu-f32' --axis n=16,32,64 --min-run-time 0.02");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(std::regex_search(r.out, std::regex("matmul over n \\(device=cpu, dtype=f32\\): O\\(n[^)]*\\), RMS [0-9.]+%; "
                                                    "log-log fit: n\\^[0-9.]+")))
        << r.out;
    const CommandResult unknown = run("../bin/vitals", "run --axis size=1");
    EXPECT_EQ(unknown.exit_code, 2);
    EXPECT_NE(unknown.err.find("no case family has an axis 'size'"), std::string::npos) << unknown.err;
    const CommandResult timeit = run("../bin/vitals", "timeit matmul/48x48/cpu-f64 --axis n=48 --min-run-time 0.01");
    EXPECT_EQ(timeit.exit_code, 0) << timeit.err;
}

// Cases whose Timers have no label are told apart by their names: neither hides the other.
TEST(Runner, UnlabeledCasesAreNeverMergedInTheTables) {
    const CommandResult r = run("vitals_unlabeled_bench", "run --min-run-time 0.02");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("spin/short"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("spin/long"), std::string::npos) << r.out;
    // The long case's row shows about 100 us, the short one's about 20 us.
    const std::regex long_row("spin/long\\s*\\|\\s*([0-9.]+)");
    std::smatch m;
    ASSERT_TRUE(std::regex_search(r.out, m, long_row)) << r.out;
}

// A case that names its own counters (TimerOptions::counters) keeps them unless --counters
// is given; a case that names none reads all that the kernel allows.
TEST(Runner, ACaseKeepsItsOwnCountersUnlessTheFlagChooses) {
    const fs::path json = fs::temp_directory_path() / ("vitals-own-counters-" + std::to_string(::getpid()) + ".json");
    using Names = std::set<std::string>;
    const auto counters_of = [&](const std::string& flags) {
        const CommandResult r = run("vitals_own_counters_bench", "run --min-run-time 0.01 --json " + json.string() + flags);
        EXPECT_EQ(r.exit_code, 0) << r.err;
        std::map<std::string, Names> out;  // case -> its counters, read or refused
        std::ifstream in(json);
        const nlohmann::json doc = nlohmann::json::parse(in);
        for (const nlohmann::json& b : doc.at("benchmarks")) {
            if (b.value("aggregate_name", "") != "median") continue;
            Names& names = out[b.at("run_name").get<std::string>()];
            const nlohmann::json read = b.value("vitals_counters_per_call", nlohmann::json::object());
            const nlohmann::json refused = b.value("vitals_counters_unavailable", nlohmann::json::array());
            for (const auto& [name, value] : read.items()) names.insert(name);
            for (const nlohmann::json& why : refused) {
                names.insert(why.get<std::string>().substr(0, why.get<std::string>().find(':')));
            }
        }
        return out;
    };
    std::map<std::string, Names> got = counters_of("");
    EXPECT_EQ(got["counted/sqrt"], Names({"page-faults"}));
    EXPECT_EQ(got["plain/sqrt"], Names({"task-clock", "context-switches", "cpu-migrations", "page-faults", "cycles", "instructions",
                                        "branches", "branch-misses", "cache-references", "cache-misses"}));
    got = counters_of(" --counters task-clock");
    EXPECT_EQ(got["counted/sqrt"], Names({"task-clock"}));
    EXPECT_EQ(got["plain/sqrt"], Names({"task-clock"}));
    got = counters_of(" --counters none");
    EXPECT_EQ(got["counted/sqrt"], Names());
    EXPECT_EQ(got["plain/sqrt"], Names());
    fs::remove(json);
}

// A family whose factory throws SkipCase is a skipped family, not an abort before main.
TEST(Runner, AFamilyThatCannotRunHereIsSkippedNotFatal) {
    const CommandResult list = run("vitals_skipped_family_bench", "list");
    ASSERT_EQ(list.exit_code, 0) << list.err;
    const std::string odd_names = R"(plain/a.b+c(1)[2]{3}|d^e$f?g*h\i;j"k)" "\nplain/open[1\nplain/close]2";
    EXPECT_EQ(list.out, "plain/1\n" + odd_names + "\nneeds_widget/1  skipped: no widget here\n");
    EXPECT_EQ(run("vitals_skipped_family_bench", "list --names").out, "plain/1\n" + odd_names + "\nneeds_widget/1\n");
    EXPECT_NE(list.err.find("a case family was skipped (its cases are not listed): no accelerator"), std::string::npos) << list.err;
    EXPECT_NE(list.err.find("a case family was skipped (its cases are not listed): no accelerator for the axes family"),
              std::string::npos)
        << "a VITALS_CASE_FAMILY that throws SkipCase is skipped too: " << list.err;
    const CommandResult r = run("vitals_skipped_family_bench", "run --min-run-time 0.01");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("a case family was skipped: no accelerator"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("no widget here"), std::string::npos) << r.out;
}

// run --dry-run: every selected case called once, a line each, exit 1 only for a failure.
TEST(Runner, DryRunCallsEveryCaseOnceAndSaysHowItWent) {
    CommandResult r = run("vitals_fixture_bench", "run --dry-run");
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(^ok       fixture/sqrt \([0-9.]+ [mun]?s for one call\)\n)")))
        << r.out;
    EXPECT_NE(r.out.find("\nfailed   fixture/throws: the statement broke\n"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\nskipped  fixture/needs-gpu: no CUDA device found\n"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\nok       fixture/family/2 ("), std::string::npos) << r.out;
    EXPECT_TRUE(r.out.ends_with("\ndry run: 5 cases, 3 ok, 1 skipped, 1 failed\n")) << r.out;
    EXPECT_NE(r.err.find("vitals: error: 1 of 5 cases failed in the dry run"), std::string::npos) << r.err;

    // Skipped cases do not fail it; the selection flags hold.
    r = run("vitals_fixture_bench", "run --dry-run --filter '^fixture/(sqrt|needs-gpu)$'");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(r.out.ends_with("\ndry run: 2 cases, 1 ok, 1 skipped, 0 failed\n")) << r.out;
    r = run("vitals_fixture_bench", "run --dry-run --shard 0/2");
    EXPECT_TRUE(r.out.ends_with("\ndry run: 3 cases, 2 ok, 1 skipped, 0 failed\n")) << r.out;
    // What ctest's SKIP_REGULAR_EXPRESSION (cmake/vitalsDiscoverCases.cmake) looks for.
    r = run("vitals_fixture_bench", "run --dry-run --filter '^fixture/needs-gpu$'");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "skipped  fixture/needs-gpu: no CUDA device found\ndry run: 1 case, 0 ok, 1 skipped, 0 failed\n");
    r = run("vitals_skipped_family_bench", "run --dry-run --filter '^needs_widget/1$'");
    EXPECT_EQ(r.out, "skipped  needs_widget/1: no widget here\ndry run: 1 case, 0 ok, 1 skipped, 0 failed\n");
}

TEST(Runner, DryRunRefusesWhatItCannotDo) {
    for (const char* args : {"run --dry-run --json out.json", "run --dry-run --min-run-time 0.1", "run --dry-run --processes 2",
                             "run --dry-run --baseline base.json", "run --dry-run --adaptive"}) {
        SCOPED_TRACE(args);
        const CommandResult r = run("vitals_fixture_bench", args);
        EXPECT_EQ(r.exit_code, 2) << r.err;
        EXPECT_NE(r.err.find("vitals: error: "), std::string::npos) << r.err;
        EXPECT_NE(r.err.find("--dry-run"), std::string::npos) << r.err;
        EXPECT_EQ(r.out, "");
    }
    const CommandResult both = run("vitals_fixture_bench", "run --dry-run --json - --junit -");
    EXPECT_EQ(both.exit_code, 2) << both.err;
    const CommandResult same = run("vitals_fixture_bench", "run --json /tmp/vitals-same-out --junit /tmp/vitals-same-out");
    EXPECT_EQ(same.exit_code, 2) << same.err;
    EXPECT_NE(same.err.find("--json and --junit both write"), std::string::npos) << same.err;
}

// Google Benchmark's habits: its flags run the program as `run` with their vitals
// equivalents; one without an equivalent is refused with what to use instead.
TEST(Runner, GoogleBenchmarkFlagsRunAsTheirVitalsEquivalents) {
    const fs::path out = fs::temp_directory_path() / ("vitals-gbench-flags-" + std::to_string(::getpid()) + ".json");
    const CommandResult ran = run("vitals_fixture_bench", "--benchmark_filter='^fixture/(sqrt|family/1)$' --benchmark_min_time=0.01s "
                                                          "--benchmark_out=" + out.string() +
                                                          " --benchmark_out_format=json --benchmark_time_unit=us");
    ASSERT_EQ(ran.exit_code, 0) << ran.err;
    nlohmann::json doc;
    {
        std::ifstream in(out);
        doc = nlohmann::json::parse(in);
    }
    fs::remove(out);
    std::set<std::string> names;
    for (const nlohmann::json& b : doc.at("benchmarks")) {
        names.insert(b.at("run_name").get<std::string>());
        EXPECT_EQ(b.at("time_unit"), "us");
    }
    EXPECT_EQ(names, (std::set<std::string>{"fixture/sqrt", "fixture/family/1"}));

    const CommandResult listed = run("vitals_fixture_bench", "--benchmark_list_tests=true --benchmark_filter=family");
    EXPECT_EQ(listed.exit_code, 0) << listed.err;
    EXPECT_EQ(listed.out, "fixture/family/1\nfixture/family/2\n");

    // Repetitions run as processes: each one a fresh process, counted in the results.
    const CommandResult repeated = run("vitals_fixture_bench", "--benchmark_filter='^fixture/sqrt$' --benchmark_repetitions=2 "
                                                               "--benchmark_min_time=0.01 --benchmark_format=json");
    ASSERT_EQ(repeated.exit_code, 0) << repeated.err;
    const nlohmann::json repeated_doc = nlohmann::json::parse(repeated.out);
    std::set<long> processes;
    for (const nlohmann::json& b : repeated_doc.at("benchmarks")) {
        if (b.value("run_type", "") == "iteration") processes.insert(b.at("vitals_process").get<long>());
    }
    EXPECT_EQ(processes.size(), 2u) << repeated.out;
    // Without a results file, the flags that shape one change nothing (as vitals' own would
    // be refused without --json).
    const CommandResult console = run("vitals_fixture_bench", "--benchmark_filter='^fixture/sqrt$' --benchmark_min_time=0.01s "
                                                              "--benchmark_time_unit=us --benchmark_report_aggregates_only=true");
    EXPECT_EQ(console.exit_code, 0) << console.err;
    EXPECT_NE(console.out.find("sqrt"), std::string::npos) << console.out;
    const CommandResult no_repetitions = run("vitals_fixture_bench", "--benchmark_repetitions=0");
    EXPECT_EQ(no_repetitions.exit_code, 2);
    EXPECT_NE(no_repetitions.err.find("--benchmark_repetitions=0: give a count of at least 1"), std::string::npos)
        << no_repetitions.err;
    const CommandResult negated = run("vitals_fixture_bench", "run --benchmark_filter=-sqrt");
    EXPECT_EQ(negated.exit_code, 2);
    EXPECT_NE(negated.err.find("no negation"), std::string::npos) << negated.err;
    const CommandResult iterations = run("vitals_fixture_bench", "--benchmark_min_time=100x");
    EXPECT_EQ(iterations.exit_code, 2);
    EXPECT_NE(iterations.err.find("not a count of iterations"), std::string::npos) << iterations.err;
}

// A program's help calls it by its own name, lists the sort keys, and states ranges as a
// reader would write them.
TEST(Runner, HelpSpeaksOfTheProgramByItsName) {
    const CommandResult help = run("vitals_fixture_bench", "--help");
    EXPECT_EQ(help.exit_code, 0);
    EXPECT_NE(help.out.find("Usage: vitals_fixture_bench [OPTIONS] SUBCOMMAND"), std::string::npos) << help.out;
    const CommandResult wrong = run("vitals_fixture_bench", "frobnicate");
    EXPECT_NE(wrong.err.find("(see 'vitals_fixture_bench --help')"), std::string::npos) << wrong.err;
    const CommandResult profile = run("vitals_fixture_bench", "profile --help");
    EXPECT_NE(profile.out.find("cpu_time_total, "), std::string::npos) << profile.out;  // the --sort-by keys
    EXPECT_NE(profile.out.find("--steps INT:>= 1"), std::string::npos) << profile.out;
    EXPECT_EQ(profile.out.find("1099511627776"), std::string::npos) << profile.out;
}

// doctor checks the machine it runs on: a line per check, the JSON parsed back.
TEST(Runner, DoctorPrintsEveryCheckAndItsJson) {
    const fs::path out = fs::temp_directory_path() / ("vitals-doctor-" + std::to_string(::getpid()) + ".json");
    const CommandResult r = run("vitals_fixture_bench", "doctor --sample 0.05 --json " + out.string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    for (const char* check : {"CPU governor: ", "SMT siblings: ", "isolated CPUs: ", "load: ", "busy processes: "}) {
        EXPECT_NE(r.out.find(check), std::string::npos) << check << "\n" << r.out;
    }
    nlohmann::json findings;
    {
        std::ifstream in(out);
        findings = nlohmann::json::parse(in);
    }
    fs::remove(out);
    ASSERT_TRUE(findings.is_array());
    for (const nlohmann::json& f : findings) {
        const std::string verdict = f.at("verdict");
        EXPECT_TRUE(verdict == "ok" || verdict == "note" || verdict == "warn") << f;
        const std::string line = verdict + std::string(6 - verdict.size(), ' ') + f.at("what").get<std::string>() + ": ";
        EXPECT_NE(r.out.find(line), std::string::npos) << line << "\n" << r.out;
    }
    EXPECT_EQ(run("vitals_fixture_bench", "doctor --sample -1").exit_code, 2);
}
