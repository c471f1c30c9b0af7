#include "vitals/threads.hpp"

#include <omp.h>

#include <array>
#include <atomic>
#include <mutex>
#include <stdexcept>

namespace vitals {
namespace {

constexpr int kMaxHooks = ThreadCountScope::kMaxHooks;
// Written under the mutex, read without it: a hook's slot is filled before the count
// that publishes it.
std::array<std::atomic<ThreadCountHook>, kMaxHooks> g_hooks{};
std::atomic<int> g_hook_count{0};
std::mutex g_register;

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

ThreadCountScope::ThreadCountScope(int num_threads) : previous_omp_(omp_get_max_threads()) {
    omp_set_num_threads(num_threads);
    hooks_applied_ = g_hook_count.load(std::memory_order_acquire);
    for (int i = 0; i < hooks_applied_; ++i) {
        previous_[i] = g_hooks[static_cast<std::size_t>(i)].load(std::memory_order_relaxed)(num_threads);
    }
}

ThreadCountScope::~ThreadCountScope() {
    for (int i = hooks_applied_ - 1; i >= 0; --i) g_hooks[static_cast<std::size_t>(i)].load(std::memory_order_relaxed)(previous_[i]);
    omp_set_num_threads(previous_omp_);
}

}  // namespace vitals
