// The runner inside a user's own benchmark program (tests/fixture_bench.cpp).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <filesystem>
#include <map>
#include <set>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

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
    const auto first = r.err.find("process 1/3: 5 cases"), second = r.err.find("process 2/3: 5 cases"),
               third = r.err.find("process 3/3: 5 cases");
    ASSERT_NE(third, std::string::npos) << r.err;
    EXPECT_LT(first, second);
    EXPECT_LT(second, third);
    EXPECT_NE(r.err.find("vitals: error: case 'fixture/throws' failed: the statement broke"), std::string::npos) << r.err;
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
    EXPECT_NE(sharded.err.find("process 2/2: 2 cases"), std::string::npos) << sharded.err;
    fs::remove(rank_path);
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
    EXPECT_NE(warned.out.find("warning: '" + b + "' is marked incomplete: its run was interrupted (3 cases measured of 9 planned)"),
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
