// The bad-input matrix: every kind of wrong input a user could give the `vitals`
// executable. Each must end with the documented exit code (2 usage and bad files,
// 1 runtime failures), one "vitals: error:" line naming the problem, no crash signal,
// and no output file touched: an earlier file at the output path keeps its content.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

#include "vitals/cuda_support.hpp"
#include "vitals/timer.hpp"

namespace {

struct Case {
    std::string args;     // {dir} is replaced by the scratch folder
    int exit_code;
    std::string mentions;  // in the error line
};

std::string slurp(const fs::path& p) {
    std::ifstream in(p);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::string replace_dir(std::string s, const std::string& dir) {
    for (auto at = s.find("{dir}"); at != std::string::npos; at = s.find("{dir}")) s.replace(at, 5, dir);
    return s;
}

bool hardware_counters_here() {
    try {
        vitals::Timer({.stmt = [] {}}).collect_instructions({.number = 1});
        return true;
    } catch (const std::runtime_error&) {
        return false;
    }
}

// The rows about CUDA cases depend on the machine, decided when the test runs: where no
// device is usable the case is skipped (timeit and profile, exit 0);
// where one is, the case runs, and counting its instructions needs hardware counters,
// or says that Valgrind is missing (a run of the CUDA driver under Callgrind is left out).
std::vector<Case> cuda_case_rows() {
    const std::string timeit = "timeit mlp_forward/32x512/cuda-f32 --instructions --json {dir}/out.json";
    const std::string profile = "profile mlp_forward/32x512/cuda-f32";
    if (!vitals::cuda_unavailable_reason().empty()) {
        return {{timeit, 0, ""},  // skipped, not failed
                {profile, 0, ""}};
    }
    std::vector<Case> rows = {{profile, 0, ""}};
    if (hardware_counters_here()) {
        rows.push_back({timeit, 0, ""});
    } else if (std::system("command -v valgrind >/dev/null 2>&1") != 0) {
        rows.push_back({timeit, 1, "valgrind is not installed"});
    }
    return rows;
}

}  // namespace

TEST(BadInputMatrix, EveryWrongInputGetsACleanError) {
    const fs::path dir = fs::temp_directory_path() / ("vitals-bad-input-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    const std::string d = dir.string();
    // Files a user might hand us.
    std::ofstream(dir / "empty.json") << "";
    std::ofstream(dir / "truncated.json") << R"({"benchmarks": [{"name": "a", "real_time": 1)";
    std::ofstream(dir / "text.json") << "this is not json";
    std::ofstream(dir / "array.json") << "[1, 2, 3]";
    std::ofstream(dir / "layout.json") << R"({"results": {}})";
    std::ofstream(dir / "wrongtype.json") << R"({"benchmarks": [{"name": 5, "real_time": "fast"}]})";
    std::ofstream(dir / "negative.json") << R"({"benchmarks": [{"name": "a", "real_time": -1, "time_unit": "ns"}]})";
    std::ofstream(dir / "huge.json") << R"({"benchmarks": [{"name": "a", "real_time": 1e999, "time_unit": "ns"}]})";
    std::ofstream(dir / "good.json") << R"({"benchmarks": [{"name": "a", "run_type": "iteration", "real_time": 1, "time_unit": "ns"}]})";
    std::ofstream(dir / "other.json") << R"({"benchmarks": [{"name": "b", "run_type": "iteration", "real_time": 1, "time_unit": "ns"}]})";
    fs::create_directories(dir / "folder.json");
    fs::create_symlink(dir / "nowhere" / "x.json", dir / "dangling.json");
    std::ofstream(dir / "deep.json") << std::string(100, '[') + std::string(100, ']');
    const std::string previous = "previous results";
    std::ofstream(dir / "out.json") << previous;

    std::vector<Case> cases = {
        {"", 2, "give a command"},
        {"frobnicate", 2, "unknown command 'frobnicate'"},
        {"--frobnicate", 2, "--frobnicate"},
        {"list --filter", 2, "--filter"},
        {"list --filter '[unclosed'", 2, "invalid --filter regex"},
        {"list extra-argument", 2, "extra-argument"},
        {"timeit", 2, "name"},
        {"timeit no/such/case --json {dir}/out.json", 2, "no case named 'no/such/case'"},
        {"timeit relu/32x1024/cpu-f32 --min-run-time 0 --json {dir}/out.json", 2, "--min-run-time"},
        {"timeit relu/32x1024/cpu-f32 --min-run-time -0.5", 2, "--min-run-time"},
        {"timeit relu/32x1024/cpu-f32 --min-run-time nan", 2, "finite"},
        {"timeit relu/32x1024/cpu-f32 --min-run-time 1e999", 2, "finite"},
        {"timeit relu/32x1024/cpu-f32 --min-run-time fast", 2, "--min-run-time"},
        {"timeit relu/32x1024/cpu-f32 --number -3", 2, "--number"},
        {"timeit relu/32x1024/cpu-f32 --number 1.5", 2, "--number"},
        {"timeit relu/32x1024/cpu-f32 --number 0x10", 2, "in decimal"},
        {"timeit relu/32x1024/cpu-f32 --number 99999999999999999999", 2, "in decimal"},
        {"timeit relu/32x1024/cpu-f32 --number 1e3", 2, "in decimal"},
        {"profile relu/32x1024/cpu-f32 --steps 9223372036854775808", 2, "in decimal"},
        {"run --processes 0", 2, "--processes"},
        {"run --processes 1001", 2, "--processes"},
        {"run --processes 2 --case-timeout 0", 2, "--case-timeout"},
        {"run --case-timeout -1", 2, "--case-timeout"},
        {"run --case-timeout nan", 2, "finite"},
        {"run --case-timeout soon", 2, "--case-timeout"},
        {"run --baseline {dir}/good.json --profile-slow nan", 2, "finite"},
        {"compare {dir}/good.json {dir}/good.json --noise-floor nan", 2, "finite"},
        {"compare {dir}/good.json {dir}/good.json --noise-floor inf", 2, "finite"},
        {"timeit relu/32x1024/cpu-f32 --precision 0", 2, "--precision"},
        {"timeit relu/32x1024/cpu-f32 --precision nan", 2, "--precision"},
        {"timeit relu/32x1024/cpu-f32 --adaptive --threshold 1", 2, "--threshold"},
        {"timeit relu/32x1024/cpu-f32 --adaptive --threshold -0.1", 2, "--threshold"},
        {"timeit relu/32x1024/cpu-f32 --adaptive --max-run-time 0", 2, "--max-run-time"},
        {"timeit relu/32x1024/cpu-f32 --max-run-time 5", 2, "--adaptive"},
        {"timeit relu/32x1024/cpu-f32 --json {dir}/missing/out.json", 1, "does not exist"},
        {"timeit relu/32x1024/cpu-f32 --json {dir}/folder.json", 1, "is a folder"},
        {"run --filter nothing-matches --json {dir}/out.json", 2, "no case matches"},
        {"run --shard 2/2 --json {dir}/out.json", 2, "0 <= K < N"},
        {"run --shard -1/2", 2, "0 <= K < N"},
        {"run --shard two/three", 2, "K/N"},
        {"run --baseline {dir}/text.json --json {dir}/out.json", 2, "is not JSON"},
        {"run --profile-slow 5", 2, "--baseline"},
        {"compare {dir}/empty.json {dir}/good.json", 2, "is not JSON"},
        {"compare {dir}/truncated.json {dir}/good.json", 2, "is not JSON"},
        {"compare {dir}/text.json {dir}/good.json", 2, "is not JSON"},
        {"compare {dir}/array.json {dir}/good.json", 2, "no \"benchmarks\" list"},
        {"compare {dir}/layout.json {dir}/good.json", 2, "no \"benchmarks\" list"},
        {"compare {dir}/wrongtype.json {dir}/good.json", 2, "layout"},
        {"compare {dir}/negative.json {dir}/good.json", 2, "real_time is -1"},
        {"compare {dir}/huge.json {dir}/good.json", 2, "is not JSON"},
        {"compare {dir}/absent.json {dir}/good.json", 2, "cannot read"},
        {"compare {dir}/folder.json {dir}/good.json", 2, "it is a folder"},
        {"compare {dir}/good.json {dir}/good.json --alpha 0", 2, "--alpha"},
        {"compare {dir}/good.json {dir}/good.json --noise-floor -1", 2, "--noise-floor"},
        // An output that is one of the inputs: refused before anything is read or written.
        {"compare {dir}/good.json {dir}/out.json --json {dir}/out.json", 1, "it is the input"},
        {"compare {dir}/out.json {dir}/good.json --json {dir}/./out.json", 1, "it is the input"},
        {"report {dir}/good.json {dir}/out.json --html {dir}/out.json", 1, "it is the input"},
        {"report {dir}/good.json {dir}/out.json --markdown {dir}/out.json", 1, "it is the input"},
        {"merge {dir}/out.json {dir}/good.json -o {dir}/out.json", 1, "it is the input"},
        {"run --baseline {dir}/out.json --json {dir}/out.json", 1, "it is the input"},
        {"timeit relu/32x1024/cpu-f32 --json ''", 1, "the path is empty"},
        {"timeit relu/32x1024/cpu-f32 --json {dir}/" + std::string(250, 'n') + ".json", 1, "shorter name"},
        {"timeit relu/32x1024/cpu-f32 --json {dir}/dangling.json", 1, "symbolic link to a missing file"},
        {"merge {dir}/good.json {dir}/good.json -o {dir}/out.json", 2, "is in both"},
        {"merge {dir}/text.json -o {dir}/out.json", 2, "is not JSON"},
        {"merge {dir}/wrongtype.json -o {dir}/out.json", 2, "has no name"},
        {"merge {dir}/deep.json -o {dir}/out.json", 2, "deeper than 32 levels"},
        {"compare /dev/zero {dir}/good.json", 2, "not a regular file"},
        {"list --filter '" + std::string(3000, '(') + "a" + std::string(3000, ')') + "'", 0, ""},  // deep, still linear
        {"list --filter '(a{1000}){1000}'", 2, "invalid --filter regex"},
        {"merge {dir}/good.json", 2, "--output"},
        {"report {dir}/good.json", 2, "--html"},
        {"report {dir}/text.json --html {dir}/out.json", 2, "is not JSON"},
        {"profile relu/32x1024/cpu-f32 --sort-by fastest", 2, "unknown --sort-by"},
        {"profile relu/32x1024/cpu-f32 --active 0", 2, "--active"},
        {"profile relu/32x1024/cpu-f32 --wait -1", 2, "--wait"},
        {"profile relu/32x1024/cpu-f32 --row-limit -5", 2, "--row-limit"},
        {"profile relu/32x1024/cpu-f32 --trace {dir}/out.json --trace-dir {dir}", 2, "--trace"},
        {"profile relu/32x1024/cpu-f32 --trace {dir}/missing/t.json", 1, "does not exist"},
    };
    for (const Case& row : cuda_case_rows()) cases.push_back(row);
    ASSERT_GE(cases.size(), 30u);
    for (const Case& c : cases) {
        const std::string args = replace_dir(c.args, d);
        SCOPED_TRACE(args);
        const std::string command = std::string(VITALS_BINARY_DIR) + "/bin/vitals " + args + " >" + d + "/stdout 2>" + d +
                                    "/stderr </dev/null";
        const int status = std::system(command.c_str());
        ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status);
        const std::string err = slurp(dir / "stderr");
        if (c.exit_code == 0) {
            EXPECT_EQ(WEXITSTATUS(status), 0) << err;
            std::ofstream(dir / "out.json") << previous;  // it may write: set the stage again
        } else {
            EXPECT_EQ(WEXITSTATUS(status), c.exit_code) << err;
            EXPECT_EQ(err.rfind("vitals: error: ", 0), 0u) << err;
            EXPECT_NE(err.find(c.mentions), std::string::npos) << err;
        }
        // Nothing half-written, nothing destroyed: the earlier file is intact, and no
        // temporary file is left behind.
        if (c.exit_code != 0) {
            EXPECT_EQ(slurp(dir / "out.json"), previous);
        }
        for (const auto& entry : fs::directory_iterator(dir)) {
            EXPECT_EQ(entry.path().filename().string().find(".tmp."), std::string::npos) << entry.path();
        }
    }
    fs::remove_all(dir);
}

TEST(FailedWrites, AWriteThatFailsLeavesThePreviousFileAndNoTemporary) {
    const fs::path dir = fs::temp_directory_path() / ("vitals-failed-write-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    const fs::path out = dir / "results.json";
    std::ofstream(out) << "previous results";
    // A file-size limit of 1 KiB: the results file (several KiB) cannot be written whole.
    const std::string command = "ulimit -f 1; " + std::string(VITALS_BINARY_DIR) +
                                "/bin/vitals run --filter '^relu/32x1024/cpu-f32$' --min-run-time 0.01 --json " +
                                out.string() + " >/dev/null 2>" + (dir / "stderr").string();
    const int status = std::system(("bash -c \"" + command + "\"").c_str());
    ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status);
    EXPECT_EQ(WEXITSTATUS(status), 1);
    const std::string err = slurp(dir / "stderr");
    EXPECT_NE(err.find("vitals: error: cannot write '" + out.string() + "': write failed: File too large"), std::string::npos)
        << err;
    EXPECT_EQ(slurp(out), "previous results");
    int files = 0;
    for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir)) ++files;
    EXPECT_EQ(files, 2);  // results.json and stderr: no temporary left
    fs::remove_all(dir);
}

TEST(FailedWrites, AFolderThatRefusesFilesIsAClearError) {
    // /sys takes no new files, even from root (which passes permission checks elsewhere).
    if (!fs::is_directory("/sys/kernel")) GTEST_SKIP() << "no /sys here";
    const std::string command = std::string(VITALS_BINARY_DIR) +
                                "/bin/vitals run --filter '^relu/32x1024/cpu-f32$' --min-run-time 0.01 --json "
                                "/sys/kernel/vitals-results.json >/dev/null 2>/tmp/vitals-sys-" +
                                std::to_string(::getpid());
    const int status = std::system(command.c_str());
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 1);
    const std::string err = slurp("/tmp/vitals-sys-" + std::to_string(::getpid()));
    EXPECT_NE(err.find("vitals: error: cannot write '/sys/kernel/vitals-results.json'"), std::string::npos) << err;
    EXPECT_FALSE(fs::exists("/sys/kernel/vitals-results.json"));
    fs::remove("/tmp/vitals-sys-" + std::to_string(::getpid()));
}
