// The edges of a recorded window: scopes still open when it closes, a fork() while it
// records, and CUDA activity asked for where no device is usable.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "vitals/cuda_support.hpp"
#include "vitals/profiler/profile.hpp"
#include "vitals/profiler/trace.hpp"

using namespace vitals::profiler;
using namespace std::chrono_literals;

namespace {

std::vector<const Event*> named(const Trace& t, std::string_view name) {
    std::vector<const Event*> out;
    for (const Event& e : t.events) {
        if (e.name == name) out.push_back(&e);
    }
    return out;
}

double ms(const Event& e) { return static_cast<double>(e.duration_ns()) / 1e6; }

}  // namespace

// A scope on another thread still open when the profile stops (it ends only after stop()
// returns, however slow the build): it is left out and counted (never kept cut short),
// and said on stderr; the scopes that ended in the window are whole.
TEST(ProfileWindows, AScopeOpenWhenTheWindowClosesIsLeftOutAndCounted) {
    Profile profile;
    profile.start();
    std::atomic<bool> long_one_begun{false}, stopped{false};
    std::thread worker([&] {
        { VITALS_RECORD_FUNCTION("short"); std::this_thread::sleep_for(1ms); }
        VITALS_RECORD_FUNCTION("still open");
        long_one_begun = true;
        while (!stopped) std::this_thread::sleep_for(100us);
    });
    while (!long_one_begun) std::this_thread::sleep_for(100us);
    std::this_thread::sleep_for(4ms);
    ::testing::internal::CaptureStderr();
    profile.stop();
    stopped = true;
    const std::string said = ::testing::internal::GetCapturedStderr();
    worker.join();
    const Trace& t = profile.trace();
    EXPECT_TRUE(named(t, "still open").empty()) << "cut to " << ms(*named(t, "still open")[0]) << " ms";
    EXPECT_EQ(t.scopes_left_open, 1);
    ASSERT_EQ(named(t, "short").size(), 1u);
    EXPECT_GE(ms(*named(t, "short")[0]), 1.0);
    EXPECT_EQ(said,
              "vitals: note: 1 scope still open when the window closed was left out of this trace (a scope is recorded "
              "whole or not at all; end a scope before the step() or stop() that closes the window to keep it)\n");
}

// Scheduled windows one after another (active 1, no wait): an iteration scope around
// step() is in no window, and each iteration that lies inside one is whole, so the mean
// of the recorded iterations is their true length, not lowered by cut ones.
TEST(ProfileWindows, IterationsAroundStepAreWholeOrAbsentInEveryWindow) {
    std::vector<Trace> traces;
    Profile profile({.schedule = Schedule{.wait = 0, .warmup = 1, .active = 2, .repeat = 2},
                     .on_trace_ready = [&](Profile& p) { traces.push_back(p.trace()); }});
    ::testing::internal::CaptureStderr();
    profile.start();
    for (int i = 0; i < 6; ++i) {
        VITALS_RECORD_FUNCTION("iteration");
        std::this_thread::sleep_for(3ms);
        profile.step();
        std::this_thread::sleep_for(3ms);
    }
    profile.stop();
    (void)::testing::internal::GetCapturedStderr();
    ASSERT_EQ(traces.size(), 2u);
    for (const Trace& t : traces) {
        const auto iterations = named(t, "iteration");
        ASSERT_EQ(iterations.size(), 1u) << "the one that began and ended inside the window";
        EXPECT_GE(ms(*iterations[0]), 6.0) << "whole";
        EXPECT_EQ(t.scopes_left_open, 1) << "the one around the step that closed the window";
    }
}

// fork() inside a profiled region: the child may start a Profile of its own at once (the
// parent's, copied into the child, is not the running one there); the copy stops
// without a trace and without on_trace_ready, and cannot be stepped; the parent's
// profile goes on and delivers its window.
TEST(ProfileWindows, AForkedChildStartsItsOwnProfileWhileTheParentsRuns) {
    int delivered = 0;
    Profile profile({.on_trace_ready = [&](Profile&) { ++delivered; }});
    profile.start();
    { VITALS_RECORD_FUNCTION("before the fork"); }
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        ::alarm(10);
        int failed = 0;
        const auto check = [&](bool ok, int bit) { failed |= ok ? 0 : bit; };
        check(!profile.running(), 1);
        Profile own;
        try {
            own.start();  // the parent's profile, copied, does not block it
        } catch (const std::exception&) {
            ::_exit(100);
        }
        { VITALS_RECORD_FUNCTION("in the child"); }
        bool step_refused = false;
        try {
            profile.step();
        } catch (const std::logic_error& e) {
            step_refused = std::string(e.what()).find("before the fork()") != std::string::npos;
        }
        check(step_refused, 2);
        profile.stop();  // the copy: ends quietly, delivers nothing
        check(delivered == 0, 4);
        check(own.running(), 8);
        Profile third;
        bool still_taken = false;
        try {
            third.start();
        } catch (const std::logic_error&) {
            still_taken = true;  // the copy's stop left the child's running profile alone
        }
        check(still_taken, 16);
        own.stop();
        check(own.trace().events.size() == 1 && own.trace().events[0].name == "in the child", 32);
        Profile again;  // the copy can also start anew in the child
        again.start();
        again.stop();
        profile.start();
        { VITALS_RECORD_FUNCTION("copy restarted"); }
        profile.stop();
        check(delivered == 1 && named(profile.trace(), "copy restarted").size() == 1, 64);
        ::_exit(failed);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status)) << "the child died of signal " << WTERMSIG(status);
    EXPECT_EQ(WEXITSTATUS(status), 0) << "failed checks (bits; 100: start threw)";
    { VITALS_RECORD_FUNCTION("after the fork"); }
    profile.stop();
    EXPECT_EQ(delivered, 1);
    EXPECT_EQ(named(profile.trace(), "before the fork").size(), 1u);
    EXPECT_EQ(named(profile.trace(), "after the fork").size(), 1u);
    EXPECT_TRUE(named(profile.trace(), "in the child").empty());
}

// Run alone by the test below, in a fresh process (the line is said once per process).
TEST(ProfileWindows, DISABLED_CudaActivityAskedFor) {
    Profile profile({.activities = {Activity::cpu, Activity::cuda}});
    profile.start();
    { VITALS_RECORD_FUNCTION("host work"); }
    profile.stop();
    EXPECT_EQ(named(profile.trace(), "host work").size(), 1u) << "CPU activity is still recorded";
}

// CUDA activity without a usable device: the profile says why in the words the rest of
// vitals uses (cuda_unavailable_reason), not in CUPTI's status for whichever call failed.
TEST(ProfileWindows, CudaActivityWithoutADeviceGivesTheDeviceReason) {
    const std::string reason = vitals::cuda_unavailable_reason();
    if (reason.empty()) GTEST_SKIP() << "a CUDA device is usable here: CUPTI records, and there is no reason to give";
    const std::string err = ::testing::TempDir() + "vitals-cuda-reason-" + std::to_string(::getpid());
    const std::string command = "/proc/" + std::to_string(::getpid()) +
                                "/exe --gtest_also_run_disabled_tests --gtest_filter=ProfileWindows.DISABLED_CudaActivityAskedFor "
                                ">/dev/null 2>" + err;
    const int status = std::system(command.c_str());
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << command;
    std::ifstream in(err);
    const std::string said{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    std::remove(err.c_str());
    EXPECT_EQ(said, "vitals: profiler: CUDA activity is not recorded (" + reason + "); recording CPU activity only\n");
    EXPECT_EQ(said.find("CUPTI_ERROR"), std::string::npos) << said;
}
