// The machine check (vitals doctor) on a folder of known /proc and /sys files.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <chrono>
#include <fstream>
#include <thread>

#include "vitals/machine_check.hpp"

namespace fs = std::filesystem;
using vitals::machine::Finding;
using vitals::machine::Verdict;

namespace {

class MachineCheck : public ::testing::Test {
protected:
    void SetUp() override {
        root_ = fs::temp_directory_path() / ("vitals-machine-check-" + std::to_string(::getpid()));
        fs::remove_all(root_);
    }
    void TearDown() override { fs::remove_all(root_); }

    void put(const std::string& path, const std::string& text) {
        fs::create_directories((root_ / path).parent_path());
        std::ofstream(root_ / path) << text << "\n";
    }
    const Finding& find(const std::vector<Finding>& findings, const std::string& what) {
        for (const Finding& f : findings) {
            if (f.what == what) return f;
        }
        ADD_FAILURE() << "no finding '" << what << "'";
        static const Finding none;
        return none;
    }

    fs::path root_;
};

}  // namespace

TEST_F(MachineCheck, EachDisturbanceIsFoundWithItsFix) {
    put("sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "powersave");
    put("sys/devices/system/cpu/cpu1/cpufreq/scaling_governor", "performance");
    put("sys/devices/system/cpu/cpu0/topology/thread_siblings_list", "0,2");
    put("sys/devices/system/cpu/cpu1/topology/thread_siblings_list", "1");
    put("sys/devices/system/cpu/cpufreq/boost", "1");
    put("sys/devices/system/cpu/isolated", "1");
    put("proc/cpuinfo", "processor\t: 0\nflags\t\t: fpu sse2 avx2 hypervisor lahf_lm");
    put("sys/devices/system/clocksource/clocksource0/current_clocksource", "hpet");
    put("sys/devices/system/clocksource/clocksource0/available_clocksource", "tsc hpet acpi_pm");
    put("proc/sys/kernel/randomize_va_space", "0");
    put("sys/kernel/mm/transparent_hugepage/enabled", "[always] madvise never");
    put("proc/sys/kernel/perf_event_paranoid", "3");
    put("proc/loadavg", "3.50 2.00 1.00 2/100 1234");
    const std::vector<Finding> found = vitals::machine::check_machine({.root = root_, .cpus = {0, 1}, .sample_seconds = 0});

    const Finding& governor = find(found, "CPU governor");
    EXPECT_EQ(governor.verdict, Verdict::warn);
    EXPECT_EQ(governor.state, "performance on CPUs 1, powersave on CPUs 0");
    EXPECT_EQ(governor.fix, "sudo cpupower frequency-set --governor performance");
    EXPECT_EQ(find(found, "frequency boost").verdict, Verdict::warn);
    EXPECT_EQ(find(found, "SMT siblings").state, "CPUs 0,2 share a core");
    EXPECT_EQ(find(found, "isolated CPUs").state, "not the benchmark's (1)");
    EXPECT_EQ(find(found, "hypervisor").verdict, Verdict::note);
    const Finding& clock = find(found, "clock source");
    EXPECT_EQ(clock.verdict, Verdict::warn);
    EXPECT_EQ(clock.fix, "echo tsc | sudo tee /sys/devices/system/clocksource/clocksource0/current_clocksource");
    EXPECT_EQ(find(found, "ASLR").state, "off");
    EXPECT_EQ(find(found, "transparent huge pages").state, "always");
    // Counters are closed at level 3 to everyone but root.
    EXPECT_EQ(find(found, "perf_event_paranoid").verdict, ::geteuid() == 0 ? Verdict::ok : Verdict::note);
    const Finding& load = find(found, "load");
    EXPECT_EQ(load.state, "3.50 over the last minute (2 CPUs)");
    EXPECT_EQ(load.verdict, Verdict::warn);
    EXPECT_EQ(load.fix, "top -o %CPU");
    EXPECT_NE(load.why.find("measure once the load is below 1"), std::string::npos) << load.why;
    EXPECT_EQ(find(found, "isolated CPUs").fix,
              "grep -q isolcpus= /etc/default/grub || { sudo sed -i 's/^GRUB_CMDLINE_LINUX=\"/&isolcpus=1 nohz_full=1 "
              "rcu_nocbs=1 /' /etc/default/grub && sudo update-grub && sudo reboot; }");
    EXPECT_NE(find(found, "isolated CPUs").why.find("taskset -c 1"), std::string::npos);
    EXPECT_EQ(vitals::machine::warnings_summary(found),
              "CPU governor performance on CPUs 1, powersave on CPUs 0; frequency boost on; clock source hpet; "
              "load 3.50 over the last minute (2 CPUs)");
}

TEST_F(MachineCheck, AQuietTunedMachineHasNoWarning) {
    put("sys/devices/system/cpu/cpu3/cpufreq/scaling_governor", "performance");
    put("sys/devices/system/cpu/intel_pstate/no_turbo", "1");
    put("sys/devices/system/cpu/cpu3/topology/thread_siblings_list", "3");
    put("sys/devices/system/cpu/isolated", "2-3");
    put("sys/devices/system/cpu/nohz_full", "2-3");
    put("proc/cpuinfo", "flags\t\t: fpu sse2 avx2");
    put("sys/devices/system/clocksource/clocksource0/current_clocksource", "tsc");
    put("proc/sys/kernel/randomize_va_space", "2");
    put("proc/loadavg", "0.05 0.10 0.10 1/90 77");
    const std::vector<Finding> found = vitals::machine::check_machine({.root = root_, .cpus = {3}, .sample_seconds = 0});
    for (const Finding& f : found) EXPECT_EQ(f.verdict, Verdict::ok) << f.what << ": " << f.state;
    EXPECT_EQ(find(found, "isolated CPUs").state, "2-3 (isolcpus), nohz_full 2-3");
    EXPECT_EQ(find(found, "hypervisor").state, "none (bare metal)");
    EXPECT_EQ(vitals::machine::warnings_summary(found), "");
}

// The load average is the whole machine's: weighed against every online CPU, so a run
// pinned to one CPU of a 64-CPU host at load 3 is not warned, and one of 2 CPUs is.
TEST_F(MachineCheck, LoadIsWeighedAgainstTheOnlineCpus) {
    put("proc/loadavg", "3.00 2.00 1.00 4/900 1234");
    put("sys/devices/system/cpu/online", "0-63");
    const Finding wide = find(vitals::machine::check_machine({.root = root_, .cpus = {3}, .sample_seconds = 0}), "load");
    EXPECT_EQ(wide.state, "3.00 over the last minute (64 CPUs)");
    EXPECT_EQ(wide.verdict, Verdict::ok);
    put("sys/devices/system/cpu/online", "0-1");
    const Finding narrow = find(vitals::machine::check_machine({.root = root_, .cpus = {1}, .sample_seconds = 0}), "load");
    EXPECT_EQ(narrow.state, "3.00 over the last minute (2 CPUs)");
    EXPECT_EQ(narrow.verdict, Verdict::warn);
}

// A Hyper-V guest's clock is read in user space, as the TSC: no warning.
TEST_F(MachineCheck, HyperVClockIsAFastClock) {
    put("sys/devices/system/clocksource/clocksource0/current_clocksource", "hyperv_clocksource_tsc_page");
    EXPECT_EQ(find(vitals::machine::check_machine({.root = root_, .cpus = {0}, .sample_seconds = 0}), "clock source").verdict,
              Verdict::ok);
}

// Busy processes (a /proc whose CPU ticks grow while the check samples it): this user's are
// offered to kill, another user's (root's test gives one to nobody) are named with their
// user and left to their owner, root or not.
TEST_F(MachineCheck, OnlyThisUsersBusyProcessesAreOfferedToKill) {
    const auto stat_line = [](const std::string& pid, int ticks) {
        return pid + " (spin) R 1 1 1 0 -1 0 0 0 0 0 " + std::to_string(ticks) + " 0 0 0 20 0 1 0";
    };
    put("proc/111/stat", stat_line("111", 0));
    put("proc/222/stat", stat_line("222", 0));
    const bool other_user = ::geteuid() == 0 && ::chown((root_ / "proc/222").c_str(), 65534, 65534) == 0;
    if (!other_user) fs::remove_all(root_ / "proc/222");
    std::thread busy([&] {  // both take a whole CPU while the check sleeps between its samples
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        const int ticks = static_cast<int>(::sysconf(_SC_CLK_TCK));
        put("proc/111/stat", stat_line("111", ticks));
        if (other_user) put("proc/222/stat", stat_line("222", ticks));
    });
    const std::vector<Finding> findings = vitals::machine::check_machine({.root = root_, .sample_seconds = 0.5});
    busy.join();
    const Finding& f = find(findings, "busy processes");
    EXPECT_EQ(f.verdict, Verdict::warn) << f.state;
    EXPECT_EQ(f.fix.rfind("kill 111 (if they may stop), or run the benchmark on CPUs they leave free", 0), 0u) << f.fix;
    if (!other_user) GTEST_SKIP() << "cannot give a process folder to another user here (not root)";
    EXPECT_NE(f.state.find("spin (pid 222, user 65534)"), std::string::npos) << f.state;
    EXPECT_NE(f.fix.find("; ask the owners of 222 to pause them"), std::string::npos) << f.fix;
    EXPECT_EQ(f.fix.find("kill 111 222"), std::string::npos) << f.fix;
}
