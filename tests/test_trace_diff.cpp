// `vitals compare` of two traces (profile_diff_report): per call of each operator and of
// the profiled statement, totals only for windows of the same size, per step with steps,
// and traces from other tools (no Timer.profile annotation).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "vitals/profiler/trace.hpp"
#include "vitals/results/trace_diff.hpp"

namespace fs = std::filesystem;

namespace {

// A host slice on thread 1 (microseconds).
struct Slice {
    std::string name;
    std::string cat;
    long ts, dur;
};

// A window of `calls` calls of the statement "relu: 32x1024", each one `op` slice of
// `op_us`, inside the Timer.profile annotation (omitted with annotate = false), starting
// at `at`; with `step` >= 0, wrapped in ProfilerStep#step. Returns the end.
long window(std::vector<Slice>& out, int calls, long op_us, long at, bool annotate = true, int step = -1,
            const std::string& op = "relu") {
    const long inside = calls * (op_us + 2) + 2;
    if (step >= 0) out.push_back({"ProfilerStep#" + std::to_string(step), "user_annotation", at, inside + 2});
    if (annotate) {
        out.push_back({"Timer.profile: relu: 32x1024 (" + std::to_string(calls) + (calls == 1 ? " call)" : " calls)"),
                       "user_annotation", at + 1, inside});
    }
    long t = at + 2;
    for (int i = 0; i < calls; ++i, t += op_us + 2) out.push_back({op, "cpu_op", t, op_us});
    return at + inside + 4;
}

class TraceDiff : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() / ("vitals-trace-diff-" + std::to_string(::getpid()) + "-" +
                                            ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }

    std::string write(const std::string& file, const std::vector<Slice>& slices) {
        std::ofstream out(dir_ / file);
        out << R"({"traceEvents": [)";
        for (std::size_t i = 0; i < slices.size(); ++i) {
            const Slice& s = slices[i];
            out << (i ? "," : "") << R"({"ph": "X", "cat": ")" << s.cat << R"(", "name": ")" << s.name
                << R"(", "pid": 1, "tid": 1, "ts": )" << s.ts << R"(, "dur": )" << s.dur << "}";
        }
        out << "]}";
        return (dir_ / file).string();
    }

    // The report's line for an operator.
    static std::string row(const std::string& report, const std::string& name) {
        const std::size_t at = report.find("\n" + name + " ");
        if (at == std::string::npos) return "";
        return report.substr(at + 1, report.find('\n', at + 1) - at - 1);
    }

    fs::path dir_;
};

}  // namespace

// The bug report's case: 4 calls before, 19 after, the operator 7x faster per call. The
// per-call columns say so; the totals are left out with a note saying why.
TEST_F(TraceDiff, UnequalCallCountsComparePerCallAndLeaveTotalsOut) {
    std::vector<Slice> before, after;
    window(before, 4, 70, 0);
    window(after, 19, 10, 0);
    const std::string report = vitals::profile_diff_report(write("before.json", before), write("after.json", after));
    EXPECT_NE(report.find("(4 calls of relu: 32x1024)"), std::string::npos) << report;
    EXPECT_NE(report.find("(19 calls of relu: 32x1024)"), std::string::npos) << report;
    EXPECT_NE(report.find("totals are not compared: the before trace holds 4 calls of the statement and the after trace "
                          "19; per-call times are\n"),
              std::string::npos)
        << report;
    EXPECT_EQ(report.find("total change"), std::string::npos) << report;
    // Every column labelled before or after.
    EXPECT_NE(report.find("calls before  calls after  self/call before  self/call after  change/call  self/stmt before  "
                          "self/stmt after  change/stmt\n"),
              std::string::npos)
        << report;
    // relu: 4 and 19 calls, 70 us and 10 us per call of it and of the statement: -85.7%.
    const std::regex relu(R"(relu +4 +19 +70\.00 us +10\.00 us +-85\.7% +70\.00 us +10\.00 us +-85\.7%)");
    EXPECT_TRUE(std::regex_match(row(report, "relu"), relu)) << report;
    // The annotation is one row whatever its count (its calls: one per window).
    EXPECT_TRUE(std::regex_search(row(report, "Timer.profile: relu: 32x1024"), std::regex(R"(^Timer.profile: relu: 32x1024 +1 +1 )")))
        << report;
}

