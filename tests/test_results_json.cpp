// The results file: Google Benchmark's layout, parsed back and checked field by field.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
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
    EXPECT_TRUE(context.at("vitals_machine_check").is_array());  // what vitals doctor would warn of
    EXPECT_EQ(context.at("executable"), "/bin/bench");
    EXPECT_GE(context.at("num_cpus").get<int>(), 1);
    EXPECT_TRUE(context.at("date").is_string());
    EXPECT_TRUE(context.at("host_name").is_string());
    EXPECT_TRUE(context.at("caches").is_array());
    EXPECT_TRUE(context.at("library_build_type").is_string());
}

TEST(ResultsJson, OneIterationEntryPerBlockThenAggregates) {
    const json doc = json::parse(vitals::results_to_json(sample_results(), "bench", {}, {.time_unit = vitals::TimeUnit::ns}));
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
        if (b.contains("error_occurred")) {  // the fields every entry has, though never measured
            EXPECT_EQ(b.at("label"), "");
            EXPECT_EQ(b.at("num_threads"), 1);
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

TEST(ResultsJson, TimeUnitIsTheOneGoogleBenchmarkUsersWouldPick) {
    using vitals::TimeUnit;
    EXPECT_EQ(vitals::time_unit_for(0.4e-9), TimeUnit::ns);
    EXPECT_EQ(vitals::time_unit_for(999e-9), TimeUnit::ns);
    EXPECT_EQ(vitals::time_unit_for(1e-6), TimeUnit::us);
    EXPECT_EQ(vitals::time_unit_for(47e-6), TimeUnit::us);
    EXPECT_EQ(vitals::time_unit_for(2.5e-3), TimeUnit::ms);
    EXPECT_EQ(vitals::time_unit_for(3.0), TimeUnit::s);
    EXPECT_EQ(vitals::parse_time_unit("ms"), TimeUnit::ms);
    EXPECT_EQ(vitals::parse_time_unit("fortnights"), std::nullopt);
    // By default every case is in ns, Google Benchmark's default, so two files agree.
    const json in_ns = json::parse(vitals::results_to_json(sample_results(), "bench"));
    for (const json& b : in_ns.at("benchmarks")) {
        EXPECT_EQ(b.at("time_unit"), "ns") << b.at("name");
    }
    // Per case when asked (--time-unit auto): the sample's median is 250 us per call, so
    // every entry of the case is in us.
    const json doc = json::parse(vitals::results_to_json(sample_results(), "bench", {}, {.time_unit = std::nullopt}));
    int entries = 0;
    for (const json& b : doc.at("benchmarks")) {
        if (b.at("run_name") != "matmul/128x128/cpu-f32") continue;
        ++entries;
        EXPECT_EQ(b.at("time_unit"), "us") << b.at("name");
        if (b.value("aggregate_name", "") == "median") {
            EXPECT_DOUBLE_EQ(b.at("real_time").get<double>(), 250.0);
        }
        if (b.value("repetition_index", -1) == 0) {
            EXPECT_DOUBLE_EQ(b.at("real_time").get<double>(), 100.0);
        }
    }
    EXPECT_EQ(entries, 4 + 7);
    // And read back in seconds, whatever the unit.
    const auto cases = vitals::parse_results(vitals::results_to_json(sample_results(), "bench"), "mem");
    ASSERT_FALSE(cases.empty());
    EXPECT_DOUBLE_EQ(cases[0].seconds[0], 1e-4);
    EXPECT_EQ(cases[0].aggregate_of, 0u);
}

TEST(ResultsJson, AggregatesOnlyWritesOneEntryPerAggregateAndReadsBackTheMedian) {
    const std::string text = vitals::results_to_json(sample_results(), "bench", {}, {.entries = vitals::JsonLayout::aggregates});
    const json doc = json::parse(text);
    std::size_t aggregates = 0;
    for (const json& b : doc.at("benchmarks")) {
        if (b.value("error_occurred", false)) continue;
        EXPECT_EQ(b.at("run_type"), "aggregate") << b.at("name");
        ++aggregates;
    }
    EXPECT_EQ(aggregates, 7u);
    const std::vector<vitals::CaseSamples> cases = vitals::parse_results(text, "mem");
    const vitals::CaseSamples* matmul = vitals::find_samples(cases, "matmul/128x128/cpu-f32");
    ASSERT_NE(matmul, nullptr);
    ASSERT_EQ(matmul->seconds.size(), 1u);
    EXPECT_DOUBLE_EQ(matmul->seconds[0], 2.5e-4);  // the median, not the mean or a block
    EXPECT_EQ(matmul->aggregate_of, 4u);           // of the file's 4 repetitions
    const vitals::CaseSamples* skipped = vitals::find_samples(cases, "matmul/128x128/cuda-f32");
    ASSERT_NE(skipped, nullptr);
    EXPECT_TRUE(skipped->seconds.empty());
    EXPECT_EQ(skipped->not_measured, "skipped: no CUDA device found");
}

TEST(ResultsJson, ReadsGoogleBenchmarkAggregatesOnlyFiles) {
    // As --benchmark_repetitions=3 --benchmark_report_aggregates_only=true writes it.
    const std::string text = R"({"context": {}, "benchmarks": [
        {"name": "BM_A_mean", "run_name": "BM_A", "run_type": "aggregate", "repetitions": 3, "threads": 1,
         "aggregate_name": "mean", "aggregate_unit": "time", "iterations": 3, "real_time": 12.0, "cpu_time": 12.0, "time_unit": "us"},
        {"name": "BM_A_median", "run_name": "BM_A", "run_type": "aggregate", "repetitions": 3, "threads": 1,
         "aggregate_name": "median", "aggregate_unit": "time", "iterations": 3, "real_time": 11.0, "cpu_time": 11.0, "time_unit": "us"},
        {"name": "BM_A_cv", "run_name": "BM_A", "run_type": "aggregate", "repetitions": 3, "threads": 1,
         "aggregate_name": "cv", "aggregate_unit": "percentage", "iterations": 3, "real_time": 0.1, "cpu_time": 0.1, "time_unit": "us"},
        {"name": "BM_B_mean", "run_name": "BM_B", "run_type": "aggregate", "repetitions": 2, "threads": 1,
         "aggregate_name": "mean", "iterations": 2, "real_time": 3.0, "cpu_time": 3.0, "time_unit": "ms"}]})";
    const std::vector<vitals::CaseSamples> cases = vitals::parse_results(text, "gb.json");
    ASSERT_EQ(cases.size(), 2u);
    EXPECT_EQ(cases[0].name, "BM_A");
    ASSERT_EQ(cases[0].seconds.size(), 1u);
    EXPECT_DOUBLE_EQ(cases[0].seconds[0], 11e-6);  // the median
    EXPECT_EQ(cases[0].aggregate_of, 3u);
    EXPECT_EQ(cases[1].name, "BM_B");
    EXPECT_DOUBLE_EQ(cases[1].seconds[0], 3e-3);  // no median: the mean
    EXPECT_EQ(cases[1].aggregate_of, 2u);
}

