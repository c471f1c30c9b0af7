#include "vitals/counters.hpp"

#include <fmt/format.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <ctime>
#include <fstream>
#include <limits>
#include <optional>
#include <stdexcept>

#include "counter_group.hpp"
#include "vitals/stats.hpp"

namespace vitals {
namespace {

struct Event {
    CounterInfo info;
    std::uint32_t type;
    std::uint64_t config;
    bool needs_kernel;  // happens in the kernel: invisible with exclude_kernel
};

constexpr std::array kEvents{
    Event{{"task-clock", false, "nanoseconds the thread ran on a core"}, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, false},
    Event{{"context-switches", false, "times the thread left its core (preempted, or waiting)"},
          PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, true},
    Event{{"cpu-migrations", false, "times the thread moved to another core"}, PERF_TYPE_SOFTWARE,
          PERF_COUNT_SW_CPU_MIGRATIONS, true},
    Event{{"page-faults", false, "pages first touched or brought back"}, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, false},
    Event{{"cycles", true, "core clock cycles"}, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, false},
    Event{{"instructions", true, "instructions retired"}, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, false},
    Event{{"branches", true, "branch instructions retired"}, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, false},
    Event{{"branch-misses", true, "mispredicted branches"}, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, false},
    Event{{"cache-references", true, "last-level cache accesses"}, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES, false},
    Event{{"cache-misses", true, "last-level cache misses"}, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, false},
};

const Event* find_event(std::string_view name) {
    for (const Event& e : kEvents) {
        if (e.info.name == name) return &e;
    }
    return nullptr;
}

std::string known_names() {
    std::string out;
    for (const Event& e : kEvents) out += fmt::format("{}{}", out.empty() ? "" : ", ", e.info.name);
    return out;
}

std::string first_line(const char* path) {
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    return line;
}

bool in_virtual_machine() {
    static const bool answer = [] {
        std::ifstream in("/proc/cpuinfo");
        for (std::string line; std::getline(in, line);) {
            if (line.rfind("flags", 0) == 0) return (line + " ").find(" hypervisor ") != std::string::npos;
        }
        return false;
    }();
    return answer;
}

// Why perf_event_open refused `event` with `error`, and what to do about it.
std::string refusal(const Event& event, int error) {
    const std::string paranoid = first_line("/proc/sys/kernel/perf_event_paranoid");
    switch (error) {
        case ENOENT:
        case EOPNOTSUPP:
            if (event.info.hardware) {
                return in_virtual_machine() ? "no PMU in this virtual machine (hardware counters need a host that passes one "
                                              "through)"
                                            : "this CPU or kernel has no such hardware event";
            }
            return "this kernel has no such software event";
        case EACCES:
        case EPERM:
            return fmt::format("perf_event_open is not permitted here (perf_event_paranoid {}, or a container's seccomp "
                               "profile); `sudo sysctl kernel.perf_event_paranoid=1`",
                               paranoid.empty() ? "?" : paranoid);
        case ENOSYS: return "this kernel has no perf_event_open";
        case ENOSPC:
        case EINVAL: return "the PMU cannot hold it beside the other counters asked for; ask for fewer";
        default: return fmt::format("perf_event_open: {}", std::strerror(error));
    }
}

constexpr std::uint64_t kReadFormat = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;

// The file descriptor, or -errno.
int open_event(const Event& event, int group_leader, bool exclude_kernel) {
    perf_event_attr attr{};
    attr.size = sizeof attr;
    attr.type = event.type;
    attr.config = event.config;
    attr.read_format = kReadFormat;
    attr.exclude_kernel = exclude_kernel ? 1 : 0;
    attr.exclude_hv = 1;
    // The leader starts disabled and the group is enabled whole once complete: an event
    // added to a running group only counts from the thread's next context switch on.
    attr.disabled = group_leader < 0 ? 1 : 0;
    const long fd = ::syscall(SYS_perf_event_open, &attr, 0, -1, group_leader, PERF_FLAG_FD_CLOEXEC);
    return fd < 0 ? -errno : static_cast<int>(fd);
}

}  // namespace

namespace detail {

std::optional<CounterGroup::Usage::Field> CounterGroup::usage_field(std::string_view name) {
    if (name == "task-clock") return Usage::task_clock;
    if (name == "context-switches") return Usage::context_switches;
    if (name == "cpu-migrations") return Usage::cpu_migrations;
    if (name == "page-faults") return Usage::page_faults;
    return std::nullopt;
}

}  // namespace detail

std::span<const CounterInfo> known_counters() {
    static const std::vector<CounterInfo> infos = [] {
        std::vector<CounterInfo> out;
        for (const Event& e : kEvents) out.push_back(e.info);
        return out;
    }();
    return infos;
}

std::vector<std::string> default_counters() {
    std::vector<std::string> out;
    for (const Event& e : kEvents) out.emplace_back(e.info.name);
    return out;
}

std::vector<std::string> parse_counter_list(std::string_view list) {
    if (list == "default") return default_counters();
    if (list == "none") return {};
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start <= list.size()) {
        const std::size_t comma = std::min(list.find(',', start), list.size());
        const std::string_view name = list.substr(start, comma - start);
        if (find_event(name) == nullptr) {
            throw std::invalid_argument(fmt::format("unknown counter '{}'; the counters are: {} (or 'default', 'none')",
                                                    name, known_names()));
        }
        if (std::find(out.begin(), out.end(), name) == out.end()) out.emplace_back(name);
        start = comma + 1;
    }
    return out;
}

