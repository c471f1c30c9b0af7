#include "stop_signals.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <thread>
#include <utility>

#include "command.hpp"

namespace vitals::cli {
namespace {

constexpr int kStopSignals[] = {SIGINT, SIGTERM, SIGHUP};

std::atomic<int> g_first_signal{0};
std::atomic<int> g_count{0};
std::atomic<bool> g_in_case{false};
int g_pipe[2] = {-1, -1};  // the handler's bytes to the watcher thread; 0 asks it to end

std::mutex& rescue_mutex() {
    static std::mutex m;
    return m;
}
std::function<void()>& rescue() {
    static std::function<void()> r;
    return r;
}

extern "C" void on_stop_signal(int signal) {
    const int saved = errno;
    int none = 0;
    g_first_signal.compare_exchange_strong(none, signal);
    g_count.fetch_add(1);
    const unsigned char byte = static_cast<unsigned char>(signal);
    (void)::write(g_pipe[1], &byte, 1);
    errno = saved;
}

// Runs the rescue if there is one (once), then says how the process ends.
void rescue_and_exit(int exit_code, const std::string& why, bool wait_for_lock) {
    std::unique_lock<std::mutex> lock(rescue_mutex(), std::defer_lock);
    if (wait_for_lock) {
        lock.lock();
    } else if (!lock.try_lock()) {
        ::_exit(exit_code);
    }
    fmt::print(stderr, "vitals: {}\n", why);
    if (std::function<void()> r = std::exchange(rescue(), {})) {
        try {
            r();
        } catch (const std::exception& e) {
            fmt::print(stderr, "vitals: error: {}\n", e.what());
        }
    }
    std::fflush(stderr);
    ::_exit(exit_code);
}

void watch(StopSignals::Role role) {
    for (;;) {
        unsigned char byte = 0;
        const ssize_t n = ::read(g_pipe[0], &byte, 1);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0 || byte == 0) return;
        if (role != StopSignals::Role::measuring) continue;
        const int count = g_count.load();
        if (count == 1) {
            fmt::print(stderr, "vitals: {}: stopping after the current block (send it again to stop at once, keeping "
                               "what was measured)\n",
                       signal_name(byte));
            std::fflush(stderr);
        } else if (count >= 2) {
            rescue_and_exit(128 + g_first_signal.load(),
                            fmt::format("{} again: stopping at once", signal_name(byte)), true);
        }
    }
}

// exit() called by a case's own code: what was measured is written, and the run fails.
void on_exit_inside_case() {
    if (!g_in_case.load()) return;
    rescue_and_exit(kExitFailure, "a case called exit() during its measurement: the run stops here", false);
}

std::thread& watcher() {
    static std::thread t;
    return t;
}

}  // namespace

StopSignals::StopSignals(Role role) {
    static const bool once = [] {
        if (::pipe2(g_pipe, O_CLOEXEC) != 0) throw std::runtime_error("cannot create the pipe for stop signals");
        ::fcntl(g_pipe[1], F_SETFL, O_NONBLOCK);  // a handler never blocks on a full pipe
        // After the watcher's static: exit() runs handlers and destructors in reverse, so
        // the rescue comes before the joinable thread's destructor would terminate().
        // The same for what the rescue uses.
        (void)watcher();
        (void)rescue();
        (void)rescue_mutex();
        std::atexit(on_exit_inside_case);
        return true;
    }();
    (void)once;
    g_first_signal.store(0);
    g_count.store(0);
    watcher() = std::thread(watch, role);
    struct sigaction action {};
    action.sa_handler = on_stop_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = 0;  // no SA_RESTART: a wait for a worker process returns, to pass the signal on
    for (const int signal : kStopSignals) ::sigaction(signal, &action, nullptr);
}

StopSignals::~StopSignals() {
    for (const int signal : kStopSignals) ::signal(signal, SIG_DFL);
    const unsigned char quit = 0;
    while (::write(g_pipe[1], &quit, 1) < 0 && errno == EAGAIN) std::this_thread::yield();
    watcher().join();
    set_rescue({});
}

bool interrupted() { return g_first_signal.load() != 0; }
int stop_signal() { return g_first_signal.load(); }
int stop_signal_count() { return g_count.load(); }
const std::atomic<int>& stop_signal_flag() { return g_first_signal; }

std::string signal_name(int signal) {
    switch (signal) {
        case SIGINT: return "SIGINT";
        case SIGTERM: return "SIGTERM";
        case SIGHUP: return "SIGHUP";
        default: return fmt::format("signal {}", signal);
    }
}

void set_rescue(std::function<void()> r) {
    const std::lock_guard<std::mutex> lock(rescue_mutex());
    rescue() = std::move(r);
}

std::unique_lock<std::mutex> rescue_lock() { return std::unique_lock<std::mutex>(rescue_mutex()); }

void drop_rescue(const std::unique_lock<std::mutex>& held) {
    if (!held.owns_lock() || held.mutex() != &rescue_mutex()) throw std::logic_error("drop_rescue: the rescue lock is not held");
    rescue() = {};
}

void set_in_case(bool in_case) { g_in_case.store(in_case); }

}  // namespace vitals::cli
