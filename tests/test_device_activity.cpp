// The device side of the profiler and the timer, checked without a device: synthetic
// device records fed through the hooks vitals::cuda installs, along the same path CUPTI's
// records take (Profile -> stop_trace -> build_trace -> the window filter -> the trace),
// and a stand-in device clock that shows what the timer asks of it.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>
#include <string>
#include <vector>

#include "device_activity.hpp"
#include "vitals/cuda_hooks.hpp"
#include "vitals/profiler/clock.hpp"
#include "vitals/profiler/profile.hpp"
#include "vitals/profiler/record_function.hpp"
#include "vitals/timer.hpp"

namespace da = vitals::profiler::detail::device_activity;
using vitals::profiler::DeviceEvent;

namespace {

DeviceEvent event(const std::string& name, std::int64_t start_ns, std::int64_t end_ns,
                  DeviceEvent::Kind kind = DeviceEvent::Kind::kernel) {
    DeviceEvent e;
    e.kind = kind;
    e.name = name;
    e.start_ns = start_ns;
    e.end_ns = end_ns;
    return e;
}

std::vector<std::string> names(const std::vector<DeviceEvent>& events) {
    std::vector<std::string> out;
    for (const DeviceEvent& e : events) out.push_back(e.name);
    return out;
}

// What the fake CUPTI saw and will hand back.
struct FakeCupti {
    std::vector<std::string> calls;
    std::vector<DeviceEvent> recorded;  // returned by stop()
};
FakeCupti g_fake;

void install_fake_cupti() {
    g_fake = {};
    da::install_hooks({
        .start = [] { g_fake.calls.push_back("start"); return std::string(); },
        .stop = [] { g_fake.calls.push_back("stop"); return g_fake.recorded; },
        .synchronize = [] { g_fake.calls.push_back("synchronize"); },
    });
}

std::int64_t gettid_now() { return static_cast<std::int64_t>(::syscall(SYS_gettid)); }

}  // namespace

TEST(DeviceWindow, KeepsOnlyRecordsInsideTheWindow) {
    const std::vector<DeviceEvent> records = {
        event("warm-up kernel", 100, 200),       // before the window
        event("straddles start", 900, 1100),     // began before it
        event("inside", 1000, 1500),             // exactly on the start is inside
        event("inside too", 1600, 2000),         // exactly on the end is inside
        event("straddles end", 1900, 2100),      // still running at the end
        event("after", 2100, 2200),              // launched after
        event("zero start", -1'700'000'000'000'000'000, 1500),  // CUPTI's 0, moved onto the steady clock
        event("zero end", 1200, 0),              // ends before it starts
    };
    EXPECT_EQ(names(da::in_window(records, 1000, 2000)), (std::vector<std::string>{"inside", "inside too"}));
    EXPECT_TRUE(da::in_window({}, 0, 10).empty());
    EXPECT_TRUE(da::in_window(records, 3000, 4000).empty());
}

TEST(DeviceWindow, AProfileDropsWarmUpRecordsAndSynchronisesBeforeItsEnd) {
    install_fake_cupti();
    vitals::profiler::ProfileOptions options;
    options.activities = {vitals::profiler::Activity::cpu, vitals::profiler::Activity::cuda};
    options.schedule = vitals::profiler::Schedule{.wait = 0, .warmup = 1, .active = 1, .repeat = 1};
    vitals::profiler::Profile profile(options);
    // Milliseconds between the instants: the window's edges go through the tick clock's
    // calibration, whose error on a loaded machine is far below that.
    const auto pause = [] { std::this_thread::sleep_for(std::chrono::milliseconds(20)); };
    profile.start();  // step 0: warm-up, CUPTI already on
    const std::int64_t warm = vitals::profiler::detail::steady_ns();
    pause();
    profile.step();  // step 1: recorded
    std::int64_t inside = 0;
    {
        vitals::profiler::RecordFunction scope("launching op");
        pause();
        inside = vitals::profiler::detail::steady_ns();
        pause();
    }
    const std::int64_t tid = gettid_now();
    g_fake.recorded = {
        event("warm-up kernel", warm, warm + 10),
        event("window kernel", inside, inside + 10),
        event("cudaLaunchKernel", inside, inside + 5, DeviceEvent::Kind::runtime),
        event("lost kernel", -1'700'000'000'000'000'000, inside),
    };
    g_fake.recorded[2].host_tid = tid;  // CUPTI's system thread id: gettid, as the CPU events
    profile.stop();
    EXPECT_EQ(g_fake.calls, (std::vector<std::string>{"start", "synchronize", "stop"}));
    const vitals::profiler::Trace& trace = profile.trace();
    EXPECT_EQ(names(trace.device), (std::vector<std::string>{"window kernel", "cudaLaunchKernel"}));

    // The runtime call lands on the thread of the CPU op that made it.
    const nlohmann::json json = nlohmann::json::parse(trace.chrome_trace_json());
    std::int64_t op_tid = -1, launch_tid = -2;
    for (const auto& e : json.at("traceEvents")) {
        if (!e.contains("name") || !e.contains("tid") || !e.at("tid").is_number()) continue;
        if (e.at("name") == "launching op") op_tid = e.at("tid").get<std::int64_t>();
        if (e.at("name") == "cudaLaunchKernel" && e.value("ph", "") == "X") launch_tid = e.at("tid").get<std::int64_t>();
    }
    EXPECT_EQ(op_tid, tid);
    EXPECT_EQ(launch_tid, tid);
}

TEST(DeviceWindow, WithoutDeviceActivityNothingIsSynchronised) {
    install_fake_cupti();
    vitals::profiler::Profile profile;  // CPU activity only
    profile.start();
    profile.stop();
    EXPECT_TRUE(g_fake.calls.empty());
}

namespace {

// A stand-in device clock: counts the statement's calls and the synchronisations, and
// notes how many calls came before the first timed block.
struct FakeDevice {
    std::atomic<int> calls{0};
    int synchronized = 0;
    int blocks = 0;
    int calls_before_first_block = -1;
    int synchronized_before_first_block = -1;
};
FakeDevice g_device;

void install_fake_device() {
    vitals::install_cuda_hooks({
        .unavailable_reason = [] { return std::string(); },
        .time_on_stream =
            [](CUstream_st*, void (*run)(void*), void* context) {
                if (g_device.blocks++ == 0) {
                    g_device.calls_before_first_block = g_device.calls.load();
                    g_device.synchronized_before_first_block = g_device.synchronized;
                }
                const auto start = std::chrono::steady_clock::now();
                run(context);
                return std::max(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 1e-9);
            },
        .synchronize_stream = [](CUstream_st*) { ++g_device.synchronized; },
    });
}

}  // namespace

TEST(DeviceTiming, OneUntimedCallBeforeTheBlockSizeEstimate) {
    install_fake_device();
    for (const bool adaptive : {false, true}) {
        SCOPED_TRACE(adaptive ? "adaptive_autorange" : "blocked_autorange");
        g_device.calls = 0;
        g_device.synchronized = 0;
        g_device.blocks = 0;
        vitals::Timer timer({.stmt = [] { ++g_device.calls; }, .cuda_stream = nullptr});
        if (adaptive) {
            timer.adaptive_autorange({.min_run_time = 0.01, .max_run_time = 0.05});
        } else {
            timer.blocked_autorange({.min_run_time = 0.01});
        }
        EXPECT_EQ(g_device.calls_before_first_block, 1);  // the warm-up call, not timed
        EXPECT_EQ(g_device.synchronized_before_first_block, 1);  // and finished before the first block
    }
}