namespace detail {

CounterGroup::CounterGroup(const std::vector<std::string>& names) {
    for (const std::string& name : names) {
        if (find_event(name) == nullptr) throw std::invalid_argument(fmt::format("unknown counter '{}'; the counters are: {}", name, known_names()));
    }
    Group software, hardware;
    for (const Event& e : kEvents) {  // in this order, whatever the order asked
        const std::string name(e.info.name);
        if (std::find(names.begin(), names.end(), name) == names.end()) continue;
        const Event* event = &e;
        Group& group = event->info.hardware ? hardware : software;
        int fd = open_event(*event, group.leader, false);
        // Where the kernel is closed to this user, count in user space only: enough for
        // everything but the events that happen in the kernel.
        if ((fd == -EACCES || fd == -EPERM) && !event->needs_kernel) fd = open_event(*event, group.leader, true);
        if (fd < 0) {
            // The kernel's own per-thread accounting has the software counts too (a
            // container's seccomp profile or perf_event_paranoid 3 closes perf_event_open).
            if (const std::optional<Usage::Field> field = usage_field(name)) {
                usage_.push_back({*field, names_.size()});
                names_.push_back(name);
                continue;
            }
            unavailable_.push_back(fmt::format("{}: {}", name, refusal(*event, -fd)));
            continue;
        }
        if (group.leader < 0) group.leader = fd;
        group.fds.push_back(fd);
        group.slot.push_back(names_.size());
        names_.push_back(name);
    }
    for (Group* g : {&software, &hardware}) {
        if (g->fds.empty()) continue;
        ::ioctl(g->leader, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
        groups_.push_back(std::move(*g));
    }
    calibrate([] {});  // the readings alone, until the Timer gives its block's frame
}

void CounterGroup::calibrate(const std::function<void()>& frame) {
    reading_cost_.assign(names_.size(), 0.0);
    if (names_.empty()) return;
    constexpr int kSamples = 15;
    std::vector<std::vector<double>> costs(names_.size());
    std::vector<bool> counted(groups_.size(), false);  // each group was on the PMU at least once
    for (int i = 0; i < kSamples; ++i) {
        start();
        frame();
        const std::vector<double> change = change_since_start();
        for (std::size_t k = 0; k < groups_.size(); ++k) {
            if (std::isfinite(change[groups_[k].slot.front()])) counted[k] = true;
        }
        for (std::size_t c = 0; c < change.size(); ++c) costs[c].push_back(std::isfinite(change[c]) ? change[c] : 0.0);
    }
    for (std::size_t c = 0; c < costs.size(); ++c) reading_cost_[c] = stats::median(costs[c]);
    // A group that multiplexing rotated out runs again within a few of its intervals (a
    // millisecond or a few): only one that has not run at all after 20 ms is dropped.
    const auto all_counted = [&] { return std::find(counted.begin(), counted.end(), false) == counted.end(); };
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(20);
    while (!all_counted() && std::chrono::steady_clock::now() < until) {
        for (std::size_t k = 0; k < groups_.size(); ++k) {
            if (!counted[k] && read_group(groups_[k]).running > 0) counted[k] = true;
        }
    }
    if (!all_counted()) {
        drop_groups_never_counted(counted);
        calibrate(frame);
    }
}

void CounterGroup::drop_groups_never_counted(const std::vector<bool>& counted) {
    std::vector<bool> dropped(names_.size(), false);
    for (std::size_t k = 0; k < groups_.size(); ++k) {
        if (counted[k]) continue;
        for (std::size_t slot : groups_[k].slot) {
            dropped[slot] = true;
            unavailable_.push_back(fmt::format("{}: its group never counted in 20 ms (the PMU had no room for it: another "
                                               "program, or the NMI watchdog, holds counters, `sudo sysctl "
                                               "kernel.nmi_watchdog=0`; or this core lacks the event)",
                                               names_[slot]));
        }
        for (auto it = groups_[k].fds.rbegin(); it != groups_[k].fds.rend(); ++it) ::close(*it);
    }
    // The counters left keep their order: each slot moves down past the dropped ones.
    std::vector<std::size_t> moved(names_.size(), 0);
    std::vector<std::string> names;
    for (std::size_t c = 0; c < names_.size(); ++c) {
        if (dropped[c]) continue;
        moved[c] = names.size();
        names.push_back(names_[c]);
    }
    for (auto& [field, slot] : usage_) slot = moved[slot];
    std::vector<Group> kept;
    for (std::size_t k = 0; k < groups_.size(); ++k) {
        if (!counted[k]) continue;
        for (std::size_t& slot : groups_[k].slot) slot = moved[slot];
        kept.push_back(std::move(groups_[k]));
    }
    names_ = std::move(names);
    groups_ = std::move(kept);
}

CounterGroup::~CounterGroup() {
    for (const Group& g : groups_) {
        for (auto it = g.fds.rbegin(); it != g.fds.rend(); ++it) ::close(*it);
    }
}

CounterGroup::Reading CounterGroup::read_group(const Group& g) {
    std::vector<std::uint64_t> buffer(3 + g.fds.size());
    Reading r;
    const ssize_t got = ::read(g.leader, buffer.data(), buffer.size() * sizeof(std::uint64_t));
    if (got != static_cast<ssize_t>(buffer.size() * sizeof(std::uint64_t))) return r;  // values stay empty: unknown
    r.enabled = buffer[1];
    r.running = buffer[2];
    r.values.assign(buffer.begin() + 3, buffer.end());
    return r;
}

CounterGroup::Usage CounterGroup::read_usage() {
    Usage u;
    rusage r{};
    if (::getrusage(RUSAGE_THREAD, &r) == 0) {
        u.values[Usage::context_switches] = static_cast<double>(r.ru_nvcsw + r.ru_nivcsw);
        u.values[Usage::page_faults] = static_cast<double>(r.ru_minflt + r.ru_majflt);
    }
    timespec t{};
    if (::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t) == 0) u.values[Usage::task_clock] = static_cast<double>(t.tv_sec) * 1e9 + static_cast<double>(t.tv_nsec);
    u.values[Usage::cpu_migrations] = ::sched_getcpu();  // the core now: a change is a migration
    return u;
}

void CounterGroup::start() {
    started_.clear();
    for (const Group& g : groups_) started_.push_back(read_group(g));
    if (!usage_.empty()) started_usage_ = read_usage();
}

std::vector<double> CounterGroup::change_since_start() {
    std::vector<double> out(names_.size(), std::numeric_limits<double>::quiet_NaN());
    if (!usage_.empty()) {
        const Usage now = read_usage();
        for (const auto& [field, slot] : usage_) {
            const double then = started_usage_.values[field];
            // A migration is seen only as a different core at the end: at most one a block.
            out[slot] = field == Usage::cpu_migrations ? (now.values[field] != then ? 1.0 : 0.0) : now.values[field] - then;
        }
    }
    for (std::size_t k = 0; k < groups_.size(); ++k) {
        const Reading now = read_group(groups_[k]);
        const Reading& then = started_[k];
        if (now.values.size() != groups_[k].fds.size() || then.values.size() != now.values.size()) continue;
        const double enabled = static_cast<double>(now.enabled - then.enabled);
        const double running = static_cast<double>(now.running - then.running);
        if (!(running > 0)) continue;  // never on the PMU in this interval: unknown
        const double scale = enabled > running ? enabled / running : 1.0;
        for (std::size_t m = 0; m < now.values.size(); ++m) {
            out[groups_[k].slot[m]] = static_cast<double>(now.values[m] - then.values[m]) * scale;
        }
    }
    return out;
}

std::vector<double> CounterGroup::stop() {
    std::vector<double> change = change_since_start();
    for (std::size_t c = 0; c < change.size(); ++c) {
        if (std::isfinite(change[c])) change[c] = std::max(0.0, change[c] - reading_cost_[c]);
    }
    return change;
}

}  // namespace detail
}  // namespace vitals
