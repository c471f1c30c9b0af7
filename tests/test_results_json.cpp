// The results file: Google Benchmark's layout, parsed back and checked field by field.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "vitals/results.hpp"

using nlohmann::json;
using vitals::CaseResult;
using vitals::Measurement;
using vitals::TaskSpec;

namespace {
std::vector<CaseResult> sample_results() {
    const TaskSpec task{.stmt = "z = x * y", .label = "x @ y", .sub_label = "128x128", .description = "eigen f32",
                        .num_threads = 2};
    return {
        CaseResult{"matmul/128x128/cpu-f32", Measurement(10, {1e-3, 2e-3, 3e-3, 4e-3}, task, {2e-3, 4e-3, 6e-3, 8e-3}),
                   "", ""},
        CaseResult{"matmul/128x128/cuda-f32", std::nullopt, "no CUDA device found", ""},
        CaseResult{"broken/1", std::nullopt, "", "case 'broken/1' failed: boom"},
    };
}
}  // namespace

TEST(ResultsJson, ContextDescribesTheMachine) {
    const json doc = json::parse(vitals::results_to_json(sample_results(), "/bin/bench"));
    const json& context = doc.at("context");
    EXPECT_EQ(context.at("vitals_schema_version"), 1);
    EXPECT_EQ(context.at("executable"), "/bin/bench");
    EXPECT_GE(context.at("num_cpus").get<int>(), 1);
    EXPECT_TRUE(context.at("date").is_string());
    EXPECT_TRUE(context.at("host_name").is_string());
    EXPECT_TRUE(context.at("caches").is_array());
    EXPECT_TRUE(context.at("library_build_type").is_string());
}

TEST(ResultsJson, OneIterationEntryPerBlockThenAggregates) {
    const json doc = json::parse(vitals::results_to_json(sample_results(), "bench"));
    const json& benchmarks = doc.at("benchmarks");
    std::vector<json> iterations, aggregates;
    for (const json& b : benchmarks) {
        if (b.at("run_name") != "matmul/128x128/cpu-f32") continue;
        (b.at("run_type") == "iteration" ? iterations : aggregates).push_back(b);
    }
    ASSERT_EQ(iterations.size(), 4u);
    for (std::size_t k = 0; k < 4; ++k) {
        const json& it = iterations[k];
        EXPECT_EQ(it.at("name"), "matmul/128x128/cpu-f32");
        EXPECT_EQ(it.at("repetitions"), 4);
        EXPECT_EQ(it.at("repetition_index"), k);
        EXPECT_EQ(it.at("iterations"), 10);
        EXPECT_EQ(it.at("time_unit"), "ns");
        EXPECT_DOUBLE_EQ(it.at("real_time").get<double>(), (k + 1) * 1e5);  // (k+1) ms / 10 calls, in ns
        EXPECT_DOUBLE_EQ(it.at("cpu_time").get<double>(), (k + 1) * 2e5);
        EXPECT_EQ(it.at("label"), "x @ y");
        EXPECT_EQ(it.at("sub_label"), "128x128");
        EXPECT_EQ(it.at("description"), "eigen f32");
        EXPECT_EQ(it.at("num_threads"), 2);
    }
    std::map<std::string, json> by_name;
    for (const json& a : aggregates) by_name[a.at("aggregate_name").get<std::string>()] = a;
    ASSERT_EQ(by_name.size(), 7u);
    EXPECT_EQ(by_name.at("median").at("name"), "matmul/128x128/cpu-f32_median");
    EXPECT_DOUBLE_EQ(by_name.at("median").at("real_time").get<double>(), 2.5e5);
    EXPECT_DOUBLE_EQ(by_name.at("mean").at("real_time").get<double>(), 2.5e5);
    EXPECT_DOUBLE_EQ(by_name.at("p25").at("real_time").get<double>(), 1.75e5);
    EXPECT_DOUBLE_EQ(by_name.at("p75").at("real_time").get<double>(), 3.25e5);
    EXPECT_DOUBLE_EQ(by_name.at("iqr").at("real_time").get<double>(), 1.5e5);
    // Sample standard deviation of {1,2,3,4} x 1e5 ns.
    EXPECT_NEAR(by_name.at("stddev").at("real_time").get<double>(), 1.2909944487358056e5, 1e-6);
    EXPECT_EQ(by_name.at("cv").at("aggregate_unit"), "percentage");
    EXPECT_NEAR(by_name.at("cv").at("real_time").get<double>(), 1.2909944487358056 / 2.5, 1e-12);
    EXPECT_EQ(by_name.at("median").at("aggregate_unit"), "time");
    EXPECT_EQ(by_name.at("median").at("run_type"), "aggregate");
}

TEST(ResultsJson, SkippedAndFailedCasesAreListedNotDropped) {
    const json doc = json::parse(vitals::results_to_json(sample_results(), "bench"));
    int skipped = 0, failed = 0;
    for (const json& b : doc.at("benchmarks")) {
        if (b.value("vitals_status", "") == "skipped") {
            ++skipped;
            EXPECT_EQ(b.at("error_occurred"), true);
            EXPECT_EQ(b.at("error_message"), "skipped: no CUDA device found");
        }
        if (b.value("vitals_status", "") == "failed") {
            ++failed;
            EXPECT_EQ(b.at("error_message"), "case 'broken/1' failed: boom");
        }
    }
    EXPECT_EQ(skipped, 1);
    EXPECT_EQ(failed, 1);
}

TEST(ResultsJson, EscapesAnyName) {
    const TaskSpec task{.stmt = "s", .label = "quote \" backslash \\ tab \t newline \n"};
    const std::vector<CaseResult> results{CaseResult{"weird/\"name\"", Measurement(1, {1.0}, task), "", ""}};
    const json doc = json::parse(vitals::results_to_json(results, "bench"));
    EXPECT_EQ(doc.at("benchmarks")[0].at("label"), task.label);
    EXPECT_EQ(doc.at("benchmarks")[0].at("name"), "weird/\"name\"");
}
