// Running another program (or this one again) and waiting for it, with no shell: every
// argument reaches it as given, so no path or name is ever interpreted.
#pragma once

#include <atomic>
#include <string>
#include <vector>

namespace vitals {

struct ProcessOptions {
    std::vector<std::string> extra_environment{};  // "NAME=value", added to this process's environment
    bool discard_stdout = false;                 // else inherited
    bool discard_stderr = false;                 // else inherited
    // When set, a signal that interrupts the wait and is recorded here (non-zero) is
    // passed on to the program once, so that it can stop as this process does.
    const std::atomic<int>* forward_signal = nullptr;
};

// Runs argv (argv[0] searched on PATH when it has no '/') and waits for it. Returns its
// exit status (128 + the signal's number when a signal ended it). Throws
// std::system_error when it cannot be started (ENOENT: no such program).
int run_process(const std::vector<std::string>& argv, const ProcessOptions& options = {});

// This program's own path (/proc/self/exe), to run it again. Throws std::runtime_error.
std::string self_executable();

}  // namespace vitals
