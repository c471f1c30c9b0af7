// The `vitals` executable as a user runs it: exit codes, messages, files.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include <map>
#include <regex>
#include <sstream>
#include <string>

#include "vitals/cuda_support.hpp"

namespace fs = std::filesystem;

namespace {

// The cases' own view of the machine: does `vitals` see a usable GPU?
bool vitals_has_gpu() { return vitals::cuda_unavailable_reason().empty(); }

struct CommandResult {
    int exit_code;
    std::string out, err;
};

std::string slurp(const fs::path& p) {
    std::ifstream in(p);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

class Cli : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() / ("vitals-cli-" + std::to_string(::getpid()) + "-" +
                                            ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    void TearDown() override {
        std::error_code ec;
        fs::permissions(dir_, fs::perms::owner_all, ec);
        fs::remove_all(dir_, ec);
    }

    CommandResult run_vitals(const std::string& args) {
        const fs::path out = dir_ / "stdout", err = dir_ / "stderr";
        const std::string command = std::string(VITALS_BINARY_DIR) + "/bin/vitals " + args + " >" + out.string() +
                                    " 2>" + err.string() + " </dev/null";
        const int status = std::system(command.c_str());
        EXPECT_TRUE(WIFEXITED(status)) << "killed by a signal: " << command;
        return {WEXITSTATUS(status), slurp(out), slurp(err)};
    }

    // A usage error: exit 2, one "vitals: error:" line naming the problem, nothing on stdout.
    void expect_usage_error(const std::string& args, const std::string& mentions) {
        SCOPED_TRACE(args);
        const CommandResult r = run_vitals(args);
        EXPECT_EQ(r.exit_code, 2) << r.err;
        EXPECT_EQ(r.err.rfind("vitals: error: ", 0), 0u) << r.err;
        EXPECT_NE(r.err.find(mentions), std::string::npos) << r.err;
        EXPECT_EQ(r.out, "");
    }

    fs::path dir_;
};

}  // namespace

TEST_F(Cli, ListPrintsOneNameALine) {
    const CommandResult r = run_vitals("list");
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_NE(r.out.find("matmul/128x128/cpu-f32\n"), std::string::npos);
    EXPECT_NE(r.out.find("mask_indices/1M/cpu-after\n"), std::string::npos);
    // Listed even without a GPU, and then marked with why it cannot run.
    const std::string reason = vitals::cuda_unavailable_reason();
    const std::string cuda_line = "mlp_train_step/32x512/cuda-f32" + (reason.empty() ? "" : "  skipped: " + reason) + "\n";
    EXPECT_NE(r.out.find(cuda_line), std::string::npos) << r.out;
    EXPECT_NE(run_vitals("list --names").out.find("mlp_train_step/32x512/cuda-f32\n"), std::string::npos);
    EXPECT_NE(run_vitals("list --filter '^matmul/128x128/cuda-f32$'").out.find("matmul/128x128/cuda-f32" +
                                                                                 std::string(reason.empty() ? "" : "  skipped: ")),
              std::string::npos)
        << "a family's case is marked too";
    const CommandResult filtered = run_vitals("list --filter '^matmul/.*cpu-f64$'");
    EXPECT_EQ(filtered.out, "matmul/128x128/cpu-f64\nmatmul/512x512/cpu-f64\nmatmul/1024x1024/cpu-f64\n");
}

TEST_F(Cli, HelpExitsZero) {
    for (const char* args : {"--help", "--help-all", "list --help", "timeit --help", "run --help"}) {
        SCOPED_TRACE(args);
        const CommandResult r = run_vitals(args);
        EXPECT_EQ(r.exit_code, 0);
        EXPECT_NE(r.out.find("Usage"), std::string::npos) << r.out;
    }
    EXPECT_NE(run_vitals("timeit --help").out.find("--min-run-time"), std::string::npos);
}

TEST_F(Cli, UsageErrorsExitTwoWithAMessage) {
    expect_usage_error("", "command");
    expect_usage_error("profile relu/32x1024/cpu-f32 --sort-by speed", "unknown --sort-by 'speed'");
    expect_usage_error("profile relu/32x1024/cpu-f32 --active 0", "--active");
    expect_usage_error("profile relu/32x1024/cpu-f32 --trace a.json --trace-dir logs", "--trace");
    expect_usage_error("profile relu/32x1024/cpu-f32 --gzip", "--trace-dir");
    expect_usage_error("profile no/such/case", "no case named");
    expect_usage_error("frobnicate", "frobnicate");
    expect_usage_error("list --bogus", "--bogus");
    expect_usage_error("timeit", "name");
    expect_usage_error("timeit matmul/128x128/cpu-f33", "did you mean 'matmul/128x128/cpu-f32'");
    expect_usage_error("timeit relu/32x1024/cpu", "did you mean 'relu/32x1024/cpu-f32'");
    expect_usage_error("timeit no/such/case", "'vitals list'");
    expect_usage_error("list --filter '('", "invalid --filter regex");
    expect_usage_error("run --filter 'nothing-matches-this'", "no case matches");
    expect_usage_error("timeit relu/32x1024/cpu-f32 --min-run-time 0", "--min-run-time");
    expect_usage_error("timeit relu/32x1024/cpu-f32 --min-run-time -1", "--min-run-time");
    expect_usage_error("timeit relu/32x1024/cpu-f32 --min-run-time nan", "finite");
    expect_usage_error("timeit relu/32x1024/cpu-f32 --min-run-time inf", "finite");
    expect_usage_error("timeit relu/32x1024/cpu-f32 --min-run-time abc", "--min-run-time");
    expect_usage_error("timeit relu/32x1024/cpu-f32 --adaptive --threshold 1.5", "--threshold");
    expect_usage_error("timeit relu/32x1024/cpu-f32 --adaptive --threshold 0", "--threshold");
    expect_usage_error("timeit relu/32x1024/cpu-f32 --threshold 0.1", "--adaptive");
    expect_usage_error("timeit relu/32x1024/cpu-f32 --number 0", "--number");
    expect_usage_error("timeit relu/32x1024/cpu-f32 --number 10 --adaptive", "--number");
    expect_usage_error("timeit relu/32x1024/cpu-f32 --json", "--json");
    expect_usage_error("run --adaptive --min-run-time 2 --max-run-time 1", "--max-run-time");
    expect_usage_error("timeit relu/32x1024/cpu-f32 --counters cycles,cache-mises", "unknown counter 'cache-mises'");
}

// Each run records its layout; --no-aslr executes the program again without
// randomisation, and the results say so.
TEST_F(Cli, AslrIsRecordedAndNoAslrFixesTheLayout) {
    const fs::path randomised = dir_ / "on.json", fixed = dir_ / "off.json";
    const std::string run = "run --filter '^relu/32x1024/cpu-f32$' --min-run-time 0.01 --counters none --json ";
    const CommandResult on = run_vitals(run + randomised.string());
    ASSERT_EQ(on.exit_code, 0) << on.err;
    const std::string state = nlohmann::json::parse(slurp(randomised)).at("context").at("vitals_aslr");
    EXPECT_TRUE(state == "on" || state == "off (kernel.randomize_va_space = 0)") << state;
    const CommandResult off = run_vitals(run + fixed.string() + " --no-aslr");
    if (off.exit_code == 2 && off.err.find("--no-aslr: the kernel refused") != std::string::npos) GTEST_SKIP() << off.err;
    ASSERT_EQ(off.exit_code, 0) << off.err;
    EXPECT_EQ(nlohmann::json::parse(slurp(fixed)).at("context").at("vitals_aslr"), "off (--no-aslr or setarch -R)");
    const std::size_t table = off.out.find("Times are in");  // one table: the program measured once
    ASSERT_NE(table, std::string::npos) << off.out;
    EXPECT_EQ(off.out.find("Times are in", table + 1), std::string::npos) << off.out;

    // Started without randomisation (setarch -R), --processes still gives each measuring
    // process a layout of its own, and says so; one process keeps the layout it was given.
    if (state != "on") GTEST_SKIP() << "randomisation is off in this kernel: " << state;
    const std::string vitals = std::string(VITALS_BINARY_DIR) + "/bin/vitals ";
    const fs::path sampled = dir_ / "sampled.json", kept = dir_ / "kept.json";
    const CommandResult processes = run_vitals("list >/dev/null; setarch -R " + vitals + run + sampled.string() + " --processes 2");
    ASSERT_EQ(processes.exit_code, 0) << processes.err;
    EXPECT_EQ(nlohmann::json::parse(slurp(sampled)).at("context").at("vitals_aslr"), "on");
    const CommandResult one = run_vitals("list >/dev/null; setarch -R " + vitals + run + kept.string());
    ASSERT_EQ(one.exit_code, 0) << one.err;
    EXPECT_EQ(nlohmann::json::parse(slurp(kept)).at("context").at("vitals_aslr"), "off (--no-aslr or setarch -R)");
}

// The counters read around each block go into the results; --counters none reads none;
// a counter the kernel refuses is named once, with why, and the run goes on.
TEST_F(Cli, CountersAreReadPerBlockAndRefusalsNamed) {
    const fs::path with = dir_ / "with.json", without = dir_ / "without.json";
    const CommandResult r = run_vitals("timeit relu/32x1024/cpu-f32 --min-run-time 0.02 --counters page-faults,cycles --json " + with.string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const nlohmann::json doc = nlohmann::json::parse(slurp(with));
    const nlohmann::json& first = doc.at("benchmarks").at(0);
    std::size_t refused = 0;
    for (const nlohmann::json& b : doc.at("benchmarks")) {
        if (b.value("aggregate_name", "") == "median") refused = b.value("vitals_counters_unavailable", nlohmann::json::array()).size();
    }
    if (first.contains("vitals_counters")) {
        EXPECT_TRUE(first.at("vitals_counters").contains("page-faults")) << first.dump();
        EXPECT_EQ(first.at("vitals_counters").size() + refused, 2u) << first.dump();
    } else {
        EXPECT_EQ(refused, 2u);  // perf_event_open refused both: the run still measured
    }
    if (refused > 0) {
        EXPECT_NE(r.err.find("vitals: note: counters not read: "), std::string::npos) << r.err;
    }
    ASSERT_EQ(run_vitals("timeit relu/32x1024/cpu-f32 --min-run-time 0.02 --counters none --json " + without.string()).exit_code, 0);
    const std::string plain = slurp(without);
    EXPECT_EQ(plain.find("vitals_counters"), std::string::npos);
}

TEST_F(Cli, TimeitPrintsTheMeasurement) {
    const CommandResult r = run_vitals("timeit relu/32x1024/cpu-f32 --min-run-time 0.02");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out.rfind("relu: 32x1024\ncpu f32\n  Median: ", 0), 0u) << r.out;
    // torch's wording for one block or several: how many this build timed depends on its speed.
    EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(\n +(1 measurement, [0-9]+ runs |[0-9]+ measurements, [0-9]+ runs per measurement), 1 thread)")))
        << r.out;
}

TEST_F(Cli, TimeitNumberIsOneBlock) {
    const CommandResult r = run_vitals("timeit relu/32x1024/cpu-f32 --number 20");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("1 measurement, 20 runs , 1 thread"), std::string::npos) << r.out;
}