// Stated work: Google Benchmark's rate counters on every block and on the time
// aggregates, the work itself for reading back, and a run's roofline points.
TEST(ResultsJson, WorkBecomesRateCountersAndReadsBack) {
    TaskSpec task{.stmt = "s", .label = "op"};
    task.work = {.bytes = 1e6, .flops = 2e6, .items = 10, .working_set = 5e5, .f64 = true};
    const std::vector<CaseResult> results{CaseResult{"op/1", Measurement(1, {1e-3, 2e-3, 3e-3}, task), "", ""}};
    vitals::RunContext run;
    run.ceilings = vitals::MachineCeilings{"Test CPU", 100e9, 50e9, {{"L1", 200e9}, {"memory", 10e9}}};
    run.roofline.push_back({"op/1", {2.0, 1e9, 20e9, 0.05, "memory-bound (memory)"}});
    const std::string text = vitals::results_to_json(results, "bench", run);
    const json doc = json::parse(text);
    for (const json& b : doc.at("benchmarks")) {
        const std::string aggregate = b.value("aggregate_name", "");
        if (b.at("run_type") == "iteration" && b.at("repetition_index") == 1) {
            EXPECT_DOUBLE_EQ(b.at("bytes_per_second").get<double>(), 1e6 / 2e-3);
            EXPECT_DOUBLE_EQ(b.at("items_per_second").get<double>(), 10 / 2e-3);
            EXPECT_DOUBLE_EQ(b.at("flops_per_second").get<double>(), 2e6 / 2e-3);
        }
        if (aggregate == "median") {
            EXPECT_DOUBLE_EQ(b.at("bytes_per_second").get<double>(), 1e6 / 2e-3);
            EXPECT_EQ(b.at("vitals_roofline").at("verdict"), "memory-bound (memory)");
        }
        if (aggregate == "stddev" || aggregate == "cv") {
            EXPECT_FALSE(b.contains("bytes_per_second")) << aggregate;
        }
    }
    EXPECT_EQ(doc.at("context").at("vitals_machine").at("peak_f64_flops"), 50e9);
    const vitals::ResultsFile back = vitals::parse_results_file(text, "mem");
    ASSERT_EQ(back.cases.size(), 1u);
    EXPECT_EQ(back.cases[0].work, task.work);
    ASSERT_TRUE(back.cases[0].roofline.has_value());
    EXPECT_DOUBLE_EQ(back.cases[0].roofline->share, 0.05);
    ASSERT_TRUE(back.ceilings.has_value());
    EXPECT_EQ(back.ceilings->bandwidth.size(), 2u);
    EXPECT_DOUBLE_EQ(back.ceilings->peak_f32, 100e9);
    // A hostile figure is an error naming the file and the field.
    std::string bad = text;
    bad.replace(bad.find("\"bytes\": 1000000.0"), std::string("\"bytes\": 1000000.0").size(), "\"bytes\": -5");
    try {
        (void)vitals::parse_results_file(bad, "bad.json");
        FAIL() << "a negative byte count was read";
    } catch (const vitals::ResultsFileError& e) {
        EXPECT_NE(std::string(e.what()).find("vitals_work.bytes"), std::string::npos) << e.what();
    }
}

