// What `vitals run` keeps when a case or a pipe misbehaves (tests/misbehaving_bench.cpp):
// workers that exit, crash, hang or fail in one process only, stop signals, a closed or
// full standard output, a closed standard error, a case that changes folder.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& p) {
    std::ifstream in(p);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

class Workers : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() / ("vitals-workers-" + std::to_string(::getpid()) + "-" +
                                            ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(dir_);
        fs::create_directories(dir_ / "counts");
        fs::create_directories(dir_ / "tmp");
        // A copy of its own, so that looking for processes left behind sees this test's alone.
        fs::copy_file(fs::path(VITALS_BINARY_DIR) / "tests/vitals_misbehaving_bench", dir_ / "misbehaving_bench");
    }
    void TearDown() override { fs::remove_all(dir_); }

    // Runs a shell command line in which $BENCH is the misbehaving program; returns its
    // exit status (-1 when a signal ended the shell) and what it printed.
    struct Result {
        int exit_code;
        std::string out, err;
    };
    Result sh(const std::string& line, const std::string& environment = "") {
        const std::string script = "BENCH=" + (dir_ / "misbehaving_bench").string() + "; " +
                                   "export MISBEHAVE_COUNTS=" + (dir_ / "counts").string() + " TMPDIR=" +
                                   (dir_ / "tmp").string() + " " + environment + "; " + line;
        std::ofstream(dir_ / "script.sh") << script << "\n";
        const std::string command = "bash " + (dir_ / "script.sh").string() + " >" + (dir_ / "out").string() + " 2>" +
                                    (dir_ / "err").string() + " </dev/null";
        const int status = std::system(command.c_str());
        return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(dir_ / "out"), slurp(dir_ / "err")};
    }

    // Per case of a results file: the processes with blocks, and the failed processes.
    struct Processes {
        std::set<int> measured, failed;
        std::vector<std::string> why;
    };
    std::map<std::string, Processes> processes_of(const nlohmann::json& doc) {
        std::map<std::string, Processes> out;
        for (const auto& b : doc.at("benchmarks")) {
            if (b.at("run_type") != "iteration") continue;
            Processes& p = out[b.at("run_name").get<std::string>()];
            const int process = b.value("vitals_process", 0);
            if (b.value("error_occurred", false)) {
                p.failed.insert(process);
                p.why.push_back(b.at("error_message").get<std::string>());
            } else {
                p.measured.insert(process);
            }
        }
        return out;
    }

    std::string json() const { return (dir_ / "r.json").string(); }
    fs::path dir_;
};

}  // namespace

