#include "vitals/threads.hpp"

#include <omp.h>

#include <array>
#include <atomic>
#include <mutex>
#include <stdexcept>

#include <fmt/format.h>

namespace vitals {
namespace {

constexpr int kMaxHooks = ThreadCountScope::kMaxHooks;
// Written under the mutex, read without it: a hook's slot is filled before the count
// that publishes it.
std::array<std::atomic<ThreadCountHook>, kMaxHooks> g_hooks{};
std::atomic<int> g_hook_count{0};
std::mutex g_register;
// What the hooks held before the first of several sharing scopes set them, when that
// scope ended before the others (under ActiveScopes' mutex).
std::array<int, kMaxHooks> g_deferred_previous{};
int g_deferred_hooks = 0;

}  // namespace

void register_thread_count_hook(ThreadCountHook hook) {
    if (hook == nullptr) return;
    const std::lock_guard lock(g_register);
    const int count = g_hook_count.load(std::memory_order_relaxed);
    for (int i = 0; i < count; ++i) {
        if (g_hooks[static_cast<std::size_t>(i)].load(std::memory_order_relaxed) == hook) return;
    }
    if (count == kMaxHooks) throw std::length_error("register_thread_count_hook: too many hooks");
    g_hooks[static_cast<std::size_t>(count)].store(hook, std::memory_order_relaxed);
    g_hook_count.store(count + 1, std::memory_order_release);
}

// The scopes alive now, across threads, and the count they hold; this thread's share.
struct ActiveScopes {
    std::mutex mutex;
    int alive = 0;
    int count = 0;
};
ActiveScopes g_active;
thread_local int t_alive_here = 0;

ThreadCountScope::ThreadCountScope(int num_threads) : previous_omp_(omp_get_max_threads()) {
    const std::lock_guard lock(g_active.mutex);
    const bool others_alive = g_active.alive > t_alive_here;
    if (others_alive && num_threads != g_active.count) {
        throw std::logic_error(fmt::format(
            "two Timers ran at once on two threads with different num_threads ({} here, {} in the other): the intra-op "
            "thread count is one for the whole process (Eigen's), so one would run with the other's threads; run them "
            "one after the other, or give them the same num_threads",
            num_threads, g_active.count));
    }
    omp_set_num_threads(num_threads);  // OpenMP's count is per thread: every scope sets its own
    if (!others_alive) {  // first, or nested on this thread only: this scope sets the hooks and restores them
        hooks_applied_ = g_hook_count.load(std::memory_order_acquire);
        for (int i = 0; i < hooks_applied_; ++i) {
            previous_[i] = g_hooks[static_cast<std::size_t>(i)].load(std::memory_order_relaxed)(num_threads);
        }
    }
    previous_count_ = g_active.count;
    g_active.count = num_threads;
    ++g_active.alive;
    ++t_alive_here;
}

ThreadCountScope::~ThreadCountScope() {
    const std::lock_guard lock(g_active.mutex);
    --g_active.alive;
    --t_alive_here;
    if (hooks_applied_ > 0 && g_active.alive > t_alive_here) {
        // Others share this count and outlive this scope: they keep it; the last restores.
        for (int i = 0; i < hooks_applied_; ++i) g_deferred_previous[static_cast<std::size_t>(i)] = previous_[i];
        g_deferred_hooks = hooks_applied_;
        hooks_applied_ = 0;
    }
    for (int i = hooks_applied_ - 1; i >= 0; --i) g_hooks[static_cast<std::size_t>(i)].load(std::memory_order_relaxed)(previous_[i]);
    if (g_active.alive == 0 && g_deferred_hooks > 0) {
        for (int i = g_deferred_hooks - 1; i >= 0; --i) {
            g_hooks[static_cast<std::size_t>(i)].load(std::memory_order_relaxed)(g_deferred_previous[static_cast<std::size_t>(i)]);
        }
        g_deferred_hooks = 0;
    }
    if (g_active.alive == 0 || hooks_applied_ > 0) g_active.count = previous_count_;
    omp_set_num_threads(previous_omp_);
}

}  // namespace vitals
