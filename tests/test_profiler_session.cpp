// Profile sessions: the schedule, recording from many threads, bounded memory, the
// trace file and the TensorBoard handler.
#include <gtest/gtest.h>
#include <pthread.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <thread>

#include "vitals/profiler/profile.hpp"
#include "vitals/profiler/trace.hpp"
#include <unistd.h>

using namespace vitals::profiler;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

std::string actions(const Schedule& s, int steps) {
    std::string out;
    for (int i = 0; i < steps; ++i) {
        switch (s.action(i)) {
            case ProfilerAction::none: out += 'N'; break;
            case ProfilerAction::warmup: out += 'W'; break;
            case ProfilerAction::record: out += 'R'; break;
            case ProfilerAction::record_and_save: out += 'S'; break;
        }
    }
    return out;
}

std::multiset<std::string> names(const Trace& t) {
    std::multiset<std::string> out;
    for (const Event& e : t.events) out.insert(std::string(e.name));
    return out;
}

// `threads` threads each record `pairs` "outer" scopes with an "inner" one inside;
// returns once all have exited.
void record_nested_pairs(int threads, int pairs) {
    std::vector<std::thread> workers;
    for (int t = 0; t < threads; ++t) {
        workers.emplace_back([pairs] {
            for (int i = 0; i < pairs; ++i) {
                VITALS_RECORD_FUNCTION("outer");
                VITALS_RECORD_FUNCTION("inner");
            }
        });
    }
    for (auto& w : workers) w.join();
}

fs::path scratch_dir(const std::string& name) {
    const fs::path dir = fs::temp_directory_path() / ("vitals-profiler-" + std::to_string(::getpid()) + "-" + name);
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

}  // namespace

// Expected strings follow torch.profiler.schedule step by step (N none, W warmup,
// R record, S record and save).
TEST(Schedule, ActionsMatchTheReference) {
    EXPECT_EQ(actions({.wait = 1, .warmup = 1, .active = 2}, 8), "NWRSNWRS");
    EXPECT_EQ(actions({.wait = 1, .warmup = 1, .active = 2, .repeat = 1}, 8), "NWRSNNNN");
    EXPECT_EQ(actions({.wait = 1, .warmup = 1, .active = 2, .skip_first = 2}, 8), "NNNWRSNW");
    EXPECT_EQ(actions({.wait = 0, .warmup = 0, .active = 1}, 4), "SSSS");
    EXPECT_EQ(actions({.wait = 2, .warmup = 1, .active = 3, .repeat = 2}, 14), "NNWRRSNNWRRSNN");
    EXPECT_EQ(actions({.wait = 0, .warmup = 2, .active = 1, .repeat = 0, .skip_first = 1}, 7), "NWWSWWS");
}

TEST(Schedule, RejectsInvalidSettings) {
    EXPECT_THROW(Profile({.schedule = Schedule{.wait = 1, .warmup = 1, .active = 0}}), std::invalid_argument);
    EXPECT_THROW(Profile({.schedule = Schedule{.wait = -1, .active = 1}}), std::invalid_argument);
    EXPECT_THROW(Profile({.schedule = Schedule{.active = 1, .repeat = -2}}), std::invalid_argument);
}

TEST(Profile, ScheduleRecordsOnlyActiveStepsAndDeliversEachCycle) {
    std::vector<std::multiset<std::string>> delivered;
    Profile profile({.schedule = Schedule{.wait = 1, .warmup = 1, .active = 2},
                     .on_trace_ready = [&](Profile& p) { delivered.push_back(names(p.trace())); }});
    profile.start();
    for (int step = 0; step < 8; ++step) {
        { VITALS_RECORD_FUNCTION("work"); }
        profile.step();
    }
    profile.stop();
    ASSERT_EQ(delivered.size(), 2u);  // the tutorial's example: traces of steps 2-3 and 6-7
    EXPECT_EQ(delivered[0], (std::multiset<std::string>{"ProfilerStep#2", "ProfilerStep#3", "work", "work"}));
    EXPECT_EQ(delivered[1], (std::multiset<std::string>{"ProfilerStep#6", "ProfilerStep#7", "work", "work"}));
    const Trace& last = profile.trace();
    for (const Event& e : last.events) {  // each "work" lies inside its step
        if (e.name == "work") {
            ASSERT_GE(e.parent, 0);
            EXPECT_EQ(last.events[static_cast<std::size_t>(e.parent)].name.rfind("ProfilerStep#", 0), 0u);
        }
    }
    EXPECT_NE(last.key_averages().table().find("ProfilerStep*"), std::string::npos);
}

