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
//
// The hooks' counts are process-wide (Eigen has one count for all threads), so scopes on
// several threads at once must agree: one that asks for another count while a scope of
// another thread is alive throws std::logic_error naming both counts, rather than let
// one statement run with the other's threads. Scopes with the same count share it (the
// last to end restores what was there); scopes nested on one thread may differ.
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
    int hooks_applied_ = 0;   // hooks this scope set, and restores
    int previous_count_ = 0;  // the process-wide count before this scope set its own
};

}  // namespace vitals