// Windows of the same size: the total change is shown.
TEST_F(TraceDiff, EqualCallCountsShowTheTotalChange) {
    std::vector<Slice> before, after;
    window(before, 4, 70, 0);
    window(after, 4, 35, 0);
    const std::string report = vitals::profile_diff_report(write("before.json", before), write("after.json", after));
    EXPECT_EQ(report.find("totals are not compared"), std::string::npos) << report;
    EXPECT_NE(report.find("  total change\n"), std::string::npos) << report;
    const std::regex relu(R"(relu +4 +4 +70\.00 us +35\.00 us +-50\.0% +70\.00 us +35\.00 us +-50\.0% +-140\.00 us)");
    EXPECT_TRUE(std::regex_match(row(report, "relu"), relu)) << report;
}

// The largest change per operator call first; an operator on one side only is "new" or
// "gone", ahead of the rest.
TEST_F(TraceDiff, LargestChangePerCallFirst) {
    std::vector<Slice> before, after;
    long end = window(before, 2, 10, 0, true, -1, "small_change");
    end = window(before, 2, 100, end, true, -1, "large_change");
    window(before, 2, 5, end, true, -1, "gone_op");
    end = window(after, 2, 11, 0, true, -1, "small_change");
    end = window(after, 2, 20, end, true, -1, "large_change");
    window(after, 2, 5, end, true, -1, "new_op");
    const std::string report = vitals::profile_diff_report(write("before.json", before), write("after.json", after));
    const std::size_t gone = report.find("\ngone_op "), added = report.find("\nnew_op "),
                      large = report.find("\nlarge_change "), small = report.find("\nsmall_change ");
    ASSERT_NE(small, std::string::npos) << report;
    EXPECT_LT(std::max(gone, added), large) << report;
    EXPECT_LT(large, small) << report;
    EXPECT_NE(row(report, "new_op").find(" new "), std::string::npos) << report;
    EXPECT_NE(row(report, "gone_op").find(" gone "), std::string::npos) << report;
    EXPECT_NE(row(report, "large_change").find("-80.0%"), std::string::npos) << report;
}

// Traces with steps (a schedule): per-step columns; totals follow the statement calls.
TEST_F(TraceDiff, StepsGivePerStepFigures) {
    std::vector<Slice> before, after;
    window(before, 3, 40, window(before, 3, 40, 0, true, 1), true, 2);
    window(after, 3, 20, window(after, 3, 20, 0, true, 1), true, 2);
    const std::string report = vitals::profile_diff_report(write("before.json", before), write("after.json", after));
    EXPECT_NE(report.find("(6 calls of relu: 32x1024, 2 steps)"), std::string::npos) << report;
    // 6 calls of 40 us over 2 steps: 120 us a step; after, 60 us.
    const std::regex relu(R"(relu +6 +6 +40\.00 us +20\.00 us +-50\.0% +40\.00 us +20\.00 us +-50\.0% +120\.00 us +60\.00 us +-120\.00 us)");
    EXPECT_TRUE(std::regex_match(row(report, "relu"), relu)) << report;
}

// A trace from another tool (no Timer.profile annotation): per operator call only, and the
// statement's calls said to be unknown.
TEST_F(TraceDiff, TracesWithoutTheAnnotationComparePerOperatorCall) {
    std::vector<Slice> before, after;
    window(before, 4, 70, 0, false);
    window(after, 19, 10, 0, false);
    const std::string report = vitals::profile_diff_report(write("before.json", before), write("after.json", after));
    EXPECT_NE(report.find("calls of the statement unknown"), std::string::npos) << report;
    EXPECT_NE(report.find("totals are not compared: the statement's calls are unknown in the before and the after trace"),
              std::string::npos)
        << report;
    EXPECT_EQ(report.find("self/stmt"), std::string::npos) << report;
    EXPECT_TRUE(std::regex_match(row(report, "relu"), std::regex(R"(relu +4 +19 +70\.00 us +10\.00 us +-85\.7%)"))) << report;
}

// What a trace says of its calls, for run --profile-slow: the sum over its annotations.
TEST_F(TraceDiff, TraceCallsSumsTheAnnotations) {
    std::vector<Slice> slices;
    window(slices, 1, 5, window(slices, 1, 5, 0, true, 7), true, 8);
    const vitals::TraceCalls calls = vitals::trace_calls(vitals::profiler::read_chrome_trace(write("t.json", slices)));
    EXPECT_EQ(calls.statement_calls.value_or(-1), 2);
    EXPECT_EQ(calls.steps, 2);
    EXPECT_EQ(calls.title, "relu: 32x1024");
    std::vector<Slice> none;
    window(none, 3, 5, 0, false);
    EXPECT_FALSE(vitals::trace_calls(vitals::profiler::read_chrome_trace(write("n.json", none))).statement_calls);
}
