// The one entry point every kernel-set operation passes through.
//
// Each operation opens an OpScope first thing with its name and inputs. While a profile
// records, the operation becomes a `cpu_op` event (with its inputs' shapes and dtypes
// when the profile records shapes); an observer, if installed, sees every operation too.
// With neither, an OpScope costs two predictable branches.
#pragma once

#include <atomic>
#include <initializer_list>
#include <span>

#include "vitals/kernels/tensor.hpp"
#include "vitals/profiler/record_function.hpp"

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

namespace detail {
void record_op_inputs(std::initializer_list<const Tensor*> inputs);
}  // namespace detail

class OpScope {
public:
    OpScope(const char* name, std::initializer_list<const Tensor*> inputs)
        : record_(name, profiler::Category::cpu_op, [inputs] { detail::record_op_inputs(inputs); }) {
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
    profiler::RecordFunction record_;
    void* token_ = nullptr;
    const OpObserver* observer_ = nullptr;
};

}  // namespace vitals::kernels