// A case that exits, crashes or throws in process 2 of 3 fails there: its other
// processes' blocks are kept, the results say which process and why, the run is marked
// incomplete and exits 1; a case that behaved keeps all three processes.
TEST_F(Workers, AWorkerThatExitsCrashesOrFailsInOneProcessFailsTheCaseThereAlone) {
    const Result r = sh("$BENCH run --filter '^misbehave/(ok|exit|quick-exit|segv|throw)$' --processes 3 "
                        "--min-run-time 0.01 --json " + json(),
                        "MISBEHAVE_AT=2");
    EXPECT_EQ(r.exit_code, 1) << r.err;
    const auto doc = nlohmann::json::parse(slurp(json()));
    EXPECT_EQ(doc.at("context").at("vitals_incomplete"), true);
    auto p = processes_of(doc);
    EXPECT_EQ(p["misbehave/ok"].measured, (std::set<int>{0, 1, 2}));
    EXPECT_TRUE(p["misbehave/ok"].failed.empty());
    for (const char* name : {"misbehave/exit", "misbehave/quick-exit", "misbehave/segv", "misbehave/throw"}) {
        SCOPED_TRACE(name);
        EXPECT_EQ(p[name].measured, (std::set<int>{0, 2}));
        EXPECT_EQ(p[name].failed, (std::set<int>{1}));
    }
    EXPECT_NE(p["misbehave/segv"].why.at(0).find("SIGSEGV"), std::string::npos) << p["misbehave/segv"].why.at(0);
    EXPECT_NE(p["misbehave/quick-exit"].why.at(0).find("exit status 0 without writing its results"), std::string::npos);
    EXPECT_NE(p["misbehave/throw"].why.at(0).find("broke in this process"), std::string::npos);
    EXPECT_NE(r.err.find("misbehave/segv, process 2 of 3: its worker process was ended by SIGSEGV"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("4 of 5 cases failed"), std::string::npos) << r.err;
    // The aggregates say it too, for readers of aggregates alone.
    for (const auto& b : doc.at("benchmarks")) {
        if (b.value("aggregate_name", "") != "median" || b.at("run_name") != "misbehave/segv") continue;
        EXPECT_EQ(b.at("vitals_processes"), 2);
        EXPECT_EQ(b.at("vitals_failed_processes").at(0).at("process"), 1);
    }
    EXPECT_TRUE(fs::is_empty(dir_ / "tmp")) << "a worker's temporary folder was left behind";
    // compare says which process failed, and what it compares.
    const Result compared = sh("cp " + json() + " " + (dir_ / "b.json").string() + "; " + std::string(VITALS_BINARY_DIR) +
                               "/bin/vitals compare " + json() + " " + (dir_ / "b.json").string());
    EXPECT_NE(compared.out.find("case 'misbehave/segv' failed in process 2: its worker process was ended by SIGSEGV"),
              std::string::npos)
        << compared.out << compared.err;
}

// A crash in the last process loses nothing of the first two.
TEST_F(Workers, ACrashInTheLastProcessKeepsTheFirstTwo) {
    const Result r = sh("$BENCH run --filter '^misbehave/(ok|segv)$' --processes 3 --min-run-time 0.01 --json " + json(),
                        "MISBEHAVE_AT=3");
    EXPECT_EQ(r.exit_code, 1) << r.err;
    auto p = processes_of(nlohmann::json::parse(slurp(json())));
    EXPECT_EQ(p["misbehave/ok"].measured, (std::set<int>{0, 1, 2}));
    EXPECT_EQ(p["misbehave/segv"].measured, (std::set<int>{0, 1}));
    EXPECT_EQ(p["misbehave/segv"].failed, (std::set<int>{2}));
}

// A run whose every process failed is an error with every failure in the file, not an
// empty success.
TEST_F(Workers, ARunWhoseEveryProcessFailedIsAnError) {
    const Result r = sh("$BENCH run --filter '^misbehave/(exit|segv)$' --processes 2 --min-run-time 0.01 --json " + json());
    EXPECT_EQ(r.exit_code, 1) << r.err;
    auto p = processes_of(nlohmann::json::parse(slurp(json())));
    EXPECT_TRUE(p["misbehave/exit"].measured.empty());
    EXPECT_EQ(p["misbehave/exit"].failed, (std::set<int>{0, 1}));
    EXPECT_EQ(p["misbehave/segv"].failed, (std::set<int>{0, 1}));
    EXPECT_NE(r.err.find("2 of 2 cases failed"), std::string::npos) << r.err;
}

// ab: an alternative that throws is named, and what was measured is written, marked
// incomplete, its JUnit testcase failed; exit 1.
TEST_F(Workers, AbNamesTheAlternativeThatThrewAndKeepsTheFiles) {
    const std::string junit = (dir_ / "ab.xml").string();
    const Result r = sh("$BENCH ab misbehave/ok misbehave/throw --max-run-time 5 --json " + json() + " --junit " + junit +
                        "; echo status=$?");
    EXPECT_NE(r.out.find("status=1"), std::string::npos) << r.out << r.err;
    EXPECT_NE(r.err.find("vitals: error: 'misbehave/throw' threw: broke in this process"), std::string::npos) << r.err;
    EXPECT_NE(r.out.find("stopped: 'misbehave/throw' threw (broke in this process)"), std::string::npos) << r.out;
    const auto doc = nlohmann::json::parse(slurp(json()));
    EXPECT_EQ(doc.at("context").at("vitals_incomplete"), true);
    EXPECT_EQ(doc.at("vitals_ab").at("stopped_by"), "failed");
    EXPECT_EQ(doc.at("vitals_ab").at("failure").at("alternative"), "misbehave/throw");
    const std::string xml = slurp(junit);
    EXPECT_NE(xml.find("<failure message=\"&#39;misbehave/throw&#39; threw: broke in this process\" type=\"error\">"),
              std::string::npos)
        << xml;
}

// A hung case is stopped at --case-timeout, reported as timed out, and the run goes on to
// the next case; nothing is left running.
TEST_F(Workers, AHungCaseTimesOutAndTheRunGoesOn) {
    // The limit counts from each worker's start: the sound case's workers fit in it under a
    // sanitizer's slowdown too.
    const std::string limit = VITALS_SANITIZED ? "20" : "2";
    const Result r = sh("$BENCH run --filter '^misbehave/(hang|ok)$' --processes 2 --case-timeout " + limit + " --min-run-time 0.01 "
                        "--json " + json() + "; echo status=$?; pgrep -f \"$BENCH\" || echo none-left");
    EXPECT_NE(r.out.find("status=1"), std::string::npos) << r.out << r.err;
    EXPECT_NE(r.out.find("none-left"), std::string::npos) << r.out;
    auto p = processes_of(nlohmann::json::parse(slurp(json())));
    EXPECT_EQ(p["misbehave/hang"].failed, (std::set<int>{0, 1}));
    EXPECT_NE(p["misbehave/hang"].why.at(0).find("timed out"), std::string::npos) << p["misbehave/hang"].why.at(0);
    EXPECT_EQ(p["misbehave/ok"].measured, (std::set<int>{0, 1}));
    EXPECT_TRUE(fs::is_empty(dir_ / "tmp"));
}

// In one process the time limit takes effect at the case's next block.
TEST_F(Workers, InOneProcessTheTimeLimitStopsACaseAtItsNextBlock) {
    const Result r = sh("$BENCH run --filter '^misbehave/ok$' --adaptive --threshold 0.000001 --max-run-time 30 "
                        "--case-timeout 0.3 --json " + json());
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("case 'misbehave/ok' timed out"), std::string::npos) << r.err;
    auto p = processes_of(nlohmann::json::parse(slurp(json())));
    EXPECT_EQ(p["misbehave/ok"].failed.size(), 1u);
}

