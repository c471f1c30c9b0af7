// SIGINT, SIGTERM and SIGHUP during a command that measures: Ctrl-C, what Slurm sends at
// a time limit, scancel, a closed terminal. Internal to the runner.
//
// While a StopSignals lives, the handlers stay installed: the first signal asks the run to
// stop after the current block (interrupted() turns true); a second one, while the main
// thread may be stuck inside a case, runs the rescue that the command registered (it
// writes what was measured) from a watcher thread and ends the process with 128 + the
// signal. The rescue also runs when a case calls exit() during its measurement.
#pragma once

#include <atomic>
#include <functional>
#include <mutex>
#include <string>

namespace vitals::cli {

class StopSignals {
public:
    enum class Role {
        measuring,    // this process runs the cases: announce the first signal, rescue on the second
        supervising,  // this process waits for workers: count the signals, its own loop acts on them
    };
    explicit StopSignals(Role role);
    ~StopSignals();
    StopSignals(const StopSignals&) = delete;
    StopSignals& operator=(const StopSignals&) = delete;
};

// Whether a stop signal arrived during the current StopSignals; the first one's number
// (0: none); how many arrived; the first one as a flag (for passing it on); its name.
bool interrupted();
int stop_signal();
int stop_signal_count();
const std::atomic<int>& stop_signal_flag();
std::string signal_name(int signal);

// What a second signal (or an exit() inside a case) runs before the process ends: it
// writes what was measured. Replaced by each call; an empty function clears it. The
// rescue runs with rescue_lock() held: the main thread holds it too while it changes what
// the rescue reads or writes its own files, so that the two never write at once.
void set_rescue(std::function<void()> rescue);
std::unique_lock<std::mutex> rescue_lock();
// Clears the rescue while `held` (from rescue_lock()) is held: the main thread then
// writes its own files, and a second signal waits for them before the process ends.
void drop_rescue(const std::unique_lock<std::mutex>& held);
// Marks whether a case's own code is running (an exit() then is the case's).
void set_in_case(bool in_case);

}  // namespace vitals::cli
