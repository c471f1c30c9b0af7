// `vitals profile` as a launcher runs it: ranks keep their names under --worker, runs
// writing into one --trace-dir at once lose no trace, and a case that cannot run here is
// skipped as under timeit and run.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>

namespace fs = std::filesystem;

namespace {

struct Ran {
    int exit_code;
    std::string out, err;
};

std::string slurp(const fs::path& p) {
    std::ifstream in(p);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

class ProfileCommand : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() / ("vitals-profile-command-" + std::to_string(::getpid()) + "-" +
                                            ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(dir_);
        fs::create_directories(dir_ / "traces");
    }
    void TearDown() override { fs::remove_all(dir_); }

    std::string bench() const { return std::string(VITALS_BINARY_DIR) + "/tests/vitals_fixture_bench"; }

    // A shell command line (several programs, environment variables) with its output.
    Ran shell(const std::string& line) {
        const fs::path out = dir_ / "out", err = dir_ / "err";
        const std::string command = "(" + line + ") >" + out.string() + " 2>" + err.string() + " </dev/null";
        const int status = std::system(command.c_str());
        EXPECT_TRUE(WIFEXITED(status)) << command;
        return {WEXITSTATUS(status), slurp(out), slurp(err)};
    }

    // `steps` traces, one a step, into the shared folder.
    std::string profile_run(const std::string& env, int steps, const std::string& worker) const {
        return "env -u RANK -u WORLD_SIZE -u SLURM_PROCID -u SLURM_NTASKS -u OMPI_COMM_WORLD_RANK -u OMPI_COMM_WORLD_SIZE "
               "-u PMI_RANK -u PMI_SIZE " +
               env + " " + bench() + " profile fixture/sqrt --steps " + std::to_string(steps) +
               " --warmup 1 --active 1 --trace-dir " + (dir_ / "traces").string() + " --worker " + worker;
    }

    // Trace files by worker name (the part before .<stamp>.pt.trace.json, as tools read it).
    std::map<std::string, int> workers() const {
        const std::regex pattern(R"(^(.*?)(\.\d+)?\.pt\.trace\.json(?:\.gz)?$)");
        std::map<std::string, int> count;
        for (const auto& entry : fs::directory_iterator(dir_ / "traces")) {
            std::smatch m;
            const std::string name = entry.path().filename().string();
            if (std::regex_match(name, m, pattern)) {
                ++count[m[1].str()];
            } else {
                ++count["not a trace: " + name];
            }
        }
        return count;
    }

    fs::path dir_;
};

}  // namespace

TEST_F(ProfileCommand, ACaseThatCannotRunHereIsSkipped) {
    const Ran r = shell(bench() + " profile fixture/needs-gpu");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "fixture/needs-gpu: skipped: no CUDA device found\n");
    EXPECT_EQ(r.err.find("error"), std::string::npos) << r.err;
}

// Two ranks of one job, started together, both given --worker job: each keeps its rank in
// the name (and in distributedInfo), and every trace of both is there.
TEST_F(ProfileCommand, RanksGivenOneWorkerNameKeepTheirRanksAndEveryTrace) {
    const Ran r = shell(profile_run("RANK=0 WORLD_SIZE=2", 100, "job") + " & " +
                        profile_run("RANK=1 WORLD_SIZE=2", 100, "job") + " & wait");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    // 100 steps of (warmup 1, active 1): a trace every second step.
    EXPECT_EQ(workers(), (std::map<std::string, int>{{"job_rank0", 50}, {"job_rank1", 50}}));
    for (const auto& entry : fs::directory_iterator(dir_ / "traces")) {
        const nlohmann::json doc = nlohmann::json::parse(slurp(entry.path()));
        const int rank = entry.path().filename().string().rfind("job_rank1", 0) == 0 ? 1 : 0;
        EXPECT_EQ(doc.at("distributedInfo").at("rank"), rank) << entry.path();
        EXPECT_EQ(doc.at("distributedInfo").at("world_size"), 2);
    }
}

// --rank given on the command line names the files the same way.
TEST_F(ProfileCommand, RankFromTheCommandLineFollowsTheWorkerName) {
    const Ran r = shell(profile_run("", 2, "trainer") + " --rank 3 --world-size 4");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(workers(), (std::map<std::string, int>{{"trainer_rank3", 1}}));
}

// Two runs without a rank and one worker name: one worker's files, none lost.
TEST_F(ProfileCommand, TwoRunsUnderOneWorkerNameLoseNothing) {
    const Ran r = shell(profile_run("", 100, "same") + " & " + profile_run("", 100, "same") + " & wait");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(workers(), (std::map<std::string, int>{{"same", 100}}));
}

TEST_F(ProfileCommand, AWorkerNameMustBeAFileNamePart) {
    for (const char* worker : {"''", "a/b"}) {
        const Ran r = shell(profile_run("", 2, worker));
        EXPECT_EQ(r.exit_code, 2) << worker;
        EXPECT_NE(r.err.find("is not a file name part; give a name without '/'"), std::string::npos) << r.err;
        EXPECT_EQ(r.out, "");
    }
}