TEST_F(Cli, RunWritesJsonAndPrintsATableWithProgress) {
    const fs::path json_path = dir_ / "results.json";
    const CommandResult r = run_vitals("run --filter '^relu/' --min-run-time 0.01 --json " + json_path.string());
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("[1/4] relu/32x1024/cpu-f32"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("[2/4] relu/32x1024/cpu-f64"), std::string::npos) << r.err;
    EXPECT_NE(r.out.find("[-"), std::string::npos);
    EXPECT_NE(r.out.find("cpu f32  |  cpu f64"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("Times are in"), std::string::npos);
    if (!vitals_has_gpu()) {  // the CUDA cases are listed as skipped, never dropped
        EXPECT_NE(r.out.find("2 cases skipped:\n  relu/32x1024/cuda-f32: "), std::string::npos) << r.out;
    }
    const auto doc = nlohmann::json::parse(slurp(json_path));
    EXPECT_EQ(doc.at("context").at("vitals_schema_version"), 1);
    std::set<std::string> names;
    for (const auto& b : doc.at("benchmarks")) names.insert(b.at("run_name").get<std::string>());
    EXPECT_EQ(names, (std::set<std::string>{"relu/32x1024/cpu-f32", "relu/32x1024/cpu-f64", "relu/32x1024/cuda-f32",
                                            "relu/32x1024/cuda-f64"}));
    // No temporary file left beside it.
    int files = 0;
    for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir_)) ++files;
    EXPECT_EQ(files, 3);  // results.json, stdout, stderr
}

TEST_F(Cli, AdaptiveRunWorks) {
    const CommandResult r = run_vitals("timeit relu/32x1024/cpu-f32 --adaptive --threshold 0.5 --max-run-time 2");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("Median:"), std::string::npos) << r.out;
}

TEST_F(Cli, UnwritableOutputFailsBeforeRunningAndKeepsOldFile) {
    const fs::path missing = dir_ / "no-such-folder" / "out.json";
    CommandResult r = run_vitals("timeit relu/32x1024/cpu-f32 --min-run-time 0.01 --json " + missing.string());
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.err.rfind("vitals: error: cannot write", 0), 0u) << r.err;
    EXPECT_NE(r.err.find("does not exist"), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "");  // failed before measuring

    r = run_vitals("timeit relu/32x1024/cpu-f32 --min-run-time 0.01 --json " + dir_.string());
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("is a folder"), std::string::npos) << r.err;

    if (::geteuid() != 0) {  // root writes anywhere; the permission case needs a user
        const fs::path locked = dir_ / "locked";
        fs::create_directories(locked);
        std::ofstream(locked / "old.json") << "previous results";
        fs::permissions(locked, fs::perms::owner_read | fs::perms::owner_exec);
        r = run_vitals("timeit relu/32x1024/cpu-f32 --min-run-time 0.01 --json " + (locked / "old.json").string());
        EXPECT_EQ(r.exit_code, 1);
        fs::permissions(locked, fs::perms::owner_all);
        EXPECT_EQ(slurp(locked / "old.json"), "previous results");
    }
}

// --row-limit N prints N rows; -1 prints all of them, as torch's row_limit=-1.
TEST_F(Cli, ProfileRowLimitMinusOneMeansEveryRow) {
    const auto rows = [&](const std::string& limit) {
        const CommandResult r = run_vitals("profile mlp_forward/32x512/cpu-f32 --steps 1 --row-limit " + limit);
        EXPECT_EQ(r.exit_code, 0) << r.err;
        // The rows lie between the second and the third separator line.
        std::istringstream lines(r.out);
        int separators = 0, count = 0;
        for (std::string line; std::getline(lines, line);) {
            if (line.rfind("-----", 0) == 0) {
                ++separators;
            } else if (separators == 2) {
                ++count;
            }
        }
        return count;
    };
    EXPECT_EQ(rows("2"), 2);
    const int all = rows("1000");
    EXPECT_GT(all, 2);
    EXPECT_EQ(rows("-1"), all);
}

TEST_F(Cli, ProfileShowsTheModelsOperators) {
    const fs::path trace = dir_ / "trace.json";
    const CommandResult r = run_vitals("profile mlp_forward/32x512/cpu-f32 --steps 1 --record-shapes --profile-memory "
                                       "--trace " + trace.string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    // One step of the forward: linear twice, addmm twice (inside linear), relu once.
    const auto calls = [&](const std::string& name) {
        const auto at = r.out.find("  " + name + "  ");
        EXPECT_NE(at, std::string::npos) << name << " missing in\n" << r.out;
        const auto line_end = r.out.find('\n', at);
        const std::string line = r.out.substr(at, line_end - at);
        return std::stoi(line.substr(line.find_last_not_of(' ', line.size() - 3) - 1));
    };
    EXPECT_EQ(calls("linear"), 2);
    EXPECT_EQ(calls("addmm"), 2);
    EXPECT_EQ(calls("relu"), 1);
    EXPECT_NE(r.out.find("Self CPU Mem"), std::string::npos);
    const auto doc = nlohmann::json::parse(slurp(trace));
    std::vector<std::pair<double, double>> linear, addmm;
    for (const auto& e : doc.at("traceEvents")) {
        if (e.at("ph") != "X") continue;
        const double ts = e.at("ts"), end = ts + e.at("dur").get<double>();
        if (e.at("name") == "linear") linear.push_back({ts, end});
        if (e.at("name") == "addmm") addmm.push_back({ts, end});
        if (e.at("name") == "linear") {
            EXPECT_EQ(e.at("args").at("Input Dims").size(), 3u);
        }
        if (e.at("cat") == "cpu_op") {
            EXPECT_TRUE(e.at("args").contains("External id")) << e.dump();  // as torch writes them
        }
    }
    ASSERT_EQ(linear.size(), 2u);
    ASSERT_EQ(addmm.size(), 2u);
    for (int i = 0; i < 2; ++i) {  // each addmm inside its linear
        EXPECT_LE(linear[i].first, addmm[i].first);
        EXPECT_LE(addmm[i].second, linear[i].second);
    }
}

// A time as the table and the Measurement print it ("59.081us", "55.31 us"), in seconds.
double printed_seconds(const std::string& text) {
    std::size_t used = 0;
    const double value = std::stod(text, &used);
    std::string unit = text.substr(used);
    unit.erase(0, unit.find_first_not_of(' '));
    if (unit.rfind("ns", 0) == 0) return value * 1e-9;
    if (unit.rfind("us", 0) == 0) return value * 1e-6;
    if (unit.rfind("ms", 0) == 0) return value * 1e-3;
    return value;
}

// The profiled statement runs as the timed one does (same threads, same setup), so an
// operator's time per call under `profile` agrees with the `timeit` median of the same
// case. Measured in one test run; the tolerance is wide for shared, noisy machines (a
// mean over a window against a median), and still far below the 25-50x that running a
// one-thread case on every thread once gave.
TEST_F(Cli, ProfiledOperatorTimeAgreesWithTimeit) {
    const std::string name = "matmul/128x128/cpu-f32";
    // Up to three tries, as another test may hold both cores for a while: any one
    // within the tolerance shows the two paths run the statement alike.
    std::string tries;
    for (int attempt = 0; attempt < 3; ++attempt) {
        const CommandResult timed = run_vitals("timeit " + name + " --min-run-time 0.05");
        ASSERT_EQ(timed.exit_code, 0) << timed.err;
        const auto median_at = timed.out.find("Median: ");
        ASSERT_NE(median_at, std::string::npos) << timed.out;
        const double median = printed_seconds(timed.out.substr(median_at + 8));

        const CommandResult profiled = run_vitals("profile " + name);
        ASSERT_EQ(profiled.exit_code, 0) << profiled.err;
        const auto row = profiled.out.find("  matmul  ");
        ASSERT_NE(row, std::string::npos) << profiled.out;
        std::istringstream columns(profiled.out.substr(row, profiled.out.find('\n', row) - row));
        std::vector<std::string> cells;
        for (std::string cell; columns >> cell;) cells.push_back(cell);
        ASSERT_EQ(cells.size(), 7u) << profiled.out;  // name, self %, self, total %, total, avg, calls
        EXPECT_GT(std::stoll(cells[6]), 1);
        const double ratio = printed_seconds(cells[5]) / median;
        if (ratio > 1.0 / 5 && ratio < 5.0) return;
        tries += " " + std::to_string(ratio) + " (" + cells[5] + " per call under profile, " +
                 timed.out.substr(median_at + 8, timed.out.find('\n', median_at) - median_at - 8) + " under timeit);";
    }
    ADD_FAILURE() << "profile / timeit per call, three tries:" << tries;
}

TEST_F(Cli, PrecisionRunsUntilTheMediansIntervalIsTightAndReportsIt) {
    const fs::path json = dir_ / "precision.json";
    const CommandResult r = run_vitals("timeit relu/32x1024/cpu-f32 --precision 0.05 --max-run-time 5 --json " + json.string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("  95% CI of the median: "), std::string::npos) << r.out;
    bool found = false;
    const nlohmann::json doc = nlohmann::json::parse(slurp(json));
    for (const auto& b : doc.at("benchmarks")) {
        if (b.value("aggregate_name", "") != "median") continue;
        found = true;
        EXPECT_LE(b.at("vitals_median_ci_low").get<double>(), b.at("real_time").get<double>());
        EXPECT_GE(b.at("vitals_median_ci_high").get<double>(), b.at("real_time").get<double>());
        EXPECT_EQ(b.at("vitals_median_ci_confidence").get<double>(), 0.95);
    }
    EXPECT_TRUE(found);
    // Other modes keep the reference's layout.
    const CommandResult plain = run_vitals("timeit relu/32x1024/cpu-f32 --min-run-time 0.02");
    EXPECT_EQ(plain.out.find("CI of the median"), std::string::npos) << plain.out;
    expect_usage_error("timeit relu/32x1024/cpu-f32 --precision 0.05 --adaptive", "--precision");
    expect_usage_error("timeit relu/32x1024/cpu-f32 --precision 1.5", "--precision");
}

// Without --steps or a schedule, profile records one window of a fixed number of warm
// calls (100 by default, --calls N), not one cold call, says what it recorded, and the
// table's footer states the count.
TEST_F(Cli, ProfileWithoutStepsRecordsAWindowOfAFixedCount) {
    const CommandResult r = run_vitals("profile relu/32x1024/cpu-f32");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("profiling relu/32x1024/cpu-f32: 100 calls in one window, after a warm-up"), std::string::npos) << r.err;
    EXPECT_NE(r.out.find("(100 calls)"), std::string::npos) << r.out;  // the window's annotation
    EXPECT_TRUE(std::regex_search(r.out, std::regex(" relu .* 100  \n"))) << r.out;
    EXPECT_TRUE(std::regex_search(r.out, std::regex("Self CPU time total: [^\n]*\nCalls: 100 in one window\n"))) << r.out;
}

