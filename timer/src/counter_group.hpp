// The counters of <vitals/counters.hpp> opened for the calling thread and read around
// each timed block. Internal to the timer.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace vitals::detail {

class CounterGroup {
public:
    // Opens `names` (known counter names) for the calling thread: the software counters in
    // one perf_event_open group, the hardware ones in another (a group is scheduled onto
    // the PMU whole, so a busy PMU never stops the software counts). Counters the kernel
    // refuses go to unavailable() with the reason. Then measures the cost of a reading.
    explicit CounterGroup(const std::vector<std::string>& names);
    ~CounterGroup();
    CounterGroup(const CounterGroup&) = delete;
    CounterGroup& operator=(const CounterGroup&) = delete;

    // The counters that opened, in the order stop() returns them (known_counters()' order).
    const std::vector<std::string>& names() const { return names_; }
    // "name: why" for each counter asked for that did not open.
    const std::vector<std::string>& unavailable() const { return unavailable_; }

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
    static Reading read_group(const Group& g);
    std::vector<double> change_since_start();

    std::vector<std::string> names_;
    std::vector<std::string> unavailable_;
    std::vector<Group> groups_;
    std::vector<Reading> started_;
    std::vector<double> reading_cost_;
};

}  // namespace vitals::detail