TEST(Profile, WithoutScheduleRecordsStartToStop) {
    int ready = 0;
    Profile profile({.on_trace_ready = [&](Profile&) { ++ready; }});
    { VITALS_RECORD_FUNCTION("before start"); }
    profile.start();
    {
        VITALS_RECORD_FUNCTION("outer");
        { VITALS_RECORD_FUNCTION("inner"); }
        { VITALS_RECORD_FUNCTION("inner"); }
    }
    profile.stop();
    { VITALS_RECORD_FUNCTION("after stop"); }
    EXPECT_EQ(ready, 1);
    const Trace& t = profile.trace();
    EXPECT_EQ(names(t), (std::multiset<std::string>{"outer", "inner", "inner"}));
    ASSERT_EQ(t.events.size(), 3u);
    EXPECT_EQ(t.events[0].parent, -1);
    EXPECT_EQ(t.events[1].parent, 0);
    EXPECT_EQ(t.events[2].parent, 0);
    EXPECT_LE(t.events[0].start_ns, t.events[1].start_ns);
    EXPECT_LE(t.events[2].end_ns, t.events[0].end_ns);
    EXPECT_LE(t.start_ns, t.events[0].start_ns);
    EXPECT_LE(t.events[0].end_ns, t.end_ns);
    // Self time of outer = its duration minus both inners.
    const auto rows = t.key_averages().rows();
    const auto outer = std::find_if(rows.begin(), rows.end(), [](const auto& r) { return r.key == "outer"; });
    ASSERT_NE(outer, rows.end());
    EXPECT_NEAR(outer->self_cpu_time_total_us,
                static_cast<double>(t.events[0].duration_ns() - t.events[1].duration_ns() - t.events[2].duration_ns()) / 1000,
                1e-6);
}

TEST(Profile, MisuseIsAClearError) {
    Profile a;
    EXPECT_THROW(a.step(), std::logic_error);
    EXPECT_THROW(a.stop(), std::logic_error);
    a.start();
    EXPECT_THROW(a.start(), std::logic_error);
    Profile b;
    EXPECT_THROW(b.start(), std::logic_error);  // one session at a time
    a.stop();
    b.start();
    b.stop();
}

TEST(Profile, EightThreadsLoseNoEvent) {
    constexpr int kThreads = 8, kScopes = 20000;
    Profile profile;
    profile.start();
    record_nested_pairs(kThreads, kScopes);  // the threads have exited before stop()
    profile.stop();
    const Trace& t = profile.trace();
    std::map<std::int64_t, int> per_thread;
    for (const Event& e : t.events) per_thread[t.threads[static_cast<std::size_t>(e.thread)].tid] += 1;
    EXPECT_EQ(per_thread.size(), static_cast<std::size_t>(kThreads));
    for (const auto& [tid, count] : per_thread) EXPECT_EQ(count, 2 * kScopes) << tid;
    const auto rows = t.key_averages().rows();
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[0].count, kThreads * kScopes);
    EXPECT_EQ(rows[1].count, kThreads * kScopes);
}

// A thread's name in the trace is its own (pthread_setname_np), or "thread N": never
// the program's name that every thread inherits.
TEST(Profile, ThreadsAreNamedByTheirOwnNames) {
    Profile profile;
    profile.start();
    std::thread named([] {
        pthread_setname_np(pthread_self(), "loader");
        RecordFunction scope("load");
    });
    named.join();
    std::thread plain([] { RecordFunction scope("compute"); });
    plain.join();
    profile.stop();
    const Trace& t = profile.trace();
    std::map<std::string, std::string> thread_of;  // event -> its thread's name in the trace
    const auto doc = nlohmann::json::parse(t.chrome_trace_json());
    std::map<std::int64_t, std::string> names;
    for (const auto& e : doc.at("traceEvents")) {
        if (e.at("ph") == "M" && e.at("name") == "thread_name") names[e.at("tid").get<std::int64_t>()] = e.at("args").at("name");
    }
    for (const auto& e : doc.at("traceEvents")) {
        if (e.at("ph") == "X") thread_of[e.at("name")] = names[e.at("tid").get<std::int64_t>()];
    }
    EXPECT_EQ(thread_of.at("load"), "loader");
    EXPECT_EQ(thread_of.at("compute").rfind("thread ", 0), 0u) << thread_of.at("compute");
}

