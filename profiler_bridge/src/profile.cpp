// Profile's schedule: the actions of torch.profiler's schedule, the transitions between
// them as steps go by, start/stop/step, and a forked child's copy of a running profile.
// A window's edges (arming the recorder, building the trace) are in window.cpp.
#include "vitals/profiler/profile.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <stdexcept>

#include "device_activity.hpp"
#include "recorder.hpp"

namespace vitals::profiler {
namespace {

std::atomic<Profile*> g_running_profile{nullptr};

}  // namespace

ProfilerAction Schedule::action(std::int64_t step) const {
    const auto in_range = [](std::int64_t v, std::int64_t low) { return v >= low && v <= kMaxSteps; };
    if (!in_range(wait, 0) || !in_range(warmup, 0) || !in_range(active, 1) || !in_range(repeat, 0) ||
        !in_range(skip_first, 0) || step < 0) {
        return ProfilerAction::none;  // an invalid schedule records nothing (validate() says why)
    }
    if (step < skip_first) return ProfilerAction::none;
    step -= skip_first;
    const std::int64_t cycle = wait + warmup + active;
    if (repeat > 0 && step / cycle >= repeat) return ProfilerAction::none;
    const std::int64_t position = step % cycle;
    if (position < wait) return ProfilerAction::none;
    if (position < wait + warmup) return ProfilerAction::warmup;
    return position < cycle - 1 ? ProfilerAction::record : ProfilerAction::record_and_save;
}

void Schedule::validate() const {
    if (active < 1) {
        throw std::invalid_argument(fmt::format("schedule: active must be at least 1 step, got {}", active));
    }
    if (wait > kMaxSteps || warmup > kMaxSteps || active > kMaxSteps || repeat > kMaxSteps || skip_first > kMaxSteps) {
        throw std::invalid_argument(fmt::format("schedule: counts above {} steps are not supported", kMaxSteps));
    }
    if (wait < 0 || warmup < 0 || repeat < 0 || skip_first < 0) {
        throw std::invalid_argument(fmt::format(
            "schedule: wait, warmup, repeat and skip_first must be >= 0, got wait={} warmup={} repeat={} skip_first={}",
            wait, warmup, repeat, skip_first));
    }
}

Profile::Profile(ProfileOptions options) : options_(std::move(options)) {
    if (options_.schedule) {
        options_.schedule->validate();
        if (options_.schedule->warmup == 0) {
            fmt::print(stderr, "vitals: warning: a schedule without warmup steps skews the first recorded step; "
                               "give it 1 or more (Schedule's .warmup; --warmup on the command line)\n");
        }
    }
}

namespace {
// A forked child has no running profile: the parent's, copied into the child, belongs to
// the parent (see Profile::inherited_from_parent).
void forget_running_profile_in_child() { g_running_profile.store(nullptr, std::memory_order_relaxed); }
}  // namespace

Profile::~Profile() { stop_quietly("the profile was destroyed while running"); }

void Profile::stop_quietly(const char* why) noexcept {
    if (!running_) return;
    try {
        stop();
    } catch (const std::exception& e) {  // a throwing on_trace_ready must not escape a destructor
        last_error_ = e.what();
        std::fprintf(stderr, "vitals: error: %s, and stopping it failed: %s (the last trace was not delivered)\n", why,
                     e.what());
    } catch (...) {
        last_error_ = "unknown exception";
        std::fprintf(stderr, "vitals: error: %s, and stopping it failed (the last trace was not delivered)\n", why);
    }
}

// Recording off and the window's records dropped, with no trace built or delivered.
void Profile::discard_window() {
    end_step_annotation();
    running_ = false;
    detail::stop_recording();
    if (device_active_) (void)detail::device_activity::stop();
    device_active_ = false;
    (void)detail::collect_all(/*keep=*/false);
    release_running_slot();
}

void Profile::release_running_slot() {
    Profile* self = this;
    g_running_profile.compare_exchange_strong(self, nullptr);
}

bool Profile::inherited_from_parent() const { return running_ && owner_pid_ != ::getpid(); }

// The copy a forked child holds of its parent's running profile: it ends without a trace
// (the window's records are the parent's, who delivers them) and without touching the
// child's running profile, if the child started one.
void Profile::forget_inherited_window() {
    running_ = false;
    device_active_ = false;
    stop_requested_ = false;
    action_ = ProfilerAction::none;
    end_step_annotation();
}

void Profile::start() {
    static const bool fork_handler = [] {
        ::pthread_atfork(nullptr, nullptr, forget_running_profile_in_child);
        return true;
    }();
    (void)fork_handler;
    if (inherited_from_parent()) forget_inherited_window();
    if (running_) throw std::logic_error("Profile::start: this profile is already running");
    Profile* expected = nullptr;
    if (!g_running_profile.compare_exchange_strong(expected, this)) {
        throw std::logic_error("Profile::start: another profile is running; stop it before starting this one");
    }
    running_ = true;
    owner_pid_ = ::getpid();
    step_num_ = 0;
    action_ = options_.schedule ? options_.schedule->action(0) : ProfilerAction::record;
    transit(ProfilerAction::none, action_);
    begin_step_annotation();
}

void Profile::stop() {
    if (inherited_from_parent()) {
        forget_inherited_window();
        return;
    }
    if (!running_) throw std::logic_error("Profile::stop: this profile is not running; call start() first");
    if (in_handler_) {  // stop() from on_trace_ready: done when the handler returns
        stop_requested_ = true;
        return;
    }
    end_step_annotation();
    running_ = false;
    try {
        transit(action_, std::nullopt);
    } catch (...) {
        detail::stop_recording();
        release_running_slot();
        throw;
    }
    detail::stop_recording();
    release_running_slot();
    stop_requested_ = false;
}

void Profile::step() {
    if (inherited_from_parent()) {
        throw std::logic_error(fmt::format(
            "Profile::step: this profile was started by process {}, before the fork() that made this one; a forked "
            "child records only with a Profile it starts itself",
            owner_pid_));
    }
    if (!running_) throw std::logic_error("Profile::step: this profile is not running; call start() first");
    if (in_handler_) throw std::logic_error("Profile::step: called from on_trace_ready; step the profile from the loop");
    end_step_annotation();
    const ProfilerAction previous = action_;
    ++step_num_;
    action_ = options_.schedule ? options_.schedule->action(step_num_) : ProfilerAction::record;
    transit(previous, action_);
    if (stop_requested_) {  // the handler stopped the profile: nothing records past it
        stop_requested_ = false;
        discard_window();
        return;
    }
    begin_step_annotation();
}

void Profile::begin_step_annotation() {
    if (options_.schedule) step_annotation_.emplace(copy_name, fmt::format("ProfilerStep#{}", step_num_));
}

void Profile::end_step_annotation() { step_annotation_.reset(); }

// The reference's transitions between actions (torch.profiler.profile.action_map).
void Profile::transit(ProfilerAction from, std::optional<ProfilerAction> to) {
    using A = ProfilerAction;
    const auto warn = [](const char* what) { fmt::print(stderr, "vitals: warning: incorrect schedule: {}\n", what); };
    if (!to) {  // stop()
        if (from == A::warmup) {
            start_trace();
            stop_trace();
        } else if (from == A::record || from == A::record_and_save) {
            stop_trace();
            trace_ready();
        }
        return;
    }
    switch (from) {
        case A::none:
            if (*to == A::warmup) prepare_trace();
            if (*to == A::record || *to == A::record_and_save) {
                prepare_trace();
                start_trace();
            }
            break;
        case A::warmup:
            if (*to == A::none) {
                warn("WARMUP followed by NONE");
                start_trace();
                stop_trace();
            }
            if (*to == A::record || *to == A::record_and_save) start_trace();
            break;
        case A::record:
            if (*to == A::none || *to == A::warmup) {
                warn(*to == A::none ? "RECORD followed by NONE" : "RECORD followed by WARMUP");
                stop_trace();
            }
            break;
        case A::record_and_save:
            stop_trace();
            trace_ready();
            if (*to == A::warmup) prepare_trace();
            if (*to == A::record || *to == A::record_and_save) {
                prepare_trace();
                start_trace();
            }
            break;
    }
}

Profile::Profile(std::initializer_list<ProfileOptions> options)
    : Profile(options.size() == 1 ? *options.begin() : ProfileOptions{}) {
    if (options.size() > 1) throw std::invalid_argument("Profile: give one ProfileOptions, not a list of them");
}

KeyAverages Profile::key_averages(const KeyAveragesOptions& options) const {
    if (!has_trace_) {
        throw std::logic_error("Profile::key_averages: no trace has finished yet; call stop() first (or read it in on_trace_ready)");
    }
    return trace_.key_averages(options);
}

void Profile::export_chrome_trace(const std::filesystem::path& path) const {
    if (!has_trace_) {
        throw std::logic_error("Profile::export_chrome_trace: no trace has finished yet; call stop() first (or export in "
                               "on_trace_ready)");
    }
    trace_.export_chrome_trace(path);
}

void Profile::trace_ready() {
    if (!options_.on_trace_ready) return;
    in_handler_ = true;
    try {
        options_.on_trace_ready(*this);
    } catch (...) {
        in_handler_ = false;
        throw;
    }
    in_handler_ = false;
}

}  // namespace vitals::profiler
