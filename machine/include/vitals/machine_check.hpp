// What on this machine would disturb a measurement, each finding with the command that
// fixes it: `vitals doctor`, the one-line summary `run` and `timeit` print, and the
// results file's context.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace vitals::machine {

enum class Verdict {
    ok,    // nothing to do
    note,  // worth knowing; results are still sound (a VM, ASLR on)
    warn,  // likely to disturb results: fix it, or read results with it in mind
};
const char* verdict_name(Verdict v);

struct Finding {
    std::string what;     // "CPU governor", "load"
    std::string state;    // what was read: "powersave on CPUs 0-1", "3.2 (2 CPUs)"
    Verdict verdict = Verdict::ok;
    std::string why;      // for a note or warning: what it does to results
    std::string fix;      // the exact command that fixes it, "" when there is none
};

struct CheckOptions {
    // Where /proc and /sys are (tests give a folder of known files).
    std::filesystem::path root = "/";
    // The CPUs the benchmark runs on (empty: those this process may run on).
    std::vector<int> cpus;
    // Sample the busiest processes for this long (0: not at all; load alone is read).
    double sample_seconds = 0.2;
};

// The checks, in a fixed order: CPU governor, frequency boost, SMT siblings, isolated
// CPUs, hypervisor, clock source, ASLR, transparent huge pages, perf_event_paranoid, load,
// busy processes. A file that cannot be read gives no finding of its own.
std::vector<Finding> check_machine(const CheckOptions& options = {});

// One line for `run` and `timeit`, of the warnings only ("" when there are none):
// "CPU governor powersave; load 3.1 on 2 CPUs".
std::string warnings_summary(const std::vector<Finding>& findings);

}  // namespace vitals::machine