// Counts from outside files convert only when they fit (no float-to-int overflow).
TEST(ResultsJson, OutOfRangeCountsAreErrors) {
    const auto write = [](const std::string& text) {
        const std::string path = testing::TempDir() + "/counts.json";
        std::ofstream(path) << text;
        return path;
    };
    const std::string huge = write(R"({"benchmarks": [{"name": "a", "run_type": "iteration", "iterations": 1e300, "real_time": 1, "time_unit": "ns"}]})");
    try {
        (void)vitals::read_case_results(huge);
        FAIL() << "1e300 iterations were read";
    } catch (const vitals::ResultsFileError& e) {
        EXPECT_NE(std::string(e.what()).find("iterations is 1e+300"), std::string::npos) << e.what();
    }
    const std::string threads = write(R"({"benchmarks": [{"name": "a", "run_type": "iteration", "iterations": 1, "real_time": 1, "time_unit": "ns", "num_threads": -3}]})");
    EXPECT_THROW((void)vitals::read_case_results(threads), vitals::ResultsFileError);
}

// The median aggregate counts the blocks a stop or a descheduling held (Measurement::
// stopped_blocks), in every process of run --processes, and 0 where there were none.
TEST(ResultsJson, StoppedBlocksAreCountedPerCase) {
    const auto median_entry = [](const json& doc, const std::string& run_name) {
        for (const json& b : doc.at("benchmarks")) {
            if (b.at("run_name") == run_name && b.value("aggregate_name", "") == "median") return b;
        }
        return json();
    };
    std::vector<double> wall(20, 1e-3), cpu(20, 1e-3);
    wall[3] = 0.5;  // 500x the median with no more CPU time: a SIGSTOP
    const Measurement stopped(1, wall, {.stmt = "f()"}, cpu);
    ASSERT_EQ(stopped.stopped_blocks(), 1u);
    const Measurement clean(1, std::vector<double>(20, 1e-3), {.stmt = "f()"}, std::vector<double>(20, 1e-3));
    CaseResult by_process{"p", Measurement::merge(std::vector<Measurement>{stopped, clean, stopped})[0], "", ""};
    by_process.per_process = {stopped, clean, stopped};
    const std::vector<CaseResult> results = {CaseResult{"one", stopped, "", ""}, CaseResult{"clean", clean, "", ""},
                                             by_process};
    for (const bool aggregates_only : {false, true}) {
        SCOPED_TRACE(aggregates_only);
        const json doc = json::parse(vitals::results_to_json(results, "bench", {}, {.entries = aggregates_only ? vitals::JsonLayout::aggregates : vitals::JsonLayout::blocks}));
        EXPECT_EQ(median_entry(doc, "one").at("vitals_stopped_blocks"), 1);
        EXPECT_EQ(median_entry(doc, "clean").at("vitals_stopped_blocks"), 0);
        EXPECT_EQ(median_entry(doc, "p").at("vitals_stopped_blocks"), 2);
    }
}