// --calls N: exactly N calls in the window (counted in the trace); with --steps, N calls a
// step; a count below 1 is a usage error.
TEST_F(Cli, ProfileCallsRecordsExactlyThatManyCalls) {
    const auto relu_events = [&](const fs::path& trace) {
        int n = 0;
        const nlohmann::json doc = nlohmann::json::parse(slurp(trace));
        for (const auto& e : doc.at("traceEvents")) n += e.value("name", std::string()) == "relu";
        return n;
    };
    const fs::path window = dir_ / "window.pt.trace.json", steps = dir_ / "steps.pt.trace.json";
    const CommandResult r = run_vitals("profile relu/32x1024/cpu-f32 --calls 7 --trace " + window.string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(relu_events(window), 7);
    EXPECT_NE(r.out.find("\nCalls: 7 in one window\n"), std::string::npos) << r.out;
    const CommandResult stepped = run_vitals("profile relu/32x1024/cpu-f32 --calls 3 --steps 2 --trace " + steps.string());
    ASSERT_EQ(stepped.exit_code, 0) << stepped.err;
    EXPECT_EQ(relu_events(steps), 6);
    EXPECT_NE(stepped.out.find("\nCalls: 3 per step, 2 steps in this trace\n"), std::string::npos) << stepped.out;
    const CommandResult one = run_vitals("profile relu/32x1024/cpu-f32 --calls 1");
    EXPECT_NE(one.out.find("(1 call)"), std::string::npos) << one.out;
    expect_usage_error("profile relu/32x1024/cpu-f32 --calls 0", "--calls");
}

// A results file of one case whose blocks come from `processes` processes: process p's
// blocks take base + p * step ns (and a little spread), 10 blocks each.
void write_processes(const fs::path& path, int processes, double base, double step) {
    std::string entries;
    for (int p = 0; p < processes; ++p) {
        for (int b = 0; b < 10; ++b) {
            entries += std::string(entries.empty() ? "" : ",") +
                       R"({"name": "op", "run_type": "iteration", "iterations": 10, "time_unit": "ns", "real_time": )" +
                       std::to_string(base + p * step + b * 0.01) + R"(, "vitals_process": )" + std::to_string(p) + "}";
        }
    }
    std::ofstream(path) << "{\"benchmarks\": [" + entries + "]}";
}

// With 3 or more processes a side, compare tests the per-process medians: 5 against 5
// processes, all of the after side slower, is the exact U test's smallest p, 2/252.
TEST_F(Cli, CompareTestsPerProcessMediansWithEnoughProcesses) {
    write_processes(dir_ / "before.json", 5, 100, 1);
    write_processes(dir_ / "after.json", 5, 110, 1);
    const CommandResult r = run_vitals("compare " + (dir_ / "before.json").string() + " " + (dir_ / "after.json").string() +
                                       " --json " + (dir_ / "cmp.json").string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("U test on per-process medians, alpha 0.05"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("0.0079  slower"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("note:"), std::string::npos) << r.out;
    const auto cmp = nlohmann::json::parse(slurp(dir_ / "cmp.json"));
    EXPECT_EQ(cmp.at("cases").at(0).at("tested_on"), "process_medians");
    EXPECT_EQ(cmp.at("cases").at(0).at("processes_before"), 5);
    EXPECT_NEAR(cmp.at("cases").at(0).at("p_value").get<double>(), 2.0 / 252, 1e-12);
    EXPECT_NE(cmp.at("same_means").get<std::string>().find("per-process medians"), std::string::npos);

    // 3 against 3 cannot reach alpha 0.05 (smallest p = 2/20): said, and the verdict is same.
    write_processes(dir_ / "before3.json", 3, 100, 1);
    write_processes(dir_ / "after3.json", 3, 110, 1);
    const CommandResult three = run_vitals("compare " + (dir_ / "before3.json").string() + " " + (dir_ / "after3.json").string());
    EXPECT_NE(three.out.find("0.1000  same"), std::string::npos) << three.out;
    EXPECT_NE(three.out.find("the smallest p-value the test can give is 0.100"), std::string::npos) << three.out;

    // One process a side: blocks are tested, with a note that says why that is weak.
    write_processes(dir_ / "one_before.json", 1, 100, 0);
    write_processes(dir_ / "one_after.json", 1, 110, 0);
    const CommandResult one = run_vitals("compare " + (dir_ / "one_before.json").string() + " " + (dir_ / "one_after.json").string());
    EXPECT_NE(one.out.find("U test on per-block times"), std::string::npos) << one.out;
    EXPECT_NE(one.out.find("--processes 5"), std::string::npos) << one.out;

    // The markdown for a pull request: the geomean row, the verdict rule and the same notes.
    ASSERT_EQ(run_vitals("report " + (dir_ / "one_before.json").string() + " " + (dir_ / "one_after.json").string() +
                         " --markdown " + (dir_ / "one.md").string())
                  .exit_code,
              0);
    const std::string one_md = slurp(dir_ / "one.md");
    EXPECT_NE(one_md.find("| geomean | | | +10.00% | | |"), std::string::npos) << one_md;
    EXPECT_NE(one_md.find("Verdicts: **slower** or **faster** when p < 0.05 and the median changed by more than 1.0%"),
              std::string::npos)
        << one_md;
    EXPECT_NE(one_md.find("> **Note:** 1 case tested on per-block times"), std::string::npos) << one_md;

    // report says what `same` means, from the same options.
    ASSERT_EQ(run_vitals("report " + (dir_ / "before.json").string() + " " + (dir_ / "after.json").string() +
                         " --alpha 0.01 --noise-floor 2 --markdown " + (dir_ / "r.md").string())
                  .exit_code,
              0);
    EXPECT_NE(slurp(dir_ / "r.md").find("`same`: not significant at alpha 0.01 (two-sided Mann-Whitney U test on "
                                        "per-process medians), or a change under 2.0%."),
              std::string::npos)
        << slurp(dir_ / "r.md");
}

// "-" and /dev/stdout are standard output: the CI-summary idiom appends, never replaces.
TEST_F(Cli, StandardOutputAsAnOutputFile) {
    write_processes(dir_ / "a.json", 1, 100, 0);
    write_processes(dir_ / "b.json", 1, 101, 0);
    const std::string a = (dir_ / "a.json").string(), b = (dir_ / "b.json").string();
    const CommandResult dash = run_vitals("compare " + a + " " + b + " --json -");
    ASSERT_EQ(dash.exit_code, 0) << dash.err;
    EXPECT_NE(dash.out.find("\"geomean_change\""), std::string::npos) << dash.out;
    EXPECT_NO_THROW({ const auto parsed = nlohmann::json::parse(dash.out); (void)parsed; }) << "the table went to stdout too:\n" << dash.out;
    EXPECT_NE(dash.err.find("geomean"), std::string::npos) << "the table goes to stderr: " << dash.err;
    EXPECT_FALSE(fs::exists("-"));
    const fs::path summary = dir_ / "summary.md";
    std::ofstream(summary) << "first line\n";
    const std::string command = std::string(VITALS_BINARY_DIR) + "/bin/vitals report " + a + " " + b +
                                " --markdown /dev/stdout >> " + summary.string();
    ASSERT_EQ(std::system(command.c_str()), 0);
    const std::string text = slurp(summary);
    EXPECT_EQ(text.rfind("first line\n| ", 0) == 0 || text.rfind("first line\n**", 0) == 0, true) << text;
    EXPECT_NE(text.find("| case | before | after |"), std::string::npos) << text;
}

// Every output file can be "-": standard output then carries that file alone (the
// tables and progress go to standard error), so a pipe reads nothing else.
TEST_F(Cli, EveryOutputTakesDash) {
    const auto json_on_stdout = [&](const std::string& args) {
        const CommandResult r = run_vitals(args);
        EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.err;
        EXPECT_NO_THROW({ const auto parsed = nlohmann::json::parse(r.out); (void)parsed; }) << args << " printed more than its file:\n" << r.out;
        return r;
    };
    const CommandResult run = json_on_stdout("run --filter '^relu/32x1024/cpu-f32$' --min-run-time 0.01 --json -");
    EXPECT_NE(run.err.find("relu"), std::string::npos) << "the table goes to stderr: " << run.err;
    std::ofstream(dir_ / "run.json") << run.out;
    json_on_stdout("timeit relu/32x1024/cpu-f32 --min-run-time 0.01 --json -");
    json_on_stdout("profile relu/32x1024/cpu-f32 --steps 1 --trace -");
    json_on_stdout("merge " + (dir_ / "run.json").string() + " -o -");
    const std::string runs = (dir_ / "run.json").string() + " " + (dir_ / "run.json").string();
    const CommandResult html = run_vitals("report " + runs + " --html -");
    ASSERT_EQ(html.exit_code, 0) << html.err;
    EXPECT_EQ(html.out.rfind("<!DOCTYPE html>", 0), 0u) << html.out.substr(0, 200);
    const CommandResult md = run_vitals("report " + runs + " --markdown -");
    ASSERT_EQ(md.exit_code, 0) << md.err;
    EXPECT_EQ(md.out.rfind("**", 0), 0u) << md.out;
    EXPECT_NE(md.out.find("| geomean |"), std::string::npos) << md.out;
}

// VITALS_MAX_CPU_ISA=avx2 runs the AVX2 paths of a CPU with AVX-512, and the results file
// says the cap was set; a value it does not know fails the case with a message that says
// what to set.
TEST_F(Cli, MaxCpuIsaCapsTheKernelsPaths) {
    const std::string vitals = std::string(VITALS_BINARY_DIR) + "/bin/vitals ";
    const std::string json = (dir_ / "capped.json").string();
    const CommandResult capped = run_vitals("list >/dev/null; VITALS_MAX_CPU_ISA=avx2 " + vitals +
                                            "run --filter '^nonzero/1M-10pct/cpu-bool$' --min-run-time 0.01 --json " + json);
    ASSERT_EQ(capped.exit_code, 0) << capped.err;
    const auto doc = nlohmann::json::parse(slurp(json));
    EXPECT_EQ(doc.at("context").value("vitals_max_cpu_isa", ""), "avx2") << doc.at("context").dump();

    const CommandResult bad = run_vitals("list >/dev/null; VITALS_MAX_CPU_ISA=sse9 " + vitals +
                                         "timeit nonzero/1M-10pct/cpu-bool --min-run-time 0.01");
    EXPECT_NE(bad.exit_code, 0);
    EXPECT_NE(bad.err.find("VITALS_MAX_CPU_ISA='sse9'"), std::string::npos) << bad.err;
    EXPECT_NE(bad.err.find("set it to avx2"), std::string::npos) << bad.err;
}

// Under VITALS_MAX_CPU_ISA=avx2 the machine's probes run AVX2 too, so a roofline places
// the capped kernels against the ceilings they can reach; those figures are cached apart
// from the uncapped ones, and a bad value fails before anything is measured.
TEST_F(Cli, MachineFiguresUnderTheCapAreMeasuredAndCachedApart) {
    const std::string env = "VITALS_CACHE_DIR=" + (dir_ / "cache").string() + " ";
    const std::string vitals = std::string(VITALS_BINARY_DIR) + "/bin/vitals ";
    __builtin_cpu_init();
    const std::string widest = __builtin_cpu_supports("avx512f") ? "avx512"
                               : __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? "avx2"
                                                                                                 : "scalar";
    const std::string under_cap = widest == "avx512" ? "avx2" : widest;
    const CommandResult capped = run_vitals("list >/dev/null; " + env + "VITALS_MAX_CPU_ISA=avx2 " + vitals + "machine --json " +
                                            (dir_ / "capped.json").string());
    ASSERT_EQ(capped.exit_code, 0) << capped.err;
    EXPECT_EQ(nlohmann::json::parse(slurp(dir_ / "capped.json")).at("vector_isa"), under_cap);
    // The table names the cap where it lowered the width, and only there.
    EXPECT_EQ(capped.out.find(under_cap + " under VITALS_MAX_CPU_ISA") != std::string::npos, widest != under_cap) << capped.out;
    const CommandResult plain = run_vitals("list >/dev/null; " + env + vitals + "machine --json " + (dir_ / "plain.json").string());
    ASSERT_EQ(plain.exit_code, 0) << plain.err;
    EXPECT_EQ(nlohmann::json::parse(slurp(dir_ / "plain.json")).at("vector_isa"), widest);
    EXPECT_EQ(plain.out.find("VITALS_MAX_CPU_ISA"), std::string::npos) << plain.out;
    if (widest != under_cap) {
        EXPECT_NE(plain.err.find("measuring L1 bandwidth, one core"), std::string::npos) << "the capped figures were taken:\n"
                                                                                        << plain.err;
    }
    std::size_t cached = 0;
    for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir_ / "cache")) ++cached;
    EXPECT_EQ(cached, widest != under_cap ? 2u : 1u);

    const CommandResult bad = run_vitals("list >/dev/null; " + env + "VITALS_MAX_CPU_ISA=sse9 " + vitals + "machine --refresh");
    EXPECT_NE(bad.exit_code, 0);
    EXPECT_NE(bad.err.find("VITALS_MAX_CPU_ISA='sse9'"), std::string::npos) << bad.err;
    EXPECT_EQ(bad.err.find("measuring"), std::string::npos) << bad.err;
}

// `vitals machine` measures once and caches; --roofline then places cases against it:
// the matmul is compute-bound, relu (no flops) memory-bound, and the results file keeps
// the machine's ceilings and each case's point.
TEST_F(Cli, MachineFiguresAndTheRoofline) {
    const std::string env = "VITALS_CACHE_DIR=" + (dir_ / "cache").string() + " ";
    const std::string vitals = std::string(VITALS_BINARY_DIR) + "/bin/vitals ";
    const CommandResult measured = run_vitals("list >/dev/null; " + env + vitals + "machine --json " + (dir_ / "m.json").string());
    ASSERT_EQ(measured.exit_code, 0) << measured.err;
    EXPECT_NE(measured.out.find("bandwidth, one core"), std::string::npos) << measured.out;
    EXPECT_NE(measured.out.find("peak (FMA chains)"), std::string::npos) << measured.out;
    // The device half: its figures, or why there are none (no device here, or no CUDA build).
    EXPECT_TRUE(measured.out.find("CUDA device 0: copy ") != std::string::npos ||
                measured.out.find("no device measured: ") != std::string::npos)
        << measured.out;
    EXPECT_NE(measured.err.find("measuring L1 bandwidth, one core"), std::string::npos) << measured.err;
    const auto figures = nlohmann::json::parse(slurp(dir_ / "m.json"));
    EXPECT_GT(figures.at("peak_flops").at("f32_one_core").get<double>(), 0);
    const CommandResult cached = run_vitals("list >/dev/null; " + env + vitals + "machine");
    ASSERT_EQ(cached.exit_code, 0) << cached.err;
    EXPECT_NE(cached.err.find("--refresh measures again"), std::string::npos) << cached.err;

    const CommandResult matmul = run_vitals("list >/dev/null; " + env + vitals + "timeit matmul/128x128/cpu-f32 --min-run-time 0.02 --roofline");
    ASSERT_EQ(matmul.exit_code, 0) << matmul.err;
    EXPECT_NE(matmul.out.find("  Throughput: "), std::string::npos) << matmul.out;
    // Compute-bound in a plain build; a sanitizer slows the streaming probes far more than
    // the FMA chains, so there the bandwidth ceiling may be the lower one.
    const std::string verdict = VITALS_SANITIZED ? "(compute-bound|memory-bound \\([A-Za-z0-9]+\\))" : "compute-bound";
    EXPECT_TRUE(std::regex_search(matmul.out, std::regex("  Roofline: [0-9]+% of [0-9.]+ GFLOP/s \\(" + verdict +
                                                         "\\), 21.33 flop/byte")))
        << matmul.out;
    const std::string results = (dir_ / "r.json").string();
    const CommandResult run = run_vitals("list >/dev/null; " + env + vitals +
                                         "run --filter '^relu/32x1024/cpu-f32$' --min-run-time 0.02 --roofline --json " + results);
    ASSERT_EQ(run.exit_code, 0) << run.err;
    EXPECT_TRUE(std::regex_search(run.out, std::regex("relu/32x1024/cpu-f32 .* GB/s +[0-9]+%  memory-bound \\(L[123]\\)"))) << run.out;
    const auto doc = nlohmann::json::parse(slurp(results));
    EXPECT_TRUE(doc.at("context").contains("vitals_machine"));
    bool placed = false;
    for (const auto& b : doc.at("benchmarks")) {
        if (b.value("aggregate_name", "") == "median") placed = b.contains("vitals_roofline");
    }
    EXPECT_TRUE(placed);

    // The HTML report draws the roofline from the file: the ceilings and, for two files,
    // each case that states its flops as two points joined by an arrow.
    const std::string matmuls = (dir_ / "mm.json").string(), matmuls2 = (dir_ / "mm2.json").string();
    for (const std::string& out : {matmuls, matmuls2}) {
        ASSERT_EQ(run_vitals("list >/dev/null; " + env + vitals + "run --filter '^matmul/128x128/cpu' --min-run-time 0.02 --roofline --json " + out).exit_code, 0);
    }
    ASSERT_EQ(run_vitals("report " + matmuls + " " + matmuls2 + " --html " + (dir_ / "r.html").string()).exit_code, 0);
    const std::string html = slurp(dir_ / "r.html");
    EXPECT_NE(html.find("class=\"roofline\""), std::string::npos);
    EXPECT_NE(html.find("f32 peak"), std::string::npos);
    const auto count = [&](const std::string& what) {
        std::size_t n = 0;
        for (std::size_t at = html.find(what); at != std::string::npos; at = html.find(what, at + 1)) ++n;
        return n;
    };
    EXPECT_EQ(count("<circle class=\"case\""), 4u) << "two matmuls in two files";
    EXPECT_EQ(count("<line class=\"move\""), 2u) << "an arrow per case";
}

// What a report says must be true of the samples: a zero median before is not "+0.00%
// same", and names from a file can neither forge markdown rows nor drive the terminal.
TEST_F(Cli, ReportsStayHonestWithZeroMediansAndHostileNames) {
    const auto results = [](const std::string& name, double base) {
        std::string entries;
        for (int b = 0; b < 12; ++b) {
            entries += std::string(entries.empty() ? "" : ",") + R"({"name": )" + nlohmann::json(name).dump() +
                       R"(, "run_type": "iteration", "time_unit": "ns", "real_time": )" +
                       std::to_string(base == 0 ? 0.0 : base + b * 0.01) + "}";
        }
        return "{\"benchmarks\": [" + entries + "]}";
    };
    std::ofstream(dir_ / "zero.json") << results("op", 0);
    std::ofstream(dir_ / "some.json") << results("op", 5);
    const CommandResult zero = run_vitals("compare " + (dir_ / "zero.json").string() + " " + (dir_ / "some.json").string());
    ASSERT_EQ(zero.exit_code, 0) << zero.err;
    EXPECT_NE(zero.out.find("from 0"), std::string::npos) << zero.out;
    EXPECT_NE(zero.out.find("slower"), std::string::npos) << zero.out;
    EXPECT_EQ(zero.out.find("+0.00%"), std::string::npos) << zero.out;

    const std::string hostile = "a|b`c\n| forged | row |\x1b[31mred";
    std::ofstream(dir_ / "h1.json") << results(hostile, 5);
    std::ofstream(dir_ / "h2.json") << results(hostile, 6);
    const CommandResult text = run_vitals("compare " + (dir_ / "h1.json").string() + " " + (dir_ / "h2.json").string());
    ASSERT_EQ(text.exit_code, 0) << text.err;
    EXPECT_EQ(text.out.find('\x1b'), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("a|b`c\\x0a| forged | row |\\x1b[31mred"), std::string::npos) << text.out;
    ASSERT_EQ(run_vitals("report " + (dir_ / "h1.json").string() + " " + (dir_ / "h2.json").string() + " --markdown " +
                         (dir_ / "r.md").string())
                  .exit_code,
              0);
    const std::string md = slurp(dir_ / "r.md");
    EXPECT_EQ(md.find("\n| forged"), std::string::npos) << md;
    EXPECT_NE(md.find("``a\\|b`c\\x0a\\| forged \\| row \\|\\x1b[31mred``"), std::string::npos) << md;
}

TEST_F(Cli, ProfileWithAScheduleWritesOneTracePerCycle) {
    const fs::path logs = dir_ / "logs";
    const CommandResult r = run_vitals("profile relu/32x1024/cpu-f32 --wait 1 --warmup 1 --active 2 --steps 8 --trace-dir " +
                                       logs.string() + " --worker w0");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("(trace 1)"), std::string::npos);
    EXPECT_NE(r.out.find("(trace 2)"), std::string::npos);
    EXPECT_NE(r.out.find("ProfilerStep*"), std::string::npos);
    int files = 0;
    for (const auto& entry : fs::directory_iterator(logs)) {
        EXPECT_EQ(entry.path().filename().string().rfind("w0.", 0), 0u);
        ++files;
    }
    EXPECT_EQ(files, 2);
}