TEST(Profile, UnrecordedStepsStoreNothing) {
    Profile profile({.schedule = Schedule{.wait = 100000, .warmup = 1, .active = 1}});
    profile.start();
    for (int step = 0; step < 2000; ++step) {
        for (int i = 0; i < 100; ++i) VITALS_RECORD_FUNCTION("waiting");
        profile.step();
    }
    // Only the (empty) current chunk of each thread is held, however long the job runs.
    EXPECT_LE(vitals::profiler::recorder_memory_bytes(), 4u * 70 * 1024);
    profile.stop();
    EXPECT_TRUE(profile.trace().events.empty());
}

TEST(ChromeTrace, ParsesBackWithNestedSlicesAndAnyName) {
    const std::string tricky = std::string("quote \" backslash \\ newline \n tab \t bell \x07 bad utf8 \xff\xfe end");
    Profile profile;
    profile.start();
    {
        RecordFunction outer(vitals::profiler::copy_name, tricky);
        { VITALS_RECORD_FUNCTION("ünïcødé ✓"); }
        std::thread([] { VITALS_RECORD_FUNCTION("other thread"); }).join();
    }
    profile.stop();
    const fs::path dir = scratch_dir("chrome");
    const fs::path path = dir / "trace.json";
    profile.export_chrome_trace(path);
    std::ifstream in(path);
    const json doc = json::parse(in);  // throws if the file is not valid JSON
    EXPECT_EQ(doc.at("schemaVersion"), 1);
    EXPECT_TRUE(doc.at("deviceProperties").is_array());
    EXPECT_EQ(doc.at("displayTimeUnit"), "ms");
    EXPECT_GT(doc.at("baseTimeNanoseconds").get<std::int64_t>(), 1'600'000'000'000'000'000);
    std::set<std::string> seen;
    std::map<std::int64_t, std::vector<std::pair<double, double>>> slices;
    std::set<std::string> metadata;
    for (const json& e : doc.at("traceEvents")) {
        if (e.at("ph") == "X") {
            seen.insert(e.at("name").get<std::string>());
            // Annotations only, no step: the outermost are written as operators, so that
            // TensorBoard's plugin spans the trace by them; nested ones stay annotations.
            EXPECT_EQ(e.at("cat"), e.at("name") == "ünïcødé ✓" ? "user_annotation" : "cpu_op") << e.at("name");
            // No operator recorded and no device work: nothing for an "External id" to link.
            EXPECT_FALSE(e.contains("args")) << e.dump();
            slices[e.at("tid").get<std::int64_t>()].push_back({e.at("ts").get<double>(), e.at("ts").get<double>() + e.at("dur").get<double>()});
        } else if (e.at("ph") == "M") {
            metadata.insert(e.at("name").get<std::string>());
        }
    }
    const std::string replaced = std::string("quote \" backslash \\ newline \n tab \t bell \x07 bad utf8 ") +
                                 "\xef\xbf\xbd\xef\xbf\xbd" + " end";
    EXPECT_TRUE(seen.count(replaced)) << "invalid UTF-8 bytes become U+FFFD, the rest survives";
    EXPECT_TRUE(seen.count("ünïcødé ✓"));
    EXPECT_TRUE(seen.count("other thread"));
    EXPECT_EQ(slices.size(), 2u);
    EXPECT_TRUE(metadata.count("process_name"));
    EXPECT_TRUE(metadata.count("thread_name"));
    // Slices on a thread nest: any two are disjoint or one contains the other.
    for (const auto& [tid, list] : slices) {
        for (const auto& a : list) {
            for (const auto& b : list) {
                const bool disjoint = a.second <= b.first || b.second <= a.first;
                const bool nested = (a.first <= b.first && b.second <= a.second) || (b.first <= a.first && a.second <= b.second);
                EXPECT_TRUE(disjoint || nested);
            }
        }
    }
    fs::remove_all(dir);
}