// The workers run the executable the run started from: replacing the program's file
// during the run (a rebuild) changes nothing.
TEST_F(Workers, ReplacingTheProgramDuringTheRunChangesNothing) {
    const Result r = sh("cp \"$BENCH\" " + (dir_ / "bench").string() + "; printf '#!/bin/sh\\nexit 3\\n' > " +
                        (dir_ / "other").string() + "; chmod +x " + (dir_ / "other").string() + "; " +
                        (dir_ / "bench").string() + " run --filter '^misbehave/ok$' --processes 3 --min-run-time 0.3 --json " +
                        json() + " & pid=$!; while kill -0 $pid 2>/dev/null && ! grep -q 'process 1/3' " + (dir_ / "err").string() +
                        "; do sleep 0.05; done; mv " + (dir_ / "other").string() + " " + (dir_ / "bench").string() +
                        "; wait $pid");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    auto p = processes_of(nlohmann::json::parse(slurp(json())));
    EXPECT_EQ(p["misbehave/ok"].measured, (std::set<int>{0, 1, 2}));
}

// Two SIGTERMs to a parent whose worker hangs: the worker is stopped, the parent writes
// what it has beside the file and exits 128 + 15; no worker and no temporary folder is
// left behind.
TEST_F(Workers, ASecondSignalStopsAHungWorkerAndKeepsWhatWasMeasured) {
    const Result r = sh("$BENCH run --filter '^misbehave/(ok|hang)$' --processes 2 --min-run-time 0.01 --json " + json() +
                        " & pid=$!; while kill -0 $pid 2>/dev/null && ! grep -q '\\[2/2\\] misbehave/hang' " + (dir_ / "err").string() +
                        "; do sleep 0.05; done; sleep 0.3; kill -TERM $pid; sleep 0.3; kill -TERM $pid; wait $pid; "
                        "echo status=$?; sleep 0.2; pgrep -f \"$BENCH\" || echo none-left");
    EXPECT_NE(r.out.find("status=143"), std::string::npos) << r.out << r.err;
    EXPECT_NE(r.out.find("none-left"), std::string::npos) << r.out;
    const fs::path partial = dir_ / "r.partial.json";
    ASSERT_TRUE(fs::exists(partial)) << r.err;
    const auto doc = nlohmann::json::parse(slurp(partial));
    EXPECT_EQ(doc.at("context").at("vitals_incomplete"), true);
    EXPECT_EQ(processes_of(doc)["misbehave/ok"].measured, (std::set<int>{0}));
    EXPECT_TRUE(fs::is_empty(dir_ / "tmp"));
}