TEST_F(Cli, CompareTwoRunsAndWriteJson) {
    const std::string a = (dir_ / "a.json").string(), b = (dir_ / "b.json").string(), c = (dir_ / "c.json").string();
    ASSERT_EQ(run_vitals("run --filter '^relu/32x1024/cpu' --min-run-time 0.02 --json " + a).exit_code, 0);
    ASSERT_EQ(run_vitals("run --filter '^(relu/32x1024/cpu-f32|mlp_forward/32x512/cpu-f32)$' --min-run-time 0.02 --json " + b)
                  .exit_code,
              0);
    const CommandResult r = run_vitals("compare " + a + " " + b + " --json " + c);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("relu/32x1024/cpu-f32"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("geomean"), std::string::npos);
    EXPECT_NE(r.out.find("(removed): relu/32x1024/cpu-f64"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("(added): mlp_forward/32x512/cpu-f32"), std::string::npos) << r.out;
    const auto doc = nlohmann::json::parse(slurp(c));
    ASSERT_EQ(doc.at("cases").size(), 1u);
    const auto& row = doc.at("cases")[0];
    EXPECT_EQ(row.at("name"), "relu/32x1024/cpu-f32");
    for (const char* key : {"before_median", "after_median", "change", "p_value"}) EXPECT_TRUE(row.at(key).is_number());
    const std::string verdict = row.at("verdict");
    EXPECT_TRUE(verdict == "faster" || verdict == "slower" || verdict == "same") << verdict;
}

TEST_F(Cli, CompareReadsGoogleBenchmarkOutput) {
    const fs::path bench = fs::path(VITALS_BINARY_DIR) / "bin" / "vitals_bench_profiler";
    if (!fs::exists(bench)) GTEST_SKIP() << "benchmarks not built (VITALS_BUILD_BENCHES=OFF)";
    const fs::path gb = dir_ / "gb.json";
    const std::string command = bench.string() + " --benchmark_filter=BM_Clock --benchmark_repetitions=3 " +
                                "--benchmark_min_time=0.01 --benchmark_out_format=json --benchmark_out=" + gb.string() +
                                " >/dev/null 2>&1";
    ASSERT_EQ(std::system(command.c_str()), 0);
    const CommandResult r = run_vitals("compare " + gb.string() + " " + gb.string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("BM_ClockSteady"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("same"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("fewer than 9 blocks"), std::string::npos) << r.out;  // 3 repetitions
}

TEST_F(Cli, CompareRefusesBadFiles) {
    std::ofstream(dir_ / "truncated.json") << "{\"benchmarks\": [";
    std::ofstream(dir_ / "layout.json") << "{\"results\": []}";
    std::ofstream(dir_ / "empty.json") << "";
    std::ofstream(dir_ / "other.json") << R"({"benchmarks": [{"name": "x", "run_type": "iteration", "real_time": 1, "time_unit": "ns"}]})";
    std::ofstream(dir_ / "unit.json") << R"({"benchmarks": [{"name": "y", "real_time": 1, "time_unit": "fortnights"}]})";
    const std::string d = dir_.string() + "/";
    expect_usage_error("compare " + d + "truncated.json " + d + "other.json", "is not JSON");
    expect_usage_error("compare " + d + "layout.json " + d + "other.json", "no \"benchmarks\" list");
    expect_usage_error("compare " + d + "empty.json " + d + "other.json", "is not JSON");
    expect_usage_error("compare " + d + "missing.json " + d + "other.json", "cannot read");
    expect_usage_error("compare " + d + "unit.json " + d + "other.json", "unknown time_unit");
    std::ofstream(dir_ / "y.json") << R"({"benchmarks": [{"name": "y", "run_type": "iteration", "real_time": 1, "time_unit": "ns"}]})";
    expect_usage_error("compare " + d + "other.json", "after");
    expect_usage_error("compare " + d + "other.json " + d + "other.json --alpha 2", "--alpha");
}

TEST_F(Cli, ShardsCoverEveryCaseOnceAndMerge) {
    const std::string d = dir_.string() + "/";
    std::set<std::string> seen;
    for (int k = 0; k < 3; ++k) {
        const CommandResult r = run_vitals("run --filter '^relu/' --min-run-time 0.01 --shard " + std::to_string(k) + "/3 --json " +
                                           d + "s" + std::to_string(k) + ".json");
        ASSERT_EQ(r.exit_code, 0) << r.err;
        EXPECT_NE(r.err.find("shard " + std::to_string(k) + "/3:"), std::string::npos) << r.err;
        const auto doc = nlohmann::json::parse(slurp(d + "s" + std::to_string(k) + ".json"));
        EXPECT_EQ(doc.at("context").at("vitals_shard"), std::to_string(k) + "/3");
        for (const auto& b : doc.at("benchmarks")) {
            const std::string name = b.at("run_name");
            if (b.at("run_type") == "aggregate" || b.value("repetition_index", 0) != 0) continue;
            EXPECT_TRUE(seen.insert(name).second) << name << " ran in two shards";
        }
    }
    EXPECT_EQ(seen.size(), 4u);  // relu: cpu and cuda, f32 and f64
    const CommandResult merged = run_vitals("merge " + d + "s0.json " + d + "s1.json " + d + "s2.json -o " + d + "all.json");
    ASSERT_EQ(merged.exit_code, 0) << merged.err;
    std::set<std::string> merged_names;
    const auto all = nlohmann::json::parse(slurp(d + "all.json"));  // must outlive the loop
    for (const auto& b : all.at("benchmarks")) merged_names.insert(b.at("run_name"));
    EXPECT_EQ(merged_names, seen);
    expect_usage_error("merge " + d + "s0.json " + d + "s0.json -o " + d + "twice.json", "is in both");
    expect_usage_error("merge " + d + "s0.json", "--output");
    expect_usage_error("run --shard 3/2", "0 <= K < N");
    expect_usage_error("run --shard x", "K/N");
}

TEST_F(Cli, ShardComesFromTheLaunchersEnvironment) {
    const CommandResult r = run_vitals("list >/dev/null; SLURM_PROCID=1 SLURM_NTASKS=2 " + std::string(VITALS_BINARY_DIR) +
                                       "/bin/vitals run --filter '^relu/32x1024/cpu' --min-run-time 0.01");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("shard 1/2: 1 of 2 cases"), std::string::npos) << r.err;
}

TEST_F(Cli, RunAgainstABaselineProfilesWhatGotSlower) {
    const std::string d = dir_.string() + "/";
    // A fake baseline where relu took 1 ns per call: this run is certainly slower. 100
    // blocks, so that even one block of this run is significant (U test p = 2/101).
    std::string entries;
    for (int i = 0; i < 100; ++i) {
        entries += std::string(i ? "," : "") + R"({"name": "relu/32x1024/cpu-f32", "run_type": "iteration", "real_time": )" +
                   std::to_string(1.0 + 0.01 * i) + R"(, "time_unit": "ns"})";
    }
    std::ofstream(d + "base.json") << "{\"benchmarks\": [" + entries + "]}";
    const CommandResult r = run_vitals("run --filter '^relu/32x1024/cpu-f32$' --min-run-time 0.02 --baseline " + d +
                                       "base.json --profile-slow 10 --json " + d + "now.json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("slower"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("relu/32x1024/cpu-f32 is slower; its profile:"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("Self CPU time total"), std::string::npos) << r.out;
    EXPECT_TRUE(fs::exists(d + "relu_32x1024_cpu-f32.pt.trace.json"));
    // Profiled as a baseline profile would be: one window of the default 100 calls, the
    // table as `profile` prints it.
    EXPECT_NE(r.out.find("relu: 32x1024 (100 calls)"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\nCalls: 100 in one window\n"), std::string::npos) << r.out;
    // No baseline trace: said, and how to get one.
    EXPECT_NE(r.out.find("no baseline trace of relu/32x1024/cpu-f32: " + d +
                         "base.json names no trace folder; run the baseline with 'vitals run --trace-dir DIR'"),
              std::string::npos)
        << r.out;
    expect_usage_error("run --profile-slow 10", "--baseline");
    expect_usage_error("run --filter relu --baseline " + d + "missing.json", "cannot read");
    expect_usage_error("run --filter relu --baseline " + d + "base.json --profile-slow 10 --sort-by nonsense", "--sort-by");
    expect_usage_error("run --filter relu --sort-by count", "--profile-slow");
}

// run --trace-dir writes a trace per case and records the folder in the results; a later
// run --baseline --profile-slow profiles with the count that trace holds and compares the
// two per operator call.
TEST_F(Cli, ProfileSlowComparesWithTheBaselinesTrace) {
    const std::string d = dir_.string() + "/";
    const std::string filter = "--filter '^relu/32x1024/cpu-f32$' --min-run-time 0.02 ";
    const CommandResult base = run_vitals("run " + filter + "--json " + d + "base.json --trace-dir " + d + "traces");
    ASSERT_EQ(base.exit_code, 0) << base.err;
    const fs::path trace = dir_ / "traces" / "relu_32x1024_cpu-f32.pt.trace.json";
    ASSERT_TRUE(fs::exists(trace)) << base.err;
    nlohmann::json doc = nlohmann::json::parse(slurp(d + "base.json"));
    EXPECT_EQ(doc.at("context").at("vitals_trace_dir"), "traces");  // relative to the results file
    // The baseline made certainly faster (1 ns a call, 100 blocks: one block of this run
    // is enough for a verdict), its trace said to hold 37 calls: the slower case is
    // profiled with 37, and the two windows' totals compare.
    nlohmann::json fast = nlohmann::json::array();
    for (int i = 0; i < 100; ++i) {
        fast.push_back({{"name", "relu/32x1024/cpu-f32"}, {"run_type", "iteration"}, {"real_time", 1.0 + 0.01 * i}, {"time_unit", "ns"}});
    }
    doc["benchmarks"] = fast;
    std::ofstream(d + "base.json") << doc.dump();
    std::string text = slurp(trace);
    const std::size_t at = text.find("(100 calls)");
    ASSERT_NE(at, std::string::npos);
    std::ofstream(trace) << text.replace(at, 11, "(37 calls)");
    const CommandResult r = run_vitals("run " + filter + "--baseline " + d + "base.json --profile-slow 10 --row-limit 3 --json " +
                                       d + "now.json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("relu: 32x1024 (37 calls)"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("relu/32x1024/cpu-f32 against the baseline's trace:\nbefore: " + trace.string() +
                         " (37 calls of relu: 32x1024)\nafter:  " + d + "relu_32x1024_cpu-f32.pt.trace.json (37 calls of "
                         "relu: 32x1024)\n"),
              std::string::npos)
        << r.out;
    // Both windows hold 37 statement calls: the total change is shown; relu's own calls are
    // what each trace holds.
    const std::size_t compared = r.out.find("against the baseline's trace:");
    EXPECT_NE(r.out.find("  total change\n", compared), std::string::npos) << r.out;
    EXPECT_TRUE(std::regex_search(r.out.substr(compared), std::regex("\nrelu +100 +37 "))) << r.out;
    EXPECT_EQ(r.out.find("no baseline trace"), std::string::npos) << r.out;
    expect_usage_error("run " + filter + "--trace-dir " + d + "base.json", "--trace-dir");  // a file is in the way
}

TEST_F(Cli, InstructionCountsAreIdenticalAcrossRuns) {
    if (VITALS_SANITIZED) GTEST_SKIP() << "sanitizer builds do not run under Valgrind";
    if (std::system("command -v valgrind >/dev/null 2>&1") != 0) GTEST_SKIP() << "valgrind is not installed";
    const auto count = [&] {
        const CommandResult r = run_vitals("timeit relu/32x1024/cpu-f32 --instructions --number 5");
        EXPECT_EQ(r.exit_code, 0) << r.err;
        const auto at = r.out.find(" instructions per call");
        EXPECT_NE(at, std::string::npos) << r.out;
        const auto start = r.out.rfind(' ', at - 1) + 1;
        return std::stol(r.out.substr(start, at - start));
    };
    const long first = count();
    EXPECT_GT(first, 32 * 1024 / 16);  // at least a vector instruction per 16 elements
    EXPECT_EQ(count(), first);
}

TEST_F(Cli, ReportDrawsEveryCaseInOneSelfContainedPage) {
    const std::string d = dir_.string() + "/";
    ASSERT_EQ(run_vitals("run --filter '^relu/32x1024/cpu' --min-run-time 0.02 --json " + d + "a.json").exit_code, 0);
    ASSERT_EQ(run_vitals("run --filter '^relu/32x1024/cpu' --min-run-time 0.02 --json " + d + "b.json").exit_code, 0);
    const CommandResult r = run_vitals("report " + d + "a.json " + d + "b.json --html " + d + "r.html --markdown " + d + "r.md");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string html = slurp(d + "r.html");
    EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
    EXPECT_EQ(html.find("<script"), std::string::npos);  // nothing fetched or run
    EXPECT_EQ(html.find("http://", html.find("<body")), std::string::npos);
    std::size_t svgs = 0;
    for (auto at = html.find("<svg"); at != std::string::npos; at = html.find("<svg", at + 1)) ++svgs;
    EXPECT_EQ(svgs, 2u);
    EXPECT_NE(html.find("relu/32x1024/cpu-f64"), std::string::npos);
    EXPECT_NE(html.find("p = "), std::string::npos);
    const std::string md = slurp(d + "r.md");
    EXPECT_NE(md.find("| case | before | after | change | p-value | verdict |"), std::string::npos) << md;
    EXPECT_NE(md.find("| `relu/32x1024/cpu-f32` |"), std::string::npos) << md;
    expect_usage_error("report " + d + "a.json", "--html");
    expect_usage_error("report " + d + "missing.json --html " + d + "x.html", "cannot read");
    EXPECT_FALSE(fs::exists(d + "x.html"));

    // A real browser renders it: a screenshot with something drawn (once, in the main build:
    // the browser is no code of ours to sanitize).
    if (VITALS_SANITIZED) return;
    if (std::system("command -v chromium >/dev/null 2>&1") != 0) GTEST_SKIP() << "chromium is not installed";
    const std::string shot = d + "r.png";
    const std::string command = "timeout 60 chromium --headless --no-sandbox --disable-gpu --window-size=900,900 --screenshot=" +
                                shot + " file://" + d + "r.html >/dev/null 2>&1";
    ASSERT_EQ(std::system(command.c_str()), 0);
    EXPECT_GT(fs::file_size(shot), 10'000u);
}

TEST_F(Cli, AFileComparedWithItselfIsSameAndHundredfoldFasterTimesAreFaster) {
    const std::string d = dir_.string() + "/";
    ASSERT_EQ(run_vitals("run --filter '^relu/32x1024/cpu' --min-run-time 0.1 --json " + d + "a.json").exit_code, 0);
    CommandResult r = run_vitals("compare " + d + "a.json " + d + "a.json --json " + d + "self.json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto self = nlohmann::json::parse(slurp(d + "self.json"));  // must outlive the loop
    for (const auto& c : self.at("cases")) EXPECT_EQ(c.at("verdict"), "same");
    // The same file with every time divided by 100: every block after is below every block
    // before, so the U test's p is 2 / C(2n, n) for n blocks a side, whatever n the speed
    // of this build gave (the exact test up to 8 blocks; below alpha from 4 blocks on).
    auto doc = nlohmann::json::parse(slurp(d + "a.json"));
    std::map<std::string, int> blocks;
    for (auto& b : doc["benchmarks"]) {
        if (!b.contains("real_time")) continue;
        b["real_time"] = b["real_time"].get<double>() * 0.01;
        ++blocks[b.at("run_name").get<std::string>()];
    }
    std::ofstream(d + "fast.json") << doc.dump();
    r = run_vitals("compare " + d + "a.json " + d + "fast.json --json " + d + "fast-cmp.json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto faster = nlohmann::json::parse(slurp(d + "fast-cmp.json"));  // must outlive the loop
    ASSERT_FALSE(faster.at("cases").empty());
    for (const auto& c : faster.at("cases")) {
        const int n = blocks.at(c.at("name").get<std::string>());
        double exact = 2;  // 2 / C(2n, n)
        for (int i = 1; i <= n; ++i) exact *= static_cast<double>(i) / (n + i);
        if (n <= 8) {
            EXPECT_NEAR(c.at("p_value").get<double>(), exact, exact * 1e-9) << n << " blocks";
        }
        EXPECT_EQ(c.at("verdict"), exact < 0.05 || n > 8 ? "faster" : "same") << n << " blocks";
        EXPECT_NEAR(c.at("change").get<double>(), -0.99, 1e-9);
    }
}

TEST_F(Cli, CompareTwoTracesOperatorByOperator) {
    const std::string d = dir_.string() + "/";
    ASSERT_EQ(run_vitals("profile mask_indices/1M/cpu-before --steps 2 --trace " + d + "before.pt.trace.json").exit_code, 0);
    ASSERT_EQ(run_vitals("profile mask_indices/1M/cpu-after --steps 2 --trace " + d + "after.pt.trace.json").exit_code, 0);
    const CommandResult r = run_vitals("compare " + d + "before.pt.trace.json " + d + "after.pt.trace.json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("self CPU time per operator"), std::string::npos) << r.out;
    // The copy to the host exists only before: it shows as gone.
    const auto copy = r.out.find("\ncopy_to ");
    ASSERT_NE(copy, std::string::npos) << r.out;
    const std::string line = r.out.substr(copy + 1, r.out.find('\n', copy + 1) - copy - 1);
    // Two calls before, none after: gone, per call of the operator and of the statement.
    EXPECT_TRUE(std::regex_search(line, std::regex(R"(^copy_to +2 +0 +[0-9.]+ [mun]?s +- +gone +[0-9.]+ [mun]?s +- +gone)"))) << line;
    // Both traces hold two calls of their statement: the totals compare.
    EXPECT_NE(r.out.find("  total change\n"), std::string::npos) << r.out;
}

TEST_F(Cli, TracesOfADistributedRunCarryTheRank) {
    const fs::path logs = dir_ / "logs";
    const CommandResult r = run_vitals("list >/dev/null; RANK=1 WORLD_SIZE=2 " + std::string(VITALS_BINARY_DIR) +
                                       "/bin/vitals profile relu/32x1024/cpu-f32 --trace-dir " + logs.string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    int files = 0;
    for (const auto& entry : fs::directory_iterator(logs)) {
        ++files;
        EXPECT_NE(entry.path().filename().string().find("_rank1."), std::string::npos) << entry.path();
        const auto doc = nlohmann::json::parse(slurp(entry.path()));
        EXPECT_EQ(doc.at("distributedInfo").at("rank"), 1);
        EXPECT_EQ(doc.at("distributedInfo").at("world_size"), 2);
    }
    EXPECT_EQ(files, 1);
}

// The job's rank from flags, for workers started without a launcher: HTA reads the rank
// from distributedInfo alone.
TEST_F(Cli, ProfileTakesTheRankFromFlags) {
    const std::string trace = (dir_ / "r.pt.trace.json").string();
    const CommandResult r = run_vitals("profile relu/32x1024/cpu-f32 --rank 3 --world-size 4 --trace " + trace);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto doc = nlohmann::json::parse(slurp(trace));
    EXPECT_EQ(doc.at("distributedInfo").at("rank"), 3);
    EXPECT_EQ(doc.at("distributedInfo").at("world_size"), 4);
    const CommandResult past = run_vitals("profile relu/32x1024/cpu-f32 --rank 4 --world-size 4");
    EXPECT_EQ(past.exit_code, 2);
    EXPECT_NE(past.err.find("--rank 4 is not below --world-size 4"), std::string::npos) << past.err;
    EXPECT_EQ(run_vitals("profile relu/32x1024/cpu-f32 --rank 1").exit_code, 2);  // without --world-size
}

// compare reads every trace users have: ours gzipped, Kineto's (its span of the whole
// recording is no operator) and the bare list of torch's legacy profiler; a trace beside
// a results file is refused, naming both.
TEST_F(Cli, CompareReadsGzippedKinetoAndLegacyTraces) {
    const fs::path logs = dir_ / "logs";
    ASSERT_EQ(run_vitals("profile relu/32x1024/cpu-f32 --steps 1 --gzip --trace-dir " + logs.string()).exit_code, 0);
    std::string gzipped;
    for (const auto& entry : fs::directory_iterator(logs)) gzipped = entry.path().string();
    ASSERT_NE(gzipped.find(".pt.trace.json.gz"), std::string::npos) << gzipped;
    std::ofstream(dir_ / "kineto.json") << R"json({"schemaVersion": 1, "traceEvents": [
        {"ph": "X", "cat": "Trace", "name": "PyTorch Profiler (0)", "pid": "Spans", "tid": "PyTorch Profiler", "ts": 0, "dur": 900},
        {"ph": "X", "cat": "cpu_op", "name": "relu", "pid": 7, "tid": 7, "ts": 10, "dur": 5}]})json";
    std::ofstream(dir_ / "legacy.json") << R"([
        {"name": "relu", "ph": "X", "ts": 10.5, "dur": 3.0, "tid": 1, "pid": "CPU functions", "args": {}},
        {"name": "clamp_min", "ph": "X", "ts": 11.0, "dur": 2.0, "tid": 1, "pid": "CPU functions", "args": {}}])";
    const CommandResult kineto = run_vitals("compare " + (dir_ / "kineto.json").string() + " " + gzipped);
    ASSERT_EQ(kineto.exit_code, 0) << kineto.err;
    EXPECT_NE(kineto.out.find("\nrelu "), std::string::npos) << kineto.out;
    EXPECT_EQ(kineto.out.find("PyTorch Profiler"), std::string::npos) << kineto.out;
    const CommandResult legacy = run_vitals("compare " + (dir_ / "legacy.json").string() + " " + (dir_ / "kineto.json").string());
    ASSERT_EQ(legacy.exit_code, 0) << legacy.err;
    EXPECT_NE(legacy.out.find("clamp_min"), std::string::npos) << legacy.out;
    std::ofstream(dir_ / "results.json") << R"({"benchmarks": [{"name": "x", "run_type": "iteration", "real_time": 1, "time_unit": "ns"}]})";
    const CommandResult mixed = run_vitals("compare " + (dir_ / "results.json").string() + " " + (dir_ / "legacy.json").string());
    EXPECT_EQ(mixed.exit_code, 2);
    EXPECT_NE(mixed.err.find("'" + (dir_ / "legacy.json").string() + "' is a trace but '" + (dir_ / "results.json").string() +
                             "' is not"),
              std::string::npos)
        << mixed.err;
}

// SIGINT (Ctrl-C), SIGTERM and SIGHUP (a batch system's time limit, scancel, a closed
// terminal) stop the run within a block; what was measured is written beside the
// results file, marked incomplete, and the complete file from before stays as it was.
// Under a launcher, ranks never write one file: "{rank}" names each rank's file, and
// without it the rank goes before the extension. Disagreeing launchers are an error.
TEST_F(Cli, EachRankWritesItsOwnFile) {
    const std::string vitals = std::string(VITALS_BINARY_DIR) + "/bin/vitals";
    const std::string placeholder = (dir_ / "r{rank}.json").string();
    const CommandResult named = run_vitals("list >/dev/null; RANK=1 WORLD_SIZE=2 " + vitals +
                                           " timeit relu/32x1024/cpu-f32 --min-run-time 0.01 --json " + placeholder);
    ASSERT_EQ(named.exit_code, 0) << named.err;
    EXPECT_TRUE(fs::exists(dir_ / "r1.json"));
    const CommandResult plain = run_vitals("list >/dev/null; RANK=1 WORLD_SIZE=2 " + vitals +
                                           " timeit relu/32x1024/cpu-f32 --min-run-time 0.01 --json " +
                                           (dir_ / "out.json").string());
    ASSERT_EQ(plain.exit_code, 0) << plain.err;
    EXPECT_TRUE(fs::exists(dir_ / "out.rank1.json"));
    EXPECT_FALSE(fs::exists(dir_ / "out.json"));
    EXPECT_NE(plain.err.find("rank 1 of 2 writes " + (dir_ / "out.rank1.json").string()), std::string::npos) << plain.err;
    const CommandResult conflict = run_vitals("list >/dev/null; SLURM_PROCID=0 SLURM_NTASKS=2 RANK=1 WORLD_SIZE=2 " + vitals +
                                              " run --filter relu --json " + (dir_ / "c.json").string());
    EXPECT_EQ(conflict.exit_code, 2);
    EXPECT_NE(conflict.err.find("SLURM_PROCID=0"), std::string::npos) << conflict.err;
    EXPECT_NE(conflict.err.find("RANK=1"), std::string::npos) << conflict.err;
}

// The real Open MPI launcher (Debian's openmpi-bin, which `make test` installs): two
// ranks, two files, and merging them gives every case once.
TEST_F(Cli, MpirunRanksShardTheCasesAndMergeWhole) {
    if (VITALS_SANITIZED) GTEST_SKIP() << "the launcher is checked once, in the main build";
    if (std::system("command -v mpirun >/dev/null 2>&1") != 0) GTEST_SKIP() << "mpirun is not installed (make test installs openmpi-bin)";
    const std::string vitals = std::string(VITALS_BINARY_DIR) + "/bin/vitals";
    const std::string out = (dir_ / "out.json").string();
    const std::string command = "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun --oversubscribe -n 2 " +
                                vitals + " run --filter '^relu/32x1024/cpu' --min-run-time 0.01 --json " + out + " >" +
                                (dir_ / "mpirun.log").string() + " 2>&1";
    ASSERT_EQ(std::system(command.c_str()), 0) << slurp(dir_ / "mpirun.log");
    EXPECT_FALSE(fs::exists(out));
    ASSERT_TRUE(fs::exists(dir_ / "out.rank0.json")) << slurp(dir_ / "mpirun.log");
    ASSERT_TRUE(fs::exists(dir_ / "out.rank1.json")) << slurp(dir_ / "mpirun.log");
    const CommandResult merged = run_vitals("merge " + (dir_ / "out.rank0.json").string() + " " +
                                            (dir_ / "out.rank1.json").string() + " -o " + (dir_ / "all.json").string());
    ASSERT_EQ(merged.exit_code, 0) << merged.err;
    std::map<std::string, int> aggregates;
    const auto doc = nlohmann::json::parse(slurp(dir_ / "all.json"));
    for (const auto& b : doc.at("benchmarks")) {
        if (b.value("aggregate_name", "") == "median") ++aggregates[b.at("run_name").get<std::string>()];
    }
    EXPECT_EQ(aggregates, (std::map<std::string, int>{{"relu/32x1024/cpu-f32", 1}, {"relu/32x1024/cpu-f64", 1}}));
}

TEST_F(Cli, InterruptedRunWritesWhatItHasBesideTheFile) {
    for (const auto& [signal, number] : {std::pair{"INT", 2}, std::pair{"TERM", 15}, std::pair{"HUP", 1}}) {
        SCOPED_TRACE(signal);
        const std::string json = (dir_ / "results.json").string();
        const std::string partial = (dir_ / "results.partial.json").string();
        std::ofstream(json) << "complete results from before";
        fs::remove(partial);
        // The last signal's log must not be read as this run's progress: the background
        // job truncates it only once it starts, and a kill before the handlers are in place
        // would end the program with the default action.
        fs::remove(dir_ / "err");
        const std::string script = "( " + std::string(VITALS_BINARY_DIR) +
                                   "/bin/vitals run --filter '^(relu|mlp_forward)/.*cpu' --min-run-time 0.3 --json " +
                                   json + " >/dev/null 2>" + (dir_ / "err").string() +
                                   " & pid=$!; while kill -0 $pid 2>/dev/null && ! grep -q '\\[2/4\\]' " + (dir_ / "err").string() +
                                   "; do sleep 0.05; done; kill -" + signal + " $pid; wait $pid; exit $? )";
        const int status = std::system(script.c_str());
        ASSERT_TRUE(WIFEXITED(status));
        EXPECT_EQ(WEXITSTATUS(status), 128 + number);
        EXPECT_EQ(slurp(json), "complete results from before");
        const std::string err = slurp(dir_ / "err");
        EXPECT_NE(err.find(std::string("interrupted by SIG") + signal), std::string::npos) << err;
        EXPECT_NE(err.find("written to " + partial), std::string::npos) << err;
        const auto doc = nlohmann::json::parse(slurp(partial));  // whole, valid JSON
        EXPECT_EQ(doc.at("context").at("vitals_incomplete"), true);
        EXPECT_EQ(doc.at("context").at("vitals_cases_planned"), 4);
        std::set<std::string> measured;
        for (const auto& b : doc.at("benchmarks")) measured.insert(b.at("run_name").get<std::string>());
        EXPECT_GE(measured.size(), 1u);
        EXPECT_LT(measured.size(), 4u);
    }
}

TEST_F(Cli, AbInterleavesTwoCasesAndWritesEveryRound) {
    const fs::path json = dir_ / "ab.json";
    const CommandResult r = run_vitals("ab relu/32x1024/cpu-f32 relu/32x1024/cpu-f64 --max-run-time 0.5 --block-time 0.001 --json " +
                                       json.string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("Interleaved A/B: 2 alternatives"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("A  relu/32x1024/cpu-f32"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("B  relu/32x1024/cpu-f64"), std::string::npos) << r.out;
    const auto doc = nlohmann::json::parse(slurp(json));
    const auto& ab = doc.at("vitals_ab");
    EXPECT_TRUE(doc.at("context").contains("host_name"));
    EXPECT_TRUE(ab.at("complete").get<bool>());
    ASSERT_EQ(ab.at("alternatives").size(), 2u);
    EXPECT_EQ(ab.at("alternatives")[0].at("name"), "relu/32x1024/cpu-f32");
    EXPECT_EQ(ab.at("alternatives")[0].at("ratio").get<double>(), 1.0);
    EXPECT_EQ(ab.at("alternatives")[1].at("name"), "relu/32x1024/cpu-f64");
    const auto& rounds = ab.at("rounds");
    ASSERT_GE(rounds.size(), 1u);
    for (std::size_t i = 0; i < rounds.size(); ++i) {
        EXPECT_EQ(rounds[i].at("reversed").get<bool>(), i % 2 == 1);  // ABBA
        ASSERT_EQ(rounds[i].at("block_seconds").size(), 2u);
        EXPECT_GT(rounds[i].at("block_seconds")[1].get<double>(), 0.0);
    }
    // The median per call is the median of the blocks over their size.
    std::vector<double> per_call;
    const double number = ab.at("alternatives")[1].at("number_per_block").get<double>();
    for (const auto& round : rounds) per_call.push_back(round.at("block_seconds")[1].get<double>() / number);
    std::sort(per_call.begin(), per_call.end());
    const std::size_t n = per_call.size();
    const double median = n % 2 ? per_call[n / 2] : (per_call[n / 2 - 1] + per_call[n / 2]) / 2;
    EXPECT_NEAR(ab.at("alternatives")[1].at("median_seconds_per_call").get<double>(), median, median * 1e-12);
    const std::string stop = ab.at("stopped_by");
    EXPECT_TRUE(stop == "precision" || stop == "max_run_time") << stop;
}

TEST_F(Cli, AbRefusesTooFewCasesRepeatsUnknownAndSkippedCases) {
    expect_usage_error("ab relu/32x1024/cpu-f32", "ab compares two cases or more, got 1");
    expect_usage_error("ab relu/32x1024/cpu-f32 relu/32x1024/cpu-f32", "'relu/32x1024/cpu-f32' is given twice");
    expect_usage_error("ab relu/32x1024/cpu-f32 relu/32x1024/cpu-f6", "did you mean 'relu/32x1024/cpu-f64'");
    expect_usage_error("ab relu/32x1024/cpu-f32 relu/32x1024/cpu-f64 --precision 2", "--precision");
    expect_usage_error("ab relu/32x1024/cpu-f32 relu/32x1024/cpu-f64 --max-run-time 0.05 --min-run-time 1", "shorter than");
    expect_usage_error("ab relu/32x1024/cpu-f32 relu/32x1024/cpu-f64 --fail-on worse", "--fail-on");
    expect_usage_error("ab relu/32x1024/cpu-f32 relu/32x1024/cpu-f64 --block-time 1e6 --max-run-time 1",
                       "--block-time (1e+06 s) is longer than --max-run-time (1 s)");
    expect_usage_error("ab relu/32x1024/cpu-f32 relu/32x1024/cpu-f64 --min-rounds 0", "--min-rounds");
    expect_usage_error("ab relu/32x1024/cpu-f32 relu/32x1024/cpu-f64 --min-rounds 1.5", "--min-rounds");
    if (!vitals_has_gpu()) expect_usage_error("ab relu/32x1024/cpu-f32 relu/32x1024/cuda-f32", "cannot run here");
}

TEST_F(Cli, RunAgainstABaselineGatesOnTheNamedVerdict) {
    // A baseline at 1 ns a call in 100 blocks: this run is slower, whatever the machine and
    // however few blocks it times (one gives p = 2/101).
    {
        std::ofstream out(dir_ / "base.json");
        out << R"({"benchmarks": [)";
        for (int i = 0; i < 100; ++i) {
            out << (i ? "," : "") << R"({"name": "relu/32x1024/cpu-f32", "run_type": "iteration", "iterations": 1, "real_time": )"
                << 1 + 0.01 * i << R"(, "cpu_time": 1, "time_unit": "ns"})";
        }
        out << "]}";
    }
    const std::string run = "run --filter '^relu/32x1024/cpu-f32$' --min-run-time 0.05 --baseline " + (dir_ / "base.json").string();
    CommandResult r = run_vitals(run + " --json " + (dir_ / "new.json").string() + " --fail-on slower --junit " +
                                 (dir_ / "gate.xml").string());
    EXPECT_EQ(r.exit_code, 3) << r.err;
    EXPECT_NE(r.err.find("vitals: --fail-on slower: 1 case slower: relu/32x1024/cpu-f32"), std::string::npos) << r.err;
    EXPECT_TRUE(fs::exists(dir_ / "new.json"));
    // The JUnit file: the run's case passed, and the comparison's failed on its verdict.
    const std::string junit = slurp(dir_ / "gate.xml");
    EXPECT_NE(junit.find(R"(<testsuite name="vitals.run" tests="1" failures="0" skipped="0")"), std::string::npos) << junit;
    EXPECT_NE(junit.find(R"(<testcase classname="vitals.baseline" name="relu/32x1024/cpu-f32")"), std::string::npos) << junit;
    EXPECT_NE(junit.find(R"(<failure message="slower: +)"), std::string::npos) << junit;
    EXPECT_NE(junit.find(R"(type="slower">)"), std::string::npos) << junit;
    r = run_vitals(run + " --fail-on faster");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    expect_usage_error("run --filter '^relu/32x1024/cpu-f32$' --fail-on slower", "--baseline");
}

// ab --junit: a testcase for the second case, failed exactly when the gate fails.
TEST_F(Cli, AbWritesJUnitThatAgreesWithTheGate) {
    const fs::path junit = dir_ / "ab.xml";
    const CommandResult r = run_vitals("ab relu/32x1024/cpu-f32 relu/32x1024/cpu-f64 --min-run-time 0.05 --max-run-time 0.3 "
                                       "--block-time 0.002 --fail-on changed --junit " + junit.string());
    ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 3) << r.err;
    const std::string xml = slurp(junit);
    EXPECT_NE(xml.find(R"(<testsuite name="vitals.ab" tests="1")"), std::string::npos) << xml;
    EXPECT_NE(xml.find(R"(<testcase classname="vitals.ab" name="relu/32x1024/cpu-f64")"), std::string::npos) << xml;
    EXPECT_EQ(xml.find("relu/32x1024/cpu-f32\""), std::string::npos) << "the first case is the reference: " << xml;
    EXPECT_EQ(xml.find("<failure") != std::string::npos, r.exit_code == 3) << xml;
    EXPECT_NE(xml.find(" against relu/32x1024/cpu-f32 (ratio "), std::string::npos) << xml;
}

// The tutorial's before and after differ by far more than any noise: the gate closes on
// the named verdict, after the JSON is written, and stays open on the other one.
TEST_F(Cli, AbExitsThreeOnTheVerdictNamedByFailOn) {
    // Two statements 5x apart in any build (each spins until the clock has passed 100 us
    // or 20 us: a sanitizer slows the tutorial's kernels unevenly, not the clock), and 12
    // rounds whatever the speed of the build, not a time limit: the verdict is certain.
    const std::string pair = "--version >/dev/null; " + std::string(VITALS_BINARY_DIR) +
                             "/tests/vitals_unlabeled_bench ab spin/long spin/short --min-run-time 0.05 --max-run-time 1 "
                             "--min-rounds 12 --block-time 0.002 --precision 0.05 ";
    const fs::path json = dir_ / "ab.json";
    const CommandResult gated = run_vitals(pair + "--fail-on faster --json " + json.string());
    EXPECT_EQ(gated.exit_code, 3) << gated.out << gated.err;
    EXPECT_EQ(nlohmann::json::parse(slurp(json)).at("vitals_ab").at("alternatives").at(1).at("verdict"), "faster");
    const CommandResult open = run_vitals(pair + "--fail-on slower --json " + json.string());
    EXPECT_EQ(open.exit_code, 0) << open.out << open.err;
    EXPECT_EQ(nlohmann::json::parse(slurp(json)).at("vitals_ab").at("alternatives").at(1).at("verdict"), "faster");
}

TEST_F(Cli, AnInterruptedAbKeepsItsRoundsMarkedIncomplete) {
    const fs::path json = dir_ / "ab.json", out = dir_ / "stdout", err = dir_ / "stderr";
    // --precision tiny and a long limit: only the signal ends it. It is sent once the
    // command says it is sizing (its handlers are in place), however slow the build.
    const std::string command = "sh -c '" + std::string(VITALS_BINARY_DIR) +
                                "/bin/vitals ab relu/32x1024/cpu-f32 relu/32x1024/cpu-f64 --precision 0.000001 "
                                "--max-run-time 60 --block-time 0.001 --json " +
                                json.string() + " >" + out.string() + " 2>" + err.string() +
                                " & pid=$!; while kill -0 $pid 2>/dev/null && ! grep -q \"ab: sizing\" " + err.string() +
                                "; do sleep 0.05; done; sleep 0.5; kill -INT $pid; wait $pid; exit $?'";
    const int status = std::system(command.c_str());
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 128 + SIGINT);
    const auto doc = nlohmann::json::parse(slurp(json));
    EXPECT_TRUE(doc.at("context").at("vitals_incomplete").get<bool>());
    EXPECT_FALSE(doc.at("vitals_ab").at("complete").get<bool>());
    EXPECT_EQ(doc.at("vitals_ab").at("stopped_by"), "interrupted");
    EXPECT_GE(doc.at("vitals_ab").at("rounds").size(), 1u);
    EXPECT_NE(slurp(out).find("stopped: interrupted"), std::string::npos) << slurp(out);
}

namespace {

// A results file of one case, `blocks` blocks around `ns` nanoseconds a call.
void write_results(const fs::path& path, const std::string& name, double ns, int blocks = 20, int seed = 1) {
    std::ofstream out(path);
    out << R"({"context": {"host_name": "ci-host", "num_cpus": 4, "vitals_cpu_model": "Test CPU"}, "benchmarks": [)";
    for (int i = 0; i < blocks; ++i) {
        const double wobble = ((i * 7 + seed * 13) % 11 - 5) * 0.001;  // +-0.5%
        out << (i ? "," : "") << R"({"name": ")" << name << R"(", "run_type": "iteration", "iterations": 1, "real_time": )"
            << ns * (1 + wobble) << R"(, "cpu_time": 1, "time_unit": "ns"})";
    }
    out << "]}";
}

}  // namespace

TEST_F(Cli, HistoryFollowsACaseAcrossCommitsAndGatesARegression) {
    const std::string db = (dir_ / "h.sqlite").string();
    // 24 commits: 100 ns, then 110 ns from commit 13 on; commit 25 is 130 ns.
    for (int i = 1; i <= 25; ++i) {
        const fs::path file = dir_ / fmt::format("r{}.json", i);
        write_results(file, "x", i < 13 ? 100 : i < 25 ? 110 : 130, 20, i);
        const CommandResult r = run_vitals(fmt::format("history add {} --db {} --commit c{} --branch main --time 2026-11-{:02}T12:00:00Z",
                                                       file.string(), db, i, i));
        ASSERT_EQ(r.exit_code, 0) << r.err;
        if (i == 1) {
            EXPECT_NE(r.out.find("1 case of commit c1 (main, ci-host, Test CPU, 4 cores) recorded"), std::string::npos) << r.out;
        }
    }
    CommandResult r = run_vitals("history detect --db " + db);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("1 change point in 1 series"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("x  ci-host, Test CPU, 4 cores  main  c13  2026-11-13T12:00:00Z  +10."), std::string::npos) << r.out;
    r = run_vitals("history show x --db " + db);
    EXPECT_NE(r.out.find("c13         2026-11-13T12:00:00Z"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("<- step +10."), std::string::npos) << r.out;

    // The newest commit against the stretch since the step: slower, exit 3 with --fail-on.
    const fs::path md = dir_ / "check.md";
    r = run_vitals("history check --db " + db + " --commit c25 --fail-on slower --markdown " + md.string());
    EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
    EXPECT_NE(r.out.find("slower"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("against 12 commits"), std::string::npos) << r.out;
    EXPECT_NE(r.err.find("vitals: --fail-on slower: 1 case slower: x"), std::string::npos) << r.err;
    EXPECT_NE(slurp(md).find("| `x` |"), std::string::npos) << slurp(md);
    // A commit inside the stable stretch: same.
    r = run_vitals("history check --db " + db + " --commit c20 --fail-on slower");
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("same"), std::string::npos) << r.out;
    // The step's own commit, found as a change point.
    r = run_vitals("history check --db " + db + " --commit c13");
    EXPECT_NE(r.out.find("a change point at this commit"), std::string::npos) << r.out;

    // The trend page: one plot, a point per commit, the change point labelled.
    const fs::path page = dir_ / "trend.html";
    r = run_vitals("history report --db " + db + " --html " + page.string());
    EXPECT_EQ(r.exit_code, 0) << r.err;
    const std::string html = slurp(page);
    std::size_t circles = 0;
    for (std::size_t at = html.find("<circle"); at != std::string::npos; at = html.find("<circle", at + 1)) ++circles;
    EXPECT_EQ(circles, 25u);
    EXPECT_NE(html.find(">c13 +10."), std::string::npos) << html;
    EXPECT_NE(html.find("<h2>x</h2>"), std::string::npos);
    EXPECT_EQ(html.find("<script"), std::string::npos);

    // CSV: a header and one row per commit, read back.
    r = run_vitals("history export --db " + db + " --csv -");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::istringstream csv(r.out);
    std::string line;
    std::getline(csv, line);
    EXPECT_EQ(line, "case,machine,branch,commit,time,median_seconds,p25_seconds,p75_seconds,blocks,processes,cache");
    int rows = 0;
    while (std::getline(csv, line)) {
        ++rows;
        if (rows == 1) {
            EXPECT_EQ(line.rfind("x,\"ci-host, Test CPU, 4 cores\",main,c1,2026-11-01T12:00:00Z,", 0), 0u) << line;
        }
    }
    EXPECT_EQ(rows, 25);
}

// A disk that fills during a write (here a file size limit, which the kernel enforces as
// it would a full disk): the history stays as it was, the error says so, exit 1 (the
// database failed, the input did not).
TEST_F(Cli, AFullDiskDuringHistoryAddIsAFailureThatWritesNothing) {
    const std::string db = (dir_ / "h.sqlite").string();
    write_results(dir_ / "small.json", "x", 100);
    ASSERT_EQ(run_vitals("history add " + (dir_ / "small.json").string() + " --db " + db +
                         " --commit c1 --branch main --time 2026-12-01T00:00:00Z").exit_code, 0);
    const std::uintmax_t size = fs::file_size(db);
    write_results(dir_ / "big.json", "x", 100, 20000);
    const std::string limit = std::to_string(size / 512 + 2);  // ulimit -f counts 512-byte blocks (dash)
    const CommandResult r = run_vitals("--version >/dev/null; trap '' XFSZ; ulimit -f " + limit + "; " +
                                       std::string(VITALS_BINARY_DIR) + "/bin/vitals history add " + (dir_ / "big.json").string() +
                                       " --db " + db + " --commit c2 --branch main --time 2026-12-02T00:00:00Z");
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    EXPECT_NE(r.err.find("vitals: error: the history '" + db + "'"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("the disk that holds it"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("cannot rollback"), std::string::npos) << r.err;
    const CommandResult shown = run_vitals("history show --db " + db);
    EXPECT_EQ(shown.exit_code, 0) << shown.err;
    EXPECT_NE(shown.out.find(": 1 commit\n"), std::string::npos) << shown.out;
}

TEST_F(Cli, HistoryRefusesBadInputAndWritesNothing) {
    const std::string db = (dir_ / "h.sqlite").string();
    write_results(dir_ / "good.json", "x", 100);
    std::ofstream(dir_ / "bad.json") << "{\"benchmarks\": [";
    // A bad file among good ones: nothing recorded.
    expect_usage_error("history add " + (dir_ / "good.json").string() + " " + (dir_ / "bad.json").string() + " --db " + db +
                           " --commit c1 --branch main --time 2026-12-01T00:00:00Z",
                       "is not JSON");
    EXPECT_FALSE(fs::exists(db));
    expect_usage_error("history show --db " + db, "does not exist; record a run in it first");
    EXPECT_FALSE(fs::exists(db)) << "a reader created the history";
    expect_usage_error("history add " + (dir_ / "good.json").string() + " --db " + dir_.string() + " --commit c1 --branch m --time 2026-12-01T00:00:00Z",
                       "it is a folder");
    expect_usage_error("history add " + (dir_ / "good.json").string() + " --db " + db + " --commit c1 --branch m --time yesterday",
                       "no ISO 8601 time");
    expect_usage_error("history add " + (dir_ / "good.json").string() + " --db " + (dir_ / "good.json").string() +
                           " --commit c1 --branch m --time 2026-12-01T00:00:00Z",
                       "is not a vitals history");
    ASSERT_EQ(run_vitals("history add " + (dir_ / "good.json").string() + " --db " + db +
                         " --commit c1 --branch m --time 2026-12-01T00:00:00Z")
                  .exit_code,
              0);
    expect_usage_error("history add " + (dir_ / "good.json").string() + " --db " + db + " --commit c1 --branch m --time 2026-12-01T00:00:00Z",
                       "already has a warm result for 'x'");
    // Files are recorded together or not at all: the new case of a file given beside a
    // refused one is not written either, and the refusal names the file.
    write_results(dir_ / "other.json", "y", 100);
    expect_usage_error("history add " + (dir_ / "other.json").string() + " " + (dir_ / "good.json").string() + " --db " + db +
                           " --commit c1 --branch m --time 2026-12-01T00:00:00Z",
                       (dir_ / "good.json").string() + ": commit c1 already has a warm result for 'x'");
    EXPECT_EQ(run_vitals("history show y --db " + db).out.find("y  ["), std::string::npos);
    expect_usage_error("history check --db " + db + " --commit nope", "has no run of commit nope");
    expect_usage_error("history show --db postgresql://nobody@127.0.0.1:1/none?connect_timeout=2", "cannot connect to the history");
}

TEST_F(Cli, HistoryTakesTheCommitFromGitHere) {
    if (std::system("command -v git > /dev/null") != 0) GTEST_SKIP() << "git is not installed";
    const fs::path repo = dir_ / "repo";
    fs::create_directories(repo);
    const std::string git = "cd '" + repo.string() + "' && git -c init.defaultBranch=trunk init -q && git -c user.name=t -c "
                            "user.email=t@t commit -q --allow-empty -m one";
    ASSERT_EQ(std::system(git.c_str()), 0);
    write_results(repo / "r.json", "x", 100);
    const std::string command = "cd '" + repo.string() + "' && " + VITALS_BINARY_DIR + "/bin/vitals history add r.json --db h.sqlite > out.txt 2>&1";
    ASSERT_EQ(std::system(command.c_str()), 0) << slurp(repo / "out.txt");
    const std::string head = [&] {
        const std::string c = "cd '" + repo.string() + "' && git rev-parse HEAD > head.txt";
        EXPECT_EQ(std::system(c.c_str()), 0);
        std::string h = slurp(repo / "head.txt");
        return h.substr(0, 10);
    }();
    EXPECT_NE(slurp(repo / "out.txt").find("of commit " + head + " (trunk,"), std::string::npos) << slurp(repo / "out.txt");

    // run --history records the run as the checkout's commit, on this machine.
    const std::string run = "cd '" + repo.string() + "' && " + VITALS_BINARY_DIR +
                            "/bin/vitals run --filter '^relu/32x1024/cpu-f32$' --min-run-time 0.02 --history h.sqlite "
                            "> run.txt 2>&1";
    ASSERT_EQ(std::system(run.c_str()), 0) << slurp(repo / "run.txt");
    EXPECT_NE(slurp(repo / "run.txt").find("1 case of commit " + head + " recorded in h.sqlite"), std::string::npos)
        << slurp(repo / "run.txt");
    const std::string show = "cd '" + repo.string() + "' && " + VITALS_BINARY_DIR + "/bin/vitals history show --db h.sqlite > show.txt 2>&1";
    ASSERT_EQ(std::system(show.c_str()), 0);
    EXPECT_NE(slurp(repo / "show.txt").find("relu/32x1024/cpu-f32  ["), std::string::npos) << slurp(repo / "show.txt");
    // Outside a checkout: refused before anything is measured.
    const std::string outside = "cd '" + dir_.string() + "' && GIT_CEILING_DIRECTORIES='" + dir_.parent_path().string() + "' " +
                                VITALS_BINARY_DIR +
                                "/bin/vitals run --filter '^relu/32x1024/cpu-f32$' --history h.sqlite > outside.txt 2>&1";
    const int status = std::system(outside.c_str());
    EXPECT_EQ(WEXITSTATUS(status), 2) << slurp(dir_ / "outside.txt");
    EXPECT_NE(slurp(dir_ / "outside.txt").find("no git checkout"), std::string::npos) << slurp(dir_ / "outside.txt");
    EXPECT_EQ(slurp(dir_ / "outside.txt").find("[1/1]"), std::string::npos) << "measured before refusing";
}