TEST(ChromeTrace, UnwritablePathFailsAndLeavesNothing) {
    Profile profile;
    profile.start();
    { VITALS_RECORD_FUNCTION("x"); }
    profile.stop();
    const fs::path dir = scratch_dir("unwritable");
    EXPECT_THROW(profile.export_chrome_trace(dir / "missing" / "trace.json"), std::runtime_error);
    EXPECT_THROW(profile.export_chrome_trace(dir), std::runtime_error);  // a folder
    EXPECT_TRUE(fs::is_empty(dir));
    fs::remove_all(dir);
}

TEST(TensorboardHandler, WritesFilesToolsFind) {
    const fs::path dir = scratch_dir("tb") / "logs";
    for (bool gzip : {false, true}) {
        Profile profile({.schedule = Schedule{.wait = 0, .warmup = 1, .active = 1},
                         .on_trace_ready = tensorboard_trace_handler(dir, {.worker_name = "worker0", .use_gzip = gzip})});
        profile.start();
        for (int step = 0; step < 4; ++step) {
            { VITALS_RECORD_FUNCTION("train"); }
            profile.step();
        }
        profile.stop();
    }
    const std::regex pattern(R"(^(.*?)(\.\d+)?\.pt\.trace\.json(?:\.gz)?$)");
    int plain = 0, gzipped = 0;
    for (const auto& entry : fs::directory_iterator(dir)) {
        const std::string name = entry.path().filename().string();
        std::smatch match;
        ASSERT_TRUE(std::regex_match(name, match, pattern)) << name;
        EXPECT_EQ(match[1], "worker0");
        std::ifstream in(entry.path(), std::ios::binary);
        std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        if (name.ends_with(".gz")) {
            ++gzipped;
            z_stream z{};
            ASSERT_EQ(inflateInit2(&z, 15 + 16), Z_OK);
            std::string text(1 << 20, '\0');
            z.next_in = reinterpret_cast<Bytef*>(bytes.data());
            z.avail_in = static_cast<uInt>(bytes.size());
            z.next_out = reinterpret_cast<Bytef*>(text.data());
            z.avail_out = static_cast<uInt>(text.size());
            ASSERT_EQ(inflate(&z, Z_FINISH), Z_STREAM_END);
            text.resize(z.total_out);
            inflateEnd(&z);
            bytes = text;
        } else {
            ++plain;
        }
        const json doc = json::parse(bytes);
        EXPECT_EQ(doc.at("traceName"), "worker0");
    }
    // 4 steps of (warmup 1, active 1): two traces each, never sharing a file.
    EXPECT_EQ(plain, 2);
    EXPECT_EQ(gzipped, 2);
    fs::remove_all(dir.parent_path());
}

TEST(Profile, CudaActivityWhereItCannotBeRecordedSaysSoOnceAndKeepsCpuEvents) {
    ::testing::internal::CaptureStderr();
    for (int round = 0; round < 2; ++round) {
        Profile profile({.activities = {Activity::cpu, Activity::cuda}});
        profile.start();
        { VITALS_RECORD_FUNCTION("host work"); }
        profile.stop();
        EXPECT_EQ(names(profile.trace()), (std::multiset<std::string>{"host work"}));
    }
    const std::string err = ::testing::internal::GetCapturedStderr();
    // On a machine with a usable GPU CUPTI records and nothing is said.
    if (!err.empty()) {
        EXPECT_EQ(err.find("vitals: profiler: CUDA activity is not recorded ("), 0u) << err;
        EXPECT_EQ(err.find("vitals: profiler", 1), std::string::npos) << "said more than once:\n" << err;
    }
}

TEST(Profile, AnEventCapStopsRecordingWithAWarning) {
    ::testing::internal::CaptureStderr();
    Profile profile({.max_events = 10000});
    profile.start();
    for (int i = 0; i < 100000; ++i) VITALS_RECORD_FUNCTION("many");
    profile.stop();
    const std::string err = ::testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("reached its cap of 10000 events"), std::string::npos) << err;
    const auto kept = profile.trace().events.size();
    EXPECT_GE(kept, 10000u - 4096u);  // whole chunks
    EXPECT_LE(kept, 10000u + 4096u);
    // The next window records again.
    Profile again;
    again.start();
    { VITALS_RECORD_FUNCTION("after the cap"); }
    again.stop();
    EXPECT_EQ(again.trace().events.size(), 1u);
}

namespace {
std::int64_t resident_bytes() {
    std::ifstream statm("/proc/self/statm");
    std::int64_t size = 0, resident = 0;
    statm >> size >> resident;
    return resident * ::sysconf(_SC_PAGESIZE);
}
}  // namespace

