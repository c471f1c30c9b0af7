// The one entry point every kernel-set operation passes through.
//
// Each operation opens an OpScope first thing with its name and inputs; an observer
// (the profiler) sees the start and end of every operation with the inputs' shapes and
// dtypes. With no observer an OpScope costs one predictable branch.
#pragma once

#include <atomic>
#include <initializer_list>
#include <span>

#include "vitals/kernels/tensor.hpp"

namespace vitals::kernels {

struct OpObserver {
    // Returns an opaque token handed back to on_exit.
    void* (*on_enter)(const char* name, std::span<const Tensor* const> inputs) = nullptr;
    void (*on_exit)(void* token) = nullptr;
};

// Installs (or, with nullptr, removes) the observer for all threads. The observer
// must outlive its installation.
void set_op_observer(const OpObserver* observer);

namespace detail {
extern std::atomic<const OpObserver*> g_op_observer;
}  // namespace detail

class OpScope {
public:
    OpScope(const char* name, std::initializer_list<const Tensor*> inputs) {
        const OpObserver* observer = detail::g_op_observer.load(std::memory_order_acquire);
        if (observer != nullptr) [[unlikely]] {
            token_ = observer->on_enter(name, std::span<const Tensor* const>(inputs.begin(), inputs.size()));
            observer_ = observer;
        }
    }
    ~OpScope() {
        if (observer_ != nullptr) [[unlikely]] observer_->on_exit(token_);
    }
    OpScope(const OpScope&) = delete;
    OpScope& operator=(const OpScope&) = delete;

private:
    void* token_ = nullptr;
    const OpObserver* observer_ = nullptr;
};

}  // namespace vitals::kernels