// --json-layout medians: one timed entry per measured case, for dashboards that chart every
// entry; a case not measured is listed in the context, never charted at a time of 0.
TEST(ResultsJson, MediansLayoutWritesOneEntryPerMeasuredCase) {
    std::vector<CaseResult> results = sample_results();
    // Seven blocks, so the blocks' median has a 95% interval (ranks 0 and 6 of 7).
    const TaskSpec task{.label = "sum", .num_threads = 1};
    results.push_back(CaseResult{"sum/7", Measurement(1, {7e-9, 1e-9, 4e-9, 2e-9, 6e-9, 3e-9, 5e-9}, task), "", ""});
    const json doc = json::parse(
        vitals::results_to_json(results, "bench", {}, {.entries = vitals::JsonLayout::medians}));
    const json& entries = doc.at("benchmarks");
    ASSERT_EQ(entries.size(), 2u);
    const json& matmul = entries[0];
    EXPECT_EQ(matmul.at("name"), "matmul/128x128/cpu-f32");  // unsuffixed
    EXPECT_EQ(matmul.at("run_type"), "iteration");
    EXPECT_EQ(matmul.at("time_unit"), "ns");
    EXPECT_DOUBLE_EQ(matmul.at("real_time").get<double>(), 250e3);  // the median per call
    EXPECT_DOUBLE_EQ(matmul.at("cpu_time").get<double>(), 500e3);
    EXPECT_EQ(matmul.at("iterations"), 10);
    EXPECT_EQ(matmul.at("vitals_blocks"), 4);
    EXPECT_EQ(matmul.at("vitals_processes"), 1);
    EXPECT_EQ(matmul.at("num_threads"), 2);
    EXPECT_FALSE(matmul.contains("vitals_median_ci_low"));  // 4 blocks are too few for 95%
    const json& sum = entries[1];
    EXPECT_DOUBLE_EQ(sum.at("real_time").get<double>(), 4.0);
    EXPECT_DOUBLE_EQ(sum.at("vitals_median_ci_low").get<double>(), 1.0);
    EXPECT_DOUBLE_EQ(sum.at("vitals_median_ci_high").get<double>(), 7.0);
    EXPECT_NEAR(sum.at("vitals_median_ci_confidence").get<double>(), 1 - 2.0 / 128, 1e-12);
    EXPECT_EQ(doc.at("context").at("vitals_json_layout"), "medians");
    const json& not_measured = doc.at("context").at("vitals_not_measured");
    ASSERT_EQ(not_measured.size(), 2u);
    EXPECT_EQ(not_measured[0].at("name"), "matmul/128x128/cuda-f32");
    EXPECT_EQ(not_measured[0].at("vitals_status"), "skipped");
    EXPECT_EQ(not_measured[1].at("error_message"), "case 'broken/1' failed: boom");
    // Read back: each case stands for the median of its blocks, as an aggregates-only one.
    const auto cases = vitals::parse_results(doc.dump(), "mem");
    ASSERT_EQ(cases.size(), 2u);
    EXPECT_DOUBLE_EQ(cases[0].seconds.at(0), 2.5e-4);
    EXPECT_EQ(cases[0].aggregate_of, 4u);
}