TEST(Profile, TenThousandUnrecordedStepsKeepResidentMemoryFlat) {
    Profile profile({.schedule = Schedule{.wait = 20000, .warmup = 1, .active = 1}});
    profile.start();
    std::int64_t after_warm_up = 0;
    for (int step = 0; step < 10000; ++step) {
        for (int i = 0; i < 100; ++i) VITALS_RECORD_FUNCTION("not recorded");
        profile.step();
        if (step == 999) after_warm_up = resident_bytes();
    }
    const std::int64_t at_end = resident_bytes();
    profile.stop();
    // 9,000 more steps of 100 scopes each (about 29 MB if they were stored): flat.
    EXPECT_LT(at_end - after_warm_up, 1 << 20) << "resident memory grew by " << (at_end - after_warm_up) << " bytes";
}

TEST(Profile, SixteenThreadsRecordingAMillionScopesEachLoseNothingAndExportAValidTrace) {
    if (VITALS_SANITIZED) GTEST_SKIP() << "16M events take too much memory under sanitizers";
    constexpr int kThreads = 16, kScopes = 1'000'000;
    Profile profile({.max_events = 0});
    profile.start();
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([] {
            for (int i = 0; i < kScopes; ++i) VITALS_RECORD_FUNCTION("scope");
        });
    }
    for (auto& th : threads) th.join();
    profile.stop();
    const auto rows = profile.trace().key_averages().rows();
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0].count, std::int64_t{kThreads} * kScopes);
    EXPECT_EQ(profile.trace().threads.size(), static_cast<std::size_t>(kThreads));
    // The 16M-event trace (about 2 GB) is valid JSON with every event: checked with a
    // streaming parse, which holds no document in memory.
    const fs::path dir = scratch_dir("sixteen-million");
    const fs::path path = dir / "trace.json";
    profile.export_chrome_trace(path);
    struct CountSlices : nlohmann::json_sax<json> {
        std::int64_t slices = 0;
        bool in_ph = false;
        bool null() override { return true; }
        bool boolean(bool) override { return true; }
        bool number_integer(number_integer_t) override { return true; }
        bool number_unsigned(number_unsigned_t) override { return true; }
        bool number_float(number_float_t, const string_t&) override { return true; }
        bool string(string_t& value) override {
            if (in_ph && value == "X") ++slices;
            in_ph = false;
            return true;
        }
        bool binary(binary_t&) override { return true; }
        bool start_object(std::size_t) override { return true; }
        bool key(string_t& k) override {
            in_ph = k == "ph";
            return true;
        }
        bool end_object() override { return true; }
        bool start_array(std::size_t) override { return true; }
        bool end_array() override { return true; }
        bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
            ADD_FAILURE() << "invalid trace JSON: " << e.what();
            return false;
        }
    } counter;
    std::ifstream in(path, std::ios::binary);
    EXPECT_TRUE(json::sax_parse(in, &counter));
    EXPECT_EQ(counter.slices, std::int64_t{kThreads} * kScopes);
    fs::remove_all(dir);
}

TEST(Profile, ManyThreadsExportAValidTrace) {
    constexpr int kThreads = 16, kScopes = 20'000;
    Profile profile;
    profile.start();
    record_nested_pairs(kThreads, kScopes);
    profile.stop();
    const fs::path dir = scratch_dir("many-threads");
    profile.export_chrome_trace(dir / "trace.json");
    const Trace back = read_chrome_trace(dir / "trace.json");
    EXPECT_EQ(back.events.size(), std::size_t{2} * kThreads * kScopes);
    EXPECT_EQ(back.threads.size(), static_cast<std::size_t>(kThreads));
    for (const Event& e : back.events) {  // every inner lies in an outer on its thread
        if (e.name == "inner") {
            ASSERT_GE(e.parent, 0);
            ASSERT_EQ(back.events[static_cast<std::size_t>(e.parent)].name, "outer");
        }
    }
    fs::remove_all(dir);
}

