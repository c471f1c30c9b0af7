// Profile: a profiling session in torch.profiler's shape.
//
//   vitals::profiler::Profile prof({.record_shapes = true});
//   prof.start();
//   { VITALS_RECORD_FUNCTION("forward"); model.forward(x); }
//   prof.stop();
//   std::cout << prof.key_averages().table({.sort_by = "cpu_time_total", .row_limit = 8});
//   prof.export_chrome_trace("trace.json");
//
// With a schedule, step() marks the end of each step; only the steps of the active
// phase are recorded (warm-up steps are traced and thrown away), each wrapped in a
// "ProfilerStep#N" annotation, and on_trace_ready runs after the last active step of
// every cycle. Events of steps that are not recorded are never stored. A scope still open
// when its window's records are collected (one around the step() that closes the window,
// say) is left out of that trace and counted in Trace::scopes_left_open, with a note on
// stderr: an event is whole or absent, never cut at the window's end.
#pragma once

#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "vitals/profiler/record_function.hpp"
#include "vitals/profiler/trace.hpp"

namespace vitals::profiler {

enum class Activity { cpu, cuda };
enum class ProfilerAction { none, warmup, record, record_and_save };

// torch.profiler.schedule: skip_first steps, then cycles of wait, warmup and active
// steps; repeat = 0 cycles until the job ends.
struct Schedule {
    std::int64_t wait = 0;
    std::int64_t warmup = 0;
    std::int64_t active = 1;
    std::int64_t repeat = 0;
    std::int64_t skip_first = 0;

    // Counts beyond this are refused (their sums must not overflow).
    static constexpr std::int64_t kMaxSteps = std::int64_t{1} << 40;

    // The action for a step (none for an invalid schedule or a negative step).
    ProfilerAction action(std::int64_t step) const;
    // Throws std::invalid_argument for active < 1, a negative count, or a count above kMaxSteps.
    void validate() const;
};

class Profile;
using TraceReadyHandler = std::function<void(Profile&)>;

struct ProfileOptions {
    std::vector<Activity> activities = {Activity::cpu};
    bool record_shapes = false;
    bool profile_memory = false;
    std::optional<Schedule> schedule{};
    TraceReadyHandler on_trace_ready{};
    std::string worker_name{};  // in traces and file names; default "<host>_<pid>"
    int rank = -1;            // distributed runs: this process's rank and the number of ranks,
    int world_size = -1;      // written as the trace's distributedInfo
    // At most this many events per recorded window (about 32 bytes each while recording);
    // past it, recording stops for the rest of the window with one warning, rather than
    // exhausting memory. 0: no cap.
    std::int64_t max_events = 50'000'000;
    // Buffer memory for this many events is allocated and touched when recording starts
    // (32 bytes an event; at most 64 MiB, kept for later profiles), so that a process's
    // first profile does not pay page faults inside the scopes it records. 0: none.
    std::int64_t reserve_events = 1'000'000;
};

class Profile {
public:
    // Throws std::invalid_argument for an invalid schedule.
    explicit Profile(ProfileOptions options = {});
    // `Profile prof({})`: an empty braced list means the default options (without this,
    // `{}` could as well be a Profile to copy, and the call would not compile).
    Profile(std::initializer_list<ProfileOptions> options);
    // Stops a running session (its last trace is delivered as stop() would).
    ~Profile();
    Profile(const Profile&) = delete;
    Profile& operator=(const Profile&) = delete;

    // Throws std::logic_error if this or another profile is already running.
    void start();
    // In a process forked while this profile ran, the child's copy of it stops without a
    // trace or on_trace_ready (the parent delivers that window), and start() starts it
    // anew; the child may also start another Profile.
    void stop();
    // The current step ends; the next begins. Throws std::logic_error when not started, or
    // in a forked child on the copy of its parent's running profile.
    void step();

    // False in a forked child for the copy of its parent's running profile (see stop()).
    bool running() const { return running_ && !inherited_from_parent(); }
    // Stops if running, never throwing: what a failing on_trace_ready said goes to stderr
    // and to last_error() (for destructors and scope ends; an explicit stop() throws).
    void stop_quietly(const char* why = "the profile was stopped quietly") noexcept;
    // What the last quiet stop failed with ("" when nothing failed).
    const std::string& last_error() const { return last_error_; }
    std::int64_t step_num() const { return step_num_; }
    ProfilerAction current_action() const { return action_; }

    // The last finished trace (after stop(), or inside on_trace_ready).
    const Trace& trace() const { return trace_; }
    // The same as a table's rows, or a Chrome trace. Before any trace is finished (a
    // running profile before its first on_trace_ready, or one never stopped) they throw
    // std::logic_error saying to call stop() first, rather than answer with nothing.
    KeyAverages key_averages(const KeyAveragesOptions& options = {}) const;
    void export_chrome_trace(const std::filesystem::path& path) const;
    const ProfileOptions& options() const { return options_; }

private:
    void transit(ProfilerAction from, std::optional<ProfilerAction> to);
    void prepare_trace();
    void start_trace();
    void stop_trace();
    void trace_ready();
    void discard_window();
    void release_running_slot();
    bool inherited_from_parent() const;
    void forget_inherited_window();
    void begin_step_annotation();
    void end_step_annotation();

    ProfileOptions options_;
    bool running_ = false;
    std::int64_t owner_pid_ = 0;  // the process that started it
    std::int64_t step_num_ = 0;
    ProfilerAction action_ = ProfilerAction::none;
    std::int64_t window_start_ticks_ = 0;
    bool device_active_ = false;  // CUPTI records this window
    std::optional<RecordFunction> step_annotation_;
    Trace trace_;
    bool has_trace_ = false;  // a window has finished: trace_ holds it
    bool in_handler_ = false;      // on_trace_ready is running
    bool stop_requested_ = false;  // ... and called stop()
    std::string last_error_;
};

// Starts a profile for the lifetime of the scope.
class ProfileScope {
public:
    explicit ProfileScope(Profile& profile) : profile_(profile) { profile_.start(); }
    // A failing on_trace_ready at the scope's end is reported (stderr, last_error()), not
    // thrown: a destructor that threw would end the program.
    ~ProfileScope() { profile_.stop_quietly("the profile's scope ended"); }
    ProfileScope(const ProfileScope&) = delete;
    ProfileScope& operator=(const ProfileScope&) = delete;

private:
    Profile& profile_;
};

struct TensorboardOptions {
    std::string worker_name{};  // default "<host>_<pid>"
    bool use_gzip = false;
};

// An on_trace_ready handler writing each trace to
// dir/<worker>.<milliseconds since epoch>.pt.trace.json(.gz), the layout TensorBoard's
// profiler plugin and Holistic Trace Analysis read. Creates dir if needed. A file appears
// whole (written to a temporary first) and never replaces one: where the name is taken
// (another writer, another process, the same millisecond) the next stamp is tried, so
// writers sharing a folder and a worker name lose no trace.
TraceReadyHandler tensorboard_trace_handler(std::filesystem::path dir, TensorboardOptions options = {});

// "<host>_<pid>", the default worker name.
std::string default_worker_name();

// Bytes the recorder's per-thread buffers hold right now: what recording costs in memory.
std::size_t recorder_memory_bytes();

}  // namespace vitals::profiler