// Counters per block: each block's counts on its entry, the case's median per call and its
// disturbed blocks on the median aggregate (and the one entry of the medians layout), and
// read back block for block, so run --processes keeps them.
TEST(ResultsJson, CountersPerBlockAreWrittenAndReadBack) {
    const Measurement m = Measurement(10, {1e-3, 2e-3, 3e-3}, TaskSpec{.stmt = "s"})
                              .with_counters({{"context-switches", "cpu-migrations", "cycles"},
                                              {{0, 1, 0}, {0, 0, 0}, {100, 200, std::nan("")}},
                                              {"cache-misses: no PMU in this virtual machine"}});
    const std::vector<CaseResult> results{CaseResult{"a", m, "", ""}};
    const json doc = json::parse(vitals::results_to_json(results, "bench"));
    std::vector<json> blocks;
    json median;
    for (const json& b : doc.at("benchmarks")) {
        if (b.at("run_type") == "iteration") blocks.push_back(b);
        if (b.value("aggregate_name", "") == "median") median = b;
    }
    ASSERT_EQ(blocks.size(), 3u);
    EXPECT_EQ(blocks[1].at("vitals_counters"), json::parse(R"({"context-switches": 1.0, "cpu-migrations": 0.0, "cycles": 200.0})"));
    EXPECT_TRUE(blocks[2].at("vitals_counters").at("cycles").is_null());  // the PMU never ran in that block
    EXPECT_DOUBLE_EQ(median.at("vitals_counters_per_call").at("cycles").get<double>(), 15.0);  // median of 10 and 20 per call
    EXPECT_EQ(median.at("vitals_disturbed_blocks"), 1);
    EXPECT_EQ(median.at("vitals_counters_unavailable"), json::array({"cache-misses: no PMU in this virtual machine"}));
    const json medians = json::parse(vitals::results_to_json(results, "bench", {}, {.entries = vitals::JsonLayout::medians}));
    EXPECT_EQ(medians.at("benchmarks")[0].at("vitals_disturbed_blocks"), 1);

    // Across processes (run --processes), the median per call is of per-call counts too:
    // blocks of 10 calls in each process, so 10, 20, 30 and 40 cycles a call.
    const TaskSpec task{.stmt = "s"};
    CaseResult across{"p", std::nullopt, "", ""};
    // The second process sized its blocks at 20 calls: still 30 and 40 cycles a call.
    across.per_process = {Measurement(10, {1e-3, 2e-3}, task).with_counters({{"cycles"}, {{100, 200}}, {}}),
                          Measurement(20, {6e-3, 8e-3}, task).with_counters({{"cycles"}, {{600, 800}}, {}})};
    across.measurement = Measurement::merge(across.per_process).at(0);
    const std::string across_text = vitals::results_to_json({across}, "bench");
    const auto median_cycles = [](const std::string& text) {
        const json doc = json::parse(text);
        for (const json& b : doc.at("benchmarks")) {
            if (b.value("aggregate_name", "") == "median") return b.at("vitals_counters_per_call").at("cycles").get<double>();
        }
        return -1.0;
    };
    EXPECT_DOUBLE_EQ(median_cycles(across_text), 25.0);
    // Read back, the blocks keep their own sizes: the same times and counts per call.
    const std::string across_path = testing::TempDir() + "/across.json";
    std::ofstream(across_path) << across_text;
    const std::vector<CaseResult> across_back = vitals::read_case_results(across_path);
    ASSERT_TRUE(across_back.at(0).measurement.has_value());
    EXPECT_EQ(across_back[0].measurement->times(), across.measurement->times());
    EXPECT_DOUBLE_EQ(median_cycles(vitals::results_to_json(across_back, "bench")), 25.0);

    const std::string path = testing::TempDir() + "/counters.json";
    std::ofstream(path) << doc.dump();
    const std::vector<CaseResult> back = vitals::read_case_results(path);
    ASSERT_EQ(back.size(), 1u);
    ASSERT_TRUE(back[0].measurement.has_value());
    const vitals::BlockCounters& counters = back[0].measurement->counters();
    EXPECT_EQ(counters.names, m.counters().names);
    EXPECT_EQ(*counters.find("context-switches"), (std::vector<double>{0, 1, 0}));
    EXPECT_TRUE(std::isnan((*counters.find("cycles"))[2]));
    EXPECT_EQ(counters.unavailable, m.counters().unavailable);
    EXPECT_EQ(back[0].measurement->disturbance()->blocks, 1u);

    // Counts that are no counts are refused, naming the entry.
    std::string broken = doc.dump();
    broken.replace(broken.find("\"context-switches\":1.0"), 22, "\"context-switches\":-1");
    std::ofstream(path) << broken;
    EXPECT_THROW((void)vitals::read_case_results(path), vitals::ResultsFileError);
}

