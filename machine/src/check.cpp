#include "vitals/machine_check.hpp"

#include <fmt/format.h>
#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

namespace vitals::machine {
namespace {

namespace fs = std::filesystem;

// The first line of a file, trimmed; "" when it cannot be read.
std::string first_line(const fs::path& path) {
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    while (!line.empty() && (line.back() == ' ' || line.back() == '\n' || line.back() == '\r')) line.pop_back();
    return line;
}

// "0-3,8,10-11" -> {0, 1, 2, 3, 8, 10, 11}; nothing for text of another shape.
std::set<int> cpu_list(const std::string& text) {
    std::set<int> out;
    std::stringstream parts(text);
    for (std::string part; std::getline(parts, part, ',');) {
        int low = 0, high = 0;
        char dash = 0;
        std::stringstream range(part);
        if (!(range >> low)) continue;
        high = low;
        if (range >> dash >> high && dash != '-') continue;
        for (int c = low; c <= high && c - low < 4096; ++c) out.insert(c);
    }
    return out;
}

std::string cpu_list_text(const std::set<int>& cpus) {
    std::string out;
    for (auto it = cpus.begin(); it != cpus.end();) {
        const int low = *it;
        int high = low;
        while (++it != cpus.end() && *it == high + 1) ++high;
        if (!out.empty()) out += ',';
        out += high == low ? std::to_string(low) : fmt::format("{}-{}", low, high);
    }
    return out;
}

std::vector<int> this_process_cpus() {
    cpu_set_t set;
    CPU_ZERO(&set);
    std::vector<int> out;
    if (::sched_getaffinity(0, sizeof set, &set) != 0) return out;
    for (int c = 0; c < CPU_SETSIZE; ++c) {
        if (CPU_ISSET(c, &set)) out.push_back(c);
    }
    return out;
}

fs::path cpu_dir(const fs::path& root, int cpu) { return root / "sys/devices/system/cpu" / fmt::format("cpu{}", cpu); }

void governor(const CheckOptions& o, const std::vector<int>& cpus, std::vector<Finding>& out) {
    std::map<std::string, std::set<int>> by_governor;
    for (const int c : cpus) {
        const std::string g = first_line(cpu_dir(o.root, c) / "cpufreq/scaling_governor");
        if (!g.empty()) by_governor[g].insert(c);
    }
    if (by_governor.empty()) {
        out.push_back({"CPU governor", "not exposed (no cpufreq driver, as in most VMs)", Verdict::ok, "", ""});
        return;
    }
    std::string state;
    for (const auto& [g, on] : by_governor) state += fmt::format("{}{} on CPUs {}", state.empty() ? "" : ", ", g, cpu_list_text(on));
    if (by_governor.size() == 1 && by_governor.count("performance")) {
        out.push_back({"CPU governor", state, Verdict::ok, "", ""});
        return;
    }
    out.push_back({"CPU governor", state, Verdict::warn,
                   "the clock speed follows the load, so a case's first blocks run slower than its last",
                   "sudo cpupower frequency-set --governor performance"});
}

void boost(const CheckOptions& o, std::vector<Finding>& out) {
    const fs::path cpu = o.root / "sys/devices/system/cpu";
    if (const std::string no_turbo = first_line(cpu / "intel_pstate/no_turbo"); !no_turbo.empty()) {
        if (no_turbo == "1") {
            out.push_back({"frequency boost", "off (intel_pstate)", Verdict::ok, "", ""});
        } else {
            out.push_back({"frequency boost", "on (intel_pstate)", Verdict::warn,
                           "the boosted clock depends on temperature and on the other cores' load",
                           "echo 1 | sudo tee /sys/devices/system/cpu/intel_pstate/no_turbo"});
        }
        return;
    }
    if (const std::string on = first_line(cpu / "cpufreq/boost"); !on.empty()) {
        if (on == "0") {
            out.push_back({"frequency boost", "off", Verdict::ok, "", ""});
        } else {
            out.push_back({"frequency boost", "on", Verdict::warn,
                           "the boosted clock depends on temperature and on the other cores' load",
                           "echo 0 | sudo tee /sys/devices/system/cpu/cpufreq/boost"});
        }
        return;
    }
    out.push_back({"frequency boost", "not exposed", Verdict::ok, "", ""});
}

void smt(const CheckOptions& o, const std::vector<int>& cpus, std::vector<Finding>& out) {
    std::set<int> shared;
    std::string pairs;
    for (const int c : cpus) {
        const std::set<int> siblings = cpu_list(first_line(cpu_dir(o.root, c) / "topology/thread_siblings_list"));
        if (siblings.size() < 2 || shared.count(c)) continue;
        shared.insert(siblings.begin(), siblings.end());
        pairs += fmt::format("{}CPUs {} share a core", pairs.empty() ? "" : "; ", cpu_list_text(siblings));
    }
    if (pairs.empty()) {
        out.push_back({"SMT siblings", "none among the benchmark's CPUs", Verdict::ok, "", ""});
        return;
    }
    out.push_back({"SMT siblings", pairs, Verdict::note,
                   "work on a sibling takes the core's units from the case",
                   "sudo sh -c 'echo off > /sys/devices/system/cpu/smt/control', or run on one CPU of each core "
                   "with taskset -c"});
}

// Takes `cpu` away from the scheduler from the next boot (once: a second run finds
// isolcpus there and changes nothing).
std::string isolation_fix(int cpu) {
    return fmt::format("grep -q isolcpus= /etc/default/grub || {{ sudo sed -i 's/^GRUB_CMDLINE_LINUX=\"/&isolcpus={0} "
                       "nohz_full={0} rcu_nocbs={0} /' /etc/default/grub && sudo update-grub && sudo reboot; }}",
                       cpu);
}

void isolation(const CheckOptions& o, const std::vector<int>& cpus, std::vector<Finding>& out) {
    const std::set<int> isolated = cpu_list(first_line(o.root / "sys/devices/system/cpu/isolated"));
    const std::set<int> nohz = cpu_list(first_line(o.root / "sys/devices/system/cpu/nohz_full"));
    const bool all = !cpus.empty() && std::all_of(cpus.begin(), cpus.end(), [&](int c) { return isolated.count(c); });
    if (all) {
        out.push_back({"isolated CPUs", fmt::format("{} (isolcpus){}{}", cpu_list_text(isolated), nohz.empty() ? "" : ", nohz_full ",
                                                    cpu_list_text(nohz)),
                       Verdict::ok, "", ""});
        return;
    }
    out.push_back({"isolated CPUs", isolated.empty() ? "none" : fmt::format("not the benchmark's ({})", cpu_list_text(isolated)),
                   Verdict::note,
                   fmt::format("the scheduler may put other work on the benchmark's CPUs; once CPU {0} is isolated, run "
                               "the benchmark there with taskset -c {0}",
                               cpus.empty() ? 0 : cpus.back()),
                   isolation_fix(cpus.empty() ? 0 : cpus.back())});
}

void hypervisor(const CheckOptions& o, std::vector<Finding>& out) {
    std::ifstream in(o.root / "proc/cpuinfo");
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("flags", 0) != 0) continue;
        if (fmt::format("{} ", line).find(" hypervisor ") != std::string::npos) {
            out.push_back({"hypervisor", "a virtual machine", Verdict::note,
                           "the host's other guests share its cores and caches: expect speed to move in steps", ""});
        } else {
            out.push_back({"hypervisor", "none (bare metal)", Verdict::ok, "", ""});
        }
        return;
    }
}

