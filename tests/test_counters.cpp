// Counters per block: the list a user gives, what a Measurement says of its counts
// (synthetic counts, known answers), and real counts from the kernel for statements
// whose events are known (pages first touched, a sleep that leaves the core).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <cstring>
#include <stdexcept>

#include "sanitizers.hpp"
#include "vitals/counters.hpp"
#include "vitals/timer.hpp"

namespace {

using testing::HasSubstr;

std::string refusal_of(std::string_view list) {
    try {
        vitals::parse_counter_list(list);
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "";
}

// Whether this process may open a software counter for itself; the reason if not.
std::string software_counters_refused() {
    vitals::Timer timer({.stmt = [] {}, .counters = {"task-clock"}});
    const vitals::Measurement m = timer.timeit(10);
    if (m.counters().unavailable.empty()) return "";
    return m.counters().unavailable.front();
}

}  // namespace

TEST(Counters, ListsAreDefaultNoneOrKnownNames) {
    EXPECT_EQ(vitals::parse_counter_list("none"), std::vector<std::string>{});
    EXPECT_EQ(vitals::parse_counter_list("default"), vitals::default_counters());
    EXPECT_EQ(vitals::default_counters().size(), vitals::known_counters().size());
    EXPECT_EQ(vitals::parse_counter_list("cycles,context-switches,cycles"),
              (std::vector<std::string>{"cycles", "context-switches"}));
    // An unknown name is named, with the list of known ones.
    const std::string why = refusal_of("cycles,cache-mises");
    EXPECT_THAT(why, HasSubstr("unknown counter 'cache-mises'"));
    EXPECT_THAT(why, HasSubstr("cache-misses"));
    EXPECT_THAT(why, HasSubstr("context-switches"));
    EXPECT_THAT(refusal_of(""), HasSubstr("unknown counter ''"));
    EXPECT_THAT(refusal_of("cycles,"), HasSubstr("unknown counter ''"));
}

TEST(Counters, DisturbedBlocksAreThoseThatLostTheirCore) {
    // Five blocks of 10 calls; blocks 1 and 3 had a context switch or a migration and took longer.
    const vitals::Measurement plain(10, {1e-5, 2e-5, 1e-5, 3e-5, 1e-5}, {});
    const vitals::Measurement m = plain.with_counters(
        {{"context-switches", "cpu-migrations"}, {{0, 1, 0, 0, 0}, {0, 0, 0, 2, 0}}, {}});
    const std::optional<vitals::Disturbance> d = m.disturbance();
    ASSERT_TRUE(d.has_value());
    EXPECT_EQ(d->blocks, 2u);
    EXPECT_EQ(d->of, 5u);
    EXPECT_DOUBLE_EQ(d->median_shift, 1.5);  // disturbed median 2.5 us per call against 1 us
    EXPECT_THAT(m.to_string(), HasSubstr("\n  Disturbed: 2 of 5 blocks had a context switch or migration (their median +150%)"));
    // No line when nothing was disturbed, nor without the counters: the reference layout.
    const vitals::Measurement quiet = plain.with_counters({{"context-switches", "cpu-migrations"}, {{0, 0, 0, 0, 0}, {0, 0, 0, 0, 0}}, {}});
    EXPECT_EQ(quiet.disturbance()->blocks, 0u);
    EXPECT_EQ(quiet.to_string(), plain.to_string());
    EXPECT_FALSE(plain.disturbance().has_value());
    // A block whose counters were not read (NaN) is not judged, either way.
    const vitals::Measurement unread = plain.with_counters({{"context-switches", "cpu-migrations"}, {{0, NAN, 1, 0, 0}, {0, 0, 0, 0, NAN}}, {}});
    EXPECT_EQ(unread.disturbance()->blocks, 1u);
    EXPECT_EQ(unread.disturbance()->of, 3u);
    EXPECT_FALSE(plain.with_counters({{"page-faults"}, {{1, 2, 3, 4, 5}}, {}}).disturbance().has_value());
}

TEST(Counters, HardwareCountsBecomeIpcAndMissRates) {
    const vitals::Measurement m = vitals::Measurement(1, {1e-6, 1e-6}, {}).with_counters(
        {{"cycles", "instructions", "branches", "branch-misses"}, {{1000, 1000}, {3000, 3200}, {500, 500}, {1, 2}}, {}});
    EXPECT_THAT(m.to_string(), HasSubstr("\n  Counters: 3.10 IPC, 0.30% branch misses"));
}

TEST(Counters, OneValuePerBlockOrTheMeasurementRefusesThem) {
    const vitals::Measurement m(1, {1e-6, 2e-6}, {});
    EXPECT_THROW((void)m.with_counters({{"cycles"}, {{1, 2, 3}}, {}}), std::invalid_argument);
    EXPECT_THROW((void)m.with_counters({{"cycles", "instructions"}, {{1, 2}}, {}}), std::invalid_argument);
    // Merged measurements keep the counts, block for block, as read, with each block's
    // calls beside them (blocks of 1, 10 and 4 calls here): the times are per call.
    const vitals::Measurement a = m.with_counters({{"page-faults"}, {{1, 2}}, {}});
    const vitals::Measurement b = vitals::Measurement(10, {3e-5}, {}).with_counters({{"page-faults"}, {{70}}, {}});
    const vitals::Measurement c = vitals::Measurement(4, {8e-6}, {}).with_counters({{"page-faults"}, {{2}}, {}});
    const std::vector<vitals::Measurement> merged = vitals::Measurement::merge(std::vector{a, b, c});
    ASSERT_EQ(merged.size(), 1u);
    EXPECT_EQ(merged[0].number_per_run(), 1);
    EXPECT_EQ(*merged[0].counters().find("page-faults"), (std::vector<double>{1, 2, 70, 2}));
    EXPECT_EQ(merged[0].counters().block_calls, (std::vector<double>{1, 1, 10, 4}));
    EXPECT_THROW((void)m.with_counters({{"page-faults"}, {{1, 2}}, {}, {1, 2, 3}}), std::invalid_argument);
    // Measurements that read different counters join every counter, with no value (NaN)
    // in the blocks of those that did not read it, and every reason a counter was refused.
    const vitals::Measurement other = vitals::Measurement(1, {3e-6}, {}).with_counters(
        {{"context-switches"}, {{0}}, {"cycles: no PMU in this virtual machine"}});
    const std::vector<vitals::Measurement> mixed = vitals::Measurement::merge(std::vector{a, other, vitals::Measurement(1, {4e-6}, {})});
    ASSERT_EQ(mixed[0].counters().names, (std::vector<std::string>{"page-faults", "context-switches"}));
    const std::vector<double>& faults = *mixed[0].counters().find("page-faults");
    ASSERT_EQ(faults.size(), 4u);
    EXPECT_EQ(faults[1], 2);
    EXPECT_TRUE(std::isnan(faults[2]) && std::isnan(faults[3]));
    const std::vector<double>& switches = *mixed[0].counters().find("context-switches");
    EXPECT_TRUE(std::isnan(switches[0]) && std::isnan(switches[1]));
    EXPECT_EQ(switches[2], 0);
    EXPECT_EQ(mixed[0].counters().unavailable, (std::vector<std::string>{"cycles: no PMU in this virtual machine"}));
}

// A context switch in a merged block of many calls still marks the block disturbed: the
// judgment is on the block's counts, not per call.
TEST(Counters, MergedBlocksOfManyCallsAreJudgedOnTheirCounts) {
    const vitals::Measurement a = vitals::Measurement(1000, {1e-3, 2e-3}, {}).with_counters(
        {{"context-switches", "cpu-migrations"}, {{1, 0}, {0, 0}}, {}});
    const vitals::Measurement b = vitals::Measurement(500, {1e-3}, {}).with_counters({{"context-switches", "cpu-migrations"}, {{0}, {1}}, {}});
    const std::optional<vitals::Disturbance> d = vitals::Measurement::merge(std::vector{a, b})[0].disturbance();
    ASSERT_TRUE(d.has_value());
    EXPECT_EQ(d->blocks, 2u);
    EXPECT_EQ(d->of, 3u);
}

TEST(Counters, PagesFirstTouchedAreCountedPerBlock) {
    if (const std::string why = software_counters_refused(); !why.empty()) GTEST_SKIP() << why;
    constexpr std::size_t kPages = 256;
    const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    // Each call maps fresh memory and touches every page once: one fault per page.
    vitals::Timer timer({.stmt =
                             [&] {
                                 void* p = ::mmap(nullptr, kPages * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
                                 if (p == MAP_FAILED) throw std::runtime_error(std::strerror(errno));
                                 ::madvise(p, kPages * page, MADV_NOHUGEPAGE);
                                 for (std::size_t k = 0; k < kPages; ++k) static_cast<volatile char*>(p)[k * page] = 1;
                                 ::munmap(p, kPages * page);
                             },
                         .counters = {"page-faults", "task-clock"}});
    const vitals::Measurement m = timer.timeit(20);
    const std::vector<double>* faults = m.counters().find("page-faults");
    ASSERT_NE(faults, nullptr) << testing::PrintToString(m.counters().unavailable);
    ASSERT_EQ(faults->size(), 1u);
    EXPECT_GE((*faults)[0], 20.0 * kPages);
#if defined(VITALS_TEST_TSAN)
    // ThreadSanitizer faults in pages of shadow memory beside the program's own.
    EXPECT_LE((*faults)[0], 20.0 * kPages * 8);
#else
    EXPECT_LE((*faults)[0], 20.0 * kPages * 1.1);
#endif
    const std::vector<double>* clock = m.counters().find("task-clock");
    ASSERT_NE(clock, nullptr);
    EXPECT_GT((*clock)[0], 0.0);
    EXPECT_LE((*clock)[0], m.raw_times()[0] * 1e9 * 1.5 + 1e5);  // nanoseconds on the core, within the block's time
}

TEST(Counters, ASleepLeavesTheCoreInEveryBlock) {
    if (const std::string why = software_counters_refused(); !why.empty()) GTEST_SKIP() << why;
    vitals::Timer timer({.stmt = [] { ::usleep(200); }, .counters = {"context-switches", "cpu-migrations"}});
    const vitals::Measurement m = timer.blocked_autorange({.min_run_time = 0.02});
    if (!m.counters().unavailable.empty()) GTEST_SKIP() << m.counters().unavailable.front();
    const std::optional<vitals::Disturbance> d = m.disturbance();
    ASSERT_TRUE(d.has_value());
    EXPECT_EQ(d->blocks, d->of);  // every call sleeps, so every block switched out
    for (double switches : *m.counters().find("context-switches")) EXPECT_GE(switches, static_cast<double>(m.number_per_run()));
    EXPECT_THAT(m.to_string(), HasSubstr("had a context switch or migration"));
}

TEST(Counters, ARefusedCounterIsNamedWithTheReasonAndTheRunGoesOn) {
    // Hardware counters are refused in a VM without a PMU, open elsewhere: either way the
    // Measurement has every block, and each counter asked for is read or named as refused.
    vitals::Timer timer({.stmt = [] {}, .counters = vitals::default_counters()});
    const vitals::Measurement m = timer.timeit(1000);
    EXPECT_EQ(m.counters().names.size() + m.counters().unavailable.size(), vitals::default_counters().size());
    for (const std::string& why : m.counters().unavailable) EXPECT_THAT(why, testing::MatchesRegex("[a-z-]+: .+")) << why;
    // A name no kernel knows is refused when the Timer is made, not when it measures.
    EXPECT_THROW(vitals::Timer({.stmt = [] {}, .counters = {"cycels"}}), std::invalid_argument);
    // Without counters asked for, none are read.
    vitals::Timer plain({.stmt = [] {}});
    EXPECT_TRUE(plain.timeit(10).counters().empty());
    EXPECT_TRUE(plain.timeit(10).counters().unavailable.empty());
}

// A block's own frame (its clock reads, among them a system call for the CPU time) is
// counted once by calibration and taken off every block: an empty statement's one-call
// blocks count well under what the two CPU-clock reads in the frame cost on their own.
TEST(Counters, TheBlocksOwnFrameIsNotCounted) {
    if (const std::string why = software_counters_refused(); !why.empty()) GTEST_SKIP() << why;
    std::vector<double> reads;
    for (int i = 0; i < 101; ++i) {
        timespec t{};
        const auto start = std::chrono::steady_clock::now();
        ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
        ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
        reads.push_back(std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count());
    }
    std::sort(reads.begin(), reads.end());
    vitals::Timer timer({.stmt = [] {}, .counters = {"task-clock"}});
    std::vector<double> counted;
    for (int i = 0; i < 31; ++i) {
        const vitals::Measurement m = timer.timeit(1);  // a warm-up block, then the one-call block
        const std::vector<double>* clock = m.counters().find("task-clock");
        ASSERT_NE(clock, nullptr);
        counted.push_back(clock->at(0));
    }
    std::sort(counted.begin(), counted.end());
    std::printf("two CPU-clock reads %.0f ns; an empty block's task-clock %.0f ns (median)\n", reads[50], counted[15]);
    EXPECT_LT(counted[15], reads[50] / 2);
}

// Where perf_event_open is closed to the user (perf_event_paranoid 2 hides the kernel's
// events from all but root; 3, Debian's default, and a container's seccomp profile close
// it whole), the software counters come from the thread's own accounting instead: a
// statement that sleeps still shows a context switch in every block. Run as an
// unprivileged user (a child process that drops root, when the test runs as root).
TEST(Counters, SoftwareCountersWorkWithoutPerfEvents) {
    const pid_t child = ::fork();
    ASSERT_GE(child, 0) << std::strerror(errno);
    if (child == 0) {
        if (::geteuid() == 0 && (::setgid(65534) != 0 || ::setuid(65534) != 0)) ::_exit(10);
        vitals::Timer timer({.stmt = [] { ::usleep(200); },
                             .counters = {"task-clock", "context-switches", "cpu-migrations", "page-faults"}});
        const vitals::Measurement m = timer.blocked_autorange({.min_run_time = 0.02});
        if (!m.counters().unavailable.empty()) ::_exit(11);  // a software counter was not read
        if (m.counters().names.size() != 4) ::_exit(12);
        for (double switches : *m.counters().find("context-switches")) {
            if (switches < static_cast<double>(m.number_per_run())) ::_exit(13);  // every call sleeps
        }
        if (!m.disturbance() || m.disturbance()->blocks != m.disturbance()->of) ::_exit(14);
        ::_exit(0);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status)) << status;
    EXPECT_EQ(WEXITSTATUS(status), 0) << "10: could not drop root; 11: a counter was refused; 12: not four counters; "
                                         "13: a block without its context switches; 14: not every block disturbed";
}