// A case measured cold says so on every entry, and reads back cold.
TEST(ResultsJson, ColdCasesAreMarkedAndReadBack) {
    const Measurement cold(1, {1e-3, 2e-3}, TaskSpec{.stmt = "s", .cold = true});
    const Measurement warm(1, {1e-3, 2e-3}, TaskSpec{.stmt = "s"});
    const json doc = json::parse(vitals::results_to_json({CaseResult{"c", cold, "", ""}, CaseResult{"w", warm, "", ""}}, "bench"));
    for (const json& b : doc.at("benchmarks")) {
        if (b.at("run_name") == "c") {
            EXPECT_EQ(b.at("vitals_cache"), "cold") << b.dump();
        } else {
            EXPECT_FALSE(b.contains("vitals_cache")) << b.dump();
        }
    }
    const std::string path = testing::TempDir() + "/cold.json";
    std::ofstream(path) << doc.dump();
    const std::vector<CaseResult> back = vitals::read_case_results(path);
    ASSERT_EQ(back.size(), 2u);
    EXPECT_TRUE(back[0].measurement->task_spec().cold);
    EXPECT_FALSE(back[1].measurement->task_spec().cold);
    EXPECT_NE(back[0].measurement->to_string().find(", caches evicted before every call"), std::string::npos);
    const vitals::ResultsFile samples = vitals::read_results_file(path);  // as compare reads it
    ASSERT_EQ(samples.cases.size(), 2u);
    EXPECT_TRUE(samples.cases[0].cold);
    EXPECT_FALSE(samples.cases[1].cold);
    EXPECT_EQ(vitals::samples_of(back)[0].cold, true);
    EXPECT_EQ(vitals::samples_of(back)[1].cold, false);

    // One case with a cold block and a warm one (the second block's mark taken off) is
    // refused by both readers, naming the case: its median would be of neither.
    json mixed = doc;
    for (json& b : mixed.at("benchmarks")) {
        if (b.at("run_name") == "c" && b.at("run_type") == "iteration" && b.at("repetition_index") == 1) b.erase("vitals_cache");
    }
    std::ofstream(path) << mixed.dump();
    for (const auto& read : {+[](const std::string& p) { (void)vitals::read_case_results(p); },
                             +[](const std::string& p) { (void)vitals::read_results_file(p); }}) {
        try {
            read(path);
            ADD_FAILURE() << "a case of cold and warm blocks was read";
        } catch (const vitals::ResultsFileError& e) {
            EXPECT_NE(std::string(e.what()).find("case 'c' has blocks measured with cold caches and blocks measured warm"),
                      std::string::npos)
                << e.what();
        }
    }
}