void clock_source(const CheckOptions& o, std::vector<Finding>& out) {
    const fs::path dir = o.root / "sys/devices/system/clocksource/clocksource0";
    const std::string current = first_line(dir / "current_clocksource");
    if (current.empty()) return;
    // The clocks read in user space without a system call (the vDSO): a read costs
    // nanoseconds.
    if (current == "tsc" || current == "kvm-clock" || current == "arch_sys_counter" || current == "hyperv_clocksource_tsc_page") {
        out.push_back({"clock source", current, Verdict::ok, "", ""});
        return;
    }
    const bool has_tsc = fmt::format(" {} ", first_line(dir / "available_clocksource")).find(" tsc ") != std::string::npos;
    out.push_back({"clock source", current, Verdict::warn, "each clock read is a slow device access, which short blocks pay",
                   has_tsc ? "echo tsc | sudo tee /sys/devices/system/clocksource/clocksource0/current_clocksource" : ""});
}

void aslr(const CheckOptions& o, std::vector<Finding>& out) {
    const std::string value = first_line(o.root / "proc/sys/kernel/randomize_va_space");
    if (value.empty()) return;
    if (value == "0") {
        out.push_back({"ASLR", "off", Verdict::note,
                       "every process gets the same memory layout, so run --processes samples one layout only",
                       "echo 2 | sudo tee /proc/sys/kernel/randomize_va_space"});
    } else {
        out.push_back({"ASLR", fmt::format("on ({})", value), Verdict::ok, "", ""});
    }
}

