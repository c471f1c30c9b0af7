// The counters of <vitals/counters.hpp> opened for the calling thread and read around
// each timed block. Internal to the timer.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>
#include <utility>
#include <string>
#include <vector>

namespace vitals::detail {

class CounterGroup {
public:
    // Opens `names` (known counter names) for the calling thread: the software counters in
    // one perf_event_open group, the hardware ones in another (a group is scheduled onto
    // the PMU whole, so a busy PMU never stops the software counts). Counters the kernel
    // refuses go to unavailable() with the reason, and so do those of a group the PMU never
    // scheduled. Then measures the cost of a reading (calibrate with an empty frame).
    explicit CounterGroup(const std::vector<std::string>& names);
    ~CounterGroup();
    CounterGroup(const CounterGroup&) = delete;
    CounterGroup& operator=(const CounterGroup&) = delete;

    // The counters that opened, in the order stop() returns them (known_counters()' order).
    const std::vector<std::string>& names() const { return names_; }
    // "name: why" for each counter asked for that did not open.
    const std::vector<std::string>& unavailable() const { return unavailable_; }

    // What a block counts of its own frame: the median change across `frame` (the block
    // with nothing in it, between a start() and a stop()) over 15 tries. stop() subtracts
    // it from then on.
    void calibrate(const std::function<void()>& frame);

    // Reads every counter: the start of a block.
    void start();
    // Reads again and returns, per counter, the change since start(): scaled by time
    // enabled / time running where the PMU multiplexed the group (NaN if it never ran),
    // the cost of the reading itself subtracted (never below 0).
    std::vector<double> stop();

private:
    struct Group {
        int leader = -1;
        std::vector<int> fds;          // leader first
        std::vector<std::size_t> slot;  // where each member's value goes in stop()'s result
    };
    struct Reading {
        std::uint64_t enabled = 0, running = 0;
        std::vector<std::uint64_t> values;
    };
    // A software counter perf_event_open refused, read instead from getrusage, the
    // thread's CPU clock and the core it runs on.
    struct Usage {
        enum Field { task_clock, context_switches, cpu_migrations, page_faults };
        double values[4] = {};
    };
    static std::optional<Usage::Field> usage_field(std::string_view name);
    static Usage read_usage();
    static Reading read_group(const Group& g);
    std::vector<double> change_since_start();
    // Closes the groups that were never on the PMU while `calibrate` read them.
    void drop_groups_never_counted(const std::vector<bool>& counted);

    std::vector<std::string> names_;
    std::vector<std::string> unavailable_;
    std::vector<Group> groups_;
    std::vector<Reading> started_;
    std::vector<std::pair<Usage::Field, std::size_t>> usage_;  // field, slot in stop()'s result
    Usage started_usage_;
    std::vector<double> reading_cost_;
};

}  // namespace vitals::detail
