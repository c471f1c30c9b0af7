// Running another program (or this one again) and waiting for it, with no shell: every
// argument reaches it as given, so no path or name is ever interpreted.
#pragma once

#include <atomic>
#include <chrono>
#include <optional>
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

// How a child process ended.
struct ExitStatus {
    bool signaled = false;
    int code = 0;  // the exit code, or the signal's number when signaled
    // "exit status 3", "SIGSEGV (segmentation fault)"
    std::string describe() const;
};

// This program's executable, opened once: a child started from it runs this very file
// even when the path is replaced or removed meanwhile (a rebuild during a long run).
class SelfExecutable {
public:
    SelfExecutable();  // throws std::runtime_error when /proc/self/exe cannot be opened
    ~SelfExecutable();
    SelfExecutable(const SelfExecutable&) = delete;
    SelfExecutable& operator=(const SelfExecutable&) = delete;
    int descriptor() const { return fd_; }
    const std::string& path() const { return path_; }  // as it was when opened, for argv[0] and messages

private:
    int fd_ = -1;
    std::string path_;
};

// A child of this program started from `executable` with `argv` (argv[0] as given):
// standard input from /dev/null, standard output as the options say. It is killed when
// this process dies (PR_SET_PDEATHSIG), so no worker outlives its parent.
class ChildProcess {
public:
    ChildProcess(const SelfExecutable& executable, const std::vector<std::string>& argv,
                 const ProcessOptions& options = {});
    ~ChildProcess();  // kills and reaps a child still running
    ChildProcess(const ChildProcess&) = delete;
    ChildProcess& operator=(const ChildProcess&) = delete;

    // Waits up to `timeout` for the child to end: its status, or nullopt while it runs.
    // Returns early (nullopt) when a signal interrupts the wait.
    std::optional<ExitStatus> wait_for(std::chrono::milliseconds timeout);
    // Sends `signal` to the child if it still runs.
    void signal(int signal);
    int pid() const { return pid_; }

private:
    int pid_ = -1;
    int pidfd_ = -1;
    std::optional<ExitStatus> status_;
};

}  // namespace vitals