void huge_pages(const CheckOptions& o, std::vector<Finding>& out) {
    const std::string enabled = first_line(o.root / "sys/kernel/mm/transparent_hugepage/enabled");
    if (enabled.empty()) return;
    const auto open = enabled.find('['), close = enabled.find(']');
    const std::string mode = open != std::string::npos && close > open ? enabled.substr(open + 1, close - open - 1) : enabled;
    if (mode == "always") {
        out.push_back({"transparent huge pages", "always", Verdict::note,
                       "whether a large buffer gets huge pages depends on free memory at the time, so its speed can differ "
                       "between runs",
                       "echo madvise | sudo tee /sys/kernel/mm/transparent_hugepage/enabled"});
    } else {
        out.push_back({"transparent huge pages", mode, Verdict::ok, "", ""});
    }
}

void perf_events(const CheckOptions& o, std::vector<Finding>& out) {
    const std::string value = first_line(o.root / "proc/sys/kernel/perf_event_paranoid");
    if (value.empty()) return;
    int level = 0;
    std::stringstream(value) >> level;
    if (level >= 2 && ::geteuid() != 0) {
        out.push_back({"perf_event_paranoid", value, Verdict::note,
                       level > 2 ? "hardware counters (--counters) are closed to this user; the software ones are read from "
                                   "getrusage, which sees at most one CPU migration a block"
                                 : "context switches and migrations (kernel events) are read from getrusage for this user, "
                                   "which sees at most one CPU migration a block",
                       "sudo sysctl kernel.perf_event_paranoid=1"});
    } else {
        out.push_back({"perf_event_paranoid", value, Verdict::ok, "", ""});
    }
}

// The load average counts the whole machine's runnable tasks, so it is weighed against
// every online CPU, not only those the benchmark may run on.
void load(const CheckOptions& o, std::size_t benchmark_cpus, std::vector<Finding>& out) {
    const std::string text = first_line(o.root / "proc/loadavg");
    double one_minute = -1;
    if (!(std::stringstream(text) >> one_minute) || one_minute < 0) return;
    const std::set<int> online = cpu_list(first_line(o.root / "sys/devices/system/cpu/online"));
    const std::size_t cpus = online.empty() ? benchmark_cpus : online.size();
    const std::string state = fmt::format("{:.2f} over the last minute ({} CPU{})", one_minute, cpus, cpus == 1 ? "" : "s");
    if (one_minute > 0.5 * static_cast<double>(cpus)) {
        out.push_back({"load", state, Verdict::warn,
                       fmt::format("other work competes with the benchmark for the CPUs; measure once the load is below {:g} "
                                   "(the fix shows what runs)",
                                   0.5 * static_cast<double>(cpus)),
                       "top -o %CPU"});
    } else {
        out.push_back({"load", state, Verdict::ok, "", ""});
    }
}

struct ProcessTicks {
    std::string name;
    long long ticks = 0;  // utime + stime
    uid_t owner = 0;
};