// Gzipped traces (tensorboard_trace_handler's .gz) read back whole, whatever their size:
// zlib is fed in bounded chunks both ways. A cut-off file is a clear error.
TEST(GzipTraces, WrittenAndReadBackWhole) {
    const fs::path dir = fs::temp_directory_path() / ("vitals-gzip-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    Profile profile({.on_trace_ready = tensorboard_trace_handler(dir, {.worker_name = "w", .use_gzip = true})});
    profile.start();
    for (int i = 0; i < 40000; ++i) {  // several MiB of JSON: more than one buffer of output
        RecordFunction scope(copy_name, "scope " + std::to_string(i));
    }
    profile.stop();
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(dir)) files.push_back(entry.path());
    ASSERT_EQ(files.size(), 1u);
    EXPECT_EQ(files[0].extension(), ".gz");
    const Trace back = read_chrome_trace(files[0]);
    EXPECT_EQ(back.events.size(), profile.trace().events.size());
    EXPECT_EQ(back.events.back().name, profile.trace().events.back().name);

    std::string bytes;
    {
        std::ifstream in(files[0], std::ios::binary);
        bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    std::ofstream(dir / "cut.json.gz", std::ios::binary) << bytes.substr(0, bytes.size() / 2);
    try {
        read_chrome_trace(dir / "cut.json.gz");
        ADD_FAILURE() << "a cut-off gzip trace was read";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("ends early"), std::string::npos) << e.what();
    }
    fs::remove_all(dir);
}

// Any text names a scope: names built at run time are copied, so none can dangle, even
// when the text they came from is gone before the profile stops.
TEST(Profile, RunTimeNamesAreCopiedAndNeverDangle) {
    constexpr int kNames = 3000;
    Profile profile({});  // an empty braced list: the default options
    profile.start();
    for (int i = 0; i < kNames; ++i) {
        VITALS_RECORD_FUNCTION(("batch " + std::to_string(i)).c_str());  // the temporary dies at the ';'
    }
    {
        std::string owned = "owned name";
        const std::string_view view = owned;
        RecordFunction from_string(owned);
        RecordFunction from_view(view);
        char buffer[16] = "buffer name";
        RecordFunction from_buffer(buffer);
        buffer[0] = 'X';  // the copy keeps what it was
        owned[0] = 'X';
    }
    profile.stop();
    const auto rows = profile.key_averages().rows();
    std::set<std::string> names;
    for (const auto& r : rows) names.insert(r.key);
    for (int i = 0; i < kNames; ++i) ASSERT_TRUE(names.count("batch " + std::to_string(i))) << i;
    EXPECT_TRUE(names.count("owned name"));
    EXPECT_TRUE(names.count("buffer name"));
    const json doc = json::parse(profile.trace().chrome_trace_json());
    std::set<std::string> traced;
    for (const json& e : doc.at("traceEvents")) {
        if (e.at("ph") == "X") traced.insert(e.at("name").get<std::string>());
    }
    EXPECT_TRUE(traced.count("batch 0"));
    EXPECT_TRUE(traced.count("batch " + std::to_string(kNames - 1)));
}

// Results asked for before any trace has finished are an error that says what to do.
TEST(Profile, ResultsBeforeStopAreAnError) {
    Profile profile;
    EXPECT_THROW(profile.key_averages(), std::logic_error);
    profile.start();
    try {
        profile.export_chrome_trace(scratch_dir("early") / "t.json");
        FAIL() << "a running profile exported a trace";
    } catch (const std::logic_error& e) {
        EXPECT_NE(std::string(e.what()).find("call stop() first"), std::string::npos) << e.what();
    }
    profile.stop();
    EXPECT_NO_THROW(profile.key_averages());
}

// A failing on_trace_ready at a scope's end is reported, not fatal: the program goes on,
// and the error is kept. An explicit stop() still throws it.
TEST(Profile, AFailingHandlerAtAScopesEndIsReportedNotFatal) {
    const auto failing = [](Profile&) { throw std::runtime_error("disk full"); };
    Profile profile({.on_trace_ready = failing});
    {
        ProfileScope scope(profile);
        VITALS_RECORD_FUNCTION("work");
    }  // would call std::terminate if the error escaped the destructor
    EXPECT_FALSE(profile.running());
    EXPECT_EQ(profile.last_error(), "disk full");
    EXPECT_FALSE(vitals::profiler::is_recording());
    Profile explicit_stop({.on_trace_ready = failing});
    explicit_stop.start();
    EXPECT_THROW(explicit_stop.stop(), std::runtime_error);
    EXPECT_FALSE(explicit_stop.running());
    EXPECT_FALSE(vitals::profiler::is_recording());
}

