// key_averages().table() on constructed event streams, against what torch.profiler
// 1.13 prints for the same events (tests/golden/profiler/, made by its make_golden.py).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "fixtures.hpp"
#include "vitals/profiler/trace.hpp"

using namespace vitals::profiler;
using nlohmann::json;
using vitals::testing::read_text;

namespace {

std::string golden(const std::string& name) { return vitals::testing::golden_path("profiler/" + name); }

// The stream as a Trace: events nest per thread by their intervals (torch's rule),
// memory events attach by time, a kernel runs right after the op that launched it.
Trace trace_from_stream(const json& stream) {
    Trace trace;
    trace.profile_memory = stream.at("profile_memory").get<bool>();
    std::map<int, int> thread_index;
    const auto thread_of = [&](int id) {
        const auto [it, added] = thread_index.try_emplace(id, static_cast<int>(trace.threads.size()));
        if (added) trace.threads.push_back({id, ""});
        return it->second;
    };
    for (const json& e : stream.at("events")) {
        Event event;
        event.name = trace.intern(e.at("name").get<std::string>());
        event.category = e.at("kind") == "cpu_op" ? Category::cpu_op : Category::user_annotation;
        event.thread = thread_of(e.at("thread").get<int>());
        event.start_ns = e.at("start_ns");
        event.end_ns = e.at("end_ns");
        event.external_id = static_cast<std::int64_t>(trace.events.size()) + 1;
        EventInputs inputs{e.at("input_shapes").get<std::vector<std::vector<std::int64_t>>>(),
                           e.at("input_types").get<std::vector<std::string>>()};
        if (!inputs.shapes.empty() || !inputs.types.empty()) {
            event.inputs = static_cast<std::int32_t>(trace.inputs.size());
            trace.inputs.push_back(std::move(inputs));
        }
        trace.events.push_back(event);
    }
    trace.link_parents();  // torch's rule: the enclosing open interval on the same thread
    for (const json& m : stream.at("memory")) {
        MemoryEvent event;
        event.ts_ns = m.at("ts_ns");
        event.thread = thread_of(m.at("thread").get<int>());
        event.record.bytes = m.at("bytes");
        event.record.device_type = m.at("device") == "cuda" ? 1 : 0;
        trace.memory.push_back(event);
    }
    for (std::size_t i = 0; i < stream.at("events").size(); ++i) {
        const json& e = stream.at("events")[i];
        if (!e.contains("cuda_kernels")) continue;
        std::int64_t start = e.at("end_ns");
        for (const json& k : e.at("cuda_kernels")) {
            DeviceEvent d;
            d.name = k.at("name");
            d.start_ns = start;
            d.end_ns = start + k.at("duration_ns").get<std::int64_t>();
            d.stream = 7;
            d.external_id = trace.events[i].external_id;
            start = d.end_ns;
            trace.device.push_back(std::move(d));
        }
    }
    trace.compute_attribution();
    return trace;
}

}  // namespace

TEST(ProfilerTables, MatchTorchOnConstructedStreams) {
    const json streams = json::parse(read_text(golden("streams.json"))).at("streams");
    int checked = 0;
    for (const json& stream : streams) {
        // vitals attributes device time the way the Kineto-based profiler does; the
        // legacy profiler's per-op CUDA totals are not reproduced.
        if (stream.value("cuda_mode", "") == "legacy") continue;
        const Trace trace = trace_from_stream(stream);
        for (const json& table : stream.at("tables")) {
            const std::string id = stream.at("id").get<std::string>() + "_" + table.at("id").get<std::string>();
            SCOPED_TRACE(id);
            const KeyAverages averages = trace.key_averages({.group_by_input_shape = table.at("group_by_input_shape")});
            const std::string printed = averages.table({.sort_by = table.at("sort_by").is_null() ? "" : table.at("sort_by"),
                                                        .row_limit = table.at("row_limit")});
            EXPECT_EQ(printed, read_text(golden("table_" + id + ".txt")));
            ++checked;
        }
    }
    EXPECT_GE(checked, 25);
}

TEST(ProfilerTables, KeyAveragesMatchTorchNumbers) {
    const json streams = json::parse(read_text(golden("streams.json"))).at("streams");
    for (const json& stream : streams) {
        if (stream.value("cuda_mode", "") == "legacy") continue;
        const std::string id = stream.at("id");
        SCOPED_TRACE(id);
        const json expected = json::parse(read_text(golden("expected_" + id + ".json"))).at("rows");
        const auto rows = trace_from_stream(stream).key_averages().rows();
        ASSERT_EQ(rows.size(), expected.size());
        double self_cpu_sum = 0;
        for (std::size_t i = 0; i < rows.size(); ++i) {
            EXPECT_EQ(rows[i].key, expected[i].at("key").get<std::string>());
            EXPECT_EQ(rows[i].count, expected[i].at("count").get<std::int64_t>());
            EXPECT_DOUBLE_EQ(rows[i].cpu_time_total_us, expected[i].at("cpu_time_total").get<double>());
            EXPECT_DOUBLE_EQ(rows[i].self_cpu_time_total_us, expected[i].at("self_cpu_time_total").get<double>());
            EXPECT_DOUBLE_EQ(rows[i].cuda_time_total_us, expected[i].at("cuda_time_total").get<double>());
            EXPECT_DOUBLE_EQ(rows[i].self_cuda_time_total_us, expected[i].at("self_cuda_time_total").get<double>());
            EXPECT_EQ(rows[i].cpu_memory_usage, expected[i].at("cpu_memory_usage").get<std::int64_t>());
            EXPECT_EQ(rows[i].self_cpu_memory_usage, expected[i].at("self_cpu_memory_usage").get<std::int64_t>());
            EXPECT_EQ(rows[i].cuda_memory_usage, expected[i].at("cuda_memory_usage").get<std::int64_t>());
            EXPECT_EQ(rows[i].self_cuda_memory_usage, expected[i].at("self_cuda_memory_usage").get<std::int64_t>());
            self_cpu_sum += rows[i].self_cpu_time_total_us;
        }
        // Self CPU % sums to 100%: every microsecond belongs to exactly one row's self time.
        double total = 0;
        for (const Event& e : trace_from_stream(stream).events) {
            if (e.parent < 0) total += static_cast<double>(e.duration_ns()) / 1000.0;
        }
        EXPECT_NEAR(self_cpu_sum, total, 1e-9);
    }
}

TEST(ProfilerTables, BadOptionsAreClearErrors) {
    const KeyAverages empty;
    EXPECT_EQ(empty.table(), "");
    try {
        empty.table({.sort_by = "cpu_tim"});
        FAIL();
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("unknown sort key 'cpu_tim'; use one of: cpu_time, cpu_time_total"),
                  std::string::npos)
            << e.what();
    }
    EXPECT_EQ(empty.table({.row_limit = -1}), "");  // -1: every row, as torch (golden: table_mlp_forward_all_rows)
    EXPECT_EQ(sort_keys().size(), 11u);
}