// CPU ticks of every process but this one, by pid.
std::map<int, ProcessTicks> process_ticks(const fs::path& proc) {
    std::map<int, ProcessTicks> out;
    std::error_code ec;
    for (const fs::directory_entry& e : fs::directory_iterator(proc, ec)) {
        const std::string name = e.path().filename().string();
        if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
        const int pid = std::stoi(name);
        if (pid == ::getpid()) continue;
        const std::string stat = first_line(e.path() / "stat");
        const auto open = stat.find('('), close = stat.rfind(')');
        if (open == std::string::npos || close == std::string::npos || close < open) continue;
        std::stringstream rest(stat.substr(close + 2));
        std::string field;
        long long utime = 0, stime = 0;
        for (int k = 3; k <= 15 && rest >> field; ++k) {  // fields 14 and 15: utime, stime
            if (k == 14) utime = std::atoll(field.c_str());
            if (k == 15) stime = std::atoll(field.c_str());
        }
        struct stat owner {};
        if (::stat(e.path().c_str(), &owner) != 0) continue;  // gone since
        out[pid] = {stat.substr(open + 1, close - open - 1), utime + stime, owner.st_uid};
    }
    return out;
}

void busy_processes(const CheckOptions& o, std::vector<Finding>& out) {
    if (o.sample_seconds <= 0) return;
    const auto before = process_ticks(o.root / "proc");
    std::this_thread::sleep_for(std::chrono::duration<double>(o.sample_seconds));
    const auto after = process_ticks(o.root / "proc");
    const double ticks = static_cast<double>(::sysconf(_SC_CLK_TCK)) * o.sample_seconds;
    struct Busy {
        double share;  // of a CPU
        std::string name;
        int pid;
        uid_t owner;
    };
    std::vector<Busy> busy;
    for (const auto& [pid, now] : after) {
        const auto then = before.find(pid);
        if (then == before.end()) continue;
        const double share = static_cast<double>(now.ticks - then->second.ticks) / ticks;
        if (share >= 0.1) busy.push_back({share, now.name, pid, now.owner});
    }
    std::sort(busy.begin(), busy.end(), [](const Busy& a, const Busy& b) { return a.share > b.share; });
    if (busy.empty()) {
        out.push_back({"busy processes", "none above 10% of a CPU", Verdict::ok, "", ""});
        return;
    }
    // Only this user's processes are offered to kill (root's too: on a shared machine
    // another user's work is theirs to stop).
    std::string state, pids, others;
    for (std::size_t k = 0; k < busy.size() && k < 3; ++k) {
        const bool mine = busy[k].owner == ::geteuid();
        state += fmt::format("{}{} (pid {}{}) {:.0f}%", k == 0 ? "" : ", ", busy[k].name, busy[k].pid,
                             mine ? "" : fmt::format(", user {}", busy[k].owner), 100 * busy[k].share);
        (mine ? pids : others) += fmt::format(" {}", busy[k].pid);
    }
    std::string fix = pids.empty() ? "" : fmt::format("kill{} (if they may stop), or ", pids);
    fix += "run the benchmark on CPUs they leave free with taskset -c";
    if (!others.empty()) fix += fmt::format("; ask the owners of{} to pause them", others);
    out.push_back({"busy processes", state, Verdict::warn, "they take CPU time and cache from the benchmark",
                   fix});
}

}  // namespace

const char* verdict_name(Verdict v) {
    switch (v) {
        case Verdict::ok: return "ok";
        case Verdict::note: return "note";
        case Verdict::warn: return "warn";
    }
    return "ok";
}

std::vector<Finding> check_machine(const CheckOptions& options) {
    const std::vector<int> cpus = options.cpus.empty() ? this_process_cpus() : options.cpus;
    std::vector<Finding> out;
    governor(options, cpus, out);
    boost(options, out);
    smt(options, cpus, out);
    isolation(options, cpus, out);
    hypervisor(options, out);
    clock_source(options, out);
    aslr(options, out);
    huge_pages(options, out);
    perf_events(options, out);
    load(options, std::max<std::size_t>(cpus.size(), 1), out);
    busy_processes(options, out);
    return out;
}

std::string warnings_summary(const std::vector<Finding>& findings) {
    std::string out;
    for (const Finding& f : findings) {
        if (f.verdict == Verdict::warn) out += fmt::format("{}{} {}", out.empty() ? "" : "; ", f.what, f.state);
    }
    return out;
}

}  // namespace vitals::machine