// A handler that stops the profile stops recording: nothing is left switched on.
TEST(Profile, AHandlerThatStopsTheProfileStopsRecording) {
    int delivered = 0;
    Profile profile({.schedule = Schedule{.wait = 0, .warmup = 0, .active = 1},
                     .on_trace_ready = [&](Profile& p) {
                         ++delivered;
                         p.stop();
                     }});
    profile.start();
    { VITALS_RECORD_FUNCTION("step 0"); }
    profile.step();  // the first cycle ends: the handler runs and stops the profile
    EXPECT_EQ(delivered, 1);
    EXPECT_FALSE(profile.running());
    EXPECT_FALSE(vitals::profiler::is_recording());
    { VITALS_RECORD_FUNCTION("after the stop"); }
    bool found = false;
    for (const auto& e : profile.trace().events) found = found || e.name == "step 0";
    EXPECT_TRUE(found) << "the delivered trace stays readable";
    EXPECT_THROW(profile.step(), std::logic_error);
    Profile next;  // another profile can start: none is left running
    EXPECT_NO_THROW(next.start());
    next.stop();
}

// Numbers from outside files convert only when they fit: a tid of 4.4e41 (a fuzzer's find:
// undefined behaviour in a float-to-integer conversion) is an error naming the event.
TEST(ChromeTrace, OutOfRangeNumbersAreErrorsNotUndefinedBehaviour) {
    const std::string huge = R"([{"ph": "X", "name": "op", "tid": 444444444444444444444444400000000000000000, "ts": 1, "dur": 2}])";
    try {
        (void)vitals::profiler::parse_chrome_trace(huge, "huge.json");
        FAIL() << "a tid beyond 64 bits was read";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("event 'op' has tid"), std::string::npos) << e.what();
    }
    const std::string fractional = R"([{"ph": "X", "name": "op", "tid": 1.5, "ts": 1, "dur": 2}])";
    EXPECT_THROW((void)vitals::profiler::parse_chrome_trace(fractional, "f.json"), std::runtime_error);
    const std::string fine = R"([{"ph": "X", "name": "op", "tid": 7.0, "ts": 1, "dur": 2}])";
    EXPECT_EQ(vitals::profiler::parse_chrome_trace(fine, "ok.json").threads.at(0).tid, 7);
    // Each in range alone, their sum (8.9e18 + 8.9e18 ns) was a signed overflow; so was
    // the span between an event near each end of the range.
    for (const char* times : {R"("ts": 3.9e15, "dur": 3.9e15)", R"("ts": -3.9e15, "dur": 3.9e15)"}) {
        const std::string far = std::string(R"([{"ph": "X", "name": "far", "tid": 1, )") + times + "}]";
        try {
            (void)vitals::profiler::parse_chrome_trace(far, "far.json");
            FAIL() << "an end beyond the range was read: " << times;
        } catch (const std::runtime_error& e) {
            EXPECT_NE(std::string(e.what()).find("event 'far' has ts"), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find("|ts| + dur below 4e+15 microseconds"), std::string::npos) << e.what();
        }
    }
    const std::string wide = R"([{"ph": "X", "name": "early", "tid": 1, "ts": -3.9e15, "dur": 1},
                                 {"ph": "X", "name": "late", "tid": 1, "ts": 3.9e15, "dur": 1}])";
    const vitals::profiler::Trace both = vitals::profiler::parse_chrome_trace(wide, "wide.json");
    ASSERT_EQ(both.events.size(), 2u);
    EXPECT_EQ(both.events[1].end_ns - both.events[0].start_ns, std::int64_t{7'800'000'000'000'001'000});
}

// Every chunk counts against max_events, a thread's first one too: many short-lived
// threads each recording one scope stop at the cap instead of growing without bound.
TEST(Profile, ShortLivedThreadsCountAgainstTheCap) {
    Profile profile({.max_events = 4 * 4096});  // four chunks
    profile.start();
    for (int i = 0; i < 64; ++i) {
        std::thread([] { VITALS_RECORD_FUNCTION("one scope"); }).join();
    }
    profile.stop();
    EXPECT_LE(profile.trace().events.size(), 16u) << "threads past the cap kept recording (64 threads ran)";
    EXPECT_GE(profile.trace().events.size(), 1u);
}