// In one process: the first SIGINT during a hung case says what it does; the second
// writes what was measured and ends the run.
TEST_F(Workers, InOneProcessASecondSignalDuringAHungCaseWritesThePartialFile) {
    const Result r = sh("$BENCH run --filter '^misbehave/(ok|hang)$' --min-run-time 0.01 --json " + json() +
                        " & pid=$!; while kill -0 $pid 2>/dev/null && ! grep -q 'misbehave/hang' " + (dir_ / "err").string() +
                        "; do sleep 0.05; done; sleep 0.2; kill -INT $pid; sleep 0.3; kill -INT $pid; wait $pid");
    EXPECT_EQ(r.exit_code, 130) << r.err;
    EXPECT_NE(r.err.find("stopping after the current block"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("written to " + (dir_ / "r.partial.json").string()), std::string::npos) << r.err;
    const auto doc = nlohmann::json::parse(slurp(dir_ / "r.partial.json"));
    EXPECT_EQ(processes_of(doc)["misbehave/ok"].measured.size(), 1u);
    EXPECT_FALSE(fs::exists(json()));
}

// Two signals within microseconds still leave the partial file, whole.
TEST_F(Workers, TwoSignalsAtOnceStillLeaveThePartialFile) {
    const Result r = sh("$BENCH run --filter '^misbehave/ok$' --min-run-time 2 --json " + json() +
                        " & pid=$!; while kill -0 $pid 2>/dev/null && ! grep -q 'misbehave/ok' " + (dir_ / "err").string() +
                        "; do sleep 0.05; done; sleep 0.2; kill -INT $pid; kill -INT $pid; wait $pid");
    EXPECT_EQ(r.exit_code, 130) << r.err;
    const auto doc = nlohmann::json::parse(slurp(dir_ / "r.partial.json"));
    EXPECT_EQ(doc.at("context").at("vitals_incomplete"), true);
}

// A case that calls exit() in a single process: what was measured is written, and the run
// fails instead of exiting 0.
TEST_F(Workers, ACaseThatCallsExitInOneProcessLeavesThePartialFileAndFails) {
    const Result r = sh("$BENCH run --filter '^misbehave/(ok|exit)$' --min-run-time 0.01 --json " + json());
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("a case called exit() during its measurement"), std::string::npos) << r.err;
    const auto doc = nlohmann::json::parse(slurp(dir_ / "r.partial.json"));
    EXPECT_EQ(processes_of(doc)["misbehave/ok"].measured.size(), 1u);
}

// Results first: a closed pipe or a full disk on standard output ends the printing, is
// reported, and the results file is whole.
TEST_F(Workers, AClosedOrFullStandardOutputLosesNoResults) {
    for (const std::string& into : {std::string("| true; exit ${PIPESTATUS[0]}"), std::string(">/dev/full")}) {
        SCOPED_TRACE(into);
        fs::remove(json());
        const Result r = sh("sleep 0.1; $BENCH run --filter '^misbehave/ok$' --min-run-time 0.05 --json " + json() + " " + into);
        EXPECT_EQ(r.exit_code, 1) << r.err;
        EXPECT_NE(r.err.find("cannot print the report to standard output"), std::string::npos) << r.err;
        EXPECT_NE(r.err.find("the results are in " + json()), std::string::npos) << r.err;
        EXPECT_EQ(processes_of(nlohmann::json::parse(slurp(json())))["misbehave/ok"].measured.size(), 1u);
    }
}

// A closed standard error or output is no reason to fail.
TEST_F(Workers, AClosedStandardErrorIsNotFatal) {
    const Result r = sh("$BENCH run --filter '^misbehave/ok$' --min-run-time 0.01 --json " + json() + " 2>&- >&-");
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_EQ(processes_of(nlohmann::json::parse(slurp(json())))["misbehave/ok"].measured.size(), 1u);
}

// A relative --json is the folder the run started in, whatever folder a case moves to; a
// case that closes its standard output and error loses nothing either.
TEST_F(Workers, ARelativeOutputPathIsResolvedAtTheStart) {
    for (const std::string processes : {"1", "2"}) {
        SCOPED_TRACE(processes);
        fs::remove(dir_ / "rel.json");
        // In one process a case that closes the output would take the report with it.
        const std::string cases = processes == "1" ? "chdir|ok|ok" : "chdir|close-output|ok";
        const Result r = sh("cd " + dir_.string() + " && $BENCH run --filter '^misbehave/(" + cases + ")$' "
                            "--min-run-time 0.01 --processes " + processes + " --json rel.json");
        EXPECT_EQ(r.exit_code, 0) << r.err;
        ASSERT_TRUE(fs::exists(dir_ / "rel.json")) << r.err;
        auto p = processes_of(nlohmann::json::parse(slurp(dir_ / "rel.json")));
        EXPECT_EQ(p.size(), processes == "1" ? 2u : 3u);
        EXPECT_FALSE(fs::exists("/rel.json"));
    }
}

// Under a launcher, runs of one rank that each name a shard write apart.
TEST_F(Workers, ExplicitShardsOfOneRankWriteApart) {
    const std::string out = (dir_ / "out.json").string();
    const Result r = sh("for k in 0 1; do RANK=0 WORLD_SIZE=2 $BENCH run --filter '^misbehave/(ok|chdir)$' --min-run-time "
                        "0.01 --shard $k/2 --json " + out + " || exit 1; done");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(fs::exists(dir_ / "out.rank0.shard0.json")) << r.err;
    EXPECT_TRUE(fs::exists(dir_ / "out.rank0.shard1.json")) << r.err;
}
