// Event counters read around every timed block (perf_event_open): what disturbed a block
// (context switches, migrations, page faults) and, where the machine has a PMU, what the
// CPU did (cycles, instructions, branch and cache misses). See docs/timer.md, "Counters".
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace vitals {

struct CounterInfo {
    std::string_view name;  // perf's spelling, as `perf stat -e` takes it
    bool hardware;          // needs a PMU (absent in most virtual machines)
    std::string_view meaning;
};

// Every counter vitals reads, software ones first.
std::span<const CounterInfo> known_counters();

// The counters a timed run reads unless told otherwise: all of them (those the kernel
// refuses are left out, with the reason, and the run goes on).
std::vector<std::string> default_counters();

// "default", "none" (no counters), or a comma-separated list of known names. Throws
// std::invalid_argument naming an unknown counter and listing the known ones.
std::vector<std::string> parse_counter_list(std::string_view list);

}  // namespace vitals
