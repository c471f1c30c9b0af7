// The intra-op thread count a Timer grants its statement (TimerOptions::num_threads).
//
// The platform sets OpenMP's count itself; parts with thread pools of their own (the
// kernel set registers Eigen's) add a hook, so the Timer needs to link none of them.
#pragma once

namespace vitals {

// Called with the count to apply; returns the count it replaced, to restore afterwards.
using ThreadCountHook = int (*)(int num_threads);

// Adds a hook that every ThreadCountScope from now on applies. Registering the same
// hook twice has no effect. Thread-safe.
void register_thread_count_hook(ThreadCountHook hook);

// Sets the intra-op thread count (OpenMP, and every registered hook) for its lifetime,
// then restores what was there before.
class ThreadCountScope {
public:
    explicit ThreadCountScope(int num_threads);
    ~ThreadCountScope();
    ThreadCountScope(const ThreadCountScope&) = delete;
    ThreadCountScope& operator=(const ThreadCountScope&) = delete;

    // Hooks that can be registered at most.
    static constexpr int kMaxHooks = 8;

private:
    int previous_omp_;
    int previous_[kMaxHooks];
    int hooks_applied_ = 0;
};

}  // namespace vitals
