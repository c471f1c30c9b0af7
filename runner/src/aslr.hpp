// Address-space layout randomisation for run: each process of run --processes gets a
// layout of its own (so the processes sample layouts), and --no-aslr re-executes the
// program with one fixed layout. Internal to the runner.
#pragma once

#include <string>
#include <vector>

namespace vitals::cli {

// This process's layout as a results file records it (`vitals_aslr`): "on",
// "off (--no-aslr or setarch -R)" (the ADDR_NO_RANDOMIZE personality), or
// "off (kernel.randomize_va_space = 0)".
std::string aslr_state();

// --no-aslr: unless this process already runs without randomisation, sets the
// ADDR_NO_RANDOMIZE personality and executes this program again with `arguments`
// (argv as given): returns only in a process without it. Throws UsageError when the
// kernel refuses.
void reexecute_without_aslr(const std::vector<std::string>& arguments);

// Without --no-aslr: the processes this one starts (run --processes' workers) get a
// layout of their own even where this one was started without (setarch -R, a debugger).
void randomise_children();

}  // namespace vitals::cli
